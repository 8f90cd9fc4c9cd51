"""What every report of a verification campaign says, as text: numbers, claims in their own notion, verdicts with
their power, the rows of the summary tables.  The writers (report_table, report_markdown, report_html,
report_latex) lay these out; nothing here recomputes a verdict.

Every function reads a results dictionary of the current record shape (``campaign.results_record``) whose
non-finite numbers are floats again (``results_record.decode_nonfinite``).
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping

__all__ = ["WIDE_HEADER", "SUITE_HEADER", "audit_text", "check_text", "claim_text", "common_records", "fmt",
           "gradient_text", "item_label", "power_text", "reading_notes", "suite_records", "suite_row", "wide_row"]

#: the columns of the full table of the common-phase entries (``--wide``, report.md, tables.tex)
WIDE_HEADER = ["algorithm", "claim", "audits: lower bound / claim (power)", "excess empirical (real) vs bound",
               "excess population (synthetic) vs bound", "rate (theorem)", "stability vs bound",
               "gradient evaluations"]
#: the columns of the table of the entries verified by their own suites
SUITE_HEADER = ["algorithm", "claim", "audits: lower bound / claim (power)", "checks", "not passed"]

_NOTION_SYMBOL = {"epsilon": "ε", "rho": "ρ", "mu": "μ"}


def fmt(x: Any, spec: str = ".3g") -> str:
    """A number for a table cell: None → "—", ±∞ → "∞" / "−∞", NaN → "NaN", strings as they are."""
    if x is None:
        return "—"
    if isinstance(x, bool):
        return str(x).lower()
    if isinstance(x, str):
        return x
    if isinstance(x, (int, float)):
        if isinstance(x, float) and math.isnan(x):
            return "NaN"
        if isinstance(x, float) and math.isinf(x):
            return "∞" if x > 0 else "−∞"
        return format(x, spec)
    return str(x)


def _real(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x)


def common_records(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [r for r in results.get("records", []) if r.get("kind") != "suite"]


def suite_records(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [r for r in results.get("records", []) if r.get("kind") == "suite"]


def claim_text(claim: Any, delta_default: float = 1e-6) -> str:
    """The claim in its own notion: "ρ = 0.5 (zCDP) ⇒ (ε, δ) = (5.76, 1e-06)", "μ = 1 (GDP) ⇒ ...",
    "(ε, δ) = (1, 2.47e-08)", "ε = 1 (pure DP)".  The (ε, δ) a ρ or μ implies is at the claim's δ when it states
    one, else at ``delta_default`` (said in the text)."""
    if not isinstance(claim, Mapping):
        return "no claim stated"
    from dpsco.reference.conversions import gdp_epsilon, zcdp_epsilon

    eps, delta = _real(claim.get("epsilon")), _real(claim.get("delta"))
    rho, mu = _real(claim.get("rho")), _real(claim.get("mu"))
    d = delta if delta is not None and 0.0 < delta < 1.0 else delta_default
    if rho is not None:
        implied = eps if eps is not None and delta else zcdp_epsilon(rho, d)
        return f"ρ = {fmt(rho)} (zCDP) ⇒ (ε, δ) = ({fmt(implied)}, {fmt(d)})"
    if mu is not None:
        implied = eps if eps is not None and delta else gdp_epsilon(mu, d)
        return f"μ = {fmt(mu)} (GDP) ⇒ (ε, δ) = ({fmt(implied)}, {fmt(d)})"
    if eps is not None and not delta:
        return f"ε = {fmt(eps)} (pure DP)"
    if eps is not None:
        return f"(ε, δ) = ({fmt(eps)}, {fmt(delta)})"
    return "no claim stated"


def power_text(p: Any) -> str:
    """A power figure (``results_record.check_power`` / ``audit_power``) in a few words."""
    if not isinstance(p, Mapping):
        return ""
    kind = p.get("kind")
    if kind == "audit":
        sym = _NOTION_SYMBOL.get(str(p.get("parameter")), "ε")
        parts = []
        if p.get("minimum_detectable") is not None:
            parts.append(f"detects true {sym} ≥ {fmt(p['minimum_detectable'])}")
        if p.get("ceiling") is not None:
            parts.append(f"can report ≤ {fmt(p['ceiling'])}" + ("" if p.get("can_refute") is not False
                                                                 else ": cannot refute"))
        return "; ".join(parts) or "not recorded"
    factor2 = (f"; P(fail) at a 2× violation ≥ {fmt(p['power_at_factor_2'])}"
               if isinstance(p.get("power_at_factor_2"), (int, float)) else "")
    if kind == "bound" and p.get("direction") == "lower":
        return f"detects shortfall ≥ {fmt(p.get('minimum_detectable_shortfall'))}" + factor2
    if kind == "bound" or kind == "stability":
        return f"detects excess ≥ {fmt(p.get('minimum_detectable_excess'))}" + factor2
    if kind == "rate" and p.get("direction") == "upper":
        return f"detects rate ≥ {fmt(p.get('minimum_detectable_rate'))}" + factor2
    if kind == "rate" and p.get("direction") == "lower":
        return f"detects success rate ≤ {fmt(p.get('maximum_detectable_rate'))}" + factor2
    if kind == "rate" and p.get("direction") == "two-sided":
        return (f"detects a deviation ≥ {fmt(p.get('minimum_detectable_deviation'))}; P(fail) at the planted "
                f"alternative {fmt(p.get('power_at_alternative'))}")
    if kind == "exact law":
        return f"detects μ ≥ {fmt(p.get('minimum_detectable_mu'))}" + factor2
    if kind == "measured noise" and p.get("miss_probability_scale") is not None:
        return f"misses Laplace scale ×{fmt(p.get('planted_scale'))} with prob. {fmt(p['miss_probability_scale'])}"
    if kind == "rate":
        lo, hi = (p.get("slope_interval") or [None, None])[:2]
        out = f"detects excess ≥ {fmt(p['minimum_detectable_excess'])}; " if p.get(
            "minimum_detectable_excess") is not None else ""
        return out + f"slope interval [{fmt(lo, '.2f')}, {fmt(hi, '.2f')}]"
    if kind == "measured noise":
        return f"misses σ/√2 with prob. {fmt(p.get('miss_probability_sigma_over_sqrt2'))}"
    if kind == "exact":
        return "exact"
    if kind == "not run":
        return ""
    return "not recorded"


def _verdict(v: Any) -> str:
    return str(v) if v is not None else "—"


def audit_text(a: Mapping[str, Any], p: Any, *, with_power: bool = True) -> str:
    """An audit's lower bound against its claim in the claim's notion, its verdict and (``with_power``) power."""
    if a.get("verdict") in ("skipped", "not applicable"):
        return f"{a['verdict']}: {a.get('reason', '')}"
    p = p if isinstance(p, Mapping) else {}
    sym = _NOTION_SYMBOL.get(str(p.get("parameter")), "ε")
    lb = p.get("lower_bound", a.get("epsilon_lower"))
    claim = p.get("claim")
    out = f"{sym}_lb {fmt(lb)} / {sym} {fmt(claim)} ({_verdict(a.get('verdict'))})"
    if a.get("epsilon_true") is not None:
        out += f", ε_true {fmt(a['epsilon_true'])}"
    if with_power and power_text(p):
        out += f" [{power_text(p)}]"
    return out


def check_text(c: Mapping[str, Any], p: Any, *, with_power: bool = True) -> str:
    """A check's estimate against its bound, its verdict and (``with_power``) power."""
    if c.get("verdict") in ("skipped", "not applicable"):
        return f"{c['verdict']}: {c.get('reason', '')}"
    if "slope" in c and isinstance(c.get("n_grid"), list):
        out = f"bound at every {c.get('variable') or 'n'}; slope {fmt(c.get('slope'), '.2f')} vs {fmt(c.get('exponent'))}"
        out += f" ({_verdict(c.get('verdict'))})"
        if with_power and power_text(p):
            out += f" [{power_text(p)}]"
        return out
    est = c.get("mean", c.get("estimate"))
    # the common bound checks test E[X] ≤ bound; a suite check's direction is in its statement
    sep = " ≤ " if "mean" in c or "per_probe_mean" in c else " vs bound "
    out = f"{fmt(est)}{sep}{fmt(c.get('bound'))}" if est is not None and c.get("bound") is not None else ""
    out = (out + " " if out else "") + f"({_verdict(c.get('verdict'))})"
    if with_power and power_text(p) not in ("", "exact", "not recorded"):
        out += f" [{power_text(p)}]"
    return out


def gradient_text(g: Any) -> str:
    """Gradient evaluations counted, beside the paper's formula ("= paper" when they agree)."""
    if not isinstance(g, Mapping) or _real(g.get("counted")) is None:
        return "—"
    counted = f"{int(g['counted']):,}"
    ratio, paper = _real(g.get("ratio")), _real(g.get("paper"))
    if ratio is None:
        return counted + (" (paper: no claim)" if not g.get("paper_formula") else "")
    if abs(ratio - 1.0) <= 1e-9:
        return f"{counted} (= paper)"
    return f"{counted} (paper's formula: {fmt(paper) if paper is not None else fmt(ratio) + ' of it'})"


def item_label(rec: Mapping[str, Any], key: str, item: Mapping[str, Any]) -> str:
    """A check's or audit's name in the paper's words: its theorem or statement with the entry's algorithm
    ("Thm 3.2 rate, Algorithm 1"), else the key."""
    theorem = item.get("theorem") if isinstance(item.get("theorem"), str) else None
    if theorem:
        head = theorem.split(":")[0].strip()
        kind = "rate" if "slope" in item else "bound"
        return f"{head} {kind}, {rec.get('algorithm')}"
    return key.replace("_", " ")


def _audits(rec: Mapping[str, Any]) -> Iterable[tuple[str, dict[str, Any], Any]]:
    power = rec.get("power") or {}
    for key, a in (rec.get("audits") or {}).items():
        if isinstance(a, Mapping):
            yield key, a, power.get(key)


def audits_cell(rec: Mapping[str, Any], *, with_power: bool = True, prefix: bool = True) -> str:
    """All audits of a record, white-box first, each as :func:`audit_text`."""
    items = sorted(_audits(rec), key=lambda t: 0 if str(t[1].get("mode", "")).startswith("white") else 1)
    parts = []
    for key, a, p in items:
        label = ("white-box " if str(a.get("mode", "")).startswith("white") else
                 "black-box " if key == "audit" else f"{key}: ") if prefix else ""
        parts.append(label + audit_text(a, p, with_power=with_power))
    return "; ".join(parts) or "no audit"


def wide_row(rec: Mapping[str, Any]) -> list[str]:
    """The full row of a common-phase entry (:data:`WIDE_HEADER`)."""
    checks, power = rec.get("checks") or {}, rec.get("power") or {}

    def cell(key: str) -> str:
        c = checks.get(key)
        return "—" if not isinstance(c, Mapping) else check_text(c, power.get(key))

    return [str(rec.get("title")), claim_text(rec.get("claim")), audits_cell(rec), cell("empirical"),
            cell("population") if "population" in checks else "n/a (no population claim)", cell("rate"),
            cell("stability"), gradient_text((rec.get("provenance") or {}).get("gradient_evaluations"))]


def verdict_counts(rec: Mapping[str, Any]) -> dict[str, int]:
    """How many checks (planted-bug checks included) pass, are uninformative, fail, did not run."""
    out = {"pass": 0, "uninformative": 0, "fail": 0, "not run": 0}
    for group in ("checks", "planted_bugs"):
        for c in (rec.get(group) or {}).values():
            v = c.get("verdict") if isinstance(c, Mapping) else None
            out["not run" if v in ("skipped", "not applicable") else v if v in out else "not run"] += 1
    return out


def suite_row(rec: Mapping[str, Any]) -> list[str]:
    """The row of a suite entry (:data:`SUITE_HEADER`)."""
    n = verdict_counts(rec)
    total = n["pass"] + n["uninformative"] + n["fail"]
    count = f"{n['pass']}/{total} pass" + (f", {n['uninformative']} uninformative" if n["uninformative"] else "")
    bad = [k for g in ("checks", "planted_bugs") for k, c in (rec.get(g) or {}).items()
           if isinstance(c, Mapping) and c.get("verdict") in ("fail", "uninformative", "skipped", "not applicable")]
    return [str(rec.get("title")), claim_text(rec.get("claim")), audits_cell(rec), count, ", ".join(bad) or "—"]


def reading_notes(results: Mapping[str, Any]) -> list[str]:
    """How to read the report (one paragraph each)."""
    return [
        f"Audits: black-box threshold audits of the released output and, for noisy-gradient methods, white-box "
        f"audits of every noisy step (with the accountant's ε_true beside ε_lb); each lower bound at confidence "
        f"{results.get('audit_confidence')}, in the claim's own notion (ε, ρ for zCDP claims, μ for GDP claims). "
        "Refuted is decided for all audits of the run together by Holm's procedure. A low ε_lb is not evidence of "
        "privacy: auditing the final iterate of a long run is weak (Nasr et al. 2021).",
        "Power of an audit: 'can report ≤ X' is the largest lower bound its runs can give (every run of one side in "
        "the event, none of the other's): below the claim, the audit cannot refute anything. 'detects true ε ≥ Y' is "
        "its planning figure: the smallest true ε of a Gaussian mechanism whose expected ε_lb exceeds the claim.",
        f"Checks: one-sided tests of hypotheses implied by the theorems; the campaign's {results.get('checks')} checks "
        f"are corrected together by Holm's procedure at family-wise α = {results.get('alpha_campaign')}. Power of a "
        "check: 'detects excess ≥ Z' is the smallest true excess over the bound it fails on with probability "
        "≥ 1 − α; rate checks show the fitted log–log slope's interval beside the theorem's exponent.",
        "Uninformative: a check that passed but, at the runs used, could not fail or could not detect a violation "
        "of its bound by a factor of two; its pass is no evidence (each says why). They are counted apart.",
        "This report and results.json are verification records, not private releases: excess risks, oracle values "
        "and audit statistics are computed from the data without privacy.",
    ]
