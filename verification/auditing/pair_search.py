"""Searching for the worst neighbouring pair of a black-box mechanism, and auditing it at one confidence.

Privacy bugs often leak only on particular pairs: a sensitivity computed from one endpoint of an asymmetric
bound leaks only when the replaced record moves between the two endpoints.  :func:`search_pairs` proposes
candidate neighbouring pairs from a given dataset and the declared data domain (ball
:class:`dpsco.reference.problem.DataBounds` or box :class:`dpsco.verification.auditing.neighbours.BoxBounds`):
small sub-datasets of its records, one record replaced by extreme points of the domain (box corners, ball
sphere points, the zero row), pairs of extreme points, label extremes and sign flips; each checked to be a
neighbour under the claim's relation and inside the domain.  :func:`pair_search_audit` ranks the candidates
on pilot runs and tests the best one (or the best few, Bonferroni) on fresh runs: the pilot only chooses, so
the verdict holds at the stated confidence for the whole search
(docs/derivations.md#soundness-of-a-pair-search-audit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any, Mapping, Sequence

import numpy as np

from dpsco.reference.privacy import PrivacyClaim, to_jsonable
from dpsco.reference.problem import DataBounds
from dpsco.reference.validation import check_data, check_rng
from dpsco.verification.auditing.audit import audit
from dpsco.verification.auditing.clopper_pearson import check_confidence
from dpsco.verification.auditing.events import select_event
from dpsco.verification.auditing.inputs import as_claim, check_dataset, check_neighbouring_pair
from dpsco.verification.auditing.neighbours import (BoxBounds, Domain, extreme_points, in_domain,
                                                    n_deterministic_extreme_points, replace_one_extreme)
from dpsco.verification.auditing.neighbour_pairs import NeighbourPair
from dpsco.verification.auditing.results import AuditResult, AuditResultBase
from dpsco.verification.auditing.samples import draw, executor_for
from dpsco.verification.auditing.statistics import DEFAULT_STATISTIC, parse_statistic, select_statistic_and_event

__all__ = ["PairSearchResult", "pair_search_audit", "parse_interval_bounds", "search_pairs"]


def parse_interval_bounds(text: Any, name: str) -> tuple[float | tuple[float, ...], float | tuple[float, ...]]:
    """(lo, hi) from "LO,HI" (one interval for every coordinate) or "LO:HI,LO:HI,..." (one per coordinate).

    E.g. ``"0,1"`` → (0.0, 1.0); ``"0:1,-1:2"`` → ((0.0, -1.0), (1.0, 2.0)).  For the CLI's ``--x-bounds`` /
    ``--y-bounds``; ``name`` names the option in errors.

    Raises
    ------
    ValueError
        Anything else: not two numbers, non-finite values, lo > hi, an empty per-coordinate entry.
    """
    s = str(text).strip()
    try:
        if ":" in s:
            los, his = [], []
            for part in s.split(","):
                a, b = part.split(":")
                los.append(float(a))
                his.append(float(b))
            lo_v: float | tuple[float, ...] = tuple(los)
            hi_v: float | tuple[float, ...] = tuple(his)
        else:
            a, b = s.split(",")
            lo_v, hi_v = float(a), float(b)
    except ValueError:
        raise ValueError(f"{name} must be 'LO,HI' or 'LO:HI,LO:HI,...' (one interval per coordinate), "
                         f"got {text!r}") from None
    lo_a, hi_a = np.atleast_1d(lo_v), np.atleast_1d(hi_v)
    if not (np.all(np.isfinite(lo_a)) and np.all(np.isfinite(hi_a))):
        raise ValueError(f"{name} must be finite, got {text!r}")
    if np.any(lo_a > hi_a):
        raise ValueError(f"{name}: LO must be <= HI, got {text!r}")
    return lo_v, hi_v


# ---------------------------------------------------------------------------------------------------------
# candidates
# ---------------------------------------------------------------------------------------------------------
def _extreme_records(Xa: np.ndarray, ya: np.ndarray, i: int, b: Domain, max_features: int) -> list[tuple[np.ndarray, float, str]]:
    """Extreme records (x, y, name): feature extremes (box corners / ball points, the zero row, the record's
    own antipode for a ball) × label extremes."""
    d = Xa.shape[1]
    k = min(max_features, n_deterministic_extreme_points(b, d))
    feats: list[tuple[np.ndarray, str]] = []
    for j, x in enumerate(extreme_points(b, d, k)):
        feats.append((x, f"{'corner' if isinstance(b, BoxBounds) else 'extreme point'} {j}"))
    if isinstance(b, DataBounds) and np.linalg.norm(Xa[i]) > 0:
        Xe, _ = replace_one_extreme(Xa, ya, b, index=i)
        feats.append((Xe[i], "antipode of the record"))
    zero = np.zeros(d)
    if in_domain(zero[None, :], np.array([b.y_lo if isinstance(b, BoxBounds) else 0.0]), b):
        feats.append((zero, "zero row"))
    if isinstance(b, BoxBounds):
        labels = [b.y_lo, b.y_hi] if b.y_hi > b.y_lo else [b.y_lo]
    else:
        labels = [-b.y_max, b.y_max] if b.y_max > 0 else [0.0]
    out = []
    for x, xn in feats:
        for v in labels:
            out.append((x, float(v), f"{xn} (x = {np.array2string(x, precision=4)}), y = {v:g}"))
    return out


def _opposite(b: Domain, x: np.ndarray) -> np.ndarray:
    if isinstance(b, BoxBounds):
        lo, hi = b.limits(x.size)
        return lo + hi - x
    return -x


def _key(ds: dict[str, np.ndarray], nb: dict[str, np.ndarray]) -> bytes:
    """The unordered pair of datasets as bytes (−0.0 read as 0.0), to drop duplicates."""
    def canon(v: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(v + 0.0 if v.dtype.kind == "f" else v)

    parts = []
    for data in (ds, nb):
        parts.append(b"|".join(k.encode() + str(v.shape).encode() + canon(v).tobytes()
                               for k, v in sorted(data.items())))
    return b"#".join(sorted(parts))


def search_pairs(
    dataset: Mapping[str, Any],
    bounds: Domain,
    *,
    relation: str = "replace-one",
    subset_sizes: Sequence[int] = (1,),
    include_full: bool = True,
    index: int = -1,
    max_features: int = 16,
    max_candidates: int = 64,
) -> list[NeighbourPair]:
    """Candidate neighbouring pairs for a black-box audit, from ``dataset`` and the declared domain.

    **Base datasets.** The full dataset (``include_full``; record ``index`` is the one replaced) and, for each
    k in ``subset_sizes`` with k < n, its first k records (record k − 1 replaced).  A privacy claim holds for
    every dataset in the domain, so a sub-dataset is as valid a place to audit as the full one, and small ones
    let one record weigh more in data-dependent mechanisms.

    **Extreme records** E: feature extremes — the first ``max_features`` of
    :func:`dpsco.verification.auditing.neighbours.extreme_points` (box: corners, all 2^d when d <= 4 at the
    default 16; ball: signed axes and sign vectors on the sphere), the antipode of the replaced record (ball),
    the zero row when it lies in the domain — each with each extreme label (box: y_lo, y_hi; ball: ±y_max).

    **Pairs** (replace-one), for each base B with replaced record i, in this priority order over all bases:

    1. extreme to extreme, B[i ← e] vs B[i ← e′]: all pairs of distinct e, e′ ∈ E when |E| <= 8; otherwise
       e against its opposite (box: x ↦ x_lo + x_hi − x; ball: −x) with the label flipped, kept, and the
       label alone flipped;
    2. record to extreme, B vs B[i ← e] for e ∈ E;
    3. sign flips of record i, (−x, y), (x, −y), (−x, −y), when they stay in the domain.

    For ``relation="add/remove"``: B ∪ {e} vs B for e ∈ E, and B vs B without record i (when B has >= 2
    records).  Duplicates (the same two datasets, in either order) are dropped, and the list is cut at
    ``max_candidates`` in the order above.  Every candidate is checked with
    :func:`dpsco.verification.auditing.inputs.check_neighbouring_pair` under ``relation`` and with
    :func:`dpsco.verification.auditing.neighbours.in_domain` (exactly, no tolerance, for generated records).

    Parameters
    ----------
    dataset : dict with "X" (n, d) and "y" (n,), inside ``bounds`` (relative slack 1e-12)
        Other arrays: those whose axis 0 has length n are treated as per-record and cut with the subsets
        (with ``relation="add/remove"`` such arrays are refused: no value could be invented for an added
        record); the rest are passed unchanged.
    bounds : DataBounds or BoxBounds
    relation : "replace-one" | "add/remove"
    subset_sizes : sequence of int >= 1
    include_full : bool
    index : int
        Record of the full dataset to replace (default the last).
    max_features, max_candidates : int >= 1

    Returns
    -------
    list of NeighbourPair (dataset, neighbour, label, relation), at least one.

    Raises
    ------
    ValueError, TypeError
        Bad dataset (no X or y, shapes, NaN, outside the domain), relation, sizes, or no candidate at all.
    """
    if not isinstance(dataset, Mapping) or "X" not in dataset or "y" not in dataset:
        raise TypeError("dataset must be a dict holding arrays 'X' (n, d) and 'y' (n,)")
    if not isinstance(bounds, (DataBounds, BoxBounds)):
        raise TypeError(f"bounds must be a DataBounds (ball) or a BoxBounds (box), got {type(bounds).__name__}")
    if relation not in ("replace-one", "add/remove"):
        raise ValueError(f"relation must be 'replace-one' or 'add/remove', got {relation!r}")
    Xa, ya = check_data(dataset["X"], dataset["y"])
    n, d = Xa.shape
    if not in_domain(Xa, ya, bounds, rtol=1e-12):
        raise ValueError("dataset X, y lie outside the declared domain bounds")
    for name, v in (("max_features", max_features), ("max_candidates", max_candidates)):
        if isinstance(v, bool) or not isinstance(v, Integral) or int(v) < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
    if isinstance(index, bool) or not isinstance(index, Integral) or not (-n <= int(index) < n):
        raise ValueError(f"index must be an integer in [-{n}, {n}), got {index!r}")
    sizes = []
    for k in subset_sizes:
        if isinstance(k, bool) or not isinstance(k, Integral) or int(k) < 1:
            raise ValueError(f"subset_sizes must hold integers >= 1, got {k!r}")
        if int(k) < n and int(k) not in sizes:
            sizes.append(int(k))
    extra = {k: np.asarray(v) for k, v in dataset.items() if k not in ("X", "y")}
    per_record = [k for k, v in extra.items() if v.ndim >= 1 and v.shape[0] == n]
    if relation == "add/remove" and per_record:
        raise ValueError(f"add/remove candidates cannot extend the per-record arrays {per_record} of dataset")

    bases: list[tuple[np.ndarray, np.ndarray, dict[str, np.ndarray], int, str]] = []
    if include_full:
        bases.append((Xa, ya, extra, int(index) % n, f"full dataset (n = {n})"))
    for k in sizes:
        ex = {key: (v[:k] if key in per_record else v) for key, v in extra.items()}
        bases.append((Xa[:k], ya[:k], ex, k - 1, f"first {k} record{'s' if k > 1 else ''}"))
    if not bases:
        raise ValueError("no base dataset: include_full is False and no subset size is below n")

    def put(Xb: np.ndarray, yb: np.ndarray, ex: dict[str, np.ndarray], i: int, x: np.ndarray, v: float) -> dict:
        X2, y2 = Xb.copy(), yb.copy()
        X2[i], y2[i] = x, v
        return {"X": X2, "y": y2, **ex}

    tiers: list[list[NeighbourPair]] = [[], [], []]
    for Xb, yb, ex, i, bname in bases:
        here = f"{bname}, record {i}"
        base = {"X": Xb.copy(), "y": yb.copy(), **ex}
        E = _extreme_records(Xb, yb, i, bounds, int(max_features))
        if relation == "add/remove":
            for x, v, en in E:
                big = {"X": np.vstack([Xb, x[None, :]]), "y": np.concatenate([yb, [v]]), **ex}
                tiers[1].append(NeighbourPair(big, base, f"{bname} + added {en}", relation))
            if Xb.shape[0] >= 2:
                small = {"X": np.delete(Xb, i, axis=0), "y": np.delete(yb, i), **ex}
                tiers[2].append(NeighbourPair(base, small, f"{bname} - removed record {i}", relation))
            continue
        if len(E) <= 8:
            pairs_e = [(a, c) for a in range(len(E)) for c in range(a + 1, len(E))]
        else:
            pairs_e = []
            for a, (x, v, _) in enumerate(E):
                xo = _opposite(bounds, x)
                for c, (x2, v2, _) in enumerate(E):
                    if c != a and ((np.array_equal(x2, xo) and v2 != v) or (np.array_equal(x2, xo) and v2 == v)
                                   or (np.array_equal(x2, x) and v2 != v)):
                        pairs_e.append((a, c))
        for a, c in pairs_e:
            (x1, v1, n1), (x2, v2, n2) = E[a], E[c]
            tiers[0].append(NeighbourPair(put(Xb, yb, ex, i, x1, v1), put(Xb, yb, ex, i, x2, v2),
                                          f"{here}: {n1}  vs  {n2}", relation))
        for x, v, en in E:
            tiers[1].append(NeighbourPair(base, put(Xb, yb, ex, i, x, v), f"{here}: the record vs {en}", relation))
        for fx, fy, fname in ((-1.0, 1.0, "x -> -x"), (1.0, -1.0, "y -> -y"), (-1.0, -1.0, "(x, y) -> (-x, -y)")):
            x, v = fx * Xb[i], fy * float(yb[i])
            if in_domain(x[None, :], np.array([v]), bounds):
                tiers[2].append(NeighbourPair(base, put(Xb, yb, ex, i, x, v), f"{here}: sign flip {fname}",
                                              relation))
    out: list[NeighbourPair] = []
    seen: set[bytes] = set()
    for tier in tiers:
        for p in tier:
            key = _key(p.dataset, p.neighbour)
            if key in seen:
                continue
            same = all(np.array_equal(p.dataset[k], p.neighbour[k]) for k in p.dataset) and \
                all(p.dataset[k].shape == p.neighbour[k].shape for k in p.dataset)
            if same:
                continue
            seen.add(key)
            check_neighbouring_pair(check_dataset(p.dataset, "dataset"), check_dataset(p.neighbour, "neighbour"),
                                    relation)
            for side in (p.dataset, p.neighbour):
                if not in_domain(side["X"], side["y"], bounds, rtol=1e-12):  # pragma: no cover - by construction
                    raise RuntimeError(f"candidate {p.label!r} left the declared domain")
            out.append(p)
            if len(out) >= int(max_candidates):
                return out
    if not out:
        raise ValueError("search_pairs found no candidate pair (the domain is a single point?)")
    return out


# ---------------------------------------------------------------------------------------------------------
# the audit
# ---------------------------------------------------------------------------------------------------------
@dataclass
class PairSearchResult(AuditResultBase):
    """Outcome of :func:`pair_search_audit`.

    Attributes
    ----------
    epsilon_lower : float
        Overall ε_lb: with probability >= ``confidence`` it is <= the mechanism's ε (at the claim's δ) on
        every neighbouring pair of the domain (docs/derivations.md#soundness-of-a-pair-search-audit).
    verdict : "refuted" | "not refuted"
    confidence : float
    chosen : str
        Label of the candidate whose test gave ``epsilon_lower``.
    chosen_pair : NeighbourPair
    candidates : list of dict
        Every candidate: label, relation, pilot score (the selection criterion of its best event on the
        pilot runs, :func:`dpsco.verification.auditing.events.select_event`), that event, its rank.
    tested : list of AuditResult
        The fresh-run audits of the ``n_final`` best candidates (each at the Bonferroni level).
    runs : dict
        Runs of the mechanism: ``pilot`` (2·n_pilot per candidate), ``test`` (2·n_test per tested candidate),
        ``total`` (the sampler-consistency check of a batched ``sample`` adds its own, recorded in each test).
    seed_entropy : int or None
        Recorded (or read from ``rng``); also ``seed``.  ``verdict``, ``epsilon_lower``, ``confidence``,
        ``seed``, ``summary()`` and ``to_dict()`` as for every audit result
        (:class:`~dpsco.verification.auditing.results.AuditResultBase`).
    """

    epsilon_lower: float
    verdict: str
    confidence: float
    chosen: str
    chosen_pair: NeighbourPair
    candidates: list[dict[str, Any]]
    tested: list[AuditResult]
    runs: dict[str, int]
    claim: PrivacyClaim
    multiplicity: str
    seed_entropy: int | None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def best(self) -> AuditResult:
        """The test audit of the chosen candidate."""
        return self.tested[int(self.details["best_tested"])]

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable({
            "epsilon_lower": self.epsilon_lower, "verdict": self.verdict, "confidence": self.confidence,
            "method": "pair-search", "chosen": self.chosen, "candidates": self.candidates,
            "n_candidates": len(self.candidates), "tested": [r.to_dict() for r in self.tested], "runs": self.runs,
            "claim": self.claim.to_dict(), "multiplicity": self.multiplicity, "seed_entropy": self.seed_entropy,
            "seed": self.seed, "details": self.details,
        })

    def summary(self) -> str:
        lines = [
            f"pair-search audit over {len(self.candidates)} candidate pairs: verdict {self.verdict.upper()}, "
            f"overall ε lower bound = {self.epsilon_lower:.4f} at confidence {self.confidence:g} "
            f"(claim ε = {self.claim.epsilon:g}, δ = {self.claim.delta:g})",
            f"  chosen pair: {self.chosen}",
            f"  multiplicity: {self.multiplicity}",
            f"  runs: {self.runs['pilot']} pilot + {self.runs['test']} test = {self.runs['total']}",
        ]
        top = sorted(self.candidates, key=lambda c: c["rank"])[:5]
        lines += ["  best pilot scores:"] + [f"    {c['pilot_score']:.4g}  {c['label']}" for c in top]
        lines += ["  " + ln for ln in self.best.summary().splitlines()]
        return "\n".join(lines)


def _check_runs(v: Any, name: str, minimum: int) -> int:
    if isinstance(v, bool) or not isinstance(v, Integral) or int(v) < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {v!r}")
    return int(v)


def pair_search_audit(
    mechanism: Any,
    dataset: Mapping[str, Any],
    bounds: Domain,
    claim: Any,
    n_pilot: int,
    n_test: int,
    rng: np.random.Generator,
    *,
    confidence: float = 0.95,
    n_final: int = 1,
    statistic: Any = DEFAULT_STATISTIC,
    estimator: str = "threshold",
    candidates: Sequence[NeighbourPair] | None = None,
    n_thresholds: int = 600,
    epsilon_true: float | None = None,
    seed_entropy: int | None = None,
    sample_check_runs: int | None = None,
    workers: Any = None,
    **search: Any,
) -> PairSearchResult:
    """Search the neighbouring pairs of ``dataset`` in the declared domain and audit the worst, at one confidence.

    1. **Candidates**: ``candidates`` if given, else :func:`search_pairs` (``dataset``, ``bounds``,
       ``relation`` = the claim's neighbouring relation, ``**search`` passed on: subset_sizes,
       include_full, index, max_features, max_candidates).
    2. **Pilot**: ``n_pilot`` runs per side on every candidate; on them the best event (threshold, tail,
       direction) of ``statistic`` by the estimator's criterion and its score
       (:func:`dpsco.verification.auditing.events.select_event`, the Clopper–Pearson ε bound at a stricter
       level: a pilot estimate that prefers events whose counts survive).  Candidates are ranked by it.
    3. **Test**: the ``n_final`` best candidates, each with its pilot event fixed, are audited on ``n_test``
       *fresh* runs per side (:func:`dpsco.verification.auditing.audit.audit` with ``event=``, which also
       checks a batched ``sample``) at confidence 1 − (1 − ``confidence``)/``n_final``; ε_lb is the largest,
       and the claim is refuted if any test refutes it.

    Validity (docs/derivations.md#soundness-of-a-pair-search-audit): the pilot runs are independent of the
    test runs, so given the pilot each tested (pair, event) is fixed and the single-event guarantee applies;
    the union bound over ``n_final`` tests gives P(ε_lb > ε) <= 1 − confidence whenever the mechanism is
    (ε, δ)-DP.  The pilot only chooses; its size, the number of candidates and the search never enter the
    confidence.

    Parameters
    ----------
    mechanism : callable ``f(data, rng) -> array``, optionally with ``sample(data, n, rng) -> (n, k)``
    dataset : dict with "X" (n, d), "y" (n,) (see :func:`search_pairs`)
    bounds : DataBounds or BoxBounds
    claim : PrivacyClaim or (epsilon, delta)
    n_pilot : int >= 2
        Pilot runs per side per candidate.
    n_test : int >= 2
        Fresh runs per side per tested candidate.
    rng : numpy.random.Generator
    confidence : float in (0, 1)
    n_final : int >= 1
        How many of the best candidates to test (Bonferroni).
    statistic : as for :func:`dpsco.verification.auditing.audit.audit`
    estimator : "threshold" | "hockey-stick"
    candidates : sequence of NeighbourPair, optional
        Use these instead of :func:`search_pairs` (each must be a neighbouring pair under the claim's relation).
    n_thresholds, epsilon_true, seed_entropy, sample_check_runs : as for ``audit``
    workers : int >= 1, Executor or None, optional
        Where the single runs of the pilots and of the tests run, as for ``audit``: one executor, started once,
        for every candidate (the rows, hence the result, are the same whatever runs them).

    Returns
    -------
    PairSearchResult

    Raises
    ------
    ValueError, TypeError
        Bad claim, sizes, confidence, estimator, dataset or bounds; non-neighbouring candidates; mechanism
        output problems (as ``audit``).
    """
    the_claim = as_claim(claim)
    check_rng(rng)
    conf = check_confidence(confidence)
    npil = _check_runs(n_pilot, "n_pilot", 2)
    ntest = _check_runs(n_test, "n_test", 2)
    nfin = _check_runs(n_final, "n_final", 1)
    if estimator not in ("threshold", "hockey-stick"):
        raise ValueError(f"estimator must be 'threshold' or 'hockey-stick', got {estimator!r}")
    relation = the_claim.neighbouring
    if candidates is None:
        cands = search_pairs(dataset, bounds, relation=relation, **search)
    else:
        if search:
            raise TypeError(f"search options {sorted(search)} apply only without explicit candidates")
        cands = list(candidates)
        if not cands or not all(isinstance(c, NeighbourPair) for c in cands):
            raise TypeError("candidates must be a non-empty sequence of NeighbourPair")
    if seed_entropy is None:
        seq = getattr(rng.bit_generator, "seed_seq", None)
        if isinstance(seq, np.random.SeedSequence) and isinstance(seq.entropy, (int, np.integer)):
            seed_entropy = int(seq.entropy)
    ex, owned = executor_for(workers)
    try:
        return _pair_search(mechanism, cands, bounds, the_claim, npil, ntest, nfin, rng, conf, statistic, estimator,
                            n_thresholds, epsilon_true, seed_entropy, sample_check_runs, relation, ex)
    finally:
        if owned:
            ex.close()


def _pair_search(mechanism: Any, cands: list[NeighbourPair], bounds: Domain, the_claim: Any, npil: int, ntest: int,
                 nfin: int, rng: np.random.Generator, conf: float, statistic: Any, estimator: str, n_thresholds: int,
                 epsilon_true: float | None, seed_entropy: int | None, sample_check_runs: int | None, relation: Any,
                 ex: Any) -> PairSearchResult:
    """:func:`pair_search_audit` after its argument checks, with its executor ``ex`` started."""
    half_alpha = (1.0 - conf) / 2.0
    kind, arg = parse_statistic(statistic)
    members: list[dict[str, Any]] = []
    chosen_info = []
    for c in cands:
        ds = check_dataset(c.dataset, "dataset")
        nb = check_dataset(c.neighbour, "neighbour")
        check_neighbouring_pair(ds, nb, relation)
        pa, _ = draw(mechanism, ds, npil, rng, "dataset", workers=ex)
        pb, _ = draw(mechanism, nb, npil, rng, "neighbour", workers=ex)
        fn, desc, _info, ev, score, _ = select_statistic_and_event(kind, arg, pa, pb, pa.shape[1], the_claim.delta,
                                                                   half_alpha, n_thresholds, estimator,
                                                                   the_claim.epsilon)
        members.append({"label": c.label, "relation": c.relation, "statistic": desc,
                        "pilot_score": float(score), "event": ev.describe()})
        chosen_info.append((fn, desc, ev))
    order = sorted(range(len(cands)), key=lambda j: (-members[j]["pilot_score"] if math.isfinite(
        members[j]["pilot_score"]) else math.inf, j))
    for r, j in enumerate(order):
        members[j]["rank"] = r
    nfin = min(nfin, len(cands))
    test_conf = 1.0 - (1.0 - conf) / nfin
    tested: list[AuditResult] = []
    for j in order[:nfin]:
        fn, desc, ev = chosen_info[j]

        def fixed_statistic(X: np.ndarray, _fn: Any = fn) -> np.ndarray:
            return _fn(X)

        fixed_statistic.__name__ = f"pilot-chosen {desc}"
        tested.append(audit(mechanism, cands[j].dataset, cands[j].neighbour, the_claim, ntest, rng,
                            confidence=test_conf, statistic=fixed_statistic, event=ev, estimator=estimator,
                            power_family=None, epsilon_true=epsilon_true, seed_entropy=seed_entropy,
                            sample_check_runs=sample_check_runs, workers=ex))
        members[j]["tested"] = True
    b = int(np.argmax([r.epsilon_lower for r in tested]))
    refuted = any(r.refuted for r in tested)
    jb = order[b]
    runs = {"pilot": 2 * npil * len(cands), "test": 2 * ntest * nfin}
    runs["total"] = runs["pilot"] + runs["test"]
    multiplicity = (f"selection on independent pilot runs ({npil} per side per candidate) over {len(cands)} "
                    f"candidate pairs x thresholds x both directions; the {nfin} best tested on {ntest} fresh "
                    f"runs per side, each at confidence {test_conf:.6g} (Bonferroni over the tests)")
    return PairSearchResult(
        epsilon_lower=float(tested[b].epsilon_lower), verdict="refuted" if refuted else "not refuted",
        confidence=conf, chosen=cands[jb].label, chosen_pair=cands[jb], candidates=members, tested=tested,
        runs=runs, claim=the_claim, multiplicity=multiplicity, seed_entropy=seed_entropy,
        details={"best_tested": b, "n_pilot": npil, "n_test": ntest, "n_final": nfin, "test_confidence": test_conf,
                 "bounds": bounds.to_dict(), "estimator": estimator},
    )
