"""OPIAL rules data (templates/opial.yaml through game/opial/rules.py) against the seeds.

The career page's tables are transcribed below from seed 001 (the page as text) and the
rules text of seeds 000/001, independently of the data file, and compared with the typed
Rules of both editions. Choices the seeds leave open (die colours, medal kinds, the
promotion track) are documented in docs/rules.md (O3-O6) and only checked for internal
consistency here.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from game.opial import state as state_mod
from game.opial.odds import Mods, success_by_rerolls
from game.opial.rules import COLOURS, load_rules, normalise_edition
from starsheets.errors import UsageError

ROOT = Path(__file__).resolve().parents[1]

# --- seed 001, the career page ---------------------------------------------------------------
# rank, grade, ship, dice pool
SEED_RANKS = [
    ("Cadet", "O-C", "Scout", "B"),
    ("Ensign", "O-1", "Light Escort", "BG"),
    ("Sub-Lieutenant", "O-2", "Science Vessel", "BGG"),
    ("Lieutenant", "O-3", "Light Cruiser", "BGGR"),
    ("Lieutenant Commander", "O-4", "Tactical Escort", "BGGRR"),
    ("Commander", "O-5", "Stellar Cruiser", "BBGGRR"),
    ("Captain", "O-6", "Heavy Cruiser", "BBGGRRR"),
    ("Commodore", "O-7", "Battle Cruiser", "BBGRRRR"),
    ("Rear Admiral", "O-8", "Dreadnought", "BBRRRRRR"),
    ("Vice Admiral", "O-9", "Fleet Carrier", "BBBRRRRR"),
    ("Grand Admiral", "O-10", "Federation Command", ""),
]

# mission: minimum grade, executed box points, roll numbers, promotion, skill,
# medal roll ("FAIL" = discipline on failure, "" = none), survival
SEED_MISSIONS = [
    ("Training", "O-C", "0 0 0 0 0 +1", "2", 1, "Fitness", "FAIL", 1),
    ("Security", "O-C", "0 0 0 0 0", "3", 1, "Efficiency", "", 2),
    ("Communications", "O-C", "0 0 0 0 +1", "3", 1, "Computer", "", 2),
    ("Survey", "O-1", "0 0 0 0 +1", "3 3", 1, "Engineering", "", 2),
    ("Aid", "O-1", "+1 +1 +1 +1", "4 4", 1, "Leadership", "FAIL", 2),
    ("Trade", "O-2", "0 0 0 +1", "4 5", 1, "Administration", "", 2),
    ("Science", "O-2", "0 0 +1 +1", "3 4 5", 2, "Engineering", "", 2),
    ("Planetary Defense", "O-2", "0 0 +1 +2", "4 4 5", 1, "Courage", "4 4", 4),
    ("Exploration", "O-2", "0 +1 +1 +1", "4 4 6", 2, "Alien Tech", "5 5", 3),
    ("Escort", "O-3", "0 0 +1 +1", "3 4 5", 1, "Navigation", "6 6", 3),
    ("Patrol", "O-3", "+1 +1 +1 +1", "4 4 6", 1, "Leadership", "5 5", 4),
    ("System Defense", "O-3", "+1 +1 +1 +2", "3 4 4 6", 1, "Gunnery", "4 4", 4),
    ("Fighter Pilot", "O-4", "+1 +2 +2 +3", "4 5 5 6", 2, "Tactics", "3 3", 5),
    ("Research Outpost", "O-4", "+1 +1 +2", "4 4 5 5 6", 2, "Clone", "", 3),
    ("Siege", "O-5", "+1 +2 +2", "4 5 5 5 6", 2, "Fitness", "6 6", 4),
    ("Diplomatic", "O-5", "+1 +1 +2", "4 5 5 5 6", 2, "Command", "", 3),
    ("Strike", "O-5", "+2 +2 +2", "4 5 5 5 6 6", 3, "Gunnery", "6 6", 5),
    ("Contact Civilization", "O-6", "+1 +2 +2", "4 5 5 5 5 6 6", 3, "Liaison", "9 9", 3),
    ("Battle", "O-6", "+2 +2 +3", "4 5 5 5 6 6 6", 3, "Fitness", "5 5", 6),
    ("Establish Starbase", "O-7", "+2 +2", "5 5 5 6 6 6 6", 4, "Strategy", "", 4),
    ("Sector Command", "O-8", "+3 +3", "5 5 5 6 6 6 7", 4, "Leadership", "8 8", 4),
    ("War Command", "O-8", "+4", "5 5 6 6 6 7 8", 5, None, "7 7", 4),
]

# skill: start roll, level points
SEED_SKILLS = [
    ("Fitness", 1, "0 0 +1"),
    ("Efficiency", 2, "0 +1"),
    ("Computer", 3, "0 0 0 +1"),
    ("Courage", 4, "0 0 +1 +1"),
    ("Engineering", 5, "0 +1"),
    ("Administration", 6, "0 +1"),
    ("Gunnery", None, "0 +1"),
    ("Leadership", None, "0 0 +1 +1"),
    ("Navigation", None, "0 +1"),
    ("Command", None, "+1"),
    ("Alien Tech", None, "+1"),
    ("Tactics", None, "+1"),
    ("Clone", None, "-3 -3"),
    ("Liaison", None, "+1"),
    ("Strategy", None, "+1"),
]

# Grand Admiral bonus printed under tours 7..15
SEED_GA_ROW = {7: 15, 8: 10, 9: 8, 10: 6, 11: 4, 12: 2, 13: 1, 14: 0, 15: -5}


def _nums(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split())


@pytest.fixture(params=["later", "earlier"])
def rules(request: pytest.FixtureRequest):
    return load_rules(request.param)


# --- tables ------------------------------------------------------------------------------------

def test_ranks_grades_ships_pools(rules) -> None:
    assert len(rules.ranks) == 11
    got = [(r.name, r.grade, r.ship, r.pool) for r in rules.ranks]
    assert got == SEED_RANKS
    assert [r.index for r in rules.ranks] == list(range(11))
    assert rules.grand_admiral.name == "Grand Admiral" and rules.grand_admiral.pool == ""
    # the Lieutenant example: Light Cruiser, 1 blue, 2 green, 1 red
    lt = rules.ranks[3]
    assert lt.pool_counts() == {"B": 1, "G": 2, "R": 1}


def test_promotion_track_thresholds_fit_dan(rules) -> None:
    th = [r.threshold for r in rules.ranks]
    assert th[0] == 0 and th == sorted(th) and len(set(th)) == len(th)
    assert th[-1] == rules.track_boxes  # Grand Admiral at the last box
    # Dan: promoted to Ensign at the third box, still an Ensign at the seventh
    assert rules.rank_for(2).name == "Cadet"
    assert rules.rank_for(3).name == "Ensign"
    assert rules.rank_for(7).name == "Ensign"
    assert rules.rank_for(rules.track_boxes).name == "Grand Admiral"
    for r in rules.ranks:
        assert rules.rank_for(r.threshold) == r
        if r.index:
            assert rules.rank_for(r.threshold - 1) == rules.ranks[r.index - 1]


def test_missions_as_printed(rules) -> None:
    assert len(rules.missions) == 22
    grade_index = {g: i for i, (_, g, _, _) in enumerate(SEED_RANKS)}
    for m, (name, grade, executed, roll, promo, skill, medal, surv) in zip(
            rules.missions, SEED_MISSIONS, strict=True):
        assert m.name == name
        assert m.min_rank == grade_index[grade], name
        assert m.executed == _nums(executed), name
        assert m.boxes == len(_nums(executed))
        assert sorted(r.target for r in m.roll) == sorted(_nums(roll)), name
        assert m.promotion == promo, name
        assert (rules.skill(m.skill).name if m.skill else None) == skill, name
        assert m.survival == surv, name
        assert m.discipline == (medal == "FAIL"), name
        if medal and medal != "FAIL":
            assert m.medal is not None and m.medal.targets == _nums(medal), name
        else:
            assert m.medal is None, name
        for r in m.roll:
            assert r.colour in "BGRK" and r.target >= 1


def test_missions_fixed_by_the_seed_examples(rules) -> None:
    # colours the worked examples fix (docs/rules.md O5)
    def roll(mid: str) -> list[tuple[int, str]]:
        return sorted((r.target, r.colour) for r in rules.mission(mid).roll)

    assert roll("training") == [(2, "K")]  # "needed a 2+ on any die"
    assert roll("security") == [(3, "B")]  # "needed a 3+ on Blue die"
    assert roll("communications") == [(3, "K")]  # "3+ on either die"
    assert roll("aid") == [(4, "G"), (4, "K")]  # "4+ and 4+ Green die"
    assert roll("science") == [(3, "K"), (4, "B"), (5, "G")]  # the rules' Science example
    # Dan at Ensign may fly Training, Security, Communications, Survey and Aid
    ensign = [m.id for m in rules.missions if m.min_rank <= 1]
    assert ensign == ["training", "security", "communications", "survey", "aid"]
    assert [m.id for m in rules.missions if m.min_rank == 0] == [
        "training", "security", "communications"]


def test_medal_kinds_fill_the_page_exactly(rules) -> None:
    # docs/rules.md O6: one medal per success (two for automatic ones) fills the boxes
    for md in rules.medals:
        most = sum(m.boxes * (2 if m.medal.automatic else 1)
                   for m in rules.missions if m.medal and m.medal.award == md.id)
        assert most == md.boxes, md.id
    auto = [m.id for m in rules.missions if m.medal and m.medal.automatic]
    assert auto == ["sector_command", "war_command"]


def test_skills_as_printed(rules) -> None:
    assert len(rules.skills) == 15
    for s, (name, start, levels) in zip(rules.skills, SEED_SKILLS, strict=True):
        assert s.name == name
        assert s.start_roll == start, name
        assert s.levels == _nums(levels), name
        assert s.max_level == len(_nums(levels))
    assert [s.name for s in rules.start_skills] == [n for n, st, _ in SEED_SKILLS if st]
    kinds = {s.id: (s.kind, s.colour) for s in rules.skills}
    assert kinds["engineering"] == ("die_bonus", "G")
    assert kinds["administration"] == ("die_bonus", "B")
    assert kinds["gunnery"] == ("die_bonus", "R")
    assert kinds["leadership"] == ("die_bonus", "K")
    assert kinds["command"] == ("extra_die", "B")
    assert kinds["alien_tech"] == ("extra_die", "G")
    assert kinds["tactics"] == ("extra_die", "R")


def test_extra_dice_reach_exactly_the_components(rules) -> None:
    # 7 red, 4 blue, 3 green: the largest pool of each colour plus its extra-die skill
    assert rules.components == {"R": 7, "B": 4, "G": 3}
    for c in COLOURS:
        extra = sum(s.max_level for s in rules.skills if s.kind == "extra_die" and s.colour == c)
        assert max(r.pool.count(c) for r in rules.ranks) + extra == rules.components[c]


def test_medals_discipline_and_clone(rules) -> None:
    md = {m.id: m for m in rules.medals}
    assert [m.id for m in rules.medals] == ["distinction", "gallantry", "valor", "starburst"]
    assert (md["distinction"].points, md["distinction"].per) == (1, 4)
    assert (md["gallantry"].points, md["gallantry"].per) == (2, 1)
    assert (md["valor"].points, md["valor"].per) == (3, 1)
    assert (md["starburst"].points, md["starburst"].per) == (5, 1)  # as printed (O2)
    assert [m.boxes for m in rules.medals] == [12, 12, 12, 6]
    assert rules.discipline.points == -3 and rules.discipline.boxes == 12
    assert rules.clone_uses == 2


def test_tours_and_game_lengths(rules) -> None:
    assert rules.tour_count == 15
    assert rules.tour_mission_boxes == 4
    assert rules.base_missions == 2
    assert rules.game_lengths == {"short": 7, "career": 15}
    assert rules.ga_bonus == SEED_GA_ROW
    # "2 missions each tour; +1 per Efficiency level" (four boxes above each tour)
    assert [rules.missions_per_tour(e) for e in range(4)] == [2, 3, 4, 4]
    for t in range(1, 16):
        assert rules.tour_bonus(t) == SEED_GA_ROW.get(t, 15)  # before the row: its first


def test_start_options(rules) -> None:
    opts = {o.id: (o.how, o.count) for o in rules.start_options}
    assert opts == {"roll": ("roll", 1), "easier": ("choose", 1),
                    "easier_yet": ("roll", 2), "still_easier_yet": ("choose", 2)}


@pytest.mark.parametrize("total, title", [
    (-40, "Washout"), (-1, "Washout"), (0, "Washout"), (10, "Washout"), (50, "Washout"),
    (51, "Drudge"), (75, "Drudge"), (76, "Traveller"), (100, "Traveller"),
    (101, "Voyager"), (125, "Voyager"), (126, "Champion"), (175, "Champion"),
    (176, "Savior"), (199, "Savior"), (200, "Emperor"), (10_000, "Emperor"),
])
def test_title_bands(rules, total: int, title: str) -> None:
    assert rules.title_for(total).name == title


def test_title_bands_cover_every_total_once(rules) -> None:
    for total in range(-100, 400):
        hits = [t.name for t in rules.titles
                if (t.min is None or total >= t.min) and (t.max is None or total <= t.max)]
        assert len(hits) == 1, (total, hits)


# --- editions ---------------------------------------------------------------------------------

def test_editions_differ_only_in_rank_bonus() -> None:
    later, earlier = load_rules("later"), load_rules("earlier")
    assert later.rank_bonus == 20 and earlier.rank_bonus == 15
    assert (later.seed, earlier.seed) == ("000", "001")
    same = dataclasses.replace(earlier, edition=later.edition, edition_label=later.edition_label,
                               seed=later.seed, rank_bonus=later.rank_bonus)
    assert same == later


def test_edition_aliases_and_default() -> None:
    assert load_rules().edition == "later"
    for alias in ("later", "000", "new", "LATER"):
        assert normalise_edition(alias) == "later"
    for alias in ("earlier", "001", "old"):
        assert normalise_edition(alias) == "earlier"
    with pytest.raises(UsageError):
        normalise_edition("middle")


# --- every mission can be won ---------------------------------------------------------------

def _reqs(m) -> tuple[tuple[int, str], ...]:
    return tuple(sorted(((r.target, r.colour) for r in m.roll), reverse=True))


@pytest.mark.parametrize("mission_id", [m.id for m in load_rules().missions])
def test_every_mission_winnable_at_its_minimum_rank(mission_id: str) -> None:
    rules = load_rules()
    m = rules.mission(mission_id)
    rank = rules.ranks[m.min_rank]
    pool = tuple(rank.pool.count(c) for c in COLOURS)
    # some achievable skill set: Leadership at its highest level (+1 to any die per level)
    lead = rules.skill("leadership").max_level
    assert success_by_rerolls(_reqs(m), pool, Mods(lead=lead))[0] > 0
    # no skills at all: winnable exactly when every number is a die face and the pool is
    # big enough (docs/rules.md O5: only Sector and War Command need +1s)
    plain = success_by_rerolls(_reqs(m), pool, Mods())[0]
    needs_no_skill = all(r.target <= 6 for r in m.roll) and len(m.roll) <= len(rank.pool)
    assert (plain > 0) == needs_no_skill, mission_id
    if not needs_no_skill:
        assert m.id in ("sector_command", "war_command")


def test_every_requirement_colour_exists_in_the_minimum_rank_pool() -> None:
    rules = load_rules()
    for m in rules.missions:
        pool = rules.ranks[m.min_rank].pool
        for c in COLOURS:
            assert sum(r.colour == c for r in m.roll) <= pool.count(c), (m.id, c)


# --- the published schema ----------------------------------------------------------------------

def test_published_schema_is_state_schema() -> None:
    path = ROOT / "templates" / "schemas" / "opial-career.schema.json"
    published = json.loads(path.read_text(encoding="utf-8"))
    assert published == state_mod.schema()


def test_schema_names_come_from_the_rules() -> None:
    rules = load_rules()
    props = state_mod.schema()["properties"]
    assert set(props["missions"]["properties"]) == {m.id for m in rules.missions}
    assert set(props["skills"]["properties"]) == {s.id for s in rules.skills}
    assert set(props["medals"]["properties"]) == {m.id for m in rules.medals}
    assert set(props["edition"]["enum"]) == {"later", "earlier"}
    assert set(props["start"]["enum"]) == {o.id for o in rules.start_options}
