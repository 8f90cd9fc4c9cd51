"""Asi, Liu & Tian (2024), "Private Stochastic Convex Optimization with Heavy Tails: Near-Optimality from Simple
Reductions": private SCO when the sample Lipschitz constants have only k bounded moments (Assumption 1), under
ρ-zCDP (the paper's "CDP") and replace-one neighbours.

Modules (every public name is re-exported here; import from this package):

``model``            the problem: per-sample losses f(x; s) and the public moment bounds G_1 ≤ … ≤ G_k
``primitives``       clipping Π_C, the bounded Laplace distribution BLap(R, τ) (exact sampler), Aggregate (Fact 2),
                     the exact projection onto a two-ball intersection
``losses``           the losses of the paper's settings: linear, mean estimation, tilted quadratic, LAD, least
                     squares, logistic GLM, each with its known per-sample Lipschitz bound L̄_s
``theorems``         the paper's bounds as plain functions (Facts, Lemmas 2–18, Propositions 1–4, Corollaries 1–4,
                     Theorems 1–5, the lower bound's shape), corrected where ERRATA.md says so, printed forms reachable
``clipped_sgd``      Algorithm 1 (Clipped-DP-SGD) and the Corollary 1 / Corollary 2 solvers
``localization``     Algorithm 2 (Population-Localize), Algorithm 3 (Aggregate-ERM), the Theorem 1 pipeline (HT-SCO),
                     the Corollary 3 strongly convex wrapper, the Appendix A high-probability procedure
``known_lipschitz``  Algorithm 4 (KnownLipReduction) with a concrete ρ-zCDP A_Lip, Theorem 2's parameters
``one_pass``         Algorithm 5 (OnePass-Clipped-SGD) and Algorithm 8 (OnePass-Clipped-DP-SGD for GLMs)
``svt``              the bounded Laplace mechanism (Lemma 9) and Algorithm 6 (SVT), with exact privacy curves
``localized``        Algorithm 7 (Localized-Clipped-DP-SGD) with ⊥ as a released outcome, Theorem 3's parameters
"""

from dpsco.reference.alt24.model import (
    HeavyTailedLoss, MomentBounds, check_records,
)
from dpsco.reference.alt24.primitives import (
    aggregate, clip, project_ball, project_ball_intersection, sample_bounded_laplace,
)
from dpsco.reference.alt24.losses import (
    LADLoss, LeastSquaresLoss, LinearLoss, LogisticGLMLoss, MeanEstimationLoss, TiltedQuadraticLoss,
    logistic_records,
)
from dpsco.reference.alt24.theorems import (
    C_ERM, C_REG_POP, zcdp_to_dp, dp_to_zcdp, gaussian_zcdp, fact_1_clip_bias_bound, fact_1_tail_mean_bound,
    lemma_2_lipschitz, lemma_3_bias_bound, lemma_3_expected_bias_bound, lemma_4_radius,
    lemma_5_distance_bound, lemma_5_expected_gap, lemma_6_lipschitz_lower_bound, lemma_7_lipschitz,
    lemma_8_bound, corollary_4_bound, lemma_13_bound, proposition_1_bound, corollary_1_radius,
    corollary_2_radius, proposition_2_bound, proposition_3_bound, proposition_4_bound, theorem_1_bound,
    corollary_3_bound, theorem_2_bound, theorem_3_bound, theorem_3_intermediate_bound, theorem_4_coefficient,
    theorem_4_bound, theorem_5_bound, lower_bound_shape, lemma_14_clipped_step, lemma_16_counterexample,
    lemma_18_drift_bounds,
)
from dpsco.reference.alt24.algorithms_clipped_sgd import (
    Corollary1Parameters, clipped_dp_sgd, clipped_dp_sgd_claim, clipped_sgd_core, corollary_1_parameters,
    corollary_1_solver, corollary_2_truncation_radius, corollary_2_solver, grads_at, proposition_1_rho,
    proposition_1_step_sizes, two_ball_projector, zcdp_epsilon,
)
from dpsco.reference.alt24.algorithms_localization import (
    C_RP_DERIVED, Theorem1Parameters, Theorem5Parameters, aggregate_erm, corollary_3_epochs,
    corollary_3_radius, enclosing_ball_of_intersection, highprob_sco, ht_sco, lemma_15_solver,
    population_localize, proposition_2_schedule, sc_sco, theorem_1_blocks, theorem_1_parameters, theorem_1_J,
    theorem_1_claim, theorem_1_gradient_count, theorem_5_parameters,
)
from dpsco.reference.alt24.algorithms_known_lipschitz import (
    a_lip_parameters, known_lip_reduction, lipschitz_dpsco, phased_noisy_gd, theorem_2_clip,
    theorem_2_parameters, truncation_mask, BlockGradients,
)
from dpsco.reference.alt24.algorithms_one_pass import (
    onepass_clipped_sgd, onepass_clipped_dp_sgd, theorem_4_parameters, lemma_8_terms,
)
from dpsco.reference.alt24.algorithms_svt import (
    bounded_laplace_cdf, bounded_laplace_delta, bounded_laplace_epsilon, bounded_laplace_mechanism,
    discrete_delta, discrete_epsilon, lemma_9_tau, lemma_10_parameters, private_sparse_vector, sparse_vector,
    sparse_vector_answer_law, svt_delta, svt_epsilon, svt_output_distribution,
)
from dpsco.reference.alt24.algorithms_localized import (
    LocalizedRelease, Theorem3Parameters, audit_outcome, check_lemma_12, lemma_12_conditions,
    lemma_13_conditions, localized_clipped_dp_sgd, phase_parameters, phase_record_ranges, schedule_gradient_count,
    theorem_3_parameters, theorem_3_proof_bound,
)

__all__ = [
    "BlockGradients", "C_ERM", "C_REG_POP", "C_RP_DERIVED", "Corollary1Parameters", "HeavyTailedLoss",
    "LADLoss", "LeastSquaresLoss", "LinearLoss", "LocalizedRelease", "LogisticGLMLoss", "MeanEstimationLoss",
    "MomentBounds", "Theorem1Parameters", "Theorem3Parameters", "Theorem5Parameters", "TiltedQuadraticLoss",
    "a_lip_parameters", "aggregate", "aggregate_erm", "audit_outcome", "bounded_laplace_cdf",
    "bounded_laplace_delta", "bounded_laplace_epsilon", "bounded_laplace_mechanism", "check_lemma_12",
    "check_records", "clip", "clipped_dp_sgd", "clipped_dp_sgd_claim", "clipped_sgd_core",
    "corollary_1_parameters", "corollary_1_radius", "corollary_1_solver", "corollary_2_radius",
    "corollary_2_solver", "corollary_2_truncation_radius", "corollary_3_bound", "corollary_3_epochs",
    "corollary_3_radius", "corollary_4_bound", "discrete_delta", "discrete_epsilon", "dp_to_zcdp",
    "enclosing_ball_of_intersection", "fact_1_clip_bias_bound", "fact_1_tail_mean_bound", "gaussian_zcdp",
    "grads_at", "highprob_sco", "ht_sco", "known_lip_reduction", "lemma_10_parameters", "lemma_12_conditions",
    "lemma_13_bound", "lemma_13_conditions", "lemma_14_clipped_step", "lemma_15_solver",
    "lemma_16_counterexample", "lemma_18_drift_bounds", "lemma_2_lipschitz", "lemma_3_bias_bound",
    "lemma_3_expected_bias_bound", "lemma_4_radius", "lemma_5_distance_bound", "lemma_5_expected_gap",
    "lemma_6_lipschitz_lower_bound", "lemma_7_lipschitz", "lemma_8_bound", "lemma_8_terms", "lemma_9_tau",
    "lipschitz_dpsco", "localized_clipped_dp_sgd", "logistic_records", "lower_bound_shape",
    "onepass_clipped_dp_sgd", "onepass_clipped_sgd", "phase_parameters", "phase_record_ranges", "phased_noisy_gd",
    "population_localize", "private_sparse_vector", "project_ball", "project_ball_intersection",
    "proposition_1_bound", "proposition_1_rho", "proposition_1_step_sizes", "proposition_2_bound",
    "proposition_2_schedule", "proposition_3_bound", "proposition_4_bound", "sample_bounded_laplace",
    "sc_sco", "schedule_gradient_count", "sparse_vector", "sparse_vector_answer_law", "svt_delta", "svt_epsilon", "svt_output_distribution", "theorem_1_J",
    "theorem_1_blocks", "theorem_1_bound", "theorem_1_claim", "theorem_1_gradient_count",
    "theorem_1_parameters", "theorem_2_bound", "theorem_2_clip", "theorem_2_parameters", "theorem_3_bound",
    "theorem_3_intermediate_bound", "theorem_3_parameters", "theorem_3_proof_bound", "theorem_4_bound",
    "theorem_4_coefficient", "theorem_4_parameters", "theorem_5_bound", "theorem_5_parameters",
    "truncation_mask", "two_ball_projector", "zcdp_epsilon", "zcdp_to_dp",
]
