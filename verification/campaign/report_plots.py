"""The figures of report.html (matplotlib, embedded as PNG): rates against n, bound checks as ratios, every audit's
lower bound against its claim and its power, and the figures the suite tasks record.

Every figure has labelled axes with units, titles in the papers' words ("Thm 3.2 rate, Algorithm 1"), and the
legend outside the data; the rates are one small figure each, laid out by the page in a grid that reflows.  The HTML scales each image to its container
(``width: 100%``), so a figure's size here fixes only its aspect and its text size.
"""

from __future__ import annotations

import base64
import io
import math
from typing import Any, Mapping

import numpy as np

from dpsco.verification.campaign.report_common import fmt

__all__ = ["Figure", "figures", "rate_figures"]

#: (caption, alt text, base64 PNG)
Figure = tuple[str, str, str]
_SYMBOL = {"epsilon": "ε", "rho": "ρ", "mu": "μ"}


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _floats(values: Any) -> list[float]:
    out = []
    for v in values if isinstance(values, list) else []:
        try:
            out.append(float(v))
        except (TypeError, ValueError):
            out.append(math.nan)
    return out


def _short(text: str, n: int = 48) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _rate_title(rec: Mapping[str, Any], c: Mapping[str, Any]) -> str:
    theorem = str(c.get("theorem") or rec.get("utility_theorem") or "").split(":")[0].strip()
    return f"{_short(str(rec.get('title')), 30)}\n{_short(theorem, 34)} rate, {_short(str(rec.get('algorithm')), 22)}"


def _rates(plt: Any, recs: list[Mapping[str, Any]]) -> list[Figure]:
    """One small figure per rate check (the page lays them out in a grid that reflows with its width)."""
    from matplotlib.ticker import LogLocator, NullFormatter

    out: list[Figure] = []
    for r in recs:
        rt = (r.get("checks") or {}).get("rate")
        if not isinstance(rt, Mapping) or "slope" not in rt:
            continue
        ns, ys = _floats(rt.get("n_grid")), _floats(rt.get("mean_excess"))
        if len(ns) != len(ys) or not ns:
            continue
        fig, ax = plt.subplots(figsize=(4.4, 3.3))
        ax.loglog(ns, ys, "o", label="mean excess")
        slope, intercept = float(rt.get("slope") or math.nan), float(rt.get("intercept") or math.nan)
        with np.errstate(all="ignore"):
            ax.loglog(ns, [float(np.exp(intercept) * n ** slope) for n in ns], "-", label=f"fit, slope {slope:.2f}")
        bounds = _floats((rt.get("extra") or {}).get("bounds") or rt.get("bounds"))
        if len(bounds) == len(ns):
            ax.loglog(ns, bounds, "--", label=f"theorem's bound (∝ n^{fmt(rt.get('exponent'))})")
        ax.set_title(_rate_title(r, rt), fontsize=8.5)
        ax.set_xlabel("n (records)", fontsize=8)
        quantity = str((rt.get("extra") or {}).get("quantity") or "population").split(" ")[0]
        ax.set_ylabel(f"{quantity} excess risk (loss units)", fontsize=8)
        ax.tick_params(labelsize=7)
        if len(ns) <= 7 and all(n > 0 for n in ns):  # the grid's own values as ticks (they never collide)
            ax.set_xticks(ns)
            ax.set_xticklabels([f"{n:g}" if n < 1e4 else f"{n / 1e3:g}k" for n in ns])
        else:
            ax.xaxis.set_major_locator(LogLocator(base=10, numticks=4))
        ax.xaxis.set_minor_formatter(NullFormatter())  # (y keeps matplotlib's: minor labels within one decade)
        ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)
        fig.tight_layout()
        theorem = str(rt.get("theorem") or "").split(":")[0].strip()
        out.append((f"{r.get('title')}: {theorem} rate, {r.get('algorithm')}",
                    f"log-log plot of excess risk against n for {r.get('title')}", _png(fig)))
        plt.close(fig)
    return out


def _bound_checks(plt: Any, recs: list[Mapping[str, Any]]) -> list[Figure]:
    rows: list[tuple[str, str, float, float, float, float | None]] = []
    for r in recs:
        for key in ("empirical", "population"):
            c = (r.get("checks") or {}).get(key)
            if not isinstance(c, Mapping) or "mean" not in c:
                continue
            b = float(c.get("bound") or math.nan)
            if not (b > 0 and math.isfinite(b)):
                continue
            det = ((r.get("power") or {}).get(key) or {}).get("minimum_detectable_excess")
            rows.append((f"{_short(str(r.get('title')), 34)} ({key})", key, float(c["mean"]) / b,
                         max(float(c["lcb"]), 0.0) / b, float(c["ucb"]) / b,
                         None if det is None else (b + float(det)) / b))
    if not rows:
        return []
    fig, ax = plt.subplots(figsize=(8.5, 0.32 * len(rows) + 1.4))
    ys = list(range(len(rows)))[::-1]
    for y, (label, key, mean, lo, hi, det) in zip(ys, rows):
        color = "C0" if key == "empirical" else "C1"
        ax.errorbar([mean], [y], xerr=[[max(mean - lo, 0.0)], [max(hi - mean, 0.0)]], fmt="o", color=color,
                    capsize=3, ms=4)
        if det is not None:
            ax.plot([det], [y], marker="|", color="C3", ms=10, mew=2)
    ax.axvline(1.0, color="k", ls="--", lw=1)
    ax.set_yticks(ys)
    ax.set_yticklabels([r[0] for r in rows], fontsize=7)
    ax.set_xscale("symlog", linthresh=1.0)
    ax.set_xlim(left=-0.05)
    from matplotlib.ticker import FixedLocator, FuncFormatter

    ax.xaxis.set_major_locator(FixedLocator([0, 0.25, 0.5, 0.75, 1, 2, 5, 10, 20, 50, 100]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.grid(axis="x", color="0.92")
    ax.set_xlabel("mean excess risk ÷ theorem's bound (1 = the bound; symmetric-log scale)")
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color="C0", marker="o", ls="", label="empirical excess (real data), Hoeffding interval"),
               Line2D([], [], color="C1", marker="o", ls="", label="population excess (synthetic)"),
               Line2D([], [], color="k", ls="--", label="theorem's bound"),
               Line2D([], [], color="C3", marker="|", ls="", ms=10, mew=2,
                      label="smallest mean the check detects (bound + detectable excess)")]
    ax.legend(handles=handles, fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
    fig.tight_layout()
    plt.close(fig)
    return [("Bound checks: mean excess risk over the theorem's bound, with the check's power",
             "dot plot of excess risk over bound per check", _png(fig))]


def _audit_rows(recs: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for r in recs:
        power = r.get("power") or {}
        for key, a in (r.get("audits") or {}).items():
            p = power.get(key) or {}
            if not isinstance(a, Mapping) or p.get("kind") != "audit" or not p.get("claim"):
                continue
            claim = float(p["claim"])
            rel = lambda v: None if v is None else float(v) / claim  # noqa: E731
            mode = "white-box" if str(a.get("mode", "")).startswith("white") else "black-box"
            what = {"audit": "black-box audit", "white_box_audit": "white-box audit"}.get(key, key.replace("_", " "))
            label = f"{_short(str(r.get('title')), 30)} · {_short(what, 26)}"
            rows.append({"label": label, "lb": rel(p.get("lower_bound")) or 0.0, "md": rel(p.get("minimum_detectable")),
                         "ceiling": rel(p.get("ceiling")), "mode": mode, "refuted": a.get("verdict") == "refuted",
                         "param": _SYMBOL.get(str(p.get("parameter")), "ε")})
    return rows


def _audits(plt: Any, recs: list[Mapping[str, Any]]) -> list[Figure]:
    rows = _audit_rows(recs)
    if not rows:
        return []
    cap = 4.0
    fig, ax = plt.subplots(figsize=(8.5, 0.27 * len(rows) + 1.6))
    ys = list(range(len(rows)))[::-1]
    for y, row in zip(ys, rows):
        color = "C3" if row["refuted"] else ("C0" if row["mode"] == "white-box" else "C2")
        ax.barh([y], [min(row["lb"], cap)], height=0.6, color=color, alpha=0.8)
        ax.plot([min(row["lb"], cap)], [y], "o", color=color, ms=3.5)  # visible even at 0
        if row["md"] is not None:
            ax.plot([min(row["md"], cap)], [y], marker="D", color="C1", ms=4, ls="")
            if row["md"] > cap:
                ax.annotate(f"{fmt(row['md'], '.2g')}→", (cap, y), fontsize=6, xytext=(2, -2),
                            textcoords="offset points")
        if row["ceiling"] is not None and row["ceiling"] <= cap:
            ax.plot([row["ceiling"]], [y], marker="|", color="0.35", ms=9, mew=1.5, ls="")
    ax.axvline(1.0, color="k", ls="--", lw=1)
    ax.set_xlim(0.0, cap + 0.35)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_yticks(ys)
    ax.set_yticklabels([f"{row['label']} ({row['param']})" for row in rows], fontsize=6.5)
    ax.set_xlabel("lower bound ÷ claim, in the claim's notion (ε, ρ or μ; 1 = the claim; 0 = nothing detected)")
    ax.grid(axis="x", color="0.9")
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [Patch(color="C0", alpha=0.8, label="lower bound, white-box audit"),
               Patch(color="C2", alpha=0.8, label="lower bound, black-box audit"),
               Patch(color="C3", alpha=0.8, label="refuted"),
               Line2D([], [], color="k", ls="--", label="claim"),
               Line2D([], [], color="C1", marker="D", ls="", label="minimum detectable (true value detected)"),
               Line2D([], [], color="0.35", marker="|", ls="", ms=9, mew=1.5,
                      label="largest bound these runs can report")]
    ax.legend(handles=handles, fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False)
    fig.tight_layout()
    plt.close(fig)
    return [("Privacy audits of every entry: each lower bound against its claim (in the claim's notion) and the "
             "audit's power (values beyond 4× the claim are drawn at the edge)",
             "horizontal bar chart of audit lower bounds over claims", _png(fig))]


def _suite_figures(plt: Any, recs: list[Mapping[str, Any]]) -> list[Figure]:
    out: list[Figure] = []
    for r in recs:
        tasks = (r.get("provenance") or {}).get("task_records") or {}
        checks = {**(r.get("checks") or {}), **(r.get("planted_bugs") or {})}
        for task, rec in tasks.items():
            figure = rec.get("figure") if isinstance(rec, Mapping) else None
            if not (isinstance(figure, Mapping) and isinstance(figure.get("series"), list)
                    and isinstance(figure.get("x"), list)):
                continue
            fig, ax = plt.subplots(figsize=(6.0, 3.8))
            plot = ax.semilogy if figure.get("semilogy") else ax.loglog if figure.get("loglog", True) else ax.plot
            x = _floats(figure["x"])
            for series in figure["series"]:
                if isinstance(series, Mapping) and isinstance(series.get("y"), list) and len(series["y"]) == len(x):
                    plot(x, _floats(series["y"]), series.get("style", "o-"), label=str(series.get("label", "")))
            ylabel = str(figure.get("ylabel") or "")
            check = checks.get(ylabel) if isinstance(checks.get(ylabel), Mapping) else None
            if check is not None:  # an internal check name: say what the check measures instead
                theorem = str(check.get("theorem") or "").split(":")[0] or ylabel.replace("_", " ")
                ylabel = f"mean excess risk (loss units), {theorem}"
            xlabel = str(figure.get("xlabel") or "n")
            ax.set_xlabel(xlabel + (" (records)" if xlabel.strip() == "n" else ""), fontsize=8)
            ax.set_ylabel(_short(ylabel, 60), fontsize=8)
            ax.tick_params(labelsize=7)
            from matplotlib.ticker import NullFormatter

            ax.xaxis.set_minor_formatter(NullFormatter())
            title = str(figure.get("title") or "")
            if check is not None and check.get("theorem"):  # the paper's words: "Theorem 4 rate, Algorithm 3"
                title = f"{str(check['theorem']).split(':')[0]} rate, {r.get('algorithm')}"
            ax.set_title(f"{_short(str(r.get('title')), 50)}\n{_short(title, 70)}", fontsize=8.5)
            ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
            fig.tight_layout()
            out.append((f"{r.get('title')} — {title} ({r.get('paper')})", f"figure of task {task}", _png(fig)))
            plt.close(fig)
    return out


def rate_figures(results: Mapping[str, Any]) -> list[Figure]:
    """One figure per rate check of the common-phase entries (shown in a grid)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    common = [r for r in results.get("records", []) if isinstance(r, Mapping) and r.get("kind") != "suite"]
    with plt.rc_context({"font.size": 8}):
        return _rates(plt, common)


def figures(results: Mapping[str, Any]) -> list[Figure]:
    """The full-width figures of report.html, in order: audits, bound checks, the suites' figures (the rates:
    :func:`rate_figures`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    recs = [r for r in results.get("records", []) if isinstance(r, Mapping)]
    common = [r for r in recs if r.get("kind") != "suite"]
    suites = [r for r in recs if r.get("kind") == "suite"]
    with plt.rc_context({"font.size": 8}):
        return _audits(plt, recs) + _bound_checks(plt, common) + _suite_figures(plt, suites)
