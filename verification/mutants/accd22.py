"""Planted bugs of Asi, Chadha, Cheng & Duchi (2022), arXiv:2210.17070 (``dpsco.reference.accd22.algorithms``).

Each mutant has the signature of the correct algorithm it copies, makes its (now false) privacy claim and runs
the reference implementation with one realistic bug, through its private ``_bug`` keyword:

* :func:`algorithm_2_without_extension` — Algorithm 2 on the raw losses F with the Lipschitz constants
  L_{i+1} = H·D_{i+1} of line 7 (no Lipschitzian extension, Algorithm 1 line 1 skipped): L_{i+1} bounds the raw
  gradients only under interpolation, so an outlier record moves its phase's minimiser far beyond L_{i+1}η.
* :func:`algorithm_4_clipped_gradients` — Algorithm 4 with ℓ2-clipped gradients ∇F·min(1, L/‖∇F‖) in place of
  ∇F_L.  For GLM and radial losses the two coincide (``extension``); for a non-GLM loss
  (``DiagonalQuadraticLoss``) the clipped field is not the gradient of a convex function, the "ERM" fixed
  point loses the strong-convexity sensitivity bound Lη, and a neighbouring pair can move it by several Lη.
* :func:`algorithm_5_reused_epochs` — Algorithm 5 with every epoch's Algorithm 4 run on the whole dataset
  (overlapping batches instead of the disjoint S_i of line 8): each record enters T_5 regularised ERMs, and the
  privacy losses add up (T_5·ε/4 on the tight instance), while the claim is parallel composition.
* :func:`algorithm_4_sloppy_solver` — Algorithm 4 with its inner ERM "solved" by one incremental pass over the
  batch (step 1/μ_G on each summand): not a minimiser of G; the last record alone moves the output by
  2L/μ_G = Lηn_0, n_0 times the exact sensitivity, so a phase of n_0 ≥ 8 records is ≥ 2ε-DP under an ε claim.

The audits that catch them are in ``dpsco.verification.papers.accd22_privacy`` (white-box likelihood-ratio
audits of the transcript and of one phase, and a deterministic sensitivity check); the corpus entries are in
``dpsco.verification.mutants.accd22_corpus``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpsco.reference.accd22.algorithms import algorithm_2, algorithm_4, algorithm_5
from dpsco.reference.accd22.extension import ConvexLoss
from dpsco.reference.privacy import Release

__all__ = ["algorithm_2_without_extension", "algorithm_4_clipped_gradients", "algorithm_5_reused_epochs",
           "algorithm_4_sloppy_solver"]


def _no_bug_keyword(kwargs: dict[str, Any]) -> None:
    if "_bug" in kwargs:
        raise TypeError("a mutant carries its own planted bug; do not pass _bug")


def algorithm_2_without_extension(Z: Any, loss: ConvexLoss, domain: Any, L: float, H: float, lam: float, x0: Any,
                                  epsilon: float, delta: float, rng: np.random.Generator, **kwargs: Any) -> Release:
    """Mutant of ``algorithm_2`` (Algorithm 2, Theorem 2): every epoch's inner Algorithm 5 runs on the raw
    per-sample gradients ∇F with the calibration constants L_1 = L, L_{i+1} = H·D_{i+1}, without the Lipschitzian
    extension.  Same arguments, keywords, claim and return as ``algorithm_2``."""
    _no_bug_keyword(kwargs)
    return algorithm_2(Z, loss, domain, L, H, lam, x0, epsilon, delta, rng, _bug="raw_gradients", **kwargs)


def algorithm_4_clipped_gradients(Z: Any, loss: ConvexLoss, domain: Any, L: float, H: float, x0: Any,
                                  epsilon: float, delta: float, rng: np.random.Generator, **kwargs: Any) -> Release:
    """Mutant of ``algorithm_4`` (Algorithm 4, Propositions 2 / 3): the inner solver follows the ℓ2-clipped
    gradients clip(∇F, L) instead of the extension's ∇F_L (identical for GLM and radial losses, not for
    ``DiagonalQuadraticLoss``).  Same arguments, keywords, claim and return as ``algorithm_4``."""
    _no_bug_keyword(kwargs)
    return algorithm_4(Z, loss, domain, L, H, x0, epsilon, delta, rng, _bug="clipped_gradients", **kwargs)


def algorithm_5_reused_epochs(Z: Any, loss: ConvexLoss, domain: Any, L: float, H: float, x0: Any,
                              epsilon: float, delta: float, rng: np.random.Generator, **kwargs: Any) -> Release:
    """Mutant of ``algorithm_5`` (Algorithm 5, Theorems 6 / 7): line 8 takes S_i = the whole dataset in every
    epoch (overlapping batches), so each record enters T_5 regularised ERMs.  Same arguments, keywords, claim and
    return as ``algorithm_5``."""
    _no_bug_keyword(kwargs)
    return algorithm_5(Z, loss, domain, L, H, x0, epsilon, delta, rng, _bug="reused_epochs", **kwargs)


def algorithm_4_sloppy_solver(Z: Any, loss: ConvexLoss, domain: Any, L: float, H: float, x0: Any,
                              epsilon: float, delta: float, rng: np.random.Generator, **kwargs: Any) -> Release:
    """Mutant of ``algorithm_4`` (Algorithm 4, line 4): each phase's regularised ERM is replaced by one incremental
    pass over its batch with step 1/μ_G (μ_G = 2/(η_i n_0)), whose output moves by up to Lη_i n_0 when the last
    record is replaced.  Same arguments, keywords, claim and return as ``algorithm_4``."""
    _no_bug_keyword(kwargs)
    return algorithm_4(Z, loss, domain, L, H, x0, epsilon, delta, rng, _bug="incremental_solver", **kwargs)
