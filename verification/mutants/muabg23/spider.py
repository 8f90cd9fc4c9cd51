"""Planted bugs in Algorithm 1 (KL Spider) of Menart et al. (2023), arXiv:2311.13447 v2, and the worst-case loss
its privacy checks use.

Each mutant is the correct algorithm (``dpsco.reference.muabg23.algorithms_spider.kl_spider``, exact calibration) with ONE
deliberate privacy bug and the correct algorithm's claim (ρ-zCDP, replace-one): the claim is now false.  Each
docstring names the check that refutes it (``tests/muabg23/test_muabg23_spider.py``; the suite in
``dpsco.verification.papers.muabg23.spider``).

**Never use these for anything but testing auditors.**
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from dpsco.reference.muabg23.ledger import zcdp_epsilon
from dpsco.reference.muabg23.algorithms_spider import kl_spider, kl_spider_schedule
from dpsco.reference.privacy import PrivacyClaim, Release
from dpsco.reference.validation import check_positive
from dpsco.verification.mutants.noise_scale import under_noised

__all__ = ["SignedCurvatureLoss", "theorem_1_claim", "kl_spider_printed_noise_claiming_rho",
           "kl_spider_data_dependent_f0", "kl_spider_extra_difference_step", "kl_spider_draws_sigma_over_sqrt2",
           "kl_spider_returns_start"]


class SignedCurvatureLoss:
    """f(w; (x, s)) = s·(L_1/2)‖w‖² + ⟨x, w⟩ on records r = (x, s) ∈ R^{d+1} (rows of X, last column s ∈ [−1, 1],
    ‖x‖ ≤ L_0): ∇f = s L_1 w + x, and per-sample gradient differences s L_1 (w' − w) — opposite for s = ±1, so
    a pair (L_0 e, +1) vs (−L_0 e, −1) attains both replace-one sensitivities of Algorithm 1 (2L_0/n for a
    clipped anchor whenever ‖L_1 w + L_0 e‖ ≥ L_0, 2L_1 s_k/n for every clipped difference).  L_1-smooth, not
    convex; L_0-Lipschitz only near 0 (the algorithm's clipping enforces the sensitivities)."""

    def __init__(self, L0: float = 1.0, L1: float = 1.0) -> None:
        self.L0, self.L1 = check_positive(L0, "L0"), check_positive(L1, "L1")

    def dimension(self, p: int) -> int:
        return p - 1

    def grads(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        return X[:, -1:] * self.L1 * np.asarray(w)[None, :] + X[:, :-1]

    def record_grads(self, W: np.ndarray, x: np.ndarray) -> np.ndarray:
        """∇f(w_r; x) for each row w_r of W (R, d): (R, d)."""
        x = np.asarray(x, dtype=np.float64)
        return x[-1] * self.L1 * np.asarray(W) + x[None, :-1]

    def values(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        w = np.asarray(w)
        return X[:, -1] * self.L1 * 0.5 * float(w @ w) + X[:, :-1] @ w


def theorem_1_claim(release: Release, rho: float) -> PrivacyClaim:
    """The claim the correct (exact-calibration, strict-guard) algorithm makes at ρ, on ``release``'s
    accounting of releases: ρ-zCDP, event of composed GDP μ = √(2ρ) over the release's accounted steps."""
    from dp_accounting import dp_event

    N = int(release.claim.assumptions["releases_accounted"])
    c = math.sqrt(2.0 * rho / N)
    return dataclasses.replace(
        release.claim, rho=rho, mu=math.sqrt(2.0 * rho), epsilon=zcdp_epsilon(rho, release.claim.delta),
        conditions=(), event=dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(2.0 / c), N),
        assumptions=dict(release.claim.assumptions) | {"calibration": "exact"})


def kl_spider_printed_noise_claiming_rho(X: Any, loss: Any, rho: float, beta: float, F0: float, gamma: float,
                                         kappa: float, L0: float, L1: float, rng: np.random.Generator,
                                         **kwargs: Any) -> Release:
    """Mutant: the printed noise (σ̂ = L_0√K/(n√ρ), σ_k = Φ̂_k^{1/κ}√(KT_k)/(γn√ρ)) with Theorem 1's claim ρ —
    the paper's accounting (b/(nσ))², half the exact replace-one cost.  True: 2.125ρ.  Refuted by the measured
    noise of its anchors against the exact σ̂ recomputed from public inputs
    (``test_printed_noise_mutant_refuted_by_measured_noise``) and by the white-box audit at 20,000 runs per side
    (``test_white_box_audit_refutes_printed_noise``, campaign-marked)."""
    r = kl_spider(X, loss, rho, beta, F0, gamma, kappa, L0, L1, rng, calibration="printed", **kwargs)
    return dataclasses.replace(r, claim=theorem_1_claim(r, rho))


def kl_spider_data_dependent_f0(X: Any, loss: Any, rho: float, beta: float, F0: float, gamma: float,
                                kappa: float, L0: float, L1: float, rng: np.random.Generator,
                                **kwargs: Any) -> Release:
    """Mutant: F_0 "tightened" from the data, F_0 = min{F0, (γ‖∇F(w_0; S)‖)^κ} (valid by the KL condition at w_0,
    but computed from S), so the whole schedule (K, Φ̂_k, T_k, σ_k) depends on S; the claim of the correct
    algorithm.  Refuted exactly: the schedules on a neighbouring pair differ, so the released noise scales (or
    the number of releases) differ and the Rényi divergence is infinite at large orders
    (``test_data_dependent_f0_mutant_refuted_exactly``)."""
    Xa = np.asarray(X, dtype=np.float64)
    w0 = kwargs.get("w0")
    d = loss.dimension(Xa.shape[1]) if callable(getattr(loss, "dimension", None)) else Xa.shape[1]
    w = np.zeros(d) if w0 is None else np.asarray(w0, dtype=np.float64)
    g = float(np.linalg.norm(np.asarray(loss.grads(w, Xa)).mean(axis=0)))
    F0_data = min(F0, max((gamma * g) ** kappa, 1e-12 * F0))
    r = kl_spider(Xa, loss, rho, beta, F0_data, gamma, kappa, L0, L1, rng, **kwargs)
    return dataclasses.replace(r, claim=theorem_1_claim(r, rho))


def kl_spider_extra_difference_step(X: Any, loss: Any, rho: float, beta: float, F0: float, gamma: float,
                                    kappa: float, L0: float, L1: float, rng: np.random.Generator,
                                    **kwargs: Any) -> Release:
    """Mutant (off-by-one): the loop runs while t ≤ T_k (one more difference release per round than σ_k is
    calibrated for) and claims the strict-guard ρ for its transcript.  True, for the transcript of releases it
    makes (the white-box view the claim covers): ρ/2 + Σ_k (T_k + 1)ρ/(2KT_k); its output and iterates depend on
    T_k differences per round (the last release of a round is never read, ERRATA.md MUABG23-E3), so the published
    output alone is ρ-zCDP.  Refuted by the exact ρ of the transcript (``test_extra_step_mutant_refuted_exactly``)."""
    r = kl_spider(X, loss, rho, beta, F0, gamma, kappa, L0, L1, rng, loop_guard="printed", **kwargs)
    strict = kl_spider_schedule(r.parameters["n"], r.parameters["d"], rho, beta, F0, gamma, kappa, L0, L1)
    claim = theorem_1_claim(r, rho)
    from dp_accounting import dp_event

    N = strict.K + sum(strict.T)
    c = math.sqrt(2.0 * rho / N)
    claim = dataclasses.replace(claim, event=dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(2.0 / c), N),
                                assumptions=dict(claim.assumptions) | {"releases_accounted": N})
    return dataclasses.replace(r, claim=claim)


def kl_spider_returns_start(X: Any, loss: Any, rho: float, beta: float, F0: float, gamma: float, kappa: float,
                            L0: float, L1: float, rng: np.random.Generator, **kwargs: Any) -> Release:
    """Mutant (a utility bug, the wrong variable returned): Algorithm 1 runs as the reference does, but its release
    publishes the public start w_0 instead of the last iterate w̄ (the loop's work never reaches the output, as if
    the loop never ran).  Private (the output is public), useless: on the PL quadratic of the suite
    (``muabg23_spider.quadratic_instance``: w_0 = (0.5, 0), records in the ball of radius 0.1) its excess is
    (L_1/2)‖w_0 − x̄‖² ≥ (0.5 − 0.1)²/2 = 0.08 on every run, above Theorem 1's Φ̂_K = 0.0618 at n = 1000, so
    every run violates the bound.  Refuted by the suite's Theorem 1 w.h.p. check
    (``tests/muabg23/test_muabg23_catches.py::test_theorem_1_whp_refutes_returning_the_start``)."""
    r = kl_spider(X, loss, rho, beta, F0, gamma, kappa, L0, L1, rng, **kwargs)
    start = np.asarray(r.parameters["w0"], dtype=np.float64)
    out = np.tile(start, (np.shape(r.output)[0], 1)) if np.ndim(r.output) == 2 else start.copy()   # BUG: w_0
    return dataclasses.replace(r, output=out, algorithm=r.algorithm + " [mutant: returns w_0]")


#: Planted bug (the generic σ/√2 bug, ``dpsco.verification.mutants.noise_scale.under_noised``): Algorithm 1
#: reporting σ̂ and σ_k and drawing every anchor's and difference's noise at 1/√2 of them.  Caught by the
#: measured-noise check of the replayed releases (``test_spider_measured_noise_refutes_sigma_over_sqrt2``).
kl_spider_draws_sigma_over_sqrt2 = under_noised(kl_spider)
