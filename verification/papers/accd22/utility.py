"""Utility tasks of the `dpsco verify` suites of Asi, Chadha, Cheng & Duchi (2022), arXiv:2210.17070: the paper's
headline claim, adaptivity, κ-growth, Proposition 1.2 and the lower bounds of Theorems 1 and 4 as privacy sanity
checks.

**Practical constants.**  The paper's constants make every run degenerate at simulation scale (Theorem 2's m
exceeds n below n ≈ 10^10; its 256·(H/λ)·M(m) radius ratio exceeds 1, so domains grow instead of shrinking).  The
utility tasks therefore run with explicit, recorded utility overrides — m, the radius constants (256 → 0.25,
128 → 1), and ``eta_scale`` = 128 on Algorithm 5's η_0 — at ε = 4 in d = 1.  None of them touches the privacy
calibration: σ_i ∝ η_i and the phase sensitivity (1 + 2·tol)Lη_i scale together, so every run keeps its ε claim
(the privacy tasks audit the same code paths).  Theorem 2's bound is stated for the paper's m and is not checked
at these overrides; the checks below are about the *shape* the paper claims.

* headline (Algorithm 2): on interpolating least squares (:class:`InterpolatingLeastSquares`, d = 1, x* = 0.5,
  λ = H = 1) the excess falls near-exponentially in n = T·m (log excess linear in n): the log–log slope over the
  grid is steeper than −3 — faster than any non-interpolation rate, whose exponent is at most 2 (Asi, Levy &
  Duchi 2021; Theorem 3.2) — with its t-interval (``rate_check_from_values``, kind "upper");  on the
  non-interpolating twin (:class:`NoisyLeastSquares`, labels ± 0.5 noise) Algorithm 5 falls polynomially (slope
  in [−2, 0], kind "tight"), and Algorithm 2 alone does not localise (reported).  The report plots all series.
* adaptivity (Algorithm 3, one configuration for both instances): steeper than n^{−2.5} on the interpolating
  instance; on the twin the mean excess below the start's (Hoeffding).  Theorem 3.2's envelope (H/2)·D_int² on
  the event that x_1 localises x* is recorded as a *diagnostic*, not a check: on that event the output is
  projected onto X_int = B(x_1, D_int/2) ∋ x*, so the envelope holds by construction of the projection and could
  not fail for any algorithm; the event's frequency and the public envelope (polynomial in n) are recorded.
* κ-growth (Algorithm 6, κ = 3, :class:`InterpolatingPowerLoss`): Theorem 8's schedule against the paper's
  formula T = ⌊log n⌋, m = ⌊n/T⌋ evaluated here (an exact check); Lemma C.1's envelope D_T³/3 on the
  containment event is a diagnostic for the same reason as above (every phase output is projected onto its
  epoch's ball), as are the event's frequency, Theorem 8's exponent −κ/(κ − 2) and the measured slopes (Theorem 8
  is an Õ statement).
* Proposition 1.2 (Algorithm 1): on L-Lipschitz data the extension changes nothing — identical outputs with a
  shared seed (exact).
* lower bounds (Theorems 1 and 4, every algorithm on their instances S_v): the proofs' inequality for a packing
  V with separation γ — max_v E[min(f_v(M(S_v)), c)] ≥ c/(1 + e^{kε}/(|V| − 1)), c = kHγ²/(8n), for every ε-DP
  M — checked by one-sided Hoeffding on [0, c] (the truncation keeps the range within 3.5× the bound, so the
  check can fail), and run on the planted noise-free copy of each algorithm, which it must refute (exactly:
  its outputs are deterministic).  A sanity check against gross privacy failures only: a mechanism whose
  truncated excess stays above the bound on some v passes, private or not.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpsco.oracles.accd22.interpolation_instances import (InterpolatingLeastSquares, InterpolatingPowerLoss,
                                                          NoisyLeastSquares)
from dpsco.oracles.accd22.lower_bound_instances import (theorem_1_instance, theorem_4_instance)
from dpsco.reference.accd22 import (Ball, PowerLoss, SquaredDistanceLoss, SquaredLoss, algorithm_1,
                                    algorithm_2, algorithm_3, algorithm_4, algorithm_5, algorithm_6)
from dpsco.reference.accd22.algorithms import run_with_parts
from dpsco.verification.checks.power_figures import hoeffding_lower_power, hoeffding_upper_power
from dpsco.verification.checks.stats import exact_check, suite_check
from dpsco.verification.checks.theorem_checks import hoeffding_p_value, rate_check_from_values
from dpsco.verification.mutants.accd22 import bugs as _mutants
from dpsco.verification.papers.registry import SuiteInputs

__all__ = ["PRACTICAL", "SIZES", "adaptivity_task", "extension_identity_task", "headline_task", "kappa_growth_task",
           "lower_bound_algorithm_1", "lower_bound_algorithm_2", "lower_bound_statistic", "mean_bound_uninformative",
           "slope_uninformative",
           "lower_bound_algorithm_3", "lower_bound_algorithm_4", "lower_bound_algorithm_5", "lower_bound_algorithm_6"]

_ALGORITHMS = {"algorithm_1": algorithm_1, "algorithm_2": algorithm_2, "algorithm_3": algorithm_3,
               "algorithm_4": algorithm_4, "algorithm_5": algorithm_5, "algorithm_6": algorithm_6}
#: the recorded utility overrides of every utility task (privacy-neutral; see the module docstring)
PRACTICAL: dict[str, Any] = {"epsilon": 4.0, "delta": 0.0, "m": 1000, "alg2_constant": 0.25, "alg3_constant": 0.3,
                             "alg6_constant": 0.3, "eta_scale": 128.0}
#: epochs T of the grid n = T·m and replicates per grid point, per budget
SIZES: dict[str, dict[str, Any]] = {"quick": {"T": (1, 2, 3), "runs": 20},
                                    "standard": {"T": (1, 2, 3, 4, 5), "runs": 100},
                                    "paper": {"T": (1, 2, 3, 4, 5, 6), "runs": 200}}
_X_STAR = np.array([0.5])
_DOMAIN = Ball(1.0, center=np.zeros(1))
_INTERP = InterpolatingLeastSquares(1, 1.0, _X_STAR, 1.0)
_TWIN = NoisyLeastSquares(1, 1.0, _X_STAR, 1.0, 0.5)
#: excess values lie in [0, ½·(R + ‖x*‖)²] on the domain (f(x) − f* = ½(x − x*)² in d = 1)
_RANGE = (0.0, 0.5 * 1.5 ** 2)


#: why the envelopes on the containment events are diagnostics, not checks
_BY_CONSTRUCTION = ("holds by construction: on the event the output is projected onto a ball that contains x*, so the "
                    "bound is the projection's, whatever the algorithm's privacy or accuracy; recorded as a "
                    "diagnostic of the proof's mechanism, never as a check that could fail")


def _excess(instance: Any, out: np.ndarray) -> list[float]:
    return [float(v) for v in np.atleast_1d(instance.excess(np.atleast_2d(out)))]


def _run(alg: str, instance: Any, n: int, runs: int, rng: np.random.Generator) -> list[float]:
    p = PRACTICAL
    Z = instance.sample(n, rng)
    common = dict(replicates=runs, eta_scale=p["eta_scale"])
    args = (Z, SquaredLoss(), _DOMAIN, instance.L, instance.H)
    if alg == "algorithm_2":
        rel = algorithm_2(*args, instance.lam, np.zeros(1), p["epsilon"], p["delta"], rng, m=p["m"],
                          constant=p["alg2_constant"], **common)
    elif alg == "algorithm_3":
        rel = algorithm_3(*args, instance.lam, np.zeros(1), p["epsilon"], p["delta"], rng, m=p["m"],
                          constant=p["alg3_constant"], alg2_constant=p["alg2_constant"], **common)
    else:
        rel = algorithm_5(*args, np.zeros(1), p["epsilon"], p["delta"], rng, **common)
    return _excess(instance, rel.output)


def _series(alg: str, instance: Any, grid: list[int], runs: int, seed: np.random.SeedSequence) -> list[list[float]]:
    return [_run(alg, instance, n, runs, np.random.default_rng(s)) for n, s in zip(grid, seed.spawn(len(grid)))]


def _grid(budget: str, halves: bool = False) -> list[int]:
    m = PRACTICAL["m"]
    return [(2 if halves else 1) * T * m for T in SIZES[budget]["T"]]


def _check(check: Any, statement: str) -> dict[str, Any]:
    d = check.to_dict()
    d["statement"] = statement
    d["verdict"] = None
    why = slope_uninformative(d)
    if why is not None:  # the campaign labels a pass "uninformative" (checks.power), never a failure
        d["uninformative_at_inputs"] = why
    return d


#: the level at which the campaign's most lenient Holm step fails a check (its α): the powers below are taken there
_HOLM_ALPHA = 1e-3


def slope_uninformative(rec: dict[str, Any]) -> str | None:
    """Why a slope check (a ``rate_check_from_values`` record, kind "upper" or "tight") cannot refute a violation
    of its claim by a factor of two at these runs, or None.  From the record's own numbers:

    * "tight" with a band [exponent − tolerance, exponent + tolerance] that contains 0: a constant excess (slope 0:
      a loop that never runs) satisfies the statement, so a pass says nothing about convergence;
    * "upper" (slope ≤ exponent < 0): the detectable slope excess (``detectable_excess``, t at 1e-3 × the slope's
      standard error) exceeds |exponent|/2, so a rate with half the claimed exponent passes."""
    exponent, tol = float(rec["exponent"]), float(rec["tolerance"])
    if rec.get("kind") == "tight" and exponent - tol <= 0.0 <= exponent + tol:
        return (f"cannot fail on a non-converging algorithm: the accepted band [{exponent - tol:g}, "
                f"{exponent + tol:g}] of the log–log slope contains 0, the slope of a constant excess (a loop that "
                "never runs)")
    det = float(rec.get("detectable_excess", 0.0))
    if rec.get("kind") == "upper" and exponent < 0.0 and det > abs(exponent) / 2.0:
        return (f"cannot detect a rate with half the claimed exponent: detectable slope excess {det:.3g} (t at 1e-3 "
                f"× se {float(rec['se']):.3g}; {len(rec['n_grid'])} grid points × {rec['replicates']} runs) > "
                f"|{exponent:g}|/2 = {abs(exponent) / 2.0:g}, so a slope of {exponent / 2.0:g} passes")
    return None


def mean_bound_uninformative(bound: float, top: float, runs: int, tests: int) -> str | None:
    """Why a one-sided Hoeffding check "mean ≤ bound" of values in [0, ``top``] (``runs`` per test, Bonferroni over
    ``tests``) cannot detect a mean of twice the bound at the campaign's most lenient level 1e-3, or None: the
    detectable excess top·√(log(tests/1e-3)/(2·runs)) is then above the bound."""
    det = top * math.sqrt(math.log(tests / _HOLM_ALPHA) / (2.0 * runs))
    if det > bound:
        return (f"cannot detect a mean of twice the bound: detectable excess {det:.3g} (Hoeffding on [0, {top:g}], "
                f"{runs} runs, {tests} grid points, level 1e-3) > bound {bound:.3g}")
    return None


def _figure(title: str, grid: list[int], series: dict[str, list[list[float]]],
            semilogy: bool = False) -> dict[str, Any]:
    """A report figure of the mean excess per grid n (``semilogy``: log y on a linear n axis, where decay
    exponential in n is a straight line)."""
    return {"title": title, "xlabel": "n", "ylabel": "mean excess population risk f(x) − f*", "x": grid,
            "series": [{"label": k, "y": [float(np.mean(v)) for v in vals]} for k, vals in series.items()],
            "semilogy": semilogy}


def headline_task(inputs: SuiteInputs) -> dict[str, Any]:
    """Algorithm 2's near-exponential decay on interpolating least squares against polynomial decay on its
    non-interpolating twin (module docstring); a figure of all series for the report."""
    sz = SIZES[inputs.budget]
    grid = _grid(inputs.budget)
    s = inputs.seed.spawn(3)
    interp = _series("algorithm_2", _INTERP, grid, sz["runs"], s[0])
    twin5 = _series("algorithm_5", _TWIN, grid, sz["runs"], s[1])
    twin2 = _series("algorithm_2", _TWIN, grid, sz["runs"], s[2])
    c1 = rate_check_from_values("accd22_headline_interpolating", "Theorem 2 (shape)", -3.0, grid, interp,
                                kind="upper", tolerance=0.0)
    c2 = rate_check_from_values("accd22_headline_twin", "Asi, Levy & Duchi 2021 (Theorem 6 here; shape)", -1.0,
                                grid, twin5, kind="tight", tolerance=1.0)
    loglin = np.polyfit(grid, np.log([np.mean(v) for v in interp]), 1)
    checks = {
        "accd22_headline_interpolating": _check(c1, "Algorithm 2 on interpolating least squares: log–log slope of the "
                                                    "excess over n = T·m is ≤ −3 (near-exponential: faster than any "
                                                    "non-interpolation rate)"),
        "accd22_headline_twin": _check(c2, "Algorithm 5 on the non-interpolating twin: log–log slope in [−2, 0] "
                                           "(polynomial decay)")}
    return {"record": {"practical_overrides": PRACTICAL, "grid": grid,
                       "mean_excess": {"algorithm_2_interpolating": [float(np.mean(v)) for v in interp],
                                       "algorithm_5_twin": [float(np.mean(v)) for v in twin5],
                                       "algorithm_2_twin": [float(np.mean(v)) for v in twin2]},
                       "log_excess_linear_in_n": {"slope_per_sample": float(loglin[0]),
                                                  "slope_per_epoch": float(loglin[0] * PRACTICAL["m"])},
                       "figure": _figure("interpolation (exponential: a line on this log–linear plot) vs its non-interpolating twin",
                                         grid, {"Algorithm 2, interpolating": interp,
                                                "Algorithm 5, non-interpolating twin": twin5,
                                                "Algorithm 2, non-interpolating twin": twin2}, semilogy=True)},
            "checks": checks, "audits": {}}


def _alg3_runs(instance: Any, n: int, runs: int, rng: np.random.Generator) -> tuple[list[float], float, np.ndarray]:
    """Algorithm 3's excess values, D_int and the first-stage outputs x_1 (R, 1) on ``instance`` at n."""
    p = PRACTICAL
    rel = algorithm_3(instance.sample(n, rng), SquaredLoss(), _DOMAIN, instance.L, instance.H, instance.lam,
                      np.zeros(1), p["epsilon"], p["delta"], rng, m=p["m"], constant=p["alg3_constant"],
                      alg2_constant=p["alg2_constant"], eta_scale=p["eta_scale"], replicates=runs, white_box=True)
    return _excess(instance, rel.output), float(rel.parameters["D_int"]), rel.white_box.first_stage_output


def adaptivity_task(inputs: SuiteInputs) -> dict[str, Any]:
    """Algorithm 3 on both instances, with the same configuration (it does not know which one it runs on).

    Interpolating: log–log slope of the excess ≤ −2.5 (steeper than the non-interpolation rate n^{−2}; Theorem
    3.3's near-exponential decay, shape).  Non-interpolating twin, through Theorem 3.2's proof: on the event
    E = {‖x_1 − x*‖ ≤ D_int/2} the output, projected onto X_int = B(x_1, D_int/2), is within D_int of x*, so
    f(x_adapt) − f* ≤ (H_f/2)·D_int² with H_f = 1 the population smoothness — deterministically; D_int =
    c(L/λ)A(⌊n/2⌋, β/2) is public and decays polynomially (A² ∝ log³n/n: the standard rate up to logs).  The exact
    check is the envelope on E at every grid n; the frequency of E is recorded (the tests bound it by an exact
    binomial), and the mean excess beside the start's."""
    sz = SIZES[inputs.budget]
    grid = _grid(inputs.budget, halves=True)
    interp, twin, env, contained, envelope_holds = [], [], [], [], True
    for n, (si, st) in zip(grid, (c.spawn(2) for c in inputs.seed.spawn(len(grid)))):
        interp.append(_alg3_runs(_INTERP, n, sz["runs"], np.random.default_rng(si))[0])
        ex, D_int, X1 = _alg3_runs(_TWIN, n, sz["runs"], np.random.default_rng(st))
        inside = np.abs(X1[:, 0] - _TWIN.x_star[0]) <= D_int / 2.0
        envelope = 0.5 * D_int ** 2
        envelope_holds &= bool(np.all(np.asarray(ex)[inside] <= envelope * (1 + 1e-12)))
        twin.append(ex)
        env.append(envelope)
        contained.append(float(np.mean(inside)))
    c1 = rate_check_from_values("accd22_adaptive_interpolating", "Theorem 3.3 (shape)", -2.5, grid, interp,
                                kind="upper", tolerance=0.0)
    start = float(_TWIN.excess(np.zeros((1, 1)))[0])
    p = min(1.0, len(grid) * max(hoeffding_p_value(float(np.mean(v)), start, _RANGE[1], len(v)) for v in twin))
    checks = {
        "accd22_adaptive_interpolating": _check(c1, "Algorithm 3 on interpolating least squares: log–log slope ≤ −2.5 "
                                                    "(steeper than any non-interpolation rate)"),
        "accd22_adaptive_twin": suite_check("accd22_adaptive_twin", "Algorithm 3 on the non-interpolating twin: mean "
                                            "excess ≤ the start's f(x_0) − f* at every grid n (Hoeffding, Bonferroni "
                                            "over the grid)", p, max(float(np.mean(v)) for v in twin), start,
                                            uninformative=mean_bound_uninformative(start, _RANGE[1], sz["runs"],
                                                                                   len(grid)),
                                            power=hoeffding_upper_power(start, _RANGE[1], sz["runs"], len(grid)))}
    return {"record": {"practical_overrides": PRACTICAL, "grid": grid, "twin_envelope": env,
                       "twin_containment_frequency": contained,
                       "diagnostics": {"twin_envelope_on_containment": {
                           "holds": envelope_holds, "not_a_check": _BY_CONSTRUCTION,
                           "statement": "runs with ‖x_1 − x*‖ ≤ D_int/2 have excess ≤ (H/2)·D_int² (Theorem 3.2's "
                                        "mechanism; the output is projected onto X_int = B(x_1, D_int/2))"}},
                       "figure": _figure("Algorithm 3 adapts: interpolating vs non-interpolating twin", grid,
                                         {"Algorithm 3, interpolating": interp,
                                          "Algorithm 3, non-interpolating twin": twin,
                                          "Theorem 3.2 envelope (H/2)·D_int² (twin)": [[e] for e in env]},
                                         semilogy=True)},
            "checks": checks, "audits": {}}


_POWER = InterpolatingPowerLoss(1, 1.0, 3.0, _X_STAR, 1.0)


def kappa_growth_task(inputs: SuiteInputs, *, algorithm: Any = algorithm_6) -> dict[str, Any]:
    """Algorithm 6 (κ = 3) against Algorithm 5 on the interpolating power-loss instance (d = 1, f − f* = |x − x*|³/3).

    Exact: Theorem 8's schedule T = ⌊log n⌋, m = ⌊n/T⌋ at every grid n; and Lemma C.1's envelope — on the event
    E = {|x̂_i − x*| ≤ D_{i+1}/2 for i < T} the last domain holds x*, so |x̂_T − x*| ≤ D_T and the excess is
    ≤ D_T³/3 — deterministically.  D_T is public; its recursion D_{i+1} = c_κ(H D_i M(m)/λ)^{1/2} has the fixed point
    c_κ²HM(m)/λ, so the envelope decays like M(m)³ (Theorem 8's exponent κ/(κ − 2) = 3 on M).  Recorded beside:
    the frequency of E, the measured slopes of both algorithms, Theorem 8's −3 and the non-interpolation −1.5
    (diagnostics: Theorem 8 is an Õ statement and E is rare at the practical constant).  ``algorithm``: Algorithm 6
    (the suite's) or a drop-in copy in its place (a planted bug)."""
    sz = SIZES[inputs.budget]
    grid = [2000 * 2 ** i for i in range(len(SIZES[inputs.budget]["T"]) - 1)]
    p = PRACTICAL
    res6, res5, sched, envelope_holds, env, freq = [], [], True, True, [], []
    for n, s in zip(grid, inputs.seed.spawn(len(grid))):
        rng = np.random.default_rng(s)
        Z = _POWER.sample(n, rng)
        r6 = algorithm(Z, PowerLoss(3.0), _DOMAIN, _POWER.L, _POWER.H, _POWER.lam, 3.0, np.zeros(1), p["epsilon"],
                         p["delta"], rng, constant=p["alg6_constant"], eta_scale=p["eta_scale"],
                         replicates=sz["runs"], white_box=True)
        T8 = max(1, math.floor(math.log(n)))  # Theorem 8: T = log n epochs of m = n/T samples (floors)
        sched &= (r6.parameters["T"], r6.parameters["m"]) == (T8, n // T8)
        D = [e["D_i"] for e in r6.parameters["epochs"]]
        outs = r6.white_box.epoch_outputs
        inside = np.ones(sz["runs"], bool)
        for i in range(len(D) - 1):
            inside &= np.abs(outs[i][:, 0] - _X_STAR[0]) <= D[i + 1] / 2.0
        ex6 = np.asarray(_excess(_POWER, r6.output))
        envelope_holds &= bool(np.all(ex6[inside] <= D[-1] ** 3 / 3.0 * (1 + 1e-12)))
        env.append(D[-1] ** 3 / 3.0)
        freq.append(float(np.mean(inside)))
        r5 = algorithm_5(Z, PowerLoss(3.0), _DOMAIN, _POWER.L, _POWER.H, np.zeros(1), p["epsilon"], p["delta"], rng,
                         eta_scale=p["eta_scale"], kappa_lower=3.0, replicates=sz["runs"])
        res6.append(ex6.tolist())
        res5.append(_excess(_POWER, r5.output))
    slope = lambda vals: float(np.polyfit(np.log(grid), np.log([np.mean(v) for v in vals]), 1)[0])
    checks = {"accd22_kappa_schedule": exact_check("accd22_kappa_schedule", "Algorithm 6 runs Theorem 8's schedule "
                                                   "T = ⌊log n⌋, m = ⌊n/T⌋ (the paper's formula, evaluated here) at "
                                                   "every grid n (exact)", sched, 1.0, 1.0)}
    return {"record": {"practical_overrides": PRACTICAL, "grid": grid, "slope_algorithm_6": slope(res6),
                       "diagnostics": {"envelope_on_containment": {
                           "holds": envelope_holds, "not_a_check": _BY_CONSTRUCTION,
                           "statement": "runs whose epochs all contain x* have excess ≤ D_T³/3 (Lemma C.1's "
                                        "mechanism; every phase output is projected onto its epoch's ball)"}},
                       "slope_algorithm_5": slope(res5), "theorem_8_exponent": -3.0,
                       "non_interpolation_exponent": -1.5, "envelope": env, "containment_frequency": freq,
                       "figure": _figure("κ = 3 growth, interpolating power loss", grid,
                                         {"Algorithm 6": res6, "Algorithm 5": res5,
                                          "Lemma C.1 envelope D_T³/3 (Algorithm 6)": [[e] for e in env]})},
            "checks": checks, "audits": {}}


def _algorithm_5_on_raw_losses(Z: np.ndarray, L: float, seed: int, **kw: Any) -> Any:
    """M of Proposition 1.2: Algorithm 5 on the raw losses F (Algorithm 1 without line 1; private only where every
    F(·; s) is L-Lipschitz), the reference's run with the raw-gradient oracle of ``mutants.accd22``."""
    return run_with_parts("algorithm_5", _mutants.RAW_GRADIENTS, Z, SquaredLoss(), _DOMAIN, L, 1.0, np.zeros(1), 1.0,
                          0.0, np.random.default_rng(seed), **kw)


def extension_identity_task(inputs: SuiteInputs, *, algorithm: Any = algorithm_1) -> dict[str, Any]:
    """Proposition 1.2 exactly: on data whose every F(·; s) is L-Lipschitz on R^d (squared loss with ‖a‖ ≤ 1 and
    |⟨a, x⟩ − y| ≤ L/‖a‖ for every x of the domain: L = ‖a‖(R + |y|)), Algorithm 1 (extension) and Algorithm 5 on
    the raw F give identical outputs with a shared seed; on an outlier record they differ (the extension acts).
    ``algorithm``: Algorithm 1 (the suite's) or a drop-in copy in its place (a planted bug)."""
    rng = np.random.default_rng(inputs.seed)
    Z = _INTERP.sample(64, rng)
    L = float(np.max(np.abs(Z[:, 0]) * (1.0 + np.abs(Z[:, 1]))))
    seed = int(rng.integers(2 ** 32))
    kw = dict(replicates=8)
    a = algorithm(Z, SquaredLoss(), _DOMAIN, L, 1.0, np.zeros(1), 1.0, 0.0, np.random.default_rng(seed), **kw)
    b = _algorithm_5_on_raw_losses(Z, L, seed, **kw)
    Zo = Z.copy()
    Zo[0, 1] = 1e3  # the first record: the last of 64 is beyond T5·n_0 = 63 and not used
    c = algorithm(Zo, SquaredLoss(), _DOMAIN, L, 1.0, np.zeros(1), 1.0, 0.0, np.random.default_rng(seed), **kw)
    e = _algorithm_5_on_raw_losses(Zo, L, seed, **kw)
    same = bool(np.array_equal(a.output, b.output))
    gap = float(np.max(np.abs(c.output - e.output)))
    checks = {"accd22_proposition_1_2": exact_check(
        "accd22_proposition_1_2", "Proposition 1.2: on L-Lipschitz data Algorithm 1 equals Algorithm 5 on F (shared "
        "seed, identical floats); on an outlier record the extension acts (outputs differ)", same and gap > 0, gap, 0.0)}
    return {"record": {"L": L, "identical_on_lipschitz_data": same, "max_gap_with_outlier": gap},
            "checks": checks, "audits": {}}


# ---- lower bounds as privacy sanity checks ------------------------------------------------------------------------

#: the lower-bound instances (d = 1, H = 1, D = 2: X = B(0, 1), ε = 1, n = 64, the packing V below with
#: separation γ = 0.4): Theorem 1's with k = d/ε = 1 record at v and Theorem 4's with λ = 1/32 (k = λn/H = 2);
#: the v records come first (they enter the first phase of Algorithm 4).  The step sizes (privacy-neutral
#: utility overrides: σ_i ∝ η_i) make the first phase's η_1 = ``eta_1``: its exact minimiser
#: (kHv + (2/η_1)x_0)/(kH + 2/η_1) is then within 2|v|/(kHη_1) ≤ 0.036 of v, so the noise-free control localises v
#: well enough to beat the bound (and the inner solver's public step count, ∝ η_1, stays below 800).
LB: dict[str, Any] = {"n": 64, "d": 1, "H": 1.0, "D": 2.0, "epsilon": 1.0, "lam_theorem_4": 1.0 / 32.0,
                      "v": (-0.9, -0.5, 0.5, 0.9), "eta_1": 50.0}
#: runs per v (each theorem, each algorithm): the noise-free control is refuted deterministically once its
#: p-value exp(−2R((b − m)/c)²) < ALPHA_LB (asserted in the tests at every budget)
LB_RUNS: dict[str, int] = {"quick": 200, "standard": 200, "paper": 1000}
#: the level at which a lower-bound check fails (its false-failure probability for a private algorithm)
ALPHA_LB = 1e-6
#: the utility overrides of every algorithm on the lower-bound instances (privacy-neutral)
_LB_KWARGS: dict[str, dict[str, Any]] = {
    "algorithm_1": {}, "algorithm_4": {}, "algorithm_5": {},
    "algorithm_2": {"m": 32, "T": 2, "constant": PRACTICAL["alg2_constant"]},
    "algorithm_3": {"m": 16, "constant": 0.01, "alg2_constant": PRACTICAL["alg2_constant"]},
    "algorithm_6": {"T": 2, "m": 32, "constant": PRACTICAL["alg6_constant"]}}


def _lb_step(algorithm: str, lam: float) -> dict[str, float]:
    """The step-size keyword making phase 1's η_1 = LB["eta_1"]: Algorithm 4's ``eta`` (η_1 = η/16), or
    ``eta_scale`` = η_1 over phase 1's step at eta_scale = 1 (``accd22_noise.public_schedule``, public inputs)."""
    if algorithm == "algorithm_4":
        return {"eta": 16.0 * LB["eta_1"]}
    from dpsco.verification.papers.accd22.noise import public_schedule

    eta_1 = public_schedule(algorithm, LB["n"], LB["d"], LB["epsilon"], 0.0, LB["H"] * LB["D"], LB["H"],
                            LB["D"] / 2.0, lam, 3.0, **_LB_KWARGS[algorithm])[0][1]
    return {"eta_scale": LB["eta_1"] / eta_1}


def _lb_run(algorithm: str, Z: np.ndarray, lam: float, runs: int, rng: np.random.Generator,
            fn: Any = None) -> np.ndarray:
    """``runs`` outputs of ``algorithm`` (or of ``fn``, a planted copy with its signature) on the records Z
    (weighted squared distances) at ε = LB["epsilon"], δ = 0, with the recorded utility overrides."""
    loss, H, eps = SquaredDistanceLoss(), LB["H"], LB["epsilon"]
    f = fn if fn is not None else _ALGORITHMS[algorithm]
    head: tuple[Any, ...] = (Z, loss, _DOMAIN, H * LB["D"], H)
    if algorithm in ("algorithm_2", "algorithm_3"):
        head += (lam,)
    elif algorithm == "algorithm_6":
        head += (lam, 3.0)
    rel = f(*head, np.zeros(1), eps, 0.0, rng, replicates=runs, **_LB_KWARGS[algorithm], **_lb_step(algorithm, lam))
    return np.atleast_2d(rel.output)


def packing_bound(k: int, H: float, n: int, epsilon: float, V: Any) -> tuple[float, float, float]:
    """(c, bound, γ) of the proofs of Theorems 1 and 4 (App. B.1, D.1) for the packing ``V`` (points of R^d, rows):
    γ = min ‖v − v′‖, c = kHγ²/(8n) and bound = c/(1 + e^{kε}/(|V| − 1)).

    Derivation (the proof with the excess truncated at c).  f_v = (kH/(2n))‖x − v‖², so f_v(x)/2 + f_{v′}(x)/2 ≥
    kH‖v − v′‖²/(8n) ≥ c at every x ∈ R^d: {f_{v′} < c} ⊂ {f_v > c}, and these sets are disjoint over v′.  Let
    τ = max_v E[min(f_v(M(S_v)), c)].  Markov: P(f_v(M(S_v)) ≥ c) ≤ τ/c.  S_v and S_{v′} differ in k records, so
    an ε-DP M has P(M(S_v) ∈ E) ≥ e^{−kε}P(M(S_{v′}) ∈ E) (group privacy), and
    τ/c ≥ P(f_v(M(S_v)) ≥ c) ≥ Σ_{v′≠v} P(f_{v′}(M(S_v)) < c) ≥ e^{−kε}(|V| − 1)(1 − τ/c), i.e. τ ≥ bound.  The
    theorems' printed bounds are this one at γ = D/(2e) (Theorem 1, k = d/ε) and γ = (D/2)e^{−λnε/(Hd)} (Theorem
    4, k = λn/H) with |V| ≥ (D/(2γ))^d; for the four-point V here the same inequality gives a larger bound, at
    the truncation c that keeps the check's range comparable to it (c/bound = 1 + e^{kε}/3)."""
    P = np.atleast_2d(np.asarray(V, dtype=np.float64))
    if P.shape[0] < 2:
        raise ValueError("V must hold at least two points")
    gaps = [float(np.linalg.norm(a - b)) for i, a in enumerate(P) for b in P[i + 1:]]
    gamma = min(gaps)
    c = k * H * gamma ** 2 / (8.0 * n)
    return c, c / (1.0 + math.exp(k * epsilon) / (P.shape[0] - 1)), gamma


def _truncated_means(algorithm: str, theorem: str, runs: int, seed: np.random.SeedSequence,
                     fn: Any = None) -> tuple[list[float], Any]:
    n, d, H, D, eps = LB["n"], LB["d"], LB["H"], LB["D"], LB["epsilon"]
    means, inst = [], None
    for v, s in zip(LB["v"], seed.spawn(len(LB["v"]))):
        if theorem == "theorem_1":
            inst = theorem_1_instance(n, d, eps, H, D, np.array([v]))
        else:
            inst = theorem_4_instance(n, d, eps, H, LB["lam_theorem_4"], D, np.array([v]))
        c, _, _ = packing_bound(inst.k, H, n, eps, np.array(LB["v"])[:, None])
        out = _lb_run(algorithm, inst.records[::-1].copy(), inst.lam, runs, np.random.default_rng(s), fn)
        means.append(float(np.mean(np.minimum(inst.empirical_excess(out), c))))
    return means, inst


def lower_bound_p_value(means: list[float], bound: float, c: float, runs: int) -> float:
    """The p-value of "max_v E[min(f_v, c)] ≥ bound" from ``runs`` outputs per v (intersection-union test of the
    one-sided Hoeffding tests on [0, c]): max_v exp(−2R(bound − mean_v)²/c²), 1 if some mean ≥ bound.  If the
    algorithm is ε-DP some v has true mean ≥ bound, and the p-value falls below α with probability ≤ α."""
    return max(hoeffding_p_value(-m, -bound, c, runs) for m in means)


def lower_bound_statistic(algorithm: str, theorem: str, runs: int, seed: np.random.SeedSequence,
                          fn: Any = None) -> dict[str, Any]:
    """The numbers of the check "accd22_<algorithm>_<theorem>" (:func:`_lower_bound`): ``runs`` outputs per v of
    ``algorithm`` (or of ``fn``, a drop-in copy with its signature: a planted bug) on the instances S_v of
    ``theorem`` ("theorem_1" | "theorem_4"), from ``seed``.  Returns {"means": the truncated mean excess per v,
    "truncation": c, "bound", "gamma", "k", "printed_bound", "p_value": :func:`lower_bound_p_value`} (the check
    fails when p_value < :data:`ALPHA_LB`)."""
    means, inst = _truncated_means(algorithm, theorem, runs, seed, fn)
    c, bound, gamma = packing_bound(inst.k, LB["H"], LB["n"], LB["epsilon"], np.array(LB["v"])[:, None])
    return {"means": means, "truncation": c, "bound": bound, "gamma": gamma, "k": inst.k,
            "printed_bound": float(inst.lower_bound), "p_value": lower_bound_p_value(means, bound, c, runs)}


def _lower_bound(algorithm: str, inputs: SuiteInputs) -> dict[str, Any]:
    """Theorems 1 and 4 (their proofs' inequality, :func:`packing_bound`) as privacy sanity checks for
    ``algorithm`` (one of the six), each run on the reference and on its planted noise-free copy
    (``mutants.accd22.accd22_<algorithm>_without_noise``, ``accd22_noise.noise_free`` marked: reports its
    calibrated noise, adds none).

    The statement "max_v E[min(f_v(M(S_v)), c)] ≥ bound" holds for every ε-DP mechanism; the check fails when
    :func:`lower_bound_p_value` < :data:`ALPHA_LB` (false failure ≤ 1e-6 for a private algorithm).  The
    truncation c is at most 1 + e^{kε}/3 ≤ 3.5 times the bound, so the check can fail: the noise-free control's
    outputs are deterministic (every draw is 0), within 0.036 of v (``LB``), so its truncated excess m is at most
    (0.036/0.4)²·4·c = 0.0324·c (f_v/c = 4(x − v)²/γ²), and its p-value exp(−2R((bound − m)/c)²) is below
    ALPHA_LB at every budget's R ≥ 200 (≤ 3.7e-12 for Theorem 4, bound/c = 0.289): it is refuted with miss
    probability 0.  What the check cannot detect: any mechanism
    whose truncated excess stays above the bound on some v, private or not (e.g. the σ/√2 copies, still private
    at 2^{1/2}·ε/4); it is a sanity check against gross privacy failures, not an audit.  Its power
    (``power``: ``checks.power_figures.hoeffding_lower_power``, the smallest shortfall below the bound on every v
    detected w.p. ≥ 1 − 1e-6 at the sure-fail level 1e-6) is recorded; where it cannot detect a mean of half the
    bound, its pass is labelled uninformative (a stated reason)."""
    runs = LB_RUNS[inputs.budget]
    checks, record = {}, {"runs": runs, **LB}
    planted = getattr(_mutants, f"accd22_{algorithm}_without_noise")  # noise_free(algorithm), its release marked
    for theorem, seed in zip(("theorem_1", "theorem_4"), inputs.seed.spawn(2)):
        s_ref, s_bug = seed.spawn(2)
        ref = lower_bound_statistic(algorithm, theorem, runs, s_ref)
        ctl = lower_bound_statistic(algorithm, theorem, runs, s_bug, planted)
        means, control, p, p_control = ref["means"], ctl["means"], ref["p_value"], ctl["p_value"]
        c, bound, gamma = ref["truncation"], ref["bound"], ref["gamma"]
        key = f"accd22_{algorithm}_{theorem}"
        power = hoeffding_lower_power(bound, c, runs, len(means), alpha=ALPHA_LB)
        weak = None if power["reaches_claim"] else (
            f"cannot detect a mean of half the bound: the smallest shortfall it detects w.p. ≥ 1 − 1e-6 is "
            f"{power['minimum_detectable_shortfall']:.3g} at {runs} runs per v, above half the bound {bound / 2:.3g} "
            "(Hoeffding on [0, c] at the sure-fail level 1e-6); it still refutes the gross failure of the "
            "noise-free control (\"_control_caught\", miss probability 0)")
        checks[key] = suite_check(
            key, f"{theorem.replace('_', ' ').title()}'s proof as a privacy sanity check: max over v ∈ V of the mean "
            f"excess on S_v truncated at c = kHγ²/(8n) is ≥ c/(1 + e^{{kε}}/(|V| − 1)) for an ε-DP algorithm "
            f"(one-sided Hoeffding on [0, c], intersection-union over v; fails below {ALPHA_LB:g})", p, max(means),
            bound, method="hoeffding", truncation=c, alpha=ALPHA_LB, power=power, uninformative=weak)
        checks[key + "_control_caught"] = exact_check(
            key + "_control_caught", "the same check, run on the planted noise-free copy (reports its noise, adds "
            f"none), refutes it: p-value {p_control:.3g} < {ALPHA_LB:g} (its outputs are deterministic: miss "
            "probability 0)", p_control < ALPHA_LB, max(control), bound)
        record[theorem] = {"bound": bound, "truncation": c, "gamma": gamma, "k": ref["k"],
                           "printed_bound": ref["printed_bound"], "mean_truncated_excess": means,
                           "control_truncated_excess": control, "p_value": p, "control_p_value": p_control}
    return {"record": record, "checks": checks, "audits": {}}


def lower_bound_algorithm_1(inputs: SuiteInputs) -> dict[str, Any]:
    """:func:`_lower_bound` for Algorithm 1 (a module-level, picklable suite task)."""
    return _lower_bound("algorithm_1", inputs)


def lower_bound_algorithm_2(inputs: SuiteInputs) -> dict[str, Any]:
    """:func:`_lower_bound` for Algorithm 2 (a module-level, picklable suite task)."""
    return _lower_bound("algorithm_2", inputs)


def lower_bound_algorithm_3(inputs: SuiteInputs) -> dict[str, Any]:
    """:func:`_lower_bound` for Algorithm 3 (a module-level, picklable suite task)."""
    return _lower_bound("algorithm_3", inputs)


def lower_bound_algorithm_4(inputs: SuiteInputs) -> dict[str, Any]:
    """:func:`_lower_bound` for Algorithm 4 (a module-level, picklable suite task)."""
    return _lower_bound("algorithm_4", inputs)


def lower_bound_algorithm_5(inputs: SuiteInputs) -> dict[str, Any]:
    """:func:`_lower_bound` for Algorithm 5 (a module-level, picklable suite task)."""
    return _lower_bound("algorithm_5", inputs)


def lower_bound_algorithm_6(inputs: SuiteInputs) -> dict[str, Any]:
    """:func:`_lower_bound` for Algorithm 6 (a module-level, picklable suite task)."""
    return _lower_bound("algorithm_6", inputs)
