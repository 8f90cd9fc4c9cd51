"""Exact privacy curves of Gaussian mixtures and of noisy SGD's sampling, and composed subsampled Gaussians.

A privacy curve of a mechanism M is δ(ε) = sup_{S ~ S'} H_{e^ε}(M(S) ‖ M(S')) (hockey-stick divergence
H_γ(P ‖ Q) = ∫ (p − γ q)_+); M is (ε, δ)-DP iff δ(ε) ≤ δ.  This module computes

* the exact hockey-stick divergence of two 1-D Gaussian mixtures with common σ (numerical, see
  :func:`mixture_gaussian_delta` for the error analysis), and on top of it the exact curve of one step of
  with-replacement subsampled noisy SGD on the linear canary (Bassily, Feldman, Talwar & Thakurta 2019,
  Algorithm 1 with T = 1) and of one or two steps on its worst-case pair
  (``docs/derivations.md#the-one-sided-worst-case-pair-of-algorithm-1``);
* the (ε, δ) of the Poisson-subsampled Gaussian mechanism composed over T steps, through Google's
  ``dp_accounting`` (RDP or PLD accountant).

The closed-form curves of the Gaussian, Laplace and randomized-response mechanisms are in
``dpsco.oracles.mechanism_curves``; they are re-exported here, so ``dpsco.oracles.privacy_curves`` offers
every exact privacy curve of the project.  Everything here is an *oracle*: it depends on public parameters
only and never on data.  Natural logarithms throughout.  Functions that return ε for a target δ return the
*conservative* end of a root bracket: the returned ε always satisfies δ(ε) ≤ δ as evaluated by this module.

References
----------
* I. Mironov, K. Talwar, L. Zhang. Rényi differential privacy of the sampled Gaussian mechanism. 2019.
* B. Balle, G. Barthe, M. Gaboardi. Privacy amplification by subsampling: tight analyses via couplings and
  divergences. NeurIPS 2018 (advanced joint convexity, used for the replace-one convention below).
* R. Bassily, V. Feldman, K. Talwar, A. Thakurta. Private stochastic convex optimization with optimal
  rates. NeurIPS 2019.
"""

from __future__ import annotations

import math
from typing import Any, Literal, Sequence

import numpy as np
from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.special import logsumexp, ndtr
from scipy.stats import binom

from dpsco.oracles.mechanism_curves import (check_epsilon_array, gaussian_delta, gaussian_epsilon, gaussian_sigma,
                                            gdp_epsilon_to_delta, gdp_mu_to_epsilon, laplace_delta, laplace_epsilon,
                                            randomized_response_epsilon, scalar_or_array, smallest_feasible)
from dpsco.reference.validation import check_delta, check_positive, check_positive_int

__all__ = [
    # re-exported from dpsco.oracles.mechanism_curves
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_sigma",
    "gdp_epsilon_to_delta",
    "gdp_mu_to_epsilon",
    "laplace_delta",
    "laplace_epsilon",
    "randomized_response_epsilon",
    # defined here
    "mixture_gaussian_delta",
    "mixture_gaussian_delta_max",
    "nsgd_one_step_canary_delta",
    "nsgd_one_step_canary_epsilon",
    "nsgd_worst_pair_delta_quadrature",
    "subsampled_gaussian_epsilon",
]

#: binomial tail mass below which the canary mixture is truncated (the mass is added to δ, conservatively)
_CANARY_TAIL_MASS = 1e-40


# ---------------------------------------------------------------------------------------------------------
# Gaussian mixtures
# ---------------------------------------------------------------------------------------------------------
def _check_mixture(weights: Any, means_p: Any, means_q: Any, sigma: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    try:
        w = np.asarray(weights, dtype=np.float64).ravel()
        a = np.asarray(means_p, dtype=np.float64).ravel()
        b = np.asarray(means_q, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise TypeError("weights, means_p and means_q must be numeric 1-D arrays") from None
    if w.size == 0:
        raise ValueError("weights must not be empty")
    if a.shape != w.shape:
        raise ValueError(f"means_p must have the same length as weights ({w.size}), got {a.size}")
    if b.shape != w.shape:
        raise ValueError(f"means_q must have the same length as weights ({w.size}), got {b.size}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be finite and >= 0")
    if abs(float(np.sum(w)) - 1.0) > 1e-9:
        raise ValueError(f"weights must sum to 1 (within 1e-9), got {float(np.sum(w))!r}")
    if not np.all(np.isfinite(a)):
        raise ValueError("means_p must be finite")
    if not np.all(np.isfinite(b)):
        raise ValueError("means_q must be finite")
    s = check_positive(sigma, "sigma")
    return w, a, b, s


def _mass(lo: float, hi: float, means: np.ndarray, sigma: float) -> np.ndarray:
    """P(lo < X <= hi) for X ~ N(mean, σ²), per mean, without cancellation in either tail."""
    zl = (lo - means) / sigma
    zu = (hi - means) / sigma
    right = zl >= 0  # both in the right tail: use survival functions
    return np.where(right, ndtr(-zl) - ndtr(-zu), ndtr(zu) - ndtr(zl))


def _log_mixture(xs: np.ndarray, logw: np.ndarray, means: np.ndarray, s2: float) -> np.ndarray:
    """log Σ_k e^{logw_k} exp(−(x − m_k)²/(2σ²)) at every x (common factors dropped), in chunks of the grid."""
    if means.size == 0:
        return np.full(xs.shape, -np.inf)
    out = np.empty(xs.shape)
    step = max(1, 2_000_000 // means.size)
    for start in range(0, xs.size, step):
        x = xs[start : start + step]
        out[start : start + step] = logsumexp(logw[None, :] - (x[:, None] - means[None, :]) ** 2 / (2 * s2), axis=1)
    return out


def _hockey_stick(
    gamma_log: float,
    logw_p: np.ndarray,
    a: np.ndarray,
    logw_q: np.ndarray,
    b: np.ndarray,
    sigma: float,
    *,
    grid_points: int = 2049,
) -> float:
    """H_{e^{gamma_log}}(P ‖ Q) for (sub-)mixtures P = Σ e^{logw_p} N(a, σ²), Q = Σ e^{logw_q} N(b, σ²).

    p(x) − γ q(x) = φ_σ(x) · f(x) with the exponential sum f(x) = Σ_j c_j exp(m_j x/σ²) over the distinct
    means m_j, c_j = (P-weight of m_j) e^{−m_j²/2σ²} − γ (Q-weight of m_j) e^{−m_j²/2σ²}.  By Descartes' rule
    of signs for exponential sums (Laguerre), f has at most V real zeros, V = number of sign changes of
    (c_j) ordered by m_j.  All zeros lie in [x_L, x_R] where the extreme term dominates the sum of the
    others (computed below).  The zeros are located by a sign scan on a grid of that interval, refined
    16× if fewer than V zeros were found, then polished by Brent's method on log p − log q − log γ; on
    each interval between consecutive zeros the sign is constant and the integral of p − γq is an exact
    difference of normal CDFs.  Remaining error: float rounding (≈ 1e-16 relative to P(E) + γQ(E)) and,
    only when V >= 3 and two zeros lie within one refined grid cell, a missed sliver of mass.  V = 1
    (e.g. the subsampled-canary pair, whose likelihood ratio is monotone) needs no grid and is exact.
    """
    s2 = sigma * sigma
    means = np.concatenate([a, b])
    # log|c| per component, signs
    logc = np.concatenate([logw_p - a * a / (2 * s2), gamma_log + logw_q - b * b / (2 * s2)])
    sign = np.concatenate([np.ones_like(a), -np.ones_like(b)])
    keep = np.isfinite(logc)
    means, logc, sign = means[keep], logc[keep], sign[keep]
    if means.size == 0:
        return 0.0
    # merge equal means: c = Σ sign·exp(logc)
    uniq, inv = np.unique(means, return_inverse=True)
    coef_log = np.full(uniq.size, -np.inf)
    coef_sign = np.zeros(uniq.size)
    for j in range(uniq.size):
        sel = inv == j
        val, sgn = logsumexp(logc[sel], b=sign[sel], return_sign=True)
        if sgn != 0 and np.isfinite(val):
            coef_log[j], coef_sign[j] = float(val), float(sgn)
    nz = coef_sign != 0
    m_j, lc_j, sg_j = uniq[nz], coef_log[nz], coef_sign[nz]
    if m_j.size == 0:
        return 0.0

    def total_mass(lo: float, hi: float) -> float:
        pm = np.exp(logw_p) @ _mass(lo, hi, a, sigma) if a.size else 0.0
        qm = np.exp(logw_q) @ _mass(lo, hi, b, sigma) if b.size else 0.0
        return float(pm - math.exp(gamma_log) * qm)

    if m_j.size == 1:
        return max(0.0, total_mass(-math.inf, math.inf)) if sg_j[0] > 0 else 0.0

    V = int(np.sum(sg_j[1:] != sg_j[:-1]))
    # root-free region: beyond x_R the largest-mean term dominates, beyond x_L the smallest-mean one.
    x_r = max(0.0, s2 * (float(logsumexp(lc_j[:-1])) - lc_j[-1]) / (m_j[-1] - m_j[-2]))
    x_l = min(0.0, -s2 * (float(logsumexp(lc_j[1:])) - lc_j[0]) / (m_j[1] - m_j[0]))
    x_r = x_r + 1e-9 * (1.0 + abs(x_r))
    x_l = x_l - 1e-9 * (1.0 + abs(x_l))
    sign_left, sign_right = sg_j[0], sg_j[-1]

    def g(x: float) -> float:
        lp = logsumexp(logw_p - (x - a) ** 2 / (2 * s2)) if a.size else -math.inf
        lq = logsumexp(logw_q - (x - b) ** 2 / (2 * s2)) if b.size else -math.inf
        return float(lp - lq - gamma_log)

    roots: list[float] = []
    if V == 0:
        roots = []
    elif V == 1 and np.sign(g(x_l)) == sign_left and np.sign(g(x_r)) == sign_right:
        roots = [brentq(g, x_l, x_r, xtol=1e-15 * max(1.0, abs(x_l), abs(x_r)), rtol=8.9e-16, maxiter=500)]
    else:
        for refine in (1, 16):
            xs = np.linspace(x_l, x_r, grid_points * refine)
            gs = _log_mixture(xs, logw_p, a, s2) - _log_mixture(xs, logw_q, b, s2) - gamma_log
            sg = np.sign(gs)
            sg[0], sg[-1] = sign_left, sign_right
            # treat exact zeros as belonging to the previous sign to avoid double counting
            for i in range(1, sg.size):
                if sg[i] == 0:
                    sg[i] = sg[i - 1]
            idx = np.nonzero(sg[1:] != sg[:-1])[0]
            roots = []
            for i in idx:
                lo, hi = float(xs[i]), float(xs[i + 1])
                glo, ghi = g(lo), g(hi)
                if glo == 0.0:
                    roots.append(lo)
                elif ghi == 0.0 or np.sign(glo) == np.sign(ghi):
                    roots.append(hi)
                else:
                    roots.append(brentq(g, lo, hi, xtol=1e-15 * max(1.0, abs(lo), abs(hi)), rtol=8.9e-16))
            if len(roots) >= V:
                break
    pts = [-math.inf, *sorted(roots), math.inf]
    total = 0.0
    for i in range(len(pts) - 1):
        lo, hi = pts[i], pts[i + 1]
        if math.isinf(lo) and lo < 0:
            positive = sign_left > 0
        elif math.isinf(hi):
            positive = sign_right > 0
        else:
            positive = g(0.5 * (lo + hi)) > 0
        if positive:
            total += total_mass(lo, hi)
    return float(min(1.0, max(0.0, total)))


def mixture_gaussian_delta(
    epsilon: Any, weights: Any, means_p: Any, means_q: Any, sigma: float
) -> float | np.ndarray:
    """Exact hockey-stick divergence H_{e^ε}(P ‖ Q) of two 1-D Gaussian mixtures with common σ.

    P = Σ_k w_k N(a_k, σ²),  Q = Σ_k w_k N(b_k, σ²),  H_γ(P ‖ Q) = ∫ (p − γ q)_+ dx.

    Method (no quadrature): p − γq = φ_σ·f with f an exponential sum; its zeros (at most V, the number of
    coefficient sign changes, by Descartes' rule for exponential sums) all lie in an explicit interval, are
    found by a sign scan and Brent's method, and the integral over each positive interval is an exact
    difference of normal CDFs (computed in the tail that avoids cancellation).  Error: float rounding,
    ≈ 1e-16·(P(E) + e^ε Q(E)) absolute, plus — only for mixtures whose coefficient sequence has V >= 3
    sign changes — the mass of any pair of zeros closer than (x_R − x_L)/32768 (not detected by the scan).
    Mixtures with a monotone likelihood ratio (V = 1), such as the subsampled-canary pair, are exact up to
    rounding.

    Parameters
    ----------
    epsilon : float or array, >= 0
    weights : (K,) array, entries >= 0 summing to 1 (within 1e-9)
    means_p, means_q : (K,) arrays of finite floats
        Component means of P and Q (component k of both has weight w_k).
    sigma : float > 0

    Returns
    -------
    float or ndarray of the shape of ``epsilon``, in [0, 1]

    Raises
    ------
    ValueError, TypeError
        Bad ε, weights not a probability vector, mismatched lengths, non-finite means, σ <= 0.
    """
    eps, scalar = check_epsilon_array(epsilon)
    w, a, b, s = _check_mixture(weights, means_p, means_q, sigma)
    with np.errstate(divide="ignore"):
        logw = np.log(w)
    out = np.array([_hockey_stick(float(e), logw, a, logw, b, s) if np.isfinite(e) else 0.0 for e in eps.ravel()])
    return scalar_or_array(out.reshape(eps.shape), scalar)


def mixture_gaussian_delta_max(
    epsilon: Any, weights: Any, means_p: Any, means_q: Any, sigma: float
) -> float | np.ndarray:
    """max(H_{e^ε}(P ‖ Q), H_{e^ε}(Q ‖ P)) for the mixtures of :func:`mixture_gaussian_delta`.

    This is the δ(ε) of the pair under a symmetric neighbouring relation (replace-one, or add/remove with
    both directions).  Same parameters, returns and errors as :func:`mixture_gaussian_delta`.
    """
    fwd = mixture_gaussian_delta(epsilon, weights, means_p, means_q, sigma)
    bwd = mixture_gaussian_delta(epsilon, weights, means_q, means_p, sigma)
    return np.maximum(fwd, bwd) if isinstance(fwd, np.ndarray) else max(float(fwd), float(bwd))


# ---------------------------------------------------------------------------------------------------------
# One step of with-replacement subsampled noisy SGD on the linear canary
# ---------------------------------------------------------------------------------------------------------
def _canary_components(n: int, m: int) -> tuple[np.ndarray, np.ndarray, float]:
    """(k, log p_k, truncated tail mass) for k ~ Binomial(m, 1/n), truncated where the tail is < 1e-40."""
    q = 1.0 / n
    kmax = m
    if q < 1.0:
        # smallest K with P(k > K) <= _CANARY_TAIL_MASS
        sf = binom.sf(np.arange(m + 1), m, q)
        below = np.nonzero(sf <= _CANARY_TAIL_MASS)[0]
        kmax = int(below[0]) if below.size else m
    k = np.arange(kmax + 1)
    logp = binom.logpmf(k, m, q)
    tail = float(binom.sf(kmax, m, q)) if kmax < m else 0.0
    return k, logp, tail


def nsgd_one_step_canary_delta(
    epsilon: Any,
    n: int,
    m: int,
    sigma: float,
    lipschitz: float,
    *,
    neighbour: Literal["symmetric", "null"] = "symmetric",
) -> float | np.ndarray:
    """Exact δ(ε) of one step of with-replacement subsampled noisy SGD on the linear canary.

    Setting (Bassily et al. 2019, Algorithm 1, one step; the audits' linear canary): the loss is
    ℓ(w, z) = ⟨w, z⟩, the dataset is n − 1 zero records plus the canary z_n = L e₁; the step draws m indices
    i.i.d. uniformly *with replacement*, averages their gradients and adds N(0, σ² I).  The canary is drawn
    k ~ Binomial(m, 1/n) times, so the noisy mean gradient's first coordinate is distributed as
    P = Σ_k p_k N(kL/m, σ²); all other coordinates are pure noise, identical under both datasets.  The
    neighbour replaces the canary by

    * ``"symmetric"``: −L e₁ (the worst replace-one pair for this canary), Q = Σ_k p_k N(−kL/m, σ²);
      by the mirror symmetry x ↦ −x both directions are equal;
    * ``"null"``: the zero record, Q = N(0, σ²); the maximum over both directions is returned.

    The returned δ is max over directions of H_{e^ε}, computed exactly by :func:`mixture_gaussian_delta`
    machinery (the symmetric pair has a monotone likelihood ratio, so the positive set is a half-line).
    The Binomial is truncated where its upper tail is below 1e-40 and that tail mass is *added* to δ
    (H(P ‖ Q) <= H(P_trunc ‖ Q_trunc) + P_tail), so the result is an upper bound that is exact to ~1e-40.

    Parameters
    ----------
    epsilon : float or array, >= 0
    n : int >= 1
        Dataset size.
    m : int >= 1
        Mini-batch size (indices drawn with replacement).
    sigma : float > 0
        Standard deviation of the noise added to the *mean* gradient (Algorithm 1's σ).
    lipschitz : float > 0
        L, the canary's gradient norm.
    neighbour : "symmetric" | "null"

    Returns
    -------
    float or ndarray in [0, 1]

    Raises
    ------
    ValueError, TypeError

    Notes
    -----
    Golden values (``docs/derivations.md#accountants-for-the-printed-calibration-of-algorithm-1``; T = 1,
    σ² = 8TL² log(1/δ)/(n²ε²), m = ⌈n √(ε/(4T))⌉): δ(0.1) ≈ 3.2e-12 for n = 10⁴, ε = 0.1, δ = 1e-8 (m = 1582),
    and ≈ 9.4e-11 for n = 2000, ε = 0.1, δ = 2.5e-7 (m = 317).
    """
    eps, scalar = check_epsilon_array(epsilon)
    n_ = check_positive_int(n, "n")
    m_ = check_positive_int(m, "m")
    s = check_positive(sigma, "sigma")
    L = check_positive(lipschitz, "lipschitz")
    if neighbour not in ("symmetric", "null"):
        raise ValueError(f"neighbour must be 'symmetric' or 'null', got {neighbour!r}")
    k, logp, tail = _canary_components(n_, m_)
    a = k * (L / m_)
    if neighbour == "symmetric":
        logq, bq = logp, -a
    else:
        logq, bq = np.array([0.0]), np.array([0.0])

    def one(e: float) -> float:
        if not np.isfinite(e):
            return 0.0
        h = _hockey_stick(e, logp, a, logq, bq, s)
        if neighbour == "null":
            h = max(h, _hockey_stick(e, logq, bq, logp, a, s))
        return min(1.0, h + tail)

    out = np.array([one(float(e)) for e in eps.ravel()]).reshape(eps.shape)
    return scalar_or_array(out, scalar)


def nsgd_one_step_canary_epsilon(
    delta: float,
    n: int,
    m: int,
    sigma: float,
    lipschitz: float,
    *,
    neighbour: Literal["symmetric", "null"] = "symmetric",
) -> float:
    """Smallest ε with :func:`nsgd_one_step_canary_delta` <= ``delta`` (conservative end of a bisection).

    Parameters
    ----------
    delta : float in (0, 1)
    n, m, sigma, lipschitz, neighbour
        As in :func:`nsgd_one_step_canary_delta`.

    Returns
    -------
    float >= 0 (``inf`` if δ(ε) never drops below ``delta``, e.g. δ smaller than the truncation mass)
    """
    d = check_delta(delta)
    if d == 0.0:
        return math.inf
    # validate the rest once
    nsgd_one_step_canary_delta(0.0, n, m, sigma, lipschitz, neighbour=neighbour)
    _, _, tail = _canary_components(int(n), int(m))
    if d <= tail:
        return math.inf

    def fn(e: float) -> float:
        return float(nsgd_one_step_canary_delta(e, n, m, sigma, lipschitz, neighbour=neighbour))

    return smallest_feasible(fn, d, lo=0.0, hi=1.0)


def nsgd_worst_pair_delta_quadrature(
    epsilon: float, n: int, m: int, sigma: float, lipschitz: float, steps: int = 1
) -> float:
    """Exact δ(ε) of T ∈ {1, 2} steps of Algorithm 1 on the worst-case replace-one pair, by quadrature.

    The pair (Bassily et al. 2019, Algorithm 1 with the linear loss; see ``dpsco.reference.bftt19.accounting``): records
    x_i = −L e₁ for i < n, the neighbour replaces x_n = −L e₁ by +L e₁; every other record shares the replaced
    record's gradient, so after the common shift one step's noisy mean gradient is Q = N(0, σ²) on the dataset
    and P = Σ_k Bin(m, 1/n)(k) N(2kL/m, σ²) on the neighbour.  Returns max(H_{e^ε}(P^⊗T ‖ Q^⊗T),
    H_{e^ε}(Q^⊗T ‖ P^⊗T)), an independent check of the PLD accountant of ``dpsco.reference.bftt19.accounting``:

    * T = 1: the exact hockey-stick divergence of the two mixtures (:func:`mixture_gaussian_delta`'s method:
      P/Q is monotone, so the positive set is a half-line; exact normal CDFs);
    * T = 2: H_γ(P⊗P ‖ Q⊗Q) = ∫ p(x) H_{γ q(x)/p(x)}(P ‖ Q) dx (and the mirror for the other direction), the
      inner divergence exact as for T = 1 and the outer integral by adaptive Gauss–Kronrod (``scipy.integrate
      .quad``, absolute tolerance 1e-14) over x ∈ [−14σ, 2LK/m + 14σ] (the mass outside, < 2·10⁻⁴⁴, is added).

    The Binomial is truncated where its tail is below 1e-40 and that mass is added (an upper bound exact to
    ~1e-40).

    Parameters
    ----------
    epsilon : float ≥ 0;  n, m : int ≥ 1;  sigma : float > 0 (noise std on the mean gradient);
    lipschitz : float > 0;  steps : 1 or 2.

    Returns
    -------
    float in [0, 1]

    Raises
    ------
    ValueError, TypeError for out-of-range parameters, or ``steps`` not in {1, 2}.
    """
    eps_arr, _ = check_epsilon_array(epsilon)
    if eps_arr.size != 1:
        raise ValueError("epsilon must be a scalar")
    eps = float(eps_arr.ravel()[0])
    n_ = check_positive_int(n, "n")
    m_ = check_positive_int(m, "m")
    s = check_positive(sigma, "sigma")
    L = check_positive(lipschitz, "lipschitz")
    T = check_positive_int(steps, "steps")
    if T not in (1, 2):
        raise ValueError(f"steps must be 1 or 2 for the quadrature oracle, got {T}")
    k, logp, tail = _canary_components(n_, m_)
    a = 2.0 * k * L / m_
    zero_w, zero_m = np.array([0.0]), np.array([0.0])

    def h(gamma_log: float, forward: bool) -> float:
        if forward:
            return _hockey_stick(gamma_log, logp, a, zero_w, zero_m, s)
        return _hockey_stick(gamma_log, zero_w, zero_m, logp, a, s)

    if T == 1:
        return min(1.0, max(h(eps, True), h(eps, False)) + tail)

    s2 = s * s

    def log_p(x: float) -> float:
        return float(logsumexp(logp - (x - a) ** 2 / (2 * s2)))

    def log_q(x: float) -> float:
        return -x * x / (2 * s2)

    lo, hi = -14.0 * s, float(a[-1]) + 14.0 * s
    dens = 1.0 / (s * math.sqrt(2 * math.pi))

    def fwd(x: float) -> float:  # p(x) · H_{γ q(x)/p(x)}(P ‖ Q)
        lp, lq = log_p(x), log_q(x)
        return dens * math.exp(lp) * h(eps + lq - lp, True)

    def bwd(x: float) -> float:  # q(x) · H_{γ p(x)/q(x)}(Q ‖ P)
        lp, lq = log_p(x), log_q(x)
        return dens * math.exp(lq) * h(eps + lp - lq, False)

    pts = list(a[: min(a.size, 8)])
    d_fwd = quad(fwd, lo, hi, points=pts, limit=200, epsabs=1e-14, epsrel=1e-8)[0]
    d_bwd = quad(bwd, lo, hi, points=pts, limit=200, epsabs=1e-14, epsrel=1e-8)[0]
    return min(1.0, max(d_fwd, d_bwd) + 2 * tail + 2e-44)


# ---------------------------------------------------------------------------------------------------------
# Poisson-subsampled Gaussian, composed (dp_accounting)
# ---------------------------------------------------------------------------------------------------------
def _default_rdp_orders() -> list[float]:
    from dp_accounting.rdp.rdp_privacy_accountant import DEFAULT_RDP_ORDERS

    return sorted(set(float(o) for o in DEFAULT_RDP_ORDERS) | set(float(o) for o in range(2, 257)))


def subsampled_gaussian_epsilon(
    noise_multiplier: float,
    sampling_probability: float,
    steps: int,
    delta: float,
    *,
    neighbouring: Literal["add/remove", "replace-one"] = "add/remove",
    accountant: Literal["rdp", "pld"] = "rdp",
    orders: Sequence[float] | None = None,
    value_discretization_interval: float = 1e-4,
) -> float:
    """ε of T-fold composition of the Poisson-subsampled Gaussian mechanism, via ``dp_accounting``.

    Each step includes every record independently with probability q, sums the included per-record
    vectors (each of L2 norm <= C) and adds N(0, (zC)² I); z is the noise multiplier (ACG+16 convention:
    noise std on the *sum* divided by the per-record norm bound).  For Algorithm 1 of Bassily et al. 2019
    with mean-gradient noise σ and batch size m, z = mσ/L and q = m/n
    (``docs/derivations.md#accountants-for-the-printed-calibration-of-algorithm-1``) — note that Algorithm 1
    samples *with replacement*, so this Poisson accountant is a proxy for it, not its exact accountant.

    Parameters
    ----------
    noise_multiplier : float > 0
        z.
    sampling_probability : float in (0, 1]
        q.
    steps : int >= 1
        T.
    delta : float in [0, 1)
        δ = 0 returns ``inf``.
    neighbouring : "add/remove" | "replace-one"
        ``"add/remove"``: the accountants' native relation.  ``"replace-one"``: the **conservative
        convention** — the mechanism is accounted as the add/remove one with sensitivity 2C,
        i.e. noise multiplier z/2 (RDP needs this: dp_accounting's RDP accountant supports Poisson
        sampling only under add/remove).  Justification for *one* step: the replace-one pair is
        P = (1−q)A + qB, Q = (1−q)A + qB' with A = N(0, z²C²I) the common part and B, B' shifts of A by
        vectors of norm <= C; advanced joint convexity (Balle, Barthe & Gaboardi 2018, Thm 2) bounds both
        H_{e^ε}(P ‖ Q) and H_{e^ε}(Q ‖ P) by the "remove" hockey-stick of the add/remove pair with shift 2C,
        at every ε >= 0.  That this per-step dominance carries through T-fold composition as the accountant
        composes it is the convention's assumption, not proved here; the tests check that the result is
        never below dp_accounting's native replace-one PLD (which composes the symmetric Poisson pair
        (1−q)A + qN(±C)).  This convention can exceed the target ε of Bassily et al.'s calibration by up to
        ~20 % at tiny T (table in ``docs/derivations.md#accountants-for-the-printed-calibration-of-algorithm-1``).
    accountant : "rdp" | "pld"
        ``"rdp"``: ``RdpAccountant`` with the Balle et al. 2020 RDP→DP conversion, minimised over
        ``orders`` (default: dp_accounting's default orders ∪ {2, …, 256}).  ``"pld"``: ``PLDAccountant``
        (pessimistic connect-the-dots discretisation, an upper bound), tighter than RDP.
    orders : sequence of floats > 1, optional
        RDP orders (``accountant="rdp"`` only).  That table uses the integers 2..256.
    value_discretization_interval : float > 0
        PLD discretisation (``accountant="pld"`` only); smaller is tighter and slower.

    Returns
    -------
    float >= 0 (``inf`` when δ = 0)

    Raises
    ------
    ValueError, TypeError
        Any parameter out of range, or an unknown ``neighbouring`` / ``accountant``.
    """
    import dp_accounting
    from dp_accounting import dp_event

    z = check_positive(noise_multiplier, "noise_multiplier")
    q = check_positive(sampling_probability, "sampling_probability")
    if q > 1.0:
        raise ValueError(f"sampling_probability must lie in (0, 1], got {q}")
    T = check_positive_int(steps, "steps")
    d = check_delta(delta)
    if neighbouring not in ("add/remove", "replace-one"):
        raise ValueError(f"neighbouring must be 'add/remove' or 'replace-one', got {neighbouring!r}")
    if accountant not in ("rdp", "pld"):
        raise ValueError(f"accountant must be 'rdp' or 'pld', got {accountant!r}")
    if d == 0.0:
        return math.inf
    z_eff = z / 2.0 if neighbouring == "replace-one" else z
    event = dp_event.SelfComposedDpEvent(
        dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(z_eff)), T
    )
    if accountant == "rdp":
        if orders is None:
            ords = _default_rdp_orders()
        else:
            ords = [float(o) for o in orders]
            if not ords or any((not math.isfinite(o)) or o <= 1.0 for o in ords):
                raise ValueError("orders must be a non-empty sequence of finite reals > 1")
        acc: Any = dp_accounting.rdp.RdpAccountant(orders=ords)
    else:
        if orders is not None:
            raise ValueError("orders applies to accountant='rdp' only")
        vdi = check_positive(value_discretization_interval, "value_discretization_interval")
        acc = dp_accounting.pld.PLDAccountant(value_discretization_interval=vdi)
    acc.compose(event)
    return float(acc.get_epsilon(d))
