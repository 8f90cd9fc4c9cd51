"""Asi, Liu & Tian (2024), Sections 5.1 and 6: one-pass clipped SGD (Algorithm 5, Lemma 8, Corollary 4) and its
private phased version for smooth generalised linear models (Algorithm 8, Theorem 4).

Algorithm 5 is the non-private building block: T projected steps x_{t+1} = Π_X(x_t − η·Π_C(∇f(x_t; s_{t+1})))
over T records, each used once, returning the average of x_0..x_{T−1}.  Corollary 4's variant replaces Π_C by
Π_{C,Ĉ_t} (clip only when ‖g‖ ≥ Ĉ_t).

Algorithm 8 runs Algorithm 5 on I = ⌊log₂ n⌋ disjoint phases of n_i = 2^{I−i} records with η_i = η/16^i,
C_i = 2^i C and adds N(0, σ_i² I), σ_i = 2η_iC_i√(2/ρ), to each phase average.  For a GLM f(x; s) = σ(⟨s, x⟩)
whose every record is β-smooth with η_i ≤ 2/β, every step after the differing record is non-expansive
(Fact 3 with Lemma 14: clipping a GLM gradient keeps the contraction), so the phase averages of neighbouring
datasets differ by at most 2η_iC_i and each noisy phase is (2η_iC_i)²/(2σ_i²) = ρ/4-zCDP; disjoint phases
compose in parallel.  **The release claims ρ/4-zCDP** (μ = √(ρ/2) Gaussian DP), which is what the proof gives;
the noise is kept as printed (Theorem 4's utility constants assume it), and Theorem 4's "ρ-CDP" is implied.

Deviations from the printed text (ERRATA.md):
* each phase starts at Π_X(x_{i−1}) and the output is Π_X(x_I): x_i = x̄_i + ξ_i can leave X, Algorithm 5
  requires its start in X, and Theorem 4 states x_I ∈ X, which the printed line does not ensure (both are
  post-processing of private values, so the privacy proof is unchanged; ``project=False`` gives the printed
  iterates);
* the claim is ρ/4-zCDP, not ρ (the proof's bound, strictly stronger).

Privacy premise checked at run time, not assumed: the loss is a GLM (``loss.glm``), its declared uniform
smoothness β is finite, and β ≤ 2/η (Theorem 4's β bound, which implies η_i ≤ 2/β for every phase).  A record
that breaks the declared β is refused: the losses refuse records outside their declared range, and a loss
with a per-record smoothness map (``record_smoothness(S, radius)``) has every record checked against β.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpsco.reference.alt24.model import HeavyTailedLoss, MomentBounds, check_records
from dpsco.reference.alt24.primitives import project_ball, vector_norm
from dpsco.reference.alt24.theorems import zcdp_to_dp
from dpsco.reference.clipping import enforce_norm_bound
from dpsco.reference.domains import Ball, require_centred
from dpsco.reference.privacy import PrivacyClaim, Release
from dpsco.reference.validation import as_float_vector, check_delta, check_positive, check_rng

__all__ = ["onepass_clipped_sgd", "onepass_clipped_dp_sgd", "theorem_4_parameters", "lemma_8_terms"]

ALG5 = "OnePass-Clipped-SGD (Asi, Liu & Tian 2024, Algorithm 5)"
ALG8 = "OnePass-Clipped-DP-SGD (Asi, Liu & Tian 2024, Algorithm 8)"


def _check_domain(domain: Any) -> Ball:
    require_centred(domain, "domain", "Asi, Liu & Tian 2024, Sec. 2")  # X = B(0, R), Sec. 2
    if not domain.bounded:
        raise ValueError("domain must be bounded: Algorithms 5 and 8 need a finite diameter D")
    return domain


def _check_loss(loss: Any) -> HeavyTailedLoss:
    if not isinstance(loss, HeavyTailedLoss):
        raise TypeError(f"loss must be a HeavyTailedLoss, got {type(loss).__name__}")
    return loss


def _onepass(S: np.ndarray, loss: HeavyTailedLoss, C: float, eta: float, radius: float, x0: np.ndarray,
             thresholds: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, int]:
    """Algorithm 5 on the rows of S in order: returns (x̂ = mean of x_0..x_{T−1}, x_T, clipped-step count).

    Floating point: ‖∇f‖ is computed overflow-safe (a NaN norm counts as inf: the step is clipped); a clipped
    step uses the loss's exact Π_C (``clipped_grads_at``, ‖·‖ ≤ C), and with a finite C a step above its bound
    (C, or Ĉ_t for an unclipped Corollary 4 step) goes through ``enforce_norm_bound`` (never on correct input);
    Π_X is ``project_ball`` (finite whatever the step)."""
    T = S.shape[0]
    x = x0.copy()
    total = np.zeros_like(x0)
    clipped = 0
    zero = np.zeros_like(x0)
    for t in range(T):
        total += x                                        # x̂ averages x_0 .. x_{T−1} (Alg 5, Return line)
        s = S[t:t + 1]
        g = loss.grads(x, s)[0]                           # ∇f(x_t; s_{t+1})
        norm = vector_norm(g)
        norm = math.inf if math.isnan(norm) else norm
        if thresholds is None or norm >= thresholds[t]:   # Cor 4: Π_{C,Ĉ_t} clips only when ‖g‖ ≥ Ĉ_t
            if norm > C:                                  # Π_C(g) = g·min(1, C/‖g‖), exact and ‖·‖ ≤ C
                clipped += 1
                g = loss.clipped_grads_at(x[None, :], s, C)[0, 0]
        bound = max(C, thresholds[t]) if thresholds is not None else C   # ‖g‖ ≤ bound always holds here
        if math.isfinite(bound) and not vector_norm(g) <= bound:         # fail-safe (never taken on correct input)
            g = enforce_norm_bound(g[None, :], bound)[0]
        with np.errstate(over="ignore", invalid="ignore"):   # C = inf (no clip): a heavy step may overflow
            y = x - eta * g                               # Alg 5, line 3: argmin over X = Π_X(x_t − η ĝ_t)
        x = project_ball(y, zero, radius)
    return total / T, x, clipped


def onepass_clipped_sgd(S: Any, loss: HeavyTailedLoss, C: float, eta: float, domain: Ball, x0: Any, *,
                        clip_thresholds: Any = None) -> Release:
    """Algorithm 5, OnePass-Clipped-SGD(D, C, η, T, X, x_0) (Asi, Liu & Tian 2024, Section 5.1): **not private**.

    T = #S steps, one record each in order: x_{t+1} = Π_X(x_t − η·Π_C(∇f(x_t; s_{t+1}))); returns
    x̂ = (1/T)Σ_{t<T} x_t.  With ``clip_thresholds`` (Ĉ_0..Ĉ_{T−1}, each ≥ C/2 and chosen independently of
    s_{t+1}) the step uses Corollary 4's Π_{C,Ĉ_t}(g) = Π_C(g) if ‖g‖ ≥ Ĉ_t, else g.

    Utility: Lemma 8, E[F_P(x̂) − F_P(u)] ≤ ‖x_0 − u‖²/(2ηT) + ηG_2²/2 + G_k^k D/((k−1)C^{k−1}) for D ~ P^T and u
    independent of D; Corollary 4: 2ηG_2² and (C/2) in place of ηG_2²/2 and C.  See :func:`lemma_8_terms`.

    S : (T, p) records;  loss : HeavyTailedLoss;  C ≥ 0 (inf: no clipping);  η ≥ 0;  domain : Ball(R) = X;
    x0 : (d,) in X;  clip_thresholds : None or (T,) floats ≥ C/2.
    Returns a Release with claim notion "none", output x̂ (d,), gradient_evaluations = T (exactly one
    per-sample gradient per record), diagnostics {"clipped_steps", "last_iterate"}.
    Raises ValueError / TypeError naming the parameter (x0 outside X, negative C or η, bad shapes)."""
    loss = _check_loss(loss)
    S, d = check_records(S, loss)
    domain = _check_domain(domain)
    C = check_positive(C, "C", allow_zero=True, allow_inf=True)
    eta = check_positive(eta, "eta", allow_zero=True)
    x0 = as_float_vector(x0, "x0", d)
    if float(np.linalg.norm(x0)) > domain.radius * (1.0 + 1e-12):
        raise ValueError(f"x0 must lie in X = B(0, {domain.radius}) (Algorithm 5: x_0 ∈ X), ‖x0‖ = "
                         f"{float(np.linalg.norm(x0))}")
    thresholds = None
    if clip_thresholds is not None:
        thresholds = as_float_vector(clip_thresholds, "clip_thresholds", S.shape[0])
        if np.any(thresholds < C / 2.0):
            raise ValueError("clip_thresholds must all be >= C/2 (Corollary 4's premise Ĉ_t ≥ C/2)")
    xhat, last, clipped = _onepass(S, loss, C, eta, domain.radius, x0, thresholds)
    claim = PrivacyClaim(notion="none", epsilon=math.inf, delta=1.0, neighbouring="replace-one",
                         source="Asi, Liu & Tian 2024, Algorithm 5 (non-private building block)")
    return Release(output=xhat, claim=claim, gradient_evaluations=int(S.shape[0]),
                   parameters={"C": C, "eta": eta, "T": int(S.shape[0]), "radius": domain.radius,
                               "variant": "Corollary 4" if thresholds is not None else "Algorithm 5"},
                   algorithm=ALG5, diagnostics={"clipped_steps": clipped, "last_iterate": last.tolist()})


def lemma_8_terms(T: int, eta: float, C: float, dist0: float, bounds: MomentBounds, D: float, *,
                  corollary_4: bool = False) -> dict[str, float]:
    """The three terms of Lemma 8's bound ‖x_0 − u‖²/(2ηT) + ηG_2²/2 + G_k^k D/((k−1)C^{k−1}) (Asi, Liu & Tian
    2024, Lemma 8) and their sum; ``corollary_4=True`` gives Corollary 4's 2ηG_2² and G_k^k D/((k−1)(C/2)^{k−1}).
    The last term uses only Fact 1's outer inequality, which holds as printed.  T ≥ 1; η, C, D > 0;
    dist0 = ‖x_0 − u‖ ≥ 0."""
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or int(T) < 1:
        raise ValueError(f"T must be an integer >= 1, got {T!r}")
    eta = check_positive(eta, "eta")
    C = check_positive(C, "C")
    dist0 = check_positive(dist0, "dist0", allow_zero=True)
    D = check_positive(D, "D")
    if not isinstance(bounds, MomentBounds):
        raise TypeError(f"bounds must be a MomentBounds, got {type(bounds).__name__}")
    k = bounds.k
    c_eff = C / 2.0 if corollary_4 else C
    start = dist0**2 / (2.0 * eta * int(T))
    variance = (2.0 if corollary_4 else 0.5) * eta * bounds.G_2**2
    bias = bounds.G_k**k * D / ((k - 1) * c_eff ** (k - 1))
    return {"start": start, "variance": variance, "clipping_bias": bias, "total": start + variance + bias}


def theorem_4_parameters(n: int, d: int, rho: float, bounds: MomentBounds, D: float) -> dict[str, Any]:
    """Algorithm 8's parameters (Asi, Liu & Tian 2024, Algorithm 8 lines 2–6, Theorem 4).

    I = ⌊log₂ n⌋, n ← 2^I (n_eff);  η = min(√(8/n)·D/G_2, (1/n)(n²ρ/(32d))^{(k−1)/(2k)}·2^{(k+1)/(2k)}·D/G_k);
    C = (G_k^k D ρ n/(32ηd))^{1/(k+1)};  phase i ∈ [I]: n_i = n/2^i, η_i = η/16^i, C_i = 2^i C,
    σ_i = 2η_iC_i√(2/ρ).  Theorem 4's smoothness bound β_max = max(√(n/2)·G_2/D, n(d/(n²ρ))^{(k−1)/(2k)}·G_k/D)
    (≤ 2/η, since 2/η = max(√(n/2)G_2/D, 2^{3(k−1)/k}·n(d/(n²ρ))^{(k−1)/(2k)}G_k/D)), with n = n_eff.

    Only public inputs: n ≥ 2 (I ≥ 1), d ≥ 1, ρ > 0, the moment bounds, D > 0.  Returns a dict with I, n_eff,
    eta, C, beta_max, two_over_eta and "phases" (a list of dicts n_i, eta_i, C_i, sigma_i, start, stop: the
    records [start, stop) of phase i).  Raises ValueError / TypeError naming the parameter."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or int(n) < 2:
        raise ValueError(f"n must be an integer >= 2 (Algorithm 8 needs I = ⌊log₂ n⌋ ≥ 1), got {n!r}")
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or int(d) < 1:
        raise ValueError(f"d must be an integer >= 1, got {d!r}")
    rho = check_positive(rho, "rho")
    D = check_positive(D, "D")
    if not isinstance(bounds, MomentBounds):
        raise TypeError(f"bounds must be a MomentBounds, got {type(bounds).__name__}")
    n, d = int(n), int(d)
    k, G2, Gk = bounds.k, bounds.G_2, bounds.G_k
    I = n.bit_length() - 1                                  # ⌊log₂ n⌋ exactly (line 2)
    m = 2**I                                                # line 3: n ← 2^I
    e = (k - 1) / (2 * k)
    eta = min(math.sqrt(8.0 / m) * D / G2,
              (1.0 / m) * (m**2 * rho / (32.0 * d)) ** e * 2.0 ** ((k + 1) / (2 * k)) * D / Gk)   # line 4
    C = (Gk**k * D * rho * m / (32.0 * eta * d)) ** (1.0 / (k + 1))                            # line 4
    beta_max = max(math.sqrt(m / 2.0) * G2 / D, m * (d / (m**2 * rho)) ** e * Gk / D)          # Theorem 4
    phases = []
    start = 0
    for i in range(1, I + 1):                               # line 5
        n_i = m >> i                                        # line 6: n_i = 2^{−i} n
        eta_i = eta / 16.0**i
        C_i = 2.0**i * C
        phases.append({"i": i, "n_i": n_i, "eta_i": eta_i, "C_i": C_i,
                       "sigma_i": 2.0 * eta_i * C_i * math.sqrt(2.0 / rho), "start": start, "stop": start + n_i})
        start += n_i                                        # line 7: D_i = the next n_i unused records
    return {"I": I, "n_eff": m, "eta": eta, "C": C, "beta_max": beta_max, "two_over_eta": 2.0 / eta,
            "phases": phases}


def _declared_smoothness(loss: HeavyTailedLoss, S: np.ndarray, radius: float, beta: Any) -> float:
    own = loss.smoothness(radius)
    if beta is None:
        if own is None:
            raise ValueError(f"loss {loss.name} declares no uniform smoothness β: Algorithm 8's privacy proof "
                             "(Fact 3) needs every record β-smooth; pass a valid beta or use a smooth GLM")
        beta = own
    beta = check_positive(beta, "beta", allow_zero=True)
    if own is not None and beta < own * (1.0 - 1e-12):
        raise ValueError(f"beta = {beta} is below the loss's own uniform smoothness {own}: the declaration is "
                         "contradicted by the loss")
    try:                                       # the loss's own range checks (e.g. ‖s‖ ≤ M of a logistic GLM) run
        loss.lipschitz_bound(S, radius)        # on every used record before any noise is drawn
    except NotImplementedError:
        pass
    per_record = getattr(loss, "record_smoothness", None)
    if per_record is not None:
        b = np.asarray(per_record(S, radius), dtype=np.float64)
        if b.size and float(np.max(b)) > beta * (1.0 + 1e-12):
            j = int(np.argmax(b))
            raise ValueError(f"record {j} is {float(b[j])}-smooth, above the declared beta = {beta}: Algorithm 8's "
                             "privacy premise (every record β-smooth) fails")
    return beta


def onepass_clipped_dp_sgd(S: Any, loss: HeavyTailedLoss, domain: Ball, x0: Any, rho: float,
                           bounds: MomentBounds, rng: np.random.Generator, *, beta: float | None = None,
                           delta: float = 1e-6, project: bool = True, white_box: bool = False) -> Release:
    """Algorithm 8, OnePass-Clipped-DP-SGD(D, n, X, x_0, ρ) (Asi, Liu & Tian 2024, Section 6, Theorem 4).

    Records s_1..s_n (rows of S; the first 2^I are used, I = ⌊log₂ n⌋), a GLM loss f(x; s) = σ(⟨s, x⟩) every
    record of which is β-smooth (declared ``beta``, default ``loss.smoothness(R)``), X = B(0, R) (D = 2R),
    x_0 ∈ X, ρ > 0, the public moment bounds G_2, G_k.  Parameters from :func:`theorem_4_parameters` only.

    Privacy: claims (ρ/4)-zCDP under replace-one (μ = √(ρ/2) Gaussian DP; ε reported at ``delta`` by
    ε = ρ' + 2√(ρ' log(1/δ)) with ρ' = ρ/4), the bound Theorem 4's proof gives with the printed σ_i; requires a
    GLM and β ≤ 2/η (checked; ValueError otherwise).
    Utility: Theorem 4, E[F_P(x_I) − F_P(x*)] ≤ 4G_2D/√n + 26G_kD(√d/(n√ρ))^{1−1/k} as printed; the corrected
    constants are in ``dpsco.reference.alt24.theorems``.
    Gradient evaluations: Σ_i n_i = 2^I − 1 ≤ n (one per used record), exactly.

    ``project=True`` (default) starts each phase at Π_X(x_{i−1}) and returns Π_X(x_I) (errata: the printed
    x_{i−1}, x_I can lie outside X); ``project=False`` follows the printed lines (Algorithm 5 still projects its
    own steps).  Returns a Release: output (d,), claim, parameters (η, C, β, phases), diagnostics
    {"clipped_steps": per phase} (data-dependent, not covered by the claim).  ``white_box=True`` also sets
    ``Release.white_box`` (a verification record, never serialised) to the white-box view of the run: a dict
    with "phase_starts" (I, d), the start of each phase (Π_X(x_{i−1}) when projecting), and "phase_releases"
    (I, d), the noisy phase outputs x_i = x̄_i + N(0, σ_i² I) (lines 9–10), all covered by the claim.
    Raises ValueError / TypeError naming the parameter."""
    loss = _check_loss(loss)
    S, d = check_records(S, loss)
    domain = _check_domain(domain)
    rng = check_rng(rng)
    rho = check_positive(rho, "rho")
    delta = check_delta(delta)
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must be in (0, 1), got {delta}")
    if not isinstance(project, bool):
        raise TypeError(f"project must be a bool, got {type(project).__name__}")
    if not isinstance(white_box, bool):
        raise TypeError(f"white_box must be a bool, got {type(white_box).__name__}")
    if not loss.glm:
        raise ValueError(f"loss {loss.name} is not a GLM f(x; s) = σ(⟨s, x⟩): Algorithm 8's privacy proof "
                         "(Lemma 14) needs every gradient to be a multiple of its record")
    x0 = as_float_vector(x0, "x0", d)
    R = domain.radius
    if float(np.linalg.norm(x0)) > R * (1.0 + 1e-12):
        raise ValueError(f"x0 must lie in X = B(0, {R}), ‖x0‖ = {float(np.linalg.norm(x0))}")
    n = S.shape[0]
    if n < 2:
        raise ValueError(f"S must hold at least 2 records (I = ⌊log₂ n⌋ ≥ 1), got {n}")
    D = domain.diameter
    par = theorem_4_parameters(n, d, rho, bounds, D)
    beta = _declared_smoothness(loss, S[:par["n_eff"]], R, beta)
    if beta > par["two_over_eta"]:
        raise ValueError(f"beta = {beta} > 2/η = {par['two_over_eta']}: Algorithm 8's privacy proof needs "
                         "η_i ≤ 2/β (Fact 3); Theorem 4 requires β ≤ β_max = " f"{par['beta_max']}")
    x = x0.copy()
    clipped = []
    starts, releases = [], []
    for ph in par["phases"]:                                 # Algorithm 8, lines 5–11
        start = project_ball(x, np.zeros(d), R) if project else x
        xbar, _, c = _onepass(S[ph["start"]:ph["stop"]], loss, ph["C_i"], ph["eta_i"], R, start, None)  # line 8
        clipped.append(c)
        x = xbar + ph["sigma_i"] * rng.standard_normal(d)   # lines 9–10
        starts.append(start.copy())
        releases.append(x.copy())
    out = project_ball(x, np.zeros(d), R) if project else x
    rho_claim = rho / 4.0
    from dp_accounting import dp_event

    claim = PrivacyClaim(
        notion="zCDP", epsilon=zcdp_to_dp(rho_claim, delta), delta=delta, neighbouring="replace-one",
        source="Asi, Liu & Tian 2024, Theorem 4 (privacy step: phase averages differ by ≤ 2η_iC_i; σ_i = "
               "2η_iC_i√(2/ρ) gives ρ/4-zCDP per phase; parallel composition over disjoint phases)",
        assumptions={"glm": True, "beta": beta, "beta_condition": "beta <= 2/eta", "eta": par["eta"],
                     "C": par["C"], "rho_input": rho, "n_eff": par["n_eff"], "radius": R,
                     "disjoint_phases": True},
        rho=rho_claim, mu=math.sqrt(2.0 * rho_claim),
        event=dp_event.GaussianDpEvent(1.0 / math.sqrt(2.0 * rho_claim)), event_neighbouring="ADD_OR_REMOVE_ONE")
    params = {"I": par["I"], "n_eff": par["n_eff"], "eta": par["eta"], "C": par["C"], "beta": beta,
              "beta_max": par["beta_max"], "rho": rho, "radius": R, "project": project,
              "phases": [{k: v for k, v in ph.items()} for ph in par["phases"]]}
    wb = {"phase_starts": np.array(starts), "phase_releases": np.array(releases)} if white_box else None
    return Release(output=out, claim=claim, gradient_evaluations=par["n_eff"] - 1, parameters=params,
                   algorithm=ALG8, diagnostics={"clipped_steps": clipped}, white_box=wb)


#: the one-pass loop shared by Algorithms 5 and 8 (public for the planted copies in verification/mutants)
onepass_loop = _onepass
