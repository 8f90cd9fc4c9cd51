"""What Lowy & Razaviyayn's Algorithms 1–3 share: the up-front checks, line 2's noise (``release_noise``) and its
``dp_accounting`` event, the certified line 1 (``line_1``) and the release's claim (``output_claim``).

Every function here depends on public inputs only, except ``line_1`` (the certified inner step, whose certificate
and path are diagnostics).  The algorithms are in :mod:`dpsco.reference.lr21.algorithms` (Algorithms 1 and 2) and
:mod:`dpsco.reference.lr21.applications` (Sec. 4: tilted ERM, ℓ2-robust GLMs, Algorithm 3).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from dpsco.reference.lr21.inner_solvers import (STOCHASTIC_METHODS, Fallback, InnerResult, Method, certified_inner,
                                                certified_inner_replicates)
from dpsco.reference.lr21.objectives import GLMObjective
from dpsco.reference.noise import NoiseCalibration, perturb_and_project
from dpsco.reference.privacy import PrivacyClaim
from dpsco.reference.problem import ERMProblem
from dpsco.reference.validation import check_calibration_budget, check_positive_int, check_rng

__all__ = ["PAPER", "check_inputs", "data_clipping", "line_1", "noise_event", "output_claim", "release_noise"]

PAPER = "Lowy & Razaviyayn (AAAI 2021)"


def check_inputs(problem: ERMProblem, X: Any, y: Any, epsilon: Any, delta: Any, rng: Any, clip: bool
                  ) -> tuple[np.ndarray, np.ndarray, int, float, float, np.random.Generator]:
    if not isinstance(problem, ERMProblem):
        raise TypeError(f"problem must be an ERMProblem, got {type(problem).__name__}")
    (eps, dl), rng = check_calibration_budget(epsilon, delta), check_rng(rng)
    if not dl < 0.5:
        raise ValueError(f"delta must lie in [0, 1/2) (c_delta, Thm 0.1), got {dl}")
    if not problem.domain.bounded:
        raise ValueError("problem.domain must be a bounded ball B(0, R): the paper's R (Sec. 1)")
    Xa, ya, n_clipped = problem.check(X, y, clip=clip)
    return Xa, ya, n_clipped, eps, dl, rng


def noise_event(cal: NoiseCalibration) -> tuple[Any, str | None]:
    """The line-2 noise ``cal`` as a ``dp_accounting`` event and the NeighboringRelation it is composed under.

    Gaussian noise of standard deviation σ (per coordinate) calibrated to the L2 sensitivity Δ = Δ_T:
    (``GaussianDpEvent(σ/Δ)``, "ADD_OR_REMOVE_ONE").  dp_accounting's Gaussian event compares two outputs whose
    means are at L2 distance 1 with noise multiplier z; the centres w_T(X), w_T(X') of replace-one neighbours are
    at distance ≤ Δ, so z = σ/Δ under ADD_OR_REMOVE_ONE (shift 1 in both directions) is exactly the privacy curve
    of the worst pair; the projection onto B(0, R) is post-processing.  The ℓ2-Laplace (Gamma-radius) noise of
    δ = 0 has no dp_accounting event: (None, None).
    """
    if not isinstance(cal, NoiseCalibration):
        raise TypeError(f"cal must be a NoiseCalibration, got {type(cal).__name__}")
    if cal.mechanism != "gaussian":
        return None, None
    from dp_accounting import dp_event

    return dp_event.GaussianDpEvent(cal.scale / cal.sensitivity), "ADD_OR_REMOVE_ONE"


def data_clipping(clip: bool) -> str:
    """The claim's record of the ``clip`` option (public), never the number of rows clipped (data-dependent)."""
    return ("rows outside the declared bounds are clipped to them (clip=True; a data-independent map; the number "
            "of rows clipped is not published)" if clip else "none (clip=False: data outside the bounds is refused)")


def output_claim(eps: float, dl: float, source: str, assumptions: dict[str, Any], alpha: float, modulus: float,
           cal: NoiseCalibration) -> PrivacyClaim:
    """The replace-one claim of line 2's noise ``cal``; every field a function of public inputs (the certificate
    reached and the path taken depend on the data: they are diagnostics, never published)."""
    cond = (f"‖w_T − w*‖ ≤ √(2α/modulus) = {math.sqrt(2 * alpha / modulus):.6g} certified a posteriori on every "
            "run (the certificate gate: the inner method's point if certified, else the certified solver's; which "
            "one, and the certificate reached, are diagnostics, not published)",
            "w* = argmin over B(0, R) (Lemma 0.2 on W = B(0, R)); replace-one neighbours with n fixed")
    event, relation = noise_event(cal)
    return PrivacyClaim(notion="pure-DP" if dl == 0 else "approx-DP", epsilon=eps, delta=dl,
                        neighbouring="replace-one", source=source, assumptions=assumptions, conditions=cond,
                        event=event, event_neighbouring=relation)


def release_noise(w_T: np.ndarray, cal: NoiseCalibration, R: float, rng: np.random.Generator,
                   replicates: int | None) -> np.ndarray:
    return perturb_and_project(w_T, cal, R, rng, None if replicates is None else check_positive_int(replicates,
                                                                                                   "replicates"))


def line_1(obj: GLMObjective, method: Method | Callable[..., np.ndarray], modulus: float, alpha: float, T: int,
            smoothness: float | None, opt_rng: np.random.Generator, fallback: Fallback,
            replicates: int | None) -> InnerResult:
    """Line 1 of Algorithms 1 and 2: one certified run of 𝓜 on ``opt_rng``; with ``replicates=k`` and a stochastic
    𝓜 ("sgd", "katyusha"), k independent certified runs, run r on child stream r of ``opt_rng``
    (:func:`dpsco.reference.lr21.inner_solvers.certified_inner_replicates`); a deterministic 𝓜 runs once."""
    if replicates is not None and isinstance(method, str) and method in STOCHASTIC_METHODS:
        return certified_inner_replicates(obj, method, modulus, alpha, T, smoothness, opt_rng.spawn(replicates),
                                          fallback=fallback)
    return certified_inner(obj, method, modulus, alpha, T, smoothness, opt_rng, fallback=fallback)
