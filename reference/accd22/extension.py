"""Per-sample convex losses and their Lipschitzian extensions (Asi, Chadha, Cheng & Duchi 2022, Definition 2.5,
eq. (2), Lemma 2.1, Algorithm 1 line 1):

    F_L(x; s) = inf_y { F(y; s) + L‖x − y‖₂ }.

Every loss here has a closed-form extension (derivations in ``docs/derivations.md``, section "Lipschitzian
extensions in closed form"), evaluated *exactly*, never by gradient clipping except where the two provably
coincide:

* GLM losses F(x; (a, y)) = h(⟨a, x⟩; y): F_L = h_M(⟨a, x⟩) with M = L/‖a‖ and h_M the one-dimensional extension
  (h on the interval where |h'| ≤ M, affine with slope ±M outside); ∇F_L = clip(h', −M, M)·a, which *is* ℓ2
  gradient clipping at L.  Squared loss (½·Huber), squared hinge, logistic and power losses.
* the radial loss (h/2)‖x − s‖²: F_L = (h/2)r² for hr ≤ L, Lr − L²/(2h) beyond; again clipping.
* the diagonal quadratic ½(x − c)ᵀdiag(u)(x − c) (not a GLM, not radial): when ‖U(x − c)‖ > L the minimiser
  y(x) = x − (U + τI)^{−1}U(x − c) with τ > 0 solving τ‖(U + τI)^{−1}U(x − c)‖ = L (found by bisection to machine
  precision), ∇F_L(x) = τ(x − y(x)) and F_L(x) = F(y(x)) + L‖x − y(x)‖.  Here clipping is *not* the extension's
  gradient (:meth:`DiagonalQuadraticLoss.clipped_grad` is kept for the planted bug that uses it).

Records are float arrays Z of shape (n, p): GLM records Z = [a, y] (p = d + 1), radial records Z = [s, h]
(p = d + 1, h ≥ 0), diagonal-quadratic records Z = [c, u] (p = 2d, u ≥ 0).  Points are X of shape (R, d) (R
independent iterates at once, the replicate axis); values are (R, n) and gradients (R, n, d).

Lemma 2.1: F_L is convex and L-Lipschitz on all of R^d, F_L = F where F is L-Lipschitz, and ∇F_L(x) = ∇F(x) when
‖∇F(x)‖ ≤ L.  F_L is H-smooth when F is (its conjugate F* + ι_{‖·‖ ≤ L} is (1/H)-strongly convex), which keeps the
regularised ERMs of Algorithm 4 smooth and strongly convex.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
from scipy.special import expit

from dpsco.reference.validation import check_positive

__all__ = ["ConvexLoss", "GLMLoss", "SquaredLoss", "SquaredHingeLoss", "LogisticLoss", "PowerLoss",
           "SquaredDistanceLoss", "DiagonalQuadraticLoss", "check_records", "clip_rows"]


def check_records(Z: object, loss: "ConvexLoss", d: int | None = None, name: str = "Z") -> np.ndarray:
    """Z as a finite (n, p) float array with the record width the loss expects (p from ``loss.width(d)``).
    Raises TypeError / ValueError naming ``name``: not numeric, NaN/inf, wrong shape, empty."""
    try:
        A = np.asarray(Z, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a numeric (n, p) array") from None
    if A.ndim != 2:
        raise ValueError(f"{name} must be a 2-D (n, p) array of records, got shape {A.shape}")
    if A.shape[0] == 0:
        raise ValueError(f"{name} is empty: the dataset needs at least one record")
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if d is not None and A.shape[1] != loss.width(d):
        raise ValueError(f"{name} must have {loss.width(d)} columns for {type(loss).__name__} in dimension {d}, "
                         f"got {A.shape[1]}")
    loss.check(A, name)
    return A


def clip_rows(G: np.ndarray, L: float) -> np.ndarray:
    """Each gradient (last axis) scaled by min(1, L/‖g‖): ℓ2 clipping at L."""
    norms = np.linalg.norm(G, axis=-1, keepdims=True)
    return G * np.minimum(1.0, L / np.maximum(norms, 1e-300))


class ConvexLoss(ABC):
    """A family of convex per-sample losses F(·; s) with a closed-form Lipschitzian extension.

    ``value``/``grad`` evaluate F and ∇F; ``extended_value``/``extended_grad`` evaluate F_L and ∇F_L (eq. (2));
    ``extension_smoothness`` bounds the smoothness of F_L for each record (used to certify Algorithm 4's inner
    solver: the caller's declared H is checked against it).  ``glm`` is True where ∇F_L is ℓ2 clipping of ∇F."""

    glm: bool = False

    @abstractmethod
    def dim(self, Z: np.ndarray) -> int:
        """Dimension d of the parameter for records Z."""

    @abstractmethod
    def width(self, d: int) -> int:
        """Record width p for dimension d."""

    def check(self, Z: np.ndarray, name: str) -> None:
        """Raise ValueError (naming ``name``) for records outside the family (e.g. negative curvatures)."""

    @abstractmethod
    def value(self, X: np.ndarray, Z: np.ndarray) -> np.ndarray:
        """F(x_r; s_j): (R, n) for X (R, d)."""

    @abstractmethod
    def grad(self, X: np.ndarray, Z: np.ndarray) -> np.ndarray:
        """∇F(x_r; s_j): (R, n, d)."""

    @abstractmethod
    def extended_value(self, X: np.ndarray, Z: np.ndarray, L: float) -> np.ndarray:
        """F_L(x_r; s_j): (R, n)."""

    @abstractmethod
    def extended_grad(self, X: np.ndarray, Z: np.ndarray, L: float) -> np.ndarray:
        """∇F_L(x_r; s_j): (R, n, d)."""

    @abstractmethod
    def extension_smoothness(self, Z: np.ndarray, L: float) -> np.ndarray:
        """An upper bound of the smoothness constant of F_L(·; s_j) on R^d, for each record: (n,)."""

    def smoothness_bound(self, L: float) -> float | None:
        """A public bound of the smoothness of every F_L(·; s) of the family when it grows with L (from the loss's
        declared parameters, e.g. ``PowerLoss.a_max``), or None where the caller's declared H bounds it for every L
        (checked against the records before any noise is drawn)."""
        return None

    def clipped_grad(self, X: np.ndarray, Z: np.ndarray, L: float) -> np.ndarray:
        """∇F clipped to ℓ2 norm L (gradient clipping; equal to ∇F_L for GLM and radial losses only)."""
        return clip_rows(self.grad(X, Z), L)

    def to_dict(self) -> dict[str, object]:
        return {"loss": type(self).__name__}


# ---- GLM losses -------------------------------------------------------------------------------------------------

class GLMLoss(ConvexLoss):
    """F(x; (a, y)) = h(⟨a, x⟩; y), records Z = [a, y].  Subclasses give h, h' and the 1-D extension h_M."""

    glm = True

    def dim(self, Z: np.ndarray) -> int:
        return Z.shape[1] - 1

    def width(self, d: int) -> int:
        return d + 1

    @abstractmethod
    def h(self, z: np.ndarray, y: np.ndarray) -> np.ndarray: ...

    @abstractmethod
    def dh(self, z: np.ndarray, y: np.ndarray) -> np.ndarray: ...

    @abstractmethod
    def h_ext(self, z: np.ndarray, y: np.ndarray, M: np.ndarray) -> np.ndarray:
        """The 1-D Lipschitzian extension h_M(z) = inf_w {h(w) + M|z − w|} (closed form)."""

    @abstractmethod
    def curvature_ext(self, y: np.ndarray, M: np.ndarray) -> np.ndarray:
        """sup_z h_M''(z) (finite even where h'' is unbounded: beyond |h'| = M, h_M is affine)."""

    @staticmethod
    def _split(Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return Z[:, :-1], Z[:, -1]

    def value(self, X: np.ndarray, Z: np.ndarray) -> np.ndarray:
        A, y = self._split(Z)
        return self.h(np.atleast_2d(X) @ A.T, y[None, :])

    def grad(self, X: np.ndarray, Z: np.ndarray) -> np.ndarray:
        A, y = self._split(Z)
        g = self.dh(np.atleast_2d(X) @ A.T, y[None, :])
        return g[:, :, None] * A[None, :, :]

    def _M(self, Z: np.ndarray, L: float) -> tuple[np.ndarray, np.ndarray]:
        A, _ = self._split(Z)
        na = np.linalg.norm(A, axis=1)
        return na, np.where(na > 0, L / np.maximum(na, 1e-300), np.inf)

    def extended_value(self, X: np.ndarray, Z: np.ndarray, L: float) -> np.ndarray:
        A, y = self._split(Z)
        _, M = self._M(Z, L)
        return self.h_ext(np.atleast_2d(X) @ A.T, y[None, :], M[None, :])

    def extended_grad(self, X: np.ndarray, Z: np.ndarray, L: float) -> np.ndarray:
        A, y = self._split(Z)
        _, M = self._M(Z, L)
        g = np.clip(self.dh(np.atleast_2d(X) @ A.T, y[None, :]), -M[None, :], M[None, :])
        return g[:, :, None] * A[None, :, :]

    def extension_smoothness(self, Z: np.ndarray, L: float) -> np.ndarray:
        na, M = self._M(Z, L)
        finite = np.isfinite(M)
        return np.where(finite, na ** 2 * self.curvature_ext(Z[:, -1], np.where(finite, M, 1.0)), 0.0)


class SquaredLoss(GLMLoss):
    """h(z; y) = ½(z − y)²; h_M = ½(z − y)² for |z − y| ≤ M, M|z − y| − M²/2 beyond (½·Huber with threshold M)."""

    def h(self, z, y):
        return 0.5 * (z - y) ** 2

    def dh(self, z, y):
        return z - y

    def h_ext(self, z, y, M):
        r = np.abs(z - y)
        return np.where(r <= M, 0.5 * r ** 2, M * r - 0.5 * np.where(np.isfinite(M), M, 0.0) ** 2)

    def curvature_ext(self, y, M):
        return np.ones_like(y)


class SquaredHingeLoss(GLMLoss):
    """h(z; y) = ½ max(0, 1 − yz)², y ∈ {−1, +1}; h_M = h where max(0, 1 − yz) ≤ M, M(1 − yz) − M²/2 beyond."""

    def check(self, Z, name):
        if not np.all(np.isin(Z[:, -1], (-1.0, 1.0))):
            raise ValueError(f"{name}: SquaredHingeLoss labels must be -1 or +1")

    def h(self, z, y):
        return 0.5 * np.maximum(0.0, 1.0 - y * z) ** 2

    def dh(self, z, y):
        return -y * np.maximum(0.0, 1.0 - y * z)

    def h_ext(self, z, y, M):
        m = np.maximum(0.0, 1.0 - y * z)
        return np.where(m <= M, 0.5 * m ** 2, M * m - 0.5 * np.where(np.isfinite(M), M, 0.0) ** 2)

    def curvature_ext(self, y, M):
        return np.ones_like(y)


class LogisticLoss(GLMLoss):
    """h(z; y) = log(1 + e^{−yz}), y ∈ {−1, +1}; |h'| < 1, so h_M = h for M ≥ 1; for M < 1, with
    t_M = log((1 − M)/M): h_M = h for yz ≥ t_M and log(1 + e^{−t_M}) + M(t_M − yz) below."""

    def check(self, Z, name):
        if not np.all(np.isin(Z[:, -1], (-1.0, 1.0))):
            raise ValueError(f"{name}: LogisticLoss labels must be -1 or +1")

    def h(self, z, y):
        return np.logaddexp(0.0, -y * z)

    def dh(self, z, y):
        return -y * expit(-y * z)

    def h_ext(self, z, y, M):
        yz = y * z
        Mb = np.broadcast_to(M, np.broadcast(yz, M).shape)
        small = Mb < 1.0
        Ms = np.where(small, Mb, 0.5)  # 0.5: a placeholder where M >= 1 (h_M = h there)
        t = np.log((1.0 - Ms) / Ms)
        lin = np.logaddexp(0.0, -t) + Ms * (t - yz)
        return np.where(small & (yz < t), lin, np.logaddexp(0.0, -yz))

    def curvature_ext(self, y, M):
        return np.full_like(y, 0.25)


class PowerLoss(GLMLoss):
    """h(z; y) = |z − y|^κ/κ, κ ≥ 2 (Theorem 8's κ-growth instances); h_M = h for |z − y| ≤ r_M = M^{1/(κ−1)} and
    r_M^κ/κ + M(|z − y| − r_M) beyond.  h_M'' ≤ (κ − 1)r_M^{κ−2}, so F_L is (κ − 1)‖a‖^{κ/(κ−1)}L^{(κ−2)/(κ−1)}-smooth:
    the smoothness grows with L, and Algorithms 2 and 6 change L between epochs.  ``a_max`` is the public bound on
    the feature norms ‖a‖ (checked against the records) from which :meth:`smoothness_bound` gives the inner
    solver a public smoothness at every L."""

    def __init__(self, kappa: float, a_max: float = 1.0) -> None:
        k = check_positive(kappa, "kappa")
        if not k >= 2.0:
            raise ValueError(f"kappa must be >= 2 (a smooth convex power), got {k}")
        self.kappa = k
        self.a_max = check_positive(a_max, "a_max")

    def to_dict(self):
        return {"loss": "PowerLoss", "kappa": self.kappa, "a_max": self.a_max}

    def check(self, Z, name):
        if np.any(np.linalg.norm(Z[:, :-1], axis=1) > self.a_max * (1 + 1e-12)):
            raise ValueError(f"{name}: a record's feature norm exceeds the declared a_max = {self.a_max}")

    def smoothness_bound(self, L):
        k = self.kappa
        return (k - 1.0) * self.a_max ** (k / (k - 1.0)) * L ** ((k - 2.0) / (k - 1.0))

    def h(self, z, y):
        return np.abs(z - y) ** self.kappa / self.kappa

    def dh(self, z, y):
        r = z - y
        return np.sign(r) * np.abs(r) ** (self.kappa - 1.0)

    def h_ext(self, z, y, M):
        k = self.kappa
        r = np.abs(z - y)
        rM = np.where(np.isfinite(M), M, 1.0) ** (1.0 / (k - 1.0))
        Mf = np.where(np.isfinite(M), M, 0.0)  # M = ∞ (a = 0): h_M = h; avoid ∞·0 in the discarded branch
        return np.where(~np.isfinite(M) | (r <= rM), r ** k / k, rM ** k / k + Mf * (r - rM))

    def curvature_ext(self, y, M):
        rM = M ** (1.0 / (self.kappa - 1.0))
        return (self.kappa - 1.0) * rM ** (self.kappa - 2.0)


# ---- radial and non-isotropic quadratics -----------------------------------------------------------------------

class SquaredDistanceLoss(ConvexLoss):
    """F(x; (s, h)) = (h/2)‖x − s‖², h ≥ 0 (records Z = [s, h]): the lower-bound instances of Theorems 1 and 4
    (h ∈ {0, H}) and Proposition 5 (h ∈ [λ, H]).  Radial, so ∇F_L is clipping: F_L = (h/2)r² for hr ≤ L, else
    Lr − L²/(2h)."""

    glm = True  # the extension's gradient is exactly ℓ2 clipping (radial loss)

    def dim(self, Z):
        return Z.shape[1] - 1

    def width(self, d):
        return d + 1

    def check(self, Z, name):
        if np.any(Z[:, -1] < 0):
            raise ValueError(f"{name}: SquaredDistanceLoss weights h (last column) must be >= 0")

    def value(self, X, Z):
        V = np.atleast_2d(X)[:, None, :] - Z[None, :, :-1]
        return 0.5 * Z[None, :, -1] * np.sum(V ** 2, axis=2)

    def grad(self, X, Z):
        return Z[None, :, -1, None] * (np.atleast_2d(X)[:, None, :] - Z[None, :, :-1])

    def extended_value(self, X, Z, L):
        V = np.atleast_2d(X)[:, None, :] - Z[None, :, :-1]
        r = np.linalg.norm(V, axis=2)
        h = np.broadcast_to(Z[None, :, -1], r.shape)
        inside = h * r <= L
        return np.where(inside, 0.5 * h * r ** 2, L * r - L ** 2 / (2.0 * np.where(inside, 1.0, h)))

    def extended_grad(self, X, Z, L):
        return clip_rows(self.grad(X, Z), L)

    def extension_smoothness(self, Z, L):
        return Z[:, -1].copy()


class DiagonalQuadraticLoss(ConvexLoss):
    """F(x; (c, u)) = ½ Σ_k u_k (x_k − c_k)², u ≥ 0 (records Z = [c, u]): per-sample quadratics with non-isotropic
    curvature.  Its extension is **not** gradient clipping (see the module docstring); ``clipped_grad`` is the
    clipping that a careless implementation would use instead."""

    #: bisection steps for τ (each halves the bracket; 200 reach the float64 resolution of any bracket)
    BISECTION_STEPS = 200

    def dim(self, Z):
        return Z.shape[1] // 2

    def width(self, d):
        return 2 * d

    def check(self, Z, name):
        if Z.shape[1] % 2:
            raise ValueError(f"{name}: DiagonalQuadraticLoss records are [c, u] with an even width, got "
                             f"{Z.shape[1]}")
        if np.any(Z[:, Z.shape[1] // 2:] < 0):
            raise ValueError(f"{name}: DiagonalQuadraticLoss curvatures u must be >= 0")

    @staticmethod
    def _split(Z):
        d = Z.shape[1] // 2
        return Z[:, :d], Z[:, d:]

    def value(self, X, Z):
        C, U = self._split(Z)
        V = np.atleast_2d(X)[:, None, :] - C[None, :, :]
        return 0.5 * np.sum(U[None] * V ** 2, axis=2)

    def grad(self, X, Z):
        C, U = self._split(Z)
        return U[None] * (np.atleast_2d(X)[:, None, :] - C[None, :, :])

    def _tau(self, UV: np.ndarray, U: np.ndarray, L: float) -> np.ndarray:
        """τ with τ‖UV/(U + τ)‖ = L for the rows where ‖UV‖ > L (the others: τ = 0), by bisection."""
        norm = np.linalg.norm(UV, axis=-1)
        active = norm > L
        tau = np.zeros(norm.shape)
        if not np.any(active):
            return tau
        uv, u, nv = UV[active], np.broadcast_to(U, UV.shape)[active], norm[active]
        umax = np.max(u, axis=-1)
        lo = np.zeros(nv.shape)
        hi = L * umax / (nv - L) * 2.0 + 1e-300  # g(hi) ≥ hi/(umax + hi)·‖UV‖ ≥ L
        for _ in range(self.BISECTION_STEPS):
            mid = 0.5 * (lo + hi)
            g = mid * np.linalg.norm(uv / (u + mid[:, None]), axis=-1)
            big = g > L
            hi = np.where(big, mid, hi)
            lo = np.where(big, lo, mid)
            if np.all(hi - lo <= 4e-16 * hi):
                break
        tau[active] = hi
        return tau

    def _extension(self, X, Z, L):
        C, U = self._split(Z)
        V = np.atleast_2d(X)[:, None, :] - C[None, :, :]
        UV = U[None] * V
        tau = self._tau(UV, U[None], L)
        step = np.where(tau[..., None] > 0, UV / (U[None] + tau[..., None] + (tau[..., None] == 0)), 0.0)
        return V, U, tau, step  # step = x − y(x) where the extension is active

    def extended_value(self, X, Z, L):
        V, U, tau, step = self._extension(X, Z, L)
        W = V - step  # y(x) − c
        return 0.5 * np.sum(U[None] * W ** 2, axis=2) + L * np.linalg.norm(step, axis=2)

    def extended_grad(self, X, Z, L):
        V, U, tau, step = self._extension(X, Z, L)
        return np.where(tau[..., None] > 0, tau[..., None] * step, U[None] * V)

    def extension_smoothness(self, Z, L):
        _, U = self._split(Z)
        return np.max(U, axis=1)
