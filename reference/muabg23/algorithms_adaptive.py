"""Menart et al. (2023), arXiv:2311.13447 v2: Algorithm 3 (adaptive noisy gradient descent under a fully
adaptive privacy filter, Theorem 3 / Theorem 4) and the Theorem 5 variant (output iterate chosen by the
exponential mechanism).

The seed text lacks the box of Algorithm 3; the lines cited below are the *reconstructed* box (lines 1-7):

    η = 1/(2 L_1); spent = 0                                                     (line 1)
    while spent ≤ ρ/2:                                                           (line 2)
        N_t = ‖∇F(w_t)‖ + b̂_t,  b̂_t ~ N(0, σ̂²) (scalar)                        (line 3)
        σ_t = max{N_t/ψ, σ_min};  ∇_t = ∇F(w_t) + N(0, σ_t² I_d)                 (line 4)
        w_{t+1} = w_t − η ∇_t                                                    (line 5)
        ρ_t = cost of the two releases                                           (line 6)
        spent += ρ_t                                                             (line 7)

Exact calibration ("exact", the default; replace-one, sensitivity Δ = 2 L_0/n of the clipped mean gradient
and of its norm): the norm query costs c_N = √ρ/n (σ̂ = Δ/√(2 c_N)); the gradient release costs
Δ²/(2σ_t²) **computed from the realised σ_t** (known before the release, never from N_t), capped at
c_max = ρ/2 − c_N by the floor σ_min = Δ/√(2 c_max); ψ = 2(√d + √(2 log(2(n√ρ+2)/β))).  Each step then costs
≤ ρ/2, the guard admits a step only while spent ≤ ρ/2, so Σ ρ_t ≤ ρ almost surely and the transcript
w_0..w_T is ρ-zCDP by fully adaptive composition (Whitehouse, Ramdas, Rogers & Wu 2022, Theorem 1; Feldman &
Zrnic 2021), equivalently √(2ρ)-GDP (Smith & Thakurta 2022).

Printed calibration ("printed"): σ̂ = L_0/(√n ρ^{1/4}), σ_min = √2 L_0/(n√ρ), ψ = √(d log(n√ρ/β)) and the
paper's cost convention (L_0/(nσ))² (i.e. sensitivity L_0/n, App. D.2), with the printed cap ρ/2 on the
gradient term.  Under replace-one every cost is really 2× the charged one and the last step's norm query is
not counted, so its claim states the exact value 2ρ + 2√ρ/n.

Theorem 5 variant: t* ~ P(t) ∝ exp(−ε n ‖∇F(w_t)‖/(4 L_0)) over the transcript (score sensitivity 2L_0/n,
clipped gradients): ε-DP (McSherry & Talwar 2007) and ε-bounded-range, hence ε²/8-zCDP (Cesar & Rogers 2021,
used here; Bun & Steinke 2016, Prop. 1.4 would give ε²/2).  The printed temperature n√ρ/(2L_0) is ε = 2√ρ,
i.e. ρ/2-zCDP by bounded range, the default ρ_EM = ρ/2.
Derivations: docs/derivations.md#exact-privacy-of-menart-et-als-adaptive-gradient-descent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from dpsco.reference.clipping import enforce_norm_bound, row_norms
from dpsco.reference.muabg23.ledger import (exact_sum_add, gaussian_zcdp, printed_cost_unit_sensitivity,
                                            replace_one_sensitivity, zcdp_epsilon)
from dpsco.reference.muabg23.model import check_loss, rows_within_bound
from dpsco.reference.privacy import PrivacyClaim, Release
from dpsco.reference.validation import check_bool, check_choice, check_delta, check_positive, check_rng

__all__ = ["CALIBRATIONS", "AdaptiveRule", "FilterOverflow", "PrivacyFilter",
           "norm_query_cost_line6", "norm_noise_line3", "gradient_cost_cap_line6", "noise_floor_line4",
           "noise_divisor_line4", "iteration_cap_theorem3", "step_size_line1", "MAX_STEPS",
           "exact_rule", "printed_rule", "check_rule_representable", "clipped_mean_gradient", "adaptive_gd_run",
           "adaptive_gd_release", "adaptive_gd", "em_epsilon_bounded_range",
           "prescribed_gradient_evaluations",
           "em_log_probabilities", "em_select", "adaptive_gd_em", "gaussian_renyi_divergence", "loss_oracle"]

CALIBRATIONS = ("exact", "printed")
GradientOracle = Callable[[np.ndarray], np.ndarray]  # w (d,) -> per-sample gradients (n, d) on the private data


class FilterOverflow(RuntimeError):
    """A release was requested whose cost would take the privacy filter past its budget."""


@dataclass
class PrivacyFilter:
    """Fully adaptive zCDP filter (Whitehouse et al. 2022, Theorem 1): every cost is admitted *before* its
    release, and only while spent + cost ≤ budget (up to 1e-12 relative rounding); ``costs`` lists them.
    ``spent`` is their correctly rounded sum (``math.fsum``), kept as exact partial sums (constant time per step)."""

    budget: float
    costs: list[float] = field(default_factory=list)
    _partials: list[float] = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for c in self.costs:
            exact_sum_add(self._partials, float(c))

    @property
    def spent(self) -> float:
        return math.fsum(self._partials)

    def admit(self, cost: float) -> None:
        if not (cost >= 0.0 and math.isfinite(cost)):
            raise FilterOverflow(f"a release cost must be finite and >= 0, got {cost}")
        if self.spent + cost > self.budget * (1.0 + 1e-12):
            raise FilterOverflow(f"cost {cost:.6g} on top of {self.spent:.6g} exceeds the budget {self.budget:.6g}")
        self.costs.append(float(cost))
        exact_sum_add(self._partials, float(cost))


def loss_oracle(loss: Any, X: Any) -> GradientOracle:
    """The per-sample gradient oracle w -> loss.grads(w, X) (n, d) of a muabg23 ``NonconvexLoss`` on records X
    (rows; checked against the loss's declared data domain, ValueError otherwise).  Pass L0 = loss.lipschitz()
    to :func:`adaptive_gd` (or a smaller public clip)."""
    loss = check_loss(loss)
    X = loss.check_records(X)
    return lambda w: loss.grads(np.asarray(w, dtype=np.float64), X)


def step_size_line1(L1: float) -> float:
    """Algorithm 3, line 1: η = 1/(2 L_1)."""
    return 1.0 / (2.0 * L1)


def norm_query_cost_line6(n: int, rho: float) -> float:
    """Algorithm 3, line 6 (its √ρ/n term): zCDP cost c_N = √ρ/n of the norm query."""
    return math.sqrt(rho) / n


def norm_noise_line3(n: int, rho: float, L0: float, calibration: str = "exact") -> float:
    """Algorithm 3, line 3: σ̂.  exact: Δ/√(2 c_N) = √2 L_0/(√n ρ^{1/4}); printed: L_0/(√n ρ^{1/4})."""
    if calibration == "printed":
        return L0 / (math.sqrt(n) * rho ** 0.25)
    return replace_one_sensitivity(L0, n) / math.sqrt(2.0 * norm_query_cost_line6(n, rho))


def gradient_cost_cap_line6(n: int, rho: float, calibration: str = "exact") -> float:
    """Algorithm 3, line 6: cap on the gradient release's cost.  printed: ρ/2; exact: ρ/2 − c_N, so that a
    whole step costs ≤ ρ/2 (deviation: the printed cap lets the last step overshoot by √ρ/n)."""
    if calibration == "printed":
        return rho / 2.0
    return rho / 2.0 - norm_query_cost_line6(n, rho)


def noise_floor_line4(n: int, rho: float, L0: float, calibration: str = "exact") -> float:
    """Algorithm 3, line 4: σ_min, the noise whose cost is the cap.  exact Δ/√(2 c_max); printed (paper's
    (L_0/(nσ))² convention at the cap ρ/2) √2 L_0/(n√ρ) (reconstructed: the seed prints variants)."""
    if calibration == "printed":
        return math.sqrt(2.0) * L0 / (n * math.sqrt(rho))
    return replace_one_sensitivity(L0, n) / math.sqrt(2.0 * gradient_cost_cap_line6(n, rho))


def noise_divisor_line4(d: int, n: int, rho: float, beta: float, calibration: str = "exact") -> float:
    """Algorithm 3, line 4: σ_t = N_t/ψ.  printed ψ = √(d log(n√ρ/β)); exact ψ = 2(√d + √(2 log(2(n√ρ+2)/β)))
    (Gaussian-norm tail with a union bound over the ≤ n√ρ/2 + 2 steps, and the factor 2 Lemma 12's (9) needs).
    The logarithms are taken as log(·) − log β, finite for every β > 0 (a subnormal β gave ψ = inf)."""
    if calibration == "printed":
        return math.sqrt(d * (math.log(n * math.sqrt(rho)) - math.log(beta)))
    return 2.0 * (math.sqrt(d) + math.sqrt(2.0 * (math.log(2.0 * (n * math.sqrt(rho) + 2.0)) - math.log(beta))))


def iteration_cap_theorem3(n: int, rho: float) -> int:
    """Every step costs ≥ c_N = √ρ/n and steps run while spent ≤ ρ/2: at most ⌊n√ρ/2⌋ + 1 steps."""
    return int(math.floor(n * math.sqrt(rho) / 2.0 + 1e-9)) + 1


#: the most steps a run of Algorithm 3 may be prescribed (:func:`iteration_cap_theorem3` above it is refused up
#: front, naming ``rho``): a filter bound of 10⁸ steps of n gradients each is beyond what a run can do
MAX_STEPS = 10 ** 8


@dataclass(frozen=True)
class AdaptiveRule:
    """The public choices of one run of Algorithm 3, computed from public inputs only (:func:`exact_rule`,
    :func:`printed_rule`); it holds numbers, not functions.

    :meth:`step_sigma` (N_t) = max{max(N_t, 0)/ψ, σ_min} is line 4's σ_t, a function of the released N_t only;
    :meth:`step_cost` (σ_t) = ``norm_cost`` + ½(``charged_sensitivity``/σ_t)² is line 6's charged cost of the
    step's two releases, fixed before the gradient release; ``claim_rho`` is the ρ the claim states;
    ``true_sensitivity`` the replace-one Δ = 2L_0/n of the exact accountant; ``max_steps`` the filter's own bound
    ⌊n√ρ/2⌋ + 1 (:func:`iteration_cap_theorem3`).  (Before independent review D3, σ_t and the cost were
    callables that also received the exact gradient norm, a hook only the planted bugs used.)"""

    name: str
    eta: float
    sigma_hat: float
    sigma_min: float
    psi: float
    guard: float
    claim_rho: float
    true_sensitivity: float
    norm_cost: float
    charged_sensitivity: float
    max_steps: int

    def step_sigma(self, N: float) -> float:
        """σ_t = max{max(N_t, 0)/ψ, σ_min} (line 4) from the released noisy norm N_t."""
        return max(max(float(N), 0.0) / self.psi, self.sigma_min)

    def step_cost(self, sigma: float) -> float:
        """The charged cost of a step whose gradient release has noise σ (line 6; scale-free, ledger)."""
        return self.norm_cost + gaussian_zcdp(self.charged_sensitivity, sigma)


def exact_rule(n: int, d: int, rho: float, beta: float, L0: float, L1: float) -> AdaptiveRule:
    """The exact calibration (see the module text); raises ValueError unless n√ρ > 2 (c_max > 0)."""
    if n * math.sqrt(rho) <= 2.0:
        raise ValueError(f"rho: Algorithm 3 needs n*sqrt(rho) > 2, got n = {n}, rho = {rho}")
    delta_s = replace_one_sensitivity(L0, n)
    return AdaptiveRule(
        name="exact", eta=step_size_line1(L1), sigma_hat=norm_noise_line3(n, rho, L0),
        sigma_min=noise_floor_line4(n, rho, L0), psi=noise_divisor_line4(d, n, rho, beta), guard=rho / 2.0,
        claim_rho=rho, true_sensitivity=delta_s, norm_cost=norm_query_cost_line6(n, rho),
        charged_sensitivity=delta_s, max_steps=iteration_cap_theorem3(n, rho))


def printed_rule(n: int, d: int, rho: float, beta: float, L0: float, L1: float) -> AdaptiveRule:
    """The printed calibration: costs (L_0/(nσ))² from the realised σ (App. D.2; ½(√2 L_0/(nσ))², i.e. the
    charged sensitivity √2 L_0/n), claim 2ρ + 2√ρ/n (exact)."""
    if n * math.sqrt(rho) <= beta:
        raise ValueError(f"beta: the printed ψ needs n*sqrt(rho) > beta, got n = {n}, rho = {rho}, beta = {beta}")
    sigma_hat = norm_noise_line3(n, rho, L0, "printed")
    return AdaptiveRule(
        name="printed", eta=step_size_line1(L1), sigma_hat=sigma_hat, sigma_min=noise_floor_line4(n, rho, L0, "printed"),
        psi=noise_divisor_line4(d, n, rho, beta, "printed"), guard=rho / 2.0,
        claim_rho=2.0 * rho + 2.0 * math.sqrt(rho) / n, true_sensitivity=replace_one_sensitivity(L0, n),
        norm_cost=printed_cost_unit_sensitivity(L0, n, sigma_hat), charged_sensitivity=math.sqrt(2.0) * (L0 / n),
        max_steps=iteration_cap_theorem3(n, rho))


def check_rule_representable(rule: AdaptiveRule, n: int, d: int, L0: float, w0: np.ndarray) -> None:
    """Refuse, before any data is read past its shape and before any noise is drawn, public inputs at which a run
    under ``rule`` could leave double precision (independent review D4, D5): ValueError naming ``rho`` when the
    filter's bound ``rule.max_steps`` exceeds :data:`MAX_STEPS`; naming L0, L1, rho, beta when σ̂, σ_min, ψ, η
    are not finite and > 0, when n·L_0 (the per-sample sum of a clipped mean) reaches 1e307, or when the
    iterates' bound ‖w_0‖ + η·max_steps·(L_0 + 40√d·σ_max), σ_max = max{σ_min, (L_0 + 40σ̂)/ψ} (a draw beyond
    40 standard deviations has probability < 1e-340), reaches 1e307.  Every run this admits computes finite
    numbers only, so it never raises and returns a finite output."""
    if rule.max_steps > MAX_STEPS:
        raise ValueError(f"rho: Algorithm 3's filter admits up to {rule.max_steps} steps at n = {n}, rho = "
                         f"{rule.claim_rho:.6g} (more than {MAX_STEPS}); refused before any noise is drawn")
    names = "L0, L1, rho, beta"
    for value, what in ((rule.sigma_hat, "sigma_hat"), (rule.sigma_min, "sigma_min"), (rule.psi, "psi"),
                        (rule.eta, "eta = 1/(2 L1)")):
        if not (math.isfinite(value) and value > 0.0):
            raise ValueError(f"{names}: Algorithm 3's {what} = {value} is not a finite positive number at these "
                             "public inputs; refused before any noise is drawn")
    sigma_max = max(rule.sigma_min, (L0 + 40.0 * rule.sigma_hat) / rule.psi)
    bound = float(row_norms(w0)) + rule.eta * rule.max_steps * (L0 + 40.0 * math.sqrt(d) * sigma_max)
    if not (n * L0 < 1e307 and bound < 1e307):
        raise ValueError(f"{names}: Algorithm 3's iterates (bound {bound:.3g}) or its per-sample sums (n*L0 = "
                         f"{n * L0:.3g}) could overflow double precision at these public inputs; refused before "
                         "any noise is drawn")


def _check_common(grad: Any, w0: Any, rho: Any, beta: Any, L0: Any, L1: Any, rng: Any, delta: Any
                  ) -> tuple[np.ndarray, float, float, float, float, float]:
    if not callable(grad):
        raise TypeError(f"grad must be callable (w -> per-sample gradients (n, d)), got {type(grad).__name__}")
    w = np.asarray(w0, dtype=np.float64)
    if w.ndim != 1 or w.size == 0 or not np.all(np.isfinite(w)):
        raise ValueError(f"w0 must be a finite non-empty vector of shape (d,), got shape {w.shape}")
    check_rng(rng)
    beta = check_positive(beta, "beta")
    if beta >= 1.0:
        raise ValueError(f"beta must be in (0, 1), got {beta}")
    d = check_delta(delta)
    if d == 0.0:  # the zCDP claim's ε is ∞ at δ = 0 (conversions.zcdp_epsilon): refused before any noise
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    return (w, check_positive(rho, "rho"), beta, check_positive(L0, "L0"), check_positive(L1, "L1"), d)


def clipped_mean_gradient(grad: GradientOracle, w: np.ndarray, L0: float) -> tuple[np.ndarray, int]:
    """∇F(w_t) of lines 3-4: the mean of the per-sample gradients ``grad(w)`` (n, d) clipped at L_0 by the last
    fail-safe ``enforce_norm_bound`` (the reference ``clip_rows`` of the rows above L_0): ‖mean‖ ≤ L_0 and a
    finite mean whatever the oracle returns (rows that overflowed to ±inf go to their limit direction, NaN rows to
    0), so the norm query and the gradient release keep their sensitivity 2L_0/n and the run never raises after
    the up-front checks.  Clipping at L_0 (``clip=True``) and the fail-safe are the same operation, so
    ``clip=False`` releases the same.  Returns (mean (d,), number of per-sample gradients evaluated)."""
    with np.errstate(all="ignore"):
        G = np.asarray(grad(w), dtype=np.float64)
        if G.ndim != 2 or G.shape[1] != w.size or G.shape[0] < 1:
            raise ValueError(f"grad must return per-sample gradients of shape (n, {w.size}), got {G.shape}")
        if rows_within_bound(G, L0):                 # nothing to clip: a one-pass test for the hot loop
            return G.mean(axis=0), G.shape[0]
        return enforce_norm_bound(G, L0).mean(axis=0), G.shape[0]


def adaptive_gd_run(grad: GradientOracle, n: int, w0: np.ndarray, rule: AdaptiveRule, L0: float,
                    rng: np.random.Generator) -> dict[str, Any]:
    """Algorithm 3's loop under ``rule`` (lines 1-7; ``rule`` from :func:`exact_rule` / :func:`printed_rule`).
    Returns the transcript: ``iterates`` (T+2, d) w_0..w_{T+1}, ``N`` (T+1,), ``sigma`` (T+1,),
    ``noisy_gradients`` (T+1, d) the released ∇F(w_t) + σ_t ζ_t (line 4), ``sigma_hat`` σ̂ (line 3),
    ``charged`` (T+1,) costs, ``exact_costs`` (T+1,) = Δ²/(2σ̂²) + Δ²/(2σ_t²) with the true replace-one Δ,
    ``exact_norms`` (T+1,) ‖∇F(w_t)‖ (non-private), ``gradient_evaluations``.
    The charged cost of a step is admitted by a :class:`PrivacyFilter` of budget ``rule.claim_rho`` before the
    gradient release.  The loop runs while spent ≤ ρ/2 (line 2) and at most ``rule.max_steps`` = ⌊n√ρ/2⌋ + 1
    times: the filter's own bound (every step costs ≥ √ρ/n), public, so the cap binds only if rounding ever let
    the filter run longer, and then the run stops and returns its last iterate — it never raises (before
    independent review D4 a hard cap of 10n + 10 < ⌊n√ρ/2⌋ + 1 for ρ ≳ 400 raised RuntimeError mid-run)."""
    d = w0.size
    filt = PrivacyFilter(budget=rule.claim_rho)
    iterates, Ns, sigmas, exact_costs, norms, noisy = [w0.copy()], [], [], [], [], []
    w, evaluations = w0.copy(), 0
    while filt.spent <= rule.guard and len(Ns) < rule.max_steps:            # line 2
        g, n_eval = clipped_mean_gradient(grad, w, L0)
        evaluations += n_eval
        exact_norm = float(row_norms(g))
        N = exact_norm + rule.sigma_hat * float(rng.standard_normal())     # line 3
        sigma = rule.step_sigma(N)                                          # line 4: reads the released N_t only
        filt.admit(rule.step_cost(sigma))                                   # line 6, fixed before the release
        y = g + sigma * rng.standard_normal(d)                              # line 4: the released noisy gradient
        w = w - rule.eta * y                                                # line 5
        iterates.append(w.copy())
        noisy.append(y)
        Ns.append(N), sigmas.append(sigma), norms.append(exact_norm)
        exact_costs.append(gaussian_zcdp(rule.true_sensitivity, rule.sigma_hat)
                           + gaussian_zcdp(rule.true_sensitivity, sigma))
    return {"iterates": np.array(iterates), "N": np.array(Ns), "sigma": np.array(sigmas),
            "sigma_hat": float(rule.sigma_hat), "charged": np.array(filt.costs),
            "exact_costs": np.array(exact_costs), "exact_norms": np.array(norms),
            "noisy_gradients": np.array(noisy).reshape(len(noisy), d), "gradient_evaluations": evaluations}


def _rule(calibration: str, n: int, d: int, rho: float, beta: float, L0: float, L1: float) -> AdaptiveRule:
    calibration = check_choice(calibration, "calibration", CALIBRATIONS)
    return (exact_rule if calibration == "exact" else printed_rule)(n, d, rho, beta, L0, L1)


def _probe(grad: GradientOracle, w: np.ndarray) -> tuple[int, GradientOracle]:
    """n from the oracle's output at w_0 (public: n is a public input), and an oracle that answers its first call
    at w_0 with that output (so the probe costs no extra gradient evaluation)."""
    with np.errstate(all="ignore"):
        G = np.asarray(grad(w), dtype=np.float64)
    if G.ndim != 2 or G.shape[1] != w.size or G.shape[0] < 1:
        raise ValueError(f"grad must return per-sample gradients of shape (n, {w.size}), got {G.shape}")
    first = [G]

    def cached(v: np.ndarray) -> np.ndarray:
        if first and np.array_equal(v, w):
            return first.pop()
        first.clear()
        return grad(v)
    return int(G.shape[0]), cached


def prescribed_gradient_evaluations(n: int, rho: float) -> int:
    """n·(⌊n√ρ/2⌋ + 1): the most per-sample gradients Algorithm 3's filter admits (every step costs at least the
    norm query's √ρ/n and steps run while the spent budget is ≤ ρ/2; :func:`iteration_cap_theorem3`), from
    public inputs only.  The count performed, n·(T+1), is a function of the released transcript and is kept in
    ``nonprivate_internals["gradient_evaluations_performed"]`` (and ``diagnostics["steps"]``)."""
    return int(n) * iteration_cap_theorem3(n, rho)


def _claim(rho_total: float, delta: float, source: str, assumptions: dict[str, Any], *,
           gaussian: bool = True) -> PrivacyClaim:
    """ρ-zCDP under replace-one; with ``gaussian`` (Algorithm 3 alone: a fully adaptive composition of Gaussian
    releases with Σ(Δ/σ)² ≤ 2ρ a.s.) also √(2ρ)-GDP and its dp_accounting event (Smith & Thakurta 2022)."""
    from dp_accounting import dp_event

    extra: dict[str, Any] = {}
    if gaussian:
        extra = {"mu": math.sqrt(2.0 * rho_total), "event_neighbouring": "ADD_OR_REMOVE_ONE",
                 "event": dp_event.GaussianDpEvent(1.0 / math.sqrt(2.0 * rho_total))}
    return PrivacyClaim(notion="zCDP", epsilon=zcdp_epsilon(rho_total, delta), delta=delta,
                        neighbouring="replace-one", source=source, assumptions=assumptions, rho=rho_total, **extra)


def adaptive_gd_release(run: dict[str, Any], rule: AdaptiveRule, *, n: int, rho: float, beta: float, L0: float,
                        clip: bool, delta: float, white_box: bool) -> Release:
    """The :class:`Release` of Algorithm 3 for a transcript ``run`` of :func:`adaptive_gd_run` under ``rule``
    (what :func:`adaptive_gd` returns; see there): Theorem 3's claim at ``rule.claim_rho``, the public parameters,
    the data-dependent summaries in ``diagnostics``, and with ``white_box`` the transcript."""
    claim = _claim(rule.claim_rho, delta, f"Menart et al. (2023), arXiv:2311.13447 v2, Theorem 3 (Algorithm 3, "
                   f"{rule.name} calibration; fully adaptive zCDP filter, replace-one)",
                   {"L0": L0, "n": n, "clip": clip, "budget_rho": rho})
    params = {"calibration": rule.name, "eta": rule.eta, "sigma_hat": rule.sigma_hat, "sigma_min": rule.sigma_min,
              "psi": rule.psi, "rho": rho, "beta": beta, "max_steps": rule.max_steps}
    diagnostics = {"steps": int(run["N"].size), "sigma_t": run["sigma"].tolist(), "N_t": run["N"].tolist(),
                   "charged_costs": run["charged"].tolist(), "exact_costs": run["exact_costs"].tolist(),
                   "exact_norms": run["exact_norms"].tolist()}
    release = Release(output=run["iterates"][-1], claim=claim,
                      gradient_evaluations=prescribed_gradient_evaluations(n, rho), parameters=params,
                      algorithm="Adaptive noisy GD (Menart et al. 2023, Algorithm 3)", trajectory=run["iterates"],
                      diagnostics=diagnostics,
                      nonprivate_internals={"gradient_evaluations_performed": int(run["gradient_evaluations"])})
    if white_box:
        release.white_box = {"N": run["N"].copy(), "noisy_gradients": run["noisy_gradients"].copy(),
                             "sigma": run["sigma"].copy(), "sigma_hat": float(run["sigma_hat"]),
                             "iterates": run["iterates"].copy()}
    return release


def adaptive_gd(grad: GradientOracle, w0: Any, *, rho: float, beta: float, L0: float, L1: float,
                rng: np.random.Generator, calibration: str = "exact", clip: bool = True, delta: float = 1e-6,
                white_box: bool = False) -> Release:
    """Algorithm 3 of Menart et al. (2023), arXiv:2311.13447 v2 (box reconstructed; Theorem 3 privacy).

    grad: w (d,) -> per-sample gradients (n, d) on the private data (n public); w0: (d,) public start;
    rho > 0 the zCDP budget (exact: n√ρ > 2; ⌊n√ρ/2⌋ + 1 ≤ 10⁸); beta in (0, 1); L0, L1 > 0; delta in (0, 1) is
    only where the claim's ε is reported.  Public inputs at which a run could leave double precision are refused
    up front (:func:`check_rule_representable`).

    Per-sample gradients are clipped to L0 (``dpsco.reference.clipping.clip_rows``) and the last fail-safe
    ``enforce_norm_bound`` runs before every release, so the sensitivity 2L_0/n holds whatever the oracle
    returns: rows that overflow to ±inf go to their limit direction, NaN rows to 0 (documented: a user oracle
    that returns NaN/inf at an admissible point still gives a finite release with the bound enforced).
    ``clip=False`` skips the explicit clipping, which the fail-safe then does: the release is the same and the
    claim unconditional.  After the up-front checks (the public inputs, w0, the oracle's output shape at w0)
    the run never raises: the loop stops when the filter's budget test fails (line 2), and its public cap
    ⌊n√ρ/2⌋ + 1 is the filter's own bound (:func:`adaptive_gd_run`).  The costs are computed scale-free
    (``ledger.gaussian_zcdp``), so the claim holds for every admissible L_0 (independent review D1).  An oracle
    that raises, or changes its output shape, is a programming error and propagates.

    Returns a Release: output w_{T+1} (d,), trajectory w_0..w_{T+1} (the released transcript's iterates),
    claim ρ-zCDP ("exact") or (2ρ + 2√ρ/n)-zCDP ("printed", its exact replace-one value), with μ = √(2ρ) and
    its GaussianDpEvent (fully adaptive GDP filter); parameters (public only: calibration, η, σ̂, σ_min, ψ, ρ,
    β, max_steps); gradient_evaluations = n·max_steps (:func:`prescribed_gradient_evaluations`, public).  The
    transcript's data-dependent parts — the number of steps T+1, σ_t, N_t and the charged costs, all functions
    of the released noisy norms N_t — are in ``diagnostics`` ("steps", "sigma_t", "N_t", "charged_costs",
    "exact_costs", "exact_norms"), never published by ``to_dict``; the count performed n·(T+1) is
    ``nonprivate_internals["gradient_evaluations_performed"]``.  Raises TypeError/ValueError naming a bad
    argument.

    white_box : bool (default False; TypeError otherwise).  If True, ``release.white_box`` is the transcript
    Theorem 3's claim covers (a verification record; the draws and outputs are bit-identical to
    ``white_box=False``): a dict with "N" (T+1,) the released noisy norms N_t (line 3), "noisy_gradients"
    (T+1, d) the released ∇F(w_t) + σ_t ζ_t (line 4), "sigma" (T+1,) σ_t, "sigma_hat" float σ̂ (line 3),
    "iterates" (T+2, d) w_0..w_{T+1} (line 5; a deterministic function of the noisy gradients).  Here T+1 is
    the number of steps the filter admitted.
    """
    wb = check_bool(white_box, "white_box")
    clip = check_bool(clip, "clip")
    w, rho, beta, L0, L1, delta = _check_common(grad, w0, rho, beta, L0, L1, rng, delta)
    calibration = check_choice(calibration, "calibration", CALIBRATIONS)
    n, oracle = _probe(grad, w)
    rule = _rule(calibration, n, w.size, rho, beta, L0, L1)
    check_rule_representable(rule, n, w.size, L0, w)
    run = adaptive_gd_run(oracle, n, w, rule, L0, rng)
    return adaptive_gd_release(run, rule, n=n, rho=rho, beta=beta, L0=L0, clip=clip, delta=delta, white_box=wb)


def em_epsilon_bounded_range(rho_em: float) -> float:
    """ε with ε²/8 = ρ_EM: the exponential mechanism is ε-bounded-range, hence ε²/8-zCDP (Cesar & Rogers 2021)."""
    return math.sqrt(8.0 * rho_em)


def em_log_probabilities(norms: Any, epsilon: float, sensitivity: float) -> np.ndarray:
    """log P(t) for P(t) ∝ exp(−ε ‖∇F(w_t)‖/(2Δ)) (Theorem 5; the printed ε n/(4L_0) with Δ = 2L_0/n).
    norms: (T,) finite >= 0; returns (T,) log-probabilities (log-sum-exp normalised)."""
    u = np.asarray(norms, dtype=np.float64)
    if u.ndim != 1 or u.size == 0 or not np.all(np.isfinite(u)):
        raise ValueError(f"norms must be a finite non-empty vector, got shape {u.shape}")
    epsilon, sensitivity = check_positive(epsilon, "epsilon"), check_positive(sensitivity, "sensitivity")
    s = -epsilon * (u / sensitivity) / 2.0          # scale-free: the norms in units of Δ first
    return s - (s.max() + math.log(np.exp(s - s.max()).sum()))


def em_select(norms: Any, epsilon: float, sensitivity: float, rng: np.random.Generator) -> int:
    """Sample t* with the Gumbel-max trick from :func:`em_log_probabilities`."""
    check_rng(rng)
    lp = em_log_probabilities(norms, epsilon, sensitivity)
    return int(np.argmax(lp + rng.gumbel(size=lp.size)))


def adaptive_gd_em(grad: GradientOracle, w0: Any, *, rho: float, beta: float, L0: float, L1: float,
                   rng: np.random.Generator, calibration: str = "exact", rho_em: float | None = None,
                   clip: bool = True, delta: float = 1e-6, white_box: bool = False) -> Release:
    """Theorem 5 of Menart et al. (2023), arXiv:2311.13447 v2: Algorithm 3, then t* ∈ {0..T} by the exponential
    mechanism on the exact (clipped) norms ‖∇F(w_t)‖ already computed (0 extra gradients), score sensitivity
    Δ = 2L_0/n.  ``rho_em`` (default ρ/2, which is the printed temperature ε = 2√ρ) sets ε = √(8ρ_EM).

    Claim: ρ-zCDP with ρ = the filter's ρ (or the printed calibration's exact 2ρ + 2√ρ/n) + ρ_EM (the
    exponential mechanism is ε-bounded-range, hence ε²/8-zCDP; Cesar & Rogers 2021), and the (ε, δ) that ρ
    gives.  **No μ-GDP value and no dp_accounting event**: a bounded-range mechanism is not (ε/2)-GDP, and the
    composition is not the Gaussian of μ = √(2ρ) (ERRATA.md MUABG23-E20: on two floor steps with scores (Δ, 0) vs
    (0, Δ) the least μ is 1.236 > √(2·0.75) = 1.225 at the defaults, ρ = 0.5).
    Returns a Release with output w_{t*} (d,), trajectory as :func:`adaptive_gd`, parameters as
    :func:`adaptive_gd` plus "epsilon_em" and "rho_em" (public); t* (a released choice, but a function of the
    data-dependent transcript) is ``diagnostics["t_star"]``.  ``white_box`` passes through to
    :func:`adaptive_gd` (its transcript; t* in the diagnostics).  Errors as :func:`adaptive_gd`, and a ValueError
    naming ``rho_em`` where εn or the claim's ε would overflow (checked before any noise is drawn).
    """
    wb = check_bool(white_box, "white_box")
    clip = check_bool(clip, "clip")
    w, rho, beta, L0, L1, delta = _check_common(grad, w0, rho, beta, L0, L1, rng, delta)
    calibration = check_choice(calibration, "calibration", CALIBRATIONS)
    rho_em = rho / 2.0 if rho_em is None else check_positive(rho_em, "rho_em")
    n, oracle = _probe(grad, w)
    rule = _rule(calibration, n, w.size, rho, beta, L0, L1)
    check_rule_representable(rule, n, w.size, L0, w)
    eps = em_epsilon_bounded_range(rho_em)
    total = rule.claim_rho + rho_em
    # the scores ε‖∇F(w_t)‖/(2Δ) ≤ εn/4 and the claim's ε must be finite: refused up front (naming rho_em), never
    # a NaN selection or an exception after Algorithm 3 has drawn its noise (independent review D5)
    if not (eps * n < 1e307 and math.isfinite(zcdp_epsilon(total, delta))):
        raise ValueError(f"rho_em: the exponential mechanism's epsilon = {eps:.3g} (or the claim's) overflows "
                         f"double precision at n = {n}; refused before any noise is drawn")
    claim = _claim(total, delta, "Menart et al. (2023), arXiv:2311.13447 v2, Theorem 5 (Algorithm 3 + exponential "
                   "mechanism, ε²/8-zCDP by bounded range; composed with the filter)",
                   {"L0": L0, "n": n, "clip": clip, "budget_rho": rho, "rho_em": rho_em}, gaussian=False)
    run = adaptive_gd_run(oracle, n, w, rule, L0, rng)
    base = adaptive_gd_release(run, rule, n=n, rho=rho, beta=beta, L0=L0, clip=clip, delta=delta, white_box=wb)
    norms = np.asarray(base.diagnostics["exact_norms"])  # ‖∇F(w_t)‖ for t = 0..T (the measured iterates)
    t_star = em_select(norms, eps, replace_one_sensitivity(L0, n), rng)
    release = Release(output=base.trajectory[t_star], claim=claim, gradient_evaluations=base.gradient_evaluations,
                      parameters={**base.parameters, "epsilon_em": eps, "rho_em": rho_em},
                      algorithm="Adaptive noisy GD + exponential mechanism (Menart et al. 2023, Theorem 5)",
                      trajectory=base.trajectory, diagnostics={**base.diagnostics, "t_star": t_star},
                      nonprivate_internals=dict(base.nonprivate_internals))
    release.white_box = base.white_box
    return release


def gaussian_renyi_divergence(alpha: float, mean_gap: float, s1: float, s2: float, d: int = 1) -> float:
    """D_α(N(μ1, s1² I_d) ‖ N(μ2, s2² I_d)) with ‖μ1 − μ2‖ = mean_gap (inf when α s2² + (1−α) s1² ≤ 0);
    the exact Rényi divergence of two isotropic Gaussians (Gil, Alajaji & Linder 2013).  Computed scale-free, in
    units of s1 (the divergence depends on mean_gap/s1 and s2/s1 only)."""
    g, r = mean_gap / s1, s2 / s1
    sa = alpha * r * r + (1.0 - alpha)
    if sa <= 0.0:
        return math.inf
    return alpha * g * g / (2.0 * sa) + d * (math.log(r) + math.log(r * r / sa) / (2.0 * (alpha - 1.0)))


#: the claim of a filter run (public for the planted copies in verification/mutants)
adaptive_claim = _claim
