"""``/privacy forget`` and the web companion's pictures: a game's board images drawn for its page show the players'
names; they are kept in the web process's memory only (:mod:`bot.web.boards`), never in Redis — the whole of Redis
scanned for the person's id and name, and for any picture, before and after the forget — and once a player is
forgotten the old boards' addresses answer 404 and the page draws them again with "a former player"."""

from __future__ import annotations

import base64

from bot.core.forgetting import forget
from bot.core.session import Person
from bot.games import all_kinds
from bot.games.hongkong import HONGKONG
from bot.storage.finished_games import Records
from bot.storage.privacy import Privacy
from bot.storage.ratings import Ratings
from bot.web.app import WEB

from tests.core.test_privacy import everything
from tests.web.conftest import CH, GUILD, link_of

KINDS = all_kinds()
# a Discord-sized id and a name found nowhere else, so a scan for them can't be fooled by chance
ANNELISE, BEN = Person(180_000_000_000_000_011, "Annelise Quorn"), Person(180_000_000_000_000_012, "Benedikt")


def pictures(values: list[str]) -> set[str]:
    """The values of the store that are pictures (PNG or GIF bytes, kept as they are or in base64)."""
    found = set()
    for value in values:
        try:
            raw = base64.b64decode(value, validate=True)
        except ValueError:
            raw = value.encode("latin-1", "replace")
        if raw.startswith((b"\x89PNG", b"GIF8")):
            found.add(value)
    return found


async def test_forgetting_a_player_leaves_no_picture_of_them_in_redis(layer, redis, store, clock, web_client):
    doc = await layer.challenge(
        HONGKONG, guild_id=GUILD, channel_id=CH, challenger=ANNELISE, opponent=BEN, options={"first": "me"}
    )
    record, _game = await layer.accept(CH, doc.id, BEN)
    await layer.play(HONGKONG, CH, ANNELISE.id, "Q@B2 S@B3")
    token = await link_of(redis, record)
    live = await web_client.get(f"/g/{token}")  # a board of the running game, kept by the web process
    src = (await live.text()).split('id="board" src="')[1].split('"')[0]
    assert (await web_client.get(src)).status == 200
    await layer.resign(HONGKONG, CH, BEN.id, record.id)
    page = await web_client.get(f"/g/{token}")
    html = await page.text()
    boards = {part.split('"')[0] for part in html.split('src="')[1:] if "/b/" in part}
    for board in boards:
        assert (await web_client.get(board)).status == 200
    assert pictures(await everything(redis)) == set()  # the boards shown are in the web process's memory, not Redis
    assert len(web_client.app[WEB].boards) >= 2

    privacy = Privacy(Records(store, Ratings(redis), clock=clock))
    await privacy.forget(ANNELISE.id, lambda r: forget(KINDS[r.kind], r, ANNELISE.id))

    left = await everything(redis)
    text = "\n".join(left)
    assert str(ANNELISE.id) not in text and ANNELISE.name not in text
    assert pictures(left) == set()
    again = await web_client.get(f"/g/{token}")
    html = await again.text()
    assert ANNELISE.name not in html and "a former player" in html
    for board in boards:  # the old boards' addresses show nothing any more
        assert (await web_client.get(board)).status == 404
