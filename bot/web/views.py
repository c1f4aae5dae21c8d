"""What a game's page shows, read from the store without writing and worded like the bot's posts.

:func:`read_game` finds a game by its channel and id (running: the channel's record; finished: its finished record),
reading only (never :meth:`bot.storage.store.GameStore.get`, which sets a damaged record aside). :func:`game_view`
replays its moves once and says, for every ply, what the move did (the game's own ``describe_move``, as in the
channel), the board's alt text (:func:`bot.interface`'s wording, shared through the catalogs) and the URL of its
image: ``…/b/<lang>/<ply>-<hash>.png``, where the hash covers the game, its options, the names and the moves up to
that ply (and the result on the last board of a finished game), so an image never changes under its URL (a
takeback makes a new one) and can be cached for ever.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from ..core.kinds import GameKind
from ..core.record import Record, RecordError, Status
from ..core.session import result_text
from ..i18n import _
from ..i18n.wording import describe_duration
from ..storage.store import GameStore

#: What :func:`plain` reads in a message worded for Discord: an escaped character, or a bold or code mark.
_MARKDOWN = re.compile(r"\\(.)|\*\*|`", re.DOTALL)


def plain(text: str) -> str:
    """A message worded for Discord (names escaped once, :func:`bot.i18n.names.escape`) as plain text, in one pass
    from left to right: an escaped character is itself (``\\``` a backtick a name holds), an unescaped ``**`` or
    ``` ` ``` is dropped (the bot's bold and code), a broken mention (``@`` and a zero-width space) whole again. A
    name such as ```Plain``` comes out as written, never as "Plain". HTML escaping is the templates' (autoescaped).
    """
    return _MARKDOWN.sub(lambda match: match.group(1) or "", text).replace("@\u200b", "@")


@dataclass(frozen=True)
class Found:
    """A game as read: its record and its version (the running record's; None once finished)."""

    record: Record
    version: int | None


async def read_game(store: GameStore, channel_id: int, game_id: str) -> Found | None:
    """The game ``game_id`` of the channel: its running record (with its version) if it is the channel's current
    one, else its finished record, else None (also for a challenge not yet accepted, or a damaged record). Reads
    only: one ``HGETALL``, and one ``GET`` when it is not running."""
    raw = await store.raw(channel_id)
    if raw.get("doc"):
        try:
            record = Record.from_json(raw["doc"])
        except (RecordError, ValueError):
            record = None
        if record is not None and record.id == game_id:
            if record.status is not Status.ACTIVE:
                return None
            return Found(record, int(raw.get("v", "0") or 0))
    try:
        finished = await store.finished(channel_id, game_id)
    except (RecordError, ValueError):
        return None
    if finished is None or finished.state is None:
        return None
    return Found(finished, None)


@dataclass(frozen=True)
class Frame:
    """One ply of a game: 0 the opening, then after each move. ``move``: the notation (None at 0); ``mover``: who
    played it; ``text``: what it did, in words (may be ""); ``src``: the board image's path; ``alt``: its alt text;
    ``status``: whose turn it is there, as its board's header says it (or, on a finished game's last board, "Game
    over." and the result) — what the page's headline says while that board is shown."""

    ply: int
    move: str | None
    mover: str
    text: str
    turn: int
    src: str
    alt: str
    status: str = ""


@dataclass(frozen=True)
class Seat:
    """A player as the page shows them: display name only (never an id), side, to move, the computer."""

    name: str
    role: str
    to_move: bool
    computer: bool


@dataclass(frozen=True)
class GameView:
    """Everything a game's page shows, in one language (see :func:`game_view`); ``prompt``: what the player to move
    must do beyond a move (a Hong dragon's action), as the channel is told, or ""."""

    title: str
    kind: str
    version: int
    finished: bool
    seats: tuple[Seat, Seat]
    status: str
    score: str
    prompt: str
    deadline: float | None
    frames: tuple[Frame, ...]

    @property
    def last(self) -> Frame:
        return self.frames[-1]

    def time_left(self, now: float) -> str:
        """The time the player to move has left, in words ("2 hours 5 minutes"), or "" (no timer, or finished)."""
        if self.deadline is None or self.finished:
            return ""
        return describe_duration(max(0.0, self.deadline - now))

    def summary(self) -> dict[str, Any]:
        """The state sent to live pages: version, finished, the last ply and its board, whose turn or the result."""
        return {
            "version": self.version,
            "finished": self.finished,
            "ply": self.last.ply,
            "src": self.last.src,
            "status": self.status,
        }


def frame_hash(record: Record, moves: list[str], ply: int, final: bool) -> str:
    """16 hex digits of SHA-256 over what a board at ``ply`` shows: game, options, names, moves so far, and the
    result on a finished game's last board."""
    ended = record.ended_off_board
    shown = [
        record.kind,
        record.id,
        record.options,
        list(record.plain_names),
        moves[:ply],
        [ended.winner, ended.reason.value] if final and ended is not None else None,
    ]
    return hashlib.sha256(json.dumps(shown, sort_keys=True, default=str).encode()).hexdigest()[:16]


def game_view(kind: GameKind, found: Found, token: str, language: str) -> GameView:
    """The page of a game (in the current language, which should be ``language``: the images' URLs carry it).

    Raises:
        engine.IllegalMove / engine.InvalidState: the record does not replay (a damaged record).
    """
    record = found.record
    names, worded = record.plain_names, record.names  # shown as they are; in a message worded for Discord (escaped)
    moves = list(kind.load(record.game_state, replay=False).moves)
    game = kind.new_game(record.options)
    frames: list[Frame] = []
    for ply in range(len(moves) + 1):
        mover_seat = game.to_move
        if ply:
            game.play(moves[ply - 1])
        final = record.finished and ply == len(moves)
        src = f"/g/{token}/b/{language}/{ply}-{frame_hash(record, moves, ply, final)}.png"
        if final:
            # TRANSLATORS: the headline of a finished game's page; {result} says how it ended ("Ben wins 13–12 …").
            headline = _("Game over. {result}", result=plain(result_text(kind, record, game)))
        elif game.is_over:
            headline = ""
        else:
            headline = _("{player} ({role}) to move.", player=names[game.to_move], role=kind.role(game.to_move))
        frames.append(
            Frame(
                ply=ply,
                move=moves[ply - 1] if ply else None,
                mover=names[mover_seat] if ply else "",
                text=plain(kind.describe_move(game, worded)) if ply else "",
                turn=kind.turn_number(game),
                src=src,
                alt=plain(_alt(kind, game, record, final)),
                status=headline,
            )
        )
    if record.finished:
        status = plain(result_text(kind, record, game))
    else:
        seat = game.to_move
        # TRANSLATORS: {player} is the name of the player to move, {role} their side ("blue", "emperor").
        status = _("{player} ({role}) to move.", player=names[seat], role=kind.role(seat))  # (not markdown)
    seats = tuple(
        Seat(
            names[seat],
            kind.role(seat),
            not record.finished and game.to_move == seat,
            record.player(seat).bot,
        )
        for seat in (0, 1)
    )
    version = found.version if found.version is not None else 0
    return GameView(
        title=kind.title,
        kind=kind.name,
        version=version,
        finished=record.finished,
        seats=(seats[0], seats[1]),
        status=status,
        score=plain(kind.score(game, worded)),
        prompt="" if record.finished or record.player(game.to_move).bot else plain(kind.prompt(game, worded)),
        deadline=record.deadline,
        frames=tuple(frames),
    )


def _alt(kind: GameKind, game, record: Record, final: bool) -> str:
    """A board's alt text, worded as the bot's (:func:`bot.interface.posts.board_alt`): the game, the turn, the score,
    and whose turn it is — or, on a finished game's last board, how it ended."""
    names = record.names  # (escaped: the whole text is markdown, read by :func:`plain`)
    score = kind.score(game, names)
    if final:
        status = result_text(kind, record, game)
    elif game.is_over:
        status = ""
    else:
        status = _("{player} ({role}) to move.", player=names[game.to_move], role=kind.role(game.to_move))
    # TRANSLATORS: the alt text of a board image. {game} is "Hong Kong" or "Hong"; {turn} a number; {score} the score
    # line ("Buildings: Ann 5 – Ben 4"); {status} whose turn it is or how the game ended (a sentence).
    return _(
        "{game} board, turn {turn}. {score}. {status}",
        game=kind.title,
        turn=kind.turn_number(game),
        score=score.rstrip("."),
        status=status,
    ).strip()


__all__ = ["Found", "Frame", "GameView", "Seat", "read_game", "game_view", "frame_hash", "plain"]
