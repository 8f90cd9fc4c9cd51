"""dpsco compare: validate another implementation of a catalogued algorithm against ours.

A *candidate* is any callable with the signature of the catalogue's run functions::

    f(X, y, problem, epsilon, delta, rng, **options) -> Release | array

* ``X`` (n, d) float array, ``y`` (n,) labels, ``problem`` a :class:`dpsco.reference.problem.ERMProblem` (loss, W =
  B(0, M), declared data bounds; read ``problem.lipschitz``, ``problem.radius``), ``epsilon``, ``delta`` the
  privacy parameters to run at, ``rng`` a ``numpy.random.Generator`` that must be the *only* source of
  randomness (so that calls with different generators are independent runs).
* It returns a :class:`dpsco.reference.privacy.Release` (its ``output`` is the private vector and its ``claim`` the
  privacy claim audited) or a bare (d,) array (the claim audited is then (``claimed_epsilon``,
  ``claimed_delta``)-DP, replace-one; default: the ``epsilon``, ``delta`` it was run at).
* Optional vectorisation: if the signature has a parameter named ``replicates``, the candidate is called with
  ``replicates=k`` and must return k *independent* runs as a (k, d) output (like ``noisy_sgd``).  Otherwise it
  is called once per run, each call with its own generator spawned from the comparison's ``SeedSequence``.

Entries verified by their own suites (Asi, Liu & Tian; Menart et al.; Asi, Chadha, Cheng & Duchi) use the other
calling convention of their declared :class:`dpsco.verification.papers.signatures.CompareSignature`: the candidate
is a drop-in for the reference function, called by the entry's privacy harness on its own instance
(:mod:`dpsco.verification.campaign.compare_suite`).  What follows is the logistic convention.

The comparison runs the candidate and the catalogue entry on the same instance and tests three families of
hypotheses (four when its Release carries its transcript, family (d)); a faithful candidate is refuted with
probability at most α = 1 − ``confidence`` overall (Bonferroni over the families: α/3 each, or α/4 each with (d);
the α/3 or α/4 below is written s, the share):

(a) **same output distribution** (H0: the candidate's output has the same law as ours), level s, itself a
    Bonferroni combination of two tests at s/2 each:

    * energy distance (Székely–Rizzo) between the two samples of outputs, with a *permutation null*
      (``scipy.stats.permutation_test``, random permutations, p = (1 + #{b: E_b ≥ E_obs})/(B + 1)).
      Validity: under H0 the pooled 2N outputs are i.i.d., hence exchangeable, so the observed labelling
      is uniform among the relabellings and P(p ≤ u) ≤ u for every u, for any number B of random
      permutations (Phipson & Smyth 2010; the +1 counts the observed labelling).  Its p-value cannot be
      smaller than 1/(B + 1): B is chosen so that 1/(B + 1) ≤ s/20, a tenth of its level (capped at ``max_permutations``; when
      even the cap cannot reach the level — e.g. α = 10⁻⁶ — B = 999, the energy test cannot reject and the
      record says so: the KS family, whose p-values are exact and unbounded below, carries the test).  The statistic uses the first
      ``energy_max`` outputs of each side (O(N²) memory).
    * two-sample Kolmogorov–Smirnov tests (``scipy.stats.ks_2samp``) on every coordinate and on the distance
      ‖w − ŵ‖ to the certified empirical minimiser ŵ (coordinates detect location changes, the distance
      detects scale changes such as a wrong σ), Holm-corrected (``statsmodels`` ``multipletests``).  Exact
      p-values for N ≤ 10⁴ per side; ŵ is fixed before the outputs are drawn, so each statistic compares
      two i.i.d. samples.

    Power: for each KS statistic, if the true distance between the two distribution functions is Δ at some
    point, the test misses it with probability ≤ exp(−N(Δ − c′)²) (Hoeffding applied to the difference of
    the two empirical CDFs at that point), c′ = c + 1/N, c the critical value at level s/(2k); the record reports the
    minimum detectable Δ at miss probability 0.05 and 10⁻⁶ (c from the asymptotic Kolmogorov law,
    ``scipy.stats.kstwobign``).  Measured detection rates of planted bugs are in ``docs/compare.md``.

(b) **utility**: excess empirical risk L̂(w) − min_W L̂ (certified oracle) of every output of both
    implementations against the catalogue entry's bound on its expectation (computed from *our* release's
    parameters, i.e. the theorem at these public inputs), one-sided Hoeffding checks
    (:func:`dpsco.verification.checks.stats.mean_bound_check`) at s/2 each.  Outputs outside W refute the candidate
    deterministically (the algorithms project onto W).
(c) **privacy**: :func:`dpsco.verification.auditing.audit.audit` of the candidate at its claimed ε on the instance and a
    replace-one neighbour that swaps the last record for an extreme point of the declared data domain
    (:func:`dpsco.verification.auditing.neighbours.replace_one_extreme`), at confidence 1 − s.
(d) **white-box** (only when the candidate's Release carries its transcript: ``Release.white_box`` is a
    :class:`dpsco.adapters.NoisyGradientTranscript`, the hook of docs/testing.md; every run must then carry one):
    the checks of :func:`dpsco.testing.assert_transcript_private`, by the same code
    (:func:`dpsco.verification.campaign.transcripts.transcript_checks`), at level s — the white-box audit of the
    claim audited in (c) on every noisy gradient at confidence 1 − s/2, and the measured noise (one-sided χ² of
    the residuals replayed from the transcript against the σ it reports) at s/2 — on the one-sided canary pair
    of :func:`white_box_pair` (n = the instance's size, ``audit_samples`` test runs per side).  Whether (d) runs
    is read from the candidate's first Release, a property of its code, not of the data; skipped with (c) when
    ``run_audit`` is False.

Verdict "refuted" iff any test rejects; a check of *our* implementation that fails also yields "refuted"
(the record says which).  "not refuted" is not a proof of correctness: read the power statements.
"""

from __future__ import annotations

import inspect
import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from dpsco.reference import Ball, DataBounds, ERMProblem, get_loss
from dpsco.reference.privacy import PrivacyClaim, Release, to_jsonable

from dpsco.verification.auditing.audit import audit
from dpsco.verification.campaign.compare_result import CompareResult
from dpsco.verification.campaign.compare_suite import compare_harness
from dpsco.verification.campaign.transcripts import carries_transcript, transcript_checks
from dpsco.verification.papers.signatures import compare_signature
from dpsco.verification.auditing.inputs import as_real_output
from dpsco.verification.auditing.samples import task_sizes
from dpsco.verification.executors import Executor, ProcessExecutor, SerialExecutor, validate_workers
from dpsco.verification.papers.catalogue import CatalogueEntry, PublicInputs, get_entry, run_outputs
from dpsco.verification.papers.objectives import objective_range
from dpsco.verification.auditing.neighbours import replace_one_extreme
from dpsco.verification.checks.stats import mean_bound_check
from dpsco.verification.checks.two_sample import (TwoSampleResult, ks_critical_value,  # re-exported
                                                 minimum_detectable_ks, two_sample_test)

__all__ = ["CandidateError", "CompareResult", "Instance", "TwoSampleResult", "build_instance", "candidate_is_vectorised",
           "compare", "white_box_pair",
           "ks_critical_value", "minimum_detectable_ks", "two_sample_test", "DEFAULT_CONFIDENCE", "DEFAULT_SEED", "INSTANCES"]

DEFAULT_SEED = 20191208
#: = ``dpsco.verification.cli.conventions.DEFAULT_CONFIDENCE``, the one default confidence of every command and API
#: (this layer may not import the CLI's; tests/test_compare_signatures.py checks that they agree)
DEFAULT_CONFIDENCE = 0.95
INSTANCES = ("fair", "synthetic")
RADIUS = 2.0
SYNTHETIC_N, SYNTHETIC_D = 500, 3


class CandidateError(RuntimeError):
    """The candidate implementation raised, or returned something that is not a finite (d,) output."""


# ---------------------------------------------------------------------------------------------------------
# instances
# ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Instance:
    """A fixed comparison instance: data, problem, privacy parameters, neighbour and certified oracle.

    X (n, d), y (n,), X_neighbour / y_neighbour the replace-one neighbour (last record replaced by an
    extreme point), ``oracle`` the certified minimiser of the empirical loss over W.
    """

    name: str
    description: str
    X: np.ndarray
    y: np.ndarray
    X_neighbour: np.ndarray
    y_neighbour: np.ndarray
    problem: ERMProblem
    epsilon: float
    delta: float
    oracle: Any

    def to_dict(self) -> dict[str, Any]:
        n, d = self.X.shape
        return {"name": self.name, "description": self.description, "n": n, "d": d, "epsilon": self.epsilon,
                "delta": self.delta, "radius": self.problem.radius, "lipschitz": self.problem.lipschitz,
                "loss": self.problem.loss.name,
                "oracle": {"value": self.oracle.value, "gap_bound": self.oracle.gap_bound,
                           "w": np.asarray(self.oracle.w).tolist()}}


def build_instance(kind: str, seed: np.random.SeedSequence | None = None, *, n: int = SYNTHETIC_N,
                   d: int = SYNTHETIC_D) -> Instance:
    """The comparison instance ``kind``.

    Parameters
    ----------
    kind : "fair" | "synthetic"
        "fair": the built-in Fair (1978) data (n = 6366, d = 9), logistic loss, W = B(0, 2), ε = 1, δ = 1/n²
        (as ``dpsco verify``).  "synthetic": n i.i.d. draws of D1 (``dpsco.oracles.population.d1_logistic``: 200
        atoms on the unit sphere of R^d, well-specified logistic model), W = B(0, 2), ε = 1, δ = 1/n².
    seed : SeedSequence, used by "synthetic" only (atoms, w⋆ and the sample); required then.
    n, d : size of the synthetic instance.

    Raises
    ------
    ValueError : unknown ``kind`` or missing seed.
    """
    from dpsco.oracles.minimizers import certified_oracle

    if kind == "fair":
        from dpsco.verification.campaign.datasets import load_fair

        real = load_fair()
        X, y = real.X, real.y
        problem = ERMProblem(get_loss("logistic"), Ball(RADIUS), DataBounds(1.0, 1.0))
        desc = real.description
    elif kind == "synthetic":
        from dpsco.oracles.population import d1_logistic

        if not isinstance(seed, np.random.SeedSequence):
            raise ValueError("seed (a numpy.random.SeedSequence) is required for the synthetic instance")
        s_dist, s_data = seed.spawn(2)
        dist = d1_logistic(d, radius=RADIUS, rng=np.random.default_rng(s_dist))
        X, y = dist.sample(n, np.random.default_rng(s_data))
        problem = ERMProblem(get_loss("logistic"), Ball(RADIUS), dist.bounds)
        desc = f"D1 logistic (200 atoms on the unit sphere of R^{d}, ‖w⋆‖ = 1), n = {n} draws"
    else:
        raise ValueError(f"instance must be one of {INSTANCES}, got {kind!r}")
    nn = X.shape[0]
    Xn, yn = replace_one_extreme(X, y, problem.bounds)
    oracle = certified_oracle(problem.loss, X, y, problem.domain, cross_check=False)
    return Instance(kind, desc, X, y, Xn, yn, problem, 1.0, 1.0 / nn**2, oracle)


# ---------------------------------------------------------------------------------------------------------
# running the candidate
# ---------------------------------------------------------------------------------------------------------
def candidate_is_vectorised(candidate: Callable[..., Any]) -> bool:
    """Whether ``candidate`` takes ``replicates`` (its signature names the parameter)."""
    try:
        return "replicates" in inspect.signature(candidate).parameters
    except (TypeError, ValueError):
        return False


def _as_outputs(result: Any, d: int, k: int | None, name: str) -> tuple[np.ndarray, Release | None]:
    rel = result if isinstance(result, Release) else None
    try:
        out = as_real_output(rel.output if rel is not None else result, f"{name}'s output")
    except ValueError as exc:
        raise CandidateError(str(exc)) from None
    shape = (d,) if k is None else (k, d)
    if out.shape != shape:
        raise CandidateError(f"{name} returned an output of shape {out.shape}, expected {shape}")
    if not np.all(np.isfinite(out)):
        raise CandidateError(f"{name} returned a non-finite output")
    return out.reshape(-1, d), rel


def _call(candidate: Callable[..., Any], inst_X: np.ndarray, inst_y: np.ndarray, problem: ERMProblem, eps: float,
          delta: float, rng: np.random.Generator, options: dict[str, Any], k: int | None, name: str) -> Any:
    try:
        if k is None:
            return candidate(inst_X, inst_y, problem, eps, delta, rng, **options)
        return candidate(inst_X, inst_y, problem, eps, delta, rng, replicates=k, **options)
    except CandidateError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure of user code is reported as such
        raise CandidateError(f"{name} raised {type(exc).__name__}: {exc}") from exc


def _candidate_task(candidate: Callable[..., Any], X: np.ndarray, y: np.ndarray, problem: ERMProblem, eps: float,
                    delta: float, options: dict[str, Any], name: str, seeds: list[np.random.SeedSequence]
                    ) -> tuple[np.ndarray, Release | None]:
    """A task of :func:`candidate_outputs`: one run per seed (a generator each), stacked; the first Release."""
    d = X.shape[1]
    outs, first = [], None
    for child in seeds:
        o, rel = _as_outputs(_call(candidate, X, y, problem, eps, delta, np.random.default_rng(child), options, None,
                                   name), d, None, name)
        outs.append(o)
        first = first or rel
    return np.vstack(outs), first


def candidate_outputs(candidate: Callable[..., Any], X: np.ndarray, y: np.ndarray, problem: ERMProblem, eps: float,
                      delta: float, seed: np.random.SeedSequence, size: int, options: dict[str, Any] | None = None,
                      *, chunk: int = 2000, name: str = "candidate", workers: int | Executor | None = None,
                      vectorised: bool | None = None) -> tuple[np.ndarray, Release | None]:
    """``size`` independent outputs of ``candidate`` as a (size, d) array, and its first Release (if any).

    Vectorised candidates (a ``replicates`` parameter, or ``vectorised=True``) get one generator per chunk of
    ≤ ``chunk`` runs, called in this process; others one generator per run, all spawned from ``seed`` (child i
    for run i), the runs grouped in tasks (``dpsco.verification.auditing.samples.task_sizes``) that run on
    ``workers`` (None or 1: this process; k: k local processes, the candidate must be picklable; an
    Executor).  The outputs do not depend on where the tasks run.
    """
    opts = dict(options or {})
    d = X.shape[1]
    outs: list[np.ndarray] = []
    first: Release | None = None
    if candidate_is_vectorised(candidate) if vectorised is None else vectorised:
        n_chunks = math.ceil(size / chunk)
        for i, child in enumerate(seed.spawn(n_chunks)):
            k = min(chunk, size - i * chunk)
            o, rel = _as_outputs(_call(candidate, X, y, problem, eps, delta, np.random.default_rng(child), opts, k,
                                       name), d, k, name)
            outs.append(o)
            first = first or rel
        return np.vstack(outs), first
    children = seed.spawn(size)
    starts = np.cumsum([0] + task_sizes(size))
    tasks = [(candidate, X, y, problem, eps, delta, opts, name, children[a:b]) for a, b in zip(starts[:-1], starts[1:])]
    if isinstance(workers, Executor):
        results = workers.map(_candidate_task, tasks)
    else:
        with (SerialExecutor() if validate_workers(workers) in (None, 1) else ProcessExecutor(workers)) as ex:
            results = ex.map(_candidate_task, tasks)
    for o, rel in results:
        outs.append(o)
        first = first or rel
    return np.vstack(outs), first


class _CandidateMechanism:
    """Adapter: the candidate on a dataset dict, as the auditor's mechanism (batched ``sample``)."""

    def __init__(self, candidate: Callable[..., Any], problem: ERMProblem, eps: float, delta: float,
                 options: dict[str, Any], name: str, workers: int | Executor | None = None,
                 vectorised: bool | None = None):
        self.candidate, self.problem, self.eps, self.delta, self.options, self.name = (
            candidate, problem, eps, delta, options, name)
        self.workers, self.vectorised = workers, vectorised

    def __call__(self, data: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        X = np.asarray(data["X"])
        out, _ = _as_outputs(_call(self.candidate, X, np.asarray(data["y"]), self.problem, self.eps, self.delta, rng,
                                   self.options, None, self.name), X.shape[1], None, self.name)
        return out[0]

    def sample(self, data: dict[str, np.ndarray], n: int, rng: np.random.Generator) -> np.ndarray:
        seed = np.random.SeedSequence(int(rng.integers(0, 2**63)))  # fresh, drawn from the auditor's stream
        out, _ = candidate_outputs(self.candidate, np.asarray(data["X"]), np.asarray(data["y"]), self.problem,
                                   self.eps, self.delta, seed, n, self.options, name=self.name,
                                   workers=self.workers, vectorised=self.vectorised)
        return out


# ---------------------------------------------------------------------------------------------------------
# the comparison
# ---------------------------------------------------------------------------------------------------------
def _excess(problem: ERMProblem, X: np.ndarray, y: np.ndarray, W: np.ndarray, oracle_value: float) -> np.ndarray:
    vals = problem.loss.phi(X @ W.T, y[:, None]).mean(axis=0)
    return vals - oracle_value


@dataclass
class _Objective:
    """What the utility check measures: the empirical loss L̂ (default), or the objective of the catalogue entry
    (``entry.objective``: ridge, tilted, robust, adversarial), with its certified minimum and a priori range."""

    name: str
    excess: Callable[[np.ndarray], np.ndarray]  # (k, d) outputs -> (k,) excess values
    value_range: float
    gap_bound: float
    center: np.ndarray  # the certified minimiser (the two-sample test's distance statistic is centred on it)


def _objective(entry: CatalogueEntry, inst: Instance, params: dict[str, Any]) -> _Objective:
    problem = inst.problem
    if entry.objective is None:
        return _Objective("empirical loss L̂", lambda W: _excess(problem, inst.X, inst.y, W, inst.oracle.value),
                          2 * problem.radius * problem.lipschitz, inst.oracle.gap_bound, np.asarray(inst.oracle.w))
    spec = entry.objective
    obj = spec.build(inst.X, inst.y, params)  # the entry's own public parameters (μ, τ, ρ, r, R)
    m = spec.minimum(obj)
    return _Objective(spec.name, lambda W: np.array([obj.value(w) for w in W]) - m.value, objective_range(params),
                      m.gap_bound, m.w)


def _utility_check(name: str, problem: ERMProblem, target: _Objective, W: np.ndarray, bound: float,
                   alpha: float) -> dict[str, Any]:
    M = problem.radius
    norms = np.linalg.norm(W, axis=1)
    outside = int(np.sum(norms > M * (1.0 + 1e-9)))
    if outside:
        return {"name": name, "verdict": "fail", "outside_domain": outside, "bound": bound, "alpha": alpha,
                "reason": "outputs outside W = B(0, M): the algorithm projects onto W"}
    ex = target.excess(W)
    width = target.value_range
    chk = mean_bound_check(name, np.clip(ex, 0.0, width), bound, (0.0, width), alpha).to_dict()
    chk["outside_domain"] = 0
    chk["oracle_gap_bound"] = target.gap_bound
    chk["objective"] = target.name
    return chk


def _audited_claim(release: Release | None, claimed_epsilon: float | None, claimed_delta: float | None, eps: float,
                   delta: float) -> PrivacyClaim:
    """The claim families (c) and (d) audit: the candidate's Release's claim, or (``claimed_epsilon``,
    ``claimed_delta``) replace-one (each defaulting to the Release's, else to the ε, δ the instance runs at)."""
    base = release.claim if release is not None and release.claim.is_private else None
    if base is not None and claimed_epsilon is None and claimed_delta is None:
        return base
    return PrivacyClaim(
        notion="approx-DP", epsilon=float(claimed_epsilon if claimed_epsilon is not None else
                                          (base.epsilon if base else eps)),
        delta=float(claimed_delta if claimed_delta is not None else (base.delta if base else delta)),
        neighbouring="replace-one", source="user-declared (dpsco compare)")


def white_box_pair(problem: ERMProblem, n: int, d: int) -> Any:
    """The white-box family's pair: the one-sided canary (:class:`~dpsco.verification.auditing.white_box.
    OneSidedCanary`) of ``n`` copies of the record (x_max·e_1, y_max) against the same with the last replaced by
    (−x_max·e_1, y_max) — records on the declared bounds whose per-sample gradients point in opposite directions,
    the worst pair for with-replacement batches; ``n`` is the instance's size, so the candidate runs at the public
    inputs of the comparison."""
    from dpsco.verification.auditing.white_box import OneSidedCanary

    x = np.zeros(d)
    x[0] = problem.bounds.x_max
    y = float(problem.bounds.y_max)
    return OneSidedCanary(int(n), (x, y), (-x, y))


def _white_box_family(candidate: Callable[..., Any], problem: ERMProblem, eps: float, delta: float,
                      options: dict[str, Any], name: str, claim: PrivacyClaim, n: int, d: int, samples: int,
                      alpha: float, seed: np.random.SeedSequence, pilot_runs: int | None) -> dict[str, Any]:
    """Family (d): :func:`dpsco.verification.campaign.transcripts.transcript_checks` (the checks of
    :func:`dpsco.testing.assert_transcript_private`) on the candidate at the instance's public inputs, level
    ``alpha`` (α/2 the white-box audit, α/2 the measured noise)."""
    design = white_box_pair(problem, n, d)

    def run(data: dict[str, np.ndarray], rng: np.random.Generator) -> Any:
        return _call(candidate, np.asarray(data["X"]), np.asarray(data["y"]), problem, eps, delta, rng, options,
                     None, name)

    out = transcript_checks(run, claim, design, samples=samples, alpha=alpha, seed=seed, pilot_runs=pilot_runs)
    res, noise = out["audit"], out["noise"]
    return to_jsonable({
        "verdict": out["verdict"], "alpha": alpha, "failures": out["failures"],
        "pair": f"one-sided canary: {n} copies of (x_max e_1, y_max) vs the last replaced by (-x_max e_1, y_max)",
        "claim": out["claim"].to_dict(),
        "audit": {"epsilon_lower": res.epsilon_lower, "claim_epsilon": res.claim_epsilon,
                  "claim_delta": res.claim_delta, "verdict": res.verdict, "p_value": res.p_value,
                  "confidence": res.confidence, "runs_per_side": res.runs_per_side, "counts": res.counts},
        "noise": {"sigma": out["sigma"], "measured": noise["estimate"], "residuals": noise.get("residuals"),
                  "p_value": noise["p_value"], "level": alpha / 2.0,
                  "verdict": "refuted" if noise["p_value"] < alpha / 2.0 else "not refuted",
                  "statistic": "one-sided chi-squared of the replayed residuals"},
        "p_value": min(1.0, 2.0 * min(res.p_value, noise["p_value"])),
    })


def compare(candidate: Callable[..., Any], against: str | CatalogueEntry = "bftt19.nsgd", *,
            instance: str | Instance = "synthetic", samples: int = 2000, audit_samples: int | None = None,
            seed: int = DEFAULT_SEED, confidence: float = DEFAULT_CONFIDENCE, claimed_epsilon: float | None = None,
            claimed_delta: float | None = None, options: dict[str, Any] | None = None,
            candidate_name: str | None = None, permutations: int | None = None, energy_max: int = 500,
            run_audit: bool = True, workers: int | Executor | None = None,
            vectorised: bool | None = None, white_box_pilot_runs: int | None = None) -> CompareResult:
    """Compare ``candidate`` with the catalogue entry ``against`` (module docstring for the tests).

    Parameters
    ----------
    candidate : callable f(X, y, problem, epsilon, delta, rng, **options) -> Release | (d,) array
        (module docstring: the interface, vectorisation through ``replicates``).
    against : catalogue name (e.g. "bftt19.nsgd") or entry.
    instance : "fair" (built-in real data, as ``dpsco verify``), "synthetic" (D1 logistic, n = 500, d = 3),
        "harness" (entries verified by their own suites: their privacy harness's instance; the default
        "synthetic" is read as "harness" for them),
        or a prebuilt :class:`Instance` (reused across calls; its oracle is then not recomputed).
    samples : N runs of each implementation for (a) and (b).
    audit_samples : runs per side of the audit (c) and of the white-box audit (d) (default ``samples``; ≥ 4).
    seed : entropy of the root SeedSequence; every stream is spawned from it (recorded).
    confidence : 1 − α; α is the overall probability of refuting a faithful implementation.
    claimed_epsilon, claimed_delta : the claim audited when the candidate returns an array (and an override
        when it returns a Release); default: the ε, δ the instance runs at.
    options : keyword options passed to the candidate (default: the catalogue entry's options, by name — what ours
        runs with, e.g. ``mu=0.1, method="agd"`` for ``lr21.alg1``; ``compare_signature(entry).options``).
    permutations, energy_max : see :func:`two_sample_test`.
    run_audit : False skips (c) and (d) (their α shares are then unused; the verdict is conservative).
    workers : where the runs of a candidate without ``replicates`` go (:func:`candidate_outputs`): None or
        1 this process, k a local pool of k processes (picklable candidate), or an Executor (Dask).  The
        result does not depend on it.
    vectorised : whether the candidate takes ``replicates`` (default: read from its signature; a wrapper
        that hides the signature says it here).
    white_box_pilot_runs : runs per side that place the event of the white-box audit (d) (default: the
        auditor's, max(64, ⌈20000/T⌉); fewer cost power only, never validity).

    Returns
    -------
    CompareResult (``exit_status`` 0 not refuted, 1 refuted).

    Raises
    ------
    ValueError / TypeError : bad arguments;  CandidateError : the candidate failed or returned a malformed
    output.
    """
    t0 = time.time()
    if not callable(candidate):
        raise TypeError(f"candidate must be callable, got {type(candidate).__name__}")
    entry = against if isinstance(against, CatalogueEntry) else get_entry(str(against))
    signature = compare_signature(entry.name)
    if not signature.comparable:
        raise ValueError(f"entry {entry.name!r} is not comparable: {signature.reason}")
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 4:
        raise ValueError(f"samples must be an integer >= 4, got {samples!r}")
    if audit_samples is None:
        audit_samples = samples
    if isinstance(audit_samples, bool) or not isinstance(audit_samples, int) or audit_samples < 4:
        raise ValueError(f"audit_samples must be an integer >= 4, got {audit_samples!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not (0.0 < confidence < 1.0):
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    if signature.calling == "harness":   # an entry verified by its own suite: its harness's instance and pairs
        if isinstance(instance, Instance) or instance not in ("synthetic", "harness"):
            raise ValueError(f"entry {entry.name!r} runs on its harness's instance; instance must be 'harness', "
                             f"got {instance!r}")
        if options:
            raise ValueError(f"entry {entry.name!r}: its options are part of the harness call (--show-signature); "
                             "options cannot be overridden")
        if claimed_epsilon is not None or claimed_delta is not None:
            raise ValueError(f"entry {entry.name!r}: the claim audited is the one the candidate's Release states "
                             "(claimed_epsilon / claimed_delta are for the logistic entries)")
        return compare_harness(candidate, entry, signature, samples=samples, audit_samples=audit_samples, seed=seed,
                               confidence=confidence, permutations=permutations, energy_max=energy_max,
                               run_audit=run_audit, candidate_name=candidate_name or getattr(
                                   candidate, "__name__", repr(candidate)))
    if options is None:   # the entry's options, by name (the signature's): the candidate runs what ours runs
        options = dict(entry.options)
    alpha = 1.0 - float(confidence)
    ss = np.random.SeedSequence(seed)
    s_inst, s_ours, s_theirs, s_perm, s_audit, s_white = ss.spawn(6)  # the first five as before the hook
    inst = instance if isinstance(instance, Instance) else build_instance(instance, s_inst)
    problem, X, y = inst.problem, inst.X, inst.y
    n, d = X.shape
    eps, delta = inst.epsilon, inst.delta
    name = candidate_name or getattr(candidate, "__name__", repr(candidate))
    notes: list[str] = []

    ours, our_release = run_outputs(entry, X, y, problem, eps, delta, np.random.default_rng(s_ours), samples,
                                    dict(entry.options))
    theirs, their_release = candidate_outputs(candidate, X, y, problem, eps, delta, s_theirs, samples, options,
                                              name=name, workers=workers, vectorised=vectorised)

    target = _objective(entry, inst, our_release.parameters)
    # the families share α by Bonferroni: α/3 each, α/4 each when the candidate's Release carries its transcript
    # (Release.white_box, a NoisyGradientTranscript: family (d) is added; module docstring)
    hooked = their_release is not None and carries_transcript(their_release)
    share = alpha / (4.0 if hooked else 3.0)
    # (a) two-sample
    ts = two_sample_test(theirs, ours, share, np.random.default_rng(s_perm), center=target.center,
                         permutations=permutations, energy_max=energy_max)
    if not ts.energy["can_reject"]:
        notes.append(f"the energy test's p-value floor {ts.energy['p_value_floor']:.2g} exceeds its level "
                     f"{ts.energy['level']:.2g}: only the KS family can reject at this confidence")
    # (b) utility
    L, M = problem.lipschitz, problem.radius
    bound = float(entry.empirical_bound(our_release, PublicInputs(n, d, eps, delta, L, M)))
    util = {"bound": bound, "bound_source": f"{entry.title}: {entry.utility_theorem} at these public inputs",
            "candidate": _utility_check(f"{name}: E[excess empirical risk] ≤ bound", problem, target, theirs,
                                        bound, share / 2.0),
            "reference": _utility_check(f"{entry.name}: E[excess empirical risk] ≤ bound", problem, target, ours,
                                        bound, share / 2.0)}
    # (c) audit
    audit_rec: dict[str, Any] | None = None
    claim = _audited_claim(their_release, claimed_epsilon, claimed_delta, eps, delta)
    if run_audit:
        pair_a, pair_b = {"X": X, "y": y}, {"X": inst.X_neighbour, "y": inst.y_neighbour}
        if claim.neighbouring == "add/remove":
            # the claim's own relation: the instance with its extreme record added (the replace-one pair's
            # replacement, inside the declared bounds) against the instance itself
            pair_a = {"X": np.vstack([X, inst.X_neighbour[-1:]]), "y": np.concatenate([y, inst.y_neighbour[-1:]])}
            pair_b = {"X": X, "y": y}
            notes.append("candidate claims add/remove neighbouring: audited on an add/remove pair (the instance "
                         "with its extreme record added, against the instance)")
        mech = _CandidateMechanism(candidate, problem, eps, delta, dict(options or {}), name, workers, vectorised)
        try:
            res = audit(mech, pair_a, pair_b, claim,
                        audit_samples, np.random.default_rng(s_audit), confidence=1.0 - share,
                        seed_entropy=None)
        except CandidateError:
            raise
        audit_rec = res.to_dict()
    # (d) white-box: the candidate's transcript, audited as assert_transcript_private does (one implementation)
    white_rec = (_white_box_family(candidate, problem, eps, delta, dict(options or {}), name, claim, n, d,
                                   audit_samples, share, s_white, white_box_pilot_runs)
                 if hooked and run_audit else None)

    refuted_by = []
    if ts.reject:
        refuted_by.append("two-sample test (output distributions differ)")
    if util["candidate"]["verdict"] == "fail":
        refuted_by.append("candidate utility bound check")
    if util["reference"]["verdict"] == "fail":
        refuted_by.append("REFERENCE utility bound check (our implementation or the bound is wrong)")
    if audit_rec is not None and audit_rec["verdict"] == "refuted":
        refuted_by.append("privacy audit of the candidate")
    if white_rec is not None and white_rec["verdict"] == "refuted":
        refuted_by.append("white-box audit of the candidate's transcript")
    if hooked and not run_audit:
        notes.append("run_audit=False: the white-box family (d) is skipped too (its α share is unused)")
    return CompareResult(
        verdict="refuted" if refuted_by else "not refuted", refuted_by=refuted_by, alpha=alpha,
        confidence=float(confidence), against=entry.name, candidate=name, instance=inst.to_dict(), samples=samples,
        two_sample=ts.to_dict(), utility=to_jsonable(util), audit=audit_rec, seed=seed, seed_entropy=str(ss.entropy),
        wall_seconds=time.time() - t0, notes=notes, white_box=white_rec)
