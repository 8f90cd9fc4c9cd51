"""The noise actually drawn by the algorithms of Menart et al. (2023), arXiv:2311.13447 v2, measured from their
white-box transcripts, and the exact privacy of the Theorem 5 variant on its worst pair.

A privacy check never trusts what a release says about itself (``dpsco.verification.checks.noise``).  For each
noisy release of a run, the noiseless release is replayed here from the transcript's public state (the iterate
or pair of iterates of the release) and the private data, with the reference clipping
(``dpsco.reference.clipping``), and the residual (noisy − replayed) is divided by the standard deviation the
claim's calibration prescribes, computed from public inputs by the theorem's formula (the schedule functions of
``dpsco.reference.muabg23``), never read from the release:

* Algorithm 1 (:func:`spider_residuals`): anchors ∇F(w_{k,0}) + N(0, σ̂²) with σ̂ of line 4, differences
  ∇F(w_{k,t+1}) − ∇F(w_{k,t}) + N(0, σ_k²) with σ_k of line 7 (the released difference is ∇_{k,t+1} − ∇_{k,t});
* Algorithm 4 / Algorithm 2 (:func:`proximal_residuals`): ĝ_t − (1/n)Σ_i clip_{L_0}(∇f(w_t; x_i)) against
  Theorem 9's σ (at ρ/T per call for Algorithm 2);
* Algorithm 3 (:func:`adaptive_residuals`): N_t − ‖ḡ_t‖ against σ̂ (line 3) and the noisy gradient − ḡ_t
  against σ_t = max{N_t/ψ, σ_min} recomputed from the released N_t (line 4), ḡ_t the clipped mean gradient.

Normalised so, the residuals of a correct run are i.i.d. N(0, 1); :func:`measured_noise` applies the one-sided
χ² test of ``measured_noise_check`` (false failure ≤ 1e-7, exact), which the planted σ/√2 bugs
(``dpsco.verification.mutants.noise_scale.under_noised``) fail.

The Theorem 5 variant (:func:`em_pair_privacy`): two Algorithm 3 steps at the noise floor (Gaussian, composed
μ_G = √(2ρ)) and the exponential mechanism over their two iterates with scores (Δ, 0) vs (0, Δ), which is
randomised response with log-odds ε/2 (ε = √(8ρ_EM)).  Its exact hockey-stick curve is
δ(e) = Σ_o P(o)·δ_G(e − L_o) (the Gaussian's curve, shifted by the RR outcome's privacy loss L_o = ±ε/2), its
exact ρ = μ_G²/2 + sup_α D_α(RR)/α and its least μ-GDP the smallest μ with δ(e) ≤ δ_μ(e) for every e ≥ 0
(Dong, Roth & Su 2022, Corollary 2.13).  ERRATA.md MUABG23-E20: the claim's former μ = √(2(ρ + ρ_EM)) and its
GaussianDpEvent are below those values.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
from scipy import optimize
from scipy.special import log_ndtr

from dpsco.reference.clipping import clip_rows, enforce_norm_bound, row_norms
from dpsco.reference.muabg23.algorithms_adaptive import exact_rule, printed_rule
from dpsco.reference.muabg23.algorithms_proximal import theorem_9_sigma, theorem_9_steps
from dpsco.reference.muabg23.algorithms_spider import kl_spider_schedule
from dpsco.verification.checks.noise import measured_noise_check

__all__ = ["spider_residuals", "proximal_residuals", "noisy_gd_sigma", "proximal_point_sigma",
           "adaptive_residuals", "measured_noise", "gaussian_delta", "em_pair_delta", "rr_zcdp_rho",
           "least_gdp_mu", "em_pair_privacy"]


def _clipped_mean(G: np.ndarray, bound: float) -> np.ndarray:
    """Mean over the second-to-last axis of the per-sample rows G clipped at ``bound`` (reference clipping)."""
    with np.errstate(all="ignore"):
        return enforce_norm_bound(clip_rows(G, bound), bound).mean(axis=-2)


def _grads(loss: Any, w: np.ndarray, X: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(loss.grads(np.asarray(w, dtype=np.float64), X), dtype=np.float64)


# ---- Algorithm 1 ---------------------------------------------------------------------------------------------

def spider_residuals(release: Any, X: Any, loss: Any, *, rho: float, beta: float, F0: float, gamma: float,
                     kappa: float, L0: float, L1: float, calibration: str = "exact",
                     loop_guard: str = "strict") -> dict[str, np.ndarray]:
    """Normalised residuals of every release of a KL Spider run (Algorithm 1) from its white-box trace.

    release : a ``kl_spider(..., white_box=True)`` Release (any replicates).  X : (n, p) records (as passed).
    loss : the run's loss (``grads(w, X) -> (n, d)``).  rho..L1 : the run's public inputs; calibration,
    loop_guard : the calibration the *claim* states (σ̂, σ_k and s_k come from ``kl_spider_schedule`` at these
    public inputs, never from the release).  Returns {"anchor": (k_a,), "difference": (k_d,)}: (released −
    replayed noiseless)/σ, flattened over runs, releases and coordinates; i.i.d. N(0, 1) for a correct run.
    The round of each release is read from the trace's anchors (a release of kind 1 opens a round), so a run
    that makes more releases per round than the claim's schedule is replayed correctly too.
    """
    X = np.asarray(X, dtype=np.float64)
    tr = release.white_box
    it, ng = np.asarray(tr.iterates), np.asarray(tr.noisy_gradients)
    R, N = ng.shape[0], ng.shape[1]
    d = (it.shape[2] - 3) // 2
    s = kl_spider_schedule(X.shape[0], d, rho, beta, F0, gamma, kappa, L0, L1, calibration, loop_guard)
    out: dict[str, list[np.ndarray]] = {"anchor": [], "difference": []}
    for r in range(R):
        k = -1
        for j in range(N):
            kind = int(round(it[r, j, 2 * d + 1]))
            if kind == 0:
                continue                                   # a padding slot: no release happened
            wa, wb = it[r, j, :d], it[r, j, d:2 * d]
            released = ng[r, j, :d] / it[r, j, 2 * d]       # undo the trace's normalisation exactly
            if kind == 1:
                k += 1
                noiseless = _clipped_mean(_grads(loss, wa, X), s.L0)
                out["anchor"].append((released - noiseless) / s.sigma_hat)
            else:
                with np.errstate(all="ignore"):
                    diff = _grads(loss, wb, X) - _grads(loss, wa, X)
                noiseless = _clipped_mean(diff, s.L1 * s.step[k])
                out["difference"].append((released - noiseless) / s.sigma[k])
    return {key: np.concatenate(v) if v else np.zeros(0) for key, v in out.items()}


# ---- Algorithms 2 and 4 --------------------------------------------------------------------------------------

def noisy_gd_sigma(n: int, d: int, rho: float, beta: float, L0: float, calibration: str = "exact",
                   steps: int | None = None) -> float:
    """Theorem 9's σ of Algorithm 4 at its public inputs (T = ``theorem_9_steps`` unless ``steps``)."""
    T = theorem_9_steps(n, d, rho, beta) if steps is None else int(steps)
    return theorem_9_sigma(n, rho, T, L0, calibration)


def proximal_point_sigma(n: int, d: int, rho: float, beta: float, L0: float, outer_steps: int,
                         inner_steps: int | None = None, calibration: str = "exact") -> float:
    """σ of every inner call of Algorithm 2: Theorem 9's σ at budget ρ/T and failure probability β/T
    (Algorithm 2, lines 2 and 5), T = ``outer_steps`` (line 1; public)."""
    T = int(outer_steps)
    T4 = theorem_9_steps(n, d, rho / T, beta / T) if inner_steps is None else int(inner_steps)
    return theorem_9_sigma(n, rho / T, T4, L0, calibration)


def proximal_residuals(release: Any, X: Any, subgradient: Callable[..., Any], L0: float,
                       sigma: float) -> np.ndarray:
    """(ĝ_t − (1/n)Σ_i clip_{L_0}(∇f(w_t; x_i)))/σ for every noisy gradient of an Algorithm 4 or Algorithm 2 run
    (``white_box=True``, any replicates), replayed at the trace's iterates with the reference clipping;
    ``sigma`` from public inputs (:func:`noisy_gd_sigma`, :func:`proximal_point_sigma`).  Returns (k,)."""
    X = np.asarray(X, dtype=np.float64)
    tr = release.white_box
    it, ng = np.asarray(tr.iterates), np.asarray(tr.noisy_gradients)
    res = []
    for t in range(ng.shape[1]):
        with np.errstate(all="ignore"):
            G = np.asarray(subgradient(it[:, t], X), dtype=np.float64)
        res.append((ng[:, t] - _clipped_mean(G, L0)) / float(sigma))
    return np.concatenate([r.ravel() for r in res])


# ---- Algorithm 3 ---------------------------------------------------------------------------------------------

def adaptive_residuals(white_box: dict[str, Any], grad: Callable[[np.ndarray], np.ndarray], *, n: int,
                       rho: float, beta: float, L0: float, L1: float,
                       calibration: str = "exact") -> dict[str, np.ndarray]:
    """Normalised residuals of an Algorithm 3 transcript (``adaptive_gd(..., white_box=True).white_box``).

    grad : the run's per-sample gradient oracle.  n, rho, beta, L0, L1, calibration : the public inputs; σ̂,
    ψ and σ_min come from the rule's formulas (lines 3-4) at these inputs, and σ_t = max{N_t/ψ, σ_min} from
    the released N_t (never the transcript's recorded σ_t).  Returns {"norm": (T+1,) (N_t − ‖ḡ_t‖)/σ̂,
    "gradient": ((T+1)·d,) (y_t − ḡ_t)/σ_t}, ḡ_t the mean of the per-sample gradients at w_t clipped at L_0.
    """
    Y = np.asarray(white_box["noisy_gradients"], dtype=np.float64)
    N = np.asarray(white_box["N"], dtype=np.float64)
    W = np.asarray(white_box["iterates"], dtype=np.float64)
    d = Y.shape[1]
    rule = (exact_rule if calibration == "exact" else printed_rule)(int(n), d, rho, beta, L0, L1)
    norm_res, grad_res = [], []
    for t in range(N.size):
        with np.errstate(all="ignore"):
            g = _clipped_mean(np.asarray(grad(W[t]), dtype=np.float64), L0)
        sigma_t = rule.step_sigma(float(N[t]))  # the public rule reads only N_t
        norm_res.append((N[t] - float(row_norms(g))) / rule.sigma_hat)
        grad_res.append((Y[t] - g) / sigma_t)
    return {"norm": np.asarray(norm_res), "gradient": np.concatenate(grad_res) if grad_res else np.zeros(0)}


def measured_noise(residuals: Any, name: str, label: str = "") -> dict[str, Any]:
    """``measured_noise_check`` of residuals already normalised by their calibrated σ (so σ = 1); false
    failure ≤ 1e-7 (exact), the planted σ/√2 bug missed with probability ``miss_probability(k, 1/√2)``."""
    return measured_noise_check(np.asarray(residuals, dtype=np.float64).ravel(), 1.0, name,
                                label=label or "residuals normalised by the σ of the theorem's formula")


# ---- the Theorem 5 variant on its worst pair ------------------------------------------------------------------

def gaussian_delta(mu: float, e: float) -> float:
    """δ_μ(e) = Φ(−e/μ + μ/2) − e^e Φ(−e/μ − μ/2), the hockey-stick divergence of N(μ, 1) vs N(0, 1) at any
    real e (Dong, Roth & Su 2022, Corollary 2.13; log-space)."""
    if mu <= 0.0:
        return max(0.0, -math.expm1(e)) if e < 0 else 0.0
    a = float(log_ndtr(-e / mu + mu / 2.0))
    b = float(e + log_ndtr(-e / mu - mu / 2.0))
    return max(0.0, math.exp(a) * -math.expm1(b - a)) if a > -math.inf else 0.0


def _rr(eps_rr: float) -> tuple[float, float]:
    """(p, q): randomised response with log-odds ``eps_rr``: P = (p, q), Q = (q, p), p = e^ε/(1 + e^ε)."""
    p = 1.0 / (1.0 + math.exp(-eps_rr))
    return p, 1.0 - p


def em_pair_delta(mu_g: float, eps_rr: float, e: float) -> float:
    """δ(e) of the product of N(μ_G, 1) vs N(0, 1) and randomised response with log-odds ``eps_rr``: the RR
    outcome o has privacy loss L_o = ±eps_rr with probability p (resp. q) under P, so
    δ(e) = p·δ_G(e − eps_rr) + q·δ_G(e + eps_rr) (exact: the hockey-stick divergence of a product with a
    discrete factor is the P-average of the other factor's, shifted)."""
    p, q = _rr(eps_rr)
    return p * gaussian_delta(mu_g, e - eps_rr) + q * gaussian_delta(mu_g, e + eps_rr)


def rr_zcdp_rho(eps_rr: float) -> float:
    """sup_{α>1} D_α(P‖Q)/α for randomised response with log-odds ``eps_rr`` (P = (p, q), Q = (q, p)):
    D_α = log(p^α q^{1−α} + q^α p^{1−α})/(α − 1), maximised over α ∈ (1, 10⁴] by bounded scalar search on
    log(α − 1) (D_α/α is smooth, → KL = ε·tanh(ε/2) as α → 1 and → 0 as α → ∞; the search's result is checked
    against both limits)."""
    p, q = _rr(eps_rr)
    lp, lq = math.log(p), math.log(q)

    def ratio(a: float) -> float:
        x, y = a * lp + (1 - a) * lq, a * lq + (1 - a) * lp
        m = max(x, y)
        return (m + math.log(math.exp(x - m) + math.exp(y - m))) / ((a - 1.0) * a)

    kl = eps_rr * math.tanh(eps_rr / 2.0)
    res = optimize.minimize_scalar(lambda z: -ratio(1.0 + math.exp(z)), bounds=(-20.0, 9.2), method="bounded",
                                   options={"xatol": 1e-10})
    return max(kl, -float(res.fun))


def _gaussian_delta_array(mu: float, e: np.ndarray) -> np.ndarray:
    a = log_ndtr(-e / mu + mu / 2.0)
    b = e + log_ndtr(-e / mu - mu / 2.0)
    with np.errstate(all="ignore"):
        out = np.exp(a) * -np.expm1(b - a)
    return np.where(np.isfinite(a), np.maximum(out, 0.0), 0.0)


def least_gdp_mu(delta_fn: Callable[[float], float], grid: Any = None, tol: float = 1e-7) -> float:
    """The least μ with δ(e) ≤ δ_μ(e) at every e of ``grid`` (default 0..40 in steps of 0.005: μ-GDP iff
    (e, δ_μ(e))-DP for every e ≥ 0; the curves of interest are below 1e-80 beyond e = 40), by bisection to
    ``tol``."""
    es = np.arange(0.0, 40.0, 0.005) if grid is None else np.asarray(grid, dtype=np.float64)
    target = np.array([delta_fn(float(e)) for e in es])

    def ok(mu: float) -> bool:
        return bool(np.all(target <= _gaussian_delta_array(mu, es) + 1e-15))

    lo, hi = 1e-6, 1.0
    while not ok(hi):
        hi *= 2.0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def em_pair_privacy(rho: float, rho_em: float) -> dict[str, Any]:
    """The exact privacy of the Theorem 5 variant on its worst pair (module docstring): two Algorithm 3 steps at
    the floor (μ_G = √(2ρ), the filter's whole budget ρ) and the exponential mechanism at ε = √(8ρ_EM) over
    scores (Δ, 0) vs (0, Δ) (randomised response with log-odds ε/2).  Returns {"mu_gaussian", "eps_rr",
    "delta" (callable e -> δ(e)), "rho" (exact zCDP), "mu" (least GDP μ), "claimed_mu_former" (√(2(ρ + ρ_EM)),
    the μ the claim used to state)}."""
    mu_g = math.sqrt(2.0 * rho)
    eps_rr = math.sqrt(8.0 * rho_em) / 2.0

    def delta(e: float) -> float:
        return em_pair_delta(mu_g, eps_rr, e)

    return {"mu_gaussian": mu_g, "eps_rr": eps_rr, "delta": delta, "rho": mu_g ** 2 / 2.0 + rr_zcdp_rho(eps_rr),
            "mu": least_gdp_mu(delta), "claimed_mu_former": math.sqrt(2.0 * (rho + rho_em))}
