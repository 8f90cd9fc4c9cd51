"""Family (b) of ``dpsco compare`` for Asi, Liu & Tian (2024)'s comparable entries: the excess of one outcome on
the harness's own objective (:class:`dpsco.verification.papers.compare_utility.UtilityMeasure`), by closed forms
written here from the losses' definitions (``reference/alt24/losses.py`` docstrings), never by the algorithm under
test.

* Least squares (Algorithms 1, 3, the Theorem 1 pipeline): F̂(x) = (1/2n) Σ (⟨a_i, x⟩ − b_i)², a quadratic
  ½xᵀ(AᵀA/n)x − (Aᵀb/n)ᵀx + const; F̂* over X = B(0, ``domain_radius``) by the certified trust-region solve
  (:func:`ball_quadratic_min`).
* Tilted quadratic (Corollary 3, β₀ = 1): F̂(x) = ⟨ξ̄, x⟩ + ½·mean‖x − z_i‖² = ½‖x‖² − (z̄ − ξ̄)ᵀx + const, over
  B(0, ``domain_radius``).
* Linear loss (Algorithms 4, 7, 8): F̂(x) = ⟨s̄, x⟩, F̂* = −R‖s̄‖ on X = B(0, R).  For Algorithm 7, ⊥ is scored as
  the public start x₀ = 0 (the compared outcome zeroes the point on ⊥): excess R‖s̄‖.
* Lemma 9: the released value's absolute error |y − q(D)|, q(D) the clipped mean (F* = 0).  Lemma 9's BLap(R, τ)
  is supported on [−τ, τ], τ = (Δ/ε) log(4/δ): the error never exceeds τ (a bound with β = 0).
* Algorithm 6: the number of wrong answers among the queries answered before halting (⊤ on q_t ≤ L or ⊥ on
  q_t > L; halted queries, −1, are not answers), F* = 0.

No excess bound is declared for the optimisation entries: Theorems 1, 2, 4 and Corollary 3 state their rates with
unspecified constants (C_sco, C_HT, …; ``reference/alt24/theorems.py``), so no number exists at the harness's
inputs; Algorithms 6 and 7 state no excess bound.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpsco.verification.papers.alt24 import harness_phased as phased
from dpsco.verification.papers.alt24 import harness_sgd as sgd
from dpsco.verification.papers.alt24 import harness_svt as svt
from dpsco.verification.papers.compare_utility import (BoundCheck, UtilityMeasure, linear_ball_excess,
                                                       quadratic_ball_excess)

__all__ = ["UTILITY", "blap_error", "least_squares_excess", "linear_excess", "lemma_9_support", "svt_mistakes",
           "tilted_excess"]

_CONSTANTS = "the theorem's rate carries an unspecified constant (reference/alt24/theorems.py): no number to check"


def least_squares_excess(records: Any, outcome: Any, R: float) -> float:
    """F̂(x) − min_{B(0, R)} F̂ for F̂(x) = (1/2n) Σ (⟨a_i, x⟩ − b_i)², records [a, b] (n, d + 1), x = outcome[:d]."""
    S = np.asarray(records, dtype=np.float64)
    A, b = S[:, :-1], S[:, -1]
    n, d = A.shape
    return quadratic_ball_excess(A.T @ A / n, A.T @ b / n, R, np.asarray(outcome, dtype=np.float64)[:d])


def tilted_excess(records: Any, outcome: Any, R: float, beta0: float = 1.0) -> float:
    """F̂(x) − min_{B(0, R)} F̂ for F̂(x) = mean ⟨ξ_i, x⟩ + (β₀/2)‖x − z_i‖², records [ξ, z] (n, 2d)."""
    S = np.asarray(records, dtype=np.float64)
    d = S.shape[1] // 2
    xi, z = S[:, :d].mean(axis=0), S[:, d:].mean(axis=0)
    return quadratic_ball_excess(beta0 * np.eye(d), beta0 * z - xi, R, np.asarray(outcome, dtype=np.float64)[:d])


def linear_excess(records: Any, outcome: Any, R: float) -> float:
    """⟨s̄, x⟩ + R‖s̄‖, records s (n, d), x = outcome[:d] (on ⊥ the compared outcome's point is 0: excess R‖s̄‖)."""
    S = np.asarray(records, dtype=np.float64)
    return linear_ball_excess(S.mean(axis=0), R, np.asarray(outcome, dtype=np.float64)[:S.shape[1]])


def _clipped_mean(records: Any) -> np.ndarray:
    return np.clip(np.asarray(records, dtype=np.float64), -1.0, 1.0).mean(axis=0)


def blap_error(records: Any, outcome: Any) -> float:
    """|y − q(D)|, q(D) = the mean of the records clipped to [−1, 1] (column 0), y = outcome[0]."""
    return float(abs(float(np.asarray(outcome, dtype=np.float64)[0]) - float(_clipped_mean(records)[0])))


def svt_mistakes(records: Any, outcome: Any, L: float = svt.SVT["L"]) -> float:
    """#{t : a_t ∈ {0, 1}, a_t ≠ 1[q_t > L]}: wrong answers before halting, q = the clipped column means."""
    q = _clipped_mean(records)
    a = np.asarray(outcome, dtype=np.float64)[: q.size]
    answered = (a == 0.0) | (a == 1.0)
    return float(np.sum(answered & (a != (q > L).astype(np.float64))))


def lemma_9_support(sensitivity: float, epsilon: float, delta: float) -> float:
    """τ = (Δ/ε) log(4/δ) (Lemma 9): BLap(Δ/ε, τ) takes values in [−τ, τ]."""
    return sensitivity / epsilon * math.log(4.0 / delta)


def _ls(R: float, what: str) -> UtilityMeasure:
    return UtilityMeasure(
        description=(f"empirical excess F̂(x) − min_{{‖y‖ ≤ {R:g}}} F̂, F̂(x) = (1/2n) Σ (⟨a_i, x⟩ − b_i)² on the "
                     f"harness records (certified trust-region solve; {what})"),
        excess=lambda records, outcome: least_squares_excess(records, outcome, R), no_bound=_CONSTANTS)


def _lin(R: float, extra: str = "") -> UtilityMeasure:
    return UtilityMeasure(
        description=f"empirical excess ⟨s̄, x⟩ + {R:g}‖s̄‖ of the linear loss on X = B(0, {R:g}) (closed form){extra}",
        excess=lambda records, outcome: linear_excess(records, outcome, R),
        no_bound=_CONSTANTS if not extra else "Algorithm 7 states no excess bound at these inputs")


_TAU = lemma_9_support(svt.DELTA_Q, svt.BLAP["epsilon"], svt.BLAP["delta"])

UTILITY: dict[str, UtilityMeasure] = {
    "alt24.clipped_dp_sgd": _ls(sgd.ALG1_KW["domain_radius"], "Algorithm 1"),
    "alt24.aggregate_erm": _ls(sgd.ALG3_KW["domain_radius"], "Algorithm 3"),
    "alt24.ht_sco": _ls(sgd.HT_KW["domain_radius"], "Theorem 1's pipeline"),
    "alt24.sc_wrapper": UtilityMeasure(
        description=("empirical excess of the tilted quadratic F̂(x) = mean ⟨ξ_i, x⟩ + ½‖x − z_i‖² on "
                     f"X = B(0, {sgd.SC_KW['domain_radius']:g}) (certified trust-region solve)"),
        excess=lambda records, outcome: tilted_excess(records, outcome, sgd.SC_KW["domain_radius"]),
        no_bound=_CONSTANTS),
    "alt24.known_lip": _lin(phased.R4),
    "alt24.onepass_dp_sgd_glm": _lin(phased.R8),
    "alt24.localized_dp_sgd": _lin(svt.LOCALIZED_SETTING["radius"], "; ⊥ scored as the public start x₀ = 0"),
    "alt24.blap": UtilityMeasure(
        description="absolute error |y − q(D)| of the released value, q(D) the clipped mean (F* = 0)",
        excess=blap_error,
        bound=BoundCheck(value=_TAU, beta=0.0, source=(f"Lemma 9: BLap(Δ/ε, τ) lies in [−τ, τ], τ = (Δ/ε)log(4/δ) "
                                                       f"= {_TAU:.4g} at Δ = 1/4, ε = 1/2, δ = 10⁻³"))),
    "alt24.svt": UtilityMeasure(
        description="wrong answers before halting: #{t : a_t ≠ 1[q_t > L]} over answered queries (F* = 0)",
        excess=svt_mistakes, no_bound="Algorithm 6 states no accuracy bound the harness's queries meet"),
}
