"""dpsco.testing on the harness-convention entries (issue 27): assert_matches_reference calls the candidate by
keyword, harness_instance gives one run's arguments, and the failure message shows family (b)'s statistic,
p-value, level and power as the CLI does (medians), never "bound None … -> NONE".
"""

from __future__ import annotations

import numpy as np
import pytest

import dpsco
from dpsco.reference.muabg23.algorithms_proximal import noisy_regularised_gd
from dpsco.testing import assert_matches_reference, harness_instance

ENTRY = "muabg23.noisy_gd"


def test_harness_instance_is_exported_and_replays_the_reference():
    assert dpsco.testing.harness_instance is harness_instance
    kw = harness_instance(ENTRY, seed=2)
    assert {"X", "subgradient", "w_c", "rho", "beta", "L0", "l1_tilde", "rng"} == set(kw)
    assert isinstance(kw["X"], np.ndarray) and isinstance(kw["rng"], np.random.Generator)
    out = noisy_regularised_gd(**kw).output
    assert np.all(np.isfinite(out))


def test_assert_matches_reference_calls_by_keyword():
    got = []

    def swapped(X, subgradient, w_c, beta, rho, L0, l1_tilde, rng):
        got.append((rho, beta))
        return noisy_regularised_gd(X, subgradient, w_c, rho, beta, L0, l1_tilde, rng)

    want = harness_instance(ENTRY)
    # False failure: the candidate is the reference once called by keyword: probability <= 1e-7 (compare's alpha)
    assert_matches_reference(swapped, ENTRY, samples=20, seed=1, confidence=1 - 1e-7, audit_samples=8,
                             run_audit=False)
    assert set(got) == {(want["rho"], want["beta"])} and want["rho"] != want["beta"]


def test_the_failure_message_shows_the_harness_utility_statistic():
    def constant(X, subgradient, w_c, rho, beta, L0, l1_tilde, rng):
        return np.full(np.shape(w_c), 3.0)      # a bare output, always the same point

    # Refuted with probability 1 up to a probability-0 tie: the reference's output has Gaussian noise (continuous),
    # so each coordinate's KS statistic against a constant is >= 1/2; tests/test_testing.py's
    # test_ks_two_sample_p_value_at_half_is_below_the_level shows 4 * p(D = 1/2, N = 100) <= 1e-7/6, and here
    # at most d + 1 = 3 KS tests share the Holm correction (level alpha/6 of family (a) at alpha = 1e-7).
    with pytest.raises(AssertionError) as info:
        assert_matches_reference(constant, ENTRY, samples=100, seed=4, confidence=1 - 1e-7, audit_samples=8,
                                 run_audit=False)
    msg = str(info.value)
    assert "NONE" not in msg and "bound None" not in msg
    assert "median excess candidate" in msg and "one-sided KS D+" in msg and "vs level" in msg
    assert "power:" in msg.split("(b) utility")[1]
    assert "min(1, 2 min(energy p, smallest Holm KS p))" in msg
    assert "claim against the paper's exact privacy on the worst pair: NOT REFUTED" in msg
    assert "'checks'" not in msg          # no raw dict dump


def test_the_release_by_hand_example_in_docs_testing_runs():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "testing.md").read_text(encoding="utf-8")
    block = doc.split("<!-- release-by-hand -->", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    exec(compile(block, "docs/testing.md (release by hand)", "exec"), {})   # raises if the example is wrong


def test_the_docs_users_read_state_the_lr21_defaults_and_options():
    # issue 27: help(lr21.algorithm_1) said "defaults: the theorem's"; docs/testing.md implied options= is needed
    from pathlib import Path

    doc = dpsco.lr21.algorithm_1.__doc__
    assert "the theorem's" not in doc
    assert "Theorem 0.3 (2b)" in doc and "proof of Theorem 2.2" in doc and "Theorem 0.2" in doc
    text = (Path(__file__).resolve().parents[1] / "docs" / "testing.md").read_text(encoding="utf-8")
    assert "passed to your candidate **automatically**" in text
    assert "How the verdict is formed" in text
