"""Former home of the certified minimisers; kept only so that older imports keep working.

The module was split by role: :mod:`dpsco.reference.certificates` (the certificate, the refusal, the
floating-point model), :mod:`dpsco.reference.glm_objective` (the GLM objective, its conjugates and Fenchel dual),
:mod:`dpsco.reference.glm_certificate` (``certify``) and :mod:`dpsco.reference.solvers` (``certified_minimize``).
This module re-exports their public names under the old path; new code imports from those modules.
"""

from __future__ import annotations

from dpsco.reference.certificates import Certificate, UncertifiedError
from dpsco.reference.glm_certificate import certify
from dpsco.reference.glm_objective import (dual_objective, loss_conjugate, objective_gradient, objective_value,
                                           objective_value_with_error)
from dpsco.reference.solvers import CertifiedSolution, certified_minimize

__all__ = [
    "Certificate",
    "CertifiedSolution",
    "UncertifiedError",
    "certified_minimize",
    "certify",
    "dual_objective",
    "loss_conjugate",
    "objective_gradient",
    "objective_value",
    "objective_value_with_error",
]
