"""The written score lines checked against their own sum (scanner.linesum)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from scanner.digits import LEANS
from scanner.fields import OCR_TRUST
from scanner.linesum import CONFIRMED, PARTS, TOTAL, confirm_by_sum


def line(value: int | None, confidence: float = 0.9, text: str | None = None) -> dict[str, Any]:
    return {"text": str(value) if text is None else text, "value": value,
            "confidence": confidence}


def sheet(values: dict[str, int], unsure: tuple[str, ...] = ()) -> dict[str, dict[str, Any]]:
    return {f"score.{k}": line(v, LEANS if k in unsure else 0.9) for k, v in values.items()}


LINES = {"tours_bonus": 0, "final_promotion": 36, "rank_bonus": 0, "missions": 6,
         "skills": 6, "medals": 1, "total": 49}


def test_one_unsure_line_that_the_sum_holds_for_is_confirmed() -> None:
    for key in LINES:
        fields = sheet(LINES, (key,))
        assert confirm_by_sum(fields) == [f"score.{key}"]
        assert fields[f"score.{key}"]["confidence"] == OCR_TRUST
        assert fields[f"score.{key}"]["confirmed"] == CONFIRMED


def test_a_sum_that_does_not_hold_confirms_nothing() -> None:
    fields = sheet({**LINES, "missions": 7}, ("missions",))  # 1 misread: off by one
    assert confirm_by_sum(fields) == []
    assert fields["score.missions"]["confidence"] == LEANS


def test_a_line_the_two_readers_disagree_on_is_never_confirmed() -> None:
    """Seed 223, clean 16: the player's total is five short of their lines, and a 7 that
    Tesseract reads as a 2 (the classifier not) makes up the difference exactly."""
    fields = sheet({**LINES, "missions": 2, "total": 44})
    fields["score.missions"]["confidence"] = 0.3
    assert confirm_by_sum(fields) == []


def test_two_unsure_lines_are_left_unsure() -> None:
    fields = sheet(LINES, ("missions", "total"))
    assert confirm_by_sum(fields) == []


def test_a_line_left_blank_counts_as_zero_and_no_total_checks_nothing() -> None:
    fields = sheet({k: v for k, v in LINES.items() if k not in ("tours_bonus", "rank_bonus")},
                   ("skills",))
    fields["score.rank_bonus"] = line(None, 1.0, "")
    assert confirm_by_sum(fields) == ["score.skills"]
    fields = sheet({k: v for k, v in LINES.items() if k != TOTAL}, ("skills",))
    assert confirm_by_sum(fields) == []


def test_an_unread_cell_is_never_filled_in() -> None:
    fields = sheet(LINES)
    fields["score.missions"] = line(None, 0.0, "?")
    assert confirm_by_sum(fields) == []
    assert fields["score.missions"]["value"] is None


@given(st.lists(st.integers(-20, 200), min_size=len(PARTS), max_size=len(PARTS)),
       st.integers(-300, 300), st.integers(0, len(PARTS)), st.booleans())
def test_a_line_is_confirmed_only_when_the_lines_add_up(parts: list[int], total: int,
                                                        which: int, second: bool) -> None:
    keys = [*PARTS, TOTAL]
    unsure = (keys[which],) + ((keys[(which + 1) % len(keys)],) if second else ())
    fields = sheet(dict(zip(keys, [*parts, total], strict=True)), unsure)
    before = {k: dict(v) for k, v in fields.items()}
    got = confirm_by_sum(fields)
    adds_up = sum(parts) == total
    assert got == ([f"score.{keys[which]}"] if adds_up and not second else [])
    for k, v in fields.items():
        assert v["value"] == before[k]["value"]  # values are never changed
        if k not in got:
            assert v == before[k]
