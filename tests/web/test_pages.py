"""The web companion's pages against a real Redis: a game's page, its boards, its live stream, the leaderboards,
and every kind of bad input (unknown, garbled and revoked tokens, a server with web off, ?ply= out of range, a
flood from one address, a Last-Event-ID from the future or garbage)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import random
import signal
import time

import pytest

from aiohttp.test_utils import TestClient, TestServer
from PIL import Image

from bot.games import all_kinds
from bot.games.hongkong import HONGKONG
from bot.storage.finished_games import Records
from bot.storage.ratings import Ratings
from bot.storage.settings import SettingsStore
from bot.storage.weblinks import WebLinks
from bot.web.app import HEALTH_EVERY, WEB, Web, make_app
from bot.web.limits import STREAMS, RateLimiter, client_key

from tests.storage.contents import contents
from tests.web.conftest import ANN, BEN, CH, link_of, start_game


async def test_a_game_page_shows_players_moves_and_board(layer, redis, web_client):
    record, _game = await start_game(layer)
    await layer.play(HONGKONG, CH, ANN.id, "Q@B2 S@B3")
    token = await link_of(redis, record)
    page = await web_client.get(f"/g/{token}")
    assert page.status == 200
    html = await page.text()
    assert "Ann &lt;b&gt;&amp;" in html and "<b>&" not in html  # the name escaped, never markup
    assert "Q@B2 S@B3" in html and 'data-version="3"' in html
    assert "noindex" in html and page.headers["X-Robots-Tag"] == "noindex"
    assert 'property="og:image" content="https://games.example.org/g/' in html
    assert record.id not in html  # the game id is not the link, nor shown
    src = html.split('id="board" src="')[1].split('"')[0]
    image = await web_client.get(src)
    assert image.status == 200 and "immutable" in image.headers["Cache-Control"]
    assert Image.open(io.BytesIO(await image.read())).size[0] > 100


async def test_bad_tokens_and_web_off_are_404_saying_nothing(layer, redis, web_client):
    record, _game = await start_game(layer)
    token = await link_of(redis, record)
    unknown = await web_client.get("/g/AAAAAAAAAAAAAAAAAAAAAA")
    garbled = await web_client.get(f"/g/{token[:-1]}")
    weird = await web_client.get("/g/%3Cscript%3E")
    bodies = {await r.text() for r in (unknown, garbled, weird)}
    assert {r.status for r in (unknown, garbled, weird)} == {404}
    assert len(bodies) == 1  # one page for every kind of missing
    await SettingsStore(redis).update(record.guild_id, web="off")
    off = await web_client.get(f"/g/{token}")
    assert off.status == 404 and await off.text() in bodies
    events = await web_client.get(f"/g/{token}/events")
    assert events.status == 404


async def test_revoked_links_answer_404_and_new_ones_work(layer, redis, web_client):
    record, _game = await start_game(layer)
    token = await link_of(redis, record)
    assert (await web_client.get(f"/g/{token}")).status == 200
    settings = await SettingsStore(redis).revoke_web_links(record.guild_id)
    assert settings.web_epoch == 1
    assert (await web_client.get(f"/g/{token}")).status == 404
    fresh = await link_of(redis, record)
    assert fresh != token and (await web_client.get(f"/g/{fresh}")).status == 200


async def test_ply_out_of_range_or_not_a_number_is_a_clear_page(layer, redis, web_client):
    record, _game = await start_game(layer)
    await layer.play(HONGKONG, CH, ANN.id, "Q@B2 S@B3")
    token = await link_of(redis, record)
    for asked in ("7", "-1", "abc", "1e3", "99999999999999999999999", "-0", "+1", " 1", "1 ", "٣", "¹", "１"):
        page = await web_client.get(f"/g/{token}", params={"ply": asked})
        assert page.status == 400, asked
        assert "choose a number from 0 (the start) to 1" in await page.text()
    ok = await web_client.get(f"/g/{token}", params={"ply": "0"})
    assert ok.status == 200 and 'value="0"' in await ok.text()
    padded = await web_client.get(f"/g/{token}", params={"ply": "01"})  # leading zeros: the number they pad
    assert padded.status == 200 and 'data-ply="1"' in await padded.text()
    empty = await web_client.get(f"/g/{token}?ply=")  # no ply: the current position
    assert empty.status == 200 and 'data-ply="1"' in await empty.text()


async def test_a_raw_non_ascii_ply_is_refused_without_a_traceback(layer, redis, web_client, caplog):
    """``?ply=٣`` sent as raw UTF-8 bytes (not percent-encoded, as a browser would) in the request line: aiohttp's
    parser refuses it (400) before any page sees it; it is logged as one INFO line, no ERROR traceback. Sent
    percent-encoded (what browsers do) it gets the friendly page (above)."""
    record, _game = await start_game(layer)
    token = await link_of(redis, record)
    reader, writer = await asyncio.open_connection(web_client.host, web_client.port)
    writer.write(f"GET /g/{token}?ply=٣ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    answer = (await asyncio.wait_for(reader.read(), 10)).decode(errors="replace")
    writer.close()
    assert " 400 " in answer.splitlines()[0], answer[:200]
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert any("refused with 400" in r.getMessage() and not r.exc_info for r in caplog.records)


async def test_healthz_answers_503_when_redis_does_not(layer, redis, redis_server, web_client):
    if "url" in redis_server:
        pytest.skip("the Redis is not this test's own to freeze (HONGBOT_TEST_REDIS_URL)")
    assert (await web_client.get("/healthz")).status == 200
    pid = (await redis.info("server"))["process_id"]
    await asyncio.sleep(HEALTH_EVERY + 0.1)  # (an outcome answers for HEALTH_EVERY seconds)
    os.kill(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        answer = await web_client.get("/healthz")
        took = time.monotonic() - started
    finally:
        os.kill(pid, signal.SIGCONT)
    assert answer.status == 503 and (await answer.text()).startswith("redis: no answer within 1 s")
    assert took < 5
    await asyncio.sleep(HEALTH_EVERY + 0.1)
    assert (await web_client.get("/healthz")).status == 200


async def test_one_client_holds_at_most_streams_open(layer, redis):
    record, _game = await start_game(layer)
    token = await link_of(redis, record)
    state = Web(redis, "http://localhost", limiter=RateLimiter(capacity=10_000, rate=1000))
    client = TestClient(TestServer(make_app(state)))
    await client.start_server()
    try:
        streams = [await client.get(f"/g/{token}/events") for _ in range(STREAMS)]
        assert [s.status for s in streams] == [200] * STREAMS
        refused = await client.get(f"/g/{token}/events")
        assert refused.status == 429 and f"at most {STREAMS}" in await refused.text()
        assert (await client.get(f"/g/{token}")).status == 200  # the pages still answer
        streams.pop().close()
        for _ in range(50):
            if state.streams.count("127.0.0.1") < STREAMS:
                break
            await asyncio.sleep(0.05)
        again = await client.get(f"/g/{token}/events")
        assert again.status == 200
        again.close()
        for stream in streams:
            stream.close()
    finally:
        await client.close()


def test_ipv6_clients_are_counted_by_their_64():
    assert client_key("2001:db8:1:2::1") == client_key("2001:db8:1:2:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64"
    assert client_key("2001:db8:1:3::1") == "2001:db8:1:3::/64"
    assert client_key("203.0.113.7") == "203.0.113.7" != client_key("203.0.113.8")
    assert client_key("::ffff:203.0.113.7") == "203.0.113.7"
    assert client_key("?") == "?" and client_key("garbage") == "garbage"


async def test_one_ipv6_host_with_many_addresses_shares_one_bucket(layer, redis):
    record, _game = await start_game(layer)
    token = await link_of(redis, record)
    state = Web(redis, "http://localhost", limiter=RateLimiter(capacity=3, rate=0.01), proxies=1)
    client = TestClient(TestServer(make_app(state)))
    await client.start_server()
    try:

        async def status(forwarded: str) -> int:
            return (await client.get(f"/g/{token}", headers={"X-Forwarded-For": forwarded})).status

        assert [await status(f"2001:db8:1:2::{n:x}") for n in range(1, 5)] == [200, 200, 200, 429]
        assert await status("2001:db8:1:3::1") == 200  # another /64
    finally:
        await client.close()


async def test_a_flood_from_one_address_is_refused_with_429(layer, redis):
    record, _game = await start_game(layer)
    token = await link_of(redis, record)
    state = Web(redis, "http://localhost", limiter=RateLimiter(capacity=20, rate=1))
    client = TestClient(TestServer(make_app(state)))
    await client.start_server()
    try:
        statuses = [(await client.get(f"/g/{token}")).status for _ in range(30)]
    finally:
        await client.close()
    assert statuses[:20] == [200] * 20 and statuses[20:] == [429] * 10


async def read_event(response, timeout: float = 5.0) -> dict[str, str]:
    """The next event of an SSE stream (comments and retry lines skipped) as its fields."""
    fields: dict[str, str] = {}
    while True:
        line = (await asyncio.wait_for(response.content.readline(), timeout)).decode().rstrip("\n")
        if not line:
            if fields:
                return fields
            continue
        if line.startswith((":", "retry:")):
            continue
        name, _sep, value = line.partition(": ")
        fields[name] = value


async def test_the_live_stream_sends_each_commit_with_its_version(layer, redis, web_client):
    record, _game = await start_game(layer)
    token = await link_of(redis, record)
    stream = await web_client.get(f"/g/{token}/events")
    assert stream.headers["Content-Type"] == "text/event-stream"
    first = await read_event(stream)
    assert first["id"] == "2" and first["event"] == "state"
    await layer.play(HONGKONG, CH, ANN.id, "Q@B2 S@B3")
    second = await read_event(stream)
    assert second["id"] == "3" and "Q@B2 S@B3" in second["data"]
    data = json.loads(second["data"])
    assert data["ply"] == 1 and data["move"].startswith('<li data-ply="1"') and data["src"].endswith(".png")
    stream.close()
    whole = await web_client.get(f"/g/{token}/live")  # what a page that missed a version reads
    assert whole.status == 200 and whole.headers["Cache-Control"] == "private, no-store"
    assert (await whole.text()).count("<li data-ply=") == 2


async def test_last_event_id_current_future_or_garbage(layer, redis, web_client):
    record, _game = await start_game(layer)
    token = await link_of(redis, record)
    for sent, expect_now in (("999", True), ("garbage", True), ("2", False)):
        stream = await web_client.get(f"/g/{token}/events", headers={"Last-Event-ID": sent})
        if expect_now:  # from the future or unreadable: the state now
            assert (await read_event(stream))["id"] == "2"
        else:  # already has version 2: nothing until the next commit
            await layer.play(HONGKONG, CH, ANN.id, "Q@B2 S@B3")
            assert (await read_event(stream))["id"] == "3"
        stream.close()


async def test_a_finished_game_is_its_replay(layer, redis, web_client):
    record, _game = await start_game(layer)
    await layer.play(HONGKONG, CH, ANN.id, "Q@B2 S@B3")
    await layer.resign(HONGKONG, CH, BEN.id)
    token = await link_of(redis, record)
    html = await (await web_client.get(f"/g/{token}")).text()
    assert 'data-finished="true"' in html and "Game over." in html and "resigned" in html
    assert 'id="slider" min="0" max="1"' in html
    stream = await web_client.get(f"/g/{token}/events")
    assert (await read_event(stream))["event"] == "state"
    assert (await read_event(stream))["event"] == "end"


async def test_the_page_is_in_the_servers_language(layer, redis, web_client):
    record, _game = await start_game(layer)
    token = await link_of(redis, record, language="de")
    html = await (await web_client.get(f"/g/{token}")).text()
    assert '<html lang="de">' in html and "Züge" in html


async def test_leaderboards(layer, redis, web_client):
    record, _game = await start_game(layer)
    page = await web_client.get("/leaderboard/hongkong")
    assert page.status == 200 and "global" in (await page.text()).lower()
    assert (await web_client.get("/leaderboard/chess")).status == 404
    web_client.app[WEB].global_leaderboard = False  # the operator's default: not on the open web
    assert (await web_client.get("/leaderboard/hongkong")).status == 404
    web_client.app[WEB].global_leaderboard = True
    token = await link_of(redis, record, mode="link")
    server = WebLinks(redis)
    assert await server.server_link(record.guild_id, "en") is None  # only public servers have a page
    await server.settings.update(record.guild_id, web="public")
    server_token = await server.server_link(record.guild_id, "en")
    page = await web_client.get(f"/s/{server_token}")
    text = await page.text()
    assert page.status == 200 and f"/g/{token}" in text and "Ben" in text
    await server.settings.update(record.guild_id, web="link")
    assert (await web_client.get(f"/s/{server_token}")).status == 404


async def test_the_web_process_writes_nothing(layer, redis, web_client):
    """Pages, boards, the stream, a 404 and the leaderboards: afterwards every key is as it was — the board images
    are kept in the web process's memory, never in the game store (:mod:`bot.web.boards`)."""
    record, _game = await start_game(layer)
    await layer.play(HONGKONG, CH, ANN.id, "Q@B2 S@B3")
    token = await link_of(redis, record)
    before = await contents(redis)
    html = await (await web_client.get(f"/g/{token}")).text()
    for src in {part.split('"')[0] for part in html.split('data-src="')[1:]}:
        assert (await web_client.get(src)).status == 200
    stream = await web_client.get(f"/g/{token}/events")
    await read_event(stream)
    stream.close()
    for path in ("/g/AAAAAAAAAAAAAAAAAAAAAA", "/leaderboard/hongkong", f"/g/{token}?ply=9"):
        await web_client.get(path)
    assert await contents(redis) == before
    assert len(web_client.app[WEB].boards) == 2  # the two boards, in memory


async def test_an_idle_stream_gets_keep_alives(layer, redis):
    record, _game = await start_game(layer)
    token = await link_of(redis, record)
    state = Web(redis, "http://localhost", keep_alive=0.2)
    client = TestClient(TestServer(make_app(state)))
    await client.start_server()
    try:
        stream = await client.get(f"/g/{token}/events", headers={"Last-Event-ID": "2"})  # up to date: no state
        lines = [(await asyncio.wait_for(stream.content.readline(), 5)).decode().strip() for _ in range(4)]
        assert lines == ["retry: 2000", "", ": keep-alive", ""]
        stream.close()
    finally:
        await client.close()


async def test_a_board_url_stops_working_when_what_it_showed_changed(layer, redis, web_client):
    """A takeback (or a player erased) changes what a ply shows: its old image URL is 404, never the cached image."""
    record, _game = await start_game(layer)
    await layer.play(HONGKONG, CH, ANN.id, "Q@B2 S@B3")
    token = await link_of(redis, record)
    html = await (await web_client.get(f"/g/{token}")).text()
    src = html.split('id="board" src="')[1].split('"')[0]
    assert (await web_client.get(src)).status == 200
    forged = src[: -len("0123456789abcdef.png")] + "0123456789abcdef.png"
    assert (await web_client.get(forged)).status == 404
    raw = await layer.store.raw(CH)
    doc = json.loads(raw["doc"])
    doc["players"][0]["name"] = "Someone else"
    await redis.hset(layer.store.keys.game(CH), "doc", json.dumps(doc))
    assert (await web_client.get(src)).status == 404


@pytest.mark.parametrize("name", sorted(all_kinds()))
async def test_every_game_has_its_page_and_boards(layer, redis, web_client, name):
    """Each game the bot hosts (from the registry): a game played a few moves has its page, every move worded, and
    every board drawn; the answers carry the security headers."""
    kind = all_kinds()[name]
    record = await layer.challenge(kind, guild_id=9, channel_id=CH, challenger=ANN, opponent=BEN, options={})
    record, game = await layer.accept(CH, record.id, BEN)
    rng = random.Random(4)
    for _ in range(4):
        if game.is_over:
            break
        seat = game.to_move
        game = (await layer.play(kind, CH, record.player(seat).id, rng.choice(game.legal_moves()))).game
    token = await link_of(redis, record)
    page = await web_client.get(f"/g/{token}")
    html = await page.text()
    assert page.status == 200 and page.headers["Referrer-Policy"] == "no-referrer"
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]
    assert html.count("<li data-ply=") == len(game.moves) + 1
    for move in game.moves:
        assert f"<code>{move}</code>" in html
    for src in {part.split('"')[0] for part in html.split('data-src="')[1:]}:
        image = await web_client.get(src)
        assert image.status == 200 and Image.open(io.BytesIO(await image.read())).format == "PNG"


async def test_a_watched_game_that_moves_to_its_thread_is_heard_there(layer, redis, web_client):
    """The link follows the game (the bot writes its new channel with the next board); the live stream listens to
    the new channel from its next read on."""
    record, _game = await start_game(layer)
    token = await link_of(redis, record)
    stream = await web_client.get(f"/g/{token}/events")
    assert (await read_event(stream))["id"] == "2"
    moved = await layer.move_to_thread(record, 777)
    assert moved.channel_id == 777
    await WebLinks(redis).game_link(record.guild_id, 777, record.id, "en")  # the thread's first board
    hub = web_client.app[WEB].hub
    # the refresh the move's message started may have read the link between the move and its board: the page was
    # then told "gone" and reloads (once that refresh is over and the old stream has left)
    for _ in range(200):
        topic = hub.topics.get(token)
        if topic is not None and (topic._refreshing is None or topic._refreshing.done()) and not topic.gone:
            break
        if topic is None:
            stream.close()
            stream = await web_client.get(f"/g/{token}/events")
            await read_event(stream)
        else:
            await asyncio.sleep(0.02)
    await hub.refresh(hub.topics[token])
    assert hub.topics[token].channel_id == 777 and 777 in hub.feed.watched
    await layer.play(HONGKONG, 777, ANN.id, "Q@B2 S@B3")
    events = [await read_event(stream)]
    if "Q@B2 S@B3" not in events[0]["data"]:  # (the move to the thread itself first: version 1 of the thread)
        events.append(await read_event(stream))
    assert "Q@B2 S@B3" in events[-1]["data"] and events[-1]["id"] == "2"
    stream.close()


async def test_behind_a_proxy_each_client_is_limited_by_its_forwarded_address(layer, redis):
    """With ``web_proxies = 1`` the limit counts the address the proxy saw (the rightmost X-Forwarded-For entry),
    never one a client wrote further left."""
    record, _game = await start_game(layer)
    token = await link_of(redis, record)
    state = Web(redis, "http://localhost", limiter=RateLimiter(capacity=3, rate=0.01), proxies=1)
    client = TestClient(TestServer(make_app(state)))
    await client.start_server()
    try:

        async def status(forwarded: str) -> int:
            return (await client.get(f"/g/{token}", headers={"X-Forwarded-For": forwarded})).status

        assert [await status("10.0.0.1") for _ in range(4)] == [200, 200, 200, 429]
        assert await status("10.0.0.2") == 200  # another client behind the same proxy
        assert await status("1.2.3.4, 10.0.0.1") == 429  # a spoofed entry on the left changes nothing
    finally:
        await client.close()


async def test_a_store_that_does_not_answer_in_time_is_a_503_not_a_500(layer, redis, redis_server, caplog):
    """A flood takes every connection of the web process's pool: a page then says "back in a moment" (503,
    Retry-After) with one warning line — not a 500 and a traceback."""
    import redis.asyncio as aioredis

    record, _game = await start_game(layer)
    token = await link_of(redis, record)
    pool = aioredis.BlockingConnectionPool(
        connection_class=redis.connection_pool.connection_class,
        max_connections=1,
        timeout=0.2,
        **redis.connection_pool.connection_kwargs,
    )
    tiny = aioredis.Redis(connection_pool=pool)
    client = TestClient(TestServer(make_app(Web(tiny, "http://localhost"))))
    await client.start_server()
    holder = asyncio.create_task(tiny.blpop(["hongbot:test:never"], timeout=3))  # the pool's one connection, held
    try:
        await asyncio.sleep(0.1)
        with caplog.at_level(logging.WARNING, logger="bot.web.app"):
            answer = await client.get(f"/g/{token}")
        assert answer.status == 503 and answer.headers["Retry-After"] == "5"
        assert "back in a moment" in await answer.text()
        assert any("did not answer" in r.getMessage() and r.exc_info is None for r in caplog.records)
    finally:
        holder.cancel()
        await client.close()
        await tiny.aclose()


async def test_a_servers_page_is_titled_with_its_name_and_lists_its_recent_games(layer, redis, web_client):
    """The name the bot last wrote with the server's link (escaped), the running game and the finished ones with
    how they ended and their pages; a renamed server is retitled, and a link made without a name keeps it."""
    record, _game = await start_game(layer)
    await layer.play(HONGKONG, CH, ANN.id, "Q@B2 S@B3")
    finished = (await layer.resign(HONGKONG, CH, BEN.id)).record
    await Records(layer.store, Ratings(redis)).process(finished)
    token = await link_of(redis, record, mode="public")
    links = WebLinks(redis)
    server = await links.server_link(record.guild_id, "en", name="Tea <b>House</b>")
    html = await (await web_client.get(f"/s/{server}")).text()
    assert "<title>Tea &lt;b&gt;House&lt;/b&gt; · Games and leaderboard</title>" in html
    assert "Ben resigned: Ann &lt;b&gt;&amp; wins." in html and f'href="/g/{token}"' in html
    assert await links.server_link(record.guild_id, "en", name="Tea Room") == server
    assert "<title>Tea Room · " in await (await web_client.get(f"/s/{server}")).text()
    await WebLinks(redis).server_link(record.guild_id, "en")  # (another process, no name known)
    assert "<title>Tea Room · " in await (await web_client.get(f"/s/{server}")).text()
