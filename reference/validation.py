"""Input validation shared by every algorithm.

Every check raises ``ValueError`` (bad value) or ``TypeError`` (bad type) with a message that names the
offending parameter, so a caller can tell at once what to fix.  Nothing here looks at private data to
*choose* a privacy parameter: the data checks only compare the data with bounds the caller declared.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any, Iterable

import numpy as np

__all__ = [
    "DELTA_MIN",
    "EPSILON_MAX",
    "EPSILON_MIN",
    "MAX_ITERATIONS",
    "as_float_matrix",
    "as_float_vector",
    "check_bool",
    "check_calibration_budget",
    "check_choice",
    "check_data",
    "check_delta",
    "check_epsilon",
    "check_iterations",
    "check_positive",
    "check_positive_int",
    "check_rng",
]

#: Cap on every iteration count a loop of ``reference`` is asked to run (inner optimisers, A_NSGD's T, the
#: inner prox steps of A_ProxGD, the SVRG inner length of efficient objective perturbation).  10^7 steps of
#: these pure-Python loops take minutes for the cheapest step (one stochastic subgradient) and hours for
#: full-gradient steps on a few thousand rows, while the theorems' counts on the data used here stay below
#: 10^6.  Counts beyond the cap come from degenerate public inputs (λ = 1e-12 in Algorithm 2 of Lowy &
#: Razaviyayn gives T ≈ 1.5e7 AGD or 6e15 subgradient steps) and would not finish; :func:`check_iterations`
#: refuses them before any loop starts, saying which parameter to change.
MAX_ITERATIONS = 10**7

#: Range of ε accepted by the algorithms (the ε their noise is calibrated to).  The calibrations divide by ε
#: and ε² (σ² = 10L² log(1/δ)/ε², s = d/ε, ...) and multiply by it (T ∝ ε²n², α ∝ 1/ε or 1/ε²); inside
#: [1e-100, 1e100] all of these stay normal floating-point numbers for every realistic n, d, L, while outside it
#: they overflow or underflow (ε = 1e-200 made ε² = 0).  Such an ε is meaningless anyway: ε = 1e-100 already
#: releases pure noise, and ε = 1e100 no privacy at all.
EPSILON_MIN = 1e-100
EPSILON_MAX = 1e100

#: Smallest positive δ accepted by the algorithms.  Near the smallest normal double (≈ 2.2e-308) 1/δ
#: overflows and log(1/δ) (every Gaussian calibration) becomes infinite; 1e-300 leaves room for the budget
#: splits (efficient objective perturbation uses log(1.25/δ₂) with δ₂ = δ/(3(1 + e^ε)), which overflowed
#: at δ = 2.2e-308).  δ = 0 stays allowed where the algorithm supports pure DP.
DELTA_MIN = 1e-300


def _to_float(value: Real, name: str) -> float:
    """``float(value)``; an integer or fraction beyond the float range (``10**400``: ``float`` raises
    OverflowError) is a ValueError naming ``name``."""
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{name} = {value!r:.40} is too large for a floating-point number") from None


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
    v = _to_float(value, name)
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


def check_bool(value: Any, name: str) -> bool:
    """Return ``value`` if it is a bool (``numpy.bool_`` accepted); raise ``TypeError`` otherwise.

    Flags such as ``clip`` change what is computed from the private data, so a truthy string like ``"no"``
    must not silently switch them on.
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")


def check_choice(value: Any, name: str, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of the strings ``choices``; raise ``ValueError`` naming ``name`` otherwise."""
    options = tuple(choices)
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {options}, got {value!r}")
    return value


def check_iterations(value: Any, name: str = "T", *, allow_zero: bool = False, cap: int | None = None,
                     remedy: str = "") -> int:
    """Return an iteration count as an int after checking 1 <= value <= cap (0 allowed with ``allow_zero``).

    ``cap`` defaults to :data:`MAX_ITERATIONS`.  Call it *before* the loop starts, on every count a loop of
    ``reference`` will run, whether the caller passed it or a theorem's formula computed it from public
    inputs.  ``remedy`` says in the error what to change (e.g. "increase lam or alpha").

    Raises
    ------
    TypeError
        ``value`` is not an integer (bool refused).
    ValueError
        ``value`` < 1 (< 0 with ``allow_zero``), or ``value`` > cap; the message names ``name``.
    """
    limit = MAX_ITERATIONS if cap is None else cap
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer iteration count, got {value!r} ({type(value).__name__})")
    v = int(value)
    low = 0 if allow_zero else 1
    if v < low:
        raise ValueError(f"{name} must be >= {low}, got {v}")
    if v > limit:
        shown = str(v) if v < 10**12 else f"{v:.3e}" if v < 10**300 else f"10^{len(str(v)) - 1}"
        raise ValueError(
            f"{name} = {shown} iterations exceeds the cap MAX_ITERATIONS = {limit} "
            f"(dpsco.reference.validation): such a loop would not finish"
            + (f"; {remedy}" if remedy else "")
        )
    return v


def check_delta(delta: Any, name: str = "delta") -> float:
    """Privacy parameter δ: a real in [0, 1)."""
    if isinstance(delta, bool) or not isinstance(delta, Real):
        raise TypeError(f"{name} must be a real number, got {type(delta).__name__}")
    d = _to_float(delta, name)
    if math.isnan(d) or not (0.0 <= d < 1.0):
        raise ValueError(f"{name} must lie in [0, 1), got {d}")
    return d


def check_calibration_budget(epsilon: Any, delta: Any) -> tuple[float, float]:
    """(ε, δ) that an algorithm calibrates its noise to: ``check_epsilon`` and ``check_delta``, plus the
    floating-point range in which every calibration of ``reference`` is finite (:data:`EPSILON_MIN`,
    :data:`EPSILON_MAX`, :data:`DELTA_MIN`).

    Raises
    ------
    TypeError
        ε or δ not a real number.
    ValueError
        ε outside [EPSILON_MIN, EPSILON_MAX] or not finite (message names ``epsilon``); δ outside [0, 1) or
        0 < δ < DELTA_MIN (message names ``delta``).
    """
    eps = check_epsilon(epsilon)
    if not EPSILON_MIN <= eps <= EPSILON_MAX:
        raise ValueError(
            f"epsilon = {eps!r} lies outside [{EPSILON_MIN:g}, {EPSILON_MAX:g}], the range in which the noise "
            "calibration (which divides by epsilon and epsilon^2) is a finite floating-point computation; such an "
            "epsilon gives pure noise (tiny) or no privacy (huge) anyway"
        )
    dl = check_delta(delta)
    if 0.0 < dl < DELTA_MIN:
        raise ValueError(
            f"delta = {dl!r} is below DELTA_MIN = {DELTA_MIN!r}: 1/delta overflows and the calibration's "
            "log(1/delta) would be infinite; use delta >= DELTA_MIN (or delta = 0 where pure DP is supported)"
        )
    return eps, dl


def _as_real_array(v: Any, name: str, expected: str) -> np.ndarray:
    """``v`` as a float64 array; complex input is refused (a cast would silently drop the imaginary part)."""
    try:
        raw = np.asarray(v)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric {expected} array: {exc}") from None
    if np.iscomplexobj(raw):
        raise TypeError(f"{name} must be real-valued, got a complex array (dtype {raw.dtype}); casting would "
                        "discard the imaginary part")
    try:
        return np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real numeric {expected} array: {exc}") from None
    except OverflowError:  # an object array holding an integer beyond the float range, e.g. 10**400
        raise ValueError(f"{name} contains a value too large for a floating-point number") from None


def as_float_matrix(X: Any, name: str = "X") -> np.ndarray:
    """``X`` as a C-contiguous float64 array of shape (n, d) with n >= 1, d >= 1 and finite entries.

    Raises ``TypeError`` for non-numeric or complex input, ``ValueError`` for a bad shape or NaN/inf."""
    arr = _as_real_array(X, name, "(n, d)")
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
    """``v`` as a float64 array of shape (length,) with finite entries.

    Raises ``TypeError`` for non-numeric or complex input, ``ValueError`` for a bad shape or NaN/inf."""
    arr = _as_real_array(v, name, "1-D")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {arr.shape}")
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name} must have length {length}, got {arr.shape[0]}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def check_data(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validate a dataset: ``X`` (n, d) finite real floats, ``y`` (n,) finite real floats, n >= 1.

    Raises ``TypeError`` (non-numeric or complex data) or ``ValueError`` (shapes, empty data, NaN/inf), naming
    ``X`` or ``y``."""
    Xa = as_float_matrix(X, "X")
    ya = as_float_vector(y, "y")
    if ya.shape[0] != Xa.shape[0]:
        raise ValueError(f"X and y must have the same number of rows: X has {Xa.shape[0]}, y has {ya.shape[0]}")
    return Xa, ya
