"""The planted-bug corpus: every planted bug (mutant) of ``dpsco.verification.mutants``, with how it is caught.

A privacy audit that never fails proves nothing: each mutant copies one of our algorithms with one realistic
bug and keeps the correct algorithm's privacy claim (now false); the audits and checks must catch it.
:data:`CORPUS` holds every planted bug by name, each with its ``paper``, the bug and its precedent, the
instance on which it shows, the audit or check that catches it (``caught_by``) and the tests that run that
audit or check (``tests``, pytest ids).  Each catalogue entry (``dpsco.verification.papers``) names the
planted bugs of the code it runs.  Its two kinds of entry, and the entries audited beside it:

* :class:`PlantedBug` (Bassily et al., ``mutants.bftt19``; :data:`CANARY_AUDITED`): audited by this module on
  a canary pair, with the claim (the correct algorithm's, which the mutant keeps), the correct counterpart
  (for the false-refutation rate), the TRUE ε of the mutant's and the correct release on that pair, computed
  exactly (``dpsco.verification.mutants.exact.release_epsilon``, including the projection's atoms) or ``inf``
  with the reason, and the audit configuration and budget, fixed in advance.  :func:`detection_rate` runs
  ``audits`` independent audits (``dpsco.verification.auditing.audit.audit`` at :data:`DEFAULT_CONFIDENCE`, the
  entry's ``samples`` runs per side, independent ``SeedSequence`` children) and returns the refutation rate
  with its Clopper–Pearson interval (docs/planted-bugs.md).
* μ-GDP / ρ-zCDP entries (``mutants.notions``; :data:`NOTION_AUDITED`): :class:`PlantedBug` entries of a
  Gaussian sum, a noisy clipped-gradient step and a Laplace sum claimed μ-GDP / ρ-zCDP, audited like the
  canary-audited ones but by the curve audit against the claimed curve.  :data:`AUDITED` holds both kinds;
  no catalogue entry runs these mechanisms yet, so they are not in :data:`CORPUS`.
  ``detection_rate(name, notion=...)`` audits any :data:`AUDITED` entry under a notion (:data:`NOTIONS`):
  "approx" (default: the (ε, δ) threshold audit above), "curve" (the curve audit against the claim's
  dp_accounting event), "gdp" / "zcdp" (against the claimed μ-GDP / ρ-zCDP curve).
* :class:`PaperTestBug` (Lowy & Razaviyayn, ``mutants.lr21``, ``mutants.lr21_applications``;
  :data:`PAPER_TEST_BUGS`): caught on a worst-case instance that the paper's own test files build (an
  adversarial but certified α-accurate inner optimiser, which a generic canary cannot supply), by an audit,
  an exact privacy curve or the certificate gate.

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
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np
from scipy.special import ndtr
from scipy.stats import binom

from dpsco.reference import Ball, DataBounds, ERMProblem, LinearLoss
import dpsco.reference.bftt19 as o
from dpsco.reference.losses import LogisticLoss
import dpsco.reference.lr21 as lr
from dpsco.verification.mutants.bftt19 import bugs as mu
from dpsco.verification.mutants.lr21 import bugs as mlr
from dpsco.verification.mutants.lr21 import applications as mlr_app
from dpsco.verification.auditing.audit import audit, clopper_pearson_lower, clopper_pearson_upper
from dpsco.verification.auditing.curve_audit import audit_curve, epsilon_lower_from_box
from dpsco.verification.auditing.curves import CurveClaim
from dpsco.verification.auditing.neighbours import canary_pair
from dpsco.verification.mutants.exact import (DEFAULT_CONFIDENCE, fixed_event_refutation_probability, release_delta,
                                              release_epsilon)
from dpsco.verification.mutants.accd22.corpus import ACCD22_BUGS
from dpsco.verification.mutants.alt24.corpus import ALT24_BUGS
from dpsco.verification.mutants.glm_noise_corpus import GLM_NOISE_BUGS
from dpsco.verification.mutants.muabg23.corpus import MUABG23_BUGS
from dpsco.verification.mutants.planted import (CANARY_AUDIT_TESTS, DEFAULT_SAMPLES, Dataset, Mechanism, PaperTestBug,
                                                PlantedBug)
from dpsco.verification.mutants.notions import NOTION_AUDITED

__all__ = [
    "AUDITED",
    "CANARY_AUDITED",
    "CANARY_AUDIT_TESTS",
    "CORPUS",
    "PAPER_TEST_BUGS",
    "PaperTestBug",
    "DEFAULT_CONFIDENCE",
    "DEFAULT_SAMPLES",
    "DetectionRate",
    "Mechanism",
    "NOTIONS",
    "NOTION_AUDITED",
    "PlantedBug",
    "detection_rate",
    "notion_curve",
    "fixed_event_refutation_probability",
    "release_delta",
    "release_epsilon",
]

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


_OP = "tests/lr21/test_lr21_output_perturbation_audits.py::"
_ALG3 = "tests/lr21/test_lr21_algorithm_3.py::"
_APP = "tests/lr21/test_lr21_application_audits.py::"
_ALG1_INSTANCE = ("Algorithm 1, linear loss, n = 10, d = 1, μ = 1, W = B(0, 2), α = 0.5, tight sensitivity mode, an "
                  "adversarial but certified α-accurate inner optimiser; x_n = +1 vs −1")
_AUDIT_40K = ("black-box privacy audit (split-sample Clopper–Pearson, 40,000 runs per side, confidence 1 − 1e-6) "
              "refutes it")
_FIXED_EVENT = ("privacy audit with the event {w_A ≥ w_T(S)} fixed in advance (40,000 runs per side, confidence "
                "1 − 1e-6; miss probability ≤ 2e-12 from exact binomial tails) refutes it at δ = 0 and δ = 1e-3")

PAPER_TEST_BUGS: dict[str, PaperTestBug] = {b.name: b for b in [
    PaperTestBug(
        "alg1_sensitivity_without_alpha_term", mlr.alg1_sensitivity_without_alpha_term, lr.algorithm_1, "lr21",
        "noise calibrated to Δ_F alone, dropping the 2√(2α/μ) of Prop. 2.1's Δ_T",
        "Prop. 2.1: an α-accurate w_T lies within √(2α/μ) of the minimiser, so two runs' centres are up to "
        "Δ_F + 2√(2α/μ) apart; calibrating to the exact minimiser's sensitivity forgets the inner solver's error",
        _ALG1_INSTANCE, "exact ε = 10.9 at δ = 0 (L2-Laplace; centres 2.18 apart against Δ_F = 0.2), > 10 at "
        "δ = 1e-3 (Gaussian curve); the correct release: 0.991",
        _AUDIT_40K + " at δ = 0 and δ = 1e-3", (_OP + "test_audit_refutes_sensitivity_without_alpha_term",)),
    PaperTestBug(
        "alg1_printed_alg3_term", mlr.alg1_printed_alg3_term, lr.algorithm_1, "lr21",
        "Algorithm 1's line 2 with Algorithm 3's printed sensitivity Δ + 2α/μ instead of Δ + 2√(2α/μ)",
        "ERRATA.md LR21-E3", _ALG1_INSTANCE, "exact ε = 1.817 at δ = 0 (centres 2.18 apart against 1.2)",
        _AUDIT_40K + " at δ = 0", (_OP + "test_audit_refutes_algorithm_3_printed_alpha_term",)),
    PaperTestBug(
        "alg1_uncertified_sgd", mlr.alg1_uncertified_sgd, lr.algorithm_1, "lr21",
        "SGD stopped after T steps without a certificate, noise calibrated for α (accuracy only in expectation)",
        "ERRATA.md LR21-P1 (Thms 3.1–3.4 assume accuracy in expectation)",
        "Algorithm 1, linear loss, n = 10, d = 1, μ = 1, α = 1e-4, T = 2, δ = 0; x_n = +1 vs −1",
        "the proof's premise fails: coupled centres are 4/3 apart (> Δ_T = 0.228) on exactly 10 % of index paths "
        "(the mixture over paths is still ε-DP on this instance, ERRATA.md LR21-P1)",
        "Algorithm 1's certificate gate: with method='sgd' the correct algorithm detects the uncertified iterate and "
        "releases the certified solver's point (or refuses, fallback='refuse')",
        (_OP + "test_uncertified_sgd_breaks_the_proof_premise_and_the_certificate_catches_it",)),
    PaperTestBug(
        "alg2_printed_gaussian", mlr.alg2_printed_gaussian, lr.algorithm_2, "lr21",
        "Algorithm 2's printed δ > 0 noise density, σ_Zhao/√2", "ERRATA.md LR21-E2",
        "Algorithm 2, linear loss, n = 10, d = 1, λ = 1, α = 8, δ = 1e-3, an adversarial certified α-accurate "
        "inner optimiser; the Gaussian mechanism at the worst-case shift Δ_T = 8.6",
        "not (1, 1e-3)-DP at shift Δ_T (exact Gaussian curve); nominal (1, 1e-5) is really ε = 1.16",
        "the exact Gaussian privacy curve at the worst-case shift Δ_T (a black-box audit of the test instance cannot "
        "see it: its realised shift 4 < Δ_T leaves the printed σ private there)",
        (_OP + "test_algorithm_2_exact_privacy_and_printed_sigma_erratum",
         "tests/test_noise.py::test_erratum_alg2_printed_sigma_is_not_private")),
    PaperTestBug(
        "alg2_sensitivity_without_alpha_term", mlr.alg2_sensitivity_without_alpha_term, lr.algorithm_2, "lr21",
        "Algorithm 2's noise calibrated to Δ_λ alone, dropping the 2√(2α/λ) of its Δ_T",
        "Algorithm 1's bug (alg1_sensitivity_without_alpha_term) on Algorithm 2: an α-accurate w_T lies within "
        "√(2α/λ) of the regularised minimiser (proof of Prop. 2.1 with λ for μ)",
        "Algorithm 2, linear loss, n = 10, d = 1, λ = 1, α = 8, δ = 1e-3, an adversarial certified α-accurate "
        "inner optimiser; x_n = +1 vs −1 (centres 4 apart against Δ_λ = 0.6)",
        "exact ε = 7.20 at δ = 1e-3 (Gaussian curve at shift 4); the correct release: (1, 1e-3)-DP",
        "black-box privacy audit (split-sample Clopper–Pearson, 40,000 runs per side, confidence 1 − 1e-6) "
        "refutes it at δ = 1e-3",
        ("tests/test_common_catches.py::test_audit_refutes_algorithm_2_sensitivity_without_alpha_term",)),
    PaperTestBug(
        "alg3_printed_alpha_term", mlr.alg3_printed_alpha_term, lr.algorithm_3, "lr21",
        "Algorithm 3 with its printed line-2 sensitivity Δ + 2α/μ (for both δ)", "ERRATA.md LR21-E3",
        "Algorithm 3, linear adversarial game (μ = 1, r = 0.05), n = 10, d = 1, α = 0.02, tight mode, an adversarial "
        "α-accurate saddle solver; x_n = +1 vs −1",
        "exact ε = 2.384 at δ = 0 and 1.984 at δ = 1e-3; the correct release: 0.977 at δ = 0",
        _AUDIT_40K + " at δ = 0 and δ = 1e-3", (_ALG3 + "test_audit_refutes_algorithm_3_printed_alpha_term",)),
    PaperTestBug(
        "alg3_uncertified_stochastic_eg", mlr.alg3_uncertified_stochastic_eg, lr.algorithm_3, "lr21",
        "stochastic extragradient stopped after T steps without a certificate, noise calibrated for α",
        "ERRATA.md LR21-P2 (Algorithm 3 assumes an α-saddle point from its inner solver)",
        "Algorithm 3, linear adversarial game, n = 100, d = 1, α = 1e-6, T = 1, η = 1/(2μ), δ = 0",
        "ε ≥ 16.4 (exact Laplace-mixture tails over all 100 index paths)",
        "black-box privacy audit (20,000 runs per side, confidence 1 − 1e-6) refutes it; the correct algorithm_3's "
        "certificate gate falls back or refuses",
        (_ALG3 + "test_audit_refutes_uncertified_stochastic_eg",
         _ALG3 + "test_uncertified_stochastic_eg_is_not_private_and_the_gate_catches_it")),
    PaperTestBug(
        "tilted_erm_alg1_sensitivity", mlr_app.tilted_erm_alg1_sensitivity, lr.tilted_erm, "lr21",
        "tilted ERM calibrated to Algorithm 1's ERM sensitivity Δ_F = 2L/(μn) instead of Lemma 0.5's 2LC_τ/(μn)",
        "Props 4.1/4.2 with Lemma 0.5: F_τ is not an average of per-sample losses, so Algorithm 1's ERM "
        "sensitivity does not apply (the tilt up-weights the replaced record)",
        "tilted ERM, squared loss, n = 10, d = 1, τ = 40, μ = 9, R = 1/8, α = 1.125e-4, tight mode, an adversarial "
        "certified α-accurate optimiser; y_n = +1 vs −1",
        "exact ε = 5.97 (δ = 0) and 2.69 (δ = 1e-3, clamped release); the correct release: 0.803 / 0.204",
        _FIXED_EVENT, (_APP + "test_tilted_audit_refutes_alg1_sensitivity_mutant",)),
    PaperTestBug(
        "robust_erm_printed_alpha_term", mlr_app.robust_erm_printed_alpha_term, lr.robust_erm, "lr21",
        "ℓ2-robust model (Algorithm 3 with the exact inner max) with Algorithm 3's printed Δ + 2α/μ",
        "ERRATA.md LR21-E3",
        "robust logistic, ρ = 0.05, n = 40, d = 1, μ = 1.5, α = 0.03, tight mode, an adversarial certified "
        "α-accurate optimiser; x_n = +1 vs −1",
        "exact ε = 4.80 (δ = 0) and 4.71 (δ = 1e-3); the correct release: 0.827 / 0.414",
        _FIXED_EVENT, (_APP + "test_robust_audit_refutes_printed_alpha_term_mutant",)),
]}

#: every planted bug, by name: the canary-audited ones (this module), then those its papers' tests catch
#: (Lowy & Razaviyayn here, the σ/√2 bugs of both in ``mutants.glm_noise_corpus``, Asi, Liu & Tian in
#: ``mutants.alt24_corpus``, Menart et al. in ``mutants.muabg23_corpus``, Asi, Chadha, Cheng & Duchi in
#: ``mutants.accd22_corpus``)
_LAST_RECORD_TEST = "tests/test_common_catches.py::test_stability_check_refutes_the_released_last_record"
PAPER_TEST_BUGS.update({b.name: b for b in [
    PaperTestBug(
        f"{paper}_releases_last_record", mutant, correct, paper,
        "a leftover debug line releases the last training record, M·x_n/‖x_n‖, instead of the algorithm's output",
        "memorisation: a release that is a function of one record (not private, not uniformly stable)",
        "the campaign's stability check (campaign.phases) on the Fair data: coupled runs on the neighbour that "
        "replaces x_n by its antipode, probes at the domain's extremes and at both records (quick budget)",
        "ε = ∞ (the release determines x_n's direction); on that pair the outputs are ±M·u, so the loss at the "
        "probe (−u, −y_n) differs by M = 2 (logistic), against stability bounds ≤ 1.08",
        "the stability check (both orders of each pair) fails with p ≤ 1e-280 on every " + paper + " entry"
        + (" but A_ProxGD (its bound 18.8 exceeds any loss difference)" if paper == "bftt19" else ""),
        (_LAST_RECORD_TEST,))
    for paper, mutant, correct in (("bftt19", mu.bftt19_releases_last_record, o.noisy_sgd),
                                   ("lr21", mlr.lr21_releases_last_record, lr.algorithm_1))]})
PAPER_TEST_BUGS.update(GLM_NOISE_BUGS)  # Bassily et al.'s and Lowy & Razaviyayn's σ/√2 copies: their harnesses' tests
CORPUS: dict[str, PlantedBug | PaperTestBug] = {**CANARY_AUDITED, **PAPER_TEST_BUGS, **ALT24_BUGS, **MUABG23_BUGS,
                                               **ACCD22_BUGS}


# ---- detection rates ------------------------------------------------------------------------------------

#: every entry ``detection_rate`` audits: the canary-audited corpus entries, then the μ-GDP / ρ-zCDP entries of
#: ``mutants.notions`` (kept outside :data:`CORPUS` until a catalogue entry runs their mechanisms)
AUDITED: dict[str, PlantedBug] = {**CANARY_AUDITED, **NOTION_AUDITED}
#: the notions ``detection_rate`` audits under, and the lower bound each reports
NOTIONS: tuple[str, ...] = ("approx", "curve", "gdp", "zcdp")
NOTION_PARAMETER = {"approx": "epsilon", "curve": "epsilon", "gdp": "mu", "zcdp": "rho"}


@dataclass(frozen=True)
class DetectionRate:
    """Refutations among ``audits`` independent audits, with a two-sided Clopper–Pearson interval.

    ``epsilon_lower_median``: the median ε_lb at the claim's δ ("approx", "curve"; nan otherwise);
    ``lower_median``: the median lower bound of the notion's ``parameter`` (ε, μ or ρ)."""

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
    notion: str = "approx"
    parameter: str = "epsilon"
    lower_median: float = math.nan

    @property
    def rate(self) -> float:
        return self.refuted / self.audits


def notion_curve(claim: Any, notion: str, name: str = "") -> CurveClaim | None:
    """The curve ``detection_rate`` audits ``claim`` against under ``notion``: None for "approx" (the (ε, δ)
    threshold audit), the claim's dp_accounting event for "curve", its μ-GDP / ρ-zCDP curve for "gdp" /
    "zcdp".  ValueError naming ``notion`` when the claim has no such curve (no event; another notion)."""
    if notion not in NOTIONS:
        raise ValueError(f"notion must be one of {NOTIONS}, got {notion!r}")
    label = f"the claim of {name!r}" if name else "the claim"
    if notion == "approx":
        return None
    if notion == "curve":
        if claim.event is None:
            raise ValueError(f"notion='curve' needs a faithful privacy curve, but {label} ({claim.source}) carries no "
                             "dp_accounting event; audit it with notion='approx'")
        return CurveClaim.from_privacy_claim(claim, use_event=True)
    wanted = {"gdp": ("GDP", claim.mu), "zcdp": ("zCDP", claim.rho)}[notion]
    if claim.notion != wanted[0] or wanted[1] is None:
        raise ValueError(f"notion={notion!r} audits {wanted[0]} claims, but {label} is {claim.notion} "
                         f"({claim.source}); use notion='approx' or 'curve'")
    return CurveClaim.from_privacy_claim(claim)


def detection_rate(name: str, audits: int = 100, samples: int | None = None, seed: int = 20240603, *,
                   which: str = "mutant", confidence: float = DEFAULT_CONFIDENCE,
                   interval_level: float = 0.95, notion: str = "approx") -> DetectionRate:
    """Fraction of ``audits`` independent audits of ``name``'s mutant (or its correct counterpart,
    ``which="correct"``) that refute the claim, on the entry's pair, at ``samples`` runs per side (default:
    the entry's budget, ``PlantedBug.samples``).  ``name`` must be audited here (:data:`AUDITED`: the
    canary-audited corpus entries and ``mutants.notions.NOTION_AUDITED``; ValueError otherwise).

    ``notion`` (:data:`NOTIONS`) chooses the audit: "approx" (default), the (ε, δ) threshold audit
    ``dpsco.verification.auditing.audit.audit`` with the entry's ``audit_kwargs``; otherwise the curve audit
    ``dpsco.verification.auditing.curve_audit.audit_curve`` (the entry's ``statistic`` if any, no power figure)
    against the claim's dp_accounting event ("curve"), or its μ-GDP ("gdp") or ρ-zCDP ("zcdp") curve
    (:func:`notion_curve`; ValueError naming ``notion`` where the claim has none).  The lower bound reported
    (``lower_median``): ε_lb at the claim's δ ("approx"; "curve": from the curve audit's box,
    ``epsilon_lower_from_box``), μ_lb ("gdp"), ρ_lb ("zcdp").

    Audit i uses ``np.random.default_rng(SeedSequence(seed).spawn(audits)[i])``; the mutant and the correct
    algorithm use different children (spawned from ``SeedSequence(seed, spawn_key=(0|1,))``), the same for
    every notion.  The interval is the two-sided Clopper–Pearson interval at ``interval_level`` for the
    per-audit refutation probability.
    """
    import time

    if notion not in NOTIONS:
        raise ValueError(f"notion must be one of {NOTIONS}, got {notion!r}")
    if name not in AUDITED:
        raise ValueError(f"{name!r} is not audited by the corpus (detection rates exist for {list(AUDITED)}); "
                         + ("its paper's tests catch it: " + ", ".join(CORPUS[name].tests) if name in CORPUS
                            else "no such planted bug"))
    bug = AUDITED[name]
    samples = bug.samples if samples is None else int(samples)
    t0 = time.perf_counter()
    ds, nb = bug.pair()
    mech = bug.mechanism(which)
    claim = mech.claim(ds)
    curve = notion_curve(claim, notion, name)
    curve_kwargs = {k: v for k, v in bug.audit_kwargs.items() if k == "statistic"}
    root = np.random.SeedSequence(seed, spawn_key=(0 if which == "mutant" else 1,))
    refuted, lbs, eps_lbs = 0, [], []
    for child in root.spawn(audits):
        if curve is None:
            res = audit(mech, ds, nb, claim, samples, np.random.default_rng(child), confidence=confidence,
                        **dict(bug.audit_kwargs))
            eps_lb = lb = res.epsilon_lower
        else:
            cres = audit_curve(mech, ds, nb, curve, samples, np.random.default_rng(child), confidence=confidence,
                               power=False, rho_bound=notion == "zcdp", **curve_kwargs)
            res = cres  # type: ignore[assignment]
            eps_lb = (epsilon_lower_from_box(cres.details["p_lower"], cres.details["q_upper"], claim.delta)
                      if notion == "curve" else math.nan)
            lb = {"curve": eps_lb, "gdp": cres.mu_lower, "zcdp": cres.rho_lower}[notion]
        refuted += res.verdict == "refuted"
        lbs.append(lb)
        eps_lbs.append(eps_lb)
    a = (1.0 - interval_level) / 2.0
    return DetectionRate(name, which, refuted, audits, samples, confidence, interval_level,
                         float(clopper_pearson_lower(refuted, audits, a)), float(clopper_pearson_upper(refuted, audits, a)),
                         float(np.median(eps_lbs)), time.perf_counter() - t0, notion, NOTION_PARAMETER[notion],
                         float(np.median(lbs)))
