"""The Spacer odds card: the chance to beat a difficulty, with ties, and a chart.

One table per department level (DEPARTMENTS): attribute + field totals (TOTALS, rows)
against difficulties (DIFFICULTIES, columns); each cell the chance of success (total
higher than the difficulty) and, small, of a tie (equal). The chart: success against
difficulty for a few totals (CHART_TOTALS), one line per department level. Every number
is `game.spacer.tasks.against_difficulty` (exact), for a plain task: one d12 plus the
big-target dice, no special ability, extra time, assistants or luck.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from sheets.draw import Sheet
from sheets.odds_card import (
    PCT_NOTE,
    Block,
    Head,
    HeatTable,
    Lead,
    LineChart,
    Notes,
    Panel,
    Series,
    draw_card,
)
from sheets.registry import SheetKind, register

if TYPE_CHECKING:
    from game.spacer.tasks import TaskOdds

KIND_ID = "spacer-odds-card"
DEPARTMENTS = (0, 2, 4, 6)
TOTALS = tuple(range(2, 13))  # attribute + field: 11 and 12 roll big-target dice
DIFFICULTIES = tuple(range(0, 16))
BIG_TOTALS = tuple(range(11, 17))  # 2 to 7 dice
BIG_DEPARTMENTS = (0, 2, 4, 6)
BIG_DIFFICULTIES = tuple(range(10, 41, 2))
CHART_TOTALS = (4, 7, 10, 13)
CHART_DEPARTMENTS = (0, 2, 4, 6, 8)
ATTRIBUTE_CAP = 7  # the sides are written as attribute (at most 7) + field


@cache
def task(total: int, department: int, difficulty: int) -> TaskOdds:
    """The engine's odds of a plain task with attribute + field = `total`."""
    from game.spacer.tasks import TaskSide, against_difficulty

    attribute = min(total, ATTRIBUTE_CAP)
    return against_difficulty(TaskSide(attribute, total - attribute, department), difficulty)


def grid(department: int) -> tuple[tuple[tuple[float, ...], ...], tuple[tuple[float, ...], ...]]:
    """(success, tie): rows TOTALS, columns DIFFICULTIES."""
    success = tuple(tuple(float(task(t, department, x).success) for x in DIFFICULTIES)
                    for t in TOTALS)
    tie = tuple(tuple(float(task(t, department, x).tie) for x in DIFFICULTIES) for t in TOTALS)
    return success, tie


def big_grid() -> tuple[tuple[float, ...], ...]:
    """rows BIG_TOTALS x BIG_DEPARTMENTS, columns BIG_DIFFICULTIES: success."""
    return tuple(tuple(float(task(t, d, x).success) for x in BIG_DIFFICULTIES)
                 for t in BIG_TOTALS for d in BIG_DEPARTMENTS)


def chart_difficulties(total: int) -> tuple[int, ...]:
    """0 up to where the best department's chance falls below 1 % (at least total + 2)."""
    top = max(CHART_DEPARTMENTS)
    x = total + 2
    while x < 80 and float(task(total, top, x).success) >= 0.01:
        x += 1
    return tuple(range(0, x + 1))


def dice_label(total: int) -> str:
    from game.spacer.tasks import BIG_TARGET_FROM

    extra = max(0, total - BIG_TARGET_FROM)
    return f"{total}" if not extra else f"{total} ({1 + extra}d)"


def card_blocks(sheet: Sheet) -> list[Block]:
    from game.spacer.tasks import BIG_TARGET_FROM

    blocks: list[Block] = [Notes((
        "A task: roll one d12, plus one die per point of attribute + field over "
        f"{BIG_TARGET_FROM} (2d, 3d... below), plus one for a special ability, one for extra "
        "time and the assistants' dice (not on this card). A die showing less than the "
        "department level open-ends: roll one more (at most department-level extra dice). "
        "Dice above attribute + field are taken off; the rest are added.",
        "Success: the total is higher than the difficulty; equal is a tie; failure is the "
        "rest. In each cell the big number is the chance of success, the small grey one "
        "the chance of a tie.",
        "Odd department levels lie between the neighbouring tables (a higher level never "
        "lowers the chance of success). Luck, special abilities, extra time, assistants "
        "and opposed tasks: starsheets odds spacer.",
        PCT_NOTE))]
    for dept in DEPARTMENTS:
        success, tie = grid(dept)
        oe = ("no open-ending" if dept == 0 else
              f"dice below {dept} open-end, up to {dept} extra")
        blocks.append(HeatTable(
            title=f"Department {dept}: beat the difficulty",
            hint=f"{oe} · % success, small: % tie",
            leads=(Lead("Attr + field", tuple(dice_label(t) for t in TOTALS), bold=True,
                        align="centre"),),
            groups=(("", tuple(str(x) for x in DIFFICULTIES)),),
            values=success, second=tie, corner="difficulty →"))
    panels = []
    for total in CHART_TOTALS:
        xs = chart_difficulties(total)
        series = tuple(Series(str(d), tuple(float(task(total, d, x).success) for x in xs))
                       for d in CHART_DEPARTMENTS)
        panels.append(Panel(f"attribute + field {dice_label(total)}",
                            tuple(float(x) for x in xs), series))
    blocks.append(LineChart(
        title="Success against difficulty", hint="% success · one line per department level",
        panels=tuple(panels), x_label="difficulty (success: total higher)",
        legend_title="Department", markers=False, min_panel=112.0))
    n = len(BIG_DEPARTMENTS)
    blocks.append(HeatTable(
        title="Big target numbers: beat the difficulty",
        hint="attribute + field over 10: one more die per point · % success",
        leads=(Lead("Attr + field", tuple(dice_label(t) if k == 0 else ""
                                          for t in BIG_TOTALS for k in range(n)),
                    bold=True, align="centre"),
               Lead("Dept", tuple(str(d) for _t in BIG_TOTALS for d in BIG_DEPARTMENTS),
                    align="centre")),
        groups=(("", tuple(str(x) for x in BIG_DIFFICULTIES)),),
        values=big_grid(), corner="difficulty →",
        rules_before=tuple(range(n, n * len(BIG_TOTALS), n))))
    return blocks


def draw(sheet: Sheet) -> None:
    head = Head(game="SPACER", title="Odds card",
                subtitle="Tasks: the exact chance to beat a difficulty, and of a tie",
                footer_note="Success: total higher than the difficulty. Tie: equal. "
                            "Readings T1–T7 in docs/rules.md.",
                credit="Spacer © 2008 William F. Hostman  ·  card by starsheets")
    draw_card(sheet, head, card_blocks(sheet))


CARD = register(SheetKind(
    id=KIND_ID,
    title="Spacer odds card",
    draw=draw,
    editions=("default",),
    default_edition="default",
    papers=("letter", "a4", "half-letter", "a5"),
    aliases=("odds-card-spacer", "spacer-odds"),
))
