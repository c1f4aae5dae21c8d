"""The lessons (``/<game> learn``, bot/core/lessons.py): their texts and buttons within Discord's limits, every step
shown in every language, and the script check finding a broken script. (Each game's script is checked against its
engine by tests/contract; played through Discord by test_e2e_learn.)"""

from __future__ import annotations

import dataclasses

import pytest

from bot import i18n
from bot.core.lessons import position, problems
from bot.exts.play._learn import LessonButton, _page_text
from bot.games import all_kinds

LESSONS = {name: kind for name, kind in all_kinds().items() if kind.lesson is not None}


def test_both_games_have_a_lesson_of_four_to_six_steps():
    assert set(LESSONS) == {"hongkong", "hong"}
    assert all(4 <= len(kind.lesson.steps) <= 6 for kind in LESSONS.values())


@pytest.mark.parametrize("code", ["en", *i18n.languages()])
@pytest.mark.parametrize("name", sorted(LESSONS))
def test_every_page_fits_a_message_and_every_button_a_label(name, code):
    kind = LESSONS[name]
    lesson = kind.lesson
    with i18n.language(code):
        longest_note = max(
            [i18n._(lesson.intro)] + [i18n._(s.done) + i18n._(s.because) + "x" * 80 for s in lesson.steps]
        )
        for n in range(len(lesson.steps) + 1):
            assert len(_page_text(kind, n, longest_note)) <= 2000
    for n, step in enumerate(lesson.steps):
        for c, choice in enumerate(step.choices()):
            button = LessonButton(name, n, c, 2**64 - 1, label=choice.move)
            assert len(button.item.custom_id) <= 100 and 1 <= len(choice.move) <= 80


def test_the_position_of_each_step_is_the_script_so_far():
    kind = LESSONS["hongkong"]
    assert position(kind.engine, kind.lesson, 0).moves == []
    assert position(kind.engine, kind.lesson, 2).moves == ["S@B2", "S@B3", "Q@B2 S@B3", "S@A2"]
    with pytest.raises(IndexError):
        position(kind.engine, kind.lesson, len(kind.lesson.steps) + 1)


def test_a_broken_script_is_found():
    kind = LESSONS["hongkong"]
    lesson = kind.lesson
    illegal = dataclasses.replace(lesson.steps[1], right="S@B3", wrong={"Q@B2 S@B3": "x"})
    assert problems(kind.engine, dataclasses.replace(lesson, steps=(lesson.steps[0], illegal))) == [
        "step 2: S@B3: " + str(_refusal(kind))
    ]
    untrue = dataclasses.replace(lesson.steps[0], check=lambda before, after: False)
    assert problems(kind.engine, dataclasses.replace(lesson, steps=(untrue,))) == [
        "step 1: S@B2 does not do what the step says"
    ]


def _refusal(kind):
    game = position(kind.engine, kind.lesson, 1)
    try:
        game.play("S@B3")
    except Exception as why:
        return why
