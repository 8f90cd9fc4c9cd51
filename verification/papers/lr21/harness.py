"""Privacy harnesses of the nine Lowy & Razaviyayn (2021) catalogue entries: output perturbation, Algorithms 1–3 and
the Sec. 4 applications (``verification/papers/harness.py`` states the contract; ``tests/test_privacy_contract.py``
runs it).

Public inputs: those of ``verification/papers/bftt19/harness.py`` (logistic loss, W = B(0, 2), ‖x‖ ≤ 1, |y| ≤ 1,
n = 40, d = 2, ε = 1, δ = 1/n², each entry's ``quick_options`` or ``options``).  Records [x | y]; the extreme
records are the logistic ones (y = ±1) for the entries whose loss needs labels in {±1}, and for the least-squares
robust model and the linear adversarial game (labels anywhere in [−1, 1]) y is drawn from ±1, 0, ±1e-300,
±5e-324 and ±0.5 too.

Every entry releases w_A = Π_{B(0,R)}(w_T + z), z ~ N(0, σ²I) at δ > 0 with Zhao et al.'s σ for the sensitivity
Δ_T = Δ_F + 2√(2α/modulus) (Prop. 2.1 / 2.2; LR21-E1–LR21-E3) — one Gaussian release, whose noiseless quantity is the
certified w_T (``nonprivate_internals["w_T"]``):

* sensitivity: D and D′ run with the same seed (the same inner randomness and noise), ‖w_T(D) − w_T(D′)‖ and the
  released points' distance (the projection is 1-Lipschitz) against Δ_T from the entry's public parameter function
  (``algorithm_1_parameters``, ``algorithm_2_parameters``, ``tilted_erm_parameters``, ``robust_erm_parameters``,
  ``algorithm_3_parameters``), never from the release;
* noise: the released point minus w_T over 500 replicates (1,000 values) on records ((0.6, 0.8), ±1) alternating,
  on which every objective is even in w, so w* = 0 and ‖w_T‖ ≤ √(2α/modulus); the instance (n, ε) is the first of
  :data:`NOISE_CANDIDATES` at which the projection is inactive except with probability ≤ 1e-15 per run
  (P(‖z‖ ≥ R − √(2α/modulus)), a χ²_d tail), and σ is calibrated there from public inputs;
* exact privacy: the Gaussian mechanism at centre distance Δ_T, μ = Δ_T/σ (Dong, Roth & Su 2022, Cor. 2.13): the
  largest distance the certificate gate admits between w_T(D) and w_T(D′) for any neighbours and any certified
  inner output (Lemma 0.2 + the α-ball of the certificate), so the worst pair over datasets and inner methods; the
  projection onto B(0, R) is post-processing and only lowers δ(ε).  The realised pairs of the default inner
  methods are measured by the sensitivity probes (≤ Δ_T).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.stats import chi2

import dpsco.reference.lr21 as lr
from dpsco.reference.clipping import row_norms
from dpsco.reference.noise import calibrate
from dpsco.reference.privacy import Release
from dpsco.reference.problem import ERMProblem
from dpsco.verification.papers.glm_harness import (D, EPS, RADIUS, alternating_records, benign_records, call_entry,
                                                 entry_options, extreme_features, extreme_logistic_record,
                                                 harness_problem)
from dpsco.verification.papers.harness import (ExactPrivacy, NoiseSample, PrivacyHarness, SensitivityProbe,
                                               gaussian_exact_privacy)

__all__ = ["HARNESSES", "NOISE_CANDIDATES", "NOISE_RUNS", "noise_instance", "public_parameters"]

#: (n, ε) instances tried, in order, for the noise sample (δ = 1/n²): the first where the projection is inactive
NOISE_CANDIDATES: tuple[tuple[int, float], ...] = ((40, 1.0), (400, 1.0), (40, 50.0), (400, 50.0), (4000, 50.0),
                                                  (40000, 50.0))
#: replicates of a noise sample: 500 runs × d = 2 coordinates = 1,000 residuals
NOISE_RUNS = 500
#: largest probability per run that the projection onto B(0, R) touches the noise sample
PROJECTION_MISS = 1e-15

ENTRIES = ("lr21.alg1", "lr21.alg1.subgradient", "lr21.alg1.sgd", "lr21.alg1.katyusha", "lr21.alg2", "lr21.tilted",
           "lr21.robust", "lr21.robust_squared", "lr21.alg3")
#: the planted "reports σ, draws σ/√2" copy of each entry's algorithm (corpus names, mutants.glm_noise_corpus)
NOISE_BUGS: dict[str, str] = {
    **{e: "algorithm_1_draws_sigma_over_sqrt2" for e in ENTRIES if e.startswith("lr21.alg1")},
    "lr21.alg2": "algorithm_2_draws_sigma_over_sqrt2",
    "lr21.tilted": "tilted_erm_draws_sigma_over_sqrt2",
    "lr21.robust": "robust_erm_from_problem_draws_sigma_over_sqrt2",
    "lr21.robust_squared": "robust_erm_from_problem_draws_sigma_over_sqrt2",
    "lr21.alg3": "algorithm_3_from_problem_draws_sigma_over_sqrt2"}


def public_parameters(name: str, problem: ERMProblem, n: int, d: int, epsilon: float, delta: float) -> dict[str, Any]:
    """The entry's line-2 parameters (α, Δ_F, Δ_T, modulus) from its public parameter function at these inputs
    and its options — never read from a release.  ``modulus`` is the strong convexity of the certified objective
    (μ, or λ for Algorithm 2)."""
    opts = entry_options(name)
    if name.startswith("lr21.alg1"):
        p = lr.algorithm_1_parameters(problem, n, d, epsilon, delta, opts["mu"], method=opts.get("method", "agd"),
                                      erm=True, alpha=opts.get("alpha"), T=None, sensitivity_mode="paper")
        return {**p, "modulus": opts["mu"]}
    if name == "lr21.alg2":
        p = lr.algorithm_2_parameters(problem, n, d, epsilon, delta, method=opts.get("method", "agd"), erm=True,
                                      lam=None, alpha=None, T=None)
        return {**p, "modulus": p["lam"]}
    if name == "lr21.tilted":
        p = lr.tilted_erm_parameters(problem, n, d, epsilon, delta, tau=opts["tau"], mu=opts["mu"],
                                     method=opts.get("method", "agd"))
        return {**p, "modulus": opts["mu"]}
    if name.startswith("lr21.robust"):
        p = lr.robust_erm_parameters(opts.get("kind", "logistic"), problem.bounds.x_max, problem.bounds.y_max, n, d,
                                     epsilon, delta, rho=opts["rho"], mu=opts["mu"], radius=problem.radius,
                                     method=opts.get("method", "subgradient"))
        return {**p, "modulus": opts["mu"]}
    if name == "lr21.alg3":
        game = lr.LinearAdversarialProblem(opts["mu"], opts["r"], opts.get("gamma", 0.0), problem.bounds.x_max,
                                           problem.bounds.y_max, radius=problem.radius)
        p = lr.algorithm_3_parameters(game, n, d, epsilon, delta, alpha=None, T=None, sensitivity_mode="paper")
        return {**p, "modulus": opts["mu"]}
    raise ValueError(f"no lr21 harness for entry {name!r}")


def _sigma(name: str, n: int, epsilon: float) -> tuple[float, dict[str, Any]]:
    """(σ, parameters): Zhao et al.'s σ for Δ_T at (ε, δ = 1/n²) (``dpsco.reference.noise.calibrate``)."""
    delta = 1.0 / n**2
    p = public_parameters(name, harness_problem(), n, D, epsilon, delta)
    return calibrate(p["Delta_T"], epsilon, delta).scale, p


def noise_instance(name: str) -> tuple[int, float, float]:
    """(n, ε, σ) of ``name``'s noise sample: the first of :data:`NOISE_CANDIDATES` where
    P(‖z‖ ≥ R − √(2α/modulus)) ≤ :data:`PROJECTION_MISS` (z ~ N(0, σ²I_d); ‖w_T‖ ≤ √(2α/modulus) on the alternating
    records, module docstring).  Raises RuntimeError if none qualifies."""
    for n, eps in NOISE_CANDIDATES:
        sigma, p = _sigma(name, n, eps)
        gap = RADIUS - math.sqrt(2.0 * p["alpha"] / p["modulus"])
        if gap > 0 and chi2.sf((gap / sigma) ** 2, D) <= PROJECTION_MISS:
            return n, eps, sigma
    raise RuntimeError(f"{name}: no noise instance keeps the projection inactive")


def _extreme_label(draw: Any) -> float:
    from hypothesis import strategies as st

    return draw(st.sampled_from((-1.0, 1.0, 0.0, 1e-300, -1e-300, 5e-324, -5e-324, 0.5, -0.5)), label="y")


def _extreme_real_label_record(draw: Any) -> np.ndarray:
    """[x | y] with x from ``extreme_features`` and y anywhere on the declared |y| ≤ 1 at an extreme."""
    return np.append(extreme_features(draw), _extreme_label(draw))


def _harness(name: str) -> PrivacyHarness:
    real_labels = name in ("lr21.robust_squared", "lr21.alg3")

    def run(records: np.ndarray, rng: np.random.Generator, algorithm: Any = None) -> Release:
        return call_entry(name, algorithm, records, rng)

    def sensitivity(records_d: np.ndarray, records_n: np.ndarray, seed: int) -> list[SensitivityProbe]:
        n = records_d.shape[0]
        bound = public_parameters(name, harness_problem(), n, D, EPS, 1.0 / n**2)["Delta_T"]
        a = call_entry(name, None, records_d, np.random.default_rng(seed))
        b = call_entry(name, None, records_n, np.random.default_rng(seed))
        wa, wb = a.nonprivate_internals["w_T"], b.nonprivate_internals["w_T"]
        return [SensitivityProbe("line 1: w_T(D) − w_T(D′) (the centre of line 2's noise)",
                                 float(row_norms(wa - wb)), bound),
                SensitivityProbe("line 2: released points under the same noise (projection 1-Lipschitz)",
                                 float(row_norms(np.asarray(a.output) - np.asarray(b.output))), bound)]

    def noise(seed: int, algorithm: Any = None) -> NoiseSample:
        n, eps, sigma = noise_instance(name)
        rel = call_entry(name, algorithm, alternating_records(n), np.random.default_rng(seed), epsilon=eps,
                         replicates=NOISE_RUNS)
        out = np.asarray(rel.output)
        if not np.all(row_norms(out) < RADIUS * (1.0 - 1e-9)):
            raise RuntimeError(f"{name}: a released point lies on the sphere; the residual needs the projection "
                               f"inactive (probability ≤ {NOISE_RUNS}·{PROJECTION_MISS:g} for a correct algorithm)")
        res = out - np.asarray(rel.nonprivate_internals["w_T"])
        return NoiseSample(res.ravel(), sigma, f"{name}: released point − w_T at n = {n}, ε = {eps:g}")

    def exact_privacy() -> tuple[ExactPrivacy, Release]:
        n = 40
        sigma, p = _sigma(name, n, EPS)
        rel = call_entry(name, None, benign_records(np.random.default_rng(0), n, D), np.random.default_rng(0))
        mu = p["Delta_T"] / sigma
        return gaussian_exact_privacy(mu, note=(
            f"Gaussian mechanism at centre distance Δ_T = {p['Delta_T']:.6g} (the certificate gate's largest, any "
            f"pair, any certified inner output), σ = {sigma:.6g} (Zhao et al. at ε = {EPS:g}, δ = 1/n²): μ = "
            f"{mu:.6g}; the projection onto B(0, R) only lowers δ(ε)")), rel

    return PrivacyHarness(entry=name, records=benign_records,
                          extreme_record=_extreme_real_label_record if real_labels else extreme_logistic_record,
                          run=run, sensitivity=sensitivity, exact_privacy=exact_privacy, noise=noise,
                          noise_bug=NOISE_BUGS[name])


HARNESSES: dict[str, PrivacyHarness] = {name: _harness(name) for name in ENTRIES}
