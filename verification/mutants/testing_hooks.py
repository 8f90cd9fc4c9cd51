"""Planted bugs for the user-side assertions (``dpsco.testing``, ``dpsco.adapters``; tests/test_testing*.py).

Each wraps a correct implementation and breaks one thing the assertion under test must catch:

* :func:`draws_sigma_over_sqrt2` — a user's noisy-gradient method that reports σ in its transcript and draws
  σ/√2 (:func:`dpsco.verification.mutants.noise_scale.under_noised` on its ``rng``): caught by the measured noise
  of ``assert_transcript_private``, and — wrapping a candidate in compare's signature whose Release carries its
  transcript — by ``dpsco compare``'s white-box family (d) (tests/test_compare_white_box.py).
* :func:`returns_start_point` — a "candidate" of a catalogue entry that skips the optimisation and the noise and
  returns w_0 = 0 with the genuine claim: caught by ``assert_matches_reference``'s two-sample family.
* :func:`publishes_mean_label` — a release that also publishes the mean label in ``parameters`` (a function of
  the data under an innocent name): caught by ``assert_claim_covers`` given a neighbouring release.
* :func:`claims_half_delta` — a release whose claim states δ/2 while its own dp_accounting event gives more at
  ε: caught by ``assert_claim_covers``'s consistency check of the notions.

They live here, never in ``reference/`` or in the user-side modules.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np

from dpsco.reference.privacy import Release
from dpsco.verification.mutants.noise_scale import under_noised

__all__ = ["claims_half_delta", "draws_sigma_over_sqrt2", "publishes_mean_label", "returns_start_point"]


def draws_sigma_over_sqrt2(candidate: Callable[..., Any]) -> Callable[..., Any]:
    """``candidate(data, rng)`` run on an UnderNoisedGenerator: its transcript reports σ, its noise is σ/√2."""
    return under_noised(candidate)


def returns_start_point(algorithm: Callable[..., Release]) -> Callable[..., Any]:
    """``algorithm(X, y, problem, ε, δ, rng, **options)`` replaced by a copy that returns its release with the
    output set to the start point 0 (no steps, no noise); the claim and the public fields are the genuine ones."""

    def planted(X: Any, y: Any, problem: Any, epsilon: float, delta: float, rng: np.random.Generator,
                **options: Any) -> Release:
        rel = algorithm(X, y, problem, epsilon, delta, rng, **options)
        return dataclasses.replace(rel, output=np.zeros_like(np.asarray(rel.output, dtype=np.float64)))

    planted.__name__ = f"{getattr(algorithm, '__name__', 'algorithm')}_returns_start_point"
    return planted


def publishes_mean_label(algorithm: Callable[..., Release]) -> Callable[..., Release]:
    """``algorithm`` whose release also publishes ``parameters["mean_label"]`` = mean(y) (data-dependent)."""

    def planted(X: Any, y: Any, *args: Any, **kwargs: Any) -> Release:
        rel = algorithm(X, y, *args, **kwargs)
        return dataclasses.replace(rel, parameters={**rel.parameters, "mean_label": float(np.mean(y))})

    planted.__name__ = f"{getattr(algorithm, '__name__', 'algorithm')}_publishes_mean_label"
    return planted


def claims_half_delta(algorithm: Callable[..., Release]) -> Callable[..., Release]:
    """``algorithm`` whose release claims (ε, δ/2) while keeping the event its (ε, δ) came from."""

    def planted(*args: Any, **kwargs: Any) -> Release:
        rel = algorithm(*args, **kwargs)
        return dataclasses.replace(rel, claim=dataclasses.replace(rel.claim, delta=rel.claim.delta / 2.0))

    planted.__name__ = f"{getattr(algorithm, '__name__', 'algorithm')}_claims_half_delta"
    return planted
