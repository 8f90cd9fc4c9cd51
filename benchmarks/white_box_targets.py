"""White-box audit of A_NSGD against the accountant's exact ε: the issue's tightness targets, measured.

Usage::

    python benchmarks/white_box_targets.py [--runs 1000000] [--mutant-runs 100000] [--black-box-runs 100000]
                                           [--d 10] [--seed 20261123] [--json out.json]
                                           [--workers 2] [--canary-norm 1.0] [--only white-box]
                                           [--chunk 16000]

Instance: A_NSGD (Bassily et al. 2019, Algorithm 1; ``dpsco.reference.bftt19.noisy_sgd``, certified
calibration) on the linear loss, n = 1000, d = ``--d`` (default 10), W = B(0, 1), L = 1, claim (ε, δ) =
(1, 10⁻⁶); Theorem 3.2 gives T = 125, m = 45, σ = 0.1175.  Neighbouring pair: the one-sided canary (every
record e₁, the neighbour's last −e₁; ``dpsco.verification.auditing.white_box.OneSidedCanary``).

Prints, at confidence 0.95:

* the white-box audit (``white_box_audit``) of the correct algorithm at ``--runs`` runs per side: ε_lb, the
  accountant's ε_true at δ (``PrivacyClaim.event_epsilon``), their ratio (target ≥ 0.55), the ε the claimed
  model expected at these runs, and the Gaussian-DP route's figure (labelled: valid only under a Gaussian
  trade-off, which the subsampled mixture does not have);
* the same audit of the σ/2 planted bug (``dpsco.verification.mutants.bftt19.bugs.nsgd_sensitivity_without_factor_2``)
  at ``--mutant-runs``: its verdict (target: refuted);
* the black-box audit (``dpsco.verification.auditing.audit.audit``, split-sample threshold auditor) of the
  released averaged iterate at ``--black-box-runs`` runs per side.

and, beside ε_lb, the information limit of the design at these runs
(``dpsco.verification.auditing.white_box_limit.threshold_limit``): the largest ε_lb that any threshold test
of any statistic could certify at its expected counts, from the exact privacy-loss distribution of the
claimed T-step mixture, and the runs per side that the limit needs to reach 0.75 ε_true.

``--workers 2`` runs the test chunks of both sides on a local pool of 2 processes (same numbers as
``--workers 1``: chunk i of a side draws from child i of its stream); the CPU seconds of this process and of
its workers (``resource.getrusage``) are printed beside the wall time.  ``--canary-norm r < 1`` scales the
canary records to norm r (inside the declared bound L = 1, so A_NSGD's fast path applies; the records on the
bound take the generic clipping path); the per-draw shift is then r, and ε_true is still the claim's.
``--chunk`` (default 16,000, the auditor's own chunk at d = 10): runs per call of ``noisy_sgd``.  Keep it: the
auditor's default at d = 1 would be 160,000 runs, whose trace holds (R, T, m) int64 batch indices of 7.2 GB.

Every stream derives from ``--seed`` (recorded).  Wall time at the defaults: about 30 min for the 10⁶-run
audit at d = 10 on one core (0.8 ms per run), 3 min at d = 1 (the mechanism's parameters do not depend on d
here: T = 125, m = 45 for both).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Mapping

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dpsco.reference.bftt19 as o  # noqa: E402
from dpsco.reference import Ball, DataBounds, ERMProblem, LinearLoss  # noqa: E402
from dpsco.verification.auditing.audit import audit  # noqa: E402
from dpsco.verification.auditing.white_box import OneSidedCanary, white_box_audit  # noqa: E402
from dpsco.verification.mutants.bftt19.bugs import nsgd_sensitivity_without_factor_2  # noqa: E402

N, EPS, DELTA = 1000, 1.0, 1e-6
PROBLEM = ERMProblem(LinearLoss(), Ball(1.0), DataBounds(1.0, 1.0))
CONFIDENCE = 0.95


def design(d: int, norm: float = 1.0) -> OneSidedCanary:
    e1 = np.zeros(d)
    e1[0] = norm
    return OneSidedCanary(N, (e1, 0.0), (-e1, 0.0))


class WhiteBoxRun:
    """(data, R, rng) -> the white-box trace of R runs of ``algorithm`` (picklable: a process pool can run it)."""

    def __init__(self, algorithm: Any) -> None:
        self.algorithm = algorithm

    def __call__(self, data: Mapping[str, np.ndarray], R: int, rng: np.random.Generator) -> Any:
        return self.algorithm(data["X"], data["y"], PROBLEM, EPS, DELTA, rng, replicates=R,
                              white_box=True).white_box


def white_box_run(algorithm: Any) -> Any:
    return WhiteBoxRun(algorithm)


def cpu_seconds(executor: Any = None) -> float:
    """User + system CPU seconds of this process and of the live worker processes of ``executor`` (a
    ProcessExecutor's pool; read from /proc/<pid>/stat, since forkserver workers are not our children)."""
    import os
    t = os.times()
    total = t.user + t.system
    pool = getattr(executor, "_pool", None)
    for pid in (getattr(pool, "_processes", None) or {}):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
        except (OSError, IndexError, ValueError):
            pass
    return total


class ReleasedIterate:
    """The black-box view: A_NSGD's release w̄_T, batched with ``replicates`` in chunks."""

    chunk = 10_000

    def __call__(self, data: Mapping[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        return np.asarray(o.noisy_sgd(data["X"], data["y"], PROBLEM, EPS, DELTA, rng).output)

    def sample(self, data: Mapping[str, np.ndarray], n: int, rng: np.random.Generator) -> np.ndarray:
        parts = []
        for start in range(0, n, self.chunk):
            r = min(self.chunk, n - start)
            parts.append(o.noisy_sgd(data["X"], data["y"], PROBLEM, EPS, DELTA, rng, replicates=r).output)
        return np.concatenate(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1_000_000)
    ap.add_argument("--mutant-runs", type=int, default=100_000)
    ap.add_argument("--black-box-runs", type=int, default=100_000)
    ap.add_argument("--d", type=int, default=10)
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--json", default=None)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--chunk", type=int, default=16_000)
    ap.add_argument("--canary-norm", type=float, default=1.0)
    ap.add_argument("--only", choices=["white-box"], default=None, help="skip the mutant and black-box audits")
    args = ap.parse_args(argv)
    s_correct, s_mutant, s_black = np.random.SeedSequence(args.seed).spawn(3)
    des = design(args.d, args.canary_norm)
    ds, nb = des.datasets()
    claim = o.noisy_sgd(ds["X"], ds["y"], PROBLEM, EPS, DELTA, np.random.default_rng(0)).claim
    out: dict[str, Any] = {"instance": f"A_NSGD, linear loss, n={N}, d={args.d}, W=B(0,1), L=1, claim ({EPS:g}, "
                                       f"{DELTA:g}), one-sided canary", "seed": args.seed, "confidence": CONFIDENCE}
    import os
    from dpsco.verification.auditing.white_box import claimed_step
    from dpsco.verification.auditing.white_box_limit import runs_for_ratio, threshold_limit
    print(f"load average {os.getloadavg()}; workers {args.workers}; canary norm {args.canary_norm:g}")
    from dpsco.verification.executors import ProcessExecutor
    ex = ProcessExecutor(args.workers) if args.workers > 1 else None
    t0, c0 = time.perf_counter(), cpu_seconds()
    res = white_box_audit(white_box_run(o.noisy_sgd), des, claim, args.runs, np.random.default_rng(s_correct),
                          confidence=CONFIDENCE, workers=ex, chunk=args.chunk)
    wall, cpu = time.perf_counter() - t0, cpu_seconds(ex)
    cpu -= c0
    if ex is not None:
        ex.close()
    out["white_box"] = res.to_dict()
    out["white_box_cpu_seconds"], out["white_box_wall_seconds"] = cpu, wall
    step = claimed_step(claim)
    lim = threshold_limit(step, args.runs, DELTA, CONFIDENCE)
    need = runs_for_ratio(step, 0.75 * res.epsilon_true, DELTA, CONFIDENCE)
    out["information_limit"] = {**lim, "runs_per_side_for_0.75_eps_true": need}
    print(f"information limit at {args.runs:,} runs/side (expected counts, any threshold test): eps_lb <= "
          f"{lim['epsilon_lower']:.3f} = {lim['epsilon_lower'] / res.epsilon_true:.3f} eps_true; 0.75 eps_true needs "
          f"~{need:,} runs/side")
    print(f"{out['instance']}; T = {res.parameters['T']}, m = {res.parameters['m']}, sigma = {res.parameters['sigma']:.4f}")
    print(f"white-box, correct, {args.runs:,} runs/side: eps_lb = {res.epsilon_lower:.3f}, eps_true = "
          f"{res.epsilon_true:.3f}, ratio = {res.epsilon_lower / res.epsilon_true:.3f} (target >= 0.75); model "
          f"expected {res.event.expected_epsilon_lower:.3f}; Gaussian-DP route (assumes a Gaussian trade-off, not "
          f"a bound here): {res.epsilon_lower_assuming_gaussian_tradeoff:.3f}; verdict {res.verdict}; "
          f"wall {wall:.0f} s, CPU {cpu:.0f} s ({cpu / (2 * args.runs) * 1e3:.3f} ms per run)")
    if args.only == "white-box":
        if args.json:
            Path(args.json).write_text(json.dumps(out, indent=1, default=str))
        return 0
    t0 = time.perf_counter()
    mut = white_box_audit(white_box_run(nsgd_sensitivity_without_factor_2), des, claim, args.mutant_runs,
                          np.random.default_rng(s_mutant), confidence=CONFIDENCE, epsilon_true=False)
    out["white_box_sigma_half_mutant"] = mut.to_dict()
    print(f"white-box, sigma/2 planted bug, {args.mutant_runs:,} runs/side: eps_lb = {mut.epsilon_lower:.3f}, "
          f"verdict {mut.verdict}; {time.perf_counter() - t0:.0f} s")
    t0 = time.perf_counter()
    bb = audit(ReleasedIterate(), ds, nb, claim, args.black_box_runs, np.random.default_rng(s_black),
               confidence=CONFIDENCE, power_family=None)
    out["black_box_released_iterate"] = bb.to_dict()
    print(f"black-box, released averaged iterate, {args.black_box_runs:,} runs/side: eps_lb = "
          f"{bb.epsilon_lower:.3f}, verdict {bb.verdict}; {time.perf_counter() - t0:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
