"""Trade-off curves implied by privacy claims (GDP, (ε, δ)-DP, zCDP, RDP, dp_accounting events).

A claim on a pair (S, S') bounds every test between P = M(S) and Q = M(S'): a rejection region with type-I
error α (false-positive rate under Q) has type-II error β (false-negative rate under P) at least f(α), the
claim's *trade-off curve* (Dong, Roth & Su 2022, "Gaussian differential privacy", JRSS-B 84(1), Def. 2.1):

* μ-GDP: f(α) = Φ(Φ⁻¹(1 − α) − μ) (ibid., Def. 2.7);
* (ε, δ)-DP: f(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)) (ibid., Prop. 2.5; Wasserman & Zhou 2010);
* a family of pairs (ε, δ(ε)), each valid: f = sup over ε of the (ε, δ(ε)) curves (ibid., Prop. 2.12: a
  mechanism that is (ε, δ(ε))-DP for every ε is f-DP with this supremum);
* ρ-zCDP (Bun & Steinke 2016): RDP curve a ↦ ρa, δ(ε) by the RDP → (ε, δ) conversion of Canonne, Kamath &
  Steinke 2020 (NeurIPS, arXiv 2004.00010, Prop. 12), the formula of ``dp_accounting.rdp.compute_delta``
  (with its Bretagnolle–Huber bound δ <= sqrt(1 − e^{−KL}) for small orders), vectorised here and tested
  equal to dp_accounting's function;
* an RDP curve given as orders and values: the same conversion over the given orders;
* a ``dp_accounting`` ``DpEvent``: δ(ε) from ``PLDAccountant(relation).compose(event).get_delta(ε)``
  (pessimistic discretisation: an upper bound on δ); events the PLD accountant does not support (e.g.
  ``ZCDpEvent``) through ``RdpAccountant`` over the zCDP order grid.

**Validity of the computed curve.**  Every δ(ε) used is an upper bound on the claim's true δ(ε) (each order
of the conversion gives a valid δ; a finite set of orders gives the minimum over fewer, i.e. a larger δ), and
the supremum is taken over a finite ε grid (a sup over fewer curves).  Both make the computed f pointwise
*lower* than (never above) the curve the claim implies: a box of (α, β) found below the computed curve is
below the true one, so refutations stay sound; only power is lost (docs/derivations.md#the-zcdp-trade-off-curve).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from dpsco.reference import conversions
from dpsco.reference.privacy import EVENT_RELATIONS, PrivacyClaim, event_to_dict

__all__ = [
    "CURVE_NOTIONS",
    "CurveClaim",
    "dp_tradeoff",
    "family_tradeoff",
    "gdp_tradeoff",
    "rdp_delta",
    "zcdp_delta",
    "zcdp_tradeoff",
]

CURVE_NOTIONS: tuple[str, ...] = ("GDP", "zCDP", "approx-DP", "RDP", "event")

#: orders of the zCDP conversion (the core's: dpsco.reference.conversions.ZCDP_ORDERS)
ZCDP_ORDERS = conversions.ZCDP_ORDERS
#: ε grid size of the supremum over (ε, δ(ε)) curves, and the δ below which larger ε are not needed
N_EPSILON_GRID = 512
#: the smaller grid of dp_accounting events (each PLD δ(ε) costs ~10 ms), and their PLD discretisation
N_EPSILON_GRID_EVENT = 96
EVENT_DISCRETISATION = 1e-3
DELTA_FLOOR = 1e-18


def _alpha(alpha: Any) -> np.ndarray:
    a = np.asarray(alpha, dtype=np.float64)
    if np.any(~(a >= 0.0) | ~(a <= 1.0)):
        raise ValueError("alpha must lie in [0, 1]")
    return a


def _out(x: np.ndarray) -> float | np.ndarray:
    return float(x) if np.ndim(x) == 0 else x


def _nonneg(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    v = float(value)
    if not (math.isfinite(v) and v >= 0.0):
        raise ValueError(f"{name} must be finite and >= 0, got {value!r}")
    return v


def gdp_tradeoff(alpha: Any, mu: float) -> float | np.ndarray:
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (Dong, Roth & Su 2022, Def. 2.7).  α in [0, 1] (arrays); μ >= 0."""
    m = _nonneg(mu, "mu")
    a = _alpha(alpha)
    return _out(ndtr(ndtri(1.0 - a) - m))


def dp_tradeoff(alpha: Any, epsilon: float, delta: float) -> float | np.ndarray:
    """f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)) (Dong, Roth & Su 2022, Prop. 2.5).

    α in [0, 1] (arrays); ε >= 0; δ in [0, 1].
    """
    e = _nonneg(epsilon, "epsilon")
    d = _nonneg(delta, "delta")
    if d > 1.0:
        raise ValueError(f"delta must lie in [0, 1], got {delta!r}")
    a = _alpha(alpha)
    with np.errstate(over="ignore", invalid="ignore"):
        v = np.maximum(np.maximum(0.0, 1.0 - d - math.exp(e) * a), math.exp(-e) * (1.0 - d - a))
    return _out(v)


def family_tradeoff(alpha: Any, epsilons: Any, deltas: Any) -> float | np.ndarray:
    """sup over the pairs (ε_i, δ_i) of f_{ε_i, δ_i}(α): the curve implied by all the pairs together
    (Dong, Roth & Su 2022, Prop. 2.12).  ``epsilons``, ``deltas``: 1-D arrays of equal length, ε >= 0,
    δ in [0, 1]; α in [0, 1] (arrays)."""
    e = np.asarray(epsilons, dtype=np.float64).reshape(-1)
    d = np.asarray(deltas, dtype=np.float64).reshape(-1)
    if e.shape != d.shape or e.size == 0:
        raise ValueError("epsilons and deltas must be non-empty 1-D arrays of equal length")
    if np.any(~(e >= 0)) or np.any(~(d >= 0) | ~(d <= 1)):
        raise ValueError("epsilons must be >= 0 and deltas in [0, 1]")
    a = _alpha(alpha)
    aa = a[..., None]
    with np.errstate(over="ignore", invalid="ignore"):
        v = np.maximum(np.maximum(0.0, 1.0 - d - np.exp(e) * aa), np.exp(-e) * (1.0 - d - aa))
    v = np.where(np.isnan(v), 0.0, v)
    return _out(v.max(axis=-1))


#: δ(ε) of an RDP curve (Canonne, Kamath & Steinke 2020, Prop. 12; dp_accounting.rdp.compute_delta's formula),
#: rounded up: the core ``dpsco.reference.conversions.rdp_delta``
rdp_delta = conversions.rdp_delta
#: δ(ε) of ρ-zCDP by rdp_delta over ZCDP_ORDERS, rounded up: the core ``dpsco.reference.conversions.zcdp_delta``
zcdp_delta = conversions.zcdp_delta


def _epsilon_grid(delta_of: Any, start: float = 1.0, size: int = N_EPSILON_GRID) -> np.ndarray:
    """ε grid [0, ε_max] with δ(ε_max) <= DELTA_FLOOR (or ε_max = 60), ``size`` points."""
    hi = start
    while hi < 60.0 and float(delta_of(hi)) > DELTA_FLOOR:
        hi *= 1.5
    return np.linspace(0.0, min(hi, 60.0), size)


def zcdp_tradeoff(alpha: Any, rho: float) -> float | np.ndarray:
    """The trade-off curve implied by ρ-zCDP through its (ε, δ(ε)) pairs (:func:`zcdp_delta` on an ε grid;
    :func:`family_tradeoff`): pointwise below the curve the claim implies (module docstring)."""
    p = _nonneg(rho, "rho")
    grid = _epsilon_grid(lambda e: zcdp_delta(e, p), 1.0 + p)
    return family_tradeoff(alpha, grid, zcdp_delta(grid, p))


@dataclass(frozen=True)
class CurveClaim:
    """A privacy claim as a trade-off curve (:meth:`tradeoff`).

    Attributes
    ----------
    notion : "GDP" | "zCDP" | "approx-DP" | "RDP" | "event"
    mu : GDP μ >= 0.  rho : zCDP ρ >= 0.  epsilon, delta : (ε, δ) of approx-DP (pure DP: δ = 0).
    orders, rdp : tuples of the RDP curve (orders >= 1, values >= 0).
    event, event_neighbouring : a dp_accounting ``DpEvent`` and its ``NeighboringRelation`` name.
    neighbouring : "replace-one" | "add/remove", the relation the claim is for; source : str.

    Build with :meth:`gdp`, :meth:`zcdp`, :meth:`approx`, :meth:`rdp_curve`, :meth:`from_event` or
    :meth:`from_privacy_claim`.  Raises ValueError/TypeError naming the bad parameter.
    """

    notion: str
    mu: float | None = None
    rho: float | None = None
    epsilon: float | None = None
    delta: float | None = None
    orders: tuple[float, ...] | None = None
    rdp: tuple[float, ...] | None = None
    event: Any = None
    event_neighbouring: str | None = None
    neighbouring: str = "replace-one"
    source: str = "user-declared"

    def __post_init__(self) -> None:
        if self.notion not in CURVE_NOTIONS:
            raise ValueError(f"notion must be one of {CURVE_NOTIONS}, got {self.notion!r}")
        if self.notion == "GDP":
            object.__setattr__(self, "mu", _nonneg(self.mu, "mu"))
        elif self.notion == "zCDP":
            object.__setattr__(self, "rho", _nonneg(self.rho, "rho"))
        elif self.notion == "approx-DP":
            object.__setattr__(self, "epsilon", _nonneg(self.epsilon, "epsilon"))
            d = _nonneg(self.delta, "delta")
            if d >= 1.0:
                raise ValueError(f"delta must lie in [0, 1), got {self.delta!r}")
            object.__setattr__(self, "delta", d)
        elif self.notion == "RDP":
            if self.orders is None or self.rdp is None:
                raise ValueError("an RDP claim needs orders and rdp")
            o = tuple(float(x) for x in np.asarray(self.orders, dtype=np.float64).reshape(-1))
            r = tuple(float(x) for x in np.asarray(self.rdp, dtype=np.float64).reshape(-1))
            rdp_delta(0.0, o, r)  # validates
            object.__setattr__(self, "orders", o)
            object.__setattr__(self, "rdp", r)
        else:
            event_to_dict(self.event)  # TypeError unless a DpEvent
            if self.event_neighbouring not in EVENT_RELATIONS:
                raise ValueError(f"event_neighbouring must be one of {EVENT_RELATIONS}, got {self.event_neighbouring!r}")
        object.__setattr__(self, "_cache", {})

    @classmethod
    def gdp(cls, mu: float, **kw: Any) -> "CurveClaim":
        return cls("GDP", mu=mu, **kw)

    @classmethod
    def zcdp(cls, rho: float, **kw: Any) -> "CurveClaim":
        return cls("zCDP", rho=rho, **kw)

    @classmethod
    def approx(cls, epsilon: float, delta: float, **kw: Any) -> "CurveClaim":
        return cls("approx-DP", epsilon=epsilon, delta=delta, **kw)

    @classmethod
    def rdp_curve(cls, orders: Any, rdp: Any, **kw: Any) -> "CurveClaim":
        return cls("RDP", orders=orders, rdp=rdp, **kw)

    @classmethod
    def from_event(cls, event: Any, event_neighbouring: str, **kw: Any) -> "CurveClaim":
        return cls("event", event=event, event_neighbouring=event_neighbouring, **kw)

    @classmethod
    def from_privacy_claim(cls, claim: PrivacyClaim, use_event: bool = False) -> "CurveClaim":
        """GDP → μ, zCDP → ρ, approx-DP/pure-DP → (ε, δ); with ``use_event`` (or when the claim's μ/ρ is
        missing) the attached dp_accounting event.  ValueError for notion "none" or nothing to use."""
        if not isinstance(claim, PrivacyClaim):
            raise TypeError(f"claim must be a PrivacyClaim, got {type(claim).__name__}")
        kw = {"neighbouring": claim.neighbouring, "source": claim.source}
        if use_event or (claim.notion == "GDP" and claim.mu is None) or (claim.notion == "zCDP" and claim.rho is None):
            if claim.event is None:
                raise ValueError(f"claim ({claim.notion}) has no parameter or event to build a curve from")
            return cls.from_event(claim.event, str(claim.event_neighbouring), **kw)
        if claim.notion == "GDP":
            return cls.gdp(float(claim.mu), **kw)  # type: ignore[arg-type]
        if claim.notion == "zCDP":
            return cls.zcdp(float(claim.rho), **kw)  # type: ignore[arg-type]
        if claim.notion in ("approx-DP", "pure-DP"):
            return cls.approx(claim.epsilon, claim.delta, **kw)
        raise ValueError(f"claim notion {claim.notion!r} carries no privacy curve")

    def delta_of_epsilon(self, epsilon: Any) -> float | np.ndarray:
        """δ(ε) of the claim (an upper bound), for the family notions zCDP, RDP and event (ε >= 0, arrays)."""
        if self.notion == "zCDP":
            return zcdp_delta(epsilon, float(self.rho))  # type: ignore[arg-type]
        if self.notion == "RDP":
            return rdp_delta(epsilon, self.orders, self.rdp)
        if self.notion == "event":
            from dp_accounting import NeighboringRelation
            from dp_accounting.pld import PLDAccountant

            from dp_accounting.rdp import RdpAccountant

            cache: dict[str, Any] = self._cache  # type: ignore[attr-defined]
            if "accountant" not in cache:
                relation = NeighboringRelation[self.event_neighbouring]
                acc = PLDAccountant(relation, value_discretization_interval=EVENT_DISCRETISATION)
                pld_knows_event = PLDAccountant(NeighboringRelation.ADD_OR_REMOVE_ONE).supports(self.event)
                if not acc.supports(self.event) and not pld_knows_event:
                    # an event type the PLD accountant lacks (e.g. ZCDpEvent): the RDP accountant (CKS20 Prop. 12
                    # conversion over the zCDP order grid).  An event the PLD accountant knows but refuses under
                    # this relation (e.g. LaplaceDpEvent under REPLACE_ONE) is refused: dp_accounting's RDP
                    # accountant would read the relation with another sensitivity convention, and a curve
                    # stronger than the claim meant could refute a true claim.
                    rdp_acc = RdpAccountant(orders=[float(o) for o in ZCDP_ORDERS], neighboring_relation=relation)
                    if rdp_acc.supports(self.event):
                        acc = rdp_acc
                acc.compose(self.event)
                cache["accountant"] = acc
            acc = cache["accountant"]
            e = np.asarray(epsilon, dtype=np.float64)
            return _out(np.vectorize(lambda x: min(1.0, float(acc.get_delta(float(x)))))(e))
        raise ValueError(f"notion {self.notion!r} is not given as a family of (epsilon, delta) pairs")

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """The (ε grid, δ(ε)) pairs whose curves' supremum is :meth:`tradeoff` (family notions; cached)."""
        cache: dict[str, Any] = self._cache  # type: ignore[attr-defined]
        if "pairs" not in cache:
            size = N_EPSILON_GRID_EVENT if self.notion == "event" else N_EPSILON_GRID
            grid = _epsilon_grid(self.delta_of_epsilon, 1.0, size)
            cache["pairs"] = (grid, np.asarray(self.delta_of_epsilon(grid), dtype=np.float64))
        return cache["pairs"]

    def tradeoff(self, alpha: Any) -> float | np.ndarray:
        """f(α) of the claim (α in [0, 1], arrays), never above the curve the claim implies."""
        if self.notion == "GDP":
            return gdp_tradeoff(alpha, float(self.mu))  # type: ignore[arg-type]
        if self.notion == "approx-DP":
            return dp_tradeoff(alpha, float(self.epsilon), float(self.delta))  # type: ignore[arg-type]
        eps, dl = self.pairs()
        return family_tradeoff(alpha, eps, dl)

    def parameters(self) -> dict[str, Any]:
        """The claim's notion and parameters as JSON-able data."""
        d: dict[str, Any] = {"notion": self.notion, "neighbouring": self.neighbouring, "source": self.source}
        if self.notion == "GDP":
            d["mu"] = self.mu
        elif self.notion == "zCDP":
            d["rho"] = self.rho
        elif self.notion == "approx-DP":
            d.update(epsilon=self.epsilon, delta=self.delta)
        elif self.notion == "RDP":
            d.update(orders=list(self.orders or ()), rdp=list(self.rdp or ()))
        else:
            d.update(event=event_to_dict(self.event), event_neighbouring=self.event_neighbouring)
        return d

    to_dict = parameters

    def describe(self) -> str:
        if self.notion == "GDP":
            return f"{self.mu:g}-GDP"
        if self.notion == "zCDP":
            return f"{self.rho:g}-zCDP"
        if self.notion == "approx-DP":
            return f"({self.epsilon:g}, {self.delta:g})-DP"
        if self.notion == "RDP":
            return f"RDP curve on {len(self.orders or ())} orders"
        return f"dp_accounting event {type(self.event).__name__} ({self.event_neighbouring})"
