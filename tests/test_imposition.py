"""Booklet imposition maths (sheets/imposition.py): order, signatures, flip, creep, fit, marks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sheets.imposition import (
    IDENTITY,
    MARK_LENGTH,
    MARK_MARGIN,
    MARK_OFFSET,
    PT_PER_MM,
    Bind,
    Flip,
    Options,
    Plan,
    Rect,
    Size,
    apply,
    booklet_slot,
    creep_shift,
    crop_marks,
    displayed_size,
    fit,
    fold_marks,
    impose,
    multiply,
    orientation,
    padded_order,
    rotation_degrees,
    signature_sheets,
    slot_rects,
    transform_rect,
    upright_matrix,
)

LETTER = Size(612.0, 792.0)
SHEET = Size(792.0, 612.0)
SLOT = booklet_slot(LETTER, SHEET, 0.0)


def plan(pages: int, **options: object) -> Plan:
    return impose([LETTER] * pages, Options(sheet=SHEET, slot=SLOT, **options))  # type: ignore[arg-type]


def numbers(p: Plan) -> list[tuple[int | None, int | None]]:
    """Each side's pages as 1-based numbers (None for blank), left to right as written."""
    return [tuple(None if n is None else n + 1 for n in side.pages) for side in p.sides]  # type: ignore[misc]


# --- reading order and padding -------------------------------------------------------------

@pytest.mark.parametrize(("count", "expected"), [
    (1, [0, None, None, None]),
    (2, [0, None, None, 1]),
    (3, [0, 1, None, 2]),
    (4, [0, 1, 2, 3]),
    (5, [0, 1, 2, 3, None, None, None, 4]),
    (7, [0, 1, 2, 3, 4, 5, None, 6]),
])
def test_blanks_pad_before_the_back_cover(count: int, expected: list[int | None]) -> None:
    assert padded_order(count) == expected


def test_no_pages_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least one page"):
        padded_order(0)


# --- saddle order -----------------------------------------------------------------------------

def test_four_pages_one_sheet() -> None:
    assert numbers(plan(4)) == [(4, 1), (2, 3)]


def test_one_page_is_a_cover_followed_by_blanks() -> None:
    p = plan(1)
    assert numbers(p) == [(None, 1), (None, None)]
    assert (p.blanks, p.sheets) == (3, 1)


def test_eight_pages_two_nested_sheets() -> None:
    assert numbers(plan(8)) == [(8, 1), (2, 7), (6, 3), (4, 5)]


def test_page_count_not_a_multiple_of_four() -> None:
    p = plan(6)
    assert numbers(p) == [(6, 1), (2, None), (None, 3), (4, 5)]
    assert (p.page_count, p.blanks, p.sheets) == (6, 2, 2)


def test_sixteen_pages_in_signatures_of_two_sheets() -> None:
    p = plan(16, signature=2)
    assert p.signatures == (2, 2)
    assert numbers(p) == [(8, 1), (2, 7), (6, 3), (4, 5),
                          (16, 9), (10, 15), (14, 11), (12, 13)]
    assert [(s.signature, s.sheet, s.sheet_in_signature) for s in p.sides[::2]] == [
        (0, 0, 0), (0, 1, 1), (1, 2, 0), (1, 3, 1)]


def test_last_signature_is_shorter() -> None:
    assert signature_sheets(5, 2) == [2, 2, 1]
    assert signature_sheets(4, 2) == [2, 2]
    assert signature_sheets(3, 8) == [3]
    assert signature_sheets(3, None) == [3]
    p = plan(20, signature=2)
    assert p.signatures == (2, 2, 1)
    assert numbers(p)[-2:] == [(20, 17), (18, 19)]


def test_right_binding_mirrors_every_side() -> None:
    assert numbers(plan(8, bind=Bind.RIGHT)) == [(1, 8), (7, 2), (3, 6), (5, 4)]


def test_signature_size_at_least_one() -> None:
    with pytest.raises(ValueError):
        signature_sheets(4, 0)


# --- duplex flip ------------------------------------------------------------------------------

def test_short_edge_flip_keeps_back_sides_upright() -> None:
    p = plan(8, flip=Flip.SHORT)
    assert all(side.rotation == 0 for side in p.sides)
    assert numbers(p) == [(8, 1), (2, 7), (6, 3), (4, 5)]
    for side in p.sides:
        for placement in side.placements:
            a, b, c, d, _, _ = placement.matrix
            assert (b, c) == (0, 0) and a > 0 and d > 0


def test_long_edge_flip_turns_back_sides_half_round() -> None:
    p = plan(8, flip=Flip.LONG)
    assert [side.rotation for side in p.sides] == [0, 180, 0, 180]
    # as written, the back's reading-left page sits on the right, upside down
    assert numbers(p) == [(8, 1), (7, 2), (6, 3), (5, 4)]
    for side in p.sides[1::2]:
        for placement in side.placements:
            a, b, c, d, _, _ = placement.matrix
            assert a < 0 and d < 0 and (b, c) == (0, 0)
            assert placement.rotation == 180


def _on_front(x: float, y: float, flip: Flip) -> tuple[float, float]:
    """Where a point written on the back side lands, seen through the paper from the front.

    The printer turns the sheet about its short (vertical) edge for short flip, about its
    long (horizontal) edge for long flip.
    """
    if flip is Flip.SHORT:
        return SHEET.width - x, y
    return x, SHEET.height - y


@pytest.mark.parametrize("flip", list(Flip))
@pytest.mark.parametrize("bind", list(Bind))
def test_each_leaf_carries_consecutive_pages_with_tops_on_the_same_edge(
        flip: Flip, bind: Bind) -> None:
    """The physical check of the duplex maths: behind page 2j (0-based) lies page 2j+1,
    in the same slot, and both pages' tops are on the same edge of the paper."""
    p = plan(12, flip=flip, bind=bind)
    order = padded_order(12)
    for front, back in zip(p.sides[::2], p.sides[1::2], strict=True):
        for fp in front.placements:
            centre = ((fp.slot.x0 + fp.slot.x1) / 2, (fp.slot.y0 + fp.slot.y1) / 2)
            behind = _on_front(*centre, flip)  # the mirror is its own inverse
            partner = next(bp for bp in back.placements if bp.slot.contains(*behind))
            i, j = order.index(fp.page), order.index(partner.page)
            assert {i, j} == {min(i, j), min(i, j) + 1} and min(i, j) % 2 == 0
            top_front = apply(fp.matrix, LETTER.width / 2, LETTER.height)
            top_back = _on_front(*apply(partner.matrix, LETTER.width / 2, LETTER.height), flip)
            assert top_front[1] == pytest.approx(top_back[1])
            assert top_front[1] > SHEET.height / 2


# --- creep ------------------------------------------------------------------------------------

def test_creep_grows_linearly_from_outer_to_inner_sheet() -> None:
    assert [creep_shift(k, 4, 3.0) for k in range(4)] == [0.0, 1.0, 2.0, 3.0]
    assert creep_shift(0, 1, 3.0) == 0.0


@pytest.mark.parametrize("flip", list(Flip))
def test_creep_moves_inner_pages_toward_the_spine(flip: Flip) -> None:
    creep = 2 * PT_PER_MM
    plain, crept = plan(16, flip=flip), plan(16, flip=flip, creep=creep)
    spine = SHEET.width / 2
    for side0, side1 in zip(plain.sides, crept.sides, strict=True):
        expected = creep * side0.sheet_in_signature / 3
        for a, b in zip(side0.placements, side1.placements, strict=True):
            assert b.shift == pytest.approx(expected)
            x_plain = apply(a.matrix, LETTER.width / 2, 0)[0]
            x_crept = apply(b.matrix, LETTER.width / 2, 0)[0]
            assert abs(x_crept - spine) == pytest.approx(abs(x_plain - spine) - expected)


def test_creep_restarts_in_each_signature_and_keeps_its_step() -> None:
    p = plan(20, signature=2, creep=10.0)
    shifts = [side.placements[0].shift for side in p.sides[::2]]
    assert shifts == [0.0, 10.0, 0.0, 10.0, 0.0]


def test_pages_are_clipped_at_the_fold() -> None:
    p = plan(8, creep=5.0)
    for side in p.sides:
        left, right = side.placements
        assert left.clip == Rect(0.0, 0.0, SHEET.width / 2, SHEET.height)
        assert right.clip == Rect(SHEET.width / 2, 0.0, SHEET.width, SHEET.height)


def test_negative_creep_is_an_error() -> None:
    with pytest.raises(ValueError, match="creep"):
        plan(4, creep=-1.0)


# --- fitting pages ----------------------------------------------------------------------------

def test_slots_meet_at_the_fold_and_are_centred_vertically() -> None:
    left, right = slot_rects(SHEET, SLOT)
    assert left.x1 == right.x0 == SHEET.width / 2
    assert left.y0 == pytest.approx(SHEET.height - left.y1)
    assert SLOT.width == pytest.approx(396.0)
    assert SLOT.height == pytest.approx(396.0 * 792 / 612)


def test_booklet_slot_never_enlarges_a_small_page() -> None:
    a6 = Size(105 * PT_PER_MM, 148 * PT_PER_MM)
    assert booklet_slot(a6, SHEET, 0.0) == a6


def test_booklet_slot_keeps_room_for_marks() -> None:
    a5 = Size(148 * PT_PER_MM, 210 * PT_PER_MM)
    a4_sheet = Size(297 * PT_PER_MM, 210 * PT_PER_MM)
    assert booklet_slot(a5, a4_sheet, 0.0).width == pytest.approx(a5.width)
    slot = booklet_slot(a5, a4_sheet, MARK_MARGIN)
    assert slot.height == pytest.approx(a4_sheet.height - 2 * MARK_MARGIN)
    assert slot.width / slot.height == pytest.approx(a5.width / a5.height)


def test_mixed_page_sizes_are_scaled_uniformly_and_centred() -> None:
    landscape = Size(792.0, 612.0)
    small = Size(306.0, 396.0)
    p = impose([LETTER, landscape, small, LETTER], Options(sheet=SHEET, slot=SLOT))
    placements = {pl.page: pl for side in p.sides for pl in side.placements}
    for page, size in ((1, landscape), (2, small)):
        pl = placements[page]
        box = transform_rect(pl.matrix, Rect(0, 0, size.width, size.height))
        assert pl.matrix[0] == pl.matrix[3] == pytest.approx(pl.scale)
        assert (box.x0 + box.x1) / 2 == pytest.approx((pl.slot.x0 + pl.slot.x1) / 2)
        assert (box.y0 + box.y1) / 2 == pytest.approx((pl.slot.y0 + pl.slot.y1) / 2)
        assert box.width <= pl.slot.width + 1e-6 and box.height <= pl.slot.height + 1e-6
        assert box.width == pytest.approx(pl.slot.width) or box.height == pytest.approx(
            pl.slot.height)
    assert placements[2].scale == pytest.approx(2 * SLOT.width / 612)


def test_fit_returns_scale_and_matrix() -> None:
    scale, matrix = fit(Size(100, 200), Rect(0, 0, 100, 100))
    assert scale == 0.5
    assert matrix == (0.5, 0.0, 0.0, 0.5, 25.0, 0.0)


# --- page rotation and matrices ---------------------------------------------------------------

@pytest.mark.parametrize("rotate", [0, 90, 180, 270, -90, 450])
def test_upright_matrix_maps_the_viewed_page_onto_the_origin(rotate: int) -> None:
    box = Rect(10, 20, 110, 220)
    size = displayed_size(box, rotate)
    matrix = upright_matrix(box, rotate)
    assert transform_rect(matrix, box) == Rect(0, 0, size.width, size.height)
    # the viewed top-left corner: the box corner a clockwise turn by `rotate` brings there
    corner = {0: (10, 220), 90: (10, 20), 180: (110, 20), 270: (110, 220)}[rotate % 360]
    assert apply(matrix, *corner) == pytest.approx((0, size.height))


def test_matrix_helpers() -> None:
    turn = (0.0, 1.0, -1.0, 0.0, 0.0, 0.0)
    assert multiply(IDENTITY, turn) == turn
    assert multiply((2.0, 0.0, 0.0, 2.0, 1.0, 1.0), (1.0, 0.0, 0.0, 1.0, 5.0, 0.0)) == (
        2.0, 0.0, 0.0, 2.0, 6.0, 1.0)
    assert orientation((0.0, 3.0, -3.0, 0.0, 7.0, 8.0)) == turn
    assert rotation_degrees(turn) == 90
    assert rotation_degrees((-2.0, 0.0, 0.0, -2.0, 0.0, 0.0)) == 180


# --- marks ------------------------------------------------------------------------------------

def test_crop_marks_sit_outside_the_outer_corners_and_on_the_sheet() -> None:
    slot = booklet_slot(LETTER, SHEET, MARK_MARGIN)
    left, right = slot_rects(SHEET, slot)
    marks = crop_marks(SHEET, slot)
    assert len(marks) == 8
    for (x0, y0), (x1, y1) in marks:
        assert (x0 == x1) != (y0 == y1)  # horizontal or vertical
        assert abs(x1 - x0) + abs(y1 - y0) == pytest.approx(MARK_LENGTH)
        for x, y in ((x0, y0), (x1, y1)):
            assert 0 <= x <= SHEET.width and 0 <= y <= SHEET.height
            assert not (left.x0 < x < right.x1 and left.y0 < y < left.y1)
    corners = {(left.x0, left.y0), (left.x0, left.y1), (right.x1, right.y0), (right.x1, right.y1)}
    starts = {(x0, y0) for (x0, y0), _ in marks}
    for cx, cy in corners:
        assert (cx, cy + MARK_OFFSET) in starts or (cx, cy - MARK_OFFSET) in starts


def test_fold_marks_are_on_the_spine_above_and_below_the_pages() -> None:
    slot = booklet_slot(LETTER, SHEET, MARK_MARGIN)
    left, _ = slot_rects(SHEET, slot)
    top, bottom = fold_marks(SHEET, slot)
    assert {top[0][0], top[1][0], bottom[0][0], bottom[1][0]} == {SHEET.width / 2}
    assert min(top[0][1], top[1][1]) > left.y1
    assert max(bottom[0][1], bottom[1][1]) < left.y0
    assert min(bottom[0][1], bottom[1][1]) >= 0 and max(top[0][1], top[1][1]) <= SHEET.height


# --- properties -------------------------------------------------------------------------------

@given(count=st.integers(1, 120), signature=st.one_of(st.none(), st.integers(1, 12)),
       bind=st.sampled_from(list(Bind)), flip=st.sampled_from(list(Flip)),
       creep=st.floats(0, 20))
def test_every_page_is_placed_once_on_the_sheet(count: int, signature: int | None, bind: Bind,
                                                flip: Flip, creep: float) -> None:
    p = plan(count, signature=signature, bind=bind, flip=flip, creep=creep)
    placed = [pl.page for side in p.sides for pl in side.placements if pl.page is not None]
    assert sorted(placed) == list(range(count))
    assert len(p.sides) == 2 * p.sheets == (count + p.blanks) // 2
    assert 0 <= p.blanks < 4
    assert sum(p.signatures) == p.sheets
    if signature is not None:
        assert all(n == signature for n in p.signatures[:-1])
    for side in p.sides:
        assert side.placements[0].slot.x1 <= side.placements[1].slot.x0 + 1e-6
        for pl in side.placements:
            assert 0 <= pl.shift <= creep + 1e-9
            if pl.page is None:
                continue
            box = transform_rect(pl.matrix, Rect(0, 0, LETTER.width, LETTER.height))
            away = pl.shift if pl.slot.x0 >= SHEET.width / 2 - 1e-6 else -pl.shift
            for x, y in ((box.x0 + away, box.y0), (box.x1 + away, box.y1)):
                assert pl.slot.contains(x, y, tolerance=1e-3)
