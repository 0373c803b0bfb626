"""Saddle-stitch booklet imposition: which page goes where, on which side of which sheet.

Pure geometry, no PDF library: `sheets/booklet.py` turns a `Plan` into a PDF.

Units are PDF points (1/72 in), origin at the bottom left of a landscape sheet side,
x to the right, y up. Each side holds two slots that meet at the fold (the spine), in
the middle of the sheet; a slot is the trimmed booklet page.

Order. Pages are numbered in reading order; blank pages pad the count to a multiple of
4 just before the back cover (the input's last page stays the back cover; a one-page
input is a cover followed by blanks). A signature of n sheets holds 4n pages, nested:
its outermost sheet k = 0 carries its first two and last two pages. For left binding,
sheet k of a signature whose pages are p[0..4n-1] shows

    front (outside of the fold):  p[4n-1-2k] | p[2k]
    back  (inside of the fold):   p[2k+1]    | p[4n-2-2k]

as seen when the side faces you upright. Right binding (right-to-left books) mirrors
each side. Signatures are stacked and sewn, each its own little saddle booklet; the last
one is shorter when the sheets do not divide evenly.

Duplex flip. The sheet is landscape: its long edges are top and bottom, its short edges
left and right. After printing, a booklet sheet is turned over like a book page, about a
vertical axis, which is about a short edge:
- `Flip.SHORT`: the printer turns the back about a short edge, the same vertical axis, so
  the back side is written upright, as seen.
- `Flip.LONG`: the printer turns the back about a long edge, a horizontal axis. Turning
  about the other axis differs by a half turn, so each back side is written rotated
  180 degrees about the sheet centre: what was upright at the left is then upside down
  at the right, and the reader sees it upright after the book-like turn.
The layout is symmetric under that half turn, so the slots on both sides line up.

Creep. Nested sheets wrap around each other: in the folded booklet the fold of sheet k
sits about k sheet thicknesses further from the spine than the outer fold, so the
inner sheets stick out at the fore-edge and, after trimming, their pages sit too close
to the fore-edge. Compensation shifts the inner sheets' pages toward the spine, by 0 on
the outermost sheet growing linearly (one step per sheet) to `creep` on the innermost
sheet of a full signature. Each page is clipped at the fold so a shifted page never
draws over its neighbour.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

PT_PER_MM = 72 / 25.4

Matrix = tuple[float, float, float, float, float, float]
"""A PDF transformation [a b c d e f]: (x, y) -> (a*x + c*y + e, b*x + d*y + f)."""

IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)

Segment = tuple[tuple[float, float], tuple[float, float]]

MARK_OFFSET = 3 * PT_PER_MM
"""Gap between a trim corner and the start of its crop mark."""
MARK_LENGTH = 5 * PT_PER_MM
MARK_MARGIN = 10 * PT_PER_MM
"""Room kept on the top, bottom and fore-edges of the sheet when marks are drawn."""


class Bind(StrEnum):
    """The spine's edge in reading order: left for left-to-right books."""

    LEFT = "left"
    RIGHT = "right"


class Flip(StrEnum):
    """The duplex setting: the sheet edge the printer turns the paper about."""

    SHORT = "short"
    LONG = "long"


@dataclass(frozen=True)
class Size:
    width: float
    height: float


@dataclass(frozen=True)
class Rect:
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    def contains(self, x: float, y: float, tolerance: float = 1e-6) -> bool:
        return (self.x0 - tolerance <= x <= self.x1 + tolerance
                and self.y0 - tolerance <= y <= self.y1 + tolerance)


def multiply(first: Matrix, then: Matrix) -> Matrix:
    """The transform that applies `first`, then `then` (PDF's `first x then`)."""
    a1, b1, c1, d1, e1, f1 = first
    a2, b2, c2, d2, e2, f2 = then
    return (a1 * a2 + b1 * c2, a1 * b2 + b1 * d2,
            c1 * a2 + d1 * c2, c1 * b2 + d1 * d2,
            e1 * a2 + f1 * c2 + e2, e1 * b2 + f1 * d2 + f2)


def apply(matrix: Matrix, x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = matrix
    return a * x + c * y + e, b * x + d * y + f


def transform_rect(matrix: Matrix, rect: Rect) -> Rect:
    """The bounding box of a transformed rectangle."""
    corners = [apply(matrix, x, y) for x in (rect.x0, rect.x1) for y in (rect.y0, rect.y1)]
    xs = [x for x, _ in corners]
    ys = [y for _, y in corners]
    return Rect(min(xs), min(ys), max(xs), max(ys))


def orientation(matrix: Matrix) -> Matrix:
    """The quarter-turn part of an axis-aligned transform, without scale or translation."""
    a, b, c, d, _, _ = matrix
    return (_sign(a), _sign(b), _sign(c), _sign(d), 0.0, 0.0)


def rotation_degrees(matrix: Matrix) -> int:
    """The counter-clockwise rotation of an axis-aligned transform, in 0/90/180/270."""
    a, b, _, _, _, _ = matrix
    return round(math.degrees(math.atan2(b, a))) % 360


def _sign(value: float) -> float:
    if abs(value) < 1e-9:
        return 0.0
    return 1.0 if value > 0 else -1.0


def half_turn(sheet: Size) -> Matrix:
    """Rotation by 180 degrees about the sheet centre."""
    return (-1.0, 0.0, 0.0, -1.0, sheet.width, sheet.height)


def displayed_size(box: Rect, rotate: int) -> Size:
    """A page's size as viewed: its crop box turned by its /Rotate."""
    if rotate % 180 == 90:
        return Size(box.height, box.width)
    return Size(box.width, box.height)


def upright_matrix(box: Rect, rotate: int) -> Matrix:
    """Map a page's crop box, turned clockwise by /Rotate, onto (0, 0)-(w, h) as viewed."""
    x0, y0, w, h = box.x0, box.y0, box.width, box.height
    turns = {0: (1.0, 0.0, 0.0, 1.0, -x0, -y0),
             90: (0.0, -1.0, 1.0, 0.0, -y0, x0 + w),
             180: (-1.0, 0.0, 0.0, -1.0, x0 + w, y0 + h),
             270: (0.0, 1.0, -1.0, 0.0, y0 + h, -x0)}
    return turns[rotate % 360]


def padded_order(page_count: int) -> list[int | None]:
    """Source page indexes in reading order, blanks (None) padding to a multiple of 4.

    The blanks go before the back cover (the last page); a lone page is the front cover.
    """
    if page_count < 1:
        raise ValueError("a booklet needs at least one page")
    blanks = -page_count % 4
    pages: list[int | None] = list(range(page_count))
    if page_count == 1:
        return pages + [None] * blanks
    return pages[:-1] + [None] * blanks + pages[-1:]


def signature_sheets(sheet_count: int, signature: int | None) -> list[int]:
    """Sheets in each signature: full ones of `signature` sheets, the last one shorter."""
    if signature is None or signature >= sheet_count:
        return [sheet_count]
    if signature < 1:
        raise ValueError("a signature needs at least one sheet")
    full, rest = divmod(sheet_count, signature)
    return [signature] * full + ([rest] if rest else [])


def sheet_pages(pages: Sequence[int | None], k: int,
                bind: Bind) -> tuple[tuple[int | None, int | None], tuple[int | None, int | None]]:
    """(front, back) of sheet k of a signature, each (left, right) as seen upright."""
    n = len(pages) // 4
    front = (pages[4 * n - 1 - 2 * k], pages[2 * k])
    back = (pages[2 * k + 1], pages[4 * n - 2 - 2 * k])
    if bind is Bind.RIGHT:
        return front[::-1], back[::-1]
    return front, back


def creep_shift(k: int, full_signature: int, creep: float) -> float:
    """Shift toward the spine for sheet k: 0 outermost, `creep` innermost of a full signature."""
    if full_signature < 2:
        return 0.0
    return creep * k / (full_signature - 1)


def booklet_slot(cover: Size, sheet: Size, margin: float) -> Size:
    """The trimmed booklet page: the cover's shape, shrunk (never enlarged) to fit a half
    sheet less `margin` on its top, bottom and fore-edge (none at the spine)."""
    room_w = sheet.width / 2 - margin
    room_h = sheet.height - 2 * margin
    if room_w <= 0 or room_h <= 0:
        raise ValueError("the margin leaves no room for pages")
    scale = min(1.0, room_w / cover.width, room_h / cover.height)
    return Size(cover.width * scale, cover.height * scale)


def slot_rects(sheet: Size, slot: Size) -> tuple[Rect, Rect]:
    """The left and right slots, meeting at the sheet's vertical centre line."""
    cx, cy = sheet.width / 2, sheet.height / 2
    y0, y1 = cy - slot.height / 2, cy + slot.height / 2
    return Rect(cx - slot.width, y0, cx, y1), Rect(cx, y0, cx + slot.width, y1)


def fit(page: Size, slot: Rect) -> tuple[float, Matrix]:
    """Scale a page uniformly to fit its slot, centred: (scale, matrix)."""
    scale = min(slot.width / page.width, slot.height / page.height)
    tx = slot.x0 + (slot.width - page.width * scale) / 2
    ty = slot.y0 + (slot.height - page.height * scale) / 2
    return scale, (scale, 0.0, 0.0, scale, tx, ty)


@dataclass(frozen=True)
class Options:
    """How to impose: sheet and slot sizes, signature, binding, duplex flip and creep."""

    sheet: Size
    slot: Size
    signature: int | None = None
    """Sheets per signature; None for a single signature."""
    bind: Bind = Bind.LEFT
    flip: Flip = Flip.SHORT
    creep: float = 0.0
    """Shift of the innermost sheet's pages toward the spine, in points."""


@dataclass(frozen=True)
class Placement:
    """One slot of a sheet side, in the coordinates written to the PDF."""

    page: int | None
    """Source page index, None for a blank."""
    slot: Rect
    """Where the slot (the trimmed booklet page) lies on the side."""
    rotation: int
    """0, or 180 for a long-edge back side."""
    scale: float
    shift: float
    """Creep shift toward the spine, in points."""
    matrix: Matrix
    """Maps the upright page, (0, 0)-(width, height), onto the side."""
    clip: Rect
    """The half of the side the page may draw into (it ends at the fold)."""


@dataclass(frozen=True)
class Side:
    """One printed side of a sheet: its two placements, left to right as written."""

    signature: int
    sheet: int
    """Sheet number in the whole booklet, from 0."""
    sheet_in_signature: int
    back: bool
    rotation: int
    placements: tuple[Placement, Placement]

    @property
    def pages(self) -> tuple[int | None, int | None]:
        return self.placements[0].page, self.placements[1].page


@dataclass(frozen=True)
class Plan:
    """The whole imposition: output sides in print order (front, back, front, back, ...)."""

    page_count: int
    blanks: int
    signatures: tuple[int, ...]
    """Sheets in each signature."""
    sides: tuple[Side, ...]
    options: Options

    @property
    def sheets(self) -> int:
        return sum(self.signatures)


def impose(page_sizes: Sequence[Size], options: Options) -> Plan:
    """Plan a saddle-stitched booklet of pages with these (viewed) sizes."""
    if options.creep < 0:
        raise ValueError("creep cannot be negative")
    order = padded_order(len(page_sizes))
    signatures = signature_sheets(len(order) // 4, options.signature)
    full = signatures[0]
    sides: list[Side] = []
    start = 0
    for sig, count in enumerate(signatures):
        pages = order[start: start + 4 * count]
        for k in range(count):
            sheet = start // 4 + k
            shift = creep_shift(k, full, options.creep)
            front, back = sheet_pages(pages, k, options.bind)
            sides.append(_side(front, False, sig, sheet, k, shift, page_sizes, options))
            sides.append(_side(back, True, sig, sheet, k, shift, page_sizes, options))
        start += 4 * count
    return Plan(page_count=len(page_sizes), blanks=len(order) - len(page_sizes),
                signatures=tuple(signatures), sides=tuple(sides), options=options)


def _side(pages: tuple[int | None, int | None], back: bool, signature: int, sheet: int,
          k: int, shift: float, page_sizes: Sequence[Size], options: Options) -> Side:
    """Place a side's two pages; a long-edge back side is turned half round."""
    turn = back and options.flip is Flip.LONG
    left, right = slot_rects(options.sheet, options.slot)
    cx = options.sheet.width / 2
    halves = (Rect(0.0, 0.0, cx, options.sheet.height),
              Rect(cx, 0.0, options.sheet.width, options.sheet.height))
    placed = [_placement(page, slot, half, toward_spine, shift, turn, page_sizes, options)
              for page, slot, half, toward_spine in zip(pages, (left, right), halves, (1, -1),
                                                        strict=True)]
    if turn:
        placed.reverse()
    return Side(signature=signature, sheet=sheet, sheet_in_signature=k, back=back,
                rotation=180 if turn else 0, placements=(placed[0], placed[1]))


def _placement(page: int | None, slot: Rect, half: Rect, toward_spine: int, shift: float,
               turn: bool, page_sizes: Sequence[Size], options: Options) -> Placement:
    scale, matrix = (1.0, IDENTITY) if page is None else fit(page_sizes[page], slot)
    matrix = multiply(matrix, (1.0, 0.0, 0.0, 1.0, toward_spine * shift, 0.0))
    if turn:
        rotate = half_turn(options.sheet)
        matrix = multiply(matrix, rotate)
        slot, half = transform_rect(rotate, slot), transform_rect(rotate, half)
    return Placement(page=page, slot=slot, rotation=180 if turn else 0, scale=scale,
                     shift=shift, matrix=matrix, clip=half)


def crop_marks(sheet: Size, slot: Size) -> list[Segment]:
    """Crop marks at the four outer corners of the spread, pointing away from the trim.

    The two inner corners lie on the fold, which `fold_marks` shows instead.
    """
    left, right = slot_rects(sheet, slot)
    segments: list[Segment] = []
    for x, dx in ((left.x0, -1), (right.x1, 1)):
        for y, dy in ((left.y0, -1), (left.y1, 1)):
            segments.append(((x + dx * MARK_OFFSET, y), (x + dx * (MARK_OFFSET + MARK_LENGTH), y)))
            segments.append(((x, y + dy * MARK_OFFSET), (x, y + dy * (MARK_OFFSET + MARK_LENGTH))))
    return segments


def fold_marks(sheet: Size, slot: Size) -> list[Segment]:
    """Ticks on the fold line in the top and bottom margins (drawn dashed)."""
    left, _ = slot_rects(sheet, slot)
    x = left.x1
    return [((x, left.y1 + MARK_OFFSET), (x, left.y1 + MARK_OFFSET + MARK_LENGTH)),
            ((x, left.y0 - MARK_OFFSET), (x, left.y0 - MARK_OFFSET - MARK_LENGTH))]


SHEETS: dict[str, Size] = {
    "letter": Size(11 * 72.0, 8.5 * 72.0),
    "a4": Size(297 * PT_PER_MM, 210 * PT_PER_MM),
}
"""Landscape sheet sizes in points."""

MAX_CREEP_MM = 20.0
