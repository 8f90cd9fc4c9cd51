"""Neighbouring datasets for privacy audits, inside a declared data domain: a ball or a box.

Under the replace-one relation (the papers' DP definition, e.g. Bassily et al. 2019, Sec. 2) two datasets
of the same size n are neighbours iff they differ in exactly one record.  Audits are most powerful when the
replaced record is *extreme* for the declared data domain {‖x‖ ≤ x_max, |y| ≤ y_max}: the gradient
difference then reaches the sensitivity the privacy calibration assumes.  Every record produced here lies
inside the declared domain (checked without tolerance), so the pair is a legitimate neighbouring pair for a
mechanism that trusts the declared bounds.

``canary_pair`` builds canary instances: n − 1 records with zero features (zero gradient for every GLM loss
below) plus one canary, against the same dataset with the canary replaced; or (``neighbour="one-sided"``) the
worst-case pair known for with-replacement mini-batch sampling, where every record equals the canary.

Two kinds of declared domain are accepted: the ball :class:`dpsco.reference.problem.DataBounds`
(‖x‖ ≤ x_max, |y| ≤ y_max) and the box :class:`BoxBounds` (x_lo ≤ x ≤ x_hi coordinate-wise,
y_lo ≤ y ≤ y_hi).  The extreme points of a box are its corners; of a ball, points of its sphere.

The generators of neighbouring-pair families for ``audit_family`` (add/remove, sign-flip, worst-case) are in
:mod:`dpsco.verification.auditing.neighbour_pairs`, on this module's domain checks and extreme points.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, Union

import numpy as np

from dpsco.reference.losses import get_loss
from dpsco.reference.problem import BOUND_RTOL, DataBounds
from dpsco.reference.validation import as_float_vector, check_data, check_positive_int

__all__ = [
    "BoxBounds",
    "CanaryPair",
    "Domain",
    "canary_pair",
    "check_domain",
    "check_inside",
    "extreme_points",
    "in_domain",
    "label_range",
    "n_deterministic_extreme_points",
    "replace_one_extreme",
]


def _norms(x: np.ndarray) -> list[float]:
    """‖x‖ computed the ways callers may compute it (BLAS nrm2, axis-wise, sqrt of the sum of squares)."""
    return [
        float(np.linalg.norm(x)),
        float(np.linalg.norm(x[None, :], axis=1)[0]),
        float(np.sqrt(np.sum(x * x))),
        float(np.sqrt(x @ x)),
    ]


def _onto_sphere(u: np.ndarray, radius: float) -> np.ndarray:
    """radius·(1 − 1e-14)·u/‖u‖, nudged down until every usual norm computation gives <= radius.

    The 1e-14 relative margin absorbs the rounding differences between norm algorithms, so the point
    satisfies a declared bound ‖x‖ <= radius however the bound is checked; it is extreme up to 1e-14.
    """
    u = np.asarray(u, dtype=np.float64)
    u = u / np.max(np.abs(u))  # rescale first: ‖u‖ of a tiny u (e.g. 1e-162) underflows in the squares
    x = u * (radius * (1.0 - 1e-14) / np.linalg.norm(u))
    for _ in range(200):
        if max(_norms(x)) <= radius:
            return x
        x = x * (1.0 - 1e-15)
    raise RuntimeError("could not scale a vector onto the sphere")  # pragma: no cover


def _check_bounds(bounds: Any) -> DataBounds:
    if not isinstance(bounds, DataBounds):
        raise TypeError(f"bounds must be a DataBounds, got {type(bounds).__name__}")
    return bounds


def _as_limits(value: Any, name: str) -> float | tuple[float, ...]:
    """A finite real number, or a non-empty 1-D sequence of them (as a tuple)."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a real number or a 1-D sequence of them, got bool")
    if isinstance(value, (int, float, np.integer, np.floating)):
        v = float(value)
        if not math.isfinite(v):
            raise ValueError(f"{name} must be finite, got {value!r}")
        return v
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number or a 1-D sequence of them, got {type(value).__name__}") from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a scalar or a non-empty 1-D sequence, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return tuple(float(v) for v in arr)


@dataclass(frozen=True)
class BoxBounds:
    """Declared, public bounds of the data domain as a box: x_lo ≤ x ≤ x_hi (coordinate-wise), y_lo ≤ y ≤ y_hi.

    The box counterpart of the ball :class:`dpsco.reference.problem.DataBounds` (‖x‖ ≤ x_max, |y| ≤ y_max);
    every function of this module accepts either.

    Parameters
    ----------
    x_lo, x_hi : float or 1-D sequence of floats
        Feature bounds: a scalar applies to every coordinate; sequences give one bound per coordinate (both
        sequences, or a sequence and a scalar, of the same length d).  Finite, x_lo ≤ x_hi.
    y_lo, y_hi : float, default 0.0
        Label bounds, finite, y_lo ≤ y_hi.

    Raises
    ------
    ValueError
        Non-finite values, lo > hi, per-coordinate bounds of different lengths.
    TypeError
        Non-numeric values.
    """

    x_lo: float | tuple[float, ...]
    x_hi: float | tuple[float, ...]
    y_lo: float = 0.0
    y_hi: float = 0.0

    def __post_init__(self) -> None:
        lo = _as_limits(self.x_lo, "x_lo")
        hi = _as_limits(self.x_hi, "x_hi")
        y_lo = _as_limits(self.y_lo, "y_lo")
        y_hi = _as_limits(self.y_hi, "y_hi")
        if isinstance(y_lo, tuple) or isinstance(y_hi, tuple):
            raise ValueError("y_lo and y_hi must be scalars (labels are scalar)")
        if isinstance(lo, tuple) and isinstance(hi, tuple) and len(lo) != len(hi):
            raise ValueError(f"x_lo and x_hi have {len(lo)} and {len(hi)} coordinates: they must agree")
        if np.any(np.asarray(lo) > np.asarray(hi)):
            raise ValueError(f"x_lo must be <= x_hi coordinate-wise, got x_lo = {lo}, x_hi = {hi}")
        if y_lo > y_hi:
            raise ValueError(f"y_lo must be <= y_hi, got y_lo = {y_lo}, y_hi = {y_hi}")
        object.__setattr__(self, "x_lo", lo)
        object.__setattr__(self, "x_hi", hi)
        object.__setattr__(self, "y_lo", y_lo)
        object.__setattr__(self, "y_hi", y_hi)

    @property
    def dimension(self) -> int | None:
        """d when per-coordinate bounds were given, None for scalar bounds (any d)."""
        for v in (self.x_lo, self.x_hi):
            if isinstance(v, tuple):
                return len(v)
        return None

    def limits(self, d: int) -> tuple[np.ndarray, np.ndarray]:
        """(lo, hi), two (d,) arrays; ValueError if per-coordinate bounds have another length."""
        dim = self.dimension
        if dim is not None and dim != d:
            raise ValueError(f"the box bounds have {dim} coordinates but the data have d = {d}")
        return np.broadcast_to(np.asarray(self.x_lo, dtype=np.float64), (d,)).copy(), \
            np.broadcast_to(np.asarray(self.x_hi, dtype=np.float64), (d,)).copy()

    def to_dict(self) -> dict[str, Any]:
        return {"x_lo": self.x_lo, "x_hi": self.x_hi, "y_lo": self.y_lo, "y_hi": self.y_hi}


#: a declared data domain: the ball DataBounds or the box BoxBounds
Domain = Union[DataBounds, BoxBounds]


def check_domain(bounds: Any) -> Domain:
    if not isinstance(bounds, (DataBounds, BoxBounds)):
        raise TypeError(f"bounds must be a DataBounds (ball) or a BoxBounds (box), got {type(bounds).__name__}")
    return bounds


def label_range(bounds: Domain) -> tuple[float, float]:
    if isinstance(bounds, BoxBounds):
        return float(bounds.y_lo), float(bounds.y_hi)
    return -bounds.y_max, bounds.y_max


def in_domain(X: Any, y: Any, bounds: Domain, *, rtol: float = 0.0) -> bool:
    """Whether every record (x, y) of (X, y) lies in the declared domain, up to a relative slack ``rtol``.

    Ball: ‖x‖ ≤ x_max(1 + rtol) (every usual norm computation), |y| ≤ y_max(1 + rtol).  Box:
    x_lo − rtol·|x_lo| ≤ x ≤ x_hi + rtol·|x_hi| coordinate-wise, likewise for y.  ``rtol = 0``: exactly.

    Parameters
    ----------
    X : (n, d) float array;  y : (n,) float array;  bounds : DataBounds or BoxBounds;  rtol : float >= 0

    Raises
    ------
    ValueError, TypeError
        Bad shapes, NaN/inf, per-coordinate box bounds of another dimension.
    """
    Xa, ya = check_data(X, y)
    b = check_domain(bounds)
    if isinstance(b, DataBounds):
        lim = b.x_max * (1.0 + rtol)
        nr = np.maximum(np.linalg.norm(Xa, axis=1), np.sqrt(np.sum(Xa * Xa, axis=1)))
        near = nr > lim * (1.0 - 1e-12)  # rows near the sphere: every norm computation is checked
        in_x = all(max(_norms(row)) <= lim for row in Xa[near])
        return in_x and bool(np.all(np.abs(ya) <= b.y_max * (1.0 + rtol)))
    lo, hi = b.limits(Xa.shape[1])
    box_x = bool(np.all(Xa >= lo - rtol * np.abs(lo))) and bool(np.all(Xa <= hi + rtol * np.abs(hi)))
    box_y = bool(np.all(ya >= b.y_lo - rtol * abs(b.y_lo))) and bool(np.all(ya <= b.y_hi + rtol * abs(b.y_hi)))
    return box_x and box_y


def check_inside(Xa: np.ndarray, ya: np.ndarray, b: Domain) -> None:
    """ValueError unless the given data satisfy the declared domain (relative slack BOUND_RTOL)."""
    if isinstance(b, DataBounds):
        if np.any(np.linalg.norm(Xa, axis=1) > b.x_max * (1.0 + BOUND_RTOL)):
            raise ValueError(f"X violates the declared bound ‖x‖ <= x_max = {b.x_max}")
        if np.any(np.abs(ya) > b.y_max * (1.0 + BOUND_RTOL)):
            raise ValueError(f"y violates the declared bound |y| <= y_max = {b.y_max}")
        return
    lo, hi = b.limits(Xa.shape[1])
    if np.any(Xa < lo - BOUND_RTOL * np.abs(lo)) or np.any(Xa > hi + BOUND_RTOL * np.abs(hi)):
        raise ValueError(f"X violates the declared box bound x_lo <= x <= x_hi ({b.x_lo}, {b.x_hi})")
    if np.any(ya < b.y_lo - BOUND_RTOL * abs(b.y_lo)) or np.any(ya > b.y_hi + BOUND_RTOL * abs(b.y_hi)):
        raise ValueError(f"y violates the declared box bound y_lo <= y <= y_hi ({b.y_lo}, {b.y_hi})")


def _box_corner_toward(lo: np.ndarray, hi: np.ndarray, u: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The box point maximising ⟨u, ·⟩ nearest x: hi_j where u_j > 0, lo_j where u_j < 0, x_j where u_j = 0."""
    return np.where(u > 0, hi, np.where(u < 0, lo, x))


#: corners of a box enumerated in full up to this many non-degenerate coordinates (2^12 = 4096 corners)
MAX_FULL_CORNER_DIM = 12


def replace_one_extreme(
    X: Any,
    y: Any,
    bounds: Domain,
    *,
    index: int = -1,
    direction: Any = None,
    label: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Replace record ``index`` by an extreme point of the declared data domain (a replace-one neighbour).

    **Ball** (:class:`DataBounds`): the new record is x' = x_max·u/‖u‖ with

    * u = ``direction`` if given;
    * otherwise u = −x_index (the antipode of the current record, maximising ‖x' − x_index‖), or e₁ when
      x_index = 0;

    (‖x'‖ = x_max up to a relative 1e-14 safety margin against norm-rounding differences).

    **Box** (:class:`BoxBounds`): the new record is a corner of the box, never a point outside it:

    * with ``direction`` u: the box point maximising ⟨u, x'⟩ (x'_j = x_hi_j if u_j > 0, x_lo_j if u_j < 0,
      x_index,j if u_j = 0);
    * otherwise the corner farthest from x_index coordinate-wise (x'_j = x_hi_j if x_index,j − x_lo_j <
      x_hi_j − x_index,j, else x_lo_j), which maximises ‖x' − x_index‖ over the box.  (The ball rule, the
      antipode, may leave a box that is not symmetric about 0; fixed in issue 11.)

    The new label is y' = ``label`` if given, otherwise the label extreme farther from y_index: ball
    −sign(y_index)·y_max (+y_max when y_index = 0), so for ±1 labels with y_max = 1 the label flip; box
    y_lo if y_index − y_lo > y_hi − y_index, else y_hi.

    Parameters
    ----------
    X : (n, d) float array
    y : (n,) float array
    bounds : DataBounds or BoxBounds
        Declared bounds; (X, y) must satisfy them (relative slack ``BOUND_RTOL``), and the new record
        satisfies them exactly (ball: under every usual norm computation).
    index : int
        Record to replace (negative indices count from the end; default: the last record).
    direction : (d,) array, optional
        Non-zero direction of the new feature vector.
    label : float, optional
        New label, inside the declared label range.

    Returns
    -------
    (X', y') : new arrays (the inputs are not modified), differing from (X, y) in row ``index`` only.

    Raises
    ------
    ValueError, TypeError
        Bad shapes, NaN/inf, data outside the declared bounds, index out of range, zero direction, label
        outside the declared label range.
    """
    Xa, ya = check_data(X, y)
    b = check_domain(bounds)
    n, d = Xa.shape
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
        raise TypeError(f"index must be an integer, got {type(index).__name__}")
    if not (-n <= int(index) < n):
        raise ValueError(f"index must lie in [-{n}, {n}), got {index}")
    i = int(index) % n
    check_inside(Xa, ya, b)
    u = None
    if direction is not None:
        u = as_float_vector(direction, "direction", d)
        if not np.any(u != 0):
            raise ValueError("direction must be a non-zero vector")
    if isinstance(b, DataBounds):
        if u is None:
            if np.linalg.norm(Xa[i]) > 0:
                u = -Xa[i]
            else:
                u = np.zeros(d)
                u[0] = 1.0
        x_new = _onto_sphere(u, b.x_max)
    else:
        lo, hi = b.limits(d)
        if u is None:
            x_new = np.where(Xa[i] - lo < hi - Xa[i], hi, lo)
        else:
            x_new = _box_corner_toward(lo, hi, u, Xa[i])
    y_lo, y_hi = label_range(b)
    if label is not None:
        if isinstance(label, bool) or not isinstance(label, (int, float, np.integer, np.floating)):
            raise TypeError(f"label must be a real number, got {type(label).__name__}")
        y_new = float(label)
        if not math.isfinite(y_new) or not (y_lo <= y_new <= y_hi):
            raise ValueError(f"label must lie in the declared label range [{y_lo}, {y_hi}], got {label}")
    elif isinstance(b, DataBounds):
        y_new = -b.y_max if ya[i] > 0 else b.y_max
    else:
        y_new = y_lo if ya[i] - y_lo > y_hi - ya[i] else y_hi
    X2, y2 = Xa.copy(), ya.copy()
    X2[i] = x_new
    y2[i] = y_new
    return X2, y2


def n_deterministic_extreme_points(bounds: Domain, d: int) -> int:
    """How many extreme points :func:`extreme_points` gives in R^d without an ``rng``.

    Ball: 2d signed axes, plus the 2^d normalised sign vectors when d >= 2 (at most 4097 of them).  Box with
    d' non-degenerate coordinates (x_lo_j < x_hi_j): all 2^d' corners when d' <= ``MAX_FULL_CORNER_DIM``
    (= 12), else the documented subset of 2 + 2d' corners.
    """
    b = check_domain(bounds)
    d_ = check_positive_int(d, "d")
    if isinstance(b, DataBounds):
        return 2 * d_ + (min(2**d_, 4097) if d_ >= 2 else 0)
    lo, hi = b.limits(d_)
    dp = int(np.sum(lo < hi))
    return 2**dp if dp <= MAX_FULL_CORNER_DIM else 2 + 2 * dp


def _box_corners(b: BoxBounds, d: int) -> list[np.ndarray]:
    """The deterministic corners of a box, in the order documented in :func:`extreme_points`."""
    lo, hi = b.limits(d)
    free = np.nonzero(lo < hi)[0]
    if free.size <= MAX_FULL_CORNER_DIM:
        out = []
        for bits in itertools.product((0, 1), repeat=int(free.size)):
            mask = free[np.array(bits, dtype=bool)]
            c = lo.copy()
            c[mask] = hi[mask]
            out.append(c)
        return out
    out = [lo.copy(), hi.copy()]
    for j in free:
        c = lo.copy()
        c[j] = hi[j]
        out.append(c)
        c = hi.copy()
        c[j] = lo[j]
        out.append(c)
    return out


def extreme_points(bounds: Domain, d: int, k: int, *, rng: np.random.Generator | None = None) -> np.ndarray:
    """``k`` candidate extreme feature vectors of the declared domain in R^d.

    **Ball** (:class:`DataBounds`), points on the sphere ‖x‖ = x_max.  Deterministic order: the signed axes
    x_max·(e₁, −e₁, e₂, −e₂, …), then (d >= 2) the normalised sign vectors of the hypercube
    x_max·(±1, …, ±1)/√d in lexicographic order; beyond those (:func:`n_deterministic_extreme_points`),
    uniformly random points on the sphere from ``rng`` (required then).

    **Box** (:class:`BoxBounds`), corners.  With d' <= 12 non-degenerate coordinates: all 2^d' corners in
    lexicographic order of (lo, hi) per coordinate, the all-x_lo corner first; asking for more raises
    ValueError (there are no more).  With d' > 12: the all-x_lo and all-x_hi corners, then for each
    non-degenerate coordinate j in order, all-x_lo with coordinate j at x_hi and all-x_hi with coordinate j at
    x_lo (2 + 2d' corners); beyond those, random corners from ``rng`` (each coordinate x_lo or x_hi with
    probability ½, independently; required then, repeats possible).

    Parameters
    ----------
    bounds : DataBounds or BoxBounds
    d : int >= 1
    k : int >= 1
    rng : numpy.random.Generator, optional

    Returns
    -------
    (k, d) float array, every row inside the declared domain exactly (ball: norm <= x_max, equal to it up to
    rounding).

    Raises
    ------
    ValueError, TypeError
        Bad d or k; k beyond the deterministic points without ``rng``; k beyond the 2^d' corners of a box.
    """
    b = check_domain(bounds)
    d_ = check_positive_int(d, "d")
    k_ = check_positive_int(k, "k")
    n_det = n_deterministic_extreme_points(b, d_)
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    rows: list[np.ndarray] = []
    if isinstance(b, BoxBounds):
        lo, hi = b.limits(d_)
        full = int(np.sum(lo < hi)) <= MAX_FULL_CORNER_DIM
        if full and k_ > n_det:
            raise ValueError(f"k = {k_} exceeds the {n_det} corners of the box")
        rows = _box_corners(b, d_)[:k_]
        if len(rows) < k_:
            if rng is None:
                raise ValueError(f"k = {k_} exceeds the {n_det} deterministic corners; pass rng for random ones")
            while len(rows) < k_:
                rows.append(np.where(rng.random(d_) < 0.5, lo, hi))
        return np.stack(rows)
    for j in range(d_):
        for s in (1.0, -1.0):
            if len(rows) >= k_:
                break
            e = np.zeros(d_)
            e[j] = s
            rows.append(_onto_sphere(e, b.x_max))
    if len(rows) < k_ and d_ >= 2:
        for signs in itertools.product((1.0, -1.0), repeat=d_):
            if len(rows) >= min(k_, n_det):
                break
            rows.append(_onto_sphere(np.array(signs), b.x_max))
    if len(rows) < k_:
        if rng is None:
            raise ValueError(f"k = {k_} exceeds the {len(rows)} deterministic extreme points; pass rng for random ones")
        while len(rows) < k_:
            g = rng.standard_normal(d_)
            if np.any(g != 0):
                rows.append(_onto_sphere(g, b.x_max))
    return np.stack(rows[:k_])


class CanaryPair(NamedTuple):
    """A replace-one neighbouring pair (X, y) vs (X_neighbour, y_neighbour) differing in the last record."""

    X: np.ndarray
    y: np.ndarray
    X_neighbour: np.ndarray
    y_neighbour: np.ndarray
    description: str

    def as_datasets(self) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """({"X", "y"} of the dataset, {"X", "y"} of the neighbour), the form :func:`dpsco.verification.auditing.audit.audit` takes."""
        return {"X": self.X, "y": self.y}, {"X": self.X_neighbour, "y": self.y_neighbour}


def canary_pair(
    n: int,
    d: int,
    bounds: DataBounds,
    loss_name: str,
    *,
    neighbour: Literal["symmetric", "null", "one-sided"] = "symmetric",
) -> CanaryPair:
    """Canary pairs: n − 1 background records plus a canary at x = x_max e₁, and its replacement.

    Zero-feature records have zero gradient for every GLM loss ℓ(w, (x, y)) = φ(⟨w, x⟩, y), so the canary is
    the only record that moves the algorithm.  The canary and its replacement (last row) are

    ============  ===========================  ===================================  ==========================
    loss          canary (x, y)                 ``"symmetric"`` replacement          ``"null"`` replacement
    ============  ===========================  ===================================  ==========================
    linear        (x_max e₁, 0)                 (−x_max e₁, 0): gradient negated    (0, 0)
    logistic,     (x_max e₁, +1)                (x_max e₁, −1): label flip          (0, +1)
    hinge
    squared,      (x_max e₁, y_max)             (x_max e₁, −y_max): label flip;     (0, y_max)
    huber,                                      gradient difference 2·y_max·x_max·e₁
    absolute                                    for every w (squared loss)
    ============  ===========================  ===================================  ==========================

    The zero records have label 0 (+1 for the ±1-label losses).  For regression losses with y_max = 0 the
    label flip is void and ``"symmetric"`` falls back to the null replacement (a (−x, 0) replacement would
    give the *same* loss function, not a neighbour that differs).

    ``"one-sided"``: the worst-case replace-one pair known for with-replacement mini-batch sampling
    (Bassily et al. 2019, Algorithm 1; ``dpsco.reference.bftt19.accounting``): *every* record equals the canary, so all
    other records share the replaced record's gradient at every w and batch sampling adds no randomness on the
    dataset's side; the last record is replaced as in ``"symmetric"``.  For the linear loss this is the pair
    x_i = x_max e₁ (all i) vs x_n' = −x_max e₁ (a mirror image of x_i = −e₁ vs x_n' = +e₁).  On it, one step of
    Algorithm 1 releases Q = N(0, σ²) vs P = Σ_k Bin(m, 1/n)(k) N(2kL/m, σ²) (up to sign and a common shift).

    Parameters
    ----------
    n : int >= 1
    d : int >= 1
    bounds : DataBounds
        For the ±1-label losses y_max must be >= 1.
    loss_name : str
        A name accepted by :func:`dpsco.reference.losses.get_loss`.
    neighbour : "symmetric" | "null" | "one-sided"

    Returns
    -------
    CanaryPair

    Raises
    ------
    ValueError, TypeError
    """
    n_ = check_positive_int(n, "n")
    d_ = check_positive_int(d, "d")
    b = _check_bounds(bounds)
    loss = get_loss(loss_name)
    if neighbour not in ("symmetric", "null", "one-sided"):
        raise ValueError(f"neighbour must be 'symmetric', 'null' or 'one-sided', got {neighbour!r}")
    binary = bool(loss.binary_labels)
    if binary and b.y_max < 1.0:
        raise ValueError(f"the {loss.name} loss needs labels ±1, so bounds.y_max must be >= 1, got {b.y_max}")
    e1 = np.zeros(d_)
    e1[0] = 1.0
    x_c = _onto_sphere(e1, b.x_max)
    X = np.zeros((n_, d_))
    base_label = 1.0 if binary else 0.0
    y = np.full(n_, base_label)
    X[-1] = x_c
    if loss.name == "linear":
        y_c = 0.0
    elif binary:
        y_c = 1.0
    else:
        y_c = b.y_max
    y[-1] = y_c
    if neighbour == "one-sided":
        X[:] = x_c
        y[:] = y_c
    X2, y2 = X.copy(), y.copy()
    mode = neighbour
    if neighbour in ("symmetric", "one-sided") and not binary and loss.name != "linear" and b.y_max == 0.0:
        mode = "null"
    if mode == "null":
        X2[-1] = 0.0
        desc = f"{loss.name} canary (x_max e1, {y_c:g}) vs null record (0, {y_c:g})"
    elif loss.name == "linear":
        X2[-1] = -x_c
        desc = "linear canary x_max e1 vs -x_max e1 (gradient negated)"
        if mode == "one-sided":
            desc = ("worst-case one-sided pair: all n records x_max e1, the last replaced by -x_max e1 "
                    "(linear loss; every other record shares the replaced record's gradient)")
    else:
        y2[-1] = -y_c
        desc = f"{loss.name} canary (x_max e1, {y_c:g}) vs label flip (x_max e1, {-y_c:g})"
        if mode == "one-sided":
            desc = (f"worst-case one-sided pair: all n records ({loss.name} canary (x_max e1, {y_c:g})), the last "
                    f"label-flipped")
    return CanaryPair(X, y, X2, y2, desc)
