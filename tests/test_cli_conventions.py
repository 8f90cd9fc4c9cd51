"""One convention for every dpsco command (issue 28; dpsco.verification.cli.conventions, docs/usage.md
"Conventions shared by every command"): a test per convention.

Fast: a one-coordinate Laplace mechanism, a few hundred runs in this process, no campaign.  Every assertion here
is deterministic (no statistical verdict is asserted: the audits' verdicts are not what these tests check).
"""

from __future__ import annotations

import argparse
import ast
import importlib.metadata
import inspect
import io
import json
import logging
import os
import re
import sys
import textwrap
from pathlib import Path

import pytest

from dpsco.verification import progress
from dpsco.verification.cli import conventions
from dpsco.verification.cli.conventions import DEFAULT_CONFIDENCE
from dpsco.verification.cli.main import COMMANDS, build_parser, main

ROOT = Path(__file__).resolve().parents[1]
SEED_LINE = re.compile(r"seed: (\d+) — rerun with --seed (\d+)")
PLAN = ["plan", "--family", "gaussian", "--epsilon", "1", "--delta", "1e-5", "--target-ratio", "0.5", "--json"]


@pytest.fixture(autouse=True)
def _reset_logging():
    """main() sets the level of the dpsco loggers from -v/-q; each test starts from the default (INFO)."""
    yield
    conventions.configure_logging(0, 0)


@pytest.fixture()
def mech(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Arguments of a tiny audit: f(data, rng) = sum(x) + Laplace(1) on neighbours differing by 1 (true ε = 1)."""
    import numpy as np

    (tmp_path / "conv_mech.py").write_text(textwrap.dedent("""
        import numpy as np

        def f(data, rng):
            return np.array([float(data["x"].sum()) + rng.laplace()])
    """))
    np.savez(tmp_path / "a.npz", x=np.array([0.0, 0.0]))
    np.savez(tmp_path / "b.npz", x=np.array([0.0, 1.0]))
    monkeypatch.chdir(tmp_path)
    return ["audit", "conv_mech.py:f", "--dataset", "a.npz", "--neighbour", "b.npz", "--epsilon", "1", "--delta", "0",
            "--samples", "200", "--workers", "1", "--json"]


def _parsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return dict(sub.choices)


# ------------------------------------------------------------------------------------------------------ seeds
def test_audit_seed_is_optional_drawn_printed_recorded_and_repeatable(mech, capsys) -> None:
    assert main(mech) in (0, 1)
    out, err = capsys.readouterr()
    record = json.loads(out)
    match = SEED_LINE.search(err)
    assert match and match.group(1) == match.group(2), err
    seed = int(match.group(1))
    assert record["seed"] == seed and record["seed_drawn"] is True
    # the printed seed repeats the run exactly
    assert main([*mech, "--seed", str(seed)]) in (0, 1)
    out2, err2 = capsys.readouterr()
    again = json.loads(out2)
    assert again["seed"] == seed and again["seed_drawn"] is False and not SEED_LINE.search(err2)
    for key in ("epsilon_lower", "verdict", "seed_entropy", "p_value"):
        if key in record:
            assert again[key] == record[key], key


def test_two_runs_without_seed_draw_different_seeds(mech, capsys) -> None:
    seeds = []
    for _ in range(2):
        main(mech)
        seeds.append(json.loads(capsys.readouterr().out)["seed"])
    # SeedSequence().entropy is 128 bits of OS entropy: equal draws have probability 2^-128
    assert seeds[0] != seeds[1]


def test_resolve_seed_and_seed_line() -> None:
    assert conventions.resolve_seed("7") == conventions.Seed(7, False)
    drawn = conventions.resolve_seed(None)
    assert drawn.drawn and drawn.value >= 0
    assert conventions.seed_line(drawn) == f"seed: {drawn.value} — rerun with --seed {drawn.value}"
    for bad in ("-1", "x", "1.5", True):
        with pytest.raises(conventions.InputError, match="--seed"):
            conventions.resolve_seed(bad)


def test_verify_seed_is_optional_and_resume_reuses_the_checkpoints_seed(tmp_path: Path) -> None:
    from dpsco.verification.cli.verify import campaign_seed

    args = _parsers()["verify"].parse_args([])
    assert args.seed is None  # no fixed default: drawn when absent
    ns = argparse.Namespace(seed=None, resume=False, out=str(tmp_path))
    assert campaign_seed(ns, "checkpoints").drawn
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "e.audit.json").write_text(json.dumps({"campaign": {"seed": 123}, "result": {}}))
    ns.resume = True
    assert campaign_seed(ns, "checkpoints") == conventions.Seed(123, False)
    ns.seed = "5"
    assert campaign_seed(ns, "checkpoints") == conventions.Seed(5, False)


def test_verify_prints_the_drawn_seed_it_runs_with(tmp_path: Path, monkeypatch, capsys) -> None:
    from dpsco.verification.campaign import verify

    seen = {}

    def stub(**kw):
        seen.update(kw)
        raise ValueError("stub: the campaign is not run here")

    monkeypatch.setattr(verify, "run_verification", stub)  # cli/verify.py calls it through the module
    assert main(["verify", "--quick", "--out", str(tmp_path / "r")]) == 2
    match = SEED_LINE.search(capsys.readouterr().err)
    assert match and int(match.group(1)) == seen["seed"]


# ------------------------------------------------------------------------------------------------- confidence
def test_one_default_confidence_in_every_command() -> None:
    for name, parser in _parsers().items():
        action = next((a for a in parser._actions if a.dest == "confidence"), None)
        if action is not None:
            assert float(action.default) == DEFAULT_CONFIDENCE, name
    assert sum(1 for p in _parsers().values() for a in p._actions if a.dest == "confidence") >= 3


def test_python_apis_default_to_the_same_confidence() -> None:
    from dpsco.verification.auditing.audit import audit
    from dpsco.verification.auditing.curve_audit import audit_curve
    from dpsco.verification.auditing.planning import samples_needed
    from dpsco.verification.auditing.sequential import sequential_audit
    from dpsco.verification.auditing.one_run import one_run_audit
    from dpsco.verification.campaign.compare import compare
    from dpsco.verification.campaign.verify import AUDIT_CONFIDENCE, run_verification

    assert AUDIT_CONFIDENCE == DEFAULT_CONFIDENCE
    for fn in (audit, audit_curve, samples_needed, sequential_audit, one_run_audit, compare, run_verification):
        assert inspect.signature(fn).parameters["confidence"].default == DEFAULT_CONFIDENCE, fn.__name__


# ----------------------------------------------------------------------------------------------- option names
def test_shared_options_have_the_same_names_in_every_command() -> None:
    """An option that two commands share (same destination) is spelt the same way in both."""
    spelled: dict[str, dict[str, tuple[str, ...]]] = {}
    for name, parser in _parsers().items():
        for a in parser._actions:
            if a.option_strings and a.dest not in ("help",):
                spelled.setdefault(a.dest, {})[name] = tuple(a.option_strings)
    for dest, by_command in spelled.items():
        assert len(set(by_command.values())) == 1, (dest, by_command)
    for name in ("audit", "plan"):
        assert any("--estimator" in a.option_strings for a in _parsers()[name]._actions), name


def test_plan_route_is_a_deprecated_alias_of_estimator(capsys) -> None:
    assert main([*PLAN, "--estimator", "gdp"]) == 0
    new, err_new = capsys.readouterr()
    assert "deprecated" not in err_new
    assert main([*PLAN, "--route", "gdp"]) == 0
    old, err_old = capsys.readouterr()
    assert old == new and "--route is deprecated: use --estimator" in err_old
    assert main([*PLAN, "--route", "gdp", "--estimator", "threshold"]) == 2
    assert "contradicts --estimator" in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize("argv,expected", [
    (["plan", "--family", "laplace", "--epsilon", "-1", "--target-ratio", "2", "--confidence", "3"],
     ["--epsilon", "--target-ratio", "--confidence"]),
    (["audit", "m.py:f", "--dataset", "missing.npz", "--neighbour", "missing2.npz", "--epsilon", "0", "--delta", "2",
      "--samples", "1", "--seed", "-1", "--confidence", "1"],
     ["--epsilon", "--delta", "--samples", "--seed", "--confidence", "--dataset", "--neighbour"]),
    (["verify", "--seed", "-1", "--confidence", "2", "--alpha", "0", "--workers", "0", "--quick", "--budget", "paper"],
     ["--seed", "--confidence", "--alpha", "--workers", "--quick"]),
], ids=["plan", "audit", "verify"])
def test_all_argument_errors_are_reported_at_once(argv, expected, capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == "" and len(lines) == len(expected), err
    for line, option in zip(sorted(lines), sorted(expected, key=lambda o: [l for l in lines if o in l][0])):
        assert line.startswith(f"dpsco {argv[0]}: error: ") and option in line, (line, option)


def test_audit_error_does_not_suggest_a_python_keyword_as_an_option(mech, capsys, tmp_path) -> None:
    """The library's "pass check_neighbouring=False" advice reached the command line, which has no such option."""
    import numpy as np

    np.savez(tmp_path / "c.npz", x=np.array([1.0, 1.0]))  # differs from a.npz in two records
    argv = list(mech)
    argv[argv.index("b.npz")] = "c.npz"
    assert main([*argv, "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert "differ in 2 records" in err and "pass check_neighbouring" not in err and "Python API" in err, err


def test_error_collector() -> None:
    errors = conventions.ErrorCollector()
    assert errors.call(conventions.parse_confidence, "0.5") == 0.5
    errors.check()  # nothing recorded: no exception
    assert errors.call(conventions.parse_confidence, "2", default=-1.0) == -1.0
    with errors.guard():
        raise ValueError("--alpha bad")
    with pytest.raises(conventions.ArgumentErrors) as info:
        errors.check()
    assert info.value.messages == ["--confidence must lie in (0, 1), got '2'", "--alpha bad"]
    assert isinstance(info.value, ValueError) and isinstance(info.value, conventions.InputError)


# ---------------------------------------------------------------------------------------------------- version
def test_version(capsys) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"dpsco {importlib.metadata.version('dpsco')}"


def test_version_loads_nothing_heavy() -> None:
    from test_lazy_imports import _loaded

    assert _loaded("import contextlib, io\nfrom dpsco.verification.cli.main import main\n"
                   "with contextlib.redirect_stdout(io.StringIO()):\n    assert main(['--version']) == 0") == []


# ------------------------------------------------------------------------------------------------ list-checks
def test_verify_list_checks(capsys) -> None:
    from dpsco.verification.mutants.catches import NONE_KINDS, load_inventory
    from dpsco.verification.mutants.corpus import CORPUS

    assert main(["verify", "--list-checks", "bftt19.nsgd", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    keys = [c["key"] for c in listing["checks"]]
    assert sorted(keys) == sorted(load_inventory()["bftt19.nsgd"])
    for c in listing["checks"]:
        assert c["tests"]
        assert c["planted_bug"] in CORPUS if c["planted_bug"] else c["note"].startswith(NONE_KINDS), c
    assert main(["verify", "--list-checks", "bftt19.nsgd"]) == 0
    text = capsys.readouterr().out
    assert "- audit" in text and "planted bug" in text and max(map(len, text.splitlines())) <= 100
    from dpsco.verification.cli.list_checks import format_checks, list_checks
    from dpsco.verification.papers.catalogue import CATALOGUE

    for entry in CATALOGUE:  # every entry's listing fits 100 columns
        assert max(map(len, format_checks(list_checks(entry.name)).splitlines())) <= 100, entry.name
    assert main(["verify", "--list-checks", "no.such.entry"]) == 2
    err = capsys.readouterr().err
    assert "--list-checks" in err and "bftt19.nsgd" in err


def test_list_fits_100_columns_and_wide_prints_it_in_full(capsys) -> None:
    assert main(["list"]) == 0  # the terminal convention of issue 28: at most 100 columns by default
    narrow = capsys.readouterr().out.splitlines()
    assert max(map(len, narrow)) <= 100
    assert main(["list", "--wide"]) == 0  # ... and --wide for the full table (one line per entry)
    wide = capsys.readouterr().out.splitlines()
    assert max(map(len, wide)) > 100 and len(wide) < len(narrow)


# --------------------------------------------------------------------------------------------------- progress
class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        return 2


def test_zero_width_terminal_is_not_a_terminal(monkeypatch) -> None:
    monkeypatch.setattr(sys, "stderr", _Terminal())
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(os, "get_terminal_size", lambda fd=None: os.terminal_size((0, 0)))
    assert not progress.stderr_is_terminal()
    monkeypatch.setattr(os, "get_terminal_size", lambda fd=None: os.terminal_size((80, 24)))
    assert progress.stderr_is_terminal()
    monkeypatch.setenv("COLUMNS", "0")
    assert not progress.stderr_is_terminal()
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # a pipe or a file
    monkeypatch.setenv("COLUMNS", "80")
    assert not progress.stderr_is_terminal()


def test_bar_with_total_on_a_terminal_and_a_log_line_per_task_otherwise(monkeypatch, caplog) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    bar = progress.progress_bar(3, "work")
    bar.update(3)
    bar.close()
    assert "/3 [" in term.getvalue()  # tqdm shows the total (and the ETA once it has a rate)
    monkeypatch.setenv("COLUMNS", "0")  # the zero-width pseudo-terminal of the issue: log lines, not a bar
    logger = logging.getLogger("dpsco.test_progress")
    with caplog.at_level(logging.INFO, logger="dpsco.test_progress"):
        bar = progress.progress_bar(3, "work", logger=logger)
        for i in range(3):
            bar.set_postfix_str(f"task {i}")
            bar.update(1)
        bar.close()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 3 and all(f"{i + 1}/3" in line and "ETA" in line and f"task {i}" in line
                                   for i, line in enumerate(lines)), lines
    assert isinstance(progress.progress_bar(3, "work", enabled=False), progress._Silent)


def test_track_executor_gives_the_runs_bar_a_total(monkeypatch, caplog) -> None:
    from dpsco.verification.executors import SerialExecutor

    monkeypatch.setattr(sys, "stderr", io.StringIO())
    logger = logging.getLogger("dpsco.test_track")
    with caplog.at_level(logging.INFO, logger="dpsco.test_track"):
        ex = conventions.track_executor(SerialExecutor(), "runs", task_size=lambda t: t[0], logger=logger,
                                        every=1)
        assert ex.map(lambda k: k * 2, [(5,), (7,)]) == [10, 14]
        ex.close()
    assert [r.getMessage().split(",")[0] for r in caplog.records] == ["runs: 5/12 run (42 %)",
                                                                      "runs: 12/12 run (100 %)"]


def test_off_a_terminal_executor_tasks_log_every_25th_at_info_and_each_at_debug(monkeypatch, caplog) -> None:
    """Issue 28: one log line per finished task off a terminal (not one per 5 s); for the hundreds of short tasks
    of audit/compare the default (INFO) shows every 25th task and the end of each batch, -v (DEBUG) each task."""
    from dpsco.verification.executors import SerialExecutor

    monkeypatch.setattr(sys, "stderr", io.StringIO())  # not a terminal
    logger = logging.getLogger("dpsco.test_every")
    for level, expected in ((logging.INFO, [25, 50, 60, 75, 90]), (logging.DEBUG, list(range(1, 91)))):
        caplog.clear()
        with caplog.at_level(level, logger="dpsco.test_every"):
            ex = conventions.track_executor(SerialExecutor(), "runs", logger=logger)  # default every = 25
            ex.map(lambda k: k, [(i,) for i in range(60)])  # a batch of 60 tasks: INFO at 25, 50 and its end
            ex.map(lambda k: k, [(i,) for i in range(30)])  # the total grows to 90: INFO at task 75 and at 90
            ex.close()
        done = [int(r.getMessage().split("/")[0].split()[-1]) for r in caplog.records if r.name == "dpsco.test_every"]
        assert done == expected, (level, done)
    with pytest.raises(ValueError, match="every"):
        progress.progress_bar(3, "work", every=0)


# ---------------------------------------------------------------------------------------------------- logging
def test_quiet_and_verbose_set_the_log_level(mech, capsys) -> None:
    assert main(["-q", *mech]) in (0, 1)  # -q: the seed line (INFO) is hidden; the record still has the seed
    out, err = capsys.readouterr()
    assert json.loads(out)["seed_drawn"] and not SEED_LINE.search(err)
    assert main([*PLAN, "-q", "--route", "gdp"]) == 0  # warnings still show at -q ...
    assert "deprecated" in capsys.readouterr().err
    assert main(["-qq", *PLAN, "--route", "gdp"]) == 0  # ... not at -qq
    assert "deprecated" not in capsys.readouterr().err
    assert main(["-v", "plan", "--family", "laplace", "--epsilon", "1", "--target-ratio", "2"]) == 2  # cheap
    assert logging.getLogger("dpsco").getEffectiveLevel() == logging.DEBUG


# ------------------------------------------------------------------------------------------------------- docs
def test_help_promises_no_timing_the_readme_does_not_state() -> None:
    text = _parsers()["verify"].format_help()
    assert "about a minute" not in text and "see README" in " ".join(text.split())


#: the modules whose error messages the commands print, and the commands whose options they may name
ERROR_SOURCES = {
    "verification/cli/audit.py": ("audit",), "verification/cli/audit_inputs.py": ("audit",),
    "verification/cli/usercode.py": ("audit", "compare"), "verification/cli/plan.py": ("plan",),
    "verification/cli/verify.py": ("verify",), "verification/cli/list_checks.py": ("verify",),
    "verification/campaign/verify.py": ("verify",), "verification/cli/conventions.py": tuple(COMMANDS),
    "verification/cli/compare.py": ("compare",),
}
_ERROR_CALLS = {"InputError", "ValueError", "ArgumentErrors", "add", "_check", "OutputError"}


def _error_strings(path: Path) -> list[str]:
    """The literal text of every message given to InputError/ValueError/ErrorCollector.add/... in ``path``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in _ERROR_CALLS:
                for arg in node.args:
                    out += [n.value for n in ast.walk(arg) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return out


def test_error_messages_suggest_only_options_the_command_has() -> None:
    parsers = _parsers()
    options = {name: {s for a in p._actions for s in a.option_strings} for name, p in parsers.items()}
    checked = 0
    for rel, commands in ERROR_SOURCES.items():
        known = set().union(*(options[c] for c in commands if c in options))
        for text in _error_strings(ROOT / rel):
            for flag in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text):
                checked += 1
                assert flag in known, (rel, flag, text)
    assert checked > 50  # the scan found the messages
