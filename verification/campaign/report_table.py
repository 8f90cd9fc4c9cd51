"""The terminal summary of a verification campaign: at most :data:`MAX_WIDTH` columns by default, the full tables
with ``wide=True`` (``dpsco verify --wide``)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from dpsco.verification.campaign.report_common import (SUITE_HEADER, WIDE_HEADER, common_records, fmt,
                                                       suite_records, suite_row, verdict_counts, wide_row)

__all__ = ["COMPACT_HEADER", "MAX_WIDTH", "compact_row", "format_table"]

#: the widest line of the default table
MAX_WIDTH = 100
COMPACT_HEADER = ["entry", "audit: lower bound / claim, power", "ok/uninf/fail", "not passed", "verdict"]
#: the widest each compact column may be (the last-but-one takes what is left)
_WIDTHS = [24, 33, 13, 15, 7]  # + 4 gaps of 2 = 100; 24: the longest entry name  # + 4 gaps of 2 = 100


def _strongest_audit(rec: Mapping[str, Any]) -> str:
    audits = [(k, a) for k, a in (rec.get("audits") or {}).items() if isinstance(a, Mapping)]
    ran = [(k, a) for k, a in audits if a.get("verdict") not in ("skipped", "not applicable")]
    if not ran:
        return "skipped" if audits else "no audit"
    power = rec.get("power") or {}
    # the refuted one first, then white-box, then the largest lower bound relative to its claim
    def rank(item: tuple[str, Mapping[str, Any]]) -> tuple[int, int, float]:
        k, a = item
        p = power.get(k) or {}
        lb, claim = p.get("lower_bound"), p.get("claim")
        rel = lb / claim if isinstance(lb, (int, float)) and isinstance(claim, (int, float)) and claim else 0.0
        return (a.get("verdict") != "refuted", not str(a.get("mode", "")).startswith("white"), -rel)

    k, a = min(ran, key=rank)
    p = power.get(k) or {}
    sym = {"rho": "ρ", "mu": "μ"}.get(str(p.get("parameter")), "ε")
    kind = "wb " if str(a.get("mode", "")).startswith("white") else "bb " if k == "audit" else ""
    text = f"{kind}{sym}_lb {fmt(p.get('lower_bound'))} / {fmt(p.get('claim'))}"
    text += {"refuted": " REFUTED", "uninformative": " uninf."}.get(str(a.get("verdict")), "")
    if p.get("can_refute") is False:
        text += " !power"
    elif p.get("minimum_detectable") is not None:
        text += f" det≥{fmt(p['minimum_detectable'], '.2g')}"
    return text + (f" +{len(ran) - 1}" if len(ran) > 1 else "")


def compact_row(rec: Mapping[str, Any]) -> list[str]:
    """One entry in :data:`COMPACT_HEADER`'s columns."""
    n = verdict_counts(rec)
    weak = [k for g in ("checks", "planted_bugs") for k, c in (rec.get(g) or {}).items()
            if isinstance(c, Mapping) and c.get("verdict") in ("fail", "uninformative")]
    failed = n["fail"] or any(isinstance(a, Mapping) and a.get("verdict") == "refuted"
                              for a in (rec.get("audits") or {}).values())
    return [str(rec.get("name")), _strongest_audit(rec), f"{n['pass']}/{n['uninformative']}/{n['fail']}",
            ", ".join(weak) or "—", "FAIL" if failed else "pass"]


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def _table(header: Sequence[str], rows: list[list[str]], widths: Sequence[int] | None = None) -> str:
    rows = [list(header)] + [list(r) for r in rows]
    if widths is not None:
        rows = [[_clip(c, w) for c, w in zip(r, widths)] for r in rows]
    cols = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, cols)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in cols))
    return "\n".join(lines)


def format_table(results: Any, *, wide: bool = False) -> str:
    """The summary for the terminal.  ``results``: a results dictionary (current shape, non-finite numbers as
    floats) or its list of records.  Default: one line per entry, no line over :data:`MAX_WIDTH` characters
    (cells cut with "…"; report.md has every number), then the campaign's counts.  ``wide``: the full tables of
    report.md (common-phase entries, then suite entries), as wide as their cells."""
    res: Mapping[str, Any] = {"records": results} if isinstance(results, list) else results
    if wide:
        parts = []
        if common_records(res):
            parts.append(_table(WIDE_HEADER, [wide_row(r) for r in common_records(res)]))
        if suite_records(res):
            parts.append(_table(SUITE_HEADER, [suite_row(r) for r in suite_records(res)]))
        return "\n\n".join(parts)
    header = list(COMPACT_HEADER)
    widths = list(_WIDTHS)
    table = _table(header, [compact_row(r) for r in res.get("records", [])], widths)
    lines = table.splitlines()
    lines = [_clip(line, MAX_WIDTH) for line in lines]  # the widths above already keep every line within it
    notes = ["", "audit: the strongest of the entry's audits (wb white-box, bb black-box; +n: n more), det≥: the "
                 "smallest true value it detects, !power: its runs cannot refute the claim. ok/uninf/fail: checks "
                 "passed / passed without the power to fail (uninformative) / failed."]
    if isinstance(res.get("checks"), int):
        notes.append(f"{res['checks']} checks, {res.get('uninformative_checks', 0)} uninformative; "
                     f"{res.get('audits_that_cannot_refute', 0)} audits cannot refute at their runs. "
                     "Full table: --wide; every number: report.md.")
    return "\n".join(lines + [_wrap(n) for n in notes])


def _wrap(text: str, width: int = MAX_WIDTH) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width)) if text else ""
