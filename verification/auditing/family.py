"""Auditing a whole searched family (neighbouring pairs × statistics × thresholds × directions) at one confidence.

An auditor that tries many pairs, statistics and events and reports the best must pay for the search.
:func:`audit_family` pays either by selection on independent pilot runs (``method="select"``: one event is
then tested on fresh runs, no correction needed) or by Bonferroni over the members with Holm-adjusted
p-values (``method="bonferroni"``; :func:`p_value_of_counts`).  Both rest on the guarantee of the single
audit (docs/derivations.md#soundness-of-the-sample-split-threshold-audit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any, Mapping, Sequence

import numpy as np

from dpsco.reference.privacy import PrivacyClaim, to_jsonable
from dpsco.reference.validation import check_rng
from dpsco.verification.auditing.audit import audit
from dpsco.verification.auditing.clopper_pearson import check_confidence, epsilon_lower_bound
from dpsco.verification.auditing.events import select_event
from dpsco.verification.auditing.gdp import GAUSSIAN_TRADEOFF, gdp_epsilon_lower_bound, gdp_mu_lower_bound
from dpsco.verification.auditing.inputs import as_claim, check_dataset, check_neighbouring_pair
from dpsco.verification.auditing.results import AuditResult, AuditResultBase
from dpsco.verification.auditing.samples import draw, executor_for
from dpsco.verification.auditing.statistics import parse_statistic, statistic_function

__all__ = ["FamilyAuditResult", "audit_family", "p_value_of_counts"]


def p_value_of_counts(
    k_p: int, n_p: int, k_q: int, n_q: int, claim_epsilon: float, delta: float, *, estimator: str = "threshold",
    claim_mu: float | None = None,
) -> float:
    """p = inf{a : the estimator's bound at confidence 1 − a refutes the claim} for one fixed event.

    A valid p-value for H₀ "the pair satisfies the claim": the bound is monotone in a (Clopper–Pearson
    bounds widen as a shrinks), so {p <= a} ⊂ {bound at confidence 1 − a' refutes} for every a' > a, whose
    probability is <= a' under H₀.  ``estimator``: "threshold" (ε_lb > ε), "gdp" (ε_μ(μ_lb, δ) > ε; valid
    only under the Gaussian trade-off assumption), "gdp-mu" (μ_lb > ``claim_mu``: the assumption-free bound
    that decides a μ-GDP claim) or "hockey-stick" (δ_lb(ε) > δ, equivalent to threshold).  The p-value must
    come from the bound that decides the member's verdict, or Holm's family-wise level is lost.
    Computed by bisection on log a ∈ [log 1e-15, 0) to relative width 1e-6, returning the upper end
    (conservative); p-values below 1e-15 are reported as 1e-15.
    """

    if estimator == "gdp-mu" and (claim_mu is None or not claim_mu > 0):
        raise ValueError(f"estimator='gdp-mu' needs claim_mu > 0, got {claim_mu!r}")

    def refutes(a: float) -> bool:
        conf = 1.0 - a
        if estimator == "gdp-mu":
            return float(gdp_mu_lower_bound(k_p, n_p, k_q, n_q, conf)) > float(claim_mu)
        if estimator == "gdp":
            return gdp_epsilon_lower_bound(k_p, n_p, k_q, n_q, delta, conf)[0] > claim_epsilon
        return float(epsilon_lower_bound(k_p, n_p, k_q, n_q, delta, conf)) > claim_epsilon

    if not refutes(1.0 - 1e-12):
        return 1.0
    lo, hi = math.log(1e-15), math.log(1.0 - 1e-12)  # log a (below 1e-15, 1 − a rounds to 1)
    if refutes(math.exp(lo)):
        return math.exp(lo)
    while hi - lo > 1e-6:
        mid = 0.5 * (lo + hi)
        if refutes(math.exp(mid)):
            hi = mid
        else:
            lo = mid
    return math.exp(hi)


@dataclass
class FamilyAuditResult(AuditResultBase):
    """Outcome of :func:`audit_family`: one overall bound for a whole searched family of audits.

    Attributes
    ----------
    epsilon_lower : float
        Overall ε_lb; with probability >= ``confidence`` it is <= the mechanism's ε on *every* pair.
    verdict : "refuted" | "not refuted"
    confidence : float
    method : "select" | "bonferroni"
    members : list of dict
        One entry per (pair, statistic): its label, selection score ("select") or its audit at the
        Bonferroni level and Holm-adjusted p-value ("bonferroni").
    best : AuditResult
        The audit that produced ``epsilon_lower`` (its own ``confidence`` is the per-member level).
    n_family : int
        Number of (pair, statistic) members; thresholds and directions are searched inside each member.
    multiplicity : str
        How the family was paid for.
    claim : PrivacyClaim
    seed_entropy : int or None
        Recorded (or read from ``rng``); also ``seed``.  ``verdict``, ``epsilon_lower``, ``confidence``,
        ``seed``, ``summary()`` and ``to_dict()`` as for every audit result
        (:class:`~dpsco.verification.auditing.results.AuditResultBase`).
    """

    epsilon_lower: float
    verdict: str
    confidence: float
    method: str
    members: list[dict[str, Any]]
    best: AuditResult
    n_family: int
    multiplicity: str
    claim: PrivacyClaim
    seed_entropy: int | None
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable({
            "epsilon_lower": self.epsilon_lower, "verdict": self.verdict, "confidence": self.confidence,
            "method": self.method, "members": self.members, "best": self.best.to_dict(), "n_family": self.n_family,
            "multiplicity": self.multiplicity, "claim": self.claim.to_dict(), "seed_entropy": self.seed_entropy,
            "seed": self.seed, "details": self.details,
        })

    def summary(self) -> str:
        lines = [
            f"family audit over {self.n_family} (pair, statistic) members [{self.method}]: "
            f"verdict {self.verdict.upper()}, overall ε lower bound = {self.epsilon_lower:.4f} at confidence "
            f"{self.confidence:g} (claim ε = {self.claim.epsilon:g}, δ = {self.claim.delta:g})",
            f"  multiplicity: {self.multiplicity}",
            f"  best member: {self.details.get('best_member')}",
        ]
        lines += ["  " + ln for ln in self.best.summary().splitlines()]
        return "\n".join(lines)


def _pair_list(pairs: Any) -> list[tuple[dict[str, Any], dict[str, Any], str]]:
    if isinstance(pairs, Mapping) or not isinstance(pairs, Sequence) or len(pairs) == 0:
        raise TypeError("pairs must be a non-empty sequence of (dataset, neighbour) or (dataset, neighbour, label)")
    out = []
    for i, p in enumerate(pairs):
        if not isinstance(p, (tuple, list)) or len(p) not in (2, 3):
            raise TypeError(f"pairs[{i}] must be (dataset, neighbour) or (dataset, neighbour, label)")
        label = str(p[2]) if len(p) == 3 else f"pair {i}"
        out.append((p[0], p[1], label))
    return out


def audit_family(
    mechanism: Any,
    pairs: Sequence[Any],
    claim: Any,
    n_samples: int,
    rng: np.random.Generator,
    *,
    statistics: Sequence[Any] = ("projection",),
    estimator: str = "threshold",
    method: str = "select",
    confidence: float = 0.95,
    n_pilot: int | None = None,
    n_thresholds: int = 600,
    epsilon_true: float | None = None,
    check_neighbouring: bool = True,
    seed_entropy: int | None = None,
    assume: str | None = None,
    assume_reason: str | None = None,
    sample_check_runs: int | None = None,
    workers: Any = None,
) -> FamilyAuditResult:
    """Audit a claim over neighbouring pairs × statistics × thresholds × directions at one overall confidence.

    ``method="select"`` (default; no correction needed):
        1. for every pair, ``n_pilot`` pilot runs per side; for every statistic, the best event (threshold,
           tail, direction) on the pilot by the estimator's criterion
           (:func:`dpsco.verification.auditing.events.select_event`);
        2. the member (pair, statistic, event) with the best pilot score is audited on ``n_samples`` *fresh*
           runs per side with the event fixed (``audit(..., event=...)``).
        Validity: the pilot runs are independent of the fresh runs, so the tested event is fixed given the
        pilot; the fixed-event audit's guarantee applies conditionally, hence unconditionally.  Only one
        event is tested, so the overall confidence is ``confidence`` whatever the size of the family.
    ``method="bonferroni"``:
        every member is audited by the split-sample auditor at confidence 1 − (1 − confidence)/K (K members;
        thresholds and directions are paid for by the split inside each), ε_lb = the maximum.  Union bound:
        P(any member's bound exceeds its pair's ε) <= K·(1 − confidence)/K.  Each member also gets a p-value
        (:func:`p_value_of_counts`) and a Holm-adjusted p-value (``statsmodels`` ``multipletests``), which says
        *which* members refute the claim with family-wise error <= 1 − confidence.

    Parameters
    ----------
    mechanism, claim, rng : as for :func:`dpsco.verification.auditing.audit.audit`
    pairs : sequence of (dataset, neighbour) or (dataset, neighbour, label)
        Neighbouring pairs (e.g. from :mod:`dpsco.verification.auditing.neighbours`).
    n_samples : int
        "select": fresh runs per side for the final audit; "bonferroni": runs per side per member.
    statistics : sequence of statistic specs
        Anything ``audit(statistic=...)`` accepts ("projection", "norm", "logistic", "coordinate:<i>",
        callables such as :func:`likelihood_ratio_statistic`).
    estimator : "threshold" | "gdp" | "hockey-stick"
    method : "select" | "bonferroni"
    confidence : float in (0, 1)
    n_pilot : int, optional
        "select" only: pilot runs per side per pair (default ``n_samples``).
    epsilon_true : float, optional
        Exact ε of the mechanism (worst case over the pairs), reported next to ε_lb.
    workers : int >= 1, Executor or None, optional
        Where the single runs of every pilot and every audit run, as for
        :func:`dpsco.verification.auditing.audit.audit` (one executor for the whole family, started once; the
        rows, hence the result, are the same whatever runs them).
    assume, assume_reason, sample_check_runs : as for :func:`dpsco.verification.auditing.audit.audit`
        With ``estimator="gdp"`` the verdict rests on the Gaussian figure only if ``assume`` is
        "gaussian-tradeoff"; otherwise the pilot selects by the assumption-free threshold criterion and the
        Bonferroni p-values are those of the threshold bound.

    Returns
    -------
    FamilyAuditResult
    """
    the_claim = as_claim(claim)
    check_rng(rng)
    conf = check_confidence(confidence)
    plist = _pair_list(pairs)
    if isinstance(statistics, (str, bytes)) or not isinstance(statistics, Sequence) or len(statistics) == 0:
        raise TypeError("statistics must be a non-empty sequence of statistic specs")
    if method not in ("select", "bonferroni"):
        raise ValueError(f"method must be 'select' or 'bonferroni', got {method!r}")
    if estimator not in ("threshold", "gdp", "hockey-stick"):
        raise ValueError(f"estimator must be 'threshold', 'gdp' or 'hockey-stick', got {estimator!r}")
    if assume is not None and (assume != GAUSSIAN_TRADEOFF or estimator != "gdp"):
        raise ValueError(f"assume must be None, or 'gaussian-tradeoff' with estimator='gdp'; got {assume!r}")
    # the criterion of the bound that decides each member's verdict (as audit() decides it): the μ bound for a
    # μ-GDP claim on the GDP route, the Gaussian ε under a stated assumption, else the threshold ε bound
    if estimator == "gdp" and the_claim.notion == "GDP" and the_claim.mu is not None:
        verdict_kind = "gdp-mu"
    elif assume is not None:
        verdict_kind = "gdp"
    else:
        verdict_kind = "hockey-stick" if estimator == "hockey-stick" else "threshold"
    if isinstance(n_samples, bool) or not isinstance(n_samples, Integral) or int(n_samples) < 4:
        raise ValueError(f"n_samples must be an integer >= 4, got {n_samples!r}")
    ex, owned = executor_for(workers)
    try:
        return _audit_family(mechanism, plist, the_claim, n_samples, rng, statistics, estimator, method, conf,
                             n_pilot, n_thresholds, epsilon_true, check_neighbouring, seed_entropy, assume,
                             assume_reason, sample_check_runs, verdict_kind, ex)
    finally:
        if owned:
            ex.close()


def _audit_family(mechanism: Any, plist: list[Any], the_claim: Any, n_samples: Any, rng: np.random.Generator,
                  statistics: Sequence[Any], estimator: str, method: str, conf: float, n_pilot: int | None,
                  n_thresholds: int, epsilon_true: float | None, check_neighbouring: bool, seed_entropy: int | None,
                  assume: str | None, assume_reason: str | None, sample_check_runs: int | None, verdict_kind: str,
                  ex: Any) -> FamilyAuditResult:
    """:func:`audit_family` after its argument checks, with its executor ``ex`` started."""
    extra = {"assume": assume, "assume_reason": assume_reason, "sample_check_runs": sample_check_runs, "workers": ex}
    n = int(n_samples)
    if seed_entropy is None:
        seq = getattr(rng.bit_generator, "seed_seq", None)
        if isinstance(seq, np.random.SeedSequence) and isinstance(seq.entropy, (int, np.integer)):
            seed_entropy = int(seq.entropy)
    K = len(plist) * len(statistics)
    members: list[dict[str, Any]] = []

    if method == "bonferroni":
        member_conf = 1.0 - (1.0 - conf) / K
        results = []
        for ds, nb, label in plist:
            for stat in statistics:
                r = audit(mechanism, ds, nb, the_claim, n, rng, confidence=member_conf, statistic=stat,
                            estimator=estimator, check_neighbouring=check_neighbouring, power_family=None,
                            epsilon_true=epsilon_true, n_thresholds=n_thresholds, seed_entropy=seed_entropy,
                            **extra)
                det = r.details
                cnt = det["gdp"] if verdict_kind in ("gdp", "gdp-mu") else det
                pv = p_value_of_counts(cnt["numerator_count"], det["n_test"], cnt["denominator_count"], det["n_test"],
                                       the_claim.epsilon, the_claim.delta,
                                       estimator=verdict_kind if verdict_kind != "hockey-stick" else "threshold",
                                       claim_mu=the_claim.mu)
                results.append(r)
                members.append({"pair": label, "statistic": r.statistic, "epsilon_lower": r.epsilon_lower,
                                "verdict_at_member_level": r.verdict, "p_value": pv})
        from statsmodels.stats.multitest import multipletests  # heavy; loaded only by the Bonferroni method

        reject, p_adj, _, _ = multipletests([m["p_value"] for m in members], alpha=1.0 - conf, method="holm")
        for m_, rj, pa in zip(members, reject, p_adj):
            m_["holm_adjusted_p_value"] = float(pa)
            m_["refutes_holm"] = bool(rj)
        j = int(np.argmax([r.epsilon_lower for r in results]))
        best = results[j]
        eps_lb = best.epsilon_lower
        if estimator == "hockey-stick":
            refuted = any(r.refuted for r in results)
        else:
            refuted = bool(np.any(reject)) or any(r.refuted for r in results)
        multiplicity = (f"Bonferroni over {K} (pair, statistic) members (each at confidence {member_conf:.6g}); "
                        "thresholds and directions by sample splitting inside each member; Holm step-down for "
                        "which members refute")
        details = {"best_member": members[j]["pair"] + " / " + members[j]["statistic"], "member_confidence": member_conf}
    else:
        n_sel = n if n_pilot is None else int(n_pilot)
        if n_sel < 2:
            raise ValueError(f"n_pilot must be >= 2, got {n_pilot!r}")
        half_alpha = (1.0 - conf) / 2.0
        best_score = -math.inf
        chosen: tuple[Any, ...] | None = None
        for ds_raw, nb_raw, label in plist:
            ds = check_dataset(ds_raw, "dataset")
            nb = check_dataset(nb_raw, "neighbour")
            if check_neighbouring:
                check_neighbouring_pair(ds, nb, the_claim.neighbouring)
            pa, _ = draw(mechanism, ds, n_sel, rng, "dataset", workers=ex)
            pb, _ = draw(mechanism, nb, n_sel, rng, "neighbour", workers=ex)
            for stat in statistics:
                kind, arg = parse_statistic(stat)
                fn, desc, _info = statistic_function(kind, arg, pa, pb, pa.shape[1])
                ev, score, _ = select_event(fn(pa), fn(pb), the_claim.delta, half_alpha, n_thresholds,
                                            "gdp" if verdict_kind == "gdp-mu" else verdict_kind, the_claim.epsilon)
                members.append({"pair": label, "statistic": desc, "pilot_score": score, "event": ev.describe()})
                if score > best_score or chosen is None:
                    best_score, chosen = score, (ds_raw, nb_raw, label, fn, desc, ev)
        assert chosen is not None
        ds_raw, nb_raw, label, fn, desc, ev = chosen

        def fixed_statistic(X: np.ndarray) -> np.ndarray:
            return fn(X)

        fixed_statistic.__name__ = f"pilot-chosen {desc}"
        best = audit(mechanism, ds_raw, nb_raw, the_claim, n, rng, confidence=conf, statistic=fixed_statistic,
                       event=ev, estimator=estimator, check_neighbouring=check_neighbouring, power_family=None,
                       epsilon_true=epsilon_true, seed_entropy=seed_entropy, **extra)
        eps_lb = best.epsilon_lower
        refuted = best.refuted
        multiplicity = (f"selection on independent pilot runs ({n_sel} per side per pair) over {K} (pair, statistic) "
                        f"members x thresholds x both directions; one event tested on {n} fresh runs per side: "
                        "no correction needed")
        details = {"best_member": f"{label} / {desc}", "n_pilot": n_sel, "pilot_score": best_score}
    return FamilyAuditResult(
        epsilon_lower=float(eps_lb), verdict="refuted" if refuted else "not refuted", confidence=conf, method=method,
        members=members, best=best, n_family=K, multiplicity=multiplicity, claim=the_claim,
        seed_entropy=seed_entropy, details=details,
    )
