"""Planted implementations of A_NSGD for testing ``dpsco compare``: one faithful, four subtly wrong.

(Moved from ``verification/campaign/compare_variants.py``; the detection campaign that measures them is
``dpsco.verification.campaign.compare_detection.detection_campaign``.)

Written independently from the paper (Bassily, Feldman, Talwar, Thakurta, NeurIPS 2019, Algorithm 1 and
Theorem 3.2), *not* by calling ``dpsco.reference.bftt19``: a comparison of our code with a copy of itself
would prove nothing.  Only the public constants of the ``problem`` (L = ``problem.lipschitz``,
M = ``problem.radius``, the declared bounds) are read from it.  The loss must be logistic (the gradient
−y·σ(−y⟨w, x⟩)·x is coded here).

Algorithm 1 with Theorem 3.2's parameters, as printed:

    T = ⌊min(n/8, ε²n²/(32 d log(1/δ)))⌋,  η = M/(L√T),  m = ⌈max(n√(ε/(4T)), 1)⌉,
    σ² = 8 T L² log(1/δ)/(n² ε²),  w_0 = 0,
    w_{t+1} = Proj_{B(0,M)}(w_t − η((1/m)Σ_j ∇ℓ(w_t, z_{i(t,j)}) + G_t)),  i(t, j) i.i.d. uniform,  G_t ~ N(0, σ²I),
    output  w̄ = (1/T) Σ_{t=1..T} w_t.

Variants (``variant=``):

``"faithful"``      the above;
``"last_iterate"``  returns w_T instead of the average (a common shortcut);
``"double_step"``   η = 2M/(L√T) (a factor 2 in the step size);
``"sigma_no_log"``  σ² = 8 T L²/(n² ε²): the log(1/δ) factor dropped (privacy claim false);
``"sigma_half"``    σ halved (σ² / 4; privacy claim false).

Every variant claims (ε, δ)-DP under replace-one neighbouring (the wrong ones falsely so for the σ bugs).
Each function has the interface :func:`dpsco.verification.campaign.compare.compare` expects of a candidate:
``f(X, y, problem, epsilon, delta, rng, *, replicates=None) -> Release``.  **Never use these for anything
but testing the comparison.**
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import expit

from dpsco.reference.privacy import PrivacyClaim, Release
from dpsco.reference.problem import ERMProblem

__all__ = ["VARIANTS", "WRONG_VARIANTS", "nsgd_variant", "faithful_nsgd", "last_iterate_nsgd", "double_step_nsgd",
           "sigma_no_log_nsgd", "sigma_half_nsgd"]

VARIANTS: tuple[str, ...] = ("faithful", "last_iterate", "double_step", "sigma_no_log", "sigma_half")
WRONG_VARIANTS: tuple[str, ...] = VARIANTS[1:]


def nsgd_variant(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator, *,
                 variant: str = "faithful", replicates: int | None = None) -> Release:
    """Independent A_NSGD (module docstring) in one of the planted ``variant`` s.

    Parameters
    ----------
    X : (n, d) array with ‖x‖ ≤ problem.bounds.x_max;  y : (n,) labels in {−1, +1}.
    problem : ERMProblem with the logistic loss and W = B(0, M).
    epsilon, delta : claimed privacy (ε ≤ 1, 0 < δ < 1).
    rng : numpy Generator (the only source of randomness).
    variant : one of ``VARIANTS``.
    replicates : R independent runs at once; output (R, d) (None: one run, output (d,)).

    Returns
    -------
    Release whose output is the final point (see ``variant``), with an (ε, δ) replace-one claim.

    Raises
    ------
    ValueError / TypeError on bad inputs (unknown variant, non-logistic loss, wrong shapes, T < 1).
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    if not isinstance(problem, ERMProblem):
        raise TypeError(f"problem must be an ERMProblem, got {type(problem).__name__}")
    if problem.loss.name != "logistic":
        raise ValueError(f"problem.loss must be logistic for these planted variants, got {problem.loss.name!r}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    Xa = np.asarray(X, dtype=np.float64)
    ya = np.asarray(y, dtype=np.float64)
    if Xa.ndim != 2 or ya.shape != (Xa.shape[0],):
        raise ValueError(f"X must be (n, d) and y (n,), got {Xa.shape} and {ya.shape}")
    if not (0.0 < delta < 1.0) or not (0.0 < epsilon <= 1.0):
        raise ValueError(f"epsilon must lie in (0, 1] and delta in (0, 1), got {epsilon}, {delta}")
    R = 1 if replicates is None else int(replicates)
    if R < 1:
        raise ValueError(f"replicates must be >= 1, got {replicates}")
    n, d = Xa.shape
    L, M = float(problem.lipschitz), float(problem.radius)
    log_term = math.log(1.0 / delta)
    T = math.floor(min(n / 8.0, epsilon**2 * n**2 / (32.0 * d * log_term)))
    if T < 1:
        raise ValueError(f"T = {T} < 1: Theorem 3.2's regime is vacuous at n = {n}")
    m = min(n, math.ceil(max(n * math.sqrt(epsilon / (4.0 * T)), 1.0) - 1e-12))
    eta = M / (L * math.sqrt(T))
    sigma2 = 8.0 * T * L**2 * log_term / (n**2 * epsilon**2)
    if variant == "double_step":
        eta = 2.0 * eta  # BUG
    elif variant == "sigma_no_log":
        sigma2 = sigma2 / log_term  # BUG
    elif variant == "sigma_half":
        sigma2 = sigma2 / 4.0  # BUG: σ × 0.5
    sigma = math.sqrt(sigma2)

    w = np.zeros((R, d))
    acc = np.zeros((R, d))
    for _ in range(T):
        idx = rng.integers(0, n, size=(R, m))
        Xb, yb = Xa[idx], ya[idx]  # (R, m, d), (R, m)
        s = np.einsum("rmd,rd->rm", Xb, w)
        coef = -yb * expit(-yb * s)  # d/ds log(1 + e^{−ys})
        g = np.einsum("rm,rmd->rd", coef, Xb) / m
        w = w - eta * (g + sigma * rng.standard_normal((R, d)))
        nrm = np.linalg.norm(w, axis=1, keepdims=True)
        w = np.where(nrm > M, w * (M / np.where(nrm > 0, nrm, 1.0)), w)
        acc += w
    out = w if variant == "last_iterate" else acc / T
    claim = PrivacyClaim(notion="approx-DP", epsilon=float(epsilon), delta=float(delta), neighbouring="replace-one",
                         source=f"planted NSGD variant {variant!r} (claims Bassily et al. 2019, Thm 3.1)",
                         assumptions={"lipschitz": L, "radius": M})
    return Release(output=out[0] if replicates is None else out, replicates=replicates, claim=claim, gradient_evaluations=T * m,
                   parameters={"T": T, "m": m, "eta": eta, "sigma2": sigma2, "variant": variant},
                   algorithm=f"planted A_NSGD variant: {variant}")


def faithful_nsgd(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator,
                  *, replicates: int | None = None) -> Release:
    """Faithful independent A_NSGD (see :func:`nsgd_variant`)."""
    return nsgd_variant(X, y, problem, epsilon, delta, rng, variant="faithful", replicates=replicates)


def last_iterate_nsgd(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator,
                      *, replicates: int | None = None) -> Release:
    """WRONG: returns w_T instead of the average of w_1..w_T."""
    return nsgd_variant(X, y, problem, epsilon, delta, rng, variant="last_iterate", replicates=replicates)


def double_step_nsgd(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator,
                     *, replicates: int | None = None) -> Release:
    """WRONG: step size η = 2M/(L√T)."""
    return nsgd_variant(X, y, problem, epsilon, delta, rng, variant="double_step", replicates=replicates)


def sigma_no_log_nsgd(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator,
                      *, replicates: int | None = None) -> Release:
    """WRONG: σ² without the log(1/δ) factor."""
    return nsgd_variant(X, y, problem, epsilon, delta, rng, variant="sigma_no_log", replicates=replicates)


def sigma_half_nsgd(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator,
                    *, replicates: int | None = None) -> Release:
    """WRONG: σ × 0.5."""
    return nsgd_variant(X, y, problem, epsilon, delta, rng, variant="sigma_half", replicates=replicates)
