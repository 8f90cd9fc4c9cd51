"""Population-level localization of Asi, Liu & Tian (2024), Section 3: Algorithm 2 (Population-Localize),
Algorithm 3 (Aggregate-ERM), the Theorem 1 pipeline (HT-SCO: Algorithm 2 with Algorithm 3 in its line 4), the
Corollary 3 wrapper for μ-strongly convex losses, and the non-private high-probability procedure of Appendix A
(Theorem 5, with a Lemma 15 solver).

Privacy (Theorem 1's proof): every call of the Corollary 2 solver runs on its own block D_i^j of records; the
I·J blocks are pairwise disjoint, so a replaced record enters exactly one call, whose ρ-zCDP guarantee (full ρ,
not ρ/(IJ)) covers it; later phases see earlier ones only through x_{i−1}, Aggregate is post-processing, and
adaptive composition of the other calls (0-zCDP on that pair) gives ρ in total.  ``ht_sco`` asserts the
disjointness of the blocks it uses before touching any record.  R_i, J, I, Δ, λ are public functions of
(n, d, ρ, δ, G_j, D) only.

Utility constants: Theorem 1 needs an explicit C_reg-pop (Corollary 2's constant) to set Δ and the Aggregate
radii; we use the derived C_rp = 46 (docs/derivations.md#constants-of-corollaries-1-and-2-of-asi-liu-and-tian).
J = ⌈400 log(I/δ)⌉ blocks per phase is what the proof's Chernoff bound needs and is impractical (J ≈ 2,800 at
δ = 0.01); ``J_scale`` multiplies it.  A run with
``J_scale`` ≠ 1 or ``C_rp`` ≠ 46 is a *utility* deviation (privacy does not depend on J, C_rp or R_i) and is
recorded as such in ``Release.parameters["deviations"]``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from dpsco.reference.alt24.algorithms_clipped_sgd import corollary_2_solver, zcdp_epsilon
from dpsco.reference.alt24.model import HeavyTailedLoss, MomentBounds, check_records
from dpsco.reference.alt24.primitives import aggregate, project_ball
from dpsco.reference.privacy import PrivacyClaim, Release
from dpsco.reference.validation import (as_float_vector, check_delta, check_positive, check_positive_int,
                                        check_rng)

__all__ = ["C_RP_DERIVED", "Theorem1Parameters", "Theorem5Parameters", "aggregate_erm", "corollary_3_epochs",
           "corollary_3_radius", "enclosing_ball_of_intersection", "highprob_sco", "ht_sco", "lemma_15_solver",
           "population_localize", "proposition_2_schedule", "sc_sco", "theorem_1_blocks", "theorem_1_parameters",
           "theorem_1_J", "theorem_1_claim", "theorem_1_gradient_count", "theorem_5_parameters"]

#: Corollary 2's universal constant as derived (Corollary 1's √640 on the G_k term, 16.7 + √800 on the G_2 term)
C_RP_DERIVED = 46.0


def _check_loss(loss: Any) -> HeavyTailedLoss:
    if not isinstance(loss, HeavyTailedLoss):
        raise TypeError(f"loss must be a HeavyTailedLoss, got {type(loss).__name__}")
    return loss


def _check_moments(moments: Any) -> MomentBounds:
    if not isinstance(moments, MomentBounds):
        raise TypeError(f"moments must be a MomentBounds, got {type(moments).__name__}")
    return moments


def _check_probability(p: Any, name: str) -> float:
    p = check_positive(p, name)
    if p >= 1.0:
        raise ValueError(f"{name} must be in (0, 1), got {p}")
    return p


# ---- Algorithm 2 -------------------------------------------------------------------------------------------

def proposition_2_schedule(lam: float, I: int, Delta: float) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 2's schedule: λ_i = λ·32^i and the accuracies Δ4^i/λ_i of line 4, i = 1..I.
    lam, Delta > 0;  I ≥ 1.  Returns two (I,) arrays."""
    lam = check_positive(lam, "lam")
    Delta = check_positive(Delta, "Delta")
    I = check_positive_int(I, "I")
    i = np.arange(1, I + 1, dtype=np.float64)
    lam_i = lam * 32.0 ** i
    return lam_i, Delta * 4.0 ** i / lam_i


def population_localize(x0: Any, lam: float, I: int, Delta: float,
                        solve: Callable[[int, np.ndarray, float, float], np.ndarray]) -> tuple[np.ndarray, list]:
    """Algorithm 2 (Population-Localize(x_0, P, λ, I)) with Δ an explicit input (the printed signature omits it).

    solve(i, x_{i−1}, λ_i, Δ4^i/λ_i) must return a point x_i with ‖x_i − x*_i‖ ≤ Δ4^i/λ_i, where
    x*_i = argmin_X F_P(x) + (λ_i/2)‖x − x_{i−1}‖² (line 4, (8)).  Returns (x_I, [x_0, …, x_I]).
    Proposition 2 (as corrected, ``dpsco.reference.alt24.theorems``) then bounds F_P(x_I) − F_P(x*)."""
    x = as_float_vector(x0, "x0")
    lam_i, acc = proposition_2_schedule(lam, I, Delta)
    path = [x.copy()]
    for i in range(1, int(I) + 1):
        x = np.asarray(solve(i, x, float(lam_i[i - 1]), float(acc[i - 1])), dtype=np.float64)  # line 4
        path.append(x.copy())
    return x, path


# ---- Algorithm 3 -------------------------------------------------------------------------------------------

def _claim(rho: float, delta: float, source: str, assumptions: dict[str, Any]) -> PrivacyClaim:
    """ρ-zCDP under replace-one; event: the one Corollary 2 call that holds the replaced record, a composition
    of Gaussians with total μ = √(2ρ) — the same privacy curve as one replace-one Gaussian of noise multiplier
    √(2/ρ) (dp_accounting's replace-one sensitivity is 2 in noise-multiplier units)."""
    from dp_accounting import dp_event

    if delta == 0.0:  # ε = ∞ at δ = 0 (conversions.zcdp_epsilon): no finite (ε, δ) statement exists
        raise ValueError(f"delta must be in (0, 1) for a zCDP claim stated as (epsilon, delta), got {delta!r}")
    return PrivacyClaim(notion="zCDP", epsilon=zcdp_epsilon(rho, delta), delta=delta, neighbouring="replace-one",
                        source=source, assumptions=assumptions, rho=rho,
                        event=dp_event.GaussianDpEvent(math.sqrt(2.0 / rho)), event_neighbouring="REPLACE_ONE")


def aggregate_erm(S: Any, loss: HeavyTailedLoss, *, x_bar: Any, lam: float, J: int, rho: float, R: float,
                  moments: MomentBounds, domain_radius: float, rng: np.random.Generator, domain_center: Any = None,
                  delta: float = 1e-6, white_box: bool = False, replicates: int | None = None) -> Release:
    """Algorithm 3 (Aggregate-ERM(x̄, λ, J, ρ, {s_ℓ}_{ℓ∈[nJ]}, R)) of Asi, Liu & Tian (2024).

    S : (nJ, p) records; block j is rows (j−1)n..jn−1 (line 3; disjoint).  Each block runs the Corollary 2
    solver with the full ρ (line 4; parallel composition), and the output is Aggregate({x^j}, R) (line 7,
    Fact 2), R > 0 data-independent.  X = B(domain_center, domain_radius); x_bar ∈ X ((R, d) rows with
    ``replicates``).  J ≥ 1 must divide the number of records.

    Returns a Release: ρ-zCDP, replace-one; gradient_evaluations = J·n·T (per run); ``white_box`` gives the
    tuple of the J blocks' noisy-gradient traces (block j's trace audits a record placed in block j).
    Raises ValueError / TypeError naming the parameter."""
    S, d = check_records(S, _check_loss(loss))
    J = check_positive_int(J, "J")
    if S.shape[0] % J:
        raise ValueError(f"S has {S.shape[0]} records: J = {J} blocks of n records need a multiple of J")
    R = check_positive(R, "R")
    rng = check_rng(rng)
    n = S.shape[0] // J
    outs, traces, count, last = [], [], 0, None
    for j in range(J):
        rel = corollary_2_solver(S[j * n:(j + 1) * n], loss, x_bar=x_bar, lam=lam, rho=rho, moments=moments,
                                 domain_radius=domain_radius, domain_center=domain_center, rng=rng, delta=delta,
                                 white_box=white_box, replicates=replicates)  # line 4, block D^j
        outs.append(np.atleast_2d(rel.output))
        traces.append(rel.white_box)
        count += rel.gradient_evaluations
        last = rel
    pts = np.stack(outs, axis=1)  # (R, J, d)
    picked = np.stack([aggregate(pts[r], R)[1] for r in range(pts.shape[0])])  # line 7
    assert last is not None
    params = {"n_per_block": n, "J": J, "R": R, "lam": float(lam), "rho": float(rho),
              "T": last.parameters["T"], "C": last.parameters["C"], "sigma": last.parameters["sigma"],
              "radius_r": last.parameters["radius_r"]}
    claim = _claim(float(rho), check_delta(delta), "Asi, Liu & Tian (2024), Algorithm 3 (Corollary 2 on disjoint "
                   "blocks with the full ρ each: parallel composition; Aggregate is post-processing)",
                   {"blocks": J, "block_size": n, "disjoint_blocks": True, "per_block": last.claim.to_dict()})
    return Release(output=picked[0] if replicates is None else picked, claim=claim, gradient_evaluations=count,
                   parameters=params, algorithm="Aggregate-ERM (Asi, Liu & Tian 2024, Algorithm 3)",
                   replicates=replicates, white_box=tuple(traces) if white_box else None)


# ---- Theorem 1 (HT-SCO) ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Theorem1Parameters:
    """Theorem 1's public parameters (regime of large 1/δ, Theorem 1's proof).

    J = ⌈400·J_scale·log(max(I, 2)/δ)⌉, I = the largest I ≥ 1 with 2^I·J(I) ≤ n (a monotone search that
    satisfies I = ⌊log₂(n/J)⌋ up to the power-of-2 rounding the proof allows), m = 2^I, m_i = m/2^i,
    Δ = 3C_rp(G_k(√d/(m√ρ))^{1−1/k} + G_2/√m), λ = Δ/D, λ_i = 32^iλ, R_i = Δ4^i/λ_i.  I = 0 ("trivial": no
    I ≥ 1 fits, n too small for log(1/δ)) means the output is x_0."""

    n: int
    d: int
    rho: float
    delta_fail: float
    diameter: float
    I: int
    J: int
    m: int
    m_i: tuple[int, ...]
    Delta: float
    lam: float
    lam_i: tuple[float, ...]
    R_i: tuple[float, ...]
    J_scale: float = 1.0
    C_rp: float = C_RP_DERIVED
    deviations: tuple[str, ...] = field(default_factory=tuple)

    @property
    def trivial(self) -> bool:
        return self.I == 0

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "d": self.d, "rho": self.rho, "delta_fail": self.delta_fail, "D": self.diameter,
                "I": self.I, "J": self.J, "m": self.m, "m_i": list(self.m_i), "Delta": self.Delta, "lam": self.lam,
                "lam_i": list(self.lam_i), "R_i": list(self.R_i), "J_scale": self.J_scale, "C_rp": self.C_rp,
                "deviations": list(self.deviations)}


def theorem_1_J(I: int, delta_fail: float, J_scale: float = 1.0) -> int:
    """J(I) = ⌈400·J_scale·log(max(I, 2)/δ)⌉ ≥ 1 (Theorem 1's proof takes J ∈ [400 log(I/δ), 500 log(I/δ)])."""
    return max(1, int(math.ceil(400.0 * J_scale * math.log(max(int(I), 2) / delta_fail))))


def theorem_1_parameters(n: int, d: int, rho: float, moments: MomentBounds, delta_fail: float, diameter: float, *,
                         J_scale: float = 1.0, C_rp: float = C_RP_DERIVED) -> Theorem1Parameters:
    """Theorem 1's parameters of Asi, Liu & Tian (2024) (see :class:`Theorem1Parameters`).

    n, d ≥ 1;  rho > 0;  delta_fail ∈ (0, 1) (the failure probability, not a DP δ);  diameter D > 0;
    J_scale > 0 and C_rp > 0 (utility knobs: values other than 1 and 46 are recorded as deviations).
    Raises ValueError / TypeError naming the parameter."""
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    rho = check_positive(rho, "rho")
    m_b = _check_moments(moments)
    delta_fail = _check_probability(delta_fail, "delta_fail")
    D = check_positive(diameter, "diameter")
    J_scale = check_positive(J_scale, "J_scale")
    C_rp = check_positive(C_rp, "C_rp")
    dev = []
    if J_scale != 1.0:
        dev.append(f"J_scale = {J_scale:g}: J = ⌈{400 * J_scale:g}·log(I/δ)⌉ instead of 400·log(I/δ) (utility only)")
    if C_rp != C_RP_DERIVED:
        dev.append(f"C_rp = {C_rp:g} instead of the derived {C_RP_DERIVED:g} (utility only: Δ and R_i)")
    I = 0
    while 2 ** (I + 1) * theorem_1_J(I + 1, delta_fail, J_scale) <= n:
        I += 1
    if I == 0:
        return Theorem1Parameters(n, d, rho, delta_fail, D, 0, theorem_1_J(1, delta_fail, J_scale), 0, (), 0.0, 0.0,
                                  (), (), J_scale, C_rp, tuple(dev) + ("trivial regime: n < 2·J(1); output x_0",))
    J = theorem_1_J(I, delta_fail, J_scale)
    m = 2 ** I
    k = m_b.k
    Delta = 3.0 * C_rp * (m_b.G_k * (math.sqrt(d) / (m * math.sqrt(rho))) ** (1.0 - 1.0 / k)
                          + m_b.G_2 / math.sqrt(m))
    lam = Delta / D
    lam_i, R_i = proposition_2_schedule(lam, I, Delta)
    return Theorem1Parameters(n, d, rho, delta_fail, D, I, J, m, tuple(m // 2 ** i for i in range(1, I + 1)), Delta,
                              lam, tuple(float(v) for v in lam_i), tuple(float(v) for v in R_i), J_scale, C_rp,
                              tuple(dev))


def theorem_1_blocks(params: Theorem1Parameters) -> list[tuple[int, int, int, int]]:
    """The blocks D_i^j of Theorem 1's proof as (i, j, start, stop) row ranges: portion j ∈ [J] is rows
    ((j−1)m, jm]; inside it part i takes the next m_i rows, i.e. rows (j−1)m + m − 2m_i … (j−1)m + m − m_i − 1.
    Pairwise disjoint; each portion uses m − 1 rows.  Public (depends on n, J, I only)."""
    out = []
    for j in range(1, params.J + 1):
        for i, mi in enumerate(params.m_i, start=1):
            start = (j - 1) * params.m + params.m - 2 * mi
            out.append((i, j, start, start + mi))
    return out


def _assert_disjoint(blocks: list[tuple[int, int, int, int]], n: int) -> None:
    used = np.zeros(n, dtype=np.int64)
    for _, _, a, b in blocks:
        used[a:b] += 1
    if used.max(initial=0) > 1:
        raise AssertionError("Theorem 1's blocks overlap: a record would be used twice (privacy proof void)")


def theorem_1_gradient_count(params: Theorem1Parameters) -> int:
    """Σ_i J·m_i·T_i with T_i = ⌈max(m_i, m_i²ρ/d)⌉ (the exact count of ``ht_sco``)."""
    return sum(params.J * mi * int(math.ceil(max(mi, mi * mi * params.rho / params.d))) for mi in params.m_i)


def theorem_1_claim(rho: float, delta: float, params: Theorem1Parameters | None = None) -> PrivacyClaim:
    """Theorem 1's ρ-zCDP claim (replace-one) with its event (one Corollary 2 call: μ = √(2ρ))."""
    return _claim(check_positive(rho, "rho"), check_delta(delta),
                  "Asi, Liu & Tian (2024), Theorem 1 (disjoint blocks D_i^j, full ρ per Corollary 2 call: parallel "
                  "and adaptive composition, Lemma 1)",
                  {"disjoint_blocks": True, "parameters": None if params is None else params.to_dict()})


def ht_sco(S: Any, loss: HeavyTailedLoss, *, rho: float, moments: MomentBounds, delta_fail: float,
           domain_radius: float, rng: np.random.Generator, domain_center: Any = None, x0: Any = None,
           J_scale: float = 1.0, C_rp: float = C_RP_DERIVED, delta: float = 1e-6,
           replicates: int | None = None, white_box: bool = False) -> Release:
    """HT-SCO: Algorithm 2 with Algorithm 3 in its line 4 (Asi, Liu & Tian 2024, Theorem 1; the theorem's text
    says "Line 2").

    S : (n, p) records;  X = B(domain_center, domain_radius) (D = 2·domain_radius);  x0 ∈ X (default the
    centre);  rho > 0;  delta_fail ∈ (0, 1) (failure probability);  J_scale, C_rp : utility knobs (recorded
    as deviations);  delta : δ at which the ρ-zCDP claim is stated as (ε, δ);  replicates : R independent runs.

    Phase i = 1..I: Aggregate-ERM on the J disjoint blocks D_i^j (m_i records each) with x̄ = x_{i−1}, λ_i, the
    full ρ and R_i; returns x_I ∈ X.  Records past J·m are not used (the proof discards them).
    Returns a Release: ρ-zCDP, replace-one; gradient_evaluations = Σ_i J·m_i·T_i (per run).  ``white_box``:
    ``Release.white_box`` is the tuple of ((i, j, start, stop), trace) for every Corollary 2 call in the order
    run, the trace being that call's noisy gradients (``NoisyGradientTrace``; rows start..stop−1 of S).
    Raises ValueError / TypeError naming the parameter."""
    S, d = check_records(S, _check_loss(loss))
    n = S.shape[0]
    rng = check_rng(rng)
    R_X = check_positive(domain_radius, "domain_radius")
    c = np.zeros(d) if domain_center is None else as_float_vector(domain_center, "domain_center", d)
    x = c.copy() if x0 is None else as_float_vector(x0, "x0", d)
    if float(np.linalg.norm(x - c)) > R_X * (1 + 1e-12):
        raise ValueError("x0 must lie in X = B(domain_center, domain_radius)")
    p = theorem_1_parameters(n, d, rho, moments, delta_fail, 2.0 * R_X, J_scale=J_scale, C_rp=C_rp)
    reps = None if replicates is None else check_positive_int(replicates, "replicates")
    X = np.tile(x, (1 if reps is None else reps, 1))
    blocks = theorem_1_blocks(p)
    _assert_disjoint(blocks, n)  # every record at most once: parallel composition
    count, traces = 0, []
    for i in range(1, p.I + 1):
        phase = [b for b in blocks if b[0] == i]                        # D_i^1 … D_i^J in order
        idx = np.concatenate([np.arange(a, b) for (_, _, a, b) in phase])
        rel = aggregate_erm(S[idx], loss, x_bar=X if reps is not None else X[0], lam=p.lam_i[i - 1], J=p.J, rho=rho,
                            R=p.R_i[i - 1], moments=moments, domain_radius=R_X, domain_center=c, rng=rng, delta=delta,
                            replicates=reps, white_box=white_box)
        X = np.atleast_2d(rel.output)
        count += rel.gradient_evaluations
        if white_box:
            traces.extend(zip(phase, rel.white_box))
    out = X[0] if reps is None else X
    return Release(output=out, claim=theorem_1_claim(rho, delta, p), gradient_evaluations=count,
                   parameters={**p.to_dict(), "blocks": [list(b) for b in blocks], "records_used":
                               sum(b - a for (_, _, a, b) in blocks)},
                   algorithm="HT-SCO (Asi, Liu & Tian 2024, Theorem 1: Algorithm 2 with Algorithm 3)",
                   replicates=replicates, white_box=tuple(traces) if white_box else None)


# ---- Corollary 3 (μ-strongly convex) -----------------------------------------------------------------------

def corollary_3_epochs(n: int) -> int:
    """J_e = ⌈log₂ log₂ n⌉ + 1 epochs (the localization template of Feldman, Koren & Talwar 2020, Thm 5.1),
    at least 1; n ≥ 4."""
    n = check_positive_int(n, "n")
    if n < 4:
        raise ValueError(f"n must be >= 4 for the Corollary 3 epochs, got {n}")
    return int(math.ceil(math.log2(math.log2(n)))) + 1


def corollary_3_radius(n_e: int, d: int, rho: float, moments: MomentBounds, delta_e: float, diameter: float,
                       mu: float, C_sco: float) -> float:
    """R_e = √(2E_e/μ) with E_e = C_sco(G_k D_e(√d log(1/δ')/(n'√ρ))^{1−1/k} + G_2 D_e √(log(1/δ')/n')),
    Theorem 1's bound on the epoch (so μ/2‖x_e − x*‖² ≤ E_e w.p. 1 − δ')."""
    m = _check_moments(moments)
    L = math.log(1.0 / delta_e)
    E = C_sco * (m.G_k * diameter * (math.sqrt(d) * L / (n_e * math.sqrt(rho))) ** (1.0 - 1.0 / m.k)
                 + m.G_2 * diameter * math.sqrt(L / n_e))
    return math.sqrt(2.0 * E / mu)


def enclosing_ball_of_intersection(c1: Any, r1: float, c2: Any, r2: float) -> tuple[np.ndarray, float]:
    """The smallest ball containing B(c1, r1) ∩ B(c2, r2), assumed non-empty
    (docs/derivations.md#exact-privacy-of-clipped-dp-sgds-noisy-gradients): the smaller ball when one contains the
    other; else, with a the distance from c1 to the plane where the spheres meet and h the radius of the
    meeting circle, B(c1 + a·u, h) when both caps are at most hemispheres (a ≥ 0 and ‖c2 − c1‖ − a ≥ 0),
    otherwise the ball whose cap exceeds a hemisphere (its great circle lies in the lens)."""
    c1, c2 = np.asarray(c1, dtype=np.float64), np.asarray(c2, dtype=np.float64)
    dist = float(np.linalg.norm(c2 - c1))
    if dist + r2 <= r1:
        return c2.copy(), float(r2)
    if dist + r1 <= r2:
        return c1.copy(), float(r1)
    if dist > r1 + r2:
        raise ValueError("the balls do not intersect")
    a = (dist * dist + r1 * r1 - r2 * r2) / (2.0 * dist)
    if a < 0:
        return c1.copy(), float(r1)
    if dist - a < 0:
        return c2.copy(), float(r2)
    return c1 + a * (c2 - c1) / dist, math.sqrt(max(r1 * r1 - a * a, 0.0))


def sc_sco(S: Any, loss: HeavyTailedLoss, *, rho: float, moments: MomentBounds, mu: float, delta_fail: float,
           domain_radius: float, C_sco: float, rng: np.random.Generator, domain_center: Any = None,
           J_scale: float = 1.0, C_rp: float = C_RP_DERIVED, delta: float = 1e-6, white_box: bool = False) -> Release:
    """The Corollary 3 wrapper of Asi, Liu & Tian (2024) for μ-strongly convex losses (reconstructed from the
    paper's pointer to Feldman, Koren & Talwar 2020, Sec. 5.1 / Thm 5.1 and its remark on truncating the domain).

    J_e = ⌈log₂ log₂ n⌉ + 1 epochs on disjoint consecutive batches of n' = ⌊n/J_e⌋ records, δ' = δ/J_e.  Epoch e
    runs HT-SCO on X_e (a ball) with ρ; then X_{e+1} = the smallest ball containing X ∩ B(x_e, R_e), R_e =
    √(2E_e/μ) from Theorem 1's bound E_e with the explicit constant ``C_sco`` (a too-small C_sco can cut x* out:
    utility only; x_e is first projected onto X — it can lie outside X, in X_e — so that the balls always meet).
    The domains are functions of private outputs and public inputs (post-processing); batches
    are disjoint, so the whole is ρ-zCDP (parallel composition).  The output is Π_X(x_{J_e}) (X_e can stick out
    of X; the projection is post-processing).

    mu > 0 must not exceed ``loss.strong_convexity()`` (ValueError: the declared μ is checked).
    Published: the output, the claim and public parameters (the epochs' record ranges, I and J); the epoch
    domains, radii and outputs (private values: post-processing of earlier epochs) are kept in
    ``nonprivate_internals["epoch_log"]``, never published.  ``white_box``: ``Release.white_box`` holds
    ((i, j, start, stop), trace) for every Corollary 2 call of every epoch, rows in S's indexing (as ``ht_sco``).
    Raises ValueError / TypeError naming the parameter."""
    S, d = check_records(S, _check_loss(loss))
    n = S.shape[0]
    mu = check_positive(mu, "mu")
    if loss.strong_convexity() < mu * (1 - 1e-12):
        raise ValueError(f"mu = {mu} exceeds the loss's strong convexity {loss.strong_convexity()}: Corollary 3 "
                         "needs every f(·; s) μ-strongly convex")
    C_sco = check_positive(C_sco, "C_sco")
    delta_fail = _check_probability(delta_fail, "delta_fail")
    rho = check_positive(rho, "rho")
    R0 = check_positive(domain_radius, "domain_radius")
    c0 = np.zeros(d) if domain_center is None else as_float_vector(domain_center, "domain_center", d)
    rng = check_rng(rng)
    Je = corollary_3_epochs(n)
    n_e = n // Je
    delta_e = delta_fail / Je
    center, radius = c0.copy(), R0
    x = c0.copy()
    count, epochs, public, traces = 0, [], [], []
    for e in range(Je):
        rel = ht_sco(S[e * n_e:(e + 1) * n_e], loss, rho=rho, moments=moments, delta_fail=delta_e,
                     domain_radius=radius, domain_center=center, rng=rng, J_scale=J_scale, C_rp=C_rp, delta=delta,
                     white_box=white_box)
        x = rel.output
        count += rel.gradient_evaluations
        R_e = corollary_3_radius(n_e, d, rho, moments, delta_e, 2.0 * radius, mu, C_sco)
        public.append({"epoch": e + 1, "records": [e * n_e, (e + 1) * n_e], "I": rel.parameters["I"],
                       "J": rel.parameters["J"]})       # functions of n, δ, J_scale only
        epochs.append({**public[-1], "domain_center": center.tolist(), "domain_radius": radius, "R_e": R_e,
                       "output": np.asarray(x).tolist()})
        if white_box:
            traces.extend(((i, j, e * n_e + a, e * n_e + b), tr) for (i, j, a, b), tr in rel.white_box)
        # the next domain: the smallest ball containing X ∩ B(Π_X(x_e), R_e).  x_e lies in X_e, which may stick out
        # of X; Π_X(x_e) is as close to x* ∈ X (projection is non-expansive) and makes the two balls intersect, so
        # no run can fail here on its data (post-processing of a private value)
        center, radius = enclosing_ball_of_intersection(c0, R0, c0 + project_ball(x - c0, np.zeros(d), R0), R_e)
    out = c0 + project_ball(x - c0, np.zeros(d), R0)
    claim = _claim(rho, check_delta(delta), "Asi, Liu & Tian (2024), Corollary 3 (HT-SCO epochs on disjoint "
                   "batches: parallel composition; the epoch domains are post-processing)",
                   {"epochs": Je, "batch": n_e, "disjoint_batches": True})
    return Release(output=out, claim=claim, gradient_evaluations=count,
                   parameters={"epochs": Je, "n_per_epoch": n_e, "delta_epoch": delta_e, "mu": mu, "C_sco": C_sco,
                               "J_scale": J_scale, "C_rp": C_rp, "epoch_records": public,
                               "deviations": ["epoch domains: the smallest ball containing X ∩ B(Π_X(x_e), R_e) "
                                              "(reconstructed wrapper)"]},
                   algorithm="Corollary 3 wrapper: HT-SCO epochs (Asi, Liu & Tian 2024)",
                   nonprivate_internals={"epoch_log": epochs}, white_box=tuple(traces) if white_box else None)


# ---- Appendix A (Theorem 5): non-private high-probability SCO ----------------------------------------------

@dataclass(frozen=True)
class Theorem5Parameters:
    """Appendix A's parameters (regime of large 1/δ): J = ⌈48·J_scale·log(max(I, 2)/δ)⌉ portions, I the largest
    I ≥ 1 with 2^I·J ≤ n, m = 2^I, T_i = m/2^i oracle queries per portion in phase i, Δ = max_i 90G·4^{−i}/√T_i
    (so the Aggregate radius R_i = 30G/(λ_i√T_i) satisfies 3R_i ≤ Δ4^i/λ_i, (8)), λ = Δ/D, λ_i = 32^iλ."""

    n: int
    G: float
    delta_fail: float
    diameter: float
    I: int
    J: int
    m: int
    T_i: tuple[int, ...]
    Delta: float
    lam: float
    lam_i: tuple[float, ...]
    R_i: tuple[float, ...]
    J_scale: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "G": self.G, "delta_fail": self.delta_fail, "D": self.diameter, "I": self.I,
                "J": self.J, "m": self.m, "T_i": list(self.T_i), "Delta": self.Delta, "lam": self.lam,
                "lam_i": list(self.lam_i), "R_i": list(self.R_i), "J_scale": self.J_scale}


def theorem_5_parameters(n: int, G: float, delta_fail: float, diameter: float, *,
                         J_scale: float = 1.0) -> Theorem5Parameters:
    """Appendix A / Theorem 5 parameters (see :class:`Theorem5Parameters`).  n ≥ 2·J(1); G > 0 (E‖g‖² ≤ G²);
    delta_fail ∈ (0, 1); diameter > 0; J_scale > 0.  Raises ValueError naming the parameter."""
    n = check_positive_int(n, "n")
    G = check_positive(G, "G")
    delta_fail = _check_probability(delta_fail, "delta_fail")
    D = check_positive(diameter, "diameter")
    J_scale = check_positive(J_scale, "J_scale")

    def J_of(I: int) -> int:
        return max(1, int(math.ceil(48.0 * J_scale * math.log(max(I, 2) / delta_fail))))

    I = 0
    while 2 ** (I + 1) * J_of(I + 1) <= n:
        I += 1
    if I == 0:
        raise ValueError(f"n = {n} is too small for Theorem 5's J = {J_of(1)} portions of at least 2 queries")
    J, m = J_of(I), 2 ** I
    T_i = tuple(m // 2 ** i for i in range(1, I + 1))
    Delta = max(90.0 * G * 4.0 ** (-i) / math.sqrt(t) for i, t in enumerate(T_i, start=1))
    lam = Delta / D
    lam_i = tuple(lam * 32.0 ** i for i in range(1, I + 1))
    R_i = tuple(30.0 * G / (li * math.sqrt(t)) for li, t in zip(lam_i, T_i))
    return Theorem5Parameters(n, G, delta_fail, D, I, J, m, T_i, Delta, lam, lam_i, R_i, J_scale)


def lemma_15_solver(S: Any, loss: HeavyTailedLoss, *, x_bar: Any, lam: float, domain_radius: float,
                    domain_center: Any = None) -> np.ndarray:
    """A Lemma 15 solver (the role of [ACJ+21] Lemma 1 in Appendix A): proximal SGD on f + ψ_λ with
    ψ_λ(x) = (λ/2)‖x − x̄‖² + 𝕀_X(x), one stochastic gradient g(y_t) = ∇f(y_t; s_{t+1}) per record (T = #S
    queries): y_0 = x̄, y_{t+1} = prox_{η_tψ_λ}(y_t − η_t g(y_t)) = Π_X((y_t − η_t g + η_tλx̄)/(1 + η_tλ)),
    η_t = 2/(λ(t+1)); returns the (t+1)-weighted average of y_1..y_T (a standard O(G²/(λ²T)) mean-square
    rate for λ-strongly convex objectives; Markov then gives Lemma 15's constant-probability distance bound).
    Non-private.  S : (T, p);  lam, domain_radius > 0."""
    S, d = check_records(S, _check_loss(loss))
    lam = check_positive(lam, "lam")
    R_X = check_positive(domain_radius, "domain_radius")
    c = np.zeros(d) if domain_center is None else as_float_vector(domain_center, "domain_center", d)
    xb = as_float_vector(x_bar, "x_bar", d)
    y = xb.copy()
    acc, wsum = np.zeros(d), 0.0
    for t in range(S.shape[0]):
        g = np.asarray(loss.grads(y, S[t:t + 1]), dtype=np.float64)[0]
        eta = 2.0 / (lam * (t + 1.0))
        with np.errstate(over="ignore", invalid="ignore"):   # a heavy record's step may overflow: the projection
            v = (y - eta * g + eta * lam * xb) / (1.0 + eta * lam) - c   # maps it to X (project_ball: finite)
        y = c + project_ball(v, np.zeros(d), R_X)
        acc += (t + 1.0) * y
        wsum += t + 1.0
    return acc / wsum


def highprob_sco(S: Any, loss: HeavyTailedLoss, *, G: float, delta_fail: float, domain_radius: float,
                 domain_center: Any = None, x0: Any = None, J_scale: float = 1.0) -> Release:
    """Appendix A of Asi, Liu & Tian (2024) (Theorem 5): Algorithm 2 with F_P ← f, each phase's (8) met by J
    portions of the Lemma 15 solver on disjoint batches of T_i records and Aggregate with R_i = 30G/(λ_i√T_i).
    **Not private** (claim notion "none").  ψ = 𝕀_X, X = B(domain_center, domain_radius).

    S : (n, p) records (each one stochastic-gradient query);  G > 0 with E‖∇f(x; s)‖² ≤ G² on X;
    delta_fail ∈ (0, 1);  J_scale : utility knob (≠ 1 is a recorded deviation).
    Returns a Release with gradient_evaluations = J·Σ_i T_i ≤ n.  Raises ValueError / TypeError."""
    S, d = check_records(S, _check_loss(loss))
    R_X = check_positive(domain_radius, "domain_radius")
    c = np.zeros(d) if domain_center is None else as_float_vector(domain_center, "domain_center", d)
    x = c.copy() if x0 is None else as_float_vector(x0, "x0", d)
    p = theorem_5_parameters(S.shape[0], G, delta_fail, 2.0 * R_X, J_scale=J_scale)
    offset, count = 0, 0
    for i in range(1, p.I + 1):
        Ti = p.T_i[i - 1]
        pts = []
        for _ in range(p.J):
            pts.append(lemma_15_solver(S[offset:offset + Ti], loss, x_bar=x, lam=p.lam_i[i - 1], domain_radius=R_X,
                                       domain_center=c))
            offset += Ti
            count += Ti
        x = aggregate(np.stack(pts), p.R_i[i - 1])[1]
    claim = PrivacyClaim(notion="none", epsilon=math.inf, delta=1.0, neighbouring="replace-one",
                         source="Asi, Liu & Tian (2024), Appendix A, Theorem 5 (non-private)")
    dev = [] if J_scale == 1.0 else [f"J_scale = {J_scale:g} (utility only)"]
    return Release(output=x, claim=claim, gradient_evaluations=count, parameters={**p.to_dict(), "deviations": dev},
                   algorithm="HighProb-SCO (Asi, Liu & Tian 2024, Appendix A)")
