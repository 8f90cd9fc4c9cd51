"""oracles.lr21: one paper's room (see docs/layout.md)."""
