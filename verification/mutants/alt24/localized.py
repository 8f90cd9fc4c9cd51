"""Planted bugs for Asi, Liu & Tian's Localized-Clipped-DP-SGD (Algorithm 7,
``dpsco.reference.alt24.algorithms_localized``).

Each mutant has the algorithm's signature, one realistic bug, and the correct algorithm's claim (now false or
unsupported).  **Never use these for anything but testing auditors.**  Which check refutes each one is in its
docstring; all are exercised in tests/alt24/test_alt24_localized.py.

* :func:`localized_dp_sgd_overlapping_phases` — Line 8's printed record index (phases overlap);
* :func:`localized_dp_sgd_plain_laplace` — Laplace instead of bounded Laplace for Ĉ and ν;
* :func:`localized_dp_sgd_retry_on_bottom` — re-runs the algorithm when it outputs ⊥;
* :func:`localized_dp_sgd_fixed_cutoff` — the count cutoff ĉ_i = c without noise;
* :func:`localized_dp_sgd_data_dependent_clip` — C set to the largest gradient norm of the data.

The two that change the loop body (plain Laplace, fixed cutoff) run :func:`mutant_loop`, a copy of Algorithm 7
that equals the reference bit for bit when no bug is switched on (tested).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from dpsco.reference.alt24.algorithms_localized import (LocalizedRelease, check_lemma_12, localized_clipped_dp_sgd,
                                             phase_record_ranges, schedule_gradient_count)
from dpsco.reference.alt24.primitives import project_ball, sample_bounded_laplace, vector_norm
from dpsco.reference.clipping import enforce_norm_bound
from dpsco.verification.mutants.noise_scale import under_noised

__all__ = ["MUTANTS", "localized_clipped_dp_sgd_draws_sigma_over_sqrt2", "localized_dp_sgd_data_dependent_clip",
           "localized_dp_sgd_two_passes", "theorem_3_parameters_printed_clip",
           "localized_dp_sgd_fixed_cutoff", "localized_dp_sgd_sigma_over_100",
           "localized_dp_sgd_overlapping_phases", "localized_dp_sgd_plain_laplace",
           "localized_dp_sgd_publishes_performed_count", "localized_dp_sgd_retry_on_bottom", "mutant_loop"]


def mutant_loop(S: Any, loss: Any, x0: Any, *, eta: float, C: float, c: float, omega: float, beta: float,
                epsilon: float, delta: float, radius: float, rng: np.random.Generator, plain_laplace: bool = False,
                fixed_cutoff: bool = False, trace: bool = False, sigma_factor: float = 1.0,
                passes: int = 1) -> LocalizedRelease:
    """Algorithm 7 (disjoint phases, projected) re-written for the mutants, with the same draws in the same order
    as :func:`~dpsco.reference.alt24.algorithms_localized.localized_clipped_dp_sgd`.  ``plain_laplace``: Ĉ and ν drawn from
    Lap(ω_i), Lap(2ω_i) (τ = inf); ``fixed_cutoff``: ĉ_i = c (the BLap draw is still made and discarded, so that
    the other draws stay aligned).  ``trace`` records the Ĉ values and ν draws per phase in
    ``extra_trace`` of the diagnostics (max |Ĉ − C|, max |ν|) and each phase's noisy output in
    ``nonprivate_internals["phases"][i]["release"]`` (as the reference's trace does); ``sigma_factor`` scales
    Line 28's σ_i (1: correct); ``passes`` > 1 runs each phase's loop that many times over its records (1:
    correct)."""
    S = np.asarray(S, dtype=np.float64)
    lemma12 = check_lemma_12(C, c, omega, eta, beta, S.shape[0], epsilon, delta)
    d = loss.dimension(S.shape[1])
    x_prev = np.asarray(x0, dtype=np.float64).copy()
    ranges = phase_record_ranges(S.shape[0])
    grads, counts, env = 0, [], []
    releases: list[dict[str, np.ndarray]] = []

    def proj(y: np.ndarray) -> np.ndarray:
        return project_ball(y, np.zeros(d), radius)

    def blap(R: float, tau: float, size: Any = None) -> Any:
        return sample_bounded_laplace(R, math.inf if plain_laplace and R > 0 else tau, rng, size)

    reference = localized_clipped_dp_sgd(S[:2], loss, x_prev, eta=eta, C=C, c=c, omega=omega, beta=beta,
                                         epsilon=epsilon, delta=delta, radius=radius,
                                         rng=np.random.default_rng(0))  # the claim (and input checks) only
    halted, phase = False, None
    for i, (start, stop) in enumerate(ranges, start=1):
        n_i = stop - start
        eta_i = eta / 4.0**i
        omega_i = omega * 6.0 * C * eta_i * beta
        tau_i = omega_i * math.log(30.0 * n_i / delta)
        sigma_i = 30.0 * C * eta_i * math.sqrt(math.log(3.0 / delta)) / epsilon
        C_hat = C + blap(omega_i, tau_i)
        c_hat = c + sample_bounded_laplace(3.0 / epsilon, c / 2.0, rng)
        if fixed_cutoff:
            c_hat = c                                           # BUG: the cutoff carries no noise
        nus = blap(2.0 * omega_i, 2.0 * tau_i, size=n_i)
        redraws = blap(omega_i, tau_i, size=n_i)
        x = proj(x_prev)
        total, count, hats = np.zeros(d), 0, [C_hat]
        for jj in range(n_i * passes):
            j = jj % n_i
            total += x
            s = S[start + j:start + j + 1]
            g = loss.grads(x, s)[0]
            grads += 1
            norm = vector_norm(g)
            norm = math.inf if math.isnan(norm) else norm
            if norm + float(nus[j]) >= C_hat:
                count += 1
                if norm > C:
                    g = loss.clipped_grads_at(x[None, :], s, C)[0, 0]
                C_hat = C + float(redraws[(count - 1) % n_i])  # (passes > 1 reuse the draws)
                hats.append(C_hat)
            if not plain_laplace and not vector_norm(g) <= C + 3.0 * tau_i:   # the reference's fail-safe
                g = enforce_norm_bound(g[None, :], C + 3.0 * tau_i)[0]
            if count >= c_hat:
                halted, phase = True, i
                break
            x = proj(x - eta_i * g)
        counts.append(count)
        env.append({"max_abs_C_hat_minus_C": float(max(abs(h - C) for h in hats)),
                    "max_abs_nu": float(np.max(np.abs(nus))) if n_i else 0.0})
        if halted:
            break
        x_prev = total / (n_i * passes) + sigma_factor * sigma_i * rng.standard_normal(d)
        releases.append({"release": x_prev.copy()})
    out = np.full(d, np.nan) if halted else proj(x_prev)
    diag = {"clip_counts": counts}
    if trace:
        diag["envelope"] = env
    claim = dataclasses.replace(reference.claim, assumptions={**reference.claim.assumptions, "lemma_12": lemma12})
    internals: dict[str, Any] = {"gradient_evaluations_performed": grads, "halted_phase": phase}
    if trace:
        internals["phases"] = releases
    return LocalizedRelease(output=out, claim=claim, gradient_evaluations=schedule_gradient_count(ranges),
                            parameters={**reference.parameters, "I": len(ranges), "n_used": 1 << len(ranges),
                                        "phases": [list(r) for r in ranges]},
                            algorithm="MUTANT: Algorithm 7 copy", diagnostics=diag, halted=halted,
                            nonprivate_internals=internals)


def localized_dp_sgd_overlapping_phases(S: Any, loss: Any, x0: Any, **kw: Any) -> LocalizedRelease:
    """BUG: Line 8's printed index (Σ_{i'∈[i]} n_{i'} + j): phase i reads the last n_i records, so a record near
    the end enters up to I phases and Lemma 12's parallel composition fails.  Refuted by the exact ⊥-channel
    check on a pair whose differing record flips a clip in several phases (tests: the probability of "not ⊥"
    moves by e^{mε/3} over m phases; > e^ε·P + δ for m ≥ 4) and by the record-usage check (a record in two
    phases).  The claim is the correct algorithm's, without the reference's warning condition."""
    r = localized_clipped_dp_sgd(S, loss, x0, record_index="printed", **kw)
    r.algorithm = "MUTANT: Algorithm 7 with the printed (overlapping) record index"
    r.claim = dataclasses.replace(r.claim, conditions=())   # the bug keeps the correct algorithm's claim
    return r


def localized_dp_sgd_plain_laplace(S: Any, loss: Any, x0: Any, **kw: Any) -> LocalizedRelease:
    """BUG: Ĉ = C + Lap(ω_i) and ν ~ Lap(2ω_i) (no truncation).  The deterministic envelopes of Lemma 11's proof,
    Ĉ ∈ [7C/8, 9C/8] and |ν| ≤ C/4, then fail with positive probability, and with them the 6Cη_i sensitivity
    bound.  Refuted by the envelope check on traced runs (tests), a statement the correct algorithm meets on
    every draw."""
    r = mutant_loop(S, loss, x0, plain_laplace=True, **kw)
    r.algorithm = "MUTANT: Algorithm 7 with plain Laplace threshold noise"
    return r


def localized_dp_sgd_retry_on_bottom(S: Any, loss: Any, x0: Any, *, max_attempts: int = 1000,
                                     **kw: Any) -> LocalizedRelease:
    """BUG: when a run outputs ⊥, run again with fresh randomness (at most ``max_attempts`` times) and release the
    first point.  Every attempt leaks the ⊥ event of the same records: on a pair where one dataset halts on every
    draw of ĉ_i (count ≥ 3c/2) and the other escapes with the small probability q of BLap's tail, "not ⊥" has
    probability 0 against 1 − (1 − q)^max_attempts > δ.  Refuted by the exact ⊥-channel check (tests);
    ``nonprivate_internals["gradient_evaluations_performed"]`` sums all attempts and ``diagnostics["attempts"]``
    counts them."""
    rng = kw.pop("rng")
    total, attempts = 0, 0
    for attempts in range(1, int(max_attempts) + 1):
        r = localized_clipped_dp_sgd(S, loss, x0, rng=rng, **kw)
        total += r.nonprivate_internals["gradient_evaluations_performed"]
        if not r.halted:
            break
    r.nonprivate_internals["gradient_evaluations_performed"] = total
    r.diagnostics = {**r.diagnostics, "attempts": attempts}
    r.algorithm = "MUTANT: Algorithm 7 retried on ⊥"
    return r


def localized_dp_sgd_fixed_cutoff(S: Any, loss: Any, x0: Any, **kw: Any) -> LocalizedRelease:
    """BUG: ĉ_i = c (no BLap(3/ε, c/2) noise).  The differing record's clip indicator has unbounded-sensitivity
    query but moves the count by one, which the noisy cutoff hides (proof of Lemma 12); with a fixed cutoff a
    dataset with count c halts surely and its neighbour with count c − 1 never.  Refuted by the black-box audit
    with ⊥ as an outcome on the ⊥ pair (tests, suite)."""
    r = mutant_loop(S, loss, x0, fixed_cutoff=True, **kw)
    r.algorithm = "MUTANT: Algorithm 7 with a fixed count cutoff"
    return r


def localized_dp_sgd_data_dependent_clip(S: Any, loss: Any, x0: Any, **kw: Any) -> LocalizedRelease:
    """BUG: C = the largest per-sample gradient norm at x0 (floored at 1e-9) instead of the public Theorem 3 C, so
    the clip threshold, the SVT scales and the output noise σ_i ∝ C all read the data.  On the output-shift pair
    (one record M·e_1 against 0, the rest 0) the neighbour's C is 1e-9 and its output is x0 to 1e-8: refuted by
    the black-box audit (tests, suite)."""
    S_arr = np.asarray(S, dtype=np.float64)
    g = loss.grads(np.asarray(x0, dtype=np.float64), S_arr)
    kw["C"] = max(float(np.max(np.linalg.norm(g, axis=1))), 1e-9)   # BUG: C read from the data
    r = localized_clipped_dp_sgd(S_arr, loss, x0, **kw)
    r.algorithm = "MUTANT: Algorithm 7 with a data-dependent clip threshold"
    return r


def localized_dp_sgd_publishes_performed_count(S: Any, loss: Any, x0: Any, **kw: Any) -> LocalizedRelease:
    """BUG (the code as it was): the published ``gradient_evaluations`` is the number of gradients computed — on ⊥
    the step at which the clip count reached ĉ_i — instead of the schedule's 2^I − 1, and ``halted_phase`` is
    published too (the paper releases ⊥ alone).  On the pair "phase 1 holds c + 1 clipped records / the
    neighbour's (c + 1)-th is 0" (β = 0, linear loss) the count c + 1 is published with probability
    P(c < ĉ_1 ≤ c + 1) ≈ ½(1 − e^{−ε/3}) on D and never on D′: δ ≥ 0.13 > δ = 0.1 at ε = 0.9.  Refuted exactly
    and by the black-box audit of the whole published record (``audit_outcome``: ⊥, point and count together;
    tests/alt24/test_alt24_published_records.py)."""
    r = localized_clipped_dp_sgd(S, loss, x0, **kw)
    return _PublishesCount(output=r.output, claim=r.claim, gradient_evaluations=r.nonprivate_internals[
        "gradient_evaluations_performed"], parameters=r.parameters, algorithm="MUTANT: Algorithm 7 publishing its "
                           "performed count", diagnostics=r.diagnostics, nonprivate_internals=r.nonprivate_internals,
                           halted=r.halted)


class _PublishesCount(LocalizedRelease):
    """The old LocalizedRelease.to_dict: the outcome plus ``halted_phase`` (planted bug of
    :func:`localized_dp_sgd_publishes_performed_count`)."""

    def to_dict(self, include_trajectory: bool = False, include_diagnostics: bool = False) -> dict[str, Any]:
        d = super().to_dict(include_trajectory, include_diagnostics)
        d["halted_phase"] = self.nonprivate_internals.get("halted_phase")
        return d


#: Algorithm 7 drawing σ_i/√2 at Line 28 (``noise_scale.under_noised``: the BLap draws are the parent's), with the
#: correct claim: caught by the measured-noise check of ``alt24_harness_svt`` (every phase output's noise
#: replayed against Line 28's σ_i), tests/alt24/test_alt24_measured_noise.py
localized_clipped_dp_sgd_draws_sigma_over_sqrt2 = under_noised(localized_clipped_dp_sgd)


#: name -> mutant, for the corpus
def localized_dp_sgd_sigma_over_100(S: Any, loss: Any, x0: Any, **kw: Any) -> LocalizedRelease:
    """BUG: Line 28's Gaussian noise at σ_i/100, the claim unchanged.  Algorithm 7's (ε, δ) claim is loose for its
    Gaussian channel (on the output-shift pair the phase-1 shift is μ ≈ 0.016 noise scales), so only a large cut
    shows: at σ_i/100 the shift is 1.58 scales.  Refuted by the white-box audit of the phase outputs
    (``tests/alt24/test_alt24_localized_white_box.py::test_white_box_audit_refutes_sigma_over_100``)."""
    return mutant_loop(S, loss, x0, sigma_factor=0.01, **kw)


MUTANTS = {f.__name__: f for f in (localized_dp_sgd_overlapping_phases, localized_dp_sgd_plain_laplace,
                                   localized_dp_sgd_retry_on_bottom, localized_dp_sgd_fixed_cutoff,
                                   localized_dp_sgd_data_dependent_clip)}


# ---- the check registry's copies (``mutants.alt24.catches``, ``tests/alt24/test_alt24_catches.py``) -----------------

def localized_dp_sgd_two_passes(S: Any, loss: Any, x0: Any, **kw: Any) -> Any:
    """Algorithm 7 running each phase's loop twice over its records (an epoch loop around Lines 10–27).  BUG:
    2·(2^I − 1) per-sample gradients on a run that does not halt, where Algorithm 7 makes one per record (≤ n),
    and every record enters its phase's sum twice (sensitivity of the phase average doubled).  Caught by the
    suite's exact check ``gradient_count`` (``alt24_localized.task_bounds``: performed gradients ≤ n)."""
    rel = mutant_loop(S, loss, x0, passes=2, **kw)
    rel.algorithm = "MUTANT: Algorithm 7 with two passes per phase"
    return rel


def theorem_3_parameters_printed_clip(n: int, d: int, epsilon: float, delta: float, moments: MomentBounds,
                                      D: float) -> Any:
    """Theorem 3's parameters with the printed C = 2(G_k^kDI/(Aη))^{1/(k+1)} (ERRATA: the proof needs the
    factor 2^{1+1/k}).  BUG: at η = η_2, n(2G_k/C)^k = c/2 > c/4, so Lemma 13's condition fails and the
    no-⊥ guarantee behind Theorem 3's utility is lost (privacy is unaffected: Lemma 12 is free of C at β = 0).
    Caught by the suite's exact check ``lemma_13_conditions`` (``alt24_localized.task_bounds``)."""
    from dpsco.reference.alt24.algorithms_localized import theorem_3_parameters

    return theorem_3_parameters(n, d, epsilon, delta, moments, D, printed=True)
