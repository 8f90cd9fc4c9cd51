"""Exact privacy curves of the basic noise-addition mechanisms, in closed form.

A privacy curve (privacy profile) of a mechanism M is δ(ε) = sup_{S ~ S'} H_{e^ε}(M(S) ‖ M(S')), with the
hockey-stick divergence H_γ(P ‖ Q) = ∫ (p − γ q)_+.  M is (ε, δ)-DP iff δ(ε) ≤ δ.  This module computes

* the Gaussian mechanism's curve in closed form (Balle & Wang 2018, Theorem 8), its inverse ε(δ) and the
  calibration σ(ε, δ) ("analytic Gaussian mechanism"), and the μ-GDP ↔ (ε, δ) conversion, which is the same
  formula with sensitivity/σ = μ (Dong, Roth & Su 2022, Corollary 2.13);
* the Laplace mechanism's ε and its exact curve, and binary randomized response's ε;

and the validation and bisection helpers that ``dpsco.oracles.privacy_curves`` (Gaussian mixtures, the
noisy-SGD canaries, subsampled Gaussians) shares with it.  Everything here is an *oracle*: it depends on
public parameters only and never on data.  Natural logarithms throughout.  Functions that return ε for a
target δ return the *conservative* end of a root bracket: the returned ε always satisfies δ(ε) ≤ δ as
evaluated by this module.

References
----------
* B. Balle, Y.-X. Wang. Improving the Gaussian mechanism for differential privacy: analytical calibration
  and optimal denoising. ICML 2018.
* J. Dong, A. Roth, W. Su. Gaussian differential privacy. JRSS-B 2022.
* S. L. Warner. Randomized response: a survey technique for eliminating evasive answer bias. JASA 1965.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any, Callable

import numpy as np

from dpsco.reference import conversions
from dpsco.reference.validation import check_delta, check_positive

__all__ = [
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_sigma",
    "gdp_epsilon_to_delta",
    "gdp_mu_to_epsilon",
    "laplace_delta",
    "laplace_epsilon",
    "randomized_response_epsilon",
    "check_epsilon_array",
    "scalar_or_array",
    "smallest_feasible",
]


# ---------------------------------------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------------------------------------
def check_epsilon_array(epsilon: Any, name: str = "epsilon") -> tuple[np.ndarray, bool]:
    """ε as a float array with every entry >= 0 (``inf`` allowed); also whether the input was a scalar."""
    if isinstance(epsilon, bool):
        raise TypeError(f"{name} must be a real number or an array of reals, got bool")
    try:
        arr = np.asarray(epsilon, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number or an array of reals, got {type(epsilon).__name__}") from None
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name} contains NaN")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be >= 0 (a privacy curve is evaluated at ε >= 0), got min {arr.min()}")
    return arr, arr.ndim == 0


def scalar_or_array(values: np.ndarray, scalar: bool) -> float | np.ndarray:
    """``values`` as a float if the input was a scalar (``scalar`` from :func:`check_epsilon_array`), else as is."""
    return float(values) if scalar else values


def smallest_feasible(
    fn: Callable[[float], float], target: float, *, lo: float = 0.0, hi: float = 1.0, log_scale: bool = False
) -> float:
    """Smallest x >= lo with fn(x) <= target for a nonincreasing fn, returned as the upper end of a bracket.

    Bisection with the invariant fn(hi) <= target < fn(lo); stops at relative width 1e-13 (or 1e-300
    absolute).  The returned value always satisfies fn(x) <= target: it is conservative.
    """
    if fn(lo) <= target:
        return lo
    for _ in range(2000):
        if fn(hi) <= target:
            break
        lo, hi = hi, hi * 2.0
    else:  # pragma: no cover - fn never reaches the target on any finite x
        return math.inf
    for _ in range(400):
        if log_scale and lo > 0:
            mid = math.sqrt(lo * hi)
        else:
            mid = 0.5 * (lo + hi)
        if not (lo < mid < hi):
            break
        if fn(mid) <= target:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-13 * max(1.0, abs(hi)) or hi - lo <= 1e-300:
            break
    return hi


# ---------------------------------------------------------------------------------------------------------
# Gaussian mechanism and Gaussian DP
# ---------------------------------------------------------------------------------------------------------
#: log δ(ε) of the μ-Gaussian pair N(μ, 1) vs N(0, 1), (ε, μ) → log δ, rounded up: the core function
#: (dpsco.reference.conversions.gdp_log_delta; −∞ where δ = 0)
gaussian_log_delta = conversions.gdp_log_delta


def gaussian_delta(epsilon: Any, sensitivity: float, sigma: float) -> float | np.ndarray:
    """Exact privacy curve δ(ε) of the Gaussian mechanism.

    δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ),  μ = sensitivity/σ (Balle & Wang 2018, Theorem 8).  This is
    the hockey-stick divergence H_{e^ε}(N(Δ, σ²) ‖ N(0, σ²)) (both directions are equal), i.e. the tight δ
    for every ε of the mechanism f(S) + N(0, σ² I) with L2 sensitivity Δ = sup ‖f(S) − f(S')‖.

    Parameters
    ----------
    epsilon : float or array of floats, each >= 0 (``inf`` gives 0)
    sensitivity : float >= 0
        L2 sensitivity Δ of the released function under the neighbouring relation of interest
        (0 gives δ ≡ 0).
    sigma : float > 0
        Standard deviation of the noise in each coordinate.

    Returns
    -------
    float or ndarray of the shape of ``epsilon``, values in [0, 1].
        Computed in log space (``scipy.special.log_ndtr``), so tiny δ (down to ~1e-300) keep their accuracy and
        large ε does not overflow; rounded UP past its floating-point error (the core
        ``dpsco.reference.conversions.gdp_delta`` with μ = Δ/σ, of which this is the (ε, Δ, σ) form).

    Raises
    ------
    ValueError, TypeError
        ε < 0 or NaN; sensitivity < 0; σ <= 0; non-numeric input.
    """
    eps, _ = check_epsilon_array(epsilon)
    delta_sens = check_positive(sensitivity, "sensitivity", allow_zero=True)
    s = check_positive(sigma, "sigma")
    with np.errstate(over="ignore"):
        mu = delta_sens / s
    return conversions.gdp_delta(mu, epsilon)


def gaussian_epsilon(delta: float, sensitivity: float, sigma: float) -> float:
    """Smallest ε >= 0 with δ(ε) <= ``delta`` for the Gaussian mechanism (inverse of :func:`gaussian_delta`).

    δ(ε) is continuous and strictly decreasing where positive, so the root is unique; the core
    ``dpsco.reference.conversions.gdp_epsilon`` (μ = Δ/σ) brackets it, bisects until the ends are adjacent floats
    and returns the *upper* end, so ``gaussian_delta(result, ...) <= delta`` always holds (conservative).

    Parameters
    ----------
    delta : float in [0, 1)
        ``delta = 0`` returns ``inf`` (the Gaussian mechanism is not (ε, 0)-DP for any finite ε), unless the
        sensitivity is 0.
    sensitivity : float >= 0
    sigma : float > 0

    Returns
    -------
    float >= 0

    Raises
    ------
    ValueError, TypeError
        δ outside [0, 1); sensitivity < 0; σ <= 0.

    Examples
    --------
    Objective perturbation with a linear loss is the Gaussian mechanism with sensitivity 2L and
    σ² = 10 L² log(1/δ)/ε² (``docs/derivations.md#objective-perturbation-with-a-linear-loss``): for ε = 1,
    δ = 1e-8 the exact ε is 0.7403.
    """
    d = check_delta(delta)
    delta_sens = check_positive(sensitivity, "sensitivity", allow_zero=True)
    s = check_positive(sigma, "sigma")
    with np.errstate(over="ignore"):
        mu = delta_sens / s
    return conversions.gdp_epsilon(mu, d)


def gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest σ with δ_σ(ε) <= δ for the Gaussian mechanism ("analytic Gaussian mechanism", Balle & Wang 2018).

    Returned conservatively (upper end of a bisection bracket of relative width 1e-13), so
    ``gaussian_delta(epsilon, sensitivity, result) <= delta``.

    Parameters
    ----------
    epsilon : float > 0
    delta : float in (0, 1)
    sensitivity : float > 0

    Returns
    -------
    float > 0
        E.g. 3.7306 for (ε, δ) = (1, 1e-5), sensitivity 1 (Balle & Wang's Theorem 8 solved in 30-digit
        arithmetic: 3.730632).

    Raises
    ------
    ValueError, TypeError
    """
    e = check_positive(epsilon, "epsilon")
    d = check_delta(delta)
    if d == 0.0:
        raise ValueError("delta must be > 0: the Gaussian mechanism is never (ε, 0)-DP")
    sens = check_positive(sensitivity, "sensitivity")
    log_target = math.log(d)

    def log_delta_of_sigma(s: float) -> float:
        ld = conversions.gdp_log_delta(e, sens / s)
        return ld if gaussian_delta(e, sens, s) <= d else math.inf  # the public curve itself, not only its log

    # δ is decreasing in σ; start from a small σ and double.
    lo = sens * 1e-6
    if log_delta_of_sigma(lo) <= log_target:  # pragma: no cover - only for absurd (ε, δ)
        return lo
    return smallest_feasible(log_delta_of_sigma, log_target, lo=lo, hi=sens, log_scale=True)


def gdp_epsilon_to_delta(epsilon: Any, mu: float) -> float | np.ndarray:
    """δ(ε) of a μ-GDP mechanism (Dong, Roth & Su 2022, Cor. 2.13), rounded up: ``conversions.gdp_delta(mu,
    epsilon)`` with the arguments in this module's (ε, μ) order.  ε ≥ 0 (float or array), μ ≥ 0."""
    return conversions.gdp_delta(mu, epsilon)


#: the smallest ε with a μ-GDP mechanism (ε, δ)-DP (conservative: rounded up; ∞ at δ = 0 with μ > 0): the core
#: ``conversions.gdp_epsilon``
gdp_mu_to_epsilon = conversions.gdp_epsilon


def laplace_epsilon(sensitivity: float, scale: float) -> float:
    """ε = Δ/b of the Laplace mechanism f(S) + Lap(b) with L1 sensitivity Δ (Dwork et al. 2006); pure DP.

    Parameters
    ----------
    sensitivity : float >= 0
    scale : float > 0

    Returns
    -------
    float >= 0
    """
    return check_positive(sensitivity, "sensitivity", allow_zero=True) / check_positive(scale, "scale")


def laplace_delta(epsilon: Any, sensitivity: float, scale: float) -> float | np.ndarray:
    """Exact privacy curve of the 1-D Laplace mechanism: δ(ε) = max(0, 1 − exp((ε − ε₀)/2)), ε₀ = Δ/b.

    Derivation: for P = Lap(Δ, b), Q = Lap(0, b) and 0 <= ε < ε₀, the set {p > e^ε q} is {x > t} with
    t = (Δ + bε)/2, so H = P(X > t) − e^ε Q(X > t) = 1 − ½e^{−(t−Δ)/b} − ½e^{ε − t/b} = 1 − e^{(ε−ε₀)/2}.
    Both directions are equal by symmetry.

    Parameters
    ----------
    epsilon : float or array, >= 0
    sensitivity : float >= 0
    scale : float > 0

    Returns
    -------
    float or ndarray in [0, 1)
    """
    eps, scalar = check_epsilon_array(epsilon)
    eps0 = laplace_epsilon(sensitivity, scale)
    with np.errstate(invalid="ignore"):
        out = np.where(eps < eps0, -np.expm1(np.minimum(eps - eps0, 0.0) / 2.0), 0.0)
    return scalar_or_array(np.asarray(out, dtype=np.float64), scalar)


def randomized_response_epsilon(p: float) -> float:
    """ε of binary randomized response that reports the true bit with probability p and flips it otherwise.

    ε = |log(p/(1 − p))| (Warner 1965; pure DP, tight).

    Parameters
    ----------
    p : float in (0, 1)
        Probability of a truthful report.

    Returns
    -------
    float >= 0

    Raises
    ------
    ValueError
        p not in the open interval (0, 1) (p ∈ {0, 1} is not private: ε = ∞).
    """
    if isinstance(p, bool) or not isinstance(p, Real):
        raise TypeError(f"p must be a real number, got {type(p).__name__}")
    pf = float(p)
    if not (0.0 < pf < 1.0):
        raise ValueError(f"p must lie in the open interval (0, 1), got {pf}")
    return abs(math.log(pf) - math.log1p(-pf))
