"""The emulator held to Discord's published OpenAPI spec (tests/emulator/spec.py): requests the spec refuses are
answered 400 50035 with Discord's errors tree (never a crash), replies are shaped as the spec says, and the written
allow-list of the spec's own mistakes is honoured. (Every e2e test checks its replies and gateway payloads too:
tests/conftest.py fails a test whose emulator recorded a violation.)"""

from __future__ import annotations

import json
from typing import Any, AsyncIterator, Dict, Optional, Tuple

import aiohttp
import pytest

from tests.emulator import DiscordEmulator
from tests.emulator import spec as spec_module
from tests.emulator.spec import SPEC_FIXES, Spec, available, load, required, spec_path

pytestmark = pytest.mark.skipif(
    not available() and not required(),
    reason=f"Discord's OpenAPI spec is not at {spec_path()} (see README: For developers)",
)


@pytest.fixture
async def emu() -> AsyncIterator[DiscordEmulator]:
    async with DiscordEmulator(patch_discord=False) as emulator:
        yield emulator


@pytest.fixture
async def http(emu: DiscordEmulator) -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(headers={"Authorization": f"Bot {emu.token}"}) as session:
        yield session


@pytest.fixture
def channel(emu: DiscordEmulator) -> int:
    gid = emu.create_guild("spec guild")
    return emu.create_channel(gid, "general")


async def call(
    http: aiohttp.ClientSession,
    emu: DiscordEmulator,
    method: str,
    path: str,
    *,
    body: Any = None,
    raw: Optional[bytes] = None,
    params: Optional[Dict[str, str]] = None,
) -> Tuple[int, Any]:
    kw: Dict[str, Any] = {"params": params}
    if raw is not None:
        kw.update(data=raw, headers={"Content-Type": "application/json"})
    elif body is not None:
        kw["json"] = body
    async with http.request(method, f"{emu.api_base}{path}", **kw) as reply:
        text = await reply.text()
        return reply.status, (json.loads(text) if text else None)


def leaf(errors: Dict[str, Any], path: Tuple[str, ...]) -> Dict[str, Any]:
    node = errors
    for part in path:
        assert part in node, f"no error at {path}: {errors}"
        node = node[part]
    [first, *_] = node["_errors"]
    return first


@pytest.mark.parametrize(
    "body, path, code",
    [
        (
            {"content": "hi", "allowed_mentions": {"parse": ["bogus"]}},
            ("allowed_mentions", "parse", "0"),
            "BASE_TYPE_CHOICES",
        ),
        ({"content": "hi", "nonce": "n" * 26}, ("nonce",), "BASE_TYPE_MAX_LENGTH"),
        ({"sticker_ids": ["1", "2", "3", "4"]}, ("sticker_ids",), "BASE_TYPE_MAX_LENGTH"),
        ({"content": "hi", "flags": "4096"}, ("flags",), "NUMBER_TYPE_COERCE"),
        (
            {"content": "hi", "message_reference": {"message_id": "abc"}},
            ("message_reference", "message_id"),
            "NUMBER_TYPE_COERCE",
        ),
    ],
)
async def test_a_message_the_spec_refuses_is_answered_50035_with_the_errors_path(
    emu: DiscordEmulator,
    http: aiohttp.ClientSession,
    channel: int,
    body: Dict[str, Any],
    path: Tuple[str, ...],
    code: str,
) -> None:
    status, reply = await call(http, emu, "POST", f"/channels/{channel}/messages", body=body)
    assert status == 400 and reply["code"] == 50035 and reply["message"] == "Invalid Form Body"
    assert leaf(reply["errors"], path)["code"] == code
    assert emu.messages(channel) == []  # nothing was posted
    [err] = emu.errors
    assert err.status == 400 and err.code == 50035 and "create_message" in err.description


async def test_a_101_character_thread_name_is_refused_not_cut(
    emu: DiscordEmulator, http: aiohttp.ClientSession, channel: int
) -> None:
    status, reply = await call(http, emu, "POST", f"/channels/{channel}/threads", body={"name": "x" * 101, "type": 11})
    assert status == 400 and leaf(reply["errors"], ("name",)) == {
        "code": "BASE_TYPE_MAX_LENGTH",
        "message": "Must be 100 or fewer in length.",
    }
    assert emu.threads(channel) == []
    status, thread = await call(http, emu, "POST", f"/channels/{channel}/threads", body={"name": "x" * 100, "type": 11})
    assert status == 201 and thread["name"] == "x" * 100  # Discord answers thread creation 201 Created


@pytest.mark.parametrize(
    "params, path, code",
    [
        ({"limit": "0"}, ("limit",), "NUMBER_TYPE_MIN"),
        ({"limit": "101"}, ("limit",), "NUMBER_TYPE_MAX"),
        ({"limit": "ten"}, ("limit",), "NUMBER_TYPE_COERCE"),
        ({"before": "abc"}, ("before",), "NUMBER_TYPE_COERCE"),
    ],
)
async def test_bad_query_values_are_refused_not_crashed_on(
    emu: DiscordEmulator,
    http: aiohttp.ClientSession,
    channel: int,
    params: Dict[str, str],
    path: Tuple[str, ...],
    code: str,
) -> None:
    status, reply = await call(http, emu, "GET", f"/channels/{channel}/messages", params=params)
    assert status == 400 and reply["code"] == 50035 and leaf(reply["errors"], path)["code"] == code
    assert not [e for e in emu.errors if e.kind == "internal"]


async def test_bodies_that_are_not_json_objects_get_discords_error(
    emu: DiscordEmulator, http: aiohttp.ClientSession, channel: int
) -> None:
    status, reply = await call(http, emu, "POST", f"/channels/{channel}/messages", raw=b'{"content": ')
    assert (status, reply["code"]) == (400, 50109)
    status, reply = await call(http, emu, "POST", f"/channels/{channel}/messages", body=["content"])
    assert (status, reply["code"]) == (400, 50035)
    status, reply = await call(http, emu, "POST", "/users/@me/channels", body={"recipient_id": "ann"})
    assert status == 400 and leaf(reply["errors"], ("recipient_id",))["code"] == "NUMBER_TYPE_COERCE"
    assert not [e for e in emu.errors if e.kind == "internal"]


async def test_replies_are_shaped_as_the_spec_says(
    emu: DiscordEmulator, http: aiohttp.ClientSession, channel: int
) -> None:
    buttons = {
        "type": 1,
        "components": [
            {"type": 2, "style": 1, "label": "Go", "custom_id": "go"},
            {"type": 2, "style": 2, "label": "Stop", "custom_id": "stop"},
        ],
    }
    status, msg = await call(
        http,
        emu,
        "POST",
        f"/channels/{channel}/messages",
        body={"content": "board", "components": [buttons], "nonce": "n" * 25},
    )
    assert status == 200
    # Discord numbers components the sender left without an id, depth first
    assert [msg["components"][0]["id"]] + [b["id"] for b in msg["components"][0]["components"]] == [1, 2, 3]
    assert "email" not in msg["author"] and msg["author"]["primary_guild"] is None
    status, me = await call(http, emu, "GET", "/users/@me")
    assert status == 200 and me["mfa_enabled"] is False and me["locale"] == "en-US"
    guild_id = emu.channel(channel)["guild_id"]
    status, guild = await call(http, emu, "GET", f"/guilds/{guild_id}")
    assert status == 200 and guild["region"] and guild["nsfw"] is False
    spec = load()
    for method, path, status, body in [
        ("POST", f"/channels/{channel}/messages", 200, msg),
        ("GET", "/users/@me", 200, me),
        ("GET", f"/guilds/{guild_id}", 200, guild),
    ]:
        op = spec.operation(method, path)
        assert op is not None and spec.check_reply(op, status, body) == []
    assert emu.spec.checked["replies"] == 3 and emu.spec.violations == []
    # and what the spec says is caught: a reply missing a required field, or with an undocumented status
    op = spec.operation("POST", f"/channels/{channel}/messages")
    assert any(
        "'author' is a required property" in p
        for p in spec.check_reply(op, 200, {k: v for k, v in msg.items() if k != "author"})
    )
    assert spec.check_reply(spec.operation("POST", f"/channels/{channel}/threads"), 200, {}) == [
        "status 200 is not documented (documented: 201, 429, 4XX)"
    ]


async def test_a_gateway_payload_the_spec_would_not_describe_is_recorded(emu: DiscordEmulator) -> None:
    emu.spec.check_gateway("GUILD_ROLE_CREATE", {"guild_id": "1", "role": {"id": "2", "name": "r"}})
    [violation] = emu.spec_violations
    assert violation.kind == "gateway" and "'permissions' is a required property" in str(violation)
    emu.spec_violations.clear()  # provoked on purpose


def test_the_allow_list_corrects_only_the_spec_and_says_why() -> None:
    inner = {
        "code": 50035,
        "message": "Invalid Form Body",
        "errors": {
            "content": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 2000 or fewer in length."}]}
        },
    }
    fixed = load()
    op = fixed.operation("POST", "/channels/1/messages")
    assert fixed.check_reply(op, 400, inner) == []
    assert all(fix.reason and fix.side in ("request", "reply", "both") for fix in SPEC_FIXES)
    with open(spec_module.spec_path(), encoding="utf-8") as f:
        as_published = Spec(json.load(f), fixes=())
    assert as_published.check_reply(as_published.operation("POST", "/channels/1/messages"), 400, inner) != []
    limited = {"message": "You are being rate limited.", "retry_after": 64.57, "global": False}  # Discord's example
    assert fixed.check_reply(op, 429, limited) == [] and as_published.check_reply(op, 429, limited) != []
    assert fixed.check_reply(op, 429, {"message": "You are being rate limited.", "retry_after": 1.0}) != []
    # the snowflake correction applies to requests only: a reply must still carry snowflakes as strings
    request = {"content": "hi", "message_reference": {"message_id": 123}}
    assert not fixed.check_request(op, request, {}) and as_published.check_request(op, request, {})
    assert fixed.check_schema(
        "UserResponse",
        {
            "id": 5,
            "username": "x",
            "avatar": None,
            "discriminator": "0",
            "public_flags": 0,
            "flags": 0,
            "global_name": None,
            "primary_guild": None,
        },
    )


async def test_spec_checks_can_be_turned_off() -> None:
    async with DiscordEmulator(patch_discord=False, spec=False) as emu:
        cid = emu.create_channel(emu.create_guild("g"), "general")
        async with aiohttp.ClientSession(headers={"Authorization": f"Bot {emu.token}"}) as http:
            status, _ = await call(
                http,
                emu,
                "POST",
                f"/channels/{cid}/messages",
                body={"content": "hi", "allowed_mentions": {"parse": ["bogus"]}},
            )
        assert status == 200 and emu.spec.checked == {"requests": 0, "replies": 0, "gateway": 0}
