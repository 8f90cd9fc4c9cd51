"""What ``dpsco verify`` believes of stored work (issue: verdicts that hold against hostile input, items 6–8).

6. Two runs on the same ``--out``: the second is refused (exit 2) while the first holds the lock.
7. ``--resume`` keys checkpoints on a digest of the installed package's source, which changes with any edit.
8. ``--resume`` and ``--from`` re-derive every verdict from the stored numbers: a checkpoint edited to ε_lb = 50
   while still "not refuted" is refused, and so is a results.json whose top-level verdict or check verdicts
   disagree with its p-values; ``--from`` takes its exit code from the recomputed verdict.

Deterministic: one real quick campaign of one entry (fixed seed) and edits of its records.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

import dpsco.verification.campaign.verify as verify
from dpsco.verification.campaign.checkpoints import CheckpointError, load_checkpoints, save_checkpoint
from dpsco.verification.campaign.fileio import OutputError, exclusive_output
from dpsco.verification.campaign.rederive import InconsistentRecordError, check_audit_record, rederive_campaign
from dpsco.verification.cli.main import main

ONLY = "lr21.alg2"  # the cheapest entry with an audit, a population check and a rate


@pytest.fixture(scope="module")
def campaign(quick_campaign_copy: Path) -> Path:
    # `verify --quick --only lr21.alg2 --seed 20191208`, run once per test run; our own copy (tests/conftest.py)
    return quick_campaign_copy


@pytest.fixture()
def results(campaign: Path) -> dict[str, Any]:
    return json.loads((campaign / "results.json").read_text())


# ---- 6. one writer per --out --------------------------------------------------------------------------------


def test_a_second_run_on_the_same_out_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    def boom(*a: Any, **k: Any) -> Any:
        raise AssertionError("the second campaign started although --out is being written")

    monkeypatch.setattr(verify, "load_fair", boom)
    out = tmp_path / "report"
    with exclusive_output(out):   # the first run holds it
        with pytest.raises(OutputError, match="being written by another"):
            verify.run_verification(budget="quick", out=str(out), only=ONLY, quiet=True)
        assert main(["verify", "--quick", "--only", ONLY, "--out", str(out)]) == 2
        assert "being written by another" in capsys.readouterr().err
    with exclusive_output(out):   # released when the holder is done
        pass


# ---- 7. the resume key notices code changes -------------------------------------------------------------------


def test_the_campaign_key_is_a_digest_of_the_source(tmp_path: Path) -> None:
    key = verify._campaign_key("quick", 1, 0.95)
    assert key["source_sha256"] == verify.source_digest() and "git_commit" not in key
    assert os.path.isfile(os.path.join(verify.PACKAGE_ROOT, "verification", "campaign", "verify.py"))
    fake = tmp_path / "pkg"
    (fake / "reference").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "reference" / "a.py").write_text("x = 1\n")
    before = verify.source_digest(str(fake))
    (fake / "reference" / "a.py").write_text("x = 2\n")          # an uncommitted edit, outside git
    assert verify.source_digest(str(fake)) != before
    (fake / "reference" / "a.py").write_text("x = 1\n")
    assert verify.source_digest(str(fake)) == before


# ---- 8. stored verdicts are re-derived -----------------------------------------------------------------------


def _audit(**kw: Any) -> dict[str, Any]:
    rec = {"epsilon_lower": 0.2, "claim": {"epsilon": 1.0, "delta": 1e-6}, "p_value": 1.0, "confidence": 0.95,
           "verdict": "not refuted", "verdict_basis": "refuted iff epsilon_lower (assumption-free ...) > claim epsilon"}
    rec.update(kw)
    return rec


def test_an_edited_checkpoint_is_refused_on_resume(tmp_path: Path) -> None:
    key = verify._campaign_key("quick", 1, 0.95)
    out = tmp_path / "out"
    save_checkpoint(str(out), key, {"entry": ONLY, "phase": "audit", "record": {"audit": _audit()}, "checks": {}})
    assert load_checkpoints(str(out), key)       # consistent: reused
    save_checkpoint(str(out), key, {"entry": ONLY, "phase": "audit", "record": {"audit": _audit(epsilon_lower=50.0)},
                                    "checks": {}})
    with pytest.raises(CheckpointError, match="epsilon_lower 50"):
        load_checkpoints(str(out), key)


def test_the_real_campaign_rederives_to_its_own_verdict(results: dict[str, Any]) -> None:
    verdict, failed = rederive_campaign(results, verify.CHECK_KEYS)
    assert verdict == results["verdict"] and failed == results["failed"]


@pytest.mark.parametrize("edit, match", [
    (lambda r: r["records"][0]["audits"]["audit"].__setitem__("epsilon_lower", 50.0), "epsilon_lower"),
    (lambda r: r["records"][0]["checks"]["empirical"].__setitem__("p_value", 1e-12), "gives 'fail'"),
    (lambda r: r.__setitem__("verdict", "fail" if r["verdict"] == "pass" else "pass"), "top-level verdict"),
])
def test_an_edited_results_json_is_refused(results: dict[str, Any], edit: Any, match: str) -> None:
    edited = copy.deepcopy(results)
    edit(edited)
    with pytest.raises(InconsistentRecordError, match=match):
        rederive_campaign(edited, verify.CHECK_KEYS)


def test_from_takes_its_exit_code_from_the_records(results: dict[str, Any], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "edited.json"
    edited = copy.deepcopy(results)
    edited["records"][0]["audits"]["audit"]["epsilon_lower"] = 50.0         # "not refuted" kept: a lie
    src.write_text(json.dumps(edited))
    assert main(["verify", "--from", str(src), "--out", str(tmp_path / "r"), "--format", "md"]) == 2
    assert "epsilon_lower" in capsys.readouterr().err
    src.write_text(json.dumps(results))
    want = 0 if rederive_campaign(results, verify.CHECK_KEYS)[0] == "pass" else 1
    assert main(["verify", "--from", str(src), "--out", str(tmp_path / "r2"), "--format", "md"]) == want


def test_audit_record_rules() -> None:
    check_audit_record(_audit(), "ok")
    with pytest.raises(InconsistentRecordError, match="p_value"):
        check_audit_record(_audit(p_value=0.001, verdict="not refuted"), "x")   # p below its level, "not refuted"
    with pytest.raises(InconsistentRecordError, match="refuted"):
        check_audit_record(_audit(verdict="refuted"), "x")                      # refuted with p = 1
    with pytest.raises(InconsistentRecordError, match="confidence"):
        check_audit_record(_audit(confidence=None), "x")
    check_audit_record(_audit(verdict=None, p_value=0.01, epsilon_lower=2.0), "pre-Holm refuted")
    with pytest.raises(InconsistentRecordError):
        check_audit_record(_audit(verdict=None, p_value=1.0, epsilon_lower=2.0), "pre-Holm lie")
