"""Shared pieces of the privacy harnesses of Asi, Liu & Tian (2024) (``alt24_harness``): the extreme-record
strategy, the replay of a clipped-SGD white-box trace, and the exact privacy of a composition of Gaussian steps
whose shifts are measured on the worst-case pair.

Replay.  A noisy step of Algorithm 1 releases ĝ_t + ξ_t with ĝ_t = (1/m) Σ_{s in the block} Π_C(∇f(x_t + x̄; s)).
The trace (``NoisyGradientTrace``) holds every iterate x_t, every noisy gradient and the step function
``record_gradient`` (the clipped per-sample gradient of any record).  Evaluating the step function on the
block's records at the recorded iterates gives the noiseless ĝ_t on D — and, with the neighbour's records, on D′
at the *same* public state (same iterate, same earlier releases): the per-step sensitivity ‖ĝ_t(D) − ĝ_t(D′)‖
and, subtracted from the noisy gradient, the noise actually drawn.  σ is never read from the trace or the
release: it is the theorem's calibration (Corollary 1's σ = √(2C²T/(m²ρ))) from public inputs.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

import numpy as np
from scipy import stats

from dpsco.reference.clipping import row_norms
from dpsco.verification.papers.harness import ExactPrivacy, SensitivityProbe, gaussian_exact_privacy

__all__ = ["EXTREMES", "block_means", "cutoff_survival", "extreme_vector", "gaussian_steps_exact", "trace_probes", "trace_residuals"]

#: the magnitudes an extreme coordinate takes: 0, subnormal, 1e±300, the largest double, and moderate values
EXTREMES: tuple[float, ...] = (0.0, 5e-324, -5e-324, 1e-300, -1e-300, 1.0, -1.0, 1e300, -1e300, 1e308, -1e308,
                               1.7976931348623157e308, -1.7976931348623157e308)


def extreme_vector(draw: Any, p: int, special: Iterable[float] = ()) -> np.ndarray:
    """One (p,) record from a hypothesis ``draw``: every coordinate an extreme magnitude (``EXTREMES`` plus the
    entry's ``special`` values, e.g. its declared bounds), or a ratio of 1e300 between two coordinates (a
    curvature ratio for a regression or quadratic record), or any finite doubles (subnormals and ±1.8e308
    included).  Finite always: every finite record is admissible for the heavy-tailed entries of this paper."""
    from hypothesis import strategies as st

    values = tuple(EXTREMES) + tuple(float(v) for v in special)
    mode = draw(st.sampled_from(("extremes", "ratio", "floats")), label="extreme mode")
    if mode == "extremes":
        return np.array([draw(st.sampled_from(values)) for _ in range(p)], dtype=np.float64)
    if mode == "ratio":
        big = draw(st.sampled_from((1e300, 1e308, 1.0, 1e-8)))
        out = np.array([draw(st.sampled_from((-1.0, 1.0))) * big * draw(st.sampled_from((1.0, 1e-300)))
                        for _ in range(p)], dtype=np.float64)
        return out
    return np.array([draw(st.floats(allow_nan=False, allow_infinity=False)) for _ in range(p)], dtype=np.float64)


def block_means(trace: Any, block: np.ndarray) -> np.ndarray:
    """(R, T, d) noiseless ĝ_t of every replicate and step: the mean of the trace's step function over the block's
    records, at the recorded iterates x_0..x_{T−1} (the public state of each step)."""
    W = np.asarray(trace.iterates, dtype=np.float64)[:, :-1, :]          # (R, T, d): the iterate of each step
    R, T, d = W.shape
    out = np.zeros((R, T, d))
    for t in range(T):
        for s in np.asarray(block, dtype=np.float64):
            out[:, t, :] += trace.record_gradient(W[:, t, :], s, 0.0)
    return out / float(block.shape[0])


def trace_residuals(trace: Any, block: np.ndarray) -> np.ndarray:
    """(R·T·d,) the noise drawn at every step: noisy gradient − the replayed noiseless ĝ_t (flattened)."""
    return (np.asarray(trace.noisy_gradients, dtype=np.float64) - block_means(trace, block)).ravel()


def trace_probes(trace: Any, block_D: np.ndarray, block_Dp: np.ndarray, bound: float,
                 label: str) -> tuple[list[SensitivityProbe], np.ndarray]:
    """One probe per step of replicate 0: ‖ĝ_t(D) − ĝ_t(D′)‖ at D's recorded iterate against ``bound`` (2C/m), and
    the (T,) shifts themselves."""
    shifts = row_norms(block_means(trace, block_D)[0] - block_means(trace, block_Dp)[0])
    return [SensitivityProbe(f"{label}, step {t}", float(s), float(bound)) for t, s in enumerate(shifts)], shifts


def gaussian_steps_exact(shifts: np.ndarray, sigma: float, note: str) -> ExactPrivacy:
    """The exact curve of T adaptive Gaussian steps of standard deviation σ whose mean shifts on the pair are the
    measured ``shifts``: μ = √(Σ_t shift_t²)/σ (Dong, Roth & Su 2022, Corollary 3.3, composition of Gaussian
    mechanisms).  Exact when every shift is the same vector whatever the earlier releases, which the harnesses'
    worst pairs ensure (the replaced record's clipped gradient is ±C e₁ at every iterate); checked here: the
    shifts must agree to 1e-9 relative, else the pair is not one this formula is exact on (AssertionError)."""
    s = np.asarray(shifts, dtype=np.float64)
    if s.size and not np.all(np.abs(s - s[0]) <= 1e-9 * max(float(s[0]), 1e-300)):
        raise AssertionError("the measured shifts differ between steps: the Gaussian composition formula is not "
                             "exact on this pair")
    mu = math.sqrt(float(np.sum(np.square(s / sigma))))
    return gaussian_exact_privacy(mu, note)


def cutoff_survival(k: float, c: float, epsilon: float) -> float:
    """P(ĉ > k) for ĉ = c + BLap(3/ε, c/2) (Algorithm 7, Line 5): Laplace(0, 3/ε) conditioned on |ξ| ≤ c/2,
    from scipy's Laplace CDF.  k real; c, ε > 0.  (Here, not in the Algorithm 7 suite, so that the harnesses do not
    import the suites.)"""
    R, tau = 3.0 / epsilon, c / 2.0
    t = k - c
    if t >= tau:
        return 0.0
    if t < -tau:
        return 1.0
    lap = stats.laplace(scale=R)
    return float((lap.cdf(tau) - lap.cdf(t)) / (lap.cdf(tau) - lap.cdf(-tau)))
