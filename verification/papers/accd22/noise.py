"""Measured noise of Asi, Chadha, Cheng & Duchi (2022), arXiv:2210.17070, Algorithms 1–6: is the noise each phase
of Algorithm 4 actually adds at least the noise of its calibration?

A check that recomputes privacy from the σ_i a release (or its transcript) reports cannot see a copy of the
algorithm that reports σ_i and draws σ_i/√2.  Here the noise is *measured*:

* :func:`public_schedule` recomputes every phase's (L_i, η_i) from the public inputs alone, by the paper's
  formulas (``theorems``: Algorithm 4, lines 1–3; Algorithm 5, lines 1–9; Algorithms 2 and 6, lines 1–7;
  Algorithm 3, lines 1–5), independently of the algorithms' own loops, and σ_i from them (Algorithm 4, lines
  6–10: Laplace 4L_iη_i√d/ε per coordinate, or the Gaussian σ_i of ``algorithms.phase_noise``, ERRATA.md ACCD22-E3);
* :func:`replayed_residuals` replays each phase's noiseless output from the white-box transcript — the
  minimiser of its regularised ERM at the recorded centre, on the run's own batch, by the run's own solver —
  and divides the difference noisy − replayed by the σ_i of the public schedule (it also reports whether the
  transcript followed that schedule);
* Gaussian phases: the residuals r_i/σ_i go to ``dpsco.verification.checks.noise.measured_noise_check``
  (one-sided χ², false failure ≤ 1e-7, exact);
* Laplace phases: :func:`laplace_scale_check`, the analogous exact test of the Laplace scale: under
  H0 "the noise has scale ≥ b_i", Q = Σ|r_i|/b_i is stochastically larger than Gamma(k, 1) (|r|/b ~ Exp(1) at
  the calibrated scale, and |r| grows with the scale), so "fail when Q is below the Gamma(k, 1) quantile at α"
  has false-failure probability ≤ α exactly (α = 1e-7).  Against the planted bug that draws b_i/√2
  (``mutants.accd22.noise.under_noised_laplace``), Q ~ Gamma(k, 1/√2) and the check misses with probability
  Gamma(k, 1).sf(√2·q_α) (:func:`laplace_miss_probability`), below 1e-12 at k ≥ 1,000.

:func:`measured_noise_checks` runs both on one algorithm (Laplace at δ = 0 on the audit's instance, Gaussian at
δ = 10⁻⁵ in d = 12 > log(1/δ)) together with the planted copies of ``dpsco.verification.mutants.accd22.bugs``
("reports the scale, draws it/√2"), which the same checks must refute; ``accd22_privacy.privacy_task`` records
them.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
from scipy import stats as sps

from dpsco.reference.accd22 import algorithms as alg
from dpsco.reference.accd22 import theorems as th
from dpsco.reference.accd22.algorithms import Ball
from dpsco.reference.accd22.extension import SquaredLoss
from dpsco.verification.checks.noise import DEFAULT_ALPHA, measured_noise_check, miss_probability
from dpsco.verification.checks.power_figures import laplace_scale_power
from dpsco.verification.checks.stats import exact_check, suite_check
from dpsco.verification.mutants.accd22 import bugs as mutants

__all__ = ["GAUSSIAN", "LAPLACE_RUNS", "laplace_miss_probability", "laplace_scale_check", "measured_noise_checks",
           "public_schedule", "replayed_residuals"]

#: the Gaussian configuration of :func:`measured_noise_checks`: δ = 10⁻⁵ needs d > log(1/δ) = 11.5 for the
#: Gaussian branch (below it Algorithm 4 uses the Laplace branch, ERRATA.md ACCD22-E3); squared loss, X = B(0, 1)
GAUSSIAN: dict[str, Any] = {"d": 12, "epsilon": 1.0, "delta": 1e-5}
#: replicates per run of :func:`measured_noise_checks` (each run of the instances has 4–12 phases of d
#: coordinates: ≥ 1,000 residuals per check, asserted)
LAPLACE_RUNS = 300
GAUSSIAN_RUNS = 25


# ---- the public schedule -----------------------------------------------------------------------------------------

def _alg4(n: int, L: float, eta: float) -> list[tuple[float, float]]:
    """Algorithm 4 on n records: k = ⌈log n⌉ phases (line 1), η_i = 2^{−4i}η (line 3), constant L."""
    k, _ = th.algorithm_4_phases(n)
    return [(L, th.algorithm_4_eta(i, eta)) for i in range(1, k + 1)]


def _alg5(N: int, L: float, radius: float, T5: int, beta: float, d: int, epsilon: float, delta: float,
          eta_scale: float) -> list[tuple[float, float]]:
    """Algorithm 5 on N records: n_0 = ⌊N/T5⌋ (line 1), η_0 of lines 2–6 (times the utility override
    ``eta_scale``), epoch i with η = 2^{−i}η_0 (line 9) running Algorithm 4 on n_0 records."""
    n0 = N // T5
    eta0 = eta_scale * th.algorithm_5_eta0(2.0 * radius, L, n0, d, epsilon, delta, beta)
    return [p for i in range(T5) for p in _alg4(n0, L, 2.0 ** (-i) * eta0)]


def _epochs(m: int, T: int, T5: int, L1: float, H: float, radius: float, beta: float, d: int, epsilon: float,
            delta: float, eta_scale: float, radius_fn: Callable[[float], float]) -> list[tuple[float, float]]:
    """Algorithms 2 and 6, lines 1–7: epoch i runs Algorithm 5 on m records over a ball of radius D_i/2 with L_i
    and β/T; D_{i+1} = radius_fn(L_i), L_{i+1} = H·D_{i+1}."""
    out, L_i, r = [], L1, radius
    for _ in range(T):
        out += _alg5(m, L_i, r, T5, beta / T, d, epsilon, delta, eta_scale)
        D = radius_fn(L_i)
        r, L_i = D / 2.0, H * D
    return out


def public_schedule(algorithm_name: str, n: int, d: int, epsilon: float, delta: float, L: float, H: float,
                    radius: float, lam: float | None = None, kappa: float | None = None,
                    **kw: Any) -> list[tuple[float, float]]:
    """(L_i, η_i) of every phase of ``algorithm_name`` ("algorithm_1" … "algorithm_6") in transcript order, from
    public inputs only (n, d, ε, δ, L, H, the domain's radius, λ, κ and the utility keywords the algorithm takes:
    eta, beta, T5, m, T, mu, constant, alg2_constant, eta_scale, kappa_lower), by the paper's formulas.  Raises
    ValueError for an unknown name."""
    es = float(kw.get("eta_scale", 1.0))
    if algorithm_name == "algorithm_4":
        b = kw.get("beta") or 1.0 / (n + d)
        eta = kw.get("eta") or th.proposition_2_eta(2.0 * radius, L, n, d, epsilon, delta, b)
        return _alg4(n, L, eta)
    if algorithm_name in ("algorithm_1", "algorithm_5"):
        b = kw.get("beta") or 1.0 / (n + d)
        T5 = kw.get("T5") or th.algorithm_5_epochs(n, kw.get("kappa_lower", 2.0))
        return _alg5(n, L, radius, T5, b, d, epsilon, delta, es)
    if algorithm_name == "algorithm_2":
        b = kw.get("beta") or th.theorem_2_parameters(max(n, 2), d, epsilon, delta, H, lam, kw.get("mu", 1.0))[0]
        m = kw["m"]
        T = kw.get("T") or n // m
        T5 = kw.get("T5") or th.algorithm_5_epochs(m)
        c = kw.get("constant", th.ALGORITHM_2_CONSTANT)
        return _epochs(m, T, T5, L, H, radius, b, d, epsilon, delta, es,
                       lambda Li: th.algorithm_2_radius(Li, lam, m, T, b, d, epsilon, delta, c))
    if algorithm_name == "algorithm_3":
        half = n // 2
        b = kw.get("beta") or float(n) ** (-kw.get("mu", 1.0))
        first = _alg5(half, L, radius, th.algorithm_5_epochs(half), b / 2.0, d, epsilon, delta, es)
        D_int = th.algorithm_3_radius(L, lam, n, b, d, epsilon, delta, kw.get("constant", th.ALGORITHM_3_CONSTANT),
                                      printed=kw.get("printed_radius", False))
        m = kw["m"]
        T = kw.get("T") or half // m
        T5 = kw.get("T5") or th.algorithm_5_epochs(m)
        c2 = kw.get("alg2_constant", th.ALGORITHM_2_CONSTANT)
        return first + _epochs(m, T, T5, L, H, D_int / 2.0, b / 2.0, d, epsilon, delta, es,
                               lambda Li: th.algorithm_2_radius(Li, lam, m, T, b / 2.0, d, epsilon, delta, c2))
    if algorithm_name == "algorithm_6":
        b = kw.get("beta") or 1.0 / n
        T_def, m_def = th.theorem_8_parameters(n)
        T = kw.get("T") or T_def
        m = kw.get("m") or (n // T if kw.get("T") else m_def)
        T5 = kw.get("T5") or th.algorithm_5_epochs(m, kappa)
        c = kw.get("constant") or th.c_kappa(kappa)
        return _epochs(m, T, T5, L, H, radius, b, d, epsilon, delta, es,
                       lambda Li: th.algorithm_6_radius(Li, lam, kappa, m, T, b, d, epsilon, delta, c))
    raise ValueError(f"algorithm_name must be one of algorithm_1 … algorithm_6, got {algorithm_name!r}")


def replayed_residuals(release: Any, Z: np.ndarray, schedule: list[tuple[float, float]], epsilon: float,
                       delta: float) -> dict[str, Any]:
    """The noise of every phase of a white-box ``release`` on records ``Z``, replayed and normalised.

    For phase j: r_j = (noisy_j − x̂_j)/σ_j with x̂_j the phase's ERM minimiser at its recorded centre on its batch
    of ``Z`` by the run's own solver (``Transcript.phase_minimisers``) and σ_j the calibration at the public
    schedule's (L_j, η_j) (``schedule``, :func:`public_schedule`).  Returns {"residuals": flat array,
    "kind": "laplace" | "gaussian", "phases", "schedule_followed": the transcript's (L, η) equal the schedule's
    (relative 1e-12, same number of phases)}."""
    tr = release.white_box
    d = tr.phases[0].centers.shape[1]
    followed = len(tr.phases) == len(schedule)
    res, kinds = [], set()
    for ph, (L_j, eta_j) in zip(tr.phases, schedule):
        followed &= math.isclose(ph.L, L_j, rel_tol=1e-12) and math.isclose(ph.eta, eta_j, rel_tol=1e-12)
        kind, sigma, _ = alg.phase_noise(L_j, eta_j, d, epsilon, delta)
        kinds.add(kind)
        res.append(((ph.noisy - tr.phase_minimisers(ph, Z)) / sigma).ravel())
    if len(kinds) != 1:
        raise RuntimeError(f"a transcript mixes noise kinds {sorted(kinds)}")
    return {"residuals": np.concatenate(res), "kind": kinds.pop(), "phases": len(tr.phases),
            "schedule_followed": bool(followed)}


# ---- the exact test of a Laplace scale ---------------------------------------------------------------------------

def laplace_scale_check(scaled_residuals: Any, name: str = "measured_laplace_noise", *, alpha: float = DEFAULT_ALPHA,
                        label: str = "") -> dict[str, Any]:
    """One-sided exact test of H0 "every residual r_i is Laplace with scale ≥ b_i", given r_i/b_i.

    Q = Σ|r_i|/b_i; at the calibrated scale |r_i|/b_i ~ Exp(1), so Q ~ Gamma(k, 1), and a larger scale makes Q
    stochastically larger.  p_value = P(Gamma(k, 1) ≤ Q); the check fails when p_value < ``alpha`` (false failure
    ≤ alpha, exact).  Returns a suite check dict with ``estimate`` the measured mean |r|/b (1 at the calibrated
    scale), ``bound`` 1, ``residuals`` k, ``statistic`` Q, ``threshold`` the Gamma(k, 1) quantile at alpha.
    Raises ValueError for empty or non-finite residuals or alpha outside (0, 1)."""
    r = np.abs(np.asarray(scaled_residuals, dtype=np.float64).ravel())
    if r.size == 0 or not np.all(np.isfinite(r)):
        raise ValueError("scaled_residuals must be a non-empty array of finite floats")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    k = int(r.size)
    q = float(np.sum(r))
    return suite_check(name, "the Laplace noise actually drawn has scale ≥ the calibrated b_i = 4L_iη_i√d/ε"
                       + (f" ({label})" if label else ""), float(sps.gamma.cdf(q, k)), q / k, 1.0,
                       residuals=k, statistic=q, threshold=float(sps.gamma.ppf(alpha, k)), alpha=alpha,
                       method="one-sided exact Gamma(k, 1) test of Σ|r_i|/b_i (replayed Laplace noise)",
                       power=laplace_scale_power(k, alpha=alpha))


def laplace_miss_probability(k: int, scale: float, alpha: float = DEFAULT_ALPHA) -> float:
    """P(:func:`laplace_scale_check` passes) when the noise has scale ``scale``·b_i (< 1: an under-noise bug):
    P(scale·Gamma(k, 1) ≥ q_α) with q_α the Gamma(k, 1) quantile at α, exact."""
    return float(sps.gamma.sf(float(sps.gamma.ppf(alpha, int(k))) / float(scale), int(k)))


# ---- the checks of one algorithm -----------------------------------------------------------------------------------

def _gaussian_records(n: int, d: int) -> np.ndarray:
    """Squared-loss records (a_j, 0) with a_j = (½ + j/(2n))·e_{j mod d}: benign, every record in the data."""
    Z = np.zeros((n, d + 1))
    Z[np.arange(n), np.arange(n) % d] = 0.5 + np.arange(n) / (2.0 * n)
    return Z


def _run(fn: Callable[..., Any], algorithm_name: str, instance: dict[str, Any], Z: np.ndarray, d: int,
         epsilon: float, delta: float, runs: int, rng: np.random.Generator) -> Any:
    head = (Z, SquaredLoss(), Ball(1.0, center=np.zeros(d)), 1.0, 1.0)
    if algorithm_name in ("algorithm_2", "algorithm_3"):
        head += (instance["lam"],)
    elif algorithm_name == "algorithm_6":
        head += (instance["lam"], instance["kappa"])
    return fn(*head, np.zeros(d), epsilon, delta, rng, replicates=runs, white_box=True, **instance["kwargs"])


def measured_noise_checks(algorithm_name: str, instance: dict[str, Any], seed: np.random.SeedSequence,
                          alpha: float = DEFAULT_ALPHA, *, algorithm: Callable[..., Any] | None = None
                          ) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """The measured-noise checks of ``algorithm_name`` at its audit ``instance`` ({"n", "kwargs", "lam",
    "kappa"}, ``accd22_privacy.INSTANCES``), with n records, L = H = 1, X = B(0, 1), x_0 = 0, ε = 1:

    * "<name>_measured_laplace_noise" (δ = 0, d = 1, :data:`LAPLACE_RUNS` runs) and
      "<name>_measured_gaussian_noise" (:data:`GAUSSIAN`, :data:`GAUSSIAN_RUNS` runs): the reference's replayed
      residuals against the public schedule's σ_i (false failure ≤ ``alpha`` each, exact);
    * "<name>_public_schedule": exact, the transcripts follow :func:`public_schedule`;
    * "<name>_laplace_under_noise_caught" / "<name>_gaussian_under_noise_caught": exact, the same checks refute
      the planted copies ``accd22_<name>_draws_laplace_scale_over_sqrt2`` / ``…_draws_sigma_over_sqrt2`` on
      fresh draws; their exact miss probabilities at the residual counts are in the record.

    ``algorithm``: None (the reference ``algorithm_name``, as the suite runs it) or a drop-in copy with its
    signature whose runs take the reference's place in the checks (a planted bug: tests/accd22/test_accd22_catches.py).

    Returns (checks, record)."""
    checks: dict[str, dict[str, Any]] = {}
    record: dict[str, Any] = {}
    ref = getattr(alg, algorithm_name) if algorithm is None else algorithm
    planted = {"laplace": getattr(mutants, f"accd22_{algorithm_name}_draws_laplace_scale_over_sqrt2"),
               "gaussian": getattr(mutants, f"accd22_{algorithm_name}_draws_sigma_over_sqrt2")}
    n = int(instance["n"])
    followed = True
    for kind, s in zip(("laplace", "gaussian"), seed.spawn(2)):
        d, delta, runs = (1, 0.0, LAPLACE_RUNS) if kind == "laplace" else (GAUSSIAN["d"], GAUSSIAN["delta"],
                                                                          GAUSSIAN_RUNS)
        eps = 1.0
        Z = np.column_stack([0.5 + 0.5 * (np.arange(n) % 8) / 7.0, np.zeros(n)]) if kind == "laplace" \
            else _gaussian_records(n, d)
        sched = public_schedule(algorithm_name, n, d, eps, delta, 1.0, 1.0, 1.0, instance.get("lam"),
                                instance.get("kappa"), **instance["kwargs"])
        s_ref, s_bug = s.spawn(2)
        out = {}
        for which, fn, ss in (("reference", ref, s_ref), ("planted", planted[kind], s_bug)):
            rel = _run(fn, algorithm_name, instance, Z, d, eps, delta, runs, np.random.default_rng(ss))
            rep = replayed_residuals(rel, Z, sched, eps, delta)
            if rep["kind"] != kind:
                raise RuntimeError(f"{algorithm_name}: expected {kind} phases, got {rep['kind']}")
            followed &= rep["schedule_followed"]
            k = int(rep["residuals"].size)
            if kind == "laplace":
                c = laplace_scale_check(rep["residuals"], f"{algorithm_name}_measured_laplace_noise", alpha=alpha,
                                        label=f"{algorithm_name}, δ = 0, d = 1, {rep['phases']} phases × {runs} runs")
                miss = laplace_miss_probability(k, 1.0 / math.sqrt(2.0), alpha)
            else:
                c = measured_noise_check(rep["residuals"], 1.0, f"{algorithm_name}_measured_gaussian_noise",
                                         alpha=alpha, label=f"{algorithm_name}, δ = 1e-5, d = 12, residuals r_i/σ_i")
                miss = miss_probability(k, 1.0 / math.sqrt(2.0), alpha)
            out[which] = (c, k, miss)
        c_ref, k_ref, _ = out["reference"]
        c_bug, k_bug, miss = out["planted"]
        checks[c_ref["name"]] = c_ref
        caught = f"{algorithm_name}_{kind}_under_noise_caught"
        checks[caught] = exact_check(
            caught, f"the measured {kind} check refutes the planted copy that reports the scale and draws it/√2 "
            f"(p < {alpha:g}; it misses with probability {miss:.3g}, exact, at {k_bug} residuals)",
            c_bug["p_value"] < alpha, float(c_bug["estimate"]), float(c_bug["bound"]))
        record[kind] = {"residuals": k_ref, "measured_scale": c_ref["estimate"], "p_value": c_ref["p_value"],
                        "planted_measured_scale": c_bug["estimate"], "planted_p_value": c_bug["p_value"],
                        "planted_miss_probability": miss, "phases_per_run": len(sched)}
    checks[f"{algorithm_name}_public_schedule"] = exact_check(
        f"{algorithm_name}_public_schedule", "every phase's (L_i, η_i) in the transcript equals the schedule "
        "recomputed from public inputs by the paper's formulas (the σ_i of the measured-noise checks)", followed,
        float(followed), 1.0)
    return checks, record
