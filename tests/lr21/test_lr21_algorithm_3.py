"""Algorithm 3 (adversarial training, Lowy & Razaviyayn Sec. 4): certified saddle solver, privacy audits (δ = 0 and
δ > 0) beside planted-bug mutants (printed Δ + 2α/μ, LR21-E3; uncertified stochastic extragradient).

Worst-case instance (the linear game of docs/derivations.md#linear-adversarial-games, d = 1; docs/derivations.md#worst-case-instances-for-auditing-output-perturbation).  H_D(w, v) = (1/n)Σ[(μ/2)w² − y_i w(x_i + v_i)], |v_i| ≤ r = 0.05, μ = 1,
n = 10, y ≡ 1, x ≡ 1 except x_n = +1 (S) / −1 (S').  G_D(w) = w²/2 − m w + r|w|, m = mean(x): w*(S) = 0.95,
w*(S') = 0.75 (closed form, checked against the oracle).  Tight Δ = 2·y_max(x_max + r)/(μn) = 0.21 (Lemma 0.2 on
G_D).  α = 0.02: Δ_T = 0.21 + 2√0.04 = 0.61.  The adversarial α-accurate 𝓜 returns w* ± 0.99√(2α/μ) (away from
the kink at 0, where G_D is exactly quadratic, so its certified gap is 0.99²α): centres 0.596 apart.  Correct:
exactly (0.596/0.61)ε = 0.977ε-DP at δ = 0.  Printed Δ + 2α/μ = 0.25: exactly 2.384ε.

False-failure budget: audits of the correct algorithm run at confidence 1 − 1e-6 (auditor's guarantee, a valid
mechanism is refuted with probability ≤ 1e-6; the exact privacy of the pair is checked first, deterministically).
Mutant refutations use fixed seeds; exact ε of each mutant is asserted first (far above the claim).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpsco.oracles.lr21.output_perturbation import (gaussian_exact_delta, l2_laplace_epsilon, laplace_mixture_epsilon_lower,
                                         linear_game_minimizer)
from dpsco.oracles.privacy_curves import gaussian_epsilon
from dpsco.reference import noise
import dpsco.reference.lr21 as op
from dpsco.reference.certificates import UncertifiedError
from dpsco.verification.auditing.audit import audit
from dpsco.verification.mutants.lr21.bugs import alg3_printed_alpha_term, alg3_uncertified_stochastic_eg, stochastic_eg

CONF = 1 - 1e-6
N, MU, RR, ALPHA, EPS = 10, 1.0, 0.05, 0.02, 1.0
PROB = op.LinearAdversarialProblem(mu=MU, r=RR, gamma=0.0, x_max=1.0, y_max=1.0)
SAMPLES = 40_000


def data(sign: float, n: int = N) -> dict[str, np.ndarray]:
    X = np.ones((n, 1))
    X[-1, 0] = sign
    return {"X": X, "y": np.ones(n)}


def adversarial_saddle_solver(alpha: float):
    def solver(game, rng):
        w = linear_game_minimizer(game) + 0.99 * math.sqrt(2 * alpha / MU) * np.sign(game.X[-1] * game.y[-1])
        return w, game.inner_max(w)[0]
    return solver


OPTS = dict(alpha=ALPHA, method=adversarial_saddle_solver(ALPHA), sensitivity_mode="tight", fallback="refuse")


class Mech:
    def __init__(self, fn, delta, problem=PROB, **opts):
        self.fn, self.delta, self.problem, self.opts = fn, delta, problem, opts

    def __call__(self, d, rng):
        return self.fn(d["X"], d["y"], self.problem, EPS, self.delta, rng, **self.opts).output

    def sample(self, d, n, rng):
        return self.fn(d["X"], d["y"], self.problem, EPS, self.delta, rng, replicates=n, **self.opts).output


def _pair(delta, **opts):
    a = op.algorithm_3(data(+1)["X"], data(+1)["y"], PROB, EPS, delta, np.random.default_rng(0), **opts)
    b = op.algorithm_3(data(-1)["X"], data(-1)["y"], PROB, EPS, delta, np.random.default_rng(0), **opts)
    return a, b, float(abs(a.nonprivate_internals["w_T"][0] - b.nonprivate_internals["w_T"][0]))


# -- the game, its oracles and the certified saddle solver --------------------------------------------------


def test_closed_forms_and_certificate_on_the_worst_case_instance():
    gS, gS2 = PROB.game(**data(+1)), PROB.game(**data(-1))
    assert linear_game_minimizer(gS)[0] == pytest.approx(0.95, abs=1e-15)
    assert linear_game_minimizer(gS2)[0] == pytest.approx(0.75, abs=1e-15)
    # G_D(w) = w²/2 − m w + r|w| by hand at w = 0.5 (m = 1): 0.125 − 0.5 + 0.025
    assert gS.inner_max(np.array([0.5]))[1] == pytest.approx(-0.35, abs=1e-15)
    w = np.array([0.95 + 0.1])  # gap of G_D exactly 0.1²/2 (quadratic with modulus 1 away from 0)
    c = op.saddle_certificate(gS, w, gS.inner_max(w)[0])
    assert c.gap_bound == pytest.approx(0.005, rel=1e-9) and c.distance_bound == pytest.approx(0.1, rel=1e-9)


@pytest.mark.parametrize("gamma", [0.0, 0.5])
def test_extragradient_is_certified_and_agrees_with_the_oracle(gamma):
    rng = np.random.default_rng(7)
    n, d = 30, 3
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ np.array([1.0, -0.5, 0.2]) + 0.2 * rng.normal(size=n) > 0, 1.0, -1.0)
    P = op.LinearAdversarialProblem(mu=0.5, r=0.05, gamma=gamma)
    r = op.algorithm_3(X, y, P, 1.0, 1e-5, np.random.default_rng(1))
    assert r.diagnostics["inner_path"] == "extragradient (certified)"
    dist = r.diagnostics["certificate"]["distance_bound"]
    assert dist <= math.sqrt(2 * r.parameters["alpha"] / P.mu)
    w_star = linear_game_minimizer(P.game(X, y))  # closed form (γ = 0) / cvxpy (γ > 0, ~1e-7)
    assert np.linalg.norm(r.nonprivate_internals["w_T"] - w_star) <= dist + (0 if gamma == 0 else 1e-6)
    assert r.gradient_evaluations == 2 * n * r.parameters["T"]  # two operator calls per extragradient step
    assert r.parameters["Delta_T"] == pytest.approx(2 * P.L / (P.mu * n) + 2 * math.sqrt(2 * r.parameters["alpha"] / P.mu))


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="mu"):
        op.LinearAdversarialProblem(mu=0.0, r=0.1)
    with pytest.raises(ValueError, match="x_max"):
        op.algorithm_3(2 * data(+1)["X"], data(+1)["y"], PROB, 1.0, 0.0, np.random.default_rng(0))
    with pytest.raises(TypeError, match="problem"):
        op.algorithm_3(data(+1)["X"], data(+1)["y"], "P", 1.0, 0.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="method"):
        op.algorithm_3(data(+1)["X"], data(+1)["y"], PROB, 1.0, 0.0, np.random.default_rng(0), method="apa")


# -- privacy: exact values on the worst-case pair, audits, mutants ------------------------------------------


def test_exact_privacy_of_algorithm_3_and_of_the_printed_term():
    a, _, shift = _pair(0.0, **OPTS)
    p = a.parameters
    assert p["Delta_F"] == pytest.approx(0.21, rel=1e-14) and p["Delta_T"] == pytest.approx(0.61, rel=1e-14)
    assert shift == pytest.approx(0.596, rel=1e-12)
    assert "certified" in a.diagnostics["inner_path"]  # fallback="refuse" did not raise: 𝓜 is α-accurate
    assert l2_laplace_epsilon(shift, p["noise_scale"]) == pytest.approx(0.977, abs=1e-3)  # ≤ ε, tight
    printed = op.sensitivity_T(p["Delta_F"], ALPHA, MU, printed="alg3")
    assert printed == pytest.approx(0.25, rel=1e-14)
    assert l2_laplace_epsilon(shift, printed / EPS) == pytest.approx(2.384, abs=1e-3)  # LR21-E3 mutant, δ = 0
    a, _, shift = _pair(1e-3, **OPTS)  # δ > 0: exact Gaussian curve (Balle & Wang)
    assert gaussian_exact_delta(EPS, shift, a.parameters["noise_scale"]) <= 1e-3
    assert gaussian_epsilon(1e-3, shift, noise.zhao_sigma(printed, EPS, 1e-3)) == pytest.approx(1.984, abs=1e-3)  # printed: not (1, 1e-3)-DP


@pytest.mark.parametrize("delta", [0.0, 1e-3])
def test_audit_does_not_refute_algorithm_3(delta):
    # false-failure probability ≤ 1e-6 (auditor's guarantee; privacy of the pair checked exactly above)
    res = audit(Mech(op.algorithm_3, delta, **OPTS), data(+1), data(-1), (EPS, delta), SAMPLES,
                np.random.default_rng(np.random.SeedSequence(5101 + int(delta > 0))), confidence=CONF)
    assert res.verdict == "not refuted", res.summary()


@pytest.mark.parametrize("delta", [0.0, 1e-3])
def test_audit_refutes_algorithm_3_printed_alpha_term(delta):
    # exact ε of the mutant: 2.38 (δ = 0), 1.98 at δ = 1e-3 (test above); fixed seeds
    res = audit(Mech(alg3_printed_alpha_term, delta, **OPTS), data(+1), data(-1), (EPS, delta), SAMPLES,
                np.random.default_rng(np.random.SeedSequence(5201 + int(delta > 0))), confidence=CONF)
    assert res.verdict == "refuted", res.summary()


# -- uncertified early stop (saddle gap not verified) ------------------------------------------------------------
NB, ALPHA_SEG, ETA = 100, 1e-6, 0.5


def _seg_centres(sign: float) -> list[float]:
    """w_1 of one stochastic-extragradient step for each of the n index paths (all equally likely)."""
    game = PROB.game(**data(sign, NB))

    class Fixed:
        def __init__(self, i):
            self.i = i

        def integers(self, lo, hi):
            return self.i

    return [float(stochastic_eg(game, 1, ETA, Fixed(i))[0][0]) for i in range(NB)]


def test_uncertified_stochastic_eg_is_not_private_and_the_gate_catches_it():
    """One SEG step from 0 with η = 1/(2μ): w_1 = η y_i x_i(1 − ημ) = x_i/4, so the path through the differing
    record moves w_1 by 1/2 between S and S' — vs Δ_T = 2.1/(μn) + 2√(2α/μ) = 0.0238 (n = 100, α = 1e-6).
    Exact mixture (all 100 index paths, Laplace tails): ε ≥ log(0.99 + 0.01·e^{0.5/0.0238}) = 16.4 > 1."""
    cS, cS2 = _seg_centres(+1), _seg_centres(-1)
    assert cS == [0.25] * NB and cS2 == [0.25] * (NB - 1) + [-0.25]
    p = op.algorithm_3_parameters(PROB, NB, 1, EPS, 0.0, alpha=ALPHA_SEG, T=1, sensitivity_mode="tight")
    assert p["Delta_T"] == pytest.approx(0.021 + 2 * math.sqrt(2e-6), rel=1e-12)
    eps_mix = laplace_mixture_epsilon_lower(cS, cS2, p["Delta_T"] / EPS)
    assert eps_mix == pytest.approx(math.log(0.99 + 0.01 * math.exp(0.5 / p["Delta_T"])), rel=1e-9)
    assert eps_mix > 16
    # the correct Algorithm 3 with the same 𝓜 does not release it uncertified
    seg = lambda game, rng: stochastic_eg(game, 1, ETA, rng)  # noqa: E731
    d = data(-1, NB)
    r = op.algorithm_3(d["X"], d["y"], PROB, EPS, 0.0, np.random.default_rng(3), method=seg, alpha=ALPHA_SEG,
                       sensitivity_mode="tight")
    assert r.diagnostics["inner_path"].startswith("certified minimisation of G_D")
    assert abs(r.nonprivate_internals["w_T"][0] - 0.93) <= math.sqrt(2 * ALPHA_SEG / MU)  # w* = mean(x) − r = 0.98 − 0.05
    with pytest.raises(UncertifiedError):
        op.algorithm_3(d["X"], d["y"], PROB, EPS, 0.0, np.random.default_rng(3), method=seg, alpha=ALPHA_SEG,
                       sensitivity_mode="tight", fallback="refuse")


def test_audit_refutes_uncertified_stochastic_eg():
    # exact ε ≥ 16.4 (test above).  Lower-tail event: probability ≈ 0.0097 under S', ≈ 2e-7 under S.
    mech = Mech(alg3_uncertified_stochastic_eg, 0.0, alpha=ALPHA_SEG, T=1, eta=ETA, sensitivity_mode="tight")
    res = audit(mech, data(-1, NB), data(+1, NB), (EPS, 0.0), 20_000,
                np.random.default_rng(np.random.SeedSequence(5301)), confidence=CONF)
    assert res.verdict == "refuted", res.summary()


@pytest.mark.parametrize("seed", range(5))
def test_inner_max_is_exact_for_labels_of_any_magnitude(seed):
    # γ = 0: max over ‖v_i‖ ≤ r of −y_i⟨w, v_i⟩ is r|y_i|‖w‖ (Cauchy–Schwarz, attained at v_i = −r sign(y_i) w/‖w‖),
    # so G_D(w) = (μ/2)‖w‖² − (1/n)Σ y_i⟨w, x_i⟩ + r·mean|y_i|·‖w‖ by hand.  Labels with |y_i| ≠ 1 once gave
    # v_i = −r y_i w/‖w‖ (outside the ball for |y_i| > 1, short of the max for |y_i| < 1), so the certificate
    # of Algorithm 3 rested on a wrong G_D.  Deterministic.
    rng = np.random.default_rng(seed)
    n, d = 12, 3
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = rng.uniform(-1.0, 1.0, size=n)
    P = op.LinearAdversarialProblem(mu=0.5, r=0.3, gamma=0.0)
    game = P.game(X, y)
    w = rng.normal(size=d)
    V, value, _ = game.inner_max(w)
    by_hand = 0.5 * P.mu * (w @ w) - np.mean(y * (X @ w)) + P.r * np.mean(np.abs(y)) * np.linalg.norm(w)
    assert value == pytest.approx(by_hand, rel=1e-12)
    assert np.all(np.linalg.norm(V, axis=1) <= P.r * (1 + 1e-12))  # feasible
    for _ in range(200):  # no feasible V does better
        U = rng.normal(size=(n, d))
        U *= P.r * rng.uniform(size=(n, 1)) / np.linalg.norm(U, axis=1, keepdims=True)
        assert game.value(w, U) <= value + 1e-12
