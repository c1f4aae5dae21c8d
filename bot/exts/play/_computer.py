"""The computer opponent's turns: when the computer is to move, think in a worker process and play.

One task per position (keyed by the engine state itself: after a takeback the same move count can be another
position); a move is only committed for the exact position it was chosen for, so a human's takeback,
resignation or an abort that lands meanwhile simply wins.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from typing import Awaitable, Protocol

from ...budget import COMPUTER_REPLY
from ...interface.computer_pool import Thinker
from ...core.errors import UserError
from ...core.kinds import Game, GameKind
from ...core.record import Record, Status
from ...core.session import GameLayer, Turn

log = logging.getLogger(__name__)


class PostTurn(Protocol):
    """Posts a committed turn with no interaction, in the game's channel (the computer's move, a forfeit, the
    outbox's retry — ``reply``: the interaction left on "thinking…" to complete, see :func:`bot.posts.post_turn`).
    True if the board was posted."""

    def __call__(
        self, interaction: None, kind: GameKind, turn: Turn, *, reply: str | None = None
    ) -> Awaitable[bool]: ...


class Computer:
    """Drives the computer's turns in every running game of this process.

    Args:
        layer: the game layer (reads the position, commits the move).
        post: posts the computer's committed turn (and so lets the game go on).
        workers: the processes thinking (each one move at a time, at a lower OS priority than the bot).
    """

    def __init__(self, layer: GameLayer, post: PostTurn, workers: int = 1) -> None:
        self.layer = layer
        self.post = post
        self.thinker = Thinker(workers)
        self._thinking: dict[tuple[int, str, str], asyncio.Task] = {}

    @property
    def pending(self) -> int:
        """The computer's moves waiting for a worker or being thought."""
        return len(self._thinking)

    def to_move(self, record: Record, game: Game) -> None:
        """If the computer is to move in this running game, let it think (in a worker process) and move."""
        if record.status is not Status.ACTIVE or game.is_over or not record.player(game.to_move).bot:
            return
        key = (record.channel_id, record.id, json.dumps(record.state, sort_keys=True))
        if key not in self._thinking:
            self._thinking[key] = asyncio.create_task(self._move(*key))

    async def _move(self, channel_id: int, game_id: str, state_key: str) -> None:
        until = time.time() + COMPUTER_REPLY  # (the reply's deadline runs from now: README's "a couple of seconds")
        try:
            stored = await self.layer.store.get(channel_id)
            record = stored.record if stored else None
            if (
                record is None
                or record.id != game_id
                or record.status is not Status.ACTIVE
                or json.dumps(record.state, sort_keys=True) != state_key
            ):
                return  # that position is gone (a move, takeback, resignation or abort came first)
            kind = self.layer.kinds[record.kind]
            game = self.layer.game_of(record)
            player = record.player(game.to_move)
            seed = int.from_bytes(f"{game_id}:{len(game.moves)}".encode(), "big") % (2**31)
            try:
                # (a computer's seat stored without its level plays at the challenge's default)
                move = await self.thinker.choose(kind.name, record.game_state, player.level or "medium", seed, until)
            except Exception:
                # never leave the human waiting: a worker failure (or a broken pool) falls back to a legal move
                log.exception("the computer's search failed in channel %s; playing a random legal move", channel_id)
                self.thinker.close()
                move = random.Random(seed).choice(game.legal_moves())
            turn = await self.layer.play(kind, channel_id, player.id, move, expected_state=record.state)
            await self.post(None, kind, turn)
        except UserError:
            pass  # the position changed meanwhile (another process moved, a takeback, a resignation): not ours
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("computer move in channel %s failed", channel_id)
        finally:
            self._thinking.pop((channel_id, game_id, state_key), None)

    def close(self) -> None:
        """Stop thinking: cancel every pending move and shut the worker pool down."""
        for task in list(self._thinking.values()):
            task.cancel()
        self.thinker.close()


__all__ = ["Computer"]
