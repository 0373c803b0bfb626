"""Spacer tasks (seed 004): exact odds, each task rule, luck, the CLI.

Independent checks of game.spacer.tasks: cases worked by hand (reasoning in comments), an
exact enumerator of every way a roll can go written here from the seed's steps 6-10, a
brute-force luck solver (every subset of dice tried), and a seeded Monte Carlo simulator.
"""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
import time
from collections import defaultdict
from fractions import Fraction
from functools import cache

import pytest

from game.spacer.tasks import (
    DiceSpec,
    TaskSide,
    against_difficulty,
    assistant_dice,
    luck_table_count,
    max_assistants,
    opposed,
    read_task,
    total_distribution,
    triangular_bonus,
)
from starsheets.cli import main
from starsheets.errors import UsageError

F = Fraction


# --- the seed's rules, one at a time ----------------------------------------------------------

def test_triangular_progression_as_printed_and_beyond() -> None:
    printed = {1: 1, 2: 2, 3: 2, 4: 3, 6: 3, 7: 4, 10: 4, 11: 5, 15: 5, 16: 6, 21: 6, 22: 7,
               28: 7, 29: 8, 36: 8, 37: 9, 45: 9, 46: 10, 55: 10, 56: 11, 136: 16}
    for excess, bonus in printed.items():
        assert triangular_bonus(excess) == bonus, excess
    assert triangular_bonus(0) == 0 and triangular_bonus(-3) == 0
    # Past the form's table the progression continues: bonus b up to b(b+1)/2.
    assert [triangular_bonus(x) for x in (137, 153, 154, 171, 172)] == [17, 17, 18, 18, 19]


def test_extra_dice_special_ability_extra_time_big_target() -> None:
    assert TaskSide(4, 3, 2).dice == 1  # one 12-sided die
    assert TaskSide(4, 3, 2, special_ability=True).dice == 2  # at most one for abilities
    assert TaskSide(4, 3, 2, special_ability=True, extra_time=True).dice == 3
    # Big Target Numbers: attribute + field over 10, the amount over 10 is extra dice.
    assert TaskSide(6, 4, 2).dice == 1  # exactly 10: none
    assert TaskSide(7, 4, 2).dice == 2
    assert TaskSide(8, 5, 2).dice == 4


def test_assistants_seed_example() -> None:
    # Smyth: Tech 4 + PP 1 = 5 -> bonus 3 (4-6 = 3), as the seed says.
    assert triangular_bonus(5) == 3
    # Jones: Tech 5 + PP 2 = 7. The seed says "bonus of 2" but its own table gives
    # 7-10 = 4; we follow the table. Combined 3 + 4 = 7 -> 4 extra dice.
    assert triangular_bonus(7) == 4
    assert assistant_dice([5, 7]) == 4
    # The seed's arithmetic on its stated bonuses (3 + 2 = 5 -> 3 dice) agrees with the table.
    assert triangular_bonus(3 + 2) == 3
    assert assistant_dice([5]) == 2  # 5 -> 3, then 3 -> 2
    assert assistant_dice([]) == 0 and assistant_dice([0]) == 0
    assert TaskSide(4, 4, 2, assistants=(5, 7)).dice == 1 + 4


def test_assistants_limited_by_leadership() -> None:
    assert [max_assistants(x) for x in (0, 1, 2, 3, 4, 6, 7)] == [0, 1, 2, 2, 3, 3, 4]
    TaskSide(4, 4, 2, assistants=(5, 5), leadership=3)
    with pytest.raises(UsageError, match="leadership"):
        TaskSide(4, 4, 2, assistants=(5, 5, 5), leadership=3)


def test_open_ending_is_strictly_below_the_department_level() -> None:
    spec = TaskSide(5, 5, 3).spec()
    assert read_task(spec, [3]) == ((3,), 3)  # 3 is not less than 3
    assert read_task(spec, [2, 3]) == ((2, 3), 5)  # 2 open-ends
    assert read_task(spec, [1, 2, 9]) == ((1, 2, 9), 12)  # extra dice open-end too


def test_open_ending_adds_at_most_department_level_dice() -> None:
    spec = TaskSide(5, 5, 2).spec()  # only a 1 open-ends, at most 2 extra dice
    assert read_task(spec, [1, 1, 1, 7]) == ((1, 1, 1), 3)  # the third 1 adds nothing
    # P(total 3): a 3 (1/12), or 1 then 2 (1/144), or 1, 1, 1 (1/1728) = 157/1728.
    assert total_distribution(spec).prob(3) == F(144 + 12 + 1, 1728)
    # P(total 1): a 1 then a die taken off (11 or 12; the 1 then 1 gives 2+) = 2/144.
    assert total_distribution(spec).prob(1) == F(2, 144)


def test_removed_dice_still_open_end() -> None:
    # Step 7 (open-ending) comes before step 8 (removal): a 4 against attribute + field 3
    # is taken off, but first it open-ends against department 5.
    spec = TaskSide(2, 1, 5).spec()
    assert read_task(spec, [4, 2, 9]) == ((4, 2, 9), 2)


def test_dice_above_attribute_plus_field_are_taken_off() -> None:
    # 5 + 5 = 10: an 11 or 12 is removed; one die, no open-ending (department 0):
    # total 0 with 2/12, each of 1..10 with 1/12.
    d = total_distribution(TaskSide(5, 5, 0).spec())
    assert d.prob(0) == F(2, 12)
    assert all(d.prob(t) == F(1, 12) for t in range(1, 11))
    assert d.prob(11) == 0


def test_department_zero_means_no_open_ending() -> None:
    spec = TaskSide(3, 2, 0).spec()
    assert spec.open_allowance == 0 and spec.max_dice == 1
    assert read_task(spec, [1]) == ((1,), 1)


# --- interpreting the results, worked by hand -------------------------------------------------

def test_against_difficulty_by_hand() -> None:
    # Totals 0 (2/12), 1..10 (1/12 each) against 5: higher = 6..10 (5/12), tie = 5 (1/12).
    o = against_difficulty(TaskSide(5, 5, 0), 5)
    assert (o.success, o.tie, o.failure) == (F(5, 12), F(1, 12), F(6, 12))
    # Margins 1..5 -> bonuses 1, 2, 2, 3, 3: expected (1+2+2+3+3)/5 = 11/5.
    assert o.expected_bonus_on_success() == F(11, 5)
    assert o.bonus_on_success() == {1: F(1, 5), 2: F(2, 5), 3: F(2, 5)}
    # Difficulty 0: any total above 0 succeeds; 0 ties.
    o = against_difficulty(TaskSide(5, 5, 0), 0)
    assert (o.success, o.tie) == (F(10, 12), F(2, 12))
    # Out of reach: a single die can never beat 10.
    o = against_difficulty(TaskSide(5, 5, 0), 10)
    assert o.success == 0 and o.tie == F(1, 12) and o.expected_bonus_on_success() is None


def test_opposed_by_hand() -> None:
    # Same sides: success and failure are mirror images. One die each, 0..10 as above:
    # tie = sum of squares = (2/12)^2 + 10 (1/12)^2 = 14/144.
    side = TaskSide(5, 5, 0)
    o = opposed(side, side)
    assert o.success == o.failure
    assert o.tie == F(14, 144)
    assert o.success + o.tie + o.failure == 1
    # The margin distribution is symmetric too.
    assert all(o.margins[m] == o.margins[-m] for m in o.margins)


def test_luck_against_difficulty_by_hand() -> None:
    # One die (0..10 as above) against 5. Without luck: 5/12. With luck, a total of 5 or
    # less (7/12) rerolls its die: 5/12 to win, 1/12 to tie again.
    o = against_difficulty(TaskSide(5, 5, 0), 5, luck=True)
    assert o.success == F(5, 12) + F(7, 12) * F(5, 12)
    assert o.tie == F(7, 12) * F(1, 12)
    assert o.luck_spent == F(7, 12)


def test_luck_picks_which_dice() -> None:
    # Two dice (special ability), 5 + 5 = 10, no open-ending, against 15. On a roll of
    # 10 and 2 (total 12): keeping the 10 and rerolling the 2 needs more than 5 from one
    # die (6..10: 5/12); rerolling both needs 16+ from two dice (sum over a = 6..10 of
    # a - 5 = 15 pairs: 15/144); keeping the 2 needs 14+ from one die (0). Picking the dice
    # wins. The brute-force tests below check every roll; here the totals: luck helps.
    side = TaskSide(5, 5, 0, special_ability=True)
    plain = against_difficulty(side, 15)
    lucky = against_difficulty(side, 15, luck=True)
    assert lucky.success > plain.success
    assert lucky.success + lucky.tie + lucky.failure == 1


# --- an independent exact enumerator and brute-force luck ------------------------------------

def _sequences(dice: int, keep: int, below: int, most: int) -> list[tuple[tuple[int, ...], F]]:
    """Every way the roll can go, straight from steps 6-7: (faces in order, probability)."""
    out: list[tuple[tuple[int, ...], F]] = []

    def go(rolled: tuple[int, ...], pending: int, extra: int, p: F) -> None:
        if pending == 0:
            out.append((rolled, p))
            return
        for v in range(1, 13):
            opens = 1 if v < below and extra < most else 0
            go((*rolled, v), pending - 1 + opens, extra + opens, p / 12)

    go((), dice, 0, F(1))
    return out


def _total(faces: tuple[int, ...], keep: int) -> int:
    return sum(v for v in faces if v <= keep)  # step 8-9: dice above keep are taken off


def _dist(dice: int, keep: int, below: int, most: int) -> dict[int, F]:
    d: dict[int, F] = defaultdict(F)
    for faces, p in _sequences(dice, keep, below, most):
        d[_total(faces, keep)] += p
    return dict(d)


@cache
def _reroll(m: int, keep: int) -> dict[int, F]:
    """Sum of m rerolled dice (no open-ending, removal applies), by brute force."""
    d: dict[int, F] = defaultdict(F)
    for faces in itertools.product(range(1, 13), repeat=m):
        d[_total(faces, keep)] += F(1, 12 ** m)
    return dict(d)


def _reroll_chances(m: int, keep: int, need: int) -> tuple[F, F]:
    d = _reroll(m, keep)
    return (sum((p for s, p in d.items() if s > need), F(0)), d.get(need, F(0)))


@cache
def _best_own_reroll(contribs: tuple[int, ...], keep: int, need: int) -> tuple[F, F]:
    """Best (P(success), P(tie)) over every non-empty subset of these dice to reroll.

    `contribs`: what each die on the table adds (0 if taken off), sorted (the cache key).
    """
    total = sum(contribs)
    best = (F(0), F(0))
    for r in range(1, len(contribs) + 1):
        for subset in itertools.combinations(range(len(contribs)), r):
            kept = total - sum(contribs[i] for i in subset)
            best = max(best, _reroll_chances(r, keep, need - kept))
    return best


def _brute_luck_difficulty(dice: int, keep: int, below: int, most: int,
                           x: int) -> tuple[F, F]:
    success = tie = F(0)
    for faces, p in _sequences(dice, keep, below, most):
        total = _total(faces, keep)
        if total > x:
            success += p
            continue
        contribs = tuple(sorted(v if v <= keep else 0 for v in faces))
        best = max((F(0), F(1) if total == x else F(0)), _best_own_reroll(contribs, keep, x))
        success += p * best[0]
        tie += p * best[1]
    return success, tie


def _brute_luck_opposed(mine: tuple[int, int, int, int],
                        theirs: tuple[int, int, int, int]) -> tuple[F, F]:
    dice, keep, below, most = mine
    other = _dist(*theirs)
    success = tie = F(0)
    for faces, p in _sequences(dice, keep, below, most):
        total = _total(faces, keep)
        contribs = tuple(sorted(v if v <= keep else 0 for v in faces))
        # Reroll the other side entirely...
        theirs_again = (sum((r for t, r in other.items() if t < total), F(0)),
                        other.get(total, F(0)))
        for y, q in other.items():
            if total > y:
                success += p * q
                continue
            # ... or keep everything, or reroll any subset of mine.
            best = max(theirs_again, (F(0), F(1) if total == y else F(0)),
                       _best_own_reroll(contribs, keep, y))
            success += p * q * best[0]
            tie += p * q * best[1]
    return success, tie


SMALL_SPECS = [(1, 12, 0, 0), (1, 7, 3, 3), (2, 9, 2, 2), (1, 5, 7, 2), (2, 4, 3, 1),
               (1, 12, 13, 2)]


@pytest.mark.parametrize("params", SMALL_SPECS)
def test_distribution_equals_independent_enumeration(params: tuple[int, int, int, int]) -> None:
    assert total_distribution(DiceSpec(*params)).as_dict() == _dist(*params)


def _side_for(params: tuple[int, int, int, int]) -> TaskSide:
    """A TaskSide rolling `params` (dice, keep = A+F <= 10, department) where possible."""
    dice, keep, below, most = params
    assert below == most and keep <= 10 and dice <= 3
    return TaskSide(keep - keep // 2, keep // 2, below,
                    special_ability=dice >= 2, extra_time=dice >= 3)


LUCK_SPECS = [(1, 7, 3, 3), (2, 9, 2, 2), (1, 10, 0, 0), (1, 4, 3, 3), (2, 6, 2, 2)]


@pytest.mark.parametrize("params", LUCK_SPECS)
def test_luck_against_difficulty_equals_brute_force(params: tuple[int, int, int, int]) -> None:
    side = _side_for(params)
    assert side.spec() == DiceSpec(*params)
    for x in (0, 3, 7, 12, 18):
        o = against_difficulty(side, x, luck=True)
        assert (o.success, o.tie) == _brute_luck_difficulty(*params, x), x


@pytest.mark.parametrize(("mine", "theirs"), [
    ((1, 7, 3, 3), (1, 6, 2, 2)), ((1, 10, 0, 0), (1, 10, 0, 0)), ((2, 9, 1, 1), (1, 8, 3, 3)),
])
def test_luck_opposed_equals_brute_force(mine: tuple[int, int, int, int],
                                         theirs: tuple[int, int, int, int]) -> None:
    o = opposed(_side_for(mine), _side_for(theirs), luck=True)
    assert (o.success, o.tie) == _brute_luck_opposed(mine, theirs)


def test_luck_never_hurts_and_sums_to_one() -> None:
    for a, f, d in ((3, 2, 1), (4, 3, 3), (5, 4, 4), (2, 2, 6)):
        side = TaskSide(a, f, d, special_ability=True)
        for x in (0, 4, 8, 14):
            plain, lucky = against_difficulty(side, x), against_difficulty(side, x, luck=True)
            assert lucky.success >= plain.success
            assert lucky.success + lucky.tie + lucky.failure == 1
            assert sum(lucky.final.values()) == 1
        other = TaskSide(4, 2, 2)
        assert opposed(side, other, luck=True).success >= opposed(side, other).success


# --- seeded Monte Carlo -----------------------------------------------------------------------

def _roll(rng: random.Random, dice: int, keep: int, below: int, most: int) -> int:
    """One roll by the seed's steps: roll, open-end (capped), take off, total."""
    rolled: list[int] = []
    pending, extra = dice, 0
    while pending:
        v = rng.randint(1, 12)
        rolled.append(v)
        pending -= 1
        if v < below and extra < most:
            extra += 1
            pending += 1
    return sum(v for v in rolled if v <= keep)


def _check(seen: dict[str, int], trials: int, exact: dict[str, F], label: object) -> None:
    for key, p in exact.items():
        pf = float(p)
        sigma = (pf * (1 - pf) / trials) ** 0.5
        assert abs(seen[key] / trials - pf) <= 5 * sigma + 1e-9, (label, key)


def _agree_difficulty(side: TaskSide, x: int, trials: int, seed: int) -> None:
    rng = random.Random(seed)
    spec = side.spec()
    seen = {"success": 0, "tie": 0, "failure": 0}
    for _ in range(trials):
        t = _roll(rng, spec.dice, side.attribute + side.field, side.department, side.department)
        seen["success" if t > x else "tie" if t == x else "failure"] += 1
    o = against_difficulty(side, x)
    _check(seen, trials, {"success": o.success, "tie": o.tie, "failure": o.failure}, (side, x))


def _agree_opposed(side: TaskSide, other: TaskSide, trials: int, seed: int) -> None:
    rng = random.Random(seed)
    seen = {"success": 0, "tie": 0, "failure": 0}
    for _ in range(trials):
        a = _roll(rng, side.dice, side.target, side.department, side.department)
        b = _roll(rng, other.dice, other.target, other.department, other.department)
        seen["success" if a > b else "tie" if a == b else "failure"] += 1
    o = opposed(side, other)
    _check(seen, trials, {"success": o.success, "tie": o.tie, "failure": o.failure},
           (side, other))


@pytest.mark.parametrize(("side", "x"), [
    (TaskSide(4, 3, 3), 5), (TaskSide(5, 4, 4, special_ability=True), 10),
    (TaskSide(7, 6, 5, extra_time=True), 20), (TaskSide(3, 1, 8), 6),
    (TaskSide(4, 4, 2, assistants=(5, 7)), 15),
])
def test_monte_carlo_against_difficulty(side: TaskSide, x: int) -> None:
    _agree_difficulty(side, x, 20_000, seed=x)


def test_monte_carlo_opposed() -> None:
    _agree_opposed(TaskSide(5, 3, 4), TaskSide(4, 4, 3, extra_time=True), 20_000, seed=7)


def _simulate_luck(rng: random.Random, side: TaskSide, x: int) -> str:
    """Roll, then if not already a success spend the luck by brute force over subsets."""
    spec = side.spec()
    rolled: list[int] = []
    pending, extra = spec.dice, 0
    while pending:
        v = rng.randint(1, 12)
        rolled.append(v)
        pending -= 1
        if v < spec.open_below and extra < spec.open_max:
            extra += 1
            pending += 1
    keep = spec.keep_max
    total = _total(tuple(rolled), keep)
    if total <= x:
        best, choice = (F(0), F(1) if total == x else F(0)), ()
        for r in range(1, len(rolled) + 1):
            for subset in itertools.combinations(range(len(rolled)), r):
                kept = total - _total(tuple(rolled[i] for i in subset), keep)
                chance = _reroll_chances(r, keep, x - kept)
                if chance > best:
                    best, choice = chance, subset
        for i in choice:
            rolled[i] = rng.randint(1, 12)
        total = _total(tuple(rolled), keep)
    return "success" if total > x else "tie" if total == x else "failure"


@pytest.mark.slow
def test_monte_carlo_luck() -> None:
    for i, (side, x) in enumerate([(TaskSide(4, 3, 3), 6), (TaskSide(5, 4, 2, extra_time=True), 12),
                                   (TaskSide(3, 3, 4), 9)]):
        rng = random.Random(i)
        trials = 40_000
        seen = {"success": 0, "tie": 0, "failure": 0}
        for _ in range(trials):
            seen[_simulate_luck(rng, side, x)] += 1
        o = against_difficulty(side, x, luck=True)
        _check(seen, trials, {"success": o.success, "tie": o.tie, "failure": o.failure},
               (side, x))


@pytest.mark.slow
def test_monte_carlo_many_configurations() -> None:
    rng = random.Random(4)
    for i in range(40):
        a, f = rng.randint(0, 8), rng.randint(0, 6)
        side = TaskSide(a, f, rng.randint(0, 7), special_ability=rng.random() < 0.3,
                        extra_time=rng.random() < 0.3,
                        assistants=tuple(rng.randint(1, 9) for _ in range(rng.randint(0, 2))))
        _agree_difficulty(side, rng.randint(0, 25), 50_000, seed=i)
        other = TaskSide(rng.randint(0, 8), rng.randint(0, 6), rng.randint(0, 7))
        _agree_opposed(side, other, 50_000, seed=1000 + i)


@pytest.mark.slow
def test_luck_brute_force_more_configurations() -> None:
    for params in [(1, 9, 4, 4), (2, 10, 3, 3), (3, 8, 2, 2), (2, 6, 4, 4), (1, 4, 5, 5)]:
        side = _side_for(params)
        for x in (0, 5, 9, 14, 20):
            o = against_difficulty(side, x, luck=True)
            assert (o.success, o.tie) == _brute_luck_difficulty(*params, x), (params, x)
    o = opposed(_side_for((2, 9, 2, 2)), _side_for((1, 8, 4, 4)), luck=True)
    assert (o.success, o.tie) == _brute_luck_opposed((2, 9, 2, 2), (1, 8, 4, 4))


# --- speed ------------------------------------------------------------------------------------

def test_a_whole_odds_card_is_fast() -> None:
    """Every attribute + field 1-14 x department 0-6 x difficulty 0-20, cold caches."""
    total_distribution.cache_clear()
    start = time.perf_counter()
    for a in range(1, 8):
        for f in range(0, 8):
            for d in range(0, 7):
                side = TaskSide(a, f, d)
                for x in range(0, 21):
                    against_difficulty(side, x)
    assert time.perf_counter() - start < 1.0


def test_luck_cases_are_quick() -> None:
    start = time.perf_counter()
    against_difficulty(TaskSide(5, 5, 5, special_ability=True), 12, luck=True)
    opposed(TaskSide(5, 4, 4, special_ability=True), TaskSide(4, 4, 3), luck=True)
    assert time.perf_counter() - start < 1.0


def test_luck_too_large_is_refused() -> None:
    side = TaskSide(7, 6, 9, special_ability=True, extra_time=True)
    assert luck_table_count(side.spec()) > 400_000
    with pytest.raises(UsageError, match="too large"):
        against_difficulty(side, 30, luck=True)
    assert 0 < against_difficulty(side, 30).success < 1  # without luck: instant


def test_bad_sides() -> None:
    for kwargs in ({"attribute": -1}, {"attribute": 21}, {"field": -1}, {"department": -1},
                   {"assistants": (-2,)}, {"leadership": -1}):
        args = {"attribute": 4, "field": 3, "department": 2, **kwargs}
        with pytest.raises(UsageError):
            TaskSide(**args)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="difficulty"):
        against_difficulty(TaskSide(4, 3, 2), -1)
    with pytest.raises(UsageError, match="more than this tool"):
        TaskSide(20, 40, 20)


# --- the CLI, as a user runs it ---------------------------------------------------------------

def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "starsheets", "odds", "spacer", *args],
                          capture_output=True, text=True, timeout=60)


def test_cli_difficulty_json() -> None:
    p = run_cli("--attribute", "5", "--field", "5", "--department", "0", "--difficulty", "5",
                "--json")
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    assert (data["success"], data["tie"], data["failure"]) == pytest.approx((5 / 12, 1 / 12, 0.5))
    assert data["distribution"]["0"] == pytest.approx(2 / 12)
    assert sum(data["distribution"].values()) == pytest.approx(1)
    assert data["expected_bonus_on_success"] == pytest.approx(11 / 5)
    assert data["difficulty"] == 5 and data["opposed"] is None
    assert data["side"]["attribute"] == 5 and data["side"]["dice"] == 1
    assert data["exact"]["success"] == "5/12"


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(["odds", "spacer", *args])
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_cli_opposed_with_luck_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "--attribute", "4", "--field", "3", "--department", "3",
                            "--special-ability", "--opposed-attribute", "4",
                            "--opposed-field", "2", "--opposed-department", "2", "--luck",
                            "--json")
    assert code == 0
    data = json.loads(out)
    assert data["success"] + data["tie"] + data["failure"] == pytest.approx(1)
    assert data["luck"] is True and 0 < data["luck_spent"] < 1
    assert data["opposed"]["department"] == 2
    assert sum(data["distribution_after_luck"].values()) == pytest.approx(1)
    side = TaskSide(4, 3, 3, special_ability=True)
    assert data["success"] == pytest.approx(float(opposed(side, TaskSide(4, 2, 2),
                                                          luck=True).success))


def test_cli_human_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, "--attribute", "4", "--field", "4", "--department", "2",
                              "--assistant", "5", "--assistant", "7", "--difficulty", "12")
    assert code == 0
    assert "success" in out and "tie" in out and "failure" in out and "your total" in out
    assert "assistants" in err  # the leadership check is mentioned when it cannot be made


BASE = ["--attribute", "4", "--field", "3", "--department", "2"]


@pytest.mark.parametrize(("args", "message"), [
    (BASE, "nothing to roll against"),
    ([*BASE, "--difficulty", "5", "--opposed-attribute", "3"], "exclude"),
    ([*BASE, "--opposed-attribute", "3"], "--opposed-field"),
    ([*BASE, "--difficulty", "-1"], "difficulty -1"),
    (["--attribute", "4", "--field", "3", "--department", "-1", "--difficulty", "5"],
     "department -1"),
    (["--attribute", "21", "--field", "3", "--department", "1", "--difficulty", "5"],
     "attribute 21"),
    (["--attribute", "4", "--field", "-3", "--department", "1", "--difficulty", "5"],
     "field -3"),
    ([*BASE, "--difficulty", "5", "--assistant", "-4"], "assistant total -4"),
    ([*BASE, "--difficulty", "5", "--assistant", "5", "--assistant", "5", "--leadership", "1"],
     "more than leadership 1 allows"),
    (["--attribute", "7", "--field", "6", "--department", "9", "--special-ability",
      "--extra-time", "--difficulty", "30", "--luck"], "too large"),
])
def test_cli_bad_arguments(capsys: pytest.CaptureFixture[str], args: list[str],
                           message: str) -> None:
    code, out, err = run_main(capsys, *args)
    assert code == 2
    assert out == ""
    assert message in err
    assert err.count("\n") == 1 and err.startswith("starsheets: error: ")


def test_cli_bad_argument_in_a_subprocess() -> None:
    p = run_cli("--attribute", "4", "--field", "3", "--department", "-1", "--difficulty", "5")
    assert p.returncode == 2 and p.stdout == ""
    assert "department -1" in p.stderr and p.stderr.strip().count("\n") == 0
