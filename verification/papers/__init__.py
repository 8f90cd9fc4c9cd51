"""The catalogue: one room per paper (``bftt19/``, ``lr21/``, ``alt24/``, ``muabg23/``, ``accd22/``, each with its
``catalogue`` module declaring the paper's algorithms, their claims, checks, budgets and planted bugs, its privacy
harness and its suites), the registry the entries are entered in (``registry``), the shared privacy contract
(``harness``, ``glm_harness``), the objectives the Lowy–Razaviyayn algorithms minimise (``objectives``), and the
assembled catalogue (``catalogue``, also ``dpsco.catalogue``; ``catalogue.PAPERS`` lists the rooms)."""
from dpsco.verification.papers import catalogue

__all__ = ["catalogue"]
