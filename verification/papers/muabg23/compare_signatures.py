"""Compare signatures (``dpsco.verification.papers.signatures``) of Menart et al. (2023)'s catalogue entries, in the
harness convention: the candidate is a drop-in for the reference function and receives exactly what this room's
privacy harness (``muabg23_harness``) passes it, by the reference's parameter names, on the harness's KL
instances (signed-curvature records for Algorithm 1, the curved linear loss for Algorithms 2 and 4, the two-phase
oracle for Algorithm 3 and Theorem 5); the worst pairs are the harness's own (``spider_worst_pair``,
``adaptive_worst_pair``, ``em_worst_pair``) or re-stated from its docstring (Algorithms 2 and 4: n copies of e₁,
the last −e₁).  Family (b)'s measures are this room's ``compare_utility.UTILITY``."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from dpsco.verification.papers.muabg23.catalogue import ENTRIES
from dpsco.verification.papers.muabg23.compare_utility import UTILITY
from dpsco.verification.papers.muabg23.harness import (NOISY_GD, adaptive_worst_pair, em_worst_pair,
                                                       spider_worst_pair)
from dpsco.verification.papers.signatures import CompareSignature, harness_signature

__all__ = ["SIGNATURES"]

_BY = {e.name: e for e in ENTRIES}


def linear_pair() -> tuple[np.ndarray, np.ndarray]:
    """Algorithms 2 and 4: n copies of e₁ against the last replaced by −e₁ (curvature x₀x₁ = 0), so the clipped
    mean subgradients differ by exactly 2L₀/n at every iterate (the harness's pair)."""
    D = np.zeros((NOISY_GD["n"], NOISY_GD["d"]))
    D[:, 0] = 1.0
    D2 = D.copy()
    D2[-1, 0] = -1.0
    return D, D2


_KL = {"rho": "privacy", "beta": "option", "rng": "rng"}
_ADAPTIVE_ROLES = {"grad": "loss", "w0": "public", **_KL, "L0": "public", "L1": "public"}
_ADAPTIVE_INSTANCE = ("the two-phase oracle (per-sample gradient c(w)·x₀x₁ + x₂x₃, d = 1) on n = 8 records x ∈ R⁴, "
                      "ρ = 0.5; the records enter through the oracle ``grad`` the harness builds from them")
_SIGNATURES: dict[str, CompareSignature] = {
    "muabg23.kl_spider": harness_signature(
        _BY["muabg23.kl_spider"], {"X": "data", "loss": "loss", **_KL, "F0": "public", "gamma": "public",
                                   "kappa": "public", "L0": "public", "L1": "public"},
        "signed-curvature records (x, s) ∈ R³ (d = 2), n = 16, ρ = 0.25, (γ, κ) = (1, 1.5)-KL, L₀ = 1, L₁ = 1e-3",
        phases="the K rounds' anchors and differences are internal noisy releases; the final point is compared",
        worst_pair=spider_worst_pair),
    "muabg23.proximal_point": harness_signature(
        _BY["muabg23.proximal_point"], {"X": "data", "subgradient": "loss", "w0": "public", **_KL, "L0": "public",
                                        "l1_tilde": "public", "F0": "public", "gamma": "public", "kappa": "public"},
        "curved linear loss f(w; x) = ⟨w, x⟩ + (x₀x₁/2)‖w‖² on n = 8 records in R², ρ = 0.05, (γ, κ) = (1, 2)",
        worst_pair=linear_pair),
    "muabg23.noisy_gd": harness_signature(
        _BY["muabg23.noisy_gd"], {"X": "data", "subgradient": "loss", "w_c": "public", **_KL, "L0": "public",
                                  "l1_tilde": "public"},
        "curved linear loss on n = 8 records in R², centre w_c = 0, ρ = 0.05 (Algorithm 4, T = 15)",
        worst_pair=linear_pair),
    "muabg23.adaptive_gd": harness_signature(
        _BY["muabg23.adaptive_gd"], _ADAPTIVE_ROLES, _ADAPTIVE_INSTANCE, worst_pair=adaptive_worst_pair),
    "muabg23.adaptive_gd_em": harness_signature(
        _BY["muabg23.adaptive_gd_em"], _ADAPTIVE_ROLES, _ADAPTIVE_INSTANCE,
        phases="the exponential mechanism's choice among the iterates is the release", worst_pair=em_worst_pair),
}
SIGNATURES: dict[str, CompareSignature] = {name: replace(sig, utility_measure=UTILITY[name])
                                           for name, sig in _SIGNATURES.items()}
