"""Adding a sixth paper touches one shared line: its name in ``catalogue.PAPERS``.  A toy paper's room is built in a
temporary directory (a ``catalogue`` module declaring one entry, as every room does), put on the papers package's
path, and catalogued by the same function that builds the real catalogue, with the real five papers plus its name.
Deterministic; runs in a fresh interpreter so the real catalogue's registry is untouched."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TOY_CATALOGUE = '''"""A toy paper's room: one algorithm that releases x̄ + N(0, σ²) (the Gaussian mechanism on the mean)."""
import numpy as np

from dpsco.reference.privacy import PrivacyClaim, Release
from dpsco.verification.papers.registry import BudgetCost, CatalogueEntry


def toy_mean(X, y, problem, epsilon, delta, rng, replicates=None):
    out = np.asarray(X, dtype=float).mean(axis=0) + rng.standard_normal(np.asarray(X).shape[1])
    return Release(output=out, claim=PrivacyClaim(notion="approx-DP", epsilon=epsilon, delta=delta,
                                                  neighbouring="replace-one", source="toy paper"))


COST = BudgetCost(10, 2, rate_runs=2, stability_runs=2)
ENTRIES = (CatalogueEntry(name="toy99.mean", title="Toy mean", paper="A toy paper (2099)", algorithm_ref="Algorithm 1",
                          privacy_theorem="Thm 1", utility_theorem="Thm 2", run=toy_mean, synthetic_loss="logistic",
                          empirical_bound=lambda release, inputs: 2.0 * inputs.L * inputs.M,
                          paper_gradient_count=lambda release, inputs: None,
                          stability_bound=lambda release, inputs: (2.0 * inputs.L * inputs.M, None, "toy Thm 2"),
                          costs={"quick": COST, "standard": COST, "paper": COST}, planted_bugs=("toy_bug",)),)
'''

PROBE = """
import json, sys
import dpsco.verification.papers as papers
from dpsco.verification.papers import catalogue
from dpsco.verification.papers.registry import Registry
papers.__path__.append(sys.argv[1])          # the toy room lives outside the checkout
entries = catalogue.build_catalogue(catalogue.PAPERS + ("toy99",), Registry())
print(json.dumps({"names": [e.name for e in entries], "real": [e.name for e in catalogue.CATALOGUE]}))
"""


def test_the_paper_list_is_one_line_of_the_catalogue():
    source = (ROOT / "verification" / "papers" / "catalogue.py").read_text(encoding="utf-8")
    node = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.AnnAssign)
                and getattr(n.target, "id", None) == "PAPERS")
    assert node.lineno == node.end_lineno, "PAPERS must stay one line: a new paper adds its name there"


def test_a_sixth_paper_is_catalogued_from_its_room(tmp_path):
    room = tmp_path / "toy99"
    room.mkdir()
    (room / "__init__.py").write_text('"""toy99: a toy paper\'s room."""\n', encoding="utf-8")
    (room / "catalogue.py").write_text(TOY_CATALOGUE, encoding="utf-8")
    out = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["names"] == got["real"] + ["toy99.mean"]      # the real five papers first, in order, then the toy
    assert len(got["real"]) == 36
