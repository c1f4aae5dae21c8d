"""A tournament's page on the web companion (bot/web/tournaments.py) against a real Redis: its standings, the round's
pairings with each running game's Watch live link (only where the bot made the game's link), its live part; and
every kind of bad input answered by the one 404 — web off, a revoked link, a game's or a server's token at /t/, a
tournament's at /g/ and /s/, unknown and garbled tokens, a tournament gone."""

from __future__ import annotations

from bot.core.tournament.event import Format, Tournament
from bot.storage.settings import SettingsStore
from bot.storage.tournaments import Tournaments
from bot.storage.weblinks import WebLinks
from tests.conftest import Clock

GUILD, CHANNEL = 9, 700


def running(n: int = 6) -> Tournament:
    """A Swiss of ``n`` players in round 2: round 1 played (seat 0 won every board), round 2's boards being played."""
    t = Tournament("tw", GUILD, CHANNEL, 1, "hong", Format.SWISS, 3, created=1.0, name="Spring <Cup> & co")
    for i in range(1, n + 1):
        t = t.join(100 + i, f"Player <{i}>")
    t = t.start()
    for i, _b in enumerate(t.boards[0]):
        t = t.with_board(0, i, game=f"a{i}", channel=9000 + i).record_result(f"a{i}", 0)
    t = t.next_round()
    for i, _b in enumerate(t.boards[1]):
        t = t.with_board(1, i, game=f"b{i}", channel=9100 + i)
    return t


async def make(redis, t: Tournament, web: str = "link", linked: tuple[str, ...] = ("b0", "b1")) -> str:
    """Store ``t``, set the server's ``/settings web``, make the links of the games ``linked`` (as the bot does when
    posting their boards) and the tournament's; its token."""
    await Tournaments(redis, Clock()).create(t)
    links = WebLinks(redis)
    await links.settings.update(GUILD, web=web)
    for game in linked:
        await links.game_link(GUILD, CHANNEL, game, "en")
    token = await links.tournament_link(GUILD, CHANNEL, t.id, "en")
    assert token is not None
    return token


async def test_a_tournament_page_shows_standings_pairings_and_watch_links(redis, web_client):
    t = running()
    token = await make(redis, t)
    page = await web_client.get(f"/t/{token}")
    assert page.status == 200 and page.headers["X-Robots-Tag"] == "noindex"
    html = await page.text()
    assert "Spring &lt;Cup&gt; &amp; co" in html and "<Cup>" not in html  # names escaped, never markup
    assert "Hong · Swiss" in html and "Round 2 of 3 is being played." in html and "● Live" in html
    assert "Live standings" in html and "Player &lt;1&gt;" in html
    shown = html.split('id="live"')[1]
    assert shown.count("being played") == 1 + len(t.boards[1])  # the status, then every board of round 2
    links = WebLinks(redis)
    secret = await links.secret()
    from bot.storage.weblinks import game_subject, make_token

    for game in ("b0", "b1"):
        assert f'href="/g/{make_token(secret, game_subject(GUILD, game, 0))}"' in html
    assert html.count(">Watch live →</a>") == 2  # b2's link was never made: no link to it
    assert t.id not in token and f'data-live="/t/{token}/live"' in html  # (the link is a token, not the id)
    # the standings: seat 0 won every board of round 1: three players on 1 point, three on 0
    standings = html.split("Live standings")[1]
    assert standings.count('<td class="num">1</td><td>Player') == 3
    assert "Ties are broken by Buchholz, SB, DE" in standings
    # the script that keeps it live, and the live part it reads
    assert 'data-live="/t/' in html and "tournament.js" in html
    live = await web_client.get(f"/t/{token}/live")
    assert live.status == 200 and "Round 2" in await live.text()


async def test_the_live_part_follows_results_and_the_end(redis, web_client):
    t = running(n=4)
    token = await make(redis, t)
    store = Tournaments(redis, Clock())
    await store.record(CHANNEL, t.id, "b0", "0-1")
    live = await (await web_client.get(f"/t/{token}/live")).text()
    assert "0–1" in live and live.count("being played") == 2  # the status, and board 2
    winner = t.boards[1][0].second  # counted at once in the live standings: 2 points, alone at the top
    top = '<tr><td class="num">1</td><td>Player &lt;' + str(winner - 100) + '&gt;</td><td class="num">2</td>'
    assert top in live
    await store.record(CHANNEL, t.id, "b1", "=")
    await store.advance(CHANNEL, t.id, 2)
    live = await (await web_client.get(f"/t/{token}/live")).text()
    assert "Round 3" in live and "Live standings" in live and 'data-running="true"' in live
    done = await store.update(CHANNEL, t.id, lambda x: (x.cancel(), (), None))
    live = await (await web_client.get(f"/t/{token}/live")).text()
    assert done.phase.value == "cancelled" and "Cancelled." in live and 'data-running="false"' in live
    assert "Standings when it was cancelled" in live
    assert "● Live" not in live


async def test_a_sign_up_lists_its_players_and_a_public_server_is_indexed(redis, web_client):
    t = Tournament("ts", GUILD, CHANNEL, 1, "hongkong", Format.DOUBLE_ROUND_ROBIN, 3, created=1.0)
    t = t.join(5, "Ann").join(6, "Ben")
    token = await make(redis, t, web="public", linked=())
    page = await web_client.get(f"/t/{token}")
    html = await page.text()
    assert page.status == 200 and "X-Robots-Tag" not in page.headers and "noindex" not in html
    assert "Hong Kong double round robin #ts" in html and "Sign-up: 2 players so far." in html
    assert "<li>Ann</li>" in html and "<li>Ben</li>" in html


async def test_every_kind_of_bad_tournament_link_is_the_one_404(layer, redis, web_client):
    from tests.web.conftest import link_of, start_game

    t = running()
    token = await make(redis, t)
    record, _game = await start_game(layer, guild=GUILD)
    game_token = await link_of(redis, record)
    server_token = await WebLinks(redis).server_link(GUILD, "en")
    assert server_token is None  # (web is "link": no server page)
    await SettingsStore(redis).update(GUILD, web="public")
    server_token = await WebLinks(redis).server_link(GUILD, "en")
    missing = await (await web_client.get("/t/AAAAAAAAAAAAAAAAAAAAAA")).text()
    for path in (
        "/t/AAAAAAAAAAAAAAAAAAAAAA",  # unknown
        f"/t/{token[:-1]}",  # garbled
        "/t/%3Cscript%3E",  # not a token at all
        f"/t/{game_token}",  # a game's token
        f"/t/{server_token}",  # a server's token
        f"/t/{game_token}/live",
        f"/g/{token}",  # the tournament's token at a game's page
        f"/g/{token}/live",
        f"/s/{token}",  # and at a server's page
    ):
        answer = await web_client.get(path)
        assert answer.status == 404 and await answer.text() == missing, path
    assert (await web_client.get(f"/t/{token}")).status == 200
    # revoked; then off; then the tournament gone
    settings = await SettingsStore(redis).revoke_web_links(GUILD)
    assert (await web_client.get(f"/t/{token}")).status == 404
    fresh = await WebLinks(redis).tournament_link(GUILD, CHANNEL, t.id, "en", settings)
    assert fresh != token and (await web_client.get(f"/t/{fresh}")).status == 200
    await SettingsStore(redis).update(GUILD, web="off")
    assert (await web_client.get(f"/t/{fresh}")).status == 404
    assert await WebLinks(redis).tournament_link(GUILD, CHANNEL, t.id, "en") is None  # none made while off
    await SettingsStore(redis).update(GUILD, web="link")
    assert (await web_client.get(f"/t/{fresh}")).status == 200
    await Tournaments(redis, Clock()).delete(CHANNEL, t.id)
    assert (await web_client.get(f"/t/{fresh}")).status == 404
    assert (await web_client.get(f"/t/{fresh}/live")).status == 404


async def test_the_page_is_in_the_servers_language(redis, web_client):
    t = running()
    await make(redis, t)
    token = await WebLinks(redis).tournament_link(GUILD, CHANNEL, t.id, "de")
    html = await (await web_client.get(f"/t/{token}")).text()
    assert '<html lang="de">' in html and "Live-Tabelle" in html and "Runde 2 von 3 wird gespielt." in html
    assert "Hong · Schweizer System" in html and ">Live zuschauen →</a>" in html
