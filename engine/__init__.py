"""Pure rules engines for the games the bot hosts. No I/O, no Discord, no Redis.

The game contract — what a game module, its game object, its outcome and its computer opponent offer — is written
once, as typing Protocols checked by mypy, in :mod:`engine.contract`; :mod:`engine.registry` finds the game modules
(those that declare ``NAME``). This package holds what every game shares: the messages for players (:class:`Term`,
:func:`N_`, :func:`n_`), the errors (:class:`IllegalMove`, :class:`InvalidState`) and :func:`truncate`.

* :mod:`engine.result` says how a game ended off the board (resigned, timed out, aborted);
  :mod:`engine.movetext` writes and reads a finished game's text record; :mod:`engine.ai` chooses moves.
"""

from __future__ import annotations

from typing import Callable, Protocol, Sequence


class Term(str):
    """An English message the bot translates, kept with its template: the ``str`` itself is the English text.

    The engines write every message for players in English and know nothing of languages (the bot's
    :mod:`bot.i18n` translates). So that the bot can translate a message after the fact, the engines build it
    with :func:`N_` (or :func:`n_` for a count): a ``Term`` that *is* the English text (``str(term)``, ``==``,
    ``in``, ``+`` all see English, so code and tests that read it are unchanged) and that also keeps

    - ``template``: the English ``str.format`` template with named fields (``"{square} is already taken by
      {what}"``); ``plural``: its plural form for a count (``None`` unless made by :func:`n_`); ``number``: the
      count choosing the form (not ``count``, which would hide ``str.count``);
    - ``params``: the fields' values. A value that is itself a ``Term`` (``what=N_("a stone")``, a word that
      differs by language) is translated too; any other value (a square, a move, a number) is shown as it is.

    The bot's ``bot.i18n.wording.translate(term)`` gives it in the current language: the template (and each ``Term``
    value) through the catalog, then formatted. ``python -m bot.i18n extract`` reads ``engine/`` too, and finds
    the templates by the markers' names ``N_`` and ``n_``: write the template as a literal in the call.
    """

    __slots__ = ("template", "plural", "number", "params")
    template: str
    plural: str | None
    number: int | None
    params: dict[str, object]

    def __new__(cls, template: str, plural: str | None = None, count: int | None = None, /, **params: object) -> Term:
        source = plural if plural is not None and count != 1 else template
        term = super().__new__(cls, source.format(**params) if params else source)
        term.template, term.plural, term.number, term.params = str(template), plural, count, params
        return term

    def __reduce__(
        self,
    ) -> tuple[
        Callable[..., Term], tuple[object, ...]
    ]:  # pickling (an IllegalMove crossing to another process) keeps the template
        return _term, (self.template, self.plural, self.number, self.params)


def _term(template: str, plural: str | None, count: int | None, params: dict[str, object]) -> Term:
    return Term(template, plural, count, **params)


def N_(template: str, /, **params: object) -> Term:
    """Mark an English message for translation: ``N_("{square} is not a space", square="B3")`` is the
    :class:`Term` ``"B3 is not a space"``, which the bot can show in another language. Fields are named
    (``str.format``); a value that is itself a ``Term`` is translated as well."""
    return Term(template, **params)


def n_(singular: str, plural: str, count: int, /, **params: object) -> Term:
    """Mark a counted message: ``n_("{count} Hong", "{count} Hongs", n)``, the English form for ``count`` (the
    bot picks the form of each language's plural rule). ``{count}`` is ``count`` unless ``params`` gives it."""
    params.setdefault("count", count)
    return Term(singular, plural, count, **params)


class IllegalMove(ValueError):
    """A move that is malformed or breaks a rule.

    The message is written for a player: it says what was wrong and, where it can, what would be
    legal instead. Raising it never changes the game it was raised for.

    ``IllegalMove(N_("{square} is already taken by {what}.", square="B3", what=N_("a stone")))`` — or, the same,
    ``IllegalMove(N_("{square} is already taken by {what}."), square="B3", what=N_("a stone"))``: the message is a
    :class:`Term` (``message``), so the bot shows it in the player's language; ``str(error)`` is the English text.
    A plain string is taken as it is (an English message with no fields to translate).
    """

    def __init__(self, message: object = "", /, **params: object) -> None:
        if params:
            term = Term(getattr(message, "template", str(message)), **params)
        elif isinstance(message, Term):
            term = message
        else:
            term = Term(str(message))
        super().__init__(str(term))
        #: The message as a :class:`Term` (its English template and fields).
        self.message = term


class InvalidState(IllegalMove):
    """A saved state that does not restore.

    Raised by every engine's ``from_dict`` (and :func:`engine.registry.load`): not this game, a field missing
    or malformed, an illegal move in it, or a board that disagrees with its moves. An ``IllegalMove`` (so a
    ``ValueError``) for callers that only catch those.
    """


class _Poppable(Protocol):
    """What :func:`truncate` needs of a game (every :class:`engine.contract.Game` has it)."""

    @property
    def moves(self) -> Sequence[str]: ...

    def pop(self) -> str: ...


def truncate(game: _Poppable, n: int) -> list[str]:
    """Pop ``game``'s moves until ``len(game.moves) == n``; return the undone moves, oldest first.

    The shared body of every game's ``truncate(n)`` (a takeback to move ``n``): it only calls ``game.pop()``.

    Raises:
        IndexError: ``n`` is not between 0 and ``len(game.moves)``; nothing is undone then.
    """
    if type(n) is not int or not 0 <= n <= len(game.moves):
        raise IndexError(f"Can't go back to move {n}: {len(game.moves)} moves have been played.")
    undone = [game.pop() for _ in range(len(game.moves) - n)]
    undone.reverse()
    return undone


__all__ = ["Term", "N_", "n_", "IllegalMove", "InvalidState", "truncate"]
