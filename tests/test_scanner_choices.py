"""One choice per bubble group (scanner.choices)."""

from __future__ import annotations

import pytest

from scanner.choices import (
    SETTLED_WHY,
    SURE_CONFIDENCE,
    UNCHOSEN_WHY,
    doubt_unchosen,
    one_choice,
    settled_notes,
)
from scanner.marks import CHECKED, EMPTY, INK, REVIEW, SETTLED, Mark
from scanner.marks.audit import SETTLE_WHY

GROUPS = {"start": ["start.a", "start.b", "start.c"]}
TRACE = Mark(REVIEW, 0.35, CHECKED, "a little ink: a light mark, an erasure or a stray?",
             {"ink": 0.02}, INK)
DOUBT = "several {} options marked"


def page(**marks: Mark) -> dict[str, Mark]:
    out = {rid: Mark(EMPTY, 1.0, EMPTY, "", {"ink": 0.0}) for rid in GROUPS["start"]}
    out.update({f"start.{k}": m for k, m in marks.items()})
    return out


def sure(confidence: float = 0.95) -> Mark:
    return Mark(CHECKED, confidence, CHECKED, "", {"ink": 0.5})


def test_a_trace_beside_one_sure_choice_is_empty() -> None:
    marks = page(a=sure(), b=TRACE, c=TRACE)
    settled, unmarked = one_choice(marks, GROUPS, DOUBT)
    assert settled == ["start.b", "start.c"] and unmarked == []
    assert marks["start.a"].state == CHECKED
    for rid in settled:
        assert marks[rid].state == EMPTY and marks[rid].why == SETTLED_WHY.format("start.a")


@pytest.mark.parametrize("other", [
    sure(),  # two sure choices: the player's own doubt
    Mark(CHECKED, 0.65, CHECKED, "faint mark", {"ink": 0.1}),  # a light mark, read
    Mark(REVIEW, 0.4, CHECKED, "tick or cross?", {"ink": 0.3}),  # a mark, its shape in doubt
])
def test_a_second_mark_leaves_the_group_in_review(other: Mark) -> None:
    marks = page(a=sure(), b=other)
    settled, _ = one_choice(marks, GROUPS, DOUBT)
    assert settled == []
    assert marks["start.a"].state == marks["start.b"].state == REVIEW
    assert marks["start.a"].likely == CHECKED and marks["start.b"].likely == EMPTY
    assert marks["start.a"].why == "several start options marked"


def test_a_choice_read_less_than_surely_settles_nothing() -> None:
    marks = page(a=sure(SURE_CONFIDENCE - 0.01), b=TRACE)
    assert one_choice(marks, GROUPS, DOUBT)[0] == []
    assert marks["start.a"].state == marks["start.b"].state == REVIEW


def test_a_group_with_nothing_marked_is_named() -> None:
    marks = page(b=Mark(REVIEW, 0.4, EMPTY, "ink only at the edge", {"ink": 0.1}, INK))
    assert one_choice(marks, GROUPS, DOUBT) == ([], ["start"])
    assert marks["start.b"].state == REVIEW  # left as read


def test_one_choice_is_left_as_read() -> None:
    marks = page(a=TRACE)
    assert one_choice(marks, GROUPS, DOUBT) == ([], [])
    assert marks["start.a"] == TRACE


def test_the_note_names_what_was_settled() -> None:
    assert settled_notes([], "box(es)") == []
    assert settled_notes(["start.b", "start.c"], "bubble(s)") == [
        "2 unclear bubble(s) settled by their group's one sure choice: start.b, start.c"]


def settled_empty(ink: float) -> Mark:
    """An option the rules doubted for its ink and the learned second look settled empty."""
    return Mark(EMPTY, 0.6, EMPTY, f"{SETTLE_WHY}: empty (0.9984); the rules: a little ink",
                {"ink": ink}, SETTLED)


@pytest.mark.parametrize(("option", "unmarked", "sent"), [
    (settled_empty(0.027), ["start"], True),  # 2081 scan-300 61: a light tick settled away
    (settled_empty(0.0066), ["start"], False),  # a speck on a photo (1783 phone 67)
    (Mark(EMPTY, 1.0, EMPTY, "", {"ink": 0.023}), ["start"], False),  # the rules' own empty
    (settled_empty(0.027), [], False),  # the group has its choice
])
def test_a_group_left_unchosen_doubts_ink_the_model_settled_away(
        option: Mark, unmarked: list[str], sent: bool) -> None:
    marks = page(c=option)
    assert doubt_unchosen(marks, GROUPS, unmarked) == (["start.c"] if sent else [])
    m = marks["start.c"]
    if sent:
        assert (m.state, m.likely, m.doubt) == (REVIEW, EMPTY, INK)
        assert m.why == UNCHOSEN_WHY.format("start")
    else:
        assert m is option
