"""d6 success pools ("Dice Rules", seed 002): exact odds, the seed's rules, the CLI.

Three independent checks of game.pool.odds: cases worked by hand (reasoning in comments),
full enumeration of every roll for small pools, and a seeded Monte Carlo simulator written
here from the seed's text.
"""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
import time
from fractions import Fraction

import pytest

from game.pool import MAX_POOL_DICE, PoolRoll, load_rules, pool_odds, read_pool
from starsheets.cli import main
from starsheets.errors import UsageError

F = Fraction


def odds(dice: int, target: int, needed: int, **kw: object) -> tuple[F, F, F]:
    o = pool_odds(PoolRoll(dice, target, needed, **kw))  # type: ignore[arg-type]
    return o.success, o.failure, o.botch


# --- the rules table --------------------------------------------------------------------------

def test_table_matches_the_seed() -> None:
    r = load_rules()
    assert [(d.id, d.successes) for d in r.difficulties] == [
        ("very-easy", 0), ("easy", 1), ("moderate", 2), ("hard", 3), ("impossible", 4)]
    assert r.difficulties[0].alternative == 1  # "Very Easy 0, or 1"
    assert [t.target for t in r.targets] == [4, 5, 6]
    assert [t.range for t in r.targets] == ["0-9 m", "10-50 m", "50+ m"]
    assert (r.mastery_level, r.skill_max_dice, r.stat_max_dice) == (6, 7, 6)
    assert r.mastery_dice == 7  # level 6 plus the free die: "Skills max at seven dice"
    assert r.always_fail == (1, 2, 3)
    assert (r.mass_step, r.penalty_per_step) == (5, 1)


@pytest.mark.parametrize(("text", "needed"), [
    ("very-easy", 0), ("Very Easy", 0), ("very_easy", 0), ("EASY", 1), ("moderate", 2),
    ("hard", 3), ("impossible", 4), ("0", 0), ("1", 1), ("5", 5)])
def test_difficulty_names_and_numbers(text: str, needed: int) -> None:
    assert load_rules().difficulty(text)[1] == needed


@pytest.mark.parametrize("text", ["trivial", "-1", "", "2.5"])
def test_bad_difficulty(text: str) -> None:
    with pytest.raises(UsageError):
        load_rules().difficulty(text)


def test_encumbrance_penalty_counts_whole_steps_of_five() -> None:
    r = load_rules()
    assert [r.penalty(m) for m in (0, 4.9, 5, 9.99, 10, 14, 15)] == [0, 0, 1, 1, 2, 2, 3]
    with pytest.raises(UsageError):
        r.penalty(-1)


# --- the rules, one roll at a time -----------------------------------------------------------

def test_each_seed_rule_on_single_rolls() -> None:
    tn4 = PoolRoll(4, 4, 1)
    # "1, 2, & 3 are always unsuccessful"; 4+ matches or surpasses target 4.
    assert read_pool(tn4, [4, 5, 6, 3]) == (3, False)
    # Snake-eyes cancel one success each.
    assert read_pool(tn4, [1, 1, 5, 6]) == (1, False)
    assert read_pool(tn4, [1, 1, 1, 1]) == (0, True)  # two pairs, nothing to cancel
    # An odd, unpaired 1 is just a failed die.
    assert read_pool(tn4, [1, 5, 2, 2]) == (1, False)
    assert read_pool(tn4, [1, 1, 1, 5]) == (0, False)  # one pair cancels the 5, odd 1 ignored
    # A pair with no success to eliminate is a botch.
    assert read_pool(tn4, [1, 1, 2, 3]) == (0, True)
    # Two pairs, one success: the first pair cancels it, the second has nothing: botch.
    assert read_pool(PoolRoll(5, 4, 1), [1, 1, 1, 1, 6]) == (0, True)
    # Mastery: snake-eyes no longer count; botch only when every die shows 1.
    m = PoolRoll(4, 4, 1, mastery=True)
    assert read_pool(m, [1, 1, 5, 6]) == (2, False)
    assert read_pool(m, [1, 1, 1, 2]) == (0, False)
    assert read_pool(m, [1, 1, 1, 1]) == (0, True)
    # Encumbrance: -1 to the die, so a 4 no longer makes target 4.
    e = PoolRoll(3, 4, 1, penalty=1)
    assert read_pool(e, [4, 5, 6]) == (2, False)


def test_blind_luck_rules_one_roll_at_a_time() -> None:
    b = PoolRoll(1, 4, 1, blind_luck=True)
    assert read_pool(b, [1, 1]) == (0, True)  # a 1, rerolled, 1 again: botch
    assert read_pool(b, [1, 6]) == (0, False)  # a 1 is a failure; the reroll only checks botch
    assert read_pool(b, [6, 3]) == (1, False)
    assert read_pool(b, [6, 6, 6, 2]) == (3, False)  # consecutive 6s each count
    assert read_pool(b, [6, 6, 1]) == (2, False)  # a 1 ends the chain, no botch
    assert read_pool(b, [4]) == (0, False)  # "any faces other than 1 or 6": failure
    assert read_pool(b, [5]) == (0, False)


# --- exact odds worked by hand ----------------------------------------------------------------

def test_one_die() -> None:
    # 1 die vs TN 4: faces 4, 5, 6 succeed = 1/2; one die can never pair: no botch.
    assert odds(1, 4, 1) == (F(1, 2), F(1, 2), 0)
    assert odds(1, 5, 1) == (F(1, 3), F(2, 3), 0)
    assert odds(1, 6, 1) == (F(1, 6), F(5, 6), 0)
    # Needing 0 successes: nothing can go wrong with one die.
    assert odds(1, 6, 0) == (1, 0, 0)


def test_two_dice() -> None:
    # Botch: both dice 1 (a pair, no success to cancel) = 1/36.
    # Success (1 needed): at least one 4+ = 1 - (1/2)^2 = 3/4 (a 4+ rules out a pair).
    # Failure: the rest, 1 - 3/4 - 1/36 = 8/36 = 2/9.
    assert odds(2, 4, 1) == (F(3, 4), F(2, 9), F(1, 36))
    # Two successes needed: both 4+ = 1/4.
    assert odds(2, 4, 2)[0] == F(1, 4)
    # Very Easy (0 needed): success unless botch = 35/36.
    assert odds(2, 6, 0) == (F(35, 36), 0, F(1, 36))


def test_three_dice() -> None:
    # Botch: two or three 1s and no success: two 1s (3 places) with the third die 2 or 3
    # (2 faces) = 6 rolls, plus 1-1-1 = 7 of 216.
    # One success, two 1s: 3 places x 3 success faces = 9 rolls with net 0: a failure.
    # Success: at least one 4+ (1 - 27/216 = 189/216) minus those 9 = 180/216 = 5/6.
    s, f, b = odds(3, 4, 1)
    assert (s, b) == (F(5, 6), F(7, 216))
    assert f == 1 - s - b == F(29, 216)


def test_mastery() -> None:
    # 7 dice (level 6): botch only on seven 1s = 1/6^7; snake-eyes ignored, so success is
    # just "at least k dice make the target".
    s, _, b = odds(7, 5, 2, mastery=True)
    assert b == F(1, 6 ** 7)
    p = F(1, 3)
    at_least_2 = 1 - (1 - p) ** 7 - 7 * p * (1 - p) ** 6
    assert s == at_least_2
    # Two dice, both 1s: a botch with or without mastery (all dice show 1).
    assert odds(2, 4, 0, mastery=True)[2] == F(1, 36)


def test_blind_luck() -> None:
    # One die: 1 then 1 = botch (1/36). A 6 is a success and chains: k or more successes
    # need k 6s in a row = (1/6)^k. The target number does not matter: only 6s succeed.
    for target in (4, 5, 6):
        assert odds(1, target, 1, blind_luck=True) == (F(1, 6), F(29, 36), F(1, 36))
    assert odds(1, 4, 2, blind_luck=True)[0] == F(1, 36)
    assert odds(1, 4, 0, blind_luck=True) == (F(35, 36), 0, F(1, 36))


def test_encumbrance_raises_the_face_needed() -> None:
    # -1 per die: target 4 needs a natural 5+ (1/3), -2 needs a 6 (1/6).
    assert odds(1, 4, 1, penalty=1)[0] == F(1, 3)
    assert odds(1, 4, 1, penalty=2)[0] == F(1, 6)
    # Beyond 6 nothing succeeds, but natural 1s still pair: 2 dice botch 1/36.
    assert odds(2, 6, 1, penalty=1) == (0, F(35, 36), F(1, 36))
    # Blind luck: a natural 6 is worth 5 and misses target 6; it still makes target 5.
    assert odds(1, 6, 1, blind_luck=True, penalty=1)[0] == 0
    assert odds(1, 5, 1, blind_luck=True, penalty=1)[0] == F(1, 6)


def test_outcomes_are_exclusive_and_monotone() -> None:
    for dice in range(1, 9):
        for target in (4, 5, 6):
            for mastery in (False, True):
                prev = F(2)
                for needed in range(6):
                    o = pool_odds(PoolRoll(dice, target, needed, mastery=mastery))
                    assert o.success + o.failure + o.botch == 1
                    assert min(o.success, o.failure, o.botch) >= 0
                    assert o.success <= prev  # harder never helps
                    prev = o.success
                    if needed <= dice:
                        assert o.at_least[needed] == o.success


# --- exhaustive enumeration of small pools ----------------------------------------------------

def _read(faces: tuple[int, ...], target: int, mastery: bool, penalty: int) -> str | int:
    """Straight from the seed: successes, snake-eyes pairs, botch (independent of the module)."""
    wins = sum(1 for f in faces if f >= 4 and f - penalty >= target)
    ones = faces.count(1)
    if mastery:
        return "botch" if ones == len(faces) else wins
    pairs = ones // 2
    if pairs > wins:
        return "botch"
    return wins - pairs


@pytest.mark.parametrize("dice", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("mastery", [False, True])
def test_exact_odds_equal_full_enumeration(dice: int, mastery: bool) -> None:
    for target, penalty, needed in itertools.product((4, 5, 6), (0, 1, 2), (0, 1, 2, 3)):
        counts = {"success": 0, "failure": 0, "botch": 0}
        for faces in itertools.product(range(1, 7), repeat=dice):
            r = _read(faces, target, mastery, penalty)
            key = "botch" if r == "botch" else ("success" if r >= needed else "failure")
            counts[key] += 1
        total = 6 ** dice
        o = pool_odds(PoolRoll(dice, target, needed, mastery=mastery, penalty=penalty))
        assert (o.success, o.failure, o.botch) == tuple(
            F(counts[k], total) for k in ("success", "failure", "botch"))


# --- seeded Monte Carlo -----------------------------------------------------------------------

def _simulate(rng: random.Random, dice: int, target: int, needed: int, mastery: bool,
              blind: bool, penalty: int) -> str:
    """One roll, by the seed's text."""
    if blind:
        first = rng.randint(1, 6)
        if first == 1:
            return "botch" if rng.randint(1, 6) == 1 else ("success" if needed == 0 else "failure")
        wins = 0
        if first == 6 and 6 - penalty >= target:
            wins = 1
            while rng.randint(1, 6) == 6:
                wins += 1
        return "success" if wins >= needed else "failure"
    faces = tuple(rng.randint(1, 6) for _ in range(dice))
    r = _read(faces, target, mastery, penalty)
    if r == "botch":
        return "botch"
    return "success" if r >= needed else "failure"


def _agree(config: tuple[int, int, int, bool, bool, int], trials: int, seed: int) -> None:
    dice, target, needed, mastery, blind, penalty = config
    rng = random.Random(seed)
    seen = {"success": 0, "failure": 0, "botch": 0}
    for _ in range(trials):
        seen[_simulate(rng, dice, target, needed, mastery, blind, penalty)] += 1
    o = pool_odds(PoolRoll(dice, target, needed, mastery=mastery, blind_luck=blind,
                           penalty=penalty))
    for key, p in (("success", o.success), ("failure", o.failure), ("botch", o.botch)):
        p = float(p)
        sigma = (p * (1 - p) / trials) ** 0.5
        assert abs(seen[key] / trials - p) <= 5 * sigma + 1e-9, (config, key)


FAST_CONFIGS = [
    (3, 4, 1, False, False, 0), (6, 5, 2, False, False, 0), (7, 6, 1, True, False, 0),
    (4, 4, 2, False, False, 1), (1, 4, 1, False, True, 0), (10, 5, 3, False, False, 0),
]


@pytest.mark.parametrize("config", FAST_CONFIGS)
def test_monte_carlo_agrees(config: tuple[int, int, int, bool, bool, int]) -> None:
    _agree(config, 20_000, seed=hash(config) & 0xFFFF)


@pytest.mark.slow
def test_monte_carlo_agrees_over_many_configurations() -> None:
    rng = random.Random(2024)
    for i in range(60):
        blind = rng.random() < 0.15
        dice = 1 if blind else rng.randint(1, 14)
        mastery = not blind and rng.random() < 0.3
        config = (dice, rng.choice((4, 5, 6)), rng.randint(0, 5), mastery, blind,
                  rng.choice((0, 0, 0, 1, 2)))
        _agree(config, 100_000, seed=i)


# --- speed ------------------------------------------------------------------------------------

def test_large_pools_are_fast() -> None:
    start = time.perf_counter()
    o = pool_odds(PoolRoll(MAX_POOL_DICE, 5, 30))
    assert time.perf_counter() - start < 1.0
    assert o.success + o.failure + o.botch == 1


def test_bad_rolls() -> None:
    with pytest.raises(UsageError, match="target number 3"):
        PoolRoll(2, 3, 1)
    with pytest.raises(UsageError):
        PoolRoll(0, 4, 1)
    with pytest.raises(UsageError):
        PoolRoll(-2, 4, 1)
    with pytest.raises(UsageError):
        PoolRoll(MAX_POOL_DICE + 1, 4, 1)
    with pytest.raises(UsageError, match="exclude"):
        PoolRoll(1, 4, 1, mastery=True, blind_luck=True)
    with pytest.raises(UsageError, match="blind luck"):
        PoolRoll(3, 4, 1, blind_luck=True)


# --- the CLI, as a user runs it ---------------------------------------------------------------

def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "starsheets", "odds", *args],
                          capture_output=True, text=True, timeout=60)


def test_cli_pool_json() -> None:
    p = run_cli("pool", "--dice", "2", "--target", "4", "--difficulty", "easy", "--json")
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    assert data["success"] == pytest.approx(3 / 4)
    assert data["failure"] == pytest.approx(2 / 9)
    assert data["botch"] == pytest.approx(1 / 36)
    assert data["exact"] == {"success": "3/4", "failure": "2/9", "botch": "1/36"}
    assert (data["dice"], data["target"], data["successes_needed"]) == (2, 4, 1)
    assert data["success"] + data["failure"] + data["botch"] == pytest.approx(1)


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(["odds", *args])
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_cli_pool_human_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "pool", "--dice", "7", "--target", "5", "--difficulty",
                            "hard", "--mastery", "--encumbrance", "5")
    assert code == 0
    assert "success" in out and "botch" in out and "must show 6+" in out


def test_cli_blind_luck_and_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "pool", "--blind-luck", "--target", "4",
                            "--difficulty", "1", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["dice"] == 1 and data["blind_luck"] is True
    assert data["success"] == pytest.approx(1 / 6) and data["botch"] == pytest.approx(1 / 36)
    code, out, _ = run_main(capsys, "pool", "--dice", "3", "--target", "6",
                            "--difficulty", "very-easy", "--json")
    assert code == 0 and json.loads(out)["successes_needed"] == 0


@pytest.mark.parametrize(("args", "message"), [
    (["--dice", "-1", "--target", "4", "--difficulty", "easy"], "-1 dice"),
    (["--dice", "0", "--target", "4", "--difficulty", "easy"], "0 dice"),
    (["--dice", "3", "--target", "3", "--difficulty", "easy"], "target number 3"),
    (["--dice", "3", "--target", "7", "--difficulty", "easy"], "target number 7"),
    (["--dice", "3", "--target", "4", "--difficulty", "trivial"], "unknown difficulty"),
    (["--dice", "3", "--target", "4", "--difficulty", "-2"], "negative"),
    (["--target", "4", "--difficulty", "easy"], "--dice is missing"),
    (["--dice", "2", "--target", "4", "--difficulty", "easy", "--blind-luck"], "blind luck"),
    (["--dice", "7", "--target", "4", "--difficulty", "easy", "--blind-luck", "--mastery"],
     "exclude"),
    (["--dice", "3", "--target", "4", "--difficulty", "easy", "--encumbrance", "-5"],
     "negative"),
    (["--dice", "1000", "--target", "4", "--difficulty", "easy"], "more than"),
])
def test_cli_bad_arguments(capsys: pytest.CaptureFixture[str], args: list[str],
                           message: str) -> None:
    code, out, err = run_main(capsys, "pool", *args)
    assert code == 2
    assert out == ""
    assert message in err
    assert err.count("\n") == 1 and err.startswith("starsheets: error: ")


def test_cli_bad_argument_in_a_subprocess() -> None:
    p = run_cli("pool", "--dice", "3", "--target", "3", "--difficulty", "easy")
    assert p.returncode == 2
    assert p.stdout == ""
    assert p.stderr.strip().count("\n") == 0 and "target number 3" in p.stderr
