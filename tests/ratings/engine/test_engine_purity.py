"""House rule 1: the engine is pure (stdlib + NumPy + SciPy) and never imports Django."""

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
ENGINE = ROOT / "ratings" / "engine"
ALLOWED_THIRD_PARTY = {"numpy", "scipy"}


def _imported_modules(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
            "import_module",
            "__import__",
        ):
            found.append((node.lineno, "<dynamic import>"))
    return found


def test_engine_sources_import_only_stdlib_numpy_scipy_and_the_engine():
    sources = sorted(ENGINE.rglob("*.py"))
    assert sources, "no engine sources found"
    problems = []
    for path in sources:
        for line, module in _imported_modules(path):
            top = module.split(".")[0]
            allowed = (
                top in sys.stdlib_module_names
                or top in ALLOWED_THIRD_PARTY
                or module == "ratings.engine"
                or module.startswith("ratings.engine.")
            )
            if not allowed or top == "django":
                problems.append(f"{path.relative_to(ROOT)}:{line}: imports {module}")
    assert problems == []


def test_engine_imports_with_django_blocked_in_a_fresh_interpreter():
    script = textwrap.dedent("""
        import importlib, pkgutil, sys

        class BlockDjango:
            def find_spec(self, name, path=None, target=None):
                if name == "django" or name.startswith("django."):
                    raise ImportError(f"django import blocked: {name}")
                return None

        sys.meta_path.insert(0, BlockDjango())
        import ratings.engine as engine
        names = [m.name for m in pkgutil.walk_packages(engine.__path__, "ratings.engine.")]
        for name in names:
            importlib.import_module(name)
        assert not any(m == "django" or m.startswith("django.") for m in sys.modules), "django was imported"
        print(len(names))
    """)
    completed = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )
    assert completed.returncode == 0, completed.stderr
    assert int(completed.stdout.strip()) >= 10
