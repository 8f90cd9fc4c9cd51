"""dpsco.oracles: certified exact answers.

Modules
-------
minimizers      certified minimisers of empirical objectives, cross-checked by cvxpy/Clarabel
population      synthetic distributions with exactly known population risk and certified minimisers
privacy_curves  exact privacy curves (Gaussian, Laplace, with-replacement NSGD canary) and dp_accounting
"""
