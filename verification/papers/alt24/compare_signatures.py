"""Compare signatures (``dpsco.verification.papers.signatures``) of Asi, Liu & Tian (2024)'s catalogue entries, in
the harness convention: the candidate is a drop-in for the reference function and receives exactly what this
room's privacy harness passes it (``harness_sgd``, ``harness_phased``, ``harness_svt``), by the reference's
parameter names, on the harness's heavy-tailed records; the worst pairs are those the harness's ``exact_privacy``
uses (re-stated here from its docstrings: uniform records on the clip's far side, record 0 mirrored; for
Algorithm 6 and Algorithm 7 a pair of ``harness_svt``'s exact curves, :func:`svt_pair`, :func:`localized_pair`).  Family (b)'s measures are this room's ``compare_utility.UTILITY``.

Algorithm 5 (``alt24.onepass_sgd``) and Appendix A (``alt24.highprob_sco``) release no private output (claim
notion "none"): not comparable.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from dpsco.verification.papers.alt24.catalogue import ENTRIES
from dpsco.verification.papers.alt24.compare_utility import UTILITY
from dpsco.verification.papers.alt24.harness_phased import PAR4
from dpsco.verification.papers.alt24.harness_svt import LOCALIZED_SETTING, N7, NS, SVT
from dpsco.verification.papers.signatures import CompareSignature, harness_signature

__all__ = ["SIGNATURES", "localized_pair", "svt_pair"]

HUGE = 1e300
_BY = {e.name: e for e in ENTRIES}


def _uniform_pair(n: int, row: list[float], flip: list[float]) -> Callable[[], tuple[np.ndarray, np.ndarray]]:
    """n copies of ``row``, against the same with record 0 replaced by ``flip``."""
    def pair() -> tuple[np.ndarray, np.ndarray]:
        S = np.tile(np.asarray(row, dtype=np.float64), (n, 1))
        S2 = S.copy()
        S2[0] = flip
        return S, S2
    return pair


def _glm_pair() -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 8's pair: record 0 (first of phase 1) ±10⁶e₁, the others 0."""
    S = np.zeros((16, 2))
    S[0, 0] = 1e6
    S2 = S.copy()
    S2[0, 0] = -1e6
    return S, S2


def svt_pair() -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 6's pair (one of the 2^T pairs of ``harness_svt``'s exact curve, sign pattern σ = (1, 1, −1): the
    pattern whose privacy loss reaches furthest — its δ(ε) is the curve's maximum and the only positive one for
    ε ≳ 0.03, where (1, −1, −1)'s larger δ below ε ≈ 0.02 has vanished): records 2..7 balanced (+1, −1 alternately
    in every column), record 1 = −σ, record 0 = 0; the neighbour's record 1 = +σ, so every clipped-mean query
    moves by Δ = 2/n across L = 0."""
    sigma = np.array([1.0, 1.0, -1.0])
    S = np.zeros((NS, SVT["T"]))
    S[2:] = np.tile([[1.0] * SVT["T"], [-1.0] * SVT["T"]], ((NS - 2) // 2, 1))
    S[1] = -sigma
    S2 = S.copy()
    S2[1] = sigma
    return S, S2


def localized_pair() -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 7's ⊥ pair (``harness_svt``'s exact curve, K = c heavy records, the larger δ(0) of K = c − 1, c):
    the first c records 5e₁ (clipped: ‖s‖ ≥ C), the others 0; the neighbour's record 0 is 0 (phase 1's clip count
    c − 1 against c: the ⊥ branch flips with the Laplace cut-off, and phase 1's Gaussian mean moves)."""
    S = np.zeros((N7, 2))
    S[: int(LOCALIZED_SETTING["c"]), 0] = 5.0
    S2 = S.copy()
    S2[0] = 0.0
    return S, S2


_LS = {"S": "data", "loss": "loss", "rng": "rng", "delta": "privacy"}
_HEAVY = ("heavy-tailed least-squares regression records [a, b] (d = 2; k = 2 moments G = (1, 1)) at the harness's "
          "public inputs")
_SPECS: dict[str, dict[str, Any]] = {
    "alt24.clipped_dp_sgd": dict(
        roles={**_LS, "C": "public", "lam": "option", "T": "public", "sigma": "privacy", "radius_r": "domain",
               "domain_radius": "domain"},
        instance=_HEAVY + ", n = 16; Corollary 1's C, T, σ at ρ = 0.5, λ = 1",
        worst_pair=_uniform_pair(16, [1.0, 0.0, -HUGE], [1.0, 0.0, HUGE])),
    "alt24.aggregate_erm": dict(
        roles={**_LS, "x_bar": "public", "lam": "option", "J": "option", "rho": "privacy", "R": "domain",
               "moments": "public", "domain_radius": "domain"},
        instance=_HEAVY + ", n = 16 in J = 4 blocks, ρ = 0.5",
        worst_pair=_uniform_pair(16, [1.0, 0.0, -HUGE], [1.0, 0.0, HUGE])),
    "alt24.ht_sco": dict(
        roles={**_LS, "rho": "privacy", "moments": "public", "delta_fail": "option", "domain_radius": "domain",
               "J_scale": "option"},
        instance=_HEAVY + ", n = 64, ρ = 0.5 (Theorem 1's pipeline: Algorithm 2 over Algorithm 3)",
        phases="Algorithm 2's localisation phases are internal; the final point is the release",
        worst_pair=_uniform_pair(64, [1.0, 0.0, -HUGE], [1.0, 0.0, HUGE])),
    "alt24.sc_wrapper": dict(
        roles={**_LS, "rho": "privacy", "moments": "public", "mu": "option", "delta_fail": "option",
               "domain_radius": "domain", "C_sco": "option", "J_scale": "option"},
        instance="heavy-tailed tilted-quadratic records [ξ, z] (d = 2), n = 64, μ = 1, ρ = 0.5 (Corollary 3)",
        worst_pair=_uniform_pair(64, [HUGE, 0.0, 0.0, 0.0], [-HUGE, 0.0, 0.0, 0.0])),
    "alt24.known_lip": dict(
        roles={"S": "data", "loss": "loss", "domain": "domain", "rho": "privacy", "bounds": "public", "rng": "rng",
               "delta": "privacy"},
        instance="Gaussian linear-loss records s ∈ R² (L̄_s = ‖s‖ heavy-tailed), X = B(0, 1), n = 16, ρ = 0.5, "
                 "Theorem 2's C = L_A",
        phases="the phases' A_Lip outputs are internal; the final point is the release",
        worst_pair=_uniform_pair(16, [PAR4["C"], 0.0], [-PAR4["C"], 0.0])),
    "alt24.blap": dict(
        roles={"value": "data", "sensitivity": "public", "epsilon": "privacy", "delta": "privacy", "rng": "rng"},
        instance="the clipped mean of n = 8 records in [−1, 1] (Δ = 2/n), ε = 0.5, δ = 1e-3 (Lemma 9)",
        worst_pair=_uniform_pair(8, [-1.0], [1.0])),
    "alt24.svt": dict(
        roles={"answers": "data", "sensitivity": "public", "c": "option", "L": "option", "epsilon": "privacy",
               "delta": "privacy", "rng": "rng"},
        instance="T = 3 clipped-mean queries of n = 8 records (Δ = 2/n), c = 1, L = 0, ε = 0.9, δ = 0.01 (Algorithm 6)",
        phases="the answer sequence (⊤/⊥ per query) is the release, compared coordinate by coordinate",
        worst_pair=svt_pair),
    "alt24.localized_dp_sgd": dict(
        roles={"S": "data", "loss": "loss", "x0": "public", "eta": "option", "C": "public", "c": "option",
               "omega": "option", "beta": "option", "epsilon": "privacy", "delta": "privacy", "radius": "domain",
               "rng": "rng"},
        instance="linear-loss records (β = 0), n = 64, d = 2, ε = 0.9, δ = 0.1, C = 1, η = 1, c = 32, ω at Lemma 12",
        compared=("output", "halted"),
        bottom="Lines 20–21 release ⊥ (``halted``): compared as an outcome (the halting frequency is a coordinate of "
               "the compared vector; the point is zeroed on ⊥)",
        worst_pair=localized_pair),
    "alt24.onepass_dp_sgd_glm": dict(
        roles={"S": "data", "loss": "loss", "domain": "domain", "x0": "public", "rho": "privacy", "bounds": "public",
               "rng": "rng", "delta": "privacy"},
        instance="Gaussian linear-GLM records (β = 0), X = B(0, 10), x₀ = 0, n = 16, ρ = 0.5 (Algorithm 8)",
        phases="the phase outputs x_i are noisy releases; the last one is the output compared",
        worst_pair=_glm_pair),
}
_NOT_PRIVATE = {"alt24.onepass_sgd": ({"S": "data", "loss": "loss", "C": "public", "eta": "option", "domain": "domain",
                                       "x0": "public"}, "Algorithm 5 is non-private (claim notion 'none')"),
                "alt24.highprob_sco": ({"S": "data", "loss": "loss", "G": "public", "delta_fail": "option",
                                        "domain_radius": "domain", "J_scale": "option"},
                                       "Appendix A's procedure is non-private (claim notion 'none')")}

SIGNATURES: dict[str, CompareSignature] = {
    **{name: harness_signature(_BY[name], **spec, utility_measure=UTILITY[name]) for name, spec in _SPECS.items()},
    **{name: harness_signature(_BY[name], roles, "the harness's regression records", comparable=False, reason=why,
                               utility="")
       for name, (roles, why) in _NOT_PRIVATE.items()},
}
