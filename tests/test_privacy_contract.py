"""The privacy contract, for every private catalogue entry of the five papers (``verification/papers/harness.py``).

Each entry's paper declares a :class:`~dpsco.verification.papers.harness.PrivacyHarness`; this file checks, for
every harness:

1. **published fields** — on neighbouring records at the same public inputs and the same seed, every field of
   ``Release.to_dict()`` other than the released outcome is identical (so it is a function of public inputs);
2. **finite release** — on admissible extreme records (every record drawn from the paper's extreme-record
   strategy: magnitudes 1e±300, curvature ratios up to 1e300, records on the declared bounds, subnormals) the
   algorithm neither raises nor returns a non-finite outcome (⊥ is an outcome where the paper releases it);
3. **extreme-record sensitivity** — the sensitivity of every noisy release, measured with a shared seed on a
   neighbouring pair of extreme records, is at most the bound the claim's calibration uses;
4. **every notion checked** — every notion the claim states (ε, δ, ρ, μ, the dp_accounting event) is backed by
   the exact privacy of the mechanism as implemented on the entry's worst-case pair;
5. **measured noise** — the noise replayed from the white-box transcript passes the one-sided χ² test against the
   calibrated σ, and the planted "reports σ, draws σ/√2" copy of the algorithm fails it.

False-failure budgets.  Items 1–4 are deterministic statements about every run (no statistics): a failure is a
defect.  Item 5 is a one-sided χ² test at α = 1e-7 (exact: ``dpsco.verification.checks.noise``) per entry, so a
correct algorithm fails it with probability ≤ 1e-7; the planted σ/√2 copy passes it with the exact probability
``miss_probability(k, 1/√2)`` ≤ 1e-6 for the k ≥ 1,000 residuals every harness supplies (asserted below before the
draw, so the planted-bug half cannot flake either).
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpsco.reference.privacy import Release
from dpsco.verification.checks.noise import DEFAULT_ALPHA, measured_noise_check, miss_probability
from dpsco.verification.mutants.noise_scale import SCALE, under_noised
from dpsco.verification.papers.catalogue import CATALOGUE, get_entry
from dpsco.verification.papers.harness import ExactPrivacy, PrivacyHarness, harness_registry

HARNESSES = harness_registry()
NAMES = sorted(HARNESSES)
NOISY = sorted(n for n, h in HARNESSES.items() if h.noise is not None)
#: hypothesis examples per entry and property: each example is two runs of a small instance
EXAMPLES = 12
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


def _harness(name: str) -> PrivacyHarness:
    return HARNESSES[name]


def _published_without_outcome(release: Release, outcome_fields: tuple[str, ...]) -> str:
    record = release.to_dict()
    for key in outcome_fields:
        record.pop(key, None)
    return json.dumps(record, sort_keys=True, default=str)


def _outcome_is_finite(release: Release) -> bool:
    if getattr(release, "halted", False):      # ⊥ is an outcome of its own (Asi, Liu & Tian 2024, Algorithm 7)
        return True
    out = np.asarray(release.output, dtype=np.float64)
    return bool(out.size > 0 and np.all(np.isfinite(out)))


def _neighbour(records: np.ndarray, record: np.ndarray, index: int = 0) -> np.ndarray:
    other = np.array(records, dtype=np.float64, copy=True)
    other[index] = record
    return other


# ---- coverage ---------------------------------------------------------------------------------------------


def test_every_private_entry_has_a_harness():
    """Every catalogue entry (all release a private output, or a labelled non-private baseline) is covered."""
    missing = [e.name for e in CATALOGUE if e.name not in HARNESSES]
    assert not missing, f"catalogue entries without a privacy harness: {missing}"
    unknown = [n for n in HARNESSES if n not in {e.name for e in CATALOGUE}]
    assert not unknown, f"harnesses for unknown entries: {unknown}"


# ---- 1. published fields ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_published_fields_are_functions_of_public_inputs(name):
    h = _harness(name)

    @SETTINGS
    @given(st.data())
    def check(data):
        base = h.records(np.random.default_rng(0))
        other = h.extreme_record(data.draw)
        seed = data.draw(st.integers(0, 2**31 - 1), label="seed")
        d1 = h.run(base, np.random.default_rng(seed))
        d2 = h.run(_neighbour(base, other), np.random.default_rng(seed))
        a, b = (_published_without_outcome(r, h.outcome_fields) for r in (d1, d2))
        assert a == b, f"{name}: a published field other than {h.outcome_fields} differs between neighbours"

    check()


# ---- 2. finite release ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_finite_release_on_extreme_admissible_records(name):
    h = _harness(name)
    n = h.records(np.random.default_rng(0)).shape[0]

    @SETTINGS
    @given(st.data())
    def check(data):
        homogeneous = data.draw(st.booleans(), label="homogeneous")
        if homogeneous:     # every other record shares the replaced record's gradient
            first = h.extreme_record(data.draw)
            records = np.tile(first, (n, 1))
        else:
            records = np.stack([h.extreme_record(data.draw) for _ in range(n)])
        other = h.extreme_record(data.draw)
        seed = data.draw(st.integers(0, 2**31 - 1), label="seed")
        for recs in (records, _neighbour(records, other)):
            release = h.run(recs, np.random.default_rng(seed))   # must not raise
            assert _outcome_is_finite(release), f"{name}: non-finite outcome {release.output!r}"

    check()


# ---- 3. extreme-record sensitivity ------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_sensitivity_on_extreme_pairs_is_within_the_claimed_bound(name):
    h = _harness(name)
    n = h.records(np.random.default_rng(0)).shape[0]

    @SETTINGS
    @given(st.data())
    def check(data):
        a = h.extreme_record(data.draw)
        b = h.extreme_record(data.draw)
        background = data.draw(st.sampled_from(["shared", "benign"]), label="background")
        records = np.tile(a, (n, 1)) if background == "shared" else _neighbour(h.records(np.random.default_rng(1)), a)
        seed = data.draw(st.integers(0, 2**31 - 1), label="seed")
        probes = h.sensitivity(records, _neighbour(records, b), seed)
        assert probes, f"{name}: the harness measured no release"
        bad = [p for p in probes if not p.holds]
        assert not bad, f"{name}: measured sensitivity above the claimed bound: {bad[:3]}"

    check()


# ---- 4. every notion checked ------------------------------------------------------------------------------

#: grid of ε at which an event's curve must dominate the exact curve
EPS_GRID = (0.0, 0.1, 0.5, 1.0, 2.0, 4.0)


def _notion_failures(exact: ExactPrivacy, release: Release) -> list[str]:
    claim = release.claim
    if claim.notion == "none":
        return []
    fails = []
    slack = 1e-9
    # every claim states an (ε, δ) (for zCDP and GDP claims: the one the proof converts to)
    got = exact.delta_of_epsilon(float(claim.epsilon))
    if not got <= claim.delta + slack:
        fails.append(f"(ε, δ) = ({claim.epsilon}, {claim.delta}): exact δ(ε) = {got}")
    if claim.notion == "pure-DP":
        if exact.pure_epsilon is None or exact.pure_epsilon > claim.epsilon * (1 + slack):
            fails.append(f"pure ε = {claim.epsilon}: exact pure ε = {exact.pure_epsilon}")
    if claim.rho is not None:
        if exact.rho is None or exact.rho > claim.rho * (1 + slack):
            fails.append(f"ρ = {claim.rho}: exact ρ = {exact.rho} (a claim that cannot be backed drops ρ)")
    if claim.mu is not None:
        if exact.mu is None or exact.mu > claim.mu * (1 + slack):
            fails.append(f"μ = {claim.mu}: exact μ = {exact.mu} (a claim that cannot be backed drops μ)")
    if claim.event is not None:
        for eps in EPS_GRID:
            ev = claim.event_delta(eps) if eps > 0 else float(claim._event_accountant().get_delta(0.0))
            ex = exact.delta_of_epsilon(eps)
            if ev < ex - 1e-6:   # the PLD accountant is pessimistic; 1e-6 absorbs the exact curve's own rounding
                fails.append(f"event δ({eps}) = {ev} < exact δ({eps}) = {ex}")
    return fails


@pytest.mark.parametrize("name", NAMES)
def test_every_notion_the_claim_states_is_backed_on_the_worst_pair(name):
    exact, release = _harness(name).exact_privacy()
    failures = _notion_failures(exact, release)
    assert not failures, f"{name} ({exact.note}): " + "; ".join(failures)


def test_the_notion_check_fails_on_an_overstated_claim():
    """Planted: a Gaussian mechanism with μ = 1 whose claim states μ = 0.5, ρ = 0.125 and (ε, δ) from μ = 0.5."""
    from dp_accounting import dp_event

    from dpsco.reference.privacy import PrivacyClaim
    from dpsco.verification.papers.harness import gaussian_exact_privacy

    exact = gaussian_exact_privacy(1.0)
    # GaussianDpEvent(4) under REPLACE_ONE (sensitivity 2) is μ = 0.5 as well
    claim = PrivacyClaim("zCDP", 1.0, exact.delta_of_epsilon(1.0) / 10, "replace-one", "planted", rho=0.125, mu=0.5,
                         event=dp_event.GaussianDpEvent(4.0), event_neighbouring="REPLACE_ONE")
    fake = Release(output=np.zeros(1), claim=claim, gradient_evaluations=0, parameters={}, algorithm="planted")
    failures = _notion_failures(exact, fake)
    for notion in ("(ε, δ)", "ρ =", "μ =", "event δ"):   # δ, ρ, μ and the event are all overstated
        assert any(f.startswith(notion) for f in failures), (notion, failures)


# ---- 5. measured noise ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NOISY)
def test_measured_noise_passes_and_the_sigma_over_sqrt2_bug_fails(name):
    h = _harness(name)
    sample = h.noise(20241127)
    k = int(np.asarray(sample.residuals).size)
    assert k >= 1000, f"{name}: the harness replays {k} residuals; the planted-bug half needs ≥ 1000"
    # false failure ≤ DEFAULT_ALPHA = 1e-7 (exact χ² quantile)
    assert measured_noise_check(sample.residuals, sample.sigma)["p_value"] >= DEFAULT_ALPHA
    # the planted copy passes with probability miss_probability(k, 1/√2), exact, computed before the draw
    assert miss_probability(k, SCALE) <= 1e-6
    planted = h.noise(20241127, algorithm=under_noised(get_entry(name).run))
    assert math.isclose(planted.sigma, sample.sigma), "σ must come from public inputs, not from the run"
    assert measured_noise_check(planted.residuals, planted.sigma)["p_value"] < DEFAULT_ALPHA, (
        f"{name}: the σ/√2 planted bug was not caught")


def test_noise_harnesses_name_their_planted_bug_in_the_corpus():
    from dpsco.verification.mutants.corpus import CORPUS

    for name in NOISY:
        bug = _harness(name).noise_bug
        assert bug is not None and bug in CORPUS, f"{name}: noise_bug {bug!r} is not a planted bug of the corpus"
        assert bug in get_entry(name).planted_bugs, f"{name} does not list its σ/√2 planted bug {bug!r}"
