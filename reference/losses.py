"""Losses of generalised linear form ℓ(w, (x, y)) = φ(⟨w, x⟩, y), vectorised over samples.

Each loss gives

* per-sample values ``value(w, X, y) -> (n,)`` and (sub)gradients ``grad(w, X, y) -> (n, d)``, also as
  ``values(w, (X, y))`` / ``grads(w, (X, y))`` (the :class:`dpsco.reference.loss.Loss` protocol);
* the scalar derivatives φ'(s, y), φ''(s, y) used by second-order oracles;
* the constants the theorems need, derived from *declared* data bounds ‖x‖ ≤ X_max, |y| ≤ Y_max and the
  domain radius M (never from the data): Lipschitz constant L, smoothness β (``None`` if non-smooth),
  whether ℓ(·, z) is C² with Hessian rank ≤ 1 (Assumption 5.1 of Bassily et al. 2019);
* a cvxpy expression of the same per-sample losses, for the independent conic oracle;
* the proximal operator of ℓ(·, z)/β over R^d and the β-Moreau envelope (Bassily et al. 2019,
  Def. 4.1–4.2 and Lemma 4.3), reduced to a 1-D prox because ∇ℓ is parallel to x.

Shapes: ``w`` (d,), ``X`` (n, d), ``y`` (n,).  All arithmetic is float64.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from scipy.special import expit, log_expit

__all__ = [
    "AbsoluteLoss",
    "GLMLoss",
    "HingeLoss",
    "HuberLoss",
    "LinearLoss",
    "LogisticLoss",
    "SquaredLoss",
    "get_loss",
]


def _pair(data: Any) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) from the protocol's ``data``: a tuple or list of two arrays (not an array, whose rows would unpack)."""
    if not isinstance(data, (tuple, list)) or len(data) != 2:
        raise TypeError(f"data must be the pair (X, y) for a GLM loss, got {type(data).__name__}")
    return data[0], data[1]


class GLMLoss(ABC):
    """ℓ(w, (x, y)) = φ(⟨w, x⟩, y) for a convex φ(·, y).

    Subclasses implement φ, a (sub)derivative φ', the 1-D prox and the constants.
    """

    name: ClassVar[str]
    smooth: ClassVar[bool]
    #: twice differentiable with rank ≤ 1 Hessian φ''·xxᵀ (Assumption 5.1 of Bassily et al. 2019)
    hessian_rank_le_1: ClassVar[bool]
    #: labels must be ±1
    binary_labels: ClassVar[bool] = False

    # -- scalar pieces ---------------------------------------------------------------------------
    @abstractmethod
    def phi(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        """φ(s, y), elementwise."""

    @abstractmethod
    def dphi(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        """A (sub)derivative of φ(·, y) at s, elementwise."""

    def d2phi(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        """φ''(s, y) where it exists (smooth losses); raises for non-smooth ones."""
        raise NotImplementedError(f"{self.name} loss is not twice differentiable")

    @abstractmethod
    def prox_scalar(self, a: np.ndarray, y: np.ndarray, t: np.ndarray) -> np.ndarray:
        """argmin_s φ(s, y) + (s − a)²/(2t), elementwise (t > 0)."""

    # -- constants from declared bounds ----------------------------------------------------------
    @abstractmethod
    def phi_lipschitz(self, x_max: float, y_max: float, radius: float) -> float:
        """sup |φ'(s, y)| over |s| ≤ x_max·radius, |y| ≤ y_max."""

    def phi_smoothness(self) -> float | None:
        """sup φ''(s, y), or None if φ is not smooth."""
        return None

    def lipschitz(self, x_max: float, y_max: float, radius: float) -> float:
        """L = X_max · sup|φ'| : ‖∇ℓ(w, z)‖ ≤ L for all ‖w‖ ≤ M, ‖x‖ ≤ X_max, |y| ≤ Y_max."""
        return float(x_max * self.phi_lipschitz(x_max, y_max, radius))

    def smoothness(self, x_max: float) -> float | None:
        """β = X_max² · sup φ'' (None for non-smooth losses)."""
        b = self.phi_smoothness()
        return None if b is None else float(x_max**2 * b)

    # -- vectorised per-sample API -----------------------------------------------------------------
    def value(self, w: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Per-sample losses ℓ(w, z_i): (n,) array."""
        return self.phi(X @ w, y)

    def grad(self, w: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Per-sample (sub)gradients ∇ℓ(w, z_i) = φ'(⟨w, x_i⟩, y_i) x_i: (n, d) array."""
        return self.dphi(X @ w, y)[:, None] * X

    # -- the dpsco.reference.loss.Loss protocol: data = (X, y) ------------------------------------------------
    def values(self, w: np.ndarray, data: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """``value(w, X, y)`` for ``data = (X, y)`` (the :class:`dpsco.reference.loss.Loss` protocol): (n,)."""
        return self.value(w, *_pair(data))

    def grads(self, w: np.ndarray, data: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """``grad(w, X, y)`` for ``data = (X, y)`` (the :class:`dpsco.reference.loss.Loss` protocol): (n, d)."""
        return self.grad(w, *_pair(data))

    def mean_value(self, w: np.ndarray, X: np.ndarray, y: np.ndarray) -> float:
        """Empirical loss L̂(w; S) = (1/n) Σ ℓ(w, z_i)."""
        return float(np.mean(self.value(w, X, y)))

    def mean_grad(self, w: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """∇L̂(w; S): (d,) array."""
        return (X.T @ self.dphi(X @ w, y)) / X.shape[0]

    def mean_hessian(self, w: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """∇²L̂(w; S) = (1/n) Σ φ''(s_i) x_i x_iᵀ: (d, d) array (smooth losses only)."""
        h = self.d2phi(X @ w, y)
        return (X.T * h) @ X / X.shape[0]

    # -- prox and Moreau envelope over R^d (Bassily et al. 2019, Def. 4.1–4.2, "Rd" variant) --------
    def prox(self, W: np.ndarray, X: np.ndarray, y: np.ndarray, beta: float) -> np.ndarray:
        """prox_{ℓ(·, z_i)/β}(w_i) = argmin_v ℓ(v, z_i) + (β/2)‖v − w_i‖², row by row.

        ``W``: (k, d) points (or (d,) broadcast to every row), ``X``: (k, d), ``y``: (k,), β > 0.
        Since ∇ℓ(v, z) ∥ x, the minimiser is v = w − c·x with the 1-D prox of φ in s = ⟨v, x⟩ and step
        t = ‖x‖²/β.  Exact (closed form) for every loss except logistic, whose 1-D prox is solved by
        Newton's method to machine precision (``LogisticLoss.prox_scalar``).
        """
        W = np.broadcast_to(np.asarray(W, dtype=np.float64), X.shape)
        a = np.einsum("ij,ij->i", W, X)
        r = np.einsum("ij,ij->i", X, X)
        nz = r > 0
        if nz.all():  # the usual case; the same arithmetic as below without the masked copies
            return W - ((a - self.prox_scalar(a, y, r / beta)) / r)[:, None] * X
        out = W.copy()
        if np.any(nz):
            t = r[nz] / beta
            s = self.prox_scalar(a[nz], y[nz], t)
            out[nz] = W[nz] - ((a[nz] - s) / r[nz])[:, None] * X[nz]
        return out

    def envelope_value(self, W: np.ndarray, X: np.ndarray, y: np.ndarray, beta: float) -> np.ndarray:
        """β-Moreau envelope ℓ_β(w_i, z_i) = ℓ(v_i, z_i) + (β/2)‖w_i − v_i‖², v_i the prox: (k,)."""
        W = np.broadcast_to(np.asarray(W, dtype=np.float64), X.shape)
        V = self.prox(W, X, y, beta)
        return self.phi(np.einsum("ij,ij->i", V, X), y) + 0.5 * beta * np.sum((W - V) ** 2, axis=1)

    def envelope_grad(self, W: np.ndarray, X: np.ndarray, y: np.ndarray, beta: float) -> np.ndarray:
        """∇ℓ_β(w_i, z_i) = β (w_i − prox(w_i)) (Lemma 4.3, property 3): (k, d)."""
        W = np.broadcast_to(np.asarray(W, dtype=np.float64), X.shape)
        return beta * (W - self.prox(W, X, y, beta))

    # -- cvxpy ---------------------------------------------------------------------------------------
    @abstractmethod
    def cvxpy_terms(self, w: Any, X: np.ndarray, y: np.ndarray) -> Any:
        """cvxpy expression of shape (n,) with entries ℓ(w, z_i) for the cvxpy variable ``w``."""

    # -- labels ----------------------------------------------------------------------------------------
    def check_labels(self, y: np.ndarray) -> None:
        """Raise ``ValueError`` naming ``y`` if the labels are outside this loss's label set."""
        if self.binary_labels and not np.all(np.abs(y) == 1.0):
            raise ValueError(f"y must take values in {{-1, +1}} for the {self.name} loss")

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name}

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class LogisticLoss(GLMLoss):
    """ℓ(w, (x, y)) = log(1 + exp(−y⟨w, x⟩)), y ∈ {−1, +1}.  L = X_max, β = X_max²/4, C^∞, rank-1 Hessian."""

    name = "logistic"
    smooth = True
    hessian_rank_le_1 = True
    binary_labels = True

    def phi(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        return -log_expit(y * s)

    def dphi(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        return -y * expit(-y * s)

    def d2phi(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        p = expit(y * s)
        return p * (1.0 - p)

    #: below this prox step t, plain Newton from s = a is used (it cannot fail there, see ``prox_scalar``)
    NEWTON_T_MAX: ClassVar[float] = 2.0

    def prox_scalar(self, a: np.ndarray, y: np.ndarray, t: np.ndarray) -> np.ndarray:
        """argmin_s φ(s, y) + (s − a)²/(2t): the root of f(s) = s − a + t φ'(s), to machine precision.

        f is strictly increasing, f' = 1 + tφ'' ∈ [1, 1 + t/4], |f''| = t|φ'''| ≤ t/(6√3), and |φ'| < 1 puts the
        root in [a − t, a + t].  For t < ``NEWTON_T_MAX`` = 2, Newton from s = a is a contraction (the Newton map
        moves the error by a factor ≤ t/4 ≤ 1/2) and converges quadratically: ``_prox_newton``.  Larger steps, and
        any entry Newton has not finished in 100 steps, go to the safeguarded Newton–bisection
        ``_prox_safeguarded``.  Both stop at the same test, |f(s)| at rounding level.
        """
        a, y, t = np.broadcast_arrays(np.asarray(a, float), np.asarray(y, float), np.asarray(t, float))
        shape = a.shape
        a, y, t = a.ravel(), y.ravel(), t.ravel()
        easy = t < self.NEWTON_T_MAX
        if easy.all():
            s, done = self._prox_newton(a, y, t)
        else:
            s, done = a.copy(), np.zeros(a.shape, dtype=bool)
            s[easy], done[easy] = self._prox_newton(a[easy], y[easy], t[easy])
        if not done.all():
            s[~done] = self._prox_safeguarded(a[~done], y[~done], t[~done])
        return s.reshape(shape)

    @staticmethod
    def _tolerance(a: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Scale of the stopping test |f(s)| ≤ tol·max(1, |s|): 8 ulps of the largest term of f."""
        return 8 * np.finfo(float).eps * np.maximum(np.maximum(1.0, np.abs(a)), t)

    def _prox_newton(self, a: np.ndarray, y: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Newton on f(s) = s − a + tφ'(s) from s = a for flat arrays with t < 4, all entries in step.  It stops
        when every entry passes |f(s)| ≤ tol (the stopping test without its factor max(1, |s|) ≥ 1), or right
        after a step from s with 0.05·max(t)·max|f(s)|² ≤ 8 ulps: the Newton error bound
        |s_new − s*| ≤ (max|f''|/(2 min f'))·|s − s*|² with |s − s*| ≤ |f(s)| (f' ≥ 1) and
        max|f''|/2 = t/(12√3) < 0.05·t, and 8 ulps ≤ tol.  Entries still failing the test after 100 steps (none
        are expected: the error contracts by t/4 < 1 per step) are returned with done = False."""
        eps = np.finfo(float).eps
        s = a.copy()
        ny = -y
        tny = t * ny
        inv_tol = 1.0 / self._tolerance(a, t)
        c2 = 0.05 * float(t.max(initial=0.0))
        for _ in range(100):
            p = expit(ny * s)
            f = (s - a) + tny * p  # s − a + tφ'(s), φ'(s) = −y·expit(−ys) as in dphi
            af = np.abs(f)
            if float((af * inv_tol).max(initial=0.0)) <= 1.0:
                return s, np.ones(a.shape, dtype=bool)
            F = float(af.max())
            s = s - f / (1.0 + t * (p * (1.0 - p)))  # φ''(s) = p(1 − p)
            if c2 * F * F <= 8 * eps:
                return s, np.ones(a.shape, dtype=bool)
        f = (s - a) + tny * expit(ny * s)
        return s, np.abs(f) * inv_tol <= 1.0

    def _prox_safeguarded(self, a: np.ndarray, y: np.ndarray, t: np.ndarray) -> np.ndarray:
        # f(s) = s − a + t φ'(s) is strictly increasing (f' = 1 + tφ'' ∈ [1, 1 + t/4]) and |φ'| < 1, so the
        # unique root lies in [a − t, a + t].  Safeguarded Newton: a Newton step when it stays inside the
        # current bracket, bisection otherwise; stops when the bracket or the step is at rounding level.
        lo, hi = a - t, a + t
        s = a.copy()
        f_prev = np.full_like(s, np.inf)
        tol_f = self._tolerance(a, t)
        for _ in range(200):
            f = s - a + t * self.dphi(s, y)
            active = np.abs(f) > tol_f * np.maximum(1.0, np.abs(s))  # converged entries are frozen
            if not np.any(active):
                break
            lo = np.where(f < 0, s, lo)
            hi = np.where(f > 0, s, hi)
            newton = s - f / (1.0 + t * self.d2phi(s, y))
            # Newton only if it stays in the bracket and the last step at least halved |f| (else it can
            # oscillate across a flat region); bisection otherwise (rtsafe-style safeguard).
            use_newton = (newton > lo) & (newton < hi) & (np.abs(f) <= 0.5 * np.abs(f_prev))
            f_prev = f
            s = np.where(active, np.where(use_newton, newton, 0.5 * (lo + hi)), s)
            if np.all(hi - lo <= 4 * np.finfo(float).eps * np.maximum(1.0, np.abs(s))):
                break
        return s

    def phi_lipschitz(self, x_max: float, y_max: float, radius: float) -> float:
        return 1.0

    def phi_smoothness(self) -> float | None:
        return 0.25

    def cvxpy_terms(self, w: Any, X: np.ndarray, y: np.ndarray) -> Any:
        import cvxpy as cp

        return cp.logistic(-cp.multiply(y, X @ w))


class SquaredLoss(GLMLoss):
    """ℓ(w, (x, y)) = ½(⟨w, x⟩ − y)².  L = X_max(X_max·M + Y_max) on B(0, M), β = X_max², rank-1 Hessian."""

    name = "squared"
    smooth = True
    hessian_rank_le_1 = True

    def phi(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        return 0.5 * (s - y) ** 2

    def dphi(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        return s - y

    def d2phi(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.ones_like(np.asarray(s, dtype=np.float64))

    def prox_scalar(self, a: np.ndarray, y: np.ndarray, t: np.ndarray) -> np.ndarray:
        return (a + t * y) / (1.0 + t)

    def phi_lipschitz(self, x_max: float, y_max: float, radius: float) -> float:
        if not math.isfinite(radius):
            raise ValueError("radius must be finite: the squared loss is Lipschitz only on a bounded domain")
        return x_max * radius + y_max

    def phi_smoothness(self) -> float | None:
        return 1.0

    def cvxpy_terms(self, w: Any, X: np.ndarray, y: np.ndarray) -> Any:
        import cvxpy as cp

        return 0.5 * cp.square(X @ w - y)


@dataclass(frozen=True, repr=False)
class HuberLoss(GLMLoss):
    """Huber loss of the residual r = ⟨w, x⟩ − y with threshold h > 0: r²/2 if |r| ≤ h, else h|r| − h²/2.

    L = X_max·min(h, X_max·M + Y_max), β = X_max².  Smooth but *not* twice differentiable, so it does
    not satisfy Assumption 5.1 (objective perturbation refuses it).
    """

    threshold: float = 1.0
    name: ClassVar[str] = "huber"
    smooth: ClassVar[bool] = True
    hessian_rank_le_1: ClassVar[bool] = False

    def __post_init__(self) -> None:
        if not (isinstance(self.threshold, (int, float)) and math.isfinite(self.threshold) and self.threshold > 0):
            raise ValueError(f"threshold must be a finite real > 0, got {self.threshold!r}")

    def phi(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        r = np.abs(s - y)
        h = self.threshold
        return np.where(r <= h, 0.5 * r**2, h * r - 0.5 * h * h)

    def dphi(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.clip(s - y, -self.threshold, self.threshold)

    def d2phi(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        # Generalised second derivative (the function is not C² at |r| = h); used by Newton oracles only.
        return (np.abs(s - y) <= self.threshold).astype(np.float64)

    def prox_scalar(self, a: np.ndarray, y: np.ndarray, t: np.ndarray) -> np.ndarray:
        r = a - y
        h = self.threshold
        inner = np.abs(r) <= h * (1.0 + t)
        return y + np.where(inner, r / (1.0 + t), r - t * h * np.sign(r))

    def phi_lipschitz(self, x_max: float, y_max: float, radius: float) -> float:
        return min(self.threshold, x_max * radius + y_max) if math.isfinite(radius) else self.threshold

    def phi_smoothness(self) -> float | None:
        return 1.0

    def cvxpy_terms(self, w: Any, X: np.ndarray, y: np.ndarray) -> Any:
        import cvxpy as cp

        # cvxpy's huber(u, M) = u² (|u| ≤ M), 2M|u| − M² otherwise: half of it is our Huber.
        return 0.5 * cp.huber(X @ w - y, self.threshold)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "threshold": self.threshold}

    def __repr__(self) -> str:
        return f"HuberLoss(threshold={self.threshold})"


class HingeLoss(GLMLoss):
    """ℓ(w, (x, y)) = max(0, 1 − y⟨w, x⟩), y ∈ {−1, +1}.  L = X_max, non-smooth."""

    name = "hinge"
    smooth = False
    hessian_rank_le_1 = False
    binary_labels = True

    def phi(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.maximum(0.0, 1.0 - y * s)

    def dphi(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.where(y * s < 1.0, -y, 0.0)

    def prox_scalar(self, a: np.ndarray, y: np.ndarray, t: np.ndarray) -> np.ndarray:
        u = y * a
        u_new = np.where(u >= 1.0, u, np.where(u <= 1.0 - t, u + t, 1.0))
        return y * u_new

    def phi_lipschitz(self, x_max: float, y_max: float, radius: float) -> float:
        return 1.0

    def cvxpy_terms(self, w: Any, X: np.ndarray, y: np.ndarray) -> Any:
        import cvxpy as cp

        return cp.pos(1 - cp.multiply(y, X @ w))


class AbsoluteLoss(GLMLoss):
    """ℓ(w, (x, y)) = |y − ⟨w, x⟩| (least absolute deviations).  L = X_max, non-smooth."""

    name = "absolute"
    smooth = False
    hessian_rank_le_1 = False

    def phi(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.abs(y - s)

    def dphi(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.sign(s - y)

    def prox_scalar(self, a: np.ndarray, y: np.ndarray, t: np.ndarray) -> np.ndarray:
        r = a - y
        return y + np.sign(r) * np.maximum(np.abs(r) - t, 0.0)

    def phi_lipschitz(self, x_max: float, y_max: float, radius: float) -> float:
        return 1.0

    def cvxpy_terms(self, w: Any, X: np.ndarray, y: np.ndarray) -> Any:
        import cvxpy as cp

        return cp.abs(y - X @ w)


class LinearLoss(GLMLoss):
    """ℓ(w, (x, y)) = ⟨w, x⟩ (y ignored).  L = X_max, β = 0, Hessian 0.

    Not a learning loss: it is the canary of the privacy audits and the tight instance of the stability
    and lower-bound checks (``docs/derivations.md#stability-of-the-averaged-iterate``,
    ``docs/derivations.md#tight-instance-for-the-statistical-rate``), because its gradient does not depend on w.
    """

    name = "linear"
    smooth = True
    hessian_rank_le_1 = True

    def phi(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.asarray(s, dtype=np.float64).copy()

    def dphi(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.ones_like(np.asarray(s, dtype=np.float64))

    def d2phi(self, s: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.zeros_like(np.asarray(s, dtype=np.float64))

    def prox_scalar(self, a: np.ndarray, y: np.ndarray, t: np.ndarray) -> np.ndarray:
        return a - t

    def phi_lipschitz(self, x_max: float, y_max: float, radius: float) -> float:
        return 1.0

    def phi_smoothness(self) -> float | None:
        return 0.0

    def cvxpy_terms(self, w: Any, X: np.ndarray, y: np.ndarray) -> Any:
        return X @ w


_LOSSES: dict[str, type[GLMLoss]] = {
    cls.name: cls for cls in (LogisticLoss, SquaredLoss, HuberLoss, HingeLoss, AbsoluteLoss, LinearLoss)
}


def get_loss(name: str, **kwargs: Any) -> GLMLoss:
    """Loss object by name (``logistic``, ``squared``, ``huber``, ``hinge``, ``absolute``, ``linear``)."""
    try:
        cls = _LOSSES[name]
    except KeyError:
        raise ValueError(f"loss must be one of {sorted(_LOSSES)}, got {name!r}") from None
    return cls(**kwargs)
