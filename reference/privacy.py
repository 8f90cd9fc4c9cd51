"""Privacy claims and releases.

A release carries its claim: every private output comes with a machine-readable statement of
*what* is guaranteed (the notion and its parameters), *for which neighbouring relation*, *under which
assumptions* (L, β, M, clipping, sampling scheme, solver certificate), and *from which theorem*.  Auditors
and reports read that claim; nothing re-derives it by hand.  Where ``dp_accounting`` has an event for the
mechanism, the claim carries it too, so the ε can be re-derived and composed with other events.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

import numpy as np

from dpsco.reference.validation import check_delta, check_epsilon, check_positive, check_positive_int

__all__ = ["PrivacyClaim", "Release", "NOTIONS", "NEIGHBOURING_RELATIONS", "EVENT_RELATIONS", "event_to_dict",
           "event_from_dict", "to_jsonable"]

Notion = Literal["approx-DP", "pure-DP", "zCDP", "GDP", "none"]
Neighbouring = Literal["replace-one", "add/remove"]
NOTIONS: tuple[str, ...] = ("approx-DP", "pure-DP", "zCDP", "GDP", "none")
NEIGHBOURING_RELATIONS: tuple[str, ...] = ("replace-one", "add/remove")
# dp_accounting.NeighboringRelation names under which a claim's event is composed
EVENT_RELATIONS: tuple[str, ...] = ("ADD_OR_REMOVE_ONE", "REPLACE_ONE", "REPLACE_SPECIAL")
_EVENT_DISCRETISATION = 1e-3  # PLD value discretisation interval of event_delta / event_epsilon (pessimistic)


def event_to_dict(event: Any) -> dict[str, Any]:
    """A ``dp_accounting`` ``DpEvent`` as plain JSON-able data: ``{"class_name": ..., <fields>}``, nested
    events likewise (from the event's own ``to_named_tuple()``)."""
    from dp_accounting import dp_event

    if not isinstance(event, dp_event.DpEvent):
        raise TypeError(f"event must be a dp_accounting DpEvent, got {type(event).__name__}")

    def convert(value: Any) -> Any:
        if hasattr(value, "_asdict"):
            fields = value._asdict()
            out = {"class_name": fields.pop("class_name")}
            fields.pop("module_name", None)
            out.update({k: convert(v) for k, v in fields.items()})
            return out
        if isinstance(value, (list, tuple)):
            return [convert(v) for v in value]
        return value

    return convert(event.to_named_tuple())


#: field name -> (kind, lower bound, lower bound included, upper bound) of every numeric field of a DpEvent
_EVENT_FIELD_RANGES: dict[str, tuple[str, float, bool, float]] = {
    "count": ("int", 1, True, math.inf),
    "source_dataset_size": ("int", 1, True, math.inf),
    "sample_size": ("int", 1, True, math.inf),
    "dataset_size": ("int", 1, True, math.inf),
    "truncated_batch_size": ("int", 1, True, math.inf),
    "num_buckets": ("int", 2, True, math.inf),
    "sensitivity": ("int", 1, True, math.inf),
    "step_counts": ("int", 1, True, math.inf),
    "sampling_probability": ("float", 0.0, True, 1.0),
    "sampling_probs": ("float", 0.0, True, 1.0),
    "noise_parameter": ("float", 0.0, True, math.inf),
    "noise_multiplier": ("float", 0.0, False, math.inf),
    "standard_deviation": ("float", 0.0, False, math.inf),
    "sensitivities": ("float", 0.0, True, math.inf),
    "rho": ("float", 0.0, True, math.inf),
    "xi": ("float", 0.0, True, math.inf),
    "mean": ("float", 0.0, False, math.inf),
    "shape": ("float", 0.0, True, math.inf),
}


def _check_event_field(cls_name: str, key: str, value: Any) -> Any:
    """``value`` of field ``key`` of event class ``cls_name``, checked against :data:`_EVENT_FIELD_RANGES`
    (a list field elementwise); integral floats of an int field become ints.  ValueError naming the field."""
    rule = _EVENT_FIELD_RANGES.get(key)
    if rule is None:
        return value
    if isinstance(value, list):
        if not value:
            raise ValueError(f"event: {cls_name}.{key} must not be empty")
        return [_check_event_field(cls_name, key, v) for v in value]
    kind, low, closed, high = rule
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"event: {cls_name}.{key} must be a number, got {value!r}")
    v = float(value)
    if kind == "int":
        if not (math.isfinite(v) and v == int(v)):
            raise ValueError(f"event: {cls_name}.{key} must be an integer, got {value!r}")
        value = int(v)
    if not (math.isfinite(v) and (v >= low if closed else v > low) and v <= high):
        side = ">=" if closed else ">"
        upper = f" and <= {high:g}" if math.isfinite(high) else ""
        raise ValueError(f"event: {cls_name}.{key} must be {side} {low:g}{upper}, got {value!r}")
    return value


def event_from_dict(data: Mapping[str, Any]) -> Any:
    """Inverse of :func:`event_to_dict`: only classes of ``dp_accounting.dp_event`` are built, and every numeric
    field is checked (counts and sizes integers >= 1, probabilities in [0, 1], noise multipliers > 0, ...;
    a sample no larger than its source dataset).

    Raises
    ------
    ValueError
        ``data`` names no ``DpEvent`` class of ``dp_accounting.dp_event``, its fields do not fit it, or a field
        is out of range (the message names the class and field).
    """
    from dp_accounting import dp_event

    def build(value: Any) -> Any:
        if isinstance(value, Mapping) and "class_name" in value:
            name = value["class_name"]
            cls = getattr(dp_event, str(name), None)
            if not (isinstance(cls, type) and issubclass(cls, dp_event.DpEvent)):
                raise ValueError(f"event: {name!r} is not a dp_accounting DpEvent class")
            fields = {k: _check_event_field(str(name), k, build(v)) for k, v in value.items() if k != "class_name"}
            if fields.get("sample_size", 0) > fields.get("source_dataset_size", math.inf):
                raise ValueError(f"event: {name}.sample_size ({fields['sample_size']}) exceeds source_dataset_size "
                                 f"({fields['source_dataset_size']})")
            try:
                return cls(**fields)
            except TypeError as exc:
                raise ValueError(f"event: fields {sorted(fields)} do not fit {name}: {exc}") from None
        if isinstance(value, list):
            return [build(v) for v in value]
        return value

    if not isinstance(data, Mapping) or "class_name" not in data:
        raise ValueError("event must be a mapping with a 'class_name' key (see event_to_dict)")
    return build(data)


def to_jsonable(value: Any) -> Any:
    """``value`` with numpy arrays/scalars turned into lists/Python numbers, non-finite floats into strings
    ("inf", "nan") and objects with ``to_dict()`` into dicts, so that ``json.dumps`` writes strict JSON."""
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, np.generic):
        return to_jsonable(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if hasattr(value, "to_dict"):
        return to_jsonable(value.to_dict())
    return value


@dataclass(frozen=True)
class PrivacyClaim:
    """A machine-readable privacy guarantee.

    Attributes
    ----------
    notion : "approx-DP" | "pure-DP" | "zCDP" | "GDP" | "none"
        "none" marks an output that carries *no* guarantee (e.g. a privacy precondition was overridden
        by the caller in a way that voids the theorem).
    epsilon, delta : float
        (ε, δ) for approx-DP / pure-DP (δ = 0); for zCDP and GDP the equivalent (ε, δ) if given.
    neighbouring : "replace-one" | "add/remove"
    source : str
        Paper and theorem the claim comes from, e.g. "Bassily et al. 2019, Theorem 3.1".
    assumptions : mapping
        Everything the proof relies on: Lipschitz constant, smoothness, radius, sampling scheme, ...
    conditions : tuple of str
        Conditions the caller overrode or that the claim is conditional on (e.g. "solver certificate
        ‖w − w*‖ ≤ 1e-9"), stated in words.  Empty for an unconditional claim.
    rho, mu : float, optional
        zCDP ρ or Gaussian-DP μ when the notion is zCDP / GDP.
    event : dp_accounting.DpEvent, optional
        The mechanism as ``dp_accounting`` models it, where one exists (a Gaussian or Laplace output
        perturbation, the T steps of noisy SGD on the worst-case pair, ...), so that users can re-derive the
        ε (:meth:`event_epsilon`) and compose it with their own accountant.  None where dp_accounting has no
        event for the mechanism (objective perturbation, ℓ2-Laplace noise).  The stated (ε, δ) is the claim;
        the event is the model it was derived from, and never gives a larger ε at the claim's δ (tested).
    event_neighbouring : str, optional
        The ``dp_accounting.NeighboringRelation`` name ("ADD_OR_REMOVE_ONE", "REPLACE_ONE",
        "REPLACE_SPECIAL") under which the event's privacy-loss distribution is the mechanism's on the
        claim's ``neighbouring`` relation; required with ``event``.
    """

    notion: Notion
    epsilon: float
    delta: float
    neighbouring: Neighbouring
    source: str
    assumptions: Mapping[str, Any] = field(default_factory=dict)
    conditions: tuple[str, ...] = ()
    rho: float | None = None
    mu: float | None = None
    event: Any = None
    event_neighbouring: str | None = None

    def __post_init__(self) -> None:
        if self.notion not in NOTIONS:
            raise ValueError(f"notion must be one of {NOTIONS}, got {self.notion!r}")
        if self.neighbouring not in NEIGHBOURING_RELATIONS:
            raise ValueError(f"neighbouring must be one of {NEIGHBOURING_RELATIONS}, got {self.neighbouring!r}")
        if self.notion != "none":
            object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
            object.__setattr__(self, "delta", check_delta(self.delta))
        if self.notion == "pure-DP" and self.delta != 0.0:
            raise ValueError("delta must be 0 for a pure-DP claim")
        object.__setattr__(self, "assumptions", dict(self.assumptions))
        object.__setattr__(self, "conditions", tuple(self.conditions))
        if self.event is not None:
            event_to_dict(self.event)  # TypeError unless a DpEvent
            if self.event_neighbouring not in EVENT_RELATIONS:
                raise ValueError(f"event_neighbouring must be one of {EVENT_RELATIONS} when an event is given, got "
                                 f"{self.event_neighbouring!r}")
        elif self.event_neighbouring is not None:
            raise ValueError("event_neighbouring is given without an event")

    def _event_accountant(self, discretisation: float | None = None) -> Any:
        """The event's PLD accountant at ``discretisation``, built once per claim and interval (composing a
        long event, e.g. T sampled Gaussian steps, takes seconds; the claim is immutable, so is the result)."""
        if self.event is None:
            raise ValueError(f"this claim ({self.source}) carries no dp_accounting event")
        from dp_accounting import NeighboringRelation
        from dp_accounting.pld import PLDAccountant

        interval = _EVENT_DISCRETISATION if discretisation is None else check_positive(discretisation, "discretisation")
        cache = self.__dict__.setdefault("_accountants", {})
        if interval not in cache:
            accountant = PLDAccountant(NeighboringRelation[self.event_neighbouring],
                                       value_discretization_interval=interval)
            accountant.compose(self.event)
            cache[interval] = accountant
        return cache[interval]

    def __getstate__(self) -> dict[str, Any]:   # the accountant cache stays behind (it is rebuilt on demand)
        return {k: v for k, v in self.__dict__.items() if k != "_accountants"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)

    def event_epsilon(self, delta: float | None = None, *, discretisation: float | None = None) -> float:
        """ε at ``delta`` (default: the claim's δ) re-derived from ``event`` by dp_accounting's PLD accountant
        (pessimistic: an upper bound of the event's exact ε; value discretisation ``discretisation``, default
        1e-3 — coarser is faster and still an upper bound).

        Raises
        ------
        ValueError
            The claim carries no event, or ``delta`` is outside [0, 1).
        """
        d = self.delta if delta is None else check_delta(delta)
        return float(self._event_accountant(discretisation).get_epsilon(d))

    def event_delta(self, epsilon: float | None = None) -> float:
        """δ at ``epsilon`` (default: the claim's ε) re-derived from ``event`` (as :meth:`event_epsilon`)."""
        e = self.epsilon if epsilon is None else check_epsilon(epsilon)
        return float(self._event_accountant().get_delta(e))

    @property
    def is_private(self) -> bool:
        """False iff the claim is void ("none")."""
        return self.notion != "none"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "notion": self.notion,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "neighbouring": self.neighbouring,
            "source": self.source,
            "assumptions": to_jsonable(self.assumptions),
            "conditions": list(self.conditions),
        }
        if self.rho is not None:
            d["rho"] = self.rho
        if self.mu is not None:
            d["mu"] = self.mu
        if self.event is not None:
            d["event"] = event_to_dict(self.event)
            d["event_neighbouring"] = self.event_neighbouring
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "PrivacyClaim":
        return cls(
            notion=d["notion"],
            epsilon=float(d["epsilon"]),
            delta=float(d["delta"]),
            neighbouring=d.get("neighbouring", "replace-one"),
            source=d.get("source", ""),
            assumptions=d.get("assumptions", {}),
            conditions=tuple(d.get("conditions", ())),
            rho=d.get("rho"),
            mu=d.get("mu"),
            event=event_from_dict(d["event"]) if d.get("event") is not None else None,
            event_neighbouring=d.get("event_neighbouring"),
        )


@dataclass
class Release:
    """A private output together with everything needed to check it.

    A release publishes only what its claim covers.  ``to_dict``/``to_json`` write ``output`` (the released
    outcome; ``trajectory`` too, on request, where the source theorem covers the whole sequence of iterates, as
    Theorem 3.1 of Bassily et al. does) and fields that are functions of public inputs only: ``algorithm``,
    ``claim``, ``parameters`` and ``gradient_evaluations`` — the count the algorithm's schedule prescribes,
    computed from public inputs (n, d, ε, δ, ρ, declared bounds) before any record is read.  Where the count
    actually performed depends on the data (a run that halts on ⊥, records dropped by a data check), that count
    lives in ``nonprivate_internals["gradient_evaluations_performed"]`` and is never published.
    ``diagnostics`` and ``nonprivate_internals`` are never part of a release (``tests/test_privacy_contract.py``
    checks, for every catalogue entry, that every published field but the outcome is identical on neighbouring
    datasets at the same public inputs and seed).

    Replicated runs (``replicates=R``) are verification records, not releases.  Algorithms called with
    ``replicates=R`` return R independent runs on the same data as an (R, d) ``output`` and record R in
    ``replicates``.  ``claim`` then holds for each row alone, not for the R rows together: they compose to
    a much weaker guarantee, and averaging them undoes the noise (for output perturbation the rows are
    independent noisy copies of one minimiser).  ``to_dict``/``to_json`` therefore refuse such a record
    (``ValueError``); ``to_verification_record`` / ``verification_record_json`` serialise it explicitly
    labelled "not a private release", with the claim marked as per row.

    Attributes
    ----------
    output : (d,) float array
        The private parameter vector ((R, d) for ``replicates=R`` runs, one run per row).
    claim : PrivacyClaim
        For a replicated record: the claim of each row separately.
    gradient_evaluations : int
        Number of per-sample (sub)gradient (or prox) oracle calls, duplicates counted, as the algorithm's
        schedule prescribes them from public inputs (published; see above for a data-dependent count).
    parameters : dict
        The parameters actually used (T, η, m, σ², λ, ...), after rounding.  Public.
    algorithm : str
        Name of the algorithm, e.g. "A_NSGD (Bassily et al. 2019, Algorithm 1)".
    trajectory : (T+1, d) float array, optional
        Iterates w_0..w_T when requested.
    diagnostics : dict
        Data-dependent summaries (solver certificates, clipping events, ...).  **Not covered by the privacy
        claim**: they are computed from the private data.  ``to_dict``/``to_json`` never write them; only
        :meth:`to_verification_record` (labelled "not a private release") does, on request.
    nonprivate_internals : dict
        Values computed from the private data *before* the privacy mechanism (e.g. the unperturbed minimiser
        w_T of output perturbation), kept for white-box tests and auditors only.  Never serialised, not shown
        by ``repr``; never publish them.
    white_box : NoisyGradientTrace or None
        For noisy-gradient methods called with ``white_box=True``: every iterate and noisy gradient and the
        step function (``dpsco.reference.white_box``), for white-box auditors.  A verification record, never
        serialised, not shown by ``repr``.
    replicates : int or None
        None for a release (one run).  R >= 1 when ``output`` stacks R independent runs (a verification
        record, see above); ``output.shape[0]`` must then equal R.  Algorithms set it from their
        ``replicates`` argument, so whether a record is replicated never has to be guessed from the shape.

    Raises
    ------
    TypeError / ValueError
        ``replicates`` is not None or an integer >= 1, or does not match ``output.shape[0]``.
    """

    output: np.ndarray
    claim: PrivacyClaim
    gradient_evaluations: int
    parameters: dict[str, Any]
    algorithm: str
    trajectory: np.ndarray | None = None
    diagnostics: dict[str, Any] = field(default_factory=dict)
    nonprivate_internals: dict[str, Any] = field(default_factory=dict, repr=False)
    replicates: int | None = None
    white_box: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.replicates is not None:
            self.replicates = check_positive_int(self.replicates, "replicates")
            shape = np.shape(self.output)
            if len(shape) < 1 or shape[0] != self.replicates:
                raise ValueError(f"replicates = {self.replicates} needs an output with one row per run, got output "
                                 f"shape {shape}")

    @property
    def is_replicated(self) -> bool:
        """True iff this is a verification record of ``replicates`` independent runs (not a release)."""
        return self.replicates is not None

    def _refuse_if_replicated(self, method: str) -> None:
        if self.replicates is not None:
            raise ValueError(
                f"Release.{method}: this is a verification record of replicates = {self.replicates} independent "
                "runs on the same data, not a private release; its claim "
                f"(epsilon = {self.claim.epsilon}, delta = {self.claim.delta}) holds for each row alone, not for "
                "the rows together (averaging them undoes the noise).  Use to_verification_record() / "
                "verification_record_json() for a record labelled 'not a private release', or run the algorithm "
                "with replicates=None for a publishable release"
            )

    def to_dict(self, include_trajectory: bool = False, include_diagnostics: bool = False) -> dict[str, Any]:
        """The publishable record: the outcome, the claim and public fields (never ``diagnostics`` or
        ``nonprivate_internals``).

        Raises
        ------
        ValueError
            The release is replicated (``replicates`` is not None): use :meth:`to_verification_record`; or
            ``include_diagnostics`` is True: diagnostics are computed from the private data and are never part
            of a release (use :meth:`to_verification_record`, labelled "not a private release").
        """
        self._refuse_if_replicated("to_dict")
        if include_diagnostics:
            raise ValueError("include_diagnostics: diagnostics are computed from the private data and are not "
                             "covered by the claim, so a release never publishes them; use "
                             "to_verification_record(include_diagnostics=True), labelled 'not a private release'")
        d: dict[str, Any] = {
            "algorithm": self.algorithm,
            "output": to_jsonable(np.asarray(self.output)),
            "claim": self.claim.to_dict(),
            "gradient_evaluations": int(self.gradient_evaluations),
            "parameters": to_jsonable(self.parameters),
        }
        if include_trajectory and self.trajectory is not None:
            d["trajectory"] = to_jsonable(np.asarray(self.trajectory))
        return d

    def to_json(self, **kwargs: Any) -> str:
        """``json.dumps(self.to_dict(), **kwargs)``.

        Raises
        ------
        ValueError
            The release is replicated (``replicates`` is not None): use :meth:`verification_record_json`.
        """
        self._refuse_if_replicated("to_json")
        return json.dumps(self.to_dict(), **kwargs)

    def to_verification_record(self, include_trajectory: bool = False,
                               include_diagnostics: bool = False) -> dict[str, Any]:
        """The runs as a record for auditors and statistical checks, labelled as NOT a private release.

        ``outputs`` has one row per run (a single run gives one row); ``per_row_claim`` is the claim, which
        covers each row separately and not the set of rows.  Never contains ``nonprivate_internals``.
        """
        outputs = np.asarray(self.output)
        if self.replicates is None:
            outputs = outputs[None, ...]
        runs = int(outputs.shape[0])
        d: dict[str, Any] = {
            "record_type": "verification record -- NOT a private release",
            "not_a_private_release": True,
            "replicates": runs,
            "algorithm": self.algorithm,
            "outputs": to_jsonable(outputs),
            "per_row_claim": self.claim.to_dict(),
            "claim_scope": (
                f"per row: each of the {runs} rows of 'outputs' is one run of the algorithm and alone satisfies "
                "per_row_claim; the rows together are independent runs on the same data, covered by no claim at "
                "these (epsilon, delta) (the guarantee degrades with every run; averaging rows undoes the noise)"
            ),
            "gradient_evaluations": int(self.gradient_evaluations),
            "parameters": to_jsonable(self.parameters),
        }
        if include_trajectory and self.trajectory is not None:
            traj = np.asarray(self.trajectory)
            d["trajectories"] = to_jsonable(traj if self.replicates is not None else traj[None, ...])
        if include_diagnostics:
            d["diagnostics_not_covered_by_the_claim"] = to_jsonable(self.diagnostics)
        return d

    def verification_record_json(self, **kwargs: Any) -> str:
        """``json.dumps(self.to_verification_record(), **kwargs)`` (labelled "not a private release")."""
        return json.dumps(self.to_verification_record(), **kwargs)
