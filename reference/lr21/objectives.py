"""The objectives that Lowy & Razaviyayn's inner methods 𝓜 minimise, with gradient counters and certificates.

``GLMObjective``        F(w) = (1/n)Σ φ(⟨w, x_i⟩, y_i) + (μ/2)‖w‖² (Algorithms 1, 2; certified by
                        :func:`dpsco.reference.glm_certificate.certify`);
``TiltedObjective``     the tilted risk F_τ (Sec. 4, TERM), ``tilted_constants`` its public constants;
``RobustObjective``     G_D of ℓ2-robust logistic / least-squares models with the closed-form inner maximum
                        (Sec. 4; docs/derivations.md#closed-form-inner-maximisation-of-robust-glms),
                        ``robust_constants``;
``LinearAdversarialProblem`` / ``LinearAdversarialGame``   the min-max problems of Algorithm 3
                        (docs/derivations.md#linear-adversarial-games), ``saddle_certificate``,
                        ``adversarial_objective`` (G_D = max_V H_D(·, V) as an objective).

Every objective is minimised over W = B(0, R).  ``strong_convexity_certificate`` certifies the application
objectives (comment below).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import expit, logsumexp

from dpsco.reference.certificates import UNIT_ROUNDOFF, Certificate, regulariser_gap
from dpsco.reference.domains import Ball
from dpsco.reference.glm_certificate import certify
from dpsco.reference.lr21.theorems import SensitivityMode, lemma_4_2_smoothness
from dpsco.reference import projections
from dpsco.reference.noise import project_ball
from dpsco.reference.problem import ERMProblem
from dpsco.reference.solvers import certified_first_order, certified_minimize
from dpsco.reference.validation import as_float_vector, check_positive

__all__ = ["GLMObjective", "TiltedObjective", "RobustObjective", "LinearAdversarialProblem", "LinearAdversarialGame",
           "strong_convexity_certificate", "saddle_certificate", "adversarial_objective", "glm_loss_range",
           "tilted_constants", "robust_constants", "robust_losses"]


# ================================================================================================
# The GLM objective of Algorithms 1 and 2
# ================================================================================================

#: row-wise ⟨a_r, b_r⟩ of (k, d) arrays (numpy ≥ 2 has it as one ufunc)
_rowdot = getattr(np, "vecdot", None) or (lambda A, B: np.einsum("kd,kd->k", A, B))


class _DataShape:
    """n and d of an objective's dataset ``X`` (n, d) (shared by the objective and game classes below)."""

    X: np.ndarray

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]


@dataclass
class GLMObjective(_DataShape):
    """F(w) = (1/n) Σ φ(⟨w, x_i⟩, y_i) + (reg/2)‖w‖² on W = B(0, R), with gradient counters.

    ``sample_gradients`` counts per-sample (sub)gradient evaluations (a full gradient counts n);
    ``full_gradients`` counts full-gradient calls.  Shapes: X (n, d), y (n,), w (d,).

    The full gradient is summed over the *distinct* records (x, y) with their multiplicities when at most 90% of
    the records are distinct (e.g. samples of a finite-support distribution, survey answers): the same sum
    (1/n)Σ_i φ'(⟨w, x_i⟩, y_i)x_i, grouped, so equal up to floating-point rounding; it still counts n
    per-sample gradients (the algorithm's cost, not the implementation's).
    """

    loss: Any
    X: np.ndarray
    y: np.ndarray
    reg: float
    radius: float
    sample_gradients: int = 0
    full_gradients: int = 0
    _distinct: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, init=False, repr=False,
                                                                         compare=False)

    def value(self, w: np.ndarray) -> float:
        return float(np.mean(self.loss.phi(self.X @ w, self.y)) + 0.5 * self.reg * (w @ w))

    def distinct_records(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(X_u (u, d), y_u (u,), counts (u,)): the distinct records and their multiplicities if u ≤ 0.9n, else
        (X, y, ones) — computed once."""
        if self._distinct is None:
            rows, counts = np.unique(np.column_stack([self.X, self.y]), axis=0, return_counts=True)
            if 10 * rows.shape[0] <= 9 * self.n:  # below 10% fewer rows the weights cost more than they save
                self._distinct = (np.ascontiguousarray(rows[:, :-1]), np.ascontiguousarray(rows[:, -1]),
                                  counts.astype(np.float64))
            else:
                self._distinct = (self.X, self.y, np.ones(self.n))
        return self._distinct

    def grad(self, w: np.ndarray) -> np.ndarray:
        """Full (sub)gradient ∇F(w) (counts n per-sample gradients; summed over the distinct records)."""
        self.sample_gradients += self.n
        self.full_gradients += 1
        Xu, yu, counts = self.distinct_records()
        if Xu is self.X:
            return self.X.T @ self.loss.dphi(self.X @ w, self.y) / self.n + self.reg * w
        return Xu.T @ (counts * self.loss.dphi(Xu @ w, yu)) / self.n + self.reg * w

    def data_sample_grad(self, w: np.ndarray, i: int) -> np.ndarray:
        """∇φ(⟨w, x_i⟩, y_i) (data term only; counts 1)."""
        self.sample_gradients += 1
        x = self.X[i]
        return self.loss.dphi(x @ w, self.y[i]) * x  # φ' is elementwise: a scalar in, a scalar out

    def sample_grad(self, w: np.ndarray, i: int) -> np.ndarray:
        """∇f(w, x_i) = ∇φ(⟨w, x_i⟩, y_i) + reg·w (counts 1)."""
        return self.data_sample_grad(w, i) + self.reg * w

    def data_sample_grads(self, W: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Row r: ∇φ(⟨w_r, x_{i_r}⟩, y_{i_r}) for W (k, d), idx (k,) — k independent iterates, one record each
        (the replicate axis of the stochastic inner methods; counts k)."""
        self.sample_gradients += len(idx)
        Xi = self.X[idx]
        return self.loss.dphi(_rowdot(Xi, W), self.y[idx])[:, None] * Xi

    def sample_grads(self, W: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Row r: ∇f(w_r, x_{i_r}) = ∇φ(⟨w_r, x_{i_r}⟩, y_{i_r}) + reg·w_r, shapes as :meth:`data_sample_grads`."""
        return self.data_sample_grads(W, idx) + self.reg * W

    def certify(self, w: np.ndarray) -> Certificate:
        """A-posteriori certificate over B(0, R) (dpsco.reference.glm_certificate.certify; its lam is reg/2)."""
        return certify(self.loss, self.X, self.y, Ball(self.radius), w, lam=0.5 * self.reg)

    def certified_solution(self, tol: float) -> tuple[np.ndarray, Certificate]:
        sol = certified_minimize(self.loss, self.X, self.y, Ball(self.radius), lam=0.5 * self.reg, tol=tol)
        return sol.w, sol.certificate


# ================================================================================================
# Certificates of the application objectives (Sec. 4)
# ================================================================================================


# Certificates for these objectives.  Each objective below is F(w) = h(w) + (μ/2)‖w‖² over W = B(0, R)
# with h convex, so F is μ-strongly convex and for every g ∈ ∂F(w), w ∈ W:
#     F(w) − F* ≤ Γ_μ(g) := max_{v ∈ W} ⟨g, w − v⟩ − (μ/2)‖v − w‖²          (strong convexity at w)
#     (μ/2)‖w − w*‖² ≤ F(w) − F*                                             (optimality of w* over W)
# (the projected strong-convexity gap of dpsco.reference.certificates, bounded by its `regulariser_gap`).  The
# (sub)gradient is computed in floating point; `regulariser_gap` takes an allowance e ≥ ‖fl(g) − g‖.  We use the generous
# allowance e = 64·u·(n + d + 16)·(1 + τ·max|ℓ_i|)·Σ_i|c_i|‖x_i‖ + 64u·μ‖w‖ (u = 2⁻⁵³; the (1 + τ max|ℓ|)
# factor covers the relative error of the tilted weights exp(τℓ_i − max)), a rounding allowance — not a
# machine-checked error analysis — which is ~1e-12 relative, six or more orders below every radius √(2α/μ)
# the algorithms certify.



def _gradient_allowance(abs_terms: float, n: int, d: int, tilt: float, reg_norm: float) -> float:
    return 64.0 * UNIT_ROUNDOFF * ((n + d + 16) * (1.0 + tilt) * abs_terms + reg_norm)


def strong_convexity_certificate(obj: Any, w: np.ndarray) -> Certificate:
    """A-posteriori certificate for the application objectives (tilted, robust, max-of-game).

    ``obj`` provides ``subgradient_with_allowance(w) -> (g, e)`` (g ∈ ∂F(w) up to ‖fl(g) − g‖ ≤ e, not
    counted as a gradient evaluation), ``reg`` (the modulus μ), ``radius``.  Returns F(w) − F* ≤ Γ_μ and
    ‖w − w*‖ ≤ √(2Γ_μ/μ) (comment above; the projected strong-convexity gap of dpsco.reference.certificates).

    Raises ValueError if ‖w‖ > R.
    """
    w = as_float_vector(w, "w", obj.d)
    R = obj.radius
    if math.isfinite(R) and float(np.linalg.norm(w)) > R:
        raise ValueError(f"w must lie in B(0, R): ‖w‖ = {float(np.linalg.norm(w))!r} > {R!r}")
    g, e = obj.subgradient_with_allowance(w)
    mu = obj.reg
    gap = regulariser_gap(g, e, w, R, mu).bound
    dist = math.sqrt(2.0 * gap / mu) * (1.0 + 4.0 * UNIT_ROUNDOFF)
    return Certificate(gap_bound=float(gap), distance_bound=float(dist), method="strong-convexity gap (reg)",
                       strong_convexity=mu, rounding_allowance=float(e),
                       details={"strong-convexity gap (reg)": {"gap": gap, "distance": dist, "gradient_error": e}})


# -- loss ranges (for C_τ) from declared bounds ----------------------------------------------------


def glm_loss_range(loss: Any, x_max: float, y_max: float, radius: float) -> tuple[float, float]:
    """[a_R, A_R] ⊇ {φ(⟨w, x⟩, y) : ‖w‖ ≤ R, ‖x‖ ≤ x_max, |y| ≤ y_max} (Prop. 4.1's a_R, A_R).

    logistic (y ∈ {±1}): [log(1 + e^{−x_max R}), log(1 + e^{x_max R})]; squared: [0, (x_max R + y_max)²/2].
    Raises ValueError for other losses (not needed by the applications implemented here)."""
    B = check_positive(x_max, "x_max") * check_positive(radius, "radius")
    if loss.name == "logistic":
        return float(np.logaddexp(0.0, -B)), float(np.logaddexp(0.0, B))
    if loss.name == "squared":
        return 0.0, 0.5 * (B + check_positive(y_max, "y_max", allow_zero=True)) ** 2
    raise ValueError(f"glm_loss_range: loss {loss.name!r} not supported (logistic, squared)")


# -- Tilted ERM ------------------------------------------------------------------------------------


@dataclass
class TiltedObjective(_DataShape):
    """F_τ(w) = (1/τ) log((1/n) Σ_i exp(τ ℓ_i(w))) + (reg/2)‖w‖², ℓ_i(w) = φ(⟨w, x_i⟩, y_i) (Sec. 4, TERM).

    This is the paper's F_τ for the ridge-regularised per-sample loss f = ℓ + (reg/2)‖w‖² (the common ridge
    factors out of the log-sum-exp).  ∇F_τ = Σ_i v_i ∇ℓ_i + reg·w, v = softmax(τℓ) (Li et al. 2020).
    Convex for convex ℓ (log-sum-exp is convex and nondecreasing), reg-strongly convex (Lemma 4.1).
    Shapes: X (n, d), y (n,), w (d,).  Gradient counters as :class:`GLMObjective` (a full gradient = n)."""

    loss: Any
    X: np.ndarray
    y: np.ndarray
    tau: float
    reg: float
    radius: float
    sample_gradients: int = 0
    full_gradients: int = 0
    tol_is_distance: bool = True

    def losses(self, w: np.ndarray) -> np.ndarray:
        return self.loss.phi(self.X @ w, self.y)

    def weights(self, w: np.ndarray) -> np.ndarray:
        z = self.tau * self.losses(w)
        e = np.exp(z - z.max())
        return e / e.sum()

    def value(self, w: np.ndarray) -> float:
        z = self.tau * self.losses(w)
        return float((logsumexp(z) - math.log(self.n)) / self.tau + 0.5 * self.reg * (w @ w))

    def _grad(self, w: np.ndarray) -> tuple[np.ndarray, float]:
        s = self.X @ w
        ell = self.loss.phi(s, self.y)
        z = self.tau * ell
        v = np.exp(z - z.max())
        v /= v.sum()
        c = v * self.loss.dphi(s, self.y)
        g = self.X.T @ c + self.reg * w
        terms = float(np.sum(np.abs(c) * np.linalg.norm(self.X, axis=1)))
        return g, _gradient_allowance(terms, self.n, self.d, self.tau * float(np.max(np.abs(ell))),
                                      self.reg * float(np.linalg.norm(w)))

    def grad(self, w: np.ndarray) -> np.ndarray:
        """∇F_τ(w) (counts n per-sample gradients)."""
        self.sample_gradients += self.n
        self.full_gradients += 1
        return self._grad(w)[0]

    def subgradient_with_allowance(self, w: np.ndarray) -> tuple[np.ndarray, float]:
        return self._grad(w)

    def sample_grad(self, w: np.ndarray, i: int) -> np.ndarray:
        raise ValueError("the tilted objective is not of ERM form: stochastic methods ('sgd', 'katyusha') do not "
                         "apply; use 'agd', 'subgradient' or a callable")

    data_sample_grad = sample_grad

    def certify(self, w: np.ndarray) -> Certificate:
        return strong_convexity_certificate(self, w)

    def certified_solution(self, tol: float) -> tuple[np.ndarray, Certificate]:
        return certified_first_order(self, tol)


def tilted_constants(problem: ERMProblem, tau: float, mu: float, *, sensitivity_mode: SensitivityMode = "paper"
                     ) -> dict[str, float]:
    """Public constants of F_τ over B(0, R) from the declared bounds (Lemmas 4.1, 4.2, 0.5).

    L_ℓ = problem.lipschitz, L = L_ℓ + μR (the Lipschitz constant of f = ℓ + (μ/2)‖w‖² on B(0, R), the paper's
    L); β_τ = β_ℓ + μ + τL_ℓ² (Lemma 4.2's statement β + L²τ applied to the data term: the ridge's gradient
    μw is common to all i and cancels in the covariance Cov_v(∇f_i), docs/derivations.md#sensitivity-and-smoothness-of-the-tilted-objective;
    tests show the statement is
    attained); [a_R, A_R] of ℓ (``glm_loss_range``); paper mode: C_τ = e^{τ(A_R − a_R + μR²/2)} (range of f)
    and Δ_{F_τ} = 2LC_τ/(μn) (Lemma 0.5 as printed); tight mode: C_τ = e^{τ(A_R − a_R)} (range of ℓ; the ridge
    cancels in the weights) and Δ_{F_τ} = (2L_ℓ/μ)min{1, C_τ/n} (Lemma 0.5's corrected proof,
    docs/derivations.md#sensitivity-and-smoothness-of-the-tilted-objective)."""
    t = check_positive(tau, "tau")
    m = check_positive(mu, "mu")
    R = problem.radius
    L_l = problem.lipschitz
    a_R, A_R = glm_loss_range(problem.loss, problem.bounds.x_max, problem.bounds.y_max, R)
    beta_l = problem.smoothness
    if sensitivity_mode == "paper":
        C = math.exp(min(t * (A_R - a_R + 0.5 * m * R * R), 700.0))
    elif sensitivity_mode == "tight":
        C = math.exp(min(t * (A_R - a_R), 700.0))
    else:
        raise ValueError(f"sensitivity_mode must be 'paper' or 'tight', got {sensitivity_mode!r}")
    return {"tau": t, "mu": m, "R": R, "L_loss": L_l, "L": L_l + m * R, "a_R": a_R, "A_R": A_R, "C_tau": C,
            "beta_tau": None if beta_l is None else lemma_4_2_smoothness(beta_l + m, L_l, t)}


# -- ℓ2-robust GLMs (adversarial training with a closed-form inner maximisation) -------------------


def robust_losses(kind: str, X: np.ndarray, y: np.ndarray, w: np.ndarray, rho: float) -> np.ndarray:
    """Per-sample robust losses max_{‖δ‖ ≤ ρ} ℓ(w, (x_i + δ, y_i)) in closed form, shape (n,) for X (n, d), y (n,),
    w (d,): ``kind`` "logistic" log(1 + e^{−(y⟨w, x⟩ − ρ‖w‖)}), otherwise (squared) ½(|⟨w, x⟩ − y| + ρ‖w‖)²
    (:class:`RobustObjective`)."""
    s = X @ w
    nw = float(np.linalg.norm(w))
    if kind == "logistic":
        return np.logaddexp(0.0, -(y * s - rho * nw))
    return 0.5 * (np.abs(s - y) + rho * nw) ** 2


@dataclass
class RobustObjective(_DataShape):
    """G_D(w) = (1/n) Σ_i max_{‖δ_i‖ ≤ ρ} ℓ(w, (x_i + δ_i, y_i)) + (reg/2)‖w‖² for ℓ2 perturbations (Sec. 4).

    Closed-form inner maxima (Cauchy–Schwarz; docs/derivations.md#closed-form-inner-maximisation-of-robust-glms):
      logistic (y ∈ {±1}):  log(1 + exp(−y⟨w, x⟩ + ρ‖w‖)),   δ* = −ρy·w/‖w‖;
      squared:              ½(|⟨w, x⟩ − y| + ρ‖w‖)²,          δ* = ρ·sign(⟨w, x⟩ − y)·w/‖w‖.
    Both are convex in w (a nonincreasing convex φ of the concave margin y⟨w, x⟩ − ρ‖w‖; t ↦ t²/2 on t ≥ 0 of
    the convex |⟨w, x⟩ − y| + ρ‖w‖) and non-smooth at w = 0 (and, squared, where ⟨w, x_i⟩ = y_i): the
    subgradient used at w = 0 is the minimum-norm element of {a + c·u : ‖u‖ ≤ 1}.  Shapes as GLMObjective."""

    kind: str
    X: np.ndarray
    y: np.ndarray
    rho: float
    reg: float
    radius: float
    sample_gradients: int = 0
    full_gradients: int = 0
    tol_is_distance: bool = True

    def __post_init__(self) -> None:
        if self.kind not in ("logistic", "squared"):
            raise ValueError(f"kind must be 'logistic' or 'squared', got {self.kind!r}")

    @property
    def loss(self) -> Any:
        return _RobustLossTag()

    def value(self, w: np.ndarray) -> float:
        return float(np.mean(robust_losses(self.kind, self.X, self.y, w, self.rho)) + 0.5 * self.reg * (w @ w))

    def _grad(self, w: np.ndarray) -> tuple[np.ndarray, float]:
        s = self.X @ w
        nw = float(np.linalg.norm(w))
        if self.kind == "logistic":
            m = self.y * s - self.rho * nw
            dphi = -expit(-m)  # φ'(m) < 0, φ(m) = log(1 + e^{−m})
            c_x = dphi * self.y / self.n  # coefficient of x_i
            c_u = self.rho * float(np.mean(-dphi))  # coefficient of ∂‖w‖ (≥ 0)
        else:
            r = s - self.y
            h = np.abs(r) + self.rho * nw
            c_x = h * np.sign(r) / self.n
            c_u = self.rho * float(np.mean(h))
        a = self.X.T @ c_x
        if nw > 0:
            g = a + c_u * (w / nw)
        else:  # minimum-norm element of a + c_u·B(0, 1)
            na = float(np.linalg.norm(a))
            g = a * max(0.0, 1.0 - c_u / na) if na > 0 else a
        g = g + self.reg * w
        terms = float(np.sum(np.abs(c_x) * np.linalg.norm(self.X, axis=1))) + c_u
        return g, _gradient_allowance(terms, self.n, self.d, 0.0, self.reg * nw)

    def grad(self, w: np.ndarray) -> np.ndarray:
        self.sample_gradients += self.n
        self.full_gradients += 1
        return self._grad(w)[0]

    def subgradient_with_allowance(self, w: np.ndarray) -> tuple[np.ndarray, float]:
        return self._grad(w)

    def certify(self, w: np.ndarray) -> Certificate:
        return strong_convexity_certificate(self, w)

    def certified_solution(self, tol: float) -> tuple[np.ndarray, Certificate]:
        return certified_first_order(self, tol)


class _RobustLossTag:
    smooth = False  # non-smooth at w = 0: the inner step's tolerance is a distance (tol_is_distance)


def robust_constants(kind: str, x_max: float, y_max: float, rho: float, mu: float,
                     radius: float | None = None) -> dict[str, float]:
    """Public constants of G_D on B(0, R) from the declared bounds (docs/derivations.md#closed-form-inner-maximisation-of-robust-glms).

    logistic: L_ℓ = x_max + ρ (global); default R = (x_max + ρ)/μ + 1 (μ‖w*‖ ≤ L_ℓ from the optimality
    condition, plus the paper's margin 1).  squared: h ≤ (x_max + ρ)R + y_max on B(0, R),
    L_ℓ = ((x_max + ρ)R + y_max)(x_max + ρ); default R = y_max/√μ + 1 (G_D(w*) ≤ G_D(0) = y²-mean/2 ≥ μ‖w*‖²/2).
    The paper's L = L_ℓ + μR (Lipschitz constant of the regularised per-sample loss on B(0, R))."""
    xm, ym = check_positive(x_max, "x_max"), check_positive(y_max, "y_max", allow_zero=True)
    r, m = check_positive(rho, "rho", allow_zero=True), check_positive(mu, "mu")
    if kind == "logistic":
        R = (xm + r) / m + 1.0 if radius is None else check_positive(radius, "radius")
        L_l = xm + r
    elif kind == "squared":
        R = ym / math.sqrt(m) + 1.0 if radius is None else check_positive(radius, "radius")
        L_l = ((xm + r) * R + ym) * (xm + r)
    else:
        raise ValueError(f"kind must be 'logistic' or 'squared', got {kind!r}")
    return {"rho": r, "mu": m, "R": R, "L_loss": L_l, "L": L_l + m * R}


# -- Algorithm 3: adversarial training as a min-max problem ----------------------------------------


@dataclass(frozen=True)
class LinearAdversarialProblem:
    """Public description of the linear adversarial games (Sec. 4, Def. 1, Assumptions 1–3;
    docs/derivations.md#linear-adversarial-games):

        H_D(w, V) = (1/n) Σ_i [ (μ/2)‖w‖² − y_i⟨w, x_i + v_i⟩ − (γ/2)‖x_i + v_i‖² ],   v_i ∈ S = B(0, r),

    over w ∈ B(0, R).  μ-strongly convex and μ-smooth in w (κ = 1); concave in V (Assumption 2), (γ/n)-strongly
    concave per block when γ > 0 (then G_D is smooth), linear in V when γ = 0 (then G_D has r‖w‖, non-smooth
    at 0 — Thm 4.1's smoothness premise fails, ERRATA.md LR21-E9).  Declared bounds ‖x‖ ≤ x_max, |y| ≤ y_max.
    Default R = y_max(x_max + r)/μ + 1 (Assumption 1: argmin_w H(·, V) = (1/(μn))Σ y_i(x_i + v_i)).
    Per-sample Lipschitz constant in w on B(0, R): L = μR + y_max(x_max + r) (the paper's L); data term
    L_data = y_max(x_max + r)."""

    mu: float
    r: float
    gamma: float = 0.0
    x_max: float = 1.0
    y_max: float = 1.0
    radius: float | None = None

    def __post_init__(self) -> None:
        check_positive(self.mu, "mu")
        check_positive(self.r, "r", allow_zero=True)
        check_positive(self.gamma, "gamma", allow_zero=True)
        check_positive(self.x_max, "x_max")
        check_positive(self.y_max, "y_max")
        if self.radius is not None:
            check_positive(self.radius, "radius")

    @property
    def R(self) -> float:
        return self.y_max * (self.x_max + self.r) / self.mu + 1.0 if self.radius is None else float(self.radius)

    @property
    def L_data(self) -> float:
        return self.y_max * (self.x_max + self.r)

    @property
    def L(self) -> float:
        return self.mu * self.R + self.L_data

    def game(self, X: Any, y: Any) -> "LinearAdversarialGame":
        from dpsco.reference.validation import check_data

        Xa, ya = check_data(X, y)
        if np.any(np.linalg.norm(Xa, axis=1) > self.x_max * (1 + 1e-12)):
            raise ValueError(f"X violates the declared bound ‖x‖ ≤ x_max = {self.x_max}")
        if np.any(np.abs(ya) > self.y_max * (1 + 1e-12)):
            raise ValueError(f"y violates the declared bound |y| ≤ y_max = {self.y_max}")
        return LinearAdversarialGame(self, Xa, ya)

    def to_dict(self) -> dict[str, Any]:
        return {"mu": self.mu, "r": self.r, "gamma": self.gamma, "x_max": self.x_max, "y_max": self.y_max,
                "R": self.R, "L": self.L, "L_data": self.L_data}


@dataclass
class LinearAdversarialGame(_DataShape):
    """H_D of :class:`LinearAdversarialProblem` on a dataset, with exact inner max / min oracles and counters.

    Shapes: X (n, d), y (n,), w (d,), V (n, d).  ``gradient_evaluations`` counts per-sample gradient pairs
    (∇_w, ∇_v of one record count 1; a full operator evaluation counts n)."""

    problem: LinearAdversarialProblem
    X: np.ndarray
    y: np.ndarray
    gradient_evaluations: int = 0

    @property
    def radius(self) -> float:
        return self.problem.R

    @property
    def reg(self) -> float:
        return self.problem.mu

    def value(self, w: np.ndarray, V: np.ndarray) -> float:
        P = self.problem
        Z = self.X + V
        return float(0.5 * P.mu * (w @ w) - np.mean(self.y * (Z @ w)) - 0.5 * P.gamma * np.mean(np.sum(Z * Z, 1)))

    def operator(self, w: np.ndarray, V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(∇_w H, n·∇_V H) — the V block is scaled by n (the metric ‖w‖² + (1/n)Σ‖v_i‖²)."""
        self.gradient_evaluations += self.n
        P = self.problem
        Z = self.X + V
        gw = P.mu * w - Z.T @ self.y / self.n
        gv = -self.y[:, None] * w[None, :] - P.gamma * Z
        return gw, gv

    def project_v(self, V: np.ndarray) -> np.ndarray:
        return projections.project_ball(V, self.problem.r)  # the one core projection (rows onto B(0, r); r = 0 allowed)

    def inner_max(self, w: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
        """Exact max_V H(w, V): V* (per block: Π_{B(0,r)}(−x_i − y_iw/γ) if γ > 0, −r sign(y_i) w/‖w‖ if γ = 0 — at
        w = 0 with γ = 0 every V is a maximiser and the one giving the minimum-norm Danskin gradient is used),
        G_D(w), and g = ∇_w H(w, V*) ∈ ∂G_D(w) (H(·, V*) ≤ G_D with equality at w)."""
        P = self.problem
        if P.gamma > 0:
            V = self.project_v(-self.X - self.y[:, None] * w[None, :] / P.gamma)
        else:
            nw = float(np.linalg.norm(w))
            if nw > 0:
                # v_i maximises −y_i⟨w, v_i⟩ over ‖v_i‖ ≤ r: v_i = −r·sign(y_i)·w/‖w‖ (value r|y_i|‖w‖)
                V = -P.r * np.sign(self.y)[:, None] * (w / nw)[None, :]
            else:
                m = self.X.T @ self.y / self.n
                my = float(np.mean(np.abs(self.y)))
                nm = float(np.linalg.norm(m))
                u = -m / nm * min(1.0, nm / (P.r * my)) if (nm > 0 and P.r * my > 0) else np.zeros(self.d)
                V = P.r * np.sign(self.y)[:, None] * u[None, :]  # (1/n)Σ y_i v_i = r·mean|y|·u ≈ −m
        Z = self.X + V
        g = P.mu * w - Z.T @ self.y / self.n
        return V, self.value(w, V), g

    def inner_min(self, V: np.ndarray) -> tuple[np.ndarray, float]:
        """Exact min_{w ∈ B(0,R)} H(w, V): H(·, V) = (μ/2)‖w‖² − ⟨w, b⟩ + const, minimiser Π_{B(0,R)}(b/μ)."""
        b = (self.X + V).T @ self.y / self.n
        w = project_ball(b / self.problem.mu, self.radius)
        return w, self.value(w, V)

    def subgradient_with_allowance(self, w: np.ndarray) -> tuple[np.ndarray, float]:
        _, _, g = self.inner_max(w)
        terms = float(np.sum(np.abs(self.y) * (np.linalg.norm(self.X, axis=1) + self.problem.r))) / self.n
        return g, _gradient_allowance(terms, self.n, self.d, 0.0, self.problem.mu * float(np.linalg.norm(w)))


def saddle_certificate(game: LinearAdversarialGame, w: np.ndarray, V: np.ndarray | None = None) -> Certificate:
    """Certificate of ‖w − w*(D)‖, w*(D) = argmin_{B(0,R)} G_D, for a candidate (w, V) of Algorithm 3, line 1.

    Route 1 (saddle / duality gap, Def. 4): G_D(w) − min G_D ≤ max_V H(w, ·) − min_w H(·, V) (weak duality; exact
    inner oracles).  Route 2 (Danskin): G_D is μ-strongly convex and g = ∇_w H(w, V*(w)) ∈ ∂G_D(w), so
    G_D(w) − min G_D ≤ Γ_μ(g) (projected strong-convexity gap).  The smaller gap is used and
    ‖w − w*‖ ≤ √(2·gap/μ) (μ-strong convexity of G_D, docs/derivations.md#privacy-of-algorithm-3-needs-only-a-certified-gap).  A rounding allowance of
    64u(n + d + 16)(|G_D(w)| + |H(w', V)| + 1) is added to route 1."""
    w = as_float_vector(w, "w", game.d)
    if float(np.linalg.norm(w)) > game.radius:
        raise ValueError("w must lie in B(0, R)")
    mu = game.reg
    _, Gw, _ = game.inner_max(w)
    cands: dict[str, float] = {}
    if V is not None:
        Vp = game.project_v(np.asarray(V, dtype=float).reshape(game.n, game.d))
        _, low = game.inner_min(Vp)
        allow = 64.0 * UNIT_ROUNDOFF * (game.n + game.d + 16) * (abs(Gw) + abs(low) + 1.0)
        cands["saddle (duality) gap"] = max(Gw - low, 0.0) + allow
    g, e = game.subgradient_with_allowance(w)
    cands["strong-convexity gap of G_D (Danskin)"] = regulariser_gap(g, e, w, game.radius, mu).bound
    name = min(cands, key=cands.__getitem__)
    gap = cands[name]
    dist = math.sqrt(2.0 * gap / mu) * (1.0 + 4.0 * UNIT_ROUNDOFF)
    return Certificate(gap_bound=float(gap), distance_bound=float(dist), method=name, strong_convexity=mu,
                       details={k: {"gap": v, "distance": math.sqrt(2 * v / mu)} for k, v in cands.items()})


def adversarial_objective(game: LinearAdversarialGame) -> Any:
    """G_D = max_V H_D(·, V) of ``game`` as an objective for :func:`dpsco.reference.solvers.certified_first_order`:
    ``value(w)`` (exact inner maximum), ``grad(w)`` (the Danskin gradient; counts n in
    ``game.gradient_evaluations``), ``certify(w)`` (:func:`saddle_certificate` at the maximising V), ``d``,
    ``radius``, ``reg`` = μ."""

    class _G:
        d, radius, reg = game.d, game.radius, game.reg

        @staticmethod
        def value(w: np.ndarray) -> float:
            return game.inner_max(w)[1]

        @staticmethod
        def grad(w: np.ndarray) -> np.ndarray:
            game.gradient_evaluations += game.n
            return game.inner_max(w)[2]

        @staticmethod
        def certify(w: np.ndarray) -> Certificate:
            return saddle_certificate(game, w, game.inner_max(w)[0])

    return _G()
