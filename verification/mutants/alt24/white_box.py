"""Planted bugs of Asi, Liu & Tian (2024)'s Algorithm 8 that expose the white-box view of their run (the noisy
phase outputs x_1..x_I), for the white-box audit of the ``alt24.onepass_dp_sgd_glm`` suite
(``dpsco.verification.papers.alt24.known_lip.onepass_dp_white_box_audit``; tests/alt24/test_alt24_white_box.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpsco.reference.alt24 import MomentBounds
from dpsco.reference.alt24.algorithms_one_pass import onepass_clipped_dp_sgd, onepass_clipped_sgd, theorem_4_parameters
from dpsco.reference.domains import Ball
from dpsco.reference.privacy import Release

__all__ = ["onepass_dp_sgd_half_sigma_white_box"]


def onepass_dp_sgd_half_sigma_white_box(S: Any, loss: Any, domain: Ball, x0: Any, rho: float, bounds: MomentBounds,
                                        rng: np.random.Generator, *, beta: float | None = None, delta: float = 1e-6,
                                        project: bool = True, white_box: bool = False) -> Release:
    """Algorithm 8 with σ_i/2 (the bug of ``alt24_known_lip.onepass_dp_sgd_half_sigma``: one clipped step's
    sensitivity ηC taken for the phase average's 2η_iC_i) and the original ρ/4-zCDP claim; with
    ``white_box=True`` its ``Release.white_box`` holds the phase starts and noisy phase outputs, as the reference
    does.  Caught by the white-box audit of the worst pair (linear GLM, differing record first in phase 1):
    the phase-1 release's μ ≈ 2 × 0.484 against the claimed √(ρ/2) = 0.5."""
    ref = onepass_clipped_dp_sgd(S, loss, domain, x0, rho, bounds, np.random.default_rng(0), beta=beta,
                                 delta=delta, project=project)      # checks and claim of the correct algorithm
    S = np.asarray(S, dtype=np.float64)
    par = theorem_4_parameters(S.shape[0], ref.output.shape[0], rho, bounds, domain.diameter)
    R = domain.radius
    x = np.asarray(x0, dtype=np.float64).copy()
    starts, releases = [], []
    for ph in par["phases"]:
        nx = float(np.linalg.norm(x))
        start = x * (R / nx) if (project and nx > R) else x
        xbar = onepass_clipped_sgd(S[ph["start"]:ph["stop"]], loss, ph["C_i"], ph["eta_i"], domain,
                                   start).output
        x = xbar + 0.5 * ph["sigma_i"] * rng.standard_normal(xbar.shape[0])       # the bug: σ_i/2
        starts.append(np.array(start, dtype=np.float64))
        releases.append(x.copy())
    nx = float(np.linalg.norm(x))
    out = x * (R / nx) if (project and nx > R) else x
    wb = {"phase_starts": np.array(starts), "phase_releases": np.array(releases)} if white_box else None
    return Release(output=out, claim=ref.claim, gradient_evaluations=ref.gradient_evaluations,
                   parameters=ref.parameters, algorithm="MUTANT half-sigma " + ref.algorithm, white_box=wb)
