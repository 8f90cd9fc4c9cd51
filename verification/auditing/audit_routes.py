"""The estimator routes of the black-box auditor, one function each.

:func:`dpsco.verification.auditing.audit.audit` is a thin dispatcher: it checks which estimator was asked
for and which options go with it, and calls one of

* :func:`threshold_audit` (``estimator="threshold"``, the default) — the assumption-free Clopper–Pearson ε
  bound of one event (Nasr et al. 2021, arXiv 2101.04535), event chosen on an independent selection half;
* :func:`gdp_audit` (``estimator="gdp"``) — the same ε bound, plus the assumption-free μ bound of a second
  event and its ε conversion, a bound only under a Gaussian trade-off curve (Dong, Roth & Su 2022;
  Nasr et al. 2023; :mod:`dpsco.verification.auditing.gdp`);
* :func:`hockey_stick_audit` (``estimator="hockey-stick"``) — the assumption-free δ bound at the claim's ε
  (:mod:`dpsco.verification.auditing.hockey_stick`).

Each takes only the parameters it uses; their meanings, defaults and errors are those of ``audit()``'s
docstring, and for the same inputs and seed each returns the record ``audit()`` returns.  The steps they share
(validation, drawing, the event sources — the default "auto" family, one statistic, a caller's
``selection_score``, a claim-placed event, an event fixed in advance — the test half and the record) are in
:mod:`dpsco.verification.auditing.audit_steps`.  The guarantee and its proof: the ``audit`` module docstring.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from dpsco.reference.privacy import PrivacyClaim
from dpsco.verification.auditing.audit_steps import (Prepared, Verdict, count_test_half, prepare, record,
                                                     select_events)
from dpsco.verification.auditing.clopper_pearson import clopper_pearson_lower, clopper_pearson_upper
from dpsco.verification.auditing.events import Event, event_counts
from dpsco.verification.auditing.gdp import gaussian_shape_check, gdp_epsilon_lower_bound
from dpsco.verification.auditing.hockey_stick import hockey_stick_delta_lower_bound
from dpsco.verification.auditing.results import ESTIMATOR_ASSUMPTIONS, AuditResult
from dpsco.verification.auditing.samples import Mechanism
from dpsco.verification.auditing.statistics import DEFAULT_STATISTIC, Statistic
from dpsco.verification.executors import Executor

__all__ = ["ROUTES", "gdp_audit", "hockey_stick_audit", "threshold_audit"]

#: the verdict basis of the assumption-free ε bound
THRESHOLD_BASIS = "refuted iff epsilon_lower (assumption-free Clopper-Pearson threshold bound) > claim epsilon"
#: the name of the black-box audit in each route's estimator description, which the other routes replace
THRESHOLD_NAME = "Clopper-Pearson threshold audit"


def _assumptions(estimator: str, p: Prepared) -> str:
    text = ESTIMATOR_ASSUMPTIONS[estimator]
    if p.event_from_claim is not None:
        text += (f"; the event's placement (power only, not validity) assumes a {p.event_from_claim} "
                 "statistic on the claimed privacy curve")
    return text


def _warnings(p: Prepared) -> list[str]:
    return [] if p.repro["reproducible"] else [p.repro["note"]]


def threshold_audit(
    mechanism: Mechanism | Callable[..., Any],
    dataset: Mapping[str, Any],
    neighbour: Mapping[str, Any],
    claim: PrivacyClaim | tuple[float, float],
    n_samples: int,
    rng: np.random.Generator,
    *,
    confidence: float = 0.95,
    statistic: Statistic = DEFAULT_STATISTIC,
    selection_fraction: float | None = None,
    n_thresholds: int = 600,
    event: Event | None = None,
    seed_entropy: int | None = None,
    check_neighbouring: bool = True,
    epsilon_true: float | None = None,
    power_family: str | None = "auto",
    workers: int | Executor | None = None,
    event_from_claim: str | None = None,
    pilot_fraction: float | None = None,
    sample_check_runs: int | None = None,
    selection_score: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
) -> AuditResult:
    """The threshold route of :func:`~dpsco.verification.auditing.audit.audit` (``estimator="threshold"``):
    ε_lb = log((P_lo − δ)/Q_hi) of one event, "refuted" iff ε_lb > claim ε.

    Parameters, defaults and errors: those of ``audit()`` (``selection_fraction`` defaults to 0.5;
    ``selection_score`` only without ``event`` and ``event_from_claim``).  Guarantee: if the mechanism is
    (ε, claim δ)-DP on this pair, P(ε_lb > ε) <= 1 − confidence (Nasr et al. 2021, arXiv 2101.04535, with
    sample splitting; docs/derivations.md#soundness-of-the-sample-split-threshold-audit).

    Returns
    -------
    AuditResult (``estimator_kind`` "threshold")
    """
    def route_check(_claim: PrivacyClaim) -> None:
        if selection_score is not None and (not callable(selection_score) or event is not None
                                            or event_from_claim is not None):
            raise ValueError("selection_score must be a callable, with estimator='threshold', no event and no "
                             "event_from_claim")

    p = prepare(mechanism, dataset, neighbour, claim, n_samples, rng, confidence=confidence, statistic=statistic,
                selection_fraction=selection_fraction, n_thresholds=n_thresholds, event=event,
                seed_entropy=seed_entropy, check_neighbouring=check_neighbouring, epsilon_true=epsilon_true,
                power_family=power_family, workers=workers, event_from_claim=event_from_claim,
                pilot_fraction=pilot_fraction, sample_check_runs=sample_check_runs, route_check=route_check)
    sel = select_events(p, "threshold", False, selection_score)
    t = count_test_half(p, sel)
    v = Verdict("refuted" if t.epsilon_lower > p.claim.epsilon else "not refuted", THRESHOLD_BASIS,
                sel.description, _assumptions("threshold", p))
    return record(p, sel, t, v, "threshold", _warnings(p))


def gdp_audit(
    mechanism: Mechanism | Callable[..., Any],
    dataset: Mapping[str, Any],
    neighbour: Mapping[str, Any],
    claim: PrivacyClaim | tuple[float, float],
    n_samples: int,
    rng: np.random.Generator,
    *,
    confidence: float = 0.95,
    statistic: Statistic = DEFAULT_STATISTIC,
    selection_fraction: float | None = None,
    n_thresholds: int = 600,
    event: Event | None = None,
    seed_entropy: int | None = None,
    check_neighbouring: bool = True,
    epsilon_true: float | None = None,
    power_family: str | None = "auto",
    workers: int | Executor | None = None,
    event_from_claim: str | None = None,
    pilot_fraction: float | None = None,
    sample_check_runs: int | None = None,
    assume: str | None = None,
    assume_reason: str | None = None,
) -> AuditResult:
    """The Gaussian-DP route of :func:`~dpsco.verification.auditing.audit.audit` (``estimator="gdp"``; needs
    claim δ > 0).

    Two events on the selection half — one by the threshold criterion, one by the μ criterion — both tested on
    the test half: ``epsilon_lower`` is the assumption-free ε bound of the first, ``mu_lower`` =
    Φ⁻¹(P_lo) − Φ⁻¹(Q_hi) of the second (assumption-free as a bound on μ-GDP), and
    ``epsilon_lower_assuming_gaussian_tradeoff`` = ε_μ(μ_lb, δ) (Dong, Roth & Su 2022, Cor. 2.13), a bound on ε
    at δ only if the trade-off curve is Gaussian.  Verdict: on μ_lb for a GDP claim with ``mu``; on the
    Gaussian figure only with ``assume="gaussian-tradeoff"`` (recorded, with the shape check of
    :func:`~dpsco.verification.auditing.gdp.gaussian_shape_check` and a warning if it fails); otherwise on
    ``epsilon_lower``.

    Parameters, defaults and errors: those of ``audit()`` (``selection_fraction`` defaults to 0.2 here).

    Returns
    -------
    AuditResult (``estimator_kind`` "gdp")
    """
    def route_check(the_claim: PrivacyClaim) -> None:
        if the_claim.delta == 0.0:
            raise ValueError("estimator='gdp' needs a claim with delta > 0 (a mu-GDP mechanism is not (eps, 0)-DP)")
        if assume is not None and assume != "gaussian-tradeoff":
            raise ValueError(f"assume must be None or 'gaussian-tradeoff', got {assume!r}")
        if assume_reason is not None and not isinstance(assume_reason, str):
            raise TypeError(f"assume_reason must be a string or None, got {type(assume_reason).__name__}")

    p = prepare(mechanism, dataset, neighbour, claim, n_samples, rng, confidence=confidence, statistic=statistic,
                selection_fraction=selection_fraction, n_thresholds=n_thresholds, event=event,
                seed_entropy=seed_entropy, check_neighbouring=check_neighbouring, epsilon_true=epsilon_true,
                power_family=power_family, workers=workers, event_from_claim=event_from_claim,
                pilot_fraction=pilot_fraction, sample_check_runs=sample_check_runs,
                default_selection_fraction=0.2, route_check=route_check)
    sel = select_events(p, "threshold", True)
    t = count_test_half(p, sel)
    assert sel.chosen_gdp is not None
    the_claim, n_test, conf, eps_lb = p.claim, p.n_test, p.confidence, t.epsilon_lower
    g_p, g_q = event_counts(t.s_ta, t.s_tb, sel.chosen_gdp)
    eps_gauss, mu_lb = gdp_epsilon_lower_bound(g_p, n_test, g_q, n_test, p.delta, conf)
    gdp_info = {
        "event": sel.chosen_gdp.describe(), "threshold": sel.chosen_gdp.threshold, "tail": sel.chosen_gdp.tail,
        "numerator": sel.chosen_gdp.numerator, "numerator_count": g_p, "denominator_count": g_q,
        "p_lower": float(clopper_pearson_lower(g_p, n_test, p.half_alpha)),
        "q_upper": float(clopper_pearson_upper(g_q, n_test, p.half_alpha)),
        "mu_lower": mu_lb, "epsilon_lower_assuming_gaussian_tradeoff": eps_gauss,
    }
    if p.n_sel >= 2:
        shape = gaussian_shape_check(sel.stat_fn(p.out_a[:p.n_sel]), sel.stat_fn(p.out_b[:p.n_sel]))
    else:
        shape = {"plausible": None, "reason": "not checked: no selection or pilot runs (explicit event)"}
    description = sel.description.replace(
        THRESHOLD_NAME,
        "Gaussian-DP (f-DP) audit: epsilon_lower from a Clopper-Pearson threshold event, mu from the "
        "Clopper-Pearson (FPR, FNR) bounds of a second event, converted to epsilon at delta only under "
        "the Gaussian trade-off assumption")
    warnings = _warnings(p)
    verdict = "refuted" if eps_lb > the_claim.epsilon else "not refuted"
    basis = THRESHOLD_BASIS
    assumption_rec: dict[str, Any] | None = None
    if the_claim.notion == "GDP" and the_claim.mu is not None:
        verdict = "refuted" if mu_lb > float(the_claim.mu) else "not refuted"
        basis = "refuted iff mu_lower (assumption-free bound on mu) > claim mu"
    elif assume is not None:
        verdict = "refuted" if eps_gauss > the_claim.epsilon else "not refuted"
        basis = ("refuted iff epsilon_lower_assuming_gaussian_tradeoff > claim epsilon, valid only under the "
                 "stated assumption that the trade-off curve is Gaussian")
        assumption_rec = {
            "name": assume,
            "statement": "the mechanism's trade-off curve on this pair is Gaussian (G_mu)",
            "stated_by": assume_reason or "the caller (assume='gaussian-tradeoff')",
            "gaussian_shape_plausible": shape.get("plausible"),
            "shape_check": shape.get("reason"),
        }
        if shape.get("plausible") is False:
            warnings.append(
                "the verdict assumes a Gaussian trade-off curve, but the selection runs contradict that "
                f"shape ({shape.get('reason')}); the verdict is only as good as the assumption, and the "
                f"assumption-free bound is epsilon_lower = {eps_lb:.4g}")
        elif shape.get("plausible") is None:
            warnings.append("the verdict assumes a Gaussian trade-off curve that could not be checked "
                            f"({shape.get('reason')})")
    v = Verdict(verdict, basis, description, _assumptions("gdp", p) + "; verdict: " + basis, mu_lower=mu_lb,
                epsilon_gauss=eps_gauss, gdp=gdp_info, shape=shape, assumption=assumption_rec,
                power_route="gdp" if assume is not None else "threshold")
    return record(p, sel, t, v, "gdp", warnings)


def hockey_stick_audit(
    mechanism: Mechanism | Callable[..., Any],
    dataset: Mapping[str, Any],
    neighbour: Mapping[str, Any],
    claim: PrivacyClaim | tuple[float, float],
    n_samples: int,
    rng: np.random.Generator,
    *,
    confidence: float = 0.95,
    statistic: Statistic = DEFAULT_STATISTIC,
    selection_fraction: float | None = None,
    n_thresholds: int = 600,
    event: Event | None = None,
    seed_entropy: int | None = None,
    check_neighbouring: bool = True,
    epsilon_true: float | None = None,
    power_family: str | None = "auto",
    workers: int | Executor | None = None,
    event_from_claim: str | None = None,
    pilot_fraction: float | None = None,
    sample_check_runs: int | None = None,
) -> AuditResult:
    """The δ-side route of :func:`~dpsco.verification.auditing.audit.audit` (``estimator="hockey-stick"``):
    δ_lb = P_lo − e^ε Q_hi at the claim's ε (``delta_lower``; assumption-free lower bound on the hockey-stick
    divergence H_{e^ε}(P‖Q)), "refuted" iff δ_lb > claim δ; ``epsilon_lower`` is the threshold ε bound of the
    same event, which is selected by the δ criterion.

    Parameters, defaults and errors: those of ``audit()`` (``selection_fraction`` defaults to 0.5).

    Returns
    -------
    AuditResult (``estimator_kind`` "hockey-stick")
    """
    p = prepare(mechanism, dataset, neighbour, claim, n_samples, rng, confidence=confidence, statistic=statistic,
                selection_fraction=selection_fraction, n_thresholds=n_thresholds, event=event,
                seed_entropy=seed_entropy, check_neighbouring=check_neighbouring, epsilon_true=epsilon_true,
                power_family=power_family, workers=workers, event_from_claim=event_from_claim,
                pilot_fraction=pilot_fraction, sample_check_runs=sample_check_runs)
    sel = select_events(p, "hockey-stick", False)
    t = count_test_half(p, sel)
    delta_lb = float(hockey_stick_delta_lower_bound(t.k_p, p.n_test, t.k_q, p.n_test, p.claim.epsilon,
                                                    p.confidence))
    description = sel.description.replace(
        THRESHOLD_NAME, "hockey-stick delta-side audit: delta lower bound P_lo - e^eps Q_hi at the claimed eps")
    v = Verdict("refuted" if delta_lb > p.delta else "not refuted",
                "refuted iff delta_lower (assumption-free hockey-stick bound at the claimed epsilon) > claim delta",
                description, _assumptions("hockey-stick", p), delta_lower=delta_lb)
    return record(p, sel, t, v, "hockey-stick", _warnings(p))


#: estimator name -> its route (what ``audit(estimator=...)`` dispatches to)
ROUTES: dict[str, Callable[..., AuditResult]] = {
    "threshold": threshold_audit,
    "gdp": gdp_audit,
    "hockey-stick": hockey_stick_audit,
}
