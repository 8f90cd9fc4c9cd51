"""`dpsco verify` error handling and atomic output: --out checked before computing, malformed --from files
refused with one line, the report directory written as one set.

One real (quick, one-entry) campaign provides a genuine results.json; every other test either regenerates
reports from it (``--from``, no computation) or replaces the campaign's expensive step by a stub that
returns its records.  No assertion depends on a verdict, so there is no false-failure budget.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

import dpsco.verification.campaign.fileio as fileio
import dpsco.verification.campaign.report as report
import dpsco.verification.campaign.verify as verify
from dpsco.verification.cli.main import main

ONLY = "lr21.alg2"  # the cheapest entry with an audit, a population check and a rate (about 10 s in quick)


def _one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dpsco verify: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory, quick_campaign_lr21_alg2: tuple[int, Path]) -> Path:
    """A real quick campaign of one entry, all three report formats (run once per test run: tests/conftest.py;
    this module works on its own copy)."""
    status, src = quick_campaign_lr21_alg2
    assert src.name == "report" and ONLY in json.loads((src / "results.json").read_text())["records"][0]["name"]
    out = tmp_path_factory.mktemp("campaign") / "report"
    shutil.copytree(src, out)
    assert status in (0, 1)  # the verdict does not matter here
    assert sorted(os.listdir(out)) == ["report.html", "report.md", "results.json", "tables.tex"]
    assert not [e for e in os.listdir(src.parent) if e.startswith(".tmp-")]  # no staging directory left
    return out


@pytest.fixture(scope="module")
def full_results(campaign: Path) -> dict[str, Any]:
    """The campaign's results plus records covering every optional branch the reports read (record shape of
    results_record): the three sweep checks (as A_NSGD has), a white-box audit, a record with no audit, no
    population claim and no rate (skipped items with their reasons), and a suite entry with a figure."""
    from dpsco.verification.campaign.results_record import encode_nonfinite, record_power
    from dpsco.verification.checks.power import uninformative_reason

    res = json.loads((campaign / "results.json").read_text())
    base = res["records"][0]
    checks = base["checks"]
    for key in ("empirical", "population"):  # a printed-constant bound beside the check's own (as ObjP has)
        checks[key]["reference_bounds"] = [{"label": "printed constant", "bound": 2.0, "ratio": 0.01,
                                            "p_value": 1.0, "exceeded": False}]
    base["audits"]["white_box_audit"] = {  # a white-box audit record (as the noisy-gradient entries have)
        "mode": "white-box", "design": "one-sided", "epsilon_lower": 0.4, "epsilon_true": 0.89, "verdict": "not refuted",
        "confidence": 0.95, "runs_per_side": 1000, "p_value": 1.0, "claim": {"epsilon": 1.0, "delta": 1e-6}}
    sweeps = copy.deepcopy(base)
    sweeps["name"], sweeps["title"] = "sweeps", "With sweeps"
    for key, kind in (("tight_rate", "tight"), ("rate_d", "upper"), ("rate_eps", "lower")):
        sweeps["checks"][key] = {**copy.deepcopy(checks["rate"]), "kind": kind}
    sweeps["checks"]["rate"]["detectable_bound_excess"] = None
    bare = copy.deepcopy(base)
    bare["name"], bare["title"] = "bare", "Bare"
    bare["audits"] = {"audit": {"verdict": "skipped", "reason": "no audit samples"}}
    bare["checks"] = {"empirical": bare["checks"]["empirical"],
                      "population": {"verdict": "not applicable", "reason": "not an average"},
                      "rate": {"verdict": "not applicable", "reason": "no exponent"}}
    bare["checks"]["empirical"].pop("oracle", None)
    bare["checks"]["empirical"].pop("reference_bounds", None)
    bare["provenance"]["gradient_evaluations"]["ratio"] = None
    suite = {key: base[key] for key in ("name", "title", "paper", "algorithm", "privacy_theorem", "options")}
    suite.update({  # an entry verified by its own suite (CatalogueEntry.suite), with a figure to plot
        "name": "suite", "title": "A suite entry", "kind": "suite",
        "claim": {"notion": "zCDP", "rho": 0.5, "neighbouring": "replace-one", "source": "a theorem"},
        "audits": {"pair": {"epsilon_lower": None, "rho_lower": 0.1, "mu_lower": 0.45,
                            "claim": {"notion": "zCDP", "rho": 0.5}, "p_value": 1.0, "n_test": 500,
                            "confidence": 0.95, "verdict": "not refuted"}},
        "checks": {"bound": {"name": "b", "statement": "E[excess] ≤ bound", "estimate": 0.1, "bound": 1.0,
                             "p_value": 1.0, "verdict": "pass"}},
        "planted_bugs": {"caught": {"name": "c", "statement": "the planted bug is caught", "estimate": 2.0,
                                    "bound": 1.0, "p_value": 1.0, "verdict": "pass"}},
        "provenance": {"suite": {"description": "own checks", "tasks": ["audit", "bounds"]},
                       "task_records": {"bounds": {"figure": {"title": "excess against n", "x": [100, 200],
                                                              "xlabel": "n", "ylabel": "excess",
                                                              "series": [{"label": "mean", "y": [1.0, 0.5]}]}}}}})
    res["records"] = [base, sweeps, bare, suite]
    # an uninformative sweep and stability check (as A_NSGD's tight rate and A_ProxGD's stability are)
    sweeps["checks"]["tight_rate"]["uninformative_at_inputs"] = "its slope is -1/2 for every release independent of n"
    sweeps["checks"]["stability"]["largest_difference"] = sweeps["checks"]["stability"]["bound"]
    for c in (sweeps["checks"]["tight_rate"], sweeps["checks"]["stability"]):
        c["verdict"], c["uninformative"] = "uninformative", uninformative_reason(c)
    for r in res["records"]:  # the edited copies carry their source's labels: recompute them from their numbers
        for c in [*r["checks"].values(), *r["planted_bugs"].values()]:
            if c.get("verdict") == "uninformative" and uninformative_reason(c) is None:
                c["verdict"] = "pass"
                c.pop("uninformative", None)
        r["power"] = encode_nonfinite(record_power(r))
    res["uninformative_checks"] = sum(1 for r in res["records"] for c in [*r["checks"].values(),
                                                                         *r["planted_bugs"].values()]
                                      if c.get("verdict") == "uninformative")
    res["uninformative_audits"] = sum(1 for r in res["records"] for a in r["audits"].values()
                                      if a.get("verdict") == "uninformative")
    report.check_results(res)
    return res


def _forbid_computation(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*a: Any, **k: Any) -> Any:
        raise AssertionError("the campaign started although --out is unusable")

    monkeypatch.setattr(verify, "load_fair", boom)
    monkeypatch.setattr(verify, "run_phase", boom)


# ------------------------------------------------------------------------------------------------------
# --out is checked before computing
# ------------------------------------------------------------------------------------------------------
def test_unusable_out_fails_before_computing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    _forbid_computation(monkeypatch)
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    (foreign / "results.json").write_text("{}")
    cases = [(a_file / "report", "is not a directory"), (a_file, "exists and is not a directory"),
             (foreign, "notes.txt")]
    if os.geteuid() != 0:  # root may write anywhere: a read-only directory stops only other users
        ro = tmp_path / "read-only"
        ro.mkdir()
        ro.chmod(0o500)
        cases.append((ro / "report", "cannot create files"))
    for out, why in cases:
        assert main(["verify", "--quick", "--quiet", "--out", str(out)]) == 2
        line = _one_line_error(capsys.readouterr().err)
        assert "--out" in line and why in line, line
    assert (foreign / "notes.txt").read_text() == "keep me"  # a directory with other files is never replaced
    assert sorted(os.listdir(foreign)) == ["notes.txt", "results.json"]
    # the same check guards --from (before reading it) and the Python API
    assert main(["verify", "--from", str(tmp_path / "missing.json"), "--out", str(a_file / "r")]) == 2
    assert "is not a directory" in _one_line_error(capsys.readouterr().err)
    with pytest.raises(fileio.OutputError, match="not a directory"):
        verify.run_verification(budget="quick", out=str(a_file / "r"), quiet=True)


def _stub_campaign(monkeypatch: pytest.MonkeyPatch, results: dict[str, Any], side_effect: Any = None) -> None:
    """run_phase returns the records of ``results`` (the whole record from the empirical phase, nothing from
    the others) instead of computing; the campaign must then run in this process (--workers 1)."""
    shaped = results["records"][0]
    # the phase record it came from (the shape assemble_entry merges): checks and audits at the top level
    record = {k: v for k, v in shaped.items() if k not in ("kind", "audits", "checks", "planted_bugs", "power",
                                                            "provenance")}
    record.update(shaped["audits"], **shaped["checks"], **shaped["provenance"])

    def fake_phase(entry: str, phase: str, *a: Any, **k: Any) -> dict[str, Any]:
        if side_effect is not None:
            side_effect()
        rec: dict[str, Any] = {}
        if phase == "empirical":
            rec = copy.deepcopy(record)
            rec["name"] = entry
            rec["empirical_oracle"] = rec["empirical"].pop("oracle")
            if "population" in rec:
                rec["population_instance"] = rec["population"].pop("instance")
        return {"entry": entry, "phase": phase, "record": rec, "checks": {}, "seconds": 0.0}

    monkeypatch.setattr(verify, "run_phase", fake_phase)
    monkeypatch.setattr("dpsco.oracles.minimizers.certified_oracle", lambda *a, **k: _Oracle())


class _Oracle:
    value, gap_bound = 0.5, 0.0

    def to_dict(self) -> dict[str, float]:
        return {"value": self.value, "gap_bound": self.gap_bound}


def test_write_failure_after_the_campaign_saves_the_results(tmp_path: Path, campaign: Path,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    results = json.loads((campaign / "results.json").read_text())
    parent = tmp_path / "parent"
    parent.mkdir()
    out = parent / "report"

    def break_out() -> None:  # during the campaign, something else takes the output path
        if out.is_dir():  # (the campaign made it, for its checkpoints)
            shutil.rmtree(out)
            out.write_text("not a directory any more")

    _stub_campaign(monkeypatch, results, break_out)
    assert main(["verify", "--quick", "--quiet", "--only", ONLY, "--out", str(out), "--format", "md",
                 "--workers", "1"]) == 2
    err = capsys.readouterr().err
    warning, rest = err.split("\n", 1)  # the checkpoints could not be saved either: said once, not fatal
    assert warning.startswith("dpsco verify: warning: cannot save checkpoints"), err
    line = _one_line_error(rest)
    assert "cannot write the report directory" in line and "the results were saved to" in line
    saved = Path(line.split("the results were saved to ", 1)[1].split(" ", 1)[0])
    try:
        assert saved.parent == parent and json.loads(saved.read_text())["records"][0]["name"] == ONLY
        assert not [e for e in os.listdir(parent) if e.startswith(".tmp-")]
        # the saved file regenerates the reports
        assert main(["verify", "--from", str(saved), "--out", str(tmp_path / "regen"), "--format", "md"]) in (0, 1)
        assert (tmp_path / "regen" / "report.md").exists()
    finally:
        saved.unlink()


def test_a_report_bug_keeps_the_old_report_and_saves_the_results(tmp_path: Path, campaign: Path,
                                                                  monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    results = json.loads((campaign / "results.json").read_text())
    out = tmp_path / "report"
    assert main(["verify", "--from", str(campaign / "results.json"), "--out", str(out), "--format", "md"]) in (0, 1)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    _stub_campaign(monkeypatch, results)

    def broken(results: Any) -> str:
        raise RuntimeError("a bug in a report writer")

    monkeypatch.setitem(verify._REPORT_WRITERS, "html", ("report.html", broken))
    with pytest.raises(RuntimeError, match="a bug in a report writer"):  # a bug keeps its traceback ...
        main(["verify", "--quick", "--quiet", "--only", ONLY, "--out", str(out), "--format", "md", "--format", "html",
              "--workers", "1"])
    err = capsys.readouterr().err
    assert "the results were saved to" in err  # ... but the campaign is not lost
    saved = Path(err.split("the results were saved to ", 1)[1].split(" ", 1)[0])
    saved.unlink()
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before  # old report untouched
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["checkpoints"]  # and --resume can finish it
    assert not [e for e in os.listdir(tmp_path) if e.startswith(".tmp-")]


# ------------------------------------------------------------------------------------------------------
# the report directory is replaced whole
# ------------------------------------------------------------------------------------------------------
def test_report_directory_never_mixes_two_runs(tmp_path: Path, campaign: Path, full_results: dict[str, Any],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report"
    assert main(["verify", "--from", str(campaign / "results.json"), "--out", str(out), "--format", "md",
                 "--format", "html", "--format", "latex"]) in (0, 1)
    assert sorted(os.listdir(out)) == ["report.html", "report.md", "results.json", "tables.tex"]
    assert (out / "results.json").read_bytes() == (campaign / "results.json").read_bytes()  # copied verbatim
    newer = dict(full_results, seed_entropy="424242")
    src = tmp_path / "newer.json"
    src.write_text(json.dumps(newer))
    assert main(["verify", "--from", str(src), "--out", str(out), "--format", "md"]) in (0, 1)
    # only the new set: the older report.html and tables.tex are gone, results.json is the new source
    assert sorted(os.listdir(out)) == ["report.md", "results.json"]
    assert (out / "results.json").read_text() == src.read_text()
    assert "424242" in (out / "report.md").read_text()
    # regenerating in place from the directory's own results.json
    assert main(["verify", "--from", str(out / "results.json"), "--out", str(out), "--format", "latex"]) in (0, 1)
    assert sorted(os.listdir(out)) == ["results.json", "tables.tex"]
    assert (out / "results.json").read_text() == src.read_text()
    assert sorted(e for e in os.listdir(tmp_path) if e.startswith(".tmp-")) == []
    capsys.readouterr()


def test_failed_swap_leaves_the_old_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "report"
    with fileio.staged_directory(out, {"results.json"}) as tmp:
        Path(tmp, "results.json").write_text("old")
    real_rename = os.rename
    calls: list[tuple[str, str]] = []

    def rename_fails_second_move(src: str, dst: str) -> None:
        calls.append((src, dst))
        if len(calls) == 3:  # 1: new onto the non-empty target (refused), 2: old aside, 3: new into place
            raise OSError(28, "No space left on device")
        real_rename(src, dst)

    monkeypatch.setattr(fileio.os, "rename", rename_fails_second_move)
    with pytest.raises(OSError, match="No space"):
        with fileio.staged_directory(out, {"results.json"}) as tmp:
            Path(tmp, "results.json").write_text("new")
    assert (out / "results.json").read_text() == "old"  # moved back
    assert os.listdir(tmp_path) == ["report"]  # no staging or old directory left
    with pytest.raises(fileio.OutputError, match="unexpected file"):  # only the declared names are written
        with fileio.staged_directory(out, {"results.json"}) as tmp:
            Path(tmp, "other.txt").write_text("x")
    assert os.listdir(tmp_path) == ["report"]


def test_atomic_file_write(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    fileio.atomic_write_text(path, "one")
    assert path.read_text() == "one"
    assert (path.stat().st_mode & 0o777) == (0o666 & ~_umask())  # as open(path, "w") would create it
    with pytest.raises(RuntimeError):
        with fileio.atomic_open(path, "w") as fh:
            fh.write("two")
            raise RuntimeError
    assert path.read_text() == "one" and os.listdir(tmp_path) == ["a.txt"]
    fileio.atomic_write_bytes(tmp_path / "b.bin", b"\x00\x01")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"


def _umask() -> int:
    m = os.umask(0o022)
    os.umask(m)
    return m


# ------------------------------------------------------------------------------------------------------
# --from: a file that breaks the published schema is refused with the place named (the schema's own tests:
# tests/test_results_schema.py)
# ------------------------------------------------------------------------------------------------------
def test_from_file_cli_errors(tmp_path: Path, full_results: dict[str, Any],
                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    cases: list[tuple[Any, str]] = []
    no_mean = copy.deepcopy(full_results)
    del no_mean["records"][0]["checks"]["empirical"]["mean"]
    cases.append((no_mean, "records[0].checks.empirical: 'mean' is a required property"))
    typed = copy.deepcopy(full_results)
    typed["records"][1]["claim"]["delta"] = "small"
    cases.append((typed, "records[1].claim.delta: 'small' is not valid"))
    cases.append(({k: v for k, v in full_results.items() if k != "records"}, "'records' is a required property"))
    cases.append(([1, 2], "expected an object"))
    cases.append((dict(full_results, records={"a": 1}), "records: {'a': 1} is not of type 'array'"))
    for i, (data, msg) in enumerate(cases):
        src = tmp_path / f"bad{i}.json"
        src.write_text(json.dumps(data))
        assert main(["verify", "--from", str(src), "--out", str(out)]) == 2
        line = _one_line_error(capsys.readouterr().err)
        assert "is not a usable dpsco results.json" in line and msg in line, line
    (tmp_path / "trunc.json").write_text('{"records": [')
    (tmp_path / "latin1.json").write_bytes(b'{"budget": "\xe9"}')
    for name in ("trunc.json", "latin1.json", "missing.json"):
        assert main(["verify", "--from", str(tmp_path / name), "--out", str(out)]) == 2
        assert "cannot read --from" in _one_line_error(capsys.readouterr().err)
    assert not out.exists()  # nothing written for a refused source
