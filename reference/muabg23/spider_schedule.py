"""Menart et al. (2023), arXiv:2311.13447 v2, Algorithm 1 ("KL Spider"): its schedule — lines 2-7, 10, 11 of the
reconstructed box (``dpsco.reference.muabg23.algorithms_spider``'s module text) — as plain functions of the public inputs,
computed before the data is read, and the refusal of public inputs at which a run could leave double precision.
Re-exported by ``dpsco.reference.muabg23.algorithms_spider``.

Every formula is computed scale-free (independent review D1, D5): sums of logarithms for K, β′ and the floor,
Φ̂_k^{1/κ}/γ before any other factor, the costs as ½(Δ/σ)² (``ledger.gaussian_zcdp``), so that extreme public
constants give the schedule's true values or a ValueError naming them, never an OverflowError, a
ZeroDivisionError or a NaN budget.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpsco.reference.clipping import row_norms
from dpsco.reference.muabg23.ledger import (cached_gaussian_zcdp, composed_gdp_mu,
                                            printed_cost_unit_sensitivity)
from dpsco.reference.validation import check_choice, check_positive

__all__ = ["CALIBRATIONS", "LOOP_GUARDS", "MAX_RELEASES", "SpiderSchedule", "kl_spider_c_line2",
           "kl_spider_rounds_line3", "kl_spider_beta_prime_line3", "kl_spider_concentration",
           "kl_spider_anchor_sigma_line4", "kl_spider_floor_line6", "kl_spider_round_length_line7",
           "kl_spider_difference_sigma_line7", "kl_spider_step_length_line11", "kl_spider_stop_threshold_line10",
           "kl_spider_schedule", "check_schedule_representable", "theorem_1_bound", "lemma_8_printed_rho",
           "gdp_mu_of_releases", "prescribed_gradient_evaluations"]

CALIBRATIONS = ("exact", "printed")
LOOP_GUARDS = ("strict", "printed")      # t < T_k (reconstructed) | t ≤ T_k (printed)

#: the most releases (K anchors and Σ_k T_k differences, each of n gradients) a schedule may prescribe; more is
#: refused up front, naming the public inputs (independent review D5: extreme constants gave astronomically long
#: schedules, or overflowed on the way)
MAX_RELEASES = 10 ** 8
_SCHEDULE_INPUTS = "rho, F0, gamma, kappa, L0, L1"


def _schedule_error(what: str) -> ValueError:
    return ValueError(f"{_SCHEDULE_INPUTS}: Algorithm 1's {what} at these public inputs; refused before the data "
                      "is read and before any noise is drawn")


def _check_kappa(kappa: Any) -> float:
    k = check_positive(kappa, "kappa")
    if not 1.0 <= k <= 2.0:
        raise ValueError(f"kappa must be in [1, 2] for Algorithm 1 (Theorem 1), got {kappa!r}")
    return k


def _root(phi: float, gamma: float, kappa: float) -> float:
    """Φ^{1/κ}/γ, scale-free (the power first: Φ^{1/κ} ≤ Φ for Φ ≥ 1 cannot overflow; no γ² is formed)."""
    return phi ** (1.0 / kappa) / gamma


def kl_spider_c_line2(F0: float, gamma: float, kappa: float, L1: float) -> float:
    """c = 1 + F_0^{(2−κ)/κ}/(64γ²L_1) (Algorithm 1, line 2, reconstructed).  Scale-free: (F_0^{(2−κ)/(2κ)}/γ)²/64/L_1
    (γ² and 64γ²L_1 under- or overflowed for extreme γ, L_1: ZeroDivisionError or NaN; review D5); c = inf where the
    true c exceeds double precision (then Φ̂_k is the floor from round 1 on)."""
    F0, g, k, L1 = check_positive(F0, "F0"), check_positive(gamma, "gamma"), _check_kappa(kappa), check_positive(L1, "L1")
    x = F0 ** ((2.0 - k) / (2.0 * k)) / g
    return 1.0 + x * x / 64.0 / L1


def _log_target(n: int, d: int, rho: float, F0: float, gamma: float, kappa: float, L0: float) -> float:
    """log F_0 + κ log(n√ρ/(γL_0√d)), as a sum of logarithms (finite for every positive finite input)."""
    return math.log(F0) + kappa * (math.log(n) + 0.5 * math.log(rho) - math.log(gamma) - math.log(L0)
                                   - 0.5 * math.log(d))


def kl_spider_rounds_line3(n: int, d: int, rho: float, F0: float, gamma: float, kappa: float, L0: float,
                           L1: float) -> int:
    """K = ⌈(1 + 64F_0^{−(2−κ)/κ}γ²L_1)(log F_0 + κ log(n√ρ/(γL_0√d)))⌉, at least 1 (line 3, reconstructed;
    the paper writes no ceiling and the bracket can be ≤ 0, where the target already exceeds F_0).  Computed
    scale-free (logarithms; (γ/F_0^{(2−κ)/(2κ)})²); a K above :data:`MAX_RELEASES` is refused (ValueError)."""
    k = _check_kappa(kappa)
    F0, g, L0, L1 = (check_positive(v, name) for v, name in ((F0, "F0"), (gamma, "gamma"), (L0, "L0"), (L1, "L1")))
    rho = check_positive(rho, "rho")
    inner = _log_target(n, d, rho, F0, g, k, L0)
    if inner <= 0.0:
        return 1
    y = g / F0 ** ((2.0 - k) / (2.0 * k))
    K = (1.0 + 64.0 * (y * y) * L1) * inner
    if not K <= MAX_RELEASES:
        raise _schedule_error(f"number of rounds K = {K:.3g} exceeds {MAX_RELEASES}")
    return max(1, math.ceil(K))


def kl_spider_beta_prime_line3(beta: float, K: int, n: int, d: int, rho: float, F0: float, gamma: float,
                               kappa: float, L0: float, calibration: str = "exact") -> float:
    """β' = (β/K)(γL_0√(Kd)/(n√ρF_0^{1/κ}))^{2−κ} (line 3, reconstructed; the ratio taken in logarithms, capped at
    1); the exact calibration divides by 4 (ceilings of T_k and the anchors' error events) —
    :func:`kl_spider_schedule` then shrinks it further if needed so that β'·Σ_k(T_k + 1) ≤ β."""
    k = _check_kappa(kappa)
    beta = check_positive(beta, "beta")
    if beta >= 1.0:
        raise ValueError(f"beta must be in (0, 1), got {beta!r}")
    log_ratio = (math.log(gamma) + math.log(L0) + 0.5 * math.log(K * d) - math.log(n) - 0.5 * math.log(rho)
                 - math.log(F0) / k)
    b = (beta / K) * math.exp((2.0 - k) * min(0.0, log_ratio))
    return b / 4.0 if check_choice(calibration, "calibration", CALIBRATIONS) == "exact" else b


def kl_spider_concentration(d: int, beta_prime: float, calibration: str = "exact") -> float:
    """The Gaussian-norm factor: ‖N(0, s²I_d)‖ ≤ s·ψ w.p. ≥ 1 − β'.  Exact: ψ = √d + √(2 log(1/β'))
    (Lipschitz concentration); printed (Lemma 2): 2√(d log(1/β'))."""
    lb = -math.log(check_positive(beta_prime, "beta_prime"))
    if check_choice(calibration, "calibration", CALIBRATIONS) == "exact":
        return math.sqrt(d) + math.sqrt(2.0 * lb)
    return 2.0 * math.sqrt(d * lb)


def kl_spider_anchor_sigma_line4(n: int, rho: float, K: int, L0: float, calibration: str = "exact") -> float:
    """σ̂ (line 4): printed L_0√K/(n√ρ); exact 2L_0√K/(n√ρ) (each of the K anchors, sensitivity 2L_0/n,
    costs ρ/(2K)).  L_0 times a dimensionless factor (scale-free)."""
    s = L0 * (math.sqrt(K) / n / math.sqrt(rho))
    return 2.0 * s if check_choice(calibration, "calibration", CALIBRATIONS) == "exact" else s


def kl_spider_floor_line6(n: int, d: int, rho: float, K: int, beta_prime: float, F0: float, gamma: float,
                          kappa: float, L0: float, calibration: str = "exact") -> float:
    """Φ_floor (line 6): printed min{(32γL_0√(Kd log(1/β'))/(n√ρ))^κ, F_0}; exact min{(24γL_0ψ√K/(n√ρ))^κ, F_0}.
    The base is taken in logarithms and compared with F_0 there (its κ-th power overflowed for huge γL_0)."""
    k = _check_kappa(kappa)
    if check_choice(calibration, "calibration", CALIBRATIONS) == "exact":
        psi = kl_spider_concentration(d, beta_prime, "exact")
        log_c = math.log(24.0) + math.log(psi) + 0.5 * math.log(K)
    else:
        log_c = math.log(32.0) + 0.5 * math.log(K * d * -math.log(beta_prime))
    log_base = log_c + math.log(gamma) + math.log(L0) - math.log(n) - 0.5 * math.log(rho)
    return F0 if k * log_base >= math.log(F0) else min(math.exp(k * log_base), F0)


def kl_spider_round_length_line7(F0: float, phi: float, kappa: float) -> int:
    """T_k = ⌈(F_0/Φ̂_k)^{(2−κ)/κ}⌉ (line 7; the ceiling is ours: the paper's T_k is real).  In logarithms; a T_k
    above :data:`MAX_RELEASES` (or a Φ̂_k that underflowed to 0) is refused (ValueError)."""
    k = _check_kappa(kappa)
    if not phi > 0.0:
        raise _schedule_error(f"Φ̂_k underflowed to {phi}")
    e = (2.0 - k) / k * (math.log(F0) - math.log(phi))
    if e > math.log(MAX_RELEASES):
        raise _schedule_error(f"round length T_k = exp({e:.4g}) exceeds {MAX_RELEASES}")
    return max(1, math.ceil(math.exp(e)))


def kl_spider_difference_sigma_line7(n: int, rho: float, K: int, T_k: int, phi: float, gamma: float,
                                     kappa: float, calibration: str = "exact") -> float:
    """σ_k (line 7): printed Φ̂_k^{1/κ}√(T_kK)/(γn√ρ); exact half of it (each of the T_k differences,
    sensitivity 2L_1s_k/n = Φ̂_k^{1/κ}/(2γn), costs ρ/(2KT_k)).  Scale-free: Φ̂_k^{1/κ}/γ first."""
    s = _root(phi, gamma, kappa) * (math.sqrt(T_k * K) / n / math.sqrt(rho))
    return s / 2.0 if check_choice(calibration, "calibration", CALIBRATIONS) == "exact" else s


def kl_spider_step_length_line11(phi: float, gamma: float, kappa: float, L1: float) -> float:
    """s_k = η_{k,t}‖∇_{k,t}‖ = Φ̂_k^{1/κ}/(4γL_1) (lines 11-12: the step is normalised; scale-free, no γL_1)."""
    return _root(phi, gamma, kappa) / 4.0 / L1


def kl_spider_stop_threshold_line10(phi: float, gamma: float, kappa: float) -> float:
    """7Φ̂_k^{1/κ}/(8γ) (line 10): a round continues only while ‖∇_{k,t}‖ is at least this."""
    return 0.875 * _root(phi, gamma, kappa)


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
        return self.L0 / self.n * 2.0

    def difference_sensitivity(self, k: int) -> float:
        """2L_1s_k/n (replace-one, differences clipped to L_1 s_k); k is 0-based."""
        return self.L1 * self.step[k] / self.n * 2.0

    def exact_rho(self) -> float:
        """Σ of the exact replace-one costs Δ²/(2σ²) of the K anchors and the most difference releases the
        loop guard allows (the worst case over transcripts: early stopping only drops releases)."""
        total = self.K * cached_gaussian_zcdp(self.anchor_sensitivity, self.sigma_hat)  # gaussian_zcdp, cached
        for k in range(self.K):
            total += self.releases_per_round[k] * cached_gaussian_zcdp(self.difference_sensitivity(k), self.sigma[k])
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
    log_cap = kappa * (math.log(gamma) + math.log(L0))          # in logarithms: (γL_0)^κ may under- or overflow
    if math.log(F0) > log_cap + 1e-12:
        raise ValueError(f"F0 must be at most (gamma*L0)^kappa = exp({log_cap:.6g}) (Algorithm 1), got {F0!r}")
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
    if K + sum(T) + (K if loop_guard == "printed" else 0) > MAX_RELEASES:
        raise _schedule_error(f"number of releases K + Σ_k T_k = {K + sum(T)} exceeds {MAX_RELEASES}")
    sigma = tuple(kl_spider_difference_sigma_line7(n, rho, K, t, p, gamma, kappa, calibration) for t, p in zip(T, phi))
    schedule = SpiderSchedule(
        calibration=calibration, loop_guard=loop_guard, n=n, d=d, rho=rho, beta=beta, F0=F0, gamma=gamma,
        kappa=kappa, L0=L0, L1=L1, c=c, K=K, beta_prime=beta_prime,
        psi=kl_spider_concentration(d, beta_prime, calibration),
        sigma_hat=kl_spider_anchor_sigma_line4(n, rho, K, L0, calibration), phi_floor=floor, phi=tuple(phi),
        T=tuple(T), sigma=sigma, step=tuple(kl_spider_step_length_line11(p, gamma, kappa, L1) for p in phi),
        threshold=tuple(kl_spider_stop_threshold_line10(p, gamma, kappa) for p in phi))
    scales = [("sigma_hat", schedule.sigma_hat), ("c", c)] + [
        (f"{name}_{k + 1}", v) for name, seq in (("sigma", sigma), ("step", schedule.step),
                                                 ("threshold", schedule.threshold)) for k, v in enumerate(seq)]
    for name, v in scales:
        if not v > 0.0 or (name != "c" and not math.isfinite(v)):
            raise _schedule_error(f"{name} = {v} is not a finite positive number")
    if not math.isfinite(schedule.exact_rho()):
        raise _schedule_error(f"exact cost {schedule.exact_rho()} is not finite")
    return schedule


def check_schedule_representable(schedule: SpiderSchedule, w0: np.ndarray) -> None:
    """Refuse (ValueError naming the public inputs), before the data is read and before any noise is drawn, a
    schedule under which a run could leave double precision (independent review D5): the per-sample sums of the
    clipped means (n·L_0 and n·L_1 s_k) must stay below 1e307, and so must the iterates' deterministic bound
    ‖w_0‖ + Σ_k R_k s_k (every step has length s_k, R_k = releases_per_round) and the running estimate's bound
    L_0 + R_k L_1 s_k + 40√d(σ̂ + R_k σ_k) (a Gaussian coordinate beyond 40 standard deviations has probability
    < 1e-340).  A run this admits computes finite numbers only: it never raises and returns a finite output."""
    s = schedule
    R = s.releases_per_round
    moves = float(row_norms(w0)) + sum(r * st for r, st in zip(R, s.step))      # (inf on overflow, no raise)
    worst = max(s.L0 + r * s.L1 * st + 40.0 * math.sqrt(s.d) * (s.sigma_hat + r * sg)
                for r, st, sg in zip(R, s.step, s.sigma))
    sums = max([s.n * s.L0] + [s.n * s.L1 * st for st in s.step])
    if not (moves < 1e307 and worst < 1e307 and sums < 1e307):
        raise _schedule_error(f"iterates (bound {moves:.3g}), running gradient estimates (bound {worst:.3g}) or "
                              f"per-sample sums (bound {sums:.3g}) could overflow double precision")


def lemma_8_printed_rho(schedule: SpiderSchedule) -> float:
    """The proof of Lemma 8's accounting of the schedule's noise: K anchors at (L_0/(nσ̂))² and T_k
    differences at (Φ̂_k^{1/κ}/(γnσ_k))² each (the printed per-release charge, sensitivity "L_0/n" and
    "Φ̂_k^{1/κ}/(γn)").  With the printed noise it is 2ρ — against Theorem 1's ρ and the exact 2.125ρ."""
    s = schedule
    total = s.K * printed_cost_unit_sensitivity(s.L0, s.n, s.sigma_hat)
    for k in range(s.K):
        r = _root(s.phi[k], s.gamma, s.kappa) / s.sigma[k] / s.n       # scale-free: the ratio of the scales first
        total += s.T[k] * (r * r)
    return total


def theorem_1_bound(schedule: SpiderSchedule) -> float:
    """Theorem 1's bound in its explicit form (proof of Theorem 1): F(w̄) − F* ≤ max{c^{−K}F_0, Φ_floor} = Φ̂_K
    with probability ≥ 1 − β (exact calibration's constants: 24ψ)."""
    return schedule.phi[-1]


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
