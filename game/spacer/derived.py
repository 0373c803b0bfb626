"""Values the Character Form derives from others: initiative, toughness, leadership,
wound penalty, issue points, rank title. Each comes with the sum that produced it, so a
finding can show the player the working ("(Agility 4 + Awareness 3)/2 + Combat 2 = 5")."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from game.spacer.data import Formula, SpacerData


@dataclass(frozen=True)
class Derived:
    value: int
    working: str  # e.g. "(Agility 4 + Awareness 3)/2 + Combat 2 = 5"


def evaluate(formula: Formula, values: Mapping[str, int], labels: Mapping[str, str]) -> Derived:
    """(sum // divide_by) + plus, rounding down, with the working spelled out."""
    total = sum(values[n] for n in formula.sum)
    value = total // formula.divide_by + sum(values[n] for n in formula.plus)
    inner = " + ".join(f"{labels.get(n, n)} {values[n]}" for n in formula.sum)
    text = f"({inner})/{formula.divide_by}" if formula.divide_by != 1 else inner
    for n in formula.plus:
        text += f" + {labels.get(n, n)} {values[n]}"
    rounding = ", rounded down" if formula.divide_by != 1 and total % formula.divide_by else ""
    return Derived(value, f"{text} = {value}{rounding}")


def initiative(data: SpacerData, attrs: Mapping[str, int]) -> Derived:
    return evaluate(data.initiative, attrs, data.labels())


def toughness(data: SpacerData, attrs: Mapping[str, int]) -> Derived:
    return evaluate(data.toughness, attrs, data.labels())


def enlisted_leadership(data: SpacerData, a: int, b: int) -> int:
    """The enlisted table (lower row, higher column); outside it the table's own rule:
    the lower value plus a third of the difference, rounded up."""
    lower, higher = min(a, b), max(a, b)
    row = data.enlisted_leadership.get(lower)
    if row is not None and higher in data.enlisted_leadership_columns:
        return row[data.enlisted_leadership_columns.index(higher)]
    return lower + math.ceil((higher - lower) / 3)


def leadership(data: SpacerData, service: str, interpersonal: int, rank: int) -> Derived:
    if service == "officer":
        values = {"interpersonal": interpersonal, "rank": rank}
        d = evaluate(data.officer_leadership, values, data.labels())
        return Derived(d.value, f"officers: {d.working}")
    value = enlisted_leadership(data, interpersonal, rank)
    lower, higher = min(interpersonal, rank), max(interpersonal, rank)
    return Derived(value, f"enlisted: the lower of Interpersonal {interpersonal} and Rank {rank} "
                          f"is {lower}, plus a third of the difference {higher - lower} "
                          f"(rounded up, as the enlisted leadership table does) = {value}")


def wound_penalty(data: SpacerData, wounds: Mapping[str, int]) -> Derived:
    parts = [f"{wounds.get(w.id, 0)} {w.name.lower()} x {w.penalty}"
             for w in data.wounds if w.penalty]
    value = sum(wounds.get(w.id, 0) * w.penalty for w in data.wounds)
    return Derived(value, f"{' + '.join(parts)} = {value}")


def issue_points(data: SpacerData, rank: int) -> Derived:
    value = data.issue_per_rank * rank + data.issue_base
    return Derived(value, f"{data.issue_per_rank} per rank x Rank {rank} + {data.issue_base} "
                          f"for rank 0 = {value}")


def officer_rank(officer_level: int, department_level: int, department: str) -> Derived:
    value = min(officer_level, department_level)
    return Derived(value, f"the lower of Officer {officer_level} and {department} "
                          f"{department_level} = {value}")
