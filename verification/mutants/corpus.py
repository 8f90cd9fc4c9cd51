"""The planted-bug corpus: every planted bug (mutant) of ``dpsco.verification.mutants``, with how it is caught.

A privacy audit that never fails proves nothing: each mutant copies one of our algorithms with one realistic
bug and keeps the correct algorithm's privacy claim (now false); the audits and checks must catch it.
:data:`CORPUS` holds every planted bug by name, each with its ``paper``, the bug and its precedent, the
instance on which it shows, the audit or check that catches it (``caught_by``) and the tests that run that
audit or check (``tests``, pytest ids).  Each catalogue entry (``dpsco.verification.papers``) names the
planted bugs of the code it runs.  Each paper's rows live in its room (``mutants/<paper>/corpus.py``); this
module gathers them and keeps only what is shared (the two kinds of entry are in ``mutants.planted``):

* :data:`CANARY_AUDITED` (Bassily et al., ``mutants.bftt19.corpus``): :class:`PlantedBug` entries audited on a
  canary pair, with the TRUE ε of the mutant's and the correct release there and the audit budget fixed in
  advance.  :func:`detection_rate` runs ``audits`` independent audits
  (``dpsco.verification.auditing.audit.audit`` at :data:`DEFAULT_CONFIDENCE`, the entry's ``samples`` runs per
  side, independent ``SeedSequence`` children) and returns the refutation rate with its Clopper–Pearson interval
  (docs/planted-bugs.md).
* μ-GDP / ρ-zCDP entries (``mutants.notions``; :data:`NOTION_AUDITED`): :class:`PlantedBug` entries of a
  Gaussian sum, a noisy clipped-gradient step and a Laplace sum claimed μ-GDP / ρ-zCDP, audited like the
  canary-audited ones but by the curve audit against the claimed curve.  :data:`AUDITED` holds both kinds;
  no catalogue entry runs these mechanisms yet, so they are not in :data:`CORPUS`.
  ``detection_rate(name, notion=...)`` audits any :data:`AUDITED` entry under a notion (:data:`NOTIONS`):
  "approx" (default: the (ε, δ) threshold audit above), "curve" (the curve audit against the claim's
  dp_accounting event), "gdp" / "zcdp" (against the claimed μ-GDP / ρ-zCDP curve).
* :data:`PAPER_TEST_BUGS`: the :class:`PaperTestBug` entries of Lowy & Razaviyayn (``mutants.lr21.corpus``), the
  memorisation bug of ``mutants.utility`` as run by the entries of both papers it serves (``bftt19``, ``lr21``),
  and both papers' σ/√2 copies (``mutants.glm_noise_corpus``).
* :data:`CORPUS`: every planted bug, the rooms' tables merged (Asi, Liu & Tian ``mutants.alt24.corpus``, Menart
  et al. ``mutants.muabg23.corpus``, Asi, Chadha, Cheng & Duchi ``mutants.accd22.corpus``).
"""

from __future__ import annotations

from dataclasses import dataclass
import math
from typing import Any

import numpy as np

import dpsco.reference.bftt19 as o
import dpsco.reference.lr21 as lr
from dpsco.verification.mutants.bftt19 import bugs as mu
from dpsco.verification.mutants.bftt19.corpus import BFTT19_BUGS, CANARY_AUDITED
from dpsco.verification.mutants.lr21 import bugs as mlr
from dpsco.verification.mutants.lr21.corpus import LR21_BUGS
from dpsco.verification.auditing.audit import audit, clopper_pearson_lower, clopper_pearson_upper
from dpsco.verification.auditing.curve_audit import audit_curve, epsilon_lower_from_box
from dpsco.verification.auditing.curves import CurveClaim
from dpsco.verification.mutants.exact import (DEFAULT_CONFIDENCE, fixed_event_refutation_probability, release_delta,
                                              release_epsilon)
from dpsco.verification.mutants.accd22.corpus import ACCD22_BUGS
from dpsco.verification.mutants.alt24.corpus import ALT24_BUGS
from dpsco.verification.mutants.glm_noise_corpus import GLM_NOISE_BUGS
from dpsco.verification.mutants.muabg23.corpus import MUABG23_BUGS
from dpsco.verification.mutants.planted import (CANARY_AUDIT_TESTS, DEFAULT_SAMPLES, Mechanism, PaperTestBug,
                                                PlantedBug)
from dpsco.verification.mutants.notions import NOTION_AUDITED

__all__ = [
    "AUDITED",
    "CANARY_AUDITED",
    "CANARY_AUDIT_TESTS",
    "CORPUS",
    "PAPER_TEST_BUGS",
    "PaperTestBug",
    "DEFAULT_CONFIDENCE",
    "DEFAULT_SAMPLES",
    "DetectionRate",
    "Mechanism",
    "NOTIONS",
    "NOTION_AUDITED",
    "PlantedBug",
    "detection_rate",
    "notion_curve",
    "fixed_event_refutation_probability",
    "release_delta",
    "release_epsilon",
]

#: the bugs caught by their papers' tests (kind PaperTestBug) that are not in a room's own table: Lowy &
#: Razaviyayn's (``mutants.lr21.corpus``), then the memorisation bug shared by both papers' entries, then both
#: papers' σ/√2 copies (``mutants.glm_noise_corpus``)
PAPER_TEST_BUGS: dict[str, PaperTestBug] = dict(LR21_BUGS)
# the memorisation bug (mutants.utility.release_last_record) as run by each paper's entries
_LAST_RECORD_TEST = "tests/test_common_catches.py::test_stability_check_refutes_the_released_last_record"
PAPER_TEST_BUGS.update({b.name: b for b in [
    PaperTestBug(
        f"{paper}_releases_last_record", mutant, correct, paper,
        "a leftover debug line releases the last training record, M·x_n/‖x_n‖, instead of the algorithm's output",
        "memorisation: a release that is a function of one record (not private, not uniformly stable)",
        "the campaign's stability check (campaign.phases) on the Fair data: coupled runs on the neighbour that "
        "replaces x_n by its antipode, probes at the domain's extremes and at both records (quick budget)",
        "ε = ∞ (the release determines x_n's direction); on that pair the outputs are ±M·u, so the loss at the "
        "probe (−u, −y_n) differs by M = 2 (logistic), against stability bounds ≤ 1.08",
        "the stability check (both orders of each pair) fails with p ≤ 1e-280 on every " + paper + " entry"
        + (" but A_ProxGD (its bound 18.8 exceeds any loss difference)" if paper == "bftt19" else ""),
        (_LAST_RECORD_TEST,))
    for paper, mutant, correct in (("bftt19", mu.bftt19_releases_last_record, o.noisy_sgd),
                                   ("lr21", mlr.lr21_releases_last_record, lr.algorithm_1))]})
PAPER_TEST_BUGS.update(GLM_NOISE_BUGS)  # Bassily et al.'s and Lowy & Razaviyayn's σ/√2 copies: their harnesses' tests
#: every planted bug, by name: Bassily et al.'s canary-audited ones, then those the papers' tests catch (Lowy &
#: Razaviyayn's and the shared ones above, Asi, Liu & Tian's, Menart et al.'s, Asi, Chadha, Cheng & Duchi's)
CORPUS: dict[str, PlantedBug | PaperTestBug] = {**BFTT19_BUGS, **PAPER_TEST_BUGS, **ALT24_BUGS, **MUABG23_BUGS,
                                               **ACCD22_BUGS}


# ---- detection rates ------------------------------------------------------------------------------------

#: every entry ``detection_rate`` audits: the canary-audited corpus entries, then the μ-GDP / ρ-zCDP entries of
#: ``mutants.notions`` (kept outside :data:`CORPUS` until a catalogue entry runs their mechanisms)
AUDITED: dict[str, PlantedBug] = {**CANARY_AUDITED, **NOTION_AUDITED}
#: the notions ``detection_rate`` audits under, and the lower bound each reports
NOTIONS: tuple[str, ...] = ("approx", "curve", "gdp", "zcdp")
NOTION_PARAMETER = {"approx": "epsilon", "curve": "epsilon", "gdp": "mu", "zcdp": "rho"}


@dataclass(frozen=True)
class DetectionRate:
    """Refutations among ``audits`` independent audits, with a two-sided Clopper–Pearson interval.

    ``epsilon_lower_median``: the median ε_lb at the claim's δ ("approx", "curve"; nan otherwise);
    ``lower_median``: the median lower bound of the notion's ``parameter`` (ε, μ or ρ)."""

    name: str
    which: str
    refuted: int
    audits: int
    samples: int
    confidence: float
    interval_level: float
    lower: float
    upper: float
    epsilon_lower_median: float
    seconds: float
    notion: str = "approx"
    parameter: str = "epsilon"
    lower_median: float = math.nan

    @property
    def rate(self) -> float:
        return self.refuted / self.audits


def notion_curve(claim: Any, notion: str, name: str = "") -> CurveClaim | None:
    """The curve ``detection_rate`` audits ``claim`` against under ``notion``: None for "approx" (the (ε, δ)
    threshold audit), the claim's dp_accounting event for "curve", its μ-GDP / ρ-zCDP curve for "gdp" /
    "zcdp".  ValueError naming ``notion`` when the claim has no such curve (no event; another notion)."""
    if notion not in NOTIONS:
        raise ValueError(f"notion must be one of {NOTIONS}, got {notion!r}")
    label = f"the claim of {name!r}" if name else "the claim"
    if notion == "approx":
        return None
    if notion == "curve":
        if claim.event is None:
            raise ValueError(f"notion='curve' needs a faithful privacy curve, but {label} ({claim.source}) carries no "
                             "dp_accounting event; audit it with notion='approx'")
        return CurveClaim.from_privacy_claim(claim, use_event=True)
    wanted = {"gdp": ("GDP", claim.mu), "zcdp": ("zCDP", claim.rho)}[notion]
    if claim.notion != wanted[0] or wanted[1] is None:
        raise ValueError(f"notion={notion!r} audits {wanted[0]} claims, but {label} is {claim.notion} "
                         f"({claim.source}); use notion='approx' or 'curve'")
    return CurveClaim.from_privacy_claim(claim)


def detection_rate(name: str, audits: int = 100, samples: int | None = None, seed: int = 20240603, *,
                   which: str = "mutant", confidence: float = DEFAULT_CONFIDENCE,
                   interval_level: float = 0.95, notion: str = "approx") -> DetectionRate:
    """Fraction of ``audits`` independent audits of ``name``'s mutant (or its correct counterpart,
    ``which="correct"``) that refute the claim, on the entry's pair, at ``samples`` runs per side (default:
    the entry's budget, ``PlantedBug.samples``).  ``name`` must be audited here (:data:`AUDITED`: the
    canary-audited corpus entries and ``mutants.notions.NOTION_AUDITED``; ValueError otherwise).

    ``notion`` (:data:`NOTIONS`) chooses the audit: "approx" (default), the (ε, δ) threshold audit
    ``dpsco.verification.auditing.audit.audit`` with the entry's ``audit_kwargs``; otherwise the curve audit
    ``dpsco.verification.auditing.curve_audit.audit_curve`` (the entry's ``statistic`` if any, no power figure)
    against the claim's dp_accounting event ("curve"), or its μ-GDP ("gdp") or ρ-zCDP ("zcdp") curve
    (:func:`notion_curve`; ValueError naming ``notion`` where the claim has none).  The lower bound reported
    (``lower_median``): ε_lb at the claim's δ ("approx"; "curve": from the curve audit's box,
    ``epsilon_lower_from_box``), μ_lb ("gdp"), ρ_lb ("zcdp").

    Audit i uses ``np.random.default_rng(SeedSequence(seed).spawn(audits)[i])``; the mutant and the correct
    algorithm use different children (spawned from ``SeedSequence(seed, spawn_key=(0|1,))``), the same for
    every notion.  The interval is the two-sided Clopper–Pearson interval at ``interval_level`` for the
    per-audit refutation probability.
    """
    import time

    if notion not in NOTIONS:
        raise ValueError(f"notion must be one of {NOTIONS}, got {notion!r}")
    if name not in AUDITED:
        raise ValueError(f"{name!r} is not audited by the corpus (detection rates exist for {list(AUDITED)}); "
                         + ("its paper's tests catch it: " + ", ".join(CORPUS[name].tests) if name in CORPUS
                            else "no such planted bug"))
    bug = AUDITED[name]
    samples = bug.samples if samples is None else int(samples)
    t0 = time.perf_counter()
    ds, nb = bug.pair()
    mech = bug.mechanism(which)
    claim = mech.claim(ds)
    curve = notion_curve(claim, notion, name)
    curve_kwargs = {k: v for k, v in bug.audit_kwargs.items() if k == "statistic"}
    root = np.random.SeedSequence(seed, spawn_key=(0 if which == "mutant" else 1,))
    refuted, lbs, eps_lbs = 0, [], []
    for child in root.spawn(audits):
        if curve is None:
            res = audit(mech, ds, nb, claim, samples, np.random.default_rng(child), confidence=confidence,
                        **dict(bug.audit_kwargs))
            eps_lb = lb = res.epsilon_lower
        else:
            cres = audit_curve(mech, ds, nb, curve, samples, np.random.default_rng(child), confidence=confidence,
                               power=False, rho_bound=notion == "zcdp", **curve_kwargs)
            res = cres  # type: ignore[assignment]
            eps_lb = (epsilon_lower_from_box(cres.details["p_lower"], cres.details["q_upper"], claim.delta)
                      if notion == "curve" else math.nan)
            lb = {"curve": eps_lb, "gdp": cres.mu_lower, "zcdp": cres.rho_lower}[notion]
        refuted += res.verdict == "refuted"
        lbs.append(lb)
        eps_lbs.append(eps_lb)
    a = (1.0 - interval_level) / 2.0
    return DetectionRate(name, which, refuted, audits, samples, confidence, interval_level,
                         float(clopper_pearson_lower(refuted, audits, a)), float(clopper_pearson_upper(refuted, audits, a)),
                         float(np.median(eps_lbs)), time.perf_counter() - t0, notion, NOTION_PARAMETER[notion],
                         float(np.median(lbs)))

