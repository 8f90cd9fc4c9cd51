"""``import dpsco`` and ``dpsco --help`` load none of the heavy parts (auditors, the catalogue, cvxpy, scipy,
matplotlib, statsmodels, scikit-learn, Dask) until they are used; the public names all resolve.  Each check runs
in a fresh interpreter (deterministic).  benchmarks/import_time.py measures the times (docs/performance.md)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("cvxpy", "scipy", "matplotlib", "statsmodels", "sklearn", "dask", "distributed", "jinja2", "dp_accounting",
         "numpy", "dpsco.verification.auditing", "dpsco.verification.papers", "dpsco.verification.campaign",
         "dpsco.reference", "dpsco.oracles")

_PROBE = """
import json, sys
{code}
loaded = sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in {heavy!r}))
print(json.dumps(loaded))
"""


def _loaded(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", _PROBE.format(code=code, heavy=HEAVY)], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.parametrize("code", [
    "import dpsco",
    "import contextlib, io\nfrom dpsco.verification.cli.main import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n    assert main(['--help']) == 0",
], ids=["import dpsco", "dpsco --help"])
def test_loads_nothing_heavy(code):
    assert _loaded(code) == []


def test_public_names_resolve_and_list_no_internals():
    import dpsco

    assert dpsco.__all__ == sorted(dpsco.__all__)
    for name in ("load_fair", "compare", "plan", "one_run_audit", "LogisticLoss", "audit", "Release"):
        assert name in dpsco.__all__
    for name in dpsco.__all__:
        assert getattr(dpsco, name) is not None, name
    assert not [n for n in dpsco.__all__ if n.startswith("_")]


def test_a_subcommand_imports_only_its_own_module():
    loaded = _loaded("import contextlib, io\nfrom dpsco.verification.cli.main import main\n"
                     "with contextlib.redirect_stdout(io.StringIO()):\n    assert main(['plan', '--help']) == 0")
    assert "dpsco.verification.papers" not in loaded and "dpsco.verification.campaign" not in loaded
