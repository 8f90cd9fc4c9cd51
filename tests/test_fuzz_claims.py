"""Fuzzing: no input yields a release whose claim is false.

1. **Algorithm 1 of Bassily et al. (2019) against its exact curve**
   (``test_no_release_of_algorithm_1_claims_a_false_delta``).  For generated (n, d, ε, δ, T, calibration,
   variant), the released claim's δ must be at least the exact δ(ε) of the noise actually used on the
   worst-case replace-one pair (ERRATA.md BFTT19-E4).  At T = 1 the exact curve comes from the quadrature oracle
   (``dpsco.oracles.privacy_curves``), which shares no code with the calibration; at T ≥ 2 from the PLD
   accountant, itself checked against quadrature in tests/bftt19/test_bftt19_accounting.py.

2. **Output perturbation** (``test_output_perturbation_claims_follow_from_the_noise_used``): for valid generated
   inputs, the claim must follow from the exact privacy curve of the noise the release records
   (``claim.assumptions["noise"]``: mechanism, sensitivity, scale), at a sensitivity re-derived here from the
   declared constants without the reference's formulas: ``min(2R, Δ + 2√(2α/modulus))`` with the tight Δ of
   each objective (Lemma 0.2 with the ridge cancelling: 2L_ℓ/(μn); tilted ERM: (2L_ℓ/μ)·min(1, e^{τ(A_R − a_R)}/n);
   Algorithm 3: 2·y_max(x_max + r)/(μn)), where the 2√(2α/modulus) term is backed by the certificate in the
   diagnostics.  Gaussian noise: ``dpsco.oracles.privacy_curves.gaussian_delta(ε, Δ, σ) ≤ δ``; L2-Laplace noise:
   exact ε = Δ/b ≤ ε.

3. **Every release of Bassily et al.'s algorithms** (``test_optimal_rates_claims_are_sane_and_within_the_budget``):
   efficient objective perturbation's Gaussian output stage at (ε₂, δ₂) with sensitivity r, and the composed
   budget ≤ (ε, δ).  Every release of every algorithm (here and in tests/test_fuzz_api.py): ε > 0 finite,
   0 ≤ δ < 1, a known notion and neighbouring relation, pure-DP iff δ = 0, finite output inside the domain.

Deterministic data; hypothesis draws the parameters (shared pieces in ``tests/_fuzz.py``).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _fuzz import ALGORITHMS, BFTT, CALL_SECONDS, LR, check_sane, dataset, time_limit
from dpsco.oracles.privacy_curves import gaussian_delta, nsgd_worst_pair_delta_quadrature
from dpsco.reference import Ball, DataBounds, ERMProblem, Release
import dpsco.reference.bftt19 as o
import dpsco.reference.lr21 as op
from dpsco.reference.bftt19.accounting import nsgd_worst_pair_delta
from dpsco.reference.losses import HingeLoss, LogisticLoss, SquaredLoss


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(16, 400),
    d=st.integers(1, 4),
    eps=st.floats(0.2, 1.0),
    delta_factor=st.floats(1e-3, 1.0),
    T=st.integers(1, 3),
    calibration=st.sampled_from(["certified", "printed"]),
    variant=st.sampled_from(["nsgd", "moreau", "prox"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_no_release_of_algorithm_1_claims_a_false_delta(n, d, eps, delta_factor, T, calibration, variant, seed):
    delta = delta_factor / n**2
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    y = np.where(rng.uniform(size=n) < 0.5, -1.0, 1.0)
    if variant == "nsgd":
        prob = ERMProblem(LogisticLoss(), Ball(1.0), DataBounds(1.0, 1.0))
        r = o.noisy_sgd(X, y, prob, eps, delta, rng, T=T, calibration=calibration)
    elif variant == "moreau":
        prob = ERMProblem(HingeLoss(), Ball(1.0), DataBounds(1.0, 1.0))
        r = o.moreau_noisy_sgd(X, y, prob, eps, delta, rng, T=T, calibration=calibration)
    else:
        prob = ERMProblem(HingeLoss(), Ball(1.0), DataBounds(1.0, 1.0))
        r = o.prox_noisy_sgd(X, y, prob, eps, delta, rng, T=T, calibration=calibration, accuracy=0.5)
    p = r.parameters
    c = r.claim
    assert c.epsilon == eps and c.neighbouring == "replace-one"
    sigma, L_noise = math.sqrt(p["sigma2"]), p["lipschitz"]
    if T == 1:
        true_delta = nsgd_worst_pair_delta_quadrature(eps, n, p["m"], sigma, L_noise, 1)
    else:
        true_delta = nsgd_worst_pair_delta(eps, n, p["m"], sigma, L_noise, T)
    assert true_delta <= c.delta * (1 + 1e-9), (true_delta, c.delta)
    if calibration == "certified":
        assert c.delta == delta  # the requested guarantee, achieved
    else:
        assert p["sigma2"] == p["sigma2_printed"]  # the paper's noise, with an honest δ


# -- claims of releases on valid inputs -----------------------------------------------------------------------


def _check_noise_implies_claim(r: Release, true_sensitivity: float) -> None:
    """The recorded noise satisfies the claim exactly at the recorded sensitivity, and that sensitivity is at
    least ``true_sensitivity`` (the privacy curves are monotone in the sensitivity)."""
    c = r.claim
    noise = c.assumptions["noise"]
    assert noise["epsilon"] == c.epsilon and noise["delta"] == c.delta
    assert noise["scale"] == r.parameters["noise_scale"] and noise["sensitivity"] == r.parameters["Delta_T"]
    assert noise["sensitivity"] >= true_sensitivity * (1 - 1e-12), (noise["sensitivity"], true_sensitivity)
    if c.delta == 0.0:
        assert noise["mechanism"] == "l2-laplace" and c.notion == "pure-DP"
        assert noise["sensitivity"] / noise["scale"] <= c.epsilon * (1 + 1e-12)  # exact ε of the L2-Laplace noise
    else:
        assert noise["mechanism"] == "gaussian" and c.notion == "approx-DP"
        exact = float(gaussian_delta(c.epsilon, noise["sensitivity"], noise["scale"]))
        assert exact <= c.delta * (1 + 1e-9), (exact, c.delta)


def _certified_term(r: Release, modulus: float) -> float:
    """2√(2α/modulus), the part of the sensitivity the certificate pays for; checks the certificate holds."""
    radius = math.sqrt(2.0 * r.parameters["alpha"] / modulus)
    assert r.diagnostics["certificate"]["distance_bound"] <= radius
    return 2.0 * radius


def _loss_lipschitz(loss: str, x_max: float, y_max: float, R: float) -> float:
    """L_ℓ by hand: |φ'| ≤ 1 (logistic, hinge), |s − y| ≤ x_max·R + y_max (squared), times ‖x‖ ≤ x_max."""
    return x_max * (x_max * R + y_max) if loss == "squared" else x_max


@st.composite
def _lr_case(draw: Any) -> dict[str, Any]:
    """A valid call of one of Lowy & Razaviyayn's algorithms, and its data."""
    name = draw(st.sampled_from(LR))
    n, d = draw(st.integers(4, 30)), draw(st.integers(1, 3))
    X, y = dataset(n, d, seed=draw(st.integers(0, 2**16)))
    eps = draw(st.floats(0.05, 8.0))
    delta = draw(st.one_of(st.just(0.0), st.floats(1e-12, 0.45)))
    kw: dict[str, Any] = {"X": X, "y": y, "epsilon": eps, "delta": delta,
                          "gaussian": draw(st.sampled_from(["zhao", "analytic"]))}
    R = draw(st.floats(0.5, 3.0))
    if name in ("algorithm_1", "algorithm_2", "tilted_erm"):
        loss = draw(st.sampled_from(["logistic", "squared"] + (["hinge"] if name == "algorithm_1" else [])))
        if loss == "squared":
            y = np.clip(X @ np.ones(d) + 0.3 * np.random.default_rng(n).normal(size=n), -1.0, 1.0)
            kw["y"] = y
        kw["problem"] = ERMProblem({"logistic": LogisticLoss(), "squared": SquaredLoss(), "hinge": HingeLoss()}[loss],
                                   Ball(R), DataBounds(1.0, 1.0))
        kw["_loss"] = loss
    if name == "algorithm_1":
        kw["mu"] = draw(st.floats(0.2, 2.0))  # small moduli only make the subgradient count (∝ 1/μ) slow
        smooth = kw["_loss"] != "hinge"
        kw["method"] = draw(st.sampled_from(["agd", "subgradient", "sgd", "katyusha"] if smooth
                                            else ["subgradient", "sgd"]))
        kw["sensitivity_mode"] = draw(st.sampled_from(["paper", "tight"]))
        kw["erm"] = draw(st.booleans())
    elif name == "algorithm_2":
        kw["method"] = draw(st.sampled_from(["agd", "subgradient"]))
        kw["erm"] = draw(st.booleans())
        if draw(st.booleans()):
            kw["lam"] = draw(st.floats(0.2, 2.0))
    elif name == "tilted_erm":
        kw["tau"], kw["mu"] = draw(st.floats(0.01, 2.0)), draw(st.floats(0.2, 2.0))
        kw["method"] = draw(st.sampled_from(["agd", "subgradient"]))
        kw["sensitivity_mode"] = draw(st.sampled_from(["paper", "tight"]))
    elif name == "robust_erm":
        kind = draw(st.sampled_from(["logistic", "squared"]))
        if kind == "squared":
            kw["y"] = np.clip(X @ np.ones(d), -1.0, 1.0)
        kw.update(kind=kind, x_max=1.0, y_max=1.0, rho=draw(st.floats(0.0, 0.5)), mu=draw(st.floats(0.2, 2.0)),
                  sensitivity_mode=draw(st.sampled_from(["paper", "tight"])))
        if draw(st.booleans()):
            kw["radius"] = R
    else:
        kw["problem"] = op.LinearAdversarialProblem(mu=draw(st.floats(0.3, 2.0)), r=draw(st.floats(0.0, 0.5)),
                                                    gamma=draw(st.sampled_from([0.0, 0.5])))
        kw["sensitivity_mode"] = draw(st.sampled_from(["paper", "tight"]))
        kw["erm"] = draw(st.booleans())
        if draw(st.booleans()):
            kw["y"] = np.clip(X @ np.ones(d), -1.0, 1.0)
    return {"name": name, "kw": kw}


def _true_sensitivity(name: str, r: Release, kw: dict[str, Any]) -> float:
    """min(2R, Δ + 2√(2α/modulus)) with Δ the tight replace-one sensitivity of the exact minimiser (module
    docstring), from the declared constants only."""
    p, n = r.parameters, kw["X"].shape[0]
    R = p["R"]
    if name in ("algorithm_1", "algorithm_2", "tilted_erm"):
        L_l = _loss_lipschitz(kw["_loss"], 1.0, 1.0, R)
        modulus = kw["mu"] if name != "algorithm_2" else p["lam"]
        delta_F = 2.0 * L_l / (modulus * n)  # Lemma 0.2: the ridge's gradient cancels between neighbours
        if name == "tilted_erm":  # weights e^{τℓ_i}/Σe^{τℓ_j} ≤ e^{τ(A_R − a_R)}/n
            spread = 1.0 * R if kw["_loss"] == "logistic" else 0.5 * (R + 1.0) ** 2
            delta_F = 2.0 * L_l / modulus * math.exp(min(kw["tau"] * spread - math.log(n), 0.0))
    elif name == "robust_erm":
        modulus, rho = kw["mu"], kw["rho"]
        L_l = 1.0 + rho if kw["kind"] == "logistic" else ((1.0 + rho) * R + 1.0) * (1.0 + rho)
        delta_F = 2.0 * L_l / (modulus * n)
    else:
        P = kw["problem"]
        modulus = P.mu
        delta_F = 2.0 * P.y_max * (P.x_max + P.r) / (modulus * n)
    return min(2.0 * R, delta_F + _certified_term(r, modulus))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=_lr_case(), seed=st.integers(0, 2**32 - 1))
def test_output_perturbation_claims_follow_from_the_noise_used(case, seed):
    name, kw = case["name"], dict(case["kw"])
    kw.pop("_loss", None)
    with time_limit(CALL_SECONDS), warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        r = ALGORITHMS[name](rng=np.random.default_rng(seed), **kw)
    check_sane(r, name)
    assert r.claim.epsilon == kw["epsilon"] and r.claim.delta == kw["delta"]
    assert r.claim.neighbouring == "replace-one"
    _check_noise_implies_claim(r, _true_sensitivity(name, r, case["kw"]))


@st.composite
def _bftt_case(draw: Any) -> dict[str, Any]:
    name = draw(st.sampled_from(BFTT))
    n, d = draw(st.integers(12, 40)), draw(st.integers(1, 3))
    X, y = dataset(n, d, seed=draw(st.integers(0, 2**16)))
    kw: dict[str, Any] = {"X": X, "y": y, "epsilon": draw(st.floats(0.2, 1.0)),
                          "delta": draw(st.floats(1e-6, 1.0)) / n**2}
    if name in ("noisy_sgd", "moreau_noisy_sgd", "prox_noisy_sgd"):
        kw["T"] = 1  # the calibration at T >= 2 costs seconds; tests/test_fuzz_claims.py covers T <= 3
        kw["calibration"] = draw(st.sampled_from(["certified", "printed"]))
    if name == "noisy_sgd":
        kw["problem"] = ERMProblem(LogisticLoss(), Ball(draw(st.floats(0.5, 3.0))), DataBounds(1.0, 1.0))
        kw["average"] = draw(st.sampled_from(["paper", "standard"]))
    elif name in ("moreau_noisy_sgd", "prox_noisy_sgd"):
        kw["problem"] = ERMProblem(HingeLoss(), Ball(draw(st.floats(0.5, 3.0))), DataBounds(1.0, 1.0))
        kw["lipschitz_envelope"] = draw(st.sampled_from(["paper", "sharp"]))
        if name == "prox_noisy_sgd":
            kw["accuracy"] = draw(st.floats(0.3, 2.0))
    else:
        kw["problem"] = ERMProblem(LogisticLoss(), Ball(draw(st.floats(0.5, 3.0))), DataBounds(1.0, 1.0))
    return {"name": name, "kw": kw}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=_bftt_case(), seed=st.integers(0, 2**32 - 1))
def test_optimal_rates_claims_are_sane_and_within_the_budget(case, seed):
    """Every release of Bassily et al.'s algorithms: sane fields, ε as asked, δ at least as asked (the printed
    NSGD calibration states the accountant's δ when larger), and efficient objective perturbation's Gaussian
    output stage and composed budget checked against the exact Gaussian curve."""
    name, kw = case["name"], case["kw"]
    n = kw["X"].shape[0]
    try:
        with time_limit(CALL_SECONDS), warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            r = ALGORITHMS[name](rng=np.random.default_rng(seed), **kw)
    except o.PaperRegimeError as exc:  # a documented precondition (e.g. β ≤ εnλ of objective perturbation)
        assert name in ("objective_perturbation", "efficient_objective_perturbation"), str(exc)
        return
    check_sane(r, name)
    c = r.claim
    assert c.notion == "approx-DP" and c.neighbouring == "replace-one"
    if name == "efficient_objective_perturbation":
        p = r.parameters
        assert c.epsilon == p["epsilon_total"] <= kw["epsilon"] * (1 + 1e-15)
        assert c.delta == p["delta_total"] <= kw["delta"] * (1 + 1e-12)
        assert p["epsilon1"] + 2 * p["epsilon2"] <= kw["epsilon"] * (1 + 1e-15)
        assert (math.exp(p["epsilon2"]) * p["delta1"] + (1 + math.exp(p["epsilon1"] + p["epsilon2"])) * p["delta2"]
                <= kw["delta"] * (1 + 1e-12))
        # the output stage: w̃ within r of the perturbed minimiser (certified), Gaussian noise σ₂ at (ε₂, δ₂)
        assert r.diagnostics["certificate"]["distance_bound"] <= p["radius_r"]
        assert float(gaussian_delta(p["epsilon2"], p["radius_r"], p["sigma2"])) <= p["delta2"] * (1 + 1e-9)
    else:
        assert c.epsilon == kw["epsilon"] and c.delta >= kw["delta"]
        if name == "objective_perturbation":  # Algorithm 2's σ² and Theorem 5.2's preconditions, by hand
            L, p = 1.0, r.parameters
            assert p["sigma2"] == pytest.approx(10 * L**2 * math.log(1 / kw["delta"]) / kw["epsilon"] ** 2, rel=1e-12)
            assert 0.25 <= kw["epsilon"] * n * p["lambda"]  # β = x_max²/4 ≤ εnλ
            assert c.delta == kw["delta"]
        elif kw.get("calibration") == "certified":
            assert c.delta == kw["delta"]
