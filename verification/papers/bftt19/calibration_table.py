"""Where Theorem 3.1's printed noise fails: the table of ERRATA.md BFTT19-E4.

For each (n, ε, T) with δ = 1/n² (Algorithm 1's largest admissible δ), Algorithm 1's printed parameters
m = ⌈n√(ε/(4T))⌉, σ² = 8TL² log(1/δ)/(n²ε²) (Bassily et al. 2019) are evaluated on the worst-case replace-one
pair (``dpsco.reference.bftt19.accounting``: exact at T = 1, ``dp_accounting`` PLD beyond).  A row fails when the curve's
δ(ε) exceeds δ; its true ε at δ is then reported too.  Everything depends on public parameters only.

Run ``python -m dpsco.verification.papers.bftt19.calibration_table [--out FILE.md]`` to regenerate the table (about 10 minutes
on 2 cores); ``--n``, ``--epsilon`` and ``--T`` narrow the grid.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from dataclasses import dataclass
from typing import Iterable, Sequence

from dpsco.reference.bftt19.accounting import nsgd_worst_pair_delta, nsgd_worst_pair_epsilon
from dpsco.reference.bftt19 import algorithm_1_batch_size, algorithm_1_noise_variance

__all__ = ["CalibrationRow", "printed_calibration_rows", "markdown_table", "main"]


@dataclass(frozen=True)
class CalibrationRow:
    """One (n, ε, δ, T): the printed m and σ, the worst-pair δ(ε) and (when it fails) the true ε at δ."""

    n: int
    epsilon: float
    delta: float
    T: int
    m: int
    sigma_printed: float
    delta_at_epsilon: float
    epsilon_at_delta: float | None  # only computed where the printed calibration fails

    @property
    def private(self) -> bool:
        return self.delta_at_epsilon <= self.delta


def printed_calibration_rows(n_values: Iterable[int], eps_values: Iterable[float], T_values: Sequence[int],
                             lipschitz: float = 1.0) -> list[CalibrationRow]:
    """Evaluate the printed calibration on the worst pair for every (n, ε, T); δ = 1/n².

    Returns a list of :class:`CalibrationRow` in grid order.  Raises ValueError/TypeError for bad grids.
    """
    rows = []
    for n in n_values:
        delta = 1.0 / n**2
        for eps in eps_values:
            for T in T_values:
                m = algorithm_1_batch_size(n, eps, T)[1]
                sigma = math.sqrt(algorithm_1_noise_variance(T, n, eps, delta, lipschitz))
                d = nsgd_worst_pair_delta(eps, n, m, sigma, lipschitz, T)
                e = nsgd_worst_pair_epsilon(delta, n, m, sigma, lipschitz, T) if d > delta else None
                rows.append(CalibrationRow(n, eps, delta, T, m, sigma, d, e))
    return rows


def markdown_table(rows: Sequence[CalibrationRow]) -> str:
    """Summary per (n, ε): the T where the printed σ fails, and the failing rows in full."""
    out = ["| n | ε | δ = 1/n² | T where the printed σ fails (of those evaluated) | largest failing T |",
           "|---|---|---|---|---|"]
    groups: dict[tuple[int, float], list[CalibrationRow]] = {}
    for r in rows:
        groups.setdefault((r.n, r.epsilon), []).append(r)
    for (n, eps), rs in groups.items():
        bad = [r.T for r in rs if not r.private]
        out.append(f"| {n} | {eps:g} | {rs[0].delta:.0e} | {_ranges(bad) or 'none'} "
                   f"| {max(bad) if bad else '—'} |")
    out += ["", "| n | ε | T | m | σ printed | δ(ε) on the worst pair | true ε at δ |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if not r.private:
            out.append(f"| {r.n} | {r.epsilon:g} | {r.T} | {r.m} | {r.sigma_printed:.5g} | {r.delta_at_epsilon:.3g} "
                       f"| {r.epsilon_at_delta:.3g} |")
    return "\n".join(out) + "\n"


def _ranges(values: Sequence[int]) -> str:
    parts, start, prev = [], None, None
    for v in sorted(values):
        if start is None:
            start = prev = v
        elif v == prev + 1:
            prev = v
        else:
            parts.append(f"{start}" if start == prev else f"{start}–{prev}")
            start = prev = v
    if start is not None:
        parts.append(f"{start}" if start == prev else f"{start}–{prev}")
    return ", ".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m dpsco.verification.papers.bftt19.calibration_table", description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, nargs="+", default=[1000, 10_000])
    p.add_argument("--epsilon", type=float, nargs="+", default=[0.5, 1.0])
    p.add_argument("--T", type=int, nargs=2, default=[1, 100], metavar=("FIRST", "LAST"))
    p.add_argument("--out", help="write the markdown here (atomically) instead of stdout")
    a = p.parse_args(argv)
    if a.T[0] < 1 or a.T[1] < a.T[0]:
        p.error("--T FIRST LAST needs 1 <= FIRST <= LAST")
    text = markdown_table(printed_calibration_rows(a.n, a.epsilon, range(a.T[0], a.T[1] + 1)))
    if a.out:
        # written next to the target, then renamed over it (as campaign.fileio.atomic_write_text does; the papers
        # layer may not import the campaign's, see tests/test_layout.py::test_imports_run_one_way)
        target = os.path.abspath(a.out)
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=os.path.dirname(target))
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
            mask = os.umask(0o022)
            os.umask(mask)
            os.chmod(tmp, 0o666 & ~mask)  # an ordinary file's mode, not mkstemp's 0600
            os.replace(tmp, target)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
