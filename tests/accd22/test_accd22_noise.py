"""Measured noise of Asi, Chadha, Cheng & Duchi (2022), arXiv:2210.17070 (``verification/papers/accd22/noise.py``):
the noise each phase of Algorithm 4 actually draws, replayed from the transcript, against the σ_i of the public
schedule — never the σ a release reports — and the planted "reports the scale, draws it/√2" copies of
Algorithms 1–6 (Gaussian and Laplace) that it must refute.

False-failure budget (≤ 1e-6 per test): each measured-noise check fails a correct algorithm with probability
≤ 1e-7 (exact χ² / Gamma quantiles); a planted copy passes with the exact miss probability computed before the
draw and asserted ≤ 1e-6; a test with m such checks fails falsely with probability ≤ m·1e-7 + Σ misses.  The
schedule and the audits' σ are deterministic.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpsco.reference.accd22 import algorithms as al
from dpsco.verification.checks.noise import measured_noise_check, miss_probability
from dpsco.verification.mutants.accd22 import bugs as mutants
from dpsco.verification.mutants.accd22.noise import LAPLACE_SCALE, under_noised_laplace
from dpsco.verification.papers.accd22 import noise as nz
from dpsco.verification.papers.accd22 import privacy as ap

ALPHA = 1e-7


# ---- the exact Laplace-scale test -------------------------------------------------------------------------------

def test_laplace_miss_probability_against_the_chi_square_form():
    """Independent form: 2·Gamma(k, 1) ~ χ²_{2k}, so q_α = χ²_{2k}.ppf(α)/2 and the miss probability at scale s is
    P(s·Gamma(k, 1) ≥ q_α) = χ²_{2k}.sf(2q_α/s).  At k = 1,200 and s = 1/√2: 2.7e-12 (the smallest residual count
    of the suites)."""
    for k in (1000, 1200, 3600):
        q = stats.chi2.ppf(ALPHA, 2 * k) / 2.0
        expected = stats.chi2.sf(2.0 * q / LAPLACE_SCALE, 2 * k)
        assert nz.laplace_miss_probability(k, LAPLACE_SCALE, ALPHA) == pytest.approx(expected, rel=1e-9)
    assert nz.laplace_miss_probability(1200, LAPLACE_SCALE, ALPHA) < 2.8e-12
    assert nz.laplace_miss_probability(1000, 1.0, ALPHA) == pytest.approx(1.0 - ALPHA, rel=1e-9)


def test_laplace_scale_check_passes_the_calibration_and_fails_its_over_sqrt2():
    """2,000 Laplace(b) residuals divided by b: passes (false failure ≤ 1e-7, exact); at b/√2 it fails (miss
    probability computed first: ≤ 1e-6).  Over-noise passes (the test is one-sided).  Total false failure
    ≤ 2e-7 + miss."""
    rng = np.random.default_rng(3)
    b = rng.uniform(0.5, 5.0, 2000)
    ok = nz.laplace_scale_check(rng.laplace(0.0, b) / b)
    assert ok["p_value"] >= ALPHA and ok["residuals"] == 2000
    assert nz.laplace_miss_probability(2000, LAPLACE_SCALE, ALPHA) <= 1e-6
    bad = nz.laplace_scale_check(rng.laplace(0.0, b * LAPLACE_SCALE) / b)
    assert bad["p_value"] < ALPHA
    assert nz.laplace_scale_check(rng.laplace(0.0, 2 * b) / b)["p_value"] >= ALPHA
    with pytest.raises(ValueError, match="residuals"):
        nz.laplace_scale_check([np.nan])


# ---- the public schedule ---------------------------------------------------------------------------------------

def test_public_schedule_by_hand():
    """Algorithm 4, n = 32, η = 0.05 (the phase audit's instance): k = ⌈log 32⌉ = 4 phases, η_i = 0.05·2^{−4i}.
    Algorithm 1, n = 24, T5 = 12, eta_scale = 1/4, d = 1, ε = 1, β = 1/(n + d) = 1/25: n_0 = 2,
    η_0 = ¼·(D_0/(2L))·min{1/√(n_0·max(1, log n_0)·log 25), 1/log 25} = ¼·min{0.39412, 0.31067} = 0.077667; epoch i
    runs Algorithm 4 on 2 records (k = ⌈log 2⌉ = 1 phase) with η_1 = 2^{−i}η_0/16.  Both equal the transcripts'."""
    s4 = nz.public_schedule("algorithm_4", 32, 1, 1.0, 0.0, 1.0, 1.0, 1.0, eta=0.05)
    assert s4 == [(1.0, pytest.approx(0.05 * 2.0 ** (-4 * i), rel=1e-15)) for i in range(1, 5)]
    s1 = nz.public_schedule("algorithm_1", 24, 1, 1.0, 0.0, 1.0, 1.0, 1.0, T5=12, eta_scale=0.25)
    lb = math.log(25.0)
    eta0 = 0.25 * min(1.0 / math.sqrt(2.0 * 1.0 * lb), 1.0 / lb)
    assert eta0 == pytest.approx(0.077667, rel=1e-4)
    assert [e for _, e in s1] == [pytest.approx(2.0 ** (-i) * eta0 / 16.0, rel=1e-14) for i in range(12)]
    for name, sched in (("algorithm_4", s4), ("algorithm_1", s1)):
        S, _, x0 = ap.audit_pair(name, "non_interpolating")
        rel = ap.run_algorithm(name, getattr(al, name), S, x0, 1.0, 0.0, np.random.default_rng(0), 1)
        assert nz.replayed_residuals(rel, S, sched, 1.0, 0.0)["schedule_followed"]


def test_audits_compute_sigma_from_public_inputs_not_from_the_transcript():
    """The transcript audit's statistics (likelihood ratios, λ_i, exact ε) do not change when every phase's
    reported σ is overwritten: they use the calibration at the phase's public (L_i, η_i).  (Before, they divided by
    the reported ``PhaseRecord.sigma``: a copy reporting 100σ would have looked 100× more private.)"""
    S, S2, x0 = ap.audit_pair("algorithm_4", "non_interpolating")
    rel = ap.run_algorithm("algorithm_4", al.algorithm_4, S, x0, 1.0, 0.0, np.random.default_rng(4), 50)
    before = ap._statistics(rel.white_box, S, S2, S.shape[0] - 1, None, 1.0, 0.0)
    for ph in rel.white_box.phases:
        ph.sigma *= 100.0
    after = ap._statistics(rel.white_box, S, S2, S.shape[0] - 1, None, 1.0, 0.0)
    for field in ("llr", "scale", "exact", "phase_lambdas"):
        np.testing.assert_array_equal(getattr(before, field), getattr(after, field))
    assert 0.999 / 4 <= float(before.exact.max()) <= (1 + 2 * al.SOLVER_TOL) / 4  # the tight pair: ≈ ε/4


# ---- the planted copies ------------------------------------------------------------------------------------------

def _replay(fn, name: str, kind: str, seed: int) -> np.ndarray:
    inst = ap.INSTANCES[name]
    d, delta, runs = (1, 0.0, nz.LAPLACE_RUNS) if kind == "laplace" else (nz.GAUSSIAN["d"], nz.GAUSSIAN["delta"],
                                                                          nz.GAUSSIAN_RUNS)
    n = inst["n"]
    Z = np.column_stack([0.5 + 0.5 * (np.arange(n) % 8) / 7.0, np.zeros(n)]) if kind == "laplace" \
        else nz._gaussian_records(n, d)
    rel = nz._run(fn, name, inst, Z, d, 1.0, delta, runs, np.random.default_rng(seed))
    sched = nz.public_schedule(name, n, d, 1.0, delta, 1.0, 1.0, 1.0, inst.get("lam"), inst.get("kappa"),
                               **inst["kwargs"])
    rep = nz.replayed_residuals(rel, Z, sched, 1.0, delta)
    assert rep["kind"] == kind and rep["schedule_followed"]
    return rep["residuals"]


def test_gaussian_under_noise_copies_are_caught_by_the_measured_noise_check():
    """accd22_algorithm_k_draws_sigma_over_sqrt2 (k = 1..6) at δ = 1e-5, d = 12 (the Gaussian branch): their
    replayed residuals r_i/σ_i (σ_i from the public schedule) fail the one-sided χ² check, while the reference's
    pass.  ≥ 1,200 residuals each: miss probability ≤ 1.5e-36 (exact, computed first); false failure ≤ 6e-7."""
    gaussian_copies = ("accd22_algorithm_1_draws_sigma_over_sqrt2", "accd22_algorithm_2_draws_sigma_over_sqrt2",
                       "accd22_algorithm_3_draws_sigma_over_sqrt2", "accd22_algorithm_4_draws_sigma_over_sqrt2",
                       "accd22_algorithm_5_draws_sigma_over_sqrt2", "accd22_algorithm_6_draws_sigma_over_sqrt2")
    assert set(gaussian_copies) == {n for n in mutants.__all__ if n.endswith("_draws_sigma_over_sqrt2")}
    for k, name in enumerate(gaussian_copies, start=1):
        alg = f"algorithm_{k}"
        ref = _replay(getattr(al, alg), alg, "gaussian", 10 + k)
        bug = _replay(getattr(mutants, name), alg, "gaussian", 20 + k)
        assert ref.size >= 1200 and miss_probability(bug.size, 1 / math.sqrt(2), ALPHA) <= 1.5e-36
        assert measured_noise_check(ref, 1.0)["p_value"] >= ALPHA
        assert measured_noise_check(bug, 1.0)["p_value"] < ALPHA


def test_laplace_under_noise_copies_are_caught_by_the_measured_scale_check():
    """accd22_algorithm_k_draws_laplace_scale_over_sqrt2 (k = 1..6) at δ = 0, d = 1 (the audits' instances):
    their replayed residuals r_i/b_i fail the exact Gamma test of the Laplace scale, while the reference's pass.
    ≥ 1,200 residuals each: miss probability ≤ 2.8e-12 (exact, computed first); false failure ≤ 6e-7.  The
    Gaussian σ/√2 wrapper leaves Laplace draws alone (and vice versa): the two bugs are distinct."""
    laplace_copies = ("accd22_algorithm_1_draws_laplace_scale_over_sqrt2",
                      "accd22_algorithm_2_draws_laplace_scale_over_sqrt2",
                      "accd22_algorithm_3_draws_laplace_scale_over_sqrt2",
                      "accd22_algorithm_4_draws_laplace_scale_over_sqrt2",
                      "accd22_algorithm_5_draws_laplace_scale_over_sqrt2",
                      "accd22_algorithm_6_draws_laplace_scale_over_sqrt2")
    assert set(laplace_copies) == {n for n in mutants.__all__ if n.endswith("_draws_laplace_scale_over_sqrt2")}
    for k, name in enumerate(laplace_copies, start=1):
        alg = f"algorithm_{k}"
        ref = _replay(getattr(al, alg), alg, "laplace", 30 + k)
        bug = _replay(getattr(mutants, name), alg, "laplace", 40 + k)
        assert ref.size >= 1200 and nz.laplace_miss_probability(bug.size, LAPLACE_SCALE, ALPHA) <= 2.8e-12
        assert nz.laplace_scale_check(ref)["p_value"] >= ALPHA
        assert nz.laplace_scale_check(bug)["p_value"] < ALPHA
    same = _replay(mutants.accd22_algorithm_4_draws_sigma_over_sqrt2, "algorithm_4", "laplace", 31 + 3)
    np.testing.assert_array_equal(same, _replay(al.algorithm_4, "algorithm_4", "laplace", 34))
    wrapped = under_noised_laplace(al.algorithm_4)
    assert wrapped.__name__ == "algorithm_4_draws_laplace_scale_over_sqrt2"


@pytest.mark.parametrize("name", ap.ALGORITHMS)
def test_measured_noise_checks_of_the_suite(name):
    """``measured_noise_checks`` (what the privacy task records): both measured checks pass the reference
    (≤ 2e-7), both planted copies are refuted (their misses ≤ 2.8e-12, exact, in the record), and the transcripts
    follow the public schedule."""
    checks, record = nz.measured_noise_checks(name, ap.INSTANCES[name], np.random.SeedSequence(61))
    assert checks[f"{name}_measured_laplace_noise"]["p_value"] >= ALPHA
    assert checks[f"{name}_measured_gaussian_noise"]["p_value"] >= ALPHA
    for key in (f"{name}_public_schedule", f"{name}_laplace_under_noise_caught", f"{name}_gaussian_under_noise_caught"):
        assert checks[key]["p_value"] == 1.0 and checks[key]["method"] == "exact"
    assert record["laplace"]["planted_miss_probability"] <= 2.8e-12
    assert record["gaussian"]["planted_miss_probability"] <= 1.5e-36
