"""Adapters: your implementation, in the shapes dpsco's auditors and :mod:`dpsco.testing` take.

A mechanism for :func:`dpsco.testing.assert_private` (and ``dpsco audit``) is ``f(data, rng) -> array`` whose
*only* source of randomness is the numpy Generator ``rng``: calls with independent generators must be independent
runs, and the same generator state must give the same output (the auditors rely on both).  Library code seeds
itself elsewhere, so:

* :func:`sklearn_mechanism` — a scikit-learn-style estimator with ``random_state`` (e.g. diffprivlib's
  ``LogisticRegression``): each call draws an integer seed from ``rng``, fits on ``(data["X"], data["y"])`` and
  returns the fitted attribute(s), flattened.
* :func:`torch_seeded`, :func:`jax_seeded` — a PyTorch / JAX function: every generator it may use is seeded from
  ``rng`` (a ``torch.Generator`` passed in and torch's global seed inside ``torch.random.fork_rng``; a
  ``jax.random.PRNGKey``), and numpy's and Python's global generators are seeded from ``rng`` for the call and
  restored after it.  Imported lazily: install the extras ``dpsco[torch]`` / ``dpsco[jax]``.
* :func:`add_remove_neighbours`, :func:`add_remove_claim` — most DP-SGD libraries (Opacus, TensorFlow Privacy,
  JAX Privacy) state their guarantee under add/remove neighbouring (the relation ``dpsco audit
  --claim-neighbouring add/remove`` names "add/remove"): the pair is the dataset with and without one record.
* :class:`NoisyGradientTranscript`, :func:`transcript_run` — the white-box hook: a noisy-gradient method that
  returns its transcript (every noisy gradient, its batch and the step's public parameters) is audited as the
  reference's own noisy-gradient methods are (:func:`dpsco.testing.assert_transcript_private`; ``dpsco compare``
  runs the same checks when a candidate's Release carries its transcript in ``Release.white_box``).  Defined in
  :mod:`dpsco.verification.campaign.transcripts` and re-exported here.

Pitfalls (docs/testing.md has the long version): a library that draws from a *global* generator (``np.random``,
``torch.manual_seed``, Python's ``random``) is not controlled by ``rng`` unless wrapped; two wrapped calls that
share a global state are not independent; a DataLoader's sampler has its *own* generator, separate from the
noise generator — seed both (``torch_seeded`` passes one ``generator``; derive more with
:func:`torch_generator`); a ``random_state`` of None draws from the operating system, so such a run is not
reproducible and the auditor's batched-sampler check cannot help.
"""

from __future__ import annotations

import contextlib
import random
from typing import Any, Callable, Iterator, Mapping

import numpy as np

# the white-box hook: one implementation, in dpsco.verification.campaign.transcripts (dpsco compare uses it too);
# the user-facing names are re-exported here
from dpsco.verification.campaign.transcripts import (NoisyGradientTranscript, RowGradient,
                                                     transcript_residuals, transcript_run, transcript_step_claim)

__all__ = ["NoisyGradientTranscript", "RowGradient", "add_remove_claim", "add_remove_neighbours", "jax_seeded",
           "sklearn_mechanism", "torch_generator", "torch_seeded", "transcript_residuals", "transcript_run",
           "transcript_step_claim"]

#: seeds drawn from ``rng`` lie in [0, SEED_BOUND): every library accepts them (numpy's RandomState, torch, JAX)
SEED_BOUND = 2**31 - 1


def _seed(rng: Any) -> int:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return int(rng.integers(0, SEED_BOUND))


@contextlib.contextmanager
def _global_generators(seed: int) -> Iterator[None]:
    """numpy's and Python's global generators seeded from ``seed`` inside, restored after (guarded)."""
    np_state, py_state = np.random.get_state(), random.getstate()
    np.random.seed(seed)
    random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(np_state)
        random.setstate(py_state)


def sklearn_mechanism(estimator_factory: Callable[[], Any], attribute: str | tuple[str, ...] = "coef_", *,
                      X_key: str = "X", y_key: str = "y") -> Callable[[Mapping[str, Any], np.random.Generator], np.ndarray]:
    """``f(data, rng)``: a fresh estimator from ``estimator_factory()``, its ``random_state`` set to an integer
    drawn from ``rng``, fitted on ``(data[X_key], data[y_key])``; returns ``attribute`` (a name, or several
    concatenated, e.g. ``("coef_", "intercept_")``) as a flat float array.

    Raises TypeError (naming ``estimator_factory``) if the estimator has no ``random_state`` parameter: without it
    the fit cannot be driven by ``rng``.  The estimator's global-state use (if any) is guarded as in
    :func:`torch_seeded`.
    """
    names = (attribute,) if isinstance(attribute, str) else tuple(attribute)
    if not names or not all(isinstance(a, str) for a in names):
        raise TypeError(f"attribute must be a name or a tuple of names, got {attribute!r}")

    def mechanism(data: Mapping[str, Any], rng: np.random.Generator) -> np.ndarray:
        seed = _seed(rng)
        est = estimator_factory()
        params = est.get_params() if hasattr(est, "get_params") else {}
        if "random_state" not in params:
            raise TypeError(f"estimator_factory: {type(est).__name__} has no random_state parameter to seed from rng")
        est.set_params(random_state=seed)
        with _global_generators(seed):
            est.fit(np.asarray(data[X_key]), np.asarray(data[y_key]))
        return np.concatenate([np.ravel(np.asarray(getattr(est, a), dtype=np.float64)) for a in names])

    mechanism.__name__ = f"sklearn_mechanism_{getattr(estimator_factory, '__name__', 'estimator')}"
    return mechanism


def torch_generator(rng: np.random.Generator) -> Any:
    """A CPU ``torch.Generator`` seeded with an integer drawn from ``rng`` (one per stream you need: the noise,
    a DataLoader's sampler, dropout...)."""
    import torch

    return torch.Generator().manual_seed(_seed(rng))


def torch_seeded(fn: Callable[..., Any]) -> Callable[[Mapping[str, Any], np.random.Generator], np.ndarray]:
    """``f(data, rng)`` calling ``fn(data, generator=g)`` with every PyTorch generator seeded from ``rng``.

    Inside ``torch.random.fork_rng`` (torch's global state is restored afterwards): ``torch.manual_seed(s1)``, a
    CPU ``torch.Generator`` ``g`` seeded with ``s2`` (pass it to ``torch.randn(..., generator=g)`` and, through
    :func:`torch_generator`-style streams, to your DataLoader's sampler), numpy's and Python's global generators
    seeded with ``s3`` and restored; s1, s2, s3 drawn from ``rng``.  The output (a tensor or array) is returned
    as a float64 numpy array.  Needs ``torch`` (extra ``dpsco[torch]``); ImportError otherwise.
    """
    def mechanism(data: Mapping[str, Any], rng: np.random.Generator) -> np.ndarray:
        import torch

        s1, s2, s3 = _seed(rng), _seed(rng), _seed(rng)
        with torch.random.fork_rng(devices=[]), _global_generators(s3):
            torch.manual_seed(s1)
            out = fn(data, generator=torch.Generator().manual_seed(s2))
        if isinstance(out, torch.Tensor):
            out = out.detach().cpu().numpy()
        return np.asarray(out, dtype=np.float64)

    mechanism.__name__ = f"torch_seeded_{getattr(fn, '__name__', 'fn')}"
    return mechanism


def jax_seeded(fn: Callable[..., Any]) -> Callable[[Mapping[str, Any], np.random.Generator], np.ndarray]:
    """``f(data, rng)`` calling ``fn(data, key)`` with ``key = jax.random.PRNGKey(s)``, s drawn from ``rng``
    (split it inside ``fn`` for every random draw); numpy's and Python's global generators seeded from ``rng``
    for the call and restored.  Returns the output as a float64 numpy array.  Needs ``jax`` (extra
    ``dpsco[jax]``); ImportError otherwise."""
    def mechanism(data: Mapping[str, Any], rng: np.random.Generator) -> np.ndarray:
        import jax

        key_seed, global_seed = _seed(rng), _seed(rng)
        with _global_generators(global_seed):
            out = fn(data, jax.random.PRNGKey(key_seed))
        return np.asarray(out, dtype=np.float64)

    mechanism.__name__ = f"jax_seeded_{getattr(fn, '__name__', 'fn')}"
    return mechanism


def add_remove_neighbours(dataset: Mapping[str, Any], record: Mapping[str, Any]) -> tuple[dict[str, np.ndarray],
                                                                                         dict[str, np.ndarray]]:
    """(dataset with ``record`` appended, dataset): an add/remove neighbouring pair, the larger first (axis 0 =
    records; ``record`` gives one row per array, e.g. ``{"X": x, "y": y}``; 0-d arrays are copied unchanged).

    Audit it under an add/remove claim (:func:`add_remove_claim`, or ``PrivacyClaim(neighbouring="add/remove")``):
    a replace-one claim says nothing about adding a record.  Raises ValueError naming a missing key or a row of
    the wrong shape, TypeError for non-mappings.
    """
    if not isinstance(dataset, Mapping) or not isinstance(record, Mapping):
        raise TypeError("dataset and record must be mappings of names to arrays")
    bigger, smaller = {}, {}
    for key, value in dataset.items():
        arr = np.asarray(value)
        smaller[key] = arr.copy()
        if arr.ndim == 0:
            bigger[key] = arr.copy()
            continue
        if key not in record:
            raise ValueError(f"record has no value for dataset[{key!r}] (one row per array of the dataset)")
        row = np.asarray(record[key], dtype=arr.dtype if arr.dtype.kind in "fc" else None)
        if row.shape != arr.shape[1:]:
            raise ValueError(f"record[{key!r}] has shape {row.shape}; a row of dataset[{key!r}] has {arr.shape[1:]}")
        bigger[key] = np.concatenate([arr, row[None, ...]], axis=0)
    unknown = set(record) - set(dataset)
    if unknown:
        raise ValueError(f"record has keys the dataset lacks: {sorted(unknown)}")
    return bigger, smaller


def add_remove_claim(epsilon: float, delta: float, source: str = "user-declared (add/remove)") -> Any:
    """The (ε, δ)-DP claim under add/remove neighbouring (what DP-SGD libraries' accountants report), as a
    :class:`~dpsco.reference.privacy.PrivacyClaim` (pure DP if δ = 0).  ValueError for ε or δ out of range."""
    from dpsco.reference.privacy import PrivacyClaim

    return PrivacyClaim(notion="pure-DP" if float(delta) == 0.0 else "approx-DP", epsilon=float(epsilon),
                        delta=float(delta), neighbouring="add/remove", source=source)
