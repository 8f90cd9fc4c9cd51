"""The one ``Loss`` protocol: what every paper's loss family offers, in one signature (issue 26).

The five papers use four loss families, each shaped by its algorithms (so they keep their own richer APIs), but
all of them give **per-sample values and per-sample (sub)gradients at one point w on a dataset**:

    values(w, data) -> (n,)        f(w; z_i) for every record z_i of ``data``
    grads(w, data)  -> (n, d)      a (sub)gradient ∇f(w; z_i) for every record

``w`` is a finite (d,) float array.  The names are the ones two of the four families already used
(``values``/``grads`` of Asi, Liu & Tian and of Menart et al.); the other two gained thin adapters over their native
methods, with no change to any algorithm.  The empirical risk is the mean of ``values`` (its gradient the mean of
``grads``) wherever a family defines one.

What ``data`` is, per family (its record array, exactly as the family's algorithms take it)
------------------------------------------------------------------------------------------
* ``dpsco.reference.losses.GLMLoss`` (Bassily et al. 2019; Lowy & Razaviyayn 2021): ℓ(w; (x, y)) = φ(⟨w, x⟩, y),
  ``data = (X, y)``, a pair of X (n, d) and y (n,).  Native: ``value(w, X, y)``, ``grad(w, X, y)``; objective
  ``mean_value(w, X, y)`` / ``mean_grad``.
* ``dpsco.reference.alt24.model.HeavyTailedLoss`` (Asi, Liu & Tian 2024, Sec. 2): ``data = S`` (n, p) records,
  d = ``loss.dimension(p)`` (p, p − 1 for [a, b] records, p/2 for [ξ, z]).  Native: ``values``/``grads``.
* ``dpsco.reference.muabg23.model.NonconvexLoss`` (Menart et al. 2023, §2; also the oracles' shift and logistic
  losses): ``data = X`` (n, p) records, d = ``loss.dimension(p)``.  Native: ``values``/``grads``; objective
  ``value(w, X)`` = F(w; S), ``gradient(w, X)`` = ∇F(w; S).
* ``dpsco.reference.accd22.extension.ConvexLoss`` (Asi, Chadha, Cheng & Duchi 2022): ``data = Z`` (n, p) records
  ([a, y] for GLMs, [s, h] radial, [c, u] diagonal quadratic), d = ``loss.dim(Z)``.  Native: ``value(X, Z)`` and
  ``grad(X, Z)`` at R points X (R, d) at once ((R, n) and (R, n, d)); the adapters evaluate them at the one
  point ``X = w[None, :]``.  The algorithms use the Lipschitzian extension ``extended_value``/``extended_grad``
  (Definition 2.5, eq. (2)), not these.

The Lipschitz constant: three APIs, documented rather than unified
-----------------------------------------------------------------
The constant plays a different role in each paper, so a common signature would hide what each proof needs:

* GLM: ``lipschitz(x_max, y_max, radius) -> float``, a deterministic L from *declared data bounds*
  (‖x‖ ≤ x_max, |y| ≤ y_max) and the domain radius M of W = B(0, M) (``ERMProblem.lipschitz``);
* heavy-tailed: the Lipschitz constant is random (Assumption 1: only its moments E[L_s^j] ≤ G_j^j are public,
  ``MomentBounds``); ``lipschitz_bound(S, radius) -> (n,)`` gives Assumption 2's per-record L̄_s where known;
* non-convex: ``lipschitz(region) -> float``, the declared L_0 on a region (a ``Ball`` centred at 0, or None for
  R^d; ``math.inf`` if unbounded), with ``check_records`` refusing data outside the declared domain;
* accd22: no Lipschitz method: L is a public input of the algorithms, and every summand is replaced by its
  L-Lipschitz extension F_L, so no record can break it.

A user's own loss needs only these two methods to be a ``Loss`` (``isinstance(loss, Loss)``); a paper's algorithms
still require their own family (they read its constants), and say so with a TypeError naming ``loss``.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["Loss", "is_loss"]


@runtime_checkable
class Loss(Protocol):
    """A per-sample loss f(w; z) over the records z of a dataset ``data`` (the family's record array; see the
    module docstring for each family's ``data`` and Lipschitz API).

    Methods
    -------
    values(w, data) -> (n,) float array
        f(w; z_i) for each of the n records, at the (d,) point ``w``.
    grads(w, data) -> (n, d) float array
        a (sub)gradient of f(·; z_i) at ``w`` for each record.

    ``isinstance(obj, Loss)`` checks that both methods exist (a structural check; it does not call them).
    """

    def values(self, w: np.ndarray, data: Any) -> np.ndarray:
        """Per-sample losses f(w; z_i), shape (n,)."""
        ...

    def grads(self, w: np.ndarray, data: Any) -> np.ndarray:
        """Per-sample (sub)gradients ∇f(w; z_i), shape (n, d)."""
        ...


def is_loss(obj: Any) -> bool:
    """True iff ``obj`` (an instance or a class) has callable ``values`` and ``grads`` (the :class:`Loss`
    protocol's structural check, usable on classes whose constructors need arguments)."""
    return all(callable(getattr(obj, name, None)) for name in ("values", "grads"))
