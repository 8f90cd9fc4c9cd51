"""The privacy claims of Bassily, Feldman, Talwar and Thakurta (2019): what each privacy theorem certifies.

Each algorithm of ``dpsco.reference.bftt19.algorithms`` ends by building its release's ``PrivacyClaim`` here:
the (ε, δ) and neighbouring relation of the theorem it rests on, the assumptions its proof uses, the
conditions the claim is subject to, and the mechanism as a ``dp_accounting`` event where one models it
faithfully:

=============================  ==========================================  ====================================
algorithm                      claim                                       ``event`` (``event_neighbouring``)
=============================  ==========================================  ====================================
A_NSGD, its Moreau variant,    Theorem 3.1, certified on the worst-case    T steps on that pair,
A_ProxGD                       replace-one pair known (ERRATA.md BFTT19-E4)       ``nsgd_worst_pair_event``
                                                                           ("REPLACE_SPECIAL")
A_ObjP                         Theorem 5.2                                 None: no dp_accounting event
Efficient ObjP                 (ε1 + 2ε2, e^{ε2}δ1 + (1 + e^{ε1+ε2})δ2)    None: part of its privacy is A_ObjP's
=============================  ==========================================  ====================================
"""

from __future__ import annotations

import math
from typing import Any

from dpsco.reference.bftt19.accounting import CertifiedNoiseStd, nsgd_worst_pair_event
from dpsco.reference.bftt19.theorems import PAPER, EfficientObjPParameters, NSGDParameters
from dpsco.reference.privacy import PrivacyClaim
from dpsco.reference.problem import ERMProblem

__all__ = ["nsgd_claim", "objp_preconditions", "objp_claim", "efficient_objp_claim"]


def _data_clipping(clip: bool) -> str:
    """The claim's record of the ``clip`` option: public (the caller's choice), never the data-dependent number
    of rows clipped (a diagnostic)."""
    return ("rows outside the declared bounds are clipped to them (clip=True; a data-independent map; the number "
            "of rows clipped is not published)" if clip else "none (clip=False: data outside the bounds is refused)")


def nsgd_claim(problem: ERMProblem, n: int, epsilon: float, delta: float, params: NSGDParameters, clip: bool,
               lipschitz_used: float, source: str, extra: dict[str, Any] | None = None,
               conditions: tuple[str, ...] = ()) -> PrivacyClaim:
    """The replace-one (ε, δ) claim of Theorem 3.1 for a run of Algorithm 1 with ``params`` on n records.

    Every field is a function of public inputs (n, ε, δ, the declared problem, ``params``, the ``clip`` option).

    ``lipschitz_used`` is the per-sample gradient bound L' the noise was calibrated with and the gradients
    were clipped to (L for A_NSGD, the envelope's bound for its Moreau variant, L_env + ξ for A_ProxGD).
    The claimed δ is max(δ, the worst-pair accountant's δ(ε) at the σ used): with
    ``calibration="printed"`` at a T where the printed σ is not private (ERRATA.md BFTT19-E4) the claim states the
    accountant's δ, never the requested one.

    The claim's ``event`` is ``dpsco.reference.bftt19.accounting.nsgd_worst_pair_event(n, m, σ, L', T)`` with the σ
    and L' actually used, composed under ``"REPLACE_SPECIAL"``: the T-fold mixture-of-Gaussians pair
    (P, Q) of ``docs/derivations.md#the-one-sided-worst-case-pair-of-algorithm-1``, which is how the
    accountant computes its δ.  ``claim.event_epsilon(δ)`` therefore re-derives the ε of the worst-case pair
    known.  At T > 100 the event's PLD is the accountant's own (same discretisation 1e-3), so its ε is ≤ the
    claimed one; at T ≤ 100 the accountant used the exact curve (T = 1) or a coarser grid, and the event's ε
    can differ from the accountant's by the discretisation (at T = 1 it exceeds the exact ε by < 1e-3).
    """
    assumptions = problem.assumptions()
    assumptions.update({
        "lipschitz_used_for_noise": lipschitz_used,
        "sampling": "m indices i.i.d. uniform with replacement per step",
        "per_sample_clipping": f"defensive clip at {lipschitz_used} (no-op when the declared bound holds)",
        "data_clipping": _data_clipping(clip),
        "T": params.T, "m": params.m, "sigma2": params.sigma2, "sigma2_printed": params.sigma2_printed,
        "calibration": params.calibration, "accountant_delta": params.accountant_delta,
        "printed_accountant_delta": params.printed_accountant_delta, "printed_is_private": params.printed_is_private,
        "accountant": CertifiedNoiseStd.accountant,
    })
    if extra:
        assumptions.update(extra)
    # The claim never states a δ the worst-pair accountant does not certify: with the printed calibration at
    # a (n, T, ε, δ) where it is not private, the claimed δ is the accountant's.
    claimed_delta = max(delta, params.accountant_delta)
    notes = [f"noise calibration: {params.calibration}; worst-pair accountant δ({epsilon:g}) = "
             f"{params.accountant_delta:.3g} (dpsco.reference.bftt19.accounting; ERRATA.md BFTT19-E4)"]
    if claimed_delta > delta:
        notes.append(f"NOT ({epsilon:g}, {delta:g})-DP: the printed calibration gives δ({epsilon:g}) = "
                     f"{params.accountant_delta:.3g} > {delta:g} on the worst-case replace-one pair; "
                     f"the claim states that δ")
    notes.append("Theorem 3.1 rests on [ACG+16, Thm 1] (Poisson sampling, add/remove, constants not explicit); "
                 "the claim is certified instead by the PLD accountant on the worst-case replace-one pair known "
                 "for with-replacement sampling (one-sided: other records share the replaced record's gradient)")
    return PrivacyClaim(
        notion="approx-DP", epsilon=epsilon, delta=claimed_delta, neighbouring="replace-one", source=source,
        assumptions=assumptions, conditions=conditions + tuple(notes),
        event=nsgd_worst_pair_event(n, params.m, math.sqrt(params.sigma2), lipschitz_used, params.T),
        event_neighbouring="REPLACE_SPECIAL",
    )


def objp_preconditions(problem: ERMProblem, n: int, epsilon: float, lam: float) -> list[str]:
    """The hypotheses of Theorem 5.2 that ``problem`` fails at (n, ε, λ), in words (empty if none):
    Assumption 5.1 (twice differentiable with rank-≤1 Hessian) and β ≤ εnλ."""
    failures = []
    if not problem.loss.hessian_rank_le_1:
        failures.append(f"Assumption 5.1 fails: the {problem.loss.name} loss is not twice differentiable with "
                        "rank-≤1 Hessian")
    beta = problem.smoothness
    if beta is None or beta > epsilon * n * lam:
        failures.append(f"Theorem 5.2 needs β ≤ εnλ: β = {beta}, εnλ = {epsilon * n * lam:.6g}")
    return failures


def objp_claim(problem: ERMProblem, epsilon: float, delta: float, lam: float, sigma2: float, clip: bool,
               solver_tol: float, failures: list[str]) -> PrivacyClaim:
    """The replace-one (ε, δ) claim of Theorem 5.2 for A_ObjP, conditional on the solver certificate
    ‖ŵ − argmin‖ ≤ ``solver_tol`` (the proof needs the exact minimiser; the claim states the solver's public
    target, the certificate actually reached is a diagnostic); notion "none", listing ``failures`` (public:
    preconditions on the declared problem and public inputs), when preconditions were overridden.

    No ``event``: the output is a non-linear function of the Gaussian G whose density ratio the proof bounds
    by the change of variables G ↦ ŵ (Gaussian part plus a Jacobian factor from the rank-≤1 Hessian), and
    ``dp_accounting`` has no event for that mechanism.  (Only for a linear loss is it a Gaussian mechanism,
    ``docs/derivations.md#objective-perturbation-with-a-linear-loss``.)
    """
    assumptions = problem.assumptions()
    assumptions.update({"lambda": lam, "sigma2": sigma2, "hessian_rank_le_1": problem.loss.hessian_rank_le_1,
                        "data_clipping": _data_clipping(clip), "solver_tol": solver_tol})
    conditions = (f"exact minimiser required by the proof; the released ŵ is certified within ‖ŵ − argmin‖ ≤ "
                  f"{solver_tol:.3g} (the solver's target; a run the solver cannot certify releases its best point, "
                  "recorded in the diagnostics, which are not published)",)
    if failures:
        return PrivacyClaim(notion="none", epsilon=epsilon, delta=delta, neighbouring="replace-one",
                            source=f"{PAPER}, Theorem 5.2 — preconditions overridden, no guarantee",
                            assumptions=assumptions, conditions=tuple(failures) + conditions)
    return PrivacyClaim(notion="approx-DP", epsilon=epsilon, delta=delta, neighbouring="replace-one",
                        source=f"{PAPER}, Theorem 5.2 (= [KST12, Thm 2]), Algorithm 2",
                        assumptions=assumptions, conditions=conditions)


def efficient_objp_claim(problem: ERMProblem, p: EfficientObjPParameters) -> PrivacyClaim:
    """The replace-one claim (ε1 + 2ε2, e^{ε2}δ1 + (1 + e^{ε1+ε2})δ2) of efficient objective perturbation
    with the budget split ``p`` (``docs/derivations.md#reconstruction-of-efficient-objective-perturbation``).

    No ``event``.  The output Gaussian N(0, σ2² I) is calibrated to the distance r between the released
    point w̃ and the exact perturbed minimiser ŵ of the *same* dataset, not to a distance between
    neighbouring datasets: GaussianDpEvent(σ2/r) would model only the two ε2 links of the chain and leave out
    ε1, the privacy of A_ObjP's own noise G, which has no dp_accounting event.  No event both models this
    mechanism and gives the claimed ε.
    """
    assumptions = problem.assumptions()
    assumptions.update({"budget_split": p.to_dict(), "hessian_rank_le_1": problem.loss.hessian_rank_le_1})
    return PrivacyClaim(
        notion="approx-DP", epsilon=p.epsilon_total, delta=p.delta_total, neighbouring="replace-one",
        source=f"{PAPER}, Sec. 5 efficient objective perturbation (reconstructed, "
               "docs/derivations.md#reconstruction-of-efficient-objective-perturbation; not verified "
               "against [BFTT19])",
        assumptions=assumptions,
        conditions=(f"certified ‖w̃ − ŵ‖ ≤ r = {p.radius_r:.3g} on every run (Prox-SVRG stages until the certificate "
                    "holds; after max_stages the certified Newton solver; a run neither can certify releases its "
                    "best point, recorded in the diagnostics, which are not published)",
                    "the published gradient_evaluations is the schedule's cap from public inputs; the number of "
                    "stages actually run depends on the data and is not published"),
    )
