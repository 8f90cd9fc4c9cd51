"""The planted bugs of the common catalogue entries' checks (Bassily et al., Lowy & Razaviyayn): the rows of
``mutants.bftt19.catches`` and ``mutants.lr21.catches`` that name a bug run it here through THE SAME check code
``dpsco verify`` runs (``campaign.phases``' phase functions, on the entry's own streams at the quick budget and the
campaign's default seed), and the rows labelled "uninformative" are backed by the power computations below.

* Uniform stability (``phases._phase_stability``) refutes the memorisation bug (``mutants.utility``'s
  ``release_last_record``; corpus entries ``bftt19_releases_last_record``, ``lr21_releases_last_record``) on every
  entry whose stability bound is below the largest loss difference: the check tests both orders of each
  neighbouring pair (uniform stability is symmetric), which is what catches it on Lowy & Razaviyayn's entries.
* A_NSGD's tight 1/√n instance: its slope test cannot detect a slope off by a factor of two at the quick
  budget (derivation in :func:`test_tight_rate_is_uninformative_at_the_quick_grid`).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from dpsco.verification.campaign import phases as ph
from dpsco.verification.campaign.verify import BUDGETS, DEFAULT_SEED, _phase_budget
from dpsco.verification.checks.power import uninformative_reason
from dpsco.verification.mutants.catches import FAILS_UNDER_HOLM
from dpsco.verification.mutants.bftt19.bugs import bftt19_releases_last_record
from dpsco.verification.mutants.lr21.bugs import lr21_releases_last_record
from dpsco.verification.papers.catalogue import CATALOGUE, get_entry

QUICK = _phase_budget(BUDGETS["quick"])
#: the real-data oracle is used by the empirical phase only; the stability phase never reads it
_NO_ORACLE = {"value": math.nan, "gap_bound": math.nan}


def _context(entry):
    """The phase context ``campaign.phases.run_phase`` builds for ``entry`` at the quick budget (same streams)."""
    index = [e.name for e in CATALOGUE].index(entry.name)
    return ph._Context(entry, QUICK, ph.entry_streams(DEFAULT_SEED, index), ph._options(entry, QUICK), 0.95,
                       _NO_ORACLE, ph._real_data(), ph._real_problem())


def _stability(entry):
    return ph._phase_stability(_context(entry))[1]["stability"]


def _last_record_entry(name, mutant):
    """The catalogue entry ``name`` whose run is the planted memorisation bug ``mutant`` wrapping the entry's run."""
    import dataclasses

    entry = get_entry(name)
    return dataclasses.replace(entry, run=functools.partial(mutant, algorithm=entry.run))


#: entries whose stability check can fail (bound below the largest loss difference); cheap ones in the fast suite
FAST_STABILITY = ("bftt19.nsgd", "bftt19.objp", "lr21.alg1", "lr21.alg2", "lr21.tilted", "lr21.robust",
                  "lr21.robust_squared", "lr21.alg3", "lr21.alg1.sgd")
SLOW_STABILITY = ("bftt19.moreau_nsgd", "bftt19.efficient_objp", "lr21.alg1.subgradient", "lr21.alg1.katyusha")


def _assert_refutes_last_record(name, mutant):
    check = _stability(_last_record_entry(name, mutant))
    # Exact, no miss probability: release_last_record's output does not depend on the random stream (it is
    # M·x_n/‖x_n‖ in every replicate), so the coupled differences and the check's p-value are deterministic
    # functions of the real data.  The loss at the probe (−u, −y_n) differs by M = 2 between the two sides of
    # the antipodal pair (mutants.utility), far above every bound here (≤ 1.08).
    assert check.p_value <= FAILS_UNDER_HOLM, (name, check.p_value, check.estimate, check.bound)
    assert check.estimate > 1.5 and check.bound < 1.1, (name, check.estimate, check.bound)


@pytest.mark.parametrize("name", FAST_STABILITY)
def test_stability_check_refutes_the_released_last_record(name):
    _assert_refutes_last_record(name, bftt19_releases_last_record if name.startswith("bftt19")
                                else lr21_releases_last_record)


@pytest.mark.campaign
@pytest.mark.parametrize("name", SLOW_STABILITY)
def test_stability_check_refutes_the_released_last_record_slow_entries(name):
    _assert_refutes_last_record(name, bftt19_releases_last_record if name.startswith("bftt19")
                                else lr21_releases_last_record)


def test_stability_check_tests_both_orders_and_passes_the_correct_algorithm():
    """The stability phase tests ℓ(A(S), z) − ℓ(A(S'), z) and its negative (2k probes), and the correct
    Algorithm 1 of Lowy & Razaviyayn passes it (its campaign record)."""
    check = _stability(get_entry("lr21.alg1"))
    means = np.asarray(check.per_probe_mean)
    k = means.size // 2
    assert means.size == 2 * k and np.array_equal(means[k:], -means[:k])
    # The seed is the campaign's (deterministic outcome).  Were it drawn at random: under H0 (true mean
    # difference ≤ bound, Prop. 2.1's stability) the Bonferroni t-test gives p ≤ 1e-6 with probability ≤ 1e-6
    # (its level; t-approximation of the mean of 20 coupled differences).
    assert check.p_value > FAILS_UNDER_HOLM
    assert uninformative_reason(check.to_dict()) is None  # the campaign counts this pass as evidence


def test_stability_of_proxgd_cannot_fail():
    """A_ProxGD's stability bound exceeds the largest loss difference 2ML over W = B(0, M): even the memorisation
    bug passes (an exact statement: the bound is compared with 2ML)."""
    check = _stability(_last_record_entry("bftt19.proxgd", bftt19_releases_last_record))
    assert check.bound >= 2 * ph.RADIUS * ph._real_problem().lipschitz
    assert check.p_value == 1.0
    assert uninformative_reason(check.to_dict()).startswith("cannot fail")


def test_tight_rate_is_uninformative_at_the_quick_grid():
    """A_NSGD's tight 1/√n check at the quick budget, on the campaign's own stream: its slope test cannot detect
    a slope off by a factor of two, and its record says so (``checks.power`` labels its pass "uninformative").

    Derivation: the excess is p(1 − w̄) with p = n^{-1/2} and w̄ ∈ [−1, 1], so a release whose law does not
    depend on n has E log(excess) = −½ log n + const: slope −1/2 exactly, whatever the bug (a fixed point, a
    negated gradient, a loop that never runs).  A release that resolves the instance keeps the instance's
    sampling noise (the empirical bias p̂ is p ± n^{-1/2}: P[p̂ < 0] = Φ(−1) ≈ 0.16), so log(1 − w̄) varies by
    O(1) between runs and the slope's standard error at 3 grid points × 4 runs is ≈ 0.13–0.16; rejecting at
    p ≤ 1e-6 needs |slope + ½| > 0.1 + t₁₀(5e-7)·se > 1.5, i.e. 1 − w̄ changing by a factor 4^1.5 = 8 between
    n = 250 and n = 1000 at that precision."""
    entry = get_entry("bftt19.nsgd")
    from dpsco.verification.papers.bftt19.catalogue import tight_rate_check

    ctx = _context(entry)
    spawned = len(QUICK.rate_grid) + (0 if ctx.has_population(ctx.synthetic()) else 1)
    s_tight = ph._fresh_copy_after(ctx.streams.rate, spawned).spawn(3)[0]  # nsgd_sweep_checks' first stream
    check = tight_rate_check(QUICK.rate_grid, entry.cost("quick").rate_runs, s_tight)
    assert check.uninformative_at_inputs is not None
    assert uninformative_reason(check.to_dict()) == check.uninformative_at_inputs
    # the derivation's numbers, recomputed from the record: tolerance + detectable slope excess > |exponent|/2
    assert check.tolerance + check.detectable_excess > abs(check.exponent) / 2
    # The seed is the campaign's (deterministic outcome); under H0 (A_NSGD attains the rate) the check's
    # p ≤ 1e-6 has probability ≤ 1e-6 by its level (t-approximation of the slope, Bonferroni over two parts).
    assert check.p_value > FAILS_UNDER_HOLM


def test_audit_refutes_algorithm_2_sensitivity_without_alpha_term():
    """The threshold audit (``auditing.audit.audit``, the campaign's black-box audit) refutes Algorithm 2 with
    its noise calibrated to Δ_λ alone, on the instance of tests/lr21/test_lr21_output_perturbation_audits.py (linear loss,
    n = 10, λ = 1, α = 8, δ = 1e-3, an adversarial certified α-accurate inner optimiser): Δ_λ = 2(1 + 2)/10 = 0.6
    against a realised shift of 4 between the centres, so the mutant is the Gaussian mechanism at 6.7× its
    sensitivity — exact ε = 7.20 at δ = 1e-3 (the exact Gaussian curve at shift 4)."""
    from dpsco.oracles.privacy_curves import gaussian_epsilon
    from dpsco.verification.auditing.audit import audit
    from dpsco.verification.mutants.lr21.bugs import alg2_sensitivity_without_alpha_term
    import test_lr21_output_perturbation_audits as opa  # tests/lr21/ (on sys.path: tests/conftest.py)

    import dpsco.reference.lr21 as lr

    _, _, shift = opa._centres(lr.algorithm_2, opa.DELTA2, **opa.OPTS2)
    m = alg2_sensitivity_without_alpha_term(opa.data(+1)["X"], opa.data(+1)["y"], opa.PROB, opa.EPS, opa.DELTA2,
                                            np.random.default_rng(1), **opa.OPTS2)
    assert m.parameters["Delta_T"] == pytest.approx(0.6, rel=1e-14) and shift == pytest.approx(4.0, rel=1e-9)
    assert gaussian_epsilon(opa.DELTA2, shift, m.parameters["noise_scale"]) == pytest.approx(7.196, abs=1e-3)
    # Fixed seed (deterministic outcome).  Power: the true ε = 7.20 at δ = 1e-3 (above) against the claim ε = 1; the
    # same audit at the same 40,000 runs per side refutes Algorithm 1's analogue (true ε 10.9) in
    # tests/lr21/test_lr21_output_perturbation_audits.py, and its false refutation of a private release is ≤ 1e-6
    # (confidence 1 − 1e-6)
    res = audit(opa.Mech(alg2_sensitivity_without_alpha_term, opa.DELTA2, **opa.OPTS2), opa.data(+1),
                opa.data(-1), (opa.EPS, opa.DELTA2), opa.SAMPLES,
                np.random.default_rng(np.random.SeedSequence(4501)), confidence=opa.CONF)
    assert res.verdict == "refuted", res.summary()
    assert res.epsilon_lower > 2 * opa.EPS
