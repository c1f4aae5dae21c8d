"""A message's ``nonce`` and ``enforce_nonce``, as Discord documents them for Create Message.

Discord (Channel resource → Create Message, JSON params): ``nonce`` is an integer or a string of at most 25
characters, "can be used to verify a message was sent"; it is echoed in the reply and in MESSAGE_CREATE.
``enforce_nonce``: "If true and nonce is present, it will be checked for uniqueness in the past few minutes. If
another message was created by the same author with the same nonce, that message will be returned and no new message
will be created." Without ``enforce_nonce`` a repeated nonce creates a second message. The published OpenAPI
description gives the same types (``int64`` or ``string`` with ``maxLength: 25``).

Discord does not publish "a few minutes"; the emulator keeps a nonce for :data:`NONCE_WINDOW` seconds of
``emu.clock`` (a test moves time with its own clock).
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from .errors import ErrorTree
from .models import Message

NONCE_MAX = 25
NONCE_WINDOW = 5 * 60.0
INT64 = (-(1 << 63), (1 << 63) - 1)


def validate_nonce(tree: ErrorTree, body: Dict[str, Any]) -> None:
    """Add Discord's 50035 errors for a bad ``nonce`` (a string over 25 characters, an integer outside int64,
    anything else but null) or a non-boolean ``enforce_nonce`` to ``tree``."""
    nonce = body.get("nonce")
    if nonce is not None:
        if isinstance(nonce, str):
            if len(nonce) > NONCE_MAX:
                tree.add(("nonce",), "BASE_TYPE_MAX_LENGTH", f"Must be {NONCE_MAX} or fewer in length.")
        elif isinstance(nonce, int) and not isinstance(nonce, bool):
            if not INT64[0] <= nonce <= INT64[1]:
                tree.add(("nonce",), "NUMBER_TYPE_MAX", "Int64 value is out of range.")
        else:
            tree.add(("nonce",), "BASE_TYPE_BAD_TYPE", "Must be an integer or a string.")
    enforce = body.get("enforce_nonce")
    if enforce is not None and not isinstance(enforce, bool):
        tree.add(("enforce_nonce",), "BASE_TYPE_BOOLEAN", "Must be either true or false.")


class NonceRegistry:
    """Messages created with ``enforce_nonce``, by (author id, nonce), for :data:`NONCE_WINDOW` seconds of
    ``clock()``. ``find`` and ``remember`` are synchronous: a caller that finds nothing and then creates the
    message without awaiting in between can't race a second request with the same nonce."""

    def __init__(self, clock: Any, window: float = NONCE_WINDOW) -> None:
        self.clock = clock
        self.window = window
        self._seen: Dict[Tuple[int, str], Tuple[float, Message]] = {}

    def find(self, author_id: int, nonce: Any) -> Optional[Message]:
        """The live message this author created with this nonce within the window, or None."""
        entry = self._seen.get((author_id, str(nonce)))
        if entry is None:
            return None
        at, msg = entry
        if self.clock() - at > self.window or msg.deleted:
            del self._seen[(author_id, str(nonce))]
            return None
        return msg

    def remember(self, author_id: int, nonce: Any, msg: Message) -> None:
        """Note that ``msg`` was created by ``author_id`` with ``nonce`` (now)."""
        now = self.clock()
        if len(self._seen) > 10000:  # forget expired entries now and then
            self._seen = {k: v for k, v in self._seen.items() if now - v[0] <= self.window}
        self._seen[(author_id, str(nonce))] = (now, msg)
