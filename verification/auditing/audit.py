"""Black-box empirical privacy auditor: an ε lower bound, with stated confidence, from output samples.

The auditor runs a mechanism many times on two neighbouring datasets S (``dataset``) and S'
(``neighbour``), and looks for an event E of the output space with

    P[M(S) ∈ E] > e^ε · P[M(S') ∈ E] + δ,

which would contradict an (ε, δ)-DP claim.  It is the threshold auditor with Clopper–Pearson bounds of
Nasr et al. 2021 (arXiv 2101.04535; also jax_privacy's ``Split`` strategy), with sample splitting instead of
a union bound over the threshold grid:

1. draw ``n_samples`` outputs on each dataset (``mechanism.sample`` when available — batched, after a
   consistency check against ``mechanism(data, rng)``, :mod:`dpsco.verification.auditing.samples` —
   otherwise a loop of ``mechanism(data, rng)``), flatten each output to a vector;
2. split each side into a *selection* half and a *test* half;
3. on the selection half only: choose a scalar statistic s (default: projection on the difference of the
   selection-half means; :mod:`dpsco.verification.auditing.statistics`) and an event E ∈ {s ≥ τ}, {s ≤ τ},
   in either direction (S vs S' or S' vs S), by maximising the Clopper–Pearson ε bound computed on the
   selection half (at the Bonferroni level over the candidates, which curbs the winner's curse) over a grid
   of thresholds τ (empirical order statistics, dense in both tails; :mod:`dpsco.verification.auditing.events`);
4. on the test half: one-sided Clopper–Pearson bounds, a lower bound P_lo on P(E) (numerator side) and an
   upper bound Q_hi on Q(E) (denominator side), each at level (1 − confidence)/2, and

       ε_lb = log((P_lo − δ)/Q_hi)   (0 if P_lo <= δ).

**Guarantee.**  If the mechanism is (ε, δ)-DP for the claim's neighbouring relation and S, S' are
neighbours under it, then P(ε_lb > ε) <= 1 − confidence: the statistic, the event and the direction are
functions of the selection halves only, which are independent of the test halves, and only *one* event is
tested on the test half, so no multiplicity correction is needed
(docs/derivations.md#soundness-of-the-sample-split-threshold-audit).  The bound is one-sided: "not refuted"
never proves privacy.

**Verdicts rest on assumption-free bounds only.**  ``epsilon_lower`` and the verdict always come from the
bound above (or, for a GDP claim with μ, the assumption-free μ bound; for ``estimator="hockey-stick"`` the
assumption-free δ bound).  The Gaussian-DP conversion ε_μ(μ_lb, δ) is a lower bound only if the mechanism's
trade-off curve is Gaussian (:mod:`dpsco.verification.auditing.gdp`); it is reported as
``epsilon_lower_assuming_gaussian_tradeoff`` and decides the verdict only when the caller states that
assumption (``assume="gaussian-tradeoff"``), which the result records together with a plausibility check of
the Gaussian shape (``gdp.gaussian_shape_check``).  A second event (the one chosen for the GDP figure) may be
tested on the same test half: each bound holds with its own confidence, and the verdict uses exactly one of
them.

Variant without a selection half (``event_from_claim``): a 1 % pilot fixes the statistic, the direction and a
location/scale, and the threshold is placed where it would be optimal if the mechanism sat exactly on the
claimed privacy curve (:func:`dpsco.verification.auditing.claim_events.claim_optimal_threshold`); the one
event is tested on all other runs.  The guarantee holds verbatim with "selection half" read as "pilot" (the
pilot is independent of the test runs); the family assumption affects only power.

Requirements for the guarantee: the ``n_samples`` runs on each side are independent (``sample`` must return
i.i.d. draws — checked for duplicated rows and for the marginal law, not for every form of dependence) and
the mechanism's randomness comes only from ``rng``; the datasets are neighbours (checked for replace-one /
add/remove by default, treating axis 0 of every array as the record axis;
:mod:`dpsco.verification.auditing.inputs`).

The machinery lives in the lower modules named above; this module re-exports the names earlier callers
import from it (``Event``, ``AuditResult``, ``Mechanism``, the Clopper–Pearson bounds, the sampler check).
"""

from __future__ import annotations

import math
import time
from numbers import Integral, Real
from typing import Any, Callable, Mapping

import numpy as np

from dpsco.reference.privacy import PrivacyClaim
from dpsco.reference.validation import check_rng
from dpsco.verification.executors import Executor
from dpsco.verification.auditing.claim_events import claim_optimal_threshold, location_scale
from dpsco.verification.auditing.clopper_pearson import (
    CLOPPER_PEARSON_MAX_N,
    check_confidence,
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower_bound,
)
from dpsco.verification.auditing.events import Event, candidate_thresholds, event_counts, select_event, threshold_counts
from dpsco.verification.auditing.gdp import gaussian_shape_check, gdp_epsilon_lower_bound
from dpsco.verification.auditing.hockey_stick import hockey_stick_delta_lower_bound
from dpsco.verification.auditing.inputs import as_claim, check_dataset, check_neighbouring_pair
from dpsco.verification.auditing.power import minimum_detectable_epsilon
from dpsco.verification.auditing.results import ESTIMATOR_ASSUMPTIONS, AuditResult
from dpsco.verification.auditing.samples import (
    Mechanism,
    SampleInconsistencyError,
    checked_draw,
    reproducibility_check,
    combine_checks,
    sampler_consistency,
)
from dpsco.verification.auditing.statistics import (DEFAULT_STATISTIC, Statistic, parse_statistic,
                                                       select_statistic_and_event, statistic_function)

__all__ = [
    "AuditResult",
    "CLOPPER_PEARSON_MAX_N",
    "Event",
    "Mechanism",
    "SampleInconsistencyError",
    "sampler_consistency",
    "audit",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
]

ESTIMATOR_SPLIT = "Clopper-Pearson threshold audit, event selected on an independent half (sample splitting)"
ESTIMATOR_FIXED = "Clopper-Pearson threshold audit, event fixed in advance (no selection)"
ESTIMATOR_CLAIM = (
    "Clopper-Pearson threshold audit, event placed from the claim ({family} family on the claimed curve; "
    "direction, location and scale from a pilot of {n_pilot} runs per side), tested on all other runs"
)
#: what the threshold route's number assumes (the prefix that other routes' assumption strings replace)
ASSUMPTIONS = ESTIMATOR_ASSUMPTIONS["threshold"]


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


def audit(
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
    estimator: str = "threshold",
    epsilon_true: float | None = None,
    power_family: str | None = "auto",
    workers: int | Executor | None = None,
    event_from_claim: str | None = None,
    pilot_fraction: float | None = None,
    assume: str | None = None,
    assume_reason: str | None = None,
    sample_check_runs: int | None = None,
    selection_score: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
) -> AuditResult:
    """Audit a privacy claim: an ε lower bound with confidence ``confidence`` from neighbouring runs.

    If the mechanism satisfies the claim on this neighbouring pair, the returned ``epsilon_lower`` exceeds
    ``claim.epsilon`` (verdict "refuted") with probability at most 1 − ``confidence``; more generally
    P(ε_lb > ε) <= 1 − confidence for every ε for which the mechanism is (ε, claim.delta)-DP (sample
    splitting + one-sided Clopper–Pearson bounds on an independent test half;
    docs/derivations.md#soundness-of-the-sample-split-threshold-audit).

    Parameters
    ----------
    mechanism : callable ``f(data, rng) -> array``, optionally with ``sample(data, n, rng) -> (n, k)``
        The mechanism under audit; ``data`` is a read-only copy of ``dataset`` or ``neighbour``.
    dataset, neighbour : dict of str -> array
        The neighbouring pair S, S' (same keys).  Axis 0 of each array is the record axis.
    claim : PrivacyClaim or (epsilon, delta)
        A tuple is read as a replace-one approx-DP claim (pure DP if δ = 0) with source "user-declared".
        Claims with notion "none" are refused.  For zCDP/GDP claims the (ε, δ) fields are audited; to audit
        the whole curve (μ-GDP, ρ-zCDP, RDP, a dp_accounting event) use
        :func:`dpsco.verification.auditing.curve_audit.audit_curve` (same calling convention).
    n_samples : int
        Runs per side (>= 4 with selection; >= 2 with an explicit ``event``).
    rng : numpy.random.Generator
        The only source of randomness.
    confidence : float in (0, 1), default 0.95
    statistic : "auto" | "projection" | "norm" | "logistic" | "classifier" | "coordinate:<i>" | callable
        Scalar statistic of a flattened output.  "auto" (default): the best of a small family chosen on the
        selection half — location (the projection below), scale (distance to the pooled centre), extremes
        (largest standardised coordinate) and, for outputs of 4 to 100 coordinates with scikit-learn
        installed, a learned classifier (``dpsco.verification.auditing.statistics``); the projection where no
        selection half exists.  "projection": the output itself when it is 1-D, else the projection on the
        unit vector along mean(selection, S) − mean(selection, S').  "classifier": a scikit-learn classifier's
        log-odds on [x, x²], trained on the selection half (extra ``dpsco[classifier]``).
        "logistic": a logistic-regression classifier on [x, x²] trained on the selection half.  For an
        exact likelihood ratio pass :func:`dpsco.verification.auditing.statistics.likelihood_ratio_statistic`.
        A callable maps an (N, k) array of outputs to (N,) finite values; it must not look at the samples
        beyond its argument (it is applied to the selection and the test halves separately).
    selection_fraction : float in (0, 1), optional
        Fraction of each side used to choose the statistic and the event.  Default 0.5, except 0.2 for
        ``estimator="gdp"`` (for a Gaussian trade-off curve every threshold has the same μ, so a small
        selection half suffices and the test half is larger: measured mean ε_lb 0.929 vs 0.911 at 1e5 runs
        per side, Gaussian mechanism calibrated to (1, 1e-5), 30 seeds).
    n_thresholds : int >= 3
        Size of the candidate threshold grid (order statistics of the pooled selection statistics,
        geometrically dense towards both tails, where small-δ events live).
    event : Event, optional
        Test this event, fixed in advance, on *all* samples (no selection half).
    seed_entropy : int, optional
        Recorded in the result; by default read from ``rng.bit_generator.seed_seq`` when available.
    check_neighbouring : bool, default True
        Refuse pairs that are not neighbours under ``claim.neighbouring`` (a non-neighbouring pair can
        "refute" a true claim).
    estimator : "threshold" | "gdp" | "hockey-stick", default "threshold"
        ``"threshold"``: the assumption-free ε bound above (the default, unchanged).  ``"gdp"`` (needs
        δ > 0): two events are chosen on the selection half, one by the threshold criterion and one by the
        μ criterion, and both are tested on the test half.  ``epsilon_lower`` is the assumption-free ε bound
        of the first; ``mu_lower`` = Φ⁻¹(P_lo) − Φ⁻¹(Q_hi) of the second (assumption-free as a bound on
        μ-GDP) and ``epsilon_lower_assuming_gaussian_tradeoff`` = ε_μ(μ_lb, δ), a bound on the mechanism's ε
        at δ **only if its trade-off curve is Gaussian**.  The verdict: on μ_lb for a GDP claim with ``mu``
        set; on the Gaussian figure only with ``assume="gaussian-tradeoff"``; otherwise on
        ``epsilon_lower``.  The Gaussian shape is checked on the selection half
        (:func:`dpsco.verification.auditing.gdp.gaussian_shape_check`, ``gaussian_shape_plausible``).
        ``"hockey-stick"``: δ_lb = P_lo − e^ε Q_hi at the claim's ε (``delta_lower``; assumption-free),
        verdict "refuted" iff δ_lb > claim δ; ``epsilon_lower`` is the threshold ε bound of the same event.
        The event is selected on the selection half by each estimator's own criterion.  Proofs:
        :mod:`dpsco.verification.auditing.gdp`, :mod:`dpsco.verification.auditing.hockey_stick`.
    epsilon_true : float >= 0, optional
        The exact ε of the audited mechanism at the claim's δ, when computable (``dpsco.oracles.privacy_curves``):
        recorded next to ε_lb with the ratio ε_lb/ε_true (``tightness_ratio``).
    power_family : "auto" | "laplace" | "gaussian" | "randomized-response" | None, default "auto"
        Report the minimum detectable violation at the test-half size used: the smallest exact ε of a
        mechanism of this family (1-D, pair at distance = its sensitivity) for which the expected ε_lb,
        with the best event, exceeds the claim's ε
        (:func:`dpsco.verification.auditing.power.minimum_detectable_epsilon`).
        "auto": Laplace for δ = 0, Gaussian for δ > 0.  None: skip.  A planning number under the family's
        shape, not a property of the audited mechanism.
    workers : int >= 1, Executor or None, optional
        For mechanisms without ``sample``, where the single runs are drawn: None or 1 in this process, k > 1
        in a local process pool of k processes (the mechanism must be picklable), or an
        :class:`~dpsco.verification.executors.Executor` such as ``DaskExecutor("tcp://HOST:8786")``.  The runs
        are split into tasks by their number alone (:func:`dpsco.verification.auditing.samples.task_sizes`),
        task i drawing from child i of a SeedSequence seeded by ``rng``, so the result is the same on every
        executor and worker count.
    event_from_claim : "gaussian" | "laplace", optional
        Replace the selection half by a *claim-placed* event: a small pilot (``pilot_fraction`` of the runs
        per side) fixes the statistic (the projection direction when k > 1), which side has the larger
        statistic (the numerator; tail "ge") and the denominator side's location/scale (mean/sd for
        "gaussian", median/mean absolute deviation for "laplace"); the threshold is location + scale·t*,
        t* = :func:`dpsco.verification.auditing.claim_events.claim_optimal_threshold` — the best standardised
        threshold *if the mechanism sat exactly on the claimed privacy curve* with this family's shape,
        computed from the claim's ε, δ, the test size and the confidence only.  That one event is tested on all remaining runs
        (no selection, no multiplicity).  **Sound for any mechanism** (the event is a function of the pilot
        runs, independent of the test runs; same proof as the split); only its *power* assumes the family.
        Measured: Gaussian mechanism calibrated to (1, 1e-5), 1e6 runs per side, threshold route: mean
        ε_lb 0.76 against 0.70 with the default split (docs/auditing.md).  Not combinable with ``event``
        or ``selection_fraction``.
    pilot_fraction : float in (0, 1), optional
        Pilot share with ``event_from_claim`` (default 0.01; at least 2 runs per side).
    assume : "gaussian-tradeoff", optional
        With ``estimator="gdp"``: the caller states that the mechanism's trade-off curve on this pair is
        Gaussian (true for Gaussian noise added to a deterministic computation without post-processing).
        Only then may the verdict rest on ``epsilon_lower_assuming_gaussian_tradeoff``; the result records
        the assumption (``assumption``), and if the shape check finds the Gaussian shape implausible it says
        so in ``warnings`` (the verdict is then only as good as the assumption).
    assume_reason : str, optional
        Why the assumption holds (recorded), e.g. the declaration that led ``choose_estimator`` to it.
    sample_check_runs : int >= 0, optional
        Reference single runs per side for the check of a batched ``sample`` (:func:`sampler_consistency`).
        Default: up to 200, stopping early (after at least 6) once max(2 s, a tenth of the time the
        ``sample`` call took) has passed, so that costly mechanisms stay auditable; the number used is
        recorded.  An explicit value runs exactly that many (reproducible bit for bit); 0 skips the check
        (the result then says the sampler was trusted unchecked).  Raises
        :class:`SampleInconsistencyError` if the check fails.
    selection_score : callable ``(p_lo, q_hi) -> scores``, optional
        Only with ``estimator="threshold"`` and a selection half: choose the event by this criterion (larger is
        better) of the selection-half bounds P_lo, Q_hi (arrays, each at the Bonferroni level of the default
        criterion) over the same thresholds, tails and directions.  Power only: the event is still a function
        of the selection half.  Used by the curve audit
        (:func:`dpsco.verification.auditing.curve_audit.audit_curve`) to pick the event for a whole curve.

    Returns
    -------
    AuditResult

    Raises
    ------
    TypeError, ValueError
        Bad claim, datasets, sizes, confidence or statistic; non-neighbouring datasets; mechanism outputs
        of inconsistent shape or with NaN/inf; :class:`SampleInconsistencyError` (a ValueError) when
        ``sample`` disagrees with single runs.

    References
    ----------
    Nasr et al. 2021 (arXiv 2101.04535) for the Clopper–Pearson ε estimator; jax_privacy's ``Split``
    strategy for sample splitting; Dong, Roth & Su 2022 and Nasr et al. 2023 (arXiv 2302.07956) for the
    Gaussian-DP route; Massart 1990 (the DKW constant) for the sampler check.
    """
    t0 = time.perf_counter()
    the_claim = as_claim(claim)
    if estimator not in ("threshold", "gdp", "hockey-stick"):
        raise ValueError(
            f"estimator must be 'threshold', 'gdp' or 'hockey-stick' (one-run audits: "
            f"dpsco.verification.auditing.estimators.one_run_audit), got {estimator!r}"
        )
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
    if selection_score is not None and (not callable(selection_score) or estimator != "threshold"
                                        or event is not None or event_from_claim is not None):
        raise ValueError("selection_score must be a callable, with estimator='threshold', no event and no event_from_claim")
    if estimator == "gdp" and the_claim.delta == 0.0:
        raise ValueError("estimator='gdp' needs a claim with delta > 0 (a mu-GDP mechanism is not (eps, 0)-DP)")
    if assume is not None:
        if assume != "gaussian-tradeoff":
            raise ValueError(f"assume must be None or 'gaussian-tradeoff', got {assume!r}")
        if estimator != "gdp":
            raise ValueError("assume='gaussian-tradeoff' applies only with estimator='gdp'")
    if assume_reason is not None and not isinstance(assume_reason, str):
        raise TypeError(f"assume_reason must be a string or None, got {type(assume_reason).__name__}")
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
        n_sel = max(2, int(math.floor(n * float(pilot_fraction))))  # type: ignore[arg-type]
        if n - n_sel < 2:
            raise ValueError(f"n_samples={n} with pilot_fraction={pilot_fraction} leaves {n - n_sel} test runs; need >= 2")
    else:
        if selection_fraction is None:
            selection_fraction = 0.2 if estimator == "gdp" else 0.5
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
    sample_consistency = combine_checks(check_a, check_b, how)
    if out_a.shape[1] != out_b.shape[1]:
        raise ValueError(f"outputs on dataset and neighbour have different sizes ({out_a.shape[1]} and {out_b.shape[1]})")
    k = out_a.shape[1]

    # 2. split (runs are i.i.d., so a positional split is a random split)
    sel_a, test_a = out_a[:n_sel], out_a[n_sel:]
    sel_b, test_b = out_b[:n_sel], out_b[n_sel:]
    n_test = n - n_sel
    delta = float(the_claim.delta)
    half_alpha = (1.0 - conf) / 2.0

    # 3. selection (selection halves only).  ``chosen`` is the event behind epsilon_lower (threshold criterion,
    # except for hockey-stick, whose verdict is its own δ bound); the GDP route also chooses ``chosen_gdp``
    # by the μ criterion for its assumption-dependent figure.
    stat_fn, stat_desc, stat_info = statistic_function(
        kind, arg, sel_a if n_sel else None, sel_b if n_sel else None, k
    )
    claim_event_info: dict[str, Any] | None = None
    chosen_gdp: Event | None = None
    main_kind = "hockey-stick" if estimator == "hockey-stick" else "threshold"
    if event_from_claim is not None:
        s_pa, s_pb = stat_fn(sel_a), stat_fn(sel_b)
        loc_a, scale_a = location_scale(s_pa, event_from_claim)
        loc_b, scale_b = location_scale(s_pb, event_from_claim)
        numerator = "dataset" if loc_a >= loc_b else "neighbour"
        loc_den, scale_den = (loc_b, scale_b) if numerator == "dataset" else (loc_a, scale_a)
        opt = claim_optimal_threshold(
            event_from_claim, the_claim.epsilon, the_claim.delta, n - n_sel, route="threshold", confidence=conf,
        )
        chosen = Event(loc_den + scale_den * opt["t"], "ge", numerator)  # type: ignore[arg-type]
        if estimator == "gdp":
            opt_g = claim_optimal_threshold(
                event_from_claim, the_claim.epsilon, the_claim.delta, n - n_sel, route="gdp", confidence=conf,
            )
            chosen_gdp = Event(loc_den + scale_den * opt_g["t"], "ge", numerator)  # type: ignore[arg-type]
        sel_score, n_cand = float("nan"), 1
        estimator_desc = ESTIMATOR_CLAIM.format(family=event_from_claim, n_pilot=n_sel)
        claim_event_info = {
            "family": event_from_claim, "n_pilot": n_sel, "standardised_threshold": opt["t"],
            "claim_curve_shift": opt["shift"], "model_p": opt["p"], "model_q": opt["q"],
            "model_expected_bound": opt["expected_bound"], "pilot_location_scale": {
                "dataset": [loc_a, scale_a], "neighbour": [loc_b, scale_b]},
            "power_assumption": (f"the event is the best one if the statistic were {event_from_claim} with the "
                                 "claimed privacy curve; validity does not depend on it"),
        }
        if chosen_gdp is not None:
            claim_event_info["gdp_standardised_threshold"] = opt_g["t"]
    elif event is None and selection_score is not None:
        chosen, sel_score, n_cand = _select_by_score(stat_fn(sel_a), stat_fn(sel_b), selection_score, half_alpha,
                                                     int(n_thresholds))
        estimator_desc = ESTIMATOR_SPLIT + " (event chosen by the caller's selection_score)"
    elif event is None:
        if kind == "auto":   # the default family, chosen on the selection half (statistics module docstring)
            stat_fn, stat_desc, stat_info, chosen, sel_score, n_cand = select_statistic_and_event(
                kind, arg, sel_a, sel_b, k, delta, half_alpha, int(n_thresholds), main_kind, the_claim.epsilon)
            s_sa, s_sb = stat_fn(sel_a), stat_fn(sel_b)
        else:
            s_sa, s_sb = stat_fn(sel_a), stat_fn(sel_b)
            chosen, sel_score, n_cand = select_event(
                s_sa, s_sb, delta, half_alpha, int(n_thresholds), main_kind, the_claim.epsilon
            )
        if estimator == "gdp":
            chosen_gdp, _, _ = select_event(s_sa, s_sb, delta, half_alpha, int(n_thresholds), "gdp", the_claim.epsilon)
        estimator_desc = ESTIMATOR_SPLIT
    else:
        chosen, sel_score, n_cand = event, float("nan"), 0
        if estimator == "gdp":
            chosen_gdp = event
        estimator_desc = ESTIMATOR_FIXED

    # 4. test half
    s_ta, s_tb = stat_fn(test_a), stat_fn(test_b)
    k_p, k_q = event_counts(s_ta, s_tb, chosen)
    p_lo = float(clopper_pearson_lower(k_p, n_test, half_alpha))
    q_hi = float(clopper_pearson_upper(k_q, n_test, half_alpha))
    eps_lb = float(epsilon_lower_bound(k_p, n_test, k_q, n_test, delta, conf))
    p_hat, q_hat = k_p / n_test, k_q / n_test
    plug_in = math.log((p_hat - delta) / q_hat) if (p_hat > delta and q_hat > 0) else (math.inf if p_hat > delta else 0.0)

    mu_lb: float | None = None
    eps_gauss: float | None = None
    delta_lb: float | None = None
    shape: dict[str, Any] | None = None
    assumption_rec: dict[str, Any] | None = None
    warnings: list[str] = [] if repro["reproducible"] else [repro["note"]]
    gdp_info: dict[str, Any] | None = None
    verdict_basis = "refuted iff epsilon_lower (assumption-free Clopper-Pearson threshold bound) > claim epsilon"
    assumptions = ASSUMPTIONS
    if event_from_claim is not None:
        assumptions = ASSUMPTIONS + (f"; the event's placement (power only, not validity) assumes a {event_from_claim} "
                                     "statistic on the claimed privacy curve")
    verdict = "refuted" if eps_lb > the_claim.epsilon else "not refuted"
    if estimator != "threshold":
        assumptions = ESTIMATOR_ASSUMPTIONS[estimator] + assumptions[len(ASSUMPTIONS):]
        if estimator == "gdp":
            assert chosen_gdp is not None
            g_p, g_q = event_counts(s_ta, s_tb, chosen_gdp)
            eps_gauss, mu_lb = gdp_epsilon_lower_bound(g_p, n_test, g_q, n_test, delta, conf)
            gdp_info = {
                "event": chosen_gdp.describe(), "threshold": chosen_gdp.threshold, "tail": chosen_gdp.tail,
                "numerator": chosen_gdp.numerator, "numerator_count": g_p, "denominator_count": g_q,
                "p_lower": float(clopper_pearson_lower(g_p, n_test, half_alpha)),
                "q_upper": float(clopper_pearson_upper(g_q, n_test, half_alpha)),
                "mu_lower": mu_lb, "epsilon_lower_assuming_gaussian_tradeoff": eps_gauss,
            }
            if n_sel >= 2:
                shape = gaussian_shape_check(stat_fn(sel_a), stat_fn(sel_b))
            else:
                shape = {"plausible": None, "reason": "not checked: no selection or pilot runs (explicit event)"}
            estimator_desc = estimator_desc.replace(
                "Clopper-Pearson threshold audit",
                "Gaussian-DP (f-DP) audit: epsilon_lower from a Clopper-Pearson threshold event, mu from the "
                "Clopper-Pearson (FPR, FNR) bounds of a second event, converted to epsilon at delta only under "
                "the Gaussian trade-off assumption")
            if the_claim.notion == "GDP" and the_claim.mu is not None:
                verdict = "refuted" if mu_lb > float(the_claim.mu) else "not refuted"
                verdict_basis = "refuted iff mu_lower (assumption-free bound on mu) > claim mu"
            elif assume is not None:
                verdict = "refuted" if eps_gauss > the_claim.epsilon else "not refuted"
                verdict_basis = ("refuted iff epsilon_lower_assuming_gaussian_tradeoff > claim epsilon, valid only under the "
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
            assumptions += "; verdict: " + verdict_basis
        else:
            delta_lb = float(hockey_stick_delta_lower_bound(k_p, n_test, k_q, n_test, the_claim.epsilon, conf))
            estimator_desc = estimator_desc.replace("Clopper-Pearson threshold audit", "hockey-stick delta-side audit: delta lower bound P_lo - e^eps Q_hi at the claimed eps")
            verdict = "refuted" if delta_lb > delta else "not refuted"
            verdict_basis = "refuted iff delta_lower (assumption-free hockey-stick bound at the claimed epsilon) > claim delta"
    if not sample_consistency.get("checked", False) and sample_consistency.get("trusted_unchecked"):
        assumptions += "; the batched sample() was trusted without the consistency check (sample_check_runs=0)"
    direction = "dataset vs neighbour" if chosen.numerator == "dataset" else "neighbour vs dataset"
    details: dict[str, Any] = {
        "event": chosen.describe(),
        "tail": chosen.tail,
        "numerator": chosen.numerator,
        "n_selection": n_sel,
        "n_test": n_test,
        "numerator_count": k_p,
        "denominator_count": k_q,
        "p_lower": p_lo,
        "q_upper": q_hi,
        "p_hat": p_hat,
        "q_hat": q_hat,
        "plug_in_epsilon_test": plug_in,
        "selection_score": sel_score,
        "n_candidate_thresholds": n_cand,
        "per_bound_alpha": half_alpha,
        "claim_delta_subtracted": delta,
        "output_dimension": k,
        "sampler": how,
        "neighbouring": nb_info,
        "seed_spawn_key": list(spawn_key),
        "sampling_seconds": sampling_seconds,
        **stat_info,
    }
    if gdp_info is not None:
        details["gdp"] = gdp_info
    if shape is not None:
        details["gaussian_shape"] = shape
    if claim_event_info is not None:
        details["event_from_claim"] = claim_event_info
    mde: float | None = None
    if power_family is not None:
        fam = power_family if power_family != "auto" else ("laplace" if delta == 0.0 else "gaussian")
        # the power of the bound that decides the verdict
        route = "gdp" if (estimator == "gdp" and assume is not None and fam == "gaussian") else "threshold"
        if fam == "laplace" and delta > 0.0:
            fam = "gaussian"
        try:
            mde = minimum_detectable_epsilon(fam, n_test, the_claim.epsilon, delta, route=route, confidence=conf)
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
    details["total_seconds"] = time.perf_counter() - t0
    neighbouring_audited = nb_info.get("relation") if nb_info.get("checked") else None
    return AuditResult(
        epsilon_lower=eps_lb,
        confidence=conf,
        samples=n,
        claim=the_claim,
        verdict=verdict,
        estimator=estimator_desc,
        statistic=stat_desc,
        threshold=chosen.threshold,
        direction=direction,
        assumptions=assumptions,
        seed_entropy=seed_entropy,
        details=details,
        estimator_kind=estimator,
        mu_lower=mu_lb,
        delta_lower=delta_lb,
        epsilon_true=None if epsilon_true is None else float(epsilon_true),
        minimum_detectable_epsilon=mde,
        epsilon_lower_assuming_gaussian_tradeoff=eps_gauss,
        gaussian_shape_plausible=None if shape is None else shape.get("plausible"),
        assumption=assumption_rec,
        verdict_basis=verdict_basis,
        neighbouring_audited=neighbouring_audited,
        sample_consistency=sample_consistency,
        warnings=warnings,
        reproducible=repro["reproducible"],
    )
