"""Algorithm 3's inner saddle solver (Lowy & Razaviyayn 2021, Sec. 4): deterministic extragradient on the linear
adversarial game, its step size, its iteration count for an α-saddle point, and the per-sample gradient count its
schedule prescribes (moved out of ``inner_solvers``, which holds the minimisation methods)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpsco.reference.lr21.objectives import LinearAdversarialGame, LinearAdversarialProblem
from dpsco.reference.noise import project_ball
from dpsco.reference.projections import project_ball_vector
from dpsco.reference.validation import check_iterations, check_positive

__all__ = ["extragradient", "extragradient_iterations", "extragradient_schedule_count", "extragradient_step_size"]


def extragradient_schedule_count(method: Any, T: int, n: int) -> int:
    """The per-sample gradient evaluations Algorithm 3's saddle solver prescribes, from public inputs:
    ``extragradient`` makes T steps of two operator evaluations of n per-sample gradients (2T·n); a user callable
    0 (not prescribed by public inputs).  The count performed, with a certified-solver fallback's work, is in
    ``nonprivate_internals["gradient_evaluations_performed"]``."""
    return 0 if callable(method) else 2 * int(T) * int(n)


def extragradient_step_size(problem: LinearAdversarialProblem) -> float:
    """η = 1/(2ℓ), ℓ = max{μ, γ} + y_max: a Lipschitz constant of the operator (∇_wH, −n∇_VH) in the metric
    ‖w‖² + (1/n)Σ‖v_i‖² (blocks μI, γI on the diagonal; coupling −(1/n)Σ y_i v_i, y_i w of norm ≤ y_max)."""
    return 0.5 / (max(problem.mu, problem.gamma) + problem.y_max)


def extragradient_iterations(problem: LinearAdversarialProblem, alpha: float) -> int:
    """T = ⌈(8ℓ/m) log(max{μD²/α, e})⌉, m = min{μ, γ} (γ > 0), D² = R² + r²: the linear rate of extragradient on
    an m-strongly monotone, ℓ-Lipschitz operator (‖z_t − z*‖² ≤ (1 − m/(8ℓ))^t ‖z_0 − z*‖² with η = 1/(2ℓ);
    Mokhtari, Ozdaglar & Pattathil 2020).  For γ = 0 (no strong concavity) the same formula with m = μ is a
    utility heuristic only.  Privacy never relies on it: the certificate gates the output."""
    a = check_positive(alpha, "alpha")
    ell = 2.0 * 0.5 / extragradient_step_size(problem)
    m = min(problem.mu, problem.gamma) if problem.gamma > 0 else problem.mu
    D2 = problem.R * problem.R + problem.r * problem.r  # no float ** (OverflowError for R >~ 1e154)
    t = 8.0 * ell / m * math.log(max(problem.mu * D2 / a, math.e))
    if not math.isfinite(t):  # μD²/α or ℓ/m overflows (α = 5e-324): math.ceil(inf) would raise OverflowError
        raise ValueError(f"extragradient_iterations: T overflows for alpha={a!r}, mu={problem.mu!r}, "
                         f"gamma={problem.gamma!r}; increase alpha (or mu, gamma)")
    return max(1, math.ceil(t))


def extragradient(game: LinearAdversarialGame, T: int, *, eta: float | None = None,
                  w0: np.ndarray | None = None, V0: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Projected extragradient (Korpelevich 1976) on B(0, R) × S^n, block steps η (w) and nη (V):

        (w', V') = Π(w − η∇_wH(w, V), V + nη∇_VH(w, V));   (w, V) ← Π(w − η∇_wH(w', V'), V + nη∇_VH(w', V')).

    Starts at (0, 0) (data-independent).  Returns (w_T, V_T).  Raises ValueError / TypeError for a bad
    ``eta`` or ``T`` (``T`` above ``dpsco.reference.validation.MAX_ITERATIONS`` included)."""
    eta = extragradient_step_size(game.problem) if eta is None else check_positive(eta, "eta")
    T = check_iterations(T, "T", allow_zero=True)
    w = np.zeros(game.d) if w0 is None else np.array(w0, dtype=float)
    V = np.zeros((game.n, game.d)) if V0 is None else np.array(V0, dtype=float)
    R = game.radius
    groups = _record_groups(game, V)
    if groups is not None:
        return _extragradient_grouped(game, T, eta, w, V, groups)
    for _ in range(T):
        gw, gv = game.operator(w, V)
        wh = project_ball(w - eta * gw, R)
        Vh = game.project_v(V + eta * gv)
        gw, gv = game.operator(wh, Vh)
        w = project_ball(w - eta * gw, R)
        V = game.project_v(V + eta * gv)
    return w, V


# Records whose adversary blocks v_i follow the same path.  Block i's update reads only y_i, w, v_i and (γ > 0) x_i:
# v_i ← Π_{B(0,r)}(v_i + η(−y_i w − γ(x_i + v_i))).  Records with equal (y_i, v_i at the start, and x_i when γ > 0)
# therefore have equal blocks at every step, and ∇_wH needs only Σ_i y_i v_i = Σ_groups count·y·v.  With γ = 0 and
# labels ±1 there are two groups whatever n is.  ``_extragradient_grouped`` runs the same steps on one block per group
# (the same iterates up to rounding: Σ_i y_i(x_i + v_i) is summed as Xᵀy + Σ count·y·v); it counts the
# algorithm's n per-sample gradients per operator evaluation, like the loop above.


def _record_groups(game: LinearAdversarialGame, V: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(first record of each group (u,), group of each record (n,), counts (u,)), or None if u > n/2."""
    cols = [game.y[:, None], V] + ([game.X] if game.problem.gamma > 0 else [])
    _, first, inverse, counts = np.unique(np.hstack(cols), axis=0, return_index=True, return_inverse=True,
                                          return_counts=True)
    if 2 * first.size > game.n:
        return None
    return first, inverse.reshape(-1), counts.astype(np.float64)


def _extragradient_grouped(game: LinearAdversarialGame, T: int, eta: float, w: np.ndarray, V: np.ndarray,
                           groups: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`extragradient` on one adversary block per group of records (comment above); returns (w_T, V_T (n, d))."""
    P, n, R = game.problem, game.n, game.radius
    first, inverse, counts = groups
    yc, Xc, Vc = game.y[first], game.X[first], V[first]
    cy = counts * yc
    Xty = game.X.T @ game.y

    def operator(w_: np.ndarray, V_: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        game.gradient_evaluations += n  # the algorithm's n per-sample gradients
        gw = P.mu * w_ - (Xty + V_.T @ cy) / n
        gv = -yc[:, None] * w_[None, :] - P.gamma * (Xc + V_)
        return gw, gv

    for _ in range(T):
        gw, gv = operator(w, Vc)
        wh = project_ball_vector(w - eta * gw, R)
        Vh = game.project_v(Vc + eta * gv)
        gw, gv = operator(wh, Vh)
        w = project_ball_vector(w - eta * gw, R)
        Vc = game.project_v(Vc + eta * gv)
    return w, Vc[inverse]
