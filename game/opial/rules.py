"""The OPIAL rules as typed, immutable objects built from templates/opial.yaml."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import templates
from starsheets.errors import UsageError

COLOURS = "BGR"  # real die colours; "K" (black) in a requirement means any colour
EDITION_ALIASES = {"later": "later", "000": "later", "new": "later",
                   "earlier": "earlier", "001": "earlier", "old": "earlier"}


@dataclass(frozen=True)
class Requirement:
    """One number of a mission roll: a die of `colour` (K = any) showing `target` or more."""

    target: int
    colour: str

    def label(self) -> str:
        return f"{self.target}+{'' if self.colour == 'K' else ' ' + self.colour}"


@dataclass(frozen=True)
class MedalRoll:
    """Two (or more) dice that must each make their target; awards one `award` medal."""

    targets: tuple[int, ...]
    award: str
    automatic: bool


@dataclass(frozen=True)
class Rank:
    index: int
    id: str
    name: str
    grade: str
    ship: str
    pool: str  # e.g. "BGGR"
    threshold: int

    def pool_counts(self) -> dict[str, int]:
        return {c: self.pool.count(c) for c in COLOURS}


@dataclass(frozen=True)
class Mission:
    index: int
    id: str
    name: str
    min_rank: int
    executed: tuple[int, ...]
    roll: tuple[Requirement, ...]
    promotion: int
    skill: str | None
    discipline: bool
    medal: MedalRoll | None
    survival: int

    @property
    def boxes(self) -> int:
        return len(self.executed)


@dataclass(frozen=True)
class Skill:
    index: int
    id: str
    name: str
    effect: str
    start_roll: int | None
    levels: tuple[int, ...]
    kind: str
    colour: str | None

    @property
    def max_level(self) -> int:
        return len(self.levels)


@dataclass(frozen=True)
class Medal:
    id: str
    name: str
    long_name: str
    boxes: int
    points: int
    per: int


@dataclass(frozen=True)
class Title:
    name: str
    min: int | None
    max: int | None
    quip: str


@dataclass(frozen=True)
class StartOption:
    id: str
    name: str
    how: str  # "roll" or "choose"
    count: int


@dataclass(frozen=True)
class Rules:
    """Everything the scorer, validator, simulator, sheets and scanner need to agree on."""

    edition: str
    edition_label: str
    seed: str
    rank_bonus: int
    ranks: tuple[Rank, ...]
    track_boxes: int
    missions: tuple[Mission, ...]
    skills: tuple[Skill, ...]
    medals: tuple[Medal, ...]
    discipline: Medal
    tour_count: int
    tour_mission_boxes: int
    base_missions: int
    ga_bonus: dict[int, int]
    game_lengths: dict[str, int]
    clone_uses: int
    start_options: tuple[StartOption, ...]
    titles: tuple[Title, ...]
    components: dict[str, int]

    # --- look-ups -------------------------------------------------------------
    def mission(self, mission_id: str) -> Mission:
        for m in self.missions:
            if m.id == mission_id:
                return m
        raise KeyError(mission_id)

    def skill(self, skill_id: str) -> Skill:
        for s in self.skills:
            if s.id == skill_id:
                return s
        raise KeyError(skill_id)

    def medal(self, medal_id: str) -> Medal:
        for m in self.medals:
            if m.id == medal_id:
                return m
        raise KeyError(medal_id)

    def rank_for(self, points: int) -> Rank:
        """The rank held with `points` promotion boxes checked."""
        held = self.ranks[0]
        for r in self.ranks:
            if points >= r.threshold:
                held = r
        return held

    @property
    def grand_admiral(self) -> Rank:
        return self.ranks[-1]

    def missions_per_tour(self, efficiency: int) -> int:
        return min(self.base_missions + efficiency, self.tour_mission_boxes)

    def tour_bonus(self, tour: int) -> int:
        """Grand Admiral bonus for reaching the rank during `tour` (before the row: its first value)."""
        first = min(self.ga_bonus)
        return self.ga_bonus[max(tour, first)] if tour <= max(self.ga_bonus) else 0

    def title_for(self, total: int) -> Title:
        for t in self.titles:
            if (t.min is None or total >= t.min) and (t.max is None or total <= t.max):
                return t
        return self.titles[0]

    def start_option(self, option_id: str) -> StartOption:
        for o in self.start_options:
            if o.id == option_id:
                return o
        raise KeyError(option_id)

    @property
    def start_skills(self) -> tuple[Skill, ...]:
        return tuple(sorted((s for s in self.skills if s.start_roll), key=lambda s: s.start_roll))


def normalise_edition(edition: str | None) -> str:
    data = templates.load("opial")
    if edition is None:
        return data["default_edition"]
    key = EDITION_ALIASES.get(str(edition).lower())
    if key is None:
        raise UsageError(f"unknown OPIAL edition '{edition}'",
                         "Use --edition later (seed 000, default) or --edition earlier (seed 001).")
    return key


@cache
def load_rules(edition: str | None = None) -> Rules:
    """Build the Rules for an edition ('later' by default, or 'earlier')."""
    ed = normalise_edition(edition)
    data = templates.load("opial")
    info = data["editions"][ed]
    ranks = tuple(Rank(i, r["id"], r["name"], r["grade"], r["ship"], r["pool"], r["threshold"])
                  for i, r in enumerate(data["ranks"]))
    rank_index = {r.id: r.index for r in ranks}
    missions = []
    for i, m in enumerate(data["missions"]):
        medal = None
        if m.get("medal"):
            md = m["medal"]
            medal = MedalRoll(tuple(md["roll"]), md["award"], bool(md.get("automatic", False)))
        missions.append(Mission(
            index=i, id=m["id"], name=m["name"], min_rank=rank_index[m["min_rank"]],
            executed=tuple(m["executed"]),
            roll=tuple(Requirement(int(t), str(c)) for t, c in m["roll"]),
            promotion=m["promotion"], skill=m.get("skill"), discipline=bool(m.get("discipline")),
            medal=medal, survival=m["survival"]))
    skills = tuple(Skill(i, s["id"], s["name"], s["effect"], s.get("start_roll"), tuple(s["levels"]),
                         s["kind"], s.get("colour")) for i, s in enumerate(data["skills"]))
    medals = tuple(Medal(m["id"], m["name"], m["long_name"], m["boxes"], m["points"], m["per"])
                   for m in data["medals"])
    d = data["discipline"]
    discipline = Medal("discipline", d["name"], d["long_name"], d["boxes"], d["points"], 1)
    tours = data["tours"]
    return Rules(
        edition=ed, edition_label=info["label"], seed=info["seed"], rank_bonus=info["rank_bonus"],
        ranks=ranks, track_boxes=data["promotion_track"]["boxes"], missions=tuple(missions),
        skills=skills, medals=medals, discipline=discipline, tour_count=tours["count"],
        tour_mission_boxes=tours["mission_boxes"], base_missions=tours["base_missions"],
        ga_bonus={int(k): int(v) for k, v in tours["grand_admiral_bonus"].items()},
        game_lengths=dict(data["game_lengths"]), clone_uses=data["clone_uses"],
        start_options=tuple(StartOption(o["id"], o["name"], o["how"], o["count"])
                            for o in data["start_options"]),
        titles=tuple(Title(t["name"], t["min"], t["max"], t["quip"]) for t in data["titles"]),
        components=dict(data["dice"]["components"]),
    )
