"""ℓ2 clipping that holds in floating point, overflow-safe norms, and the last fail-safe before a noisy release.

A sensitivity proof says ‖clip_C(g)‖ ≤ C.  In floating point that needs care:

* ``np.linalg.norm`` of a row with entries near 1e308 overflows to inf, and of a row with entries near 1e-300
  underflows to 0 (then C/‖g‖ = inf and inf·0 = NaN).  :func:`row_norms` scales each row by its largest
  magnitude first (‖g‖ = m·‖g/m‖, m = max|g_i|), which neither overflows nor underflows for finite rows, and
  returns inf for a row with an infinite entry.
* g·(C/‖g‖) can round to a norm of C(1 + 2⁻⁵²·d).  :func:`clip_rows` rescales the few such rows by a factor just
  below one until ‖clip_C(g)‖ ≤ C holds as computed; for a subnormal C, where no such factor helps, the row is set
  to zero (tests/test_clipping_fast_path.py::test_subnormal_bound_holds).
* A row with an infinite entry is clipped to its limit direction (the signs of its infinite entries) and a row
  with a NaN entry to zero: both are bounded by C, so the step's sensitivity bound holds whatever the upstream
  computation did.  On finite rows nothing changes but the scaling.

:func:`enforce_norm_bound` is the fail-safe each noisy release applies to the per-sample terms it sums right
before the noise is added: a no-op on terms that already satisfy the bound (tested), and otherwise the
documented clipping above, so that an upstream defect cannot produce an unbounded sensitivity, a NaN, or an
exception that depends on one record.
"""

from __future__ import annotations

import numpy as np

__all__ = ["clip_rows", "clip_rows_each", "clip_rows_outside", "enforce_norm_bound", "row_norms"]


#: the fast paths below are taken only when every row's largest magnitude m lies in (0, _FAST_MAX): then the safe
#: path's masks (m = 0, inf and NaN rows) select nothing and ‖g‖ = m·√(Σ(g_i/m)²) ≤ √d·m cannot overflow
_FAST_MAX = 1e300
_SHRINK = 1.0 - 4.0 * float(np.finfo(np.float64).eps)  # the ulp-sized factor of clip_rows' last rescaling


def _check_bound(C: float) -> float:
    """C as a float, refusing a negative or NaN bound (ValueError naming ``C``): 72e457e returned sign-flipped rows
    of norm |C| for C < 0 (independent review), which no sensitivity proof covers."""
    C = float(C)
    if not C >= 0.0:
        raise ValueError(f"C (the clipping bound) must be >= 0, got {C!r}")
    return C


def _fast_maxima(A: np.ndarray) -> np.ndarray | None:
    """m = max|g_i| per row of A = |G| (keepdims), when every row is finite with 0 < m < 1e300, else None.

    np.max propagates NaN, so a row with a NaN or an infinite entry has m NaN or inf and fails ``m.max() <
    _FAST_MAX``; a zero row fails ``0 < m.min()``; no rows (or no columns) give None."""
    if A.shape[-1] == 0 or A.size == 0:
        return None
    m = A.max(axis=-1, keepdims=True)  # the ndarray methods are np.max / np.sum without their Python wrappers
    if 0.0 < m.min() and m.max() < _FAST_MAX:
        return m
    return None


def _scaled_norms(A: np.ndarray, m: np.ndarray) -> np.ndarray:
    """m·√(Σ(a_i/m)²) per row, the same operations in the same order as the safe path of :func:`row_norms` (whose
    ``safe`` equals m when every m is finite and positive); keepdims then ``[..., 0]`` so that a (d,) input gives
    a 0-d array, as the safe path does."""
    return (np.sqrt(np.square(A / m).sum(axis=-1, keepdims=True)) * m)[..., 0]


def row_norms(G: np.ndarray) -> np.ndarray:
    """‖g‖₂ of each row (last axis) of G, overflow- and underflow-safe: shape G.shape[:-1].

    Finite rows give their exact-as-possible norm (no overflow to inf for entries up to 1.8e308, no underflow
    to 0 for subnormal entries); a row with an infinite entry gives inf; a row with a NaN entry gives NaN.

    Fast path (bit-identical, tests/test_clipping_fast_path.py): when every row is finite with largest magnitude
    in (0, 1e300), the NaN/inf/zero masks of the safe path are skipped (they would select nothing)."""
    G = np.asarray(G, dtype=np.float64)
    A = np.abs(G)
    m = _fast_maxima(A)
    if m is not None:
        return _scaled_norms(A, m)
    return _safe_row_norms(G, A)


def _safe_row_norms(G: np.ndarray, A: np.ndarray) -> np.ndarray:
    """The general path of :func:`row_norms` (any row: zero, subnormal, huge, inf, NaN)."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        m = np.max(A, axis=-1, keepdims=True) if G.shape[-1] else np.zeros(G.shape[:-1] + (1,))
        safe = np.where((m > 0) & np.isfinite(m), m, 1.0)
        scaled = np.sqrt(np.sum(np.square(A / safe), axis=-1)) * safe[..., 0]
    out = np.where(np.isinf(m[..., 0]), np.inf, scaled)
    return np.where(np.any(np.isnan(G), axis=-1), np.nan, out)


def clip_rows(G: np.ndarray, C: float) -> np.ndarray:
    """Each row g of G (last axis) scaled by min(1, C/‖g‖): ℓ2 clipping at C ≥ 0, with ‖out‖ ≤ C guaranteed in
    floating point (as :func:`row_norms` computes it).  Raises ValueError naming ``C`` if C < 0 or NaN.  Infinite rows are clipped to C times the unit vector of the signs of their infinite entries;
    rows with a NaN to 0.  Returns a new float array of G's shape.

    Fast path (bit-identical, tests/test_clipping_fast_path.py): when every row is finite with largest magnitude
    in (0, 1e300) (:func:`row_norms`' fast condition), the inf/NaN row handling is skipped (it would change
    nothing), and the clipped rows reuse those row maxima instead of recomputing them."""
    G = np.array(G, dtype=np.float64)
    C = _check_bound(C)
    if G.size == 0:
        return G
    A = np.abs(G)
    m = _fast_maxima(A)
    if m is not None:
        return _clip_finite_rows(G, C, m, _scaled_norms(A, m))
    nan_rows = np.any(np.isnan(G), axis=-1)
    inf_rows = np.any(np.isinf(G), axis=-1) & ~nan_rows
    if np.any(inf_rows):
        limit = np.where(np.isinf(G[inf_rows]), np.sign(G[inf_rows]), 0.0)
        G[inf_rows] = limit / np.sqrt(np.sum(limit * limit, axis=-1, keepdims=True)) * C
    G[nan_rows] = 0.0
    norms = row_norms(G)
    over = norms > C
    if np.any(over):
        G[over] = _rescale(G[over], C, np.max(np.abs(G[over]), axis=-1, keepdims=True))
    return G


def _clip_finite_rows(G: np.ndarray, C: float, m: np.ndarray, norms: np.ndarray) -> np.ndarray:
    """:func:`clip_rows` of G in place on its fast path: G (..., d) finite, with its row maxima m (keepdims) in
    (0, 1e300) and ``norms`` = :func:`row_norms` (G), both computed by the caller on these rows in this layout."""
    over = norms > C
    if over.any():
        G[over] = _rescale(G[over], C, m[over])
    return G


def _rescale(sub: np.ndarray, C: float, m: np.ndarray) -> np.ndarray:
    """Rows ``sub`` (j, d), finite, with row maxima m (j, 1) > 0, scaled to norm C with ‖out‖ ≤ C as computed."""
    # scale in two steps (by the row's magnitude first) so that neither factor under- or overflows
    unit = sub / m
    unit /= np.sqrt((unit * unit).sum(axis=-1, keepdims=True))
    sub = unit * C
    for _ in range(8):  # rounding can leave ‖sub‖ a few ulps above C; shrink those rows by an ulp-sized factor
        bad = row_norms(sub) > C
        if not bad.any():
            return sub
        sub[bad] *= _SHRINK
    # only a subnormal C gets here (C·u rounds each entry to a subnormal that no ulp-sized shrink lowers: C = 5e-324
    # gave a row of norm 1e-323): the zero row is the one point of the ball left, so the bound holds as computed
    # (row_norms itself rounds there: the exact norm of a subnormal row can be up to √2 times its computed norm)
    sub[row_norms(sub) > C] = 0.0
    return sub


def clip_rows_outside(V: np.ndarray, C: float) -> tuple[np.ndarray, np.ndarray | None]:
    """The rows of V (k, d) outside the ball of radius C about 0 and their clipping, for a projection: returns
    (``outside`` = ``~(row_norms(V) <= C)`` (k,) bool, NaN rows counting as outside; ``clip_rows(V[outside], C)``
    (j, d), or None when no row is outside).  C ≥ 0 a float (the caller checks it).

    Fast path (bit-identical, tests/test_clipping_fast_path.py), taken when V is C-ordered and every row is
    finite with largest magnitude in (0, 1e300) (:func:`row_norms`' fast condition): the row maxima and norms
    are computed once and the outside rows' share of them handed to the clipping.  ``clip_rows`` would recompute
    them on the gathered rows ``V[outside]``: the maxima are exact, and each norm is the same reduction over the
    same contiguous row, so the values are the same (C order is required so that the row's summation order is);
    all of those rows have norm > C, so ``clip_rows`` would rescale every one of them, which is done directly.
    Used by ``dpsco.reference.projections.project_ball``."""
    if V.flags.c_contiguous:
        A = np.abs(V)
        m = _fast_maxima(A)
        if m is not None:
            norms = _scaled_norms(A, m)
            outside = ~(norms <= C)
            if not outside.any():
                return outside, None
            # every gathered row has norm > C (no NaN here): clip_rows would rescale all of them, so rescale directly
            return outside, _rescale(V[outside], C, m[outside])
    outside = ~(row_norms(V) <= C)
    if not np.any(outside):
        return outside, None
    return outside, clip_rows(V[outside], C)


def clip_rows_each(G: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Row r of G (k, d) clipped at its own bound ``bounds[r]`` (k,) > 0: :func:`clip_rows` per distinct bound, so
    ‖out_r‖ ≤ bounds[r] holds in floating point with the same edge behaviour.  Returns a new (k, d) array."""
    G = np.asarray(G, dtype=np.float64)
    bounds = np.asarray(bounds, dtype=np.float64)
    if bounds.shape != G.shape[:1]:
        raise ValueError(f"bounds must have one entry per row of G, shape {G.shape[:1]}, got {bounds.shape}")
    if np.any(np.isnan(bounds)) or np.any(bounds < 0):
        raise ValueError("bounds must be >= 0 and not NaN")
    out = np.empty_like(G)
    for b in np.unique(bounds):
        rows = bounds == b
        out[rows] = clip_rows(G[rows], float(b))
    return out


def enforce_norm_bound(G: np.ndarray, C: float) -> np.ndarray:
    """The last fail-safe before a noisy release: the per-sample terms G (rows) with ‖g‖ ≤ C enforced in floating
    point (:func:`clip_rows`).  Returns G itself, unchanged, when every row is finite with norm ≤ C (the case
    whenever the upstream computation is right); otherwise the clipped copy.  Fast path as in :func:`clip_rows`
    (same condition; the row maxima and norms of the test are reused by the clipping)."""
    G = np.asarray(G, dtype=np.float64)
    C = _check_bound(C)
    A = np.abs(G)
    m = _fast_maxima(A)
    if m is not None:  # fast path: the norms and maxima computed once, for the test and for the clipping
        norms = _scaled_norms(A, m)
        if (norms <= C).all():
            return G
        return _clip_finite_rows(np.array(G, dtype=np.float64), C, m, norms)
    norms = _safe_row_norms(G, A)
    if np.all(norms <= C):
        return G
    return clip_rows(G, C)
