"""Catalogue entry of Asi, Liu & Tian (2024), Algorithm 7 (Localized-Clipped-DP-SGD, Theorem 3):
``alt24.localized_dp_sgd``, verified by its own suite (``EntrySuite``).

What the suite checks, and how:

* **audit** — black-box audits (``dpsco.verification.auditing.audit.audit``) of the (ε, δ) claim with ⊥ as an
  outcome (:func:`~dpsco.reference.alt24.localized.audit_outcome`): (i) the output-shift pair (linear loss,
  β = 0, the differing record first in phase 1: M·e_1 against 0, all other records 0); (ii) the ⊥ pair (phase 1
  full of heavy records so that count ≈ c; the neighbour replaces one heavy record by 0, flipping one clip).
* **exact** — the ⊥ channel computed exactly.  With a linear loss and β = 0 (ω_i = 0: Ĉ = C and ν = 0 exactly)
  the clip count of phase i is the number K_i of its records with ‖s‖ ≥ C, whatever the iterates, so
  P(not ⊥) = Π_i P(ĉ_i > K_i), ĉ_i = c + BLap(3/ε, c/2) (scipy's Laplace distribution, truncated): the exact
  probabilities of the events {⊥} and {not ⊥} on both datasets, hence the smallest δ those events need at ε
  (:func:`bottom_channel_delta`).  The counts K_i are read from the implementation (its ``clip_counts`` with a
  cutoff no count reaches), not re-derived.
* **bounds** — Lemma 12's and Lemma 13's conditions at Theorem 3's parameters (recorded), the excess
  population risk on a (20)-compliant instance (linear loss, heavy-tailed records) against the proof of
  Theorem 3's explicit intermediate bound (one-sided Hoeffding, ``mean_bound_check``), gradient count ≤ n,
  and the ⊥ rate against Lemma 13's I/n² (exact binomial tail).
* **rate** — the same excess at every n of a grid against the bound at that n (``rate_check``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

from dpsco.reference.alt24.localized import (audit_outcome, lemma_12_conditions, lemma_13_conditions,
                                             localized_clipped_dp_sgd, phase_record_ranges, theorem_3_parameters)
from dpsco.reference.alt24.losses import LinearLoss
from dpsco.reference.alt24.model import MomentBounds

__all__ = ["AUDIT_SETTING", "LocalizedMechanism", "bottom_channel_delta", "bottom_pair", "clip_counts",
           "cutoff_survival", "heavy_tailed_linear_instance", "output_shift_pair", "prob_not_bottom"]

PAPER = "Asi, Liu & Tian (2024)"

#: the audit setting (public): ε, δ ∈ (0, 1); c and ω at Lemma 12's bounds; β = 0 (linear loss); C = 1; η = 1
AUDIT_SETTING: dict[str, Any] = {"epsilon": 0.9, "delta": 0.1, "C": 1.0, "eta": 1.0, "beta": 0.0,
                                 "radius": 100.0}
AUDIT_SETTING["c"] = float(math.ceil(6.0 / 0.9 * math.log(12.0 / 0.1)))                       # 32
AUDIT_SETTING["omega"] = float(math.ceil(18.0 / 0.9 * math.sqrt(2.0 * AUDIT_SETTING["c"] * math.log(150.0))))


# ---- the exact ⊥ channel (linear loss, β = 0) ---------------------------------------------------------------


def cutoff_survival(k: float, c: float, epsilon: float) -> float:
    """P(ĉ > k) for ĉ = c + BLap(3/ε, c/2) (Algorithm 7, Line 5): Laplace(0, 3/ε) conditioned on |ξ| ≤ c/2,
    from scipy's Laplace CDF.  k real; c, ε > 0."""
    R, tau = 3.0 / epsilon, c / 2.0
    t = k - c
    if t >= tau:
        return 0.0
    if t < -tau:
        return 1.0
    lap = stats.laplace(scale=R)
    return float((lap.cdf(tau) - lap.cdf(t)) / (lap.cdf(tau) - lap.cdf(-tau)))


def prob_not_bottom(counts: list[int], c: float, epsilon: float) -> float:
    """P(not ⊥) = Π_i P(ĉ_i > K_i) for per-phase clip counts K_i that do not depend on the run (β = 0, linear
    loss): ⊥ in phase i iff its count reaches ĉ_i, the ĉ_i are independent."""
    return float(np.prod([cutoff_survival(k, c, epsilon) for k in counts]))


def bottom_channel_delta(p_not: float, q_not: float, epsilon: float) -> float:
    """The smallest δ with P(E) ≤ e^ε Q(E) + δ and Q(E) ≤ e^ε P(E) + δ for E ∈ {⊥, not ⊥}, given the
    probabilities p_not, q_not of "not ⊥" on the two datasets."""
    e = math.exp(epsilon)
    pairs = [(p_not, q_not), (1.0 - p_not, 1.0 - q_not)]
    return max(0.0, *(max(a - e * b, b - e * a) for a, b in pairs))


def clip_counts(S: np.ndarray, setting: dict[str, Any], record_index: str = "disjoint") -> list[int]:
    """Per-phase clip counts of the implementation on S (linear loss, β = 0: they do not depend on the run),
    read from ``diagnostics["clip_counts"]`` of a run whose cutoff c = 2n + 2 no count reaches (ω re-set to
    Lemma 12's bound for that c; neither changes a count when β = 0)."""
    n = S.shape[0]
    big_c = 2.0 * n + 2.0
    kw = {**setting, "c": big_c, "omega": 18.0 / setting["epsilon"]
          * math.sqrt(2.0 * big_c * math.log(15.0 / setting["delta"])) * (1 + 1e-9)}
    r = localized_clipped_dp_sgd(S, LinearLoss(), np.zeros(S.shape[1]), rng=np.random.default_rng(0),
                                 record_index=record_index, **kw)
    assert not r.halted
    return [int(k) for k in r.diagnostics["clip_counts"]]


# ---- neighbouring pairs and the audited mechanism --------------------------------------------------------


def output_shift_pair(n: int = 64, d: int = 1, M: float = 5.0) -> tuple[np.ndarray, np.ndarray]:
    """Pair (i): all records 0 except the first (phase 1, j = 1): M·e_1 (clipped to C) against 0.  Linear loss,
    β = 0; the output means differ by C·η_1(n_1 − 1)/n_1."""
    S = np.zeros((n, d))
    S[0, 0] = M
    return S, np.zeros((n, d))


def bottom_pair(n: int, heavy: int, d: int = 1, M: float = 5.0) -> tuple[np.ndarray, np.ndarray]:
    """Pair (ii): the first ``heavy`` records are M·e_1 (each clipped: count = heavy in phase 1), the rest 0; the
    neighbour replaces the first heavy record by 0 (count heavy − 1)."""
    S = np.zeros((n, d))
    S[:heavy, 0] = M
    S2 = S.copy()
    S2[0] = 0.0
    return S, S2


class LocalizedMechanism:
    """``f(data, rng) -> audit_outcome`` of Algorithm 7 (or a mutant with its signature) on ``data["S"]`` with
    the linear loss, x0 = 0 and ``setting``'s parameters: picklable, for ``audit``."""

    def __init__(self, algorithm: Any = localized_clipped_dp_sgd, setting: dict[str, Any] | None = None) -> None:
        self.algorithm = algorithm
        self.setting = dict(AUDIT_SETTING if setting is None else setting)

    def release(self, S: np.ndarray, rng: np.random.Generator) -> Any:
        S = np.asarray(S, dtype=np.float64)
        return self.algorithm(S, LinearLoss(), np.zeros(S.shape[1]), rng=rng, **self.setting)

    def __call__(self, data: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
        return audit_outcome(self.release(data["S"], rng))


# ---- the (20)-compliant utility instance ------------------------------------------------------------------


def heavy_tailed_linear_instance(n: int, rng: np.random.Generator, *, d: int = 4, alpha: float = 4.0,
                                 k: int = 3, mean_norm: float = 1.0) -> tuple[np.ndarray, np.ndarray, MomentBounds]:
    """Records s = m + r·u, u uniform on the sphere, r ~ Pareto(α, x_m = 1) (E r^j = α/(α − j), j < α), m =
    mean_norm·e_1; linear loss (β = 0 satisfies (20)), so F_P(x) = ⟨m, x⟩.  L_s = ‖s‖ ≤ ‖m‖ + r, hence by
    Minkowski G_j = ‖m‖ + (α/(α − j))^{1/j} (non-decreasing for α = 4, k = 3).  Returns (S, m, moments)."""
    u = rng.standard_normal((n, d))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    r = stats.pareto(alpha).rvs(size=n, random_state=rng)
    m = np.zeros(d)
    m[0] = mean_norm
    G = tuple(mean_norm + (alpha / (alpha - j)) ** (1.0 / j) for j in range(1, k + 1))
    return m + r[:, None] * u, m, MomentBounds(k, G)
