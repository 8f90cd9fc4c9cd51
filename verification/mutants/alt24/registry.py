"""Helpers of the check registry's planted bugs of Asi, Liu & Tian (2024) (``mutants.alt24.catches``): a Generator
whose Gaussian draws are scaled by a factor — 0 for the "noise term dropped" copies, 1/J for a σ computed from the
wrong record count — and the wrapper that swaps an algorithm's ``rng`` for it.  The planted copies themselves live in
``mutants.alt24.clipped``, ``mutants.alt24.known_lip`` and ``mutants.alt24.localized`` (the corpus's modules).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

__all__ = ["ScaledGenerator", "noise_dropped", "noise_scaled"]


class ScaledGenerator(np.random.Generator):
    """A Generator whose Gaussian draws (``standard_normal``, ``normal``) have ``factor`` × the requested scale
    (every other draw — indices, uniforms, Laplace — is the parent's, on the same bit stream)."""

    def __init__(self, bit_generator: Any, factor: float) -> None:
        super().__init__(bit_generator)
        self.factor = float(factor)

    def standard_normal(self, *args: Any, **kwargs: Any) -> Any:  # noqa: D102
        return super().standard_normal(*args, **kwargs) * self.factor

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:  # noqa: D102
        return super().normal(loc, np.asarray(scale) * self.factor, size)


def noise_scaled(algorithm: Callable[..., Any], factor: float, suffix: str) -> Callable[..., Any]:
    """``algorithm`` with every Generator argument replaced by a :class:`ScaledGenerator` (``factor``) on the same
    bit stream: it computes and reports σ and its claim as it should and draws ``factor``·σ.  The copy is named
    ``<algorithm>_<suffix>``."""
    def planted(*args: Any, **kwargs: Any) -> Any:
        def swap(g: Any) -> Any:
            return ScaledGenerator(g.bit_generator, factor) if isinstance(g, np.random.Generator) else g
        return algorithm(*(swap(a) for a in args), **{k: swap(v) for k, v in kwargs.items()})
    planted.__name__ = f"{getattr(algorithm, '__name__', 'algorithm')}_{suffix}"
    planted.__doc__ = f"Planted bug: {getattr(algorithm, '__name__', 'algorithm')} drawing {factor:g} × its σ."
    return planted


def noise_dropped(algorithm: Callable[..., Any]) -> Callable[..., Any]:
    """``algorithm`` without its Gaussian noise (the "forgot the noise term" bug): :func:`noise_scaled` at factor 0,
    named ``<algorithm>_noise_dropped``.  Its release is a deterministic function of the data: on a pair whose
    noiseless outputs differ, every audit whose event separates the two points refutes it with a p-value fixed by
    the audit's run counts (miss probability 0)."""
    return noise_scaled(algorithm, 0.0, "noise_dropped")
