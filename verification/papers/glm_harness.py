"""The harness helpers shared by the GLM entries of Bassily, Feldman, Talwar & Thakurta (2019) and Lowy &
Razaviyayn (2021) (``verification/papers/bftt19/harness.py``, ``verification/papers/lr21/harness.py``): the public
inputs of every harness run (the logistic loss, W = B(0, 2), declared bounds ‖x‖ ≤ 1 and y ∈ {±1}, n = 40 records
in d = 2, ε = 1, δ = 1/n²), benign and alternating records, the admissible extreme records, and the catalogue's
calling convention.  A record is a row [x | y] of an (n, 3) array.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from dpsco.reference import Ball, DataBounds, ERMProblem, get_loss
from dpsco.reference.clipping import row_norms
from dpsco.reference.privacy import Release

__all__ = ["D", "DELTA", "EPS", "N", "NSGD_NOISE_RUNS", "OBJP_NOISE_RUNS", "RADIUS", "X_NOISE", "alternating_records",
           "benign_records", "call_entry", "entry_options", "extreme_features", "extreme_logistic_record",
           "harness_problem", "split"]

N, D = 40, 2
EPS = 1.0
DELTA = 1.0 / N**2
RADIUS = 2.0
#: the record every noise dataset of Algorithm 1's family repeats (‖x‖ = 1)
X_NOISE = np.array([0.6, 0.8])
#: runs per noise sample of Algorithm 1's family: T·d·200 = 1200 residuals at T = 3, d = 2
NSGD_NOISE_RUNS = 200
#: runs per noise sample of the objective-perturbation entries (d = 2 residuals each)
OBJP_NOISE_RUNS = 500


# ---- the public inputs and the records ----------------------------------------------------------------------


def harness_problem(loss: str = "logistic", radius: float = RADIUS) -> ERMProblem:
    """The declared problem of the harness runs: ``loss``, W = B(0, radius), ‖x‖ ≤ 1, |y| ≤ 1."""
    return ERMProblem(get_loss(loss), Ball(radius), DataBounds(1.0, 1.0))


def benign_records(rng: np.random.Generator, n: int = N, d: int = D) -> np.ndarray:
    """(n, d + 1) records [x | y]: x standard normal pulled into the unit ball, y = ±1 from a logistic model
    (the catalogue contract's instance)."""
    X = rng.standard_normal((n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    w = np.linspace(1.0, -0.5, d)
    y = np.where(rng.random(n) < 1.0 / (1.0 + np.exp(-X @ w)), 1.0, -1.0)
    return np.column_stack([X, y])


def alternating_records(n: int, x: np.ndarray = X_NOISE) -> np.ndarray:
    """n records (x, +1), (x, −1), ... alternating: the logistic empirical risk is then even in ⟨w, x⟩, so its
    gradient at 0 vanishes and every ridge-regularised minimiser lies near 0 (used by the noise samples)."""
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    return np.column_stack([np.tile(x, (n, 1)), y])


#: coordinates an extreme record takes (before signs): on the bound, a ratio of 1e300, tiny and subnormal
_EXTREME_X = ((1.0, 0.0), (0.0, 1.0), (1.0, 1e-300), (1e-300, 1.0), (1.0, 5e-324), (5e-324, 1.0),
              (1e-300, 1e-300), (5e-324, 5e-324), (5e-324, 0.0), (1e-150, 1e-150), (0.0, 0.0), (0.6, 0.8))


def extreme_features(draw: Any, d: int = D) -> np.ndarray:
    """x (d,) with ‖x‖ ≤ 1 (admissible) at an extreme: one of :data:`_EXTREME_X` (d = 2) or a point of the unit
    sphere at any angle, every coordinate's sign drawn."""
    from hypothesis import strategies as st

    if d != 2:
        raise ValueError(f"the extreme records are drawn in d = 2, got d = {d}")
    if draw(st.booleans(), label="on the sphere at an angle"):
        theta = draw(st.floats(0.0, 2.0 * math.pi, allow_nan=False), label="angle")
        x = np.array([math.cos(theta), math.sin(theta)])
        return x / max(1.0, float(row_norms(x)))  # ‖x‖ ≤ 1 in floating point
    x = np.array(draw(st.sampled_from(_EXTREME_X), label="extreme x"), dtype=np.float64)
    signs = np.array([draw(st.sampled_from((-1.0, 1.0)), label="sign") for _ in range(d)])
    return x * signs


def extreme_logistic_record(draw: Any) -> np.ndarray:
    """[x | y] with x from :func:`extreme_features` and y = ±1 (the logistic loss's labels)."""
    from hypothesis import strategies as st

    return np.append(extreme_features(draw), draw(st.sampled_from((-1.0, 1.0)), label="y"))


def split(records: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(X (n, p − 1), y (n,)) of an (n, p) record array."""
    R = np.asarray(records, dtype=np.float64)
    return R[:, :-1].copy(), R[:, -1].copy()


def entry_options(name: str) -> dict[str, Any]:
    """The options the harness runs ``name`` with: its ``quick_options`` if any, else its ``options``."""
    from dpsco.verification.papers.catalogue import get_entry

    entry = get_entry(name)
    return dict(entry.quick_options or entry.options)


def call_entry(name: str, algorithm: Callable[..., Release] | None, records: np.ndarray, rng: np.random.Generator,
               *, problem: ERMProblem | None = None, epsilon: float = EPS, delta: float | None = None,
               **extra: Any) -> Release:
    """``algorithm`` (default: the entry's ``run``) on ``records`` with the catalogue's calling convention
    (X, y, problem, ε, δ, rng, **options) at the harness's public inputs (δ = 1/n² unless given)."""
    from dpsco.verification.papers.catalogue import get_entry

    fn = get_entry(name).run if algorithm is None else algorithm
    X, y = split(records)
    dl = 1.0 / X.shape[0] ** 2 if delta is None else delta
    return fn(X, y, harness_problem() if problem is None else problem, epsilon, dl, rng,
              **{**entry_options(name), **extra})
