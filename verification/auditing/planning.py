"""Power and planning for privacy audits: expected ε lower bounds, samples needed, minimum detectable violation.

Model (prior-art §A.0, "reality check", and its appendix recipe).  A *family* is a 1-D mechanism on a
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
fluctuates around this value), and the event is the best one in hindsight (a real audit pays for choosing it:
sample splitting halves the test sample by default, see :func:`samples_needed`).  They reproduce the sample
cost table of prior-art §A.0 (:func:`sample_cost_table`; ``docs/auditing.md``).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from numbers import Integral, Real
from typing import Any, Literal

import numpy as np
from scipy.special import ndtri
from scipy.stats import laplace, norm

from dpsco.verification.auditing.audit import CLOPPER_PEARSON_MAX_N, _check_confidence, clopper_pearson_lower, clopper_pearson_upper

__all__ = [
    "FAMILIES",
    "ROUTES",
    "Plan",
    "family_parameters",
    "expected_epsilon_lower_bound",
    "samples_needed",
    "minimum_detectable_epsilon",
    "sample_cost_table",
]

FAMILIES: tuple[str, ...] = ("laplace", "gaussian", "randomized-response")
ROUTES: tuple[str, ...] = ("threshold", "gdp")
Family = Literal["laplace", "gaussian", "randomized-response"]
Route = Literal["threshold", "gdp"]


def _check_family(family: Any, route: Any, delta: float) -> None:
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


def _check_pos(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    v = float(value)
    if not (v > 0.0 and math.isfinite(v)):
        raise ValueError(f"{name} must be finite and > 0, got {value!r}")
    return v


def _check_delta(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"delta must be a real number, got {type(value).__name__}")
    d = float(value)
    if not (0.0 <= d < 1.0):
        raise ValueError(f"delta must lie in [0, 1), got {value!r}")
    return d


def _check_n(value: Any, name: str = "n") -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if int(value) < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return int(value)


def _check_runs(value: Any, name: str) -> int:
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
    e = _check_pos(epsilon_true, "epsilon_true")
    d = _check_delta(delta)
    if family == "laplace":
        eps0 = e - 2.0 * math.log1p(-d)  # invert δ(ε) = 1 − exp((ε − ε0)/2)
        return {"scale": 1.0 / eps0}
    if family == "gaussian":
        from dpsco.oracles.privacy_curves import gaussian_sigma

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
    d = _check_delta(delta)
    _check_family(family, route, d)
    nn = _check_runs(n, "n")
    conf = _check_confidence(confidence)
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
    from dpsco.verification.auditing.estimators import gdp_epsilon_from_mu

    with np.errstate(divide="ignore", invalid="ignore"):
        mu = ndtri(p_lo) - ndtri(q_hi)
    mu = np.where(np.isnan(mu), 0.0, mu)
    return gdp_epsilon_from_mu(float(max(0.0, np.max(mu))), d)


@dataclass(frozen=True)
class Plan:
    """Samples needed to certify ``target_ratio``·ε with an audit of a family's mechanism.

    Attributes
    ----------
    family, route : str
    epsilon, delta, target_ratio, confidence : float
    target_epsilon : float
        target_ratio·ε.
    n_test : int or None
        Test runs per side needed with expected counts and the best event (None: not reached with
        ``n_max`` runs).  This is the number prior-art §A.0 tabulates.
    samples_per_side : int or None
        n_test/(1 − selection_fraction), rounded up: the runs per side of a split-sample audit whose test
        half has n_test runs.  Still optimistic (the event chosen on the selection half is not the best one).
    selection_fraction : float
    grid : "exact" | "quarter-decade"
    expected_epsilon_lower : float or None
        The expected ε_lb at n_test.
    assumptions : str
    n_max : int
        The search limit (test runs per side).
    epsilon_lower_at_n_max : float or None
        When the target is not reached: the expected ε_lb at ``n_max`` (None otherwise).
    epsilon_lower_at_validated_max : float or None
        When the target is not reached and ``n_max`` < 1e12: the expected ε_lb at 1e12 runs per side, the
        validated range of the Clopper–Pearson bounds (None otherwise).  Below the target, no n this module
        can plan for reaches it.
    """

    family: str
    route: str
    epsilon: float
    delta: float
    target_ratio: float
    confidence: float
    target_epsilon: float
    n_test: int | None
    samples_per_side: int | None
    selection_fraction: float
    grid: str
    expected_epsilon_lower: float | None
    assumptions: str
    n_max: int = 10**10
    epsilon_lower_at_n_max: float | None = None
    epsilon_lower_at_validated_max: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        if self.n_test is None:
            def at(value: float | None) -> str:
                return "n/a" if value is None else f"{value:.6g} = {value / self.epsilon:.6g}·ε"

            head = (f"NOT REACHED with up to n_max = {self.n_max:.3g} test runs per side (the search limit; "
                    f"expected ε_lb there {at(self.epsilon_lower_at_n_max)})")
            beyond = self.n_max >= CLOPPER_PEARSON_MAX_N or (
                self.epsilon_lower_at_validated_max is not None
                and self.epsilon_lower_at_validated_max < self.target_epsilon)
            if self.n_max < CLOPPER_PEARSON_MAX_N:
                head += (f"; at {CLOPPER_PEARSON_MAX_N:.0e} runs per side it would be "
                         f"{at(self.epsilon_lower_at_validated_max)}")
            if beyond:
                head += (f": the target needs more than {CLOPPER_PEARSON_MAX_N:.0e} runs per side, the validated "
                         "range of the Clopper-Pearson bounds")
            else:
                head += f": raise n_max (at most {CLOPPER_PEARSON_MAX_N:.0e})"
        else:
            head = (f"n_test = {self.n_test} runs per side (expected ε_lb {self.expected_epsilon_lower:.4f}); "
                    f"with a {self.selection_fraction:g} selection split: {self.samples_per_side} runs per side")
        return "\n".join([
            f"audit plan: {self.family} mechanism, exact ε = {self.epsilon:g} at δ = {self.delta:g}, "
            f"{self.route} route, confidence {self.confidence:g}",
            f"  certify ε_lb >= {self.target_ratio:g}·ε = {self.target_epsilon:.4g}: {head}",
            f"  model: {self.assumptions}",
        ])


_PLAN_ASSUMPTIONS = (
    "expected counts k = round(n p) plugged into one-sided Clopper-Pearson bounds, best event {x > t} in "
    "hindsight (no selection cost) - a planning figure, prior-art A.0 methodology"
)


def samples_needed(
    family: Family,
    epsilon: float,
    delta: float,
    target_ratio: float,
    *,
    route: Route = "threshold",
    confidence: float = 0.95,
    selection_fraction: float = 0.5,
    grid: Literal["exact", "quarter-decade"] = "exact",
    n_max: int = 10**10,
) -> Plan:
    """Smallest n (test runs per side) with expected ε_lb >= ``target_ratio``·``epsilon``.

    ``grid="quarter-decade"`` searches n = round(10^{j/4}), j = 4, 5, … (the grid of prior-art §A.0, whose
    table this reproduces); ``"exact"`` then bisects the integers between the last two grid points (the
    expected ε_lb is nondecreasing in n up to the rounding of expected counts).

    Parameters
    ----------
    family, route : see :func:`expected_epsilon_lower_bound`
    epsilon : float > 0
        Exact ε of the mechanism at ``delta``.
    delta : float in [0, 1)
    target_ratio : float in (0, 1)
        r: certify r·ε.  (r = 1 is never reached by a finite audit.)
    confidence : float in (0, 1)
    selection_fraction : float in [0, 1)
        For ``samples_per_side``; 0 means an event fixed in advance.
    grid : "exact" | "quarter-decade"
    n_max : int in [1, 1e12]
        Search limit (test runs per side; evaluated even when not on the grid).  At most 1e12, the
        validated range of the Clopper–Pearson bounds.

    Returns
    -------
    Plan
    """
    e = _check_pos(epsilon, "epsilon")
    d = _check_delta(delta)
    _check_family(family, route, d)
    r = _check_pos(target_ratio, "target_ratio")
    if r >= 1.0:
        raise ValueError(f"target_ratio must lie in (0, 1), got {target_ratio!r}")
    conf = _check_confidence(confidence)
    if isinstance(selection_fraction, bool) or not isinstance(selection_fraction, Real) or not (
        0.0 <= float(selection_fraction) < 1.0
    ):
        raise ValueError(f"selection_fraction must lie in [0, 1), got {selection_fraction!r}")
    if grid not in ("exact", "quarter-decade"):
        raise ValueError(f"grid must be 'exact' or 'quarter-decade', got {grid!r}")
    nmax = _check_runs(n_max, "n_max")
    target = r * e

    def value(n: int) -> float:
        return expected_epsilon_lower_bound(family, e, d, n, route=route, confidence=conf)

    found: int | None = None
    at_nmax: float | None = None
    prev = 1
    j = 4
    while True:
        n = int(round(10 ** (j / 4)))
        if n > nmax:
            break
        if value(n) >= target:
            found = n
            break
        prev = n
        j += 1
    at_vmax: float | None = None
    if found is None:  # n_max itself (off the grid, or the last grid point) decides
        at_nmax = value(nmax)
        if at_nmax >= target and prev < nmax:
            found, at_nmax = nmax, None
        elif nmax < CLOPPER_PEARSON_MAX_N:
            at_vmax = value(CLOPPER_PEARSON_MAX_N)
    if found is not None and grid == "exact":
        lo, hi = prev, found  # value(lo) < target (or lo = 1), value(hi) >= target
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if value(mid) >= target:
                hi = mid
            else:
                lo = mid
        found = hi
    f = float(selection_fraction)
    per_side = None if found is None else int(math.ceil(found / (1.0 - f)))
    return Plan(
        family=family, route=route, epsilon=e, delta=d, target_ratio=r, confidence=conf, target_epsilon=target,
        n_test=found, samples_per_side=per_side, selection_fraction=f, grid=grid,
        expected_epsilon_lower=None if found is None else value(found), assumptions=_PLAN_ASSUMPTIONS,
        n_max=nmax, epsilon_lower_at_n_max=at_nmax, epsilon_lower_at_validated_max=at_vmax,
    )


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
    c = _check_pos(claim_epsilon, "claim_epsilon")
    d = _check_delta(delta)
    _check_family(family, route, d)
    nn = _check_runs(n_test, "n_test")
    conf = _check_confidence(confidence)
    mf = _check_pos(max_factor, "max_factor")
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


def sample_cost_table(
    ratios: tuple[float, ...] = (0.5, 0.8, 0.9, 0.95),
    *,
    confidence: float = 0.95,
    grid: Literal["exact", "quarter-decade"] = "quarter-decade",
    n_max: int = 10**8,
) -> list[dict[str, Any]]:
    """The table of prior-art §A.0 as data: n needed per (mechanism, audit style, target ratio).

    Rows: Laplace ε = 1 (threshold, δ = 0); Gaussian calibrated to (1, 1e-5) (threshold, δ = 1e-5
    subtracted); the same Gaussian through the GDP route.  Each row maps the ratio to n_test (None if not
    reached below ``n_max``).
    """
    rows = [("Laplace, Δ = 1, ε = 1 (pure DP)", "laplace", 1.0, 0.0, "threshold"),
            ("Gaussian, σ = 3.7306 (analytic calibration to (1, 1e-5))", "gaussian", 1.0, 1e-5, "threshold"),
            ("same Gaussian, Gaussian-DP route", "gaussian", 1.0, 1e-5, "gdp")]
    out = []
    for label, fam, e, d, route in rows:
        cells = {}
        for r in ratios:
            plan = samples_needed(fam, e, d, r, route=route, confidence=confidence, grid=grid, n_max=n_max)  # type: ignore[arg-type]
            cells[r] = plan.n_test
        out.append({"mechanism": label, "family": fam, "route": route, "delta": d, "n_test": cells})
    return out
