"""Families of neighbouring pairs for ``audit_family`` (add/remove, sign-flip, worst-case), inside a declared data
domain (a ball or a box; :mod:`dpsco.verification.auditing.neighbours` holds the domains, their checks and extreme
points).  Every record produced lies inside the declared domain (checked without tolerance)."""

from __future__ import annotations

import math
from typing import Any, Literal, NamedTuple

import numpy as np

from dpsco.reference.losses import get_loss
from dpsco.reference.validation import as_float_vector, check_data, check_positive_int
from dpsco.verification.auditing.neighbours import (MAX_FULL_CORNER_DIM, BoxBounds, Domain, check_domain, check_inside,
                                                    extreme_points, in_domain, label_range,
                                                    n_deterministic_extreme_points)

__all__ = ["NeighbourPair", "add_remove_pairs", "sign_flip_pairs", "worst_case_pairs"]


class NeighbourPair(NamedTuple):
    """A neighbouring pair in the form :func:`dpsco.verification.auditing.estimators.audit_family` takes."""

    dataset: dict[str, np.ndarray]
    neighbour: dict[str, np.ndarray]
    label: str
    relation: str

    def as_tuple(self) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], str]:
        return self.dataset, self.neighbour, self.label


def _checked(X: Any, y: Any, bounds: Domain) -> tuple[np.ndarray, np.ndarray]:
    Xa, ya = check_data(X, y)
    check_inside(Xa, ya, check_domain(bounds))
    return Xa, ya


def _labels(bounds: Domain, binary: bool) -> list[float]:
    """The extreme labels: ±1 for ±1-label losses; else (y_hi, y_lo) (ball: ±y_max), once if equal."""
    if binary:
        return [1.0, -1.0]
    lo, hi = label_range(bounds)
    return [hi, lo] if hi > lo else [hi]


def add_remove_pairs(
    X: Any, y: Any, bounds: Domain, *, k: int = 4, labels: Any = None, rng: np.random.Generator | None = None
) -> list[NeighbourPair]:
    """Add/remove neighbours: (X, y) plus one extreme record appended, against (X, y) itself.

    The added records are the first ``k`` :func:`extreme_points` of the declared domain (ball or box; k is
    capped at :func:`n_deterministic_extreme_points` when no ``rng`` is given), each with the extreme
    labels (``labels``: default the label range's ends, ±y_max for a ball, or e.g. ``labels=[1, -1]``).  The
    larger dataset is ``dataset`` (axis 0 = records), as :func:`dpsco.verification.auditing.audit.audit` checks for the
    "add/remove" relation.

    Returns
    -------
    list of NeighbourPair (relation "add/remove"), k·len(labels) of them.
    """
    Xa, ya = _checked(X, y, bounds)
    b = check_domain(bounds)
    kk = check_positive_int(k, "k")
    if rng is None:
        kk = min(kk, n_deterministic_extreme_points(b, Xa.shape[1]))
    pts = extreme_points(b, Xa.shape[1], kk, rng=rng)
    labs = _labels(b, False) if labels is None else [float(v) for v in np.atleast_1d(labels)]
    y_lo, y_hi = label_range(b)
    for v in labs:
        if not math.isfinite(v) or not (y_lo <= v <= y_hi):
            raise ValueError(f"labels must lie in the declared label range [{y_lo}, {y_hi}], got {v}")
    out = []
    for i, x in enumerate(pts):
        for v in labs:
            big = {"X": np.vstack([Xa, x[None, :]]), "y": np.concatenate([ya, [v]])}
            out.append(NeighbourPair(big, {"X": Xa.copy(), "y": ya.copy()},
                                     f"add extreme point {i} (label {v:g})", "add/remove"))
    return out


def sign_flip_pairs(X: Any, y: Any, bounds: Domain, *, index: int = -1) -> list[NeighbourPair]:
    """Replace-one neighbours by sign flips of record ``index``: (−x, y), (x, −y) and (−x, −y).

    Sign flips stay in a ball (symmetric about 0) and negate the record's gradient for the linear loss
    (x ↦ −x) or for label-symmetric losses (y ↦ −y), reaching the replace-one sensitivity 2L when the record is
    extreme.  Flips that leave the record unchanged (x = 0 or y = 0) are skipped, and so are flips that leave
    a box domain (:class:`BoxBounds`, not symmetric in general).
    """
    Xa, ya = _checked(X, y, bounds)
    n = Xa.shape[0]
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not (-n <= int(index) < n):
        raise ValueError(f"index must be an integer in [-{n}, {n}), got {index!r}")
    i = int(index) % n
    out = []
    for fx, fy, name in ((-1.0, 1.0, "x -> -x"), (1.0, -1.0, "y -> -y"), (-1.0, -1.0, "(x, y) -> (-x, -y)")):
        X2, y2 = Xa.copy(), ya.copy()
        X2[i] = fx * Xa[i]
        y2[i] = fy * ya[i]
        if np.array_equal(X2[i], Xa[i]) and y2[i] == ya[i]:
            continue
        if not in_domain(X2[i:i + 1], y2[i:i + 1], bounds):
            continue
        out.append(NeighbourPair({"X": Xa.copy(), "y": ya.copy()}, {"X": X2, "y": y2},
                                 f"sign flip of record {i}: {name}", "replace-one"))
    return out


def worst_case_pairs(
    X: Any,
    y: Any,
    bounds: Domain,
    loss_name: str,
    *,
    w: Any = None,
    index: int = -1,
    k: int = 3,
    n_candidates: int = 32,
    rng: np.random.Generator | None = None,
    background: Literal["data", "shared"] = "data",
) -> list[NeighbourPair]:
    """Replace-one pairs that maximise the gradient sensitivity ‖∇ℓ(w; z) − ∇ℓ(w; z')‖ at ``w``.

    Sensitivity analysis of gradient-based and perturbation algorithms: their privacy calibration assumes
    ‖∇ℓ(w; z) − ∇ℓ(w; z')‖ <= 2L for every pair of records, and an audit is most powerful on pairs that
    reach it.  Candidates z, z' range over the first ``n_candidates`` extreme points of the declared domain
    (ball or box; :func:`extreme_points`; without ``rng`` at most :func:`n_deterministic_extreme_points` of
    them, so no ``rng`` is ever needed) × the extreme labels (±1 for the ±1-label losses, the ends of the
    label range otherwise, ±y_max for a ball); for GLM
    losses ∇ℓ(w; (x, y)) = φ'(⟨w, x⟩, y)·x.  Record ``index`` of the dataset is set to z and of the neighbour
    to z' for the ``k`` best (z, z') (distinct gradient differences), so each returned pair differs in one
    record.  ``w`` defaults to 0 (the usual initial point).

    ``background="shared"`` also sets every *other* record of both datasets to z, so that all of them share the
    replaced record's gradient at every w: the worst-case pair known for mini-batch noisy SGD with
    with-replacement sampling (the dataset's side then has no sampling randomness; see
    ``dpsco.reference.bftt19.accounting`` and ERRATA.md BFTT19-E4).  ``"data"`` (default) keeps the caller's other records.

    Returns
    -------
    list of NeighbourPair (relation "replace-one"), sorted by decreasing gradient difference; the label
    records the difference.
    """
    Xa, ya = _checked(X, y, bounds)
    b = check_domain(bounds)
    loss = get_loss(loss_name)
    n, d = Xa.shape
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not (-n <= int(index) < n):
        raise ValueError(f"index must be an integer in [-{n}, {n}), got {index!r}")
    i = int(index) % n
    kk = check_positive_int(k, "k")
    nc = check_positive_int(n_candidates, "n_candidates")
    if background not in ("data", "shared"):
        raise ValueError(f"background must be 'data' or 'shared', got {background!r}")
    w_ = np.zeros(d) if w is None else as_float_vector(w, "w", d)
    binary = bool(loss.binary_labels)
    y_lo, y_hi = label_range(b)
    if binary and (y_lo > -1.0 or y_hi < 1.0):
        raise ValueError(f"the {loss.name} loss needs labels ±1, so the declared label range must contain "
                         f"[-1, 1] (y_max >= 1 for a ball), got [{y_lo}, {y_hi}]")
    n_det = n_deterministic_extreme_points(b, d)
    if isinstance(b, BoxBounds) and int(np.sum(np.less(*b.limits(d)))) <= MAX_FULL_CORNER_DIM:
        nc = min(nc, n_det)  # a box has no more than its corners
    pts = extreme_points(b, d, min(nc, n_det) if rng is None else nc, rng=rng)
    labs = _labels(b, binary)
    cands = [(x, v) for x in pts for v in labs]
    CX = np.stack([c[0] for c in cands])
    Cy = np.array([c[1] for c in cands])
    G = loss.grad(w_, CX, Cy) if hasattr(loss, "grad") else None
    G = np.asarray(G, dtype=np.float64).reshape(len(cands), d)
    diffs = np.linalg.norm(G[:, None, :] - G[None, :, :], axis=2)
    iu = np.triu_indices(len(cands), k=1)
    order = np.argsort(-diffs[iu], kind="stable")
    out: list[NeighbourPair] = []
    seen: set[tuple[int, int]] = set()
    for o in order:
        a, c = int(iu[0][o]), int(iu[1][o])
        if (a, c) in seen:
            continue
        seen.add((a, c))
        X1, y1, X2, y2 = Xa.copy(), ya.copy(), Xa.copy(), ya.copy()
        if background == "shared":
            X1[:], y1[:] = cands[a]
            X2[:], y2[:] = cands[a]
        X1[i], y1[i] = cands[a]
        X2[i], y2[i] = cands[c]
        label = f"{loss.name} gradient difference {diffs[a, c]:.6g} at w (record {i})"
        if background == "shared":
            label += ", every other record sharing the replaced record's value"
        out.append(NeighbourPair({"X": X1, "y": y1}, {"X": X2, "y": y2}, label, "replace-one"))
        if len(out) >= kk:
            break
    return out
