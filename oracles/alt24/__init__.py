"""oracles.alt24: one paper's room (see docs/layout.md)."""
