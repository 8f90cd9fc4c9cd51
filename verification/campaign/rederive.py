"""Verdicts re-derived from the numbers: what ``dpsco verify --resume`` and ``--from`` believe of stored records.

A results.json or a checkpoint is a file anyone can edit.  A checkpoint edited to ε_lb = 50 while it still says
"not refuted" used to resume to a campaign "pass", and ``--from`` took its exit code from the top-level
``verdict`` alone.  So nothing stored is believed that can be recomputed:

* an audit record with its test counts (``details`` of a black-box threshold audit) has its ε lower bound and
  p-value recomputed from the counts (``clopper_pearson.epsilon_lower_bound``, ``family.p_value_of_counts``);
  a stored value that differs is refused;
* an audit whose verdict rests on its ε bound (``verdict_basis`` "refuted iff epsilon_lower …") with
  ε_lb above the claimed ε must say "refuted" at its own confidence, and every audit's own verdict must agree
  with its p-value (p ≤ 1 − confidence iff refuted, up to the p-value bisection's relative width);
* the campaign's verdicts are recomputed by Holm's procedure from the p-values (checks at ``alpha_campaign``,
  audits at 1 − ``audit_confidence``), and the set of failed entries and the top-level verdict from them;
  a stored verdict that differs is refused;
* a check's "uninformative" (a pass without the power to fail on a violation of its claim by a factor of two,
  ``checks.power``) is recomputed from the record's numbers, and so is the campaign's count of them.

:func:`check_phase_result` applies the record rules to one checkpointed phase; :func:`rederive_campaign` applies
all of them to a results.json and returns the recomputed (verdict, failed entries), from which ``--from``
takes its exit code.  Both raise :class:`InconsistentRecordError` (a ValueError) naming the record.
"""

from __future__ import annotations

import math
from typing import Any, Iterator

from dpsco.verification.checks.power import UNINFORMATIVE, stated_reason, uninformative_reason

__all__ = ["InconsistentRecordError", "check_audit_record", "check_phase_result", "rederive_campaign"]

#: relative tolerance of a recomputed bound or p-value (the p-value bisection's width is 1e-6 in log a)
_RTOL = 1e-5
#: the record keys of the common checks (``verify.CHECK_KEYS`` is not imported: no cycle)
_AUDIT_KEYS = ("audit", "white_box_audit")


class InconsistentRecordError(ValueError):
    """A stored record whose verdict disagrees with its own numbers (or with the recomputed Holm verdicts)."""


def _close(a: float, b: float) -> bool:
    return (math.isinf(a) and math.isinf(b) and a == b) or abs(a - b) <= _RTOL * max(abs(a), abs(b)) + 1e-12


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and value in ("inf", "-inf", "nan"):
        return float(value)
    return None


def check_audit_record(audit: dict[str, Any], where: str) -> None:
    """Raise InconsistentRecordError if ``audit`` (an audit record) disagrees with its own numbers."""
    from dpsco.verification.auditing.clopper_pearson import epsilon_lower_bound
    from dpsco.verification.campaign.audits import black_box_p_value

    if not isinstance(audit, dict):
        raise InconsistentRecordError(f"{where}: the audit record is not a mapping")
    conf = _num(audit.get("confidence"))
    p = _num(audit.get("p_value"))
    claim = audit.get("claim") if isinstance(audit.get("claim"), dict) else {}
    eps_claim, delta = _num(claim.get("epsilon")), _num(claim.get("delta"))
    eps_lb = _num(audit.get("epsilon_lower"))
    if p is None or not 0.0 <= p <= 1.0 or conf is None or not 0.0 < conf < 1.0:
        raise InconsistentRecordError(f"{where}: p_value {audit.get('p_value')!r} and confidence "
                                      f"{audit.get('confidence')!r} must be numbers in [0, 1] and (0, 1)")
    # the audit's verdict at its own confidence; before the campaign's Holm step (a checkpoint) it is the p-value's
    own = audit.get("verdict_at_own_confidence", audit.get("verdict"))
    stated = own in ("refuted", "not refuted")
    if not stated:
        own = "refuted" if p <= (1.0 - conf) else "not refuted"
    d = audit.get("details") if isinstance(audit.get("details"), dict) else {}
    threshold = audit.get("estimator", "threshold") == "threshold" and {"numerator_count", "denominator_count",
                                                                         "n_test"} <= set(d)
    if threshold and eps_claim is not None and delta is not None:
        k_p, k_q, n = int(d["numerator_count"]), int(d["denominator_count"]), int(d["n_test"])
        want_eps = float(epsilon_lower_bound(k_p, n, k_q, n, delta, conf))
        want_p = black_box_p_value(audit)
        if eps_lb is None or not _close(eps_lb, want_eps):
            raise InconsistentRecordError(f"{where}: epsilon_lower {audit.get('epsilon_lower')!r} is not the bound of "
                                          f"its counts ({k_p}, {k_q} of {n} per side: {want_eps:.6g})")
        if not _close(p, want_p):
            raise InconsistentRecordError(f"{where}: p_value {p!r} is not that of its counts ({want_p:.6g})")
    c = audit.get("counts") if isinstance(audit.get("counts"), dict) else {}
    counted = {"numerator", "denominator", "n_numerator", "n_denominator"} <= set(c)
    if counted and delta is not None:   # a white-box audit's one event: the same Clopper–Pearson bound
        want_eps = float(epsilon_lower_bound(int(c["numerator"]), int(c["n_numerator"]), int(c["denominator"]),
                                             int(c["n_denominator"]), delta, conf))
        if eps_lb is None or not _close(eps_lb, want_eps):
            raise InconsistentRecordError(f"{where}: epsilon_lower {audit.get('epsilon_lower')!r} is not the bound of "
                                          f"its counts ({want_eps:.6g})")
    box = [_num(audit.get(k)) for k in ("alpha_upper", "beta_upper", "curve_at_alpha", "curve_at_beta")]
    if all(v is not None for v in box):   # a curve audit: refuted iff the box lies below the claimed curve
        if eps_claim is None and audit.get("epsilon_lower") is not None:
            raise InconsistentRecordError(f"{where}: a curve audit of a claim without ε reports epsilon_lower "
                                          f"{audit.get('epsilon_lower')!r}")
        a_hi, b_hi, f_a, f_b = box
        if (b_hi < f_a or a_hi < f_b) != (own == "refuted"):
            raise InconsistentRecordError(f"{where}: its Clopper–Pearson box ({a_hi:g}, {b_hi:g}) against the curve "
                                          f"({f_a:g}, {f_b:g}) contradicts its verdict {own!r}")
    basis = str(audit.get("verdict_basis", ""))
    # an assumption-free ε bound above the claimed ε refutes the claim, whatever route the audit took (a verdict
    # on μ alone is the one exception: its record says so in verdict_basis)
    if "mu_lower" not in basis and eps_lb is not None and eps_claim is not None:
        if (eps_lb > eps_claim) != (own == "refuted"):
            raise InconsistentRecordError(f"{where}: epsilon_lower {eps_lb:g} against the claimed ε {eps_claim:g} "
                                          f"contradicts its verdict {own!r}")
    if stated:
        level = 1.0 - conf
        if own == "refuted" and p > level * (1.0 + _RTOL):
            raise InconsistentRecordError(f"{where}: verdict 'refuted' at confidence {conf:g} with p_value {p:g}")
        if own == "not refuted" and p < level * (1.0 - _RTOL):
            raise InconsistentRecordError(f"{where}: verdict 'not refuted' at confidence {conf:g} with p_value {p:g}")


def _phase_audits(result: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    payload = result.get("result", result)
    for holder in (payload, payload.get("record", {}) if isinstance(payload, dict) else {}):
        if not isinstance(holder, dict):
            continue
        for key in _AUDIT_KEYS:
            if isinstance(holder.get(key), dict) and "p_value" in holder[key]:
                yield key, holder[key]
        for key, a in (holder.get("audits") or holder.get("suite_audits") or {}).items():
            if isinstance(a, dict):
                yield key, a


def check_phase_result(result: dict[str, Any], where: str) -> None:
    """Every audit record of one checkpointed phase result agrees with its numbers (InconsistentRecordError)."""
    for key, a in _phase_audits(result):
        check_audit_record(a, f"{where}: audit {key!r}")


def rederive_campaign(results: dict[str, Any], check_keys: tuple[str, ...]) -> tuple[str, list[str]]:
    """Re-derive every verdict of a results.json from its numbers; returns (verdict, failed entry names).
    ``check_keys``: the record keys of the campaign's common checks (``verify.CHECK_KEYS``) in a record of the
    shape before schema version 2; a record of the current shape (``campaign.results_record``) is read from its
    ``checks``, ``planted_bugs`` (one Holm family with the checks) and ``audits``.  Non-finite numbers must be
    floats (``results_record.decode_nonfinite``) or their old string spellings.

    Raises InconsistentRecordError naming the first record whose stored verdict, bound or p-value disagrees
    with the recomputation, or a top-level verdict / failed list that disagrees with the records."""
    from statsmodels.stats.multitest import multipletests

    from dpsco.verification.campaign.results_record import decode_nonfinite

    results = decode_nonfinite(results)  # {"value": null, "reason": "+infinity"} → inf (results_record)
    records = results.get("records")
    if not isinstance(records, list):
        raise InconsistentRecordError("results.json has no list of records")
    checks: list[tuple[str, str, dict[str, Any]]] = []
    audits: list[tuple[str, str, dict[str, Any]]] = []
    for rec in records:
        name = str(rec.get("name"))
        if isinstance(rec, dict) and isinstance(rec.get("checks"), dict):  # the record shape of schema version 2
            for group, family in (("checks", checks), ("planted_bugs", checks), ("audits", audits)):
                family += [(name, k, v) for k, v in (rec.get(group) or {}).items()   # not-run items: no verdict to test
                           if isinstance(v, dict) and v.get("verdict") not in ("skipped", "not applicable")]
            continue
        for key in check_keys:
            if isinstance(rec.get(key), dict):
                checks.append((name, key, rec[key]))
        for key, c in (rec.get("suite_checks") or {}).items():
            checks.append((name, key, c))
        for key in _AUDIT_KEYS:
            if isinstance(rec.get(key), dict):
                audits.append((name, key, rec[key]))
        for key, a in (rec.get("suite_audits") or {}).items():
            audits.append((name, key, a))
    for name, key, a in audits:
        check_audit_record(a, f"{name}: audit {key!r}")
    failed: set[str] = set()
    alpha = _num(results.get("alpha_campaign"))
    conf = _num(results.get("audit_confidence"))
    for family, level, bad in ((checks, alpha, "fail"), (audits, None if conf is None else 1.0 - conf, "refuted")):
        live = [(n, k, v) for n, k, v in family if _num(v.get("p_value")) is not None and v.get("verdict") is not None]
        if not live:
            continue
        if level is None or not 0.0 < level < 1.0:
            raise InconsistentRecordError("results.json lacks the campaign's alpha_campaign / audit_confidence")
        reject = multipletests([float(_num(v["p_value"])) for _, _, v in live], alpha=level, method="holm")[0]
        for (n, k, v), r in zip(live, reject):
            stored = v.get("verdict")
            if stored in ("skipped", "not applicable"):
                continue
            want = bad if r else ("pass" if bad == "fail" else "not refuted")
            if want == "pass" and uninformative_reason(v) is not None:
                want = UNINFORMATIVE  # checks.power: recomputed from the record's own numbers
            if want == "not refuted" and stated_reason(v) is not None:
                want = UNINFORMATIVE  # an audit its task states cannot refute at its inputs
            if stored != want:
                raise InconsistentRecordError(f"{n}: {k!r} says {stored!r} but its p-value "
                                              f"{v.get('p_value')!r} gives {want!r} (Holm over {len(live)})")
            if r:
                failed.add(n)
    for field, family in (("uninformative_checks", checks), ("uninformative_audits", audits)):
        stored_count = results.get(field)
        count = sum(1 for _, _, v in family if v.get("verdict") == UNINFORMATIVE)
        if stored_count is not None and stored_count != count:
            raise InconsistentRecordError(f"{field} says {stored_count!r}, the records {count}")
    verdict = "fail" if failed else "pass"
    if results.get("verdict") != verdict or sorted(results.get("failed") or []) != sorted(failed):
        raise InconsistentRecordError(f"the top-level verdict {results.get('verdict')!r} (failed: "
                                      f"{results.get('failed')!r}) disagrees with its records ({verdict!r}, failed: "
                                      f"{sorted(failed)})")
    return verdict, sorted(failed)
