"""Catalogue entries of Menart, Ullah, Arora, Bassily & Guzmán (2023), "Differentially Private Non-Convex
Optimization under the KL Condition with Optimal Rates" (arXiv:2311.13447 v2), in the paper's order: Algorithm 1
(KL Spider), Algorithm 2 (the private proximal point method), Algorithm 4 (projected noisy gradient descent on
the regularised problem, Algorithm 2's inner solver), Algorithm 3 (adaptive noisy gradient descent under a
privacy filter) and its Theorem 5 variant (output chosen by the exponential mechanism).

Non-convex ERM under the (γ, κ)-KL condition with ρ-zCDP claims does not fit the campaign's common phases, so
every entry brings its own suite (``CatalogueEntry.suite``): the exact ρ of the mechanism as implemented on the
worst-case replace-one pair against the claim, with the releases counted from the run's white-box transcript and
the σ's recomputed from public inputs by the theorems' formulas (the exact calibration is the default; the
paper's printed accounting, which charges each Gaussian release half its replace-one cost, is reachable and
refuted where it undercounts), the noise actually drawn (``muabg23_noise``: replayed from the transcript,
one-sided χ²), audits, and the theorems' bounds at every point of a grid in n with the slope reported.  The
privacy harnesses of the five entries are in ``muabg23_harness``.  The
suites live beside their pieces: ``muabg23_spider`` (Algorithm 1), ``muabg23_proximal`` (Algorithms 2 and 4)
and ``muabg23_adaptive`` (Algorithm 3, Theorem 5).
"""

from __future__ import annotations

from dpsco.verification.papers.muabg23 import adaptive as muabg23_adaptive

from dpsco.verification.papers.muabg23 import proximal as muabg23_proximal

from dpsco.verification.papers.muabg23 import spider as muabg23_spider
from dpsco.verification.papers.registry import CatalogueEntry

__all__ = ["ENTRIES", "ORDER"]

#: the catalogue's order of the paper's entries (the order of the paper's sections and appendices)
ORDER: tuple[str, ...] = ("muabg23.kl_spider", "muabg23.proximal_point", "muabg23.noisy_gd", "muabg23.adaptive_gd",
                          "muabg23.adaptive_gd_em")

_BY_NAME = {e.name: e for m in (muabg23_spider, muabg23_proximal, muabg23_adaptive) for e in m.ENTRIES}
assert set(_BY_NAME) == set(ORDER), sorted(set(_BY_NAME) ^ set(ORDER))

ENTRIES: tuple[CatalogueEntry, ...] = tuple(_BY_NAME[name] for name in ORDER)
