"""No name of one paper re-exported flat where another paper has the same name (issue 26, "Names").

``accd22.algorithm_2`` and ``lr21.algorithm_2`` (or ``alt24.LinearLoss`` and ``muabg23.LinearLoss``, or
``bftt19.theorem_3_2_bound`` and ``lr21.theorem_3_2_bound``) are fine through their paper namespaces; a flat
namespace (``dpsco``, ``dpsco.reference``, any module or package outside the rooms) must not re-export one of them,
since the flat name would then stand for one paper's object while reading like the other's.  Deterministic: it
imports every module of the package once and reads the names (no sampling).
"""

from __future__ import annotations

import importlib
import pkgutil
import types
from typing import Iterable, Mapping

import dpsco
import dpsco.oracles
import dpsco.reference
import dpsco.verification

PAPERS = ("bftt19", "lr21", "alt24", "muabg23", "accd22")


def room(module: str) -> str | None:
    """The paper whose room holds the dotted module name (``dpsco.reference.lr21.algorithms`` -> lr21), or None."""
    parts = module.split(".")
    return next((p for p in PAPERS if p in parts[1:4]), None)


def public_names(module: types.ModuleType) -> list[str]:
    """The module's ``__all__``, or its names without a leading underscore (modules themselves excluded)."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, v in vars(module).items() if not n.startswith("_") and not isinstance(v, types.ModuleType)]
    return list(names)


def _modules() -> dict[str, types.ModuleType]:
    out: dict[str, types.ModuleType] = {"dpsco": dpsco}
    for pkg in (dpsco.reference, dpsco.oracles, dpsco.verification):
        out[pkg.__name__] = pkg
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            out[info.name] = importlib.import_module(info.name)
    return out


def flat_clashes(namespaces: Mapping[str, types.ModuleType], room_names: Mapping[str, set[str]]) -> list[str]:
    """``"namespace.name (paper; also in other papers)"`` for every public name of a flat namespace whose object is
    defined in one paper's room while another paper's room has a public name spelled the same."""
    bad = []
    for ns, module in namespaces.items():
        for name in public_names(module):
            owner = room(getattr(getattr(module, name, None), "__module__", None) or "")
            if owner is None:
                continue
            others = [p for p in PAPERS if p != owner and name in room_names.get(p, set())]
            if others:
                bad.append(f"{ns}.{name} ({owner}; also in {', '.join(others)})")
    return bad


def _room_names(modules: Iterable[tuple[str, types.ModuleType]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {p: set() for p in PAPERS}
    for name, module in modules:
        if room(name) is not None:
            out[room(name)] |= set(public_names(module))
    return out


MODULES = _modules()
ROOM_NAMES = _room_names(MODULES.items())


def test_no_paper_name_re_exported_flat_where_another_paper_has_it() -> None:
    flat = {name: m for name, m in MODULES.items() if room(name) is None}
    assert {"dpsco", "dpsco.reference", "dpsco.oracles", "dpsco.verification"} <= set(flat)
    assert flat_clashes(flat, ROOM_NAMES) == []


def test_the_names_the_issue_names_are_reached_through_their_paper_namespaces() -> None:
    # the clashes exist between the rooms (which is fine) ...
    assert {"algorithm_2"} <= ROOM_NAMES["accd22"] & ROOM_NAMES["lr21"]
    assert {"LinearLoss"} <= ROOM_NAMES["alt24"] & ROOM_NAMES["muabg23"]
    assert {"theorem_3_2_bound"} <= ROOM_NAMES["bftt19"] & ROOM_NAMES["lr21"]
    # ... and dpsco's own LinearLoss is the shared one, not a paper's
    assert room(dpsco.LinearLoss.__module__) is None and dpsco.lr21.algorithm_2 is not dpsco.accd22.algorithm_2


def test_a_planted_flat_re_export_fails() -> None:
    """The check fails on a flat namespace that re-exports lr21's algorithm_2 (accd22 has one too)."""
    import dpsco.reference.lr21 as lr21

    planted = types.ModuleType("dpsco.reference.planted")
    planted.__all__ = ["algorithm_2", "Ball"]
    planted.algorithm_2 = lr21.algorithm_2
    planted.Ball = dpsco.Ball  # a shared object: not a clash
    assert flat_clashes({"dpsco.reference.planted": planted}, ROOM_NAMES) == [
        "dpsco.reference.planted.algorithm_2 (lr21; also in accd22)"]
