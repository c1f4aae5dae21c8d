"""What the tournament feature says: refusals by reason, the sign-up post, pairings, standings and the podium —
each in the current language (the caller's for replies, the server's inside ``public``)."""

from __future__ import annotations

from ...core.kinds import GameKind
from ...core.record import FORMER_NAME
from ...core.tournament.event import Format, Phase, Tournament
from ...core.tournament.standings import ORDER, Row, shown
from ...core.tournament.standings import podium as podium_places
from ...i18n import _, n_, p_
from ...i18n.names import escape
from ...interface import mentions

#: Discord's limit on a message's text.
MESSAGE_LIMIT = 2000


def title(t: Tournament, kind: GameKind) -> str:
    """The tournament's name as shown: its own, or "Hong Kong Swiss #abc123"."""
    if t.name:
        return escape(t.name)
    if t.format is Format.SWISS:
        # TRANSLATORS: a tournament's name when it has none; {game} is "Hong Kong" or "Hong", {id} its short id.
        return _("{game} Swiss #{id}", game=kind.title, id=t.id)
    # TRANSLATORS: a tournament's name when it has none; {game} is "Hong Kong" or "Hong", {id} its short id.
    return _("{game} round robin #{id}", game=kind.title, id=t.id)


def refusal(reason: str, t: Tournament | None = None) -> str:
    """A refused step (:class:`bot.core.tournament.event.TournamentError`'s reason) in words, saying what would
    be right."""
    if reason == "joined":
        return _("You're already signed up for this tournament.")
    if reason == "withdrawn":
        return _("You withdrew from this tournament, so you can't join it again.")
    if reason == "closed":
        if t is not None and t.format is Format.ROUND_ROBIN and t.phase is Phase.RUNNING:
            return _("This round robin has started: its table is fixed, so nobody can join now. Watch the next one!")
        if t is not None and t.phase is Phase.RUNNING:
            return _("This tournament is in its last round: nobody can join now.")
        return _("This tournament is over: nobody can join it now.")
    if reason == "not_in":
        return _("You're not signed up for this tournament.")
    if reason == "over":
        return _("This tournament is over already.")
    if reason == "started":
        return _("This tournament has started already.")
    if reason == "too_few":
        return _("A tournament needs at least 2 players to start. Wait for more to join, or cancel it.")
    if reason == "playing":
        return _("The current round still has games being played.")
    return _("That can't be done in this tournament now.")


def signup_text(t: Tournament, kind: GameKind, options: str) -> str:
    """The sign-up post: what, how, when, who is in so far."""
    lines = [f"🏆 **{title(t, kind)}**"]
    if t.format is Format.SWISS:
        # TRANSLATORS: {game} is "Hong Kong" or "Hong".
        lines.append(n_("{game}, Swiss, {count} round.", "{game}, Swiss, {count} rounds.", t.rounds, game=kind.title))
    else:
        # TRANSLATORS: {game} is "Hong Kong" or "Hong".
        lines.append(_("{game}, round robin: everyone plays everyone once.", game=kind.title))
    if options:
        lines.append(options)
    playing = [e for e in t.entrants if e.withdrawn is None]  # (numbered 1, 2, 3…: no gap where one withdrew)
    names = [f"{i}. {escape(player_name(e.id, e.name))}" for i, e in enumerate(playing, 1)]
    if t.phase is Phase.SIGNUP:
        lines.append(
            _(
                "Press {join} to play, {leave} to change your mind.",
                join=f"**{p_('button', 'Join')}**",
                leave=f"**{p_('button', 'Leave')}**",
            )
        )
        if t.starts:
            # TRANSLATORS: {when} is a moment Discord shows relative to now ("in 2 hours").
            lines.append(_("Starts {when}.", when=f"<t:{int(t.starts)}:R>"))
    elif t.phase is Phase.RUNNING:
        lines.append(_("Started: round {round} of {rounds}.", round=t.round, rounds=t.rounds))
    elif t.phase is Phase.FINISHED:
        lines.append(_("Finished."))
    else:
        lines.append(_("Cancelled."))
    lines.append(
        n_("**{count} player:** {names}", "**{count} players:** {names}", len(names), names=", ".join(names) or "—")
    )
    return cut("\n".join(lines))


def player_name(user_id: int, name: str) -> str:
    """An entrant's plain name: "a former player" (translated) for one erased by ``/privacy forget``."""
    return _(FORMER_NAME) if user_id < 0 else name


def cut(text: str) -> str:
    """``text`` within Discord's limit (cut with "…")."""
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 1] + "…"


def tie_break_names(fmt: Format) -> list[str]:
    """The tie-breaks' short names in their order (column headings)."""
    names = {"buchholz": _("Buchholz"), "sonneborn_berger": _("SB"), "direct": _("DE")}
    return [names[key] for key in ORDER[fmt]]


def tie_break_values(fmt: Format, row: Row) -> tuple[str, ...]:
    return tuple(shown(getattr(row, key)) for key in ORDER[fmt])


def standings_text(t: Tournament, kind: GameKind, rows: list[Row], heading: str) -> str:
    """The standings as text: one line a player (place, name, points, tie-breaks), a note on the tie-break order."""
    lines = [heading]
    names = tie_break_names(t.format)
    shown_rows = 0
    for row in rows:
        place = f"{row.place}." if row is rows[0] or row.place != rows[rows.index(row) - 1].place else "="
        ties = ", ".join(f"{n} {v}" for n, v in zip(names, tie_break_values(t.format, row)))
        withdrew = " " + _("(withdrew)") if row.withdrawn else ""
        line = _(
            "{place} {name} — **{points}** ({tie_breaks})",
            place=place,
            name=escape(player_name(row.id, row.name)) + withdrew,
            points=shown(row.points),
            tie_breaks=ties,
        )
        if len("\n".join(lines)) + len(line) > MESSAGE_LIMIT - 200:
            lines.append(n_("… and {count} more", "… and {count} more", len(rows) - shown_rows))
            break
        lines.append(line)
        shown_rows += 1
    lines.append(
        # TRANSLATORS: {order} lists the tie-breaks in order, e.g. "Buchholz, SB, DE"
        _(
            "Ties are broken by {order} (SB: Sonneborn-Berger, DE: direct encounter).",
            order=", ".join(names),
        )
    )
    return cut("\n".join(lines))


def podium(rows: list[Row]) -> str:
    """🥇 🥈 🥉 and the names on the podium (:func:`bot.core.tournament.standings.podium`: tied players share a
    medal; a withdrawn player takes none)."""
    medals = {1: "🥇", 2: "🥈", 3: "🥉"}
    return "\n".join(
        f"{medals[place]} **{escape(player_name(row.id, row.name))}** — {shown(row.points)}"
        for place, row in podium_places(rows)
    )


def command(name: str) -> str:
    return mentions.command(f"tournament {name}")


__all__ = [
    "title",
    "refusal",
    "signup_text",
    "standings_text",
    "tie_break_names",
    "tie_break_values",
    "podium",
    "command",
    "cut",
]
