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

The machinery lives in the lower modules named above.  :func:`audit` is a thin dispatcher: it checks the
estimator and the options that belong to one route, and calls that route's function in
:mod:`dpsco.verification.auditing.audit_routes` (:func:`~dpsco.verification.auditing.audit_routes.threshold_audit`,
:func:`~dpsco.verification.auditing.audit_routes.gdp_audit`,
:func:`~dpsco.verification.auditing.audit_routes.hockey_stick_audit`), which validates the rest once and runs
the shared steps of :mod:`dpsco.verification.auditing.audit_steps`.  This module re-exports the names earlier
callers import from it (``Event``, ``AuditResult``, ``Mechanism``, the Clopper–Pearson bounds, the sampler
check).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from dpsco.reference.privacy import PrivacyClaim
from dpsco.verification.auditing.audit_routes import ROUTES, gdp_audit, hockey_stick_audit, threshold_audit
from dpsco.verification.auditing.clopper_pearson import (
    CLOPPER_PEARSON_MAX_N,
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower_bound,
)
from dpsco.verification.auditing.events import Event
from dpsco.verification.auditing.results import AuditResult
from dpsco.verification.auditing.samples import Mechanism, SampleInconsistencyError, sampler_consistency
from dpsco.verification.auditing.statistics import DEFAULT_STATISTIC, Statistic
from dpsco.verification.executors import Executor

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
    "gdp_audit",
    "hockey_stick_audit",
    "threshold_audit",
]


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
        The record of the route ``estimator`` names: :func:`threshold_audit`, :func:`gdp_audit` or
        :func:`hockey_stick_audit` (:mod:`dpsco.verification.auditing.audit_routes`), called with the
        parameters that route uses; same inputs and seed, same record.

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
    if not isinstance(estimator, str) or estimator not in ROUTES:
        raise ValueError(
            f"estimator must be 'threshold', 'gdp' or 'hockey-stick' (one-run audits: "
            f"dpsco.verification.auditing.estimators.one_run_audit), got {estimator!r}"
        )
    if selection_score is not None and estimator != "threshold":
        raise ValueError("selection_score must be a callable, with estimator='threshold', no event and no event_from_claim")
    if assume is not None and estimator != "gdp":
        if assume != "gaussian-tradeoff":
            raise ValueError(f"assume must be None or 'gaussian-tradeoff', got {assume!r}")
        raise ValueError("assume='gaussian-tradeoff' applies only with estimator='gdp'")
    if assume_reason is not None and not isinstance(assume_reason, str) and estimator != "gdp":
        raise TypeError(f"assume_reason must be a string or None, got {type(assume_reason).__name__}")
    shared: dict[str, Any] = dict(
        confidence=confidence, statistic=statistic, selection_fraction=selection_fraction, n_thresholds=n_thresholds,
        event=event, seed_entropy=seed_entropy, check_neighbouring=check_neighbouring, epsilon_true=epsilon_true,
        power_family=power_family, workers=workers, event_from_claim=event_from_claim, pilot_fraction=pilot_fraction,
        sample_check_runs=sample_check_runs)
    if estimator == "gdp":
        return gdp_audit(mechanism, dataset, neighbour, claim, n_samples, rng, assume=assume,
                         assume_reason=assume_reason, **shared)
    if estimator == "hockey-stick":
        return hockey_stick_audit(mechanism, dataset, neighbour, claim, n_samples, rng, **shared)
    return threshold_audit(mechanism, dataset, neighbour, claim, n_samples, rng, selection_score=selection_score,
                           **shared)
