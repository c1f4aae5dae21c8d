"""The message catalogs (bot/i18n/locales/*.po) against the code and against each other.

Every language the issue asks for has a catalog; every catalog has every message of the template, translated, with
the same fields as the English (a missing or misspelt ``{name}`` fails here, not in a player's reply); the template is
what the code marks today (a message added without ``python -m bot.i18n extract`` fails); each catalog's plural rule
is CLDR's for its language, and counted messages come out right for 0, 1, 2, 5 and 21.

One exception: a game new to a language. A game's own messages are those marked only in its four modules
(``engine/<game>.py``, ``engine/ai/<game>.py``, ``render/<game>.py``, ``bot/games/<game>.py``) or only in its
``/<game>`` commands; when none of them is translated in a catalog, the game has not been translated into that
language yet, and its messages, left untranslated, are shown in English (a blank translation is English: see
test_catalog_faults.py). Their fields are still held to the English ones once translated.
"""

from __future__ import annotations

import asyncio
from functools import cache

import pytest
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po

from bot import i18n
from engine import registry

#: The languages issue 16 asks for, besides English.
REQUIRED = ("de", "es", "fr", "pt_BR", "zh_CN", "ja")
#: Every catalog there is (a language added later is held to the same fields and plural rule).
ALL = i18n.languages()[1:]


def catalog(code: str):
    with (i18n.LOCALES / f"{code}.po").open("rb") as f:
        return read_po(f, locale=code)


def template():
    with i18n.TEMPLATE.open("rb") as f:
        return read_po(f)


def key(message) -> tuple:
    return (message.context, message.id)


def real(messages) -> list:
    return [m for m in messages if m.id]


def translated(message) -> bool:
    return bool(message.string) and not (isinstance(message.string, tuple) and not all(message.string))


async def _fresh_template():
    from bot.interface.extract import command_tree  # the command tree (offline): its names, descriptions and choices
    from bot.interface.translator import command_strings

    return i18n.extract(await command_strings(await command_tree()))


@cache
def fresh_template():
    """The template the code marks now (with today's locations; the committed one's may be older)."""
    return asyncio.run(_fresh_template())


def game_files(name: str) -> set[str]:
    """The four modules of the game ``name`` (ARCHITECTURE.md, "Adding a game")."""
    entry = registry.find(name)
    module = entry.module.__name__
    return {
        module.replace(".", "/") + ".py",
        entry.ai_module_name.replace(".", "/") + ".py",
        f"render/{name}.py",
        f"bot/games/{name}.py",
    }


def owner(locations) -> str | None:
    """The game all of a message's locations (``(file or command, line)``) belong to, or None (not one game's)."""
    owners = set()
    for where, _line in locations:
        owners.add(
            next(
                (
                    name
                    for name in registry.games()
                    if where in game_files(name) or where == f"/{name}" or where.startswith((f"/{name}/", f"/{name}("))
                ),
                None,
            )
        )
    return owners.pop() if len(owners) == 1 else None


def games_own_messages() -> dict[str, set[tuple]]:
    """Each game's own messages (keys): those marked only in its modules or its commands."""
    own: dict[str, set[tuple]] = {name: set() for name in registry.games()}
    for message in real(fresh_template()):
        name = owner(message.locations)
        if name is not None:
            own[name].add(key(message))
    return own


def new_to(have: dict) -> set[tuple]:
    """The own messages of the games none of whose own messages is translated in a catalog (``have``: key →
    message): games not translated into its language yet, whose messages are shown in English."""
    return {
        k
        for keys in games_own_messages().values()
        if not any(k in have and translated(have[k]) for k in keys)
        for k in keys
    }


def test_every_required_language_has_a_catalog():
    assert set(REQUIRED) <= set(i18n.languages())
    assert i18n.languages()[0] == "en"


async def test_the_template_is_what_the_code_marks():
    """The committed template equals a fresh extraction (messages and contexts; locations may differ)."""
    from bot.interface.extract import command_tree  # the command tree (offline): its names, descriptions and choices
    from bot.interface.translator import command_strings

    fresh = {key(m) for m in real(i18n.extract(await command_strings(await command_tree())))}
    stored = {key(m) for m in real(template())}
    assert not fresh - stored, f"run `python -m bot.i18n extract`: not in the template: {sorted(fresh - stored)[:5]}"
    assert not stored - fresh, f"run `python -m bot.i18n extract`: no longer in the code: {sorted(stored - fresh)[:5]}"
    assert len(stored) > 300


@pytest.mark.parametrize("code", REQUIRED)
def test_catalog_has_every_message_translated(code):
    """Every message, but those of a game new to the language (see the module docstring)."""
    wanted = {key(m) for m in real(template())}
    have = {key(m): m for m in real(catalog(code))}
    new = new_to(have)
    assert not wanted - have.keys() - new, f"{code}: missing {sorted(wanted - have.keys() - new)[:5]}"
    assert not have.keys() - wanted, f"{code}: not in the template {sorted(have.keys() - wanted)[:5]}"
    untranslated = [m.id for k, m in have.items() if k not in new and not translated(m)]
    fuzzy = [m.id for m in have.values() if m.fuzzy]
    assert not untranslated, f"{code}: {len(untranslated)} untranslated, e.g. {untranslated[:3]}"
    assert not fuzzy, f"{code}: {len(fuzzy)} fuzzy, e.g. {fuzzy[:3]}"


def test_a_game_new_to_a_language_is_excused_and_only_while_none_of_it_is_translated():
    """Each game's own messages are found (in its modules and its commands, none shared with another game); with all
    of a translated game's own messages blank in a catalog, they are excused, and nothing else; one of them
    translated, and none is."""
    own = games_own_messages()
    assert all(len(keys) >= 5 for keys in own.values()), {name: len(keys) for name, keys in own.items()}
    assert {("image", "quick block"), (None, "Place a block or roof (optionally after a quick block)")} <= own[
        "hongkong"
    ]
    assert (None, "Carry out a summoned Great Dragon's action (expansion)") in own["hong"]
    assert (None, "{name} resigned") not in set().union(*own.values())  # every game's (engine/result.py)
    have = {key(m): m for m in real(catalog("de"))}
    excused = new_to(have)  # (the games not yet translated into German: none but a game just added)
    german = [name for name, keys in own.items() if not keys & excused]
    assert {"hong", "hongkong"} <= set(german)
    for name in german:
        keys = own[name]
        blank = {k: m for k, m in have.items() if k not in keys}
        assert new_to(blank) == keys | excused  # (missing from the catalog, or there but blank: the same)
        first = min(keys, key=str)
        assert new_to({**blank, first: have[first]}) == excused


@pytest.mark.parametrize("code", ALL)
def test_translations_have_the_same_fields(code):
    """A translation uses exactly the English message's fields, written the same way; a plural form may leave out
    ``{count}`` (e.g. "one space" for 1), nothing else (:func:`bot.i18n.unfit`, which also drops such a translation
    when a catalog is read)."""
    broken = [(m.id, m.string, why) for m in real(catalog(code)) if m.string and (why := i18n.unfit(m.id, m.string))]
    assert not broken, f"{code}: {len(broken)} with other fields, e.g. {broken[:3]}"


@pytest.mark.parametrize("code", ALL)
def test_plural_rule_is_cldrs(code):
    c = catalog(code)
    rule = get_plural(code)
    assert c.num_plurals == rule.num_plurals
    assert c.plural_expr.replace(" ", "") == rule.plural_expr.replace(" ", "")


#: "{count} building(s)" and "Hongs … ({count} space(s) left)" for 0, 1, 2, 5, 21, as each language says them: French
#: and Brazilian Portuguese take the singular for 0 (CLDR "one" is 0 and 1 there), German, Spanish and English the
#: plural; Chinese and Japanese have one form (a counter word, no plural).
PLURALS = {
    "en": (
        ["0 buildings", "1 building", "2 buildings", "5 buildings", "21 buildings"],
        [
            "(castle, 0 spaces left)",
            "(castle, 1 space left)",
            "(castle, 2 spaces left)",
            "(castle, 5 spaces left)",
            "(castle, 21 spaces left)",
        ],
    ),
    "de": (
        None,
        [
            "noch 0 freie Felder",
            "noch 1 freies Feld",
            "noch 2 freie Felder",
            "noch 5 freie Felder",
            "noch 21 freie Felder",
        ],
    ),
    "es": (
        ["0 edificios", "1 edificio", "2 edificios", "5 edificios", "21 edificios"],
        ["quedan 0 casillas", "queda 1 casilla", "quedan 2 casillas", "quedan 5 casillas", "quedan 21 casillas"],
    ),
    "fr": (
        ["0 immeuble", "1 immeuble", "2 immeubles", "5 immeubles", "21 immeubles"],
        ["0 case restante", "1 case restante", "2 cases restantes", "5 cases restantes", "21 cases restantes"],
    ),
    "pt_BR": (
        ["0 prédio", "1 prédio", "2 prédios", "5 prédios", "21 prédios"],
        ["0 casa restante", "1 casa restante", "2 casas restantes", "5 casas restantes", "21 casas restantes"],
    ),
    "zh_CN": (
        ["0 座建筑", "1 座建筑", "2 座建筑", "5 座建筑", "21 座建筑"],
        ["剩余 0 格", "剩余 1 格", "剩余 2 格", "剩余 5 格", "剩余 21 格"],
    ),
    "ja": (
        ["建物0棟", "建物1棟", "建物2棟", "建物5棟", "建物21棟"],
        ["残り0マス", "残り1マス", "残り2マス", "残り5マス", "残り21マス"],
    ),
}


@pytest.mark.parametrize("code", sorted(PLURALS))
def test_plurals_for_0_1_2_5_21(code):
    buildings, spaces = PLURALS[code]
    with i18n.language(code):
        for n, want_building, want_space in zip((0, 1, 2, 5, 21), buildings or [None] * 5, spaces):
            if want_building is not None:
                assert i18n.n_("{count} building", "{count} buildings", n) == want_building
            said = i18n.n_(
                "Hongs {hongs} / {threshold} ({board}, {count} space left)",
                "Hongs {hongs} / {threshold} ({board}, {count} spaces left)",
                n,
                hongs=3,
                threshold=15,
                board="castle",
            )
            assert want_space in said, (n, said)


def _names(payload: dict, code_locales: set[str]):
    """Every (English name, {locale: localised name}) in a command's payload, options and subcommands included."""
    yield payload["name"], {k: v for k, v in (payload.get("name_localizations") or {}).items() if k in code_locales}
    for option in payload.get("options") or []:
        yield from _names(option, code_locales)


@pytest.mark.parametrize("code", ALL)
async def test_command_names_discord_receives_are_valid_and_all_used(code):
    """Every catalog's command and option names reach Discord: the payload the sync sends passes Discord's rules
    for localised names (the emulator's validator: lowercase letters of any script, digits, - or _, 1–32, no
    spaces, unique beside each other in each language), and no name the catalog translates was refused (the
    translator drops a bad one: Discord would then show English while the messages said the translation)."""
    import discord

    from bot.interface.extract import command_tree
    from bot.interface.translator import CommandTranslator, valid_name
    from tests.emulator.errors import ErrorTree
    from tests.emulator.limits import validate_command_list

    tree = await command_tree()
    translator = CommandTranslator(tree)
    payload = [await command.get_translated_payload(tree, translator) for command in tree.get_commands()]
    errors = ErrorTree()
    validate_command_list(errors, payload)
    assert errors.lines() == []
    locales = {locale.value for locale in discord.Locale if i18n.resolve(locale) == code}
    assert locales, code
    wanted = {m.id: m.string for m in real(catalog(code)) if m.context == "command name" and m.string != m.id}
    sent: dict[str, set[str]] = {}
    for command in payload:
        for name, localised in _names(command, locales):
            assert set(localised) in (set(), locales), (name, localised)  # every locale of the language, or none
            for shown in localised.values():
                assert valid_name(shown) and len(shown) <= 32 and " " not in shown and shown == shown.lower()
                sent.setdefault(name, set()).add(shown)
    assert {name: {wanted[name]} for name in wanted} == {name: sent.get(name) for name in wanted}
    if code in REQUIRED:
        assert len(wanted) >= 25, f"{code}: only {len(wanted)} command and option names translated"
