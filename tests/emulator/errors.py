"""Error plumbing shared by the emulator: Discord-shaped API errors and test-facing failures."""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Dict, Iterable, List, Optional, Tuple

PathPart = Any  # str key or int index
Path = Tuple[PathPart, ...]


class EmulatorAssertion(AssertionError):
    """Raised by awaiting helpers when what the test expected did not happen."""


class EmulatorTimeout(EmulatorAssertion):
    """A wait_* helper ran out of time; the message says what was expected and what happened."""


class InteractionFailed(EmulatorAssertion):
    """The interaction can no longer succeed (e.g. no valid initial response within 3 seconds)."""


class ErrorTree:
    """Accumulates Discord "Invalid Form Body" errors and renders them in Discord's nested shape.

    Discord reports every problem in one response::

        {"code": 50035, "message": "Invalid Form Body",
         "errors": {"content": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH",
                                              "message": "Must be 2000 or fewer in length."}]}}}
    """

    def __init__(self) -> None:
        self.items: List[Tuple[Path, str, str]] = []

    def add(self, path: Iterable[PathPart], code: str, message: str) -> None:
        self.items.append((tuple(path), code, message))

    def __bool__(self) -> bool:
        return bool(self.items)

    def to_dict(self) -> Dict[str, Any]:
        root: Dict[str, Any] = {}
        for path, code, message in self.items:
            node = root
            for part in path:
                node = node.setdefault(str(part), {})
            node.setdefault("_errors", []).append({"code": code, "message": message})
        return root

    def lines(self) -> List[str]:
        out = []
        for path, code, message in self.items:
            where = ".".join(str(p) for p in path) or "<body>"
            out.append(f"{where}: {message} ({code})")
        return out


class APIError(Exception):
    """Raised inside REST handlers; turned into an HTTP error response and recorded in ``emu.errors``."""

    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        *,
        errors: Optional[ErrorTree] = None,
        kind: str = "bad_request",
        detail: str = "",
        extra: Optional[Dict[str, Any]] = None,
        interaction_id: Optional[int] = None,
        via: bool = True,
    ) -> None:
        self.status = status
        self.via = via  # False: answered without Discord's ``Via`` header (discord.py then raises, never waits)
        self.code = code
        self.message = message
        self.errors = errors
        self.kind = kind
        self.detail = detail
        self.extra = extra or {}
        self.interaction_id = interaction_id
        super().__init__(f"{status} {code} {message}")

    def body(self) -> Dict[str, Any]:
        body: Dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors.to_dict()
        body.update(self.extra)
        return body

    @classmethod
    def invalid_form(
        cls, errors: ErrorTree, *, kind: str = "limit", detail: str = "", interaction_id: Optional[int] = None
    ) -> "APIError":
        return cls(
            400, 50035, "Invalid Form Body", errors=errors, kind=kind, detail=detail, interaction_id=interaction_id
        )


@dataclasses.dataclass
class RecordedError:
    """One thing the bot did that real Discord would have refused (or the emulator could not serve).

    ``kind`` is one of: ``limit`` (a documented limit was exceeded), ``unknown_interaction``
    (10062, e.g. a late initial response), ``already_acknowledged`` (40060), ``expired_token``
    (50027, a follow-up/edit more than 15 minutes after the interaction), ``unknown_route``,
    ``unauthorized``, ``forbidden``, ``not_found``, ``bad_request``, ``gateway``, ``internal``, ``outage`` (a REST
    call on a guild in an outage, answered 503: Discord failing, not the bot).
    """

    kind: str
    description: str
    method: str = ""
    path: str = ""
    status: int = 0
    code: int = 0
    body: Optional[Dict[str, Any]] = None
    interaction_id: Optional[int] = None
    at: float = dataclasses.field(default_factory=time.time)

    def __str__(self) -> str:
        return self.description


def describe_api_error(method: str, path: str, err: APIError) -> str:
    head = f"{method} {path} -> HTTP {err.status} code {err.code} {err.message}"
    parts = [head]
    if err.detail:
        parts.append(err.detail)
    if err.errors:
        parts.extend(err.errors.lines())
    return "; ".join(parts)
