"""Input validation of the reference algorithms and the serialisation of replicated runs.

Replicated runs (``replicates=R``) are verification records: every row satisfies the claim's (ε, δ), the R rows
together do not, so ``Release.to_json`` refuses them and ``verification_record_json`` labels them.  Bad inputs
(unknown ``average``/``fallback``, non-bool ``clip``, negative or astronomically large iteration counts, complex
data, ε or δ whose calibration would overflow) raise ValueError/TypeError naming the parameter, before any loop
starts.

Deterministic (fixed seeds) except the hypothesis properties, which check invariants that hold for every
generated input.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpsco.reference import Ball, DataBounds, ERMProblem, HingeLoss, LogisticLoss, PrivacyClaim, Release
from dpsco.reference import noise
import dpsco.reference.bftt19 as o
import dpsco.reference.lr21 as op
from dpsco.reference.privacy import to_jsonable
from dpsco.reference.validation import (DELTA_MIN, EPSILON_MAX, EPSILON_MIN, MAX_ITERATIONS, as_float_matrix,
                                  check_bool, check_calibration_budget, check_data, check_iterations)

N, D = 60, 3
DELTA = 1.0 / N**2
LOGISTIC = ERMProblem(LogisticLoss(), Ball(1.0), DataBounds(1.0, 1.0))
HINGE = ERMProblem(HingeLoss(), Ball(1.0), DataBounds(1.0, 1.0))
GAME = op.LinearAdversarialProblem(mu=1.0, r=0.1)


def _data(n: int = N, d: int = D, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-X @ np.ones(d))), 1.0, -1.0)
    return X, y


X, Y = _data()


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


# Every public algorithm of reference/, as f(X, y, epsilon, delta, **overrides) -> Release.
ALGORITHMS = {
    "noisy_sgd": lambda X, y, e=1.0, dl=DELTA, **k: o.noisy_sgd(X, y, LOGISTIC, e, dl, _rng(), **k),
    "moreau_noisy_sgd": lambda X, y, e=1.0, dl=DELTA, **k: o.moreau_noisy_sgd(X, y, HINGE, e, dl, _rng(), **k),
    "prox_noisy_sgd": lambda X, y, e=1.0, dl=DELTA, **k: o.prox_noisy_sgd(X, y, HINGE, e, dl, _rng(),
                                                                          **{"accuracy": 1.0, **k}),
    "objective_perturbation": lambda X, y, e=1.0, dl=DELTA, **k: o.objective_perturbation(X, y, LOGISTIC, e, dl,
                                                                                          _rng(), **k),
    "efficient_objective_perturbation": lambda X, y, e=1.0, dl=DELTA, **k: o.efficient_objective_perturbation(
        X, y, LOGISTIC, e, dl, _rng(), **k),
    "algorithm_1": lambda X, y, e=1.0, dl=0.0, **k: op.algorithm_1(X, y, LOGISTIC, e, dl, _rng(), mu=1.0, **k),
    "algorithm_2": lambda X, y, e=1.0, dl=0.0, **k: op.algorithm_2(X, y, LOGISTIC, e, dl, _rng(), **k),
    "tilted_erm": lambda X, y, e=1.0, dl=0.0, **k: op.tilted_erm(X, y, LOGISTIC, e, dl, _rng(), tau=1.0, mu=1.0,
                                                                 **k),
    "robust_erm": lambda X, y, e=1.0, dl=0.0, **k: op.robust_erm(X, y, "logistic", 1.0, 1.0, e, dl, _rng(),
                                                                 rho=0.1, mu=1.0, **k),
    "algorithm_3": lambda X, y, e=1.0, dl=0.0, **k: op.algorithm_3(X, y, GAME, e, dl, _rng(), **k),
}
WITH_REPLICATES = ["noisy_sgd", "moreau_noisy_sgd", "prox_noisy_sgd", "algorithm_1", "algorithm_2", "tilted_erm",
                   "robust_erm", "algorithm_3"]
WITH_T = WITH_REPLICATES
WITH_FALLBACK = ["algorithm_1", "algorithm_2", "tilted_erm", "robust_erm", "algorithm_3"]
WITH_CLIP = ["noisy_sgd", "moreau_noisy_sgd", "prox_noisy_sgd", "objective_perturbation",
             "efficient_objective_perturbation", "algorithm_1", "algorithm_2", "tilted_erm"]


# -- 2a: a replicated release is a verification record, not a release ------------------------------------------


@pytest.mark.parametrize("name", WITH_REPLICATES)
def test_replicated_release_refuses_to_serialise_as_a_release(name):
    """R independent runs under one (ε, δ) claim are not (ε, δ)-DP: to_json/to_dict refuse them, saying what to
    use instead; the record says it is replicated (``replicates``), not guessed from the output's shape."""
    r = ALGORITHMS[name](X, Y, replicates=3)
    assert r.replicates == 3 and r.is_replicated and r.output.shape == (3, D)
    for method in (r.to_json, r.to_dict, lambda: to_jsonable({"release": r})):
        with pytest.raises(ValueError, match="replicates") as exc:
            method()
        assert "not a private release" in str(exc.value) and "to_verification_record" in str(exc.value)
    single = ALGORITHMS[name](X, Y)
    assert single.replicates is None and not single.is_replicated
    assert json.loads(single.to_json())["output"] == pytest.approx(single.output.tolist())


def test_averaging_replicates_recovers_the_unperturbed_minimiser():
    """Why the refusal matters: 2,000 noisy copies of Algorithm 2's w_T average back towards w_T (i.i.d. zero-mean
    noise; only the projection onto B(0, R) biases them), far closer than a released row is: the file would
    reveal the unperturbed minimiser."""
    problem = ERMProblem(LogisticLoss(), Ball(5.0), DataBounds(1.0, 1.0))
    r = op.algorithm_2(X, Y, problem, 4.0, 0.0, _rng(), replicates=2000)
    w_T = r.nonprivate_internals["w_T"]
    typical_row = float(np.mean(np.linalg.norm(r.output - w_T, axis=1)))
    average = float(np.linalg.norm(r.output.mean(axis=0) - w_T))
    assert average < typical_row / 4  # deterministic (fixed seed): 0.60 against 3.87
    with pytest.raises(ValueError, match="replicates"):
        r.to_json()


def test_verification_record_is_labelled_not_a_private_release_with_a_per_row_claim():
    r = op.algorithm_2(X, Y, LOGISTIC, 1.0, 0.0, _rng(), replicates=4)
    rec = json.loads(r.verification_record_json(allow_nan=False))
    assert rec["not_a_private_release"] is True and "NOT a private release" in rec["record_type"]
    assert rec["replicates"] == 4 and np.array(rec["outputs"]).shape == (4, D)
    assert np.allclose(rec["outputs"], r.output)
    assert rec["per_row_claim"] == json.loads(json.dumps(r.claim.to_dict()))
    assert "claim" not in rec and "per row" in rec["claim_scope"]
    assert set(rec) == {"record_type", "not_a_private_release", "replicates", "algorithm", "outputs",
                        "per_row_claim", "claim_scope", "gradient_evaluations", "parameters"}  # no internals
    assert rec == json.loads(json.dumps(r.to_verification_record()))  # the dict form is what the JSON writes
    # a single run can be written as a one-row verification record too
    one = json.loads(op.algorithm_2(X, Y, LOGISTIC, 1.0, 0.0, _rng()).verification_record_json())
    assert one["replicates"] == 1 and np.array(one["outputs"]).shape == (1, D)


def test_verification_record_trajectories_and_diagnostics_are_explicit():
    r = o.noisy_sgd(X, Y, LOGISTIC, 1.0, DELTA, _rng(), replicates=2, return_trajectory=True)
    rec = r.to_verification_record(include_trajectory=True, include_diagnostics=True)
    assert np.array(rec["trajectories"]).shape == (2, r.parameters["T"] + 1, D)
    assert "diagnostics_not_covered_by_the_claim" in rec


def test_release_replicates_field_is_validated():
    claim = PrivacyClaim("approx-DP", 1.0, 1e-6, "replace-one", "test")
    with pytest.raises(ValueError, match="replicates"):
        Release(np.zeros((3, 2)), claim, 0, {}, "test", replicates=2)
    with pytest.raises(ValueError, match="replicates"):
        Release(np.zeros((3, 2)), claim, 0, {}, "test", replicates=0)
    with pytest.raises(TypeError, match="replicates"):
        Release(np.zeros((3, 2)), claim, 0, {}, "test", replicates="3")
    # a natural matrix output without replicates is a release: no guess from the shape
    assert json.loads(Release(np.zeros((3, 2)), claim, 0, {}, "test").to_json())["output"] == [[0.0, 0.0]] * 3


# -- 2h: unknown choices and non-bool flags ------------------------------------------------------------------


def test_average_must_be_paper_or_standard():
    with pytest.raises(ValueError, match="average"):
        o.noisy_sgd(X, Y, LOGISTIC, 1.0, DELTA, _rng(), average="bogus")
    with pytest.raises(ValueError, match="average"):
        o.nsgd_core(lambda W, idx: np.zeros(idx.shape + (2,)), 3, 2, Ball(1.0), T=2, m=2, eta=0.1, sigma2=1.0,
                    clip_norm=1.0, rng=_rng(), average="bogus")


@pytest.mark.parametrize("name", WITH_FALLBACK)
def test_unknown_fallback_is_refused_before_the_inner_method_runs(name, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("the inner optimiser ran before fallback was validated")

    for f in ("accelerated_gradient", "subgradient_method", "extragradient"):
        monkeypatch.setattr(op, f, boom)
    with pytest.raises(ValueError, match="fallback"):
        ALGORITHMS[name](X, Y, fallback="x")


def test_certified_inner_checks_fallback_first():
    obj = op.GLMObjective(LogisticLoss(), X, Y, 1.0, 1.0)
    with pytest.raises(ValueError, match="fallback"):
        op.certified_inner(obj, "agd", 1.0, 1e-3, 5, 1.25, _rng(), fallback="x")


@pytest.mark.parametrize("name", WITH_CLIP)
def test_non_bool_clip_is_refused(name):
    with pytest.raises(TypeError, match="clip"):
        ALGORITHMS[name](X, Y, clip="no")


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.text(), st.integers(), st.floats(allow_nan=True), st.none(), st.lists(st.booleans()),
                 st.just(np.float64(1.0))))
def test_any_non_bool_clip_is_refused_by_the_shared_data_check(clip):
    with pytest.raises(TypeError, match="clip"):
        LOGISTIC.check(X, Y, clip=clip)
    with pytest.raises(TypeError, match="clip"):
        check_bool(clip, "clip")


def test_bool_clip_still_works():
    assert check_bool(np.bool_(True), "clip") is True
    assert LOGISTIC.check(X, Y, clip=False)[2] == 0


# -- 2h: complex data is refused by the shared validation ---------------------------------------------------


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_complex_X_is_refused_by_every_algorithm(name):
    with pytest.raises(TypeError, match="X"):
        ALGORITHMS[name](X + 1e-3j, Y)


def test_complex_y_is_refused():
    with pytest.raises(TypeError, match="y"):
        check_data(X, Y + 0j)
    with pytest.raises(TypeError, match="y"):
        o.noisy_sgd(X, Y.astype(complex), LOGISTIC, 1.0, DELTA, _rng())


@settings(max_examples=40, deadline=None)
@given(st.lists(st.complex_numbers(allow_nan=False, allow_infinity=False, max_magnitude=1e6), min_size=1,
                max_size=12))
def test_any_complex_matrix_is_refused_even_with_zero_imaginary_part(values):
    A = np.array(values, dtype=complex).reshape(1, -1)
    with pytest.raises(TypeError, match="complex"):
        as_float_matrix(A, "X")
    with pytest.raises(TypeError, match="X"):
        as_float_matrix(A.real.astype(complex), "X")


# -- 2h: iteration counts: negative, non-integer, or above the cap -----------------------------------------------


@pytest.mark.parametrize("name", WITH_T)
def test_negative_T_is_refused(name):
    with pytest.raises(ValueError, match="T"):
        ALGORITHMS[name](X, Y, T=-5)
    with pytest.raises(TypeError, match="T"):
        ALGORITHMS[name](X, Y, T=2.5)


@pytest.mark.parametrize("name", WITH_T)
def test_T_above_the_cap_is_refused_before_any_loop(name, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("a loop started before T was checked")

    for f in ("accelerated_gradient", "subgradient_method", "extragradient"):
        monkeypatch.setattr(op, f, boom)
    monkeypatch.setattr(o, "nsgd_core", boom)
    with pytest.raises(ValueError, match=r"T = .*MAX_ITERATIONS"):
        ALGORITHMS[name](X, Y, T=10**15)


@pytest.mark.parametrize("method", ["subgradient", "agd"])
def test_algorithm_2_tiny_lam_is_refused_not_run(method, monkeypatch):
    """λ = 1e-12 (subgradient) made T ≈ 6e15 and algorithm_2 hung; now the cap refuses it, naming lam and alpha,
    before the inner method starts (for AGD T grows like 1/√λ: λ = 1e-20 gives T ≈ 2e10)."""
    def boom(*a, **k):
        raise AssertionError("the inner optimiser started")

    monkeypatch.setattr(op, "subgradient_method", boom)
    monkeypatch.setattr(op, "accelerated_gradient", boom)
    lam = 1e-12 if method == "subgradient" else 1e-20
    with pytest.raises(ValueError, match="lam") as exc:
        op.algorithm_2(X, Y, LOGISTIC, 1.0, 0.0, _rng(), lam=lam, method=method)
    assert "MAX_ITERATIONS" in str(exc.value) and "increase lam or alpha" in str(exc.value)


def test_other_computed_iteration_counts_are_capped():
    with pytest.raises(ValueError, match="mu"):  # Algorithm 1, T = ⌈2L²/(μα)⌉ with a tiny μ
        op.algorithm_1(X, Y, LOGISTIC, 1.0, 0.0, _rng(), mu=1e-9, alpha=1e-6, method="subgradient")
    with pytest.raises(ValueError, match="gamma"):  # Algorithm 3: T ∝ 1/min(μ, γ)
        op.algorithm_3(X, Y, op.LinearAdversarialProblem(mu=1.0, r=0.1, gamma=1e-20), 1.0, 0.0, _rng())
    with pytest.raises(ValueError, match="accuracy"):  # A_ProxGD: K = ⌈4G²/ξ²⌉ inner prox steps per gradient
        o.prox_noisy_sgd(X, Y, HINGE, 1.0, DELTA, _rng(), accuracy=1e-6)


def test_inner_optimisers_check_their_counts_directly():
    obj = op.GLMObjective(LogisticLoss(), X, Y, 1.0, 1.0)
    big = MAX_ITERATIONS + 1
    with pytest.raises(ValueError, match="T"):
        op.subgradient_method(obj, 1.0, big)
    with pytest.raises(ValueError, match="output"):
        op.subgradient_method(obj, 1.0, 3, output="bogus")
    with pytest.raises(ValueError, match="T"):
        op.accelerated_gradient(obj, 1.0, 1.25, big)
    with pytest.raises(ValueError, match="T"):
        op.stochastic_subgradient_method(obj, 1.0, big, _rng())
    with pytest.raises(ValueError, match="epochs"):
        op.katyusha(obj, 0.25, big, _rng())
    with pytest.raises(ValueError, match="T"):
        op.extragradient(GAME.game(X, Y), big)
    with pytest.raises(ValueError, match="max_iter"):
        op.certified_first_order(op.TiltedObjective(LogisticLoss(), X, Y, 1.0, 1.0, 1.0), 1e-3, max_iter=big)
    with pytest.raises(ValueError, match="max_stages"):
        o.efficient_objective_perturbation(X, Y, LOGISTIC, 1.0, DELTA, _rng(), max_stages=0)


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=MAX_ITERATIONS + 1, max_value=10**400))
def test_check_iterations_refuses_every_count_above_the_cap(T):
    with pytest.raises(ValueError, match="MAX_ITERATIONS"):
        check_iterations(T, "T", remedy="pass a smaller T")


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=1, max_value=MAX_ITERATIONS))
def test_check_iterations_accepts_every_count_up_to_the_cap(T):
    assert check_iterations(T, "T") == T


# -- 2h: ε and δ whose calibration would overflow or underflow ------------------------------------------------


@pytest.mark.parametrize("name", list(ALGORITHMS))
@pytest.mark.parametrize("eps", [1e-200, 5e-324, EPSILON_MIN / 2, EPSILON_MAX * 2, 1e300])
def test_epsilon_outside_the_calibration_range_is_a_clear_error(name, eps):
    """ε = 1e-200 made objective_perturbation raise ZeroDivisionError (ε² = 0); now every algorithm refuses ε
    outside [EPSILON_MIN, EPSILON_MAX] with a ValueError naming epsilon."""
    with pytest.raises(ValueError, match="epsilon"):
        ALGORITHMS[name](X, Y, e=eps)


@pytest.mark.parametrize("name", list(ALGORITHMS))
@pytest.mark.parametrize("delta", [5e-324, 1e-310, DELTA_MIN / 2])
def test_tiny_positive_delta_is_a_clear_error(name, delta):
    with pytest.raises(ValueError, match="delta"):
        ALGORITHMS[name](X, Y, dl=delta)


def test_check_calibration_budget_keeps_valid_budgets():
    assert check_calibration_budget(EPSILON_MIN, DELTA_MIN) == (EPSILON_MIN, DELTA_MIN)
    assert check_calibration_budget(EPSILON_MAX, 0.0) == (EPSILON_MAX, 0.0)
    with pytest.raises(TypeError, match="epsilon"):
        check_calibration_budget("1", 0.0)


@settings(max_examples=25, deadline=None)
@given(st.floats(min_value=math.log10(EPSILON_MIN), max_value=0.0),
       st.floats(min_value=math.log10(DELTA_MIN), max_value=math.log10(DELTA)))
def test_objective_perturbation_is_finite_on_the_whole_range(log_eps, log_delta):
    """Every ε ∈ [EPSILON_MIN, 1] and δ ∈ [DELTA_MIN, 1/n²] gives finite λ, σ² and output (no overflow)."""
    r = o.objective_perturbation(X, Y, LOGISTIC, 10.0**log_eps, 10.0**log_delta, _rng())
    assert math.isfinite(r.parameters["lambda"]) and math.isfinite(r.parameters["sigma2"])
    assert np.all(np.isfinite(r.output))


@pytest.mark.parametrize("delta", [0.0, 1e-20, DELTA_MIN])
@pytest.mark.parametrize("eps", [EPSILON_MIN, 1.0])
def test_output_perturbation_at_the_range_ends_is_finite(eps, delta):
    for r in (op.algorithm_1(X, Y, LOGISTIC, eps, delta, _rng(), mu=1.0),
              op.algorithm_2(X, Y, LOGISTIC, eps, delta, _rng())):
        assert np.all(np.isfinite(r.output)) and math.isfinite(r.parameters["noise_scale"])


def test_c_delta_is_finite_and_accurate_for_tiny_delta():
    """√(16δ + 1) − 1 cancelled to 0 for δ < 1e-17 (ZeroDivisionError in every δ > 0 calibration)."""
    import mpmath as mp
    mp.mp.dps = 800
    for delta in (1e-17, 1e-20, 1e-100, DELTA_MIN, 5e-324):
        ref = float(mp.sqrt(mp.log(2 / (mp.sqrt(16 * mp.mpf(delta) + 1) - 1))))
        assert noise.c_delta(delta) == pytest.approx(ref, rel=1e-14)
    assert math.isfinite(noise.noise_factor(3, 1.0, 1e-20))
