"""Compare signatures (``dpsco.verification.papers.signatures``) of Asi, Chadha, Cheng & Duchi (2022)'s catalogue
entries, in the harness convention: the candidate is a drop-in for the reference function and receives exactly
what this room's privacy harness passes it, by the reference's parameter names, on the harness's interpolation
instance (``DiagonalQuadraticLoss`` records [c, u], d = 2, n = 24, L = H = 1, X = B(0, 1), x₀ = 0, ε = 1, δ = 0);
the worst pair is the harness's (every record the far diagonal record c = 10⁶(1, 1)/√2, u = (H, H); record 0
at −c), re-stated from its docstring.  Family (b)'s measures are this room's ``compare_utility.UTILITY``."""

from __future__ import annotations

import math

import numpy as np

from dpsco.verification.papers.accd22.catalogue import ENTRIES
from dpsco.verification.papers.accd22.compare_utility import UTILITY
from dpsco.verification.papers.accd22.harness import PUBLIC
from dpsco.verification.papers.signatures import CompareSignature, harness_signature

__all__ = ["SIGNATURES", "far_diagonal_pair"]

FAR = 1e6


def far_diagonal_pair() -> tuple[np.ndarray, np.ndarray]:
    """n copies of [c, u] with c = 10⁶(1, 1)/√2, u = (H, H), against record 0 at −c (the harness's worst pair)."""
    H, n = PUBLIC["H"], PUBLIC["n"]
    far = FAR / math.sqrt(2.0)
    D = np.tile([far, far, H, H], (n, 1))
    D2 = D.copy()
    D2[0] = [-far, -far, H, H]
    return D, D2


_BASE = {"Z": "data", "loss": "loss", "domain": "domain", "L": "public", "H": "public", "x0": "public",
         "epsilon": "privacy", "delta": "privacy", "rng": "rng"}
_EXTRA = {"accd22.algorithm_2": {"lam": "option", "m": "option"}, "accd22.algorithm_3": {"lam": "option", "m": "option"},
          "accd22.algorithm_6": {"lam": "option", "kappa": "option"}}
_INSTANCE = ("interpolation instance: DiagonalQuadraticLoss records [c, u] in d = 2, n = 24, L = H = 1, X = B(0, 1), "
             "x₀ = 0, ε = 1, δ = 0 (Laplace phases)")
_M = {"accd22.algorithm_2": " (m = 12: the harness's privacy-neutral override of Theorem 2's m > n)",
      "accd22.algorithm_3": " (m = 6, likewise)"}

SIGNATURES: dict[str, CompareSignature] = {
    e.name: harness_signature(e, {**_BASE, **_EXTRA.get(e.name, {})}, _INSTANCE + _M.get(e.name, ""),
                              phases="the phases' noisy centres are internal releases (the white-box transcript); "
                                     "the final point is compared",
                              worst_pair=far_diagonal_pair, utility_measure=UTILITY[e.name])
    for e in ENTRIES
}
