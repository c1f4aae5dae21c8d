"""The layout rules of ``../shared/design.md`` and issue 11, checked on the source: arrows point one way
(``bot → engine``, ``bot → render``, ``render → engine``) and no module imports itself back through others,
counting imports inside functions (``if TYPE_CHECKING:`` imports aside)."""

from __future__ import annotations

import ast

import pytest

from tests.sources import MODULES
from tests.sources import type_checking_only as _type_checking_only


def imports_of(name: str) -> set[str]:
    """The project modules ``name`` imports (at any depth of its code), resolved to module names."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(), str(path))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if _type_checking_only(node, parents):
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


GRAPH = {name: imports_of(name) for name in MODULES}


def test_the_packages_are_found():
    assert {
        "bot.interface.client",
        "bot.core.session",
        "bot.core.record",
        "engine.hong",
        "engine.registry",
        "render.hong",
    } <= set(MODULES)


@pytest.mark.parametrize("low, high", [("engine", "render"), ("engine", "bot"), ("render", "bot")])
def test_arrows_point_one_way(low, high):
    wrong = {m: sorted(t for t in ts if t.split(".")[0] == high) for m, ts in GRAPH.items() if m.split(".")[0] == low}
    assert {m: ts for m, ts in wrong.items() if ts} == {}


def test_no_import_cycles():
    """Depth-first search for a back edge; a cycle is reported as the chain of modules."""
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(GRAPH[node]):
            # a package's __init__ importing its own submodules, and a submodule importing a name its package
            # re-exports, are the normal shape of a package, not a cycle between features
            if nxt.startswith(node + ".") or node.startswith(nxt + "."):
                continue
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module)
    assert cycles == []
