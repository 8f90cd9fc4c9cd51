"""Tests of the ``dpsco audit`` subcommand (verification.audit_cli).

The parser is built here with ``configure_parser`` (the top-level ``dpsco`` parser also needs
verification.verify, which is tested elsewhere).  Stochastic assertions: the "not refuted" case runs at
confidence 1 − 1e-6, so its false-failure probability is <= 1e-6 by the auditor's guarantee; the "refuted"
case uses a noiseless mechanism, so its outcome is deterministic.
"""

from __future__ import annotations

import argparse
import json
import math
import textwrap
from pathlib import Path

import numpy as np
import pytest

from verification.audit_cli import configure_parser, run

MECH_SOURCE = textwrap.dedent(
    """
    import numpy as np

    class LaplaceSum:
        def __init__(self, scale):
            self.scale = scale

        def __call__(self, data, rng):
            return np.array([data["x"].sum() + rng.laplace(0.0, self.scale)])

        def sample(self, data, n, rng):
            return data["x"].sum() + rng.laplace(0.0, self.scale, size=(n, 1))

    laplace_eps1 = LaplaceSum(1.0)

    def noiseless(data, rng):
        return np.array([data["x"].sum()])

    def broken(data, rng):
        raise RuntimeError("boom")

    not_callable = 3

    from dataclasses import dataclass

    @dataclass
    class GaussianSum:
        sigma: float

        def __call__(self, data: "dict", rng: "np.random.Generator") -> np.ndarray:
            return np.atleast_1d(data["x"].sum() + rng.normal(0.0, self.sigma))

    gaussian = GaussianSum(5.0)
    """
)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dpsco audit")
    configure_parser(p)
    return p


def _run(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    return int(args.run(args))


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, str]:
    mech = tmp_path / "mech.py"
    mech.write_text(MECH_SOURCE)
    a, b, far = tmp_path / "a.npz", tmp_path / "b.npz", tmp_path / "far.npz"
    np.savez(a, x=np.array([0.0, 0.0, 1.0]))
    np.savez(b, x=np.array([0.0, 0.0, 0.0]))
    np.savez(far, x=np.array([1.0, 0.0, 0.0]))  # differs from a in two records
    np.save(tmp_path / "single.npy", np.zeros(3))
    (tmp_path / "garbage.npz").write_text("not a zip")
    return {"mech": str(mech), "a": str(a), "b": str(b), "far": str(far), "dir": str(tmp_path)}


def _argv(files: dict[str, str], target: str, *extra: str, eps: str = "1", delta: str = "0",
          samples: str = "20000", seed: str = "7") -> list[str]:
    return [target, "--dataset", files["a"], "--neighbour", files["b"], "--epsilon", eps, "--delta", delta,
            "--samples", samples, "--seed", seed, *extra]


def test_true_claim_exit_0_json(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    # Laplace scale 1 is exactly ε = 1: at confidence 1 − 1e-6 a refutation has probability <= 1e-6.
    code = _run(_argv(files, f"{files['mech']}:laplace_eps1", "--confidence", "0.999999", "--json"))
    out = capsys.readouterr().out
    assert code == 0
    rec = json.loads(out)
    for key in ("epsilon_lower", "confidence", "samples", "claim", "verdict", "estimator", "statistic", "seed_entropy"):
        assert key in rec
    assert rec["verdict"] == "not refuted"
    assert rec["samples"] == 20000 and rec["confidence"] == 0.999999
    assert rec["seed_entropy"] == 7
    assert rec["claim"] == {
        "notion": "pure-DP", "epsilon": 1.0, "delta": 0.0, "neighbouring": "replace-one",
        "source": "user-declared", "assumptions": {}, "conditions": [],
    }
    assert 0.0 <= rec["epsilon_lower"] <= 1.0


def test_refuted_exit_1(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    # Noiseless mechanism: outputs 1 vs 0, so the test counts are 500/500 vs 0/500 deterministically and
    # ε_lb = log((a^{1/500} − δ)/(1 − a^{1/500})), a = 0.025, far above the claim.
    code = _run(_argv(files, f"{files['mech']}:noiseless", "--json", eps="2", delta="1e-6", samples="1000"))
    rec = json.loads(capsys.readouterr().out)
    assert code == 1 and rec["verdict"] == "refuted"
    a = 0.025 ** (1 / 500)
    assert rec["epsilon_lower"] == pytest.approx(math.log((a - 1e-6) / (1 - a)), rel=1e-12)
    assert rec["claim"]["notion"] == "approx-DP"


def test_human_summary_and_dotted_module(files: dict[str, str], capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = Path(files["dir"]) / "dpsco_cli_test_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mechs.py").write_text(MECH_SOURCE)
    monkeypatch.syspath_prepend(files["dir"])
    code = _run(_argv(files, "dpsco_cli_test_pkg.mechs:noiseless", samples="100"))
    out = capsys.readouterr().out
    assert code == 1
    assert "REFUTED" in out and "seed entropy: 7" in out


@pytest.mark.parametrize(
    "target_key, extra, kwargs, message",
    [
        ("missing_file", [], {}, "not found"),
        ("no_colon", [], {}, "MODULE:CALLABLE"),
        ("bad_attr", [], {}, "no attribute"),
        ("not_callable", [], {}, "not callable"),
        ("bad_module", [], {}, "cannot import"),
        ("ok", [], {"eps": "abc"}, "--epsilon"),
        ("ok", [], {"eps": "-1"}, "--epsilon"),
        ("ok", [], {"eps": "inf"}, "--epsilon"),
        ("ok", [], {"delta": "1.5"}, "--delta"),
        ("ok", [], {"samples": "2"}, "--samples"),
        ("ok", [], {"samples": "1e3"}, "--samples"),
        ("ok", [], {"seed": "-3"}, "--seed"),
        ("ok", ["--confidence", "1"], {}, "--confidence"),
        ("ok", ["--statistic", "median"], {}, "statistic"),
        ("broken", [], {}, "RuntimeError: boom"),
    ],
)
def test_bad_input_exit_2(files: dict[str, str], capsys: pytest.CaptureFixture[str], target_key: str,
                          extra: list[str], kwargs: dict[str, str], message: str) -> None:
    targets = {
        "missing_file": f"{files['dir']}/nope.py:f",
        "no_colon": files["mech"],
        "bad_attr": f"{files['mech']}:nothing_here",
        "not_callable": f"{files['mech']}:not_callable",
        "bad_module": "no_such_module_dpsco_xyz:f",
        "ok": f"{files['mech']}:laplace_eps1",
        "broken": f"{files['mech']}:broken",
    }
    code = _run(_argv(files, targets[target_key], *extra, samples=kwargs.get("samples", "100"),
                      **{k: v for k, v in kwargs.items() if k != "samples"}))
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert err.count("\n") == 1 and err.startswith("dpsco audit: error:")


@pytest.mark.parametrize("which, message", [("missing", "not found"), ("garbage", "not a readable .npz"),
                                            ("single", "single .npy"), ("far", "differ in 2 records")])
def test_bad_dataset_files_exit_2(files: dict[str, str], capsys: pytest.CaptureFixture[str], which: str,
                                  message: str) -> None:
    path = {"missing": f"{files['dir']}/missing.npz", "garbage": f"{files['dir']}/garbage.npz",
            "single": f"{files['dir']}/single.npy", "far": files["far"]}[which]
    argv = _argv(files, f"{files['mech']}:laplace_eps1", samples="100")
    argv[argv.index("--neighbour") + 1] = path
    code = _run(argv)
    err = capsys.readouterr().err
    assert code == 2 and message in err


def test_loop_mechanism_defined_with_a_dataclass(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    # A file-loaded module using @dataclass needs registering in sys.modules; no sample(): the loop path.
    # σ = 5 with Δ = 1 gives exact ε(1e-5) ≈ 0.73 < 1 (gaussian_epsilon): at confidence 1 − 1e-6 a refutation has
    # probability <= 1e-6 (audit guarantee).
    code = _run(_argv(files, f"{files['mech']}:gaussian", "--json", "--confidence", "0.999999", delta="1e-5",
                      samples="400"))
    rec = json.loads(capsys.readouterr().out)
    assert code == 0 and rec["details"]["sampler"].startswith("loop")


def test_neighbor_alias_and_set_defaults(files: dict[str, str]) -> None:
    p = _parser()
    args = p.parse_args([f"{files['mech']}:noiseless", "--dataset", files["a"], "--neighbor", files["b"],
                         "--epsilon", "1", "--delta", "0", "--samples", "10", "--seed", "1"])
    assert args.neighbour == files["b"] and args.run is run


def test_through_the_dpsco_entry_point(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    # The real dispatcher (verification.cli:main) also imports verification.verify; skip if it is absent.
    pytest.importorskip("verification.verify")
    from verification.cli import main

    code = main(["audit", *_argv(files, f"{files['mech']}:noiseless", "--json", samples="100")])
    rec = json.loads(capsys.readouterr().out)
    assert code == 1 and rec["verdict"] == "refuted" and rec["mechanism"].endswith(":noiseless")


def test_estimator_option_and_epsilon_true(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    # hockey-stick: a true (1, 0) claim of the Laplace(1) mechanism at confidence 1 − 1e-6: not refuted
    # except with probability <= 1e-6.
    code = _run(_argv(files, f"{files['mech']}:laplace_eps1", "--estimator", "hockey-stick", "--confidence",
                      "0.999999", "--epsilon-true", "1", "--json"))
    rec = json.loads(capsys.readouterr().out)
    assert code == 0 and rec["estimator_kind"] == "hockey-stick" and rec["epsilon_true"] == 1.0
    assert rec["delta_lower"] is not None
    # gdp needs δ > 0: bad input
    assert _run(_argv(files, f"{files['mech']}:laplace_eps1", "--estimator", "gdp")) == 2
    assert "delta > 0" in capsys.readouterr().err
    # the noiseless mechanism is refuted by every route (deterministic)
    assert _run(_argv(files, f"{files['mech']}:noiseless", "--estimator", "gdp", delta="1e-5")) == 1
