"""Planted bugs of mechanisms claimed in μ-GDP and ρ-zCDP: the corpus's rows for the curve notions.

The papers to come (Asi, Liu & Tian's heavy-tailed clipped DP-SGD; Menart et al.'s KL-regularised methods)
claim ρ-zCDP for noisy gradient methods under replace-one neighbours.  These entries are the templates of
their audits: each is a mechanism with one realistic bug that keeps the correct mechanism's μ-GDP or ρ-zCDP
claim (now false), audited by the curve audit (``dpsco.verification.auditing.curve_audit.audit_curve``)
against the claimed curve, with the exact μ or ρ (and ε at the claim's δ) of the mutant and of the correct
mechanism on the canary pair, in closed form.  :data:`NOTION_AUDITED` holds them; the corpus
(``dpsco.verification.mutants.corpus``) audits them with ``detection_rate(name, notion=...)``.  No catalogue
entry runs these mechanisms yet, so they are kept beside ``CORPUS`` (whose every visible entry a catalogue
entry must name) rather than in it.

Mechanisms (d = 1 canaries, replace-one; every claim's (ε, δ) fields hold an equivalent pair at δ = 1e-5):

* :func:`gaussian_sum` — Σ_i clip(x_i, R) + N(0, σ²), σ = 2R/μ: μ-GDP (Dong, Roth & Su 2022, JRSS-B 84(1),
  Thm 2.7: the Gaussian mechanism with sensitivity Δ and noise σ is Δ/σ-GDP; replace-one sensitivity 2R).
  Mutant :func:`gaussian_sum_half_sigma`: σ = R/μ (the add/remove sensitivity R), true μ = 2μ.
* :func:`noisy_clipped_gradient_step` — one step of noisy clipped gradient descent from w₀ = 0,
  w₁ = −η((1/n)Σ_i clip(∇ℓ(w₀, z_i), C) + N(0, σ²)), σ = 2C/(n√(2ρ)): ρ-zCDP (Bun & Steinke 2016, TCC,
  Prop. 1.6: Gaussian noise σ on a query of sensitivity Δ is Δ²/(2σ²)-zCDP; the clipped mean's replace-one
  sensitivity is 2C/n).  Mutant :func:`noisy_clipped_gradient_step_sensitivity_c_over_n`: σ from C/n, true ρ =
  4ρ.  The iterate is released unprojected, so the release is exactly the Gaussian mechanism.
* :func:`laplace_sum` — Σ_i clip(x_i, R) + ℓ2-Laplace noise of scale b = 2R/√(2ρ) (``reference.noise``'s
  ``sample_l2_laplace``; on d = 1 the Laplace mechanism): √(2ρ)-DP, hence ρ-zCDP (Bun & Steinke 2016,
  Prop. 1.4).  Mutant :func:`laplace_sum_sensitivity_without_factor_2`: b = R/√(2ρ).  Exact ρ of the Laplace
  mechanism with shift t (in units of b): sup over orders α > 1 of D_α/α, D_α from Mironov 2017 (CSF,
  "Rényi differential privacy", Table II); exact ε at δ: t + 2 log(1 − δ) (the hockey-stick divergence of a
  Laplace shift t is 1 − e^{(ε − t)/2} on [0, t]).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import minimize_scalar

from dpsco.reference import Ball, DataBounds, ERMProblem, LinearLoss
from dpsco.reference.conversions import gdp_epsilon, zcdp_epsilon  # the one copy (rounded up); re-exported
from dpsco.reference.noise import sample_gaussian, sample_l2_laplace
from dpsco.reference.privacy import PrivacyClaim
from dpsco.verification.auditing.clopper_pearson import clopper_pearson_lower, clopper_pearson_upper
from dpsco.verification.auditing.curves import CurveClaim
from dpsco.verification.mutants.exact import DEFAULT_CONFIDENCE, release_epsilon, rule_refutation_probability
from dpsco.verification.mutants.planted import Dataset, PlantedBug

__all__ = [
    "NOTION_AUDITED",
    "NOTION_AUDIT_TESTS",
    "NotionRelease",
    "fixed_event_curve_refutation_probability",
    "gaussian_sum",
    "gaussian_sum_half_sigma",
    "gdp_epsilon",
    "laplace_rho",
    "laplace_sum",
    "laplace_sum_sensitivity_without_factor_2",
    "noisy_clipped_gradient_step",
    "noisy_clipped_gradient_step_sensitivity_c_over_n",
    "zcdp_epsilon",
]

# ---- instances ------------------------------------------------------------------------------------------
#: the claims: μ-GDP with μ = 1, ρ-zCDP with ρ = 1/2 (both ≈ the privacy of one Gaussian release at σ = Δ),
#: and the δ of their equivalent (ε, δ) fields
MU, RHO, DELTA = 1.0, 0.5, 1e-5
N_SUM, R_SUM = 10, 1.0
PROB_SUM = ERMProblem(LinearLoss(), Ball(10.0), DataBounds(R_SUM, 1.0))
#: the clipped-gradient step: n records with ‖x‖ ≤ 2 (linear loss: ∇ℓ(w, x) = x), clip C = 1 < 2, step η = 1
N_STEP, C_STEP, ETA_STEP = 50, 1.0, 1.0
PROB_STEP = ERMProblem(LinearLoss(), Ball(10.0), DataBounds(2.0, 1.0))


@dataclass(frozen=True)
class NotionRelease:
    """What the mechanisms return: ``output`` ((d,) or (replicates, d)) and the ``claim``."""

    output: np.ndarray
    claim: PrivacyClaim


def laplace_rho(t: float) -> float:
    """Exact zCDP ρ of the Laplace mechanism with shift t (in units of its scale): sup over α > 1 of D_α/α,
    D_α = log(α/(2α−1)·e^{(α−1)t} + (α−1)/(2α−1)·e^{−αt})/(α − 1) (Mironov 2017, Table II), whose limit at
    α → 1 is the KL divergence t + e^{−t} − 1; the sup is taken over that limit and a bounded search on
    α ∈ (1, 1000] (D_α ≤ t, so D_α/α → 0)."""
    def ratio(a: float) -> float:
        la = np.logaddexp(math.log(a / (2 * a - 1)) + (a - 1) * t, math.log((a - 1) / (2 * a - 1)) - a * t)
        return float(la / ((a - 1) * a))

    kl = t + math.exp(-t) - 1.0
    res = minimize_scalar(lambda a: -ratio(a), bounds=(1.0 + 1e-9, 1e3), method="bounded",
                          options={"xatol": 1e-10})
    return max(kl, -float(res.fun))


def _sum_pair(n: int, r: float) -> tuple[Dataset, Dataset]:
    """n − 1 zero records plus x_n = +r·e₁ vs −r·e₁ (y ignored)."""
    X = np.zeros((n, 1))
    X[-1, 0] = r
    X2 = X.copy()
    X2[-1, 0] = -r
    return {"X": X, "y": np.zeros(n)}, {"X": X2, "y": np.zeros(n)}


def _clip_rows(G: np.ndarray, c: float) -> np.ndarray:
    norms = np.linalg.norm(G, axis=1, keepdims=True)
    return G * np.minimum(1.0, c / np.maximum(norms, 1e-300))


def _sum_query(X: Any, problem: ERMProblem) -> tuple[np.ndarray, float]:
    X = np.asarray(X, dtype=np.float64)
    r = float(problem.bounds.x_max)
    return _clip_rows(X, r).sum(axis=0), r


# ---- mechanisms -------------------------------------------------------------------------------------------


def _gaussian_sum(X: Any, problem: ERMProblem, delta: float, rng: np.random.Generator, replicates: int | None,
                  mu: float, sensitivity_factor: float) -> NotionRelease:
    q, r = _sum_query(X, problem)
    sigma = sensitivity_factor * 2.0 * r / mu
    from dp_accounting import dp_event

    claim = PrivacyClaim(
        notion="GDP", epsilon=gdp_epsilon(mu, delta), delta=delta, neighbouring="replace-one",
        source="Dong, Roth & Su 2022, Thm 2.7 (Gaussian mechanism, replace-one sensitivity 2R)",
        assumptions={"record_bound": r, "sensitivity": 2.0 * r, "sigma": 2.0 * r / mu}, mu=mu,
        event=dp_event.GaussianDpEvent(1.0 / mu), event_neighbouring="ADD_OR_REMOVE_ONE")
    return NotionRelease(q + sample_gaussian(q.size, sigma, rng, replicates), claim)


def gaussian_sum(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator,
                 replicates: int | None = None, *, mu: float = MU) -> NotionRelease:
    """The Gaussian sum mechanism Σ_i clip(x_i, R) + N(0, σ² I), σ = 2R/μ, R = ``problem.bounds.x_max``,
    claimed μ-GDP under replace-one (claim ``mu``; its (ε, δ) the exact GDP ε at ``delta``; event
    ``GaussianDpEvent(1/μ)`` under ADD_OR_REMOVE_ONE).  X: (n, d); ``epsilon`` is unused (the corpus's calling
    convention); output (d,) or (replicates, d)."""
    return _gaussian_sum(X, problem, delta, rng, replicates, mu, 1.0)


def gaussian_sum_half_sigma(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                            rng: np.random.Generator, replicates: int | None = None, *,
                            mu: float = MU) -> NotionRelease:
    """Mutant of :func:`gaussian_sum`: σ = R/μ (the add/remove sensitivity R), the claim unchanged."""
    return _gaussian_sum(X, problem, delta, rng, replicates, mu, 0.5)


def _clipped_step(X: Any, y: Any, problem: ERMProblem, delta: float, rng: np.random.Generator,
                  replicates: int | None, rho: float, clip: float, eta: float,
                  sensitivity_factor: float) -> NotionRelease:
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    w0 = np.zeros(d)
    g = _clip_rows(problem.loss.grad(w0, X, np.asarray(y, dtype=np.float64)), clip).mean(axis=0)
    sigma_claimed = 2.0 * clip / (n * math.sqrt(2.0 * rho))
    from dp_accounting import dp_event

    claim = PrivacyClaim(
        notion="zCDP", epsilon=zcdp_epsilon(rho, delta), delta=delta, neighbouring="replace-one",
        source="Bun & Steinke 2016, Prop. 1.6 (one noisy clipped-gradient step; replace-one sensitivity 2C/n)",
        assumptions={"clip": clip, "n": n, "eta": eta, "sigma": sigma_claimed, "w0": 0.0}, rho=rho,
        event=dp_event.GaussianDpEvent(1.0 / math.sqrt(2.0 * rho)), event_neighbouring="ADD_OR_REMOVE_ONE")
    noise = sample_gaussian(d, sensitivity_factor * sigma_claimed, rng, replicates)
    return NotionRelease(w0 - eta * (g + noise), claim)


def noisy_clipped_gradient_step(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                                rng: np.random.Generator, replicates: int | None = None, *, rho: float = RHO,
                                clip: float = C_STEP, eta: float = ETA_STEP) -> NotionRelease:
    """One step of noisy clipped gradient descent from w₀ = 0: w₁ = −η(ḡ + G), ḡ the mean of the per-sample
    gradients clipped to norm ``clip`` (C), G ~ N(0, σ² I), σ = 2C/(n√(2ρ)); claimed ρ-zCDP under replace-one
    (the template of the clipped DP-SGD claims of Asi, Liu & Tian and Menart et al.).  Released unprojected.
    X: (n, d); output (d,) or (replicates, d); ``epsilon`` unused."""
    return _clipped_step(X, y, problem, delta, rng, replicates, rho, clip, eta, 1.0)


def noisy_clipped_gradient_step_sensitivity_c_over_n(X: Any, y: Any, problem: ERMProblem, epsilon: float,
                                                     delta: float, rng: np.random.Generator,
                                                     replicates: int | None = None, *, rho: float = RHO,
                                                     clip: float = C_STEP, eta: float = ETA_STEP) -> NotionRelease:
    """Mutant of :func:`noisy_clipped_gradient_step`: σ = C/(n√(2ρ)), the add/remove sensitivity C/n of the
    clipped mean under the replace-one claim (sensitivity 2C/n); the claim unchanged."""
    return _clipped_step(X, y, problem, delta, rng, replicates, rho, clip, eta, 0.5)


def _laplace_sum(X: Any, problem: ERMProblem, delta: float, rng: np.random.Generator, replicates: int | None,
                 rho: float, sensitivity_factor: float) -> NotionRelease:
    q, r = _sum_query(X, problem)
    eps0 = math.sqrt(2.0 * rho)
    from dp_accounting import dp_event

    claim = PrivacyClaim(
        notion="zCDP", epsilon=zcdp_epsilon(rho, delta), delta=delta, neighbouring="replace-one",
        source="Bun & Steinke 2016, Prop. 1.4 (ε-DP implies ε²/2-zCDP; ℓ2-Laplace mechanism, sensitivity 2R)",
        assumptions={"record_bound": r, "sensitivity": 2.0 * r, "scale": 2.0 * r / eps0}, rho=rho,
        event=dp_event.LaplaceDpEvent(1.0 / eps0), event_neighbouring="ADD_OR_REMOVE_ONE")
    return NotionRelease(q + sample_l2_laplace(q.size, sensitivity_factor * 2.0 * r / eps0, rng, replicates), claim)


def laplace_sum(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator,
                replicates: int | None = None, *, rho: float = RHO) -> NotionRelease:
    """The ℓ2-Laplace sum mechanism Σ_i clip(x_i, R) + Z, p(z) ∝ exp(−‖z‖/b), b = 2R/√(2ρ): √(2ρ)-DP, claimed
    ρ-zCDP under replace-one.  X: (n, d); output (d,) or (replicates, d); ``epsilon`` unused."""
    return _laplace_sum(X, problem, delta, rng, replicates, rho, 1.0)


def laplace_sum_sensitivity_without_factor_2(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                                             rng: np.random.Generator, replicates: int | None = None, *,
                                             rho: float = RHO) -> NotionRelease:
    """Mutant of :func:`laplace_sum`: b = R/√(2ρ) (the add/remove sensitivity R); the claim unchanged."""
    return _laplace_sum(X, problem, delta, rng, replicates, rho, 0.5)


# ---- exact refutation probability of a fixed-event curve audit -------------------------------------------


def fixed_event_curve_refutation_probability(p: float, q: float, n: int, curve: CurveClaim,
                                             confidence: float = DEFAULT_CONFIDENCE, *,
                                             tail_mass: float = 1e-15) -> float:
    """Exact probability that ``audit_curve(..., claim=curve, event=E)`` refutes, for an event fixed in advance.

    Every run is a test run: K_p ~ Bin(n, p) (numerator side, p = its P(E)), K_q ~ Bin(n, q), independent; the
    audit refutes iff β_hi < f(α_hi) or α_hi < f(β_hi), α_hi = Q_hi(K_q), β_hi = 1 − P_lo(K_p), each one-sided
    Clopper–Pearson bound at level (1 − confidence)/2 (the auditor's rule, recomputed from the bounds here).
    Summed over the central range of each binomial; the mass left out (≤ ``tail_mass`` per tail and side) is
    counted as "not refuted", so the result is exact to within 4·``tail_mass`` below.
    """
    half = (1.0 - confidence) / 2.0

    def refutes(kp: np.ndarray, kq: np.ndarray) -> np.ndarray:
        beta = 1.0 - np.asarray(clopper_pearson_lower(kp, int(n), half), dtype=np.float64)
        alpha = np.asarray(clopper_pearson_upper(kq, int(n), half), dtype=np.float64)
        f_alpha = np.asarray(curve.tradeoff(alpha), dtype=np.float64)
        f_beta = np.asarray(curve.tradeoff(beta), dtype=np.float64)
        return (beta[:, None] < f_alpha[None, :]) | (alpha[None, :] < f_beta[:, None])  # (|kp|, |kq|)

    return rule_refutation_probability(p, q, n, refutes, tail_mass=tail_mass)


# ---- the entries ------------------------------------------------------------------------------------------

#: the tests that run these entries' curve audits: fixed-event audits with exact miss probabilities, and the
#: campaign's detection rates
NOTION_AUDIT_TESTS = ("tests/test_planted_bugs.py::test_notion_mutants_refuted_and_correct_not_refuted",
                      "tests/test_planted_bugs.py::test_campaign_notion_detection_rate")
_SUM = f"n={N_SUM}, d=1, ‖x‖ ≤ R = {R_SUM:g}; x_n = +R·e₁ vs −R·e₁"
_STEP = (f"one step from w₀ = 0, linear loss (∇ℓ = x), n={N_STEP}, d=1, ‖x‖ ≤ 2, C={C_STEP:g}, η={ETA_STEP:g}, "
         "unprojected; x_n = +2e₁ vs −2e₁ (clipped to ±C)")
_SENSITIVITY = ("sensitivity mis-computed (diffprivlib issues #34, #105): the add/remove sensitivity under a "
                "replace-one claim, whose sensitivity is twice as large")

NOTION_AUDITED: dict[str, PlantedBug] = {b.name: b for b in [
    PlantedBug(
        "gaussian_sum_half_sigma", gaussian_sum_half_sigma, gaussian_sum,
        "σ = R/μ: the Gaussian sum calibrated to the add/remove sensitivity R instead of the replace-one 2R (σ/2)",
        _SENSITIVITY, f"Gaussian sum mechanism claimed μ-GDP, μ = {MU:g}; {_SUM}",
        lambda: _sum_pair(N_SUM, R_SUM), PROB_SUM, gdp_epsilon(MU, DELTA), DELTA,
        lambda: gdp_epsilon(2.0 * MU, DELTA), lambda: gdp_epsilon(MU, DELTA),
        true_privacy_note="exact μ = 2R/σ: 2μ for the mutant, μ for the correct mechanism (tight on this pair)",
        paper="mechanisms", claim_notion="gdp", true_parameter=lambda: 2.0 * MU, correct_parameter=lambda: MU,
        audit_tests=NOTION_AUDIT_TESTS),
    PlantedBug(
        "noisy_clipped_gradient_step_sensitivity_c_over_n", noisy_clipped_gradient_step_sensitivity_c_over_n,
        noisy_clipped_gradient_step,
        "σ = C/(n√(2ρ)): the clipped mean's add/remove sensitivity C/n instead of the replace-one 2C/n",
        _SENSITIVITY + "; the template of the ρ-zCDP claims of clipped DP-SGD (Asi, Liu & Tian; Menart et al.)",
        f"noisy clipped gradient step claimed ρ-zCDP, ρ = {RHO:g}; {_STEP}",
        lambda: _sum_pair(N_STEP, 2.0), PROB_STEP, zcdp_epsilon(RHO, DELTA), DELTA,
        lambda: gdp_epsilon(2.0 * math.sqrt(2.0 * RHO), DELTA), lambda: gdp_epsilon(math.sqrt(2.0 * RHO), DELTA),
        true_privacy_note="exact ρ = (2C/n)²/(2σ²): 4ρ for the mutant, ρ for the correct step (tight on this pair)",
        paper="mechanisms", claim_notion="zcdp", true_parameter=lambda: 4.0 * RHO, correct_parameter=lambda: RHO,
        audit_tests=NOTION_AUDIT_TESTS),
    PlantedBug(
        "laplace_sum_sensitivity_without_factor_2", laplace_sum_sensitivity_without_factor_2, laplace_sum,
        "b = R/√(2ρ): the Laplace sum calibrated to the add/remove sensitivity R instead of the replace-one 2R",
        _SENSITIVITY, f"ℓ2-Laplace sum mechanism claimed ρ-zCDP (via √(2ρ)-DP), ρ = {RHO:g}; {_SUM}",
        lambda: _sum_pair(N_SUM, R_SUM), PROB_SUM, zcdp_epsilon(RHO, DELTA), DELTA,
        lambda: 2.0 * math.sqrt(2.0 * RHO) + 2.0 * math.log1p(-DELTA),
        lambda: math.sqrt(2.0 * RHO) + 2.0 * math.log1p(-DELTA),
        true_privacy_note="exact ρ of a Laplace shift t (Mironov 2017, Table II): t = 2√(2ρ) for the mutant, "
                          "√(2ρ) for the correct mechanism, whose ρ-zCDP claim has slack (the ε²/2 conversion)",
        paper="mechanisms", claim_notion="zcdp", true_parameter=lambda: laplace_rho(2.0 * math.sqrt(2.0 * RHO)),
        correct_parameter=lambda: laplace_rho(math.sqrt(2.0 * RHO)), audit_tests=NOTION_AUDIT_TESTS),
]}
