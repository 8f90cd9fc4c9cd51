"""Menart, Ullah, Arora, Bassily & Guzmán (2023), "Differentially Private Non-Convex Optimization under the KL
Condition with Optimal Rates" (arXiv:2311.13447 v2): private ERM for losses satisfying the (γ, κ)-KL condition,
under ρ-zCDP and replace-one neighbours.
"""
