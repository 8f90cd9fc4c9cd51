"""Noise-scale planted bugs for Asi, Chadha, Cheng & Duchi (2022), arXiv:2210.17070 (Algorithm 4, lines 6–11):
generator wrappers that keep everything an algorithm computes and reports (σ_i, its claim, its transcript) and
change only the noise actually drawn.

* :func:`under_noised_laplace` — the Laplace analogue of ``dpsco.verification.mutants.noise_scale.under_noised``:
  an algorithm run with it reports the Laplace scale b_i = 4Lη_i√d/ε and draws Laplace noise of scale b_i/√2
  (:class:`UnderNoisedLaplaceGenerator`; Gaussian and every other draw are the parent's).  A check that reads b_i
  from the release cannot see it; the measured Laplace-scale check of ``verification/papers/accd22/noise.py``
  (the replayed residuals against the b_i of the public schedule) must catch it.
* :func:`noise_free` — the algorithm with *no* noise at all while reporting its calibrated scales
  (:class:`NoiseFreeGenerator`: every Laplace and Gaussian draw is its location, i.e. 0): the non-private control
  that the lower-bound checks of Theorems 1 and 4 (``verification/papers/accd22/utility.py``) must refute.

They live here, never in ``reference/``; the concrete planted copies of the six algorithms are in
``dpsco.verification.mutants.accd22.bugs`` (and in the corpus).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

__all__ = ["LAPLACE_SCALE", "NoiseFreeGenerator", "UnderNoisedLaplaceGenerator", "noise_free",
           "under_noised_laplace"]

#: the factor the Laplace planted bug applies to every Laplace scale
LAPLACE_SCALE = 1.0 / math.sqrt(2.0)


class UnderNoisedLaplaceGenerator(np.random.Generator):
    """A Generator drawing Laplace noise at LAPLACE_SCALE × the requested scale (planted bug)."""

    def laplace(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:  # noqa: D102
        return super().laplace(loc, np.asarray(scale) * LAPLACE_SCALE, size)


class NoiseFreeGenerator(np.random.Generator):
    """A Generator whose Laplace and Gaussian draws are their location (no noise; planted non-private control).
    Uniform and integer draws are the parent's."""

    def laplace(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:  # noqa: D102
        return np.broadcast_to(np.asarray(loc, dtype=np.float64), () if size is None else size).copy()

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:  # noqa: D102
        return np.broadcast_to(np.asarray(loc, dtype=np.float64), () if size is None else size).copy()

    def standard_normal(self, size: Any = None, *args: Any, **kwargs: Any) -> Any:  # noqa: D102
        return np.zeros(() if size is None else size)


def _swapping(algorithm: Callable[..., Any], generator: type, suffix: str, doc: str) -> Callable[..., Any]:
    def planted(*args: Any, **kwargs: Any) -> Any:
        def swap(g: Any) -> Any:
            return generator(g.bit_generator) if isinstance(g, np.random.Generator) else g

        return algorithm(*(swap(a) for a in args), **{k: swap(v) for k, v in kwargs.items()})

    name = getattr(algorithm, "__name__", "algorithm")
    planted.__name__ = f"{name}_{suffix}"
    planted.__doc__ = f"Planted bug: {name} {doc}."
    return planted


def under_noised_laplace(algorithm: Callable[..., Any]) -> Callable[..., Any]:
    """``algorithm`` with its ``rng`` (keyword or positional Generator) replaced by an
    :class:`UnderNoisedLaplaceGenerator` on the same bit stream: reports the Laplace scale b, draws b/√2."""
    return _swapping(algorithm, UnderNoisedLaplaceGenerator, "draws_laplace_scale_over_sqrt2",
                     "reporting the Laplace scale b, drawing b/√2")


def noise_free(algorithm: Callable[..., Any]) -> Callable[..., Any]:
    """``algorithm`` with its ``rng`` replaced by a :class:`NoiseFreeGenerator`: reports its calibrated noise,
    adds none (a non-private control)."""
    return _swapping(algorithm, NoiseFreeGenerator, "without_noise", "reporting its noise scales, adding none")
