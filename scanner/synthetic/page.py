"""The sheet and its ground truth: the career drawn on it (an honest career from the
simulator, a blank sheet or a scrambled one), the player's name and written score lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from game.opial.marks import BLANK, CHECKED, state_to_marks
from game.opial.rules import Rules
from game.opial.state import EMPTY, FAILURE, SCORE_LINES, SUCCESS, CareerState
from scanner.synthetic.common import MM_PER_PT, Truth, _pick
from sheets.manifest import Manifest, Rect

NAMES = ("Dan", "Opal", "Jordan Reyes", "M. Okafor", "Lena Fischer", "Sam", "Kwame Mensah",
         "Aiko Tanaka", "R. Delacroix", "Priya", "Tom O'Hara", "Zoë Martin", "Captain Kim",
         "Ines Duarte", "Jo", "Hank Bauer", "Mei-Lin Chou", "Ana Lucía", "Ole Nilsen",
         "Commander Vex", "B. Adeyemi", "Chris P.")


@dataclass(frozen=True)
class Page:
    """The page's geometry in millimetres (top-left origin, y down)."""

    manifest: Manifest

    @property
    def size_mm(self) -> tuple[float, float]:
        w, h = self.manifest.page_size
        return w * MM_PER_PT, h * MM_PER_PT

    def rect_mm(self, r: Rect) -> tuple[float, float, float, float]:
        """A manifest rect (PDF points, bottom-left origin) as x0, y0, x1, y1 in mm."""
        h = self.manifest.page_size[1]
        return (r[0] * MM_PER_PT, (h - r[1] - r[3]) * MM_PER_PT,
                (r[0] + r[2]) * MM_PER_PT, (h - r[1]) * MM_PER_PT)

    def point_mm(self, p: tuple[float, float]) -> tuple[float, float]:
        return p[0] * MM_PER_PT, (self.manifest.page_size[1] - p[1]) * MM_PER_PT

    def marker_corners_mm(self) -> dict[int, np.ndarray]:
        return {f.id: np.array([self.point_mm(p) for p in f.corners]) for f in
                self.manifest.fiducials}


@lru_cache(maxsize=64)
def _career_pool(edition: str, length: str, start: str, pool_seed: int) -> tuple[CareerState, ...]:
    """50 honest careers from the simulator (cached: the pool is reused across cases)."""
    from game.opial.simulate import random_states

    return tuple(random_states(50, pool_seed, edition, length, start))


def _scrambled_state(rng: np.random.Generator, rules: Rules) -> CareerState:
    """A sheet with boxes checked at random (no rules): a reader must not rely on what a
    career makes likely."""
    def subset(n: int, p: float) -> tuple[int, ...]:
        if rng.random() < 0.5:  # a run from box 1, as a career fills it
            return tuple(range(1, int(rng.integers(0, n + 1)) + 1))
        return tuple(int(k) for k in np.flatnonzero(rng.random(n) < p) + 1)

    length = str(rng.choice(list(rules.game_lengths)))
    tours = subset(rules.tour_count, 0.3)
    tm = [int(rng.integers(0, rules.tour_mission_boxes + 1))
          for _ in range(int(rng.integers(0, rules.tour_count + 1)))]
    while tm and tm[-1] == 0:
        tm.pop()
    missions = {}
    for m in rules.missions:
        cells = "".join(str(rng.choice([SUCCESS, FAILURE, EMPTY], p=[0.35, 0.2, 0.45]))
                        for _ in range(m.boxes)).rstrip(EMPTY)
        if cells and rng.random() < 0.6:
            missions[m.id] = cells
    skills = {s.id: b for s in rules.skills if (b := subset(s.max_level, 0.35))}
    medals = {md.id: b for md in rules.medals if (b := subset(md.boxes, 0.2))}
    return CareerState(edition=rules.edition, length=length,
                       start=str(rng.choice([o.id for o in rules.start_options])),
                       tours=tours, tour_missions=tuple(tm),
                       promotion=subset(rules.track_boxes, 0.3), missions=missions,
                       skills=skills, medals=medals,
                       discipline=subset(rules.discipline.boxes, 0.2),
                       clone=subset(rules.clone_uses, 0.3))


def _written(rng: np.random.Generator, state: CareerState, rules: Rules) -> dict[str, int] | None:
    """The final-score lines a player writes: all of them, only the total, or all with a
    slip in one line (the reader must read what is written, not what is right)."""
    from game.opial.scoring import score

    lines = {ln.key: ln.points for ln in score(state, rules).lines}
    how = _pick(rng, ("all", "total", "slip"), (0.6, 0.25, 0.15))
    if how == "total":
        lines = {"total": lines["total"]}
    elif how == "slip":
        key = str(rng.choice(list(SCORE_LINES)))
        lines[key] += int(rng.choice([-10, -2, -1, 1, 2, 5, 10]))
    return {k: v for k, v in lines.items() if -99 <= v <= 999} or None


def _content(rng: np.random.Generator, rules: Rules, written: bool = False
             ) -> tuple[CareerState, Truth, dict[str, Any]]:
    """The career on the sheet and the truth of every region; `written`: the score lines
    are written on every sheet but a blank one (the digit reader's training cases), the
    same random draws made either way."""
    kind = _pick(rng, ("career", "blank", "scrambled"), (0.82, 0.06, 0.12))
    if kind == "blank":
        state = CareerState(edition=rules.edition)
        truth = state_to_marks(state, rules)
        for rid, v in truth.items():
            if v == CHECKED:  # the default length and start bubbles: not marked here
                truth[rid] = BLANK
        return state, truth, {"kind": "blank"}
    if kind == "career":
        length = _pick(rng, ("career", "short"), (0.6, 0.4))
        start = str(rng.choice([o.id for o in rules.start_options]))
        pool = _career_pool(rules.edition, length, start, int(rng.integers(0, 8)))
        state = pool[int(rng.integers(0, len(pool)))]
    else:
        state = _scrambled_state(rng, rules)
    if rng.random() < 0.75:
        state = state.with_changes(name=str(rng.choice(NAMES)))
    if rng.random() < 0.35 or written:
        state = state.with_changes(written=_written(rng, state, rules))
    return state, state_to_marks(state, rules), {
        "kind": kind, "length": state.length, "start": state.start,
        "written": sorted(state.written or {}), "name": state.name}
