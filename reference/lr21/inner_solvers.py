"""The inner methods 𝓜 of Lowy & Razaviyayn's Algorithms 1–3 and the certified inner step (line 1).

``subgradient_method`` (η_t = 2/(μ(t+1)), Prop. 0.1), ``accelerated_gradient`` (Nesterov AGD, Bubeck Thm 3.18),
``stochastic_subgradient_method`` (Thm 3.1/3.3), ``katyusha`` (Allen-Zhu 2018, Thm 3.2/3.4) and, for
Algorithm 3, ``extragradient``.  Their iteration counts are in :mod:`dpsco.reference.lr21.theorems` (the saddle
solver's here).  ``certified_inner`` runs 𝓜 and accepts its output only with the certificate the privacy proof
needs (:mod:`dpsco.reference.lr21`, "Privacy rests on a certificate").  The replicate axis of the stochastic
methods: ``stochastic_subgradient_method_replicates`` and ``katyusha_replicates`` run k independent copies at
once (row r = the single run on ``rngs[r]``, up to rounding), ``certified_inner_replicates`` certifies each.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

import numpy as np

from dpsco.reference.certificates import Certificate, UncertifiedError
from dpsco.reference.lr21.objectives import GLMObjective
from dpsco.reference.noise import project_ball
from dpsco.reference.projections import project_ball_vector
from dpsco.reference.solvers import strictly_inside
from dpsco.reference.validation import (as_float_vector, check_choice, check_iterations, check_positive,
                                        check_rng)

__all__ = ["Method", "Fallback", "FALLBACKS", "subgradient_method", "accelerated_gradient",
           "stochastic_subgradient_method", "katyusha", "REPLICATE_BLOCK", "GATHER_STEPS",
           "stochastic_subgradient_method_replicates", "katyusha_replicates", "InnerResult", "certified_inner",
           "CERTIFICATE_PRECISION_FLOOR", "certifiable_alpha", "check_certifiable",
           "FALLBACK_PATH", "STOCHASTIC_METHODS", "certified_inner_replicates", "inner_schedule_count"]

Method = Literal["subgradient", "agd", "sgd", "katyusha"]
Fallback = Literal["certified_solver", "refuse"]
FALLBACKS: tuple[str, ...] = ("certified_solver", "refuse")


# ================================================================================================
# Inner optimisers 𝓜 of Algorithms 1 and 2
# ================================================================================================


#: row-wise ⟨a_r, b_r⟩ of (k, d) arrays (numpy ≥ 2 has it as one ufunc)
_rowdot = getattr(np, "vecdot", None) or (lambda A, B: np.einsum("kd,kd->k", A, B))


def _project_rows(V: np.ndarray, R: float) -> np.ndarray:
    """``project_ball(V, R)`` for (k, d) rows (R checked by the caller): ``V`` itself (a temporary in every caller)
    when every ‖v_r‖² ≤ R²(1 − 10⁻¹²) (then the core projection, which leaves inside rows unchanged, returns V as
    well: its overflow-safe norm is within ~d·2⁻⁵³ relative of this one), else the one core projection
    ``dpsco.reference.projections.project_ball``."""
    if not math.isfinite(R):
        return V.copy()
    if _rowdot(V, V).max() <= R * R * (1.0 - 1e-12):
        return V
    return project_ball(V, R)


def subgradient_method(obj: GLMObjective, modulus: float, T: int, *,
                       output: Literal["weighted", "best"] = "weighted") -> np.ndarray:
    """Projected subgradient method, η_t = 2/(μ(t+1)) (Thm 2.1; Prop. 0.1; Bubeck Thm 3.9).

    Output: the weighted average Σ_t 2t/(T(T+1)) w_t (default) or the best iterate (Prop. 0.1; costs T
    function values).  Both satisfy F − F* ≤ 2L²/(μ(T+1)) deterministically.

    Raises ValueError / TypeError for a bad ``modulus``, ``output`` or ``T`` (``T`` above
    ``dpsco.reference.validation.MAX_ITERATIONS`` included)."""
    mu = check_positive(modulus, "modulus")
    T = check_iterations(T, "T", allow_zero=True)
    check_choice(output, "output", ("weighted", "best"))
    R = check_positive(obj.radius, "obj.radius", allow_inf=True)
    w = np.zeros(obj.d)  # w_1 = 0 (data-independent)
    avg = np.zeros(obj.d)
    best, best_val = w.copy(), math.inf
    for t in range(1, T + 1):
        if output == "best":
            v = obj.value(w)
            if v < best_val:
                best, best_val = w.copy(), v
        avg += (2.0 * t / (T * (T + 1.0))) * w
        g = obj.grad(w)  # one full (sub)gradient evaluation
        w = project_ball_vector(w - 2.0 / (mu * (t + 1.0)) * g, R)  # w_{t+1} = Π(w_t − η_t g_t)
    return avg if output == "weighted" else best


def accelerated_gradient(obj: GLMObjective, modulus: float, smoothness: float, T: int) -> np.ndarray:
    """Nesterov's AGD for μ-strongly convex, β-smooth F, constant momentum (Bubeck 2015 §3.7.1, Thm 3.18).

    x_1 = y_1 = 0, q = (√κ − 1)/(√κ + 1); y_{s+1} = Π(x_s − ∇F(x_s)/β); x_{s+1} = (1 + q)y_{s+1} − q y_s;
    returns y_{T+1}.  The projection (Nesterov 2018 §2.2.4, constant step scheme for simple sets) keeps
    the iterates in B(0, R); with R = ∞ it is Bubeck's method exactly.  Raises ValueError / TypeError for bad
    inputs (``T`` above ``dpsco.reference.validation.MAX_ITERATIONS`` included)."""
    mu, beta = check_positive(modulus, "modulus"), check_positive(smoothness, "smoothness")
    T = check_iterations(T, "T", allow_zero=True)
    kappa = max(beta / mu, 1.0)
    q = (math.sqrt(kappa) - 1.0) / (math.sqrt(kappa) + 1.0)
    x = np.zeros(obj.d)
    y_prev = np.zeros(obj.d)
    for _ in range(T):
        y_new = project_ball(x - obj.grad(x) / beta, obj.radius)
        x = (1.0 + q) * y_new - q * y_prev
        y_prev = y_new
    return y_prev


def stochastic_subgradient_method(obj: GLMObjective, modulus: float, T: int, rng: np.random.Generator) -> np.ndarray:
    """Projected SGD, η_t = 2/(μ(t+1)), one uniform per-sample subgradient per step, weighted average
    (Thm 3.1 / 3.3; Bubeck Thm 6.2).  Accuracy holds only **in expectation** — never a privacy guarantee by
    itself: :func:`dpsco.reference.lr21.algorithm_1` certifies its output.  Raises ValueError / TypeError for bad inputs
    (``T`` above ``dpsco.reference.validation.MAX_ITERATIONS`` included)."""
    mu = check_positive(modulus, "modulus")
    T = check_iterations(T, "T", allow_zero=True)
    rng = check_rng(rng)
    R = check_positive(obj.radius, "obj.radius", allow_inf=True)
    w = np.zeros(obj.d)
    avg = np.zeros(obj.d)
    idx = rng.integers(0, obj.n, size=T)
    for t in range(1, T + 1):
        avg += (2.0 * t / (T * (T + 1.0))) * w
        g = obj.sample_grad(w, int(idx[t - 1]))
        w = project_ball_vector(w - 2.0 / (mu * (t + 1.0)) * g, R)
    return avg


def katyusha(obj: GLMObjective, smoothness_data: float, epochs: int, rng: np.random.Generator) -> np.ndarray:
    """Katyusha (Allen-Zhu 2018, Alg. 1, Option II) on (1/n)Σ g_i + ψ, g_i = φ(⟨·, x_i⟩, y_i) (β-smooth),
    ψ = (σ/2)‖w‖² + ι_{B(0,R)} (σ = obj.reg), as in the proof of Thm 0.6.

    m = 2n, τ₂ = ½, τ₁ = min(√(mσ/(3β)), ½), a = 1/(3τ₁β); prox_{aψ}(v) = Π(v/(1 + aσ)).  Per epoch: n
    per-sample gradients for the snapshot, 2 per inner step.  Accuracy in expectation only (certified by the caller).  Raises
    ValueError / TypeError for bad inputs (``epochs``·2n above ``dpsco.reference.validation.MAX_ITERATIONS`` included)."""
    rng = check_rng(rng)
    epochs = check_iterations(epochs, "epochs", allow_zero=True)
    check_iterations(epochs * 2 * obj.n, "epochs·2n (Katyusha inner steps)", allow_zero=True,
                     remedy="pass fewer epochs (a larger alpha)")
    sigma = check_positive(obj.reg, "obj.reg")
    Lsm = check_positive(smoothness_data, "smoothness_data")
    R = check_positive(obj.radius, "obj.radius", allow_inf=True)
    n, d = obj.n, obj.d
    m, tau1, tau2, a, weights = _katyusha_constants(n, sigma, Lsm)
    c3, shrink = 1.0 - tau1 - tau2, 1.0 + a * sigma
    y = np.zeros(d)
    z = np.zeros(d)
    xt = np.zeros(d)
    for _ in range(epochs):
        snap_grads = obj.loss.dphi(obj.X @ xt, obj.y)  # cached φ'(⟨x̃, x_i⟩)
        mu_s = obj.X.T @ snap_grads / n  # snapshot full gradient of the data term
        obj.sample_gradients += n
        obj.full_gradients += 1
        acc = np.zeros(d)
        idx = rng.integers(0, n, size=m)
        tau2_xt = tau2 * xt  # constant within the epoch
        for j in range(m):
            x = tau1 * z + tau2_xt + c3 * y
            i = int(idx[j])
            gt = mu_s + obj.data_sample_grad(x, i) - snap_grads[i] * obj.X[i]
            z_new = project_ball_vector((z - a * gt) / shrink, R)
            y = x + tau1 * (z_new - z)  # Option II
            z = z_new
            acc += weights[j] * y
        obj.sample_gradients += m  # ∇g_i(x̃) read from the cache, counted as an evaluation (one per step)
        xt = project_ball_vector(acc, R)
    return xt


def _katyusha_constants(n: int, sigma: float, Lsm: float) -> tuple[int, float, float, float, np.ndarray]:
    """m = 2n, τ₁, τ₂ = ½, a and the epoch-average weights ∝ (1 + aσ)^j of :func:`katyusha`."""
    m = 2 * n
    tau2 = 0.5
    tau1 = min(math.sqrt(m * sigma / (3.0 * Lsm)), 0.5)
    a = 1.0 / (3.0 * tau1 * Lsm)
    logw = np.arange(m) * math.log1p(a * sigma)  # (1 + aσ)^j, normalised in log space (no overflow)
    weights = np.exp(logw - logw.max())
    return m, tau1, tau2, a, weights / weights.sum()


# ================================================================================================
# The replicate axis of the stochastic inner methods: k independent runs at once
# ================================================================================================
#
# Row r of each function below is the single-run function above called with ``rngs[r]``: the same index
# stream (each run draws its indices from its own generator exactly as the single run does), the same steps
# on (k, d) iterates, equal up to floating-point rounding (⟨w, x_i⟩ is summed row-wise rather than by a dot
# product).  tests/lr21/test_lr21_replicates.py checks it.  Runs are processed REPLICATE_BLOCK at a time so the
# index arrays stay small.

REPLICATE_BLOCK = 256  # runs per block of the replicate axis (memory: block × T indices)
GATHER_STEPS = 1024  # steps of the batched Katyusha whose records are gathered at once (block × this × d floats)


def _check_rngs(rngs: Any) -> list[np.random.Generator]:
    if isinstance(rngs, np.random.Generator) or not hasattr(rngs, "__len__"):
        raise TypeError(f"rngs must be a sequence of numpy Generators (one per replicate), got {type(rngs).__name__}")
    gens = [check_rng(g) for g in rngs]
    if not gens:
        raise ValueError("rngs must hold at least one Generator")
    if len({id(g) for g in gens}) != len(gens):
        raise ValueError("rngs must be distinct Generators (replicates sharing one stream are not independent)")
    return gens


def stochastic_subgradient_method_replicates(obj: GLMObjective, modulus: float, T: int,
                                             rngs: Any) -> np.ndarray:
    """k = len(rngs) independent runs of :func:`stochastic_subgradient_method` at once, run r on ``rngs[r]``.

    Returns (k, d): row r equals ``stochastic_subgradient_method(obj, modulus, T, rngs[r])`` up to rounding.
    ``obj`` must provide ``sample_grads(W, idx)`` (:class:`GLMObjective`).  Raises ValueError / TypeError as the
    single run, and for ``rngs`` that is not a sequence of distinct Generators."""
    mu = check_positive(modulus, "modulus")
    T = check_iterations(T, "T", allow_zero=True)
    gens = _check_rngs(rngs)
    R = check_positive(obj.radius, "obj.radius", allow_inf=True)
    out = np.empty((len(gens), obj.d))
    for start in range(0, len(gens), REPLICATE_BLOCK):
        block = gens[start:start + REPLICATE_BLOCK]
        idx = np.stack([g.integers(0, obj.n, size=T) for g in block]) if T else np.zeros((len(block), 0), int)
        W = np.zeros((len(block), obj.d))
        avg = np.zeros((len(block), obj.d))
        for t in range(1, T + 1):
            avg += (2.0 * t / (T * (T + 1.0))) * W
            G = obj.sample_grads(W, idx[:, t - 1])
            W = _project_rows(W - 2.0 / (mu * (t + 1.0)) * G, R)
        out[start:start + len(block)] = avg
    return out


def katyusha_replicates(obj: GLMObjective, smoothness_data: float, epochs: int, rngs: Any) -> np.ndarray:
    """k = len(rngs) independent runs of :func:`katyusha` at once, run r on ``rngs[r]`` (each epoch draws its
    m = 2n indices from it, as the single run).  Returns (k, d): row r equals
    ``katyusha(obj, smoothness_data, epochs, rngs[r])`` up to rounding.  Raises as :func:`katyusha`, and for
    ``rngs`` that is not a sequence of distinct Generators."""
    gens = _check_rngs(rngs)
    epochs = check_iterations(epochs, "epochs", allow_zero=True)
    check_iterations(epochs * 2 * obj.n, "epochs·2n (Katyusha inner steps)", allow_zero=True,
                     remedy="pass fewer epochs (a larger alpha)")
    sigma = check_positive(obj.reg, "obj.reg")
    Lsm = check_positive(smoothness_data, "smoothness_data")
    R = check_positive(obj.radius, "obj.radius", allow_inf=True)
    n, d = obj.n, obj.d
    m, tau1, tau2, a, weights = _katyusha_constants(n, sigma, Lsm)
    c3, shrink = 1.0 - tau1 - tau2, 1.0 + a * sigma
    out = np.empty((len(gens), d))
    for start in range(0, len(gens), REPLICATE_BLOCK):
        block = gens[start:start + REPLICATE_BLOCK]
        k = len(block)
        rows = np.arange(k)
        y = np.zeros((k, d))
        z = np.zeros((k, d))
        xt = np.zeros((k, d))
        for _ in range(epochs):
            # snapshot of each run: the single run's matrix-vector products, run by run (k full gradients)
            snap = np.stack([obj.loss.dphi(obj.X @ xt[r], obj.y) for r in range(k)])  # (k, n)
            mu_s = np.stack([obj.X.T @ snap[r] / n for r in range(k)])  # (k, d)
            obj.sample_gradients += k * n
            obj.full_gradients += k
            acc = np.zeros((k, d))
            idx = np.stack([g.integers(0, n, size=m) for g in block])  # (k, m)
            tau2_xt = tau2 * xt
            for j0 in range(0, m, GATHER_STEPS):  # the records of the next steps, gathered at once
                ii = idx[:, j0:j0 + GATHER_STEPS]
                Xs, ys, ss = obj.X[ii], obj.y[ii], snap[rows[:, None], ii]  # (k, s, d), (k, s): x_i, y_i, φ'(x̃)
                for jj in range(ii.shape[1]):
                    x = tau1 * z + tau2_xt + c3 * y
                    Xi = Xs[:, jj]
                    g = obj.loss.dphi(_rowdot(Xi, x), ys[:, jj])[:, None] * Xi  # data_sample_grads(x, i)
                    gt = mu_s + g - ss[:, jj, None] * Xi
                    z_new = _project_rows((z - a * gt) / shrink, R)
                    y = x + tau1 * (z_new - z)  # Option II
                    z = z_new
                    acc += weights[j0 + jj] * y
            obj.sample_gradients += 2 * k * m  # ∇g_i(x) and the cached ∇g_i(x̃), one each per step and run
            xt = _project_rows(acc, R)
        out[start:start + k] = xt
    return out


# ================================================================================================
# The certified inner step (shared by Algorithms 1–3)
# ================================================================================================


@dataclass
class InnerResult:
    """Outcome of :func:`certified_inner`: the certified point ``w`` (d,), its ``certificate``, the ``path`` taken
    (the inner method, or the certified solver when the method's output was not certified), the per-sample
    ``gradient_evaluations`` of 𝓜, its iteration count ``T`` and ``details`` (e.g. the first certificate's
    distance when the fallback ran).  From :func:`certified_inner_replicates`: ``w`` (k, d), one certified point
    per run, and the worst certificate (its docstring)."""

    w: np.ndarray
    certificate: Certificate
    path: str
    gradient_evaluations: int
    T: int
    details: dict[str, Any] = field(default_factory=dict)


def _run_inner(obj: GLMObjective, method: Method | Callable[..., np.ndarray], modulus: float, T: int,
               smoothness: float | None, rng: np.random.Generator) -> np.ndarray:
    if callable(method):
        return as_float_vector(method(obj, rng), "optimizer output", obj.d)
    if method == "subgradient":
        return subgradient_method(obj, modulus, T)
    if method == "agd":
        if smoothness is None:
            raise ValueError("method='agd' needs a smooth loss")
        return accelerated_gradient(obj, modulus, smoothness, T)
    if method == "sgd":
        return stochastic_subgradient_method(obj, modulus, T, rng)
    if method == "katyusha":
        if smoothness is None:
            raise ValueError("method='katyusha' needs a smooth loss")
        return katyusha(obj, smoothness - obj.reg, T, rng)
    raise ValueError(f"method must be 'subgradient', 'agd', 'sgd', 'katyusha' or a callable, got {method!r}")


def inner_schedule_count(method: Any, T: int, n: int) -> int:
    """The per-sample gradient evaluations the inner method's schedule prescribes, from public inputs (the count
    a release publishes): "subgradient" / "agd" T full gradients (T·n); "sgd" T stochastic subgradients (T);
    "katyusha" T epochs of a snapshot gradient (n) and m = 2n inner steps of two per-sample gradients (5n·T); a
    user callable 0 (its count is not prescribed by public inputs).  The count performed (equal for the built-in
    methods; a certified-solver fallback adds nothing to it) is ``InnerResult.gradient_evaluations``."""
    T, n = int(T), int(n)
    if callable(method):
        return 0
    return {"subgradient": T * n, "agd": T * n, "sgd": T, "katyusha": 5 * n * T}[method]


def _finite_or_zero(w: np.ndarray) -> np.ndarray:
    """``w`` if finite, else the data-independent 0 (the fail-safe of a non-finite inner output)."""
    w = np.asarray(w, dtype=np.float64)
    return w if np.all(np.isfinite(w)) else np.zeros_like(w)


#: The smallest certificate radius √(2α/modulus) the gate can certify in double precision, relative to R: a
#: certificate locates the minimiser to ~1e-16·R at best, so an α below this floor (a public quantity) is refused
#: before the inner method runs instead of releasing an uncertified point under a claim that says "certified"
#: (independent review: alpha = 1e-34 released the certified solver's best point, the claim unchanged).
CERTIFICATE_PRECISION_FLOOR = 1e-12


def certifiable_alpha(modulus: float, radius: float) -> float:
    """The smallest α whose certificate radius √(2α/modulus) double precision can certify (just above
    :data:`CERTIFICATE_PRECISION_FLOOR`·radius): the theorems' default α is raised to it at extreme ε (a public,
    utility-only change, accounted in the calibration through Δ_T)."""
    return 0.5 * modulus * (CERTIFICATE_PRECISION_FLOOR * radius) ** 2 * (1.0 + 1e-9)


def check_certifiable(alpha: float, modulus: float, radius: float) -> None:
    """ValueError naming alpha when √(2α/modulus) < :data:`CERTIFICATE_PRECISION_FLOOR`·radius (public inputs)."""
    r = math.sqrt(2.0 * alpha / modulus)
    if r < CERTIFICATE_PRECISION_FLOOR * radius:
        raise ValueError(f"alpha = {alpha:g} asks for a certificate radius √(2α/μ) = {r:.3g} below "
                         f"{CERTIFICATE_PRECISION_FLOOR:g}·R = {CERTIFICATE_PRECISION_FLOOR * radius:.3g}, which "
                         "double precision cannot certify; increase alpha")


def certified_inner(obj: GLMObjective, method: Method | Callable[..., np.ndarray], modulus: float, alpha: float,
                    T: int, smoothness: float | None, rng: np.random.Generator, *,
                    fallback: Fallback = "certified_solver") -> InnerResult:
    """Line 1 of Algorithms 1–3 with the certificate the privacy proof needs (:mod:`dpsco.reference.lr21`).

    Accepts w_T iff the certified ‖w_T − argmin_{B(0,R)} F‖ ≤ √(2α/modulus); otherwise falls back to the
    certified solver (or raises UncertifiedError with ``fallback="refuse"``: the caller's explicit choice, whose
    refusal depends on the data and is therefore outside the claim).  With the default fallback it never raises
    after the data checks: should even the certified solver miss the radius (floating point on extreme inputs),
    its best point is used and ``details["certified"]`` is False (a diagnostic, never published).  Raises
    ValueError for a ``fallback`` other than "certified_solver" / "refuse" (before the inner method runs)."""
    check_choice(fallback, "fallback", FALLBACKS)
    check_certifiable(alpha, modulus, obj.radius)
    radius_needed = math.sqrt(2.0 * alpha / modulus)
    w = project_ball(_finite_or_zero(_run_inner(obj, method, modulus, T, smoothness, rng)), obj.radius)
    w = strictly_inside(w, obj.radius)
    cert = obj.certify(w)
    evals = obj.sample_gradients
    if cert.distance_bound is not None and cert.distance_bound <= radius_needed:
        return InnerResult(w, cert, f"{method if isinstance(method, str) else 'user optimizer'} (certified)",
                           evals, T, {"certified": True})
    if fallback == "refuse":
        raise UncertifiedError(
            f"the inner method's output is not certified α-accurate: distance bound {cert.distance_bound!r} > "
            f"√(2α/μ) = {radius_needed!r}; refusing to release (fallback='refuse')", certificate=cert, w=w)
    w2, cert2, ok = _fallback_solution(obj, alpha, radius_needed, w, cert)
    return InnerResult(w2, cert2, FALLBACK_PATH, evals, T,
                       {"first_certificate_distance": cert.distance_bound, "certified": ok})


FALLBACK_PATH = "certified solver (inner method's output was not certified)"


def _fallback_solution(obj: GLMObjective, alpha: float, radius_needed: float, w_inner: np.ndarray,
                       cert_inner: Certificate) -> tuple[np.ndarray, Certificate, bool]:
    """The certified solver's point, its certificate and True when the certificate is ≤ √(2α/modulus).

    Fail-safe (never raises: an exception here would depend on the data, a release with ε = ∞): if the solver
    raises or misses the radius, the better-certified of its point and the inner method's ``w_inner`` is
    returned with False."""
    distance_tol = getattr(obj, "tol_is_distance", False) or obj.loss.smooth  # applications: tol is a distance
    try:
        w2, _ = obj.certified_solution(tol=0.5 * radius_needed if distance_tol else 0.25 * alpha)
        w2 = strictly_inside(project_ball(_finite_or_zero(w2), obj.radius), obj.radius)
        cert2 = obj.certify(w2)
    except (UncertifiedError, ArithmeticError, np.linalg.LinAlgError, ValueError) as exc:
        best = getattr(exc, "w", None)
        if best is None or not np.all(np.isfinite(best)):
            return w_inner, cert_inner, False
        w2 = strictly_inside(project_ball(np.asarray(best, dtype=np.float64), obj.radius), obj.radius)
        try:
            cert2 = obj.certify(w2)
        except (ArithmeticError, np.linalg.LinAlgError, ValueError):
            return w_inner, cert_inner, False
    if cert2.distance_bound is None or cert2.distance_bound > radius_needed:
        inner_better = (cert_inner.distance_bound is not None
                        and (cert2.distance_bound is None or cert_inner.distance_bound < cert2.distance_bound))
        return (w_inner, cert_inner, False) if inner_better else (w2, cert2, False)
    return w2, cert2, True


STOCHASTIC_METHODS: tuple[str, ...] = ("sgd", "katyusha")


def certified_inner_replicates(obj: GLMObjective, method: Literal["sgd", "katyusha"], modulus: float,
                               alpha: float, T: int, smoothness: float | None, rngs: Any, *,
                               fallback: Fallback = "certified_solver") -> InnerResult:
    """Line 1 of Algorithms 1–2 for k = len(rngs) independent runs of a stochastic 𝓜 ("sgd", "katyusha"), run r
    on ``rngs[r]`` (:func:`stochastic_subgradient_method_replicates`, :func:`katyusha_replicates`).

    Each run is certified on its own, exactly as :func:`certified_inner` certifies one run: run r's w_T is
    accepted iff its certified distance is ≤ √(2α/modulus); otherwise that run alone takes the certified
    solver's point (computed once: it is a deterministic function of the data), or, with ``fallback="refuse"``,
    UncertifiedError is raised (naming the first uncertified run).  So row r is what the single run on
    ``rngs[r]`` would release, up to rounding.

    Returns an InnerResult with ``w`` (k, d); ``certificate`` the worst (largest distance bound) of the k
    certificates actually released; ``path`` a count of the paths; ``gradient_evaluations`` per run (the
    single run's count; every run costs the same); ``details`` with the per-run ``replicate_paths`` and
    ``replicate_certificate_distances``, ``first_certificate_distances`` of the runs that fell back, and
    ``gradient_evaluations_all_replicates``.  Raises ValueError for an unknown ``fallback`` or a method other
    than "sgd" / "katyusha" (before any run), and as the inner methods."""
    check_choice(fallback, "fallback", FALLBACKS)
    check_choice(method, "method", STOCHASTIC_METHODS)
    check_certifiable(alpha, modulus, obj.radius)
    gens = _check_rngs(rngs)
    radius_needed = math.sqrt(2.0 * alpha / modulus)
    before = obj.sample_gradients
    if method == "sgd":
        W = stochastic_subgradient_method_replicates(obj, modulus, T, gens)
    else:
        if smoothness is None:
            raise ValueError("method='katyusha' needs a smooth loss")
        W = katyusha_replicates(obj, smoothness - obj.reg, T, gens)
    total = obj.sample_gradients - before
    W = project_ball(np.where(np.all(np.isfinite(W), axis=1, keepdims=True), W, 0.0), obj.radius)
    W = np.stack([strictly_inside(w, obj.radius) for w in W])
    certs = [obj.certify(w) for w in W]
    paths = [f"{method} (certified)"] * len(gens)
    first: dict[int, float | None] = {}
    fallback_point: tuple[np.ndarray, Certificate, bool] | None = None
    certified = [True] * len(gens)
    for r, cert in enumerate(certs):
        if cert.distance_bound is not None and cert.distance_bound <= radius_needed:
            continue
        if fallback == "refuse":
            raise UncertifiedError(
                f"run {r} of {len(gens)}: the inner method's output is not certified α-accurate: distance bound "
                f"{cert.distance_bound!r} > √(2α/μ) = {radius_needed!r}; refusing to release (fallback='refuse')",
                certificate=cert, w=W[r])
        if fallback_point is None:
            fallback_point = _fallback_solution(obj, alpha, radius_needed, W[r], cert)
        first[r] = cert.distance_bound
        paths[r] = FALLBACK_PATH
        if fallback_point[2]:
            W[r], certs[r] = fallback_point[0], fallback_point[1]
        else:  # fail-safe: not even the certified solver met the radius; the row keeps its own point
            certified[r] = False
    worst = max(certs, key=lambda c: math.inf if c.distance_bound is None else c.distance_bound)
    counts = {p: paths.count(p) for p in dict.fromkeys(paths)}
    summary = "; ".join(f"{p} × {c}" for p, c in counts.items())
    return InnerResult(W, worst, f"{len(gens)} independent runs: {summary}", total // len(gens), T,
                       {"replicate_paths": paths,
                        "replicate_certificate_distances": [c.distance_bound for c in certs],
                        "first_certificate_distances": first, "gradient_evaluations_all_replicates": total,
                        "certified": all(certified)})


# ================================================================================================
# The saddle-point solver of Algorithm 3
# ================================================================================================
