"""`starsheets odds`: exact probabilities for d6 success pools and Spacer tasks.

A plain click group: each game adds its own subcommand (`pool`, `spacer`, ...).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

import click

from game.pool import PoolRoll, load_rules, pool_odds
from game.spacer.tasks import TaskOdds, TaskSide, against_difficulty, opposed
from starsheets.errors import UsageError


@click.group("odds", context_settings={"help_option_names": ["-h", "--help"]})
def odds() -> None:
    """Exact odds of a roll: d6 success pools, Spacer tasks."""


# --- formatting ----------------------------------------------------------------------------

def pct(p: Fraction | float) -> str:
    """A probability as a percentage that never rounds a possibility away to 0."""
    x = float(p) * 100
    if 0 < x < 0.01:
        return "<0.01%"
    if 99.99 < x < 100:
        return ">99.99%"
    return f"{x:.2f}%"


def _columns(cells: Sequence[str], width: int, per_row: int) -> Iterable[str]:
    rows = (len(cells) + per_row - 1) // per_row
    for r in range(rows):
        yield "  " + "".join(cells[r + c * rows].ljust(width)
                             for c in range(per_row) if r + c * rows < len(cells)).rstrip()


def _emit_json(data: dict[str, Any]) -> None:
    click.echo(json.dumps(data, indent=2))


def _note(text: str) -> None:
    click.echo(f"note: {text}", err=True)


# --- pool ----------------------------------------------------------------------------------

@odds.command("pool")
@click.option("--dice", type=int, default=None, metavar="N",
              help="Dice in the pool: one per level, the stat's free die included "
                   "(1 with --blind-luck, which is also the default there).")
@click.option("--target", type=int, required=True, metavar="T",
              help="Target number: 4 (0-9 m), 5 (10-50 m) or 6 (50+ m).")
@click.option("--difficulty", required=True, metavar="NAME|N",
              help="very-easy (0), easy (1), moderate (2), hard (3), impossible (4), "
                   "or a number of successes needed.")
@click.option("--mastery", is_flag=True, help="Level 6+: snake-eyes ignored, botch only on all 1s.")
@click.option("--blind-luck", is_flag=True, help="No level: one die, 1s rerolled, 6s chain.")
@click.option("--encumbrance", type=float, default=0.0, metavar="MASS_OVER",
              help="Mass carried over the Body allowance: -1 per die for every 5.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object on stdout.")
def pool(dice: int | None, target: int, difficulty: str, mastery: bool, blind_luck: bool,
         encumbrance: float, as_json: bool) -> None:
    """Odds of a d6 success pool: success, failure, botch."""
    rules = load_rules()
    if dice is None:
        if not blind_luck:
            raise UsageError("--dice is missing",
                             "Give the pool size, e.g. --dice 3 (or use --blind-luck).")
        dice = rules.blind_luck_dice
    band = rules.target(target)
    label, needed = rules.difficulty(difficulty)
    penalty = rules.penalty(encumbrance)
    roll = PoolRoll(dice, target, needed, mastery=mastery, blind_luck=blind_luck, penalty=penalty)
    result = pool_odds(roll)
    if mastery and dice < rules.mastery_dice and not as_json:
        _note(f"mastery comes at level {rules.mastery_level} "
              f"({rules.mastery_dice} dice); priced with {dice} as asked.")
    if as_json:
        _emit_json({
            "kind": "pool", "dice": dice, "target": target, "range": band.range,
            "difficulty": label, "successes_needed": needed, "mastery": mastery,
            "blind_luck": blind_luck, "encumbrance": encumbrance, "penalty": penalty,
            "effective_target": roll.effective_target, **result.as_dict()})
        return
    mode = ("blind luck (1 die)" if blind_luck else f"{dice}d6") + (", mastery" if mastery else "")
    click.echo(f"{mode} vs target {target} ({band.range}), {label}: "
               f"{needed} success{'es' if needed != 1 else ''} needed")
    if penalty:
        click.echo(f"  over-encumbered by {encumbrance:g}: -{penalty} per die "
                   f"(a die must show {roll.effective_target}+)")
    click.echo(f"  success  {pct(result.success):>8}")
    click.echo(f"  failure  {pct(result.failure):>8}")
    click.echo(f"  botch    {pct(result.botch):>8}")
    shown = [f"{k}+: {pct(p)}" for k, p in enumerate(result.at_least) if k and p]
    if shown:
        click.echo("net successes (no botch), at least:")
        for line in _columns(shown, 16, 4):
            click.echo(line)


# --- spacer --------------------------------------------------------------------------------

def _side_text(side: TaskSide) -> tuple[str, str]:
    """Two lines: what is rolled against what, and the dice."""
    extras = []
    if side.special_ability:
        extras.append("special ability")
    if side.extra_time:
        extras.append("extra time")
    if side.big_target_dice:
        extras.append(f"{side.big_target_dice} big target")
    if side.assistants:
        extras.append(f"{side.assistant_dice} from {len(side.assistants)} assistant"
                      f"{'s' if len(side.assistants) != 1 else ''}")
    dice = f"{side.dice} d12" + (f" (1 + {', '.join(extras)})" if extras else "")
    opens = side.spec().open_allowance
    oe = (f"open-ending below {side.department} (up to {opens} extra)"
          if opens else "no open-ending")
    return (f"attribute {side.attribute} + field {side.field} = {side.target}, "
            f"department {side.department}", f"{dice}, {oe}")


def _distribution_cells(dist: dict[int, Fraction]) -> list[str]:
    """One cell per total; the long thin upper tail folded into one "t+" cell."""
    items = sorted((t, p) for t, p in dist.items() if p)
    cells = []
    tail = sum((p for _, p in items), Fraction(0))
    for t, p in items:
        if tail < Fraction(1, 2000) and len(cells) > 1:
            cells.append(f"{t:>3}+: {pct(tail)}")
            break
        cells.append(f"{t:>3}: {pct(p)}")
        tail -= p
    return cells


def _print_task(result: TaskOdds, side: TaskSide, other: TaskSide | None,
                difficulty: int | None) -> None:
    head, dice = _side_text(side)
    click.echo(f"Spacer task: {head}")
    click.echo(f"  rolls {dice}")
    if other is not None:
        ohead, odice = _side_text(other)
        click.echo(f"opposed by: {ohead}")
        click.echo(f"  rolls {odice}")
    else:
        click.echo(f"against difficulty {difficulty}")
    if result.luck:
        click.echo(f"luck: one reroll, chosen for success (spent {pct(result.luck_spent)} "
                   "of the time)")
    ebs = result.expected_bonus_on_success()
    bonus = f"   expected bonus {float(ebs):.2f}" if ebs is not None else ""
    click.echo(f"  success  {pct(result.success):>8}{bonus}")
    click.echo(f"  tie      {pct(result.tie):>8}")
    click.echo(f"  failure  {pct(result.failure):>8}")
    title = "your total after luck" if result.luck else "your total"
    dist = dict(result.final) if result.luck else result.distribution.as_dict()
    click.echo(f"{title}:")
    for line in _columns(_distribution_cells(dist), 17, 4):
        click.echo(line)


@odds.command("spacer")
@click.option("--attribute", type=int, required=True, metavar="A", help="The attribute used.")
@click.option("--field", "field_", type=int, required=True, metavar="F",
              help="The field level (dice above attribute + field are taken off).")
@click.option("--department", type=int, required=True, metavar="D",
              help="Department level: dice below it open-end, at most D extra dice.")
@click.option("--difficulty", type=int, default=None, metavar="X",
              help="The Referee's difficulty (success when the total is higher).")
@click.option("--opposed-attribute", type=int, default=None, metavar="A",
              help="Opposed task: the other side's attribute.")
@click.option("--opposed-field", type=int, default=None, metavar="F",
              help="Opposed task: the other side's field level.")
@click.option("--opposed-department", type=int, default=None, metavar="D",
              help="Opposed task: the other side's department level.")
@click.option("--opposed-special-ability", is_flag=True,
              help="The other side has a relevant special ability.")
@click.option("--opposed-extra-time", is_flag=True, help="The other side takes extra time.")
@click.option("--opposed-assistant", "opposed_assistants", type=int, multiple=True,
              metavar="TOTAL", help="An assistant of the other side (repeat).")
@click.option("--special-ability", is_flag=True, help="A relevant special ability: +1 die.")
@click.option("--extra-time", is_flag=True, help="Taking extra time: +1 die.")
@click.option("--assistant", "assistants", type=int, multiple=True, metavar="TOTAL",
              help="An assistant's skill total (repeat for each assistant).")
@click.option("--leadership", type=int, default=None, metavar="L",
              help="Your leadership: checks the number of assistants.")
@click.option("--luck", is_flag=True, help="Spend a luck: one reroll, chosen to succeed.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object on stdout.")
def spacer(attribute: int, field_: int, department: int, difficulty: int | None,
           opposed_attribute: int | None, opposed_field: int | None,
           opposed_department: int | None, opposed_special_ability: bool,
           opposed_extra_time: bool, opposed_assistants: tuple[int, ...],
           special_ability: bool, extra_time: bool, assistants: tuple[int, ...],
           leadership: int | None, luck: bool, as_json: bool) -> None:
    """Odds of a Spacer task against a difficulty or an opposed roll."""
    given = {"--opposed-attribute": opposed_attribute, "--opposed-field": opposed_field,
             "--opposed-department": opposed_department}
    is_opposed = any(v is not None for v in given.values()) or opposed_special_ability \
        or opposed_extra_time or bool(opposed_assistants)
    if is_opposed and difficulty is not None:
        raise UsageError("--difficulty and an opposed side exclude each other",
                         "Give --difficulty X, or the --opposed-... options.")
    if not is_opposed and difficulty is None:
        raise UsageError("nothing to roll against",
                         "Give --difficulty X, or --opposed-attribute/-field/-department.")
    missing = [k for k, v in given.items() if v is None]
    if is_opposed and missing:
        raise UsageError(f"opposed task without {', '.join(missing)}",
                         "Give all three of --opposed-attribute, --opposed-field and "
                         "--opposed-department.")
    side = TaskSide(attribute, field_, department, special_ability, extra_time,
                    tuple(assistants), leadership)
    if assistants and leadership is None and not as_json:
        _note("the number of assistants is not checked against leadership "
              "(give --leadership to check it).")
    data: dict[str, Any] = {"kind": "spacer", "side": side.as_dict(), "luck": luck}
    if is_opposed:
        assert opposed_attribute is not None and opposed_field is not None
        assert opposed_department is not None
        other = TaskSide(opposed_attribute, opposed_field, opposed_department,
                         opposed_special_ability, opposed_extra_time, tuple(opposed_assistants))
        result = opposed(side, other, luck=luck)
        data.update(difficulty=None, opposed=other.as_dict())
    else:
        assert difficulty is not None
        result = against_difficulty(side, difficulty, luck=luck)
        data.update(difficulty=difficulty, opposed=None)
        other = None
    if as_json:
        _emit_json({**data, **result.as_dict()})
        return
    _print_task(result, side, other, difficulty)
