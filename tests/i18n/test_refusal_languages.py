"""Refusals in the caller's language: an engine's IllegalMove (its English template and the words inside it
translated), a UserError built in the caller's language, the bot's own notes; English exactly as before.

A small German catalog is written to a temporary folder and :data:`bot.i18n.LOCALES` pointed at it."""

from __future__ import annotations

import pickle

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po
from discord import app_commands

import engine.hong as hong
import engine.hongkong as hk
from bot import i18n
from bot.core.errors import UserError
from bot.i18n import _
from bot.interface.replies import apology, refusal
from bot.i18n.wording import describe_duration, translate
from engine import IllegalMove, N_, Term, n_, squares

GERMAN = {
    "{square} is already taken by {what} — pick an empty space such as {example}.": "{square} ist schon belegt ({what}) — wähle ein freies Feld wie {example}.",
    "a stone": "ein Stein",
    "a dragon tile ({tile})": "ein Drachenplättchen ({tile})",
    "'{text}' is not a square: give a column letter and a row number, like {example}. Did you mean {near}?": "'{text}' ist kein Feld: Spaltenbuchstabe und Zeilennummer, wie {example}. Meintest du {near}?",
    "That game is not yours to move: {name} is to play.": "Du bist nicht am Zug: {name} spielt.",
    "You can't use this command here.": "Diesen Befehl kannst du hier nicht benutzen.",
    "Something went wrong on our side. Please try again; {boards} shows the game as it is stored.": "Bei uns ist etwas schiefgegangen. Versuch es noch einmal; {boards} zeigt die gespeicherte Partie.",
    # a broken translation (a field that isn't in the English) falls back to English, never to an error
    "{square} is not on the {board} board ({extent}).": "{feld} liegt nicht auf dem Brett.",
}


@pytest.fixture
def german(tmp_path, monkeypatch):
    """A catalog ``de.po`` with :data:`GERMAN` in a temporary LOCALES folder (caches cleared before and after)."""
    catalog = Catalog(locale="de")
    for english, german in GERMAN.items():
        catalog.add(english, german)
    catalog.add(("{count} Hong", "{count} Hongs"), ("{count} Hong", "{count} Hongs"))
    catalog.add("Emperor wins: {hongs} (needs {threshold})", "Kaiser gewinnt: {hongs} (nötig: {threshold})")
    catalog.add("The game is over — {outcome}.", "Die Partie ist vorbei — {outcome}.")
    with (tmp_path / "de.po").open("wb") as f:
        write_po(f, catalog)
    monkeypatch.setattr(i18n, "LOCALES", tmp_path)
    i18n.reload()
    yield
    i18n.reload()


def taken_by_a_stone() -> IllegalMove:
    game = hong.new_game(seed=1)
    stone = sorted(game.stones)[0]
    with pytest.raises(IllegalMove) as caught:
        game.play(stone + "H")
    return caught.value


def test_an_illegal_move_is_refused_in_the_callers_language_with_its_words_translated(german):
    error = taken_by_a_stone()
    english = str(error)
    assert " is already taken by a stone — pick an empty space such as " in english
    square, example = error.message.params["square"], error.message.params["example"]
    with i18n.language("de"):
        assert refusal(error) == f"{square} ist schon belegt (ein Stein) — wähle ein freies Feld wie {example}."
        assert refusal(app_commands.CommandInvokeError(_command(), error)) == refusal(error)
    assert refusal(error) == english  # English (the default language) is the engine's own text
    with i18n.language("fr"):  # no French catalog here: English
        assert refusal(error) == english


def test_a_squares_hint_and_a_counted_outcome_are_translated(german):
    with pytest.raises(IllegalMove) as caught:
        squares.parse("3b", example="C3")
    assert str(caught.value) == "'3b' is not a square: give a column letter and a row number, like C3. Did you mean B3?"
    with i18n.language("de"):
        assert refusal(caught.value) == "'3b' ist kein Feld: Spaltenbuchstabe und Zeilennummer, wie C3. Meintest du B3?"
        outcome = hong.Outcome(winner=hong.EMPEROR, hongs=9, threshold=15)
        assert (
            translate(IllegalMove(N_("The game is over — {outcome}.", outcome=outcome.describe())))
            == "Die Partie ist vorbei — Kaiser gewinnt: 9 Hongs (nötig: 15)."
        )
    assert str(hong.Outcome(winner=hong.EMPEROR, hongs=1, threshold=15).describe()) == "Emperor wins: 1 Hong (needs 15)"


def test_a_broken_translation_falls_back_to_english(german):
    game = hong.new_game(seed=1)
    with pytest.raises(IllegalMove) as caught:
        game.play("Z9H")
    with i18n.language("de"):
        assert refusal(caught.value) == str(caught.value) == "Z9 is not on the castle board (columns A–I, rows 1–9)."


def test_a_user_error_built_in_the_callers_language_is_shown_as_it_is(german):
    with i18n.language("de"):
        error = UserError(_("That game is not yours to move: {name} is to play.", name="Ann"))
        assert refusal(error) == "Du bist nicht am Zug: Ann spielt."
        assert refusal(app_commands.CheckFailure()) == "Diesen Befehl kannst du hier nicht benutzen."
        assert apology(["hongkong", "hong"]) == (
            "Bei uns ist etwas schiefgegangen. Versuch es noch einmal; "
            "`/hongkong board` oder `/hong board` zeigt die gespeicherte Partie."
        )
        assert describe_duration(2 * 86400 + 3 * 3600) == "2 Tage, 3 Stunden"
    assert (
        refusal(UserError("That game is not yours to move: Ann is to play."))
        == "That game is not yours to move: Ann is to play."
    )
    assert refusal(app_commands.CheckFailure()) == "You can't use this command here."
    assert describe_duration(2 * 86400 + 3 * 3600) == "2 days 3 hours"
    assert describe_duration(45 * 60) == "45 minutes"
    assert describe_duration(0) == "0 seconds"


def test_terms_are_their_english_text_and_survive_pickling():
    """An IllegalMove crosses to and from the computer's processes: its template and fields come along."""
    error = IllegalMove(N_("{square} is already taken by {what}.", square="B3", what=N_("a stone")))
    assert str(error) == error.args[0] == "B3 is already taken by a stone."
    back = pickle.loads(pickle.dumps(error))
    assert type(back.message) is Term and back.message.template == "{square} is already taken by {what}."
    assert back.message.params["what"].template == "a stone"
    assert [str(n_("{count} Hong", "{count} Hongs", n)) for n in (0, 1, 2)] == ["0 Hongs", "1 Hong", "2 Hongs"]
    assert str(IllegalMove(N_("{square} is taken."), square="C4")) == "C4 is taken."
    assert str(IllegalMove("braces {kept} as written")) == "braces {kept} as written"
    assert hk.describe_height(5) == "2 blocks + roof" and hk.describe_height(3) == "1 block + roof"


def _command() -> app_commands.Command:
    async def noop(interaction) -> None:  # pragma: no cover - never invoked
        pass

    return app_commands.Command(name="noop", description="…", callback=noop)
