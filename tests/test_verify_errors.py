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
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real quick campaign of one entry, all three report formats."""
    out = tmp_path_factory.mktemp("campaign") / "report"
    status = main(["verify", "--quick", "--quiet", "--only", ONLY, "--out", str(out),
                   "--format", "md", "--format", "html", "--format", "latex"])
    assert status in (0, 1)  # the verdict does not matter here
    assert sorted(os.listdir(out)) == ["report.html", "report.md", "results.json", "tables.tex"]
    assert not [e for e in os.listdir(out.parent) if e.startswith(".tmp-")]  # no staging directory left
    return out


@pytest.fixture(scope="module")
def full_results(campaign: Path) -> dict[str, Any]:
    """The campaign's results plus records covering every optional branch the reports read: the three
    sweep checks (as A_NSGD has) and a record with no audit, no population claim and no rate."""
    res = json.loads((campaign / "results.json").read_text())
    base = res["records"][0]
    for key in ("empirical", "population"):  # a printed-constant bound beside the check's own (as ObjP has)
        base[key]["reference_bounds"] = [{"label": "printed constant", "bound": 2.0, "ratio": 0.01, "p_value": 1.0,
                                          "exceeded": False}]
    base["white_box_audit"] = {  # a white-box audit record (as the noisy-gradient entries have)
        "mode": "white-box", "design": "one-sided", "epsilon_lower": 0.4, "epsilon_true": 0.89, "verdict": "not refuted",
        "confidence": 0.95, "runs_per_side": 1000, "p_value": 1.0, "claim": {"epsilon": 1.0, "delta": 1e-6}}
    sweeps = copy.deepcopy(base)
    sweeps["name"], sweeps["title"] = "sweeps", "With sweeps"
    for key, kind in (("tight_rate", "tight"), ("rate_d", "upper"), ("rate_eps", "lower")):
        sweeps[key] = {**copy.deepcopy(base["rate"]), "kind": kind}
    sweeps["rate"]["detectable_bound_excess"] = None
    bare = copy.deepcopy(base)
    bare["name"], bare["title"] = "bare", "Bare"
    for key in ("audit", "white_box_audit", "population", "rate", "stability"):
        bare.pop(key, None)
    bare["empirical"].pop("oracle", None)
    bare["empirical"].pop("reference_bounds", None)
    bare["audit_not_run"] = "no audit samples"
    bare["population_not_applicable"] = "not an average"
    bare["rate_not_applicable"] = "no exponent"
    bare["gradient_evaluations"]["ratio"] = None
    suite = {key: base[key] for key in ("name", "title", "paper", "algorithm", "privacy_theorem", "options")}
    suite.update({  # an entry verified by its own suite (CatalogueEntry.suite), with a figure to plot
        "name": "suite", "title": "A suite entry",
        "suite": {"description": "own checks", "tasks": ["audit", "bounds"]},
        "suite_records": {"bounds": {"figure": {"title": "excess against n", "x": [100, 200], "xlabel": "n",
                                                "ylabel": "excess", "series": [{"label": "mean", "y": [1.0, 0.5]}]}}},
        "suite_checks": {"bound": {"name": "b", "statement": "E[excess] ≤ bound", "estimate": 0.1, "bound": 1.0,
                                   "p_value": 1.0, "verdict": "pass"}},
        "suite_audits": {"pair": {"epsilon_lower": 0.1, "claim": {"epsilon": 1.0}, "p_value": 1.0,
                                  "confidence": 0.95, "verdict": "not refuted"}}})
    res["records"] = [base, sweeps, bare, suite]
    from dpsco.verification.checks.power import uninformative_reason

    # an uninformative sweep and stability check (as A_NSGD's tight rate and A_ProxGD's stability are)
    sweeps["tight_rate"]["uninformative_at_inputs"] = "its slope is -1/2 for every release independent of n"
    sweeps["stability"]["largest_difference"] = sweeps["stability"]["bound"]
    for c in (sweeps["tight_rate"], sweeps["stability"]):
        c["verdict"], c["uninformative"] = "uninformative", uninformative_reason(c)
    for r in res["records"]:  # the edited copies carry their source's labels: recompute them from their numbers
        for c in [v for v in r.values() if isinstance(v, dict) and "p_value" in v] + list(r.get("suite_checks", {}).values()):
            if c.get("verdict") == "uninformative" and uninformative_reason(c) is None:
                c["verdict"] = "pass"
                c.pop("uninformative", None)
    res["uninformative_checks"] = sum(1 for r in res["records"] for c in [*(v for v in r.values() if isinstance(v, dict)),
                                                                         *r.get("suite_checks", {}).values()]
                                      if c.get("verdict") == "uninformative")
    res["uninformative_audits"] = sum(1 for r in res["records"] for a in r.get("suite_audits", {}).values()
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
    record = results["records"][0]

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
# --from: every key the reports read is checked
# ------------------------------------------------------------------------------------------------------
def _schema_paths(spec: Any, prefix: str = "") -> dict[str, Any]:
    """{path: spec} for every key of the schema (records[*].empirical.mean, ...)."""
    out: dict[str, Any] = {}
    if isinstance(spec, report._Opt):
        spec = spec.spec
    if isinstance(spec, dict):
        for key, sub in spec.items():
            if key == "__check__":
                continue
            path = f"{prefix}.{key}" if prefix else key
            out[path] = sub
            out.update(_schema_paths(sub, path))
    elif isinstance(spec, list):
        out[prefix + "[*]"] = spec[0]
        out.update(_schema_paths(spec[0], prefix + "[*]"))
    return out


class _RecDict(dict):  # type: ignore[type-arg]
    def __init__(self, data: dict[str, Any], path: str, log: set[str]):
        super().__init__(data)
        self._path, self._log = path, log

    def _key(self, key: str) -> str:
        return f"{self._path}.{key}" if self._path else key

    def __getitem__(self, key: str) -> Any:
        self._log.add(self._key(key))
        return _wrap(super().__getitem__(key), self._key(key), self._log)

    def get(self, key: str, default: Any = None) -> Any:
        self._log.add(self._key(key))
        return _wrap(super().__getitem__(key), self._key(key), self._log) if key in self.keys() else default

    def __contains__(self, key: object) -> bool:
        self._log.add(self._key(str(key)))
        return super().__contains__(key)


class _RecList(list):  # type: ignore[type-arg]
    def __init__(self, data: list[Any], path: str, log: set[str]):
        super().__init__(data)
        self._path, self._log = path, log

    def __getitem__(self, i: Any) -> Any:
        self._log.add(self._path + "[*]")
        return _wrap(super().__getitem__(i), self._path + "[*]", self._log)

    def __iter__(self) -> Any:
        self._log.add(self._path + "[*]")
        for v in super().__iter__():
            yield _wrap(v, self._path + "[*]", self._log)


def _wrap(v: Any, path: str, log: set[str]) -> Any:
    if isinstance(v, dict) and not isinstance(v, _RecDict):
        return _RecDict(v, path, log)
    if isinstance(v, list) and not isinstance(v, _RecList):
        return _RecList(v, path, log)
    return v


def _render_all(results: Any) -> None:
    report.format_table(results["records"])
    report.format_markdown(results)
    report.format_latex(results)
    report.format_html(results)


def test_every_key_the_reports_read_is_checked(full_results: dict[str, Any]) -> None:
    log: set[str] = set()
    _render_all(_wrap(copy.deepcopy(full_results), "", log))
    schema = _schema_paths(report._SCHEMA)
    missing = sorted(p for p in log if p not in schema)
    assert not missing, f"read by the reports but not checked by check_results: {missing}"
    # and, conversely, the schema asks for nothing the reports do not read (keys inside "any" values aside)
    unread = sorted(p for p in schema if p not in log)
    assert not unread, f"checked by check_results but never read by the reports: {unread}"


def _parents(node: Any, path: str) -> list[tuple[Any, str]]:
    """Every (container, key) that holds ``path`` (all list elements), where the key is present."""
    parts = path.replace("[*]", ".[*]").split(".")
    nodes = [node]
    for part in parts[:-1]:
        if part == "[*]":
            nodes = [item for n in nodes if isinstance(n, list) for item in n]
        else:
            nodes = [n[part] for n in nodes if isinstance(n, dict) and isinstance(n.get(part), (dict, list))]
    return [(n, parts[-1]) for n in nodes if isinstance(n, dict) and parts[-1] in n]


def _get_parent(results: dict[str, Any], path: str) -> tuple[Any, str]:
    """The first (container, key) holding ``path`` (the first record that has it)."""
    return _parents(results, path)[0]


def _wrong_value(spec: Any) -> Any:
    if isinstance(spec, report._Opt):
        spec = spec.spec
    if isinstance(spec, (dict, list)):
        return "not a container"
    return {"str": 7, "real": "7", "num": [], "fmt": {}, "any": None}[spec]


def test_malformed_from_files_are_refused_with_the_key_named(full_results: dict[str, Any]) -> None:
    schema = _schema_paths(report._SCHEMA)
    checked = 0
    for path, spec in schema.items():
        if path.endswith("[*]"):
            continue
        required = not isinstance(spec, report._Opt)
        key = path.rsplit(".", 1)[-1]
        bad = copy.deepcopy(full_results)
        parent, last = _get_parent(bad, path)
        if required:  # a missing required key
            del parent[last]
            with pytest.raises(ValueError, match=f"missing key '{key}'"):
                report.check_results(bad)
            checked += 1
        inner = spec.spec if isinstance(spec, report._Opt) else spec
        if inner != "any":  # a value of the wrong type
            bad = copy.deepcopy(full_results)
            parent, last = _get_parent(bad, path)
            parent[last] = _wrong_value(spec)
            with pytest.raises(ValueError) as info:
                report.check_results(bad)
            assert key in str(info.value) or "[0]" in str(info.value), (path, str(info.value))
            checked += 1
    assert checked > 80
    bad = copy.deepcopy(full_results)
    bad["records"][0]["rate"]["mean_excess"].pop()
    with pytest.raises(ValueError, match="mean_excess: 2 values for 3 points"):
        report.check_results(bad)


def test_from_file_cli_errors(tmp_path: Path, full_results: dict[str, Any],
                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    cases: list[tuple[Any, str]] = []
    no_mean = copy.deepcopy(full_results)
    del no_mean["records"][0]["empirical"]["mean"]
    cases.append((no_mean, "records[0].empirical: missing key 'mean'"))
    typed = copy.deepcopy(full_results)
    typed["records"][1]["claim"]["delta"] = "small"
    cases.append((typed, 'records[1].claim.delta: expected a number, got "small"'))
    cases.append(({k: v for k, v in full_results.items() if k != "records"}, "missing key 'records'"))
    cases.append(([1, 2], "expected an object"))
    cases.append((dict(full_results, records={"a": 1}), "records: expected a list"))
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


def test_optional_and_free_form_keys_do_not_break_the_reports(full_results: dict[str, Any],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # Whatever check_results accepts, the reports render: every optional key dropped or null (one at a time),
    # every free-form key an object and every plotted number a non-finite value in its JSON spelling (all at
    # once).  The plots are drawn only for the variants that touch what they read (the slow part).
    real_plots = report._plots
    plot_log: set[str] = set()
    real_plots(_wrap(copy.deepcopy(full_results), "", plot_log))
    monkeypatch.setattr(report, "_png", lambda fig: "")  # the figures are built; only the PNG encoding is skipped
    schema = _schema_paths(report._SCHEMA)
    leaves = [(p, spec) for p, spec in schema.items() if not p.endswith("[*]")]

    def render(data: dict[str, Any], touched: list[str]) -> None:
        report.check_results(data)
        plots = any(r == t or r.startswith(t + ".") or r.startswith(t + "[") for r in plot_log for t in touched)
        monkeypatch.setattr(report, "_plots", real_plots if plots else (lambda results: []))
        _render_all(data)

    # claim, empirical and gradient_evaluations are optional in the schema only because a suite record has none:
    # a record of the common phases needs them (test_a_record_needs_its_kind_of_keys); "suite" marks the kind
    needed = {f"records[*].{k}" for k in ("claim", "empirical", "gradient_evaluations", "suite")}
    for path, spec in leaves:
        if isinstance(spec, report._Opt) and path not in needed:
            for how in ("drop", "null") if spec.none_ok else ("drop",):
                data = copy.deepcopy(full_results)
                parent, last = _get_parent(data, path)
                if how == "drop":
                    del parent[last]
                else:
                    parent[last] = None
                render(data, [path])
    for inner_tag, value in (("any", {"an": ["object"]}), ("num", "nan")):
        data = copy.deepcopy(full_results)
        touched = []
        for path, spec in leaves:
            if (spec.spec if isinstance(spec, report._Opt) else spec) == inner_tag:
                for parent, last in _parents(data, path):
                    parent[last] = value
                touched.append(path)
        render(data, touched)


def test_a_record_needs_its_kind_of_keys(full_results: dict[str, Any]) -> None:
    for key in ("claim", "empirical", "gradient_evaluations"):  # a common-phase record
        bad = copy.deepcopy(full_results)
        del bad["records"][0][key]
        with pytest.raises(ValueError, match=f"records\\[0\\]: missing key '{key}'"):
            report.check_results(bad)
    bad = copy.deepcopy(full_results)
    bad["records"][3]["suite_checks"] = ["not", "an", "object"]
    with pytest.raises(ValueError, match="suite_checks: expected an object"):
        report.check_results(bad)
    table = report.format_table(full_results["records"])
    assert "A suite entry" in table and "1/1" in table  # the suite table: checks passed / checks
    assert "excess against n" in " ".join(caption for caption, _ in report._plots(full_results))
