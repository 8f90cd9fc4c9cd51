"""Planted implementations of two of Asi, Chadha, Cheng & Duchi (2022)'s algorithms (arXiv:2210.17070, Appendix A.2,
reproduced from Asi, Levy & Duchi 2021) for testing ``dpsco compare``: Algorithm 4 (localization) and Algorithm 5
(epochs of Algorithm 4 for κ-growth), each faithful and with subtle bugs.

Written from the paper's text, independently of ``dpsco.reference.accd22`` (a comparison of our code with a copy of
itself would prove nothing); only the calling convention is shared — the harness's, ``dpsco compare --against
accd22.algorithm_4 --show-signature``: ``f(Z, loss, domain, L, H, x0, epsilon, delta, rng)`` with records
Z = [c, u] of the per-sample quadratic F(x; (c, u)) = ½ Σ_k u_k (x_k − c_k)² (the loss object is not used: its
form is the record's), ``domain`` a ball (``center``, ``radius``), δ = 0 (Laplace branch).

* The Lipschitzian extension F_L(x) = inf_y F(y) + L‖x − y‖ (Definition 2.5) is differentiated here from its
  optimality condition: where ‖∇F(x)‖ > L, the minimising y = x − s·v with ∇F(y) = L·v, ‖v‖ = 1, i.e.
  v_k = u_k r_k/(L + s u_k), r = x − c, and s ≥ 0 the root of φ(s) = Σ_k v_k(s)² = 1 (found by 60 Newton steps on
  log φ, convex and decreasing, from s = 0: monotone convergence; the root lies in [0, ‖r‖]); ∇F_L(x) = L·v.  Elsewhere ∇F_L(x) = ∇F(x).
* Algorithm 4: k = ⌈log n⌉, n₀ = ⌊n/k⌋ (line 1); phase i uses records (i−1)n₀+1..in₀, η_i = 2^{−4i}η (line 3),
  solves min over 𝒳 ∩ {‖x − x_{i−1}‖ ≤ 2Lη_i n₀} of (1/n₀) Σ F_L(x; s_j) + ‖x − x_{i−1}‖²/(η_i n₀) (line 4; here
  by projected gradient descent, step 1/(H + 2/(η_i n₀)), 30 steps, projections onto the intersection of balls
  exact when one ball's projection lies in the others, else 100 rounds of Dykstra's algorithm), and adds ζ_i ~ Lap_d(σ_i), σ_i = 4Lη_i√d/ε (lines 6–7, the ε of the
  call); returns x_k (line 13).  η from Proposition 2: η = (D/L) min(1/√(n log(1/β)), ε/(d log(1/β))),
  β = 1/(n + d), D = diam 𝒳.
* Algorithm 5 (δ = 0): T = ⌈2 log n/(κ̲ − 1)⌉ with κ̲ = 2 (Theorem 6), n₀ = ⌊n/T⌋, D₀ = diam 𝒳,
  η₀ = (D₀/2L) min(1/√(n₀ log(n₀) log(1/β)), ε/(d log(1/β))) (line 3); epoch i = 0..T−1 runs Algorithm 4 on
  records in₀+1..(i+1)n₀ from x_i with step η_i = 2^{−i}η₀ on 𝒳_i = 𝒳 ∩ B(x_i, D_i), D_i = 2^{−i}D₀ (lines
  8–12); returns x_T.

Variants (every one claims ε-DP, replace-one):

``alg4_faithful`` / ``alg5_faithful``   as above;
``alg4_sigma_no_sqrt_d``   σ_i = 4Lη_i/ε (the √d of line 7 dropped): privacy claim false;
``alg4_eta_schedule``      η_i = 2^{−i}η instead of 2^{−4i}η (wrong schedule);
``alg4_no_extension``      F instead of F_L (the Lipschitzian extension — this paper's clipping — dropped): the
                           privacy claim is false (one far record moves a phase's minimiser across its whole
                           localisation ball, diameter 4Lη_i n₀ ≫ the calibrated 2Lη_i), but the law on benign
                           records changes little.  On the harness's own worst pair (every record far, record 0
                           mirrored) both minimisers sit on the same boundary point of that ball; compare's worst
                           pair (``compare_signatures.lone_far_pair``: one far record among zero-curvature ones)
                           puts them at opposite boundary points, a privacy loss n₀ε = 6 in phase 1
                           (``tests/accd22/test_accd22_implementations.py``);
``alg4_reused_batch``      every phase uses the first batch (a reused batch).  At the harness's inputs this does
                           not break the ε-DP claim: each phase spends at most ε/4 on a record (the calibration
                           σ_i = 4Lη_i√d/ε against an ℓ1 sensitivity √d·Lη_i) and k = ⌈log 24⌉ = 4 phases read
                           record 0, ≤ 4·ε/4 = ε (it would from k ≥ 5, n ≥ 55); only the law can show it;
``alg5_eta_not_halved``    η_i = η₀ in every epoch (line 9's halving dropped).

**Never use these for anything but testing the comparison.**
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from dpsco.reference.privacy import PrivacyClaim, Release

__all__ = ["IMPLEMENTATIONS", "WRONG", "algorithm_4", "algorithm_5", "extension_gradients"]

SOURCE = "planted implementation (verification/mutants/accd22/implementations.py) of Asi, Chadha, Cheng & Duchi (2022)"
ALG4 = ("faithful", "sigma_no_sqrt_d", "eta_schedule", "no_extension", "reused_batch")
ALG5 = ("faithful", "eta_not_halved")


def extension_gradients(x: np.ndarray, C: np.ndarray, U: np.ndarray, L: float, extend: bool = True) -> np.ndarray:
    """Per-record gradients (m, d) of F_L(·; (c, u)) at x (module docstring); ``extend=False``: of F itself."""
    R = x[None, :] - C
    G = U * R
    if not extend:
        return G
    active = np.linalg.norm(G, axis=1) > L
    if np.any(active):
        r, u = R[active], U[active]
        s = np.zeros(r.shape[0])
        cap = np.linalg.norm(r, axis=1)
        for _ in range(60):            # Newton on ψ(s) = log φ(s), convex and decreasing: from s = 0 < s* the
            w = u * r / (L + s[:, None] * u)          # iterates increase monotonically to the root
            phi = np.sum(w * w, axis=1)
            dphi = -2.0 * np.sum(w * w * u / (L + s[:, None] * u), axis=1)
            s = np.clip(s - np.log(phi) * phi / np.minimum(dphi, -1e-300), 0.0, cap)
            if np.max(np.abs(np.log(phi))) < 1e-13:
                break
        v = u * r / (L + s[:, None] * u)
        G[active] = L * v / np.maximum(np.linalg.norm(v, axis=1), 1e-300)[:, None]
    return G


def _project(x: np.ndarray, balls: list[tuple[np.ndarray, float]]) -> np.ndarray:
    """Projection onto the intersection of balls (centre, radius): Dykstra's algorithm, 100 rounds."""
    def inside(z: np.ndarray) -> bool:
        return all(np.linalg.norm(z - c) <= r for c, r in balls)

    if inside(x):
        return x
    for c, r in balls:                       # the projection onto one ball, when it lies in the others, is the answer
        v = x - c
        n = np.linalg.norm(v)
        if n > r and inside(c + v * (r / n) + 0.0):
            return c + v * (r / n)
    y = x.copy()
    incr = [np.zeros_like(x) for _ in balls]
    for _ in range(100):
        for j, (c, r) in enumerate(balls):
            z = y + incr[j]
            v = z - c
            n = np.linalg.norm(v)
            p = z if n <= r else c + v * (r / n)
            incr[j] = z - p
            y = p
    return y


def _phase(C: np.ndarray, U: np.ndarray, L: float, H: float, centre: np.ndarray, eta: float, n0: int,
           balls: list[tuple[np.ndarray, float]], extend: bool) -> np.ndarray:
    """Line 4: minimise (1/n₀)ΣF_L + ‖x − centre‖²/(η n₀) over the balls, projected gradient descent."""
    mu = 2.0 / (eta * n0)
    step = 1.0 / (H + mu)
    x = _project(centre.copy(), balls)
    for _ in range(30):    # contraction H/(H + μ) < 0.1 per step at the harness's inputs
        g = extension_gradients(x, C, U, L, extend).mean(axis=0) + mu * (x - centre)
        x = _project(x - step * g, balls)
    return x


def _alg4(Z: np.ndarray, L: float, H: float, x0: np.ndarray, eps: float, eta: float, outer: list[tuple[np.ndarray, float]],
          rng: np.random.Generator, variant: str) -> np.ndarray:
    n, p = Z.shape
    d = p // 2
    k = max(1, math.ceil(math.log(n)))                                      # Alg. 4, line 1
    n0 = n // k
    x = np.asarray(x0, dtype=np.float64).copy()
    for i in range(1, k + 1):                                               # line 2
        eta_i = (2.0 ** (-i) if variant == "eta_schedule" else 2.0 ** (-4 * i)) * eta   # line 3 (BUG eta_schedule)
        block = slice(0, n0) if variant == "reused_batch" else slice((i - 1) * n0, i * n0)   # BUG reused_batch
        C, U = Z[block, :d], Z[block, d:]
        balls = outer + [(x.copy(), 2.0 * L * eta_i * n0)]
        x_hat = _phase(C, U, L, H, x, eta_i, n0, balls, extend=variant != "no_extension")  # lines 4–5
        sigma = 4.0 * L * eta_i * (1.0 if variant == "sigma_no_sqrt_d" else math.sqrt(d)) / eps   # line 7
        x = x_hat + rng.laplace(0.0, sigma, size=d)                         # line 11
    return x                                                                 # line 13


def _release(out: np.ndarray, eps: float, name: str, params: dict[str, Any]) -> Release:
    claim = PrivacyClaim(notion="pure-DP", epsilon=float(eps), delta=0.0, neighbouring="replace-one",
                         source=f"{SOURCE}: {name}")
    return Release(output=out, claim=claim, gradient_evaluations=0, parameters=params, algorithm=name)


def _check(Z: Any, domain: Any, epsilon: float, delta: float) -> np.ndarray:
    Za = np.asarray(Z, dtype=np.float64)
    if Za.ndim != 2 or Za.shape[1] % 2 or not np.all(np.isfinite(Za)):
        raise ValueError("Z must be a finite (n, 2d) array of records [c, u]")
    if delta != 0.0 or not epsilon > 0:
        raise ValueError("these planted implementations cover the δ = 0 (Laplace) branch with ε > 0")
    if not hasattr(domain, "radius") or not hasattr(domain, "center"):
        raise TypeError("domain must be a ball with .center and .radius")
    return Za


def algorithm_4(Z: Any, loss: Any, domain: Any, L: float, H: float, x0: Any, epsilon: float, delta: float,
                rng: np.random.Generator, *, variant: str = "faithful") -> Release:
    """Algorithm 4 with Proposition 2's η (module docstring), in a planted ``variant``.  Returns a Release whose
    output is x_k (d,).  Raises ValueError / TypeError."""
    if variant not in ALG4:
        raise ValueError(f"unknown variant {variant!r}")
    Za = _check(Z, domain, epsilon, delta)
    n, d = Za.shape[0], Za.shape[1] // 2
    beta = 1.0 / (n + d)
    D = 2.0 * float(domain.radius)
    eta = D / L * min(1.0 / math.sqrt(n * math.log(1 / beta)), epsilon / (d * math.log(1 / beta)))  # Prop. 2
    outer = [(np.asarray(domain.center, dtype=np.float64), float(domain.radius))]
    out = _alg4(Za, L, H, np.asarray(x0, dtype=np.float64), epsilon, eta, outer, rng, variant)
    return _release(out, epsilon, f"algorithm_4[{variant}]", {"eta": eta, "beta": beta})


def algorithm_5(Z: Any, loss: Any, domain: Any, L: float, H: float, x0: Any, epsilon: float, delta: float,
                rng: np.random.Generator, *, variant: str = "faithful") -> Release:
    """Algorithm 5 with Theorem 6's T at κ̲ = 2 (module docstring), in a planted ``variant``.  Returns a Release
    whose output is x_T (d,).  Raises ValueError / TypeError."""
    if variant not in ALG5:
        raise ValueError(f"unknown variant {variant!r}")
    Za = _check(Z, domain, epsilon, delta)
    n, d = Za.shape[0], Za.shape[1] // 2
    beta = 1.0 / (n + d)
    T = math.ceil(2.0 * math.log(n) / (2.0 - 1.0))                         # Theorem 6, κ̲ = 2
    n0 = n // T                                                            # Alg. 5, line 1
    D0 = 2.0 * float(domain.radius)
    eta0 = D0 / (2 * L) * min(1.0 / math.sqrt(n0 * math.log(n0) * math.log(1 / beta)),
                              epsilon / (d * math.log(1 / beta)))          # line 3
    centre = np.asarray(domain.center, dtype=np.float64)
    x = np.asarray(x0, dtype=np.float64).copy()
    for i in range(T):                                                     # line 7
        block = Za[i * n0:(i + 1) * n0]                                    # line 8
        D_i = 2.0 ** (-i) * D0                                             # line 9
        eta_i = eta0 if variant == "eta_not_halved" else 2.0 ** (-i) * eta0   # line 9 (BUG eta_not_halved)
        outer = [(centre, float(domain.radius)), (x.copy(), D_i)]         # line 10
        x = _alg4(block, L, H, x, epsilon, eta_i, outer, rng, "faithful")  # lines 11–12
    return _release(x, epsilon, f"algorithm_5[{variant}]", {"T": T, "n0": n0, "eta0": eta0, "beta": beta})


def _v(fn: Callable[..., Release], variant: str) -> Callable[..., Release]:
    def run(*args: Any, **kwargs: Any) -> Release:
        return fn(*args, variant=variant, **kwargs)
    run.__name__ = f"{fn.__name__}_{variant}"
    return run


#: {catalogue entry: {variant name: candidate}} (the faithful one first)
IMPLEMENTATIONS: dict[str, dict[str, Callable[..., Release]]] = {
    "accd22.algorithm_4": {v: _v(algorithm_4, v) for v in ALG4},
    "accd22.algorithm_5": {v: _v(algorithm_5, v) for v in ALG5},
}
#: the wrong variants, by entry
WRONG: dict[str, tuple[str, ...]] = {e: tuple(v for v in vs if v != "faithful") for e, vs in IMPLEMENTATIONS.items()}
