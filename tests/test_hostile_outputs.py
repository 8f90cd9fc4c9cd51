"""Outputs a float cast would silently change (issue: verdicts that hold against hostile input, item 2).

A mechanism ``laplace + 1j·Σx`` is ε = ∞ (the imaginary part is the exact sum) yet passed ε = 1 with exit 0:
``samples.py``, ``one_run.py`` and ``compare.py`` cast outputs to float64, dropping the imaginary part.  Every
output now goes through :func:`dpsco.verification.auditing.inputs.as_real_output`, which refuses complex
outputs and any lossy cast (integers beyond 2⁵³, long doubles, big Python ints, Decimals, strings).

Deterministic: the refusals happen on the first run, before any statistic is computed.
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest

from dpsco.verification.auditing.audit import audit
from dpsco.verification.auditing.inputs import as_real_output

A = {"x": np.array([0.0, 0.0, 1.0])}
B = {"x": np.array([0.0, 0.0, 0.0])}


def complex_leak(data, rng):
    """Laplace noise on the real part, the exact sum on the imaginary part: not private at any ε."""
    return np.array([rng.laplace(0.0, 1.0) + 1j * data["x"].sum()])


class ComplexSampler:
    def __call__(self, data, rng):
        return complex_leak(data, rng)

    def sample(self, data, n, rng):
        return rng.laplace(0.0, 1.0, (n, 1)) + 1j * data["x"].sum()


def big_int_leak(data, rng):
    """2⁶⁰ + Σx: both neighbours round to the same float64, so a float audit sees identical outputs."""
    return np.array([2**60 + int(data["x"].sum())], dtype=np.int64)


@pytest.mark.parametrize("mechanism", [complex_leak, ComplexSampler(), big_int_leak],
                         ids=["complex", "complex-sample", "int64-beyond-2^53"])
def test_lossy_outputs_are_refused_not_audited(mechanism):
    with pytest.raises(ValueError, match="complex|cannot hold exactly"):
        audit(mechanism, A, B, (1.0, 0.0), 2000, np.random.default_rng(0))


#: a mechanism that must never run: the CLI refuses the input first
NEVER_RUNS = "def f(data, rng):\n    raise AssertionError('the mechanism ran although the input is bad')\n"


def _cli(tmp_path, monkeypatch, argv, source=NEVER_RUNS):
    """``dpsco audit mech:f --dataset a.npz --epsilon 1 --delta 0 --seed 1 *argv`` with ``source`` as mech.py."""
    import argparse

    from dpsco.verification.cli.audit import configure_parser, run

    (tmp_path / "mech.py").write_text("import numpy as np\n" + source)
    np.savez(tmp_path / "a.npz", **A)
    np.savez(tmp_path / "b.npz", **B)
    monkeypatch.chdir(tmp_path)
    p = argparse.ArgumentParser()
    configure_parser(p)
    return run(p.parse_args(["mech:f", "--dataset", "a.npz", "--epsilon", "1", "--delta", "0", "--seed", "1",
                             *argv]))


def test_the_cli_exits_2_on_complex_output(tmp_path, monkeypatch, capsys):
    leaky = "def f(data, rng):\n    return np.array([rng.laplace() + 1j * data['x'].sum()])\n"
    assert _cli(tmp_path, monkeypatch, ["--neighbour", "b.npz", "--samples", "2000"], leaky) == 2
    assert "complex" in capsys.readouterr().err


@pytest.mark.parametrize("value", [np.array([1 + 0j]), np.array(["1.5"]), np.array([2**53 + 1], dtype=np.int64),
                                   np.array([2**64 + 1], dtype=object), np.array([Decimal("0.1")], dtype=object),
                                   np.array([1], dtype=np.longdouble) + np.longdouble(2.0) ** -60,
                                   np.array(["2020-01-01"], dtype="datetime64[D]")])
def test_as_real_output_refuses_lossy_casts(value):
    with pytest.raises(ValueError):
        as_real_output(value)


@pytest.mark.parametrize("value, expected", [(np.array([1.5, -2.0]), [1.5, -2.0]), (np.array([True, False]), [1, 0]),
                                             (np.array([2**53], dtype=np.int64), [2.0**53]), ([3, 2.5], [3.0, 2.5]),
                                             (np.array([7], dtype=object), [7.0]),
                                             (np.array([0.25], dtype=np.longdouble), [0.25]),
                                             (np.array([np.inf, np.nan]), [np.inf, np.nan])])
def test_as_real_output_keeps_exact_values(value, expected):
    out = as_real_output(value)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, np.array(expected, dtype=np.float64))


# ---- item 9: randomness that does not come from the rng given ------------------------------------------------


def global_numpy_laplace(data, rng):
    """Draws from np.random's global state, not from rng: the same seed gives different audits."""
    return np.array([data["x"].sum() + np.random.laplace(0.0, 1.0)])


def test_a_mechanism_ignoring_its_rng_is_flagged_loudly_and_refused_in_parallel():
    from dpsco.verification.auditing.samples import reproducibility_check

    assert reproducibility_check(global_numpy_laplace, A)["reproducible"] is False
    assert reproducibility_check(lambda d, r: np.array([r.laplace()]), A)["reproducible"] is True
    r = audit(global_numpy_laplace, A, B, (1.0, 0.0), 2000, np.random.default_rng(0))
    assert r.reproducible is False and any("DIFFER" in w for w in r.warnings)
    assert r.to_dict()["reproducible"] is False and "WARNING" in r.summary()
    with pytest.raises(ValueError, match="workers > 1"):
        audit(global_numpy_laplace, A, B, (1.0, 0.0), 2000, np.random.default_rng(0), workers=2)
    ok = audit(lambda d, rng: np.array([d["x"].sum() + rng.laplace()]), A, B, (1.0, 0.0), 2000,
               np.random.default_rng(0))
    assert ok.reproducible is True and not ok.warnings


# ---- item 10: absurd sizes and vacuous pairs are refused at once ------------------------------------------------


@pytest.mark.parametrize("argv, message", [
    (["--neighbour", "b.npz", "--samples", str(10**12 + 1)], "at most 1e+12"),
    (["--neighbour", "b.npz", "--samples", "1000", "--sequential", "--max-samples", str(10**13)], "--max-samples"),
    (["--neighbour", "b.npz", "--samples", "1000", "--workers", str(10**6)], "--workers"),
    (["--neighbour", "a.npz", "--samples", "1000"], "vacuous"),
])
def test_absurd_sizes_and_identical_datasets_are_refused_before_any_run(tmp_path, monkeypatch, capsys, argv,
                                                                        message):
    assert _cli(tmp_path, monkeypatch, argv) == 2
    assert message in capsys.readouterr().err


def test_validate_workers_refuses_absurd_counts():
    from dpsco.verification.executors import max_workers, validate_workers

    assert validate_workers(max_workers()) == max_workers()
    with pytest.raises(ValueError, match="at most"):
        validate_workers(max_workers() + 1)


def test_compare_refuses_runs_beyond_the_validated_range(capsys):
    from dpsco.verification.cli.main import main

    assert main(["compare", "nowhere:f", "--against", "lr21.alg2", "--samples", str(10**13)]) == 2
    assert "validated range" in capsys.readouterr().err
