"""Turn the engine's event log into a turn-by-turn story, like the seed's sample of Dan."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from game.opial import engine as E
from game.opial.odds import Mods
from game.opial.resolve import explain
from game.opial.rules import Rules

COLOUR_NAMES = ("Blue", "Green", "Red")


def _dice(codes: list[int]) -> str:
    return ", ".join(f"{COLOUR_NAMES[c // 10]} {c % 10}" for c in codes)


def _needs(rules: Rules, m: int) -> str:
    parts = []
    for r in rules.missions[m].roll:
        where = "any die" if r.colour == "K" else {"B": "Blue", "G": "Green", "R": "Red"}[r.colour]
        parts.append(f"{r.target}+ on {where}")
    return " and ".join(parts)


def _reqs(rules: Rules, m: int) -> tuple[tuple[int, str], ...]:
    return tuple((r.target, r.colour) for r in rules.missions[m].roll)


def _mods(rules: Rules, levels: list[int]) -> Mods:
    by = {s.kind + (s.colour or ""): levels[s.index] for s in rules.skills}
    return Mods(lead=by["die_bonusK"], eng=by["die_bonusG"], adm=by["die_bonusB"],
                gun=by["die_bonusR"], nav=by["flip_opposite"], strat=by["flip_six"],
                liaison=by["colour_swap"])


def narrate(events: np.ndarray, rules: Rules, name: str = "the officer") -> Iterator[str]:
    """Lines of narration, one per event worth telling."""
    rank_name = rules.ranks[0].name
    skills = rules.skills
    medals = rules.medals
    levels = [0] * len(skills)
    dice: list[list[int]] = []
    for ev in events:
        kind = int(ev[0])
        a, b, c, d, e = (int(x) for x in ev[1:6])
        if kind == E.EV_START:
            levels[b] = c
            yield (f"Before Tour 1, {name} takes a starting skill (chart {a}): "
                   f"{skills[b].name} level {c}.")
        elif kind == E.EV_MISSION:
            tour, k, m, rank, box = a, b, c, d, e
            rank_name = rules.ranks[rank].name
            if k == 1:
                yield ""
                yield f"Tour {tour}: {rank_name} {name}, assigned to a {rules.ranks[rank].ship}."
            yield (f"  Mission {k}: {rules.missions[m].name} (Executed box {box}); "
                   f"needs {_needs(rules, m)}.")
        elif kind == E.EV_ROLL:
            dice = [[int(x) // 10, int(x) % 10] for x in ev[2:2 + a]]
            yield f"    Rolls {_dice([int(x) for x in ev[2:2 + a]])}."
        elif kind == E.EV_REROLL:
            dice[a][1] = d
            yield f"    Computer: re-rolls the {COLOUR_NAMES[b]} {c} and gets {d}."
        elif kind == E.EV_RESULT:
            if a:
                plan = explain([(c_, v) for c_, v in dice], _reqs(rules, b), _mods(rules, levels))
                how = "; ".join(u.text() for u in plan or [])
                yield f"    SUCCESS: {how}."
            else:
                yield "    FAILURE."
        elif kind == E.EV_PROMOTION:
            line = f"    Promotion +{a}: the track reaches box {b}"
            if c != d:
                rank_name = rules.ranks[c].name
                line += f"; promoted to {rank_name} ({rules.ranks[c].grade})"
            yield line + "."
        elif kind == E.EV_SKILL:
            levels[a] = b
            yield (f"    Skill: {skills[a].name} level {b}." if c else
                   f"    {skills[a].name} is already at its highest level.")
        elif kind == E.EV_MEDAL:
            got = int(ev[7])
            medal = medals[int(ev[6])].name
            roll = f"Medal roll {a} and {b}" + (f" (+{c} Courage)" if c else "")
            roll += f", {d} re-roll(s)" if d else ""
            yield (f"    {roll}: {'made' if e else 'missed'}; "
                   + (f"{got} {medal} awarded." if got else "no medal."))
        elif kind == E.EV_DISCIPLINE:
            yield f"    A failed mission of this kind earns a Disciplinary Action ({a} so far)."
        elif kind == E.EV_SURVIVAL:
            bonus = f" + {b} Fitness" if b else ""
            yield (f"    Survival: {a}{bonus} against {c}+"
                   + (f" after {d} re-roll(s)" if d else "") + (": survives." if e else ": FAILS."))
        elif kind == E.EV_CLONE:
            yield f"    A clone takes over (Clone use {a})."
        elif kind == E.EV_TOUR:
            yield f"  Tour {a} ends: its box is checked off."
        elif kind == E.EV_END:
            yield ""
            yield f"Career over after {b if a != E.COMPLETED else b - 1} tour(s): {E.END_NAMES[a]}."
