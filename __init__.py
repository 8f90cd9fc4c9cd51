"""dpsco: a reference implementation of differentially private stochastic convex optimisation (DP-SCO) and
private ERM, with certified oracles, empirical privacy auditors and statistical checks of the papers' claims.

Subpackages:

``dpsco.reference``     the papers' algorithms, one subpackage per paper (also ``dpsco.accd22``,
                        ``dpsco.alt24``, ``dpsco.bftt19``, ``dpsco.lr21``, ``dpsco.muabg23``), on a shared
                        problem model (losses, domains, noise, privacy claims, certificates and solvers);
``dpsco.oracles``       certified exact answers: minimisers, population risks, privacy curves;
``dpsco.verification``  auditors, statistical checks, the catalogue of the papers' algorithms, the campaign
                        runner (``dpsco verify``) and the command line.

The names listed below (``dpsco.__all__``) are the public API; they are imported on first use, so
``import dpsco`` stays cheap.  Documentation: docs/index.md in the repository.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> (module, attribute); attribute None means the module itself
_PUBLIC = {  # dict[str, tuple[str, str | None]]
    # the algorithms, by paper
    "accd22": ("dpsco.reference.accd22", None),
    "alt24": ("dpsco.reference.alt24", None),
    "bftt19": ("dpsco.reference.bftt19", None),
    "lr21": ("dpsco.reference.lr21", None),
    "muabg23": ("dpsco.reference.muabg23", None),
    # the problem model
    "Ball": ("dpsco.reference.domains", "Ball"),
    "DataBounds": ("dpsco.reference.problem", "DataBounds"),
    "ERMProblem": ("dpsco.reference.problem", "ERMProblem"),
    "get_loss": ("dpsco.reference.losses", "get_loss"),
    "GLMLoss": ("dpsco.reference.losses", "GLMLoss"),
    "LogisticLoss": ("dpsco.reference.losses", "LogisticLoss"),
    "SquaredLoss": ("dpsco.reference.losses", "SquaredLoss"),
    "HuberLoss": ("dpsco.reference.losses", "HuberLoss"),
    "HingeLoss": ("dpsco.reference.losses", "HingeLoss"),
    "AbsoluteLoss": ("dpsco.reference.losses", "AbsoluteLoss"),
    "LinearLoss": ("dpsco.reference.losses", "LinearLoss"),
    # releases and their privacy claims
    "Release": ("dpsco.reference.privacy", "Release"),
    "PrivacyClaim": ("dpsco.reference.privacy", "PrivacyClaim"),
    # the auditors
    "audit": ("dpsco.verification.auditing.audit", "audit"),
    "AuditResult": ("dpsco.verification.auditing.audit", "AuditResult"),
    "audit_family": ("dpsco.verification.auditing.estimators", "audit_family"),
    "audit_curve": ("dpsco.verification.auditing.curve_audit", "audit_curve"),
    "pair_search_audit": ("dpsco.verification.auditing.pair_search", "pair_search_audit"),
    "sequential_audit": ("dpsco.verification.auditing.sequential", "sequential_audit"),
    "white_box_audit": ("dpsco.verification.auditing.white_box", "white_box_audit"),
    "one_run_audit": ("dpsco.verification.auditing.one_run", "one_run_audit"),
    "plan": ("dpsco.verification.auditing.planning", "samples_needed"),
    # another implementation against a catalogued algorithm, and the built-in real data
    "compare": ("dpsco.verification.campaign.compare", "compare"),
    "load_fair": ("dpsco.verification.campaign.datasets", "load_fair"),
    # the certified oracle
    "certified_oracle": ("dpsco.oracles.minimizers", "certified_oracle"),
    "excess_empirical_risk": ("dpsco.oracles.minimizers", "excess_empirical_risk"),
    # the catalogue
    "catalogue": ("dpsco.verification.papers", "catalogue"),
    # checks for users' own test suites, and adapters for their libraries (docs/testing.md)
    "testing": ("dpsco.testing", None),
    "adapters": ("dpsco.adapters", None),
}

__all__ = sorted(_PUBLIC)


class _PaperAliases:
    """``import dpsco.lr21`` / ``from dpsco.accd22 import algorithm_1`` (and their submodules, ``dpsco.lr21.
    algorithms``): the paper namespaces are aliases of ``dpsco.reference.<paper>`` — the same module objects as
    ``from dpsco import lr21`` gives, never second copies.  A meta-path finder that answers only for
    ``dpsco.<paper>[.…]``; the target is imported on first use, so ``import dpsco`` stays cheap."""

    PAPERS = ("accd22", "alt24", "bftt19", "lr21", "muabg23")
    _specs: dict[str, Any] = {}

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        parts = fullname.split(".")
        if len(parts) < 2 or parts[0] != __name__ or parts[1] not in self.PAPERS:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, origin=f"alias of {__name__}.reference.{parts[1]}")

    def create_module(self, spec: Any) -> Any:
        module = importlib.import_module(spec.name.replace(f"{__name__}.", f"{__name__}.reference.", 1))
        self._specs[spec.name] = module.__spec__   # restored by exec_module (the import system sets __spec__)
        return module

    def exec_module(self, module: Any) -> None:
        module.__spec__ = self._specs.pop(module.__spec__.name)


if not any(type(f).__name__ == "_PaperAliases" for f in sys.meta_path):
    sys.meta_path.insert(0, _PaperAliases())


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _PUBLIC[name]
    except KeyError:
        raise AttributeError(f"module 'dpsco' has no attribute {name!r}") from None
    value = importlib.import_module(module)
    if attribute is not None:
        value = getattr(value, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    # the public names and the module's standard attributes only: help(dpsco) and tab completion list no
    # internals (the lazy-import machinery, typing helpers)
    standard = {"__doc__", "__file__", "__loader__", "__name__", "__package__", "__path__", "__spec__",
                "__version__"}
    return sorted((set(globals()) & standard) | set(__all__))


if TYPE_CHECKING:  # for type checkers and IDEs, which do not run __getattr__
    from dpsco import adapters, testing
    from dpsco.oracles.minimizers import certified_oracle, excess_empirical_risk
    from dpsco.reference import accd22, alt24, bftt19, lr21, muabg23
    from dpsco.reference.domains import Ball
    from dpsco.reference.losses import (AbsoluteLoss, GLMLoss, HingeLoss, HuberLoss, LinearLoss, LogisticLoss,
                                        SquaredLoss, get_loss)
    from dpsco.verification.auditing.one_run import one_run_audit
    from dpsco.verification.auditing.planning import samples_needed as plan
    from dpsco.verification.campaign.compare import compare
    from dpsco.verification.campaign.datasets import load_fair
    from dpsco.reference.privacy import PrivacyClaim, Release
    from dpsco.reference.problem import DataBounds, ERMProblem
    from dpsco.verification.auditing.audit import AuditResult, audit
    from dpsco.verification.auditing.curve_audit import audit_curve
    from dpsco.verification.auditing.estimators import audit_family
    from dpsco.verification.auditing.pair_search import pair_search_audit
    from dpsco.verification.auditing.sequential import sequential_audit
    from dpsco.verification.auditing.white_box import white_box_audit
    from dpsco.verification.papers import catalogue
