"""Lowy & Razaviyayn's Algorithms 1 and 2, line by line (overview: :mod:`dpsco.reference.lr21`; the Sec. 4
applications — tilted ERM, ℓ2-robust GLMs, Algorithm 3 — are in :mod:`dpsco.reference.lr21.applications`).

Each algorithm reads its public parameters first (``*_parameters``: α, T, Δ, Δ_T from public inputs only), calibrates
the noise of line 2 before the data is read, runs the certified inner step of line 1
(:func:`dpsco.reference.lr21.inner_solvers.certified_inner`) and releases w_A = Π_{B(0,R)}(w_T + ẑ).  The release's
claim carries the mechanism as a ``dp_accounting`` event where one exists (the Gaussian noise of δ > 0; the
ℓ2-Laplace noise of δ = 0 has none).  The shared steps (checks, claim, line 2) are in
:mod:`dpsco.reference.lr21.release`.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Literal

import numpy as np

from dpsco.reference.lr21.inner_solvers import FALLBACKS, Fallback, Method, certifiable_alpha, inner_schedule_count
from dpsco.reference.lr21.objectives import GLMObjective
from dpsco.reference.lr21.release import (PAPER, check_inputs, data_clipping, line_1, noise_event, output_claim,
                                          release_noise)
from dpsco.reference.lr21.theorems import (SensitivityMode, agd_iterations, sensitivity_alg2, sensitivity_T,
                                           subgradient_iterations, theorem_0_4_alpha, theorem_0_4_lambda,
                                           theorem_0_5_alpha, theorem_0_5_lambda)
from dpsco.reference.noise import calibrate, noise_factor
from dpsco.reference.privacy import Release
from dpsco.reference.problem import ERMProblem
from dpsco.reference.validation import check_bool, check_choice, check_iterations, check_positive, check_positive_int

__all__ = ["PAPER", "noise_event", "algorithm_1_parameters", "algorithm_1", "algorithm_2_parameters", "algorithm_2"]


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
        alpha = max(alpha, certifiable_alpha(mu, R))   # extreme ε: the default α stays certifiable
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
    alpha, T : accuracy and iteration count — utility constants: the noise is calibrated to the α used and the
        certificate enforces it.  Defaults (:func:`algorithm_1_parameters`; the values used are in the release's
        ``parameters["alpha"]`` / ``["T"]``), with L = L_ℓ + μR, β = β_ℓ + μ, κ = β/μ, s =
        ``noise_factor(d, ε, δ)``:
        "agd" / "katyusha" on a smooth loss: α = (L²/μ)·min{κs², 1}/n², the ERM form of the appendix's
        Theorem 0.3 (2b) — not Theorem 2.2 (b)'s printed L²/μ·min{κs², 1}, the non-ERM form (``erm=False``);
        T = ⌈√κ·log((μ + β)R²/(2α))⌉, the AGD count in the proof of Theorem 2.2 (Bubeck 2015, Thm 3.18), for
        "agd", and ⌈log₂(LR/α)⌉ + 1 epochs for "katyusha" (Theorem 3.2 gives no constant).
        Otherwise: α = L²/(μn)·min{1/n, s}, the ERM form of Theorem 0.2 (Theorem 3.1's choice for "sgd";
        ``erm=False``: Theorem 2.1's L²s/μ); T = ⌈2L²/(μα)⌉ (Prop. 0.1) for "subgradient" and "sgd".
        In every case α is raised to ``certifiable_alpha(μ, R)`` where it would fall below it (extreme ε).
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
    Xa, ya, n_clipped, eps, dl, rng = check_inputs(problem, X, y, epsilon, delta, rng, clip)
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
    inner = line_1(obj, method, mu_, p["alpha"], p["T"], p["beta"], opt_rng, fallback, replicates)
    out = release_noise(inner.w, cal, p["R"], noise_rng, replicates)  # line 2: Π_{B(0,R)}(w_T + ẑ)
    assumptions = {**problem.assumptions(), **{k: v for k, v in p.items() if k != "s"}, "noise": cal.to_dict(),
                   "data_clipping": data_clipping(clip)}
    claim = output_claim(eps, dl, f"{PAPER}, Proposition 2.1 (Algorithm 1)"
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
    Thm 0.4 (corrected α for ERM δ > 0, LR21-E5); T rigorous (⌈2(L + λR)²/(λα)⌉ or the AGD count on F_λ)."""
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
        alpha = max(alpha, certifiable_alpha(lam, R))   # extreme ε: the default α stays certifiable
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
    (LR21-E1) — and the noise of Algorithm 1 with Zhao's σ — NOT the printed σ/√2 (LR21-E2); w_A = Π(w_T + ẑ).

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
    Xa, ya, n_clipped, eps, dl, rng = check_inputs(problem, X, y, epsilon, delta, rng, clip)
    check_choice(fallback, "fallback", FALLBACKS)
    if replicates is not None:
        check_positive_int(replicates, "replicates")  # before the inner optimiser runs
    n, d = Xa.shape
    p = algorithm_2_parameters(problem, n, d, eps, dl, method=method, erm=erm, lam=lam, alpha=alpha, T=T)
    cal = calibrate(p["Delta_T"], eps, dl, gaussian=gaussian)
    opt_rng, noise_rng = rng.spawn(2)
    obj = GLMObjective(problem.loss, Xa, ya, p["lam"], p["R"])
    inner = line_1(obj, method, p["lam"], p["alpha"], p["T"], p["beta"], opt_rng, fallback, replicates)
    out = release_noise(inner.w, cal, p["R"], noise_rng, replicates)
    assumptions = {**problem.assumptions(), **{k: v for k, v in p.items() if k != "s"}, "noise": cal.to_dict(),
                   "data_clipping": data_clipping(clip)}
    claim = output_claim(eps, dl, f"{PAPER}, Proposition 2.2 (Algorithm 2; noise with α and Zhao's σ, ERRATA LR21-E1/LR21-E2)",
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
