"""What the releases of Asi, Liu & Tian (2024) publish: only the outcome the claim covers and functions of public
inputs (the privacy contract's first item, ``tests/test_privacy_contract.py``), checked here on the pairs where
the code as it was leaked through a published field.

* Algorithm 7 (Localized-Clipped-DP-SGD) published ``gradient_evaluations`` = the step at which the clip count
  reached ĉ, and ``halted_phase``.  The paper releases ⊥ alone (Lines 20–21).  On the pair "phase 1 holds c + 1
  clipped records / the neighbour's (c + 1)-th is 0" (β = 0, linear loss) the count c + 1 is published with
  probability P(c < ĉ_1 ≤ c + 1) ≈ ½(1 − e^{−ε/3}) on D and never on D′: δ ≥ 0.13 against a claimed δ = 0.1 (and
  against 1e-5 at Theorem 3's own parameters).
* Release.to_dict semantics: diagnostics are never published (``include_diagnostics=True`` raises).

Every check is deterministic (seeds fixed; the seeds where the leak shows are found by replaying the one draw of
ĉ_1 from the seed, so the test cannot miss them).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpsco.reference.alt24.algorithms_localized import LocalizedRelease, localized_clipped_dp_sgd, theorem_3_parameters
from dpsco.reference.alt24.losses import LinearLoss
from dpsco.reference.alt24.model import MomentBounds
from dpsco.reference.alt24.primitives import sample_bounded_laplace
from dpsco.verification.papers.alt24 import localized as suite

SET = suite.AUDIT_SETTING  # ε = 0.9, δ = 0.1, c = 32, ω at Lemma 12's bound, β = 0, C = 1, η = 1


def _run(S, seed, setting=SET):
    S = np.asarray(S, dtype=np.float64)
    return localized_clipped_dp_sgd(S, LinearLoss(), np.zeros(S.shape[1]), rng=np.random.default_rng(seed),
                                    **setting)


def _cutoff_1(seed: int, c: float, epsilon: float) -> float:
    """ĉ_1 of a run with this seed when β = 0: ω_1 = 0 makes Ĉ = C without a draw, so ĉ_1 = c + BLap(3/ε, c/2)
    is the first draw of the generator (Algorithm 7, Line 5)."""
    return c + float(sample_bounded_laplace(3.0 / epsilon, c / 2.0, np.random.default_rng(seed)))


def _leak_pair(n: int, K: int) -> tuple[np.ndarray, np.ndarray]:
    """Phase 1 (the first n/2 records) starts with K records 5e₁ (each clipped: ‖s‖ ≥ C = 1), the rest 0; the
    neighbour's K-th record is 0 (count K − 1)."""
    S = np.zeros((n, 1))
    S[:K, 0] = 5.0
    S2 = S.copy()
    S2[K - 1, 0] = 0.0
    return S, S2


def _published(release) -> dict:
    record = release.to_dict()
    for key in ("output", "halted"):     # the released outcome (⊥ or the point)
        record.pop(key)
    return record


def test_algorithm_7_publishes_bottom_alone_not_the_count() -> None:
    """Defect (fixed): the count at which ⊥ happened was published.  On the pair above (n = 128, K = c + 1 = 33)
    with seeds whose ĉ_1 lies in (c, c + 1] (D halts at the 33rd clip, D′ never reaches ĉ_1) the published
    records differed in gradient_evaluations (33 vs 127) and halted_phase (1 vs None); now every published field
    but the outcome is the same on both, gradient_evaluations is the schedule's 2^I − 1 = 127, and the count
    performed is kept in nonprivate_internals.  The old leak, exactly: P_D(count = c + 1) = P(c < ĉ_1 ≤ c + 1)
    from scipy's Laplace law (``suite.cutoff_survival``), > δ = 0.1 while P_D′ = 0."""
    eps, c = SET["epsilon"], SET["c"]
    leak = suite.cutoff_survival(c, c, eps) - suite.cutoff_survival(c + 1, c, eps)
    assert leak == pytest.approx(0.5 * (1 - math.exp(-eps / 3)) / (1 - math.exp(-eps / 3 * c / 2)), rel=1e-9)
    assert leak > SET["delta"]                        # 0.1307: the (ε, δ) claim fails on the published count
    S, S2 = _leak_pair(128, int(c) + 1)
    leaky = [s for s in range(200) if c < _cutoff_1(s, c, eps) <= c + 1][:3]
    assert len(leaky) == 3
    for seed in leaky + [0, 1, 2]:
        a, b = _run(S, seed), _run(S2, seed)
        assert _published(a) == _published(b), seed
        assert a.gradient_evaluations == b.gradient_evaluations == 127
        assert "halted_phase" not in a.to_dict() and set(a.to_dict()) == {
            "algorithm", "output", "claim", "gradient_evaluations", "parameters", "halted"}
        if seed in leaky:                             # what used to be published, now internal only
            assert a.halted and not b.halted
            assert a.nonprivate_internals["gradient_evaluations_performed"] == int(c) + 1
            assert a.nonprivate_internals["halted_phase"] == 1 and b.nonprivate_internals["halted_phase"] is None
            assert b.nonprivate_internals["gradient_evaluations_performed"] == 127


def test_algorithm_7_published_count_at_theorem_3_parameters() -> None:
    """The same pair at Theorem 3's own parameters (n = 2^14, d = 1, ε = 0.9, δ = 1e-5, k = 2, G = (1, 1),
    D = 2; β = 0): c = 240 log(15n/δ)/ε = 6379.5, K = ⌈c⌉ ≤ n_1 = 8192.  The old leak P(K − 1 < ĉ_1 ≤ K) ≥ 0.1
    is over a thousand times δ; the published records now agree (one seed with ĉ_1 in that interval)."""
    n, eps, dl = 2**14, 0.9, 1e-5
    p = theorem_3_parameters(n, 1, eps, dl, MomentBounds(2, (1.0, 1.0)), 2.0)
    K = math.ceil(p.c)
    assert K <= n // 2
    leak = suite.cutoff_survival(K - 1, p.c, eps) - suite.cutoff_survival(K, p.c, eps)
    assert leak > 0.1 and leak > 1e3 * dl
    setting = {"epsilon": eps, "delta": dl, "C": p.C, "c": p.c, "omega": p.omega, "eta": p.eta, "beta": 0.0,
               "radius": 1.0}
    S, S2 = _leak_pair(n, K)
    S *= p.C                                          # ‖s‖ = 5C ≥ C: clipped
    seed = next(s for s in range(500) if K - 1 < _cutoff_1(s, p.c, eps) <= K)
    a, b = _run(S, seed, setting), _run(S2, seed, setting)
    assert a.halted and not b.halted and _published(a) == _published(b)
    assert a.nonprivate_internals["gradient_evaluations_performed"] == K
    assert a.gradient_evaluations == b.gradient_evaluations == n - 1


def test_localized_release_follows_the_release_semantics() -> None:
    """LocalizedRelease.to_dict refuses diagnostics (they are computed from the data), writes ⊥ as a null output
    with halted = true, and its verification record (labelled not a private release) carries the ⊥ marker."""
    S, _ = suite.bottom_pair(64, 48)     # count 48 ≥ every ĉ_1 ≤ 3c/2: ⊥ on every draw
    r = _run(S, 0)
    assert isinstance(r, LocalizedRelease) and r.halted
    with pytest.raises(ValueError, match="include_diagnostics"):
        r.to_dict(include_diagnostics=True)
    with pytest.raises(ValueError, match="include_diagnostics"):
        r.to_dict(include_trajectory=True, include_diagnostics=True)
    rec = r.to_dict()
    assert rec["output"] is None and rec["halted"] is True
    ver = r.to_verification_record(include_diagnostics=True)
    assert ver["not_a_private_release"] and ver["halted"] is True
    # every published phase parameter is present for all I phases, whether or not the run halted
    assert len(rec["parameters"]["phases"]) == rec["parameters"]["I"] == 6


def test_publishing_the_performed_count_is_refuted() -> None:
    """The planted copy of the old behaviour (``localized_dp_sgd_publishes_performed_count``) publishes the count
    at which ⊥ happened.  On the leak pair (n = 128, c + 1 = 33 clipped records first in phase 1, the neighbour's
    33rd set to 0): on every seed with ĉ_1 ∈ (c, c + 1] it publishes 33 on D and 127 on D′ (checked on runs); the
    count 33 is published on D with probability P(c < ĉ_1 ≤ c + 1) = 0.131 and never on D′ — exact (BLap's
    law, ``suite.cutoff_survival``; D′ halts only at counts ≤ c, in the first c steps) — so its δ(ε) ≥ 0.131 > δ
    = 0.1 at every ε.  The reference publishes 127 on both; its audit vector (``audit_outcome``: ⊥, point, count)
    carries the constant count, so an audit of it sees only ⊥ and the point."""
    from dpsco.reference.alt24.algorithms_localized import audit_outcome
    from dpsco.verification.mutants.alt24.localized import localized_dp_sgd_publishes_performed_count as leaky_alg

    eps, c = SET["epsilon"], SET["c"]
    S, S2 = _leak_pair(128, int(c) + 1)
    seeds = [s for s in range(200) if c < _cutoff_1(s, c, eps) <= c + 1][:2]
    for seed in seeds:
        kw = {**SET, "rng": np.random.default_rng(seed)}
        a = leaky_alg(S, LinearLoss(), np.zeros(1), **kw)
        b = leaky_alg(S2, LinearLoss(), np.zeros(1), **{**SET, "rng": np.random.default_rng(seed)})
        assert a.to_dict()["gradient_evaluations"] == int(c) + 1 and b.to_dict()["gradient_evaluations"] == 127
        assert a.to_dict()["halted_phase"] == 1 and audit_outcome(a)[-1] == int(c) + 1
        ok = _run(S, seed)
        assert audit_outcome(ok)[-1] == 127 and audit_outcome(_run(S2, seed))[-1] == 127
    p_leak = suite.cutoff_survival(c, c, eps) - suite.cutoff_survival(c + 1, c, eps)
    delta_mutant = p_leak - math.exp(eps) * 0.0            # the event {published count = c + 1}
    assert delta_mutant == pytest.approx(0.1307, abs=5e-4) and delta_mutant > SET["delta"]


def test_algorithm_7_audits_see_the_whole_published_record() -> None:
    """Every audit of Algorithm 7 in ``dpsco verify`` runs ``LocalizedMechanism``, whose output is
    ``audit_outcome`` = [⊥, x, g] read from ``to_dict()`` (before: [⊥, x], blind to a published count), and uses a
    statistic of all of it (``RecordNorm``, ``BottomCount``).  On the leak pair the count-publishing copy's ⊥·g
    separates D (33 on the leaky seeds) from D′ (never 33); the reference's is the constant 127 on ⊥.
    Deterministic (fixed seeds)."""
    from dpsco.verification.mutants.alt24.localized import localized_dp_sgd_publishes_performed_count as leaky_alg

    eps, c = SET["epsilon"], SET["c"]
    S, S2 = _leak_pair(128, int(c) + 1)
    seed = next(s for s in range(200) if c < _cutoff_1(s, c, eps) <= c + 1)
    ref = suite.LocalizedMechanism()
    v = ref({"S": S}, np.random.default_rng(seed))
    rel = ref.release(S, np.random.default_rng(seed))
    assert v.shape == (3,) and v[-1] == rel.to_dict()["gradient_evaluations"] == 127 and v[0] == 1.0
    stat = suite.BottomCount()
    leaky = suite.LocalizedMechanism(leaky_alg)
    a = leaky({"S": S}, np.random.default_rng(seed))
    b = leaky({"S": S2}, np.random.default_rng(seed))
    assert stat(a[None, :])[0] == int(c) + 1 and stat(b[None, :])[0] in (0.0, 127.0)
    assert stat(v[None, :])[0] == 127.0 and suite.RecordNorm(128)(v[None, :])[0] == 1.0
    # the suite's audits use these statistics
    import inspect

    src = inspect.getsource(suite.task_audit)
    assert "RecordNorm(64)" in src and "BottomCount()" in src and '"coordinate:0"' not in src
