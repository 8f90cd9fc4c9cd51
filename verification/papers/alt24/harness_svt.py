"""Privacy harnesses (``verification/papers/harness.py``) of Asi, Liu & Tian (2024)'s Section 5: the bounded
Laplace mechanism (Lemma 9, ``alt24.blap``), SVT with bounded Laplace noise (Algorithm 6, ``alt24.svt``) and
Localized-Clipped-DP-SGD (Algorithm 7, ``alt24.localized_dp_sgd``).

Lemma 9 and Algorithm 6 release statistics of the records: here the clipped mean q(D) = (1/n) Σ Π_[−1,1](s)
(per column for the T = 3 queries of Algorithm 6), replace-one sensitivity Δ = 2/n with n = 8 — every finite
record is admissible, a record on the bound ±1 included.  Their noise is (bounded) Laplace: ``noise`` is None
(the measured-noise check is a Gaussian χ² test).  Exact privacy: Lemma 9's curve by exact piecewise integration
at the pair distance Δ (all records −1, the neighbour's record 0 +1: the largest shift); Algorithm 6's by the
exact law of the answer sequences (``svt_output_distribution``) on the balanced streams q(D) = 0 against
q(D′) moved by Δ in every direction pattern (the maximum over the patterns).

Algorithm 7: the linear loss (β = 0: Ĉ = C and ν = 0 exactly, so every clip decision is ‖s‖ ≥ C), ε = 0.9,
δ = 0.1, C = 1, η = 1, c = 32 and ω at Lemma 12's bounds, X = B(0, 100), n = 64, d = 2.  The published record's
outcome is (⊥ or the point): ``outcome_fields`` = ("output", "halted").  Sensitivity, at the same public state
(D's phase start, D's draws of ĉ_i): each phase's clip count on D and D′ (|K − K′| ≤ 1, the count's sensitivity
that ĉ_i's BLap(3/ε) calibrates) and, where neither halts, the phase mean x̄_i (≤ 6Cη_i, Lemma 11's bound, which
σ_i calibrates).  Exact privacy: the view (⊥, or phase 1's Gaussian output x_1 — the point is post-processing of
it when β = 0, the later counts being fixed by the data) on the ⊥ pairs of K = c and c − 1 heavy records in
phase 1 (the neighbour's first heavy record 0): P(not ⊥) = Π_i P(ĉ_i > K_i) and the Gaussian shift of x̄_1,
combined exactly (:func:`bottom_gaussian_delta`); the pointwise maximum over the pairs.  Noise: every phase
output's residual (release − replayed x̄_i) over Line 28's σ_i = 30Cη_i√(log(3/δ))/ε, so ``sigma`` = 1.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from scipy.special import log_ndtr

from dpsco.reference.alt24.algorithms_localized import localized_clipped_dp_sgd, phase_parameters, phase_record_ranges
from dpsco.reference.alt24.losses import LinearLoss
from dpsco.reference.alt24.primitives import project_ball, vector_norm
from dpsco.reference.alt24.algorithms_svt import (bounded_laplace_delta, bounded_laplace_mechanism, lemma_9_tau,
                                       lemma_10_parameters, private_sparse_vector, svt_delta)
from dpsco.reference.clipping import row_norms
from dpsco.verification.papers.alt24.harness_common import cutoff_survival, extreme_vector
from dpsco.verification.papers.harness import ExactPrivacy, NoiseSample, PrivacyHarness, SensitivityProbe

__all__ = ["HARNESSES", "LOCALIZED_SETTING", "bottom_gaussian_delta", "replay_phase"]

# ---- Lemma 9 and Algorithm 6 ---------------------------------------------------------------------------------

NS = 8
DELTA_Q = 2.0 / NS                                    # replace-one sensitivity of the clipped mean
BLAP = {"epsilon": 0.5, "delta": 1e-3}
SVT = {"epsilon": 0.9, "delta": 0.01, "c": 1, "L": 0.0, "T": 3}


def _clipped_mean(S: np.ndarray) -> np.ndarray:
    return np.clip(np.asarray(S, dtype=np.float64), -1.0, 1.0).mean(axis=0)


def _records(rng: np.random.Generator, p: int) -> np.ndarray:
    return 0.5 * rng.standard_normal((NS, p))


def _blap_run(S: np.ndarray, rng: np.random.Generator, algorithm: Any = None) -> Any:
    return (algorithm or bounded_laplace_mechanism)(float(_clipped_mean(S)[0]), DELTA_Q, BLAP["epsilon"],
                                                    BLAP["delta"], rng)


def _stat_probes(S: np.ndarray, S2: np.ndarray, label: str) -> list[SensitivityProbe]:
    diff = np.abs(_clipped_mean(S) - _clipped_mean(S2))
    return [SensitivityProbe(f"{label} {i + 1}", float(v), DELTA_Q) for i, v in enumerate(diff)]


def _blap_exact() -> tuple[ExactPrivacy, Any]:
    S = -np.ones((NS, 1))
    S2 = S.copy()
    S2[0] = 1.0
    shift = float(abs(_clipped_mean(S2)[0] - _clipped_mean(S)[0]))     # = Δ: the worst pair
    R = DELTA_Q / BLAP["epsilon"]
    tau = lemma_9_tau(DELTA_Q, BLAP["epsilon"], BLAP["delta"])
    exact = ExactPrivacy(delta_of_epsilon=lambda e: bounded_laplace_delta(e, DELTA_Q, R, tau, shift=shift),
                         note="records −1, record 0 +1: the statistic moves by Δ; exact piecewise integration")
    return exact, _blap_run(S, np.random.default_rng(0))


def _svt_run(S: np.ndarray, rng: np.random.Generator, algorithm: Any = None) -> Any:
    return (algorithm or private_sparse_vector)(_clipped_mean(S), DELTA_Q, SVT["c"], SVT["L"], SVT["epsilon"],
                                                SVT["delta"], rng)


def _svt_exact() -> tuple[ExactPrivacy, Any]:
    p = lemma_10_parameters(DELTA_Q, SVT["c"], SVT["T"], SVT["epsilon"], SVT["delta"])
    pairs, first = [], None
    for signs in itertools.product((-1.0, 1.0), repeat=SVT["T"]):
        S = np.zeros((NS, SVT["T"]))
        S[2:] = np.tile([[1.0] * SVT["T"], [-1.0] * SVT["T"]], ((NS - 2) // 2, 1))   # 3 records +1, 3 records −1
        S[1] = -np.array(signs)
        S2 = S.copy()
        S2[1] = signs                                    # record 1 from −σ to +σ: q moves by Δσ, around L = 0
        pairs.append((_clipped_mean(S), _clipped_mean(S2)))
        first = S if first is None else first

    def delta(e: float) -> float:
        return max(svt_delta(e, a, b, SVT["c"], SVT["L"], p["R"], p["tau"]) for a, b in pairs)

    note = ("records whose clipped means are −Δσ/2 (record 1 = −σ, the others balanced), the neighbour's record 1 = +σ: "
            "every query moves by Δ across L = 0, for each of the 2^T sign patterns σ; max of the exact curves")
    return ExactPrivacy(delta_of_epsilon=delta, note=note), _svt_run(first, np.random.default_rng(0))


# ---- Algorithm 7 ---------------------------------------------------------------------------------------------

_EPS, _DL, _C = 0.9, 0.1, 1.0
_c = float(math.ceil(6.0 / _EPS * math.log(12.0 / _DL)))
LOCALIZED_SETTING: dict[str, Any] = {"epsilon": _EPS, "delta": _DL, "C": _C, "eta": 1.0, "beta": 0.0, "radius": 100.0,
                                     "c": _c, "omega": float(math.ceil(18.0 / _EPS * math.sqrt(2.0 * _c *
                                                                                            math.log(15.0 / _DL))))}
N7, LINEAR = 64, LinearLoss()


def _loc_run(S: np.ndarray, rng: np.random.Generator, algorithm: Any = None, **kw: Any) -> Any:
    S = np.asarray(S, dtype=np.float64)
    return (algorithm or localized_clipped_dp_sgd)(S, LINEAR, np.zeros(S.shape[1]), rng=rng, **LOCALIZED_SETTING,
                                                   **kw)


def replay_phase(block: np.ndarray, start: np.ndarray, eta_i: float, c_hat: float) -> tuple[np.ndarray, int, bool]:
    """One phase of Algorithm 7 at β = 0 (Ĉ = C, ν = 0) replayed on the block's records from ``start``: (x̄_i over
    the whole block, the clip count K of the whole block, whether the count reaches ĉ_i inside the phase)."""
    C, radius = LOCALIZED_SETTING["C"], LOCALIZED_SETTING["radius"]
    x = np.asarray(start, dtype=np.float64).copy()
    total, count, halted = np.zeros_like(x), 0, False
    for s in np.asarray(block, dtype=np.float64):
        total += x
        g = s
        if not vector_norm(g) < C:                                       # Line 10 at ν = 0, Ĉ = C
            count += 1
            g = LINEAR.clipped_grads_at(x[None, :], s[None, :], C)[0, 0]  # Line 12
        halted = halted or count >= c_hat
        x = project_ball(x - eta_i * g, np.zeros_like(x), radius)
    return total / block.shape[0], count, halted


def _phases(n: int) -> list[dict[str, Any]]:
    k = LOCALIZED_SETTING
    return phase_parameters(k["eta"], k["C"], k["omega"], k["beta"], k["epsilon"], k["delta"], phase_record_ranges(n))


def _starts(rel: Any, d: int) -> list[np.ndarray]:
    """Each phase's start: x₀ = 0, then Π_X of the previous phase's released output (the public state)."""
    out = [np.zeros(d)]
    for tr in rel.nonprivate_internals["phases"]:
        if "release" in tr:
            out.append(project_ball(tr["release"], np.zeros(d), LOCALIZED_SETTING["radius"]))
    return out


def _loc_sensitivity(S: np.ndarray, S2: np.ndarray, seed: int) -> list[SensitivityProbe]:
    rel = _loc_run(S, np.random.default_rng(seed), trace=True)
    probes = []
    for ph, start, tr in zip(_phases(S.shape[0]), _starts(rel, S.shape[1]), rel.nonprivate_internals["phases"]):
        a, b = ph["records"]
        m, k, h = replay_phase(S[a:b], start, ph["eta_i"], tr["c_hat"])
        m2, k2, h2 = replay_phase(S2[a:b], start, ph["eta_i"], tr["c_hat"])
        probes.append(SensitivityProbe(f"phase {ph['phase']} clip count (ĉ_i's Laplace, ℓ1)", float(abs(k - k2)), 1.0))
        if not (h or h2):
            probes.append(SensitivityProbe(f"phase {ph['phase']} output x̄_i", float(row_norms(m - m2)),
                                           6.0 * LOCALIZED_SETTING["C"] * ph["eta_i"]))
    return probes


def bottom_gaussian_delta(epsilon: float, p: float, q: float, mu: float) -> float:
    """Exact δ(ε) = ∫ max(0, P − e^ε Q) of P = (⊥ w.p. 1 − p, else N(m, σ²I)), Q = (⊥ w.p. 1 − q, else N(m′, σ²I)),
    μ = ‖m − m′‖/σ: max(0, (1 − p) − e^ε(1 − q)) + p·H(ε + log(q/p)), with H(t) = Φ(−t/μ + μ/2) − e^t Φ(−t/μ − μ/2)
    the Gaussian hockey stick (any real t; max(0, 1 − e^t) at μ = 0).  One direction; take the max of both."""
    e = math.exp(epsilon)
    out = max(0.0, (1.0 - p) - e * (1.0 - q))
    if p > 0.0:
        if q == 0.0:
            return out + p
        t = epsilon + math.log(q / p)
        h = max(0.0, 1.0 - math.exp(t)) if mu == 0.0 else max(
            0.0, math.exp(float(log_ndtr(-t / mu + mu / 2.0))) - math.exp(t + float(log_ndtr(-t / mu - mu / 2.0))))
        out += p * h
    return min(out, 1.0)


def _loc_exact() -> tuple[ExactPrivacy, Any]:
    k = LOCALIZED_SETTING
    phases = _phases(N7)
    curves = []
    for K in (int(k["c"]) - 1, int(k["c"])):
        S = np.zeros((N7, 2))
        S[:K, 0] = 5.0
        S2 = S.copy()
        S2[0] = 0.0
        sides = []
        for X in (S, S2):
            means, counts = [], []
            for ph in phases:
                a, b = ph["records"]
                m, cnt, _ = replay_phase(X[a:b], np.zeros(2), ph["eta_i"], math.inf)
                means.append(m)
                counts.append(cnt)
            sides.append((means[0], float(np.prod([cutoff_survival(c, k["c"], k["epsilon"]) for c in counts]))))
        (m, p), (m2, q) = sides
        mu = float(row_norms(m - m2)) / phases[0]["sigma_i"]
        curves.append((p, q, mu))

    def delta(e: float) -> float:
        return max(max(bottom_gaussian_delta(e, p, q, mu), bottom_gaussian_delta(e, q, p, mu)) for p, q, mu in curves)

    S = np.zeros((N7, 2))
    S[: int(k["c"]), 0] = 5.0
    note = ("linear loss, β = 0: K = c − 1 and c records 5e₁ in phase 1, the neighbour's first 0 — the ⊥ channel "
            "(P(not ⊥) = Π P(ĉ_i > K_i)) and phase 1's Gaussian shift combined exactly; max over the two pairs")
    return ExactPrivacy(delta_of_epsilon=delta, note=note), _loc_run(S, np.random.default_rng(0))


def _loc_noise(seed: int, algorithm: Any = None) -> NoiseSample:
    res = []
    for r in range(2):                                                   # 2 runs · I = 6 phases · d = 100
        rng = np.random.default_rng([seed, r])
        S = 0.01 * rng.standard_normal((N7, 100))                        # ‖s‖ ≈ 0.1 < C: no clip, no ⊥
        rel = _loc_run(S, rng, algorithm, trace=True)
        for ph, start, tr in zip(_phases(N7), _starts(rel, 100), rel.nonprivate_internals["phases"]):
            a, b = ph["records"]
            m, _, _ = replay_phase(S[a:b], start, ph["eta_i"], tr["c_hat"])
            res.append((np.asarray(tr["release"]) - m) / ph["sigma_i"])
    return NoiseSample(np.concatenate(res), 1.0, "Algorithm 7: every phase output's noise / Line 28's σ_i")


HARNESSES: dict[str, PrivacyHarness] = {
    "alt24.blap": PrivacyHarness(
        entry="alt24.blap", records=lambda rng: _records(rng, 1),
        extreme_record=lambda draw: extreme_vector(draw, 1), run=_blap_run,
        sensitivity=lambda S, S2, seed: _stat_probes(S, S2, "statistic"), exact_privacy=_blap_exact),
    "alt24.svt": PrivacyHarness(
        entry="alt24.svt", records=lambda rng: _records(rng, SVT["T"]),
        extreme_record=lambda draw: extreme_vector(draw, SVT["T"]), run=_svt_run,
        sensitivity=lambda S, S2, seed: _stat_probes(S, S2, "query"), exact_privacy=_svt_exact),
    "alt24.localized_dp_sgd": PrivacyHarness(
        entry="alt24.localized_dp_sgd", records=lambda rng: 0.1 * rng.standard_normal((N7, 2)),
        extreme_record=lambda draw: extreme_vector(draw, 2, (_C, -_C)), run=_loc_run, sensitivity=_loc_sensitivity,
        exact_privacy=_loc_exact, noise=_loc_noise, noise_bug="localized_clipped_dp_sgd_draws_sigma_over_sqrt2",
        outcome_fields=("output", "halted")),
}
