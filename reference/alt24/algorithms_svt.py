"""The bounded Laplace mechanism (Lemma 9) and the sparse vector technique with bounded Laplace noise
(Algorithm 6, Lemma 10) of Asi, Liu & Tian (2024), Section 5.1, with their exact privacy curves.

* :func:`bounded_laplace_mechanism`: S(D) + ξ, ξ ~ BLap(Δ/ε, τ), τ = (Δ/ε) log(4/δ) by default; (ε, δ)-DP for
  ε, δ ∈ (0, 1) (Lemma 9: the proof uses e^ε ≤ 3).  ε ≥ 1 or τ below the lemma's threshold are refused unless
  ``unsafe_tau=True``, and then the claim is void and says why.
* :func:`bounded_laplace_delta` / :func:`bounded_laplace_epsilon`: the mechanism's exact privacy curve on a
  pair at distance Δ, δ(ε) = ∫ max(0, p − e^ε q), by exact piecewise integration of the two truncated-Laplace
  densities (both log-densities are linear between the breakpoints −τ, Δ − τ, 0, Δ, τ, Δ + τ), including the
  mass of p outside q's support (δ(ε) ≥ that mass for every ε: a τ below Δ + (Δ/ε)log(...) shows up here).
* :func:`sparse_vector`: Algorithm 6 exactly (threshold noise BLap(R, τ) re-drawn after every ⊤, query noise
  BLap(2R, 2τ), halting after c answers ⊤); :func:`lemma_10_parameters` the smallest R, τ of (19);
  :func:`private_sparse_vector` the release with Lemma 10's (ε, δ) claim.
* :func:`svt_output_distribution` / :func:`svt_delta`: the exact distribution of Algorithm 6's answer
  sequence for given query values (every sequence; each is a product of independent segments, one per fresh
  threshold, each segment a one-dimensional integral over the threshold noise), hence its exact privacy
  curve on a pair of query streams; :func:`sparse_vector_answer_law` the same for any threshold and query noise
  scales (the variants of the sparse-vector loop, e.g. those of Lyu, Su & Li 2017, are analysed with it).

Answer sequences are encoded as a (T,) array: 1 = ⊤, 0 = ⊥, −1 = not answered (halted after c answers ⊤).
Neighbouring relation: replace-one (a Δ-sensitive query moves by at most Δ).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from scipy import integrate, optimize

from dpsco.reference.alt24.primitives import sample_bounded_laplace
from dpsco.reference.privacy import PrivacyClaim, Release
from dpsco.reference.validation import as_float_vector, check_bool, check_positive, check_positive_int, check_rng

__all__ = ["bounded_laplace_cdf", "bounded_laplace_delta", "bounded_laplace_epsilon", "bounded_laplace_mechanism",
           "discrete_delta", "discrete_epsilon", "lemma_9_tau", "lemma_10_parameters", "private_sparse_vector",
           "sparse_vector", "sparse_vector_answer_law", "svt_delta", "svt_epsilon", "svt_output_distribution"]

SOURCE_LEMMA_9 = "Asi, Liu & Tian (2024), Lemma 9 (bounded Laplace mechanism)"
SOURCE_LEMMA_10 = "Asi, Liu & Tian (2024), Lemma 10 (Algorithm 6, SVT with bounded Laplace noise)"


def _unit_interval(value: Any, name: str) -> float:
    v = check_positive(value, name)
    if v >= 1.0:
        raise ValueError(f"{name} must lie in (0, 1) (Asi, Liu & Tian 2024, Lemmas 9-10 use e^ε ≤ 3), got {v}")
    return v


def lemma_9_tau(sensitivity: float, epsilon: float, delta: float) -> float:
    """Lemma 9's smallest truncation τ = (Δ/ε) log(4/δ) (then TV(Lap(Δ/ε), BLap(Δ/ε, τ)) = δ/4 by (17)).
    Δ > 0, ε > 0, δ ∈ (0, 1)."""
    delta = check_positive(delta, "delta")
    if delta >= 1.0:
        raise ValueError(f"delta must lie in (0, 1), got {delta}")
    return check_positive(sensitivity, "sensitivity") / check_positive(epsilon, "epsilon") * math.log(4.0 / delta)


def lemma_10_parameters(sensitivity: float, c: int, T: int, epsilon: float, delta: float) -> dict[str, float]:
    """Lemma 10's (19) at equality: R = (6Δ/ε)√(c log(5/δ)), τ = R log(10T/δ).

    Δ > 0 the queries' sensitivity, c ≥ 1 the count threshold, T ≥ 1 the number of queries, ε, δ ∈ (0, 1).
    Returns {"R", "tau", "threshold_tau", "query_scale", "query_tau"} (query noise is BLap(2R, 2τ))."""
    s = check_positive(sensitivity, "sensitivity")
    c = check_positive_int(c, "c")
    T = check_positive_int(T, "T")
    eps = _unit_interval(epsilon, "epsilon")
    delta = _unit_interval(delta, "delta")
    R = 6.0 * s / eps * math.sqrt(c * math.log(5.0 / delta))
    tau = R * math.log(10.0 * T / delta)
    return {"R": R, "tau": tau, "threshold_tau": tau, "query_scale": 2.0 * R, "query_tau": 2.0 * tau}


# ---- the bounded Laplace mechanism and its exact curve -------------------------------------------------------


def bounded_laplace_cdf(x: Any, R: float, tau: float) -> Any:
    """CDF of BLap(R, τ) (Lap(R) conditioned on |ξ| ≤ τ; τ = inf is Lap(R); R = 0 or τ = 0 a point mass at 0,
    CDF 𝕀_{x ≥ 0}).  x : float or array."""
    R = check_positive(R, "R", allow_zero=True)
    tau = check_positive(tau, "tau", allow_zero=True, allow_inf=True)
    x = np.asarray(x, dtype=np.float64)
    if R == 0.0 or tau == 0.0:
        out = (x >= 0).astype(np.float64)
        return float(out) if out.ndim == 0 else out
    xc = np.clip(x, -tau, tau)
    mass = 1.0 if math.isinf(tau) else -math.expm1(-tau / R)  # 1 − e^{−τ/R}
    low = 0.0 if math.isinf(tau) else 0.5 * math.exp(-tau / R)  # Lap(R) CDF at −τ
    lap = np.where(xc < 0, 0.5 * np.exp(np.minimum(xc, 0.0) / R), 1.0 - 0.5 * np.exp(-np.maximum(xc, 0.0) / R))
    out = np.clip((lap - low) / mass, 0.0, 1.0)
    out = np.where(x >= tau, 1.0, np.where(x < -tau, 0.0, out))
    return float(out) if out.ndim == 0 else out


def _exp_integral(a: float, b: float, lo: float, hi: float) -> float:
    """∫_lo^hi exp(a + b x) dx for lo ≤ hi (infinite ends allowed where the integral converges)."""
    if hi <= lo:
        return 0.0
    if b == 0.0:
        return math.exp(a) * (hi - lo)
    # exp(a + b·hi) − exp(a + b·lo), over b; written with expm1 on the shorter side for accuracy
    if b > 0:
        top = a + b * hi
        return math.exp(top) * -math.expm1(-b * (hi - lo)) / b if math.isfinite(lo) else math.exp(top) / b
    bottom = a + b * lo
    return math.exp(bottom) * -math.expm1(b * (hi - lo)) / -b if math.isfinite(hi) else math.exp(bottom) / -b


def _blap_pieces(center: float, R: float, tau: float) -> list[tuple[float, float, float, float]]:
    """The log-density of center + BLap(R, τ) as linear pieces (lo, hi, a, b): log p(x) = a + b x on (lo, hi)."""
    logz = math.log(2.0 * R) + (0.0 if math.isinf(tau) else math.log(-math.expm1(-tau / R)))
    return [(center - tau, center, -center / R - logz, 1.0 / R),   # x < center: exp((x − center)/R)
            (center, center + tau, center / R - logz, -1.0 / R)]   # x > center: exp(−(x − center)/R)


def bounded_laplace_delta(epsilon: float, sensitivity: float, R: float, tau: float, *,
                          shift: float | None = None) -> float:
    """Exact δ(ε) = ∫ max(0, p(x) − e^ε q(x)) dx for p = BLap(R, τ) and q = shift + BLap(R, τ) (shift defaults
    to Δ = ``sensitivity``): the privacy curve of S + BLap(R, τ) on a pair with |S(D) − S(D')| = shift (the
    same in both directions, by reflection).

    Exact piecewise integration: on each interval between the breakpoints {−τ, 0, τ} ∪ {shift − τ, shift,
    shift + τ} both log-densities are linear, so the set where p > e^ε q is an interval, integrated in closed
    form; where q = 0 (outside its support) the whole mass of p counts.  ε ≥ 0, Δ > 0, R > 0, τ > 0 (inf: Lap).
    """
    eps = check_positive(epsilon, "epsilon", allow_zero=True)
    s = check_positive(sensitivity, "sensitivity") if shift is None else check_positive(shift, "shift",
                                                                                         allow_zero=True)
    R = check_positive(R, "R")
    tau = check_positive(tau, "tau", allow_inf=True)
    P = _blap_pieces(0.0, R, tau)
    Q = _blap_pieces(s, R, tau)
    cuts = sorted({-tau, 0.0, tau, s - tau, s, s + tau})
    total = 0.0
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        if not hi > lo:
            continue
        mid = 0.5 * (lo + hi) if math.isfinite(lo + hi) else (hi - 1.0 if math.isinf(lo) else lo + 1.0)
        p = next(((a, b) for (l, h, a, b) in P if l <= mid <= h), None)
        if p is None:
            continue
        q = next(((a, b) for (l, h, a, b) in Q if l <= mid <= h), None)
        if q is None:  # outside q's support: all of p's mass here is in the hockey-stick divergence
            total += _exp_integral(p[0], p[1], lo, hi)
            continue
        # p − e^ε q > 0 ⇔ g(x) = (a_p − a_q − ε) + (b_p − b_q) x > 0
        g0, g1 = p[0] - q[0] - eps, p[1] - q[1]
        if g1 == 0.0:
            l2, h2 = (lo, hi) if g0 > 0 else (hi, hi)
        else:
            root = -g0 / g1
            l2, h2 = (max(lo, root), hi) if g1 > 0 else (lo, min(hi, root))
        if h2 > l2:
            total += _exp_integral(p[0], p[1], l2, h2) - math.exp(eps) * _exp_integral(q[0], q[1], l2, h2)
    return min(max(total, 0.0), 1.0)


def bounded_laplace_epsilon(delta: float, sensitivity: float, R: float, tau: float) -> float:
    """The exact ε of S + BLap(R, τ) at δ (pair at distance Δ): the smallest ε ≥ 0 with δ(ε) ≤ δ, by root
    finding on the exact curve (monotone decreasing in ε); inf when even δ(∞) (the mass outside the shared
    support) exceeds δ.  δ ∈ [0, 1)."""
    delta = check_positive(delta, "delta", allow_zero=True)
    if delta >= 1.0:
        raise ValueError(f"delta must lie in [0, 1), got {delta}")
    f = lambda e: bounded_laplace_delta(e, sensitivity, R, tau) - delta  # noqa: E731
    if f(0.0) <= 0.0:
        return 0.0
    hi = check_positive(sensitivity, "sensitivity") / check_positive(R, "R") * 1.0001 + 1e-12
    if f(hi) > 0.0:  # above the pure-DP level Δ/R only the support mismatch remains
        return math.inf
    return float(optimize.brentq(f, 0.0, hi, xtol=1e-13, rtol=1e-12))


def bounded_laplace_mechanism(value: float, sensitivity: float, epsilon: float, delta: float,
                              rng: np.random.Generator, tau: float | None = None, *,
                              unsafe_tau: bool = False) -> Release:
    """Lemma 9: release value + ξ, ξ ~ BLap(Δ/ε, τ); (ε, δ)-DP for a Δ-sensitive statistic when ε, δ ∈ (0, 1)
    and τ ≥ (Δ/ε) log(4/δ) (default τ = that threshold).

    value : the statistic S(D) (a real);  sensitivity Δ > 0 (replace-one);  ε ∈ (0, 1), δ ∈ (0, 1);
    rng : numpy Generator;  tau > 0 or None.
    unsafe_tau : allow ε ≥ 1 or τ below the threshold; the claim is then void (notion "none"), names the broken
    premise and records the exact δ(ε) of the mechanism as run (:func:`bounded_laplace_delta`).
    Returns a Release with output (1,), parameters {R, tau, tau_lemma_9}, gradient_evaluations 0.
    Raises ValueError / TypeError naming the parameter (ε ≥ 1 or a short τ without ``unsafe_tau``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(value)):
        raise ValueError(f"value must be a finite real, got {value!r}")
    s = check_positive(sensitivity, "sensitivity")
    eps = check_positive(epsilon, "epsilon")
    rng = check_rng(rng)
    unsafe = check_bool(unsafe_tau, "unsafe_tau")
    delta_v = check_positive(delta, "delta")
    if delta_v >= 1.0:
        raise ValueError(f"delta must lie in (0, 1), got {delta_v}")
    tau_min = lemma_9_tau(s, eps, delta_v)
    t = tau_min if tau is None else check_positive(tau, "tau", allow_inf=True)
    problems = []
    if eps >= 1.0:
        problems.append(f"epsilon = {eps} >= 1 (Lemma 9 needs e^ε ≤ 3)")
    if t < tau_min * (1.0 - 1e-12):
        problems.append(f"tau = {t} < (Δ/ε) log(4/δ) = {tau_min}")
    if problems and not unsafe:
        raise ValueError("bounded_laplace_mechanism: " + "; ".join(problems)
                         + " — Lemma 9 does not apply; pass unsafe_tau=True for a release with a void claim")
    R = s / eps
    xi = sample_bounded_laplace(R, t, rng)
    params = {"R": R, "tau": t, "tau_lemma_9": tau_min, "sensitivity": s}
    if problems:
        claim = PrivacyClaim(notion="none", epsilon=eps, delta=delta_v, neighbouring="replace-one",
                             source=SOURCE_LEMMA_9, assumptions={**params, "exact_delta_at_epsilon":
                                                                 bounded_laplace_delta(eps, s, R, t)},
                             conditions=tuple(f"unsafe_tau: {p}" for p in problems))
    else:
        claim = PrivacyClaim(notion="approx-DP", epsilon=eps, delta=delta_v, neighbouring="replace-one",
                             source=SOURCE_LEMMA_9, assumptions=params)
    return Release(output=np.array([float(value) + xi]), claim=claim, gradient_evaluations=0, parameters=params,
                   algorithm="bounded Laplace mechanism (Asi, Liu & Tian 2024, Lemma 9)",
                   nonprivate_internals={"noise": xi})


# ---- Algorithm 6 ------------------------------------------------------------------------------------------------


def _check_answers(answers: Any) -> np.ndarray:
    q = as_float_vector(answers, "answers")
    if q.size == 0:
        raise ValueError("answers must hold at least one query value")
    return q


def sparse_vector(answers: Any, c: int, L: float, R: float, tau: float, rng: np.random.Generator, *,
                  trace: dict[str, list[float]] | None = None) -> np.ndarray:
    """Algorithm 6, SVT(D, {q_i}, c, L, R, τ), on the query values q_i(D) = ``answers``.

    Line 3: b ← L + BLap(R, τ); Lines 4-15: while i ≤ T and count < c: ξ ~ BLap(2R, 2τ); if q_i + ξ < b answer ⊥
    else answer ⊤, count += 1 and draw a fresh threshold b ← L + BLap(R, τ).

    answers : (T,) floats;  c ≥ 1;  L real;  R ≥ 0;  τ ≥ 0 (inf: plain Laplace);  rng : numpy Generator.
    trace : optional dict; receives the noise draws ("threshold_noise", "query_noise") for white-box checks.
    Returns (T,) float array: 1 = ⊤, 0 = ⊥, −1 = not answered (halted)."""
    q = _check_answers(answers)
    c = check_positive_int(c, "c")
    if isinstance(L, bool) or not isinstance(L, (int, float, np.integer, np.floating)) or not math.isfinite(L):
        raise ValueError(f"L must be a finite real, got {L!r}")
    R = check_positive(R, "R", allow_zero=True)
    tau = check_positive(tau, "tau", allow_zero=True, allow_inf=True)
    rng = check_rng(rng)
    out = np.full(q.size, -1.0)
    z = sample_bounded_laplace(R, tau, rng)  # Line 3
    thresholds, queries = [z], []
    count = 0
    for i in range(q.size):  # Line 4: while i ∈ [T] and count < c
        if count >= c:
            break
        xi = sample_bounded_laplace(2.0 * R, 2.0 * tau, rng)  # Line 5
        queries.append(xi)
        if q[i] + xi < L + z:  # Line 6
            out[i] = 0.0  # Line 7: ⊥
        else:
            out[i] = 1.0  # Line 12: ⊤
            count += 1
            if count < c:  # Line 14 (a threshold drawn after the c-th ⊤ is never used; not drawn)
                z = sample_bounded_laplace(R, tau, rng)
                thresholds.append(z)
    if trace is not None:
        trace["threshold_noise"] = thresholds
        trace["query_noise"] = queries
    return out


def private_sparse_vector(answers: Any, sensitivity: float, c: int, L: float, epsilon: float, delta: float,
                          rng: np.random.Generator) -> Release:
    """Algorithm 6 at Lemma 10's parameters (:func:`lemma_10_parameters`): (ε, δ)-DP answer sequence for
    Δ-sensitive queries, ε, δ ∈ (0, 1) (replace-one).

    answers : (T,) query values q_i(D);  sensitivity Δ > 0;  c ≥ 1;  L real;  rng : numpy Generator.
    Returns a Release: output (T,) in {1 (⊤), 0 (⊥), −1 (halted)}; parameters {R, tau, c, L, T}; the noise
    draws in ``nonprivate_internals`` (white-box envelope checks only).  Raises ValueError / TypeError."""
    q = _check_answers(answers)
    params = lemma_10_parameters(sensitivity, c, q.size, epsilon, delta)
    trace: dict[str, list[float]] = {}
    out = sparse_vector(q, c, L, params["R"], params["tau"], rng, trace=trace)
    public = {**params, "c": int(c), "L": float(L), "T": int(q.size), "sensitivity": float(sensitivity)}
    claim = PrivacyClaim(notion="approx-DP", epsilon=float(epsilon), delta=float(delta), neighbouring="replace-one",
                         source=SOURCE_LEMMA_10, assumptions={"sensitivity": float(sensitivity), "c": int(c),
                                                              "T": int(q.size), "R": params["R"],
                                                              "tau": params["tau"]})
    return Release(output=out, claim=claim, gradient_evaluations=0, parameters=public,
                   algorithm="SVT with bounded Laplace noise (Asi, Liu & Tian 2024, Algorithm 6)",
                   nonprivate_internals=trace)


# ---- exact output distribution of Algorithm 6 --------------------------------------------------------------


def _segment_probability(q: np.ndarray, L: float, R: float, tau: float, qR: float, qtau: float, start: int,
                         end: int, ends_top: bool) -> float:
    """P(answers ⊥ at start..end−1 and ⊤ at end (``ends_top``) or ⊥ at start..end) under one fresh threshold."""
    last = end if ends_top else end + 1

    def cdf(x: Any) -> Any:
        return bounded_laplace_cdf(x, qR, qtau)

    def integrand(z: float) -> float:
        # ⊥ at m ⇔ q_m + ξ < L + z ⇔ ξ < L + z − q_m (continuous noise: P(ξ < t) = F(t); point mass: t > 0)
        t = L + z - q[start:last]
        below = cdf(t) if qR > 0 and qtau > 0 else (t > 0).astype(np.float64)
        val = float(np.prod(below))
        if ends_top:
            t_end = L + z - q[end]
            val *= 1.0 - (float(cdf(t_end)) if qR > 0 and qtau > 0 else float(t_end > 0))
        return val

    if R == 0.0 or tau == 0.0:
        return integrand(0.0)
    lim = tau if math.isfinite(tau) else 60.0 * R  # Laplace mass beyond 60R: e^{−60} < 1e-26
    pts = {0.0}
    for m in range(start, end + 1):
        for edge in ((0.0,) if not (qR > 0 and qtau > 0) else (0.0, -qtau, qtau) if math.isfinite(qtau) else (0.0,)):
            pts.add(q[m] - L + edge)
    pts = sorted(p for p in pts if -lim < p < lim)
    norm = 2.0 * R * (1.0 if math.isinf(tau) else -math.expm1(-tau / R))

    def weighted(z: float) -> float:
        return math.exp(-abs(z) / R) / norm * integrand(z)

    edges = [-lim] + pts + [lim]
    total = 0.0
    for a, b in zip(edges[:-1], edges[1:]):
        if b > a:
            total += integrate.quad(weighted, a, b, epsabs=1e-15, epsrel=1e-12, limit=200)[0]
    return total


def sparse_vector_answer_law(answers: Any, c: int, L: float, R: float, tau: float, query_R: float,
                             query_tau: float) -> dict[tuple[int, ...], float]:
    """The exact distribution of the answer sequence of the sparse-vector loop (Algorithm 6's Lines 3–15) on query
    values ``answers`` (T ≤ 16), with threshold noise BLap(R, τ) and query noise BLap(query_R, query_tau) (a point
    mass at 0 when query_R or query_tau is 0).  Algorithm 6 itself has query noise BLap(2R, 2τ):
    :func:`svt_output_distribution`.

    Each sequence splits into segments that end at a ⊤ (a fresh threshold starts after each): the segments are
    independent, so P(sequence) = Π P(segment), each a one-dimensional integral over the threshold noise
    (scipy quad between the kinks of the integrand, tolerance 1e-12 relative).  Keys: tuples in {1, 0, −1}
    (the encoding of :func:`sparse_vector`).  R, τ, query_R, query_tau ≥ 0 (τ = inf: Laplace)."""
    q = _check_answers(answers)
    if q.size > 16:
        raise ValueError(f"answers: exact enumeration is limited to T <= 16 queries, got {q.size}")
    c = check_positive_int(c, "c")
    R = check_positive(R, "R", allow_zero=True)
    tau = check_positive(tau, "tau", allow_zero=True, allow_inf=True)
    qR = check_positive(query_R, "query_R", allow_zero=True)
    qtau = check_positive(query_tau, "query_tau", allow_zero=True, allow_inf=True)
    if qR == 0.0 or qtau == 0.0:
        qR, qtau = 0.0, 0.0
    T = q.size
    cache: dict[tuple[int, int, bool], float] = {}

    def seg(start: int, end: int, top: bool) -> float:
        key = (start, end, top)
        if key not in cache:
            cache[key] = _segment_probability(q, float(L), R, tau, qR, qtau, start, end, top)
        return cache[key]

    dist: dict[tuple[int, ...], float] = {}
    for bits in itertools.product((0, 1), repeat=T):
        seq = list(bits)
        tops = [i for i, b in enumerate(seq) if b == 1]
        if len(tops) >= c:  # halted after the c-th ⊤: later positions unanswered
            cut = tops[c - 1]
            if any(seq[cut + 1:]):
                continue  # count each halted sequence once (its tail all 0 here)
            seq = seq[:cut + 1] + [-1] * (T - cut - 1)
        p, start = 1.0, 0
        for i in tops[:c]:
            p *= seg(start, i, True)
            start = i + 1
        if len(tops) < c and start < T:
            p *= seg(start, T - 1, False)
        dist[tuple(seq)] = p
    return dist


def svt_output_distribution(answers: Any, c: int, L: float, R: float, tau: float) -> dict[tuple[int, ...], float]:
    """The exact distribution of Algorithm 6's answer sequence on query values ``answers`` (T ≤ 16): threshold
    noise BLap(R, τ), query noise BLap(2R, 2τ) (:func:`sparse_vector_answer_law`).  R, τ ≥ 0 (τ = inf: Laplace)."""
    R = check_positive(R, "R", allow_zero=True)
    tau = check_positive(tau, "tau", allow_zero=True, allow_inf=True)
    return sparse_vector_answer_law(answers, c, L, R, tau, 2.0 * R, 2.0 * tau)


def discrete_delta(epsilon: float, P: dict, Q: dict) -> float:
    """δ(ε) = max(Σ_o max(0, P(o) − e^ε Q(o)), Σ_o max(0, Q(o) − e^ε P(o))) of two discrete output laws
    (dicts outcome → probability, e.g. from :func:`svt_output_distribution`)."""
    eps = check_positive(epsilon, "epsilon", allow_zero=True)
    keys = set(P) | set(Q)
    e = math.exp(eps)
    forward = sum(max(0.0, P.get(o, 0.0) - e * Q.get(o, 0.0)) for o in keys)
    backward = sum(max(0.0, Q.get(o, 0.0) - e * P.get(o, 0.0)) for o in keys)
    return min(1.0, max(forward, backward))


def discrete_epsilon(delta: float, P: dict, Q: dict) -> float:
    """The smallest ε ≥ 0 with :func:`discrete_delta` (ε) ≤ δ (inf if none: an outcome one side never
    produces carries more than δ); root found to 1e-12."""
    delta = check_positive(delta, "delta", allow_zero=True)
    keys = sorted(set(P) | set(Q))
    p = np.array([P.get(o, 0.0) for o in keys])
    qv = np.array([Q.get(o, 0.0) for o in keys])

    def d(e: float) -> float:
        x = math.exp(e)
        return max(float(np.maximum(p - x * qv, 0).sum()), float(np.maximum(qv - x * p, 0).sum())) - delta

    if d(0.0) <= 0.0:
        return 0.0
    both = (p > 0) & (qv > 0)
    ratios = np.abs(np.log(p[both] / qv[both]))
    hi = float(np.max(ratios, initial=0.0)) + 1e-9
    if d(hi) > 0.0:
        return math.inf
    return float(optimize.brentq(d, 0.0, hi, xtol=1e-12))


def svt_delta(epsilon: float, answers: Any, neighbour_answers: Any, c: int, L: float, R: float, tau: float) -> float:
    """Exact δ(ε) of Algorithm 6 on the pair of query streams (answers on D, on D'): the larger of
    Σ_o max(0, P(o) − e^ε P'(o)) and its mirror, over every answer sequence o (:func:`svt_output_distribution`)."""
    P = svt_output_distribution(answers, c, L, R, tau)
    Q = svt_output_distribution(neighbour_answers, c, L, R, tau)
    return discrete_delta(epsilon, P, Q)


def svt_epsilon(delta: float, answers: Any, neighbour_answers: Any, c: int, L: float, R: float, tau: float) -> float:
    """Exact ε at δ of Algorithm 6 on a pair of query streams (inf if no finite ε reaches δ), from the exact
    discrete distributions (:func:`discrete_epsilon`)."""
    P = svt_output_distribution(answers, c, L, R, tau)
    Q = svt_output_distribution(neighbour_answers, c, L, R, tau)
    return discrete_epsilon(delta, P, Q)
