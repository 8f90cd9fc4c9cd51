"""The Theorem 8 lower bound of Menart, Ullah, Arora, Bassily & Guzmán (2023), arXiv:2311.13447 v2, as a sanity
check of the paper's catalogue algorithms: no ρ-zCDP algorithm may beat it at its claimed privacy.

Theorem 8 (App. C.3, κ ≥ 2): for every (ε, δ)-DP algorithm with 0 < ε ≤ ln 2 and 0 < δ ≤ (1 − e^{−ε})/16, some
dataset has E[F(A(S)) − F*] ≥ ¼(1/(nε))^κ.  On the pair (S, S') of
:class:`dpsco.oracles.muabg23.kl_instances.Theorem8Pair` (k differing records, r = k/n, minimisers ±a, a = r^{κ−1}/2)
the bound reads max(E_S, E_S')[excess] ≥ ¼ r^κ
(:func:`dpsco.reference.muabg23.theorems.theorem8_pair_lower_bound`).

**The check.**  Each algorithm runs R times on S and R times on S' at the budget ρ of :func:`group_budget`
(the largest ρ whose conversion ρ + 2√(ρ log(1/δ)) (Bun & Steinke 2016, Prop. 1.3) is ε = 1/k at
δ = (1 − e^{−ε})/16 · (1 − 10⁻⁶), just below Theorem 8's largest δ).  The excesses are truncated at B = r^κ (the excess of the wrong
minimiser, see below) and a one-sided Hoeffding **upper** confidence bound of each truncated mean,
UCB = mean + B√(log(1/α)/(2R)) (α = 1e-6), is passed to
:func:`dpsco.reference.muabg23.theorems.theorem8_violated`.  A violation (both UCBs below ¼ r^κ) is evidence
that the algorithm is not as private as it claims.

Why upper bounds (a deliberate departure from "pass lower confidence bounds"): the verdict "violated" must be
hard to reach for a private algorithm.  If the algorithm is private, the truncated mean of at least one
dataset, say μ_X, is ≥ ¼ r^κ (next paragraph), and the check fails only if UCB_X < ¼ r^κ ≤ μ_X, an event of
probability ≤ α by Hoeffding's inequality on [0, B].  So the false-failure probability is ≤ α = 1e-6 **whatever
the algorithm's excess**.  Lower confidence bounds would only control the opposite error (missing a bug) and
would fail a private algorithm whose mean lies within a confidence half-width of the bound.

Why truncating is sound (derived here; Theorem 8's statement is about the untruncated mean).  Let
g(w) = (1 + clip(w, −a, a)/a)/2 ∈ [0, 1].  F_S is decreasing on (−∞, a) with slope −r on (−a, a) and F_S' is its
mirror image, so excess_S(w) ≥ r^κ(1 − g(w)) and excess_S'(w) ≥ r^κ g(w) (2ar = r^κ), and both right-hand sides
are ≤ B = r^κ: truncation at B keeps them.  A ρ-zCDP algorithm (replace-one) is k²ρ-zCDP on groups of k records
(Bun & Steinke 2016, Prop. 1.9), hence (ε_g, δ_g)-indistinguishable on (S, S') for every ε_g ≥ k²ρ with
δ_g = exp(−(ε_g − k²ρ)²/(4k²ρ)) (Prop. 1.3).  For the [0, 1]-valued g, E_S[g] ≤ e^{ε_g}E_S'[g] + δ_g, so with
m = E_S[g]: max(E_S, E_S')[min(excess, B)] ≥ r^κ max(1 − m, (m − δ_g)e^{−ε_g}) ≥ r^κ(1 − δ_g)/(1 + e^{ε_g}).
:func:`zcdp_pair_lower_bound` maximises this over a grid of ε_g (every grid point is a valid bound); at the
budget used here (k²ρ = 0.0483) it is 0.296 r^κ > ¼ r^κ (recorded by every task as ``truncation_sound``; checked in
tests/muabg23/test_muabg23_lower_bound.py).  The argument needs only the zCDP claim, so it holds for the catalogue
algorithms whatever their utility assumptions; :func:`run_algorithm` reads every release's claim back and refuses
one that is not replace-one ρ'-zCDP with ρ' ≤ ρ.

**The instance and the algorithms' parameters** (κ = 2, τ = 2; derived):
f(w; +1) = a − w (w ≤ a), (w − a)² (w > a); f(w; −1) = (w + a)² (w ≤ −a), w + a (w > −a).
* L_0 = 1: |f'| ≤ 1 for |w| ≤ ½ + a; outside, every algorithm clips per-sample (sub)gradients to L_0
  (KL Spider: anchors to L_0 and differences to L_1 s_k; Algorithms 2/4: always; Algorithm 3: ``clip=True``),
  so the privacy claims hold on every input.
* L_1 = 2 is the curvature of the quadratic branches; the losses have kinks at ±a (f' jumps by 1), so they are
  **not** L_1-smooth for any L_1: Algorithm 1's and Algorithm 3's utility theorems do not apply (privacy does
  not use smoothness: KL Spider clips its differences, Algorithm 3 clips its gradients).
* f(·; x) is convex, so L̃_1-weakly convex for every L̃_1 > 0: Algorithms 2 and 4 take L̃_1 = ½ (projection
  radius L_0/(2L̃_1) = 1).
* (γ, κ) = (1, 2)-KL on R for r ≤ ½ (F − F* ≤ F'² on each branch: p u² + q u ≤ (2pu + q)²/(4p) ≤ (2pu + q)² for
  u = w − a > 0; r(a − w) ≤ 2ar ≤ r² on (−a, a); 2ar + pv + qv² ≤ (p + 2qv)² for v = −a − w > 0 when q ≥ ¼),
  with p = (1 + r)/2, q = (1 − r)/2.
* w_0 = 0 (the public midpoint) and F_0 = F(0) − F* = ra = r^κ/2 on both datasets.
* β = 0.1; Theorem 5 (``adaptive_gd_em``) runs Algorithm 3 at 2ρ/3 with its default ρ_EM = (2ρ/3)/2, total ρ.

What the algorithms do here (n = 200, k = 10, ρ = 4.83e-4, n√ρ = 4.40): Algorithm 1's floor is F_0, so its
schedule makes one round of one step of length √Φ̂/(4γL_1) < a/2 (it cannot come near either minimiser, with
or without noise); Algorithm 2's line 1 gives T = 1 outer call, so it coincides with one call of Algorithm 4
(same numbers under the same seed); Algorithm 3 takes a few steps with noise far above r.  All are therefore far
above the bound (mean excess 2-300 × ¼r^κ); the check is a sanity check of their privacy, not of their utility.

**When the check cannot see a bug.**  At R runs per dataset the check fails only if max(truncated mean) + h < ¼r^κ
(h = r^κ√(log(1/α)/(2R)) = 0.743·¼r^κ at the quick budget's R = 200).  :func:`noise_free_reason` runs the
algorithm with every draw removed (ε = ∞; deterministic) and, when even that copy passes, the task states the check
``uninformative`` (``suite_check``; the campaign then labels its pass): at R = 200 KL Spider (1.65·¼r^κ), Algorithms
2 and 4 (0.395·¼r^κ) and Theorem 5 (2·¼r^κ: it selects w_0); Algorithm 3's noise-free copy (excess 0) fails it.

Catalogue keys: ``kl_spider`` (Algorithm 1), ``proximal_point`` (Algorithm 2), ``adaptive_gd`` (Algorithm 3,
Theorem 3), ``adaptive_gd_em`` (Theorem 5), ``noisy_regularised_gd`` (Algorithm 4).  Suite tasks:
:func:`lower_bound_task`.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from dpsco.oracles.muabg23.kl_instances import Theorem8Pair
from dpsco.reference.muabg23 import theorems
from dpsco.reference.muabg23.algorithms_adaptive import adaptive_gd, adaptive_gd_em
from dpsco.reference.muabg23.algorithms_proximal import noisy_regularised_gd, proximal_point
from dpsco.reference.muabg23.algorithms_spider import kl_spider
from dpsco.reference.validation import check_positive, check_positive_int
from dpsco.verification.checks.power_figures import hoeffding_lower_power
from dpsco.verification.checks.stats import suite_check
from dpsco.verification.mutants.noise_scale import ScaledNoiseGenerator  # re-exported (planted bugs live in mutants)
from dpsco.verification.papers.registry import SuiteInputs

__all__ = ["ALGORITHMS", "ALPHA", "INSTANCE", "SIZES", "ScaledNoiseGenerator", "Theorem8Loss", "group_budget",
           "zcdp_pair_lower_bound", "algorithm_parameters", "run_algorithm", "pair_excesses", "theorem8_check",
           "noise_free_reason",
           "lower_bound_task", "run_lower_bound_task", "kl_spider_lower_bound", "proximal_point_lower_bound",
           "adaptive_gd_lower_bound", "adaptive_gd_em_lower_bound", "noisy_regularised_gd_lower_bound"]

#: the catalogue algorithms of the paper, by key
ALGORITHMS: tuple[str, ...] = ("kl_spider", "proximal_point", "adaptive_gd", "adaptive_gd_em",
                               "noisy_regularised_gd")
#: false-failure probability of one check (one-sided Hoeffding, see the module docstring)
ALPHA = 1e-6
#: the pair: n = 200 records, k = 10 differing (ε = 1/10), κ = 2 (r = 0.05, a = 0.025, ¼r^κ = 6.25e-4); n√ρ = 4.40,
#: so Algorithm 3 (which needs n√ρ > 2) runs at Theorem 5's split 2ρ/3 + ρ/3
INSTANCE: dict[str, float] = {"n": 200, "k": 10, "kappa": 2.0}
#: replicates per dataset and budget
SIZES: dict[str, dict[str, int]] = {"quick": {"reps": 200}, "standard": {"reps": 2000}, "paper": {"reps": 20000}}
_BETA = 0.1
_SOURCE = "Menart et al. (2023), arXiv:2311.13447 v2, Theorem 8 (App. C.3)"


class Theorem8Loss:
    """The per-sample losses of :class:`Theorem8Pair` (records (n, 1) of ±1) as the algorithms consume them:
    ``grads(w, X) -> (n, 1)`` (KL Spider, Algorithm 3) and ``subgradient(W, X) -> (R, n, 1)`` (Algorithms 2, 4);
    the right derivative at the kinks ±a, as :meth:`Theorem8Pair.derivative`:
    f'(w; +1) = −1 (w < a), τ(w − a)^{τ−1} (w ≥ a);  f'(w; −1) = −τ(−a − w)^{τ−1} (w < −a), 1 (w ≥ −a)."""

    def __init__(self, pair: Theorem8Pair) -> None:
        self.a, self.tau = pair.a, pair.tau

    def _derivative(self, w: np.ndarray, x: np.ndarray) -> np.ndarray:
        a, tau = self.a, self.tau
        plus = np.where(w < a, -1.0, tau * np.abs(w - a) ** (tau - 1.0))
        minus = np.where(w < -a, -tau * np.abs(w + a) ** (tau - 1.0), 1.0)
        return np.where(x > 0, plus, minus)

    def grads(self, w: Any, X: Any) -> np.ndarray:
        w = float(np.asarray(w, dtype=np.float64).reshape(-1)[0])
        return self._derivative(np.float64(w), np.asarray(X, dtype=np.float64)[:, 0])[:, None]

    def subgradient(self, W: Any, X: Any) -> np.ndarray:
        W = np.asarray(W, dtype=np.float64)
        return self._derivative(W[:, :1], np.asarray(X, dtype=np.float64)[None, :, 0])[:, :, None]


def group_budget(k: int) -> dict[str, float]:
    """The ρ at which every ρ-zCDP algorithm is (1/k, δ)-DP with (almost) Theorem 8's largest δ:
    δ = (1 − e^{−1/k})/16 · (1 − 10⁻⁶), ρ = (√(L + ε) − √L)², L = log(1/δ), ε = 1/k (the inverse of
    ε = ρ + 2√(ρL), Bun & Steinke 2016, Prop. 1.3), shrunk by a relative 10⁻⁹; the two relative margins keep
    the rounded conversion ε(ρ) ≤ 1/k and δ ≤ (1 − e^{−ε(ρ)})/16 (Theorem 8's condition at the ε actually met).

    k : int ≥ 2 (ε = 1/k ≤ ln 2).  Returns {"rho", "epsilon", "delta", "epsilon_of_rho", "rho_group" = k²ρ}.
    Raises ValueError if k < 2 or the result fails :func:`theorems.theorem8_conditions`."""
    k = check_positive_int(k, "k")
    if k < 2:
        raise ValueError(f"k must be >= 2 (epsilon = 1/k <= ln 2), got {k}")
    eps = 1.0 / k
    delta = (1.0 - math.exp(-eps)) / 16.0 * (1.0 - 1e-6)
    rho = theorems.zcdp_from_epsilon(eps, delta) * (1.0 - 1e-9)
    eps_rho = theorems.epsilon_from_zcdp(rho, delta)
    if not (eps_rho <= eps and theorems.theorem8_conditions(eps_rho, delta)):
        raise ValueError(f"k = {k}: the conversion does not meet Theorem 8's conditions")
    return {"rho": rho, "epsilon": eps, "delta": delta, "epsilon_of_rho": eps_rho, "rho_group": k * k * rho}


def zcdp_pair_lower_bound(r: float, kappa: float, rho_group: float, grid: int = 4000) -> float:
    """max over ε_g of r^κ(1 − δ_g)/(1 + e^{ε_g}), δ_g = exp(−(ε_g − ρ_g)²/(4ρ_g)): a lower bound on
    max(E_S, E_S')[min(excess, r^κ)] for every algorithm that is ρ_g-zCDP between S and S' (derivation in the
    module docstring; ε_g on a grid of ``grid`` points in (ρ_g, ρ_g + 20√ρ_g], each a valid bound).

    r ∈ (0, 1], kappa ≥ 2, rho_group > 0.  Returns a float in [0, r^κ/2)."""
    r, kappa, rg = check_positive(r, "r"), check_positive(kappa, "kappa"), check_positive(rho_group, "rho_group")
    eps = rg + np.linspace(0.0, 20.0 * math.sqrt(rg), check_positive_int(grid, "grid") + 1)[1:]
    delta = np.exp(-(eps - rg) ** 2 / (4.0 * rg))
    return float(r ** kappa * np.max((1.0 - delta) / (1.0 + np.exp(eps))))


def algorithm_parameters(pair: Theorem8Pair) -> dict[str, Any]:
    """The public parameters of the catalogue algorithms on ``pair`` (κ = 2 only; derivations in the module
    docstring): L0 = 1, L1 = 2, l1_tilde = ½, gamma = 1, kappa = 2, F0 = r^κ/2, w0 = 0, beta = 0.1.
    Raises ValueError unless κ = 2 and r ≤ ½ (where (1, 2)-KL is proven)."""
    if pair.kappa != 2.0 or pair.r > 0.5:
        raise ValueError(f"the parameters are derived for kappa = 2 and r <= 1/2, got {pair.kappa}, {pair.r}")
    return {"L0": 1.0, "L1": 2.0, "l1_tilde": 0.5, "gamma": 1.0, "kappa": 2.0, "F0": pair.r ** 2 / 2.0,
            "w0": np.zeros(1), "beta": _BETA}


def _check_claim(release: Any, rho: float) -> None:
    if release.claim.notion != "zCDP" or release.claim.neighbouring != "replace-one" or \
            release.claim.rho > rho * (1.0 + 1e-9):
        raise RuntimeError(f"{release.algorithm}: claims {release.claim.notion} rho = {release.claim.rho} "
                           f"({release.claim.neighbouring}), not the replace-one rho = {rho} the check assumes")


def run_algorithm(key: str, X: np.ndarray, pair: Theorem8Pair, rho: float, replicates: int,
                  rng: np.random.Generator, algorithm: Callable[..., Any] | None = None) -> np.ndarray:
    """R = ``replicates`` outputs (shape (R,)) of catalogue algorithm ``key`` (:data:`ALGORITHMS`) on records X
    (one dataset of ``pair``) at a total replace-one budget ρ, with :func:`algorithm_parameters` (vectorised
    ``replicates=`` for Algorithms 1, 2, 4; a loop for Algorithm 3 and Theorem 5).  Theorem 5 composes the
    filter's budget with ρ_EM = budget/2, so it is called with budget 2ρ/3 (claim 2ρ/3 + ρ/3 = ρ).  Every
    release's claim is read back: RuntimeError unless it is replace-one ρ'-zCDP with ρ' ≤ ρ.  ``algorithm``: a
    planted copy with the signature of the key's reference function, run instead of it (default: the reference).
    Raises ValueError for an unknown key."""
    P = algorithm_parameters(pair)
    loss = Theorem8Loss(pair)
    R = check_positive_int(replicates, "replicates")
    rho = check_positive(rho, "rho")
    if key in ("kl_spider", "proximal_point", "noisy_regularised_gd"):
        if key == "kl_spider":
            rel = (algorithm or kl_spider)(X, loss, rho, P["beta"], P["F0"], P["gamma"], P["kappa"], P["L0"], P["L1"], rng,
                            w0=P["w0"], replicates=R)
        elif key == "proximal_point":
            rel = (algorithm or proximal_point)(X, loss.subgradient, P["w0"], rho, P["beta"], P["L0"], P["l1_tilde"], P["F0"],
                                 P["gamma"], P["kappa"], rng, replicates=R)
        else:
            rel = (algorithm or noisy_regularised_gd)(X, loss.subgradient, P["w0"], rho, P["beta"], P["L0"], P["l1_tilde"], rng,
                                       replicates=R)
        _check_claim(rel, rho)
        return np.asarray(rel.output)[:, 0]
    if key in ("adaptive_gd", "adaptive_gd_em"):
        def grad(w: np.ndarray) -> np.ndarray:
            return loss.grads(w, X)

        out = np.empty(R)
        for i in range(R):
            if key == "adaptive_gd":
                rel = (algorithm or adaptive_gd)(grad, P["w0"], rho=rho, beta=P["beta"], L0=P["L0"], L1=P["L1"], rng=rng, clip=True)
            else:
                rel = (algorithm or adaptive_gd_em)(grad, P["w0"], rho=2.0 * rho / 3.0, beta=P["beta"], L0=P["L0"], L1=P["L1"],
                                     rng=rng, clip=True)
            _check_claim(rel, rho)
            out[i] = float(rel.output[0])
        return out
    raise ValueError(f"algorithm_key must be one of {ALGORITHMS}, got {key!r}")


def pair_excesses(key: str, pair: Theorem8Pair, rho: float, replicates: int,
                  rng: np.random.Generator, algorithm: Callable[..., Any] | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(excess on S, excess on S'), each of shape (R,): :func:`run_algorithm` on both datasets (the same
    generator, S first; ``algorithm`` as there) and :meth:`Theorem8Pair.excess`."""
    S, T = pair.datasets()
    out_S = run_algorithm(key, S, pair, rho, replicates, rng, algorithm)
    out_T = run_algorithm(key, T, pair, rho, replicates, rng, algorithm)
    return np.asarray(pair.excess(out_S, "S"), dtype=float), np.asarray(pair.excess(out_T, "S'"), dtype=float)


def theorem8_check(excess_S: Any, excess_S_prime: Any, n: int, k: int, kappa: float,
                   alpha: float = ALPHA) -> dict[str, Any]:
    """The Theorem 8 verdict from R Monte Carlo excesses per dataset (shapes (R,), (R',); values ≥ −1e-12).

    Truncates at B = r^κ, takes the one-sided Hoeffding upper confidence bound mean + B√(log(1/α)/(2R)) of each
    truncated mean and returns {"bound" = ¼r^κ, "truncation" = B, "mean_S", "mean_S_prime" (untruncated means),
    "truncated_mean_S", "truncated_mean_S_prime", "ucb_S", "ucb_S_prime", "lcb_S", "lcb_S_prime", "half_width_S",
    "half_width_S_prime", "violated" (:func:`theorems.theorem8_violated` on the UCBs), "p_value"}.
    ``p_value`` is that of the intersection-union test of "max(μ_S, μ_S') ≥ ¼r^κ": the larger of the two
    one-sided Hoeffding p-values exp(−2R(¼r^κ − mean)²/B²) (1 for a mean ≥ the bound).  False failure ≤ α for
    every ρ-zCDP algorithm at :func:`group_budget` (k) (module docstring).  Raises ValueError for empty or
    negative inputs or α ∉ (0, 1)."""
    n, k = check_positive_int(n, "n"), check_positive_int(k, "k")
    alpha = check_positive(alpha, "alpha")
    if alpha >= 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    bound = theorems.theorem8_pair_lower_bound(n, k, kappa)
    B = (k / n) ** kappa
    out: dict[str, Any] = {"bound": bound, "truncation": B, "alpha": alpha}
    ucb, pvals = [], []
    for tag, e in (("S", excess_S), ("S_prime", excess_S_prime)):
        e = np.asarray(e, dtype=np.float64).reshape(-1)
        if e.size == 0 or not np.all(np.isfinite(e)) or np.min(e) < -1e-12:
            raise ValueError(f"excess_{tag} must be a non-empty finite array of values >= 0")
        e = np.maximum(e, 0.0)
        t = np.minimum(e, B)
        h = B * math.sqrt(math.log(1.0 / alpha) / (2.0 * e.size))
        m = float(t.mean())
        out.update({f"mean_{tag}": float(e.mean()), f"truncated_mean_{tag}": m, f"ucb_{tag}": m + h,
                    f"lcb_{tag}": max(0.0, m - h), f"half_width_{tag}": h, f"replicates_{tag}": int(e.size)})
        ucb.append(m + h)
        pvals.append(1.0 if m >= bound else math.exp(-2.0 * e.size * (bound - m) ** 2 / B ** 2))
    out["violated"] = bool(theorems.theorem8_violated(ucb[0], ucb[1], n, k, kappa))
    out["p_value"] = float(max(pvals))
    out["ratio_max_mean_to_bound"] = max(out["mean_S"], out["mean_S_prime"]) / bound
    return out


def noise_free_reason(algorithm_key: str, pair: Theorem8Pair, rho: float, check: dict[str, Any],
                      algorithm: Callable[..., Any] | None = None) -> str | None:
    """Why the Theorem 8 check ``check`` (:func:`theorem8_check`'s result at ρ) cannot fail on ``algorithm_key``
    even with every Gaussian and Gumbel draw removed, or None: the noise-free copy (a
    :class:`ScaledNoiseGenerator` of scale 0 on a fixed bit generator, two replicates; deterministic) has
    truncated excesses e₀ on S and S', and the check flags a violation only if max(UCB) < ¼r^κ; when
    max(e₀) + h ≥ ¼r^κ (h the check's Hoeffding half-width) it passes the noise-free copy (ε = ∞) surely, so at
    these runs it cannot see a privacy bug of this algorithm at all.  Computed from the check's own numbers (its
    half-width, bound and truncation) and a deterministic run; uses no stream of the task."""
    silent = ScaledNoiseGenerator(np.random.PCG64(0), 0.0)
    eS, eT = pair_excesses(algorithm_key, pair, rho, 2, silent, algorithm)
    B, bound = float(check["truncation"]), float(check["bound"])
    e0 = max(float(np.max(np.minimum(eS, B))), float(np.max(np.minimum(eT, B))))
    h = max(float(check["half_width_S"]), float(check["half_width_S_prime"]))
    if e0 + h < bound:
        return None
    return (f"cannot fail on {algorithm_key} with its noise removed (ε = ∞): the noise-free copy's truncated "
            f"excess max(e₀) = {e0 / bound:.3g}·¼r^κ plus the Hoeffding half-width h = {h / bound:.3g}·¼r^κ at "
            f"R = {check['replicates_S']} runs is ≥ ¼r^κ = {bound:.3g}")


def run_lower_bound_task(algorithm_key: str, inp: SuiteInputs,
                         algorithm: Callable[..., Any] | None = None) -> dict[str, Any]:
    """The Theorem 8 check on catalogue algorithm ``algorithm_key`` (:data:`ALGORITHMS`) at :data:`INSTANCE` with
    :data:`SIZES` [budget]["reps"] replicates per dataset, as a suite task's result ``{"record", "checks",
    "audits"}``; the check is named ``"<key>_theorem8"``.  ``algorithm``: a planted copy run instead of the
    reference (:func:`run_algorithm`).  The check states ``uninformative`` (:func:`noise_free_reason`) when it
    cannot fail even on the algorithm with its noise removed.  Raises ValueError for an unknown key."""
    if algorithm_key not in ALGORITHMS:
        raise ValueError(f"algorithm_key must be one of {ALGORITHMS}, got {algorithm_key!r}")
    R = SIZES[inp.budget]["reps"]
    n, k, kappa = int(INSTANCE["n"]), int(INSTANCE["k"]), float(INSTANCE["kappa"])
    pair = Theorem8Pair(n=n, k=k, kappa=kappa)
    budget = group_budget(k)
    zcdp_bound = zcdp_pair_lower_bound(pair.r, kappa, budget["rho_group"])
    rng = np.random.default_rng(inp.seed.spawn(1)[0])
    eS, eT = pair_excesses(algorithm_key, pair, budget["rho"], R, rng, algorithm)
    res = theorem8_check(eS, eT, n, k, kappa)
    why = noise_free_reason(algorithm_key, pair, budget["rho"], res, algorithm)
    P = algorithm_parameters(pair)
    record = {"algorithm": algorithm_key, "n": n, "k": k, "kappa": kappa, "r": pair.r, "a": pair.a,
              "rho": budget["rho"], "epsilon": budget["epsilon_of_rho"], "delta": budget["delta"],
              "rho_group": budget["rho_group"], "zcdp_truncated_bound": zcdp_bound,
              "truncation_sound": bool(zcdp_bound >= theorems.theorem8_pair_lower_bound(n, k, kappa)),
              "parameters": {key: (v.tolist() if isinstance(v, np.ndarray) else v) for key, v in P.items()},
              **{key: v for key, v in res.items() if key != "p_value"}}
    power = hoeffding_lower_power(res["bound"], res["truncation"], min(res["replicates_S"], res["replicates_S_prime"]),
                                  2, alpha=ALPHA)
    if why is None and not power["reaches_claim"]:  # issue 28: a pass without the power to see a 2× violation
        why = (f"cannot detect a mean of half the bound: the smallest shortfall below ¼r^κ it detects w.p. ≥ 1 − 1e-6 "
               f"is {power['minimum_detectable_shortfall'] / res['bound']:.3g}·¼r^κ at R = {R} runs per dataset "
               "(Hoeffding at the sure-fail level 1e-6), above ½; it still refutes the noise-free copy (ε = ∞)")
    check = suite_check(
        f"{algorithm_key}_theorem8",
        f"max(E_S, E_S')[min(F(w) - F*, r^kappa)] >= 1/4 r^kappa on the Theorem 8 pair (n = {n}, k = {k}, "
        f"kappa = {kappa:g}) at rho = {budget['rho']:.6g} (=> (1/k, delta)-DP, delta = {budget['delta']:.4g}); "
        f"{_SOURCE}; one-sided Hoeffding, intersection-union test",
        res["p_value"], estimate=max(res["truncated_mean_S"], res["truncated_mean_S_prime"]),
        bound=res["bound"], method="hoeffding", violated=res["violated"], alpha=ALPHA, uninformative=why,
        power=power)
    return {"record": record, "checks": {f"{algorithm_key}_theorem8": check}, "audits": {}}


def kl_spider_lower_bound(inp: SuiteInputs) -> dict[str, Any]:
    """Suite task: the Theorem 8 check of Algorithm 1 (KL Spider)."""
    return run_lower_bound_task("kl_spider", inp)


def proximal_point_lower_bound(inp: SuiteInputs) -> dict[str, Any]:
    """Suite task: the Theorem 8 check of Algorithm 2 (private proximal point)."""
    return run_lower_bound_task("proximal_point", inp)


def adaptive_gd_lower_bound(inp: SuiteInputs) -> dict[str, Any]:
    """Suite task: the Theorem 8 check of Algorithm 3 (adaptive noisy GD)."""
    return run_lower_bound_task("adaptive_gd", inp)


def adaptive_gd_em_lower_bound(inp: SuiteInputs) -> dict[str, Any]:
    """Suite task: the Theorem 8 check of the Theorem 5 variant (exponential-mechanism output)."""
    return run_lower_bound_task("adaptive_gd_em", inp)


def noisy_regularised_gd_lower_bound(inp: SuiteInputs) -> dict[str, Any]:
    """Suite task: the Theorem 8 check of Algorithm 4 (projected noisy GD, regularised)."""
    return run_lower_bound_task("noisy_regularised_gd", inp)


_TASKS: dict[str, Callable[[SuiteInputs], dict[str, Any]]] = {
    "kl_spider": kl_spider_lower_bound, "proximal_point": proximal_point_lower_bound,
    "adaptive_gd": adaptive_gd_lower_bound, "adaptive_gd_em": adaptive_gd_em_lower_bound,
    "noisy_regularised_gd": noisy_regularised_gd_lower_bound}


def lower_bound_task(algorithm_key: str) -> Callable[[SuiteInputs], dict[str, Any]]:
    """The module-level suite task (picklable: it travels to process-pool and Dask workers) running the Theorem 8
    check on catalogue algorithm ``algorithm_key`` (:func:`run_lower_bound_task`).  Raises ValueError for an
    unknown key."""
    if algorithm_key not in ALGORITHMS:
        raise ValueError(f"algorithm_key must be one of {ALGORITHMS}, got {algorithm_key!r}")
    return _TASKS[algorithm_key]
