"""Parameter domains W (the papers' convex, compact parameter set): the one ``Ball`` type of the package.

Every paper implemented so far optimises over a Euclidean ball:

* Bassily et al. 2019 (Sec. 2: "W is M-bounded"), Lowy & Razaviyayn 2021 (Sec. 1), Asi, Liu & Tian 2024 (Sec. 2)
  and Menart et al. 2023 (§2, the regions of the declared constants) use W = B(0, M) = {w : ‖w‖ ≤ M}; their
  algorithms and calibrations assume the centre is 0 (e.g. the Lipschitz constant L = X_max·sup|φ'| over
  |⟨w, x⟩| ≤ X_max·M), so their entry points refuse a ball with another centre (:func:`require_centred`);
* Asi, Chadha, Cheng & Duchi 2022 (Algorithms 1–6) run on X = B(c, r) with a public centre c, and shrink it
  around private outputs (post-processing).

M is the ℓ2 *radius*, not the diameter.  ``Ball(M)`` (no centre) is B(0, M) in every dimension; ``Ball(M,
center=c)`` fixes the dimension d = len(c).  Batched per-replicate centres (R, d) are a different concept and
live with the algorithms that use them (``dpsco.reference.accd22.phase.project_balls``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpsco.reference.projections import project_ball
from dpsco.reference.validation import check_positive

__all__ = ["Ball", "require_centred"]

#: the source the refusal of a centred ball cites by default (the M-bounded W of the GLM papers)
ORIGIN_SOURCE = "Bassily et al. Sec. 2"


@dataclass(frozen=True, eq=False)
class Ball:
    """The Euclidean ball B(c, M) = {w ∈ R^d : ‖w − c‖ ≤ M} (public; immutable).

    Parameters
    ----------
    radius : float > 0
        M, the ℓ2 radius.  ``numpy.inf`` is allowed for an unconstrained domain (R^d); theorems that need a
        bounded domain refuse such a ball (``bounded`` is False).
    center : None or (d,) float array, default None
        c.  ``None`` is the origin in every dimension (B(0, M), the papers' usual W); an explicit centre is a
        finite non-empty vector, stored as a read-only float64 copy, and fixes the dimension ``d``.

    Raises
    ------
    TypeError
        ``radius`` not a real number, or ``center`` not numeric.
    ValueError
        ``radius`` not > 0 or NaN; ``center`` empty, not 1-D, or not finite.
    """

    radius: float
    center: np.ndarray | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", check_positive(self.radius, "radius", allow_inf=True))
        if self.center is not None:
            try:
                c = np.array(self.center, dtype=np.float64)
            except (TypeError, ValueError):
                raise TypeError(f"center must be a numeric (d,) vector or None, got {type(self.center).__name__}") \
                    from None
            if c.ndim != 1 or c.size == 0:
                raise ValueError(f"center must be a non-empty (d,) vector, got shape {c.shape}")
            if not np.all(np.isfinite(c)):
                raise ValueError("center must be finite (no NaN or inf entries)")
            c.setflags(write=False)
            object.__setattr__(self, "center", c)

    # -- shape ------------------------------------------------------------------------------------------------
    @property
    def d(self) -> int | None:
        """The dimension fixed by an explicit centre, or None (B(0, M) in every dimension)."""
        return None if self.center is None else int(self.center.size)

    @property
    def bounded(self) -> bool:
        """True iff M is finite."""
        return bool(np.isfinite(self.radius))

    @property
    def diameter(self) -> float:
        """2M (``inf`` for an unbounded ball)."""
        return 2.0 * self.radius

    @property
    def centred_at_origin(self) -> bool:
        """True iff c = 0 (no centre given, or an all-zero centre)."""
        return self.center is None or not np.any(self.center)

    # -- geometry ---------------------------------------------------------------------------------------------
    def project(self, w: np.ndarray) -> np.ndarray:
        """Euclidean projection Proj_W.

        ``w``: (d,) or (k, d) float array; rows are projected independently.  Returns a new array:
        Proj(w) = c + (w − c)·min(1, M/‖w − c‖), by the one core projection
        ``dpsco.reference.projections.project_ball`` (rows inside unchanged; ‖Proj(w) − c‖ ≤ M guaranteed in
        floating point; overflow-safe; inf rows to the boundary in their limit direction, NaN rows to the centre).
        Raises ValueError if ``w``'s last axis does not match an explicit centre.
        """
        return project_ball(w, self.radius, self.center)

    def contains(self, w: np.ndarray, rtol: float = 0.0) -> bool:
        """True iff ‖w − c‖ ≤ M·(1 + rtol) (``w`` (d,); c = 0 without a centre)."""
        w = np.asarray(w, dtype=np.float64)
        v = w if self.center is None else w - self.center
        return bool(np.linalg.norm(v) <= self.radius * (1.0 + rtol))

    def to_dict(self) -> dict[str, object]:
        """JSON-ready description: {"type": "ball", "radius": M} (+ "center": c as a list when one is given)."""
        out: dict[str, object] = {"type": "ball", "radius": self.radius}
        if self.center is not None:
            out["center"] = self.center.tolist()
        return out

    # -- value semantics (the centre is an array) ---------------------------------------------------------------
    def _key(self) -> tuple[float, tuple[float, ...] | None]:
        return self.radius, None if self.center is None else tuple(self.center.tolist())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ball) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Ball({self.radius!r})" if self.center is None else \
            f"Ball({self.radius!r}, center={np.asarray(self.center).tolist()!r})"


def require_centred(domain: Any, name: str = "domain", source: str = ORIGIN_SOURCE) -> Ball:
    """``domain`` if it is a :class:`Ball` centred at 0 (B(0, M)), for the algorithms whose calibration assumes
    the origin as centre; called before any data is read or noise is drawn.

    Raises
    ------
    TypeError
        ``domain`` not a :class:`Ball` (naming ``name``).
    ValueError
        a ball with a non-zero centre: "``name`` must be centred at 0 (B(0, M), ``source``)".
    """
    if not isinstance(domain, Ball):
        raise TypeError(f"{name} must be a dpsco.reference.domains.Ball, got {type(domain).__name__}")
    if not domain.centred_at_origin:
        raise ValueError(f"{name} must be centred at 0 (B(0, M), {source}); got a ball centred at "
                         f"{domain.center.tolist()}")
    return domain
