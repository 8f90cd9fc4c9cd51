"""Privacy harnesses (``dpsco.verification.papers.harness``) of the five Menart et al. (2023), arXiv:2311.13447 v2,
catalogue entries: ``muabg23.kl_spider`` (Algorithm 1), ``muabg23.proximal_point`` (Algorithm 2),
``muabg23.noisy_gd`` (Algorithm 4), ``muabg23.adaptive_gd`` (Algorithm 3) and ``muabg23.adaptive_gd_em``
(Theorem 5's variant).

Record families (the harness's public inputs declare no bound on the records but finiteness: every algorithm's
privacy rests on its clipping, so any finite record is admissible, and extreme records exercise the overflow
paths — per-sample gradients that overflow to ±inf or are NaN, clipped to their limit direction or to 0):

* Algorithm 1: records (x, s) ∈ R^{d+1} of ``SignedCurvatureLoss``, ∇f(w; (x, s)) = s·L_1·w + x (d = 2).
* Algorithms 2 and 4: records x ∈ R², per-sample subgradient x + x₀x₁·w (f(w; x) = ⟨w, x⟩ + (x₀x₁/2)‖w‖²,
  :func:`curved_linear`): x₀x₁ overflows to ±inf for large records, and inf·0 = NaN at w = 0.
* Algorithm 3 and Theorem 5: records x ∈ R⁴, per-sample gradient c(w)·x₀x₁ + x₂x₃ in d = 1, c(w) = +1 at the
  public start w₀ and −1 elsewhere (:func:`two_phase_oracle`): an adversarial oracle whose worst pair flips the
  exponential mechanism's scores between the two iterates; x₀x₁ + x₂x₃ = inf − inf = NaN for large records.

Worst pairs (``exact_privacy``): every release of the run at its full clipped sensitivity at every state the
run can reach, so the transcript the claim covers is exactly the Gaussian composition of μ² = Σ_j (Δ_j/σ_j)²
(σ_j from the theorems' formulas at the public inputs, Δ_j measured at the run's states and equal to the bound),
or, for the Theorem 5 variant, that Gaussian times randomised response with log-odds ε/2
(``muabg23_noise.em_pair_privacy``: least μ 1.236 > √(2ρ_claim) = 1.225 at the defaults, hence no μ and no event
in its claim, ERRATA.md MUABG23-E20).  Measured noise (``noise``): ``muabg23_noise``'s replays, residuals normalised by
the calibrated σ of each release (so σ = 1).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from dpsco.reference.clipping import clip_rows, enforce_norm_bound, row_norms
from dpsco.reference.muabg23.algorithms_adaptive import adaptive_gd, adaptive_gd_em, em_epsilon_bounded_range, exact_rule
from dpsco.reference.muabg23.algorithms_proximal import (algorithm_2_outer_steps, noisy_regularised_gd, proximal_point,
                                              theorem_9_steps)
from dpsco.reference.muabg23.algorithms_spider import kl_spider, kl_spider_schedule
from dpsco.reference.privacy import Release
from dpsco.verification.mutants.muabg23.spider import SignedCurvatureLoss
from dpsco.verification.papers.muabg23 import noise as noise
from dpsco.verification.papers.harness import (ExactPrivacy, NoiseSample, PrivacyHarness, SensitivityProbe,
                                               gaussian_exact_privacy)

__all__ = ["HARNESSES", "EXTREMES", "SPIDER", "NOISY_GD", "PROXIMAL", "ADAPTIVE", "curved_linear",
           "two_phase_oracle", "spider_worst_pair", "adaptive_worst_pair", "em_worst_pair"]

#: the magnitudes an extreme record's entries are drawn from (all finite: the records the up-front checks admit)
EXTREMES: tuple[float, ...] = (0.0, 5e-324, -5e-324, 1e-300, -1e-300, 1.0, -1.0, 0.5, 1e300, -1e300,
                               1.7976931348623157e308, -1.7976931348623157e308)


def _extreme(p: int) -> Callable[[Any], np.ndarray]:
    def extreme_record(draw: Any) -> np.ndarray:
        from hypothesis import strategies as st

        return np.array([draw(st.sampled_from(EXTREMES)) for _ in range(p)], dtype=np.float64)
    return extreme_record


def _clipped_mean(G: np.ndarray, bound: float) -> np.ndarray:
    with np.errstate(all="ignore"):
        return enforce_norm_bound(clip_rows(np.asarray(G, dtype=np.float64), bound), bound).mean(axis=-2)


def _l2(v: np.ndarray) -> float:
    return float(row_norms(np.atleast_1d(np.asarray(v, dtype=np.float64))))


# ---- Algorithm 1 (KL Spider) -----------------------------------------------------------------------------------

#: public inputs of the Algorithm 1 harness: n = 16 records (x, s) ∈ R³ (d = 2); K = 3 rounds of T_k = 1
SPIDER: dict[str, Any] = {"n": 16, "d": 2, "params": {"rho": 0.25, "beta": 0.1, "F0": 0.5, "gamma": 1.0,
                                                      "kappa": 1.5, "L0": 1.0, "L1": 1e-3}}
_SPIDER_LOSS = SignedCurvatureLoss(SPIDER["params"]["L0"], SPIDER["params"]["L1"])


def _spider_schedule() -> Any:
    return kl_spider_schedule(SPIDER["n"], SPIDER["d"], **SPIDER["params"])


def _spider_records(rng: np.random.Generator) -> np.ndarray:
    n, d = SPIDER["n"], SPIDER["d"]
    x = rng.normal(size=(n, d))
    x *= (rng.random(n) / np.linalg.norm(x, axis=1))[:, None]
    return np.hstack([x, rng.uniform(-1.0, 1.0, size=(n, 1))])


def _spider_run(records: np.ndarray, rng: np.random.Generator, algorithm: Any = None, **kw: Any) -> Release:
    return (algorithm or kl_spider)(records, _SPIDER_LOSS, rng=rng, **SPIDER["params"], **kw)


def _spider_probes(D: np.ndarray, D2: np.ndarray, release: Release) -> list[SensitivityProbe]:
    """Every release of the run on D (its white-box trace: kind, state), replayed on D and D′ at that state."""
    s = _spider_schedule()
    tr = release.white_box
    it = np.asarray(tr.iterates)[0]
    d = SPIDER["d"]
    probes, k, t = [], -1, 0
    for row in it[:-1]:
        kind = int(round(row[2 * d + 1]))
        wa, wb = row[:d], row[d:2 * d]
        with np.errstate(all="ignore"):
            if kind == 1:
                k, t = k + 1, 0
                gap = _clipped_mean(_SPIDER_LOSS.grads(wa, D), s.L0) - _clipped_mean(_SPIDER_LOSS.grads(wa, D2), s.L0)
                probes.append(SensitivityProbe(f"anchor k={k + 1}", _l2(gap), s.anchor_sensitivity))
            elif kind == 2:
                t += 1
                bound = s.L1 * s.step[k]
                gD = _clipped_mean(_SPIDER_LOSS.grads(wb, D) - _SPIDER_LOSS.grads(wa, D), bound)
                gD2 = _clipped_mean(_SPIDER_LOSS.grads(wb, D2) - _SPIDER_LOSS.grads(wa, D2), bound)
                probes.append(SensitivityProbe(f"difference k={k + 1} t={t}", _l2(gD - gD2),
                                               s.difference_sensitivity(k)))
    return probes


def _spider_sensitivity(D: np.ndarray, D2: np.ndarray, seed: int) -> list[SensitivityProbe]:
    return _spider_probes(D, D2, _spider_run(D, np.random.default_rng(seed), white_box=True))


def spider_worst_pair() -> tuple[np.ndarray, np.ndarray]:
    """n copies of (A·e₁, −1) against the last replaced by (−A·e₁, +1), A = L₀ + L₁·B + 1 with B = Σ_k T_k s_k
    (Lemma 1: ‖w − w₀‖ ≤ B surely): the per-sample gradients ∓L₁w ± Ae₁ are exact negations of norm ≥ L₀ at
    every reachable w, so every anchor moves by exactly 2L₀/n; the per-sample differences ∓L₁(w′ − w) are exact
    negations of norm L₁s_k, so every difference moves by exactly 2L₁s_k/n."""
    s = _spider_schedule()
    A = s.L0 + s.L1 * sum(t * st for t, st in zip(s.releases_per_round, s.step)) + 1.0
    rec = np.zeros(SPIDER["d"] + 1)
    rec[0], rec[-1] = A, -1.0
    D = np.tile(rec, (SPIDER["n"], 1))
    D2 = D.copy()
    D2[-1, 0], D2[-1, -1] = -A, 1.0
    return D, D2


def _spider_exact() -> tuple[ExactPrivacy, Release]:
    s = _spider_schedule()
    D, D2 = spider_worst_pair()
    rel = _spider_run(D, np.random.default_rng(0), white_box=True)
    probes = _spider_probes(D, D2, rel)
    made = {p.label: p.measured for p in probes}
    mu2 = 0.0
    for k in range(s.K):   # the full-length composition the run post-processes: a release not made at its bound
        mu2 += (made.get(f"anchor k={k + 1}", s.anchor_sensitivity) / s.sigma_hat) ** 2
        for t in range(1, s.releases_per_round[k] + 1):
            mu2 += (made.get(f"difference k={k + 1} t={t}", s.difference_sensitivity(k)) / s.sigma[k]) ** 2
    return gaussian_exact_privacy(math.sqrt(mu2), note=(
        "Algorithm 1 on spider_worst_pair(): every release at its full clipped sensitivity (measured at the run's "
        "states), σ̂ and σ_k from the public schedule; the exact curve of the full-length Gaussian composition "
        "(K anchors, Σ T_k differences) that the early-stopped run post-processes")), rel


def _spider_noise(seed: int, algorithm: Any = None) -> NoiseSample:
    rng = np.random.default_rng(seed)
    X = _spider_records(rng)
    parts: list[np.ndarray] = []
    while sum(p.size for p in parts) < 1000:   # early-stopped rounds make fewer releases: run until k ≥ 1000
        rel = _spider_run(X, rng, algorithm, replicates=100, white_box=True)
        res = noise.spider_residuals(rel, X, _SPIDER_LOSS, **SPIDER["params"])
        parts += [res["anchor"], res["difference"]]
    return NoiseSample(np.concatenate(parts), 1.0,
                       "anchors / σ̂ and differences / σ_k (lines 4, 7; exact calibration at the public inputs)")


# ---- Algorithms 2 and 4 ----------------------------------------------------------------------------------------

def curved_linear(W: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Per-sample subgradients (R, n, d) of f(w; x) = ⟨w, x⟩ + (x₀x₁/2)‖w‖² at iterates W (R, d), records X (n, d):
    x + x₀x₁·w (overflow to ±inf, or NaN at w = 0, for extreme records: the algorithms clip them)."""
    W, X = np.atleast_2d(np.asarray(W, dtype=np.float64)), np.asarray(X, dtype=np.float64)
    with np.errstate(all="ignore"):
        return X[None, :, :] + (X[:, 0] * X[:, 1])[None, :, None] * W[:, None, :]


#: public inputs of Algorithm 4's harness (T = 15: 14 noisy steps) and Algorithm 2's (T = 16 calls of T_4 = 4)
NOISY_GD: dict[str, Any] = {"n": 8, "d": 2, "rho": 0.05, "beta": 0.1, "L0": 1.0, "l1_tilde": 1.0}
PROXIMAL: dict[str, Any] = {**NOISY_GD, "F0": 1.0, "gamma": 1.0, "kappa": 2.0}


def _linear_records(rng: np.random.Generator) -> np.ndarray:
    x = rng.normal(size=(NOISY_GD["n"], NOISY_GD["d"]))
    return x * (rng.random(NOISY_GD["n"]) / np.linalg.norm(x, axis=1))[:, None]


def _gd_run(records: np.ndarray, rng: np.random.Generator, algorithm: Any = None, **kw: Any) -> Release:
    P = NOISY_GD
    return (algorithm or noisy_regularised_gd)(records, curved_linear, np.zeros(P["d"]), P["rho"], P["beta"], P["L0"],
                                               P["l1_tilde"], rng, **kw)


def _prox_run(records: np.ndarray, rng: np.random.Generator, algorithm: Any = None, **kw: Any) -> Release:
    P = PROXIMAL
    return (algorithm or proximal_point)(records, curved_linear, np.zeros(P["d"]), P["rho"], P["beta"], P["L0"],
                                         P["l1_tilde"], P["F0"], P["gamma"], P["kappa"], rng, **kw)


def _gd_probes(D: np.ndarray, D2: np.ndarray, release: Release) -> list[SensitivityProbe]:
    tr = release.white_box
    bound = 2.0 * NOISY_GD["L0"] / D.shape[0]
    out = []
    for t in range(tr.T):
        W = np.asarray(tr.iterates)[:, t]
        gap = _clipped_mean(curved_linear(W, D), NOISY_GD["L0"]) - _clipped_mean(curved_linear(W, D2), NOISY_GD["L0"])
        out.append(SensitivityProbe(f"step {t + 1}", _l2(gap[0]), bound))
    return out


def _pm_pair() -> tuple[np.ndarray, np.ndarray]:
    """n copies of e₁ against the last replaced by −e₁ (curvature x₀x₁ = 0): the clipped mean subgradients differ
    by exactly 2L₀/n at every iterate."""
    D = np.zeros((NOISY_GD["n"], NOISY_GD["d"]))
    D[:, 0] = 1.0
    D2 = D.copy()
    D2[-1, 0] = -1.0
    return D, D2


def _public_sigma(which: str) -> tuple[float, int]:
    P = NOISY_GD
    if which == "noisy_gd":
        return noise.noisy_gd_sigma(P["n"], P["d"], P["rho"], P["beta"], P["L0"]), theorem_9_steps(
            P["n"], P["d"], P["rho"], P["beta"]) - 1
    T = algorithm_2_outer_steps(P["n"], P["d"], P["rho"], PROXIMAL["F0"], PROXIMAL["gamma"], PROXIMAL["kappa"],
                                P["L0"], P["l1_tilde"])
    T4 = theorem_9_steps(P["n"], P["d"], P["rho"] / T, P["beta"] / T)
    return noise.proximal_point_sigma(P["n"], P["d"], P["rho"], P["beta"], P["L0"], T), T * (T4 - 1)


def _pm_exact(which: str) -> tuple[ExactPrivacy, Release]:
    run = _gd_run if which == "noisy_gd" else _prox_run
    D, D2 = _pm_pair()
    rel = run(D, np.random.default_rng(0), white_box=True)
    sigma, steps = _public_sigma(which)
    probes = _gd_probes(D, D2, rel)
    if len(probes) != steps:
        raise AssertionError(f"{which}: the run made {len(probes)} noisy steps, its schedule {steps}")
    mu = math.sqrt(sum((p.measured / sigma) ** 2 for p in probes))
    return gaussian_exact_privacy(mu, note=(
        f"{which} on n copies of e₁ vs the last −e₁: every noisy step at its full shift 2L₀/n (measured), σ from "
        "Theorem 9's formula at the public inputs; a composition of Gaussians")), rel


def _pm_noise(which: str) -> Callable[..., NoiseSample]:
    def sample(seed: int, algorithm: Any = None) -> NoiseSample:
        rng = np.random.default_rng(seed)
        X = _linear_records(rng)
        run = _gd_run if which == "noisy_gd" else _prox_run
        rel = run(X, rng, algorithm, replicates=40 if which == "noisy_gd" else 12, white_box=True)
        sigma, _ = _public_sigma(which)
        return NoiseSample(noise.proximal_residuals(rel, X, curved_linear, NOISY_GD["L0"], sigma) * sigma, sigma,
                           f"noisy gradients of {which} against Theorem 9's σ at the public inputs")
    return sample


# ---- Algorithm 3 and Theorem 5 ---------------------------------------------------------------------------------

#: public inputs of the Algorithm 3 / Theorem 5 harnesses: n = 8, d = 1, ρ = 0.5, β = 1e-300 (so ψσ_min ≈ 34 and
#: every step is at the noise floor on the records below: two steps of cost ρ/2), L₀ = L₁ = 1, w₀ = 0
ADAPTIVE: dict[str, Any] = {"n": 8, "rho": 0.5, "beta": 1e-300, "L0": 1.0, "L1": 1.0}


def two_phase_oracle(records: np.ndarray, w_start: Any = 0.0) -> Callable[[np.ndarray], np.ndarray]:
    """Per-sample gradients (n, 1) c(w)·x₀x₁ + x₂x₃ of records x ∈ R⁴, c(w) = +1 at w = ``w_start`` (the public
    start) and −1 elsewhere: an adversarial oracle (Algorithm 3's privacy rests on its clipping only)."""
    X = np.asarray(records, dtype=np.float64)
    start = np.atleast_1d(np.asarray(w_start, dtype=np.float64))

    def grad(w: np.ndarray) -> np.ndarray:
        c = 1.0 if np.array_equal(np.atleast_1d(w), start) else -1.0
        with np.errstate(all="ignore"):
            return (c * X[:, 0] * X[:, 1] + X[:, 2] * X[:, 3])[:, None]
    return grad


def _adaptive_records(rng: np.random.Generator) -> np.ndarray:
    return rng.uniform(-1.0, 1.0, size=(ADAPTIVE["n"], 4))


def _adaptive_run(records: np.ndarray, rng: np.random.Generator, algorithm: Any = None, em: bool = False,
                  **kw: Any) -> Release:
    P = ADAPTIVE
    alg = algorithm or (adaptive_gd_em if em else adaptive_gd)
    return alg(two_phase_oracle(records), np.zeros(1), rho=P["rho"], beta=P["beta"], L0=P["L0"], L1=P["L1"], rng=rng,
               **kw)


def _adaptive_probes(D: np.ndarray, D2: np.ndarray, release: Release, em: bool) -> list[SensitivityProbe]:
    wb = release.white_box
    g1, g2 = two_phase_oracle(D), two_phase_oracle(D2)
    L0, bound = ADAPTIVE["L0"], 2.0 * ADAPTIVE["L0"] / D.shape[0]
    out, scores = [], []
    for t in range(len(wb["N"])):
        w = np.asarray(wb["iterates"][t])
        m1, m2 = _clipped_mean(g1(w), L0), _clipped_mean(g2(w), L0)
        out.append(SensitivityProbe(f"norm query t={t}", abs(_l2(m1) - _l2(m2)), bound))
        out.append(SensitivityProbe(f"gradient t={t}", _l2(m1 - m2), bound))
        scores.append(abs(_l2(m1) - _l2(m2)))
    if em:  # the exponential mechanism's scores ‖∇F(w_t)‖: sup-norm sensitivity Δ = 2L₀/n (its calibration)
        out.append(SensitivityProbe("exponential mechanism scores (sup over t)", max(scores), bound))
    return out


def adaptive_worst_pair() -> tuple[np.ndarray, np.ndarray]:
    """The linear pair: every record's gradient +1 (x = (0, 0, 1, 1)), the last replaced by −1 (x = (0, 0, −1, 1)):
    every norm query and gradient release moves by exactly Δ = 2L₀/n at every iterate."""
    D = np.tile([0.0, 0.0, 1.0, 1.0], (ADAPTIVE["n"], 1))
    D2 = D.copy()
    D2[-1, 2] = -1.0
    return D, D2


def em_worst_pair() -> tuple[np.ndarray, np.ndarray]:
    """The flip pair: n − 1 records of gradient +1 (x = (0, 0, 1, 1)) and a last record of gradient c(w) (x = (1, 1,
    0, 0)) against −c(w) (x = (−1, 1, 0, 0)): at w₀ the clipped means are 1 vs 1 − Δ, at every other iterate
    1 − Δ vs 1.  Every Gaussian release moves by Δ and the exponential mechanism's scores over the two iterates
    are (1, 1 − Δ) vs (1 − Δ, 1): randomised response with log-odds ε/2."""
    D = np.tile([0.0, 0.0, 1.0, 1.0], (ADAPTIVE["n"], 1))
    D[-1] = [1.0, 1.0, 0.0, 0.0]
    D2 = D.copy()
    D2[-1, 0] = -1.0
    return D, D2


def _gaussian_mu(release: Release, probes: list[SensitivityProbe]) -> float:
    """√(Σ_t (g_N/σ̂)² + (g_t/σ_t)²): σ̂ and σ_t from the public rule (σ_t from the released N_t), shifts measured."""
    P = ADAPTIVE
    rule = exact_rule(P["n"], 1, P["rho"], P["beta"], P["L0"], P["L1"])
    shifts = {p.label: p.measured for p in probes}
    total = 0.0
    for t, N in enumerate(release.white_box["N"]):
        total += (shifts[f"norm query t={t}"] / rule.sigma_hat) ** 2
        total += (shifts[f"gradient t={t}"] / rule.step_sigma(float(N))) ** 2
    return math.sqrt(total)


def _adaptive_exact() -> tuple[ExactPrivacy, Release]:
    D, D2 = adaptive_worst_pair()
    rel = _adaptive_run(D, np.random.default_rng(0), white_box=True)
    mu = _gaussian_mu(rel, _adaptive_probes(D, D2, rel, em=False))
    return gaussian_exact_privacy(mu, note=(
        "Algorithm 3 on adaptive_worst_pair(): two steps at the noise floor (β = 1e-300: ψσ_min ≈ 34 against N_t "
        "≈ 1 ± 0.6), every release at its full shift Δ (measured), σ̂, σ_t from the public rule: the Gaussian of "
        "μ = √(2ρ); every transcript on any pair is dominated by it (fully adaptive GDP filter)")), rel


def _em_exact() -> tuple[ExactPrivacy, Release]:
    D, D2 = em_worst_pair()
    rel = _adaptive_run(D, np.random.default_rng(0), em=True, white_box=True)
    probes = _adaptive_probes(D, D2, rel, em=True)
    mu_g = _gaussian_mu(rel, probes)
    eps = em_epsilon_bounded_range(ADAPTIVE["rho"] / 2.0)
    sens = 2.0 * ADAPTIVE["L0"] / ADAPTIVE["n"]
    # the scores ‖∇F(w_t)‖ of the two candidates on D and on D′ (measured at the run's iterates), and the
    # selection's log-odds of t = 1 against t = 0 at the temperature ε/(2Δ): randomised response when the two
    # datasets' log-odds are opposite (asserted)
    W = rel.white_box["iterates"][:2]
    u = [[_l2(_clipped_mean(two_phase_oracle(Z)(w), ADAPTIVE["L0"])) for w in W] for Z in (D, D2)]
    odds = [eps * (v[0] - v[1]) / (2.0 * sens) for v in u]
    if len(rel.white_box["N"]) != 2 or not math.isclose(odds[0], -odds[1], rel_tol=1e-9):
        raise AssertionError(f"the flip pair's transcript is not two candidates of opposite log-odds: {odds}")
    eps_rr = abs(odds[0])
    exact_rho = mu_g ** 2 / 2.0 + noise.rr_zcdp_rho(eps_rr)

    def delta(e: float) -> float:
        return noise.em_pair_delta(mu_g, eps_rr, e)

    return ExactPrivacy(delta_of_epsilon=delta, mu=noise.least_gdp_mu(delta), rho=exact_rho, note=(
        "Theorem 5's variant on em_worst_pair(): two Algorithm 3 steps at the floor (Gaussian, μ_G = √(2ρ), "
        "shifts measured) times the exponential mechanism over two iterates with scores (1, 1 − Δ) vs (1 − Δ, 1), "
        "randomised response with log-odds ε/2, ε = √(8ρ_EM); δ(e) = p·δ_G(e − ε/2) + q·δ_G(e + ε/2), exact ρ "
        "= μ_G²/2 + sup_α D_α(RR)/α, least GDP μ by bisection (1.236 > √(2·0.75) = 1.225)")), rel


def _adaptive_noise(em: bool) -> Callable[..., NoiseSample]:
    def sample(seed: int, algorithm: Any = None) -> NoiseSample:
        rng = np.random.default_rng(seed)
        X = _adaptive_records(rng)
        P = ADAPTIVE
        res = []
        while sum(r.size for r in res) < 1000:
            rel = _adaptive_run(X, rng, algorithm, em=em, white_box=True)
            r = noise.adaptive_residuals(rel.white_box, two_phase_oracle(X), n=P["n"], rho=P["rho"], beta=P["beta"],
                                         L0=P["L0"], L1=P["L1"])
            res += [r["norm"], r["gradient"]]
        return NoiseSample(np.concatenate(res), 1.0, "norm queries / σ̂ and gradients / σ_t (σ_t from the released "
                           "N_t by line 4's formula)")
    return sample


def _adaptive_sensitivity(em: bool) -> Callable[[np.ndarray, np.ndarray, int], list[SensitivityProbe]]:
    def sensitivity(D: np.ndarray, D2: np.ndarray, seed: int) -> list[SensitivityProbe]:
        return _adaptive_probes(D, D2, _adaptive_run(D, np.random.default_rng(seed), em=em, white_box=True), em)
    return sensitivity


HARNESSES: dict[str, PrivacyHarness] = {
    "muabg23.kl_spider": PrivacyHarness(
        entry="muabg23.kl_spider", records=_spider_records, extreme_record=_extreme(SPIDER["d"] + 1),
        run=lambda records, rng, algorithm=None: _spider_run(records, rng, algorithm),
        sensitivity=_spider_sensitivity, exact_privacy=_spider_exact, noise=_spider_noise,
        noise_bug="kl_spider_draws_sigma_over_sqrt2"),
    "muabg23.proximal_point": PrivacyHarness(
        entry="muabg23.proximal_point", records=_linear_records, extreme_record=_extreme(NOISY_GD["d"]),
        run=lambda records, rng, algorithm=None: _prox_run(records, rng, algorithm),
        sensitivity=lambda D, D2, seed: _gd_probes(D, D2, _prox_run(D, np.random.default_rng(seed), white_box=True)),
        exact_privacy=lambda: _pm_exact("proximal_point"), noise=_pm_noise("proximal_point"),
        noise_bug="proximal_point_draws_sigma_over_sqrt2"),
    "muabg23.noisy_gd": PrivacyHarness(
        entry="muabg23.noisy_gd", records=_linear_records, extreme_record=_extreme(NOISY_GD["d"]),
        run=lambda records, rng, algorithm=None: _gd_run(records, rng, algorithm),
        sensitivity=lambda D, D2, seed: _gd_probes(D, D2, _gd_run(D, np.random.default_rng(seed), white_box=True)),
        exact_privacy=lambda: _pm_exact("noisy_gd"), noise=_pm_noise("noisy_gd"),
        noise_bug="noisy_regularised_gd_draws_sigma_over_sqrt2"),
    "muabg23.adaptive_gd": PrivacyHarness(
        entry="muabg23.adaptive_gd", records=_adaptive_records, extreme_record=_extreme(4),
        run=lambda records, rng, algorithm=None: _adaptive_run(records, rng, algorithm),
        sensitivity=_adaptive_sensitivity(False), exact_privacy=_adaptive_exact, noise=_adaptive_noise(False),
        noise_bug="adaptive_gd_draws_sigma_over_sqrt2"),
    "muabg23.adaptive_gd_em": PrivacyHarness(
        entry="muabg23.adaptive_gd_em", records=_adaptive_records, extreme_record=_extreme(4),
        run=lambda records, rng, algorithm=None: _adaptive_run(records, rng, algorithm, em=True),
        sensitivity=_adaptive_sensitivity(True), exact_privacy=_em_exact, noise=_adaptive_noise(True),
        noise_bug="adaptive_gd_em_draws_sigma_over_sqrt2"),
}
