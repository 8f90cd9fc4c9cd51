"""verification.papers.muabg23: one paper's room (see docs/layout.md)."""
