"""Every string the bot can send, read from its source: counts agree with their nouns (in every language: through
``n_``), turns are called turns, no doubled brackets, none of the phrasings players tripped over — and every
catalog message is written the way translators and :mod:`bot.i18n` need it.

The bot's messages are string literals, f-strings and the templates given to the markers (``_``, ``n_``, ``p_``,
``N_``) in ``bot/``, and the engines' messages for players (``N_``/``n_`` templates in ``engine/``, carried by an
``IllegalMove``); this test walks their syntax trees (so it sees every message, sent or raised, including ones no
other test reaches) and checks each against the house rules. The end-to-end tests read the exact messages of each
command; this one keeps the rules true of the rest.
"""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "bot"
ENGINE = ROOT / "engine"
#: Nouns the bot counts; a count of one of them must go through ``n_`` (the catalog's plural forms).
COUNTED = (
    "spaces",
    "moves",
    "turns",
    "minutes",
    "seconds",
    "hours",
    "days",
    "games",
    "players",
    "Hongs",
    "buildings",
    "losses",
    "pieces",
    "blocks",
    "roofs",
    "frames",
    "dragons",
    "requests",
)
#: What players tripped over (issue 13), and must not read again.
BANNED = {
    "bots don't play": "the bot does play (as the computer)",
    "may accept to": "'anyone may accept to Hong Kong'",
    ") (": "doubled brackets, like 'Computer (hard) (orange)'",
}
#: The markers (bot.i18n and the engines' own N_/n_) and which of their positional arguments are English text.
MARKERS = {"_": (0,), "N_": (0,), "n_": (0, 1), "p_": (1,)}
#: Engine functions whose IllegalMove messages are for authors of board files and callers of new_game/from_dict,
#: not players: they stay English (a file format's errors; options the bot itself passes).
ENGLISH_ONLY = {"parse_board", "_check_lair", "new_game", "from_dict", "_load", "__init__"}


def sources(*folders: Path) -> list[tuple[str, ast.Module]]:
    """``(file, syntax tree)`` of every module in ``folders``."""
    return [
        (str(path.relative_to(ROOT)), ast.parse(path.read_text(encoding="utf-8")))
        for folder in folders
        for path in sorted(folder.rglob("*.py"))
    ]


SOURCES = sources(BOT, ENGINE)


def docstrings(tree: ast.AST) -> set[int]:
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def marker_name(node: ast.AST) -> str | None:
    """The marker a call is (``_``, ``n_``, ``p_``, ``N_``), or None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MARKERS:
        return node.func.id
    return None


def marker_calls(sources: list[tuple[str, ast.Module]]) -> list[tuple[str, int, ast.Call, str, ast.AST | None]]:
    """``(file, line, call, marker, parent)`` for every call of a marker in ``sources`` (``parent``: the call it
    is the first argument of, e.g. ``IllegalMove(N_("…"), square=…)``, else None)."""
    found = []
    for where, tree in sources:
        parents = {id(node.args[0]): node for node in ast.walk(tree) if isinstance(node, ast.Call) and node.args}
        for node in ast.walk(tree):
            name = marker_name(node)
            if name:
                found.append((where, node.lineno, node, name, parents.get(id(node))))
    return found


CALLS = marker_calls(SOURCES)


def templates(call: ast.Call, name: str) -> list[ast.AST]:
    """The arguments of a marker call that are English text (``n_``: singular and plural; ``p_``: not the
    context)."""
    return [call.args[i] for i in MARKERS[name] if i < len(call.args)]


def messages() -> list[tuple[str, int, ast.AST]]:
    """``(file, line, node)`` for every string literal and f-string in bot/ that is not a docstring, and every
    template given to a marker in engine/."""
    found = []
    in_markers = {id(arg) for _, _, call, name, _ in CALLS for arg in templates(call, name)}
    for where, tree in SOURCES:
        skip = docstrings(tree) | {
            id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in node.values
        }
        engine = where.startswith("engine/")
        for node in ast.walk(tree):
            if id(node) in skip or (engine and id(node) not in in_markers):
                continue
            if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                found.append((where, node.lineno, node))
    return found


def text_of(node: ast.AST) -> str:
    """The literal text, each formatted value shown as ``{}``."""
    if isinstance(node, ast.Constant):
        return node.value
    return "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)


MESSAGES = messages()
#: The templates of ``n_`` calls: the one place a counted noun may follow a field.
COUNTED_FORMS = {id(arg) for _, _, call, name, _ in CALLS if name == "n_" for arg in templates(call, name)}


def test_the_scan_sees_the_bots_messages():
    texts = [text_of(node) for _, _, node in MESSAGES]
    assert len(texts) > 300
    for known in (
        "Takeback refused by {user}: {asker} can ask again after their next turn.",
        "Resignation cancelled: play on.",
        "{square} is already taken by {what} — pick an empty space such as {example}.",
        "'{text}' is not a square: give a column letter and a row number, like {example}. Did you mean {near}?",
    ):
        assert known in texts
    assert len(CALLS) > 100


def test_counts_agree_with_their_nouns():
    """``f"{n} spaces"`` or ``_("{n} spaces")`` says "1 spaces" for one: a count of a counted noun goes through
    ``n_`` (each language's plural forms). A score ("12–12 buildings", "11/11 Hongs") is not a count, nor is a name
    or a title ("{title} games")."""
    wrong = []
    counted = re.compile(r"^ (%s)\b" % "|".join(COUNTED))
    field = re.compile(r"(^|.)\{(\w*)[^{}]*\} (%s)\b" % "|".join(COUNTED))
    for where, line, node in MESSAGES:
        if isinstance(node, ast.Constant) and id(node) not in COUNTED_FORMS:
            for m in field.finditer(node.value):
                if m.group(1) not in ("–", "/") and not re.search(r"title|name|shown|game", m.group(2)):
                    wrong.append(f"{where}:{line}: {node.value!r}")
        if not isinstance(node, ast.JoinedStr):
            continue
        parts = node.values
        for i, (value, after) in enumerate(zip(parts, parts[1:])):
            if not (
                isinstance(value, ast.FormattedValue) and isinstance(after, ast.Constant) and counted.match(after.value)
            ):
                continue
            before = parts[i - 1] if i else None
            score = isinstance(before, ast.Constant) and before.value.rstrip().endswith(("–", "/"))
            label = re.search(r"title|name|shown", ast.unparse(value.value))
            if not (score or label):
                wrong.append(f"{where}:{line}: {text_of(node)!r}")
    assert wrong == []


def test_a_turn_number_is_called_a_turn_and_a_move_number_a_move():
    """The board images say "turn 7"; the messages too (a Hong turn may hold several moves). A move's own number —
    its place in the move list, as ``/record`` numbers its lines and the web replay its ``?ply=`` — is "move 12"
    (the analysis, a takeback request: issue 32), always as the field ``number`` (or ``first``–``last``), never a
    turn's field."""
    wrong = [
        f"{where}:{line}: {text_of(node)!r}"
        for where, line, node in MESSAGES
        for field in re.findall(r"\bmoves? \{(\w*)\}", text_of(node))
        if field not in ("number", "first")
    ]
    assert wrong == []


@pytest.mark.parametrize("phrase", sorted(BANNED))
def test_none_of_the_phrasings_players_tripped_over(phrase):
    wrong = [f"{where}:{line}: {text_of(node)!r}" for where, line, node in MESSAGES if phrase in text_of(node)]
    assert wrong == [], BANNED[phrase]


def not_literal(calls) -> list[str]:
    """Marker calls whose template is not one literal (see the test below)."""
    wrong = []
    for where, line, call, name, _parent in calls:
        for arg in templates(call, name):
            literal = isinstance(arg, ast.Constant) and isinstance(arg.value, str)
            constant = isinstance(arg, (ast.Name, ast.Attribute, ast.Subscript)) and name != "N_"
            if not (literal or constant):
                wrong.append(f"{where}:{line}: {name}({ast.unparse(arg)[:80]})")
    return wrong


def test_a_catalog_message_is_one_literal_template():
    """A translator sees the template the marker is given: never an f-string (the values would be baked into the
    message id, which then matches no catalog entry), a ``+`` or ``%`` of pieces, or a ``.format``-ed text. A name,
    attribute or item is allowed (translating a constant marked with ``N_`` elsewhere); ``N_`` itself marks a
    literal."""
    assert not_literal(CALLS) == []


def unnamed(calls) -> list[str]:
    """Templates with a positional field or unpaired braces (see the test below)."""
    wrong = []
    for where, line, call, name, _parent in calls:
        for arg in templates(call, name):
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                continue
            try:
                fields = [f for _text, f, _spec, _conv in string.Formatter().parse(arg.value) if f is not None]
            except ValueError as e:
                wrong.append(f"{where}:{line}: {arg.value!r}: {e}")
                continue
            if any(not f or f[0].isdigit() for f in fields):
                wrong.append(f"{where}:{line}: {arg.value!r}")
    return wrong


def test_fields_are_named():
    """``{}`` and ``{0}`` can't be reordered by a translator: every field of a template has a name."""
    assert unnamed(CALLS) == []


def keywords(call: ast.Call) -> set[str] | None:
    """The keyword arguments' names, or None when a ``**mapping`` makes them unknowable."""
    if any(k.arg is None for k in call.keywords):
        return None
    return {k.arg for k in call.keywords}


def fields_of(args: list[ast.AST]) -> set[str] | None:
    """The named fields of the literal templates in ``args`` (``{a.b}`` → ``a``); None if one is no literal or
    not a valid template (the tests above report those)."""
    out = set()
    for arg in args:
        if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
            return None
        try:
            out |= {
                f.split(".")[0].split("[")[0] for _t, f, _s, _c in string.Formatter().parse(arg.value) if f is not None
            }
        except ValueError:
            return None
    return out


def mismatched(calls) -> list[str]:
    """Templates whose fields are not the keywords given with them (see the test below)."""
    wrong = []
    for where, line, call, name, parent in calls:
        given = keywords(call)
        if name == "N_" and not call.keywords:
            if parent is None or not isinstance(parent.func, ast.Name) or parent.func.id != "IllegalMove":
                continue
            given = keywords(parent)
        args = templates(call, name)
        used = fields_of(args)
        if given is None or used is None:
            continue
        fills = given | {"count"} if name == "n_" else given  # n_ fills {count} itself
        for arg in args:  # each form: every field filled (an n_ singular may leave out one its plural uses)
            missing = fields_of([arg]) - fills
            if missing:
                wrong.append(f"{where}:{line}: {arg.value[:60]!r}: no keyword for {sorted(missing)}")
        if given - used:
            wrong.append(f"{where}:{line}: {args[0].value[:60]!r}: unused {sorted(given - used)}")
    return wrong


def test_a_templates_fields_are_the_keywords_it_is_given():
    """A typo'd field (``_("{nmae} wins", name=n)``) fails here, in English, before any translator sees it: the
    fields of every template are exactly the keywords passed with it — to the marker, or to the call it is the
    first argument of (``IllegalMove(N_("{square} is taken"), square=s)``). ``n_`` fills ``{count}`` itself. An
    ``N_`` without keywords marks a constant filled where it is shown, which this can't follow."""
    assert mismatched(CALLS) == []


BAD = """
_(f"{name} wins")
_("{name} wins with " + str(n))
N_(TEMPLATE)
_("{} wins", name=n)
_("{0} wins", name=n)
_("{name wins", name=n)
_("{nmae} wins", name=n)
_("{name} wins", name=n, by=b)
n_("{count} Hong", "{count} Hongs", n, hongs=h)
raise IllegalMove(N_("{square} is taken"), sqaure=s)
"""
GOOD = """
_("{name} wins", name=n)
_(FALLBACK)
n_("{count} Hong", "{count} Hongs", n)
n_("one Hong", "{count} Hongs", n)
p_("button", "Resign")
raise IllegalMove(N_("{square} is taken"), square=s)
Obstacle(N_("I no longer have {permissions}"), thread=True)
"""


def test_the_checks_catch_each_kind_of_bad_template():
    def lines(errors: list[str]) -> list[int]:
        return sorted({int(e.split(": ")[0].split(":")[1]) for e in errors})

    bad = marker_calls([("bad.py", ast.parse(BAD))])
    assert lines(not_literal(bad)) == [2, 3, 4]
    assert lines(unnamed(bad)) == [5, 6, 7]
    assert lines(mismatched(bad)) == [5, 6, 8, 9, 10, 11]  # {} and {0} have no keyword either
    good = marker_calls([("good.py", ast.parse(GOOD))])
    assert not_literal(good) == unnamed(good) == mismatched(good) == []


def test_the_engines_refusals_are_catalog_messages():
    """Every ``IllegalMove`` an engine raises for a player carries a marked template (``N_``/``n_``, a constant
    made of one, or a method that builds one), so the bot can say it in the player's language. Only the errors
    meant for board-file authors and for the bot's own options stay plain English (:data:`ENGLISH_ONLY`)."""
    wrong = []
    for where, tree in SOURCES:
        if not where.startswith("engine/"):
            continue
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.name in ENGLISH_ONLY:
                continue
            for node in ast.walk(function):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id == "IllegalMove"
                    and node.args
                    and isinstance(node.args[0], (ast.Constant, ast.JoinedStr, ast.BinOp))
                ):
                    wrong.append(f"{where}:{node.lineno} ({function.name}): {ast.unparse(node.args[0])[:70]}")
    assert wrong == []


def test_a_seats_role_reaches_a_message_translated():
    """``GameKind.roles`` are the English names (catalog markers): a message takes ``kind.role(seat)``, the name in
    the current language. Indexing ``roles`` anywhere but ``kind.role`` put "blue" into German boards; the only other
    use is the English move record (``record_text(roles=kind.roles)``)."""
    found = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"\.roles\[", line) and path.name != "kinds.py":
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []
