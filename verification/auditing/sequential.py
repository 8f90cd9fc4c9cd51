"""Sequential (anytime-valid) threshold audits: stop as soon as the answer is certain.

:func:`sequential_audit` is the threshold audit of :func:`dpsco.verification.auditing.audit.audit` with a
fixed-size test half replaced by test runs drawn in batches, after each of which an ε lower bound is
computed that is valid **simultaneously for every batch** (a confidence *sequence*), so the audit may stop
the moment a refutation (or a requested ε) is certain, without paying for a multiple look:

1. *selection* (fixed size, ``selection_samples`` runs per side): the statistic
   (:func:`dpsco.verification.auditing.statistics.statistic_function`, as in ``audit()``), the event E with
   its direction, and the prior of each side's mixture (below).  The event is, by default, the candidate
   of ``events.candidate_thresholds`` expected to certify the goal soonest at the sizes the test may reach
   (:func:`projected_event`); ``selection="fixed-size"`` uses ``events.select_event`` as ``audit()`` does,
   which scores at the selection size and so prefers bulk events when the test budget is much larger
   (measured in docs/auditing.md, "Sequential audits");
2. *test*, batch after batch (``batch`` runs per side): the counts k_p (numerator side in E) and k_q
   (denominator side in E) after t test runs per side give the Robbins beta-binomial mixture confidence
   intervals [L_t^p, U_t^p] ∋ p = P(E) and [L_t^q, U_t^q] ∋ q = Q(E), each at level α/2, α = 1 − confidence,
   intersected over all batches so far, and

       ε_lb(t) = log((L^p − δ)/U^q)   (0 if L^p <= δ);

3. stop at the first batch with ε_lb > ε_claimed ("refuted"), or ε_lb >= ``target_epsilon`` ("target
   certified"), else after ``max_samples`` runs per side ("max_samples"; the last batch is cut to fit).

**Confidence sequence** (Robbins 1970, Ann. Math. Statist. 41(5); Howard, Ramdas, McAuliffe & Sekhon 2021,
Ann. Statist. 49(2), "conjugate mixture" beta-binomial boundary).  For i.i.d. Bernoulli(p) with k successes
in t trials and a Beta(a, b) mixing density,

    M_t(p0) = ∫ (θ/p0)^k ((1 − θ)/(1 − p0))^{t−k} Beta(θ; a, b) dθ
            = exp( ln B(a + k, b + t − k) − ln B(a, b) − k ln p0 − (t − k) ln(1 − p0) )

is a nonnegative martingale with M_0 = 1 under p0 = p, so by Ville's inequality P(∃ t: M_t(p) >= 1/α') <= α'
and CS_t = {p0 : M_t(p0) < 1/α'} covers p at every t simultaneously with probability >= 1 − α'.  ln M_t is
convex in p0 with minimum <= 0 at p0 = k/t, so CS_t is an interval [L_t, U_t] found by root finding
(:func:`beta_binomial_confidence_sequence`).  Proof that the audit is sound at every stopping time:
docs/derivations.md#anytime-valid-sequential-threshold-audit.

**Prior.**  ``prior="selection"`` (default): for each side, Beta(c·m, c·(1 − m)) with m = (k_sel + ½)/(n_sel + 1)
the selection runs' frequency of E on that side and c = ``prior_runs`` (default n_sel); a function of the
selection runs only, so validity is untouched, and it concentrates the mixture where p and q lie (for a
deep-tail event with q ~ 1e-5 the uniform prior's price is about ½ ln(t/q) nats of boundary).
``prior="uniform"``: Beta(1, 1).

This module reuses the public helpers of ``events``, ``statistics``, ``samples``, ``inputs`` and
``clopper_pearson``; it shares no code path with ``audit()``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, Callable, Mapping

import numpy as np
from scipy.optimize import brentq
from scipy.special import betaln

from dpsco.verification.executors import Executor
from dpsco.reference.privacy import PrivacyClaim, to_jsonable
from dpsco.reference.validation import check_rng
from dpsco.verification.auditing.clopper_pearson import check_confidence
from dpsco.verification.auditing.events import (
    Event,
    candidate_thresholds,
    estimator_scores,
    event_counts,
    select_event,
    threshold_counts,
)
from dpsco.verification.auditing.inputs import as_claim, check_dataset, check_neighbouring_pair
from dpsco.verification.auditing.results import AuditResultBase
from dpsco.verification.auditing.samples import combine_checks, checked_draw, draw
from dpsco.verification.auditing.statistics import (DEFAULT_STATISTIC, Statistic, family_members, parse_statistic,
                                                       statistic_function)

__all__ = [
    "CONFIDENCE_SEQUENCE",
    "SequentialAuditResult",
    "beta_binomial_confidence_sequence",
    "beta_binomial_log_martingale",
    "projected_event",
    "sequential_audit",
]

CONFIDENCE_SEQUENCE = (
    "Robbins beta-binomial mixture confidence sequence (Robbins 1970; Howard, Ramdas, McAuliffe & Sekhon 2021, "
    "Ann. Statist. 49(2)): {p0 : M_t(p0) < 1/alpha'}, M_t(p0) = B(a+k, b+t-k)/B(a, b) / (p0^k (1-p0)^(t-k)), "
    "time-uniform by Ville's inequality; intersected over batches"
)
_PESSIMISM = 2.0  # standard deviations against each candidate in projected_event (measured: 1 lets a lucky
# deep-tail event through on a true claim, ε_lb 0 in 1 of 12 Gaussian audits; 3 triples the runs on a 2x violation)
_WIDEN = 1e-12  # relative outward widening of every root (covers the root finder's tolerance)


def _check_ab(a: Any, b: Any) -> tuple[float, float]:
    for name, v in (("a", a), ("b", b)):
        if isinstance(v, bool) or not isinstance(v, Real) or not (0.0 < float(v) < math.inf):
            raise ValueError(f"{name} must be a finite real > 0 (Beta prior parameter), got {v!r}")
    return float(a), float(b)


def _check_kt(k: Any, t: Any) -> tuple[int, int]:
    for name, v in (("k", k), ("t", t)):
        if isinstance(v, bool) or not isinstance(v, Integral):
            raise TypeError(f"{name} must be an integer, got {type(v).__name__}")
    if not (0 <= int(k) <= int(t)):
        raise ValueError(f"counts must satisfy 0 <= k <= t, got k={k}, t={t}")
    return int(k), int(t)


def beta_binomial_log_martingale(k: int, t: int, p0: float, a: float = 1.0, b: float = 1.0) -> float:
    """ln M_t(p0) of the beta-binomial mixture after k successes in t Bernoulli trials.

    ln M_t(p0) = ln B(a + k, b + t − k) − ln B(a, b) − k ln p0 − (t − k) ln(1 − p0), p0 in [0, 1]
    (+inf at p0 = 0 with k > 0 or p0 = 1 with k < t).  Under p = p0 it is the log of a nonnegative martingale
    with M_0 = 1 (Robbins 1970).  Raises TypeError/ValueError naming ``k``, ``t``, ``p0``, ``a`` or ``b``.
    """
    k, t = _check_kt(k, t)
    a, b = _check_ab(a, b)
    if isinstance(p0, bool) or not isinstance(p0, Real) or not (0.0 <= float(p0) <= 1.0):
        raise ValueError(f"p0 must lie in [0, 1], got {p0!r}")
    p = float(p0)
    base = float(betaln(a + k, b + t - k) - betaln(a, b))
    if (p == 0.0 and k > 0) or (p == 1.0 and k < t):
        return math.inf
    lp = 0.0 if k == 0 else -k * math.log(p)
    lq = 0.0 if k == t else -(t - k) * math.log1p(-p)
    return base + lp + lq


def beta_binomial_confidence_sequence(
    k: int, t: int, alpha: float, a: float = 1.0, b: float = 1.0
) -> tuple[float, float]:
    """(L_t, U_t): the beta-binomial mixture confidence interval for a Bernoulli mean at time t.

    {p0 : M_t(p0) < 1/α} with M_t of :func:`beta_binomial_log_martingale` (an interval: ln M_t is convex in
    p0 with minimum <= 0 at k/t).  For every p and every prior (a, b) fixed before the trials,
    P(∃ t >= 0: p ∉ [L_t, U_t]) <= α (Ville's inequality), whatever the stopping rule.  L_t = 0 when k = 0,
    U_t = 1 when k = t; the roots are widened outwards by a relative 1e-12 (conservative).  t = 0 gives
    (0, 1).

    Parameters
    ----------
    k, t : int, 0 <= k <= t
    alpha : float in (0, 1)
        Time-uniform error probability of the two-sided sequence (each side alone: <= α).
    a, b : float > 0
        Beta prior; must not depend on the trials.

    References: Robbins (1970), Ann. Math. Statist. 41(5), 1397–1409; Howard, Ramdas, McAuliffe & Sekhon
    (2021), Ann. Statist. 49(2), 1055–1080; Ville (1939).
    """
    k, t = _check_kt(k, t)
    a, b = _check_ab(a, b)
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not (0.0 < float(alpha) < 1.0):
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    if t == 0:
        return 0.0, 1.0
    level = math.log(1.0 / float(alpha))
    base = float(betaln(a + k, b + t - k) - betaln(a, b))

    def g(p: float) -> float:
        lp = 0.0 if k == 0 else -k * math.log(p)
        lq = 0.0 if k == t else -(t - k) * math.log1p(-p)
        return base + lp + lq - level

    mle = k / t  # g(mle) = ln M_t(k/t) − ln(1/α) < 0: the likelihood at θ is at most that at k/t
    lower, upper = 0.0, 1.0
    if k > 0:  # g(0+) = +inf: step down geometrically until g >= 0, then bisect-interpolate
        lo = mle
        while lo > 0.0 and g(lo) < 0.0:
            lo *= 1e-3
        if lo > 0.0:
            lower = max(0.0, brentq(g, lo, mle, xtol=1e-300, rtol=1e-15, maxiter=500) * (1.0 - _WIDEN))
    if k < t:  # g(1−) = +inf: step towards 1 until g >= 0
        hi = mle
        while hi < 1.0 and (hi == mle or g(hi) < 0.0):
            hi = 1.0 - (1.0 - hi) * 1e-3
        if hi < 1.0:
            upper = min(1.0, brentq(g, mle, hi, xtol=1e-300, rtol=1e-15, maxiter=500) * (1.0 + _WIDEN) + 1e-300)
    return float(lower), float(upper)


def projected_event(
    s_a: np.ndarray, s_b: np.ndarray, delta: float, goal: float, half_alpha: float, n_thresholds: int,
    horizons: list[int],
) -> tuple[Event, int | None, float]:
    """The event expected to certify ε_lb > ``goal`` soonest, from selection statistics only.

    For every candidate (thresholds of :func:`dpsco.verification.auditing.events.candidate_thresholds`, both
    tails, both directions) the selection counts k of n_sel runs give pessimistic frequencies
    p̃ = max(k_p − z√k_p, 0)/n_sel and q̃ = (k_q + z√k_q + z²)/n_sel, z = 2 (two standard deviations against
    the event, which curbs the winner's curse over the candidates); at each test size t of ``horizons`` (increasing) the expected counts ⌊t·p̃⌋, ⌈t·q̃⌉ are scored by
    the Clopper–Pearson threshold bound at level ``half_alpha``/√(1 + t/n_sel) (a rough allowance for the
    sequence's price of looking at every t).  Returns (the candidate with the best score at the first
    horizon where some score exceeds ``goal``, that horizon, its score), or the best candidate at the last
    horizon and None.  A function of the selection runs only: it affects power, never validity.
    ``select_event`` instead scores at the selection size, which prefers bulk events when the test budget is
    much larger than the selection.
    """
    if not horizons:
        raise ValueError("projected_event needs at least one test size (horizons is empty)")
    sa, sb = np.sort(s_a), np.sort(s_b)
    n_sel = sa.size
    taus = candidate_thresholds(np.sort(np.concatenate([sa, sb])), n_thresholds)
    cands: list[tuple[np.ndarray, np.ndarray, str, str]] = []
    for tail in ("ge", "le"):
        ca, cb = threshold_counts(sa, taus, tail), threshold_counts(sb, taus, tail)
        cands += [(ca, cb, tail, "dataset"), (cb, ca, tail, "neighbour")]
    kp = np.concatenate([c[0] for c in cands]).astype(np.float64)
    kq = np.concatenate([c[1] for c in cands]).astype(np.float64)
    z = _PESSIMISM
    p_t = np.maximum(kp - z * np.sqrt(kp), 0.0) / n_sel
    q_t = np.minimum((kq + z * np.sqrt(kq) + z * z) / n_sel, 1.0)
    best_j, best_score, reached = 0, -math.inf, None
    for t in horizons:
        level = half_alpha / math.sqrt(1.0 + t / n_sel)
        kp_t = np.minimum(np.floor(t * p_t), t)
        kq_t = np.minimum(np.ceil(t * q_t), t)
        scores = estimator_scores("threshold", kp_t, t, kq_t, t, delta, 0.0, level)
        j = int(np.argmax(scores))
        best_j, best_score = j, float(scores[j])
        if best_score > goal:
            reached = int(t)
            break
    block, i = divmod(best_j, taus.size)
    _, _, tail, numerator = cands[block]
    return Event(float(taus[i]), tail, numerator), reached, best_score  # type: ignore[arg-type]


@dataclass
class SequentialAuditResult(AuditResultBase):
    """Outcome of :func:`sequential_audit`.

    Attributes
    ----------
    epsilon_lower : float >= 0
        ε_lb at the stopping batch; with probability >= ``confidence`` every ε_lb of the trajectory is <= the
        mechanism's ε at the claim's δ on this pair (time-uniform).
    verdict : "refuted" | "not refuted"
    stopping_reason : "refuted" | "target certified" | "max_samples"
    samples_used : int
        Runs per side (selection + test).  ``samples_saved`` = ``max_samples`` − ``samples_used``.
    trajectory : list of (test runs per side, ε_lb) after each batch.
    confidence_sequence : dict
        The method, per-side error α/2, the Beta priors, the final intervals.
    seed_entropy : int or None
        The entropy of the SeedSequence behind ``rng`` (None if it has none); also ``seed``.  ``verdict``,
        ``epsilon_lower``, ``confidence``, ``seed``, ``summary()`` and ``to_dict()`` as for every audit result
        (:class:`~dpsco.verification.auditing.results.AuditResultBase`).
    """

    epsilon_lower: float
    confidence: float
    verdict: str
    stopping_reason: str
    claim: PrivacyClaim
    samples_used: int
    samples_saved: int
    max_samples: int
    selection_samples: int
    test_samples: int
    batch: int
    batches: int
    target_epsilon: float | None
    event: str
    threshold: float
    direction: str
    statistic: str
    numerator_count: int
    denominator_count: int
    p_lower: float
    q_upper: float
    confidence_sequence: dict[str, Any]
    trajectory: list[tuple[int, float]] = field(default_factory=list)
    sample_consistency: dict[str, Any] = field(default_factory=dict)
    neighbouring: dict[str, Any] = field(default_factory=dict)
    seed_entropy: int | None = None
    seconds: float = 0.0
    assumptions: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Strict-JSON-able dict of every field (the claim as its own dict), plus ``refuted`` and ``seed``."""
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["claim"] = self.claim.to_dict()
        out["refuted"] = self.refuted
        out["seed"] = self.seed
        return to_jsonable(out)

    def summary(self) -> str:
        """A few human-readable lines: verdict, ε_lb, runs used and saved, why it stopped."""
        c = self.claim
        return "\n".join([
            f"sequential audit of ({c.epsilon:g}, {c.delta:g})-DP ({c.neighbouring}): {self.verdict}",
            f"  epsilon_lower = {self.epsilon_lower:.4g} at confidence {self.confidence:g}, valid at every batch "
            "(anytime-valid confidence sequence)",
            f"  stopped: {self.stopping_reason} after {self.samples_used:,} runs per side ({self.selection_samples:,} "
            f"selection + {self.test_samples:,} test in {self.batches} batches of {self.batch:,}); "
            f"{self.samples_saved:,} of max_samples = {self.max_samples:,} saved",
            f"  event: {self.event} (statistic: {self.statistic}); counts {self.numerator_count} / "
            f"{self.denominator_count}, P_lo = {self.p_lower:.4g}, Q_hi = {self.q_upper:.4g}",
        ])


ASSUMPTIONS = (
    "none on the mechanism's output distribution; requires independent runs (i.i.d. draws from sample()), "
    "randomness only through rng, and dataset/neighbour neighbouring under the claim's relation; the bound holds "
    "simultaneously for every batch, so stopping early (at any data-dependent time) does not affect it"
)


def _int_param(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if int(value) < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def _prior(k_sel: int, n_sel: int, prior: str, prior_runs: float | None) -> tuple[float, float]:
    if prior == "uniform" or n_sel == 0:
        return 1.0, 1.0
    c = float(n_sel if prior_runs is None else prior_runs)
    m = (k_sel + 0.5) / (n_sel + 1.0)
    return c * m, c * (1.0 - m)


def sequential_audit(
    mechanism: Any,
    dataset: Mapping[str, Any],
    neighbour: Mapping[str, Any],
    claim: PrivacyClaim | tuple[float, float],
    max_samples: int,
    rng: np.random.Generator,
    *,
    confidence: float = 0.95,
    batch: int | None = None,
    selection_samples: int | None = None,
    statistic: Statistic = DEFAULT_STATISTIC,
    target_epsilon: float | None = None,
    event: Event | None = None,
    selection: str = "projected",
    prior: str = "selection",
    prior_runs: float | None = None,
    n_thresholds: int = 600,
    check_neighbouring: bool = True,
    workers: int | Executor | None = None,
    sample_check_runs: int | None = None,
    on_batch: Callable[[int, float], None] | None = None,
) -> SequentialAuditResult:
    """Anytime-valid threshold audit: test runs in batches, stopping as soon as the answer is certain.

    If the mechanism is (ε, claim.δ)-DP on this neighbouring pair, then with probability >= ``confidence``
    *every* ε_lb of the trajectory is <= ε; in particular P(verdict "refuted") <= 1 − ``confidence`` for a
    true claim, whatever the stopping rule (docs/derivations.md#anytime-valid-sequential-threshold-audit).

    Parameters
    ----------
    mechanism : callable ``f(data, rng) -> array``, optionally with ``sample(data, n, rng) -> (n, k)``
        As for ``audit()``.  A batched ``sample`` is used only after it has passed the consistency check
        (:func:`dpsco.verification.auditing.samples.checked_draw`) on that side.
    dataset, neighbour : dict of str -> array
        The neighbouring pair (axis 0 = records).
    claim : PrivacyClaim or (epsilon, delta)
    max_samples : int
        Largest number of runs per side, selection included (>= selection_samples + 1).
    rng : numpy.random.Generator
    confidence : float in (0, 1), default 0.95
        Split α = 1 − confidence as α/2 for the numerator side's sequence and α/2 for the denominator's.
    batch : int >= 1, optional
        Test runs per side per batch (default max(1, (max_samples − selection_samples) // 100)); a batch above
        the test budget max_samples − selection_samples is cut to it (one look), and ``batch`` in the result is
        the batch run.
    selection_samples : int >= 2, optional
        Runs per side choosing the statistic, the event and the priors (default max(2, max_samples // 10));
        0 with an explicit ``event``.
    statistic : as for ``audit()`` ("projection", "norm", "logistic", "coordinate:<i>", callable)
    target_epsilon : float > 0, optional
        Also stop once ε_lb >= target_epsilon ("target certified": the mechanism's ε is at least this).
    event : Event, optional
        Test this event, fixed in advance (no selection runs; uniform priors).
    selection : "projected" | "fixed-size", default "projected"
        How the event is chosen on the selection runs: :func:`projected_event` (the event expected to
        certify ε_lb > min(ε_claim, target_epsilon) soonest within the budget, else the best at the budget), or
        ``events.select_event`` (the fixed-size audit's criterion, scored at the selection size).
    prior : "selection" | "uniform", default "selection"
        The Beta priors of the two mixtures (module docstring).
    prior_runs : float > 0, optional
        Prior strength c of ``prior="selection"`` (default: the number of selection runs).
    n_thresholds, check_neighbouring, workers, sample_check_runs : as for ``audit()``.
    on_batch : callable (test runs per side, ε_lb) -> None, optional
        Called after each batch (progress reports).

    Returns
    -------
    SequentialAuditResult

    Raises
    ------
    TypeError, ValueError
        Naming the parameter: bad claim, datasets, ``max_samples``, ``selection_samples``, ``batch``,
        ``confidence``, ``target_epsilon``, ``prior``, ``prior_runs``, ``statistic``, ``event``; outputs of
        inconsistent shape or non-finite; :class:`~dpsco.verification.auditing.samples.SampleInconsistencyError`.
    """
    t0 = time.perf_counter()
    the_claim = as_claim(claim)
    check_rng(rng)
    conf = check_confidence(confidence)
    n_max = _int_param(max_samples, "max_samples", 1)
    if event is not None and not isinstance(event, Event):
        raise TypeError(f"event must be an Event, got {type(event).__name__}")
    if event is not None:
        if selection_samples not in (None, 0):
            raise ValueError(f"selection_samples must be 0 or None with an explicit event, got {selection_samples!r}")
        n_sel = 0
    elif selection_samples is None:
        n_sel = max(2, n_max // 10)
    else:
        n_sel = _int_param(selection_samples, "selection_samples", 2)
    if n_max < n_sel + 1:
        raise ValueError(f"max_samples={n_max} leaves no test runs after {n_sel} selection runs")
    budget = n_max - n_sel  # test runs per side
    b_size = max(1, budget // 100) if batch is None else _int_param(batch, "batch", 1)
    # a batch larger than the test budget is the whole budget (one look): the event's horizons, the loop and the
    # record all use the batch actually run
    b_size = min(b_size, budget)
    if target_epsilon is not None:
        if isinstance(target_epsilon, bool) or not isinstance(target_epsilon, Real) or not (
            0.0 < float(target_epsilon) < math.inf
        ):
            raise ValueError(f"target_epsilon must be a finite real > 0 or None, got {target_epsilon!r}")
        target_epsilon = float(target_epsilon)
    if selection not in ("projected", "fixed-size"):
        raise ValueError(f"selection must be 'projected' or 'fixed-size', got {selection!r}")
    if prior not in ("selection", "uniform"):
        raise ValueError(f"prior must be 'selection' or 'uniform', got {prior!r}")
    if prior_runs is not None and (
        isinstance(prior_runs, bool) or not isinstance(prior_runs, Real) or not (0.0 < float(prior_runs) < math.inf)
    ):
        raise ValueError(f"prior_runs must be a finite real > 0 or None, got {prior_runs!r}")
    if isinstance(n_thresholds, bool) or not isinstance(n_thresholds, Integral) or int(n_thresholds) < 3:
        raise ValueError(f"n_thresholds must be an integer >= 3, got {n_thresholds!r}")
    kind, arg = parse_statistic(statistic)
    ds, nb = check_dataset(dataset, "dataset"), check_dataset(neighbour, "neighbour")
    if set(ds) != set(nb):
        raise ValueError(f"dataset and neighbour must have the same keys: {sorted(ds)} vs {sorted(nb)}")
    nb_info: dict[str, Any] = {"checked": False}
    if check_neighbouring:
        nb_info = {"checked": True, **check_neighbouring_pair(ds, nb, the_claim.neighbouring)}
    seq = getattr(rng.bit_generator, "seed_seq", None)
    seed_entropy = int(seq.entropy) if isinstance(seq, np.random.SeedSequence) and isinstance(
        seq.entropy, (int, np.integer)) else None

    alpha = 1.0 - conf
    half = alpha / 2.0
    delta = float(the_claim.delta)
    checks: dict[str, dict[str, Any]] = {}
    how_used: list[str] = []

    def runs(data: dict[str, np.ndarray], n: int, side: str) -> np.ndarray:
        # checked_draw until the batched sampler has passed its check on this side, then plain draws
        if checks.get(side, {}).get("checked"):
            out, how = draw(mechanism, data, n, rng, side, workers)
        else:
            out, how, info = checked_draw(mechanism, data, n, rng, side, workers, sample_check_runs)
            if info.get("checked") or side not in checks:
                checks[side] = info
        how_used.append(how)
        return out

    # 1. selection
    if n_sel:
        sel_a, sel_b = runs(ds, n_sel, "dataset"), runs(nb, n_sel, "neighbour")
        if sel_a.shape[1] != sel_b.shape[1]:
            raise ValueError(f"outputs on dataset and neighbour have different sizes ({sel_a.shape[1]} and {sel_b.shape[1]})")
        k_dim = sel_a.shape[1]
        members = (family_members(sel_a, sel_b, k_dim) if kind == "auto" and selection == "projected"
                   else [statistic_function(kind, arg, sel_a, sel_b, k_dim)])
        stat_fn, stat_desc, _ = members[0]
        s_sa, s_sb = stat_fn(sel_a), stat_fn(sel_b)
        if selection == "projected":
            goal = the_claim.epsilon if target_epsilon is None else min(the_claim.epsilon, target_epsilon)
            # test sizes b, 2b, 4b, … up to the budget, which is always the last horizon
            horizons = sorted({min(budget, b_size * 2**j) for j in range(64) if b_size * 2**j < budget} | {budget})
            best = None
            for fn, desc, _ in members:   # "auto": the member expected to certify the goal soonest, then best score
                sa_, sb_ = fn(sel_a), fn(sel_b)
                ev, t_goal, score = projected_event(sa_, sb_, delta, goal, half, int(n_thresholds), horizons)
                rank = (t_goal if t_goal is not None else math.inf, -score)
                if best is None or rank < best[0]:
                    best = (rank, fn, desc, ev, t_goal, score, sa_, sb_)
            assert best is not None
            _, stat_fn, stat_desc, chosen, proj_t, proj_score, s_sa, s_sb = best
            if len(members) > 1:
                stat_desc += f" [chosen from the default family of {len(members)}]"
            selection_info = {"criterion": "projected", "projected_test_runs_to_goal": proj_t,
                              "projected_score": proj_score}
        else:
            chosen, sel_score, _ = select_event(s_sa, s_sb, delta, half, int(n_thresholds), "threshold",
                                                the_claim.epsilon)
            selection_info = {"criterion": "fixed-size (events.select_event)", "selection_score": sel_score}
        ksel_p, ksel_q = event_counts(s_sa, s_sb, chosen)
    else:
        assert event is not None
        chosen, k_dim = event, None
        ksel_p = ksel_q = 0
        stat_fn = None  # built from the first batch's dimension (no selection runs)
        stat_desc = ""
        selection_info = {"criterion": "event given in advance"}
    a_p, b_p = _prior(ksel_p, n_sel, prior, prior_runs)
    a_q, b_q = _prior(ksel_q, n_sel, prior, prior_runs)

    # 2. test batches
    k_p = k_q = t = 0
    lo_p, hi_q = 0.0, 1.0
    hi_p, lo_q = 1.0, 0.0
    eps_lb = 0.0
    trajectory: list[tuple[int, float]] = []
    reason = "max_samples"
    n_batches = 0
    while n_sel + t < n_max:  # the last batch is cut to the budget
        m = min(b_size, n_max - n_sel - t)
        out_a, out_b = runs(ds, m, "dataset"), runs(nb, m, "neighbour")
        if out_a.shape[1] != out_b.shape[1] or (k_dim is not None and out_a.shape[1] != k_dim):
            raise ValueError(f"outputs on dataset and neighbour have different sizes ({out_a.shape[1]} and {out_b.shape[1]})")
        if stat_fn is None:
            k_dim = out_a.shape[1]
            stat_fn, stat_desc, _ = statistic_function(kind, arg, None, None, k_dim)
        dk_p, dk_q = event_counts(stat_fn(out_a), stat_fn(out_b), chosen)
        k_p, k_q, t = k_p + dk_p, k_q + dk_q, t + m
        n_batches += 1
        lp, up = beta_binomial_confidence_sequence(k_p, t, half, a_p, b_p)
        lq, uq = beta_binomial_confidence_sequence(k_q, t, half, a_q, b_q)
        lo_p, hi_p = max(lo_p, lp), min(hi_p, up)  # running intersection: still covers on the good event
        lo_q, hi_q = max(lo_q, lq), min(hi_q, uq)
        eps_t = math.log((lo_p - delta) / hi_q) if lo_p > delta else 0.0
        eps_lb = max(eps_lb, eps_t, 0.0)
        trajectory.append((t, eps_lb))
        if on_batch is not None:
            on_batch(t, eps_lb)
        if eps_lb > the_claim.epsilon:
            reason = "refuted"
            break
        if target_epsilon is not None and eps_lb >= target_epsilon:
            reason = "target certified"
            break

    used = n_sel + t
    direction = "dataset vs neighbour" if chosen.numerator == "dataset" else "neighbour vs dataset"
    cs = {
        "method": CONFIDENCE_SEQUENCE,
        "alpha_total": alpha,
        "alpha_numerator_side": half,
        "alpha_denominator_side": half,
        "prior": prior if n_sel else "uniform (no selection runs)",
        "prior_numerator": [a_p, b_p],
        "prior_denominator": [a_q, b_q],
        "selection_counts": [ksel_p, ksel_q],
        "p_interval": [lo_p, hi_p],
        "q_interval": [lo_q, hi_q],
        "delta_subtracted": delta,
        "looks": n_batches,
        "selection": selection_info,
    }
    check_a = checks.get("dataset", {"checked": False, "reason": "no runs"})
    check_b = checks.get("neighbour", {"checked": False, "reason": "no runs"})
    how = how_used[-1] if how_used else ""
    return SequentialAuditResult(
        epsilon_lower=float(eps_lb), confidence=conf,
        verdict="refuted" if reason == "refuted" else "not refuted", stopping_reason=reason, claim=the_claim,
        samples_used=used, samples_saved=n_max - used, max_samples=n_max, selection_samples=n_sel,
        test_samples=t, batch=b_size, batches=n_batches, target_epsilon=target_epsilon,
        event=chosen.describe(), threshold=chosen.threshold, direction=direction, statistic=stat_desc,
        numerator_count=k_p, denominator_count=k_q, p_lower=lo_p, q_upper=hi_q, confidence_sequence=cs,
        trajectory=trajectory, sample_consistency=combine_checks(check_a, check_b, how), neighbouring=nb_info,
        seed_entropy=seed_entropy, seconds=time.perf_counter() - t0, assumptions=ASSUMPTIONS,
    )
