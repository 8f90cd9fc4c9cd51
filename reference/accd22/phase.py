"""One phase of Algorithm 4 of Asi, Chadha, Cheng & Duchi (2022), arXiv:2210.17070 (App. A.2; Asi, Levy & Duchi
2021), and the pieces every run of Algorithms 1–6 is made of: the per-replicate ball domains (:data:`Balls`; the
domain X itself is the core ``dpsco.reference.domains.Ball``) and their exact projection, the certified inner solver
of the regularised ERM (line 4) with its public step count, the noise calibration (lines 6–10), the per-record
gradient oracle of the Lipschitzian extension with its fail-safe (Algorithm 1, line 1), the run's :class:`Parts`,
and the white-box :class:`Transcript`.  Derivations: ``docs/derivations.md`` ("Sensitivity
of Algorithm 4's phase", "The inner solver's step count", "The τ-search of the diagonal quadratic").  The
algorithms themselves are in ``dpsco.reference.accd22.algorithms`` (which re-exports these names).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from dpsco.reference.accd22 import theorems as th
from dpsco.reference.accd22.extension import ConvexLoss
from dpsco.reference import projections
from dpsco.reference.clipping import enforce_norm_bound
from dpsco.reference.noise import analytic_gaussian_sigma, gaussian_log_delta

__all__ = ["Balls", "EpochBatchFn", "GradFn", "Parts", "PhaseRecord", "REFERENCE_PARTS", "SOLVER_TOL",
           "SolveFn", "Transcript", "extension_oracle", "phase_noise", "project_balls", "solve_phase",
           "solver_steps"]

#: certified inner-solver tolerance in units of Lη: ‖x̂ − argmin G‖ ≤ SOLVER_TOL·Lη (sensitivity ≤ (1 + 2·0.05)Lη)
SOLVER_TOL = 0.05


Balls = list[tuple[np.ndarray, float]]  # (centres (R, d), radius) per ball; the domain is their intersection


def project_balls(P: np.ndarray, balls: Balls) -> np.ndarray:
    """Exact Euclidean projection of each row of P (R, d) onto the intersection of one or two balls (each ball's
    centre (R, d) or (d,), its radius a float), by the one core projections (``dpsco.reference.projections``:
    ``project_ball`` and ``project_ball_intersection``).  For two balls: the point itself if feasible, else the
    projection on one ball if it lies in the other, else the nearest point of the intersection of the two spheres
    (both constraints active).  Raises ValueError if two balls do not intersect."""
    P = np.atleast_2d(np.asarray(P, dtype=np.float64))
    if len(balls) == 1:
        c, r = balls[0]
        return _project_ball(P, np.broadcast_to(c, P.shape), r)
    if len(balls) != 2:
        raise ValueError(f"project_balls takes one or two balls, got {len(balls)}")
    (a, r), (b, s) = balls
    return projections.project_ball_intersection(P, a, r, b, s)


def _project_ball(P: np.ndarray, c: np.ndarray, r: float) -> np.ndarray:
    # the one core projection (overflow-safe norms: np.linalg.norm returns inf beyond ~1.34e154, which snapped far
    # points to the centre and broke the phase's sensitivity bound on huge domains; independent review)
    return projections.project_ball(P, r, c)


def solver_steps(L: float, H: float, eta: float, b: int, tol: float, grad_rtol: float = 0.0) -> int:
    """K, the number of projected-gradient steps that certify ‖x_K − argmin G‖ ≤ tol·Lη for
    G = (1/b)Σ F_L + (1/(ηb))‖x − c‖² (μ = 2/(ηb), β = H + μ, step 2/(μ + β), contraction q = H/(H + 2μ), initial
    distance ≤ L/μ = Lηb/2) when every per-record gradient is within ``grad_rtol``·L of ∇F_L: the errors add at
    most s·grad_rtol·L/(1 − q) = grad_rtol·L/μ = grad_rtol·Lηb/2, so K makes q^K·L/μ ≤ (tol − grad_rtol·b/2)·Lη
    (``docs/derivations.md``, "The inner solver's step count").  Public inputs only.  Raises ValueError naming
    ``grad_rtol`` if grad_rtol·b/2 ≥ tol (the algorithms check grad_rtol·n ≤ tol up front)."""
    mu = 2.0 / (eta * b)
    q = H / (H + 2.0 * mu)
    r0 = L / mu
    share = tol - grad_rtol * b / 2.0
    if not share > 0.0:
        raise ValueError(f"grad_rtol = {grad_rtol} leaves no solver tolerance at b = {b} records (needs "
                         f"grad_rtol·b/2 < tol = {tol})")
    target = share * L * eta
    if q <= 0.0 or r0 <= target:
        return 1
    return max(1, math.ceil(math.log(target / r0) / math.log(q)))


GradFn = Callable[[np.ndarray, np.ndarray, float], np.ndarray]


def solve_phase(grad: GradFn, Z: np.ndarray, L: float, H: float, eta: float, C: np.ndarray, balls: Balls,
                tol: float = SOLVER_TOL, grad_rtol: float = 0.0) -> tuple[np.ndarray, int]:
    """The regularised ERM of Algorithm 4, line 4, for R centres at once: argmin over the domain (``balls``) of
    G_r(x) = (1/b)Σ_j F(x; s_j) + (1/(ηb))‖x − c_r‖², by :func:`solver_steps` projected gradient steps from c_r.

    grad : (X (R, d), Z, L) -> (R, b, d), the per-record gradients (∇F_L for Algorithm 1, within grad_rtol·L).
    Z : (b, p) records.  C : (R, d) centres (inside the domain).  Returns (x̂ (R, d), steps)."""
    b = Z.shape[0]
    mu = 2.0 / (eta * b)
    step = 2.0 / (2.0 * mu + H)
    K = solver_steps(L, H, eta, b, tol, grad_rtol)
    X = C.copy()
    for _ in range(K):
        G = np.mean(grad(X, Z, L), axis=1) + mu * (X - C)
        X = project_balls(X - step * G, balls)
    return X, K


SolveFn = Callable[..., tuple[np.ndarray, int]]
#: Algorithm 5, line 8: (records of the call, epoch i, n_0) -> (S_i, offset of S_i in those records)
EpochBatchFn = Callable[[np.ndarray, int, int], tuple[np.ndarray, int]]


def extension_oracle(loss: ConvexLoss) -> GradFn:
    """Algorithm 1, line 1: the per-record gradients ∇F_L of the Lipschitzian extensions (``loss.extended_grad``),
    behind the fail-safe ``enforce_norm_bound`` at the phase's L — the last step before a phase's ERM sums them
    (a no-op on the bounded gradients the extension returns)."""

    def grad(X: np.ndarray, Z: np.ndarray, L: float) -> np.ndarray:
        return enforce_norm_bound(loss.extended_grad(X, Z, L), L)

    return grad


def _disjoint_batch(Z: np.ndarray, i: int, n0: int) -> tuple[np.ndarray, int]:
    """Algorithm 5, line 8 with the corrected indices (ACCD22-E1): S_i = (s_{i n_0 + 1}, …, s_{(i+1) n_0})."""
    return Z[i * n0:(i + 1) * n0], i * n0


def _stated_grad_rtol(loss: ConvexLoss) -> float:
    """The extension's stated gradient error, relative to L (``ConvexLoss.grad_rtol``)."""
    return float(loss.grad_rtol)


@dataclass(frozen=True)
class Parts:
    """The parts a run of Algorithms 1–6 is made of.  The public functions always run :data:`REFERENCE_PARTS` (the
    paper's); the verification code swaps one part to plant a bug (``dpsco.verification.mutants.accd22.bugs``).

    oracle : loss -> GradFn, the per-record gradient oracle (:func:`extension_oracle`).  solve : the phase solver
    with :func:`solve_phase`'s signature.  batch : Algorithm 5's batch of epoch i.  solver : the solver's label in
    the transcript.  grad_rtol : loss -> the oracle's stated relative error (``ConvexLoss.grad_rtol``), accounted
    for by the solver's step count."""

    oracle: Callable[[ConvexLoss], GradFn] = extension_oracle
    solve: SolveFn = solve_phase
    batch: EpochBatchFn = _disjoint_batch
    solver: str = "certified"
    grad_rtol: Callable[[ConvexLoss], float] = _stated_grad_rtol


#: the paper's parts: the extension's gradients behind the fail-safe, the certified solver, disjoint batches
REFERENCE_PARTS = Parts()


def phase_noise(L: float, eta_i: float, d: int, epsilon: float, delta: float,
                tol: float = SOLVER_TOL) -> tuple[str, float, float]:
    """(kind, σ_i, printed σ_i) of Algorithm 4, lines 6–9.

    Laplace with the printed scale 4Lη_i√d/ε per coordinate for δ = 0, and also for δ > 0 where d ≤ log(1/δ)
    (it is ε-DP, hence (ε, δ)-DP, with less noise there: the min(d, √(d log(1/δ))) of Algorithms 2 and 3 presumes
    this switch): its ℓ1 sensitivity √d(1 + 2tol)Lη_i is ≤ 4Lη_i√d, so the phase is (1 + 2tol)ε/4-DP.
    Gaussian otherwise, with σ_i = max(printed 4Lη_i√(log(1/δ))/ε, the analytic-Gaussian σ of sensitivity
    (1 + 2tol)Lη_i at (ε, δ)): the printed σ alone fails the exact curve where ε is large against √(log(1/δ))
    (e.g. ε > 254 at δ = 1e-5, ε > 7.2 at δ = 0.9; ERRATA.md ACCD22-E3)."""
    printed = th.algorithm_4_sigma(L, eta_i, d, epsilon, delta)  # validates every input (named errors) first
    if delta == 0.0 or d <= math.log(1.0 / delta):
        printed = th.algorithm_4_sigma(L, eta_i, d, epsilon, 0.0)
        return "laplace", printed, printed
    sens = (1.0 + 2.0 * tol) * L * eta_i
    if gaussian_log_delta(epsilon, sens / printed) <= math.log(delta):
        return "gaussian", printed, printed
    return "gaussian", max(printed, analytic_gaussian_sigma(sens, epsilon, delta)), printed


@dataclass
class PhaseRecord:
    """One phase of Algorithm 4 as run (public parameters; ``centers`` and ``noisy`` are the transcript).

    start, stop : record indices [start, stop) of the phase's batch in the dataset the top-level call received
    eta, sigma, noise : η_i, σ_i and "laplace" | "gaussian";  L, H : Lipschitz constant of the extension, declared
    smoothness;  balls : the phase's domain;  centers : (R, d) x_{i−1};  noisy : (R, d) x̂_i + ζ_i before the
    projection;  steps : inner solver steps;  solver : the label of the run's phase solver ("certified")."""

    start: int
    stop: int
    eta: float
    sigma: float
    noise: str
    L: float
    H: float
    balls: Balls
    centers: np.ndarray
    noisy: np.ndarray
    steps: int
    solver: str = "certified"


@dataclass
class Transcript:
    """Everything an Algorithm 1–6 run did, in order: its phases (:class:`PhaseRecord`), the epochs of Algorithms
    2/6 (public D_i, L_i) and their outputs x_i ((R, d) each, data-dependent: for containment checks, Lemma C.1),
    Algorithm 3's first-stage output x_1 (the centre of X_int; Theorem 3.2's containment), counts, the run's gradient
    oracle and phase solver (for replays).  A verification record for white-box audits, never serialised."""

    phases: list[PhaseRecord] = field(default_factory=list)
    epochs: list[dict[str, Any]] = field(default_factory=list)
    epoch_outputs: list[np.ndarray] = field(default_factory=list)
    first_stage_output: np.ndarray | None = None
    gradient_evaluations: int = 0
    solver_tol: float = SOLVER_TOL
    grad: GradFn | None = None
    solve: SolveFn = solve_phase
    grad_rtol: float = 0.0

    def phase_minimisers(self, phase: PhaseRecord, Z: np.ndarray, solver: str | None = None) -> np.ndarray:
        """The minimisers (R, d) of ``phase``'s ERM at its recorded centres on the records
        ``Z[phase.start:phase.stop]`` (another dataset's, for a white-box likelihood ratio), computed as the run
        computed them (``solver=None``: the run's own phase solver and gradient oracle), or with
        ``solver="certified"`` by the certified :func:`solve_phase` (the claimed model of a phase)."""
        assert self.grad is not None
        solve = solve_phase if solver == "certified" else self.solve
        x, _ = solve(self.grad, Z[phase.start:phase.stop], phase.L, phase.H, phase.eta, phase.centers,
                     phase.balls, self.solver_tol, self.grad_rtol)
        return x
