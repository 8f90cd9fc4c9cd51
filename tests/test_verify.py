"""End to end: `dpsco verify --quick` on the built-in real data, and the README's catalogue table."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from verification.catalogue import CATALOGUE
from verification.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]


def test_verify_quick_end_to_end(tmp_path, capsys):
    out = tmp_path / "report"
    # False-failure budget: 5 audits at confidence 1 − 1e-7 (auditor guarantee, ≤ 5e-7 together) and the 10
    # bound checks sharing α = 5e-7 (Hoeffding, Bonferroni): ≤ 1e-6 for this test.
    status = main(["verify", "--quick", "--quiet", "--out", str(out), "--confidence", str(1 - 1e-7),
                   "--alpha", "5e-7"])
    printed = capsys.readouterr().out
    results = json.loads((out / "results.json").read_text())
    assert (out / "report.md").read_text().startswith("# dpsco verification report")
    names = [r["name"] for r in results["records"]]
    assert names == [e.name for e in CATALOGUE]  # all five algorithm variants
    for r in results["records"]:
        assert r["audit"]["verdict"] == "not refuted"  # correct implementations (budget above)
        assert r["claim"]["notion"] == "approx-DP"
        for check in ("empirical", "population"):
            assert r[check]["verdict"] in ("pass", "fail") and r[check]["bound"] > 0
    assert status == (0 if results["verdict"] == "pass" else 1)
    assert results["verdict"] == "pass", results["failed"]
    assert results["provenance"]["versions"]["numpy"] and results["seed_entropy"]
    for e in CATALOGUE:
        assert e.title in printed
    assert not list(out.glob(".tmp-*"))  # atomic writes leave no temporary files


def test_verify_rejects_unknown_only(tmp_path, capsys):
    assert main(["verify", "--quick", "--quiet", "--only", "no-such-algorithm", "--out", str(tmp_path)]) == 2
    assert "matches no catalogue entry" in capsys.readouterr().err


def test_help_documents_every_option():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    help_text = sub.choices["verify"].format_help()
    for opt in ("--quick", "--out", "--seed", "--only", "--quiet", "--confidence", "--alpha"):
        assert opt in help_text


def test_readme_catalogue_is_current():
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("## Catalogue"):]
    for e in CATALOGUE:
        func = e.run.__name__
        assert f"`{func}`" in table or f"optimal_rates.{func}" in table, func
        assert e.algorithm_ref.split(" (")[0] in table
    # the README's first lines carry the two commands
    head = readme.splitlines()[:8]
    assert any("dpsco verify" in line for line in head) and any("pytest" in line for line in head)
    ci = (ROOT / ".ci" / "run").read_text()
    test_cmd = re.search(r"pip install -e '\.\[test\]' && (python -m pytest -q)", readme)
    assert test_cmd and test_cmd.group(1) in ci and "pip install -e '.[test]'" in ci
