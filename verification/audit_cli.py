"""dpsco audit: empirically audit the privacy claim of any mechanism on a pair of neighbouring datasets.

usage: dpsco audit MODULE:CALLABLE --dataset A.npz --neighbour B.npz --epsilon E --delta D
                   --samples N --seed S [--confidence C] [--statistic STAT]
                   [--estimator threshold|gdp|hockey-stick|auto] [--epsilon-true E0] [--json]

MODULE is a dotted module path (``mypkg.mech``) or a path to a ``.py`` file; CALLABLE names
``f(data, rng) -> array`` in it (or an object with that ``__call__`` and an optional vectorised
``sample(data, n, rng) -> (n, k) array`` of n independent runs).  ``data`` is a dict of the arrays stored in
the .npz file.  The claim audited is (E, D)-DP under replace-one neighbouring, source "user-declared".
The two datasets must be replace-one neighbours (same keys and shapes, differing in at most one row).

The auditor draws N runs per dataset, chooses an event on half of them and bounds ε on the other half with
Clopper-Pearson intervals: if the mechanism satisfies the claim, the verdict is "refuted" with probability
at most 1 - C.  "not refuted" is not a proof of privacy.  --estimator gdp reports a Gaussian-DP mu lower
bound (assumption-free) and the epsilon it implies at D *if the mechanism's trade-off curve is Gaussian*;
--estimator hockey-stick reports a lower bound on delta at epsilon E.  Every result names its assumptions.  The randomness is
numpy.random.default_rng(numpy.random.SeedSequence(S)); the seed entropy is printed for reproduction.

exit status: 0 claim not refuted, 1 claim refuted, 2 bad input (a one-line error on stderr).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import math
import os
import sys
import zipfile
from typing import Any

import numpy as np

from reference.privacy import PrivacyClaim

from .audit import audit

__all__ = ["configure_parser", "run", "load_mechanism", "load_npz"]


class _InputError(Exception):
    """Bad command-line input; reported as a one-line error and exit status 2."""


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Add the ``audit`` arguments to ``p`` and set ``run`` as its handler."""
    p.add_argument("target", metavar="MODULE:CALLABLE",
                   help="mechanism f(data, rng) -> array: dotted module path or path/to/file.py, a colon, a name")
    p.add_argument("--dataset", required=True, metavar="A.npz", help="arrays of the dataset S (.npz)")
    p.add_argument("--neighbour", "--neighbor", required=True, dest="neighbour", metavar="B.npz",
                   help="arrays of the neighbouring dataset S' (.npz)")
    p.add_argument("--epsilon", required=True, metavar="E", help="claimed ε (> 0)")
    p.add_argument("--delta", required=True, metavar="D", help="claimed δ (in [0, 1))")
    p.add_argument("--samples", required=True, metavar="N", help="runs per dataset (>= 4)")
    p.add_argument("--seed", required=True, metavar="S", help="non-negative integer seed of the SeedSequence")
    p.add_argument("--confidence", default="0.95", metavar="C", help="confidence level in (0, 1) (default 0.95)")
    p.add_argument("--statistic", default="projection", metavar="STAT",
                   help="'projection' (default), 'norm', 'logistic' or 'coordinate:<i>'")
    p.add_argument("--estimator", default="threshold", choices=("threshold", "gdp", "hockey-stick", "auto"),
                   help="threshold (assumption-free, default), gdp (mu bound; epsilon assumes a Gaussian "
                        "trade-off curve), hockey-stick (delta lower bound at the claimed epsilon), auto (= threshold)")
    p.add_argument("--epsilon-true", default=None, metavar="E0",
                   help="exact epsilon of the mechanism at the claimed delta, reported next to the bound")
    p.add_argument("--json", action="store_true", help="print one JSON record instead of a summary")
    p.set_defaults(run=run)


def _parse_float(text: Any, name: str) -> float:
    try:
        v = float(text)
    except (TypeError, ValueError):
        raise _InputError(f"{name} must be a number, got {text!r}") from None
    if not math.isfinite(v):
        raise _InputError(f"{name} must be finite, got {text!r}")
    return v


def _parse_int(text: Any, name: str) -> int:
    try:
        v = int(str(text), 10)
    except (TypeError, ValueError):
        raise _InputError(f"{name} must be an integer, got {text!r}") from None
    return v


def load_npz(path: str, name: str) -> dict[str, np.ndarray]:
    """The arrays of an .npz file as a dict (no pickles).  Raises ``_InputError`` naming ``name``."""
    if not os.path.isfile(path):
        raise _InputError(f"{name} file not found: {path}")
    try:
        f = np.load(path, allow_pickle=False)
        if not isinstance(f, np.lib.npyio.NpzFile):
            raise _InputError(f"{name} file {path} is a single .npy array, not an .npz archive of named arrays")
        with f:
            data = {k: np.asarray(f[k]) for k in f.files}
    except _InputError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise _InputError(f"{name} file {path} is not a readable .npz archive: {exc}") from None
    if not data:
        raise _InputError(f"{name} file {path} contains no arrays")
    return data


def load_mechanism(target: str) -> Any:
    """Resolve ``MODULE:CALLABLE`` (dotted module or path to a .py file).  Raises ``_InputError``."""
    module_part, sep, attr = str(target).rpartition(":")
    if not sep or not module_part or not attr:
        raise _InputError(f"mechanism must be given as MODULE:CALLABLE, got {target!r}")
    if module_part.endswith(".py") or os.path.sep in module_part or os.path.isfile(module_part):
        if not os.path.isfile(module_part):
            raise _InputError(f"mechanism file not found: {module_part}")
        mod_name = "_dpsco_audit_target_" + os.path.splitext(os.path.basename(module_part))[0].replace("-", "_")
        spec = importlib.util.spec_from_file_location(mod_name, module_part)
        if spec is None or spec.loader is None:
            raise _InputError(f"cannot load {module_part} as a Python module")
        module = importlib.util.module_from_spec(spec)
        # registered before execution (the importlib recipe), so that e.g. @dataclass in the file works
        sys.modules[mod_name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # noqa: BLE001 - any failure while importing user code is bad input
            sys.modules.pop(mod_name, None)
            raise _InputError(f"error while importing {module_part}: {type(exc).__name__}: {exc}") from None
    else:
        try:
            module = importlib.import_module(module_part)
        except Exception as exc:  # noqa: BLE001
            raise _InputError(f"cannot import module {module_part!r}: {type(exc).__name__}: {exc}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise _InputError(f"{module_part} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not (callable(obj) or callable(getattr(obj, "sample", None))):
        raise _InputError(f"{target} is not callable (expected f(data, rng) -> array)")
    return obj


def run(args: argparse.Namespace) -> int:
    """Execute ``dpsco audit``; returns the exit status (0 not refuted, 1 refuted, 2 bad input)."""
    try:
        epsilon = _parse_float(args.epsilon, "--epsilon")
        if epsilon <= 0:
            raise _InputError(f"--epsilon must be > 0, got {args.epsilon!r}")
        delta = _parse_float(args.delta, "--delta")
        if not (0.0 <= delta < 1.0):
            raise _InputError(f"--delta must lie in [0, 1), got {args.delta!r}")
        confidence = _parse_float(args.confidence, "--confidence")
        if not (0.0 < confidence < 1.0):
            raise _InputError(f"--confidence must lie in (0, 1), got {args.confidence!r}")
        samples = _parse_int(args.samples, "--samples")
        if samples < 4:
            raise _InputError(f"--samples must be >= 4, got {args.samples!r}")
        seed = _parse_int(args.seed, "--seed")
        if seed < 0:
            raise _InputError(f"--seed must be a non-negative integer, got {args.seed!r}")
        dataset = load_npz(args.dataset, "--dataset")
        neighbour = load_npz(args.neighbour, "--neighbour")
        mechanism = load_mechanism(args.target)
        claim = PrivacyClaim(
            notion="pure-DP" if delta == 0.0 else "approx-DP",
            epsilon=epsilon,
            delta=delta,
            neighbouring="replace-one",
            source="user-declared",
        )
        estimator = "threshold" if args.estimator == "auto" else args.estimator
        epsilon_true = None
        if args.epsilon_true is not None:
            epsilon_true = _parse_float(args.epsilon_true, "--epsilon-true")
            if epsilon_true < 0:
                raise _InputError(f"--epsilon-true must be >= 0, got {args.epsilon_true!r}")
        if estimator == "gdp" and delta == 0.0:
            raise _InputError("--estimator gdp needs --delta > 0")
        seq = np.random.SeedSequence(seed)
        rng = np.random.default_rng(seq)
        try:
            result = audit(
                mechanism, dataset, neighbour, claim, samples, rng,
                confidence=confidence, statistic=args.statistic, seed_entropy=int(seq.entropy),
                estimator=estimator, epsilon_true=epsilon_true,
            )
        except (ValueError, TypeError) as exc:
            raise _InputError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - the user's mechanism raised
            raise _InputError(f"mechanism {args.target} raised {type(exc).__name__}: {exc}") from None
    except _InputError as exc:
        print(f"dpsco audit: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        record = result.to_dict()
        record["mechanism"] = args.target
        record["seed"] = seed
        print(json.dumps(record))
    else:
        print(result.summary())
    return 1 if result.refuted else 0
