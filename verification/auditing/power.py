"""Power of a privacy audit: the expected ε lower bound of a mechanism family, and the minimum detectable ε.

Model (docs/derivations.md#sample-cost-of-an-oracle-threshold-audit).  A *family* is a 1-D mechanism on a
neighbouring pair at distance equal to its sensitivity, parametrised by its exact ε at the audited δ:

============================  ==================================================================================
``"laplace"``                 P = Lap(1, b), Q = Lap(0, b); exact ε(δ) = 1/b + 2 log(1 − δ) (``laplace_delta``)
``"gaussian"``                P = N(1, σ²), Q = N(0, σ²), σ = ``gaussian_sigma(ε, δ)`` (analytic calibration,
                              Balle & Wang 2018); needs δ > 0
``"randomized-response"``     binary output, P(1) = p, Q(1) = 1 − p with (p − δ)/(1 − p) = e^ε
============================  ==================================================================================

For n test runs per side, the *expected-count* audit plugs k = round(n·P(E)), k = round(n·Q(E)) into the
Clopper–Pearson bounds (each at (1 − confidence)/2) and takes the best event E = {x > t} over a grid of
thresholds (the only event for randomised response), i.e. an *oracle* event choice:

* ``route="threshold"``: ε_lb = log((P_lo − δ)/Q_hi) (assumption-free audit);
* ``route="gdp"``: μ_lb = Φ⁻¹(P_lo) − Φ⁻¹(Q_hi), ε_lb = ε_μ(μ_lb, δ) (Gaussian-DP audit; only meaningful for
  the Gaussian family, whose trade-off curve is Gaussian — other families are refused).

These are **planning figures**, not guarantees: the counts are their expectations (a real audit's ε_lb
fluctuates around this value), and the event is the best one in hindsight (a real audit pays for choosing
it).  Every audit reports :func:`minimum_detectable_epsilon` at its test size; sample sizes for a target are
planned by :mod:`dpsco.verification.auditing.planning`.

References
----------
B. Balle, Y.-X. Wang. Improving the Gaussian mechanism for differential privacy: analytical calibration and
optimal denoising. ICML 2018.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any, Literal

import numpy as np
from scipy.special import ndtri
from scipy.stats import laplace, norm

from dpsco.oracles.privacy_curves import gaussian_sigma
from dpsco.verification.auditing.clopper_pearson import (
    CLOPPER_PEARSON_MAX_N,
    check_confidence,
    check_delta,
    clopper_pearson_lower,
    clopper_pearson_upper,
)
from dpsco.verification.auditing.gdp import gdp_epsilon_from_mu

__all__ = [
    "FAMILIES",
    "Family",
    "ROUTES",
    "Route",
    "check_family",
    "check_positive",
    "check_runs",
    "expected_epsilon_lower_bound",
    "family_parameters",
    "minimum_detectable_epsilon",
]

FAMILIES: tuple[str, ...] = ("laplace", "gaussian", "randomized-response")
ROUTES: tuple[str, ...] = ("threshold", "gdp")
Family = Literal["laplace", "gaussian", "randomized-response"]
Route = Literal["threshold", "gdp"]


def check_family(family: Any, route: Any, delta: float) -> None:
    """Raise ValueError unless ``family`` ∈ FAMILIES and ``route`` ∈ ROUTES fit together at ``delta``: the GDP
    route only for the Gaussian family (the only one with a Gaussian trade-off curve), which needs δ > 0."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    if route not in ROUTES:
        raise ValueError(f"route must be one of {ROUTES}, got {route!r}")
    if route == "gdp" and family != "gaussian":
        raise ValueError(
            f"route='gdp' assumes a Gaussian trade-off curve; it is not valid for the {family} family "
            "(its ε would not be a lower bound)"
        )
    if family == "gaussian" and delta == 0.0:
        raise ValueError("the gaussian family needs delta > 0 (the Gaussian mechanism is never (ε, 0)-DP)")


def check_positive(value: Any, name: str) -> float:
    """``value`` as a finite float > 0; TypeError for a non-real, ValueError otherwise (naming ``name``)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    v = float(value)
    if not (v > 0.0 and math.isfinite(v)):
        raise ValueError(f"{name} must be finite and > 0, got {value!r}")
    return v


def _check_n(value: Any, name: str = "n") -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if int(value) < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return int(value)


def check_runs(value: Any, name: str) -> int:
    """A number of runs per side: an integer in [1, CLOPPER_PEARSON_MAX_N] (the bounds' validated range)."""
    v = _check_n(value, name)
    if v > CLOPPER_PEARSON_MAX_N:
        raise ValueError(
            f"{name} = {v:.3g} runs per side exceeds the validated range of the Clopper-Pearson bounds "
            f"({CLOPPER_PEARSON_MAX_N:.0e})"
        )
    return v


def family_parameters(family: str, epsilon_true: float, delta: float) -> dict[str, float]:
    """The parameter of a family's mechanism whose exact ε at ``delta`` is ``epsilon_true``.

    Returns ``{"scale": b}`` (Laplace), ``{"sigma": σ}`` (Gaussian, sensitivity 1) or ``{"p": p}``
    (randomised response).  Raises ValueError when no such mechanism exists (e.g. Laplace with
    ε_true <= −2 log(1 − δ)).
    """
    e = check_positive(epsilon_true, "epsilon_true")
    d = check_delta(delta)
    if family == "laplace":
        eps0 = e - 2.0 * math.log1p(-d)  # invert δ(ε) = 1 − exp((ε − ε0)/2)
        return {"scale": 1.0 / eps0}
    if family == "gaussian":
        if d == 0.0:
            raise ValueError("the gaussian family needs delta > 0")
        return {"sigma": gaussian_sigma(e, d, 1.0)}
    if family == "randomized-response":
        ee = math.exp(min(e, 700.0))
        return {"p": (d + ee) / (1.0 + ee)}
    raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")


def _event_probabilities(family: str, params: dict[str, float], n: int, n_grid: int) -> tuple[np.ndarray, np.ndarray]:
    """(P(E), Q(E)) over the candidate events E = {x > t} (one event for randomised response)."""
    if family == "randomized-response":
        p = params["p"]
        return np.array([p]), np.array([1.0 - p])
    # thresholds placed by the Q-tail probability, geometric from far below 1/n up to the median region,
    # plus a dense linear grid of t across the bulk of both distributions (where the GDP route's best events lie)
    qs = np.geomspace(min(1e-3 / n, 1e-9), 0.999, n_grid)
    dist = laplace(scale=params["scale"]) if family == "laplace" else norm(scale=params["sigma"])
    t = np.concatenate([dist.isf(qs), np.linspace(dist.isf(0.999), 1.0 + dist.isf(0.001), 4 * n_grid)])
    return dist.sf(t - 1.0), dist.sf(t)


def expected_epsilon_lower_bound(
    family: Family,
    epsilon_true: float,
    delta: float,
    n: int,
    *,
    route: Route = "threshold",
    confidence: float = 0.95,
    n_grid: int = 800,
) -> float:
    """The ε_lb an audit with ``n`` test runs per side reaches with expected counts and the best event.

    Parameters
    ----------
    family : "laplace" | "gaussian" | "randomized-response"
    epsilon_true : float > 0
        Exact ε of the family's mechanism at ``delta`` (see :func:`family_parameters`).
    delta : float in [0, 1)
        The δ subtracted (threshold route) or converted at (GDP route).
    n : int in [1, 1e12]
        Test runs per side (larger n is outside the validated range of the Clopper–Pearson bounds).
    route : "threshold" | "gdp"
    confidence : float in (0, 1)
    n_grid : int >= 10
        Number of thresholds (geometric in the Q-tail probability).

    Returns
    -------
    float >= 0
        A planning figure (module docstring): expected counts, oracle event.
    """
    d = check_delta(delta)
    check_family(family, route, d)
    nn = check_runs(n, "n")
    conf = check_confidence(confidence)
    g = _check_n(n_grid, "n_grid")
    if g < 10:
        raise ValueError(f"n_grid must be >= 10, got {g}")
    params = family_parameters(family, epsilon_true, d)
    P, Q = _event_probabilities(family, params, nn, g)
    kp = np.clip(np.round(P * nn), 0, nn)
    kq = np.clip(np.round(Q * nn), 0, nn)
    half = (1.0 - conf) / 2.0
    p_lo = np.asarray(clopper_pearson_lower(kp, nn, half))
    q_hi = np.asarray(clopper_pearson_upper(kq, nn, half))
    if route == "threshold":
        num = p_lo - d
        with np.errstate(divide="ignore", invalid="ignore"):
            eps = np.where(num > 0, np.log(np.where(num > 0, num, 1.0) / q_hi), 0.0)
        return float(max(0.0, np.max(eps)))
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = ndtri(p_lo) - ndtri(q_hi)
    mu = np.where(np.isnan(mu), 0.0, mu)
    return gdp_epsilon_from_mu(float(max(0.0, np.max(mu))), d)


def minimum_detectable_epsilon(
    family: Family,
    n_test: int,
    claim_epsilon: float,
    delta: float,
    *,
    route: Route = "threshold",
    confidence: float = 0.95,
    max_factor: float = 64.0,
) -> float:
    """Smallest exact ε of a family's mechanism whose expected ε_lb at ``n_test`` exceeds ``claim_epsilon``.

    "With n test runs per side, a violation is detectable (in expectation, best event) once the true ε
    reaches this value."  Found by bisection on ε_true ∈ (claim, max_factor·claim] to relative width 1e-4
    and the upper end returned; ``inf`` when even max_factor·claim is not detected.

    Parameters
    ----------
    family, route, confidence : see :func:`expected_epsilon_lower_bound`
    n_test : int in [1, 1e12]
    claim_epsilon : float > 0
    delta : float in [0, 1)
    max_factor : float > 1

    Returns
    -------
    float > claim_epsilon, or inf
    """
    c = check_positive(claim_epsilon, "claim_epsilon")
    d = check_delta(delta)
    check_family(family, route, d)
    nn = check_runs(n_test, "n_test")
    conf = check_confidence(confidence)
    mf = check_positive(max_factor, "max_factor")
    if mf <= 1.0:
        raise ValueError(f"max_factor must be > 1, got {max_factor!r}")

    def detected(e: float) -> bool:
        try:
            return expected_epsilon_lower_bound(family, e, d, nn, route=route, confidence=conf, n_grid=300) > c
        except ValueError:
            return False

    cap = mf * c
    lo, hi = c, c * 2.0
    while not detected(hi):
        lo, hi = hi, hi * 2.0
        if not math.isfinite(hi) or hi > cap:  # doubling past the cap, or overflowing (c near 1e308)
            if math.isfinite(cap) and detected(cap):
                hi = cap
                break
            return math.inf
    while (hi - lo) > 1e-4 * hi:
        mid = 0.5 * (lo + hi)
        if detected(mid):
            hi = mid
        else:
            lo = mid
    return hi
