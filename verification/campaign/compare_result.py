"""The result of ``dpsco compare`` (:class:`CompareResult`): the verdict, the three families' records and a
readable summary; shared by the logistic comparison (``compare``) and the harness comparison
(``compare_suite``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dpsco.reference.privacy import to_jsonable

__all__ = ["CompareResult"]


def _num(v: Any, spec: str) -> str:
    """``format(v, spec)`` for a number; the string as is otherwise (``to_jsonable`` writes inf and nan as strings)."""
    return format(v, spec) if isinstance(v, (int, float)) else str(v)


@dataclass
class CompareResult:
    """Outcome of :func:`compare`.

    verdict : "refuted" | "not refuted";  refuted_by : names of the rejected hypotheses;
    two_sample, utility, audit : per-family records;  alpha : overall false-refutation budget (1 − confidence).
    white_box : family (d), the white-box audit and measured noise of the candidate's transcript, when its Release
        carries one in ``Release.white_box`` (None otherwise; docs/compare.md, "White-box family").
    """

    verdict: str
    refuted_by: list[str]
    alpha: float
    confidence: float
    against: str
    candidate: str
    instance: dict[str, Any]
    samples: int
    two_sample: dict[str, Any]
    utility: dict[str, Any]
    audit: dict[str, Any] | None
    seed: int
    seed_entropy: str
    wall_seconds: float
    notes: list[str] = field(default_factory=list)
    white_box: dict[str, Any] | None = None

    @property
    def refuted(self) -> bool:
        return self.verdict == "refuted"

    @property
    def exit_status(self) -> int:
        return 1 if self.refuted else 0

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable({k: getattr(self, k) for k in (
            "verdict", "refuted_by", "alpha", "confidence", "against", "candidate", "instance", "samples",
            "two_sample", "utility", "audit", "seed", "seed_entropy", "wall_seconds", "notes")}
                           | ({"white_box": self.white_box} if self.white_box is not None else {}))

    @staticmethod
    def _harness_utility_lines(u: dict) -> list[str]:
        """Family (b) of the harness convention (``compare_suite.utility_family``)."""
        ts, c, r, b = u["two_sample"], u["candidate"], u["reference"], u["bound"]

        gap = ts["power"]["min_detectable_gap_miss_0.05"]
        lines = [f"  (b) utility: {u['measure']}",
                 f"      median excess: candidate {_num(c['median'], '.4g')}, reference {_num(r['median'], '.4g')}; "
                 f"one-sided KS D⁺ = {ts['statistic']:.4f}, p = {ts['p_value']:.3g} vs level {ts['level']:.3g} -> "
                 f"{'REJECT' if ts['reject'] else 'not rejected'} "
                 + (f"(detects a CDF gap ≥ {gap:.3f} with probability ≥ 0.95)"
                    if isinstance(gap, (int, float)) and gap <= 1.0 else
                    "(no CDF gap is detected with probability ≥ 0.95 at these runs: raise --samples)")]
        if b["status"] == "checked":
            lines.append(f"      bound P(excess > {b['value']:.4g}) ≤ {b['beta']:.3g} ({b['source']}): "
                         f"{b['exceedances']} of {b['n']} exceed it, p = {b['p_value']:.3g} vs level {b['level']:.3g}"
                         f" -> {'REJECT' if b['reject'] else 'not rejected'}")
        elif b["status"] == "uninformative":
            lines.append(f"      bound {_num(b['value'], '.4g')} ({b['source']}): uninformative ({b['note']}; "
                         "not tested)")
        else:
            lines.append(f"      no bound checked: {b['reason']}")
        return lines

    def summary(self) -> str:
        t, u, a = self.two_sample, self.utility, self.audit
        e, ks = t["energy"], t["ks"]
        lines = [
            f"dpsco compare: {self.candidate} against {self.against} on {self.instance['name']} "
            f"(n = {self.instance['n']}, d = {self.instance['d']}, ε = {float(self.instance['epsilon']):g}, "
            f"δ = {float(self.instance['delta']):.3g}), {self.samples} runs each",
            f"  verdict: {self.verdict.upper()}" + (f" by {', '.join(self.refuted_by)}" if self.refuted_by else "")
            + f"   (overall α = {self.alpha:.3g}: a faithful implementation is refuted with probability ≤ α)",
            f"  (a) same distribution: p = {t['p_value']:.3g} vs α = {t['alpha']:.3g} -> "
            f"{'REJECT' if t['reject'] else 'not rejected'}",
            f"      energy distance {_num(e['statistic'], '.4g')}, permutation p = {_num(e['p_value'], '.3g')} "
            f"({e['permutations']} permutations, floor {e['p_value_floor']:.2g}"
            + ("" if e["can_reject"] else ", CANNOT reject at this α") + ")",
        ]
        for r in ks["tests"]:
            lines.append(f"      KS {r['name']}: D = {r['statistic']:.4f}, p = {r['p_value']:.3g}, Holm p = {r['p_holm']:.3g}")
        lines.append(f"      power: a CDF gap ≥ {t['power']['ks_min_detectable_gap_miss_0.05']:.3f} in any KS statistic "
                     "is detected with probability ≥ 0.95")
        if u.get("declared") is False:
            lines.append(f"  (b) utility: {u['reason']}")
        if u.get("convention") == "harness":
            lines += self._harness_utility_lines(u)
        for side in (("candidate", "reference") if u.get("declared", True) and u.get("convention") != "harness"
                     else ()):
            c = u[side]
            if c.get("outside_domain"):
                lines.append(f"  (b) utility, {side}: {c['outside_domain']} output(s) outside W -> FAIL")
                continue
            lines.append(f"  (b) utility, {side}: mean excess empirical risk {c['mean']:.4g} (LCB {c['lcb']:.4g}) vs "
                         f"bound {c['bound']:.4g} at α = {c['alpha']:.3g} -> {c['verdict'].upper()}")
        exact = (a or {}).get("claim_vs_exact")
        if exact is not None:
            lines.append(f"  (c) claim against the paper's exact privacy on the worst pair: {exact['verdict'].upper()}"
                         + "".join(f"; {c['notion']}: claimed {c['claimed']:.4g} vs exact {c['exact']:.4g}"
                                   for c in exact["checks"]))
        if a is not None and a.get("epsilon_lower") is not None:
            lines.append(f"  (c) privacy audit of the candidate: ε_lb = {a['epsilon_lower']:.4g} vs claimed "
                         f"ε = {a['claim']['epsilon']:g} at confidence {a['confidence']:.6g} -> {a['verdict'].upper()}"
                         + (f" (pair: {a['pair']})" if a.get("pair") else ""))
        elif a is None or exact is None:
            lines.append("  (c) privacy audit: skipped" + (f" ({a['skipped']})" if a and a.get("skipped") else ""))
        wb = self.white_box
        if wb is not None:
            wa, wn = wb["audit"], wb["noise"]
            lines.append(f"  (d) white-box audit of the transcript: ε_lb = {wa['epsilon_lower']:.4g} vs claimed "
                         f"ε = {wa['claim_epsilon']:g} (p = {wa['p_value']:.3g}); measured σ = {wn['measured']:.4g} "
                         f"vs σ = {wn['sigma']:.4g} (χ² p = {wn['p_value']:.3g} vs level {wn['level']:.3g}) -> "
                         f"{wb['verdict'].upper()}")
        lines += [f"  seed {self.seed} (entropy {self.seed_entropy}); {self.wall_seconds:.1f} s"] + [
            f"  note: {n}" for n in self.notes]
        return "\n".join(lines)
