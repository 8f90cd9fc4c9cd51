"""Asi, Liu & Tian (2024), Section 5: Localized-Clipped-DP-SGD (Algorithm 7, Theorem 3), the near-linear-time
(ε, δ)-DP algorithm for heavy-tailed private SCO with β-smooth samples.

I = ⌊log₂ n⌋ phases on disjoint consecutive blocks of n_i = n/2^i records (n ← 2^I, the first records kept).
Phase i runs one-pass SGD with step η_i = η/4^i from (the projection onto X of) the previous noisy phase average
and clips a gradient only when its norm, plus fresh noise ν ~ BLap(2ω_i, 2τ_i), reaches the noisy threshold
Ĉ = C + BLap(ω_i, τ_i) (re-drawn after every clip), ω_i = 6ωCη_iβ, τ_i = ω_i log(30n_i/δ): a sparse-vector test
(Algorithm 6) on the clip indicators.  Every clip increments ``count``; when count ≥ ĉ_i = c + BLap(3/ε, c/2)
the **whole algorithm halts and outputs ⊥** (Lines 20–21).  Otherwise the phase average x̄_i of x_{i,1..n_i}
gets Gaussian noise N(0, σ_i² I), σ_i = 30Cη_i√(log(3/δ))/ε.

Privacy (Lemma 12, proof of Theorem 3): (ε, δ)-DP under replace-one for ε, δ ∈ (0, 1), every f(·; s) β-smooth,
and Lemma 12's four conditions, which :func:`check_lemma_12` verifies before any record is read.  The release
is either a point or ⊥; ⊥ is an outcome of the mechanism (``LocalizedRelease.halted``), never retried:
:func:`audit_outcome` turns a release into the vector an auditor compares ([1, 0, …] for ⊥, [0, x] else).

Deviations from the printed text (ERRATA.md; each tested in tests/alt24/test_alt24_localized.py):
* the signature Localized-Clipped-DP-SGD(D, x_0, η, c, ε, δ) omits C and ω (listed in Line 1) and β (Line 4
  reads it, Line 1 does not list it): all three are arguments here;
* Line 8 takes the (Σ_{i'∈[i]} n_{i'} + j)-th record, which makes phase i reuse the last n_i records (every
  phase reads the final ones, the first half is never read) and breaks the parallel composition the proof of
  Lemma 12 rests on; we read the (Σ_{i'<i} n_{i'} + j)-th (``record_index="printed"`` keeps the printed one);
* Appendix D's proof of Lemma 11 writes ĉ_i's noise as BLap(3/ε, c); Line 5 (and Lemma 12's c ≥ (6/ε)log(12/δ),
  Lemma 9's truncation for a 1-sensitive count at ε/3, δ/3) has BLap(3/ε, c/2), which we use;
* Theorem 3's C is multiplied by 2^{1/k}: the printed C misses Lemma 13's condition c/4 ≥ n(2G_k/C)^k by a
  factor 2 (the proof's "2√(An) = 4n√(A/n)" is off by 2; :func:`theorem_3_parameters`, ``printed=True`` keeps it);
* each phase starts at Π_X(x_{i−1}) and the output is Π_X(x_I) (x_{i−1} = x̄_{i−1} + ζ can leave X, where
  Assumption 1 does not define f): post-processing of private values, ``project=False`` gives the printed
  iterates.
Theorem 3's n in the parameter formulas is the rounded 2^I (its proof assumes n a power of 2).

What is published.  The paper releases ⊥ alone or the point (Lines 20–21 and the last line): ``to_dict()`` writes
the outcome (``halted`` and ``output``, null on ⊥) and fields that are functions of public inputs only — the
claim, every phase's parameters (all I phases, computed before any record is read) and
``gradient_evaluations`` = 2^I − 1, the count the schedule prescribes.  The count actually performed (fewer on
⊥: it reveals at which clip the count reached ĉ_i) and the phase that halted are data-dependent and never
published: they are ``nonprivate_internals["gradient_evaluations_performed"]`` and ``["halted_phase"]``
(ERRATA.md; publishing the count gave δ ≥ ½(1 − e^{−ε/3}) on the ⊥ pair, tests/alt24/test_alt24_published_records.py).

Floating point.  After the up-front checks (Lemma 12 on public inputs, finite records within the loss's declared
range, β) every run returns ⊥ or a finite point: ‖∇f‖ is computed overflow-safe (a NaN norm counts as inf, so
the step is clipped), a clipped step is the loss's exact Π_C (``clipped_grads_at``, ‖·‖ ≤ C in floating
point), every step's gradient is held to ‖g‖ ≤ C + 3τ_i by ``enforce_norm_bound`` wherever a ``vector_norm``
check finds it above (an unclipped step has ‖g‖ < Ĉ − ν ≤ C + 3τ_i: never on correct input) and Π_X is
``project_ball``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from dpsco.reference.alt24.model import HeavyTailedLoss, MomentBounds, check_records
from dpsco.reference.alt24.primitives import project_ball, sample_bounded_laplace, vector_norm
from dpsco.reference.clipping import enforce_norm_bound
from dpsco.reference.privacy import PrivacyClaim, Release
from dpsco.reference.validation import as_float_vector, check_positive, check_positive_int, check_rng

__all__ = ["LocalizedRelease", "Theorem3Parameters", "audit_outcome", "check_lemma_12", "lemma_12_conditions",
           "lemma_13_conditions", "localized_clipped_dp_sgd", "phase_parameters", "phase_record_ranges",
           "schedule_gradient_count", "theorem_3_parameters", "theorem_3_proof_bound"]

ALG7 = "Localized-Clipped-DP-SGD (Asi, Liu & Tian 2024, Algorithm 7)"
SOURCE = "Asi, Liu & Tian (2024), Lemma 12 and Theorem 3 (Algorithm 7)"
RecordIndex = Literal["disjoint", "printed"]
_RTOL = 1e-12


def _unit_interval(value: Any, name: str) -> float:
    v = check_positive(value, name)
    if not v < 1.0:
        raise ValueError(f"{name} must be in (0, 1) (Theorem 3, Lemmas 9 and 10 use e^ε ≤ 3), got {v}")
    return v


def _phases(n: int) -> tuple[int, int]:
    """(I, 2^I) for a dataset of n ≥ 2 records (Algorithm 7, Line 2)."""
    n = check_positive_int(n, "n")
    if n < 2:
        raise ValueError(f"n must be >= 2 (Algorithm 7 runs I = ⌊log₂ n⌋ ≥ 1 phases), got {n}")
    I = n.bit_length() - 1
    return I, 1 << I


def phase_record_ranges(n: int, record_index: RecordIndex = "disjoint") -> list[tuple[int, int]]:
    """0-based half-open record ranges [start, stop) of phases i = 1..I (public: a function of n only).

    "disjoint": the (Σ_{i'<i} n_{i'} + j)-th record, start = 2^I − 2n_i (consecutive disjoint blocks);
    "printed": Line 8's (Σ_{i'∈[i]} n_{i'} + j)-th, start = 2^I − n_i (phase i reads the last n_i records).
    Raises ValueError for n < 2 or an unknown ``record_index``."""
    I, m = _phases(n)
    if record_index not in ("disjoint", "printed"):
        raise ValueError(f"record_index must be 'disjoint' or 'printed', got {record_index!r}")
    out = []
    for i in range(1, I + 1):
        n_i = m >> i
        start = m - 2 * n_i if record_index == "disjoint" else m - n_i
        out.append((start, start + n_i))
    return out


# ---- parameters (Theorem 3) and preconditions (Lemmas 12, 13) ------------------------------------------------


@dataclass(frozen=True)
class Theorem3Parameters:
    """Theorem 3's parameters for n records (n_used = 2^I): A, η = min(η_1, η_2) of (21), C, c, ω, and the
    largest β (20) allows.  All public (functions of n, d, ε, δ, G_2, G_k, k, D only)."""

    n_used: int
    I: int
    A: float
    eta_1: float
    eta_2: float
    eta: float
    C: float
    c: float
    omega: float
    beta_max: float
    printed_C: bool = False

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def theorem_3_parameters(n: int, d: int, epsilon: float, delta: float, moments: MomentBounds,
                         D: float, *, printed: bool = False) -> Theorem3Parameters:
    """Theorem 3 (Asi, Liu & Tian 2024), with n ← 2^⌊log₂ n⌋ (Line 2; the proof assumes a power of 2):
        A = 14400 d log²(15n/δ)/(nε²)                                   (proof, after (20))
        η = min(√(4/n)·D/G_2, (DI/(G_k n))·(n/A)^{(k−1)/(2k)})          (21)
        C = 2^{1+1/k}(G_k^k D I/(Aη))^{1/(k+1)}   (printed: 2(G_k^k D I/(Aη))^{1/(k+1)}; see below)
        c = 240√d log(15n/δ)/ε = 2√(An),  ω = (18/ε)√(2c log(15/δ))
        β_max = ε^{1.5}/(24000 η √d log²(30n/δ))                         (20)
    Erratum (C): the proof of Theorem 3 verifies (22)'s c ≥ 4n(2G_k/C)^k through "c = 2√(An) = 4n√(A/n)", but
    4n√(A/n) = 4√(An) = 2c; at η = η_2 the printed C gives n(2G_k/C)^k = √(An) = c/2, so Lemma 13's condition
    c/4 ≥ n(2G_k/C)^k fails by a factor 2.  Multiplying C by 2^{1/k} restores it (equality at η = η_2, and C
    grows as η shrinks) and changes no privacy condition (Lemma 12's are free of C once ω_i ∝ C).  ``printed``
    gives the printed C.  n ≥ 2, d ≥ 1 integers; ε, δ ∈ (0, 1); D > 0 the diameter of X.  Raises ValueError /
    TypeError naming the parameter."""
    I, m = _phases(n)
    d = check_positive_int(d, "d")
    eps = _unit_interval(epsilon, "epsilon")
    dl = _unit_interval(delta, "delta")
    if not isinstance(moments, MomentBounds):
        raise TypeError(f"moments must be a MomentBounds, got {type(moments).__name__}")
    D = check_positive(D, "D")
    k, G_2, G_k = moments.k, moments.G_2, moments.G_k
    L15 = math.log(15.0 * m / dl)
    A = 14400.0 * d * L15**2 / (m * eps**2)
    eta_1 = math.sqrt(4.0 / m) * D / G_2
    eta_2 = D * I / (G_k * m) * (m / A) ** ((k - 1.0) / (2.0 * k))
    eta = min(eta_1, eta_2)
    C = (2.0 if printed else 2.0 ** (1.0 + 1.0 / k)) * (G_k**k * D * I / (A * eta)) ** (1.0 / (k + 1.0))
    c = 240.0 * math.sqrt(d) * L15 / eps
    omega = 18.0 / eps * math.sqrt(2.0 * c * math.log(15.0 / dl))
    beta_max = eps**1.5 / (24000.0 * eta * math.sqrt(d) * math.log(30.0 * m / dl) ** 2)
    return Theorem3Parameters(n_used=m, I=I, A=A, eta_1=eta_1, eta_2=eta_2, eta=eta, C=C, c=c, omega=omega,
                              beta_max=beta_max, printed_C=bool(printed))


def _check_common(C: Any, c: Any, omega: Any, eta: Any, beta: Any, n: Any, epsilon: Any,
                  delta: Any) -> tuple[float, float, float, float, float, int, int, float, float]:
    C = check_positive(C, "C")
    c = check_positive(c, "c")
    omega = check_positive(omega, "omega")
    eta = check_positive(eta, "eta")
    beta = check_positive(beta, "beta", allow_zero=True)
    I, m = _phases(n)
    return C, c, omega, eta, beta, I, m, _unit_interval(epsilon, "epsilon"), _unit_interval(delta, "delta")


def lemma_12_conditions(C: float, c: float, omega: float, eta: float, beta: float, n: int, epsilon: float,
                        delta: float) -> dict[str, dict[str, Any]]:
    """Lemma 12's privacy conditions, each as {"lhs", "rhs", "holds"} (lhs ≥ rhs required; the per-phase ones
    at the phase where they are tightest, i = 1, and checked at every phase):
        "C >= 8 omega_i log(30 n_i/delta)"        (ω_i = 6ωCη_iβ; with β = 0, ω_i = 0 and it holds)
        "c >= (6/epsilon) log(12/delta)"
        "omega >= (18/epsilon) sqrt(2 c log(15/delta))"
        "1 >= 192 eta_i beta c"
    The arguments are Algorithm 7's (n = the dataset size, rounded to 2^I here).  ValueError / TypeError name a
    malformed argument (ε, δ must lie in (0, 1))."""
    C, c, omega, eta, beta, I, m, eps, dl = _check_common(C, c, omega, eta, beta, n, epsilon, delta)
    env = max(8.0 * (6.0 * omega * C * eta / 4**i * beta) * math.log(30.0 * (m >> i) / dl) for i in range(1, I + 1))
    step = max(192.0 * eta / 4**i * beta * c for i in range(1, I + 1))
    rows = {
        "C >= 8 omega_i log(30 n_i/delta)": (C, env),
        "c >= (6/epsilon) log(12/delta)": (c, 6.0 / eps * math.log(12.0 / dl)),
        "omega >= (18/epsilon) sqrt(2 c log(15/delta))": (omega, 18.0 / eps * math.sqrt(2.0 * c * math.log(15.0 / dl))),
        "1 >= 192 eta_i beta c": (1.0, step),
    }
    # equality is allowed up to rounding (Theorem 3 sets ω, and C when η = η_2, at the bound itself)
    return {k: {"lhs": lhs, "rhs": rhs, "holds": bool(lhs >= rhs * (1.0 - _RTOL))} for k, (lhs, rhs) in rows.items()}


def check_lemma_12(C: float, c: float, omega: float, eta: float, beta: float, n: int, epsilon: float,
                   delta: float) -> dict[str, dict[str, Any]]:
    """:func:`lemma_12_conditions`, raising ValueError naming every failed condition (Algorithm 7 runs this
    before reading any record).  Returns the conditions when all hold."""
    rows = lemma_12_conditions(C, c, omega, eta, beta, n, epsilon, delta)
    failed = [f"{k} (lhs {r['lhs']:.6g}, rhs {r['rhs']:.6g})" for k, r in rows.items() if not r["holds"]]
    if failed:
        raise ValueError("Lemma 12's privacy conditions fail (Asi, Liu & Tian 2024): " + "; ".join(failed))
    return rows


def lemma_13_conditions(C: float, c: float, omega: float, eta: float, beta: float, n: int, epsilon: float,
                        delta: float, moments: MomentBounds) -> dict[str, dict[str, Any]]:
    """Lemma 13's utility conditions (no ⊥ with probability ≥ 1 − 1/n² per phase under D ~ P^n), lhs ≥ rhs:
        "C >= 8 omega_i log(30 n_i/delta)" and "c/4 >= max(n (2 G_k/C)^k, 6 log n)"  (n = 2^I)."""
    C, c, omega, eta, beta, I, m, eps, dl = _check_common(C, c, omega, eta, beta, n, epsilon, delta)
    if not isinstance(moments, MomentBounds):
        raise TypeError(f"moments must be a MomentBounds, got {type(moments).__name__}")
    rows = lemma_12_conditions(C, c, omega, eta, beta, n, epsilon, delta)
    first = "C >= 8 omega_i log(30 n_i/delta)"
    rhs = max(m * (2.0 * moments.G_k / C) ** moments.k, 6.0 * math.log(m))
    out = {first: rows[first], "c/4 >= max(n (2 G_k/C)^k, 6 log n)": {"lhs": c / 4.0, "rhs": rhs,
                                                                      "holds": bool(c / 4.0 >= rhs * (1 - _RTOL))}}
    return out


def theorem_3_proof_bound(n: int, d: int, epsilon: float, delta: float, moments: MomentBounds, D: float,
                          C: float, eta: float) -> float:
    """The proof of Theorem 3's bound before the choice of C (its first display, Lemma 13 summed over the phases
    with x ← x_i, the noise ζ_{i−1} in the distance term and G_2σ_I√d for the last noise):
        E[F_P(Π_X(x_I)) − F_P(x*)] ≤ 4D²/(ηn) + ηG_2²/2 + G_k^k D I/(C/2)^{k−1} + G_2D/√n + G_2σ_I√d
                                      + Σ_{i=1}^{I−1} (3600 C² d η_i log(3/δ)/(n_i ε²) + η_i G_2²/2),
    n ← 2^I, η_i = η/4^i, n_i = n/2^i, σ_I = 30Cη_I√(log(3/δ))/ε; valid for any η, C under Lemma 13's conditions
    (:func:`lemma_13_conditions`; the caller checks them).  Projections only shrink the distances (X convex)."""
    I, m = _phases(n)
    d = check_positive_int(d, "d")
    eps, dl = _unit_interval(epsilon, "epsilon"), _unit_interval(delta, "delta")
    if not isinstance(moments, MomentBounds):
        raise TypeError(f"moments must be a MomentBounds, got {type(moments).__name__}")
    D, C, eta = check_positive(D, "D"), check_positive(C, "C"), check_positive(eta, "eta")
    k, G_2, G_k = moments.k, moments.G_2, moments.G_k
    L3 = math.log(3.0 / dl)
    sigma_I = 30.0 * C * eta / 4.0**I * math.sqrt(L3) / eps
    total = (4.0 * D**2 / (eta * m) + eta * G_2**2 / 2.0 + G_k**k * D * I / (C / 2.0) ** (k - 1)
             + G_2 * D / math.sqrt(m) + G_2 * sigma_I * math.sqrt(d))
    for i in range(1, I):
        eta_i, n_i = eta / 4.0**i, m >> i
        total += 3600.0 * C**2 * d * eta_i * L3 / (n_i * eps**2) + eta_i * G_2**2 / 2.0
    return float(total)


# ---- the algorithm ------------------------------------------------------------------------------------------


@dataclass
class LocalizedRelease(Release):
    """A :class:`~dpsco.reference.Release` of Algorithm 7 that may be ⊥.

    halted : bool             True iff the algorithm output ⊥ (Lines 20–21); ``output`` is then a (d,) array of
                              NaN (no point was released).
    The released outcome is (⊥ or the point): ``halted`` and ``output``, nothing else.  Which phase halted and
    how many gradients were computed are data-dependent and not part of the paper's release: they are kept in
    ``nonprivate_internals`` ("halted_phase", "gradient_evaluations_performed") and never published.  Use
    :func:`audit_outcome` for a numeric encoding of the whole published record."""

    halted: bool = False

    def to_dict(self, include_trajectory: bool = False, include_diagnostics: bool = False) -> dict[str, Any]:
        """:meth:`Release.to_dict` (``include_diagnostics=True`` raises ValueError: diagnostics are never
        published) with the outcome's ⊥ marker "halted"; a ⊥ output is null."""
        d = super().to_dict(include_trajectory, include_diagnostics)
        d["halted"] = bool(self.halted)
        if self.halted:
            d["output"] = None
        return d

    def to_verification_record(self, include_trajectory: bool = False,
                               include_diagnostics: bool = False) -> dict[str, Any]:
        """:meth:`Release.to_verification_record` with the ⊥ marker "halted" (not a private release)."""
        d = super().to_verification_record(include_trajectory, include_diagnostics)
        d["halted"] = bool(self.halted)
        return d


def audit_outcome(release: LocalizedRelease) -> np.ndarray:
    """The whole published record as a (d + 2,) float vector for auditors: [⊥, x, g] with ⊥ = 1 and x = 0 on ⊥
    (⊥ = 0 and the point x otherwise) and g = the published ``gradient_evaluations``.  Read from
    ``release.to_dict()``, so an audit of this vector audits ⊥, the point and the published count together; the
    remaining published fields (algorithm, claim, parameters) are functions of public inputs (checked for every
    entry by tests/test_privacy_contract.py), hence the same on neighbouring datasets."""
    if not isinstance(release, LocalizedRelease):
        raise TypeError(f"release must be a LocalizedRelease, got {type(release).__name__}")
    record = release.to_dict()
    d = int(np.size(release.output))
    x = np.zeros(d) if record["halted"] else np.asarray(record["output"], dtype=np.float64).reshape(d)
    return np.concatenate([[1.0 if record["halted"] else 0.0], x, [float(record["gradient_evaluations"])]])


def _check_loss_beta(loss: Any, beta: float, radius: float) -> None:
    if not isinstance(loss, HeavyTailedLoss):
        raise TypeError(f"loss must be a HeavyTailedLoss, got {type(loss).__name__}")
    declared = loss.smoothness(radius)
    if declared is None:
        raise ValueError(f"beta: the loss {loss.name} is not uniformly smooth; Algorithm 7's privacy (Lemmas 11, "
                         "12) needs every f(·; s) beta-smooth")
    if declared > beta * (1.0 + 1e-12):
        raise ValueError(f"beta = {beta} is below the loss's smoothness {declared} (Lemma 11 needs every f(·; s) "
                         "beta-smooth)")


def localized_clipped_dp_sgd(S: Any, loss: HeavyTailedLoss, x0: Any, *, eta: float, C: float, c: float,
                             omega: float, beta: float, epsilon: float, delta: float, radius: float,
                             rng: np.random.Generator, record_index: RecordIndex = "disjoint",
                             project: bool = True, trace: bool = False) -> LocalizedRelease:
    """Algorithm 7, Localized-Clipped-DP-SGD (Asi, Liu & Tian 2024, Section 5.2), on X = B(0, ``radius``).

    S : (n, p) records, n ≥ 2 (the first 2^⌊log₂ n⌋ are used);  loss : HeavyTailedLoss whose declared
    ``smoothness(radius)`` is ≤ ``beta`` (and, if it has ``record_smoothness(S, radius)``, every record's ≤ β);
    x0 : (d,) in X;  η, C, c, ω > 0;  β ≥ 0 (β = 0 gives ω_i = 0: Ĉ = C and ν = 0 exactly);  ε, δ ∈ (0, 1);
    radius > 0;  rng : numpy Generator (the only randomness);  record_index : "disjoint" (default) or "printed"
    (Line 8 as printed: overlapping phases, NOT private, kept for the erratum's evidence);  project : start
    each phase at Π_X(x_{i−1}) and return Π_X(x_I) (default) or follow the printed iterates;  trace : keep the
    iterates, clip indicators and noisy thresholds of every phase in ``nonprivate_internals["phases"]``.

    :func:`check_lemma_12` runs first, on the public inputs only (S's shape, never its values), then the loss's
    smoothness against β and the records (finite, within the loss's declared range) — all before any noise is
    drawn; after them every run returns ⊥ or a finite point.  Returns a :class:`LocalizedRelease`: output (d,) =
    Π_X(x_I), or ⊥ (``halted``); claim (ε, δ)-DP replace-one (Lemma 12 / Theorem 3); gradient_evaluations =
    2^I − 1, the schedule's count (public; the count performed, fewer on ⊥, and the halting phase are in
    ``nonprivate_internals``, never published); parameters (public: every phase's n_i, η_i, ω_i, τ_i, σ_i and
    records, for all I phases); diagnostics (clip counts per phase, data-dependent, not covered by the claim).
    Raises ValueError / TypeError naming the parameter or the failed Lemma 12 condition."""
    rng = check_rng(rng)
    shape = np.shape(S)
    if len(shape) != 2:
        raise ValueError(f"S must be an (n, p) array of records, got shape {shape}")
    lemma12 = check_lemma_12(C, c, omega, eta, beta, shape[0], epsilon, delta)  # Lemma 12, before any record
    C, c, omega, eta, beta = (float(v) for v in (C, c, omega, eta, beta))
    eps, dl = float(epsilon), float(delta)
    radius = check_positive(radius, "radius")
    if not isinstance(project, bool) or not isinstance(trace, bool):
        raise TypeError("project and trace must be bools")
    ranges = phase_record_ranges(shape[0], record_index)
    _check_loss_beta(loss, beta, radius)
    S, d = check_records(S, loss)
    x0 = as_float_vector(x0, "x0", d)
    if float(np.linalg.norm(x0)) > radius * (1.0 + 1e-12):
        raise ValueError(f"x0 must lie in X = B(0, {radius}) (Algorithm 7, Line 1: x_0 ∈ X)")
    record_beta = getattr(loss, "record_smoothness", None)
    if record_beta is not None and np.any(np.asarray(record_beta(S, radius)) > beta * (1.0 + 1e-12)):
        raise ValueError(f"beta: a record's smoothness exceeds the declared beta = {beta}")

    zero = np.zeros(d)

    def proj(y: np.ndarray) -> np.ndarray:
        return project_ball(y, zero, radius)

    I = len(ranges)
    phases = phase_parameters(eta, C, omega, beta, eps, dl, ranges)      # public, all I phases, before any noise
    counts, phase_trace = [], []
    grads = 0
    x_prev = x0.copy()
    for i, (start, stop) in enumerate(ranges, start=1):
        ph = phases[i - 1]
        n_i, eta_i, omega_i, tau_i, sigma_i = ph["n_i"], ph["eta_i"], ph["omega_i"], ph["tau_i"], ph["sigma_i"]
        C_hat = C + sample_bounded_laplace(omega_i, tau_i, rng)            # Line 5
        c_hat = c + sample_bounded_laplace(3.0 / eps, c / 2.0, rng)        # Line 5 (BLap(3/ε, c/2))
        # ν_{i,j} (Line 9) is fresh at every step and Ĉ's re-draws (Line 13) are i.i.d.: drawn in advance, same law
        nus = sample_bounded_laplace(2.0 * omega_i, 2.0 * tau_i, rng, size=n_i)
        redraws = sample_bounded_laplace(omega_i, tau_i, rng, size=n_i)
        x = proj(x_prev) if project else x_prev.copy()        # Line 6 (projected: post-processing)
        total = np.zeros(d)
        count = 0
        tr = {"iterates": [x.copy()], "clipped": [], "C_hat": [C_hat], "nu": nus, "c_hat": c_hat} if trace else None
        for j in range(n_i):
            total += x
            s = S[start + j:start + j + 1]                      # Line 8: the (Σ_{i'<i} n_{i'} + j)-th record
            g = loss.grads(x, s)[0]
            grads += 1
            norm = vector_norm(g)                               # overflow-safe; NaN (overflow) counts as inf
            norm = math.inf if math.isnan(norm) else norm
            clipped = norm + float(nus[j]) >= C_hat             # Line 10
            if clipped:
                count += 1                                      # Line 11
                if norm > C:
                    g = loss.clipped_grads_at(x[None, :], s, C)[0, 0]   # Line 12: Π_C, ‖·‖ ≤ C exactly
                C_hat = C + float(redraws[count - 1])           # Line 13
            if not vector_norm(g) <= C + 3.0 * tau_i:          # fail-safe: ‖g‖ < Ĉ − ν ≤ C + 3τ_i always holds
                g = enforce_norm_bound(g[None, :], C + 3.0 * tau_i)[0]
            if tr is not None:
                tr["clipped"].append(bool(clipped))
                tr["C_hat"].append(C_hat)
            if count >= c_hat:                                  # Lines 20–21: ⊥ halts everything
                counts.append(count)
                if tr is not None:
                    phase_trace.append(tr)
                return _release(np.full(d, np.nan), True, i, eps, dl, C, c, omega, eta, beta, radius, I, ranges,
                                phases, lemma12, grads, counts, phase_trace, record_index, project)
            x = proj(x - eta_i * g)                             # Line 24
            if tr is not None:
                tr["iterates"].append(x.copy())
        counts.append(count)
        xbar = total / n_i                                      # Line 27: mean of x_{i,1..n_i}
        x_prev = xbar + sigma_i * rng.standard_normal(d)        # Line 28
        if tr is not None:
            tr["xbar"] = xbar
            tr["release"] = x_prev.copy()  # the phase's noisy output (what a white-box adversary sees)
            phase_trace.append(tr)
    out = proj(x_prev) if project else x_prev
    return _release(out, False, None, eps, dl, C, c, omega, eta, beta, radius, I, ranges, phases, lemma12, grads,
                    counts, phase_trace, record_index, project)


def _release(output: np.ndarray, halted: bool, phase: int | None, eps: float, dl: float, C: float, c: float,
             omega: float, eta: float, beta: float, radius: float, I: int, ranges: list[tuple[int, int]],
             phases: list[dict[str, Any]], lemma12: dict[str, Any], grads: int, counts: list[int],
             phase_trace: list[dict[str, Any]], record_index: str, project: bool) -> LocalizedRelease:
    conditions: tuple[str, ...] = ()
    if record_index != "disjoint":
        conditions = ("record_index='printed': phases overlap (Line 8 as printed); Lemma 12's parallel "
                      "composition does not apply and the claim is NOT supported",)
    # an override that voids the theorem voids the claim: notion "none", as every such override in the project
    # (independent review: the printed indexing used to keep an approx-DP label at the nominal (ε, δ), while a
    # record read in all I phases is only (Iε, Iδ)-DP by composition)
    notion = "approx-DP" if record_index == "disjoint" else "none"
    claim = PrivacyClaim(notion=notion, epsilon=eps, delta=dl, neighbouring="replace-one", source=SOURCE,
                         assumptions={"beta_smooth_every_record": beta, "C": C, "c": c, "omega": omega, "eta": eta,
                                      "radius": radius, "lemma_12": lemma12,
                                      "outcome": "a point of X or ⊥ (halted); ⊥ is an outcome, never retried"},
                         conditions=conditions)
    params = {"I": I, "n_used": 1 << I, "eta": eta, "C": C, "c": c, "omega": omega, "beta": beta,
              "epsilon": eps, "delta": dl, "radius": radius, "record_index": record_index, "project": project,
              "phases": phases}
    diag = {"clip_counts": counts}
    internals: dict[str, Any] = {"gradient_evaluations_performed": grads, "halted_phase": phase}
    if phase_trace:
        internals["phases"] = phase_trace
    return LocalizedRelease(output=output, claim=claim, gradient_evaluations=schedule_gradient_count(ranges),
                            parameters=params, algorithm=ALG7, diagnostics=diag, nonprivate_internals=internals,
                            halted=halted)


def phase_parameters(eta: float, C: float, omega: float, beta: float, epsilon: float, delta: float,
                     ranges: list[tuple[int, int]]) -> list[dict[str, Any]]:
    """Every phase's public parameters (Algorithm 7, Lines 4, 5 and 28), for all I phases of ``ranges``:
    η_i = η/4^i, ω_i = 6ωCη_iβ, τ_i = ω_i log(30n_i/δ), σ_i = 30Cη_i√(log(3/δ))/ε, the records [start, stop) and
    n_i.  Functions of public inputs only (published whether or not the run halts)."""
    out = []
    for i, (start, stop) in enumerate(ranges, start=1):
        n_i = stop - start
        eta_i = eta / 4.0**i                                   # Line 4
        omega_i = omega * 6.0 * C * eta_i * beta
        tau_i = omega_i * math.log(30.0 * n_i / delta)
        sigma_i = 30.0 * C * eta_i * math.sqrt(math.log(3.0 / delta)) / epsilon   # Line 28
        out.append({"phase": i, "records": [start, stop], "n_i": n_i, "eta_i": eta_i, "omega_i": omega_i,
                    "tau_i": tau_i, "sigma_i": sigma_i})
    return out


def schedule_gradient_count(ranges: list[tuple[int, int]]) -> int:
    """The per-sample gradients Algorithm 7's schedule prescribes: one per record of every phase, Σ_i n_i (= 2^I − 1
    for the disjoint phases), whether or not the run halts (the published ``gradient_evaluations``)."""
    return int(sum(stop - start for start, stop in ranges))
