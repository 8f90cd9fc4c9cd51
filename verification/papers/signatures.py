"""The registry's compare signatures: what ``dpsco compare`` gives a candidate implementation of a catalogue entry,
the instance it runs on and what it compares.

Every catalogue entry that releases a private output declares a :class:`CompareSignature` in its paper's room
(``verification/papers/<paper>/compare_signatures.py``, a dict ``SIGNATURES`` keyed by entry name); the registry
finds them as it finds the entries (:func:`signature_registry`, :func:`compare_signature`).  Two calling
conventions exist:

``"logistic"`` (Bassily et al. 2019, Lowy & Razaviyayn 2021: the entries the campaign's common phases verify)
    ``f(X, y, problem, epsilon, delta, rng, **options)``: X (n, d), y (n,) ±1 labels, ``problem`` an
    :class:`dpsco.reference.problem.ERMProblem` (logistic loss, W = B(0, M), declared bounds), the privacy
    parameters the instance runs at, the entry's ``options`` BY NAME (e.g. ``mu=0.1, method="agd"`` for
    ``lr21.alg1``), ``rng`` a numpy Generator.  Instances: the Fair data (``fair``) or the D1 logistic sample
    (``synthetic``).

``"harness"`` (Asi, Liu & Tian 2024; Menart et al. 2023; Asi, Chadha, Cheng & Duchi 2022: entries verified by their
    own suites)
    the candidate is a drop-in replacement of the reference function (``reference``): it receives exactly the
    arguments the entry's privacy harness (``verification/papers/<paper>/harness.py``) passes to the reference,
    by the reference's parameter names (``inputs``: data, loss or oracle, privacy parameters, the entry's
    options, ``rng``) on the harness's instance (its benign records: heavy-tailed / KL / interpolation samples at
    fixed small public inputs) and returns a :class:`dpsco.reference.privacy.Release`.  The privacy family runs
    on the suite's worst-case pair where the room exposes it (``worst_pair``).

``compared`` names the fields of ``Release.to_dict()`` that form the outcome compared by the two-sample tests
(``("output",)``, or ``("output", "halted")`` where the paper releases ⊥).
"""

from __future__ import annotations

import copy
import functools
import importlib
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

__all__ = ["CALLING", "INPUT_ROLES", "CompareSignature", "compare_signature", "describe_object", "harness_call",
           "harness_inputs", "harness_signature", "logistic_signature", "object_conventions", "resolved_parameters",
           "signature_registry"]

#: the calling conventions (module docstring)
CALLING: tuple[str, ...] = ("logistic", "harness")
#: what each declared input is
INPUT_ROLES: tuple[str, ...] = ("data", "loss", "domain", "privacy", "option", "public", "rng")


@dataclass(frozen=True)
class CompareSignature:
    """How ``dpsco compare`` calls a candidate for ``entry`` (module docstring).

    entry : str                    catalogue name
    calling : "logistic" | "harness"
    reference : str                the dotted name of the reference function the candidate stands for
    inputs : ((name, role), ...)   the candidate's parameters, in call order, role in :data:`INPUT_ROLES`
    instance : str                 the instance it runs on (data, public inputs)
    compared : tuple of str        the fields of the release compared (the outcome)
    bottom : str                   "" or what ⊥ is and how it is compared
    phases : str                   "" or the phase outputs the paper releases and how they are compared
    options : {name: value}        the entry's options, passed BY NAME (logistic convention; in the harness
                                   convention they are among ``inputs``, with the harness's values)
    worst_pair : () -> (D, D′) or None   the suite's worst-case replace-one pair of records (harness convention);
                                   None: the privacy family uses the harness's records with record 0 replaced by
                                   a fresh benign record (stated in the result)
    utility : str                  what the utility family measures (and against which bound)
    utility_measure : UtilityMeasure or None   family (b) of the harness convention: the excess of one outcome on
                                   the harness's objective and the paper's bound where one exists
                                   (:mod:`dpsco.verification.papers.compare_utility`; the room's
                                   ``compare_utility.UTILITY``)
    comparable : bool              False only for entries that release no private output
    reason : str                   why an entry is not comparable
    """

    entry: str
    calling: str
    reference: str
    inputs: tuple[tuple[str, str], ...]
    instance: str
    compared: tuple[str, ...] = ("output",)
    bottom: str = ""
    phases: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)
    worst_pair: Callable[[], tuple[Any, Any]] | None = None
    utility: str = ""
    utility_measure: Any = None
    comparable: bool = True
    reason: str = ""

    def __post_init__(self) -> None:
        if self.calling not in CALLING:
            raise ValueError(f"{self.entry}: calling must be one of {CALLING}, got {self.calling!r}")
        bad = [(n, r) for n, r in self.inputs if r not in INPUT_ROLES]
        if bad:
            raise ValueError(f"{self.entry}: unknown input roles {bad}; known {INPUT_ROLES}")
        if not self.compared or "output" not in self.compared:
            raise ValueError(f"{self.entry}: compared must include 'output', got {self.compared!r}")
        if not self.comparable and not self.reason:
            raise ValueError(f"{self.entry}: a non-comparable entry must say why (reason)")

    @property
    def input_names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.inputs)

    def reference_function(self) -> Callable[..., Any]:
        """The reference function (imported from ``reference``)."""
        module, _, name = self.reference.rpartition(".")
        return getattr(importlib.import_module(module), name)

    def to_dict(self) -> dict[str, Any]:
        return {"entry": self.entry, "calling": self.calling, "reference": self.reference,
                "inputs": [{"name": n, "role": r} for n, r in self.inputs], "instance": self.instance,
                "compared": list(self.compared), "bottom": self.bottom, "phases": self.phases,
                "options": dict(self.options), "worst_pair": self.worst_pair is not None, "utility": self.utility,
                "utility_measure": None if self.utility_measure is None else self.utility_measure.to_dict(),
                "comparable": self.comparable, "reason": self.reason,
                **({"resolved_parameters": resolved_parameters(self.entry), "objects": object_conventions(self.entry)}
                   if self.calling == "harness" and self.comparable else {})}

    def to_text(self, recorded: Mapping[str, str] | None = None) -> str:
        """A readable account (``dpsco compare --against ENTRY --show-signature``); ``recorded`` adds the
        values of one recorded call (name -> short text)."""
        lines = [f"compare signature of {self.entry}" + ("" if self.comparable else f" (NOT comparable: {self.reason})")]
        if self.calling == "logistic":
            opts = "".join(f", {k}={v!r}" for k, v in self.options.items())
            lines.append(f"  call: f(X, y, problem, epsilon, delta, rng{opts}) -> Release | (d,) array")
        else:
            names = ", ".join(self.input_names)
            lines.append(f"  call: f({names}) -> Release   (a drop-in for {self.reference})")
        lines.append(f"  stands for: {self.reference}")
        lines.append("  public inputs the candidate receives:")
        for n, r in self.inputs:
            value = "" if recorded is None or n not in recorded else f" = {recorded[n]}"
            lines.append(f"    {n:<14} {r}{value}")
        if self.calling == "logistic" and self.options:
            lines.append("  the entry's options, by name: " + ", ".join(f"{k}={v!r}" for k, v in self.options.items()))
        if self.calling == "harness" and self.comparable:
            objects = object_conventions(self.entry)
            if objects:
                lines.append("  objects the candidate receives (calling conventions, from their docstrings):")
                for n, text in objects.items():
                    lines.append(f"    {n}: " + text.replace("\n", "\n      "))
        lines.append(f"  instance: {self.instance}")
        if self.calling == "harness" and self.comparable:
            lines.append("  resolved at the harness instance (the reference release's public parameters, "
                         "dpsco.testing.harness_instance gives the inputs):")
            for k, v in resolved_parameters(self.entry).items():
                lines.append(f"    {k} = {_brief(v)}")
        lines.append(f"  compared: {', '.join(self.compared)}")
        if self.bottom:
            lines.append(f"  ⊥: {self.bottom}")
        if self.phases:
            lines.append(f"  phases: {self.phases}")
        if self.utility_measure is not None:
            lines.append(f"  utility: {self.utility_measure.to_text()}")
        elif self.utility:
            lines.append(f"  utility: {self.utility}")
        lines.append("  privacy pair: " + ("the suite's worst-case pair" if self.worst_pair is not None else
                                           ("the instance and its replace-one extreme neighbour"
                                            if self.calling == "logistic" else
                                            "the harness records with record 0 replaced by a fresh benign record "
                                            "(no worst pair exposed by the room); the claim is also checked against "
                                            "the exact privacy of the paper's mechanism on the worst pair")))
        return "\n".join(lines)


def harness_inputs(fn: Callable[..., Any], roles: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """``((name, role), ...)`` in the order of ``fn``'s parameters, for the names in ``roles`` (a helper for the
    rooms' declarations; ValueError for a name ``fn`` does not take)."""
    params = list(inspect.signature(fn).parameters)
    unknown = [n for n in roles if n not in params]
    if unknown:
        raise ValueError(f"{fn.__name__} takes no parameters {unknown}")
    return tuple((n, roles[n]) for n in params if n in roles)


LOGISTIC_UTILITY = ("excess empirical risk L̂(w) − min_W L̂ (certified oracle; the entry's own objective — ridge, tilted, "
                    "robust, adversarial — where it declares one) against the entry's bound, one-sided Hoeffding")
HARNESS_UTILITY = ("the excess of each outcome on the harness's own objective (the room's compare_utility.UTILITY): "
                   "one-sided two-sample KS (candidate not stochastically worse than the reference), and the paper's "
                   "bound at the harness's inputs where one is declared")


def logistic_signature(entry: Any) -> CompareSignature:
    """The signature of a catalogue entry verified by the common phases (the logistic convention), with the
    entry's options by name."""
    fn = entry.run
    return CompareSignature(
        entry=entry.name, calling="logistic", reference=f"{fn.__module__}.{fn.__name__}",
        inputs=(("X", "data"), ("y", "data"), ("problem", "loss"), ("epsilon", "privacy"), ("delta", "privacy"),
                ("rng", "rng")) + tuple((k, "option") for k in entry.options),
        instance=("'fair' (default: the Fair 1978 survey, n = 6366, d = 9, logistic loss, W = B(0, 2), ε = 1, "
                  "δ = 1/n²) or 'synthetic' (n = 500 draws of the D1 logistic distribution, d = 3, W = B(0, 2), ε = 1, "
                  "δ = 1/n²)"),
        options=dict(entry.options), utility=LOGISTIC_UTILITY)


def harness_signature(entry: Any, roles: Mapping[str, str], instance: str, *, compared: tuple[str, ...] = ("output",),
                      bottom: str = "", phases: str = "", worst_pair: Callable[[], tuple[Any, Any]] | None = None,
                      comparable: bool = True, reason: str = "", utility: str = HARNESS_UTILITY,
                      utility_measure: Any = None) -> CompareSignature:
    """The signature of a suite entry (the harness convention): ``roles`` maps each parameter the harness passes to
    the reference function ``entry.run`` to its role (declared in the room; ``tests/test_compare_signatures.py``
    checks it against a recorded harness call)."""
    fn = entry.run
    return CompareSignature(entry=entry.name, calling="harness", reference=f"{fn.__module__}.{fn.__name__}",
                            inputs=harness_inputs(fn, roles), instance=instance, compared=compared, bottom=bottom,
                            phases=phases, worst_pair=worst_pair, utility=utility, utility_measure=utility_measure,
                            comparable=comparable, reason=reason)


def signature_registry() -> dict[str, CompareSignature]:
    """Every paper's compare signatures by entry name: each room's ``compare_signatures.SIGNATURES`` (the papers
    of ``catalogue.PAPERS``), imported lazily.  A room without the module is left out (``tests/test_compare_
    signatures.py`` fails on its private entries)."""
    from dpsco.verification.papers.catalogue import room_attribute

    return room_attribute("compare_signatures", "SIGNATURES")


def compare_signature(name: str) -> CompareSignature:
    """The declared signature of the entry ``name``; ValueError naming the known ones if none is declared."""
    sigs = signature_registry()
    try:
        return sigs[name]
    except KeyError:
        raise ValueError(f"no compare signature for {name!r}; declared: {sorted(sigs)}") from None


# ---- what the harness passes, and what the reference resolves from it (dpsco compare --show-signature) ----------

def _brief(value: Any, limit: int = 240) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _first_paragraph(obj: Any, limit: int = 600) -> str:
    doc = inspect.getdoc(obj) or ""
    text = " ".join(doc.split("\n\n")[0].split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def describe_object(value: Any) -> str:
    """The calling convention of an object the harness passes (a loss, a subgradient oracle, a domain, moment
    bounds): a function's signature and the first paragraph of its docstring; an object's class, the first
    paragraph of the class docstring and each public method's signature with the first paragraph of its
    docstring.  Text, several lines."""
    if inspect.isfunction(value) or inspect.isbuiltin(value):
        try:
            sig = str(inspect.signature(value))
        except (TypeError, ValueError):
            sig = "(...)"
        return f"function {value.__name__}{sig}: {_first_paragraph(value)}"
    cls = type(value)
    lines = [f"{cls.__name__} ({cls.__module__}): {_first_paragraph(cls)}"]
    for name in sorted(n for n in dir(cls) if not n.startswith("_")):
        member = getattr(cls, name, None)
        if not callable(member) or name == "to_dict":
            continue
        try:
            sig = str(inspect.signature(getattr(value, name)))
        except (TypeError, ValueError):
            sig = "(...)"
        doc = _first_paragraph(member, 300)
        lines.append(f".{name}{sig}" + (f": {doc}" if doc else ""))
    return "\n".join(lines)


def harness_call(signature: CompareSignature, records: Any, rng: Any) -> tuple[dict[str, Any], Any]:
    """One run of the entry's harness on ``records`` with ``rng`` (a numpy Generator), the reference function
    behind a pass-through recorder: returns (the arguments of the harness's first call of the reference, by the
    reference's parameter names — arrays copied, a Generator copied in its state at the call, other objects as
    passed — and the reference's Release).  What a candidate receives in the same run."""
    from dpsco.verification.papers.harness import harness_registry

    harness = harness_registry()[signature.entry]
    fn = signature.reference_function()
    ref = inspect.signature(fn)
    calls: list[dict[str, Any]] = []

    def recorder(*args: Any, **kwargs: Any) -> Any:
        if not calls:
            bound = ref.bind(*args, **kwargs)
            calls.append({k: copy.deepcopy(v) if type(v).__name__ in ("ndarray", "Generator") else v
                          for k, v in bound.arguments.items()})
        return fn(*args, **kwargs)

    release = harness.run(records, rng, algorithm=recorder)
    if not calls:
        raise RuntimeError(f"{signature.entry}: the harness never called the reference function")
    return calls[0], release


@functools.lru_cache(maxsize=None)
def _reference_run(entry: str) -> tuple[dict[str, Any], Any]:
    import numpy as np

    from dpsco.verification.papers.harness import harness_registry

    rng = np.random.default_rng(0)
    return harness_call(compare_signature(entry), harness_registry()[entry].records(rng), rng)


def resolved_parameters(entry: Any) -> dict[str, Any]:
    """The public parameters the reference derives at the harness instance (harness convention): the reference
    release's ``parameters`` (public by the house rule: functions of the public inputs only — e.g. T₅, n₀, β of
    accd22's Algorithm 1) from one run on the harness's records (seed 0), as JSON-ready values.  ``entry``: a
    name, CatalogueEntry or CompareSignature.  ValueError for an entry without a harness-convention signature."""
    from dpsco.reference.privacy import to_jsonable

    name = getattr(entry, "entry", None) or getattr(entry, "name", None) or entry
    sig = compare_signature(str(name))
    if sig.calling != "harness" or not sig.comparable:
        raise ValueError(f"{name!r} has no harness-convention compare signature (calling {sig.calling!r})")
    return dict(to_jsonable(dict(_reference_run(sig.entry)[1].parameters)))


def object_conventions(entry: Any) -> dict[str, str]:
    """For each argument of the harness call that is neither an array, a number, a string nor a Generator (the
    loss, subgradient oracle, domain, moment bounds …): its calling convention (:func:`describe_object`)."""
    name = getattr(entry, "entry", None) or getattr(entry, "name", None) or entry
    args, _ = _reference_run(str(name))
    plain = (int, float, str, bool, type(None), list, tuple, dict)
    return {k: describe_object(v) for k, v in args.items()
            if not isinstance(v, plain) and type(v).__name__ not in ("ndarray", "Generator")
            and not type(v).__module__.startswith("numpy")}
