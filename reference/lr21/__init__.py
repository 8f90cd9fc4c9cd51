"""Lowy and Razaviyayn (2021), "Output Perturbation for Differentially Private Convex Optimization with
Improved Population Loss Bounds, Runtimes and Applications to Private Adversarial Training" (AAAI 2021, with
its supplemental material, arXiv:2102.04704): output perturbation for strongly convex objectives
(Algorithm 1), with regularisation for convex ones (Algorithm 2), and its applications: tilted ERM,
ℓ2-robust ERM and adversarial training (Algorithm 3).
"""
from dpsco.reference.lr21.algorithms import algorithm_1, algorithm_2, algorithm_3, robust_erm, tilted_erm

__all__ = ["algorithm_1", "algorithm_2", "algorithm_3", "robust_erm", "tilted_erm"]
