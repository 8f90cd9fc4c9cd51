"""The command line: ``dpsco verify | audit | compare | plan``.

The commands run BLAS on one thread per process unless the environment already sets the thread count
(``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``, ...): their linear algebra is small (d ≤ 50), the process
pool provides the parallelism, and a threaded BLAS on a busy 2-core machine made small products 100–700×
slower (``docs/performance.md``).  This must run before numpy is imported, hence here.
"""

import os as _os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    _os.environ.setdefault(_var, "1")
