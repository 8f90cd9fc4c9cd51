"""Rows of the check registry (``mutants.catches``) for muabg23 (placeholder: filled below)."""

from __future__ import annotations

from typing import Any

__all__ = ["MUABG23_ROWS"]

MUABG23_ROWS: tuple[dict[str, Any], ...] = ()
