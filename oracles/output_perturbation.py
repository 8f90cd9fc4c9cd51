"""Exact answers for Lowy & Razaviyayn's output perturbation (``reference.output_perturbation``).

Exact privacy of the noise mechanisms of ``reference.noise``
-------------------------------------------------------------
* **L2-Laplace (δ = 0)**, density ∝ exp(−‖z‖/b) around centres a, a' with ‖a − a'‖ = t: the privacy loss
  log p(o − a)/p(o − a') = (‖o − a'‖ − ‖o − a‖)/b ≤ t/b by the triangle inequality, with equality for every
  o = a + r·u, u = (a − a')/t, r ≥ 0 (a set of positive measure once thickened: the loss is continuous and
  its supremum t/b is approached on open sets).  Hence the mechanism is exactly (t/b)-DP: ε_exact = t/b,
  and δ(ε) > 0 for every ε < t/b.  (``l2_laplace_epsilon``.)  The projection Π_{B(0,R)} is post-processing.
* **Gaussian**: the exact curve δ(ε) of Balle & Wang 2018 (``oracles.privacy_curves.gaussian_delta``) with
  shift t and the σ actually used; ``zhao_exact_epsilon`` / ``printed_alg2_exact_epsilon`` evaluate what
  the paper's printed σ formulas really guarantee at sensitivity Δ.
"""

from __future__ import annotations

import math

from reference import noise
from reference.validation import check_positive

from .privacy_curves import gaussian_delta, gaussian_epsilon

__all__ = ["gaussian_exact_delta", "l2_laplace_epsilon", "printed_alg2_exact_epsilon", "zhao_exact_epsilon"]


def l2_laplace_epsilon(shift: float, scale: float) -> float:
    """Exact ε of z ↦ a + Lap_2(b) vs a' + Lap_2(b), ‖a − a'‖ = ``shift``, b = ``scale``: shift/b."""
    return check_positive(shift, "shift", allow_zero=True) / check_positive(scale, "scale")


def gaussian_exact_delta(epsilon: float, shift: float, sigma: float) -> float:
    """Exact δ(ε) of the Gaussian output perturbation with centre distance ``shift`` (Balle & Wang 2018)."""
    return float(gaussian_delta(epsilon, shift, sigma))


def zhao_exact_epsilon(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest ε' with δ_σ(ε') ≤ δ for Zhao's σ at (ε, δ, Δ): what Theorem 0.1 actually delivers (≤ ε)."""
    return gaussian_epsilon(delta, sensitivity, noise.zhao_sigma(sensitivity, epsilon, delta))


def printed_alg2_exact_epsilon(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Same for Algorithm 2's printed density (σ_Zhao/√2, erratum LR-E2): exceeds ε (not private)."""
    return gaussian_epsilon(delta, sensitivity, noise.zhao_sigma(sensitivity, epsilon, delta, printed_alg2=True))
