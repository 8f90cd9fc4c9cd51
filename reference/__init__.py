"""dpsco.reference: paper-faithful private optimisation algorithms and the shared problem model.

Imports nothing from ``oracles`` or ``verification``: imports run one way, towards ``reference``.
"""

from dpsco.reference.domains import Ball
from dpsco.reference.losses import AbsoluteLoss, GLMLoss, HingeLoss, HuberLoss, LinearLoss, LogisticLoss, SquaredLoss, get_loss
from dpsco.reference.privacy import PrivacyClaim, Release
from dpsco.reference.problem import DataBounds, ERMProblem, clip_to_bounds
from dpsco.reference.white_box import NoisyGradientTrace

__all__ = [
    "AbsoluteLoss",
    "Ball",
    "DataBounds",
    "ERMProblem",
    "GLMLoss",
    "HingeLoss",
    "HuberLoss",
    "LinearLoss",
    "LogisticLoss",
    "NoisyGradientTrace",
    "PrivacyClaim",
    "Release",
    "SquaredLoss",
    "clip_to_bounds",
    "get_loss",
]
