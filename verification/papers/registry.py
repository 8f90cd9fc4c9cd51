"""The catalogue's registry: the entry type, the public inputs of the bounds, the cost of an entry in each
budget, and ``register`` / ``get_entry`` / ``list_entries``.

Each paper declares its algorithms in one module of this package (``papers/bftt19.py``, ``papers/lr21.py``):
a tuple ``ENTRIES`` of :class:`CatalogueEntry`, each carrying everything the campaign (``dpsco verify``) and
``dpsco compare`` need to know about it — how to run it, the theorems' bounds as functions of a
:class:`PublicInputs`, its cost in each budget (:class:`BudgetCost`), whether it offers a replicate axis,
whether its output is deterministic given the noise, any checks of its own (:class:`ExtraChecks`) and the
planted bugs of ``dpsco.verification.mutants.corpus`` that exercise its code.  ``papers/catalogue.py``
registers the papers' entries in a fixed order; the campaign only reads entries, it never branches on a name.

Adding an algorithm touches its paper's module (one more entry in ``ENTRIES``) and its planted bugs; adding a
paper adds one module here and one line to ``papers/catalogue.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping

import numpy as np

from dpsco.reference.privacy import Release
from dpsco.reference.problem import ERMProblem

from dpsco.verification.papers.objectives import ObjectiveSpec

__all__ = [
    "BUDGET_NAMES",
    "COMMON_CHECK_KEYS",
    "BudgetCost",
    "CatalogueEntry",
    "ExtraCheckInputs",
    "EntrySuite",
    "ExtraChecks",
    "PublicInputs",
    "REGISTRY",
    "Registry",
    "extra_check_labels",
    "get_entry",
    "list_entries",
    "register",
    "run_outputs",
    "SuiteInputs",
    "SuiteTask",
]

#: the campaign's budgets, smallest first; every entry declares its cost in each
BUDGET_NAMES: tuple[str, ...] = ("quick", "standard", "paper")
#: the checks the campaign runs for every entry (record keys); an entry's own checks add keys of their own
COMMON_CHECK_KEYS: tuple[str, ...] = ("empirical", "population", "rate", "stability")

RunFn = Callable[..., Release]


@dataclass(frozen=True)
class PublicInputs:
    """The public inputs at which a theorem's bound is evaluated (nothing here depends on the data's values).

    n : int                 number of samples the algorithm ran on
    d : int                 dimension
    epsilon, delta : float  privacy parameters the algorithm ran at
    L : float               Lipschitz constant of the loss the bound is stated for (of ℓ, or of the per-sample
                            loss f of the entry's objective)
    M : float               radius of the domain W = B(0, M)
    """

    n: int
    d: int
    epsilon: float
    delta: float
    L: float
    M: float


BoundFn = Callable[[Release, PublicInputs], float]
PrintedBoundFn = Callable[[Release, PublicInputs], tuple[str, float]]
StabilityFn = Callable[[Release, PublicInputs], tuple[float, float | None, str]]
CountFn = Callable[[Release, PublicInputs], tuple[float, str] | None]


def _count(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


@dataclass(frozen=True)
class BudgetCost:
    """The sample sizes of one entry in one budget.

    audit_runs : int ≥ 0        runs per side of the privacy audit on the real data; 0 skips the audit (the
                                entry's ``audit_note`` says why)
    replicates : int ≥ 1        runs of the excess-empirical-risk check on the real data
    rate_runs : int ≥ 2         runs per grid point of the rate check (and of the entry's own rate checks)
    stability_runs : int        coupled runs per neighbouring pair of the stability check, 1 ≤ · ≤ replicates
                                (costly algorithms get fewer)
    population_runs : int ≥ 1   fresh synthetic datasets of the population check (default: ``replicates``)
    white_box_runs : int ≥ 0    runs per side of the white-box audit (entries with ``white_box``; 0 skips it)

    Raises ValueError naming the field for a value out of range.
    """

    audit_runs: int
    replicates: int
    rate_runs: int
    stability_runs: int
    population_runs: int | None = None
    white_box_runs: int = 0

    def __post_init__(self) -> None:
        _count(self.audit_runs, "audit_runs", 0)
        _count(self.replicates, "replicates", 1)
        _count(self.rate_runs, "rate_runs", 2)
        _count(self.stability_runs, "stability_runs", 1)
        if self.stability_runs > self.replicates:
            raise ValueError(f"stability_runs ({self.stability_runs}) must not exceed replicates ({self.replicates})")
        if self.population_runs is None:
            object.__setattr__(self, "population_runs", self.replicates)
        _count(self.population_runs, "population_runs", 1)
        _count(self.white_box_runs, "white_box_runs", 0)


@dataclass(frozen=True)
class ExtraCheckInputs:
    """What an entry's own checks receive from the campaign.

    rate_grid : the budget's grid of n;  rate_runs : the entry's ``BudgetCost.rate_runs`` in this budget;
    seed : the rate check's ``SeedSequence``, after the rate check has spawned its children from it (spawn
    further children from it, in a fixed order).
    """

    rate_grid: tuple[int, ...]
    rate_runs: int
    seed: np.random.SeedSequence


@dataclass(frozen=True)
class ExtraChecks:
    """Checks an entry runs beyond the campaign's common ones (e.g. rate sweeps on hand-derived instances).

    labels : ((record key, report label), ...) in record order; the keys must not be common check keys.
    run : callable (ExtraCheckInputs) -> {record key: check}, each check a ``RateCheck`` of
        ``dpsco.verification.checks.theorem_checks`` (its verdict is set with the campaign's other checks, Holm).
    """

    labels: tuple[tuple[str, str], ...]
    run: Callable[[ExtraCheckInputs], dict[str, Any]]

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.labels)


@dataclass(frozen=True)
class SuiteInputs:
    """What one task of an entry's own suite receives from the campaign.

    budget : "quick" | "standard" | "paper"   the campaign's budget (the task chooses its sizes from it)
    seed : SeedSequence   this task's own stream (child ``task index`` of the entry's stream): spawn children
                          from it in a fixed order, so the task's numbers depend on nothing else
    confidence : float    per-audit confidence of the campaign's audits (``--confidence``)
    """

    budget: str
    seed: np.random.SeedSequence
    confidence: float


SuiteFn = Callable[[SuiteInputs], dict[str, Any]]


@dataclass(frozen=True)
class SuiteTask:
    """One task of an entry's suite: a picklable module-level function run in a worker.

    name : str       task name, unique in the suite ([a-z0-9_]+), e.g. "audit", "bounds", "rate"
    run : callable (SuiteInputs) -> {"record": JSON-ready dict, "checks": {key: check dict},
                                     "audits": {key: audit dict}}
        a check dict has at least "name" (str), "statement" (str), "p_value" (float in [0, 1], the smallest
        level at which the data refute the statement), "verdict" (None: the campaign sets it by Holm's
        procedure over every check of the run) and, where they apply, "estimate" and "bound" (floats);
        an audit dict is a privacy audit's record (``AuditResult.to_dict()``, a white-box or curve audit's) with
        "p_value" added: all audits of a run form one Holm family at level 1 − confidence.  Keys are unique
        within the entry.
    weight : float   relative wall time in the standard budget (the campaign starts the longest first)
    """

    name: str
    run: SuiteFn
    weight: float = 1.0


@dataclass(frozen=True)
class EntrySuite:
    """An entry verified by its own tasks instead of the campaign's common phases (audit on the Fair data,
    empirical, population, rate, stability): for papers whose setting the common phases do not fit (heavy
    tails, unknown Lipschitz constants, zCDP claims on their own real data).  ``description`` says what the
    suite checks, for the report."""

    tasks: tuple[SuiteTask, ...]
    description: str = ""

    def __post_init__(self) -> None:
        names = [t.name for t in self.tasks]
        if not names or len(set(names)) != len(names):
            raise ValueError(f"a suite needs at least one task and unique task names, got {names}")
        for t in self.tasks:
            if not isinstance(t, SuiteTask) or not t.name.replace("_", "").isalnum() or t.name != t.name.lower():
                raise ValueError(f"suite task names must be lower-case [a-z0-9_]+, got {t!r}")


@dataclass(frozen=True)
class CatalogueEntry:
    """One algorithm of one paper.

    Attributes
    ----------
    name : str               catalogue key, e.g. "bftt19.nsgd".
    title : str              e.g. "A_NSGD".
    paper, algorithm_ref, privacy_theorem, utility_theorem : str
    run : callable (X, y, problem, epsilon, delta, rng, **options) -> Release
    smooth_loss_required : bool   needs a smooth loss (β-smooth)
    synthetic_loss : str      loss of the synthetic instance with a known population minimiser
    empirical_bound : callable (release, PublicInputs) -> float   E[excess empirical risk] bound
    population_bound : callable (release, PublicInputs) -> float  E[excess population risk] bound, or None
        where the paper states no population claim (the tilted risk is not an average of a per-sample loss)
    paper_gradient_count : callable (release, PublicInputs) -> (float, str) | None   the paper's count
    stability_bound : callable (release, PublicInputs) -> (corrected, printed or None, source)
        uniform-stability bound w.r.t. ℓ that the utility proof uses (coupled runs are checked against it)
    costs : {budget name: BudgetCost}, one for every name of :data:`BUDGET_NAMES`
    planted_bugs : tuple of str   names in ``dpsco.verification.mutants.corpus.CORPUS`` of planted bugs in the
        code this entry runs (each names the audit or check that catches it); at least one
    rate_exponent : float or None   exponent e of the theorem's bound C·n^e in its statistical regime (−1/2
        for Bassily et al.); None where the configuration has no declared rate (the rate check is skipped)
    objective : ObjectiveSpec or None   the objective whose excess the theorems bound when it is not the
        empirical logistic risk L̂ (dpsco.verification.papers.objectives: ridge, tilted, robust, adversarial);
        its certified oracle replaces the shared real-data oracle, and its population form (ERM-form
        objectives) is evaluated exactly on D = uniform on a pool of synthetic points
    printed_bounds : {"empirical" | "population": tuple of callables (release, PublicInputs) -> (label, bound)}
        the theorem's bound as printed where ERRATA.md corrects it (or the paper's closed form beside the master
        bound): reported next to the check, never its verdict
    options : dict            keyword options passed to ``run`` (utility overrides, recorded in results)
    quick_options : dict      options for ``--quick`` runs (utility overrides only)
    replicate_axis : bool     ``run`` accepts ``replicates=k`` and returns k independent outputs, (k, d), from
        one optimisation (a deterministic inner step, or vectorised noisy iterations)
    deterministic : bool      the release is a deterministic function of the data and the output noise (a
        deterministic inner step): the auditor's estimator choice may use it
    audit_chunk : int         replicates per call when the audit draws its runs (memory/throughput trade-off)
    white_box : bool          ``run(..., replicates=k, white_box=True)`` returns the trace of every noisy
        gradient (``Release.white_box``, a ``dpsco.reference.white_box.NoisyGradientTrace``) whose privacy
        claim carries the T-step event: the campaign audits it white-box
        (``dpsco.verification.auditing.white_box``), the strongest sound mode for noisy-gradient methods
    extra_checks : ExtraChecks or None   checks of this entry beyond the common ones
    notes : str               shown with the entry
    audit_note : str          why a budget without audit runs for this entry skips its audit
    suite : EntrySuite or None   the entry's own tasks, run instead of the common phases (then the bound,
        count and stability functions, ``smooth_loss_required`` and ``synthetic_loss`` are unused and may be
        left out; ``run`` is the API function and ``costs`` still sizes the budget)
    """

    name: str
    title: str
    paper: str
    algorithm_ref: str
    privacy_theorem: str
    utility_theorem: str
    run: RunFn
    costs: Mapping[str, BudgetCost]
    planted_bugs: tuple[str, ...]
    smooth_loss_required: bool = False
    synthetic_loss: str = ""
    empirical_bound: BoundFn | None = None
    population_bound: BoundFn | None = None
    paper_gradient_count: CountFn | None = None
    stability_bound: StabilityFn | None = None
    rate_exponent: float | None = -0.5
    objective: ObjectiveSpec | None = None
    printed_bounds: dict[str, tuple[PrintedBoundFn, ...]] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    quick_options: dict[str, Any] = field(default_factory=dict)
    replicate_axis: bool = False
    deterministic: bool = False
    audit_chunk: int = 2000
    white_box: bool = False
    extra_checks: ExtraChecks | None = None
    notes: str = ""
    audit_note: str = ""
    suite: EntrySuite | None = None

    def cost(self, budget: str) -> BudgetCost:
        """This entry's sample sizes in ``budget`` (ValueError for a budget it does not declare)."""
        try:
            return self.costs[budget]
        except KeyError:
            raise ValueError(f"catalogue entry {self.name!r} declares no cost for budget {budget!r}; "
                             f"known: {sorted(self.costs)}") from None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "paper": self.paper, "algorithm": self.algorithm_ref,
                "privacy_theorem": self.privacy_theorem, "utility_theorem": self.utility_theorem,
                "options": self.options, "notes": self.notes}


class Registry:
    """Catalogue entries by name, in registration order.

    ``register`` checks an entry before adding it and raises ValueError (naming the entry and what is wrong)
    for a duplicate name, a missing or unknown budget cost, no planted bug, or an own check that reuses a
    common check key; TypeError for something that is not a :class:`CatalogueEntry`.
    """

    def __init__(self) -> None:
        self._entries: dict[str, CatalogueEntry] = {}

    def register(self, entry: CatalogueEntry) -> CatalogueEntry:
        if not isinstance(entry, CatalogueEntry):
            raise TypeError(f"register takes a CatalogueEntry, got {type(entry).__name__}")
        if not isinstance(entry.name, str) or not entry.name:
            raise ValueError(f"a catalogue entry needs a non-empty name, got {entry.name!r}")
        if entry.name in self._entries:
            raise ValueError(f"catalogue entry {entry.name!r} is already registered "
                             f"({self._entries[entry.name].title}); names must be unique")
        missing = [b for b in BUDGET_NAMES if b not in entry.costs]
        unknown = sorted(set(entry.costs) - set(BUDGET_NAMES))
        if missing or unknown:
            raise ValueError(f"catalogue entry {entry.name!r} must declare a cost for every budget {list(BUDGET_NAMES)}"
                             + (f": missing {missing}" if missing else "")
                             + (f"; unknown budget(s) {unknown}" if unknown else ""))
        for budget, cost in entry.costs.items():
            if not isinstance(cost, BudgetCost):
                raise ValueError(f"catalogue entry {entry.name!r}: the cost for budget {budget!r} must be a "
                                 f"BudgetCost, got {type(cost).__name__}")
        if (isinstance(entry.planted_bugs, str) or not entry.planted_bugs
                or not all(isinstance(b, str) and b for b in entry.planted_bugs)):
            raise ValueError(f"catalogue entry {entry.name!r} must name at least one planted bug of the corpus "
                             f"(a tuple of names), got {entry.planted_bugs!r}")
        if entry.suite is None:
            missing_fns = [f for f in ("empirical_bound", "paper_gradient_count", "stability_bound")
                           if getattr(entry, f) is None]
            if missing_fns or not entry.synthetic_loss:
                raise ValueError(f"catalogue entry {entry.name!r} runs the common phases and needs "
                                 f"{missing_fns or ['synthetic_loss']} (or a suite of its own)")
        elif entry.extra_checks is not None:
            raise ValueError(f"catalogue entry {entry.name!r}: a suite entry puts its own checks in its suite")
        if entry.extra_checks is not None:
            clash = [k for k in entry.extra_checks.keys if k in COMMON_CHECK_KEYS]
            if clash:
                raise ValueError(f"catalogue entry {entry.name!r}: its own checks reuse common check keys {clash}")
        self._entries[entry.name] = entry
        return entry

    def get(self, name: str) -> CatalogueEntry:
        try:
            return self._entries[name]
        except (KeyError, TypeError):
            raise ValueError(f"unknown catalogue entry {name!r}; known: {list(self._entries)}") from None

    def entries(self) -> tuple[CatalogueEntry, ...]:
        return tuple(self._entries.values())

    def __iter__(self) -> Iterator[CatalogueEntry]:
        return iter(self.entries())

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries


#: the catalogue's registry (filled by ``dpsco.verification.papers.catalogue``)
REGISTRY = Registry()


def register(entry: CatalogueEntry) -> CatalogueEntry:
    """Add ``entry`` to the catalogue (:meth:`Registry.register`); returns it."""
    return REGISTRY.register(entry)


def get_entry(name: str) -> CatalogueEntry:
    """The registered entry ``name``; ValueError naming the known entries if there is none."""
    return REGISTRY.get(name)


def list_entries() -> tuple[CatalogueEntry, ...]:
    """Every registered entry, in registration order (the catalogue's order)."""
    return REGISTRY.entries()


def extra_check_labels(entries: tuple[CatalogueEntry, ...] | None = None) -> tuple[tuple[str, str], ...]:
    """(record key, report label) of every entry's own checks, first occurrence order, without repeats."""
    seen: dict[str, str] = {}
    for e in list_entries() if entries is None else entries:
        if e.extra_checks is not None:
            for key, label in e.extra_checks.labels:
                seen.setdefault(key, label)
    return tuple(seen.items())


def run_outputs(entry: CatalogueEntry, X: np.ndarray, y: np.ndarray, problem: ERMProblem, epsilon: float,
                delta: float, rng: np.random.Generator, size: int, options: dict[str, Any],
                chunk: int = 2000) -> tuple[np.ndarray, Release]:
    """``size`` independent outputs of the algorithm as a (size, d) array, plus the last release.

    With a replicate axis (``entry.replicate_axis``) the runs are drawn ``chunk`` at a time (one optimisation,
    many noisy outputs); otherwise one call per run.  All draws come from ``rng``.
    """
    outs = []
    release: Release | None = None
    if entry.replicate_axis:  # one call gives k independent outputs
        done = 0
        while done < size:
            k = min(chunk, size - done)
            release = entry.run(X, y, problem, epsilon, delta, rng, replicates=k, **options)
            outs.append(np.atleast_2d(release.output))
            done += k
    else:
        for _ in range(size):
            release = entry.run(X, y, problem, epsilon, delta, rng, **options)
            outs.append(release.output[None, :])
    assert release is not None
    return np.vstack(outs), release
