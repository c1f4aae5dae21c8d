"""Players' names: stored plain, cleaned of what can't be seen, escaped once where a message shows them.

A leaf module (of the bot it imports only :mod:`bot.i18n`): :mod:`bot.core.record` stores names as :func:`clean`
leaves them and :mod:`bot.i18n.wording` writes them into messages through :func:`escape`. Images draw the plain name.

- :func:`clean` — what is stored: a display name without invisible and format characters (Unicode categories
  Cc, Cf, Zl, Zp, Cs, Co, Cn — bidi overrides, zero-width spaces, soft hyphens, tag characters … ; a zero-width
  joiner or non-joiner is kept only alone between two visible characters, where it shapes them: 👩‍👩‍👧, Persian —
  and the blank letters Discord users pick to look nameless: the Hangul fillers and the Braille blank),
  without combining marks that have nothing to sit on, white space folded, at most 32 characters; ``""`` when
  nothing visible is left (the caller falls back to the username, then to "Player", in the current language).
- :func:`escape` — for a message: markdown and mentions escaped, exactly once.
- :func:`unescape` — stored names of record schema ≤ 2 and of older rating entries were kept escaped; this
  gives the plain name back (used by the migration in :mod:`bot.core.record` and by :mod:`bot.storage.ratings`).
"""

from __future__ import annotations

import re
import unicodedata

from . import N_, _

#: Discord's limit on a display name (characters).
MAX_LENGTH = 32
#: The name shown when a user's display name and username are both invisible (stored in the language of the
#: command that recorded it).
# TRANSLATORS: the name given to a user whose names are all invisible characters.
FALLBACK = N_("Player")
#: Unicode categories that never show a glyph of their own: controls, format characters (bidi marks, zero-width
#: space/joiners, soft hyphen, tags), line/paragraph separators, surrogates, private use, unassigned.
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
#: Letters and symbols that render as blank space: Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), the Braille
#: blank (U+2800), the combining grapheme joiner (U+034F) and Khmer's invisible inherent vowels (U+17B4, U+17B5).
BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5")


#: Zero-width joiner and non-joiner: invisible, but they shape the characters on either side (emoji sequences such as
#: 👩‍👩‍👧, Persian and Indic words), so they are kept between two visible characters and dropped anywhere else.
JOINERS = frozenset("\u200c\u200d")


def _joined(text: str) -> str:
    """``text`` keeping a joiner only where a visible character is on each side of it."""
    out: list[str] = []
    for i, char in enumerate(text):
        if char in JOINERS:
            before, after = text[i - 1] if i else " ", text[i + 1] if i + 1 < len(text) else " "
            if before not in JOINERS and not before.isspace() and after not in JOINERS and not after.isspace():
                out.append(char)
            continue
        out.append(char)
    return "".join(out)


def _visible(char: str) -> bool:
    return char not in BLANK and unicodedata.category(char) not in INVISIBLE_CATEGORIES


def clean(name: str | None) -> str:
    """``name`` as stored and shown: invisible and format characters removed, combining marks at the start
    removed (they would sit on whatever precedes the name in a message), runs of white space folded to one
    space, cut to :data:`MAX_LENGTH` characters. ``""`` if no letter, digit, symbol or punctuation is left
    (a name of zero-width joiners, of combining marks only, of blanks …)."""
    spaced = " ".join(unicodedata.normalize("NFC", name or "").split())  # line breaks, tabs … separate words
    words = " ".join(_joined("".join(c for c in spaced if _visible(c) or c in JOINERS)).split())
    while words and unicodedata.category(words[0]).startswith("M"):
        words = words[1:].lstrip()
    words = words[:MAX_LENGTH].rstrip(" \u200c\u200d")
    if not any(not unicodedata.category(c).startswith(("M", "Z")) for c in words):
        return ""
    return words


def best(*candidates: str | None) -> str:
    """The first candidate that :func:`clean` leaves visible (display name, global name, username …), cleaned;
    :data:`FALLBACK` (in the current language) when none is."""
    for candidate in candidates:
        name = clean(candidate)
        if name:
            return name
    return _(FALLBACK)


#: Discord's markdown, and the links it leaves alone, as discord.py writes them (``discord.utils.escape_markdown``
#: with ``ignore_links``): copied, so that names need no Discord library (a test holds them equal).
_URL = r"(?P<url><[^: >]+:\/[^ >]+>|(?:https?|steam):\/\/[^\s<]+[^<.,:;\"\'\]\s])"
_MARKDOWN = r"(?P<markdown>[_\\~|\*`]|^>(?:>>)?\s|\[.+\]\(.+\)|^#{1,3}|^\s*-)"
_MARKUP = re.compile(f"(?:{_URL}|{_MARKDOWN})", re.MULTILINE)
#: Mentions that ping (``discord.utils.escape_mentions``): @everyone, @here, users and roles.
_MENTION = re.compile(r"@(everyone|here|[!&]?[0-9]{17,20})")


def escape_markdown(text: str) -> str:
    """``text`` with Discord's markdown escaped by a backslash, links left as written (discord.py's rule)."""
    return _MARKUP.sub(lambda m: m.group("url") or "\\" + m.group("markdown"), text)


def escape_mentions(text: str) -> str:
    """``text`` with @everyone, @here and user and role mentions broken by a zero-width space (discord.py's rule)."""
    return _MENTION.sub("@\u200b\\1", text)


def escape(name: str) -> str:
    """A plain name ready to put in a message: markdown (``*_~`|>\\``…) and mentions (``@everyone``,
    ``<@id>``) escaped, so it shows as written and pings nobody. Apply exactly once."""
    return escape_mentions(escape_markdown(name))


_ESCAPED = re.compile(r"\\(.)", re.DOTALL)


def unescape(name: str) -> str:
    """A name as older versions stored it (escaped by :func:`escape`) → the plain name: ``"a\\_b"`` → ``"a_b"``,
    ``"@\u200beveryone"`` → ``"@everyone"``; then :func:`clean` (older versions kept some invisible characters)."""
    plain = _ESCAPED.sub(r"\1", name or "").replace("@\u200b", "@")
    return clean(plain) or _(FALLBACK)


__all__ = ["MAX_LENGTH", "FALLBACK", "INVISIBLE_CATEGORIES", "BLANK", "clean", "best", "escape", "unescape"]
