"""Planted implementations of two of Asi, Liu & Tian (2024)'s algorithms for testing ``dpsco compare``: the bounded
Laplace mechanism (Section 5.1, Lemma 9) and SVT with bounded Laplace noise (Algorithm 6, Lemma 10), each faithful
and with subtle bugs.

Written from the paper's text, independently of ``dpsco.reference.alt24`` (a comparison of our code with a copy of
itself would prove nothing); only the calling convention is shared — the harness's, ``dpsco compare --against
alt24.blap --show-signature`` (resp. ``alt24.svt``):

* BLap(R, τ) is "the conditional distribution of ξ ~ Lap(R) on the event |ξ| ≤ τ" (Section 5.1): sampled here
  by inversion, |ξ| = −R log(1 − u(1 − e^{−τ/R})), u ~ U(0, 1), with an independent fair sign.
* Lemma 9: release S(D) + ξ, ξ ~ BLap(Δ/ε, τ), τ = (Δ/ε) log(4/δ) (the least τ the lemma allows);
  (ε, δ)-DP for a Δ-sensitive S and ε, δ ∈ (0, 1).
* Algorithm 6 with Lemma 10's parameters at equality, R = (6Δ/ε)√(c log(5/δ)), τ = R log(10T/δ):
  line 3 b ← L + BLap(R, τ); while i ≤ T and count < c (line 4): ξ ~ BLap(2R, 2τ) (line 5); if q_i + ξ < b
  (line 6) a_i ← ⊥ (line 7), else a_i ← ⊤, count += 1 and b ← L + BLap(R, τ) (lines 12–14).  Encoding of the
  released sequence (the catalogue's): ⊤ = 1, ⊥ = 0, not reached (halted) = −1.

Variants (every one claims (ε, δ)-DP, replace-one; the wrong ones falsely or with the wrong law):

``blap_faithful``          Lemma 9 as above;
``blap_half_scale``        noise scale Δ/(2ε) (a factor 2 lost in the scale; τ unchanged): privacy claim false;
``blap_untruncated``       plain Lap(Δ/ε) (the truncation dropped; TV distance ≤ δ/4 from the faithful law, so
                           nearly undetectable by design: a measured miss);
``svt_faithful``           Algorithm 6 as above;
``svt_query_noise_R``      line 5 draws BLap(R, τ) instead of BLap(2R, 2τ) (mis-scaled query noise);
``svt_no_halt``            the halting rule ``count < c`` dropped (line 4): every query answered;
``svt_halt_off_by_one``    line 4's halting rule as ``count ≤ c`` (one ⊤ too many before halting).

**Never use these for anything but testing the comparison.**
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from dpsco.reference.privacy import PrivacyClaim, Release

__all__ = ["IMPLEMENTATIONS", "WRONG", "blap", "blap_faithful", "blap_half_scale", "blap_untruncated", "svt",
           "svt_faithful", "svt_halt_off_by_one", "svt_no_halt", "svt_query_noise_R"]

SOURCE = "planted implementation (verification/mutants/alt24/implementations.py) of Asi, Liu & Tian (2024)"


def _blap(R: float, tau: float, rng: np.random.Generator, size: int | None = None) -> Any:
    """BLap(R, τ): Lap(R) conditioned on |ξ| ≤ τ, by inversion of the truncated exponential, independent sign."""
    u = rng.random(size)
    sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
    mag = -R * np.log1p(-u * (-math.expm1(-tau / R)))
    return sign * mag


def _claim(eps: float, delta: float, what: str) -> PrivacyClaim:
    return PrivacyClaim(notion="approx-DP", epsilon=float(eps), delta=float(delta), neighbouring="replace-one",
                        source=f"{SOURCE}: {what}")


def blap(value: float, sensitivity: float, epsilon: float, delta: float, rng: np.random.Generator, *,
         variant: str = "faithful") -> Release:
    """Lemma 9's bounded Laplace mechanism (module docstring), in a planted ``variant``.

    value : S(D), a real;  sensitivity : Δ > 0;  epsilon, delta ∈ (0, 1);  rng : numpy Generator.
    Returns a Release with output (1,).  Raises ValueError for an unknown variant or parameters out of range.
    """
    if variant not in ("faithful", "half_scale", "untruncated"):
        raise ValueError(f"unknown variant {variant!r}")
    if not (0 < epsilon < 1 and 0 < delta < 1 and sensitivity > 0):
        raise ValueError("epsilon, delta must lie in (0, 1) and sensitivity be > 0")
    R = sensitivity / epsilon                             # Lemma 9: scale Δ/ε
    tau = R * math.log(4.0 / delta)                        # Lemma 9: τ ≥ (Δ/ε) log(4/δ), at equality
    if variant == "half_scale":
        R = R / 2.0                                        # BUG: a factor 2 lost in the scale
    xi = float(rng.laplace(0.0, R)) if variant == "untruncated" else float(_blap(R, tau, rng))   # BUG: untruncated
    return Release(output=np.array([float(value) + xi]), claim=_claim(epsilon, delta, "Lemma 9"),
                   gradient_evaluations=0, parameters={"R": R, "tau": tau}, algorithm=f"blap[{variant}]")


def svt(answers: Any, sensitivity: float, c: int, L: float, epsilon: float, delta: float, rng: np.random.Generator,
        *, variant: str = "faithful") -> Release:
    """Algorithm 6 at Lemma 10's parameters (module docstring), in a planted ``variant``.

    answers : (T,) query values q_i(D);  sensitivity Δ > 0;  c ≥ 1 integer;  L real;  epsilon, delta ∈ (0, 1).
    Returns a Release with output (T,) in {1 (⊤), 0 (⊥), −1 (not reached)}.  Raises ValueError.
    """
    if variant not in ("faithful", "query_noise_R", "no_halt", "halt_off_by_one"):
        raise ValueError(f"unknown variant {variant!r}")
    q = np.asarray(answers, dtype=np.float64).ravel()
    T = q.size
    if not (0 < epsilon < 1 and 0 < delta < 1 and sensitivity > 0 and int(c) >= 1 and T >= 1):
        raise ValueError("epsilon, delta must lie in (0, 1), sensitivity > 0, c ≥ 1 and answers non-empty")
    R = 6.0 * sensitivity / epsilon * math.sqrt(c * math.log(5.0 / delta))   # Lemma 10, (19), at equality
    tau = R * math.log(10.0 * T / delta)
    qR, qtau = (R, tau) if variant == "query_noise_R" else (2.0 * R, 2.0 * tau)   # BUG (query_noise_R): line 5
    out = np.full(T, -1.0)
    count, i = 0, 0
    b = L + float(_blap(R, tau, rng))                                            # Alg. 6, line 3
    cap = c + 1 if variant == "halt_off_by_one" else c                            # BUG (halt_off_by_one): c + 1
    while i < T and (count < cap or variant == "no_halt"):                        # line 4 (BUG no_halt: no cap)
        xi = float(_blap(qR, qtau, rng))                                         # line 5
        if q[i] + xi < b:                                                        # line 6
            out[i] = 0.0                                                         # line 7: ⊥
        else:
            out[i] = 1.0                                                         # line 12: ⊤
            count += 1                                                           # line 13
            b = L + float(_blap(R, tau, rng))                                    # line 14
        i += 1                                                                   # lines 8, 13
    return Release(output=out, claim=_claim(epsilon, delta, "Lemma 10 (Algorithm 6)"), gradient_evaluations=0,
                   parameters={"R": R, "tau": tau, "c": int(c), "L": float(L), "T": T}, algorithm=f"svt[{variant}]")


def _v(fn: Callable[..., Release], variant: str) -> Callable[..., Release]:
    def run(*args: Any, **kwargs: Any) -> Release:
        return fn(*args, variant=variant, **kwargs)
    run.__name__ = f"{fn.__name__}_{variant}"
    return run


blap_faithful, blap_half_scale, blap_untruncated = (_v(blap, v) for v in ("faithful", "half_scale", "untruncated"))
svt_faithful, svt_query_noise_R, svt_no_halt, svt_halt_off_by_one = (
    _v(svt, v) for v in ("faithful", "query_noise_R", "no_halt", "halt_off_by_one"))

#: {catalogue entry: {variant name: candidate}} (the faithful one first)
IMPLEMENTATIONS: dict[str, dict[str, Callable[..., Release]]] = {
    "alt24.blap": {"faithful": blap_faithful, "half_scale": blap_half_scale, "untruncated": blap_untruncated},
    "alt24.svt": {"faithful": svt_faithful, "query_noise_R": svt_query_noise_R, "no_halt": svt_no_halt,
                  "halt_off_by_one": svt_halt_off_by_one},
}
#: the wrong variants, by entry
WRONG: dict[str, tuple[str, ...]] = {e: tuple(v for v in vs if v != "faithful") for e, vs in IMPLEMENTATIONS.items()}
