"""The results schema (issue 28): one record shape for every entry, ∞ and NaN never as strings, a published JSON
Schema that every results.json written by ``dpsco verify`` validates against, files of the older shape read
(upgraded) or refused with a clear message, and the power figures against hand derivations.

One real quick campaign of one entry (``--only lr21.alg2``, about 20 s); its verdicts are not asserted, so no
assertion has a false-failure probability.  The whole quick campaign's results.json is validated in
tests/test_verify.py::test_verify_quick_end_to_end.
"""

from __future__ import annotations

import copy
import json
import math
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import beta, norm

from dpsco.verification.auditing.clopper_pearson import epsilon_lower_bound
from dpsco.verification.campaign import results_record as rr
from dpsco.verification.campaign.rederive import rederive_campaign
from dpsco.verification.campaign.verify import CHECK_KEYS
from dpsco.verification.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
ONLY = "lr21.alg2"
TOP = {"claim", "audits", "checks", "planted_bugs", "power", "provenance"}


@pytest.fixture(scope="module")
def campaign(quick_campaign_copy: Path) -> Path:
    # `verify --quick --only lr21.alg2 --seed 20191208`, run once per test run; our own copy (tests/conftest.py)
    return quick_campaign_copy


def test_the_schema_is_published_in_the_package() -> None:
    schema = rr.load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert Path(rr.SCHEMA_PATH).parent == ROOT / "verification" / "campaign"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    data = project["tool"]["setuptools"]["package-data"]["dpsco.verification.campaign"]
    assert "results.schema.json" in data and "templates/*.html.j2" in data
    deps = " ".join(project["project"]["dependencies"])
    assert "jsonschema" in deps and "jinja2" in deps
    assert set(schema["$defs"]["record"]["required"]) >= TOP


def test_a_quick_campaign_writes_a_valid_results_json(campaign: Path) -> None:
    text = (campaign / "results.json").read_text()
    results = json.loads(text)
    rr.validate_results(results)
    jsonschema.validate(results, rr.load_schema())  # the published file itself, without our wrapper
    assert results["schema_version"] == rr.SCHEMA_VERSION
    for rec in results["records"]:
        assert TOP <= set(rec) and rec["kind"] == "common"
        assert set(rec["power"]) == set(rec["audits"]) | set(rec["checks"]) | set(rec["planted_bugs"])
    # JSON has no ∞ or NaN: never written as a number token nor as a string
    assert not any(tok in text for tok in ('"inf"', '"-inf"', '"nan"', "Infinity", "NaN"))
    assert rederive_campaign(results, CHECK_KEYS)[0] == results["verdict"]


def test_every_audit_and_check_has_its_power(campaign: Path) -> None:
    rec = json.loads((campaign / "results.json").read_text())["records"][0]
    audit = rec["power"]["audit"]
    assert audit["kind"] == "audit" and audit["parameter"] == "epsilon"
    assert audit["minimum_detectable"] == rec["audits"]["audit"]["minimum_detectable_epsilon"]
    n = rec["audits"]["audit"]["details"]["n_test"]
    delta = rec["claim"]["delta"]
    assert audit["runs_per_side"] == [n, n]
    # the ceiling is the library's own Clopper–Pearson bound at full / zero counts
    assert audit["ceiling"] == pytest.approx(float(epsilon_lower_bound(n, n, 0, n, delta, 0.95)), rel=1e-9)
    assert audit["can_refute"] == (audit["ceiling"] > 1.0)
    emp = rec["power"]["empirical"]
    assert emp["kind"] == "bound" and emp["minimum_detectable_excess"] == rec["checks"]["empirical"]["detectable_excess"]
    rate = rec["power"]["rate"]
    assert rate["slope_interval"] == [rec["checks"]["rate"]["ci_low"], rec["checks"]["rate"]["ci_high"]]
    assert rec["power"]["stability"]["kind"] == "stability"


def test_audit_ceiling_matches_a_hand_derivation() -> None:
    # Clopper–Pearson at k = n: the lower bound solves P(Bin(n, p) ≥ n) = p^n = a/2, so p = (a/2)^(1/n); at k = 0
    # the upper bound is 1 − (a/2)^(1/n).  Cross-checked against the beta quantiles (an independent oracle).
    n, conf, delta = 1000, 0.95, 1e-6
    p_lo, q_hi = 0.025 ** (1 / n), 1 - 0.025 ** (1 / n)
    assert p_lo == pytest.approx(beta.ppf(0.025, n, 1), rel=1e-12)
    assert q_hi == pytest.approx(beta.ppf(0.975, 1, n), rel=1e-9)
    eps, mu = rr._ceilings(n, n, delta, conf)
    assert eps == pytest.approx(math.log((p_lo - delta) / q_hi), rel=1e-12)
    assert mu == pytest.approx(norm.ppf(p_lo) - norm.ppf(q_hi), rel=1e-9)
    p = rr.audit_power({"verdict": "not refuted", "confidence": conf, "n_test": n, "rho_lower": 0.1,
                        "claim": {"notion": "zCDP", "rho": 0.5}, "p_value": 1.0})
    assert p["parameter"] == "rho" and p["ceiling"] == pytest.approx(mu * mu / 2, rel=1e-12)
    assert p["lower_bound"] == 0.1 and p["claim"] == 0.5 and p["can_refute"] is True
    tiny = rr.audit_power({"verdict": "not refuted", "confidence": conf, "n_test": 2, "epsilon_lower": 0.0,
                           "claim": {"epsilon": 5.0, "delta": 0.0}, "p_value": 1.0})
    # two runs per side: P_lo = √0.025 = 0.158, Q_hi = 0.842, ε ≤ log(0.188) < 0 → 0: it cannot refute anything
    assert tiny["ceiling"] == 0.0 and tiny["can_refute"] is False
    unknown = rr.audit_power({"verdict": "not refuted", "confidence": conf, "claim": {"epsilon": 1.0}})
    assert unknown["ceiling"] is None and unknown["can_refute"] is None


@given(st.recursive(st.none() | st.booleans() | st.floats(allow_nan=True, allow_infinity=True) | st.integers()
                    | st.text(max_size=5),
                    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=4), kids, max_size=3),
                    max_leaves=12))
def test_nonfinite_numbers_round_trip_as_null_with_a_reason(value: Any) -> None:
    encoded = rr.encode_nonfinite(value)
    text = json.dumps(encoded, allow_nan=False)  # strict JSON: raises on any ∞ or NaN left
    decoded = rr.decode_nonfinite(json.loads(text))

    def same(a: Any, b: Any) -> bool:
        if isinstance(a, float) and math.isnan(a):
            return isinstance(b, float) and math.isnan(b)
        if isinstance(a, str) and a in ("inf", "-inf", "nan"):  # the old string spelling becomes the float
            return same(float(a), b)
        if isinstance(a, dict):
            return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        if isinstance(a, list):
            return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        return a == b and type(a) is type(b)

    assert same(value, decoded)


def test_nonfinite_spelling() -> None:
    assert rr.encode_nonfinite([math.inf, -math.inf, math.nan, 1.0]) == [
        {"value": None, "reason": "+infinity"}, {"value": None, "reason": "-infinity"},
        {"value": None, "reason": "nan"}, 1.0]


def _old_shape(results: dict[str, Any]) -> dict[str, Any]:
    """The campaign's results as the shape before schema version 2 wrote them (for the upgrade tests)."""
    old = copy.deepcopy(results)
    old.pop("schema_version")
    old.pop("audits_that_cannot_refute")
    recs = []
    for rec in old["records"]:
        r = {k: v for k, v in rec.items() if k not in ("kind", "audits", "checks", "planted_bugs", "power",
                                                        "provenance")}
        for key, a in rec["audits"].items():
            if a.get("verdict") == "skipped":
                r["audit_not_run"] = a["reason"]
            else:
                r[key] = a
        for key, c in rec["checks"].items():
            if c.get("verdict") == "not applicable":
                r[f"{key}_not_applicable"] = c["reason"]
            else:
                r[key] = c
        r.update(rec["provenance"])
        r["empirical"]["mean"] = math.nan  # the old files spelt non-finite numbers as strings
        recs.append(json.loads(json.dumps(r, default=str).replace("NaN", '"nan"')))
    old["records"] = recs
    return old


def test_old_files_are_upgraded_and_others_refused(campaign: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    results = json.loads((campaign / "results.json").read_text())
    old = _old_shape(results)
    assert old["records"][0]["empirical"]["mean"] == "nan"
    up, changed = rr.upgrade_results(old, CHECK_KEYS)
    assert changed and up["records"][0]["checks"]["empirical"]["mean"] == {"value": None, "reason": "nan"}
    rr.validate_results({**up, "audits_that_cannot_refute": 0})
    src = tmp_path / "old.json"
    old_ok = copy.deepcopy(_old_shape(results))  # with its real mean: --from re-derives every verdict
    old_ok["records"][0]["empirical"]["mean"] = results["records"][0]["checks"]["empirical"]["mean"]
    src.write_text(json.dumps(old_ok))
    assert main(["verify", "--from", str(src), "--out", str(tmp_path / "r"), "--format", "md"]) in (0, 1)
    assert "the record shape before schema version 2" in capsys.readouterr().err
    rewritten = json.loads((tmp_path / "r" / "results.json").read_text())
    assert rewritten["schema_version"] == rr.SCHEMA_VERSION and TOP <= set(rewritten["records"][0])
    for bad, msg in ((dict(results, schema_version=99), "schema_version 99"),
                     ({"records": [{"name": "x"}]}, "neither the current record shape")):
        with pytest.raises(ValueError, match=msg):
            rr.upgrade_results(bad, CHECK_KEYS)


def test_a_tampered_power_figure_is_refused(campaign: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    results = json.loads((campaign / "results.json").read_text())
    results["records"][0]["power"]["audit"]["ceiling"] = 99.0
    src = tmp_path / "tampered.json"
    src.write_text(json.dumps(results))
    assert main(["verify", "--from", str(src), "--out", str(tmp_path / "r")]) == 2
    assert "power ['audit'] differs" in capsys.readouterr().err


def test_schema_errors_name_the_place(campaign: Path) -> None:
    results = json.loads((campaign / "results.json").read_text())
    for edit, msg in (
            (lambda r: r["records"][0]["checks"]["empirical"].pop("mean"), "records[0].checks.empirical: 'mean'"),
            (lambda r: r["records"][0].pop("power"), "records[0]: 'power' is a required property"),
            (lambda r: r["records"][0]["audits"]["audit"].__setitem__("epsilon_lower", "inf"),
             "records[0].audits.audit.epsilon_lower"),
            (lambda r: r.__setitem__("verdict", "maybe"), "verdict: 'maybe' is not one of")):
        bad = copy.deepcopy(results)
        edit(bad)
        with pytest.raises(ValueError, match=msg.replace("[", r"\[").replace("]", r"\]")):
            rr.validate_results(bad)
