"""The parameter formulas and bounds of Asi, Chadha, Cheng & Duchi (2022), arXiv:2210.17070, as plain functions.

Every function is named after its Algorithm line / Proposition / Theorem and takes public inputs only (n, d, ε,
δ, L, H, λ, D, β, μ, κ and the paper's constants).  Logarithms are natural (the paper writes ``log`` without a
base).  Where the paper writes Õ(·) or Θ̃(·), the function returns the explicit form its proof gives (the
docstring says which) or, named ``*_rate``, the expression with every hidden constant and logarithm equal to 1 (a
*shape*, for rate checks).

Where the printed text is replaced (ERRATA.md, entries ACCD22-E1–ACCD22-E14), the corrected form is the default and the
printed one is reachable through a keyword (``printed=True``).

Notation (the paper's): A(N, β') = √(log(1/β'))·log^{3/2}N/√N + d_eff·log(1/β')·log N/(Nε) (the sum form of
Algorithm 3, line 3), M(m) = max{√(log(T/β))·log^{3/2}m/√m, d_eff·log(T/β)·log m/(mε)} (the max form of
Algorithm 2, line 5), d_eff = d for δ = 0 and min(d, √(d log(1/δ))) for δ > 0.
"""

from __future__ import annotations

import math

from dpsco.reference.validation import check_delta, check_epsilon, check_positive, check_positive_int

__all__ = [
    "ALGORITHM_2_CONSTANT",
    "ALGORITHM_3_CONSTANT",
    "THEOREM_6_CONSTANT",
    "algorithm_2_radius",
    "algorithm_3_radius",
    "algorithm_4_eta",
    "algorithm_4_phases",
    "algorithm_4_sigma",
    "algorithm_5_epochs",
    "algorithm_5_eta0",
    "algorithm_6_radius",
    "c_kappa",
    "corollary_4_1_sample_complexity",
    "d_eff",
    "lemma_d6_bound",
    "localization_rate_max",
    "localization_rate_sum",
    "proposition_2_bound",
    "proposition_2_eta",
    "proposition_5_bounds",
    "theorem_1_lower_bound",
    "theorem_2_bound",
    "theorem_2_parameters",
    "theorem_3_bound",
    "theorem_4_lower_bound",
    "theorem_5_lower_bound",
    "theorem_6_bound",
    "theorem_8_parameters",
    "theorem_8_rate",
    "non_interpolation_rate",
]

#: Algorithm 2, line 5 (the paper's 256 = 4·2^{12/2}, the Remark's bound on c_κ at κ = 2)
ALGORITHM_2_CONSTANT = 256.0
#: Algorithm 3, line 3
ALGORITHM_3_CONSTANT = 128.0
#: Theorem 6 (imported from Asi, Levy & Duchi 2021, Theorem 2): the constant 4032 of its high-probability bound
THEOREM_6_CONSTANT = 4032.0


def _beta(beta: float, name: str = "beta") -> float:
    b = check_positive(beta, name)
    if not b < 1.0:
        raise ValueError(f"{name} must lie in (0, 1), got {b}")
    return b


def d_eff(d: int, delta: float, *, gaussian_only: bool = False) -> float:
    """The dimension term: d for δ = 0; min(d, √(d log(1/δ))) for δ > 0 (Algorithms 2, 3: the better of the
    Laplace and Gaussian branches of Algorithm 4), or √(d log(1/δ)) with ``gaussian_only`` (Algorithm 6, lines 5–6
    and Theorem 7, which use the Gaussian branch's term alone).

    d : int ≥ 1.  delta : in [0, 1).  Raises ValueError / TypeError for bad input."""
    d = check_positive_int(d, "d")
    dl = check_delta(delta)
    if dl == 0.0:
        return float(d)
    g = math.sqrt(d * math.log(1.0 / dl))
    return g if gaussian_only else min(float(d), g)


def localization_rate_max(m: int, T: int, beta: float, d: int, epsilon: float, delta: float, *,
                          gaussian_only: bool = False) -> float:
    """M(m) = max{√(log(T/β))·log^{3/2}m/√m, d_eff·log(T/β)·log m/(mε)} (Algorithm 2, line 5; Algorithm 6,
    lines 4–6 with ``gaussian_only`` for δ > 0).  m ≥ 2 samples per epoch, T ≥ 1 epochs, β ∈ (0, 1)."""
    m = check_positive_int(m, "m")
    if m < 2:
        raise ValueError(f"m must be >= 2 (log m > 0), got {m}")
    T = check_positive_int(T, "T")
    b = _beta(beta)
    eps = check_epsilon(epsilon)
    lt = math.log(T / b)
    return max(math.sqrt(lt) * math.log(m) ** 1.5 / math.sqrt(m),
               d_eff(d, delta, gaussian_only=gaussian_only) * lt * math.log(m) / (m * eps))


def localization_rate_sum(N: int, beta_prime: float, d: int, epsilon: float, delta: float) -> float:
    """A(N, β') = √(log(1/β'))·log^{3/2}N/√N + d_eff·log(1/β')·log N/(Nε) (Algorithm 3, line 3 with β' = β/2;
    the rate term of Propositions 2, 3 and Theorems 6, 7).  N ≥ 2, β' ∈ (0, 1)."""
    N = check_positive_int(N, "N")
    if N < 2:
        raise ValueError(f"N must be >= 2 (log N > 0), got {N}")
    b = _beta(beta_prime, "beta_prime")
    eps = check_epsilon(epsilon)
    lb = math.log(1.0 / b)
    return (math.sqrt(lb) * math.log(N) ** 1.5 / math.sqrt(N)
            + d_eff(d, delta) * lb * math.log(N) / (N * eps))


# ---- Algorithm 4 (Asi, Levy & Duchi 2021, reproduced in App. A.2) ---------------------------------------------

def algorithm_4_phases(n: int) -> tuple[int, int]:
    """(k, n_0) of Algorithm 4, line 1: k = ⌈log n⌉ phases (at least 1) of n_0 = ⌊n/k⌋ samples each (the remainder
    n − k·n_0 is not used: a public, data-independent rounding).  n ≥ 1; raises ValueError if n_0 = 0."""
    n = check_positive_int(n, "n")
    k = max(1, math.ceil(math.log(n)))
    n0 = n // k
    if n0 < 1:
        raise ValueError(f"n = {n} is too small for Algorithm 4's k = {k} phases")
    return k, n0


def algorithm_4_eta(i: int, eta: float) -> float:
    """η_i = 2^{−4i}·η (Algorithm 4, line 3), phase i = 1..k."""
    i = check_positive_int(i, "i")
    return 2.0 ** (-4 * i) * check_positive(eta, "eta")


def algorithm_4_sigma(L: float, eta_i: float, d: int, epsilon: float, delta: float) -> float:
    """The printed noise scale of phase i (Algorithm 4, lines 6–9): the Laplace scale 4Lη_i√d/ε per coordinate for
    δ = 0, the Gaussian standard deviation 4Lη_i√(log(1/δ))/ε for δ > 0.  The printed line 7 divides by an undefined
    ε_i; each sample enters one phase only, so ε_i = ε (ERRATA.md ACCD22-E2).  The Gaussian branch is only private where
    its exact curve says so (ERRATA.md ACCD22-E3): ``algorithms.phase_noise`` checks that, this function is the formula."""
    L = check_positive(L, "L")
    e = check_positive(eta_i, "eta_i")
    d = check_positive_int(d, "d")
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    if dl == 0.0:
        return 4.0 * L * e * math.sqrt(d) / eps
    return 4.0 * L * e * math.sqrt(math.log(1.0 / dl)) / eps


def proposition_2_eta(D: float, L: float, n: int, d: int, epsilon: float, delta: float, beta: float) -> float:
    """η of Proposition 2 (δ = 0) and Proposition 3 (δ > 0) for Algorithm 4 called on its own:
    (D/L)·min{1/√(n log(1/β)), ε/(d_δ log(1/β))} with d_δ = d (δ = 0) or √(d log(1/δ)) (δ > 0)."""
    D = check_positive(D, "D")
    L = check_positive(L, "L")
    n = check_positive_int(n, "n")
    eps = check_epsilon(epsilon)
    lb = math.log(1.0 / _beta(beta))
    return (D / L) * min(1.0 / math.sqrt(n * lb), eps / (d_eff(d, delta, gaussian_only=True) * lb))


def proposition_2_bound(n: int, d: int, epsilon: float, delta: float, L: float, D: float, beta: float) -> float:
    """Propositions 2 and 3: with probability ≥ 1 − β, f(x) − f(x*) ≤ 128·L·D·A(n, β) (A with d_eff = d or
    √(d log(1/δ))).  Requires β ≤ 1/(n + d) (ValueError otherwise)."""
    b = _beta(beta)
    if b > 1.0 / (n + d):
        raise ValueError(f"beta must be <= 1/(n + d) = {1.0 / (n + d):.3g} (Proposition 2), got {b}")
    lb = math.log(1.0 / b)
    de = d_eff(d, delta, gaussian_only=True)
    A = math.sqrt(lb) * math.log(n) ** 1.5 / math.sqrt(n) + de * lb * math.log(n) / (n * check_epsilon(epsilon))
    return 128.0 * check_positive(L, "L") * check_positive(D, "D") * A


# ---- Algorithm 5 (Asi, Levy & Duchi 2021, Algorithm 2; App. A.2) ----------------------------------------------

def algorithm_5_epochs(N: int, kappa_lower: float = 2.0) -> int:
    """T_5 = ⌈2 log N/(κ̲ − 1)⌉ epochs (Theorems 6, 7), at least 1; κ̲ > 1 the known lower bound on the growth
    exponent (2 for quadratic growth).  Algorithms 2, 3 and 6 do not say how many epochs their inner Algorithm 5
    runs; we use this one (ERRATA.md ACCD22-E6)."""
    N = check_positive_int(N, "N")
    k = check_positive(kappa_lower, "kappa_lower")
    if not k > 1.0:
        raise ValueError(f"kappa_lower must be > 1, got {k}")
    return max(1, math.ceil(2.0 * math.log(N) / (k - 1.0)))


def algorithm_5_eta0(D0: float, L: float, n0: int, d: int, epsilon: float, delta: float, beta: float) -> float:
    """η_0 of Algorithm 5, lines 2–6: (D_0/(2L))·min{1/√(n_0 log(n_0) log(1/β)), ε/(d_δ log(1/β))} with d_δ = d
    for δ = 0 and √(d log(1/δ)) for δ > 0.  log n_0 is floored at 1 (n_0 ≤ e would give log n_0 ≤ 1, or 0 at
    n_0 = 1: a division by zero the paper does not guard; ERRATA.md ACCD22-E7)."""
    D0 = check_positive(D0, "D0")
    L = check_positive(L, "L")
    n0 = check_positive_int(n0, "n0")
    eps = check_epsilon(epsilon)
    lb = math.log(1.0 / _beta(beta))
    return (D0 / (2.0 * L)) * min(1.0 / math.sqrt(n0 * max(1.0, math.log(n0)) * lb),
                                  eps / (d_eff(d, delta, gaussian_only=True) * lb))


def theorem_6_bound(n: int, d: int, epsilon: float, delta: float, L: float, lam: float, beta: float,
                    kappa: float = 2.0, kappa_lower: float = 2.0) -> float:
    """Theorems 6 (δ = 0) and 7 (δ > 0), Algorithm 5 under κ-growth: with probability ≥ 1 − β,
    f(x_T) − min f ≤ (4032/λ^{1/(κ−1)})·(L√(log(1/β))log^{3/2}n/√n + L·d_δ·log(1/β)·log n/(nε(κ̲ − 1)))^{κ/(κ−1)}
    (d_δ = d or √(d log(1/δ))).  For κ = 2: (4032/λ)·L²·A(n, β)²."""
    n = check_positive_int(n, "n")
    L = check_positive(L, "L")
    lam = check_positive(lam, "lam")
    lb = math.log(1.0 / _beta(beta))
    k = check_positive(kappa, "kappa")
    kl = check_positive(kappa_lower, "kappa_lower")
    if not (k >= kl > 1.0):
        raise ValueError(f"need kappa >= kappa_lower > 1, got kappa = {k}, kappa_lower = {kl}")
    de = d_eff(d, delta, gaussian_only=True)
    inner = (L * math.sqrt(lb) * math.log(n) ** 1.5 / math.sqrt(n)
             + L * de * lb * math.log(n) / (n * check_epsilon(epsilon) * (kl - 1.0)))
    return THEOREM_6_CONSTANT / lam ** (1.0 / (k - 1.0)) * inner ** (k / (k - 1.0))


# ---- Algorithm 2 and Theorem 2 -------------------------------------------------------------------------------

def algorithm_2_radius(L_i: float, lam: float, m: int, T: int, beta: float, d: int, epsilon: float, delta: float,
                       constant: float = ALGORITHM_2_CONSTANT) -> float:
    """D_{i+1} = c·(L_i/λ)·M(m) (Algorithm 2, line 5; c = 256 by default, a *utility* constant)."""
    return (check_positive(constant, "constant") * check_positive(L_i, "L_i") / check_positive(lam, "lam")
            * localization_rate_max(m, T, beta, d, epsilon, delta))


def theorem_2_parameters(n: int, d: int, epsilon: float, delta: float, H: float, lam: float, mu: float = 1.0, *,
                         printed: bool = False) -> tuple[float, float, int]:
    """(β, m, T) of Theorem 2: β = n^{−μ}, m = 256·log²n·(H log(1/β)/λ)·max{256H/λ, d_δ/(ε√(log n))}, T = ⌊n/m⌋.

    d_δ = d for δ = 0; for δ > 0 the corrected √(d log(1/δ)) (the rest of the paper's term; ERRATA.md ACCD22-E8), or
    the printed √d·log(1/δ) with ``printed=True``.  m is returned unrounded (a float: at the paper's constants it
    exceeds n for every practical n, so T = 0; the algorithms take m as an explicit, recorded utility override).
    """
    n = check_positive_int(n, "n")
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    d = check_positive_int(d, "d")
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    H = check_positive(H, "H")
    lam = check_positive(lam, "lam")
    mu = check_positive(mu, "mu")
    beta = float(n) ** (-mu)
    if dl == 0.0:
        de = float(d)
    elif printed:
        de = math.sqrt(d) * math.log(1.0 / dl)
    else:
        de = math.sqrt(d * math.log(1.0 / dl))
    ln = math.log(n)
    m = 256.0 * ln ** 2 * (H * math.log(1.0 / beta) / lam) * max(256.0 * H / lam, de / (eps * math.sqrt(ln)))
    return beta, m, int(n // m) if m <= n else 0


def theorem_2_bound(T: int, n: int, mu: float, L: float, H: float, lam: float, D: float) -> float:
    """The explicit form of Theorem 2's bound that its proof gives (eq. (6) and the expectation step):
    E[f(x_T) − f*] ≤ (L²λ/(8H²))·e^{−T} + β·HD²/2 with β = n^{−μ}, valid when (c H M(m)/λ)² ≤ 1/e (the per-epoch
    contraction; the paper's "for sufficiently large n").  The printed prefactor L·D of eq. (3) is not what the
    proof gives (ERRATA.md ACCD22-E10)."""
    T = check_positive_int(T, "T")
    n = check_positive_int(n, "n")
    L = check_positive(L, "L")
    H = check_positive(H, "H")
    lam = check_positive(lam, "lam")
    D = check_positive(D, "D")
    return L ** 2 * lam / (8.0 * H ** 2) * math.exp(-T) + float(n) ** (-check_positive(mu, "mu")) * H * D ** 2 / 2.0


def corollary_4_1_sample_complexity(alpha: float, rho: float, d: int, epsilon: float, delta: float) -> float:
    """Corollary 4.1's sample complexity, hidden constants 1: n = α^{−ρ} + (d_δ/(ρε))·log(1/α), d_δ = d or
    √(d log(1/δ)).  α ∈ (0, 1), ρ > 0."""
    a = check_positive(alpha, "alpha")
    if not a < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {a}")
    r = check_positive(rho, "rho")
    return a ** (-r) + d_eff(d, delta, gaussian_only=True) / (r * check_epsilon(epsilon)) * math.log(1.0 / a)


# ---- Algorithm 3 and Theorems 3, 9 -----------------------------------------------------------------------------

def algorithm_3_radius(L: float, lam: float, n: int, beta: float, d: int, epsilon: float, delta: float,
                       constant: float = ALGORITHM_3_CONSTANT, *, printed: bool = False) -> float:
    """D_int = c·(L/λ)·A(N, β/2) (Algorithm 3, line 3; c = 128 a utility constant) with N = ⌊n/2⌋, the size of the
    half S_1 that x_1 was computed from (corrected, ERRATA.md ACCD22-E12), or N = n as printed (``printed=True``)."""
    n = check_positive_int(n, "n")
    N = n if printed else n // 2
    return (check_positive(constant, "constant") * check_positive(L, "L") / check_positive(lam, "lam")
            * localization_rate_sum(N, _beta(beta) / 2.0, d, epsilon, delta))


def theorem_3_bound(n: int, d: int, epsilon: float, delta: float, L: float, H: float, lam: float, beta: float,
                    D: float, constant: float = ALGORITHM_3_CONSTANT) -> float:
    """Theorem 3.2 (δ = 0) / Theorem 9.2 (δ > 0), Algorithm 3 without interpolation, the explicit form its proof
    gives: E[f(x_adapt) − f*] ≤ (H/2)·D_int² + (β/2)·HD²/2, where D_int = c(L/λ)A(⌊n/2⌋, β/2) (on the event of
    probability ≥ 1 − β/2 that x_1 localises, every point of X_int is within D_int of x*, and f − f* ≤ (H/2)‖x − x*‖²
    there when ∇f(x*) = 0; otherwise f − f* ≤ HD²/2).  The printed L·D·Õ(·)² prefactor is not what the proof gives
    (ERRATA.md ACCD22-E10)."""
    Dint = algorithm_3_radius(L, lam, n, beta, d, epsilon, delta, constant)
    H = check_positive(H, "H")
    return H / 2.0 * Dint ** 2 + _beta(beta) / 2.0 * H * check_positive(D, "D") ** 2 / 2.0


def non_interpolation_rate(n: int, d: int, epsilon: float, delta: float, kappa: float = 2.0) -> float:
    """(1/√n + d_δ/(nε))^{κ/(κ−1)}: the minimax rate without interpolation (Asi, Levy & Duchi 2021; Theorem 3.2
    for κ = 2, Remark 2), hidden constants 1 — a shape for rate checks."""
    n = check_positive_int(n, "n")
    k = check_positive(kappa, "kappa")
    if not k > 1.0:
        raise ValueError(f"kappa must be > 1, got {k}")
    return (1.0 / math.sqrt(n) + d_eff(d, delta, gaussian_only=True) / (n * check_epsilon(epsilon))) ** (k / (k - 1))


# ---- Algorithm 6 and Theorem 8 ---------------------------------------------------------------------------------

def c_kappa(kappa: float) -> float:
    """c_κ = 2(C_κ κ)^{1/κ} with C_κ = 2^12 (the Remark after Algorithm 6: C_κ ≤ 2^12, c_κ ≤ 4·2^{12/κ})."""
    k = check_positive(kappa, "kappa")
    return 2.0 * (2.0 ** 12 * k) ** (1.0 / k)


def algorithm_6_radius(L_i: float, lam: float, kappa: float, m: int, T: int, beta: float, d: int, epsilon: float,
                       delta: float, constant: float | None = None) -> float:
    """D_{i+1} = c_κ·((L_i/λ)·M(m))^{1/(κ−1)} (Algorithm 6, lines 3–6; M with √(d log(1/δ)) for δ > 0 as lines
    5–6 print).  ``constant`` defaults to :func:`c_kappa` (a utility constant)."""
    k = check_positive(kappa, "kappa")
    if not k > 2.0:
        raise ValueError(f"Algorithm 6 needs kappa > 2, got {k}")
    c = c_kappa(k) if constant is None else check_positive(constant, "constant")
    M = localization_rate_max(m, T, beta, d, epsilon, delta, gaussian_only=True)
    return c * (check_positive(L_i, "L_i") / check_positive(lam, "lam") * M) ** (1.0 / (k - 1.0))


def theorem_8_parameters(n: int) -> tuple[int, int]:
    """(T, m) of Theorem 8: T = log n epochs (⌊log n⌋, at least 1) of m = ⌊n/T⌋ samples."""
    n = check_positive_int(n, "n")
    T = max(1, int(math.floor(math.log(n))))
    return T, n // T


def theorem_8_rate(n: int, d: int, epsilon: float, delta: float, kappa: float) -> float:
    """Theorem 8's shape (1/√n + d_δ/(nε))^{κ/(κ−2)}, hidden constants and logarithms 1 (d_δ = √(d log(1/δ)) for
    δ > 0, the form of Algorithm 6; the printed √d·log(1/δ) is ERRATA.md ACCD22-E8's twin).  κ > 2."""
    k = check_positive(kappa, "kappa")
    if not k > 2.0:
        raise ValueError(f"Theorem 8 needs kappa > 2, got {k}")
    n = check_positive_int(n, "n")
    return (1.0 / math.sqrt(n) + d_eff(d, delta, gaussian_only=True) / (n * check_epsilon(epsilon))) ** (k / (k - 2))


# ---- lower bounds (Theorems 1, 4, 5; Proposition 5; Lemma D.6) -------------------------------------------------

def theorem_1_lower_bound(n: int, d: int, epsilon: float, delta: float, H: float, D: float) -> float:
    """Theorem 1: the minimax excess empirical risk of (ε, δ)-DP mechanisms over interpolation problems with
    H-smooth convex losses on a domain containing a ball of diameter D is ≥ H D² d/(96 e² n ε) for δ = 0, and
    ≥ H D²/(16(e + 1) n ε) for d = 1 and 0 < δ < ε/6.  Requires nε ≥ d (δ = 0; the construction's k = d/ε ≤ n).
    Raises ValueError outside these conditions."""
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    H = check_positive(H, "H")
    D = check_positive(D, "D")
    if dl == 0.0:
        if n * eps < d:
            raise ValueError(f"Theorem 1 (δ = 0) needs n·epsilon >= d, got n·epsilon = {n * eps}, d = {d}")
        return H * D ** 2 * d / (96.0 * math.e ** 2 * n * eps)
    if d != 1 or not dl < eps / 6.0:
        raise ValueError(f"Theorem 1 (δ > 0) needs d = 1 and delta < epsilon/6, got d = {d}, delta = {dl}")
    return H * D ** 2 / (16.0 * (math.e + 1.0) * n * eps)


def theorem_4_lower_bound(n: int, d: int, epsilon: float, H: float, lam: float, D: float) -> float:
    """Theorem 4: over interpolation problems with λ-quadratic growth, ε-DP mechanisms have minimax excess
    empirical risk ≥ (λD²/96)·exp(−2λnε/(Hd)).  Requires e^{λnε/H} ≥ 2 (ValueError otherwise)."""
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    eps = check_epsilon(epsilon)
    H = check_positive(H, "H")
    lam = check_positive(lam, "lam")
    if lam * n * eps / H < math.log(2.0):
        raise ValueError(f"Theorem 4 needs exp(lam·n·epsilon/H) >= 2, got lam·n·epsilon/H = {lam * n * eps / H}")
    return lam * check_positive(D, "D") ** 2 / 96.0 * math.exp(-2.0 * lam * n * eps / (H * d))


def theorem_5_lower_bound(n: int, epsilon: float, D: float, t: float) -> float:
    """Theorem 5 (superefficiency), hidden constant 1: an ε-DP mechanism whose excess on an interpolating S is
    ≤ cD²e^{−Θ((nε)^t)} has excess Ω(D²/(nε)^{2(1−t)}) on some S' (t ← min(1, t): constant error for t ≥ 1)."""
    n = check_positive_int(n, "n")
    t = min(1.0, check_positive(t, "t"))
    return check_positive(D, "D") ** 2 / (n * check_epsilon(epsilon)) ** (2.0 * (1.0 - t))


def proposition_5_bounds(n: int, epsilon: float, D: float, H: float, lam: float) -> tuple[float, float]:
    """Proposition 5: D/(nε) ≤ ω(S, 1/ε) ≤ 8HD/(λnε) (the modulus of continuity of the minimiser at Hamming
    distance 1/ε, for interpolating S with λ-strongly convex f_S, L = 2HD).  Returns (lower, upper)."""
    n = check_positive_int(n, "n")
    eps = check_epsilon(epsilon)
    D = check_positive(D, "D")
    return D / (n * eps), 8.0 * check_positive(H, "H") * D / (check_positive(lam, "lam") * n * eps)


def lemma_d6_bound(k: int, L: float, lam: float, n: int) -> float:
    """Lemma D.6: ‖x_S − x_S'‖ ≤ 4kL/(λn) for |S △ S'| = k, f_S λ-strongly convex and interpolating, F ≥ 0
    L-Lipschitz with inf F = 0."""
    return 4.0 * check_positive_int(k, "k") * check_positive(L, "L") / (check_positive(lam, "lam")
                                                                        * check_positive_int(n, "n"))
