"""The project's own modules as source, for the tests that check its structure on the code (``test_structure``,
``test_layers``): every module of ``bot/``, ``engine/`` and ``render/`` by dotted name, and which imports never run."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "engine", "render")


def module_name(path: Path) -> str:
    """``bot/core/session.py`` → ``bot.core.session`` (a package's ``__init__.py`` → the package)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


#: Dotted name → file, for every module of :data:`PACKAGES`.
MODULES = {module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def type_checking_only(node: ast.AST, parents: dict) -> bool:
    """Whether ``node`` sits under an ``if TYPE_CHECKING:`` (an import there never runs); ``parents`` maps each
    node of the tree to its parent."""
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False
