"""The house rules of the package layout, read from the source (deterministic; no sampling).

* Imports run one way: cli → campaign → papers → mutants → auditing | checks → oracles → reference, and
  inside ``reference`` from a paper's subpackage to the shared modules, never between papers.
* No import cycles between modules (imports inside functions included), and no module uses another
  module's private names (``from m import _x`` or ``m._x``).
* pyproject.toml installs exactly the ``dpsco`` packages (nothing generic at top level), one per folder
  that holds an ``__init__.py``.
* Code and docs cite the papers and the project's own files, never working notes outside the repository.
* No package module over 600 lines; no test or benchmark over about 600 unless its opening text says why it is
  one cohesive thing.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("reference", "oracles", "verification")

# rank of each layer: a module may import its own layer's modules or any lower rank
LAYERS = {
    "reference": 0,
    "oracles": 1,
    "verification.executors": 1,  # where tasks run (serial, process pool, Dask): used by auditing and campaign
    "verification.progress": 1,
    "verification.auditing": 2,
    "verification.checks": 2,
    "verification.mutants": 3,
    "verification.papers": 4,
    "verification.campaign": 5,
    "verification.cli": 6,
}
REFERENCE_PAPERS = ("accd22", "alt24", "bftt19", "lr21", "muabg23")  # reference subpackages, one per paper (more to come)


def _module_files() -> dict[str, Path]:
    """dotted name (under dpsco) -> file, for every module of the three packages."""
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out["dpsco." + ".".join(parts)] = path
    return out


MODULES = _module_files()


def _imports(name: str, path: Path) -> list[tuple[str, str | None, int]]:
    """(imported dpsco module, imported attribute or None, line) for every import statement of the file,
    inside functions too; relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_pkg = path.name == "__init__.py"
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, None, node.lineno) for a in node.names if a.name.split(".")[0] == "dpsco"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] != "dpsco":
                continue
            for a in node.names:
                child = f"{module}.{a.name}"
                if child in MODULES:  # "from package import module"
                    out.append((child, None, node.lineno))
                else:
                    out.append((module, a.name, node.lineno))
    return out


def _layer(module: str) -> str | None:
    rest = module.removeprefix("dpsco.")
    for layer in sorted(LAYERS, key=len, reverse=True):
        if rest == layer or rest.startswith(layer + "."):
            return layer
    return None


def _paper(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) >= 3 and parts[1] == "reference" and parts[2] in REFERENCE_PAPERS:
        return parts[2]
    return None


def test_every_module_is_in_a_layer() -> None:
    assert MODULES, "no modules found"
    for name in MODULES:
        assert name in ("dpsco.verification",) or _layer(name) is not None, f"{name} belongs to no layer"


def test_imports_run_one_way() -> None:
    bad = []
    for name, path in MODULES.items():
        me = _layer(name)
        for target, _, line in _imports(name, path):
            if target == "dpsco":
                bad.append(f"{path.relative_to(ROOT)}:{line} imports the top-level API (dpsco)")
                continue
            other = _layer(target)
            if me is None or other is None:
                if target not in ("dpsco.verification",) and name != "dpsco.verification":
                    bad.append(f"{path.relative_to(ROOT)}:{line} imports {target}, which belongs to no layer")
                continue
            if LAYERS[other] > LAYERS[me] or (LAYERS[other] == LAYERS[me] and other != me):
                bad.append(f"{path.relative_to(ROOT)}:{line}: {me} imports {target} ({other})")
            mine, theirs = _paper(name), _paper(target)
            if me == "reference" and theirs is not None and mine != theirs:
                bad.append(f"{path.relative_to(ROOT)}:{line}: {name} imports the paper package {target}"
                           + (" (the shared modules never import a paper)" if mine is None else " (papers are "
                              "independent of each other)"))
    assert not bad, "imports against the layering:\n" + "\n".join(bad)


def test_no_import_cycles() -> None:
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for name, path in MODULES.items():
        for target, _, _ in _imports(name, path):
            if target in graph and target != name:
                graph[name].add(target)
    # Tarjan's strongly connected components
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not cycles, f"import cycles: {cycles}"


def test_no_private_names_of_other_modules() -> None:
    bad = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = set()
        for target, attribute, line in _imports(name, path):
            if attribute is not None and attribute.startswith("_") and not attribute.startswith("__"):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {target}.{attribute}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                aliases |= {a.asname for a in node.names if a.asname and a.name.startswith("dpsco.")}
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("dpsco"):
                aliases |= {a.asname or a.name for a in node.names if f"{node.module}.{a.name}" in MODULES}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno} uses {node.value.id}.{node.attr}")
    assert not bad, "private names of other modules:\n" + "\n".join(bad)


def test_pyproject_installs_only_dpsco_packages() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert config["package-dir"] == {"dpsco": "."}
    listed = set(config["packages"])
    assert all(p == "dpsco" or p.startswith("dpsco.") for p in listed)
    folders = {"dpsco"} | {"dpsco." + ".".join(p.parent.relative_to(ROOT).parts)
                           for pkg in PACKAGES for p in (ROOT / pkg).rglob("__init__.py")}
    assert listed == folders, f"listed but no folder: {listed - folders}; folder not listed: {folders - listed}"
    # every folder holding Python modules is a regular package (no accidental namespace packages)
    for pkg in PACKAGES:
        for folder in [ROOT / pkg, *[p for p in (ROOT / pkg).rglob("*") if p.is_dir()]]:
            if folder.name == "__pycache__":
                continue
            if any(folder.glob("*.py")):
                assert (folder / "__init__.py").exists(), f"{folder.relative_to(ROOT)} has no __init__.py"


def test_generic_names_are_not_importable_outside_the_checkout(tmp_path: Path) -> None:
    # -P keeps the current directory (a temporary folder) off sys.path: only the installed package is seen
    code = ("import importlib.util as u, dpsco, dpsco.reference, dpsco.verification.cli.main;"
            "print([n for n in ('reference', 'oracles', 'verification') if u.find_spec(n) is not None])")
    out = subprocess.run([sys.executable, "-P", "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_public_api() -> None:
    import dpsco

    assert sorted(dpsco.__all__) == dpsco.__all__
    for name in dpsco.__all__:
        assert getattr(dpsco, name) is not None, name
    assert dpsco.Release.__module__ == "dpsco.reference.privacy"
    assert callable(dpsco.bftt19.noisy_sgd) and callable(dpsco.lr21.algorithm_1)
    with pytest.raises(AttributeError):
        dpsco.no_such_name  # noqa: B018


# Citations of documents users do not have (built from pieces so that this file does not match itself).
_FORBIDDEN = re.compile("|".join([
    r"(?i:\bspecs?\b[\w\s-]{0,30}§)", r"(?i:\bspecs?\s+(?:[A-Z]{1,3}-?)?[A-Z]?\d)", r"(?i:\bengineering spec)",
    r"\bspecs?/", r"\bseeds?/\d", r"\bseeds/",
    "DESIGN" + r"\.md", r"\bDESIGN\b", "prior" + r"-art", r"\bpitfall\s+[A-Z]*\d", r"\.\./shared",
]))


def _tracked_text_files() -> list[Path]:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [ROOT / f for f in files if f.endswith((".py", ".md", ".toml", ".cff", ".txt", ".cfg"))
            and f != "tests/test_layout.py" and (ROOT / f).exists()]


def test_no_citations_of_documents_outside_the_repository() -> None:
    bad = []
    for path in _tracked_text_files():
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = _FORBIDDEN.search(line)
            if m:
                bad.append(f"{path.relative_to(ROOT)}:{i}: {m.group(0)!r}")
    assert not bad, f"{len(bad)} citations of documents users do not have:\n" + "\n".join(bad[:80])


LONG_FILE_LINES = 650  # "about 600", for tests and benchmarks (their opening text must say why)
_LONG_FILE_REASON = re.compile(r"one cohesive", re.IGNORECASE)
#: no module of the package is longer than this (issue 26: split by topic instead)
MODULE_LINES = 600


def test_no_package_module_over_600_lines() -> None:
    bad = [f"{p.relative_to(ROOT)}: {n} lines" for name, p in MODULES.items()
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > MODULE_LINES]
    assert not bad, f"package modules over {MODULE_LINES} lines (split them by topic):\n" + "\n".join(bad)


def test_no_long_files_without_a_reason() -> None:
    bad = []
    for path in _tracked_text_files():
        if path.suffix != ".py":
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        if len(lines) > LONG_FILE_LINES and not _LONG_FILE_REASON.search("\n".join(lines[:40])):
            bad.append(f"{path.relative_to(ROOT)}: {len(lines)} lines")
    assert not bad, ("files over about 600 lines whose opening text does not say why they are one cohesive "
                     "thing:\n" + "\n".join(bad))


def test_docs_layout_names_every_package() -> None:
    layout = (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")
    for init in sorted(ROOT.glob("*/**/__init__.py")):
        folder = init.parent.relative_to(ROOT).as_posix()
        if folder.split("/")[0] in PACKAGES:
            assert folder.split("/")[-1] + "/" in layout, f"docs/layout.md does not show {folder}/"


def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_derivation_cited_exists() -> None:
    text = (ROOT / "docs" / "derivations.md").read_text(encoding="utf-8")
    anchors = {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)}
    cited = {}
    for path in _tracked_text_files() + [ROOT / "tests" / "test_layout.py"]:
        for anchor in re.findall(r"derivations\.md#([\w-]+)", path.read_text(encoding="utf-8")):
            cited.setdefault(anchor, path.relative_to(ROOT).as_posix())
        if path.name == "derivations.md":
            for anchor in re.findall(r"\]\(#([\w-]+)\)", path.read_text(encoding="utf-8")):
                cited.setdefault(anchor, "docs/derivations.md")
    missing = {a: where for a, where in cited.items() if a not in anchors}
    assert cited and not missing, f"cited sections missing from docs/derivations.md: {missing}"


# ---- one copy of each privacy conversion (issue 26) ---------------------------------------------------------
#: the public conversion names that used to be copies, by module: each must be the core object of
#: reference/conversions.py or a function whose body calls ``conversions.<core>`` (a wrapper fixing an argument)
CONVERSION_NAMES = {
    "dpsco.reference.alt24.theorems": ("zcdp_to_dp", "dp_to_zcdp"),
    "dpsco.reference.alt24.algorithms_clipped_sgd": ("zcdp_epsilon",),
    "dpsco.reference.muabg23.ledger": ("zcdp_to_gdp_mu", "gdp_mu_to_zcdp", "zcdp_epsilon", "zcdp_rho_for_epsilon",
                                       "gdp_delta", "gdp_epsilon"),
    "dpsco.reference.muabg23.theorems": ("epsilon_from_zcdp", "zcdp_from_epsilon", "pure_dp_to_zcdp"),
    "dpsco.reference.noise": ("gaussian_log_delta",),
    "dpsco.oracles.mechanism_curves": ("gaussian_delta", "gaussian_epsilon", "gaussian_log_delta",
                                       "gdp_epsilon_to_delta", "gdp_mu_to_epsilon"),
    "dpsco.verification.auditing.gdp": ("gdp_epsilon_from_mu",),
    "dpsco.verification.auditing.curves": ("rdp_delta", "zcdp_delta"),
    "dpsco.verification.papers.accd22.privacy": ("gaussian_epsilon",),
}
#: ρ + 2√(ρ log(1/δ)) written out, and the μ-GDP curve's log Φ(−ε/μ + μ/2) term
CONVERSION_FORMULAS = (
    re.compile(r"2(\.0)?\s*\*\s*(math\.|np\.)?sqrt\(\s*\w+\s*\*\s*(-\s*)?(math\.|np\.)?(log\(|_log_inv\()"),
    re.compile(r"(log_ndtr|logcdf)\(\s*-\s*\w+\s*/\s*\w+\s*\+\s*\w+\s*/\s*2"),
    re.compile(r"(log_ndtr|logcdf)\(\s*\w+\s*/\s*2(\.0)?\s*-\s*\w+\s*/\s*\w+\s*\)"),
)
#: files still holding a copy, each with the reason it is not (yet) the core's; a stale entry fails the test
CONVERSION_COPIES_ALLOWED = {
    # the hockey-stick divergence of N(μ, 1) vs N(0, 1) at any real argument (e < 0 inside products with a discrete
    # factor): not the (ε ≥ 0) privacy conversion the core holds
    "verification/papers/muabg23/noise.py": "real-argument Gaussian hockey stick (product with randomised response)",
    "verification/papers/alt24/harness_svt.py": "real-argument Gaussian hockey stick (shifted by a discrete factor)",
}


def test_one_copy_of_each_privacy_conversion() -> None:
    import importlib

    from dpsco.reference import conversions

    core = {id(getattr(conversions, n)) for n in conversions.__all__}
    for module, names in CONVERSION_NAMES.items():
        mod = importlib.import_module(module)
        tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
        defs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        for name in names:
            obj = getattr(mod, name)
            if id(obj) in core:
                continue
            assert name in defs, f"{module}.{name} is neither a core conversion nor a function defined there"
            calls = {f"{c.func.value.id}.{c.func.attr}" for c in ast.walk(defs[name]) if isinstance(c, ast.Call)
                     and isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name)}
            assert any(c.startswith("conversions.") for c in calls), \
                f"{module}.{name} does not call dpsco.reference.conversions: a copy of a conversion"
    found = set()
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel == "reference/conversions.py":
                continue
            text = path.read_text(encoding="utf-8")
            if any(p.search(text) for p in CONVERSION_FORMULAS):
                found.add(rel)
    assert found <= set(CONVERSION_COPIES_ALLOWED), \
        f"a privacy conversion written out outside reference/conversions.py: {sorted(found - set(CONVERSION_COPIES_ALLOWED))}"
    assert set(CONVERSION_COPIES_ALLOWED) <= found, \
        f"stale allowance (the copy is gone; drop it): {sorted(set(CONVERSION_COPIES_ALLOWED) - found)}"


# -- the same rooms for every paper (issue 26) ------------------------------------------------------------------
ROOMS = {  # layer folder -> the modules every paper's room holds there (glob patterns; None: the folder only)
    "reference": ("algorithms*.py", "theorems.py"),
    "verification/papers": ("catalogue.py",),
    "verification/mutants": ("corpus.py", "catches.py"),  # its planted bugs, their corpus rows, their registry rows
    "tests": None,
}


def _papers() -> tuple[str, ...]:
    tree = ast.parse((ROOT / "verification" / "papers" / "catalogue.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "PAPERS":
            return tuple(ast.literal_eval(node.value))
    raise AssertionError("verification/papers/catalogue.py declares no PAPERS")


def test_every_paper_has_the_same_rooms() -> None:
    papers = _papers()
    assert papers == REFERENCE_PAPERS or set(papers) == set(REFERENCE_PAPERS), (papers, REFERENCE_PAPERS)
    for paper in papers:
        for folder, patterns in ROOMS.items():
            room = ROOT / folder / paper
            assert room.is_dir() and any(room.glob("*.py")), f"{paper} has no room {folder}/{paper}/"
            for pattern in patterns or ():
                assert list(room.glob(pattern)), f"{folder}/{paper}/ has no {pattern}"


def test_no_paper_module_outside_its_room() -> None:
    """A module named after a paper (``alt24.py``, ``alt24_svt.py``, ``test_alt24_x.py``) lives in that paper's room,
    never in a shared folder; a shared folder's modules serve two or more papers."""
    papers = _papers()
    shared = [ROOT / "oracles", ROOT / "verification" / "papers", ROOT / "verification" / "mutants",
              ROOT / "verification" / "campaign", ROOT / "reference", ROOT / "tests"]
    bad = []
    for folder in shared:
        for path in folder.glob("*.py"):
            stem = path.stem.removeprefix("test_")
            if any(stem == p or stem.startswith(p + "_") for p in papers):
                bad.append(str(path.relative_to(ROOT)))
    assert not bad, f"paper modules outside their rooms: {bad}"


def test_rooms_do_not_import_each_other() -> None:
    """A paper's room imports shared modules and its own room, never another paper's room (shared code is what two
    or more papers use, and lives outside the rooms)."""
    papers = _papers()
    bad = []
    for name, path in MODULES.items():
        parts = name.split(".")
        mine = next((p for p in papers if p in parts[1:4]), None)
        if mine is None:
            continue
        for target, _attr, line in _imports(name, path):
            tparts = target.split(".")
            other = next((p for p in papers if p in tparts[1:4]), None)
            if other is not None and other != mine:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not bad, "rooms importing another paper's room:\n" + "\n".join(bad)


# -- one copy of each projection (issue 26) ---------------------------------------------------------------------
#: an inline ball projection x·min(1, r/‖x‖) (or its np.minimum form) written out
PROJECTION_FORMULA = re.compile(r"(np\.)?minimum\(1(\.0)?, *[\w.]+ */ *np\.where\(")
#: planted bugs that mirror an old inline copy on purpose (verification/mutants is not production code)
PROJECTION_COPIES_ALLOWED = ("verification/mutants/bftt19/bugs.py", "verification/mutants/muabg23/proximal.py",
                             "reference/problem.py")  # problem.clip_to_bounds: data clipping, row by row


#: the planted independent implementations of issue 27 (verification/mutants/P/implementations.py) are written from
#: the papers and must NOT share code with reference/ — their own projection is the point, not a duplicate
INDEPENDENT_IMPLEMENTATION = re.compile(r"verification/mutants/\w+/implementations\.py")


def test_one_copy_of_each_projection() -> None:
    """Ball and two-ball projections live in dpsco.reference.projections only: no module defines another
    ``project_ball`` / ``project_ball_intersection`` / ``_project_two_spheres`` that does not call the core, and no
    module writes the inline formula x·min(1, r/‖x‖) out (planted bugs excepted, listed)."""
    names = {"project_ball", "project_ball_intersection", "_project_ball", "_project_two_spheres", "_project",
             "_project_rows", "project_v"}
    bad, found = [], set()
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel == "reference/projections.py" or INDEPENDENT_IMPLEMENTATION.fullmatch(rel):
                continue
            text = path.read_text(encoding="utf-8")
            if PROJECTION_FORMULA.search(text):
                found.add(rel)
                if rel not in PROJECTION_COPIES_ALLOWED:
                    bad.append(f"{rel}: an inline projection/clipping formula")
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.FunctionDef) and node.name in names:
                    called = {getattr(c.func, "attr", getattr(c.func, "id", "")) for c in ast.walk(node)
                              if isinstance(c, ast.Call)}
                    if not called & {"project_ball", "project_ball_intersection"}:
                        bad.append(f"{rel}:{node.lineno} {node.name} does not call dpsco.reference.projections")
    assert not bad, "a projection copy outside reference/projections.py:\n" + "\n".join(bad)
    assert set(PROJECTION_COPIES_ALLOWED) <= found, \
        f"stale allowance (the copy is gone; drop it): {sorted(set(PROJECTION_COPIES_ALLOWED) - found)}"


# -- one Ball type and one Loss protocol (issue 26) ------------------------------------------------------------------
#: classes named *Loss that are not losses, each with the reason; a stale entry fails the test
NOT_LOSSES = {
    # Theorem 8's κ-growth SCO instance T5 (records sampler, population risk, constants), named after its loss
    "dpsco.oracles.accd22.interpolation_instances.InterpolatingPowerLoss": "an SCO instance, not a loss",
}


def _classes(pattern: str) -> dict[str, tuple[str, str]]:
    """qualified name -> (module, class) of every top-level class of reference/ and oracles/ matching ``pattern``."""
    out = {}
    for name, path in MODULES.items():
        if not name.startswith(("dpsco.reference", "dpsco.oracles")):
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and re.search(pattern, node.name):
                out[f"{name}.{node.name}"] = (name, node.name)
    return out


def test_one_ball_type() -> None:
    """The domain W is dpsco.reference.domains.Ball everywhere: no other class named *Ball* or *Domain (accd22's
    BallDomain is gone; the oracles' private _BallInstance is an instance base, not a domain)."""
    others = {q for q in _classes(r"Ball|Domain$") if q != "dpsco.reference.domains.Ball"}
    assert others == {"dpsco.oracles.accd22.interpolation_instances._BallInstance"}, sorted(others)


def test_every_loss_class_implements_the_loss_protocol() -> None:
    """Every class named *Loss in reference/ and oracles/ has the protocol's ``values``/``grads``
    (dpsco.reference.loss.Loss; a structural check on the class, whose constructors need arguments —
    tests/test_loss_protocol.py constructs each one and checks isinstance and the numbers)."""
    import importlib

    from dpsco.reference.loss import Loss, is_loss

    found = _classes(r"Loss$")
    bad = [q for q, (mod, cls) in found.items() if q not in NOT_LOSSES and not (
        is_loss(getattr(importlib.import_module(mod), cls)) and issubclass(getattr(importlib.import_module(mod), cls),
                                                                           Loss))]
    assert len(found) >= 20 and not bad, f"*Loss classes without values(w, data)/grads(w, data): {bad}"
    assert set(NOT_LOSSES) <= set(found), f"stale NOT_LOSSES entries: {sorted(set(NOT_LOSSES) - set(found))}"


def test_one_test_naming_scheme_in_the_rooms() -> None:
    """tests/<paper>/ holds test_<paper>_<topic>.py only (one scheme for every paper)."""
    bad = [str(p.relative_to(ROOT)) for paper in _papers() for p in (ROOT / "tests" / paper).glob("*.py")
           if not p.name.startswith(f"test_{paper}_")]
    assert not bad, f"test files outside the naming scheme test_<paper>_<topic>.py: {bad}"


# -- one-paper modules live in their paper's room (issue 26) ------------------------------------------------------
#: the shared folders: a module directly in one of them must serve two or more papers
SHARED_FOLDERS = ("reference", "oracles", "verification/campaign", "verification/checks", "verification/auditing",
                  "verification/cli", "verification/mutants")
#: shared modules that import exactly one paper's room and serve only that room, kept in a shared folder on purpose
#: (each with its reason; drop a line when the module moves or gains a second paper)
#: None are needed today: compare_variants.py, which issue 26 named beside calibration_table.py, is now
#: verification/mutants/bftt19/implementations.py (it imports no room either: it is written independently of
#: dpsco.reference.bftt19 on purpose); campaign/compare_detection.py imports bftt19's room but serves every paper's
#: implementations (its harness_detection) and benchmarks/compare_detection.py.
ONE_PAPER_SHARED_ALLOWED: set[str] = set()


def _room_of(parts: tuple[str, ...], papers: tuple[str, ...]) -> str | None:
    """The paper whose room holds a module or test with these path parts (a folder named after the paper), or None
    for a shared one."""
    return next((p for p in papers if p in parts[:-1]), None)


def test_one_paper_modules_live_in_their_room() -> None:
    """A module of a shared folder (reference/, oracles/, verification/{campaign,checks,auditing,cli,mutants}/) that
    imports from exactly one paper's room and is imported only from that room (its code or tests/<paper>/) belongs
    in the room; the allowed exceptions are listed, with their reasons, in ONE_PAPER_SHARED_ALLOWED."""
    papers = _papers()
    users: dict[str, set[str | None]] = {}  # shared module -> the rooms (None: shared) of the files importing it
    files = {name: path for name, path in MODULES.items()}
    files.update({f"tests:{p.relative_to(ROOT)}": p for p in sorted((ROOT / "tests").rglob("*.py"))})
    files.update({f"benchmarks:{p.relative_to(ROOT)}": p for p in sorted((ROOT / "benchmarks").rglob("*.py"))})
    for name, path in files.items():
        room = _room_of(path.relative_to(ROOT).parts, papers)
        for target, _attr, _line in _imports(name if name.startswith("dpsco.") else "dpsco.tests.x", path):
            users.setdefault(target, set()).add(room)
    bad, seen = [], set()
    for folder in SHARED_FOLDERS:
        for path in sorted((ROOT / folder).glob("*.py")):
            if path.name == "__init__.py":
                continue
            rel = path.relative_to(ROOT).as_posix()
            name = "dpsco." + ".".join(path.relative_to(ROOT).with_suffix("").parts)
            rooms = {_room_of(tuple(t.split(".")) + ("x",), papers) for t, _a, _l in _imports(name, path)} - {None}
            if len(rooms) != 1:
                continue
            (room,) = rooms
            if users.get(name, set()) <= {room}:
                seen.add(rel)
                if rel not in ONE_PAPER_SHARED_ALLOWED:
                    bad.append(f"{rel}: imports only {room}'s room and only {room} uses it")
    assert not bad, "one-paper modules in a shared folder (move them into the room):\n" + "\n".join(bad)
    assert ONE_PAPER_SHARED_ALLOWED <= seen, f"stale allowance: {sorted(ONE_PAPER_SHARED_ALLOWED - seen)}"
