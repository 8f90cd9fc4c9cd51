"""docs/auditing.md's table "What each release publishes" is the one the privacy harnesses generate.

Deterministic: one run of each harness on its benign records at seed 0.
"""

from __future__ import annotations

from pathlib import Path

from dpsco.verification.papers.harness import audited_outcome_table

DOC = Path(__file__).resolve().parents[1] / "docs" / "auditing.md"


def test_the_published_fields_table_is_current():
    table = audited_outcome_table()
    assert table in DOC.read_text(encoding="utf-8"), (
        "docs/auditing.md's 'What each release publishes' table is stale; regenerate it with "
        "dpsco.verification.papers.harness.audited_outcome_table()")
