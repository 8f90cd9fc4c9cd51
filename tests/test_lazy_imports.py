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


def test_paper_namespaces_import_as_modules_and_stay_lazy():
    # issue 27: `import dpsco.lr21` / `from dpsco.accd22 import algorithm_1` are the same module objects as
    # `from dpsco import lr21` (aliases of dpsco.reference.<paper>, never second copies); `import dpsco` alone
    # still loads none of them (test_loads_nothing_heavy)
    loaded = _loaded("import dpsco, dpsco.reference.lr21 as r\nimport dpsco.lr21\n"
                     "from dpsco.accd22 import algorithm_1\nimport dpsco.accd22.algorithms as a\n"
                     "import dpsco.reference.accd22 as ra, dpsco.reference.accd22.algorithms as rb\n"
                     "from dpsco import muabg23, alt24, bftt19\n"
                     "import dpsco.muabg23, dpsco.alt24, dpsco.bftt19\n"
                     "assert dpsco.lr21 is r and r.__spec__.name == 'dpsco.reference.lr21'\n"
                     "assert a is rb and algorithm_1 is ra.algorithm_1 and dpsco.accd22 is ra\n"
                     "assert dpsco.muabg23 is muabg23 and dpsco.alt24 is alt24 and dpsco.bftt19 is bftt19\n"
                     "try:\n    import dpsco.not_a_paper\nexcept ModuleNotFoundError:\n    pass\n"
                     "else:\n    raise AssertionError('dpsco.not_a_paper imported')\n")
    assert "dpsco.reference" in loaded and "dpsco.verification.papers" not in loaded
