"""The entry types of the planted-bug corpus (``dpsco.verification.mutants.corpus``, which re-exports them):
:class:`Mechanism`, the audit wrapper of an algorithm with the corpus's calling convention, and
:class:`PlantedBug`, a planted bug audited on a canary pair (its mutant, the correct counterpart, the claim's
instance, the exact true privacy of both and the audit configuration).  Kept apart from the corpus so that the
modules holding entries (``corpus``; ``notions``, the μ-GDP / ρ-zCDP entries) share them without an import cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from dpsco.reference import ERMProblem
from dpsco.verification.mutants.exact import DEFAULT_CONFIDENCE

__all__ = ["Algorithm", "CANARY_AUDIT_TESTS", "DEFAULT_SAMPLES", "Dataset", "Mechanism", "PaperTestBug", "PlantedBug"]

#: the default audit budget: runs per side (selection + test halves) and confidence of one audit
DEFAULT_SAMPLES = 50_000

Dataset = dict[str, np.ndarray]

Algorithm = Callable[..., Any]


class Mechanism:
    """Audit wrapper: ``__call__(data, rng)`` one run, ``sample(data, n, rng)`` n independent runs (batched).

    ``batched(data, problem, eps, delta, n, rng) -> (n, k)`` is the fast path; when None, the algorithm is
    called with ``replicates=n``.
    """

    def __init__(self, algorithm: Algorithm, problem: ERMProblem, epsilon: float, delta: float,
                 batched: Callable[..., np.ndarray] | None = None) -> None:
        self.algorithm, self.problem, self.epsilon, self.delta, self.batched = algorithm, problem, epsilon, delta, batched

    def __call__(self, data: Mapping[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        return np.asarray(self.algorithm(data["X"], data["y"], self.problem, self.epsilon, self.delta, rng).output)

    def sample(self, data: Mapping[str, np.ndarray], n: int, rng: np.random.Generator) -> np.ndarray:
        if self.batched is not None:
            return self.batched(data, self.problem, self.epsilon, self.delta, n, rng)
        out = self.algorithm(data["X"], data["y"], self.problem, self.epsilon, self.delta, rng, replicates=n).output
        return np.asarray(out).reshape(n, -1)

    def claim(self, data: Mapping[str, np.ndarray]) -> Any:
        return self.algorithm(data["X"], data["y"], self.problem, self.epsilon, self.delta,
                              np.random.default_rng(0)).claim


#: the corpus's own tests of a visible canary-audited bug: audits at the corpus budget, and detection rates
CANARY_AUDIT_TESTS = ("tests/test_planted_bugs.py::test_default_budget_audits_refute_each_visible_mutant",
                      "tests/test_planted_bugs.py::test_campaign_detection_rate")


@dataclass(frozen=True)
class PlantedBug:
    """A planted bug audited on a canary pair.  ``true_epsilon``/``correct_epsilon``: exact ε at the claim's δ
    on ``pair`` (``inf``: the mutant's δ(ε) exceeds δ for every ε; ``nan``: not computed here).  ``visible``:
    the canary audit catches it (else ``true_privacy_note`` says why no audit here can).

    ``claim_notion``: the notion its claim is stated in and audited under by default ("approx": the (ε, δ)
    threshold audit; "gdp" / "zcdp": the curve audit against the claimed μ-GDP / ρ-zCDP curve); for "gdp" and
    "zcdp", ``true_parameter``/``correct_parameter`` give the exact μ or ρ of the mutant's and the correct
    release on ``pair``, and ``audit_tests`` the tests that run that audit."""

    name: str
    mutant: Algorithm
    correct: Algorithm
    bug: str
    precedent: str
    instance: str
    pair: Callable[[], tuple[Dataset, Dataset]]
    problem: ERMProblem
    epsilon: float
    delta: float
    true_epsilon: Callable[[], float]
    correct_epsilon: Callable[[], float]
    true_privacy_note: str = ""
    mutant_batched: Callable[..., np.ndarray] | None = None
    correct_batched: Callable[..., np.ndarray] | None = None
    audit_kwargs: Mapping[str, Any] = field(default_factory=dict)
    visible: bool = True  # False: not a violation on any instance we could audit (documented)
    samples: int = DEFAULT_SAMPLES  # runs per side of one audit (the corpus budget unless stated)
    paper: str = "bftt19"
    claim_notion: str = "approx"
    true_parameter: Callable[[], float] | None = None
    correct_parameter: Callable[[], float] | None = None
    audit_tests: tuple[str, ...] = ()

    @property
    def caught_by(self) -> str:
        """The audit that catches the bug, or why none here does."""
        if not self.visible:
            return f"not caught by a black-box audit here: {self.true_privacy_note}"
        how = ", ".join(f"{k}={v!r}" for k, v in self.audit_kwargs.items())
        if self.claim_notion in ("gdp", "zcdp"):
            curve = {"gdp": "μ-GDP", "zcdp": "ρ-zCDP"}[self.claim_notion]
            return (f"curve audit against the claimed {curve} curve (dpsco.verification.auditing.curve_audit."
                    f"audit_curve, Clopper–Pearson box below the trade-off curve, confidence {DEFAULT_CONFIDENCE}, "
                    f"{self.samples:,} runs per side) on {self.instance}; detection rate measured by "
                    f"detection_rate(notion={self.claim_notion!r}) (docs/planted-bugs.md)")
        return (f"black-box privacy audit (dpsco.verification.auditing.audit.audit, split-sample Clopper–Pearson, "
                f"confidence {DEFAULT_CONFIDENCE}, {self.samples:,} runs per side{', ' + how if how else ''}) on "
                f"{self.instance}; detection rate measured by detection_rate (docs/planted-bugs.md)")

    @property
    def tests(self) -> tuple[str, ...]:
        """pytest ids of the tests that run the audit (or, for an invisible bug, check it is no violation)."""
        if self.audit_tests:
            return self.audit_tests
        if self.visible:
            return CANARY_AUDIT_TESTS
        return ("tests/test_planted_bugs.py::test_invisible_mutants_are_documented_non_violations",)

    def mechanism(self, which: str = "mutant") -> Mechanism:
        if which == "mutant":
            return Mechanism(self.mutant, self.problem, self.epsilon, self.delta, self.mutant_batched)
        if which == "correct":
            return Mechanism(self.correct, self.problem, self.epsilon, self.delta, self.correct_batched)
        raise ValueError(f"which must be 'mutant' or 'correct', got {which!r}")


@dataclass(frozen=True)
class PaperTestBug:
    """A planted bug caught on a worst-case instance that its paper's test files build (not audited here).

    ``true_privacy``: the exact privacy of the mutant (and of the correct release) on that instance, in words;
    ``caught_by``: the audit or exact check that catches it; ``tests``: pytest ids of the tests that run it (the
    first one runs the mutant itself); ``visible``: the listed audit or check catches it."""

    name: str
    mutant: Algorithm
    correct: Algorithm
    paper: str
    bug: str
    precedent: str
    instance: str
    true_privacy: str
    caught_by: str
    tests: tuple[str, ...]
    visible: bool = True
