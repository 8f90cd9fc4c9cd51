"""Input validation shared by every algorithm.

Every check raises ``ValueError`` (bad value) or ``TypeError`` (bad type) with a message that names the
offending parameter, so a caller can tell at once what to fix.  Nothing here looks at private data to
*choose* a privacy parameter: the data checks only compare the data with bounds the caller declared.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

import numpy as np

__all__ = [
    "as_float_matrix",
    "as_float_vector",
    "check_data",
    "check_delta",
    "check_epsilon",
    "check_positive",
    "check_positive_int",
    "check_rng",
]


def check_rng(rng: Any, name: str = "rng") -> np.random.Generator:
    """Return ``rng`` if it is a ``numpy.random.Generator``; raise ``TypeError`` otherwise.

    Randomness only enters through an explicit generator: no global state, no integer seeds silently
    turned into generators inside an algorithm.
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"{name} must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def check_positive(value: Any, name: str, *, allow_zero: bool = False, allow_inf: bool = False) -> float:
    """Return ``value`` as a float after checking it is a finite real > 0 (or >= 0 with ``allow_zero``)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    v = float(value)
    if math.isnan(v) or (math.isinf(v) and not allow_inf):
        raise ValueError(f"{name} must be finite, got {v}")
    if v < 0 or (v == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {bound}, got {v}")
    return v


def check_positive_int(value: Any, name: str) -> int:
    """Return ``value`` as an int after checking it is an integer >= 1."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if int(value) < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return int(value)


def check_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    """Privacy parameter ε: a finite real > 0."""
    return check_positive(epsilon, name)


def check_delta(delta: Any, name: str = "delta") -> float:
    """Privacy parameter δ: a real in [0, 1)."""
    if isinstance(delta, bool) or not isinstance(delta, Real):
        raise TypeError(f"{name} must be a real number, got {type(delta).__name__}")
    d = float(delta)
    if math.isnan(d) or not (0.0 <= d < 1.0):
        raise ValueError(f"{name} must lie in [0, 1), got {d}")
    return d


def as_float_matrix(X: Any, name: str = "X") -> np.ndarray:
    """``X`` as a C-contiguous float64 array of shape (n, d) with n >= 1, d >= 1 and finite entries."""
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric (n, d) array: {exc}") from None
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of shape (n, d), got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty: the dataset must have at least one row")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} must have at least one column (d >= 1)")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return np.ascontiguousarray(arr)


def as_float_vector(v: Any, name: str, length: int | None = None) -> np.ndarray:
    """``v`` as a float64 array of shape (length,) with finite entries."""
    try:
        arr = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric 1-D array: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {arr.shape}")
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name} must have length {length}, got {arr.shape[0]}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def check_data(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validate a dataset: ``X`` (n, d) finite floats, ``y`` (n,) finite floats, n >= 1."""
    Xa = as_float_matrix(X, "X")
    ya = as_float_vector(y, "y")
    if ya.shape[0] != Xa.shape[0]:
        raise ValueError(f"X and y must have the same number of rows: X has {Xa.shape[0]}, y has {ya.shape[0]}")
    return Xa, ya
