"""Family (b) of ``dpsco compare`` for Menart et al. (2023)'s entries: the utility of one outcome on the harness's
own objective (:class:`dpsco.verification.papers.compare_utility.UtilityMeasure`), by closed forms written here
from the harness's record families (``verification/papers/muabg23/harness.py`` docstring), never by the algorithm
under test.

The measure is the **gradient norm of the empirical objective at the output**, ‖∇F̂(w)‖, not F̂(w) − F̂*: the
harness instances are privacy instances on which F̂* does not exist in general —

* Algorithm 1 (signed-curvature records (x, s), f = s(L₁/2)‖w‖² + ⟨x, w⟩, no domain): F̂ = (s̄L₁/2)‖w‖² + ⟨x̄, w⟩
  is unbounded below when s̄ < 0; ∇F̂(w) = s̄L₁w + x̄.
* Algorithms 2 and 4 (curved linear f = ⟨w, x⟩ + (x₀x₁/2)‖w‖², no domain): likewise with m = mean x₀x₁;
  ∇F̂(w) = x̄ + m·w.
* Algorithm 3 and Theorem 5 (the two-phase oracle c(w)·x₀x₁ + x₂x₃, c = +1 at the public start w₀ = 0, −1
  elsewhere): not the gradient of any function; the measure is the oracle's mean |(1/n) Σ_i g_i(w)| at the
  output (the mean gradient Algorithm 3 queries).

The KL condition (Definition 1) ties F − F* to ‖∇F‖^κ where it holds; it does not hold on these instances, so no
theorem's bound (``reference/muabg23/theorems.py``) applies to them and none is checked.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpsco.verification.papers.compare_utility import UtilityMeasure
from dpsco.verification.papers.muabg23.harness import SPIDER

__all__ = ["UTILITY", "curved_linear_gradient_norm", "signed_curvature_gradient_norm", "two_phase_gradient_norm"]

_NO_BOUND = ("the harness instance does not meet the theorem's assumptions (not KL, not bounded below, or an "
             "adversarial oracle): no bound applies")


def signed_curvature_gradient_norm(records: Any, outcome: Any, L1: float = SPIDER["params"]["L1"]) -> float:
    """‖s̄L₁w + x̄‖, records (x, s) (n, d + 1), w = outcome[:d]."""
    X = np.asarray(records, dtype=np.float64)
    d = X.shape[1] - 1
    w = np.asarray(outcome, dtype=np.float64)[:d]
    with np.errstate(all="ignore"):
        return float(np.linalg.norm(X[:, -1].mean() * L1 * w + X[:, :-1].mean(axis=0)))


def curved_linear_gradient_norm(records: Any, outcome: Any) -> float:
    """‖x̄ + mean(x₀x₁)·w‖, records x (n, d), w = outcome[:d]."""
    X = np.asarray(records, dtype=np.float64)
    w = np.asarray(outcome, dtype=np.float64)[: X.shape[1]]
    with np.errstate(all="ignore"):
        return float(np.linalg.norm(X.mean(axis=0) + float(np.mean(X[:, 0] * X[:, 1])) * w))


def two_phase_gradient_norm(records: Any, outcome: Any, w_start: float = 0.0) -> float:
    """|mean_i (c(w)x₀x₁ + x₂x₃)|, c(w) = +1 if w = w_start else −1, records x (n, 4), w = outcome[0]."""
    X = np.asarray(records, dtype=np.float64)
    w = float(np.asarray(outcome, dtype=np.float64)[0])
    c = 1.0 if w == w_start else -1.0
    with np.errstate(all="ignore"):
        return float(abs(np.mean(c * X[:, 0] * X[:, 1] + X[:, 2] * X[:, 3])))


_CURVED = UtilityMeasure(description="‖∇F̂(w)‖ = ‖x̄ + mean(x₀x₁)·w‖ of the curved linear loss at the output "
                                     "(closed form; F̂ has no minimum in general)",
                         excess=curved_linear_gradient_norm, no_bound=_NO_BOUND)
_TWO_PHASE = UtilityMeasure(description="|mean oracle gradient| at the output, |(1/n) Σ c(w)x₀x₁ + x₂x₃| "
                                        "(closed form; the oracle is not a gradient field)",
                            excess=two_phase_gradient_norm, no_bound=_NO_BOUND)

UTILITY: dict[str, UtilityMeasure] = {
    "muabg23.kl_spider": UtilityMeasure(
        description="‖∇F̂(w)‖ = ‖s̄L₁w + x̄‖ of the signed-curvature loss at the output (closed form; F̂ is "
                    "unbounded below when s̄ < 0)",
        excess=signed_curvature_gradient_norm, no_bound=_NO_BOUND),
    "muabg23.proximal_point": _CURVED,
    "muabg23.noisy_gd": _CURVED,
    "muabg23.adaptive_gd": _TWO_PHASE,
    "muabg23.adaptive_gd_em": _TWO_PHASE,
}
