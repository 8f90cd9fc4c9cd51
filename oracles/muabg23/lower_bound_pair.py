"""The Theorem 8 lower-bound pair of Menart et al. (2023, App. C.3): two datasets and their losses, whose excess
any ρ-zCDP algorithm must pay on one of them (``kl_instances`` re-exports it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpsco.reference.validation import check_positive, check_positive_int

__all__ = ["Theorem8Pair"]


# --------------------------------------------------------------------------------------------------------------
# Theorem 8 (App. C.3) lower-bound pair, reconstructed
# --------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Theorem8Pair:
    """The 1-D pair of Menart et al. (2023), Theorem 8 (App. C.3; after Asi, Lei & Duchi 2021, Theorem 5) —
    **reconstructed**: the seed text lacks the formulas, and the construction below is the one the proof
    describes in words (data space {−1, +1}, S with a (1 + r)/2 fraction of +1's, S' with (1 − r)/2, nr = 1/ε
    differing records, minimisers ±a).

    With τ = κ/(κ − 1) ∈ (1, 2] (κ ≥ 2), r = 1/(nε) and a = r^{1/(τ−1)}/2 = (nε)^{−(κ−1)}/2:
    f(w; +1) = a − w for w ≤ a, (w − a)^τ for w > a;  f(w; −1) = (−a − w)^τ for w ≤ −a, w + a for w > −a.
    (f(·; +1) as reconstructed is |w − a| on the left; see ``tests/muabg23/test_muabg23_instances.py`` for the
    certified minimisers and KL constants.)  F_S has its unique minimiser at +a (F_S' = −r on (−a, a) and the
    right derivative at a is (1 − r)/2 > 0), F_S' at −a by symmetry, F*_S = F*_S' = (1 − r)a, and
    |w*_S − w*_S'| = 2a = (nε)^{−(κ−1)}.  Records are (n, 1) arrays of ±1; ``k = 1/ε`` must be an integer with
    n + k even and k ≤ n.

    Parameters
    ----------
    n : int ≥ 1
    k : int ≥ 1, the group distance 1/ε (so ε = 1/k)
    kappa : float ≥ 2
    """

    n: int
    k: int
    kappa: float

    def __post_init__(self) -> None:
        n = check_positive_int(self.n, "n")
        k = check_positive_int(self.k, "k")
        kappa = check_positive(self.kappa, "kappa")
        if kappa < 2.0:
            raise ValueError(f"kappa must be >= 2 (Theorem 8's regime), got {kappa}")
        if k > n or (n + k) % 2:
            raise ValueError(f"k must satisfy k <= n and n + k even (got n = {n}, k = {k})")

    @property
    def epsilon(self) -> float:
        return 1.0 / self.k

    @property
    def tau(self) -> float:
        return self.kappa / (self.kappa - 1.0)

    @property
    def r(self) -> float:
        return self.k / self.n

    @property
    def a(self) -> float:
        return 0.5 * self.r ** (1.0 / (self.tau - 1.0))

    def datasets(self) -> tuple[np.ndarray, np.ndarray]:
        """(S, S'): (n, 1) arrays; S has (n + k)/2 records +1, S' has (n − k)/2; they differ in k records."""
        plus_s, plus_t = (self.n + self.k) // 2, (self.n - self.k) // 2
        S = np.concatenate([np.ones(plus_s), -np.ones(self.n - plus_s)])[:, None]
        T = np.concatenate([np.ones(plus_t), -np.ones(self.n - plus_t)])[:, None]
        return S, T

    def values(self, w: float, X: np.ndarray) -> np.ndarray:
        a, tau = self.a, self.tau
        x = np.asarray(X, dtype=np.float64)[:, 0]
        plus = np.where(w <= a, a - w, abs(w - a) ** tau)
        minus = np.where(w <= -a, abs(w + a) ** tau, w + a)
        return np.where(x > 0, plus, minus)

    def risk(self, w: Any, X: np.ndarray) -> np.ndarray:
        """F(w; X) for a scalar or an array of points ``w``."""
        w_arr = np.atleast_1d(np.asarray(w, dtype=np.float64))
        frac = float(np.mean(np.asarray(X)[:, 0] > 0))
        a, tau = self.a, self.tau
        plus = np.where(w_arr <= a, a - w_arr, np.abs(w_arr - a) ** tau)
        minus = np.where(w_arr <= -a, np.abs(w_arr + a) ** tau, w_arr + a)
        out = frac * plus + (1.0 - frac) * minus
        return out if np.ndim(w) else out[0]

    def derivative(self, w: Any, X: np.ndarray) -> np.ndarray:
        """F'(w; X) (right derivative at the kinks ±a)."""
        w_arr = np.atleast_1d(np.asarray(w, dtype=np.float64))
        frac = float(np.mean(np.asarray(X)[:, 0] > 0))
        a, tau = self.a, self.tau
        plus = np.where(w_arr < a, -1.0, tau * np.abs(w_arr - a) ** (tau - 1.0))
        minus = np.where(w_arr < -a, -tau * np.abs(w_arr + a) ** (tau - 1.0), 1.0)
        out = frac * plus + (1.0 - frac) * minus
        return out if np.ndim(w) else out[0]

    def minimisers(self) -> tuple[float, float]:
        """(w*_S, w*_S') = (a, −a) (certified: F_S is convex, decreasing on (−∞, a), increasing on (a, ∞))."""
        return self.a, -self.a

    def minimum(self) -> float:
        """F*_S = F*_S' = (1 − r)a."""
        return (1.0 - self.r) * self.a

    def excess(self, w: Any, which: str = "S") -> np.ndarray:
        """F(w; S) − F*_S (``which="S"``) or F(w; S') − F*_S' (``which="S'"``)."""
        S, T = self.datasets()
        X = S if which == "S" else T
        if which not in ("S", "S'"):
            raise ValueError(f"which must be 'S' or \"S'\", got {which!r}")
        return self.risk(w, X) - self.minimum()
