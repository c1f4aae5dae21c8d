"""The words drawn in an image, in the language of the post it belongs to.

The renderers are pure and know nothing of the bot's languages: they are given a translations object (a
:class:`gettext.NullTranslations` or anything with its ``gettext``/``ngettext``/``pgettext``; the bot passes
``bot.i18n.translations(code)``) and default to English (:data:`ENGLISH`, the messages as written).
:func:`words` wraps it in :class:`Words`, whose methods take the English message — a ``str.format`` template with
named fields, written as a literal in the call so ``python -m bot.i18n extract`` finds it (its keywords include
``gettext``, ``ngettext`` and ``pgettext``) — translate it, and fill in the fields. A translation whose fields don't
match the English message falls back to English, so a broken catalog never breaks an image.

A player's name inside a sentence is given as :meth:`Words.name`: the sentence keeps it bracketed, so that
:func:`parts` can hand it to :func:`render.text.fit_parts` to be cut on its own (a long name is shortened with "…",
never the words around it) and drawn on its own (a right-to-left name does not turn the sentence around).
"""

from __future__ import annotations

import gettext
import re
from functools import lru_cache
from typing import Protocol

from engine import Term
from render.text import clean_name

#: English: the messages as written in the code.
ENGLISH = gettext.NullTranslations()

# A name in a sentence is bracketed by two private-use characters: render.text.clean_name drops those from names,
# so they never occur inside one.
_OPEN, _CLOSE = "\ue000", "\ue001"
_NAMED = re.compile(f"{_OPEN}(.*?){_CLOSE}", re.S)


class Translations(Protocol):
    """What a renderer needs of a catalog: :class:`gettext.NullTranslations`' three lookups — and to be hashable
    (by identity, as catalogs are): the words drawn are cached per catalog."""

    def __hash__(self) -> int: ...

    def gettext(self, message: str, /) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...

    def pgettext(self, context: str, message: str, /) -> str: ...


def _format(translated: str, source: str, fields: dict[str, object]) -> str:
    """``translated`` filled with ``fields``; ``source`` (English) if the translation's fields are broken."""
    if not fields:
        return translated
    try:
        return translated.format(**fields)
    except (KeyError, IndexError, ValueError, AttributeError):
        if translated is source:
            raise
        return source.format(**fields)


class Words:
    """The words of one language for the images (see the module docstring); made by :func:`words`.

    Each method returns the message in this language with its ``{fields}`` filled from the keywords; a message
    without keywords is returned as translated (braces and all).
    """

    def __init__(self, translations: Translations) -> None:
        self.translations = translations

    def gettext(self, message: str, /, **fields: object) -> str:
        """``message`` (an English template) translated, its fields filled."""
        return _format(self.translations.gettext(message), message, fields)

    def ngettext(self, singular: str, plural: str, count: int, /, **fields: object) -> str:
        """The form of a counted message for ``count`` (the catalog's plural rule; ``{count}`` is ``count`` unless
        given)."""
        fields.setdefault("count", count)
        return _format(self.translations.ngettext(singular, plural, count), singular if count == 1 else plural, fields)

    def pgettext(self, context: str, message: str, /, **fields: object) -> str:
        """``message`` translated in ``context`` (``"image"``: a short word on the board that may read differently
        elsewhere)."""
        return _format(self.translations.pgettext(context, message), message, fields)

    def term(self, term: object) -> str:
        """An engine's :class:`engine.Term` (``"board full"``, ``"by resignation"``) translated, and each field that
        is a ``Term`` too; anything else as ``str``."""
        if not isinstance(term, Term):
            return str(term)
        fields = {k: self.term(v) if isinstance(v, Term) else v for k, v in term.params.items()}
        if term.plural is not None:
            return self.ngettext(term.template, term.plural, term.number if term.number is not None else 1, **fields)
        return self.gettext(term.template, **fields)

    @staticmethod
    def name(text: str) -> str:
        """``text`` (a player's name, cleaned by :func:`render.text.clean_name`) as a field of a sentence: kept
        apart so :func:`parts` finds it."""
        return f"{_OPEN}{text}{_CLOSE}"


def player_names(names: tuple[str, str], w: Words) -> tuple[str, str]:
    """Both players' names made fit to draw (:func:`render.text.clean_name`); a name with nothing drawable is
    "Player 1" / "Player 2" in ``w``'s language."""
    # TRANSLATORS: drawn for a player whose name has nothing drawable; {number} is 1 or 2.
    return (
        clean_name(names[0], w.gettext("Player {number}", number=1)),
        clean_name(names[1], w.gettext("Player {number}", number=2)),
    )


def parts(sentence: str) -> list[tuple[str, bool]]:
    """A sentence made with :meth:`Words.name` fields as ``(text, is_name)`` parts, in order, empty ones left out
    (for :func:`render.text.fit_parts`)."""
    pieces = _NAMED.split(sentence)  # text, name, text, name, …, text
    return [(text, i % 2 == 1) for i, text in enumerate(pieces) if text]


def plain(sentence: str) -> str:
    """A sentence made with :meth:`Words.name` fields as plain text (the names in full)."""
    return sentence.replace(_OPEN, "").replace(_CLOSE, "")


def words(translations: Translations | None = None) -> Words:
    """The :class:`Words` of ``translations`` (None: :data:`ENGLISH`): one object per catalog, so the renderers'
    caches of drawn text and backgrounds can be kept per language."""
    return _words(ENGLISH if translations is None else translations)


@lru_cache(maxsize=32)
def _words(translations: Translations) -> Words:
    return Words(translations)


__all__ = ["ENGLISH", "Translations", "Words", "words", "player_names", "parts", "plain"]
