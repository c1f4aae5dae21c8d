"""Languages: every player-facing text comes from a message catalog (Babel / gettext ``.po`` files), English is the
source.

Catalogs are ``bot/i18n/locales/<code>.po``, one file a language, named by its locale code as Babel spells it (``de``,
``es``, ``pt_BR``, ``zh_CN``). :func:`languages` finds them; adding a language is adding one file (README: Languages).
``bot/i18n/locales/hongbot.pot`` is the template every catalog is made from: ``python -m bot.i18n extract`` rebuilds it
from the code (every call of the markers below, in ``bot/``, ``render/`` and ``engine/``, plus the command tree's
names, descriptions and choices) and merges it into each catalog (new messages untranslated, gone ones dropped).

Messages are written in English in the code, as ``str.format`` templates with named fields:

- ``_("{name} wins!", name=name)`` — translated into the current language, then formatted;
- ``n_("{count} space left", "{count} spaces left", n)`` — the plural form for ``n`` (CLDR plural rules of the
  language, from the catalog's ``Plural-Forms``; ``count`` is filled with ``n`` unless given);
- ``p_("button", "Resign")`` — translated in a context (``msgctxt``), for a word that reads differently elsewhere;
- ``N_("…")`` marks a template to translate later (a module constant), returning it unchanged.

The current language is a context variable (each asyncio task has its own): a handler answers in the caller's
language (``interaction.locale``; the command tree sets it before any command runs), and public posts are built
``with language(...)`` of the server (:func:`server_language`). A translation that is missing, or whose fields
don't match the English message, falls back to English (logged once) — a broken catalog never breaks a reply.
"""

from __future__ import annotations

import functools
import gettext
import io
import logging
import re
import string
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from babel import Locale, UnknownLocaleError
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po
from babel.support import Translations

log = logging.getLogger(__name__)

#: Where the catalogs live: one ``<code>.po`` a language, and the template ``hongbot.pot``.
LOCALES = Path(__file__).resolve().with_name("locales")
TEMPLATE = LOCALES / "hongbot.pot"
#: The language the code is written in (no catalog: the messages themselves).
SOURCE = "en"
#: A catalog's code as Babel writes it: ``de``, ``pt_BR``, ``zh_CN``.
_CODE = re.compile(r"[a-z]{2,3}(_[A-Z]{2}|_[0-9]{3})?")

_current: ContextVar[str] = ContextVar("language", default=SOURCE)
#: Discord's code for a language whose catalog Babel names otherwise: Norwegian is ``no`` in Discord, its written
#: standard Bokmål ``nb`` in Babel (and CLDR).
_SAME_LANGUAGE = {"no": "nb"}


@functools.cache
def languages() -> tuple[str, ...]:
    """Every language the bot speaks: ``"en"`` first, then the code of each catalog in ``bot/i18n/locales/`` that can
    be read (:func:`translations`), sorted. A catalog that can't be read is not offered anywhere."""
    found = sorted(p.stem for p in LOCALES.glob("*.po") if _CODE.fullmatch(p.stem))
    return (SOURCE, *(code for code in found if code != SOURCE and _compiled(code) is not None))


def reload() -> None:
    """Forget the catalogs read so far (after :data:`LOCALES` changed): they are read again when next needed."""
    languages.cache_clear()
    _compiled.cache_clear()


def language_name(code: str) -> str:
    """A language's name in itself, for a menu: ``"Deutsch"``, ``"português (Brasil)"``, ``"日本語"``, ``"English"``."""
    try:
        return Locale.parse(code).get_display_name(code) or code
    except (ValueError, UnknownLocaleError):
        return code


def translations(code: str) -> gettext.NullTranslations:
    """The compiled catalog of a language (read from its ``.po`` once per process); English, an unknown code and
    a catalog that can't be read get the identity (:class:`gettext.NullTranslations`)."""
    compiled = _compiled(code) if code != SOURCE and code in languages() else None
    return compiled if compiled is not None else _IDENTITY


_IDENTITY = gettext.NullTranslations()


@functools.cache
def _compiled(code: str) -> gettext.NullTranslations | None:
    """``bot/i18n/locales/<code>.po`` compiled, without the translations that can't be used (:func:`unfit`: each
    logged), and without its counted messages if its plural rule fails (logged); None if it can't be read at all
    (logged). Raises nothing: a damaged catalog must not take the bot down."""
    path = LOCALES / f"{code}.po"
    try:
        damage = _damaged_line(path)
        if damage:
            log.error(
                "the catalog %s is damaged on line %d (%s): %r; it is left out, its language answered in "
                "English until it is fixed",
                path,
                *damage,
            )
            return None
        with path.open("rb") as f:
            catalog = read_po(f, locale=code, abort_invalid=True)  # Babel's own complaints raise, never print
        for message in list(catalog):
            why = unfit(message.id, message.string) if message.id and message.string else None
            if why:
                log.warning(
                    "the %s translation %r of %r %s; English is used for it", code, message.string, message.id, why
                )
                catalog.delete(message.id, context=message.context)
        try:
            compiled = _compile(catalog)
        except (ValueError, RecursionError):  # Plural-Forms that Python's gettext can't even read
            compiled = None
        if compiled is None or not _plural_works(compiled, catalog.num_plurals):
            log.warning(
                "the %s catalog's plural rule %r fails for some counts; counted messages are in English",
                code,
                catalog.plural_expr,
            )
            for message in [m for m in catalog if m.id and isinstance(m.id, tuple)]:
                catalog.delete(message.id, context=message.context)
            catalog.mime_headers = [("Plural-Forms", "nplurals=2; plural=(n != 1);")]  # English's: none is left
            compiled = _compile(catalog)
        return compiled
    except Exception:
        log.exception("could not read the catalog %s; answering in English", path)
        return None


#: A line a catalog may hold: blank, a comment, a keyword with its quoted string, or a continued string — each
#: string closed (Babel reads ``msgstr "unterminated`` as "unterminate", silently).
_PO_LINE = re.compile(r'\s*(#.*|(msgctxt|msgid|msgid_plural|msgstr(\[\d+\])?)\s+"(\\.|[^"\\])*"|"(\\.|[^"\\])*")?\s*')


def _damaged_line(path: Path) -> tuple[int, str, str] | None:
    """The first line of the catalog at ``path`` that isn't PO syntax — ``(line number, what is wrong, the line)`` —
    or None. (Babel, left to itself, reads an unterminated string with its last letter cut, and reports other
    garbage only by printing to stdout.)"""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not _PO_LINE.fullmatch(line):
            quoted = line.count('"') - line.count('\\"')
            why = "a string not closed" if quoted % 2 else "not a comment, a keyword or a string"
            return number, why, line[:80]
    return None


def _compile(catalog: Catalog) -> Translations:
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return Translations(buffer)


def _plural_works(compiled: gettext.NullTranslations, forms: int) -> bool:
    """Whether the catalog's plural rule picks one of its ``forms`` for every count (0–1,000 and some large)."""
    plural = getattr(compiled, "plural", None)
    if plural is None:
        return True
    try:
        return all(0 <= plural(n) < forms for n in (*range(1001), 10**6, 10**9 + 1, 2**63 - 1))
    except Exception:
        return False


def _spec(template: str) -> set[tuple[str, str, str | None]]:
    """A template's fields with their format spec and conversion: ``"{n:>3}"`` → ``{("n", ">3", None)}``."""
    return {
        (name, spec or "", conversion)
        for _text, name, spec, conversion in string.Formatter().parse(template)
        if name is not None
    }


def _written(fields: set[tuple[str, str, str | None]]) -> str:
    return (
        ", ".join(
            sorted(
                "{" + name + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "") + "}"
                for name, spec, conv in fields
            )
        )
        or "none"
    )


def _has_fields(template: str) -> bool:
    """Whether ``template`` has a field to fill, a name in braces (``{name}``); a lone ``{`` or ``{ and }``: plain
    text (the code names every field, tests/i18n/test_wording.py)."""
    try:
        return any(name.isidentifier() for name in fields(template))
    except ValueError:
        return False


def unfit(english: str | Sequence[str], translated: str | Sequence[str]) -> str | None:
    """Why a translation can't stand for its English message, or None if it can. A translation uses exactly the
    English message's fields, written the same way (format spec and conversion); a plural form may leave out
    ``{count}`` ("one space" for 1), nothing else; none is blank. A message without fields is plain text: any
    non-blank translation fits. ``english``: the message, or ``(singular, plural)``;
    ``translated``: its translation, or the plural forms (each a tuple or list, as Babel reads a catalog)."""
    sources = (english,) if isinstance(english, str) else tuple(english)
    forms = (translated,) if isinstance(translated, str) else tuple(translated)
    if any(form is not None and not form.strip() for form in forms) and all(source.strip() for source in sources):
        return "is blank (Discord refuses empty text)"
    if isinstance(english, str) and not _has_fields(english):
        return None  # plain text, braces and all: the message is never formatted (see _format)
    try:
        wanted = set().union(*(_spec(source) for source in sources))
        for form in forms:
            if not form:
                continue
            got = _spec(form)
            allowed = wanted if isinstance(english, str) else {f for f in wanted if f[0] != "count"}
            if not allowed <= got <= wanted:
                return f"has the fields {_written(got)}, not those of the English message {_written(wanted)}"
    except ValueError as error:
        return f"is not a valid template ({error})"
    return None


def resolve(locale: object) -> str:
    """The language to use for a Discord locale (``discord.Locale`` or its value, e.g. ``"pt-BR"``, ``"es-419"``,
    ``"en-GB"``) or one of our codes: the catalog of that exact locale, else the catalog of its bare language
    (``es-419`` → ``es``, ``en-GB`` → ``en``; Discord's ``no`` → ``nb``), else English. Chinese is matched exactly (``zh-TW`` is written in
    Traditional characters, so ``zh_CN`` doesn't serve it)."""
    value = str(getattr(locale, "value", locale) or "").strip().replace("-", "_")
    if not value:
        return SOURCE
    lang, _sep, region = value.partition("_")
    lang = _SAME_LANGUAGE.get(lang.lower(), lang.lower())
    exact = f"{lang}_{region.upper()}" if region else lang
    have = languages()
    if exact in have:
        return exact
    if lang in have:
        return lang
    if lang != "zh":
        same = [code for code in have if code.split("_")[0] == lang]
        if len(same) == 1:
            return same[0]
    return SOURCE


def current() -> str:
    """The language of the text being built now (a code of :func:`languages`)."""
    return _current.get()


def use(locale: object) -> str:
    """Make ``locale`` (see :func:`resolve`) the current language for the rest of this task; returns the code."""
    code = resolve(locale)
    _current.set(code)
    return code


@contextmanager
def language(locale: object) -> Iterator[str]:
    """Build text in ``locale``'s language (see :func:`resolve`) inside the block; the previous language after."""
    token = _current.set(resolve(locale))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def server_language(chosen: str | None, preferred: object) -> str:
    """The language of a server's public posts: the one chosen with ``/settings language`` (``chosen``, a code of
    :func:`languages`), else the server's preferred locale as Discord reports it (``preferred``: a
    ``discord.Locale``, its value, or None), else English."""
    if chosen in languages():
        return chosen
    if chosen is not None and chosen != SOURCE:
        _missing_once(chosen)
    return resolve(preferred)


@functools.cache
def _missing_once(code: str) -> None:
    log.warning(
        "a server chose %s for its posts, but that catalog is missing or damaged; its posts follow the "
        "server's language in Discord until it is back",
        code,
    )


def fields(template: str) -> set[str]:
    """The named fields of a ``str.format`` template: ``"{name} wins with {count}"`` → ``{"name", "count"}``.

    Raises:
        ValueError: the template is not a valid format string (an unpaired brace).
    """
    return {
        name.split(".")[0].split("[")[0]
        for _text, name, _spec, _conv in string.Formatter().parse(template)
        if name is not None
    }


@functools.cache
def _warn_once(code: str, message: str) -> None:
    log.warning("the %s translation of %r doesn't fit its fields; using English", code, message)


def _format(translated: str, source: str, params: dict) -> str:
    """``translated`` filled with ``params``; the English ``source`` if the translation is broken (unknown fields,
    unpaired braces)."""
    if not params:  # a message without fields is plain text (braces and all)
        return translated
    try:
        return translated.format(**params)
    except Exception:
        if translated is not source:
            _warn_once(current(), source)
            return source.format(**params)
        raise


def _(message: str, /, **params: object) -> str:
    """``message`` (an English template) in the current language, its ``{fields}`` filled from ``params``."""
    translated = translations(current()).gettext(message)
    return _format(translated, message, params)


def n_(singular: str, plural: str, count: int, /, **params: object) -> str:
    """The form of a counted message for ``count`` in the current language (its CLDR plural rule; English:
    ``singular`` for 1, ``plural`` otherwise); ``{count}`` is ``count`` unless ``params`` gives it."""
    params.setdefault("count", count)
    english = singular if count == 1 else plural
    try:
        translated = translations(current()).ngettext(singular, plural, count)
    except Exception:  # a plural rule that fails for this count (a catalog is checked for 0–1,000 when read)
        _warn_once(current(), singular)
        translated = english
    return _format(translated, english, params)


def p_(context: str, message: str, /, **params: object) -> str:
    """``message`` translated in ``context`` (the catalog's ``msgctxt``: a button label, a command name …)."""
    translated = translations(current()).pgettext(context, message)
    return _format(translated, message, params)


def N_(message: str, /) -> str:
    """Mark ``message`` for the catalogs without translating it now (translate it where it is shown, with
    :func:`_`). Returns ``message``."""
    return message


#: The markers' names and argument positions, for extraction (Babel's keyword spec). Renderers receive a
#: :class:`gettext.NullTranslations`-like object and call its methods, so those names are markers too.
KEYWORDS = {
    "_": None,
    "N_": None,
    "n_": (1, 2),
    "p_": ((1, "c"), 2),
    "gettext": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
}
#: The folders whose code is read for messages.
SOURCES = ("bot", "render", "engine")


def extract(extra: "Iterable[tuple[str | None, str, str]]" = ()) -> Catalog:
    """The template: every marked message in :data:`SOURCES` (with its file and line, and a ``TRANSLATORS:``
    comment above it), plus ``extra`` messages given as ``(context, message, where)`` (the command tree's names,
    descriptions and choices). Messages are ``python-brace-format``."""
    root = LOCALES.parent.parent.parent
    template = Catalog(project="hongbot", charset="utf-8", fuzzy=False)
    for folder in SOURCES:
        for filename, lineno, message, comments, context in extract_from_dir(
            root / folder,
            method_map=[("**.py", "python"), ("**/templates/**.html", "jinja2.ext:babel_extract")],
            keywords=KEYWORDS,
            comment_tags=("TRANSLATORS:",),
            strip_comment_tags=True,
        ):
            template.add(
                message,
                locations=[(f"{folder}/{filename}", lineno)],
                auto_comments=comments,
                context=context,
                flags=("python-brace-format",),
            )
    for context, message, where in extra:
        template.add(message, locations=[(where, 0)], context=context)
    return template


def write_catalogs(template: Catalog) -> list[Path]:
    """Write the template and merge it into every language's catalog (new messages untranslated, changed ones
    marked fuzzy, gone ones dropped); returns the files written."""
    written = [TEMPLATE]
    LOCALES.mkdir(exist_ok=True)
    with TEMPLATE.open("wb") as f:
        write_po(f, template, width=116, omit_header=False, sort_output=False)
    for code in languages()[1:]:
        path = LOCALES / f"{code}.po"
        with path.open("rb") as f:
            catalog = read_po(f, locale=code)
        catalog.update(template, no_fuzzy_matching=True)
        with path.open("wb") as f:
            write_po(f, catalog, width=116, ignore_obsolete=True)
        written.append(path)
    return written


__all__ = [
    "LOCALES",
    "TEMPLATE",
    "SOURCE",
    "KEYWORDS",
    "languages",
    "reload",
    "language_name",
    "translations",
    "unfit",
    "resolve",
    "current",
    "use",
    "language",
    "server_language",
    "fields",
    "extract",
    "write_catalogs",
    "_",
    "n_",
    "p_",
    "N_",
]
