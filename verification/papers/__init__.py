"""The catalogue: one module per paper declaring its algorithms, their claims, checks, budgets and planted
bugs."""
from dpsco.verification.papers import catalogue

__all__ = ["catalogue"]
