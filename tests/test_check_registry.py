"""The planted-bug registry of the checks (``dpsco.verification.mutants.catches``): every check and audit that
``dpsco verify`` records for a catalogue entry names a planted bug and the test that shows the check failing on it,
or says why no planted bug can make it fail.

* every named bug is in ``corpus.CORPUS`` and listed by every catalogue entry its row matches;
* every named test exists (the file defines the function; a parametrised id's "[...]" is stripped);
* every (entry, key) of the committed inventory (``check_inventory.json``, the quick campaign's checks) has a row,
  every catalogue entry is inventoried, and every row is the first match of some inventoried check;
* a row without a bug says why (``catches.NONE_KINDS``: a diagnostic, or a check whose pass the campaign labels
  uninformative), and docs/planted-bugs.md lists every such row: every pass/fail check names a planted bug;
* campaign: ``dpsco verify --quick`` regenerates the inventory, which must equal the committed one (a new check
  without a row fails here), and the records bear out what the rows say (a named bug's check is a pass/fail
  record; an "uninformative" row's record is labelled so, from its own numbers).

Deterministic (no sampling) except the campaign test, whose assertions are exact statements about the records
(key sets, bounds, verdict fields), not about random outcomes.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from pathlib import Path

import pytest

from dpsco.verification.mutants import catches as cc
from dpsco.verification.mutants.corpus import CORPUS
from dpsco.verification.papers.catalogue import CATALOGUE

ROOT = Path(__file__).resolve().parents[1]
ENTRIES = {e.name: e for e in CATALOGUE}
INVENTORY = cc.load_inventory()
PAIRS = [(entry, key) for entry, keys in INVENTORY.items() for key in keys]
ROW_IDS = [f"{r.entry}::{r.key}" for r in cc.CATCHES]


def _matched_entries(row: cc.CheckCatch) -> list[str]:
    return [name for name in ENTRIES if re.fullmatch(row.entry, name)]


@functools.lru_cache(maxsize=None)
def _functions(path: str) -> frozenset[str]:
    """Names of the functions a test file defines (module level or in classes)."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return frozenset(n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))


def test_rows_are_well_formed():
    assert cc.CATCHES and all(isinstance(r, cc.CheckCatch) for r in cc.CATCHES)
    for row in cc.CATCHES:
        re.compile(row.entry), re.compile(row.key)  # valid regexes
        assert row.note and "\n" not in row.note, row
        assert row.bug is None or isinstance(row.bug, str), row
    assert len(set(ROW_IDS)) == len(ROW_IDS), "two rows with the same (entry, key) regexes"


@pytest.mark.parametrize("row", cc.CATCHES, ids=ROW_IDS)
def test_named_bug_is_in_the_corpus_and_listed_by_every_matched_entry(row):
    matched = _matched_entries(row)
    assert matched, f"row {row.entry!r} matches no catalogue entry"
    if row.bug is None:
        return
    assert row.bug in CORPUS, f"{row.bug!r} is not a planted bug of the corpus"
    for name in matched:
        assert row.bug in ENTRIES[name].planted_bugs, f"{name} does not list {row.bug!r} among its planted bugs"


@pytest.mark.parametrize("row", cc.CATCHES, ids=ROW_IDS)
def test_named_test_exists(row):
    path, sep, func = row.test.partition("::")
    assert sep and path.startswith("tests/") and path.endswith(".py"), row.test
    assert (ROOT / path).is_file(), f"no test file {path}"
    name = re.sub(r"\[.*\]$", "", func)
    assert re.fullmatch(r"test_\w+", name), row.test
    assert name in _functions(path), f"{path} defines no {name}"


def test_every_inventoried_check_has_a_row():
    assert set(INVENTORY) == set(ENTRIES), "the inventory and the catalogue list different entries"
    missing = [(entry, key) for entry, key in PAIRS if cc.catch_for(entry, key) is None]
    assert not missing, f"checks without a row in mutants.catches: {missing}"


def test_every_row_is_the_first_match_of_an_inventoried_check():
    used = {id(cc.catch_for(entry, key)) for entry, key in PAIRS}
    dead = [f"{r.entry}::{r.key}" for r in cc.CATCHES if id(r) not in used]
    assert not dead, f"rows that match no inventoried check (or are shadowed by an earlier row): {dead}"


@pytest.mark.parametrize("row", cc.CATCHES, ids=ROW_IDS)
def test_a_row_without_a_bug_says_why(row):
    starts = [k for k in cc.NONE_KINDS if row.note.startswith(k)]
    if row.bug is None:
        assert starts, f"a bug-None row's note must start with one of {cc.NONE_KINDS}: {row.note!r}"
        assert cc.none_kind(row) == starts[0]
    else:
        assert not starts and cc.none_kind(row) is None, row


def test_every_pass_fail_check_names_a_planted_bug():
    """Every inventoried check names its planted bug, unless its record is no pass/fail check (diagnostic) or its
    pass is labelled uninformative (checks.power) — the campaign test below checks both against the records."""
    without = [(entry, key) for entry, key in PAIRS if cc.catch_for(entry, key).bug is None
               and cc.none_kind(cc.catch_for(entry, key)) not in cc.NONE_KINDS]
    assert not without, f"pass/fail checks without a planted bug: {without}"


def test_docs_list_every_check_without_a_planted_bug():
    docs = (ROOT / "docs" / "planted-bugs.md").read_text(encoding="utf-8")
    section = docs.split("## Every check names its planted bug", 1)
    assert len(section) == 2, "docs/planted-bugs.md has no section 'Every check names its planted bug'"
    lines = cc.none_rows_markdown()
    assert len(lines) > 2
    missing = [line for line in lines if line not in section[1]]
    assert not missing, "docs/planted-bugs.md is not in step with mutants.catches: regenerate the table " \
                        f"(catches.none_rows_markdown()); missing lines: {missing}"


def test_catch_for_returns_the_first_match_and_validates():
    row = cc.catch_for("bftt19.nsgd", "audit")
    assert row is not None and row.bug == "nsgd_noise_divided_by_batch"
    assert cc.catch_for("bftt19.nsgd", "no_such_check") is None
    assert cc.catch_for("no.such.entry", "audit") is None
    # fullmatch, not search: a key that merely contains a row's key is not that check
    assert cc.catch_for("bftt19.nsgd", "audit_extra") is None
    with pytest.raises(TypeError, match="entry and key"):
        cc.catch_for("bftt19.nsgd", 3)  # type: ignore[arg-type]


def test_inventory_reads_common_and_suite_records():
    results = {"records": [
        {"name": "a", "audit": {"verdict": "not refuted"}, "white_box_audit": None, "empirical": {"verdict": "pass"},
         "parameters": {"T": 3}},
        {"name": "b", "suite_checks": {"c2": {}, "c1": {}}, "suite_audits": {"a1": {}}}]}
    assert cc.inventory(results) == {"a": ["audit", "empirical"], "b": ["a1", "c1", "c2"]}
    with pytest.raises(ValueError, match="records"):
        cc.inventory({"checks": 3})


# ------------------------------------------------------------------------------------------------ campaign
_PASS_FAIL = {"pass", "fail", "refuted", "not refuted"}


@pytest.mark.campaign
def test_campaign_inventory_is_committed_and_none_rows_hold(tmp_path):
    """``dpsco verify --quick`` (every entry, one worker, about 10 minutes) regenerates the inventory; it must
    equal the committed ``check_inventory.json``.  On the same records: a row naming a bug covers a pass/fail
    record (or one whose pass the campaign labels uninformative: the bug shows it can still fail); a "diagnostic"
    row's record has no pass/fail verdict; an "uninformative" row's record is labelled "uninformative" with its
    reason (``checks.power``, recomputed from the record's numbers).  Exact statements about the records: no
    false-failure probability."""
    from dpsco.verification.campaign.verify import run_verification
    from dpsco.verification.checks.power import uninformative_reason

    results = run_verification(budget="quick", out=str(tmp_path / "inv"), workers=1, quiet=True, formats=("md",))
    results = json.loads(json.dumps(results))
    assert cc.inventory(results) == INVENTORY, "the checks changed: regenerate verification/mutants/" \
        "check_inventory.json (python -m dpsco.verification.mutants.catches results.json) and add rows"
    for entry, key, rec in cc.check_records(results):
        row = cc.catch_for(entry, key)
        assert row is not None, (entry, key)
        kind = cc.none_kind(row)
        if row.bug is not None:
            assert rec.get("verdict") in _PASS_FAIL | {"uninformative"}, (entry, key, rec.get("verdict"))
        elif kind == "diagnostic:":
            assert rec.get("verdict") not in _PASS_FAIL, (entry, key, rec.get("verdict"))
        else:
            assert kind == "uninformative:", (entry, key, row.note)
            assert rec.get("verdict") == "uninformative" and uninformative_reason(rec), (entry, key, rec)
