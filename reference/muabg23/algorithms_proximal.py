"""Menart, Ullah, Arora, Bassily & Guzmán (2023), arXiv:2311.13447 v2: Algorithm 2 (the private proximal point
method for κ ≥ 2, Section 4, Theorem 2) and Algorithm 4 (noisy projected gradient descent on the regularised,
strongly convex objective, Appendix E, Theorem 9).

The paper's algorithm boxes are not in our text of the paper; both boxes are **reconstructed** from the proofs
(Theorem 2 / App. C.2 for Algorithm 2, Theorem 9 / App. E for Algorithm 4):

Algorithm 4 (centre / first iterate w_c, public):
    w_1 = w_c
    for t = 1..T−1:  ĝ_t = (1/n) Σ_i clip_{L_0}(∇f(w_t; x_i)) + ξ_t,   ξ_t ~ N(0, σ² I_d)
                     w_{t+1} = Π_{B(w_c, L_0/(2 L̃_1))}( w_t − η_t (ĝ_t + 2 L̃_1 (w_t − w_c)) ),  η_t = 1/(L̃_1 t)
    return  w̄ = 2/(T(T+1)) Σ_{t=1..T} t·w_t
on  F̃(w) = F(w; S) + L̃_1 ‖w − w_c‖² (L̃_1-strongly convex when f is L̃_1-weakly convex).  The printed update
reads "∇F̃(w; S)" — a typo for ∇F̃(w_t; S).  The per-sample clip to L_0 is ours: a no-op when f(·; x) is
L_0-Lipschitz for every x (the paper's assumption) and it makes the privacy claim unconditional, since the
projection balls move with the (random) centres.

Algorithm 2 (κ ≥ 2):  T = ⌈(1 + 32 F_0^{(κ−2)/κ} γ² L̃_1)(log F_0 + κ log(n√ρ/(γ L_0 √d)))⌉ (line 1, clamped
to ≥ 1; γ, κ used but missing from the box's inputs), β' = β/T (line 2); for t = 1..T:
w_t = Algorithm 4 on F(·) + L̃_1‖· − w_{t−1}‖², centre w_{t−1}, budget ρ/T, failure probability β' (lines 4–5);
return w_T (line 7).

Privacy (replace-one, n public).  Every noisy step releases a mean of per-sample vectors of norm ≤ L_0 plus
N(0, σ² I): ℓ2-sensitivity Δ = 2L_0/n, exactly Δ²/(2σ²)-zCDP (Bun & Steinke 2016, Prop. 1.6), composed over
the T−1 steps (Lemma 2.3 ibid.) and over the outer calls of Algorithm 2.  Theorem 9's printed noise
σ² = 4L_0²T/(n²ρ) therefore costs (T−1)ρ/(2T) < ρ/2: conservative by a factor just over 2.  The default
calibration ("exact") takes σ² = 2L_0²(T−1)/(n²ρ), exactly ρ; ``calibration="printed"`` keeps the printed σ and
its claim states the exact ρ.  The schedule (T, η_t, σ, radius, outer T) is a function of public inputs only.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable

import numpy as np

from dpsco.reference.clipping import enforce_norm_bound, row_norms
from dpsco.reference.projections import project_ball
from dpsco.reference.muabg23 import theorems
from dpsco.reference.muabg23.model import rows_within_bound
from dpsco.reference.muabg23.ledger import PrivacyLedger, gaussian_zcdp, replace_one_sensitivity, zcdp_epsilon
from dpsco.reference.privacy import PrivacyClaim, Release
from dpsco.reference.validation import (check_bool, check_choice, check_delta, check_positive, check_positive_int,
                                        check_rng)
from dpsco.reference.white_box import NoisyGradientTrace

__all__ = ["PerSampleSubgradient", "CALIBRATIONS", "theorem_9_steps", "theorem_9_step_size", "theorem_9_sigma",
           "theorem_9_sigma_printed", "theorem_9_sigma_exact", "theorem_9_radius", "algorithm_4_rho",
           "algorithm_2_outer_steps", "theorem_2_bound", "theorem_9_bound", "noisy_regularised_gd",
           "proximal_point", "clipped_subgradients", "check_representable", "MAX_STEPS"]

#: (W: (R, d) iterates, X: (n, d) records) -> (R, n, d): a (Clarke) subgradient of f(·; x_i) at each iterate
PerSampleSubgradient = Callable[[np.ndarray, np.ndarray], np.ndarray]
CALIBRATIONS: tuple[str, ...] = ("exact", "printed")
#: the most noisy steps (n gradients each) a schedule may prescribe; more is refused up front, naming the public
#: inputs (independent review D5: ρ = 1e300 prescribed ~1e303 steps, γ = 1e300 overflowed)
MAX_STEPS = 10 ** 8
_SOURCE = "Menart et al. (2023), arXiv:2311.13447 v2"


# ---- Theorem 9's parameters (Algorithm 4) ---------------------------------------------------------------

def theorem_9_steps(n: int, d: int, rho: float, beta: float) -> int:
    """T = ⌈n² ρ log²(2/β) / d⌉, at least 2 (one noisy step).  Theorem 9 (reconstructed: the printed fraction is
    garbled in our text; this is the choice that makes the three error terms of its proof equal eq. (17)).

    Raises ValueError / TypeError naming ``n``, ``d``, ``rho`` or ``beta`` (β ∈ (0, 1))."""
    n, d = check_positive_int(n, "n"), check_positive_int(d, "d")
    rho, beta = check_positive(rho, "rho"), _check_beta(beta)
    return max(2, theorems.algorithm4_T(n, d, rho, beta))


def theorem_9_step_size(t: int, l1_tilde: float) -> float:
    """η_t = 1/(L̃_1 t), t ≥ 1 (Theorem 9).  Raises ValueError / TypeError naming ``t`` or ``l1_tilde``."""
    return 1.0 / check_positive(l1_tilde, "l1_tilde") / check_positive_int(t, "t")


def theorem_9_sigma_printed(n: int, rho: float, T: int, L0: float) -> float:
    """σ = √(4 L_0² T / (n² ρ)) as printed in Theorem 9; exactly (T−1)ρ/(2T)-zCDP (see the module docstring)."""
    n, T = check_positive_int(n, "n"), check_positive_int(T, "T")
    # L_0 times a dimensionless factor (scale-free: L_0² overflowed for L_0 ≥ 1.4e154 and lost precision below 1e-154)
    return check_positive(L0, "L0") * (2.0 * math.sqrt(T) / math.sqrt(check_positive(rho, "rho")) / n)


def theorem_9_sigma_exact(n: int, rho: float, T: int, L0: float) -> float:
    """σ = √(2 L_0² (T−1) / (n² ρ)): the T−1 steps of sensitivity 2L_0/n cost (T−1)(2L_0/n)²/(2σ²) = ρ exactly.
    Raises ValueError naming ``T`` if T < 2 (no noisy step)."""
    n, T = check_positive_int(n, "n"), check_positive_int(T, "T")
    if T < 2:
        raise ValueError(f"T must be >= 2 (Algorithm 4 takes T-1 noisy steps), got {T}")
    # L_0 times a dimensionless factor (scale-free, as theorem_9_sigma_printed)
    return check_positive(L0, "L0") * (math.sqrt(2.0 * (T - 1)) / math.sqrt(check_positive(rho, "rho")) / n)


def theorem_9_sigma(n: int, rho: float, T: int, L0: float, calibration: str = "exact") -> float:
    """σ of Algorithm 4 under ``calibration`` ("exact": :func:`theorem_9_sigma_exact`; "printed":
    :func:`theorem_9_sigma_printed`).  Raises ValueError naming ``calibration``."""
    cal = check_choice(calibration, "calibration", CALIBRATIONS)
    return theorem_9_sigma_exact(n, rho, T, L0) if cal == "exact" else theorem_9_sigma_printed(n, rho, T, L0)


def theorem_9_radius(L0: float, l1_tilde: float) -> float:
    """L_0/(2L̃_1): the projection radius around the centre (App. E: 2L̃_1‖w* − w_c‖ = ‖∇F(w*)‖ ≤ L_0)."""
    return check_positive(L0, "L0") / 2.0 / check_positive(l1_tilde, "l1_tilde")


def algorithm_4_rho(n: int, L0: float, sigma: float, noisy_steps: int) -> float:
    """Exact zCDP ρ = k (2L_0/n)²/(2σ²) of k noisy full-batch steps (replace-one; Bun & Steinke 2016,
    Prop. 1.6 and Lemma 2.3).  Raises ValueError / TypeError naming the parameter."""
    k = check_positive_int(noisy_steps, "noisy_steps")
    return k * gaussian_zcdp(replace_one_sensitivity(check_positive(L0, "L0"), check_positive_int(n, "n")), sigma)


def theorem_9_bound(n: int, d: int, rho: float, beta: float, L0: float, l1_tilde: float,
                    constant: float = 1.0) -> float:
    """c · L_0² d log(n² log²(2/β)/(dβ)) / (L̃_1 n² ρ): eq. (17) of Theorem 9 with its unstated constant c
    (``constant``), i.e. c × :func:`dpsco.reference.muabg23.theorems.theorem9_bound`.  Raises ValueError /
    TypeError naming the parameter."""
    n, d = check_positive_int(n, "n"), check_positive_int(d, "d")
    rho, beta = check_positive(rho, "rho"), _check_beta(beta)
    return check_positive(constant, "constant") * theorems.theorem9_bound(
        check_positive(L0, "L0"), check_positive(l1_tilde, "l1_tilde"), n, d, rho, beta)


# ---- Algorithm 2's schedule and Theorem 2 ---------------------------------------------------------------

def algorithm_2_outer_steps(n: int, d: int, rho: float, F0: float, gamma: float, kappa: float, L0: float,
                            l1_tilde: float) -> int:
    """T = ⌈(1 + 32 F_0^{(κ−2)/κ} γ² L̃_1)(log F_0 + κ log(n√ρ/(γ L_0 √d)))⌉, clamped to ≥ 1 (Algorithm 2,
    line 1, reconstructed; the box omits γ, κ from its inputs).  Public inputs only: F_0, γ must be family-level
    bounds, never computed from the data.  Raises ValueError (κ < 2, or a bad value) naming the parameter."""
    n, d = check_positive_int(n, "n"), check_positive_int(d, "d")
    rho, F0, gamma = check_positive(rho, "rho"), check_positive(F0, "F0"), check_positive(gamma, "gamma")
    kappa, L0, lt = check_positive(kappa, "kappa"), check_positive(L0, "L0"), check_positive(l1_tilde, "l1_tilde")
    if kappa < 2.0:
        raise ValueError(f"kappa must be >= 2 for Algorithm 2 (Section 4), got {kappa}")
    # scale-free (independent review D5: gamma ** 2 raised OverflowError at γ = 1e300): sums of logarithms, and
    # (γF_0^{(κ−2)/(2κ)})² = F_0^{(κ−2)/κ}γ² formed by a product that may reach inf but never raises
    logs = math.log(F0) + kappa * (math.log(n) + 0.5 * math.log(rho) - math.log(gamma) - math.log(L0)
                                   - 0.5 * math.log(d))
    if logs <= 0.0:
        return 1
    y = gamma * F0 ** ((kappa - 2.0) / (2.0 * kappa))
    T = (1.0 + 32.0 * (y * y) * lt) * logs
    if not T <= MAX_STEPS:
        raise ValueError(f"F0, gamma, kappa, l1_tilde, rho: Algorithm 2's T = {T:.3g} outer steps exceeds {MAX_STEPS} "
                         "at these public inputs; refused before the data is read")
    return max(1, math.ceil(T))


def theorem_2_bound(n: int, d: int, rho: float, beta: float, gamma: float, kappa: float, L0: float, T: int,
                    constant: float = 1.0) -> float:
    """(a γ L_0 √(T d log(n² log²(1/β')/(dβ'))) / (n√ρ))^κ, β' = β/T: Theorem 2's excess-risk bound with its
    universal constant a (``constant``; the paper leaves it unstated), i.e. a^κ ×
    :func:`dpsco.reference.muabg23.theorems.theorem2_bound`.  Raises ValueError naming the parameter."""
    n, d, T = check_positive_int(n, "n"), check_positive_int(d, "d"), check_positive_int(T, "T")
    rho, beta = check_positive(rho, "rho"), _check_beta(beta)
    kappa = check_positive(kappa, "kappa")
    return check_positive(constant, "constant") ** kappa * theorems.theorem2_bound(
        check_positive(gamma, "gamma"), kappa, check_positive(L0, "L0"), n, d, rho, beta, T)


# ---- the algorithms --------------------------------------------------------------------------------------

def check_representable(n: int, d: int, L0: float, l1_tilde: float, sigma: float, T: int, calls: int,
                        w0: np.ndarray) -> None:
    """Refuse (ValueError naming L0, l1_tilde, rho), before the data is read and before any noise is drawn,
    public inputs at which ``calls`` consecutive runs of Algorithm 4 (T − 1 noisy steps each, noise σ) from ``w0``
    could leave double precision (independent review D5): σ must be finite and > 0; the per-sample sums of the
    clipped means, n·L_0, below 1e307; the iterates' bound B = ‖w_0‖ + (calls + 2)·L_0/(2L̃_1) (each call's
    projection ball) plus one step's move (2L_0 + 40√d σ)/L̃_1 (η_1 = 1/L̃_1; a Gaussian coordinate beyond 40
    standard deviations has probability < 1e-340) below 1e307, and B·T(T+1)/2 (the weighted sum Σ t·w_t) too.
    A run this admits computes finite numbers only: it never raises and returns a finite output."""
    names = "L0, l1_tilde, rho"
    if calls * (T - 1) > MAX_STEPS:
        raise ValueError(f"rho, steps, outer_steps, inner_steps: {calls} x {T - 1} noisy steps exceed {MAX_STEPS}; "
                         "refused before the data is read")
    if not (math.isfinite(sigma) and sigma > 0.0):
        raise ValueError(f"{names}: the noise sigma = {sigma} of Algorithm 4 is not a finite positive number at "
                         "these public inputs; refused before any noise is drawn")
    B = (float(np.max(row_norms(np.atleast_2d(w0)))) + (calls + 2) * theorem_9_radius(L0, l1_tilde)
         + (2.0 * L0 + 40.0 * math.sqrt(d) * sigma) / l1_tilde)
    if not (n * L0 < 1e307 and B < 1e307 and B * (T * (T + 1) / 2.0) < 1e307):
        raise ValueError(f"{names}: Algorithm 4's iterates (bound {B:.3g}), their weighted sum or the per-sample "
                         f"sums (n*L0 = {n * L0:.3g}) could overflow double precision at these public inputs; "
                         "refused before any noise is drawn")


def clipped_subgradients(G: np.ndarray, bound: float) -> tuple[np.ndarray, int]:
    """Every vector along the last axis of G (per-sample subgradients, e.g. (R, n, d)) clipped to norm ≤ ``bound``
    by the last fail-safe ``dpsco.reference.clipping.enforce_norm_bound`` (the reference ``clip_rows`` of the
    rows above the bound: ‖out‖ ≤ bound in floating point, rows that overflowed to ±inf to their limit
    direction, NaN rows to 0; G itself when every row is bounded).  Returns (clipped, number of rows changed)."""
    with np.errstate(all="ignore"):
        G = np.asarray(G, dtype=np.float64)
        if rows_within_bound(G, bound):              # nothing to clip: a one-pass test for the hot loop
            return G, 0
        out = enforce_norm_bound(G, bound)
        return out, int(np.count_nonzero(np.any(out != G, axis=-1)))


def _check_beta(beta: Any) -> float:
    b = check_delta(beta, "beta")
    if b <= 0.0:
        raise ValueError(f"beta must be in (0, 1), got {beta!r}")
    return b


def _check_subgradient(subgradient: Any) -> PerSampleSubgradient:
    if not callable(subgradient):
        raise TypeError(f"subgradient must be callable (W: (R, d), X: (n, d)) -> (R, n, d), got "
                        f"{type(subgradient).__name__}")
    return subgradient


def _as_data(X: Any) -> np.ndarray:
    """X as a float (n, d) array; only its (public) shape is checked here (its entries by :func:`_check_data`,
    after the public inputs)."""
    arr = np.asarray(X, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"X must be an (n, d) array with n, d >= 1, got shape {arr.shape}")
    return arr


def _check_data(X: np.ndarray) -> None:
    """The data check, after every check of the public inputs and before any noise is drawn."""
    if not np.all(np.isfinite(X)):
        raise ValueError("X must be finite")


def _as_point(w: Any, d: int, R: int | None, name: str) -> np.ndarray:
    arr = np.asarray(w, dtype=np.float64)
    if arr.shape == (d,):
        arr = np.tile(arr, (1 if R is None else R, 1))
    elif R is None or arr.shape != (R, d):
        raise ValueError(f"{name} must have shape ({d},){'' if R is None else f' or ({R}, {d})'}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    return arr.copy()


#: noise values drawn per ``rng.normal`` call of Algorithm 4's loop (blocks of steps: the same values, in the same
#: order, as one (R, d) draw per step, since a Generator fills an array element after element from its stream)
_NOISE_BLOCK = 1 << 16


@functools.lru_cache(maxsize=64)
def _step_sizes(T: int, lt: float) -> tuple[float, ...]:
    """(η_1, ..., η_{T−1}) of :func:`theorem_9_step_size`: a public schedule, computed once per (T, L̃_1)."""
    return tuple(theorem_9_step_size(t, lt) for t in range(1, T))


def _run_algorithm_4(X: np.ndarray, subgradient: PerSampleSubgradient, centre: np.ndarray, L0: float, lt: float,
                     T: int, sigma: float, rng: np.random.Generator,
                     trace: list[tuple[np.ndarray, np.ndarray]] | None) -> tuple[np.ndarray, int]:
    """R runs of Algorithm 4 from ``centre`` (R, d): T − 1 noisy steps.  Returns (w̄: (R, d), number of clipped
    per-sample subgradients).  (Its former ``noisy_steps`` argument, "a mutant may pass more", is gone: the
    planted bug ``mutants.muabg23_proximal.noisy_gd_one_step_more`` has its own loop; independent review D3.)

    Speed (same numbers as one step at a time): the noise ξ_t of up to :data:`_NOISE_BLOCK` values is drawn per
    ``rng.normal`` call, in step order; η_t comes from the cached public schedule; the projection is skipped
    when every row of the step is inside the ball by the one-pass test :func:`rows_within_bound` (``project_ball``
    returns inside rows unchanged bit for bit, so skipping it there changes nothing)."""
    R, d = centre.shape
    radius = theorem_9_radius(L0, lt)
    etas = _step_sizes(T, lt)
    w = centre.copy()                                    # w_1 = w_c
    weighted = w.copy()                                  # Σ_t t·w_t, t = 1
    clipped = 0
    block = max(1, _NOISE_BLOCK // max(1, R * d))
    xi = np.empty((0, R, d))
    for t in range(1, T):                                # Algorithm 4, loop t = 1..T−1
        with np.errstate(all="ignore"):                  # an oracle may overflow at an extreme record: clipped below
            G = np.asarray(subgradient(w, X), dtype=np.float64)
            if G.shape != (R, X.shape[0], d):
                raise ValueError(f"subgradient(W, X) must return an (R, n, d) = {(R, X.shape[0], d)} array, got "
                                 f"{G.shape}")
            G, c = (G, 0) if rows_within_bound(G, L0) else clipped_subgradients(G, L0)
        clipped += c
        j = (t - 1) % block
        if j == 0:                                       # ξ_t, ..., ξ_{t+block−1}: the stream's next values
            xi = rng.normal(0.0, sigma, size=(min(block, T - t), R, d))
        noisy = G.mean(axis=1) + xi[j]                   # ĝ_t: mean clipped subgradient + ξ_t
        if trace is not None:
            trace.append((w.copy(), noisy))
        # ∇F̃(w_t) = ĝ_t + 2L̃_1(w_t − w_c); L̃_1(w_t − w_c) first (‖·‖ ≤ L_0/2 inside the ball; 2L̃_1 may overflow)
        step = w - etas[t - 1] * (noisy + 2.0 * (lt * (w - centre)))
        with np.errstate(over="ignore", invalid="ignore"):
            inside = rows_within_bound(step - centre, radius)
        w = step if inside else project_ball(step, radius, centre)  # Π onto B(w_c, L_0/(2L̃_1)): the core projection
        weighted += (t + 1) * w
    return weighted * (2.0 / (T * (T + 1))), clipped    # w̄ = 2/(T(T+1)) Σ t·w_t


def _claim(rho_exact: float, delta: float, sigma: float, n: int, L0: float, steps: int, source: str,
           assumptions: dict[str, Any]) -> PrivacyClaim:
    from dp_accounting import dp_event

    # dp_accounting's REPLACE_ONE Gaussian has sensitivity 2 in noise-multiplier units: the multiplier of a step
    # of sensitivity 2L_0/n and noise σ is σn/L_0 (μ_step = 2L_0/(nσ), as claimed_step of the white-box audit reads)
    epsilon = zcdp_epsilon(rho_exact, delta)
    if not math.isfinite(epsilon):
        raise ValueError(f"rho: the claim's epsilon = rho + 2 sqrt(rho log(1/delta)) overflows at rho = {rho_exact:.6g}; "
                         "refused before any noise is drawn")
    event = dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(sigma / L0 * n), steps)
    return PrivacyClaim(notion="zCDP", epsilon=epsilon, delta=delta,
                        neighbouring="replace-one", source=source, assumptions=assumptions, rho=rho_exact,
                        mu=math.sqrt(2.0) * math.sqrt(rho_exact), event=event, event_neighbouring="REPLACE_ONE")


def _trace(X: np.ndarray, subgradient: PerSampleSubgradient, steps: list[tuple[np.ndarray, np.ndarray]], n: int,
           sigma: float, L0: float, eta: float, name: str) -> NoisyGradientTrace:
    def record_gradient(W: np.ndarray, x: np.ndarray, y: float) -> np.ndarray:
        with np.errstate(all="ignore"):
            G = np.asarray(subgradient(np.atleast_2d(W), np.atleast_2d(x)), dtype=np.float64)
        return clipped_subgradients(G, L0)[0][:, 0, :]

    iterates = np.stack([s[0] for s in steps], axis=1)
    last = steps[-1][0]  # the trace's step function is white_box's; w_{T} itself is not needed by the audit
    iterates = np.concatenate([iterates, last[:, None, :]], axis=1)
    return NoisyGradientTrace(iterates=iterates, noisy_gradients=np.stack([s[1] for s in steps], axis=1),
                              record_gradient=record_gradient, n=n, m=n, T=len(steps), sigma=sigma, clip_norm=L0,
                              eta=eta, sampling="full-batch", algorithm=name)


def noisy_regularised_gd(X: Any, subgradient: PerSampleSubgradient, w_c: Any, rho: float, beta: float, L0: float,
                         l1_tilde: float, rng: np.random.Generator, *, delta: float = 1e-6,
                         calibration: str = "exact", steps: int | None = None, replicates: int | None = None,
                         white_box: bool = False) -> Release:
    """Algorithm 4 of Menart et al. (2023), arXiv:2311.13447 v2 (App. E, reconstructed): noisy projected
    gradient descent on F̃(w) = F(w; S) + L̃_1‖w − w_c‖², ρ-zCDP under replace-one (Theorem 9).

    Parameters
    ----------
    X : (n, d) records (private).  subgradient : :data:`PerSampleSubgradient`; clipped to norm ``L0``.
    w_c : (d,) public centre and first iterate (or (R, d) with ``replicates=R``, one centre per run).
    rho : zCDP budget > 0.  beta : failure probability in (0, 1) (sets T).  L0 : > 0, Lipschitz bound.
    l1_tilde : > 0, weak-convexity parameter L̃_1 (regularisation weight).  rng : numpy Generator.
    delta : in (0, 1), the δ at which the claim's ε is stated.  calibration : "exact" (default, σ² =
    2L_0²(T−1)/(n²ρ)) or "printed" (σ² = 4L_0²T/(n²ρ); claim = its exact ρ = (T−1)ρ/(2T)).
    steps : T (default :func:`theorem_9_steps`; a public override, σ recalibrated).  replicates : R runs.
    white_box : attach the :class:`NoisyGradientTrace` of the T−1 noisy gradients.

    Returns a :class:`Release` with output (d,) (or (R, d)), gradient_evaluations = (T−1)·n per run.

    Raises ValueError / TypeError naming the parameter, including public inputs at which the run could leave double
    precision or that prescribe more than :data:`MAX_STEPS` steps (:func:`check_representable`); all before the
    data is read (X's entries are checked after the public inputs) and before any noise is drawn.  After these
    checks the run never raises and its output is finite.
    """
    X = _as_data(X)
    n, d = X.shape
    subgradient = _check_subgradient(subgradient)
    rho, beta, L0 = check_positive(rho, "rho"), _check_beta(beta), check_positive(L0, "L0")
    lt, rng, cal = check_positive(l1_tilde, "l1_tilde"), check_rng(rng), check_choice(calibration, "calibration",
                                                                                       CALIBRATIONS)
    delta = check_delta(delta)
    if delta <= 0.0:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    R = None if replicates is None else check_positive_int(replicates, "replicates")
    wb = check_bool(white_box, "white_box")
    T = theorem_9_steps(n, d, rho, beta) if steps is None else check_positive_int(steps, "steps")
    if T < 2:
        raise ValueError(f"steps must be >= 2 (Algorithm 4 takes T-1 noisy steps), got {T}")
    sigma = theorem_9_sigma(n, rho, T, L0, cal)
    centre = _as_point(w_c, d, R, "w_c")
    check_representable(n, d, L0, lt, sigma, T, 1, centre)
    _check_data(X)
    # the privacy filter: the T−1 identical releases compose to one Gaussian of sensitivity √(T−1)·2L_0/n,
    # charged before any noise is drawn (PrivacyBudgetExceeded if the calibration overspends ρ)
    ledger = PrivacyLedger(rho)
    ledger.charge(f"Algorithm 4: {T - 1} noisy gradients", math.sqrt(T - 1) * replace_one_sensitivity(L0, n), sigma)
    rho_exact = algorithm_4_rho(n, L0, sigma, T - 1)
    claim = _claim(rho_exact, delta, sigma, n, L0, T - 1,      # from public inputs, before any noise is drawn
                   f"{_SOURCE}, Theorem 9 (Algorithm 4, reconstructed; Gaussian steps of replace-one sensitivity "
                   f"2L_0/n composed over T-1 = {T - 1} steps; {cal} calibration)",
                   {"L0": L0, "l1_tilde": lt, "n": n, "clip": L0, "sigma": sigma, "T": T})
    steps_trace: list[tuple[np.ndarray, np.ndarray]] | None = [] if wb else None
    out, clipped = _run_algorithm_4(X, subgradient, centre, L0, lt, T, sigma, rng, steps_trace)
    parameters = {"T": T, "noisy_steps": T - 1, "sigma": sigma, "eta_1": theorem_9_step_size(1, lt),
                  "radius": theorem_9_radius(L0, lt), "beta": beta, "rho": rho, "calibration": cal,
                  "rho_exact": rho_exact}
    release = Release(output=out if R is not None else out[0], claim=claim,
                      gradient_evaluations=(T - 1) * n, parameters=parameters,
                      algorithm="Algorithm 4 (Menart et al. 2023, App. E)", replicates=R,
                      diagnostics={"clipped": clipped, "ledger": ledger.to_dict()})
    if steps_trace:
        release.white_box = _trace(X, subgradient, steps_trace, n, sigma, L0, theorem_9_step_size(1, lt),
                                   "Algorithm 4 (Menart et al. 2023)")
    return release


def proximal_point(X: Any, subgradient: PerSampleSubgradient, w0: Any, rho: float, beta: float, L0: float,
                   l1_tilde: float, F0: float, gamma: float, kappa: float, rng: np.random.Generator, *,
                   delta: float = 1e-6, calibration: str = "exact", inner_steps: int | None = None,
                   outer_steps: int | None = None, replicates: int | None = None,
                   white_box: bool = False) -> Release:
    """Algorithm 2 of Menart et al. (2023), arXiv:2311.13447 v2 (Section 4, reconstructed): the private proximal
    point method for (γ, κ)-KL* objectives with κ ≥ 2 and L̃_1-weakly convex, L_0-Lipschitz losses, with
    Algorithm 4 as the ρ/T-zCDP inner solver (Lemma 3 / Theorem 9).  ρ-zCDP under replace-one (Theorem 2).

    Parameters
    ----------
    X : (n, d) records (private).  subgradient : :data:`PerSampleSubgradient` (clipped to ``L0``).
    w0 : (d,) public start.  rho : > 0.  beta : in (0, 1).  L0, l1_tilde : > 0.
    F0 : > 0, a public bound on F(w_0) − F(w*) (a family-level bound such as (γL_0)^κ; never from the data).
    gamma : > 0, kappa : ≥ 2, the KL* constants.  rng : numpy Generator.  delta : (0, 1), for the claim's ε.
    calibration : "exact" | "printed" (of every inner call).  inner_steps : public override of each call's T
    (σ recalibrated).  outer_steps : public override of line 1's T.  replicates : R runs.
    white_box : attach the trace of every noisy gradient of every call (the transcript Theorem 2 covers).

    Returns a :class:`Release`, output w_T (d,) (or (R, d)); gradient_evaluations = T·(T_4 − 1)·n per run.

    Raises ValueError / TypeError naming the parameter (κ < 2 included; unrepresentable or too long schedules as
    :func:`noisy_regularised_gd`), before the data is read and before any noise is drawn.
    """
    X = _as_data(X)
    n, d = X.shape
    subgradient = _check_subgradient(subgradient)
    rho, beta, L0 = check_positive(rho, "rho"), _check_beta(beta), check_positive(L0, "L0")
    lt, rng, cal = check_positive(l1_tilde, "l1_tilde"), check_rng(rng), check_choice(calibration, "calibration",
                                                                                       CALIBRATIONS)
    F0, gamma, kappa = check_positive(F0, "F0"), check_positive(gamma, "gamma"), check_positive(kappa, "kappa")
    delta = check_delta(delta)
    if delta <= 0.0:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    R = None if replicates is None else check_positive_int(replicates, "replicates")
    wb = check_bool(white_box, "white_box")
    T = (algorithm_2_outer_steps(n, d, rho, F0, gamma, kappa, L0, lt) if outer_steps is None
         else check_positive_int(outer_steps, "outer_steps"))
    if kappa < 2.0:
        raise ValueError(f"kappa must be >= 2 for Algorithm 2 (Section 4), got {kappa}")
    rho_inner, beta_inner = rho / T, beta / T                     # lines 2 and 5: ρ/T and β' = β/T per call
    T4 = theorem_9_steps(n, d, rho_inner, beta_inner) if inner_steps is None else check_positive_int(
        inner_steps, "inner_steps")
    if T4 < 2:
        raise ValueError(f"inner_steps must be >= 2, got {T4}")
    sigma = theorem_9_sigma(n, rho_inner, T4, L0, cal)
    w = _as_point(w0, d, R, "w0")
    check_representable(n, d, L0, lt, sigma, T4, T, w)
    _check_data(X)
    rho_exact = T * algorithm_4_rho(n, L0, sigma, T4 - 1)
    claim = _claim(rho_exact, delta, sigma, n, L0, T * (T4 - 1),      # public inputs only, before any noise
                   f"{_SOURCE}, Theorem 2 (Algorithm 2, reconstructed; composition of T = {T} calls of Algorithm 4, "
                   f"Theorem 9, each of {T4 - 1} Gaussian steps of replace-one sensitivity 2L_0/n; {cal} "
                   "calibration)",
                   {"L0": L0, "l1_tilde": lt, "n": n, "clip": L0, "sigma": sigma, "T": T, "T4": T4, "F0": F0,
                    "gamma": gamma, "kappa": kappa})
    ledger = PrivacyLedger(rho)
    for t in range(1, T + 1):                 # every call charged before any noise is drawn (nothing raises mid-run)
        ledger.charge(f"Algorithm 2, call {t}: {T4 - 1} noisy gradients",
                      math.sqrt(T4 - 1) * replace_one_sensitivity(L0, n), sigma)
    steps_trace: list[tuple[np.ndarray, np.ndarray]] | None = [] if wb else None
    clipped = 0
    for t in range(1, T + 1):                                     # Algorithm 2, lines 3–6
        # line 4–5: w_t = A(F(·) + L̃_1‖· − w_{t−1}‖², init w_{t−1}, ρ/T, β/T) with A = Algorithm 4
        w, c = _run_algorithm_4(X, subgradient, w, L0, lt, T4, sigma, rng, steps_trace)
        clipped += c
    parameters = {"T": T, "T4": T4, "rho_inner": rho_inner, "beta_inner": beta_inner, "sigma": sigma,
                  "radius": theorem_9_radius(L0, lt), "calibration": cal, "rho_exact": rho_exact, "F0": F0}
    release = Release(output=w if R is not None else w[0], claim=claim,
                      gradient_evaluations=T * (T4 - 1) * n, parameters=parameters,
                      algorithm="Algorithm 2 (Menart et al. 2023, Section 4)", replicates=R,
                      diagnostics={"clipped": clipped, "ledger": ledger.to_dict()})
    if steps_trace:
        release.white_box = _trace(X, subgradient, steps_trace, n, sigma, L0, theorem_9_step_size(1, lt),
                                   "Algorithm 2 (Menart et al. 2023)")
    return release


#: Algorithm 4's inner loop and its white-box transcript (public for the planted copies in verification/mutants)
run_algorithm_4 = _run_algorithm_4
algorithm_4_trace = _trace
