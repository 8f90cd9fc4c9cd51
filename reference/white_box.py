"""What a white-box adversary sees of a noisy-gradient method: every iterate and every noisy gradient.

Nasr, Song, Thakurta, Papernot & Carlini (2021, "Adversary instantiation", arXiv:2101.04535) and Nasr et al.
(2023, "Tight auditing of differentially private machine learning", USENIX Security) audit DP-SGD against an
adversary who observes the whole training run.  The proofs of noisy-gradient methods (Bassily et al. 2019,
Theorem 3.1, by composition over the T steps) cover exactly that view: each step releases the noisy mean
gradient

    ĝ_t = (1/m) Σ_{j=1..m} clip(∇ℓ(w_t, z_{i(t,j)})) + G_t,      G_t ~ N(0, σ² I_d),

and the iterate w_{t+1} = Proj_W(w_t − η ĝ_t) is a function of w_t and ĝ_t.  A :class:`NoisyGradientTrace`
holds ĝ_1..ĝ_T and w_0..w_T of R independent runs, together with the *step function* — the per-sample
gradient the step averages, for any record — and the public parameters of the step (n, m, σ, clipping norm,
sampling scheme).  An auditor (``dpsco.verification.auditing.white_box``) evaluates the step function at the
observed iterates to strip the known part of ĝ_t and keeps the canary's contribution plus noise.

The trace is a verification record, never part of a published release: ``Release.white_box`` is not written
by ``Release.to_dict``/``to_json``/``to_verification_record`` and is not shown by ``repr``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from dpsco.reference.validation import check_positive, check_positive_int

__all__ = ["NoisyGradientTrace", "RecordGradient"]

#: (W: (R, d) iterates, x: (d,) record features, y: float label) -> (R, d): the clipped per-sample gradient
#: that the step averages for the record (x, y), at each of the R iterates
RecordGradient = Callable[[np.ndarray, np.ndarray, float], np.ndarray]


@dataclass(frozen=True, repr=False)
class NoisyGradientTrace:
    """The white-box view of R independent runs of a noisy-gradient method.

    Attributes
    ----------
    iterates : (R, T+1, d) float array, w_0..w_T of each run.
    noisy_gradients : (R, T, d) float array, ĝ_1..ĝ_T (the step of run r at step t is
        w_{t+1} = Proj_W(w_t − η ĝ_t), with w_t = ``iterates[r, t]``).
    record_gradient : :data:`RecordGradient`, the per-sample gradient of the step (after the step's
        clipping), for any record: the step function of the method.
    n : int ≥ 1, dataset size;  m : int ≥ 1, batch size;  T : int ≥ 1, steps.
    sigma : float > 0, standard deviation of each coordinate of G_t (the noise actually drawn).
    clip_norm : float > 0, the per-sample gradient norm bound the noise is calibrated to (replace-one
        sensitivity of the batch mean: 2·clip_norm/m).
    eta : float > 0, step size.
    sampling : "with-replacement" (m indices i.i.d. uniform on [n] per step, Bassily et al. 2019,
        Algorithm 1, line 5).
    algorithm : name of the method.

    Raises ValueError naming the field for inconsistent shapes or out-of-range parameters.
    """

    iterates: np.ndarray
    noisy_gradients: np.ndarray
    record_gradient: RecordGradient = field(compare=False)
    n: int
    m: int
    T: int
    sigma: float
    clip_norm: float
    eta: float
    sampling: str = "with-replacement"
    algorithm: str = ""

    def __post_init__(self) -> None:
        check_positive_int(self.n, "n")
        check_positive_int(self.m, "m")
        check_positive_int(self.T, "T")
        check_positive(self.sigma, "sigma")
        check_positive(self.clip_norm, "clip_norm")
        check_positive(self.eta, "eta")
        it, g = np.asarray(self.iterates), np.asarray(self.noisy_gradients)
        if it.ndim != 3 or g.ndim != 3:
            raise ValueError(f"iterates and noisy_gradients must be (R, T+1, d) and (R, T, d) arrays, got shapes "
                             f"{it.shape} and {g.shape}")
        R, T1, d = it.shape
        if g.shape != (R, T1 - 1, d) or T1 - 1 != self.T:
            raise ValueError(f"noisy_gradients has shape {g.shape}; with iterates of shape {it.shape} and T = "
                             f"{self.T} it must be {(R, self.T, d)}")

    @property
    def replicates(self) -> int:
        """R, the number of runs."""
        return int(np.shape(self.iterates)[0])

    def __repr__(self) -> str:
        R, T1, d = np.shape(self.iterates)
        return (f"NoisyGradientTrace({self.algorithm!r}, R={R}, T={self.T}, d={d}, n={self.n}, m={self.m}, "
                f"sigma={self.sigma:.6g}, clip_norm={self.clip_norm:.6g})")
