"""Each privacy harness of Asi, Liu & Tian (2024) (``dpsco.verification.papers.alt24.harness``) once, fast: it runs,
its release is finite, every published field but the outcome agrees on one extreme neighbouring pair, its
sensitivity probes hold on that pair, and its exact privacy backs every notion its claim states.  The generic
contract over hypothesis-drawn extremes is tests/test_privacy_contract.py; the measured-noise half is
tests/alt24/test_alt24_measured_noise.py.  Everything here is deterministic (fixed seeds, exact curves).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpsco.verification.papers.alt24 import catalogue as alt24
from dpsco.verification.papers.alt24.harness import HARNESSES

#: one extreme record per record width: magnitudes at the largest double, a subnormal, a 1e300 ratio
EXTREME = {1: [1.7976931348623157e308], 2: [1.7976931348623157e308, -5e-324],
           3: [10.0, 5e-324, 1e308], 4: [1e308, -1e-300, -1e308, 1e8]}


def _published(release, outcome_fields) -> str:
    record = release.to_dict()
    for key in outcome_fields:
        record.pop(key, None)
    return json.dumps(record, sort_keys=True, default=str)


def test_one_harness_per_entry() -> None:
    assert sorted(HARNESSES) == sorted(alt24.ORDER)
    gaussian = {"alt24.clipped_dp_sgd", "alt24.aggregate_erm", "alt24.ht_sco", "alt24.sc_wrapper", "alt24.known_lip",
                "alt24.onepass_dp_sgd_glm", "alt24.localized_dp_sgd"}
    assert {n for n, h in HARNESSES.items() if h.noise is not None} == gaussian
    assert HARNESSES["alt24.localized_dp_sgd"].outcome_fields == ("output", "halted")


@pytest.mark.parametrize("name", sorted(HARNESSES))
def test_harness_runs_and_meets_the_contract_on_one_extreme_pair(name) -> None:
    h = HARNESSES[name]
    base = h.records(np.random.default_rng(0))
    other = base.copy()
    other[0] = EXTREME[base.shape[1]]
    heavy = np.tile(other[0], (base.shape[0], 1))                        # every record extreme
    for records in (base, other, heavy):
        rel = h.run(records, np.random.default_rng(3))
        assert getattr(rel, "halted", False) or np.all(np.isfinite(rel.output)), name
    # published fields: identical on neighbours at the same seed, but for the outcome
    assert _published(h.run(base, np.random.default_rng(4)), h.outcome_fields) == \
        _published(h.run(other, np.random.default_rng(4)), h.outcome_fields)
    # sensitivity on the extreme pair (benign background and all-extreme background)
    for D, D2 in ((base, other), (heavy, np.vstack([base[:1], heavy[1:]]))):
        probes = h.sensitivity(D, D2, 5)
        assert probes and all(p.holds for p in probes), [p for p in probes if not p.holds][:3]
    # every notion the claim states is backed by the exact curve on the worst pair
    exact, rel = h.exact_privacy()
    claim = rel.claim
    if claim.notion != "none":
        assert exact.delta_of_epsilon(claim.epsilon) <= claim.delta, exact.note
        if claim.rho is not None:
            assert exact.rho is not None and exact.rho <= claim.rho * (1 + 1e-9)
        if claim.mu is not None:
            assert exact.mu is not None and exact.mu <= claim.mu * (1 + 1e-9)
        if claim.event is not None:
            for eps in (0.5, 2.0):
                assert claim.event_delta(eps) >= exact.delta_of_epsilon(eps) - 1e-6
