"""The planted "reports σ, draws σ/√2" bugs of Bassily et al. (2019) and Lowy & Razaviyayn (2021), as corpus
entries (``dpsco.verification.mutants.corpus`` merges :data:`GLM_NOISE_BUGS` into ``CORPUS``).

Each mutant is ``dpsco.verification.mutants.noise_scale.under_noised`` applied to the entry's algorithm
(``mutants.bftt19``, ``mutants.lr21``): σ is computed from public inputs as it should be and reported in the
parameters, the claim and the white-box trace, and σ/√2 is drawn.  A check that recomputes ε from the reported σ
passes it; the measured-noise check of the entry's privacy harness (``verification/papers/bftt19/harness.py``,
``lr21_harness.py``) replays the noise from the white-box transcript — the noisy gradients minus the step function
at the run's iterates (Algorithm 1's family), the perturbation G recovered from the released minimiser by
Algorithm 2's optimality condition (A_ObjP), the released point minus the unperturbed centre (output perturbation)
— and refutes it: with k ≥ 1,000 residuals the one-sided χ² test at α = 1e-7 misses σ/√2 with probability
``miss_probability(k, 1/√2)`` ≤ 5.5e-28 (exact, ``dpsco.verification.checks.noise``).
"""

from __future__ import annotations

import dpsco.reference.bftt19 as o
import dpsco.reference.lr21 as lr
from dpsco.verification.mutants.bftt19 import bugs as mb
from dpsco.verification.mutants.lr21 import bugs as ml
from dpsco.verification.mutants.planted import PaperTestBug

__all__ = ["GLM_NOISE_BUGS"]

_TESTS = ("tests/test_glm_harness.py::test_measured_noise_catches_each_sigma_over_sqrt2_mutant",
          "tests/test_privacy_contract.py::test_measured_noise_passes_and_the_sigma_over_sqrt2_bug_fails")
_PRECEDENT = ("a noise scale applied twice or to the wrong quantity (σ on the variance, a √2 of the Gaussian "
              "density's exponent) while the reported σ is right; only a measurement of the noise sees it")


def _bug(name: str, mutant: object, correct: object, paper: str, what: str, instance: str, replay: str,
         k: int) -> PaperTestBug:
    return PaperTestBug(
        name, mutant, correct, paper, f"{what}: reports the calibrated σ, draws σ/√2", _PRECEDENT, instance,
        "the claimed mechanism with σ/√2: its Gaussian part's μ = Δ/σ grows by √2 (ρ by 2) and the ε at the "
        "claim's δ by roughly √2; invisible to a check that reads σ from the release",
        f"measured-noise check (dpsco.verification.checks.noise, one-sided χ² at α = 1e-7) of the {replay}, "
        f"k = {k:,} residuals, miss probability ≤ 5.5e-28 (exact)", _TESTS)


GLM_NOISE_BUGS: dict[str, PaperTestBug] = {b.name: b for b in [
    _bug("noisy_sgd_draws_sigma_over_sqrt2", mb.noisy_sgd_draws_sigma_over_sqrt2, o.noisy_sgd, "bftt19",
         "A_NSGD (Algorithm 1)", "logistic, n = 40, d = 2, every record ((0.6, 0.8), +1), 200 white-box runs",
         "noisy gradients minus the step function at the run's iterates", 1200),
    _bug("moreau_noisy_sgd_draws_sigma_over_sqrt2", mb.moreau_noisy_sgd_draws_sigma_over_sqrt2, o.moreau_noisy_sgd,
         "bftt19", "A_NSGD on the Moreau envelope (Thm 4.4)",
         "logistic, n = 40, d = 2, every record ((0.6, 0.8), +1), 200 white-box runs",
         "noisy envelope gradients minus the step function at the run's iterates", 1200),
    _bug("prox_noisy_sgd_draws_sigma_over_sqrt2", mb.prox_noisy_sgd_draws_sigma_over_sqrt2, o.prox_noisy_sgd, "bftt19",
         "A_ProxGD (Sec. 4)", "logistic, n = 40, d = 2, every record ((0.6, 0.8), +1), 200 white-box runs",
         "noisy approximate envelope gradients minus the step function at the run's iterates", 1200),
    _bug("objective_perturbation_draws_sigma_over_sqrt2", mb.objective_perturbation_draws_sigma_over_sqrt2, o.objective_perturbation,
         "bftt19", "A_ObjP (Algorithm 2)", "logistic, n = 400, d = 2, records ((0.6, 0.8), ±1) alternating, 500 runs",
         "perturbation G = −n(∇L̂(ŵ) + 2λŵ) replayed from each released ŵ", 1000),
    _bug("efficient_objective_perturbation_draws_sigma_over_sqrt2", mb.efficient_objective_perturbation_draws_sigma_over_sqrt2,
         o.efficient_objective_perturbation, "bftt19", "efficient objective perturbation (Sec. 5)",
         "logistic, n = 2000, d = 2, records ((0.6, 0.8), ±1) alternating, 500 runs",
         "output noise: released point minus the certified Prox-SVRG point w̃", 1000),
    _bug("algorithm_1_draws_sigma_over_sqrt2", ml.algorithm_1_draws_sigma_over_sqrt2, lr.algorithm_1, "lr21",
         "Algorithm 1 (output perturbation, every inner method)",
         "ridge logistic (μ = 0.1), d = 2, records ((0.6, 0.8), ±1) alternating, 500 runs; n and ε chosen per entry "
         "so that the projection onto B(0, R) is inactive (lr21_harness.noise_instance)",
         "output noise: released point minus the certified w_T", 1000),
    _bug("algorithm_2_draws_sigma_over_sqrt2", ml.algorithm_2_draws_sigma_over_sqrt2, lr.algorithm_2, "lr21",
         "Algorithm 2 (output perturbation with regularisation)",
         "logistic, d = 2, records ((0.6, 0.8), ±1) alternating, 500 runs (lr21_harness.noise_instance)",
         "output noise: released point minus the certified w_T", 1000),
    _bug("tilted_erm_draws_sigma_over_sqrt2", ml.tilted_erm_draws_sigma_over_sqrt2, lr.tilted_erm, "lr21",
         "tilted ERM via Algorithm 1 (Sec. 4)",
         "logistic, τ = 1, μ = 0.1, d = 2, records ((0.6, 0.8), ±1) alternating, 500 runs "
         "(lr21_harness.noise_instance)", "output noise: released point minus the certified w_T", 1000),
    _bug("robust_erm_from_problem_draws_sigma_over_sqrt2", ml.robust_erm_from_problem_draws_sigma_over_sqrt2,
         lr.robust_erm_from_problem, "lr21", "ℓ2-robust logistic / least squares via Algorithm 3 (Sec. 4)",
         "ρ = 0.1, μ = 0.1, d = 2, records ((0.6, 0.8), ±1) alternating, 500 runs (lr21_harness.noise_instance)",
         "output noise: released point minus the certified w_T", 1000),
    _bug("algorithm_3_from_problem_draws_sigma_over_sqrt2", ml.algorithm_3_from_problem_draws_sigma_over_sqrt2, lr.algorithm_3_from_problem,
         "lr21", "Algorithm 3 (adversarial training, linear game)",
         "μ = 0.1, r = 0.05, d = 2, records ((0.6, 0.8), ±1) alternating, 500 runs (lr21_harness.noise_instance)",
         "output noise: released point minus the certified w_T", 1000),
]}
