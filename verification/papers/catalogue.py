"""The catalogue: every implemented algorithm, tied to its paper, Algorithm number and theorems.

Each paper declares its entries in its own module of this package (``bftt19``, ``lr21``, ``alt24``,
``muabg23``, ``accd22``); this module registers them in the catalogue's fixed order (Bassily et al., then Lowy &
Razaviyayn, then Asi, Liu & Tian, then Menart et al., then Asi, Chadha, Cheng & Duchi; within a paper, its ``ENTRIES`` order) — ``dpsco verify`` spawns one random stream per entry in this order.  Each entry knows how
to run the algorithm (``run``), the theorem's bound on the *expected excess empirical* and *population* risk
at given public inputs (``empirical_bound``, ``population_bound``: functions of the release and a
:class:`PublicInputs`, computed by the theorem functions in ``dpsco.reference``), the paper's
gradient-evaluation claim (``paper_gradient_count``), its cost in each budget and its planted bugs
(:mod:`dpsco.verification.papers.registry`).  ``dpsco verify`` and the README's table are generated from
:data:`CATALOGUE`.

This module is the public ``dpsco.catalogue``.
"""

from __future__ import annotations

from dpsco.verification.papers import accd22, alt24, bftt19, lr21, muabg23
from dpsco.verification.papers.registry import (BUDGET_NAMES, BudgetCost, CatalogueEntry, EntrySuite,
                                                ExtraCheckInputs, ExtraChecks, PublicInputs, Registry, SuiteInputs,
                                                SuiteTask, extra_check_labels, get_entry, list_entries, register,
                                                run_outputs)

__all__ = ["BUDGET_NAMES", "CATALOGUE", "BudgetCost", "CatalogueEntry", "EntrySuite", "ExtraCheckInputs",
           "ExtraChecks", "PublicInputs", "Registry", "SuiteInputs", "SuiteTask", "extra_check_labels", "get_entry",
           "list_entries", "register", "run_outputs"]

for _entry in bftt19.ENTRIES + lr21.ENTRIES + alt24.ENTRIES + muabg23.ENTRIES + accd22.ENTRIES:  # the catalogue's order
    register(_entry)

#: every registered entry, in the catalogue's order (a snapshot taken when the catalogue is assembled)
CATALOGUE: tuple[CatalogueEntry, ...] = list_entries()
