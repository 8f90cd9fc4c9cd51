"""One result type for audits (issue 26): every audit route's result derives from ``AuditResultBase``, and
``audit()`` is a thin dispatcher to one function per estimator route.

Deterministic throughout (no false-failure budget to spend): the tests read the structure of results, not their
values, and the dispatcher test compares two computations from the same seed bit for bit.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

import dpsco.reference.bftt19 as o
from dpsco.reference import Ball, DataBounds, ERMProblem, LinearLoss
from dpsco.reference.privacy import PrivacyClaim, to_jsonable
from dpsco.verification.auditing import audit_routes
from dpsco.verification.auditing.audit import audit, gdp_audit, hockey_stick_audit, threshold_audit
from dpsco.verification.auditing.curve_audit import CurveAuditResult, audit_curve
from dpsco.verification.auditing.curves import CurveClaim
from dpsco.verification.auditing.events import Event
from dpsco.verification.auditing.family import FamilyAuditResult, audit_family
from dpsco.verification.auditing.neighbours import BoxBounds
from dpsco.verification.auditing.one_run import OneRunResult, one_run_audit
from dpsco.verification.auditing.pair_search import PairSearchResult, pair_search_audit
from dpsco.verification.auditing.results import AuditResult, AuditResultBase
from dpsco.verification.auditing.sequential import SequentialAuditResult, sequential_audit
from dpsco.verification.auditing.white_box import OneSidedCanary, WhiteBoxAuditResult, white_box_audit
from _mechanisms import GaussianSum, GaussianSum1D, LaplaceSum

LAP = ({"x": np.array([0.0, 0.0, 1.0])}, {"x": np.array([0.0, 0.0, 0.0])})
GAU = ({"x": np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])}, {"x": np.zeros((2, 3))})
RESULT_CLASSES = (AuditResult, CurveAuditResult, FamilyAuditResult, OneRunResult, PairSearchResult,
                  SequentialAuditResult, WhiteBoxAuditResult)


def _clipped_mean(data: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """mean(clip(X[:, 0], 0, 1)) + Lap(1/(n·1)): replace-one (1, 0)-DP on the box [0, 1]."""
    x = np.clip(np.asarray(data["X"], dtype=np.float64)[:, 0], 0.0, 1.0)
    return np.array([x.mean() + rng.laplace(0.0, 1.0 / x.size)])


def _white_box() -> WhiteBoxAuditResult:
    problem = ERMProblem(LinearLoss(), Ball(10.0), DataBounds(1.0, 1.0))
    canary = OneSidedCanary(16, (np.array([1.0]), 0.0), (-np.array([1.0]), 0.0))
    ds, _ = canary.datasets()
    claim = o.noisy_sgd(ds["X"], ds["y"], problem, 1.0, 1 / 256, np.random.default_rng(0)).claim

    def run(data: dict[str, np.ndarray], R: int, rng: np.random.Generator) -> Any:
        return o.noisy_sgd(data["X"], data["y"], problem, 1.0, 1 / 256, rng, replicates=R, white_box=True).white_box

    return white_box_audit(run, canary, claim, 200, np.random.default_rng(1), pilot_runs=64, model_draws=20_000,
                           epsilon_true=False)


def _make(name: str) -> AuditResultBase:
    rng = np.random.default_rng(1234)
    if name == "audit":
        return audit(LaplaceSum(1.0), *LAP, (0.5, 0.0), 400, rng, sample_check_runs=5)
    if name == "audit-gdp":
        return audit(GaussianSum(1.0), *GAU, (1.0, 1e-5), 400, rng, estimator="gdp", sample_check_runs=5)
    if name == "curve-gdp":   # a whole-curve audit: no ε at one δ, epsilon_lower is None
        return audit_curve(GaussianSum1D(1.0), *LAP, CurveClaim.gdp(1.0), 400, rng, sample_check_runs=5)
    if name == "curve-approx":
        return audit_curve(GaussianSum1D(1.0), *LAP, CurveClaim.approx(1.0, 1e-5), 400, rng, sample_check_runs=5)
    if name == "family":
        return audit_family(LaplaceSum(1.0), [LAP, (LAP[1], LAP[0], "swapped")], (0.5, 0.0), 400, rng,
                            n_pilot=100, sample_check_runs=5)
    if name == "one-run":
        return one_run_audit(lambda mask, r: mask + r.normal(0.0, 1.0, mask.size), 200, rng, claim_epsilon=1.0)
    if name == "one-run-no-claim":
        return one_run_audit(lambda mask, r: mask + r.normal(0.0, 1.0, mask.size), 200, rng)
    if name == "pair-search":
        data = {"X": np.array([[0.2, 0.5], [0.4, 0.1], [0.9, 0.3], [0.5, 0.5]]), "y": np.array([0.0, 1.0, 0.5, 0.2])}
        box = BoxBounds((0.0, 0.0), (1.0, 1.0), 0.0, 1.0)
        return pair_search_audit(_clipped_mean, data, box, (1.0, 0.0), 50, 200, rng, max_candidates=4)
    if name == "sequential":
        return sequential_audit(LaplaceSum(1.0), *LAP, (0.5, 0.0), 2000, rng, batch=400, sample_check_runs=5)
    if name == "white-box":
        return _white_box()
    raise AssertionError(name)


NAMES = ("audit", "audit-gdp", "curve-gdp", "curve-approx", "family", "one-run", "one-run-no-claim", "pair-search",
         "sequential", "white-box")


@pytest.fixture(scope="module")
def results() -> dict[str, AuditResultBase]:
    return {name: _make(name) for name in NAMES}


def test_every_result_class_derives_from_the_base_and_is_exercised(results: dict[str, AuditResultBase]) -> None:
    for cls in RESULT_CLASSES:
        assert issubclass(cls, AuditResultBase), cls.__name__
    assert {type(r) for r in results.values()} == set(RESULT_CLASSES)
    # no audit result class of the package escapes this test
    assert set(AuditResultBase.__subclasses__()) == set(RESULT_CLASSES)


@pytest.mark.parametrize("name", NAMES)
def test_common_fields(results: dict[str, AuditResultBase], name: str) -> None:
    r = results[name]
    allowed = {"refuted", "not refuted"} | ({"inconclusive", "no claim"} if isinstance(r, OneRunResult) else set())
    assert r.verdict in allowed
    assert r.refuted == (r.verdict == "refuted")
    assert r.epsilon_lower is None or (isinstance(r.epsilon_lower, float) and r.epsilon_lower >= 0.0)
    assert isinstance(r.confidence, float) and 0.0 < r.confidence < 1.0
    assert r.seed is None or isinstance(r.seed, int)
    assert r.seed == r.seed_entropy
    assert set(r.common()) == set(AuditResultBase.COMMON_FIELDS) == {"verdict", "epsilon_lower", "confidence", "seed"}


@pytest.mark.parametrize("name", NAMES)
def test_to_dict_is_strict_json_with_the_common_keys(results: dict[str, AuditResultBase], name: str) -> None:
    r = results[name]
    d = r.to_dict()
    text = json.dumps(to_jsonable(d), allow_nan=False)
    json.dumps(d, allow_nan=False)  # already JSON-ready without help
    back = json.loads(text)
    for k, v in to_jsonable(r.common()).items():
        assert back[k] == v, k


@pytest.mark.parametrize("name", NAMES)
def test_summary_names_the_verdict(results: dict[str, AuditResultBase], name: str) -> None:
    r = results[name]
    s = r.summary()
    assert isinstance(s, str) and s.strip()
    assert r.verdict in s.lower()


def test_seed_records_the_callers_seed(results: dict[str, AuditResultBase]) -> None:
    # default_rng(1234): the entropy of its SeedSequence is 1234, recorded by every route that reads the rng
    for name in ("audit", "curve-gdp", "family", "one-run", "pair-search", "sequential"):
        assert results[name].seed == 1234, name
    # a seed the caller passes wins
    r = audit(LaplaceSum(1.0), *LAP, (0.5, 0.0), 40, np.random.default_rng(5), seed_entropy=99, sample_check_runs=0,
              power_family=None)
    assert r.seed == 99 and r.to_dict()["seed"] == 99
    # the white-box audit records the SeedSequence it spawns its streams from
    assert isinstance(results["white-box"].seed, int)


def test_curve_audit_of_a_whole_curve_has_no_epsilon_lower(results: dict[str, AuditResultBase]) -> None:
    assert results["curve-gdp"].epsilon_lower is None
    assert results["curve-approx"].epsilon_lower is not None


# ------------------------------------------------------------------------------ the dispatcher and its routes
def _strip_timing(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _strip_timing(v) for k, v in x.items() if "seconds" not in k}
    if isinstance(x, list):
        return [_strip_timing(v) for v in x]
    return x


CASES = [
    # (mechanism, pair, claim, runs, seed, estimator, route function, options)
    (LaplaceSum(1.0), LAP, (0.5, 0.0), 2000, 3, "threshold", threshold_audit, {}),
    (GaussianSum(1.0), GAU, (1.0, 1e-5), 2000, 4, "threshold", threshold_audit, {"statistic": "norm"}),
    (LaplaceSum(1.0), LAP, (0.5, 0.0), 2000, 5, "threshold", threshold_audit,
     {"selection_score": lambda p, q: p - 2.0 * q, "power_family": None}),
    (GaussianSum(1.0), GAU, (1.0, 1e-5), 2000, 6, "gdp", gdp_audit,
     {"assume": "gaussian-tradeoff", "assume_reason": "Gaussian noise on a sum"}),
    (GaussianSum1D(0.5), LAP, PrivacyClaim(notion="GDP", epsilon=1.0, delta=1e-5, mu=1.0, neighbouring="replace-one",
                                           source="test"), 2000, 7, "gdp", gdp_audit, {}),
    (GaussianSum1D(1.0), LAP, (1.0, 1e-5), 2000, 8, "hockey-stick", hockey_stick_audit,
     {"event_from_claim": "gaussian"}),
    (LaplaceSum(1.0), LAP, (0.5, 0.0), 2000, 9, "hockey-stick", hockey_stick_audit,
     {"event": Event(0.5, "ge", "dataset")}),
]


@pytest.mark.parametrize("mech, pair, claim, runs, seed, estimator, route, options", CASES,
                         ids=[f"{c[5]}-{i}" for i, c in enumerate(CASES)])
def test_dispatcher_and_route_return_identical_records(mech: Any, pair: Any, claim: Any, runs: int, seed: int,
                                                       estimator: str, route: Any, options: dict[str, Any]) -> None:
    kw = {"sample_check_runs": 10, **options}
    via_audit = audit(mech, *pair, claim, runs, np.random.default_rng(seed), estimator=estimator, **kw)
    direct = route(mech, *pair, claim, runs, np.random.default_rng(seed), **kw)
    assert audit_routes.ROUTES[estimator] is route
    assert via_audit.estimator_kind == direct.estimator_kind == estimator
    a, b = _strip_timing(via_audit.to_dict()), _strip_timing(direct.to_dict())
    assert a == b
    assert via_audit.epsilon_lower == direct.epsilon_lower and via_audit.verdict == direct.verdict
    assert math.isfinite(via_audit.epsilon_lower)


def test_dispatcher_refuses_options_of_another_route() -> None:
    m, (d, nb) = LaplaceSum(1.0), LAP
    with pytest.raises(ValueError, match="estimator"):
        audit(m, d, nb, (0.5, 0.0), 100, np.random.default_rng(0), estimator="one-run")
    with pytest.raises(ValueError, match="assume"):
        audit(m, d, nb, (0.5, 0.0), 100, np.random.default_rng(0), assume="gaussian-tradeoff")
    with pytest.raises(ValueError, match="selection_score"):
        audit(m, d, nb, (0.5, 1e-5), 100, np.random.default_rng(0), estimator="gdp",
              selection_score=lambda p, q: p - q)
    with pytest.raises(TypeError, match="assume_reason"):
        audit(m, d, nb, (0.5, 0.0), 100, np.random.default_rng(0), assume_reason=3)
    # the route functions take only their own options
    with pytest.raises(TypeError):
        hockey_stick_audit(m, d, nb, (0.5, 0.0), 100, np.random.default_rng(0), assume="gaussian-tradeoff")
