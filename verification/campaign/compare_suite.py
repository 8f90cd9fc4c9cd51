"""``dpsco compare`` for the entries verified by their own suites (Asi, Liu & Tian 2024; Menart et al. 2023; Asi,
Chadha, Cheng & Duchi 2022): the harness convention of :mod:`dpsco.verification.papers.signatures`.

The candidate is a drop-in for the entry's reference function: the entry's privacy harness
(``verification/papers/<paper>/harness.py``) calls it exactly as it calls the reference — same arguments, BY
KEYWORD, the reference's parameter names (``dpsco compare --against ENTRY --show-signature`` prints them), so the
order of the candidate's parameters does not matter (:func:`keyword_candidate`: the harness's call is bound to the
reference's signature, then passed on as keywords; a candidate that cannot take one of those names, or requires
one the harness does not pass, is refused with a ValueError naming it before any run) — on the harness's instance
(its benign records, drawn once from the comparison's seed; :func:`harness_instance` gives one run's arguments).  It returns a
:class:`dpsco.reference.privacy.Release` (or a bare output array; then the claim audited is the reference's).

Three families, each at α/3 (α = 1 − confidence; Bonferroni), so a faithful candidate is refuted with probability
at most α:

(a) **same law of the outcome** — the fields the signature compares (``output``; ``halted`` where the paper
    releases ⊥, ⊥ as a 0/1 coordinate with the point zeroed on ⊥), energy distance with a permutation null and
    KS per coordinate and on the distance to a pilot reference outcome (drawn from its own stream before the
    samples, so fixed given them), Holm (:func:`dpsco.verification.checks.two_sample.two_sample_test`; KS p-values
    are conservative for discrete coordinates).
(b) **utility** — the signature's ``utility_measure`` (the room's ``compare_utility.UTILITY``): the excess of each
    outcome on the harness's own objective, computed from the harness's records by the room's closed forms or
    certified solves (:mod:`dpsco.verification.papers.compare_utility`), on the samples already drawn for (a) —
    no new runs.  (i) A one-sided two-sample Kolmogorov–Smirnov test that the candidate's excess is not
    stochastically larger than the reference's (:func:`utility_two_sample`; exact null law for equal sample
    sizes, conservative under ties); (ii) where the room declares the paper's bound at the harness's inputs
    (``BoundCheck``: P(excess > B) ≤ β), a binomial test of the candidate's exceedances (:func:`bound_check`),
    "uninformative" (not run) when B is at least the largest excess any outcome of the paper's mechanism can
    have.  (i) and (ii) share α/3: α/6 each when a bound is declared, else (i) takes α/3 (Bonferroni).
    Non-finite outcomes refute the candidate deterministically (the house rule: a finite release after the
    up-front checks).
(c) **privacy** — (i) every notion the candidate's claim states (ε, δ; pure ε; ρ; μ; the dp_accounting event on
    a grid of ε) against the exact privacy of the paper's mechanism on the suite's worst-case pair
    (``PrivacyHarness.exact_privacy``): under the null hypothesis of the comparison the candidate IS that
    mechanism, so a claim below the exact curve is false — deterministic, no α spent; (ii) a black-box audit of
    the candidate's (ε, δ) claim (:func:`dpsco.verification.auditing.audit.audit`) on the suite's worst-case pair
    (the signature's ``worst_pair``; else the harness records with record 0 replaced by a fresh benign record),
    at confidence 1 − α/3.
"""

from __future__ import annotations

import inspect
import math
import time
from typing import Any, Callable

import numpy as np

from dpsco.reference.privacy import PrivacyClaim, Release, to_jsonable
from dpsco.verification.auditing.audit import audit
from dpsco.verification.campaign.compare_result import CompareResult
from dpsco.verification.checks.two_sample import two_sample_test
from dpsco.verification.papers.catalogue import CatalogueEntry
from dpsco.verification.papers.harness import ExactPrivacy, PrivacyHarness, harness_registry
from dpsco.verification.papers.signatures import CompareSignature, compare_signature, harness_call, resolved_parameters

__all__ = ["SuiteCandidateError", "bound_check", "claim_against_exact", "compare_harness", "harness_instance",
           "keyword_candidate", "ks_one_sided_pvalue", "outcome_vector", "recorded_call", "resolved_parameters",
           "utility_family", "utility_two_sample"]

#: ε grid at which a claimed dp_accounting event must dominate the exact curve (as the privacy contract)
EVENT_GRID: tuple[float, ...] = (0.1, 0.5, 1.0, 2.0, 4.0)
_SLACK = 1e-9


class SuiteCandidateError(RuntimeError):
    """The candidate raised, or returned something that is not a Release or a finite array."""


def outcome_vector(release: Any, compared: tuple[str, ...], d: int | None = None) -> np.ndarray:
    """The compared outcome of one release as a flat float vector: ``output`` raveled (zeros of length ``d`` on ⊥,
    when the output is None), then each further field (e.g. ``halted``) as numbers."""
    rel = release
    parts: list[np.ndarray] = []
    for name in compared:
        if name == "output":
            out = rel.output if isinstance(rel, Release) else rel
            if out is None:
                if d is None:
                    raise SuiteCandidateError("the output is None (⊥) and its length is unknown")
                parts.append(np.zeros(d))
            else:
                parts.append(np.ravel(np.asarray(out, dtype=np.float64)))
        else:
            value = getattr(rel, name, None)
            if value is None:
                raise SuiteCandidateError(f"the release has no field {name!r} (the signature compares it)")
            parts.append(np.ravel(np.asarray(value, dtype=np.float64)))
    vec = np.concatenate(parts)
    if "halted" in compared and vec[-1] == 1.0:   # ⊥: the point carries nothing; zero it so ⊥ is one outcome
        vec[:-1] = 0.0
    return vec


def claim_against_exact(claim: PrivacyClaim, exact: ExactPrivacy) -> dict[str, Any]:
    """Every notion ``claim`` states against ``exact`` (the paper's mechanism on the worst pair): a list of checks
    (notion, claimed, exact, holds) and the verdict ("refuted" iff one fails; a notion whose exact value is not
    available is listed as not checkable, never as a failure)."""
    checks: list[dict[str, Any]] = []
    unchecked: list[str] = []
    if claim.notion == "none":
        return {"verdict": "no claim", "checks": [], "unchecked": [], "note": exact.note}
    got = float(exact.delta_of_epsilon(float(claim.epsilon)))
    checks.append({"notion": f"δ at ε = {claim.epsilon:.4g}", "claimed": float(claim.delta), "exact": got,
                   "holds": got <= claim.delta + _SLACK})
    if claim.notion == "pure-DP":
        if exact.pure_epsilon is None:
            unchecked.append("pure ε")
        else:
            checks.append({"notion": "pure ε", "claimed": float(claim.epsilon), "exact": float(exact.pure_epsilon),
                           "holds": exact.pure_epsilon <= claim.epsilon * (1 + _SLACK)})
    for notion, claimed, ex in (("ρ", claim.rho, exact.rho), ("μ", claim.mu, exact.mu)):
        if claimed is None:
            continue
        if ex is None:
            unchecked.append(notion)
        else:
            checks.append({"notion": notion, "claimed": float(claimed), "exact": float(ex),
                           "holds": ex <= claimed * (1 + _SLACK)})
    if claim.event is not None:
        for eps in EVENT_GRID:
            ev, ex = float(claim.event_delta(eps)), float(exact.delta_of_epsilon(eps))
            checks.append({"notion": f"event δ at ε = {eps}", "claimed": ev, "exact": ex, "holds": ev >= ex - 1e-6})
    return {"verdict": "refuted" if not all(c["holds"] for c in checks) else "not refuted", "checks": checks,
            "unchecked": unchecked, "note": exact.note}


class _HarnessMechanism:
    """The candidate through the harness, as the auditor's mechanism f({"records": D}, rng) -> outcome."""

    def __init__(self, harness: PrivacyHarness, candidate: Callable[..., Any], compared: tuple[str, ...], d: int,
                 name: str):
        self.harness, self.candidate, self.compared, self.d, self.name = harness, candidate, compared, d, name

    def __call__(self, data: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        return _run(self.harness, np.asarray(data["records"]), rng, self.candidate, self.compared, self.d,
                    self.name)[0]


def _run(harness: PrivacyHarness, records: np.ndarray, rng: np.random.Generator, candidate: Callable[..., Any] | None,
         compared: tuple[str, ...], d: int | None, name: str) -> tuple[np.ndarray, Any]:
    try:
        rel = harness.run(records, rng, algorithm=candidate)
    except Exception as exc:  # noqa: BLE001 - the candidate's own error, reported as such
        if candidate is None:
            raise
        raise SuiteCandidateError(f"{name} raised {type(exc).__name__}: {exc}") from exc
    if not isinstance(rel, (Release, np.ndarray, list, tuple, float, int)):
        raise SuiteCandidateError(f"{name} returned a {type(rel).__name__}, not a Release or an array")
    return outcome_vector(rel, compared if isinstance(rel, Release) else ("output",), d), rel


def _short(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"array{value.shape}"
    if isinstance(value, np.random.Generator):
        return "numpy Generator"
    if isinstance(value, (int, float, str, bool)) or value is None:
        return repr(value)
    if isinstance(value, (list, tuple)) and len(value) <= 8:
        return repr(value)
    return getattr(value, "__name__", None) or type(value).__name__


def recorded_call(signature: CompareSignature, seed: int = 0) -> dict[str, str]:
    """The arguments the entry's harness passes to the reference function in one run on its records (name -> a
    short description of the value), recorded by a pass-through wrapper: what a candidate receives."""
    harness = harness_registry()[signature.entry]
    rng = np.random.default_rng(seed)
    args, _ = harness_call(signature, harness.records(rng), rng)
    return {k: _short(v) for k, v in args.items()}


def _streams(seed: int) -> list[np.random.SeedSequence]:
    """The comparison's streams (instance, ours, theirs, permutations, audit, pilot, pair), from its seed."""
    return np.random.SeedSequence(seed).spawn(7)


def harness_instance(entry: Any, seed: int = 0, run: int = 0) -> dict[str, Any]:
    """The exact keyword arguments the candidate receives in run ``run`` (0-based, < ``samples``) of ``dpsco compare
    --against ENTRY --seed SEED`` (harness convention): the harness's records drawn from the comparison's instance
    stream, the data arrays (copies), the harness's objects (loss, oracle, domain …), the public inputs and the
    numpy Generator in the state the candidate gets it.  ``candidate(**harness_instance(entry, seed))`` replays
    that run outside the comparison; ``reference(**harness_instance(entry, seed))`` gives the reference's.
    ``entry``: a catalogue name, CatalogueEntry or CompareSignature.  ValueError for an entry that is not of the
    harness convention, or a negative seed / run."""
    name = getattr(entry, "entry", None) or getattr(entry, "name", None) or entry
    signature = compare_signature(str(name))
    if signature.calling != "harness" or not signature.comparable:
        raise ValueError(f"entry {name!r} is not a comparable harness-convention entry (calling "
                         f"{signature.calling!r}); its candidates take f(X, y, problem, epsilon, delta, rng, **options)")
    for label, v in (("seed", seed), ("run", run)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"{label} must be a non-negative integer, got {v!r}")
    harness = harness_registry()[signature.entry]
    s_inst, _, s_theirs = _streams(int(seed))[:3]
    records = np.asarray(harness.records(np.random.default_rng(s_inst)))
    child = np.random.SeedSequence(s_theirs.entropy, spawn_key=s_theirs.spawn_key + (int(run),))
    args, _ = harness_call(signature, records, np.random.default_rng(child))
    return args


def keyword_candidate(candidate: Callable[..., Any], signature: CompareSignature,
                      name: str) -> Callable[..., Any]:
    """``candidate`` called BY KEYWORD: the harness's call (positional or keyword, as it calls the reference) is
    bound to the reference function's signature and passed to ``candidate`` as ``name=value`` for every argument
    the harness gives (defaults the harness leaves out are not passed).  Checked up front, before any run, against
    the names the harness passes (``signature.input_names``): ValueError naming each one the candidate cannot take
    by keyword (missing; positional-only) and each parameter it requires that the harness does not pass
    (unexpected).  A candidate whose signature cannot be read, or that takes ``**kwargs``, accepts every name."""
    ref = inspect.signature(signature.reference_function())
    try:
        params = inspect.signature(candidate).parameters
    except (TypeError, ValueError):
        params = None
    if params is not None:
        passed = set(signature.input_names)
        var_kw = any(p.kind is p.VAR_KEYWORD for p in params.values())
        by_kw = {n for n, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        missing = [n for n in signature.input_names if n not in by_kw and not var_kw]
        unexpected = [n for n, p in params.items() if n not in passed and p.default is p.empty
                      and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        if missing or unexpected:
            raise ValueError(
                f"{name}'s parameters do not match the reference's ({signature.reference}): the harness passes "
                f"{', '.join(signature.input_names)} by keyword"
                + (f"; missing (not accepted by keyword): {', '.join(missing)}" if missing else "")
                + (f"; unexpected (required, never passed): {', '.join(unexpected)}" if unexpected else "")
                + " (dpsco compare --against " + signature.entry + " --show-signature)")

    def by_keyword(*args: Any, **kwargs: Any) -> Any:
        bound = ref.bind(*args, **kwargs)
        out: dict[str, Any] = {}
        for k, v in bound.arguments.items():
            kind = ref.parameters[k].kind
            if kind is inspect.Parameter.VAR_KEYWORD:
                out.update(v)
            elif kind is inspect.Parameter.VAR_POSITIONAL:
                if v:
                    raise TypeError(f"the harness passed extra positional arguments *{k} to {name}")
            else:
                out[k] = v
        return candidate(**out)

    by_keyword.__name__ = name
    by_keyword.__wrapped__ = candidate  # type: ignore[attr-defined]
    return by_keyword


def _relabel(record: dict[str, Any]) -> dict[str, Any]:
    """The KS distance statistic is centred on a pilot reference outcome here, not on a certified minimiser."""
    for r in record.get("ks", {}).get("tests", []):
        if r.get("name") == "distance to the certified minimiser":
            r["name"] = "distance to a pilot reference outcome"
    return record


def compare_harness(candidate: Callable[..., Any], entry: CatalogueEntry, signature: CompareSignature, *,
                    samples: int, audit_samples: int, seed: int, confidence: float, permutations: int | None,
                    energy_max: int, run_audit: bool, candidate_name: str) -> CompareResult:
    """The harness comparison of ``candidate`` with ``entry`` (module docstring); arguments as
    :func:`dpsco.verification.campaign.compare.compare`, which validates them and calls this."""
    t0 = time.time()
    if not signature.comparable:
        raise ValueError(f"entry {entry.name!r} is not comparable: {signature.reason}")
    harness = harness_registry()[entry.name]
    alpha = 1.0 - float(confidence)
    ss = np.random.SeedSequence(seed)
    s_inst, s_ours, s_theirs, s_perm, s_audit, s_pilot, s_pair = _streams(seed)
    candidate = keyword_candidate(candidate, signature, candidate_name)   # refuses mismatched names before any run
    records = np.asarray(harness.records(np.random.default_rng(s_inst)))
    compared = signature.compared
    name = candidate_name
    notes: list[str] = []
    pilot, pilot_rel = _run(harness, records, np.random.default_rng(s_pilot), None, compared, None, entry.name)
    d = int(np.size(pilot_rel.output)) if pilot_rel.output is not None else None
    rng_ours = np.random.default_rng(s_ours)
    ours = np.vstack([_run(harness, records, rng_ours, None, compared, d, entry.name)[0] for _ in range(samples)])
    theirs_rows, their_release = [], None
    for child in s_theirs.spawn(samples):
        row, rel = _run(harness, records, np.random.default_rng(child), candidate, compared, d, name)
        if their_release is None and isinstance(rel, Release):
            their_release = rel
        theirs_rows.append(row)
    if any(r.shape != pilot.shape for r in theirs_rows):
        raise SuiteCandidateError(f"{name}'s outcome has shape {theirs_rows[0].shape}, the reference's {pilot.shape}")
    theirs = np.vstack(theirs_rows)
    refuted_by: list[str] = []
    nonfinite = int(np.sum(~np.all(np.isfinite(theirs), axis=1)))
    if nonfinite:
        refuted_by.append(f"non-finite outcome ({nonfinite} of {samples} runs): a release must be finite")
        theirs = np.nan_to_num(theirs, nan=0.0, posinf=1e300, neginf=-1e300)
    # (a) the law of the outcome
    ts = two_sample_test(theirs, ours, alpha / 3.0, np.random.default_rng(s_perm), center=pilot,
                         permutations=permutations, energy_max=energy_max)
    if ts.reject:
        refuted_by.append("two-sample test (outcome distributions differ)")
    if not ts.energy["can_reject"]:
        notes.append(f"the energy test's p-value floor {ts.energy['p_value_floor']:.2g} exceeds its level "
                     f"{ts.energy['level']:.2g}: only the KS family can reject at this confidence")
    # (b) utility
    if signature.utility_measure is None:
        util = {"declared": False, "reason": signature.utility, "candidate_nonfinite": nonfinite}
    else:
        util = utility_family(signature.utility_measure, records, theirs, ours, alpha / 3.0)
        util["candidate_nonfinite"] = nonfinite
        if util["two_sample"]["critical_value"] is None:
            notes.append(f"family (b)'s one-sided KS test cannot reject at {samples} runs per side and level "
                         f"{util['two_sample']['level']:.2g} (its smallest p-value is 1/C(2N, N)): raise --samples")
        if util["reject"]:
            refuted_by.append("utility")
    # (c) privacy
    claim = their_release.claim if their_release is not None else pilot_rel.claim
    if their_release is None:
        notes.append("the candidate returned bare outputs: the reference's claim is audited")
    exact, _ = harness.exact_privacy()
    vs_exact = claim_against_exact(claim, exact)
    if vs_exact["verdict"] == "refuted":
        refuted_by.append("claim below the paper's exact privacy on the worst pair")
    audit_rec: dict[str, Any] = {"claim_vs_exact": vs_exact}
    if run_audit and claim.notion != "none":
        if signature.worst_pair is not None:
            D, D2 = (np.asarray(a, dtype=np.float64) for a in signature.worst_pair())
            pair = "the suite's worst-case pair"
        else:
            D = records
            D2 = records.copy()
            D2[0] = np.asarray(harness.records(np.random.default_rng(s_pair)))[0]
            pair = "the harness records, record 0 replaced by a fresh benign record (no worst pair exposed)"
        mech = _HarnessMechanism(harness, candidate, compared, d or pilot.size, name)
        res = audit(mech, {"records": D}, {"records": D2}, claim, audit_samples, np.random.default_rng(s_audit),
                    confidence=1.0 - alpha / 3.0, seed_entropy=None)
        audit_rec.update(res.to_dict())
        audit_rec["pair"] = pair
        if res.verdict == "refuted":
            refuted_by.append("privacy audit of the candidate")
    elif claim.notion == "none":
        audit_rec["skipped"] = "the claim states no privacy"
    else:
        audit_rec["skipped"] = "run_audit=False"
    instance = {"name": "harness", "description": signature.instance, "n": int(records.shape[0]),
                "d": int(pilot.size), "epsilon": float(claim.epsilon) if math.isfinite(claim.epsilon) else "inf",
                "delta": float(claim.delta), "records_shape": list(records.shape)}
    return CompareResult(
        verdict="refuted" if refuted_by else "not refuted", refuted_by=refuted_by, alpha=alpha,
        confidence=float(confidence), against=entry.name, candidate=name, instance=instance, samples=samples,
        two_sample=_relabel(ts.to_dict()), utility=to_jsonable(util), audit=to_jsonable(audit_rec), seed=seed,
        seed_entropy=str(ss.entropy), wall_seconds=time.time() - t0, notes=notes)


# ---- family (b): utility ---------------------------------------------------------------------------------------

def ks_one_sided_pvalue(n: int, k: int) -> float:
    """P(D⁺ ≥ k/n) for the one-sided two-sample KS statistic D⁺ = max_x (F̂_A(x) − F̂_B(x)) of two independent
    samples of n each from the same continuous law: C(2n, n − k)/C(2n, n) (Gnedenko & Korolyuk 1951; the
    reflection principle on the ±1 walk of the merged order), for integers 0 ≤ k ≤ n (1 at k ≤ 0, 0 above n)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return math.exp(2.0 * math.lgamma(n + 1) - math.lgamma(n - k + 1) - math.lgamma(n + k + 1))


def _ks_critical(n: int, level: float) -> int:
    """The smallest k with P(D⁺ ≥ k/n) ≤ level (n + 1 if none: the test cannot reject)."""
    for k in range(1, n + 1):
        if ks_one_sided_pvalue(n, k) <= level:
            return k
    return n + 1


def utility_two_sample(candidate: np.ndarray, reference: np.ndarray, level: float) -> dict[str, Any]:
    """One-sided two-sample KS test of H₀: the candidate's excess is not stochastically larger than the
    reference's, against: F_cand(x) < F_ref(x) somewhere.  Statistic D⁺ = max_x (F̂_ref(x) − F̂_cand(x)) over the
    pooled values (NaN counted as +inf: worst), p-value :func:`ks_one_sided_pvalue` (equal sizes n; under ties the
    statistic is at most that of any tie-breaking, whose null law is the continuous one: conservative).

    Power: with a true gap Δ = sup_x (F_ref(x) − F_cand(x)), at the x where it is attained the n independent pairs
    1[ref_i ≤ x] − 1[cand_i ≤ x] ∈ [−1, 1] have mean Δ and D⁺ is at least their average, so (Hoeffding) the test
    misses with probability ≤ exp(−n(Δ − k*/n)²/2), k* the critical value; the smallest Δ detected with
    probability ≥ 0.95 is k*/n + √(2 log 20/n)."""
    a = np.where(np.isnan(candidate), np.inf, np.asarray(candidate, dtype=np.float64))
    b = np.where(np.isnan(reference), np.inf, np.asarray(reference, dtype=np.float64))
    n = int(a.size)
    if b.size != n:
        raise ValueError(f"equal sample sizes needed, got {n} and {b.size}")
    pooled = np.unique(np.concatenate([a, b]))
    fa = np.searchsorted(np.sort(a), pooled, side="right")
    fb = np.searchsorted(np.sort(b), pooled, side="right")
    k = int(max(0, int(np.max(fb - fa))))
    p = ks_one_sided_pvalue(n, k)
    k_star = _ks_critical(n, level)
    gap = (k_star / n + math.sqrt(2.0 * math.log(20.0) / n)) if k_star <= n else math.inf
    return {"test": "one-sided two-sample Kolmogorov–Smirnov (candidate's excess stochastically larger?)",
            "statistic": k / n, "p_value": p, "level": level, "reject": p <= level,
            "critical_value": k_star / n if k_star <= n else None,
            "power": {"min_detectable_gap_miss_0.05": gap,
                      "miss_bound": "exp(−n(Δ − critical_value)²/2) for a CDF gap Δ > critical_value",
                      "n": n}}


def bound_check(excess: np.ndarray, bound: Any, records: np.ndarray, level: float) -> dict[str, Any]:
    """The paper's bound P(excess > B) ≤ β (``bound``, a :class:`BoundCheck`) on the candidate's n excess values:
    K = #{excess_i > B(1 + 1e-9)} (NaN counted as above), p-value P(Bin(n, β) ≥ K) (0 for K ≥ 1 when β = 0:
    the paper's mechanism never exceeds B), refuted iff p ≤ level.  "uninformative" (not tested) when B ≥ the
    largest excess of any outcome of the paper's mechanism on ``records`` (``bound.largest``).  Power: a
    candidate exceeding B with probability ≥ p_min is refuted with probability ≥ 0.95 (p_min from the binomial
    law at the critical count)."""
    from scipy.stats import binom

    B, beta = float(bound.value), float(bound.beta)
    out: dict[str, Any] = {"value": B, "beta": beta, "source": bound.source}
    largest = None if bound.largest is None else float(bound.largest(records))
    if largest is not None and B >= largest:
        out.update(status="uninformative", largest=largest, reject=False,
                   note=f"B = {B:.4g} ≥ {largest:.4g}, the largest excess on the instance: no outcome can exceed it")
        return out
    x = np.asarray(excess, dtype=np.float64)
    n = int(x.size)
    K = int(np.sum(~(x <= B * (1.0 + 1e-9) + 1e-300)))
    p = (1.0 if K == 0 else 0.0) if beta == 0.0 else float(binom.sf(K - 1, n, beta))
    k_crit = 1 if beta == 0.0 else int(binom.isf(level, n, beta)) + 1
    while beta > 0.0 and float(binom.sf(k_crit - 1, n, beta)) > level:
        k_crit += 1
    lo, hi = 0.0, 1.0                                   # p_min: P(Bin(n, p) ≥ k_crit) = 0.95, by bisection
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if float(binom.sf(k_crit - 1, n, mid)) < 0.95 else (lo, mid)
    out.update(status="checked", exceedances=K, n=n, p_value=p, level=level, reject=p <= level,
               critical_count=k_crit, min_detectable_exceedance_probability=hi)
    return out


def utility_family(measure: Any, records: np.ndarray, theirs: np.ndarray, ours: np.ndarray,
                   level: float) -> dict[str, Any]:
    """Family (b) at ``level`` (α/3): the excess of every candidate and reference outcome (rows of ``theirs``,
    ``ours``) by ``measure.excess(records, outcome)``, the one-sided two-sample test and, where the measure
    declares one, the bound check, Bonferroni (level/2 each when a bound is declared)."""
    def excesses(rows: np.ndarray) -> np.ndarray:
        vals = []
        for r in rows:
            try:
                v = float(measure.excess(records, r))
            except (ArithmeticError, ValueError):
                v = math.inf
            vals.append(math.inf if math.isnan(v) else v)
        return np.asarray(vals)

    ec, er = excesses(theirs), excesses(ours)
    split = 2 if measure.bound is not None else 1
    ts = utility_two_sample(ec, er, level / split)

    def summary(v: np.ndarray) -> dict[str, Any]:
        fin = v[np.isfinite(v)]
        return {"mean": float(fin.mean()) if fin.size else None, "median": float(np.median(v)),
                "q90": float(np.quantile(v, 0.9)), "nonfinite": int(v.size - fin.size)}

    out: dict[str, Any] = {"declared": True, "convention": "harness", "measure": measure.description,
                           "level": level, "two_sample": ts, "candidate": summary(ec), "reference": summary(er)}
    reject = bool(ts["reject"])
    if measure.bound is not None:
        bc = bound_check(ec, measure.bound, records, level / split)
        bc["reference_exceedances"] = int(np.sum(~(er <= measure.bound.value * (1.0 + 1e-9) + 1e-300)))
        out["bound"] = bc
        reject = reject or bool(bc["reject"])
    elif getattr(measure, "vacuous_bound", None) is not None:
        vb = measure.vacuous_bound
        largest = None if vb.largest is None else float(vb.largest(records))
        vacuous = largest is not None and vb.value >= largest
        out["bound"] = {"status": "uninformative" if vacuous else "none", "value": vb.value, "beta": vb.beta,
                        "source": vb.source, "largest": largest, "reason": measure.no_bound,
                        "note": (f"B = {vb.value:.4g} ≥ {largest:.4g}, the largest excess on the instance"
                                 if vacuous else "not checked")}
    else:
        out["bound"] = {"status": "none", "reason": measure.no_bound}
    out["reject"] = reject
    return out
