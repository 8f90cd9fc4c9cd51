"""One-run privacy auditing (Steinke, Nasr & Jagielski 2023): m canaries, one run, an ε lower bound.

m canaries, each included independently with probability 1/2, one run; r guesses, v correct.  Under
(ε, δ)-DP, P[V >= v] <= P[Bin(r, q) >= v] + 2mδ·max_{i >= 1} P[v − i <= Bin(r, q) < v]/i with
q = e^ε/(1 + e^ε) (Steinke et al. 2023, Thm. 3.1/Prop. 5.7 and App. D).  Assumption-free apart from the
protocol (independent ½-inclusion of each canary, guesses a function of the one output).  **Saturates**: even
a perfect attacker cannot certify more than what Binomial(m, q) tail bounds allow — see
:func:`one_run_saturation` (docs/derivations.md#one-run-saturation-of-a-perfect-attacker; table in
docs/auditing.md).

References
----------
T. Steinke, M. Nasr, M. Jagielski. Privacy auditing with one (1) training run. NeurIPS 2023
(arXiv 2305.08846).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from numbers import Integral, Real
from typing import Any, Callable, Sequence

import numpy as np
from scipy.special import expit
from scipy.stats import binom

from dpsco.reference.privacy import to_jsonable
from dpsco.reference.validation import check_rng
from dpsco.verification.auditing.clopper_pearson import check_confidence, check_delta
from dpsco.verification.auditing.inputs import as_real_output
from dpsco.verification.auditing.results import ESTIMATOR_ASSUMPTIONS, AuditResultBase

__all__ = [
    "OneRunResult",
    "one_run_audit",
    "one_run_epsilon_lower_bound",
    "one_run_p_value",
    "one_run_saturation",
]


def _check_counts_one_run(m: Any, r: Any, v: Any) -> tuple[int, int, int]:
    for name, val in (("m", m), ("r", r), ("v", v)):
        if isinstance(val, bool) or not isinstance(val, Integral):
            raise TypeError(f"{name} must be an integer, got {type(val).__name__}")
    m_, r_, v_ = int(m), int(r), int(v)
    if not (0 <= v_ <= r_ <= m_) or m_ < 1:
        raise ValueError(f"one-run counts must satisfy 0 <= v <= r <= m and m >= 1, got m={m_}, r={r_}, v={v_}")
    return m_, r_, v_


def one_run_p_value(m: int, r: int, v: int, epsilon: float, delta: float) -> float:
    """P-value of observing >= v correct guesses out of r under (ε, δ)-DP (Steinke et al. 2023, App. D).

    p = P[Bin(r, q) >= v] + 2mδ · max_{1 <= i <= v} P[v − i <= Bin(r, q) < v]/i,  q = e^ε/(1 + e^ε)

    (Theorem 5.2 / Proposition 5.7 of the paper; for δ = 0 the Binomial(r, q) tail alone, Theorem 3.1).

    Parameters
    ----------
    m : int >= 1
        Number of canaries, each included independently with probability 1/2.
    r : int, 0 <= r <= m
        Number of guesses (non-abstentions).
    v : int, 0 <= v <= r
        Number of correct guesses.
    epsilon : float >= 0
    delta : float in [0, 1)

    Returns
    -------
    float in [0, 1]
    """
    m_, r_, v_ = _check_counts_one_run(m, r, v)
    if isinstance(epsilon, bool) or not isinstance(epsilon, Real) or not (float(epsilon) >= 0.0):
        raise ValueError(f"epsilon must be a real number >= 0, got {epsilon!r}")
    d = check_delta(delta)
    if v_ == 0:
        return 1.0
    q = float(expit(float(epsilon)))
    beta = float(binom.sf(v_ - 1, r_, q))
    alpha = 0.0
    if d > 0.0:
        i = np.arange(1, v_ + 1)
        # P[v − i <= Bin < v] = cdf(v − 1) − cdf(v − i − 1)
        window = binom.cdf(v_ - 1, r_, q) - binom.cdf(v_ - i - 1, r_, q)
        alpha = float(np.max(window / i))
    return min(1.0, beta + 2.0 * m_ * d * alpha)


def one_run_epsilon_lower_bound(m: int, r: int, v: int, delta: float, confidence: float) -> float:
    """Largest ε with ``one_run_p_value(m, r, v, ε, δ) <= 1 − confidence`` (0 if none): the one-run ε_lb.

    The p-value is increasing in ε (q = e^ε/(1 + e^ε) grows, and more privacy loss makes more correct
    guesses plausible), so the refuted ε form an interval [0, ε_lb); ε_lb is found by bisection to absolute
    width 1e-9 and the lower end of the bracket is returned (conservative).

    Guarantee: if the mechanism is (ε, δ)-DP, P(ε_lb > ε) <= 1 − confidence (Steinke et al. 2023, Thm. 3.1
    with their δ-correction), provided (r, v) come from guesses fixed by a rule chosen before the run.
    """
    m_, r_, v_ = _check_counts_one_run(m, r, v)
    conf = check_confidence(confidence)
    d = check_delta(delta)
    a = 1.0 - conf
    if one_run_p_value(m_, r_, v_, 0.0, d) > a:
        return 0.0
    lo, hi = 0.0, 1.0
    while one_run_p_value(m_, r_, v_, hi, d) <= a:
        lo, hi = hi, 2.0 * hi
        if hi > 1e4:  # pragma: no cover - only for absurd inputs
            break
    while hi - lo > 1e-9:
        mid = 0.5 * (lo + hi)
        if one_run_p_value(m_, r_, v_, mid, d) <= a:
            lo = mid
        else:
            hi = mid
    if d > 0.0 and lo > 0.0:
        # The δ-correction term is not proved monotone in ε; the guarantee needs p(ε') <= a for *every*
        # ε' <= ε_lb (then {ε_lb > ε} ⊂ {p(ε) <= a}).  Check a grid of [0, ε_lb] and stop before the first
        # failure (for δ = 0 the p-value is a Binomial tail, increasing in q, and no check is needed).
        for e in np.linspace(0.0, lo, 401)[1:]:
            if one_run_p_value(m_, r_, v_, float(e), d) > a:
                return float(max(0.0, e - lo / 400.0))
    return lo


def one_run_saturation(m: int, epsilon: float, *, delta: float = 0.0, confidence: float = 0.95) -> float:
    """Best one-run ε_lb a perfect attacker reaches on an ε-DP mechanism with m canaries (no abstention).

    The ideal attacker against ε-DP randomised response guesses all m canaries and is right on
    v = ⌊m e^ε/(1 + e^ε)⌋ of them (expected count, rounded down); returns
    ``one_run_epsilon_lower_bound(m, m, v, delta, confidence)``.  This is the ceiling of the one-run method
    (docs/derivations.md#one-run-saturation-of-a-perfect-attacker): e.g. m = 1000, ε = 8 gives about 5.35 at
    95 % confidence.
    """
    m_ = int(m)
    v = int(math.floor(m_ * float(expit(float(epsilon)))))
    return one_run_epsilon_lower_bound(m_, m_, v, delta, confidence)


@dataclass
class OneRunResult(AuditResultBase):
    """Outcome of :func:`one_run_audit` (Steinke, Nasr & Jagielski 2023).

    Attributes
    ----------
    epsilon_lower : float
        With probability >= ``confidence`` (over the canary inclusions and the run), the mechanism is not
        (ε, δ)-DP for any ε < ε_lb — provided the protocol of the module docstring holds.
    confidence, delta : float
    m : int
        Canaries.
    guesses : list of dict
        For each (k_positive, k_negative) in the declared grid: r, v and the ε bound at the Bonferroni level.
    chosen : dict
        The grid entry that gave ε_lb.
    saturation : float or None
        The ε_lb a perfect attacker would reach with these m canaries if the mechanism's ε were the claim's
        (:func:`one_run_saturation`, at the per-entry level): ε_lb can never exceed roughly this.
    claim_epsilon : float or None
    verdict : "refuted" | "not refuted" | "inconclusive" | "no claim"
        "inconclusive": the claim is for a neighbouring relation that the audited one cannot refute (a
        replace-one claim audited with add/remove canaries), see :func:`one_run_audit`.
    estimator, assumptions : str
    seed_entropy : int or None
        Recorded (or read from ``rng``); also ``seed``, one of the fields every audit result has
        (:class:`~dpsco.verification.auditing.results.AuditResultBase`, with ``summary()`` and ``to_dict()``).
    neighbouring_audited : "add/remove" | "replace-one"
        The relation the canary protocol varies (one canary's inclusion, or one canary's version).
    claim_neighbouring : str or None
        The claim's relation (None: taken to be the audited one).
    verdict_basis : str
        Which comparison decided the verdict, including any conversion between relations.
    relation_conversion : dict or None
        The implied claim actually tested when the relations differ, or why none exists.
    """

    epsilon_lower: float
    confidence: float
    delta: float
    m: int
    guesses: list[dict[str, Any]]
    chosen: dict[str, Any]
    saturation: float | None
    claim_epsilon: float | None
    verdict: str
    estimator: str
    assumptions: str
    seed_entropy: int | None
    neighbouring_audited: str = "add/remove"
    claim_neighbouring: str | None = None
    verdict_basis: str = ""
    relation_conversion: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable({**asdict(self), "seed": self.seed})

    def summary(self) -> str:
        return "\n".join([
            f"one-run audit (Steinke-Nasr-Jagielski 2023): m = {self.m} canaries, δ = {self.delta:g}",
            f"  verdict: {self.verdict.upper()}   ε lower bound = {self.epsilon_lower:.4f} at confidence "
            f"{self.confidence:g} for {self.neighbouring_audited} neighbouring"
            + ("" if self.claim_epsilon is None else
               f" (claim ε = {self.claim_epsilon:g}, {self.claim_neighbouring or self.neighbouring_audited})"),
            f"  verdict basis: {self.verdict_basis}",
            f"  best guesses: r = {self.chosen.get('r')}, correct v = {self.chosen.get('v')} "
            f"(k+ = {self.chosen.get('k_positive')}, k- = {self.chosen.get('k_negative')})",
            f"  saturation: a perfect attacker on a mechanism at the claimed ε would reach only "
            f"{'n/a' if self.saturation is None else format(self.saturation, '.4f')} with m = {self.m}",
            f"  assumes: {self.assumptions}",
            f"  seed entropy: {self.seed_entropy}",
        ])


def one_run_audit(
    run: Callable[[np.ndarray, np.random.Generator], Any],
    m: int,
    rng: np.random.Generator,
    *,
    guesses: Sequence[tuple[int, int]] | None = None,
    delta: float = 0.0,
    confidence: float = 0.95,
    claim_epsilon: float | None = None,
    seed_entropy: int | None = None,
    neighbouring_audited: str = "add/remove",
    claim_neighbouring: str | None = None,
) -> OneRunResult:
    """One-run privacy audit with ``m`` canaries (Steinke, Nasr & Jagielski 2023, Alg. 1).

    1. Draw S ∈ {0, 1}^m, each canary included independently with probability 1/2 (from ``rng``).
    2. One run: ``scores = run(S, rng)`` — the algorithm trained/run with exactly the canaries with S_i = 1,
       returning one score per canary, higher meaning "more likely included" (e.g. ⟨w, canary⟩ for a linear
       canary, or minus the canary's loss).  The scores must depend on S only through the run's output.
    3. For each declared (k₊, k₋): guess "in" for the k₊ highest scores and "out" for the k₋ lowest
       (abstain on the rest); r = k₊ + k₋ guesses, v correct.
    4. ε_lb = max over the grid of :func:`one_run_epsilon_lower_bound` (m, r, v, δ) at confidence
       1 − (1 − confidence)/G (Bonferroni over the G grid entries, declared before the run).

    **Saturation**: with m canaries the bound cannot exceed what a Binomial(m, e^ε/(1+e^ε)) tail allows
    (:func:`one_run_saturation`: m = 1000 caps ε = 8 at about 5.35).  A one-run audit that does not refute a
    claim says very little; one that refutes it is sound.

    **Neighbouring relation.**  The guarantee of Steinke et al. (Thm. 3.1) needs the map S ↦ output to be
    (ε, δ)-DP in each coordinate of S.  What flipping S_i changes decides which relation is audited:

    * ``neighbouring_audited="add/remove"`` (their protocol): S_i = 1 adds canary i, S_i = 0 leaves it out,
      so flipping S_i adds or removes one record; the bound is on the add/remove ε.
    * ``"replace-one"``: the run always contains one of two versions of every canary (S_i picks which), so
      the dataset size is fixed and flipping S_i replaces one record; the bound is on the replace-one ε.

    The verdict compares with the claim only where that is sound (``claim_neighbouring``, default: the
    audited relation):

    * same relation: "refuted" iff ε_lb > claim ε;
    * add/remove claim, replace-one audit: add/remove (ε, δ)-DP implies replace-one (2ε, (1 + e^ε)δ)-DP (a
      replacement is a removal followed by an addition; group privacy of size 2), so the bound is recomputed
      at δ' = (1 + e^ε)δ and "refuted" iff it exceeds 2ε (``relation_conversion`` records the implied claim);
    * replace-one claim, add/remove audit: **no** conversion is sound — replace-one DP constrains only
      datasets of equal size and implies no add/remove guarantee at all (M(D) = |D| is replace-one 0-DP and
      reveals every addition) — so the verdict is "inconclusive" and ε_lb is reported only as a bound on the
      add/remove ε.  Audit with the replace-one protocol to test such a claim.

    Parameters
    ----------
    run : callable (mask (m,) bool array, rng) -> (m,) finite scores
    m : int >= 1
    rng : numpy.random.Generator
    guesses : sequence of (k_positive, k_negative), optional
        Default: k₊ = k₋ = round(f·m/2) for f ∈ {0.05, 0.1, 0.2, 0.5, 1} (deduplicated, at least 1).
    delta, confidence : float
    claim_epsilon : float, optional
        If given, the verdict compares ε_lb with it (after the conversion above, if any).
    seed_entropy : int, optional
        Recorded; read from ``rng`` when possible.
    neighbouring_audited : "add/remove" | "replace-one"
        What ``run`` does with ``mask`` (see above).  Recorded; the auditor cannot check it.
    claim_neighbouring : "add/remove" | "replace-one", optional
        The claim's relation (default: ``neighbouring_audited``).

    Returns
    -------
    OneRunResult
    """
    check_rng(rng)
    if isinstance(m, bool) or not isinstance(m, Integral) or int(m) < 1:
        raise ValueError(f"m must be an integer >= 1, got {m!r}")
    m_ = int(m)
    if not callable(run):
        raise TypeError(f"run must be callable (mask, rng) -> scores, got {type(run).__name__}")
    conf = check_confidence(confidence)
    d = check_delta(delta)
    if guesses is None:
        ks = sorted({max(1, int(round(f * m_ / 2))) for f in (0.05, 0.1, 0.2, 0.5, 1.0)})
        grid = [(k, min(k, m_ - k)) for k in ks if k <= m_]
    else:
        grid = []
        for g in guesses:
            if not (isinstance(g, (tuple, list)) and len(g) == 2):
                raise ValueError(f"guesses must be (k_positive, k_negative) pairs, got {g!r}")
            kp, kn = g
            if any(isinstance(x, bool) or not isinstance(x, Integral) for x in (kp, kn)):
                raise TypeError(f"guesses entries must be integers, got {g!r}")
            if kp < 0 or kn < 0 or kp + kn > m_ or kp + kn == 0:
                raise ValueError(f"guesses entry {g!r} needs k_positive, k_negative >= 0 and 1 <= k+ + k- <= m")
            grid.append((int(kp), int(kn)))
    if not grid:
        raise ValueError("guesses must contain at least one (k_positive, k_negative) pair")
    if claim_epsilon is not None and (isinstance(claim_epsilon, bool) or not isinstance(claim_epsilon, Real)
                                      or not float(claim_epsilon) >= 0):
        raise ValueError(f"claim_epsilon must be a real number >= 0 or None, got {claim_epsilon!r}")
    relations = ("add/remove", "replace-one")
    if neighbouring_audited not in relations:
        raise ValueError(f"neighbouring_audited must be one of {relations}, got {neighbouring_audited!r}")
    if claim_neighbouring is not None and claim_neighbouring not in relations:
        raise ValueError(f"claim_neighbouring must be None or one of {relations}, got {claim_neighbouring!r}")
    rel_claim = neighbouring_audited if claim_neighbouring is None else claim_neighbouring
    if seed_entropy is None:
        seq = getattr(rng.bit_generator, "seed_seq", None)
        if isinstance(seq, np.random.SeedSequence) and isinstance(seq.entropy, (int, np.integer)):
            seed_entropy = int(seq.entropy)

    mask = rng.random(m_) < 0.5
    scores = as_real_output(run(mask.copy(), rng), "the one-run scores").ravel()
    if scores.shape != (m_,):
        raise ValueError(f"run must return {m_} scores, got shape {scores.shape}")
    if not np.all(np.isfinite(scores)):
        raise ValueError("run returned NaN or infinite scores")
    order = np.argsort(-scores, kind="stable")  # highest first
    level_conf = 1.0 - (1.0 - conf) / len(grid)
    rows = []
    for kp, kn in grid:
        top, bottom = order[:kp], order[m_ - kn:] if kn > 0 else order[:0]
        v = int(mask[top].sum() + (~mask[bottom]).sum())
        r = kp + kn
        e = one_run_epsilon_lower_bound(m_, r, v, d, level_conf)
        rows.append({"k_positive": kp, "k_negative": kn, "r": r, "v": v, "epsilon_lower": e})
    best = max(rows, key=lambda row: row["epsilon_lower"])
    sat = None
    if claim_epsilon is not None and float(claim_epsilon) > 0:
        sat = one_run_saturation(m_, float(claim_epsilon), delta=d, confidence=level_conf)
    conversion: dict[str, Any] | None = None
    if claim_epsilon is None:
        verdict, basis = "no claim", "no claim to compare with"
    elif rel_claim == neighbouring_audited:
        verdict = "refuted" if best["epsilon_lower"] > float(claim_epsilon) else "not refuted"
        basis = f"refuted iff epsilon_lower > claim epsilon (both {rel_claim})"
    elif rel_claim == "add/remove":  # replace-one audit of an add/remove claim: group privacy of size 2
        e_c = float(claim_epsilon)
        eps2, delta2 = 2.0 * e_c, (1.0 + math.exp(e_c)) * d
        conversion = {
            "claim": {"neighbouring": "add/remove", "epsilon": e_c, "delta": d},
            "implied_claim": {"neighbouring": "replace-one", "epsilon": eps2, "delta": delta2},
            "why": ("add/remove (eps, delta)-DP implies replace-one (2 eps, (1 + e^eps) delta)-DP: a replacement is a "
                    "removal followed by an addition"),
        }
        if delta2 >= 1.0:
            verdict = "inconclusive"
            basis = "the implied replace-one claim has delta >= 1 (vacuous): nothing to refute"
        else:
            e2 = max(one_run_epsilon_lower_bound(m_, row["r"], row["v"], delta2, level_conf) for row in rows)
            conversion["epsilon_lower_at_implied_delta"] = e2
            verdict = "refuted" if e2 > eps2 else "not refuted"
            basis = ("refuted iff the replace-one epsilon_lower at the implied delta (1 + e^eps) delta exceeds the "
                     "implied 2 eps")
    else:  # add/remove audit of a replace-one claim: no sound conversion
        verdict = "inconclusive"
        basis = ("an add/remove lower bound cannot refute a replace-one claim (replace-one DP implies no add/remove "
                 "guarantee); audit with the replace-one canary protocol instead")
        conversion = {
            "claim": {"neighbouring": "replace-one", "epsilon": float(claim_epsilon), "delta": d},
            "implied_claim": None,
            "why": ("replace-one DP constrains only datasets of equal size, so it implies no add/remove guarantee "
                    "(M(D) = |D| is replace-one 0-DP and reveals every addition)"),
        }
    return OneRunResult(
        epsilon_lower=float(best["epsilon_lower"]), confidence=conf, delta=d, m=m_, guesses=rows, chosen=best,
        saturation=sat, claim_epsilon=None if claim_epsilon is None else float(claim_epsilon), verdict=verdict,
        estimator=f"one-run audit (Steinke-Nasr-Jagielski 2023), Bonferroni over {len(grid)} guess counts",
        assumptions=ESTIMATOR_ASSUMPTIONS["one-run"] + f"; the canary protocol varies {neighbouring_audited} "
        "neighbours (declared by the caller, not checkable)", seed_entropy=seed_entropy,
        neighbouring_audited=neighbouring_audited, claim_neighbouring=claim_neighbouring, verdict_basis=basis,
        relation_conversion=conversion,
    )
