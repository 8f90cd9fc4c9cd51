"""The fast paths of the core clipping and projection helpers give bit-identical results to the safe paths
(issue 29).

Clipping and projection are what every sensitivity bound rests on, so the fast paths of
``dpsco.reference.clipping`` (``row_norms``, ``clip_rows``, ``enforce_norm_bound``) and
``dpsco.reference.projections`` (``project_ball``) are checked against FROZEN copies of the code before the change
(commit 72e457e, copied verbatim below: the safe path, which handles every row — zero, subnormal, huge, inf, NaN).
Over generated inputs that include the extremes (1e±300, subnormals 5e-324, ±inf and NaN entries, zero rows, norms
exactly at the bound and one ulp either side of it) the outputs must be equal bit for bit (same dtype, shape, type,
NaN positions, signed zeros) and ‖out‖ ≤ C must hold as computed by both the new and the frozen norm.

No assertion here is stochastic: each is an exact equality or inequality of floats, so no false-failure
probability applies (hypothesis only chooses the inputs).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpsco.reference import clipping, projections
from dpsco.reference.clipping import clip_rows, clip_rows_outside, enforce_norm_bound, row_norms
from dpsco.reference.projections import project_ball
from dpsco.reference.validation import check_positive

_EPS = float(np.finfo(np.float64).eps)

# -- frozen copies of the code before the fast paths (commit 72e457e), verbatim ---------------------------------


def frozen_row_norms(G):
    G = np.asarray(G, dtype=np.float64)
    A = np.abs(G)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        m = np.max(A, axis=-1, keepdims=True) if G.shape[-1] else np.zeros(G.shape[:-1] + (1,))
        safe = np.where((m > 0) & np.isfinite(m), m, 1.0)
        scaled = np.sqrt(np.sum(np.square(A / safe), axis=-1)) * safe[..., 0]
    out = np.where(np.isinf(m[..., 0]), np.inf, scaled)
    return np.where(np.any(np.isnan(G), axis=-1), np.nan, out)


def frozen_clip_rows(G, C):
    G = np.array(G, dtype=np.float64)
    C = float(C)
    if G.size == 0:
        return G
    nan_rows = np.any(np.isnan(G), axis=-1)
    inf_rows = np.any(np.isinf(G), axis=-1) & ~nan_rows
    if np.any(inf_rows):
        limit = np.where(np.isinf(G[inf_rows]), np.sign(G[inf_rows]), 0.0)
        G[inf_rows] = limit / np.sqrt(np.sum(limit * limit, axis=-1, keepdims=True)) * C
    G[nan_rows] = 0.0
    norms = frozen_row_norms(G)
    over = norms > C
    if np.any(over):
        sub = G[over]
        m = np.max(np.abs(sub), axis=-1, keepdims=True)
        unit = sub / m
        unit /= np.sqrt(np.sum(unit * unit, axis=-1, keepdims=True))
        sub = unit * C
        for _ in range(8):
            bad = frozen_row_norms(sub) > C
            if not np.any(bad):
                break
            sub[bad] *= 1.0 - 4.0 * np.finfo(np.float64).eps
        sub[frozen_row_norms(sub) > C] = 0.0  # not in 72e457e: the documented fix for a subnormal C (see below)
        G[over] = sub
    return G


def frozen_enforce_norm_bound(G, C):
    G = np.asarray(G, dtype=np.float64)
    norms = frozen_row_norms(G)
    if np.all(norms <= float(C)):
        return G
    return frozen_clip_rows(G, C)


def frozen_project_ball(Y, radius, center=None):
    r = check_positive(radius, "radius", allow_zero=True, allow_inf=True)
    Y = np.array(Y, dtype=np.float64)
    if Y.ndim == 0:
        raise ValueError("Y must have at least one axis (a (d,) vector or (k, d) rows)")
    c = None if center is None else projections._centre(center, Y.shape[-1], "center")
    if math.isinf(r) or Y.size == 0:
        return Y
    if Y.ndim == 1 and (c is None or c.ndim == 1):
        # one vector (the per-step call of the one-record loops): math.hypot's correctly scaled norm decides the
        # common inside case without numpy reductions (NaN and inf fall through to the general path)
        with np.errstate(over="ignore", invalid="ignore"):
            v = Y if c is None else Y - c
        if math.hypot(*v.tolist()) <= r:
            return Y
    one = Y.ndim == 1
    Y2 = Y[None, :] if one else Y.reshape(-1, Y.shape[-1])
    C2 = None if c is None else np.broadcast_to(c, Y.shape).reshape(Y2.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        V = Y2 if C2 is None else Y2 - C2
    outside = ~(frozen_row_norms(V) <= r)  # NaN rows count as outside (they go to the centre)
    if np.any(outside):
        U = frozen_clip_rows(V[outside], r)
        if C2 is None:
            Y2[outside] = U
        else:
            Cs = C2[outside]
            with np.errstate(over="ignore", invalid="ignore"):
                P = Cs + U
                # c + u can round to a point a few ulps of c beyond the sphere: shrink u by a step of about one
                # ulp of c (relative to u), doubled each time, so that P moves; after 40 steps, the centre
                step = 2.0 * _EPS * (1.0 + np.max(np.abs(Cs), axis=-1) / np.maximum(np.max(np.abs(U), axis=-1),
                                                                                   np.finfo(np.float64).tiny))
                for _ in range(40):
                    bad = ~(frozen_row_norms(P - Cs) <= r)
                    if not np.any(bad):
                        break
                    U[bad] *= np.maximum(1.0 - step[bad], 0.0)[:, None]
                    P[bad] = Cs[bad] + U[bad]
                    step = np.minimum(2.0 * step, 1.0)
                else:
                    bad = ~(frozen_row_norms(P - Cs) <= r)
                    P[bad] = Cs[bad]
            Y2[outside] = P
    return Y2[0] if one else Y2.reshape(Y.shape)


# -- strategies ---------------------------------------------------------------------------------------------------

EXTREMES = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-300, -1e-300, 1e-160, 1e-154, 1.0, -1.0,
            3.0, 1e154, 1e200, 1e299, 9.99e299, 1e300, -1e300, 1.0000000000000002e300, 1.7976931348623157e308,
            -1.7976931348623157e308, math.inf, -math.inf, math.nan]

entry = st.one_of(
    st.sampled_from(EXTREMES),
    st.floats(-10.0, 10.0),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-1e-300, 1e-300),
)
#: rows of the common case (what the fast path is for): finite, moderate
moderate = st.floats(-1e3, 1e3).filter(lambda x: x == 0.0 or abs(x) > 1e-30)


@st.composite
def arrays(draw, elements=entry):
    """(d,), (k, d) or (2, 2, d) float arrays; rows mixing every extreme, or moderate ones."""
    d = draw(st.integers(1, 12))
    dims = draw(st.sampled_from([(d,), (1, d), (draw(st.integers(2, 6)), d), (2, 2, d)]))
    size = int(np.prod(dims))
    vals = draw(st.lists(elements, min_size=size, max_size=size))
    return np.array(vals, dtype=np.float64).reshape(dims)


@st.composite
def bound_for(draw, G):
    """C: a norm of one of G's rows exactly, or one ulp above / below it, or a generic positive bound."""
    norms = np.atleast_1d(frozen_row_norms(G)).ravel()
    finite = [float(x) for x in norms if math.isfinite(x) and x > 0]
    kind = draw(st.sampled_from(["exact", "up", "down", "generic"] if finite else ["generic"]))
    if kind == "generic":
        return draw(st.sampled_from([5e-324, 1e-300, 1e-10, 0.5, 1.0, 2.0, 1e10, 1e300, 1.7976931348623157e308]))
    c = draw(st.sampled_from(finite))
    if kind == "up":  # a finite bound: clip_rows' C is a finite positive number (the nextafter of 1.8e308 is inf)
        c = min(math.nextafter(c, math.inf), 1.7976931348623157e308)
    elif kind == "down":
        c = math.nextafter(c, 0.0)
    return c if c > 0 else 5e-324


def assert_identical(a, b):
    """Bit-for-bit: same type, dtype, shape, and the same bytes (NaN payloads and signed zeros included)."""
    assert type(a) is type(b), (type(a), type(b))
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
    assert a.tobytes() == b.tobytes(), (a, b)


#: below about √d times the smallest normal number, C·(unit vector) has subnormal entries whose rounding the
#: ulp-sized shrink of clip_rows cannot undo (then the row is zeroed: test_subnormal_bound_holds)
MIN_NORMAL_BOUND = 1e-300

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- row_norms --------------------------------------------------------------------------------------------------


@SETTINGS
@given(st.one_of(arrays(), arrays(moderate)))
def test_row_norms_bit_identical_to_the_safe_path(G):
    assert_identical(row_norms(G), frozen_row_norms(G))


def test_row_norms_fast_path_condition():
    """The fast path is taken exactly when every row is finite with 0 < max|g_i| < 1e300."""
    fast = clipping._fast_maxima
    assert fast(np.abs(np.array([[1.0, 2.0], [3.0, -4.0]]))) is not None
    assert fast(np.abs(np.array([5e-324, 0.0]))) is not None          # subnormal max: still exact on the fast path
    assert fast(np.abs(np.array([9.99e299, 1.0]))) is not None
    for bad in ([0.0, 0.0], [1e300, 1.0], [math.inf, 1.0], [math.nan, 1.0], [1.0, -math.inf],
                [1.7976931348623157e308, 0.0]):
        assert fast(np.abs(np.array([[1.0, 1.0], bad]))) is None, bad
    assert fast(np.abs(np.zeros((0, 3)))) is None and fast(np.abs(np.zeros((2, 0)))) is None


# -- clip_rows / enforce_norm_bound -----------------------------------------------------------------------------


@SETTINGS
@given(st.data(), st.one_of(arrays(), arrays(moderate)))
def test_clip_rows_bit_identical_and_bounded(data, G):
    C = data.draw(bound_for(G))
    out = clip_rows(G, C)
    assert_identical(out, frozen_clip_rows(G, C))
    assert np.all(np.isfinite(out))
    # every C, subnormal ones included (test_subnormal_bound_holds)
    assert np.all(row_norms(out) <= C) and np.all(frozen_row_norms(out) <= C)


@SETTINGS
@given(st.data(), st.one_of(arrays(), arrays(moderate)))
def test_enforce_norm_bound_bit_identical_and_bounded(data, G):
    C = data.draw(bound_for(G))
    out = enforce_norm_bound(G, C)
    ref = frozen_enforce_norm_bound(G, C)
    assert_identical(out, ref)
    assert (out is G) == (ref is G)  # the no-op returns the input object itself on both paths
    assert np.all(row_norms(out) <= C)  # every C, subnormal ones included (test_subnormal_bound_holds)


@SETTINGS
@given(st.data(), st.one_of(arrays(), arrays(moderate)))
def test_clip_rows_outside_is_the_mask_and_clip_rows_of_the_safe_path(data, G):
    V = G.reshape(-1, G.shape[-1])
    if data.draw(st.booleans()):
        V = np.asfortranarray(V)  # not C-ordered: the safe path
    C = data.draw(st.one_of(bound_for(G), st.just(0.0)))
    outside, U = clip_rows_outside(V, C)
    ref_outside = ~(frozen_row_norms(V) <= C)
    assert_identical(outside, ref_outside)
    if not ref_outside.any():
        assert U is None
    else:
        assert_identical(U, frozen_clip_rows(V[ref_outside], C))


def test_clip_rows_fast_path_at_the_bound_and_one_ulp_either_side():
    """Deterministic edge cases: rows with norm exactly C, one ulp above and below, on the fast path."""
    for d in (1, 2, 3, 9, 10, 17):
        g = np.linspace(1.0, 2.0, d)
        C = float(row_norms(g))
        for c in (C, math.nextafter(C, 0.0), math.nextafter(C, math.inf)):
            G = np.stack([g, -g, g * (1 + 2 ** -52)])
            out = clip_rows(G, c)
            assert_identical(out, frozen_clip_rows(G, c))
            assert np.all(row_norms(out) <= c)


def test_subnormal_bound_holds():
    """A limitation of 72e457e's clipping found by this file's property test, now fixed on both paths: for a
    subnormal bound C = 5e-324, C·u rounds each entry of the clipped row to a subnormal that the ulp-sized shrink
    cannot lower, and the row had computed norm 1e-323 = 2C.  The zero row (the one point of the ball left) is
    returned instead, so ‖out‖ ≤ C holds on every input; the frozen copy above carries the same one-line fix, so
    the bit-for-bit comparisons cover every other input unchanged."""
    G = np.array([5e-324, 5e-324, 5e-324])
    out = clip_rows(G, 5e-324)
    assert float(row_norms(out)) <= 5e-324 and not np.any(out)
    assert float(row_norms(enforce_norm_bound(G, 5e-324))) <= 5e-324
    assert float(row_norms(project_ball(G, 5e-324))) <= 5e-324


# -- project_ball -----------------------------------------------------------------------------------------------


@st.composite
def centres(draw, Y):
    """None (the origin), a (d,) centre, or one centre per row; finite, moderate or extreme."""
    kind = draw(st.sampled_from(["none", "none", "vector", "rows"]))
    if kind == "none":
        return None
    fin = st.one_of(st.floats(-10.0, 10.0), st.sampled_from([0.0, 1e-300, -1e-300, 1e300, -1e300, 5e-324]))
    shape = Y.shape[-1:] if kind == "vector" or Y.ndim == 1 else Y.shape
    size = int(np.prod(shape))
    return np.array(draw(st.lists(fin, min_size=size, max_size=size)), dtype=np.float64).reshape(shape)


@SETTINGS
@given(st.data(), st.one_of(arrays(), arrays(moderate)))
def test_project_ball_bit_identical_to_the_safe_path(data, Y):
    r = data.draw(st.one_of(bound_for(Y), st.sampled_from([0.0, math.inf, 1.0])))
    c = data.draw(centres(Y))
    out = project_ball(Y, r, c)
    assert_identical(out, frozen_project_ball(Y, r, c))
    if math.isfinite(r):  # radius inf is the identity (documented), non-finite rows stay
        assert np.all(np.isfinite(out))
    if c is None and math.isfinite(r):
        # a (d,) vector that math.hypot puts inside is returned unchanged (the one-vector test of project_ball,
        # older than these fast paths): its bound holds as hypot computes it, and row_norms may be one ulp above
        by_hypot = Y.ndim == 1 and math.hypot(*Y.tolist()) <= r and np.array_equal(out, Y)
        assert np.all(row_norms(out) <= r) or by_hypot


def test_project_ball_fast_path_layouts_and_radius_types():
    """F-ordered and strided inputs (clip_rows_outside's fast path needs C order: they take the safe path or a C
    copy; the others compute on one layout throughout), radius as int / numpy float / Python float, and rows at the
    radius exactly and one ulp off; also row_norms, clip_rows and enforce_norm_bound on these layouts, and
    (k, d) batches of many rows as the replicate axes make them."""
    rng = np.random.default_rng(1)
    for d in (1, 2, 5, 8, 9, 16, 17, 130):
        Y = rng.normal(size=(7, d)) * 3
        r0 = float(row_norms(Y[0]))
        for Yv in (Y, np.asfortranarray(Y), Y[::2], Y.T.copy().T):
            assert_identical(row_norms(Yv), frozen_row_norms(Yv))
            for r in (r0, math.nextafter(r0, 0.0), math.nextafter(r0, math.inf), 1, np.float64(2.5), 0.0):
                if r > 0:
                    assert_identical(clip_rows(Yv, r), frozen_clip_rows(Yv, r))
                    assert_identical(enforce_norm_bound(Yv, r), frozen_enforce_norm_bound(Yv, r))
                assert_identical(project_ball(Yv, r), frozen_project_ball(Yv, r))
                assert_identical(project_ball(Yv, r, Yv[1]), frozen_project_ball(Yv, r, Yv[1]))
    for k, d in ((2000, 9), (500, 1), (64, 130)):
        Y = rng.normal(size=(k, d)) * np.exp(rng.normal(size=(k, 1)))
        assert_identical(row_norms(Y), frozen_row_norms(Y))
        assert_identical(clip_rows(Y, 1.0), frozen_clip_rows(Y, 1.0))
        assert_identical(enforce_norm_bound(Y, 2.0), frozen_enforce_norm_bound(Y, 2.0))
        assert_identical(project_ball(Y, 1.0), frozen_project_ball(Y, 1.0))
    for bad in (-1.0, math.nan, -0.5):
        try:
            project_ball(np.ones(3), bad)
        except ValueError as e:
            assert "radius" in str(e)
        else:
            raise AssertionError(f"radius {bad} accepted")


def test_negative_or_nan_bound_is_refused():
    """Independent review: 72e457e returned sign-flipped rows of norm |C| for C < 0 (clip_rows([[3, 4]], -1) was
    [[-0.6, -0.8]]), and the subnormal fix would have returned zero rows; a bound no sensitivity proof covers is now
    a ValueError naming C, before anything is computed."""
    for bad in (-1.0, -5e-324, math.nan, -math.inf):
        with pytest.raises(ValueError, match="C"):
            clip_rows(np.array([[3.0, 4.0]]), bad)
        with pytest.raises(ValueError, match="C"):
            enforce_norm_bound(np.array([[3.0, 4.0]]), bad)
    assert not np.any(clip_rows(np.array([[3.0, 4.0]]), 0.0))  # C = 0: the ball is the origin
