"""Noise-addition mechanisms with exactly known privacy, shared by the auditor tests.

On datasets ``{"x": (n,) or (n, k) array in [0, 1]}`` whose neighbours differ in one record by at most 1 per
coordinate, the replace-one sensitivity of the sum is 1, so:

* ``LaplaceSum(b)``: sum(x) + Lap(b) is exactly (1/b, 0)-DP (tight);
* ``GaussianSum1D(σ)``: sum(x) + N(0, σ²) is exactly the Gaussian mechanism with Δ = 1;
* ``GaussianSum(σ)``: the row sum + N(0, σ² I) (multi-dimensional output; Gaussian mechanism on pairs whose
  rows differ by a unit vector).

Each has a batched ``sample(data, n, rng)`` returning n independent runs.
"""

from __future__ import annotations

import numpy as np


class LaplaceSum:
    """sum(x) + Lap(scale): replace-one sensitivity 1, exactly (1/scale, 0)-DP (tight)."""

    def __init__(self, scale: float) -> None:
        self.scale = scale

    def __call__(self, data: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        return np.array([data["x"].sum() + rng.laplace(0.0, self.scale)])

    def sample(self, data: dict[str, np.ndarray], n: int, rng: np.random.Generator) -> np.ndarray:
        return data["x"].sum() + rng.laplace(0.0, self.scale, size=n)  # (n,): the auditor reshapes


class GaussianSum1D:
    """sum(x) + N(0, σ²): the Gaussian mechanism with sensitivity 1."""

    def __init__(self, sigma: float) -> None:
        self.sigma = sigma

    def __call__(self, data: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        return np.array([data["x"].sum() + rng.normal(0.0, self.sigma)])

    def sample(self, data: dict[str, np.ndarray], n: int, rng: np.random.Generator) -> np.ndarray:
        return data["x"].sum() + rng.normal(0.0, self.sigma, size=n)


class GaussianSum:
    """Row sum + N(0, σ² I): on pairs whose rows differ by e₁, exactly the Gaussian mechanism, Δ = 1."""

    def __init__(self, sigma: float) -> None:
        self.sigma = sigma

    def __call__(self, data: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        return data["x"].sum(axis=0) + rng.normal(0.0, self.sigma, size=data["x"].shape[1])

    def sample(self, data: dict[str, np.ndarray], n: int, rng: np.random.Generator) -> np.ndarray:
        return data["x"].sum(axis=0) + rng.normal(0.0, self.sigma, size=(n, data["x"].shape[1]))
