"""Algorithms 1–6 of Asi, Chadha, Cheng & Duchi (2022), "Private optimization in the interpolation regime: faster
rates and hardness results", arXiv:2210.17070.

Call graph (the paper's): Algorithm 3 runs Algorithm 1 on the first half and Algorithm 2 on the second; Algorithms
2 and 6 run Algorithm 1 on disjoint batches, shrinking the domain and the Lipschitz constant; Algorithm 1 runs
Algorithm 5 (Asi, Levy & Duchi 2021, Algorithm 2) on the Lipschitzian extensions F_L; Algorithm 5 runs Algorithm
4 (the localisation algorithm) on disjoint epochs; Algorithm 4 solves a regularised ERM on disjoint phases and adds
Laplace or Gaussian noise.

Privacy (Proposition 1, Theorems 2, 3, 6–9): every record enters exactly one regularised ERM, whose objective
G(x) = (1/n_0)Σ_j F_L(x; s_j) + (1/(η n_0))‖x − c‖² is (2/(η n_0))-strongly convex with L-Lipschitz summands, so
its exact minimiser moves by at most Lη when one record is replaced (``docs/derivations.md``, "Sensitivity of
Algorithm 4's phase").  Every other phase sees the same data on neighbours; the centre, domain and step size of
later phases are post-processing of earlier outputs.  So the whole transcript is (ε, δ)-DP by parallel
composition, whatever the data: the Lipschitzian extension (Algorithm 1) makes every summand L-Lipschitz even on
non-interpolating data, where L_{i+1} = H·D_{i+1} bounds no raw gradient.

What this implementation fixes where the printed text is silent or wrong (each in ERRATA.md with its test):

* the inner ERM is solved by projected gradient descent run for a number of steps computed *before the data is
  read* from (L, H, η, n_0) — the contraction q = H/(H + 4/(η n_0)) of step 2/(μ + β) certifies
  ‖x̂ − x*‖ ≤ tol = ``solver_tol``·Lη, with the stated error ``grad_rtol``·L of the loss's gradient oracle
  (the diagonal quadratic's τ-search; 0 for the closed forms) accounted for — so the phase's sensitivity is at
  most (1 + 2·solver_tol)·Lη (ACCD22-E3);
* every per-record gradient passes the fail-safe ``enforce_norm_bound`` (‖∇F_L‖ ≤ L as computed, finite) before
  the phase's ERM sums it: after the up-front data checks, every algorithm returns a finite release and never
  raises mid-run, whatever the (finite, admissible) records;
* the Gaussian branch's printed σ_i = 4Lη_i√(log(1/δ))/ε is used where the exact Gaussian curve at that
  sensitivity is ≤ δ, and the analytic-Gaussian σ otherwise (ACCD22-E3);
* ε_i = ε (ACCD22-E2); Algorithm 5's batches S_i = (s_{i n_0 + 1}, …, s_{(i+1) n_0}) (ACCD22-E1); Algorithm 3 line 2 runs
  Algorithm 1 on (X, L, x_0) (ACCD22-E5); the inner Algorithm 5 runs T_5 = ⌈2 log N/(κ̲ − 1)⌉ epochs (ACCD22-E6);
* every noisy output is projected onto the domain of its phase (post-processing): the printed x_i = x̂_i + ζ_i
  can leave its domain, and the next domain X ∩ B(x_i, D_i) is then empty (ACCD22-E4); Algorithm 4's own ball
  B(x_{i−1}, 2Lη_i n_0) is never active once the centre lies in the domain (the minimiser is within Lη_i n_0/2 of
  it), so the ERM is solved over the domain of Algorithm 5's epoch, an intersection of two balls, projected onto
  exactly.

Domains are Euclidean balls (public centre and radius).  Privacy-relevant quantities (T, m, T_5, k, n_0, η, σ, the
solver's step count, every radius and Lipschitz constant) come from public inputs only; the declared smoothness
H is checked against the records (a ValueError, before any noise is drawn).  A run is made of fixed parts
(:class:`Parts`: the gradient oracle, the phase solver, Algorithm 5's batches); the public functions always use
the paper's (:data:`REFERENCE_PARTS`) — planted bugs live in ``dpsco.verification.mutants.accd22.bugs``, never here.
The paper's utility constants (256, 128, c_κ, Theorem 2's m) are the defaults; ``constant=``, ``m=``, ``T=`` and
``T5=`` are explicit, recorded *utility* overrides.  The privacy calibration has no override.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from dpsco.reference.accd22 import theorems as th
from dpsco.reference.accd22.extension import ConvexLoss, check_records
from dpsco.reference.accd22.phase import (REFERENCE_PARTS, SOLVER_TOL, Balls, GradFn, Parts,
                                          PhaseRecord, Transcript, extension_oracle, phase_noise, project_balls,
                                          solve_phase, solver_steps)
from dpsco.reference.domains import Ball
from dpsco.reference.privacy import PrivacyClaim, Release
from dpsco.reference.validation import (check_calibration_budget, check_positive, check_positive_int, check_rng)

__all__ = ["Ball", "Parts", "PhaseRecord", "REFERENCE_PARTS", "Transcript", "SOLVER_TOL", "extension_oracle",
           "phase_noise", "project_balls", "run_with_parts", "solve_phase", "solver_steps", "algorithm_1",
           "algorithm_2", "algorithm_3", "algorithm_4", "algorithm_5", "algorithm_6"]

PAPER = "Asi, Chadha, Cheng & Duchi (2022), arXiv:2210.17070"


@dataclass
class _Context:
    loss: ConvexLoss
    H: float
    epsilon: float
    delta: float
    rng: np.random.Generator
    transcript: Transcript
    grad: GradFn
    parts: Parts = REFERENCE_PARTS
    solver_tol: float = SOLVER_TOL
    eta_scale: float = 1.0
    grad_rtol: float = 0.0


def _noise(kind: str, sigma: float, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    if kind == "laplace":
        return rng.laplace(0.0, sigma, size=shape)
    return rng.normal(0.0, sigma, size=shape)


def _phase_H(ctx: _Context, L: float) -> float:
    """The inner solver's smoothness at Lipschitz constant L: the declared H, or the loss family's public bound
    where the extension's smoothness grows with L (``ConvexLoss.smoothness_bound``) — public inputs only."""
    bound = ctx.loss.smoothness_bound(L)
    return ctx.H if bound is None else max(ctx.H, float(bound))


def _algorithm_4(Z: np.ndarray, offset: int, balls: Balls, eta: float, X0: np.ndarray, L: float,
                 ctx: _Context) -> np.ndarray:
    """Algorithm 4 on records Z (global index offset ``offset``), domain ``balls``, start X0 (R, d)."""
    k, n0 = th.algorithm_4_phases(Z.shape[0])  # line 1
    X = X0
    d = X0.shape[1]
    for i in range(1, k + 1):  # line 2
        eta_i = th.algorithm_4_eta(i, eta)  # line 3
        batch = Z[(i - 1) * n0:i * n0]
        H_i = _phase_H(ctx, L)
        xhat, K = ctx.parts.solve(ctx.grad, batch, L, H_i, eta_i, X, balls, ctx.solver_tol,
                                  ctx.grad_rtol)  # lines 4–5
        kind, sigma, _ = phase_noise(L, eta_i, d, ctx.epsilon, ctx.delta, ctx.solver_tol)  # lines 6–10
        noisy = xhat + _noise(kind, sigma, X.shape, ctx.rng)  # line 11
        ctx.transcript.phases.append(PhaseRecord(offset + (i - 1) * n0, offset + i * n0, eta_i, sigma, kind, L,
                                                 H_i, balls, X, noisy, K, ctx.parts.solver))
        ctx.transcript.gradient_evaluations += K * n0
        X = project_balls(noisy, balls)  # post-processing (ACCD22-E4)
    return X  # line 13


def _algorithm_5(Z: np.ndarray, offset: int, center: np.ndarray, radius: float, L: float, X0: np.ndarray, T5: int,
                 beta: float, ctx: _Context) -> np.ndarray:
    """Algorithm 5 on records Z, domain B(center, radius) (center (R, d) or (d,)), start X0 ∈ domain."""
    n = Z.shape[0]
    n0 = n // T5  # line 1
    if n0 < 1:
        raise ValueError(f"Algorithm 5 needs at least T5 = {T5} records, got {n}")
    D0 = 2.0 * radius
    eta0 = ctx.eta_scale * th.algorithm_5_eta0(D0, L, n0, X0.shape[1], ctx.epsilon, ctx.delta, beta)  # lines 2–6
    X = X0
    for i in range(T5):  # line 7
        S_i, at = ctx.parts.batch(Z, i, n0)  # line 8, corrected indices (ACCD22-E1)
        D_i, eta_i = 2.0 ** (-i) * D0, 2.0 ** (-i) * eta0  # line 9
        balls = [(np.broadcast_to(center, X.shape), radius), (X, D_i)]  # line 10: X ∩ B(x_i, D_i)
        X = _algorithm_4(S_i, offset + at, balls, eta_i, X, L, ctx)  # lines 11–12
    return X  # line 14


def _domain(domain: Any, x0: Any) -> Ball:
    """The domain X = B(c, r) as a :class:`dpsco.reference.domains.Ball` with an explicit centre (public): a
    ``Ball(r)`` without a centre is B(0, r) in the dimension of ``x0``.  Raises TypeError if ``domain`` is not a
    Ball, ValueError (naming ``domain``) if its radius is infinite (the step sizes need the diameter D = 2r)."""
    if not isinstance(domain, Ball):
        raise TypeError(f"domain must be a dpsco.reference.domains.Ball, got {type(domain).__name__}")
    if not domain.bounded:
        raise ValueError(f"domain must be a bounded ball (finite radius; the step sizes need Diam X), got radius "
                         f"{domain.radius}")
    if domain.center is not None:
        return domain
    try:
        d = np.asarray(x0, dtype=np.float64).size
    except (TypeError, ValueError):
        raise TypeError("x0 must be a numeric (d,) point") from None
    if d < 1:
        raise ValueError("x0 must be a non-empty (d,) point (it fixes the dimension of a domain without centre)")
    return Ball(domain.radius, center=np.zeros(d))


def _start(x0: Any, domain: Ball, R: int) -> np.ndarray:
    x = np.asarray(x0, dtype=np.float64).reshape(-1)
    if x.shape != (domain.d,) or not np.all(np.isfinite(x)):
        raise ValueError(f"x0 must be a finite point of dimension {domain.d}, got shape {x.shape}")
    if np.linalg.norm(x - domain.center) > domain.radius * (1 + 1e-12):
        raise ValueError("x0 must lie in the domain")
    return np.repeat(x[None, :], R, axis=0)


def _setup(parts: Parts, Z: Any, loss: ConvexLoss, domain: Any, L: float, H: float, epsilon: float, delta: float,
           rng: Any, replicates: int | None,
           eta_scale: float = 1.0) -> tuple[np.ndarray, _Context, int]:
    """Every input check of Algorithms 1–6 (named errors), before any noise is drawn: the records (finite, the
    loss family's own checks), the declared H against every record's extension (for families whose F_L smoothness
    grows with L the solver uses their public bound at each L_i: ``_phase_H``), and the gradient oracle's stated
    error against the solver's tolerance (grad_rtol·n ≤ SOLVER_TOL, so that every phase keeps a positive share)."""
    if not isinstance(loss, ConvexLoss):
        raise TypeError(f"loss must be a ConvexLoss of dpsco.reference.accd22.extension, got {type(loss).__name__}")
    Zc = check_records(Z, loss, domain.d)
    check_positive(L, "L")
    H = check_positive(H, "H")
    eps, dl = check_calibration_budget(epsilon, delta)
    rng = check_rng(rng)
    R = 1 if replicates is None else check_positive_int(replicates, "replicates")
    h = float(np.max(loss.extension_smoothness(Zc, float(L))))
    if not h <= max(H, loss.smoothness_bound(float(L)) or 0.0) * (1 + 1e-12):
        raise ValueError(f"H = {H} (declared smoothness) is below the smoothness {h:.6g} of a record's "
                         "Lipschitzian extension: the inner solver's certificate needs a valid H")
    rtol = float(parts.grad_rtol(loss))
    if not rtol * Zc.shape[0] <= SOLVER_TOL:
        raise ValueError(f"Z has {Zc.shape[0]} records: the gradient oracle's stated error {rtol:.3g}·L per record "
                         f"would leave the inner solver no tolerance (needs n·grad_rtol <= {SOLVER_TOL})")
    grad = parts.oracle(loss)
    tr = Transcript(grad=grad, solve=parts.solve, grad_rtol=rtol)
    return Zc, _Context(loss, H, eps, dl, rng, tr, grad, parts, eta_scale=check_positive(eta_scale, "eta_scale"),
                        grad_rtol=rtol), R


def _claim(epsilon: float, delta: float, source: str, L: float, loss: ConvexLoss, extra: dict[str, Any],
           tol: float = SOLVER_TOL, d: int = 1) -> PrivacyClaim:
    """The claim of every algorithm here: the phase holding the differing record is the only one whose output
    distribution differs (parallel composition), so its event is one Laplace (the Laplace branch: ℓ1 sensitivity
    ≤ √d(1 + 2tol)Lη_i at scale 4Lη_i√d/ε, noise multiplier 4/((1 + 2tol)ε)) or one Gaussian (σ_i over the
    ℓ2 sensitivity (1 + 2tol)Lη_i, the same ratio in every phase) — a model never looser than the stated (ε, δ).
    The event is a shift of 1 in units of the replace-one sensitivity, hence dp_accounting's ADD_OR_REMOVE_ONE
    (sensitivity 1), as for the other papers' single-shift events."""
    from dp_accounting import dp_event

    kind, sigma, _ = phase_noise(1.0, 1.0, d, epsilon, delta, tol)
    if kind == "laplace":
        event = dp_event.LaplaceDpEvent(noise_multiplier=4.0 / ((1.0 + 2.0 * tol) * epsilon))
    else:
        event = dp_event.GaussianDpEvent(noise_multiplier=sigma / (1.0 + 2.0 * tol))
    return PrivacyClaim(
        notion="pure-DP" if delta == 0.0 else "approx-DP", epsilon=epsilon, delta=delta, neighbouring="replace-one",
        source=f"{PAPER}, {source}",
        assumptions={"loss": loss.to_dict(), "convex per-sample losses": True,
                     "Lipschitzian extension": f"every summand replaced by its extension F_L with the calibration's L "
                                              f"(L = {L} at the top level)",
                     "inner solver": f"projected gradient descent, step count certifying ‖x̂ − x*‖ ≤ {tol}·Lη "
                                     "(public inputs only)",
                     "batches": "disjoint fixed index ranges: every record enters exactly one regularised ERM",
                     "noise": "Laplace (δ = 0, or d ≤ log(1/δ)) / Gaussian per phase, fresh draws", **extra},
        event=event, event_neighbouring="ADD_OR_REMOVE_ONE")  # the event's unit shift = the replace-one shift


def _release(X: np.ndarray, claim: PrivacyClaim, ctx: _Context, parameters: dict[str, Any], algorithm: str,
             replicates: int | None, white_box: bool) -> Release:
    out = X if replicates is not None else X[0]
    return Release(output=out.copy(), claim=claim, gradient_evaluations=ctx.transcript.gradient_evaluations,
                   parameters=parameters, algorithm=algorithm, replicates=replicates,
                   white_box=ctx.transcript if white_box else None,
                   diagnostics={"phases": len(ctx.transcript.phases)})


def algorithm_4(Z: Any, loss: ConvexLoss, domain: Ball, L: float, H: float, x0: Any, epsilon: float,
                delta: float, rng: np.random.Generator, *, eta: float | None = None, beta: float | None = None,
                replicates: int | None = None, white_box: bool = False) -> Release:
    """Algorithm 4 (localisation-based algorithm of Asi, Levy & Duchi 2021; App. A.2), on the Lipschitzian
    extensions F_L (the paper's "Lipschitz (clipping) constant L").

    Z : (n, p) records of ``loss`` (n ≥ 1).  domain : Ball X.  L > 0 : Lipschitz constant of the extension
    and of the calibration.  H > 0 : declared smoothness (checked against the records).  x0 : (d,) start in X.
    epsilon > 0, delta ∈ [0, 1).  eta : the step size; default Proposition 2/3's
    (D/L)·min{1/√(n log(1/β)), ε/(d_δ log(1/β))} with β = ``beta`` (default 1/(n + d)).
    replicates : R independent runs (an (R, d) verification record).  white_box : attach the :class:`Transcript`.

    Privacy: Propositions 2 (ε-DP) / 3 ((ε, δ)-DP).  Utility: Propositions 2 / 3 (:func:`theorems.proposition_2_bound`).
    Raises TypeError / ValueError naming the bad input."""
    return _run_algorithm_4(REFERENCE_PARTS, Z, loss, domain, L, H, x0, epsilon, delta, rng, eta=eta,
                            beta=beta, replicates=replicates, white_box=white_box)


def _run_algorithm_4(parts: Parts, Z: Any, loss: ConvexLoss, domain: Ball, L: float, H: float, x0: Any,
                     epsilon: float, delta: float, rng: np.random.Generator, *, eta: float | None = None,
                     beta: float | None = None, replicates: int | None = None, white_box: bool = False) -> Release:
    """:func:`algorithm_4` run with ``parts`` (the public function: :data:`REFERENCE_PARTS`)."""
    domain = _domain(domain, x0)
    Zc, ctx, R = _setup(parts, Z, loss, domain, L, H, epsilon, delta, rng, replicates)
    n = Zc.shape[0]
    b = 1.0 / (n + domain.d) if beta is None else check_positive(beta, "beta")
    e = th.proposition_2_eta(domain.diameter, L, n, domain.d, ctx.epsilon, ctx.delta, b) if eta is None \
        else check_positive(eta, "eta")
    X = _algorithm_4(Zc, 0, [(domain.center, domain.radius)], e, _start(x0, domain, R), L, ctx)
    k, n0 = th.algorithm_4_phases(n)
    claim = _claim(ctx.epsilon, ctx.delta, "Algorithm 4, Proposition 2 (δ = 0) / 3 (δ > 0)", L, loss, {}, d=domain.d)
    return _release(X, claim, ctx, {"k": k, "n0": n0, "eta": e, "beta": b, "L": L, "H": ctx.H},
                    "Algorithm 4 (localisation; Asi, Levy & Duchi 2021)", replicates, white_box)


def _T5(n: int, T5: int | None, kappa_lower: float = 2.0) -> int:
    return th.algorithm_5_epochs(n, kappa_lower) if T5 is None else check_positive_int(T5, "T5")


def algorithm_5(Z: Any, loss: ConvexLoss, domain: Ball, L: float, H: float, x0: Any, epsilon: float,
                delta: float, rng: np.random.Generator, *, beta: float | None = None, T5: int | None = None,
                kappa_lower: float = 2.0, eta_scale: float = 1.0, replicates: int | None = None,
                white_box: bool = False) -> Release:
    """Algorithm 5 (epoch-based algorithm for κ-growth; Asi, Levy & Duchi 2021, Algorithm 2; App. A.2) on the
    Lipschitzian extensions F_L — this *is* Algorithm 1 with M = Algorithm 5 (:func:`algorithm_1`).

    T5 : epochs, default ⌈2 log n/(κ̲ − 1)⌉ (Theorems 6, 7); beta default 1/(n + d).  Other parameters as
    :func:`algorithm_4`.  Privacy: Theorems 6 / 7.  Utility: Theorems 6 / 7 (:func:`theorems.theorem_6_bound`)."""
    return _run_algorithm_1(REFERENCE_PARTS, Z, loss, domain, L, H, x0, epsilon, delta, rng, beta=beta,
                            T5=T5, kappa_lower=kappa_lower, eta_scale=eta_scale, replicates=replicates,
                            white_box=white_box, name="Algorithm 5")


def algorithm_1(Z: Any, loss: ConvexLoss, domain: Ball, L: float, H: float, x0: Any, epsilon: float,
                delta: float, rng: np.random.Generator, *, beta: float | None = None, T5: int | None = None,
                kappa_lower: float = 2.0, eta_scale: float = 1.0, replicates: int | None = None,
                white_box: bool = False) -> Release:
    """Algorithm 1 (Lipschitzian-extension algorithm, Section 4.1) with M = Algorithm 5, as the paper instantiates
    it: line 1 replaces every F(·; s_i) by F_L(·; s_i) = inf_y {F(y; s_i) + L‖· − y‖} (exactly, in closed form:
    ``dpsco.reference.accd22.extension``); line 2 runs Algorithm 5 on them; lines 3–4 return its output.

    Z : (n, p) records.  domain : Ball X.  L > 0, H > 0 (declared smoothness), x0 ∈ X, epsilon > 0,
    delta ∈ [0, 1), rng : numpy Generator.  beta : default 1/(n + d).  T5 : Algorithm 5's epochs (default
    Theorem 6's).  Proposition 1.1: (ε, δ)-DP for every dataset of convex losses; Proposition 1.2: on L-Lipschitz
    data the output is Algorithm 5's on F (identical draws).  Returns a Release (replicates: an (R, d) record)."""
    return _run_algorithm_1(REFERENCE_PARTS, Z, loss, domain, L, H, x0, epsilon, delta, rng, beta=beta,
                            T5=T5, kappa_lower=kappa_lower, eta_scale=eta_scale, replicates=replicates,
                            white_box=white_box)


def _run_algorithm_1(parts: Parts, Z: Any, loss: ConvexLoss, domain: Ball, L: float, H: float, x0: Any,
                     epsilon: float, delta: float, rng: np.random.Generator, *, beta: float | None = None,
                     T5: int | None = None, kappa_lower: float = 2.0, eta_scale: float = 1.0,
                     replicates: int | None = None, white_box: bool = False, name: str = "Algorithm 1") -> Release:
    """:func:`algorithm_1` run with ``parts`` (the public function: :data:`REFERENCE_PARTS`)."""
    domain = _domain(domain, x0)
    Zc, ctx, R = _setup(parts, Z, loss, domain, L, H, epsilon, delta, rng, replicates, eta_scale)
    n = Zc.shape[0]
    b = 1.0 / (n + domain.d) if beta is None else check_positive(beta, "beta")
    T = _T5(n, T5, kappa_lower)
    X = _algorithm_5(Zc, 0, domain.center, domain.radius, L, _start(x0, domain, R), T, b, ctx)
    claim = _claim(ctx.epsilon, ctx.delta, "Proposition 1.1 with Algorithm 5 (Theorems 6 / 7)", L, loss, {}, d=domain.d)
    return _release(X, claim, ctx, {"T5": T, "n0": n // T, "beta": b, "L": L, "H": ctx.H,
                                    "T5_override": T5 is not None}, f"{name} ({PAPER})", replicates, white_box)


def _m_T(n: int, m: int | None, T: int | None, default_m: float, what: str) -> tuple[int, int, bool]:
    override = m is not None
    mm = check_positive_int(m, "m") if override else int(math.ceil(default_m))
    if mm > n:
        raise ValueError(f"{what}'s m = {mm} exceeds n = {n}: T = n/m < 1 (the paper's utility constants make this "
                         "happen at every practical n); pass m= (and optionally T=), an explicit, recorded utility "
                         "override")
    TT = n // mm if T is None else check_positive_int(T, "T")
    if TT * mm > n:
        raise ValueError(f"T·m = {TT * mm} exceeds n = {n}")
    return mm, TT, override


def algorithm_2(Z: Any, loss: ConvexLoss, domain: Ball, L: float, H: float, lam: float, x0: Any,
                epsilon: float, delta: float, rng: np.random.Generator, *, mu: float = 1.0, beta: float | None = None,
                m: int | None = None, T: int | None = None, T5: int | None = None,
                constant: float = th.ALGORITHM_2_CONSTANT, eta_scale: float = 1.0, replicates: int | None = None,
                white_box: bool = False) -> Release:
    """Algorithm 2 (domain and Lipschitz localisation, Section 4.2).

    Z : (n, p) records.  domain : Ball X (D_1 = Diam X).  L : the Lipschitz constant L_1.  H : smoothness
    (L_{i+1} = H·D_{i+1}; also the inner solver's declared bound).  lam : the quadratic-growth constant λ.  x0 ∈ X.
    mu : Theorem 2's β = n^{−μ} (default μ = 1) unless ``beta`` is given.  m, T : samples per epoch and epochs;
    default Theorem 2's m (which exceeds n at practical n: a ValueError asks for m=), T = ⌊n/m⌋.  T5 : inner
    Algorithm 5 epochs (default ⌈2 log m⌉).  constant : line 5's 256 (utility; recorded).

    Privacy: Theorem 2 ((ε, δ)-DP for every dataset: disjoint batches, Algorithm 1 in each).  Utility: Theorem 2
    under interpolation and quadratic growth (:func:`theorems.theorem_2_bound`).  Returns a Release."""
    return _run_algorithm_2(REFERENCE_PARTS, Z, loss, domain, L, H, lam, x0, epsilon, delta, rng, mu=mu,
                            beta=beta, m=m, T=T, T5=T5, constant=constant, eta_scale=eta_scale,
                            replicates=replicates, white_box=white_box)


def _run_algorithm_2(parts: Parts, Z: Any, loss: ConvexLoss, domain: Ball, L: float, H: float,
                     lam: float, x0: Any, epsilon: float, delta: float, rng: np.random.Generator, *,
                     mu: float = 1.0, beta: float | None = None, m: int | None = None, T: int | None = None,
                     T5: int | None = None, constant: float = th.ALGORITHM_2_CONSTANT, eta_scale: float = 1.0,
                     replicates: int | None = None, white_box: bool = False) -> Release:
    """:func:`algorithm_2` run with ``parts`` (the public function: :data:`REFERENCE_PARTS`)."""
    domain = _domain(domain, x0)
    Zc, ctx, R = _setup(parts, Z, loss, domain, L, H, epsilon, delta, rng, replicates, eta_scale=eta_scale)
    lam = check_positive(lam, "lam")
    n, d = Zc.shape[0], domain.d
    b_default, m_default, _ = th.theorem_2_parameters(max(n, 2), d, ctx.epsilon, ctx.delta, ctx.H, lam, mu)
    b = b_default if beta is None else check_positive(beta, "beta")
    mm, TT, override = _m_T(n, m, T, m_default, "Theorem 2")
    t5 = _T5(mm, T5)
    radius_fn = lambda L_i: th.algorithm_2_radius(L_i, lam, mm, TT, b, d, ctx.epsilon, ctx.delta, constant)
    x_start = _start(x0, domain, R)
    X = _run_epochs(Zc, 0, ctx, domain.center, domain.radius, x_start, L, mm, TT, b, t5, radius_fn)
    claim = _claim(ctx.epsilon, ctx.delta, "Theorem 2 (Algorithm 2)", L, loss, {"lambda": lam, "H": ctx.H},
                   d=d)
    params = {"m": mm, "T": TT, "T5": t5, "beta": b, "mu": mu, "constant": constant, "L": L, "H": ctx.H, "lam": lam,
              "m_override": override, "T_override": T is not None, "constant_override":
              constant != th.ALGORITHM_2_CONSTANT, "epochs": ctx.transcript.epochs}
    return _release(X, claim, ctx, params, f"Algorithm 2 ({PAPER})", replicates, white_box)


def _run_epochs(Zc: np.ndarray, offset: int, ctx: _Context, center: np.ndarray, radius: float, X0: np.ndarray,
                L1: float, m: int, T: int, beta: float, T5: int, radius_fn: Callable[[float], float]) -> np.ndarray:
    """Algorithms 2 and 6, lines 1–9: for i = 1..T, x_i = Algorithm 1 on S_i = (s_{(i−1)m+1}, …, s_{im}) over X_i
    with L_i, β/T, start x_{i−1}; D_{i+1} = radius_fn(L_i); X_{i+1} = B(x_i, D_{i+1}/2); L_{i+1} = H·D_{i+1}."""
    Xc, r, L_i, X = np.broadcast_to(center, X0.shape).copy(), radius, L1, X0
    for i in range(1, T + 1):  # line 3
        ctx.transcript.epochs.append({"i": i, "D_i": 2.0 * r, "L_i": L_i, "start": offset + (i - 1) * m,
                                      "stop": offset + i * m})
        X = _algorithm_5(Zc[(i - 1) * m:i * m], offset + (i - 1) * m, Xc, r, L_i, X, T5, beta / T, ctx)  # line 4
        ctx.transcript.epoch_outputs.append(X.copy())
        D_next = radius_fn(L_i)  # line 5
        Xc, r = X.copy(), D_next / 2.0  # line 6
        L_i = ctx.H * D_next  # line 7
    return X  # line 9


def algorithm_3(Z: Any, loss: ConvexLoss, domain: Ball, L: float, H: float, lam: float, x0: Any,
                epsilon: float, delta: float, rng: np.random.Generator, *, beta: float | None = None,
                mu: float = 1.0, m: int | None = None, T: int | None = None, T5: int | None = None,
                constant: float = th.ALGORITHM_3_CONSTANT, alg2_constant: float = th.ALGORITHM_2_CONSTANT,
                printed_radius: bool = False, project_output: bool = True, eta_scale: float = 1.0, replicates: int | None = None,
                white_box: bool = False) -> Release:
    """Algorithm 3 (adapts to interpolation, Section 4.3).

    Line 1 splits S into S_1 = first ⌊n/2⌋ records and S_2 = the next ⌊n/2⌋; line 2 runs Algorithm 1 on S_1 with
    (X, L, β/2, x_0) (the printed X_i, L_i, x_{i−1} are copied from Algorithm 2: ACCD22-E5); line 3 sets
    D_int = 128(L/λ)A(⌊n/2⌋, β/2) (A's N = |S_1|; ``printed_radius=True`` uses the printed n, ACCD22-E12); line 4
    X_int = B(x_1, D_int/2); line 5 runs Algorithm 2 on S_2 with (L, X_int, β/2, start x_1) and m, T (default
    Theorem 2's at ⌊n/2⌋: a ValueError asks for m= where it exceeds n/2).  With ``project_output`` (default) the
    output is projected onto X_int (post-processing; Theorem 3.2's proof needs x_adapt ∈ X_int, which Algorithm 2's
    full balls do not guarantee: ACCD22-E4).  beta default n^{−μ}.  Other parameters as :func:`algorithm_2`.

    Privacy: Theorem 3.1 (ε-DP) / Theorem 9.1 ((ε, δ)-DP; printed "ε-DP", ACCD22-E13): disjoint halves.  Utility:
    Theorem 3 / 9 (:func:`theorems.theorem_3_bound` without interpolation, Theorem 2's with it)."""
    return _run_algorithm_3(REFERENCE_PARTS, Z, loss, domain, L, H, lam, x0, epsilon, delta, rng,
                            beta=beta, mu=mu, m=m, T=T, T5=T5, constant=constant, alg2_constant=alg2_constant,
                            printed_radius=printed_radius, project_output=project_output, eta_scale=eta_scale,
                            replicates=replicates, white_box=white_box)


def _run_algorithm_3(parts: Parts, Z: Any, loss: ConvexLoss, domain: Ball, L: float, H: float,
                     lam: float, x0: Any, epsilon: float, delta: float, rng: np.random.Generator, *,
                     beta: float | None = None, mu: float = 1.0, m: int | None = None, T: int | None = None,
                     T5: int | None = None, constant: float = th.ALGORITHM_3_CONSTANT,
                     alg2_constant: float = th.ALGORITHM_2_CONSTANT, printed_radius: bool = False,
                     project_output: bool = True, eta_scale: float = 1.0, replicates: int | None = None,
                     white_box: bool = False) -> Release:
    """:func:`algorithm_3` run with ``parts`` (the public function: :data:`REFERENCE_PARTS`)."""
    domain = _domain(domain, x0)
    Zc, ctx, R = _setup(parts, Z, loss, domain, L, H, epsilon, delta, rng, replicates, eta_scale=eta_scale)
    lam = check_positive(lam, "lam")
    n, d = Zc.shape[0], domain.d
    half = n // 2
    if half < 2:
        raise ValueError(f"Algorithm 3 needs n >= 4 records, got {n}")
    b = float(n) ** (-check_positive(mu, "mu")) if beta is None else check_positive(beta, "beta")
    t5_first = th.algorithm_5_epochs(half)
    X1 = _algorithm_5(Zc[:half], 0, domain.center, domain.radius, L, _start(x0, domain, R), t5_first, b / 2.0,
                      ctx)  # line 2
    ctx.transcript.first_stage_output = X1.copy()
    D_int = th.algorithm_3_radius(L, lam, n, b, d, ctx.epsilon, ctx.delta, constant, printed=printed_radius)  # 3
    _, m_default, _ = th.theorem_2_parameters(max(half, 2), d, ctx.epsilon, ctx.delta, ctx.H, lam, mu)
    mm, TT, override = _m_T(half, m, T, m_default, "Theorem 2 (Algorithm 3, line 5)")
    t5 = _T5(mm, T5)
    b2 = b / 2.0
    radius_fn = lambda L_i: th.algorithm_2_radius(L_i, lam, mm, TT, b2, d, ctx.epsilon, ctx.delta, alg2_constant)
    X = _run_epochs(Zc[half:2 * half], half, ctx, X1, D_int / 2.0, X1, L, mm, TT, b2, t5, radius_fn)  # lines 4–5
    if project_output:
        X = project_balls(X, [(X1, D_int / 2.0)])
    claim = _claim(ctx.epsilon, ctx.delta, "Theorem 3.1 (δ = 0) / Theorem 9.1 (δ > 0), Algorithm 3", L, loss,
                   {"lambda": lam, "H": ctx.H}, d=d)
    params = {"D_int": D_int, "m": mm, "T": TT, "T5": t5, "T5_first_half": t5_first, "beta": b, "constant": constant,
              "alg2_constant": alg2_constant, "printed_radius": printed_radius, "project_output": project_output,
              "m_override": override, "L": L, "H": ctx.H, "lam": lam, "epochs": ctx.transcript.epochs}
    return _release(X, claim, ctx, params, f"Algorithm 3 ({PAPER})", replicates, white_box)


def algorithm_6(Z: Any, loss: ConvexLoss, domain: Ball, L: float, H: float, lam: float, kappa: float, x0: Any,
                epsilon: float, delta: float, rng: np.random.Generator, *, beta: float | None = None,
                T: int | None = None, m: int | None = None, T5: int | None = None, constant: float | None = None,
                eta_scale: float = 1.0, replicates: int | None = None, white_box: bool = False) -> Release:
    """Algorithm 6 (epoch-based algorithm for κ-growth with κ > 2, App. C.1), each epoch wrapped in Algorithm 1
    (the printed box never mentions the extension; without it privacy fails on non-interpolating data: ACCD22-E11).

    T, m : epochs and samples per epoch, default Theorem 8's T = ⌊log n⌋, m = ⌊n/T⌋.  T5 : inner Algorithm 5
    epochs, default ⌈2 log m/(κ − 1)⌉.  constant : c_κ (default 2(2^12κ)^{1/κ}).  beta default 1/n.  L : L_1,
    H : smoothness (L_{i+1} = H·D_{i+1}), lam : the κ-growth constant λ.  Returns x̂_T (printed "x_T").

    Privacy: Theorem 8 ((ε, δ)-DP: disjoint batches, Algorithm 1 in each).  Utility: Theorem 8 (κ-growth and
    interpolation; printed "quadratic growth", ACCD22-E14) — :func:`theorems.theorem_8_rate`."""
    return _run_algorithm_6(REFERENCE_PARTS, Z, loss, domain, L, H, lam, kappa, x0, epsilon, delta, rng,
                            beta=beta, T=T, m=m, T5=T5, constant=constant, eta_scale=eta_scale,
                            replicates=replicates, white_box=white_box)


def _run_algorithm_6(parts: Parts, Z: Any, loss: ConvexLoss, domain: Ball, L: float, H: float,
                     lam: float, kappa: float, x0: Any, epsilon: float, delta: float, rng: np.random.Generator,
                     *, beta: float | None = None, T: int | None = None, m: int | None = None,
                     T5: int | None = None, constant: float | None = None, eta_scale: float = 1.0,
                     replicates: int | None = None, white_box: bool = False) -> Release:
    """:func:`algorithm_6` run with ``parts`` (the public function: :data:`REFERENCE_PARTS`)."""
    domain = _domain(domain, x0)
    Zc, ctx, R = _setup(parts, Z, loss, domain, L, H, epsilon, delta, rng, replicates, eta_scale=eta_scale)
    lam = check_positive(lam, "lam")
    k = check_positive(kappa, "kappa")
    if not k > 2.0:
        raise ValueError(f"Algorithm 6 needs kappa > 2, got {k}")
    n, d = Zc.shape[0], domain.d
    b = 1.0 / n if beta is None else check_positive(beta, "beta")
    T_def, m_def = th.theorem_8_parameters(n)
    TT = T_def if T is None else check_positive_int(T, "T")
    mm = (n // TT if m is None else check_positive_int(m, "m")) if T is not None or m is not None else m_def
    if TT * mm > n or mm < 2:
        raise ValueError(f"Algorithm 6 needs 2 <= m and T·m <= n, got T = {TT}, m = {mm}, n = {n}")
    t5 = _T5(mm, T5, kappa_lower=k)
    c = th.c_kappa(k) if constant is None else check_positive(constant, "constant")
    radius_fn = lambda L_i: th.algorithm_6_radius(L_i, lam, k, mm, TT, b, d, ctx.epsilon, ctx.delta, c)
    X = _run_epochs(Zc, 0, ctx, domain.center, domain.radius, _start(x0, domain, R), L, mm, TT, b, t5, radius_fn)
    claim = _claim(ctx.epsilon, ctx.delta, "Theorem 8 (Algorithm 6 with Algorithm 1 in each epoch)", L, loss,
                   {"lambda": lam, "kappa": k, "H": ctx.H}, d=d)
    params = {"T": TT, "m": mm, "T5": t5, "beta": b, "constant": c, "kappa": k, "L": L, "H": ctx.H, "lam": lam,
              "T_override": T is not None, "m_override": m is not None, "constant_override": constant is not None,
              "epochs": ctx.transcript.epochs}
    return _release(X, claim, ctx, params, f"Algorithm 6 ({PAPER})", replicates, white_box)


_RUNNERS: dict[str, Callable[..., Release]] = {"algorithm_1": _run_algorithm_1, "algorithm_2": _run_algorithm_2,
                                               "algorithm_3": _run_algorithm_3, "algorithm_4": _run_algorithm_4,
                                               "algorithm_6": _run_algorithm_6}


def run_with_parts(algorithm: str, parts: Parts, *args: Any, **kwargs: Any) -> Release:
    """Algorithm ``algorithm`` ("algorithm_1" … "algorithm_6") with the arguments of its public function, run with
    ``parts`` instead of :data:`REFERENCE_PARTS`.  For the verification code only (a planted bug swaps one part:
    ``dpsco.verification.mutants.accd22.bugs``); the public functions always run the paper's parts.  Raises
    ValueError for an unknown name or if ``parts`` is not a :class:`Parts`."""
    if not isinstance(parts, Parts):
        raise TypeError(f"parts must be a Parts, got {type(parts).__name__}")
    if algorithm == "algorithm_5":
        return _run_algorithm_1(parts, *args, name="Algorithm 5", **kwargs)
    if algorithm not in _RUNNERS:
        raise ValueError(f"algorithm must be one of algorithm_1 … algorithm_6, got {algorithm!r}")
    return _RUNNERS[algorithm](parts, *args, **kwargs)
