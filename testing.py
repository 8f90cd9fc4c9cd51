"""Assertions for your own pytest suite: is my mechanism private, is it the paper's algorithm, does my release
publish only what its claim covers (in the style of ``numpy.testing`` and scikit-learn's ``check_estimator``).

* :func:`assert_private` — audits ``mechanism(data, rng) -> array`` on a neighbouring pair against its claim, in
  every notion the claim states ((ε, δ), ρ-zCDP, μ-GDP, the dp_accounting event), with the house's auditors
  (:func:`dpsco.verification.auditing.audit.audit`, :func:`dpsco.verification.auditing.curve_audit.audit_curve`).
* :func:`assert_matches_reference` — wraps :func:`dpsco.verification.campaign.compare.compare` (two-sample law,
  utility, privacy audit of the candidate against a catalogue entry).
* :func:`harness_instance` — the exact keyword arguments a candidate for a suite-verified entry (harness
  convention) receives in one run of the comparison, to replay it outside (the candidate is called BY KEYWORD).
* :func:`assert_claim_covers` — checks a :class:`~dpsco.reference.privacy.Release` structurally (finite outcome,
  claim present and consistent in its notions, no private fields published) and, given a second release on a
  neighbouring dataset at the same seed, that every published field but the outcome is the same.
* :func:`assert_transcript_private` — the white-box hook: a noisy-gradient method that returns its transcript
  (:class:`dpsco.adapters.NoisyGradientTranscript`) is audited white-box
  (:func:`dpsco.verification.auditing.white_box.white_box_audit`) and its noise is measured
  (:func:`dpsco.verification.checks.noise.measured_noise_check`).

Each raises ``AssertionError`` whose message carries the evidence (bounds, p-values, runs, seed), returns the
underlying result(s) when it passes, and is deterministic given ``seed`` (every stream is spawned from
``numpy.random.SeedSequence(seed)``).  False failures: a mechanism that satisfies its claim fails
:func:`assert_private` / :func:`assert_transcript_private` with probability at most 1 − ``confidence``, and a
faithful implementation fails :func:`assert_matches_reference` with probability at most 1 − ``confidence`` (each
by the validity of the audit or test it wraps; Bonferroni over the notions or checks it runs).  The default
``confidence`` is the one default of every dpsco command and API (0.95,
:data:`dpsco.verification.cli.conventions.DEFAULT_CONFIDENCE`): in a test suite pass a stricter one, e.g.
``confidence=1 - 1e-7`` (a flaky test at 5 % is no test); the examples in docs/testing.md do.
:func:`assert_claim_covers` is deterministic (no false failures).  Guide: docs/testing.md.
"""

from __future__ import annotations

import json
import math
from typing import Any, Callable, Mapping

import numpy as np

from dpsco.verification.auditing.clopper_pearson import check_confidence as _check_confidence
from dpsco.verification.cli.conventions import DEFAULT_CONFIDENCE as HOUSE_DEFAULT_CONFIDENCE

__all__ = ["DEFAULT_CONFIDENCE", "assert_claim_covers", "assert_matches_reference", "assert_private",
           "assert_transcript_private", "claim_notions", "harness_instance"]

#: the house default of every command and API (0.95); pass a stricter one in tests (false failure = 1 − confidence)
DEFAULT_CONFIDENCE = HOUSE_DEFAULT_CONFIDENCE
#: the fields Release.to_dict publishes (others, from a subclass, must be named as outcome fields)
PUBLISHED_FIELDS = ("algorithm", "output", "claim", "gradient_evaluations", "parameters", "trajectory")
#: names that mark a data-dependent value; none may appear among the published parameters
PRIVATE_MARKERS = ("performed", "diagnostic", "nonprivate", "unperturbed", "noiseless")


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def claim_notions(claim: Any) -> list[tuple[str, Any]]:
    """The notions a claim states, each as (label, what the auditor takes): ``("(eps, delta)", PrivacyClaim)``
    when ε is finite, ``("rho", CurveClaim)`` for a stated ρ, ``("mu", CurveClaim)`` for a stated μ and
    ``("event", CurveClaim)`` for an attached dp_accounting event.  ``claim``: a PrivacyClaim or an (ε, δ) tuple
    (replace-one).  Raises TypeError / ValueError as :func:`dpsco.verification.auditing.inputs.as_claim`."""
    from dpsco.reference.privacy import PrivacyClaim
    from dpsco.verification.auditing.curves import CurveClaim
    from dpsco.verification.auditing.inputs import as_claim

    c = as_claim(claim)
    kw = {"neighbouring": c.neighbouring, "source": c.source}
    out: list[tuple[str, Any]] = []
    if math.isfinite(c.epsilon):
        approx = c if c.notion in ("approx-DP", "pure-DP") else PrivacyClaim(
            notion="pure-DP" if c.delta == 0.0 else "approx-DP", epsilon=c.epsilon, delta=c.delta,
            neighbouring=c.neighbouring, source=c.source)
        out.append((f"(eps, delta) = ({c.epsilon:g}, {c.delta:g})", approx))
    if c.rho is not None:
        out.append((f"rho = {c.rho:g} (zCDP)", CurveClaim.zcdp(float(c.rho), **kw)))
    if c.mu is not None:
        out.append((f"mu = {c.mu:g} (GDP)", CurveClaim.gdp(float(c.mu), **kw)))
    if c.event is not None:
        out.append((f"event {type(c.event).__name__} [{c.event_neighbouring}]",
                    CurveClaim.from_event(c.event, str(c.event_neighbouring), **kw)))
    if not out:
        raise ValueError("claim states no notion that can be audited (ε = inf and no ρ, μ or event)")
    return out


def assert_private(mechanism: Callable[..., Any], dataset: Mapping[str, Any], neighbour: Mapping[str, Any],
                   claim: Any, *, samples: int, confidence: float = DEFAULT_CONFIDENCE, seed: int,
                   notions: tuple[str, ...] | None = None, **audit_options: Any) -> list[Any]:
    """Assert that ``mechanism`` is not caught violating ``claim`` on the pair (``dataset``, ``neighbour``).

    Parameters
    ----------
    mechanism : callable ``f(data, rng) -> array`` (optionally with a vectorised ``sample(data, n, rng)``), all of
        its randomness drawn from ``rng`` (wrap library code with :mod:`dpsco.adapters`).
    dataset, neighbour : dicts of arrays (axis 0 = records), neighbours under the claim's relation (replace-one:
        same shapes, one record differs; add/remove: ``dataset`` has one record more — :func:`dpsco.adapters.
        add_remove_neighbours`).  Put an extreme record in the differing place: the audit is only as strong
        as the pair.
    claim : PrivacyClaim or (ε, δ) (replace-one).  Every notion it states is audited (:func:`claim_notions`):
        (ε, δ) by the sample-split threshold audit, ρ, μ and the event as whole trade-off curves.
    samples : runs per side and per notion (half choose the event, half test it).
    confidence : in (0, 1); each of the k notions is audited at 1 − (1 − confidence)/k (Bonferroni).
    seed : non-negative int; notion i draws from child i of ``SeedSequence(seed)``.
    notions : restrict to these labels' first words ("(eps,", "rho", "mu", "event"); default all.
    audit_options : passed to the auditor (e.g. ``statistic``, ``workers``, ``sample_check_runs``).

    Returns the audit results (one per notion).  Raises AssertionError naming each refuted notion with ε_lb (or
    μ_lb, ρ's box) against the claim, the p-value, the runs and the seed.  False-failure probability: a
    mechanism that satisfies ``claim`` on this pair fails with probability ≤ 1 − ``confidence`` (each audit is
    valid at its level: docs/derivations.md#soundness-of-the-sample-split-threshold-audit and
    #soundness-of-the-box-below-curve-test).  Passing is no proof of privacy: read ``minimum_detectable``.
    TypeError / ValueError (from the auditor) for bad inputs or a pair that is not neighbouring.
    """
    from dpsco.verification.auditing.audit import audit
    from dpsco.verification.auditing.curve_audit import audit_curve, curve_p_value
    from dpsco.verification.auditing.family import p_value_of_counts

    conf, seed = _check_confidence(confidence), _check_seed(seed)
    todo = claim_notions(claim)
    if notions is not None:
        todo = [(label, c) for label, c in todo if any(label.startswith(n) for n in notions)]
        if not todo:
            raise ValueError(f"notions {notions!r} select none of the claim's notions {[t[0] for t in claim_notions(claim)]}")
    level = 1.0 - (1.0 - conf) / len(todo)
    streams = np.random.SeedSequence(seed).spawn(len(todo))
    results, failures = [], []
    for (label, target), stream in zip(todo, streams):
        rng = np.random.default_rng(stream)
        if label.startswith("(eps"):
            res = audit(mechanism, dataset, neighbour, target, samples, rng, confidence=level,
                        seed_entropy=seed, **audit_options)
            d = res.details
            if res.verdict == "refuted":
                p = p_value_of_counts(int(d["numerator_count"]), int(d["n_test"]), int(d["denominator_count"]),
                                      int(d["n_test"]), target.epsilon, target.delta)
                failures.append(f"{label} [{target.neighbouring}]: epsilon_lower = {res.epsilon_lower:.4g} > "
                                f"epsilon = {target.epsilon:g} at confidence {level:.10g} (p-value {p:.3g}; "
                                f"test counts {d['numerator_count']} vs {d['denominator_count']} of {d['n_test']})")
        else:
            res = audit_curve(mechanism, dataset, neighbour, target, samples, rng, confidence=level,
                              seed_entropy=seed, rho_bound=False, **audit_options)
            d = res.details
            if res.verdict == "refuted":
                p = curve_p_value(d["numerator_count"], res.n_test, d["denominator_count"], res.n_test,
                                  target.tradeoff)
                failures.append(f"{label} [{target.neighbouring}]: the Clopper-Pearson box (alpha_hi = "
                                f"{res.alpha_upper:.4g}, beta_hi = {res.beta_upper:.4g}) lies below the claimed "
                                f"trade-off curve (f(alpha_hi) = {res.curve_at_alpha:.4g}); mu_lower = "
                                f"{res.mu_lower:.4g}, at confidence {level:.10g} (p-value {p:.3g})")
        results.append(res)
    if failures:
        raise AssertionError(
            f"assert_private: the claim is refuted in {len(failures)} of {len(todo)} notion(s):\n  "
            + "\n  ".join(failures)
            + f"\n  {samples} runs per side per notion, seed {seed}; a mechanism satisfying the claim fails this "
              f"assertion with probability <= {1.0 - conf:.3g} (Bonferroni over {len(todo)} notion(s))")
    return results


def _g(value: Any) -> str:
    """A number from a record, to 4 significant digits (other values as they are)."""
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _family_evidence(result: Any) -> list[str]:
    """One line per family of a CompareResult: its statistic, p-value or bound (read defensively: the record is
    a dict of families; families a newer compare adds are listed by name)."""
    rec = result.to_dict()
    lines = []
    ts = rec.get("two_sample") or {}
    if ts:
        ks = min((t for t in (ts.get("ks") or {}).get("tests", [])), key=lambda t: t.get("p_holm", 1.0), default=None)
        gap = (ts.get("power") or {}).get("ks_min_detectable_gap_miss_0.05")
        lines.append(f"(a) two-sample law: p = {_g(ts.get('p_value'))} = min(1, 2 min(energy p, smallest Holm KS p)) "
                     f"vs level {_g(ts.get('alpha'))}"
                     + (f"; smallest KS: {ks.get('name')} D = {_g(ks.get('statistic'))}, Holm p = "
                        f"{_g(ks.get('p_holm'))}" if ks else "")
                     + f"; energy p = {_g((ts.get('energy') or {}).get('p_value'))}"
                     + f"; power: a CDF gap >= {_g(gap)} is detected with probability >= 0.95")
    ut = rec.get("utility") or {}
    if ut.get("convention") == "harness":
        lines += _harness_utility_evidence(ut)
    else:
        for side in ("candidate", "reference"):
            u = ut.get(side)
            if isinstance(u, dict):
                if u.get("outside_domain"):
                    lines.append(f"(b) utility, {side}: {u['outside_domain']} output(s) outside the domain -> FAIL")
                else:
                    lines.append(f"(b) utility, {side}: mean excess {_g(u.get('mean'))} (lower confidence bound "
                                 f"{_g(u.get('lcb'))}) vs bound {_g(u.get('bound'))} at level {_g(u.get('alpha'))} "
                                 f"-> {str(u.get('verdict')).upper()}")
        if ut and not any(isinstance(ut.get(side), dict) for side in ("candidate", "reference")):
            lines.append(f"(b) utility: {ut.get('reason') or {k: v for k, v in ut.items() if k != 'declared'}}")
    au = rec.get("audit")
    if isinstance(au, dict):
        cl = au.get("claim") or {}
        ex = au.get("claim_vs_exact")
        if isinstance(ex, dict):
            lines.append(f"(c) claim against the paper's exact privacy on the worst pair: "
                         f"{str(ex.get('verdict')).upper()}"
                         + "".join(f"; {c.get('notion')}: claimed {_g(c.get('claimed'))} vs exact {_g(c.get('exact'))}"
                                   for c in ex.get("checks", [])))
        if au.get("epsilon_lower") is not None:
            lines.append(f"(c) privacy audit of the candidate: epsilon_lower = {_g(au.get('epsilon_lower'))} vs "
                         f"claimed epsilon = {_g(cl.get('epsilon'))} (delta {_g(cl.get('delta'))}) at confidence "
                         f"{au.get('confidence')} -> {str(au.get('verdict')).upper()}"
                         + (f" (pair: {au['pair']})" if au.get("pair") else ""))
        elif au.get("skipped"):
            lines.append(f"(c) privacy audit: skipped ({au['skipped']})")
    wb = rec.get("white_box")
    if isinstance(wb, dict):
        wa, wn = wb.get("audit") or {}, wb.get("noise") or {}
        lines.append(f"(d) white-box audit of the transcript: epsilon_lower = {_g(wa.get('epsilon_lower'))} vs claimed "
                     f"epsilon = {_g(wa.get('claim_epsilon'))} (p-value {_g(wa.get('p_value'))}); measured sigma = "
                     f"{_g(wn.get('measured'))} vs sigma = {_g(wn.get('sigma'))} over {wn.get('residuals')} residuals "
                     f"(chi-squared p-value {_g(wn.get('p_value'))} vs level {_g(wn.get('level'))}) -> "
                     f"{str(wb.get('verdict')).upper()}")
    for key in rec:
        if (key not in ("two_sample", "utility", "audit", "white_box") and isinstance(rec[key], dict)
                and "verdict" in rec[key]):
            lines.append(f"{key}: {rec[key]}")
    return lines


def _harness_utility_evidence(u: Mapping[str, Any]) -> list[str]:
    """Family (b) of the harness convention (``compare_suite.utility_family``), with the statistics the CLI prints:
    the median excess of each side, the one-sided KS D⁺ with its p-value, level and power, and the bound check."""
    ts, c, r, b = (u.get(k) or {} for k in ("two_sample", "candidate", "reference", "bound"))
    gap = (ts.get("power") or {}).get("min_detectable_gap_miss_0.05")
    lines = [f"(b) utility: {u.get('measure')}: median excess candidate {_g(c.get('median'))}, reference "
             f"{_g(r.get('median'))}; one-sided KS D+ = {_g(ts.get('statistic'))}, p = {_g(ts.get('p_value'))} vs "
             f"level {_g(ts.get('level'))} -> {'REJECT' if ts.get('reject') else 'not rejected'}"
             + (f"; power: a CDF gap >= {_g(gap)} is detected with probability >= 0.95"
                if isinstance(gap, (int, float)) and gap <= 1.0 else
                "; power: no CDF gap is detected with probability >= 0.95 at these runs (raise samples)")]
    if b.get("status") == "checked":
        lines.append(f"(b) utility bound P(excess > {_g(b.get('value'))}) <= {_g(b.get('beta'))} ({b.get('source')}): "
                     f"{b.get('exceedances')} of {b.get('n')} exceed it, p = {_g(b.get('p_value'))} vs level "
                     f"{_g(b.get('level'))} -> {'REJECT' if b.get('reject') else 'not rejected'}")
    elif b.get("status") == "uninformative":
        lines.append(f"(b) utility bound {_g(b.get('value'))} ({b.get('source')}): uninformative, not tested "
                     f"({b.get('note')})")
    elif b:
        lines.append(f"(b) utility: no bound checked: {b.get('reason')}")
    if c.get("nonfinite"):
        lines.append(f"(b) utility: {c['nonfinite']} candidate outcome(s) have a non-finite excess")
    return lines


def harness_instance(entry: Any, seed: int = 0, run: int = 0) -> dict[str, Any]:
    """The exact keyword arguments a candidate for the harness-convention entry ``entry`` (Asi, Liu & Tian 2024;
    Menart et al. 2023; Asi, Chadha, Cheng & Duchi 2022) receives in run ``run`` (0-based) of ``dpsco compare
    --against ENTRY --seed SEED`` or ``assert_matches_reference(..., seed=SEED)``: data arrays (copies of the
    harness's records, drawn from the comparison's instance stream), the harness's objects (loss, subgradient
    oracle, domain …), the public inputs and ``rng``, a numpy Generator in the state the candidate receives it.

    ``candidate(**harness_instance("muabg23.noisy_gd", seed=2))`` replays that run outside the comparison (with
    a debugger, prints …); the reference function (``compare_signature(entry).reference_function()``) called
    with the same keywords gives the reference's release on the same instance.  Each call returns fresh copies.

    entry : catalogue name, CatalogueEntry or CompareSignature;  seed, run : non-negative integers.
    Returns {parameter name: value}.  ValueError for an entry of the logistic convention (its candidates take
    ``f(X, y, problem, epsilon, delta, rng, **options)`` on the instance of :func:`dpsco.verification.campaign.
    compare.build_instance`) or a bad seed / run.
    """
    from dpsco.verification.campaign.compare_suite import harness_instance as _instance

    return _instance(entry, seed=seed, run=run)


def assert_matches_reference(candidate: Callable[..., Any], entry: Any, *, samples: int,
                             confidence: float = DEFAULT_CONFIDENCE, seed: int, **compare_options: Any) -> Any:
    """Assert that ``candidate`` is not refuted as an implementation of the catalogue entry ``entry``.

    A thin wrapper of :func:`dpsco.verification.campaign.compare.compare` (``dpsco compare``): the candidate and
    the entry run on the entry's comparison instance and three families are tested — the two-sample law of the
    outputs, utility against the entry's bound, the privacy audit of the candidate's claim.  It accepts every
    entry ``compare`` accepts and passes ``compare_options`` on unchanged (``options`` for the candidate's
    keyword options, ``audit_samples``, ``instance``, ``workers``, ``claimed_epsilon`` …; read ``dpsco compare
    --against ENTRY --show-signature`` for the candidate's signature).  The entry's options are passed to the
    candidate automatically (``options=`` only overrides them).  Harness-convention entries call the candidate BY
    KEYWORD, the reference function's parameter names (any order; a name mismatch is a ValueError before any run);
    :func:`harness_instance` gives one run's arguments.

    The verdict: refuted iff one family rejects, each at α/3 (α = 1 − confidence, Bonferroni): (a) the two-sample
    law, p = min(1, 2 min(energy permutation p, smallest Holm-adjusted KS p)) against α/3; (b) utility — logistic
    entries: each side's mean excess (one-sided Hoeffding lower confidence bound) against the entry's bound;
    harness entries: the one-sided two-sample KS on the excesses (the message and the CLI print the medians) and,
    where declared, the paper's bound (binomial), α/6 each; (c) privacy — the audit of the candidate's claim
    (and, for harness entries, the claim against the paper's exact privacy on the worst pair, deterministic).

    candidate : callable with the entry's compare signature (e.g. ``f(X, y, problem, epsilon, delta, rng,
        **options) -> Release | array``);  entry : catalogue name or CatalogueEntry;  samples : runs of each
        implementation;  confidence : 1 − α;  seed : non-negative int (the comparison's root SeedSequence).

    Returns the CompareResult.  Raises AssertionError naming the failing families (``refuted_by``) with each
    family's statistic, p-value or bound.  False-failure probability: a faithful candidate fails with
    probability ≤ 1 − ``confidence`` (compare's overall α, Bonferroni over its families).  Errors of
    ``compare`` (ValueError for an entry it does not accept, CandidateError) propagate.
    """
    from dpsco.verification.campaign.compare import compare

    conf, seed = _check_confidence(confidence), _check_seed(seed)
    result = compare(candidate, entry, samples=samples, confidence=conf, seed=seed, **compare_options)
    if result.verdict == "refuted":
        raise AssertionError(
            f"assert_matches_reference: {result.candidate} is refuted against {result.against} by "
            f"{', '.join(result.refuted_by)}\n  " + "\n  ".join(_family_evidence(result))
            + f"\n  {samples} runs each, seed {seed}; a faithful implementation fails this assertion with "
              f"probability <= {result.alpha:.3g}")
    return result


def _consistency_problems(claim: Any) -> list[str]:
    """What is inconsistent between the notions a claim states (module docstring of assert_claim_covers)."""
    from dpsco.reference.conversions import gdp_delta, zcdp_delta

    out = []
    eps, delta = float(claim.epsilon), float(claim.delta)
    if claim.notion == "zCDP" and claim.rho is None:
        out.append("a zCDP claim states no rho")
    if claim.notion == "GDP" and claim.mu is None:
        out.append("a GDP claim states no mu")
    for name, value, notion, delta_of in (("rho", claim.rho, "zCDP", lambda v: zcdp_delta(eps, v)),
                                          ("mu", claim.mu, "GDP", lambda v: gdp_delta(v, eps))):
        implied = float(delta_of(float(value))) if value is not None and math.isfinite(eps) else 0.0
        if implied > delta:
            out.append(f"{name} = {value:g} does not imply the stated (eps, delta) = ({eps:g}, {delta:g}): {name}-"
                       f"{notion} gives delta({eps:g}) = {implied:.4g} (dpsco.reference.conversions)")
    if claim.event is not None and math.isfinite(eps):
        # event_neighbouring names the dp_accounting relation under which the event's PLD is the mechanism's on the
        # claim's own relation (PrivacyClaim), so it need not spell the same relation (a replace-one Gaussian
        # output perturbation is a GaussianDpEvent under ADD_OR_REMOVE_ONE with multiplier σ/Δ)
        implied = float(claim.event_delta(eps))
        if implied > delta:
            out.append(f"the dp_accounting event gives delta({eps:g}) = {implied:.4g} > the stated delta = {delta:g} "
                       "(pessimistic PLD, PrivacyClaim.event_delta)")
    return out


def assert_claim_covers(release: Any, *, neighbour_release: Any = None,
                        outcome_fields: tuple[str, ...] = ("output",)) -> None:
    """Assert that a release publishes only what its claim covers (deterministic: no false failures).

    Checked on ``release`` alone: it is a publishable :class:`~dpsco.reference.privacy.Release` (not a replicated
    verification record) whose ``to_dict()`` is strict JSON with only the documented fields (``PUBLISHED_FIELDS``
    plus ``outcome_fields``); the outcome is finite (or ⊥: a null output with ``halted`` true); the claim is
    present and private, and consistent in its notions — a stated ρ implies the stated (ε, δ) (ρ-zCDP's
    δ(ε) ≤ δ, :func:`dpsco.reference.conversions.zcdp_delta`), a stated μ likewise (``gdp_delta``), a zCDP/GDP
    claim states its ρ/μ, an attached event's δ(ε) ≤ δ
    (``PrivacyClaim.event_delta``); the published count is an integer ≥ 0; no published parameter is named like
    a data-dependent value (``PRIVATE_MARKERS``) or repeats a key of ``diagnostics`` / ``nonprivate_internals``.

    Data-independence itself needs a second run: pass ``neighbour_release``, the same mechanism at the same
    public inputs and seed on a neighbouring dataset (put an extreme record in the differing place); every
    published field except ``outcome_fields`` must then be identical (as tests/test_privacy_contract.py checks
    for the catalogue).

    Raises AssertionError listing every problem found; TypeError if ``release`` is not a Release.
    """
    from dpsco.reference.privacy import PrivacyClaim, Release

    if not isinstance(release, Release):
        raise TypeError(f"release must be a dpsco Release, got {type(release).__name__}")
    problems: list[str] = []
    if release.is_replicated:
        raise AssertionError(f"assert_claim_covers: replicates = {release.replicates}: a verification record of "
                             "independent runs, not a release (its claim holds per row only)")
    record = release.to_dict()
    try:
        json.dumps(record, allow_nan=False)
    except (TypeError, ValueError) as exc:
        problems.append(f"to_dict() is not strict JSON: {exc}")
    extra = sorted(set(record) - set(PUBLISHED_FIELDS) - set(outcome_fields) - {"halted"})
    if extra:
        problems.append(f"published fields beyond the documented ones: {extra} (name them in outcome_fields if they "
                        "are the released outcome)")
    out = record.get("output")
    if out is None:
        if record.get("halted") is not True:
            problems.append("the output is null but the release does not mark ⊥ (halted)")
    else:
        arr = np.asarray(release.output, dtype=np.float64)
        if arr.size == 0 or not np.all(np.isfinite(arr)):
            problems.append(f"the output is not finite ({int(np.sum(~np.isfinite(arr)))} non-finite of {arr.size}): "
                            "a NaN or inf that depends on one record is a release with epsilon = inf")
    claim = release.claim
    if not isinstance(claim, PrivacyClaim):
        problems.append(f"the claim is a {type(claim).__name__}, not a PrivacyClaim")
    elif not claim.is_private:
        problems.append("the claim has notion 'none': the release carries no guarantee")
    else:
        problems += [f"claim: {p}" for p in _consistency_problems(claim)]
    ge = record.get("gradient_evaluations")
    if isinstance(ge, bool) or not isinstance(ge, int) or ge < 0:
        problems.append(f"gradient_evaluations must be an integer >= 0, got {ge!r}")
    params = record.get("parameters") or {}
    hidden = set(release.diagnostics) | set(release.nonprivate_internals)
    for key in params:
        if key in hidden:
            problems.append(f"parameters[{key!r}] repeats a key of diagnostics/nonprivate_internals (data-dependent)")
        elif any(m in str(key).lower() for m in PRIVATE_MARKERS):
            problems.append(f"parameters[{key!r}] is named like a data-dependent value")
    if neighbour_release is not None:
        if not isinstance(neighbour_release, Release):
            raise TypeError(f"neighbour_release must be a dpsco Release, got {type(neighbour_release).__name__}")
        other = neighbour_release.to_dict()
        for key in sorted((set(record) | set(other)) - set(outcome_fields) - {"halted"}):
            if json.dumps(record.get(key), sort_keys=True) != json.dumps(other.get(key), sort_keys=True):
                problems.append(f"published field {key!r} differs on the neighbouring dataset at the same seed: it "
                                f"depends on the data ({record.get(key)!r:.120} vs {other.get(key)!r:.120})")
    if problems:
        raise AssertionError(f"assert_claim_covers: {release.algorithm or 'the release'} publishes what its claim does "
                             "not cover:\n  " + "\n  ".join(problems))


def assert_transcript_private(candidate: Callable[..., Any], claim: Any, *, n: int, record: Any, replacement: Any,
                              samples: int, confidence: float = DEFAULT_CONFIDENCE, seed: int,
                              sigma: float | None = None, noise_runs: int | None = None,
                              pilot_runs: int | None = None) -> dict[str, Any]:
    """White-box assertion for a noisy-gradient method that returns its transcript (the hook of docs/testing.md).

    ``candidate(data, rng) -> NoisyGradientTranscript`` (:class:`dpsco.adapters.NoisyGradientTranscript`) is run on
    the one-sided canary pair — ``n`` copies of ``record`` = (x, y) against the same with the last replaced by
    ``replacement`` (:class:`dpsco.verification.auditing.white_box.OneSidedCanary`, the worst pair for
    with-replacement batches) — and two checks share the error budget α = 1 − ``confidence`` (α/2 each):

    1. the white-box audit of ``claim`` (PrivacyClaim or (ε, δ), replace-one) on every noisy gradient
       (:func:`~dpsco.verification.auditing.white_box.white_box_audit`, ``samples`` test runs per side; the
       per-step model placing its event is built from the transcript's public n, m, T, σ, C: power only);
    2. the measured noise: residuals ĝ_t − (replayed noiseless batch mean) of ``noise_runs`` runs on the dataset
       (default: enough for ≥ 1000 residuals) against ``sigma`` (the σ your calibration computes from public
       inputs; default the σ the transcript reports), a one-sided χ² test at α/2
       (:func:`~dpsco.verification.checks.noise.measured_noise_check`).

    Returns ``{"audit": WhiteBoxAuditResult, "noise": check dict}``.  Raises AssertionError with ε_lb, the claim,
    the p-values, the measured σ and the seed when either check fails.  False-failure probability ≤ 1 − confidence
    for a method that satisfies the claim and draws at least σ (each check valid at α/2).  Against a method that
    draws σ/√2, the noise check alone misses with probability ``miss_probability(k, 1/√2, α/2)`` (exact; k the
    residual count).
    """
    from dpsco.verification.auditing.white_box import OneSidedCanary
    from dpsco.verification.campaign.transcripts import transcript_checks

    conf, seed = _check_confidence(confidence), _check_seed(seed)
    alpha = 1.0 - conf
    # one implementation of the two checks, shared with dpsco compare's white-box family
    out = transcript_checks(candidate, claim, OneSidedCanary(n, record, replacement), samples=samples, alpha=alpha,
                            seed=np.random.SeedSequence(seed), sigma=sigma, noise_runs=noise_runs,
                            pilot_runs=pilot_runs)
    failures = out["failures"]
    if failures:
        raise AssertionError("assert_transcript_private: " + "; ".join(failures)
                             + f"\n  {samples} runs per side, seed {seed}; a method satisfying the claim and drawing "
                               f"sigma fails this assertion with probability <= {alpha:.3g}")
    return {"audit": out["audit"], "noise": out["noise"]}
