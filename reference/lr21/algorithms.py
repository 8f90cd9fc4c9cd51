"""Lowy & Razaviyayn's Algorithms 1–3 and the Sec. 4 applications, line by line (overview: :mod:`dpsco.reference.lr21`).

Each algorithm reads its public parameters first (``*_parameters``: α, T, Δ, Δ_T from public inputs only), calibrates
the noise of line 2 before the data is read, runs the certified inner step of line 1
(:func:`dpsco.reference.lr21.inner_solvers.certified_inner`) and releases w_A = Π_{B(0,R)}(w_T + ẑ).  The release's
claim carries the mechanism as a ``dp_accounting`` event where one exists (the Gaussian noise of δ > 0; the
ℓ2-Laplace noise of δ = 0 has none).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Literal

import numpy as np

from dpsco.reference.certificates import UncertifiedError
from dpsco.reference.lr21.inner_solvers import (FALLBACKS, STOCHASTIC_METHODS, Fallback, InnerResult, Method,
                                                certified_inner, certified_inner_replicates, extragradient,
                                                extragradient_iterations, extragradient_schedule_count,
                                                inner_schedule_count)
from dpsco.reference.lr21.objectives import (GLMObjective, LinearAdversarialProblem, RobustObjective,
                                             TiltedObjective, adversarial_objective, robust_constants,
                                             saddle_certificate, tilted_constants)
from dpsco.reference.lr21.theorems import (SensitivityMode, agd_iterations, lemma_0_5_sensitivity,
                                           proposition_4_1_alpha, sensitivity_alg2, sensitivity_T,
                                           subgradient_iterations, theorem_0_4_alpha, theorem_0_4_lambda,
                                           theorem_0_5_alpha, theorem_0_5_lambda)
from dpsco.reference.noise import NoiseCalibration, calibrate, noise_factor, perturb_and_project, project_ball
from dpsco.reference.privacy import PrivacyClaim, Release
from dpsco.reference.problem import ERMProblem
from dpsco.reference.solvers import certified_first_order, strictly_inside
from dpsco.reference.validation import (as_float_vector, check_bool, check_calibration_budget, check_choice,
                                        check_iterations, check_positive, check_positive_int, check_rng)

__all__ = ["PAPER", "noise_event", "algorithm_1_parameters", "algorithm_1", "algorithm_2_parameters", "algorithm_2",
           "tilted_erm_parameters", "tilted_erm", "robust_erm_parameters", "robust_erm", "algorithm_3_parameters",
           "algorithm_3"]

PAPER = "Lowy & Razaviyayn (AAAI 2021)"


# ================================================================================================
# Shared by the algorithms: input checks, the claim, line 2
# ================================================================================================


def _check_inputs(problem: ERMProblem, X: Any, y: Any, epsilon: Any, delta: Any, rng: Any, clip: bool
                  ) -> tuple[np.ndarray, np.ndarray, int, float, float, np.random.Generator]:
    if not isinstance(problem, ERMProblem):
        raise TypeError(f"problem must be an ERMProblem, got {type(problem).__name__}")
    (eps, dl), rng = check_calibration_budget(epsilon, delta), check_rng(rng)
    if not dl < 0.5:
        raise ValueError(f"delta must lie in [0, 1/2) (c_delta, Thm 0.1), got {dl}")
    if not problem.domain.bounded:
        raise ValueError("problem.domain must be a bounded ball B(0, R): the paper's R (Sec. 1)")
    Xa, ya, n_clipped = problem.check(X, y, clip=clip)
    return Xa, ya, n_clipped, eps, dl, rng


def noise_event(cal: NoiseCalibration) -> tuple[Any, str | None]:
    """The line-2 noise ``cal`` as a ``dp_accounting`` event and the NeighboringRelation it is composed under.

    Gaussian noise of standard deviation σ (per coordinate) calibrated to the L2 sensitivity Δ = Δ_T:
    (``GaussianDpEvent(σ/Δ)``, "ADD_OR_REMOVE_ONE").  dp_accounting's Gaussian event compares two outputs whose
    means are at L2 distance 1 with noise multiplier z; the centres w_T(X), w_T(X') of replace-one neighbours are
    at distance ≤ Δ, so z = σ/Δ under ADD_OR_REMOVE_ONE (shift 1 in both directions) is exactly the privacy curve
    of the worst pair; the projection onto B(0, R) is post-processing.  The ℓ2-Laplace (Gamma-radius) noise of
    δ = 0 has no dp_accounting event: (None, None).
    """
    if not isinstance(cal, NoiseCalibration):
        raise TypeError(f"cal must be a NoiseCalibration, got {type(cal).__name__}")
    if cal.mechanism != "gaussian":
        return None, None
    from dp_accounting import dp_event

    return dp_event.GaussianDpEvent(cal.scale / cal.sensitivity), "ADD_OR_REMOVE_ONE"


def _data_clipping(clip: bool) -> str:
    """The claim's record of the ``clip`` option (public), never the number of rows clipped (data-dependent)."""
    return ("rows outside the declared bounds are clipped to them (clip=True; a data-independent map; the number "
            "of rows clipped is not published)" if clip else "none (clip=False: data outside the bounds is refused)")


def _claim(eps: float, dl: float, source: str, assumptions: dict[str, Any], alpha: float, modulus: float,
           cal: NoiseCalibration) -> PrivacyClaim:
    """The replace-one claim of line 2's noise ``cal``; every field a function of public inputs (the certificate
    reached and the path taken depend on the data: they are diagnostics, never published)."""
    cond = (f"‖w_T − w*‖ ≤ √(2α/modulus) = {math.sqrt(2 * alpha / modulus):.6g} certified a posteriori on every "
            "run (the certificate gate: the inner method's point if certified, else the certified solver's; which "
            "one, and the certificate reached, are diagnostics, not published)",
            "w* = argmin over B(0, R) (Lemma 0.2 on W = B(0, R)); replace-one neighbours with n fixed")
    event, relation = noise_event(cal)
    return PrivacyClaim(notion="pure-DP" if dl == 0 else "approx-DP", epsilon=eps, delta=dl,
                        neighbouring="replace-one", source=source, assumptions=assumptions, conditions=cond,
                        event=event, event_neighbouring=relation)


def _release_noise(w_T: np.ndarray, cal: NoiseCalibration, R: float, rng: np.random.Generator,
                   replicates: int | None) -> np.ndarray:
    return perturb_and_project(w_T, cal, R, rng, None if replicates is None else check_positive_int(replicates,
                                                                                                   "replicates"))


def _line_1(obj: GLMObjective, method: Method | Callable[..., np.ndarray], modulus: float, alpha: float, T: int,
            smoothness: float | None, opt_rng: np.random.Generator, fallback: Fallback,
            replicates: int | None) -> InnerResult:
    """Line 1 of Algorithms 1 and 2: one certified run of 𝓜 on ``opt_rng``; with ``replicates=k`` and a stochastic
    𝓜 ("sgd", "katyusha"), k independent certified runs, run r on child stream r of ``opt_rng``
    (:func:`dpsco.reference.lr21.inner_solvers.certified_inner_replicates`); a deterministic 𝓜 runs once."""
    if replicates is not None and isinstance(method, str) and method in STOCHASTIC_METHODS:
        return certified_inner_replicates(obj, method, modulus, alpha, T, smoothness, opt_rng.spawn(replicates),
                                          fallback=fallback)
    return certified_inner(obj, method, modulus, alpha, T, smoothness, opt_rng, fallback=fallback)


# ================================================================================================
# Algorithm 1
# ================================================================================================


def algorithm_1_parameters(problem: ERMProblem, n: int, d: int, epsilon: float, delta: float, mu: float, *,
                           method: Method | Callable[..., np.ndarray], erm: bool, alpha: float | None,
                           T: int | None, sensitivity_mode: SensitivityMode) -> dict[str, Any]:
    """Public parameters of Algorithm 1 on F = (1/n)Σℓ + (μ/2)‖w‖² over B(0, R), before the data is read.

    L = L_ℓ + μR (Lipschitz constant of f(·, x) on B(0, R), the paper's L); β = β_ℓ + μ.  Default α and T:
    subgradient: Thm 0.2 / 2.1 (α), Prop. 0.1 (T); agd: Thm 0.3 / 2.2 (α), AGD count (T); sgd: Thm 3.1;
    katyusha: Thm 3.2's α, T = epochs = ⌈log2(LR/α)⌉ + 1 (the O(·) constant is not given; certified anyway)."""
    erm = check_bool(erm, "erm")
    R = problem.radius
    L_l = problem.lipschitz
    L = L_l + mu * R
    beta_l = problem.smoothness
    beta = None if beta_l is None else beta_l + mu
    s = noise_factor(d, epsilon, delta)
    kappa = None if beta is None else beta / mu
    if alpha is None:
        if method in ("agd", "katyusha") and beta is not None:
            alpha = L * L / mu * min(kappa * s * s, 1.0) / (n * n if erm else 1.0)
        elif erm:
            alpha = L * L / (mu * n) * min(1.0 / n, s)
        else:
            alpha = L * L * s / mu
    alpha = check_positive(alpha, "alpha")
    if T is None:
        if method in ("subgradient", "sgd"):
            T = subgradient_iterations(L, mu, alpha)
        elif method == "agd":
            T = agd_iterations(mu, check_positive(beta if beta is not None else -1.0, "smoothness"), R, alpha)
        elif method == "katyusha":
            T = max(1, math.ceil(math.log2(max(L * R / alpha, 2.0)))) + 1
        else:
            T = 0
        T = check_iterations(T, "T", allow_zero=True, remedy=f"T is computed from mu = {mu:g} and alpha = {alpha:g} "
                             f"(method {method!r}): increase mu or alpha, or pass a smaller T")
    else:
        T = check_iterations(T, "T", allow_zero=True, remedy="pass a smaller T")
    delta_F = (2.0 * L_l if sensitivity_mode == "tight" else 2.0 * L) / (mu * (n if erm else 1))
    if sensitivity_mode not in ("paper", "tight"):
        raise ValueError(f"sensitivity_mode must be 'paper' or 'tight', got {sensitivity_mode!r}")
    dT = sensitivity_T(delta_F, alpha, mu)
    return {"mu": mu, "L": L, "L_loss": L_l, "beta": beta, "R": R, "alpha": alpha, "T": int(T), "erm": erm,
            "sensitivity_mode": sensitivity_mode, "Delta_F": delta_F, "Delta_T": dT, "s": s}


def algorithm_1(
    X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator, *,
    mu: float, method: Method | Callable[..., np.ndarray] = "agd", erm: bool = True, alpha: float | None = None,
    T: int | None = None, sensitivity_mode: SensitivityMode = "paper", gaussian: Literal["zhao", "analytic"] = "zhao",
    fallback: Fallback = "certified_solver", clip: bool = False, replicates: int | None = None,
) -> Release:
    """Algorithm 1: black-box output perturbation for μ-strongly convex F (Lowy & Razaviyayn, Alg. 1).

    F(w, X) = (1/n)Σ ℓ(w, z_i) + (μ/2)‖w‖² (ERM form; ``erm=False`` uses the non-ERM Δ_F = 2L/μ, valid and
    conservative), minimised over B(0, R) = ``problem.domain``.

    Parameters
    ----------
    X : (n, d) array; y : (n,) array (declared bounds checked; ``clip`` for data-independent clipping).
    problem : ERMProblem (GLM loss ℓ, W = B(0, R), declared bounds).
    epsilon : ε > 0 (any);  delta : δ ∈ [0, ½) (δ = 0: pure DP via the L2-Laplace noise).
    rng : numpy Generator (optimiser randomness and noise come from independent child streams).
    mu : μ > 0, the ridge modulus (part of F; public).
    method : 𝓜 — "agd" (Thm 2.2 / 0.3), "subgradient" (Thm 2.1 / 0.2), "sgd" (Thm 3.1), "katyusha"
        (Thm 3.2), or a callable ``(objective, rng) -> w`` (any black-box optimiser; certified like the others).
    alpha, T : accuracy and iteration count (defaults: the theorem's; both utility constants — the noise is
        calibrated to the α used and the certificate enforces it).
    sensitivity_mode : "paper" (Δ_F = 2L/(μn), L = L_ℓ + μR) or "tight" (2L_ℓ/(μn): the ridge cancels in Lemma 0.2).
    gaussian : "zhao" (paper) or "analytic" (Balle & Wang) calibration for δ > 0.
    fallback : what to do when the certificate fails (:mod:`dpsco.reference.lr21`, "Privacy rests on a certificate").
    replicates : k independent runs as a (k, d) output, for auditors.  Deterministic 𝓜 ("agd", "subgradient", a
        callable — assumed deterministic): k independent noisy outputs of the one certified w_T.  Stochastic 𝓜
        ("sgd", "katyusha"): k independent inner runs (run r on child stream r of the optimiser stream), each
        certified on its own (an uncertified run alone takes the certified solver's point), then k independent
        noises; the claim cites the worst certificate, ``diagnostics`` every run's path and distance, and
        ``gradient_evaluations`` counts one run.

    Returns
    -------
    Release: output Π_{B(0,R)}(w_T + ẑ) (d,), claim (Prop. 2.1; for δ > 0 it carries the Gaussian noise as a
    dp_accounting event, :func:`noise_event`; δ = 0 has none), gradient evaluations (per-sample) counted.

    Raises
    ------
    ValueError / TypeError on bad inputs, each naming the parameter: data (NaN/inf, complex, shapes, declared
    bounds violated without ``clip``), ``clip`` not a bool, ``fallback`` unknown, ``epsilon`` outside
    [EPSILON_MIN, EPSILON_MAX] or 0 < ``delta`` < DELTA_MIN (``dpsco.reference.validation``: the calibration would
    overflow), ``T`` (given or computed) above ``dpsco.reference.validation.MAX_ITERATIONS``, checked before any loop;
    UncertifiedError (``fallback="refuse"``).
    """
    Xa, ya, n_clipped, eps, dl, rng = _check_inputs(problem, X, y, epsilon, delta, rng, clip)
    check_choice(fallback, "fallback", FALLBACKS)
    if replicates is not None:
        check_positive_int(replicates, "replicates")  # before the inner optimiser runs
    mu_ = check_positive(mu, "mu")
    n, d = Xa.shape
    p = algorithm_1_parameters(problem, n, d, eps, dl, mu_, method=method, erm=erm, alpha=alpha, T=T,
                               sensitivity_mode=sensitivity_mode)
    cal = calibrate(p["Delta_T"], eps, dl, gaussian=gaussian)  # line 2's density, from public inputs only
    opt_rng, noise_rng = rng.spawn(2)
    obj = GLMObjective(problem.loss, Xa, ya, mu_, p["R"])
    inner = _line_1(obj, method, mu_, p["alpha"], p["T"], p["beta"], opt_rng, fallback, replicates)
    out = _release_noise(inner.w, cal, p["R"], noise_rng, replicates)  # line 2: Π_{B(0,R)}(w_T + ẑ)
    assumptions = {**problem.assumptions(), **{k: v for k, v in p.items() if k != "s"}, "noise": cal.to_dict(),
                   "data_clipping": _data_clipping(clip)}
    claim = _claim(eps, dl, f"{PAPER}, Proposition 2.1 (Algorithm 1)"
                   + ("; Theorem 0.1 (Zhao et al. 2019)" if dl > 0 and gaussian == "zhao" else ""),
                   assumptions, p["alpha"], mu_, cal)
    return Release(output=out, claim=claim, gradient_evaluations=inner_schedule_count(method, p["T"], n),
                   parameters={**p, "method": method if isinstance(method, str) else "callable",
                               "noise_scale": cal.scale, "mechanism": cal.mechanism},
                   algorithm="Algorithm 1 (Lowy & Razaviyayn 2021)",
                   diagnostics={"certificate": inner.certificate.to_dict(), "inner_path": inner.path,
                                "rows_clipped": n_clipped, **inner.details},
                   nonprivate_internals={"w_T": inner.w.copy(),
                                         "gradient_evaluations_performed": inner.gradient_evaluations},
                   replicates=replicates)


# ================================================================================================
# Algorithm 2
# ================================================================================================


def algorithm_2_parameters(problem: ERMProblem, n: int, d: int, epsilon: float, delta: float, *,
                           method: Method | Callable[..., np.ndarray], erm: bool, lam: float | None,
                           alpha: float | None, T: int | None) -> dict[str, Any]:
    """Public parameters of Algorithm 2 on F_λ = (1/n)Σℓ + (λ/2)‖w‖² over B(0, R), L = L_ℓ on B(0, R).

    Defaults: agd/katyusha (smooth): λ, α of Thm 0.5 (ERM) / 2.4 (non-ERM); subgradient/sgd: λ, α of
    Thm 0.4 (corrected α for ERM δ > 0, LR-E5); T rigorous (⌈2(L + λR)²/(λα)⌉ or the AGD count on F_λ)."""
    erm = check_bool(erm, "erm")
    R, L = problem.radius, problem.lipschitz
    beta_l = problem.smoothness
    smooth_method = method in ("agd", "katyusha")
    if smooth_method and beta_l is None:
        raise ValueError(f"method={method!r} needs a smooth loss")
    if lam is None:
        lam = (theorem_0_5_lambda(L, R, beta_l, n, d, epsilon, delta, erm=erm) if smooth_method
               else theorem_0_4_lambda(L, R, n, d, epsilon, delta, erm=erm))
    lam = check_positive(lam, "lam")
    if alpha is None:
        alpha = (theorem_0_5_alpha(L, R, beta_l, n, d, epsilon, delta, erm=erm) if smooth_method
                 else theorem_0_4_alpha(L, R, n, d, epsilon, delta, erm=erm))
    alpha = check_positive(alpha, "alpha")
    beta = None if beta_l is None else beta_l + lam
    if T is None:
        if method in ("subgradient", "sgd"):
            T = subgradient_iterations(L + lam * R, lam, alpha)
        elif method == "agd":
            T = agd_iterations(lam, beta, R, alpha)
        elif method == "katyusha":
            T = max(1, math.ceil(math.log2(max(L * R / alpha, 2.0)))) + 1
        else:
            T = 0
        T = check_iterations(T, "T", allow_zero=True, remedy=f"T is computed from lam = {lam:g} and alpha = {alpha:g} "
                             f"(method {method!r}): increase lam or alpha, or pass a smaller T")
    else:
        T = check_iterations(T, "T", allow_zero=True, remedy="pass a smaller T")
    delta_lam = sensitivity_alg2(L, lam, R, n, erm=erm)
    return {"lam": lam, "L": L, "beta": beta, "R": R, "alpha": alpha, "T": int(T), "erm": erm,
            "Delta_lambda": delta_lam, "Delta_T": sensitivity_T(delta_lam, alpha, lam),
            "s": noise_factor(d, epsilon, delta)}


def algorithm_2(
    X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator, *,
    method: Method | Callable[..., np.ndarray] = "agd", erm: bool = True, lam: float | None = None,
    alpha: float | None = None, T: int | None = None, gaussian: Literal["zhao", "analytic"] = "zhao",
    fallback: Fallback = "certified_solver", clip: bool = False, replicates: int | None = None,
) -> Release:
    """Algorithm 2: output perturbation with regularisation for convex F (Lowy & Razaviyayn, Alg. 2).

    Line 1: 𝓜 on F_λ(w) = (1/n)Σℓ(w, z_i) + (λ/2)‖w‖² over B(0, R), certified α-accurate.
    Line 2: Δ_λ = 2(L + λR)/(λn) (ERM) or 2(L + λR)/λ; Δ_T = Δ_λ + 2√(2α/λ) — NOT the printed 2√(2ε/λ)
    (LR-E1) — and the noise of Algorithm 1 with Zhao's σ — NOT the printed σ/√2 (LR-E2); w_A = Π(w_T + ẑ).

    Parameters as in :func:`algorithm_1`, plus ``lam`` (default Thm 0.5 for smooth methods, Thm 0.4
    otherwise; λ is public — never tuned on the private data).  Privacy: Prop. 2.2.  Utility: Thms 2.3,
    2.4, 0.4, 0.5, 3.3, 3.4, and MB3/MB4 (docs/derivations.md#master-bounds-for-output-perturbation).

    Raises
    ------
    ValueError / TypeError on bad inputs, as :func:`algorithm_1`.  In particular the inner iteration count T
    grows like 1/λ (subgradient: ⌈2(L + λR)²/(λα)⌉): a tiny ``lam`` (or ``alpha``) whose T exceeds
    ``dpsco.reference.validation.MAX_ITERATIONS`` is refused before any loop starts, naming ``lam`` and ``alpha``.
    UncertifiedError (``fallback="refuse"``).
    """
    Xa, ya, n_clipped, eps, dl, rng = _check_inputs(problem, X, y, epsilon, delta, rng, clip)
    check_choice(fallback, "fallback", FALLBACKS)
    if replicates is not None:
        check_positive_int(replicates, "replicates")  # before the inner optimiser runs
    n, d = Xa.shape
    p = algorithm_2_parameters(problem, n, d, eps, dl, method=method, erm=erm, lam=lam, alpha=alpha, T=T)
    cal = calibrate(p["Delta_T"], eps, dl, gaussian=gaussian)
    opt_rng, noise_rng = rng.spawn(2)
    obj = GLMObjective(problem.loss, Xa, ya, p["lam"], p["R"])
    inner = _line_1(obj, method, p["lam"], p["alpha"], p["T"], p["beta"], opt_rng, fallback, replicates)
    out = _release_noise(inner.w, cal, p["R"], noise_rng, replicates)
    assumptions = {**problem.assumptions(), **{k: v for k, v in p.items() if k != "s"}, "noise": cal.to_dict(),
                   "data_clipping": _data_clipping(clip)}
    claim = _claim(eps, dl, f"{PAPER}, Proposition 2.2 (Algorithm 2; noise with α and Zhao's σ, ERRATA LR-E1/E2)",
                   assumptions, p["alpha"], p["lam"], cal)
    return Release(output=out, claim=claim, gradient_evaluations=inner_schedule_count(method, p["T"], n),
                   parameters={**p, "method": method if isinstance(method, str) else "callable",
                               "noise_scale": cal.scale, "mechanism": cal.mechanism},
                   algorithm="Algorithm 2 (Lowy & Razaviyayn 2021)",
                   diagnostics={"certificate": inner.certificate.to_dict(), "inner_path": inner.path,
                                "rows_clipped": n_clipped, **inner.details},
                   nonprivate_internals={"w_T": inner.w.copy(),
                                         "gradient_evaluations_performed": inner.gradient_evaluations},
                   replicates=replicates)


# ================================================================================================
# Applications (Sec. 4): tilted ERM, ℓ2-robust GLMs, Algorithm 3
# ================================================================================================


def tilted_erm_parameters(problem: ERMProblem, n: int, d: int, epsilon: float, delta: float, *, tau: float,
                          mu: float, method: Any = "agd", alpha: float | None = None, T: int | None = None,
                          sensitivity_mode: SensitivityMode = "paper") -> dict[str, Any]:
    """Public parameters of :func:`tilted_erm` (Props 4.1/4.2), before the data is read: the constants of
    :func:`tilted_constants` (L = L_ℓ + μR, C_τ, β_τ, ...), α (default Prop. 4.2's (L²/(μn²))min{κ_τs², C_τ²}
    for "agd", Prop. 4.1's corrected α otherwise, LR-E6), T (the rigorous AGD / subgradient count; 0 for a
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
            alpha = proposition_4_1_alpha(L, m_, n, d, epsilon, delta, C)  # Prop. 4.1 (corrected for δ = 0, LR-E6)
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
    alpha : default Prop. 4.2's α = (L²/(μn²))min{κ_τs², C_τ²} (agd) or Prop. 4.1's corrected α (LR-E6).
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
    Xa, ya, n_clipped, eps, dl, rng = _check_inputs(problem, X, y, epsilon, delta, rng, clip)
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
    out = _release_noise(inner.w, cal, p["R"], noise_rng, replicates)  # line 2
    assumptions = {**problem.assumptions(), **p, "noise": cal.to_dict(),
                   "data_clipping": _data_clipping(clip)}
    claim = _claim(eps, dl, f"{PAPER}, Propositions 4.1/4.2 (Algorithm 1 on F_τ with Lemma 0.5's Δ_Fτ)",
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
    callable), Δ_F = 2L/(μn) (paper) or 2L_ℓ/(μn) (tight) and Δ_T = Δ_F + 2√(2α/μ) (LR-E3).  Raises ValueError
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
    printed δ > 0 Δ + 2α/μ, LR-E3), w_A = Π_{B(0,R)}(w_T + ẑ).

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
    out = _release_noise(inner.w, cal, R, noise_rng, replicates)
    assumptions = {**p, "x_max": xm, "y_max": float(y_max), "perturbation_set": f"B(0, {c['rho']})",
                   "noise": cal.to_dict()}
    claim = _claim(eps, dl, f"{PAPER}, Algorithm 3 with exact inner maximisation (Prop. 2.1 applied to G_D; "
                   "noise Δ + 2√(2α/μ), ERRATA LR-E3)", assumptions, alpha, m_, cal)
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
    ridge cancels); non-ERM: without 1/n.  Δ_T = Δ + 2√(2α/μ) (line 2 corrected, LR-E3)."""
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
    density's Δ + 2α/μ under-noises when α/μ < 2 (ERRATA LR-E3; ``sensitivity_T(..., printed="alg3")``); the
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
    out = _release_noise(w_T, cal, R, noise_rng, replicates)  # line 2: Π_{B(0,R)}(w_T + ẑ)
    claim = _claim(eps, dl, f"{PAPER}, Algorithm 3 (privacy by the arguments of Prop. 2.1 applied to G_D; noise "
                   "Δ + 2√(2α/μ), ERRATA LR-E3)" + ("; Theorem 0.1 (Zhao et al. 2019)" if dl > 0 and gaussian == "zhao"
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
