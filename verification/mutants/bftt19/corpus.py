"""Planted bugs of Bassily, Feldman, Talwar & Thakurta (2019) in the corpus (``dpsco.verification.mutants.corpus
.CORPUS``): the mutants of ``mutants.bftt19.bugs`` audited on a canary pair (:data:`CANARY_AUDITED`, kind
:class:`~dpsco.verification.mutants.planted.PlantedBug`), each with the claim (the correct algorithm's, which the
mutant keeps), the correct counterpart (for the false-refutation rate), the TRUE ε of the mutant's and the correct
release on that pair, computed exactly (``dpsco.verification.mutants.exact.release_epsilon``, including the
projection's atoms) or ``inf`` with the reason, and the audit configuration and budget, fixed in advance.
``dpsco.verification.mutants.corpus.detection_rate`` audits them (docs/planted-bugs.md).  The σ/√2 copies of
Algorithms 1 and 2 are in ``mutants.glm_noise_corpus`` and the memorisation bug in ``mutants.corpus`` (both shared
with Lowy & Razaviyayn).

Instances.  NSGD family: linear loss, W = B(0, 10), L = 1, n = 16, d = 1, ε = 1, δ = 1/n²; Theorem 3.2
gives T = 1, m = 8, η = 10 and the printed σ² = 8 log(256)/256, which is not (1, 1/256)-DP on the one-sided
pair (δ(1) = 0.0060, ERRATA.md BFTT19-E4), so the algorithm runs with the certified σ² = 0.2003 (1.075 × the printed
σ).  The release is w̄ = −η·clip(g + G, −1, 1) with g the batch-mean gradient's first coordinate (the
projection clamps at |g + G| = M/η = 1).  Three canary pairs: symmetric (n − 1 zero records, x_n = ±e₁),
null (x_n = e₁ vs 0) and one-sided (``dpsco.verification.auditing.neighbours.canary_pair(neighbour="one-sided")``: all
records e₁, x_n replaced by −e₁ — the worst pair known, on which the certified σ is tight, so σ-scaling bugs
are audited there).  Printed calibration: n = 64, δ = 1/n², T = 1 (override), m = 32, η = 1, W = B(0, 10)
(the projection is inactive: |g + G| ≤ 10 except with probability < 1e-300).  ObjP on the linear
loss: n = 100, d = 1, W = B(0, 1000), δ = 1e-4 (exactly the Gaussian mechanism Σ x_i + G: the minimiser is
−(Σ x_i + G)/(2nλ)).  ObjP on a 1-D logistic canary: n = 100, W = [−1, 1], δ = 1e-4, canary (1, +1) vs the
null record (0, +1).
"""

from __future__ import annotations

import functools
import math
from typing import Callable, Mapping

import numpy as np
from scipy.special import ndtr
from scipy.stats import binom

from dpsco.reference import Ball, DataBounds, ERMProblem, LinearLoss
import dpsco.reference.bftt19 as o
from dpsco.reference.losses import LogisticLoss
from dpsco.verification.mutants.bftt19 import bugs as mu
from dpsco.verification.auditing.neighbours import canary_pair
from dpsco.verification.mutants.exact import release_epsilon
from dpsco.verification.mutants.planted import Dataset, PlantedBug

__all__ = ["BFTT19_BUGS", "CANARY_AUDITED", "objp_linear_batched", "objp_logistic_batched", "regulariser_dropped_mass"]

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
    """ObjP's logistic canary: n − 1 zero-feature records (label +1) plus the canary (1, +1) vs the null record
    (0, +1)."""
    X = np.zeros((n, 1))
    X[-1, 0] = 1.0
    y = np.ones(n)
    return {"X": X, "y": y}, {"X": np.zeros((n, 1)), "y": y.copy()}


# ---- mechanisms ------------------------------------------------------------------------------------------
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


NSGD_INSTANCE = "A_NSGD, linear canary, n=16, d=1, T=1, m=8, η=10, W=B(0,10)"
SYM = "x_n = +e₁ vs −e₁ (symmetric)"
NULL = "x_n = e₁ vs 0 (null record)"
ONE_SIDED = "x_i = e₁ for all i vs x_n = −e₁ (one-sided: the worst pair known)"
_nan = lambda: math.nan  # noqa: E731

CANARY_AUDITED: dict[str, PlantedBug] = {b.name: b for b in [
    PlantedBug(
        "nsgd_noise_divided_by_batch", mu.nsgd_noise_divided_by_batch, o.noisy_sgd,
        "σ divided by the batch size m",
        "[ACG+16]'s noise on the batch sum (noise multiplier × clip) applied to Algorithm 1's σ, which already "
        "refers to the batch mean",
        f"{NSGD_INSTANCE}; {SYM}", lambda: _linear_pair(N_NSGD, L, -L), PROB_NSGD, EPS, DELTA_NSGD,
        lambda: _nsgd_symmetric(1.0 / NSGD_PARAMS.m), lambda: _nsgd_symmetric(1.0)),
    PlantedBug(
        "nsgd_noise_scaled_0p7", mu.nsgd_noise_scaled_0p7, o.noisy_sgd,
        "σ × 0.7", "a noise-calibration search that returns too small a σ (Opacus issue #346)",
        f"{NSGD_INSTANCE}; {ONE_SIDED}", lambda: _one_sided_pair(N_NSGD), PROB_NSGD, EPS, DELTA_NSGD,
        lambda: _nsgd_one_sided(0.7), lambda: _nsgd_one_sided(1.0),
        true_privacy_note="on the symmetric canary 0.7σ gives ε = 0.87 < 1 (invisible there); the certified σ is "
                          "tight on the one-sided pair (ε 0.998 at claim 1)"),
    PlantedBug(
        "nsgd_sensitivity_without_factor_2", mu.nsgd_sensitivity_without_factor_2, o.noisy_sgd,
        "σ calibrated to sensitivity L instead of the replace-one 2L (σ/2)",
        "sensitivity mis-computed (diffprivlib issues #34, #105): the add/remove sensitivity L under a replace-one "
        "claim, whose sensitivity is 2L",
        f"{NSGD_INSTANCE}; {ONE_SIDED}", lambda: _one_sided_pair(N_NSGD), PROB_NSGD, EPS, DELTA_NSGD,
        lambda: _nsgd_one_sided(0.5), lambda: _nsgd_one_sided(1.0),
        true_privacy_note="on the symmetric canary σ/2 gives ε = 1.43"),
    PlantedBug(
        "nsgd_clip_after_averaging", mu.nsgd_clip_after_averaging, lambda *a, **k: o.noisy_sgd(*a, clip=True, **k),
        "clip=True clips the batch mean instead of the records / per-sample gradients",
        "clipping in the wrong place changes the sensitivity by the batch size (Tramèr et al. 2022)",
        f"{NSGD_INSTANCE}; x_n = +100e₁ vs −100e₁ (outside the declared ‖x‖ ≤ 1)",
        lambda: _linear_pair(N_NSGD, 100 * L, -100 * L), PROB_NSGD, EPS, DELTA_NSGD,
        _true_eps_clip_after_averaging, lambda: _nsgd_symmetric(1.0)),
    PlantedBug(
        "nsgd_sampling_without_replacement", mu.nsgd_sampling_without_replacement, o.noisy_sgd,
        "m distinct indices per step under the with-replacement claim",
        "a sampling scheme other than the accountant's (Opacus issue #80, PR #128; TF-Privacy issue #19)",
        f"{NSGD_INSTANCE}; {SYM}", lambda: _linear_pair(N_NSGD, L, -L), PROB_NSGD, EPS, DELTA_NSGD,
        _true_eps_without_replacement, lambda: _nsgd_symmetric(1.0),
        true_privacy_note="not a violation at T = 1 (at most one canary copy per batch: more private than with "
                          "replacement; ε = 0.71 on the one-sided pair); the violating forms"
                          " (shuffled epochs, cyclic batches) "
                          "need T ≫ n/m steps and a white-box trajectory audit", visible=False),
    PlantedBug(
        "nsgd_normalised_by_private_count", mu.nsgd_normalised_by_private_count, o.noisy_sgd,
        "batch sum divided by its number of non-null records instead of m",
        "the private dataset size leaks through normalisation (Opacus issues #571, #819)",
        f"{NSGD_INSTANCE}; {NULL}", lambda: _linear_pair(N_NSGD, L, 0.0), PROB_NSGD, EPS, DELTA_NSGD,
        _true_eps_private_count, _nsgd_null_correct),
    PlantedBug(
        "nsgd_data_dependent_clipping", mu.nsgd_data_dependent_clipping, o.noisy_sgd,
        "clip threshold C = max_i ‖∇ℓ(w₀, z_i)‖ from the data, σ scaled by C/L",
        "the Lipschitz constant (clip threshold) estimated from the data instead of declared: privacy must never "
        "depend on the data",
        f"{NSGD_INSTANCE}; {NULL}", lambda: _linear_pair(N_NSGD, L, 0.0), PROB_NSGD, EPS, DELTA_NSGD,
        lambda: math.inf, _nsgd_null_correct,
        true_privacy_note="ε = ∞: on the null dataset C = 0, no noise, output w₀ = 0 surely; on the canary "
                          "P(w̄ = 0) = 0, so δ(ε) = 1 for all ε"),
    PlantedBug(
        "nsgd_data_dependent_stopping", mu.nsgd_data_dependent_stopping, o.noisy_sgd,
        "early stop when the non-private ‖∇L̂(w_t)‖ ≤ 1e-6",
        "stopping (or tuning) on the data spends privacy that the claim does not account for",
        f"{NSGD_INSTANCE}; {NULL}", lambda: _linear_pair(N_NSGD, L, 0.0), PROB_NSGD, EPS, DELTA_NSGD,
        lambda: math.inf, _nsgd_null_correct,
        true_privacy_note="ε = ∞: on the null dataset ∇L̂ ≡ 0, the run stops before step 1 and outputs w₀ = 0 "
                          "surely; on the canary P(w̄ = 0) = 0"),
    PlantedBug(
        "nsgd_noise_outside_step", mu.nsgd_noise_outside_step, o.noisy_sgd,
        "noise added to the iterate before the projection, not inside the η-scaled step (σ/η)",
        "noise added outside the η-scaled step (Algorithm 1 perturbs the gradient, so the step scales the noise)",
        f"{NSGD_INSTANCE}; {SYM}", lambda: _linear_pair(N_NSGD, L, -L), PROB_NSGD, EPS, DELTA_NSGD,
        lambda: _nsgd_symmetric(1.0 / NSGD_PARAMS.eta), lambda: _nsgd_symmetric(1.0)),
    PlantedBug(
        "nsgd_printed_calibration", functools.partial(mu.nsgd_printed_calibration, T=T_PRINTED, eta=ETA_PRINTED),
        functools.partial(o.noisy_sgd, T=T_PRINTED, eta=ETA_PRINTED),
        "Theorem 3.1's printed σ² = 8TL² log(1/δ)/(n²ε²) at small T under the requested (ε, δ) claim",
        "Bassily et al. 2019, Algorithm 1 line 1 / Theorem 3.1 via [ACG+16] (Poisson sampling, add/remove); "
        "ERRATA.md BFTT19-E4",
        f"A_NSGD, linear loss, n={N_PRINTED}, d=1, δ=1/n², T={T_PRINTED} (override), m={PRINTED_PARAMS.m}, "
        f"η={ETA_PRINTED:g}, W=B(0,10); {ONE_SIDED}",
        lambda: _one_sided_pair(N_PRINTED), PROB_NSGD, EPS, DELTA_PRINTED, _printed_true, _printed_correct,
        true_privacy_note="not refutable at the 5e4 default budget on any instance of Algorithm 1's regime (ε ≤ 1, "
                          "δ ≤ 1/n²; best expected ε_lb 0.999 at n = 32 with the best event in hindsight); audited at "
                          "5e5 runs per side with the claim-placed Gaussian event",
        audit_kwargs={"event_from_claim": "gaussian"}, samples=SAMPLES_PRINTED),
    PlantedBug(
        "objp_noise_scaled_by_n", mu.objp_noise_scaled_by_n, o.objective_perturbation,
        "σ² divided by n² (output-perturbation scale in ObjP)",
        "the 1/n² of output perturbation put into Algorithm 2's σ², whose 1/n is already in the objective's ⟨G, w⟩/n",
        "A_ObjP, linear loss, n=100, d=1, δ=1e-4, W=B(0,1000); x_n = +e₁ vs −e₁",
        lambda: _linear_pair(N_OBJP, L, -L), PROB_OBJP_LINEAR, EPS, DELTA_OBJP,
        lambda: _objp_linear(1.0 / N_OBJP), lambda: _objp_linear(1.0),
        mutant_batched=objp_linear_batched(1.0 / N_OBJP), correct_batched=objp_linear_batched(1.0)),
    PlantedBug(
        "objp_inexact_warm_start", mu.objp_inexact_warm_start, o.objective_perturbation,
        "inexact argmin: 2 GD steps (step 0.1/L_Q) warm-started at the non-private minimiser, no certificate",
        "an inexact minimiser without a certificate (diffprivlib's tol=1e-4; TF-Privacy's Kifer et al. variant "
        "with SGD epochs): Theorem 5.2 holds for the exact minimiser",
        "A_ObjP, linear loss, n=100, d=1, δ=1e-4, W=B(0,1000); x_n = +e₁ vs −e₁",
        lambda: _linear_pair(N_OBJP, L, -L), PROB_OBJP_LINEAR, EPS, DELTA_OBJP,
        lambda: _objp_linear(1.0 - 0.9**2), lambda: _objp_linear(1.0),
        true_privacy_note="w_K = −(Σx + (1 − 0.9^K)G)/(2nλ): the Gaussian mechanism with noise 0.19σ",
        correct_batched=objp_linear_batched(1.0)),
    PlantedBug(
        "objp_regulariser_dropped", mu.objp_regulariser_dropped, o.objective_perturbation,
        "λ‖w‖² left out of the perturbed objective (Thm 5.2 needs β ≤ εnλ)",
        "Theorem 5.2's condition β ≤ εnλ needs the regulariser; loss/regulariser scaling drift (diffprivlib PR #98)",
        "A_ObjP, 1-D logistic, n=100, δ=1e-4, W=[−1,1]; (x, y)_n = (1, +1) vs (0, +1) (null)",
        lambda: _logistic_null_pair(N_OBJP), PROB_OBJP_LOGISTIC, EPS, DELTA_OBJP,
        lambda: math.inf, _nan,
        true_privacy_note="ε = ∞: the null dataset's output is ±M surely, the canary's lies in (−M, M) with "
                          "probability P(G ∈ (σ(−1), σ(1))) ≈ 0.019 ≫ δ; correct algorithm not computed exactly "
                          "here (Theorem 5.2 covers it: the algorithm checks its preconditions)",
        correct_batched=objp_logistic_batched, audit_kwargs={"statistic": "norm"}),
]}

#: every planted bug of this room, by name (all canary-audited)
BFTT19_BUGS: dict[str, PlantedBug] = dict(CANARY_AUDITED)
