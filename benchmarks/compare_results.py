"""Compare two ``dpsco verify`` results.json files: every number and string, apart from timing and provenance
fields (anything named "*seconds*", "provenance").  Used to show that a refactor (e.g. the move of each paper into
its rooms, issue 26) leaves the campaign's numbers unchanged for the same seed: run ``dpsco verify --quick
--workers 1`` on the commit before and after (each in its own virtual environment) and compare.

Usage: python benchmarks/compare_results.py BEFORE/results.json AFTER/results.json
Prints the number of numeric differences with the largest relative one, then every other difference (strings,
e.g. a module path that moved)."""
import json, math, sys
SKIP = {"provenance", "seconds", "wall_seconds", "phase_seconds", "task_seconds", "elapsed_seconds", "runtime_seconds", "time_seconds", "timing"}
def walk(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in set(a) | set(b):
            if k in SKIP or "seconds" in k: continue
            if k not in a or k not in b:
                out.append((path + "." + k, "missing on one side", None)); continue
            walk(a[k], b[k], path + "." + k, out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b): out.append((path, f"len {len(a)} vs {len(b)}", None)); return
        for i, (x, y) in enumerate(zip(a, b)): walk(x, y, f"{path}[{i}]", out)
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        if a != b and not (math.isnan(a) and math.isnan(b)):
            rel = abs(a - b) / max(abs(a), abs(b), 1e-300)
            out.append((path, f"{a!r} vs {b!r}", rel))
    elif a != b:
        out.append((path, f"{str(a)[:80]!r} vs {str(b)[:80]!r}", None))
a, b = (json.load(open(f)) for f in sys.argv[1:3])
out = []
walk(a, b, "", out)
nums = [o for o in out if o[2] is not None]
other = [o for o in out if o[2] is None]
print("numeric differences:", len(nums), "largest relative:", max((o[2] for o in nums), default=0))
for o in sorted(nums, key=lambda o: -o[2])[:15]: print("  ", o)
print("other differences:", len(other))
for o in other[:25]: print("  ", o)
