"""report.md of a verification campaign: the summary tables, how to read them, every check and audit of every entry
with its power, skipped items with their reason, and the provenance."""

from __future__ import annotations

import json
from typing import Any, Mapping

from dpsco.verification.campaign.report_common import (SUITE_HEADER, WIDE_HEADER, audit_text, check_text, claim_text,
                                                       common_records, fmt, gradient_text, item_label, power_text,
                                                       reading_notes, suite_records, suite_row, wide_row)

__all__ = ["entry_lines", "format_markdown", "summary_lines"]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    return (["| " + " | ".join(_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
            + ["| " + " | ".join(_cell(c) for c in r) + " |" for r in rows])


def summary_lines(results: Mapping[str, Any]) -> list[str]:
    """The campaign's counts: checks, uninformative checks, audits that cannot refute."""
    out = [f"Checks: {results.get('checks')}, of which **{results.get('uninformative_checks', 0)} uninformative** "
           "(they passed, but at the runs used could not fail, or could not detect a violation of their bound by a "
           "factor of two)."]
    audits = sum(len(r.get("audits") or {}) for r in results.get("records", []))
    out.append(f"Audits: {audits}; {results.get('uninformative_audits', 0)} uninformative (their task states why "
               f"they cannot refute at their inputs); {results.get('audits_that_cannot_refute', 0)} whose runs cannot "
               "give a lower bound above their claim.")
    return out


def _why(item: Mapping[str, Any]) -> str:
    why = item.get("uninformative")
    return f" — {why}" if why and item.get("verdict") == "uninformative" else ""


def entry_lines(rec: Mapping[str, Any]) -> list[str]:
    """The section of one entry: claim, every audit and check with its power, what did not run and why."""
    power = rec.get("power") or {}
    md = [f"### {rec.get('title')} — {rec.get('paper')}, {rec.get('algorithm')}", "",
          f"* privacy: {rec.get('privacy_theorem')}; utility: {rec.get('utility_theorem') or '—'}",
          f"* claim: {claim_text(rec.get('claim'))}"
          + (f" ({rec['claim'].get('neighbouring')}; {rec['claim'].get('source')})"
             if isinstance(rec.get("claim"), Mapping) and rec["claim"].get("source") else "")]
    if rec.get("claim_not_stated"):
        md.append(f"  ({rec['claim_not_stated']})")
    if rec.get("options"):
        md.append(f"* options (utility overrides): `{json.dumps(rec['options'])}`")
    for key, a in (rec.get("audits") or {}).items():
        if not isinstance(a, Mapping):
            continue
        if a.get("verdict") in ("skipped", "not applicable"):
            md.append(f"* audit `{key}`: **{a['verdict']}** — {a.get('reason')}")
            continue
        runs = (power.get(key) or {}).get("runs_per_side")
        md.append(f"* audit `{key}` ({a.get('mode') or 'black-box'}; "
                  f"{'runs per side ' + ', '.join(map(str, runs)) if runs else 'runs per side not recorded'}; "
                  f"confidence {a.get('confidence')}, p = {fmt(a.get('p_value'))}): "
                  f"{audit_text(a, power.get(key), with_power=False)}: **{a.get('verdict')}**{_why(a)}; power: "
                  f"{power_text(power.get(key)) or 'not recorded'}")
    for group, title in (("checks", "check"), ("planted_bugs", "planted-bug check")):
        for key, c in (rec.get(group) or {}).items():
            if not isinstance(c, Mapping):
                continue
            if c.get("verdict") in ("skipped", "not applicable"):
                md.append(f"* {title} `{key}`: **{c['verdict']}** — {c.get('reason')}")
                continue
            what = c.get("statement") or c.get("theorem") or item_label(rec, key, c)
            runs = c.get("replicates")
            md.append(f"* {title} `{key}` — {what}: {check_text(c, power.get(key), with_power=False)}, "
                      f"p = {fmt(c.get('p_value'))}" + (f", {runs} runs" if runs else "")
                      + f": **{c.get('verdict')}**{_why(c)}; power: {power_text(power.get(key)) or 'not recorded'}")
            md += [f"  * beside it, {b.get('label')}: {fmt(b.get('bound'))} (ratio {fmt(b.get('ratio'))}, "
                   f"p = {fmt(b.get('p_value'))}{'; contradicted by the data' if b.get('exceeded') else ''})"
                   for b in c.get("reference_bounds") or [] if isinstance(b, Mapping)]
    if rec.get("planted_bugs_not_run"):
        md.append(f"* planted bugs: none run by this campaign — {rec['planted_bugs_not_run']}")
    g = (rec.get("provenance") or {}).get("gradient_evaluations")
    if isinstance(g, Mapping):
        md.append(f"* gradient evaluations: {gradient_text(g)}; paper: {g.get('paper_formula') or 'no claim'}")
    return md + [""]


def format_markdown(results: Mapping[str, Any]) -> str:
    """report.md (``results``: current record shape, non-finite numbers as floats)."""
    ds = results.get("dataset") or {}
    md = ["# dpsco verification report", "",
          f"Budget: **{results.get('budget')}**; seed entropy `{results.get('seed_entropy')}`; overall verdict: "
          f"**{results.get('verdict')}**.", "", *summary_lines(results), "",
          f"Real data: {ds.get('description')} (n = {ds.get('n')}, d = {ds.get('d')}); ε = {results.get('epsilon')}, "
          f"δ = 1/n² = {fmt(results.get('delta'))}, W = B(0, {results.get('radius')}).", ""]
    if common_records(results):
        md += _md_table(WIDE_HEADER, [wide_row(r) for r in common_records(results)])
    if suite_records(results):
        md += ["", "Entries verified by their own checks (their papers' settings, instances and real data):", ""]
        md += _md_table(SUITE_HEADER, [suite_row(r) for r in suite_records(results)])
    md += ["", "## How to read this", ""] + [f"* {n}" for n in reading_notes(results)] + ["", "## Per algorithm", ""]
    for rec in results.get("records", []):
        md += entry_lines(rec)
    md += ["## Provenance", "", "```json", json.dumps(results.get("provenance"), indent=2, allow_nan=True), "```", ""]
    return "\n".join(md)
