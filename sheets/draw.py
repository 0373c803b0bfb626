"""Drawing primitives shared by every sheet kind, and the Sheet being drawn.

Every primitive that draws a mark region records it in `sheet.rec` with the rect it
just drew, and (on a fillable sheet) adds the matching form field named by the region
id. Text is fitted into the width it is given (never below MIN_TEXT); anything that
would not fit is listed in `sheet.overflows`, which the tests require to be empty.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from reportlab.lib.colors import Color, HexColor, white
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from sheets import fonts
from sheets.fillable import FormBuilder
from sheets.manifest import Recorder, Rect, rect
from sheets.markers import (
    MARKER_INSET,
    MARKER_QUIET,
    MARKER_SIZE,
    QR_MODULE,
    QR_QUIET_MODULES,
    draw_fiducials,
    draw_qr,
    qr_origin,
)
from sheets.paper import Paper
from sheets.registry import SheetKind

MIN_TEXT = 6.5  # pt: nothing printed smaller
MIN_BOX = 3.5 * mm  # every checkbox, bubble and digit cell is at least this big

# A restrained palette: one ink, one accent, one tint, and the dice colours.
INK = HexColor("#1B1F24")
ACCENT = HexColor("#1F3A5F")  # heading bands, titles
MUTED = HexColor("#5B6573")  # captions, printed points inside boxes
RULE = HexColor("#AEB7C2")  # grid lines
TINT = HexColor("#EDF1F6")  # alternate rows
BOX = HexColor("#1B1F24")  # box outlines
DICE = {"B": HexColor("#1F5FB0"), "G": HexColor("#2E7D32"), "R": HexColor("#C62828"),
        "K": HexColor("#111111")}
BOX_LINE = 0.7
RULE_LINE = 0.35


@dataclass
class Sheet:
    """One sheet being drawn: its canvas, paper, identity, recorder and free areas.

    frame: the content area, clear of the fiducials, the QR code and their quiet zones.
    top_band / bottom_band: the strips between the corner markers (and the QR code),
    free for a title line and a footer."""

    c: Canvas
    paper: Paper
    kind: SheetKind
    edition: str
    code: str
    rec: Recorder
    form: FormBuilder | None = None
    overflows: list[str] = field(default_factory=list)

    @property
    def pages(self) -> int:
        return self.rec.page

    def start_page(self) -> None:
        """Draw and record this page's fiducials and QR code (the renderer calls it for
        page 1; kinds with more pages call `new_page`)."""
        for f in draw_fiducials(self.c, self.paper, self.rec.page):
            self.rec.fiducial(f)
        self.rec.qr_code(draw_qr(self.c, self.paper, self.code, self.rec.page))

    def new_page(self) -> None:
        """End the page and start the next one, with its own fiducials and QR code."""
        self.c.showPage()
        self.rec.page += 1
        self.start_page()

    @property
    def frame(self) -> Rect:
        x0 = MARKER_INSET
        x1 = self.paper.width - MARKER_INSET
        y0 = MARKER_INSET + MARKER_SIZE + MARKER_QUIET
        qr_bottom = qr_origin(self.paper, self.code)[1]
        y1 = min(self.paper.height - MARKER_INSET - MARKER_SIZE, qr_bottom) - MARKER_QUIET
        return rect(x0, y0, x1 - x0, y1 - y0)

    @property
    def top_band(self) -> Rect:
        x0 = MARKER_INSET + MARKER_SIZE + MARKER_QUIET
        x1 = qr_origin(self.paper, self.code)[0] - QR_QUIET_MODULES * QR_MODULE
        y0 = self.paper.height - MARKER_INSET - MARKER_SIZE
        return rect(x0, y0, x1 - x0, MARKER_SIZE)

    @property
    def bottom_band(self) -> Rect:
        x0 = MARKER_INSET + MARKER_SIZE + MARKER_QUIET
        x1 = self.paper.width - x0
        return rect(x0, MARKER_INSET, x1 - x0, MARKER_SIZE)


# --- text -------------------------------------------------------------------------------
def fit_size(sheet: Sheet, s: str, font: str, size: float, width: float | None) -> float:
    """The largest size <= `size` at which `s` fits `width` (never below MIN_TEXT)."""
    if width is None:
        return size
    w = fonts.width(s, font, size)
    if w <= width:
        return size
    fitted = size * width / w
    if fitted < MIN_TEXT - 1e-3:
        sheet.overflows.append(f"{s!r} needs {w * MIN_TEXT / size:.1f} pt, has {width:.1f}")
        return MIN_TEXT
    return max(fitted, MIN_TEXT)


def text(sheet: Sheet, x: float, y: float, s: str, size: float = 7.0,
         font: str = fonts.REGULAR, color: Color = INK, align: str = "left",
         width: float | None = None, spacing: float = 0.0) -> float:
    """Draw one line with its baseline at y; `align` left | centre | right about x.
    Returns the width drawn."""
    if size < MIN_TEXT:
        raise ValueError(f"text {s!r} at {size} pt is below the {MIN_TEXT} pt minimum")
    size = fit_size(sheet, s, font, size, width)
    return draw_string(sheet.c, x, y, s, size, font, color, align, spacing)


def draw_string(c: Canvas, x: float, y: float, s: str, size: float, font: str,
                color: object, align: str = "left", spacing: float = 0.0) -> float:
    """One line on a bare canvas in the sheets' type (the fonts' condensing applied);
    returns the width drawn."""
    w = fonts.width(s, font, size) + spacing * max(len(s) - 1, 0)
    if align == "centre":
        x -= w / 2
    elif align == "right":
        x -= w
    c.saveState()
    c.setFillColor(color)
    t = c.beginText(x, y)
    t.setFont(font, size)
    if fonts.HSCALE != 1.0:
        t.setHorizScale(fonts.HSCALE * 100)
    if spacing:
        t.setCharSpace(spacing)
    t.textOut(s)
    c.drawText(t)
    c.restoreState()
    return w


def text_mid(sheet: Sheet, x: float, y_mid: float, s: str, size: float = 7.0,
             font: str = fonts.REGULAR, color: Color = INK, align: str = "left",
             width: float | None = None) -> float:
    """Text vertically centred on y_mid (cap-height centred)."""
    size = fit_size(sheet, s, font, size, width)
    return text(sheet, x, y_mid - size * 0.36, s, size, font, color, align)


# --- furniture --------------------------------------------------------------------------
def band(sheet: Sheet, x: float, y: float, w: float, h: float, color: Color = ACCENT) -> None:
    """A filled heading band (table header row or section title bar)."""
    c = sheet.c
    c.saveState()
    c.setFillColor(color)
    c.rect(x, y, w, h, stroke=0, fill=1)
    c.restoreState()


def fill_rect(sheet: Sheet, x: float, y: float, w: float, h: float, color: Color = TINT) -> None:
    band(sheet, x, y, w, h, color)


def hline(sheet: Sheet, x0: float, x1: float, y: float, color: Color = RULE,
          width: float = RULE_LINE) -> None:
    c = sheet.c
    c.saveState()
    c.setStrokeColor(color)
    c.setLineWidth(width)
    c.line(x0, y, x1, y)
    c.restoreState()


def vline(sheet: Sheet, x: float, y0: float, y1: float, color: Color = RULE,
          width: float = RULE_LINE) -> None:
    c = sheet.c
    c.saveState()
    c.setStrokeColor(color)
    c.setLineWidth(width)
    c.line(x, y0, x, y1)
    c.restoreState()


def die(sheet: Sheet, x: float, y: float, size: float, colour: str, label: str,
        sub: str = "") -> float:
    """A small die (rounded square) of a dice colour with `label` (and a small `sub`
    letter) in white; returns its width. Colour letters keep it legible in grey."""
    c = sheet.c
    w = die_width(size, bool(sub))
    c.saveState()
    c.setFillColor(DICE[colour])
    c.roundRect(x, y, w, size, size * 0.2, stroke=0, fill=1)
    c.restoreState()
    lsize = max(MIN_TEXT, size * 0.72)
    if sub:
        lw = fonts.width(label, fonts.BOLD, lsize)
        sw = fonts.width(sub, fonts.BOLD, MIN_TEXT)
        x0 = x + (w - lw - sw - 0.3) / 2
        text(sheet, x0, y + size / 2 - lsize * 0.36, label, lsize, fonts.BOLD, white)
        text(sheet, x0 + lw + 0.3, y + size / 2 - MIN_TEXT * 0.36 - 0.6, sub, MIN_TEXT,
             fonts.BOLD, white)
    else:
        text(sheet, x + w / 2, y + size / 2 - lsize * 0.36, label, lsize, fonts.BOLD, white,
             "centre")
    return w


def die_width(size: float, lettered: bool) -> float:
    """A die's width: square, or wider to carry a colour letter (fixed, font-independent)."""
    return size + 3.6 if lettered else size


# --- mark regions -----------------------------------------------------------------------
def _box_outline(sheet: Sheet, x: float, y: float, w: float, h: float,
                 line: float = BOX_LINE) -> None:
    c = sheet.c
    c.saveState()
    c.setStrokeColor(BOX)
    c.setFillColor(white)
    c.setLineWidth(line)
    c.rect(x + line / 2, y + line / 2, w - line, h - line, stroke=1, fill=1)
    c.restoreState()


def checkbox(sheet: Sheet, region_id: str, x: float, y: float, w: float,
             h: float | None = None, points: str = "", group: str = "",
             tristate: bool = False, line: float = BOX_LINE) -> Rect:
    """A checkbox with its outer edge at [x, y, w, h]; `points` printed small inside
    (the score it is worth). `tristate`: an Executed box (empty / success / failed)."""
    h = w if h is None else h
    if min(w, h) < MIN_BOX - 1e-6:
        raise ValueError(f"{region_id}: box {w:.2f} x {h:.2f} pt is below {MIN_BOX:.2f} pt")
    _box_outline(sheet, x, y, w, h, line)
    if points:
        text_mid(sheet, x + w / 2, y + h / 2, points, MIN_TEXT, fonts.REGULAR, MUTED, "centre",
                 width=w - 1.5)
    r = rect(x, y, w, h)
    sheet.rec.region(region_id, "checkbox", r, group, printed=points)
    if sheet.form is not None:
        if tristate:
            sheet.form.executed(region_id, r)
        else:
            sheet.form.checkbox(region_id, r)
    return r


def bubble_circle(sheet: Sheet, region_id: str, cx: float, cy: float, d: float) -> Rect:
    """The printed circle of a bubble (diameter d, centred on cx, cy), checked against the
    smallest markable size; returns its rect."""
    if d < MIN_BOX - 1e-6:
        raise ValueError(f"{region_id}: bubble {d:.2f} pt is below {MIN_BOX:.2f} pt")
    c = sheet.c
    c.saveState()
    c.setStrokeColor(BOX)
    c.setFillColor(white)
    c.setLineWidth(BOX_LINE)
    c.circle(cx, cy, d / 2 - BOX_LINE / 2, stroke=1, fill=1)
    c.restoreState()
    return rect(cx - d / 2, cy - d / 2, d, d)


def bubble(sheet: Sheet, region_id: str, group: str, value: str, cx: float, cy: float,
           d: float) -> Rect:
    """A round bubble of diameter d centred on (cx, cy), one choice of radio `group`."""
    r = bubble_circle(sheet, region_id, cx, cy, d)
    sheet.rec.region(region_id, "bubble", r, group)
    if sheet.form is not None:
        sheet.form.radio(group, value, r)
    return r


def write_in(sheet: Sheet, region_id: str, x: float, y: float, w: float, h: float,
             group: str = "") -> Rect:
    """A text line to write on: a light box with a firmer baseline."""
    c = sheet.c
    c.saveState()
    c.setFillColor(white)
    c.setStrokeColor(RULE)
    c.setLineWidth(RULE_LINE)
    c.rect(x, y, w, h, stroke=1, fill=1)
    c.setStrokeColor(BOX)
    c.setLineWidth(BOX_LINE)
    c.line(x, y + BOX_LINE / 2, x + w, y + BOX_LINE / 2)
    c.restoreState()
    r = rect(x, y, w, h)
    sheet.rec.region(region_id, "text", r, group)
    if sheet.form is not None:
        sheet.form.text(region_id, r)
    return r


def digit_cells(sheet: Sheet, region_id: str, x: float, y: float, cell_w: float,
                h: float, n: int, group: str = "", line: float = BOX_LINE) -> Rect:
    """`n` adjacent write-in digit cells (a comb): one region, one rect per cell."""
    if min(cell_w, h) < MIN_BOX - 1e-6:
        raise ValueError(f"{region_id}: digit cell below {MIN_BOX:.2f} pt")
    c = sheet.c
    c.saveState()
    c.setStrokeColor(BOX)
    c.setFillColor(white)
    c.setLineWidth(line)
    c.rect(x + line / 2, y + line / 2, n * cell_w - line, h - line, stroke=1, fill=1)
    c.setStrokeColor(RULE)
    c.setLineWidth(RULE_LINE)
    for k in range(1, n):
        c.line(x + k * cell_w, y + h * 0.18, x + k * cell_w, y + h * 0.82)
    c.restoreState()
    cells = [rect(x + k * cell_w, y, cell_w, h) for k in range(n)]
    r = rect(x, y, n * cell_w, h)
    sheet.rec.region(region_id, "digits", r, group, cells)
    if sheet.form is not None:
        sheet.form.comb(region_id, r, n)
    return r
