"""The campaign's privacy audits: each entry in the strongest sound mode it supports, all corrected together.

Every entry is audited black-box on the real data (``dpsco.verification.campaign.verify``: the released
parameter vector, against a replace-one neighbour at an extreme point of the declared domain).  Entries that
expose their noisy gradients (``CatalogueEntry.white_box``: A_NSGD and its Moreau and prox variants) are
also audited white-box (:func:`white_box_entry_audit`): the adversary sees every noisy gradient of the run,
on the one-sided canary pair at the public inputs of :data:`WHITE_BOX_INSTANCE` (the claim holds for every
pair of neighbouring datasets, so a synthetic canary pair is as valid a test as the real data, and it is the
worst pair known for with-replacement sampling).

All audits of one campaign form one family: :func:`apply_holm_to_audits` sets their verdicts by Holm's
step-down procedure on their p-values at family-wise level α = 1 − confidence, as the rate and bound checks
are corrected at ``--alpha``.  Each audit's ε_lb is still reported at the per-audit confidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpsco.reference import Ball, DataBounds, ERMProblem, LinearLoss

from dpsco.verification.auditing.family import p_value_of_counts
from dpsco.verification.auditing.white_box import OneSidedCanary, white_box_audit
from dpsco.verification.papers.registry import CatalogueEntry

__all__ = ["WHITE_BOX_INSTANCE", "WhiteBoxInstance", "apply_holm_to_audits", "black_box_p_value",
           "white_box_entry_audit"]


@dataclass(frozen=True)
class WhiteBoxInstance:
    """Public inputs of the campaign's white-box audits: n records in R^d, the linear loss ℓ(w, x) = ⟨w, x⟩ on
    W = B(0, radius) with ‖x‖ ≤ 1 (L = 1: per-sample gradients e₁ and −e₁ differ by the full replace-one
    sensitivity 2L at every w), claim (epsilon, delta)."""

    n: int = 1000
    d: int = 1
    epsilon: float = 1.0
    delta: float = 1e-6
    radius: float = 1.0

    def problem(self) -> ERMProblem:
        return ERMProblem(LinearLoss(), Ball(self.radius), DataBounds(1.0, 1.0))

    def design(self) -> OneSidedCanary:
        e1 = np.zeros(self.d)
        e1[0] = 1.0
        return OneSidedCanary(self.n, (e1, 0.0), (-e1, 0.0))

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "d": self.d, "epsilon": self.epsilon, "delta": self.delta, "radius": self.radius,
                "loss": "linear", "pair": "one-sided canary: every record e1, the neighbour's last -e1"}


#: n = 1000, ε = 1, δ = 10⁻⁶: Theorem 3.2 gives T = 125, m = 45 (as at d = 10; d = 1 keeps the runs cheap)
WHITE_BOX_INSTANCE = WhiteBoxInstance()


def white_box_entry_audit(entry: CatalogueEntry, runs: int, seed: np.random.SeedSequence, *, confidence: float,
                          options: dict[str, Any], instance: WhiteBoxInstance = WHITE_BOX_INSTANCE) -> dict[str, Any]:
    """The white-box audit of ``entry`` (``entry.white_box`` must be true) at ``runs`` runs per side: the
    JSON-ready record of :class:`dpsco.verification.auditing.white_box.WhiteBoxAuditResult` plus the instance.

    Raises ValueError naming ``entry`` if it does not expose its noisy gradients."""
    if not entry.white_box:
        raise ValueError(f"entry {entry.name!r} does not expose its noisy gradients (CatalogueEntry.white_box)")
    problem, design = instance.problem(), instance.design()
    eps, delta = instance.epsilon, instance.delta

    def run(data: dict[str, np.ndarray], R: int, rng: np.random.Generator) -> Any:
        return entry.run(data["X"], data["y"], problem, eps, delta, rng, replicates=R, white_box=True,
                         **options).white_box

    ds, _ = design.datasets()
    claim = entry.run(ds["X"], ds["y"], problem, eps, delta, np.random.default_rng(seed.spawn(1)[0]), **options).claim
    res = white_box_audit(run, design, claim, runs, np.random.default_rng(seed), confidence=confidence)
    out = res.to_dict()
    out["samples"] = out["runs_per_side"]
    out["instance"] = instance.to_dict()
    out["claim_notion"] = claim.notion
    return out


def black_box_p_value(audit: dict[str, Any]) -> float:
    """The p-value of a black-box audit record (``AuditResult.to_dict()``): the smallest 1 − confidence at
    which its test counts refute the claim by the assumption-free threshold bound
    (``dpsco.verification.auditing.family.p_value_of_counts``); 1.0 when the record has no test counts."""
    d = audit.get("details") or {}
    claim = audit.get("claim") or {}
    try:
        k_p, k_q, n = int(d["numerator_count"]), int(d["denominator_count"]), int(d["n_test"])
        eps, delta = float(claim["epsilon"]), float(claim["delta"])
    except (KeyError, TypeError, ValueError):
        return 1.0
    return p_value_of_counts(k_p, n, k_q, n, eps, delta)


def apply_holm_to_audits(audits: list[dict[str, Any]], alpha: float) -> None:
    """Set ``verdict`` of every audit record by Holm's procedure at family-wise level ``alpha`` over their
    ``p_value`` (statsmodels ``multipletests``); the per-audit verdict is kept as
    ``verdict_at_own_confidence`` and the family's size and level as ``holm``."""
    if not audits:
        return
    from statsmodels.stats.multitest import multipletests

    reject = multipletests([float(a["p_value"]) for a in audits], alpha=alpha, method="holm")[0]
    for a, r in zip(audits, reject):
        a["verdict_at_own_confidence"] = a["verdict"]
        a["verdict"] = "refuted" if r else "not refuted"
        a["holm"] = {"family_size": len(audits), "family_wise_alpha": alpha}
