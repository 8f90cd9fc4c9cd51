"""Asi, Liu & Tian (2024), Section 4: the known-Lipschitz reduction (Algorithm 4, Proposition 3, Theorem 2) with a
concrete C-Lipschitz private SCO subroutine A_Lip (Proposition 4).

Algorithm 4 (KnownLipReduction) replaces every record s whose known Lipschitz bound L̄_s (Assumption 2)
exceeds C by a dummy record — f(·; s_0) = 0 if μ = 0, f(·; s_μ) = (μ/2)‖· − x̄‖² with x̄ ∈ X fixed and
data-independent if μ > 0 — and runs a C-Lipschitz private algorithm A on the result.  The record is
**replaced, not dropped**: n is unchanged, so neighbouring datasets map to neighbouring (or equal) truncated
datasets of the same size and A's privacy carries over (Proposition 3).  Theorem 2 takes
C = G_k(n√ρ/√d)^{1/k} (the same number as G_k(n²ρ/d)^{1/(2k)} of the μ > 0 case).

The dummy s_μ is μD-Lipschitz on X, which exceeds C when C < μD; the printed (13) asks C ≥ μD while the text
says C ≥ μD/4.  We calibrate A with L_A = max(C, μD) (ERRATA.md), so that A's Lipschitz premise holds for the
dummies too.

A_Lip (:func:`lipschitz_dpsco`) is a phased noisy gradient method in the style of Feldman, Koren & Talwar
(2020, Theorem 4.8, full-batch variant; the instantiation Proposition 4 names): I = ⌊log₂ n⌋ phases on disjoint
consecutive blocks of n_i = ⌊n/2^i⌋ records; phase i approximately minimises the λ_i-strongly convex
F_i(x) = (1/n_i)Σ_{s∈B_i} f(x; s) + (λ_i/2)‖x − x_{i−1}‖² over X, λ_i = 1/(η_i n_i), η_i = η·4^{−i},
η = D·min(1/(G_2√n), √ρ/(L√d)), by T_i = ⌈max(n_i, n_i²ρ/d)⌉ projected noisy steps
x_{t+1} = Π_X((x_t − γ_t(ĝ_t + ξ_t) + γ_tλ_i x_{i−1})/(1 + γ_tλ_i)), γ_t = 2/(λ_i(t + 1)), with every
per-sample gradient clipped at L (harmless when the declared L̄ is valid; it makes privacy independent of the
declaration) and ξ_t ~ N(0, σ_i²I), σ_i² = 2L²T_i/(n_i²ρ).  The phase output is the t-weighted average of
x_1..x_{T_i}.  Privacy: each step is the Gaussian mechanism on a clipped mean of replace-one sensitivity 2L/n_i,
(2L/n_i)²/(2σ_i²) = ρ/T_i-zCDP; T_i adaptive steps give ρ (Asi, Liu & Tian 2024, Lemma 1), and the disjoint
phases compose in parallel: ρ-zCDP in total, μ = √(2ρ) Gaussian DP.  Utility: Proposition 4's form
E[F_P(x) − F_P(x*)] ≤ C_Lip(G_2D/√n + LD√d/(n√ρ)) with C_Lip not given by the paper: measured ≤ 0.34 on a
bounded linear instance (s = e₁ + u/2, L = 1.5, d = 3, ρ = 0.1, n = 64–512, 6 runs each; the ratio falls with
n), and ``dpsco verify`` measures Theorem 2's ratio on a heavy-tailed instance (`alt24.known_lip` entry).
Gradient evaluations: Σ_i n_i·T_i ≤ max(n², n³ρ/d)
(Proposition 4's count with C_Lip = 1), of which the dummies' closed-form gradients are counted separately.
For μ > 0 the same A_Lip is used (its convex rate; Proposition 4's strongly convex rate would need Feldman et
al.'s Theorem 5.1 wrapper): privacy is unchanged.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from dpsco.reference.alt24.model import HeavyTailedLoss, MomentBounds, check_records
from dpsco.reference.alt24.primitives import project_ball
from dpsco.reference.alt24.theorems import zcdp_to_dp
from dpsco.reference.clipping import clip_rows, enforce_norm_bound
from dpsco.reference.domains import Ball, require_centred
from dpsco.reference.privacy import PrivacyClaim, Release
from dpsco.reference.validation import as_float_vector, check_delta, check_positive, check_rng

__all__ = ["a_lip_parameters", "known_lip_reduction", "lipschitz_dpsco", "phased_noisy_gd", "theorem_2_clip",
           "theorem_2_parameters", "truncation_mask", "BlockGradients"]

ALG4 = "KnownLipReduction with A_Lip (Asi, Liu & Tian 2024, Algorithm 4, Theorem 2)"
ALIP = "A_Lip: phased noisy clipped gradient descent (Asi, Liu & Tian 2024, Proposition 4; Feldman et al. 2020)"

# block_grads(x, start, stop) -> ((stop − start, d) per-sample gradients, real-record count, dummy count)
BlockGradients = Callable[[np.ndarray, int, int], tuple[np.ndarray, int, int]]


def _check_int(value: Any, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def theorem_2_clip(n: int, d: int, rho: float, bounds: MomentBounds) -> float:
    """Theorem 2's truncation threshold C = G_k(n√ρ/√d)^{1/k} (= G_k(n²ρ/d)^{1/(2k)}, the μ > 0 form)
    (Asi, Liu & Tian 2024, Theorem 2).  n, d ≥ 1; ρ > 0."""
    n = _check_int(n, "n", 1)
    d = _check_int(d, "d", 1)
    rho = check_positive(rho, "rho")
    if not isinstance(bounds, MomentBounds):
        raise TypeError(f"bounds must be a MomentBounds, got {type(bounds).__name__}")
    return bounds.G_k * (n * math.sqrt(rho) / math.sqrt(d)) ** (1.0 / bounds.k)


def theorem_2_parameters(n: int, d: int, rho: float, bounds: MomentBounds, D: float, mu: float = 0.0,
                         C: float | None = None) -> dict[str, Any]:
    """Algorithm 4's parameters under Theorem 2: C (:func:`theorem_2_clip` unless given) and A's Lipschitz
    parameter L_A = C (μ = 0) or max(C, μD) (μ > 0; the dummy (μ/2)‖x − x̄‖² is μD-Lipschitz on X — ERRATA.md,
    (13) vs the text), plus A_Lip's parameters (:func:`a_lip_parameters`) at L = L_A.  ``regime_ok`` records
    Theorem 2's proof assumption d ≤ n²ρ (so C ≥ G_k).  D = diam X > 0; μ ≥ 0."""
    D = check_positive(D, "D")
    mu = check_positive(mu, "mu", allow_zero=True)
    Cv = theorem_2_clip(n, d, rho, bounds) if C is None else check_positive(C, "C")
    L_A = Cv if mu == 0.0 else max(Cv, mu * D)
    return {"C": Cv, "L_A": L_A, "mu": mu, "regime_ok": int(d) <= int(n) ** 2 * float(rho),
            "a_lip": a_lip_parameters(n, d, rho, L_A, bounds.G_2, D)}


def a_lip_parameters(n: int, d: int, rho: float, lipschitz: float, G2: float, D: float) -> dict[str, Any]:
    """A_Lip's public parameters (module docstring): I = ⌊log₂ n⌋; η = D·min(1/(G_2√n), √ρ/(L√d)); phase i:
    records [start, stop) of size n_i = ⌊n/2^i⌋, η_i = η·4^{−i}, λ_i = 1/(η_i n_i), T_i = ⌈max(n_i, n_i²ρ/d)⌉,
    σ_i = √(2L²T_i/(n_i²ρ)).  n ≥ 2, d ≥ 1, ρ, L, G_2, D > 0.  Returns a dict (I, eta, lipschitz, phases,
    total_steps_gradients = Σ n_i T_i)."""
    n = _check_int(n, "n", 2)
    d = _check_int(d, "d", 1)
    rho = check_positive(rho, "rho")
    L = check_positive(lipschitz, "lipschitz")
    G2 = check_positive(G2, "G2")
    D = check_positive(D, "D")
    I = n.bit_length() - 1
    eta = D * min(1.0 / (G2 * math.sqrt(n)), math.sqrt(rho) / (L * math.sqrt(d)))
    phases, start = [], 0
    for i in range(1, I + 1):
        n_i = n >> i
        eta_i = eta / 4.0**i
        T_i = int(math.ceil(max(n_i, n_i**2 * rho / d)))
        phases.append({"i": i, "n_i": n_i, "start": start, "stop": start + n_i, "eta_i": eta_i,
                       "lambda_i": 1.0 / (eta_i * n_i), "T_i": T_i,
                       "sigma_i": math.sqrt(2.0 * L**2 * T_i / (n_i**2 * rho))})
        start += n_i
    return {"I": I, "eta": eta, "lipschitz": L, "phases": phases,
            "total_gradients": sum(p["n_i"] * p["T_i"] for p in phases)}


def phased_noisy_gd(block_grads: BlockGradients, params: dict[str, Any], d: int, radius: float,
                    rng: np.random.Generator, x0: np.ndarray, *, clip_norm: float,
                    trace: dict[str, list] | None = None) -> tuple[np.ndarray, int, int]:
    """A_Lip's loop (module docstring) on per-sample gradients supplied block by block: for each phase of
    ``params`` (from :func:`a_lip_parameters`), T_i noisy steps with per-sample gradients clipped at
    ``clip_norm`` (``clip_rows``: ‖·‖ ≤ clip_norm in floating point, then ``enforce_norm_bound`` as the last
    fail-safe before the noise) and N(0, σ_i²I) noise; returns (x_I, real-record gradient count, dummy gradient
    count).  The noise σ_i comes from ``params`` only; ``clip_norm`` must equal the L the σ_i were calibrated
    with for the ρ-zCDP guarantee (a larger clip is a privacy bug — a planted one in the mutant corpus).
    ``trace`` (a dict, filled in place): per step its "phase" index i, the iterate x_t, the phase's anchor
    x_{i−1} and the noisy gradient ĝ_t + ξ_t (the white-box view; a verification record)."""
    x_prev = x0.copy()
    real = dummy = 0
    for i, ph in enumerate(params["phases"], start=1):
        lam, T, sigma, m = ph["lambda_i"], ph["T_i"], ph["sigma_i"], ph["n_i"]
        x = x_prev.copy()
        acc = np.zeros(d)
        for t in range(T):
            g, r, u = block_grads(x, ph["start"], ph["stop"])
            real += r
            dummy += u
            G = clip_rows(g, clip_norm)                                # per-sample clip at L
            ghat = enforce_norm_bound(G, clip_norm).sum(axis=0) / m    # clipped mean, sensitivity 2L/n_i
            xi = sigma * rng.standard_normal(d)
            if trace is not None:
                for key, val in (("phase", i), ("iterates", x.copy()), ("anchors", x_prev.copy()),
                                 ("noisy_gradients", ghat + xi)):
                    trace.setdefault(key, []).append(val)
            gamma = 2.0 / (lam * (t + 1))
            y = (x - gamma * (ghat + xi) + gamma * lam * x_prev) / (1.0 + gamma * lam)
            x = project_ball(y, np.zeros(d), radius)                   # Π_X (X = B(0, R))
            acc += (t + 1) * x                                         # t-weighted average of x_1..x_T
        x_prev = acc / (T * (T + 1) / 2.0)
    return x_prev, real, dummy


def _domain(domain: Any) -> Ball:
    require_centred(domain, "domain", "Asi, Liu & Tian 2024, Sec. 2")  # X = B(0, R), Sec. 2
    if not domain.bounded:
        raise ValueError("domain must be bounded (Definition 4: X compact, diameter D)")
    return domain


def _start(x0: Any, d: int, R: float, name: str = "x0") -> np.ndarray:
    x = np.zeros(d) if x0 is None else as_float_vector(x0, name, d)
    if float(np.linalg.norm(x)) > R * (1.0 + 1e-12):
        raise ValueError(f"{name} must lie in X = B(0, {R}), ‖{name}‖ = {float(np.linalg.norm(x))}")
    return x


def _claim(rho: float, delta: float, source: str, assumptions: dict[str, Any],
           conditions: tuple[str, ...] = ()) -> PrivacyClaim:
    from dp_accounting import dp_event

    return PrivacyClaim(notion="zCDP", epsilon=zcdp_to_dp(rho, delta), delta=delta, neighbouring="replace-one",
                        source=source, assumptions=assumptions, conditions=conditions, rho=rho,
                        mu=math.sqrt(2.0 * rho), event=dp_event.GaussianDpEvent(1.0 / math.sqrt(2.0 * rho)),
                        event_neighbouring="ADD_OR_REMOVE_ONE")


def _common(S: Any, loss: Any, domain: Any, rho: Any, rng: Any, delta: Any) -> tuple:
    if not isinstance(loss, HeavyTailedLoss):
        raise TypeError(f"loss must be a HeavyTailedLoss, got {type(loss).__name__}")
    S, d = check_records(S, loss)
    domain = _domain(domain)
    rho = check_positive(rho, "rho")
    rng = check_rng(rng)
    delta = check_delta(delta)
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must be in (0, 1), got {delta}")
    if S.shape[0] < 2:
        raise ValueError(f"S must hold at least 2 records (I = ⌊log₂ n⌋ ≥ 1 phases), got {S.shape[0]}")
    return S, d, domain, rho, rng, delta


def lipschitz_dpsco(S: Any, loss: HeavyTailedLoss, domain: Ball, rho: float, lipschitz: float, G2: float,
                    rng: np.random.Generator, *, x0: Any = None, delta: float = 1e-6) -> Release:
    """A_Lip on its own: ρ-zCDP private SCO for a uniformly L-Lipschitz convex loss (module docstring;
    Asi, Liu & Tian 2024, Proposition 4).  Every record's declared bound ``loss.lipschitz_bound(S, R)`` must
    be ≤ L (a record above it is refused: ValueError); gradients are clipped at L anyway.

    S : (n, p), n ≥ 2;  domain : Ball(R);  ρ > 0;  L = ``lipschitz`` > 0;  G2 > 0 (public second-moment
    bound);  x0 : (d,) in X (default 0).  Returns a Release (output (d,) in X; claim ρ-zCDP, replace-one,
    μ = √(2ρ); gradient_evaluations = Σ n_iT_i)."""
    S, d, domain, rho, rng, delta = _common(S, loss, domain, rho, rng, delta)
    L = check_positive(lipschitz, "lipschitz")
    R = domain.radius
    x = _start(x0, d, R)
    Lbar = np.asarray(loss.lipschitz_bound(S, R), dtype=np.float64)
    over = np.flatnonzero(~(Lbar <= L * (1.0 + 1e-12)))            # NaN counts as above (a data check, before noise)
    if over.size:
        raise ValueError(f"record {int(over[0])} has L̄_s = {float(Lbar[over[0]])} > lipschitz = {L}: the loss "
                         "is not uniformly L-Lipschitz on this data (use known_lip_reduction to truncate)")
    par = a_lip_parameters(S.shape[0], d, rho, L, G2, domain.diameter)

    def block(xc: np.ndarray, a: int, b: int) -> tuple[np.ndarray, int, int]:
        return loss.clipped_grads_at(xc[None, :], S[a:b], L)[0], b - a, 0

    out, real, _ = phased_noisy_gd(block, par, d, R, rng, x, clip_norm=L)
    claim = _claim(rho, delta, "Asi, Liu & Tian 2024, Proposition 4 (A_Lip: clipped-mean Gaussian steps, ρ/T_i "
                   "each, parallel composition over disjoint phases)", {"lipschitz": L, "clip": L, "radius": R})
    return Release(output=out, claim=claim, gradient_evaluations=par["total_gradients"],
                   parameters={"rho": rho, **par}, algorithm=ALIP,
                   nonprivate_internals={"gradient_evaluations_performed": real})


def truncation_mask(S: Any, loss: HeavyTailedLoss, C: float, radius: float) -> np.ndarray:
    """Algorithm 4's per-record rule (Asi, Liu & Tian 2024, (11), (13)): True where L̄_s ≤ C (the record is
    kept), False where it is replaced by the dummy.  A function of each record alone (so neighbours map to
    neighbours).  A heavy record whose L̄_s overflows to inf is replaced (inf > C, as the rule says), and so is
    one whose L̄_s is NaN (fail-safe: a record is kept only when L̄_s ≤ C is established), so every finite record
    is admissible.  S : (n, p);  C ≥ 0;  radius = R.  Returns an (n,) bool array.  Raises ValueError for a loss
    whose bound has the wrong shape or a negative entry (a defect of the loss, found before any noise)."""
    if not isinstance(loss, HeavyTailedLoss):
        raise TypeError(f"loss must be a HeavyTailedLoss, got {type(loss).__name__}")
    S, _ = check_records(S, loss)
    C = check_positive(C, "C", allow_zero=True)
    Lbar = np.asarray(loss.lipschitz_bound(S, check_positive(radius, "radius")), dtype=np.float64)
    if Lbar.shape != (S.shape[0],) or np.any(Lbar < 0):
        raise ValueError(f"loss {loss.name}: lipschitz_bound must give one L̄_s ≥ 0 per record")
    return Lbar <= C


def known_lip_reduction(S: Any, loss: HeavyTailedLoss, domain: Ball, rho: float, bounds: MomentBounds,
                        rng: np.random.Generator, *, C: float | None = None, mu: float = 0.0, x_bar: Any = None,
                        x0: Any = None, delta: float = 1e-6, white_box: bool = False) -> Release:
    """Algorithm 4, KnownLipReduction(D, C, μ, ρ, X, A) with A = A_Lip (Asi, Liu & Tian 2024, Section 4,
    Proposition 3, Theorem 2).

    Records with L̄_s > C are **replaced** by the dummy (μ = 0: f = 0; μ > 0: (μ/2)‖x − x̄‖², x̄ = ``x_bar``,
    default 0 — public and fixed), n unchanged (lines 2–7); A_Lip runs on the result calibrated with
    L_A = C (μ = 0) or max(C, μD) (μ > 0; ERRATA.md).  C defaults to Theorem 2's G_k(n√ρ/√d)^{1/k}; an explicit
    C must be public (never computed from S).  With μ > 0 the loss must declare
    ``loss.strong_convexity() ≥ μ`` (every f(·; s) μ-strongly convex, Proposition 3).

    Privacy: ρ-zCDP, replace-one (μ_GDP = √(2ρ)); it rests on A_Lip's clipping at L_A, not on the L̄
    declaration being right.  Utility: Theorem 2, E[F_P(x) − F_P(x*)] ≤ C_HT(G_2D/√n + G_kD(√d/(n√ρ))^{1−1/k})
    (μ = 0), C_HT = C_Lip + 2 (Prop 3 with Lemma 7's corrected G_k^k D/C^{k−1}).
    Gradient evaluations: ``gradient_evaluations`` is the public count Σ n_iT_i of the schedule
    (``parameters["a_lip"]["total_gradients"]``: real and dummy records alike).  The split depends on how many
    records were replaced, so it is never published: the real-record count is
    ``nonprivate_internals["gradient_evaluations_performed"]``, the dummies' closed-form gradients
    ``diagnostics["dummy_gradient_evaluations"]``.  ``white_box``: ``Release.white_box`` is the dict of
    :func:`phased_noisy_gd`'s trace (per step: phase, iterate, anchor, noisy gradient) with the keep mask.

    S : (n, p), n ≥ 2;  domain : Ball(R);  ρ > 0;  bounds : MomentBounds;  μ ≥ 0;  x_bar, x0 : (d,) in X.
    Raises ValueError / TypeError naming the parameter."""
    S, d, domain, rho, rng, delta = _common(S, loss, domain, rho, rng, delta)
    if not isinstance(bounds, MomentBounds):
        raise TypeError(f"bounds must be a MomentBounds, got {type(bounds).__name__}")
    mu = check_positive(mu, "mu", allow_zero=True)
    R = domain.radius
    if mu > 0.0 and loss.strong_convexity() < mu * (1.0 - 1e-12):
        raise ValueError(f"mu = {mu} but loss {loss.name} declares strong convexity {loss.strong_convexity()}: "
                         "Proposition 3's μ > 0 branch needs every f(·; s) μ-strongly convex")
    xb = _start(x_bar, d, R, "x_bar")
    x = _start(x0, d, R)
    par = theorem_2_parameters(S.shape[0], d, rho, bounds, domain.diameter, mu, C)
    keep = truncation_mask(S, loss, par["C"], R)              # (11)/(13): π(s) = s if L̄_s ≤ C else the dummy
    kept_rows = np.flatnonzero(keep)

    def block(xc: np.ndarray, a: int, b: int) -> tuple[np.ndarray, int, int]:
        g = np.zeros((b - a, d))
        if mu > 0.0:
            g[:] = mu * (xc - xb)                             # ∇ (μ/2)‖x − x̄‖², the dummy s_μ
        sel = kept_rows[(kept_rows >= a) & (kept_rows < b)]
        if sel.size:                                          # Π_{L_A}(∇f(x; s)): exact and finite (‖·‖ ≤ L_A)
            g[sel - a] = loss.clipped_grads_at(xc[None, :], S[sel], par["L_A"])[0]
        return g, int(sel.size), int(b - a - sel.size)

    trace: dict[str, list] | None = {} if white_box else None
    out, real, dummy = phased_noisy_gd(block, par["a_lip"], d, R, rng, x, clip_norm=par["L_A"], trace=trace)
    claim = _claim(rho, delta, "Asi, Liu & Tian 2024, Proposition 3 (Algorithm 4 inherits A's privacy: the "
                   "per-record replacement maps neighbours to neighbours of the same size) with A_Lip "
                   "(Proposition 4) calibrated at L_A = max(C, μD)",
                   {"C": par["C"], "L_A": par["L_A"], "mu": mu, "x_bar": xb.tolist(), "radius": R,
                    "replace_not_drop": True})
    wb = None
    if trace is not None:
        wb = {k: np.asarray(v) for k, v in trace.items()}
        wb["keep"] = keep.copy()
    return Release(output=out, claim=claim, gradient_evaluations=par["a_lip"]["total_gradients"],
                   parameters={"rho": rho, "C": par["C"], "L_A": par["L_A"], "mu": mu, "regime_ok": par["regime_ok"],
                               "a_lip": par["a_lip"]},
                   algorithm=ALG4, diagnostics={"replaced": int(S.shape[0] - keep.sum()),
                                                "dummy_gradient_evaluations": dummy},
                   nonprivate_internals={"gradient_evaluations_performed": real}, white_box=wb)
