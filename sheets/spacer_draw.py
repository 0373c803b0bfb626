"""Drawing helpers shared by the Spacer forms (setting, character, reference card).

The mark primitives here extend sheets/draw.py the way its own primitives work: each draws
its shape, records its region in the manifest at the rect it drew and, on a fillable
sheet, adds the form field named by the region id.

    number_bubble   a round bubble with its number printed inside (radio group member)
    round_check     a round check circle (a study circle): an independent checkbox
    diamond_check   a diamond (an advancement tally): an independent checkbox

Conventions on every Spacer form: a circle is one choice of a group (fill one), a square
is a tick box (tick any), a diamond is a tally, a comb of cells takes one digit a cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reportlab.lib.colors import Color, HexColor, white
from reportlab.lib.units import mm

from sheets import fonts
from sheets.draw import (
    ACCENT,
    BOX,
    BOX_LINE,
    INK,
    MIN_BOX,
    MIN_TEXT,
    MUTED,
    RULE,
    Sheet,
    band,
    bubble_circle,
    checkbox,
    digit_cells,
    text,
    text_mid,
    write_in,
)
from sheets.manifest import Rect, rect

HEAD = 11.0  # section header band
SUB = 9.0  # sub-header strip inside a section
GAP = 5.0  # between sections
SUPER = HexColor("#F3E9D8")  # warm tint behind superhuman values (10+)
STRIPE = HexColor("#D9E2EC")  # sub-header strips
PRINTED = HexColor("#8C96A5")  # numbers printed inside bubbles: light, never taken for ink


@dataclass(frozen=True)
class Geo:
    """Sizes of one page: the row pitch and the mark size, from the paper's height."""

    x: float
    top: float
    width: float
    bottom: float
    pitch: float  # row pitch of tables
    box: float  # checkbox / bubble / digit cell size

    @property
    def height(self) -> float:
        return self.top - self.bottom

    @property
    def cell(self) -> float:
        """Width of one digit cell."""
        return self.box + 0.6

    def comb(self, cells: int = 2) -> float:
        return cells * self.cell


def geo(sheet: Sheet, fixed: float, rows: float, low: float = 11.0, high: float = 16.0,
        box_max: float = 12.5) -> Geo:
    """Page geometry: `rows` table rows share what `fixed` leaves of the frame's height;
    the pitch is clamped to [low, high], the box follows it (never below MIN_BOX)."""
    fx, fy, fw, fh = sheet.frame
    pitch = (fh - fixed) / rows if rows else high
    if pitch < low - 1e-6:
        raise ValueError(f"{sheet.kind.id} does not fit on {sheet.paper.name}: row pitch "
                         f"{pitch:.2f} pt < {low} pt")
    pitch = min(high, pitch)
    box = max(MIN_BOX + 0.1, min(box_max, pitch - 1.3))
    return Geo(fx, fy + fh, fw, fy, pitch, box)


def wide(sheet: Sheet) -> bool:
    """Letter and A4 (more columns) as against half-letter and A5."""
    return sheet.frame[2] > 140 * mm


def layout_width(s: str, size: float = 7.0, bold: bool = False) -> float:
    """The width a text is given when a layout places marks after it: from the standard
    Helvetica metrics (built into ReportLab, so the same on every machine), widened to
    hold the sheet face (DejaVu Sans Condensed runs up to 9 % wider than Helvetica, its
    bold up to 12 %). Region geometry never depends on the font a machine has; the text
    is then fitted into the width it was given."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    if bold:
        return stringWidth(s, "Helvetica-Bold", size) * 1.13
    return stringWidth(s, "Helvetica", size) * 1.10


# --- headings and furniture ------------------------------------------------------------------
def title_band(sheet: Sheet, title: str, subtitle: str, page_note: str = "") -> None:
    """The form's name in the top band: SPACER over the form's title."""
    bx, by, bw, bh = sheet.top_band
    big = 15.0 if bw > 200 else 12.5
    w = text(sheet, bx, by + bh - big + 1.0, "SPACER", big, fonts.BOLD, ACCENT, spacing=1.6)
    text(sheet, bx + w + 7, by + bh - big + 1.0, title.upper(), 8.5 if bw > 200 else 7.5,
         fonts.BOLD, INK, width=bw - w - 8)
    band(sheet, bx, by + bh - big - 4.2, bw, 1.2, ACCENT)
    text(sheet, bx, by + bh - big - 13.5, subtitle, MIN_TEXT, fonts.ITALIC, MUTED, width=bw)
    if page_note:
        text(sheet, bx, by + 1.5, page_note, MIN_TEXT, fonts.BOLD, MUTED, width=bw)


def footer(sheet: Sheet, note: str | Sequence[str], page: int, pages: int) -> None:
    """The legend line (a note, or legend items drawn as shapes) and the sheet code
    (with the page) in the bottom band."""
    bx, by, bw, bh = sheet.bottom_band
    mid = bx + bw / 2
    if isinstance(note, str):
        text(sheet, mid, by + bh - 11.0, note, MIN_TEXT, fonts.REGULAR, MUTED, "centre",
             width=bw)
    else:
        legend(sheet, bx, by + bh - 8.6, bw, note, align="centre")
    where = f"page {page} of {pages}  ·  " if pages > 1 else ""
    text(sheet, mid, by + bh - 20.5, f"{where}sheet {sheet.code}", MIN_TEXT, fonts.BOLD,
         MUTED, "centre", width=bw)
    text(sheet, mid, by + 3.0, "Spacer © 2008 William F. Hostman  ·  form by starsheets",
         MIN_TEXT, fonts.ITALIC, MUTED, "centre", width=bw)


LEGEND_LABELS = {"circle": "fill one", "square": "tick any", "diamond": "tally",
                 "study": "study", "digits": "a digit a cell"}
LEGEND_SHAPE = 7.0


def _legend_shape_width(item: str) -> float:
    s = LEGEND_SHAPE
    return {"circle": 2 * s + 2, "digits": 2 * s}.get(item, s)


def legend_width(items: Sequence[str]) -> float:
    """The width `legend` draws for these items."""
    return sum(_legend_shape_width(i) + 3 + fonts.width(LEGEND_LABELS[i], fonts.REGULAR,
                                                          MIN_TEXT) for i in items) \
        + 9 * (len(items) - 1)


def legend(sheet: Sheet, x: float, y_mid: float, width: float,
           items: Sequence[str] = ("circle", "square", "diamond", "study", "digits"),
           align: str = "left") -> None:
    """The marking legend drawn with the real shapes: fill one, tick any, tally, study
    circle, comb. `align` centre centres it in `width`."""
    c = sheet.c
    s = LEGEND_SHAPE
    total = legend_width(items)
    cx = x + (width - total) / 2 if align == "centre" else x
    for item in items:
        c.saveState()
        c.setStrokeColor(BOX)
        c.setLineWidth(0.6)
        if item == "circle":
            c.circle(cx + s / 2, y_mid, s / 2, stroke=1, fill=0)
            c.setFillColor(INK)
            c.circle(cx + s * 1.5 + 2, y_mid, s / 2, stroke=1, fill=1)
        elif item == "square":
            c.rect(cx, y_mid - s / 2, s, s, stroke=1, fill=0)
        elif item == "diamond":
            p = c.beginPath()
            p.moveTo(cx + s / 2, y_mid + s / 2)
            p.lineTo(cx + s, y_mid)
            p.lineTo(cx + s / 2, y_mid - s / 2)
            p.lineTo(cx, y_mid)
            p.close()
            c.drawPath(p, stroke=1, fill=0)
        elif item == "study":
            c.setStrokeColor(ACCENT)
            c.setDash(1.2, 0.8)
            c.circle(cx + s / 2, y_mid, s / 2, stroke=1, fill=0)
        else:
            c.rect(cx, y_mid - s / 2, 2 * s, s, stroke=1, fill=0)
            c.setStrokeColor(RULE)
            c.line(cx + s, y_mid - s / 2 + 1.2, cx + s, y_mid + s / 2 - 1.2)
        c.restoreState()
        cx += _legend_shape_width(item) + 3
        cx += text_mid(sheet, cx, y_mid, LEGEND_LABELS[item], MIN_TEXT, fonts.REGULAR,
                       MUTED) + 9


def section(sheet: Sheet, x: float, top: float, width: float, title: str,
            hint: str = "", height: float = HEAD) -> float:
    """A section's heading band (white title, muted hint at the right); returns the y
    just below it."""
    band(sheet, x, top - height, width, height)
    tw = text_mid(sheet, x + 4, top - height / 2, title.upper(), 7.0, fonts.BOLD, white,
                  width=width * 0.6 if hint else width - 8)
    if hint:
        text_mid(sheet, x + width - 4, top - height / 2, hint, MIN_TEXT, fonts.REGULAR,
                 HexColor("#C9D6E6"), "right", width=width - tw - 16)
    return top - height


def sub_header(sheet: Sheet, x: float, top: float, width: float, title: str,
               hint: str = "") -> float:
    """A thin tinted strip naming a group of rows (Inborn, Trained, ...)."""
    band(sheet, x, top - SUB, width, SUB, STRIPE)
    text_mid(sheet, x + 4, top - SUB / 2, title, MIN_TEXT, fonts.BOLD, ACCENT, width=width / 2)
    if hint:
        text_mid(sheet, x + width - 4, top - SUB / 2, hint, MIN_TEXT, fonts.ITALIC, ACCENT,
                 "right", width=width / 2)
    return top - SUB


def label(sheet: Sheet, x: float, y_mid: float, s: str, width: float | None = None,
          size: float = 7.0, bold: bool = False, color: Color = INK,
          align: str = "left") -> float:
    return text_mid(sheet, x, y_mid, s, size, fonts.BOLD if bold else fonts.REGULAR, color,
                    align, width=width)


def caption(sheet: Sheet, x: float, y: float, s: str, width: float | None = None,
            align: str = "left", color: Color = MUTED) -> float:
    """A small label set above a write-in line (baseline at y)."""
    return text(sheet, x, y, s, MIN_TEXT, fonts.BOLD, color, align, width=width)


# --- mark primitives -------------------------------------------------------------------------
def _radio_field(sheet: Sheet, group: str, value: str, r: Rect) -> None:
    """The radio button of a bubble, as sheets.fillable.FormBuilder.radio makes it but
    with a filled disc that sits in the middle of the bubble. ReportLab draws the disc of
    its circle-on-circle style for a 20 pt button only (smaller buttons get a small dot
    near the corner); its circle style on a borderless square widget is centred at any
    size."""
    assert sheet.form is not None
    x, y, w, h = r
    kw = sheet.form._common(f"{group}.{value}")  # registers the name, shared settings
    kw["name"] = group
    kw["fieldFlags"] = "radio"
    sheet.form.af.radio(value=value, selected=False, x=x, y=y, size=min(w, h),
                        buttonStyle="circle", shape="square", **kw)


def number_bubble(sheet: Sheet, region_id: str, group: str, value: str, cx: float, cy: float,
                  d: float, printed: str = "") -> Rect:
    """A round bubble of radio `group` (region id `<group>.<value>`), with `printed` (its
    number) inside in a light ink that a reader must not take for a mark (recorded as
    the region's `printed`)."""
    r = bubble_circle(sheet, region_id, cx, cy, d)
    if printed:
        text_mid(sheet, cx, cy, printed, MIN_TEXT, fonts.REGULAR, PRINTED, "centre",
                 width=d - 1.6)
    sheet.rec.region(region_id, "bubble", r, group, printed=printed)
    if sheet.form is not None:
        _radio_field(sheet, group, value, r)
    return r


def bubble(sheet: Sheet, region_id: str, group: str, value: str, cx: float, cy: float,
           d: float) -> Rect:
    """A plain bubble of radio `group` (sheets.draw.bubble, with a centred form disc)."""
    return number_bubble(sheet, region_id, group, value, cx, cy, d)


def bubble_row(sheet: Sheet, group: str, values: Sequence[int | str], x: float, y_mid: float,
               pitch: float, d: float, numbered: bool = True,
               tint_from: int | None = None) -> float:
    """A row of bubbles `<group>.<value>` left to right from x; returns the x after it.
    `tint_from`: values from this one up sit on a warm tint (superhuman values)."""
    if tint_from is not None:
        idx = [i for i, v in enumerate(values) if isinstance(v, int) and v >= tint_from]
        if idx:
            x0 = x + idx[0] * pitch
            band(sheet, x0, y_mid - pitch * 0.5 + 0.6, (idx[-1] - idx[0] + 1) * pitch,
                 pitch - 1.2, SUPER)
    for i, v in enumerate(values):
        cx = x + i * pitch + pitch / 2
        number_bubble(sheet, f"{group}.{v}", group, str(v), cx, y_mid, d,
                      str(v) if numbered else "")
    return x + len(values) * pitch


def _shaped_check(sheet: Sheet, region_id: str, cx: float, cy: float, d: float,
                  group: str) -> Rect:
    """Record a round or diamond tick box drawn in the d x d square around (cx, cy) as a
    checkbox region (and its form field)."""
    r = rect(cx - d / 2, cy - d / 2, d, d)
    sheet.rec.region(region_id, "checkbox", r, group)
    if sheet.form is not None:
        sheet.form.checkbox(region_id, r)
    return r


def round_check(sheet: Sheet, region_id: str, cx: float, cy: float, d: float,
                group: str = "") -> Rect:
    """A study circle: round like a bubble but ticked on its own (kind checkbox)."""
    if d < MIN_BOX - 1e-6:
        raise ValueError(f"{region_id}: circle {d:.2f} pt is below {MIN_BOX:.2f} pt")
    c = sheet.c
    c.saveState()
    c.setStrokeColor(ACCENT)
    c.setFillColor(white)
    c.setLineWidth(BOX_LINE)
    c.setDash(1.6, 1.0)
    c.circle(cx, cy, d / 2 - BOX_LINE / 2, stroke=1, fill=1)
    c.restoreState()
    return _shaped_check(sheet, region_id, cx, cy, d, group)


def diamond_check(sheet: Sheet, region_id: str, cx: float, cy: float, d: float,
                  group: str = "") -> Rect:
    """An advancement tally: a diamond in a d x d square (kind checkbox)."""
    if d < MIN_BOX - 1e-6:
        raise ValueError(f"{region_id}: diamond {d:.2f} pt is below {MIN_BOX:.2f} pt")
    c = sheet.c
    h = d / 2 - BOX_LINE / 2
    c.saveState()
    c.setStrokeColor(BOX)
    c.setFillColor(white)
    c.setLineWidth(BOX_LINE)
    p = c.beginPath()
    p.moveTo(cx, cy + h)
    p.lineTo(cx + h, cy)
    p.lineTo(cx, cy - h)
    p.lineTo(cx - h, cy)
    p.close()
    c.drawPath(p, stroke=1, fill=1)
    c.restoreState()
    return _shaped_check(sheet, region_id, cx, cy, d, group)


def tick(sheet: Sheet, region_id: str, x: float, y_mid: float, size: float,
         group: str = "") -> Rect:
    """A square tick box centred vertically on y_mid."""
    return checkbox(sheet, region_id, x, y_mid - size / 2, size, group=group)


def comb(sheet: Sheet, region_id: str, x: float, y_mid: float, g: Geo, cells: int = 2,
         group: str = "") -> Rect:
    """A comb of digit cells centred vertically on y_mid."""
    return digit_cells(sheet, region_id, x, y_mid - g.box / 2, g.cell, g.box, cells,
                       group=group)


def line(sheet: Sheet, region_id: str, x: float, y_mid: float, width: float, height: float,
         group: str = "") -> Rect:
    """A write-in line centred vertically on y_mid."""
    return write_in(sheet, region_id, x, y_mid - height / 2, width, height, group=group)


def choice_row(sheet: Sheet, group: str, options: Sequence[tuple[str, str]], x: float,
               y_mid: float, width: float, d: float, gap: float = 8.0) -> float:
    """Bubbles with their names after them: (value, label) pairs, spread over `width`.
    Returns the x after the last label."""
    widths = [d + 3 + layout_width(lbl) for _v, lbl in options]
    spare = width - sum(widths)
    step = max(gap, spare / max(len(options), 1))
    cx = x
    for (value, lbl), w in zip(options, widths, strict=True):
        bubble(sheet, f"{group}.{value}", group, value, cx + d / 2, y_mid, d)
        label(sheet, cx + d + 3, y_mid, lbl, width=w - d - 3 + step - 2)
        cx += w + step
    return cx - step
