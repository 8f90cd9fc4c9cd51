"""The catalogue: every implemented algorithm, tied to its paper, Algorithm number and theorems.

Each entry knows how to run the algorithm (``run``), the theorem's bound on the *expected excess empirical*
and *population* risk at given public parameters (``empirical_bound``, ``population_bound``, computed by
the theorem functions in ``reference``), and the paper's gradient-evaluation claim (``paper_gradient_count``).
``dpsco verify`` and the README's table are generated from this list.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from reference import noise as lrnoise
from reference import optimal_rates as o
from reference import output_perturbation as lr
from reference.privacy import Release
from reference.problem import ERMProblem

__all__ = ["CATALOGUE", "CatalogueEntry", "get_entry"]

RunFn = Callable[..., Release]
PAPER_BFTT19 = "Bassily, Feldman, Talwar, Thakurta (NeurIPS 2019)"


@dataclass(frozen=True)
class CatalogueEntry:
    """One algorithm of one paper.

    Attributes
    ----------
    name : str               catalogue key, e.g. "bftt19.nsgd".
    title : str              e.g. "A_NSGD".
    paper, algorithm_ref, privacy_theorem, utility_theorem : str
    run : callable (X, y, problem, epsilon, delta, rng, **options) -> Release
    smooth_loss_required : bool   needs a smooth loss (β-smooth)
    synthetic_loss : str      loss of the synthetic instance with a known population minimiser
    empirical_bound : callable (release, n, d, epsilon, delta, L, M) -> float   E[excess empirical risk] bound
    population_bound : callable (release, n, d, epsilon, delta, L, M) -> float  E[excess population risk] bound
    paper_gradient_count : callable (release, n, d, epsilon, delta) -> (float, str) | None
    stability_bound : callable (release, n, d, epsilon, delta, L, M) -> (corrected, printed or None, source)
        uniform-stability bound w.r.t. ℓ that the utility proof uses (coupled runs are checked against it)
    rate_exponent : float or None   exponent e of the theorem's bound C·n^e in its statistical regime (−1/2
        for Bassily et al.); None where the configuration has no declared rate (the rate check is skipped)
    options : dict            keyword options passed to ``run`` (utility overrides, recorded in results)
    quick_options : dict      options for ``--quick`` runs (utility overrides only)
    """

    name: str
    title: str
    paper: str
    algorithm_ref: str
    privacy_theorem: str
    utility_theorem: str
    run: RunFn
    smooth_loss_required: bool
    synthetic_loss: str
    empirical_bound: Callable[..., float]
    population_bound: Callable[..., float]
    paper_gradient_count: Callable[..., tuple[float, str] | None]
    stability_bound: Callable[..., tuple[float, float | None, str]]
    rate_exponent: float | None = -0.5
    options: dict[str, Any] = field(default_factory=dict)
    quick_options: dict[str, Any] = field(default_factory=dict)
    notes: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "paper": self.paper, "algorithm": self.algorithm_ref,
                "privacy_theorem": self.privacy_theorem, "utility_theorem": self.utility_theorem,
                "options": self.options, "notes": self.notes}


# -- bounds ------------------------------------------------------------------------------------------------


def _nsgd_empirical(r: Release, n: int, d: int, eps: float, delta: float, L: float, M: float) -> float:
    """Lemma 3.3 (with the Lipschitz constant used for the noise) + 2ML'/T for averaging w_1..w_T."""
    p = r.parameters
    Lp = p["lipschitz"]
    return o.lemma_3_3_bound(n, d, eps, delta, Lp, M, p["eta"], p["T"]) + 2 * M * Lp / p["T"]


def _moreau_empirical(r: Release, n: int, d: int, eps: float, delta: float, L: float, M: float) -> float:
    """Envelope: L̂(w) − L̂* ≤ [L̂_β(w) − L̂_β*] + L²/(2β) (Lemma 4.3, property 2), the bracket by Lemma 3.3
    with L' (+2ML'/T); for A_ProxGD also + 2Mξ (inexact gradients, spec §4.5)."""
    p = r.parameters
    extra = 2 * M * p["accuracy"] if "accuracy" in p else 0.0
    return _nsgd_empirical(r, n, d, eps, delta, L, M) + L**2 / (2 * p["beta"]) + extra


def _nsgd_population(r: Release, n: int, d: int, eps: float, delta: float, L: float, M: float) -> float:
    return o.theorem_3_2_bound(n, d, eps, delta, L, M)


def _moreau_population(r: Release, n: int, d: int, eps: float, delta: float, L: float, M: float) -> float:
    return o.theorem_4_4_bound(n, d, eps, delta, L, M)


def _objp_empirical(r: Release, n: int, d: int, eps: float, delta: float, L: float, M: float) -> float:
    return o.lemma_5_4_bound(n, d, eps, delta, L, M, r.parameters["lambda"])


def _objp_population(r: Release, n: int, d: int, eps: float, delta: float, L: float, M: float) -> float:
    return o.theorem_5_3_bound(n, d, eps, delta, L, M, printed=False)


def _eff_extra(r: Release, d: int, L: float) -> float:
    # output noise: L(r + E‖N‖) ≤ L(r + σ2√d)  (spec §4.7)
    p = r.parameters
    return L * (p["radius_r"] + p["sigma2"] * math.sqrt(d))


def _eff_empirical(r: Release, n: int, d: int, eps: float, delta: float, L: float, M: float) -> float:
    p = r.parameters
    return o.lemma_5_4_bound(n, d, p["epsilon1"], p["delta1"], L, M, p["lam"]) + _eff_extra(r, d, L)


def _eff_population(r: Release, n: int, d: int, eps: float, delta: float, L: float, M: float) -> float:
    p = r.parameters
    return o.theorem_5_3_bound(n, d, p["epsilon1"], p["delta1"], L, M, printed=False) + _eff_extra(r, d, L)


# -- uniform stability (w.r.t. ℓ) ---------------------------------------------------------------------------


def _nsgd_stability(r: Release, n: int, d: int, eps: float, delta: float, L: float, M: float):
    """Lemma 3.4 for the loss actually optimised (Lipschitz L' = parameters["lipschitz"], η ≤ 2/β): coupled
    runs give E‖w̄ − w̄'‖ ≤ L'η(T+1)/n (corrected, ERRATA E2), so |Δℓ| ≤ L·L'η(T+1)/n; for A_ProxGD the
    inexact gradients add η(T+1)ξ to the distance (spec §4.5)."""
    p = r.parameters
    Lp, eta, T = p["lipschitz"], p["eta"], p["T"]
    xi = p.get("accuracy", 0.0)
    L_env = Lp - xi
    corrected = L * eta * (T + 1) * (L_env / n + xi)
    printed = L * L_env * eta * T / n if xi == 0.0 else None
    return corrected, printed, "Lemma 3.4 (corrected (T+1), ERRATA E2)" + (" + inexact prox, spec §4.5" if xi else "")


def _objp_stability(r: Release, n: int, d: int, eps: float, delta: float, L: float, M: float):
    """For a fixed G the exact minimisers on neighbours are within L/(λn) (2λ-strong convexity on both sides,
    spec §4.6 T-5.5), so |Δℓ| ≤ L²/(λn); Lemma 5.5 as printed gives 2ρ²/(λn) with ρ ≥ L."""
    lam = r.parameters["lambda"]
    return L**2 / (lam * n), 2 * L**2 / (lam * n), "Lemma 5.5 (corrected: ρ²/(λn) with ρ = L, spec §4.6)"


def _eff_stability(r: Release, n: int, d: int, eps: float, delta: float, L: float, M: float):
    """ObjP part L/(λn) plus twice the certified radius r (w̃ within r of ŵ on each side); the shared output
    noise and the projection are non-expansive."""
    p = r.parameters
    return L * (L / (p["lam"] * n) + 2 * p["radius_r"]), None, "Lemma 5.5 (corrected) + certified radius"


# -- gradient counts ---------------------------------------------------------------------------------------


def _count_nsgd(r: Release, n: int, d: int, eps: float, delta: float) -> tuple[float, str]:
    p = r.parameters
    return float(p["T"] * p["m"]), "T·m (Sec. 1.1: ≈ min(n, n²ε²/d) steps × batch ≈ max(√(εn), 1))"


def _count_proxgd(r: Release, n: int, d: int, eps: float, delta: float) -> tuple[float, str]:
    p = r.parameters
    return float(n**2 * p["T"] ** 2 * p["m"]), "≈ n²T²m (Sec. 4); ours uses the accuracy/localisation recorded"


def _count_efficient(r: Release, n: int, d: int, eps: float, delta: float) -> tuple[float, str]:
    return float(n * math.log(n)), "O(n log n) (Sec. 5): ratio = count/(n log n)"


def _no_count(r: Release, n: int, d: int, eps: float, delta: float) -> None:
    return None


CATALOGUE: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        name="bftt19.nsgd", title="A_NSGD", paper=PAPER_BFTT19, algorithm_ref="Algorithm 1",
        privacy_theorem="Thm 3.1", utility_theorem="Thm 3.2 (Lemmas 3.3, 3.4)", run=o.noisy_sgd,
        smooth_loss_required=True, synthetic_loss="logistic", empirical_bound=_nsgd_empirical,
        population_bound=_nsgd_population, paper_gradient_count=_count_nsgd, stability_bound=_nsgd_stability,
    ),
    CatalogueEntry(
        name="bftt19.moreau_nsgd", title="A_NSGD on Moreau envelope", paper=PAPER_BFTT19,
        algorithm_ref="Algorithm 1 on ℓ_β (Sec. 4)", privacy_theorem="Thm 3.1 + Lemma 4.3",
        utility_theorem="Thm 4.4", run=o.moreau_noisy_sgd, smooth_loss_required=False, synthetic_loss="hinge",
        empirical_bound=_moreau_empirical, population_bound=_moreau_population, paper_gradient_count=_count_nsgd,
        stability_bound=_nsgd_stability,
        notes="exact closed-form R^d prox; σ, η calibrated with L' = 2L (Lemma 4.3 as printed)",
    ),
    CatalogueEntry(
        name="bftt19.proxgd", title="A_ProxGD", paper=PAPER_BFTT19, algorithm_ref="Sec. 4 (reconstructed)",
        privacy_theorem="Thm 3.1 + Lemma 4.3", utility_theorem="Thm 4.4 (Sec. 4 claim)", run=o.prox_noisy_sgd,
        smooth_loss_required=False, synthetic_loss="hinge", empirical_bound=_moreau_empirical,
        population_bound=_moreau_population, paper_gradient_count=_count_proxgd, stability_bound=_nsgd_stability,
        options={"accuracy": 0.5}, quick_options={"accuracy": 1.0},
        notes="prox accuracy ξ overridden (utility constant; σ calibrated with L_env + ξ): the paper's "
              "ξ = L/√(nT) needs ≈ n²T²m subgradient calls, infeasible at n = 6366",
    ),
    CatalogueEntry(
        name="bftt19.objp", title="A_ObjP", paper=PAPER_BFTT19, algorithm_ref="Algorithm 2",
        privacy_theorem="Thm 5.2 ([KST12] Thm 2)", utility_theorem="Thm 5.3 (corrected 4ML, Lemma 5.4)",
        run=o.objective_perturbation, smooth_loss_required=True, synthetic_loss="logistic",
        empirical_bound=_objp_empirical, population_bound=_objp_population, paper_gradient_count=_no_count,
        stability_bound=_objp_stability,
        notes="exact minimiser from the certified Newton solver (distance ≤ 1e-10)",
    ),
    CatalogueEntry(
        name="bftt19.efficient_objp", title="Efficient ObjP (SVRG)", paper=PAPER_BFTT19,
        algorithm_ref="Sec. 5 (reconstructed)", privacy_theorem="Thm 5.2 + Gaussian mechanism",
        utility_theorem="Thm 5.3 + output noise", run=o.efficient_objective_perturbation,
        smooth_loss_required=True, synthetic_loss="logistic", empirical_bound=_eff_empirical,
        population_bound=_eff_population, paper_gradient_count=_count_efficient, stability_bound=_eff_stability,
    ),
)


# -- Lowy & Razaviyayn (AAAI 2021): output perturbation ----------------------------------------------------

PAPER_LR21 = "Lowy & Razaviyayn (AAAI 2021)"
MU_REAL = 0.1  # ridge modulus of Algorithm 1's strongly convex F on the real data (public, recorded)


def _lr_mean_norm(r: Release, d: int) -> float:
    cal = lrnoise.NoiseCalibration(r.parameters["mechanism"], r.parameters["Delta_T"], 1.0, 0.0,
                                   r.parameters["noise_scale"], "")
    return lrnoise.noise_moments(cal, d)[0]


def _lr1_empirical(r: Release, n: int, d: int, eps: float, delta: float, L: float, M: float) -> float:
    """MB1 on F_μ plus μM²/2 (to compare with the unregularised oracle): L_F(√(2α/μ) + E‖z‖) + μM²/2."""
    p = r.parameters
    return lr.master_bound_lipschitz_alg1(p["L"], p["alpha"], p["mu"], _lr_mean_norm(r, d)) + 0.5 * p["mu"] * M * M


def _lr1_population(r: Release, n: int, d: int, eps: float, delta: float, L: float, M: float) -> float:
    """MB5: L_F·Δ_T (stability) + the empirical bound."""
    return lr.master_bound_population(r.parameters["L"], r.parameters["Delta_T"],
                                      _lr1_empirical(r, n, d, eps, delta, L, M))


def _lr2_empirical(r: Release, n: int, d: int, eps: float, delta: float, L: float, M: float) -> float:
    p = r.parameters
    return lr.master_bound_lipschitz_alg2(L, p["lam"], M, p["alpha"], _lr_mean_norm(r, d))


def _lr2_population(r: Release, n: int, d: int, eps: float, delta: float, L: float, M: float) -> float:
    p = r.parameters
    return lr.master_bound_population(L + p["lam"] * M, p["Delta_T"], _lr2_empirical(r, n, d, eps, delta, L, M))


def _lr_count(r: Release, n: int, d: int, eps: float, delta: float) -> tuple[float, str]:
    return float(r.parameters["T"] * n), "T·n full-gradient AGD count (proof of Thm 2.2: T = √κ log((μ+β)R²/(2α)))"


def _lr_stability(r: Release, n: int, d: int, eps: float, delta: float, L: float, M: float):
    """Coupled runs share the noise, so ‖w_S − w_S'‖ ≤ ‖w_T(S) − w_T(S')‖ ≤ Δ_T (the certified sensitivity,
    Lemma 0.2 + certificate) and |Δℓ| ≤ L·Δ_T."""
    return L * r.parameters["Delta_T"], None, "sensitivity Δ_T (Prop. 2.1/2.2, Lemma 0.2) under coupling"


LR_ENTRIES = (
    CatalogueEntry(
        name="lr21.alg1", title="Output perturbation (strongly convex)", paper=PAPER_LR21,
        algorithm_ref="Algorithm 1 (AGD inner, certified)", privacy_theorem="Prop. 2.1 (+ Thm 0.1)",
        utility_theorem="Thm 0.3 / MB1, MB5", run=lr.algorithm_1, smooth_loss_required=True,
        synthetic_loss="logistic", empirical_bound=_lr1_empirical, population_bound=_lr1_population,
        paper_gradient_count=_lr_count, stability_bound=_lr_stability, rate_exponent=None,
        options={"mu": MU_REAL, "method": "agd"},
        notes="F = logistic + (μ/2)‖w‖², μ = 0.1 public; minimiser over B(0, R); certificate-gated",
    ),
    CatalogueEntry(
        name="lr21.alg2", title="Output perturbation with regularisation", paper=PAPER_LR21,
        algorithm_ref="Algorithm 2 (AGD inner, certified)", privacy_theorem="Prop. 2.2 (corrected LR-E1/E2)",
        utility_theorem="Thm 0.5 / MB3, MB5", run=lr.algorithm_2, smooth_loss_required=True,
        synthetic_loss="logistic", empirical_bound=_lr2_empirical, population_bound=_lr2_population,
        paper_gradient_count=_lr_count, stability_bound=_lr_stability, rate_exponent=None,
        options={"method": "agd"},
        notes="λ, α of Theorem 0.5 (ERM); T rigorous AGD count on F_λ",
    ),
)

CATALOGUE = CATALOGUE + LR_ENTRIES


def get_entry(name: str) -> CatalogueEntry:
    for e in CATALOGUE:
        if e.name == name:
            return e
    raise ValueError(f"unknown catalogue entry {name!r}; known: {[e.name for e in CATALOGUE]}")


def supports_replicates(entry: CatalogueEntry) -> bool:
    """True for algorithms whose ``run`` accepts ``replicates`` (vectorised independent runs)."""
    return entry.run in (o.noisy_sgd, o.moreau_noisy_sgd, o.prox_noisy_sgd, lr.algorithm_1, lr.algorithm_2)


def run_outputs(entry: CatalogueEntry, X: np.ndarray, y: np.ndarray, problem: ERMProblem, epsilon: float,
                delta: float, rng: np.random.Generator, size: int, options: dict[str, Any],
                chunk: int = 2000) -> tuple[np.ndarray, Release]:
    """``size`` independent outputs of the algorithm as a (size, d) array, plus the last release."""
    outs = []
    release: Release | None = None
    if supports_replicates(entry):
        done = 0
        while done < size:
            k = min(chunk, size - done)
            release = entry.run(X, y, problem, epsilon, delta, rng, replicates=k, **options)
            outs.append(np.atleast_2d(release.output))
            done += k
    else:
        for _ in range(size):
            release = entry.run(X, y, problem, epsilon, delta, rng, **options)
            outs.append(release.output[None, :])
    assert release is not None
    return np.vstack(outs), release
