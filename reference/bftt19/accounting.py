"""Numerical privacy accounting of Algorithm 1's noisy-gradient step, on its worst-case neighbouring pair.

Algorithm 1 of Bassily, Feldman, Talwar & Thakurta (2019) (A_NSGD) draws, at each of its T steps, m indices
i.i.d. uniformly *with replacement* from [n], averages the m per-sample gradients (each of norm ≤ L, clipped)
and adds N(0, σ² I_d).  It is claimed (ε, δ)-DP under **replace-one** neighbours (Theorem 3.1, via
[ACG+16, Thm 1], whose constants are not explicit and which assumes Poisson sampling and add/remove
neighbours).

The worst pair we know
----------------------
Take the linear loss ℓ(w, x) = ⟨w, x⟩ and records x_i = −L e₁ for i < n; the neighbour replaces x_n = −L e₁
by +L e₁.  Every other record has the replaced record's gradient, so batch sampling adds no randomness to
the dataset's step: after the common shift, the first coordinate of the noisy mean gradient is

    Q = N(0, σ²)                                   on the dataset,
    P = Σ_k Bin(m, 1/n)(k) · N(2kL/m, σ²)          on the neighbour (k = times index n is drawn),

and every other coordinate is pure noise, the same under both.  This *one-sided* pair is far worse than the
symmetric pair with a zero background (x_n = ±L e₁, other records 0), whose two sides are both mixtures:
at n = 1000, m = 500, T = 1, σ = 0.010513 (Theorem 3.1's calibration for ε = 1, δ = 10⁻⁶) the one-sided
pair has δ(1) = 2.02·10⁻⁴, the symmetric one 8.8·10⁻⁸.  No pair whose other records share one gradient
value was found worse (tests/bftt19/test_bftt19_accounting.py compares exact curves over generated one-dimensional pairs);
that it dominates every pair of datasets is not proved, so the claims say "the worst-case pair known"
(docs/derivations.md#the-one-sided-worst-case-pair-of-algorithm-1).

The T steps compose adaptively, each step's pair being this same (P, Q) whatever the current iterate, so
the T-fold product P^⊗T vs Q^⊗T is what a release of the whole trajectory exposes and what the proof of
Theorem 3.1 bounds.  Its privacy curve δ(ε) = max(H_{e^ε}(P^⊗T ‖ Q^⊗T), H_{e^ε}(Q^⊗T ‖ P^⊗T)) is computed with
Google's ``dp_accounting`` PLD accountant (``MixtureOfGaussiansDpEvent``, both adjacency directions,
pessimistic connect-the-dots discretisation: an upper bound of the exact curve).  The oracle
``dpsco.oracles.privacy_curves.nsgd_worst_pair_delta_quadrature`` cross-checks it by quadrature at T = 1 and
T = 2.

Calibration
-----------
:func:`certified_noise_std` returns σ = max(σ_printed, the smallest σ on a geometric grid that the
accountant certifies, δ_acc(ε) ≤ δ); the paper's algorithm is unchanged wherever its printed σ is private.
Everything here depends on public inputs (n, m, T, L, ε, δ) only, never on data.

References
----------
* R. Bassily, V. Feldman, K. Talwar, A. Thakurta. Private stochastic convex optimization with optimal
  rates. NeurIPS 2019 (Algorithm 1, Theorem 3.1).
* M. Abadi et al. Deep learning with differential privacy. CCS 2016 ([ACG+16]).
* S. Meiser, E. Mohammadi. Tight on budget? Tight bounds for r-fold approximate differential privacy.
  CCS 2018 (privacy-loss distributions); the ``dp_accounting`` library (Google).
"""

from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr, logsumexp
from scipy.stats import binom

from dpsco.reference.validation import check_delta, check_epsilon, check_positive, check_positive_int

__all__ = [
    "BINOMIAL_TAIL_MASS",
    "PLD_DISCRETISATION",
    "CertifiedNoiseStd",
    "NoiseCalibration",
    "certified_noise_std",
    "nsgd_worst_pair_delta",
    "nsgd_worst_pair_epsilon",
    "nsgd_worst_pair_event",
    "pld_discretisation",
    "worst_pair_mixture",
]

#: The Binomial(m, 1/n) law of the replaced record's draw count is truncated where its upper tail is below
#: this mass; the truncation adds at most e^ε·T·BINOMIAL_TAIL_MASS to δ(ε), which is added back.
BINOMIAL_TAIL_MASS = 1e-30
#: dp_accounting's value_discretization_interval for the privacy-loss distribution, by number of steps T
#: (T = 1 is computed exactly, without the PLD): 10⁻² for T ≤ 3, 3·10⁻³ for T ≤ 100, 10⁻³ beyond.  The
#: pessimistic rounding accumulates over the composition: at T = 22 (n = 1000, ε = 1, σ printed) 10⁻², 3·10⁻³
#: and 10⁻³ give δ = 1.106, 1.063 and 1.059·10⁻⁶; at T = 795 10⁻² gives 8.8·10⁻⁸ instead of 7.5·10⁻¹⁰.
#: Every choice is an upper bound of the exact curve; tests/bftt19/test_bftt19_accounting.py checks them against
#: quadrature at T = 2.
PLD_DISCRETISATION_FEW_STEPS = 1e-2
PLD_DISCRETISATION_MODERATE_STEPS = 3e-3
PLD_DISCRETISATION = 1e-3
#: Relative resolution of the σ search: the certified σ is at most this factor above the smallest σ that
#: the accountant certifies.
SIGMA_RESOLUTION = 1.01


def pld_discretisation(steps: int) -> float:
    """The value_discretization_interval used for ``steps`` compositions (see PLD_DISCRETISATION)."""
    if steps <= 3:
        return PLD_DISCRETISATION_FEW_STEPS
    return PLD_DISCRETISATION_MODERATE_STEPS if steps <= 100 else PLD_DISCRETISATION


def worst_pair_mixture(n: int, m: int) -> tuple[np.ndarray, np.ndarray, float]:
    """The Binomial(m, 1/n) mixture of the worst pair, truncated: (k, weights, truncated tail mass).

    k: (K+1,) int array 0..K; weights: (K+1,) renormalised Bin(m, 1/n) pmf on 0..K; the tail P(k > K) ≤
    ``BINOMIAL_TAIL_MASS`` is returned so callers can add it to δ.
    """
    n_ = check_positive_int(n, "n")
    m_ = check_positive_int(m, "m")
    q = 1.0 / n_
    K = m_
    if q < 1.0:  # smallest K with P(k > K) ≤ BINOMIAL_TAIL_MASS (binom.sf is accurate in the far tail;
        # binom.isf is not: it returns m for masses below about 1e-16, which truncated nothing)
        sf = binom.sf(np.arange(m_ + 1), m_, q)
        K = int(np.argmax(sf <= BINOMIAL_TAIL_MASS))
    k = np.arange(K + 1)
    pmf = binom.pmf(k, m_, q)
    tail = float(binom.sf(K, m_, q)) if K < m_ else 0.0
    return k, pmf / pmf.sum(), tail


@functools.lru_cache(maxsize=4096)
def _pld(n: int, m: int, z: float, steps: int) -> Any:
    """PLD of the worst pair, normalised: shifts k (k = 0..K), noise z = mσ/(2L), composed ``steps`` times."""
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    k, w, _ = worst_pair_mixture(n, m)
    one = pld_lib.from_mixture_gaussian_mechanism(
        standard_deviation=z, sensitivities=[float(v) for v in k], sampling_probs=[float(v) for v in w],
        pessimistic_estimate=True, value_discretization_interval=pld_discretisation(steps),
    )
    return one.self_compose(steps) if steps > 1 else one


def nsgd_worst_pair_event(n: int, m: int, sigma: float, lipschitz: float, steps: int) -> Any:
    """The ``dp_accounting`` event of T steps of Algorithm 1 on the worst pair (for users' own accountants).

    ``SelfComposedDpEvent(MixtureOfGaussiansDpEvent(mσ/(2L), k, Bin(m, 1/n)(k)), T)`` (k truncated as in
    :func:`worst_pair_mixture`; compose with ``NeighboringRelation.REPLACE_SPECIAL``).
    """
    from dp_accounting import dp_event

    z = check_positive(sigma, "sigma") * check_positive_int(m, "m") / (2.0 * check_positive(lipschitz, "lipschitz"))
    k, w, _ = worst_pair_mixture(n, m)
    return dp_event.SelfComposedDpEvent(
        dp_event.MixtureOfGaussiansDpEvent(z, [float(v) for v in k], [float(v) for v in w]),
        check_positive_int(steps, "steps"),
    )


def _one_step_delta(eps: float, k: np.ndarray, w: np.ndarray, z: float) -> float:
    """Exact max(H_γ(P‖Q), H_γ(Q‖P)), γ = e^ε, for P = Σ_k w_k N(k, z²), Q = N(0, z²) (one step, normalised).

    The likelihood ratio p/q(x) = Σ_k w_k exp((k x − k²/2)/z²) is increasing in x, so {p > γq} = {x > a} and
    {q > γp} = {x < b} with log(p/q)(a) = ε and log(p/q)(b) = −ε (brentq); each divergence is then a sum of
    normal tail probabilities (log-space, no cancellation in the tails).
    """
    keep = w > 0  # components of zero weight (pmf underflow) contribute nothing
    k, logw = k[keep], np.log(w[keep])

    def llr(x: float) -> float:
        return float(logsumexp(logw + (k * x - 0.5 * k * k) / (z * z)))

    def root(level: float) -> float:
        lo, hi = -1.0, 1.0
        while llr(lo) > level:
            if lo < -1e6:
                return -math.inf
            lo *= 2.0
        while llr(hi) < level:
            if hi > 1e6 * max(1.0, float(k[-1])):
                return math.inf
            hi *= 2.0
        return brentq(lambda x: llr(x) - level, lo, hi, xtol=1e-14, rtol=8.9e-16, maxiter=500)

    def mix_sf(x: float) -> float:  # P(X > x)
        return float(np.exp(logsumexp(logw + log_ndtr((k - x) / z))))

    def mix_cdf(x: float) -> float:  # P(X < x)
        return float(np.exp(logsumexp(logw + log_ndtr((x - k) / z))))

    gamma = math.exp(eps)
    a = root(eps)
    # a = −∞ or b = +∞ would mean the set is the whole line, where P − γQ = 1 − γ ≤ 0 (ε ≥ 0)
    fwd = 0.0 if not math.isfinite(a) else mix_sf(a) - gamma * math.exp(log_ndtr(-a / z))
    b = root(-eps)
    bwd = 0.0 if not math.isfinite(b) else math.exp(log_ndtr(b / z)) - gamma * mix_cdf(b)
    return max(0.0, fwd, bwd)


def nsgd_worst_pair_delta(epsilon: float, n: int, m: int, sigma: float, lipschitz: float, steps: int) -> float:
    """Upper bound on δ(ε) of T = ``steps`` steps of Algorithm 1 on the worst-case replace-one pair.

    Parameters
    ----------
    epsilon : float ≥ 0
    n : int ≥ 1, dataset size;  m : int ≥ 1, batch size (indices drawn with replacement).
    sigma : float > 0, standard deviation of the noise added to the *mean* gradient (Algorithm 1's σ).
    lipschitz : float > 0, L (the per-sample gradient clipping norm).
    steps : int ≥ 1, T.

    Returns
    -------
    float in [0, 1]: for T = 1 the exact δ(ε) (half-line positive sets, normal tails), for T ≥ 2 the PLD
    accountant's pessimistic δ(ε); plus e^ε·T·(truncated Binomial tail) in both cases.

    Raises
    ------
    ValueError, TypeError for out-of-range parameters.
    """
    eps = float(epsilon)
    if not math.isfinite(eps) or eps < 0:
        raise ValueError(f"epsilon must be finite and >= 0, got {epsilon}")
    n_ = check_positive_int(n, "n")
    m_ = check_positive_int(m, "m")
    T = check_positive_int(steps, "steps")
    z = check_positive(sigma, "sigma") * m_ / (2.0 * check_positive(lipschitz, "lipschitz"))
    k, w, tail = worst_pair_mixture(n_, m_)
    if T == 1:  # exact (the PLD agrees to ~1e-12 relative here, tests/bftt19/test_bftt19_accounting.py)
        delta = _one_step_delta(eps, k.astype(float), w, z)
    else:
        delta = float(_pld(n_, m_, z, T).get_delta_for_epsilon(eps))
    return min(1.0, delta + math.exp(min(eps, 700.0)) * T * tail)


def nsgd_worst_pair_epsilon(delta: float, n: int, m: int, sigma: float, lipschitz: float, steps: int) -> float:
    """Upper bound on the ε at which T steps of Algorithm 1 are (ε, δ)-DP on the worst-case pair.

    Same parameters as :func:`nsgd_worst_pair_delta`; ``delta`` in (0, 1).  Returns ``inf`` if no finite ε.
    """
    dl = check_delta(delta)
    if dl == 0.0:
        return math.inf
    n_, m_, T = check_positive_int(n, "n"), check_positive_int(m, "m"), check_positive_int(steps, "steps")
    z = check_positive(sigma, "sigma") * m_ / (2.0 * check_positive(lipschitz, "lipschitz"))
    # the accountant's ε at a δ a hair below the target, then verified with the truncation slack added back
    eps = float(_pld(n_, m_, z, T).get_epsilon_for_delta(dl * (1.0 - 1e-6)))
    if not math.isfinite(eps) or nsgd_worst_pair_delta(eps, n_, m_, sigma, lipschitz, T) > dl:
        return math.inf
    return eps


@dataclass(frozen=True)
class CertifiedNoiseStd:
    """Which noise Algorithm 1 uses and what the worst-pair accountant says about it (the result of
    :func:`certified_noise_std`).  Formerly also named ``NoiseCalibration`` (kept as an alias, the same class): the
    one noise-calibration type of the house is ``dpsco.reference.noise.NoiseCalibration`` (mechanism, sensitivity,
    ε, δ, scale); this one is a σ with its accountant certificate, hence its own name.

    sigma : the standard deviation used;  sigma_printed : Algorithm 1, line 1's √(8TL² log(1/δ)/(n²ε²)).
    calibration : "certified" (σ = max(printed, certified)) or "printed" (σ = printed, as in the paper).
    accountant_delta : the accountant's δ(ε) at σ;  printed_accountant_delta : its δ(ε) at σ_printed.
    printed_is_private : printed_accountant_delta ≤ δ.
    """

    sigma: float
    sigma_printed: float
    calibration: str
    accountant_delta: float
    printed_accountant_delta: float
    printed_is_private: bool
    accountant: str = ("exact for T = 1; for T >= 2 dp_accounting PLD (pessimistic connect-the-dots, "
                       "value_discretization_interval 1e-2 / 3e-3 / 1e-3 for T <= 3 / <= 100 / > 100) of the "
                       "worst-case replace-one pair known for with-replacement sampling: T-fold "
                       "MixtureOfGaussiansDpEvent (dpsco.reference.bftt19.accounting)")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)



#: the old name of :class:`CertifiedNoiseStd` (the same class; kept so callers keep working)
NoiseCalibration = CertifiedNoiseStd

@functools.lru_cache(maxsize=1024)
def _certify(n: int, m: int, T: int, lipschitz: float, epsilon: float, delta: float,
             sigma_printed: float) -> tuple[float, float, float]:
    """(σ, δ_acc(σ), δ_acc(σ_printed)) with σ = σ_printed if it is certified, else a certified σ on a grid."""
    def acc(s: float) -> float:
        return nsgd_worst_pair_delta(epsilon, n, m, s, lipschitz, T)

    d_printed = acc(sigma_printed)
    if d_printed <= delta:
        return sigma_printed, d_printed, d_printed
    lo, hi = sigma_printed, 2.0 * sigma_printed
    d_hi = acc(hi)
    while d_hi > delta:
        lo, hi = hi, 2.0 * hi
        if hi > 1e6 * sigma_printed:
            raise ValueError(
                f"no noise level up to 1e6 times the printed one is certified for n={n}, m={m}, T={T}, "
                f"epsilon={epsilon}, delta={delta}: delta is below the accountant's resolution")
        d_hi = acc(hi)
    # Illinois regula falsi on f(log σ) = log δ_acc(σ) − log δ; invariant f(lo) > 0 ≥ f(hi); every returned σ
    # was evaluated and certified.  f is decreasing (more noise, smaller δ).
    f_lo = math.log(acc(lo)) - math.log(delta)
    f_hi = math.log(max(d_hi, 1e-300)) - math.log(delta)
    side = 0
    while hi / lo > SIGMA_RESOLUTION:
        x_lo, x_hi = math.log(lo), math.log(hi)
        x = x_hi - f_hi * (x_hi - x_lo) / (f_hi - f_lo) if f_hi != f_lo else 0.5 * (x_lo + x_hi)
        # stay strictly inside, at least 1/8 of the bracket away from the ends
        width = x_hi - x_lo
        x = min(max(x, x_lo + width / 8), x_hi - width / 8)
        mid = math.exp(x)
        d_mid = acc(mid)
        f_mid = math.log(max(d_mid, 1e-300)) - math.log(delta)
        if f_mid <= 0:
            hi, d_hi, f_hi = mid, d_mid, f_mid
            if side == -1:
                f_lo /= 2
            side = -1
        else:
            lo, f_lo = mid, f_mid
            if side == 1:
                f_hi /= 2
            side = 1
    return hi, d_hi, d_printed


def certified_noise_std(n: int, m: int, T: int, lipschitz: float, epsilon: float, delta: float,
                        sigma_printed: float, *, calibration: str = "certified") -> CertifiedNoiseStd:
    """The noise standard deviation of Algorithm 1 for (n, m, T, L, ε, δ), checked on the worst-case pair.

    Parameters
    ----------
    n, m, T : int ≥ 1, dataset size, batch size, steps.
    lipschitz : float > 0, the clipping norm L of the per-sample gradients.
    epsilon : float > 0;  delta : float in (0, 1).
    sigma_printed : float > 0, the printed σ (Algorithm 1, line 1).
    calibration : "certified" (default): σ = max(σ_printed, smallest certified σ on a grid of ratio
        1.01), so that the accountant's δ(ε) ≤ δ; "printed": σ = σ_printed, whatever the accountant says
        (its δ is reported so the claim can state it).

    Returns
    -------
    CertifiedNoiseStd

    Raises
    ------
    ValueError, TypeError for out-of-range parameters or an unknown ``calibration``.
    """
    if calibration not in ("certified", "printed"):
        raise ValueError(f"calibration must be 'certified' or 'printed', got {calibration!r}")
    n_, m_, T_ = check_positive_int(n, "n"), check_positive_int(m, "m"), check_positive_int(T, "T")
    L = check_positive(lipschitz, "lipschitz")
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    if dl == 0.0:
        raise ValueError("delta must be > 0 for Algorithm 1's Gaussian noise")
    s_p = check_positive(sigma_printed, "sigma_printed")
    if calibration == "printed":
        d_p = nsgd_worst_pair_delta(eps, n_, m_, s_p, L, T_)
        return CertifiedNoiseStd(s_p, s_p, "printed", d_p, d_p, d_p <= dl)
    s, d_s, d_p = _certify(n_, m_, T_, L, eps, dl, s_p)
    return CertifiedNoiseStd(s, s_p, "certified", d_s, d_p, d_p <= dl)
