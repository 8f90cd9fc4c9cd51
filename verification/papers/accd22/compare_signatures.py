"""Compare signatures (``dpsco.verification.papers.signatures``) of Asi, Chadha, Cheng & Duchi (2022)'s catalogue
entries, in the harness convention: the candidate is a drop-in for the reference function and receives exactly
what this room's privacy harness passes it, by the reference's parameter names, on the harness's interpolation
instance (``DiagonalQuadraticLoss`` records [c, u], d = 2, n = 24, L = H = 1, X = B(0, 1), x₀ = 0, ε = 1, δ = 0).
Family (b)'s measures are this room's ``compare_utility.UTILITY``.

The audit's worst pair is :func:`lone_far_pair`: one far diagonal record c = 10⁶(1, 1)/√2, u = (H, H) among
records of zero curvature (u = 0: the zero loss), record 0 at −c in D′.  Record 0 is in the first phase (public
centre x₀), and its extended gradient L(1, 1)/√2 is constant on X (Definition 2.5's F_L, ‖∇F‖ ≫ L there), the
other records' gradients are 0: the first phase's minimisers differ by the same Δ as on the harness's own worst
pair (:func:`far_diagonal_pair`, where the 23 others are far too and add the same constant gradient to both
sides), so the paper's mechanism attains the harness's exact curve on it
(``tests/accd22/test_accd22_implementations.py``).  Unlike the harness's pair it exposes a candidate that drops
the extension (this paper's clipping): there record 0's raw gradient u(x − c) ≈ 10⁶ pushes the phase minimiser
to the boundary of its localisation ball B(x₀, 2Lη₁n₀) — opposite points on D and D′, ℓ1 distance ≈ 0.48 against
the Laplace scale b₁ = 4Lη₁√2/ε ≈ 0.080, privacy loss ≈ 6 > ε = 1 — whereas on the harness's pair the 23 other
far records pull both minimisers to the same boundary point."""

from __future__ import annotations

import math

import numpy as np

from dpsco.verification.papers.accd22.catalogue import ENTRIES
from dpsco.verification.papers.accd22.compare_utility import UTILITY
from dpsco.verification.papers.accd22.harness import PUBLIC
from dpsco.verification.papers.signatures import CompareSignature, harness_signature

__all__ = ["SIGNATURES", "far_diagonal_pair", "lone_far_pair"]

FAR = 1e6


def far_diagonal_pair() -> tuple[np.ndarray, np.ndarray]:
    """n copies of [c, u] with c = 10⁶(1, 1)/√2, u = (H, H), against record 0 at −c (the harness's worst pair)."""
    H, n = PUBLIC["H"], PUBLIC["n"]
    far = FAR / math.sqrt(2.0)
    D = np.tile([far, far, H, H], (n, 1))
    D2 = D.copy()
    D2[0] = [-far, -far, H, H]
    return D, D2


def lone_far_pair() -> tuple[np.ndarray, np.ndarray]:
    """The audit's worst pair (module docstring): record 0 = [c, H, H], c = 10⁶(1, 1)/√2, the n − 1 others
    [0, 0, 0, 0] (zero curvature: admissible, u ∈ [0, H]); D′ has record 0 at −c.  Shapes (n, 4), n = 24."""
    H, n = PUBLIC["H"], PUBLIC["n"]
    far = FAR / math.sqrt(2.0)
    D = np.zeros((n, 4))
    D[0] = [far, far, H, H]
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
                              worst_pair=lone_far_pair, utility_measure=UTILITY[e.name])
    for e in ENTRIES
}
