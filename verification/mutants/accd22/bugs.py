"""Planted bugs of Asi, Chadha, Cheng & Duchi (2022), arXiv:2210.17070 (``dpsco.reference.accd22.algorithms``).

Each mutant has the signature of the correct algorithm it copies and runs the reference implementation with one
realistic bug.  The bug lives here: the reference's run is made of fixed parts (``algorithms.Parts``: the
gradient oracle, the phase solver, Algorithm 5's batches) and a mutant swaps one of them; the public reference
functions have no keyword that reaches a bug.  A mutant's release is marked: its ``algorithm`` says "planted
bug: …" and its claim (the same, now false, (ε, δ)) carries the bug in ``conditions`` and ``assumptions``.

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
* ``accd22_algorithm_k_draws_sigma_over_sqrt2`` (k = 1..6) — Algorithm k reporting its Gaussian σ_i and drawing
  σ_i/√2 (``noise_scale.under_noised``): caught by the measured-noise check of the replayed Gaussian residuals
  (``verification/papers/accd22/noise.py``; the privacy contract's item 5).
* ``accd22_algorithm_k_draws_laplace_scale_over_sqrt2`` (k = 1..6) — Algorithm k reporting its Laplace scale b_i
  and drawing b_i/√2 (``accd22_noise.under_noised_laplace``): caught by the measured Laplace-scale check.

* ``accd22_algorithm_k_without_noise`` (k = 1..6) — Algorithm k adding no noise at all while reporting its scales
  (``accd22_noise.noise_free``): refuted by the white-box audit on the interpolating pair and by the lower-bound
  checks of Theorems 1 and 4.
* ``accd22_algorithm_k_step_off_by_one`` (k = 1..6) — the step halved one epoch early (Algorithm 5, line 9:
  η_i = 2^{−(i+1)}η_0; Algorithm 4, line 3: η_i = 2^{−4(i+1)}η): the transcript leaves the public schedule.
* :func:`algorithm_1_without_extension`, :func:`algorithm_5_without_extension` — Algorithm 1 (= Algorithm 5 on the
  extension) on the raw losses F (line 1 skipped): an outlier record moves its phase far beyond Lη_i, and
  Proposition 1.2's identity no longer distinguishes the outlier.
* :func:`algorithm_2_reused_epochs`, :func:`algorithm_3_reused_epochs`, :func:`algorithm_6_reused_epochs` — the
  inner Algorithm 5 of every epoch runs each of its epochs on all the records of its call (overlapping batches).
* :func:`algorithm_6_epochs_rounded_up` — Algorithm 6 with T = ⌈log n⌉ epochs (Theorem 8: ⌊log n⌋).

The audits that catch the first four are in ``dpsco.verification.papers.accd22.privacy`` (white-box
likelihood-ratio audits of the transcript and of one phase, and a deterministic sensitivity check); the corpus
entries are in ``dpsco.verification.mutants.accd22.corpus``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

import numpy as np

from dpsco.reference.accd22.algorithms import (algorithm_1, algorithm_2, algorithm_3, algorithm_4, algorithm_5,
                                               algorithm_6, run_with_parts)
from dpsco.reference.accd22.phase import Balls, GradFn, Parts, project_balls
from dpsco.reference.accd22.extension import ConvexLoss
from dpsco.reference.clipping import clip_rows
from dpsco.reference.privacy import Release
from dpsco.reference.accd22 import theorems as th
from dpsco.verification.mutants.accd22.noise import noise_free, under_noised_laplace
from dpsco.verification.mutants.noise_scale import under_noised

__all__ = ["MUTANTS", "algorithm_2_without_extension", "algorithm_4_clipped_gradients", "algorithm_5_reused_epochs",
           "algorithm_4_sloppy_solver",
           "accd22_algorithm_1_draws_sigma_over_sqrt2", "accd22_algorithm_2_draws_sigma_over_sqrt2",
           "accd22_algorithm_3_draws_sigma_over_sqrt2", "accd22_algorithm_4_draws_sigma_over_sqrt2",
           "accd22_algorithm_5_draws_sigma_over_sqrt2", "accd22_algorithm_6_draws_sigma_over_sqrt2",
           "accd22_algorithm_1_draws_laplace_scale_over_sqrt2", "accd22_algorithm_2_draws_laplace_scale_over_sqrt2",
           "accd22_algorithm_3_draws_laplace_scale_over_sqrt2", "accd22_algorithm_4_draws_laplace_scale_over_sqrt2",
           "accd22_algorithm_5_draws_laplace_scale_over_sqrt2", "accd22_algorithm_6_draws_laplace_scale_over_sqrt2",
           "accd22_algorithm_1_without_noise", "accd22_algorithm_2_without_noise", "accd22_algorithm_3_without_noise",
           "accd22_algorithm_4_without_noise", "accd22_algorithm_5_without_noise", "accd22_algorithm_6_without_noise",
           "accd22_algorithm_1_step_off_by_one", "accd22_algorithm_2_step_off_by_one",
           "accd22_algorithm_3_step_off_by_one", "accd22_algorithm_4_step_off_by_one",
           "accd22_algorithm_5_step_off_by_one", "accd22_algorithm_6_step_off_by_one",
           "algorithm_1_without_extension", "algorithm_5_without_extension", "algorithm_2_reused_epochs",
           "algorithm_3_reused_epochs", "algorithm_6_reused_epochs", "algorithm_6_epochs_rounded_up"]


# ---- the swapped parts -----------------------------------------------------------------------------------------

def _raw_oracle(loss: ConvexLoss) -> GradFn:
    """The raw gradients ∇F (Algorithm 1, line 1 skipped: no extension, no fail-safe)."""

    def grad(X: np.ndarray, Z: np.ndarray, L: float) -> np.ndarray:
        return loss.grad(X, Z)

    return grad


def _clipped_oracle(loss: ConvexLoss) -> GradFn:
    """ℓ2-clipped raw gradients clip(∇F, L) (the extension's gradient for GLM and radial losses only)."""

    def grad(X: np.ndarray, Z: np.ndarray, L: float) -> np.ndarray:
        return clip_rows(loss.grad(X, Z), L)

    return grad


def _incremental_pass(grad: GradFn, Z: np.ndarray, L: float, H: float, eta: float, C: np.ndarray, balls: Balls,
                      tol: float = 0.0, grad_rtol: float = 0.0) -> tuple[np.ndarray, int]:
    """The sloppy solver: one pass over the batch in index order, step 1/μ_G on the j-th summand
    F(x; s_j) + (1/(ηb))‖x − c‖² (not a minimiser of G: the last record moves the output by up to
    2L/μ_G = Lηb, b times the exact sensitivity).  Same signature as ``algorithms.solve_phase``."""
    b = Z.shape[0]
    mu = 2.0 / (eta * b)
    X = C.copy()
    for j in range(b):
        X = project_balls(X - (grad(X, Z[j:j + 1], L)[:, 0, :] + mu * (X - C)) / mu, balls)
    return X, b


def _whole_dataset(Z: np.ndarray, i: int, n0: int) -> tuple[np.ndarray, int]:
    """Algorithm 5, line 8 with overlapping batches: every epoch on all the records of the call."""
    return Z, 0


RAW_GRADIENTS = Parts(oracle=_raw_oracle)
CLIPPED_GRADIENTS = Parts(oracle=_clipped_oracle)
INCREMENTAL_SOLVER = Parts(solve=_incremental_pass, solver="incremental")
REUSED_EPOCHS = Parts(batch=_whole_dataset)


def mark(release: Release, bug: str) -> Release:
    """``release`` marked as a planted bug's: "planted bug: ``bug``" in its algorithm name and in its claim's
    conditions and assumptions (the (ε, δ) it states is unchanged, and false)."""
    claim = dataclasses.replace(release.claim, conditions=(*release.claim.conditions, f"planted bug: {bug}"),
                                assumptions={**release.claim.assumptions, "planted bug": bug})
    return dataclasses.replace(release, claim=claim, algorithm=f"{release.algorithm} [planted bug: {bug}]")


# ---- the four mutants of the paper's pitfalls ----------------------------------------------------------------------

_RAW = "no Lipschitzian extension: raw gradients ∇F with L_{i+1} = H·D_{i+1}"
_CLIPPED = "ℓ2-clipped gradients clip(∇F, L) instead of ∇F_L"
_REUSED = "every epoch of Algorithm 5 on the whole dataset (overlapping batches)"
_SLOPPY = "each phase's ERM solved by one incremental pass with step 1/μ_G"


def algorithm_2_without_extension(Z: Any, loss: ConvexLoss, domain: Any, L: float, H: float, lam: float, x0: Any,
                                  epsilon: float, delta: float, rng: np.random.Generator, **kwargs: Any) -> Release:
    """Mutant of ``algorithm_2`` (Algorithm 2, Theorem 2): every epoch's inner Algorithm 5 runs on the raw
    per-sample gradients ∇F with the calibration constants L_1 = L, L_{i+1} = H·D_{i+1}, without the Lipschitzian
    extension.  Same arguments, keywords, claim and return as ``algorithm_2`` (the release marked)."""
    return mark(run_with_parts("algorithm_2", RAW_GRADIENTS, Z, loss, domain, L, H, lam, x0, epsilon, delta, rng,
                                **kwargs), _RAW)


def algorithm_4_clipped_gradients(Z: Any, loss: ConvexLoss, domain: Any, L: float, H: float, x0: Any,
                                  epsilon: float, delta: float, rng: np.random.Generator, **kwargs: Any) -> Release:
    """Mutant of ``algorithm_4`` (Algorithm 4, Propositions 2 / 3): the inner solver follows the ℓ2-clipped
    gradients clip(∇F, L) instead of the extension's ∇F_L (identical for GLM and radial losses, not for
    ``DiagonalQuadraticLoss``).  Same arguments, keywords, claim and return as ``algorithm_4`` (marked)."""
    return mark(run_with_parts("algorithm_4", CLIPPED_GRADIENTS, Z, loss, domain, L, H, x0, epsilon, delta, rng,
                                **kwargs), _CLIPPED)


def algorithm_5_reused_epochs(Z: Any, loss: ConvexLoss, domain: Any, L: float, H: float, x0: Any,
                              epsilon: float, delta: float, rng: np.random.Generator, **kwargs: Any) -> Release:
    """Mutant of ``algorithm_5`` (Algorithm 5, Theorems 6 / 7): line 8 takes S_i = the whole dataset in every
    epoch (overlapping batches), so each record enters T_5 regularised ERMs.  Same arguments, keywords, claim and
    return as ``algorithm_5`` (marked)."""
    return mark(run_with_parts("algorithm_5", REUSED_EPOCHS, Z, loss, domain, L, H, x0, epsilon, delta, rng,
                                **kwargs), _REUSED)


def algorithm_4_sloppy_solver(Z: Any, loss: ConvexLoss, domain: Any, L: float, H: float, x0: Any,
                              epsilon: float, delta: float, rng: np.random.Generator, **kwargs: Any) -> Release:
    """Mutant of ``algorithm_4`` (Algorithm 4, line 4): each phase's regularised ERM is replaced by one incremental
    pass over its batch with step 1/μ_G (μ_G = 2/(η_i n_0)), whose output moves by up to Lη_i n_0 when the last
    record is replaced.  Same arguments, keywords, claim and return as ``algorithm_4`` (marked)."""
    return mark(run_with_parts("algorithm_4", INCREMENTAL_SOLVER, Z, loss, domain, L, H, x0, epsilon, delta, rng,
                                **kwargs), _SLOPPY)


# ---- reports the noise scale, draws it/√2 -------------------------------------------------------------------------

_GAUSS = "reports the Gaussian σ_i, draws σ_i/√2"
_LAPLACE = "reports the Laplace scale b_i, draws b_i/√2"


def _noise_mutant(algorithm: Callable[..., Release], planted: Callable[..., Any], name: str,
                  bug: str) -> Callable[..., Release]:
    def mutant(*args: Any, **kwargs: Any) -> Release:
        return mark(planted(*args, **kwargs), bug)

    mutant.__name__ = mutant.__qualname__ = name
    mutant.__doc__ = (f"Planted bug: ``{algorithm.__name__}`` that {bug} (every other draw, its σ_i, its claim and "
                      f"its transcript unchanged).  Same arguments, keywords and return as ``{algorithm.__name__}`` "
                      "(the release marked).")
    return mutant


def _gauss(algorithm: Callable[..., Release]) -> Callable[..., Release]:
    return _noise_mutant(algorithm, under_noised(algorithm), f"accd22_{algorithm.__name__}_draws_sigma_over_sqrt2",
                         _GAUSS)


def _laplace(algorithm: Callable[..., Release]) -> Callable[..., Release]:
    return _noise_mutant(algorithm, under_noised_laplace(algorithm),
                         f"accd22_{algorithm.__name__}_draws_laplace_scale_over_sqrt2", _LAPLACE)


accd22_algorithm_1_draws_sigma_over_sqrt2 = _gauss(algorithm_1)
accd22_algorithm_2_draws_sigma_over_sqrt2 = _gauss(algorithm_2)
accd22_algorithm_3_draws_sigma_over_sqrt2 = _gauss(algorithm_3)
accd22_algorithm_4_draws_sigma_over_sqrt2 = _gauss(algorithm_4)
accd22_algorithm_5_draws_sigma_over_sqrt2 = _gauss(algorithm_5)
accd22_algorithm_6_draws_sigma_over_sqrt2 = _gauss(algorithm_6)
accd22_algorithm_1_draws_laplace_scale_over_sqrt2 = _laplace(algorithm_1)
accd22_algorithm_2_draws_laplace_scale_over_sqrt2 = _laplace(algorithm_2)
accd22_algorithm_3_draws_laplace_scale_over_sqrt2 = _laplace(algorithm_3)
accd22_algorithm_4_draws_laplace_scale_over_sqrt2 = _laplace(algorithm_4)
accd22_algorithm_5_draws_laplace_scale_over_sqrt2 = _laplace(algorithm_5)
accd22_algorithm_6_draws_laplace_scale_over_sqrt2 = _laplace(algorithm_6)


# ---- planted bugs of the checks that no copy above makes fail (mutants.accd22.catches) ---------------------------

_NO_NOISE = "adds no noise (every Laplace and Gaussian draw is its location 0) while reporting its scales"
_STEP = ("halves the step one epoch early: η_i = 2^{−(i+1)}η_0 (Algorithm 5, line 9) or 2^{−4(i+1)}η (Algorithm 4, "
         "line 3)")
_REUSED_INNER = "every epoch of the inner Algorithm 5 on all the records of its call (overlapping batches)"
_ROUNDED_UP = "T = ⌈log n⌉ epochs of m = ⌊n/T⌋ (Theorem 8: T = ⌊log n⌋)"


def _without_noise(algorithm: Callable[..., Release]) -> Callable[..., Release]:
    return _noise_mutant(algorithm, noise_free(algorithm), f"accd22_{algorithm.__name__}_without_noise", _NO_NOISE)


def _step_off_by_one(algorithm: Callable[..., Release]) -> Callable[..., Release]:
    """``algorithm`` with its step halved one epoch early.  In Algorithm 5 every η_i = 2^{−i}·(η_0/2), the same
    floats as the reference at ``eta_scale``/2 (a power-of-two factor is exact); in Algorithm 4 every
    η_i = 2^{−4i}·(η/16), the reference at η/16 (η its keyword or Proposition 2's default)."""
    name = algorithm.__name__

    def mutant(*args: Any, **kwargs: Any) -> Release:
        if name == "algorithm_4":
            eta = kwargs.get("eta")
            if eta is None:  # Proposition 2's default step (algorithms.algorithm_4), from the public inputs
                Z, _, domain, L, _, _, epsilon, delta = args[:8]
                n = np.asarray(Z).shape[0]
                d = domain.d if domain.d is not None else np.asarray(args[5]).size  # Ball(r): d of x0
                beta = kwargs.get("beta") or 1.0 / (n + d)
                eta = th.proposition_2_eta(domain.diameter, L, n, d, epsilon, delta, beta)
            kwargs["eta"] = float(eta) / 16.0
        else:
            kwargs["eta_scale"] = float(kwargs.get("eta_scale", 1.0)) / 2.0
        return mark(algorithm(*args, **kwargs), _STEP)

    mutant.__name__ = mutant.__qualname__ = f"accd22_{name}_step_off_by_one"
    mutant.__doc__ = (f"Planted bug: ``{name}`` that {_STEP} (a privacy-neutral schedule bug: σ_i and the "
                      "sensitivity scale together; the transcript leaves the public schedule).  Same arguments, "
                      f"keywords and return as ``{name}`` (the release marked).")
    return mutant


accd22_algorithm_1_without_noise = _without_noise(algorithm_1)
accd22_algorithm_2_without_noise = _without_noise(algorithm_2)
accd22_algorithm_3_without_noise = _without_noise(algorithm_3)
accd22_algorithm_4_without_noise = _without_noise(algorithm_4)
accd22_algorithm_5_without_noise = _without_noise(algorithm_5)
accd22_algorithm_6_without_noise = _without_noise(algorithm_6)
accd22_algorithm_1_step_off_by_one = _step_off_by_one(algorithm_1)
accd22_algorithm_2_step_off_by_one = _step_off_by_one(algorithm_2)
accd22_algorithm_3_step_off_by_one = _step_off_by_one(algorithm_3)
accd22_algorithm_4_step_off_by_one = _step_off_by_one(algorithm_4)
accd22_algorithm_5_step_off_by_one = _step_off_by_one(algorithm_5)
accd22_algorithm_6_step_off_by_one = _step_off_by_one(algorithm_6)


def algorithm_1_without_extension(Z: Any, loss: ConvexLoss, domain: Any, L: float, H: float, x0: Any,
                                  epsilon: float, delta: float, rng: np.random.Generator, **kwargs: Any) -> Release:
    """Mutant of ``algorithm_1`` (Algorithm 1, Proposition 1.1): line 1 skipped, Algorithm 5 runs on the raw
    per-sample gradients ∇F with the calibration's L (private only where every F(·; s) is L-Lipschitz).  Same
    arguments, keywords, claim and return as ``algorithm_1`` (marked)."""
    return mark(run_with_parts("algorithm_1", RAW_GRADIENTS, Z, loss, domain, L, H, x0, epsilon, delta, rng,
                                **kwargs), _RAW)


def algorithm_5_without_extension(Z: Any, loss: ConvexLoss, domain: Any, L: float, H: float, x0: Any,
                                  epsilon: float, delta: float, rng: np.random.Generator, **kwargs: Any) -> Release:
    """Mutant of ``algorithm_5`` (Algorithm 5 on the extension, Theorems 6 / 7): the raw gradients ∇F in place of
    ∇F_L (the "Lipschitz (clipping) constant" ignored).  Same arguments, keywords, claim and return as
    ``algorithm_5`` (marked)."""
    return mark(run_with_parts("algorithm_5", RAW_GRADIENTS, Z, loss, domain, L, H, x0, epsilon, delta, rng,
                                **kwargs), _RAW)


def algorithm_2_reused_epochs(Z: Any, loss: ConvexLoss, domain: Any, L: float, H: float, lam: float, x0: Any,
                              epsilon: float, delta: float, rng: np.random.Generator, **kwargs: Any) -> Release:
    """Mutant of ``algorithm_2``: each epoch's inner Algorithm 5 runs every one of its T_5 epochs on all m records
    of the epoch (line 8's S_i not disjoint), so each record enters T_5·k regularised ERMs.  Same arguments,
    keywords, claim and return as ``algorithm_2`` (marked)."""
    return mark(run_with_parts("algorithm_2", REUSED_EPOCHS, Z, loss, domain, L, H, lam, x0, epsilon, delta, rng,
                                **kwargs), _REUSED_INNER)


def algorithm_3_reused_epochs(Z: Any, loss: ConvexLoss, domain: Any, L: float, H: float, lam: float, x0: Any,
                              epsilon: float, delta: float, rng: np.random.Generator, **kwargs: Any) -> Release:
    """Mutant of ``algorithm_3``: every inner Algorithm 5 (line 2's and those of line 5's Algorithm 2) runs each of
    its epochs on all the records of its call.  Same arguments, keywords, claim and return as ``algorithm_3``
    (marked)."""
    return mark(run_with_parts("algorithm_3", REUSED_EPOCHS, Z, loss, domain, L, H, lam, x0, epsilon, delta, rng,
                                **kwargs), _REUSED_INNER)


def algorithm_6_reused_epochs(Z: Any, loss: ConvexLoss, domain: Any, L: float, H: float, lam: float, kappa: float,
                              x0: Any, epsilon: float, delta: float, rng: np.random.Generator,
                              **kwargs: Any) -> Release:
    """Mutant of ``algorithm_6``: each epoch's inner Algorithm 5 runs every one of its epochs on all m records of
    the epoch.  Same arguments, keywords, claim and return as ``algorithm_6`` (marked)."""
    return mark(run_with_parts("algorithm_6", REUSED_EPOCHS, Z, loss, domain, L, H, lam, kappa, x0, epsilon, delta,
                                rng, **kwargs), _REUSED_INNER)


def algorithm_6_epochs_rounded_up(Z: Any, loss: ConvexLoss, domain: Any, L: float, H: float, lam: float,
                                  kappa: float, x0: Any, epsilon: float, delta: float, rng: np.random.Generator,
                                  **kwargs: Any) -> Release:
    """Mutant of ``algorithm_6``: where T and m are not given, T = ⌈log n⌉ (at least 1) and m = ⌊n/T⌋ instead of
    Theorem 8's ⌊log n⌋ (a privacy-neutral schedule bug).  Same arguments, keywords, claim and return as
    ``algorithm_6`` (marked)."""
    if kwargs.get("T") is None and kwargs.get("m") is None:
        n = np.asarray(Z).shape[0]
        T = max(1, math.ceil(math.log(n)))
        kwargs.update(T=T, m=n // T)
    return mark(algorithm_6(Z, loss, domain, L, H, lam, kappa, x0, epsilon, delta, rng, **kwargs), _ROUNDED_UP)


#: the mutants of the paper's pitfalls by (algorithm, bug): the audits of ``verification/papers/accd22_privacy``
MUTANTS: dict[tuple[str, str], Callable[..., Release]] = {
    ("algorithm_2", "raw_gradients"): algorithm_2_without_extension,
    ("algorithm_4", "clipped_gradients"): algorithm_4_clipped_gradients,
    ("algorithm_5", "reused_epochs"): algorithm_5_reused_epochs,
    ("algorithm_4", "incremental_solver"): algorithm_4_sloppy_solver,
    ("algorithm_1", "raw_gradients"): algorithm_1_without_extension,
    ("algorithm_5", "raw_gradients"): algorithm_5_without_extension,
    ("algorithm_2", "reused_epochs"): algorithm_2_reused_epochs,
    ("algorithm_3", "reused_epochs"): algorithm_3_reused_epochs,
    ("algorithm_6", "reused_epochs"): algorithm_6_reused_epochs,
    **{(f"algorithm_{k}", "without_noise"): globals()[f"accd22_algorithm_{k}_without_noise"] for k in range(1, 7)},
}


