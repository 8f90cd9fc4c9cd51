"""dpsco.oracles: certified exact answers.

Modules
-------
minimizers           certified minimisers of empirical objectives, cross-checked by cvxpy/Clarabel
population           synthetic distributions with exactly known population risk and certified minimisers
mechanism_curves     closed-form privacy curves: Gaussian (analytic), μ-GDP, Laplace, randomized response
privacy_curves       exact curves of Gaussian mixtures and noisy SGD's canaries, composed subsampled Gaussians
                     (dp_accounting); re-exports mechanism_curves, so it offers every exact privacy curve
output_perturbation  exact privacy of the output-perturbation algorithms of Lowy & Razaviyayn
mp_reference         a 50-digit mpmath reference minimiser of ridge-logistic regression, to check the oracles
                     themselves (``benchmarks/oracle_vs_cvxpy.py``; mpmath comes with the test extra)
"""
