"""OPIAL dice: the feasibility kernel (game/opial/kernel.py) and the exact odds with
optimal Computer re-rolls (game/opial/odds.py).

Independent checks: cases worked by hand (reasoning in comments), a brute-force
feasibility checker written here from the rules (every assignment of dice to numbers,
every flip choice, every distribution of +1s), and a brute-force expectimax over every
re-roll choice for small pools.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.opial import kernel
from game.opial.odds import (
    Mods,
    canonical_mods,
    medal_success,
    mission_success,
    single_die_success,
    success_by_rerolls,
)
from game.opial.rules import load_rules

F = Fraction
RULES = load_rules()
COLOURS = "BGR"

Dice = tuple[tuple[str, int], ...]  # (colour, value)
Reqs = tuple[tuple[int, str], ...]  # (target, colour or K)


# --- the kernel, called as the engine does -----------------------------------------------------

def kernel_feasible(dice: Dice, reqs: Reqs, mods: Mods) -> bool:
    vals = [np.array(sorted(v for c, v in dice if c == col), np.int64) for col in COLOURS]
    ordered = sorted(reqs, key=lambda r: -r[0])
    t = np.array([r[0] for r in ordered], np.int64)
    c = np.array(["BGRK".index(r[1]) for r in ordered], np.int64)
    choice = np.empty(kernel.CHOICE_LEN, np.int64)
    assign = np.empty(max(1, len(t)), np.int64)
    rows = getattr(kernel, "BUF_ROWS", 5)
    buf = np.zeros((rows, kernel.MAXD), np.int64)
    return bool(kernel.feasible(vals[0], vals[1], vals[2], t, c, mods.array(), choice, assign,
                                buf))


# --- brute force, from the rules ----------------------------------------------------------------

@cache
def _plus_ones_fit(needs: tuple[tuple[str, int], ...], mods: Mods) -> bool:
    """Is there a distribution of +1s covering each (die colour, shortfall)? Every split of
    each shortfall between the die colour's skill and Leadership is tried."""
    if sum(need for _, need in needs) > mods.lead + mods.adm + mods.eng + mods.gun:
        return False  # not enough +1s in all (a shortcut, not a different answer)
    colour_skill = {"B": mods.adm, "G": mods.eng, "R": mods.gun}
    for split in itertools.product(*(range(need + 1) for _, need in needs)):
        used = {"B": 0, "G": 0, "R": 0}
        lead = 0
        for (col, need), by_colour in zip(needs, split, strict=True):
            used[col] += by_colour
            lead += need - by_colour
        if lead <= mods.lead and all(used[c] <= colour_skill[c] for c in COLOURS):
            return True
    return False


def brute_feasible(dice: Dice, reqs: Reqs, mods: Mods) -> bool:
    """Every flip choice (Navigation: up to `nav` dice to 7 - v; Strategy: one die to 6),
    every Liaison choice, every assignment of distinct dice to the numbers, every +1 split."""
    n = len(dice)
    if len(reqs) > n:
        return False
    liaison_choices: list[int | None] = [None]
    if mods.liaison:
        liaison_choices += [j for j, (_, c) in enumerate(reqs) if c != "K"]
    for flips in itertools.product((0, 1, 2), repeat=n):  # 0 keep, 1 navigate, 2 strategy
        if flips.count(1) > mods.nav or flips.count(2) > min(mods.strat, 1):
            continue
        values = [7 - v if f == 1 else 6 if f == 2 else v
                  for (_, v), f in zip(dice, flips, strict=True)]
        for li in liaison_choices:
            for chosen in itertools.permutations(range(n), len(reqs)):
                needs = []
                for j, d in enumerate(chosen):
                    target, colour = reqs[j]
                    die_colour = dice[d][0]
                    if colour not in ("K", die_colour) and j != li:
                        break
                    needs.append((die_colour, max(0, target - values[d])))
                else:
                    if _plus_ones_fit(tuple(sorted(needs)), mods):
                        return True
    return False


# --- small cases by hand ------------------------------------------------------------------------

def can(dice: Dice, reqs: Reqs, mods: Mods) -> bool:
    """The kernel's answer, after checking that the brute force agrees."""
    answer = kernel_feasible(dice, reqs, mods)
    assert brute_feasible(dice, reqs, mods) == answer, (dice, reqs, mods)
    return answer

def test_one_blue_die_three_plus() -> None:
    # Security as a Cadet: a 3, 4, 5 or 6 on the one blue die = 4/6
    p = success_by_rerolls(((3, "B"),), (1, 0, 0), Mods())
    assert p[0] == pytest.approx(2 / 3, abs=1e-12)
    # each re-roll of a failed die: 1 - (1/3)^(r+1)
    for r in range(5):
        assert p[r] == pytest.approx(1 - (1 / 3) ** (r + 1), abs=1e-12)


def test_aid_blue_green_with_two_rerolls() -> None:
    # Aid: 4+ any and 4+ Green with one Blue and one Green die. The Green die must make the
    # Green 4+ (the only green), so the Blue die makes the other: both dice 4+, 1/4.
    # With 2 re-rolls (Dan's Computer 2), decided after seeing the dice:
    #   both made (1/4): success;
    #   one failed (1/2): re-roll it up to twice: 1 - (1/2)^2 = 3/4;
    #   both failed (1/4): one re-roll each, both must make it: 1/2 * 1/2 = 1/4.
    # Total 1/4 + 1/2 * 3/4 + 1/4 * 1/4 = 4/16 + 6/16 + 1/16 = 11/16.
    aid = RULES.mission("aid")
    assert mission_success(aid, (1, 1, 0), Mods(), 0) == pytest.approx(1 / 4, abs=1e-12)
    assert mission_success(aid, (1, 1, 0), Mods(), 2) == pytest.approx(11 / 16, abs=1e-12)
    # one re-roll: 1/4 + 1/2 * 1/2 (the failed die re-rolled once) = 1/2
    assert mission_success(aid, (1, 1, 0), Mods(), 1) == pytest.approx(1 / 2, abs=1e-12)


def test_dan_aid_examples() -> None:
    mods = Mods(lead=1)
    aid = (((4, "K"), (4, "G")))
    # Green 3 and Blue 3 fail, Blue 5 and Green 4 after the re-rolls make it
    assert not can((("B", 3), ("G", 3)), aid, Mods())
    assert can((("B", 5), ("G", 4)), aid, Mods())
    # "even if he used his Level 1 Leadership to add 1 the Blue die, it still will only be
    # 3": Blue 2, Green 4 fails with Leadership 1
    assert not can((("B", 2), ("G", 4)), aid, mods)
    assert can((("B", 3), ("G", 4)), aid, mods)


def test_leadership_turns_a_three_into_a_four() -> None:
    assert not can((("B", 3),), ((4, "B"),), Mods())
    assert can((("B", 3),), ((4, "B"),), Mods(lead=1))
    # one die 4+: with Leadership 1 a 3 counts, so 4/6
    p = success_by_rerolls(((4, "B"),), (1, 0, 0), Mods(lead=1))[0]
    assert p == pytest.approx(4 / 6, abs=1e-12)


def test_colour_skills_only_help_their_colour() -> None:
    assert can((("G", 3),), ((4, "K"),), Mods(eng=1))
    assert not can((("B", 3),), ((4, "K"),), Mods(eng=1))
    assert can((("B", 3),), ((4, "K"),), Mods(adm=1))
    assert can((("R", 3),), ((4, "R"),), Mods(gun=1))
    assert not can((("R", 3),), ((4, "R"),), Mods(adm=1, eng=1))


def test_navigation_turns_a_one_into_a_six() -> None:
    assert not can((("B", 1),), ((6, "B"),), Mods())
    assert can((("B", 1),), ((6, "B"),), Mods(nav=1))
    # a flip is to the opposite face: a 3 becomes a 4, not a 6
    assert can((("B", 3),), ((4, "B"),), Mods(nav=1))
    assert not can((("B", 3),), ((5, "B"),), Mods(nav=1))
    # two levels flip two dice
    two = (("B", 1), ("G", 2))
    assert not can(two, ((6, "B"), (5, "G")), Mods(nav=1))
    assert can(two, ((6, "B"), (5, "G")), Mods(nav=2))
    # 6+ on one die with Navigation: 6 or 1 = 2/6
    p = success_by_rerolls(((6, "B"),), (1, 0, 0), Mods(nav=1))[0]
    assert p == pytest.approx(2 / 6, abs=1e-12)


def test_strategy_flips_one_die_to_six() -> None:
    assert can((("R", 2),), ((6, "R"),), Mods(strat=1))
    assert not can((("R", 2), ("R", 3)), ((6, "R"), (6, "R")), Mods(strat=1))
    assert can((("R", 2), ("R", 6)), ((6, "R"), (6, "R")), Mods(strat=1))
    # Strategy and Navigation together: a 2 to 6 and a 1 flipped to 6
    assert can((("R", 2), ("R", 1)), ((6, "R"), (6, "R")), Mods(strat=1, nav=1))
    # one die, 6+: Strategy always makes it
    assert success_by_rerolls(((6, "B"),), (1, 0, 0), Mods(strat=1))[0] == pytest.approx(1.0)


def test_liaison_lets_a_blue_die_meet_a_green_number() -> None:
    assert not can((("B", 5),), ((5, "G"),), Mods())
    assert can((("B", 5),), ((5, "G"),), Mods(liaison=1))
    # only one number may take another colour
    both = (("B", 5), ("B", 6))
    assert not can(both, ((5, "G"), (5, "R")), Mods(liaison=1))
    assert can(both, ((5, "G"), (5, "B")), Mods(liaison=1))


def test_stacking_plus_ones_for_seven_and_eight() -> None:
    # Sector Command's 7+ Blue: a 6 and one +1
    assert not can((("B", 6),), ((7, "B"),), Mods())
    assert can((("B", 6),), ((7, "B"),), Mods(lead=1))
    assert can((("B", 6),), ((7, "B"),), Mods(adm=1))
    # two +1s on the same die: a 6 to an 8, or a 5 to a 7
    assert can((("R", 6),), ((8, "R"),), Mods(lead=1, gun=1))
    assert can((("R", 5),), ((7, "K"),), Mods(lead=2))
    assert not can((("R", 5),), ((7, "K"),), Mods(lead=1))
    assert not can((("R", 6),), ((8, "R"),), Mods(gun=1, adm=1))


def test_too_few_dice_never_succeed() -> None:
    reqs = ((2, "K"), (2, "K"))
    assert not can((("B", 6),), reqs, Mods(lead=4, strat=1, nav=2, liaison=1))
    assert success_by_rerolls(reqs, (1, 0, 0), Mods(lead=4))[4] == 0.0


def test_survival_rolls() -> None:
    assert single_die_success(1, 0, 0) == 1.0  # Training's 1+
    assert single_die_success(4, 0, 0) == pytest.approx(1 / 2)
    assert single_die_success(4, 1, 0) == pytest.approx(2 / 3)  # Fitness +1
    assert single_die_success(4, 0, 1) == pytest.approx(3 / 4)  # one Computer re-roll
    assert single_die_success(6, 0, 2) == pytest.approx(1 - (5 / 6) ** 3)
    assert single_die_success(6, 3, 0) == pytest.approx(4 / 6)
    assert single_die_success(2, 1, 0) == 1.0


def test_medal_rolls() -> None:
    assert medal_success((4, 4), 0, 0) == pytest.approx(1 / 4)  # both dice 4+
    assert medal_success((4, 4), 1, 0) == pytest.approx((4 / 6) ** 2)  # Courage on each die
    # one re-roll: both made, or exactly one failed and its re-roll makes it
    assert medal_success((4, 4), 0, 1) == pytest.approx(1 / 4 + 1 / 2 * 1 / 2)
    assert medal_success((9, 9), 0, 4) == 0.0  # Contact Civilization needs Courage
    assert medal_success((9, 9), 3, 0) == pytest.approx(1 / 36)
    assert medal_success((9, 9), 4, 0) == pytest.approx((2 / 6) ** 2)
    assert medal_success((3, 3), 2, 0) == 1.0


# --- kernel against brute force -----------------------------------------------------------------

@st.composite
def rolls(draw: st.DrawFn, max_dice: int = 5, max_reqs: int = 4) -> tuple[Dice, Reqs, Mods]:
    n = draw(st.integers(1, max_dice))
    dice = tuple((draw(st.sampled_from(COLOURS)), draw(st.integers(1, 6))) for _ in range(n))
    k = draw(st.integers(1, max_reqs))
    reqs = tuple((draw(st.integers(1, 8)), draw(st.sampled_from("BGRK"))) for _ in range(k))
    mods = Mods(lead=draw(st.integers(0, 4)), eng=draw(st.integers(0, 2)),
                adm=draw(st.integers(0, 2)), gun=draw(st.integers(0, 2)),
                nav=draw(st.integers(0, 2)), strat=draw(st.integers(0, 1)),
                liaison=draw(st.integers(0, 1)))
    return dice, reqs, mods


@settings(max_examples=400, deadline=None)
@given(roll=rolls())
def test_kernel_matches_brute_force(roll: tuple[Dice, Reqs, Mods]) -> None:
    dice, reqs, mods = roll
    assert kernel_feasible(dice, reqs, mods) == brute_feasible(dice, reqs, mods), roll


def test_kernel_matches_brute_force_seeded_sweep() -> None:
    # a fixed sample skewed to hard cases: targets 4-7, many coloured numbers, few skills
    rng = random.Random(20240611)
    agree = {True: 0, False: 0}
    for _ in range(400):
        n = rng.randint(2, 6)
        dice = tuple((rng.choice(COLOURS), rng.randint(1, 6)) for _ in range(n))
        reqs = tuple((rng.randint(4, 7), rng.choice("BGRKK")) for _ in range(rng.randint(1, 4)))
        mods = Mods(lead=rng.randint(0, 2), eng=rng.randint(0, 1), adm=rng.randint(0, 1),
                    gun=rng.randint(0, 1), nav=rng.randint(0, 2), strat=rng.randint(0, 1),
                    liaison=rng.randint(0, 1))
        want = brute_feasible(dice, reqs, mods)
        assert kernel_feasible(dice, reqs, mods) == want, (dice, reqs, mods)
        agree[want] += 1
    assert min(agree.values()) > 40  # both outcomes well represented


@pytest.mark.slow
def test_kernel_matches_brute_force_big_sweep() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        dice = tuple((rng.choice(COLOURS), rng.randint(1, 6)) for _ in range(rng.randint(1, 7)))
        reqs = tuple((rng.randint(2, 8), rng.choice("BGRK")) for _ in range(rng.randint(1, 5)))
        mods = Mods(lead=rng.randint(0, 4), eng=rng.randint(0, 2), adm=rng.randint(0, 2),
                    gun=rng.randint(0, 2), nav=rng.randint(0, 2), strat=rng.randint(0, 1),
                    liaison=rng.randint(0, 1))
        assert kernel_feasible(dice, reqs, mods) == brute_feasible(dice, reqs, mods), (
            dice, reqs, mods)


def test_kernel_ignores_dice_order() -> None:
    rng = random.Random(7)
    for _ in range(200):
        dice = [(rng.choice(COLOURS), rng.randint(1, 6)) for _ in range(rng.randint(1, 6))]
        reqs = tuple((rng.randint(2, 7), rng.choice("BGRK")) for _ in range(rng.randint(1, 4)))
        mods = Mods(lead=rng.randint(0, 2), nav=rng.randint(0, 1), liaison=rng.randint(0, 1))
        first = kernel_feasible(tuple(dice), reqs, mods)
        rng.shuffle(dice)
        assert kernel_feasible(tuple(dice), tuple(reversed(reqs)), mods) == first


# --- exact odds against brute-force expectimax -----------------------------------------------

def _pool_dice(pool: tuple[int, int, int]) -> list[str]:
    return [c for c, n in zip(COLOURS, pool, strict=True) for _ in range(n)]


def expectimax(reqs: Reqs, pool: tuple[int, int, int], mods: Mods, rerolls: int) -> Fraction:
    """Chance of success when, after each roll, the player may re-roll any one die (up to
    `rerolls` times), choosing each time what maximises the final chance; brute force over
    every outcome and every choice, with brute_feasible deciding success."""
    colours = _pool_dice(pool)

    @cache
    def ok(values: tuple[int, ...]) -> bool:
        return brute_feasible(tuple(zip(colours, values, strict=True)), reqs, mods)

    @cache
    def value(values: tuple[int, ...], left: int) -> Fraction:
        if ok(values) or left == 0:
            return F(int(ok(values)))
        best = F(0)
        for i in range(len(values)):
            avg = sum((value((*values[:i], x, *values[i + 1:]), left - 1)
                       for x in range(1, 7)), F(0)) / 6
            best = max(best, avg)
        return best

    outcomes = list(itertools.product(range(1, 7), repeat=len(colours)))
    return sum((value(o, rerolls) for o in outcomes), F(0)) / len(outcomes)


CASES = [
    (((4, "K"), (4, "G")), (1, 1, 0), Mods()),  # Aid as an Ensign
    (((3, "K"), (4, "B"), (5, "G")), (1, 2, 0), Mods()),  # Science as a Sub-Lieutenant
    (((4, "B"), (4, "G"), (5, "K")), (1, 2, 0), Mods(lead=1)),  # Planetary Defense
    (((4, "K"), (4, "B"), (6, "G")), (1, 2, 0), Mods(nav=1)),  # Exploration, Navigation
    (((3, "K"), (4, "B"), (5, "R")), (1, 1, 1), Mods(liaison=1)),
    (((6, "R"), (6, "R")), (0, 0, 3), Mods(strat=1)),
    (((7, "B"), (5, "K")), (2, 0, 1), Mods(adm=1, lead=1)),
    (((5, "G"), (5, "G")), (1, 1, 1), Mods(liaison=1, eng=1)),
]


@pytest.mark.parametrize("reqs, pool, mods", CASES)
def test_success_by_rerolls_equals_expectimax(reqs: Reqs, pool: tuple[int, int, int],
                                              mods: Mods) -> None:
    exact = success_by_rerolls(tuple(sorted(reqs, reverse=True)), pool, mods)
    assert len(exact) == 5
    for r in range(3):
        assert exact[r] == pytest.approx(float(expectimax(reqs, pool, mods, r)), abs=1e-9)
    assert list(exact) == sorted(exact)  # more re-rolls never hurt
    assert exact[0] >= 0.0 and exact[-1] <= 1.0


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_success_by_rerolls_equals_expectimax_random(data: st.DataObject) -> None:
    pool = data.draw(st.tuples(st.integers(0, 2), st.integers(0, 1), st.integers(0, 1))
                     .filter(lambda p: 1 <= sum(p) <= 3))
    reqs = tuple(sorted(data.draw(st.lists(
        st.tuples(st.integers(2, 7), st.sampled_from("BGRK")), min_size=1, max_size=3)),
        reverse=True))
    mods = Mods(lead=data.draw(st.integers(0, 1)), eng=data.draw(st.integers(0, 1)),
                nav=data.draw(st.integers(0, 1)), strat=data.draw(st.integers(0, 1)),
                liaison=data.draw(st.integers(0, 1)))
    exact = success_by_rerolls(reqs, pool, mods)
    rerolls = data.draw(st.integers(0, 2))
    assert exact[rerolls] == pytest.approx(float(expectimax(reqs, pool, mods, rerolls)),
                                           abs=1e-9)


def test_no_reroll_odds_by_full_enumeration_for_real_missions() -> None:
    # every roll of the pool, judged by the kernel: the share that succeeds
    for mid, rank in (("science", 2), ("escort", 3), ("fighter_pilot", 4)):
        m = RULES.mission(mid)
        pool = tuple(RULES.ranks[rank].pool.count(c) for c in COLOURS)
        colours = _pool_dice(pool)
        reqs = tuple((r.target, r.colour) for r in m.roll)
        mods = Mods(lead=1)
        hits = sum(kernel_feasible(tuple(zip(colours, o, strict=True)), reqs, mods)
                   for o in itertools.product(range(1, 7), repeat=len(colours)))
        want = hits / 6 ** len(colours)
        assert mission_success(m, pool, mods, 0) == pytest.approx(want, abs=1e-12), mid


def test_dp_rerolls_against_seeded_monte_carlo() -> None:
    # Exploration as a Lieutenant (B G G R) with Computer 2: play the re-roll decisions by
    # expectimax values (computed with the kernel) on random dice; the share of successes
    # must match the DP within sampling error.
    m = RULES.mission("exploration")
    pool = (1, 2, 1)
    colours = _pool_dice(pool)
    reqs = tuple((r.target, r.colour) for r in m.roll)
    mods = Mods()

    @cache
    def ok(values: tuple[int, ...]) -> bool:
        return kernel_feasible(tuple(zip(colours, values, strict=True)), reqs, mods)

    @cache
    def value(values: tuple[int, ...], left: int) -> float:
        if ok(values) or left == 0:
            return float(ok(values))
        return max(sum(value((*values[:i], x, *values[i + 1:]), left - 1)
                       for x in range(1, 7)) / 6 for i in range(len(values)))

    rng = random.Random(99)
    trials, wins = 20_000, 0
    for _ in range(trials):
        values = tuple(rng.randint(1, 6) for _ in colours)
        left = 2
        while not ok(values) and left:
            i = max(range(len(values)),
                    key=lambda i: sum(value((*values[:i], x, *values[i + 1:]), left - 1)
                                      for x in range(1, 7)))
            values = (*values[:i], rng.randint(1, 6), *values[i + 1:])
            left -= 1
        wins += ok(values)
    p = mission_success(m, pool, mods, 2)
    sigma = (p * (1 - p) / trials) ** 0.5
    assert abs(wins / trials - p) < 4 * sigma


def test_canonical_mods_do_not_change_the_odds() -> None:
    reqs = ((6, "R"), (4, "B"), (4, "K"))
    pool = (1, 2, 1)
    mods = Mods(lead=9, eng=2, adm=1, gun=2, nav=5, strat=1, liaison=1)
    canon = canonical_mods(reqs, pool, mods)
    assert canon.nav <= sum(pool) and canon.lead <= sum(t - 1 for t, _ in reqs)
    assert success_by_rerolls(reqs, pool, canon) == pytest.approx(
        success_by_rerolls(reqs, pool, Mods(lead=canon.lead, eng=2, adm=1, gun=2,
                                            nav=canon.nav, strat=1, liaison=1)))
    no_green = canonical_mods(reqs, (1, 0, 1), Mods(eng=2, liaison=1))
    assert no_green.eng == 0
    all_black = canonical_mods(((4, "K"),), pool, Mods(liaison=1))
    assert all_black.liaison == 0
