"""The steps that the black-box auditor's estimator routes share (:mod:`dpsco.verification.auditing.audit_routes`).

:func:`dpsco.verification.auditing.audit.audit` validates the dispatch and calls one route —
:func:`~dpsco.verification.auditing.audit_routes.threshold_audit`,
:func:`~dpsco.verification.auditing.audit_routes.gdp_audit` or
:func:`~dpsco.verification.auditing.audit_routes.hockey_stick_audit` — and each route runs these steps:

1. :func:`prepare` — validate the shared inputs (errors as in ``audit()``), probe that the mechanism draws
   only from its rng, draw ``n_samples`` runs per side, fix the selection (or pilot) size;
2. :func:`select_events` — on the selection (or pilot) runs only: the statistic and the event, chosen by the
   default criterion over the "auto" family or one statistic, by a caller's ``selection_score``, placed from
   the claim (``event_from_claim``), or fixed in advance (``event``);
3. :func:`count_test_half` — the event's counts on the test half and its Clopper–Pearson bounds;
4. the route's verdict (:class:`Verdict`), then :func:`record` — the
   :class:`~dpsco.verification.auditing.results.AuditResult`.

The guarantee and its proof are those of the ``audit`` module docstring.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, Callable, Mapping

import numpy as np

from dpsco.reference.privacy import PrivacyClaim
from dpsco.reference.validation import check_rng
from dpsco.verification.auditing.claim_events import claim_optimal_threshold, location_scale
from dpsco.verification.auditing.clopper_pearson import (check_confidence, clopper_pearson_lower,
                                                         clopper_pearson_upper, epsilon_lower_bound)
from dpsco.verification.auditing.events import Event, candidate_thresholds, event_counts, select_event, threshold_counts
from dpsco.verification.auditing.inputs import as_claim, check_dataset, check_neighbouring_pair
from dpsco.verification.auditing.power import minimum_detectable_epsilon
from dpsco.verification.auditing.results import ESTIMATOR_ASSUMPTIONS, AuditResult
from dpsco.verification.auditing.samples import checked_draw, combine_checks, reproducibility_check
from dpsco.verification.auditing.statistics import parse_statistic, select_statistic_and_event, statistic_function
from dpsco.verification.executors import Executor

__all__ = ["Prepared", "Selection", "Tested", "Verdict", "count_test_half", "prepare", "record", "select_events"]

ESTIMATOR_SPLIT = "Clopper-Pearson threshold audit, event selected on an independent half (sample splitting)"
ESTIMATOR_FIXED = "Clopper-Pearson threshold audit, event fixed in advance (no selection)"
ESTIMATOR_CLAIM = (
    "Clopper-Pearson threshold audit, event placed from the claim ({family} family on the claimed curve; "
    "direction, location and scale from a pilot of {n_pilot} runs per side), tested on all other runs"
)
#: what the threshold route's number assumes (the prefix that other routes' assumption strings replace)
ASSUMPTIONS = ESTIMATOR_ASSUMPTIONS["threshold"]


@dataclass
class Prepared:
    """The validated inputs and the drawn runs of one audit (output of :func:`prepare`)."""

    t0: float
    claim: PrivacyClaim
    confidence: float
    n: int
    n_sel: int
    kind: str
    arg: Any
    n_thresholds: int
    event: Event | None
    event_from_claim: str | None
    epsilon_true: float | None
    power_family: str | None
    seed_entropy: int | None
    spawn_key: tuple[int, ...]
    neighbouring: dict[str, Any]
    repro: dict[str, Any]
    out_a: np.ndarray
    out_b: np.ndarray
    sampler: str
    sample_consistency: dict[str, Any]
    sampling_seconds: float

    @property
    def n_test(self) -> int:
        return self.n - self.n_sel

    @property
    def delta(self) -> float:
        return float(self.claim.delta)

    @property
    def half_alpha(self) -> float:
        return (1.0 - self.confidence) / 2.0


def prepare(mechanism: Any, dataset: Mapping[str, Any], neighbour: Mapping[str, Any], claim: Any, n_samples: Any,
            rng: np.random.Generator, *, confidence: Any, statistic: Any, selection_fraction: Any, n_thresholds: Any,
            event: Any, seed_entropy: Any, check_neighbouring: bool, epsilon_true: Any, power_family: Any,
            workers: Any, event_from_claim: Any, pilot_fraction: Any, sample_check_runs: Any,
            default_selection_fraction: float = 0.5,
            route_check: Callable[[PrivacyClaim], None] | None = None) -> Prepared:
    """Validate the inputs shared by the routes (errors as in ``audit()``), probe that the mechanism draws only
    from its rng, draw ``n_samples`` runs per side and fix the selection (or pilot) size.  ``route_check``
    validates the route's own parameters against the claim, in the order ``audit()`` always checked them."""
    t0 = time.perf_counter()
    the_claim = as_claim(claim)
    if event_from_claim is not None:
        if event_from_claim not in ("gaussian", "laplace"):
            raise ValueError(f"event_from_claim must be None, 'gaussian' or 'laplace', got {event_from_claim!r}")
        if event is not None:
            raise ValueError("event_from_claim and event are exclusive (the event is either given or placed from the claim)")
        if selection_fraction is not None:
            raise ValueError("selection_fraction does not apply with event_from_claim (use pilot_fraction)")
        if event_from_claim == "gaussian" and the_claim.delta == 0.0:
            raise ValueError("event_from_claim='gaussian' needs a claim with delta > 0")
        if pilot_fraction is None:
            pilot_fraction = 0.01
        if isinstance(pilot_fraction, bool) or not isinstance(pilot_fraction, Real) or not (
            0.0 < float(pilot_fraction) < 1.0
        ):
            raise ValueError(f"pilot_fraction must lie in (0, 1), got {pilot_fraction!r}")
    elif pilot_fraction is not None:
        raise ValueError("pilot_fraction applies only with event_from_claim")
    if route_check is not None:
        route_check(the_claim)
    if sample_check_runs is not None and (
        isinstance(sample_check_runs, bool) or not isinstance(sample_check_runs, Integral) or int(sample_check_runs) < 0
    ):
        raise ValueError(f"sample_check_runs must be an integer >= 0 or None, got {sample_check_runs!r}")
    if epsilon_true is not None and (
        isinstance(epsilon_true, bool) or not isinstance(epsilon_true, Real) or not (float(epsilon_true) >= 0.0)
    ):
        raise ValueError(f"epsilon_true must be a real number >= 0 or None, got {epsilon_true!r}")
    if power_family not in (None, "auto", "laplace", "gaussian", "randomized-response"):
        raise ValueError(
            f"power_family must be None, 'auto', 'laplace', 'gaussian' or 'randomized-response', got {power_family!r}"
        )
    if workers is not None and not isinstance(workers, Executor) and (
            isinstance(workers, bool) or not isinstance(workers, Integral) or int(workers) < 1):
        raise ValueError(f"workers must be an integer >= 1, an Executor or None, got {workers!r}")
    if not (callable(mechanism) or callable(getattr(mechanism, "sample", None))):
        raise TypeError(
            f"mechanism must be callable f(data, rng) -> array or have sample(data, n, rng), got {type(mechanism).__name__}"
        )
    check_rng(rng)
    conf = check_confidence(confidence)
    if isinstance(n_samples, bool) or not isinstance(n_samples, Integral):
        raise TypeError(f"n_samples must be an integer, got {type(n_samples).__name__}")
    n = int(n_samples)
    kind, arg = parse_statistic(statistic)
    if event is not None:
        if not isinstance(event, Event):
            raise TypeError(f"event must be an Event, got {type(event).__name__}")
        if n < 2:
            raise ValueError(f"n_samples must be >= 2, got {n}")
        n_sel = 0
    elif event_from_claim is not None:
        n_sel = max(2, int(math.floor(n * float(pilot_fraction))))
        if n - n_sel < 2:
            raise ValueError(f"n_samples={n} with pilot_fraction={pilot_fraction} leaves {n - n_sel} test runs; need >= 2")
    else:
        if selection_fraction is None:
            selection_fraction = default_selection_fraction
        if isinstance(selection_fraction, bool) or not isinstance(selection_fraction, Real) or not (
            0.0 < float(selection_fraction) < 1.0
        ):
            raise ValueError(f"selection_fraction must lie in (0, 1), got {selection_fraction!r}")
        if n < 4:
            raise ValueError(f"n_samples must be >= 4 (a selection and a test half of >= 2 each), got {n}")
        n_sel = int(math.floor(n * float(selection_fraction)))
        if n_sel < 2 or n - n_sel < 2:
            raise ValueError(
                f"selection_fraction={selection_fraction} leaves {n_sel} selection and {n - n_sel} test samples; "
                "both must be >= 2"
            )
    if isinstance(n_thresholds, bool) or not isinstance(n_thresholds, Integral) or int(n_thresholds) < 3:
        raise ValueError(f"n_thresholds must be an integer >= 3, got {n_thresholds!r}")
    if seed_entropy is not None and (isinstance(seed_entropy, bool) or not isinstance(seed_entropy, Integral)):
        raise TypeError(f"seed_entropy must be an integer or None, got {type(seed_entropy).__name__}")
    ds = check_dataset(dataset, "dataset")
    nb = check_dataset(neighbour, "neighbour")
    if set(ds) != set(nb):
        raise ValueError(f"dataset and neighbour must have the same keys: {sorted(ds)} vs {sorted(nb)}")
    nb_info: dict[str, Any] = {"checked": False}
    if check_neighbouring:
        nb_info = {"checked": True, **check_neighbouring_pair(ds, nb, the_claim.neighbouring)}

    spawn_key: tuple[int, ...] = ()
    if seed_entropy is None:
        seq = getattr(rng.bit_generator, "seed_seq", None)
        if isinstance(seq, np.random.SeedSequence):
            seed_entropy = int(seq.entropy) if isinstance(seq.entropy, (int, np.integer)) else None
            spawn_key = tuple(int(x) for x in seq.spawn_key)

    # 0. the mechanism must draw from the rng it is given: two runs from identical generators agree (a probe on
    # its own fixed generators, so the audit's stream is untouched); runs in forked workers that share a global
    # generator would be dependent, which voids the binomial bounds, so that case is refused
    repro = reproducibility_check(mechanism, ds)
    if not repro["reproducible"] and not (workers is None or workers == 1):
        raise ValueError("the mechanism does not draw its randomness only from the rng it is given (two runs from "
                         "identical generators differ); with workers > 1 its runs in different processes may share "
                         "that global state and be dependent, so the audit is refused: seed every generator it uses "
                         "from rng, or run with workers=1")

    # 1. samples (a batched sampler is checked against single runs before its rows are used)
    t_s = time.perf_counter()
    out_a, how, check_a = checked_draw(mechanism, ds, n, rng, "dataset", workers, sample_check_runs)
    out_b, _, check_b = checked_draw(mechanism, nb, n, rng, "neighbour", workers, sample_check_runs)
    sampling_seconds = time.perf_counter() - t_s
    if out_a.shape[1] != out_b.shape[1]:
        raise ValueError(f"outputs on dataset and neighbour have different sizes ({out_a.shape[1]} and {out_b.shape[1]})")
    return Prepared(t0=t0, claim=the_claim, confidence=conf, n=n, n_sel=n_sel, kind=kind, arg=arg,
                    n_thresholds=int(n_thresholds), event=event, event_from_claim=event_from_claim,
                    epsilon_true=None if epsilon_true is None else float(epsilon_true), power_family=power_family,
                    seed_entropy=seed_entropy, spawn_key=spawn_key, neighbouring=nb_info, repro=repro, out_a=out_a,
                    out_b=out_b, sampler=how, sample_consistency=combine_checks(check_a, check_b, how),
                    sampling_seconds=sampling_seconds)


@dataclass
class Selection:
    """What the selection half (or pilot, or the caller) fixed: the statistic and the tested event(s)."""

    stat_fn: Callable[[np.ndarray], np.ndarray]
    stat_desc: str
    stat_info: dict[str, Any]
    chosen: Event
    chosen_gdp: Event | None
    score: float
    n_candidates: int
    description: str
    claim_event: dict[str, Any] | None = None


def _select_by_score(s_a: np.ndarray, s_b: np.ndarray, score: Callable[[np.ndarray, np.ndarray], np.ndarray],
                     half_alpha: float, n_thresholds: int) -> tuple[Event, float, int]:
    """The event maximising ``score(P_lo, Q_hi)`` on the selection statistics, over the candidates of
    :func:`dpsco.verification.auditing.events.select_event` (same grid, tails, directions and level)."""
    sa, sb = np.sort(s_a), np.sort(s_b)
    taus = candidate_thresholds(np.sort(np.concatenate([sa, sb])), n_thresholds)
    level = half_alpha / (4.0 * taus.size)
    best: tuple[float, Event] | None = None
    for tail in ("ge", "le"):
        ca, cb = threshold_counts(sa, taus, tail), threshold_counts(sb, taus, tail)
        for numerator, (kp, np_, kq, nq) in (("dataset", (ca, sa.size, cb, sb.size)),
                                             ("neighbour", (cb, sb.size, ca, sa.size))):
            p_lo = np.asarray(clopper_pearson_lower(kp, np_, level), dtype=np.float64)
            q_hi = np.asarray(clopper_pearson_upper(kq, nq, level), dtype=np.float64)
            scores = np.asarray(score(p_lo, q_hi), dtype=np.float64)
            scores = np.where(np.isnan(scores), -np.inf, scores)
            j = int(np.argmax(scores))
            if best is None or scores[j] > best[0]:
                best = (float(scores[j]), Event(float(taus[j]), tail, numerator))  # type: ignore[arg-type]
    assert best is not None
    return best[1], best[0], int(taus.size)


def select_events(p: Prepared, main_kind: str, with_gdp: bool,
                  selection_score: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None) -> Selection:
    """Step 3 of the audit, on the selection (or pilot) runs only: the statistic and the event behind
    ``epsilon_lower`` (criterion ``main_kind``: "threshold", or "hockey-stick" for its δ bound) and, when
    ``with_gdp``, a second event by the μ criterion.  The event comes from the claim (``event_from_claim``),
    from the caller (``event``), by ``selection_score`` or by the default criterion over the "auto" family or
    the given statistic."""
    n_sel, k, claim = p.n_sel, p.out_a.shape[1], p.claim
    sel_a, sel_b = p.out_a[:n_sel], p.out_b[:n_sel]
    stat_fn, stat_desc, stat_info = statistic_function(p.kind, p.arg, sel_a if n_sel else None,
                                                       sel_b if n_sel else None, k)
    chosen_gdp: Event | None = None
    if p.event_from_claim is not None:
        fam = p.event_from_claim
        loc_a, scale_a = location_scale(stat_fn(sel_a), fam)
        loc_b, scale_b = location_scale(stat_fn(sel_b), fam)
        numerator = "dataset" if loc_a >= loc_b else "neighbour"
        loc_den, scale_den = (loc_b, scale_b) if numerator == "dataset" else (loc_a, scale_a)
        opt = claim_optimal_threshold(fam, claim.epsilon, claim.delta, p.n_test, route="threshold",
                                      confidence=p.confidence)
        chosen = Event(loc_den + scale_den * opt["t"], "ge", numerator)  # type: ignore[arg-type]
        info = {
            "family": fam, "n_pilot": n_sel, "standardised_threshold": opt["t"],
            "claim_curve_shift": opt["shift"], "model_p": opt["p"], "model_q": opt["q"],
            "model_expected_bound": opt["expected_bound"], "pilot_location_scale": {
                "dataset": [loc_a, scale_a], "neighbour": [loc_b, scale_b]},
            "power_assumption": (f"the event is the best one if the statistic were {fam} with the "
                                 "claimed privacy curve; validity does not depend on it"),
        }
        if with_gdp:
            opt_g = claim_optimal_threshold(fam, claim.epsilon, claim.delta, p.n_test, route="gdp",
                                            confidence=p.confidence)
            chosen_gdp = Event(loc_den + scale_den * opt_g["t"], "ge", numerator)  # type: ignore[arg-type]
            info["gdp_standardised_threshold"] = opt_g["t"]
        return Selection(stat_fn, stat_desc, stat_info, chosen, chosen_gdp, float("nan"), 1,
                         ESTIMATOR_CLAIM.format(family=fam, n_pilot=n_sel), info)
    if p.event is not None:
        return Selection(stat_fn, stat_desc, stat_info, p.event, p.event if with_gdp else None, float("nan"), 0,
                         ESTIMATOR_FIXED)
    if selection_score is not None:
        chosen, score, n_cand = _select_by_score(stat_fn(sel_a), stat_fn(sel_b), selection_score, p.half_alpha,
                                                 p.n_thresholds)
        return Selection(stat_fn, stat_desc, stat_info, chosen, None, score, n_cand,
                         ESTIMATOR_SPLIT + " (event chosen by the caller's selection_score)")
    if p.kind == "auto":   # the default family, chosen on the selection half (statistics module docstring)
        stat_fn, stat_desc, stat_info, chosen, score, n_cand = select_statistic_and_event(
            p.kind, p.arg, sel_a, sel_b, k, p.delta, p.half_alpha, p.n_thresholds, main_kind, claim.epsilon)
        s_sa, s_sb = stat_fn(sel_a), stat_fn(sel_b)
    else:
        s_sa, s_sb = stat_fn(sel_a), stat_fn(sel_b)
        chosen, score, n_cand = select_event(s_sa, s_sb, p.delta, p.half_alpha, p.n_thresholds, main_kind,
                                             claim.epsilon)
    if with_gdp:
        chosen_gdp, _, _ = select_event(s_sa, s_sb, p.delta, p.half_alpha, p.n_thresholds, "gdp", claim.epsilon)
    return Selection(stat_fn, stat_desc, stat_info, chosen, chosen_gdp, score, n_cand, ESTIMATOR_SPLIT)


@dataclass
class Tested:
    """Step 4: the counts of an event on the test half and its Clopper–Pearson bounds."""

    s_ta: np.ndarray
    s_tb: np.ndarray
    k_p: int
    k_q: int
    p_lo: float
    q_hi: float
    epsilon_lower: float


def count_test_half(p: Prepared, sel: Selection) -> Tested:
    """The chosen event's counts on the test half, P_lo and Q_hi (each at level (1 − confidence)/2) and the
    assumption-free ε_lb = log((P_lo − δ)/Q_hi)."""
    s_ta, s_tb = sel.stat_fn(p.out_a[p.n_sel:]), sel.stat_fn(p.out_b[p.n_sel:])
    k_p, k_q = event_counts(s_ta, s_tb, sel.chosen)
    n_test = p.n_test
    return Tested(s_ta, s_tb, k_p, k_q, float(clopper_pearson_lower(k_p, n_test, p.half_alpha)),
                  float(clopper_pearson_upper(k_q, n_test, p.half_alpha)),
                  float(epsilon_lower_bound(k_p, n_test, k_q, n_test, p.delta, p.confidence)))


@dataclass
class Verdict:
    """What a route decided from the counts: the verdict, its basis and the route's own figures."""

    verdict: str
    basis: str
    description: str
    assumptions: str
    mu_lower: float | None = None
    epsilon_gauss: float | None = None
    delta_lower: float | None = None
    gdp: dict[str, Any] | None = None
    shape: dict[str, Any] | None = None
    assumption: dict[str, Any] | None = None
    power_route: str = "threshold"


def record(p: Prepared, sel: Selection, t: Tested, v: Verdict, estimator: str, warnings: list[str]) -> AuditResult:
    """The :class:`AuditResult` of a route: counts, bounds, split sizes, the power figure, timings."""
    n_test, delta, chosen, the_claim = p.n_test, p.delta, sel.chosen, p.claim
    p_hat, q_hat = t.k_p / n_test, t.k_q / n_test
    plug_in = math.log((p_hat - delta) / q_hat) if (p_hat > delta and q_hat > 0) else (math.inf if p_hat > delta else 0.0)
    assumptions = v.assumptions
    sc = p.sample_consistency
    if not sc.get("checked", False) and sc.get("trusted_unchecked"):
        assumptions += "; the batched sample() was trusted without the consistency check (sample_check_runs=0)"
    direction = "dataset vs neighbour" if chosen.numerator == "dataset" else "neighbour vs dataset"
    details: dict[str, Any] = {
        "event": chosen.describe(),
        "tail": chosen.tail,
        "numerator": chosen.numerator,
        "n_selection": p.n_sel,
        "n_test": n_test,
        "numerator_count": t.k_p,
        "denominator_count": t.k_q,
        "p_lower": t.p_lo,
        "q_upper": t.q_hi,
        "p_hat": p_hat,
        "q_hat": q_hat,
        "plug_in_epsilon_test": plug_in,
        "selection_score": sel.score,
        "n_candidate_thresholds": sel.n_candidates,
        "per_bound_alpha": p.half_alpha,
        "claim_delta_subtracted": delta,
        "output_dimension": p.out_a.shape[1],
        "sampler": p.sampler,
        "neighbouring": p.neighbouring,
        "seed_spawn_key": list(p.spawn_key),
        "sampling_seconds": p.sampling_seconds,
        **sel.stat_info,
    }
    if v.gdp is not None:
        details["gdp"] = v.gdp
    if v.shape is not None:
        details["gaussian_shape"] = v.shape
    if sel.claim_event is not None:
        details["event_from_claim"] = sel.claim_event
    mde: float | None = None
    if p.power_family is not None:
        fam = p.power_family if p.power_family != "auto" else ("laplace" if delta == 0.0 else "gaussian")
        # the power of the bound that decides the verdict
        route = v.power_route if fam == "gaussian" else "threshold"
        if fam == "laplace" and delta > 0.0:
            fam = "gaussian"
        try:
            mde = minimum_detectable_epsilon(fam, n_test, the_claim.epsilon, delta, route=route,
                                             confidence=p.confidence)
        except ValueError:
            mde = None
        if mde is not None:
            details["power"] = {
                "family": fam,
                "route": route,
                "n_test": n_test,
                "statement": (
                    f"with {n_test} test runs per side, a {fam} mechanism (1-D, best event) whose exact ε at δ = "
                    f"{delta:g} is >= {mde:.4g} gives an expected ε_lb above the claim ε = {the_claim.epsilon:g} "
                    f"({route} route; expected counts, oracle event: a planning figure, not a guarantee)"
                ),
            }
    details["total_seconds"] = time.perf_counter() - p.t0
    nb_info = p.neighbouring
    return AuditResult(
        epsilon_lower=t.epsilon_lower, confidence=p.confidence, samples=p.n, claim=the_claim, verdict=v.verdict,
        estimator=v.description, statistic=sel.stat_desc, threshold=chosen.threshold, direction=direction,
        assumptions=assumptions, seed_entropy=p.seed_entropy, details=details, estimator_kind=estimator,
        mu_lower=v.mu_lower, delta_lower=v.delta_lower, epsilon_true=p.epsilon_true, minimum_detectable_epsilon=mde,
        epsilon_lower_assuming_gaussian_tradeoff=v.epsilon_gauss,
        gaussian_shape_plausible=None if v.shape is None else v.shape.get("plausible"), assumption=v.assumption,
        verdict_basis=v.basis, neighbouring_audited=nb_info.get("relation") if nb_info.get("checked") else None,
        sample_consistency=sc, warnings=warnings, reproducible=p.repro["reproducible"],
    )
