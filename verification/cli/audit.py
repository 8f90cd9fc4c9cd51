"""dpsco audit: empirically audit the privacy claim of any mechanism on a pair of neighbouring datasets.

usage: dpsco audit MODULE:CALLABLE --dataset A.npz --neighbour B.npz --epsilon E --delta D
                   --samples N [--seed S] [--confidence C] [--statistic STAT]
                   [--estimator threshold|gdp|hockey-stick|auto] [--assume gaussian-tradeoff]
                   [--event-from-claim gaussian|laplace] [--claim-neighbouring replace-one|add/remove]
                   [--epsilon-true E0] [--json]
       dpsco audit MODULE:CALLABLE --dataset A.npz --neighbour B.npz
                   --claim gdp:MU|zcdp:RHO|approx:EPS,DELTA|event:FILE.json --samples N [--seed S] [...]
       dpsco audit MODULE:CALLABLE --dataset A.npz --pairs extreme|sign-flip|worst-case --x-max X --y-max Y
                   [--loss NAME] [--pilot P] --epsilon E --delta D --samples N [--seed S] [...]
       dpsco audit MODULE:CALLABLE --estimator one-run --canaries M --dataset A.npz --epsilon E --delta D
                   [--seed S] [--canary-protocol add/remove|replace-one]
                   [--claim-neighbouring replace-one|add/remove] [--confidence C] [--json]

MODULE is a dotted module path (``mypkg.mech``) or a path to a ``.py`` file; CALLABLE names
``f(data, rng) -> array`` in it (or an object with that ``__call__`` and an optional vectorised
``sample(data, n, rng) -> (n, k) array`` of n independent runs).  ``data`` is a dict of the arrays stored in
the .npz file.  The claim audited is (E, D)-DP under replace-one neighbouring (--claim-neighbouring
add/remove for an add/remove claim), source "user-declared".  The two datasets must be neighbours under the
claim's relation (replace-one: same keys and shapes, differing in at most one row); the result records the
relation audited (neighbouring_audited).

A vectorised ``sample`` is not trusted blindly: before its rows are used, up to 200 single runs per dataset
(fewer for slow mechanisms, at least 6) are compared with them (Kolmogorov-Smirnov per coordinate against a
DKW critical value, and the rate of identical consecutive rows by Fisher's exact test; false-alarm
probability <= 1e-7, docs/auditing.md).  If they disagree — e.g. sample() reuses one noise draw for the batch,
or __call__ adds no noise — there is no verdict: exit status 2 with a one-line error naming the problem.
The JSON record reports the check (sample_consistency).

The auditor draws N runs per dataset, chooses an event on half of them and bounds ε on the other half with
Clopper-Pearson intervals: if the mechanism satisfies the claim, the verdict is "refuted" with probability
at most 1 - C.  "not refuted" is not a proof of privacy.  The verdict and the exit status rest only on
assumption-free bounds, unless an assumption is stated.  --estimator gdp reports a Gaussian-DP mu lower bound
(assumption-free) and, under its own label epsilon_lower_assuming_gaussian_tradeoff, the epsilon it implies
at D *if the mechanism's trade-off curve is Gaussian*, with a plausibility check of that shape
(gaussian_shape_plausible: mu must not vary with the threshold; Laplace noise and randomised response fail
it); epsilon_lower and the verdict stay assumption-free.  --assume gaussian-tradeoff (with --estimator gdp)
states the assumption: only then may the Gaussian figure refute the claim, and the JSON record names the
assumption (assumption) and warns if the shape check contradicts it (warnings).
--estimator hockey-stick reports a lower bound on delta at epsilon E.  Every result names its assumptions.  The randomness is
numpy.random.default_rng(numpy.random.SeedSequence(S)); without --seed, S is drawn from OS entropy and printed
on stderr ("seed: S — rerun with --seed S"); the JSON record holds it (seed, seed_drawn).

--estimator auto picks the strongest estimator whose assumptions are declared to hold
(dpsco.verification.auditing.estimators.choose_estimator): the mechanism object may carry a dict attribute ``audit_info``
with keys noise ("gaussian"/"laplace"/...), deterministic (bool), post_processing ("none" or a description),
output_dimension (int); without it, auto is the assumption-free threshold route.  Declaring Gaussian noise on
a deterministic computation without post-processing states the Gaussian trade-off assumption (recorded as
such in the result).

--event-from-claim FAMILY places the event from the claim (the best event if the statistic were FAMILY-
distributed on the claimed privacy curve) using a 1 % pilot for direction, location and scale, and tests it
on all other runs: sound for any mechanism, more powerful than the default split when the family fits.

Generated neighbours (--pairs, instead of --neighbour): A.npz must hold X (n, d) and y (n,) inside the
declared domain {||x|| <= --x-max, |y| <= --y-max}; other arrays are passed unchanged.  The pairs come from
dpsco.verification.auditing.neighbours — extreme: the last record replaced by the antipodal extreme point, with the label
flipped and kept (replace_one_extreme); sign-flip: (-x, y), (x, -y), (-x, -y) of the last record
(sign_flip_pairs); worst-case: the 3 replace-one pairs maximising the gradient difference of --loss at w = 0
(worst_case_pairs).  All pairs are audited together by dpsco.verification.auditing.estimators.audit_family (method
"select"): --pilot runs per side per pair (default N) choose the pair, statistic and event; one event is then
tested on N fresh runs per side, so the verdict holds at confidence C for the whole family.

One-run audit (--estimator one-run, Steinke-Nasr-Jagielski 2023).  Canary protocol: CALLABLE is
``f(data, mask, rng) -> scores`` where data is the dict of arrays of A.npz (the non-canary records), mask is
a boolean array of length M (--canaries) drawn by the auditor with each entry True independently with
probability 1/2, and f must (1) run the mechanism ONCE on data plus exactly the canaries i with mask[i] True
(the canaries are chosen by f, before seeing mask, e.g. stored in A.npz or fixed in its code), drawing all
randomness from rng, and (2) return M finite scores, scores[i] higher meaning "canary i was more likely
included", computed from the mechanism's output only (never from mask).  That protocol varies add/remove
neighbours.  With --canary-protocol replace-one, f must instead run on data plus, for every canary i, one of
its two versions (mask[i] True: the "in" version, False: the "out" version), so the dataset size is fixed and
flipping mask[i] replaces one record.  The result records the relation audited (neighbouring_audited) and
compares it with the claim's only where that is sound: same relation directly; an add/remove claim (E, D)
with replace-one canaries through the replace-one claim it implies, (2E, (1 + e^E) D); a replace-one claim
(the default) with add/remove canaries not at all — replace-one DP implies no add/remove guarantee — so the
verdict is "inconclusive" (exit 0).  Under a claim that can be compared, the verdict is "refuted" with
probability <= 1 - C.  The bound saturates well below the true epsilon for small M (docs/auditing.md).
--samples and --neighbour are not used.

Curve claims (--claim; exactly one of --claim and --epsilon/--delta).  approx:EPS,DELTA is the same as
--epsilon EPS --delta DELTA.  gdp:MU (mu-GDP), zcdp:RHO (rho-zCDP) and event:FILE.json (a dp_accounting
DpEvent in PrivacyClaim's event format, dpsco.reference.privacy.event_to_dict, or {"event": ...,
"event_neighbouring": "REPLACE_ONE"|"ADD_OR_REMOVE_ONE"|"REPLACE_SPECIAL"}, which must agree with
--claim-neighbouring unless the file also states the claim's "neighbouring" (as PrivacyClaim.to_dict writes it:
then the event models that relation, e.g. a replace-one Laplace claim modelled under ADD_OR_REMOVE_ONE, and it
must equal --claim-neighbouring); default relation from --claim-neighbouring) are audited as whole trade-off curves by dpsco.verification.auditing.curve_audit.audit_curve:
refuted iff the Clopper-Pearson box of the selected event's (false-positive, false-negative) rates lies below
the claimed curve (probability <= 1 - C under a true claim).  The JSON record has claim, verdict, mu_lower,
rho_lower (zcdp) and epsilon_lower (null: no epsilon at a claimed delta).  --estimator, --assume,
--event-from-claim, --pairs and --epsilon-true do not apply to curve claims.  A bad form exits 2 naming --claim.

User code: a dotted MODULE is imported with the current directory at the front of sys.path (as python -m
does), so ``dpsco audit mech:f`` finds ./mech.py.  What the mechanism prints goes to stderr: stdout carries
only the result (e.g. the --json record).

exit status: 0 claim not refuted, 1 claim refuted, 2 bad input (one line on stderr per error; the options
that can be checked alone are all checked before reporting), including a
mechanism that raises or calls sys.exit (at import or when run); 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import contextlib
import json
from typing import Any, Callable, Iterator

import numpy as np

from dpsco.reference.losses import get_loss
from dpsco.reference.privacy import PrivacyClaim
from dpsco.reference.problem import DataBounds
from dpsco.verification.auditing import estimators
from dpsco.verification.auditing import neighbour_pairs as nbp
from dpsco.verification.auditing import neighbours as nbm
from dpsco.verification.auditing import pair_search
from dpsco.verification.auditing.audit import audit
from dpsco.verification.auditing.curve_audit import audit_curve
from dpsco.verification.auditing.neighbours import BoxBounds
from dpsco.verification.auditing.sequential import sequential_audit
from dpsco.verification.cli.audit_inputs import (CLAIM_FORMS, check_statistic, parse_float, parse_int,
                                                 parse_runs, precheck, refuse_identical, load_npz, parse_claim)
from dpsco.verification.cli.conventions import (add_confidence_option, add_seed_option, announce_seed, get_logger,
                                              report_errors, resolve_seed)
from dpsco.verification.cli.usercode import InputError, load_mechanism, running, runs_executor
from dpsco.verification.executors import Executor

__all__ = ["configure_parser", "run", "load_mechanism", "load_npz", "parse_claim"]


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Add the ``audit`` arguments to ``p`` and set ``run`` as its handler."""
    p.add_argument("target", metavar="MODULE:CALLABLE",
                   help="mechanism f(data, rng) -> array: dotted module path or path/to/file.py, a colon, a name")
    p.add_argument("--dataset", required=True, metavar="A.npz", help="arrays of the dataset S (.npz)")
    p.add_argument("--neighbour", "--neighbor", default=None, dest="neighbour", metavar="B.npz",
                   help="arrays of the neighbouring dataset S' (.npz); required unless --pairs or one-run")
    p.add_argument("--epsilon", default=None, metavar="E",
                   help="claimed ε (> 0); with --delta, shorthand for --claim approx:E,D")
    p.add_argument("--delta", default=None, metavar="D", help="claimed δ (in [0, 1))")
    p.add_argument("--claim", default=None, metavar="FORM",
                   help="the claim: gdp:MU | zcdp:RHO | approx:EPS,DELTA | event:FILE.json (a dp_accounting event, "
                        "as PrivacyClaim writes it); gdp/zcdp/event are curve audits (audit_curve)")
    p.add_argument("--samples", default=None, metavar="N",
                   help="runs per dataset (>= 4); required except with --estimator one-run")
    add_seed_option(p, "the audit's SeedSequence")
    add_confidence_option(p)
    p.add_argument("--statistic", default="auto", metavar="STAT",
                   help="'auto' (default: the best of location, scale, extremes and, for outputs of >= 4 "
                        "coordinates, a learned classifier, chosen on the selection half), 'projection', 'norm', "
                        "'logistic', 'classifier' (scikit-learn: pip install 'dpsco[classifier]') or "
                        "'coordinate:<i>'")
    p.add_argument("--estimator", default="threshold",
                   choices=("threshold", "gdp", "hockey-stick", "auto", "one-run"),
                   help="threshold (assumption-free, default), gdp (mu bound; the epsilon it implies assumes a "
                        "Gaussian trade-off curve and decides the verdict only with --assume), hockey-stick (delta "
                        "lower bound at the claimed epsilon), auto (the strongest estimator whose assumptions the "
                        "mechanism's audit_info declares; else threshold), one-run (canary protocol, see below)")
    p.add_argument("--assume", default=None, choices=("gaussian-tradeoff",),
                   help="with --estimator gdp: state that the mechanism's trade-off curve is Gaussian, so that the "
                        "Gaussian-DP epsilon may refute the claim (recorded in the result, with a shape check)")
    p.add_argument("--claim-neighbouring", "--claim-neighboring", default="replace-one",
                   choices=("replace-one", "add/remove"), dest="claim_neighbouring",
                   help="neighbouring relation of the claim (default replace-one). Most DP-SGD libraries (Opacus, "
                        "TF Privacy, JAX privacy) state add/remove guarantees: use add/remove for them, with a "
                        "--neighbour that has one record more or less, or with --pairs search, which then "
                        "generates add/remove candidates (records added and removed)")
    p.add_argument("--canary-protocol", default="add/remove", choices=("add/remove", "replace-one"),
                   dest="canary_protocol",
                   help="--estimator one-run: what mask[i] does - add/remove canary i (default) or choose between "
                        "its two versions (replace-one)")
    p.add_argument("--event-from-claim", default=None, choices=("gaussian", "laplace"), dest="event_from_claim",
                   help="place the event from the claim for this output family (1%% pilot), test it on all "
                        "other runs (sound for any mechanism; power assumes the family)")
    p.add_argument("--pairs", default=None, choices=("extreme", "sign-flip", "worst-case", "search"),
                   help="generate the neighbours of --dataset (X, y) from the declared domain instead of "
                        "--neighbour, and audit them together at one overall confidence; 'search' proposes "
                        "candidate pairs (sub-datasets, extreme replacements, label extremes; records added and "
                        "removed under --claim-neighbouring add/remove), ranks them on pilot runs and tests the best "
                        "on fresh runs (pair_search_audit)")
    p.add_argument("--x-max", default=None, metavar="X", dest="x_max", help="declared bound ||x|| <= X (--pairs)")
    p.add_argument("--y-max", default=None, metavar="Y", dest="y_max", help="declared bound |y| <= Y (--pairs)")
    p.add_argument("--x-bounds", default=None, dest="x_bounds", metavar="LO,HI",
                   help="declared box (--pairs, instead of --x-max/--y-max): 'LO,HI' for every coordinate or "
                        "'LO:HI,LO:HI,...' per coordinate; write --x-bounds=-1,3 for a negative LO")
    p.add_argument("--y-bounds", default=None, dest="y_bounds", metavar="LO,HI",
                   help="declared label range 'LO,HI' (with --x-bounds)")
    p.add_argument("--candidates", default=None, metavar="K", help="--pairs search: at most K candidate pairs "
                                                                     "(default 64)")
    p.add_argument("--sequential", action="store_true",
                   help="anytime-valid audit of one pair (sequential_audit): stop as soon as the verdict is certain; "
                        "--samples (or --max-samples) is the most runs per side")
    p.add_argument("--max-samples", default=None, metavar="N", dest="max_samples",
                   help="--sequential: most runs per side (default --samples)")
    p.add_argument("--batch", default=None, metavar="B",
                   help="--sequential: test runs per side per batch (default: a hundredth of the test budget)")
    p.add_argument("--loss", default=None, metavar="NAME", help="loss for --pairs worst-case (e.g. logistic)")
    p.add_argument("--pilot", default=None, metavar="P", help="--pairs: pilot runs per side per pair (default N)")
    p.add_argument("--canaries", default=None, metavar="M", help="--estimator one-run: number of canaries")
    p.add_argument("--epsilon-true", default=None, metavar="E0",
                   help="exact epsilon of the mechanism at the claimed delta, reported next to the bound")
    p.add_argument("--workers", default=None, metavar="N",
                   help="processes that run a mechanism without sample() (default: every core; 1: this process); "
                        "the result does not depend on it")
    p.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                   help="run the single runs on a Dask cluster (pip install 'dpsco[dask]'; the workers must import "
                        "the mechanism's module); not with --workers")
    p.add_argument("--json", action="store_true", help="print one JSON record instead of a summary")
    p.set_defaults(run=run)


_LIBRARY_NAMES = {"statistic": "--statistic", "event_from_claim": "--event-from-claim"}


def _named(exc: Exception) -> str:
    """The message of a ValueError raised while auditing, naming the option where the library begins with its
    parameter's name (e.g. "statistic 'coordinate:7' is out of range ..." -> "--statistic 'coordinate:7' ...")."""
    msg = str(exc)
    # the library's advice names a Python keyword the command line does not have: say what the CLI does instead
    msg = msg.replace("(pass check_neighbouring=False for layouts where axis 0 is not the record axis)",
                      "(the command line reads records along axis 0 of every array; for another layout use the "
                      "Python API: dpsco.audit(..., check_neighbouring=False))")
    for name, option in _LIBRARY_NAMES.items():
        if msg.startswith(name) and msg[len(name):len(name) + 1] in (" ", "="):
            return option + msg[len(name):]
    return msg


def _declared_bounds(args: argparse.Namespace) -> DataBounds | BoxBounds:
    """The declared data domain of ``--pairs``: a ball (--x-max, --y-max) or a box (--x-bounds, --y-bounds)."""
    x_bounds, y_bounds = getattr(args, "x_bounds", None), getattr(args, "y_bounds", None)
    ball = args.x_max is not None or args.y_max is not None
    box = x_bounds is not None or y_bounds is not None
    if ball and box:
        raise InputError("declare the data domain as a ball (--x-max, --y-max) or a box (--x-bounds, --y-bounds), "
                         "not both")
    if box:
        if x_bounds is None or y_bounds is None:
            raise InputError("--x-bounds and --y-bounds go together (the declared box)")
        try:
            x_lo, x_hi = pair_search.parse_interval_bounds(x_bounds, "--x-bounds")
            y_lo, y_hi = pair_search.parse_interval_bounds(y_bounds, "--y-bounds")
        except ValueError as exc:
            raise InputError(str(exc)) from None
        if isinstance(y_lo, tuple) or isinstance(y_hi, tuple):
            raise InputError(f"--y-bounds must be one interval 'LO,HI' (labels are scalar), got {y_bounds!r}")
        try:
            return BoxBounds(x_lo, x_hi, y_lo, y_hi)
        except (ValueError, TypeError) as exc:
            raise InputError(f"--x-bounds/--y-bounds: {exc}") from None
    if args.x_max is None or args.y_max is None:
        raise InputError("--pairs needs the declared data domain: --x-max and --y-max (a ball) or --x-bounds and "
                         "--y-bounds (a box)")
    x_max = parse_float(args.x_max, "--x-max")
    y_max = parse_float(args.y_max, "--y-max")
    if x_max <= 0:
        raise InputError(f"--x-max must be > 0, got {args.x_max!r}")
    if y_max < 0:
        raise InputError(f"--y-max must be >= 0, got {args.y_max!r}")
    return DataBounds(x_max, y_max)


def _generated_pairs(args: argparse.Namespace, dataset: dict[str, np.ndarray]) -> list[tuple[Any, Any, str]]:
    """The neighbouring pairs of ``--pairs`` (dpsco.verification.auditing.neighbours), as audit_family takes them."""
    bounds = _declared_bounds(args)
    if args.loss is not None and args.pairs != "worst-case":
        raise InputError(f"--loss applies only with --pairs worst-case, not --pairs {args.pairs}")
    if "X" not in dataset or "y" not in dataset:
        raise InputError(f"--pairs needs --dataset arrays named X and y, got {sorted(dataset)}")
    X, y = dataset["X"], dataset["y"]
    rest = {k: v for k, v in dataset.items() if k not in ("X", "y")}
    try:
        if args.pairs == "extreme":
            X1, y1 = nbm.replace_one_extreme(X, y, bounds)
            raw = [({"X": np.asarray(X, dtype=np.float64), "y": np.asarray(y, dtype=np.float64)}, {"X": X1, "y": y1},
                    "last record -> antipodal extreme point, label flipped")]
            X2, y2 = nbm.replace_one_extreme(X, y, bounds, label=float(np.asarray(y, dtype=np.float64)[-1]))
            if not (np.array_equal(X2, X1) and np.array_equal(y2, y1)):
                raw.append(({"X": np.asarray(X, dtype=np.float64), "y": np.asarray(y, dtype=np.float64)},
                            {"X": X2, "y": y2}, "last record -> antipodal extreme point, label kept"))
        elif args.pairs == "sign-flip":
            raw = [p.as_tuple() for p in nbp.sign_flip_pairs(X, y, bounds)]
        else:
            if args.loss is None:
                raise InputError("--pairs worst-case needs --loss (the loss whose gradient difference is maximised)")
            try:
                get_loss(str(args.loss))
            except ValueError as exc:
                raise InputError(f"--{exc}") from None  # "--loss must be one of [...], got ..."
            raw = [p.as_tuple() for p in nbp.worst_case_pairs(X, y, bounds, str(args.loss))]
    except (ValueError, TypeError) as exc:
        raise InputError(f"--pairs {args.pairs}: {exc}") from None
    if not raw:
        raise InputError(f"--pairs {args.pairs} produced no neighbouring pair (e.g. the last record is zero)")
    return [({**a, **rest}, {**b, **rest}, label) for a, b, label in raw]


def _run_one_run(args: argparse.Namespace, mechanism: Any, dataset: dict[str, np.ndarray], epsilon: float,
                 delta: float, confidence: float, rng: np.random.Generator, entropy: int) -> Any:
    if args.canaries is None:
        raise InputError("--estimator one-run needs --canaries M")
    m = parse_int(args.canaries, "--canaries")
    if m < 1:
        raise InputError(f"--canaries must be >= 1, got {args.canaries!r}")
    for flag, value in (("--neighbour", args.neighbour), ("--pairs", args.pairs),
                        ("--event-from-claim", args.event_from_claim), ("--assume", getattr(args, "assume", None)),
                        ("--x-max", args.x_max), ("--y-max", args.y_max), ("--loss", args.loss),
                        ("--pilot", args.pilot), ("--x-bounds", getattr(args, "x_bounds", None)),
                        ("--y-bounds", getattr(args, "y_bounds", None)), ("--candidates", getattr(args, "candidates", None)),
                        ("--sequential", True if getattr(args, "sequential", False) else None),
                        ("--max-samples", getattr(args, "max_samples", None)), ("--batch", getattr(args, "batch", None))):
        if value is not None:
            raise InputError(f"{flag} does not apply to --estimator one-run (one run with random canary inclusion)")

    def run_once(mask: np.ndarray, r: np.random.Generator) -> np.ndarray:
        return mechanism(dataset, mask, r)

    # the relation the canary protocol varies, and the claim's: one_run_audit compares them only where sound
    return estimators.one_run_audit(run_once, m, rng, delta=delta, confidence=confidence, claim_epsilon=epsilon,
                         seed_entropy=entropy,
                         neighbouring_audited=getattr(args, "canary_protocol", "add/remove"),
                         claim_neighbouring=getattr(args, "claim_neighbouring", "replace-one"))


@contextlib.contextmanager
def _mechanism_errors(target: str, describe: Callable[[Exception], str]) -> Iterator[None]:
    """Run the user's mechanism (through the auditor) so that anything it raises is bad input (exit 2):
    ValueError/TypeError as ``describe`` words them, any other exception named with the mechanism."""
    try:
        with running(f"the mechanism {target}"):
            yield
    except InputError:
        raise
    except (ValueError, TypeError) as exc:
        raise InputError(describe(exc)) from None
    except Exception as exc:  # noqa: BLE001 - the user's mechanism raised
        raise InputError(f"mechanism {target} raised {type(exc).__name__}: {exc}") from None


def run(args: argparse.Namespace) -> int:
    """Execute ``dpsco audit``; returns the exit status (0 not refuted, 1 refuted, 2 bad input)."""
    reason: str | None = None
    executor: Executor | None = None
    try:
        precheck(args)  # every option that can be checked alone, all errors at once
        claim_text = getattr(args, "claim", None)
        curve = None
        if claim_text is not None:
            if args.epsilon is not None or args.delta is not None:
                raise InputError("--claim gives the whole claim: do not also give --epsilon/--delta")
            kind, parsed = parse_claim(claim_text, getattr(args, "claim_neighbouring", "replace-one"))
            if kind == "approx":
                epsilon, delta = parsed
            else:
                curve, epsilon, delta = parsed, 1.0, 0.0
        else:
            for flag, value in (("--epsilon", args.epsilon), ("--delta", args.delta)):
                if value is None:
                    raise InputError(f"{flag} is required (or give the claim with --claim {CLAIM_FORMS})")
            epsilon = parse_float(args.epsilon, "--epsilon")
            if epsilon <= 0:
                raise InputError(f"--epsilon must be > 0, got {args.epsilon!r}")
            delta = parse_float(args.delta, "--delta") + 0.0  # -0 -> 0 (the claim prints as (E, 0)-DP)
            if not (0.0 <= delta < 1.0):
                raise InputError(f"--delta must lie in [0, 1), got {args.delta!r}")
        confidence = parse_float(args.confidence, "--confidence")
        if not (0.0 < confidence < 1.0):
            raise InputError(f"--confidence must lie in (0, 1), got {args.confidence!r}")
        one_run = args.estimator == "one-run"
        samples = 0
        if not one_run:
            if args.samples is None:
                raise InputError("--samples is required (runs per dataset)")
            samples = parse_runs(args.samples, "--samples", 4)
        drawn = resolve_seed(getattr(args, "seed", None))  # absent: a fresh seed from OS entropy, printed below
        seed = drawn.value
        if not one_run:
            check_statistic(args.statistic)
        dataset = load_npz(args.dataset, "--dataset")
        seq = np.random.SeedSequence(seed)
        rng = np.random.default_rng(seq)
        if curve is not None:
            for flag, value, default in (("--estimator", args.estimator, "threshold"), ("--assume", args.assume, None),
                                         ("--event-from-claim", args.event_from_claim, None),
                                         ("--pairs", args.pairs, None), ("--epsilon-true", args.epsilon_true, None),
                                         ("--canaries", args.canaries, None), ("--pilot", args.pilot, None),
                                         ("--sequential", getattr(args, "sequential", False), False),
                                         ("--max-samples", getattr(args, "max_samples", None), None),
                                         ("--batch", getattr(args, "batch", None), None),
                                         ("--x-bounds", getattr(args, "x_bounds", None), None),
                                         ("--y-bounds", getattr(args, "y_bounds", None), None),
                                         ("--candidates", getattr(args, "candidates", None), None)):
                if value != default:
                    raise InputError(f"{flag} does not apply to a curve claim (--claim {str(claim_text).split(':')[0]}:...)")
            if args.neighbour is None:
                raise InputError("--neighbour B.npz is required")
            neighbour = load_npz(args.neighbour, "--neighbour")
            refuse_identical(dataset, neighbour)
            mechanism = load_mechanism(args.target)
            with _mechanism_errors(args.target, _named):
                result = audit_curve(mechanism, dataset, neighbour, curve, samples, rng, confidence=confidence,
                                     statistic=args.statistic, seed_entropy=int(seq.entropy))
        elif one_run:
            mechanism = load_mechanism(args.target)
            with _mechanism_errors(args.target, str):
                result = _run_one_run(args, mechanism, dataset, epsilon, delta, confidence, rng, int(seq.entropy))
        else:
            if args.pairs is None and args.neighbour is None:
                raise InputError("--neighbour B.npz is required (or generate neighbours with --pairs)")
            if args.pairs is not None and args.neighbour is not None:
                raise InputError("--pairs generates the neighbours: do not also give --neighbour")
            if args.canaries is not None:
                raise InputError("--canaries applies only to --estimator one-run")
            if args.pairs is None:
                for flag, value in (("--x-max", args.x_max), ("--y-max", args.y_max), ("--loss", args.loss),
                                    ("--x-bounds", getattr(args, "x_bounds", None)),
                                    ("--y-bounds", getattr(args, "y_bounds", None))):
                    if value is not None:
                        raise InputError(f"{flag} applies only with --pairs (generated neighbours)")
            candidates = None
            if getattr(args, "candidates", None) is not None:
                if args.pairs != "search":
                    raise InputError("--candidates applies only with --pairs search")
                candidates = parse_int(args.candidates, "--candidates")
                if candidates < 1:
                    raise InputError(f"--candidates must be >= 1, got {args.candidates!r}")
            sequential = bool(getattr(args, "sequential", False))
            max_samples = batch = None
            if not sequential:
                for flag, value in (("--max-samples", getattr(args, "max_samples", None)),
                                    ("--batch", getattr(args, "batch", None))):
                    if value is not None:
                        raise InputError(f"{flag} applies only with --sequential")
            else:
                if args.pairs is not None:
                    raise InputError("--sequential audits one pair (--neighbour), not --pairs")
                for flag, value, default in (("--estimator", args.estimator, "threshold"),
                                             ("--event-from-claim", args.event_from_claim, None),
                                             ("--epsilon-true", args.epsilon_true, None),
                                             ("--assume", getattr(args, "assume", None), None)):
                    if value != default:
                        raise InputError(f"{flag} does not apply to --sequential (a threshold audit)")
                max_samples = samples
                if getattr(args, "max_samples", None) is not None:
                    max_samples = parse_runs(args.max_samples, "--max-samples", 4)
                if getattr(args, "batch", None) is not None:
                    batch = parse_runs(args.batch, "--batch", 1)
            neighbour = load_npz(args.neighbour, "--neighbour") if args.pairs is None else None
            search_bounds = None
            if args.pairs == "search":
                search_bounds = _declared_bounds(args)
                if args.loss is not None:
                    raise InputError("--loss applies only with --pairs worst-case, not --pairs search")
                if "X" not in dataset or "y" not in dataset:
                    raise InputError(f"--pairs needs --dataset arrays named X and y, got {sorted(dataset)}")
                pairs = None
            else:
                pairs = _generated_pairs(args, dataset) if args.pairs is not None else None
            mechanism = load_mechanism(args.target)
            runner, executor = runs_executor(args, mechanism, args.target, quiet=args.json)
            claim = PrivacyClaim(
                notion="pure-DP" if delta == 0.0 else "approx-DP",
                epsilon=epsilon,
                delta=delta,
                neighbouring=getattr(args, "claim_neighbouring", "replace-one"),
                source="user-declared",
            )
            estimator = args.estimator
            statistic = args.statistic
            event_from_claim = args.event_from_claim
            # the verdict rests on the Gaussian trade-off only when stated: --assume, or audit_info's declarations
            assume = getattr(args, "assume", None)
            assume_reason = None if assume is None else "stated on the command line (--assume gaussian-tradeoff)"
            if getattr(args, "canary_protocol", "add/remove") != "add/remove":
                raise InputError("--canary-protocol applies only to --estimator one-run")
            if assume is not None and estimator != "gdp":
                raise InputError("--assume gaussian-tradeoff applies only with --estimator gdp")
            if estimator == "auto" and search_bounds is not None:
                estimator, reason = "threshold", "--pairs search tests threshold events (assumption-free)"
            if estimator == "auto":
                info = getattr(mechanism, "audit_info", None)
                if info is not None and not isinstance(info, dict):
                    raise InputError(f"{args.target}.audit_info must be a dict, got {type(info).__name__}")
                choice = estimators.choose_estimator(claim, info)
                estimator, reason = choice["estimator"], choice["reason"]
                assume, assume_reason = choice.get("assume"), choice.get("assume_reason")
                if event_from_claim is None and pairs is None and search_bounds is None:
                    event_from_claim = choice.get("event_from_claim")
            epsilon_true = None
            if args.epsilon_true is not None:
                epsilon_true = parse_float(args.epsilon_true, "--epsilon-true")
                if epsilon_true < 0:
                    raise InputError(f"--epsilon-true must be >= 0, got {args.epsilon_true!r}")
            if estimator == "gdp" and delta == 0.0:
                raise InputError("--estimator gdp needs --delta > 0")
            if args.event_from_claim == "gaussian" and delta == 0.0:
                raise InputError("--event-from-claim gaussian needs --delta > 0")
            if (pairs is not None or search_bounds is not None) and event_from_claim is not None:
                raise InputError("--event-from-claim applies to a single pair (--neighbour), not to --pairs")
            if search_bounds is not None and estimator not in ("threshold", "hockey-stick"):
                raise InputError(f"--pairs search supports --estimator threshold or hockey-stick, not {estimator}")
            pilot = None
            if args.pilot is not None:
                if pairs is None and search_bounds is None:
                    raise InputError("--pilot applies only with --pairs")
                pilot = parse_runs(args.pilot, "--pilot", 2)
            refuse_identical(dataset, neighbour)   # after every option check: those errors come first
            with _mechanism_errors(args.target, _named):
                if sequential:
                    result = sequential_audit(
                        runner, dataset, neighbour, claim, max_samples, rng, confidence=confidence,
                        statistic=statistic, batch=batch, workers=executor,
                    )
                elif search_bounds is not None:
                    search_options = {} if candidates is None else {"max_candidates": candidates}
                    result = pair_search.pair_search_audit(
                        runner, dataset, search_bounds, claim,
                        pilot if pilot is not None else max(2, samples // 10), samples, rng,
                        confidence=confidence, statistic=statistic, estimator=estimator,
                        epsilon_true=epsilon_true, seed_entropy=int(seq.entropy), workers=executor,
                        **search_options,
                    )
                elif pairs is None:
                    result = audit(
                        runner, dataset, neighbour, claim, samples, rng,  # type: ignore[arg-type]
                        confidence=confidence, statistic=statistic, seed_entropy=int(seq.entropy),
                        estimator=estimator, epsilon_true=epsilon_true, event_from_claim=event_from_claim,
                        assume=assume, assume_reason=assume_reason, workers=executor,
                    )
                else:
                    result = estimators.audit_family(
                        runner, pairs, claim, samples, rng, statistics=(statistic,), estimator=estimator,
                        method="select", confidence=confidence, n_pilot=pilot, epsilon_true=epsilon_true,
                        seed_entropy=int(seq.entropy), assume=assume, assume_reason=assume_reason,
                        workers=executor,
                    )
    except InputError as exc:
        return report_errors("audit", exc)
    finally:
        if executor is not None:
            executor.close()
    announce_seed("audit", drawn)
    if args.json:
        for warning in getattr(result, "warnings", None) or []:   # stdout is the record: the warnings go loud to stderr
            get_logger("audit").warning(warning)
        record = result.to_dict()
        record["mechanism"] = args.target
        record["seed"] = seed
        record["seed_drawn"] = drawn.drawn
        if reason is not None:
            record["estimator_choice_reason"] = reason
        print(json.dumps(record))
    else:
        print(result.summary())
        if reason is not None:
            print(f"  estimator chosen by --estimator auto: {reason}")
    return 1 if result.refuted else 0
