"""Catalogue entries of Asi, Chadha, Cheng & Duchi (2022), "Private optimization in the interpolation regime:
faster rates and hardness results" (arXiv:2210.17070), in the paper's order of algorithms: Algorithm 1 (the
Lipschitzian-extension algorithm, with Algorithm 5 inside), Algorithm 2 (domain and Lipschitz localisation),
Algorithm 3 (adaptive to interpolation), Algorithm 4 (localisation; Asi, Levy & Duchi 2021), Algorithm 5
(epoch-based, κ-growth) and Algorithm 6 (κ-growth, κ > 2).

Interpolation problems with synthetic instances of known minimisers and pure/approximate DP claims do not fit the
campaign's common phases (the Fair data are not an interpolation problem), so every entry brings its own suite
(``CatalogueEntry.suite``):

* privacy (``accd22_privacy``): white-box audits of every noisy phase output of the transcript (exact likelihood
  ratio of the transcript between the neighbours, σ_i from public inputs, event fixed in advance, Clopper–Pearson)
  on an interpolating pair and on a non-interpolating pair (an outlier record) — privacy must hold on both — an
  access-log check that every record enters exactly one regularised ERM, the exact sensitivity of the phase
  holding the differing record, and the noise actually drawn (``accd22_noise``: replayed residuals against the
  public schedule's σ_i, Laplace and Gaussian, with the planted "reports the scale, draws it/√2" copies refuted);
  the planted bugs (no extension, clipping on a non-GLM loss, overlapping batches, a sloppy inner solver) are
  refuted by the same audits;
* utility (``accd22_utility``): the headline claim (near-exponential decay on interpolation problems with growth,
  polynomial decay on the non-interpolating twin, plotted in the report), adaptivity of Algorithm 3, κ-growth
  (Algorithm 6), Proposition 1.2, and the lower bounds of Theorems 1 and 4 as privacy sanity checks for every
  algorithm (truncated at a range comparable to the bound, so that they refute each algorithm's planted
  noise-free copy); the envelopes that hold by construction of a projection are recorded as diagnostics.
"""

from __future__ import annotations

from dpsco.reference.accd22 import algorithm_1, algorithm_2, algorithm_3, algorithm_4, algorithm_5, algorithm_6
from dpsco.verification.papers.accd22 import privacy as privacy
from dpsco.verification.papers.accd22 import utility as utility
from dpsco.verification.papers.registry import BudgetCost, CatalogueEntry, EntrySuite, SuiteTask

__all__ = ["ENTRIES", "ORDER", "PAPER"]

PAPER = "Asi, Chadha, Cheng & Duchi (2022)"
#: the catalogue's order of the paper's entries (the order of its algorithms)
ORDER: tuple[str, ...] = ("accd22.algorithm_1", "accd22.algorithm_2", "accd22.algorithm_3", "accd22.algorithm_4",
                          "accd22.algorithm_5", "accd22.algorithm_6")

_COSTS = {b: BudgetCost(audit_runs=0, replicates=1, rate_runs=max(2, s["runs"]), stability_runs=1)
          for b, s in utility.SIZES.items()}
_AUDIT_NOTE = ("audited white-box in its own suite: the exact likelihood ratio of the whole transcript (every noisy "
               "phase output) on an interpolating and on a non-interpolating neighbouring pair; no black-box audit "
               "on the Fair data (not an interpolation problem)")
_UTILITY_NOTE = ("utility checks run with explicit, recorded utility overrides (m, radius constants, eta_scale; "
                 "privacy-neutral) because the paper's constants make T = n/m < 1 at every practical n")


def _privacy(name: str) -> SuiteTask:
    return SuiteTask("privacy", privacy.privacy_task(name), 2.0)


def _lower(k: str) -> SuiteTask:
    """Theorems 1 and 4 as privacy sanity checks (``accd22_utility.lower_bound_algorithm_k``)."""
    return SuiteTask("lower_bound", getattr(utility, f"lower_bound_algorithm_{k}"), 1.0)


ENTRIES: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        name="accd22.algorithm_1", title="Lipschitzian-extension algorithm (M = Algorithm 5)", paper=PAPER,
        algorithm_ref="Algorithm 1 (exact extension F_L, Definition 2.5)",
        privacy_theorem="Proposition 1.1 (ε-DP / (ε, δ)-DP for every dataset of convex losses)",
        utility_theorem="Proposition 1.2 (Algorithm 5's on L-Lipschitz data), Theorems 6 / 7", run=algorithm_1,
        costs=_COSTS, planted_bugs=("algorithm_5_reused_epochs", "accd22_algorithm_1_draws_sigma_over_sqrt2",
                      "accd22_algorithm_1_draws_laplace_scale_over_sqrt2", "accd22_algorithm_1_without_noise", "accd22_algorithm_1_step_off_by_one", "algorithm_1_without_extension"), rate_exponent=None,
        notes="F_L in closed form (Huber for least squares); equals ℓ2 clipping only for GLM and radial losses.",
        audit_note=_AUDIT_NOTE,
        suite=EntrySuite(tasks=(_privacy("algorithm_1"),
                                SuiteTask("proposition_1_2", utility.extension_identity_task, 0.3), _lower("1")),
                         description="white-box transcript audits on interpolating and non-interpolating pairs; "
                                     "access log; Proposition 1.2 exactly")),
    CatalogueEntry(
        name="accd22.algorithm_2", title="Domain and Lipschitz localisation", paper=PAPER,
        algorithm_ref="Algorithm 2 (Algorithm 1 in each epoch)", privacy_theorem="Theorem 2 (privacy part)",
        utility_theorem="Theorem 2, eq. (3)–(4) (shape: near-exponential in n)", run=algorithm_2, costs=_COSTS,
        planted_bugs=("algorithm_2_without_extension", "accd22_algorithm_2_draws_sigma_over_sqrt2",
                      "accd22_algorithm_2_draws_laplace_scale_over_sqrt2", "accd22_algorithm_2_without_noise", "accd22_algorithm_2_step_off_by_one", "algorithm_2_reused_epochs"), rate_exponent=None,
        notes=_UTILITY_NOTE, audit_note=_AUDIT_NOTE,
        suite=EntrySuite(tasks=(_privacy("algorithm_2"), SuiteTask("headline", utility.headline_task, 2.0),
                                _lower("2")),
                         description="white-box transcript audits in both regimes; the headline claim (exponential "
                                     "vs polynomial, plotted); Theorems 1 and 4's lower bounds as privacy sanity checks")),
    CatalogueEntry(
        name="accd22.algorithm_3", title="Adaptive to interpolation", paper=PAPER,
        algorithm_ref="Algorithm 3 (line 2 on X, L, x_0)",
        privacy_theorem="Theorem 3.1 (ε-DP) / Theorem 9.1 ((ε, δ)-DP)",
        utility_theorem="Theorems 3.2–3.3 / 9 (shape)", run=algorithm_3, costs=_COSTS,
        planted_bugs=("algorithm_2_without_extension", "accd22_algorithm_3_draws_sigma_over_sqrt2",
                      "accd22_algorithm_3_draws_laplace_scale_over_sqrt2", "accd22_algorithm_3_without_noise", "accd22_algorithm_3_step_off_by_one", "algorithm_3_reused_epochs"), rate_exponent=None, notes=_UTILITY_NOTE,
        audit_note=_AUDIT_NOTE,
        suite=EntrySuite(tasks=(_privacy("algorithm_3"), SuiteTask("adaptivity", utility.adaptivity_task, 2.0),
                                _lower("3")),
                         description="white-box transcript audits in both regimes; adaptivity on an interpolating "
                                     "instance and its non-interpolating twin (plotted)")),
    CatalogueEntry(
        name="accd22.algorithm_4", title="Localisation-based algorithm", paper=PAPER,
        algorithm_ref="Algorithm 4 (App. A.2; Asi, Levy & Duchi 2021), certified inner solver",
        privacy_theorem="Propositions 2 (ε-DP) / 3 ((ε, δ)-DP)", utility_theorem="Propositions 2 / 3",
        run=algorithm_4, costs=_COSTS,
        planted_bugs=("algorithm_4_sloppy_solver", "algorithm_4_clipped_gradients", "algorithm_5_reused_epochs",
                      "algorithm_2_without_extension", "accd22_algorithm_4_draws_sigma_over_sqrt2",
                      "accd22_algorithm_4_draws_laplace_scale_over_sqrt2", "accd22_algorithm_4_without_noise", "accd22_algorithm_4_step_off_by_one"),
        rate_exponent=None, notes="ε_i = ε (undefined in the printed line 7); noisy outputs projected.",
        audit_note=_AUDIT_NOTE,
        suite=EntrySuite(tasks=(_privacy("algorithm_4"),
                                SuiteTask("planted_bugs", privacy.planted_bugs_task, 3.0),
                                _lower("4")),
                         description="white-box phase and transcript audits in both regimes; the paper's four planted "
                                     "bugs (sloppy solver, clipping on a non-GLM loss, overlapping batches, no "
                                     "extension) refuted by the same audits; Theorems 1 and 4's lower bounds as "
                                     "privacy sanity checks")),
    CatalogueEntry(
        name="accd22.algorithm_5", title="Epoch-based algorithm for κ-growth", paper=PAPER,
        algorithm_ref="Algorithm 5 (App. A.2; Asi, Levy & Duchi 2021, Algorithm 2), batches s_{i n0+1..(i+1) n0}",
        privacy_theorem="Theorems 6 (ε-DP) / 7 ((ε, δ)-DP)", utility_theorem="Theorems 6 / 7 (shape)",
        run=algorithm_5, costs=_COSTS,
        planted_bugs=("algorithm_5_reused_epochs", "accd22_algorithm_5_draws_sigma_over_sqrt2",
                      "accd22_algorithm_5_draws_laplace_scale_over_sqrt2", "accd22_algorithm_5_without_noise", "accd22_algorithm_5_step_off_by_one", "algorithm_5_without_extension"), rate_exponent=None,
        notes="Runs on the Lipschitzian extension (the paper's 'Lipschitz (clipping) constant'): Algorithm 1.",
        audit_note=_AUDIT_NOTE,
        suite=EntrySuite(tasks=(_privacy("algorithm_5"), _lower("5")),
                         description="white-box transcript audits in both regimes; the overlapping-batches bug "
                                     "refuted (its polynomial rate on the twin is the headline task's)")),
    CatalogueEntry(
        name="accd22.algorithm_6", title="Epoch-based algorithm for κ-growth, κ > 2", paper=PAPER,
        algorithm_ref="Algorithm 6 (App. C.1), Algorithm 1 in each epoch",
        privacy_theorem="Theorem 8 (privacy part; needs the extension)", utility_theorem="Theorem 8 (shape)",
        run=algorithm_6, costs=_COSTS,
        planted_bugs=("algorithm_2_without_extension", "accd22_algorithm_6_draws_sigma_over_sqrt2",
                      "accd22_algorithm_6_draws_laplace_scale_over_sqrt2", "accd22_algorithm_6_without_noise", "accd22_algorithm_6_step_off_by_one", "algorithm_6_reused_epochs", "algorithm_6_epochs_rounded_up"), rate_exponent=None,
        notes=_UTILITY_NOTE, audit_note=_AUDIT_NOTE,
        suite=EntrySuite(tasks=(_privacy("algorithm_6"), SuiteTask("kappa_growth", utility.kappa_growth_task, 1.0),
                                _lower("6")),
                         description="white-box transcript audits in both regimes; Theorem 8's schedule; slopes "
                                     "against Algorithm 5 on a κ = 3 instance (plotted)")),
)

assert tuple(e.name for e in ENTRIES) == ORDER
