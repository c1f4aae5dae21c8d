"""What a game contributes to the bot: its engine, its renderer, its words — and its commands' options.

The session layer (:mod:`bot.core.session`) and the features (:mod:`bot.exts`) treat every game through a
:class:`GameKind`, so a new game is one engine module, one AI model, one renderer and one module in ``bot/games``
(which ends with ``KIND = GameKind(...)``). The engine and the renderer are typed against the game contract
(:mod:`engine.contract`, :mod:`render.contract`); :class:`Game` here is the engine's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from engine.contract import Game, GameModule
from render.contract import Renderer

from ..i18n import _
from .rules import RulesPage
from .lessons import Lesson

__all__ = ["Game", "GameKind", "MoveCommand", "Length"]


@dataclass(frozen=True)
class Length:
    """The length a text option may have (characters, inclusive), as a move command's annotation
    ``Annotated[str, Length(1, 10)]``: the interface makes it Discord's ``app_commands.Range[str, 1, 10]``
    (:mod:`bot.exts.play._groups`), so a game's module needs no discord."""

    low: int
    high: int


@dataclass(frozen=True)
class MoveCommand:
    """A game's slash command that plays a move: ``/<game> <name> <options>`` → ``notation(**options)`` → the engine.

    Attributes:
        name: the subcommand's name (``"place"``).
        description: its description in Discord.
        notation: ``(**options) -> move`` in the rules' notation; its keyword parameters, annotated and with
            defaults as discord.py reads them, are the command's options. Raises ``engine.IllegalMove`` for
            input that is no move (shown to the player).
        help: the help text of each option.
        autocomplete: option name → ``(game, namespace) -> candidate values`` for the player to move (the typed
            text filters them); ``namespace`` holds the options given so far. When there is nothing to offer for
            a reason the player should know (a piece used up, another command's turn) it raises
            :class:`bot.core.errors.UserError` saying so: the autocomplete shows the reason.
    """

    name: str
    description: str
    notation: Callable[..., str]
    help: Mapping[str, str]
    # (the game's own class, as GameKind's functions take it: a kind pairs them)
    autocomplete: Mapping[str, Callable[[Any, Any], list[str]]] = field(default_factory=dict)


@dataclass(frozen=True)
class GameKind:
    """One game the bot hosts.

    Attributes:
        name: command group and stored ``kind`` (``"hongkong"``); lowercase, ≤ 32 characters.
        title: the game's name for players (``"Hong Kong"``).
        engine: the engine module, an :class:`engine.contract.GameModule` (``new_game(**options)``,
            ``from_dict(d, replay=…)``).
        render: the game's :class:`render.contract.Renderer` (its module's ``RENDERER``): ``png(game, names, *,
            ended=None, translations=None)`` for a board, ``image`` and ``palette`` for a replay's frames; pure, run
            in a worker (``ended``: a result reached off the board, see ``engine.result.Ended``; ``translations``:
            the language of its words, see :mod:`render.labels`; :mod:`bot.interface.board_pool` passes it).
        roles: what each seat is called, in English (``("blue", "orange")``, ``("emperor", "dragon master")``,
            marked for the catalogs where they are defined); :meth:`role` says it in the current language.
        seat_options: ``(challenge options, rng) -> (challenger's seat 0|1, engine new_game kwargs)``:
            resolves "random" choices when the challenge is made.
        score: ``(game, names) -> str``: one line of the position's score, e.g. "Buildings: Ann 5 – Ben 4".
        result: ``(game, names) -> str``: the final result line of a finished game.
        describe_options: ``(engine kwargs) -> str``: the options in words for the challenge message ("" when
            there is nothing to say beyond the sides, which :func:`bot.interface.posts.sides` words).
        describe_move: ``(game, names) -> str``: what the last move did, in words, from the engine's events
            ("captured Ben's building on B2 and sealed it with a roof; Ann takes the lead, 6–5"); "" if nothing
            happened beyond the move itself.
        turn_number: ``(game) -> int``: the number of the turn being played, 1 for the first (turns, as the board
            images count them, not moves: a Hong turn may hold a placement and dragon actions); from the move list
            alone, so a game loaded without its undo history counts too.
        rematch: ``(engine kwargs, rng) -> (swap seats?, new engine kwargs)`` for a rematch: who moves first
            (Hong Kong) or the roles (Hong) are swapped.
        challenge: ``(**the game's own challenge options) -> challenge options``: its keyword parameters, annotated
            and with defaults as discord.py reads them, are the options ``/<name> challenge`` adds to the shared
            ``opponent`` and ``level``.
        challenge_help: the help text of each of those options.
        moves: the game's commands that play a move (``place``, ``dragon``).
        record_by_role: ``/stats`` shows a player's record in each role (for games whose roles play differently,
            like Hong's emperor and dragon master; not for colours).
        role_article: put before a role in a sentence: ``"the "`` for Hong ("Ann plays the emperor"), ``""`` for
            colours ("Ann plays blue").
        prompt: ``(game, names) -> str``: what the player to move must do beyond an ordinary move, said to them
            ("🐉 Ann summons a Great Dragon — carry out its action with /hong dragon: …"), or "". Posts add it only
            when a person is to move: the channel is never told to act for the computer.
        rules: the game's rules as pages (:class:`bot.core.rules.RulesPage`), shown by ``/<name> rules`` (no pages:
            no such command).
        lesson: the game's guided first game against the computer (``/<name> learn``, :mod:`bot.core.lessons`),
            or None (no such command).
    """

    name: str
    title: str
    engine: GameModule[Game]
    render: Renderer[Any]  # (takes the engine's own game class, as the functions below do)
    roles: tuple[str, str]
    seat_options: Callable[[dict, random.Random], tuple[int, dict]]
    score: Callable[[Any, tuple[str, str]], str]
    result: Callable[[Any, tuple[str, str]], str]
    describe_options: Callable[[dict], str]
    describe_move: Callable[[Any, tuple[str, str]], str]
    turn_number: Callable[[Any], int]
    rematch: Callable[[dict, random.Random], tuple[bool, dict]]
    challenge: Callable[..., dict]
    challenge_help: Mapping[str, str]
    moves: tuple["MoveCommand", ...]
    record_by_role: bool = False
    role_article: str = ""
    prompt: Callable[[Any, tuple[str, str]], str] = field(default=lambda game, names: "")
    rules: tuple[RulesPage, ...] = ()
    lesson: Lesson | None = None

    def role(self, seat: int) -> str:
        """What ``seat`` (0 or 1) is called, in the current language: ``"blue"``, ``"dragon master"``."""
        return _(self.roles[seat])

    def new_game(self, options: dict) -> Game:
        """A fresh engine game from the stored engine kwargs."""
        return self.engine.new_game(**options)

    def load(self, state: dict, *, replay: bool = True) -> Game:
        """Restore an engine game from its ``to_dict()``: every move replayed and checked (``replay``), or the stored
        position loaded as it is (see :meth:`engine.contract.GameModule.from_dict`).

        Raises:
            engine.InvalidState: the state is damaged (``replay`` also refuses one whose moves break the rules).
        """
        return self.engine.from_dict(state, replay=replay)
