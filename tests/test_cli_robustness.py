"""Robustness of ``dpsco audit`` / ``dpsco compare`` against what user code and the shell do.

* user code that exits (``sys.exit(0)``, ``sys.exit(1)``, ``raise SystemExit``), at import or when run, is bad
  input: exit status 2 and a one-line error on stderr, never a silent exit 0 ("not refuted");
* exceptions of user code: exit 2, one line, even for a multi-line message;
* ``KeyboardInterrupt`` interrupts: exit 130, no traceback, nothing on stdout;
* ``MODULE:CALLABLE`` with MODULE in the current directory is found (cwd at the front of sys.path);
* what user code prints goes to stderr: with ``--json`` stdout is exactly one JSON record;
* a closed stdout (``| head``) ends the command quietly (status 141, no traceback).

Most cases run in-process through the dispatcher ``dpsco.verification.cli.main.main`` with the current directory taken
off ``sys.path`` (as for the installed ``dpsco`` script); the interrupt, the closed pipe and one end-to-end run
use a subprocess (``python -P -m dpsco.verification.cli.main``: -P keeps the current directory off sys.path).  No
assertion depends on a random outcome: the audited mechanisms either never return or are noiseless
(deterministic verdict), and the verdict of the compare run (8 samples) is not asserted, only its output.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest

from dpsco.verification.cli import audit as audit_cli
from dpsco.verification.cli import compare as compare_cli
from dpsco.verification.cli import usercode

pytest.importorskip("dpsco.verification.campaign.verify")  # the dispatcher builds every subcommand's parser
from dpsco.verification.cli.main import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CMD = [sys.executable, "-P", "-m", "dpsco.verification.cli.main"]

MECHS = textwrap.dedent(
    """
    import sys
    import numpy as np

    print("mechs module imported")

    def noiseless(data, rng):
        print("noiseless called")
        return np.array([data["x"].sum()])

    def exit0(data, rng):
        sys.exit(0)

    def exit1(data, rng):
        sys.exit(1)

    def bare_exit(data, rng):
        raise SystemExit

    def interrupt(data, rng):
        raise KeyboardInterrupt

    def boom(data, rng):
        raise RuntimeError("boom")

    def multiline(data, rng):
        raise ValueError("first line\\nsecond line")

    def canary_exit(data, mask, rng):
        sys.exit(0)
    """
)

CANDIDATES = textwrap.dedent(
    """
    import sys

    from dpsco.verification.mutants.bftt19.implementations import faithful_nsgd

    print("candidates module imported")

    def chatty(X, y, problem, epsilon, delta, rng, replicates=None):
        print("chatty candidate says hello")
        return faithful_nsgd(X, y, problem, epsilon, delta, rng, replicates=replicates)

    def quitter(X, y, problem, epsilon, delta, rng):
        sys.exit(0)

    def printer(X, y, problem, epsilon, delta, rng):  # no replicates: its runs go to the workers
        print("printer called")
        return faithful_nsgd(X, y, problem, epsilon, delta, rng)
    """
)

USER_MODULES = ("dpsco_rob_mechs", "dpsco_rob_candidates", "dpsco_rob_exits")


@pytest.fixture()
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """User modules in tmp_path, which is the current directory and NOT on sys.path (restored afterwards)."""
    (tmp_path / "dpsco_rob_mechs.py").write_text(MECHS)
    (tmp_path / "dpsco_rob_exits.py").write_text("import sys\nsys.exit(0)\n")
    (tmp_path / "dpsco_rob_candidates.py").write_text(CANDIDATES)
    np.savez(tmp_path / "a.npz", x=np.array([0.0, 0.0, 1.0]))
    np.savez(tmp_path / "b.npz", x=np.array([0.0, 0.0, 0.0]))
    monkeypatch.chdir(tmp_path)
    here = {"", ".", str(tmp_path), os.path.realpath(tmp_path)}
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in here])
    for name in USER_MODULES:
        monkeypatch.delitem(sys.modules, name, raising=False)
    yield tmp_path
    for name in USER_MODULES:
        sys.modules.pop(name, None)


# --workers 1: user code runs in this process, where capsys sees what it prints (the process-pool path is
# test_pool_workers_print_to_stderr_and_keep_stdout_clean)
AUDIT_ARGS = ("--dataset", "a.npz", "--neighbour", "b.npz", "--epsilon", "1", "--delta", "0", "--samples", "40",
              "--seed", "3", "--workers", "1")


def _one_line_error(err: str, command: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.startswith(f"dpsco {command}: error:")]
    assert len(lines) == 1, err
    assert "Traceback" not in err, err
    return lines[0]


# ---------------------------------------------------------------------------------------------------------
# user code that exits or raises: exit 2, one line on stderr, nothing on stdout
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("target", "needle"), [
    ("dpsco_rob_mechs.py:exit0", "the mechanism dpsco_rob_mechs.py:exit0 called sys.exit(0)"),
    ("dpsco_rob_mechs.py:exit1", "called sys.exit(1)"),
    ("dpsco_rob_mechs.py:bare_exit", "raised SystemExit"),
    ("dpsco_rob_exits.py:f", "importing dpsco_rob_exits.py called sys.exit(0)"),
    ("dpsco_rob_exits:f", "importing module 'dpsco_rob_exits' called sys.exit(0)"),
    ("dpsco_rob_mechs.py:boom", "RuntimeError: boom"),
    ("dpsco_rob_mechs.py:multiline", "first line second line"),
])
def test_audit_user_code_exit_or_exception_is_bad_input(work: Path, capsys: pytest.CaptureFixture[str],
                                                        target: str, needle: str) -> None:
    code = main(["audit", target, *AUDIT_ARGS, "--json"])
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert out == ""
    line = _one_line_error(err, "audit")
    assert needle in line
    if "exit" in needle.lower():
        assert "must return its output" in line


def test_audit_one_run_mechanism_exit_is_bad_input(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", "dpsco_rob_mechs.py:canary_exit", "--estimator", "one-run", "--canaries", "4",
                 "--dataset", "a.npz", "--epsilon", "1", "--delta", "0", "--seed", "1", "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert "called sys.exit(0)" in _one_line_error(err, "audit")


# ---------------------------------------------------------------------------------------------------------
# loading from the current directory; user prints go to stderr
# ---------------------------------------------------------------------------------------------------------
def test_audit_module_in_current_directory_and_json_stdout_is_clean(work: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    # Noiseless mechanism, outputs 1 vs 0: refuted deterministically (exit 1).
    code = main(["audit", "dpsco_rob_mechs:noiseless", *AUDIT_ARGS, "--json"])
    out, err = capsys.readouterr()
    assert code == 1, err
    rec = json.loads(out)  # only the JSON record on stdout
    assert rec["verdict"] == "refuted" and rec["mechanism"] == "dpsco_rob_mechs:noiseless"
    assert out.count("\n") == 1
    assert "mechs module imported" in err and "noiseless called" in err
    assert sys.path[0] == str(work)  # at the front, as python -m does


def test_audit_file_target_prints_go_to_stderr(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", "dpsco_rob_mechs.py:noiseless", *AUDIT_ARGS])
    out, err = capsys.readouterr()
    assert code == 1 and "REFUTED" in out
    assert "noiseless called" not in out and "mechs module imported" not in out
    assert "noiseless called" in err


# ---------------------------------------------------------------------------------------------------------
# dpsco compare: the same loader and guards
# ---------------------------------------------------------------------------------------------------------
COMPARE_ARGS = ("--against", "bftt19.nsgd", "--instance", "synthetic", "--samples", "8", "--seed", "1", "--workers", "1")


@pytest.mark.parametrize("command", ["audit", "compare"])
def test_pool_workers_print_to_stderr_and_keep_stdout_clean(work: Path, command: str) -> None:
    # the user's code runs in 2 worker processes, which write to the real file descriptors: stdout must still
    # carry only the JSON record, and what the code printed must reach stderr; an exit in a worker is bad input
    import subprocess

    cli = "import sys; from dpsco.verification.cli.main import main; sys.exit(main(sys.argv[1:]))"
    args = (["audit", "dpsco_rob_mechs:noiseless", *AUDIT_ARGS[:-2]] if command == "audit" else
            ["compare", "dpsco_rob_candidates:printer", *COMPARE_ARGS[:-2]])
    done = subprocess.run([sys.executable, "-c", cli, *args, "--workers", "2", "--json"], cwd=work,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1), done.stderr
    assert len(done.stdout.splitlines()) == 1 and json.loads(done.stdout)["verdict"] in ("refuted", "not refuted")
    assert ("noiseless called" if command == "audit" else "printer called") in done.stderr
    if command == "audit":
        quit_args = ["audit", "dpsco_rob_mechs:exit0", *AUDIT_ARGS[:-2], "--workers", "2"]
        done = subprocess.run([sys.executable, "-c", cli, *quit_args], cwd=work, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 2 and "called sys.exit(0)" in done.stderr and done.stdout == ""


@pytest.mark.parametrize(("target", "needle"), [
    ("dpsco_rob_candidates:quitter", "the implementation dpsco_rob_candidates:quitter called sys.exit(0)"),
    ("dpsco_rob_exits.py:f", "importing dpsco_rob_exits.py called sys.exit(0)"),
])
def test_compare_candidate_exit_is_bad_input(work: Path, capsys: pytest.CaptureFixture[str], target: str,
                                             needle: str) -> None:
    code = main(["compare", target, *COMPARE_ARGS, "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert needle in _one_line_error(err, "compare")


def test_compare_module_in_current_directory_and_json_stdout_is_clean(work: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    # Verdict not asserted (8 runs, random); only that stdout is exactly the JSON record.
    code = main(["compare", "dpsco_rob_candidates:chatty", *COMPARE_ARGS, "--json"])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    rec = json.loads(out)
    assert rec["candidate"] == "dpsco_rob_candidates:chatty"
    assert "candidates module imported" in err and "chatty candidate says hello" in err


# ---------------------------------------------------------------------------------------------------------
# a closed stdout: no traceback, status 141
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("line_buffered", [False, True])
def test_closed_stdout_in_process(work: Path, monkeypatch: pytest.MonkeyPatch, line_buffered: bool) -> None:
    # The write end of a pipe whose reader is gone: print (line-buffered, as PYTHONUNBUFFERED) or the final
    # flush (block-buffered, as a pipe normally is) raises BrokenPipeError.
    r, w = os.pipe()
    os.close(r)
    stream = io.TextIOWrapper(io.FileIO(w, "w"), line_buffering=line_buffered, write_through=line_buffered)
    monkeypatch.setattr(sys, "stdout", stream)
    try:
        code = main(["audit", "dpsco_rob_mechs.py:noiseless", *AUDIT_ARGS])
        assert code == 141
        stream.write("more\n")
        stream.flush()  # stdout now points at devnull: no second error
    finally:
        monkeypatch.undo()
        stream.close()


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONUNBUFFERED", None)
    env.update(extra)
    return env


def test_closed_stdout_subprocess(work: Path) -> None:
    proc = subprocess.Popen([*CMD, "audit", "dpsco_rob_mechs.py:noiseless", *AUDIT_ARGS], cwd=work,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader goes away before the command writes anything (like `| head` exiting)
    err = proc.stderr.read().decode()
    proc.stderr.close()
    code = proc.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipeError" not in err and "Exception ignored" not in err, err
    assert code == 141


# ---------------------------------------------------------------------------------------------------------
# subprocess: Ctrl-C, and one end-to-end run as the installed script sees sys.path
# ---------------------------------------------------------------------------------------------------------
def test_keyboard_interrupt_exits_130_without_traceback(work: Path) -> None:
    proc = subprocess.run([*CMD, "audit", "dpsco_rob_mechs.py:interrupt", *AUDIT_ARGS, "--json"], cwd=work,
                          capture_output=True, text=True, env=_env(), timeout=120)
    assert proc.returncode == 130
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr and "dpsco: interrupted" in proc.stderr


def test_end_to_end_module_in_cwd_json_only_on_stdout(work: Path) -> None:
    proc = subprocess.run([*CMD, "audit", "dpsco_rob_mechs:noiseless", *AUDIT_ARGS, "--json"], cwd=work,
                          capture_output=True, text=True, env=_env(PYTHONUNBUFFERED="1"), timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["verdict"] == "refuted"
    assert "noiseless called" in proc.stderr and "noiseless called" not in proc.stdout


# ---------------------------------------------------------------------------------------------------------
# one shared loader
# ---------------------------------------------------------------------------------------------------------
def test_one_shared_loader() -> None:
    assert audit_cli.load_mechanism is usercode.load_mechanism
    assert compare_cli.load_mechanism is usercode.load_mechanism
    text = (ROOT / "verification" / "cli" / "compare.py").read_text()
    assert "cli.audit" not in text and "cli import audit" not in text


def test_input_error_is_one_line() -> None:
    assert str(usercode.InputError("a\nb\n  c")) == "a b c"
