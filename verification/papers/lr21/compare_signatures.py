"""Compare signatures (``dpsco.verification.papers.signatures``) of this paper's catalogue entries: the logistic
calling convention ``f(X, y, problem, epsilon, delta, rng, **options)`` with each entry's options passed by name,
on the Fair data or the D1 logistic sample; the output compared, the claim audited on the replace-one extreme
neighbour."""

from __future__ import annotations

from dpsco.verification.papers.lr21.catalogue import ENTRIES
from dpsco.verification.papers.signatures import CompareSignature, logistic_signature

__all__ = ["SIGNATURES"]

SIGNATURES: dict[str, CompareSignature] = {e.name: logistic_signature(e) for e in ENTRIES}
