"""Exact odds for the d6 success pool of "Dice Rules" (seed 002).

A pool of N six-sided dice is rolled against a target number; dice that match or beat it
are successes, each pair of 1s ("snake-eyes") cancels one success, and a pair with nothing
left to cancel is a botch. Mastery, blind luck and over-encumbrance change the reading.
Every interpretation is documented in docs/rules.md ("d6 success pools").

Results are exact: outcomes are counted with integers over 6^N (a multinomial sum over the
number of successes and of 1s, O(N^2) terms), then returned as `Fraction`s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import comb, floor
from typing import Any

import templates
from starsheets.errors import UsageError

MAX_POOL_DICE = 100  # a tool limit, not a rule: far beyond any character, still instant


@dataclass(frozen=True)
class TargetNumber:
    target: int
    band: str
    range: str
    example: str


@dataclass(frozen=True)
class Difficulty:
    id: str
    name: str
    successes: int
    alternative: int | None  # "Very Easy 0, or 1": the GM's other choice


@dataclass(frozen=True)
class PoolRules:
    """The seed's numbers, from templates/dice_pool.yaml."""

    die_sides: int
    free_stat_dice: int
    stat_max_dice: int
    skill_max_dice: int
    mastery_level: int
    always_fail: tuple[int, ...]
    targets: tuple[TargetNumber, ...]
    difficulties: tuple[Difficulty, ...]
    snake_eyes_face: int
    blind_luck_dice: int
    blind_luck_failure_face: int
    blind_luck_success_face: int
    mass_step: int
    penalty_per_step: int

    @property
    def mastery_dice(self) -> int:
        """Dice in a mastered skill's pool: the free die plus one per level."""
        return self.free_stat_dice + self.mastery_level

    def target(self, value: int) -> TargetNumber:
        for t in self.targets:
            if t.target == value:
                return t
        allowed = ", ".join(str(t.target) for t in self.targets)
        raise UsageError(f"target number {value} is not in the rules",
                         f"Use one of {allowed} (the distance bands).")

    def difficulty(self, text: str | int) -> tuple[str, int]:
        """(label, successes needed) for a difficulty name or an explicit number of successes."""
        raw = str(text).strip()
        key = raw.lower().replace("_", "-").replace(" ", "-")
        for d in self.difficulties:
            if key in (d.id, d.name.lower().replace(" ", "-")):
                return d.id, d.successes
        try:
            needed = int(raw)
        except ValueError:
            names = ", ".join(d.id for d in self.difficulties)
            raise UsageError(f"unknown difficulty '{raw}'",
                             f"Use one of {names}, or a number of successes (0 or more).") from None
        if needed < 0:
            raise UsageError(f"difficulty {needed} is negative",
                             "Give the number of successes needed: 0 or more.")
        return str(needed), needed

    def penalty(self, mass_over: float) -> int:
        """Roll penalty for carrying `mass_over` above the Body allowance (whole steps only)."""
        if mass_over < 0:
            raise UsageError(f"encumbrance {mass_over:g} is negative",
                             "Give the mass carried above the Body allowance (0 or more).")
        return floor(mass_over / self.mass_step) * self.penalty_per_step


@cache
def load_rules() -> PoolRules:
    data = templates.load("dice_pool")
    targets = tuple(TargetNumber(int(t["target"]), str(t["band"]), str(t["range"]),
                                 str(t.get("example", ""))) for t in data["target_numbers"])
    diffs = tuple(Difficulty(str(d["id"]), str(d["name"]), int(d["successes"]),
                             int(d["alternative"]) if "alternative" in d else None)
                  for d in data["difficulties"])
    bl = data["blind_luck"]
    enc = data["encumbrance"]
    return PoolRules(
        die_sides=int(data["die_sides"]), free_stat_dice=int(data["free_stat_dice"]),
        stat_max_dice=int(data["stat_max_dice"]), skill_max_dice=int(data["skill_max_dice"]),
        mastery_level=int(data["mastery_level"]),
        always_fail=tuple(int(f) for f in data["always_fail"]), targets=targets,
        difficulties=diffs, snake_eyes_face=int(data["snake_eyes_face"]),
        blind_luck_dice=int(bl["dice"]), blind_luck_failure_face=int(bl["failure_face"]),
        blind_luck_success_face=int(bl["success_face"]),
        mass_step=int(enc["mass_step"]), penalty_per_step=int(enc["penalty_per_step"]))


@dataclass(frozen=True)
class PoolRoll:
    """One roll to price: `dice` d6 against `target`, needing `needed` net successes."""

    dice: int
    target: int
    needed: int
    mastery: bool = False
    blind_luck: bool = False
    penalty: int = 0  # over-encumbrance: subtracted from every die

    def __post_init__(self) -> None:
        rules = load_rules()
        rules.target(self.target)
        if self.needed < 0:
            raise UsageError(f"{self.needed} successes needed is negative",
                             "Give 0 or more successes (or a difficulty name).")
        if self.penalty < 0:
            raise UsageError(f"penalty {self.penalty} is negative", "Give 0 or more.")
        if self.blind_luck:
            if self.mastery:
                raise UsageError("blind luck and mastery exclude each other",
                                 "Blind luck is for a stat or skill with no level; "
                                 "mastery needs level 6.")
            if self.dice != rules.blind_luck_dice:
                raise UsageError(f"blind luck rolls {rules.blind_luck_dice} die, not {self.dice}",
                                 "Leave out --dice (or give --dice 1) with --blind-luck.")
        elif self.dice < 1:
            raise UsageError(f"a pool of {self.dice} dice cannot be rolled",
                             "Give 1 or more dice (a stat or skill with no level: "
                             "use --blind-luck).")
        elif self.dice > MAX_POOL_DICE:
            raise UsageError(f"{self.dice} dice is more than this tool prices "
                             f"({MAX_POOL_DICE})", f"Give at most {MAX_POOL_DICE} dice.")

    @property
    def effective_target(self) -> int:
        """The face a die must show, penalty included (-1 to the die = +1 to the target)."""
        return self.target + self.penalty

    def success_faces(self) -> int:
        """How many faces of one die count as a success."""
        rules = load_rules()
        return sum(1 for f in range(1, rules.die_sides + 1)
                   if f - self.penalty >= self.target and f not in rules.always_fail)


@dataclass(frozen=True)
class PoolOdds:
    """Three exclusive outcomes summing to 1, plus P(at least k net successes, no botch)."""

    roll: PoolRoll
    success: Fraction
    failure: Fraction  # not enough net successes, and no botch
    botch: Fraction
    at_least: tuple[Fraction, ...]  # at_least[k] = P(no botch and k or more net successes)

    def __post_init__(self) -> None:
        assert self.success + self.failure + self.botch == 1

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: floats for reading, exact fractions as strings."""
        return {
            "success": float(self.success), "failure": float(self.failure),
            "botch": float(self.botch),
            "successes_at_least": {str(k): float(p) for k, p in enumerate(self.at_least)},
            "exact": {"success": str(self.success), "failure": str(self.failure),
                      "botch": str(self.botch)},
        }


def _pool_counts(n: int, win: int, ones: int, sides: int,
                 mastery: bool) -> tuple[dict[int, int], int]:
    """(count of rolls by net successes, count of botches), out of sides**n rolls.

    `win` faces are successes, `ones` faces are the snake-eyes face (never a success),
    the other faces are plain failures. Sum over s successes and o ones of the multinomial
    n!/(s! o! r!) * win^s * ones^o * other^r.
    """
    other = sides - win - ones
    net: dict[int, int] = {}
    botch = 0
    if mastery:
        # Snake-eyes do not count; a botch only when every die shows the snake-eyes face.
        for s in range(n + 1):
            net[s] = comb(n, s) * win ** s * (sides - win) ** (n - s)
        all_ones = ones ** n
        net[0] -= all_ones
        botch = all_ones
        return net, botch
    for s in range(n + 1):
        ways_s = comb(n, s) * win ** s
        for o in range(n - s + 1):
            count = ways_s * comb(n - s, o) * ones ** o * other ** (n - s - o)
            if count == 0:
                continue
            pairs = o // 2  # an odd, unpaired 1 is just a failed die
            if pairs > s:
                botch += count
            else:
                net[s - pairs] = net.get(s - pairs, 0) + count
    return net, botch


def read_pool(roll: PoolRoll, faces: Sequence[int]) -> tuple[int, bool]:
    """(net successes, botch) of dice showing `faces` (blind luck: the faces in rolling order).

    The rules applied one roll at a time, for a dice roller and for checking by hand.
    """
    rules = load_rules()
    if roll.blind_luck:
        first = faces[0]
        if first == rules.blind_luck_failure_face:
            return 0, len(faces) > 1 and faces[1] == rules.blind_luck_failure_face
        if first == rules.blind_luck_success_face and \
                first - roll.penalty >= roll.target:
            chain = 0
            for f in faces:
                if f != rules.blind_luck_success_face:
                    break
                chain += 1
            return chain, False
        return 0, False
    if len(faces) != roll.dice:
        raise ValueError(f"{len(faces)} faces for a pool of {roll.dice}")
    wins = sum(1 for f in faces
               if f - roll.penalty >= roll.target and f not in rules.always_fail)
    ones = sum(1 for f in faces if f == rules.snake_eyes_face)
    if roll.mastery:
        return wins, ones == len(faces)
    pairs = ones // 2
    return (0, True) if pairs > wins else (wins - pairs, False)


def pool_odds(roll: PoolRoll) -> PoolOdds:
    """Exact success / failure / botch probabilities of one pool roll."""
    rules = load_rules()
    sides = rules.die_sides
    if roll.blind_luck:
        return _blind_luck_odds(roll, rules)
    total = sides ** roll.dice
    net, botch = _pool_counts(roll.dice, roll.success_faces(), 1, sides, roll.mastery)
    at_least = []
    running = 0
    for k in range(roll.dice, -1, -1):
        running += net.get(k, 0)
        at_least.append(Fraction(running, total))
    at_least.reverse()
    success = at_least[roll.needed] if roll.needed <= roll.dice else Fraction(0)
    p_botch = Fraction(botch, total)
    return PoolOdds(roll, success, 1 - success - p_botch, p_botch, tuple(at_least))


def _blind_luck_odds(roll: PoolRoll, rules: PoolRules) -> PoolOdds:
    """One die: the failure face is rerolled (again: botch), the success face chains."""
    p_face = Fraction(1, rules.die_sides)
    botch = p_face * p_face
    # The success face counts only if it still makes the target after the penalty.
    chains = rules.blind_luck_success_face - roll.penalty >= roll.target
    top = max(roll.needed, 1) + 2
    at_least = [1 - botch] + [p_face ** k if chains else Fraction(0) for k in range(1, top + 1)]
    success = at_least[roll.needed]
    return PoolOdds(roll, success, 1 - success - botch, botch, tuple(at_least))
