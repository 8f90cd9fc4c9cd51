"""The privacy harnesses of Asi, Liu & Tian (2024): one :class:`~dpsco.verification.papers.harness.PrivacyHarness`
per catalogue entry (``HARNESSES``, keyed by entry name), which ``tests/test_privacy_contract.py`` and
``dpsco verify`` run (published fields, finite release on extreme admissible records, extreme-record sensitivity,
every stated notion against the exact curve on the worst pair, measured noise).

The harnesses live beside the algorithms they run: ``alt24_harness_sgd`` (Algorithm 1, Algorithm 3, the
Theorem 1 pipeline, the Corollary 3 wrapper), ``alt24_harness_phased`` (Algorithm 4 with A_Lip, Algorithm 5,
Algorithm 8, Appendix A) and ``alt24_harness_svt`` (Lemma 9, Algorithm 6, Algorithm 7); each module's docstring
gives its public inputs, its worst pair and how its noise is replayed.  Entries without Gaussian noise
(``alt24.blap``, ``alt24.svt``: bounded Laplace; ``alt24.onepass_sgd``, ``alt24.highprob_sco``: not private) have
``noise = None``; every Gaussian entry names its planted "reports σ, draws σ/√2" bug (``noise_bug``, built with
``dpsco.verification.mutants.noise_scale.under_noised`` in the alt24 mutants corpus).
"""

from __future__ import annotations

from dpsco.verification.papers.alt24 import harness_phased as alt24_harness_phased

from dpsco.verification.papers.alt24 import harness_sgd as alt24_harness_sgd

from dpsco.verification.papers.alt24 import harness_svt as alt24_harness_svt
from dpsco.verification.papers.harness import PrivacyHarness

__all__ = ["HARNESSES"]

HARNESSES: dict[str, PrivacyHarness] = {**alt24_harness_sgd.HARNESSES, **alt24_harness_phased.HARNESSES,
                                        **alt24_harness_svt.HARNESSES}
