"""The utility family of ``dpsco compare`` for the suite-verified entries (harness convention): what a room declares
(:class:`UtilityMeasure`, :class:`BoundCheck`) and the certified minimum those declarations use
(:func:`ball_quadratic_min`).

Each room's ``verification/papers/<paper>/compare_utility.py`` gives, per comparable entry, a plain function
``excess(records, outcome) -> float``: the excess of one outcome on the harness's own objective, computed from the
harness's records by closed forms written there (never by the algorithm under test).  ``outcome`` is the compared
outcome vector of :func:`dpsco.verification.campaign.compare_suite.outcome_vector` (the output raveled; where ⊥ is
compared, the point zeroed on ⊥ and a last 0/1 coordinate).  The two-sample utility test and the bound check that
consume these declarations live in :mod:`dpsco.verification.campaign.compare_suite`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

__all__ = ["BoundCheck", "UtilityMeasure", "ball_quadratic_min", "linear_ball_excess", "quadratic_ball_excess"]


@dataclass(frozen=True)
class BoundCheck:
    """A theorem's bound on the excess at the harness's public inputs: P(excess > ``value``) ≤ ``beta`` for the
    paper's mechanism (``beta`` = 0: the excess never exceeds ``value``).

    value : float ≥ 0          the bound B at the harness's public inputs
    beta : float in [0, 1)     the theorem's failure probability
    source : str               paper, theorem / lemma, the formula's inputs
    largest : (records) -> float or None   an upper bound U on the excess of every outcome the paper's mechanism
                               can release (e.g. every point of X); B ≥ U makes the check "uninformative"
    """

    value: float
    beta: float
    source: str
    largest: Callable[[np.ndarray], float] | None = None

    def __post_init__(self) -> None:
        if not (math.isfinite(self.value) and self.value >= 0.0):
            raise ValueError(f"value must be a finite number ≥ 0, got {self.value!r}")
        if not 0.0 <= self.beta < 1.0:
            raise ValueError(f"beta must lie in [0, 1), got {self.beta!r}")


@dataclass(frozen=True)
class UtilityMeasure:
    """What family (b) measures for one suite entry.

    description : str                            F, F*, how F* is obtained (printed by ``--show-signature``)
    excess : (records (n, p), outcome (k,)) -> float   the excess of one outcome (≥ 0 on the domain)
    bound : BoundCheck or None                   the paper's bound at the harness's inputs, where one exists
    no_bound : str                               why no bound is checked (required when ``bound`` is None)
    vacuous_bound : BoundCheck or None           a paper's bound that exists at the harness's inputs but is not
                                                 checked (``no_bound`` says why); reported "uninformative" when
                                                 its value is ≥ ``largest(records)``, never tested
    """

    description: str
    excess: Callable[[np.ndarray, np.ndarray], float]
    bound: BoundCheck | None = None
    no_bound: str = ""
    vacuous_bound: BoundCheck | None = None

    def __post_init__(self) -> None:
        if self.bound is None and not self.no_bound:
            raise ValueError("a measure without a bound must say why (no_bound)")

    def to_dict(self) -> dict[str, Any]:
        def rec(b: BoundCheck | None) -> dict[str, Any] | None:
            return None if b is None else {"value": b.value, "beta": b.beta, "source": b.source}

        return {"description": self.description, "bound": rec(self.bound), "no_bound": self.no_bound,
                "vacuous_bound": rec(self.vacuous_bound)}

    def to_text(self) -> str:
        b = self.bound
        tail = (f"; bound: P(excess > {b.value:.4g}) ≤ {b.beta:.3g} ({b.source})" if b is not None
                else f"; no bound checked: {self.no_bound}")
        return self.description + tail


def ball_quadratic_min(Q: Any, q: Any, R: float) -> tuple[np.ndarray, float]:
    """min over ‖x‖ ≤ R of φ(x) = ½xᵀQx − qᵀx, Q (d, d) symmetric positive semidefinite, q (d,), R > 0: the
    trust-region problem, solved through Q's eigendecomposition (Q = V diag(w) Vᵀ, q̃ = Vᵀq).

    If the unconstrained minimum norm solution x = Q⁺q is feasible and q lies in Q's range, it is optimal;
    otherwise the optimum is x(ν) = V (diag(w) + ν)⁻¹ q̃ with ν > 0 the root of ‖x(ν)‖ = R, bracketed by
    [0, ‖q‖/R] (‖x(ν)‖ ≤ ‖q‖/ν) and found by bisection.  Returns (x, φ*) with φ* certified: the Lagrangian dual
    value g(ν) = −½ Σ q̃_k²/(w_k + ν) − νR²/2 ≤ φ* ≤ φ(x) and the gap φ(x) − g(ν) ≤ 1e-10·(1 + |φ(x)|) is checked
    (AssertionError otherwise); φ* is reported as φ(x) (x feasible).  ValueError for R ≤ 0 or shapes that do not
    match."""
    Q = np.asarray(Q, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64).ravel()
    key = (Q.tobytes(), q.tobytes(), float(R))
    if key in _SOLVED:                      # the excess of many outcomes on the same records: one solve
        x, val = _SOLVED[key]
        return x.copy(), val
    out = _ball_quadratic_min(Q, q, R)
    if len(_SOLVED) >= 256:
        _SOLVED.clear()
    _SOLVED[key] = out
    return out[0].copy(), out[1]


_SOLVED: dict[tuple[bytes, bytes, float], tuple[np.ndarray, float]] = {}


def _ball_quadratic_min(Q: np.ndarray, q: np.ndarray, R: float) -> tuple[np.ndarray, float]:
    d = q.size
    if Q.shape != (d, d):
        raise ValueError(f"Q must be ({d}, {d}), got {Q.shape}")
    if not (math.isfinite(R) and R > 0.0):
        raise ValueError(f"R must be finite and > 0, got {R!r}")
    w, V = np.linalg.eigh(0.5 * (Q + Q.T))
    w = np.maximum(w, 0.0)
    qt = V.T @ q
    tol = 1e-12 * max(1.0, float(np.max(w)))
    null = w <= tol

    def phi(x: np.ndarray) -> float:
        return float(0.5 * x @ Q @ x - q @ x)

    def at(nu: float) -> np.ndarray:
        return V @ (qt / (w + nu))

    if not np.any(np.abs(qt[null]) > 1e-14 * max(1.0, float(np.linalg.norm(q)))):
        xt = np.where(null, 0.0, qt / np.where(null, 1.0, w))
        x0 = V @ xt
        if float(np.linalg.norm(x0)) <= R:
            return x0, phi(x0)              # unconstrained optimum (∇φ = Qx − q = 0), feasible
    lo, hi = 0.0, float(np.linalg.norm(q)) / R
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid == lo or mid == hi:
            break
        if float(np.linalg.norm(at(mid))) > R:
            lo = mid
        else:
            hi = mid
    nu = hi
    x = at(nu)
    x = x * min(1.0, R / max(float(np.linalg.norm(x)), 1e-300))
    primal = phi(x)
    dual = float(-0.5 * np.sum(qt * qt / (w + nu)) - 0.5 * nu * R * R)
    if not primal - dual <= 1e-10 * (1.0 + abs(primal)):
        raise AssertionError(f"trust-region solve not certified: primal {primal!r}, dual {dual!r}")
    return x, primal


def quadratic_ball_excess(Q: Any, q: Any, R: float, x: Any) -> float:
    """φ(x) − min_{‖y‖ ≤ R} φ(y) for φ(y) = ½yᵀQy − qᵀy (:func:`ball_quadratic_min`): ≥ 0 on the ball (an x outside
    it may lie below the constrained minimum: the value is reported as is, negative then); +inf when φ(x)
    overflows."""
    Q = np.asarray(Q, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64).ravel()
    x = np.asarray(x, dtype=np.float64).ravel()
    _, best = ball_quadratic_min(Q, q, R)
    with np.errstate(all="ignore"):
        val = float(0.5 * x @ Q @ x - q @ x) - best
    return val if math.isfinite(val) else math.inf


def linear_ball_excess(mean: Any, R: float, x: Any) -> float:
    """⟨s̄, x⟩ − min_{‖y‖ ≤ R} ⟨s̄, y⟩ = ⟨s̄, x⟩ + R‖s̄‖ (the linear loss's empirical excess on B(0, R)); as
    :func:`quadratic_ball_excess`, negative only outside the ball, +inf on overflow."""
    s = np.asarray(mean, dtype=np.float64).ravel()
    x = np.asarray(x, dtype=np.float64).ravel()
    with np.errstate(all="ignore"):
        val = float(s @ x) + R * float(np.linalg.norm(s))
    return val if math.isfinite(val) else math.inf
