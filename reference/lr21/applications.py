"""Lowy & Razaviyayn's Sec. 4 applications, line by line: tilted ERM (Algorithm 1 on F_τ, Props 4.1/4.2), the
ℓ2-robust logistic / least-squares models (Algorithm 3 with the exact inner maximisation) and Algorithm 3 itself
(adversarial training of the linear games), with their public parameter functions and the catalogue's calling
convention for the last two (``robust_erm_from_problem``, ``algorithm_3_from_problem``: the declared bounds and
R read from an ``ERMProblem``).  The shared steps (checks, claim, line 2) are in :mod:`dpsco.reference.lr21.release`.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Literal

import numpy as np

from dpsco.reference.certificates import UncertifiedError
from dpsco.reference.lr21.extragradient import extragradient, extragradient_iterations, extragradient_schedule_count
from dpsco.reference.lr21.inner_solvers import FALLBACKS, Fallback, certified_inner, inner_schedule_count
from dpsco.reference.lr21.objectives import (LinearAdversarialProblem, RobustObjective, TiltedObjective,
                                             adversarial_objective, robust_constants, saddle_certificate,
                                             tilted_constants)
from dpsco.reference.lr21.release import PAPER, check_inputs, data_clipping, output_claim, release_noise
from dpsco.reference.lr21.theorems import (SensitivityMode, agd_iterations, lemma_0_5_sensitivity,
                                           proposition_4_1_alpha, sensitivity_T, subgradient_iterations)
from dpsco.reference.noise import calibrate, noise_factor, project_ball
from dpsco.reference.privacy import Release
from dpsco.reference.problem import ERMProblem
from dpsco.reference.solvers import certified_first_order, strictly_inside
from dpsco.reference.validation import (as_float_vector, check_bool, check_calibration_budget, check_choice,
                                        check_iterations, check_positive, check_positive_int, check_rng)

__all__ = ["tilted_erm_parameters", "tilted_erm", "robust_erm_parameters", "robust_erm", "algorithm_3_parameters",
           "algorithm_3", "robust_erm_from_problem", "algorithm_3_from_problem"]


def tilted_erm_parameters(problem: ERMProblem, n: int, d: int, epsilon: float, delta: float, *, tau: float,
                          mu: float, method: Any = "agd", alpha: float | None = None, T: int | None = None,
                          sensitivity_mode: SensitivityMode = "paper") -> dict[str, Any]:
    """Public parameters of :func:`tilted_erm` (Props 4.1/4.2), before the data is read: the constants of
    :func:`tilted_constants` (L = L_ℓ + μR, C_τ, β_τ, ...), α (default Prop. 4.2's (L²/(μn²))min{κ_τs², C_τ²}
    for "agd", Prop. 4.1's corrected α otherwise, LR21-E6), T (the rigorous AGD / subgradient count; 0 for a
    callable), Δ_F = Lemma 0.5's Δ_{F_τ} (tight: with L_ℓ) and Δ_T = Δ_F + 2√(2α/μ).  Raises ValueError naming
    the parameter (e.g. method="agd" with a non-smooth loss, T above MAX_ITERATIONS)."""
    c = tilted_constants(problem, tau, mu, sensitivity_mode=sensitivity_mode)
    s = noise_factor(d, epsilon, delta)
    L, m_, C = c["L"], c["mu"], c["C_tau"]
    beta_tau = c["beta_tau"]
    if method == "agd" and beta_tau is None:
        raise ValueError("method='agd' needs a smooth loss")
    if alpha is None:
        if method == "agd":
            alpha = L * L / (m_ * n * n) * min(beta_tau / m_ * s * s, C * C)  # Prop. 4.2's proof
        else:
            alpha = proposition_4_1_alpha(L, m_, n, d, epsilon, delta, C)  # Prop. 4.1 (corrected for δ = 0, LR21-E6)
    alpha = check_positive(alpha, "alpha")
    if T is None:
        T = (agd_iterations(m_, beta_tau, c["R"], alpha) if method == "agd"
             else subgradient_iterations(L, m_, alpha) if method == "subgradient" else 0)
        T = check_iterations(T, "T", allow_zero=True, remedy=f"T is computed from mu = {m_:g}, tau = {c['tau']:g} and "
                             f"alpha = {alpha:g}: increase mu or alpha, or pass a smaller T")
    else:
        T = check_iterations(T, "T", allow_zero=True, remedy="pass a smaller T")
    delta_F = (lemma_0_5_sensitivity(L, m_, n, C) if sensitivity_mode == "paper"
               else lemma_0_5_sensitivity(c["L_loss"], m_, n, C, tight=True))
    return {**c, "alpha": alpha, "T": int(T), "Delta_F": delta_F, "Delta_T": sensitivity_T(delta_F, alpha, m_),
            "sensitivity_mode": sensitivity_mode, "beta": beta_tau}


def tilted_erm(
    X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator, *,
    tau: float, mu: float, method: Literal["agd", "subgradient"] | Callable[..., np.ndarray] = "agd",
    alpha: float | None = None, T: int | None = None, sensitivity_mode: SensitivityMode = "paper",
    gaussian: Literal["zhao", "analytic"] = "zhao", fallback: Fallback = "certified_solver", clip: bool = False,
    replicates: int | None = None,
) -> Release:
    """Private tilted ERM: Algorithm 1 on F_τ with Δ_{F_τ} of Lemma 0.5 (Props 4.1 and 4.2, Sec. 4).

    Line 1: 𝓜 on F_τ(w) = (1/τ)log((1/n)Σe^{τℓ(w, z_i)}) + (μ/2)‖w‖² over B(0, R), certified α-accurate
    (:func:`strong_convexity_certificate`).  Line 2: Δ_T = Δ_{F_τ} + 2√(2α/μ) (proof of Prop. 2.1; Props 4.1/4.2
    replace Alg. 1's Δ_F by Lemma 0.5's Δ_{F_τ}), noise of Algorithm 1 (L2-Laplace / Zhao's Gaussian),
    w_A = Π_{B(0,R)}(w_T + ẑ).  F_τ is not of ERM form (not an average of per-sample losses): the 1/n in
    Δ_{F_τ} comes from Lemma 0.5.

    Parameters
    ----------
    X : (n, d); y : (n,); problem : ERMProblem with a logistic or squared loss (declared bounds give C_τ).
    epsilon, delta, rng : as :func:`algorithm_1`.
    tau : τ > 0, the tilt (public).  mu : μ > 0, the ridge modulus (public).
    method : "agd" (Prop. 4.2, β_τ of Lemma 4.2), "subgradient" (Prop. 4.1) or a callable ``(obj, rng) -> w``.
    alpha : default Prop. 4.2's α = (L²/(μn²))min{κ_τs², C_τ²} (agd) or Prop. 4.1's corrected α (LR21-E6).
    T : default the rigorous AGD / subgradient count.  sensitivity_mode : "paper" | "tight" (see
        :func:`tilted_constants`).  fallback, gaussian, clip, replicates : as :func:`algorithm_1`.

    Returns
    -------
    Release with output (d,) or (replicates, d), claim "Prop. 4.1/4.2 (Alg. 1 with Lemma 0.5)" (its event as
    :func:`algorithm_1`'s).

    Raises
    ------
    ValueError / TypeError on bad inputs, as :func:`algorithm_1` (``T`` above
    ``dpsco.reference.validation.MAX_ITERATIONS`` included); UncertifiedError (``fallback="refuse"``).
    """
    Xa, ya, n_clipped, eps, dl, rng = check_inputs(problem, X, y, epsilon, delta, rng, clip)
    check_choice(fallback, "fallback", FALLBACKS)
    if replicates is not None:
        check_positive_int(replicates, "replicates")  # before the inner optimiser runs
    if replicates is not None and not (method in ("agd", "subgradient") or callable(method)):
        raise ValueError("replicates needs a deterministic method")
    if not (callable(method) or method in ("agd", "subgradient")):
        raise ValueError(f"method must be 'agd', 'subgradient' or a callable, got {method!r}")
    n, d = Xa.shape
    p = tilted_erm_parameters(problem, n, d, eps, dl, tau=tau, mu=mu, method=method, alpha=alpha, T=T,
                              sensitivity_mode=sensitivity_mode)
    m_, beta_tau, alpha = p["mu"], p["beta_tau"], p["alpha"]
    cal = calibrate(p["Delta_T"], eps, dl, gaussian=gaussian)  # line 2's density, public inputs only
    opt_rng, noise_rng = rng.spawn(2)
    obj = TiltedObjective(problem.loss, Xa, ya, p["tau"], m_, p["R"])
    inner = certified_inner(obj, method, m_, alpha, p["T"], beta_tau, opt_rng, fallback=fallback)  # line 1
    out = release_noise(inner.w, cal, p["R"], noise_rng, replicates)  # line 2
    assumptions = {**problem.assumptions(), **p, "noise": cal.to_dict(),
                   "data_clipping": data_clipping(clip)}
    claim = output_claim(eps, dl, f"{PAPER}, Propositions 4.1/4.2 (Algorithm 1 on F_τ with Lemma 0.5's Δ_Fτ)",
                   assumptions, alpha, m_, cal)
    return Release(output=out, claim=claim, gradient_evaluations=inner_schedule_count(method, p["T"], n),
                   parameters={**p, "method": method if isinstance(method, str) else "callable",
                               "noise_scale": cal.scale, "mechanism": cal.mechanism},
                   algorithm="Tilted ERM via Algorithm 1 (Lowy & Razaviyayn 2021, Sec. 4)",
                   diagnostics={"certificate": inner.certificate.to_dict(), "inner_path": inner.path,
                                "rows_clipped": n_clipped, **inner.details},
                   nonprivate_internals={"w_T": inner.w.copy(),
                                         "gradient_evaluations_performed": inner.gradient_evaluations},
                   replicates=replicates)


def robust_erm_parameters(kind: Literal["logistic", "squared"], x_max: float, y_max: float, n: int, d: int,
                          epsilon: float, delta: float, *, rho: float, mu: float, radius: float | None = None,
                          method: Any = "subgradient", alpha: float | None = None, T: int | None = None,
                          sensitivity_mode: SensitivityMode = "paper") -> dict[str, Any]:
    """Public parameters of :func:`robust_erm`, before the data is read: the constants of
    :func:`robust_constants` (L = L_ℓ + μR on B(0, R)), α (default (L²/(μn))min{1/n, s}, Thm 0.2/3.1's ERM
    choice), β (the data term's smoothness away from its kinks, + μ), T (subgradient / AGD count; 0 for a
    callable), Δ_F = 2L/(μn) (paper) or 2L_ℓ/(μn) (tight) and Δ_T = Δ_F + 2√(2α/μ) (LR21-E3).  Raises ValueError
    naming the parameter (``method``, ``sensitivity_mode``, T above MAX_ITERATIONS, ...)."""
    if not (callable(method) or method in ("agd", "subgradient")):
        raise ValueError(f"method must be 'subgradient', 'agd' or a callable, got {method!r}")
    c = robust_constants(kind, x_max, y_max, rho, mu, radius)
    L, m_, R = c["L"], c["mu"], c["R"]
    s = noise_factor(d, epsilon, delta)
    if alpha is None:
        alpha = L * L / (m_ * n) * min(1.0 / n, s)
    alpha = check_positive(alpha, "alpha")
    xm = float(x_max)
    beta = (0.25 * xm * xm if kind == "logistic" else (xm + c["rho"]) ** 2) + m_  # data term away from kinks
    if T is None:
        T = subgradient_iterations(L, m_, alpha) if method == "subgradient" else (
            agd_iterations(m_, beta, R, alpha) if method == "agd" else 0)
        T = check_iterations(T, "T", allow_zero=True, remedy=f"T is computed from mu = {m_:g} and alpha = {alpha:g}: "
                             "increase mu or alpha, or pass a smaller T")
    else:
        T = check_iterations(T, "T", allow_zero=True, remedy="pass a smaller T")
    if sensitivity_mode not in ("paper", "tight"):
        raise ValueError(f"sensitivity_mode must be 'paper' or 'tight', got {sensitivity_mode!r}")
    delta_F = 2.0 * (L if sensitivity_mode == "paper" else c["L_loss"]) / (m_ * n)
    return {**c, "kind": kind, "alpha": alpha, "T": int(T), "Delta_F": delta_F,
            "Delta_T": sensitivity_T(delta_F, alpha, m_), "sensitivity_mode": sensitivity_mode, "beta": beta}


def robust_erm(
    X: Any, y: Any, kind: Literal["logistic", "squared"], x_max: float, y_max: float, epsilon: float, delta: float,
    rng: np.random.Generator, *, rho: float, mu: float, radius: float | None = None,
    method: Literal["subgradient", "agd"] | Callable[..., np.ndarray] = "subgradient", alpha: float | None = None,
    T: int | None = None, sensitivity_mode: SensitivityMode = "paper", gaussian: Literal["zhao", "analytic"] = "zhao",
    fallback: Fallback = "certified_solver", replicates: int | None = None,
) -> Release:
    """Private ℓ2-robust logistic / least-squares model: Algorithm 3 with the exact inner maximisation.

    With S = B(0, ρ) the inner max of Problem (2) is closed form (:class:`RobustObjective`), so line 1 of
    Algorithm 3 is a certified α-minimiser of G_D = max_v H_D(·, v) (privacy needs only
    G_D(w_T) − min G_D ≤ α, certified; concavity in v — Assumption 2, which fails here — is not needed:
    docs/derivations.md#privacy-of-algorithm-3-needs-only-a-certified-gap).
    Line 2: Δ = 2L/(μn) (ERM form, paper mode, L = L_ℓ + μR) or 2L_ℓ/(μn) (tight: Lemma 0.2 with the ridge
    cancelling, docs/derivations.md#tight-sensitivities-the-regulariser-cancels), Δ_T = Δ + 2√(2α/μ) (NOT the
    printed δ > 0 Δ + 2α/μ, LR21-E3), w_A = Π_{B(0,R)}(w_T + ẑ).

    Parameters
    ----------
    X : (n, d); y : (n,) labels in {±1} (logistic) or |y| ≤ y_max (squared).
    kind : "logistic" | "squared".  x_max, y_max : declared public bounds (checked; ValueError if violated).
    rho : ρ ≥ 0, the adversary's ℓ2 budget.  mu : μ > 0.  radius : R (default :func:`robust_constants`).
    method : "subgradient" (Thm 0.2/2.1 route; G_D is Lipschitz, not smooth), "agd" (utility heuristic on the
        non-smooth G_D with the smoothness of the data term away from 0; certified anyway) or a callable.
    alpha : default (L²/(μn))min{1/n, s} (Thm 0.2/3.1's ERM choice).  Others as :func:`algorithm_1`.

    Returns Release (claim: Alg. 3 / Prop. 2.1 applied to G_D; its event as :func:`algorithm_1`'s).  Raises ValueError/TypeError on bad inputs, as
    :func:`algorithm_1` (unknown ``fallback``, complex data, ``epsilon``/``delta`` outside the calibration range,
    ``T`` above ``dpsco.reference.validation.MAX_ITERATIONS``, ...), UncertifiedError.
    """
    (eps, dl), rng = check_calibration_budget(epsilon, delta), check_rng(rng)
    if not dl < 0.5:
        raise ValueError(f"delta must lie in [0, 1/2), got {dl}")
    check_choice(fallback, "fallback", FALLBACKS)
    if replicates is not None:
        check_positive_int(replicates, "replicates")  # before the inner optimiser runs
    c = robust_constants(kind, x_max, y_max, rho, mu, radius)
    Xa, ya = _check_declared(X, y, c, x_max, y_max, binary=(kind == "logistic"))
    n, d = Xa.shape
    if replicates is not None and not (method in ("agd", "subgradient") or callable(method)):
        raise ValueError("replicates needs a deterministic method")
    p = robust_erm_parameters(kind, x_max, y_max, n, d, eps, dl, rho=rho, mu=mu, radius=radius, method=method,
                              alpha=alpha, T=T, sensitivity_mode=sensitivity_mode)
    m_, R, alpha, beta, xm = p["mu"], p["R"], p["alpha"], p["beta"], float(x_max)
    cal = calibrate(p["Delta_T"], eps, dl, gaussian=gaussian)
    opt_rng, noise_rng = rng.spawn(2)
    obj = RobustObjective(kind, Xa, ya, c["rho"], m_, R)
    inner = certified_inner(obj, method, m_, alpha, p["T"], beta if method == "agd" else None, opt_rng,
                            fallback=fallback)
    out = release_noise(inner.w, cal, R, noise_rng, replicates)
    assumptions = {**p, "x_max": xm, "y_max": float(y_max), "perturbation_set": f"B(0, {c['rho']})",
                   "noise": cal.to_dict()}
    claim = output_claim(eps, dl, f"{PAPER}, Algorithm 3 with exact inner maximisation (Prop. 2.1 applied to G_D; "
                   "noise Δ + 2√(2α/μ), ERRATA LR21-E3)", assumptions, alpha, m_, cal)
    return Release(output=out, claim=claim, gradient_evaluations=inner_schedule_count(method, p["T"], n),
                   parameters={**p, "method": method if isinstance(method, str) else "callable",
                               "noise_scale": cal.scale, "mechanism": cal.mechanism},
                   algorithm=f"Robust {kind} model via Algorithm 3 (Lowy & Razaviyayn 2021, Sec. 4)",
                   diagnostics={"certificate": inner.certificate.to_dict(), "inner_path": inner.path,
                                **inner.details},
                   nonprivate_internals={"w_T": inner.w.copy(),
                                         "gradient_evaluations_performed": inner.gradient_evaluations},
                   replicates=replicates)


def _check_declared(X: Any, y: Any, c: dict[str, float], x_max: float, y_max: float, *, binary: bool
                    ) -> tuple[np.ndarray, np.ndarray]:
    from dpsco.reference.validation import check_data

    Xa, ya = check_data(X, y)
    tol = 1.0 + 1e-12
    if np.any(np.linalg.norm(Xa, axis=1) > float(x_max) * tol):
        raise ValueError(f"X violates the declared bound ‖x‖ ≤ x_max = {x_max}")
    if binary:
        if not np.all(np.isin(ya, (-1.0, 1.0))):
            raise ValueError("y must take values in {-1, +1} for the robust logistic model")
    elif np.any(np.abs(ya) > float(y_max) * tol):
        raise ValueError(f"y violates the declared bound |y| ≤ y_max = {y_max}")
    return Xa, ya


def algorithm_3_parameters(problem: LinearAdversarialProblem, n: int, d: int, epsilon: float, delta: float, *,
                           alpha: float | None, T: int | None, sensitivity_mode: SensitivityMode, erm: bool = True
                           ) -> dict[str, Any]:
    """Public parameters of Algorithm 3.  α default: Thm 4.1 (ERM: (L²/(μn²))min{κs², 1}; non-ERM without 1/n²),
    κ = β/μ = 1 (H(·, V) is μ-smooth).  Δ = 2L/(μn) (paper, ERM) or 2L_data/(μn) (tight: Lemma 0.2 on G_D, the
    ridge cancels); non-ERM: without 1/n.  Δ_T = Δ + 2√(2α/μ) (line 2 corrected, LR21-E3)."""
    if sensitivity_mode not in ("paper", "tight"):
        raise ValueError(f"sensitivity_mode must be 'paper' or 'tight', got {sensitivity_mode!r}")
    erm = check_bool(erm, "erm")
    mu, L = problem.mu, problem.L
    s = noise_factor(d, epsilon, delta)
    kappa = 1.0
    if alpha is None:
        alpha = L * L / mu * min(kappa * s * s, 1.0) / (n * n if erm else 1.0)
    alpha = check_positive(alpha, "alpha")
    if T is None:
        T = check_iterations(extragradient_iterations(problem, alpha), "T", remedy=f"T is computed from alpha = {alpha:g}, "
                             f"mu = {mu:g} and gamma = {problem.gamma:g}: increase alpha, or pass a smaller T")
    else:
        T = check_iterations(T, "T", allow_zero=True, remedy="pass a smaller T")
    delta_F = 2.0 * (L if sensitivity_mode == "paper" else problem.L_data) / (mu * (n if erm else 1))
    return {**problem.to_dict(), "alpha": alpha, "T": int(T), "erm": erm, "Delta_F": delta_F,
            "Delta_T": sensitivity_T(delta_F, alpha, mu), "sensitivity_mode": sensitivity_mode, "kappa": kappa}


def algorithm_3(
    X: Any, y: Any, problem: LinearAdversarialProblem, epsilon: float, delta: float, rng: np.random.Generator, *,
    method: Literal["extragradient"] | Callable[..., tuple[np.ndarray, np.ndarray]] = "extragradient",
    alpha: float | None = None, T: int | None = None, sensitivity_mode: SensitivityMode = "paper", erm: bool = True,
    gaussian: Literal["zhao", "analytic"] = "zhao", fallback: Fallback = "certified_solver",
    replicates: int | None = None,
) -> Release:
    """Algorithm 3: black-box output perturbation for DP adversarial training (Lowy & Razaviyayn, Sec. 4).

    Line 1: 𝓜 returns (w_T, V_T); the privacy proof needs G_D(w_T) − min G_D ≤ α on every run, certified by
    :func:`saddle_certificate` (duality gap of Def. 4, or G_D's strong-convexity gap); accept iff
    ‖w_T − w*(D)‖ ≤ √(2α/μ), else minimise G_D with the certified first-order solver (``fallback=
    "certified_solver"``) or raise UncertifiedError (``"refuse"``).  𝓜 = extragradient (a simple certified
    replacement for the paper's Minimax-AIPP/APPA, whose constants are not given) or a callable ``(game, rng) -> (w, V)``.
    Line 2: Δ = 2L/(μn) (ERM; 2L/μ non-ERM); Δ_T = Δ + 2√(2α/μ) for both δ = 0 and δ > 0 — the printed δ > 0
    density's Δ + 2α/μ under-noises when α/μ < 2 (ERRATA LR21-E3; ``sensitivity_T(..., printed="alg3")``); the
    noise is Algorithm 1's (L2-Laplace; Zhao's Gaussian); w_A = Π_{B(0,R)}(w_T + ẑ).  Line 3: return w_A.

    Parameters
    ----------
    X : (n, d); y : (n,) — checked against the declared bounds of ``problem``.
    problem : LinearAdversarialProblem (μ, S = B(0, r), γ, bounds, R).
    epsilon, delta, rng : as :func:`algorithm_1`.  alpha, T : default Thm 4.1's α and the extragradient count.
    sensitivity_mode : "paper" | "tight" (:func:`algorithm_3_parameters`).  erm : ERM-form Δ (default).
    replicates : independent noisy outputs of one certified w_T (deterministic 𝓜 only), for auditors.

    Returns
    -------
    Release: output (d,) or (replicates, d), claim ("same arguments" as Prop. 2.1, Sec. 4; its event as
    :func:`algorithm_1`'s), diagnostics with
    the certificate and V_T.

    Raises
    ------
    ValueError / TypeError on bad inputs, as :func:`algorithm_1` (unknown ``fallback``, complex data,
    ``epsilon``/``delta`` outside the calibration range, ``T`` above ``dpsco.reference.validation.MAX_ITERATIONS``);
    UncertifiedError (``fallback="refuse"``).
    """
    if not isinstance(problem, LinearAdversarialProblem):
        raise TypeError(f"problem must be a LinearAdversarialProblem, got {type(problem).__name__}")
    (eps, dl), rng = check_calibration_budget(epsilon, delta), check_rng(rng)
    if not dl < 0.5:
        raise ValueError(f"delta must lie in [0, 1/2), got {dl}")
    check_choice(fallback, "fallback", FALLBACKS)
    if replicates is not None:
        check_positive_int(replicates, "replicates")  # before the inner optimiser runs
    if not (callable(method) or method == "extragradient"):
        raise ValueError(f"method must be 'extragradient' or a callable, got {method!r}")
    game = problem.game(X, y)
    n, d = game.n, game.d
    p = algorithm_3_parameters(problem, n, d, eps, dl, alpha=alpha, T=T, sensitivity_mode=sensitivity_mode, erm=erm)
    cal = calibrate(p["Delta_T"], eps, dl, gaussian=gaussian)  # line 2's density from public inputs only
    opt_rng, noise_rng = rng.spawn(2)
    mu, R, a = problem.mu, problem.R, p["alpha"]
    radius_needed = math.sqrt(2.0 * a / mu)
    # line 1: run 𝓜 for T iterations to obtain an α-saddle point, then certify it
    if callable(method):
        res = method(game, opt_rng)
        w_T = as_float_vector(res[0], "optimizer output w", d)
        V_T = np.asarray(res[1], dtype=float).reshape(n, d)
    else:
        w_T, V_T = extragradient(game, p["T"])
    if not (np.all(np.isfinite(w_T)) and np.all(np.isfinite(V_T))):  # fail-safe: a data-independent start point
        w_T, V_T = np.zeros(d), np.zeros((n, d))
    w_T = strictly_inside(project_ball(w_T, R), R)
    cert = saddle_certificate(game, w_T, V_T)
    path = f"{method if isinstance(method, str) else 'user saddle solver'} (certified)"
    details: dict[str, Any] = {"certified": True}
    if not (cert.distance_bound is not None and cert.distance_bound <= radius_needed):
        if fallback == "refuse":
            raise UncertifiedError(f"the saddle solver's w_T is not certified: distance bound {cert.distance_bound!r}"
                                   f" > √(2α/μ) = {radius_needed!r}; refusing to release", certificate=cert, w=w_T)
        details["first_certificate_distance"] = cert.distance_bound
        path = "certified minimisation of G_D (saddle solver's output was not certified)"
        try:
            w_T, cert = certified_first_order(adversarial_objective(game), 0.5 * radius_needed)
            V_T = game.inner_max(w_T)[0]
        except (UncertifiedError, ArithmeticError, np.linalg.LinAlgError, ValueError) as exc:
            # fail-safe (never raise after the data checks): keep the saddle solver's point, marked uncertified
            details["certified"], details["solver_note"] = False, f"{type(exc).__name__}: {exc}"
    out = release_noise(w_T, cal, R, noise_rng, replicates)  # line 2: Π_{B(0,R)}(w_T + ẑ)
    claim = output_claim(eps, dl, f"{PAPER}, Algorithm 3 (privacy by the arguments of Prop. 2.1 applied to G_D; noise "
                   "Δ + 2√(2α/μ), ERRATA LR21-E3)" + ("; Theorem 0.1 (Zhao et al. 2019)" if dl > 0 and gaussian == "zhao"
                                                    else ""),
                   {**p, "noise": cal.to_dict(), "perturbation_set": f"B(0, {problem.r})"}, a, mu, cal)
    return Release(output=out, claim=claim, gradient_evaluations=extragradient_schedule_count(method, p["T"], n),
                   parameters={**p, "method": method if isinstance(method, str) else "callable",
                               "noise_scale": cal.scale, "mechanism": cal.mechanism},
                   algorithm="Algorithm 3 (Lowy & Razaviyayn 2021)",
                   diagnostics={"certificate": cert.to_dict(), "inner_path": path, **details},
                   nonprivate_internals={"w_T": w_T.copy(), "V_T": V_T.copy(),
                                         "gradient_evaluations_performed": game.gradient_evaluations},
                   replicates=replicates)


# ================================================================================================
# The catalogue's calling convention (X, y, problem, ε, δ, rng, **options) for the two Sec. 4 models
# ================================================================================================


def robust_erm_from_problem(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                            rng: np.random.Generator, *, rho: float, mu: float,
                            kind: Literal["logistic", "squared"] = "logistic", **options: Any) -> Release:
    """:func:`robust_erm` with x_max, y_max and R = problem.radius taken from ``problem`` (declared bounds;
    W = B(0, R) is public, ERRATA.md LR21-D1).  Other keywords are passed through.  Raises TypeError for a
    ``problem`` that is not an ERMProblem, and as :func:`robust_erm`."""
    if not isinstance(problem, ERMProblem):
        raise TypeError(f"problem must be an ERMProblem, got {type(problem).__name__}")
    return robust_erm(X, y, kind, problem.bounds.x_max, problem.bounds.y_max, epsilon, delta, rng, rho=rho, mu=mu,
                      radius=problem.radius, **options)


def algorithm_3_from_problem(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                             rng: np.random.Generator, *, mu: float, r: float, gamma: float = 0.0,
                             **options: Any) -> Release:
    """:func:`algorithm_3` on the linear adversarial games of docs/derivations.md#linear-adversarial-games
    (:class:`dpsco.reference.lr21.LinearAdversarialProblem` with μ, r, γ, the declared bounds of ``problem`` and
    R = problem.radius).  Other keywords are passed through.  Raises TypeError for a ``problem`` that is not an
    ERMProblem, and as :func:`algorithm_3`."""
    if not isinstance(problem, ERMProblem):
        raise TypeError(f"problem must be an ERMProblem, got {type(problem).__name__}")
    game = LinearAdversarialProblem(mu, r, gamma, problem.bounds.x_max, problem.bounds.y_max, radius=problem.radius)
    return algorithm_3(X, y, game, epsilon, delta, rng, **options)
