"""The emulator stands alone: neither its modules nor its tests import the bot, the engine, the renderer or any
other part of the test suite — only the standard library, its third-party dependencies and itself."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent.parent  # tests/emulator
OURS = ("bot", "engine", "render", "tests")


def imports(path: Path) -> list[str]:
    """The absolute module names ``path`` imports (relative imports stay inside the emulator by construction)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.append(node.module)
    return names


FILES = sorted(HERE.rglob("*.py"))


def test_the_emulator_and_its_tests_are_found():
    names = {str(p.relative_to(HERE)) for p in FILES}
    assert {"__init__.py", "server.py", "gateway.py", "rest.py", "spec.py", "tests/test_server.py"} <= names


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(HERE)))
def test_imports_nothing_of_the_project_but_itself(path):
    wrong = [
        name
        for name in imports(path)
        if name.split(".")[0] in OURS and not (name == "tests.emulator" or name.startswith("tests.emulator."))
    ]
    assert wrong == []
