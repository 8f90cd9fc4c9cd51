"""What ``import dpsco`` and ``dpsco --help`` cost: wall time of fresh interpreters, side by side in one run, and
the heaviest imports each one pulls in (``python -X importtime``).

Usage: python benchmarks/import_time.py [--repeats 7]

Each command runs in a fresh interpreter ``repeats`` times, interleaved (bare ``python -c pass``, ``import dpsco``,
``dpsco --help``, ``dpsco verify --help``), so machine noise falls on all of them alike; the table gives the median
wall seconds and the median minus the bare interpreter's.  The second table lists the five largest cumulative
imports of each command from ``-X importtime`` (microseconds).  docs/performance.md ("Import time") holds a run.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "import dpsco": [sys.executable, "-c", "import dpsco"],
    "dpsco --help": [sys.executable, "-c", "from dpsco.verification.cli.main import main; main(['--help'])"],
    "dpsco verify --help": [sys.executable, "-c",
                            "from dpsco.verification.cli.main import main; main(['verify', '--help'])"],
}


def _heaviest(cmd: list[str], k: int = 5) -> list[tuple[int, str]]:
    err = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], capture_output=True, text=True).stderr
    rows = []
    for line in err.splitlines():
        if line.startswith("import time:") and "|" in line:
            parts = [p.strip() for p in line[len("import time:"):].split("|")]
            if parts[1].isdigit():
                rows.append((int(parts[1]), parts[2].strip()))
    top_level = [r for r in rows if not r[1].startswith(" ")]
    return sorted(top_level or rows, reverse=True)[:k]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    times: dict[str, list[float]] = {k: [] for k in COMMANDS}
    for _ in range(args.repeats):
        for name, cmd in COMMANDS.items():
            t0 = time.perf_counter()
            subprocess.run(cmd, capture_output=True, check=True)
            times[name].append(time.perf_counter() - t0)
    bare = statistics.median(times["python -c pass"])
    print("| command | median wall (s) | minus bare interpreter (s) |")
    print("|---|---|---|")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"| `{name}` | {med:.3f} | {med - bare:.3f} |")
    print()
    print("| command | five largest cumulative imports (µs) |")
    print("|---|---|")
    for name, cmd in list(COMMANDS.items())[1:]:
        print(f"| `{name}` | " + ", ".join(f"{mod.strip()} {us:,}" for us, mod in _heaviest(cmd)) + " |")


if __name__ == "__main__":
    main()
