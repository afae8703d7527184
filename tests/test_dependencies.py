"""Every third-party module the product imports is installed by `pip install .` alone (issue 54).

`make test` installs the test extras, so a module that only a test tool pulls in (click came through
import-linter) imports fine here and fails on a newcomer's `make run`. This test reads the product's
imports from its source and checks each against the closure of the core dependencies declared in
pyproject.toml, as pip would resolve them without extras. `scripts/check_install.py` (run by
`.ci/run` before `make test`) checks the same thing the slow way, in a fresh venv.
"""
from __future__ import annotations

import ast
import importlib.metadata as md
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("docbot", "bot", "rag", "adapters")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(requirement: str) -> str:
    return _canonical(_NAME.match(requirement.strip()).group(0))  # type: ignore[union-attr]


def _closure(roots: list[str]) -> set[str]:
    """Distributions pip installs for `roots` without extras (markers naming an extra are skipped)."""
    seen: set[str] = set()
    todo = [_requirement_name(r) for r in roots]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = md.requires(name) or []
        except md.PackageNotFoundError:
            continue
        for req in requires:
            spec, _, marker = req.partition(";")
            if "extra" in marker:
                continue
            todo.append(_requirement_name(spec.split("[")[0]))
    return seen


def _optional(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> tuple[bool, bool]:
    """(inside a try that catches ImportError, inside a function): optional and lazy imports."""
    guarded = lazy = False
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.Try) and any(
                isinstance(h.type, ast.Name) and h.type.id in {"ImportError", "ModuleNotFoundError"}
                or isinstance(h.type, ast.Tuple) and any(getattr(e, "id", "") in {"ImportError", "ModuleNotFoundError"}
                                                         for e in h.type.elts)
                for h in node.handlers):
            guarded = True
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            lazy = True
    return guarded, lazy


def _imports() -> list[tuple[str, str, bool, bool]]:
    """(top-level module, file, guarded, lazy) for every absolute import of a product module."""
    found = []
    for package in PRODUCT:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                guarded, lazy = _optional(node, parents)
                for name in names:
                    top = name.split(".")[0]
                    if top not in PRODUCT and top not in sys.stdlib_module_names and top != "__future__":
                        found.append((top, str(path.relative_to(ROOT)), guarded, lazy))
    return found


def test_every_imported_module_is_a_declared_dependency():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = _closure(project["dependencies"])
    # An optional feature's extra may be imported lazily (inside the function that needs it) or under an
    # ImportError guard; the test extra never: nothing the product runs may need a test tool.
    optional = set()
    for extra, requirements in project.get("optional-dependencies", {}).items():
        if extra != "test":
            optional |= _closure(requirements)
    providers = md.packages_distributions()
    missing = []
    for top, where, guarded, lazy in _imports():
        dists = {_canonical(d) for d in providers.get(top, [])}
        if not dists:
            missing.append(f"{top} ({where}): no installed distribution provides it")
        elif not dists & core and not ((guarded or lazy) and dists & optional) and not guarded:
            missing.append(f"{top} ({where}): provided by {sorted(dists)}, not a core dependency of docbot")
    assert not missing, "declare these in pyproject.toml [project] dependencies:\n" + "\n".join(sorted(set(missing)))


def test_the_check_sees_a_module_only_a_test_tool_brings():
    """The closure stops at extras: pytest is installed here (the test extra) but is no core dependency."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = _closure(project["dependencies"])
    assert "pytest" not in core and "import-linter" not in core
    assert "typer" in core and "slack-sdk" in core
