"""Final scoring of a career page: every line of the final-score block, and the title."""

from __future__ import annotations

from dataclasses import dataclass

from game.opial.rules import Rules
from game.opial.state import SUCCESS, CareerState


@dataclass(frozen=True)
class Line:
    key: str  # one of state.SCORE_LINES
    label: str
    points: int
    detail: str


@dataclass(frozen=True)
class Score:
    lines: tuple[Line, ...]
    total: int
    title: str
    quip: str
    grand_admiral: bool
    rank: str

    def line(self, key: str) -> Line:
        return next(ln for ln in self.lines if ln.key == key)

    def to_dict(self) -> dict[str, object]:
        return {
            "total": self.total,
            "title": self.title,
            "quip": self.quip,
            "rank": self.rank,
            "grand_admiral": self.grand_admiral,
            "breakdown": [{"line": ln.key, "label": ln.label, "points": ln.points,
                           "detail": ln.detail} for ln in self.lines],
        }


def reached_grand_admiral(state: CareerState, rules: Rules) -> bool:
    return state.promotion_points >= rules.grand_admiral.threshold


def mission_points(state: CareerState, rules: Rules) -> tuple[int, str]:
    """Points printed in Executed boxes of successful missions (Dan's example: a failed
    mission's box scores nothing; see docs/rules.md)."""
    total, parts = 0, []
    for m in rules.missions:
        pts = sum(m.executed[i] for i, c in enumerate(state.executed(m.id)[: m.boxes])
                  if c == SUCCESS)
        if pts:
            total += pts
            parts.append(f"{m.name} {pts:+d}")
    return total, ", ".join(parts) or "no scoring Executed boxes"


def skill_points(state: CareerState, rules: Rules) -> tuple[int, str]:
    total, parts = 0, []
    for s in rules.skills:
        pts = sum(s.levels[b - 1] for b in state.skills.get(s.id, ()) if b <= s.max_level)
        if pts:
            total += pts
            parts.append(f"{s.name} {pts:+d}")
    return total, ", ".join(parts) or "no scoring Skill Level boxes"


def medal_points(state: CareerState, rules: Rules) -> tuple[int, str]:
    total, parts = 0, []
    for md in rules.medals:
        n = state.medal_count(md.id)
        pts = (n // md.per) * md.points
        if n:
            total += pts
            per = f" (+{md.points} per {md.per})" if md.per > 1 else f" x {md.points:+d}"
            parts.append(f"{n} {md.name}{per} = {pts:+d}")
    n = len(state.discipline)
    if n:
        pts = n * rules.discipline.points
        total += pts
        parts.append(f"{n} Disciplinary x {rules.discipline.points:+d} = {pts:+d}")
    return total, "; ".join(parts) or "none"


def score(state: CareerState, rules: Rules) -> Score:
    """Score a career state under `rules` (the state's own edition is not consulted)."""
    ga = reached_grand_admiral(state, rules)
    tour = state.tours_started
    tours_bonus = rules.tour_bonus(tour) if ga else 0
    top = state.promotion_points
    missions, missions_detail = mission_points(state, rules)
    skills, skills_detail = skill_points(state, rules)
    medals, medals_detail = medal_points(state, rules)
    lines = (
        Line("tours_bonus", "Tours Bonus", tours_bonus,
             f"Grand Admiral in Tour {tour}" if ga else "only if Grand Admiral is reached"),
        Line("final_promotion", "Final Promotion (x2)", top * 2,
             f"box {top} x 2" if top else "no promotion box checked"),
        Line("rank_bonus", "Rank Bonus", rules.rank_bonus if ga else 0,
             "Grand Admiral" if ga else "only if Grand Admiral is reached"),
        Line("missions", "Missions", missions, missions_detail),
        Line("skills", "Skills", skills, skills_detail),
        Line("medals", "Medals", medals, medals_detail),
    )
    total = sum(ln.points for ln in lines)
    title = rules.title_for(total)
    lines = (*lines, Line("total", "Grand Total", total, title.name))
    return Score(lines, total, title.name, title.quip, ga, rules.rank_for(top).name)
