"""Menart, Ullah, Arora, Bassily & Guzmán (2023), "Differentially Private Non-Convex Optimization under the KL
Condition with Optimal Rates" (arXiv:2311.13447 v2): private ERM for losses satisfying the (γ, κ)-KL condition,
under ρ-zCDP and replace-one neighbours.  The arXiv text lacks the four algorithm boxes; each module says where
it reconstructs one (ERRATA.md).

Modules:

``model``      per-sample non-convex losses with declared L₀, L₁ and weak convexity; (γ, κ)-KL constants
``theorems``   the paper's bounds as plain functions (Theorems 1, 2, 4, 5, 8, 9; Lemmas 1, 3, 6, 7), conversions
``ledger``     exact replace-one Gaussian zCDP costs; a ledger that refuses an overshooting release before its noise
``spider``     Algorithm 1 (KL Spider): its schedule line by line (``spider_schedule``), both calibrations
``proximal``   Algorithm 2 (private proximal point) and Algorithm 4 (projected noisy GD on the regularised problem)
``adaptive``   Algorithm 3 (adaptive noisy GD under a fully adaptive privacy filter) and its Theorem 5 variant

The algorithms, the problem model and the ledger are re-exported here; the parameter functions live in their
modules (``dpsco.reference.muabg23.algorithms_spider.kl_spider_schedule``, ``...proximal.theorem_9_steps``, …).
"""

from dpsco.reference.muabg23 import ledger, model, spider_schedule, theorems

from dpsco.reference.muabg23 import algorithms_adaptive as adaptive

from dpsco.reference.muabg23 import algorithms_proximal as proximal

from dpsco.reference.muabg23 import algorithms_spider as spider
from dpsco.reference.muabg23.algorithms_adaptive import PrivacyFilter, adaptive_gd, adaptive_gd_em, loss_oracle
from dpsco.reference.muabg23.ledger import PrivacyBudgetExceeded, PrivacyLedger, gaussian_zcdp
from dpsco.reference.muabg23.model import KLConstants, LinearLoss, NonconvexLoss
from dpsco.reference.muabg23.algorithms_proximal import noisy_regularised_gd, proximal_point
from dpsco.reference.muabg23.algorithms_spider import SpiderSchedule, kl_spider, kl_spider_schedule

__all__ = [
    "KLConstants", "LinearLoss", "NonconvexLoss", "PrivacyBudgetExceeded", "PrivacyFilter", "PrivacyLedger",
    "SpiderSchedule", "adaptive", "adaptive_gd", "adaptive_gd_em", "gaussian_zcdp", "kl_spider", "kl_spider_schedule",
    "ledger", "loss_oracle", "model", "noisy_regularised_gd", "proximal", "proximal_point", "spider", "spider_schedule",
    "theorems",
]
