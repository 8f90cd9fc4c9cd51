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
  instance; on the twin, Theorem 3.2's mechanism — the deterministic envelope (H/2)·D_int² on the event that x_1
  localises x*, polynomial in n — with the event's frequency recorded, and the mean excess below the start's.
* κ-growth (Algorithm 6, κ = 3, :class:`InterpolatingPowerLoss`): Theorem 8's schedule and Lemma C.1's
  deterministic envelope D_T³/3 on the containment event (exact checks); the event's frequency, Theorem 8's
  exponent −κ/(κ − 2) and Algorithm 5's measured slope are reported (diagnostics: Theorem 8 is an Õ statement).
* Proposition 1.2 (Algorithm 1): on L-Lipschitz data the extension changes nothing — identical outputs with a
  shared seed (exact).
* lower bounds (Theorems 1 and 4, every algorithm on their instances S_v): no ε-DP algorithm beats
  HD²d/(96e²nε) (Theorem 1) or (λD²/96)·e^{−2λnε/(Hd)} (Theorem 4) on S_v for every v, so a mean excess below it
  for every v of a packing (Hoeffding upper confidence bounds) would prove a privacy bug; the same check catches a noise-free copy (the
  algorithm at ε·10^6, claiming ε).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpsco.oracles.interpolation_instances import (InterpolatingLeastSquares, InterpolatingPowerLoss,
                                                   NoisyLeastSquares, theorem_1_instance, theorem_4_instance)
from dpsco.reference.accd22 import (BallDomain, PowerLoss, SquaredDistanceLoss, SquaredLoss, algorithm_1,
                                    algorithm_2, algorithm_3, algorithm_4, algorithm_5, algorithm_6)
from dpsco.reference.accd22 import theorems as th
from dpsco.verification.checks.stats import exact_check, suite_check
from dpsco.verification.checks.theorem_checks import hoeffding_p_value, rate_check_from_values
from dpsco.verification.papers.registry import SuiteInputs

__all__ = ["PRACTICAL", "SIZES", "adaptivity_task", "extension_identity_task", "headline_task", "kappa_growth_task",
           "lower_bound_algorithm_1", "lower_bound_algorithm_2",
           "lower_bound_algorithm_3", "lower_bound_algorithm_4", "lower_bound_algorithm_5", "lower_bound_algorithm_6"]

#: the recorded utility overrides of every utility task (privacy-neutral; see the module docstring)
PRACTICAL: dict[str, Any] = {"epsilon": 4.0, "delta": 0.0, "m": 1000, "alg2_constant": 0.25, "alg3_constant": 0.3,
                             "alg6_constant": 0.3, "eta_scale": 128.0}
#: epochs T of the grid n = T·m and replicates per grid point, per budget
SIZES: dict[str, dict[str, Any]] = {"quick": {"T": (1, 2, 3), "runs": 20},
                                    "standard": {"T": (1, 2, 3, 4, 5), "runs": 100},
                                    "paper": {"T": (1, 2, 3, 4, 5, 6), "runs": 200}}
_X_STAR = np.array([0.5])
_DOMAIN = BallDomain(np.zeros(1), 1.0)
_INTERP = InterpolatingLeastSquares(1, 1.0, _X_STAR, 1.0)
_TWIN = NoisyLeastSquares(1, 1.0, _X_STAR, 1.0, 0.5)
#: excess values lie in [0, ½·(R + ‖x*‖)²] on the domain (f(x) − f* = ½(x − x*)² in d = 1)
_RANGE = (0.0, 0.5 * 1.5 ** 2)


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
    return d


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
        "accd22_adaptive_twin_envelope": exact_check(
            "accd22_adaptive_twin_envelope", "Theorem 3.2 on the non-interpolating twin: every run with "
            "‖x_1 − x*‖ ≤ D_int/2 has excess ≤ (H/2)·D_int² (deterministic), at every grid n; the envelope decays "
            "polynomially (D_int ∝ A(n/2))", envelope_holds, max(env), min(env)),
        "accd22_adaptive_twin": suite_check("accd22_adaptive_twin", "Algorithm 3 on the non-interpolating twin: mean "
                                            "excess ≤ the start's f(x_0) − f* at every grid n (Hoeffding, Bonferroni "
                                            "over the grid)", p, max(float(np.mean(v)) for v in twin), start)}
    return {"record": {"practical_overrides": PRACTICAL, "grid": grid, "twin_envelope": env,
                       "twin_containment_frequency": contained,
                       "figure": _figure("Algorithm 3 adapts: interpolating vs non-interpolating twin", grid,
                                         {"Algorithm 3, interpolating": interp,
                                          "Algorithm 3, non-interpolating twin": twin,
                                          "Theorem 3.2 envelope (H/2)·D_int² (twin)": [[e] for e in env]},
                                         semilogy=True)},
            "checks": checks, "audits": {}}


_POWER = InterpolatingPowerLoss(1, 1.0, 3.0, _X_STAR, 1.0)


def kappa_growth_task(inputs: SuiteInputs) -> dict[str, Any]:
    """Algorithm 6 (κ = 3) against Algorithm 5 on the interpolating power-loss instance (d = 1, f − f* = |x − x*|³/3).

    Exact: Theorem 8's schedule T = ⌊log n⌋, m = ⌊n/T⌋ at every grid n; and Lemma C.1's envelope — on the event
    E = {|x̂_i − x*| ≤ D_{i+1}/2 for i < T} the last domain holds x*, so |x̂_T − x*| ≤ D_T and the excess is
    ≤ D_T³/3 — deterministically.  D_T is public; its recursion D_{i+1} = c_κ(H D_i M(m)/λ)^{1/2} has the fixed point
    c_κ²HM(m)/λ, so the envelope decays like M(m)³ (Theorem 8's exponent κ/(κ − 2) = 3 on M).  Recorded beside:
    the frequency of E, the measured slopes of both algorithms, Theorem 8's −3 and the non-interpolation −1.5
    (diagnostics: Theorem 8 is an Õ statement and E is rare at the practical constant)."""
    sz = SIZES[inputs.budget]
    grid = [2000 * 2 ** i for i in range(len(SIZES[inputs.budget]["T"]) - 1)]
    p = PRACTICAL
    res6, res5, sched, envelope_holds, env, freq = [], [], True, True, [], []
    for n, s in zip(grid, inputs.seed.spawn(len(grid))):
        rng = np.random.default_rng(s)
        Z = _POWER.sample(n, rng)
        r6 = algorithm_6(Z, PowerLoss(3.0), _DOMAIN, _POWER.L, _POWER.H, _POWER.lam, 3.0, np.zeros(1), p["epsilon"],
                         p["delta"], rng, constant=p["alg6_constant"], eta_scale=p["eta_scale"],
                         replicates=sz["runs"], white_box=True)
        sched &= (r6.parameters["T"], r6.parameters["m"]) == th.theorem_8_parameters(n)
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
                                                   "T = ⌊log n⌋, m = ⌊n/T⌋ at every grid n (exact)", sched, 1.0, 1.0),
              "accd22_kappa_envelope": exact_check("accd22_kappa_envelope", "Lemma C.1: every run whose epochs all "
                                                   "contain x* has excess ≤ D_T³/3 (deterministic), at every grid n",
                                                   envelope_holds, max(env), min(env))}
    return {"record": {"practical_overrides": PRACTICAL, "grid": grid, "slope_algorithm_6": slope(res6),
                       "slope_algorithm_5": slope(res5), "theorem_8_exponent": -3.0,
                       "non_interpolation_exponent": -1.5, "envelope": env, "containment_frequency": freq,
                       "figure": _figure("κ = 3 growth, interpolating power loss", grid,
                                         {"Algorithm 6": res6, "Algorithm 5": res5,
                                          "Lemma C.1 envelope D_T³/3 (Algorithm 6)": [[e] for e in env]})},
            "checks": checks, "audits": {}}


def extension_identity_task(inputs: SuiteInputs) -> dict[str, Any]:
    """Proposition 1.2 exactly: on data whose every F(·; s) is L-Lipschitz on R^d (squared loss with ‖a‖ ≤ 1 and
    |⟨a, x⟩ − y| ≤ L/‖a‖ for every x of the domain: L = ‖a‖(R + |y|)), Algorithm 1 (extension) and Algorithm 5 on
    the raw F give identical outputs with a shared seed; on an outlier record they differ (the extension acts)."""
    rng = np.random.default_rng(inputs.seed)
    Z = _INTERP.sample(64, rng)
    L = float(np.max(np.abs(Z[:, 0]) * (1.0 + np.abs(Z[:, 1]))))
    seed = int(rng.integers(2 ** 32))
    kw = dict(replicates=8)
    a = algorithm_1(Z, SquaredLoss(), _DOMAIN, L, 1.0, np.zeros(1), 1.0, 0.0, np.random.default_rng(seed), **kw)
    b = algorithm_1(Z, SquaredLoss(), _DOMAIN, L, 1.0, np.zeros(1), 1.0, 0.0, np.random.default_rng(seed),
                    _bug="raw_gradients", **kw)
    Zo = Z.copy()
    Zo[0, 1] = 1e3  # the first record: the last of 64 is beyond T5·n_0 = 63 and not used
    c = algorithm_1(Zo, SquaredLoss(), _DOMAIN, L, 1.0, np.zeros(1), 1.0, 0.0, np.random.default_rng(seed), **kw)
    e = algorithm_1(Zo, SquaredLoss(), _DOMAIN, L, 1.0, np.zeros(1), 1.0, 0.0, np.random.default_rng(seed),
                    _bug="raw_gradients", **kw)
    same = bool(np.array_equal(a.output, b.output))
    gap = float(np.max(np.abs(c.output - e.output)))
    checks = {"accd22_proposition_1_2": exact_check(
        "accd22_proposition_1_2", "Proposition 1.2: on L-Lipschitz data Algorithm 1 equals Algorithm 5 on F (shared "
        "seed, identical floats); on an outlier record the extension acts (outputs differ)", same and gap > 0, gap, 0.0)}
    return {"record": {"L": L, "identical_on_lipschitz_data": same, "max_gap_with_outlier": gap},
            "checks": checks, "audits": {}}


# ---- lower bounds as privacy sanity checks ------------------------------------------------------------------------

#: the lower-bound instances (d = 1, H = 1, D = 2: X = B(0, 1), ε = 1, n = 64): Theorem 1's with k = d/ε = 1
#: record at v (f_v = (kH/(2n))(x − v)², λ = kH/n = 1/64) and Theorem 4's with λ = 1/16 (k = λn/H = 4)
LB: dict[str, Any] = {"n": 64, "d": 1, "H": 1.0, "D": 2.0, "epsilon": 1.0, "lam_theorem_4": 1.0 / 16.0,
                      "v": (-0.9, -0.5, 0.5, 0.9)}


def _lb_run(algorithm: str, Z: np.ndarray, lam: float, runs: int, rng: np.random.Generator) -> np.ndarray:
    """``runs`` outputs of ``algorithm`` on the records Z (weighted squared distances) at ε = LB["epsilon"], with
    small public utility overrides (privacy-neutral) so that every algorithm runs at n = 64."""
    loss, H, eps = SquaredDistanceLoss(), LB["H"], LB["epsilon"]
    L = H * LB["D"]
    head = (Z, loss, _DOMAIN, L, H)
    common = dict(replicates=runs)
    if algorithm == "algorithm_4":
        rel = algorithm_4(*head, np.zeros(1), eps, 0.0, rng, **common)
    elif algorithm in ("algorithm_1", "algorithm_5"):
        rel = (algorithm_1 if algorithm == "algorithm_1" else algorithm_5)(*head, np.zeros(1), eps, 0.0, rng,
                                                                           eta_scale=PRACTICAL["eta_scale"], **common)
    elif algorithm == "algorithm_2":
        rel = algorithm_2(*head, lam, np.zeros(1), eps, 0.0, rng, m=32, T=2, constant=PRACTICAL["alg2_constant"],
                          eta_scale=PRACTICAL["eta_scale"], **common)
    elif algorithm == "algorithm_3":
        rel = algorithm_3(*head, lam, np.zeros(1), eps, 0.0, rng, m=16, constant=PRACTICAL["alg3_constant"],
                          alg2_constant=PRACTICAL["alg2_constant"], eta_scale=PRACTICAL["eta_scale"], **common)
    else:
        rel = algorithm_6(*head, lam, 3.0, np.zeros(1), eps, 0.0, rng, T=2, m=32, constant=PRACTICAL["alg6_constant"],
                          eta_scale=PRACTICAL["eta_scale"], **common)
    return np.atleast_2d(rel.output)


def _lower_bound(algorithm: str, inputs: SuiteInputs) -> dict[str, Any]:
    """Theorems 1 and 4 as privacy sanity checks for ``algorithm`` (one of the six), with the non-private control.

    For each theorem: an ε-DP mechanism has max_v E f_v(M(S_v)) ≥ bound over the instance's v (the minimax lower
    bound is a sup over v).  The excess is truncated at kHD²/(2n) (its maximum on X; Algorithm 2's and 6's full
    balls can leave X): the proofs bound separation × probability with separation kHγ²/(8n) ≤ kHD²/(32n), so the
    truncated mean obeys the bound too.  The statement is refuted when every v's mean is significantly below it
    (one-sided Hoeffding per v; the largest p-value is the refutation's).  The control — the exact empirical
    minimiser v, a release without noise — has excess 0 < bound: the check can fail."""
    runs = {"quick": 50, "standard": 200, "paper": 1000}[inputs.budget]
    n, d, H, D, eps = LB["n"], LB["d"], LB["H"], LB["D"], LB["epsilon"]
    checks, record = {}, {"runs": runs, **LB}
    for theorem, seed in zip(("theorem_1", "theorem_4"), inputs.seed.spawn(2)):
        means, control = [], []
        for v, s in zip(LB["v"], seed.spawn(len(LB["v"]))):
            if theorem == "theorem_1":
                inst = theorem_1_instance(n, d, eps, H, D, np.array([v]))
            else:
                inst = theorem_4_instance(n, d, eps, H, LB["lam_theorem_4"], D, np.array([v]))
            width = inst.k * H * D ** 2 / (2.0 * n)
            out = _lb_run(algorithm, inst.records, inst.lam, runs, np.random.default_rng(s))
            means.append(float(np.mean(np.minimum(inst.empirical_excess(out), width))))
            control.append(float(inst.empirical_excess(np.repeat(inst.x_star[None, :], 2, axis=0))[0]))
        bound = float(inst.lower_bound)
        p = max(hoeffding_p_value(-m, -bound, width, runs) for m in means)
        key = f"accd22_{algorithm}_{theorem}"
        checks[key] = suite_check(key, f"{theorem.replace('_', ' ').title()} as a privacy sanity check: max over v of "
                                  "the truncated mean excess on S_v ≥ the lower bound (Hoeffding)", p, max(means),
                                  bound)
        checks[key + "_control_caught"] = exact_check(
            key + "_control_caught", "the non-private control (the exact empirical minimiser, no noise) beats the "
            "bound on every v (exactly: its excess is 0): the check can fail", max(control) < bound, max(control),
            bound)
        record[theorem] = {"bound": bound, "mean_excess": means, "control_excess": control}
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
