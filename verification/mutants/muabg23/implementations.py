"""Planted implementations of two of Menart, Ullah, Arora, Bassily & Guzmán (2023)'s algorithms (arXiv:2311.13447
v2) for testing ``dpsco compare``: Algorithm 4 (noisy gradient descent on the regularised objective, Appendix E,
Theorem 9) and Algorithm 3 (adaptive noisy gradient descent, Section 5, Theorems 3–4), each faithful and with
subtle bugs.

Written from the paper, independently of ``dpsco.reference.muabg23`` (a comparison of our code with a copy of
itself would prove nothing); only the calling convention is shared — the harness's, ``dpsco compare --against
muabg23.noisy_gd --show-signature`` (resp. ``muabg23.adaptive_gd``).  The only library code used is the core
clipping helper (``dpsco.reference.clipping.clip_rows``, ‖out‖ ≤ C in floating point, overflow-safe: the house
rule for finite releases on extreme records); the projection is this module's own.

The paper text we hold has lost its algorithm boxes (and most inline math), so both algorithms are reconstructed
from the prose, the theorems and their proofs.  Every reading taken where the text is ambiguous:

Algorithm 4 (``noisy_gd``; App. E, Theorem 9 and its proof)
  A1. Objective F̃(w) = (1/n)Σ f(w; x_i) + L̃₁‖w − w_c‖² (App. E: "F̃ is L̃₁-strongly convex"), so
      ∇F̃(w) = (1/n)Σ ∇f(w; x_i) + 2L̃₁(w − w_c).  The box is read with ∇F̃ at the current iterate w_t.
  A2. Per-sample subgradients are clipped to L₀ before averaging (a no-op when f is L₀-Lipschitz, as Theorem 9
      assumes; it makes "the sensitivity of the gradient, in every iteration, is bounded by 2L₀/n" (proof of
      Theorem 9) hold for every record, replace-one).
  A3. The iterates are projected onto B(w_c, L₀/(2L̃₁)) (proof of Theorem 9: "the unconstrained minimiser lies in
      the constrained set", from 2L̃₁‖w* − w_c‖ = ‖∇F(w*)‖ ≤ L₀).
  A4. w_1 = w_c; for t = 1, …, T − 1: w_{t+1} = Π(w_t − η_t(∇F̃(w_t) + ξ_t)), ξ_t ~ N(0, σ²I_d); the output is the
      t-weighted average w̄ = (2/(T(T+1))) Σ_{t=1}^{T} t·w_t (the suffix-averaging of [32] (Harvey et al.),
      whose Theorem 3.1 the proof repeats).  So T − 1 noisy gradients are released.
  A5. Theorem 9's parameters: η_t = 1/(L̃₁ t) (strong-convexity step of [32]), T = ⌈n²ρ log²(2/β)/d⌉ (the one
      choice that makes the three error terms of the proof equal the rate (17); the ceiling is ours: T must be an
      integer).  The noise: the paper's accounting charges (Δ/σ)² per step with Δ = 2L₀/n, so Theorem 9's σ² =
      4L₀²T/(n²ρ) (variant ``gd_printed_sigma``).  Under the Gaussian mechanism's exact zCDP cost Δ²/(2σ²)
      (Bun & Steinke 2016, Prop. 1.6) that σ spends only (T − 1)ρ/(2T) < ρ/2 over the T − 1 released steps: it
      is private but over-noised.  ``gd_faithful`` spends exactly ρ: σ² = 2L₀²(T − 1)/(n²ρ), the catalogue
      entry's calibration (ERRATA.md MUABG23-E8).  (First written with the printed σ, 1.46× the entry's;
      ``dpsco compare`` at N = 500 did not refute it (energy p = 0.049 against its level 0.0083), but the law
      differs, so the faithful reading is the entry's — a calibration choice, not an error on either side.)

Algorithm 3 (``adaptive_gd``; Section 5, Theorem 3 with its proof in App. D.2, Lemmas 10–11)
  B1. Step size η = 1/(2L₁) (the descent analysis of Lemma 12).  A = log(n√ρ/β).
  B2. Per step t: N_t = ‖∇F(w_t)‖ + b̂_t, a SCALAR Gaussian (Lemma 10 and Theorem 5 carry no √d on the norm
      error); σ_t = max{max(N_t, 0)/√(dA), σ_min}; ∇_t = ∇F(w_t) + b_t, b_t ~ N(0, σ_t² I_d);
      w_{t+1} = w_t − η∇_t.  ∇F uses per-sample gradients clipped to L₀ (as A2; Theorem 3 assumes Lipschitz f).
  B3. Budget: the paper charges the norm query √ρ/n and the gradient min{L₀²dA/(n²N_t²), ρ/2}, in units
      (L₀/(nσ))² per Gaussian release, and continues while Σ_j ρ_j ≤ ρ/2 (fully adaptive composition [48]).
      Under replace-one the sensitivity of ∇F and of ‖∇F‖ is Δ = 2L₀/n and a Gaussian release costs Δ²/(2σ²),
      twice the paper's unit.  We keep the paper's budget split and spend it in exact units: the norm query costs
      c_N = √ρ/n (σ̂ = Δ/√(2c_N)), each step costs at most ρ/2 in total (D.2: "releasing the T'th iterate is
      also ρ/2-zCDP"), so σ_min = Δ/√(2(ρ/2 − c_N)), and the step's cost c_N + Δ²/(2σ_t²) is computed from the
      realised σ_t (a function of the already released N_t — never of N_t directly, which may be negative).
      Guard Σ_j ρ_j ≤ ρ/2 as printed: before the last step at most ρ/2 is spent, the last step costs ≤ ρ/2,
      so the run is ρ-zCDP (and √(2ρ)-GDP: every release is Gaussian, Σ(Δ/σ)² ≤ 2ρ surely).
  B4. Output: w_T, where T is "the highest value of t reached during the run" (Section 5; Theorem 5's
      "largest value attained by t") with t incremented at the end of each step (line 7): the last iterate,
      after the last update.  There is no Return line in the text.  First written as the last iterate whose
      gradient norm was measured (Lemma 11's "stops at iteration t" bounds F(w_t) at the point where σ_t =
      σ_min was measured); ``dpsco compare`` refuted that reading against the entry (energy p = 0.0008 at
      N = 500: at the harness instance it is one noisy step fewer).  The "highest value of t" sentence
      supports the last iterate, so it is the faithful reading; the other is kept as ``agd_output_measured``
      (a reading difference, not a privacy bug: the transcript it post-processes is the same).
  B5. The budget test at the harness instance sits exactly on its boundary (the first step at the noise floor
      costs exactly ρ/2): the floor step's gradient cost is taken as ρ/2 − c_N itself (the capped value) so that
      c_N + (ρ/2 − c_N) rounds to ρ/2 and the printed "≤" admits the second step (checked in the tests).

Variants (every one claims ρ-zCDP, replace-one):

``gd_faithful``          Algorithm 4 as above (exact calibration, A5);
``gd_printed_sigma``     Theorem 9's printed σ² = 4L₀²T/(n²ρ) (A5): private (spends < ρ/2), over-noised — a
                         calibration difference from the entry, not a privacy bug;
``gd_sigma_no_T``        σ² = 2L₀²/(n²ρ): the composition over the T − 1 steps forgotten (privacy claim false);
``gd_no_projection``     the projection onto B(w_c, L₀/(2L̃₁)) dropped (A3; wrong law: η₁ = 1/L̃₁ is a huge step);
``gd_last_iterate``      returns w_T instead of the t-weighted average (A4);
``agd_faithful``         Algorithm 3 as above;
``agd_output_measured``  returns the last iterate whose norm was measured, w_{T−1} (B4's first reading: a
                         reading difference, private);
``agd_strict_guard``     the budget test as Σ_j ρ_j < ρ/2 (the adaptive rule's threshold off: one step fewer);
``agd_paper_units``      the paper's printed cost unit (L₀/(nσ))² (sensitivity L₀/n charged as Δ²/σ²: half the
                         exact replace-one cost (2L₀/n)²/(2σ²)): σ̂ and σ_min too small by √2, the claim false
                         (the σ/√2 bug of the zCDP accounting; the same number of steps);
``agd_cost_from_N``      the step's cost from min{L₀²dA/(n²N_t²), ρ/2 − c_N} (the released N_t, as the paper's
                         line 6 prints it) instead of the realised σ_t: a negative N_t of large |N_t|, or an N_t
                         just below the floor's threshold, puts σ_t at the floor while the ledger charges less
                         than the floor's cost, so the run continues at the floor — the claim false; at the
                         harness instance (β = 1e-300, N_t ≈ 1 ± 0.6) the printed charge ≈ 10.8/N_t² exceeds the
                         cap unless |N_t| > 8.2 (probability < 1e-30 per step): the same law (a designed miss).

**Never use these for anything but testing the comparison.**
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from dpsco.reference.clipping import clip_rows
from dpsco.reference.conversions import zcdp_epsilon
from dpsco.reference.privacy import PrivacyClaim, Release

__all__ = ["IMPLEMENTATIONS", "WRONG", "noisy_gd", "adaptive_gd", "theorem_9_schedule", "adaptive_constants"]

SOURCE = "planted implementation (verification/mutants/muabg23/implementations.py) of Menart et al. (2023)"
GD = ("faithful", "printed_sigma", "sigma_no_T", "no_projection", "last_iterate")
AGD = ("faithful", "output_measured", "strict_guard", "paper_units", "cost_from_N")
#: δ of the (ε, δ) the zCDP claims are converted to (Bun & Steinke 2016, Prop. 1.3)
DELTA = 1e-6


def _claim(rho: float, what: str) -> PrivacyClaim:
    return PrivacyClaim(notion="zCDP", epsilon=zcdp_epsilon(rho, DELTA), delta=DELTA, neighbouring="replace-one",
                        source=f"{SOURCE}: {what}", rho=float(rho), mu=math.sqrt(2.0 * rho))


def _positive(value: Any, name: str) -> float:
    v = float(value)
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a finite positive number, got {value!r}")
    return v


# ---- Algorithm 4 (App. E) -------------------------------------------------------------------------------------

def _project(w: np.ndarray, centre: np.ndarray, radius: float) -> np.ndarray:
    """Euclidean projection onto B(centre, radius): centre + (w − centre)·radius/‖w − centre‖ when outside."""
    v = w - centre
    r = float(np.linalg.norm(v))
    return w if r <= radius else centre + v * (radius / r)


def theorem_9_schedule(n: int, d: int, rho: float, beta: float, L0: float, l1_tilde: float) -> dict[str, Any]:
    """Theorem 9's parameters (readings A3, A5): T = ⌈n²ρ log²(2/β)/d⌉ (≥ 2), σ = L₀√(2(T − 1))/(n√ρ) (exact:
    T − 1 steps of cost (2L₀/n)²/(2σ²) sum to ρ), the printed σ = 2L₀√T/(n√ρ), η_t = 1/(L̃₁t) for t = 1..T−1,
    radius L₀/(2L̃₁) of the projection ball.  Returns a dict with keys T, sigma, sigma_printed, eta (array),
    radius."""
    T = max(2, math.ceil(n * n * rho * math.log(2.0 / beta) ** 2 / d))
    return {"T": T, "sigma": L0 * math.sqrt(2.0 * (T - 1)) / (n * math.sqrt(rho)),
            "sigma_printed": 2.0 * L0 * math.sqrt(T) / (n * math.sqrt(rho)),
            "eta": 1.0 / (l1_tilde * np.arange(1, T)), "radius": L0 / (2.0 * l1_tilde)}


def noisy_gd(X: Any, subgradient: Callable[[np.ndarray, np.ndarray], np.ndarray], w_c: Any, rho: float, beta: float,
             L0: float, l1_tilde: float, rng: np.random.Generator, *, variant: str = "faithful") -> Release:
    """Algorithm 4 of Menart et al. (2023) with Theorem 9's parameters (module docstring, A1–A5), in a planted
    ``variant``.

    X : (n, p) finite records; subgradient(W (R, d), X) -> (R, n, d) per-sample subgradients of f;
    w_c : (d,) centre and start; rho > 0 (zCDP), beta ∈ (0, 1), L0 > 0, l1_tilde > 0; rng : numpy Generator.
    Returns a Release with output w̄ (d,) and claim ρ-zCDP (replace-one).  Raises ValueError / TypeError.
    """
    if variant not in GD:
        raise ValueError(f"unknown variant {variant!r}")
    Xa = np.asarray(X, dtype=np.float64)
    if Xa.ndim != 2 or Xa.shape[0] < 1 or not np.all(np.isfinite(Xa)):
        raise ValueError("X must be a finite (n, p) array of records")
    wc = np.asarray(w_c, dtype=np.float64).ravel()
    if not np.all(np.isfinite(wc)):
        raise ValueError("w_c must be finite")
    rho, L0, l1_tilde = _positive(rho, "rho"), _positive(L0, "L0"), _positive(l1_tilde, "l1_tilde")
    beta = _positive(beta, "beta")
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy Generator")
    n, d = Xa.shape[0], wc.size
    s = theorem_9_schedule(n, d, rho, beta, L0, l1_tilde)
    T, sigma = s["T"], s["sigma"]
    if variant == "printed_sigma":
        sigma = s["sigma_printed"]                                  # Theorem 9 as printed (private, over-noised)
    elif variant == "sigma_no_T":
        sigma = math.sqrt(2.0) * L0 / (n * math.sqrt(rho))         # BUG: the composition over T − 1 forgotten
    w = wc.copy()                                                   # Alg. 4, line 1: w_1 = w_c
    iterates = [w]
    for t in range(1, T):                                           # line 2: t = 1, …, T − 1
        with np.errstate(all="ignore"):
            G = clip_rows(np.asarray(subgradient(w[None, :], Xa), dtype=np.float64)[0], L0)   # reading A2
        grad = G.mean(axis=0) + 2.0 * l1_tilde * (w - wc)           # ∇F̃(w_t) (reading A1)
        xi = rng.normal(0.0, sigma, size=d)                         # line 3: ξ_t ~ N(0, σ²I_d)
        w = w - s["eta"][t - 1] * (grad + xi)                       # line 4
        if variant != "no_projection":                              # BUG no_projection: Π dropped
            w = _project(w, wc, s["radius"])                        # line 4: Π onto B(w_c, L₀/(2L̃₁))
        iterates.append(w)
    Wt = np.asarray(iterates)
    if variant == "last_iterate":
        out = Wt[-1].copy()                                         # BUG: w_T instead of the average
    else:
        weights = np.arange(1, T + 1, dtype=np.float64)
        out = (2.0 / (T * (T + 1))) * (weights @ Wt)                # line 6: w̄ = (2/(T(T+1))) Σ t·w_t
    return Release(output=out, claim=_claim(rho, "Algorithm 4, Theorem 9"), gradient_evaluations=n * (T - 1),
                   parameters={"T": T, "sigma": sigma, "radius": s["radius"]}, algorithm=f"noisy_gd[{variant}]")


# ---- Algorithm 3 (Section 5) ----------------------------------------------------------------------------------

def adaptive_constants(n: int, d: int, rho: float, beta: float, L0: float, L1: float,
                       paper_units: bool = False) -> dict[str, float]:
    """Public constants of Algorithm 3 (readings B1–B3): Δ = 2L₀/n (``paper_units``: √2L₀/n, so that Δ²/(2σ²) is
    the paper's (L₀/(nσ))²: the planted bug), η =
    1/(2L₁), A = log(n√ρ/β), scale √(dA), c_N = √ρ/n, σ̂ = Δ/√(2c_N), c_max = ρ/2 − c_N (> 0 needs n√ρ > 2),
    σ_min = Δ/√(2c_max).  Raises ValueError when n√ρ ≤ 2 (no step fits the budget split)."""
    c_N = math.sqrt(rho) / n
    c_max = rho / 2.0 - c_N
    if not c_max > 0:
        raise ValueError(f"Algorithm 3 needs n√ρ > 2 (the norm query's cost √ρ/n below ρ/2), got n = {n}, rho = {rho}")
    Delta = (math.sqrt(2.0) if paper_units else 2.0) * L0 / n     # paper_units: Δ²/(2σ²) = (L₀/(nσ))²
    A = math.log(n * math.sqrt(rho) / beta)
    return {"Delta": Delta, "eta": 1.0 / (2.0 * L1), "A": A, "scale": math.sqrt(d * A), "c_N": c_N, "c_max": c_max,
            "sigma_hat": Delta / math.sqrt(2.0 * c_N), "sigma_min": Delta / math.sqrt(2.0 * c_max)}


def adaptive_gd(grad: Callable[[np.ndarray], np.ndarray], w0: Any, rho: float, beta: float, L0: float, L1: float,
                rng: np.random.Generator, *, variant: str = "faithful") -> Release:
    """Algorithm 3 of Menart et al. (2023) (module docstring, B1–B5), in a planted ``variant``.

    grad(w (d,)) -> (n, d) per-sample gradients at w (the records enter only through it); w0 : (d,) public start;
    rho > 0 (zCDP), beta ∈ (0, 1), L0 > 0, L1 > 0; rng : numpy Generator.  Returns a Release with output w_T (d,)
    and claim ρ-zCDP (replace-one; Theorem 3).  Raises ValueError / TypeError (before any noise is drawn).
    """
    if variant not in AGD:
        raise ValueError(f"unknown variant {variant!r}")
    w = np.asarray(w0, dtype=np.float64).ravel().copy()
    if not np.all(np.isfinite(w)):
        raise ValueError("w0 must be finite")
    rho, beta, L0, L1 = _positive(rho, "rho"), _positive(beta, "beta"), _positive(L0, "L0"), _positive(L1, "L1")
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy Generator")
    d = w.size

    def clipped_mean(v: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            G = np.asarray(grad(v), dtype=np.float64).reshape(-1, d)
            return clip_rows(G, L0).mean(axis=0)

    n = np.asarray(grad(w), dtype=np.float64).reshape(-1, d).shape[0]
    c = adaptive_constants(n, d, rho, beta, L0, L1, paper_units=variant == "paper_units")
    max_steps = int(math.floor((rho / 2.0) / c["c_N"])) + 1         # every step costs ≥ c_N: a public cap
    spent, t, measured, sigmas = 0.0, 0, w.copy(), []
    while (spent < rho / 2.0) if variant == "strict_guard" else (spent <= rho / 2.0):   # Alg. 3, line 2
        if t >= max_steps:                                          # unreachable (each step costs ≥ c_N)
            break
        g = clipped_mean(w)
        N = float(np.linalg.norm(g)) + float(rng.normal(0.0, c["sigma_hat"]))   # line 3: scalar norm noise
        sigma_t = max(max(N, 0.0) / c["scale"], c["sigma_min"])                  # line 4
        measured = w                                                             # the point of N_t
        sigmas.append(sigma_t)
        w = w - c["eta"] * (g + rng.normal(0.0, sigma_t, size=d))               # lines 4–5
        if variant == "cost_from_N":                                             # BUG: cost from N_t
            grad_cost = c["c_max"] if N == 0 else min(L0 ** 2 * d * c["A"] / (n * n * N * N), c["c_max"])
        elif sigma_t <= c["sigma_min"]:
            grad_cost = c["c_max"]                                               # the floor (reading B5)
        else:
            grad_cost = min(c["Delta"] ** 2 / (2.0 * sigma_t ** 2), c["c_max"])
        spent += c["c_N"] + grad_cost                                            # lines 6–7
        t += 1
    out = measured if variant == "output_measured" else w          # BUG output_measured: w_{T−1} (reading B4)
    return Release(output=np.asarray(out, dtype=np.float64).copy(), claim=_claim(rho, "Algorithm 3, Theorem 3"),
                   gradient_evaluations=n * (max_steps + 1), parameters={k: float(v) for k, v in c.items()},
                   algorithm=f"adaptive_gd[{variant}]", nonprivate_internals={"steps": t, "sigma": sigmas,
                                                                               "gradient_evaluations_performed": n * (t + 1)})


def _v(fn: Callable[..., Release], variant: str, prefix: str) -> Callable[..., Release]:
    def run(*args: Any, **kwargs: Any) -> Release:
        return fn(*args, variant=variant, **kwargs)
    run.__name__ = f"{prefix}_{variant}"
    return run


#: {catalogue entry: {variant name: candidate}} (the faithful one first)
IMPLEMENTATIONS: dict[str, dict[str, Callable[..., Release]]] = {
    "muabg23.noisy_gd": {f"gd_{v}": _v(noisy_gd, v, "gd") for v in GD},
    "muabg23.adaptive_gd": {f"agd_{v}": _v(adaptive_gd, v, "agd") for v in AGD},
}
#: the wrong variants, by entry
WRONG: dict[str, tuple[str, ...]] = {e: tuple(v for v in vs if not v.endswith("_faithful"))
                                     for e, vs in IMPLEMENTATIONS.items()}
