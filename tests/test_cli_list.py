"""``dpsco list``: every catalogue entry with its paper, algorithm and whether ``dpsco compare`` accepts it
(deterministic)."""

from __future__ import annotations

import json

from dpsco.verification.cli.main import COMMANDS, main
from dpsco.verification.papers.catalogue import CATALOGUE

NOT_PRIVATE = {"alt24.onepass_sgd", "alt24.highprob_sco"}   # Algorithm 5 and Appendix A: claim notion "none"


def test_list_is_a_command():
    assert COMMANDS["list"][0] == "dpsco.verification.cli.list"


def test_list_json_has_every_entry_and_every_private_one_is_comparable(capsys):
    assert main(["list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == [e.name for e in CATALOGUE]
    for r, e in zip(rows, CATALOGUE):
        assert r["paper"] == e.paper and r["algorithm"] == e.algorithm_ref
        assert r["comparable"] == (e.name not in NOT_PRIVATE), r
        assert r["calling"] in ("logistic", "harness")
        assert bool(r["reason"]) == (not r["comparable"])


def test_list_table(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:4] == ["entry", "paper", "algorithm", "comparable"]
    assert len(out) == len(CATALOGUE) + 2
    assert out[-1].startswith(f"{len(CATALOGUE)} entries, {len(CATALOGUE) - 2} comparable")
    by_name = {line.split()[0]: line for line in out[1:-1]}
    assert " yes " in by_name["accd22.algorithm_1"] and " no " in by_name["alt24.onepass_sgd"]
