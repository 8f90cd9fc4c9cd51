"""The planted-bug corpus (dpsco.verification.mutants.corpus): every mutant listed with how it is caught, exact
true ε, fidelity of the mutants' copies and fast paths, a few audits per canary-audited mutant, and (campaign)
the full detection-rate table; the μ-GDP / ρ-zCDP entries (dpsco.verification.mutants.notions) under their curve
audits, and ``detection_rate``'s notions.

False-failure budget (≤ 1e-6 per test):
* exact-curve and equality tests are deterministic;
* correct algorithms are audited at confidence 1 − 1e-6 (the auditor's guarantee: a mechanism satisfying
  its claim on the pair is refuted with probability ≤ 1e-6; that it does satisfy it is checked exactly);
* a visible mutant "fails to be caught" only if ALL of K independent audits at the entry's budget miss.  The
  campaign (docs/planted-bugs.md) measured the per-audit miss probability; K is chosen so that (upper 95 % CP
  bound of that miss probability)^K ≤ 1e-6 (K = 5 for 100/100 detections: 0.0362^5 = 6.2e-8).  With fixed
  seeds the outcome is deterministic; the bound says the seed is not lucky;
* the μ-GDP / ρ-zCDP entries are audited with an event fixed in advance, so the probability that the mutant is
  missed (or the correct mechanism refuted) is an exact binomial sum on the event's exact probabilities
  (``notions.fixed_event_curve_refutation_probability``, itself checked against the brute-force rule); each
  stated probability is asserted ≤ 1e-6 beside the audit.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest

from dpsco.oracles.privacy_curves import gaussian_epsilon, nsgd_one_step_canary_epsilon, nsgd_worst_pair_delta_quadrature
import dpsco.reference.bftt19 as o
from dpsco.reference.bftt19.accounting import nsgd_worst_pair_delta
from dpsco.reference.solvers import certified_minimize
from dpsco.verification.mutants.alt24 import clipped as alt24_clipped
from dpsco.verification.mutants.alt24 import known_lip as alt24_known_lip
from dpsco.verification.mutants.alt24 import localized as alt24_localized
from dpsco.verification.mutants.alt24 import svt as alt24_svt
from dpsco.verification.mutants.alt24 import white_box as alt24_white_box
from dpsco.verification.mutants.accd22 import bugs as accd22_mutants
from dpsco.verification.mutants.accd22 import corpus as accd22_corpus
from dpsco.verification.mutants.alt24 import corpus as alt24_corpus
from dpsco.verification.mutants.muabg23 import adaptive as muabg23_adaptive
from dpsco.verification.mutants.muabg23 import corpus as muabg23_corpus
from dpsco.verification.mutants.muabg23 import proximal as muabg23_proximal
from dpsco.verification.mutants.muabg23 import spider as muabg23_spider
from dpsco.verification.mutants.bftt19 import bugs as mu
from dpsco.verification.mutants import corpus as pb
from dpsco.verification.mutants.bftt19 import corpus as bc
from dpsco.verification.mutants.lr21 import bugs as mlr
from dpsco.verification.mutants.lr21 import applications as mlr_app
from dpsco.verification.mutants import notions as nt
from dpsco.verification.auditing.audit import audit, clopper_pearson_upper
from dpsco.verification.auditing.curve_audit import audit_curve, curve_box, curve_refutes
from dpsco.verification.auditing.curves import CurveClaim
from dpsco.verification.auditing.events import Event

ROOT = Path(__file__).resolve().parents[1]
VISIBLE = [name for name, b in pb.CANARY_AUDITED.items() if b.visible]
INVISIBLE = [name for name, b in pb.CANARY_AUDITED.items() if not b.visible]
HELPERS = {"objp_linear_argmin", "objp_logistic_1d_argmin", "stochastic_eg",  # exact solvers, not mutants
           "MUTANTS", "mutant_loop",  # a module's table of its mutants and a shared loop
           "SignedCurvatureLoss", "theorem_1_claim"}  # the spider mutants' instance and claim
MUTANT_MODULES = (mu, mlr, mlr_app, alt24_clipped, alt24_known_lip, alt24_localized, alt24_svt, alt24_white_box,
                  muabg23_spider, muabg23_proximal, muabg23_adaptive, accd22_mutants)
#: caught by their papers' own tests
PAPER_BUGS = {**pb.PAPER_TEST_BUGS, **alt24_corpus.ALT24_BUGS, **muabg23_corpus.MUABG23_BUGS,
              **accd22_corpus.ACCD22_BUGS}


def test_corpus_has_the_ten_bug_classes_of_issue_3():
    assert len(pb.CANARY_AUDITED) >= 12  # the ten of issue 3 plus the two original mutants
    for b in pb.CANARY_AUDITED.values():
        assert b.bug and b.precedent and b.instance and callable(b.pair)


def test_corpus_lists_every_mutant_once():
    """One corpus: every mutant of the mutant modules is an entry (named after it), and nothing else."""
    mutants = {name for m in MUTANT_MODULES for name in m.__all__ if name not in HELPERS}
    assert set(pb.CORPUS) == mutants
    assert set(pb.CORPUS) == set(pb.CANARY_AUDITED) | set(PAPER_BUGS)
    assert not set(pb.CANARY_AUDITED) & set(PAPER_BUGS)
    assert len(PAPER_BUGS) == (len(pb.PAPER_TEST_BUGS) + len(alt24_corpus.ALT24_BUGS) + len(muabg23_corpus.MUABG23_BUGS)
                               + len(accd22_corpus.ACCD22_BUGS))
    for name, b in pb.CORPUS.items():
        assert getattr(b.mutant, "func", b.mutant).__name__ == name
        assert b.paper in ("bftt19", "lr21", "alt24", "muabg23", "accd22") and b.bug and b.precedent and b.instance


def _functions(path: Path) -> dict[str, str]:
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    return {n.name: ast.get_source_segment(text, n) or "" for n in tree.body if isinstance(n, ast.FunctionDef)}


@pytest.mark.parametrize("name", list(PAPER_BUGS))
def test_paper_test_bugs_name_how_they_are_caught_and_the_tests_that_run_it(name):
    """Each bug caught in its paper's test files names the audit or check (``caught_by``) and tests that exist;
    the first of them runs the mutant itself.  An invisible one (no check can refute it on its instance) says so
    in what catches it."""
    b = PAPER_BUGS[name]
    assert b.caught_by and b.true_privacy and b.tests
    assert b.visible or "invisible" in b.caught_by
    for i, test_id in enumerate(b.tests):
        path, _, func = test_id.partition("::")
        functions = _functions(ROOT / path)
        assert func in functions, test_id
        if i == 0:
            assert name in functions[func], f"{test_id} does not run {name}"


@pytest.mark.parametrize("name", list(pb.CANARY_AUDITED))
def test_canary_audited_bugs_name_their_audit(name):
    b = pb.CANARY_AUDITED[name]
    assert ("privacy audit" in b.caught_by) == b.visible
    functions = _functions(ROOT / "tests" / "test_planted_bugs.py")
    for test_id in b.tests:
        assert test_id.partition("::")[2] in functions, test_id


def test_docs_table_is_in_step_with_the_corpus():
    """docs/planted-bugs.md has one table row per planted bug, with the corpus's own texts."""
    doc = (ROOT / "docs" / "planted-bugs.md").read_text(encoding="utf-8")
    for name, b in pb.CORPUS.items():
        rows = [line for line in doc.splitlines() if line.startswith(f"| `{name}` |")]
        assert len(rows) == 1, name
        cells = [c.strip() for c in rows[0].split("|")[1:-1]]
        assert cells[1:4] == [b.bug, b.precedent, b.instance], name
        if name in PAPER_BUGS:
            assert cells[4:6] == [b.true_privacy, b.caught_by], name
            assert cells[6] == ", ".join(f"`{t}`" for t in b.tests), name


def test_detection_rate_refuses_a_bug_it_does_not_audit():
    with pytest.raises(ValueError, match="its paper's tests catch it"):
        pb.detection_rate("alg2_printed_gaussian", audits=1)
    with pytest.raises(ValueError, match="no such planted bug"):
        pb.detection_rate("no_such_bug", audits=1)


# -- exact privacy --------------------------------------------------------------------------------------


def test_release_delta_reproduces_the_oracles_without_clamping():
    """Cross-check of the clamped-release curve against dpsco.oracles.privacy_curves when nothing is clamped."""
    p = bc.NSGD_PARAMS
    w, a = bc._canary_mixture(bc.N_NSGD, p.m, 1.0)
    s = math.sqrt(p.sigma2)
    ours = pb.release_epsilon(bc.DELTA_NSGD, w, a, w, -a, s)
    ref = nsgd_one_step_canary_epsilon(bc.DELTA_NSGD, bc.N_NSGD, p.m, s, 1.0)
    assert math.isclose(ours, ref, abs_tol=1e-6)
    ours_null = pb.release_epsilon(bc.DELTA_NSGD, w, a, [1.0], [0.0], s)
    ref_null = nsgd_one_step_canary_epsilon(bc.DELTA_NSGD, bc.N_NSGD, p.m, s, 1.0, neighbour="null")
    assert math.isclose(ours_null, ref_null, abs_tol=1e-6)
    g = pb.release_epsilon(bc.DELTA_OBJP, [1.0], [1.0], [1.0], [-1.0], bc.SIGMA_OBJP)
    assert math.isclose(g, gaussian_epsilon(bc.DELTA_OBJP, 2.0, bc.SIGMA_OBJP), abs_tol=1e-6)


@pytest.mark.parametrize("name", VISIBLE)
def test_visible_mutants_violate_their_claim_and_correct_algorithms_do_not(name):
    b = pb.CANARY_AUDITED[name]
    assert b.true_epsilon() > 1.5 * b.epsilon, name
    ce = b.correct_epsilon()
    assert math.isnan(ce) or ce <= b.epsilon, name


@pytest.mark.parametrize("name", INVISIBLE)
def test_invisible_mutants_are_documented_non_violations(name):
    b = pb.CANARY_AUDITED[name]
    assert b.true_epsilon() <= b.epsilon and b.true_privacy_note


def _is_exact_epsilon(eps: float, delta_of_eps, delta: float, tol: float = 1e-6) -> bool:
    """eps is the smallest ε with δ(ε) ≤ δ, to ``tol``: δ(eps) ≤ δ < δ(eps − tol) (δ(ε) decreases)."""
    return delta_of_eps(eps) <= delta * (1 + 1e-9) and delta_of_eps(eps - tol) > delta


@pytest.mark.parametrize("name", ["nsgd_noise_scaled_0p7", "nsgd_sensitivity_without_factor_2"])
def test_one_sided_true_epsilon_is_the_worst_pair_accountant(name):
    """On the one-sided pair the clamp of the n = 16 instance (|g + G| ≤ 1) sits at the dataset's mean and does
    not change the ε (the optimal events are in the other tail): the release's exact ε is the exact T = 1
    worst-pair curve's ε (dpsco.reference.bftt19.accounting.nsgd_worst_pair_delta: normal tails, no discretisation), to
    1e-6, for the mutant's σ and the correct σ."""
    b = pb.CANARY_AUDITED[name]
    p = bc.NSGD_PARAMS
    factor = {"nsgd_noise_scaled_0p7": 0.7, "nsgd_sensitivity_without_factor_2": 0.5}[name]
    for f, got in ((factor, b.true_epsilon()), (1.0, b.correct_epsilon())):
        s = f * math.sqrt(p.sigma2)
        assert _is_exact_epsilon(got, lambda e: nsgd_worst_pair_delta(e, bc.N_NSGD, p.m, s, 1.0, 1), bc.DELTA_NSGD), f


def test_printed_calibration_true_epsilon_from_the_accountant_and_the_quadrature_oracle():
    """The printed-calibration entry's true ε (corpus machinery: exact clamped release curve) against the
    worst-pair accountant's exact T = 1 ε and the independent quadrature oracle's δ at that ε; σ from
    Algorithm 1, line 1 (not from the mutant's claim).  The correct (certified) σ is private there."""
    b = pb.CANARY_AUDITED["nsgd_printed_calibration"]
    n, dl = bc.N_PRINTED, bc.DELTA_PRINTED
    m = o.algorithm_1_batch_size(n, 1.0, 1)[1]
    sigma = math.sqrt(8.0 * math.log(1.0 / dl) / n**2)  # 8TL² log(1/δ)/(n²ε²) with T = L = ε = 1
    te = b.true_epsilon()
    assert _is_exact_epsilon(te, lambda e: nsgd_worst_pair_delta(e, n, m, sigma, 1.0, 1), dl)
    assert _is_exact_epsilon(te, lambda e: nsgd_worst_pair_delta_quadrature(e, n, m, sigma, 1.0), dl)
    assert te > 1.5 * b.epsilon
    ce = b.correct_epsilon()
    assert ce <= b.epsilon
    s_c = math.sqrt(bc.PRINTED_PARAMS.sigma2)
    assert _is_exact_epsilon(ce, lambda e: nsgd_worst_pair_delta(e, n, m, s_c, 1.0, 1), dl)


def test_printed_calibration_mutant_is_noisy_sgd_printed_with_the_requested_claim():
    """The mutant runs the real noisy_sgd(calibration="printed") bit for bit; only its claim differs: (ε, δ) as
    requested, where noisy_sgd itself states the accountant's larger δ."""
    b = pb.CANARY_AUDITED["nsgd_printed_calibration"]
    ds, _ = b.pair()
    args = (ds["X"], ds["y"], b.problem, b.epsilon, b.delta)
    kw = {"T": bc.T_PRINTED, "eta": bc.ETA_PRINTED}
    honest = o.noisy_sgd(*args, np.random.default_rng(9), replicates=256, calibration="printed", **kw)
    mut = mu.nsgd_printed_calibration(*args, np.random.default_rng(9), replicates=256, **kw)
    np.testing.assert_array_equal(mut.output, honest.output)
    assert mut.parameters["sigma2"] == honest.parameters["sigma2"]
    assert math.isclose(honest.parameters["sigma2"], 8.0 * math.log(1.0 / b.delta) / bc.N_PRINTED**2, rel_tol=1e-12)
    assert (mut.claim.epsilon, mut.claim.delta) == (b.epsilon, b.delta)
    assert honest.claim.delta > b.delta  # the honest printed claim: the accountant's δ(1)
    assert np.max(np.abs(mut.output)) < b.problem.radius  # projection inactive (η = 1, |g + G| ≪ 10)


def test_regulariser_dropped_mass_exceeds_delta():
    assert bc.regulariser_dropped_mass() > 100 * bc.DELTA_OBJP


# -- fidelity of the copies and fast paths ------------------------------------------------------------------


def test_mutant_core_with_default_switches_is_noisy_sgd():
    ds, _ = bc._linear_pair(bc.N_NSGD, 1.0, -1.0)
    ref = o.noisy_sgd(ds["X"], ds["y"], bc.PROB_NSGD, 1.0, bc.DELTA_NSGD, np.random.default_rng(7), replicates=64)
    cp = mu._nsgd_mutant(ds["X"], ds["y"], bc.PROB_NSGD, 1.0, bc.DELTA_NSGD, np.random.default_rng(7), 64, "none")
    np.testing.assert_array_equal(ref.output, cp.output)
    assert cp.claim == ref.claim


def test_objp_fast_paths_match_the_certified_solver():
    rng = np.random.default_rng(3)
    ds, _ = bc._linear_pair(bc.N_OBJP, 1.0, -1.0)
    G = 10.0 * rng.standard_normal((3, 1))
    lam = bc.LAMBDA_OBJP_LINEAR
    fast = mu.objp_linear_argmin(ds["X"], bc.PROB_OBJP_LINEAR.domain, lam, G)
    for r in range(3):
        sol = certified_minimize(bc.PROB_OBJP_LINEAR.loss, ds["X"], ds["y"], bc.PROB_OBJP_LINEAR.domain, lam=lam,
                                 linear=G[r] / bc.N_OBJP, tol=1e-12)
        assert abs(fast[r, 0] - sol.w[0]) <= 1e-9 * max(1.0, abs(sol.w[0]))
    lg, _ = bc._logistic_null_pair(bc.N_OBJP)
    G1 = np.array([-30.0, -0.5, 0.4, 0.6, 25.0])  # both boundary atoms and interior roots
    lam = bc.LAMBDA_OBJP_LOGISTIC
    fast = mu.objp_logistic_1d_argmin(lg["X"][:, 0], lg["y"], 1.0, lam, G1)
    for g, f in zip(G1, fast):
        sol = certified_minimize(bc.PROB_OBJP_LOGISTIC.loss, lg["X"], lg["y"], bc.PROB_OBJP_LOGISTIC.domain, lam=lam,
                                 linear=np.array([g / bc.N_OBJP]), tol=1e-12)
        assert abs(f - sol.w[0]) <= 1e-9


def test_batched_correct_objp_draws_what_objective_perturbation_draws():
    ds, _ = bc._linear_pair(bc.N_OBJP, 1.0, -1.0)
    one = o.objective_perturbation(ds["X"], ds["y"], bc.PROB_OBJP_LINEAR, 1.0, bc.DELTA_OBJP, np.random.default_rng(11))
    fast = bc.objp_linear_batched(1.0)(ds, bc.PROB_OBJP_LINEAR, 1.0, bc.DELTA_OBJP, 1, np.random.default_rng(11))
    assert abs(fast[0, 0] - one.output[0]) <= 1e-9 * abs(one.output[0])
    lg, _ = bc._logistic_null_pair(bc.N_OBJP)
    one = o.objective_perturbation(lg["X"], lg["y"], bc.PROB_OBJP_LOGISTIC, 1.0, bc.DELTA_OBJP, np.random.default_rng(12))
    fast = bc.objp_logistic_batched(lg, bc.PROB_OBJP_LOGISTIC, 1.0, bc.DELTA_OBJP, 1, np.random.default_rng(12))
    assert abs(fast[0, 0] - one.output[0]) <= 1e-9


def test_warm_start_mutant_is_the_gaussian_mechanism_with_shrunk_noise():
    ds, _ = bc._linear_pair(bc.N_OBJP, 1.0, -1.0)
    out = mu.objp_inexact_warm_start(ds["X"], ds["y"], bc.PROB_OBJP_LINEAR, 1.0, bc.DELTA_OBJP,
                                     np.random.default_rng(5), replicates=4).output
    G = bc.SIGMA_OBJP * np.random.default_rng(5).standard_normal((4, 1))
    expect = -(1.0 + (1 - 0.9**2) * G) / (2 * bc.N_OBJP * bc.LAMBDA_OBJP_LINEAR)
    np.testing.assert_allclose(out, expect, rtol=1e-9)


# -- audits -------------------------------------------------------------------------------------------------

#: audits per mutant in the fast test: (CP 95 % upper bound of the campaign's miss rate)^K ≤ 1e-6
FAST_AUDITS = {name: 5 for name in VISIBLE}  # every visible mutant: 100/100 in the campaign (miss ≤ 0.0362)


@pytest.mark.parametrize("name", VISIBLE)
def test_default_budget_audits_refute_each_visible_mutant(name):
    b = pb.CANARY_AUDITED[name]
    ds, nb = b.pair()
    mech = b.mechanism("mutant")
    claim = mech.claim(ds)
    seeds = np.random.SeedSequence(31337, spawn_key=(list(pb.CANARY_AUDITED).index(name),)).spawn(FAST_AUDITS[name])
    results = []
    for s in seeds:  # up to K audits at the entry's budget, stopping at the first refutation
        results.append(audit(mech, ds, nb, claim, b.samples, np.random.default_rng(s),
                             confidence=pb.DEFAULT_CONFIDENCE, **dict(b.audit_kwargs)))
        if results[-1].verdict == "refuted":
            break
    assert results[-1].verdict == "refuted", [r.summary() for r in results]


def test_fixed_event_refutation_probability_is_the_audit_rule_summed():
    """Deterministic: at n = 40 the closed form equals the brute-force double sum of 1{audit's ε_lb > ε}
    over all count pairs, and a fixed-event audit's ε_lb is that rule applied to the event's counts."""
    from scipy.stats import binom

    from dpsco.verification.auditing.audit import epsilon_lower_bound

    n, p, q, eps, dl = 40, 0.55, 0.08, 1.0, 0.01
    k = np.arange(n + 1)
    rule = np.array([[epsilon_lower_bound(a, n, c, n, dl, 0.95) > eps for c in k] for a in k], dtype=float)
    brute = float(binom.pmf(k, n, p) @ rule @ binom.pmf(k, n, q))
    assert math.isclose(pb.fixed_event_refutation_probability(p, q, n, eps, dl, 0.95), brute, rel_tol=1e-12)


@pytest.mark.parametrize("name", ["nsgd_sensitivity_without_factor_2", "nsgd_printed_calibration",
                                  "objp_regulariser_dropped"])
def test_correct_counterpart_not_refuted_at_high_confidence(name):
    # false-failure probability ≤ 1e-6: auditor's guarantee at confidence 1 − 1e-6, the correct algorithm being
    # (ε, δ)-DP on the pair (exact curve for NSGD; Theorem 5.2 for ObjP, preconditions checked by the algorithm)
    b = pb.CANARY_AUDITED[name]
    ds, nb = b.pair()
    mech = b.mechanism("correct")
    res = audit(mech, ds, nb, mech.claim(ds), b.samples, np.random.default_rng(np.random.SeedSequence(4242)),
                confidence=1 - 1e-6, **dict(b.audit_kwargs))
    assert res.verdict == "not refuted", res.summary()


# -- campaign -----------------------------------------------------------------------------------------------


@pytest.mark.campaign
@pytest.mark.parametrize("name", list(pb.CANARY_AUDITED))
def test_campaign_detection_rate(name):
    """100 audits of the mutant and 100 of the correct algorithm at the default budget.

    Visible mutants: H0 "per-audit power ≥ 0.95" is rejected only if the one-sided (1 − 1e-6) Clopper–Pearson
    upper bound of the power is < 0.95: false-failure probability ≤ 1e-6 under H0.  The fixed seed also pins
    the measured rate, which docs/planted-bugs.md publishes.
    Correct algorithms: the auditor guarantees a false-refutation probability ≤ 0.05 per audit; the test fails
    only if the (1 − 1e-6) CP *lower* bound exceeds 0.05: false-failure probability ≤ 1e-6.
    """
    b = pb.CANARY_AUDITED[name]
    c = pb.detection_rate(name, which="correct")
    from dpsco.verification.auditing.audit import clopper_pearson_lower

    assert clopper_pearson_lower(c.refuted, c.audits, 1e-6) <= 0.05
    r = pb.detection_rate(name)
    if b.visible:
        assert clopper_pearson_upper(r.refuted, r.audits, 1e-6) >= 0.95, r


# -- notions: the μ-GDP / ρ-zCDP entries and detection_rate(notion=...) ------------------------------------------

NOTION_NAMES = list(nt.NOTION_AUDITED)


def test_notion_entries_are_registered_beside_the_corpus():
    """Every mutant of mutants.notions is an entry (named after it) of NOTION_AUDITED, audited by detection_rate
    (corpus.AUDITED) but outside CORPUS (no catalogue entry runs these mechanisms yet); each names the curve
    audit that catches it and tests of this file that run it, and its claim is of the notion it is audited
    under."""
    mutants = {b.mutant.__name__ for b in nt.NOTION_AUDITED.values()}
    assert mutants == set(nt.NOTION_AUDITED) and mutants <= set(nt.__all__)
    assert not set(nt.NOTION_AUDITED) & set(pb.CORPUS)
    assert pb.AUDITED == {**pb.CANARY_AUDITED, **nt.NOTION_AUDITED}
    functions = _functions(ROOT / "tests" / "test_planted_bugs.py")
    for name, b in nt.NOTION_AUDITED.items():
        assert b.visible and "curve audit" in b.caught_by and b.bug and b.precedent and b.instance
        assert all(t.partition("::")[2] in functions for t in b.tests), name
        ds, _ = b.pair()
        for which in ("mutant", "correct"):
            claim = b.mechanism(which).claim(ds)
            assert claim.notion == {"gdp": "GDP", "zcdp": "zCDP"}[b.claim_notion], name
            assert (claim.epsilon, claim.delta) == (b.epsilon, b.delta), name  # the mutant keeps the claim
            assert claim.event is not None


def test_notion_true_privacy_from_hand_derivations():
    """Golden values derived here.  Gaussian sum: the replace-one pair moves the sum by 2R; σ = 2R/μ (correct),
    R/μ (mutant), so μ = 2R/σ = μ, 2μ.  Clipped step: the clipped mean moves by 2C/n, σ = 2C/(n√(2ρ)) (correct),
    C/(n√(2ρ)) (mutant): ρ = (2C/n)²/(2σ²) = ρ, 4ρ.  ε at δ: the independent Gaussian oracle at that shift."""
    R, mu, rho, dl = nt.R_SUM, nt.MU, nt.RHO, nt.DELTA
    b = nt.NOTION_AUDITED["gaussian_sum_half_sigma"]
    assert b.true_parameter() == 2 * R / (R / mu) and b.correct_parameter() == 2 * R / (2 * R / mu)
    assert math.isclose(b.true_epsilon(), gaussian_epsilon(dl, 2 * R, R / mu), abs_tol=1e-6)
    assert math.isclose(b.correct_epsilon(), gaussian_epsilon(dl, 2 * R, 2 * R / mu), abs_tol=1e-6)
    b = nt.NOTION_AUDITED["noisy_clipped_gradient_step_sensitivity_c_over_n"]
    n, C = nt.N_STEP, nt.C_STEP
    for s, got in ((C / (n * math.sqrt(2 * rho)), b.true_parameter()), (2 * C / (n * math.sqrt(2 * rho)),
                                                                         b.correct_parameter())):
        assert math.isclose(got, (2 * C / n) ** 2 / (2 * s * s), rel_tol=1e-12)
    assert math.isclose(b.true_epsilon(), gaussian_epsilon(dl, 2 * C / n, C / (n * math.sqrt(2 * rho))), abs_tol=1e-6)
    for name in NOTION_NAMES:  # visible violations of the claimed parameter; correct mechanisms satisfy it
        b = nt.NOTION_AUDITED[name]
        claimed = {"gdp": nt.MU, "zcdp": nt.RHO}[b.claim_notion]
        assert b.true_parameter() > 1.5 * claimed and b.correct_parameter() <= claimed, name


def test_laplace_rho_and_epsilon_against_quadrature():
    """Independent oracle: the Rényi divergences D_α(Lap(t, 1) ‖ Lap(0, 1)) and the hockey-stick divergence by
    numerical quadrature.  ρ = sup_α D_α/α is at least the KL (α → 1) and every quadrature D_α/α, and at most
    their maximum over a fine α grid plus the grid's resolution; ε(δ) has hockey-stick divergence δ."""
    from scipy import integrate

    def pdf(x, loc=0.0):
        return 0.5 * math.exp(-abs(x - loc))

    def quad(f, t):  # the integrand's kinks at 0 and t split the line
        return sum(integrate.quad(f, lo, hi, epsabs=1e-14)[0] for lo, hi in ((-60, 0), (0, t), (t, 60)))

    def renyi(t, a):
        return math.log(quad(lambda x: pdf(x, t) ** a * pdf(x) ** (1 - a), t)) / (a - 1)

    for t in (1.0, 2.0, 0.3):
        kl = quad(lambda x: pdf(x, t) * (abs(x) - abs(x - t)), t)
        grid = [max(renyi(t, a) / a for a in np.linspace(1.001, 6.0, 60)), kl]
        rho = nt.laplace_rho(t)
        assert max(grid) - 1e-7 <= rho <= max(grid) + 1e-3, t
    b = nt.NOTION_AUDITED["laplace_sum_sensitivity_without_factor_2"]
    for t, eps in ((2.0, b.true_epsilon()), (1.0, b.correct_epsilon())):
        hs = quad(lambda x: max(0.0, pdf(x, t) - math.exp(eps) * pdf(x)), t)
        assert math.isclose(hs, b.delta, rel_tol=1e-5), t


def test_fixed_event_curve_refutation_probability_is_the_audit_rule_summed():
    """Deterministic: at n = 40 the closed form equals the brute-force double sum of the curve audit's own rule
    (curve_box, curve_refutes) over all count pairs, for a GDP and a zCDP curve."""
    from scipy.stats import binom

    n, k = 40, np.arange(41)
    for curve, p, q in ((CurveClaim.gdp(0.5), 0.9, 0.2), (CurveClaim.zcdp(0.2), 0.8, 0.1)):
        rule = np.array([[curve_refutes(*curve_box(a, n, c, n, 0.95)[:2], curve.tradeoff) for c in k] for a in k],
                        dtype=float)
        brute = float(binom.pmf(k, n, p) @ rule @ binom.pmf(k, n, q))
        assert math.isclose(nt.fixed_event_curve_refutation_probability(p, q, n, curve, 0.95), brute, rel_tol=1e-12)


def _notion_event(name: str, which: str) -> tuple[Event, float, float]:
    """The fixed event of each notion entry and its exact probabilities (numerator side p, other side q),
    derived here: Gaussian sum ~ N(±R, σ²); clipped step w₁ = −(±C/n + G), G ~ N(0, σ²) (the dataset's x_n = +2
    clips to +C, so the neighbour's w₁ is the larger); Laplace sum ~ Lap(±R, b)."""
    from scipy.special import ndtr
    from scipy.stats import laplace

    f = 0.5 if which == "mutant" else 1.0
    R, mu, rho = nt.R_SUM, nt.MU, nt.RHO
    if name == "gaussian_sum_half_sigma":
        s, tau = f * 2 * R / mu, 1.5
        return Event(tau, "ge", "dataset"), float(ndtr((R - tau) / s)), float(ndtr((-R - tau) / s))
    if name == "noisy_clipped_gradient_step_sensitivity_c_over_n":
        m, s = nt.C_STEP / nt.N_STEP, f * 2 * nt.C_STEP / (nt.N_STEP * math.sqrt(2 * rho))
        tau = m
        return Event(tau, "ge", "neighbour"), float(ndtr((m - tau) / s)), float(ndtr((-m - tau) / s))
    b, tau = f * 2 * R / math.sqrt(2 * rho), 0.5
    return Event(tau, "ge", "dataset"), float(laplace.sf(tau, R, b)), float(laplace.sf(tau, -R, b))


#: runs per side and confidence of the fixed-event notion audits
NOTION_RUNS, NOTION_CONFIDENCE = 10_000, 1 - 1e-6


@pytest.mark.parametrize("name", NOTION_NAMES)
def test_notion_mutants_refuted_and_correct_not_refuted(name):
    """The curve audit under the entry's notion (event fixed in advance, 10,000 runs per side, confidence
    1 − 1e-6) refutes the mutant's claim and not the correct mechanism's."""
    b = nt.NOTION_AUDITED[name]
    ds, nb = b.pair()
    curve = pb.notion_curve(b.mechanism("correct").claim(ds), b.claim_notion)
    for which, want in (("mutant", "refuted"), ("correct", "not refuted")):
        event, p, q = _notion_event(name, which)
        refute = nt.fixed_event_curve_refutation_probability(p, q, NOTION_RUNS, curve, NOTION_CONFIDENCE)
        # false-failure probability: the exact chance of the wrong verdict at this event, ≤ 1e-6 (asserted);
        # for the correct mechanism also ≤ 1e-6 by the auditor's guarantee (it satisfies the claim exactly)
        assert (1.0 - refute if want == "refuted" else refute) <= 1e-6, (which, refute)
        res = audit_curve(b.mechanism(which), ds, nb, curve, NOTION_RUNS,
                          np.random.default_rng(np.random.SeedSequence(777, spawn_key=(NOTION_NAMES.index(name),))),
                          confidence=NOTION_CONFIDENCE, event=event, power=False, rho_bound=False)
        assert res.verdict == want, (which, res.summary())


def test_detection_rate_validates_notion():
    with pytest.raises(ValueError, match="notion must be one of"):
        pb.detection_rate("gaussian_sum_half_sigma", audits=1, notion="rdp")
    with pytest.raises(ValueError, match="notion='curve'.*no dp_accounting event"):
        pb.detection_rate("objp_noise_scaled_by_n", audits=1, notion="curve")
    with pytest.raises(ValueError, match="notion='gdp' audits GDP claims"):
        pb.detection_rate("nsgd_noise_scaled_0p7", audits=1, notion="gdp")
    with pytest.raises(ValueError, match="notion='zcdp' audits zCDP claims"):
        pb.detection_rate("gaussian_sum_half_sigma", audits=1, notion="zcdp")
    with pytest.raises(ValueError, match="no such planted bug"):
        pb.detection_rate("no_such_bug", audits=1, notion="gdp")


def test_detection_rate_default_notion_is_the_threshold_audit():
    """notion="approx" (the default) runs audit() on the same seeds as before notions existed; the curve
    notions report their own lower bound.  Deterministic comparisons of the same seeds, no statistical test."""
    name, n = "gaussian_sum_half_sigma", 4000
    b = pb.AUDITED[name]
    ds, nb = b.pair()
    mech = b.mechanism("mutant")
    root = np.random.SeedSequence(5, spawn_key=(0,))
    manual = [audit(mech, ds, nb, mech.claim(ds), n, np.random.default_rng(c), confidence=pb.DEFAULT_CONFIDENCE)
              for c in root.spawn(2)]
    r = pb.detection_rate(name, 2, n, 5)
    again = pb.detection_rate(name, 2, n, 5, notion="approx")
    assert (again.refuted, again.epsilon_lower_median) == (r.refuted, r.epsilon_lower_median)
    assert r.notion == "approx" and r.parameter == "epsilon"
    assert r.refuted == sum(m.verdict == "refuted" for m in manual)
    assert r.epsilon_lower_median == r.lower_median == float(np.median([m.epsilon_lower for m in manual]))
    g = pb.detection_rate(name, 2, n, 5, notion="gdp")
    assert g.notion == "gdp" and g.parameter == "mu"
    assert math.isfinite(g.lower_median) and math.isnan(g.epsilon_lower_median)
    c = pb.detection_rate(name, 2, n, 5, notion="curve")
    assert c.parameter == "epsilon" and c.lower_median == c.epsilon_lower_median


@pytest.mark.campaign
@pytest.mark.parametrize("name", NOTION_NAMES)
def test_campaign_notion_detection_rate(name):
    """100 audits of the mutant and 100 of the correct mechanism under the entry's own notion (gdp / zcdp) at
    the default budget; the same two one-sided (1 − 1e-6) Clopper–Pearson criteria as test_campaign_detection_rate:
    false-failure probability ≤ 1e-6 each."""
    from dpsco.verification.auditing.audit import clopper_pearson_lower

    b = nt.NOTION_AUDITED[name]
    c = pb.detection_rate(name, which="correct", notion=b.claim_notion)
    assert clopper_pearson_lower(c.refuted, c.audits, 1e-6) <= 0.05
    r = pb.detection_rate(name, notion=b.claim_notion)
    assert clopper_pearson_upper(r.refuted, r.audits, 1e-6) >= 0.95, r
