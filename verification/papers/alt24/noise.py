"""The measured-noise tasks of the Asi, Liu & Tian (2024) suites (``dpsco verify``): for every entry that adds
Gaussian noise, the noise its releases actually add — replayed from the white-box transcript by the entry's
privacy harness (``dpsco.verification.papers.alt24.harness``) — tested against the theorem's σ computed from public
inputs (``dpsco.verification.checks.noise.measured_noise_check``: one-sided χ², false failure 1e-7 exactly).
A check that recomputes privacy from the σ a release reports cannot see an algorithm that reports σ and draws
σ/√2; this one does: each entry's planted copy (``noise_bug``, in the alt24 corpus) passes it with the exact
probability recorded beside the check (``miss_probability``; tests/alt24/test_alt24_measured_noise.py).
"""

from __future__ import annotations

from typing import Any

from dpsco.verification.checks.noise import measured_noise_check, miss_probability
from dpsco.verification.mutants.noise_scale import SCALE
from dpsco.verification.papers.registry import SuiteInputs

__all__ = ["alg1_noise", "alg3_noise", "ht_noise", "known_lip_noise", "localized_noise", "noise_task",
           "onepass_dp_noise", "sc_noise"]


def noise_task(entry: str, inputs: SuiteInputs) -> dict[str, Any]:
    """The suite record of ``entry``'s measured-noise check (seeded from ``inputs.seed``): one check
    "<entry>_measured_noise", the number of residuals and the planted σ/√2 bug's exact miss probability."""
    from dpsco.verification.papers.alt24.harness import HARNESSES

    h = HARNESSES[entry]
    sample = h.noise(int(inputs.seed.generate_state(1)[0]))
    name = f"{entry.split('.', 1)[1]}_measured_noise"
    chk = measured_noise_check(sample.residuals, sample.sigma, name, label=sample.label)
    chk["statement"] = (f"the noise {entry} adds, replayed from its white-box transcript, has standard deviation ≥ "
                        f"the theorem's σ (one-sided χ², false failure 1e-7)")
    chk["verdict"] = None
    k = int(sample.residuals.size)
    return {"record": {"residuals": k, "sigma": sample.sigma, "what": sample.label, "noise_bug": h.noise_bug,
                       "noise_bug_miss_probability": miss_probability(k, SCALE)},
            "checks": {name: chk}, "audits": {}}


def alg1_noise(inputs: SuiteInputs) -> dict[str, Any]:
    """Algorithm 1: every noisy gradient against Corollary 1's σ."""
    return noise_task("alt24.clipped_dp_sgd", inputs)


def alg3_noise(inputs: SuiteInputs) -> dict[str, Any]:
    """Algorithm 3: every block's noisy gradients against Corollary 1's σ."""
    return noise_task("alt24.aggregate_erm", inputs)


def ht_noise(inputs: SuiteInputs) -> dict[str, Any]:
    """The Theorem 1 pipeline: every Corollary 2 call's noise over its σ."""
    return noise_task("alt24.ht_sco", inputs)


def sc_noise(inputs: SuiteInputs) -> dict[str, Any]:
    """The Corollary 3 wrapper: every epoch's calls' noise over their σ."""
    return noise_task("alt24.sc_wrapper", inputs)


def known_lip_noise(inputs: SuiteInputs) -> dict[str, Any]:
    """Algorithm 4 with A_Lip: every step's noise over its phase's σ_i."""
    return noise_task("alt24.known_lip", inputs)


def onepass_dp_noise(inputs: SuiteInputs) -> dict[str, Any]:
    """Algorithm 8: every phase output's noise over Theorem 4's σ_i."""
    return noise_task("alt24.onepass_dp_sgd_glm", inputs)


def localized_noise(inputs: SuiteInputs) -> dict[str, Any]:
    """Algorithm 7: every phase output's noise over Line 28's σ_i."""
    return noise_task("alt24.localized_dp_sgd", inputs)
