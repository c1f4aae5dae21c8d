"""A server's worth of web pages to look at: finished and running games of both kinds, rated, on a real Redis.

:func:`seed` plays them through the game layer (the bot's own move path) and rates the finished ones as the bot
does (:class:`bot.storage.finished_games.Records`), then makes the links the bot would make: every game's, and the
``public`` server's page. The browser test (``test_browser.py``) opens each page at a phone's and a desktop's width.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bot.core.session import GameLayer, Person
from bot.games import all_kinds
from bot.storage.finished_games import Records
from bot.storage.ratings import Ratings
from bot.storage.store import GameStore
from bot.storage.weblinks import WebLinks

GUILD = 42 << 22
#: The server's name as Discord shows it.
SERVER_NAME = "Tea House ☕ <Go>"
#: The people: one plays many games (an established rating), the rest a few (provisional); two names differ only
#: by markdown marks.
PEOPLE = [
    Person(101, "ann"),
    Person(102, "ben"),
    Person(103, "cleo"),
    Person(104, "`Plain`"),
    Person(105, "Plain"),
    Person(106, "Dagmar Würzburger-Långström"),
]


@dataclass
class Scene:
    """What :func:`seed` made: link tokens by what they open."""

    live_hong: str  # a long running Hong game (44 moves)
    live_hongkong: str  # a running Hong Kong game between `Plain` and Plain
    finished: str  # a finished Hong Kong game
    server: str  # the server's page


def _choose(game, rng: random.Random, keep_going: bool) -> str:
    """A random legal move; with ``keep_going`` one that doesn't end the game, if there is one."""
    moves = list(game.legal_moves())
    rng.shuffle(moves)
    if keep_going:
        for move in moves:
            after = game.copy()
            after.play(move)
            if not after.is_over:
                return move
    return moves[0]


async def _play_out(layer: GameLayer, kind, record, game, rng: random.Random, moves: int | None) -> tuple:
    """Random legal moves until the game is over, or (``moves``) that many were played without ending it."""
    played = 0
    while not game.is_over and (moves is None or played < moves):
        move = _choose(game, rng, keep_going=moves is not None)
        turn = await layer.play(kind, record.channel_id, record.player(game.to_move).id, move)
        record, game = turn.record, turn.game
        played += 1
    return record, game


async def seed(redis, language: str = "en") -> Scene:
    """Fill ``redis`` (flushed by the caller) with the scene; returns its links."""
    kinds = all_kinds()
    store = GameStore(redis)
    layer = GameLayer(store, kinds, rng=random.Random(5))
    records = Records(store, Ratings(redis))
    links = WebLinks(redis)
    await links.settings.update(GUILD, web="public")
    rng = random.Random(11)
    channel = 7000

    async def game(kind_name: str, a: Person, b: Person, moves: int | None, resign: bool = False):
        nonlocal channel
        channel += 1
        kind = kinds[kind_name]
        record = await layer.challenge(kind, guild_id=GUILD, channel_id=channel, challenger=a, opponent=b, options={})
        record, state = await layer.accept(channel, record.id, b)
        record, state = await _play_out(layer, kind, record, state, rng, moves)
        if resign and not state.is_over:
            record = (await layer.resign(kind, channel, record.player(state.to_move).id)).record
        if record.finished:
            await records.process(record)
        token = await links.game_link(GUILD, channel, record.id, language)
        assert token is not None
        return token

    ann, ben, cleo, code, plain, dag = PEOPLE
    for opponent in (ben, cleo, ben, dag, cleo, ben):  # ann: established; the others provisional
        await game("hongkong", ann, opponent, None)
    await game("hongkong", code, plain, 6, resign=True)
    finished = await game("hongkong", ben, cleo, None)
    live_hong = await game("hong", cleo, dag, 44)
    live_hongkong = await game("hongkong", code, plain, 5)
    server = await links.server_link(GUILD, language, name=SERVER_NAME)
    assert server is not None
    return Scene(live_hong, live_hongkong, finished, server)
