"""verification.papers.bftt19: one paper's room (see docs/layout.md)."""
