"""The DP-ERM / DP-SCO problem model: a loss, a domain W and declared data bounds.

The constants every theorem needs (Lipschitz L, smoothness β) are derived here from the *declared* bounds
‖x‖ ≤ X_max, |y| ≤ Y_max and the radius M, before any data is read.  The data is then checked against the
declarations: a violation is a ``ValueError`` unless the caller explicitly asked for data-independent
clipping to the declared bounds (``clip=True``), which is recorded in the release's claim.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpsco.reference.domains import Ball, require_centred
from dpsco.reference.losses import GLMLoss
from dpsco.reference.validation import check_bool, check_data, check_positive

__all__ = ["DataBounds", "ERMProblem", "clip_to_bounds"]

#: relative slack allowed when checking declared bounds (float rounding of data scaled to the bound)
BOUND_RTOL = 1e-12


@dataclass(frozen=True)
class DataBounds:
    """Declared, public bounds of the data domain: ‖x‖₂ ≤ x_max and |y| ≤ y_max."""

    x_max: float
    y_max: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "x_max", check_positive(self.x_max, "x_max"))
        object.__setattr__(self, "y_max", check_positive(self.y_max, "y_max", allow_zero=True))

    def to_dict(self) -> dict[str, float]:
        return {"x_max": self.x_max, "y_max": self.y_max}


def clip_to_bounds(X: np.ndarray, y: np.ndarray, bounds: DataBounds) -> tuple[np.ndarray, np.ndarray, int]:
    """Data-independent clipping: rows of X scaled to norm ≤ x_max, y clipped to [−y_max, y_max].

    Returns (X_clipped, y_clipped, number of rows that violated a bound by more than float rounding,
    i.e. by a relative ``BOUND_RTOL``).  The thresholds are the declared bounds, never statistics of the
    data, so the clipping is a fixed per-record map and costs no privacy.
    """
    norms = np.linalg.norm(X, axis=1)
    scale = np.minimum(1.0, bounds.x_max / np.where(norms > 0, norms, 1.0))
    Xc = X * scale[:, None]
    yc = np.clip(y, -bounds.y_max, bounds.y_max)
    violated = (norms > bounds.x_max * (1.0 + BOUND_RTOL)) | (np.abs(y) > bounds.y_max * (1.0 + BOUND_RTOL))
    return Xc, yc, int(violated.sum())


@dataclass(frozen=True)
class ERMProblem:
    """Loss ℓ, domain W = B(0, M) and declared data bounds.

    Parameters
    ----------
    loss : GLMLoss
    domain : Ball
        W = B(0, M): a ball centred at 0 (ValueError naming ``domain`` otherwise; Bassily et al. 2019, Sec. 2).
    bounds : DataBounds

    Attributes (derived, public)
    ----------------------------
    lipschitz : float
        L with ‖∇ℓ(w, z)‖ ≤ L for all w ∈ W and all z in the declared data domain.
    smoothness : float or None
        β (None for non-smooth losses).
    """

    loss: GLMLoss
    domain: Ball
    bounds: DataBounds

    def __post_init__(self) -> None:
        if not isinstance(self.loss, GLMLoss):
            raise TypeError(f"loss must be a GLMLoss, got {type(self.loss).__name__}")
        require_centred(self.domain, "domain")  # W = B(0, M): L, β and every algorithm assume the origin as centre
        if not isinstance(self.bounds, DataBounds):
            raise TypeError(f"bounds must be DataBounds, got {type(self.bounds).__name__}")

    @property
    def radius(self) -> float:
        return self.domain.radius

    @property
    def lipschitz(self) -> float:
        return self.loss.lipschitz(self.bounds.x_max, self.bounds.y_max, self.domain.radius)

    @property
    def smoothness(self) -> float | None:
        return self.loss.smoothness(self.bounds.x_max)

    def check(self, X: Any, y: Any, *, clip: bool = False) -> tuple[np.ndarray, np.ndarray, int]:
        """Validate a dataset against the problem and the declared bounds.

        Returns (X, y, n_clipped).  Raises ``ValueError`` naming ``X`` or ``y`` on NaN/inf, wrong shapes,
        empty data, labels outside the loss's label set, or (unless ``clip``) rows that violate the
        declared bounds; ``TypeError`` naming ``X`` or ``y`` on non-numeric or complex data, and naming
        ``clip`` when it is not a bool (a truthy string such as "no" must not switch clipping on).  Every
        algorithm of ``reference`` validates its data here (or in ``check_data``).
        """
        clip = check_bool(clip, "clip")
        Xa, ya = check_data(X, y)
        self.loss.check_labels(ya)
        n_clipped = 0
        norms = np.linalg.norm(Xa, axis=1)
        over_x = norms > self.bounds.x_max * (1.0 + BOUND_RTOL)
        over_y = np.abs(ya) > self.bounds.y_max * (1.0 + BOUND_RTOL)
        if np.any(over_x) or np.any(over_y):
            if not clip:
                if np.any(over_x):
                    raise ValueError(
                        f"X violates the declared bound ‖x‖ ≤ x_max = {self.bounds.x_max} in "
                        f"{int(over_x.sum())} row(s); pass clip=True to clip to the declared bound "
                        "(data-independent, recorded in the claim)"
                    )
                raise ValueError(
                    f"y violates the declared bound |y| ≤ y_max = {self.bounds.y_max} in {int(over_y.sum())} "
                    "row(s); pass clip=True to clip to the declared bound"
                )
            Xa, ya, n_clipped = clip_to_bounds(Xa, ya, self.bounds)
            self.loss.check_labels(ya)
        return Xa, ya, n_clipped

    def assumptions(self) -> dict[str, Any]:
        """The declared constants a privacy claim relies on."""
        return {
            "loss": self.loss.to_dict(),
            "domain": self.domain.to_dict(),
            "bounds": self.bounds.to_dict(),
            "lipschitz": self.lipschitz,
            "smoothness": self.smoothness,
        }

    def to_dict(self) -> dict[str, Any]:
        return self.assumptions()
