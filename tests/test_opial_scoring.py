"""OPIAL final scoring (game/opial/scoring.py): Dan's worked example, each line of the
final-score block on hand-made pages, and a property over arbitrary pages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.opial.rules import load_rules
from game.opial.scoring import score
from game.opial.state import SCORE_LINES, CareerState

ROOT = Path(__file__).resolve().parents[1]
DAN = ROOT / "samples" / "dan-tour3.json"
LATER, EARLIER = load_rules("later"), load_rules("earlier")
GA = LATER.grand_admiral.threshold


def dan() -> CareerState:
    return CareerState.from_dict(json.loads(DAN.read_text(encoding="utf-8")), "dan")


def points(state: CareerState, rules=LATER) -> dict[str, int]:
    return {ln.key: ln.points for ln in score(state, rules).lines}


# --- Dan, the seed's scoring example ------------------------------------------------------------

@pytest.mark.parametrize("rules", [LATER, EARLIER], ids=["later", "earlier"])
def test_dan_scores_ten_washout(rules) -> None:
    sc = score(dan(), rules)
    assert sc.total == 10
    assert sc.title == "Washout"
    assert sc.rank == "Ensign"
    assert not sc.grand_admiral
    assert points(dan(), rules) == {"tours_bonus": 0, "final_promotion": 14, "rank_bonus": 0,
                                    "missions": 1, "skills": 1, "medals": -6, "total": 10}
    assert [ln.key for ln in sc.lines] == list(SCORE_LINES)


def test_dan_written_block_matches() -> None:
    d = dan()
    assert d.written == points(d)


def test_dan_breakdown_details() -> None:
    sc = score(dan(), LATER)
    assert "7" in sc.line("final_promotion").detail  # the seventh box, times 2
    assert "Aid" in sc.line("missions").detail  # first box of Aid (a success)
    assert "Efficiency" in sc.line("skills").detail  # second box of Efficiency
    assert "Disciplinary" in sc.line("medals").detail
    d = sc.to_dict()
    assert d["total"] == 10 and d["title"] == "Washout"
    assert [b["points"] for b in d["breakdown"]] == [0, 14, 0, 1, 1, -6, 10]


def test_failed_executed_boxes_score_nothing() -> None:
    # Dan's second Aid box (+1) was a failure: only successes score (docs/rules.md O2)
    d = dan()
    assert points(d)["missions"] == 1
    both = d.with_changes(missions={**d.missions, "aid": "SS"})
    assert points(both)["missions"] == 2
    none = d.with_changes(missions={**d.missions, "aid": "FF"})
    assert points(none)["missions"] == 0


# --- hand-made pages, one line at a time ----------------------------------------------------

def ga_page(tour: int, **changes) -> CareerState:
    """A page that reached Grand Admiral during `tour` (last tour box unchecked)."""
    tm = (4,) * (tour - 1) + (1,)
    return CareerState(name="X", tours=tuple(range(1, tour)), tour_missions=tm,
                       promotion=tuple(range(1, GA + 1)), **changes)


@pytest.mark.parametrize("tour, bonus", [
    (1, 15), (5, 15), (6, 15), (7, 15), (8, 10), (9, 8), (10, 6), (11, 4), (12, 2), (13, 1),
    (14, 0), (15, -5)])
def test_grand_admiral_tour_bonus(tour: int, bonus: int) -> None:
    p = points(ga_page(tour))
    assert p["tours_bonus"] == bonus
    assert p["rank_bonus"] == 20
    assert p["final_promotion"] == 2 * GA
    assert p["total"] == bonus + 20 + 2 * GA


def test_tour_bonus_counts_the_tour_being_played() -> None:
    # reached at the end of tour 9 (its box checked) or during tour 10 (box 9 checked)
    end9 = CareerState(tours=tuple(range(1, 10)), tour_missions=(4,) * 9,
                       promotion=tuple(range(1, GA + 1)))
    in10 = ga_page(10)
    assert points(end9)["tours_bonus"] == 8
    assert points(in10)["tours_bonus"] == 6


def test_no_bonuses_without_grand_admiral() -> None:
    page = CareerState(tours=tuple(range(1, 8)), tour_missions=(4,) * 8,
                       promotion=tuple(range(1, GA)))
    p = points(page)
    assert p["tours_bonus"] == 0 and p["rank_bonus"] == 0
    assert p["final_promotion"] == 2 * (GA - 1)
    assert not score(page, LATER).grand_admiral


def test_rank_bonus_per_edition() -> None:
    page = ga_page(11)
    assert points(page, LATER)["rank_bonus"] == 20
    assert points(page, EARLIER)["rank_bonus"] == 15
    assert points(page, LATER)["total"] - points(page, EARLIER)["total"] == 5
    assert score(page, LATER).rank == "Grand Admiral"


def test_final_promotion_is_highest_box_times_two() -> None:
    assert points(CareerState(promotion=(1, 2, 3)))["final_promotion"] == 6
    # a gap does not matter for the score (the validator reports it)
    assert points(CareerState(promotion=(1, 2, 9)))["final_promotion"] == 18
    assert points(CareerState())["final_promotion"] == 0


@pytest.mark.parametrize("n, pts", [(0, 0), (1, 0), (3, 0), (4, 1), (5, 1), (7, 1), (8, 2),
                                    (11, 2), (12, 3)])
def test_distinction_one_per_four_rounded_down(n: int, pts: int) -> None:
    page = CareerState(medals={"distinction": tuple(range(1, n + 1))})
    assert points(page)["medals"] == pts


def test_medal_values() -> None:
    def medals(**m: int) -> int:
        return points(CareerState(medals={k: tuple(range(1, v + 1)) for k, v in m.items()}))[
            "medals"]

    assert medals(gallantry=3) == 6
    assert medals(valor=2) == 6
    assert medals(starburst=1) == 5  # as printed on the page (the text's +4 is overruled)
    assert medals(starburst=6) == 30
    assert medals(distinction=4, gallantry=1, valor=1, starburst=1) == 1 + 2 + 3 + 5
    page = CareerState(medals={"valor": (1, 2)}, discipline=(1, 2, 3))
    assert points(page)["medals"] == 6 - 9


@pytest.mark.parametrize("level, pts", [(0, 0), (1, -3), (2, -6)])
def test_clone_levels_cost_three_each(level: int, pts: int) -> None:
    page = CareerState(skills={"clone": tuple(range(1, level + 1))})
    assert points(page)["skills"] == pts


def test_skill_level_points_as_printed() -> None:
    def skills(**s: int) -> int:
        return points(CareerState(skills={k: tuple(range(1, v + 1)) for k, v in s.items()}))[
            "skills"]

    assert skills(fitness=2) == 0 and skills(fitness=3) == 1
    assert skills(computer=3) == 0 and skills(computer=4) == 1
    assert skills(courage=3) == 1 and skills(courage=4) == 2
    assert skills(leadership=4) == 2
    assert skills(command=1, alien_tech=1, tactics=1, liaison=1, strategy=1) == 5
    every = {s.id: s.max_level for s in LATER.skills}
    assert skills(**every) == sum(sum(s.levels) for s in LATER.skills) == 16 - 6


def test_executed_points_as_printed() -> None:
    for m in LATER.missions:
        page = CareerState(missions={m.id: "S" * m.boxes})
        assert points(page)["missions"] == sum(m.executed), m.id


def test_total_title_on_the_band_edges() -> None:
    # Final Promotion alone: box 25 -> 50 Washout, a Distinction set more -> 51 Drudge
    p50 = CareerState(promotion=tuple(range(1, 26)))
    assert score(p50, LATER).total == 50 and score(p50, LATER).title == "Washout"
    p51 = p50.with_changes(medals={"distinction": (1, 2, 3, 4)})
    assert score(p51, LATER).total == 51 and score(p51, LATER).title == "Drudge"
    neg = CareerState(discipline=(1, 2))
    assert score(neg, LATER).total == -6 and score(neg, LATER).title == "Washout"


# --- property: the total is the sum of the lines --------------------------------------------

def _boxes(n: int) -> st.SearchStrategy:
    return st.one_of(st.integers(0, n).map(lambda k: tuple(range(1, k + 1))),
                     st.sets(st.integers(1, n), max_size=n).map(lambda s: tuple(sorted(s))))


@st.composite
def pages(draw: st.DrawFn) -> CareerState:
    rules = LATER
    missions = {m.id: draw(st.text("SF.", max_size=m.boxes)) for m in rules.missions
                if draw(st.booleans())}
    skills = {s.id: draw(_boxes(s.max_level)) for s in rules.skills if draw(st.booleans())}
    medals = {md.id: draw(_boxes(md.boxes)) for md in rules.medals if draw(st.booleans())}
    tm = tuple(draw(st.lists(st.integers(0, 4), max_size=15)))
    return CareerState(
        edition=draw(st.sampled_from(["later", "earlier"])),
        length=draw(st.sampled_from(["short", "career"])),
        start=draw(st.sampled_from([o.id for o in rules.start_options])),
        name=draw(st.text(max_size=8)),
        tours=draw(_boxes(15)), tour_missions=tm, promotion=draw(_boxes(rules.track_boxes)),
        missions=missions, skills=skills, medals=medals, discipline=draw(_boxes(12)),
        clone=draw(_boxes(2)))


@settings(max_examples=80, deadline=None)
@given(page=pages(), edition=st.sampled_from(["later", "earlier"]))
def test_total_is_sum_of_lines(page: CareerState, edition: str) -> None:
    rules = load_rules(edition)
    sc = score(page, rules)
    lines = {ln.key: ln.points for ln in sc.lines}
    assert list(lines) == list(SCORE_LINES)
    assert sc.total == lines["total"] == sum(v for k, v in lines.items() if k != "total")
    assert sc.title == rules.title_for(sc.total).name
    assert sc.grand_admiral == (page.promotion_points >= rules.grand_admiral.threshold)
    if not sc.grand_admiral:
        assert lines["tours_bonus"] == 0 and lines["rank_bonus"] == 0
    assert lines["final_promotion"] == 2 * page.promotion_points
    # the score does not change through the file format
    again = CareerState.from_dict(json.loads(json.dumps(page.to_dict())))
    assert score(again, rules).total == sc.total
