"""What a sheet under 60 px/inch is trusted to show (scanner.lowres): pure rules."""

from __future__ import annotations

import pytest

from scanner.fields import OCR_TRUST
from scanner.lowres import (
    CANCELLED_WHY,
    DIGITS_CONFIDENCE,
    FAINT_WHY,
    LOW_RES_DPI,
    OFF_CENTRE,
    SHAPE_WHY,
    digits_confidence,
    doubt_low_resolution,
)
from scanner.marks import CANCELLED, CHECKED, EMPTY, REVIEW, SLASHED, Mark


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
    assert doubt_low_resolution(marks, LOW_RES_DPI) == []
    assert marks == _marks()


def test_under_the_threshold_shapes_and_faint_ink_go_to_review() -> None:
    """An Executed box's tick or slash, a cancelled box, a faint mark and a mark off the
    box's middle go to review with their reason and likely value; plain marks elsewhere,
    empty boxes and reviews already made stay as they were."""
    marks = _marks()
    sent = doubt_low_resolution(marks, 50.0)
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


@pytest.mark.parametrize(("dpi", "want"), [(45.0, DIGITS_CONFIDENCE), (LOW_RES_DPI, 0.97)])
def test_written_digits_under_the_threshold_are_never_trusted(dpi: float, want: float) -> None:
    assert DIGITS_CONFIDENCE < OCR_TRUST
    assert digits_confidence(0.97, dpi) == want
    assert digits_confidence(0.2, dpi) == 0.2
