"""One-sided Clopper–Pearson bounds for binomial proportions, and the ε lower bound built on them.

Every estimator of the auditor turns counts of one event E into bounds P_lo <= P(E) and Q_hi >= Q(E), each
at level (1 − confidence)/2, so that both hold together with probability >= confidence (union bound).  This
module is the bottom of ``dpsco.verification.auditing``: it imports nothing from the package.

References
----------
C. J. Clopper, E. S. Pearson. The use of confidence or fiducial limits illustrated in the case of the
binomial. Biometrika 26(4), 1934.
"""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np
from scipy.special import betainc, betaincc, betainccinv, betaincinv

__all__ = [
    "CLOPPER_PEARSON_MAX_N",
    "check_confidence",
    "check_delta",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "confidence_bounds",
    "epsilon_lower_bound",
    "selection_scores",
]

CLOPPER_PEARSON_MAX_N = 10**12
"""Largest n accepted by the Clopper–Pearson bounds: the range over which they are tested against exact
binomial tails (``tests/test_clopper_pearson.py``).  Larger n raises ValueError."""


def check_confidence(confidence: Any) -> float:
    """``confidence`` as a float in the open interval (0, 1); TypeError for a non-real, ValueError outside."""
    if isinstance(confidence, bool) or not isinstance(confidence, Real):
        raise TypeError(f"confidence must be a real number in (0, 1), got {type(confidence).__name__}")
    c = float(confidence)
    if not (0.0 < c < 1.0):
        raise ValueError(f"confidence must lie in the open interval (0, 1), got {c}")
    return c


def check_delta(delta: Any) -> float:
    """The δ of an audit as a float in [0, 1); TypeError for a non-real, ValueError outside."""
    if isinstance(delta, bool) or not isinstance(delta, Real):
        raise TypeError(f"delta must be a real number, got {type(delta).__name__}")
    d = float(delta)
    if not (0.0 <= d < 1.0):
        raise ValueError(f"delta must lie in [0, 1), got {delta!r}")
    return d


def _check_counts(k: Any, n: Any) -> tuple[np.ndarray, np.ndarray]:
    ka = np.asarray(k)
    na = np.asarray(n)
    if not (np.issubdtype(ka.dtype, np.integer) or np.all(ka == np.floor(ka))):
        raise ValueError("k must be integer counts")
    if np.any(na < 1) or np.any(ka < 0) or np.any(ka > na):
        raise ValueError("counts must satisfy 0 <= k <= n and n >= 1")
    if np.any(na > CLOPPER_PEARSON_MAX_N):
        raise ValueError(
            f"n = {float(np.max(na)):.6g} exceeds the validated range of the Clopper–Pearson bounds "
            f"(n <= {CLOPPER_PEARSON_MAX_N:.0e})"
        )
    return ka.astype(np.float64), na.astype(np.float64)


def _check_alpha(alpha: Any) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not (0.0 < float(alpha) < 1.0):
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    return float(alpha)


_ONE_BITS = int(np.float64(1.0).view(np.int64))


def _beta_root(a: np.ndarray, b: np.ndarray, alpha: float, *, upper_tail: bool) -> np.ndarray:
    """x in (0, 1) with I_x(a, b) = α (``upper_tail=False``) or 1 − I_x(a, b) = α (``upper_tail=True``).

    a, b >= 1: 1-D float arrays of equal length.  scipy's inverse (``betaincinv``/``betainccinv``) is only
    a first guess, kept when the forward function confirms it to a relative 1e-9 of the tail probability;
    it is wrong by a factor of about 2 for a = 1000 and b >~ 1e7 (at the time of writing), for example.
    Where not confirmed, the root is bracketed between two adjacent doubles by bisection on their bit
    patterns (monotone in value on [0, 1]; at most 62 steps at any scale), and the conservative side is
    returned: just below the root for the lower tail (a lower bound), just above it for the upper tail.
    """
    # Evaluate whichever tail of the beta law carries min(α, 1 − α), so the residual is not rounded against 1.
    flip = alpha > 0.5
    use_complement = upper_tail != flip  # compare 1 − I_x (betaincc, decreasing) rather than I_x (increasing)
    target = 1.0 - alpha if flip else alpha
    forward = betaincc if use_complement else betainc
    inverse = betainccinv if use_complement else betaincinv
    with np.errstate(all="ignore"):
        x = np.asarray(inverse(a, b, target), dtype=np.float64).copy()
        ok = np.isfinite(x) & (x > 0.0) & (x < 1.0)
        ok[ok] = np.abs(forward(a[ok], b[ok], x[ok]) - target) <= 1e-9 * target
    bad = np.flatnonzero(~ok)
    if bad.size:
        ab, bb = a[bad], b[bad]
        lo = np.zeros(bad.size, dtype=np.int64)  # bits of 0.0: below the root
        hi = np.full(bad.size, _ONE_BITS, dtype=np.int64)  # bits of 1.0: above it
        while True:
            still = hi - lo > 1
            if not still.any():
                break
            mid = lo + (hi - lo) // 2
            with np.errstate(all="ignore"):
                v = forward(ab, bb, mid.view(np.float64))
            below = (v > target) if use_complement else (v < target)
            lo = np.where(still & below, mid, lo)
            hi = np.where(still & ~below, mid, hi)
        x[bad] = (hi if upper_tail else lo).view(np.float64)
    return x


def clopper_pearson_lower(k: Any, n: Any, alpha: float) -> float | np.ndarray:
    """One-sided Clopper–Pearson lower confidence bound for a binomial proportion.

    P_lo = Beta⁻¹(α; k, n − k + 1) (0 when k = 0), i.e. the p with P(Bin(n, p) >= k) = α:
    P(p < P_lo) <= α for every p (exact, conservative).  Accurate (the tail at the returned bound is α to
    a relative 1e-9, or the bound is within one double of the root, on its conservative side) for every
    n <= ``CLOPPER_PEARSON_MAX_N`` = 1e12; larger n raises ValueError.

    Parameters
    ----------
    k : int or int array, 0 <= k <= n
    n : int or int array, 1 <= n <= 1e12
    alpha : float in (0, 1)
        One-sided error probability.
    """
    ka, na = _check_counts(k, n)
    a = _check_alpha(alpha)
    ka, na = np.broadcast_arrays(ka, na)
    out = np.zeros(ka.shape)
    m = ka > 0
    out[m] = _beta_root(ka[m], na[m] - ka[m] + 1.0, a, upper_tail=False)
    return float(out) if out.ndim == 0 else out


def clopper_pearson_upper(k: Any, n: Any, alpha: float) -> float | np.ndarray:
    """One-sided Clopper–Pearson upper confidence bound: Q_hi = Beta⁻¹(1 − α; k + 1, n − k) (1 when k = n).

    The q with P(Bin(n, q) <= k) = α; with k = 0 it is 1 − α^{1/n} > 0 (never 0).  P(p > Q_hi) <= α for
    every p.  Accuracy and range as :func:`clopper_pearson_lower`.
    """
    ka, na = _check_counts(k, n)
    a = _check_alpha(alpha)
    ka, na = np.broadcast_arrays(ka, na)
    out = np.ones(ka.shape)
    m = ka < na
    out[m] = _beta_root(ka[m] + 1.0, na[m] - ka[m], a, upper_tail=True)
    return float(out) if out.ndim == 0 else out


def confidence_bounds(k_p: Any, n_p: Any, k_q: Any, n_q: Any, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """(P_lo, Q_hi): the lower bound of P(E) from k_p of n_p and the upper bound of Q(E) from k_q of n_q runs,
    each at level (1 − confidence)/2, so that both hold with probability >= ``confidence`` (arrays broadcast)."""
    conf = check_confidence(confidence)
    half = (1.0 - conf) / 2.0
    return np.asarray(clopper_pearson_lower(k_p, n_p, half)), np.asarray(clopper_pearson_upper(k_q, n_q, half))


def epsilon_lower_bound(
    k_p: Any, n_p: Any, k_q: Any, n_q: Any, delta: float, confidence: float
) -> float | np.ndarray:
    """ε_lb = log((P_lo − δ)/Q_hi), clipped at 0, from counts of one event E on the two sides.

    P_lo: Clopper–Pearson lower bound of P(E) from k_p of n_p runs on the numerator side; Q_hi: upper bound
    of Q(E) from k_q of n_q runs on the other side; each at level (1 − confidence)/2.  If the mechanism is
    (ε, δ)-DP and E was fixed independently of these counts, ε_lb <= ε with probability >= confidence
    (docs/derivations.md#soundness-of-the-sample-split-threshold-audit).
    """
    d = float(delta)
    if not (0.0 <= d < 1.0):
        raise ValueError(f"delta must lie in [0, 1), got {delta!r}")
    conf = check_confidence(confidence)
    half = (1.0 - conf) / 2.0
    p_lo = np.asarray(clopper_pearson_lower(k_p, n_p, half))
    q_hi = np.asarray(clopper_pearson_upper(k_q, n_q, half))
    num = p_lo - d
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(num > 0, np.log(np.where(num > 0, num, 1.0) / q_hi), 0.0)
    out = np.maximum(out, 0.0)
    return float(out) if out.ndim == 0 else out


def selection_scores(k_p: np.ndarray, n_p: int, k_q: np.ndarray, n_q: int, delta: float, half: float) -> np.ndarray:
    """Unclipped log((P_lo − δ)/Q_hi) (−inf where P_lo <= δ), each bound at level ``half``: the selection
    criterion of the threshold route (larger is better)."""
    p_lo = np.asarray(clopper_pearson_lower(k_p, n_p, half))
    q_hi = np.asarray(clopper_pearson_upper(k_q, n_q, half))
    num = p_lo - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(num > 0, np.log(np.where(num > 0, num, 1.0) / q_hi), -np.inf)
