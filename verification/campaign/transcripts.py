"""The white-box hook for users' noisy-gradient methods: the transcript structure and its checks, shared by
:func:`dpsco.testing.assert_transcript_private` and :func:`dpsco.verification.campaign.compare.compare` (one
implementation; ``dpsco.adapters`` re-exports the user-facing names).

A noisy-gradient method that returns its transcript (:class:`NoisyGradientTranscript`: every noisy gradient, its
batch and the step's public parameters) — directly, or in ``Release.white_box`` — is audited as the reference's own
noisy-gradient methods are: :func:`transcript_checks` runs the white-box audit of its claim
(:func:`dpsco.verification.auditing.white_box.white_box_audit`, on every noisy gradient; Bassily et al. 2019,
Algorithm 1's step) and measures its noise (:func:`dpsco.verification.checks.noise.measured_noise_check` on the
residuals replayed from the transcript), each at half the error budget it is given.  Guide: docs/testing.md
("The white-box hook") and docs/compare.md ("White-box family").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

__all__ = ["NoisyGradientTranscript", "RowGradient", "SAMPLINGS", "as_transcript", "carries_transcript",
           "transcript_checks", "transcript_residuals", "transcript_run", "transcript_step_claim"]

#: (W: (k, d) iterates, X: (k, d) features, y: (k,) labels) -> (k, d): row i is the *clipped* per-sample gradient
#: of record (X[i], y[i]) at W[i] — exactly what the method averages before adding noise
RowGradient = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
SAMPLINGS = ("with-replacement", "full-batch")


@dataclass(frozen=True, repr=False)
class NoisyGradientTranscript:
    """One run of a noisy-gradient method, as a white-box auditor sees it.

    Step t (t = 0..T−1) released the noisy mean gradient

        noisy_gradients[t] = (1/m) Σ_j gradient(w_t, z_{batches[t, j]}) + N(0, sigma² I_d),   w_t = iterates[t],

    and the next iterate is a function of w_t and noisy_gradients[t] only (e.g. w_{t+1} = Proj(w_t − η ĝ_t)).

    Attributes
    ----------
    iterates : (T+1, d) float array, w_0..w_T.
    noisy_gradients : (T, d) float array, ĝ_0..ĝ_{T−1}.
    batches : (T, m) int array, the record indices each step averaged (duplicates allowed: with-replacement
        sampling draws m indices uniformly on [n]; "full-batch": every row is 0..n−1).
    sigma : float > 0, the standard deviation of each noise coordinate *added to the batch mean* (a library's
        noise multiplier z on the batch *sum* gives sigma = z·C/m).
    clip_norm : float > 0, C: every per-sample gradient has norm ≤ C (replace-one sensitivity of the mean 2C/m).
    gradient : :data:`RowGradient`, the clipped per-sample gradient (vectorised over rows).
    eta : float > 0, the step size (recorded).
    sampling : "with-replacement" | "full-batch".
    algorithm : a name.

    Raises ValueError naming the field for inconsistent shapes, non-finite values or out-of-range parameters.
    Poisson sampling (a random batch size) is not covered by the white-box model: audit such a method black-box
    (:func:`dpsco.testing.assert_private`).
    """

    iterates: Any
    noisy_gradients: Any
    batches: Any
    sigma: float
    clip_norm: float
    gradient: RowGradient = field(compare=False)
    eta: float = 1.0
    sampling: str = "with-replacement"
    algorithm: str = "user noisy-gradient method"

    def __post_init__(self) -> None:
        it = np.asarray(self.iterates, dtype=np.float64)
        g = np.asarray(self.noisy_gradients, dtype=np.float64)
        b = np.asarray(self.batches)
        if it.ndim != 2 or g.ndim != 2 or g.shape != (it.shape[0] - 1, it.shape[1]) or g.shape[0] < 1:
            raise ValueError(f"iterates must be (T+1, d) and noisy_gradients (T, d) with T >= 1, got {it.shape} and "
                             f"{g.shape}")
        if not (np.all(np.isfinite(it)) and np.all(np.isfinite(g))):
            raise ValueError("iterates and noisy_gradients must be finite")
        if b.ndim != 2 or b.shape[0] != g.shape[0] or b.shape[1] < 1 or b.dtype.kind not in "iu" or np.any(b < 0):
            raise ValueError(f"batches must be a (T, m) array of non-negative integer indices, got {b.shape} {b.dtype}")
        for name in ("sigma", "clip_norm", "eta"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float, np.floating)) or not (math.isfinite(v) and v > 0):
                raise ValueError(f"{name} must be a finite number > 0, got {v!r}")
        if self.sampling not in SAMPLINGS:
            raise ValueError(f"sampling must be one of {SAMPLINGS}, got {self.sampling!r}")
        if not callable(self.gradient):
            raise ValueError("gradient must be callable (W, X, y) -> (k, d)")
        object.__setattr__(self, "iterates", it)
        object.__setattr__(self, "noisy_gradients", g)
        object.__setattr__(self, "batches", b.astype(np.int64))

    @property
    def T(self) -> int:
        return int(self.noisy_gradients.shape[0])

    @property
    def m(self) -> int:
        return int(self.batches.shape[1])

    def public(self) -> tuple[Any, ...]:
        """The public parameters (T, m, d, σ, C, η, sampling): the same in every run at the same public inputs."""
        return (self.T, self.m, self.iterates.shape[1], float(self.sigma), float(self.clip_norm), float(self.eta),
                self.sampling)

    def __repr__(self) -> str:
        return (f"NoisyGradientTranscript({self.algorithm!r}, T={self.T}, m={self.m}, d={self.iterates.shape[1]}, "
                f"sigma={self.sigma:.6g}, clip_norm={self.clip_norm:.6g}, sampling={self.sampling!r})")


def as_transcript(out: Any) -> NoisyGradientTranscript:
    """The transcript a candidate returned: ``out`` itself, or ``out.white_box`` (a Release carrying its transcript
    in ``Release.white_box``, the place ``dpsco compare`` reads).  TypeError if neither is a NoisyGradientTranscript."""
    t = getattr(out, "white_box", out)  # a Release carrying its transcript in white_box is accepted too
    if not isinstance(t, NoisyGradientTranscript):
        raise TypeError(f"the candidate must return a NoisyGradientTranscript, got {type(out).__name__}")
    return t


def transcript_run(candidate: Callable[[Mapping[str, Any], np.random.Generator], Any]) -> Callable[..., Any]:
    """The white-box auditor's ``run(data, R, rng) -> NoisyGradientTrace`` from a candidate
    ``f(data, rng) -> NoisyGradientTranscript``: R calls, each with its own generator spawned from ``rng``.

    Raises ValueError if the R runs disagree on their public parameters (T, m, d, σ, C, η, sampling: they must be
    functions of public inputs) or a batch index is out of range for ``data["X"]``."""
    from dpsco.reference.white_box import NoisyGradientTrace

    def run(data: Mapping[str, Any], R: int, rng: np.random.Generator) -> Any:
        n = int(np.shape(data["X"])[0])
        ts = [as_transcript(candidate(data, g)) for g in rng.spawn(int(R))]
        first = ts[0]
        for t in ts:
            if t.public() != first.public():
                raise ValueError(f"the runs' public parameters differ ({t.public()} vs {first.public()}): T, m, sigma, "
                                 "clip_norm, eta and sampling must be computed from public inputs only")
            if np.any(t.batches >= n):
                raise ValueError(f"a batch index is >= n = {n}")
        grad = first.gradient

        def record_gradient(W: np.ndarray, x: np.ndarray, y: float) -> np.ndarray:
            k = W.shape[0]
            return np.asarray(grad(W, np.tile(x, (k, 1)), np.full(k, float(y))), dtype=np.float64)

        return NoisyGradientTrace(iterates=np.stack([t.iterates for t in ts]),
                                  noisy_gradients=np.stack([t.noisy_gradients for t in ts]),
                                  record_gradient=record_gradient, n=n, m=first.m, T=first.T, sigma=float(first.sigma),
                                  clip_norm=float(first.clip_norm), eta=float(first.eta), sampling=first.sampling,
                                  algorithm=first.algorithm)

    return run


def transcript_step_claim(claim: Any, transcript: Any) -> Any:
    """The claim the white-box audit tests: ``claim``'s (ε, δ) under replace-one — an add/remove (ε, δ) claim is
    read as the replace-one (2ε, (1 + e^ε)δ) it implies (replacing = removing then adding) — carrying the per-step
    model of the transcript's public n, m, T, σ, C as its event (with-replacement: T Bin(m, 1/n) mixtures of
    Gaussians, ``dpsco.reference.bftt19.accounting.nsgd_worst_pair_event``; full batch: T Gaussians).  The event
    only places the audit's test event (power); the verdict is ε_lb > ε.  ``transcript``: a
    NoisyGradientTrace (R runs) or NoisyGradientTranscript with n known (trace).  ValueError for ε = inf."""
    from dp_accounting import dp_event

    from dpsco.reference.bftt19.accounting import nsgd_worst_pair_event
    from dpsco.reference.privacy import PrivacyClaim
    from dpsco.verification.auditing.inputs import as_claim

    c = as_claim(claim)
    eps, delta = float(c.epsilon), float(c.delta)
    if not math.isfinite(eps):
        raise ValueError("claim: the white-box audit tests a finite epsilon")
    if c.neighbouring == "add/remove":
        eps, delta = 2.0 * eps, min(delta * (1.0 + math.exp(eps)), 0.999999)
    n, m, T, sigma, C = transcript.n, transcript.m, transcript.T, float(transcript.sigma), float(transcript.clip_norm)
    if transcript.sampling == "full-batch":
        event, relation = dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(m * sigma / C), T), "REPLACE_ONE"
    else:
        event, relation = nsgd_worst_pair_event(n, m, sigma, C, T), "REPLACE_SPECIAL"
    return PrivacyClaim(notion="pure-DP" if delta == 0.0 else "approx-DP", epsilon=eps, delta=delta,
                        neighbouring="replace-one", event=event, event_neighbouring=relation,
                        source=f"{c.source} (white-box model from the transcript's public n, m, T, sigma, C: power only)")


def transcript_residuals(candidate: Callable[..., Any], data: Mapping[str, Any], rng: np.random.Generator, *,
                         runs: int | None = None, min_residuals: int = 1000) -> tuple[np.ndarray, float]:
    """(residuals, σ reported): noisy gradient − the noiseless batch mean replayed from the transcript (same
    iterate, same batch, the transcript's own ``gradient``), over ``runs`` runs (default: the fewest giving ≥
    ``min_residuals`` values), flattened — the input of
    :func:`dpsco.verification.checks.noise.measured_noise_check`."""
    X, y = np.asarray(data["X"], dtype=np.float64), np.asarray(data["y"], dtype=np.float64)
    first = as_transcript(candidate(data, rng.spawn(1)[0]))
    per_run = first.T * first.iterates.shape[1]
    total = int(runs) if runs is not None else max(1, -(-int(min_residuals) // per_run))
    out = []
    for t in [first] + [as_transcript(candidate(data, g)) for g in rng.spawn(total - 1)]:
        if t.public() != first.public():
            raise ValueError("the runs' public parameters differ: they must be computed from public inputs only")
        idx = t.batches.ravel()
        W = np.repeat(t.iterates[:-1], t.m, axis=0)
        G = np.asarray(t.gradient(W, X[idx], y[idx]), dtype=np.float64).reshape(t.T, t.m, -1).mean(axis=1)
        out.append((t.noisy_gradients - G).ravel())
    return np.concatenate(out), float(first.sigma)


def carries_transcript(out: Any) -> bool:
    """Whether ``out`` is a NoisyGradientTranscript or carries one in ``out.white_box`` (a Release)."""
    return isinstance(getattr(out, "white_box", out), NoisyGradientTranscript)


def transcript_checks(candidate: Callable[..., Any], claim: Any, design: Any, *, samples: int, alpha: float,
                      seed: np.random.SeedSequence, sigma: float | None = None, noise_runs: int | None = None,
                      pilot_runs: int | None = None) -> dict[str, Any]:
    """The two checks of the white-box hook, at total level ``alpha`` (α/2 each, Bonferroni).

    candidate : ``f(data, rng) -> NoisyGradientTranscript`` (or an object carrying it in ``white_box``).
    claim : PrivacyClaim or (ε, δ) (replace-one; add/remove is read as the replace-one claim it implies,
        :func:`transcript_step_claim`).
    design : :class:`dpsco.verification.auditing.white_box.OneSidedCanary` (the pair; its dataset is also where
        the noise is measured).
    samples : test runs per side of the white-box audit;  alpha : in (0, 1);  seed : the SeedSequence whose three
        children feed the audit, the public-parameter probe and the noise runs.
    sigma : the σ the noise is tested against (default the σ the transcript reports);  noise_runs, pilot_runs : as
        :func:`dpsco.testing.assert_transcript_private`.

    1. the white-box audit of the claim on every noisy gradient at confidence 1 − α/2;
    2. the one-sided χ² test of the replayed residuals against σ at level α/2 (exact; a method that draws σ/√2
       passes it with probability ``miss_probability(k, 1/√2, α/2)``, k the residual count).

    Returns ``{"audit": WhiteBoxAuditResult, "noise": check dict, "claim": the audited PrivacyClaim, "sigma": σ
    tested, "alpha": α, "failures": [messages], "verdict": "refuted" | "not refuted"}``.  False refutation ≤ α for
    a method that satisfies the claim and draws at least σ (each check valid at α/2).  Errors of the candidate, the
    transcript or the auditor propagate (TypeError, ValueError).
    """
    from dpsco.verification.auditing.white_box import white_box_audit
    from dpsco.verification.checks.noise import measured_noise_check

    s_audit, s_probe, s_noise = seed.spawn(3)
    data, _ = design.datasets()
    run = transcript_run(candidate)
    probe = run(data, 1, np.random.default_rng(s_probe))  # public parameters of the method (m, T, σ, C)
    audited = transcript_step_claim(claim, probe)
    res = white_box_audit(run, design, audited, samples, np.random.default_rng(s_audit), confidence=1.0 - alpha / 2,
                          pilot_runs=pilot_runs, epsilon_true=False)
    residuals, sigma_run = transcript_residuals(candidate, data, np.random.default_rng(s_noise), runs=noise_runs)
    target = float(sigma_run if sigma is None else sigma)
    noise = measured_noise_check(residuals, target, "measured noise of the transcript", alpha=alpha / 2)
    failures = []
    if res.verdict == "refuted":
        failures.append(f"white-box audit ({res.design} pair, n = {design.n}): epsilon_lower = {res.epsilon_lower:.4g} "
                        f"> epsilon = {audited.epsilon:g} (delta {audited.delta:g}) at confidence {1 - alpha / 2:.10g} "
                        f"(p-value {res.p_value:.3g}; counts {res.counts})")
    if noise["p_value"] < alpha / 2:
        failures.append(f"measured noise: sqrt(mean r^2) = {noise['estimate']:.4g} < sigma = {target:.4g} over "
                        f"{noise['residuals']} residuals (chi-squared p-value {noise['p_value']:.3g} < level "
                        f"{alpha / 2:.3g}): the noise drawn is smaller than the noise the claim is calibrated to")
    if failures and res.verdict != "refuted":
        failures.append(f"(white-box audit: epsilon_lower = {res.epsilon_lower:.4g} <= epsilon = {audited.epsilon:g}, "
                        "not refuted)")
    return {"audit": res, "noise": noise, "claim": audited, "sigma": target, "alpha": float(alpha),
            "failures": failures, "verdict": "refuted" if failures else "not refuted"}
