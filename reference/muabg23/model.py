"""The problem model of Menart, Ullah, Arora, Bassily & Guzmán (2023), arXiv:2311.13447 v2, §2: non-convex ERM.

A dataset is a matrix ``X`` of shape (n, p): **records are the rows of X** (x_i = X[i]), n is public, and
neighbouring datasets differ in one row (replace-one).  A per-sample loss f(w; x) maps a parameter
w ∈ R^d and a record x ∈ 𝒳 (the declared data domain) to a real; the empirical risk is
F(w; S) = (1/n) Σ_i f(w; x_i) (§2, "Problem").

:class:`NonconvexLoss` is the interface the muabg23 algorithms consume:

* ``values(w, X) -> (n,)`` and ``grads(w, X) -> (n, d)``: the per-sample losses and (sub)gradients;
  ``value`` / ``gradient`` are their means F(w; S), ∇F(w; S).
* ``dimension(p) -> d``: the parameter dimension for records with p columns.
* declared *public* constants (§2, "Assumptions"): ``lipschitz(region)`` = L_0 on a region (a
  :class:`dpsco.reference.domains.Ball` centred at 0, ``None`` = all of R^d; ``math.inf`` if f is not
  Lipschitz there), ``smoothness()`` = L_1 (``None`` if f is not smooth), ``weak_convexity()`` = \\tilde L_1
  (``None`` if unknown / not weakly convex; 0 for convex f).
* ``check_records(X)`` refuses data outside the declared domain 𝒳, so that the declared constants hold on
  every record and the privacy calibration (sensitivities 2L_0/n etc.) is valid.  It is the only place the
  algorithms look at the data before their noisy releases, and it never *chooses* a parameter from the data.

:class:`KLConstants` holds the paper's (γ, κ) of the (γ, κ)-KL condition, eq. (1):
F(w) − F* ≤ γ^κ ‖∇F(w)‖^κ (κ ≥ 1, γ > 0); PL (½‖∇F‖² ≥ μ(F − F*)) is κ = 2 with γ² = 1/(2μ).

:class:`LinearLoss` is f(w; x) = ⟨w, x⟩ on 𝒳 = {‖x‖ ≤ r}: L_0 = r, L_1 = 0, convex.  The auditors' worst-case
replace-one pairs use it (one record x = r·e_1 against x' = −r·e_1 moves the mean gradient by 2r/n, the full
replace-one ℓ2-sensitivity).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpsco.reference.clipping import row_norms
from dpsco.reference.domains import Ball, require_centred
from dpsco.reference.validation import as_float_matrix, as_float_vector, check_positive

__all__ = [
    "KLConstants",
    "LinearLoss",
    "NonconvexLoss",
    "rows_within_bound",
    "check_kl_constants",
    "check_loss",
    "check_point",
    "check_region",
]

#: Relative slack allowed on the data-domain norm bound (floating-point rounding of a record on the sphere).
DOMAIN_RTOL = 1e-12


def rows_within_bound(G: np.ndarray, bound: float) -> bool:
    """True when every row of G (last axis) is finite with ‖g‖ ≤ ``bound`` — then ``dpsco.reference.clipping``'s
    ``clip_rows`` and ``enforce_norm_bound`` leave G unchanged, and the hot loops of Algorithms 1-4 skip them.
    A one-pass test: the plain √(Σg²) against bound·(1 − 1e-9) when 1e-150 ≤ bound ≤ 1e150 (its rounding error
    is below 1e-12 relative for d ≤ 10⁶; gradual underflow of entries below 1.5e-154 changes Σg² by at most
    d·5e-324, far below the slack at these bounds; overflow gives inf and NaN fails, which send the rows to the
    exact, overflow-safe clipping), and the same test on G/bound for a bound outside that range (scale-free: a
    bound of 1e200 used to raise OverflowError on bound², and one of 1e-170 lost the test to underflow;
    independent review D5).  False is always safe (the caller then clips).  Call it under
    ``np.errstate(over="ignore", invalid="ignore")`` when G may hold huge or non-finite entries."""
    b = float(bound)
    if not 1e-150 <= b <= 1e150:
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            G, b = np.asarray(G, dtype=np.float64) / b, 1.0
    sq = np.einsum("...i,...i->...", G, G)
    limit = b * (1.0 - 1e-9)
    return bool(np.all(sq <= limit * limit))


def check_region(region: Any, name: str = "region") -> Ball | None:
    """``region`` if it is ``None`` (all of R^d) or a :class:`Ball` centred at 0; ``TypeError`` otherwise, and
    ``ValueError`` (naming ``name``) for a ball with a non-zero centre: the declared constants read its radius only."""
    if region is None:
        return region
    if isinstance(region, Ball):
        return require_centred(region, name, "Menart et al. 2023, §2")
    raise TypeError(f"{name} must be a dpsco.reference.domains.Ball or None (all of R^d), "
                    f"got {type(region).__name__}")


def check_point(w: Any, d: int, name: str = "w") -> np.ndarray:
    """``w`` as a finite float vector of shape (d,); ``TypeError``/``ValueError`` naming ``name`` otherwise."""
    return as_float_vector(w, name, length=d)


class NonconvexLoss(ABC):
    """A per-sample loss f(w; x) for ERM over records x = rows of X (n, p) (Menart et al. 2023, §2).

    Subclasses implement :meth:`values`, :meth:`grads`, :meth:`dimension` and declare the public constants
    :meth:`lipschitz`, :meth:`smoothness`, :meth:`weak_convexity`; the default :meth:`check_records` checks a
    finite (n, p) matrix with p = ``record_dimension`` (if declared) and row norms ≤ ``data_radius``
    (if declared); subclasses with another domain override it (and call it first).

    Attributes
    ----------
    name : str
        Short identifier (used in records and reports).
    record_dimension : int or None
        p, the number of columns every record must have (``None``: any p ≥ 1).
    data_radius : float or None
        r: every record must satisfy ‖x‖₂ ≤ r (``None``: no norm bound).
    """

    name: str = "loss"
    record_dimension: int | None = None
    data_radius: float | None = None

    # -- the loss --------------------------------------------------------------------------------------------
    @abstractmethod
    def dimension(self, p: int) -> int:
        """d, the parameter dimension for records with ``p`` columns."""

    @abstractmethod
    def values(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        """Per-sample losses f(w; x_i), shape (n,), for ``w`` of shape (d,) and ``X`` of shape (n, p)."""

    @abstractmethod
    def grads(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        """Per-sample (sub)gradients ∇f(w; x_i), shape (n, d)."""

    def value(self, w: np.ndarray, X: np.ndarray) -> float:
        """F(w; S) = (1/n) Σ_i f(w; x_i) (a float)."""
        return float(np.mean(self.values(w, X)))

    def gradient(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        """∇F(w; S) = (1/n) Σ_i ∇f(w; x_i), shape (d,)."""
        return np.mean(self.grads(w, X), axis=0)

    # -- declared public constants (§2 "Assumptions") --------------------------------------------------------
    @abstractmethod
    def lipschitz(self, region: Ball | None = None) -> float:
        """L_0: sup over x ∈ 𝒳 and w ∈ ``region`` (``None`` = R^d) of ‖∇f(w; x)‖; ``math.inf`` if unbounded."""

    @abstractmethod
    def smoothness(self) -> float | None:
        """L_1 (gradient Lipschitz constant, uniform over x ∈ 𝒳 and w ∈ R^d), or ``None`` if f is not smooth."""

    @abstractmethod
    def weak_convexity(self) -> float | None:
        """\\tilde L_1 (f + (\\tilde L_1/2)‖·‖² convex for every x ∈ 𝒳); 0 for convex f; ``None`` if unknown."""

    # -- the data domain ------------------------------------------------------------------------------------
    def check_records(self, X: Any, name: str = "X") -> np.ndarray:
        """``X`` as a finite float (n, p) matrix inside the declared domain 𝒳, else an error naming ``name``.

        Raises
        ------
        TypeError
            ``X`` not a real numeric array.
        ValueError
            wrong shape, NaN/inf, p ≠ ``record_dimension``, or a row with ‖x‖ > ``data_radius`` (the declared
            L_0, L_1 would not hold on it, and the privacy calibration would be wrong).
        """
        X = as_float_matrix(X, name)
        if self.record_dimension is not None and X.shape[1] != self.record_dimension:
            raise ValueError(f"{name} must have {self.record_dimension} columns (the records of {self.name}), "
                             f"got {X.shape[1]}")
        if self.data_radius is not None:
            # overflow/underflow-safe norms (dpsco.reference.clipping.row_norms): np.linalg.norm overflowed to inf
            # for an admissible record of norm > 1.34e154 and refused it — a refusal that depends on one record
            # (independent review D2) — and underflowed for tiny records, accepting up to ~3× the radius
            norms = row_norms(X)
            worst = int(np.argmax(norms))
            if norms[worst] / (1.0 + DOMAIN_RTOL) > self.data_radius:   # (no overflow of the radius near 1.8e308)
                raise ValueError(f"{name} has a record outside the data domain of {self.name}: row {worst} has "
                                 f"norm {norms[worst]:.6g} > {self.data_radius:.6g}")
        return X

    def describe(self) -> dict[str, Any]:
        """JSON-ready summary of the declared public constants."""
        return {"name": self.name, "L0": self.lipschitz(None), "L1": self.smoothness(),
                "weak_convexity": self.weak_convexity(), "data_radius": self.data_radius,
                "record_dimension": self.record_dimension}


def check_loss(loss: Any, name: str = "loss") -> NonconvexLoss:
    """``loss`` if it is a :class:`NonconvexLoss`; ``TypeError`` naming ``name`` otherwise."""
    if not isinstance(loss, NonconvexLoss):
        raise TypeError(f"{name} must be a dpsco.reference.muabg23.model.NonconvexLoss, got {type(loss).__name__}")
    return loss


class LinearLoss(NonconvexLoss):
    """f(w; x) = ⟨w, x⟩ on 𝒳 = {x ∈ R^p : ‖x‖ ≤ r}; d = p, L_0 = r on R^d, L_1 = 0, convex (\\tilde L_1 = 0).

    F is unbounded below (no minimiser) unless the mean record is 0: this loss is for privacy auditing
    (its per-sample gradient is the record itself, so a replace-one pair x ↔ x' moves ∇F by (x − x')/n,
    at most 2r/n), not for utility.

    Parameters
    ----------
    radius : float > 0, default 1
        r, the data-domain radius.

    Raises
    ------
    TypeError / ValueError
        ``radius`` not a finite real > 0.
    """

    def __init__(self, radius: float = 1.0) -> None:
        self.data_radius = check_positive(radius, "radius")
        self.name = "linear"

    def dimension(self, p: int) -> int:
        return int(p)

    def values(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        return np.asarray(X, dtype=np.float64) @ np.asarray(w, dtype=np.float64)

    def grads(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        return np.array(X, dtype=np.float64, copy=True)

    def lipschitz(self, region: Ball | None = None) -> float:
        check_region(region)
        return float(self.data_radius)

    def smoothness(self) -> float:
        return 0.0

    def weak_convexity(self) -> float:
        return 0.0


@dataclass(frozen=True)
class KLConstants:
    """The constants (γ, κ) of the (γ, κ)-KL condition (Menart et al. 2023, eq. (1) / Definition 1).

    F satisfies (γ, κ)-KL* on a set 𝒮 w.r.t. w' if F(w) − F(w') ≤ γ^κ ‖∇F(w)‖^κ for every w ∈ 𝒮.

    Parameters
    ----------
    gamma : float > 0
    kappa : float ≥ 1
        κ ∈ [1, 2] is the paper's §3 regime (Algorithm 1), κ ≥ 2 its §4 regime (Algorithm 2); κ = 2 is PL.

    Raises
    ------
    TypeError / ValueError
        ``gamma`` not a finite real > 0, ``kappa`` not a finite real ≥ 1.
    """

    gamma: float
    kappa: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "gamma", check_positive(self.gamma, "gamma"))
        kappa = check_positive(self.kappa, "kappa")
        if kappa < 1.0:
            raise ValueError(f"kappa must be >= 1 (the (gamma, kappa)-KL condition), got {kappa}")
        object.__setattr__(self, "kappa", kappa)

    @property
    def growth_exponent(self) -> float:
        """τ = κ/(κ − 1) of the matching (λ, τ)-growth (Lemma 7); ``math.inf`` for κ = 1."""
        return math.inf if self.kappa == 1.0 else self.kappa / (self.kappa - 1.0)

    @property
    def pl_mu(self) -> float | None:
        """μ of ½‖∇F‖² ≥ μ(F − F*) when κ = 2 (μ = 1/(2γ²)); ``None`` otherwise."""
        return 0.5 / self.gamma / self.gamma if self.kappa == 2.0 else None

    @classmethod
    def from_pl(cls, mu: float) -> "KLConstants":
        """(γ, 2) with γ = 1/√(2μ), for a μ-PL function (½‖∇F‖² ≥ μ(F − F*)); ``mu`` a finite real > 0."""
        mu = check_positive(mu, "mu")
        return cls(gamma=1.0 / math.sqrt(2.0 * mu), kappa=2.0)

    def gap_bound(self, grad_norm: float) -> float:
        """γ^κ ‖∇F(w)‖^κ: the KL bound on F(w) − F* given ‖∇F(w)‖ = ``grad_norm`` (≥ 0)."""
        g = check_positive(grad_norm, "grad_norm", allow_zero=True)
        try:
            return (self.gamma * g) ** self.kappa
        except OverflowError:              # the true bound exceeds double precision
            return math.inf

    def holds(self, gap: float, grad_norm: float, rtol: float = 0.0) -> bool:
        """True iff ``gap`` = F(w) − F* ≤ γ^κ ‖∇F(w)‖^κ · (1 + rtol)."""
        return float(gap) <= self.gap_bound(grad_norm) * (1.0 + rtol)

    def to_dict(self) -> dict[str, float]:
        return {"gamma": self.gamma, "kappa": self.kappa}


def check_kl_constants(kl: Any, name: str = "kl") -> KLConstants:
    """``kl`` if it is a :class:`KLConstants`; a ``(gamma, kappa)`` pair is converted; ``TypeError`` otherwise."""
    if isinstance(kl, KLConstants):
        return kl
    if isinstance(kl, tuple) and len(kl) == 2:
        return KLConstants(*kl)
    raise TypeError(f"{name} must be a KLConstants or a (gamma, kappa) pair, got {type(kl).__name__}")
