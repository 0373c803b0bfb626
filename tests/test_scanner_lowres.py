"""What a sheet under 60 px/inch is trusted to show (scanner.lowres)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scanner.digits import SIDE
from scanner.fields import OCR_TRUST
from scanner.lowres import (
    BLURRED_WHY,
    CANCELLED_WHY,
    DIGITS_CONFIDENCE,
    FAINT_WHY,
    LOW_RES_DPI,
    OFF_CENTRE,
    SHAPE_WHY,
    digits_confidence,
    doubt_blurred_successes,
    doubt_low_resolution,
)
from scanner.marks import CANCELLED, CHECKED, EMPTY, REVIEW, SLASHED, Mark
from scanner.marks.classifier import PALE_WHY


def _ink(*strokes: list[tuple[float, float]]) -> np.ndarray:
    """Strokes (box fractions) as the model sees a box at ~50 px/inch: drawn 3 px wide at
    4x, sampled down to 7 px and back up to SIDE x SIDE (0..1)."""
    big = np.zeros((SIDE * 4, SIDE * 4), np.float32)
    for pts in strokes:
        xy = np.array([(x * SIDE * 4, y * SIDE * 4) for x, y in pts], np.int32)
        cv2.polylines(big, [xy], False, 1.0, 12, cv2.LINE_AA)
    small = cv2.resize(big, (7, 7), interpolation=cv2.INTER_AREA)
    up = cv2.resize(small / small.max(), (SIDE, SIDE), interpolation=cv2.INTER_LINEAR)
    return np.clip(up, 0, 1).astype(np.float32)


TICK = _ink([(0.15, 0.55), (0.4, 0.85), (0.9, 0.1)])
CROSS = _ink([(0.1, 0.1), (0.9, 0.9)], [(0.1, 0.9), (0.9, 0.1)])
SLASH = _ink([(0.08, 0.92), (0.92, 0.08)])


def _marks() -> dict[str, Mark]:
    centred = {"centre": 0.4}
    return {
        "mission.training.1": Mark(CHECKED, 0.95, CHECKED, "", dict(centred)),
        "mission.training.2": Mark(SLASHED, 0.9, SLASHED, "", dict(centred)),
        "mission.training.3": Mark(EMPTY, 1.0, EMPTY),
        "tour.1": Mark(CHECKED, 0.97, CHECKED, "", dict(centred)),
        "tour.2": Mark(SLASHED, 0.9, SLASHED, "", dict(centred)),  # counts as a check there
        "promotion.1": Mark(CHECKED, 0.65, CHECKED, "faint mark", dict(centred)),
        "promotion.2": Mark(CHECKED, 0.8, CHECKED, "", {"centre": OFF_CENTRE - 0.01}),
        "medal.valor.1": Mark(CANCELLED, 0.8, CANCELLED, "", {"centre": 1.0}),
        "skill.fitness.1": Mark(REVIEW, 0.4, CHECKED, "a little ink"),
        "skill.fitness.2": Mark(EMPTY, 0.6, EMPTY),
    }


def test_a_sheet_at_the_threshold_or_over_is_left_alone() -> None:
    marks = _marks()
    assert doubt_low_resolution(marks, LOW_RES_DPI, {}) == []
    assert marks == _marks()


def test_under_the_threshold_shapes_and_faint_ink_go_to_review() -> None:
    """An Executed box's tick or slash (with no ink for the model to weigh), a cancelled
    box, a faint mark and a mark off the box's middle go to review with their reason and
    likely value; plain marks elsewhere, empty boxes and reviews already made stay as
    they were."""
    marks = _marks()
    sent = doubt_low_resolution(marks, 50.0, {})
    assert sent == ["mission.training.1", "mission.training.2", "promotion.1", "promotion.2",
                    "medal.valor.1"]
    why = {"mission.training.1": SHAPE_WHY, "mission.training.2": SHAPE_WHY,
           "promotion.1": FAINT_WHY, "promotion.2": FAINT_WHY, "medal.valor.1": CANCELLED_WHY}
    before = _marks()
    for rid, m in marks.items():
        if rid in why:
            assert (m.state, m.likely, m.why) == (REVIEW, before[rid].likely, why[rid])
            assert m.confidence <= 0.4 and m.features == before[rid].features
        else:
            assert m == before[rid]


@pytest.mark.parametrize(("state", "ink", "kept"), [
    (CHECKED, TICK, True), (CHECKED, CROSS, True), (SLASHED, SLASH, True),
    (CHECKED, SLASH, False), (SLASHED, TICK, False), (SLASHED, CROSS, False),
])
def test_the_low_resolution_model_keeps_a_shape_it_is_sure_of(state: str, ink: np.ndarray,
                                                               kept: bool) -> None:
    """An Executed box's reading stands when the low-resolution model is all but sure of
    the same (a cross is a success, as a tick is); when it says otherwise, review."""
    marks = {"mission.aid.1": Mark(state, 0.9, state, "", {"centre": 0.5, "ink": 0.4})}
    sent = doubt_low_resolution(marks, 50.0, {"mission.aid.1": ink})
    assert (sent == []) == kept
    assert marks["mission.aid.1"].state == (state if kept else REVIEW)


@pytest.mark.parametrize(("dpi", "want"), [(45.0, DIGITS_CONFIDENCE), (LOW_RES_DPI, 0.97)])
def test_written_digits_under_the_threshold_are_never_trusted(dpi: float, want: float) -> None:
    assert DIGITS_CONFIDENCE < OCR_TRUST
    assert digits_confidence(0.97, dpi) == want
    assert digits_confidence(0.2, dpi) == 0.2


def test_the_readers_reviews_take_this_resolutions_likely_value() -> None:
    """Under the threshold a review stays a review with its reason, but a filled box
    whose rim holds ink is likely coloured in (the fill's own blur); other likely values
    stand."""
    filled = "box filled, with ink around it: coloured in or cancelled?"
    marks = {"promotion.9": Mark(REVIEW, 0.45, CANCELLED, filled, {"ink": 0.9}),
             "promotion.40": Mark(REVIEW, 0.4, CHECKED, PALE_WHY, {"ink": 0.05}),
             "skill.fitness.1": Mark(REVIEW, 0.4, CHECKED, "a little ink")}
    assert doubt_low_resolution(marks, 50.0, {}) == []
    assert [(m.state, m.likely, m.why) for m in marks.values()] == [
        (REVIEW, CHECKED, filled), (REVIEW, CHECKED, PALE_WHY), (REVIEW, CHECKED, "a little ink")]


@pytest.mark.parametrize(("blur", "ink", "sent"), [
    (1.8, SLASH, True), (2.6, SLASH, True), (1.8, TICK, False), (1.8, CROSS, False),
    (1.2, SLASH, False),
])
def test_on_a_blurred_photo_a_success_the_model_calls_a_slash_goes_to_review(
        blur: float, ink: np.ndarray, sent: bool) -> None:
    """On a photo whose print is blurred 1.8 px or more, at any resolution, an Executed box
    read as a success that the low-resolution model calls a failure is sent to review (a
    blurred slash widens where the pen landed, as a tick's vertex does); sharper photos,
    and successes the model agrees with, are left alone."""
    marks = {"mission.aid.1": Mark(CHECKED, 0.9, CHECKED, "", {"centre": 0.5}),
             "mission.aid.2": Mark(SLASHED, 0.9, SLASHED, "", {"centre": 0.5})}
    got = doubt_blurred_successes(marks, blur, {"mission.aid.1": ink, "mission.aid.2": ink})
    assert got == (["mission.aid.1"] if sent else [])
    assert (marks["mission.aid.1"].state, marks["mission.aid.1"].why) == (
        (REVIEW, BLURRED_WHY) if sent else (CHECKED, ""))
    assert marks["mission.aid.2"].state == SLASHED
