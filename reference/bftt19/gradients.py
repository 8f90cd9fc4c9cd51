"""The per-sample gradient oracles Algorithm 1 (A_NSGD) runs on, with a fast path for its clipped mean.

    R. Bassily, V. Feldman, K. Talwar, A. Thakurta. "Private Stochastic Convex Optimization with Optimal
    Rates." NeurIPS 2019, arXiv:1908.09970 (Algorithm 1; Sec. 4 for the Moreau envelope and A_ProxGD).

Algorithm 1, line 6 needs g_t = (1/m) Σ_j clip_C(∇ℓ(w_t, z_{i(t,j)})), the mean of the m clipped per-sample
gradients.  ``nsgd_core`` (``dpsco.reference.bftt19.algorithms``) computes it the readable way: a ``GradFn``
returns the (R, m, d) per-sample gradients of R replicate runs, ``clip_per_sample`` clips them, ``mean`` averages.

For the three oracles of the paper's GLM algorithms every per-sample gradient is a multiple of its record,
∇_{r,j} = c_{r,j} · x_{i(r,j)}:

* A_NSGD:                 ∇ℓ(w, z) = φ'(⟨w, x⟩, y) · x;
* Moreau envelope (R^d):  ∇ℓ_β(w, z) = β(w − prox(w)) = β(a − s)/‖x‖² · x, with a = ⟨w, x⟩ and s the 1-D prox
                          (``dpsco.reference.losses.GLMLoss.prox``);
* A_ProxGD (localised):   every inner iterate is v_k = w + c_k x, so the K − 1 subgradient steps of
                          ``approximate_envelope_gradient`` are a scalar recursion in c_k and β(w − v_K) = −β c_K x.

Then ‖∇_{r,j}‖ = |c_{r,j}|·‖x_{i(r,j)}‖ needs no d-vector, and when nothing is clipped the mean is the
contraction Σ_j c_{r,j} x_{i(r,j)} / m.  ``ParallelGradientOracle.clipped_mean`` computes exactly that, in
blocks of replicates small enough to stay in cache; a block in which any gradient is within rounding of the
clipping threshold is computed by the generic path instead (``clip_per_sample`` on the oracle's own (B, m, d)
gradients), so the clipping events are those of the generic path.  Nothing here touches the random streams,
the threshold C, m, σ or η: the fast path changes how g_t is computed, not what it is (tests:
``tests/test_fast_paths.py``, generic against fast to ≤ 1e-12; for A_NSGD the two are bit-identical on
numpy 2.x, whose reductions over the batch axis add in the same order).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Callable

import numpy as np

from dpsco.reference.clipping import clip_rows, row_norms
from dpsco.reference.domains import Ball, require_centred
from dpsco.reference.projections import project_ball

__all__ = [
    "GradFn",
    "clip_per_sample",
    "ParallelGradientOracle",
    "GLMGradientOracle",
    "EnvelopeGradientOracle",
    "ApproximateEnvelopeGradientOracle",
    "approximate_envelope_gradient",
]

GradFn = Callable[[np.ndarray, np.ndarray], np.ndarray]

#: elements of one (B, m, d) block of ``clipped_mean`` (1 MiB of float64: fits in a core's L2 cache)
BLOCK_ELEMENTS = 1 << 17
_EPS = float(np.finfo(np.float64).eps)


def clip_per_sample(grads: np.ndarray, clip_norm: float) -> tuple[np.ndarray, int]:
    """Algorithm 1's per-sample clipping: every row (last axis) is scaled to norm ≤ ``clip_norm``, guaranteed in
    floating point (``dpsco.reference.clipping.clip_rows``: overflow/underflow-safe norms; a row with an infinite
    entry goes to its limit direction, a row with a NaN to 0); returns (clipped gradients, number of clip events).

    A clip event is a row whose norm exceeds ``clip_norm`` by more than the relative slack 1e-9 (or is not finite):
    a violation of the declared Lipschitz bound, not rounding.  Rows in (C, C(1 + 1e-9)] are rescaled too (by a
    factor ≥ 1 − 1e-9), so the sensitivity bound 2C/m of the batch mean holds exactly, but are not counted.
    Returns ``grads`` itself when every row already has norm ≤ C (the usual case: a no-op).

    grads : (..., d) float array;  clip_norm : float > 0.
    """
    grads = np.asarray(grads, dtype=np.float64)
    norms = row_norms(grads)
    if np.all(norms <= clip_norm):
        return grads, 0
    events = int(np.count_nonzero(~(norms <= clip_norm * (1.0 + 1e-9))))
    return clip_rows(grads, clip_norm), events


def _mean_of_scaled_rows(c: np.ndarray, Xb: np.ndarray) -> np.ndarray:
    """(1/m) Σ_j c[r, j] · Xb[r, j, :] for c (B, m), Xb (B, m, d): the same products, summed over j in the same
    order as ``(c[:, :, None] * Xb).mean(axis=1)``, without the (B, m, d) temporary."""
    m = c.shape[1]
    if Xb.shape[2] == 1:  # numpy sums a contiguous axis pairwise: reduce the (B, m) products the same way
        return (c * Xb[:, :, 0]).mean(axis=1)[:, None]
    return np.einsum("rm,rmd->rd", c, Xb) / m


def _inner(Xb: np.ndarray, W: np.ndarray) -> np.ndarray:
    """(B, m) inner products ⟨W[r], Xb[r, j]⟩ (one matrix-vector product per replicate: 2-3x faster than einsum;
    each row's value depends only on that row, so blocks of replicates give the same numbers)."""
    return np.matmul(Xb, W[:, :, None])[:, :, 0]


class ParallelGradientOracle(ABC):
    """A per-sample gradient oracle whose gradients are multiples of their records, ∇_{r,j} = c_{r,j}·x_{i(r,j)}.

    Calling the oracle is the generic ``GradFn`` of ``nsgd_core``: ``oracle(W, idx)`` with W (R, d) iterates and
    idx (R, m) row indices returns the (R, m, d) per-sample gradients, computed as the paper writes them.
    ``clipped_mean(W, idx, clip_norm)`` returns the same ((R, d) mean of the per-sample gradients clipped by
    ``clip_per_sample``, number clipped) from the scalars c (``coefficients``), which ``nsgd_core`` uses when
    the oracle offers it.

    X : (n, d) float array, y : (n,) float array (the checked data).
    """

    def __init__(self, X: np.ndarray, y: np.ndarray) -> None:
        self.X = np.ascontiguousarray(X, dtype=np.float64)
        self.y = np.ascontiguousarray(y, dtype=np.float64)
        self.sq_norms = np.einsum("ij,ij->i", self.X, self.X)  # ‖x_i‖²
        self.norms = row_norms(self.X)  # ‖x_i‖ without the underflow of √(‖x_i‖²) for entries below 1e-154

    @abstractmethod
    def __call__(self, W: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """The generic path: (R, m, d) per-sample gradients at W (R, d) for the records idx (R, m)."""

    @abstractmethod
    def coefficients(self, W: np.ndarray, idx: np.ndarray, Xb: np.ndarray) -> np.ndarray | None:
        """(B, m) scalars c with ∇_{r,j} = c[r, j]·Xb[r, j] (Xb = X[idx], W (B, d)), or None when this oracle's
        gradients are not multiples of the records (the generic path is then used)."""

    def rounding_slack(self, W: np.ndarray, clip_norm: float) -> np.ndarray:
        """(B,) absolute bound on |generic ‖∇‖ − |c|·‖x‖| from floating point, per replicate: a block whose
        |c|·‖x‖ comes within it of the clipping threshold is computed by the generic path."""
        d = self.X.shape[1]
        return np.full(W.shape[0], clip_norm * (1e-12 + (d + 8) * _EPS))

    def clipped_mean(self, W: np.ndarray, idx: np.ndarray, clip_norm: float) -> tuple[np.ndarray, int]:
        """((R, d) mean over j of the per-sample gradients clipped to ``clip_norm``, number clipped): the value
        of ``clip_per_sample(self(W, idx), clip_norm)`` followed by ``.mean(axis=1)``, in blocks of replicates."""
        R, m = idx.shape
        d = self.X.shape[1]
        out = np.empty((R, d))
        clipped = 0
        block = max(1, BLOCK_ELEMENTS // max(1, m * d))
        for r0 in range(0, R, block):
            Wb, ib = W[r0:r0 + block], idx[r0:r0 + block]
            Xb = np.take(self.X, ib, axis=0)  # X[ib], (B, m, d) (take: 3x faster than fancy indexing)
            c = self.coefficients(Wb, ib, Xb)
            if c is not None:
                # the fast path only where every per-sample norm |c|·‖x‖ is below C by more than the rounding of
                # either path (the fail-safe of the sensitivity bound: nothing near C, and no NaN or inf, which
                # fails the comparison); any other block is clipped row by row by the generic path
                threshold = clip_norm - self.rounding_slack(Wb, clip_norm)
                if np.all(np.abs(c) * self.norms[ib] <= threshold[:, None]):
                    out[r0:r0 + block] = _mean_of_scaled_rows(c, Xb)
                    continue
            grads, k = clip_per_sample(self(Wb, ib), clip_norm)  # generic path for this block
            out[r0:r0 + block] = grads.mean(axis=1)
            clipped += k
        return out, clipped


class GLMGradientOracle(ParallelGradientOracle):
    """A_NSGD's per-sample gradients ∇ℓ(w_r, z_i) = φ'(⟨w_r, x_i⟩, y_i)·x_i of a GLM loss (``loss.dphi``).

    loss : a ``dpsco.reference.losses.GLMLoss``; X (n, d), y (n,).
    """

    def __init__(self, loss: Any, X: np.ndarray, y: np.ndarray) -> None:
        super().__init__(X, y)
        self.loss = loss

    def __call__(self, W: np.ndarray, idx: np.ndarray) -> np.ndarray:
        Xb = self.X[idx]  # (R, m, d)
        s = _inner(Xb, W)  # ⟨w_r, x_{idx[r, j]}⟩
        return self.loss.dphi(s, self.y[idx])[:, :, None] * Xb

    def coefficients(self, W: np.ndarray, idx: np.ndarray, Xb: np.ndarray) -> np.ndarray:
        return self.loss.dphi(_inner(Xb, W), self.y[idx])


class EnvelopeGradientOracle(ParallelGradientOracle):
    """Per-sample gradients of the β-Moreau envelope over R^d, ∇ℓ_β(w, z) = β(w − prox_{ℓ(·,z)/β}(w))
    (Bassily et al. 2019, Lemma 4.3, property 3), with the exact prox of ``loss.prox``.

    loss : GLMLoss; X (n, d), y (n,); beta : β > 0.
    """

    def __init__(self, loss: Any, X: np.ndarray, y: np.ndarray, beta: float) -> None:
        super().__init__(X, y)
        self.loss, self.beta = loss, float(beta)

    def __call__(self, W: np.ndarray, idx: np.ndarray) -> np.ndarray:
        R, m = idx.shape
        g = self.loss.envelope_grad(np.repeat(W, m, axis=0), self.X[idx.ravel()], self.y[idx.ravel()], self.beta)
        return g.reshape(R, m, self.X.shape[1])

    def coefficients(self, W: np.ndarray, idx: np.ndarray, Xb: np.ndarray) -> np.ndarray:
        # prox(w) = w − ((a − s)/r)·x with a = ⟨w, x⟩, r = ‖x‖², s the 1-D prox at step t = r/β (losses.GLMLoss.prox)
        a = _inner(Xb, W)
        r = self.sq_norms[idx]
        c = np.zeros_like(a)
        nz = r > 0
        if nz.all():
            s = self.loss.prox_scalar(a, self.y[idx], r / self.beta)
            return self.beta * ((a - s) / r)
        s = self.loss.prox_scalar(a[nz], self.y[idx][nz], r[nz] / self.beta)
        c[nz] = self.beta * ((a[nz] - s) / r[nz])
        return c

    def rounding_slack(self, W: np.ndarray, clip_norm: float) -> np.ndarray:
        # the generic β(w − (w − ((a − s)/r) x)) cancels: its error is a few ulps of β‖w‖ and of the gradient
        return super().rounding_slack(W, clip_norm) + 16 * _EPS * (self.beta * np.linalg.norm(W, axis=1) + clip_norm)


def approximate_envelope_gradient(
    loss: Any, W: np.ndarray, X: np.ndarray, y: np.ndarray, beta: float, K: int, *, domain: Ball,
    local_radius: float | None,
) -> np.ndarray:
    """ApproxEnvGrad, A_ProxGD's inner loop (``docs/derivations.md#reconstruction-of-proxgd``), row by row,
    using only subgradients of ℓ.

    For each row: φ(v) = ℓ(v, z) + (β/2)‖v − w‖² is β-strongly convex; starting from v_1 = w, take K − 1
    projected subgradient steps v_{k+1} = Proj_C(v_k − s_k/(βk)), s_k ∈ ∂φ(v_k), and return β(w − v_K).
    C = B(w, local_radius) (R^d prox, localised: contains prox_Rd(w) because ‖prox(w) − w‖ ≤ L/β) when
    ``local_radius`` is given, else C = W (the paper's W-constrained prox, Def. 4.2).
    Error: ‖β(w − v_K) − ∇ℓ_β(w, z)‖ ≤ 2G_φ/√K (Rakhlin–Shamir–Sridharan 2012, Lemma 1, deterministic case).

    Shapes: W, X (k, d); y (k,).  Returns (k, d).  Raises ValueError if ``domain`` is not centred at 0.
    """
    require_centred(domain, "domain")  # W = B(0, M) (Sec. 2)
    v = W.copy()  # v_1 = w
    for k in range(1, K):
        s = loss.dphi(np.einsum("ij,ij->i", v, X), y)[:, None] * X + beta * (v - W)
        v = v - s / (beta * k)
        if local_radius is None:
            v = domain.project(v)
        else:
            v = project_ball(v, local_radius, W)  # onto B(w, local_radius): the one core projection
    return beta * (W - v)


class ApproximateEnvelopeGradientOracle(ParallelGradientOracle):
    """A_ProxGD's per-sample approximate envelope gradients β(w − v_K) (``approximate_envelope_gradient``).

    loss : GLMLoss; X (n, d), y (n,); beta : β > 0; K : inner iterations (K − 1 subgradient steps);
    domain : the Ball W; local_radius : radius of the localised prox set B(w, L/β), or None for C = W (whose
    projection leaves the line w + R·x: that variant always takes the generic path).

    For a loss with a kink (hinge, absolute) the two paths compute ⟨v_k, x⟩ with different rounding, so if an
    inner iterate lands within rounding of the kink they may take different subgradients there: both are runs of
    the same algorithm (any subgradient is allowed, the ξ-accuracy bound and the clipping hold for either), but
    from then on that sample's gradient differs by more than rounding.  The chance is the rounding error relative
    to the iterates' spread around the kink (about 1e-14 per sample and inner step); the tests' seeds do not hit
    it, and smooth losses (the Fair instance's logistic) cannot.
    """

    def __init__(self, loss: Any, X: np.ndarray, y: np.ndarray, beta: float, K: int, *, domain: Ball,
                 local_radius: float | None) -> None:
        super().__init__(X, y)
        self.loss, self.beta, self.K = loss, float(beta), int(K)
        self.domain, self.local_radius = require_centred(domain, "domain"), local_radius  # W = B(0, M) (Sec. 2)

    def __call__(self, W: np.ndarray, idx: np.ndarray) -> np.ndarray:
        R, m = idx.shape
        g = approximate_envelope_gradient(self.loss, np.repeat(W, m, axis=0), self.X[idx.ravel()],
                                          self.y[idx.ravel()], self.beta, self.K, domain=self.domain,
                                          local_radius=self.local_radius)
        return g.reshape(R, m, self.X.shape[1])

    def coefficients(self, W: np.ndarray, idx: np.ndarray, Xb: np.ndarray) -> np.ndarray | None:
        if self.local_radius is None:
            return None
        # v_k = w + c_k x: ⟨v_k, x⟩ = a + c_k r, the subgradient step is c ← c − (φ'(a + c r) + β c)/(βk), and the
        # projection onto B(w, ρ) clips c to ±ρ/‖x‖ (none when x = 0).  v_1 = w: c_1 = 0.  β(w − v_K) = −β c_K x.
        a = _inner(Xb, W)
        r, yb = self.sq_norms[idx], self.y[idx]
        with np.errstate(over="ignore"):  # ρ/‖x‖ for a subnormal ‖x‖ is +inf: no bound, as for x = 0
            bound = np.divide(self.local_radius, self.norms[idx], out=np.full(a.shape, np.inf),
                              where=self.norms[idx] > 0)
        beta = self.beta
        c = np.zeros_like(a)
        for k in range(1, self.K):
            c = c * (1.0 - 1.0 / k) - self.loss.dphi(a + c * r, yb) / (beta * k)  # c − (φ'(a + cr) + βc)/(βk)
            np.clip(c, -bound, bound, out=c)
        return -beta * c

    def rounding_slack(self, W: np.ndarray, clip_norm: float) -> np.ndarray:
        # the generic loop moves d-vectors around w for K − 1 steps: a few ulps of β‖w‖ per step
        return (super().rounding_slack(W, clip_norm)
                + 16 * self.K * _EPS * (self.beta * np.linalg.norm(W, axis=1) + clip_norm))
