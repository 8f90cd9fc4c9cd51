"""The full catalogue table of ``docs/catalogue.md``, generated from the registry.

:func:`catalogue_markdown` renders :data:`dpsco.verification.papers.catalogue.CATALOGUE` as one Markdown
table: each entry's name, title, paper, pseudo-code reference, privacy and utility theorems, the dotted name of
the function it runs, the number of its planted bugs and its notes.  ``python -m
dpsco.verification.papers.catalogue_doc`` rewrites ``docs/catalogue.md`` (atomically: written next to it, then
renamed over it); ``tests/test_docs_catalogue.py`` fails when the file differs from :func:`catalogue_markdown`.
Hand-written prose about the entries lives in ``docs/verification.md``, not here.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Iterable

__all__ = ["catalogue_markdown", "write_catalogue"]

#: the file this module writes, relative to the repository root (the package root ``dpsco``)
CATALOGUE_DOC = Path("docs") / "catalogue.md"
REGENERATE = "python -m dpsco.verification.papers.catalogue_doc"

_HEADER = """\
# Catalogue

<!-- Generated from the registry (dpsco.verification.papers.catalogue.CATALOGUE) by
     `{regenerate}`. Do not edit: edit the entries and regenerate. -->

Every catalogued algorithm, in the catalogue's order (the order in which `dpsco verify` runs them and spawns their
random streams). *Function* is the reference implementation the entry runs; *planted bugs* counts the deliberately
broken copies of the entry's code (`dpsco.verification.mutants`) that its audits and checks must catch. What each
entry's tests and `dpsco verify` check, and how the papers' entries are verified, is in
[verification.md](verification.md); corrections to the printed papers are in `ERRATA.md`.

"""

_COLUMNS = ("entry", "algorithm", "paper", "pseudo-code", "privacy", "utility", "function", "planted bugs",
            "notes")


def _cell(text: object) -> str:
    """One table cell: a single line, with the characters Markdown tables reserve escaped."""
    return " ".join(str(text).split()).replace("\\", "\\\\").replace("|", "\\|")


def _row(cells: Iterable[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def catalogue_markdown() -> str:
    """The text of ``docs/catalogue.md``: a header and one table row per catalogue entry.

    Returns
    -------
    str
        Markdown ending in a newline; deterministic (a function of the registry alone).
    """
    from dpsco.verification.papers.catalogue import CATALOGUE

    lines = [_row(_COLUMNS), _row("---" for _ in _COLUMNS)]
    for e in CATALOGUE:
        function = f"{e.run.__module__}.{e.run.__name__}"
        lines.append(_row([f"`{e.name}`", _cell(e.title), _cell(e.paper), _cell(e.algorithm_ref),
                           _cell(e.privacy_theorem), _cell(e.utility_theorem), f"`{function}`",
                           str(len(e.planted_bugs)), _cell(e.notes) or "—"]))
    return _HEADER.format(regenerate=REGENERATE) + "\n".join(lines) + "\n"


def write_catalogue(path: str | os.PathLike[str] | None = None) -> Path:
    """Write :func:`catalogue_markdown` to ``path`` (default: ``docs/catalogue.md`` of the repository root).

    The text is written to a temporary file in the same folder and renamed over ``path``, so a reader never
    sees a half-written file.  Returns the path written.  Raises ``FileNotFoundError`` if the folder is missing.
    """
    target = Path(path) if path is not None else Path(__file__).resolve().parents[2] / CATALOGUE_DOC
    text = catalogue_markdown()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return target


if __name__ == "__main__":
    print(f"wrote {write_catalogue(sys.argv[1] if len(sys.argv) > 1 else None)}")
