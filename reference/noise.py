"""Output-perturbation noise: exact samplers and their calibration formulas, written once.

Used by every algorithm of :mod:`dpsco.reference.lr21` (Lowy & Razaviyayn, Algorithms 1–3), so each
formula exists in exactly one place.

Mechanisms (``Δ`` is an L2 sensitivity bound, ``ε > 0``)
-------------------------------------------------------
* **(N0) pure ε-DP "L2-Laplace" / K-norm noise** (δ = 0): density p(z) ∝ exp(−ε‖z‖₂/Δ) on R^d.  Sampled
  exactly in polar coordinates: radius ~ Gamma(shape d, scale b = Δ/ε) (the radial density ∝ r^{d−1}e^{−r/b})
  times an independent uniform direction g/‖g‖, g ~ N(0, I_d).  Privacy: for centres a, a' the log density
  ratio is (ε/Δ)(‖o − a'‖ − ‖o − a‖) ≤ ε‖a − a'‖/Δ (reverse triangle inequality), with equality on the ray
  beyond a away from a', so the mechanism is exactly (ε‖a − a'‖/Δ)-DP and no better.  (Not coordinate-wise
  Laplace, which needs an L1 sensitivity bound.)
* **(N1) Gaussian of Zhao et al. (2019, Thm 5)** = the paper's Theorem 0.1, for δ ∈ (0, ½) and *every*
  ε > 0:  σ = (c_δ + √(c_δ² + ε))·Δ/(ε√2),  c_δ = √log(2/(√(16δ + 1) − 1)).
* **analytic Gaussian** (Balle & Wang 2018, Thm 8/9): the smallest σ with δ_σ(ε) ≤ δ, for comparison.
* **classical Gaussian** (Dwork & Roth 2014, Thm A.1): σ = √(2 log(1.25/δ))Δ/ε, valid only for ε < 1.

The paper's printed Algorithm 2 density for δ > 0, exp(−2ε²‖z‖²/(Δ²(c + √(c² + ε))²)), has standard
deviation (c + √(c² + ε))Δ/(2ε), a factor √2 *smaller* than Zhao's σ (erratum; ``zhao_sigma(printed_alg2=True)``
returns it for comparison; ``dpsco.oracles.lr21.output_perturbation`` shows it is not (ε, δ)-DP).

Floating-point attacks on continuous samplers (Mironov 2012) are out of scope.

References: Y. Zhao et al., "Reviewing and improving the Gaussian mechanism for differential privacy",
arXiv:1911.12060 (2019), Thm 5; B. Balle, Y.-X. Wang, "Improving the Gaussian mechanism for differential
privacy", ICML 2018; K. Chaudhuri, C. Monteleoni, A. Sarwate, JMLR 12 (2011) (the Gamma-radius sampler).
"""

from __future__ import annotations

import cmath
import math
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
from scipy.special import gammaln

from dpsco.reference import conversions, projections
from dpsco.reference.validation import check_delta, check_epsilon, check_positive, check_positive_int, check_rng

__all__ = [
    "NoiseCalibration",
    "analytic_gaussian_sigma",
    "gaussian_log_delta",
    "c_delta",
    "calibrate",
    "classical_gaussian_sigma",
    "noise_factor",
    "noise_moments",
    "perturb_and_project",
    "project_ball",
    "sample_gaussian",
    "sample_l2_laplace",
    "sample_noise",
    "zhao_sigma",
]

GaussianCalibration = Literal["zhao", "analytic"]

#: Largest noise scale (b or σ) :func:`calibrate` returns.  A draw of norm up to ~scale·(d + 40√d) is added to
#: w_T and projected onto B(0, R), which computes its squared norm: beyond ~1e154 that overflows and the
#: projection returned 0 (or NaN) instead of a point of the sphere (Algorithms 1–3 with α ≈ 3e306).  At this
#: scale the release is pure noise anyway (its direction is uniform, its norm R).
NOISE_SCALE_MAX = 1e150


def c_delta(delta: float, *, printed: bool = False) -> float | complex:
    """c_δ = √log(2/(√(16δ + 1) − 1)) (paper, Notation; Zhao et al. 2019), δ ∈ (0, ½).

    Raises ValueError outside (0, ½): at δ = ½ the argument of the log is 1 (c = 0) and beyond it c_δ is not
    real.  Evaluated without cancellation, so it stays finite and accurate down to the smallest δ > 0.

    ``printed=True`` evaluates the supplement's Theorem 0.1 as printed, c = √log(2/(√(16δ) + 1) − 1)
    (erratum LR21-E14), with complex arithmetic, for comparison only: its log argument 2/(4√δ + 1) − 1 is < 1
    for every δ > 0 (negative for δ > 1/16, zero at δ = 1/16, where ValueError is raised), so the printed c is
    never real — purely imaginary for δ < 1/16 (e.g. 0.159i at δ = 1e-5).  No σ can be calibrated with it;
    ``tests/lr21/test_lr21_errata_spec.py`` shows that its real readings are not (ε, δ)-DP.
    """
    d = check_delta(delta)
    if not 0.0 < d < 0.5:
        raise ValueError(f"delta must lie in (0, 1/2) for c_delta, got {d}")
    if printed:
        arg = 2.0 / (math.sqrt(16.0 * d) + 1.0) - 1.0
        if arg == 0.0:
            raise ValueError("the supplement's printed c_delta is undefined at delta = 1/16 (log 0)")
        return cmath.sqrt(cmath.log(arg))
    # √(16δ + 1) − 1 written as 16δ/(√(16δ + 1) + 1): the difference cancels to 0 for δ < 1e-17 (then 2/0), and
    # log 2 − log q instead of log(2/q) keeps the smallest δ finite.
    q = 16.0 * d / (math.sqrt(16.0 * d + 1.0) + 1.0)
    return math.sqrt(max(math.log(2.0) - math.log(q), 0.0))


def noise_factor(d: int, epsilon: float, delta: float) -> float:
    """The paper's noise factor s: s₀ = d/ε (δ = 0) or s_δ = √d(c_δ + √(c_δ² + ε))/ε (δ ∈ (0, ½)).

    Every bound of the paper is written in s (e.g. Thm 2.1: 9L²s/μ)."""
    dd = check_positive_int(d, "d")
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    if dl == 0.0:
        return dd / eps
    c = c_delta(dl)
    return math.sqrt(dd) * (c + math.sqrt(c * c + eps)) / eps


def zhao_sigma(sensitivity: float, epsilon: float, delta: float, *, printed_alg2: bool = False) -> float:
    """σ = (c_δ + √(c_δ² + ε))Δ/(ε√2) (Zhao et al. 2019, Thm 5 = paper Thm 0.1, Algorithm 1 line 2).

    ``printed_alg2=True`` returns the standard deviation of Algorithm 2's printed density,
    (c_δ + √(c_δ² + ε))Δ/(2ε) = σ/√2 — NOT private at (ε, δ) (erratum LR21-E2); for comparison only.
    """
    s = check_positive(sensitivity, "sensitivity")
    eps = check_epsilon(epsilon)
    c = c_delta(delta)
    k = (c + math.sqrt(c * c + eps)) * s / eps
    return k / 2.0 if printed_alg2 else k / math.sqrt(2.0)


#: log δ(ε) of the Gaussian mechanism with μ = Δ/σ (Balle & Wang 2018, Thm 8), (ε, μ) → log δ in log space,
#: rounded up: the core ``dpsco.reference.conversions.gdp_log_delta``
gaussian_log_delta = conversions.gdp_log_delta


def analytic_gaussian_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    """Smallest σ with δ_σ(ε) ≤ δ for the Gaussian mechanism (Balle & Wang 2018), by bisection on μ = Δ/σ.

    Returns the *upper* end of the final bracket in σ (so the returned σ satisfies the curve).  δ ∈ (0, 1)."""
    s = check_positive(sensitivity, "sensitivity")
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    if dl == 0.0:
        raise ValueError("delta must be > 0 for the Gaussian mechanism")
    target = math.log(dl)
    lo, hi = 1e-12, 1.0  # bracket in μ: δ(ε) increases with μ
    while gaussian_log_delta(eps, hi) <= target:
        hi *= 2.0
        if hi > 1e8:
            break
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if gaussian_log_delta(eps, mid) <= target:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * hi:
            break
    return s / lo  # μ = lo satisfies δ(ε) ≤ δ


def classical_gaussian_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    """σ = √(2 log(1.25/δ))Δ/ε (Dwork & Roth 2014, Thm A.1); raises for ε ≥ 1 where it is not valid."""
    s = check_positive(sensitivity, "sensitivity")
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    if not eps < 1.0:
        raise ValueError(f"the classical Gaussian calibration needs epsilon < 1, got {eps}")
    if dl == 0.0:
        raise ValueError("delta must be > 0 for the Gaussian mechanism")
    return math.sqrt(2.0 * math.log(1.25 / dl)) * s / eps


@dataclass(frozen=True)
class NoiseCalibration:
    """A calibrated output-perturbation noise (immutable, public).

    Attributes
    ----------
    mechanism : "l2-laplace" | "gaussian"
    sensitivity : float    Δ (the L2 sensitivity bound the noise is calibrated to, incl. the α term)
    epsilon, delta : float
    scale : float          b = Δ/ε (l2-laplace) or σ (gaussian, per coordinate)
    formula : str          which calibration ("Δ/ε", "Zhao et al. 2019 Thm 5", "analytic", ...)
    """

    mechanism: Literal["l2-laplace", "gaussian"]
    sensitivity: float
    epsilon: float
    delta: float
    scale: float
    formula: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def calibrate(sensitivity: float, epsilon: float, delta: float, *,
              gaussian: GaussianCalibration = "zhao") -> NoiseCalibration:
    """The noise of Algorithms 1–3 (line 2) for sensitivity Δ: (N0) if δ = 0, (N1) if δ ∈ (0, ½).

    Parameters
    ----------
    sensitivity : float > 0 (Δ_T, already including the 2√(2α/modulus) term)
    epsilon : float > 0;  delta : float in [0, ½)
    gaussian : "zhao" (paper, default) or "analytic" (Balle & Wang; the smallest valid σ, for comparison)

    Raises
    ------
    ValueError : δ ∉ [0, ½), bad sensitivity or ε, ``gaussian`` not "zhao" / "analytic" (checked for δ = 0 too,
        where it is unused: a misspelt option is an error whatever δ is), a scale above :data:`NOISE_SCALE_MAX`.
    """
    s = check_positive(sensitivity, "sensitivity")
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    if not isinstance(gaussian, str) or gaussian not in ("zhao", "analytic"):
        raise ValueError(f"gaussian must be 'zhao' or 'analytic', got {gaussian!r}")
    if dl == 0.0:
        cal = NoiseCalibration("l2-laplace", s, eps, 0.0, s / eps, "density ∝ exp(−ε‖z‖/Δ): b = Δ/ε")
    elif not dl < 0.5:
        raise ValueError(f"delta must lie in [0, 1/2) (c_delta is real only for delta <= 1/2), got {dl}")
    elif gaussian == "zhao":
        cal = NoiseCalibration("gaussian", s, eps, dl, zhao_sigma(s, eps, dl),
                               "σ = (c_δ + √(c_δ² + ε))Δ/(ε√2) (Zhao et al. 2019, Thm 5; paper Thm 0.1)")
    else:
        cal = NoiseCalibration("gaussian", s, eps, dl, analytic_gaussian_sigma(s, eps, dl),
                               "analytic Gaussian (Balle & Wang 2018)")
    if not cal.scale <= NOISE_SCALE_MAX:
        raise ValueError(f"the noise scale {cal.scale:.3g} for sensitivity {s:.3g} at epsilon = {eps:g} exceeds "
                         f"NOISE_SCALE_MAX = {NOISE_SCALE_MAX:g} (dpsco.reference.noise), where adding and projecting the "
                         "noise overflows; the scale is sensitivity/epsilon and the sensitivity comes from alpha and the "
                         "modulus (mu / lam) of the algorithm: increase epsilon or the modulus, or decrease alpha")
    return cal


def sample_l2_laplace(d: int, scale: float, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
    """Exact draw(s) from p(z) ∝ exp(−‖z‖₂/b) on R^d: Gamma(d, b) radius × uniform direction.

    Returns (d,) or (size, d).  numpy's ``gamma(shape, scale)`` takes the scale b (not a rate)."""
    dd = check_positive_int(d, "d")
    b = check_positive(scale, "scale")
    rng = check_rng(rng)
    k = 1 if size is None else check_positive_int(size, "size")
    r = rng.gamma(shape=dd, scale=b, size=k)
    g = rng.standard_normal((k, dd))
    nrm = np.linalg.norm(g, axis=1)
    while np.any(nrm == 0.0):  # probability 0; redraw for exactness
        bad = nrm == 0.0
        g[bad] = rng.standard_normal((int(bad.sum()), dd))
        nrm = np.linalg.norm(g, axis=1)
    z = (r / nrm)[:, None] * g
    return z[0] if size is None else z


def sample_gaussian(d: int, sigma: float, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
    """Draw(s) from N(0, σ² I_d): (d,) or (size, d)."""
    dd = check_positive_int(d, "d")
    s = check_positive(sigma, "sigma")
    rng = check_rng(rng)
    if size is None:
        return s * rng.standard_normal(dd)
    return s * rng.standard_normal((check_positive_int(size, "size"), dd))


def sample_noise(cal: NoiseCalibration, d: int, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
    """Draw(s) of the calibrated noise."""
    if not isinstance(cal, NoiseCalibration):
        raise TypeError(f"cal must be a NoiseCalibration, got {type(cal).__name__}")
    if cal.mechanism == "l2-laplace":
        return sample_l2_laplace(d, cal.scale, rng, size)
    return sample_gaussian(d, cal.scale, rng, size)


def noise_moments(cal: NoiseCalibration, d: int) -> tuple[float, float]:
    """Exact (E‖z‖, E‖z‖²): l2-laplace (d·b, d(d+1)·b²); gaussian (√2σΓ((d+1)/2)/Γ(d/2), dσ²).

    The paper's proofs use the looser (valid) bounds √2·s₀Δ and 2s₀²Δ² (δ = 0), s_δΔ and s_δ²Δ² (δ > 0)."""
    dd = check_positive_int(d, "d")
    if cal.mechanism == "l2-laplace":
        return dd * cal.scale, dd * (dd + 1) * cal.scale**2
    s = cal.scale
    return math.sqrt(2.0) * s * math.exp(gammaln((dd + 1) / 2.0) - gammaln(dd / 2.0)), dd * s * s


def project_ball(w: np.ndarray, radius: float) -> np.ndarray:
    """Π_{B(0,R)} row-wise: w·min(1, R/‖w‖) for (d,) or (k, d) arrays; R = inf is the identity.  R > 0.
    The one core projection (``dpsco.reference.projections.project_ball``): ‖out‖ ≤ R guaranteed as computed."""
    return projections.project_ball(w, check_positive(radius, "radius", allow_inf=True))


def perturb_and_project(w_T: np.ndarray, cal: NoiseCalibration, radius: float, rng: np.random.Generator,
                        size: int | None = None) -> np.ndarray:
    """Line 2 of Algorithms 1–3: w_A = Π_{B(0,R)}(w_T + ẑ), ẑ from ``cal`` (projection = post-processing).

    ``size``: number of independent releases of the same w_T ((size, d) output), for auditors."""
    w = np.asarray(w_T, dtype=np.float64)
    z = sample_noise(cal, w.shape[-1], rng, size)
    return project_ball(w + z, radius)
