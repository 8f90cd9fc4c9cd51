"""``dpsco compare`` for the entries verified by their own suites (Asi, Liu & Tian 2024; Menart et al. 2023; Asi,
Chadha, Cheng & Duchi 2022): the harness convention of :mod:`dpsco.verification.papers.signatures`.

The candidate is a drop-in for the entry's reference function: the entry's privacy harness
(``verification/papers/<paper>/harness.py``) calls it exactly as it calls the reference — same arguments, by the
reference's parameter names (``dpsco compare --against ENTRY --show-signature`` prints them) — on the harness's
instance (its benign records, drawn once from the comparison's seed).  It returns a
:class:`dpsco.reference.privacy.Release` (or a bare output array; then the claim audited is the reference's).

Three families, each at α/3 (α = 1 − confidence; Bonferroni), so a faithful candidate is refuted with probability
at most α:

(a) **same law of the outcome** — the fields the signature compares (``output``; ``halted`` where the paper
    releases ⊥, ⊥ as a 0/1 coordinate with the point zeroed on ⊥), energy distance with a permutation null and
    KS per coordinate and on the distance to a pilot reference outcome (drawn from its own stream before the
    samples, so fixed given them), Holm (:func:`dpsco.verification.checks.two_sample.two_sample_test`; KS p-values
    are conservative for discrete coordinates).
(b) **utility** — the suites' bounds are stated at their own public inputs, not at the harness's small ones; no
    bound is declared on the harness instance (the record says so; a gap, ``docs/compare.md``).  Non-finite
    outcomes refute the candidate deterministically (the house rule: a finite release after the up-front checks).
(c) **privacy** — (i) every notion the candidate's claim states (ε, δ; pure ε; ρ; μ; the dp_accounting event on
    a grid of ε) against the exact privacy of the paper's mechanism on the suite's worst-case pair
    (``PrivacyHarness.exact_privacy``): under the null hypothesis of the comparison the candidate IS that
    mechanism, so a claim below the exact curve is false — deterministic, no α spent; (ii) a black-box audit of
    the candidate's (ε, δ) claim (:func:`dpsco.verification.auditing.audit.audit`) on the suite's worst-case pair
    (the signature's ``worst_pair``; else the harness records with record 0 replaced by a fresh benign record),
    at confidence 1 − α/3.
"""

from __future__ import annotations

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
from dpsco.verification.papers.signatures import CompareSignature

__all__ = ["SuiteCandidateError", "claim_against_exact", "compare_harness", "outcome_vector", "recorded_call"]

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
    import inspect

    harness = harness_registry()[signature.entry]
    fn = signature.reference_function()
    seen: dict[str, str] = {}

    def recorder(*args: Any, **kwargs: Any) -> Any:
        bound = inspect.signature(fn).bind(*args, **kwargs)
        seen.update({k: _short(v) for k, v in bound.arguments.items()})
        return fn(*args, **kwargs)

    rng = np.random.default_rng(seed)
    harness.run(harness.records(rng), rng, algorithm=recorder)
    return seen


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
    s_inst, s_ours, s_theirs, s_perm, s_audit, s_pilot, s_pair = ss.spawn(7)
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
    util = {"declared": False, "reason": signature.utility, "candidate_nonfinite": nonfinite}
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
