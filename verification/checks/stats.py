"""Calibrated one-sided checks of "E[X] ≤ bound" claims.

The papers' utility results bound an *expectation* (e.g. E[excess risk] ≤ 10ML·rate).  A check may only fail
on a statistically significant exceedance: it fails iff a lower confidence bound (LCB) of the mean at level
1 − α exceeds the theorem's bound, so a correct implementation fails with probability ≤ α.

We use Hoeffding's inequality for variables in a known range [a, b] (excess risks are in [0, 2ML] on a
ball of radius M, by Lipschitzness): P(X̄ − E X ≥ t) ≤ exp(−2Rt²/(b − a)²), so
LCB = X̄ − (b − a)√(log(1/α)/(2R)) and UCB = X̄ + (b − a)√(log(1/α)/(2R)) each hold with probability ≥ 1 − α.
It is exact and finite-sample (no normality assumption); the price is width.  The *power* of a check is
reported as the smallest mean exceedance it detects: if E X ≥ bound + 2·(b − a)√(log(1/α)/(2R)), the
check fails with probability ≥ 1 − α.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

import numpy as np

from dpsco.verification.checks.theorem_checks import hoeffding_p_value

__all__ = ["BoundCheck", "add_reference_bound", "exact_check", "hoeffding_radius", "mean_bound_check", "suite_check"]


def hoeffding_radius(value_range: float, replicates: int, alpha: float) -> float:
    """(b − a)√(log(1/α)/(2R)): one-sided Hoeffding confidence radius for the mean of R samples in [a, b]."""
    if replicates < 1:
        raise ValueError(f"replicates must be >= 1, got {replicates}")
    if not (0.0 < alpha < 1.0):
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    if not (value_range >= 0.0 and math.isfinite(value_range)):
        raise ValueError(f"value_range must be finite and >= 0, got {value_range}")
    return value_range * math.sqrt(math.log(1.0 / alpha) / (2.0 * replicates))


@dataclass
class BoundCheck:
    """Result of a one-sided check of E[X] ≤ bound.

    verdict: "pass" (LCB ≤ bound) or "fail" (LCB > bound: significant exceedance at level α); a campaign
    may re-decide it by Holm's procedure over ``p_value`` (exact Hoeffding p-value of H0: E X ≤ bound).
    ratio: mean / bound.  detectable_excess: smallest E X − bound detected with probability ≥ 1 − α.
    """

    name: str
    mean: float
    lcb: float
    ucb: float
    bound: float
    ratio: float
    replicates: int
    alpha: float
    value_range: tuple[float, float]
    detectable_excess: float
    verdict: str
    p_value: float = 1.0
    method: str = "Hoeffding (range-bounded, exact finite-sample)"
    # other forms of the bound, reported beside the verdict (e.g. the printed constant where ERRATA.md corrects
    # it): {"label", "bound", "p_value", "exceeded" (LCB > bound at this check's α)}; they never set the verdict
    reference_bounds: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def add_reference_bound(check: BoundCheck, label: str, bound: float) -> BoundCheck:
    """Report ``bound`` (e.g. the theorem's printed constant) beside ``check``'s own: its exact Hoeffding p-value
    and whether the data contradict it at the check's α (LCB > bound).  The verdict is unchanged."""
    b = float(bound)
    lo, hi = check.value_range
    check.reference_bounds.append({"label": label, "bound": b, "ratio": check.mean / b if b > 0 else math.inf,
                                   "p_value": hoeffding_p_value(check.mean, b, hi - lo, check.replicates),
                                   "exceeded": bool(check.lcb > b)})
    return check


def mean_bound_check(name: str, samples: Sequence[float] | np.ndarray, bound: float,
                     value_range: tuple[float, float], alpha: float = 1e-6) -> BoundCheck:
    """Check E[X] ≤ ``bound`` from i.i.d. ``samples`` known to lie in ``value_range``.

    Raises ``ValueError`` if a sample lies outside ``value_range`` (the range is part of the guarantee) or
    the inputs are malformed.  False-failure probability ≤ ``alpha`` when E[X] ≤ bound.
    """
    x = np.asarray(samples, dtype=np.float64)
    if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError("samples must be a non-empty 1-D array of finite values")
    lo, hi = value_range
    tol = 1e-9 * max(1.0, abs(hi - lo))
    if np.any(x < lo - tol) or np.any(x > hi + tol):
        raise ValueError(f"samples outside the declared range [{lo}, {hi}]: min {x.min()}, max {x.max()}")
    r = hoeffding_radius(hi - lo, x.size, alpha)
    mean = float(x.mean())
    lcb, ucb = mean - r, mean + r
    return BoundCheck(name=name, mean=mean, lcb=lcb, ucb=ucb, bound=float(bound),
                      ratio=mean / bound if bound > 0 else math.inf, replicates=int(x.size), alpha=alpha,
                      value_range=(float(lo), float(hi)), detectable_excess=2 * r,
                      verdict="pass" if lcb <= bound else "fail",
                      p_value=hoeffding_p_value(mean, float(bound), hi - lo, int(x.size)))


def suite_check(name: str, statement: str, p_value: float | bool, estimate: float | None = None,
                bound: float | None = None, *, uninformative: str | None = None, **details: Any) -> dict[str, Any]:
    """A check of an entry's own suite as the campaign reads it (``CatalogueEntry.suite``): ``p_value`` in [0, 1]
    — the smallest level at which the data refute ``statement`` — or a bool for an exact check (True: holds,
    p = 1; False: fails, p = 0); ``verdict`` None until the campaign's Holm procedure sets it; the measured
    ``estimate`` and the ``bound`` where they apply; any JSON-ready ``details``.  ``uninformative``: why the check
    cannot fail at these inputs (or cannot detect a violation of its claim by a factor of two), stored as
    ``uninformative_at_inputs``; the campaign then labels a pass "uninformative" (``checks.power``), never a
    failure."""
    p = (1.0 if p_value else 0.0) if isinstance(p_value, (bool, np.bool_)) else float(p_value)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p_value must lie in [0, 1], got {p_value!r}")
    out: dict[str, Any] = {"name": name, "statement": statement, "p_value": p, "verdict": None}
    if estimate is not None:
        out["estimate"] = float(estimate)
    if bound is not None:
        out["bound"] = float(bound)
    if uninformative is not None:
        if not isinstance(uninformative, str) or not uninformative.strip():
            raise ValueError("uninformative must be a non-empty reason")
        out["uninformative_at_inputs"] = uninformative
    out.update(details)
    return out


def exact_check(name: str, statement: str, holds: bool, estimate: float, bound: float) -> dict[str, Any]:
    """:func:`suite_check` of a statement decided exactly (no sampling): p = 1 if it holds, 0 if not."""
    return suite_check(name, statement, bool(holds), estimate, bound, method="exact")
