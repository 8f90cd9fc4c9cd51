"""The certified oracle against cvxpy/Clarabel on ridge-regularised logistic regression: time, certificates, accuracy.

Usage::

    python benchmarks/oracle_vs_cvxpy.py            # n = 10_000, d = 50, 5 repetitions each (~1–2 min)
    python benchmarks/oracle_vs_cvxpy.py --quick    # n = 2_000, d = 20, 2 repetitions (a few seconds)
    python benchmarks/oracle_vs_cvxpy.py --blas-threads 1   # OpenBLAS single-threaded (see below)

OpenBLAS threads.  On a 2-core machine shared with other work, OpenBLAS's default of one thread per core makes
small dense products 100–700× slower (measured 2026-11-23: X.T @ X at 2000 × 20 took 70 ms with 2 threads
and 0.1 ms with 1; at 10⁴ × 50, 320 ms against 2.4 ms).  The certified oracle is dense linear algebra
(Hessians, eigenvalues), Clarabel is single-threaded sparse code, so the ratio depends on this setting;
``--blas-threads 1`` fixes it before numpy is imported.

Objective (the project's GLM objective, :mod:`dpsco.reference.glm_objective`, logistic loss):

    F(w) = (1/n) Σ_i log(1 + exp(−y_i⟨x_i, w⟩)) + lam‖w‖²   over W = B(0, M),

so F is μ = 2·lam strongly convex.  lam = 1e-3 and M = 30 by default.  The constraint is provably inactive:
lam‖w*‖² < F(w*) ≤ F(0) = log 2 gives ‖w*‖ < √(log 2/lam) = 26.3 < 30 (the script also checks ‖w‖ < M).

Instance generator (:func:`draw_instance`, seed ``--seed``, default 20261123): x_i = r_i·u_i with u_i uniform
on the unit sphere of ℝᵈ and r_i ~ Unif[0, 1], so ‖x_i‖ ≤ 1 = x_max of the declared
``DataBounds(x_max=1, y_max=1)``; a planted w⋆ = 3·u (u uniform on the sphere) and labels
y_i = +1 with probability σ(⟨w⋆, x_i⟩), −1 otherwise.

What is timed (alternately, ``--reps`` times each after one untimed warm-up of each):

* ours: :func:`dpsco.oracles.minimizers.certified_oracle` with ``cross_check=False`` (damped Newton in float64
  plus the a-posteriori certificate of :func:`dpsco.reference.glm_certificate.certify`);
* cvxpy/Clarabel: :func:`dpsco.oracles.minimizers.cvxpy_minimize` (cvxpy's ``cp.logistic`` exp-cone model,
  Clarabel's default settings, numpy evaluation of F at the returned point), i.e. the cross-check route.

The ratio of the medians is printed.  Then, certificates:

* ours: the certificate the oracle returns (gap bound on F(w) − F*, distance bound on ‖w − w*‖);
* Clarabel: its own report from one instrumented solve of the same cvxpy problem (status, iterations, primal
  and dual residuals, primal and dual objectives and their difference, its internal solve time), and a
  certificate computed independently of Clarabel at Clarabel's returned point by
  :func:`dpsco.reference.glm_certificate.certify` (the strong-convexity gap ‖∇F(w)‖²/(2μ) with μ = 2·lam, with
  float rounding allowances, and the local-curvature gap, whichever is smaller).

Finally, on a small instance (n = 256, d = 3, same generator, lam and M; n a power of two so that the float64
weights fl(1/n) = 1/n exactly and the float certificates and the mp reference describe the same objective) a
50-digit reference minimiser from :func:`dpsco.oracles.mp_reference.ridge_logistic_reference` (Newton at 60
digits until ‖∇F‖ < 1e-50; ‖w_ref − w*‖ ≤ ‖∇F(w_ref)‖/(2·lam)), and for both solvers the distance
‖w − w_ref‖ and the gap F(w) − F(w_ref) evaluated at 60 digits, with a check that each reported certificate
covers the true error ("certificate holds" / "VIOLATED").  Clarabel's own duality gap is *not* a certificate
of F(w) − F* (its dual point is only approximately feasible); it is checked the same way for information.
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import statistics
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _blas_threads_from_argv(argv: list[str]) -> str | None:
    """--blas-threads K must act before numpy loads OpenBLAS, so it is read here, ahead of argparse."""
    for i, a in enumerate(argv):
        if a == "--blas-threads" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--blas-threads="):
            return a.split("=", 1)[1]
    return None


_BLAS = _blas_threads_from_argv(sys.argv[1:]) if __name__ == "__main__" else None
if _BLAS is not None:
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = _BLAS

import numpy as np  # noqa: E402
from scipy.special import expit  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpsco.oracles.minimizers import OracleError, certified_oracle, cvxpy_minimize  # noqa: E402
from dpsco.oracles.mp_reference import (  # noqa: E402
    mp_distance,
    ridge_logistic_objective,
    ridge_logistic_reference,
)
from dpsco.reference import Ball, DataBounds, LogisticLoss  # noqa: E402
from dpsco.reference.certificates import Certificate  # noqa: E402
from dpsco.reference.glm_certificate import certify  # noqa: E402
from dpsco.reference.solvers import strictly_inside  # noqa: E402

LOSS = LogisticLoss()
BOUNDS = DataBounds(x_max=1.0, y_max=1.0)
LAM = 1e-3
RADIUS = 30.0  # > √(log 2 / LAM) = 26.3: the ball constraint cannot be active
SEED = 20261123
SMALL_N, SMALL_D = 256, 3


def draw_instance(n: int, d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """X (n, d) with ‖x_i‖ ≤ 1 (radius Unif[0, 1] times a uniform direction), y (n,) ∈ {−1, +1} from a logistic
    model with planted w⋆ = 3·(uniform unit vector)."""
    U = rng.standard_normal((n, d))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    X = U * rng.random(n)[:, None]
    X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)  # rounding: keep ‖x‖ ≤ 1 exactly in float
    w_star = rng.standard_normal(d)
    w_star *= 3.0 / np.linalg.norm(w_star)
    y = np.where(rng.random(n) < expit(X @ w_star), 1.0, -1.0)
    assert float(np.max(np.linalg.norm(X, axis=1))) <= BOUNDS.x_max
    return X, y


@dataclass(frozen=True)
class ClarabelReport:
    """One instrumented cvxpy/Clarabel solve: the point and what Clarabel says about it."""

    w: np.ndarray
    status: str
    iterations: int
    r_prim: float
    r_dual: float
    obj_val: float
    obj_val_dual: float
    solve_time: float

    @property
    def duality_gap(self) -> float:
        return abs(self.obj_val - self.obj_val_dual)


def clarabel_report(X: np.ndarray, y: np.ndarray, lam: float, radius: float) -> ClarabelReport:
    """The cvxpy problem of :func:`cvxpy_minimize` (same expression, same constraint), solved through cvxpy's
    solving chain so that Clarabel's raw solution (residuals, dual objective) can be read."""
    import cvxpy as cp

    n, d = X.shape
    w = cp.Variable(d)
    obj = np.full(n, 1.0 / n) @ LOSS.cvxpy_terms(w, X, y) + lam * cp.sum_squares(w)
    prob = cp.Problem(cp.Minimize(obj), [cp.norm(w, 2) <= radius])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data, chain, inverse = prob.get_problem_data(cp.CLARABEL, solver_opts={})
        raw = chain.solver.solve_via_data(data, False, False, {})
        prob.unpack_results(raw, chain, inverse)
    return ClarabelReport(np.asarray(w.value, dtype=np.float64).copy(), str(raw.status), int(raw.iterations),
                          float(raw.r_prim), float(raw.r_dual), float(raw.obj_val), float(raw.obj_val_dual),
                          float(raw.solve_time))


def certificate_at(X: np.ndarray, y: np.ndarray, w: np.ndarray, lam: float, radius: float
                   ) -> tuple[Certificate, np.ndarray, float]:
    """certify() at w pulled strictly inside the ball (a no-op when ‖w‖ < M); also returns the point certified
    and how far outside the ball w was."""
    infeas = max(0.0, float(np.linalg.norm(w)) - radius)
    wc = strictly_inside(Ball(radius).project(w), radius)
    return certify(LOSS, X, y, Ball(radius), wc, lam=lam), wc, infeas


def _fmt(x: float) -> str:
    return f"{x:.3e}"


def _sc_gap(cert: Certificate) -> str:
    det = cert.details.get("strong-convexity gap (2*lam)")
    return "n/a" if det is None else f"{_fmt(det['gap'])} (distance {_fmt(det['distance'])})"


def timing(X: np.ndarray, y: np.ndarray, lam: float, radius: float, reps: int,
           time_limit: float | None = None, warm_up: bool = True) -> dict[str, Any]:
    """Alternate the two solvers ``reps`` times each after one warm-up each (``warm_up``); medians and the last
    results.  ``time_limit`` (seconds) is passed to Clarabel (its ``time_limit`` setting); the statuses are kept."""
    dom = Ball(radius)
    opts = None if time_limit is None else {"time_limit": float(time_limit)}
    statuses: list[str] = []
    res = certified_oracle(LOSS, X, y, dom, lam=lam, cross_check=False)
    if warm_up:
        cvxpy_minimize(LOSS, X, y, dom, lam=lam, solver_options=opts)
    t_ours, t_cvx = [], []
    w_cvx = None
    for _ in range(reps):
        t0 = time.perf_counter()
        res = certified_oracle(LOSS, X, y, dom, lam=lam, cross_check=False)
        t_ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        try:
            w_cvx, status, _ = cvxpy_minimize(LOSS, X, y, dom, lam=lam, solver_options=opts)
        except OracleError as exc:  # e.g. stopped by the time limit: 'optimal_inaccurate' is refused as an answer
            status = f"refused ({exc})"
        t_cvx.append(time.perf_counter() - t0)
        statuses.append(status)
    return {"ours": res, "w_cvx": w_cvx, "t_ours": t_ours, "t_cvx": t_cvx, "cvx_status": statuses,
            "med_ours": statistics.median(t_ours), "med_cvx": statistics.median(t_cvx)}


def verdict_gap(true_lo: Any, true_hi: Any, bound: float) -> str:
    """"certificate holds" if even the largest possible true gap is ≤ bound, "VIOLATED" if even the smallest
    exceeds it, "undecided" otherwise (the reference's own bounds leave the true value inside [lo, hi])."""
    if true_hi <= bound:
        return "certificate holds"
    if true_lo > bound:
        return "VIOLATED"
    return "undecided"


@functools.lru_cache(maxsize=4)
def small_instance_check(lam: float = LAM, radius: float = RADIUS, seed: int = SEED, dps: int = 60
                         ) -> dict[str, Any]:
    """The 50-digit comparison of the module docstring.  Returns every number printed (mpf as mpf); cached
    (deterministic in its arguments), so a test and :func:`main` in one process compute it once."""
    import mpmath

    rng = np.random.default_rng([seed, 1])
    X, y = draw_instance(SMALL_N, SMALL_D, rng)
    ref = ridge_logistic_reference(X, y, lam, dps=dps)
    with mpmath.workdps(dps):
        norm_ref = mpmath.sqrt(mpmath.fsum(v * v for v in ref.w))
    if not norm_ref + ref.distance_bound < radius:
        raise RuntimeError("the reference lies outside the ball: the unconstrained reference does not apply")
    ours = certified_oracle(LOSS, X, y, Ball(radius), lam=lam, cross_check=False)
    clar = clarabel_report(X, y, lam, radius)
    cert_c, w_c, infeas = certificate_at(X, y, clar.w, lam, radius)
    out: dict[str, Any] = {"X": X, "y": y, "ref": ref, "norm_ref": norm_ref, "rows": {}}
    for name, w, cert, extra in (("certified oracle", ours.w, ours.certificate, None),
                                 ("cvxpy/Clarabel", w_c, cert_c, clar)):
        dist = mp_distance(w, ref.w, dps=dps)
        gap = ridge_logistic_objective(X, y, lam, w, dps=dps) - ref.value  # F(w) − F(w_ref)
        # F* ∈ [F(w_ref) − ref.gap_bound, F(w_ref)]: the true gap F(w) − F* ∈ [gap, gap + ref.gap_bound]
        row = {
            "w": w, "distance": dist, "gap": gap, "certificate": cert,
            "gap_verdict": verdict_gap(gap, gap + ref.gap_bound, cert.gap_bound),
            "distance_verdict": (verdict_gap(dist - ref.distance_bound, dist + ref.distance_bound,
                                             cert.distance_bound) if cert.distance_bound is not None else "n/a"),
        }
        if extra is not None:
            row["clarabel"] = extra
            row["infeasibility"] = infeas
            # Clarabel's duality gap refers to its raw point; the raw point is what it reports on
            gap_raw = ridge_logistic_objective(X, y, lam, extra.w, dps=dps) - ref.value
            row["clarabel_gap_raw"] = gap_raw
            row["clarabel_verdict"] = verdict_gap(gap_raw, gap_raw + ref.gap_bound, extra.duality_gap)
        out["rows"][name] = row
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n = 2000, d = 20, 2 repetitions")
    ap.add_argument("--n", type=int, default=None)
    ap.add_argument("--d", type=int, default=None)
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--lam", type=float, default=LAM)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--cvxpy-time-limit", type=float, default=None, metavar="SECONDS",
                    help="Clarabel's time_limit for the timed cvxpy solves (the large instance: n = 10⁵, d = 100)")
    ap.add_argument("--no-warm-up", action="store_true", help="skip the untimed cvxpy warm-up (large instances)")
    ap.add_argument("--skip-certificates", action="store_true",
                    help="time only: skip the instrumented Clarabel solve and the 50-digit check")
    ap.add_argument("--blas-threads", type=int, default=None,
                    help="set OPENBLAS/OMP/MKL_NUM_THREADS before numpy loads (default: the environment's)")
    args = ap.parse_args(argv)
    n = args.n or (2_000 if args.quick else 10_000)
    d = args.d or (20 if args.quick else 50)
    reps = args.reps or (2 if args.quick else 5)
    lam, M = args.lam, RADIUS
    if not math.sqrt(math.log(2) / lam) < M:
        print(f"note: √(log 2/lam) = {math.sqrt(math.log(2) / lam):.3g} ≥ M = {M}: the constraint may be active")

    import clarabel
    import cvxpy

    X, y = draw_instance(n, d, np.random.default_rng([args.seed, 0]))
    print(f"instance: ridge-logistic, n = {n}, d = {d}, lam = {lam:g} (F = mean loss + lam‖w‖², μ = 2·lam), "
          f"W = B(0, {M:g}), ‖x_i‖ ≤ 1, seed {args.seed}; cvxpy {cvxpy.__version__}, clarabel "
          f"{clarabel.__version__}, numpy {np.__version__}, BLAS threads "
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'default')} on {os.cpu_count()} CPUs")
    print(f"instance: {int(np.sum(y > 0))} positive labels of {n}")

    T = timing(X, y, lam, M, reps, time_limit=args.cvxpy_time_limit, warm_up=not args.no_warm_up)
    ours = T["ours"]
    r = T["med_cvx"] / T["med_ours"]
    print("\n== time (median of %d alternating repetitions each, after one warm-up each) ==" % reps)
    print(f"certified_oracle (cross_check=False): {T['med_ours']:.3f} s  (all: "
          + ", ".join(f"{t:.3f}" for t in T["t_ours"]) + ")")
    print(f"cvxpy_minimize (Clarabel):            {T['med_cvx']:.3f} s  (all: "
          + ", ".join(f"{t:.3f}" for t in T["t_cvx"]) + ")")
    print(f"cvxpy statuses: {', '.join(T['cvx_status'])}"
          + ("" if args.cvxpy_time_limit is None else f" (Clarabel time_limit {args.cvxpy_time_limit:g} s: a "
             "solve stopped by it makes the ratio a lower bound)"))
    if r >= 1:
        print(f"certified oracle is {r:.1f}× faster than cvxpy/Clarabel")
    else:
        print(f"certified oracle is {1 / r:.1f}× slower than cvxpy/Clarabel")
    if args.skip_certificates:
        c = ours.certificate
        print(f"ours: F(w) − F* ≤ {_fmt(c.gap_bound)}; ‖w − w*‖ ≤ {_fmt(c.distance_bound)}")
        return 0

    print("\n== certificates on this instance ==")
    c = ours.certificate
    print(f"ours: method {ours.method!r}, {ours.iterations} Newton steps, ‖w‖ = {np.linalg.norm(ours.w):.4g} < M")
    print(f"ours: F(w) − F* ≤ {_fmt(c.gap_bound)} ({c.method}); ‖w − w*‖ ≤ {_fmt(c.distance_bound)}; "
          f"strong-convexity route alone: gap {_sc_gap(c)}")
    clar = clarabel_report(X, y, lam, M)
    cert_c, _, infeas = certificate_at(X, y, clar.w, lam, M)
    same = float(np.max(np.abs(clar.w - T["w_cvx"])))
    print(f"Clarabel (instrumented solve; max |Δw| to cvxpy_minimize's point {same:.1e}): status {clar.status},"
          f" {clar.iterations} iterations, internal solve time {clar.solve_time:.3f} s")
    print(f"Clarabel reports: primal residual {_fmt(clar.r_prim)}, dual residual {_fmt(clar.r_dual)}, "
          f"primal obj {clar.obj_val:.15g}, dual obj {clar.obj_val_dual:.15g}, |gap| {_fmt(clar.duality_gap)}")
    print(f"independent certificate at Clarabel's point (certify, ‖w‖ outside the ball by {infeas:.1e}): "
          f"F(w) − F* ≤ {_fmt(cert_c.gap_bound)} ({cert_c.method}); ‖w − w*‖ ≤ {_fmt(cert_c.distance_bound)}; "
          f"strong-convexity route alone: gap {_sc_gap(cert_c)}")
    print(f"‖w_ours − w_clarabel‖ = {_fmt(float(np.linalg.norm(ours.w - clar.w)))}")

    print(f"\n== 50-digit reference on a small instance (n = {SMALL_N}, d = {SMALL_D}, same lam, M, generator) ==")
    S = small_instance_check(lam, M, args.seed)
    ref = S["ref"]
    import mpmath

    print(f"reference: {ref.iterations} Newton steps at {ref.dps} digits, ‖∇F(w_ref)‖ = "
          f"{mpmath.nstr(ref.gradient_norm, 3)} (+ rounding allowance {mpmath.nstr(ref.gradient_error, 3)}), so "
          f"‖w_ref − w*‖ ≤ {mpmath.nstr(ref.distance_bound, 3)} and F(w_ref) − F* ≤ {mpmath.nstr(ref.gap_bound, 3)}"
          f"; ‖w_ref‖ = {mpmath.nstr(S['norm_ref'], 6)} < M")
    for name, row in S["rows"].items():
        cert = row["certificate"]
        print(f"{name}: ‖w − w_ref‖ = {mpmath.nstr(row['distance'], 3)} (certified ≤ {_fmt(cert.distance_bound)}: "
              f"{row['distance_verdict']}); F(w) − F(w_ref) = {mpmath.nstr(row['gap'], 3)} (certified ≤ "
              f"{_fmt(cert.gap_bound)}: {row['gap_verdict']})")
        if "clarabel" in row:
            cl = row["clarabel"]
            print(f"{name}: Clarabel's own |primal − dual obj| = {_fmt(cl.duality_gap)} against the true "
                  f"F(w_raw) − F* = {mpmath.nstr(row['clarabel_gap_raw'], 3)}: {row['clarabel_verdict']} "
                  f"(residuals primal {_fmt(cl.r_prim)}, dual {_fmt(cl.r_dual)})")
    bad = [v for row in S["rows"].values() for k, v in row.items() if k.endswith("verdict") and v == "VIOLATED"]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
