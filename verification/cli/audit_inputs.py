"""The inputs of ``dpsco audit``, parsed and checked before anything is loaded or run: numbers and run counts,
``--statistic``, the .npz datasets (and the refusal of a vacuous identical pair), and ``--claim`` forms with
dp_accounting event files.  One cohesive thing: everything here turns a command-line string into a checked
value or an InputError naming the option (exit status 2), so that ``dpsco.verification.cli.audit`` only runs.
"""

from __future__ import annotations

import json
import math
import os
import zipfile
from typing import Any

import numpy as np

from dpsco.reference.privacy import event_from_dict
from dpsco.verification.auditing.clopper_pearson import CLOPPER_PEARSON_MAX_N
from dpsco.verification.auditing.curves import CurveClaim
from dpsco.verification.cli.conventions import ErrorCollector, parse_confidence, parse_seed
from dpsco.verification.cli.usercode import InputError

__all__ = ["CLAIM_FORMS", "EVENT_RELATION", "check_statistic", "load_npz", "parse_claim", "parse_float", "parse_int",
           "parse_runs", "precheck", "refuse_identical"]


def parse_float(text: Any, name: str) -> float:
    try:
        v = float(text)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number, got {text!r}") from None
    if not math.isfinite(v):
        raise InputError(f"{name} must be finite, got {text!r}")
    return v


def parse_int(text: Any, name: str) -> int:
    try:
        v = int(str(text), 10)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be an integer, got {text!r}") from None
    return v


def check_statistic(text: Any) -> str:
    """--statistic as dpsco.verification.auditing.audit accepts it, checked before anything is loaded or run."""
    stat = str(text)
    if stat == "classifier":
        try:
            import sklearn  # noqa: F401
        except ImportError:
            raise InputError("--statistic classifier needs scikit-learn: pip install 'dpsco[classifier]'") from None
        return stat
    if stat in ("auto", "projection", "norm", "logistic"):
        return stat
    if stat.startswith("coordinate:"):
        parse_int(stat.split(":", 1)[1], f"--statistic {stat!r}: the coordinate index")
        return stat
    raise InputError(f"--statistic must be 'auto', 'projection', 'norm', 'logistic', 'classifier' or "
                     f"'coordinate:<i>', got {stat!r}")


def load_npz(path: str, name: str) -> dict[str, np.ndarray]:
    """The arrays of an .npz file as a dict (no pickles).  Raises ``InputError`` naming ``name``."""
    if not os.path.isfile(path):
        raise InputError(f"{name} file not found: {path}")
    try:
        f = np.load(path, allow_pickle=False)
        if not isinstance(f, np.lib.npyio.NpzFile):
            raise InputError(f"{name} file {path} is a single .npy array, not an .npz archive of named arrays")
        with f:
            data = {k: f[k] for k in f.files}
        for k, v in data.items():  # NpzFile returns a member that is not a .npy file as its raw bytes
            if not isinstance(v, np.ndarray):
                raise InputError(f"{name} file {path}: member {k!r} is not a .npy array")
    except InputError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise InputError(f"{name} file {path} is not a readable .npz archive: {exc}") from None
    if not data:
        raise InputError(f"{name} file {path} contains no arrays")
    return data


CLAIM_FORMS = "gdp:MU, zcdp:RHO, approx:EPS,DELTA or event:FILE.json"
EVENT_RELATION = {"replace-one": "REPLACE_ONE", "add/remove": "ADD_OR_REMOVE_ONE"}


def parse_runs(text: Any, flag: str, minimum: int) -> int:
    """A run count: an integer in [minimum, 1e12] (the validated range of the Clopper–Pearson bounds)."""
    value = parse_int(text, flag)
    if value < minimum:
        raise InputError(f"{flag} must be >= {minimum}, got {text!r}")
    if value > CLOPPER_PEARSON_MAX_N:
        raise InputError(f"{flag} must be at most {CLOPPER_PEARSON_MAX_N:.0e} (the validated range of the "
                         f"Clopper-Pearson bounds), got {text!r}")
    return value


def refuse_identical(dataset: dict[str, np.ndarray], neighbour: dict[str, np.ndarray] | None) -> None:
    """InputError if --neighbour's arrays equal --dataset's (identical datasets make a vacuous audit: the two
    output distributions are the same, so no claim can ever be refuted)."""
    if neighbour is not None and set(neighbour) == set(dataset) and all(
            neighbour[k].shape == dataset[k].shape and np.array_equal(neighbour[k], dataset[k],
                                                                      equal_nan=neighbour[k].dtype.kind in "fc")
            for k in dataset):
        raise InputError("--neighbour holds the same arrays as --dataset: an audit of identical datasets is vacuous "
                         "(it can never refute); give a neighbouring dataset that differs in one record")


def parse_claim(text: Any, neighbouring: str = "replace-one") -> Any:
    """``--claim FORM`` as ("approx", (ε, δ)) or ("curve", CurveClaim); InputError naming --claim otherwise."""
    form = str(text)
    kind, sep, value = form.partition(":")
    if not sep or kind not in ("gdp", "zcdp", "approx", "event"):
        raise InputError(f"--claim must be {CLAIM_FORMS}, got {form!r}")
    try:
        if kind == "approx":
            parts = value.split(",")
            if len(parts) != 2:
                raise InputError(f"--claim approx:EPS,DELTA needs two numbers, got {form!r}")
            eps = parse_float(parts[0], "--claim approx: EPS")
            delta = parse_float(parts[1], "--claim approx: DELTA") + 0.0
            if eps <= 0:
                raise InputError(f"--claim approx: EPS must be > 0, got {form!r}")
            if not (0.0 <= delta < 1.0):
                raise InputError(f"--claim approx: DELTA must lie in [0, 1), got {form!r}")
            return "approx", (eps, delta)
        kw = {"neighbouring": neighbouring, "source": "user-declared"}
        if kind in ("gdp", "zcdp"):
            v = parse_float(value, f"--claim {kind}:")
            if v <= 0:
                raise InputError(f"--claim {kind}: the parameter must be > 0, got {form!r}")
            return "curve", (CurveClaim.gdp(v, **kw) if kind == "gdp" else CurveClaim.zcdp(v, **kw))
        try:
            with open(value, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"--claim event: cannot read {value!r}: {type(exc).__name__}") from None
        # an event itself has a "class_name" (SelfComposedDpEvent and the sampled events have an "event" field of
        # their own); only a mapping without one is the {"event", "event_neighbouring"} wrapper
        # An event file's event_neighbouring is the relation its curve is computed under.  A bare wrapper must
        # agree with the audited relation; a file that also states the claim's "neighbouring" (as
        # PrivacyClaim.to_dict writes it) declares that the event models that relation (e.g. a replace-one
        # Laplace claim modelled by LaplaceDpEvent under ADD_OR_REMOVE_ONE), and must match --claim-neighbouring.
        relation = EVENT_RELATION[neighbouring]
        if isinstance(data, dict) and "class_name" not in data and "event" in data:
            stated = data.get("event_neighbouring", relation)
            if "neighbouring" in data:
                if data["neighbouring"] != neighbouring:
                    raise InputError(f"--claim {form!r}: the file's claim is for {data['neighbouring']!r} "
                                     f"neighbours but --claim-neighbouring is {neighbouring!r}; audit it under the "
                                     "relation it claims")
            else:
                compatible = {"REPLACE_ONE", "REPLACE_SPECIAL"} if relation == "REPLACE_ONE" else {relation}
                if stated not in compatible:
                    raise InputError(
                        f"--claim {form!r}: the file's event_neighbouring {stated!r} contradicts "
                        f"--claim-neighbouring {neighbouring!r} (which audits {relation} pairs); pass the "
                        "--claim-neighbouring the claim is for, or add \"neighbouring\": \"replace-one\" or "
                        "\"add/remove\" to the file to state which relation the event models")
            relation = stated
            data = data["event"]
        ev = event_from_dict(data)
        curve = CurveClaim.from_event(ev, str(relation), **kw)
        try:  # the accountant must accept the event before any run is drawn
            curve.delta_of_epsilon(1.0)
        except Exception as exc:  # noqa: BLE001 - dp_accounting refuses events in its own ways
            raise InputError(f"--claim {form!r}: dp_accounting's PLD accountant cannot use this event "
                             f"({type(exc).__name__}: {exc})") from None
        return "curve", curve
    except InputError:
        raise
    except (ValueError, TypeError) as exc:
        raise InputError(f"--claim {form!r}: {exc}") from None


def _at_least(parse: Any, text: Any, flag: str, minimum: float, strict: bool = False) -> Any:
    value = parse(text, flag)
    if value < minimum or (strict and value == minimum):
        raise InputError(f"{flag} must be {'>' if strict else '>='} {minimum:g}, got {text!r}")
    return value


def precheck(args: Any) -> None:
    """Every option of ``dpsco audit`` whose value can be checked on its own, checked at once: raises
    ArgumentErrors (an InputError) listing every bad one, so that the user fixes them in one go.  The checks
    that relate options to each other follow in ``dpsco.verification.cli.audit.run`` (one at a time)."""
    errors = ErrorCollector()
    get = lambda name: getattr(args, name, None)  # noqa: E731 - a parser built elsewhere may lack an option
    if get("claim") is not None:
        errors.call(parse_claim, args.claim, get("claim_neighbouring") or "replace-one")
    if get("epsilon") is not None:
        errors.call(_at_least, parse_float, args.epsilon, "--epsilon", 0, strict=True)
    if get("delta") is not None:
        with errors.guard():
            if not 0.0 <= parse_float(args.delta, "--delta") + 0.0 < 1.0:
                raise InputError(f"--delta must lie in [0, 1), got {args.delta!r}")
    errors.call(parse_confidence, get("confidence"))
    if get("seed") is not None:
        errors.call(parse_seed, args.seed)
    if get("estimator") != "one-run":
        if get("samples") is not None:
            errors.call(parse_runs, args.samples, "--samples", 4)
        errors.call(check_statistic, get("statistic") or "auto")
    for flag, name, parse, minimum, strict in (("--candidates", "candidates", parse_int, 1, False),
                                               ("--pilot", "pilot", parse_runs, 2, False),
                                               ("--canaries", "canaries", parse_int, 1, False),
                                               ("--epsilon-true", "epsilon_true", parse_float, 0, False),
                                               ("--x-max", "x_max", parse_float, 0, True),
                                               ("--y-max", "y_max", parse_float, 0, False),
                                               ("--max-samples", "max_samples", parse_runs, 4, False),
                                               ("--batch", "batch", parse_runs, 1, False)):
        if get(name) is not None:
            if parse is parse_runs:
                errors.call(parse_runs, get(name), flag, minimum)
            else:
                errors.call(_at_least, parse, get(name), flag, minimum, strict)
    for flag, name in (("--dataset", "dataset"), ("--neighbour", "neighbour")):
        if get(name) is not None and not os.path.isfile(get(name)):
            errors.add(f"{flag} file not found: {get(name)}")
    errors.check()
