"""Planted bugs for Lowy & Razaviyayn's output perturbation (``dpsco.reference.lr21``).

Each mutant copies the real algorithm with one realistic bug and keeps the correct algorithm's claim (the
claim is now false).  **Never use these for anything but testing auditors.**

* :func:`alg1_sensitivity_without_alpha_term` — noise calibrated to Δ_F alone, dropping the 2√(2α/μ) of
  an α-accurate w_T (proof of Prop. 2.1).
  True privacy (deterministic 𝓜): pure DP with ε·‖w_T(X) − w_T(X')‖/Δ_F; Gaussian: the exact curve with shift
  ‖w_T(X) − w_T(X')‖ (``dpsco.oracles.lr21.output_perturbation``).
* :func:`alg2_printed_gaussian` — Algorithm 2's printed δ > 0 density: σ_Zhao/√2 (erratum LR21-E2).
* :func:`alg2_sensitivity_without_alpha_term` — Algorithm 2's noise calibrated to Δ_λ alone, dropping the
  2√(2α/λ) of an α-accurate w_T (Algorithm 1's bug on Algorithm 2).
* :func:`alg1_uncertified_sgd` — SGD stopped after T steps, no certificate, noise for α: SGD is
  α-accurate only in expectation, and the proof's premise ‖w_T − w*‖ ≤ √(2α/μ) fails on some index paths.
* :func:`alg1_printed_alg3_term` — Algorithm 3's printed Δ + 2α/μ (erratum LR21-E3), on Algorithm 1's inner step
  (Algorithm 3 shares it).
* :func:`alg3_printed_alpha_term` — Algorithm 3 itself with its printed line-2 sensitivity Δ + 2α/μ (LR21-E3).
* :func:`alg3_uncertified_stochastic_eg` — Algorithm 3 whose 𝓜 is stochastic extragradient (one record per step)
  stopped after T steps, *no* certificate, noise calibrated for α (an unverified saddle gap).  Its output is a
  mixture over index paths; ``dpsco.oracles.lr21.output_perturbation.laplace_mixture_epsilon_lower`` gives its exact tail ε (d = 1).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from dpsco.reference import noise
import dpsco.reference.lr21 as op
from dpsco.reference.privacy import Release
from dpsco.verification.mutants.utility import release_last_record
from dpsco.reference.problem import ERMProblem

__all__ = ["alg1_printed_alg3_term", "alg1_sensitivity_without_alpha_term", "alg1_uncertified_sgd",
           "alg2_printed_gaussian", "alg2_sensitivity_without_alpha_term", "alg3_printed_alpha_term", "alg3_uncertified_stochastic_eg", "stochastic_eg"]


def _renoise(correct: Release, sensitivity: float, epsilon: float, delta: float, rng: np.random.Generator,
             replicates: int | None, label: str, sigma: float | None = None) -> Release:
    cal = noise.calibrate(sensitivity, epsilon, delta)
    if sigma is not None:
        cal = noise.NoiseCalibration("gaussian", sensitivity, epsilon, delta, sigma, "MUTANT")
    w_T = correct.nonprivate_internals["w_T"]
    out = noise.perturb_and_project(w_T, cal, correct.parameters["R"], rng, replicates)
    return Release(output=out, replicates=replicates, claim=correct.claim, gradient_evaluations=correct.gradient_evaluations,
                   parameters={**correct.parameters, "noise_scale": cal.scale, "Delta_T": sensitivity},
                   algorithm=f"MUTANT: {label}", diagnostics=correct.diagnostics)


def alg1_sensitivity_without_alpha_term(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                                        rng: np.random.Generator, *, replicates: int | None = None,
                                        **options: Any) -> Release:
    """Algorithm 1 with the noise calibrated to Δ_F instead of Δ_F + 2√(2α/μ)."""
    correct = op.algorithm_1(X, y, problem, epsilon, delta, np.random.default_rng(0), **options)
    return _renoise(correct, correct.parameters["Delta_F"], epsilon, delta, rng, replicates,
                    "Algorithm 1 with Δ_F only (α term dropped)")


def alg1_printed_alg3_term(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                           rng: np.random.Generator, *, replicates: int | None = None, **options: Any) -> Release:
    """Algorithm 1's inner step with Algorithm 3's printed sensitivity Δ + 2α/μ (LR21-E3)."""
    correct = op.algorithm_1(X, y, problem, epsilon, delta, np.random.default_rng(0), **options)
    p = correct.parameters
    return _renoise(correct, op.sensitivity_T(p["Delta_F"], p["alpha"], p["mu"], printed="alg3"), epsilon, delta,
                    rng, replicates, "Algorithm 3's printed Δ + 2α/μ")


def alg2_printed_gaussian(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                          rng: np.random.Generator, *, replicates: int | None = None, **options: Any) -> Release:
    """Algorithm 2 with the printed δ > 0 density, σ = (c_δ + √(c_δ² + ε))Δ_T/(2ε) = σ_Zhao/√2 (LR21-E2)."""
    correct = op.algorithm_2(X, y, problem, epsilon, delta, np.random.default_rng(0), **options)
    dT = correct.parameters["Delta_T"]
    return _renoise(correct, dT, epsilon, delta, rng, replicates, "Algorithm 2 with the printed σ/√2",
                    sigma=noise.zhao_sigma(dT, epsilon, delta, printed_alg2=True))


def alg2_sensitivity_without_alpha_term(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                                        rng: np.random.Generator, *, replicates: int | None = None,
                                        **options: Any) -> Release:
    """Algorithm 2 with the noise calibrated to Δ_λ = 2(L + λR)/(λn) instead of Δ_T = Δ_λ + 2√(2α/λ) (the
    Algorithm 1 analogue: an α-accurate w_T lies within √(2α/λ) of the regularised minimiser, which the bug
    forgets).  Same density as the correct line 2 (``noise.calibrate``), at the smaller sensitivity."""
    correct = op.algorithm_2(X, y, problem, epsilon, delta, np.random.default_rng(0), **options)
    return _renoise(correct, correct.parameters["Delta_lambda"], epsilon, delta, rng, replicates,
                    "Algorithm 2 with Δ_λ only (α term dropped)")


def alg1_uncertified_sgd(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                         rng: np.random.Generator, *, mu: float, alpha: float, T: int, erm: bool = True,
                         sensitivity_mode: str = "paper") -> Release:
    """Algorithm 1 with SGD stopped after T steps and *no* certificate; noise calibrated for α."""
    correct = op.algorithm_1(X, y, problem, epsilon, delta, np.random.default_rng(0), mu=mu, alpha=alpha,
                             erm=erm, sensitivity_mode=sensitivity_mode)  # validation, parameters, claim
    Xa, ya, _ = problem.check(X, y)
    obj = op.GLMObjective(problem.loss, Xa, ya, mu, problem.radius)
    opt_rng, noise_rng = rng.spawn(2)
    w_T = op.stochastic_subgradient_method(obj, mu, T, opt_rng)  # BUG: no certificate, T from a small budget
    cal = noise.calibrate(correct.parameters["Delta_T"], epsilon, delta)
    out = noise.perturb_and_project(w_T, cal, problem.radius, noise_rng)
    return Release(output=out, claim=correct.claim, gradient_evaluations=obj.sample_gradients,
                   parameters={**correct.parameters, "T": T, "method": "sgd (uncertified)"},
                   algorithm="MUTANT: Algorithm 1 with uncertified SGD", diagnostics={"w_T": w_T})


def alg3_printed_alpha_term(X: Any, y: Any, problem: op.LinearAdversarialProblem, epsilon: float, delta: float,
                            rng: np.random.Generator, *, replicates: int | None = None, **options: Any) -> Release:
    """Algorithm 3 with the printed sensitivity Δ + 2α/μ (the δ > 0 density of line 2, used here for both δ)."""
    correct = op.algorithm_3(X, y, problem, epsilon, delta, np.random.default_rng(0), **options)
    p = correct.parameters
    return _renoise(correct, op.sensitivity_T(p["Delta_F"], p["alpha"], p["mu"], printed="alg3"), epsilon, delta,
                    rng, replicates, "Algorithm 3 with the printed Δ + 2α/μ")


def stochastic_eg(game: op.LinearAdversarialGame, T: int, eta: float, rng: np.random.Generator
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Stochastic extragradient: each step samples one record i and uses its operator (μw − y_i(x_i + v_i),
    −y_iw − γ(x_i + v_i)) for both half-steps; from (0, 0).  Accurate only in expectation / asymptotically."""
    P = game.problem
    w = np.zeros(game.d)
    V = np.zeros((game.n, game.d))
    for _ in range(int(T)):
        i = int(rng.integers(0, game.n))
        x, yi = game.X[i], game.y[i]

        def opr(w_: np.ndarray, v_: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            game.gradient_evaluations += 1
            return P.mu * w_ - yi * (x + v_), -yi * w_ - P.gamma * (x + v_)

        gw, gv = opr(w, V[i])
        wh = noise.project_ball(w - eta * gw, game.radius)
        vh = noise.project_ball(V[i] + eta * gv, P.r)
        gw, gv = opr(wh, vh)
        w = noise.project_ball(w - eta * gw, game.radius)
        V[i] = noise.project_ball(V[i] + eta * gv, P.r)
    return w, V


def alg3_uncertified_stochastic_eg(X: Any, y: Any, problem: op.LinearAdversarialProblem, epsilon: float,
                                   delta: float, rng: np.random.Generator, *, alpha: float, T: int, eta: float,
                                   sensitivity_mode: str = "paper", replicates: int | None = None) -> Release:
    """Algorithm 3 with stochastic extragradient stopped after T steps and *no* certificate; noise for α."""
    game = problem.game(X, y)
    p = op.algorithm_3_parameters(problem, game.n, game.d, epsilon, delta, alpha=alpha, T=T,
                                  sensitivity_mode=sensitivity_mode)  # type: ignore[arg-type]
    cal = noise.calibrate(p["Delta_T"], epsilon, delta)
    k = 1 if replicates is None else int(replicates)
    outs = []
    for _ in range(k):
        opt_rng, noise_rng = rng.spawn(2)
        w_T, _ = stochastic_eg(game, T, eta, opt_rng)  # BUG: no certificate
        outs.append(noise.perturb_and_project(w_T, cal, problem.R, noise_rng))
    out = outs[0] if replicates is None else np.vstack(outs)
    claim = op.algorithm_3(X, y, problem, epsilon, delta, np.random.default_rng(0), alpha=alpha,
                           sensitivity_mode=sensitivity_mode).claim  # type: ignore[arg-type]
    return Release(output=out, replicates=replicates, claim=claim, gradient_evaluations=game.gradient_evaluations,
                   parameters={**p, "method": "stochastic extragradient (uncertified)", "noise_scale": cal.scale},
                   algorithm="MUTANT: Algorithm 3 with uncertified stochastic extragradient", diagnostics={})


# ---- "reports σ, draws σ/√2" (dpsco.verification.mutants.noise_scale) ----------------------------------------
# Each calibrates σ from public inputs exactly as the algorithm does (Zhao et al.'s σ for Δ_T), reports it in the
# parameters and the claim's event, and adds σ/√2 to w_T: invisible to every check that reads σ from the release;
# caught by the measured-noise check of the entry's privacy harness (verification/papers/lr21/harness.py,
# tests/test_glm_harness.py).
from dpsco.verification.mutants.noise_scale import under_noised  # noqa: E402
algorithm_1_draws_sigma_over_sqrt2 = under_noised(op.algorithm_1)
algorithm_2_draws_sigma_over_sqrt2 = under_noised(op.algorithm_2)
tilted_erm_draws_sigma_over_sqrt2 = under_noised(op.tilted_erm)
robust_erm_from_problem_draws_sigma_over_sqrt2 = under_noised(op.robust_erm_from_problem)
algorithm_3_from_problem_draws_sigma_over_sqrt2 = under_noised(op.algorithm_3_from_problem)

__all__ += ["algorithm_1_draws_sigma_over_sqrt2", "algorithm_2_draws_sigma_over_sqrt2",
            "tilted_erm_draws_sigma_over_sqrt2", "robust_erm_from_problem_draws_sigma_over_sqrt2",
            "algorithm_3_from_problem_draws_sigma_over_sqrt2"]


__all__ += ["lr21_releases_last_record"]


def lr21_releases_last_record(X: Any, y: Any, problem: Any, epsilon: float, delta: float, rng: np.random.Generator, *,
                              algorithm: Any = None, replicates: int | None = None, **options: Any) -> Release:
    """The memorisation bug (``mutants.utility.release_last_record``: the output replaced by M·x_n/‖x_n‖) on
    ``algorithm``, any catalogue entry's run of this paper (default Algorithm 1, ``op.algorithm_1``)."""
    return release_last_record(X, y, problem, epsilon, delta, rng,
                               algorithm=op.algorithm_1 if algorithm is None else algorithm,
                               replicates=replicates, **options)
