"""Rows of the check registry (``mutants.catches``) for alt24 (placeholder: filled below)."""

from __future__ import annotations

from typing import Any

__all__ = ["ALT24_ROWS"]

ALT24_ROWS: tuple[dict[str, Any], ...] = ()
