"""Privacy auditing: the threshold auditor, the ε estimators, sample-size planning and the construction
of neighbouring datasets.

Modules, from the bottom up (each imports only modules above it in this list, never one below):

``clopper_pearson``   one-sided Clopper–Pearson bounds and the ε lower bound built on them
``inputs``            the claim, the datasets and the neighbouring check
``samples``           drawing runs; the consistency check of a batched ``sample``
``statistics``        scalar statistics of the outputs (projection, norm, logistic, likelihood ratios)
``events``            threshold events and their selection on selection runs
``results``           :class:`AuditResultBase` (every audit route's result), :class:`AuditResult`, what each
                      estimator assumes
``gdp``               the Gaussian-DP route (μ bound, ε conversion, shape check)
``hockey_stick``      the δ-side route
``one_run``           one-run audits with canaries (Steinke, Nasr & Jagielski 2023)
``power``             expected bounds of mechanism families, minimum detectable ε
``claim_events``      events placed from the claim
``estimator_choice``  the strongest sound estimator for a declared mechanism
``audit_steps``       the steps the auditor's routes share: validation, drawing, event selection, the record
``audit_routes``      the estimator routes: :func:`threshold_audit`, :func:`gdp_audit`, :func:`hockey_stick_audit`
``audit``             :func:`audit`, the auditor: a thin dispatcher to the routes
``curves``            trade-off curves implied by GDP, (ε, δ), zCDP, RDP claims and dp_accounting events
``curve_audit``       :func:`audit_curve`: refute a whole curve when the (FPR, FNR) box lies below it
``family``            audits of a searched family of pairs and statistics at one confidence
``estimators``        the estimators' public names in one place
``planning``          samples needed to certify r·ε; the sample-cost table
``neighbours``        neighbouring datasets at the extremes of a declared data domain (a ball or a box)
``pair_search``       candidate neighbouring pairs ranked on pilot runs, the best tested on fresh runs
``sequential``        anytime-valid sequential audits that stop as soon as the verdict is certain
``white_box``         white-box audits of noisy-gradient methods (the adversary sees every noisy gradient)

The names below are the public API.  Note that ``dpsco.verification.auditing.audit`` as an *attribute* of
this package is the function :func:`audit`; import the module's other names with
``from dpsco.verification.auditing.audit import ...``.
"""

from __future__ import annotations

from dpsco.verification.auditing.audit import (
    CLOPPER_PEARSON_MAX_N,
    AuditResult,
    Event,
    Mechanism,
    SampleInconsistencyError,
    audit,
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower_bound,
    gdp_audit,
    hockey_stick_audit,
    sampler_consistency,
    threshold_audit,
)
from dpsco.verification.auditing.results import AuditResultBase
from dpsco.verification.auditing.curve_audit import (
    CurveAuditResult,
    audit_curve,
    curve_box,
    curve_refutes,
    epsilon_lower_from_box,
    minimum_detectable_mu,
    mu_lower_from_box,
    rho_lower_from_box,
)
from dpsco.verification.auditing.curves import (
    CURVE_NOTIONS,
    CurveClaim,
    dp_tradeoff,
    family_tradeoff,
    gdp_tradeoff,
    rdp_delta,
    zcdp_delta,
    zcdp_tradeoff,
)
from dpsco.verification.auditing.estimators import (
    ASSUMPTIONS_STATABLE,
    CLAIM_EVENT_FAMILIES,
    ESTIMATOR_ASSUMPTIONS,
    ESTIMATORS,
    GAUSSIAN_TRADEOFF,
    FamilyAuditResult,
    OneRunResult,
    audit_family,
    audit_kwargs,
    choose_estimator,
    claim_event,
    claim_optimal_threshold,
    gaussian_likelihood_ratio,
    gaussian_shape_check,
    gdp_epsilon_from_mu,
    gdp_epsilon_lower_bound,
    gdp_mu_lower_bound,
    hockey_stick_delta_lower_bound,
    likelihood_ratio_statistic,
    location_scale,
    one_run_audit,
    one_run_epsilon_lower_bound,
    one_run_p_value,
    one_run_saturation,
    p_value_of_counts,
)
from dpsco.verification.auditing.neighbours import (BoxBounds, CanaryPair, Domain, canary_pair, extreme_points,
                                                    in_domain, n_deterministic_extreme_points, replace_one_extreme)
from dpsco.verification.auditing.neighbour_pairs import (NeighbourPair, add_remove_pairs, sign_flip_pairs,
                                                         worst_case_pairs)
from dpsco.verification.auditing.pair_search import (
    PairSearchResult,
    pair_search_audit,
    parse_interval_bounds,
    search_pairs,
)
from dpsco.verification.auditing.planning import (
    FAMILIES,
    ROUTES,
    Plan,
    expected_epsilon_lower_bound,
    family_parameters,
    minimum_detectable_epsilon,
    sample_cost_table,
    samples_needed,
)
from dpsco.verification.auditing.white_box import (
    DiracCanary,
    OneSidedCanary,
    PlacedEvent,
    WhiteBoxAuditResult,
    white_box_audit,
)
from dpsco.verification.auditing.sequential import (
    CONFIDENCE_SEQUENCE,
    SequentialAuditResult,
    beta_binomial_confidence_sequence,
    beta_binomial_log_martingale,
    projected_event,
    sequential_audit,
)

__all__ = [
    # the auditor, its routes and the result type every audit route shares
    "audit",
    "threshold_audit",
    "gdp_audit",
    "hockey_stick_audit",
    "AuditResult",
    "AuditResultBase",
    "Event",
    "Mechanism",
    "SampleInconsistencyError",
    "sampler_consistency",
    # curve audits
    "audit_curve",
    "CurveAuditResult",
    "CurveClaim",
    "CURVE_NOTIONS",
    "curve_box",
    "curve_refutes",
    "epsilon_lower_from_box",
    "minimum_detectable_mu",
    "mu_lower_from_box",
    "rho_lower_from_box",
    "dp_tradeoff",
    "family_tradeoff",
    "gdp_tradeoff",
    "rdp_delta",
    "zcdp_delta",
    "zcdp_tradeoff",
    # Clopper-Pearson bounds
    "CLOPPER_PEARSON_MAX_N",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
    # estimators
    "ESTIMATORS",
    "ESTIMATOR_ASSUMPTIONS",
    "ASSUMPTIONS_STATABLE",
    "GAUSSIAN_TRADEOFF",
    "gdp_mu_lower_bound",
    "gdp_epsilon_from_mu",
    "gdp_epsilon_lower_bound",
    "gaussian_shape_check",
    "hockey_stick_delta_lower_bound",
    "likelihood_ratio_statistic",
    "gaussian_likelihood_ratio",
    "one_run_p_value",
    "one_run_epsilon_lower_bound",
    "one_run_saturation",
    "one_run_audit",
    "OneRunResult",
    "audit_family",
    "FamilyAuditResult",
    "p_value_of_counts",
    "CLAIM_EVENT_FAMILIES",
    "claim_optimal_threshold",
    "claim_event",
    "location_scale",
    "choose_estimator",
    "audit_kwargs",
    # planning
    "FAMILIES",
    "ROUTES",
    "Plan",
    "family_parameters",
    "expected_epsilon_lower_bound",
    "minimum_detectable_epsilon",
    "samples_needed",
    "sample_cost_table",
    # neighbouring datasets
    "CanaryPair",
    "NeighbourPair",
    "add_remove_pairs",
    "canary_pair",
    "extreme_points",
    "replace_one_extreme",
    "sign_flip_pairs",
    "worst_case_pairs",
    "BoxBounds",
    "Domain",
    "in_domain",
    "n_deterministic_extreme_points",
    # searching for the worst pair
    "PairSearchResult",
    "pair_search_audit",
    "parse_interval_bounds",
    "search_pairs",
    # sequential audits
    "CONFIDENCE_SEQUENCE",
    "SequentialAuditResult",
    "beta_binomial_confidence_sequence",
    "beta_binomial_log_martingale",
    "projected_event",
    "sequential_audit",
    # white-box audits of noisy-gradient methods
    "DiracCanary",
    "OneSidedCanary",
    "PlacedEvent",
    "WhiteBoxAuditResult",
    "white_box_audit",
]
