"""Privacy harnesses of the five Bassily, Feldman, Talwar & Thakurta (2019) catalogue entries
(``verification/papers/harness.py`` states the contract; ``tests/test_privacy_contract.py`` runs it).

Public inputs of every harness run (the catalogue contract's instance): the logistic loss, W = B(0, 2), declared
bounds ‖x‖ ≤ 1 and y ∈ {±1} (``DataBounds(1, 1)``), n = 40 records in d = 2, ε = 1, δ = 1/n², each entry's
options (its ``quick_options`` where it has them, as the catalogue contract).  A record is a row [x | y] of an
(n, 3) array.  Admissible extreme records (:func:`extreme_logistic_record`): x on the bound ‖x‖ = 1 (axes, any
angle), coordinate ratios up to 1e300 ((1, 1e-300), (5e-324, 1)), entries 1e-300, 1e-150 and the subnormal
5e-324, x = 0, each coordinate's sign free, and y = ±1.

What each harness measures
--------------------------
* A_NSGD, its Moreau variant, A_ProxGD (Algorithm 1's loop): the white-box run of D (``white_box=True``) gives
  the iterates w_t and the batches i(t, ·) (``nonprivate_internals["batch_indices"]``); at D's iterate and batch
  the noiseless batch means on D and D′ are replayed with the run's own step function (the clipped per-sample
  gradient), ‖ḡ_t(D) − ḡ_t(D′)‖ ≤ k_t·2C/m where k_t is the number of draws of the replaced record (the shift the
  claim's mixture event models per draw: 2C/m, C the clipping norm of the theorem: L, L_env = 2L, L_env + ξ),
  and the one-draw shift ‖g(w_t; z) − g(w_t; z′)‖/m ≤ 2C/m at every iterate.  Noise: every record (0.6, 0.8, +1),
  so the batch mean is g(w_t; z) whatever the batch and the residual is ĝ_t − g(w_t; z) (T·d values per run,
  200 runs), against σ of ``theorem_3_2_parameters`` (Theorem 3.1's calibration, certified).  Exact privacy: the
  one-sided worst pair known (``dpsco.reference.bftt19.accounting``) on the linear loss, n = 16, d = 1, where Theorem
  3.2 gives T = 1: the exact hockey-stick curve of the white-box step by the independent quadrature oracle
  ``dpsco.oracles.privacy_curves.nsgd_worst_pair_delta_quadrature`` (per-draw shift 2: the envelope and the
  approximate envelope gradient of the linear loss are x itself).
* A_ObjP (Algorithm 2): the privacy proof (Theorem 5.2) maps the release ŵ back to the noise that produces it,
  G(ŵ; D) = −n(∇L̂(ŵ; D) + 2λŵ); on neighbours the preimages differ by ∇ℓ(ŵ, z′) − ∇ℓ(ŵ, z), at most 2L.  Noise:
  that preimage replayed from each released ŵ (n = 400 records ((0.6, 0.8), ±1) alternating, so ∇L̂(0) = 0 and
  ‖ŵ‖ ≤ ‖G‖/(2λn): the ball constraint is inactive except with probability e^{-60} per run), against
  σ² = 10L² log(1/δ)/ε².  Exact privacy: d = 1, where ŵ is a monotone function of G and its density is
  φ_σ(G(w))|G′(w)| on (−M, M) with atoms at ±M; the worst of the pairs whose records have y·x ∈ {−1, 0, 1} (all
  other records sharing one value), integrated on a grid.
* Efficient ObjP (Sec. 5, reconstructed): its two releases — A_ObjP's G (probe as above, at the exact ŵ) and the
  output noise N(0, σ2²) calibrated to ‖w̃ − ŵ‖ ≤ r on the same dataset (probe: the distance, measured against a
  certified ŵ, on D and on D′).  Noise: released point − w̃ (``nonprivate_internals["w_tilde"]``), n = 2000
  alternating records (‖ŵ‖ ≤ ‖G‖/(2λn) has standard deviation 0.19 per coordinate and σ2 = 0.032, so the
  projection is inactive except with probability e^{-30} per run), against σ2 of ``efficient_objp_parameters``.  Exact privacy: the linear loss in d = 1,
  where w̃ is a deterministic function of G (the variance-reduced gradient is the full gradient), computed by the
  implementation's own batched Prox-SVRG on a grid of G, then both Gaussians integrated on grids (it is ~0 at
  ε = 1: the split gives ObjP's G a μ of about 0.1 — the claimed δ is loose, the check only shows it holds).

σ and every bound come from the theorems' parameter functions at the public inputs, never from the release.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable

import numpy as np
from scipy.special import log_ndtr, ndtr
from scipy.stats import norm

import dpsco.reference.bftt19 as o
from dpsco.oracles.privacy_curves import nsgd_worst_pair_delta_quadrature
from dpsco.reference import Ball, DataBounds, ERMProblem, LinearLoss, get_loss
from dpsco.reference.bftt19.objp import efficient_objp_svrg_constants
from dpsco.reference.bftt19.objp_replicates import batched_prox_svrg
from dpsco.reference.clipping import row_norms
from dpsco.reference.privacy import Release
from dpsco.reference.solvers import certified_minimize
from dpsco.verification.papers.glm_harness import (D, DELTA, EPS, N, RADIUS, X_NOISE, NSGD_NOISE_RUNS, OBJP_NOISE_RUNS,
                                                  alternating_records, benign_records, call_entry, entry_options,
                                                  extreme_logistic_record, harness_problem, split)
from dpsco.verification.papers.harness import ExactPrivacy, NoiseSample, PrivacyHarness, SensitivityProbe

__all__ = ["HARNESSES"]

def _norm(v: np.ndarray) -> float:
    return float(row_norms(np.asarray(v, dtype=np.float64).reshape(1, -1))[0])


# ---- Algorithm 1's family: A_NSGD, Moreau, A_ProxGD -----------------------------------------------------------


def _nsgd_clip_norm(name: str, n: int, d: int, eps: float, delta: float, L: float) -> float:
    """The per-sample gradient bound C the theorem calibrates σ with (public): L (A_NSGD), L_env = 2L (Moreau,
    Lemma 4.3 as printed), L_env + ξ (A_ProxGD, ξ the accuracy option or L/√(nT))."""
    if name == "bftt19.nsgd":
        return L
    if name == "bftt19.moreau_nsgd":
        return 2.0 * L if entry_options(name).get("lipschitz_envelope", "paper") == "paper" else L
    opts = entry_options(name)
    L_env = 2.0 * L if opts.get("lipschitz_envelope", "paper") == "paper" else L
    T = math.floor(o.theorem_3_2_T(n, d, eps, delta))
    xi = opts.get("accuracy", L / math.sqrt(n * T))
    return L_env + float(xi)


def _nsgd_params(name: str, n: int, d: int, eps: float, delta: float, L: float, M: float) -> Any:
    """Theorem 3.2's parameters (T, m, η, σ²) with Theorem 3.1's calibration at the clipping norm C (public)."""
    C = _nsgd_clip_norm(name, n, d, eps, delta, L)
    T = math.floor(o.theorem_3_2_T(n, d, eps, delta)) if name == "bftt19.proxgd" else None
    return o.theorem_3_2_parameters(n, d, eps, delta, C, M, T=T)


def _step_means(step: Callable[..., np.ndarray], w: np.ndarray, X: np.ndarray, y: np.ndarray,
                batch: np.ndarray) -> np.ndarray:
    """(1/m) Σ_j g(w; z_{batch[j]}) with the run's step function (the clipped per-sample gradient)."""
    out = np.zeros(w.shape[-1])
    for i, k in zip(*np.unique(batch, return_counts=True)):
        out += k * step(w, X[i], float(y[i]))[0]
    return out / batch.size


def _nsgd_harness(name: str) -> PrivacyHarness:
    L, M = 1.0, RADIUS

    def run(records: np.ndarray, rng: np.random.Generator, algorithm: Any = None) -> Release:
        return call_entry(name, algorithm, records, rng)

    def sensitivity(records_d: np.ndarray, records_n: np.ndarray, seed: int) -> list[SensitivityProbe]:
        n = records_d.shape[0]
        C = _nsgd_clip_norm(name, n, D, EPS, 1.0 / n**2, L)
        rel = call_entry(name, None, records_d, np.random.default_rng(seed), white_box=True)
        trace, batches = rel.white_box, rel.nonprivate_internals["batch_indices"][0]
        X, y = split(records_d)
        X2, y2 = split(records_n)
        changed = np.flatnonzero(np.any(np.asarray(records_d) != np.asarray(records_n), axis=1))
        m = trace.m
        probes = []
        for t in range(trace.T):
            w = trace.iterates[:, t]  # (1, d): D's iterate, the public state of step t + 1
            k = int(np.isin(batches[t], changed).sum())
            shift = _step_means(trace.record_gradient, w, X, y, batches[t]) - _step_means(
                trace.record_gradient, w, X2, y2, batches[t])
            probes.append(SensitivityProbe(f"step {t + 1}: batch mean at D's iterate and batch ({k} draw(s) of the "
                                           "replaced record)", _norm(shift), k * 2.0 * C / m))
            for i in changed:
                one = trace.record_gradient(w, X[i], float(y[i])) - trace.record_gradient(w, X2[i], float(y2[i]))
                probes.append(SensitivityProbe(f"step {t + 1}: one draw of record {i}", _norm(one) / m, 2.0 * C / m))
        return probes

    def noise(seed: int, algorithm: Any = None) -> NoiseSample:
        records = np.column_stack([np.tile(X_NOISE, (N, 1)), np.ones(N)])
        rel = call_entry(name, algorithm, records, np.random.default_rng(seed), replicates=NSGD_NOISE_RUNS,
                         white_box=True)
        tr = rel.white_box
        res = [tr.noisy_gradients[:, t] - tr.record_gradient(tr.iterates[:, t], X_NOISE, 1.0) for t in range(tr.T)]
        sigma = math.sqrt(_nsgd_params(name, N, D, EPS, DELTA, L, M).sigma2)  # Theorem 3.1, public inputs
        return NoiseSample(np.concatenate(res).ravel(), sigma, f"{name}: ĝ_t − g(w_t; z), every record z")

    def exact_privacy() -> tuple[ExactPrivacy, Release]:
        n, eps, delta = 16, EPS, 1.0 / 16**2
        prob = ERMProblem(LinearLoss(), Ball(10.0), DataBounds(1.0, 1.0))
        params = _nsgd_params(name, n, 1, eps, delta, L, 10.0)
        if params.T != 1:
            raise RuntimeError(f"{name}: the exact-privacy instance needs T = 1, Theorem 3.2 gives {params.T}")
        records = np.column_stack([-np.ones(n), np.zeros(n)])  # every record −e₁; the neighbour has +e₁ in row 0
        rel = call_entry(name, None, records, np.random.default_rng(0), problem=prob, epsilon=eps, delta=delta)
        sigma, m = math.sqrt(params.sigma2), params.m

        @functools.lru_cache(maxsize=64)
        def delta_of_epsilon(e: float) -> float:
            return float(nsgd_worst_pair_delta_quadrature(e, n, m, sigma, 1.0, 1))

        note = (f"one-sided worst pair known, linear loss, n = {n}, d = 1, T = 1, m = {m}, σ = {sigma:.6g} (Theorem "
                "3.1's calibration at the clipping norm C): the white-box step's exact hockey-stick curve by the "
                "quadrature oracle (per-draw shift 2·1; C = "
                f"{_nsgd_clip_norm(name, n, 1, eps, delta, L):g})")
        return ExactPrivacy(delta_of_epsilon=delta_of_epsilon, note=note), rel

    return PrivacyHarness(entry=name, records=benign_records, extreme_record=extreme_logistic_record, run=run,
                          sensitivity=sensitivity, exact_privacy=exact_privacy, noise=noise,
                          noise_bug=NOISE_BUGS[name])


# ---- A_ObjP -------------------------------------------------------------------------------------------------


def _objp_noise_preimage_shift(problem: ERMProblem, w: np.ndarray, X: np.ndarray, y: np.ndarray, X2: np.ndarray,
                               y2: np.ndarray) -> float:
    """n‖∇L̂(w; D) − ∇L̂(w; D′)‖ = ‖Σ_changed ∇ℓ(w, z_i) − ∇ℓ(w, z′_i)‖: how far apart the noises are that make w
    the perturbed minimiser on D and on D′ (Theorem 5.2's proof; interior w)."""
    loss = problem.loss
    g = (loss.dphi(X @ w, y)[:, None] * X).sum(axis=0) - (loss.dphi(X2 @ w, y2)[:, None] * X2).sum(axis=0)
    return _norm(g)


def _objp_density_1d(a: np.ndarray, lam: float, sigma: float, n: int, M: float, grid: np.ndarray
                     ) -> tuple[np.ndarray, float, float]:
    """Density of A_ObjP's release in d = 1 (logistic loss, records with a_i = y_i·x_i) on ``grid`` ⊂ (−M, M) and
    its atoms at +M and −M: ŵ = w iff G = G(w) = −n(L̂′(w) + 2λw), a decreasing map, so p(w) = φ_σ(G(w))|G′(w)|,
    P(ŵ = M) = P(G ≤ G(M)), P(ŵ = −M) = P(G ≥ G(−M))."""
    s = a[None, :] * grid[:, None]
    sig = 1.0 / (1.0 + np.exp(s))  # σ(−a w)
    d1 = np.mean(-a[None, :] * sig, axis=1)  # L̂′(w)
    d2 = np.mean(a[None, :] ** 2 * sig * (1.0 - sig), axis=1)  # L̂″(w)
    G = -n * (d1 + 2.0 * lam * grid)
    dens = norm.pdf(G / sigma) / sigma * n * (d2 + 2.0 * lam)

    def G_at(w: float) -> float:
        return float(-n * (np.mean(-a / (1.0 + np.exp(a * w))) + 2.0 * lam * w))

    return dens, float(ndtr(G_at(M) / sigma)), float(ndtr(-G_at(-M) / sigma))


def _hockey_1d(grid: np.ndarray, p: np.ndarray, q: np.ndarray, atoms_p: tuple[float, ...], atoms_q: tuple[float, ...],
               eps: float) -> float:
    """max over both directions of ∫(p − e^ε q)_+ (trapezoid on ``grid``) + Σ_atoms (P − e^ε Q)_+."""
    g = math.exp(eps)
    out = 0.0
    for (a, b, A, B) in ((p, q, atoms_p, atoms_q), (q, p, atoms_q, atoms_p)):
        val = float(np.trapezoid(np.maximum(a - g * b, 0.0), grid))
        val += sum(max(0.0, x - g * z) for x, z in zip(A, B))
        out = max(out, val)
    return min(1.0, out)


def _objp_harness() -> PrivacyHarness:
    name = "bftt19.objp"

    def run(records: np.ndarray, rng: np.random.Generator, algorithm: Any = None) -> Release:
        return call_entry(name, algorithm, records, rng)

    def sensitivity(records_d: np.ndarray, records_n: np.ndarray, seed: int) -> list[SensitivityProbe]:
        prob = harness_problem()
        X, y = split(records_d)
        X2, y2 = split(records_n)
        probes = []
        for label, recs in (("D", records_d), ("D′", records_n)):
            w = np.asarray(call_entry(name, None, recs, np.random.default_rng(seed)).output)
            probes.append(SensitivityProbe(f"noise preimage G(ŵ; D) − G(ŵ; D′) at ŵ released on {label} "
                                           "(Theorem 5.2's proof; bound 2L)",
                                           _objp_noise_preimage_shift(prob, w, X, y, X2, y2), 2.0 * prob.lipschitz))
        return probes

    def noise(seed: int, algorithm: Any = None) -> NoiseSample:
        n = 400
        prob = harness_problem()
        records = alternating_records(n)
        X, y = split(records)
        rel = call_entry(name, algorithm, records, np.random.default_rng(seed), replicates=OBJP_NOISE_RUNS)
        W = np.asarray(rel.output)
        if not np.all(row_norms(W) < RADIUS * (1.0 - 1e-9)):
            raise RuntimeError("a released ŵ lies on the sphere: the replay G = −n(∇L̂(ŵ) + 2λŵ) needs interior "
                               "points (probability ≤ 500·e^-60 for a correct algorithm)")
        lam = o.theorem_5_3_lambda(n, D, EPS, 1.0 / n**2, prob.lipschitz, RADIUS)  # Theorem 5.3's λ (public)
        grad = prob.loss.dphi(W @ X.T, y[None, :]) @ X / n  # ∇L̂(ŵ_r), (R, d)
        G = -n * (grad + 2.0 * lam * W)  # the noise that makes ŵ_r the minimiser (Alg. 2, line 2's optimality)
        sigma = math.sqrt(o.algorithm_2_noise_variance(prob.lipschitz, EPS, 1.0 / n**2))  # Alg. 2, line 1
        return NoiseSample(G.ravel(), sigma, f"{name}: G replayed from ŵ by Algorithm 2's optimality condition")

    def exact_privacy() -> tuple[ExactPrivacy, Release]:
        n, M = N, RADIUS
        prob = ERMProblem(get_loss("logistic"), Ball(M), DataBounds(1.0, 1.0))
        delta = 1.0 / n**2
        lam = o.theorem_5_3_lambda(n, 1, EPS, delta, 1.0, M)
        sigma = math.sqrt(o.algorithm_2_noise_variance(1.0, EPS, delta))
        grid = np.linspace(-M, M, 40001)[1:-1]
        pairs = []
        for bg in (-1.0, 0.0, 1.0):
            for a0, a1 in ((1.0, -1.0), (1.0, 0.0), (-1.0, 0.0)):
                aD = np.full(n, bg)
                aD[0] = a0
                aN = aD.copy()
                aN[0] = a1
                pD, PD, QD = _objp_density_1d(aD, lam, sigma, n, M, grid)
                pN, PN, QN = _objp_density_1d(aN, lam, sigma, n, M, grid)
                pairs.append((bg, a0, a1, pD, (PD, QD), pN, (PN, QN)))

        def delta_pair(pair: Any, e: float) -> float:
            return _hockey_1d(grid, pair[3], pair[5], pair[4], pair[6], e)

        worst = max(pairs, key=lambda pr: delta_pair(pr, EPS))

        def delta_of_epsilon(e: float) -> float:
            return max(delta_pair(pr, e) for pr in pairs)

        records = np.column_stack([np.full(n, worst[0]), np.ones(n)])
        records[0, 0] = worst[1]
        rel = call_entry(name, None, records, np.random.default_rng(0), problem=prob, delta=delta)
        note = (f"d = 1, n = {n}, W = [−{M:g}, {M:g}], λ = {lam:.4g}, σ = {sigma:.4g}: the release's density "
                "φ_σ(G(w))|G′(w)| with atoms at ±M (the certified minimiser is the exact one within 1e-10), "
                "integrated on a 40,000-point grid; the worst of 9 pairs (records y·x ∈ {−1, 0, 1}, the others "
                f"sharing one value; worst: background {worst[0]:g}, record {worst[1]:g} vs {worst[2]:g})")
        return ExactPrivacy(delta_of_epsilon=delta_of_epsilon, note=note), rel

    return PrivacyHarness(entry=name, records=benign_records, extreme_record=extreme_logistic_record, run=run,
                          sensitivity=sensitivity, exact_privacy=exact_privacy, noise=noise,
                          noise_bug=NOISE_BUGS[name])


# ---- efficient objective perturbation -------------------------------------------------------------------------


def _efficient_harness() -> PrivacyHarness:
    name = "bftt19.efficient_objp"

    def run(records: np.ndarray, rng: np.random.Generator, algorithm: Any = None) -> Release:
        return call_entry(name, algorithm, records, rng)

    def _exact_minimiser(prob: ERMProblem, X: np.ndarray, y: np.ndarray, lam: float, G: np.ndarray) -> tuple:
        n = X.shape[0]
        sol = certified_minimize(prob.loss, X, y, prob.domain, lam=lam, linear=G / n, tol=1e-12 * RADIUS)
        return sol.w, float(sol.certificate.distance_bound)

    def sensitivity(records_d: np.ndarray, records_n: np.ndarray, seed: int) -> list[SensitivityProbe]:
        prob = harness_problem()
        n = records_d.shape[0]
        p = o.efficient_objp_parameters(n, D, EPS, 1.0 / n**2, prob.lipschitz, RADIUS)
        X, y = split(records_d)
        X2, y2 = split(records_n)
        probes = []
        for label, (Xa, ya) in (("D", (X, y)), ("D′", (X2, y2))):
            rel = call_entry(name, None, np.column_stack([Xa, ya]), np.random.default_rng(seed))
            G, w_t = rel.nonprivate_internals["G"], rel.nonprivate_internals["w_tilde"]
            w_hat, dist = _exact_minimiser(prob, Xa, ya, p.lam, G)
            probes.append(SensitivityProbe(f"step 3's centre on {label}: ‖w̃ − ŵ‖ (+ ŵ's certified distance)",
                                           _norm(w_t - w_hat) + dist, p.radius_r))
            probes.append(SensitivityProbe(f"step 1: noise preimage shift at ŵ on {label} (bound 2L)",
                                           _objp_noise_preimage_shift(prob, w_hat, X, y, X2, y2),
                                           2.0 * prob.lipschitz))
        return probes

    def noise(seed: int, algorithm: Any = None) -> NoiseSample:
        n = 2000
        prob = harness_problem()
        rel = call_entry(name, algorithm, alternating_records(n), np.random.default_rng(seed),
                         replicates=OBJP_NOISE_RUNS)
        out = np.asarray(rel.output)
        if not np.all(row_norms(out) < RADIUS * (1.0 - 1e-9)):
            raise RuntimeError("a released point lies on the sphere: the residual needs the projection inactive "
                               "(probability ≤ 500·e^-30 for a correct algorithm)")
        p = o.efficient_objp_parameters(n, D, EPS, 1.0 / n**2, prob.lipschitz, RADIUS)  # public
        return NoiseSample((out - rel.nonprivate_internals["w_tilde"]).ravel(), p.sigma2,
                           f"{name}: released point − w̃ (step 3's noise)")

    def exact_privacy() -> tuple[ExactPrivacy, Release]:
        return _efficient_exact()

    return PrivacyHarness(entry=name, records=benign_records, extreme_record=extreme_logistic_record, run=run,
                          sensitivity=sensitivity, exact_privacy=exact_privacy, noise=noise,
                          noise_bug=NOISE_BUGS[name])


def _efficient_exact() -> tuple[ExactPrivacy, Release]:
    """Efficient ObjP's exact curve on the linear loss in d = 1 (module docstring): for each G on a grid the
    implementation's own Prox-SVRG gives w̃(G) (a deterministic function of G for the linear loss, whose
    variance-reduced gradient is the full gradient), the release is Proj_[−M, M](w̃(G) + N(0, σ2²)), and its
    density and atoms are integrated on grids; pair: record +1 vs −1 among zero records."""
    n, M, delta = N, RADIUS, 1.0 / N**2
    prob = ERMProblem(LinearLoss(), Ball(M), DataBounds(1.0, 1.0))
    p = o.efficient_objp_parameters(n, 1, EPS, delta, 1.0, M)
    step, inner = efficient_objp_svrg_constants(float(prob.smoothness), p.lam)  # type: ignore[arg-type]
    sigma1 = math.sqrt(p.sigma1_sq)
    g = np.linspace(-10.0 * sigma1, 10.0 * sigma1, 801)
    wg = np.exp(-0.5 * (g / sigma1) ** 2) / (sigma1 * math.sqrt(2.0 * math.pi)) * (g[1] - g[0])  # G's weights
    o_grid = np.linspace(-M, M, 4001)[1:-1]
    s2 = p.sigma2

    def phi(z: np.ndarray) -> np.ndarray:
        return np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)

    def release_law(xs: np.ndarray) -> tuple[np.ndarray, tuple[float, float]]:
        X, y = xs[:, None], np.zeros(n)
        streams = np.random.default_rng(1).spawn(g.size)
        sol, _ = batched_prox_svrg(prob.loss, X, y, prob.domain, lam=p.lam, linear=g[:, None] / n, radius=p.radius_r,
                                   step=step, inner=inner, streams=streams, max_stages=10_000)
        wt = sol.W[:, 0]
        dens = np.concatenate([(wg[None, :] * phi((blk[:, None] - wt[None, :]) / s2) / s2).sum(axis=1)
                               for blk in np.array_split(o_grid, 8)])  # 500 × 801 values per block
        top = float(np.sum(wg * np.exp(log_ndtr((wt - M) / s2))))
        bottom = float(np.sum(wg * np.exp(log_ndtr((-M - wt) / s2))))
        return dens, (top, bottom)

    laws = []
    for bg in (0.0,):
        xs = np.full(n, bg)
        xs[0] = 1.0
        xn = xs.copy()
        xn[0] = -1.0
        laws.append((bg, release_law(xs), release_law(xn)))

    def delta_of_epsilon(e: float) -> float:
        return max(_hockey_1d(o_grid, a[0], b[0], a[1], b[1], e) for _, a, b in laws)

    records = np.column_stack([np.zeros(n), np.zeros(n)])
    records[0, 0] = 1.0
    rel = call_entry("bftt19.efficient_objp", None, records, np.random.default_rng(0), problem=prob, delta=delta)
    note = (f"linear loss, d = 1, n = {n}, W = [−{M:g}, {M:g}]: w̃(G) from the implementation's batched Prox-SVRG on an "
            "801-point grid of G (±10σ1; the mass beyond is 1.5e-23), the release Proj(w̃ + N(0, σ2²)) integrated on "
            "a 4,000-point grid with its atoms at ±M; pair: record +1 vs −1 among zero records (exact up to "
            "quadrature; the linear loss has no curvature, so the background only moves the centre)")
    return ExactPrivacy(delta_of_epsilon=delta_of_epsilon, note=note), rel


# ---- the planted σ/√2 bugs (dpsco.verification.mutants.bftt19.bugs) and the harnesses ---------------------------------

#: the planted "reports σ, draws σ/√2" copy of each entry's algorithm, by entry (corpus names)
NOISE_BUGS: dict[str, str] = {
    "bftt19.nsgd": "noisy_sgd_draws_sigma_over_sqrt2",
    "bftt19.moreau_nsgd": "moreau_noisy_sgd_draws_sigma_over_sqrt2",
    "bftt19.proxgd": "prox_noisy_sgd_draws_sigma_over_sqrt2",
    "bftt19.objp": "objective_perturbation_draws_sigma_over_sqrt2",
    "bftt19.efficient_objp": "efficient_objective_perturbation_draws_sigma_over_sqrt2",
}

HARNESSES: dict[str, PrivacyHarness] = {
    **{name: _nsgd_harness(name) for name in ("bftt19.nsgd", "bftt19.moreau_nsgd", "bftt19.proxgd")},
    "bftt19.objp": _objp_harness(),
    "bftt19.efficient_objp": _efficient_harness(),
}
