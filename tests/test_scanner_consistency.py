"""Review boxes settled by the rest of the career page (scanner.consistency)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.opial.marks import meaning, state_to_marks
from game.opial.rules import load_rules
from game.opial.simulate import random_states
from scanner.consistency import (
    INK_ALONE,
    MAX_READINGS,
    MAX_SUSPECTS,
    SHAPE_WHY,
    candidates,
    doubt_by_rules,
    doubt_named_missing,
    findings,
    settle_by_rules,
    shape_by_models,
)
from scanner.marks import CANCELLED, CHECKED, EMPTY, INK, OUTLINE_WHY, REVIEW, SLASHED, Mark

RULES = load_rules()
STATES = random_states(60, seed=5)
SHAPE = "one stroke or two? (a slash, or a tick with a short arm?)"
LITTLE = "a little ink: a light mark, an erasure or a stray?"


def read(state_index: int) -> dict[str, Mark]:
    """An honest page read surely, box by box."""
    values = state_to_marks(STATES[state_index], RULES)
    return {rid: Mark(str(v), 1.0, str(v)) for rid, v in values.items()
            if isinstance(v, str) and not rid.startswith(("name", "score."))}


def executed(marks: dict[str, Mark], *states: str) -> list[str]:
    return [rid for rid, m in marks.items() if rid.startswith("mission.") and m.state in states]


def test_a_shape_in_doubt_is_never_empty_and_its_likely_comes_first() -> None:
    assert candidates("mission.aid.1", Mark(REVIEW, 0.4, SLASHED, SHAPE)) == (SLASHED, CHECKED)
    assert candidates("mission.aid.1", Mark(REVIEW, 0.4, EMPTY, LITTLE, {}, INK)) == (
        EMPTY, CHECKED, SLASHED)
    assert candidates("promotion.3", Mark(REVIEW, 0.4, CHECKED, LITTLE, {}, INK)) == (
        CHECKED, EMPTY)
    correction = "box filled, with ink around it: coloured in (checked) or filled and " \
                 "scribbled over (cancelled)?"
    assert candidates("medal.valor.1", Mark(REVIEW, 0.4, CANCELLED, correction)) == (
        CANCELLED, CHECKED)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, len(STATES) - 1), st.integers(0, 10_000), st.integers(1, 3))
def test_an_honest_page_never_settles_a_box_wrong(index: int, seed: int, doubts: int) -> None:
    """Up to three boxes of an honest page in doubt, each likely either way: whatever is
    settled is settled to the truth."""
    marks = read(index)
    rng = random.Random(seed)
    truth = {rid: m.state for rid, m in marks.items()}
    pool = executed(marks, CHECKED, SLASHED) + [r for r in marks if r.startswith("promotion.")]
    for rid in rng.sample(pool, min(doubts, len(pool))):
        if rid.startswith("mission."):
            likely = rng.choice([CHECKED, SLASHED])
            marks[rid] = Mark(REVIEW, 0.4, likely, SHAPE)
        else:
            likely = rng.choice([CHECKED, EMPTY])
            marks[rid] = Mark(REVIEW, 0.4, likely, LITTLE, {}, INK)
    for rid in settle_by_rules(marks, RULES):
        assert meaning(rid, marks[rid].state) == meaning(rid, truth[rid])
        assert marks[rid].likely == marks[rid].state
        assert "settled by the rest of the page" in marks[rid].why


def test_a_slash_in_doubt_is_settled_by_the_promotion_track_and_skills() -> None:
    index = next(i for i in range(len(STATES)) if executed(read(i), SLASHED))
    marks = read(index)
    rid = executed(marks, SLASHED)[0]
    marks[rid] = Mark(REVIEW, 0.45, CHECKED, SHAPE)
    assert settle_by_rules(marks, RULES) == [rid]
    assert marks[rid].state == SLASHED
    assert "read as a success, the page says promotion-unchecked" in marks[rid].why


def test_a_success_in_doubt_is_settled_too() -> None:
    marks = read(0)
    rid = executed(marks, CHECKED)[0]
    marks[rid] = Mark(REVIEW, 0.45, SLASHED, SHAPE)
    assert settle_by_rules(marks, RULES) == [rid]
    assert marks[rid].state == CHECKED


def test_a_page_that_disagrees_with_itself_settles_nothing() -> None:
    marks = read(0)
    rid = executed(marks, CHECKED)[0]
    marks[rid] = Mark(REVIEW, 0.45, SLASHED, SHAPE)
    top = max(int(r.split(".")[1]) for r, m in marks.items()
              if r.startswith("promotion.") and m.state == CHECKED)
    marks[f"promotion.{top + 2}"] = Mark(CHECKED, 1.0, CHECKED)  # a player's slip
    assert settle_by_rules(marks, RULES) == []
    assert marks[rid].state == REVIEW


def test_a_visible_mark_is_not_talked_away_by_a_slip_elsewhere() -> None:
    """A mark whose shape is in doubt, on a page whose tour tick for it was forgotten:
    only "empty" would make the page agree, and a visible mark is never read empty."""
    discipline = {f"mission.{m.id}." for m in RULES.missions if m.discipline}
    for index in range(len(STATES)):
        marks = read(index)
        last = [r for r in executed(marks, SLASHED) if not r.startswith(tuple(discipline))
                and marks.get(r[:-1] + str(int(r[-1]) + 1), Mark(EMPTY, 1, EMPTY)).state == EMPTY]
        if last:
            break
    rid = last[0]
    ticks = [r for r, m in marks.items() if ".mission." in r and m.state == CHECKED]
    marks[ticks[-1]] = Mark(EMPTY, 1.0, EMPTY)
    marks[rid] = Mark(REVIEW, 0.45, SLASHED, SHAPE)
    assert settle_by_rules(marks, RULES) == []
    marks[rid] = Mark(REVIEW, 0.45, EMPTY, LITTLE, {}, INK)  # (where a mark may be empty,
    assert settle_by_rules(marks, RULES) == [rid]  # the slip does decide: the test can fail)
    assert marks[rid].state == EMPTY


def test_a_little_ink_in_an_executed_box_gets_its_shape_from_the_page() -> None:
    marks = read(0)
    rid = executed(marks, SLASHED)[-1] if executed(marks, SLASHED) else executed(marks, CHECKED)[-1]
    truth = marks[rid].state
    other = CHECKED if truth == SLASHED else SLASHED
    marks[rid] = Mark(REVIEW, 0.35, other, LITTLE, {}, INK)
    assert settle_by_rules(marks, RULES) == [rid]
    assert marks[rid].state == truth


def test_the_page_reads_a_little_ink_as_a_mark_but_never_a_mark_as_nothing() -> None:
    """A box with a little ink leaning empty is the mark the page needs there (the tally,
    the promotion track); a box whose ink leans to a mark is never settled as empty, even
    where the page would agree only so (a light extra tick is the player's, for the
    validator)."""
    marks = read(0)
    rid = executed(marks, CHECKED)[-1]
    marks[rid] = Mark(REVIEW, 0.35, EMPTY, LITTLE, {}, INK)
    assert settle_by_rules(marks, RULES) == [rid]
    assert marks[rid].state == CHECKED
    extra = next(r for r, m in marks.items() if r.startswith("discipline.") and m.state == EMPTY)
    marks = read(0)
    marks[extra] = Mark(REVIEW, 0.35, CHECKED, LITTLE, {}, INK)
    assert settle_by_rules(marks, RULES) == []
    marks[extra] = Mark(REVIEW, 0.35, EMPTY, LITTLE, {}, INK)
    assert settle_by_rules(marks, RULES) == [extra]
    correction = "box filled, with ink around it: coloured in (checked) or filled and " \
                 "scribbled over (cancelled)?"
    marks = read(0)
    top = max(int(r.split(".")[1]) for r, m in marks.items()
              if r.startswith("promotion.") and m.state == CHECKED)
    marks[f"promotion.{top}"] = Mark(REVIEW, 0.45, CANCELLED, correction)
    assert settle_by_rules(marks, RULES) == []  # the page needs it coloured in: not decided


def either_shape(may_be_empty: bool = False) -> tuple[dict[str, Mark], str, str]:
    """A page, an Executed box on it whose success and failure both agree with the rest of
    the page (a capped promotion track, a skill at its last level), and a tour tick;
    `may_be_empty`: one where the box and that tick both left empty agree too."""
    for index in range(len(STATES)):
        marks = read(index)
        values: dict[str, str | int | None] = {rid: m.state for rid, m in marks.items()}
        for rid in executed(marks, CHECKED, SLASHED):
            truth = marks[rid].state
            tour = next(r for r, m in marks.items() if ".mission." in r and m.state == CHECKED)
            values[rid] = CHECKED if truth == SLASHED else SLASHED
            either = not findings(values, RULES)
            values[rid], values[tour] = EMPTY, EMPTY
            empty = not findings(values, RULES)
            values[rid], values[tour] = truth, CHECKED
            if either and empty == may_be_empty:
                return marks, rid, tour
    raise AssertionError("no such page")


def models(tick: float, success: float) -> dict[str, float]:
    """What scanner.marks.sheet._models_opinion records on a box left a review."""
    return {"models_tick_p": tick, "models_success_p": success}


@pytest.mark.parametrize(("tick", "success", "want"), [
    (0.9995, 0.9991, CHECKED), (0.0004, 0.009, SLASHED), (0.0, 0.014, SLASHED),
    (0.01, 0.035, None), (0.99938, 0.99897, None),
    (0.995, 0.6, None), (0.0, 0.2, None), (0.2, 0.0, None)])
def test_a_mark_the_page_needs_either_way_takes_the_shape_both_models_see(
        tick: float, success: float, want: str | None) -> None:
    """A mark left a review for its shape on a page that needs a mark there and agrees
    with a success and a failure alike: both models' word, where they agree all but
    surely (SHAPE_TICK, SHAPE_SLASH), is its shape; else it stays a review."""
    marks, rid, _ = either_shape()
    marks[rid] = Mark(REVIEW, 0.4, SLASHED, SHAPE, models(tick, success))
    assert shape_by_models(rid, marks[rid]) == want
    assert settle_by_rules(marks, RULES) == ([rid] if want else [])
    if want:
        assert marks[rid].state == want
        assert SHAPE_WHY in marks[rid].why and marks[rid].why.endswith(INK_ALONE + SHAPE)


@pytest.mark.parametrize(("tick", "success", "want"), [
    (0.9995, 0.9991, CHECKED), (0.0004, 0.009, None), (0.0, 0.014, None), (0.5, 0.5, None)])
def test_a_little_ink_the_page_needs_is_a_tick_by_its_shape_never_a_slash(
        tick: float, success: float, want: str | None) -> None:
    """A box left a review for whether it holds ink at all, on a page that needs a mark
    there either way: two arms seen are a tick, but one stroke may be a cross or tick
    whose other arm is too light to show (1133 scan-150 3, 1469 phone 55: a cross lost
    its right half under the printed "+1"), so it stays a review."""
    marks, rid, _ = either_shape()
    marks[rid] = Mark(REVIEW, 0.4, EMPTY, LITTLE, models(tick, success), INK)
    assert shape_by_models(rid, marks[rid]) == want
    assert settle_by_rules(marks, RULES) == ([rid] if want else [])
    assert marks[rid].state == (want or REVIEW)
    if want:
        assert marks[rid].why.endswith(INK_ALONE + LITTLE)


def test_the_models_never_say_whether_a_box_holds_a_mark() -> None:
    """Their word is on a mark's shape only: a box they did not look at (no recorded
    opinion), one outside the Executed boxes, or one the page lets be empty (a tour tick in
    doubt too, the tally then agreeing without either) is not settled by them."""
    marks, rid, _ = either_shape()
    marks[rid] = Mark(REVIEW, 0.4, EMPTY, LITTLE, {}, INK)
    assert settle_by_rules(marks, RULES) == []
    assert shape_by_models("promotion.3", Mark(REVIEW, 0.4, EMPTY, LITTLE, models(1, 1),
                                               INK)) is None
    marks, rid, tour = either_shape(may_be_empty=True)
    marks[rid] = Mark(REVIEW, 0.4, EMPTY, LITTLE, models(1.0, 1.0), INK)
    marks[tour] = Mark(REVIEW, 0.4, EMPTY, LITTLE, {}, INK)
    assert rid not in settle_by_rules(marks, RULES)
    assert marks[rid].state == REVIEW


def test_a_box_whose_outline_was_not_found_is_a_mark_only_where_the_page_says_so() -> None:
    """A plain box's ink may be a neighbour's, so empty is a reading too: the page settles
    it as the mark it leans to where only that agrees, and never talks it away (83
    scan-150 1)."""
    marks = read(0)
    rid = next(r for r, m in marks.items() if r.startswith("skill.") and m.state == CHECKED)
    marks[rid] = Mark(REVIEW, 0.3, CHECKED, OUTLINE_WHY)
    assert candidates(rid, marks[rid]) == (CHECKED, EMPTY)
    assert candidates("mission.aid.1", Mark(REVIEW, 0.3, CHECKED, OUTLINE_WHY)) == (
        CHECKED, SLASHED)  # (an Executed box keeps to its shape: measured, session 38)
    assert settle_by_rules(marks, RULES) == [rid]
    assert marks[rid].state == CHECKED
    empty = next(r for r, m in read(0).items() if r.startswith("discipline.") and m.state == EMPTY)
    marks = read(0)
    marks[empty] = Mark(REVIEW, 0.3, CHECKED, OUTLINE_WHY)
    assert settle_by_rules(marks, RULES) == []


def test_boxes_whose_outline_was_not_found_keep_to_their_ink_on_a_crowded_page() -> None:
    """Ten such boxes would make over MAX_READINGS readings with empty among their values:
    the page then takes them as their ink shows, and still settles the rest (a 640x480
    photo, 0 phone-vga 15)."""
    marks = read(0)
    plain = [r for r, m in marks.items() if r.startswith(("skill.", "medal.", "tour."))
             and ".mission." not in r and m.state == CHECKED][:10]
    assert len(plain) == 10 and 2 ** len(plain) > MAX_READINGS
    for rid in plain:
        marks[rid] = Mark(REVIEW, 0.3, CHECKED, OUTLINE_WHY)
    rid = executed(marks, CHECKED)[-1]
    marks[rid] = Mark(REVIEW, 0.35, EMPTY, LITTLE, {}, INK)
    assert settle_by_rules(marks, RULES) == [rid]


def test_too_many_doubts_settle_nothing() -> None:
    marks = read(0)
    ids = [r for r in marks if r.startswith("promotion.")][:10]
    assert 2 ** len(ids) > MAX_READINGS
    for rid in ids:
        marks[rid] = Mark(REVIEW, 0.4, CHECKED, LITTLE, {}, INK)
    assert settle_by_rules(marks, RULES) == []


def test_nothing_in_review_is_nothing_settled() -> None:
    marks = read(1)
    before = dict(marks)
    assert settle_by_rules(marks, RULES) == []
    assert marks == before


def test_a_misread_the_page_disagrees_with_goes_to_review() -> None:
    """A slash read (less than surely) as a success: the promotion track and the skills
    disagree, and that reading alone would make them agree."""
    marks = read(0)
    rid = executed(marks, SLASHED)[0]
    marks[rid] = Mark(CHECKED, 0.6, CHECKED)
    assert doubt_by_rules(marks, RULES) == [rid]
    assert marks[rid].state == REVIEW and marks[rid].likely == CHECKED
    assert "adds up only if it is a failure" in marks[rid].why


def test_a_box_the_page_names_as_missing_is_a_review_on_a_sheet_in_review() -> None:
    """A skill level read empty (surely: a mark lost in a shadow) that the page's successes
    grant: on a sheet already left with a box to review it is one too, still read empty;
    on a sheet without reviews it is the player's slip for the validator alone; and a page
    naming more such boxes than MAX_SUSPECTS doubts none."""
    marks = read(0)
    lost = next(r for r, m in marks.items() if r.startswith("skill.") and m.state == CHECKED
                and marks.get(r[:-1] + str(int(r[-1]) + 1), Mark(EMPTY, 1, EMPTY)).state == EMPTY)
    marks[lost] = Mark(EMPTY, 1.0, EMPTY)
    assert doubt_named_missing(marks, RULES) == []  # nothing else in review: a slip
    other = next(r for r, m in marks.items() if r.startswith("tour.") and m.state == CHECKED)
    marks[other] = Mark(REVIEW, 0.4, CHECKED, LITTLE, {}, INK)
    assert doubt_named_missing(marks, RULES) == [lost]
    assert marks[lost].state == REVIEW and marks[lost].likely == EMPTY
    assert "skill-unchecked" in marks[lost].why
    marks = read(0)
    marks[other] = Mark(REVIEW, 0.4, CHECKED, LITTLE, {}, INK)
    top = sorted((int(r.split(".")[1]) for r, m in marks.items()
                  if r.startswith("promotion.") and m.state == CHECKED))[-MAX_SUSPECTS - 1:]
    for n in top:
        marks[f"promotion.{n}"] = Mark(EMPTY, 1.0, EMPTY)
    assert doubt_named_missing(marks, RULES) == []


def test_boxes_the_page_names_only_for_a_review_s_likely_reading_are_left() -> None:
    """A slash in review, likely a tick: read so, the page asks for its promotion points
    and skill level, but read as the slash it may be it asks for nothing (61 scan-300 9)."""
    marks = read(0)
    rid = executed(marks, SLASHED)[0]
    marks[rid] = Mark(REVIEW, 0.45, CHECKED, SHAPE)
    values: dict[str, str | int | None] = {r: m.likely for r, m in marks.items()}
    assert any(f.code in ("promotion-unchecked", "skill-unchecked")
               for f in findings(values, RULES))  # (what the test is about)
    assert doubt_named_missing(marks, RULES) == []


def test_a_finding_about_a_review_box_is_that_review_s() -> None:
    """A skill level in review, likely empty, that the page says is missing: the review
    already names it, and nothing else is doubted for it."""
    marks = read(0)
    rid = next(r for r, m in marks.items() if r.startswith("skill.") and m.state == CHECKED
               and marks.get(r[:-1] + str(int(r[-1]) + 1), Mark(EMPTY, 1, EMPTY)).state == EMPTY)
    marks[rid] = Mark(REVIEW, 0.4, EMPTY, LITTLE, {}, INK)
    assert doubt_named_missing(marks, RULES) == []
    assert marks[rid].why == LITTLE


def test_a_sure_reading_is_not_doubted() -> None:
    marks = read(0)
    rid = executed(marks, SLASHED)[0]
    marks[rid] = Mark(CHECKED, 0.9, CHECKED)
    assert doubt_by_rules(marks, RULES) == []


def test_a_page_that_agrees_or_disagrees_everywhere_doubts_nothing() -> None:
    marks = {rid: Mark(m.state, 0.6, m.likely) for rid, m in read(0).items()}
    assert doubt_by_rules(marks, RULES) == []  # honest, and read so
    scrambled = dict(marks)
    for rid in [r for r in marks if r.startswith("promotion.")][::3]:
        scrambled[rid] = Mark(CHECKED if marks[rid].state == EMPTY else EMPTY, 0.6, EMPTY)
    assert doubt_by_rules(scrambled, RULES) == []


def test_a_review_that_can_make_the_page_agree_spares_the_rest() -> None:
    """Where reading a review box one way makes the page agree, no sure-enough reading is
    doubted: the review already names the box to look at."""
    marks = read(0)
    rid = executed(marks, SLASHED)[0]
    marks[rid] = Mark(REVIEW, 0.45, CHECKED, SHAPE)
    assert doubt_by_rules(marks, RULES) == []


def test_a_page_of_many_doubts_is_left_alone_at_once() -> None:
    """Twenty-five boxes in review on a page that disagrees with itself: no reading is
    enumerated (3^k of them would not fit in memory), nothing doubted or settled."""
    marks = {rid: Mark(m.state, 0.6, m.likely) for rid, m in read(0).items()}
    for rid in [r for r in marks if r.startswith("mission.")][:25]:
        marks[rid] = Mark(REVIEW, 0.35, EMPTY, LITTLE, {}, INK)
    assert doubt_by_rules(marks, RULES) == []
    assert settle_by_rules(marks, RULES) == []
