"""ERRATA.md's one id scheme, ``<ROOM>-<K><n>`` (its preamble says what K means), read from the source
(deterministic; no sampling).

* every id defined in a table of ERRATA.md matches :data:`ID`, and no id is defined twice;
* every id referenced in the package, its tests, benchmarks and docs exists in ERRATA.md (test names spell the
  id with an underscore, ``test_ACCD22_E7_...``, ``test_erratum_LR21_E4_...``);
* no reference in an older form remains (``AT5``, ``MU3``, ``AC7``, ``LR-E1``, and for Bassily et al. a bare
  ``E4`` where it names an erratum: "ERRATA.md E4", "erratum E4", "(E4)", "E4:", "E4 in detail").  CHANGELOG.md's
  older entries keep the ids they were written with.  Python files are checked in their comments and strings
  only, so a variable such as ``E1 = np.eye(d)[0]`` is not an erratum reference.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ROOMS = ("BFTT19", "LR21", "ALT24", "MUABG23", "ACCD22")
ID = re.compile(r"^(BFTT19|LR21|ALT24|MUABG23|ACCD22)-[EDP]\d+$")
#: a reference in the new scheme, in prose (LR21-E4) or in a test name (LR21_E4)
REFERENCE = re.compile(r"(?<![A-Za-z0-9])(BFTT19|LR21|ALT24|MUABG23|ACCD22)[-_]([EDP])(\d+)(?!\d)")
_BARE = r"E[1-9]\d?"  # a Bassily et al. id of the old scheme (there is no E0)
#: references in the old schemes
OLD = [
    re.compile(r"(?<![\w-])(AT|MU|AC)\d+\b"),  # Asi–Liu–Tian, Menart et al., Asi–Chadha–Cheng–Duchi
    re.compile(r"_(AT|MU|AC)\d+_"),  # ... inside a test name
    re.compile(r"(?<![A-Za-z0-9])LR[-_][EDP]\d+"),  # Lowy & Razaviyayn (prose and test names)
    # Bassily et al.'s bare ids, only where they name an erratum
    re.compile(rf"(?:ERRATA(?:\.md)?`?|[Ee]rrat(?:um|a))[\s(]+{_BARE}\b"),
    re.compile(rf"\({_BARE}\)"),
    re.compile(rf"(?<![\w-]){_BARE}:\s"),
    re.compile(rf"[,;]\s{_BARE}[);]"),
    re.compile(rf"(?<![\w-]){_BARE}\s?[–-]\s?{_BARE}\b"),
    re.compile(rf"(?<![\w-]){_BARE}(?: in detail|'s table)"),
]
#: CHANGELOG.md: older entries keep the ids they were written with (one bullet gives the mapping); this file
#: plants old ids to show the check fails on them
EXCLUDED = {"CHANGELOG.md", "tests/test_errata_ids.py"}


def _files() -> list[Path]:
    out = []
    for pattern in ("*.py", "*.md"):
        for path in ROOT.rglob(pattern):
            rel = path.relative_to(ROOT)
            if rel.parts[0].startswith(".") or rel.parts[0].endswith(".egg-info") or str(rel) in EXCLUDED:
                continue
            if any(p in ("__pycache__", "build", "dist") or p.startswith(".") for p in rel.parts):
                continue
            out.append(path)
    return sorted(out)


def prose(path: Path, text: str | None = None) -> str:
    """The text of ``path`` in which ids are looked for: a Markdown file whole; a Python file's comments and
    string literals (docstrings included), one per line."""
    text = path.read_text(encoding="utf-8") if text is None else text
    if path.suffix != ".py":
        return text
    parts = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.COMMENT, tokenize.STRING) or tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            parts.append(tok.string)
    return "\n".join(parts)


def old_ids(text: str) -> list[str]:
    """Every old-style id reference in ``text`` (empty when clean)."""
    return [m.group(0) for rx in OLD for m in rx.finditer(text)]


def errata_ids() -> list[str]:
    """Ids defined by ERRATA.md: the first cell of each table row, in order."""
    text = (ROOT / "ERRATA.md").read_text(encoding="utf-8")
    return [m.group(1) for m in re.finditer(r"^\| ([^|]+?) \|", text, flags=re.M)
            if m.group(1) not in ("id", "n") and not m.group(1).startswith("---") and not m.group(1)[0].isdigit()]


def test_errata_ids_follow_the_scheme_and_are_unique() -> None:
    ids = errata_ids()
    assert len(ids) >= 97  # 12 + 19 + 26 + 22 + 18 rows when the scheme was introduced
    assert [i for i in ids if not ID.match(i)] == []
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert {i.split("-")[0] for i in ids} == set(ROOMS)


def test_every_referenced_id_exists() -> None:
    defined = set(errata_ids())
    missing = {}
    for path in _files():
        for m in REFERENCE.finditer(path.read_text(encoding="utf-8")):
            ident = f"{m.group(1)}-{m.group(2)}{m.group(3)}"
            if ident not in defined:
                missing.setdefault(str(path.relative_to(ROOT)), set()).add(ident)
    assert missing == {}


def test_no_old_style_id_remains() -> None:
    found = {}
    for path in _files():
        text = path.read_text(encoding="utf-8")
        # the prose is part of the text: tokenize only files whose whole text has a candidate
        hits = old_ids(prose(path, text)) if old_ids(text) else []
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    assert found == {}


@pytest.mark.parametrize("planted", [
    "see ERRATA.md AC7 for the floor", "(AT5)", "MU3: the loop guard", "noise (LR-E3)", "LR-D1 and LR-P2",
    "def test_AC7_eta0_floors_log_n0():", "def test_erratum_LR_E4_proposition():", "ERRATA.md E4", "ERRATA E3:",
    "`ERRATA.md` E2", "erratum E11", "(certified noise, E4)", "(E4)", "E4: the printed σ", "(E1–E11)",
    "### E4 in detail", "ERRATA.md E4's table",
])
def test_the_old_id_check_fails_on_a_planted_old_id(planted: str) -> None:
    assert old_ids(planted) != []
    # ... also inside a Python comment and a docstring
    for src in (f"x = 1  # {planted}\n", f'def f():\n    """{planted}"""\n'):
        assert old_ids(prose(Path("planted.py"), src)) != [], src


@pytest.mark.parametrize("clean", [
    "ERRATA.md BFTT19-E4", "(ACCD22-E7)", "LR21-E1–LR21-E3", "def test_ACCD22_E7_eta0():", "test_erratum_LR21_E4_x",
    "E[F(w)] ≤ E‖z‖²", "--epsilon-true E0", "LATE1", "ALT24-E5: the Markov step",
])
def test_the_old_id_check_has_no_false_hit_on_new_ids_and_prose(clean: str) -> None:
    assert old_ids(clean) == []


def test_variable_names_are_not_erratum_references() -> None:
    src = "E1 = np.eye(3)[0]\nX = np.tile(E1, (4, 1))\ncanary = f((E1, 0.0), (-E1, 0.0))\n"
    assert old_ids(prose(Path("code.py"), src)) == []
