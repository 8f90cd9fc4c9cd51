"""Privacy harnesses (``verification/papers/harness.py``) of the six catalogue entries of Asi, Chadha, Cheng & Duchi
(2022), arXiv:2210.17070: ``accd22.algorithm_1`` … ``accd22.algorithm_6``.

Public inputs (every entry): ``DiagonalQuadraticLoss`` records [c, u] in d = 2 (p = 4) — the one loss here whose
extension is not clipping (a non-isotropic quadratic; with u_1 = u_2 it is the radial loss (u/2)‖x − c‖², so
the radial extremes are drawn too) — L = H = 1 (the records' curvatures u ∈ [0, H] are the declared bound),
X = B(0, 1), x_0 = 0, ε = 1, δ = 0 (Laplace phases, Propositions 2, Theorems 2, 3.1, 6, 8), λ = 1, κ = 3, n = 24.
Algorithms 2 and 3 need Theorem 2's m below n (the paper's m exceeds n at every practical n): m = 12 and 6, an
explicit privacy-neutral utility override; everything else is the defaults.

* ``extreme_record`` draws admissible records at the extremes: centres c_k ∈ ±{0, 5e-324, 1e-300, 1e-200, 1e-80,
  1e-10, 1, 1e10, 1e90, 1e200, 1e300, 1.7e308}, curvatures u_k ∈ {0, 5e-324, 1e-300, 1e-80, 1e-10, ½, H} (ratios
  up to 1e300 and beyond), equal curvatures (the radial loss, e.g. c = (−1.7e308, 0), u = (H, H), where
  h(x − s) overflows), and the record of ERRATA.md ACCD22-E17 (c = (0, ±1e90), u = (1, 1e-80), where the old τ-search
  stopped far from its root).
* ``sensitivity`` replays every phase at the recorded centre of the run on D (same batch indices, same domain)
  on D and on D′, and measures ‖x̂_D − x̂_D′‖₁ (Laplace noise: ℓ1) against the claim's √d(1 + 2·SOLVER_TOL)L_iη_i,
  with (L_i, η_i) from the public schedule (``accd22_noise.public_schedule``).
* ``exact_privacy`` — the worst pair: every record the far diagonal record c = 10⁶(1, 1)/√2, u = (H, H) (its
  extended gradient is L(1, 1)/√2 at every point of X), D′ with record 0 at −c.  Record 0 is in the first phase,
  whose centre x_0 is public, so the transcript's privacy loss is that phase's: a product of two Laplace
  mechanisms with λ_k = |Δ_k|/b_1, Δ = x̂_D − x̂_D′ as implemented (≈ Lη_1(1, 1)/√2) and b_1 = 4Lη_1√2/ε from the
  public schedule; its exact δ(ε) curve is :func:`laplace_product_delta` (the final output is post-processing of
  the transcript).  Pure ε = λ_1 + λ_2 ≈ ε/4.
* ``noise`` — the Gaussian branch (Algorithm 4, line 9; ERRATA.md ACCD22-E3), which the δ = 0 harness does not reach:
  each entry run at δ = 10⁻⁵ in d = 12 > log(1/δ) on benign records, 100 replicates; residuals = the first
  phase's noisy output − its minimiser replayed at the public centre x_0 (1,200 residuals), against σ_1 of the
  public schedule.  ``noise_bug``: ``accd22_algorithm_k_draws_sigma_over_sqrt2`` (``mutants.accd22``).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
from scipy import integrate

from dpsco.reference.accd22 import algorithms as alg
from dpsco.reference.accd22.algorithms import SOLVER_TOL, Ball
from dpsco.reference.accd22.extension import DiagonalQuadraticLoss
from dpsco.reference.privacy import Release
from dpsco.verification.papers.accd22.noise import public_schedule
from dpsco.verification.papers.harness import ExactPrivacy, NoiseSample, PrivacyHarness, SensitivityProbe

__all__ = ["HARNESSES", "KWARGS", "PUBLIC", "extreme_record", "laplace_product_delta", "run"]

ALGORITHMS = ("algorithm_1", "algorithm_2", "algorithm_3", "algorithm_4", "algorithm_5", "algorithm_6")
#: the public inputs of every harness (module docstring)
PUBLIC: dict[str, Any] = {"n": 24, "d": 2, "L": 1.0, "H": 1.0, "radius": 1.0, "epsilon": 1.0, "delta": 0.0,
                          "lam": 1.0, "kappa": 3.0}
#: utility overrides (privacy-neutral): Theorem 2's m below n for Algorithms 2 and 3
KWARGS: dict[str, dict[str, Any]] = {"algorithm_1": {}, "algorithm_2": {"m": 12}, "algorithm_3": {"m": 6},
                                     "algorithm_4": {}, "algorithm_5": {}, "algorithm_6": {}}
#: the Gaussian configuration of ``noise``: δ = 10⁻⁵ needs d ≥ 12 > log(1/δ) for the Gaussian branch
GAUSSIAN: dict[str, Any] = {"d": 12, "delta": 1e-5, "replicates": 100}

_CENTRES = (0.0, 5e-324, 1e-300, 1e-200, 1e-80, 1e-10, 1.0, 1e10, 1e90, 1e200, 1e300, 1.7e308)
_CURVATURES = (0.0, 5e-324, 1e-300, 1e-80, 1e-10, 0.5, 1.0)  # ≤ H = 1 (the declared bound)
_FAR = 1e6


def _call(fn: Callable[..., Release], name: str, Z: np.ndarray, d: int, delta: float, rng: np.random.Generator,
          **extra: Any) -> Release:
    P = PUBLIC
    head: tuple[Any, ...] = (Z, DiagonalQuadraticLoss(), Ball(P["radius"], center=np.zeros(d)), P["L"], P["H"])
    if name in ("algorithm_2", "algorithm_3"):
        head += (P["lam"],)
    elif name == "algorithm_6":
        head += (P["lam"], P["kappa"])
    return fn(*head, np.zeros(d), P["epsilon"], delta, rng, **KWARGS[name], **extra)


def run(name: str, records: np.ndarray, rng: np.random.Generator,
        algorithm: Callable[..., Release] | None = None, **extra: Any) -> Release:
    """Entry ``name``'s algorithm (or ``algorithm``, with the reference's signature) on ``records`` (n, 4) at
    :data:`PUBLIC` (δ = 0) with :data:`KWARGS`."""
    fn = getattr(alg, name) if algorithm is None else algorithm
    return _call(fn, name, np.asarray(records, dtype=np.float64), PUBLIC["d"], PUBLIC["delta"], rng, **extra)


def _schedule(name: str, d: int, delta: float) -> list[tuple[float, float]]:
    P = PUBLIC
    return public_schedule(name, P["n"], d, P["epsilon"], delta, P["L"], P["H"], P["radius"], P["lam"], P["kappa"],
                           **KWARGS[name])


def _benign(rng: np.random.Generator, d: int = 2) -> np.ndarray:
    n = PUBLIC["n"]
    return np.column_stack([rng.normal(0.0, 0.5, size=(n, d)), rng.uniform(0.1, PUBLIC["H"], size=(n, d))])


def extreme_record(draw: Callable[..., Any]) -> np.ndarray:
    """One admissible extreme record [c_1, c_2, u_1, u_2] (module docstring) from a hypothesis ``draw``."""
    from hypothesis import strategies as st

    kind = draw(st.sampled_from(("free", "radial", "ratio", "ACCD22-E17")), label="kind")
    sign = [draw(st.sampled_from((-1.0, 1.0)), label="sign") for _ in range(2)]
    c = [s * draw(st.sampled_from(_CENTRES), label="centre") for s in sign]
    if kind == "ACCD22-E17":
        return np.array([0.0, sign[0] * 1e90, 1.0, 1e-80])
    if kind == "radial":
        h = draw(st.sampled_from(_CURVATURES), label="h")
        return np.array([*c, h, h])
    if kind == "ratio":
        small = draw(st.sampled_from((5e-324, 1e-300, 1e-200, 1e-80)), label="small")
        return np.array([*c, PUBLIC["H"], small] if draw(st.booleans(), label="order") else [*c, small, PUBLIC["H"]])
    return np.array([*c, *(draw(st.sampled_from(_CURVATURES), label="u") for _ in range(2))])


def _sensitivity(name: str) -> Callable[[np.ndarray, np.ndarray, int], list[SensitivityProbe]]:
    def sensitivity(D: np.ndarray, D2: np.ndarray, seed: int) -> list[SensitivityProbe]:
        rel = run(name, D, np.random.default_rng(seed), white_box=True)
        tr = rel.white_box
        sched = _schedule(name, PUBLIC["d"], PUBLIC["delta"])
        if len(sched) != len(tr.phases):
            raise AssertionError(f"{name}: the run has {len(tr.phases)} phases, the public schedule {len(sched)}")
        probes = []
        for j, (ph, (L_j, eta_j)) in enumerate(zip(tr.phases, sched), start=1):
            shift = float(np.abs(tr.phase_minimisers(ph, D) - tr.phase_minimisers(ph, D2)).sum())
            bound = math.sqrt(PUBLIC["d"]) * (1.0 + 2.0 * SOLVER_TOL) * L_j * eta_j
            probes.append(SensitivityProbe(f"phase {j} (records {ph.start}:{ph.stop}), ℓ1", shift, bound))
        return probes

    return sensitivity


# ---- exact privacy of a product of Laplace mechanisms ------------------------------------------------------------

def _h(s: float, lam: float) -> float:
    """δ(s) of one Laplace mechanism with privacy loss λ = |Δ|/b: 0 for s ≥ λ, 1 − e^{(s−λ)/2} inside, 1 − e^s
    for s ≤ −λ (E_P[(1 − e^{s − ℓ})_+] for its loss ℓ: atom ½ at λ, ½e^{−λ} at −λ, density ¼e^{−(λ−ℓ)/2})."""
    if s >= lam:
        return 0.0
    if s > -lam:
        return -math.expm1((s - lam) / 2.0)
    return -math.expm1(s)


def laplace_product_delta(lam1: float, lam2: float) -> Callable[[float], float]:
    """The exact δ(ε) = E_P[(1 − e^{ε − ℓ₁ − ℓ₂})_+] of two independent Laplace mechanisms with privacy losses
    λ₁, λ₂ ≥ 0 (shifts |Δ_k| at scale b: λ_k = |Δ_k|/b): conditioning on ℓ₁, δ(ε) = ½h₂(ε − λ₁) +
    ½e^{−λ₁}h₂(ε + λ₁) + ∫_{−λ₁}^{λ₁} h₂(ε − ℓ)·¼e^{−(λ₁−ℓ)/2} dℓ (adaptive quadrature on the pieces between
    h₂'s kinks, absolute error ≤ 1e-13), and exactly 0 for ε ≥ λ₁ + λ₂.  Symmetric in the direction of the pair
    (the Laplace density is)."""
    l1, l2 = float(lam1), float(lam2)

    def delta(eps: float) -> float:
        e = float(eps)
        if e >= l1 + l2:  # the privacy loss never exceeds λ₁ + λ₂ (the pure ε): exactly 0, not quadrature rounding
            return 0.0
        out = 0.5 * _h(e - l1, l2) + 0.5 * math.exp(-l1) * _h(e + l1, l2)
        if l1 > 0.0:
            pts = sorted({p for p in (e - l2, e + l2) if -l1 < p < l1})
            edges = [-l1, *pts, l1]
            for a, b in zip(edges, edges[1:]):
                val, _ = integrate.quad(lambda t: _h(e - t, l2) * 0.25 * math.exp(-(l1 - t) / 2.0), a, b,
                                        epsabs=1e-15, epsrel=1e-13)
                out += val
        return min(1.0, max(0.0, out))

    return delta


def _exact_privacy(name: str) -> Callable[[], tuple[ExactPrivacy, Release]]:
    def exact() -> tuple[ExactPrivacy, Release]:
        H, n = PUBLIC["H"], PUBLIC["n"]
        far = _FAR / math.sqrt(2.0)
        D = np.tile([far, far, H, H], (n, 1))
        D2 = D.copy()
        D2[0] = [-far, -far, H, H]
        rel = run(name, D, np.random.default_rng(0), white_box=True)
        tr = rel.white_box
        ph = tr.phases[0]
        assert ph.start == 0 and np.all(ph.centers == 0.0), "record 0 is in the first phase, centred at x_0"
        L_1, eta_1 = _schedule(name, PUBLIC["d"], PUBLIC["delta"])[0]
        b = alg.phase_noise(L_1, eta_1, PUBLIC["d"], PUBLIC["epsilon"], PUBLIC["delta"])[1]
        shift = np.abs(tr.phase_minimisers(ph, D) - tr.phase_minimisers(ph, D2))[0]
        lam1, lam2 = (float(v) / b for v in shift)
        note = (f"{name}: worst pair (far diagonal records, record 0 flipped) differs in phase 1 only (public centre "
                f"x_0): two Laplace coordinates with λ = ({lam1:.6g}, {lam2:.6g}), exact product curve; the output "
                "is post-processing of the transcript")
        return ExactPrivacy(delta_of_epsilon=laplace_product_delta(lam1, lam2), pure_epsilon=lam1 + lam2,
                            note=note), rel

    return exact


# ---- the Gaussian branch's measured noise ------------------------------------------------------------------------

def _noise(name: str) -> Callable[..., NoiseSample]:
    def noise(seed: int, algorithm: Callable[..., Release] | None = None) -> NoiseSample:
        d, delta, R = GAUSSIAN["d"], GAUSSIAN["delta"], GAUSSIAN["replicates"]
        Z = _benign(np.random.default_rng(12), d)
        fn = getattr(alg, name) if algorithm is None else algorithm
        rel = _call(fn, name, Z, d, delta, np.random.default_rng(seed), replicates=R, white_box=True)
        ph = rel.white_box.phases[0]
        L_1, eta_1 = _schedule(name, d, delta)[0]
        kind, sigma, _ = alg.phase_noise(L_1, eta_1, d, PUBLIC["epsilon"], delta)
        assert kind == "gaussian"
        residuals = (ph.noisy - rel.white_box.phase_minimisers(ph, Z)).ravel()
        return NoiseSample(residuals, sigma, f"{name}: phase 1 at δ = {delta:g}, d = {d}, {R} replicates")

    return noise


def _harness(name: str) -> PrivacyHarness:
    return PrivacyHarness(
        entry=f"accd22.{name}", records=_benign, extreme_record=extreme_record,
        run=lambda records, rng, algorithm=None: run(name, records, rng, algorithm),
        sensitivity=_sensitivity(name), exact_privacy=_exact_privacy(name), noise=_noise(name),
        noise_bug=f"accd22_{name}_draws_sigma_over_sqrt2")


HARNESSES: dict[str, PrivacyHarness] = {f"accd22.{name}": _harness(name) for name in ALGORITHMS}
