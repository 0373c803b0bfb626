"""Exact odds of OPIAL rolls: mission, medal and survival, with skills used optimally.

Dice of one colour are interchangeable, so a roll's outcome is a multiset of values per
colour. The base case marks every outcome the kernel can turn into a success; Computer
re-rolls (one die per level, each decided after seeing the dice) are a dynamic
programme over those outcomes: with r re-rolls left, either stop, or re-roll the die
whose re-roll gives the best chance with r-1 left.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import combinations_with_replacement
from math import factorial

import numpy as np

from game.opial.kernel import COLOUR_INDEX, feasible_all
from game.opial.rules import Mission

FACES = 6


@dataclass(frozen=True)
class Mods:
    """Skill levels that change a mission roll (canonical: irrelevant ones zeroed)."""

    lead: int = 0
    eng: int = 0
    adm: int = 0
    gun: int = 0
    nav: int = 0
    strat: int = 0
    liaison: int = 0

    def array(self) -> np.ndarray:
        return np.array([self.lead, self.eng, self.adm, self.gun, self.nav, self.strat,
                         self.liaison], np.int64)


@dataclass(frozen=True)
class ColourStates:
    """Every multiset of n dice of one colour: values (ascending), probability, and the
    index reached by replacing one die of value v with x."""

    values: np.ndarray  # (m, n) int64
    prob: np.ndarray  # (m,) float64
    replace: np.ndarray  # (m, 6, 6) int64, -1 where no die shows v


@cache
def colour_states(n: int) -> ColourStates:
    combos = list(combinations_with_replacement(range(1, FACES + 1), n))
    index = {c: i for i, c in enumerate(combos)}
    values = np.array(combos, np.int64).reshape(len(combos), n)
    prob = np.empty(len(combos))
    replace = np.full((len(combos), FACES, FACES), -1, np.int64)
    for i, c in enumerate(combos):
        ways = factorial(n)
        for v in set(c):
            ways //= factorial(c.count(v))
        prob[i] = ways / FACES**n
        for v in set(c):
            rest = list(c)
            rest.remove(v)
            for x in range(1, FACES + 1):
                replace[i, v - 1, x - 1] = index[tuple(sorted([*rest, x]))]
    return ColourStates(values, prob, replace)


def requirement_arrays(requirements: tuple[tuple[int, str], ...]) -> tuple[np.ndarray, np.ndarray]:
    """Targets (sorted descending, as the kernel expects) and colour indices."""
    requirements = tuple(sorted(requirements, key=lambda r: -r[0]))
    t = np.array([r[0] for r in requirements], np.int64)
    c = np.array([COLOUR_INDEX[r[1]] for r in requirements], np.int64)
    return t, c


@dataclass(frozen=True)
class RollTable:
    """Values of the re-roll DP for one roll: value[r][state] = chance of success from
    that outcome with r re-rolls left (r = 0: no re-rolls)."""

    pool: tuple[int, int, int]
    value: tuple[np.ndarray, ...]
    prob: np.ndarray

    def success(self, rerolls: int) -> float:
        r = min(rerolls, len(self.value) - 1)
        return float(self.prob @ self.value[r])


def _joint(pool: tuple[int, int, int]) -> tuple[ColourStates, ColourStates, ColourStates,
                                                np.ndarray]:
    sb, sg, sr = (colour_states(n) for n in pool)
    prob = np.einsum("i,j,k->ijk", sb.prob, sg.prob, sr.prob).ravel()
    return sb, sg, sr, prob


def _reroll_step(prev: np.ndarray, base: np.ndarray, pool: tuple[int, int, int]) -> np.ndarray:
    """One more re-roll: best of stopping (base) or re-rolling one die (using prev)."""
    sb, sg, sr, _ = _joint(pool)
    shape = (len(sb.prob), len(sg.prob), len(sr.prob))
    prev3 = prev.reshape(shape)
    best = base.reshape(shape).copy()
    for axis, st in enumerate((sb, sg, sr)):
        if st.values.shape[1] == 0:
            continue
        for v in range(FACES):
            rep = st.replace[:, v, :]  # (m_axis, 6)
            has = rep[:, 0] >= 0
            if not has.any():
                continue
            acc = np.zeros(shape)
            for x in range(FACES):
                idx = np.where(has, rep[:, x], 0)
                acc += np.take(prev3, idx, axis=axis)
            acc /= FACES
            mask_shape = [1, 1, 1]
            mask_shape[axis] = -1
            acc = np.where(has.reshape(mask_shape), acc, 0.0)
            np.maximum(best, acc, out=best)
    return best.ravel()


@lru_cache(maxsize=8)
def roll_table(requirements: tuple[tuple[int, str], ...], pool: tuple[int, int, int],
               mods: Mods, max_rerolls: int) -> RollTable:
    """Exact DP for a roll of `pool` dice (blue, green, red) against `requirements`."""
    sb, sg, sr, prob = _joint(pool)
    t, c = requirement_arrays(requirements)
    base = feasible_all(sb.values, sg.values, sr.values, t, c, mods.array()).astype(np.float64)
    values = [base]
    for _ in range(max_rerolls):
        values.append(_reroll_step(values[-1], base, pool))
    return RollTable(pool, tuple(values), prob)


def canonical_mods(requirements: tuple[tuple[int, str], ...], pool: tuple[int, int, int],
                   mods: Mods) -> Mods:
    """Zero the modifiers that cannot matter for this roll (fewer distinct tables)."""
    nb, ng, nr = pool
    coloured = {c for _, c in requirements if c != "K"}
    return Mods(
        lead=min(mods.lead, sum(max(0, t - 1) for t, _ in requirements)),
        eng=mods.eng if ng else 0,
        adm=mods.adm if nb else 0,
        gun=mods.gun if nr else 0,
        nav=min(mods.nav, nb + ng + nr),
        strat=mods.strat if nb + ng + nr else 0,
        liaison=mods.liaison if coloured else 0,
    )


MAX_REROLLS = 4  # Computer has four level boxes


@cache
def success_by_rerolls(requirements: tuple[tuple[int, str], ...], pool: tuple[int, int, int],
                       mods: Mods) -> tuple[float, ...]:
    """Chance of success with 0..MAX_REROLLS Computer re-rolls (small, so cached forever;
    the DP tables themselves are large and kept only briefly)."""
    table = roll_table(requirements, pool, mods, MAX_REROLLS)
    return tuple(table.success(r) for r in range(MAX_REROLLS + 1))


def mission_success(mission: Mission, pool: tuple[int, int, int], mods: Mods,
                    computer: int) -> float:
    """Exact chance that `mission`'s roll succeeds."""
    reqs = tuple(sorted(((r.target, r.colour) for r in mission.roll), reverse=True))
    return success_by_rerolls(reqs, pool, canonical_mods(reqs, pool, mods))[computer]


@cache
def single_die_success(target: int, bonus: int, computer: int) -> float:
    """A survival roll: one die plus `bonus` must make `target`; re-roll while failing."""
    need = target - bonus
    q = min(1.0, max(0.0, (FACES + 1 - need) / FACES))
    return 1.0 - (1.0 - q) ** (computer + 1)


@cache
def medal_success(targets: tuple[int, ...], courage: int, computer: int) -> float:
    """A medal roll: each die plus Courage must make its target (colour does not matter)."""
    reqs = tuple((max(1, t - courage), "K") for t in targets)
    if any(t > FACES for t, _ in reqs):
        return 0.0
    return success_by_rerolls(reqs, (0, 0, len(targets)), Mods())[computer]
