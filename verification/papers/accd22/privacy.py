"""Privacy audits of Asi, Chadha, Cheng & Duchi (2022), arXiv:2210.17070, Algorithms 1–6
(``dpsco.reference.accd22.algorithms``), for the catalogue suites of ``dpsco.verification.papers.accd22.catalogue``.
The module is one cohesive thing: every audit here shares the same instances, the same exact transcript
likelihood ratio and its fixed event, and the planted bugs are refuted by those same audits.

The claim (Propositions 2 / 3, Theorems 2, 3, 6–9, Proposition 1.1): every record enters exactly one regularised
ERM phase of Algorithm 4, whose exact minimiser moves by at most (1 + 2·SOLVER_TOL)·Lη_i when the record is
replaced (the extension makes every summand L-Lipschitz); the phase adds Laplace noise of scale 4Lη_i√d/ε per
coordinate (δ = 0; the phase is then ≈ 0.275ε-DP, a 4× slack) or Gaussian noise (δ > 0); centres, domains and
step sizes of later phases are post-processing; parallel composition over disjoint phases gives (ε, δ)-DP for
the whole transcript.

What is audited here
--------------------
* :func:`transcript_white_box_audit` — the adversary sees every phase's noisy output ``noisy = x̂_i + ζ_i`` and its
  centre (``Transcript``, ``white_box=True``).  On a replace-the-last-record pair (S, S′) the exact log-likelihood
  ratio of the whole transcript is

      Λ = Σ_i [log p_i(noisy_i − x̂_{S′,i}(c_i)) − log p_i(noisy_i − x̂_{S,i}(c_i))],

  with x̂ recomputed at the recorded centres by ``Transcript.phase_minimisers`` on each dataset (the phases that do
  not contain the differing record have identical minimisers and cancel).  For Laplace noise Λ lies in
  [−Λ_max, Λ_max], Λ_max = Σ_i ‖x̂_{S,i} − x̂_{S′,i}‖₁/σ_i.  The event, a fixed function of the transcript and the
  auditor's own pair chosen before any run, is E = {Λ_max > 0, Λ ≥ θ·Λ_max} with θ = :data:`THETA` = 0.45
  (Laplace) or E = {μ > 0, Λ ≥ t·μ}, μ² = Σ_i ‖x̂_{S,i} − x̂_{S′,i}‖²/σ_i², t = :data:`GAUSS_THRESHOLD` (Gaussian),
  the neighbour S′ on the numerator side.  Every run is a test run: counts of E on N runs per side give the
  one-sided Clopper–Pearson bounds and ε_lb = log((P_lo − δ)/Q_hi) (``clopper_pearson.epsilon_lower_bound``);
  "refuted" iff ε_lb > claim ε.  If the transcript is (ε, δ)-DP, P(refuted) ≤ 1 − confidence
  (docs/derivations.md#soundness-of-the-sample-split-threshold-audit: the event does not depend on the test runs).
  The p-value is the smallest 1 − confidence at which the same counts refute (``family.p_value_of_counts``).
  Beside it: the exact ε of the transcript as computed from the same minimisers (max over the audited runs of
  Λ_max, the largest privacy loss attained; for Gaussian noise the ε at δ of the largest μ).
* :func:`phase_white_box_audit` — the same audit of Algorithm 4 alone, d = 1, on n = 32 records (k = 4 phases of
  n_0 = 8, the differing record last, so in phase 4 alone), with the exact ε of that phase *as implemented*
  (|x̂(S) − x̂(S′)|/σ, from the implementation's own solver) and the exact probabilities of the fixed event under
  the implementation (closed form for one differing phase in d = 1), from which a test computes an audit's miss
  probability exactly (``mutants.exact.fixed_event_refutation_probability``).
* :func:`clipping_sensitivity_check` — a deterministic check on ``DiagonalQuadraticLoss`` (not a GLM): a fixed
  instance on which ℓ2 gradient clipping in place of the extension moves phase 1's "ERM" output by more than the
  Laplace calibration tolerates, while the extension's minimiser moves by ≤ (1 + 2·SOLVER_TOL)Lη.
* :func:`privacy_task` — the suite task of one algorithm: both regimes' transcript audits (and, for Algorithm 4,
  the phase audit) with exact checks of the disjoint-phase access pattern and of the differing phases' exact
  sensitivity, and the measured-noise checks of ``accd22_noise`` (the noise actually drawn, replayed from the
  transcript, against the σ_i of the public schedule, Laplace and Gaussian, each with its planted "reports the
  scale, draws it/√2" copy refuted).

Every σ_i here is computed from the phase's public state by Algorithm 4's calibration (:func:`public_sigma`),
never read from a release or its transcript; the phase's minimisers are replayed at the recorded centres.

Instances (d = 1, squared loss F(x; (a, y)) = ½(ax − y)², L = 1, H = 1, X = B(0, 1), ε = 1 unless stated):
non-interpolating regime — background (a_j, 0), a_j ∈ [1/2, 1], start x_0 = 0, the last record the outlier
(1, +Y) against (1, −Y), Y = :data:`Y_OUTLIER` (its extended gradient is ∓L everywhere on X, so the phase's
minimiser moves by Lη_i/(1 + η_iΣa_j²/2) ≈ Lη_i: the tight instance); interpolating regime — records
(a_j, a_j x*), x* = :data:`X_STAR`, start −x*, the last record replaced by (a′, a′x*), a′ = :data:`A_PRIME`
(interpolation kept).  Utility parameters (T5, m, T, constant, eta_scale, eta) are set per algorithm in
:data:`INSTANCES` so that the last record is used and the runs are cheap; they are privacy-neutral.
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any, Callable

import numpy as np
from scipy.special import ndtr

from dpsco.reference.accd22 import algorithms as alg
from dpsco.reference.accd22.algorithms import SOLVER_TOL, Ball, Transcript
from dpsco.reference.accd22.extension import SquaredLoss
from dpsco.reference import conversions
from dpsco.reference.validation import check_positive_int, check_rng
from dpsco.verification.auditing.clopper_pearson import check_confidence, confidence_bounds, epsilon_lower_bound
from dpsco.verification.auditing.family import p_value_of_counts
from dpsco.verification.checks.power_figures import release_claim
from dpsco.verification.checks.stats import exact_check
from dpsco.verification.mutants.accd22 import bugs as mutants
from dpsco.verification.papers.accd22.clipping import CLIP_INSTANCE, clipping_sensitivity_check
from dpsco.verification.papers.accd22.laplace_events import THETA, laplace_llr_event_bounds  # re-exported
from dpsco.verification.papers.accd22.noise import measured_noise_checks
from dpsco.verification.papers.registry import SuiteInputs

__all__ = ["ALGORITHMS", "REGIMES", "INSTANCES", "SIZES", "THETA", "GAUSS_THRESHOLD", "Y_OUTLIER", "X_STAR",
           "A_PRIME", "CLIP_INSTANCE", "audit_pair", "run_algorithm", "transcript_white_box_audit",
           "phase_white_box_audit", "clipping_sensitivity_check", "privacy_task", "planted_bugs_task", "PLANTED_RUNS",
           "single_phase_event_probabilities", "laplace_llr_event_bounds", "gaussian_epsilon",
           "access_and_sensitivity_checks"]

PAPER = "Asi, Chadha, Cheng & Duchi (2022), arXiv:2210.17070"
ALGORITHMS: tuple[str, ...] = ("algorithm_1", "algorithm_2", "algorithm_3", "algorithm_4", "algorithm_5",
                               "algorithm_6")
REGIMES: tuple[str, ...] = ("interpolating", "non_interpolating")
#: the Gaussian event's threshold in units of μ (fixed in advance); the Laplace event's θ is laplace_events.THETA
GAUSS_THRESHOLD = 1.0
#: the outlier's label (its extended gradient is ∓L on all of X = B(0, 1)) and the interpolating instance
Y_OUTLIER = 100.0
X_STAR = 0.5
A_PRIME = 0.25
L_CAL, H_SMOOTH, EPSILON, RADIUS = 1.0, 1.0, 1.0, 1.0
#: runs of an algorithm are drawn this many replicates at a time
CHUNK = 25_000

#: per algorithm: n and the (privacy-neutral) utility overrides.  Each choice makes the last record enter a phase
#: (T5·n_0 = n, and Algorithm 4's k divides n_0): Algorithm 4: n = 32 → k = 4 phases of 8; Algorithms 1/5:
#: n = 24, T5 = 12 epochs of 2 records (one phase each; the reused-epochs mutant runs Algorithm 4 on all 24,
#: k = 4 phases of 6, so the last record enters 12 phases); Algorithms 2/6: n = 12, T = 2 epochs of m = 6, T5 = 3
#: inner epochs of 2; Algorithm 3: n = 24, halves of 12, the second half as Algorithm 2's.  constant = 1/4
#: keeps L_2 = H·D_2 well below the outlier's raw gradient (so skipping the extension shows); eta_scale = 1/4
#: (eta = 0.05 for Algorithm 4) keeps every noisy centre far inside its domain (a projection has probability
#: below e^{-50} per run).
INSTANCES: dict[str, dict[str, Any]] = {
    "algorithm_1": {"n": 24, "kwargs": {"T5": 12, "eta_scale": 0.25}},
    "algorithm_2": {"n": 12, "lam": 1.0, "kwargs": {"m": 6, "T": 2, "T5": 3, "constant": 0.25, "eta_scale": 0.25}},
    "algorithm_3": {"n": 24, "lam": 1.0, "kwargs": {"m": 6, "T": 2, "T5": 3, "constant": 0.25,
                                                    "alg2_constant": 0.25, "eta_scale": 0.25}},
    "algorithm_4": {"n": 32, "kwargs": {"eta": 0.05}},
    "algorithm_5": {"n": 24, "kwargs": {"T5": 12, "eta_scale": 0.25}},
    "algorithm_6": {"n": 12, "lam": 1.0, "kappa": 3.0, "kwargs": {"T": 2, "m": 6, "T5": 3, "constant": 0.25,
                                                                  "eta_scale": 0.25}},
}
#: runs per side of each white-box audit per budget (standard: ≈ 1–3 CPU-s per algorithm, both regimes; paper ≈ 5×)
SIZES: dict[str, dict[str, int]] = {"quick": {"runs": 2_000}, "standard": {"runs": 200_000},
                                    "paper": {"runs": 1_000_000}}

_REFERENCE: dict[str, Callable[..., Any]] = {name: getattr(alg, name) for name in ALGORITHMS}
#: the planted bugs an audit can run (``dpsco.verification.mutants.accd22.bugs.MUTANTS``, by (algorithm, bug))
PLANTED_BUGS: tuple[str | None, ...] = (None, *sorted({bug for _, bug in mutants.MUTANTS}))


def _algorithm(name: str, bug: str | None) -> Callable[..., Any]:
    if name not in _REFERENCE:
        raise ValueError(f"algorithm_name must be one of {ALGORITHMS}, got {name!r}")
    if bug is None:
        return _REFERENCE[name]
    if (name, bug) not in mutants.MUTANTS:
        raise ValueError(f"bug must be None or a planted bug of {name} "
                         f"({sorted(b for a, b in mutants.MUTANTS if a == name)}), got {bug!r}")
    return mutants.MUTANTS[(name, bug)]


def _name_of(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__name__", repr(fn))


def audit_pair(algorithm_name: str, regime: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(S, S′, x_0) of ``algorithm_name``'s instance in ``regime`` (module docstring): squared-loss records
    [a, y] of shape (n, 2), S′ = S with the last record replaced, and the start x_0 (1,)."""
    if regime not in REGIMES:
        raise ValueError(f"regime must be one of {REGIMES}, got {regime!r}")
    n = INSTANCES[algorithm_name]["n"]
    a = 0.5 + 0.5 * (np.arange(n) % 8) / 7.0
    if regime == "interpolating":
        S = np.column_stack([a, a * X_STAR])
        S2 = S.copy()
        S2[-1] = [A_PRIME, A_PRIME * X_STAR]
        return S, S2, np.array([-X_STAR])
    S = np.column_stack([a, np.zeros(n)])
    S[-1] = [1.0, Y_OUTLIER]
    S2 = S.copy()
    S2[-1] = [1.0, -Y_OUTLIER]
    return S, S2, np.zeros(1)


def run_algorithm(algorithm_name: str, fn: Callable[..., Any], Z: np.ndarray, x0: np.ndarray, epsilon: float,
                  delta: float, rng: np.random.Generator, replicates: int) -> Any:
    """One white-box call of ``fn`` (the reference ``algorithm_name`` or a mutant with its signature) on ``Z`` with
    the instance's public inputs and ``replicates`` runs; returns the Release (``white_box`` its Transcript)."""
    inst = INSTANCES[algorithm_name]
    dom = Ball(RADIUS, center=np.zeros(1))
    head = (Z, SquaredLoss(), dom, L_CAL, H_SMOOTH)
    if algorithm_name in ("algorithm_2", "algorithm_3"):
        head += (inst["lam"],)
    elif algorithm_name == "algorithm_6":
        head += (inst["lam"], inst["kappa"])
    return fn(*head, x0, epsilon, delta, rng, replicates=replicates, white_box=True, **inst["kwargs"])


@dataclasses.dataclass
class _Stats:
    """Per-run statistics of a chunk: Λ, Λ_max (Laplace) or μ (Gaussian), exact loss as implemented, and the
    per-differing-phase quantities (λ_i = ‖Δ_i‖₁/σ_i or ‖Δ_i‖₂/σ_i; sensitivity ratios ‖Δ_i‖₂/(L_iη_i))."""

    llr: np.ndarray
    scale: np.ndarray
    exact: np.ndarray
    phase_lambdas: np.ndarray
    sensitivity: np.ndarray
    kind: str
    n_phases: int
    coverage_max: int
    coverage_index: int


def public_sigma(L: float, eta: float, d: int, epsilon: float, delta: float) -> tuple[str, float]:
    """(kind, σ) of a phase with Lipschitz constant L and step η at the run's public (d, ε, δ): Algorithm 4's
    calibration (lines 6–10, ``algorithms.phase_noise``: Laplace 4Lη√d/ε, or the Gaussian σ of ACCD22-E3) computed from
    the phase's public state — never the σ a release or its transcript reports."""
    kind, sigma, _ = alg.phase_noise(L, eta, d, epsilon, delta)
    return kind, sigma


def _statistics(tr: Transcript, S: np.ndarray, S2: np.ndarray, idx: int, bug: str | None, epsilon: float,
                delta: float) -> _Stats:
    R = tr.phases[0].centers.shape[0]
    d = tr.phases[0].centers.shape[1]
    llr, lmax, mu2, ex_l1, ex_mu2 = (np.zeros(R) for _ in range(5))
    lambdas, sens, kinds = [], [], set()
    coverage = np.zeros(S.shape[0], dtype=int)
    for ph in tr.phases:
        coverage[ph.start:ph.stop] += 1
        if not ph.start <= idx < ph.stop:
            continue
        xs, xn = tr.phase_minimisers(ph, S, "certified"), tr.phase_minimisers(ph, S2, "certified")
        noise, s = public_sigma(ph.L, ph.eta, d, epsilon, delta)  # the calibration, not the reported ph.sigma
        y = ph.noisy
        kinds.add(noise)
        ixs, ixn = tr.phase_minimisers(ph, S), tr.phase_minimisers(ph, S2)  # as implemented (the recorded solver)
        if noise == "laplace":
            llr += (np.abs(y - xs).sum(1) - np.abs(y - xn).sum(1)) / s
            lam = np.abs(xs - xn).sum(1) / s
            lmax += lam
            ex_l1 += np.abs(ixs - ixn).sum(1) / s
        else:
            llr += (((y - xs) ** 2).sum(1) - ((y - xn) ** 2).sum(1)) / (2.0 * s * s)
            lam = np.linalg.norm(xs - xn, axis=1) / s
            mu2 += lam ** 2
            ex_mu2 += (np.linalg.norm(ixs - ixn, axis=1) / s) ** 2
        lambdas.append(lam)
        sens.append(np.linalg.norm(ixs - ixn, axis=1) / (ph.L * ph.eta))
    if len(kinds) > 1:
        raise RuntimeError("a transcript mixes Laplace and Gaussian phases")
    kind = kinds.pop() if kinds else "laplace"
    scale = lmax if kind == "laplace" else np.sqrt(mu2)
    exact = ex_l1 if kind == "laplace" else np.sqrt(ex_mu2)
    lam_arr = np.column_stack(lambdas) if lambdas else np.zeros((R, 0))
    sens_arr = np.column_stack(sens) if sens else np.zeros((R, 0))
    return _Stats(llr, scale, exact, lam_arr, sens_arr, kind, len(lambdas), int(coverage.max()),
                  int(coverage[idx]))


def _event(st: _Stats) -> np.ndarray:
    """The fixed event E (neighbour as numerator): Laplace {Λ_max > 0, Λ ≥ θΛ_max}; Gaussian {μ > 0, Λ ≥ tμ}."""
    if st.kind == "laplace":
        return (st.scale > 0) & (st.llr >= THETA * st.scale)
    return (st.scale > 0) & (st.llr >= GAUSS_THRESHOLD * st.scale)


def gaussian_epsilon(mu: float, delta: float) -> float:
    """ε at δ of the Gaussian mechanism with μ = Δ/σ (the exact curve): the smallest ε ≥ 0 with δ(ε) ≤ δ, rounded
    up (the core ``dpsco.reference.conversions.gdp_epsilon``).  mu ≥ 0, delta ∈ [0, 1)."""
    return conversions.gdp_epsilon(mu, delta)


def _run_side(algorithm_name: str, fn: Callable[..., Any], Z: np.ndarray, S: np.ndarray, S2: np.ndarray,
              x0: np.ndarray, epsilon: float, delta: float, runs: int, rng: np.random.Generator,
              bug: str | None) -> tuple[list[_Stats], Any]:
    out, release, done = [], None, 0
    idx = S.shape[0] - 1
    while done < runs:
        R = min(CHUNK, runs - done)
        release = run_algorithm(algorithm_name, fn, Z, x0, epsilon, delta, rng, R)
        out.append(_statistics(release.white_box, S, S2, idx, bug, epsilon, delta))
        done += R
    return out, release


def _cat(stats: list[_Stats], field: str) -> np.ndarray:
    return np.concatenate([getattr(s, field) for s in stats])


def _audit(algorithm_name: str, regime: str, runs: int, rng: np.random.Generator, confidence: float,
           epsilon: float, delta: float, bug: str | None) -> tuple[dict[str, Any], list[_Stats], list[_Stats]]:
    t0 = time.perf_counter()
    N = check_positive_int(runs, "runs")
    conf = check_confidence(confidence)
    rng = check_rng(rng)
    fn = _algorithm(algorithm_name, bug)
    S, S2, x0 = audit_pair(algorithm_name, regime)
    s_data, s_neigh = rng.spawn(2)
    st_d, rel = _run_side(algorithm_name, fn, S, S, S2, x0, epsilon, delta, N, s_data, bug)
    st_n, _ = _run_side(algorithm_name, fn, S2, S, S2, x0, epsilon, delta, N, s_neigh, bug)
    claim = rel.claim
    k_p = int(sum(int(_event(s).sum()) for s in st_n))
    k_q = int(sum(int(_event(s).sum()) for s in st_d))
    eps_lb = float(epsilon_lower_bound(k_p, N, k_q, N, float(claim.delta), conf))
    p_lo, q_hi = confidence_bounds(k_p, N, k_q, N, conf)
    p_value = p_value_of_counts(k_p, N, k_q, N, float(claim.epsilon), float(claim.delta))
    kind = st_d[0].kind
    scale = np.concatenate([_cat(st_d, "scale"), _cat(st_n, "scale")])
    exact = np.concatenate([_cat(st_d, "exact"), _cat(st_n, "exact")])
    lam = np.vstack([_cat(st_d, "phase_lambdas"), _cat(st_n, "phase_lambdas")])
    sens = np.vstack([_cat(st_d, "sensitivity"), _cat(st_n, "sensitivity")])
    if kind == "laplace":
        eps_exact = float(exact.max())
        eps_model = float(scale.max())
        exact_info = {"epsilon_exact": eps_exact, "epsilon_exact_claimed_model": eps_model,
                      "exact_note": "max over the audited runs of Σ_i ‖x̂_S,i − x̂_S′,i‖₁/σ_i over the differing "
                                    "phases (the transcript's largest privacy loss; x̂ as implemented)"}
    else:
        mu_exact = float(exact.max())
        exact_info = {"epsilon_exact": gaussian_epsilon(mu_exact, float(claim.delta)), "mu_exact": mu_exact,
                      "epsilon_exact_claimed_model": gaussian_epsilon(float(scale.max()), float(claim.delta)),
                      "exact_note": "ε at the claim's δ of the Gaussian composition with the largest μ over the "
                                    "audited runs (x̂ as implemented)"}
    rec: dict[str, Any] = {
        "mode": "white-box", "design": "transcript likelihood ratio, replace-the-last-record pair",
        "algorithm": _name_of(fn), "algorithm_name": algorithm_name, "regime": regime, "bug": bug,
        "verdict": "refuted" if eps_lb > float(claim.epsilon) else "not refuted",
        "epsilon_lower": eps_lb, "claim": {"epsilon": float(claim.epsilon), "delta": float(claim.delta),
                                           "source": claim.source},
        "release_claim": release_claim(claim),  # the release's claim in its notion (pure-DP at δ = 0)
        "p_value": float(p_value), "confidence": conf, "runs_per_side": N,
        "counts": {"numerator": k_p, "denominator": k_q, "n_numerator": N, "n_denominator": N,
                   "p_lower": float(p_lo), "q_upper": float(q_hi)},
        "event": {"statistic": "exact log-likelihood ratio Λ of the transcript (neighbour over dataset), x̂ from "
                               "Transcript.phase_minimisers at the recorded centres",
                  "event": (f"Λ_max > 0 and Λ ≥ {THETA}·Λ_max" if kind == "laplace"
                            else f"μ > 0 and Λ ≥ {GAUSS_THRESHOLD}·μ"),
                  "numerator": "neighbour (last record replaced)", "fixed_in_advance": True},
        **exact_info,
        "noise": kind,
        "differing_phases": int(st_d[0].n_phases),
        "phase_lambda_min": lam.min(axis=0).tolist() if lam.size else [],
        "phase_lambda_max": lam.max(axis=0).tolist() if lam.size else [],
        "sensitivity_max": float(sens.max()) if sens.size else 0.0,
        "sensitivity_bound": 1.0 + 2.0 * SOLVER_TOL,
        "coverage": {"max_phases_per_record": max(s.coverage_max for s in st_d + st_n),
                     "phases_with_last_record": int(st_d[0].coverage_index)},
        "parameters": {"n": int(S.shape[0]), "d": 1, "epsilon": epsilon, "delta": delta, "L": L_CAL,
                       "H": H_SMOOTH, "radius": RADIUS, "x0": x0.tolist(), **INSTANCES[algorithm_name]["kwargs"],
                       **{k: v for k, v in INSTANCES[algorithm_name].items() if k not in ("n", "kwargs")},
                       "release_parameters": {k: v for k, v in rel.parameters.items() if k != "epochs"}},
        "seconds": time.perf_counter() - t0,
    }
    return rec, st_d, st_n


def transcript_white_box_audit(algorithm_name: str, regime: str, runs: int, rng: np.random.Generator,
                               confidence: float, *, bug: str | None = None, epsilon: float = EPSILON,
                               delta: float = 0.0) -> dict[str, Any]:
    """White-box audit of ``algorithm_name``'s (ε, δ) claim from the whole transcript (module docstring).

    algorithm_name : one of :data:`ALGORITHMS`.  regime : "interpolating" | "non_interpolating" (the pair of
    :func:`audit_pair`).  runs : ≥ 1 runs per side (every run a test run).  rng : numpy Generator.  confidence :
    in (0, 1).  bug : None (the reference) or a planted bug of ``algorithm_name`` in
    ``dpsco.verification.mutants.accd22.bugs.MUTANTS`` (its mutant runs).  epsilon, delta :
    the privacy parameters the algorithm runs at (δ = 0: Laplace, δ > 0: Gaussian).

    Returns a JSON-ready dict: "verdict" ("refuted" iff "epsilon_lower" > the claim's ε), "epsilon_lower",
    "claim", "p_value", "counts", "event", "epsilon_exact" (the transcript's largest privacy loss over the audited
    runs, x̂ as implemented), "phase_lambda_min"/"phase_lambda_max" (per differing phase, ‖Δ‖₁/σ or ‖Δ‖₂/σ over
    runs), "sensitivity_max" (max ‖Δ_i‖₂/(L_iη_i)), "coverage", "parameters", "seconds".  Guarantee: if the
    transcript is (ε, δ)-DP on the pair, P(verdict "refuted") ≤ 1 − confidence.  Raises ValueError for an unknown
    algorithm, regime or bug.
    """
    rec, _, _ = _audit(algorithm_name, regime, runs, rng, confidence, epsilon, delta, bug)
    return rec


# ---- one phase of Algorithm 4 ------------------------------------------------------------------------------------

def single_phase_event_probabilities(model_S: float, model_S2: float, mean: float, sigma: float, kind: str) -> float:
    """P(E) for one differing phase in d = 1 when its noisy output is ``mean`` + noise(σ): E = {Λ ≥ θΛ_max}
    (Laplace) or {Λ ≥ tμ} (Gaussian), Λ the likelihood ratio of the claimed model with minimisers ``model_S``
    (dataset) and ``model_S2`` (neighbour).  Both events are half-lines {s(y − τ) ≥ 0}, s = sign(model_S2 −
    model_S): Laplace τ = model_S2 − s(1 − θ)Δ/2, Gaussian τ = (model_S + model_S2)/2 + s·tσ."""
    delta = abs(model_S2 - model_S)
    if delta == 0.0:
        return 0.0
    s = 1.0 if model_S2 > model_S else -1.0
    if kind == "laplace":
        tau = model_S2 - s * (1.0 - THETA) * delta / 2.0
        z = s * (tau - mean) / sigma
        return 0.5 * math.exp(-z) if z >= 0 else 1.0 - 0.5 * math.exp(z)
    tau = (model_S + model_S2) / 2.0 + s * GAUSS_THRESHOLD * sigma
    return float(ndtr(-s * (tau - mean) / sigma))


def phase_white_box_audit(runs: int, rng: np.random.Generator, confidence: float, *, epsilon: float = EPSILON,
                          delta: float = 0.0, bug: str | None = None) -> dict[str, Any]:
    """White-box audit of one phase of Algorithm 4 (Propositions 2 / 3) in d = 1: Algorithm 4 on n = 32 records
    (k = 4 phases of n_0 = 8), background (a_j, 0), the last record (1, +Y) vs (1, −Y), so that only phase 4
    differs (x̂_S − x̂_S′ ≈ Lη_4: the tight instance); the statistic and fixed event of
    :func:`transcript_white_box_audit`.

    runs : ≥ 1 per side.  rng : numpy Generator.  confidence : in (0, 1).  epsilon, delta : the privacy
    parameters.  bug : None or a planted bug ("incremental_solver": ``algorithm_4_sloppy_solver``, whose phase
    moves by Lηn_0 = 8Lη: exact ε ≈ 8ε/4 = 2ε).

    Returns the audit record of :func:`transcript_white_box_audit` plus "phase": the exact ε of the differing
    phase as implemented (|x̂(S) − x̂(S′)|/σ_4 for Laplace, μ and its ε at δ for Gaussian), the claimed model's,
    the claim's bound (1 + 2·SOLVER_TOL)ε/4 (Laplace), and "event_probability_numerator"/"…_denominator", the
    exact probabilities of the fixed event under the implementation on this instance (a projection of a centre,
    probability < e^{-50} per run, ignored).  Guarantee as :func:`transcript_white_box_audit`.
    """
    rec, st_d, st_n = _audit("algorithm_4", "non_interpolating", runs, rng, confidence, epsilon, delta, bug)
    # the phase's public parameters and its minimisers at one run's centre (they shift with the centre only)
    S, S2, x0 = audit_pair("algorithm_4", "non_interpolating")
    fn = _algorithm("algorithm_4", bug)
    rel = run_algorithm("algorithm_4", fn, S, x0, epsilon, delta, np.random.default_rng(0), 1)
    tr = rel.white_box
    ph = [p for p in tr.phases if p.start <= S.shape[0] - 1 < p.stop]
    assert len(ph) == 1
    ph = ph[0]
    ms = float(tr.phase_minimisers(ph, S, "certified")[0, 0])  # the claimed model: the certified solver
    mn = float(tr.phase_minimisers(ph, S2, "certified")[0, 0])
    ims = float(tr.phase_minimisers(ph, S)[0, 0])
    imn = float(tr.phase_minimisers(ph, S2)[0, 0])
    noise, sigma = public_sigma(ph.L, ph.eta, 1, epsilon, delta)  # from public inputs, not ph.sigma
    p_num = single_phase_event_probabilities(ms, mn, imn, sigma, noise)
    p_den = single_phase_event_probabilities(ms, mn, ims, sigma, noise)
    shift = abs(ims - imn)
    if noise == "laplace":
        eps_phase = shift / sigma
        phase = {"epsilon_exact": eps_phase, "epsilon_exact_claimed_model": abs(ms - mn) / sigma,
                 "claimed_bound": (1.0 + 2.0 * SOLVER_TOL) * epsilon / 4.0}
    else:
        mu = shift / sigma
        phase = {"mu_exact": mu, "epsilon_exact": gaussian_epsilon(mu, delta),
                 "mu_claimed_model": abs(ms - mn) / sigma}
    phase.update({"index": tr.phases.index(ph) + 1, "start": ph.start, "stop": ph.stop, "eta": ph.eta,
                  "sigma": sigma, "noise": noise, "shift": shift, "shift_over_L_eta": shift / (ph.L * ph.eta),
                  "event_probability_numerator": p_num, "event_probability_denominator": p_den})
    rec["phase"] = phase
    rec["design"] = "one phase of Algorithm 4 (the differing record last, in phase 4 of 4), likelihood ratio"
    return rec


# ---- suite tasks ------------------------------------------------------------------------------------------------

def access_and_sensitivity_checks(name: str, audits: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The exact checks "<name>_disjoint_phases" and "<name>_phase_sensitivity" of :func:`privacy_task`, computed
    from the transcript audit records ``audits`` (:func:`transcript_white_box_audit`, one per regime): the access
    log (every record in at most one phase, the replaced one in exactly one) and the differing phase's largest
    exact sensitivity ‖Δ_i‖₂/(L_iη_i) against (1 + 2·SOLVER_TOL).  Deterministic given the records."""
    sens_max = max(float(rec["sensitivity_max"]) for rec in audits)
    cover_ok = all(rec["coverage"]["max_phases_per_record"] <= 1 and rec["coverage"]["phases_with_last_record"] == 1
                   for rec in audits)
    cover_max = max(int(rec["coverage"]["max_phases_per_record"]) for rec in audits)
    return {
        f"{name}_disjoint_phases": exact_check(
            f"{name}_disjoint_phases", "every record index lies in at most one phase's [start, stop) and the "
            "replaced (last) record in exactly one (access log of the transcript: disjoint batches, parallel "
            "composition)", cover_ok, cover_max, 1.0),
        f"{name}_phase_sensitivity": exact_check(
            f"{name}_phase_sensitivity", "the differing phase's exact minimisers at the recorded centres move by ≤ "
            "(1 + 2·SOLVER_TOL)·L_iη_i on the replace-the-last-record pairs of both regimes (every audited run)",
            sens_max <= (1.0 + 2.0 * SOLVER_TOL) * (1.0 + 1e-9), sens_max, 1.0 + 2.0 * SOLVER_TOL)}


def _privacy(inputs: SuiteInputs, name: str) -> dict[str, Any]:
    runs = SIZES[inputs.budget]["runs"]
    seeds = inputs.seed.spawn(4)
    audits, checks, record = {}, {}, {"runs_per_side": runs, "instance": {k: v for k, v in INSTANCES[name].items()}}
    for regime, s in zip(REGIMES, seeds[:2]):
        rec, st_d, st_n = _audit(name, regime, runs, np.random.default_rng(s), inputs.confidence, EPSILON, 0.0, None)
        audits[f"{name}_white_box_{regime}"] = rec
        record[f"epsilon_exact_{regime}"] = rec["epsilon_exact"]
        record[f"epsilon_lower_{regime}"] = rec["epsilon_lower"]
    checks.update(access_and_sensitivity_checks(name, [audits[f"{name}_white_box_{r}"] for r in REGIMES]))
    if name == "algorithm_4":
        ph = phase_white_box_audit(runs, np.random.default_rng(seeds[2]), inputs.confidence)
        audits["algorithm_4_phase_white_box"] = ph
        checks["algorithm_4_phase_exact_epsilon"] = exact_check(
            "algorithm_4_phase_exact_epsilon", "the tight phase's exact ε (|x̂_S − x̂_S′|/σ, d = 1, Laplace) ≤ "
            "(1 + 2·SOLVER_TOL)ε/4 (Proposition 2's calibration with a 4× slack)",
            ph["phase"]["epsilon_exact"] <= ph["phase"]["claimed_bound"] * (1.0 + 1e-9),
            ph["phase"]["epsilon_exact"], ph["phase"]["claimed_bound"])
        record["phase_epsilon_exact"] = ph["phase"]["epsilon_exact"]
    noise_checks, record["measured_noise"] = measured_noise_checks(name, INSTANCES[name], seeds[3])
    checks.update(noise_checks)
    return {"record": record, "checks": checks, "audits": audits}


def algorithm_1_privacy(inputs: SuiteInputs) -> dict[str, Any]:
    """Suite task: Algorithm 1's white-box transcript audits (both regimes) and exact access/sensitivity checks."""
    return _privacy(inputs, "algorithm_1")


def algorithm_2_privacy(inputs: SuiteInputs) -> dict[str, Any]:
    """Suite task: Algorithm 2's white-box transcript audits (both regimes) and exact access/sensitivity checks."""
    return _privacy(inputs, "algorithm_2")


def algorithm_3_privacy(inputs: SuiteInputs) -> dict[str, Any]:
    """Suite task: Algorithm 3's white-box transcript audits (both regimes) and exact access/sensitivity checks."""
    return _privacy(inputs, "algorithm_3")


def algorithm_4_privacy(inputs: SuiteInputs) -> dict[str, Any]:
    """Suite task: Algorithm 4's white-box transcript audits (both regimes), the one-phase audit, and exact
    access/sensitivity/phase-ε checks."""
    return _privacy(inputs, "algorithm_4")


def algorithm_5_privacy(inputs: SuiteInputs) -> dict[str, Any]:
    """Suite task: Algorithm 5's white-box transcript audits (both regimes) and exact access/sensitivity checks."""
    return _privacy(inputs, "algorithm_5")


def algorithm_6_privacy(inputs: SuiteInputs) -> dict[str, Any]:
    """Suite task: Algorithm 6's white-box transcript audits (both regimes) and exact access/sensitivity checks."""
    return _privacy(inputs, "algorithm_6")


_TASKS: dict[str, Callable[[SuiteInputs], dict[str, Any]]] = {
    "algorithm_1": algorithm_1_privacy, "algorithm_2": algorithm_2_privacy, "algorithm_3": algorithm_3_privacy,
    "algorithm_4": algorithm_4_privacy, "algorithm_5": algorithm_5_privacy, "algorithm_6": algorithm_6_privacy}


def privacy_task(algorithm_name: str) -> Callable[[SuiteInputs], dict[str, Any]]:
    """The suite task (a picklable module-level function, ``registry.SuiteTask.run``) of ``algorithm_name``:
    {"record", "checks", "audits"} with the white-box transcript audits of both regimes (audit keys
    "<name>_white_box_interpolating" / "…_non_interpolating", each with "p_value"), for Algorithm 4 also
    "algorithm_4_phase_white_box", and exact checks "<name>_disjoint_phases", "<name>_phase_sensitivity" (and
    "algorithm_4_phase_exact_epsilon"), at ``SIZES[budget]["runs"]`` runs per side; the measured-noise checks
    "<name>_measured_laplace_noise" and "<name>_measured_gaussian_noise" (p-values, false failure ≤ 1e-7 each) and
    the exact checks "<name>_public_schedule", "<name>_laplace_under_noise_caught",
    "<name>_gaussian_under_noise_caught" (``accd22_noise.measured_noise_checks``).  ValueError for an unknown
    name."""
    if algorithm_name not in _TASKS:
        raise ValueError(f"algorithm_name must be one of {ALGORITHMS}, got {algorithm_name!r}")
    return _TASKS[algorithm_name]


# ---- the planted bugs in `dpsco verify` -------------------------------------------------------------------------

#: runs per side of the planted-bug audits (the tests compute each audit's miss probability at these sizes:
#: below 1e-13 for all three, tests/accd22/test_accd22_privacy.py)
PLANTED_RUNS: dict[str, int] = {"incremental_solver": 3_000, "reused_epochs": 20_000, "raw_gradients": 300}


def planted_bugs_task(inputs: SuiteInputs) -> dict[str, Any]:
    """Suite task: the four planted bugs refuted by the audits that pass the correct algorithms — the sloppy inner
    solver by the phase audit, the overlapping batches (every epoch on the whole data) and the missing extension
    by the transcript audit, the clipped gradients by the deterministic sensitivity check (with the reference
    passing it: :func:`clipping_sensitivity_check`).  Each outcome is recorded as an exact check ("the audit
    refutes the bug"); the audits' miss probabilities at these sizes (≤ 1e-13) are computed exactly in
    tests/accd22/test_accd22_privacy.py.  Sizes do not depend on the budget (:data:`PLANTED_RUNS`)."""
    seeds = inputs.seed.spawn(3)
    conf = inputs.confidence
    audits = {
        "algorithm_4_sloppy_solver": phase_white_box_audit(PLANTED_RUNS["incremental_solver"],
                                                           np.random.default_rng(seeds[0]), conf,
                                                           bug="incremental_solver"),
        "algorithm_5_reused_epochs": transcript_white_box_audit("algorithm_5", "non_interpolating",
                                                                PLANTED_RUNS["reused_epochs"],
                                                                np.random.default_rng(seeds[1]), conf,
                                                                bug="reused_epochs"),
        "algorithm_2_without_extension": transcript_white_box_audit("algorithm_2", "non_interpolating",
                                                                    PLANTED_RUNS["raw_gradients"],
                                                                    np.random.default_rng(seeds[2]), conf,
                                                                    bug="raw_gradients")}
    checks = {f"{k}_refuted": exact_check(f"{k}_refuted", f"planted bug {k}: the audit that passes the correct "
                                          "algorithm refutes it (ε_lb > claim ε)", a["verdict"] == "refuted",
                                          float(a["epsilon_lower"]), float(a.get("claim_epsilon", EPSILON)))
              for k, a in audits.items()}
    mut, ok = clipping_sensitivity_check(bug="clipped_gradients"), clipping_sensitivity_check()
    checks["algorithm_4_clipped_gradients_refuted"] = exact_check(
        "algorithm_4_clipped_gradients_refuted", "planted bug algorithm_4_clipped_gradients: the deterministic "
        "sensitivity check fails it (exact ε > claim ε) and passes the reference's extension",
        mut["p_value"] == 0.0 and ok["p_value"] == 1.0, float(mut["estimate"]), float(mut["bound"]))
    record = {k: {"epsilon_lower": a["epsilon_lower"], "epsilon_exact": a.get("epsilon_exact"),
                  "verdict": a["verdict"], "runs_per_side": PLANTED_RUNS[b]}
              for (k, a), b in zip(audits.items(), PLANTED_RUNS)}
    record["algorithm_4_clipped_gradients"] = {"epsilon_exact": mut["estimate"], "reference_epsilon": ok["estimate"]}
    # the mutants' audits are evidence that the audits can fail, not audits of a catalogue claim: they go to the
    # record and the exact checks, not to the campaign's audit family
    return {"record": record, "checks": checks, "audits": {}}
