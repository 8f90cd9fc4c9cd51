"""The shape of a ``dpsco verify`` record, its power figures, non-finite numbers, and the published JSON Schema.

Every record of ``results.json`` (schema version :data:`SCHEMA_VERSION`) has the same top level, whether the entry
runs the common phases or its own suite of tasks (``CatalogueEntry.suite``):

* identity: ``name``, ``title``, ``paper``, ``algorithm``, ``privacy_theorem``, ``utility_theorem``, ``options``,
  ``seed_spawn_key`` and ``kind`` ("common" | "suite");
* ``claim``: the privacy claim the audits test (the suite entries' claim is the release's own claim where an audit
  carries it — ``release_claim``: a white-box audit tests the (ε, δ) a ρ-zCDP claim implies — else their richest
  audit claim, the one that states its notion; null with ``claim_not_stated`` when the entry has no audit);
* ``audits``: {key: audit record}; common entries' keys are ``audit`` (black-box) and ``white_box_audit``;
* ``checks``: {key: check record}; common entries' keys are ``empirical``, ``population``, ``rate``, the entry's
  own sweeps (``tight_rate``, ``rate_d``, ...) and ``stability``;
* ``planted_bugs``: {key: check record} of the in-campaign checks that a planted bug is caught (a suite check whose
  statement names a planted bug: "planted" or the word "bug"); only what the campaign ran.  When it is empty (every common entry: the common
  phases run no planted bug), ``planted_bugs_not_run`` says so and names the bugs that make the entry's checks
  fail, which tests outside the campaign run (``dpsco.verification.mutants.catches``; ``dpsco verify
  --list-checks``) — never shown as caught;
* ``power``: {key: power figure} for every key of ``audits``, ``checks`` and ``planted_bugs``
  (:func:`check_power`, :func:`audit_power`);
* ``provenance``: how the record was computed (seconds per phase, parameters, gradient evaluations counted against
  the paper's formula, the suite's description and its tasks' raw records).

An item that did not run is a record ``{"verdict": "skipped" | "not applicable", "reason": ...}`` under its key.

JSON has no ∞ or NaN: a non-finite number is stored as ``{"value": null, "reason": "+infinity" | "-infinity" |
"nan"}`` (:func:`encode_nonfinite`; :func:`decode_nonfinite` turns it back into a float).  The JSON Schema of the
file is ``results.schema.json`` beside this module (:func:`validate_results`).  Files written before this shape
(records with ``suite_checks`` or top-level ``empirical``, non-finite numbers as the strings "inf"/"nan") are
read by :func:`upgrade_results`; anything else is refused with a message naming the problem.
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
from functools import lru_cache
from typing import Any, Iterable, Mapping

from scipy.special import ndtri

__all__ = ["SCHEMA_PATH", "SCHEMA_VERSION", "audit_power", "check_power", "decode_nonfinite", "encode_nonfinite",
           "iter_items", "load_schema", "record_power", "shape_record", "upgrade_results", "validate_results"]

SCHEMA_VERSION = 2
SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results.schema.json")

_REASONS = {"inf": "+infinity", "-inf": "-infinity", "nan": "nan"}
_FLOATS = {"+infinity": math.inf, "-infinity": -math.inf, "nan": math.nan}
IDENTITY = ("name", "title", "paper", "algorithm", "privacy_theorem", "utility_theorem", "options", "seed_spawn_key")
COMMON_AUDITS = ("audit", "white_box_audit")
#: record keys of an old-shape record saying why an item did not run, and the item they stand for
_SKIP_KEYS = {"audit_not_run": ("audits", "audit", "skipped"),
              "population_not_applicable": ("checks", "population", "not applicable"),
              "rate_not_applicable": ("checks", "rate", "not applicable")}
SKIPPED = ("skipped", "not applicable")
GROUPS = ("audits", "checks", "planted_bugs")


# ---------------------------------------------------------------------------------------------------------
# non-finite numbers
# ---------------------------------------------------------------------------------------------------------
def encode_nonfinite(value: Any) -> Any:
    """``value`` (JSON-ready: dicts, lists, numbers, strings) with every non-finite float, and every string "inf",
    "-inf", "nan" (how ``reference.privacy.to_jsonable`` spells them), replaced by ``{"value": None, "reason":
    "+infinity" | "-infinity" | "nan"}``."""
    if isinstance(value, dict):
        return {k: encode_nonfinite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [encode_nonfinite(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return {"value": None, "reason": "nan" if math.isnan(value) else ("+infinity" if value > 0 else "-infinity")}
    if isinstance(value, str) and value in _REASONS:
        return {"value": None, "reason": _REASONS[value]}
    return value


def _is_nonfinite(value: Any) -> bool:
    return (isinstance(value, dict) and len(value) == 2 and value.get("value", 0) is None
            and value.get("reason") in _FLOATS)


def decode_nonfinite(value: Any) -> Any:
    """Inverse of :func:`encode_nonfinite`: every ``{"value": null, "reason": ...}`` back to its float (a copy)."""
    if _is_nonfinite(value):
        return _FLOATS[value["reason"]]
    if isinstance(value, dict):
        return {k: decode_nonfinite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_nonfinite(v) for v in value]
    return value


def _num(x: Any) -> float | None:
    if isinstance(x, bool) or x is None:
        return None
    if isinstance(x, (int, float)):
        return float(x)
    if isinstance(x, str) and x in _REASONS:
        return float(x)
    if _is_nonfinite(x):
        return _FLOATS[x["reason"]]
    return None


def _finite(x: Any) -> float | None:
    v = _num(x)
    return v if v is not None and math.isfinite(v) else None


# ---------------------------------------------------------------------------------------------------------
# power figures
# ---------------------------------------------------------------------------------------------------------
def check_power(c: Mapping[str, Any]) -> dict[str, Any]:
    """What check record ``c`` could have detected at the runs it used.

    * a Hoeffding bound check (``lcb``, ``detectable_excess``): ``minimum_detectable_excess`` — the smallest
      E[X] − bound it fails on with probability ≥ 1 − α (``checks.stats.mean_bound_check``);
    * a rate check (``bounds`` on a grid): ``minimum_detectable_excess`` over the bound at a grid point
      (``detectable_bound_excess``), and ``slope_interval`` (the fitted log–log slope's confidence interval) beside
      the theorem's exponent; a "tight" rate check also ``minimum_detectable_slope_excess``;
    * a stability check (``per_probe_mean``): ``minimum_detectable_excess`` of the mean loss difference;
    * a measured-noise check (chi-squared, ``residuals``): ``miss_probability_sigma_over_sqrt2`` — the exact
      probability that it passes a planted σ/√2 (``checks.noise.miss_probability``);
    * an exact computation (``method`` "exact"): ``kind`` "exact" — no sampling error to have power against;
    * a suite check that records its own figure under ``power`` (``dpsco.verification.checks.power_figures``:
      Hoeffding lower/upper bounds, exact binomial rates, the exact χ² law of a Gaussian μ, the measured-Laplace
      scale test, exact statements): that figure as it is (its ``reaches_claim`` says whether a violation by a
      factor of two is detected with probability ≥ 1/2);
    * otherwise ``kind`` "not recorded": the task records no power figure.

    ``informative`` is False for a check labelled "uninformative" (``checks.power``; its reason is copied), True
    for a check with a power figure that is not so labelled, None otherwise."""
    verdict = c.get("verdict")
    out: dict[str, Any]
    if verdict in SKIPPED:
        return {"kind": "not run", "reason": c.get("reason")}
    if isinstance(c.get("power"), Mapping) and c["power"].get("kind"):  # a suite task's own figure
        out = dict(c["power"])
    elif isinstance(c.get("bounds"), list) and "slope" in c:
        out = {"kind": "rate", "minimum_detectable_excess": c.get("detectable_bound_excess"),
               "slope_interval": [c.get("ci_low"), c.get("ci_high")], "slope_interval_level": c.get("ci_level"),
               "exponent": c.get("exponent"), "runs_per_point": c.get("replicates")}
        if c.get("kind") == "tight":
            out["minimum_detectable_slope_excess"] = c.get("detectable_excess")
    elif "slope" in c and "ci_low" in c:  # a sweep without per-point bounds
        out = {"kind": "rate", "minimum_detectable_excess": None,
               "slope_interval": [c.get("ci_low"), c.get("ci_high")], "slope_interval_level": c.get("ci_level"),
               "exponent": c.get("exponent"), "runs_per_point": c.get("replicates"),
               "minimum_detectable_slope_excess": c.get("detectable_excess")}
    elif "per_probe_mean" in c:
        out = {"kind": "stability", "minimum_detectable_excess": c.get("detectable_excess"),
               "bound": c.get("bound"), "runs": c.get("replicates"), "pairs": c.get("pairs")}
    elif "lcb" in c and "detectable_excess" in c:
        out = {"kind": "bound", "minimum_detectable_excess": c.get("detectable_excess"), "bound": c.get("bound"),
               "runs": c.get("replicates")}
    elif "residuals" in c and "chi-squared" in str(c.get("method", "")):
        from dpsco.verification.checks.noise import miss_probability

        k, alpha = c.get("residuals"), _finite(c.get("alpha"))
        miss = None
        if isinstance(k, int) and k > 0 and alpha is not None and 0 < alpha < 1:
            miss = miss_probability(k, 1.0 / math.sqrt(2.0), alpha)
        out = {"kind": "measured noise", "miss_probability_sigma_over_sqrt2": miss, "residuals": k}
    elif str(c.get("method", "")).strip().lower() == "exact":
        out = {"kind": "exact", "note": "computed exactly (no sampling error): any violation in the cases it "
                                        "evaluates fails it"}
    else:
        out = {"kind": "not recorded", "note": "the task records no power figure for this check"}
        if verdict != "uninformative":
            out["informative"] = None
            return out
    out["informative"] = verdict != "uninformative"
    if verdict == "uninformative":
        out["reason"] = c.get("uninformative")
    return out


def _claim_in_notion(claim: Mapping[str, Any]) -> tuple[str, float | None]:
    if _finite(claim.get("epsilon")) is not None:
        return "epsilon", _finite(claim.get("epsilon"))
    if _finite(claim.get("rho")) is not None:
        return "rho", _finite(claim.get("rho"))
    if _finite(claim.get("mu")) is not None:
        return "mu", _finite(claim.get("mu"))
    return "epsilon", None


def _runs_per_side(a: Mapping[str, Any]) -> tuple[int, int] | None:
    d = a.get("details") if isinstance(a.get("details"), Mapping) else {}
    c = a.get("counts") if isinstance(a.get("counts"), Mapping) else {}
    for n_p, n_q in ((c.get("n_numerator"), c.get("n_denominator")), (d.get("n_test"), d.get("n_test")),
                     (a.get("n_test"), a.get("n_test"))):
        if isinstance(n_p, int) and isinstance(n_q, int) and n_p > 0 and n_q > 0:
            return n_p, n_q
    return None


def _ceilings(n_p: int, n_q: int, delta: float, confidence: float) -> tuple[float, float]:
    """(ε, μ) lower bounds of a threshold audit whose event held in all n_p numerator runs and none of the n_q
    denominator runs: Clopper–Pearson at zero/full counts is closed form, P_lo = (a/2)^(1/n_p),
    Q_hi = 1 − (a/2)^(1/n_q) with a = 1 − confidence; ε = log((P_lo − δ)/Q_hi) (0 if negative), μ = Φ⁻¹(P_lo) −
    Φ⁻¹(Q_hi).  No run of these sizes can report more."""
    half = (1.0 - confidence) / 2.0
    p_lo = half ** (1.0 / n_p)
    q_hi = -math.expm1(math.log(half) / n_q)
    eps = math.log((p_lo - delta) / q_hi) if p_lo > delta else 0.0
    mu = float(ndtri(p_lo) - ndtri(q_hi))
    return max(eps, 0.0), max(mu, 0.0)


def audit_power(a: Mapping[str, Any]) -> dict[str, Any]:
    """What audit record ``a`` could have detected at its runs, in its claim's notion (ε, else ρ, else μ).

    * ``ceiling``: the largest lower bound these runs can report — every numerator run in the event and no
      denominator run (:func:`_ceilings`; ρ = μ²/2); ``can_refute`` is ceiling > claim.  Below the claim, the audit
      could not have refuted even a blatantly non-private mechanism;
    * ``minimum_detectable``: the audit's own planning figure where it records one — the smallest true ε (μ) of a
      Gaussian mechanism whose expected lower bound at these runs exceeds the claim (expected counts, best event:
      ``auditing.power.minimum_detectable_epsilon``), else null.
    """
    if a.get("verdict") in SKIPPED:
        return {"kind": "not run", "reason": a.get("reason")}
    claim = a.get("claim") if isinstance(a.get("claim"), Mapping) else {}
    parameter, claimed = _claim_in_notion(claim)
    if claimed is None and _finite(a.get("mu_claim")) is not None:
        parameter, claimed = "mu", _finite(a.get("mu_claim"))
    lower = _finite(a.get({"epsilon": "epsilon_lower", "rho": "rho_lower", "mu": "mu_lower"}[parameter]))
    if lower is None and parameter == "rho" and _finite(a.get("mu_lower")) is not None:
        lower = _finite(a.get("mu_lower")) ** 2 / 2.0  # type: ignore[operator]
    md: float | None = None
    md_note = None
    mdd = a.get("minimum_detectable")
    if parameter == "epsilon" and _num(a.get("minimum_detectable_epsilon")) is not None:
        md = _num(a.get("minimum_detectable_epsilon"))
        md_note = "smallest true ε of a Gaussian mechanism whose expected ε_lb at these runs exceeds the claim"
    elif isinstance(mdd, Mapping) and _num(mdd.get("value")) is not None:
        value = _num(mdd.get("value"))
        md = value if parameter == "mu" or mdd.get("parameter") != "mu" else _num(mdd.get("rho"))
        md_note = str(mdd.get("statement") or "")
    out: dict[str, Any] = {"kind": "audit", "parameter": parameter, "claim": claimed, "lower_bound": lower,
                           "minimum_detectable": md, "minimum_detectable_note": md_note}
    runs = _runs_per_side(a)
    conf = _finite(a.get("confidence"))
    delta = _finite(claim.get("delta")) or 0.0
    if runs is None or conf is None or not 0.0 < conf < 1.0:
        out.update(ceiling=None, can_refute=None, runs_per_side=None,
                   ceiling_note="the record does not state its test runs per side")
        return out
    eps_c, mu_c = _ceilings(runs[0], runs[1], delta, conf)
    ceiling = {"epsilon": eps_c, "mu": mu_c, "rho": mu_c * mu_c / 2.0}[parameter]
    out.update(ceiling=ceiling, runs_per_side=list(runs),
               can_refute=None if claimed is None else bool(ceiling > claimed),
               ceiling_note="the largest lower bound these runs can report (every numerator run in the event, "
                            "none of the denominator's)")
    return out


def record_power(rec: Mapping[str, Any]) -> dict[str, Any]:
    """{key: power figure} of every audit, check and planted-bug check of a (new-shape) record."""
    out: dict[str, Any] = {}
    for key, a in (rec.get("audits") or {}).items():
        out[key] = audit_power(decode_nonfinite(a))
    for group in ("checks", "planted_bugs"):
        for key, c in (rec.get(group) or {}).items():
            out[key] = check_power(decode_nonfinite(c))
    return out


# ---------------------------------------------------------------------------------------------------------
# the record shape
# ---------------------------------------------------------------------------------------------------------
def _is_planted(check: Mapping[str, Any]) -> bool:
    """Whether a suite check runs a planted bug in the campaign: its statement names one ("planted", or "bug" as
    a word, e.g. muabg23's "proximal_point_schedule": "the data-dependent-F_0 bug's T differs")."""
    statement = str(check.get("statement", "")).lower()
    return "planted" in statement or re.search(r"\bbug(?:'s|s)?\b", statement) is not None


def _suite_claim(audits: Mapping[str, Any]) -> dict[str, Any] | None:
    """The richest claim of a suite's audits: the release's own claim (``release_claim``: a white-box audit
    tests the (ε, δ) a ρ-zCDP claim implies and carries the claim itself) before the audits' tested claims,
    those that state their notion first, then the one with the most fields."""
    released = [a["release_claim"] for a in audits.values()
                if isinstance(a, Mapping) and isinstance(a.get("release_claim"), Mapping)]
    if released:
        return dict(max(released, key=len))
    claims = [a["claim"] for a in audits.values() if isinstance(a, Mapping) and isinstance(a.get("claim"), Mapping)]
    with_notion = [c for c in claims if c.get("notion")]
    pool = with_notion or claims
    return dict(max(pool, key=len)) if pool else None


def _planted_not_run(name: Any, suite: bool, keys: list[str]) -> str:
    """Why a record's ``planted_bugs`` is empty: the campaign ran no planted bug for this entry (the common phases
    never run one; a suite runs those its checks name), with where the bugs that make its checks fail are run
    instead (``mutants.catches``: how many of its checks name one)."""
    where = ("none of this suite's checks is a planted-bug check (a check whose statement names a planted bug)"
             if suite else "the campaign runs no planted bug for this entry (the common phases run the reference "
                           "implementation only)")
    try:
        from dpsco.verification.mutants.catches import catch_for

        rows = [catch_for(str(name), k) for k in keys]
        named = sorted({r.bug for r in rows if r is not None and r.bug})
    except Exception:  # noqa: BLE001 - the registry is a pointer here, never a reason to lose a record
        named = []
    if named:
        where += (f"; {len(named)} planted bug(s) that make its checks fail ({', '.join(named[:4])}"
                  f"{', ...' if len(named) > 4 else ''}) are run by the tests listed by "
                  f"`dpsco verify --list-checks {name}`, not by this campaign, so none is shown as caught here")
    return where


def shape_record(rec: Mapping[str, Any], check_keys: Iterable[str]) -> dict[str, Any]:
    """The record of one entry in the shape of :data:`SCHEMA_VERSION` from its assembled record (the phases'
    merged output, or a record of an older results.json).  The check and audit dicts are the same objects (not
    copies), so verdicts set before or after shaping are shared."""
    out: dict[str, Any] = {k: rec[k] for k in IDENTITY if k in rec}
    suite = "suite" in rec
    out["kind"] = "suite" if suite else "common"
    audits: dict[str, Any]
    checks: dict[str, Any]
    planted: dict[str, Any] = {}
    if suite:
        audits = {k: v for k, v in (rec.get("suite_audits") or {}).items()}
        checks = {}
        for k, v in (rec.get("suite_checks") or {}).items():
            (planted if isinstance(v, Mapping) and _is_planted(v) else checks)[k] = v
        claim = _suite_claim(audits)
    else:
        audits = {k: rec[k] for k in COMMON_AUDITS if isinstance(rec.get(k), dict)}
        checks = {k: rec[k] for k in check_keys if isinstance(rec.get(k), dict)}
        claim = rec.get("claim")
    for old_key, (group, key, verdict) in _SKIP_KEYS.items():
        if rec.get(old_key) and key not in (audits if group == "audits" else checks):
            (audits if group == "audits" else checks)[key] = {"verdict": verdict, "reason": str(rec[old_key])}
    out["claim"] = claim
    if claim is None:
        out["claim_not_stated"] = ("no audit task: the entry's claims are stated by its checks" if suite
                                   else "the record states no claim")
    out["audits"], out["checks"], out["planted_bugs"] = audits, checks, planted
    if not planted:
        out["planted_bugs_not_run"] = _planted_not_run(out.get("name"), suite, [*audits, *checks])
    prov: dict[str, Any] = {}
    for key in ("phase_seconds", "wall_seconds", "parameters", "gradient_evaluations"):
        if key in rec:
            prov[key] = rec[key]
    if suite:
        prov["suite"] = rec.get("suite")
        prov["task_records"] = rec.get("suite_records") or {}
    out["provenance"] = prov
    out["power"] = record_power(out)
    return out


def iter_items(rec: Mapping[str, Any], groups: tuple[str, ...] = GROUPS) -> Iterable[tuple[str, str, Any]]:
    """(group, key, item) of every audit, check and planted-bug check of a new-shape record."""
    for group in groups:
        items = rec.get(group)
        if isinstance(items, Mapping):
            for key, item in items.items():
                yield group, key, item


def _is_old_record(rec: Any) -> bool:
    return isinstance(rec, Mapping) and "checks" not in rec and (
        "suite" in rec or "empirical" in rec or "claim" in rec or "suite_checks" in rec)


def upgrade_results(results: Any, check_keys: Iterable[str]) -> tuple[dict[str, Any], bool]:
    """(results in the current shape, whether it was upgraded).  A results.json of the current shape is returned
    as it is; one written before it (records with top-level ``empirical`` / ``suite_checks``, no
    ``schema_version``) is reshaped record by record (:func:`shape_record`) and its non-finite strings encoded.
    ValueError for a newer schema version or records of neither shape."""
    if not isinstance(results, Mapping):
        raise ValueError("the top level: expected an object")
    version = results.get("schema_version")
    if version == SCHEMA_VERSION:
        return dict(results), False
    if version is not None:
        raise ValueError(f"schema_version {version!r} is not one this dpsco reads (it reads {SCHEMA_VERSION} and the "
                         "unversioned shape before it); regenerate it with this version's dpsco verify")
    records = results.get("records")
    if not isinstance(records, list) or not all(_is_old_record(r) for r in records):
        raise ValueError("records: neither the current record shape (schema_version 2) nor the shape before it "
                         "(each record with its claim and checks at the top level, or suite_checks)")
    keys = tuple(check_keys)
    up = copy.deepcopy(dict(results))
    up["records"] = [shape_record(r, keys) for r in up["records"]]
    up["schema_version"] = SCHEMA_VERSION
    up = encode_nonfinite(up)
    up["records"] = [{**r, "power": encode_nonfinite(r["power"])} for r in up["records"]]
    return up, True


# ---------------------------------------------------------------------------------------------------------
# the schema
# ---------------------------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def load_schema() -> dict[str, Any]:
    """The published JSON Schema of results.json (``results.schema.json``, draft 2020-12)."""
    with open(SCHEMA_PATH, encoding="utf-8") as fh:
        return json.load(fh)


def validate_results(results: Any) -> None:
    """Raise ValueError naming the first place where ``results`` (a parsed results.json of the current shape)
    breaks the published schema, e.g. ``records[0].checks.empirical.mean: 'x' is not valid under any of the given
    schemas``.  Needs ``jsonschema``."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(load_schema())
    errors = sorted(validator.iter_errors(results), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    if errors:
        e = jsonschema.exceptions.best_match(errors)
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path).lstrip(".")
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ValueError(f"{path or 'the top level'}: {e.message[:300]}{more}")
