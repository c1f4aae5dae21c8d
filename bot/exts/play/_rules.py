"""``/<game> rules``: a game's rules pages (:attr:`bot.core.kinds.GameKind.rules`) as a message with Previous/Next.

A page is an embed of its title and text, then one embed for each board (its caption and its image), each board an image drawn by
the game's renderer from a position played through the engine (:func:`bot.core.rules.position`), drawn once per
language and kept. The buttons carry the game, the target page and the caller in their ``custom_id`` (restart-safe);
only the caller turns the pages, which edits the same message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import discord

from ... import i18n
from ...core.errors import UserError
from ...core.kinds import GameKind
from ...core.rules import CAPTION_MAX, position
from ...i18n import _, p_
from ...interface import mentions
from ...interface.board_pool import renderer
from ...interface.buttons import GameButton, cog_named, view
from ...interface.posts import Picture

if TYPE_CHECKING:
    from ._cog import Play

#: Boards drawn for the rules: (game, page, board, language) → PNG bytes. Bounded by the pages × languages.
_drawn: dict[tuple[str, int, int, str], bytes] = {}


class RulesButton(
    GameButton,
    template=r"hb:rules:(?P<kind>[a-z]{1,32}):(?P<direction>[pn]):(?P<page>\d{1,3}):(?P<user_id>\d{1,20})",
):
    """Previous (``direction`` "p") / Next ("n") under a game's rules: the ``custom_id`` carries the game, the page
    it turns to and the user who ran ``/<game> rules`` (only they turn its pages)."""

    numbers = ("page", "user_id")
    changes = False

    def __init__(self, kind: str, direction: str, page: int, user_id: int, *, disabled: bool = False) -> None:
        label = p_("button", "Previous") if direction == "p" else p_("button", "Next")
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                disabled=disabled,
                custom_id=f"hb:rules:{kind}:{direction}:{page}:{user_id}",
            )
        )
        self.kind, self.direction, self.page, self.user_id = kind, direction, page, user_id

    async def press(self, interaction: discord.Interaction) -> None:
        await cast("Play", cog_named(interaction, "Play")).turn_rules_page(interaction, self)


def check_owner(kind: GameKind, button: RulesButton, user_id: int) -> None:
    """Only the user who ran the command turns its pages.

    Raises:
        UserError: someone else pressed (said privately, with the command to run).
    """
    if user_id != button.user_id:
        # TRANSLATORS: {user} mentions who ran the command; {rules} is the command /hongkong rules (a mention).
        raise UserError(
            _(
                "These buttons turn {user}'s pages of the rules. Run {rules} to read them yourself.",
                user=f"<@{button.user_id}>",
                rules=mentions.command(f"{kind.name} rules"),
            )
        )


async def page_message(kind: GameKind, page: int, user_id: int) -> dict:
    """Page ``page`` (from 0, clamped to the pages) of ``kind``'s rules in the current language: the ``embeds``,
    ``files`` and ``view`` (Previous/Next for ``user_id``) of a message."""
    pages = kind.rules
    page = max(0, min(page, len(pages) - 1))
    shown = pages[page]
    title = f"{kind.title} — {shown.title()}"
    first = discord.Embed(title=title[:256], description=shown.text(), colour=discord.Colour.blurple())
    # TRANSLATORS: the footer of a rules page: "Page 2/4".
    first.set_footer(text=p_("rules", "Page {page}/{pages}", page=page + 1, pages=len(pages)))
    embeds, files = [first], []
    for index, board in enumerate(shown.boards):
        name = f"rules-{kind.name}-{page + 1}-{index + 1}.png"
        caption = board.caption()
        picture = Picture(await board_png(kind, page, index), f"{shown.title()}: {caption}"[:CAPTION_MAX])
        files.append(picture.file(name))
        embeds.append(
            discord.Embed(description=caption, colour=discord.Colour.blurple()).set_image(url=f"attachment://{name}")
        )
    buttons = view(
        RulesButton(kind.name, "p", max(0, page - 1), user_id, disabled=page == 0),
        RulesButton(kind.name, "n", min(page + 1, len(pages) - 1), user_id, disabled=page >= len(pages) - 1),
    )
    return {"embeds": embeds, "files": files, "view": buttons}


async def board_png(kind: GameKind, page: int, index: int) -> bytes:
    """Board ``index`` of rules page ``page`` drawn in the current language (once: kept after), its players named by
    their roles, the squares its caption names ringed."""
    code = i18n.current()
    key = (kind.name, page, index, code)
    if key not in _drawn:
        board = kind.rules[page].boards[index]
        game = position(kind.engine, board)
        names = (_capital(kind.role(0)), _capital(kind.role(1)))
        _drawn[key] = await renderer.png(kind, game, names, language=code, marks=board.marks)
    return _drawn[key]


def _capital(word: str) -> str:
    return word[:1].upper() + word[1:]


BUTTONS = (RulesButton,)

__all__ = ["RulesButton", "BUTTONS", "check_owner", "page_message", "board_png"]
