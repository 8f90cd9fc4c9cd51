"""The harness convention of ``dpsco compare`` (verification/campaign/compare_suite.py), issue 27: the candidate is
called BY KEYWORD (the reference function's parameter names, in any order), a candidate whose names do not match is
refused before any run, ``harness_instance`` gives one run's exact arguments, and ``--show-signature``'s text shows
the objects' calling conventions and the parameters the reference resolves at the harness instance.

Deterministic except where a comment states the false-failure probability.
"""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest

from dpsco.reference.muabg23.algorithms_proximal import noisy_regularised_gd
from dpsco.verification.campaign.compare import compare
from dpsco.verification.campaign.compare_suite import harness_instance, keyword_candidate
from dpsco.verification.papers.harness import harness_registry
from dpsco.verification.papers.signatures import compare_signature

ENTRY = "muabg23.noisy_gd"


def _reference_arguments(entry: str) -> dict:
    """What the harness passes the reference in one run (recorded here, independently of compare_suite)."""
    sig = compare_signature(entry)
    fn = sig.reference_function()
    harness = harness_registry()[entry]
    seen: dict = {}

    def recorder(*args, **kwargs):
        seen.update(inspect.signature(fn).bind(*args, **kwargs).arguments)
        return fn(*args, **kwargs)

    rng = np.random.default_rng(0)
    harness.run(harness.records(rng), rng, algorithm=recorder)
    return seen


def test_a_candidate_with_the_reference_names_in_another_order_receives_the_right_values():
    # The outside user's report: swapped(..., beta, rho, ...) received rho = 0.1, beta = 0.05 (positional call).
    want = _reference_arguments(ENTRY)
    got: list[tuple[float, float]] = []

    def swapped(X, subgradient, w_c, beta, rho, L0, l1_tilde, rng):
        got.append((rho, beta))
        return noisy_regularised_gd(X, subgradient, w_c, rho, beta, L0, l1_tilde, rng)

    # False failure: the candidate IS the reference once the values arrive right, so compare refutes it with
    # probability <= 1 - confidence = 1e-7 (its overall alpha; Bonferroni over its families).
    res = compare(swapped, ENTRY, instance="harness", samples=20, audit_samples=8, seed=3, confidence=1 - 1e-7,
                  run_audit=False)
    assert got and all(g == (want["rho"], want["beta"]) for g in got), (got[:3], want["rho"], want["beta"])
    assert want["rho"] != want["beta"]          # the swap would be visible
    assert res.verdict == "not refuted", res.refuted_by


def test_a_candidate_whose_names_differ_is_refused_before_any_run():
    calls = []

    def renamed(X, subgradient, w_c, rho, beta, L0, l1, rng):      # l1 instead of l1_tilde
        calls.append(1)
        return noisy_regularised_gd(X, subgradient, w_c, rho, beta, L0, l1, rng)

    with pytest.raises(ValueError) as info:
        compare(renamed, ENTRY, instance="harness", samples=10, audit_samples=8, seed=0, run_audit=False)
    msg = str(info.value)
    assert "missing (not accepted by keyword): l1_tilde" in msg and "unexpected (required, never passed): l1 " in msg
    assert calls == []


def test_keyword_candidate_accepts_kwargs_and_optional_extras():
    sig = compare_signature(ENTRY)
    seen = {}

    def loose(rng, **kw):
        seen.update(kw)
        return noisy_regularised_gd(rng=rng, **kw)

    def extra(X, subgradient, w_c, rho, beta, L0, l1_tilde, rng, my_option=3):
        return noisy_regularised_gd(X, subgradient, w_c, rho, beta, L0, l1_tilde, rng)

    harness = harness_registry()[ENTRY]
    rng = np.random.default_rng(1)
    records = harness.records(rng)
    harness.run(records, rng, algorithm=keyword_candidate(loose, sig, "loose"))
    assert set(seen) | {"rng"} == set(sig.input_names)
    harness.run(records, rng, algorithm=keyword_candidate(extra, sig, "extra"))
    with pytest.raises(ValueError, match="positional_only|missing.*X"):
        keyword_candidate(lambda X, /, subgradient, w_c, rho, beta, L0, l1_tilde, rng: None, sig, "posonly")


def test_harness_instance_is_what_the_candidate_receives_in_that_run_of_compare():
    first: dict = {}

    def recorder(**kw):
        if not first:
            first.update({k: (v.bit_generator.state if isinstance(v, np.random.Generator) else
                              np.array(v, copy=True) if isinstance(v, np.ndarray) else v) for k, v in kw.items()})
        return noisy_regularised_gd(**kw)

    # False failure: the candidate is the reference: refuted with probability <= 1e-7 (compare's overall alpha).
    compare(recorder, ENTRY, instance="harness", samples=10, audit_samples=8, seed=5, confidence=1 - 1e-7,
            run_audit=False)
    inst = harness_instance(ENTRY, seed=5, run=0)
    assert set(inst) == set(first)
    np.testing.assert_array_equal(inst["X"], first["X"])
    assert inst["rng"].bit_generator.state == first["rng"]
    assert inst["rho"] == first["rho"] and inst["subgradient"] is first["subgradient"]
    # replaying it gives the run's release; fresh copies each call
    a = noisy_regularised_gd(**harness_instance(ENTRY, seed=5)).output
    b = noisy_regularised_gd(**harness_instance(ENTRY, seed=5)).output
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="logistic"):
        harness_instance("bftt19.nsgd")
    with pytest.raises(ValueError, match="seed"):
        harness_instance(ENTRY, seed=-1)


@pytest.mark.parametrize("entry", ["accd22.algorithm_1", "muabg23.noisy_gd", "alt24.blap"])
def test_show_signature_prints_the_resolved_parameters_and_the_objects_conventions(entry):
    sig = compare_signature(entry)
    harness = harness_registry()[entry]
    rng = np.random.default_rng(0)
    params = harness.run(harness.records(rng), rng).parameters        # the reference release's public parameters
    text = sig.to_text()
    assert "resolved at the harness instance" in text
    for k, v in params.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            assert f"    {k} = {v!r}" in text, (k, v)
    record = sig.to_dict()
    json.dumps(record, allow_nan=False)
    assert set(record["resolved_parameters"]) == set(params)


def test_the_accd22_conventions_and_the_muabg23_subgradient_are_documented_in_the_signature():
    text = compare_signature("accd22.algorithm_1").to_text()
    # n = 24 records, T5 = 7 phases (the reference's release): n0 = ⌊24/7⌋ = 3 (hand derivation)
    assert "    T5 = 7" in text and "    n0 = 3" in text
    assert ".extended_grad(X, Z, L)" in text and "(R, n, d)" in text
    text = compare_signature("muabg23.noisy_gd").to_text()
    assert "subgradient: function curved_linear(W" in text and "(R, n, d)" in text and "NaN" in text
