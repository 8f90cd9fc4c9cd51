"""Catalogue entries of Asi, Liu & Tian (2024), "Private Stochastic Convex Optimization with Heavy Tails:
Near-Optimality from Simple Reductions", in the paper's order: Algorithm 1 (Clipped-DP-SGD), Algorithm 3
(Aggregate-ERM, the Corollary 2 solver on J blocks), the Theorem 1 pipeline (Algorithm 2 with Algorithm 3),
its μ-strongly convex wrapper (Corollary 3), Algorithm 4 (KnownLipReduction with a concrete A_Lip), Algorithm 5
(OnePass-Clipped-SGD), the bounded Laplace mechanism (Lemma 9), Algorithm 6 (SVT with bounded Laplace noise),
Algorithm 7 (Localized-Clipped-DP-SGD), Algorithm 8 (OnePass-Clipped-DP-SGD for GLMs) and the Appendix A
non-private high-probability procedure.

The paper's setting — unknown, heavy-tailed sample Lipschitz constants with k bounded moments, ρ-zCDP claims,
replace-one neighbours — does not fit the campaign's common phases (bounded records of the Fair data, logistic
loss, (ε, δ) claims), so every entry brings its own suite (``CatalogueEntry.suite``): exact privacy checks on
the worst-case replace-one pair, audits (white-box for the noisy gradients, black-box with ⊥ as an outcome for
Algorithm 7), the theorems' bounds with their explicit (or derived) constants, rates at every grid point and
gradient counts, on synthetic heavy-tailed instances with exact moments and on statsmodels' ``randhie``.  The
suites live beside their algorithms' pieces: ``alt24_localization`` (Algorithms 1–3, Theorem 1, Corollary 3,
Appendix A), ``alt24_known_lip`` (Algorithms 4, 5, 8), ``alt24_svt`` (Lemma 9, Algorithm 6) and
``alt24_localized`` (Algorithm 7).
"""

from __future__ import annotations

from dpsco.verification.papers.alt24 import known_lip as alt24_known_lip

from dpsco.verification.papers.alt24 import localization as alt24_localization

from dpsco.verification.papers.alt24 import localized as alt24_localized

from dpsco.verification.papers.alt24 import svt as alt24_svt
from dpsco.verification.papers.registry import CatalogueEntry

__all__ = ["ENTRIES", "ORDER"]

#: the catalogue's order of the paper's entries (the order of the paper's sections)
ORDER: tuple[str, ...] = (
    "alt24.clipped_dp_sgd", "alt24.aggregate_erm", "alt24.ht_sco", "alt24.sc_wrapper", "alt24.known_lip",
    "alt24.onepass_sgd", "alt24.blap", "alt24.svt", "alt24.localized_dp_sgd", "alt24.onepass_dp_sgd_glm",
    "alt24.highprob_sco",
)

_BY_NAME = {e.name: e for m in (alt24_localization, alt24_known_lip, alt24_svt, alt24_localized) for e in m.ENTRIES}
assert set(_BY_NAME) == set(ORDER), sorted(set(_BY_NAME) ^ set(ORDER))

ENTRIES: tuple[CatalogueEntry, ...] = tuple(_BY_NAME[name] for name in ORDER)
