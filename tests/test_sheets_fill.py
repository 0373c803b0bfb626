"""Filled sheets: deterministic per seed, marks land in their boxes, styles differ."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest
from pypdf import PdfReader

import sheets
from game.opial.marks import CHECKED, SLASHED
from game.opial.rules import load_rules
from game.opial.state import CareerState
from sheets.fill import (
    Glyph,
    Stroke,
    digit_cells_text,
    digit_strokes,
    fill_pdf,
    mark_strokes,
    plan_ink,
)
from sheets.manifest import inside

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "dan-tour3.json"


@pytest.fixture(scope="module")
def dan() -> CareerState:
    return CareerState.from_dict(json.loads(SAMPLE.read_text()))


def test_fill_is_reproducible_per_seed(dan: CareerState) -> None:
    rules = load_rules(dan.edition)
    a = fill_pdf(dan, rules, "letter", "pen", seed=5)
    assert a == fill_pdf(dan, rules, "letter", "pen", seed=5)
    assert a != fill_pdf(dan, rules, "letter", "pen", seed=6)
    clean = fill_pdf(dan, rules, "letter", "clean", seed=1)
    assert clean == fill_pdf(dan, rules, "letter", "clean", seed=2)  # clean ignores the seed
    reader = PdfReader(io.BytesIO(a))
    assert "starsheets-layout.json" in reader.attachments  # still a readable sheet


@pytest.mark.parametrize("style", ["pen", "clean"])
def test_every_mark_lands_near_its_region(dan: CareerState, style: str) -> None:
    rules = load_rules(dan.edition)
    m = sheets.layout("career", dan.edition, "letter")
    for seed in range(4):
        inks = plan_ink(dan, rules, m, style, seed)
        strokes = [i for i in inks if isinstance(i, Stroke)]
        glyphs = [i for i in inks if isinstance(i, Glyph)]
        assert "".join(g.char for g in glyphs) == "Dan"
        assert len({s.colour for s in strokes}) == 1  # one pen per sheet
        for s in strokes:
            xs = [p[0] for p in s.points]
            ys = [p[1] for p in s.points]
            cx, cy = sum(xs) / len(xs), sum(ys) / len(ys)
            hits = [r for r in m.regions if inside((cx, cy, 0, 0), r.rect)]
            assert hits, (cx, cy)


def test_pen_marks_vary_and_slash_is_one_stroke() -> None:
    r = (100.0, 100.0, 12.0, 10.0)
    rng = random.Random(3)
    kinds = set()
    for _ in range(60):
        strokes = mark_strokes(CHECKED, r, "pen", rng)
        kinds.add((len(strokes), len(strokes[0].points)))
        for s in strokes:
            for x, y in s.points:  # misplacement stays within ~15% of the box
                assert 100 - 4 <= x <= 112 + 4 and 100 - 4 <= y <= 110 + 4
    assert len(kinds) >= 3  # crosses, ticks and fills
    widths = {s.width for _ in range(20) for s in mark_strokes(CHECKED, r, "pen", rng)}
    assert len(widths) > 5
    slash = mark_strokes(SLASHED, r, "pen", rng)
    assert len(slash) == 1
    (a, b) = slash[0].points[0], slash[0].points[-1]
    assert b[0] > a[0] and b[1] > a[1]  # bottom-left to top-right
    assert mark_strokes("empty", r, "pen", rng) == []
    assert len(mark_strokes(CHECKED, r, "clean", rng)) == 2


def test_digits() -> None:
    assert digit_cells_text(-6, 3) == ["", "-", "6"]
    assert digit_cells_text(14, 3) == ["", "1", "4"]
    with pytest.raises(ValueError):
        digit_cells_text(1234, 3)
    cells = [(0.0, 0.0, 11.0, 12.0), (11.0, 0.0, 11.0, 12.0), (22.0, 0.0, 11.0, 12.0)]
    strokes = digit_strokes(["", "1", "0"], cells, "pen", random.Random(1))
    assert strokes and all(s.points[0][0] >= 11.0 - 2 for s in strokes)


def test_fill_rejects_unknown_style(dan: CareerState) -> None:
    with pytest.raises(ValueError):
        fill_pdf(dan, load_rules(dan.edition), "letter", "crayon", 0)
