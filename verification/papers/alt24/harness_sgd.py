"""Privacy harnesses (``verification/papers/harness.py``) of Asi, Liu & Tian (2024)'s clipped-SGD family:
Algorithm 1 (``alt24.clipped_dp_sgd``), Algorithm 3 (``alt24.aggregate_erm``), the Theorem 1 pipeline
(``alt24.ht_sco``) and its Corollary 3 wrapper (``alt24.sc_wrapper``).

Public inputs.  Heavy-tailed regression records [a, b] (p = 3, d = 2) with the least-squares loss (no declared
bound: every finite record is admissible, and (⟨a, x⟩ − b)a overflows for |b| near 1e308 — the pattern that made
Algorithm 1 raise mid-run); for the strongly convex wrapper the tilted quadratic ⟨ξ, x⟩ + ½‖x − z‖² (p = 4),
whose gradient ξ + x − z overflows likewise.  ρ = 0.5, δ = 1e-6, G = (1, 1) (k = 2), λ = 1.

Sensitivity.  Every noisy release is a noisy gradient ĝ_t + ξ_t of one Corollary 2 call (Algorithm 1 on one
block); replayed at D's recorded iterate (``alt24_harness_common.trace_probes``) on D's and D′'s records of that
block, against 2C/m, m the block size and C Corollary 1's clip at m (the calibration of σ).

Exact privacy.  The worst pair: every record [1, 0, −M] (resp. ξ = M e₁, z = 0), the neighbour's record 0
[1, 0, M] (resp. −M e₁), M = 1e300, so the replaced record's clipped gradient is ±C e₁ at every iterate and
every other record's is C e₁: the call holding record 0 shifts every step by exactly 2C/m·e₁, the other calls
not at all; a composition of Gaussian steps with the measured shifts and the formula σ, μ = √(2ρ)
(``gaussian_steps_exact``).  The curve is that of the white-box view (every noisy gradient), of which the
output is post-processing, so it bounds the output's too.

Noise.  The residuals (noisy gradient − replayed ĝ_t), each divided by its call's σ from Corollary 1's formula
(a call at block size m has σ = √(2C²T/(m²ρ))): i.i.d. N(0, 1) when the noise is as calibrated, so ``sigma`` = 1.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpsco.reference.alt24.algorithms_clipped_sgd import clipped_dp_sgd, corollary_1_parameters
from dpsco.reference.alt24.algorithms_localization import aggregate_erm, ht_sco, sc_sco
from dpsco.reference.alt24.losses import LeastSquaresLoss, TiltedQuadraticLoss
from dpsco.reference.alt24.model import MomentBounds
from dpsco.verification.papers.alt24.harness_common import (extreme_vector, gaussian_steps_exact, trace_probes,
                                                            trace_residuals)
from dpsco.verification.papers.harness import NoiseSample, PrivacyHarness

__all__ = ["HARNESSES"]

RHO, DELTA, LAM, D = 0.5, 1e-6, 1.0, 2
MOMENTS = MomentBounds(2, (1.0, 1.0))
HUGE = 1e300
LS = LeastSquaresLoss()
TILTED = TiltedQuadraticLoss(1.0)


def _regression_records(rng: np.random.Generator, n: int) -> np.ndarray:
    a = rng.standard_normal((n, D))
    b = a @ np.array([0.5, -0.3]) + 0.1 * rng.standard_normal(n)
    return np.column_stack([a, b])


def _tilted_records(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.column_stack([rng.standard_normal((n, D)), 0.3 * rng.standard_normal((n, D))])


def _worst_pair(n: int, tilted: bool = False) -> tuple[np.ndarray, np.ndarray]:
    row, flip = ([HUGE, 0.0, 0.0, 0.0], [-HUGE, 0.0, 0.0, 0.0]) if tilted else ([1.0, 0.0, -HUGE], [1.0, 0.0, HUGE])
    S = np.tile(np.array(row), (n, 1))
    S2 = S.copy()
    S2[0] = flip
    return S, S2


def _cor1(m: int) -> Any:
    """Corollary 1's calibration of a call on m records (C, T, σ: public)."""
    return corollary_1_parameters(m, D, RHO, MOMENTS, LAM)


def _special(m: int) -> tuple[float, ...]:
    C = _cor1(m).C
    return (C, -C, C * (1 + 1e-15))


# ---- Algorithm 1 ---------------------------------------------------------------------------------------------

N1 = 16
P1 = _cor1(N1)
ALG1_KW = {"C": P1.C, "lam": LAM, "T": P1.T, "sigma": P1.sigma, "radius_r": 10.0, "domain_radius": 10.0,
           "delta": DELTA}


def _alg1_run(S: np.ndarray, rng: np.random.Generator, algorithm: Any = None, **kw: Any) -> Any:
    return (algorithm or clipped_dp_sgd)(S, LS, rng=rng, **ALG1_KW, **kw)


def _alg1_sensitivity(S: np.ndarray, S2: np.ndarray, seed: int) -> list:
    rel = _alg1_run(S, np.random.default_rng(seed), white_box=True)
    return trace_probes(rel.white_box, S, S2, 2.0 * P1.C / N1, "Algorithm 1")[0]


def _alg1_exact() -> tuple:
    S, S2 = _worst_pair(N1)
    rel = _alg1_run(S, np.random.default_rng(0), white_box=True)
    shifts = trace_probes(rel.white_box, S, S2, 2.0 * P1.C / N1, "Algorithm 1")[1]
    note = (f"least squares, records [1, 0, −1e300], record 0 [1, 0, 1e300]: T = {P1.T} steps shifted by 2C/n "
            "each (measured), σ from Corollary 1")
    return gaussian_steps_exact(shifts, P1.sigma, note), rel


def _alg1_noise(seed: int, algorithm: Any = None) -> NoiseSample:
    rng = np.random.default_rng(seed)
    S = _regression_records(rng, N1)
    rel = _alg1_run(S, rng, algorithm, white_box=True, replicates=10)     # 10·T·d = 1280 draws
    return NoiseSample(trace_residuals(rel.white_box, S), P1.sigma, "Algorithm 1: every noisy gradient")


# ---- Algorithm 3 ---------------------------------------------------------------------------------------------

N3, J3 = 16, 4
P3 = _cor1(N3 // J3)
ALG3_KW = {"x_bar": [0.0, 0.0], "lam": LAM, "J": J3, "rho": RHO, "R": 0.1, "moments": MOMENTS,
           "domain_radius": 10.0, "delta": DELTA}


def _alg3_run(S: np.ndarray, rng: np.random.Generator, algorithm: Any = None, **kw: Any) -> Any:
    return (algorithm or aggregate_erm)(S, LS, rng=rng, **ALG3_KW, **kw)


def _alg3_blocks(rel: Any) -> list[tuple[tuple[int, int], Any]]:
    m = N3 // J3
    return [((j * m, (j + 1) * m), tr) for j, tr in enumerate(rel.white_box)]


def _alg3_sensitivity(S: np.ndarray, S2: np.ndarray, seed: int) -> list:
    rel = _alg3_run(S, np.random.default_rng(seed), white_box=True)
    out = []
    for (a, b), tr in _alg3_blocks(rel):
        out += trace_probes(tr, S[a:b], S2[a:b], 2.0 * P3.C / (b - a), f"block {a // (b - a) + 1}")[0]
    return out


def _alg3_exact() -> tuple:
    S, S2 = _worst_pair(N3)
    rel = _alg3_run(S, np.random.default_rng(0), white_box=True)
    (a, b), tr = _alg3_blocks(rel)[0]                                   # the block that holds record 0
    shifts = trace_probes(tr, S[a:b], S2[a:b], 2.0 * P3.C / (b - a), "block 1")[1]
    note = "least squares worst pair; record 0 in block 1 of J = 4 (the others see no difference): T shifted steps"
    return gaussian_steps_exact(shifts, P3.sigma, note), rel


def _alg3_noise(seed: int, algorithm: Any = None) -> NoiseSample:
    rng = np.random.default_rng(seed)
    S = _regression_records(rng, N3)
    rel = _alg3_run(S, rng, algorithm, white_box=True, replicates=40)    # 40·J·T·d = 1280 draws
    res = np.concatenate([trace_residuals(tr, S[a:b]) for (a, b), tr in _alg3_blocks(rel)])
    return NoiseSample(res, P3.sigma, "Algorithm 3: the noisy gradients of every block")


# ---- the Theorem 1 pipeline and the Corollary 3 wrapper ------------------------------------------------------

HT_N, SC_N, SC_NOISE_N = 64, 64, 256
HT_KW = {"rho": RHO, "moments": MOMENTS, "delta_fail": 0.1, "domain_radius": 10.0, "J_scale": 0.005, "delta": DELTA}
# J_scale 0.002: each epoch of 16 records runs I = 2 phases of J = 4 calls (0.005 would leave the epochs trivial)
SC_KW = {"rho": RHO, "moments": MOMENTS, "mu": 1.0, "delta_fail": 0.1, "domain_radius": 1.0, "C_sco": 1.0,
         "J_scale": 0.002, "delta": DELTA}


def _ht_run(S: np.ndarray, rng: np.random.Generator, algorithm: Any = None, **kw: Any) -> Any:
    return (algorithm or ht_sco)(S, LS, rng=rng, **HT_KW, **kw)


def _sc_run(S: np.ndarray, rng: np.random.Generator, algorithm: Any = None, **kw: Any) -> Any:
    return (algorithm or sc_sco)(S, TILTED, rng=rng, **SC_KW, **kw)


def _calls_probes(rel: Any, S: np.ndarray, S2: np.ndarray) -> tuple[list, dict]:
    """Probes of every Corollary 2 call's every step (white box ((i, j, start, stop), trace)), and the shifts of
    the calls whose records differ."""
    probes, shifts = [], {}
    for (i, j, a, b), tr in rel.white_box:
        p, s = trace_probes(tr, S[a:b], S2[a:b], 2.0 * _cor1(b - a).C / (b - a), f"call (i={i}, j={j})")
        probes += p
        if not np.array_equal(S[a:b], S2[a:b]):
            shifts[(i, j, a, b)] = s
    return probes, shifts


def _calls_residuals(rel: Any, S: np.ndarray) -> np.ndarray:
    """Every call's residuals divided by that call's σ (Corollary 1 at its block size: public)."""
    return np.concatenate([trace_residuals(tr, S[a:b]) / _cor1(b - a).sigma for (_, _, a, b), tr in rel.white_box])


def _pipeline_exact(run: Any, n: int, tilted: bool, name: str) -> tuple:
    S, S2 = _worst_pair(n, tilted)
    rel = run(S, np.random.default_rng(0), white_box=True)
    _, shifts = _calls_probes(rel, S, S2)
    if len(shifts) != 1:
        raise AssertionError("record 0 must enter exactly one Corollary 2 call (disjoint blocks)")
    (_, _, a, b), s = next(iter(shifts.items()))
    note = (f"{name}: worst pair ({'ξ = ±1e300 e₁' if tilted else '[1, 0, ∓1e300]'}), record 0 in one call of "
            f"{b - a} record(s): its T steps shifted by 2C/m (measured), σ from Corollary 1; μ = √(2ρ)")
    return gaussian_steps_exact(s, _cor1(b - a).sigma, note), rel


def _ht_sensitivity(S: np.ndarray, S2: np.ndarray, seed: int) -> list:
    return _calls_probes(_ht_run(S, np.random.default_rng(seed), white_box=True), S, S2)[0]


def _sc_sensitivity(S: np.ndarray, S2: np.ndarray, seed: int) -> list:
    return _calls_probes(_sc_run(S, np.random.default_rng(seed), white_box=True), S, S2)[0]


def _ht_noise(seed: int, algorithm: Any = None) -> NoiseSample:
    rng = np.random.default_rng(seed)
    S = _regression_records(rng, HT_N)
    rel = _ht_run(S, rng, algorithm, white_box=True, replicates=11)      # 11·Σ J·T_i·d = 11·98 = 1078 draws
    return NoiseSample(_calls_residuals(rel, S), 1.0, "Theorem 1 pipeline: every call's noise / its σ")


def _sc_noise(seed: int, algorithm: Any = None) -> NoiseSample:
    res = []
    for r in range(5):                                                   # 5 runs · 4 epochs · 56 = 1120 draws
        rng = np.random.default_rng([seed, r])
        S = _tilted_records(rng, SC_NOISE_N)
        res.append(_calls_residuals(_sc_run(S, rng, algorithm, white_box=True), S))
    return NoiseSample(np.concatenate(res), 1.0, "Corollary 3 wrapper: every call's noise / its σ")


HARNESSES: dict[str, PrivacyHarness] = {
    "alt24.clipped_dp_sgd": PrivacyHarness(
        entry="alt24.clipped_dp_sgd", records=lambda rng: _regression_records(rng, N1),
        extreme_record=lambda draw: extreme_vector(draw, 3, _special(N1)), run=_alg1_run,
        sensitivity=_alg1_sensitivity, exact_privacy=_alg1_exact, noise=_alg1_noise,
        noise_bug="clipped_dp_sgd_draws_sigma_over_sqrt2"),
    "alt24.aggregate_erm": PrivacyHarness(
        entry="alt24.aggregate_erm", records=lambda rng: _regression_records(rng, N3),
        extreme_record=lambda draw: extreme_vector(draw, 3, _special(N3 // J3)), run=_alg3_run,
        sensitivity=_alg3_sensitivity, exact_privacy=_alg3_exact, noise=_alg3_noise,
        noise_bug="aggregate_erm_draws_sigma_over_sqrt2"),
    "alt24.ht_sco": PrivacyHarness(
        entry="alt24.ht_sco", records=lambda rng: _regression_records(rng, HT_N),
        extreme_record=lambda draw: extreme_vector(draw, 3, _special(4)), run=_ht_run,
        sensitivity=_ht_sensitivity, exact_privacy=lambda: _pipeline_exact(_ht_run, HT_N, False, "Theorem 1"),
        noise=_ht_noise, noise_bug="ht_sco_draws_sigma_over_sqrt2"),
    "alt24.sc_wrapper": PrivacyHarness(
        entry="alt24.sc_wrapper", records=lambda rng: _tilted_records(rng, SC_N),
        extreme_record=lambda draw: extreme_vector(draw, 4, _special(1)), run=_sc_run,
        sensitivity=_sc_sensitivity, exact_privacy=lambda: _pipeline_exact(_sc_run, SC_N, True, "Corollary 3"),
        noise=_sc_noise, noise_bug="sc_sco_draws_sigma_over_sqrt2"),
}
