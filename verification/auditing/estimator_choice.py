"""Choosing the strongest sound estimator for a declared mechanism (``audit(**audit_kwargs(...)[0])``).

The Gaussian-DP route is chosen only when the declared facts *imply* its assumption (a Gaussian trade-off
curve): δ > 0, Gaussian noise added to a deterministic computation, no post-processing.  Anything not
declared is assumed to break the stronger route, so the default is the assumption-free threshold route.
Used by ``dpsco audit --estimator auto`` and by ``dpsco verify``.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any, Mapping

from dpsco.verification.auditing.claim_events import CLAIM_EVENT_FAMILIES
from dpsco.verification.auditing.gdp import GAUSSIAN_TRADEOFF
from dpsco.verification.auditing.inputs import as_claim

__all__ = ["audit_kwargs", "choose_estimator"]


def _info_from_claim(claim: Any) -> dict[str, Any]:
    """Mechanism facts readable from a claim's ``assumptions`` (reference implementations record them)."""
    a = dict(getattr(claim, "assumptions", {}) or {})
    info: dict[str, Any] = {}
    noise = a.get("noise")
    if isinstance(noise, Mapping):
        mech = str(noise.get("mechanism", "")).lower()
        if "gauss" in mech:
            info["noise"] = "gaussian"
        elif "laplace" in mech:
            info["noise"] = "laplace"
        elif mech:
            info["noise"] = mech
    radius = a.get("R")
    if isinstance(radius, Real) and not isinstance(radius, bool):
        info["post_processing"] = "none" if math.isinf(float(radius)) else f"projection onto B(0, {float(radius):g})"
    return info


def choose_estimator(claim: Any, mechanism_info: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The strongest estimator whose assumptions are *known* to hold, for ``audit(**choose_estimator(...))``.

    Decision rule (conservative: anything not declared is assumed to break the stronger route):

    * ``estimator="gdp"`` iff all of
        1. the claim has δ > 0 (a μ-GDP mechanism is never (ε, 0)-DP);
        2. the noise is declared Gaussian (``mechanism_info["noise"] == "gaussian"``, or the claim's
           ``assumptions["noise"]["mechanism"]`` names a Gaussian) and isotropic with a data-independent scale;
        3. the pre-noise computation is declared deterministic (``mechanism_info["deterministic"] is True``,
           e.g. a certified deterministic minimiser — not SGD, not subsampling);
        4. there is no post-processing: ``mechanism_info["post_processing"] == "none"`` (an infinite radius
           in the claim's ``assumptions["R"]`` counts as none).
      Then the release is N(f(S), σ²I) with f deterministic, whose trade-off curve for the pair (S, S') is
      exactly G_μ with μ = ‖f(S) − f(S')‖/σ (Dong, Roth & Su 2022, Thm. 2.7: the Gaussian mechanism's
      trade-off function is G_μ), so the GDP route's ε = ε_μ(μ_lb, δ) <= ε_μ(μ, δ) = the exact ε at δ (with
      the confidence of μ_lb).  The Gaussian trade-off is then a consequence of the declared facts, so the
      choice also states it: ``assume="gaussian-tradeoff"`` with ``assume_reason`` naming the declarations,
      which :func:`dpsco.verification.auditing.audit.audit` records in the result (and checks for
      plausibility, warning if the runs contradict it).  Without these declarations the verdict never rests
      on the Gaussian figure.  Condition 4 is necessary: post-processing (e.g. the projection Π_{B(0,R)} of
      output perturbation, or any thresholding) keeps μ* of the best bulk test but can lower the exact ε at
      small δ — a binary post-processing g(x) = 1{x ≥ t} has μ* = μ and ε(δ) =
      log((P(x ≥ t) − δ)/Q(x ≥ t)) < ε_μ(δ) — so converting μ_lb to ε would *overstate* the lower bound.
    * ``estimator="threshold"`` otherwise (assumption-free).

    The statistic is ``"projection"`` (mean-difference direction from the selection half; the output itself
    in 1-D) unless ``mechanism_info["statistic"]`` names another.  When ``mechanism_info["output_dimension"]
    == 1`` and the noise is declared Gaussian or Laplace, the result also sets ``event_from_claim`` to that
    family (the event is placed from the claim with a 1 % pilot, so nearly every run is tested; sound for
    any mechanism, only the power relies on the family).

    Parameters
    ----------
    claim : PrivacyClaim or (epsilon, delta)
    mechanism_info : mapping, optional
        Declared facts: ``noise`` ("gaussian" | "laplace" | other), ``deterministic`` (bool),
        ``post_processing`` ("none" or a description), ``output_dimension`` (int), ``statistic``.  Missing
        keys are filled from the claim's assumptions where possible, otherwise treated as unknown.

    Returns
    -------
    dict with keys ``estimator``, ``statistic`` (and ``event_from_claim``; for the GDP route ``assume`` and
    ``assume_reason``, when applicable) — keyword arguments of :func:`dpsco.verification.auditing.audit.audit`
    — plus ``reason`` (a sentence for the record).  Pop ``reason`` before passing the dict on, or use
    :func:`audit_kwargs`.
    """
    c = as_claim(claim)
    if mechanism_info is not None and not isinstance(mechanism_info, Mapping):
        raise TypeError(f"mechanism_info must be a mapping or None, got {type(mechanism_info).__name__}")
    info = _info_from_claim(c)
    info.update(dict(mechanism_info or {}))
    statistic = info.get("statistic", "projection")
    noise = info.get("noise")
    deterministic = info.get("deterministic") is True
    post = info.get("post_processing")
    missing = []
    if c.delta <= 0.0:
        missing.append("delta = 0 (a Gaussian mechanism is never (eps, 0)-DP)")
    if noise != "gaussian":
        missing.append(f"noise not declared Gaussian (noise = {noise!r})")
    if not deterministic:
        missing.append("pre-noise computation not declared deterministic")
    if post != "none":
        missing.append(f"post-processing not declared absent (post_processing = {post!r}); post-processing can "
                       "lower the exact epsilon below eps(mu, delta)")
    out: dict[str, Any] = {"statistic": statistic}
    if not missing:
        out["estimator"] = "gdp"
        out["assume"] = GAUSSIAN_TRADEOFF
        out["assume_reason"] = (
            "declared facts (mechanism audit_info / claim assumptions): Gaussian noise added to a deterministic "
            "computation with no post-processing, so the release N(f(S), sigma^2 I) has the trade-off curve G_mu "
            "exactly (Dong, Roth & Su 2022, Thm. 2.7)")
        out["reason"] = ("Gaussian-DP route: delta > 0, Gaussian noise added to a deterministic computation, no "
                         "post-processing, so the release has an exactly Gaussian trade-off curve and "
                         "eps(mu_lower, delta) is a lower bound on its epsilon; the verdict rests on that "
                         "declared assumption, which the result records")
    else:
        out["estimator"] = "threshold"
        out["reason"] = "assumption-free threshold route; Gaussian-DP route not applicable: " + "; ".join(missing)
    if info.get("output_dimension") == 1 and noise in CLAIM_EVENT_FAMILIES and not (noise == "gaussian" and c.delta == 0):
        out["event_from_claim"] = noise
        out["reason"] += (f"; event placed from the claim for the declared {noise} family on a 1 % pilot "
                          "(sound for any mechanism, power assumes the family)")
    return out


def audit_kwargs(claim: Any, mechanism_info: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], str]:
    """``(kwargs, reason)`` from :func:`choose_estimator`: ``audit(..., **kwargs)`` and record ``reason``."""
    choice = choose_estimator(claim, mechanism_info)
    reason = choice.pop("reason")
    return choice, reason
