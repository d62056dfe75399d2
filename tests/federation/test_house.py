"""House rules read from the source with ast (no module is imported): the project's modules import one another
without a cycle (every import statement, those inside functions too, relative imports resolved), and no function
of the engine or of a services module is longer than 80 lines."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("federation", "public", "ratings", "events", "players", "audit", "outbox", "core")
LONGEST_FUNCTION = 80  # lines, decorators and docstring included: a longer one is split along its steps


def project_modules(root: Path, packages: Iterable[str] = PACKAGES) -> dict[str, Path]:
    """Dotted module name -> file, for every module of ``packages`` (migrations left out)."""
    modules = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def imported_modules(module: str, is_package: bool, tree: ast.AST, known: Iterable[str]) -> set[str]:
    """The project modules ``module`` imports anywhere in ``tree``: each name resolved to the longest known
    module it names (``from ratings.engine import presets`` -> ratings.engine.presets when that is a module,
    else ratings.engine)."""
    known = set(known)
    targets = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")
                parts = parts[: len(parts) - node.level + (1 if is_package else 0)]
                base = ".".join([*parts, base] if base else parts)
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module:
                targets.add(name)
    return targets


def import_graph(root: Path, packages: Iterable[str] = PACKAGES) -> dict[str, set[str]]:
    modules = project_modules(root, packages)
    return {
        module: imported_modules(module, path.name == "__init__.py", ast.parse(path.read_text()), modules)
        for module, path in modules.items()
    }


def import_cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Each group of two or more modules that import one another, directly or through each other (a strongly
    connected component: Tarjan's algorithm, iterative), its modules sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups)


def cycle_edges(group: list[str], graph: Mapping[str, Iterable[str]]) -> list[str]:
    """The imports that close the circle of ``group``: "a -> b" for each import between two of its modules."""
    members = set(group)
    return [f"{module} -> {target}" for module in group for target in sorted(graph[module]) if target in members]


def long_functions(root: Path, packages: Iterable[str] = PACKAGES, limit: int = LONGEST_FUNCTION) -> list[str]:
    """ "path:line name (N lines)" for each function longer than ``limit`` lines in ratings/engine/ or in a
    services module (a path containing "services")."""
    found = []
    for path in project_modules(root, packages).values():
        relative = path.relative_to(root).as_posix()
        if not (relative.startswith("ratings/engine/") or "services" in relative):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > limit:
                    found.append(f"{relative}:{node.lineno} {node.name} ({lines} lines)")
    return sorted(found)


def test_the_project_modules_import_one_another_without_a_cycle():
    graph = import_graph(ROOT)
    cycles = import_cycles(graph)
    named = [f"{', '.join(group)} ({'; '.join(cycle_edges(group, graph))})" for group in cycles]
    assert cycles == [], "modules in an import cycle: " + " | ".join(named)


def test_no_function_of_the_engine_or_of_a_services_module_is_longer_than_80_lines():
    found = long_functions(ROOT)
    assert found == [], f"longer than {LONGEST_FUNCTION} lines: " + "; ".join(found)


# The readers themselves, on small made-up inputs.


def test_a_cycle_is_named_by_its_modules_and_the_imports_that_close_it():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d"}, "x": {"y"}, "y": {"x", "a"}}
    assert import_cycles(graph) == [["a", "b", "c"], ["x", "y"]]
    assert cycle_edges(["a", "b", "c"], graph) == ["a -> b", "b -> c", "c -> a"]


def test_an_acyclic_graph_has_no_cycle():
    assert import_cycles({"x": {"y"}, "y": {"z"}, "z": set(), "w": {"x", "z"}}) == []


def test_imports_are_resolved_relative_inside_functions_and_to_the_module_they_name():
    known = {"app", "app.models", "app.services", "app.engine", "app.engine.rules", "other"}
    tree = ast.parse(
        "from . import models\n"
        "from .engine import rules, helper\n"
        "import other.sub\n"
        "import json\n"
        "def later():\n"
        "    from app.services import write\n"
    )
    assert imported_modules("app.views", False, tree, known) == {
        "app.models",
        "app.engine.rules",
        "app.engine",
        "other",
        "app.services",
    }
    assert imported_modules("app", True, ast.parse("from .engine import rules"), known) == {"app.engine.rules"}


def test_a_function_over_the_limit_is_named_with_its_place_and_length(tmp_path):
    (tmp_path / "app" / "services").mkdir(parents=True)
    (tmp_path / "app" / "views.py").write_text("def long():\n" + "    x = 1\n" * 90)
    body = "def short():\n    return 1\n\n\ndef long():\n" + "    x = 1\n" * 80
    (tmp_path / "app" / "services" / "write.py").write_text(body)
    assert long_functions(tmp_path, ["app"]) == ["app/services/write.py:5 long (81 lines)"]
