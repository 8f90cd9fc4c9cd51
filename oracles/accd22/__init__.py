"""oracles.accd22: one paper's room (see docs/layout.md)."""
