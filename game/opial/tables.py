"""The rules as flat numpy arrays, for the vectorised career engine.

Skills are found by their `kind` in the rules data (never by name), so the engine,
the scorer and the sheet read the same tables.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

import numpy as np

from game.opial.rules import COLOURS, Rules, load_rules


@dataclass(frozen=True)
class Tables:
    rules: Rules
    n_missions: int
    n_skills: int
    min_rank: np.ndarray  # (M,)
    boxes: np.ndarray  # (M,)
    promotion: np.ndarray  # (M,)
    skill: np.ndarray  # (M,) skill index granted, -1 none
    discipline: np.ndarray  # (M,) bool
    survival: np.ndarray  # (M,)
    medal: np.ndarray  # (M,) medal index, -1 none
    medal_auto: np.ndarray  # (M,) bool
    medal_targets: tuple[tuple[int, ...] | None, ...]
    executed_points: np.ndarray  # (M, maxboxes)
    skill_max: np.ndarray  # (S,)
    skill_points: np.ndarray  # (S, maxlevels)
    rank_pool: np.ndarray  # (ranks, 3) dice per colour B, G, R
    thresholds: np.ndarray  # (ranks,)
    medal_boxes: np.ndarray  # (4,)
    medal_points: np.ndarray
    medal_per: np.ndarray
    # skill indices by kind
    efficiency: int
    computer: int
    fitness: int
    courage: int
    clone: int
    leadership: int
    die_bonus: dict[str, int]  # colour -> skill index (B, G, R)
    extra_die: dict[str, int]  # colour -> skill index
    navigation: int
    strategy: int
    liaison: int
    start_skills: np.ndarray  # skill index by start roll 1..6


def _by_kind(rules: Rules, kind: str, colour: str | None = None) -> int:
    for s in rules.skills:
        if s.kind == kind and (colour is None or s.colour == colour):
            return s.index
    raise KeyError(kind)


@cache
def tables(edition: str | None = None) -> Tables:
    return tables_for(load_rules(edition))


def with_track(rules: Rules, thresholds: tuple[int, ...]) -> Rules:
    """The rules with another promotion track (rank thresholds; the last is its length).
    Used to calibrate the track (bench/calibrate_track.py)."""
    ranks = tuple(replace(r, threshold=th) for r, th in zip(rules.ranks, thresholds, strict=True))
    return replace(rules, ranks=ranks, track_boxes=thresholds[-1])


def tables_for(rules: Rules) -> Tables:
    ms = rules.missions
    medal_index = {m.id: i for i, m in enumerate(rules.medals)}
    skill_index = {s.id: s.index for s in rules.skills}
    maxb = max(m.boxes for m in ms)
    execp = np.zeros((len(ms), maxb), np.int64)
    for m in ms:
        execp[m.index, : m.boxes] = m.executed
    maxl = max(s.max_level for s in rules.skills)
    skp = np.zeros((len(rules.skills), maxl), np.int64)
    for s in rules.skills:
        skp[s.index, : s.max_level] = s.levels
    return Tables(
        rules=rules,
        n_missions=len(ms),
        n_skills=len(rules.skills),
        min_rank=np.array([m.min_rank for m in ms]),
        boxes=np.array([m.boxes for m in ms]),
        promotion=np.array([m.promotion for m in ms]),
        skill=np.array([skill_index[m.skill] if m.skill else -1 for m in ms]),
        discipline=np.array([m.discipline for m in ms]),
        survival=np.array([m.survival for m in ms]),
        medal=np.array([medal_index[m.medal.award] if m.medal else -1 for m in ms]),
        medal_auto=np.array([bool(m.medal and m.medal.automatic) for m in ms]),
        medal_targets=tuple(m.medal.targets if m.medal else None for m in ms),
        executed_points=execp,
        skill_max=np.array([s.max_level for s in rules.skills]),
        skill_points=skp,
        rank_pool=np.array([[r.pool.count(c) for c in COLOURS] for r in rules.ranks]),
        thresholds=np.array([r.threshold for r in rules.ranks]),
        medal_boxes=np.array([m.boxes for m in rules.medals]),
        medal_points=np.array([m.points for m in rules.medals]),
        medal_per=np.array([m.per for m in rules.medals]),
        efficiency=_by_kind(rules, "extra_mission"),
        computer=_by_kind(rules, "reroll"),
        fitness=_by_kind(rules, "survival_bonus"),
        courage=_by_kind(rules, "medal_bonus"),
        clone=_by_kind(rules, "clone"),
        leadership=_by_kind(rules, "die_bonus", "K"),
        die_bonus={c: _by_kind(rules, "die_bonus", c) for c in COLOURS},
        extra_die={c: _by_kind(rules, "extra_die", c) for c in COLOURS},
        navigation=_by_kind(rules, "flip_opposite"),
        strategy=_by_kind(rules, "flip_six"),
        liaison=_by_kind(rules, "colour_swap"),
        start_skills=np.array([s.index for s in rules.start_skills]),
    )
