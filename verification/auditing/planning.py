"""Planning a privacy audit: samples needed to certify r·ε, and the sample-cost table.

Built on the expected-count model of :mod:`dpsco.verification.auditing.power`
(docs/derivations.md#sample-cost-of-an-oracle-threshold-audit): a family's 1-D mechanism parametrised by
its exact ε at δ, expected counts plugged into one-sided Clopper–Pearson bounds, and the best event in
hindsight.  These are **planning figures**, not guarantees: a real audit's ε_lb fluctuates around the
expected value, and a real audit pays for choosing its event (sample splitting halves the test sample by
default, see :func:`samples_needed`).  :func:`sample_cost_table` is the table of ``docs/auditing.md``.

The power model's names (``FAMILIES``, ``ROUTES``, ``family_parameters``, ``expected_epsilon_lower_bound``,
``minimum_detectable_epsilon``) are re-exported here, where ``dpsco plan`` and earlier callers import them.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from numbers import Real
from typing import Any, Literal

from dpsco.verification.auditing.clopper_pearson import CLOPPER_PEARSON_MAX_N, check_confidence, check_delta
from dpsco.verification.auditing.power import (
    FAMILIES,
    ROUTES,
    Family,
    Route,
    check_family,
    check_positive,
    check_runs,
    expected_epsilon_lower_bound,
    family_parameters,
    minimum_detectable_epsilon,
)

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
        ``n_max`` runs).  This is the number the sample-cost table tabulates (:func:`sample_cost_table`).
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
    "hindsight (no selection cost) - a planning figure (docs/derivations.md#sample-cost-of-an-oracle-threshold-audit)"
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

    ``grid="quarter-decade"`` searches n = round(10^{j/4}), j = 4, 5, … (the grid of the sample-cost table,
    :func:`sample_cost_table`); ``"exact"`` then bisects the integers between the last two grid points (the
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
    e = check_positive(epsilon, "epsilon")
    d = check_delta(delta)
    check_family(family, route, d)
    r = check_positive(target_ratio, "target_ratio")
    if r >= 1.0:
        raise ValueError(f"target_ratio must lie in (0, 1), got {target_ratio!r}")
    conf = check_confidence(confidence)
    if isinstance(selection_fraction, bool) or not isinstance(selection_fraction, Real) or not (
        0.0 <= float(selection_fraction) < 1.0
    ):
        raise ValueError(f"selection_fraction must lie in [0, 1), got {selection_fraction!r}")
    if grid not in ("exact", "quarter-decade"):
        raise ValueError(f"grid must be 'exact' or 'quarter-decade', got {grid!r}")
    nmax = check_runs(n_max, "n_max")
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


def sample_cost_table(
    ratios: tuple[float, ...] = (0.5, 0.8, 0.9, 0.95),
    *,
    confidence: float = 0.95,
    grid: Literal["exact", "quarter-decade"] = "quarter-decade",
    n_max: int = 10**8,
) -> list[dict[str, Any]]:
    """The sample-cost table as data: n needed per (mechanism, audit style, target ratio)
    (docs/derivations.md#sample-cost-of-an-oracle-threshold-audit; printed in docs/auditing.md).

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
