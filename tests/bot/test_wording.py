"""Every string the bot can send, read from its source: counts agree with their nouns, turns are called turns,
no doubled brackets, none of the phrasings players tripped over.

The bot's messages are string literals and f-strings in ``bot/``; this test walks their syntax trees (so it sees
every message, sent or raised, including ones no other test reaches) and checks each against the house rules.
The end-to-end tests read the exact messages of each command; this one keeps the rules true of the rest.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parents[2] / "bot"
#: Nouns the bot counts; a count of one of them must go through ``bot.words.plural``.
COUNTED = ("spaces", "moves", "turns", "minutes", "seconds", "hours", "days", "games", "players", "Hongs",
           "buildings", "losses", "pieces", "blocks", "roofs", "frames", "dragons", "requests")
#: What players tripped over (issue 13), and must not read again.
BANNED = {
    "bots don't play": "the bot does play (as the computer)",
    "may accept to": "'anyone may accept to Hong Kong'",
    ") (": "doubled brackets, like 'Computer (hard) (orange)'",
    "spaces left)": "a count of spaces goes through plural()",
}


def messages() -> list[tuple[str, int, ast.AST]]:
    """``(file, line, node)`` for every string literal and f-string in bot/ that is not a docstring."""
    found = []
    for path in sorted(BOT.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)
                      and isinstance(node.body[0].value, ast.Constant)}
        inner = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in node.values}
        for node in ast.walk(tree):
            if id(node) in docstrings or id(node) in inner:
                continue
            if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                found.append((str(path.relative_to(BOT.parent)), node.lineno, node))
    return found


def text_of(node: ast.AST) -> str:
    """The literal text, each formatted value shown as ``{}``."""
    if isinstance(node, ast.Constant):
        return node.value
    return "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)


MESSAGES = messages()


def test_the_scan_sees_the_bots_messages():
    texts = [text_of(node) for _, _, node in MESSAGES]
    assert len(texts) > 300
    for known in ("\n{} — thanks for playing!", "Takeback refused by {user}: {asker} can ask again after their next turn.",
                  "Resignation cancelled: play on."):
        assert known in texts


def test_counts_agree_with_their_nouns():
    """``f"{n} spaces"`` says "1 spaces" for one: a count of a counted noun goes through plural(). A score
    ("12–12 buildings", "11/11 Hongs") is not a count, nor is a name or a title ("{title} games")."""
    wrong = []
    counted = re.compile(r"^ (%s)\b" % "|".join(COUNTED))
    for where, line, node in MESSAGES:
        if not isinstance(node, ast.JoinedStr):
            continue
        parts = node.values
        for i, (value, after) in enumerate(zip(parts, parts[1:])):
            if not (isinstance(value, ast.FormattedValue) and isinstance(after, ast.Constant)
                    and counted.match(after.value)):
                continue
            before = parts[i - 1] if i else None
            score = isinstance(before, ast.Constant) and before.value.rstrip().endswith(("–", "/"))
            label = re.search(r"title|name|shown", ast.unparse(value.value))
            if not (score or label):
                wrong.append(f"{where}:{line}: {text_of(node)!r}")
    assert wrong == []


def test_a_turn_number_is_called_a_turn():
    """The board images say "turn 7"; the messages too (a Hong turn may hold several moves)."""
    wrong = [f"{where}:{line}: {text_of(node)!r}" for where, line, node in MESSAGES
             if re.search(r"\bmove \{\}", text_of(node))]
    assert wrong == []


@pytest.mark.parametrize("phrase", sorted(BANNED))
def test_none_of_the_phrasings_players_tripped_over(phrase):
    wrong = [f"{where}:{line}: {text_of(node)!r}" for where, line, node in MESSAGES if phrase in text_of(node)]
    assert wrong == [], BANNED[phrase]
