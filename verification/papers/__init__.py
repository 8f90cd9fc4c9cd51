"""The catalogue: one module per paper declaring its algorithms, their claims, checks, budgets and planted
bugs (``bftt19``, ``lr21``), the registry they are entered in (``registry``), the objectives the
Lowy–Razaviyayn algorithms minimise (``objectives``), and the assembled catalogue (``catalogue``, also
``dpsco.catalogue``)."""
from dpsco.verification.papers import catalogue

__all__ = ["catalogue"]
