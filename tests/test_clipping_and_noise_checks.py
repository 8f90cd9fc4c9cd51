"""The core clipping (``dpsco.reference.clipping``), the measured-noise check (``dpsco.verification.checks.noise``)
and the generic σ/√2 planted bug (``dpsco.verification.mutants.noise_scale``).

Clipping: hypothesis properties over rows with entries from 1e-320 to 1.7e308 (and ±inf, NaN): the clipped norm is
≤ C *as computed*, rows already within the bound are returned bit for bit, the direction of a finite row is kept, and
the fail-safe is the identity (the same object) on bounded input.  Golden norms are hand-derived (3-4-5 triangles
scaled by powers of two, which are exact in binary floating point).

Noise check: the exact false-failure rate of the one-sided χ² test is α by construction (χ² quantile); it is
checked here on residuals whose sum of squares is set by hand exactly at and just beside the quantile, so no test
here is stochastic except the two marked ones, whose budgets are stated beside them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from dpsco.reference.clipping import clip_rows, enforce_norm_bound, row_norms
from dpsco.verification.checks.noise import DEFAULT_ALPHA, measured_noise_check, miss_probability
from dpsco.verification.mutants.noise_scale import SCALE, UnderNoisedGenerator, under_noised

MAGNITUDES = st.one_of(st.sampled_from([0.0, 5e-324, 1e-320, 1e-300, 1e-150, 1.0, 1e150, 1e300, 1.7e308]),
                       st.floats(min_value=-1.7e308, max_value=1.7e308, allow_nan=False, allow_infinity=False))
ROWS = st.lists(st.lists(MAGNITUDES, min_size=1, max_size=5).map(tuple), min_size=1, max_size=6).filter(
    lambda rows: len({len(r) for r in rows}) == 1)


def test_row_norms_golden_values():
    # 3·2^k, 4·2^k → 5·2^k exactly, at the extremes of the exponent range
    G = np.array([[3.0, 4.0], [3 * 2.0**1000, 4 * 2.0**1000], [3 * 2.0**-1070, 4 * 2.0**-1070], [0.0, 0.0]])
    assert row_norms(G).tolist() == [5.0, 5 * 2.0**1000, 5 * 2.0**-1070, 0.0]
    assert np.linalg.norm(G[1]) == math.inf        # what the naive norm does
    assert row_norms(np.array([[np.inf, 1.0]]))[0] == math.inf
    assert math.isnan(row_norms(np.array([[np.nan, 1.0]]))[0])


@settings(max_examples=300, deadline=None)
@given(ROWS, st.sampled_from([1e-300, 1e-8, 0.5, 1.0, 3.0, 1e300]))
def test_clip_rows_holds_its_bound_in_floating_point(rows, C):
    G = np.array(rows, dtype=np.float64)
    out = clip_rows(G, C)
    norms = row_norms(out)
    assert np.all(np.isfinite(out)) and np.all(norms <= C)
    within = row_norms(G) <= C
    assert np.array_equal(out[within], G[within])                 # untouched where already bounded
    # the direction is kept (a coordinate may underflow to 0) and a clipped row lands on the sphere of radius C
    assert np.all((np.sign(out[~within]) == np.sign(G[~within])) | (out[~within] == 0))
    assert np.all(norms[~within] >= C * (1 - 1e-12))


def test_clip_rows_non_finite_rows_are_bounded():
    out = clip_rows(np.array([[np.inf, -np.inf, 1.0], [np.nan, 1.0, 1.0]]), 2.0)
    assert np.allclose(out[0], [math.sqrt(2), -math.sqrt(2), 0.0]) and np.all(out[1] == 0.0)


@settings(max_examples=100, deadline=None)
@given(ROWS)
def test_fail_safe_is_a_no_op_on_bounded_rows(rows):
    G = clip_rows(np.array(rows, dtype=np.float64), 1.0)
    assert enforce_norm_bound(G, 1.0) is G                        # bounded: the very same array
    C = float(np.max(row_norms(G)))
    if C > 0:
        assert enforce_norm_bound(G, C) is G                      # on the bound exactly: still the identity


def test_noise_check_threshold_is_the_exact_chi2_quantile():
    k = 1000
    q = sps.chi2.ppf(DEFAULT_ALPHA, k)
    at = np.full(k, math.sqrt(q / k) * 1.000001)     # Σr²/σ² just above the quantile: passes
    below = np.full(k, math.sqrt(q / k) * 0.999999)   # just below: fails
    assert measured_noise_check(at, 1.0)["p_value"] >= DEFAULT_ALPHA
    assert measured_noise_check(below, 1.0)["p_value"] < DEFAULT_ALPHA
    # scale invariance: residuals and σ scaled together give the same verdict, even at 1e-200
    assert measured_noise_check(at * 1e-200, 1e-200)["p_value"] == pytest.approx(
        measured_noise_check(at, 1.0)["p_value"], rel=1e-9)


def test_noise_check_rejects_bad_input():
    with pytest.raises(ValueError, match="residuals"):
        measured_noise_check([np.nan], 1.0)
    with pytest.raises(ValueError, match="sigma"):
        measured_noise_check([1.0], 0.0)
    with pytest.raises(ValueError, match="alpha"):
        measured_noise_check([1.0], 1.0, alpha=1.0)


def test_miss_probability_of_the_sigma_over_sqrt2_bug():
    # hand derivation: the check passes iff χ²_k/2 ≥ q_α, i.e. χ²_k ≥ 2q_α; for k = 1000, q_α ≈ 786.6 → 1573
    k = 1000
    q = sps.chi2.ppf(DEFAULT_ALPHA, k)
    assert miss_probability(k, SCALE) == pytest.approx(sps.chi2.sf(2 * q, k), rel=1e-12)
    assert miss_probability(k, SCALE) < 1e-20
    assert miss_probability(k, 1.0) == pytest.approx(1 - DEFAULT_ALPHA, rel=1e-12)


def test_under_noised_generator_scales_gaussian_draws_only():
    a, b = np.random.default_rng(5), UnderNoisedGenerator(np.random.PCG64(5))
    assert np.array_equal(b.standard_normal(4), a.standard_normal(4) * SCALE)
    assert np.array_equal(b.normal(1.0, 3.0, 4), a.normal(1.0, 3.0 * SCALE, 4))
    assert np.array_equal(b.integers(0, 10, 5), a.integers(0, 10, 5))
    assert np.array_equal(b.laplace(0.0, 1.0, 3), a.laplace(0.0, 1.0, 3))


def test_under_noised_wraps_positional_and_keyword_generators():
    def mech(x, rng, *, other=None):
        return rng.standard_normal(), (other.standard_normal() if other is not None else None)

    planted = under_noised(mech)
    got = planted(1, np.random.default_rng(3), other=np.random.default_rng(4))
    assert got == (np.random.default_rng(3).standard_normal() * SCALE, np.random.default_rng(4).standard_normal() * SCALE)


def test_measured_noise_check_catches_the_planted_bug_on_a_gaussian_sum():
    """End to end on the Gaussian mechanism Σx + N(0, σ²): the correct one passes, the planted copy fails.
    False failure ≤ 1e-7 (exact χ² quantile); miss of the planted copy = miss_probability(2000, 1/√2) < 1e-40."""
    x = np.ones(2000)

    def mechanism(data, rng):
        return data + 2.0 * rng.standard_normal(data.shape)

    ok = mechanism(x, np.random.default_rng(11)) - x
    bad = under_noised(mechanism)(x, np.random.default_rng(11)) - x
    assert measured_noise_check(ok, 2.0)["p_value"] >= DEFAULT_ALPHA
    assert measured_noise_check(bad, 2.0)["p_value"] < DEFAULT_ALPHA
    assert miss_probability(2000, SCALE) < 1e-40
