"""The replicate axis of objective perturbation: k independent runs of A_ObjP (Bassily et al. 2019, Algorithm 2)
and of efficient objective perturbation (its Prox-SVRG variant, Sec. 5) solved together.

The readable single-run functions ``objective_perturbation`` and ``efficient_objective_perturbation`` of
``dpsco.reference.bftt19.algorithms`` are the reference; with ``replicates=k`` they call the batched solvers
here, which iterate on a (k, d) array of points and certify every row on its own.

Stream layout (both algorithms): a call with ``replicates=k`` on generator ``rng`` spawns ``rng.spawn(k)`` and
replicate r consumes child r exactly as a single call consumes its own generator.  So replicate r of a batched call
on ``default_rng(s)`` draws the same perturbation G (and, for the SVRG variant, the same SVRG indices and the same
output noise) as a single call on ``default_rng(s).spawn(k)[r]``; ``tests/bftt19/test_bftt19_objp_replicates.py`` checks that
the outputs then agree within the sum of the two certified distances.

Certificates.  Every row is certified by the strong-convexity gap of ``dpsco.reference.glm_certificate``
(route 2 with the global modulus μ = 2λ, and the linear distance bound through the smoothness constant β_F),
evaluated for all rows at once.  The only change is the gradient sum Σ_i π_i φ'(⟨w, x_i⟩) x_i: instead of a
correctly rounded ``math.fsum`` per coordinate (a Python loop over n numbers, half the time of a single run) it
is summed in blocks of ``_BLOCK`` rows by BLAS, whose error is at most γ_b Σ_i |π_i φ'_i||x_i| per block
(Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §3.1, for any summation order), and the
block sums are accumulated with the error-free TwoSum (Knuth, TAOCP vol. 2, §4.2.2) plus a compensation term;
the bound of that sum (:func:`_gradient_sums`) is added to the gradient's rounding allowance.  A row whose
certificate misses the tolerance is re-solved by the single-run solver (``certified_minimize``, whose own
certificate then decides), so no row is released uncertified unless even that solver fails.

Fail-safe (never raise after the data checks).  An exception that depends on the data is a release too (with
ε = ∞), so where the single-run solver cannot certify the tolerance (floating point on extreme inputs, e.g.
W = B(0, 1e100)), :func:`certified_or_best` returns its best point instead of raising and marks it uncertified
(``BatchedSolution.certified``); the algorithms record that in their diagnostics, which are never published.
Efficient objective perturbation likewise re-solves a row whose Prox-SVRG stages reach ``max_stages`` with the
certified Newton solver instead of raising.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from dpsco.reference.certificates import UNIT_ROUNDOFF as _U
from dpsco.reference.certificates import Certificate, UncertifiedError, regulariser_gap, rounding_gamma
from dpsco.reference.domains import Ball, require_centred
from dpsco.reference.losses import GLMLoss
from dpsco.reference.solvers import certified_minimize
from dpsco.reference.validation import check_iterations

__all__ = ["BatchedSolution", "CertifiedPoint", "batched_certificates", "batched_objp_minimize", "batched_prox_svrg",
           "certified_or_best"]

#: rows per BLAS block of the certified gradient sum (error γ_b per block; b = 128 gives ≤ 3e-14·Σ|terms|)
_BLOCK = 128
#: float64 elements of the largest temporary (replicates × n × d) the batched Newton builds at once
_TEMP_ELEMENTS = 2_000_000
#: rows solved together: larger calls are split into blocks of rows of at most this many n-vectors (k·n floats),
#: so the (k, n) temporaries stay near 16 MB whatever the caller's k
_ROW_ELEMENTS = 2_000_000


def _row_blocks(k: int, n: int) -> list[slice]:
    rows = max(1, _ROW_ELEMENTS // max(n, 1))
    return [slice(lo, min(lo + rows, k)) for lo in range(0, k, rows)]


def _concat(parts: list[BatchedSolution]) -> BatchedSolution:
    return BatchedSolution(W=np.vstack([p.W for p in parts]),
                           certificates=[c for p in parts for c in p.certificates],
                           iterations=np.concatenate([p.iterations for p in parts]),
                           fallback=np.concatenate([p.fallback for p in parts]),
                           certified=np.concatenate([p.certified for p in parts]))


@dataclass(frozen=True)
class CertifiedPoint:
    """The outcome of :func:`certified_or_best`: ``w`` (d,) in W, its ``certificate`` (None if the solver
    failed before certifying anything), ``certified`` (the tolerance was met), ``iterations`` (Newton steps),
    ``note`` (why the point is uncertified, else empty)."""

    w: np.ndarray
    certificate: Certificate | None
    certified: bool
    iterations: int
    note: str = ""


def certified_or_best(loss: GLMLoss, X: np.ndarray, y: np.ndarray, domain: Ball, *, lam: float,
                      linear: np.ndarray, tol: float) -> CertifiedPoint:
    """``certified_minimize`` with the fail-safe of the module docstring: the certified point when the solver
    meets ``tol``; otherwise (``UncertifiedError``, or a floating-point failure inside the solver) its best point
    (the projection of Proj_W(0) if it has none), marked ``certified=False``.  Never raises for validated data.

    loss, X (n, d), y (n,), domain, lam, linear (d,), tol : as ``dpsco.reference.solvers.certified_minimize``.
    Raises ValueError (before the fail-safe) if ``domain`` is not centred at 0.
    """
    require_centred(domain, "domain")  # W = B(0, M): checked here, outside the fail-safe that catches ValueError
    try:
        sol = certified_minimize(loss, X, y, domain, lam=lam, linear=linear, tol=tol)
        return CertifiedPoint(sol.w, sol.certificate, True, int(sol.iterations))
    except UncertifiedError as exc:
        w = exc.w if exc.w is not None and np.all(np.isfinite(exc.w)) else np.zeros(X.shape[1])
        return CertifiedPoint(domain.project(np.asarray(w, dtype=np.float64)), exc.certificate, False, 0,
                              f"uncertified: {exc}")
    except (ArithmeticError, np.linalg.LinAlgError, ValueError) as exc:  # fail-safe: no exception after the checks
        return CertifiedPoint(domain.project(np.zeros(X.shape[1])), None, False, 0,
                              f"solver failed ({type(exc).__name__}: {exc}); released Proj_W(0)")


@dataclass(frozen=True)
class BatchedSolution:
    """k points: ``W`` (k, d), ``certificates`` (one per row), ``iterations`` (k,) Newton steps or SVRG stages per
    row, ``fallback`` (k,) bool: rows re-solved by the single-run solver, ``certified`` (k,) bool: rows whose
    certificate meets the tolerance (all of them unless the fail-safe of the module docstring fired)."""

    W: np.ndarray
    certificates: list[Certificate | None]
    iterations: np.ndarray
    fallback: np.ndarray
    certified: np.ndarray = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.certified is None:
            object.__setattr__(self, "certified", np.ones(np.shape(self.W)[0], dtype=bool))

    def worst(self) -> Certificate | None:
        """The certificate with the largest distance bound (a missing certificate or bound counts as infinite)."""
        return max(self.certificates,
                   key=lambda c: math.inf if c is None or c.distance_bound is None else c.distance_bound)


class _Data:
    """X, y, uniform weights π_i = fl(1/n) (as ``prepare_problem`` builds them) and the per-problem constants."""

    def __init__(self, loss: GLMLoss, X: np.ndarray, y: np.ndarray, domain: Ball, lam: float):
        require_centred(domain, "domain")  # the batched solvers keep M only: W = B(0, M)
        self.loss, self.X, self.y, self.lam, self.M = loss, X, y, float(lam), float(domain.radius)
        self.domain = domain
        self.n, self.d = X.shape
        self.pi = np.full(self.n, 1.0 / self.n)
        self.absX = np.abs(X)
        self._beta_F: float | None = None

    def beta_F(self) -> float | None:
        """β_F ≥ sup ‖∇²F‖, as ``glm_certificate`` computes it (upper curvature of the data term + 2λ)."""
        b = self.loss.phi_smoothness()
        if b is None or not self.loss.smooth:
            return None
        if self._beta_F is None:
            A = (self.X.T * self.pi) @ self.X
            lmax = float(np.linalg.eigvalsh(A)[-1])
            fro = float(np.linalg.norm(A))
            fro_abs = float(np.linalg.norm((self.absX.T * self.pi) @ self.absX))
            lmax_safe = lmax + 10 * self.d * _U * fro + rounding_gamma(self.n + 2) * fro_abs
            self._beta_F = b * lmax_safe * (1 + 4 * _U) + 2 * self.lam
        return self._beta_F


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Knuth's TwoSum: s = fl(a + b) and the exact error t with a + b = s + t (round to nearest, no overflow)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _gradient_sums(PA: np.ndarray, X: np.ndarray, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(g, e): g ≈ PA @ X (k, d) and e (k, d) ≥ |g − PA @ X| entrywise (exact products and sums).

    S (k, d) ≥ |PA| @ |X| (the caller's, rounding included).  Blocks of b rows by BLAS:
    |fl(block) − block| ≤ γ_b·(|PA_blk| @ |X_blk|).  Block sums p_j accumulated by TwoSum: Σ p_j = s + Σ t_j
    exactly, the t_j summed in floating point (|t_j| ≤ u|s_j| ≤ u·2S; error ≤ γ_m·m·u·2S for m blocks), and
    g = fl(s + Σ t) (error ≤ u|g|)."""
    n = X.shape[0]
    s = np.zeros((PA.shape[0], X.shape[1]))
    comp = np.zeros_like(s)
    m = 0
    for lo in range(0, n, _BLOCK):
        s, t = _two_sum(s, PA[:, lo:lo + _BLOCK] @ X[lo:lo + _BLOCK])
        comp += t
        m += 1
    g = s + comp
    e = (rounding_gamma(_BLOCK) + 2 * m * _U * (1 + rounding_gamma(m))) * S * (1 + 4 * _U) + _U * np.abs(g)
    return g, e


def _certify_rows(D: _Data, W: np.ndarray, C: np.ndarray) -> list[Certificate]:
    """Route 2 of ``glm_certificate.certify_problem`` (strong-convexity gap, μ = 2λ, linear distance bound via
    β_F) for every row of W (k, d) with its linear term C (k, d); rows must lie in W (‖w‖ ≤ M)."""
    X, y, pi, lam, M, d = D.X, D.y, D.pi, D.lam, D.M, D.d
    outside = np.linalg.norm(W, axis=1) > M  # the distance bound needs w ∈ W: such rows get no certificate
    S = W @ X.T  # (k, n)
    e_S = rounding_gamma(d + 1) * (np.abs(W) @ D.absX.T) + _U * np.abs(S)
    A = D.loss.dphi(S, y[None, :])
    PA = pi * A
    abs_terms = (np.abs(PA) @ D.absX) * (1 + rounding_gamma(D.n + 2))  # ≥ Σ_i |π_i φ'_i||x_i| (k, d)
    gsum, e_sum = _gradient_sums(PA, X, abs_terms)
    g = gsum + C + 2 * lam * W
    comp = (3 * _U * abs_terms + e_sum + 2 * _U * (np.abs(C) + 2 * lam * np.abs(W))
            + 2 * _U * np.abs(g))
    e_g = np.linalg.norm(comp, axis=1) * (1 + rounding_gamma(d))
    beta_phi = D.loss.phi_smoothness() or 0.0
    dev = 8 * _U * np.abs(A) + beta_phi * e_S  # |fl(φ'(fl s)) − φ'(s)|
    e_true = e_g + np.linalg.norm((pi * dev) @ D.absX, axis=1) * (1 + rounding_gamma(D.n + 2))
    mu = 2.0 * lam
    beta_F = D.beta_F()
    out = []
    for r in range(W.shape[0]):
        if outside[r]:
            out.append(Certificate(math.inf, None, "none (point outside W)", 0.0))
            continue
        R = regulariser_gap(g[r], float(e_true[r]), W[r], M, mu)
        dist = math.sqrt(2 * R.bound / mu) * (1 + 4 * _U) if math.isfinite(R.bound) else math.inf
        if beta_F is not None and math.isfinite(R.vhat_dist):
            kappa = 1.0 + math.sqrt(max(beta_F / mu - 1.0, 0.0))
            dist = min(dist, kappa * R.vhat_dist * (1 + 8 * _U))
        name = "strong-convexity gap (2*lam), blocked TwoSum gradient"
        out.append(Certificate(gap_bound=float(R.bound), distance_bound=float(dist) if math.isfinite(dist) else None,
                               method=name, strong_convexity=mu,
                               details={name: {"gap": float(R.bound), "distance": float(dist), "mu": mu,
                                               "gradient_error": float(e_true[r])}}))
    return out


def batched_certificates(loss: GLMLoss, X: np.ndarray, y: np.ndarray, domain: Ball, W: np.ndarray, *,
                         lam: float, linear: np.ndarray) -> list[Certificate]:
    """A-posteriori certificates for k points of k objectives F_r(w) = (1/n)Σ_i φ(⟨w, x_i⟩, y_i) + ⟨c_r, w⟩ +
    λ‖w‖² over W = B(0, M), one per row (strong-convexity gap with μ = 2λ; module docstring).

    loss : a smooth GLMLoss;  X : (n, d), y : (n,) validated float64 data;  domain : Ball;  W : (k, d) points with
    ‖w_r‖ ≤ M;  lam : λ > 0;  linear : (k, d) the c_r.  Returns a list of k ``Certificate`` (distance bounds
    ‖w_r − argmin F_r‖).  Raises ValueError for a non-smooth loss, λ ≤ 0 or a row outside W.
    """
    if not loss.smooth:
        raise ValueError(f"loss: batched certificates need a smooth loss, got {loss.name}")
    if not lam > 0:
        raise ValueError(f"lam must be > 0 for the strong-convexity certificate, got {lam!r}")
    W = np.asarray(W, dtype=np.float64)
    if math.isfinite(domain.radius) and np.any(np.linalg.norm(W, axis=1) > domain.radius):
        raise ValueError("W: every row must lie in the domain")
    return _certify_rows(_Data(loss, X, y, domain, lam), W, np.asarray(linear, dtype=np.float64))


def _grads(D: _Data, W: np.ndarray, C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(φ''(s_ri) (k, n), ∇F_r at every row (k, d)), s_ri = ⟨w_r, x_i⟩.  For the logistic loss both come from one
    expit (φ' = −y·q, φ'' = q(1 − q), q = σ(−ys): half the transcendental work of two loss calls)."""
    S = W @ D.X.T
    yy = D.y[None, :]
    if D.loss.name == "logistic":
        q = expit(-yy * S)
        dphi, d2 = -yy * q, q * (1.0 - q)
    else:
        dphi, d2 = D.loss.dphi(S, yy), D.loss.d2phi(S, yy)
    return d2, (D.pi * dphi) @ D.X + C + 2 * D.lam * W


def _hessians(D: _Data, d2: np.ndarray, XX: np.ndarray | None) -> np.ndarray:
    """∇²F_r = Σ_i π_i φ''(s_ri) x_i x_iᵀ + 2λI for every row of d2 = φ''(s) (k, n): (k, d, d).  With
    XX = (x_i x_iᵀ)_i as an (n, d²) array one BLAS product; otherwise in chunks of at most _TEMP_ELEMENTS floats."""
    h = D.pi * d2  # (k, n)
    k, d = d2.shape[0], D.d
    if XX is not None:
        H = (h @ XX).reshape(k, d, d)
    else:
        H = np.empty((k, d, d))
        step = max(1, _TEMP_ELEMENTS // (D.n * d))
        for lo in range(0, k, step):
            H[lo:lo + step] = np.swapaxes(h[lo:lo + step, :, None] * D.X[None], 1, 2) @ D.X
    H[:, np.arange(d), np.arange(d)] += 2 * D.lam
    return H


def _batched_newton(D: _Data, C: np.ndarray, W0: np.ndarray, max_iter: int) -> tuple[np.ndarray, np.ndarray]:
    """Damped Newton on every row's unconstrained F_r (strongly convex) from W0 (k, d), all rows at once.  A step
    t·p (t = 1, 1/2, ...) is taken when it decreases ‖∇F_r‖ (which the next step needs anyway; the certificate,
    not this rule, decides what is released).  A row stops when its step is below 1e-13·(1 + ‖w‖), or when no
    t ≥ 2⁻¹⁰ decreases its gradient (float precision, or a row
    left to the single-run fallback).  Returns (W, Newton steps per row)."""
    k, d = C.shape
    XX = (D.X[:, :, None] * D.X[:, None, :]).reshape(D.n, d * d) if D.n * d * d <= _TEMP_ELEMENTS else None
    W = W0.copy()
    iters = np.zeros(k, dtype=np.int64)
    active = np.arange(k)
    S, G = _grads(D, W, C)
    for _ in range(max_iter):
        # ∇²F_r ⪰ 2λI, so ‖Newton step‖ ≤ ‖∇F_r‖/(2λ): rows whose step is surely at float precision stop before
        # their Hessian is formed
        near = np.linalg.norm(G, axis=1) / (2 * D.lam) <= 1e-13 * (1 + np.linalg.norm(W[active], axis=1))
        active, S, G = active[~near], S[~near], G[~near]
        if active.size == 0:
            break
        H = _hessians(D, S, XX)
        try:
            P = -np.linalg.solve(H, G[:, :, None])[:, :, 0]
        except np.linalg.LinAlgError:
            break  # leave these rows to the certificate (and the single-run fallback)
        Wa, Ca = W[active], C[active]
        ng = np.linalg.norm(G, axis=1)
        t = np.ones(active.size)
        # a step below 1e-13·(1 + ‖w‖) is at float precision: stop without a line search
        pending = (np.all(np.isfinite(P), axis=1)
                   & (np.linalg.norm(P, axis=1) > 1e-13 * (1 + np.linalg.norm(Wa, axis=1))))
        accepted = np.zeros(active.size, dtype=bool)
        S_new, G_new = np.empty_like(S), np.empty_like(G)
        for _half in range(11):
            idx = np.flatnonzero(pending)
            if idx.size == 0:
                break
            St, Gt = _grads(D, Wa[idx] + t[idx, None] * P[idx], Ca[idx])
            ok = np.linalg.norm(Gt, axis=1) < ng[idx]
            accepted[idx[ok]] = True
            S_new[idx[ok]], G_new[idx[ok]] = St[ok], Gt[ok]
            pending[idx[ok]] = False
            t[idx[~ok]] *= 0.5
        step = t[:, None] * P
        W[active[accepted]] = Wa[accepted] + step[accepted]
        iters[active[accepted]] += 1
        going = accepted & (np.linalg.norm(step, axis=1) > 1e-13 * (1 + np.linalg.norm(Wa, axis=1)))
        active, S, G = active[going], S_new[going], G_new[going]
    return W, iters


def batched_objp_minimize(loss: GLMLoss, X: np.ndarray, y: np.ndarray, domain: Ball, *, lam: float,
                          linear: np.ndarray, tol: float, max_iter: int = 50) -> BatchedSolution:
    """Certified minimisers of k objectives F_r(w) = (1/n)Σ_i φ(⟨w, x_i⟩, y_i) + ⟨c_r, w⟩ + λ‖w‖² over
    W = B(0, M): Algorithm 2, line 2, for k perturbations at once.

    Batched damped Newton (smooth losses), then the batched certificate; every row whose certificate does not
    reach ``tol`` (the unconstrained minimiser outside W, a non-smooth loss, too little curvature) is re-solved by
    ``dpsco.reference.solvers.certified_minimize``, the single-run solver, to the same ``tol``.

    loss : GLMLoss;  X : (n, d), y : (n,) validated float64 data;  domain : Ball;  lam : λ > 0;  linear : (k, d)
    the c_r = G_r/n;  tol : target certified distance ‖w_r − argmin F_r‖;  max_iter : Newton steps per row.
    Returns a :class:`BatchedSolution`; a row not even the single-run solver can certify to ``tol`` keeps that
    solver's best point, marked in ``certified`` (:func:`certified_or_best`: nothing is raised).
    """
    C = np.asarray(linear, dtype=np.float64)
    k, d = C.shape
    blocks = _row_blocks(k, X.shape[0])
    if len(blocks) > 1:
        return _concat([batched_objp_minimize(loss, X, y, domain, lam=lam, linear=C[b], tol=tol, max_iter=max_iter)
                        for b in blocks])
    D = _Data(loss, X, y, domain, lam)
    fallback = np.ones(k, dtype=bool)
    W = np.zeros((k, d))
    iters = np.zeros(k, dtype=np.int64)
    certs: list[Certificate | None] = [None] * k
    if loss.smooth and lam > 0:
        # warm start: the unperturbed minimiser w₀ (G = 0) and one Newton step towards each row's F_r from it
        # (w₀ − H₀⁻¹(∇F_r(w₀))); the certificate, not the start, decides what is released
        w0, _ = _batched_newton(D, np.zeros((1, d)), np.zeros((1, d)), max_iter)
        d2_0, g0 = _grads(D, w0, np.zeros((1, d)))
        H0 = _hessians(D, d2_0, None)[0]
        start = w0 - np.linalg.solve(H0, (g0 + C).T).T
        W, iters = _batched_newton(D, C, start, max_iter)
        inside = np.flatnonzero(np.linalg.norm(W, axis=1) <= D.M * (1 - (2 * d + 8) * _U))
        for r, cert in zip(inside, _certify_rows(D, W[inside], C[inside])):
            if cert.distance_bound is not None and cert.distance_bound <= tol:
                certs[r], fallback[r] = cert, False
    certified = np.ones(k, dtype=bool)
    for r in np.flatnonzero(fallback):
        pt = certified_or_best(loss, X, y, domain, lam=lam, linear=C[r], tol=tol)
        W[r], certs[r], iters[r], certified[r] = pt.w, pt.certificate, pt.iterations, pt.certified
    return BatchedSolution(W=W, certificates=certs, iterations=iters, fallback=fallback, certified=certified)


def batched_prox_svrg(loss: GLMLoss, X: np.ndarray, y: np.ndarray, domain: Ball, *, lam: float,
                      linear: np.ndarray, radius: float, step: float, inner: int, streams: list[np.random.Generator],
                      max_stages: int) -> tuple[BatchedSolution, np.ndarray]:
    """Step 2 of efficient objective perturbation for k perturbations at once: Prox-SVRG with projection onto W
    on every row until its certificate gives ‖w̃_r − ŵ_r‖ ≤ ``radius``.

    Row r runs exactly the stages of the single run: snapshot w_0 = Proj_W(0); each stage takes the full
    gradient at the snapshot, ``inner`` projected variance-reduced steps of size ``step`` on the indices
    ``streams[r].integers(0, n, size=inner)``, and the average of the inner iterates as the next snapshot; rows
    whose certificate reaches ``radius`` stop (their stream is not drawn from again).

    Returns (BatchedSolution with the certified snapshots and stages per row, gradient evaluations per row:
    stages·(n + 2·inner) + n per certificate).  A row still uncertified after ``max_stages`` stages is re-solved
    by :func:`certified_or_best` at tolerance ``radius``/2 (``fallback`` marks it; nothing is raised).
    """
    C = np.asarray(linear, dtype=np.float64)
    k, d = C.shape
    inner = check_iterations(inner, "inner")
    blocks = _row_blocks(k, X.shape[0])
    if len(blocks) > 1:
        parts = [batched_prox_svrg(loss, X, y, domain, lam=lam, linear=C[b], radius=radius, step=step, inner=inner,
                                   streams=streams[b], max_stages=max_stages) for b in blocks]
        return _concat([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    D = _Data(loss, X, y, domain, lam)
    n, lam = D.n, D.lam
    W = np.broadcast_to(domain.project(np.zeros(d)), (k, d)).copy()
    certs = _certify_rows(D, W, C)
    evals = np.full(k, n, dtype=np.int64)
    stages = np.zeros(k, dtype=np.int64)

    def done(c: Certificate) -> bool:
        return c.distance_bound is not None and c.distance_bound <= radius

    active = np.array([r for r in range(k) if not done(certs[r])], dtype=np.int64)
    fallback = np.zeros(k, dtype=bool)
    certified = np.ones(k, dtype=bool)
    while active.size:
        spent = active[stages[active] >= max_stages]
        for r in spent:  # the stage budget is spent: the certified Newton solver instead (fail-safe, no raise)
            pt = certified_or_best(loss, X, y, domain, lam=lam, linear=C[r], tol=0.5 * radius)
            W[r], certs[r], fallback[r], certified[r] = pt.w, pt.certificate, True, pt.certified
        active = active[stages[active] < max_stages]
        if not active.size:
            break
        Ws, Ca = W[active], C[active]
        mu_full = (D.pi * loss.dphi(Ws @ X.T, y[None, :])) @ X + Ca + 2.0 * lam * Ws
        I = np.stack([streams[r].integers(0, n, size=inner) for r in active])  # (ka, inner)
        x = Ws.copy()
        acc = np.zeros_like(x)
        for j in range(inner):
            i = I[:, j]
            Xi, yi = X[i], y[i]
            gx = loss.dphi(np.einsum("kd,kd->k", Xi, x), yi)[:, None] * Xi + Ca + 2.0 * lam * x
            gw = loss.dphi(np.einsum("kd,kd->k", Xi, Ws), yi)[:, None] * Xi + Ca + 2.0 * lam * Ws
            x = domain.project(x - step * (gx - gw + mu_full))
            acc += x
        W[active] = acc / inner
        evals[active] += n + 2 * inner + n
        stages[active] += 1
        new = _certify_rows(D, W[active], C[active])
        for r, c in zip(active, new):
            certs[r] = c
        active = np.array([r for r in active if not done(certs[r])], dtype=np.int64)
    return BatchedSolution(W=W, certificates=certs, iterations=stages, fallback=fallback, certified=certified), evals
