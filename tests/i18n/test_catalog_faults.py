"""A damaged catalog never breaks a reply (found by a fresh tester): each kind of damage is caught when the catalog
is read — the translations that can't be used are left out (English is used for them, logged), a plural rule that
fails drops the counted messages, a catalog that can't be read is not offered at all — and anything left still falls
back to English when the message is built. Also: Discord's Norwegian (``no``) finds Babel's ``nb`` catalog."""

from __future__ import annotations

import logging

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from bot import i18n
from bot.exts.admin import describe_settings
from bot.i18n import _, n_
from bot.storage.settings import GuildSettings

TURN = "{mention}, your turn ({role}). You have {time}."
LEFT = ("{count} space left", "{count} spaces left")


def write(folder, code, entries, plural_forms=None) -> None:
    catalog = Catalog(locale=code)
    for key, text in entries.items():
        catalog.add(key, text)
    path = folder / f"{code}.po"
    with path.open("wb") as f:
        write_po(f, catalog)
    if plural_forms:  # a rule of its own in the header, instead of the locale's
        text = path.read_text()
        start = text.index('"Plural-Forms: ') + len('"Plural-Forms: ')
        path.write_text(text[:start] + plural_forms + text[text.index("\\n", start) :])


@pytest.fixture
def locales(tmp_path, monkeypatch):
    monkeypatch.setattr(i18n, "LOCALES", tmp_path)
    i18n.reload()
    yield tmp_path
    i18n.reload()


def test_a_translation_that_drops_or_respells_a_field_is_left_out(locales, caplog):
    write(
        locales,
        "de",
        {
            TURN: "Du bist dran ({role}).",  # the ping and the time would be lost
            "{name} wins!": "{name:>99999999999} gewinnt!",  # a spec that would exhaust memory
            "Hello {name}": "Hallo {name",  # not a template
            "Good game, {name}.": "Gutes Spiel, {name}.",  # fine
        },
    )
    with caplog.at_level(logging.WARNING), i18n.language("de"):
        assert _(TURN, mention="<@1>", role="Blau", time="1 Stunde") == "<@1>, your turn (Blau). You have 1 Stunde."
        assert _("{name} wins!", name="Ann") == "Ann wins!"
        assert _("Hello {name}", name="Ann") == "Hello Ann"
        assert _("Good game, {name}.", name="Ann") == "Gutes Spiel, Ann."
    assert sum("English is used for it" in r.getMessage() for r in caplog.records) == 3


def test_a_plural_rule_that_fails_leaves_counts_in_english_and_the_rest_translated(locales, caplog):
    write(
        locales,
        "de",
        {LEFT: ("noch {count} Feld", "noch {count} Felder"), "Good game, {name}.": "Gutes Spiel, {name}."},
        plural_forms="nplurals=2; plural=(n % 0);",
    )
    with caplog.at_level(logging.WARNING), i18n.language("de"):
        assert n_(*LEFT, 5) == "5 spaces left" and n_(*LEFT, 1) == "1 space left"
        assert _("Good game, {name}.", name="Ann") == "Gutes Spiel, Ann."
    assert "de" in i18n.languages()
    assert any("plural rule" in r.getMessage() for r in caplog.records)


def test_a_plural_rule_out_of_its_forms_is_caught_too(locales):
    write(locales, "de", {LEFT: ("noch {count} Feld", "noch {count} Felder")}, plural_forms="nplurals=2; plural=n;")
    with i18n.language("de"):
        assert n_(*LEFT, 7) == "7 spaces left"


def test_a_catalog_that_cant_be_read_is_not_offered(locales, caplog):
    write(locales, "de", {"Good game, {name}.": "Gutes Spiel, {name}."})
    (locales / "ko.po").write_bytes(b'\xff\xfe garbage \x00 msgid "unterminated\nmsgstr 12')
    with caplog.at_level(logging.ERROR):
        assert i18n.languages() == ("en", "de")
    assert i18n.resolve("ko") == "en"
    with i18n.language("ko"):
        assert _("Good game, {name}.", name="Ann") == "Good game, Ann."
    assert any("could not read the catalog" in r.getMessage() for r in caplog.records)


def test_discords_norwegian_finds_the_nb_catalog(locales):
    write(locales, "nb", {"Good game, {name}.": "Godt spill, {name}."})
    assert i18n.resolve("no") == "nb"
    with i18n.language("no"):
        assert _("Good game, {name}.", name="Ann") == "Godt spill, Ann."


def test_a_blank_translation_is_left_out_and_a_brace_in_plain_text_is_kept(locales):
    write(locales, "de", {"Keep": " ", "Accept": "\n", "Use { and } freely": "Nutze { und } frei"})
    with i18n.language("de"):
        assert _("Keep") == "Keep" and _("Accept") == "Accept"  # Discord refuses empty content or labels
        assert _("Use { and } freely") == "Nutze { und } frei"  # no field in it: plain text


@pytest.mark.parametrize(
    "rule", ["nplurals=2; plural=(n != 1;", "nplurals=2; plural=" + "(" * 400 + "n" + ")" * 400 + ";"]
)
def test_a_plural_rule_python_cant_read_drops_only_the_counted_messages(locales, rule):
    write(
        locales,
        "de",
        {LEFT: ("noch {count} Feld", "noch {count} Felder"), "Good game, {name}.": "Gutes Spiel, {name}."},
        plural_forms=rule,
    )
    assert "de" in i18n.languages()
    with i18n.language("de"):
        assert _("Good game, {name}.", name="Ann") == "Gutes Spiel, Ann."
        assert n_(*LEFT, 3) == "3 spaces left"


@pytest.mark.parametrize(
    "line, why",
    [
        ('msgstr "unterminated', "a string not closed"),
        ("this is no catalog line", "not a comment, a keyword or a string"),
    ],
)
def test_a_damaged_line_leaves_the_catalog_out_through_the_log_not_stdout(locales, caplog, capsys, line, why):
    """Babel alone reads ``msgstr "unterminated`` as "unterminate" and reports other garbage only by printing to
    stdout: the bot's own check leaves such a catalog out and says where, in its log."""
    write(locales, "de", {"Good game, {name}.": "Gutes Spiel, {name}."})
    write(locales, "es", {"Good game, {name}.": "Buen juego, {name}."})
    path = locales / "es.po"
    text = path.read_text().replace('msgstr "Buen juego, {name}."', line)
    path.write_text(text)
    number = text.splitlines().index(line) + 1
    with caplog.at_level(logging.WARNING):
        assert i18n.languages() == ("en", "de")
        with i18n.language("es"):
            assert _("Good game, {name}.", name="Ann") == "Good game, Ann."
    assert capsys.readouterr().out == ""
    [record] = [r for r in caplog.records if "es.po" in r.getMessage()]
    assert record.levelno == logging.ERROR and record.getMessage() == (
        f"the catalog {path} is damaged on line {number} ({why}): {line!r}; it is left out, its language answered "
        "in English until it is fixed"
    )


def test_a_chosen_language_whose_catalog_is_gone_is_said_in_settings_and_logged(locales, caplog):
    write(locales, "de", {"Good game, {name}.": "Gutes Spiel, {name}."})
    with caplog.at_level(logging.WARNING):
        assert i18n.server_language("fr", "de") == "de"  # chosen, but no catalog: the server's language in Discord
        assert i18n.server_language("fr", "de") == "de"
    assert [r.getMessage() for r in caplog.records if "fr" in r.getMessage()] == [
        "a server chose fr for its posts, but that catalog is missing or damaged; its posts follow the server's "
        "language in Discord until it is back"
    ]  # once
    shown = describe_settings(GuildSettings(language="fr"), None, changed=False).splitlines()
    assert shown[-2] == "• language of the bot's posts: **English** (auto: the server's language in Discord)"
    assert shown[-1] == (
        "⚠️ **français** was chosen, but this bot can't read that language's catalog now (missing or "
        "damaged): posts are in **English** until it is back. Its operator has the details in the "
        "log; `/settings` can choose another."
    )
