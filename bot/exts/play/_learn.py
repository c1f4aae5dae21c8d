"""``/<game> learn``: a game's guided first game (:mod:`bot.core.lessons`), shown to the learner alone.

One ephemeral message is the whole lesson: the step's text, its board and one button a choice. A button carries the
game, the step, the choice and the learner (:class:`LessonButton`), and the step's position is replayed from the
lesson's script, so a press works after a restart and on any process, and nothing is written to the store (no
record, no rating). A wrong choice says why and stays on the step; the right one is played with the computer's
scripted reply, and the message moves to the next step with a new board; the last step points at ``/<game>
challenge``.
"""

from __future__ import annotations


import discord

from ...core import lessons
from ...core.errors import UserError
from ...core.kinds import GameKind
from ...i18n import _
from ...i18n.names import best
from ...interface import answers, mentions
from ...interface.board_pool import PLAYER, renderer
from ...interface.buttons import GameButton, view
from ...interface.mentions import NO_MENTIONS
from ...interface.posts import Picture, position_alt

#: The board image's file name.
FILENAME = "lesson.png"


class LessonButton(
    GameButton,
    template=r"hb:learn:(?P<game>[a-z]{1,32}):(?P<step>\d):(?P<choice>\d):(?P<user_id>\d{1,20})",
):
    """One choice of a lesson's step (its label: the move in the game's notation); only the learner can press it."""

    numbers = ("step", "choice", "user_id")
    changes = False  # nothing is stored

    def __init__(self, game: str, step: int, choice: int, user_id: int, *, label: str = "?") -> None:
        super().__init__(
            discord.ui.Button(
                label=label, style=discord.ButtonStyle.secondary, custom_id=f"hb:learn:{game}:{step}:{choice}:{user_id}"
            )
        )
        self.game, self.step, self.choice, self.user_id = game, step, choice, user_id

    async def press(self, interaction: discord.Interaction) -> None:
        await choose(interaction, self)


BUTTONS = (LessonButton,)


def _lesson(kind: GameKind) -> lessons.Lesson:
    if kind.lesson is None:
        raise RuntimeError(f"{kind.name} has no lesson")
    return kind.lesson


async def start(interaction: discord.Interaction, kind: GameKind) -> None:
    """``/<game> learn``: step 1 with the lesson's introduction, to the caller alone."""
    lesson = _lesson(kind)
    text, buttons, image = await _page(interaction, kind, 0, _(lesson.intro))
    await answers.send(interaction, text, ephemeral=True, view=buttons, file=image, allowed_mentions=NO_MENTIONS)


async def choose(interaction: discord.Interaction, button: LessonButton) -> None:
    """A choice pressed: a wrong one is explained on the same step; the right one is played, with the computer's
    reply, and the next step (or the end) shown with its board.

    Raises:
        UserError: someone else's lesson, or a button of a lesson that has changed since (the bot was updated).
    """
    kind = _kinds(interaction).get(button.game)
    learn = mentions.command(f"{button.game} learn")
    if interaction.user.id != button.user_id:
        raise UserError(
            _("This lesson belongs to {user}. Start your own with {learn}.", user=f"<@{button.user_id}>", learn=learn)
        )
    lesson = kind.lesson if kind is not None else None
    if (
        kind is None
        or lesson is None
        or button.step >= len(lesson.steps)
        or button.choice >= len(lesson.steps[button.step].choices())
    ):
        raise UserError(_("This lesson has changed since it was shown. Start it again with {learn}.", learn=learn))
    step = lesson.steps[button.step]
    chosen = step.choices()[button.choice]
    if chosen.why is not None:
        text = _page_text(kind, button.step, "❌ " + _("{move}: {why}", move=f"`{chosen.move}`", why=_(chosen.why)))
        await answers.edit(interaction, content=text, allowed_mentions=NO_MENTIONS)
        return
    played = "\n".join(
        [
            "✅ " + _("{move}: {why}", move=f"`{step.right}`", why=_(step.done)),
            "🤖 " + _("The computer answers {move}: {why}", move=f"`{step.reply}`", why=_(step.because)),
        ]
    )
    text, buttons, image = await _page(interaction, kind, button.step + 1, played)
    await answers.edit(interaction, content=text, view=buttons, attachments=[image], allowed_mentions=NO_MENTIONS)


def _kinds(interaction: discord.Interaction) -> dict[str, GameKind]:
    return getattr(interaction.client, "kinds", {})


async def _page(
    interaction: discord.Interaction, kind: GameKind, step: int, note: str
) -> tuple[str, discord.ui.View, discord.File]:
    """Step ``step``'s text (``note`` above it: the introduction, or what the last choice did), its buttons and its
    board, in the current language."""
    lesson = _lesson(kind)
    game = lessons.position(kind.engine, lesson, step)
    names = [_("Computer"), _("Computer")]
    names[lesson.seat] = best(getattr(interaction.user, "display_name", None), interaction.user.name)
    png = await renderer.png(kind, game, (names[0], names[1]), priority=PLAYER)
    buttons = (
        view(
            *(
                LessonButton(kind.name, step, n, interaction.user.id, label=choice.move)
                for n, choice in enumerate(lesson.steps[step].choices())
            )
        )
        if step < len(lesson.steps)
        else None
    )
    picture = Picture(png, position_alt(kind, game, (names[0], names[1])))
    return _page_text(kind, step, note), buttons or view(), picture.file(FILENAME)


def _page_text(kind: GameKind, step: int, note: str) -> str:
    """The message of step ``step`` (0-based): its title, ``note``, and what to try — or, past the last step, the
    lesson's ending and the command for a real game."""
    lesson = _lesson(kind)
    total = len(lesson.steps)
    if step >= total:
        # TRANSLATORS: {game} is "Hong Kong" or "Hong".
        title = "**" + _("{game} — your first game, done!", game=kind.title) + "**"
        ending = (
            "🎉 "
            + lesson.ending()
            + "\n"
            + _(
                "Ready for a real game? Play someone, or the computer, with {challenge}.",
                challenge=mentions.command(f"{kind.name} challenge"),
            )
        )
        return "\n".join([title, note, ending])
    # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {step} and {total} are numbers.
    title = (
        "**" + _("{game} — your first game, step {step} of {total}", game=kind.title, step=step + 1, total=total) + "**"
    )
    return "\n".join([title, note, "👉 " + _(lesson.steps[step].task)])


__all__ = ["LessonButton", "BUTTONS", "start", "choose", "FILENAME"]
