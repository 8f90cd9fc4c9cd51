"""What a check could have seen: the "uninformative" label of a check whose power cannot reach its claim.

A check that passes proves something only if it could have failed.  A campaign check (a bound, rate or stability
record of ``dpsco verify``, or a suite check) is **uninformative** when it could not detect a violation of its
claim by a factor of two at the runs it used:

* a bound check (``stats.mean_bound_check``, E[X] ≤ B from R runs in [a, b], Hoeffding): it fails for sure only
  beyond ``detectable_excess`` = 2·(b − a)·√(log(1/α)/(2R)) above B (probability ≥ 1 − α of failing at a true
  mean of B + detectable_excess).  Uninformative when B ≥ b (no outcome can fail it: "cannot fail") or when
  detectable_excess > B (a true mean of 2B passes with probability > α);
* a rate check with bounds (``theorem_checks.rate_check``, kinds "upper"/"lower": Hoeffding at every grid point,
  Bonferroni): the same, with ``detectable_bound_excess`` at each grid point: uninformative when no grid point
  could detect a mean of 2·B(x) (at each, B(x) ≥ b or detectable_bound_excess > B(x)), and "cannot fail" when
  every B(x) ≥ b.  A "tight" rate check tests
  its slope too, whose power is its confidence interval (reported), so it is never labelled here;
* a stability check (``theorem_checks.stability_check``, coupled differences, one-sided t-test): uninformative when
  its ``detectable_excess`` exceeds its bound, or when the bound is at least ``largest_difference`` (the largest
  loss difference the domain allows, 2·M·L, where the campaign knows it);
* a suite check whose task states ``uninformative`` (a reason) — a check it knows cannot fail at its inputs; and
  a suite audit whose task states one (``uninformative_at_inputs``: e.g. a mechanism constant at its inputs),
  whose "not refuted" is then labelled "uninformative".

The label replaces only a "pass": an uninformative check that fails is a failure (a violation far beyond the
bound is evidence whatever the power).  ``dpsco verify`` applies it after Holm's procedure
(:func:`label_uninformative`) and counts uninformative checks apart; ``--resume`` / ``--from`` recompute it from
the record's numbers (``campaign.rederive``).
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, MutableMapping

__all__ = ["UNINFORMATIVE", "label_uninformative", "stated_reason", "uninformative_reason"]

#: the verdict of a check that passed without the power to fail on a violation of its claim by a factor of two
UNINFORMATIVE = "uninformative"


def _num(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def uninformative_reason(check: Mapping[str, Any]) -> str | None:
    """Why a "pass" of ``check`` (a check record as ``dpsco verify`` stores it) would not be evidence for its
    claim, or None when the check is informative (module docstring: the criteria).  Reads only the record's own
    numbers (and a suite task's stated ``uninformative`` reason).  TypeError if ``check`` is not a mapping."""
    if not isinstance(check, Mapping):
        raise TypeError(f"check must be a mapping, got {type(check).__name__}")
    stated = check.get("uninformative_at_inputs")
    if isinstance(stated, str) and stated.strip():
        return stated.strip()
    vr = check.get("value_range")
    top = _num(vr[1]) if isinstance(vr, (list, tuple)) and len(vr) == 2 else None
    if isinstance(check.get("bounds"), list) and check.get("kind") in ("upper", "lower"):  # rate family
        bounds = [b for b in (_num(x) for x in check["bounds"]) if b is not None]
        det = _num(check.get("detectable_bound_excess"))
        if not bounds or top is None or det is None:
            return None
        if min(bounds) >= top:
            return (f"cannot fail: every bound on the grid (smallest {min(bounds):.3g}) is at least the largest "
                    f"value {top:.3g} the excess can take")
        # a grid point can see a mean of twice its bound only if its bound is below the range's top (else nothing
        # there can exceed it) and the detectable excess is at most the bound
        if all(b >= top or det > b for b in bounds):
            return (f"cannot detect a mean of twice the bound at any grid point: detectable excess {det:.3g} "
                    f"exceeds every bound below the range's top {top:.3g} (bounds {', '.join(f'{b:.3g}' for b in bounds)}) "
                    f"at {check.get('replicates')} runs per point")
        return None
    bound, det = _num(check.get("bound")), _num(check.get("detectable_excess"))
    if bound is None or det is None:
        return None
    if "per_probe_mean" in check:  # stability
        largest = _num(check.get("largest_difference"))
        if largest is not None and bound >= largest:
            return (f"cannot fail: the bound {bound:.3g} is at least the largest loss difference {largest:.3g} "
                    "the domain allows")
        if det > bound:
            return (f"cannot detect a mean difference of twice the bound: detectable excess {det:.3g} > bound "
                    f"{bound:.3g} at {check.get('replicates')} runs per pair")
        return None
    if top is not None and "lcb" in check:  # a Hoeffding bound check
        if bound >= top:
            return f"cannot fail: the bound {bound:.3g} is at least the largest value {top:.3g} of the quantity"
        if det > bound:
            return (f"cannot detect a mean of twice the bound: detectable excess {det:.3g} > bound {bound:.3g} at "
                    f"{check.get('replicates')} runs")
    return None


def stated_reason(record: Mapping[str, Any]) -> str | None:
    """The reason a suite task stated (``uninformative_at_inputs``) why its check or audit cannot fail at its
    inputs, or None."""
    stated = record.get("uninformative_at_inputs") if isinstance(record, Mapping) else None
    return stated.strip() if isinstance(stated, str) and stated.strip() else None


def label_uninformative(records: Iterable[MutableMapping[str, Any]], *, audits: bool = False) -> int:
    """After Holm's procedure: relabel every check whose verdict is "pass" and whose power cannot reach its claim
    (:func:`uninformative_reason`) "uninformative", storing the reason under ``uninformative``; returns how many.
    A check that failed keeps its "fail".  ``audits=True``: the records are audits, relabelled from "not refuted"
    only on a reason their task stated (:func:`stated_reason`, e.g. an audit of a mechanism that is constant at
    its inputs); a refuted audit stays refuted."""
    count = 0
    for c in records:
        if c.get("verdict") == ("not refuted" if audits else "pass"):
            why = stated_reason(c) if audits else uninformative_reason(c)
            if why is not None:
                c["verdict"] = UNINFORMATIVE
                c["uninformative"] = why
                count += 1
    return count
