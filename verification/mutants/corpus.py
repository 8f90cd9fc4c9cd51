"""The planted-bug corpus (issue 3): every mutant of ``dpsco.verification.mutants.bftt19`` with its canary, claim, exact
true privacy and measured detection rate.

A privacy audit that never fails proves nothing (DESIGN.md).  Each entry of :data:`CORPUS` records

* the bug and its realistic precedent (prior-art.md B.9, spec optimal-rates §9.1);
* the neighbouring pair (canary instance, spec §7.3) on which it shows, and the claim (the correct
  algorithm's, which the mutant keeps: that is the point);
* the correct counterpart, run on the same pair for the false-refutation rate;
* the TRUE ε of the mutant's *release* on that pair at the claim's δ, and of the correct algorithm's,
  computed exactly (:func:`release_epsilon`: hockey-stick divergence of the 1-D released statistic,
  including the projection's atoms), or ``inf`` with the reason;
* the audit configuration (statistic or event placement) and the budget (runs per side), fixed in advance.

:func:`detection_rate` runs ``audits`` independent audits (``dpsco.verification.auditing.audit.audit`` at
:data:`DEFAULT_CONFIDENCE`, the entry's ``samples`` runs per side — :data:`DEFAULT_SAMPLES` unless stated;
streams from independent ``SeedSequence`` children) and returns the refutation rate with its
Clopper–Pearson interval.  :func:`fixed_event_refutation_probability` is the exact refutation probability of
an audit whose event is fixed in advance (binomial counts, the auditor's own bound).

Instances.  NSGD family: linear loss, W = B(0, 10), L = 1, n = 16, d = 1, ε = 1, δ = 1/n²; Theorem 3.2
gives T = 1, m = 8, η = 10 and the printed σ² = 8 log(256)/256, which is not (1, 1/256)-DP on the one-sided
pair (δ(1) = 0.0060, ERRATA.md E4), so the algorithm runs with the certified σ² = 0.2003 (1.075 × the printed
σ).  The release is w̄ = −η·clip(g + G, −1, 1) with g the batch-mean gradient's first coordinate (the
projection clamps at |g + G| = M/η = 1).  Three canary pairs: symmetric (n − 1 zero records, x_n = ±e₁),
null (x_n = e₁ vs 0) and one-sided (``dpsco.verification.auditing.neighbours.canary_pair(neighbour="one-sided")``: all
records e₁, x_n replaced by −e₁ — the worst pair known, on which the certified σ is tight, so σ-scaling bugs
are audited there).  Printed calibration: n = 64, δ = 1/n², T = 1 (override), m = 32, η = 1, W = B(0, 10)
(the projection is inactive: |g + G| ≤ 10 except with probability < 1e-300).  ObjP on the linear
loss: n = 100, d = 1, W = B(0, 1000), δ = 1e-4 (the Gaussian mechanism Σ x_i + G, spec §3.3).  ObjP on the
1-D logistic canary of spec §3.3: n = 100, W = [−1, 1], δ = 1e-4, canary (1, +1) vs the null record.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
from scipy.optimize import brentq
from scipy.special import logsumexp, ndtr
from scipy.stats import binom

from dpsco.reference import Ball, DataBounds, ERMProblem, LinearLoss
import dpsco.reference.bftt19 as o
from dpsco.reference.losses import LogisticLoss
from dpsco.verification.mutants import bftt19 as mu
from dpsco.verification.auditing.audit import audit, clopper_pearson_lower, clopper_pearson_upper, epsilon_lower_bound
from dpsco.verification.auditing.neighbours import canary_pair

__all__ = [
    "CORPUS",
    "DEFAULT_CONFIDENCE",
    "DEFAULT_SAMPLES",
    "DetectionRate",
    "Mechanism",
    "PlantedBug",
    "detection_rate",
    "fixed_event_refutation_probability",
    "release_delta",
    "release_epsilon",
]

#: the default audit budget: runs per side (selection + test halves) and confidence of one audit
DEFAULT_SAMPLES = 50_000
DEFAULT_CONFIDENCE = 0.95

# ---- instances ------------------------------------------------------------------------------------------
L = 1.0
EPS = 1.0
N_NSGD = 16
DELTA_NSGD = 1.0 / N_NSGD**2
PROB_NSGD = ERMProblem(LinearLoss(), Ball(10.0), DataBounds(L, 1.0))
NSGD_PARAMS = o.theorem_3_2_parameters(N_NSGD, 1, EPS, DELTA_NSGD, L, 10.0)  # T = 1, m = 8, η = 10, σ certified
# printed calibration at small T: n = 64, δ = 1/n², T = 1 (Theorem 3.2 would take T = 8), m = 32, η = 1
N_PRINTED = 64
DELTA_PRINTED = 1.0 / N_PRINTED**2
T_PRINTED, ETA_PRINTED = 1, 1.0
SIGMA_PRINTED = math.sqrt(o.algorithm_1_noise_variance(T_PRINTED, N_PRINTED, EPS, DELTA_PRINTED, L))  # Alg. 1 line 1
PRINTED_PARAMS = o.theorem_3_2_parameters(N_PRINTED, 1, EPS, DELTA_PRINTED, L, 10.0, T=T_PRINTED, eta=ETA_PRINTED)
#: runs per side for the printed-calibration entry: no instance in Algorithm 1's regime (ε ≤ 1, δ ≤ 1/n²) is
#: refutable at DEFAULT_SAMPLES (docs/planted-bugs.md); at 5e5 the claim-placed event misses with
#: probability ≈ 3.5e-5 (fixed_event_refutation_probability at the pilot's population location and scale)
SAMPLES_PRINTED = 500_000
N_OBJP = 100
DELTA_OBJP = 1e-4
PROB_OBJP_LINEAR = ERMProblem(LinearLoss(), Ball(1e3), DataBounds(L, 1.0))
PROB_OBJP_LOGISTIC = ERMProblem(LogisticLoss(), Ball(1.0), DataBounds(L, 1.0))
SIGMA_OBJP = math.sqrt(o.algorithm_2_noise_variance(L, EPS, DELTA_OBJP))
LAMBDA_OBJP_LINEAR = o.theorem_5_3_lambda(N_OBJP, 1, EPS, DELTA_OBJP, L, 1e3)
LAMBDA_OBJP_LOGISTIC = o.theorem_5_3_lambda(N_OBJP, 1, EPS, DELTA_OBJP, L, 1.0)

Dataset = dict[str, np.ndarray]


def _linear_pair(n: int, canary: float, neighbour: float) -> tuple[Dataset, Dataset]:
    """n − 1 zero records plus x_n = canary·e₁ vs x_n = neighbour·e₁ (y ignored by the linear loss)."""
    X = np.zeros((n, 1))
    X[-1, 0] = canary
    X2 = X.copy()
    X2[-1, 0] = neighbour
    return {"X": X, "y": np.zeros(n)}, {"X": X2, "y": np.zeros(n)}


def _one_sided_pair(n: int) -> tuple[Dataset, Dataset]:
    """The worst pair known for Algorithm 1 (``canary_pair(neighbour="one-sided")``, linear loss): all n records
    x_i = e₁, the neighbour replaces x_n by −e₁."""
    return canary_pair(n, 1, DataBounds(L, 1.0), "linear", neighbour="one-sided").as_datasets()


def _logistic_null_pair(n: int) -> tuple[Dataset, Dataset]:
    """Spec §3.3/§7.3: n − 1 zero-feature records (label +1) plus the canary (1, +1) vs the null record (0, +1)."""
    X = np.zeros((n, 1))
    X[-1, 0] = 1.0
    y = np.ones(n)
    return {"X": X, "y": y}, {"X": np.zeros((n, 1)), "y": y.copy()}


# ---- mechanisms ------------------------------------------------------------------------------------------
Algorithm = Callable[..., Any]


class Mechanism:
    """Audit wrapper: ``__call__(data, rng)`` one run, ``sample(data, n, rng)`` n independent runs (batched).

    ``batched(data, problem, eps, delta, n, rng) -> (n, k)`` is the fast path; when None, the algorithm is
    called with ``replicates=n``.
    """

    def __init__(self, algorithm: Algorithm, problem: ERMProblem, epsilon: float, delta: float,
                 batched: Callable[..., np.ndarray] | None = None) -> None:
        self.algorithm, self.problem, self.epsilon, self.delta, self.batched = algorithm, problem, epsilon, delta, batched

    def __call__(self, data: Mapping[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        return np.asarray(self.algorithm(data["X"], data["y"], self.problem, self.epsilon, self.delta, rng).output)

    def sample(self, data: Mapping[str, np.ndarray], n: int, rng: np.random.Generator) -> np.ndarray:
        if self.batched is not None:
            return self.batched(data, self.problem, self.epsilon, self.delta, n, rng)
        out = self.algorithm(data["X"], data["y"], self.problem, self.epsilon, self.delta, rng, replicates=n).output
        return np.asarray(out).reshape(n, -1)

    def claim(self, data: Mapping[str, np.ndarray]) -> Any:
        return self.algorithm(data["X"], data["y"], self.problem, self.epsilon, self.delta,
                              np.random.default_rng(0)).claim


def objp_linear_batched(sigma_factor: float = 1.0) -> Callable[..., np.ndarray]:
    """Batched A_ObjP on the linear loss: G ~ N(0, (factor·σ)² I) drawn as ``objective_perturbation`` draws it,
    then the exact minimiser ``mutants.objp_linear_argmin`` (tested equal to the certified solver's)."""

    def run(data: Mapping[str, np.ndarray], problem: ERMProblem, eps: float, delta: float, n: int,
            rng: np.random.Generator) -> np.ndarray:
        X = np.asarray(data["X"], dtype=np.float64)
        N, d = X.shape
        lam = o.theorem_5_3_lambda(N, d, eps, delta, problem.lipschitz, problem.radius)
        sigma = sigma_factor * math.sqrt(o.algorithm_2_noise_variance(problem.lipschitz, eps, delta))
        return mu.objp_linear_argmin(X, problem.domain, lam, sigma * rng.standard_normal((n, d)))

    return run


def objp_logistic_batched(data: Mapping[str, np.ndarray], problem: ERMProblem, eps: float, delta: float, n: int,
                          rng: np.random.Generator) -> np.ndarray:
    """Batched correct A_ObjP on a 1-D logistic dataset (exact bisection ``mutants.objp_logistic_1d_argmin``)."""
    X = np.asarray(data["X"], dtype=np.float64)
    N, d = X.shape
    lam = o.theorem_5_3_lambda(N, d, eps, delta, problem.lipschitz, problem.radius)
    G = math.sqrt(o.algorithm_2_noise_variance(problem.lipschitz, eps, delta)) * rng.standard_normal(n)
    return mu.objp_logistic_1d_argmin(X[:, 0], data["y"], problem.radius, lam, G)[:, None]


# ---- exact privacy of a clamped 1-D release ---------------------------------------------------------------


def _tail(tau: float, weights: np.ndarray, means: np.ndarray, s: float) -> float:
    """P(X ≥ τ) for X ~ Σ w_k N(means_k, s²)."""
    return float(weights @ ndtr((means - tau) / s))


def _one_direction(eps: float, wp: np.ndarray, a: np.ndarray, wq: np.ndarray, b: np.ndarray, s: float,
                   lo: float, hi: float) -> float:
    """sup over events {clip(X, lo, hi) ≥ τ} of P − e^ε Q, for a pair whose likelihood ratio p/q increases in x."""
    lwp, lwq = np.log(np.where(wp > 0, wp, 1e-300)), np.log(np.where(wq > 0, wq, 1e-300))

    def h(x: float) -> float:
        return float(logsumexp(lwp - (x - a) ** 2 / (2 * s * s)) - logsumexp(lwq - (x - b) ** 2 / (2 * s * s)) - eps)

    if h(hi) <= 0:
        tau = hi
    elif h(lo) >= 0:
        tau = lo
    else:
        tau = brentq(h, lo, hi, xtol=1e-14, rtol=1e-15)
    return max(0.0, _tail(tau, wp, a, s) - math.exp(eps) * _tail(tau, wq, b, s))


def release_delta(eps: float, weights_p: Any, means_p: Any, weights_q: Any, means_q: Any, s: float,
                  lo: float = -math.inf, hi: float = math.inf) -> float:
    """Exact δ(ε) = max over both directions of H_{e^ε} for the releases clip(X, lo, hi), X ~ P or Q.

    P = Σ w_k N(a_k, s²), Q = Σ v_k N(b_k, s²) must have a likelihood ratio monotone in x (true for every pair
    used here: the with-replacement canary mixtures, their null versions and the Gaussian mechanism).  Then the
    optimal events of a monotone post-processing are half-lines, so the hockey-stick divergence of the clamped
    release is the sup over thresholds τ ∈ (lo, hi] of P(X ≥ τ) − e^ε Q(X ≥ τ) (and the mirror direction),
    attained at τ = the root of log p/q = ε clamped to [lo, hi]; the tails are exact normal CDF sums.
    """
    wp, a = np.asarray(weights_p, float), np.asarray(means_p, float)
    wq, b = np.asarray(weights_q, float), np.asarray(means_q, float)
    lo_, hi_ = (max(lo, -1e6), min(hi, 1e6))
    fwd = _one_direction(eps, wp, a, wq, b, s, lo_, hi_)
    bwd = _one_direction(eps, wq, -b, wp, -a, s, -hi_, -lo_)  # events {X ≤ τ} of Q vs P, mirrored
    return max(fwd, bwd)


def release_epsilon(delta: float, *args: Any, **kwargs: Any) -> float:
    """Smallest ε with :func:`release_delta` ≤ δ (bisection to 1e-9, conservative end)."""
    f = lambda e: release_delta(e, *args, **kwargs)  # noqa: E731
    if f(0.0) <= delta:
        return 0.0
    hi = 1.0
    while f(hi) > delta:
        hi *= 2.0
        if hi > 1e4:
            return math.inf
    lo = 0.0
    while hi - lo > 1e-9:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if f(mid) <= delta else (mid, hi)
    return hi


def _canary_mixture(n: int, m: int, per_draw: float) -> tuple[np.ndarray, np.ndarray]:
    """k ~ Binomial(m, 1/n) draws of the canary: weights p_k and batch-mean shifts k·per_draw/m."""
    k = np.arange(m + 1)
    return binom.pmf(k, m, 1.0 / n), k * per_draw / m


def _nsgd_symmetric(sigma_factor: float) -> float:
    """Exact ε of the NSGD release on the symmetric linear canary, noise σ·factor on the mean gradient."""
    w, a = _canary_mixture(N_NSGD, NSGD_PARAMS.m, L)
    return release_epsilon(DELTA_NSGD, w, a, w, -a, sigma_factor * math.sqrt(NSGD_PARAMS.sigma2), -1.0, 1.0)


def _nsgd_one_sided(sigma_factor: float, n: int = N_NSGD, m: int | None = None, sigma: float | None = None,
                    delta: float = DELTA_NSGD, clamp: float = 1.0) -> float:
    """Exact ε of the T = 1 release on the one-sided pair: g + G ~ N(L, s²) on the dataset (every record e₁)
    vs Σ_k Bin(m, 1/n)(k) N(L − 2kL/m, s²) on the neighbour (k draws of x_n = −e₁), s = factor·σ, clamped
    to [−clamp, clamp] = [−M/η, M/η] by the projection.  Defaults: the n = 16 NSGD instance."""
    m_ = NSGD_PARAMS.m if m is None else m
    s = (math.sqrt(NSGD_PARAMS.sigma2) if sigma is None else sigma) * sigma_factor
    w, a = _canary_mixture(n, m_, 2.0 * L)
    return release_epsilon(delta, [1.0], [L], w, L - a, s, -clamp, clamp)  # p/q increasing: dataset first


def _printed_true() -> float:
    return _nsgd_one_sided(1.0, N_PRINTED, PRINTED_PARAMS.m, SIGMA_PRINTED, DELTA_PRINTED, 10.0 / ETA_PRINTED)


def _printed_correct() -> float:
    return _nsgd_one_sided(1.0, N_PRINTED, PRINTED_PARAMS.m, math.sqrt(PRINTED_PARAMS.sigma2), DELTA_PRINTED,
                           10.0 / ETA_PRINTED)


def _nsgd_null_correct() -> float:
    w, a = _canary_mixture(N_NSGD, NSGD_PARAMS.m, L)
    return release_epsilon(DELTA_NSGD, w, a, [1.0], [0.0], math.sqrt(NSGD_PARAMS.sigma2), -1.0, 1.0)


def _p_no_canary() -> float:
    return (1.0 - 1.0 / N_NSGD) ** NSGD_PARAMS.m


def _true_eps_without_replacement() -> float:
    q, m = NSGD_PARAMS.m / N_NSGD, NSGD_PARAMS.m
    return release_epsilon(DELTA_NSGD, [1 - q, q], [0, L / m], [1 - q, q], [0, -L / m],
                           math.sqrt(NSGD_PARAMS.sigma2), -1.0, 1.0)


def _true_eps_clip_after_averaging() -> float:
    p0 = _p_no_canary()  # any draw of the 100·L canary makes the clipped mean exactly ±L
    return release_epsilon(DELTA_NSGD, [p0, 1 - p0], [0, L], [p0, 1 - p0], [0, -L], math.sqrt(NSGD_PARAMS.sigma2),
                           -1.0, 1.0)


def _true_eps_private_count() -> float:
    p0 = _p_no_canary()  # any draw of the canary makes the mean over non-null records exactly L
    return release_epsilon(DELTA_NSGD, [p0, 1 - p0], [0, L], [1.0], [0.0], math.sqrt(NSGD_PARAMS.sigma2), -1.0, 1.0)


def _objp_linear(sigma_factor: float) -> float:
    clamp = 2 * N_OBJP * LAMBDA_OBJP_LINEAR * 1e3  # |Σx + G| beyond this is projected
    return release_epsilon(DELTA_OBJP, [1.0], [L], [1.0], [-L], sigma_factor * SIGMA_OBJP, -clamp, clamp)


def regulariser_dropped_mass() -> float:
    """P_S(|ŵ| < M) of the λ = 0 mutant on the 1-D logistic canary: the root of σ(−w) = G lies in (−M, M) iff
    G ∈ (σ(−M), σ(M)) (logistic σ; M = 1).  The null neighbour's output is ±M surely, so δ(ε) ≥ this mass
    for every ε."""
    sig = lambda t: 1.0 / (1.0 + math.exp(-t))  # noqa: E731
    return float(ndtr(sig(1.0) / SIGMA_OBJP) - ndtr(sig(-1.0) / SIGMA_OBJP))


# ---- the corpus -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlantedBug:
    """One entry of the corpus.  ``true_epsilon``/``correct_epsilon``: exact ε at the claim's δ on ``pair``
    (``inf``: the mutant's δ(ε) exceeds δ for every ε; ``nan``: not computed here)."""

    name: str
    mutant: Algorithm
    correct: Algorithm
    bug: str
    precedent: str
    instance: str
    pair: Callable[[], tuple[Dataset, Dataset]]
    problem: ERMProblem
    epsilon: float
    delta: float
    true_epsilon: Callable[[], float]
    correct_epsilon: Callable[[], float]
    true_privacy_note: str = ""
    mutant_batched: Callable[..., np.ndarray] | None = None
    correct_batched: Callable[..., np.ndarray] | None = None
    audit_kwargs: Mapping[str, Any] = field(default_factory=dict)
    visible: bool = True  # False: not a violation on any instance we could audit (documented)
    samples: int = DEFAULT_SAMPLES  # runs per side of one audit (the corpus budget unless stated)

    def mechanism(self, which: str = "mutant") -> Mechanism:
        if which == "mutant":
            return Mechanism(self.mutant, self.problem, self.epsilon, self.delta, self.mutant_batched)
        if which == "correct":
            return Mechanism(self.correct, self.problem, self.epsilon, self.delta, self.correct_batched)
        raise ValueError(f"which must be 'mutant' or 'correct', got {which!r}")


NSGD_INSTANCE = "A_NSGD, linear canary, n=16, d=1, T=1, m=8, η=10, W=B(0,10)"
SYM = "x_n = +e₁ vs −e₁ (symmetric)"
NULL = "x_n = e₁ vs 0 (null record)"
ONE_SIDED = "x_i = e₁ for all i vs x_n = −e₁ (one-sided: the worst pair known)"
_nan = lambda: math.nan  # noqa: E731

CORPUS: dict[str, PlantedBug] = {b.name: b for b in [
    PlantedBug(
        "nsgd_noise_divided_by_batch", mu.nsgd_noise_divided_by_batch, o.noisy_sgd,
        "σ divided by the batch size m", "spec §9.1.2 ([ACG+16] sum-noise convention applied to the mean)",
        f"{NSGD_INSTANCE}; {SYM}", lambda: _linear_pair(N_NSGD, L, -L), PROB_NSGD, EPS, DELTA_NSGD,
        lambda: _nsgd_symmetric(1.0 / NSGD_PARAMS.m), lambda: _nsgd_symmetric(1.0)),
    PlantedBug(
        "nsgd_noise_scaled_0p7", mu.nsgd_noise_scaled_0p7, o.noisy_sgd,
        "σ × 0.7", "B.9 calibration search returns too small σ (Opacus #346)",
        f"{NSGD_INSTANCE}; {ONE_SIDED}", lambda: _one_sided_pair(N_NSGD), PROB_NSGD, EPS, DELTA_NSGD,
        lambda: _nsgd_one_sided(0.7), lambda: _nsgd_one_sided(1.0),
        true_privacy_note="on the symmetric canary 0.7σ gives ε = 0.87 < 1 (invisible there); the certified σ is "
                          "tight on the one-sided pair (ε 0.998 at claim 1)"),
    PlantedBug(
        "nsgd_sensitivity_without_factor_2", mu.nsgd_sensitivity_without_factor_2, o.noisy_sgd,
        "σ calibrated to sensitivity L instead of the replace-one 2L (σ/2)",
        "B.9 sensitivity mis-computation (diffprivlib #34, #105); spec §3.1 add/remove vs replace-one",
        f"{NSGD_INSTANCE}; {ONE_SIDED}", lambda: _one_sided_pair(N_NSGD), PROB_NSGD, EPS, DELTA_NSGD,
        lambda: _nsgd_one_sided(0.5), lambda: _nsgd_one_sided(1.0),
        true_privacy_note="on the symmetric canary σ/2 gives ε = 1.43"),
    PlantedBug(
        "nsgd_clip_after_averaging", mu.nsgd_clip_after_averaging, lambda *a, **k: o.noisy_sgd(*a, clip=True, **k),
        "clip=True clips the batch mean instead of the records / per-sample gradients",
        "B.9 sensitivity mis-computation (Tramèr et al. 2022 batch-size factor); spec §9.1.4",
        f"{NSGD_INSTANCE}; x_n = +100e₁ vs −100e₁ (outside the declared ‖x‖ ≤ 1)",
        lambda: _linear_pair(N_NSGD, 100 * L, -100 * L), PROB_NSGD, EPS, DELTA_NSGD,
        _true_eps_clip_after_averaging, lambda: _nsgd_symmetric(1.0)),
    PlantedBug(
        "nsgd_sampling_without_replacement", mu.nsgd_sampling_without_replacement, o.noisy_sgd,
        "m distinct indices per step under the with-replacement claim",
        "B.9 sampling scheme ≠ accountant (Opacus #80, PR #128; TF-Privacy #19); spec §9.1.1",
        f"{NSGD_INSTANCE}; {SYM}", lambda: _linear_pair(N_NSGD, L, -L), PROB_NSGD, EPS, DELTA_NSGD,
        _true_eps_without_replacement, lambda: _nsgd_symmetric(1.0),
        true_privacy_note="not a violation at T = 1 (at most one canary copy per batch: more private than with "
                          "replacement; ε = 0.71 on the one-sided pair); the violating forms"
                          " (shuffled epochs, cyclic batches, spec §3.1 ε ≈ 9) "
                          "need T ≫ n/m steps and a white-box trajectory audit", visible=False),
    PlantedBug(
        "nsgd_normalised_by_private_count", mu.nsgd_normalised_by_private_count, o.noisy_sgd,
        "batch sum divided by its number of non-null records instead of m",
        "B.9 private n leaks through normalisation (Opacus #571, #819)",
        f"{NSGD_INSTANCE}; {NULL}", lambda: _linear_pair(N_NSGD, L, 0.0), PROB_NSGD, EPS, DELTA_NSGD,
        _true_eps_private_count, _nsgd_null_correct),
    PlantedBug(
        "nsgd_data_dependent_clipping", mu.nsgd_data_dependent_clipping, o.noisy_sgd,
        "clip threshold C = max_i ‖∇ℓ(w₀, z_i)‖ from the data, σ scaled by C/L",
        "spec §9.1.4 (never estimate L from the data); DESIGN 'privacy never depends on data'",
        f"{NSGD_INSTANCE}; {NULL}", lambda: _linear_pair(N_NSGD, L, 0.0), PROB_NSGD, EPS, DELTA_NSGD,
        lambda: math.inf, _nsgd_null_correct,
        true_privacy_note="ε = ∞: on the null dataset C = 0, no noise, output w₀ = 0 surely; on the canary "
                          "P(w̄ = 0) = 0, so δ(ε) = 1 for all ε"),
    PlantedBug(
        "nsgd_data_dependent_stopping", mu.nsgd_data_dependent_stopping, o.noisy_sgd,
        "early stop when the non-private ‖∇L̂(w_t)‖ ≤ 1e-6",
        "spec §9.1.3 (stopping/tuning on data breaks or multiplies the budget)",
        f"{NSGD_INSTANCE}; {NULL}", lambda: _linear_pair(N_NSGD, L, 0.0), PROB_NSGD, EPS, DELTA_NSGD,
        lambda: math.inf, _nsgd_null_correct,
        true_privacy_note="ε = ∞: on the null dataset ∇L̂ ≡ 0, the run stops before step 1 and outputs w₀ = 0 "
                          "surely; on the canary P(w̄ = 0) = 0"),
    PlantedBug(
        "nsgd_noise_outside_step", mu.nsgd_noise_outside_step, o.noisy_sgd,
        "noise added to the iterate before the projection, not inside the η-scaled step (σ/η)",
        "spec §9.1.2, negative control §8.4(c)",
        f"{NSGD_INSTANCE}; {SYM}", lambda: _linear_pair(N_NSGD, L, -L), PROB_NSGD, EPS, DELTA_NSGD,
        lambda: _nsgd_symmetric(1.0 / NSGD_PARAMS.eta), lambda: _nsgd_symmetric(1.0)),
    PlantedBug(
        "nsgd_printed_calibration", functools.partial(mu.nsgd_printed_calibration, T=T_PRINTED, eta=ETA_PRINTED),
        functools.partial(o.noisy_sgd, T=T_PRINTED, eta=ETA_PRINTED),
        "Theorem 3.1's printed σ² = 8TL² log(1/δ)/(n²ε²) at small T under the requested (ε, δ) claim",
        "Bassily et al. 2019, Algorithm 1 line 1 / Theorem 3.1 via [ACG+16] (Poisson sampling, add/remove); "
        "ERRATA.md E4",
        f"A_NSGD, linear loss, n={N_PRINTED}, d=1, δ=1/n², T={T_PRINTED} (override), m={PRINTED_PARAMS.m}, "
        f"η={ETA_PRINTED:g}, W=B(0,10); {ONE_SIDED}",
        lambda: _one_sided_pair(N_PRINTED), PROB_NSGD, EPS, DELTA_PRINTED, _printed_true, _printed_correct,
        true_privacy_note="not refutable at the 5e4 default budget on any instance of Algorithm 1's regime (ε ≤ 1, "
                          "δ ≤ 1/n²; best expected ε_lb 0.999 at n = 32 with the best event in hindsight); audited at "
                          "5e5 runs per side with the claim-placed Gaussian event",
        audit_kwargs={"event_from_claim": "gaussian"}, samples=SAMPLES_PRINTED),
    PlantedBug(
        "objp_noise_scaled_by_n", mu.objp_noise_scaled_by_n, o.objective_perturbation,
        "σ² divided by n² (output-perturbation scale in ObjP)", "spec §9.1.6(iv)",
        "A_ObjP, linear loss, n=100, d=1, δ=1e-4, W=B(0,1000); x_n = +e₁ vs −e₁",
        lambda: _linear_pair(N_OBJP, L, -L), PROB_OBJP_LINEAR, EPS, DELTA_OBJP,
        lambda: _objp_linear(1.0 / N_OBJP), lambda: _objp_linear(1.0),
        mutant_batched=objp_linear_batched(1.0 / N_OBJP), correct_batched=objp_linear_batched(1.0)),
    PlantedBug(
        "objp_inexact_warm_start", mu.objp_inexact_warm_start, o.objective_perturbation,
        "inexact argmin: 2 GD steps (step 0.1/L_Q) warm-started at the non-private minimiser, no certificate",
        "B.9 inexact minimiser (diffprivlib tol=1e-4; TF-Privacy Kifer with SGD epochs); spec §9.1.6(i)",
        "A_ObjP, linear loss, n=100, d=1, δ=1e-4, W=B(0,1000); x_n = +e₁ vs −e₁",
        lambda: _linear_pair(N_OBJP, L, -L), PROB_OBJP_LINEAR, EPS, DELTA_OBJP,
        lambda: _objp_linear(1.0 - 0.9**2), lambda: _objp_linear(1.0),
        true_privacy_note="w_K = −(Σx + (1 − 0.9^K)G)/(2nλ): the Gaussian mechanism with noise 0.19σ",
        correct_batched=objp_linear_batched(1.0)),
    PlantedBug(
        "objp_regulariser_dropped", mu.objp_regulariser_dropped, o.objective_perturbation,
        "λ‖w‖² left out of the perturbed objective (Thm 5.2 needs β ≤ εnλ)",
        "spec §3.3, §9.1.6(iii), negative control §8.4(d); B.9 loss/regulariser scaling drift (diffprivlib PR #98)",
        "A_ObjP, 1-D logistic, n=100, δ=1e-4, W=[−1,1]; (x, y)_n = (1, +1) vs (0, +1) (null)",
        lambda: _logistic_null_pair(N_OBJP), PROB_OBJP_LOGISTIC, EPS, DELTA_OBJP,
        lambda: math.inf, _nan,
        true_privacy_note="ε = ∞: the null dataset's output is ±M surely, the canary's lies in (−M, M) with "
                          "probability P(G ∈ (σ(−1), σ(1))) ≈ 0.019 ≫ δ; correct algorithm not computed exactly "
                          "here (spec §3.3: δ(1) < 1e-12 at the smallest admissible λ)",
        correct_batched=objp_logistic_batched, audit_kwargs={"statistic": "norm"}),
]}


# ---- detection rates ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DetectionRate:
    """Refutations among ``audits`` independent audits, with a two-sided Clopper–Pearson interval."""

    name: str
    which: str
    refuted: int
    audits: int
    samples: int
    confidence: float
    interval_level: float
    lower: float
    upper: float
    epsilon_lower_median: float
    seconds: float

    @property
    def rate(self) -> float:
        return self.refuted / self.audits


def detection_rate(name: str, audits: int = 100, samples: int | None = None, seed: int = 20240603, *,
                   which: str = "mutant", confidence: float = DEFAULT_CONFIDENCE,
                   interval_level: float = 0.95) -> DetectionRate:
    """Fraction of ``audits`` independent audits of ``name``'s mutant (or its correct counterpart,
    ``which="correct"``) that refute the claim, on the corpus pair, at ``samples`` runs per side (default:
    the entry's budget, ``PlantedBug.samples``).

    Audit i uses ``np.random.default_rng(SeedSequence(seed).spawn(audits)[i])``; the mutant and the correct
    algorithm use different children (spawned from ``SeedSequence(seed, spawn_key=(0|1,))``).  The interval is
    the two-sided Clopper–Pearson interval at ``interval_level`` for the per-audit refutation probability.
    """
    import time

    bug = CORPUS[name]
    samples = bug.samples if samples is None else int(samples)
    t0 = time.perf_counter()
    ds, nb = bug.pair()
    mech = bug.mechanism(which)
    claim = mech.claim(ds)
    root = np.random.SeedSequence(seed, spawn_key=(0 if which == "mutant" else 1,))
    refuted, lbs = 0, []
    for child in root.spawn(audits):
        res = audit(mech, ds, nb, claim, samples, np.random.default_rng(child), confidence=confidence,
                    **dict(bug.audit_kwargs))
        refuted += res.verdict == "refuted"
        lbs.append(res.epsilon_lower)
    a = (1.0 - interval_level) / 2.0
    return DetectionRate(name, which, refuted, audits, samples, confidence, interval_level,
                         float(clopper_pearson_lower(refuted, audits, a)), float(clopper_pearson_upper(refuted, audits, a)),
                         float(np.median(lbs)), time.perf_counter() - t0)


def fixed_event_refutation_probability(p: float, q: float, n: int, epsilon: float, delta: float,
                                       confidence: float = DEFAULT_CONFIDENCE, *, tail_mass: float = 1e-15) -> float:
    """Exact probability that ``audit(..., event=E)`` refutes an (ε, δ) claim, for a fixed event E.

    With an event fixed in advance every run is a test run: the counts are K_p ~ Bin(n, p) on the numerator
    side (p = its P(E)) and K_q ~ Bin(n, q) on the other, independent, and the audit refutes iff
    ``epsilon_lower_bound(K_p, n, K_q, n, δ, confidence)`` > ε (the auditor's own bound, so the rule is the
    audit's).  That bound increases in K_p and decreases in K_q, so the probability is
    Σ_{k_q} P(K_q = k_q)·P(K_p ≥ k*(k_q)), summed over the central range of each binomial; the mass left out
    (≤ ``tail_mass`` per tail and side) is counted as "not refuted", so the result is exact to within
    4·``tail_mass`` below.

    Parameters
    ----------
    p, q : float in [0, 1], the event's probability on the numerator and the denominator side.
    n : int ≥ 1, runs per side.
    epsilon : float ≥ 0, delta : float in [0, 1), the claim;  confidence : the audit's confidence.
    """
    n = int(n)
    if n < 1 or not (0.0 <= p <= 1.0 and 0.0 <= q <= 1.0):
        raise ValueError(f"need n >= 1 and p, q in [0, 1], got n={n}, p={p}, q={q}")
    kp = np.arange(int(binom.ppf(tail_mass, n, p)), int(binom.isf(tail_mass, n, p)) + 2)
    kq = np.arange(int(binom.ppf(tail_mass, n, q)), int(binom.isf(tail_mass, n, q)) + 2)
    kp, kq = kp[(kp >= 0) & (kp <= n)], kq[(kq >= 0) & (kq <= n)]
    refutes = epsilon_lower_bound(kp[:, None], n, kq[None, :], n, delta, confidence) > epsilon  # (|kp|, |kq|)
    return float(binom.pmf(kp, n, p) @ refutes.astype(float) @ binom.pmf(kq, n, q))
