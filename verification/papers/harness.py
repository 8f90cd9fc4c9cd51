"""Privacy harnesses: how the privacy contract runs every private catalogue entry on neighbouring datasets.

A privacy label is only as good as the worst input it was checked on.  For every catalogue entry that releases
a private output, its paper's room's ``verification/papers/<paper>/harness.py`` declares a
:class:`PrivacyHarness` (in a dict ``HARNESSES`` keyed by entry name), which tells the contract tests
(``tests/test_privacy_contract.py``) and ``dpsco verify``:

* how to build a dataset from an ``(n, p)`` array of records at fixed small public inputs (``records``, the
  benign base; ``run``, the entry's algorithm with its defaults on such records);
* which records are admissible yet extreme (``extreme_record``, a function of a hypothesis ``draw``):
  magnitudes 1e±300, curvature ratios up to 1e300, records on the declared bounds, subnormals;
* the sensitivity of every noisy release of the run, measured on a neighbouring pair with a shared seed so that
  the noise cancels (``sensitivity``), next to the bound the claim uses;
* the exact privacy of the mechanism as implemented on its worst-case pair (``exact_privacy``), against which
  every notion the claim states (ε, δ, ρ, μ, the dp_accounting event) is checked;
* the noise actually drawn, replayed from the white-box transcript (``noise``): residuals that are i.i.d.
  N(0, σ²) with σ the theorem's calibration computed from public inputs, never read from the release.

The contract (``tests/test_privacy_contract.py``):

1. **Published fields.** On neighbouring records at the same public inputs and the same seed, every field of
   ``Release.to_dict()`` except the ``outcome_fields`` is identical.
2. **Finite release after up-front checks.** On admissible records (extreme ones included) the algorithm never
   raises and returns a finite outcome (⊥ where the paper releases ⊥).
3. **Extreme-record sensitivity.** Every measured per-release sensitivity is ≤ its bound.
4. **Every notion checked.** Each notion the claim states is backed by :class:`ExactPrivacy` on the worst pair.
5. **Measured noise.** A one-sided χ² test of the replayed noise against the calibrated σ
   (:func:`dpsco.verification.checks.noise.measured_noise_check`), which the planted σ/√2 bug fails.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from dpsco.reference.privacy import Release

__all__ = ["ExactPrivacy", "NoiseSample", "PrivacyHarness", "SensitivityProbe", "gaussian_exact_privacy",
           "laplace_exact_privacy"]


@dataclass(frozen=True)
class SensitivityProbe:
    """One noisy release's sensitivity on a neighbouring pair, measured with a shared seed.

    label : str       which release (e.g. "step 3", "phase 2", "output")
    measured : float  the distance (in the release's norm: ℓ2 for Gaussian, ℓ1 for Laplace noise) between the
                      noiseless quantities on D and D′, evaluated at the same public state (same iterate, same
                      batch, same earlier releases)
    bound : float     the sensitivity the claim's calibration uses for that release
    """

    label: str
    measured: float
    bound: float

    @property
    def holds(self) -> bool:
        """measured ≤ bound (a relative slack of 1e-9 for the bound's own rounding), and both finite."""
        return (math.isfinite(self.measured) and math.isfinite(self.bound)
                and self.measured <= self.bound * (1.0 + 1e-9))


@dataclass(frozen=True)
class ExactPrivacy:
    """The exact privacy of a mechanism as implemented, on one neighbouring pair (both directions).

    delta_of_epsilon : callable ε ≥ 0 -> δ(ε) ∈ [0, 1], the exact hockey-stick curve of the pair (the larger of
        the two directions)
    mu : float or None     exact Gaussian-DP μ where the mechanism is a (composition of) Gaussian mechanism(s)
    rho : float or None    exact zCDP ρ = sup_α D_α/α where a closed form exists
    pure_epsilon : float or None   exact max privacy loss where it is finite
    note : str             how it was computed (which pair, which closed form)
    """

    delta_of_epsilon: Callable[[float], float]
    mu: float | None = None
    rho: float | None = None
    pure_epsilon: float | None = None
    note: str = ""


@dataclass(frozen=True)
class NoiseSample:
    """Noise replayed from a white-box transcript: ``residuals`` (k,) should be i.i.d. N(0, sigma²).

    residuals : (k,) float array  noisy release − noiseless release recomputed from the transcript, all steps and
                                  coordinates flattened
    sigma : float                 the standard deviation the claim's calibration prescribes, computed from public
                                  inputs by the theorem's formula (not read from the release)
    label : str
    """

    residuals: np.ndarray
    sigma: float
    label: str = ""


RecordsFn = Callable[[np.random.Generator], np.ndarray]
RunFn = Callable[..., Release]


@dataclass(frozen=True)
class PrivacyHarness:
    """How the privacy contract runs one entry (see the module docstring).

    entry : str        catalogue name
    records : (rng) -> (n, p) float array   a benign dataset at the harness's public inputs
    extreme_record : (draw) -> (p,) float array   one admissible record at an extreme (hypothesis ``draw``)
    run : (records, rng, algorithm=None) -> Release   the entry's algorithm (or ``algorithm``, a planted copy
        with the same signature as the reference function) with its defaults at the public inputs
    sensitivity : (records_D, records_D′, seed: int) -> list of SensitivityProbe
    exact_privacy : () -> (ExactPrivacy, Release)   the exact privacy on the entry's worst-case pair and one
        release on it (whose claim is checked)
    noise : (seed: int, algorithm=None) -> NoiseSample, or None for an entry without Gaussian noise
    noise_bug : str or None   name of the planted bug (``dpsco.verification.mutants``) that reports σ and draws
        σ/√2, which the measured-noise check must catch
    outcome_fields : the fields of ``to_dict()`` that are the released outcome (default: "output")
    """

    entry: str
    records: RecordsFn
    extreme_record: Callable[[Any], np.ndarray]
    run: RunFn
    sensitivity: Callable[[np.ndarray, np.ndarray, int], list[SensitivityProbe]]
    exact_privacy: Callable[[], tuple[ExactPrivacy, Release]]
    noise: Callable[..., NoiseSample] | None = None
    noise_bug: str | None = None
    outcome_fields: tuple[str, ...] = ("output",)


def gaussian_exact_privacy(mu: float, note: str = "") -> ExactPrivacy:
    """The exact curve of a μ-GDP Gaussian mechanism (or adaptive composition with Σ(Δ_t/σ_t)² = μ²):
    δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Dong, Roth & Su 2022, Corollary 2.13), ρ = μ²/2; the curve is the
    core ``dpsco.reference.conversions.gdp_delta`` (rounded up, ε ≥ 0)."""
    from dpsco.reference import conversions

    mu = float(mu)

    def delta(eps: float) -> float:
        return conversions.gdp_delta(mu, eps)

    return ExactPrivacy(delta_of_epsilon=delta, mu=mu, rho=mu * mu / 2.0, note=note)


def laplace_exact_privacy(epsilon: float, note: str = "") -> ExactPrivacy:
    """The exact curve of a one-dimensional Laplace mechanism with Δ/b = ``epsilon`` (the worst pair):
    δ(ε′) = max(0, 1 − e^{(ε′−ε)/2}) for ε′ ≤ ε, 0 beyond; the pure ε is exact (no ρ or μ is
    stated)."""
    e0 = float(epsilon)

    def delta(eps: float) -> float:
        return 0.0 if eps >= e0 else max(0.0, 1.0 - math.exp((eps - e0) / 2.0))

    return ExactPrivacy(delta_of_epsilon=delta, pure_epsilon=e0, note=note)


def harness_registry() -> Mapping[str, PrivacyHarness]:
    """Every paper's harnesses by entry name: each room's ``verification/papers/<paper>/harness.py`` (the papers of
    ``catalogue.PAPERS``), imported lazily.  A room without a harness module is left out, and the privacy contract
    (``tests/test_privacy_contract.py``) fails on its entries."""
    from dpsco.verification.papers.catalogue import room_attribute

    return room_attribute("harness", "HARNESSES")


def audited_outcome_table(harnesses: Mapping[str, PrivacyHarness] | None = None) -> str:
    """The markdown table of docs/auditing.md "What each release publishes": for every harnessed entry, the
    fields of ``Release.to_dict()`` that are its audited outcome and the fields that are functions of public
    inputs (identical on neighbouring datasets, checked by ``tests/test_privacy_contract.py``), from one run of
    the harness on its benign records.  ``tests/test_docs_outcomes.py`` fails when the doc is stale."""
    hs = harness_registry() if harnesses is None else harnesses
    lines = ["| entry | audited outcome | published, functions of public inputs |", "|---|---|---|"]
    for name in sorted(hs):
        h = hs[name]
        record = h.run(h.records(np.random.default_rng(0)), np.random.default_rng(0)).to_dict()
        outcome = [k for k in record if k in h.outcome_fields]
        public = [k for k in record if k not in h.outcome_fields]
        lines.append(f"| `{name}` | {', '.join(f'`{k}`' for k in outcome)} | {', '.join(f'`{k}`' for k in public)} |")
    return "\n".join(lines) + "\n"
