"""The records of audits: :class:`AuditResultBase`, shared by every audit route, :class:`AuditResult` (the
threshold auditor's), and what each estimator's number assumes.

:data:`ESTIMATOR_ASSUMPTIONS` is copied into every result, so that a number is never separated from the
assumptions under which it is a bound; the estimators themselves are described in
:mod:`dpsco.verification.auditing.estimators`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dpsco.reference.privacy import PrivacyClaim, to_jsonable

__all__ = ["AuditResult", "AuditResultBase", "ESTIMATORS", "ESTIMATOR_ASSUMPTIONS"]

ESTIMATORS: tuple[str, ...] = ("threshold", "gdp", "hockey-stick", "one-run")

#: What each estimator's number assumes (copied into every result).
ESTIMATOR_ASSUMPTIONS: dict[str, str] = {
    "threshold": (
        "none on the mechanism's output distribution; requires independent runs (i.i.d. draws from sample()), "
        "randomness only through rng, and dataset/neighbour neighbouring under the claim's relation"
    ),
    "gdp": (
        "epsilon_lower is the assumption-free Clopper-Pearson threshold bound and mu_lower is assumption-free (a "
        "lower bound on the mu of any mu-GDP guarantee of this pair); epsilon_lower_assuming_gaussian_tradeoff = "
        "eps(mu_lower, delta) is a lower bound on the mechanism's epsilon at delta ONLY IF its trade-off curve is "
        "Gaussian (Gaussian noise added to a deterministic computation, no post-processing) and decides the "
        "verdict only when that assumption is stated (assume='gaussian-tradeoff'); plus independent runs and "
        "neighbouring datasets"
    ),
    "hockey-stick": (
        "none on the mechanism's output distribution (lower bound on the hockey-stick divergence "
        "H_{e^eps}(P||Q) at the claimed eps); requires independent runs and neighbouring datasets"
    ),
    "one-run": (
        "the Steinke-Nasr-Jagielski 2023 protocol: each of the m canaries included independently with "
        "probability 1/2 in the single run, guesses a function of that run's output only; no assumption on "
        "the mechanism's output distribution.  Saturates below the true epsilon (see one_run_saturation)"
    ),
}


class AuditResultBase:
    """What the result of every audit route has, in the style of ``scipy.optimize.OptimizeResult`` and the
    statsmodels results: four common fields, ``summary()`` and ``to_dict()``.

    The subclasses are the results of :func:`~dpsco.verification.auditing.audit.audit` (:class:`AuditResult`),
    ``audit_curve`` (``CurveAuditResult``), ``audit_family`` (``FamilyAuditResult``), ``one_run_audit``
    (``OneRunResult``), ``pair_search_audit`` (``PairSearchResult``), ``sequential_audit``
    (``SequentialAuditResult``) and ``white_box_audit`` (``WhiteBoxAuditResult``); each keeps its own fields
    and ``to_dict()`` keys, and its ``to_dict()`` also carries the four common keys.

    Common fields
    -------------
    verdict : str
        "refuted" or "not refuted".  Under a true claim "refuted" happens with probability at most
        1 − ``confidence`` (under the assumption the result states, if any); "not refuted" is not evidence of
        privacy.  Only the one-run audit has two more values: "inconclusive" (a claim for a neighbouring
        relation its canaries cannot refute) and "no claim" (nothing to compare with).
    epsilon_lower : float >= 0 or None
        The ε lower bound at the claim's δ, holding with probability >= ``confidence``.  None where the route
        gives none: a curve audit of a μ-GDP, ρ-zCDP, RDP or dp_accounting-event claim refutes the whole curve
        and reports ``mu_lower`` (and ``rho_lower`` for zCDP) instead; only its (ε, δ) claims give one.
    confidence : float in (0, 1)
        The overall confidence of the verdict and of ``epsilon_lower``.
    seed : int or None
        What regenerates the audit: the seed the caller passed (``seed_entropy=``), else the entropy of the
        ``numpy.random.SeedSequence`` behind the caller's Generator (``np.random.default_rng(1234)`` records
        1234); None when the caller passed a Generator whose bit generator has no SeedSequence with an integer
        entropy.  The white-box audit records the entropy of the SeedSequence it draws from the caller's
        Generator and spawns all its streams from, which regenerates its runs.  The same value as the
        ``seed_entropy`` field of every result.

    Methods
    -------
    summary() -> str
        A few readable lines naming the verdict.
    to_dict() -> dict
        A JSON-ready record (non-finite floats as strings, ``dpsco.reference.privacy.to_jsonable``):
        ``json.dumps(result.to_dict(), allow_nan=False)`` works.
    """

    #: the fields every audit result has (``common()`` returns them)
    COMMON_FIELDS: tuple[str, ...] = ("verdict", "epsilon_lower", "confidence", "seed")

    verdict: str
    epsilon_lower: float | None
    confidence: float
    seed_entropy: int | None

    @property
    def seed(self) -> int | None:
        """The seed that regenerates the audit (see the class docstring); ``seed_entropy`` under its common name."""
        return self.seed_entropy

    @property
    def refuted(self) -> bool:
        """True iff the verdict is "refuted" (``dpsco audit`` exit status 1)."""
        return self.verdict == "refuted"

    def common(self) -> dict[str, Any]:
        """The four common fields as a dict (``COMMON_FIELDS``)."""
        return {k: getattr(self, k) for k in self.COMMON_FIELDS}

    def summary(self) -> str:  # pragma: no cover - every subclass defines its own
        """A few readable lines naming the verdict."""
        e = self.epsilon_lower
        return (f"audit: verdict {self.verdict.upper()}; epsilon lower bound = "
                f"{'none' if e is None else format(e, '.4f')} at confidence {self.confidence:g}; seed {self.seed}")

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - every subclass defines its own
        """A JSON-ready record of the common fields."""
        return to_jsonable(self.common())


@dataclass
class AuditResult(AuditResultBase):
    """Outcome of :func:`dpsco.verification.auditing.audit.audit` (and of its routes ``threshold_audit``,
    ``gdp_audit``, ``hockey_stick_audit``).

    Attributes
    ----------
    epsilon_lower : float >= 0
        ε_lb: with probability >= ``confidence``, the mechanism's ε at the claim's δ on this pair is >= it.
        Always assumption-free (a Clopper–Pearson bound on one fixed or split-selected event).
    confidence : float in (0, 1)
    samples : int
        Runs per side (per dataset), selection and test halves together.
    claim : PrivacyClaim
        The audited claim.
    verdict : "refuted" | "not refuted"
        Under a true claim "refuted" happens with probability <= 1 − confidence (under the stated
        ``assumption``, if any).  "not refuted" is not evidence of privacy.  ``verdict_basis`` says which
        bound decided it.
    estimator, statistic, direction, assumptions : str
        How the number was produced; ``direction`` is "dataset vs neighbour" (numerator first).
    threshold : float
        τ of the tested event behind ``epsilon_lower``.
    seed_entropy : int or None
        Entropy of the SeedSequence behind ``rng`` (enough to regenerate the audit bit for bit), or the
        ``seed_entropy`` the caller passed; also ``seed`` (:class:`AuditResultBase`).
    details : dict
        Counts, Clopper–Pearson bounds, plug-in estimates, split sizes, timing.
    mu_lower : float or None
        Gaussian-DP route: μ_lb, assumption-free as a bound on the μ of any μ-GDP guarantee of the pair.
    epsilon_lower_assuming_gaussian_tradeoff : float or None
        Gaussian-DP route: ε_μ(μ_lb, δ), a lower bound on ε at δ **only if** the mechanism's trade-off curve is
        Gaussian.  Never copied into ``epsilon_lower``.
    gaussian_shape_plausible : bool or None
        Gaussian-DP route: the flag of :func:`dpsco.verification.auditing.gdp.gaussian_shape_check` on the
        selection runs (details in ``details["gaussian_shape"]``); None when not checked or undecided.
    assumption : dict or None
        The assumption under which the verdict was reached (name, who stated it, why it is believed to hold,
        the shape check), or None for an assumption-free verdict.
    verdict_basis : str
        The bound that decided the verdict.
    neighbouring_audited : str or None
        The neighbouring relation of the audited pair ("replace-one" or "add/remove", as checked), or None if
        the pair was not checked.
    sample_consistency : dict or None
        The check of a batched ``sample`` against single runs, per side
        (:func:`dpsco.verification.auditing.samples.sampler_consistency`).
    warnings : list of str
        Loud notes (e.g. a stated Gaussian assumption that the shape check finds implausible, or a mechanism
        that does not draw its randomness from the rng it is given).
    reproducible : bool or None
        Whether two runs from identical generators agreed (:func:`dpsco.verification.auditing.samples.
        reproducibility_check`); False means the same seed does not reproduce the audit.  None: not probed.
    """

    epsilon_lower: float
    confidence: float
    samples: int
    claim: PrivacyClaim
    verdict: str
    estimator: str
    statistic: str
    threshold: float
    direction: str
    assumptions: str
    seed_entropy: int | None
    details: dict[str, Any] = field(default_factory=dict)
    estimator_kind: str = "threshold"
    mu_lower: float | None = None
    delta_lower: float | None = None
    epsilon_true: float | None = None
    minimum_detectable_epsilon: float | None = None
    epsilon_lower_assuming_gaussian_tradeoff: float | None = None
    gaussian_shape_plausible: bool | None = None
    assumption: dict[str, Any] | None = None
    verdict_basis: str = "refuted iff epsilon_lower (assumption-free) > claim epsilon"
    neighbouring_audited: str | None = None
    sample_consistency: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    reproducible: bool | None = None

    @property
    def tightness_ratio(self) -> float | None:
        """ε_lb/ε_true when the exact ε of the audited mechanism was supplied (else None)."""
        if self.epsilon_true is None or not (self.epsilon_true > 0):
            return None
        return self.epsilon_lower / self.epsilon_true

    def summary(self) -> str:
        """A short human-readable report."""
        d = self.details
        c = self.claim
        lines = [
            f"privacy audit: claim ({c.epsilon:g}, {c.delta:g})-DP [{c.notion}, {c.neighbouring}] from {c.source or '?'}",
            f"  verdict: {self.verdict.upper()}   ε lower bound = {self.epsilon_lower:.4f} "
            f"at confidence {self.confidence:g} (claim ε = {c.epsilon:g})",
            f"  verdict basis: {self.verdict_basis}",
            f"  event: {d.get('event', '?')}",
            f"  test counts: {d.get('numerator_count')}/{d.get('n_test')} vs {d.get('denominator_count')}/{d.get('n_test')}"
            f"  (P_lo = {d.get('p_lower', float('nan')):.4g}, Q_hi = {d.get('q_upper', float('nan')):.4g})",
            f"  samples per side: {self.samples} (selection {d.get('n_selection')}, test {d.get('n_test')});"
            f" statistic: {self.statistic}",
            f"  neighbouring relation audited: {self.neighbouring_audited or 'not checked'}",
            f"  estimator: {self.estimator}",
            f"  assumes: {self.assumptions}",
            f"  seed entropy: {self.seed_entropy}",
        ]
        sc = self.sample_consistency
        if sc is not None:
            lines.append(f"  sampler: {d.get('sampler', '?')}; " + (
                f"checked against single runs: consistent (false-alarm probability <= {sc.get('false_alarm_probability'):g})"
                if sc.get("checked") else f"not checked ({sc.get('reason', '')})"))
        extra = []
        if self.mu_lower is not None:
            extra.append(f"  Gaussian-DP μ lower bound = {self.mu_lower:.4f} (assumption-free as a bound on μ)")
        if self.epsilon_lower_assuming_gaussian_tradeoff is not None:
            shape = d.get("gaussian_shape") or {}
            extra.append(
                f"  ε lower bound ASSUMING a Gaussian trade-off curve = {self.epsilon_lower_assuming_gaussian_tradeoff:.4f}"
                + (" (the verdict rests on this assumption)" if self.assumption is not None else
                   " (not used for the verdict: the assumption was not stated)")
                + f"; Gaussian shape plausible: {self.gaussian_shape_plausible} ({shape.get('reason', 'not checked')})")
        if self.delta_lower is not None:
            extra.append(f"  δ lower bound at ε = {c.epsilon:g}: {self.delta_lower:.4g} (claim δ = {c.delta:g})")
        if self.epsilon_true is not None:
            r = self.tightness_ratio
            extra.append(f"  exact ε of the mechanism = {self.epsilon_true:.4f}; ε_lb/ε_true = "
                         f"{'n/a' if r is None else format(r, '.4f')}")
        if self.minimum_detectable_epsilon is not None:
            extra.append(f"  power: {d.get('power', {}).get('statement', '')}")
        lines[3:3] = extra
        lines[1:1] = [f"  WARNING: {w}" for w in self.warnings]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable record (non-finite floats become strings)."""
        return to_jsonable(
            {
                "epsilon_lower": self.epsilon_lower,
                "confidence": self.confidence,
                "samples": self.samples,
                "claim": self.claim.to_dict(),
                "verdict": self.verdict,
                "verdict_basis": self.verdict_basis,
                "assumption": self.assumption,
                "warnings": list(self.warnings),
                "reproducible": self.reproducible,
                "estimator": self.estimator,
                "statistic": self.statistic,
                "threshold": self.threshold,
                "direction": self.direction,
                "assumptions": self.assumptions,
                "seed_entropy": self.seed_entropy,
                "seed": self.seed,
                "estimator_kind": self.estimator_kind,
                "mu_lower": self.mu_lower,
                "epsilon_lower_assuming_gaussian_tradeoff": self.epsilon_lower_assuming_gaussian_tradeoff,
                "gaussian_shape_plausible": self.gaussian_shape_plausible,
                "delta_lower": self.delta_lower,
                "epsilon_true": self.epsilon_true,
                "tightness_ratio": self.tightness_ratio,
                "minimum_detectable_epsilon": self.minimum_detectable_epsilon,
                "neighbouring_audited": self.neighbouring_audited,
                "sample_consistency": self.sample_consistency,
                "details": self.details,
            }
        )
