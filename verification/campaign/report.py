"""Reports of a verification campaign: terminal table, Markdown, self-contained HTML with figures, LaTeX.

Everything here reads the ``results`` dictionary that ``dpsco verify`` writes to ``results.json``; nothing is
recomputed, so ``dpsco verify --from results.json`` regenerates every report bit for bit.  The writers live in
their own modules (this one gathers them):

* ``report_table`` — the terminal summary (≤ 100 columns; ``wide=True`` for the full table);
* ``report_markdown`` — report.md;
* ``report_html`` (+ ``templates/report.html.j2``, Jinja2) and ``report_plots`` (matplotlib) — report.html;
* ``report_latex`` — tables.tex (pure ASCII, compiles with pdflatex);
* ``report_common`` — the text every writer shares (numbers, claims in their own notion, power figures).

The shape of results.json is published as a JSON Schema (``results.schema.json``; ``results_record``):
:func:`check_results` validates a parsed file against it.
"""

from __future__ import annotations

from typing import Any

from dpsco.verification.campaign.report_common import SUITE_HEADER, WIDE_HEADER, suite_row, wide_row
from dpsco.verification.campaign.report_html import format_html
from dpsco.verification.campaign.report_latex import format_latex
from dpsco.verification.campaign.report_markdown import format_markdown
from dpsco.verification.campaign.report_table import format_table
from dpsco.verification.campaign.results_record import validate_results

__all__ = ["HEADER", "SUITE_HEADER", "check_results", "format_html", "format_latex", "format_markdown",
           "format_table", "row", "suite_row"]

HEADER = WIDE_HEADER
row = wide_row


def check_results(results: Any) -> None:
    """Raise ValueError naming the first place where ``results`` (a parsed results.json of the current record
    shape) breaks the published schema (``results_record.validate_results``)."""
    validate_results(results)
