"""Curve audits: test a whole privacy curve (μ-GDP, ρ-zCDP, (ε, δ)-DP, RDP, a dp_accounting event), assumption-free.

:func:`audit_curve` has the calling convention of :func:`dpsco.verification.auditing.audit.audit` and reuses its
sampling, sample split and event selection: :func:`audit` runs unchanged for (ε, δ) claims (the threshold
route, so the event is the one behind today's ``epsilon_lower``); for every other notion it runs with the
curve's own selection criterion (:func:`selection_score`: μ for GDP, ρ for zCDP, the margin below the curve
otherwise) on a selection share of 0.2 (GDP) or 0.35.  Its test-half counts (k_p of n on the numerator side,
k_q of n on the other) of the chosen event give the Clopper–Pearson box

    α_hi = Q_hi(E)  (an upper bound on the false-positive rate of the test "reject Q on E"),
    β_hi = 1 − P_lo(E)  (an upper bound on its false-negative rate),

each one-sided bound at level (1 − confidence)/2 (Bonferroni), so both hold with probability >= confidence.
The claim's trade-off curve f (:mod:`dpsco.verification.auditing.curves`) is non-increasing, so the whole box
lies below f iff β_hi < f(α_hi).  The test on E^c in the other direction of the pair has the box (β_hi, α_hi);
a claim holds for both orders of a neighbouring pair, so the verdict is

    refuted  iff  β_hi < f(α_hi)  or  α_hi < f(β_hi).

**Guarantee.**  If the mechanism satisfies the claim on this pair, the true (α, β) of E (and of E^c reversed)
lie on or above f; a refutation needs the box's corner below f, i.e. one of the two Clopper–Pearson bounds
wrong: probability <= 1 − confidence.  The event is a function of the selection half only, independent of the
test half (docs/derivations.md#soundness-of-the-box-below-curve-test).  The computed curve is never above the
claim's (:mod:`dpsco.verification.auditing.curves`), so numerical approximations cost power only.

Strongest refuted claims of the same family (all from the same box, so each holds at ``confidence``):
``mu_lower`` = max(0, Φ⁻¹(P_lo) − Φ⁻¹(Q_hi)) (closed form: β_hi < G_μ(α_hi) iff μ < it); ``rho_lower`` by
bisection on ρ (zCDP claims); ``epsilon_lower`` at the claim's δ for (ε, δ) claims,
max(log((P_lo − δ)/Q_hi), log((1 − δ − Q_hi)/(1 − P_lo)), 0): the first term is exactly the threshold
route's ε_lb for the same counts, the second the complement event read in the other direction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
from scipy.special import ndtr

from dpsco.verification.executors import Executor
from dpsco.reference.privacy import PrivacyClaim, to_jsonable
from dpsco.verification.auditing.audit import audit
from dpsco.verification.auditing.clopper_pearson import (
    check_confidence,
    check_delta,
    clopper_pearson_lower,
    clopper_pearson_upper,
)
from dpsco.verification.auditing.curves import CurveClaim
from dpsco.verification.auditing.events import Event
from dpsco.verification.auditing.gdp import gdp_mu_lower_bound
from dpsco.verification.auditing.power import minimum_detectable_epsilon
from dpsco.verification.auditing.results import AuditResult, AuditResultBase, ESTIMATOR_ASSUMPTIONS
from dpsco.verification.auditing.samples import Mechanism

__all__ = [
    "CurveAuditResult", "as_curve_claim", "audit_curve", "curve_box", "curve_p_value", "curve_refutes",
    "epsilon_lower_from_box", "minimum_detectable_mu", "mu_lower_from_box", "p_value_of_refutation",
    "rho_lower_from_box", "selection_score",
]

RHO_MAX = 1e4
#: selection share for curve claims other than (ε, δ): 0.2 for GDP (as the Gaussian-DP route: for a Gaussian
#: trade-off every threshold has the same μ), 0.35 otherwise (zCDP's best event sits at one α; measured on the
#: Gaussian mechanism, claim ρ = 0.5, 1e5 runs per side, 10 seeds: median ρ_lb 0.315 at 0.2, 0.325 at 0.35,
#: 0.322 at 0.5)
SELECTION_FRACTION = {"GDP": 0.2}
SELECTION_FRACTION_DEFAULT = 0.35
BISECTION_STEPS = 60


def curve_box(k_p: int, n_p: int, k_q: int, n_q: int, confidence: float) -> tuple[float, float, float, float]:
    """(α_hi, β_hi, P_lo, Q_hi) of an event counted k_p of n_p times on the numerator side and k_q of n_q on
    the other: Q_hi, P_lo one-sided Clopper–Pearson bounds at level (1 − confidence)/2 each; α_hi = Q_hi,
    β_hi = 1 − P_lo."""
    half = (1.0 - check_confidence(confidence)) / 2.0
    p_lo = float(clopper_pearson_lower(k_p, n_p, half))
    q_hi = float(clopper_pearson_upper(k_q, n_q, half))
    return q_hi, 1.0 - p_lo, p_lo, q_hi


def curve_refutes(alpha_hi: float, beta_hi: float, tradeoff: Callable[[Any], Any]) -> bool:
    """True iff the box [0, α_hi] × [0, β_hi] lies below the non-increasing curve ``tradeoff`` in either
    direction of the pair: β_hi < f(α_hi) or α_hi < f(β_hi)."""
    f = np.asarray(tradeoff(np.array([alpha_hi, beta_hi])), dtype=np.float64)
    return bool(beta_hi < f[0] or alpha_hi < f[1])


def p_value_of_refutation(refutes: Callable[[float], bool]) -> float:
    """inf{a : refutes(1 − a)} by bisection on log a ∈ [log 1e-15, 0) for a test whose confidence bounds widen as
    a shrinks; the upper end is returned (conservative); 1.0 if even a → 1 does not refute, 1e-15 at the floor.
    Under a true claim P(p ≤ a) ≤ a when each refutation at confidence 1 − a has probability ≤ a
    (docs/derivations.md#soundness-of-the-box-below-curve-test)."""
    if not refutes(1e-12):
        return 1.0
    if refutes(1.0 - 1e-15):
        return 1e-15
    lo, hi = math.log(1e-15), math.log(1.0 - 1e-12)
    while hi - lo > 1e-6:
        mid = 0.5 * (lo + hi)
        if refutes(1.0 - math.exp(mid)):
            hi = mid
        else:
            lo = mid
    return math.exp(hi)


def curve_p_value(k_p: int, n_p: int, k_q: int, n_q: int, tradeoff: Callable[[Any], Any]) -> float:
    """The p-value of a curve audit's verdict from its test counts (k_p of n_p on the numerator side, k_q of n_q
    on the other): the smallest a at which the box of confidence 1 − a (:func:`curve_box`) lies below
    ``tradeoff`` (:func:`curve_refutes`)."""
    return p_value_of_refutation(
        lambda conf: curve_refutes(*curve_box(k_p, n_p, k_q, n_q, conf)[:2], tradeoff))


def mu_lower_from_box(p_lo: float, q_hi: float) -> float:
    """Largest μ refuted by the box: max(0, Φ⁻¹(P_lo) − Φ⁻¹(Q_hi)) (both directions give the same value,
    G_μ being symmetric); every μ-GDP claim with μ below it is refuted."""
    from scipy.special import ndtri

    with np.errstate(divide="ignore", invalid="ignore"):
        v = float(ndtri(p_lo) - ndtri(q_hi))
    return 0.0 if math.isnan(v) else max(0.0, v)


def epsilon_lower_from_box(p_lo: float, q_hi: float, delta: float) -> float:
    """Largest ε such that the box lies below f_{ε,δ}: max(0, log((P_lo − δ)/Q_hi), log((1 − δ − Q_hi)/(1 − P_lo))).

    The first term is computed exactly as the threshold route's ε_lb
    (:func:`dpsco.verification.auditing.clopper_pearson.epsilon_lower_bound`) for the same counts."""
    d = check_delta(delta)
    out = 0.0
    if p_lo - d > 0:
        out = max(out, float(np.log((p_lo - d) / q_hi)))
    if 1.0 - d - q_hi > 0:
        out = max(out, math.inf if p_lo >= 1.0 else float(np.log((1.0 - d - q_hi) / (1.0 - p_lo))))
    return out


def rho_lower_from_box(alpha_hi: float, beta_hi: float) -> float:
    """Largest ρ (to bisection accuracy, rounded down) whose zCDP curve the box lies below; 0 if none.

    The returned ρ is itself refuted by the box (checked), and so is every smaller ρ (the computed zCDP curves
    are nested: on a fixed order grid δ(ε) grows with ρ), so "ρ-zCDP" is refuted for all ρ <= rho_lower."""
    def refuted(rho: float) -> bool:
        return curve_refutes(alpha_hi, beta_hi, CurveClaim.zcdp(rho).tradeoff)

    if not refuted(0.0):
        return 0.0
    lo, hi = 0.0, 1.0
    while refuted(hi):
        lo, hi = hi, hi * 2.0
        if hi > RHO_MAX:
            return lo
    for _ in range(BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        if refuted(mid):
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-6 * max(hi, 1e-9):
            break
    return lo


def minimum_detectable_mu(curve: CurveClaim, n_test: int, confidence: float) -> float | None:
    """Power figure: the smallest μ of a Gaussian shift N(μ, 1) vs N(0, 1) (exactly μ-GDP) for which the
    expected test counts of the best threshold event (n_test runs per side, 200 thresholds) give a box below
    ``curve``.  A planning number under the Gaussian shape (expected counts, oracle event), not a guarantee;
    None if not reached for μ <= 40."""
    def detected(mu: float) -> bool:
        taus = np.linspace(-4.0, mu + 6.0, 200)
        kp = np.round(n_test * ndtr(mu - taus)).astype(np.int64)
        kq = np.round(n_test * ndtr(-taus)).astype(np.int64)
        half = (1.0 - confidence) / 2.0
        a = np.asarray(clopper_pearson_upper(kq, n_test, half))
        b = 1.0 - np.asarray(clopper_pearson_lower(kp, n_test, half))
        fa = np.asarray(curve.tradeoff(a))
        fb = np.asarray(curve.tradeoff(b))
        return bool(np.any((b < fa) | (a < fb)))

    lo, hi = 0.0, 1.0
    while not detected(hi):
        lo, hi = hi, 2.0 * hi
        if hi > 40.0:
            return None
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        if detected(mid):
            hi = mid
        else:
            lo = mid
    return hi


#: ρ grid and α grid of the zCDP selection score (a table of f_ρ(α), built once per process)
_RHO_GRID = np.geomspace(1e-3, 1e2, 300)
_ALPHA_GRID = np.concatenate([[0.0], np.geomspace(1e-12, 1.0, 1500)])
_TABLE: dict[str, np.ndarray] = {}


def _zcdp_table() -> np.ndarray:
    if "zcdp" not in _TABLE:
        _TABLE["zcdp"] = np.stack([np.asarray(CurveClaim.zcdp(float(r)).tradeoff(_ALPHA_GRID)) for r in _RHO_GRID])
    return _TABLE["zcdp"]


def selection_score(curve: CurveClaim) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The criterion (P_lo, Q_hi arrays -> scores, larger better) by which the selection half chooses the event
    of a curve audit: GDP, the μ bound Φ⁻¹(P_lo) − Φ⁻¹(Q_hi); zCDP, the largest ρ of a 300-point grid (ratio 1.04) whose
    curve (tabulated, read at the next α grid point above) the box lies below, ties broken by μ; other curves,
    the margin below the claimed curve, max(f(α_hi) − β_hi, f(β_hi) − α_hi).  Power only, never validity."""
    from scipy.special import ndtri

    def mu_score(p_lo: np.ndarray, q_hi: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return ndtri(p_lo) - ndtri(q_hi)

    if curve.notion == "GDP":
        return mu_score
    if curve.notion == "zCDP":
        def rho_score(p_lo: np.ndarray, q_hi: np.ndarray) -> np.ndarray:
            table = _zcdp_table()
            a, b = q_hi, 1.0 - p_lo
            ia = np.minimum(np.searchsorted(_ALPHA_GRID, a, side="left"), _ALPHA_GRID.size - 1)
            ib = np.minimum(np.searchsorted(_ALPHA_GRID, b, side="left"), _ALPHA_GRID.size - 1)
            below = (b[None, :] < table[:, ia]) | (a[None, :] < table[:, ib])  # (ρ grid, candidates)
            idx = np.where(below.any(axis=0), below.shape[0] - 1 - np.argmax(below[::-1], axis=0), -1)
            rho = np.where(idx >= 0, _RHO_GRID[np.maximum(idx, 0)], 0.0)
            mu = np.nan_to_num(mu_score(p_lo, q_hi), nan=-1e3, neginf=-1e3, posinf=1e3)
            return rho + 1e-9 * np.clip(mu, -1e3, 1e3)
        return rho_score

    def margin(p_lo: np.ndarray, q_hi: np.ndarray) -> np.ndarray:
        a, b = q_hi, 1.0 - p_lo
        return np.maximum(np.asarray(curve.tradeoff(a)) - b, np.asarray(curve.tradeoff(b)) - a)
    return margin


def as_curve_claim(claim: Any) -> CurveClaim:
    """A :class:`CurveClaim` from a CurveClaim, a PrivacyClaim (:meth:`CurveClaim.from_privacy_claim`) or an
    (ε, δ) tuple (replace-one approx-DP, "user-declared")."""
    if isinstance(claim, CurveClaim):
        return claim
    if isinstance(claim, PrivacyClaim):
        return CurveClaim.from_privacy_claim(claim)
    if isinstance(claim, tuple) and len(claim) == 2:
        return CurveClaim.approx(claim[0], claim[1])
    raise TypeError(f"claim must be a CurveClaim, a PrivacyClaim or an (epsilon, delta) tuple, got {type(claim).__name__}")


@dataclass
class CurveAuditResult(AuditResultBase):
    """Outcome of :func:`audit_curve`.

    Attributes
    ----------
    claim : CurveClaim — the audited curve (notion and parameters: ``claim.parameters()``).
    verdict : "refuted" | "not refuted" — "refuted" with probability <= 1 − confidence under a true claim.
    verdict_basis : str.
    confidence : float in (0, 1).  samples : runs per side.  n_test : test runs per side.
    alpha_upper, beta_upper : the Clopper–Pearson box corner (α_hi, β_hi) of the tested event.
    curve_at_alpha, curve_at_beta : f(α_hi), f(β_hi).
    epsilon_lower : float or None — (ε, δ) claims: the largest ε refuted at the claim's δ; None for μ-GDP,
        ρ-zCDP, RDP and event claims (a whole-curve audit gives no ε at one δ: ``mu_lower``/``rho_lower``).
    mu_lower : float — the largest μ-GDP claim refuted (every notion: the same box).
    rho_lower : float or None — zCDP claims: the largest ρ-zCDP claim refuted.
    minimum_detectable : dict or None — the power figure: parameter name, value, statement.
    base : AuditResult — the run of :func:`audit` that drew the samples and chose the event.
    assumptions : str.  seed_entropy : int or None (also ``seed``: :class:`~dpsco.verification.auditing.
    results.AuditResultBase`).  details : dict (counts, bounds, event).

    ``summary()`` and ``to_dict()`` as for every audit result (:class:`AuditResultBase`).
    """

    claim: CurveClaim
    verdict: str
    verdict_basis: str
    confidence: float
    samples: int
    n_test: int
    alpha_upper: float
    beta_upper: float
    curve_at_alpha: float
    curve_at_beta: float
    epsilon_lower: float | None
    mu_lower: float
    rho_lower: float | None
    minimum_detectable: dict[str, Any] | None
    base: AuditResult
    assumptions: str
    seed_entropy: int | None
    details: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> str:
        d = self.details
        lines = [
            f"curve audit: claim {self.claim.describe()} [{self.claim.neighbouring}] from {self.claim.source}",
            f"  verdict: {self.verdict.upper()} at confidence {self.confidence:g} ({self.verdict_basis})",
            f"  event: {d.get('event')}; test counts {d.get('numerator_count')}/{self.n_test} vs "
            f"{d.get('denominator_count')}/{self.n_test}",
            f"  box: alpha_hi = {self.alpha_upper:.4g}, beta_hi = {self.beta_upper:.4g}; "
            f"f(alpha_hi) = {self.curve_at_alpha:.4g}, f(beta_hi) = {self.curve_at_beta:.4g}",
            f"  refuted GDP claims: mu < mu_lower = {self.mu_lower:.4f}",
        ]
        if self.rho_lower is not None:
            lines.append(f"  refuted zCDP claims: rho < rho_lower = {self.rho_lower:.4f}")
        if self.epsilon_lower is not None:
            lines.append(f"  refuted (eps, {self.claim.delta:g})-DP claims: eps < epsilon_lower = {self.epsilon_lower:.4f}")
        if self.minimum_detectable is not None:
            lines.append(f"  power: {self.minimum_detectable.get('statement')}")
        lines += [f"  samples per side: {self.samples} (test {self.n_test}); statistic: {self.base.statistic}",
                  f"  assumes: {self.assumptions}", f"  seed entropy: {self.seed_entropy}"]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable record (non-finite floats become strings)."""
        return to_jsonable({
            "claim": self.claim.parameters(), "verdict": self.verdict, "verdict_basis": self.verdict_basis,
            "confidence": self.confidence, "samples": self.samples, "n_test": self.n_test,
            "alpha_upper": self.alpha_upper, "beta_upper": self.beta_upper,
            "curve_at_alpha": self.curve_at_alpha, "curve_at_beta": self.curve_at_beta,
            "epsilon_lower": self.epsilon_lower, "mu_lower": self.mu_lower, "rho_lower": self.rho_lower,
            "minimum_detectable": self.minimum_detectable, "assumptions": self.assumptions,
            "seed_entropy": self.seed_entropy, "seed": self.seed, "statistic": self.base.statistic,
            "neighbouring_audited": self.base.neighbouring_audited,
            "sample_consistency": self.base.sample_consistency, "details": self.details,
        })


def audit_curve(
    mechanism: Mechanism | Callable[..., Any],
    dataset: Mapping[str, Any],
    neighbour: Mapping[str, Any],
    claim: CurveClaim | PrivacyClaim | tuple[float, float],
    n_samples: int,
    rng: np.random.Generator,
    *,
    confidence: float = 0.95,
    statistic: Any = "auto",
    selection_fraction: float | None = None,
    n_thresholds: int = 600,
    event: Event | None = None,
    seed_entropy: int | None = None,
    check_neighbouring: bool = True,
    workers: int | Executor | None = None,
    sample_check_runs: int | None = None,
    power: bool = True,
    rho_bound: bool = True,
) -> CurveAuditResult:
    """Audit a whole privacy curve: refute iff the Clopper–Pearson (FPR, FNR) box lies below the claimed curve.

    Parameters are those of :func:`dpsco.verification.auditing.audit.audit` (same meaning, same errors),
    except ``claim``: a :class:`~dpsco.verification.auditing.curves.CurveClaim`, a ``PrivacyClaim`` (GDP → μ,
    zCDP → ρ, approx/pure → (ε, δ); its event when μ/ρ is missing) or an (ε, δ) tuple; ``power``: compute
    the power figure (``minimum_detectable``); ``rho_bound``: compute ``rho_lower`` for zCDP claims (a
    bisection, ~0.5 s; the verdict does not need it).  Reuse one CurveClaim across audits: it caches its curve.  The selection half chooses the event (threshold criterion for
    (ε, δ) claims, μ criterion otherwise), the test half gives the counts.

    Guarantee: if the mechanism satisfies the claim on this neighbouring pair, P(verdict "refuted") <=
    1 − confidence (module docstring; docs/derivations.md#soundness-of-the-box-below-curve-test).

    Raises
    ------
    TypeError, ValueError
        As :func:`audit`; TypeError for a claim of another type; ValueError for a claim without a curve.
    """
    curve = as_curve_claim(claim)
    conf = check_confidence(confidence)
    relation = curve.neighbouring
    if curve.notion == "approx-DP":
        base_claim = PrivacyClaim(notion="pure-DP" if curve.delta == 0.0 else "approx-DP",
                                  epsilon=max(float(curve.epsilon), 1e-12),  # type: ignore[arg-type]
                                  delta=float(curve.delta), neighbouring=relation, source=curve.source)  # type: ignore[arg-type]
        score = None
    else:
        # auxiliary (ε, δ): audit() needs one; the event is chosen by the curve's own criterion and the verdict
        # below ignores it
        base_claim = PrivacyClaim(notion="approx-DP", epsilon=1.0, delta=1e-5, neighbouring=relation,
                                  source=f"{curve.source} (auxiliary (1, 1e-5): audit() needs an (eps, delta))")
        score = None if event is not None else selection_score(curve)
        if selection_fraction is None and event is None:
            selection_fraction = SELECTION_FRACTION.get(curve.notion, SELECTION_FRACTION_DEFAULT)
    base = audit(mechanism, dataset, neighbour, base_claim, n_samples, rng, confidence=conf, statistic=statistic,
                 selection_fraction=selection_fraction, n_thresholds=n_thresholds, event=event,
                 seed_entropy=seed_entropy, check_neighbouring=check_neighbouring, power_family=None,
                 workers=workers, sample_check_runs=sample_check_runs, selection_score=score)
    bd = base.details
    k_p, k_q, n_test = int(bd["numerator_count"]), int(bd["denominator_count"]), int(bd["n_test"])
    alpha_hi, beta_hi, p_lo, q_hi = curve_box(k_p, n_test, k_q, n_test, conf)
    f_ab = np.asarray(curve.tradeoff(np.array([alpha_hi, beta_hi])), dtype=np.float64)
    refuted = bool(beta_hi < f_ab[0] or alpha_hi < f_ab[1])
    mu_lb = float(gdp_mu_lower_bound(k_p, n_test, k_q, n_test, conf))
    rho_lb = rho_lower_from_box(alpha_hi, beta_hi) if (curve.notion == "zCDP" and rho_bound) else None
    eps_lb = epsilon_lower_from_box(p_lo, q_hi, float(curve.delta)) if curve.notion == "approx-DP" else None  # type: ignore[arg-type]
    mde: dict[str, Any] | None = None
    if power:
        if curve.notion == "approx-DP":
            fam = "laplace" if curve.delta == 0.0 else "gaussian"
            try:
                v = minimum_detectable_epsilon(fam, n_test, max(float(curve.epsilon), 1e-12), float(curve.delta),  # type: ignore[arg-type]
                                               route="threshold", confidence=conf)
            except ValueError:
                v = None
            if v is not None:
                mde = {"parameter": "epsilon", "family": fam, "value": v, "statement": (
                    f"with {n_test} test runs per side, a {fam} mechanism whose exact ε at δ = {curve.delta:g} is >= "
                    f"{v:.4g} gives an expected ε_lb above the claim (expected counts, oracle event)")}
        else:
            m = minimum_detectable_mu(curve, n_test, conf)
            if m is not None:
                mde = {"parameter": "mu", "family": "gaussian", "value": m, "statement": (
                    f"with {n_test} test runs per side, a Gaussian mechanism whose exact GDP mu is >= {m:.4g}"
                    + (f" (rho = mu^2/2 = {m * m / 2:.4g})" if curve.notion == "zCDP" else "")
                    + " gives an expected box below the claimed curve (expected counts, oracle event)")}
                if curve.notion == "zCDP":
                    mde["rho"] = m * m / 2.0
    basis = ("refuted iff the Clopper-Pearson box (alpha_hi, beta_hi) lies below the claimed trade-off curve: "
             "beta_hi < f(alpha_hi) or alpha_hi < f(beta_hi)")
    details = {"event": bd["event"], "numerator_count": k_p, "denominator_count": k_q, "n_test": n_test,
               "n_selection": bd["n_selection"], "p_lower": p_lo, "q_upper": q_hi,
               "per_bound_alpha": (1.0 - conf) / 2.0,
               "selection_criterion": ("threshold (epsilon at the claim's delta)" if curve.notion == "approx-DP"
                                       else {"GDP": "mu", "zCDP": "rho (tabulated)"}.get(curve.notion, "margin")),
               "base_epsilon_lower": base.epsilon_lower}
    return CurveAuditResult(
        claim=curve, verdict="refuted" if refuted else "not refuted", verdict_basis=basis, confidence=conf,
        samples=base.samples, n_test=n_test, alpha_upper=alpha_hi, beta_upper=beta_hi,
        curve_at_alpha=float(f_ab[0]), curve_at_beta=float(f_ab[1]), epsilon_lower=eps_lb, mu_lower=mu_lb,
        rho_lower=rho_lb, minimum_detectable=mde, base=base,
        assumptions=ESTIMATOR_ASSUMPTIONS["threshold"] + "; the claim holds for both orders of the pair",
        seed_entropy=base.seed_entropy, details=details)
