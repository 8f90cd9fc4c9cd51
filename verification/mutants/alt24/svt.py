"""Planted bugs for Asi, Liu & Tian's bounded Laplace mechanism (Lemma 9) and SVT with bounded Laplace noise
(Algorithm 6, Lemma 10), ``dpsco.reference.alt24.algorithms_svt``.

Each mutant has the algorithm's signature, one bug, and the correct algorithm's claim.  **Never use these for
anything but testing auditors.**  Which check refutes each one is in its docstring; all are exercised in
tests/alt24/test_alt24_svt.py and in the ``alt24.blap`` / ``alt24.svt`` suites of ``dpsco verify``.

* :func:`bounded_laplace_tau_without_epsilon` — Lemma 9's truncation τ = Δ log(4/δ) (the 1/ε forgotten);
* :func:`sparse_vector_without_query_noise` — Algorithm 6 with the query noise ξ of Line 5 dropped;
* :func:`sparse_vector_plain_laplace` — Algorithm 6 with plain Laplace noise (τ = ∞): *not* a privacy bug of
  SVT alone (Laplace SVT is (ε, δ/5)-DP, the reference mechanism of Lemma 10's proof), but it breaks the
  deterministic envelope |noise| ≤ τ that Algorithm 7 relies on (Lemma 11: Ĉ ∈ [7C/8, 9C/8], |ν| ≤ C/4).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpsco.reference.alt24.primitives import sample_bounded_laplace
from dpsco.reference.alt24.algorithms_svt import lemma_9_tau, lemma_10_parameters, sparse_vector_answer_law
from dpsco.reference.privacy import PrivacyClaim, Release
from dpsco.reference.validation import as_float_vector, check_positive, check_positive_int, check_rng

__all__ = ["MUTANTS", "bounded_laplace_doubled_parameters", "bounded_laplace_tau_without_epsilon",
           "bounded_laplace_tau_without_log", "sparse_vector_halts_one_top_late",
           "sparse_vector_plain_laplace", "sparse_vector_without_query_noise"]


def bounded_laplace_tau_without_epsilon(value: float, sensitivity: float, epsilon: float, delta: float,
                                        rng: np.random.Generator, tau: float | None = None, *,
                                        unsafe_tau: bool = False) -> Release:
    """Mutant of ``bounded_laplace_mechanism``: τ = Δ log(4/δ) instead of (Δ/ε) log(4/δ) (``tau`` and
    ``unsafe_tau`` ignored); the Lemma 9 claim unchanged.

    Bug: for ε < 1 the noise support [−τ, τ] is too short; the neighbour's output S + Δ + ξ has mass
    P(ξ < Δ − τ) where the dataset's has none, so δ(ε) ≥ that mass for every ε (5.2e-3 > δ = 1e-3 at
    Δ = 1, ε = 0.5).  Caught by the exact curve (``bounded_laplace_delta(ε, Δ, Δ/ε, τ) > δ``) and by the
    black-box audit of the ``alt24.blap`` suite (S(D) = 0 vs S(D') = Δ, the fixed event {output ≤ Δ − Δ log(4/δ)},
    which the neighbour's output never reaches under this bug)."""
    s = check_positive(sensitivity, "sensitivity")
    eps = check_positive(epsilon, "epsilon")
    t = lemma_9_tau(s, eps, delta) * eps  # the bug: Δ log(4/δ)
    R = s / eps
    xi = sample_bounded_laplace(R, t, check_rng(rng))
    params = {"R": R, "tau": t, "tau_lemma_9": lemma_9_tau(s, eps, delta), "sensitivity": s}
    claim = PrivacyClaim(notion="approx-DP", epsilon=eps, delta=float(delta), neighbouring="replace-one",
                         source="Asi, Liu & Tian (2024), Lemma 9 (bounded Laplace mechanism)", assumptions=params)
    return Release(output=np.array([float(value) + xi]), claim=claim, gradient_evaluations=0, parameters=params,
                   algorithm="bounded Laplace mechanism, MUTANT tau without 1/epsilon",
                   nonprivate_internals={"noise": xi})


def _blap_mutant(value: float, sensitivity: float, epsilon: float, delta: float, rng: np.random.Generator, R: float,
                 t: float, name: str) -> Release:
    """S + BLap(R, t) with Lemma 9's claim (ε, δ) unchanged (the mutants below choose R and t)."""
    s = check_positive(sensitivity, "sensitivity")
    eps = check_positive(epsilon, "epsilon")
    xi = sample_bounded_laplace(R, t, check_rng(rng))
    params = {"R": s / eps, "tau": lemma_9_tau(s, eps, delta), "sensitivity": s}   # what the release reports
    claim = PrivacyClaim(notion="approx-DP", epsilon=eps, delta=float(delta), neighbouring="replace-one",
                         source="Asi, Liu & Tian (2024), Lemma 9 (bounded Laplace mechanism)", assumptions=params)
    return Release(output=np.array([float(value) + xi]), claim=claim, gradient_evaluations=0, parameters=params,
                   algorithm=f"bounded Laplace mechanism, MUTANT {name}", nonprivate_internals={"noise": xi})


def lemma_9_tau_without_log(sensitivity: float, epsilon: float, delta: float) -> float:
    """The truncation of :func:`bounded_laplace_tau_without_log`: τ = Δ/ε (Lemma 9's log(4/δ) factor dropped)."""
    return check_positive(sensitivity, "sensitivity") / check_positive(epsilon, "epsilon")


def bounded_laplace_tau_without_log(value: float, sensitivity: float, epsilon: float, delta: float,
                                    rng: np.random.Generator, tau: float | None = None, *,
                                    unsafe_tau: bool = False) -> Release:
    """Mutant of ``bounded_laplace_mechanism``: τ = Δ/ε = R (Lemma 9's factor log(4/δ) dropped; ``tau`` and
    ``unsafe_tau`` ignored), the claim unchanged.  Bug: the support [−R, R] is so short that the neighbour's output
    S + Δ + ξ has mass where the dataset's has none: the exact δ(ε) = bounded_laplace_delta(ε, Δ, Δ/ε, Δ/ε)
    exceeds δ at every grid point of the suite's exact check except (ε, δ) = (0.1, 0.1).  Caught by the suite's
    exact checks ``blap_exact_*`` (``alt24_svt.blap_exact`` with this τ)."""
    s, eps = check_positive(sensitivity, "sensitivity"), check_positive(epsilon, "epsilon")
    return _blap_mutant(value, s, eps, delta, rng, s / eps, lemma_9_tau_without_log(s, eps, delta), "tau = R")


def bounded_laplace_doubled_parameters(value: float, sensitivity: float, epsilon: float, delta: float,
                                       rng: np.random.Generator, tau: float | None = None, *,
                                       unsafe_tau: bool = False) -> Release:
    """Mutant of ``bounded_laplace_mechanism`` drawing BLap(2R, 2τ) (Algorithm 6's query-noise parameters, Line 5)
    instead of Lemma 9's BLap(R, τ), reporting R and τ.  Not less private, but the envelope |ξ| ≤ τ that Algorithm
    7's Lemma 11 needs fails: each draw exceeds τ with probability q = (e^{−τ/2R} − e^{−τ/R})/(1 − e^{−τ/R}) =
    0.0153 at ε = 0.5, δ = 1e-3.  Caught by the suite's envelope check ``blap_envelope``."""
    s, eps = check_positive(sensitivity, "sensitivity"), check_positive(epsilon, "epsilon")
    return _blap_mutant(value, s, eps, delta, rng, 2.0 * s / eps, 2.0 * lemma_9_tau(s, eps, delta),
                        "BLap(2R, 2tau)")


def _svt_mutant(answers: Any, sensitivity: float, c: int, L: float, epsilon: float, delta: float,
                rng: np.random.Generator, *, query_noise: bool, plain_laplace: bool, name: str,
                extra_tops: int = 0) -> Release:
    q = as_float_vector(answers, "answers")
    c = check_positive_int(c, "c")
    rng = check_rng(rng)
    params = lemma_10_parameters(sensitivity, c, q.size, epsilon, delta)
    R = params["R"]
    tau = math.inf if plain_laplace else params["tau"]
    out = np.full(q.size, -1.0)
    z = sample_bounded_laplace(R, tau, rng)
    thresholds, queries = [z], []
    count = 0
    for i in range(q.size):
        if count >= c + extra_tops:     # extra_tops > 0: the halting test off by that many (a bug)
            break
        xi = sample_bounded_laplace(2.0 * R, 2.0 * tau, rng) if query_noise else 0.0
        queries.append(xi)
        if q[i] + xi < L + z:
            out[i] = 0.0
        else:
            out[i] = 1.0
            count += 1
            if count < c + extra_tops:
                z = sample_bounded_laplace(R, tau, rng)
                thresholds.append(z)
    public = {**params, "c": c, "L": float(L), "T": int(q.size), "sensitivity": float(sensitivity)}
    claim = PrivacyClaim(notion="approx-DP", epsilon=float(epsilon), delta=float(delta), neighbouring="replace-one",
                         source="Asi, Liu & Tian (2024), Lemma 10 (Algorithm 6, SVT with bounded Laplace noise)",
                         assumptions={"sensitivity": float(sensitivity), "c": c, "T": int(q.size), "R": R,
                                      "tau": params["tau"]})
    return Release(output=out, claim=claim, gradient_evaluations=0, parameters=public,
                   algorithm=f"SVT (Algorithm 6), MUTANT {name}",
                   nonprivate_internals={"threshold_noise": thresholds, "query_noise": queries})


def sparse_vector_without_query_noise(answers: Any, sensitivity: float, c: int, L: float, epsilon: float,
                                      delta: float, rng: np.random.Generator) -> Release:
    """Mutant of ``private_sparse_vector``: Line 5's query noise ξ ~ BLap(2R, 2τ) dropped (the classic broken
    SVT); the Lemma 10 claim unchanged.

    Bug: on the streams (L, L + Δ) and (L + Δ, L) (each query moved by Δ), the answer ⊥⊤ means
    0 < z ≤ Δ for the threshold noise z on the first and is impossible on the second, so δ(ε) ≥ P(0 < z ≤ Δ)
    ≈ Δ/(2R) for every ε (0.029 > δ = 0.01 at ε = 0.9, c = 1, T = 3).  Caught by the exact curve
    (:func:`without_query_noise_law`) and by the black-box audit of the ``alt24.svt`` suite."""
    return _svt_mutant(answers, sensitivity, c, L, epsilon, delta, rng, query_noise=False, plain_laplace=False,
                       name="without query noise")


def sparse_vector_plain_laplace(answers: Any, sensitivity: float, c: int, L: float, epsilon: float, delta: float,
                                rng: np.random.Generator) -> Release:
    """Mutant of ``private_sparse_vector``: plain Laplace noise Lap(R), Lap(2R) (τ = ∞) in Lines 3, 5, 14; the
    Lemma 10 claim unchanged.

    Not a privacy violation of Algorithm 6 by itself: Laplace SVT is (ε, δ/5)-DP (Dwork & Roth 2014, Thms 3.23
    and 3.20; the mechanism A of Lemma 10's proof), and its exact curve on the adversarial streams stays below
    the claim (tested).  What breaks is the deterministic envelope |threshold noise| ≤ τ, |query noise| ≤ 2τ
    that Algorithm 7 inherits (Lemma 11 needs Ĉ ∈ [7C/8, 9C/8] and |ν| ≤ C/4 on every draw): caught by the
    envelope check on the recorded noise draws (each exceeds its bound with probability exactly δ/(10T))."""
    return _svt_mutant(answers, sensitivity, c, L, epsilon, delta, rng, query_noise=True, plain_laplace=True,
                       name="plain Laplace")


def sparse_vector_halts_one_top_late(answers: Any, sensitivity: float, c: int, L: float, epsilon: float,
                                     delta: float, rng: np.random.Generator) -> Release:
    """Mutant of ``private_sparse_vector`` whose halting test is off by one (``count > c``: Line 4 halts after
    c + 1 answers ⊤), calibrated and claimed for c.  Bug: c + 1 noisy comparisons answer ⊤, one more than
    Lemma 10's √c composition pays for.  Caught by the suite's exact check ``svt_halting`` (``svt_envelope``:
    1,000 runs on the zero stream, L = 0, c = 1, T = 3; each run answers ⊤⊤ with probability ≥ 1/4)."""
    return _svt_mutant(answers, sensitivity, c, L, epsilon, delta, rng, query_noise=True, plain_laplace=False,
                       name="halting one answer late", extra_tops=1)


def without_query_noise_law(answers: Any, c: int, L: float, R: float, tau: float) -> dict[tuple[int, ...], float]:
    """The exact answer law of :func:`sparse_vector_without_query_noise` at threshold noise BLap(R, τ) (the
    sparse-vector loop with no query noise: ``sparse_vector_answer_law`` with query scale 0); compare two with
    ``dpsco.reference.alt24.algorithms_svt.discrete_delta``.  The analysis of this planted bug lives here, beside it (the
    reference computes Algorithm 6's own law only)."""
    return sparse_vector_answer_law(answers, c, L, R, tau, 0.0, 0.0)


#: every planted copy of this module (the last three are the check registry's, ``mutants.alt24.catches``)
MUTANTS = {f.__name__: f for f in (bounded_laplace_tau_without_epsilon, sparse_vector_without_query_noise,
                                   sparse_vector_plain_laplace, bounded_laplace_tau_without_log,
                                   bounded_laplace_doubled_parameters, sparse_vector_halts_one_top_late)}
