"""OPIAL career-page validation (game/opial/validate.py).

Honest pages (Dan's worked example, simulated careers of both lengths, every start option
and both editions) give no finding at all; each finding code is triggered, alone, by a
page tampered in one place.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.opial.engine import GRAND_ADMIRAL
from game.opial.rules import load_rules
from game.opial.simulate import run, to_state
from game.opial.state import CareerState
from game.opial.validate import ERROR, WARNING, has_errors, validate

ROOT = Path(__file__).resolve().parents[1]
RULES = load_rules("later")
GA = RULES.grand_admiral.threshold
STARTS = [o.id for o in RULES.start_options]


def dan(**changes) -> CareerState:
    data = json.loads((ROOT / "samples" / "dan-tour3.json").read_text(encoding="utf-8"))
    return CareerState.from_dict(data, "dan").with_changes(**changes)


def b(n: int) -> tuple[int, ...]:
    """Boxes 1..n checked."""
    return tuple(range(1, n + 1))


def codes(state: CareerState, rules=RULES) -> list[str]:
    return [f.code for f in validate(state, rules)]


def only(state: CareerState, code: str, rules=RULES) -> list:
    """The findings, after checking that `code` is the only code among them."""
    found = validate(state, rules)
    assert {f.code for f in found} == {code}, [(f.code, f.message) for f in found]
    return found


@cache
def careers(seed: int, edition: str, length: str, start: str, n: int) -> tuple[CareerState, ...]:
    inp, res = run(n, seed, edition, length, start)
    return tuple(to_state(inp, res, i, name=f"Officer {i}") for i in range(n))


@cache
def ga_career() -> CareerState:
    """A simulated career that reached Grand Admiral mid-tour, early enough to leave tours
    to fly on into (honest, no findings)."""
    inp, res = run(400, 11)
    for i in range(400):
        st_ = to_state(inp, res, i, name="Ada")
        if (res.misc[i, 5] == GRAND_ADMIRAL and st_.tours_started == len(st_.tours) + 1
                and st_.tours_started <= 12):
            return st_
    raise AssertionError("no Grand Admiral among 400 careers")


# --- honest pages ---------------------------------------------------------------------------

def test_dan_has_no_findings() -> None:
    assert validate(dan(), RULES) == []
    assert validate(dan(), load_rules("earlier")) != []  # only the edition warning
    assert codes(dan(), load_rules("earlier")) == ["edition-mismatch"]


@pytest.mark.parametrize("edition", ["later", "earlier"])
@pytest.mark.parametrize("length", ["career", "short"])
@pytest.mark.parametrize("start", STARTS)
def test_simulated_careers_have_no_findings(edition: str, length: str, start: str) -> None:
    rules = load_rules(edition)
    for page in careers(3, edition, length, start, 150):
        found = validate(page, rules)
        assert found == [], (page.to_dict(), [f.message for f in found])


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**40), edition=st.sampled_from(["later", "earlier"]),
       length=st.sampled_from(["career", "short"]), start=st.sampled_from(STARTS))
def test_simulated_careers_have_no_findings_any_seed(seed: int, edition: str, length: str,
                                                     start: str) -> None:
    rules = load_rules(edition)
    inp, res = run(40, seed, edition, length, start)
    for i in range(40):
        page = to_state(inp, res, i, name="P")
        assert validate(page, rules) == [], page.to_dict()


def test_simulated_careers_with_written_scores_have_no_findings() -> None:
    from game.opial.scoring import score

    for page in careers(5, "later", "career", "roll", 150)[:60]:
        sc = score(page, RULES)
        written = {ln.key: ln.points for ln in sc.lines}
        assert validate(page.with_changes(written=written), RULES) == []


# --- each finding, alone ---------------------------------------------------------------------

def test_boxes_out_of_order_discipline() -> None:
    (f,) = only(dan(discipline=(1, 3)), "boxes-out-of-order")
    assert f.severity == ERROR and f.boxes == ("discipline.2",)


def test_boxes_out_of_order_skill() -> None:
    (f,) = only(dan(skills={**dan().skills, "computer": (2,)}, written=None),
                "boxes-out-of-order")
    assert f.boxes == ("skill.computer.1",)


def test_boxes_out_of_order_executed() -> None:
    (f,) = only(dan(missions={**dan().missions, "training": "S.F"}), "boxes-out-of-order")
    assert f.boxes == ("mission.training.2",)


def test_boxes_out_of_order_tour_track() -> None:
    (f,) = only(dan(tours=(1, 3)), "boxes-out-of-order")
    assert f.boxes == ("tour.2",)


def test_executed_overflow() -> None:
    # two more failed Security missions in Tour 4: six marks in a five-box row
    page = dan(missions={**dan().missions, "security": "FSSSFF"}, tour_missions=(2, 4, 4, 2))
    (f,) = only(page, "executed-overflow")
    assert f.severity == ERROR and f.boxes == ("mission.security.5",)


def test_too_many_missions_in_tour() -> None:
    # Efficiency 1 allows 3 a tour; Tours 2 and 3 have 4 (and the Efficiency level that
    # Dan's third Security success granted is then missing: a warning of its own)
    page = dan(skills={**dan().skills, "efficiency": (1,)}, written=None)
    found = [f for f in validate(page, RULES) if f.code != "skill-unchecked"]
    assert {f.code for f in found} == {"too-many-missions-in-tour"}
    assert "skill-unchecked" in codes(page)
    assert [f.boxes for f in found] == [("tour.2.mission.4",), ("tour.3.mission.4",)]


def test_tour_ended_early() -> None:
    # Tour 1 checked off after a single mission (the other one moved to Tour 4)
    (f,) = only(dan(tour_missions=(1, 4, 4, 1)), "tour-ended-early")
    assert f.boxes == ("tour.1",)


def test_tour_checked_with_no_missions_ended_early() -> None:
    (f,) = only(dan(tours=(1, 2, 3, 4), tour_missions=(2, 4, 4, 0)), "tour-ended-early")
    assert f.boxes == ("tour.4",)


def test_tour_checked_with_no_missions_compact_form() -> None:
    # the same page as above, with tour_missions written without the trailing 0
    page = dan(tours=(1, 2, 3, 4))
    assert page.tour_missions == (2, 4, 4)
    only(page, "tour-ended-early")


def test_missions_in_future_tour() -> None:
    (f,) = only(dan(tour_missions=(2, 4, 2, 0, 2)), "missions-in-future-tour")
    assert f.boxes == ("tour.4",)


def test_missions_tally_mismatch() -> None:
    (f,) = only(dan(tour_missions=(2, 4, 3)), "missions-tally-mismatch")
    assert f.severity == ERROR  # more Executed marks than ticks: a mission not ticked
    page = dan(tour_missions=(2, 4, 4, 1))  # one tick more than Executed marks
    (f,) = only(page, "missions-tally-mismatch")
    assert f.severity == WARNING


def test_beyond_game_length() -> None:
    long = next(p for p in careers(3, "later", "career", "roll", 150) if p.tours_started >= 9)
    found = only(long.with_changes(length="short"), "beyond-game-length")
    assert found[0].boxes[0] == "tour.8"


def test_promotion_unearned() -> None:
    (f,) = only(dan(promotion=b(8), written=None), "promotion-unearned")
    assert f.severity == ERROR and f.boxes == ("promotion.8",)


def test_promotion_unchecked() -> None:
    (f,) = only(dan(promotion=b(6), written=None), "promotion-unchecked")
    assert f.severity == WARNING and f.boxes == ("promotion.7",)


def test_mission_above_rank() -> None:
    # a Cadet flying (and failing) Survey, an Ensign's mission
    page = CareerState(name="Eve", tour_missions=(1,), missions={"survey": "F"})
    (f,) = only(page, "mission-above-rank")
    assert f.boxes == ("mission.survey.1",)
    assert "Ensign" in f.message


def test_skill_unearned_not_on_start_chart() -> None:
    page = dan(skills={**dan().skills, "gunnery": (1,)})
    (f,) = only(page, "skill-unearned")
    assert f.boxes == ("skill.gunnery.1",)


@pytest.mark.parametrize("start, allowance", [("roll", 1), ("easier", 1), ("easier_yet", 2),
                                              ("still_easier_yet", 2)])
def test_skill_unearned_start_allowance(start: str, allowance: int) -> None:
    extra = [{"engineering": (1,)},
             {"engineering": (1,), "administration": (1,)},
             {"engineering": (1, 2), "courage": (1,)}]
    for k, more in enumerate(extra, start=1):
        page = dan(start=start, skills={**dan().skills, **more}, written=None)
        if k <= allowance:
            assert codes(page) == [], (start, more)
        else:
            only(page, "skill-unearned")
    # a start level on a skill a mission also grants: Efficiency 2 from 3 Securities is
    # explained by the missions, a third would overflow rather than be unearned
    assert codes(dan(start=start)) == []


def test_skill_overflow() -> None:
    page = dan(skills={**dan().skills, "efficiency": (1, 2, 3)})
    only(page, "skill-overflow")


def test_medal_unearned() -> None:
    (f,) = only(dan(medals={"distinction": (1,)}), "medal-unearned")
    assert f.boxes == ("medal.distinction.1",)


def test_medal_unchecked() -> None:
    page = ga_career()
    assert page.medals.get("starburst")  # a Grand Admiral flew Sector Command
    medals = {k: v for k, v in page.medals.items() if k != "starburst"}
    (f,) = only(page.with_changes(medals=medals), "medal-unchecked")
    assert f.severity == WARNING


def test_discipline_unearned() -> None:
    (f,) = only(dan(discipline=b(3), written=None), "discipline-unearned")
    assert f.severity == ERROR and f.boxes == ("discipline.3",)


def test_discipline_unchecked() -> None:
    (f,) = only(dan(discipline=b(1), written=None), "discipline-unchecked")
    assert f.severity == WARNING and f.boxes == ("discipline.2",)


def test_clone_overused() -> None:
    (f,) = only(dan(clone=b(1)), "clone-overused")
    assert f.boxes == ("clone.1",)


def test_played_after_grand_admiral_with_a_skipped_tour() -> None:
    page = ga_career()
    assert validate(page, RULES) == []
    t = page.tours_started
    # two more missions ticked two tours later, the tour in between never checked
    tm = (*page.tour_missions, 0, 2)
    missions = dict(page.missions)
    spare = next(m for m in RULES.missions if len(missions.get(m.id, "")) <= m.boxes - 2
                 and not m.discipline)
    missions[spare.id] = missions.get(spare.id, "") + "FF"
    found = codes(page.with_changes(tour_missions=tm, missions=missions))
    assert "played-after-grand-admiral" in found, (t, found)


def _fly_on(page: CareerState, successes: int) -> CareerState:
    """`page` (a Grand Admiral career) with `successes` more successful missions flown after
    it, ticked in order in the tours that follow (skills raised as they would be)."""
    missions, skills = dict(page.missions), dict(page.skills)
    added = 0
    for m in sorted(RULES.missions, key=lambda m: -m.promotion):
        if m.discipline or (m.medal and m.medal.automatic):
            continue
        while added < successes and len(missions.get(m.id, "")) < m.boxes:
            missions[m.id] = missions.get(m.id, "") + "S"
            if m.skill:
                lvl = min(len(skills.get(m.skill, ())) + 1, RULES.skill(m.skill).max_level)
                skills[m.skill] = b(lvl)
            added += 1
    assert added == successes
    per_tour = RULES.missions_per_tour(len(skills.get("efficiency", ())))
    tm = list(page.tour_missions)
    left = successes
    while left:
        if tm[-1] == per_tour:
            tm.append(0)
        step = min(per_tour - tm[-1], left)
        tm[-1] += step
        left -= step
    tours = b(len(tm) - 1) if tm[-1] < per_tour else b(len(tm))
    return page.with_changes(missions=missions, skills=skills, tour_missions=tuple(tm),
                             tours=tours)


def test_fly_on_helper_keeps_the_page_consistent() -> None:
    # the tampered page below breaks no other rule: tallies, skills, tours all agree
    page = _fly_on(ga_career(), 6)
    assert sum(page.tour_missions) == sum(len(v) for v in page.missions.values())
    assert set(codes(page)) <= {"played-after-grand-admiral"}


def test_played_after_grand_admiral_detected_from_promotion_points() -> None:
    page = _fly_on(ga_career(), 6)
    earned = sum(page.successes(m.id) * m.promotion for m in RULES.missions)
    top_one = max(m.promotion for m in RULES.missions if page.successes(m.id))
    assert earned - top_one >= GA + 5  # Grand Admiral was reached well before the last mission
    assert "played-after-grand-admiral" in codes(page), codes(page)


def test_score_miscount_names_line_and_difference() -> None:
    written = {**dan().written, "missions": 2}
    (f,) = only(dan(written=written), "score-miscount")
    assert f.severity == WARNING and f.boxes == ("score.missions",)
    assert "Missions" in f.message and "+1" in f.message and "2" in f.message
    written = {**dan().written, "medals": -3, "total": 13}
    found = only(dan(written=written), "score-miscount")
    assert [f.boxes for f in found] == [("score.medals",), ("score.total",)]
    assert "+3" in found[0].message and "+3" in found[1].message
    # a blank line is not a miscount
    assert codes(dan(written={**dan().written, "skills": None})) == []


def test_no_name() -> None:
    (f,) = only(dan(name=""), "no-name")
    assert f.severity == WARNING and f.boxes == ("name",)
    only(dan(name="   "), "no-name")


def test_edition_mismatch() -> None:
    only(dan(), "edition-mismatch", load_rules("earlier"))


def test_errors_come_first_and_has_errors() -> None:
    page = dan(name="", promotion=b(8), written=None)
    found = validate(page, RULES)
    assert [f.code for f in found] == ["promotion-unearned", "no-name"]
    assert has_errors(found) and not has_errors(validate(dan(name=""), RULES))
    d = found[0].to_dict()
    assert set(d) == {"code", "severity", "message", "fix", "boxes"}
