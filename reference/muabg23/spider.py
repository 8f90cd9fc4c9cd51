"""Menart et al. (2023), arXiv:2311.13447 v2, Algorithm 1 ("KL Spider", Section 3; Theorem 1, Lemmas 1, 2, 8).

The seed text lacks the box of Algorithm 1; the lines cited below are the *reconstructed* box:

    c = 1 + F_0^{(2−κ)/κ}/(64 γ² L_1)                                                         (line 2)
    K = ⌈(1 + 64 F_0^{−(2−κ)/κ} γ² L_1)(log F_0 + κ log(n√ρ/(γ L_0 √d)))⌉,  β' (union bound)  (line 3)
    σ̂ = L_0 √K/(n√ρ)                                                                          (line 4)
    w_{1,0} = w_0;  Φ̂_0 = F_0                                                                  (line 5)
    for k = 1..K:  Φ̂_k = max{Φ̂_{k−1}/c, Φ_floor},  Φ_floor = min{(32γL_0√(Kd log(1/β'))/(n√ρ))^κ, F_0}  (line 6)
        T_k = ⌈(F_0/Φ̂_k)^{(2−κ)/κ}⌉,  σ_k = Φ̂_k^{1/κ}√(T_k K)/(γ n√ρ)                           (line 7)
        ∇_{k,0} = ∇F(w_{k,0}; S) + N(0, σ̂² I_d)                                                 (line 8, anchor)
        t = 0                                                                                   (line 9)
        while t < T_k and ‖∇_{k,t}‖ ≥ 7Φ̂_k^{1/κ}/(8γ):                                          (line 10)
            η_{k,t} = Φ̂_k^{1/κ}/(4γ L_1 ‖∇_{k,t}‖)                                              (line 11)
            w_{k,t+1} = w_{k,t} − η_{k,t} ∇_{k,t}      (a normalised step of length s_k = Φ̂_k^{1/κ}/(4γL_1))  (line 12)
            Δ_{k,t+1} = ∇F(w_{k,t+1}; S) − ∇F(w_{k,t}; S) + N(0, σ_k² I_d)                      (line 13)
            ∇_{k,t+1} = ∇_{k,t} + Δ_{k,t+1}                                                       (line 14)
            t = t + 1                                                                           (line 15)
        w_{k+1,0} = w_{k,t}                                                                     (line 17)
    return w̄ = w_{K+1,0}

Two items of the reconstruction differ from the printed box (ERRATA.md MU3, MU4; tests/test_muabg23_spider.py).
The printed box has the loop guard ``t ≤ T_k`` and line 17 w_{k+1,0} = w_{k,t−1}.  A full round then makes
T_k + 1 updates and difference releases and returns w_{k,T_k}.  Its last release is never read — not by an
update, a stopping test, the output or the next round (with either line 17) — so what the box publishes depends
on the K anchors and T_k differences per round: Lemma 8's count holds for the output, while the transcript of
releases *made* has T_k + 1 per round (charged with ``loop_guard="printed"``; the planted bug
``kl_spider_extra_difference_step`` claims T_k for that transcript).  The reconstructed guard ``t < T_k`` makes
T_k releases, the last of which is likewise never read.  What the printed index changes is a round that *stops
early* at t ≥ 1 (line 10's norm test fails): it returns w_{k,t−1}, the point before the one the test certifies
(proof of Theorem 1, case 1) — a utility erratum; at t = 0 the printed w_{k,−1} is undefined and is read here as
w_{k,0}.  The reconstruction takes ``t < T_k`` and w_{k,t}; the printed box is reachable as
``loop_guard="printed", line17="printed"``.

Calibrations.  Under replace-one neighbours the exact cost of a Gaussian release with per-sample bound b is
(2b/n)²/(2σ²) = 2(b/(nσ))² (``ledger.gaussian_zcdp``), while the proof of Lemma 8 charges (b/(nσ))² (for the
anchors) and so obtains 2ρ, not Theorem 1's ρ.  The printed noise ("printed") is in fact 2.125ρ-zCDP (anchors
2ρ, differences ρ/8; 2.25ρ with the printed loop guard).  The default ("exact") splits ρ/2 to the K anchors
and ρ/2 to the differences: σ̂ = 2L_0√K/(n√ρ) and σ_k = Φ̂_k^{1/κ}√(K T_k)/(2γn√ρ) — exactly ρ-zCDP, and
exactly √(2ρ)-GDP.  The exact calibration also replaces the concentration factor 2√(d log(1/β')) by
ψ = √d + √(2 log(1/β')) (a valid Gaussian-norm tail bound for every d), the floor constant 32 by 24 (from
error ≤ ψ(σ̂ + √T_k σ_k) ≤ 3ψL_0√K/(n√ρ), T_k ≤ 2(F_0/Φ̂_k)^{(2−κ)/κ}), and takes β' so that
β'·Σ_k(T_k + 1) ≤ β (the paper's union bound counts Σ_k T_k un-ceiled events; a round has T_k + 1).
(Derived here; the exact ρ and the golden schedules are checked in tests/test_muabg23_spider.py.)

Privacy of the data-dependent stopping: the schedule (K, Φ̂_k, T_k, σ_k, s_k) is computed from public inputs
only, before the data is read (:func:`kl_spider_schedule`); the guard reads only the noisy ∇_{k,t}; every
difference's sensitivity 2L_1 s_k/n depends only on the public step length (per-sample differences are
clipped to L_1 s_k and anchor gradients to L_0 when ``clip=True``).  So the run is a post-processing of the
full-length adaptive Gaussian composition, and every release is charged to a :class:`PrivacyLedger` before
its noise is drawn.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpsco.reference.clipping import clip_rows, enforce_norm_bound
from dpsco.reference.muabg23.model import rows_within_bound
from dpsco.reference.muabg23.ledger import (PrivacyLedger, composed_gdp_mu, gaussian_zcdp,
                                            printed_cost_unit_sensitivity, zcdp_epsilon)
from dpsco.reference.privacy import PrivacyClaim, Release
from dpsco.reference.validation import check_bool, check_choice, check_delta, check_positive, check_rng
from dpsco.reference.white_box import NoisyGradientTrace

__all__ = ["CALIBRATIONS", "LOOP_GUARDS", "LINE17_INDICES", "SpiderSchedule", "kl_spider_c_line2",
           "kl_spider_rounds_line3", "kl_spider_beta_prime_line3", "kl_spider_concentration",
           "kl_spider_anchor_sigma_line4", "kl_spider_floor_line6", "kl_spider_round_length_line7",
           "kl_spider_difference_sigma_line7", "kl_spider_step_length_line11", "kl_spider_stop_threshold_line10",
           "kl_spider_schedule", "kl_spider", "theorem_1_bound", "lemma_8_printed_rho",
           "gdp_mu_of_releases", "prescribed_gradient_evaluations"]

CALIBRATIONS = ("exact", "printed")
LOOP_GUARDS = ("strict", "printed")      # t < T_k (reconstructed) | t ≤ T_k (printed)
LINE17_INDICES = ("t", "printed")        # w_{k+1,0} = w_{k,t} (reconstructed) | w_{k,t−1} (printed)
SOURCE = "Menart et al. (2023), arXiv:2311.13447 v2, Algorithm 1 (reconstructed box), Theorem 1, Lemma 8"


def _check_kappa(kappa: Any) -> float:
    k = check_positive(kappa, "kappa")
    if not 1.0 <= k <= 2.0:
        raise ValueError(f"kappa must be in [1, 2] for Algorithm 1 (Theorem 1), got {kappa!r}")
    return k


def kl_spider_c_line2(F0: float, gamma: float, kappa: float, L1: float) -> float:
    """c = 1 + F_0^{(2−κ)/κ}/(64γ²L_1) (Algorithm 1, line 2, reconstructed)."""
    F0, g, k, L1 = check_positive(F0, "F0"), check_positive(gamma, "gamma"), _check_kappa(kappa), check_positive(L1, "L1")
    return 1.0 + F0 ** ((2.0 - k) / k) / (64.0 * g * g * L1)


def kl_spider_rounds_line3(n: int, d: int, rho: float, F0: float, gamma: float, kappa: float, L0: float,
                           L1: float) -> int:
    """K = ⌈(1 + 64F_0^{−(2−κ)/κ}γ²L_1)(log F_0 + κ log(n√ρ/(γL_0√d)))⌉, at least 1 (line 3, reconstructed;
    the paper writes no ceiling and the bracket can be ≤ 0, where the target already exceeds F_0)."""
    k = _check_kappa(kappa)
    F0, g, L0, L1 = (check_positive(v, name) for v, name in ((F0, "F0"), (gamma, "gamma"), (L0, "L0"), (L1, "L1")))
    rho = check_positive(rho, "rho")
    factor = 1.0 + 64.0 * F0 ** (-(2.0 - k) / k) * g * g * L1
    inner = math.log(F0) + k * math.log(n * math.sqrt(rho) / (g * L0 * math.sqrt(d)))
    return max(1, math.ceil(factor * inner))


def kl_spider_beta_prime_line3(beta: float, K: int, n: int, d: int, rho: float, F0: float, gamma: float,
                               kappa: float, L0: float, calibration: str = "exact") -> float:
    """β' = (β/K)(γL_0√(Kd)/(n√ρF_0^{1/κ}))^{2−κ} (line 3, reconstructed); the exact calibration divides by 4
    (ceilings of T_k and the anchors' error events) — :func:`kl_spider_schedule` then shrinks it further if
    needed so that β'·Σ_k(T_k + 1) ≤ β."""
    k = _check_kappa(kappa)
    beta = check_positive(beta, "beta")
    if beta >= 1.0:
        raise ValueError(f"beta must be in (0, 1), got {beta!r}")
    ratio = gamma * L0 * math.sqrt(K * d) / (n * math.sqrt(rho) * F0 ** (1.0 / k))
    b = (beta / K) * min(1.0, ratio) ** (2.0 - k)
    return b / 4.0 if check_choice(calibration, "calibration", CALIBRATIONS) == "exact" else b


def kl_spider_concentration(d: int, beta_prime: float, calibration: str = "exact") -> float:
    """The Gaussian-norm factor: ‖N(0, s²I_d)‖ ≤ s·ψ w.p. ≥ 1 − β'.  Exact: ψ = √d + √(2 log(1/β'))
    (Lipschitz concentration); printed (Lemma 2): 2√(d log(1/β'))."""
    lb = math.log(1.0 / check_positive(beta_prime, "beta_prime"))
    if check_choice(calibration, "calibration", CALIBRATIONS) == "exact":
        return math.sqrt(d) + math.sqrt(2.0 * lb)
    return 2.0 * math.sqrt(d * lb)


def kl_spider_anchor_sigma_line4(n: int, rho: float, K: int, L0: float, calibration: str = "exact") -> float:
    """σ̂ (line 4): printed L_0√K/(n√ρ); exact 2L_0√K/(n√ρ) (each of the K anchors, sensitivity 2L_0/n,
    costs ρ/(2K))."""
    s = L0 * math.sqrt(K) / (n * math.sqrt(rho))
    return 2.0 * s if check_choice(calibration, "calibration", CALIBRATIONS) == "exact" else s


def kl_spider_floor_line6(n: int, d: int, rho: float, K: int, beta_prime: float, F0: float, gamma: float,
                          kappa: float, L0: float, calibration: str = "exact") -> float:
    """Φ_floor (line 6): printed min{(32γL_0√(Kd log(1/β'))/(n√ρ))^κ, F_0}; exact min{(24γL_0ψ√K/(n√ρ))^κ, F_0}."""
    k = _check_kappa(kappa)
    if check_choice(calibration, "calibration", CALIBRATIONS) == "exact":
        psi = kl_spider_concentration(d, beta_prime, "exact")
        base = 24.0 * gamma * L0 * psi * math.sqrt(K) / (n * math.sqrt(rho))
    else:
        base = 32.0 * gamma * L0 * math.sqrt(K * d * math.log(1.0 / beta_prime)) / (n * math.sqrt(rho))
    return min(base ** k, F0)


def kl_spider_round_length_line7(F0: float, phi: float, kappa: float) -> int:
    """T_k = ⌈(F_0/Φ̂_k)^{(2−κ)/κ}⌉ (line 7; the ceiling is ours: the paper's T_k is real)."""
    k = _check_kappa(kappa)
    return max(1, math.ceil((F0 / phi) ** ((2.0 - k) / k)))


def kl_spider_difference_sigma_line7(n: int, rho: float, K: int, T_k: int, phi: float, gamma: float,
                                     kappa: float, calibration: str = "exact") -> float:
    """σ_k (line 7): printed Φ̂_k^{1/κ}√(T_kK)/(γn√ρ); exact half of it (each of the T_k differences,
    sensitivity 2L_1s_k/n = Φ̂_k^{1/κ}/(2γn), costs ρ/(2KT_k))."""
    s = phi ** (1.0 / kappa) * math.sqrt(T_k * K) / (gamma * n * math.sqrt(rho))
    return s / 2.0 if check_choice(calibration, "calibration", CALIBRATIONS) == "exact" else s


def kl_spider_step_length_line11(phi: float, gamma: float, kappa: float, L1: float) -> float:
    """s_k = η_{k,t}‖∇_{k,t}‖ = Φ̂_k^{1/κ}/(4γL_1) (lines 11-12: the step is normalised)."""
    return phi ** (1.0 / kappa) / (4.0 * gamma * L1)


def kl_spider_stop_threshold_line10(phi: float, gamma: float, kappa: float) -> float:
    """7Φ̂_k^{1/κ}/(8γ) (line 10): a round continues only while ‖∇_{k,t}‖ is at least this."""
    return 7.0 * phi ** (1.0 / kappa) / (8.0 * gamma)


@dataclass(frozen=True)
class SpiderSchedule:
    """Every public quantity of Algorithm 1, computed from public inputs only (:func:`kl_spider_schedule`).

    Attributes: the inputs (calibration, loop_guard, n, d, rho, beta, F0, gamma, kappa, L0, L1), c (line 2),
    K and beta_prime (line 3), psi (concentration factor), sigma_hat (line 4), phi_floor and phi = (Φ̂_1..Φ̂_K)
    (line 6), T = (T_1..T_K) and sigma = (σ_1..σ_K) (line 7), step = (s_1..s_K) (line 11), threshold
    (line 10), and ``releases_per_round`` = T_k (strict guard) or T_k + 1 (printed guard): the most
    difference releases a round can make.
    """

    calibration: str
    loop_guard: str
    n: int
    d: int
    rho: float
    beta: float
    F0: float
    gamma: float
    kappa: float
    L0: float
    L1: float
    c: float
    K: int
    beta_prime: float
    psi: float
    sigma_hat: float
    phi_floor: float
    phi: tuple[float, ...]
    T: tuple[int, ...]
    sigma: tuple[float, ...]
    step: tuple[float, ...]
    threshold: tuple[float, ...]

    @property
    def releases_per_round(self) -> tuple[int, ...]:
        return tuple(t + 1 for t in self.T) if self.loop_guard == "printed" else self.T

    @property
    def anchor_sensitivity(self) -> float:
        """2L_0/n (replace-one, anchors clipped to L_0)."""
        return 2.0 * self.L0 / self.n

    def difference_sensitivity(self, k: int) -> float:
        """2L_1s_k/n (replace-one, differences clipped to L_1 s_k); k is 0-based."""
        return 2.0 * self.L1 * self.step[k] / self.n

    def exact_rho(self) -> float:
        """Σ of the exact replace-one costs Δ²/(2σ²) of the K anchors and the most difference releases the
        loop guard allows (the worst case over transcripts: early stopping only drops releases)."""
        total = self.K * gaussian_zcdp(self.anchor_sensitivity, self.sigma_hat)
        for k in range(self.K):
            total += self.releases_per_round[k] * gaussian_zcdp(self.difference_sensitivity(k), self.sigma[k])
        return total

    def to_dict(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self.__dataclass_fields__} | {
            "releases_per_round": list(self.releases_per_round), "exact_rho": self.exact_rho()}


def kl_spider_schedule(n: int, d: int, rho: float, beta: float, F0: float, gamma: float, kappa: float, L0: float,
                       L1: float, calibration: str = "exact", loop_guard: str = "strict") -> SpiderSchedule:
    """The whole schedule of Algorithm 1 (lines 2-7, 10, 11) from public inputs only, before any data is read.

    Parameters: n, d ≥ 1 ints; rho > 0; beta ∈ (0, 1); F0 ∈ (0, (γL_0)^κ] (Algorithm 1's requirement);
    gamma, L0, L1 > 0; kappa ∈ [1, 2]; calibration "exact" | "printed"; loop_guard "strict" | "printed".

    Raises ValueError / TypeError naming the parameter.
    """
    from dpsco.reference.validation import check_positive_int

    n, d = check_positive_int(n, "n"), check_positive_int(d, "d")
    rho, F0, gamma = check_positive(rho, "rho"), check_positive(F0, "F0"), check_positive(gamma, "gamma")
    L0, L1, kappa = check_positive(L0, "L0"), check_positive(L1, "L1"), _check_kappa(kappa)
    beta = check_positive(beta, "beta")
    if beta >= 1.0:
        raise ValueError(f"beta must be in (0, 1), got {beta!r}")
    if F0 > (gamma * L0) ** kappa * (1.0 + 1e-12):
        raise ValueError(f"F0 must be at most (gamma*L0)^kappa = {(gamma * L0) ** kappa:.6g} (Algorithm 1), got {F0!r}")
    calibration = check_choice(calibration, "calibration", CALIBRATIONS)
    loop_guard = check_choice(loop_guard, "loop_guard", LOOP_GUARDS)
    c = kl_spider_c_line2(F0, gamma, kappa, L1)
    K = kl_spider_rounds_line3(n, d, rho, F0, gamma, kappa, L0, L1)

    def rounds(beta_prime: float) -> tuple[float, list[float], list[int]]:
        floor = kl_spider_floor_line6(n, d, rho, K, beta_prime, F0, gamma, kappa, L0, calibration)
        phi, prev = [], F0
        for _ in range(K):
            prev = max(prev / c, floor)                                  # line 6
            phi.append(prev)
        return floor, phi, [kl_spider_round_length_line7(F0, p, kappa) for p in phi]

    beta_prime = kl_spider_beta_prime_line3(beta, K, n, d, rho, F0, gamma, kappa, L0, calibration)
    floor, phi, T = rounds(beta_prime)
    if calibration == "exact":
        events = sum(t + 1 for t in T)  # a round's error events: its anchor and its T_k differences
        if beta_prime * events > beta:  # a smaller β' raises the floor and shortens rounds: one shrink suffices
            beta_prime = beta / events
            floor, phi, T = rounds(beta_prime)
    sigma = tuple(kl_spider_difference_sigma_line7(n, rho, K, t, p, gamma, kappa, calibration) for t, p in zip(T, phi))
    return SpiderSchedule(
        calibration=calibration, loop_guard=loop_guard, n=n, d=d, rho=rho, beta=beta, F0=F0, gamma=gamma,
        kappa=kappa, L0=L0, L1=L1, c=c, K=K, beta_prime=beta_prime,
        psi=kl_spider_concentration(d, beta_prime, calibration),
        sigma_hat=kl_spider_anchor_sigma_line4(n, rho, K, L0, calibration), phi_floor=floor, phi=tuple(phi),
        T=tuple(T), sigma=sigma, step=tuple(kl_spider_step_length_line11(p, gamma, kappa, L1) for p in phi),
        threshold=tuple(kl_spider_stop_threshold_line10(p, gamma, kappa) for p in phi))


def lemma_8_printed_rho(schedule: SpiderSchedule) -> float:
    """The proof of Lemma 8's accounting of the schedule's noise: K anchors at (L_0/(nσ̂))² and T_k
    differences at (Φ̂_k^{1/κ}/(γnσ_k))² each (the printed per-release charge, sensitivity "L_0/n" and
    "Φ̂_k^{1/κ}/(γn)").  With the printed noise it is 2ρ — against Theorem 1's ρ and the exact 2.125ρ."""
    s = schedule
    total = s.K * printed_cost_unit_sensitivity(s.L0, s.n, s.sigma_hat)
    for k in range(s.K):
        total += s.T[k] * (s.phi[k] ** (1.0 / s.kappa) / (s.gamma * s.n * s.sigma[k])) ** 2
    return total


def theorem_1_bound(schedule: SpiderSchedule) -> float:
    """Theorem 1's bound in its explicit form (proof of Theorem 1): F(w̄) − F* ≤ max{c^{−K}F_0, Φ_floor} = Φ̂_K
    with probability ≥ 1 − β (exact calibration's constants: 24ψ)."""
    return schedule.phi[-1]


def _clip_each(G: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Row r of G clipped at ``bounds[r]`` (the reference clipping, ‖out_r‖ ≤ bounds[r] in floating point)."""
    out = np.empty_like(G)
    for b in np.unique(bounds):
        rows = bounds == b
        out[rows] = clip_rows(G[rows], float(b))
    return out


def _per_sample_grads(loss: Any, w: np.ndarray, X: np.ndarray) -> np.ndarray:
    """loss.grads(w, X) as an (n, d) float array.  Overflow to ±inf and NaN (a user oracle at an extreme record)
    are kept here and neutralised by the clipping before any release (``dpsco.reference.clipping``)."""
    with np.errstate(all="ignore"):
        G = np.asarray(loss.grads(w, X), dtype=np.float64)
    if G.shape != (X.shape[0], w.shape[0]):
        raise ValueError(f"loss.grads(w, X) must return an (n, d) = {(X.shape[0], w.shape[0])} array, got {G.shape}")
    return G


def _bounded_mean(rows: np.ndarray, bound: float, clip: bool) -> np.ndarray:
    """The released mean of per-sample terms clipped at ``bound`` by the last fail-safe ``enforce_norm_bound``
    (the reference clipping ``clip_rows`` of the rows above the bound, non-finite rows included; the rows
    themselves when all are bounded), so the sensitivity 2·bound/n holds in floating point and the mean is
    finite whatever the per-sample values.  ``clip`` (Algorithm 1's clipping step) and the fail-safe clip the
    same rows at the same bound, so ``clip=False`` releases the same."""
    with np.errstate(all="ignore"):
        if rows_within_bound(rows, bound):           # nothing to clip: a one-pass test for the hot loop
            return rows.mean(axis=0)
        return enforce_norm_bound(rows, bound).mean(axis=0)


@dataclass
class _Run:
    output: np.ndarray
    trajectory: list[np.ndarray]
    kinds: list[int] = field(default_factory=list)       # 1 anchor, 2 difference
    points: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    sigmas: list[float] = field(default_factory=list)
    clips: list[float] = field(default_factory=list)
    noisy: list[np.ndarray] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    grads: int = 0


def _run_once(X: np.ndarray, loss: Any, s: SpiderSchedule, w0: np.ndarray, rng: np.random.Generator, clip: bool,
              line17: str, ledger: PrivacyLedger) -> _Run:
    n = X.shape[0]
    w = w0.copy()
    run = _Run(output=w0, trajectory=[w0.copy()])
    strict = s.loop_guard == "strict"
    for k in range(s.K):
        G = _per_sample_grads(loss, w, X)
        run.grads += n
        mean = _bounded_mean(G, s.L0, clip)
        ledger.charge(f"anchor k={k + 1}", s.anchor_sensitivity, s.sigma_hat)           # before the noise
        nabla = mean + s.sigma_hat * rng.standard_normal(w.shape[0])                    # line 8
        run.kinds.append(1), run.points.append((w.copy(), w.copy())), run.sigmas.append(s.sigma_hat)
        run.clips.append(s.L0), run.noisy.append(nabla.copy())
        iterates = [w.copy()]
        t = 0
        while (t < s.T[k] if strict else t <= s.T[k]) and np.linalg.norm(nabla) >= s.threshold[k]:  # line 10
            eta = s.step[k] / np.linalg.norm(nabla)                                     # line 11
            w_next = w - eta * nabla                                                    # line 12
            G_next = _per_sample_grads(loss, w_next, X)
            run.grads += n
            with np.errstate(all="ignore"):
                diff = G_next - G                                                       # inf − inf: NaN rows, clipped to 0
            bound = s.L1 * s.step[k]
            dmean = _bounded_mean(diff, bound, clip)
            ledger.charge(f"difference k={k + 1} t={t + 1}", s.difference_sensitivity(k), s.sigma[k])
            nabla = nabla + dmean + s.sigma[k] * rng.standard_normal(w.shape[0])        # lines 13-14
            run.kinds.append(2), run.points.append((w.copy(), w_next.copy())), run.sigmas.append(s.sigma[k])
            run.clips.append(bound), run.noisy.append(nabla.copy())
            w, G = w_next, G_next
            iterates.append(w.copy())
            t += 1                                                                      # line 15
        run.steps.append(t)
        # line 17: w_{k+1,0} = w_{k,t} (reconstructed); printed w_{k,t−1} (w_{k,0} when t = 0)
        w = iterates[t] if line17 == "t" else iterates[max(t - 1, 0)]
        run.trajectory.extend(iterates[1:])
    run.output = w
    return run


def _difference_releases(run: _Run) -> list[np.ndarray]:
    """The released noisy quantity of each release: the anchor ∇_{k,0}, or the difference Δ_{k,t} = ∇_{k,t} −
    ∇_{k,t−1} (the running estimates are their partial sums: post-processing)."""
    out = []
    for j, kind in enumerate(run.kinds):
        out.append(run.noisy[j] if kind == 1 else run.noisy[j] - run.noisy[j - 1])
    return out


def _trace(runs: list[_Run], loss: Any, s: SpiderSchedule, d: int, clip: bool,
           rng_pad: np.random.Generator) -> NoisyGradientTrace:
    """The white-box view in normalised units (each release divided by its σ_j: unit noise), padded with
    pure-noise steps (a release that did not happen is a data-independent draw: post-processing) to the
    K + Σ releases_per_round accounted releases.  Iterate rows encode (w_a, w_b, 1/σ_j, kind, clip_j)."""
    N = s.K + sum(s.releases_per_round)
    R = len(runs)
    D = 2 * d + 3
    it = np.zeros((R, N + 1, D))
    ng = np.zeros((R, N, D))
    for r, run in enumerate(runs):
        vals = _difference_releases(run)
        # order: per round, anchor then its differences, then padding up to the round's accounted count
        j = 0
        pos = 0
        for k in range(s.K):
            slots = 1 + s.releases_per_round[k]
            used = 1 + run.steps[k]
            for q in range(used):
                wa, wb = run.points[j]
                it[r, pos, :d], it[r, pos, d:2 * d] = wa, wb
                it[r, pos, 2 * d], it[r, pos, 2 * d + 1], it[r, pos, 2 * d + 2] = 1.0 / run.sigmas[j], run.kinds[j], run.clips[j]
                ng[r, pos, :d] = vals[j] / run.sigmas[j]
                j += 1
                pos += 1
            for _ in range(slots - used):
                ng[r, pos, :d] = rng_pad.standard_normal(d)
                pos += 1
    c = math.sqrt(2.0 * s.exact_rho() / N)

    def record_gradient(W: np.ndarray, x: np.ndarray, y: float) -> np.ndarray:
        with np.errstate(all="ignore"):
            return _record_gradient(W, x)

    def _record_gradient(W: np.ndarray, x: np.ndarray) -> np.ndarray:
        out = np.zeros_like(W)
        X1 = np.asarray(x, dtype=np.float64)[None, :]
        batch = getattr(loss, "record_grads", None)  # optional fast path: (W (R, d), x) -> (R, d)
        if callable(batch):
            kind, scale, bound = W[:, 2 * d + 1], W[:, 2 * d], W[:, 2 * d + 2]
            ga, gb = batch(W[:, :d], X1[0]), batch(W[:, d:2 * d], X1[0])
            g = np.where((kind == 1)[:, None], ga, gb - ga)
            g = _clip_each(g, bound)  # clip=False: the fail-safe clips at the same bound
            out[:, :d] = np.where((kind == 0)[:, None], 0.0, g * scale[:, None])
            return out
        for r in range(W.shape[0]):
            kind = W[r, 2 * d + 1]
            if kind == 0:
                continue
            wa, wb, scale, bound = W[r, :d], W[r, d:2 * d], W[r, 2 * d], W[r, 2 * d + 2]
            g = _per_sample_grads(loss, wa, X1)[0] if kind == 1 else (
                _per_sample_grads(loss, wb, X1)[0] - _per_sample_grads(loss, wa, X1)[0])
            g = clip_rows(g, bound)  # clip=False: the fail-safe clips at the same bound
            out[r, :d] = g * scale
        return out

    return NoisyGradientTrace(iterates=it, noisy_gradients=ng, record_gradient=record_gradient, n=s.n, m=s.n,
                              T=N, sigma=1.0, clip_norm=s.n * c / 2.0, eta=1.0, sampling="full-batch",
                              algorithm="KL Spider (Menart et al. 2023, Algorithm 1), normalised releases")


def kl_spider(X: Any, loss: Any, rho: float, beta: float, F0: float, gamma: float, kappa: float, L0: float,
              L1: float, rng: np.random.Generator, *, w0: Any = None, delta: float = 1e-6,
              calibration: str = "exact", loop_guard: str = "strict", line17: str = "t", clip: bool = True,
              replicates: int | None = None, white_box: bool = False) -> Release:
    """Algorithm 1 (KL Spider) of Menart et al. (2023), arXiv:2311.13447 v2 (module docstring: reconstructed box).

    Parameters
    ----------
    X : (n, p) records (rows), read only through ``loss.grads(w, X) -> (n, d)`` (per-sample gradients).
    loss : any object with ``grads(w, X)``; its constants L0 (Lipschitz) and L1 (smoothness) are given
        explicitly and must be public (they hold on every record, or ``clip=True`` enforces the sensitivity).
    rho : float > 0, the zCDP budget;  beta : failure probability in (0, 1);  F0 : public bound on
        F(w_0) − F* with 0 < F0 ≤ (γL_0)^κ;  gamma > 0, kappa ∈ [1, 2]: the (γ, κ)-KL* constants;
        L0, L1 > 0.  **All public and data-independent** (the schedule is computed before the data is read).
    rng : numpy Generator.
    w0 : (d,) public start (default 0, with d = ``loss.dimension`` if present, else X's column count).
    delta : δ at which the claim's ε = ρ_claim + 2√(ρ_claim log(1/δ)) is stated.
    calibration : "exact" (default; exactly ρ-zCDP) | "printed" (its claim states the exact 2.125ρ).
    loop_guard : "strict" (t < T_k, reconstructed, default) | "printed" (t ≤ T_k; one more release per round,
        charged: the claim states it).
    line17 : "t" (w_{k+1,0} = w_{k,t}, default) | "printed" (w_{k,t−1}).
    clip : clip per-sample anchor gradients to L_0 and differences to L_1 s_k (no-op under the assumptions).
        ``clip=False`` skips that step, but the last fail-safe before every release
        (``dpsco.reference.clipping.enforce_norm_bound``) still clips any term above its bound, so the claim is
        unconditional and the release is the same.  Per-sample gradients that overflow to ±inf or are NaN (an
        oracle at an extreme record) are clipped to their limit direction or to 0: after the up-front checks
        (finite X, ``loss.check_records``, the public inputs) the run never raises and its output is finite.
    replicates : R independent runs (a verification record, output (R, d)) or None.
    white_box : attach a :class:`NoisyGradientTrace` of the releases in normalised units.

    Returns
    -------
    Release: output w̄ = w_{K+1,0} ((d,) or (R, d)); claim ρ_claim-zCDP under replace-one with ρ_claim the
    schedule's exact cost (= ρ for the exact calibration; the event SelfComposed(Gaussian) of the same
    composed GDP μ = √(2ρ_claim), REPLACE_ONE); gradient_evaluations = n·(K + Σ_k releases_per_round_k)
    per run, the count the schedule prescribes from public inputs (:func:`prescribed_gradient_evaluations`;
    the count performed, n·Σ_k(1 + steps_k) with cached per-sample gradients, depends on where rounds stop and
    is ``nonprivate_internals["gradient_evaluations_performed"]``), summed over replicates; parameters = the
    schedule.

    Raises
    ------
    ValueError / TypeError naming the parameter.
    """
    from dp_accounting import dp_event

    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1:
        raise ValueError(f"X must be an (n, p) array of records, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must be finite (records with NaN or inf are refused before any noise is drawn)")
    rng = check_rng(rng)
    clip = check_bool(clip, "clip")
    white_box = check_bool(white_box, "white_box")
    line17 = check_choice(line17, "line17", LINE17_INDICES)
    delta = check_delta(delta)
    if not hasattr(loss, "grads"):
        raise TypeError("loss must have a grads(w, X) -> (n, d) method")
    if callable(getattr(loss, "check_records", None)):
        X = np.asarray(loss.check_records(X), dtype=np.float64)  # the data domain the constants hold on
    if w0 is None:
        d = int(getattr(loss, "dimension", lambda p: p)(X.shape[1])) if callable(getattr(loss, "dimension", None)) else X.shape[1]
        w0 = np.zeros(d)
    w0 = np.asarray(w0, dtype=np.float64)
    if w0.ndim != 1 or not np.all(np.isfinite(w0)):
        raise ValueError(f"w0 must be a finite (d,) vector, got shape {w0.shape}")
    d = w0.shape[0]
    if replicates is not None:
        from dpsco.reference.validation import check_positive_int
        replicates = check_positive_int(replicates, "replicates")
    n = X.shape[0]
    # the whole schedule from public inputs, before the data is read (lines 2-7)
    s = kl_spider_schedule(n, d, rho, beta, F0, gamma, kappa, L0, L1, calibration, loop_guard)
    rho_claim = s.exact_rho()
    runs = []
    for _ in range(replicates or 1):
        ledger = PrivacyLedger(rho_claim)
        runs.append(_run_once(X, loss, s, w0, rng, clip, line17, ledger))
    N = s.K + sum(s.releases_per_round)
    c = math.sqrt(2.0 * rho_claim / N)
    conditions: tuple[str, ...] = ()
    if calibration == "printed":
        conditions += (f"printed calibration: Theorem 1 states rho = {rho}; the exact replace-one cost of the "
                       f"printed noise is {rho_claim:.6g} (stated here)",)
    if loop_guard == "printed":
        conditions += ("printed loop guard t <= T_k: one more difference release per round, charged",)
    claim = PrivacyClaim(
        notion="zCDP", epsilon=zcdp_epsilon(rho_claim, delta), delta=delta, neighbouring="replace-one",
        source=SOURCE, rho=rho_claim, mu=math.sqrt(2.0 * rho_claim),
        assumptions={"L0": L0, "L1": L1, "gamma": gamma, "kappa": kappa, "F0": F0, "n": n, "clip": clip,
                     "releases_accounted": N, "calibration": calibration},
        conditions=conditions,
        event=dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(2.0 / c), N), event_neighbouring="REPLACE_ONE")
    out = np.stack([r.output for r in runs]) if replicates else runs[0].output
    params = s.to_dict()
    params.update({"line17": line17, "clip": clip, "w0": w0})
    return Release(
        output=out, claim=claim, gradient_evaluations=len(runs) * prescribed_gradient_evaluations(s),
        parameters=params, algorithm="KL Spider (Menart et al. 2023, Algorithm 1)",
        trajectory=None if replicates else np.asarray(runs[0].trajectory),
        diagnostics={"steps_per_round": [r.steps for r in runs] if replicates else runs[0].steps,
                     "releases": [len(r.kinds) for r in runs]},
        nonprivate_internals={"gradient_evaluations_performed": int(sum(r.grads for r in runs))},
        replicates=replicates,
        white_box=_trace(runs, loss, s, d, clip, rng) if white_box else None)


def prescribed_gradient_evaluations(schedule: SpiderSchedule) -> int:
    """n·(K + Σ_k releases_per_round_k): the per-sample gradients the schedule prescribes for one run (an anchor
    per round and one new point per difference release; the previous point's gradients are cached), from public
    inputs only.  A round that stops early (line 10's guard) performs fewer; that data-dependent count is
    ``nonprivate_internals["gradient_evaluations_performed"]`` (never published)."""
    return schedule.n * (schedule.K + sum(schedule.releases_per_round))


def gdp_mu_of_releases(schedule: SpiderSchedule) -> float:
    """√(Σ (Δ_j/σ_j)²) over the schedule's accounted releases (= √(2·exact_rho))."""
    ratios = [schedule.anchor_sensitivity / schedule.sigma_hat] * schedule.K
    for k in range(schedule.K):
        ratios += [schedule.difference_sensitivity(k) / schedule.sigma[k]] * schedule.releases_per_round[k]
    return composed_gdp_mu(ratios)
