"""The hockey-stick (δ-side) route of the auditor: a lower bound on δ at the claimed ε.

For a fixed ε and an event E fixed independently of the counts (notation of
:mod:`dpsco.verification.auditing.gdp`): δ_lb = P_lo − e^ε Q_hi (clipped at 0) <= P(E) − e^ε Q(E)
<= H_{e^ε}(P ‖ Q) = δ(ε), the mechanism's privacy curve at ε (the hockey-stick divergence is the supremum of
P(E) − e^ε Q(E) over events).  Assumption-free.  For one event, δ_lb > δ ⇔ log((P_lo − δ)/Q_hi) > ε, so it
refutes exactly the same claims as the threshold route *for the same event*; what changes is the event it
selects (the one maximising δ at the claimed ε) and what it reports (a δ lower bound).
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any

import numpy as np

from dpsco.verification.auditing.clopper_pearson import confidence_bounds

__all__ = ["hockey_stick_delta_lower_bound"]


def hockey_stick_delta_lower_bound(
    k_p: Any, n_p: Any, k_q: Any, n_q: Any, epsilon: float, confidence: float
) -> float | np.ndarray:
    """δ_lb = max(0, P_lo − e^ε Q_hi): a lower bound on the privacy curve δ(ε) = H_{e^ε}(P ‖ Q).

    Parameters
    ----------
    k_p, n_p, k_q, n_q : int
        Counts of an event E fixed independently of them (numerator side P, denominator side Q).
    epsilon : float >= 0
        The ε at which the divergence is bounded (usually the claim's ε).
    confidence : float in (0, 1)

    Returns
    -------
    float or ndarray in [0, 1]
        With probability >= ``confidence``, δ_lb <= P(E) − e^ε Q(E) <= H_{e^ε}(P ‖ Q).  Assumption-free.
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, Real) or not (float(epsilon) >= 0.0):
        raise ValueError(f"epsilon must be a real number >= 0, got {epsilon!r}")
    p_lo, q_hi = confidence_bounds(k_p, n_p, k_q, n_q, confidence)
    with np.errstate(over="ignore"):
        out = np.maximum(p_lo - math.exp(float(epsilon)) * q_hi, 0.0)
    return float(out) if out.ndim == 0 else out
