"""Parameter domains W (the papers' convex, compact parameter set).

Only the Euclidean ball is needed by the papers implemented so far: W = B(0, M) = {w : ‖w‖ ≤ M}.
M is the L2 *radius* (Bassily et al. 2019, Sec. 2: "W is M-bounded"), not the diameter.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpsco.reference.projections import project_ball
from dpsco.reference.validation import check_positive

__all__ = ["Ball"]


@dataclass(frozen=True)
class Ball:
    """The Euclidean ball B(0, M) in R^d.

    Parameters
    ----------
    radius : float > 0
        M, the L2 radius.  ``numpy.inf`` is allowed for an unconstrained domain (R^d); theorems that
        need a bounded domain refuse such a ball.

    Raises
    ------
    ValueError
        ``radius`` not > 0 or NaN.
    """

    radius: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", check_positive(self.radius, "radius", allow_inf=True))

    @property
    def bounded(self) -> bool:
        return bool(np.isfinite(self.radius))

    @property
    def diameter(self) -> float:
        return 2.0 * self.radius

    def project(self, w: np.ndarray) -> np.ndarray:
        """Euclidean projection Proj_W.

        ``w``: (d,) or (k, d) float array; rows are projected independently.  Returns a new array:
        Proj(w) = w · min(1, M/‖w‖), by the one core projection ``dpsco.reference.projections.project_ball``
        (rows inside unchanged; ‖Proj(w)‖ ≤ M guaranteed in floating point; overflow-safe; inf rows to the
        boundary in their limit direction, NaN rows to 0).
        """
        return project_ball(w, self.radius)

    def contains(self, w: np.ndarray, rtol: float = 0.0) -> bool:
        """True iff ‖w‖ ≤ M·(1 + rtol)."""
        return bool(np.linalg.norm(np.asarray(w, dtype=np.float64)) <= self.radius * (1.0 + rtol))

    def to_dict(self) -> dict[str, object]:
        return {"type": "ball", "radius": self.radius}
