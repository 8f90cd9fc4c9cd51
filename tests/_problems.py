"""Small random GLM problems shared by the oracle and certificate tests."""

from __future__ import annotations

import numpy as np

from dpsco.reference.losses import GLMLoss, get_loss


def make_problem(name: str, n: int = 25, d: int = 3, seed: int = 0) -> tuple[GLMLoss, np.ndarray, np.ndarray]:
    """Loss ``name`` with X: (n, d) rows of norm in [0.2, 1] and labels from a planted w0 (±1 for logistic and
    hinge via a logistic model, else linear + N(0, 0.3²) noise); Huber threshold 0.3."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X *= (rng.uniform(0.2, 1.0, size=n) / np.linalg.norm(X, axis=1))[:, None]
    w0 = rng.standard_normal(d)
    if name in ("logistic", "hinge"):
        y = np.where(rng.random(n) < 1 / (1 + np.exp(-3 * X @ w0)), 1.0, -1.0)
    else:
        y = X @ w0 + 0.3 * rng.standard_normal(n)
    loss = get_loss(name, threshold=0.3) if name == "huber" else get_loss(name)
    return loss, X, y
