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
  y(x) = x − (U + τI)^{−1}U(x − c) with τ > 0 solving τ‖(U + τI)^{−1}U(x − c)‖ = L, ∇F_L(x) = τ(x − y(x)) and
  F_L(x) = F(y(x)) + L‖x − y(x)‖.  τ is found by bisection on t = log τ until the bracket is at most
  ``LOG_TAU_TOL`` = 2⁻³⁶ wide, a number of steps bounded for every finite record (``docs/derivations.md``, "The
  τ-search of the diagonal quadratic"), and the gradient is returned at the bracket's lower end: within
  ``grad_rtol``·L = (e^{2⁻³⁶} − 1)·L ≈ 1.5e-11·L of ∇F_L, with norm ≤ L.  Here clipping is *not* the
  extension's gradient.

Floating point.  Every ``extended_grad`` is computed direction-first (a unit vector times a magnitude ≤ L, the
magnitudes compared in a form that neither overflows nor underflows: ⟨a, x⟩ rescaled by ‖a‖, x − s halved where
it leaves the float range, the diagonal quadratic entirely in logarithms), returns the raw gradient ∇F bit for bit
where the extension is inactive, and ends with :func:`dpsco.reference.clipping.enforce_norm_bound` (a no-op on the
bounded gradients it is given, the fail-safe otherwise): for every finite record and point the result is finite with
‖∇F_L‖ ≤ L as computed, at magnitudes up to 1.8e308 and down to subnormals.

Records are float arrays Z of shape (n, p): GLM records Z = [a, y] (p = d + 1), radial records Z = [s, h]
(p = d + 1, h ≥ 0), diagonal-quadratic records Z = [c, u] (p = 2d, u ≥ 0).  Points are X of shape (R, d) (R
independent iterates at once, the replicate axis); values are (R, n) and gradients (R, n, d).

Lemma 2.1: F_L is convex and L-Lipschitz on all of R^d, F_L = F where F is L-Lipschitz, and ∇F_L(x) = ∇F(x) when
‖∇F(x)‖ ≤ L.  F_L is H-smooth when F is (its conjugate F* + ι_{‖·‖ ≤ L} is (1/H)-strongly convex), which keeps the
regularised ERMs of Algorithm 4 smooth and strongly convex.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import math

import numpy as np
from scipy.special import expit

from dpsco.reference.clipping import enforce_norm_bound, row_norms
from dpsco.reference.validation import check_positive

__all__ = ["ConvexLoss", "GLMLoss", "SquaredLoss", "SquaredHingeLoss", "LogisticLoss", "PowerLoss",
           "SquaredDistanceLoss", "DiagonalQuadraticLoss", "check_records"]


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


def _point(w: object) -> np.ndarray:
    """``w`` as a (d,) float array; ValueError naming ``w`` for another number of axes."""
    p = np.asarray(w, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"w must be one (d,) point, got shape {p.shape}")
    return p


class ConvexLoss(ABC):
    """A family of convex per-sample losses F(·; s) with a closed-form Lipschitzian extension.

    ``value``/``grad`` evaluate F and ∇F (``values``/``grads`` at one point: the ``dpsco.reference.loss.Loss``
    protocol, data = the records Z); ``extended_value``/``extended_grad`` evaluate F_L and ∇F_L (eq. (2));
    ``extension_smoothness`` bounds the smoothness of F_L for each record (used to certify Algorithm 4's inner
    solver: the caller's declared H is checked against it).  ``glm`` is True where ∇F_L is ℓ2 clipping of ∇F.
    ``grad_rtol`` bounds ‖extended_grad − ∇F_L‖/L in exact arithmetic (0 for the closed forms; the bisection
    tolerance of the diagonal quadratic), which the inner solver's step count accounts for
    (``algorithms.solver_steps``)."""

    glm: bool = False
    grad_rtol: float = 0.0

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

    def values(self, w: np.ndarray, Z: np.ndarray) -> np.ndarray:
        """F(w; s_j) at one point w (d,): (n,), by ``value`` (the :class:`dpsco.reference.loss.Loss` protocol)."""
        return self.value(_point(w)[None, :], Z)[0]

    def grads(self, w: np.ndarray, Z: np.ndarray) -> np.ndarray:
        """∇F(w; s_j) at one point w (d,): (n, d), by ``grad`` (the :class:`dpsco.reference.loss.Loss` protocol)."""
        return self.grad(_point(w)[None, :], Z)[0]

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

    def to_dict(self) -> dict[str, object]:
        return {"loss": type(self).__name__}


def _logsumexp(A: np.ndarray) -> np.ndarray:
    """log Σ exp over the last axis, −inf for a row of −inf (no overflow: the row's maximum is factored out)."""
    m = np.max(A, axis=-1)
    ms = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return np.where(np.isfinite(m), ms + np.log(np.sum(np.exp(A - ms[..., None]), axis=-1)), m)


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
        na = row_norms(A)  # overflow- and underflow-safe ‖a‖
        with np.errstate(divide="ignore", over="ignore"):
            return na, np.where(na > 0, L / np.where(na > 0, na, 1.0), np.inf)

    def extended_value(self, X: np.ndarray, Z: np.ndarray, L: float) -> np.ndarray:
        A, y = self._split(Z)
        _, M = self._M(Z, L)
        return self.h_ext(np.atleast_2d(X) @ A.T, y[None, :], M[None, :])

    def extended_grad(self, X: np.ndarray, Z: np.ndarray, L: float) -> np.ndarray:
        """∇F_L = clip(h'(⟨a, x⟩), −M, M)·a, direction first: where |h'|·‖a‖ ≤ L the raw h'·a (bit for bit the
        gradient of F), beyond it sign(h')·L·a/‖a‖.  ⟨a, x⟩ is recomputed as ‖a‖·⟨a/‖a‖, x⟩ where it overflows, and
        h' and |h'|·‖a‖ may be ±inf (that only selects the clipped branch).  (R, n, d), ‖·‖ ≤ L in floating point."""
        A, y = self._split(Z)
        X2 = np.atleast_2d(X)
        na = row_norms(A)
        pos = na > 0
        unit = A / np.where(pos, na, 1.0)[:, None]  # a/‖a‖ (0 for a = 0)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            z = X2 @ A.T
            bad = ~np.isfinite(z)
            if np.any(bad):  # ⟨a, x⟩ beyond the float range: ‖a‖·⟨a/‖a‖, x⟩ (±inf only if it really is)
                z = np.where(bad, (X2 @ unit.T) * na[None, :], z)
            g = self.dh(z, y[None, :])  # h'(⟨a, x⟩), possibly ±inf
            s = np.where(pos[None, :], g * na[None, :], 0.0)  # the signed norm h'·‖a‖ of ∇F
            active = ~(np.abs(s) <= L)  # |h'|‖a‖ > L (a NaN, impossible for finite records, also clips)
            raw = g[:, :, None] * A[None, :, :]
            clipped = (np.sign(s) * L)[:, :, None] * unit[None, :, :]
            G = np.where(active[:, :, None], clipped, raw)
        return enforce_norm_bound(G, L)

    def extension_smoothness(self, Z: np.ndarray, L: float) -> np.ndarray:
        na, M = self._M(Z, L)
        finite = np.isfinite(M)
        with np.errstate(over="ignore"):  # ‖a‖² beyond the float range: inf, refused against the declared H
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

    @staticmethod
    def _offsets(X: np.ndarray, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(V, unit, f·m, q, finite) over (R, n): V = x − s as computed (±inf where it leaves the float range);
        x − s = f·m·q·unit exactly in direction, with Vs = V where finite else (x − s)/2 = x/2 − s/2 (f = 1 or 2),
        m = max_k |Vs_k|, q = ‖Vs/m‖ ∈ [1, √d] and unit = Vs/(m q): so ‖x − s‖ = (f m)·q and h‖x − s‖ = (h f m)·q
        are formed without the norm itself overflowing or a subnormal h underflowing against it."""
        X2 = np.atleast_2d(X)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            V = X2[:, None, :] - Z[None, :, :-1]
            finite = np.all(np.isfinite(V), axis=2)
            Vs = V if np.all(finite) else np.where(finite[..., None], V,
                                                   0.5 * X2[:, None, :] - 0.5 * Z[None, :, :-1])
            m = np.max(np.abs(Vs), axis=2)
            pos = m > 0
            S = Vs / np.where(pos, m, 1.0)[..., None]
            q = np.sqrt(np.sum(S * S, axis=2))
            unit = S / np.where(pos, q, 1.0)[..., None]
            fm = np.where(finite, 1.0, 2.0) * m
        return V, unit, fm, q, finite

    def extended_value(self, X, Z, L):
        _, _, fm, q, _ = self._offsets(X, Z)
        h = np.broadcast_to(Z[None, :, -1], q.shape)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            r = fm * q
            hr = np.where(h > 0, (h * fm) * q, 0.0)
            inside = hr <= L
            out = np.where(inside, 0.5 * hr * np.where(inside, r, 0.0),
                           L * r - L ** 2 / (2.0 * np.where(inside, 1.0, h)))
        return out

    def extended_grad(self, X, Z, L):
        """∇F_L = min(hr, L)·(x − s)/r, direction first: the raw h(x − s) (bit for bit ∇F) where hr ≤ L, else
        L·(x − s)/‖x − s‖, with hr = h‖x − s‖ and the direction formed from (x − s) rescaled by its largest entry
        (halved first where x − s overflows), h = 0 giving 0.  (R, n, d), ‖·‖ ≤ L in floating point."""
        V, unit, fm, q, finite = self._offsets(X, Z)
        h = Z[None, :, -1]
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            hr = np.where(h > 0, (h * fm) * q, 0.0)
            active = hr > L
            raw = np.where(finite[..., None], h[..., None] * V, (h * fm)[..., None] * q[..., None] * unit)
            G = np.where(active[..., None], L * unit, raw)
        return enforce_norm_bound(G, L)

    def extension_smoothness(self, Z, L):
        return Z[:, -1].copy()


class DiagonalQuadraticLoss(ConvexLoss):
    """F(x; (c, u)) = ½ Σ_k u_k (x_k − c_k)², u ≥ 0 (records Z = [c, u]): per-sample quadratics with non-isotropic
    curvature.  Its extension is **not** gradient clipping (see the module docstring).

    The τ-search (``docs/derivations.md``, "The τ-search of the diagonal quadratic").  With v = x − c and
    t = log τ, the extension's gradient has coordinates ∇_k(t) = sign(v_k)·exp(ℓ_k(t)),
    ℓ_k(t) = log|v_k| + log u_k − log(1 + u_k e^{−t}), and G(t) = log(‖∇(t)‖/L) is continuous and increasing
    (dℓ_k/dt = u_k/(u_k + τ) ∈ (0, 1)), from −∞ to log(‖Uv‖/L) > 0 when the extension is active.  The bracket
    t_lo = log L − log‖v_{u>0}‖ (‖∇(τ)‖ ≤ τ‖v_{u>0}‖ ≤ L there) and t_hi = log max u − log(‖Uv‖/L − 1)
    (‖∇(τ)‖ ≥ τ‖Uv‖/(max u + τ) ≥ L there) holds the root t*; both ends are finite for every finite record (the
    logarithms of finite non-zero floats lie in [−745, 710]), so its width W is below 4500 and bisection with
    midpoints stops after ⌈log₂(W/LOG_TAU_TOL)⌉ ≤ 49 steps, with t* ∈ [lo, hi], hi − lo ≤ LOG_TAU_TOL.  The
    gradient is evaluated at lo (G(lo) ≤ 0: norm ≤ L); since every ∇_k(t) is monotone with log-derivative in
    (0, 1), ∇_k(t*)/∇_k(lo) ∈ [1, e^{LOG_TAU_TOL}], so ‖∇(lo) − ∇F_L(x)‖ ≤ (e^{LOG_TAU_TOL} − 1)L = ``grad_rtol``·L.
    Everything is computed in logarithms (v halved where x − c leaves the float range), so neither u·v nor τ is
    ever formed: no overflow, no underflow to a wrong zero."""

    #: the bisection's final bracket width on t = log τ (a stated tolerance, not a step count)
    LOG_TAU_TOL = 2.0 ** -36
    #: ‖extended_grad − ∇F_L‖ ≤ grad_rtol·L in exact arithmetic (≈ 1.46e-11)
    grad_rtol = math.expm1(LOG_TAU_TOL)

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

    def _logs(self, X: np.ndarray, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                         np.ndarray]:
        """(V, log|v|, sign(v), log u, log|u v|), each (R, n, d), v = x − c: V as computed (±inf beyond the float
        range), log|v| exact there too (from v/2 = x/2 − c/2); log|u v| from the product u·|v| where it is a
        normal float (one rounding: the accuracy the ill-conditioned saturated case needs), else log u + log|v|;
        log 0 = −inf."""
        C, U = self._split(Z)
        X2 = np.atleast_2d(X)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            V = X2[:, None, :] - C[None, :, :]
            finite = np.isfinite(V)
            if np.all(finite):
                logv, sign = np.log(np.abs(V)), np.sign(V)
            else:
                Vh = np.where(finite, V, 0.5 * X2[:, None, :] - 0.5 * C[None, :, :])
                logv = np.log(np.abs(Vh)) + np.where(finite, 0.0, math.log(2.0))
                sign = np.sign(Vh)
            logu = np.broadcast_to(np.log(U)[None], V.shape)
            P = U[None] * np.abs(V)
            normal = np.isfinite(P) & (P >= np.finfo(np.float64).tiny)
            logw = np.where(normal, np.log(np.where(normal, P, 1.0)), logv + logu)
        return V, logv, sign, logu, logw

    def _log_tau(self, logv: np.ndarray, logu: np.ndarray, lw: np.ndarray,
                 L: float) -> tuple[np.ndarray, np.ndarray]:
        """(active (R, n), t (R, n)): where ‖U(x − c)‖ > L, t = the lower end of the final bracket of log τ (class
        docstring); elsewhere t = −inf (τ = 0, the extension inactive).  lw = log|u_k v_k|."""
        logL = math.log(L)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            G_inf = 0.5 * _logsumexp(2.0 * lw) - logL  # log(‖Uv‖/L)
            active = G_inf > 0.0
            t = np.full(G_inf.shape, -np.inf)
            if not np.any(active):
                return active, t
            lv, lu, G = logv[active], logu[active], G_inf[active]
            lwL2 = 2.0 * (lw[active] - logL)  # 2 log(|u_k v_k|/L)
            pos = np.isfinite(lu)  # u_k > 0
            t_lo = logL - 0.5 * _logsumexp(np.where(pos, 2.0 * lv, -np.inf))
            log_expm1 = np.where(G > 30.0, G + np.log1p(-np.exp(-G)), np.log(np.expm1(np.minimum(G, 30.0))))
            t_hi = np.max(np.where(pos, lu, -np.inf), axis=-1) - log_expm1
            lo, hi = np.minimum(t_lo, t_hi), np.maximum(t_lo, t_hi)  # the order holds exactly; rounding guard
            w = self.LOG_TAU_TOL
            width = float(np.max(hi - lo))
            steps = math.ceil(math.log2(width / w)) + 1 if width > w else 0  # the proven bound (≤ 49)
            for _ in range(steps):
                open_ = hi - lo > w
                if not np.any(open_):
                    break
                mid = lo + 0.5 * (hi - lo)
                # G(mid) > 0  ⟺  Σ_k (∇_k(mid)/L)² > 1, with 2 log(|∇_k|/L) = 2 log(|u_k v_k|/L) − 2 log(1 + u_k/τ)
                # (an exp that overflows to inf only makes a sum > 1 larger, so no rescaling is needed)
                up = np.sum(np.exp(lwL2 - 2.0 * np.logaddexp(0.0, lu - mid[:, None])), axis=-1) > 1.0
                hi = np.where(open_ & up, mid, hi)
                lo = np.where(open_ & ~up, mid, lo)
            t[active] = lo
        return active, t

    def extended_value(self, X, Z, L):
        """F_L(x) = F(y) + L‖x − y‖ at y = y(τ) for the returned τ (an upper bound of F_L within
        grad_rtol·L·‖x − y‖ of it where the extension is active; F where it is not).  (R, n)."""
        V, logv, _, logu, logw = self._logs(X, Z)
        active, t = self._log_tau(logv, logu, logw, L)
        _, U = self._split(Z)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            plain = 0.5 * np.sum(np.where(U[None] > 0, (U[None] * V) * V, 0.0), axis=2)
            tt = np.where(active, t, 0.0)[..., None]
            # (u_k/2)·(y − c)_k² = ½exp(2 log|v_k| + log u_k − 2 log(1 + u_k/τ)) and ‖x − y‖ from log|v_k u_k/(u_k + τ)|
            fy = 0.5 * np.sum(np.exp(2.0 * logv + logu - 2.0 * np.logaddexp(0.0, logu - tt)), axis=2)
            step = 0.5 * _logsumexp(2.0 * (logv - np.logaddexp(0.0, tt - logu)))
            ext = fy + L * np.exp(step)
        return np.where(active, ext, plain)

    def extended_grad(self, X, Z, L):
        """∇F_L(x) = τ(U + τI)^{−1}U(x − c) at the τ of the class docstring (within grad_rtol·L of the exact one),
        computed in logarithms, or the raw U(x − c) (bit for bit ∇F) where ‖U(x − c)‖ ≤ L.  (R, n, d),
        ‖·‖ ≤ L in floating point (``enforce_norm_bound``, a no-op on the bounded values computed here)."""
        V, logv, sign, logu, logw = self._logs(X, Z)
        active, t = self._log_tau(logv, logu, logw, L)
        _, U = self._split(Z)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            raw = np.where(U[None] > 0, U[None] * V, 0.0)
            tt = np.where(active, t, 0.0)[..., None]
            ext = sign * np.exp(logw - np.logaddexp(0.0, logu - tt))
            G = np.where(active[..., None], np.where(np.isfinite(ext), ext, 0.0), raw)
        return enforce_norm_bound(G, L)

    def extension_smoothness(self, Z, L):
        _, U = self._split(Z)
        return np.max(U, axis=1)
