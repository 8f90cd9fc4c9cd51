"""Privacy-audit estimators beyond the assumption-free ε threshold bound, each labelled with what it assumes.

Every estimator turns *counts* (or a one-run guess tally) into a one-sided lower bound that holds with a
stated confidence; :func:`dpsco.verification.auditing.audit.audit` (``estimator=``) and :func:`audit_family`
wire them to mechanisms.  Notation: P, Q are the output distributions on the numerator and denominator
datasets of a neighbouring pair, E is an event fixed independently of the counts (sample splitting,
docs/derivations.md#soundness-of-the-sample-split-threshold-audit), k_p ~ Binomial(n_p, P(E)),
k_q ~ Binomial(n_q, Q(E)), and P_lo, Q_hi are one-sided Clopper–Pearson bounds at level
a = (1 − confidence)/2 each, so that P_lo <= P(E) and Q_hi >= Q(E) hold together with probability
>= confidence (union bound).

This module gathers the estimators' public names; each lives in a module of its own:

``threshold`` (assumption-free; :mod:`dpsco.verification.auditing.clopper_pearson`)
    ε_lb = log((P_lo − δ)/Q_hi).  (ε, δ)-DP gives P(E) <= e^ε Q(E) + δ for every E, so ε_lb <= ε.

``gdp`` (:mod:`dpsco.verification.auditing.gdp`: :func:`gdp_mu_lower_bound`, :func:`gdp_epsilon_lower_bound`)
    μ_lb = Φ⁻¹(P_lo) − Φ⁻¹(Q_hi), assumption-free as a bound on μ; its conversion ε_μ(μ_lb, δ) is a lower
    bound on ε at δ **only if the mechanism's trade-off curve is Gaussian** (reported as
    ``epsilon_lower_assuming_gaussian_tradeoff`` next to :func:`gaussian_shape_check`'s plausibility flag).

``hockey-stick`` (:mod:`dpsco.verification.auditing.hockey_stick`: :func:`hockey_stick_delta_lower_bound`)
    For a fixed ε: δ_lb = P_lo − e^ε Q_hi <= H_{e^ε}(P ‖ Q) = δ(ε).  Assumption-free.

``one-run`` (:mod:`dpsco.verification.auditing.one_run`: :func:`one_run_p_value`,
:func:`one_run_epsilon_lower_bound`, :func:`one_run_audit`)
    Steinke, Nasr & Jagielski 2023: m canaries, each included independently with probability 1/2, one run.
    Assumption-free apart from the protocol.  **Saturates** (:func:`one_run_saturation`).

Also here: the family audit over pairs × statistics (:mod:`dpsco.verification.auditing.family`), statistics
with known densities (:mod:`dpsco.verification.auditing.statistics`), events placed from the claim
(:mod:`dpsco.verification.auditing.claim_events`) and the choice of the strongest sound estimator
(:mod:`dpsco.verification.auditing.estimator_choice`).

References
----------
* M. Nasr, S. Song, A. Thakurta, N. Papernot, N. Carlini. Adversary instantiation: lower bounds for
  differentially private machine learning. IEEE S&P 2021 (arXiv 2101.04535).
* J. Dong, A. Roth, W. Su. Gaussian differential privacy. JRSS-B 2022.
* M. Nasr, J. Hayes, T. Steinke, B. Balle, F. Tramèr, M. Jagielski, N. Carlini, A. Terzis. Tight auditing of
  differentially private machine learning. USENIX Security 2023 (arXiv 2302.07956) — the GDP route.
* T. Steinke, M. Nasr, M. Jagielski. Privacy auditing with one (1) training run. NeurIPS 2023.
"""

from __future__ import annotations

from dpsco.verification.auditing.claim_events import (
    CLAIM_EVENT_FAMILIES,
    claim_event,
    claim_optimal_threshold,
    location_scale,
)
from dpsco.verification.auditing.estimator_choice import audit_kwargs, choose_estimator
from dpsco.verification.auditing.family import FamilyAuditResult, audit_family, p_value_of_counts
from dpsco.verification.auditing.gdp import (
    ASSUMPTIONS_STATABLE,
    GAUSSIAN_TRADEOFF,
    SHAPE_QUANTILES,
    gaussian_shape_check,
    gdp_epsilon_from_mu,
    gdp_epsilon_lower_bound,
    gdp_mu_lower_bound,
)
from dpsco.verification.auditing.hockey_stick import hockey_stick_delta_lower_bound
from dpsco.verification.auditing.one_run import (
    OneRunResult,
    one_run_audit,
    one_run_epsilon_lower_bound,
    one_run_p_value,
    one_run_saturation,
)
from dpsco.verification.auditing.results import ESTIMATOR_ASSUMPTIONS, ESTIMATORS
from dpsco.verification.auditing.statistics import gaussian_likelihood_ratio, likelihood_ratio_statistic

__all__ = [
    "ESTIMATORS",
    "ESTIMATOR_ASSUMPTIONS",
    "gdp_mu_lower_bound",
    "gdp_epsilon_from_mu",
    "gdp_epsilon_lower_bound",
    "hockey_stick_delta_lower_bound",
    "gaussian_shape_check",
    "SHAPE_QUANTILES",
    "ASSUMPTIONS_STATABLE",
    "GAUSSIAN_TRADEOFF",
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
]
