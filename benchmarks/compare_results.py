"""Compare two ``dpsco verify`` results.json files: every number and string, apart from timing and provenance
fields (anything named "*seconds*", "provenance").  Used to show that a refactor (e.g. the move of each paper into
its rooms, issue 26) leaves the campaign's numbers unchanged for the same seed: run ``dpsco verify --quick
--workers 1`` on the commit before and after (each in its own virtual environment) and compare.

Usage: python benchmarks/compare_results.py BEFORE/results.json AFTER/results.json
Prints the number of numeric differences with the largest relative one, then every other difference (strings,
e.g. a module path that moved).

Files of the record shape before results schema version 2 (issue 28: every record with claim, audits, checks,
planted_bugs, power, provenance; non-finite numbers as {"value": null, "reason": ...}) are first brought to the
current shape by ``dpsco.verification.campaign.results_record.upgrade_results``, so a file written before the
change compares with one written after it; non-finite numbers compare as floats."""
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
def load(path):
    data = json.load(open(path))
    if data.get("schema_version") is None:  # the shape before schema version 2
        from dpsco.verification.campaign.results_record import upgrade_results
        from dpsco.verification.campaign.verify import CHECK_KEYS
        data = upgrade_results(data, CHECK_KEYS)[0]
        print(f"{path}: the record shape before schema version 2, upgraded for the comparison")
    from dpsco.verification.campaign.results_record import decode_nonfinite
    return decode_nonfinite(data)
a, b = (load(f) for f in sys.argv[1:3])
out = []
walk(a, b, "", out)
nums = [o for o in out if o[2] is not None]
other = [o for o in out if o[2] is None]
print("numeric differences:", len(nums), "largest relative:", max((o[2] for o in nums), default=0))
for o in sorted(nums, key=lambda o: -o[2])[:15]: print("  ", o)
print("other differences:", len(other))
for o in other[:25]: print("  ", o)
