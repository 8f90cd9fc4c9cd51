"""Screenshots of report.html in headless Chromium at 1,400 and 800 px widths (issue 28), to check by eye that the
page holds up in a real browser: tables readable, figures within the page, no overlaps or clipped labels.

Usage:
    python benchmarks/report_screenshots.py [--results DIR_OR_RESULTS_JSON] [--only PATTERN] [--out docs]

Without ``--results`` it runs a small campaign first (``dpsco verify --quick --only PATTERN --seed 20191208``,
default pattern ``lr21.alg2``) in a temporary directory.  With it, the report is regenerated from that
results.json (``dpsco verify --from``; a file of the record shape before schema version 2 is upgraded).  It then
writes, for each width W in (1400, 800):

* ``OUT/report-W.png`` — the top of the page (summary and the tables);
* ``OUT/report-W-suites.png`` — the table of the entries verified by their own suites (``#suites``);
* ``OUT/report-W-audits.png`` — the audit chart (the first figure, ``#figure-1``), alone on the page;
* ``OUT/report-W-rates.png`` — the grid of rate figures (``#rates``), alone on the page.

Needs Chromium (Debian: ``apt-get install -y chromium``; the binary ``chromium`` or ``chromium-browser`` on PATH).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

WIDTHS = (1400, 800)
#: (file suffix, the figure shown alone (0: the top of the page), window height in px).  Headless Chromium's
#: --screenshot draws nothing after scrolling to a fragment, so a figure is shot from a copy of the page whose
#: other parts are hidden by one added CSS rule (the figure keeps the page's width and styles).
SHOTS = (("", "", 2200), ("-suites", "suites", 2200), ("-audits", "figure-1", 2700), ("-rates", "rates", 2100))


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("report_screenshots: no chromium on PATH (Debian: apt-get install -y chromium)")


def _dpsco(*args: str) -> None:
    cmd = [sys.executable, "-m", "dpsco.verification.cli.main", *args]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode not in (0, 1):
        sys.exit(f"report_screenshots: {' '.join(cmd)} failed:\n{run.stderr}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--results", default=None, help="a report directory or its results.json (default: run a small "
                                                    "verify)")
    p.add_argument("--only", default="lr21.alg2", help="the entries of the small verify (default: lr21.alg2)")
    p.add_argument("--out", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs"),
                   help="where the PNGs go (default: docs/)")
    args = p.parse_args(argv)
    browser = _chromium()
    with tempfile.TemporaryDirectory(prefix="dpsco-shots-") as tmp:
        report = os.path.join(tmp, "report")
        if args.results is None:
            _dpsco("verify", "--quick", "--quiet", "--only", args.only, "--seed", "20191208", "--out", report,
                   "--format", "html")
        else:
            src = args.results if args.results.endswith(".json") else os.path.join(args.results, "results.json")
            _dpsco("verify", "--from", src, "--out", report, "--format", "html")
        html = open(os.path.join(report, "report.html"), encoding="utf-8").read()
        os.makedirs(args.out, exist_ok=True)
        for width in WIDTHS:
            for suffix, figure, height in SHOTS:
                png = os.path.join(args.out, f"report-{width}{suffix}.png")
                page = os.path.join(report, f"shot{suffix or '-top'}.html")
                with open(page, "w", encoding="utf-8") as fh:
                    fh.write(html if not figure else html.replace(
                        "</head>", f"<style>main > *:not(#{figure}) {{ display: none; }}</style></head>"))
                run = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                      "--virtual-time-budget=20000",  # let the embedded figures decode first
                                      f"--window-size={width},{height}", f"--screenshot={png}", "file://" + page],
                                     capture_output=True, text=True, timeout=300)
                if run.returncode != 0 or not os.path.exists(png):
                    sys.exit(f"report_screenshots: chromium failed for {png}:\n{run.stderr[-2000:]}")
                print(png)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
