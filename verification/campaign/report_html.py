"""report.html of a verification campaign, rendered with Jinja2 from ``templates/report.html.j2`` (autoescaped):
the summary tables with every verdict beside its power, the figures (``report_plots``, embedded PNG scaled to the
page), every check and audit of every entry (skipped ones with their reason), and the provenance."""

from __future__ import annotations

import json
import os
from typing import Any, Mapping

from dpsco.verification.campaign.report_common import (audit_text, check_text, claim_text, common_records, fmt,
                                                       gradient_text, item_label, power_text, reading_notes,
                                                       suite_records, verdict_counts)

__all__ = ["TEMPLATE_DIR", "format_html", "render"]

TEMPLATE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")
_CHECK_COLUMNS = (("empirical", "excess empirical risk (real data) vs bound"),
                  ("population", "excess population risk (synthetic) vs bound"),
                  ("rate", "rate in n (theorem)"), ("stability", "uniform stability vs bound"))


def _environment() -> Any:
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATE_DIR), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def _audit_items(rec: Mapping[str, Any]) -> list[dict[str, str]]:
    power = rec.get("power") or {}
    out = []
    for key, a in (rec.get("audits") or {}).items():
        if not isinstance(a, Mapping):
            continue
        if a.get("verdict") in ("skipped", "not applicable"):
            out.append({"label": key.replace("_", " "), "text": str(a.get("reason")), "verdict": str(a["verdict"]),
                        "power": ""})
            continue
        label = ("white-box" if str(a.get("mode", "")).startswith("white") else "black-box") if key in (
            "audit", "white_box_audit") else key.replace("_", " ")
        text = audit_text(a, power.get(key), with_power=False).rsplit(" (", 1)[0]  # the verdict is its own badge
        if a.get("epsilon_true") is not None:
            text += f" (accountant's ε_true {fmt(a['epsilon_true'])})"
        out.append({"label": label, "text": text, "verdict": str(a.get("verdict")),
                    "power": power_text(power.get(key))})
    return out


def _check_cell(rec: Mapping[str, Any], key: str) -> dict[str, str] | None:
    c = (rec.get("checks") or {}).get(key)
    if not isinstance(c, Mapping):
        return None
    if c.get("verdict") in ("skipped", "not applicable"):
        return {"text": str(c.get("reason")), "verdict": str(c["verdict"]), "power": ""}
    text = check_text(c, None, with_power=False).rsplit(" (", 1)[0]
    return {"text": text, "verdict": str(c.get("verdict")), "power": power_text((rec.get("power") or {}).get(key))}


def _entry(rec: Mapping[str, Any]) -> dict[str, Any]:
    power = rec.get("power") or {}
    items = []
    for group, label in (("audits", "audit"), ("checks", "check"), ("planted_bugs", "planted-bug check")):
        for key, it in (rec.get(group) or {}).items():
            if not isinstance(it, Mapping):
                continue
            not_run = it.get("verdict") in ("skipped", "not applicable")
            if not_run:
                text = str(it.get("reason"))
            elif group == "audits":
                text = audit_text(it, power.get(key), with_power=False).rsplit(" (", 1)[0]
            else:
                text = check_text(it, power.get(key), with_power=False).rsplit(" (", 1)[0]
                if it.get("p_value") is not None:
                    text += f"; p = {fmt(it.get('p_value'))}"
            what = it.get("statement") or it.get("theorem") or (
                claim_text(it.get("claim")) if group == "audits" else item_label(rec, key, it))
            why = it.get("uninformative") if it.get("verdict") == "uninformative" else ""
            items.append({"key": key, "group": label, "what": str(what), "text": text,
                          "verdict": str(it.get("verdict")), "why": str(why or ""),
                          "power": "" if not_run else power_text(power.get(key))})
    g = (rec.get("provenance") or {}).get("gradient_evaluations")
    if isinstance(g, Mapping):
        items.append({"key": "gradient_evaluations", "group": "count", "what": str(g.get("paper_formula") or "—"),
                      "text": gradient_text(g), "verdict": "reported", "why": "", "power": ""})
    if rec.get("planted_bugs_not_run"):  # an empty planted_bugs says why (results_record), never "caught"
        items.append({"key": "planted_bugs", "group": "planted bugs", "what": "planted bugs run by this campaign",
                      "text": str(rec["planted_bugs_not_run"]), "verdict": "none run", "why": "", "power": ""})
    return {"title": rec.get("title"), "paper": rec.get("paper"), "algorithm": rec.get("algorithm"),
            "privacy": rec.get("privacy_theorem"), "utility": rec.get("utility_theorem") or "—",
            "claim": claim_text(rec.get("claim")), "rows": items}


def _context(results: Mapping[str, Any], figures: list[tuple[str, str, str]]) -> dict[str, Any]:
    ds = results.get("dataset") or {}
    records = [r for r in results.get("records", []) if isinstance(r, Mapping)]
    audits = sum(1 for r in records for a in (r.get("audits") or {}).values()
                 if isinstance(a, Mapping) and a.get("verdict") not in ("skipped", "not applicable"))
    stats = [("entries", len(records)), ("checks", results.get("checks")),
             ("uninformative checks", results.get("uninformative_checks", 0)),
             ("failed checks", sum(verdict_counts(r)["fail"] for r in records)), ("audits", audits),
             ("audits that cannot refute", results.get("audits_that_cannot_refute", 0)),
             ("refuted audits", sum(1 for r in records for a in (r.get("audits") or {}).values()
                                    if isinstance(a, Mapping) and a.get("verdict") == "refuted"))]
    common = [{"title": r.get("title"), "paper": r.get("paper"), "algorithm": r.get("algorithm"),
               "claim": claim_text(r.get("claim")), "audits": _audit_items(r),
               "checks": [_check_cell(r, k) for k, _ in _CHECK_COLUMNS],
               "gradients": gradient_text((r.get("provenance") or {}).get("gradient_evaluations"))}
              for r in common_records(results)]
    suites = []
    for r in suite_records(results):
        n = verdict_counts(r)
        total = n["pass"] + n["uninformative"] + n["fail"]
        suites.append({"title": r.get("title"), "paper": r.get("paper"), "algorithm": r.get("algorithm"),
                       "claim": claim_text(r.get("claim")), "audits": _audit_items(r),
                       "no_audit": r.get("claim_not_stated") or "",
                       "count": f"{n['pass']} of {total} pass" + (f"; {n['uninformative']} uninformative"
                                                                  if n["uninformative"] else "")
                                + (f"; {n['fail']} fail" if n["fail"] else ""),
                       "weak": [f"{k} ({c.get('verdict')})" for g in ("checks", "planted_bugs")
                                for k, c in (r.get(g) or {}).items()
                                if isinstance(c, Mapping) and c.get("verdict") not in ("pass", None)]})
    return {"budget": results.get("budget"), "seed_entropy": results.get("seed_entropy"),
            "verdict": str(results.get("verdict")),
            "dataset": f"{ds.get('description')} (n = {ds.get('n')}, d = {ds.get('d')}); ε = {results.get('epsilon')}, "
                       f"δ = 1/n² = {fmt(results.get('delta'))}, W = B(0, {results.get('radius')})",
            "stats": stats, "common": common, "check_headers": [h for _, h in _CHECK_COLUMNS], "suites": suites,
            "notes": reading_notes(results), "figures": figures, "entries": [_entry(r) for r in records],
            "provenance": json.dumps(results.get("provenance"), indent=2, allow_nan=True)}


def render(results: Mapping[str, Any], figures: list[tuple[str, str, str]],
           rate_figures: list[tuple[str, str, str]] | None = None) -> str:
    """report.html from ``results`` and already-rendered figures ((caption, alt, base64 PNG)): ``figures`` at the
    page's width, ``rate_figures`` in a grid that reflows with it."""
    context = _context(results, figures)
    context["rate_figures"] = rate_figures or []
    return _environment().get_template("report.html.j2").render(**context)


def format_html(results: Mapping[str, Any]) -> str:
    """report.html: self-contained (figures embedded as base64 PNG).  ``results``: current record shape,
    non-finite numbers as floats."""
    from dpsco.verification.campaign.report_plots import figures, rate_figures

    return render(results, figures(results), rate_figures(results))
