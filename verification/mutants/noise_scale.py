"""The planted bug "reports σ, draws σ/√2", for every algorithm that draws Gaussian noise.

:class:`UnderNoisedGenerator` is a ``numpy.random.Generator`` whose Gaussian draws (``standard_normal`` and
``normal``) have 1/√2 of the requested scale; every other draw (indices, uniforms, Laplace) is the parent's.
An algorithm run with it computes σ from public inputs exactly as it should, reports that σ in its release and
its claim, and adds σ/√2: the bug is invisible to any check that reads σ from the release, and must be caught
by the measured-noise check (``dpsco.verification.checks.noise``).  It lives here, never in ``reference/``.
:class:`ScaledNoiseGenerator` scales Gaussian and Gumbel draws by any factor (0 removes the noise): the
noise-free planted copies of Menart et al.'s lower-bound and exponential-mechanism checks.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from dpsco.reference.validation import check_positive

import numpy as np

__all__ = ["SCALE", "ScaledNoiseGenerator", "UnderNoisedGenerator", "under_noised"]

#: the factor the planted bug applies to every Gaussian draw
SCALE = 1.0 / math.sqrt(2.0)


class UnderNoisedGenerator(np.random.Generator):
    """A Generator drawing Gaussian noise at SCALE × the requested standard deviation (planted bug)."""

    def standard_normal(self, *args: Any, **kwargs: Any) -> Any:  # noqa: D102
        return super().standard_normal(*args, **kwargs) * SCALE

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:  # noqa: D102
        return super().normal(loc, np.asarray(scale) * SCALE, size)

    def multivariate_normal(self, mean: Any, cov: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: D102
        return super().multivariate_normal(mean, np.asarray(cov) * SCALE**2, *args, **kwargs)


def under_noised(algorithm: Callable[..., Any]) -> Callable[..., Any]:
    """``algorithm`` with its ``rng`` (keyword or the positional Generator) replaced by an
    :class:`UnderNoisedGenerator` on the same bit stream: reports σ, draws σ/√2."""

    def planted(*args: Any, **kwargs: Any) -> Any:
        def swap(g: Any) -> Any:
            return UnderNoisedGenerator(g.bit_generator) if isinstance(g, np.random.Generator) else g

        args = tuple(swap(a) for a in args)
        kwargs = {k: swap(v) for k, v in kwargs.items()}
        return algorithm(*args, **kwargs)

    planted.__name__ = f"{getattr(algorithm, '__name__', 'algorithm')}_draws_sigma_over_sqrt2"
    planted.__doc__ = f"Planted bug: {getattr(algorithm, '__name__', 'algorithm')} reporting σ, drawing σ/√2."
    return planted


class ScaledNoiseGenerator(np.random.Generator):
    """A numpy Generator whose Gaussian and Gumbel draws are multiplied by ``scale`` (0 removes the noise: the
    Gumbel draws return their location).  A planted bug for the tests: the same algorithm with σ·scale.

    Parameters: bit_generator (a numpy BitGenerator), scale ≥ 0.  Raises ValueError for scale < 0."""

    def __init__(self, bit_generator: np.random.BitGenerator, scale: float) -> None:
        super().__init__(bit_generator)
        self.scale = check_positive(scale, "scale", allow_zero=True)

    def standard_normal(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> Any:
        return self.scale * super().standard_normal(size, dtype=dtype, out=out)

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        return super().normal(loc, self.scale * np.asarray(scale, dtype=np.float64), size)

    def gumbel(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        if self.scale == 0.0:
            return np.broadcast_to(np.asarray(loc, dtype=np.float64), () if size is None else size).copy()
        return super().gumbel(loc, self.scale * np.asarray(scale, dtype=np.float64), size)
