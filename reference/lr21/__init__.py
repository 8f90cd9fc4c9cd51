"""Lowy and Razaviyayn (2021): output perturbation for strongly convex objectives (Algorithm 1), with
regularisation for convex ones (Algorithm 2), and its applications: tilted ERM, ℓ2-robust ERM and adversarial
training (Algorithm 3).

    A. Lowy, M. Razaviyayn. "Output Perturbation for Differentially Private Convex Optimization with
    Improved Population Loss Bounds, Runtimes and Applications to Private Adversarial Training."
    Proceedings of the AAAI Conference on Artificial Intelligence (AAAI 2021), with its Supplemental
    Material (arXiv:2102.04704).

Algorithms
----------
``algorithm_1``   Alg. 1, output perturbation for μ-strongly convex F (privacy Prop. 2.1; utility Thms 2.1,
                  2.2, 0.2, 0.3, 3.1, 3.2).
``algorithm_2``   Alg. 2, with regularisation λ for convex F (privacy Prop. 2.2; Thms 2.3, 2.4, 0.4, 0.5, 3.3, 3.4).
``tilted_erm``    Alg. 1 on the tilted objective F_τ with Δ_{F_τ} of Lemma 0.5 (Props 4.1, 4.2; Lemmas 4.1, 4.2).
``robust_erm``    Alg. 3 with the exact (closed-form) inner maximisation of ℓ2-robust logistic / least-squares
                  models, i.e. Alg. 1 on G_D (Sec. 4, Def. 1–3; privacy as Prop. 2.1 applied to G_D,
                  docs/derivations.md#privacy-of-algorithm-3-needs-only-a-certified-gap).
``algorithm_3``   Alg. 3, adversarial training as a min-max problem, with a certified saddle-point solver
                  (extragradient) on the linear adversarial games of docs/derivations.md#linear-adversarial-games
                  (privacy "same arguments", Sec. 4; utility Thm 4.1, which needs G_D smooth — ERRATA.md LR21-E9).

Inner methods 𝓜 (each with its iteration count as a plain function, and a gradient counter on the objective):
``subgradient_method`` (η_t = 2/(μ(t+1)), Prop. 0.1), ``accelerated_gradient`` (Nesterov AGD, Bubeck Thm 3.18),
``stochastic_subgradient_method`` (Thm 3.1/3.3), ``katyusha`` (Allen-Zhu 2018, Thm 3.2/3.4).  The stochastic two
also run k independent copies at once (``stochastic_subgradient_method_replicates``, ``katyusha_replicates``,
each copy certified on its own by ``certified_inner_replicates``): ``replicates=k`` of Algorithms 1 and 2.

The domain.  Every objective is minimised over W = B(0, R) (``problem.domain``).  The paper minimises over
R^d and asks R to exceed every minimiser's norm by 1; Lemma 0.2 — the sensitivity lemma — is stated for any
closed convex W, so with constrained minimisers the sensitivity bounds hold for *every* public R and the
privacy guarantee no longer rests on R being a valid universe-wide bound (ERRATA.md LR21-D1).  When R is valid in
the paper's sense the constrained and unconstrained minimisers coincide and nothing changes.

Privacy rests on a certificate, never on accuracy in expectation
----------------------------------------------------------------
The proofs of Props 2.1/2.2 need ‖w_T − w*‖ ≤ √(2α/modulus) on *every* run.  After 𝓜 returns w_T, an
a-posteriori certificate (:func:`dpsco.reference.glm_certificate.certify`, duality gap / strong-convexity gap; for
the Sec. 4 objectives :func:`strong_convexity_certificate` and :func:`saddle_certificate`) must bound
‖w_T − w*‖ by √(2α/modulus); otherwise (``fallback="certified_solver"``, default) w_T is replaced by the output
of the certified solver (which certifies its own distance), or (``fallback="refuse"``)
:class:`dpsco.reference.certificates.UncertifiedError` is raised.  The noise is calibrated with the public α
before the data is read, so the released distribution never depends on which path was taken; the claim states
the radius √(2α/modulus) the gate enforces.  What a release publishes is a function of public inputs only: the
certificate reached and the path taken are diagnostics (never published), and ``gradient_evaluations`` is the
count the inner method's schedule prescribes (``inner_schedule_count``, ``extragradient_schedule_count``), the
count performed is in ``nonprivate_internals["gradient_evaluations_performed"]``.  After the data checks the
algorithms never raise with the default fallback: should even the certified solver miss the radius (floating point
on extreme inputs), the best point found is released and ``diagnostics["certified"]`` is False.  (The running
time — the full gradients group equal records, the saddle solver equal adversary blocks — and
``fallback="refuse"``'s exception are side channels outside the claim; with the theorem's T for the deterministic
methods the certificate normally passes.)  For δ > 0 the
claim also carries the noise as a ``dp_accounting`` event, ``GaussianDpEvent(σ/Δ_T)`` under ADD_OR_REMOVE_ONE
(:func:`noise_event`), so that ε can be re-derived and composed; the ℓ2-Laplace noise of δ = 0 has no event.

Departures from the printed text (each also in ERRATA.md's LR section, with the test that shows it)
---------------------------------------------------------------------------------------------------
* LR21-E1  Alg. 2 line 2 noise uses Δ_λ + 2√(2ε/λ): we use 2√(2α/λ) (proof of Prop. 2.2); printed reachable via
  ``sensitivity_T(..., printed="alg2")``.
* LR21-E2  Alg. 2 line 2, δ > 0: printed density has σ_Zhao/√2; we use Zhao's σ (``noise.zhao_sigma``).
* LR21-E3  Alg. 3 line 2, δ > 0: Δ + 2α/μ printed; we use Δ + 2√(2α/μ) (``printed="alg3"``).
* LR21-E4  Prop. 4.2: C_τ printed, C_τ² follows from Lemma 0.5 + Thm 0.3 (``proposition_4_2_bound(printed=...)``).
* LR21-E5  Thm 0.4-2b: α = LR(s_δ/n)^{3/2} breaks the constant 25 unless s_δ ≲ 1; corrected /(1 + s_δ)².
* LR21-E6  Prop. 4.1 (δ = 0) α breaks the constant 9; corrected α = (L²C_τ/μ)min{C_τ/n², s₀/n}.
* LR21-E7  Iteration counts that do not reach the printed α (Thm 3.3's T; Thm 2.4a's α is the larger branch
  of Thm 0.5's min): the rigorous counts are the defaults, the printed ones are separate functions.
* LR21-E11 Thm 0.3/0.5 "E⟨∇F(w_T), Π(w_T + z) − w_T⟩ = 0" is false when the projection is active; we provide
  the rigorous master bounds (``master_bound_*``); ``theorem_0_3_bound`` adds the projection term (printed form
  via ``printed=True``); the final constants of Thms 0.3/0.5 survive.
* LR21-E12 Thm 0.4-2b's first statement drops the factor (1 + 2s_δ) (``theorem_0_4_general_bound(printed=...)``).
* LR21-E13 Thm 3.1-2's printed T and bound are √-scope garbles (``theorem_3_1_parameters/bound(printed=True)``).
* LR21-E14 Supplement Thm 0.1's c is misprinted (``noise.c_delta(printed=True)``, never real).
* Integer T: ⌈·⌉ everywhere; AGD uses projected steps (Nesterov 2018, §2.2.4) so iterates stay in B(0, R).

Modules
-------
``release``         what Algorithms 1–3 share: the up-front checks, the claim, line 2's noise and its event.
``algorithms``      Algorithms 1 and 2 and their ``*_parameters`` (the pseudo-code).
``applications``    Sec. 4: ``tilted_erm``, ``robust_erm``, Algorithm 3 and their ``*_parameters``; the catalogue's
                    calling convention for the last two (``robust_erm_from_problem``, ``algorithm_3_from_problem``).
``inner_solvers``   the inner methods 𝓜, the saddle-point solver and the certified inner step (line 1).
``objectives``      the objectives 𝓜 minimises (GLM, tilted, ℓ2-robust, linear adversarial games) and their
                    certificates.
``theorems``        the paper's sensitivities, parameter choices, iteration counts and bounds.
Every public name of these modules is importable from this package; import it from here.
"""

from __future__ import annotations

from dpsco.reference.lr21.theorems import (
    SensitivityMode, subgradient_iterations, agd_iterations, katyusha_gradient_order, sensitivity_alg1,
    sensitivity_alg2, sensitivity_T, theorem_0_2_bound, theorem_0_3_bound, theorem_2_1_parameters, theorem_2_1_bound,
    theorem_2_2_parameters, theorem_2_2_bound, theorem_0_4_lambda, theorem_0_4_alpha, theorem_0_4_bound,
    theorem_0_4_general_bound, theorem_2_3_parameters, theorem_2_3_bound, theorem_0_5_lambda, theorem_0_5_alpha,
    theorem_0_5_bound, theorem_2_4_parameters, theorem_2_4_bound, theorem_3_1_parameters, theorem_3_1_bound,
    theorem_3_2_bound, theorem_3_3_parameters, theorem_3_3_bound, theorem_3_4_bound, lemma_0_5_sensitivity,
    lemma_4_2_smoothness, proposition_4_1_alpha, proposition_4_1_bound, proposition_4_2_bound, theorem_4_1_alpha,
    theorem_4_1_bound, theorem_4_1_gradient_order, master_bound_lipschitz_alg1, master_bound_smooth_alg1,
    master_bound_lipschitz_alg2, master_bound_smooth_alg2, master_bound_population,
)
from dpsco.reference.lr21.objectives import (
    GLMObjective, TiltedObjective, RobustObjective, LinearAdversarialProblem, LinearAdversarialGame,
    strong_convexity_certificate, saddle_certificate, adversarial_objective, glm_loss_range, tilted_constants,
    robust_constants, robust_losses,
)
from dpsco.reference.lr21.inner_solvers import (
    Method, Fallback, FALLBACKS, subgradient_method, accelerated_gradient, stochastic_subgradient_method, katyusha,
    REPLICATE_BLOCK, GATHER_STEPS, stochastic_subgradient_method_replicates, katyusha_replicates, InnerResult,
    certified_inner, FALLBACK_PATH, STOCHASTIC_METHODS, certified_inner_replicates,
    CERTIFICATE_PRECISION_FLOOR, check_certifiable, inner_schedule_count,
)
from dpsco.reference.lr21.extragradient import (
    extragradient_step_size, extragradient_iterations, extragradient, extragradient_schedule_count,
)
from dpsco.reference.lr21.algorithms import (
    PAPER, noise_event, algorithm_1_parameters, algorithm_1, algorithm_2_parameters, algorithm_2,
)
from dpsco.reference.lr21.applications import (
    tilted_erm_parameters, tilted_erm, robust_erm_parameters, robust_erm, algorithm_3_parameters, algorithm_3,
    robust_erm_from_problem, algorithm_3_from_problem,
)
from dpsco.reference.solvers import certified_first_order

__all__ = [
    "SensitivityMode",
    "subgradient_iterations",
    "agd_iterations",
    "katyusha_gradient_order",
    "sensitivity_alg1",
    "sensitivity_alg2",
    "sensitivity_T",
    "theorem_0_2_bound",
    "theorem_0_3_bound",
    "theorem_2_1_parameters",
    "theorem_2_1_bound",
    "theorem_2_2_parameters",
    "theorem_2_2_bound",
    "theorem_0_4_lambda",
    "theorem_0_4_alpha",
    "theorem_0_4_bound",
    "theorem_0_4_general_bound",
    "theorem_2_3_parameters",
    "theorem_2_3_bound",
    "theorem_0_5_lambda",
    "theorem_0_5_alpha",
    "theorem_0_5_bound",
    "theorem_2_4_parameters",
    "theorem_2_4_bound",
    "theorem_3_1_parameters",
    "theorem_3_1_bound",
    "theorem_3_2_bound",
    "theorem_3_3_parameters",
    "theorem_3_3_bound",
    "theorem_3_4_bound",
    "lemma_0_5_sensitivity",
    "lemma_4_2_smoothness",
    "proposition_4_1_alpha",
    "proposition_4_1_bound",
    "proposition_4_2_bound",
    "theorem_4_1_alpha",
    "theorem_4_1_bound",
    "theorem_4_1_gradient_order",
    "master_bound_lipschitz_alg1",
    "master_bound_smooth_alg1",
    "master_bound_lipschitz_alg2",
    "master_bound_smooth_alg2",
    "master_bound_population",
    "GLMObjective",
    "TiltedObjective",
    "RobustObjective",
    "LinearAdversarialProblem",
    "LinearAdversarialGame",
    "strong_convexity_certificate",
    "saddle_certificate",
    "adversarial_objective",
    "glm_loss_range",
    "tilted_constants",
    "robust_constants",
    "robust_losses",
    "Method",
    "Fallback",
    "FALLBACKS",
    "subgradient_method",
    "accelerated_gradient",
    "stochastic_subgradient_method",
    "katyusha",
    "REPLICATE_BLOCK",
    "GATHER_STEPS",
    "stochastic_subgradient_method_replicates",
    "katyusha_replicates",
    "InnerResult",
    "certified_inner",
    "CERTIFICATE_PRECISION_FLOOR",
    "check_certifiable",
    "FALLBACK_PATH",
    "STOCHASTIC_METHODS",
    "certified_inner_replicates",
    "extragradient_step_size",
    "extragradient_iterations",
    "extragradient",
    "inner_schedule_count",
    "extragradient_schedule_count",
    "PAPER",
    "noise_event",
    "algorithm_1_parameters",
    "algorithm_1",
    "algorithm_2_parameters",
    "algorithm_2",
    "tilted_erm_parameters",
    "tilted_erm",
    "robust_erm_parameters",
    "robust_erm",
    "algorithm_3_parameters",
    "algorithm_3",
    "robust_erm_from_problem",
    "algorithm_3_from_problem",
    "certified_first_order",
]
