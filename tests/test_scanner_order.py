"""Review boxes settled by the order their track is filled in (scanner.order)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from game.opial.marks import ordered_tracks, regions, tours_with_missions
from game.opial.rules import load_rules
from scanner.marks import CHECKED, EMPTY, INK, REVIEW, SLASHED, Mark
from scanner.marks.classifier import FAINT_MARK_WHY
from scanner.marks.sheet import FAINT_LINE_WHY, LIKE_MARKS_WHY
from scanner.order import (
    BARE_FAINT,
    FIRST_EMPTY_DOUBT,
    LONE_GAPS,
    MISSED_GAPS,
    NEXT_EMPTY_DOUBT,
    breaks_order,
    doubt_lone_gaps,
    doubt_marks_in_future_tours,
    doubt_marks_past_empty,
    doubt_next_empty,
    doubt_unsure_before_review,
    gaps,
    settle,
)

TRACK = ("promotion.1", "promotion.2", "promotion.3", "promotion.4", "promotion.5")
MISSION = ("mission.aid.1", "mission.aid.2", "mission.aid.3")
TOURS = tours_with_missions(load_rules())


def sure(state: str, confidence: float = 1.0) -> Mark:
    return Mark(state, confidence, state)


def unsure(likely: str, doubt: str = INK, why: str = "a little ink: a light mark?") -> Mark:
    return Mark(REVIEW, 0.35, likely, why, {}, doubt)


STRAY = "ink only at the box's edge: a stray from outside?"


def test_the_tracks_are_the_ones_the_validator_orders() -> None:
    tracks = ordered_tracks(load_rules())
    firsts = {t[0] for t in tracks}
    assert {"tour.1", "promotion.1", "discipline.1", "clone.1", "mission.aid.1"} <= firsts
    assert all(not rid.startswith("tour.") or ".mission." not in rid for t in tracks for rid in t)
    every = {r.id for r in regions(load_rules())}
    assert all(rid in every for t in tracks for rid in t)
    assert all(int(t[k].rsplit(".", 1)[1]) == k + 1 for t in tracks for k in range(len(t)))


def test_a_little_ink_before_a_sure_mark_is_a_mark() -> None:
    marks = {TRACK[0]: sure(CHECKED), TRACK[1]: unsure(CHECKED), TRACK[2]: sure(CHECKED),
             TRACK[3]: sure(EMPTY), TRACK[4]: sure(EMPTY)}
    assert settle(marks, [TRACK]) == [TRACK[1]]
    assert marks[TRACK[1]].state == CHECKED
    assert "promotion.3 after it is marked" in marks[TRACK[1]].why


def test_a_little_ink_after_a_sure_empty_box_is_empty() -> None:
    marks = {TRACK[0]: sure(CHECKED), TRACK[1]: sure(EMPTY), TRACK[2]: sure(EMPTY),
             TRACK[3]: unsure(EMPTY), TRACK[4]: sure(EMPTY)}
    assert settle(marks, [TRACK]) == [TRACK[3]]
    assert marks[TRACK[3]].state == EMPTY


def test_a_little_ink_leaning_empty_before_a_sure_mark_is_a_mark() -> None:
    # the palest pencil over a printed number: too little ink to lean to a mark, but an
    # empty box there would be a gap in the track
    marks = {TRACK[0]: sure(CHECKED), TRACK[1]: unsure(EMPTY), TRACK[2]: sure(CHECKED)}
    assert settle(marks, [TRACK]) == [TRACK[1]]
    assert marks[TRACK[1]].state == CHECKED and marks[TRACK[1]].likely == CHECKED


def test_the_order_never_overrules_other_ink() -> None:
    # a little ink leaning to a mark after a sure empty box: the order does not decide it
    marks = {TRACK[0]: sure(CHECKED), TRACK[1]: sure(CHECKED), TRACK[2]: sure(CHECKED),
             TRACK[3]: sure(EMPTY), TRACK[4]: unsure(CHECKED)}
    assert settle(marks, [TRACK]) == []
    assert marks[TRACK[4]].state == REVIEW


def test_ink_at_the_edge_before_a_sure_mark_is_a_mark() -> None:
    """A tick drawn low in its box leaves its ink at the edge (seed 251, clean 5): between
    sure marks on a track read in order it is a mark, not a stray (session 28)."""
    marks = {TRACK[0]: sure(CHECKED), TRACK[1]: unsure(EMPTY, why=STRAY),
             TRACK[2]: sure(CHECKED), TRACK[3]: sure(EMPTY), TRACK[4]: unsure(EMPTY, why=STRAY)}
    assert settle(marks, [TRACK]) == [TRACK[1], TRACK[4]]
    assert marks[TRACK[1]].state == CHECKED and marks[TRACK[4]].state == EMPTY


def test_the_box_after_the_last_mark_stays_in_review() -> None:
    marks = {TRACK[0]: sure(CHECKED), TRACK[1]: sure(CHECKED), TRACK[2]: unsure(CHECKED),
             TRACK[3]: unsure(EMPTY)}
    assert settle(marks, [TRACK]) == []


def test_only_a_doubt_about_ink_is_settled() -> None:
    marks = {TRACK[0]: unsure(CHECKED, doubt=""), TRACK[1]: sure(CHECKED)}
    assert settle(marks, [TRACK]) == []


def test_a_weak_reading_settles_nothing() -> None:
    marks = {TRACK[0]: unsure(CHECKED), TRACK[1]: sure(CHECKED, confidence=0.6)}
    assert settle(marks, [TRACK]) == []
    marks = {TRACK[0]: sure(EMPTY, confidence=0.57), TRACK[1]: unsure(EMPTY)}
    assert settle(marks, [TRACK]) == []


def test_an_executed_box_is_settled_only_as_empty() -> None:
    marks = {MISSION[0]: unsure(CHECKED), MISSION[1]: sure(SLASHED), MISSION[2]: sure(EMPTY)}
    assert settle(marks, [MISSION]) == []
    marks = {MISSION[0]: sure(SLASHED), MISSION[1]: sure(EMPTY), MISSION[2]: unsure(EMPTY)}
    assert settle(marks, [MISSION]) == [MISSION[2]]


def test_a_sheet_out_of_order_anywhere_has_nothing_settled() -> None:
    scrambled = {MISSION[0]: sure(EMPTY), MISSION[1]: sure(CHECKED)}
    marks = {TRACK[0]: unsure(CHECKED), TRACK[1]: sure(CHECKED), **scrambled}
    assert breaks_order(marks, [TRACK, MISSION])
    assert settle(marks, [TRACK, MISSION]) == []


def test_on_a_sheet_of_light_marks_an_empty_box_settles_nothing() -> None:
    marks = {TRACK[0]: sure(CHECKED), TRACK[1]: sure(EMPTY), TRACK[2]: unsure(EMPTY),
             TRACK[3]: unsure(CHECKED), TRACK[4]: sure(EMPTY)}
    assert settle(marks, [TRACK], trust_empty=False) == []


STATES = st.sampled_from([CHECKED, SLASHED, EMPTY, REVIEW])


@given(st.lists(st.tuples(STATES, STATES, st.floats(0, 1), st.booleans()), min_size=5,
                max_size=5))
def test_settling_never_breaks_the_order_nor_touches_a_sure_box(
        boxes: list[tuple[str, str, float, bool]]) -> None:
    marks = {rid: (Mark(s, c, s) if s != REVIEW
                   else unsure(likely if likely != REVIEW else EMPTY,
                               why="a little ink: a light mark?" if inside else STRAY))
             for rid, (s, likely, c, inside) in zip(TRACK, boxes, strict=True)}
    before = dict(marks)
    was_ordered = not breaks_order(marks, [TRACK])
    done = settle(marks, [TRACK])
    for rid in TRACK:
        if rid in done:
            b = before[rid]
            assert b.state == REVIEW and marks[rid].state in (CHECKED, EMPTY)
            assert marks[rid].state == b.likely or (
                marks[rid].state == CHECKED and b.why.startswith(("a little ink:", STRAY)))
        else:
            assert marks[rid] is before[rid]
    if was_ordered:
        assert not breaks_order(marks, [TRACK])


def test_a_lone_gap_goes_to_review() -> None:
    # a slash too light to show before a sure mark, on a sheet read in order elsewhere
    marks = {MISSION[0]: sure(EMPTY), MISSION[1]: sure(CHECKED), MISSION[2]: sure(EMPTY),
             TRACK[0]: sure(CHECKED), TRACK[1]: unsure(CHECKED), TRACK[2]: sure(CHECKED)}
    assert gaps(marks, [TRACK, MISSION]) == [(MISSION[0], MISSION[1])]
    assert settle(marks, [TRACK, MISSION]) == []  # (the pipeline settles first)
    assert doubt_lone_gaps(marks, [TRACK, MISSION]) == [MISSION[0]]
    m = marks[MISSION[0]]
    assert (m.state, m.likely, m.doubt) == (REVIEW, EMPTY, INK)
    assert "mission.aid.2 after it is marked" in m.why
    assert marks[TRACK[1]].state == REVIEW


def test_a_bare_gap_on_a_plain_sheet_is_the_players_skip() -> None:
    """On a sheet as quiet as a scan whose marks are dark (`plain`), a gap box with no ink
    and almost no faint ink holds no missed mark: it stays empty and the validator reports
    the gap. A gap with faint ink, or any gap on another sheet, is still a review."""
    def gap_sheet(faint: float) -> dict[str, Mark]:
        bare = Mark(EMPTY, 1.0, EMPTY, "", {"ink": 0.0, "faint": faint})
        return {TRACK[0]: sure(CHECKED), TRACK[1]: bare, TRACK[2]: sure(CHECKED)}

    marks = gap_sheet(0.004)
    assert doubt_lone_gaps(marks, [TRACK], plain=True) == []
    assert marks[TRACK[1]].state == EMPTY
    assert doubt_lone_gaps(gap_sheet(0.004), [TRACK]) == [TRACK[1]]
    assert doubt_lone_gaps(gap_sheet(BARE_FAINT), [TRACK], plain=True) == [TRACK[1]]
    unmeasured = {TRACK[0]: sure(CHECKED), TRACK[1]: sure(EMPTY), TRACK[2]: sure(CHECKED)}
    assert doubt_lone_gaps(unmeasured, [TRACK], plain=True) == [TRACK[1]]


def test_the_next_box_after_a_track_s_last_mark_needs_the_model_sure_it_is_empty() -> None:
    """1669 phone 5: pencil ticks in promotion.60 and the third Siege box, each just after
    its track's last mark, read empty (0.71, 0.8) and the learned second look less sure
    than usual (0.98, 0.91): silent errors until session 58. The next box in a track's
    order is where a missed mark is likeliest; a box further on is left to the order."""
    def read_empty(p: float) -> Mark:
        return Mark(EMPTY, 0.7, EMPTY, "", {"ink": 0.0, "faint": 0.01, "audit_p": p})

    marks = {TRACK[0]: sure(CHECKED), TRACK[1]: read_empty(0.98), TRACK[2]: read_empty(0.9),
             MISSION[0]: sure(SLASHED), MISSION[1]: read_empty(NEXT_EMPTY_DOUBT),
             MISSION[2]: read_empty(0.5)}
    assert doubt_next_empty(marks, [TRACK, MISSION]) == [TRACK[1]]
    m = marks[TRACK[1]]
    assert (m.state, m.likely, m.doubt) == (REVIEW, EMPTY, INK)
    assert "after promotion.1's mark" in m.why and "empty 0.980" in m.why
    assert marks[TRACK[2]].state == EMPTY  # (not next: the order leaves it)
    assert marks[MISSION[1]].state == EMPTY  # (the model sure enough)
    untouched = {TRACK[0]: read_empty(FIRST_EMPTY_DOUBT), TRACK[1]: read_empty(0.5)}
    assert doubt_next_empty(untouched, [TRACK]) == []  # (no mark: the first box is next)
    last = {rid: sure(CHECKED) for rid in MISSION}  # (the track full: no next box)
    assert doubt_next_empty(last, [MISSION]) == []
    settled = {TRACK[0]: sure(CHECKED),
               TRACK[1]: Mark(EMPTY, 0.6, EMPTY, "settled by the rest of the page: empty",
                              {"audit_p": 0.9})}  # (the page decided it: 101 phone 91)
    assert doubt_next_empty(settled, [TRACK]) == []


def test_a_track_with_no_mark_read_has_its_first_box_doubted_at_a_lower_bar() -> None:
    """1631 phone 59 and 1637 phone 80: a pencil cross in the first Aid box and a tick in
    the first Computer level, their tracks' only marks, read empty (the model 0.986, 0.939): silent
    errors until session 60. Most tracks are left empty, so the bar is lower than after a
    mark (FIRST_EMPTY_DOUBT < NEXT_EMPTY_DOUBT): 0.99 sends a first box there to review,
    not one the model gives 0.992, which it would after a mark."""
    def read_empty(p: float) -> Mark:
        return Mark(EMPTY, 0.7, EMPTY, "", {"ink": 0.0, "faint": 0.002, "audit_p": p})

    assert FIRST_EMPTY_DOUBT < NEXT_EMPTY_DOUBT
    marks = {MISSION[0]: read_empty(0.986), MISSION[1]: read_empty(0.5),
             TRACK[0]: read_empty(0.992), TRACK[1]: read_empty(0.5)}
    assert doubt_next_empty(marks, [MISSION, TRACK]) == [MISSION[0]]
    m = marks[MISSION[0]]
    assert (m.state, m.likely, m.doubt) == (REVIEW, EMPTY, INK)
    assert "the first box of its track" in m.why and "empty 0.986" in m.why
    assert marks[MISSION[1]].state == EMPTY  # (only the first box: the order leaves the rest)
    assert marks[TRACK[0]].state == EMPTY
    after = {TRACK[0]: sure(CHECKED), TRACK[1]: read_empty(0.992)}
    assert doubt_next_empty(after, [TRACK]) == [TRACK[1]]
    cancelled = {MISSION[0]: Mark("cancelled", 0.9, "cancelled"), MISSION[1]: read_empty(0.5)}
    assert doubt_next_empty(cancelled, [MISSION]) == []  # (a cancelled first box is not empty)


TWENTY = tuple(f"promotion.{i}" for i in range(1, 21))


def test_a_sheet_filled_out_of_order_keeps_its_gaps() -> None:
    marks = {rid: sure(CHECKED if i % 3 == 2 else EMPTY) for i, rid in enumerate(TWENTY)}
    assert len(gaps(marks, [TWENTY])) == 12 > MISSED_GAPS
    before = dict(marks)
    assert doubt_lone_gaps(marks, [TWENTY]) == []
    assert marks == before


def test_three_marks_missed_on_a_track_read_in_order_are_reviews() -> None:
    """1469 phone 40: three pencil ticks on the promotion track read empty, the track read
    in order otherwise; silent until session 52 (2 gaps at most were reviewed)."""
    marks = {TRACK[0]: sure(EMPTY), TRACK[1]: sure(CHECKED), TRACK[2]: sure(EMPTY),
             TRACK[3]: sure(EMPTY), TRACK[4]: sure(CHECKED)}
    assert len(gaps(marks, [TRACK])) == 3
    assert doubt_lone_gaps(marks, [TRACK]) == [TRACK[0], TRACK[2], TRACK[3]]
    assert all(marks[rid].state == REVIEW and marks[rid].likely == EMPTY
               for rid in (TRACK[0], TRACK[2], TRACK[3]))
    assert "promotion.5 after it is marked" in marks[TRACK[3]].why


def test_an_unsure_empty_box_before_a_review_leaning_to_a_mark_is_a_review() -> None:
    # 331 phone 66: a pencil tick read empty at 0.6 between two reviews leaning to a mark
    row = ("mission.aid.1", "mission.aid.2", "mission.aid.3", "mission.aid.4")
    marks = {row[0]: sure(CHECKED, 0.6), row[1]: unsure(EMPTY), row[2]: sure(EMPTY, 0.6),
             row[3]: unsure(CHECKED)}
    assert doubt_unsure_before_review(marks, [row]) == [row[2]]
    m = marks[row[2]]
    assert (m.state, m.likely, m.doubt) == (REVIEW, EMPTY, INK)
    assert "mission.aid.4 after it may be marked" in m.why
    assert marks[row[1]].likely == EMPTY and marks[row[0]].state == CHECKED


def test_a_sure_empty_box_or_one_after_the_review_stays() -> None:
    marks = {TRACK[0]: sure(EMPTY), TRACK[1]: sure(EMPTY, 0.9), TRACK[2]: unsure(CHECKED),
             TRACK[3]: sure(EMPTY, 0.5), TRACK[4]: unsure(EMPTY)}
    before = dict(marks)
    assert doubt_unsure_before_review(marks, [TRACK]) == []
    assert marks == before


def test_a_track_of_unsure_empty_boxes_before_a_light_mark_is_the_players_order() -> None:
    # a scrambled sheet: a light mark far along a track of empty boxes doubts none of them
    marks = {TRACK[0]: sure(EMPTY, 0.6), TRACK[1]: sure(EMPTY, 0.7), TRACK[2]: sure(EMPTY, 0.6),
             TRACK[3]: unsure(CHECKED), TRACK[4]: sure(EMPTY)}
    before = dict(marks)
    assert doubt_unsure_before_review(marks, [TRACK]) == []
    assert marks == before


@given(st.lists(st.tuples(st.sampled_from([CHECKED, EMPTY, REVIEW]), st.floats(0.3, 1.0),
                          st.sampled_from([CHECKED, EMPTY])), min_size=5, max_size=5))
def test_only_unsure_empty_boxes_before_a_review_leaning_to_a_mark_are_doubted(
        boxes: list[tuple[str, float, str]]) -> None:
    marks = {rid: sure(s, c) if s != REVIEW else unsure(likely)
             for rid, (s, c, likely) in zip(TRACK, boxes, strict=True)}
    before = dict(marks)
    done = doubt_unsure_before_review(marks, [TRACK])
    leaning = [i for i, rid in enumerate(TRACK)
               if before[rid].state == REVIEW and before[rid].likely == CHECKED]
    expect = [rid for i, rid in enumerate(TRACK) if leaning and i < leaning[-1]
              and before[rid].state == EMPTY and before[rid].confidence < 0.8]
    if len(expect) + len(gaps(before, [TRACK])) > LONE_GAPS:
        expect = []  # (out of order: the player's)
    assert done == expect
    assert all(marks[rid] == before[rid] for rid in TRACK if rid not in done)
    assert all(marks[rid].state == REVIEW and marks[rid].likely == EMPTY for rid in done)


@given(st.lists(st.sampled_from([CHECKED, SLASHED, EMPTY, REVIEW]), min_size=20, max_size=20))
def test_doubting_lone_gaps_leaves_a_sheet_in_order_or_untouched(states: list[str]) -> None:
    marks = {rid: sure(s) if s != REVIEW else unsure(EMPTY)
             for rid, s in zip(TWENTY, states, strict=True)}
    before = dict(marks)
    done = doubt_lone_gaps(marks, [TWENTY])
    if len(gaps(before, [TWENTY])) <= MISSED_GAPS:
        assert not breaks_order(marks, [TWENTY]) and gaps(marks, [TWENTY]) == []
        assert all(before[rid].state == EMPTY and marks[rid].state == REVIEW for rid in done)
    else:
        assert done == [] and marks == before


def test_a_faint_line_after_a_sure_empty_box_is_empty_and_right_after_the_marks_stays() -> None:
    """scanner.faintline's reviews are a doubt of ink, likely empty: one after a sure empty
    box on its track is settled empty (most of the noise's false alarms), one right after
    the track's last mark (where a slash too faint to show would be) stays in review."""
    line = unsure(EMPTY, why=FAINT_LINE_WHY)
    marks = {MISSION[0]: sure(SLASHED), MISSION[1]: sure(EMPTY), MISSION[2]: line}
    assert settle(marks, [MISSION]) == [MISSION[2]]
    assert marks[MISSION[2]].state == EMPTY
    marks = {MISSION[0]: sure(SLASHED), MISSION[1]: line, MISSION[2]: sure(EMPTY)}
    assert settle(marks, [MISSION]) == []
    assert marks[MISSION[1]].state == REVIEW


def in_print(state: str = CHECKED) -> Mark:
    return Mark(state, 0.6, state, LIKE_MARKS_WHY)


LONG = tuple(f"promotion.{k}" for k in range(1, 9))


def test_a_mark_of_ink_in_the_print_past_sure_empty_boxes_is_a_review() -> None:
    marks = {rid: sure(EMPTY) for rid in LONG}
    marks[LONG[0]] = sure(CHECKED)
    marks[LONG[6]] = in_print()
    assert breaks_order(marks, [LONG])
    assert doubt_marks_past_empty(marks, [LONG]) == [LONG[6]]
    m = marks[LONG[6]]
    assert (m.state, m.likely, m.doubt) == (REVIEW, CHECKED, INK)
    assert LONG[1] in m.why
    assert not breaks_order(marks, [LONG])
    assert settle(marks, [LONG]) == []  # (likely a mark: the order does not overrule it)
    assert marks[LONG[6]].state == REVIEW


def test_only_a_mark_of_light_evidence_is_doubted_by_the_order() -> None:
    """Ink in the print, and since session 41 a faint stroke (439 phone 84: an empty
    promotion box 22 read as a faint mark from its outline's residue, twenty boxes past the
    track's last mark); a mark read from its ink's full measure is left alone, however
    unsure."""
    marks = {rid: sure(EMPTY) for rid in LONG}
    marks[LONG[0]] = sure(CHECKED)
    marks[LONG[4]] = Mark(CHECKED, 0.65, CHECKED, FAINT_MARK_WHY)
    marks[LONG[5]] = sure(CHECKED, 0.7)
    marks[LONG[7]] = in_print()
    before = dict(marks)
    assert doubt_marks_past_empty(marks, [LONG]) == [LONG[4], LONG[7]]
    assert marks[LONG[4]].why == ("a light mark, but promotion.2 before it is empty: a light "
                                  "mark out of order, or the photo's noise?")
    assert marks[LONG[7]].why.startswith("a little ink in the print read as a mark, but")
    assert {k: v for k, v in marks.items() if k not in (LONG[4], LONG[7])} == {
        k: v for k, v in before.items() if k not in (LONG[4], LONG[7])}


@pytest.mark.parametrize(("quiet", "p", "doubted"), [
    (True, 0.99, False),  # a quiet sheet, the model sure of the mark: the player's order
    (True, 0.9, True),  # ... less sure than would settle a review there
    (False, 1.0, True),  # a photo: its noise makes such marks, whatever the model says
])
def test_on_a_quiet_sheet_a_light_mark_the_model_is_sure_of_stays_past_empty_boxes(
        quiet: bool, p: float, doubted: bool) -> None:
    """Session 59: 1627 clean 33, 1697 clean 66 and 1747 scan-300 65, scrambled sheets in
    pencil, each had a light mark past three empty boxes sent to review, the model giving
    it 0.99-1.0; on 3,630 scans and clean renders no other mark was doubted so. Session 62
    kept it on quiet sheets of light marks too (2011 clean 64, 1913 scan-300 45)."""
    marks = {rid: sure(EMPTY) for rid in LONG}
    marks[LONG[0]] = sure(CHECKED)
    marks[LONG[4]] = Mark(CHECKED, 0.65, CHECKED, FAINT_MARK_WHY, {"audit_p": p})
    assert doubt_marks_past_empty(marks, [LONG], quiet=quiet) == ([LONG[4]] if doubted else [])
    assert (marks[LONG[4]].state == REVIEW) == doubted


def test_past_a_lone_gap_a_mark_of_ink_in_the_print_stays_and_the_gap_is_doubted() -> None:
    """One or two empty boxes before it: a mark missed there is as likely (seed 211 phone
    0: a pencil tick read empty at 0.95, then a light mark in the print)."""
    marks = {rid: sure(EMPTY) for rid in LONG}
    marks[LONG[0]] = sure(CHECKED)
    marks[LONG[3]] = in_print()  # after two empty boxes
    assert doubt_marks_past_empty(marks, [LONG]) == []
    assert doubt_lone_gaps(marks, [LONG]) == [LONG[1], LONG[2]]
    assert marks[LONG[3]].state == CHECKED


def test_a_mark_of_ink_in_the_print_is_left_alone_where_the_player_broke_the_order() -> None:
    marks = {rid: sure(EMPTY) for rid in LONG}
    marks[LONG[0]] = sure(CHECKED)
    marks[LONG[4]] = sure(CHECKED)  # after three empty boxes, read for sure
    marks[LONG[7]] = in_print()
    assert doubt_marks_past_empty(marks, [LONG]) == []
    marks = {TRACK[0]: sure(CHECKED), TRACK[1]: in_print(), TRACK[2]: sure(EMPTY)}
    assert doubt_marks_past_empty(marks, [TRACK]) == []  # (before the empty box: in order)


def test_a_light_mark_above_a_tour_not_yet_reached_is_a_review() -> None:
    """Tour 10 surely not checked off: a faint mark above tour 11 breaks the rules
    (missions-in-future-tour), so it is the photo's noise as likely as a mark (seed 283
    phone 9: JPEG blotches on a dim photo read as a faint tick)."""
    faint = Mark(CHECKED, 0.65, CHECKED, FAINT_MARK_WHY)
    marks = {"tour.10": sure(EMPTY), "tour.11.mission.4": faint, "tour.9": sure(CHECKED),
             "tour.10.mission.2": Mark(CHECKED, 0.65, CHECKED, FAINT_MARK_WHY),
             "tour.10.mission.1": sure(CHECKED)}
    assert doubt_marks_in_future_tours(marks, TOURS) == ["tour.11.mission.4"]
    m = marks["tour.11.mission.4"]
    assert (m.state, m.likely, m.doubt) == (REVIEW, CHECKED, INK)
    assert "tour 10 is not checked off" in m.why
    assert marks["tour.10.mission.2"].state == CHECKED  # tour 9 is checked off


def test_a_light_mark_above_a_tour_is_kept_when_the_tour_before_is_in_doubt() -> None:
    for before in (unsure(CHECKED), sure(EMPTY, 0.6), sure(CHECKED)):
        marks = {"tour.2": before, "tour.3.mission.1": Mark(CHECKED, 0.6, CHECKED, "")}
        assert doubt_marks_in_future_tours(marks, TOURS) == []
    first = {"tour.1.mission.1": Mark(CHECKED, 0.6, CHECKED, "")}  # no tour before the first
    assert doubt_marks_in_future_tours(first, TOURS) == []


def test_light_marks_out_of_turn_are_left_where_the_player_marks_out_of_turn() -> None:
    """A sure mark above a tour whose tour before is surely empty: the player's own order
    (a bench sheet filled against the rules, seed 21 phone 84, had seven light marks read
    right there), which the validator reports; nothing is doubted on that sheet."""
    light = Mark(CHECKED, 0.65, CHECKED, FAINT_MARK_WHY)
    marks = {"tour.3": sure(EMPTY), "tour.4.mission.1": sure(CHECKED), "tour.9": sure(EMPTY),
             "tour.10.mission.1": light}
    assert doubt_marks_in_future_tours(marks, TOURS) == []
    assert marks["tour.10.mission.1"] is light


def test_each_tour_comes_with_the_mission_boxes_above_it() -> None:
    tours = tours_with_missions(load_rules())
    assert tours[0] == ("tour.1", tuple(f"tour.1.mission.{k}" for k in range(1, 5)))
    assert [t for t, _ in tours] == [f"tour.{t}" for t in range(1, len(tours) + 1)]
    every = {r.id for r in regions(load_rules())}
    assert all(rid in every for _, ids in tours for rid in ids)
