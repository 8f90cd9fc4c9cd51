"""The auditor's inputs: a privacy claim, two datasets, and the check that they are neighbours.

A non-neighbouring pair can "refute" a true claim, so every audit checks the pair against the claim's
relation (replace-one or add/remove) before drawing a single run, treating axis 0 of every array as the
record axis.  Used by :func:`dpsco.verification.auditing.audit.audit`, the family audit and the estimator
choice.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any, Mapping

import numpy as np

from dpsco.reference.privacy import PrivacyClaim

__all__ = ["as_claim", "as_real_output", "check_dataset", "check_neighbouring_pair"]


def as_claim(claim: Any) -> PrivacyClaim:
    """The claim to audit: a :class:`PrivacyClaim` as given, or an (ε, δ) tuple read as a replace-one
    approx-DP claim (pure DP if δ = 0) with source "user-declared".

    Raises
    ------
    ValueError
        A claim with notion "none" (no guarantee: nothing to audit).
    TypeError
        Anything else, or a tuple whose entries are not real numbers.
    """
    if isinstance(claim, PrivacyClaim):
        if not claim.is_private:
            raise ValueError("claim has notion 'none' (no guarantee): there is nothing to audit")
        return claim
    if isinstance(claim, tuple) and len(claim) == 2:
        eps, delta = claim
        for name, v in (("claim epsilon", eps), ("claim delta", delta)):
            if isinstance(v, bool) or not isinstance(v, Real):
                raise TypeError(f"{name} must be a real number, got {type(v).__name__}")
        return PrivacyClaim(
            notion="pure-DP" if float(delta) == 0.0 else "approx-DP",
            epsilon=float(eps),
            delta=float(delta),
            neighbouring="replace-one",
            source="user-declared",
        )
    raise TypeError(f"claim must be a PrivacyClaim or an (epsilon, delta) tuple, got {type(claim).__name__}")


def check_dataset(data: Any, name: str) -> dict[str, np.ndarray]:
    """A read-only copy of ``data`` (a non-empty mapping from string names to numeric arrays).

    ``name`` ("dataset", "neighbour") names the argument in errors: TypeError for a non-mapping, a non-string
    key or a non-numeric (object) array; ValueError for an empty mapping.
    """
    if not isinstance(data, Mapping):
        raise TypeError(f"{name} must be a dict mapping names to arrays, got {type(data).__name__}")
    if len(data) == 0:
        raise ValueError(f"{name} must contain at least one array")
    out: dict[str, np.ndarray] = {}
    for key, value in data.items():
        if not isinstance(key, str):
            raise TypeError(f"{name} keys must be strings, got {type(key).__name__}")
        try:
            arr = np.array(value, copy=True)
        except Exception as exc:  # noqa: BLE001 - any conversion failure is a type error of the input
            raise TypeError(f"{name}[{key!r}] is not convertible to an array: {exc}") from None
        if arr.dtype == object:
            raise TypeError(f"{name}[{key!r}] must be a numeric (non-object) array")
        arr.setflags(write=False)
        out[key] = arr
    return out


def _row_diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Boolean (n,) mask of rows (axis 0) where a and b differ (NaN equals NaN)."""
    # the row width from the trailing shape, not -1: reshape(0, -1) is ambiguous and raises for zero records
    a2 = a.reshape(a.shape[0], int(np.prod(a.shape[1:], dtype=np.int64)))
    b2 = b.reshape(b.shape[0], int(np.prod(b.shape[1:], dtype=np.int64)))
    same = a2 == b2
    if np.issubdtype(a2.dtype, np.floating) or np.issubdtype(a2.dtype, np.complexfloating):
        same |= np.isnan(a2) & np.isnan(b2)
    return ~np.all(same, axis=1)


def check_neighbouring_pair(
    ds: dict[str, np.ndarray], nb: dict[str, np.ndarray], relation: str
) -> dict[str, Any]:
    """Raise ValueError unless ``ds`` and ``nb`` are neighbours under ``relation`` (axis 0 = records).

    ``relation`` "replace-one": same keys and shapes, at most one axis-0 row differing over all arrays;
    otherwise add/remove: one side has exactly one more record, and removing one record (the same index
    range in every array) maps it to the other.  Returns what was found: ``{"relation", "differing_records"}``
    or ``{"relation", "larger", "removed_index_range"}``.
    """
    if set(ds) != set(nb):
        raise ValueError(f"dataset and neighbour must have the same keys: {sorted(ds)} vs {sorted(nb)}")
    if relation == "replace-one":
        differing: set[int] = set()
        for key in ds:
            a, b = ds[key], nb[key]
            if a.shape != b.shape:
                raise ValueError(
                    f"dataset[{key!r}] and neighbour[{key!r}] have shapes {a.shape} and {b.shape}: "
                    "replace-one neighbours have the same shapes"
                )
            if a.ndim == 0:
                if not np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"):
                    raise ValueError(f"dataset[{key!r}] and neighbour[{key!r}] are scalars that differ")
                continue
            differing.update(int(i) for i in np.nonzero(_row_diff(a, b))[0])
        if len(differing) > 1:
            raise ValueError(
                f"dataset and neighbour differ in {len(differing)} records (axis-0 rows {sorted(differing)[:5]}...): "
                "replace-one neighbours differ in at most one record (pass check_neighbouring=False for "
                "layouts where axis 0 is not the record axis)"
            )
        return {"relation": "replace-one", "differing_records": sorted(differing)}
    # add/remove: one dataset has exactly one more record than the other
    sizes = {key: (ds[key].shape, nb[key].shape) for key in ds}
    grow = [k for k, (sa, sb) in sizes.items() if sa != sb]
    if not grow:
        raise ValueError("add/remove neighbours must differ in size by one record; all arrays have equal shapes")
    bigger = None
    lo, hi = -math.inf, math.inf
    for key in ds:
        a, b = ds[key], nb[key]
        if key not in grow:
            if not np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"):
                raise ValueError(f"dataset[{key!r}] differs from neighbour[{key!r}] but has the same shape")
            continue
        if a.ndim == 0 or b.ndim == 0 or a.shape[1:] != b.shape[1:] or abs(a.shape[0] - b.shape[0]) != 1:
            raise ValueError(
                f"dataset[{key!r}] {a.shape} and neighbour[{key!r}] {b.shape} do not differ by exactly one record"
            )
        side = "dataset" if a.shape[0] > b.shape[0] else "neighbour"
        if bigger is None:
            bigger = side
        elif bigger != side:
            raise ValueError("add/remove: the larger dataset must be the same for every array")
        big, small = (a, b) if side == "dataset" else (b, a)
        n = small.shape[0]
        diff_prefix = _row_diff(big[:n], small)
        p = int(np.argmax(diff_prefix)) if np.any(diff_prefix) else n
        diff_suffix = _row_diff(big[1:], small)[::-1]
        s = int(np.argmax(diff_suffix)) if np.any(diff_suffix) else n
        # removal index i must satisfy n − s <= i <= p
        lo, hi = max(lo, n - s), min(hi, p)
    if lo > hi:
        raise ValueError("dataset and neighbour are not add/remove neighbours (no single record removal maps one to the other)")
    return {"relation": "add/remove", "larger": bigger, "removed_index_range": [int(lo), int(hi)]}


def as_real_output(value: Any, what: str = "the mechanism's output") -> np.ndarray:
    """``value`` as a float64 array, refusing every conversion that would lose information.

    An auditor that casts a complex output to real audits only its real part (a mechanism ``laplace + 1j·Σx``
    leaks through the imaginary part and would pass any claim); integers beyond 2⁵³, long doubles, Python
    integers and Decimals can round to equal floats, and strings would be parsed.  So: bool, integer and
    float arrays convert when float64 holds every value exactly; anything else raises.

    Raises
    ------
    ValueError
        Complex values (return real coordinates, e.g. ``np.concatenate([z.real, z.imag])``), strings, bytes,
        dates, or values that float64 cannot hold exactly (the message names ``what``).
    """
    arr = np.asarray(value)
    kind = arr.dtype.kind
    if kind == "c":
        raise ValueError(f"{what} is complex ({arr.dtype}); an audit of its real part would miss the imaginary "
                         "part, so return real coordinates (e.g. np.concatenate([z.real, z.imag]))")
    if kind not in "biufO":
        raise ValueError(f"{what} has dtype {arr.dtype}, which is not a real number type")
    if kind == "b" or (kind == "f" and arr.dtype.itemsize <= 8):
        return arr.astype(np.float64, copy=False)
    if kind == "O" and any(isinstance(v, (complex, np.complexfloating, str, bytes)) for v in arr.ravel()):
        raise ValueError(f"{what} holds complex numbers or strings; return real coordinates")
    try:
        out = arr.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} cannot be read as real numbers ({type(exc).__name__}: {exc})") from None
    if kind == "O":   # Python compares int/Decimal/Fraction with float exactly: v == type(v)(float(v)) iff no rounding
        exact = all(isinstance(v, float) or not math.isfinite(f) or type(v)(f) == v
                    for v, f in zip(arr.ravel().tolist(), out.ravel().tolist()))
    else:             # integers beyond 2**53, long doubles: the round trip through float64 must be the identity
        with np.errstate(invalid="ignore", over="ignore"):
            exact = bool(np.all((out.astype(arr.dtype) == arr) | ~np.isfinite(out)))
    if not exact:
        raise ValueError(f"{what} ({arr.dtype}) has values that float64 cannot hold exactly, so distinct outputs "
                         "could be audited as equal; return float64 values")
    return out
