"""Matching written attribute values against the starting arrays (pure arithmetic).

A written value is the array value (plus extra trained points) plus the species modifier,
never below 0 (reading S5). So a written 0 under a penalty of -m may hide any array value
from 0 to m; everything else has exactly one value before the modifier.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass


def before_modifier(final: int, modifier: int) -> list[int]:
    """The values an attribute may have had before its species modifier."""
    if final > 0 or modifier >= 0:
        return [final - modifier]
    return list(range(0, -modifier + 1))


@dataclass(frozen=True)
class InbornMatch:
    bases: tuple[int, ...]  # per attribute, before modifiers
    leftover: int  # the array value not used: the bonus points


def match_inborn(options: Sequence[Sequence[int]], array: Sequence[int]) -> InbornMatch | None:
    """Assign array values to the attributes (each value once, one left over); among
    several readings of floored values, the one leaving the most bonus points."""
    best: InbornMatch | None = None
    pool = Counter(array)
    for bases in itertools.product(*options):
        rest = pool - Counter(bases)
        if sum(rest.values()) != len(array) - len(bases) or any(
                Counter(bases)[v] > pool[v] for v in bases):
            continue
        leftover = next(iter(rest.elements()))
        if best is None or leftover > best.leftover:
            best = InbornMatch(tuple(bases), leftover)
    return best


def inborn_problem(bases: Sequence[int], array: Sequence[int]) -> str:
    """Why `bases` are not five values of `array`, in a player's words."""
    have, pool = Counter(bases), Counter(array)
    parts = []
    for v in sorted(have, reverse=True):
        if have[v] > pool[v]:
            parts.append(f"{v} is not in the array" if pool[v] == 0 else
                         f"{v} is used {have[v]} times but the array has it "
                         f"{'once' if pool[v] == 1 else f'{pool[v]} times'}")
    return "; ".join(parts)


@dataclass(frozen=True)
class TrainedMatch:
    raw: tuple[int, ...]  # per attribute, before modifiers (array value + extra points)
    extra: int  # points above the array (bought with bonus points)


def match_trained(options: Sequence[Sequence[int]], array: Sequence[int],
                  per_purchase: int = 1) -> TrainedMatch | None:
    """Values that hold the array (some value of the array on each attribute, at most
    that value below it): among several readings of floored values, the one whose extra
    points fill whole purchases, then the one with the fewest extra points."""
    need = sorted(array, reverse=True)
    best: TrainedMatch | None = None
    for raw in itertools.product(*options):
        if any(v < 0 for v in raw):
            continue
        if all(h >= n for h, n in zip(sorted(raw, reverse=True), need, strict=True)):
            extra = sum(raw) - sum(array)
            key = (extra % per_purchase, extra)
            if best is None or key < (best.extra % per_purchase, best.extra):
                best = TrainedMatch(tuple(raw), extra)
    return best


def trained_problem(raw: Sequence[int], array: Sequence[int]) -> tuple[int, int, int]:
    """(value, how many the array needs at that value or more, how many the player has)
    for the first array value the written values cannot hold."""
    need = sorted(array, reverse=True)
    have = sorted(raw, reverse=True)
    for h, n in zip(have, need, strict=True):
        if h < n:
            return n, sum(1 for v in array if v >= n), sum(1 for v in raw if v >= n)
    return 0, 0, 0
