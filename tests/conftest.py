"""Test-wide settings.

BLAS runs on one thread per test process (unless the environment says otherwise), as the ``dpsco`` commands
run it: under ``pytest -n auto`` every core already runs a test, and a threaded BLAS on a busy machine made
small products 100–700× slower (``docs/performance.md``).  Set before any test module imports numpy.
"""

import os
import sys

# the papers' test folders (tests/<paper>/) import the shared helpers (_mechanisms, _problems, _fuzz) by name
_TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _TESTS)
# and a test may import another room's test module by name (e.g. its worst-case instance builders)
sys.path[1:1] = sorted(os.path.join(_TESTS, d) for d in os.listdir(_TESTS)
                       if os.path.isdir(os.path.join(_TESTS, d)) and not d.startswith((".", "_")))

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
