"""The privacy harnesses of the five Menart et al. (2023) catalogue entries
(``verification/papers/muabg23/harness.py``), exercised on the contract's five points at small sizes: published
fields identical on neighbours, a finite release on extreme records, every measured sensitivity within its
bound, every notion of the claim backed by the exact privacy of the worst pair, and the measured noise (which
the planted σ/√2 bug fails).

Every stochastic assertion states its false-failure probability (≤ 1e-6) and its derivation; the rest are
deterministic.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpsco.verification.checks.noise import measured_noise_check, miss_probability
from dpsco.verification.mutants.corpus import CORPUS
from dpsco.verification.papers.muabg23.catalogue import ORDER
from dpsco.verification.papers.muabg23.harness import HARNESSES

NAMES = list(ORDER)


def _published(release, outcome_fields):
    d = release.to_dict()
    return {k: v for k, v in d.items() if k not in outcome_fields}


def test_one_harness_per_entry_and_the_registry_finds_them():
    from dpsco.verification.papers.harness import harness_registry

    assert set(HARNESSES) == set(NAMES)
    registry = harness_registry()
    assert all(registry[name] is HARNESSES[name] for name in NAMES)
    for name, h in HARNESSES.items():
        assert h.entry == name and h.noise is not None and h.noise_bug in CORPUS
        assert CORPUS[h.noise_bug].paper == "muabg23"


@pytest.mark.parametrize("name", NAMES)
def test_published_fields_identical_on_neighbours(name):
    # Deterministic: same seed on both datasets; record 0 replaced by another benign record and by an extreme one
    h = HARNESSES[name]
    D = h.records(np.random.default_rng(1))
    for replacement in (h.records(np.random.default_rng(2))[0], np.full(D.shape[1], 1e300)):
        D2 = D.copy()
        D2[0] = replacement
        a, b = h.run(D, np.random.default_rng(3)), h.run(D2, np.random.default_rng(3))
        assert _published(a, h.outcome_fields) == _published(b, h.outcome_fields)
        assert np.all(np.isfinite(a.output)) and np.all(np.isfinite(b.output))


@pytest.mark.parametrize("name", NAMES)
def test_finite_release_and_sensitivity_on_extreme_records(name):
    # Deterministic per example (hypothesis draws the records; the seed is fixed): every record drawn from the
    # extremes (1e±300, ±1.8e308, subnormals, 0, ±1), the neighbour's record 0 from them too; the run never
    # raises, its output is finite, and every measured per-release sensitivity is within its bound.
    h = HARNESSES[name]
    n, p = h.records(np.random.default_rng(0)).shape

    @settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def check(data):
        D = np.stack([h.extreme_record(data.draw) for _ in range(n)])
        D2 = D.copy()
        D2[0] = h.extreme_record(data.draw)
        rel = h.run(D, np.random.default_rng(5))
        assert np.all(np.isfinite(rel.output))
        probes = h.sensitivity(D, D2, 6)
        assert probes and all(pr.holds for pr in probes), [pr for pr in probes if not pr.holds]

    check()


@pytest.mark.parametrize("name", NAMES)
def test_every_notion_of_the_claim_is_backed_on_the_worst_pair(name):
    # Exact computations: δ_exact(ε_claim) ≤ δ_claim; the exact ρ (and μ, when the claim states one) within the
    # claim (relative slack 1e-9 for rounding); the claim's dp_accounting event (PLD, pessimistic) above the exact
    # curve on a grid (slack 1e-9); the Theorem 5 variant states no μ and no event.
    h = HARNESSES[name]
    exact, rel = h.exact_privacy()
    c = rel.claim
    assert exact.delta_of_epsilon(c.epsilon) <= c.delta
    assert exact.rho is not None and exact.rho <= c.rho * (1 + 1e-9)
    if c.mu is not None:
        assert exact.mu is not None and exact.mu <= c.mu * (1 + 1e-9)
    if c.event is not None:
        for e in (0.1, 0.5, 1.0, 2.0):
            assert c.event_delta(e) >= exact.delta_of_epsilon(e) - 1e-9, e
    if name == "muabg23.adaptive_gd_em":
        assert c.mu is None and c.event is None and exact.mu > math.sqrt(2 * c.rho)      # MUABG23-E20
    else:   # a Gaussian composition at its full budget: exact
        assert exact.rho == pytest.approx(c.rho, rel=1e-9)


@pytest.mark.parametrize("name", NAMES)
def test_measured_noise_passes_the_algorithm_and_fails_its_planted_bug(name):
    # The one-sided χ² of the replayed noise at level 1e-7 (exact): the correct algorithm fails with probability
    # ≤ 1e-7; the planted bug (σ/√2 drawn, σ reported) passes with probability miss_probability(k, 1/√2),
    # computed exactly and asserted ≤ 1e-6, with k ≥ 1000 residuals.  Per case ≤ 1.1e-6.
    h = HARNESSES[name]
    good = h.noise(7)
    bad = h.noise(7, algorithm=CORPUS[h.noise_bug].mutant)
    assert good.residuals.size >= 1000 and bad.residuals.size >= 1000
    assert miss_probability(bad.residuals.size, 2 ** -0.5) <= 1e-6
    assert measured_noise_check(good.residuals, good.sigma, name)["p_value"] >= 1e-7
    assert measured_noise_check(bad.residuals, bad.sigma, name)["p_value"] < 1e-7
