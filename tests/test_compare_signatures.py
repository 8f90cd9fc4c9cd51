"""Compare signatures (dpsco.verification.papers.signatures) and ``dpsco compare`` on every private catalogue entry.

Deterministic checks: every entry that releases a private output declares a comparable signature; the declared
inputs are exactly what the entry's harness passes the reference function (recorded); ``--show-signature``
prints them; the lr21 candidates receive the entry's options by name; a claim below the paper's exact privacy
and a non-finite release refute a candidate with no randomness involved.  The stochastic checks (faithful = the
reference compared with itself) run at confidence 1 − 1e-7 each: false failure ≤ 1e-7 per comparison by
``compare``'s own guarantee (Bonferroni over its three families; the reference IS the null hypothesis).
"""

from __future__ import annotations

import argparse
import dataclasses
import json

import numpy as np
import pytest

from dpsco.reference.privacy import Release
from dpsco.verification.campaign.compare import DEFAULT_CONFIDENCE, compare
from dpsco.verification.campaign.compare_suite import claim_against_exact, recorded_call
from dpsco.verification.cli.compare import configure_parser
from dpsco.verification.cli.conventions import DEFAULT_CONFIDENCE as CLI_DEFAULT_CONFIDENCE
from dpsco.verification.papers.catalogue import CATALOGUE
from dpsco.verification.papers.harness import harness_registry
from dpsco.verification.papers.signatures import CompareSignature, compare_signature, signature_registry

SIGS = signature_registry()
HARNESSES = harness_registry()
HARNESS_ENTRIES = [n for n, s in SIGS.items() if s.calling == "harness"]
STRICT = 1.0 - 1e-7   # a faithful candidate is refuted with probability ≤ 1e-7 (compare's guarantee)


def _private(name: str) -> bool:
    if SIGS[name].calling == "logistic":   # every entry of Bassily et al. and Lowy & Razaviyayn claims (ε, δ)-DP
        return True                        # (their harness runs are slow: the contract tests cover them)
    h = HARNESSES[name]
    return h.run(h.records(np.random.default_rng(0)), np.random.default_rng(0)).claim.notion != "none"


def test_every_entry_declares_a_signature_and_every_private_one_is_comparable():
    assert set(SIGS) == {e.name for e in CATALOGUE}
    for e in CATALOGUE:
        sig = compare_signature(e.name)
        assert isinstance(sig, CompareSignature) and sig.entry == e.name
        assert sig.comparable == _private(e.name), (e.name, sig.reason)
        assert sig.calling == ("logistic" if e.suite is None else "harness")
    assert sum(s.comparable for s in SIGS.values()) == 34   # 36 entries, Algorithm 5 and Appendix A not private


@pytest.mark.parametrize("name", HARNESS_ENTRIES)
def test_declared_inputs_are_what_the_harness_passes(name):
    sig = SIGS[name]
    recorded = recorded_call(sig)
    assert sig.input_names == tuple(recorded), (sig.input_names, tuple(recorded))
    text = sig.to_text(recorded)
    for n in sig.input_names:
        assert f"    {n} " in text


def test_logistic_signatures_name_the_entries_options():
    for e in CATALOGUE:
        sig = SIGS[e.name]
        if sig.calling == "logistic":
            assert dict(sig.options) == dict(e.options)
            assert sig.input_names[:6] == ("X", "y", "problem", "epsilon", "delta", "rng")
            assert sig.input_names[6:] == tuple(e.options)
    assert dict(SIGS["lr21.alg1"].options) == {"mu": 0.1, "method": "agd"}


def test_one_default_confidence():
    assert DEFAULT_CONFIDENCE == CLI_DEFAULT_CONFIDENCE == 0.95


def test_lr21_candidates_receive_the_entry_options_by_name():
    """Before: the candidate received {} and could not run lr21.alg1's configuration (issue 27)."""
    from dpsco.reference.lr21 import algorithm_1

    seen: list[dict] = []

    def candidate(X, y, problem, epsilon, delta, rng, **options):
        seen.append(dict(options))
        return algorithm_1(X, y, problem, epsilon, delta, rng, **options)

    compare(candidate, "lr21.alg1", instance="synthetic", samples=4, run_audit=False, seed=3)
    assert seen and all(o == {"mu": 0.1, "method": "agd"} for o in seen)


def _understating(name: str):
    """The reference, whose Release claims half its ρ (zCDP) or an eighth of its ε (pure/approx DP): a false claim."""
    fn = SIGS[name].reference_function()

    def candidate(*args, **kwargs):
        rel = fn(*args, **kwargs)
        c = rel.claim
        low = (dataclasses.replace(c, rho=c.rho / 2, mu=None, event=None, event_neighbouring=None) if c.rho is not None
               else dataclasses.replace(c, epsilon=c.epsilon / 8, event=None, event_neighbouring=None))
        return dataclasses.replace(rel, claim=low)
    return candidate


@pytest.mark.parametrize("name", ["muabg23.adaptive_gd", "accd22.algorithm_4", "alt24.blap"])
def test_a_claim_below_the_exact_privacy_is_refuted_deterministically(name):
    res = compare(_understating(name), name, samples=8, run_audit=False, seed=5)
    assert "claim below the paper's exact privacy on the worst pair" in res.refuted_by, res.refuted_by
    checks = res.audit["claim_vs_exact"]["checks"]
    assert any(not c["holds"] for c in checks)


def test_a_non_finite_release_is_refuted():
    fn = SIGS["alt24.blap"].reference_function()

    def nan_sometimes(*args, **kwargs):
        rel = fn(*args, **kwargs)
        return dataclasses.replace(rel, output=np.full_like(np.asarray(rel.output, dtype=float), np.nan))

    res = compare(nan_sometimes, "alt24.blap", samples=8, run_audit=False, seed=1)
    assert any("non-finite" in r for r in res.refuted_by)


def test_claim_against_exact_lists_every_notion():
    h = HARNESSES["muabg23.noisy_gd"]
    exact, rel = h.exact_privacy()
    rec = claim_against_exact(rel.claim, exact)
    notions = {c["notion"].split(" at ")[0] for c in rec["checks"]}
    assert {"δ", "ρ", "μ", "event δ"} <= notions and rec["verdict"] == "not refuted"


FAST = ["alt24.blap", "alt24.svt", "alt24.onepass_dp_sgd_glm", "muabg23.adaptive_gd", "muabg23.kl_spider",
        "accd22.algorithm_4"]


@pytest.mark.parametrize("name", FAST)
def test_the_reference_compared_with_itself_is_not_refuted(name):
    # false failure ≤ 1 − STRICT = 1e-7 (compare's guarantee: the reference satisfies every null hypothesis)
    res = compare(SIGS[name].reference_function(), name, samples=40, audit_samples=40, seed=11, confidence=STRICT)
    assert not res.refuted, res.summary()
    assert res.audit["claim_vs_exact"]["verdict"] == "not refuted"


@pytest.mark.campaign
@pytest.mark.parametrize("name", [n for n in HARNESS_ENTRIES if SIGS[n].comparable])
def test_every_harness_entry_accepts_its_reference(name):
    # false failure ≤ 1e-7 per entry, as above
    res = compare(SIGS[name].reference_function(), name, samples=100, seed=13, confidence=STRICT)
    assert not res.refuted, res.summary()


def _cli(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="dpsco compare")
    configure_parser(p)
    args = p.parse_args(argv)
    return int(args.run(args))


@pytest.mark.parametrize("name", ["lr21.alg1", "muabg23.kl_spider", "accd22.algorithm_2", "alt24.localized_dp_sgd"])
def test_show_signature(name, capsys):
    assert _cli(["--against", name, "--show-signature"]) == 0
    out = capsys.readouterr().out
    for n in SIGS[name].input_names:
        assert n in out
    if name == "lr21.alg1":
        assert "mu=0.1" in out and "method='agd'" in out
    if name == "alt24.localized_dp_sgd":
        assert "⊥" in out and "halted" in out
    assert _cli(["--against", name, "--show-signature", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert [i["name"] for i in rec["inputs"]] == list(SIGS[name].input_names)


def test_cli_refuses_what_a_harness_entry_cannot_take(capsys, tmp_path):
    mod = tmp_path / "cand.py"
    mod.write_text("from dpsco.reference.alt24.algorithms_svt import bounded_laplace_mechanism as f\n")
    assert _cli([f"{mod}:f", "--against", "alt24.blap", "--epsilon", "1"]) == 2
    assert "--epsilon" in capsys.readouterr().err
    assert _cli([f"{mod}:f", "--against", "alt24.onepass_sgd"]) == 2
    assert "not comparable" in capsys.readouterr().err
    assert _cli([f"{mod}:f", "--against", "nope.entry"]) == 2
    assert _cli(["--against", "alt24.blap"]) == 2
    assert "MODULE:CALLABLE is required" in capsys.readouterr().err


def test_cli_compares_a_harness_entry_with_a_fresh_recorded_seed(capsys, tmp_path):
    mod = tmp_path / "cand2.py"
    mod.write_text("from dpsco.reference.alt24.algorithms_svt import bounded_laplace_mechanism as f\n")
    # false failure ≤ 1e-7 (the reference itself, confidence 1 − 1e-7)
    code = _cli([f"{mod}:f", "--against", "alt24.blap", "--samples", "30", "--confidence", str(STRICT), "--json"])
    rec = json.loads(capsys.readouterr().out)
    assert code == 0 and rec["verdict"] == "not refuted" and rec["instance"]["name"] == "harness"
    assert isinstance(rec["seed"], int) and rec["seed"] > 0


def test_release_type_is_checked():
    def not_a_release(*args, **kwargs):
        return {"output": 1}

    with pytest.raises(Exception, match="not a Release"):
        compare(not_a_release, "alt24.blap", samples=4, run_audit=False)
    assert Release  # imported for the candidates above


def test_docs_name_every_entry_and_its_options():
    """docs/compare.md's signature table names every entry, the candidate's inputs and the options by name."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "compare.md").read_text()
    for name, sig in SIGS.items():
        row = next((line for line in text.splitlines() if line.startswith(f"| `{name}` |")), None)
        assert row is not None, name
        for k, v in sig.options.items():
            assert f"`{k}={v!r}`" in row, (name, k)
        if sig.calling == "harness":
            assert all(f"`{n}`" in row for n in sig.input_names), name
