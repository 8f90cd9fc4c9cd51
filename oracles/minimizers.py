"""Certified empirical minimisers, cross-checked by an independent conic solver.

Two independent answers to "what is min_{w ∈ B(0,M)} F(w)?" for

    F(w) = Σ_i π_i ℓ(w, z_i) + ⟨c, w⟩ + lam‖w‖²      (π_i = 1/n unless ``weights``)

1. :func:`dpsco.reference.solvers.certified_minimize`: float64 Newton (smooth losses) or Clarabel with an
   active-set polish (non-smooth losses), certified a posteriori by a numpy duality / strong-convexity
   gap (:mod:`dpsco.reference.glm_certificate` gives the mathematics).
2. :func:`cvxpy_minimize`: cvxpy with the loss's own conic expression ``loss.cvxpy_terms`` (no auxiliary
   variables), solved by Clarabel; only status ``optimal`` is accepted (Clarabel falls back to reduced
   tolerances, 5e-5 on the gap and 1e-4 on feasibility, when it cannot reach its own 1e-8; cvxpy then reports
   ``optimal_inaccurate``, which is refused).

:func:`certified_oracle` runs both and checks that they agree *within the certified error bars*: the cvxpy
point is itself certified by the same numpy certificate (computed at that point, so independent of how
cvxpy found it), and

* |F(w_cvx) − F(w_newton)| ≤ gap_newton + gap_cvx + (float evaluation errors of both values);
* if both certificates have a distance bound, ‖w_cvx − w_newton‖ ≤ d_newton + d_cvx.

Disagreement raises :class:`OracleError`: one of the two certificates would then be wrong, which is a bug
to report, never a number to print.

References: the Clarabel solver's documented settings (``tol_gap_abs``, ``tol_gap_rel``, ``tol_feas`` and
their reduced fallbacks); Boyd & Vandenberghe (2004), §5.
"""

from __future__ import annotations

import hashlib
import math
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Mapping, NamedTuple

import numpy as np

from dpsco.reference.certificates import Certificate
from dpsco.reference.domains import Ball, require_centred
from dpsco.reference.glm_certificate import certify
from dpsco.reference.glm_objective import objective_value_with_error
from dpsco.reference.losses import GLMLoss
from dpsco.reference.solvers import certified_minimize
from dpsco.reference.validation import as_float_vector, check_data, check_positive

__all__ = [
    "CVXPY_OPTION_LADDER",
    "ExcessRisk",
    "OracleError",
    "OracleResult",
    "certified_oracle",
    "cvxpy_minimize",
    "excess_empirical_risk",
    "problem_key",
]


#: Clarabel settings tried in turn by :func:`certified_oracle` until one reports ``optimal``.  Clarabel's
#: defaults (gap/feasibility 1e-8) sometimes end in ``optimal_inaccurate`` on exp-cone problems with an
#: active ball constraint (observed: logistic, n = 6366, d = 8, M = 0.5, lam = 0); the second set asks for
#: ``optimal`` at 1e-7.  Which set was used is recorded in ``OracleResult.agreement``; the accuracy of the
#: cvxpy point is in any case measured by its own numpy certificate, not by the solver's tolerances.
CVXPY_OPTION_LADDER: tuple[Mapping[str, Any], ...] = (
    {},
    {"tol_gap_abs": 1e-7, "tol_gap_rel": 1e-7, "tol_feas": 1e-7},
)


class OracleError(RuntimeError):
    """The independent solver failed (non-``optimal`` status) or disagreed with the certified answer."""


def _validate(loss: Any, X: Any, y: Any, domain: Any, lam: Any, linear: Any, weights: Any
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, float]:
    if not isinstance(loss, GLMLoss):
        raise TypeError(f"loss must be a GLMLoss, got {type(loss).__name__}")
    require_centred(domain, "domain")  # the oracles minimise over B(0, M) (they read M only)
    Xa, ya = check_data(X, y)
    loss.check_labels(ya)
    lam_f = check_positive(lam, "lam", allow_zero=True)
    c = np.zeros(Xa.shape[1]) if linear is None else as_float_vector(linear, "linear", Xa.shape[1])
    wts = None
    if weights is not None:
        wts = as_float_vector(weights, "weights", Xa.shape[0])
        if np.any(wts < 0) or not np.sum(wts) > 0:
            raise ValueError("weights must be non-negative and not all zero")
    return Xa, ya, c, wts, lam_f


def problem_key(loss: GLMLoss, X: Any, y: Any, domain: Ball, *, lam: float = 0.0, linear: Any = None,
                weights: Any = None) -> str:
    """SHA-256 fingerprint of (loss, data, domain, lam, linear, weights): ties a result to its problem."""
    Xa, ya, c, wts, lam_f = _validate(loss, X, y, domain, lam, linear, weights)
    h = hashlib.sha256()
    h.update(repr(loss.to_dict()).encode())
    h.update(repr((Xa.shape, float(domain.radius), lam_f)).encode())
    for arr in (Xa, ya, c) + ((wts,) if wts is not None else ()):
        h.update(np.ascontiguousarray(arr, dtype=np.float64).tobytes())
    return h.hexdigest()


def cvxpy_minimize(
    loss: GLMLoss,
    X: Any,
    y: Any,
    domain: Ball,
    *,
    lam: float = 0.0,
    linear: Any = None,
    weights: Any = None,
    solver: str = "CLARABEL",
    solver_options: Mapping[str, Any] | None = None,
) -> tuple[np.ndarray, str, float]:
    """Minimise F over B(0, M) with cvxpy, using ``loss.cvxpy_terms(w, X, y)``.

    Parameters
    ----------
    loss, X (n, d), y (n,), domain, lam ≥ 0, linear (d,) or None, weights (n,) or None
        As in :func:`dpsco.reference.solvers.certified_minimize`.
    solver : str
        cvxpy solver name (default Clarabel).
    solver_options : mapping, optional
        Passed to ``Problem.solve``.

    Returns
    -------
    w : (d,) float array
        The solver's primal point (not projected; it may violate ‖w‖ ≤ M by the solver's feasibility
        tolerance).
    status : str
        Always ``"optimal"``.
    value : float
        F(w) evaluated in numpy at the returned w (not the solver's internal objective).

    Raises
    ------
    OracleError
        The solver failed or returned any status other than ``optimal`` (``optimal_inaccurate``
        included).
    ValueError, TypeError
        Bad inputs, naming the parameter.
    """
    import cvxpy as cp

    Xa, ya, c, wts, lam_f = _validate(loss, X, y, domain, lam, linear, weights)
    n, d = Xa.shape
    pi = np.full(n, 1.0 / n) if wts is None else wts / math.fsum(wts.tolist())
    w = cp.Variable(d)
    obj = pi @ loss.cvxpy_terms(w, Xa, ya)
    if np.any(c != 0):
        obj = obj + c @ w
    if lam_f > 0:
        obj = obj + lam_f * cp.sum_squares(w)
    cons = [cp.norm(w, 2) <= domain.radius] if domain.bounded else []
    prob = cp.Problem(cp.Minimize(obj), cons)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            prob.solve(solver=solver, **dict(solver_options or {}))
    except cp.error.SolverError as exc:
        raise OracleError(f"cvxpy/{solver} failed: {exc}") from exc
    if prob.status != "optimal" or w.value is None:
        raise OracleError(f"cvxpy/{solver} returned status {prob.status!r}; only 'optimal' is accepted")
    wv = np.asarray(w.value, dtype=np.float64).copy()
    value, _ = objective_value_with_error(loss, Xa, ya, wv, lam=lam_f, linear=c, weights=wts)
    return wv, "optimal", value


@dataclass(frozen=True)
class OracleResult:
    """A certified empirical minimiser with its independent cross-check.

    Attributes
    ----------
    w : (d,) array
        Certified point (from :func:`dpsco.reference.solvers.certified_minimize`).
    value : float
        F(w), float64 evaluation; ``value_error`` bounds its rounding.
    lower_bound : float
        Certified lower bound on F* = value − gap_bound − value_error.
    certificate : Certificate
    iterations : int;  method : str;  solve_time : float (seconds)
    cvxpy_status, cvxpy_w, cvxpy_value, cvxpy_time, cvxpy_certificate
        The cross-check (``None`` when ``cross_check=False``).  ``cvxpy_certificate`` certifies the cvxpy
        point after projection onto W (``cvxpy_infeasibility`` = how far outside W the raw point was).
    agreement : dict
        The quantities compared and their allowed values.
    key : str
        :func:`problem_key` of the problem solved.
    """

    w: np.ndarray
    value: float
    value_error: float
    lower_bound: float
    certificate: Certificate
    iterations: int
    method: str
    solve_time: float
    key: str
    cvxpy_status: str | None = None
    cvxpy_w: np.ndarray | None = None
    cvxpy_value: float | None = None
    cvxpy_time: float | None = None
    cvxpy_certificate: Certificate | None = None
    cvxpy_infeasibility: float | None = None
    agreement: Mapping[str, Any] = field(default_factory=dict)

    @property
    def gap_bound(self) -> float:
        return self.certificate.gap_bound

    @property
    def distance_bound(self) -> float | None:
        return self.certificate.distance_bound

    def to_dict(self) -> dict[str, Any]:
        return {
            "w": np.asarray(self.w).tolist(),
            "value": self.value,
            "value_error": self.value_error,
            "lower_bound": self.lower_bound,
            "certificate": self.certificate.to_dict(),
            "iterations": self.iterations,
            "method": self.method,
            "solve_time": self.solve_time,
            "key": self.key,
            "cvxpy_status": self.cvxpy_status,
            "cvxpy_w": None if self.cvxpy_w is None else np.asarray(self.cvxpy_w).tolist(),
            "cvxpy_value": self.cvxpy_value,
            "cvxpy_time": self.cvxpy_time,
            "cvxpy_certificate": None if self.cvxpy_certificate is None else self.cvxpy_certificate.to_dict(),
            "cvxpy_infeasibility": self.cvxpy_infeasibility,
            "agreement": dict(self.agreement),
        }


def _project_strictly(w: np.ndarray, domain: Ball) -> np.ndarray:
    wp = domain.project(w)
    if domain.bounded:
        k = 0
        while float(np.linalg.norm(wp)) > domain.radius and k < 20:
            wp = wp * (1.0 - 2.0**-50)
            k += 1
    return wp


def certified_oracle(
    loss: GLMLoss,
    X: Any,
    y: Any,
    domain: Ball,
    *,
    lam: float = 0.0,
    linear: Any = None,
    weights: Any = None,
    tol: float = 1e-9,
    max_iter: int = 200,
    cross_check: bool = True,
    solver_options: Mapping[str, Any] | None = None,
) -> OracleResult:
    """Certified minimiser of F over B(0, M), optionally cross-checked by cvxpy/Clarabel.

    Parameters
    ----------
    loss, X (n, d), y (n,), domain, lam, linear, weights, tol, max_iter
        As in :func:`dpsco.reference.solvers.certified_minimize`.
    cross_check : bool
        Also solve with :func:`cvxpy_minimize` and check agreement (module docstring).  cvxpy is slow:
        seconds at n = 10⁴ for exp-cone (logistic) problems.
    solver_options : mapping, optional
        Passed to cvxpy.

    Returns
    -------
    OracleResult

    Raises
    ------
    dpsco.reference.certificates.UncertifiedError
        No certificate meeting ``tol``.
    OracleError
        cvxpy did not report ``optimal``, or the two answers disagree beyond their certified errors.
    ValueError, TypeError
        Bad inputs.
    """
    Xa, ya, c, wts, lam_f = _validate(loss, X, y, domain, lam, linear, weights)
    key = problem_key(loss, Xa, ya, domain, lam=lam_f, linear=c, weights=wts)
    t0 = time.perf_counter()
    sol = certified_minimize(loss, Xa, ya, domain, lam=lam_f, linear=c, tol=tol, max_iter=max_iter,
                             weights=wts)
    t_solve = time.perf_counter() - t0
    value, e_val = objective_value_with_error(loss, Xa, ya, sol.w, lam=lam_f, linear=c, weights=wts)
    cert = sol.certificate
    lower = value - cert.gap_bound - e_val
    if not cross_check:
        return OracleResult(sol.w, value, e_val, lower, cert, sol.iterations, sol.method, t_solve, key)

    t0 = time.perf_counter()
    ladder = [dict(solver_options)] if solver_options is not None else [dict(o) for o in CVXPY_OPTION_LADDER]
    failures: list[str] = []
    for opts in ladder:
        try:
            w_raw, status, _ = cvxpy_minimize(loss, Xa, ya, domain, lam=lam_f, linear=c, weights=wts,
                                              solver_options=opts)
            break
        except OracleError as exc:
            failures.append(f"{opts}: {exc}")
    else:
        raise OracleError("cvxpy cross-check failed for every option set: " + "; ".join(failures))
    t_cvx = time.perf_counter() - t0
    infeas = max(0.0, float(np.linalg.norm(w_raw)) - domain.radius) if domain.bounded else 0.0
    w_c = _project_strictly(w_raw, domain)
    cert_c = certify(loss, Xa, ya, domain, w_c, lam=lam_f, linear=c, weights=wts)
    value_c, e_c = objective_value_with_error(loss, Xa, ya, w_c, lam=lam_f, linear=c, weights=wts)
    diff_value = abs(value_c - value)
    allowed_value = cert.gap_bound + cert_c.gap_bound + e_val + e_c
    agreement: dict[str, Any] = {
        "cvxpy_options": opts,
        "cvxpy_refusals": failures,
        "value_difference": diff_value,
        "value_allowed": allowed_value,
    }
    ok = diff_value <= allowed_value
    if cert.distance_bound is not None and cert_c.distance_bound is not None:
        dist = float(np.linalg.norm(w_c - sol.w))
        allowed_d = (cert.distance_bound + cert_c.distance_bound) * (1 + 2.0**-50) + 4 * 2.0**-53 * (
            float(np.linalg.norm(w_c)) + float(np.linalg.norm(sol.w)))
        agreement.update({"distance": dist, "distance_allowed": allowed_d})
        ok = ok and dist <= allowed_d
    agreement["agree"] = bool(ok)
    if not ok:
        raise OracleError(
            f"certified solver and cvxpy disagree beyond their certified errors: {agreement}; "
            f"newton certificate {cert}, cvxpy certificate {cert_c}"
        )
    return OracleResult(
        sol.w, value, e_val, lower, cert, sol.iterations, sol.method, t_solve, key,
        cvxpy_status=status, cvxpy_w=w_raw, cvxpy_value=value_c, cvxpy_time=t_cvx,
        cvxpy_certificate=cert_c, cvxpy_infeasibility=infeas, agreement=agreement,
    )


class ExcessRisk(NamedTuple):
    """Excess objective F(w) − F* with a certified enclosure lo ≤ F(w) − F* ≤ hi."""

    excess: float
    lo: float
    hi: float


def excess_empirical_risk(
    loss: GLMLoss,
    X: Any,
    y: Any,
    domain: Ball,
    w: Any,
    *,
    lam: float = 0.0,
    linear: Any = None,
    weights: Any = None,
    oracle_result: OracleResult | None = None,
    tol: float = 1e-9,
) -> ExcessRisk:
    """Certified enclosure of the excess empirical risk L̂(w) − min_W L̂ (or F(w) − F* with lam/linear).

    With w_o the certified oracle point (gap G, value errors e), F* ∈ [F(w_o) − G − e_o, F(w_o) + e_o], so

        lo = F(w) − F(w_o) − e_w − e_o,     hi = F(w) − F(w_o) + G + e_w + e_o,

    and lo is raised to 0 when w ∈ W (then F(w) ≥ F*).  ``excess`` = F(w) − F(w_o) is the point estimate.

    Parameters
    ----------
    w : (d,) array
        The point to evaluate (e.g. a private release); it need not lie in W.
    oracle_result : OracleResult, optional
        Reuse a previous :func:`certified_oracle` result for the *same* problem (checked by its key);
        computed without cross-check otherwise.
    Other parameters as in :func:`certified_oracle`.

    Returns
    -------
    ExcessRisk(excess, lo, hi)

    Raises
    ------
    ValueError
        ``oracle_result`` belongs to a different problem; bad inputs.
    """
    Xa, ya, c, wts, lam_f = _validate(loss, X, y, domain, lam, linear, weights)
    wv = as_float_vector(w, "w", Xa.shape[1])
    key = problem_key(loss, Xa, ya, domain, lam=lam_f, linear=c, weights=wts)
    if oracle_result is None:
        oracle_result = certified_oracle(loss, Xa, ya, domain, lam=lam_f, linear=c, weights=wts, tol=tol,
                                         cross_check=False)
    elif not isinstance(oracle_result, OracleResult):
        raise TypeError(f"oracle_result must be an OracleResult, got {type(oracle_result).__name__}")
    elif oracle_result.key != key:
        raise ValueError("oracle_result was computed for a different problem (key mismatch)")
    f_w, e_w = objective_value_with_error(loss, Xa, ya, wv, lam=lam_f, linear=c, weights=wts)
    est = f_w - oracle_result.value
    err = e_w + oracle_result.value_error
    lo = est - err
    hi = est + oracle_result.certificate.gap_bound + err
    if domain.contains(wv):
        lo = max(lo, 0.0)
    return ExcessRisk(float(est), float(lo), float(hi))
