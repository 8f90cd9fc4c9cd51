"""The catalogue's contract: what every entry must declare, checked for every entry on a tiny instance.

For each entry of ``dpsco.verification.papers.catalogue.CATALOGUE``: a run on a tiny logistic instance (n = 40,
d = 2) gives a well-formed privacy claim and finite bounds from every bound function at the public inputs;
the entry declares a cost for every budget of ``dpsco verify``; it names at least one planted bug of the corpus
(``dpsco.verification.mutants.corpus``) that names the audit or check catching it and tests that run it; its
replicate axis and determinism flags hold on the instance; and the README's "## Catalogue" summary and docs/catalogue.md name it.
The registry refuses a duplicate name or a missing budget cost with a ValueError.

Deterministic (fixed seeds, no statistical test): no false-failure budget is needed.
"""

from __future__ import annotations

import ast
import dataclasses
import math
import pickle
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dpsco.reference import Ball, DataBounds, ERMProblem, get_loss
from dpsco.reference.privacy import PrivacyClaim
from dpsco.verification.campaign.verify import BUDGETS
from dpsco.verification.mutants.corpus import CANARY_AUDITED, CORPUS
from dpsco.verification.papers.catalogue import (BUDGET_NAMES, CATALOGUE, BudgetCost, CatalogueEntry, PublicInputs,
                                                 Registry, get_entry, register)

ROOT = Path(__file__).resolve().parents[1]
NAMES = [e.name for e in CATALOGUE]
#: entries run by the common phases (their run() takes the logistic instance); suite entries run their own tasks
COMMON = [e.name for e in CATALOGUE if e.suite is None]
SUITES = [e.name for e in CATALOGUE if e.suite is not None]
N, D, EPS = 40, 2, 1.0
DELTA = 1.0 / N**2
NOTIONS = ("approx-DP", "pure-DP", "zCDP", "GDP")


def _instance() -> tuple[np.ndarray, np.ndarray, ERMProblem]:
    """n = 40 points in the unit ball of R², labels ±1 from a logistic model; W = B(0, 2) (as dpsco verify)."""
    rng = np.random.default_rng(20240611)
    X = rng.standard_normal((N, D))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(rng.random(N) < 1.0 / (1.0 + np.exp(-X @ np.array([1.0, -0.5]))), 1.0, -1.0)
    return X, y, ERMProblem(get_loss("logistic"), Ball(2.0), DataBounds(1.0, 1.0))


def _options(entry: CatalogueEntry) -> dict[str, Any]:
    return dict(entry.quick_options or entry.options)


@lru_cache(maxsize=None)
def _release(name: str) -> Any:
    entry = get_entry(name)
    X, y, problem = _instance()
    return entry.run(X, y, problem, EPS, DELTA, np.random.default_rng(1), **_options(entry))


def _finite(v: Any) -> bool:
    return isinstance(v, (int, float, np.floating, np.integer)) and not isinstance(v, bool) and math.isfinite(v)


def _inputs(release: Any) -> PublicInputs:
    _, _, problem = _instance()
    return PublicInputs(N, D, EPS, DELTA, problem.lipschitz, problem.radius)


# -- claims and bounds --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", COMMON)
def test_run_gives_a_well_formed_claim(name):
    release = _release(name)
    claim = release.claim
    assert isinstance(claim, PrivacyClaim), type(claim)
    assert claim.notion in NOTIONS, claim.notion
    assert _finite(claim.epsilon) and 0.0 < claim.epsilon <= EPS * (1 + 1e-12), claim.epsilon
    assert _finite(claim.delta) and 0.0 <= claim.delta <= DELTA * (1 + 1e-12), claim.delta
    assert isinstance(claim.source, str) and claim.source.strip()
    assert claim.neighbouring in ("replace-one", "add/remove")
    assert np.asarray(release.output).shape == (D,) and np.all(np.isfinite(release.output))


@pytest.mark.parametrize("name", COMMON)
def test_every_bound_function_is_finite_at_the_public_inputs(name):
    entry, release = get_entry(name), _release(name)
    x = _inputs(release)
    values = {"empirical": entry.empirical_bound(release, x)}
    if entry.population_bound is not None:
        values["population"] = entry.population_bound(release, x)
    for key, v in values.items():
        assert _finite(v) and v > 0, (key, v)
    corrected, printed, source = entry.stability_bound(release, x)
    assert _finite(corrected) and corrected >= 0 and (printed is None or _finite(printed))
    assert isinstance(source, str) and source
    count = entry.paper_gradient_count(release, x)
    assert count is None or (_finite(count[0]) and count[0] >= 0 and isinstance(count[1], str) and count[1])
    assert set(entry.printed_bounds) <= {"empirical", "population"}
    for fns in entry.printed_bounds.values():
        for fn in fns:
            label, bound = fn(release, x)
            assert isinstance(label, str) and label and _finite(bound), (label, bound)
    if entry.extra_checks is not None:
        assert entry.extra_checks.keys and callable(entry.extra_checks.run)


def test_public_inputs_are_frozen():
    x = PublicInputs(10, 2, 1.0, 0.01, 1.0, 2.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        x.n = 11  # type: ignore[misc]


# -- flags that replace name tests in the campaign ----------------------------------------------------------


@pytest.mark.parametrize("name", [e.name for e in CATALOGUE if e.replicate_axis])
def test_replicate_axis_gives_independent_rows(name):
    entry = get_entry(name)
    X, y, problem = _instance()
    out = entry.run(X, y, problem, EPS, DELTA, np.random.default_rng(2), replicates=3, **_options(entry)).output
    out = np.asarray(out)
    assert out.shape == (3, D) and np.all(np.isfinite(out))
    assert len({tuple(row) for row in out}) == 3  # three noisy outputs, not one repeated


@pytest.mark.parametrize("name", [e.name for e in CATALOGUE if e.deterministic])
def test_deterministic_entries_release_a_noisy_copy_of_one_point(name):
    """Deterministic given the noise: the non-private centre w_T does not depend on the generator."""
    entry = get_entry(name)
    X, y, problem = _instance()
    a = entry.run(X, y, problem, EPS, DELTA, np.random.default_rng(3), **_options(entry))
    b = entry.run(X, y, problem, EPS, DELTA, np.random.default_rng(4), **_options(entry))
    np.testing.assert_array_equal(a.nonprivate_internals["w_T"], b.nonprivate_internals["w_T"])
    assert not np.array_equal(a.output, b.output)


# -- costs ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_costs_for_every_budget(name):
    entry = get_entry(name)
    assert tuple(BUDGETS) == BUDGET_NAMES
    assert set(entry.costs) == set(BUDGET_NAMES)
    for budget in BUDGET_NAMES:
        c = entry.cost(budget)
        assert isinstance(c, BudgetCost)
        assert c.replicates >= 1 and c.rate_runs >= 2 and 1 <= c.stability_runs <= c.replicates
        assert c.population_runs >= 1 and c.audit_runs >= 0
    if any(entry.cost(b).audit_runs == 0 for b in BUDGET_NAMES):
        assert entry.audit_note, "a budget that skips the audit must say why"
    assert entry.audit_chunk >= 1


@pytest.mark.parametrize("name", SUITES)
def test_a_suite_entry_runs_its_own_picklable_tasks(name):
    entry = get_entry(name)
    assert entry.suite is not None and entry.suite.tasks and callable(entry.run)
    for task in entry.suite.tasks:  # module-level functions: they travel to process-pool and Dask workers
        assert pickle.loads(pickle.dumps(task.run)) is task.run, (name, task.name)
        assert task.weight > 0
    assert entry.paper and entry.privacy_theorem and entry.utility_theorem and entry.notes


# -- planted bugs ---------------------------------------------------------------------------------------------


def _test_functions(path: Path) -> dict[str, ast.FunctionDef]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}


def _mutant_name(bug: Any) -> str:
    fn = getattr(bug.mutant, "func", bug.mutant)  # functools.partial
    return fn.__name__


def _exercised_by(bug: Any, test_id: str) -> bool:
    """The test exists, and either names the mutant or is a corpus test parametrised over the corpus's (in)visible
    canary-audited bugs, this one among them."""
    path_s, _, func = test_id.partition("::")
    path = ROOT / path_s
    assert path.is_file(), f"{bug.name}: {path_s} does not exist"
    functions = _test_functions(path)
    assert func in functions, f"{bug.name}: {path_s} has no {func}"
    node = functions[func]
    if _mutant_name(bug) in ast.get_source_segment(path.read_text(encoding="utf-8"), node):
        return True
    decorators = " ".join(ast.unparse(d) for d in node.decorator_list)
    parametrised_over = re.findall(r"\b(VISIBLE|INVISIBLE|CANARY_AUDITED)\b", decorators)
    wanted = {"CANARY_AUDITED", "VISIBLE" if bug.visible else "INVISIBLE"}
    return bug.name in CANARY_AUDITED and bool(wanted & set(parametrised_over))


@pytest.mark.parametrize("name", NAMES)
def test_names_planted_bugs_of_the_corpus_that_are_caught(name):
    entry = get_entry(name)
    assert entry.planted_bugs, name
    caught = []
    for bug_name in entry.planted_bugs:
        assert bug_name in CORPUS, f"{name} names {bug_name!r}, which is not in the corpus"
        bug = CORPUS[bug_name]
        assert isinstance(bug.caught_by, str) and bug.caught_by.strip(), bug_name
        assert bug.tests, bug_name
        exercised = [_exercised_by(bug, t) for t in bug.tests]
        assert any(exercised), f"{bug_name}: none of {bug.tests} runs {_mutant_name(bug)}"
        if bug.visible:
            caught.append(bug_name)
    assert caught, f"{name}: none of its planted bugs is caught by an audit or check"


def test_every_planted_bug_belongs_to_some_entry_or_is_invisible():
    named = {b for e in CATALOGUE for b in e.planted_bugs}
    orphans = [n for n, b in CORPUS.items() if n not in named and b.visible]
    assert not orphans, f"planted bugs no catalogue entry names: {orphans}"


# -- the README ------------------------------------------------------------------------------------------------


def test_readme_catalogue_section_names_every_entry():
    # the README's short summary and the generated docs/catalogue.md both name every entry
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Catalogue", 1)[1].split("\n## ", 1)[0]
    missing = [n for n in NAMES if f"`{n}`" not in section]
    assert not missing, f"README's Catalogue summary does not name {missing}"
    table = (ROOT / "docs" / "catalogue.md").read_text(encoding="utf-8")
    missing = [n for n in NAMES if f"`{n}`" not in table]
    assert not missing, f"docs/catalogue.md does not name {missing}"


# -- the registry refuses malformed entries ----------------------------------------------------------------


def _entry(**changes: Any) -> CatalogueEntry:
    return dataclasses.replace(CATALOGUE[0], **changes)


def test_registry_refuses_a_duplicate_name():
    reg = Registry()
    reg.register(_entry(name="x.one"))
    with pytest.raises(ValueError, match="'x.one' is already registered"):
        reg.register(_entry(name="x.one"))
    with pytest.raises(ValueError, match=f"'{CATALOGUE[0].name}' is already registered"):
        register(CATALOGUE[0])  # the catalogue's own registry
    assert len(reg) == 1


def test_registry_refuses_a_missing_or_unknown_budget_cost():
    reg = Registry()
    costs = dict(CATALOGUE[0].costs)
    del costs["paper"]
    with pytest.raises(ValueError, match=r"must declare a cost for every budget.*missing \['paper'\]"):
        reg.register(_entry(name="x.two", costs=costs))
    with pytest.raises(ValueError, match=r"unknown budget\(s\) \['huge'\]"):
        reg.register(_entry(name="x.three", costs={**CATALOGUE[0].costs, "huge": CATALOGUE[0].cost("paper")}))
    with pytest.raises(ValueError, match="must be a BudgetCost"):
        reg.register(_entry(name="x.four", costs={**CATALOGUE[0].costs, "quick": (600, 20)}))
    with pytest.raises(ValueError, match="at least one planted bug"):
        reg.register(_entry(name="x.five", planted_bugs=()))
    assert len(reg) == 0
    with pytest.raises(ValueError, match="unknown catalogue entry 'x.two'"):
        reg.get("x.two")
    with pytest.raises(ValueError, match="declares no cost for budget 'huge'"):
        CATALOGUE[0].cost("huge")


@pytest.mark.parametrize("field, value", [("audit_runs", -1), ("replicates", 0), ("rate_runs", 1),
                                          ("stability_runs", 21), ("population_runs", 0), ("replicates", 2.5)])
def test_budget_cost_refuses_out_of_range_sizes(field, value):
    kw = {"audit_runs": 10, "replicates": 20, "rate_runs": 6, "stability_runs": 20, field: value}
    with pytest.raises(ValueError, match=field):
        BudgetCost(**kw)
