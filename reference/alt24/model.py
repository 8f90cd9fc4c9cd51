"""The heavy-tailed private SCO problem of Asi, Liu & Tian (2024), Section 2: a loss f(x; s) over records s,
a compact convex domain X = B(0, R), and the public moment bounds G_1 ≤ … ≤ G_k of the sample Lipschitz
constants (Assumption 1; Assumption 2 adds a known per-sample bound L̄_s ≥ L_s).

Nothing here looks at private data except the per-sample maps (``grads``, ``values``, ``lipschitz_bound``),
which the algorithms call on their own records.  Declared constants (G_j, β, μ) are public inputs: the
algorithms never estimate them from the data.

Records are rows of an (n, p) float array S; the parameter x has dimension ``loss.dimension(p)`` (p for the
linear loss and mean estimation, p − 1 for regression records [a, b]).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpsco.reference.clipping import clip_rows
from dpsco.reference.validation import as_float_matrix, check_positive

__all__ = ["HeavyTailedLoss", "MomentBounds", "check_records", "grads_at"]


@dataclass(frozen=True)
class MomentBounds:
    """Public moment bounds of the sample Lipschitz constants L_s (Assumption 1): E[L_s^j] ≤ G_j^j, j ∈ [k].

    k : int ≥ 2 (the moment order);  G : (G_1, …, G_k), each > 0 and finite.  Jensen makes the bounds
    non-decreasing without loss of generality; a decreasing sequence is refused (it contradicts Jensen), so a
    caller's slip is caught.

    Raises ValueError / TypeError naming the field.
    """

    k: int
    G: tuple[float, ...]

    def __post_init__(self) -> None:
        if isinstance(self.k, bool) or not isinstance(self.k, (int, np.integer)):
            raise TypeError(f"k must be an integer >= 2, got {self.k!r}")
        if int(self.k) < 2:
            raise ValueError(f"k must be an integer >= 2 (Assumption 1), got {self.k}")
        G = tuple(check_positive(g, f"G[{j + 1}]") for j, g in enumerate(self.G))
        if len(G) != int(self.k):
            raise ValueError(f"G must hold G_1..G_k, k = {self.k} values, got {len(G)}")
        for j in range(1, len(G)):
            if G[j] < G[j - 1] * (1 - 1e-12):
                raise ValueError(f"G must be non-decreasing (Jensen: G_j ≤ G_{{j+1}}), got G_{j} = {G[j - 1]} > "
                                 f"G_{j + 1} = {G[j]}")
        object.__setattr__(self, "k", int(self.k))
        object.__setattr__(self, "G", G)

    def G_j(self, j: int) -> float:
        """G_j for j ∈ [k]."""
        if not 1 <= j <= self.k:
            raise ValueError(f"j must be in [1, {self.k}], got {j}")
        return self.G[j - 1]

    @property
    def G_1(self) -> float:
        return self.G[0]

    @property
    def G_2(self) -> float:
        return self.G[1]

    @property
    def G_k(self) -> float:
        return self.G[-1]

    def to_dict(self) -> dict[str, Any]:
        return {"k": self.k, "G": list(self.G)}


class HeavyTailedLoss:
    """A convex per-sample loss f(x; s) with per-sample gradients (the paper's f(·; s), Assumption 1).

    Subclasses implement ``grads``, ``values``, ``dimension`` and, where known, ``lipschitz_bound``
    (Assumption 2's L̄_s, a deterministic function of s valid on the whole domain), ``smoothness`` (a β valid
    for *every* record, or None) and ``strong_convexity`` (μ of every f(·; s), 0 if none).  ``glm`` marks a
    generalised linear model f(x; s) = σ(⟨s, x⟩) (Section 6, (23)).

    Shapes: x (d,) float array; S (n, p) float array of records.
    """

    name: str = "loss"
    glm: bool = False

    def dimension(self, p: int) -> int:
        """Dimension d of x for records with p columns."""
        return p

    def grads(self, x: np.ndarray, S: np.ndarray) -> np.ndarray:
        """(n, d) per-sample gradients ∇f(x; s_i) (any subgradient where f is not differentiable)."""
        raise NotImplementedError

    def values(self, x: np.ndarray, S: np.ndarray) -> np.ndarray:
        """(n,) per-sample losses f(x; s_i)."""
        raise NotImplementedError

    def lipschitz_bound(self, S: np.ndarray, radius: float) -> np.ndarray:
        """(n,) known Lipschitz bounds L̄_s ≥ max_{‖x‖ ≤ radius} ‖∇f(x; s)‖ (Assumption 2)."""
        raise NotImplementedError(f"{self.name}: no known per-sample Lipschitz bound (Assumption 2)")

    def smoothness(self, radius: float) -> float | None:
        """β with ‖∇f(x; s) − ∇f(x'; s)‖ ≤ β‖x − x'‖ for every record s, or None (not uniformly smooth)."""
        return None

    def strong_convexity(self) -> float:
        """μ ≥ 0 with every f(·; s) μ-strongly convex."""
        return 0.0

    def check_declared(self, S: np.ndarray) -> None:
        """Refuse (ValueError) a record that breaks a constant the loss declares (e.g. ‖a‖ ≤ a_max, on which a
        declared smoothness rests).  Called by :func:`check_records`, so every algorithm runs it on all its records
        before any noise is drawn.  Default: nothing is declared, every finite record is admissible."""

    def clipped_grads_at(self, X: np.ndarray, S: np.ndarray, C: float) -> np.ndarray:
        """(R, n, d) clipped per-sample gradients Π_C(∇f(x_r; s_i)) at R points X (R, d), with ‖·‖ ≤ C guaranteed
        in floating point (the ℓ2 clip Π_C(v) = v·min(1, C/‖v‖) of Section 1.1).

        Default: the gradients of :func:`grads_at` clipped by ``dpsco.reference.clipping.clip_rows`` (norms
        computed overflow-safe; a gradient that overflowed to ±inf goes to C times its limit direction, one with
        a NaN to 0).  Losses whose gradient is a product that can overflow on finite records override this with
        an exact scaled form (``dpsco.reference.alt24.losses``)."""
        with np.errstate(over="ignore", invalid="ignore"):
            G = grads_at(self, np.atleast_2d(np.asarray(X, dtype=np.float64)), S)
        return clip_rows(G, C)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "glm": self.glm}


def grads_at(loss: HeavyTailedLoss, X: np.ndarray, S: np.ndarray) -> np.ndarray:
    """(R, n, d) per-sample gradients ∇f(x_r; s_i) at R points X (R, d): the loss's ``grads_batch`` when it has
    one; for a GLM f(x; s) = σ(⟨s, x⟩) with ``link_derivative`` (σ'), σ'(⟨s_i, x_r⟩)·s_i for all rows at once
    (after one ``grads`` call at the first point, which runs the loss's own record checks); else one ``grads``
    call per point."""
    batch = getattr(loss, "grads_batch", None)
    if callable(batch):
        return np.asarray(batch(X, S), dtype=np.float64)
    X = np.asarray(X, dtype=np.float64)
    link_derivative = getattr(loss, "link_derivative", None)
    if loss.glm and callable(link_derivative) and X.shape[0] > 1 and loss.dimension(S.shape[1]) == S.shape[1]:
        first = np.asarray(loss.grads(X[0], S), dtype=np.float64)
        out = np.asarray(link_derivative(X[1:] @ S.T), dtype=np.float64)[:, :, None] * S[None, :, :]
        return np.concatenate([first[None], out], axis=0)
    return np.stack([np.asarray(loss.grads(x, S), dtype=np.float64) for x in X])


def check_records(S: Any, loss: HeavyTailedLoss, name: str = "S") -> tuple[np.ndarray, int]:
    """``S`` as a finite (n, p) float array with n ≥ 1, and the dimension d of x; every record is checked against
    the loss's declared constants (``loss.check_declared``).  The data checks of every algorithm of this package:
    they run before any noise is drawn, and a record that passes them is admissible — the algorithm then
    returns a finite release on it, whatever its magnitude.  Raises ValueError / TypeError naming ``name`` for
    NaN/inf, a wrong shape, an empty dataset or a record outside the loss's declared range."""
    S = as_float_matrix(S, name)
    d = loss.dimension(S.shape[1])
    if d < 1:
        raise ValueError(f"{name} has {S.shape[1]} columns: too few for the loss {loss.name}")
    loss.check_declared(S)
    return S, d
