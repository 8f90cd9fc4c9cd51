"""Generic planted bugs of the common catalogue entries (Bassily et al., Lowy & Razaviyayn) that the utility and
stability checks of ``dpsco verify`` can see.

Each wraps any catalogue algorithm (the entry's ``run``, signature ``(X, y, problem, epsilon, delta, rng,
replicates=None, **options)``) and keeps its release — claim, parameters, counts — changing only the output.
**Never use these for anything but testing the checks.**

* :func:`release_last_record` — a leftover debug line that releases the last training record: the output is
  M·x_n/‖x_n‖ (the last record's feature direction on the boundary of W = B(0, M); e₁·M when x_n = 0), in
  every replicate.  Not private at all (the release is a function of one record), and not uniformly stable:
  on the campaign's neighbouring pair that replaces x_n by its antipode −x_n/‖x_n‖ (with the label flipped)
  the two outputs are M·u and −M·u, so at the probe point (−u, −y_n) the logistic loss differs by
  |log(1 + e^{M}) − log(1 + e^{−M})| = M = 2 on the real-data problem, against stability bounds of at most
  1.08 on the entries that can fail at all (the stability check of ``campaign.phases``).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np

from dpsco.reference.privacy import Release

__all__ = ["release_last_record"]


def release_last_record(X: Any, y: Any, problem: Any, epsilon: float, delta: float, rng: np.random.Generator,
                        *, algorithm: Callable[..., Release], replicates: int | None = None,
                        **options: Any) -> Release:
    """``algorithm``'s release with its output replaced by M·x_n/‖x_n‖ (planted bug: a leftover debug line
    that returns the last training record, scaled onto the boundary of W = B(0, M)).

    X : (n, d) records; y : (n,) labels; problem : the algorithm's problem (``problem.radius`` = M);
    ``algorithm`` runs first on the same arguments (so the random stream advances as in the correct run);
    the output keeps its shape ((d',) or (R, d') with ``replicates`` = R): the direction is cut to the
    output's first d' coordinates, or padded with zeros (the adversarial game's (w, ·) outputs).
    Returns the release with only ``output`` changed (the claim is now false).  Errors: those of
    ``algorithm``."""
    rel = algorithm(X, y, problem, epsilon, delta, rng, replicates=replicates, **options)
    out = np.asarray(rel.output, dtype=np.float64)
    x = np.asarray(X, dtype=np.float64)[-1]
    norm = float(np.linalg.norm(x))
    u = x / norm if norm > 0 else np.eye(x.size)[0]
    width = out.shape[-1]
    u = u[:width] if u.size >= width else np.pad(u, (0, width - u.size))
    return dataclasses.replace(rel, output=np.broadcast_to(float(problem.radius) * u, out.shape).copy())


# -- the registry rows these bugs serve (mutants.bftt19.catches and mutants.lr21.catches share them) -------------
#: the campaign test that reads the quick campaign's records and checks that each "uninformative" row's check is
#: labelled "uninformative" there (its bounds against the range of the checked quantity, its detectable excess)
CANNOT_FAIL_TEST = "tests/test_check_registry.py::test_campaign_inventory_is_committed_and_none_rows_hold"
#: the test that runs the campaign's stability phase on the memorisation bug (mutants.utility.release_last_record)
LAST_RECORD_TEST = "tests/test_common_catches.py::test_stability_check_refutes_the_released_last_record"
LAST_RECORD_NOTE = ("the campaign's stability phase (both orders of each pair) on the entry with its output replaced "
                     "by M·x_n/‖x_n‖: on the antipodal neighbour of x_n the outputs are ±M·u and the loss at the probe "
                     "(−u, −y_n) differs by M = 2 against bounds ≤ 1.08 (p ≤ 1e-280, deterministic)")
