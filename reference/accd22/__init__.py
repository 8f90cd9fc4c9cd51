"""Asi, Chadha, Cheng & Duchi (2022), "Private optimization in the interpolation regime: faster rates and hardness
results", arXiv:2210.17070: private stochastic convex optimisation that converges near-exponentially fast on
interpolation problems with growth (Algorithms 2, 3, 6), built on the Lipschitzian extension (Algorithm 1) of the
localisation algorithms of Asi, Levy & Duchi (2021) (Algorithms 4, 5), under pure and approximate DP with
replace-one neighbours; lower bounds (Theorems 1, 4) and superefficiency (Theorem 5).

Modules:

``extension``   per-sample convex losses and their exact Lipschitzian extensions (Definition 2.5, Lemma 2.1)
``theorems``    the paper's parameter formulas and bounds as plain functions
``phase``       one phase of Algorithm 4: per-replicate ball domains, the certified inner solver, the noise
                calibration, the extension's gradient oracle with its fail-safe, the run's parts and the white-box
                transcript
``algorithms``  Algorithms 1–6 and their claims

The domain X is the core ``dpsco.reference.domains.Ball`` (re-exported here): ``Ball(r, center=c)`` is B(c, r),
``Ball(r)`` is B(0, r) in the dimension of x0.

Departures from the printed text are documented where they happen and in ERRATA.md (entries ACCD22-E1–ACCD22-E18).
"""

from dpsco.reference.accd22 import algorithms, extension, phase, theorems
from dpsco.reference.accd22.algorithms import (Ball, algorithm_1, algorithm_2, algorithm_3, algorithm_4,
                                               algorithm_5, algorithm_6)
from dpsco.reference.accd22.extension import (ConvexLoss, DiagonalQuadraticLoss, LogisticLoss, PowerLoss,
                                              SquaredDistanceLoss, SquaredHingeLoss, SquaredLoss)

__all__ = ["Ball", "ConvexLoss", "DiagonalQuadraticLoss", "LogisticLoss", "PowerLoss", "SquaredDistanceLoss",
           "SquaredHingeLoss", "SquaredLoss", "algorithm_1", "algorithm_2", "algorithm_3", "algorithm_4",
           "algorithm_5", "algorithm_6", "algorithms", "extension", "phase", "theorems"]
