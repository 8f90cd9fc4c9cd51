"""docs/auditing.md says what the auditors do (issue: verdicts that hold against hostile input, item 12).

* The "limit" column of the measured-targets table is the limit of the design *as run*: the oracle's expected
  bound at the audit's test size (half the runs for the split threshold audit, 80 % for the split Gaussian-DP
  route, 99 % with a claim-placed event), recomputed here with ``planning.expected_epsilon_lower_bound``.
* A GDP audit's ``epsilon_lower`` and ``mu_lower`` hold jointly only at 1 − 2α.
* A one-run audit's scoring function must not read the canary mask.

Deterministic.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dpsco.verification.auditing.planning import expected_epsilon_lower_bound

DOC = (Path(__file__).resolve().parents[1] / "docs" / "auditing.md").read_text(encoding="utf-8")

ROWS = [  # (row label prefix, mechanism, δ, runs per side, route, test size)
    ("Laplace ε = 1, threshold, split, 10⁵", "laplace", 0.0, 10**5, None, 50_000),
    ("Laplace ε = 1, threshold, claim-placed, 10⁵", "laplace", 0.0, 10**5, None, 99_000),
    ("Gaussian (1, 10⁻⁵), Gaussian-DP route, split, 10⁵", "gaussian", 1e-5, 10**5, "gdp", 80_000),
    ("Gaussian (1, 10⁻⁵), Gaussian-DP route, claim-placed, 10⁵", "gaussian", 1e-5, 10**5, "gdp", 99_000),
    ("Gaussian (1, 10⁻⁵), threshold, split, 10⁶", "gaussian", 1e-5, 10**6, None, 500_000),
    ("Gaussian (1, 10⁻⁵), threshold, claim-placed, 10⁶", "gaussian", 1e-5, 10**6, None, 990_000),
]


@pytest.mark.parametrize("label, mech, delta, n, route, test", ROWS, ids=[r[0] for r in ROWS])
def test_the_limit_column_is_the_limit_of_the_design_as_run(label, mech, delta, n, route, test):
    line = next(ln for ln in DOC.splitlines() if ln.lstrip("| *").startswith(label))
    limit = float(line.split("|")[3])
    want = expected_epsilon_lower_bound(mech, 1.0, delta, test, **({"route": route} if route else {}))
    assert limit == pytest.approx(want, abs=5e-4), (label, limit, want)


def test_the_gdp_joint_level_and_the_one_run_mask_rule_are_stated():
    assert re.search(r"hold jointly only at\s+confidence 1 − 2α", DOC)
    assert re.search(r"must not\s+read `mask`", DOC)
