"""A privacy ledger for the Gaussian releases of Menart et al. (2023), arXiv:2311.13447 v2, under ρ-zCDP.

Every algorithm of the paper is a (fully adaptive) composition of Gaussian mechanisms.  Under the paper's
replace-one neighbouring (Section 2, Definition 2) a release q(S) + N(0, σ² I_d) whose per-sample summand is
bounded by b has ℓ2-sensitivity Δ = 2b/n and is exactly Δ²/(2σ²)-zCDP (Bun & Steinke 2016, Prop. 1.6);
its privacy-loss distribution is that of N(0, 1) vs N(Δ/σ, 1), i.e. (Δ/σ)-GDP (Dong, Roth & Su 2022).
A composition of such releases is μ-GDP with μ² = Σ (Δ_j/σ_j)² = 2 Σ ρ_j, also when the costs are fixed
adaptively before each release and their sum is bounded almost surely (Whitehouse, Ramdas, Rogers & Wu 2023,
"Fully-adaptive composition", Thm 1, for zCDP; Smith & Thakurta 2022 for the Gaussian curve).

The paper's own proofs charge (b/(nσ))² per release (Lemma 8 and App. D.2 of arXiv:2311.13447 v2: the
"sensitivity L_0/n" with a Δ²/σ² convention), which is half the exact replace-one cost Δ²/(2σ²) = 2(b/(nσ))²;
:func:`printed_cost_unit_sensitivity` keeps that accounting reachable under its own name.

:class:`PrivacyLedger` records each release (label, Δ, σ, cost) and refuses — *before* the noise is drawn —
any release that would take the total above the budget (``PrivacyBudgetExceeded``, a ``ValueError``).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpsco.reference import conversions
from dpsco.reference.validation import check_positive, check_positive_int

__all__ = ["GaussianRelease", "PrivacyLedger", "PrivacyBudgetExceeded", "gaussian_zcdp", "cached_gaussian_zcdp",
           "gaussian_gdp_mu", "replace_one_sensitivity", "printed_cost_unit_sensitivity", "exact_sum_add", "zcdp_to_gdp_mu", "gdp_mu_to_zcdp",
           "zcdp_epsilon", "zcdp_rho_for_epsilon", "gdp_delta", "gdp_epsilon", "composed_gdp_mu",
           "gaussian_event"]

# relative slack for the budget comparison: a schedule that spends exactly ρ in floating point is admitted
_BUDGET_RTOL = 1e-9


def exact_sum_add(partials: list[float], x: float) -> None:
    """Add ``x`` to the exact running sum held as non-overlapping ``partials`` (Shewchuk 1997; the algorithm of
    ``math.fsum``), in place: ``math.fsum(partials)`` is then the correctly rounded sum of every value added,
    equal to ``math.fsum`` of them all, at a cost independent of how many were added (a ledger or filter of
    10⁵ releases summed them all at every release: quadratic time)."""
    i = 0
    for y in partials:
        if abs(x) < abs(y):
            x, y = y, x
        hi = x + y
        lo = y - (hi - x)
        if lo:
            partials[i] = lo
            i += 1
        x = hi
    partials[i:] = [x]


class PrivacyBudgetExceeded(ValueError):
    """A release was refused because its cost would take the ledger's total above its budget."""


def replace_one_sensitivity(per_sample_bound: float, n: int) -> float:
    """ℓ2-sensitivity 2b/n of an average (1/n) Σ_i g(x_i) with ‖g(x)‖ ≤ b for every record, under replace-one
    neighbours (n public).  Menart et al. (2023), Section 2 (replace-one neighbouring; Definition 2).

    Raises ValueError / TypeError naming ``per_sample_bound`` or ``n``."""
    b = check_positive(per_sample_bound, "per_sample_bound")
    n = check_positive_int(n, "n")
    return b / n * 2.0          # b/n first: 2b overflows for b > 9e307 (equal to 2b/n whenever that is finite)


gaussian_zcdp = conversions.gaussian_zcdp  # the one copy (reference.conversions): ½(Δ/σ)², rounded up


_FLOATS = (float, np.float64)


@functools.lru_cache(maxsize=4096)
def _cached_zcdp(sensitivity: float, sigma: float) -> float:
    return gaussian_zcdp(sensitivity, sigma)


def cached_gaussian_zcdp(sensitivity: float, sigma: float) -> float:
    """:func:`gaussian_zcdp`, cached for Python floats and numpy float64 scalars (the same IEEE values, hence the
    same result): a pure function of two public scales, which a schedule evaluates with the same (Δ, σ) again and
    again, and whose exact upward rounding (rational arithmetic) costs far more than the step it charges (issue 29).
    Anything else (ints, bools, other types) goes uncached to :func:`gaussian_zcdp`, which checks it and raises as
    before (a cache never holds an exception)."""
    if type(sensitivity) in _FLOATS and type(sigma) in _FLOATS:
        return _cached_zcdp(float(sensitivity), float(sigma))
    return gaussian_zcdp(sensitivity, sigma)


def gaussian_gdp_mu(sensitivity: float, sigma: float) -> float:
    """μ = Δ/σ: the Gaussian mechanism's exact GDP parameter (Dong, Roth & Su 2022, Thm 2.7)."""
    s = check_positive(sensitivity, "sensitivity", allow_zero=True)
    return s / check_positive(sigma, "sigma")


def printed_cost_unit_sensitivity(per_sample_bound: float, n: int, sigma: float) -> float:
    """The paper's per-release charge (b/(nσ))² (Menart et al. 2023, arXiv:2311.13447 v2, proof of Lemma 8:
    anchors "(L_0/(nσ̂))²", differences "(Φ̂_k^{1/κ}/(γnσ_k))²"; App. D.2 likewise).  It equals Δ²/σ² with the
    add/remove-style Δ = b/n, i.e. **half** the exact replace-one cost (2b/n)²/(2σ²) of :func:`gaussian_zcdp`
    (the accounting-factor-2 erratum).  Kept only for fidelity with the printed calibration.

    Raises ValueError / TypeError naming the parameter."""
    b = check_positive(per_sample_bound, "per_sample_bound", allow_zero=True)
    n = check_positive_int(n, "n")
    sig = check_positive(sigma, "sigma")
    r = b / sig / n             # scale-free: the ratio of the public scales first (as gaussian_zcdp)
    return r * r


# ---- conversions: the core objects of dpsco.reference.conversions (one copy; conservative rounding, defined edges)
#: μ = √(2ρ) of a Gaussian composition with total zCDP ρ (rounded up)
zcdp_to_gdp_mu = conversions.zcdp_to_gdp_mu
#: ρ = μ²/2: μ-GDP implies μ²/2-zCDP (rounded up)
gdp_mu_to_zcdp = conversions.gdp_mu_to_zcdp
#: ε = ρ + 2√(ρ log(1/δ)): ρ-zCDP ⇒ (ε, δ)-DP (Bun & Steinke 2016, Prop. 1.3; rounded up; ∞ at δ = 0, ρ > 0)
zcdp_epsilon = conversions.zcdp_epsilon
#: the largest ρ with ρ + 2√(ρ log(1/δ)) ≤ ε (the inverse of zcdp_epsilon; rounded down; 0 at δ = 0)
zcdp_rho_for_epsilon = conversions.zcdp_rho
#: δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), the exact μ-GDP curve (Dong, Roth & Su 2022, Cor. 2.13; rounded up)
gdp_delta = conversions.gdp_delta
#: the smallest ε with gdp_delta(μ, ε) ≤ δ (bisection, the conservative end; ∞ at δ = 0, μ > 0)
gdp_epsilon = conversions.gdp_epsilon


def composed_gdp_mu(ratios: Any) -> float:
    """μ = √(Σ_j r_j²) for releases with Δ_j/σ_j = r_j: the exact GDP of their (adaptive) composition."""
    total = 0.0
    for j, r in enumerate(ratios):
        r = check_positive(r, f"ratios[{j}]", allow_zero=True)
        total += r * r
    return math.sqrt(total)


def gaussian_event(mu: float) -> Any:
    """A ``dp_accounting`` event whose privacy-loss distribution under ADD_OR_REMOVE_ONE is exactly μ-GDP
    (``GaussianDpEvent(noise_multiplier=1/μ)``: sensitivity 1, standard deviation 1/μ); the claim that carries
    it states ``event_neighbouring="ADD_OR_REMOVE_ONE"`` because the shift μ is already the replace-one one."""
    from dp_accounting import dp_event

    return dp_event.GaussianDpEvent(1.0 / check_positive(mu, "mu"))


@dataclass(frozen=True)
class GaussianRelease:
    """One recorded Gaussian release: ``label`` (e.g. "anchor k=1"), ``sensitivity`` Δ (replace-one ℓ2),
    ``sigma`` σ (per-coordinate noise std), ``cost`` = Δ²/(2σ²) (zCDP ρ)."""

    label: str
    sensitivity: float
    sigma: float
    cost: float

    @property
    def gdp_mu(self) -> float:
        """Δ/σ."""
        return self.sensitivity / self.sigma

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "sensitivity": self.sensitivity, "sigma": self.sigma, "cost": self.cost}


@dataclass
class PrivacyLedger:
    """Records every Gaussian release of one run and refuses any release that would overshoot ``rho_total``.

    Usage: ``ledger.charge(label, sensitivity, sigma)`` *before* drawing the noise of the release; it raises
    :class:`PrivacyBudgetExceeded` (a ``ValueError``) if ``spent + Δ²/(2σ²) > rho_total`` (up to a 1e-9
    relative floating-point slack), and otherwise records the release.  The cost is a function of (Δ, σ) only,
    both fixed before the release, so the ledger is a valid privacy filter (Whitehouse et al. 2023, Thm 1): the
    whole transcript is ``rho_total``-zCDP and ``mu``-GDP with μ = √(2·spent) (exact for Gaussian releases).

    Attributes
    ----------
    rho_total : float > 0, the budget.
    releases : list of :class:`GaussianRelease`, in order.

    Raises ValueError / TypeError naming ``rho_total`` for a non-positive or non-finite budget.
    """

    rho_total: float
    releases: list[GaussianRelease] = field(default_factory=list)
    _partials: list[float] = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.rho_total = check_positive(self.rho_total, "rho_total")
        for r in self.releases:
            exact_sum_add(self._partials, r.cost)

    @property
    def spent(self) -> float:
        """Σ cost of the recorded releases (correctly rounded, = math.fsum of the costs)."""
        return math.fsum(self._partials)

    @property
    def remaining(self) -> float:
        """rho_total − spent (may be ≈ −1e-9·rho_total from rounding)."""
        return self.rho_total - self.spent

    @property
    def mu(self) -> float:
        """√(Σ (Δ/σ)²) = √(2·spent): the exact GDP of the recorded composition."""
        return composed_gdp_mu(r.gdp_mu for r in self.releases)

    def can_afford(self, sensitivity: float, sigma: float) -> bool:
        """Whether a release (Δ, σ) fits in the remaining budget (nothing is recorded)."""
        return self.spent + cached_gaussian_zcdp(sensitivity, sigma) <= self.rho_total * (1.0 + _BUDGET_RTOL)

    def charge(self, label: str, sensitivity: float, sigma: float) -> GaussianRelease:
        """Record a Gaussian release (Δ = ``sensitivity``, σ = ``sigma``) before its noise is drawn.

        Raises
        ------
        PrivacyBudgetExceeded
            The release would take the total above ``rho_total``; nothing is recorded.
        ValueError / TypeError
            ``sensitivity`` < 0, ``sigma`` ≤ 0 or not finite, or ``label`` not a string.
        """
        if not isinstance(label, str):
            raise TypeError(f"label must be a str, got {type(label).__name__}")
        cost = cached_gaussian_zcdp(sensitivity, sigma)
        if self.spent + cost > self.rho_total * (1.0 + _BUDGET_RTOL):
            raise PrivacyBudgetExceeded(
                f"release {label!r} (sensitivity {sensitivity:.6g}, sigma {sigma:.6g}) costs rho = {cost:.6g}; "
                f"spent {self.spent:.6g} of rho_total = {self.rho_total:.6g}: refused before the release")
        release = GaussianRelease(label, float(sensitivity), float(sigma), cost)
        self.releases.append(release)
        exact_sum_add(self._partials, cost)
        return release

    def epsilon(self, delta: float) -> float:
        """ε at δ of the recorded composition from its exact GDP curve (:func:`gdp_epsilon` at :attr:`mu`)."""
        mu = self.mu
        return 0.0 if mu == 0.0 else gdp_epsilon(mu, delta)

    def to_dict(self) -> dict[str, Any]:
        return {"rho_total": self.rho_total, "spent": self.spent, "mu": self.mu,
                "releases": [r.to_dict() for r in self.releases]}
