"""Bassily, Feldman, Talwar and Thakurta (2019), "Private Stochastic Convex Optimization with Optimal Rates"
(NeurIPS 2019, arXiv:1908.09970): noisy SGD (A_NSGD, Algorithm 1), its Moreau-envelope and proximal
variants (Sections 3–4), and objective perturbation (A_ObjP, Algorithm 2, and its efficient variant).
"""
from dpsco.reference.bftt19.algorithms import (efficient_objective_perturbation, moreau_noisy_sgd, noisy_sgd,
                                               objective_perturbation, prox_noisy_sgd)

__all__ = ["efficient_objective_perturbation", "moreau_noisy_sgd", "noisy_sgd", "objective_perturbation",
           "prox_noisy_sgd"]
