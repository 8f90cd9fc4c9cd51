"""Algorithm 1 of Asi, Liu & Tian (2024), Clipped-DP-SGD, with the parameters of Proposition 1 / Corollary 1
and the Corollary 2 solver ("algorithm A" of Corollary 2: Algorithm 1 on shifted, truncated losses).

Algorithm 1 (Clipped-DP-SGD(D, C, λ, {η_t}, σ², T, r, X), X ⊂ B(r), 0 ∈ X), line by line:

    line 2   x_0 = 0
    line 4   ξ_t ~ N(0, σ² I_d)
    line 5   ĝ_t = (1/n) Σ_i Π_C(∇f_i(x_t))           (only the per-sample *loss* gradients are clipped)
    line 6   x_{t+1} = argmin_{x ∈ X} η_t⟨ĝ_t + ξ_t, x⟩ + (η_tλ/2)‖x‖² + ½‖x − x_t‖²
                     = Π_X((x_t − η_t(ĝ_t + ξ_t))/(1 + η_tλ))     (exact closed form: complete the square)
    return   x̂ = Σ_{t<T} (t+4) x_t / Σ_{t<T} (t+4)      (x_0 included, x_T not; the denominator is T(T+7)/2)

Line 6 prints the argmin over "X_r"; the input domain X (already ⊂ B(r)) is what the proof uses, so that is
what we implement (ERRATA.md, Algorithm 1 line 6).

Privacy (Proposition 1's proof): each ĝ_t has replace-one ℓ2-sensitivity 2C/n, so each step is the Gaussian
mechanism with ρ_t = (2C/n)²/(2σ²) (Lemma 1, part 3) and T steps compose to ρ = 2TC²/(n²σ²) (Lemma 1,
part 1); x_{t+1} and x̂ are post-processing.  The claim therefore covers the whole sequence of noisy
gradients ĝ_t + ξ_t (what a white-box auditor sees, ``Release.white_box``), not only x̂ (exact on the
worst-case pair: docs/derivations.md#exact-privacy-of-clipped-dp-sgds-noisy-gradients).  The claim's ρ is
computed from the σ, C, T and n actually used; its dp_accounting event is T self-composed replace-one Gaussian
steps (noise multiplier nσ/C: dp_accounting's replace-one Gaussian has sensitivity 2 in those units).

Nothing here reads a noise scale, clip threshold or iteration count from the data: C, T, σ, λ, η_t, r come from
public inputs only (``corollary_1_parameters``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from dpsco.reference.alt24.model import HeavyTailedLoss, MomentBounds, check_records, grads_at
from dpsco.reference import conversions, projections
from dpsco.reference.alt24.primitives import project_ball
from dpsco.reference.clipping import enforce_norm_bound
from dpsco.reference.privacy import PrivacyClaim, Release
from dpsco.reference.validation import (as_float_vector, check_bool, check_delta, check_iterations, check_positive,
                                        check_positive_int, check_rng)
from dpsco.reference.white_box import NoisyGradientTrace

__all__ = ["Corollary1Parameters", "clipped_dp_sgd", "clipped_dp_sgd_claim", "clipped_sgd_core", "corollary_1_parameters",
           "corollary_1_solver", "corollary_2_truncation_radius", "corollary_2_solver", "grads_at", "proposition_1_rho",
           "proposition_1_step_sizes", "two_ball_projector", "zcdp_epsilon"]

SOURCE = "Asi, Liu & Tian (2024), Proposition 1 (Algorithm 1; Lemma 1: Gaussian mechanism + composition)"


# ---- parameters (plain functions named after their results) ------------------------------------------------

@dataclass(frozen=True)
class Corollary1Parameters:
    """Corollary 1's parameters for a dataset of n records in dimension d at ρ-zCDP.

    C = G_k(25n²ρ/(32d))^{1/(2k)} (clip threshold), T = ⌈max(n, n²ρ/d)⌉ (Proposition 1 needs T ≥ max(n, n²ρ/d);
    we take the smallest integer), σ = √(2C²T/(n²ρ)) (Proposition 1), λ as given (η_t = 4/(λ(t+1)))."""

    n: int
    d: int
    rho: float
    lam: float
    C: float
    T: int
    sigma: float

    @property
    def sigma2(self) -> float:
        return self.sigma ** 2

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "d": self.d, "rho": self.rho, "lam": self.lam, "C": self.C, "T": self.T,
                "sigma": self.sigma, "sigma2": self.sigma2}


def corollary_1_parameters(n: int, d: int, rho: float, moments: MomentBounds, lam: float) -> Corollary1Parameters:
    """Asi, Liu & Tian (2024), Corollary 1 (with Proposition 1's T and σ²).

    n, d : int ≥ 1;  rho > 0 (ρ-zCDP);  moments : MomentBounds (G_k, k);  lam > 0 (λ).
    Returns C = G_k(25n²ρ/(32d))^{1/(2k)}, T = ⌈max(n, n²ρ/d)⌉, σ² = 2C²T/(n²ρ).
    Raises ValueError / TypeError naming the parameter (T above ``MAX_ITERATIONS`` included)."""
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    rho = check_positive(rho, "rho")
    lam = check_positive(lam, "lam")
    if not isinstance(moments, MomentBounds):
        raise TypeError(f"moments must be a MomentBounds, got {type(moments).__name__}")
    k = moments.k
    C = moments.G_k * (25.0 * n * n * rho / (32.0 * d)) ** (1.0 / (2.0 * k))
    T = check_iterations(int(math.ceil(max(n, n * n * rho / d))), "T", remedy="decrease n or rho")
    sigma = math.sqrt(2.0 * C * C * T / (n * n * rho))
    return Corollary1Parameters(n=n, d=d, rho=rho, lam=lam, C=C, T=T, sigma=sigma)


def proposition_1_step_sizes(lam: float, T: int) -> np.ndarray:
    """η_t = 4/(λ(t+1)), t = 0..T−1 (Proposition 1).  lam > 0;  T ≥ 1.  Returns a (T,) array."""
    lam = check_positive(lam, "lam")
    T = check_iterations(T, "T")
    return 4.0 / (lam * (np.arange(T, dtype=np.float64) + 1.0))


def proposition_1_rho(n: int, T: int, C: float, sigma: float) -> float:
    """ρ of Algorithm 1 with the noise actually used: T steps of the Gaussian mechanism with replace-one
    sensitivity 2C/n, ρ = T·(2C/n)²/(2σ²) = 2TC²/(n²σ²) (Proposition 1's proof; Lemma 1, parts 1 and 3)."""
    n = check_positive_int(n, "n")
    T = check_positive_int(T, "T")
    C = check_positive(C, "C")
    sigma = check_positive(sigma, "sigma")
    rho = 2.0 * T * (C / (n * sigma)) ** 2 if C / (n * sigma) < 1e150 else math.inf
    if not math.isfinite(rho):
        raise ValueError(f"sigma = {sigma:.3g} is too small: the claimed rho overflows")
    return rho


def corollary_2_truncation_radius(moments: MomentBounds, lam: float) -> float:
    """r = 2G_1/λ, the radius of Lemma 5 that the Corollary 2 solver truncates to (Lemma 4: ‖x̄ − x*_{λ,x̄}‖ ≤
    2G_1/λ, so the truncation keeps the regularised population minimiser)."""
    if not isinstance(moments, MomentBounds):
        raise TypeError(f"moments must be a MomentBounds, got {type(moments).__name__}")
    return 2.0 * moments.G_1 / check_positive(lam, "lam")


#: ε = ρ + 2√(ρ log(1/δ)) of a ρ-zCDP claim at δ (Bun & Steinke 2016, Prop. 1.3; Lemma 1 part 2 minimised over α):
#: the core conversion, rounded up (dpsco.reference.conversions)
zcdp_epsilon = conversions.zcdp_epsilon


# ---- the shared loop ---------------------------------------------------------------------------------------

def two_ball_projector(c1: np.ndarray, r1: float, c2: np.ndarray, r2: float) -> Callable[[np.ndarray], np.ndarray]:
    """Π onto B(c1, r1) ∩ B(c2, r2) for (R, d) rows: the one core two-ball projection
    (``dpsco.reference.projections.project_ball_intersection``, vectorised; rows inside both balls are returned
    as they are; when one ball contains the other, the projection onto the smaller one).  c1 may be (R, d): one
    centre per row."""
    c1, c2 = np.asarray(c1, dtype=np.float64), np.asarray(c2, dtype=np.float64)
    return lambda Y: projections.project_ball_intersection(Y, c1, r1, c2, r2)


def clipped_sgd_core(step_gradient: Callable[[np.ndarray], np.ndarray], d: int, *, lam: float, eta: np.ndarray,
                     sigma: float, project: Callable[[np.ndarray], np.ndarray], rng: np.random.Generator,
                     replicates: int, keep_trace: bool = False) -> tuple[np.ndarray, dict[str, Any]]:
    """The loop of Algorithm 1 for R = ``replicates`` independent runs (inputs already checked).

    step_gradient : (R, d) iterates -> (R, d) ĝ_t (line 5; it must clip the per-sample gradients itself);
    eta : (T,) step sizes;  project : Π_X on (R, d) rows.  Returns (x̂ (R, d), info) with info["iterates"]
    (R, T+1, d) and info["noisy_gradients"] (R, T, d) when ``keep_trace``."""
    T = int(eta.shape[0])
    R = int(replicates)
    x = np.zeros((R, d))  # line 2: x_0 = 0
    acc = np.zeros((R, d))
    iterates = [x.copy()] if keep_trace else None
    noisy = [] if keep_trace else None
    for t in range(T):
        acc += (t + 4.0) * x  # the output weights x_0..x_{T−1}
        xi = sigma * rng.standard_normal((R, d))  # line 4: ξ_t ~ N(0, σ² I_d)
        g = step_gradient(x)  # line 5
        v = g + xi
        x = project((x - eta[t] * v) / (1.0 + eta[t] * lam))  # line 6, closed form
        if keep_trace:
            iterates.append(x.copy())
            noisy.append(v)
    info: dict[str, Any] = {}
    if keep_trace:
        info["iterates"] = np.stack(iterates, axis=1)
        info["noisy_gradients"] = np.stack(noisy, axis=1)
    return acc / (T * (T + 7) / 2.0), info  # Σ_{t<T} (t+4) = T(T+7)/2


# ---- Algorithm 1 -------------------------------------------------------------------------------------------

def _check_loss(loss: Any) -> HeavyTailedLoss:
    if not isinstance(loss, HeavyTailedLoss):
        raise TypeError(f"loss must be a HeavyTailedLoss, got {type(loss).__name__}")
    return loss


def _check_replicates(replicates: Any) -> int:
    return 1 if replicates is None else check_positive_int(replicates, "replicates")


def _vector_or_rows(v: Any, name: str, d: int, replicates: int | None) -> np.ndarray:
    """A (d,) vector, or (R, d) rows (one per replicate) when ``replicates`` = R is given."""
    a = np.asarray(v, dtype=np.float64)
    if a.ndim == 2 and replicates is not None:
        if a.shape != (replicates, d) or not np.all(np.isfinite(a)):
            raise ValueError(f"{name} must be a finite (d,) vector or ({replicates}, {d}) rows, got shape {a.shape}")
        return a
    return as_float_vector(v, name, d)


def clipped_dp_sgd(S: Any, loss: HeavyTailedLoss, *, C: float, lam: float, T: int, sigma: float, radius_r: float,
                   domain_radius: float, rng: np.random.Generator, domain_center: Any = None, eta: Any = None,
                   x_bar: Any = None, delta: float = 1e-6, white_box: bool = False,
                   replicates: int | None = None) -> Release:
    """Algorithm 1 (Clipped-DP-SGD) of Asi, Liu & Tian (2024), on X = B(domain_center, domain_radius) ∩ B(0, r).

    Parameters
    ----------
    S : (n, p) float array of records;  loss : HeavyTailedLoss (d = loss.dimension(p)).
    C : clip threshold > 0 (finite);  lam : λ ≥ 0 (> 0 when ``eta`` is None);  T : iterations ≥ 1;
    sigma : noise standard deviation > 0 (σ, so σ² = sigma²);  radius_r : r > 0, X ⊂ B(0, r);
    domain_radius : > 0 and domain_center : (d,) (default 0): X = B(center, radius) ∩ B(0, r), which must
        contain 0 (Algorithm 1's input condition; ValueError otherwise).
    eta : (T,) step sizes ≥ 0, default Proposition 1's η_t = 4/(λ(t+1)).
    x_bar : (d,) or None ((R, d) rows with ``replicates`` = R: one shift per run; likewise ``domain_center``).
        When given, the losses are shifted, f'(y; s) = f(y + x̄; s) (the Corollary 2
        solver's change of variables), and the output is x̄ + ŷ; the regulariser (λ/2)‖y‖² is then (λ/2)‖x − x̄‖².
    delta : δ ∈ (0, 1) at which the ρ-zCDP claim is also stated as (ε, δ), ε = ρ + 2√(ρ log(1/δ)).
    white_box : also return every iterate and noisy gradient ĝ_t + ξ_t (``Release.white_box``).
    replicates : None (one run, output (d,)) or R ≥ 1 independent runs (output (R, d); a verification record).

    Returns a ``Release``: output x̂ (Algorithm 1's return line), claim ρ-zCDP with ρ = 2TC²/(n²σ²) under
    replace-one (Proposition 1), gradient_evaluations = n·T per run, the parameters used.

    Raises ValueError / TypeError naming the parameter.
    """
    S, d = check_records(S, _check_loss(loss))
    n = S.shape[0]
    C = check_positive(C, "C")
    lam = check_positive(lam, "lam", allow_zero=True)
    T = check_iterations(T, "T")
    sigma = check_positive(sigma, "sigma")
    r = check_positive(radius_r, "radius_r")
    R_X = check_positive(domain_radius, "domain_radius")
    rng = check_rng(rng)
    white_box = check_bool(white_box, "white_box")
    reps = _check_replicates(replicates)
    center = np.zeros(d) if domain_center is None else _vector_or_rows(domain_center, "domain_center", d, replicates)
    if float(np.max(np.linalg.norm(np.atleast_2d(center), axis=1))) > R_X * (1 + 1e-12):
        raise ValueError(f"Algorithm 1 needs 0 ∈ X: ‖domain_center‖ = {np.max(np.linalg.norm(np.atleast_2d(center), axis=1)):.6g} "
                         f"> domain_radius = {R_X:.6g}")
    shift = np.zeros(d) if x_bar is None else _vector_or_rows(x_bar, "x_bar", d, replicates)
    if eta is None:
        if lam == 0.0:
            raise ValueError("lam must be > 0 for Proposition 1's step sizes η_t = 4/(λ(t+1)); pass eta otherwise")
        steps = proposition_1_step_sizes(lam, T)
    else:
        steps = np.asarray(eta, dtype=np.float64)
        if steps.shape != (T,) or not np.all(np.isfinite(steps)) or np.any(steps < 0):
            raise ValueError(f"eta must be a (T,) = ({T},) array of finite step sizes >= 0, got shape {steps.shape}")
    delta = check_delta(delta)
    if delta == 0.0:  # a ρ-zCDP claim at δ = 0 has ε = ∞ (conversions.zcdp_epsilon): refused before any noise
        raise ValueError(f"delta must be in (0, 1) for a zCDP claim stated as (epsilon, delta), got {delta!r}")
    rho = proposition_1_rho(n, T, C, sigma)
    clip_count = [0]

    def step_gradient(Y: np.ndarray) -> np.ndarray:  # line 5: ĝ_t = (1/n) Σ_i Π_C(∇f_i(x_t))
        G = loss.clipped_grads_at(Y + shift, S, C)  # (R, n, d) Π_C(∇f(y + x̄; s)), ‖·‖ ≤ C in floating point
        G = enforce_norm_bound(G, C)  # fail-safe before the noisy release (a no-op: tested)
        with np.errstate(over="ignore"):  # diagnostic only: rows on the clip (‖g‖ ≤ C, so ‖g‖² is finite for C < 1e154)
            clip_count[0] += int((np.einsum("...i,...i->...", G, G) >= (C * (1.0 - 1e-12)) ** 2).sum())
        return G.mean(axis=1)

    project = two_ball_projector(center, R_X, np.zeros(d), r)
    xhat, info = clipped_sgd_core(step_gradient, d, lam=lam, eta=steps, sigma=sigma, project=project, rng=rng,
                                  replicates=reps, keep_trace=white_box)
    out = shift + xhat
    params = {"n": n, "d": d, "C": C, "lam": lam, "T": T, "sigma": sigma, "sigma2": sigma * sigma,
              "radius_r": r, "domain_center": center.tolist() if center.ndim == 1 else "per replicate",
              "domain_radius": R_X, "x_bar": None if x_bar is None else shift.tolist() if shift.ndim == 1 else
              "per replicate",
              "eta": "4/(lam (t+1))" if eta is None else steps.tolist(), "rho": rho}
    trace = None
    if white_box:
        def record_gradient(W: np.ndarray, x: np.ndarray, y: float) -> np.ndarray:
            """Π_C(∇f(w + x̄; s)) at each of the R iterates W (R, d), for the record s = x (y unused)."""
            return loss.clipped_grads_at(np.asarray(W) + shift, np.asarray(x, dtype=np.float64)[None, :], C)[:, 0]

        trace = NoisyGradientTrace(iterates=info["iterates"], noisy_gradients=info["noisy_gradients"],
                                   record_gradient=record_gradient, n=n, m=n, T=T, sigma=sigma, clip_norm=C,
                                   eta=float(steps[0]) if steps[0] > 0 else 1.0, sampling="full-batch",
                                   algorithm="Clipped-DP-SGD (Asi, Liu & Tian 2024, Algorithm 1)")
    return Release(output=out[0] if replicates is None else out, claim=clipped_dp_sgd_claim(n, T, C, sigma, delta),
                   gradient_evaluations=n * T, parameters=params,
                   algorithm="Clipped-DP-SGD (Asi, Liu & Tian 2024, Algorithm 1)",
                   diagnostics={"clipped_gradient_fraction": clip_count[0] / float(n * T * reps)},
                   replicates=replicates, white_box=trace)


def clipped_dp_sgd_claim(n: int, T: int, C: float, sigma: float, delta: float, *,
                         source: str = SOURCE) -> PrivacyClaim:
    """The ρ-zCDP claim of Algorithm 1 with the noise actually used (``proposition_1_rho``), replace-one, with
    its dp_accounting event: T self-composed replace-one Gaussian steps of noise multiplier nσ/C."""
    from dp_accounting import dp_event

    rho = proposition_1_rho(n, T, C, sigma)
    return PrivacyClaim(
        notion="zCDP", epsilon=zcdp_epsilon(rho, delta), delta=delta, neighbouring="replace-one", source=source,
        assumptions={"clip": C, "n": n, "T": T, "sigma": sigma, "sensitivity_per_step": 2.0 * C / n,
                     "covers": "every noisy gradient ĝ_t + ξ_t (hence x̂)"},
        rho=rho, event=dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(n * sigma / C), T),
        event_neighbouring="REPLACE_ONE")


# ---- Corollary 1 and the Corollary 2 solver ----------------------------------------------------------------

def corollary_1_solver(S: Any, loss: HeavyTailedLoss, *, lam: float, rho: float, moments: MomentBounds,
                       domain_radius: float, rng: np.random.Generator, delta: float = 1e-6, white_box: bool = False,
                       replicates: int | None = None) -> Release:
    """Algorithm 1 with Corollary 1's parameters on X = B(0, R) (so r = R): a ρ-zCDP approximate minimiser of
    F_{D,λ}(x) = (1/n)Σ f(x; s_i) + (λ/2)‖x‖² over X (Asi, Liu & Tian 2024, Corollary 1).

    S : (n, p);  lam, rho, domain_radius > 0;  moments : MomentBounds.  Other arguments as in
    ``clipped_dp_sgd``.  Raises ValueError / TypeError naming the parameter."""
    S, d = check_records(S, _check_loss(loss))
    p = corollary_1_parameters(S.shape[0], d, rho, moments, lam)
    R_X = check_positive(domain_radius, "domain_radius")
    rel = clipped_dp_sgd(S, loss, C=p.C, lam=p.lam, T=p.T, sigma=p.sigma, radius_r=R_X, domain_radius=R_X,
                         rng=rng, delta=delta, white_box=white_box, replicates=replicates)
    rel.parameters.update({"rho_target": p.rho, "moments": moments.to_dict(), "parameters": "Corollary 1"})
    rel.algorithm = "Clipped-DP-SGD with Corollary 1's parameters (Asi, Liu & Tian 2024)"
    return rel


def corollary_2_solver(S: Any, loss: HeavyTailedLoss, *, x_bar: Any, lam: float, rho: float, moments: MomentBounds,
                       domain_radius: float, rng: np.random.Generator, domain_center: Any = None, delta: float = 1e-6,
                       white_box: bool = False, replicates: int | None = None) -> Release:
    """The Corollary 2 solver of Asi, Liu & Tian (2024): Algorithm 1 with Corollary 1's parameters on the shifted,
    truncated losses f'(y; s) = f(y + x̄; s) over X' = (X − x̄) ∩ B(0, r), r = 2G_1/λ, X = B(c, domain_radius)
    (c = ``domain_center``, default 0);
    returns x̄ + ŷ ∈ X ∩ B(x̄, r), an approximate minimiser of F_P(x) + (λ/2)‖x − x̄‖² over X (x*_{λ,x̄}, (7)).

    The printed proof of Corollary 2 writes f_{B(x̄,r)}(x − x̄; s); the shift that makes the regulariser
    (λ/2)‖y‖² of Algorithm 1 equal (λ/2)‖x − x̄‖² is y = x − x̄, i.e. f(y + x̄; s) (ERRATA.md, Corollary 2's proof).
    The projection onto X' is the exact projection onto the intersection of the two balls.

    x_bar : (d,) in X, or (R, d) rows with ``replicates`` = R (one centre per run);  lam, rho, domain_radius > 0;
    domain_center : (d,) or None (0);  moments : MomentBounds;
    others as ``clipped_dp_sgd``.
    Returns a Release (ρ-zCDP, replace-one; gradient_evaluations = n·T).  Raises ValueError / TypeError."""
    S, d = check_records(S, _check_loss(loss))
    R_X = check_positive(domain_radius, "domain_radius")
    xb = _vector_or_rows(x_bar, "x_bar", d, replicates)
    cX = np.zeros(d) if domain_center is None else as_float_vector(domain_center, "domain_center", d)
    far = float(np.max(np.linalg.norm(np.atleast_2d(xb - cX), axis=1)))
    if far > R_X * (1 + 1e-12):
        raise ValueError(f"x_bar must lie in X = B(c, {R_X:.6g}), got ‖x_bar − c‖ = {far:.6g}")
    xb = cX + project_ball(xb - cX, np.zeros(d), R_X)  # rounding: x̄ exactly in X, so 0 ∈ X'
    p = corollary_1_parameters(S.shape[0], d, rho, moments, lam)
    r = corollary_2_truncation_radius(moments, lam)
    rel = clipped_dp_sgd(S, loss, C=p.C, lam=p.lam, T=p.T, sigma=p.sigma, radius_r=r, domain_center=cX - xb,
                         domain_radius=R_X, x_bar=xb, rng=rng, delta=delta, white_box=white_box,
                         replicates=replicates)
    rel.parameters.update({"rho_target": p.rho, "moments": moments.to_dict(), "parameters": "Corollary 2"})
    rel.algorithm = "Corollary 2 solver: Clipped-DP-SGD on shifted, truncated losses (Asi, Liu & Tian 2024)"
    return rel
