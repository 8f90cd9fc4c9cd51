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
    assert max(map(len, out)) <= 100  # issue 28: terminal output fits 100 columns (wrapped, not truncated)
    firsts = [line for line in out[1:-1] if not line.startswith(" ")]  # continuation lines start with blanks
    assert [line.split()[0] for line in firsts] == [e.name for e in CATALOGUE]
    assert out[-1].startswith(f"{len(CATALOGUE)} entries, {len(CATALOGUE) - 2} comparable")
    by_name = {line.split()[0]: line for line in firsts}
    assert " yes " in by_name["accd22.algorithm_1"] and " no " in by_name["alt24.onepass_sgd"]
    assert "Bassily et al. 2019" in by_name["bftt19.nsgd"] and "Lowy & Razaviyayn 2021" in by_name["lr21.alg1"]
    lo, hi = out[0].index("algorithm"), out[0].index("comparable")
    cells: dict[str, list[str]] = {}
    for line in out[1:-1]:  # the algorithm column of each entry's lines, joined
        name = line.split()[0] if not line.startswith(" ") else name
        cells.setdefault(name, []).append(line[lo:hi].strip())
    for e in CATALOGUE:  # every algorithm is shown in full, only wrapped (words kept whole)
        assert " ".join(cells[e.name]).startswith(e.algorithm_ref), (e.name, cells[e.name])
    assert "not comparable: Algorithm 5 is non-private" in " ".join(cells["alt24.onepass_sgd"])


def test_list_wide_is_one_line_per_entry_in_full(capsys):
    assert main(["list", "--wide"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:4] == ["entry", "paper", "algorithm", "comparable"]
    assert len(out) == len(CATALOGUE) + 2
    for line, e in zip(out[1:-1], CATALOGUE):
        assert line.split()[0] == e.name and e.paper in line and e.algorithm_ref in line
    assert max(map(len, out)) > 100  # the full table is wider: that is what --wide is for


def test_short_paper():
    from dpsco.verification.cli.list import short_paper

    assert short_paper("Bassily, Feldman, Talwar, Thakurta (NeurIPS 2019)") == "Bassily et al. 2019"
    assert short_paper("Lowy & Razaviyayn (AAAI 2021)") == "Lowy & Razaviyayn 2021"
    assert short_paper("Asi, Liu & Tian (2024)") == "Asi et al. 2024"
    assert short_paper("Menart et al. (2023)") == "Menart et al. 2023"
