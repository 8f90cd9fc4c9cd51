"""The catalogue: every implemented algorithm, tied to its paper, Algorithm number and theorems.

Each paper declares its entries in its own room of this package (``bftt19/catalogue.py``, ``lr21/…``,
``alt24/…``, ``muabg23/…``, ``accd22/…``; :data:`PAPERS`); this module registers them in the catalogue's fixed order (Bassily et al., then Lowy &
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

import importlib
from typing import Any

from dpsco.verification.papers.registry import (BUDGET_NAMES, BudgetCost, CatalogueEntry, EntrySuite,
                                                ExtraCheckInputs, ExtraChecks, PublicInputs, Registry, SuiteInputs,
                                                SuiteTask, extra_check_labels, get_entry, list_entries, register,
                                                run_outputs)

__all__ = ["BUDGET_NAMES", "CATALOGUE", "PAPERS", "build_catalogue", "paper_entries", "room_attribute", "BudgetCost",
           "CatalogueEntry", "EntrySuite", "ExtraCheckInputs",
           "ExtraChecks", "PublicInputs", "Registry", "SuiteInputs", "SuiteTask", "extra_check_labels", "get_entry",
           "list_entries", "register", "run_outputs"]

#: the papers, in the catalogue's order (Bassily et al., Lowy & Razaviyayn, Asi, Liu & Tian, Menart et al., Asi,
#: Chadha, Cheng & Duchi): each is a room ``dpsco.verification.papers.<paper>`` whose ``catalogue`` module declares
#: its ``ENTRIES``.  A new paper adds its name here — the one shared line — and the registry finds the rest
PAPERS: tuple[str, ...] = ("bftt19", "lr21", "alt24", "muabg23", "accd22")


def room_attribute(module: str, attribute: str, papers: tuple[str, ...] = PAPERS) -> dict[str, Any]:
    """The union of ``dpsco.verification.papers.<paper>.<module>.<attribute>`` (a dict by entry name) over the rooms
    of ``papers``, each imported when asked for; a room without the module is left out (a missing import *inside*
    it still raises).  The registry's way of finding each room's harnesses and compare signatures."""

    out: dict[str, Any] = {}
    for paper in papers:
        name = f"dpsco.verification.papers.{paper}.{module}"
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        out.update(getattr(mod, attribute))
    return out


def paper_entries(paper: str, package: str = "dpsco.verification.papers") -> tuple[CatalogueEntry, ...]:
    """The ``ENTRIES`` of ``<package>.<paper>.catalogue`` (a paper's room).  ImportError if the room has no
    catalogue module; TypeError if its ENTRIES is not a tuple of CatalogueEntry."""
    entries = importlib.import_module(f"{package}.{paper}.catalogue").ENTRIES
    if not isinstance(entries, tuple) or not all(isinstance(e, CatalogueEntry) for e in entries):
        raise TypeError(f"{package}.{paper}.catalogue.ENTRIES must be a tuple of CatalogueEntry")
    return entries


def build_catalogue(papers: tuple[str, ...] = PAPERS, registry: Registry | None = None,
                    package: str = "dpsco.verification.papers") -> tuple[CatalogueEntry, ...]:
    """Register every entry of ``papers`` (their rooms' ``catalogue.ENTRIES``, in that order) in ``registry``
    (default: the catalogue's own, :func:`register`) and return the registered entries.  This is all a new paper
    needs: its name in :data:`PAPERS` and a room with a ``catalogue`` module.  ValueError from the registry for a
    duplicate or malformed entry."""
    add = register if registry is None else registry.register
    for paper in papers:  # the catalogue's order
        for entry in paper_entries(paper, package):
            add(entry)
    return list_entries() if registry is None else registry.entries()


build_catalogue()

#: every registered entry, in the catalogue's order (a snapshot taken when the catalogue is assembled)
CATALOGUE: tuple[CatalogueEntry, ...] = list_entries()
