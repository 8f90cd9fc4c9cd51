"""Scalar statistics of a mechanism's flattened outputs, on which the auditor's threshold events are defined.

An audit reduces each output x ∈ R^k to a number s(x) and tests events {s ≥ τ} or {s ≤ τ}.  The statistic
may be learned from the *selection* runs only ("projection", "logistic"): it is then a fixed function once
the selection runs are fixed, and the test runs are independent of it, so validity never depends on how
well it was learned (docs/derivations.md#soundness-of-the-sample-split-threshold-audit).

Specifications (``audit(statistic=...)``): "auto" (the default), "projection", "norm", "logistic",
"classifier", "coordinate:<i>", or a callable (N, k) -> (N,); :func:`likelihood_ratio_statistic` and
:func:`gaussian_likelihood_ratio` build callables for outputs with a known density.

**The default, "auto": a small family chosen on the selection half** (:func:`family_members`).  A single
projection sees only a shift of the mean; a mechanism whose neighbours differ in the *scale* of their noise
(same mean, σ against 1.5σ: a live bug of a DP-SGD library) is invisible to it.  So the default tries

* location: the output itself (k = 1) or its projection on the difference of selection-half means (k > 1);
* scale: the distance to the pooled selection-half centre, ‖x − c‖ (|x − c| for k = 1);
* extremes (k > 1): the largest standardised coordinate deviation max_i |x_i − c_i|/s_i;
* a learned witness (4 ≤ k ≤ 100, when scikit-learn is installed): a classifier's log-odds on [x, x²]
  (:func:`classifier_statistic`), as DP-Sniper learns its witness;

and keeps the member whose best event has the best selection score (:func:`select_statistic_and_event`).
Every member and the choice among them are functions of the selection half only, so the test half is
independent of the choice and validity is untouched; the price of the family is paid in power (a slightly
worse event when the selection half mis-ranks the members), measured in docs/auditing.md.  Where no selection
half exists (an event given in advance, a claim-placed event from a 1 % pilot) "auto" is the projection.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any, Callable, Union

import numpy as np
from scipy.optimize import minimize
from scipy.special import log_expit

__all__ = [
    "CLASSIFIER_MAX_DIM",
    "CLASSIFIER_MIN_DIM",
    "DEFAULT_STATISTIC",
    "Statistic",
    "classifier_statistic",
    "family_members",
    "select_statistic_and_event",
    "gaussian_likelihood_ratio",
    "likelihood_ratio_statistic",
    "logistic_statistic",
    "parse_statistic",
    "statistic_function",
]

Statistic = Union[str, Callable[[np.ndarray], np.ndarray]]

#: the auditor's default statistic: the family of :func:`family_members`, chosen on the selection half
DEFAULT_STATISTIC = "auto"
#: outputs with at least this many coordinates (and at most CLASSIFIER_MAX_DIM) add the learned witness to the
#: default family; above it the fit's cost grows with the 2k features while the scale member already sees a
#: spread-out difference (``--statistic classifier`` still trains it at any k)
CLASSIFIER_MIN_DIM = 4
CLASSIFIER_MAX_DIM = 100


def parse_statistic(statistic: Any) -> tuple[str, Any]:
    """(kind, argument) of a statistic specification: ("projection" | "norm" | "logistic", None),
    ("coordinate", i) or ("callable", f).  TypeError for a non-string non-callable, ValueError for an
    unknown string."""
    if callable(statistic):
        return "callable", statistic
    if not isinstance(statistic, str):
        raise TypeError(f"statistic must be a string or a callable, got {type(statistic).__name__}")
    if statistic in ("auto", "projection", "norm", "logistic", "classifier"):
        return statistic, None
    if statistic.startswith("coordinate:"):
        try:
            idx = int(statistic.split(":", 1)[1])
        except ValueError:
            raise ValueError(f"statistic {statistic!r}: expected 'coordinate:<integer>'") from None
        return "coordinate", idx
    raise ValueError(
        f"statistic must be 'auto', 'projection', 'norm', 'logistic', 'classifier', 'coordinate:<i>' or a callable, "
        f"got {statistic!r}"
    )


def statistic_function(
    kind: str, arg: Any, sel_a: np.ndarray | None, sel_b: np.ndarray | None, k: int
) -> tuple[Callable[[np.ndarray], np.ndarray], str, dict[str, Any]]:
    """The statistic (N, k) -> (N,) of a parsed specification (:func:`parse_statistic`), its description
    and details for the record.

    ``sel_a``, ``sel_b``: the selection runs (n_sel, k) of the two sides, or None when there are none (an
    event fixed in advance); "projection" (k > 1) and "logistic" need them.  "projection": the output itself
    when k = 1, else the projection on the unit vector along mean(sel_a) − mean(sel_b) (e_1 if the means
    coincide).  A user callable is wrapped so that a wrong shape or a non-finite value raises ValueError.
    """
    if kind == "auto":   # without a selection half to choose on: the projection (module docstring)
        kind = "projection"
    if kind == "classifier":
        if sel_a is None or sel_b is None:
            raise ValueError("statistic='classifier' trains on the selection half; it cannot be used with an explicit "
                             "event")
        return classifier_statistic(sel_a, sel_b)
    if kind == "projection":
        if k == 1:
            return (lambda X: X[:, 0]), "the output itself (1-D; projection = identity)", {}
        if sel_a is None or sel_b is None:
            raise ValueError(
                "statistic='projection' needs a selection half to estimate its direction; with an explicit "
                "event use statistic='coordinate:<i>', 'norm' or a callable"
            )
        v = sel_a.mean(axis=0) - sel_b.mean(axis=0)
        norm = float(np.linalg.norm(v))
        if norm == 0.0 or not math.isfinite(norm):
            v = np.zeros(k)
            v[0] = 1.0
            desc = "projection on e_1 (selection-half means coincide)"
        else:
            v = v / norm
            desc = "projection on the difference of selection-half means"
        info = {"projection_direction_head": v[: min(k, 10)].tolist(), "mean_difference_norm": norm}
        return (lambda X: X @ v), desc, info
    if kind == "norm":
        return (lambda X: np.linalg.norm(X, axis=1)), "Euclidean norm of the output", {}
    if kind == "logistic":
        if sel_a is None or sel_b is None:
            raise ValueError("statistic='logistic' trains a classifier on the selection half; it cannot be used with an explicit event")
        return logistic_statistic(sel_a, sel_b)
    if kind == "coordinate":
        i = int(arg)
        if not (-k <= i < k):
            raise ValueError(f"statistic 'coordinate:{i}' is out of range for outputs of dimension {k}")
        return (lambda X: X[:, i]), f"coordinate {i} of the output", {}
    fn = arg

    def call(X: np.ndarray) -> np.ndarray:
        s = np.asarray(fn(X), dtype=np.float64)
        if s.shape != (X.shape[0],):
            raise ValueError(f"statistic callable must map (N, k) outputs to shape (N,), got {s.shape}")
        if not np.all(np.isfinite(s)):
            raise ValueError("statistic callable returned NaN or infinite values")
        return s

    return call, f"user callable {getattr(fn, '__name__', repr(fn))}", {}


def logistic_statistic(
    sel_a: np.ndarray, sel_b: np.ndarray, *, ridge: float = 1e-4, max_rows: int = 200_000
) -> tuple[Callable[[np.ndarray], np.ndarray], str, dict[str, Any]]:
    """Logistic-regression score trained on the selection halves only (dataset = 1, neighbour = 0).

    Features: the standardised output coordinates and their squares (so norm-like and variance differences
    are learnable), intercept; L2 penalty ``ridge``·‖w‖² on the mean log-loss, fitted by L-BFGS
    (``scipy.optimize.minimize``).  At most ``max_rows`` rows per side are used (the first ones; runs are
    i.i.d.).  Validity does not depend on the fit: the score is a fixed function once the selection half
    is fixed, and the test half is independent of it.
    """
    A, B = sel_a[:max_rows], sel_b[:max_rows]
    Z = np.vstack([A, B])
    mean, scale = Z.mean(axis=0), Z.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)

    def features(X: np.ndarray) -> np.ndarray:
        U = (X - mean) / scale
        return np.hstack([U, U * U - 1.0])

    F = features(Z)
    y = np.concatenate([np.ones(A.shape[0]), np.zeros(B.shape[0])])
    sign = 2.0 * y - 1.0
    p = F.shape[1]

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        t = F @ w[:p] + w[p]
        val = -float(np.mean(log_expit(sign * t))) + ridge * float(w[:p] @ w[:p])
        g_t = -sign * (1.0 - np.exp(log_expit(sign * t))) / t.size
        grad = np.concatenate([F.T @ g_t + 2.0 * ridge * w[:p], [g_t.sum()]])
        return val, grad

    res = minimize(loss, np.zeros(p + 1), jac=True, method="L-BFGS-B")
    w = res.x

    def score(X: np.ndarray) -> np.ndarray:
        return features(X) @ w[:p] + w[p]

    info = {"classifier": "logistic regression on [standardised x, x^2], trained on the selection half",
            "classifier_converged": bool(res.success), "classifier_train_loss": float(res.fun)}
    return score, "logistic-regression score (trained on the selection half)", info


def likelihood_ratio_statistic(
    logpdf_dataset: Callable[[np.ndarray], np.ndarray], logpdf_neighbour: Callable[[np.ndarray], np.ndarray]
) -> Callable[[np.ndarray], np.ndarray]:
    """The exact log-likelihood-ratio statistic s(x) = log p(x) − log q(x) for a known output density.

    By the Neyman–Pearson lemma the events {s ≥ τ} are the most powerful tests of P against Q, so the
    threshold audit on s reaches the pair's privacy curve in the limit (every hockey-stick divergence
    H_γ(P ‖ Q) is attained by {s > log γ}).  Pass the result as ``statistic=`` to
    :func:`dpsco.verification.auditing.audit.audit`.  Both callables map an (N, k) array of flattened outputs to (N,) values.
    """
    if not callable(logpdf_dataset) or not callable(logpdf_neighbour):
        raise TypeError("logpdf_dataset and logpdf_neighbour must be callables (N, k) -> (N,)")

    def log_likelihood_ratio(X: np.ndarray) -> np.ndarray:
        a = np.asarray(logpdf_dataset(X), dtype=np.float64)
        b = np.asarray(logpdf_neighbour(X), dtype=np.float64)
        return np.nan_to_num(a - b, nan=0.0, posinf=1e300, neginf=-1e300)

    return log_likelihood_ratio


def gaussian_likelihood_ratio(mean_dataset: Any, mean_neighbour: Any, sigma: float) -> Callable[[np.ndarray], np.ndarray]:
    """Exact log-likelihood ratio of N(a, σ²I) vs N(b, σ²I): s(x) = ⟨x − (a + b)/2, a − b⟩/σ²."""
    a = np.atleast_1d(np.asarray(mean_dataset, dtype=np.float64)).ravel()
    b = np.atleast_1d(np.asarray(mean_neighbour, dtype=np.float64)).ravel()
    if a.shape != b.shape:
        raise ValueError(f"mean_dataset and mean_neighbour must have the same size, got {a.size} and {b.size}")
    if isinstance(sigma, bool) or not isinstance(sigma, Real) or not (float(sigma) > 0 and math.isfinite(float(sigma))):
        raise ValueError(f"sigma must be a finite real > 0, got {sigma!r}")
    s2 = float(sigma) ** 2
    mid, diff = (a + b) / 2.0, a - b

    def gaussian_log_likelihood_ratio(X: np.ndarray) -> np.ndarray:
        return ((np.asarray(X) - mid) @ diff) / s2

    return gaussian_log_likelihood_ratio


def classifier_statistic(
    sel_a: np.ndarray, sel_b: np.ndarray, *, max_rows: int = 5_000
) -> tuple[Callable[[np.ndarray], np.ndarray], str, dict[str, Any]]:
    """A learned witness, as DP-Sniper (Bichsel et al. 2021) learns one: the log-odds of a scikit-learn
    classifier trained on the selection halves only (dataset = 1, neighbour = 0).

    The classifier is ``LogisticRegression`` (L2, C = 1, lbfgs) on the standardised coordinates and their
    squares, [u, u² − 1]: the log-likelihood ratio of two Gaussians with diagonal covariances is exactly of
    that form, so it learns location and scale differences (and any mix of them over many coordinates) at the
    cost of one convex fit.  (The ``"logistic"`` statistic is the same model fitted by scipy, kept for
    installations without scikit-learn and for the numbers of earlier records.)  At most ``max_rows`` rows per
    side are used (the first ones; runs are i.i.d.); the fit is deterministic.  Validity does not depend on the
    fit: the score is a fixed function once the selection half is fixed.  Raises ImportError naming the extra
    (``pip install 'dpsco[classifier]'``) when scikit-learn is missing.
    """
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        raise ImportError("statistic='classifier' needs scikit-learn: pip install 'dpsco[classifier]'") from None
    A, B = np.asarray(sel_a[:max_rows], dtype=np.float64), np.asarray(sel_b[:max_rows], dtype=np.float64)
    Z = np.vstack([A, B])
    mean, scale = Z.mean(axis=0), Z.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)

    def features(X: np.ndarray) -> np.ndarray:
        U = (np.asarray(X, dtype=np.float64) - mean) / scale
        return np.hstack([U, U * U - 1.0])

    y = np.concatenate([np.ones(A.shape[0]), np.zeros(B.shape[0])])
    model = LogisticRegression(C=1.0, max_iter=1000).fit(features(Z), y)

    def score(X: np.ndarray) -> np.ndarray:
        return np.asarray(model.decision_function(features(X)), dtype=np.float64)

    info = {"classifier": "scikit-learn LogisticRegression on [standardised x, x^2 - 1], trained on the selection "
                          "half", "classifier_rows_per_side": int(A.shape[0]),
            "classifier_converged": bool(model.n_iter_.max() < 1000)}
    return score, "learned classifier log-odds (trained on the selection half)", info


def family_members(sel_a: np.ndarray, sel_b: np.ndarray,
                   k: int) -> list[tuple[Callable[[np.ndarray], np.ndarray], str, dict[str, Any]]]:
    """The default family's statistics (module docstring), each built from the selection halves only."""
    members = [statistic_function("projection", None, sel_a, sel_b, k)]
    pooled = np.vstack([sel_a, sel_b])
    centre = np.median(pooled, axis=0)
    if k == 1:
        c0 = float(centre[0])
        members.append(((lambda X: np.abs(X[:, 0] - c0)), f"distance to the pooled selection median {c0:.6g}",
                        {"centre": c0}))
        return members
    spread = np.median(np.abs(pooled - centre), axis=0) * 1.4826
    spread = np.where(spread > 0, spread, np.where(pooled.std(axis=0) > 0, pooled.std(axis=0), 1.0))
    members.append(((lambda X: np.linalg.norm(X - centre, axis=1)),
                    "distance to the pooled selection median (scale)", {}))
    members.append(((lambda X: np.max(np.abs(X - centre) / spread, axis=1)),
                    "largest standardised coordinate deviation (extremes)", {}))
    if CLASSIFIER_MIN_DIM <= k <= CLASSIFIER_MAX_DIM:
        try:
            members.append(classifier_statistic(sel_a, sel_b))
        except ImportError:
            pass   # the family without the learned witness; the record lists the members tried
    return members


def select_statistic_and_event(
    kind: str, arg: Any, sel_a: np.ndarray, sel_b: np.ndarray, k: int, delta: float, half_alpha: float,
    n_thresholds: int, criterion: str, epsilon: float,
) -> tuple[Callable[[np.ndarray], np.ndarray], str, dict[str, Any], Any, float, int]:
    """The statistic and its best event chosen on the selection halves: (statistic, description, details,
    event, selection score, candidates).  For "auto" every member of :func:`family_members` is scored by the
    criterion of ``events.select_event`` and the best kept (details list every member's score); any other
    specification is :func:`statistic_function` with its best event."""
    from dpsco.verification.auditing.events import select_event

    if kind != "auto":
        fn, desc, info = statistic_function(kind, arg, sel_a, sel_b, k)
        ev, score, n_cand = select_event(fn(sel_a), fn(sel_b), delta, half_alpha, n_thresholds, criterion, epsilon)
        return fn, desc, info, ev, score, n_cand
    best = None
    scores = []
    for fn, desc, info in family_members(sel_a, sel_b, k):
        ev, score, n_cand = select_event(fn(sel_a), fn(sel_b), delta, half_alpha, n_thresholds, criterion, epsilon)
        scores.append({"statistic": desc, "selection_score": float(score)})
        if best is None or score > best[4]:
            best = (fn, desc, info, ev, score, n_cand)
    assert best is not None
    fn, desc, info, ev, score, n_cand = best
    info = {**info, "family": scores, "family_rule": "the member whose best event scores highest on the selection "
                                                     "half (sample splitting: the test half decides)"}
    return fn, f"{desc} [chosen from the default family of {len(scores)}]", info, ev, score, n_cand
