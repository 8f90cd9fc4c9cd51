"""Every algorithm of Bassily, Feldman, Talwar and Thakurta (2019).

    R. Bassily, V. Feldman, K. Talwar, A. Thakurta. "Private Stochastic Convex Optimization with Optimal
    Rates." Advances in Neural Information Processing Systems 32 (NeurIPS 2019), pp. 11279–11288.
    arXiv:1908.09970 (full version [BFTT19]).

Algorithms
----------
``noisy_sgd``                      A_NSGD, Algorithm 1 (privacy Thm 3.1, utility Thm 3.2).
``moreau_noisy_sgd``               A_NSGD on the β-Moreau envelope, exact prox (Thm 4.4).
``prox_noisy_sgd``                 A_ProxGD: A_NSGD with a certified approximate prox (Sec. 4, last part).
``objective_perturbation``         A_ObjP, Algorithm 2 (privacy Thm 5.2, utility Thm 5.3).
``efficient_objective_perturbation`` ObjP solved by Prox-SVRG to a certified accuracy, then Gaussian
                                   output noise (Sec. 5, last paragraph).

Each reads like the paper's pseudo-code: validate the public inputs, compute the parameters, run the loop,
state the claim, return a ``Release``.  This module holds the three that share Algorithm 1's loop (``nsgd_core``)
and its white-box view; their per-sample gradient oracles (with the fast path for line 6's clipped mean) are in
``dpsco.reference.bftt19.gradients``, and the two objective-perturbation algorithms in
``dpsco.reference.bftt19.objp`` (re-exported here).

Theorems as code, claims
------------------------
Every parameter formula and bound is a plain function of ``dpsco.reference.bftt19.theorems``
(``theorem_3_2_parameters``, ``lemma_3_3_bound``, ``lemma_3_4_stability``, ``theorem_3_2_bound``,
``theorem_4_4_beta``, ``theorem_4_4_bound``, ``theorem_5_3_lambda``, ``lemma_5_4_bound``, ``theorem_5_3_bound``,
...), so the algorithms, tests and reports call the paper, not a copy of it.  The privacy claim of each
release, with its ``dp_accounting`` event where one exists, is built in ``dpsco.reference.bftt19.claims``.

Departures from the printed text (each also in ERRATA.md, with the test that shows it)
------------------------------------------------------------------------------------
* Alg. 1 line 3 "w_0 ∈ V": read W; we take w_0 = Proj_W(0) (needed for Lemma 3.3's M²/(2ηT)).
* Theorem 3.1's noise σ² = 8TL² log(1/δ)/(n²ε²) is not (ε, δ)-DP under replace-one with with-replacement
  sampling at small T (worst pair: every other record shares the replaced record's gradient; n = 1000, T = 1,
  ε = 1, δ = 10⁻⁶ gives ε = 1.99).  Default ``calibration="certified"``: σ = max(printed σ, the smallest σ
  that the PLD accountant certifies on that pair, ``dpsco.reference.bftt19.accounting``); ``"printed"`` stays reachable
  and its claim then states the accountant's δ.  Applies to A_NSGD, its Moreau variant and A_ProxGD (BFTT19-E4).
* Integer rounding (the paper gives reals): T := ⌊T_real⌋ ≥ 1, m := ⌈m_real⌉; σ² and η use the integer T.
* Lemma 3.4's α = L²Tη/n is off by (T+1)/T for the averaged iterate; ``lemma_3_4_stability(corrected=True)``
  gives L²η(T+1)/n (tight for the linear loss).
* Theorem 5.3's bound 2ML√(·) does not follow from its proof, which yields 4ML√(·);
  ``theorem_5_3_bound(printed=True|False)`` returns either.
* The sections the NeurIPS text defers to the full version (A_ProxGD's details, efficient ObjP) are
  reconstructions (``docs/derivations.md#reconstruction-of-proxgd``,
  ``docs/derivations.md#reconstruction-of-efficient-objective-perturbation``), labelled "reconstructed, not
  verified against [BFTT19]" in their claims.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from dpsco.reference.bftt19.claims import nsgd_claim
from dpsco.reference.bftt19.gradients import (ApproximateEnvelopeGradientOracle, EnvelopeGradientOracle,
                                              GLMGradientOracle, GradFn, approximate_envelope_gradient,
                                              clip_per_sample)
# Algorithm 2 (A_ObjP) and efficient objective perturbation live in dpsco.reference.bftt19.objp
# (with the up-front checks all algorithms share); re-exported here
from dpsco.reference.bftt19.objp import (OBJP_PRECISION_FLOOR, RADIUS_R_MIN,
                                                          efficient_objective_perturbation, objective_perturbation)
from dpsco.reference.bftt19.objp import check_common as _check_common
from dpsco.reference.bftt19.objp import replicate_count as _replicates
from dpsco.reference.bftt19.theorems import (PAPER, PaperRegimeError, prox_inner_iterations, theorem_3_2_parameters,
                                             theorem_3_2_T, theorem_4_4_beta)
from dpsco.reference.domains import Ball, require_centred
from dpsco.reference.privacy import Release
from dpsco.reference.problem import ERMProblem
from dpsco.reference.white_box import NoisyGradientTrace
from dpsco.reference.validation import check_bool, check_choice, check_iterations, check_positive

__all__ = [
    "GradFn",
    "nsgd_core",
    "clip_per_sample",
    "glm_gradient_oracle",
    "glm_record_gradient",
    "noisy_sgd",
    "EnvelopeLipschitz",
    "moreau_noisy_sgd",
    "approximate_envelope_gradient",
    "prox_noisy_sgd",
    "objective_perturbation",
    "OBJP_PRECISION_FLOOR",
    "RADIUS_R_MIN",
    "efficient_objective_perturbation",
]


# ================================================================================================
# Algorithm 1: A_NSGD
# ================================================================================================

def nsgd_core(
    grad_fn: GradFn, n: int, d: int, domain: Ball, *, T: int, m: int, eta: float, sigma2: float,
    clip_norm: float, rng: np.random.Generator, replicates: int = 1, average: Literal["paper", "standard"] = "paper",
    return_trajectory: bool = False, return_noisy_gradients: bool = False,
) -> tuple[np.ndarray, dict[str, Any]]:
    """The loop of Algorithm 1 with explicit parameters, vectorised over independent replicates.

    Parameters
    ----------
    grad_fn : callable (W: (R, d), idx: (R, m) int) -> (R, m, d)
        Per-sample (sub)gradients ∇ℓ(w_r, z_{idx[r, j]}).  If it also has a method
        ``clipped_mean(W, idx, clip_norm) -> ((R, d), int)`` (``dpsco.reference.bftt19.gradients``), that method
        gives line 6's mean of the clipped gradients and the clipping count instead of the three steps below
        (same value to rounding, same count; tests/test_fast_paths.py); a plain callable takes the generic path.
    n, d : dataset size and dimension.
    domain : Ball, the set W.
    T, m, eta, sigma2 : iterations, batch size, step size, noise variance (Algorithm 1's T, m, η, σ²).
    clip_norm : float
        Per-sample gradients are clipped to this norm (a data-independent threshold equal to the calibrated
        sensitivity bound, so a no-op whenever the declared Lipschitz bound holds; events are counted).
    rng : Generator.  Two child streams are spawned: batch indices and Gaussian noise (so that runs on
        neighbouring datasets can be coupled with the same indices and noise, as the stability check of
        Lemma 3.4 does).
    replicates : R independent runs computed together (each uses its own indices and noise).
    average : "paper" returns (1/T)Σ_{t=1..T} w_t (Alg. 1 line 7); "standard" (1/T)Σ_{t=0..T-1} w_t.
    return_trajectory : keep the iterates w_0..w_T.
    return_noisy_gradients : keep the noisy mean gradients ĝ_t = g_t + G_t of line 6 (the white-box view,
        ``dpsco.reference.white_box``; implies the iterates) and the batch indices i(t, j) of line 5.

    Returns
    -------
    (W̄: (R, d) averaged iterates, info dict with "gradient_evaluations", "clip_events", optional
    "trajectory": (R, T+1, d), optional "noisy_gradients": (R, T, d) and "batch_indices": (R, T, m) int).

    Sensitivity fail-safe: every per-sample gradient enters line 6's mean with norm ≤ ``clip_norm`` in floating
    point — the generic path clips each row with ``dpsco.reference.clipping.clip_rows`` (``clip_per_sample``),
    and the fast path is taken only for blocks whose per-sample norms are all finite and below ``clip_norm`` by
    more than rounding — so the replace-one sensitivity of g_t is 2·clip_norm/m per draw of the replaced record,
    whatever the data, and g_t is finite.

    Raises
    ------
    ValueError / TypeError naming ``average`` (not "paper" / "standard"), ``T`` (not an integer in
    [1, dpsco.reference.validation.MAX_ITERATIONS]) or ``domain`` (not a Ball centred at 0: W = B(0, M), Sec. 2),
    before the loop starts.
    """
    require_centred(domain, "domain")
    T = check_iterations(T, "T")
    check_choice(average, "average", ("paper", "standard"))
    idx_rng, noise_rng = rng.spawn(2)
    sigma = math.sqrt(sigma2)
    w = np.broadcast_to(domain.project(np.zeros(d)), (replicates, d)).copy()  # Alg. 1 line 3: w_0 = Proj_W(0)
    total = np.zeros((replicates, d)) if average == "paper" else w.copy()
    traj = [w.copy()] if return_trajectory or return_noisy_gradients else None
    noisy: list[np.ndarray] | None = [] if return_noisy_gradients else None
    batches: list[np.ndarray] | None = [] if return_noisy_gradients else None
    clip_events = 0
    clipped_mean = getattr(grad_fn, "clipped_mean", None)
    for t in range(T):  # Alg. 1 line 4
        idx = idx_rng.integers(0, n, size=(replicates, m))  # line 5: m indices uniformly WITH replacement
        if clipped_mean is None:
            grads, clipped = clip_per_sample(grad_fn(w, idx), clip_norm)  # (R, m, d)
            g = grads.mean(axis=1)  # (1/m) Σ_j ∇ℓ(w_t, z_{i(t,j)})
        else:  # the same (1/m) Σ_j clip(∇ℓ(w_t, z_{i(t,j)})) without the (R, m, d) array
            g, clipped = clipped_mean(w, idx, clip_norm)
        clip_events += clipped
        G = sigma * noise_rng.standard_normal((replicates, d))  # G_t ~ N(0, σ² I_d)
        w = domain.project(w - eta * (g + G))  # line 6: w_{t+1} = Proj_W(w_t − η(g + G_t))
        if average == "paper" or t < T - 1:
            total += w
        if traj is not None:
            traj.append(w.copy())
        if noisy is not None and batches is not None:
            noisy.append(g + G)
            batches.append(idx)
    info: dict[str, Any] = {"gradient_evaluations": T * m * replicates, "clip_events": clip_events}
    if traj is not None:
        info["trajectory"] = np.stack(traj, axis=1)
    if noisy is not None and batches is not None:
        info["noisy_gradients"] = np.stack(noisy, axis=1)
        info["batch_indices"] = np.stack(batches, axis=1)
    return total / T, info  # line 7: w̄_T


def _trace(info: dict[str, Any], record_gradient: Any, n: int, params: Any, clip_norm: float,
           algorithm: str) -> NoisyGradientTrace:
    """The white-box view of ``nsgd_core``'s runs (``return_noisy_gradients=True``)."""
    return NoisyGradientTrace(iterates=info["trajectory"], noisy_gradients=info["noisy_gradients"],
                              record_gradient=record_gradient, n=n, m=params.m, T=params.T,
                              sigma=math.sqrt(params.sigma2), clip_norm=clip_norm, eta=params.eta,
                              algorithm=algorithm)


def _batch_internals(info: dict[str, Any]) -> dict[str, Any]:
    """The white-box run's batch indices i(t, j) (R, T, m) for replaying line 6 (empty without ``white_box``)."""
    return {"batch_indices": info["batch_indices"]} if "batch_indices" in info else {}


def _unreplicate(arr: np.ndarray, replicates: int | None) -> np.ndarray:
    return arr[0] if replicates is None else arr


def glm_gradient_oracle(problem: ERMProblem, X: np.ndarray, y: np.ndarray) -> GLMGradientOracle:
    """The per-sample gradient oracle of Algorithm 1 for a GLM loss ℓ(w, (x, y)) = φ(⟨w, x⟩, y).

    Parameters
    ----------
    problem : ERMProblem whose ``loss`` has the derivative ``dphi`` of φ in its first argument.
    X : (n, d) float array;  y : (n,) float array (already checked against ``problem``'s bounds).

    Returns
    -------
    ``grad_fn(W, idx)``, a ``GradFn`` for ``nsgd_core``: W (R, d) iterates, idx (R, m) int indices into the
    rows of X, returns the (R, m, d) gradients ∇ℓ(w_r, z_{idx[r, j]}) = φ'(⟨w_r, x_i⟩, y_i)·x_i.  It is a
    ``dpsco.reference.bftt19.gradients.GLMGradientOracle``, whose ``clipped_mean`` ``nsgd_core`` uses.
    """
    return GLMGradientOracle(problem.loss, X, y)


def glm_record_gradient(problem: ERMProblem, clip_norm: float) -> Any:
    """The step function of Algorithm 1 for a GLM loss, for white-box auditors: (W: (R, d), x: (d,), y) ->
    (R, d), the per-sample gradient φ'(⟨w_r, x⟩, y)·x clipped to ``clip_norm`` as ``nsgd_core`` clips it."""
    loss = problem.loss

    def record_gradient(W: np.ndarray, x: np.ndarray, y: float) -> np.ndarray:
        xv = np.asarray(x, dtype=np.float64)
        s = np.asarray(W, dtype=np.float64) @ xv
        return clip_per_sample(loss.dphi(s, np.full(s.shape, float(y)))[:, None] * xv[None, :], clip_norm)[0]

    return record_gradient


def noisy_sgd(
    X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator, *,
    T: int | None = None, eta: float | None = None, clip: bool = False,
    average: Literal["paper", "standard"] = "paper", return_trajectory: bool = False, replicates: int | None = None,
    calibration: Literal["certified", "printed"] = "certified", white_box: bool = False,
) -> Release:
    """A_NSGD: mini-batch noisy projected SGD (Bassily et al. 2019, Algorithm 1).

    Parameters
    ----------
    X : (n, d) float array, rows with ‖x‖ ≤ problem.bounds.x_max.
    y : (n,) float array, |y| ≤ problem.bounds.y_max (±1 for logistic).
    problem : ERMProblem with a convex, L-Lipschitz, β-smooth loss and W = B(0, M).
    epsilon : float in (0, 1];  delta : float in (0, 1/n²]  (Algorithm 1's input conditions).
    rng : numpy Generator.
    T, eta : optional overrides of Theorem 3.2's T and η (utility only: σ² and m are always recomputed
        from T by Algorithm 1's lines 1–2, so Theorem 3.1 still applies).
    clip : clip the data to the declared bounds (data-independent; recorded in the claim) instead of
        raising when a row violates them.
    average : "paper" (w_1..w_T, as printed) or "standard" (w_0..w_{T−1}, Lemma 3.3's analysis).
    return_trajectory : keep w_0..w_T in the release.
    replicates : if given, run R = ``replicates`` independent copies of the algorithm at once (vectorised;
        used by auditors and statistical checks); the release's output is then (R, d), its trajectory
        (R, T+1, d), and each row carries the same claim.
    calibration : "certified" (default) or "printed": see ``theorem_3_2_parameters``.  The printed σ of
        Algorithm 1, line 1 is not private at small T (ERRATA.md BFTT19-E4); with "printed" the claim states the
        worst-pair accountant's δ when it exceeds ``delta``.
    white_box : also return every noisy gradient and the step function in ``Release.white_box`` (a
        ``dpsco.reference.white_box.NoisyGradientTrace``, for white-box auditors; never serialised).

    Returns
    -------
    Release with output w̄_T (d,), the (ε, δ) replace-one claim of Theorem 3.1, T·m gradient evaluations
    (per run), and the parameters used.

    Raises
    ------
    ValueError / TypeError for bad inputs, naming the parameter (NaN/inf or complex data, shapes, empty data,
    declared bounds violated without ``clip``, ``clip`` not a bool, ``average`` not "paper"/"standard",
    non-smooth loss, ``epsilon`` outside [EPSILON_MIN, EPSILON_MAX] or 0 < ``delta`` < DELTA_MIN, where the
    calibration would overflow, ``T`` above MAX_ITERATIONS — all in ``dpsco.reference.validation``);
    PaperRegimeError if ε > 1, δ > 1/n² or T < 1.  Theorem 3.2's smoothness
    hypothesis β ≤ 2/η is a *utility* hypothesis: it is reported in ``diagnostics``, not enforced.

    Privacy: Theorem 3.1 (via [ACG+16, Thm 1]).  Utility: Theorem 3.2, Lemmas 3.3–3.4.
    """
    Xa, ya, n_clipped, eps, dl, rng = _check_common(problem, X, y, epsilon, delta, rng, clip, "A_NSGD")
    check_choice(average, "average", ("paper", "standard"))
    return_trajectory = check_bool(return_trajectory, "return_trajectory")
    white_box = check_bool(white_box, "white_box")
    _replicates(replicates)  # before the calibration (seconds at T >= 2)
    if T is not None:
        check_iterations(T, "T", remedy="pass a smaller T")  # before the calibration and the loop
    n, d = Xa.shape
    L, M = problem.lipschitz, problem.radius
    beta = problem.smoothness
    if beta is None:
        raise ValueError(f"the {problem.loss.name} loss is not smooth: use moreau_noisy_sgd or prox_noisy_sgd")
    params = theorem_3_2_parameters(n, d, eps, dl, L, M, T=T, eta=eta, calibration=calibration)
    wbar, info = nsgd_core(glm_gradient_oracle(problem, Xa, ya), n, d, problem.domain, T=params.T, m=params.m,
                           eta=params.eta, sigma2=params.sigma2, clip_norm=L, rng=rng, average=average,
                           return_trajectory=return_trajectory, replicates=_replicates(replicates),
                           return_noisy_gradients=white_box)
    claim = nsgd_claim(problem, n, eps, dl, params, clip, L, f"{PAPER}, Theorem 3.1 (Algorithm 1)")
    return Release(
        output=_unreplicate(wbar, replicates), claim=claim, gradient_evaluations=params.T * params.m,
        parameters={**params.to_dict(), "average": average, "w0": "Proj_W(0)"},
        algorithm="A_NSGD (Bassily et al. 2019, Algorithm 1)", replicates=replicates,
        trajectory=_unreplicate(info["trajectory"], replicates) if return_trajectory else None,
        diagnostics={"clip_events": info["clip_events"], "rows_clipped": n_clipped, "smoothness": beta,
                     "theorem_3_2_smoothness_hypothesis_holds": bool(beta <= params.smoothness_max)},
        nonprivate_internals=_batch_internals(info),
        white_box=_trace(info, glm_record_gradient(problem, L), n, params, L, "A_NSGD") if white_box else None,
    )


# ================================================================================================
# Theorem 4.4: A_NSGD on the β-Moreau envelope (exact prox)
# ================================================================================================

EnvelopeLipschitz = Literal["paper", "sharp"]


def _envelope_lipschitz(L: float, which: EnvelopeLipschitz) -> float:
    """2L (Lemma 4.3, property 1, as printed) or L (sharp: ‖∇f_β‖ ≤ L on W, ERRATA.md BFTT19-E5,
    ``docs/derivations.md#moreau-envelope-gradients-are-bounded-by-l``)."""
    if which == "paper":
        return 2.0 * L
    if which == "sharp":
        return L
    raise ValueError(f"lipschitz_envelope must be 'paper' or 'sharp', got {which!r}")


def _require_global_lipschitz(problem: ERMProblem) -> None:
    if problem.loss.name == "squared":
        raise ValueError(
            "the R^d Moreau envelope needs a loss that is Lipschitz on all of R^d; the squared loss is not "
            "(use the huber loss, or a W-constrained prox, which is not implemented)"
        )


def moreau_noisy_sgd(
    X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator, *,
    lipschitz_envelope: EnvelopeLipschitz = "paper", beta: float | None = None, T: int | None = None,
    eta: float | None = None, clip: bool = False, return_trajectory: bool = False, replicates: int | None = None,
    calibration: Literal["certified", "printed"] = "certified", white_box: bool = False,
) -> Release:
    """A_NSGD on the β-Moreau envelope of a non-smooth loss (Bassily et al. 2019, Theorem 4.4).

    Runs Algorithm 1 on ℓ_β(·, z) with ∇ℓ_β(w, z) = β(w − prox_{ℓ(·,z)/β}(w)) (Lemma 4.3, property 3),
    with the exact closed-form prox over R^d (``prox_domain = "Rd"``: valid because the loss is L-Lipschitz on
    all of R^d, and then ‖∇ℓ_β‖ ≤ L everywhere:
    ``docs/derivations.md#moreau-envelope-gradients-are-bounded-by-l``).

    Parameters
    ----------
    X, y, problem, epsilon, delta, rng, clip, return_trajectory, replicates, calibration, white_box : as in
        ``noisy_sgd`` (the step function is the clipped envelope gradient).
    lipschitz_envelope : "paper" (default) calibrates σ and η with L' = 2L (Lemma 4.3 as printed, which is
        what reproduces Theorem 4.4's constant 24); "sharp" uses L' = L (ERRATA.md BFTT19-E5).
    beta : smoothing parameter; default Theorem 4.4's β = (L/M) min(√n/4, εn/(8√(d log(1/δ)))).
    T, eta : overrides of Theorem 3.2's T and η (computed with L').

    Returns
    -------
    Release; claim from Theorem 3.1 applied to ℓ_β (sensitivity from ‖∇ℓ_β‖ ≤ L').  Gradient evaluations
    count prox-oracle calls (T·m).
    """
    Xa, ya, n_clipped, eps, dl, rng = _check_common(problem, X, y, epsilon, delta, rng, clip, "A_NSGD (Moreau)")
    return_trajectory = check_bool(return_trajectory, "return_trajectory")
    white_box = check_bool(white_box, "white_box")
    _replicates(replicates)  # before the calibration (seconds at T >= 2)
    if T is not None:
        check_iterations(T, "T", remedy="pass a smaller T")  # before the calibration and the loop
    _require_global_lipschitz(problem)
    n, d = Xa.shape
    L, M = problem.lipschitz, problem.radius
    L_env = _envelope_lipschitz(L, lipschitz_envelope)
    beta_used = theorem_4_4_beta(n, d, eps, dl, L, M) if beta is None else check_positive(beta, "beta")
    x_max = problem.bounds.x_max
    if not x_max * x_max / beta_used <= 1e150:  # the prox step t = ‖x‖²/β (losses.GLMLoss.prox)
        raise ValueError(f"beta = {beta_used!r} is too small: the prox step ‖x‖²/β reaches "
                         f"{x_max * x_max / beta_used:.3g} and overflows floating point (limit 1e150); at beta = 5e-324 "
                         "it was inf and the release NaN")
    params = theorem_3_2_parameters(n, d, eps, dl, L_env, M, T=T, eta=eta, calibration=calibration)
    loss = problem.loss
    grad_fn = EnvelopeGradientOracle(loss, Xa, ya, beta_used)  # β(w − prox(w)) per sample, Lemma 4.3 (3)

    def record_gradient(W: np.ndarray, x: np.ndarray, yv: float) -> np.ndarray:  # the step function, one record
        Wa = np.asarray(W, dtype=np.float64)
        g = loss.envelope_grad(Wa, np.broadcast_to(np.asarray(x, dtype=np.float64), Wa.shape),
                               np.full(Wa.shape[0], float(yv)), beta_used)
        return clip_per_sample(g, L_env)[0]

    wbar, info = nsgd_core(grad_fn, n, d, problem.domain, T=params.T, m=params.m, eta=params.eta,
                           sigma2=params.sigma2, clip_norm=L_env, rng=rng, return_trajectory=return_trajectory,
                           replicates=_replicates(replicates), return_noisy_gradients=white_box)
    claim = nsgd_claim(problem, n, eps, dl, params, clip, L_env,
                        f"{PAPER}, Theorem 3.1 applied to the β-Moreau envelope (Theorem 4.4, Lemma 4.3)",
                        extra={"beta": beta_used, "prox_domain": "Rd", "lipschitz_envelope": lipschitz_envelope})
    return Release(
        output=_unreplicate(wbar, replicates), claim=claim, gradient_evaluations=params.T * params.m,
        parameters={**params.to_dict(), "beta": beta_used, "lipschitz_envelope": lipschitz_envelope,
                    "prox_domain": "Rd"},
        algorithm="A_NSGD on the Moreau envelope (Bassily et al. 2019, Theorem 4.4)", replicates=replicates,
        trajectory=_unreplicate(info["trajectory"], replicates) if return_trajectory else None,
        diagnostics={"clip_events": info["clip_events"], "rows_clipped": n_clipped,
                     "smoothing_gap": L**2 / (2 * beta_used)},
        nonprivate_internals=_batch_internals(info),
        white_box=_trace(info, record_gradient, n, params, L_env, "A_NSGD on the Moreau envelope") if white_box
        else None,
    )


# ================================================================================================
# A_ProxGD: NSGD with an approximate prox of certified accuracy (Sec. 4; details reconstructed,
# docs/derivations.md#reconstruction-of-proxgd)
# ================================================================================================


def prox_noisy_sgd(
    X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator, *,
    accuracy: float | None = None, localized: bool = True, lipschitz_envelope: EnvelopeLipschitz = "paper",
    T: int | None = None, clip: bool = False, replicates: int | None = None,
    calibration: Literal["certified", "printed"] = "certified", white_box: bool = False,
) -> Release:
    """A_ProxGD: A_NSGD on the Moreau envelope with approximate prox (Bassily et al. 2019, Sec. 4).

    Each envelope gradient β(w − prox(w)) is replaced by β(w − v_K), v_K from K projected-subgradient steps
    (step 1/(βk)) on the β-strongly convex prox objective, using only the loss's subgradient oracle.  The
    error is ≤ ξ deterministically (``prox_inner_iterations``), so the sensitivity bound becomes
    L' = L_env + ξ: σ and η are calibrated with L', and every approximate gradient is clipped to L' (a
    data-independent guard against floating-point slop).

    The NeurIPS text only sketches A_ProxGD ("details in the full version"); this is the reconstruction of
    ``docs/derivations.md#reconstruction-of-proxgd`` (not verified against [BFTT19]).  Default accuracy
    ξ = L/√(nT) reproduces the paper's ≈ n²T²m gradient count (with ``localized=False``); ``accuracy`` is a
    utility constant that may be overridden (privacy is unaffected because L' includes ξ).

    ``replicates``, ``calibration``, ``white_box``: as in ``noisy_sgd`` (σ is calibrated with L' on the worst
    pair; the step function is the clipped approximate envelope gradient).

    Returns
    -------
    Release; gradient evaluations = T·m·(K − 1) subgradient calls (per run).

    Raises
    ------
    ValueError / TypeError as ``noisy_sgd``; also when T·(K − 1), the number of inner prox steps, exceeds
    ``dpsco.reference.validation.MAX_ITERATIONS`` (a tiny ``accuracy``: K = ⌈4G²/ξ²⌉), before any loop starts.
    """
    Xa, ya, n_clipped, eps, dl, rng = _check_common(problem, X, y, epsilon, delta, rng, clip, "A_ProxGD")
    localized = check_bool(localized, "localized")
    white_box = check_bool(white_box, "white_box")
    _replicates(replicates)  # before the calibration (seconds at T >= 2)
    n, d = Xa.shape
    L, M = problem.lipschitz, problem.radius
    L_env = _envelope_lipschitz(L, lipschitz_envelope)
    beta = theorem_4_4_beta(n, d, eps, dl, L, M)
    T_used = (check_iterations(T, "T", remedy="pass a smaller T") if T is not None
              else math.floor(theorem_3_2_T(n, d, eps, dl)))
    if T_used < 1:
        raise PaperRegimeError(f"Theorem 3.2 gives T < 1 for n={n}, d={d}, epsilon={eps}, delta={dl}")
    xi = L / math.sqrt(n * T_used) if accuracy is None else check_positive(accuracy, "accuracy")
    L_prime = L_env + xi
    if not L_prime <= 1e150:  # L' is the clipping norm the noise is calibrated to; σ² ∝ L'² must stay finite
        raise ValueError(f"accuracy = {xi!r} is too large: the clipping norm L' = L_env + ξ = {L_prime:.3g} makes "
                         "the noise variance overflow (limit 1e150)")
    K = prox_inner_iterations(L, beta, xi, M, localized=localized)
    check_iterations(T_used * (K - 1), "T·(K − 1), the inner prox steps (K from accuracy)",
                     remedy="pass a larger accuracy or a smaller T")  # before the calibration and nsgd_core's loop
    params = theorem_3_2_parameters(n, d, eps, dl, L_prime, M, T=T_used, calibration=calibration)
    loss, domain = problem.loss, problem.domain
    if localized:
        _require_global_lipschitz(problem)
    local_radius = L / beta if localized else None

    grad_fn = ApproximateEnvelopeGradientOracle(loss, Xa, ya, beta, K, domain=domain,  # β(w − v_K) per sample
                                                local_radius=local_radius)

    def record_gradient(W: np.ndarray, x: np.ndarray, yv: float) -> np.ndarray:  # the step function, one record
        Wa = np.asarray(W, dtype=np.float64)
        g = approximate_envelope_gradient(loss, Wa, np.broadcast_to(np.asarray(x, dtype=np.float64), Wa.shape),
                                          np.full(Wa.shape[0], float(yv)), beta, K, domain=domain,
                                          local_radius=local_radius)
        return clip_per_sample(g, L_prime)[0]

    wbar, info = nsgd_core(grad_fn, n, d, domain, T=params.T, m=params.m, eta=params.eta, sigma2=params.sigma2,
                           clip_norm=L_prime, rng=rng, replicates=_replicates(replicates),
                           return_noisy_gradients=white_box)
    claim = nsgd_claim(
        problem, n, eps, dl, params, clip, L_prime,
        f"{PAPER}, Theorem 3.1 applied to approximate envelope gradients (Sec. 4, A_ProxGD; reconstructed, "
        "not verified against [BFTT19])",
        extra={"beta": beta, "prox_accuracy": xi, "inner_iterations": K, "localized": localized,
               "prox_domain": "Rd" if localized else "W",
               "lipschitz_envelope": lipschitz_envelope},
    )
    return Release(
        output=_unreplicate(wbar, replicates), claim=claim, gradient_evaluations=params.T * params.m * (K - 1),
        parameters={**params.to_dict(), "beta": beta, "accuracy": xi, "inner_iterations": K,
                    "localized": localized, "lipschitz_envelope": lipschitz_envelope},
        algorithm="A_ProxGD (Bassily et al. 2019, Sec. 4)", replicates=replicates,
        diagnostics={"clip_events": info["clip_events"], "rows_clipped": n_clipped},
        nonprivate_internals=_batch_internals(info),
        white_box=_trace(info, record_gradient, n, params, L_prime, "A_ProxGD") if white_box else None,
    )
