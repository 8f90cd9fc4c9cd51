"""A 50-digit reference minimiser of ridge-regularised logistic regression (mpmath), with its certificate.

The objective is the project's GLM objective (:mod:`dpsco.reference.glm_objective`) for the logistic loss,
uniform weights, no linear term:

    F(w) = (1/n) Σ_i log(1 + exp(−y_i⟨x_i, w⟩)) + lam‖w‖²,      y_i ∈ {−1, +1},  lam > 0,

    ∇F(w)  = −(1/n) Σ_i y_i σ(−y_i⟨x_i, w⟩) x_i + 2·lam·w,
    ∇²F(w) =  (1/n) Σ_i σ(s_i)σ(−s_i) x_i x_iᵀ + 2·lam·I ⪰ 2·lam·I,     σ(t) = 1/(1 + e^{−t}).

Note the project's convention lam‖w‖² (not (lam/2)‖w‖²): F is μ-strongly convex on ℝᵈ with μ = 2·lam.

How the reference is found.  Damped Newton in mpmath at ``dps`` significant digits from w = 0: the step
solves ∇²F(w) p = −∇F(w) (LU in mp precision), halved until the Armijo condition
F(w + tp) ≤ F(w) + t⟨∇F(w), p⟩/4 holds (the full step is taken once the predicted decrease
−⟨∇F(w), p⟩ is below 10^−(dps − 5)·(1 + |F(w)|), where F can no longer resolve it); it stops when
‖∇F(w)‖ < 10^−(dps − 10) (1e-50 at the default 60).
Newton converges quadratically near w* (∇²F is Lipschitz and ⪰ 2·lam·I), so this takes a handful of
steps after the damped phase.

Its certificate (independent of how w was found).  For a μ-strongly convex F with minimiser w* over ℝᵈ,
⟨∇F(w), w − w*⟩ ≥ μ‖w − w*‖² and F(w) − F* ≤ ‖∇F(w)‖²/(2μ) (Nesterov, *Lectures on Convex Optimization*,
2018, Thm 2.1.10), so with μ = 2·lam

    ‖w − w*‖ ≤ ‖∇F(w)‖/(2·lam),        0 ≤ F(w) − F* ≤ ‖∇F(w)‖²/(4·lam).

The gradient itself is evaluated in mp arithmetic (working precision 10^−dps);
:attr:`MPReference.gradient_error` adds a generous allowance for that rounding,
10·(n + d + 10)·10^−dps·((1/n) Σ_i ‖x_i‖(1 + ‖x_i‖‖w‖) + 2·lam‖w‖):
each of the n terms y_i σ(−y_i s_i) x_i/n carries a relative error of a few units of 10^−dps (exp, division,
products) plus the error of its margin s_i (≤ d·10^−dps‖x_i‖‖w‖, passed on through |σ'| ≤ 1/4), and the
correctly rounded sums add one unit each.  This is an over-estimate, not a formal rounding analysis; the
bounds use ‖∇F(w)‖ + gradient_error.  At 60 digits it is ~1e-55, far below anything a float64 solver
reaches, so the reference is exact for the purpose of checking float64 certificates.

Scope.  The reference is the *unconstrained* minimiser.  It is also the minimiser over a ball B(0, M)
whenever ‖w_ref‖ + distance_bound ≤ M; a priori that holds for every M > √(log 2 / lam), because
lam‖w*‖² < F(w*) ≤ F(0) = log 2.  The data are taken exactly as given (float64 entries convert to mpf
exactly) and the weights are exactly 1/n.  The float64 certificates of
:mod:`dpsco.reference.glm_certificate` are for weights fl(1/n): use n a power of two when comparing them
to this reference at the last digits, so that both describe the same objective.

mpmath is an optional dependency (the ``test`` extra); it is imported inside the functions.
"""

from __future__ import annotations

import numbers
from typing import Any, NamedTuple, Sequence

import numpy as np

__all__ = [
    "MPReference",
    "mp_distance",
    "ridge_logistic_gradient",
    "ridge_logistic_objective",
    "ridge_logistic_reference",
]


class MPReference(NamedTuple):
    """What :func:`ridge_logistic_reference` returns (all numbers are ``mpmath.mpf``).

    w : list of d mpf, the reference minimiser;  gradient_norm : ‖∇F(w)‖ computed at ``dps`` digits;
    gradient_error : allowance for that rounding;  distance_bound : (‖∇F‖ + err)/(2·lam) ≥ ‖w − w*‖;
    gap_bound : (‖∇F‖ + err)²/(4·lam) ≥ F(w) − F*;  value : F(w);  iterations : Newton steps;  dps : digits.
    """

    w: list
    gradient_norm: Any
    gradient_error: Any
    distance_bound: Any
    gap_bound: Any
    value: Any
    iterations: int
    dps: int


def _mpmath() -> Any:
    try:
        import mpmath
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "dpsco.oracles.mp_reference needs mpmath, which is only in the test extra: "
            "pip install 'dpsco[test]' (or pip install mpmath)"
        ) from exc
    return mpmath


def _check_dps(dps: Any) -> int:
    if isinstance(dps, bool) or not isinstance(dps, numbers.Integral):
        raise TypeError(f"dps must be an int, got {type(dps).__name__}")
    if not 20 <= int(dps) <= 10_000:
        raise ValueError(f"dps must be in [20, 10000], got {dps!r}")
    return int(dps)


def _check(X: Any, y: Any, lam: Any, mp: Any) -> tuple[list, list, Any]:
    Xa = np.asarray(X, dtype=object)
    if Xa.ndim != 2 or Xa.shape[0] < 1 or Xa.shape[1] < 1:
        raise ValueError(f"X must be a non-empty 2-D array (n, d), got shape {Xa.shape}")
    n = Xa.shape[0]
    ya = np.asarray(y, dtype=object)
    if ya.shape != (n,):
        raise ValueError(f"y must have shape ({n},), got {ya.shape}")
    try:
        Xm = [[mp.mpf(v) for v in row] for row in Xa.tolist()]
        ym = [mp.mpf(v) for v in ya.tolist()]
    except (TypeError, ValueError) as exc:
        raise TypeError(f"X and y must hold real numbers: {exc}") from exc
    if not all(mp.isfinite(v) for row in Xm for v in row):
        raise ValueError("X must be finite")
    if not all(v == 1 or v == -1 for v in ym):
        raise ValueError("y must hold labels in {-1, +1} (logistic loss)")
    if isinstance(lam, bool):
        raise TypeError("lam must be a real number, got bool")
    try:
        lam_m = mp.mpf(lam)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"lam must be a real number, got {type(lam).__name__}") from exc
    if not (mp.isfinite(lam_m) and lam_m > 0):
        raise ValueError(f"lam must be finite and > 0 (the certificate needs strong convexity), got {lam!r}")
    return Xm, ym, lam_m


def _margins(Xm: list, w: list, mp: Any) -> list:
    return [mp.fsum(a * b for a, b in zip(row, w)) for row in Xm]


def _value(Xm: list, ym: list, lam: Any, w: list, mp: Any) -> Any:
    s = _margins(Xm, w, mp)
    n = len(Xm)
    data = mp.fsum(mp.log1p(mp.exp(-yi * si)) for yi, si in zip(ym, s)) / n
    return data + lam * mp.fsum(v * v for v in w)


def _grad(Xm: list, ym: list, lam: Any, w: list, mp: Any) -> tuple[list, list]:
    """∇F(w) and the margins' sigmoids p_i = σ(y_i s_i) (for the Hessian)."""
    s = _margins(Xm, w, mp)
    n, d = len(Xm), len(w)
    p = [1 / (1 + mp.exp(-yi * si)) for yi, si in zip(ym, s)]  # σ(y s); σ(−y s) = 1 − p
    coef = [-yi * (1 - pi) for yi, pi in zip(ym, p)]
    g = [mp.fsum(coef[i] * Xm[i][j] for i in range(n)) / n + 2 * lam * w[j] for j in range(d)]
    return g, p


def _norm(v: Sequence, mp: Any) -> Any:
    return mp.sqrt(mp.fsum(t * t for t in v))


def _gradient_error(Xm: list, lam: Any, w: list, dps: int, mp: Any) -> Any:
    n, d = len(Xm), len(w)
    nw = _norm(w, mp)
    scale = mp.fsum(_norm(row, mp) * (1 + _norm(row, mp) * nw) for row in Xm) / n + 2 * lam * nw
    return 10 * (n + d + 10) * mp.mpf(10) ** (-dps) * scale


def ridge_logistic_objective(X: Any, y: Any, lam: Any, w: Any, *, dps: int = 60) -> Any:
    """F(w) = (1/n) Σ log(1 + exp(−y_i⟨x_i, w⟩)) + lam‖w‖² at ``dps`` digits (module docstring).

    Parameters: X (n, d) reals; y (n,) labels in {−1, +1}; lam > 0 (float or mpf, taken exactly);
    w (d,) reals or mpf (float64 entries are taken exactly); dps int in [20, 10000].
    Returns an ``mpmath.mpf``.  Raises ValueError/TypeError naming the bad parameter; ImportError without
    mpmath.
    """
    mp = _mpmath()
    with mp.workdps(_check_dps(dps)):
        Xm, ym, lam_m = _check(X, y, lam, mp)
        wm = _as_point(w, len(Xm[0]), mp)
        return _value(Xm, ym, lam_m, wm, mp)


def ridge_logistic_gradient(X: Any, y: Any, lam: Any, w: Any, *, dps: int = 60) -> list:
    """∇F(w) (list of d mpf) at ``dps`` digits; parameters and errors as :func:`ridge_logistic_objective`."""
    mp = _mpmath()
    with mp.workdps(_check_dps(dps)):
        Xm, ym, lam_m = _check(X, y, lam, mp)
        wm = _as_point(w, len(Xm[0]), mp)
        return _grad(Xm, ym, lam_m, wm, mp)[0]


def _as_point(w: Any, d: int, mp: Any) -> list:
    wa = np.asarray(w, dtype=object)
    if wa.shape != (d,):
        raise ValueError(f"w must have shape ({d},), got {wa.shape}")
    try:
        wm = [mp.mpf(v) for v in wa.tolist()]
    except (TypeError, ValueError) as exc:
        raise TypeError(f"w must hold real numbers: {exc}") from exc
    if not all(mp.isfinite(v) for v in wm):
        raise ValueError("w must be finite")
    return wm


def ridge_logistic_reference(X: Any, y: Any, lam: Any, *, dps: int = 60, max_iter: int = 200) -> MPReference:
    """The minimiser of ridge-regularised logistic regression to ``dps − 10`` digits, with its certificate.

    Parameters
    ----------
    X : (n, d) array of reals (float64 entries are taken exactly)
    y : (n,) labels in {−1, +1}
    lam : real > 0
        Ridge weight of F (lam‖w‖², so μ = 2·lam); a float is taken exactly, an ``mpmath.mpf`` at full
        precision.
    dps : int in [20, 10000]
        Working digits; Newton stops when ‖∇F‖ < 10^−(dps − 10).
    max_iter : int ≥ 1
        Newton steps allowed.

    Returns
    -------
    MPReference
        ``w`` (d mpf), ``distance_bound`` ≥ ‖w − w*‖ and ``gap_bound`` ≥ F(w) − F* (module docstring:
        2·lam-strong convexity), ``gradient_norm``, ``gradient_error``, ``value`` = F(w), ``iterations``.

    Raises
    ------
    ValueError, TypeError
        Bad inputs, naming the parameter.
    RuntimeError
        ‖∇F‖ did not fall below 10^−(dps − 10) within ``max_iter`` steps.
    ImportError
        mpmath is not installed.

    Source: Newton's method with backtracking, Boyd & Vandenberghe, *Convex Optimization* (2004), §9.5;
    the bounds, Nesterov (2018), Thm 2.1.10.
    """
    mp = _mpmath()
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral) or max_iter < 1:
        raise ValueError(f"max_iter must be an int ≥ 1, got {max_iter!r}")
    with mp.workdps(_check_dps(dps)):
        Xm, ym, lam_m = _check(X, y, lam, mp)
        n, d = len(Xm), len(Xm[0])
        target = mp.mpf(10) ** (-(int(dps) - 10))
        noise = mp.mpf(10) ** (-(int(dps) - 5))
        w = [mp.mpf(0)] * d
        f = _value(Xm, ym, lam_m, w, mp)
        it = 0
        while True:
            g, p = _grad(Xm, ym, lam_m, w, mp)
            gn = _norm(g, mp)
            if gn < target:
                break
            if it >= max_iter:
                raise RuntimeError(f"Newton did not reach ‖∇F‖ < {mp.nstr(target, 3)} in {max_iter} steps "
                                   f"(‖∇F‖ = {mp.nstr(gn, 5)})")
            curv = [pi * (1 - pi) for pi in p]
            H = mp.matrix(d, d)
            for j in range(d):
                for k in range(j, d):
                    h = mp.fsum(curv[i] * Xm[i][j] * Xm[i][k] for i in range(n)) / n
                    if j == k:
                        h += 2 * lam_m
                    H[j, k] = H[k, j] = h
            step = mp.lu_solve(H, mp.matrix([-v for v in g]))
            pvec = [step[j] for j in range(d)]
            slope = mp.fsum(a * b for a, b in zip(g, pvec))  # < 0: H is positive definite
            # near w* the decrease −slope/2 falls below the rounding of F itself; comparisons of F are then
            # meaningless and the full Newton step is taken (the quadratic-convergence regime)
            flat = -slope <= noise * (1 + abs(f))
            t = mp.mpf(1)
            while True:
                cand = [a + t * b for a, b in zip(w, pvec)]
                fc = _value(Xm, ym, lam_m, cand, mp)
                if flat or fc <= f + t * slope / 4 or t < mp.mpf(2) ** -60:
                    break
                t /= 2
            w, f = cand, fc
            it += 1
        err = _gradient_error(Xm, lam_m, w, int(dps), mp)
        gb = gn + err
        return MPReference(w=w, gradient_norm=gn, gradient_error=err, distance_bound=gb / (2 * lam_m),
                           gap_bound=gb * gb / (4 * lam_m), value=f, iterations=it, dps=int(dps))


def mp_distance(a: Any, b: Any, *, dps: int = 60) -> Any:
    """‖a − b‖ at ``dps`` digits for two points of equal length (floats or mpf, taken exactly)."""
    mp = _mpmath()
    with mp.workdps(_check_dps(dps)):
        am = [mp.mpf(v) for v in np.asarray(a, dtype=object).tolist()]
        bm = [mp.mpf(v) for v in np.asarray(b, dtype=object).tolist()]
        if len(am) != len(bm):
            raise ValueError(f"a and b must have the same length, got {len(am)} and {len(bm)}")
        return _norm([u - v for u, v in zip(am, bm)], mp)

