"""Asi, Liu & Tian (2024), "Private Stochastic Convex Optimization with Heavy Tails: Near-Optimality from Simple
Reductions": private SCO when the sample Lipschitz constants have only k bounded moments.

Modules: ``model`` (the problem: per-sample losses and the public moment bounds G_j), ``primitives`` (clipping,
bounded Laplace, Aggregate, projections onto ball intersections).
"""

from dpsco.reference.alt24.model import HeavyTailedLoss, MomentBounds, check_records
from dpsco.reference.alt24.primitives import (aggregate, clip, project_ball, project_ball_intersection,
                                              sample_bounded_laplace)

__all__ = ["HeavyTailedLoss", "MomentBounds", "aggregate", "check_records", "clip", "project_ball",
           "project_ball_intersection", "sample_bounded_laplace"]
