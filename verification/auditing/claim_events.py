"""Events placed from the claim: the threshold that is best if the mechanism sat exactly on the claimed curve.

An audit need not spend half of its runs on choosing an event.  :func:`claim_optimal_threshold` computes,
from public information only (the claim's ε and δ, a declared output family, the test size and the
confidence), the standardised threshold t* of the event {x ≥ t} that a mechanism of that family lying
exactly on the claimed privacy curve would make best; the audit's ``event_from_claim`` then fixes the
direction, location and scale on a small pilot and tests that one event on every other run, and
:func:`claim_event` builds the event from public location/scale information with no pilot at all.

**Soundness never depends on the family**: any event fixed independently of the test runs gives a valid
bound (docs/derivations.md#soundness-of-the-sample-split-threshold-audit); the family decides only where
the event is placed, i.e. the power.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy.special import ndtri
from scipy.stats import laplace as _laplace
from scipy.stats import norm as _norm

from dpsco.verification.auditing.clopper_pearson import check_confidence, check_delta, confidence_bounds
from dpsco.verification.auditing.events import Event
from dpsco.verification.auditing.inputs import as_claim
from dpsco.verification.auditing.power import family_parameters

__all__ = ["CLAIM_EVENT_FAMILIES", "claim_event", "claim_optimal_threshold", "location_scale"]

#: families for which :func:`claim_optimal_threshold` can place an event from the claim alone
CLAIM_EVENT_FAMILIES: tuple[str, ...] = ("gaussian", "laplace")


def claim_optimal_threshold(
    family: str,
    epsilon: float,
    delta: float,
    n_test: int,
    *,
    route: str = "threshold",
    confidence: float = 0.95,
    n_grid: int = 2000,
    pessimism: float = 1.0,
) -> dict[str, float]:
    """The standardised threshold of the event that is best *if the mechanism sat exactly on the claimed curve*.

    Computed from public information only (the claim's ε, δ, the declared family, the test size and the
    confidence — never from samples).  Model: a 1-D pair P = F(· − a), Q = F(·) with F the standard family
    distribution (N(0, 1), or Laplace with scale 1) and a the shift whose exact privacy curve passes through
    the claim, i.e. a = 1/σ with σ = ``gaussian_sigma(ε, δ, 1)`` (Gaussian; needs δ > 0) or a = 1/b with b the
    Laplace scale whose exact ε at δ is the claim's (:func:`dpsco.verification.auditing.power.family_parameters`).
    Among the events E_t = {x ≥ t} (t on a grid geometric in Q's tail probability plus a linear grid through
    the bulk), it returns the t maximising the estimator's bound at *pessimistic* counts
    k_p = ⌊nP − z·√(nP(1 − P))⌋, k_q = ⌈nQ + z·√(nQ(1 − Q))⌉ (z = ``pessimism``; z = 0: expected counts) —
    ``route="threshold"``: log((P_lo − δ)/Q_hi); ``route="gdp"``: Φ⁻¹(P_lo) − Φ⁻¹(Q_hi).  z = 1 maximises
    roughly the 16 % quantile of the bound instead of its mean, which prefers slightly shallower events with
    less count noise: for the Gaussian mechanism calibrated to (1, 1e-5) at n_test = 9.9e5 (threshold route),
    t* = 3.27 (z = 0) has mean ε_lb 0.767 and P(ε_lb >= 0.70) = 0.91, while t* ≈ 3.05 (z = 1) has mean 0.759
    and P(ε_lb >= 0.70) = 0.955 (20,000 simulated binomial count pairs each).

    **Soundness does not depend on this function**: any event fixed independently of the test samples gives a
    valid bound (docs/derivations.md#soundness-of-the-sample-split-threshold-audit).  The family only decides
    where the event is placed, i.e. the *power*; for a mechanism outside the family the event is merely
    sub-optimal.

    Parameters
    ----------
    family : "gaussian" | "laplace"
    epsilon : float > 0
    delta : float in [0, 1) (> 0 for "gaussian")
    n_test : int >= 1
        Runs per side on which the event will be tested.
    route : "threshold" | "gdp"
    confidence : float in (0, 1)
    n_grid : int >= 10
    pessimism : float >= 0
        z above.

    Returns
    -------
    dict with ``t`` (threshold in units of the family scale, measured from the denominator side's location),
    ``shift`` (a, same units), ``p``, ``q`` (P(E_t), Q(E_t) under the model) and ``expected_bound`` (the
    route's ε_lb — for "gdp" the μ_lb — at the pessimistic counts under the model).
    """
    if family not in CLAIM_EVENT_FAMILIES:
        raise ValueError(f"family must be one of {CLAIM_EVENT_FAMILIES}, got {family!r}")
    if route not in ("threshold", "gdp"):
        raise ValueError(f"route must be 'threshold' or 'gdp', got {route!r}")
    if isinstance(epsilon, bool) or not isinstance(epsilon, Real) or not (0.0 < float(epsilon) < math.inf):
        raise ValueError(f"epsilon must be a finite real > 0, got {epsilon!r}")
    d = check_delta(delta)
    if family == "gaussian" and d == 0.0:
        raise ValueError("family='gaussian' needs delta > 0 (no Gaussian mechanism is (eps, 0)-DP)")
    if isinstance(n_test, bool) or not isinstance(n_test, Integral) or int(n_test) < 1:
        raise ValueError(f"n_test must be an integer >= 1, got {n_test!r}")
    if isinstance(n_grid, bool) or not isinstance(n_grid, Integral) or int(n_grid) < 10:
        raise ValueError(f"n_grid must be an integer >= 10, got {n_grid!r}")
    conf = check_confidence(confidence)
    if isinstance(pessimism, bool) or not isinstance(pessimism, Real) or not (0.0 <= float(pessimism) < math.inf):
        raise ValueError(f"pessimism must be a finite real >= 0, got {pessimism!r}")
    z = float(pessimism)
    n = int(n_test)
    params = family_parameters(family, float(epsilon), d)
    if family == "gaussian":
        shift, dist = 1.0 / params["sigma"], _norm()
    else:
        shift, dist = 1.0 / params["scale"], _laplace()
    g = int(n_grid)
    qs = np.geomspace(min(1e-3 / n, 1e-9), 0.999, g)
    t = np.unique(np.concatenate([dist.isf(qs), np.linspace(dist.isf(0.999), shift + dist.isf(0.001), g)]))
    P, Q = dist.sf(t - shift), dist.sf(t)
    if z == 0.0:
        kp, kq = np.round(P * n), np.round(Q * n)
    else:
        kp = np.floor(P * n - z * np.sqrt(n * P * (1.0 - P)))
        kq = np.ceil(Q * n + z * np.sqrt(n * Q * (1.0 - Q)))
    kp = np.clip(kp, 0, n).astype(np.int64)
    kq = np.clip(kq, 0, n).astype(np.int64)
    p_lo, q_hi = confidence_bounds(kp, n, kq, n, conf)
    with np.errstate(divide="ignore", invalid="ignore"):
        if route == "threshold":
            num = p_lo - d
            score = np.where(num > 0, np.log(np.where(num > 0, num, 1.0) / q_hi), -np.inf)
        else:
            score = ndtri(p_lo) - ndtri(q_hi)
            score = np.where(np.isnan(score), -np.inf, score)
    j = int(np.argmax(score))
    return {"t": float(t[j]), "shift": float(shift), "p": float(P[j]), "q": float(Q[j]),
            "expected_bound": float(max(score[j], 0.0))}


def location_scale(values: Any, family: str) -> tuple[float, float]:
    """(location, scale) of 1-D statistics under ``family``: (mean, standard deviation) for "gaussian",
    (median, mean absolute deviation from the median) for "laplace" (the Laplace maximum-likelihood pair).

    A scale of 0 (constant statistics) is returned as 1 (any threshold is then as good as another)."""
    if family not in CLAIM_EVENT_FAMILIES:
        raise ValueError(f"family must be one of {CLAIM_EVENT_FAMILIES}, got {family!r}")
    v = np.asarray(values, dtype=np.float64).ravel()
    if v.size < 2 or not np.all(np.isfinite(v)):
        raise ValueError("values must contain at least 2 finite numbers")
    if family == "gaussian":
        loc, scale = float(v.mean()), float(v.std(ddof=1))
    else:
        loc = float(np.median(v))
        scale = float(np.mean(np.abs(v - loc)))
    return loc, (scale if scale > 0 and math.isfinite(scale) else 1.0)


def claim_event(
    claim: Any,
    family: str,
    n_test: int,
    *,
    location: float,
    scale: float,
    numerator: str = "dataset",
    route: str = "threshold",
    confidence: float = 0.95,
) -> Event:
    """An :class:`~dpsco.verification.auditing.events.Event` fixed from the claim and *public* location/scale
    information.

    The event is {s ≥ location + scale·t*} with numerator ``numerator``, t* from
    :func:`claim_optimal_threshold` (``family``, the claim's ε and δ, ``n_test``, ``route``), where
    ``location``/``scale`` describe the statistic's distribution on the *denominator* side (e.g. the
    deterministic part of the output and the public noise scale of a noise-addition mechanism), and the
    numerator side is the one expected to have the larger statistic.  Pass it to ``audit(..., event=...)``:
    no selection half, every run tested.  Soundness needs only that ``location``/``scale`` do not depend on
    the audit's samples; the family assumption affects power only.
    """
    c = as_claim(claim)
    for name, v in (("location", location), ("scale", scale)):
        if isinstance(v, bool) or not isinstance(v, Real) or not math.isfinite(float(v)):
            raise ValueError(f"{name} must be a finite real number, got {v!r}")
    if not float(scale) > 0:
        raise ValueError(f"scale must be > 0, got {scale!r}")
    opt = claim_optimal_threshold(family, c.epsilon, c.delta, n_test, route=route, confidence=confidence)
    return Event(float(location) + float(scale) * opt["t"], "ge", numerator)  # type: ignore[arg-type]
