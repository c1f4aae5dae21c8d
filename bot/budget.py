"""An interaction's time budget: Discord's windows and the game store's timeouts, stated once.

Discord (Receiving and Responding, "Responding to an Interaction"): the initial response must reach Discord within
3 s of the interaction's creation; the token then takes follow-ups and edits for 15 minutes. Redis can hang
(nothing answers, nothing errors) or crawl; so the bot acknowledges first when the store is slow
(:mod:`bot.interface.answers`), and a change that could not be stored in time is refused for good (:mod:`bot.storage.store`'s commit
deadline), never applied later in silence.

The arithmetic, in seconds from the interaction's creation (its snowflake time):

- ``ANSWER_BY`` = 2.0: a handler that has not answered by then is acknowledged by the watchdog; the callback's
  round trip (0.1–0.5 s, more on a loaded host) still lands before Discord's 3.0 s.
- A store command waits at most ``POOL_TIMEOUT`` (a free connection, 2) + ``SOCKET_TIMEOUT`` (its reply, 4)
  = 6 s, with no retry (a retry would only wait again on a hung server). A stall shorter than ``SOCKET_TIMEOUT``
  is ridden out: the move is applied and answered as a follow-up.
- ``STORE_DEADLINE`` = 6.0: a change's commit (the Lua compare-and-set) is applied only while Redis's clock is
  before creation + 6 s; after that the script refuses it, so a commit queued in a stopped server does nothing
  when it wakes. A commit not yet sent by then is not sent.
- A commit whose reply was lost: wait until ``STORE_DEADLINE`` + ``CLOCK_MARGIN`` (6.25), re-read the record
  (≤ 6) to decide: the player hears by about 12.3 s at worst — far inside the 15-minute follow-up window (900 s).
  The operator's ``redis_pool_timeout`` may be set up to 600 s, which still ends inside it.

The computer's reply (README: "within a couple of seconds"): its move is chosen within ``COMPUTER_REPLY`` = 1.8 s of
wall time from the moment it is asked for (the wait for a free worker included), however busy the host — a search
stops at that deadline with the best move of the depths it completed (its first depth always: a few ms to a few
tenths of a second on a starved worker) — and then committed and posted with its board (0.1–0.3 s). A hint's search
keeps the same deadline, so it never holds a computer's reply up for longer.
"""

from __future__ import annotations

#: Seconds after an interaction's creation by which the watchdog acknowledges it if its handler has not answered.
ANSWER_BY = 2.0
#: Discord's window for the initial response (seconds after creation).
DISCORD_INITIAL = 3.0
#: Discord's window for follow-ups and edits with the interaction's token (seconds after creation).
DISCORD_FOLLOW_UP = 15 * 60.0
#: Seconds a Redis command waits for its reply (redis-py ``socket_timeout``; also the connect timeout).
SOCKET_TIMEOUT = 4.0
#: Seconds a Redis command waits for a free connection of the pool (the default of ``redis_pool_timeout``).
POOL_TIMEOUT = 2.0
#: Seconds after an interaction's creation past which a change it makes is never applied (the commit's deadline,
#: on Redis's clock).
STORE_DEADLINE = 6.0
#: Seconds waited past the deadline before a lost commit reply is decided by re-reading (clock drift since the
#: clocks were compared, a rounding).
CLOCK_MARGIN = 0.25
#: Retries of a Redis command that failed (none: see the module docstring).
RETRIES = 0
#: Seconds of wall time from asking for the computer's move (or a hint) to its search's end, whatever the load.
COMPUTER_REPLY = 1.8

assert ANSWER_BY + 0.5 < DISCORD_INITIAL and STORE_DEADLINE + CLOCK_MARGIN + POOL_TIMEOUT + SOCKET_TIMEOUT < 60


__all__ = [
    "ANSWER_BY",
    "DISCORD_INITIAL",
    "DISCORD_FOLLOW_UP",
    "SOCKET_TIMEOUT",
    "POOL_TIMEOUT",
    "STORE_DEADLINE",
    "CLOCK_MARGIN",
    "RETRIES",
    "COMPUTER_REPLY",
]
