"""The d6 success pool odds card ("Dice Rules", seed 002).

One table: pool sizes 1..MAX_DICE (rows) against the three target numbers (column groups),
each with the chance of success at every difficulty and the chance of a botch; then the
mastered pools (MASTERY_DICE) and blind luck as further rows. A chart: success against
pool size, one line per target number, one panel per difficulty (and one for the botch).
Every number is `game.pool.pool_odds` (exact fractions).
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
    from game.pool.odds import PoolOdds

KIND_ID = "pool-odds-card"
MAX_DICE = 10
BOTCH_SCALE = 0.2  # the botch panel's y axis runs to 20 %


@cache
def roll(dice: int, target: int, needed: int, mastery: bool = False,
         blind_luck: bool = False) -> PoolOdds:
    from game.pool import PoolRoll, pool_odds

    return pool_odds(PoolRoll(dice, target, needed, mastery=mastery, blind_luck=blind_luck))


def difficulties() -> list[tuple[str, int]]:
    """(name, successes needed) of the rules' difficulties, easiest first."""
    from game.pool import load_rules

    return [(d.name, d.successes) for d in load_rules().difficulties]


def targets() -> list[int]:
    from game.pool import load_rules

    return [t.target for t in load_rules().targets]


def mastery_dice() -> range:
    from game.pool import load_rules

    return range(load_rules().mastery_dice, MAX_DICE + 1)


def row_cells(dice: int, mastery: bool = False, blind_luck: bool = False
              ) -> tuple[float, ...]:
    """For each target: success at each difficulty, then the botch."""
    out: list[float] = []
    for t in targets():
        for _name, needed in difficulties():
            out.append(float(roll(dice, t, needed, mastery, blind_luck).success))
        out.append(float(roll(dice, t, 0, mastery, blind_luck).botch))
    return tuple(out)


def rows() -> list[tuple[str, tuple[float, ...]]]:
    """(label, cells) of every row: plain pools, mastered pools, blind luck."""
    from game.pool import load_rules

    out = [(f"{n}d6", row_cells(n)) for n in range(1, MAX_DICE + 1)]
    out += [(f"{n}d6 mastery", row_cells(n, mastery=True)) for n in mastery_dice()]
    out.append(("blind luck", row_cells(load_rules().blind_luck_dice, blind_luck=True)))
    return out


def short(name: str) -> str:
    """Column heading of a difficulty: 'Very Easy' -> 'V.Easy', 'Impossible' -> 'Imp.'"""
    return {"Very Easy": "V.Easy", "Impossible": "Imp.", "Moderate": "Mod."}.get(name, name)


def card_blocks(sheet: Sheet) -> list[Block]:
    from game.pool import load_rules

    rules = load_rules()
    diffs = difficulties()
    data = rows()
    n_plain = MAX_DICE
    n_mastery = len(mastery_dice())
    cols = (*(f"{short(n)}\n{k}" for n, k in diffs), "\nBotch")
    ramps = tuple(("warm" if c.endswith("Botch") else "cool") for _t in targets() for c in cols)
    bands = {t.target: t for t in rules.targets}
    table = HeatTable(
        title="Success and botch by pool size",
        hint="% · columns: difficulty (successes needed) and botch, for each target number",
        leads=(Lead("Pool", tuple(label for label, _ in data), bold=True),),
        groups=tuple((f"Target {t}+  ({bands[t].range})", cols) for t in targets()),
        values=tuple(cells for _label, cells in data), ramps=ramps,
        rules_before=(n_plain, n_plain + n_mastery), corner="", head_h=17.0)
    panels = []
    xs = tuple(float(n) for n in range(1, MAX_DICE + 1))
    for name, needed in diffs[1:]:
        panels.append(Panel(f"{name} ({needed} success{'es' if needed != 1 else ''})", xs,
                            tuple(Series(f"{t}+", tuple(float(roll(n, t, needed).success)
                                                        for n in range(1, MAX_DICE + 1)))
                                  for t in targets())))
    panels.append(Panel("Botch (any difficulty)", xs,
                        tuple(Series(f"{t}+", tuple(float(roll(n, t, 0).botch)
                                                    for n in range(1, MAX_DICE + 1)))
                              for t in targets()), y_max=BOTCH_SCALE))
    chart = LineChart(title="Success against pool size",
                      hint="% · one line per target number", panels=tuple(panels),
                      x_label="dice in the pool", legend_title="Target number",
                      x_ticks=tuple(float(n) for n in range(1, MAX_DICE + 1)),
                      min_panel=100.0)
    notes = Notes((
        "Roll the pool: each die showing the target number or more is a success (1, 2 and 3 "
        "never are). Each pair of 1s (snake-eyes) cancels a success; a pair with no "
        "success left to cancel is a botch, whatever the difficulty. Success: no botch "
        "and enough successes left. Failure is the rest.",
        "Target number: 4 at 0–9 m, 5 at 10–50 m, 6 past 50 m. Difficulty: the successes "
        "needed (Very Easy 0, or 1 if the GM says so: read the Easy column).",
        f"Mastery (level {rules.mastery_level}, {rules.mastery_dice} dice or more): "
        "snake-eyes cancel nothing; the only botch is every die showing 1.",
        "Blind luck (no level): one die; a 6 is a success and is rerolled, each further 6 "
        "one more success; a 1 is rerolled and a second 1 is a botch; any other face "
        "fails, whatever the target.",
        "Over-encumbered: −1 per die for every 5 mass over the allowance, i.e. read the "
        "next target number's column (past 6 nothing succeeds). Readings P1–P10 in "
        "docs/rules.md; other pools: starsheets odds pool.",
        PCT_NOTE))
    return [table, chart, notes]


def draw(sheet: Sheet) -> None:
    head = Head(game="DICE RULES", title="Odds card",
                subtitle="The d6 success pool: exact chances of success and of a botch",
                footer_note="Success: enough successes after snake-eyes, and no botch.",
                credit="Dice Rules (seed 002)  ·  card by starsheets")
    draw_card(sheet, head, card_blocks(sheet))


CARD = register(SheetKind(
    id=KIND_ID,
    title="d6 pool odds card",
    draw=draw,
    editions=("default",),
    default_edition="default",
    papers=("letter", "a4", "half-letter", "a5"),
    aliases=("odds-card-pool", "pool-odds"),
))
