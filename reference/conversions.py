"""The privacy conversions, written once: ρ-zCDP, μ-GDP, RDP and pure ε-DP to (ε, δ) and back.

Every conversion of the package lives here; the papers' modules (``reference.alt24.theorems``,
``reference.muabg23.ledger`` / ``theorems``, ``reference.noise``), the oracles (``oracles.mechanism_curves``) and
the auditors (``verification.auditing.gdp`` / ``curves``) re-export these objects or call them.

Rounding (conservative for privacy, stated in each docstring)
-------------------------------------------------------------
* an ε or δ computed FROM a guarantee (ρ → ε, μ → ε, μ → δ(ε), RDP → δ(ε)) is rounded UP: the returned number
  is ≥ the exact real value, so a claim stated with it is true;
* a ρ computed from a TARGET (ε, δ) is rounded DOWN: a mechanism calibrated to it meets the target;
* the auditors' lower bounds ask for ``rounding="down"`` (ε ≤ the exact value, so a refutation is sound).
Floating-point error is bounded by an explicit error analysis in each function (unit roundoff u = 2⁻⁵³; one
``math.nextafter`` step moves by ≥ u·|x|) and the result is stepped past it; ``tests/test_conversions.py``
checks every direction against 50-digit ``mpmath``.

Edges (identical in every function)
-----------------------------------
ρ = 0 → ε = 0 (any δ);  δ = 0 with ρ > 0 → ε = ∞;  μ = 0 → ε = 0, δ(ε) = 0;  δ = 0 with μ > 0 → ε = ∞;
ρ or μ = ∞ → ε = ∞ (δ(ε) = 1 at every finite ε);  ε = ∞ → δ = 0 (finite μ);  target (ε, δ = 0) → ρ = 0;
target ε = ∞ → ρ = ∞;  target ε = 0 → ρ = 0.  Invalid inputs (NaN, negative, δ ∉ [0, 1), non-numbers, bools)
raise ValueError / TypeError naming the parameter (``dpsco.reference.validation``).

References
----------
* M. Bun, T. Steinke. Concentrated differential privacy. TCC 2016 (Prop. 1.3: ρ-zCDP ⇒ (ρ + 2√(ρ log(1/δ)), δ);
  Prop. 1.4: ε-DP ⇒ ε²/2-zCDP).
* J. Dong, A. Roth, W. Su. Gaussian differential privacy. JRSS-B 84(1), 2022 (Cor. 2.13: the μ-GDP curve).
* C. Canonne, G. Kamath, T. Steinke. The discrete Gaussian for differential privacy. NeurIPS 2020
  (Prop. 12: RDP → (ε, δ), the formula of ``dp_accounting.rdp.compute_delta``).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from dpsco.reference.validation import check_choice, check_delta, check_positive

__all__ = [
    "ZCDP_ORDERS",
    "gaussian_zcdp",
    "gdp_delta",
    "gdp_epsilon",
    "gdp_log_delta",
    "gdp_mu_to_zcdp",
    "pure_dp_to_zcdp",
    "rdp_delta",
    "zcdp_delta",
    "zcdp_epsilon",
    "zcdp_rho",
    "zcdp_to_gdp_mu",
]

Rounding = Literal["up", "down"]
_ROUNDINGS = ("up", "down")
_U = 2.0 ** -53                     # unit roundoff of IEEE double

#: orders of the zCDP → δ(ε) conversion (:func:`zcdp_delta`): a dense geometric grid (any order gives a valid δ;
#: a fixed grid keeps the computed δ(ε) monotone in ρ)
ZCDP_ORDERS = np.unique(np.concatenate([np.geomspace(1.01, 1e6, 600), 1.0 + np.arange(1, 100) / 10.0,
                                        np.arange(11.0, 64.0)]))


def _rounding(rounding: Any) -> str:
    return check_choice(rounding, "rounding", _ROUNDINGS)


def _step(x: float, steps: int, up: bool) -> float:
    """x moved ``steps`` floats towards +∞ (``up``) or −∞; each step is ≥ u·|x|."""
    target = math.inf if up else -math.inf
    for _ in range(steps):
        x = math.nextafter(x, target)
    return x


def _ratio_up(num: Fraction, x: float, up: bool) -> float:
    """x (an approximation of the rational ``num`` within an ulp) moved to the float on the requested side."""
    if up:
        while Fraction(x) < num:
            x = math.nextafter(x, math.inf)
    else:
        while Fraction(x) > num:
            x = math.nextafter(x, -math.inf)
    return x


# ---- ρ-zCDP ↔ (ε, δ) ---------------------------------------------------------------------------------------
def zcdp_epsilon(rho: float, delta: float, *, rounding: Rounding = "up") -> float:
    """ε = ρ + 2√(ρ log(1/δ)): a ρ-zCDP mechanism is (ε, δ)-DP (Bun & Steinke 2016, Prop. 1.3).

    Parameters
    ----------
    rho : float ≥ 0 (``inf`` allowed)
    delta : float in [0, 1)
    rounding : "up" (default: the ε a claim may state, ≥ the exact value) or "down" (≤ the exact value).

    Returns
    -------
    float ≥ 0: 0 when ρ = 0 (any δ); ∞ when δ = 0 and ρ > 0, or ρ = ∞.

    Rounding: log(1/δ) is computed as −log δ (libm: < 1 ulp, relative error ≤ 2u); √(ρL) as √ρ·√L (so that
    neither a subnormal nor an overflowing ρL loses it): √ρ adds u, √L 2u, the product u (≤ 4u), ×2 is exact and
    the sum of two positive terms adds u: relative error ≤ 5u, and each ``nextafter`` step moves by > u·|x|, so
    the result is moved 6 floats in the requested direction (beyond the largest float: ∞ up, the largest float
    down).

    Raises ValueError / TypeError naming ``rho``, ``delta`` or ``rounding``.
    """
    r = check_positive(rho, "rho", allow_zero=True, allow_inf=True)
    d = check_delta(delta)
    up = _rounding(rounding) == "up"
    if r == 0.0:
        return 0.0
    if d == 0.0 or math.isinf(r):
        return math.inf
    L = -math.log(d)
    eps = r + 2.0 * (math.sqrt(r) * math.sqrt(L))
    if math.isinf(eps):
        return math.inf if up else float(np.finfo(np.float64).max)
    return _step(eps, 6, up) if up else max(0.0, _step(eps, 6, up))


def zcdp_rho(epsilon: float, delta: float) -> float:
    """The largest ρ with ρ + 2√(ρ log(1/δ)) ≤ ε: ρ = (√(log(1/δ) + ε) − √log(1/δ))², computed cancellation-free
    as (ε/(√(L + ε) + √L))² (the inverse of :func:`zcdp_epsilon`; Bun & Steinke 2016, Prop. 1.3).

    Parameters
    ----------
    epsilon : float ≥ 0 (``inf`` allowed), the target ε
    delta : float in [0, 1), the target δ

    Returns
    -------
    float ≥ 0, rounded DOWN (a budget): ``zcdp_epsilon(result, delta) ≤ epsilon`` holds for the rounded-up
    :func:`zcdp_epsilon` itself, hence for the exact value.  0 when ε = 0 or δ = 0 (ρ-zCDP with ρ > 0 is never
    (ε, 0)-DP); ∞ when ε = ∞.

    Rounding: L = −log δ (≤ 2u), L + ε (≤ 3u), its √ (≤ 2.5u), √L (≤ 2u), the sum (≤ 3.5u), the quotient (≤ 4.5u)
    and the square (≤ 10u): the result is moved 10 floats down, then down again until the rounded-up
    :func:`zcdp_epsilon` of it is ≤ ε (the round trip holds in floating point; a few more steps at most).

    Raises ValueError / TypeError naming ``epsilon`` or ``delta``.
    """
    e = check_positive(epsilon, "epsilon", allow_zero=True, allow_inf=True)
    d = check_delta(delta)
    if math.isinf(e):
        return math.inf
    if e == 0.0 or d == 0.0:
        return 0.0
    L = -math.log(d)
    t = e / (math.sqrt(L + e) + math.sqrt(L))
    rho = max(0.0, _step(t * t, 10, False))
    for _ in range(64):
        if rho == 0.0 or zcdp_epsilon(rho, d) <= e:
            return rho
        rho = math.nextafter(rho, 0.0)
    return 0.0  # pragma: no cover - the error analysis above bounds the loop by a few steps


def pure_dp_to_zcdp(epsilon: float) -> float:
    """ρ = ε²/2: an ε-DP mechanism is ε²/2-zCDP (Bun & Steinke 2016, Prop. 1.4).  ε ≥ 0 (``inf`` allowed).

    Rounded UP exactly (the smallest float ≥ ε²/2, checked in rational arithmetic).  Raises ValueError /
    TypeError naming ``epsilon``."""
    e = check_positive(epsilon, "epsilon", allow_zero=True, allow_inf=True)
    rho = e * e / 2.0
    return rho if math.isinf(rho) else _ratio_up(Fraction(e) ** 2 / 2, rho, True)


def gaussian_zcdp(sensitivity: float, sigma: float) -> float:
    """ρ = Δ²/(2σ²): the exact zCDP of q(S) + N(0, σ² I_d) for a query of ℓ2 sensitivity Δ (Bun & Steinke 2016,
    Prop. 1.6; tight: the Rényi divergence of two Gaussians with means Δ apart is αΔ²/(2σ²)).

    Computed scale-free, as ½(Δ/σ)²: the ratio of the two public scales first, so that tiny or huge scales
    (Δ, σ ≲ 1e-154 or ≳ 1e154) neither underflow to zero squares nor overflow.  Rounded UP exactly (the smallest
    float ≥ ½(Δ/σ)², checked in rational arithmetic), ∞ when it exceeds every float.  Δ ≥ 0, σ > 0 (finite).
    Raises ValueError / TypeError naming ``sensitivity`` or ``sigma``."""
    s = check_positive(sensitivity, "sensitivity", allow_zero=True)
    sig = check_positive(sigma, "sigma")
    r = s / sig
    rho = 0.5 * r * r
    if math.isinf(rho):
        return rho
    target = Fraction(s) ** 2 / (2 * Fraction(sig) ** 2)
    while Fraction(rho) < target:
        rho = math.nextafter(rho, math.inf)
    while rho > 0.0 and Fraction(math.nextafter(rho, 0.0)) >= target:   # the smallest such float
        rho = math.nextafter(rho, 0.0)
    return rho


def zcdp_to_gdp_mu(rho: float) -> float:
    """μ = √(2ρ): a composition of Gaussian mechanisms with total zCDP ρ is exactly μ-GDP (both equal
    √(Σ (Δ_j/σ_j)²); Dong, Roth & Su 2022, Cor. 3.3).  Valid for Gaussian compositions only (ρ-zCDP does not imply
    √(2ρ)-GDP in general).  ρ ≥ 0 (``inf`` allowed).

    Rounded UP exactly (the smallest float whose square is ≥ 2ρ, checked in rational arithmetic).  Raises
    ValueError / TypeError naming ``rho``."""
    r = check_positive(rho, "rho", allow_zero=True, allow_inf=True)
    mu = math.sqrt(2.0 * r)
    if math.isinf(mu):
        return mu
    target = 2 * Fraction(r)
    while Fraction(mu) ** 2 < target:
        mu = math.nextafter(mu, math.inf)
    return mu


def gdp_mu_to_zcdp(mu: float) -> float:
    """ρ = μ²/2: a μ-GDP mechanism is μ²/2-zCDP (Dong, Roth & Su 2022, Cor. 2.13 via the Gaussian's Rényi
    divergence αμ²/2; Bun & Steinke 2016, Prop. 1.6).  μ ≥ 0 (``inf`` allowed).

    Rounded UP exactly (the smallest float ≥ μ²/2, checked in rational arithmetic).  Raises ValueError /
    TypeError naming ``mu``."""
    m = check_positive(mu, "mu", allow_zero=True, allow_inf=True)
    rho = m * m / 2.0
    return rho if math.isinf(rho) else _ratio_up(Fraction(m) ** 2 / 2, rho, True)


# ---- μ-GDP ↔ (ε, δ) ----------------------------------------------------------------------------------------
def _eps_array(epsilon: Any) -> tuple[np.ndarray, bool]:
    """ε as a float array (entries ≥ 0, ``inf`` allowed) and whether the input was a scalar."""
    if isinstance(epsilon, (bool, np.bool_, str, bytes)):
        raise TypeError(f"epsilon must be a real number or an array of reals, got {type(epsilon).__name__}")
    try:
        arr = np.asarray(epsilon, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"epsilon must be a real number or an array of reals, got {type(epsilon).__name__}") from None
    if np.any(np.isnan(arr)):
        raise ValueError("epsilon contains NaN")
    if np.any(arr < 0):
        raise ValueError(f"epsilon must be >= 0, got min {arr.min()}")
    return arr, arr.ndim == 0


def _log1mexp(x: np.ndarray) -> np.ndarray:
    """log(1 − e^x) for x ≤ 0 (Mächler 2012: log(−expm1 x) above −log 2, log1p(−e^x) below); −∞ at x = 0."""
    x = np.asarray(x, dtype=np.float64)
    out = np.full_like(x, -np.inf)
    small = (x < 0) & (x > -math.log(2.0))
    big = x <= -math.log(2.0)
    with np.errstate(divide="ignore"):
        out[small] = np.log(-np.expm1(x[small]))
        out[big] = np.log1p(-np.exp(x[big]))
    return out


def _mills_bound(t: np.ndarray) -> np.ndarray:
    """An upper bound on d log Φ(t)/dt = φ(t)/Φ(t): 1 − t for t < 0 (with s = −t, the normal hazard rate
    φ(s)/(1 − Φ(s)) < (s + √(s² + 4))/2 ≤ s + 1; Birnbaum 1942), 2φ(t) for t ≥ 0 (there Φ(t) ≥ ½)."""
    with np.errstate(over="ignore", under="ignore"):
        return np.where(t < 0.0, 1.0 - t, 2.0 * np.exp(-0.5 * np.minimum(t, 1e154) ** 2) / math.sqrt(2.0 * math.pi))


def _gdp_log_delta_bounds(eps: np.ndarray, mu: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(log δ(ε) as computed, a bound on its absolute floating-point error, an upper bound on log Φ(a)) for
    finite ε ≥ 0 and 0 < μ < ∞.

    δ = Φ(a) − e^ε Φ(b) = Φ(a)(1 − e^x), a = μ/2 − ε/μ, b = −μ/2 − ε/μ, x = ε + log Φ(b) − log Φ(a) ≤ 0.
    Error model (first order, every term bounded by a multiple of u):
    * a and b carry an absolute error ≤ 2u(μ/2 + ε/μ) (the quotient and the subtraction), which moves log Φ by at
      most φ/Φ times it (``_mills_bound``: 1 − t for t < 0, 2φ(t) for t ≥ 0);
    * scipy's log_ndtr has relative error ≤ 4.5u for t < 0 and absolute error ≤ 2u for t ≥ 0 (measured against
      50-digit mpmath on 10⁴ points over t ∈ [−10¹⁵⁴, 40]); we allow 8u|log Φ| + 4u;
    * x adds 2u(ε + |log Φ(b)| + |log Φ(a)|) for its two roundings; log(1 − e^x) amplifies x's error by
      e^x/(1 − e^x) = 1/expm1(−x) and adds 4u(1 + |log(1 − e^x)|) of its own; the final sum adds u|log δ|.
    The bound is doubled to absorb second-order terms (tests/test_conversions.py checks the directed results
    against 50-digit mpmath).  Non-finite intermediate values give an infinite error bound."""
    from scipy.special import log_ndtr

    with np.errstate(all="ignore"):
        q = eps / mu
        h = mu / 2.0
        a = h - q
        b = -h - q
        la = log_ndtr(a)
        lb = log_ndtr(b)
        x = np.minimum(eps + lb - la, 0.0)
        x = np.where(np.isnan(x), -np.inf, x)   # log Φ(b) = log Φ(a) = −∞: δ ≤ Φ(a) underflowed anyway
        l1 = _log1mexp(x)
        ld = la + l1
        arg_err = 2.0 * _U * (h + q)
        err_la = 8.0 * _U * np.abs(la) + 4.0 * _U + _mills_bound(a) * arg_err
        err_lb = 8.0 * _U * np.abs(lb) + 4.0 * _U + _mills_bound(b) * arg_err
        err_x = 2.0 * _U * (eps + np.abs(lb) + np.abs(la)) + err_la + err_lb
        # e^x = 0 (x = −∞) carries no error; x = 0 within its error makes the bound infinite
        amp = np.where(np.isneginf(x), 0.0, np.where(x < 0.0, err_x / np.expm1(-x), np.inf))
        err = err_la + amp + 4.0 * _U * (1.0 + np.abs(l1)) + _U * np.abs(ld)
        err = np.where(np.isnan(err), np.inf, err)
        la_up = la + err_la
    return ld, 2.0 * err, la_up


_LOG_FLOOR = -np.finfo(np.float64).max   # the float just above every log δ < −1.8e308 (δ > 0 underflowed)


def _gdp_log_delta(eps: np.ndarray, mu: float, up: bool) -> np.ndarray:
    """Directed log δ(ε) of μ-GDP on an array of ε ≥ 0 (``inf`` allowed), μ ≥ 0 (``inf`` allowed)."""
    eps = np.asarray(eps, dtype=np.float64)
    if mu == 0.0:
        return np.full(eps.shape, -np.inf)
    if math.isinf(mu):
        return np.zeros(eps.shape)              # disjoint supports: δ(ε) = 1 at every ε
    out = np.full(eps.shape, -np.inf)
    fin = np.isfinite(eps)
    if np.any(fin):
        ld, err, la_up = _gdp_log_delta_bounds(eps[fin], mu)
        ok = np.isfinite(ld) & np.isfinite(err)
        with np.errstate(invalid="ignore"):
            if up:
                # δ ≤ Φ(a): the bound is capped there (it binds only where x is within its error of 0); where
                # log Φ(a) itself underflowed to −∞ (|a| > 1e154) the exact log δ is below −1.8e308, so the cap is
                # the largest-magnitude finite log; where only its error bound overflowed, the cap is log 1 = 0
                cap = np.where(np.isfinite(la_up), la_up, np.where(np.isnan(la_up), _LOG_FLOOR, 0.0))
                v = np.minimum(np.where(ok, np.minimum(ld + err, cap), cap), 0.0)
                v = np.maximum(v, _LOG_FLOOR)
            else:
                v = _gdp_log_delta_lower(eps[fin], mu)
        out[fin] = v
    return out


def _gdp_log_delta_lower(eps: np.ndarray, mu: float) -> np.ndarray:
    """A sound lower bound on log δ(ε) of μ-GDP (finite ε ≥ 0, 0 < μ < ∞), without the first-order error model
    (which bounds only from above: log Φ is concave, and log(1 − e^x) falls to −∞ as x → 0).  δ = Φ(a)(1 − e^x)
    with a, b within ``arg_err`` = 2u(μ/2 + ε/μ) of their computed values, so by monotonicity
    log Φ(a) ≥ log_ndtr(a − arg_err) and log Φ(b) ≤ log_ndtr(b + arg_err), each less / plus scipy's error
    (8u|·| + 4u); x ≤ ε + that upper bound − that lower bound, plus the additions' rounding (2u per term); then
    1 − e^x ≥ 1 − e^{min(x_hi, 0)}, less log1mexp's own 4u(1 + |·|), and the final sum's u|·|, doubled.  Where
    x_hi ≥ 0 the bound is −∞ (δ ≥ 0), which is always sound.  (Independent review: the first-order bound minus its
    error exceeded the exact δ by 10¹¹⁸ at μ ≈ 1e18.)"""
    from scipy.special import log_ndtr

    with np.errstate(all="ignore"):
        q = eps / mu
        h = mu / 2.0
        a = h - q
        b = -h - q
        arg_err = 2.0 * _U * (h + q)
        la = log_ndtr(a - arg_err)
        la_lo = np.where(np.isfinite(la), la - (8.0 * _U * np.abs(la) + 4.0 * _U), la)
        lb = log_ndtr(b + arg_err)
        lb_hi = np.where(np.isfinite(lb), lb + (8.0 * _U * np.abs(lb) + 4.0 * _U), lb)  # Φ(b) = 0 exactly: no error
        x_hi = eps + lb_hi - la_lo
        x_hi = np.where(np.isfinite(x_hi), x_hi + 2.0 * _U * (eps + np.abs(lb_hi) + np.abs(la_lo)) * 2.0, x_hi)
        x_hi = np.where(np.isnan(x_hi), 0.0, x_hi)            # undefined: give the sound −∞ below
        l1 = _log1mexp(np.minimum(x_hi, 0.0))
        l1_lo = l1 - 4.0 * _U * (1.0 + np.abs(l1))
        v = la_lo + l1_lo
        v = v - 2.0 * _U * np.abs(v)
        return np.where(np.isfinite(v) & (x_hi < 0.0), np.minimum(v, 0.0), -np.inf)


def gdp_log_delta(epsilon: Any, mu: float, *, rounding: Rounding = "up") -> float | np.ndarray:
    """log δ(ε) of μ-GDP, log of Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Dong, Roth & Su 2022, Cor. 2.13), computed
    in log space (scipy.special.log_ndtr) so that δ down to 1e-300 and beyond keeps its accuracy.

    Parameters
    ----------
    epsilon : float or array of floats ≥ 0 (``inf`` gives −∞)
    mu : float ≥ 0 (0 gives −∞ everywhere; ``inf`` gives 0 at every ε)
    rounding : "up" (default, ≥ the exact log δ) or "down" (≤ it); the error bound of
        ``_gdp_log_delta_bounds`` is added or subtracted.

    Returns float (scalar ε) or ndarray of ε's shape, ≤ 0.  Raises ValueError / TypeError naming ``epsilon``,
    ``mu`` or ``rounding``."""
    eps, scalar = _eps_array(epsilon)
    m = check_positive(mu, "mu", allow_zero=True, allow_inf=True)
    up = _rounding(rounding) == "up"
    out = _gdp_log_delta(np.atleast_1d(eps), m, up).reshape(eps.shape)
    return float(out) if scalar else out


def _gdp_delta(eps: np.ndarray, mu: float, up: bool) -> np.ndarray:
    ld = _gdp_log_delta(eps, mu, up)
    with np.errstate(over="ignore", under="ignore"):
        d = np.exp(ld)
    # exp adds < 1 ulp (also among subnormals): two steps in the requested direction, kept within [0, 1]
    for _ in range(2):
        d = np.nextafter(d, np.inf if up else -np.inf)
    d = np.where(np.isneginf(ld), 0.0, d)
    return np.clip(d, 0.0, 1.0)


def gdp_delta(mu: float, epsilon: Any, *, rounding: Rounding = "up") -> float | np.ndarray:
    """δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), the exact privacy curve of μ-GDP (Dong, Roth & Su 2022,
    Cor. 2.13); with μ = Δ/σ the curve of the Gaussian mechanism (Balle & Wang 2018, Thm 8).

    Parameters
    ----------
    mu : float ≥ 0 (0 gives δ ≡ 0; ``inf`` gives δ = 1 at every ε)
    epsilon : float or array of floats ≥ 0 (``inf`` gives 0 for finite μ)
    rounding : "up" (default: ≥ the exact δ, the δ a claim may state) or "down" (≤ the exact δ).

    Returns float (scalar ε) or ndarray of ε's shape, in [0, 1].  Computed as exp of :func:`gdp_log_delta`
    (directed) moved two floats further for exp's own rounding (< 1 ulp).

    Raises ValueError / TypeError naming ``mu``, ``epsilon`` or ``rounding``."""
    m = check_positive(mu, "mu", allow_zero=True, allow_inf=True)
    eps, scalar = _eps_array(epsilon)
    up = _rounding(rounding) == "up"
    out = _gdp_delta(np.atleast_1d(eps), m, up).reshape(eps.shape)
    return float(out) if scalar else out


def gdp_epsilon(mu: float, delta: float, *, rounding: Rounding = "up") -> float:
    """The smallest ε ≥ 0 with δ_μ(ε) ≤ δ (:func:`gdp_delta`): a μ-GDP mechanism is (ε, δ)-DP (Dong, Roth & Su
    2022, Cor. 2.13).

    Parameters
    ----------
    mu : float ≥ 0 (``inf`` allowed)
    delta : float in [0, 1)
    rounding : "up" (default) — the upper end of a bisection bracket on which the rounded-UP curve is ≤ δ, so
        the returned ε is ≥ the exact one and a claim may state it; "down" — the lower end of a bracket on which
        the rounded-DOWN curve is > δ (≤ the exact ε: the auditors' lower bounds), or 0 where δ_μ(0) ≤ δ.
        The bracket is bisected until its ends are adjacent floats; the returned end is verified on the curve.

    Returns
    -------
    float ≥ 0: 0 when μ = 0 (any δ); ∞ when δ = 0 and μ > 0, or μ = ∞.

    Raises ValueError / TypeError naming ``mu``, ``delta`` or ``rounding``.
    """
    m = check_positive(mu, "mu", allow_zero=True, allow_inf=True)
    d = check_delta(delta)
    up = _rounding(rounding) == "up"
    if m == 0.0:
        return 0.0
    if d == 0.0 or math.isinf(m):
        return math.inf

    def delta_at(e: Any) -> np.ndarray:
        return _gdp_delta(np.atleast_1d(np.asarray(e, dtype=np.float64)), m, up)

    if delta_at(0.0)[0] <= d:
        return 0.0                              # (up: verified; down: the trivial lower bound 0)
    from scipy.special import ndtri

    # δ(ε) ≤ Φ(μ/2 − ε/μ) ≤ δ once ε ≥ μ²/2 + μΦ⁻¹(1 − δ); doubled while the directed curve is still above δ
    lo, hi = 0.0, max(m * (m / 2.0 - float(ndtri(d))), 1e-6)
    for _ in range(2100):
        if math.isinf(hi) or delta_at(hi)[0] <= d:
            break
        lo, hi = hi, hi * 2.0
    if math.isinf(hi):                          # the exact ε exceeds every float (μ ≳ 1e154)
        top = np.finfo(np.float64).max
        return math.inf if up else (float(top) if delta_at(top)[0] > d else lo)
    # multisection (31 interior points per step, one vectorised evaluation), keeping the invariant
    # delta_at(lo) > d ≥ delta_at(hi), until lo and hi are adjacent floats
    fractions = np.linspace(0.0, 1.0, 33)[1:-1]
    while True:
        pts = lo + (hi - lo) * fractions
        pts = pts[(pts > lo) & (pts < hi)]
        if pts.size == 0:
            mid = lo + (hi - lo) / 2.0
            if not lo < mid < hi:
                break
            pts = np.array([mid])
        feasible = delta_at(pts) <= d
        k = int(np.argmax(feasible)) if feasible.any() else pts.size
        if k < pts.size:
            hi = float(pts[k])
        if k > 0:
            lo = float(pts[k - 1])
    return hi if up else lo


# ---- RDP / ρ-zCDP → δ(ε) (Canonne, Kamath & Steinke 2020) ---------------------------------------------------
def rdp_delta(epsilon: Any, orders: Any, rdp: Any) -> float | np.ndarray:
    """δ(ε) of an RDP curve (orders a_i ≥ 1, values r_i ≥ 0): min over i of
    exp((a_i − 1)(r_i − ε + log(1 − 1/a_i)) − log a_i) for a_i > 1.01 (Canonne, Kamath & Steinke 2020, Prop. 12)
    and the Bretagnolle–Huber bound √(1 − e^{−r_i}) (KL ≤ D_a) when every r_i > 0; clipped at 1.  The formula of
    ``dp_accounting.rdp.compute_delta``, vectorised over ε (float or array, ≥ 0).

    Rounded UP: each order's exponent carries its own first-order error bound (u per operation, the product
    scaled by a_i − 1), added before the minimum (a minimum of upper bounds bounds the minimum), doubled; exp then
    adds < 1 ulp, covered by two ``nextafter`` steps.

    Raises ValueError for orders < 1 or infinite, negative or non-finite values, mismatched shapes, ε < 0 or NaN;
    TypeError for booleans."""
    o = np.asarray(orders, dtype=np.float64).reshape(-1)
    r = np.asarray(rdp, dtype=np.float64).reshape(-1)
    if o.shape != r.shape or o.size == 0:
        raise ValueError("orders and rdp must be non-empty 1-D arrays of equal length")
    for name, raw in (("orders", orders), ("rdp", rdp)):   # cheap: a dtype test, an element scan only for lists
        if (isinstance(raw, (bool, np.bool_)) or (isinstance(raw, np.ndarray) and raw.dtype == np.bool_)
                or (isinstance(raw, (list, tuple)) and any(isinstance(v, (bool, np.bool_)) for v in raw))):
            raise TypeError(f"{name} must be numbers, not booleans")
    if np.any(~(o >= 1.0)) or not np.all(np.isfinite(o)) or np.any(~(r >= 0.0)) or not np.all(np.isfinite(r)):
        raise ValueError("orders must be finite and >= 1 and rdp values finite and >= 0")
    eps, scalar = _eps_array(epsilon)
    pos = r > 0
    if pos.all():
        with np.errstate(divide="ignore"):
            bh = 0.5 * np.log(-np.expm1(-r))    # log √(1 − e^{−r}), accurate also for tiny r
        kl = float((bh + 4.0 * _U * (1.0 + np.abs(bh))).min())
    else:
        kl = -math.inf
    big = o > 1.01
    ob, rb = o[big], r[big]
    e = eps[..., None]
    with np.errstate(over="ignore", invalid="ignore"):
        c = np.log1p(-1.0 / ob)
        s = rb - e + c
        t = (ob - 1.0) * s
        log_o = np.log(ob)
        log_d = t - log_o
        # s: two roundings and log1p's (≤ 2u(r + ε + |c|) + u|c|); ×(a − 1): its own rounding and a − 1's (2u|t|);
        # log a (2u log a); the difference (u|log δ|)
        err = ((ob - 1.0) * (2.0 * _U * (rb + e + np.abs(c)) + _U * np.abs(c)) + 2.0 * _U * np.abs(t)
               + 2.0 * _U * log_o + _U * np.abs(log_d))
        upper = np.where(np.isfinite(log_d), log_d + 2.0 * err, log_d)
        best = upper.min(axis=-1) if ob.size else np.full(eps.shape, np.inf)
        m = np.minimum(best, kl)
        d = np.exp(m)
    d = np.where(np.isneginf(m), 0.0, np.nextafter(np.nextafter(d, np.inf), np.inf))
    out = np.minimum(d, 1.0)
    return float(out) if scalar else out


def zcdp_delta(epsilon: Any, rho: float) -> float | np.ndarray:
    """δ(ε) of ρ-zCDP (the RDP curve a ↦ ρa) by :func:`rdp_delta` over :data:`ZCDP_ORDERS` (Canonne, Kamath &
    Steinke 2020, Prop. 12 / Cor. 13): an upper bound on the optimal δ(ε), rounded UP.

    ε ≥ 0 (float or array); ρ ≥ 0 (0 gives δ ≡ 0; ``inf`` gives δ ≡ 1).  Raises ValueError / TypeError naming
    ``epsilon`` or ``rho``."""
    p = check_positive(rho, "rho", allow_zero=True, allow_inf=True)
    eps, scalar = _eps_array(epsilon)
    if p == 0.0 or math.isinf(p):
        out = np.full(eps.shape, 0.0 if p == 0.0 else 1.0)
        return float(out) if scalar else out
    return rdp_delta(eps if not scalar else float(eps), ZCDP_ORDERS, p * ZCDP_ORDERS)
