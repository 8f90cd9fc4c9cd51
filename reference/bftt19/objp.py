"""Objective perturbation of Bassily, Feldman, Talwar and Thakurta (2019): A_ObjP (Algorithm 2, privacy Thm 5.2,
utility Thm 5.3) and efficient objective perturbation (Sec. 5, reconstructed in
``docs/derivations.md#reconstruction-of-efficient-objective-perturbation``).

Split from ``dpsco.reference.bftt19.algorithms`` (which re-exports both) to keep each module short; the module
docstring there lists the departures from the printed text.  Both read like the paper: check the public inputs
and the data, compute the parameters (``dpsco.reference.bftt19.theorems``), draw the noise, solve, state the
claim (``dpsco.reference.bftt19.claims``), return a ``Release``.

What a release publishes (``Release.to_dict``): the output, the claim and the parameters — all functions of public
inputs (the solver's target, never the certificate reached) — and ``gradient_evaluations``, the count the schedule
prescribes from public inputs (A_ObjP: 0, an exact minimiser; efficient ObjP: the cap of its Prox-SVRG schedule).
The data-dependent numbers (stages run, certificates, rows clipped) are diagnostics or ``nonprivate_internals``.

Never raising after the data checks.  Every refusal that depends on public inputs happens before the noise is
drawn; afterwards a run that the certificate cannot vouch for (floating point on extreme inputs) releases the
solver's best point instead of raising (``dpsco.reference.bftt19.objp_replicates.certified_or_best``), and
efficient ObjP hands a run whose Prox-SVRG stages reach ``max_stages`` to the certified Newton solver instead of
raising ``RuntimeError`` (an exception that depends on the data is a release too, with ε = ∞).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpsco.reference.bftt19.claims import efficient_objp_claim, objp_claim, objp_preconditions
from dpsco.reference.bftt19.objp_replicates import batched_objp_minimize, batched_prox_svrg, certified_or_best
from dpsco.reference.bftt19.theorems import (PaperRegimeError, algorithm_2_noise_variance, check_paper_regime,
                                             efficient_objp_parameters, theorem_5_3_lambda)
from dpsco.reference.glm_certificate import certify
from dpsco.reference.glm_objective import objective_gradient
from dpsco.reference.privacy import Release
from dpsco.reference.problem import ERMProblem
from dpsco.reference.validation import (check_bool, check_calibration_budget, check_iterations, check_positive,
                                        check_positive_int, check_rng)

__all__ = ["OBJP_PRECISION_FLOOR", "RADIUS_R_MIN", "check_common", "efficient_objective_perturbation",
           "efficient_objp_schedule_count", "efficient_objp_svrg_constants", "objective_perturbation",
           "replicate_count"]


def check_common(problem: ERMProblem, X: Any, y: Any, epsilon: Any, delta: Any, rng: Any, clip: bool,
                 algorithm: str) -> tuple[np.ndarray, np.ndarray, int, float, float, np.random.Generator]:
    """The up-front checks every algorithm of the paper makes before any noise is drawn: ``problem`` an
    ERMProblem on a bounded ball, (ε, δ) in the calibration's range and in the paper's regime (ε ≤ 1,
    δ ≤ 1/n²), ``rng`` a Generator, the data within the declared bounds (``problem.check``).  Returns (X, y,
    rows clipped, ε, δ, rng); raises TypeError / ValueError / PaperRegimeError naming the parameter."""
    if not isinstance(problem, ERMProblem):
        raise TypeError(f"problem must be an ERMProblem, got {type(problem).__name__}")
    eps, dl = check_calibration_budget(epsilon, delta)  # ε, δ in the range where the calibration is finite
    rng = check_rng(rng)
    if not problem.domain.bounded:
        raise ValueError("problem.domain must be a bounded ball: the theorems need an M-bounded W")
    Xa, ya, n_clipped = problem.check(X, y, clip=clip)
    check_paper_regime(Xa.shape[0], eps, dl, algorithm)
    return Xa, ya, n_clipped, eps, dl, rng


def replicate_count(replicates: int | None) -> int:
    """R = 1 for a release (``replicates=None``), else the checked ``replicates`` (an integer ≥ 1)."""
    return 1 if replicates is None else check_positive_int(replicates, "replicates")


_check_common = check_common
_replicates = replicate_count


# ================================================================================================
# Algorithm 2: A_ObjP
# ================================================================================================


def objective_perturbation(
    X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator, *,
    lam: float | None = None, override_preconditions: bool = False, solver_tol: float = 1e-10,
    clip: bool = False, replicates: int | None = None,
) -> Release:
    """A_ObjP: objective perturbation (Bassily et al. 2019, Algorithm 2).

    Line 1: G ~ N(0, σ² I_d), σ² = 10 L² log(1/δ)/ε².
    Line 2: ŵ = argmin_{w ∈ W} L̂(w; S) + ⟨G, w⟩/n + λ‖w‖², computed by the certified solver
    (``dpsco.reference.solvers``) to a certified distance ‖ŵ − w*‖ ≤ ``solver_tol``.

    Parameters
    ----------
    X, y, problem, epsilon, delta, rng, clip : as in ``noisy_sgd``.
    lam : λ > 0; default Theorem 5.3's λ = (2L/M)√(2/n + 4d log(1/δ)/(ε²n²)).
    override_preconditions : the privacy theorem (Thm 5.2) needs Assumption 5.1 (C², rank-≤1 Hessian),
        β ≤ εnλ, ε ≤ 1 and δ ≤ 1/n².  By default a violation raises ``PaperRegimeError``.  With
        ``override_preconditions=True`` the algorithm runs anyway and the release's claim has notion "none"
        and lists the failed conditions.
    solver_tol : target certified distance to the exact minimiser; the target used is
        max(solver_tol, OBJP_PRECISION_FLOOR·M) (public), because a double-precision certificate cannot locate the
        minimiser more finely than ~1e-16·M (W = B(0, 1e6) reached 1.4e-10 against the default 1e-10 and raised).
    replicates : if given, k = ``replicates`` independent runs at once (verification records for auditors and
        checks): output (k, d).  Replicate r draws its own G from child r of ``rng.spawn(k)`` exactly as a
        single call draws G from its generator, and all k are solved by the batched certified Newton of
        ``dpsco.reference.bftt19.objp_replicates`` (rows it cannot certify are re-solved by the single-run
        solver), each to the certified distance ``solver_tol``; the claim and ``diagnostics["certificate"]``
        carry the worst row's certificate.  This function's single run is the reference
        (``tests/bftt19/test_bftt19_objp_replicates.py``).

    Returns
    -------
    Release; the claim is conditional on the solver certificate (the proof needs the exact argmin) and states the
    public target; ``gradient_evaluations`` is 0 (Algorithm 2 prescribes an exact minimiser, not a gradient
    schedule).  After the data checks it never raises: a run the solver cannot certify releases the solver's best
    point (``dpsco.reference.bftt19.objp_replicates.certified_or_best``; ``diagnostics["certified"]`` is False,
    never published).

    Raises
    ------
    ValueError / TypeError naming the parameter: bad data (NaN/inf, complex, shapes, bounds), ``clip`` not a
    bool, ``epsilon`` outside [EPSILON_MIN, EPSILON_MAX] or 0 < ``delta`` < DELTA_MIN
    (``dpsco.reference.validation``: σ² = 10L² log(1/δ)/ε² and λ would overflow, e.g. ε = 1e-200 made ε² = 0),
    ``replicates`` not None or an integer >= 1;
    PaperRegimeError for failed preconditions (unless overridden).  All before G is drawn.
    """
    if not isinstance(problem, ERMProblem):
        raise TypeError(f"problem must be an ERMProblem, got {type(problem).__name__}")
    (eps, dl), rng = check_calibration_budget(epsilon, delta), check_rng(rng)
    _replicates(replicates)  # before any work
    override_preconditions = check_bool(override_preconditions, "override_preconditions")
    solver_tol = check_positive(solver_tol, "solver_tol")
    if not problem.domain.bounded:
        raise ValueError("problem.domain must be a bounded ball")
    Xa, ya, n_clipped = problem.check(X, y, clip=clip)
    n, d = Xa.shape
    L, M = problem.lipschitz, problem.radius
    failures: list[str] = []
    try:
        check_paper_regime(n, eps, dl, "A_ObjP")
    except PaperRegimeError as exc:
        failures.append(str(exc))
    if dl <= 0.0:
        raise ValueError("delta must be > 0 for objective perturbation (σ² involves log(1/δ))")
    lam_used = theorem_5_3_lambda(n, d, eps, dl, L, M) if lam is None else check_positive(lam, "lam")
    if not lam_used * M <= 1e150:  # the solver's gradient 2λw (‖w‖ ≤ M) and its squared norm must stay finite
        raise ValueError(f"lam = {lam_used!r} is too large for W = B(0, {M!r}): the regulariser's gradient 2λw "
                         "overflows floating point (λ·M must be <= 1e150; lam = 1.8e308 gave NaN gradients)")
    failures += objp_preconditions(problem, n, eps, lam_used)
    if failures and not override_preconditions:
        raise PaperRegimeError("objective perturbation refuses: " + "; ".join(failures)
                               + " (pass override_preconditions=True to run without a privacy claim)")
    sigma2 = algorithm_2_noise_variance(L, eps, dl)
    tol = max(solver_tol, OBJP_PRECISION_FLOOR * M)  # public: the certificate's double-precision floor
    claim = objp_claim(problem, eps, dl, lam_used, sigma2, clip, tol, failures)
    parameters = {"lambda": lam_used, "sigma2": sigma2, "solver_tol": tol}
    if replicates is not None:
        return _objp_replicated(problem, Xa, ya, n_clipped, rng, lam_used, sigma2, tol, failures, claim, parameters,
                                _replicates(replicates))
    G = math.sqrt(sigma2) * rng.standard_normal(d)  # Alg. 2, line 1
    pt = certified_or_best(problem.loss, Xa, ya, problem.domain, lam=lam_used, linear=G / n,
                           tol=tol)  # Alg. 2, line 2 (fail-safe: the best point if the certificate misses tol)
    return Release(
        output=pt.w, claim=claim, gradient_evaluations=0, parameters=parameters,
        algorithm="A_ObjP (Bassily et al. 2019, Algorithm 2)",
        diagnostics={"certificate": None if pt.certificate is None else pt.certificate.to_dict(),
                     "certified": pt.certified, "solver_note": pt.note, "solver_iterations": pt.iterations,
                     "rows_clipped": n_clipped, "preconditions_failed": failures},
        nonprivate_internals={"G": G},
    )


#: The smallest certified distance A_ObjP asks of its solver, relative to M: a double-precision certificate
#: locates the minimiser to ~1e-16·M at best (W = B(0, 1e6): 1.4e-10), so the solver's target is
#: max(solver_tol, OBJP_PRECISION_FLOOR·M), a public quantity (at M = 2 the default 1e-10 is unchanged).
OBJP_PRECISION_FLOOR = 1e-12


def _objp_replicated(problem: ERMProblem, Xa: np.ndarray, ya: np.ndarray, n_clipped: int, rng: np.random.Generator,
                     lam_used: float, sigma2: float, tol: float, failures: list[str], claim: Any,
                     parameters: dict[str, Any], k: int) -> Release:
    """``objective_perturbation`` with ``replicates=k``: replicate r draws G_r from ``rng.spawn(k)[r]`` as a single
    run draws G (Alg. 2, line 1), and the k minimisers (line 2) come from ``batched_objp_minimize``, each
    certified to ``tol`` (or, failing that, its best point, as a single run); diagnostics give the worst
    certificate."""
    n, d = Xa.shape
    G = np.stack([math.sqrt(sigma2) * child.standard_normal(d) for child in rng.spawn(k)])  # Alg. 2, line 1
    sol = batched_objp_minimize(problem.loss, Xa, ya, problem.domain, lam=lam_used, linear=G / n,
                                tol=tol)  # Alg. 2, line 2, k objectives at once
    worst = sol.worst()
    return Release(
        output=sol.W, claim=claim, gradient_evaluations=0, parameters=parameters,
        algorithm="A_ObjP (Bassily et al. 2019, Algorithm 2)", replicates=k,
        diagnostics={"certificate": None if worst is None else worst.to_dict(),
                     "certified": bool(np.all(sol.certified)), "solver_iterations": int(sol.iterations.max()),
                     "single_run_fallbacks": int(sol.fallback.sum()), "rows_clipped": n_clipped,
                     "preconditions_failed": failures},
        nonprivate_internals={"G": G},
    )


# ================================================================================================
# Efficient objective perturbation: Prox-SVRG to a certified radius r, then Gaussian output noise
# (Sec. 5, last paragraph; details reconstructed,
# docs/derivations.md#reconstruction-of-efficient-objective-perturbation)
# ================================================================================================


#: Smallest certified radius r (relative to M) efficient objective perturbation attempts: the a-posteriori
#: certificate locates the perturbed minimiser to ~1e-16·M at best (n = 40, d = 2: 4e-16), so a smaller r is never
#: certified and the SVRG stages would run to max_stages for nothing.
RADIUS_R_MIN = 1e-12


def efficient_objp_svrg_constants(beta: float, lam: float) -> tuple[float, int]:
    """Step 2's Prox-SVRG constants from public inputs: step 0.1/L_Q and inner length ⌈100 L_Q/μ⌉ with
    L_Q = β + 2λ (the components' smoothness) and μ = 2λ (J's strong convexity) [XZ14].  Raises ValueError when
    the inner length exceeds ``dpsco.reference.validation.MAX_ITERATIONS``."""
    mu, LQ = 2.0 * lam, float(beta) + 2.0 * lam
    inner = check_iterations(math.ceil(100.0 * LQ / mu), "the SVRG inner length ⌈100 L_Q/μ⌉",
                             remedy="it grows with n; use fewer rows")
    return 0.1 / LQ, inner


def efficient_objp_schedule_count(n: int, inner: int, max_stages: int) -> int:
    """The gradient evaluations efficient ObjP's schedule allows, from public inputs: the certificate at the
    start (n) and ``max_stages`` Prox-SVRG stages, each a full gradient (n), ``inner`` variance-reduced steps of two
    per-sample gradients and a certificate (n): n + max_stages·(2n + 2·inner).  The stages actually run stop at
    the first certificate ≤ r, so the performed count (``nonprivate_internals["gradient_evaluations_performed"]``)
    is at most this cap (a run handed to the certified Newton solver after max_stages adds that solver's work,
    counted in its diagnostics, not here)."""
    return int(n) + int(max_stages) * (2 * int(n) + 2 * int(inner))


def efficient_objective_perturbation(
    X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator, *,
    max_stages: int = 10_000, clip: bool = False, replicates: int | None = None,
) -> Release:
    """Efficient objective perturbation (Bassily et al. 2019, Sec. 5; reconstructed in
    ``docs/derivations.md#reconstruction-of-efficient-objective-perturbation``).

    1. G ~ N(0, σ1² I), σ1² = 10L² log(1/δ1)/ε1²; J(w) = L̂(w; S) + ⟨G, w⟩/n + λ‖w‖² (Alg. 2 at (ε1, δ1)).
    2. Prox-SVRG [XZ14] with projection onto W (step 0.1/L_Q, inner length ⌈100 L_Q/μ⌉, L_Q = β + 2λ,
       μ = 2λ) until the a-posteriori strong-convexity certificate gives ‖w̃ − ŵ‖ ≤ r; a run whose stages reach
       ``max_stages`` takes the certified Newton solver's point at distance ≤ r/2 instead (the certificate, not
       the solver, is what the privacy argument needs).
    3. Return Proj_W(w̃ + N(0, σ2² I)), σ2 = r√(2 log(1.25/δ2))/ε2.

    Privacy: (ε1 + 2ε2, e^{ε2}δ1 + (1 + e^{ε1+ε2})δ2) ≤ (ε, δ)-DP (same derivation), because ‖w̃ − ŵ‖ ≤ r
    holds on every run (deterministic certificate, not an in-expectation SVRG bound).  The *number* of SVRG stages
    depends on the data; the output does not reveal it, and neither does the release: ``gradient_evaluations``
    is the schedule's cap from public inputs (:func:`efficient_objp_schedule_count`), the count performed is in
    ``nonprivate_internals["gradient_evaluations_performed"]`` (never published).

    ``replicates``: if given, k independent runs at once (verification records): output (k, d).  Replicate r
    consumes child r of ``rng.spawn(k)`` exactly as a single call consumes its generator (G, then its own SVRG
    index stream spawned from it, then the step-3 noise), and the k Prox-SVRG runs are iterated together by
    ``dpsco.reference.bftt19.objp_replicates.batched_prox_svrg``, each row until its own certificate gives
    ‖w̃_r − ŵ_r‖ ≤ r; ``diagnostics["certificate"]`` is the worst row's, the performed count the mean per run.
    This function's single run is the reference (``tests/bftt19/test_bftt19_objp_replicates.py``).

    Returns
    -------
    Release with the noisy output (d,), the composed claim, the schedule's gradient-evaluation cap; white-box
    internals ``nonprivate_internals``: "G" (step 1's noise), "w_tilde" (step 2's point, the centre of step 3's
    noise), "gradient_evaluations_performed".

    Raises
    ------
    ValueError / TypeError as ``noisy_sgd`` (data, ``clip``, ``epsilon``/``delta`` range), for ``max_stages``
    not an integer >= 1, ``replicates`` not None or an integer >= 1, a certified radius r below
    RADIUS_R_MIN·M, and when the SVRG inner length exceeds ``dpsco.reference.validation.MAX_ITERATIONS``;
    PaperRegimeError (preconditions).  All before G is drawn; nothing is raised afterwards.
    """
    Xa, ya, n_clipped, eps, dl, rng = _check_common(problem, X, y, epsilon, delta, rng, clip, "efficient ObjP")
    max_stages = check_positive_int(max_stages, "max_stages")
    _replicates(replicates)  # before any work
    n, d = Xa.shape
    L, M = problem.lipschitz, problem.radius
    p = efficient_objp_parameters(n, d, eps, dl, L, M)
    if not p.radius_r >= RADIUS_R_MIN * M:
        # ε = 1e-30 (n = 40, d = 2) gave r = 6e-33: the certificate's floor is ~1e-16·M, so all max_stages = 10⁴
        # SVRG stages ran (93 s at n = 40) before the RuntimeError
        raise ValueError(f"epsilon = {eps!r} (with n = {n}, d = {d}, delta = {dl!r}) gives a certified radius "
                         f"r = Mε/(4√(2nd log(1.25/δ₂))) = {p.radius_r:.3g} below {RADIUS_R_MIN:g}·M, the precision "
                         "to which a double-precision certificate can locate the perturbed minimiser; Prox-SVRG "
                         "would run all max_stages stages and then refuse (such an epsilon releases pure noise)")
    failures = objp_preconditions(problem, n, p.epsilon1, p.lam)
    if failures:
        raise PaperRegimeError("efficient objective perturbation refuses: " + "; ".join(failures))
    loss, domain = problem.loss, problem.domain
    step, inner = efficient_objp_svrg_constants(float(problem.smoothness), p.lam)  # type: ignore[arg-type]
    claim = efficient_objp_claim(problem, p)
    parameters = {**p.to_dict(), "svrg_step": step, "svrg_inner_length": inner, "max_stages": max_stages}
    schedule = efficient_objp_schedule_count(n, inner, max_stages)
    if replicates is not None:
        return _efficient_objp_replicated(problem, Xa, ya, p, rng, _replicates(replicates), step, inner,
                                          max_stages, claim, parameters, schedule, n_clipped)
    G = math.sqrt(p.sigma1_sq) * rng.standard_normal(d)  # step 1
    c = G / n

    def comp_grad(w: np.ndarray, i: int) -> np.ndarray:  # ∇ of f_i(w) = ℓ(w, z_i) + ⟨c, w⟩ + λ‖w‖²
        return loss.dphi(np.array([Xa[i] @ w]), ya[i:i + 1])[0] * Xa[i] + c + 2.0 * p.lam * w

    def certified(cert: Any) -> bool:
        return cert.distance_bound is not None and cert.distance_bound <= p.radius_r

    svrg_rng = rng.spawn(1)[0]
    w_snap = domain.project(np.zeros(d))
    evals, stages = 0, 0
    cert = certify(loss, Xa, ya, domain, w_snap, lam=p.lam, linear=c)
    evals += n
    while not certified(cert) and stages < max_stages:  # step 2
        mu_full = objective_gradient(loss, Xa, ya, w_snap, lam=p.lam, linear=c)
        x = w_snap.copy()
        acc = np.zeros(d)
        for i in svrg_rng.integers(0, n, size=inner):
            v = comp_grad(x, int(i)) - comp_grad(w_snap, int(i)) + mu_full
            x = domain.project(x - step * v)
            acc += x
        w_snap = acc / inner
        evals += n + 2 * inner
        stages += 1
        cert = certify(loss, Xa, ya, domain, w_snap, lam=p.lam, linear=c)
        evals += n
    path, is_certified, note = "Prox-SVRG (certified)", True, ""
    if not certified(cert):  # max_stages spent: the certified Newton solver, never an exception (fail-safe)
        pt = certified_or_best(loss, Xa, ya, domain, lam=p.lam, linear=c, tol=0.5 * p.radius_r)
        w_snap, cert_d, is_certified, note = pt.w, pt.certificate, pt.certified, pt.note
        path = "certified Newton solver (Prox-SVRG did not reach r in max_stages stages)"
    else:
        cert_d = cert
    w_out = domain.project(w_snap + p.sigma2 * rng.standard_normal(d))  # step 3
    return Release(
        output=w_out, claim=claim, gradient_evaluations=schedule, parameters=parameters,
        algorithm="Efficient ObjP (Bassily et al. 2019, Sec. 5)",
        diagnostics={"stages": stages, "certificate": None if cert_d is None else cert_d.to_dict(), "path": path,
                     "certified": is_certified, "solver_note": note, "rows_clipped": n_clipped},
        nonprivate_internals={"G": G, "w_tilde": w_snap.copy(), "gradient_evaluations_performed": evals},
    )


def _efficient_objp_replicated(problem: ERMProblem, Xa: np.ndarray, ya: np.ndarray, p: Any,
                               rng: np.random.Generator, k: int, step: float, inner: int, max_stages: int,
                               claim: Any, parameters: dict[str, Any], schedule: int, n_clipped: int) -> Release:
    """``efficient_objective_perturbation`` with ``replicates=k``: replicate r consumes ``rng.spawn(k)[r]`` as a
    single run consumes its generator (step 1's G, then the SVRG index stream spawned from it, then step 3's
    noise), and the k Prox-SVRG runs (step 2) are iterated together, each until its own certified radius."""
    n, d = Xa.shape
    G, noise, streams = [], [], []
    for child in rng.spawn(k):
        G.append(math.sqrt(p.sigma1_sq) * child.standard_normal(d))  # step 1
        streams.append(child.spawn(1)[0])  # the run's SVRG indices
        noise.append(child.standard_normal(d))  # step 3's noise: a spawn draws nothing, so same numbers as a run
    sol, evals = batched_prox_svrg(problem.loss, Xa, ya, problem.domain, lam=p.lam, linear=np.stack(G) / n,
                                   radius=p.radius_r, step=step, inner=inner, streams=streams,
                                   max_stages=max_stages)  # step 2
    w_out = problem.domain.project(sol.W + p.sigma2 * np.stack(noise))  # step 3
    worst = sol.worst()
    return Release(
        output=w_out, claim=claim, gradient_evaluations=schedule, parameters=parameters,
        algorithm="Efficient ObjP (Bassily et al. 2019, Sec. 5)", replicates=k,
        diagnostics={"stages": int(sol.iterations.max()), "certificate": None if worst is None else worst.to_dict(),
                     "certified": bool(np.all(sol.certified)), "newton_fallbacks": int(sol.fallback.sum()),
                     "gradient_evaluations_max": int(evals.max()), "rows_clipped": n_clipped},
        nonprivate_internals={"G": np.stack(G), "w_tilde": sol.W.copy(),
                              "gradient_evaluations_performed": int(round(float(evals.mean())))},
    )
