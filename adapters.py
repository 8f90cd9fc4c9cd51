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
  reference's own noisy-gradient methods are (:func:`dpsco.testing.assert_transcript_private`).

Pitfalls (docs/testing.md has the long version): a library that draws from a *global* generator (``np.random``,
``torch.manual_seed``, Python's ``random``) is not controlled by ``rng`` unless wrapped; two wrapped calls that
share a global state are not independent; a DataLoader's sampler has its *own* generator, separate from the
noise generator — seed both (``torch_seeded`` passes one ``generator``; derive more with
:func:`torch_generator`); a ``random_state`` of None draws from the operating system, so such a run is not
reproducible and the auditor's batched-sampler check cannot help.
"""

from __future__ import annotations

import contextlib
import math
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping

import numpy as np

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


# ---------------------------------------------------------------------------------------------------------------
# the white-box hook
# ---------------------------------------------------------------------------------------------------------------
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


def _transcript(out: Any) -> NoisyGradientTranscript:
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
        ts = [_transcript(candidate(data, g)) for g in rng.spawn(int(R))]
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
    first = _transcript(candidate(data, rng.spawn(1)[0]))
    per_run = first.T * first.iterates.shape[1]
    total = int(runs) if runs is not None else max(1, -(-int(min_residuals) // per_run))
    out = []
    for t in [first] + [_transcript(candidate(data, g)) for g in rng.spawn(total - 1)]:
        if t.public() != first.public():
            raise ValueError("the runs' public parameters differ: they must be computed from public inputs only")
        idx = t.batches.ravel()
        W = np.repeat(t.iterates[:-1], t.m, axis=0)
        G = np.asarray(t.gradient(W, X[idx], y[idx]), dtype=np.float64).reshape(t.T, t.m, -1).mean(axis=1)
        out.append((t.noisy_gradients - G).ravel())
    return np.concatenate(out), float(first.sigma)
