"""The reports of a verification campaign (issue 28): every verdict beside its power, the claim in its own notion,
skipped items with their reason, a terminal table of at most 100 columns (``--wide`` for the full one), report.html
from a Jinja2 template (autoescaped) whose audit chart covers every audit, and a tables.tex in pure ASCII that
pdflatex compiles.

Deterministic: the results are built by hand below (records of the shape before schema version 2, reshaped by
``results_record.shape_record`` as ``dpsco verify`` does), so no assertion has a false-failure probability.
"""

from __future__ import annotations

import copy
import math
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from dpsco.verification.campaign import report_html, report_plots
from dpsco.verification.campaign.report_common import claim_text, gradient_text
from dpsco.verification.campaign.report_latex import LATEX_SYMBOLS, format_latex, tex
from dpsco.verification.campaign.report_markdown import format_markdown
from dpsco.verification.campaign.report_table import MAX_WIDTH, format_table
from dpsco.verification.campaign.results_record import decode_nonfinite, encode_nonfinite, shape_record
from dpsco.verification.campaign.verify import CHECK_KEYS

CLAIM = {"notion": "approx-DP", "epsilon": 1.0, "delta": 2.5e-8, "neighbouring": "replace-one",
         "source": "Theorem 3.1 (Algorithm 1)"}


def _bound(mean: float, bound: float, det: float, verdict: str = "pass") -> dict[str, Any]:
    return {"mean": mean, "lcb": mean - 0.1, "ucb": mean + 0.1, "bound": bound, "ratio": mean / bound,
            "replicates": 20, "alpha": 1e-3, "value_range": [0.0, 4.0], "detectable_excess": det,
            "verdict": verdict, "p_value": 1.0, "method": "Hoeffding", "reference_bounds": []}


def _old_common(name: str, title: str, *, audit: bool = True) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "name": name, "title": title, "paper": "Bassily et al. (2019)", "algorithm": "Algorithm 1",
        "privacy_theorem": "Thm 3.1", "utility_theorem": "Thm 3.2", "options": {}, "claim": dict(CLAIM),
        "empirical": {**_bound(0.02, 0.08, 1.05, "uninformative"),
                      "uninformative": "cannot detect a mean of twice the bound"},
        "population_not_applicable": "the tilted risk is not an average of a per-sample loss",
        "rate": {"theorem": "Thm 3.2 (Lemma 3.3): E[excess] ≤ C·n^-0.5", "exponent": -0.5, "kind": "upper",
                 "n_grid": [250, 500, 1000], "mean_excess": [0.006, 0.005, 0.004], "replicates": 20,
                 "slope": -0.34, "intercept": -3.2, "ci_low": -0.41, "ci_high": -0.27, "ci_level": 0.95,
                 "p_value": 1.0, "detectable_excess": 0.1, "variable": "n", "bounds": [0.63, 0.45, 0.32],
                 "value_range": [0.0, 2.0], "detectable_bound_excess": 0.92, "verdict": "pass",
                 "extra": {"bounds": [0.63, 0.45, 0.32], "quantity": "population"}},
        "gradient_evaluations": {"counted": 1347525, "paper": 2.9e15, "ratio": 4.66e-10,
                                 "paper_formula": "n²·T (Sec. 5)"},
        "phase_seconds": {"empirical": 1.0}, "wall_seconds": 1.0}
    if audit:
        rec["audit"] = {"epsilon_lower": 0.0, "confidence": 0.95, "claim": dict(CLAIM), "verdict": "not refuted",
                        "p_value": 1.0, "minimum_detectable_epsilon": 6.9, "details": {"n_test": 100}}
    else:
        rec["audit_not_run"] = "no audit samples in the quick budget: a stochastic inner step"
    return rec


def _old_suite() -> dict[str, Any]:
    return {
        "name": "muabg23.adaptive_gd", "title": "Adaptive noisy GD <fully adaptive>", "paper": "Menart et al. (2023)",
        "algorithm": "Algorithm 3", "privacy_theorem": "Theorem 3 (ρ-zCDP)", "utility_theorem": "Theorem 4 (κ = 2)",
        "options": {}, "suite": {"description": "exact zCDP", "tasks": ["privacy", "rate"]},
        "suite_records": {"rate": {"figure": {"title": "Theorem 4: mean vs n", "xlabel": "n",
                                              "ylabel": "adaptive_theorem_4_rate", "x": [200, 800, 3200],
                                              "series": [{"label": "mean", "y": [1e-2, 1e-3, 1e-4]}]}}},
        "suite_checks": {
            "adaptive_theorem_4_rate": {"theorem": "Theorem 4", "statement": "E[excess] ≤ ĉ·rate(n)", "slope": -1.5,
                                        "n_grid": [200, 800, 3200], "mean_excess": [1e-2, 1e-3, 1e-4],
                                        "exponent": -1.0, "ci_low": -1.6, "ci_high": -1.4, "p_value": 1.0,
                                        "verdict": "pass", "bounds": [0.02, 0.005, 0.001],
                                        "detectable_bound_excess": 0.65, "kind": "upper", "replicates": 40},
            "adaptive_exact": {"statement": "exact cost ≤ ρ", "estimate": 0.47, "bound": 0.5, "p_value": 1.0,
                               "verdict": "pass", "method": "exact"},
            "adaptive_under_noise_caught": {"statement": "the planted σ/√2 copy is refuted", "estimate": 1.0,
                                            "bound": 0.5, "p_value": 1.0, "verdict": "pass"}},
        "suite_audits": {
            "adaptive_worst_pair_curve": {"verdict": "not refuted", "claim": {"notion": "zCDP", "rho": 0.5},
                                          "confidence": 0.95, "n_test": 1300, "epsilon_lower": None,
                                          "mu_lower": 0.67, "rho_lower": 0.118, "p_value": 1.0},
            "adaptive_white_box": {"verdict": "not refuted", "mode": "white-box", "claim": {"notion": "GDP", "mu": 1.0},
                                   "confidence": 0.95, "n_test": 2000, "epsilon_lower": None, "mu_lower": 0.84,
                                   "p_value": 1.0}},
        "phase_seconds": {"privacy": 1.0}, "wall_seconds": 1.0}


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    old = [_old_common("bftt19.nsgd", "A_NSGD"), _old_common("alt24.onepass_dp_sgd_glm", "OnePass " * 12, audit=False),
           _old_suite()]
    res = {"schema_version": 2, "budget": "quick", "seed_entropy": "1", "epsilon": 1.0, "delta": 2.5e-8,
           "radius": 2.0, "checks": 7, "uninformative_checks": 2, "uninformative_audits": 0,
           "audits_that_cannot_refute": 0, "alpha_campaign": 1e-3, "audit_confidence": 0.95,
           "dataset": {"description": "Fair (1978)", "n": 6366, "d": 9},
           "records": [shape_record(r, CHECK_KEYS) for r in old], "verdict": "pass", "failed": [],
           "provenance": {"seed": 1}}
    return decode_nonfinite(encode_nonfinite(res))


def test_terminal_table_fits_in_100_columns_and_wide_gives_everything(results: dict[str, Any]) -> None:
    table = format_table(results)
    assert max(len(line) for line in table.splitlines()) <= MAX_WIDTH == 100
    assert "alt24.onepass_dp_sgd_glm" in table  # the longest entry name is never cut
    assert "det≥6.9" in table  # the audit's power beside its lower bound
    assert "…" not in table.splitlines()[0]  # the header is never cut
    wide = format_table(results, wide=True)
    assert max(len(line) for line in wide.splitlines()) > 100  # the full table: every number, however wide
    assert "detects excess ≥ 1.05" in wide and "detects true ε ≥ 6.9" in wide
    assert format_table(results["records"]) == format_table({"records": results["records"]})


def test_every_verdict_is_shown_with_its_power(results: dict[str, Any]) -> None:
    md = format_markdown(results)
    assert "detects excess ≥ 1.05" in md  # a bound check: its minimum detectable excess
    assert "slope -0.34 vs -0.5 (pass)" in md and "detects excess ≥ 0.92; slope interval [-0.41, -0.27]" in md
    assert "detects true ε ≥ 6.9" in md  # an audit's minimum detectable ε
    # its ceiling at 100 test runs per side, confidence 0.95, δ = 2.5e-8: P_lo = 0.025^(1/100) = 0.963783,
    # Q_hi = 1 − P_lo = 0.036217, ε = log((P_lo − δ)/Q_hi) = log(26.611) = 3.2813 (by hand)
    assert "can report ≤ 3.28" in md
    assert "**uninformative** — cannot detect a mean of twice the bound" in md
    assert "Checks: 7, of which **2 uninformative**" in md


def test_skipped_items_show_their_reason(results: dict[str, Any]) -> None:
    md = format_markdown(results)
    assert "audit `audit`: **skipped** — no audit samples in the quick budget: a stochastic inner step" in md
    assert "check `population`: **not applicable** — the tilted risk is not an average" in md
    html = report_html.render(results, [])
    assert "no audit samples in the quick budget" in html and "not an average of a per-sample loss" in html


def test_claims_in_their_own_notion() -> None:
    # ρ = 0.5 at δ = 1e-6: ε = ρ + 2√(ρ log(1/δ)) = 0.5 + 2√(0.5 · 13.8155) = 0.5 + 5.2565 = 5.7565 (Bun & Steinke
    # 2016, Prop. 1.3, by hand)
    assert claim_text({"notion": "zCDP", "rho": 0.5}) == "ρ = 0.5 (zCDP) ⇒ (ε, δ) = (5.76, 1e-06)"
    assert claim_text({"notion": "zCDP", "rho": 0.5, "delta": 1e-5}).endswith("(5.3, 1e-05)")  # 0.5 + 2√(0.5·11.513)
    assert claim_text({"notion": "GDP", "mu": 1.0}).startswith("μ = 1 (GDP) ⇒ (ε, δ) = (")
    assert claim_text(CLAIM) == "(ε, δ) = (1, 2.5e-08)"
    assert claim_text({"epsilon": 1.0, "delta": 0.0}) == "ε = 1 (pure DP)"


def test_table_cells_are_readable() -> None:
    g = {"counted": 1347525, "paper": 2.9e15, "ratio": 4.66e-10, "paper_formula": "n²·T"}
    assert gradient_text(g) == "1,347,525 (paper's formula: 2.9e+15)"  # not "4.66e-10× paper"
    assert gradient_text({"counted": 89835, "paper": 89835.0, "ratio": 1.0}) == "89,835 (= paper)"


def test_html_is_a_jinja2_template_and_escapes(results: dict[str, Any]) -> None:
    assert (Path(report_html.TEMPLATE_DIR) / "report.html.j2").is_file()
    html = report_html.render(results, [("a caption", "alt", "AAAA")])
    assert "Adaptive noisy GD &lt;fully adaptive&gt;" in html and "<fully adaptive>" not in html
    assert 'name="viewport"' in html and "max-width: 1340px" in html and "width: 100%" in html  # responsive
    assert "ρ = 0.5 (zCDP) ⇒ (ε, δ) = (5.76, 1e-06)" in html
    assert "1,347,525 (paper&#39;s formula: 2.9e+15)" in html


def test_the_audit_chart_covers_every_audit(results: dict[str, Any]) -> None:
    rows = report_plots._audit_rows(results["records"])
    ran = [(r["name"], k) for r in results["records"] for k, a in r["audits"].items() if a["verdict"] != "skipped"]
    assert len(rows) == len(ran) == 3  # the suite's two audits (ρ and μ claims) and the common entry's
    assert {row["param"] for row in rows} == {"ε", "ρ", "μ"}
    assert all(row["lb"] >= 0.0 for row in rows)


def test_figures_render_with_paper_labels(results: dict[str, Any]) -> None:
    figs = report_plots.figures(results)
    captions = " ".join(c for c, _, _ in figs)
    assert "Privacy audits of every entry" in captions
    assert "Adaptive noisy GD <fully adaptive>: Theorem 4 rate" not in captions  # a suite figure: its own title
    rates = report_plots.rate_figures(results)
    assert [c for c, _, _ in rates] == ["A_NSGD: Thm 3.2 (Lemma 3.3) rate, Algorithm 1",
                                        f"{'OnePass ' * 12}: Thm 3.2 (Lemma 3.3) rate, Algorithm 1"]
    assert all(png for _, _, png in figs + rates)
    html = report_html.render(results, figs, rates)
    assert html.count("data:image/png;base64,") == len(figs) + len(rates) and 'id="rates"' in html


def test_latex_is_ascii_and_maps_every_symbol(results: dict[str, Any]) -> None:
    text = format_latex(results)
    assert all(ord(ch) < 128 for ch in text)
    assert r"$\rho$" in text  # the suite entry's ρ-zCDP claim
    sample = "ρ κ μ ≥ ≤ ∞ ⊥ – — … ε δ σ̂ ĉ × · ⇒ √ ℓ"
    mapped = tex(sample)
    assert all(ord(ch) < 128 for ch in mapped)
    for sym, cmd in ((r"ρ", r"\rho"), ("κ", r"\kappa"), ("μ", r"\mu"), ("≥", r"\geq"), ("∞", r"\infty"),
                     ("⊥", r"\perp")):
        assert cmd in tex(sym), sym
    assert tex("–") == "--" and tex("a_b & 50%") == r"a\_b \& 50\%"
    assert all(ord(ch) < 128 for v in LATEX_SYMBOLS.values() for ch in v)
    assert all(ord(ch) < 128 for ch in tex("ŋ ☃ é"))  # unknown symbols: never left as they are


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not on PATH (the ASCII check above runs)")
def test_tables_tex_compiles_with_pdflatex(results: dict[str, Any], tmp_path: Path) -> None:
    noisy = copy.deepcopy(results)
    noisy["records"][0]["title"] = "A_NSGD ρ κ μ ≥ ∞ ⊥ – … 50% & #1 {x}_y ^z ~"
    noisy["records"][0]["checks"]["empirical"]["mean"] = math.inf
    (tmp_path / "tables.tex").write_text(format_latex(noisy), encoding="ascii")
    (tmp_path / "doc.tex").write_text("\\documentclass{article}\n\\usepackage{array}\n\\begin{document}\n"
                                      "\\input{tables.tex}\n\\end{document}\n", encoding="ascii")
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 0
