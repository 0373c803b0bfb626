"""Odds cards: printable reference cards of exact odds, shared drawing.

A card is a list of blocks (heat-shaded tables, line charts, small print) flowed onto as
many pages as the paper needs, under a title band and above a footer, in the house style
of the Spacer reference card (sheets/spacer_card.py): section bands, tinted header
strips, embedded sheet fonts, nothing under 6.5 pt. A table too wide for the paper is
split into column chunks; a block never breaks across pages.

The cards themselves (what the numbers are) live in sheets/odds_card_opial.py,
odds_card_spacer.py and odds_card_pool.py; every number on them comes from the games'
exact odds engines. A card has no mark regions; like every sheet its pages carry the
fiducials and sheet code, so a scanner can tell it is not a form.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from reportlab.lib.colors import Color, HexColor, white

from sheets import fonts
from sheets.draw import (
    ACCENT,
    DICE,
    INK,
    MIN_TEXT,
    MUTED,
    RULE,
    TINT,
    Sheet,
    band,
    fill_rect,
    hline,
    text,
    text_mid,
    vline,
)
from sheets.spacer_draw import GAP, HEAD, STRIPE, SUB, wide

DASH = "–"  # an outcome that cannot happen
EPS = 1e-9  # float noise of the DPs: within this of 0 or 1 is exactly 0 or 1
PCT_NOTE = (f"Percent, rounded to the nearest whole number; <1 and >99: possible but "
            f"rarer than 1 in 200; {DASH}: cannot happen; 100: certain.")

# Heat ramps: white to a blue (chances of success) or to a warm red (botches).
RAMPS = {"cool": (HexColor("#FFFFFF"), HexColor("#DDE8F5"), HexColor("#8FB0DA")),
         "warm": (HexColor("#FFFFFF"), HexColor("#F8E2DA"), HexColor("#E7A38F"))}
NOT_YET = HexColor("#F4F5F7")  # a cell that does not apply (below a mission's rank)
SERIES = (HexColor("#1F3A5F"), HexColor("#1F7FD0"), HexColor("#2E7D32"),
          HexColor("#E08E0B"), HexColor("#C62828"), HexColor("#6A3D9A"))
DASHES: tuple[tuple[float, ...], ...] = ((), (3.0, 1.6), (1.0, 1.4), (4.0, 1.5, 1.0, 1.5),
                                         (2.0, 2.0), (6.0, 2.0))


def pct_cell(p: float) -> str:
    """A probability as a whole percentage that never rounds a possibility to 0 or 100."""
    p = float(p)
    if p <= EPS:
        return DASH
    if p >= 1 - EPS:
        return "100"
    x = 100 * p
    if x < 0.5:
        return "<1"
    if x >= 99.5:
        return ">99"
    return str(math.floor(x + 0.5))


def mix(a: Color, b: Color, t: float) -> Color:
    return Color(a.red + (b.red - a.red) * t, a.green + (b.green - a.green) * t,
                 a.blue + (b.blue - a.blue) * t)


def heat(p: float, ramp: str = "cool") -> Color:
    """The cell shade of a probability (0 white, 1 the ramp's full colour)."""
    lo, mid, hi = RAMPS[ramp]
    p = min(1.0, max(0.0, float(p)))
    return mix(lo, mid, p / 0.5) if p < 0.5 else mix(mid, hi, (p - 0.5) / 0.5)


# --- style -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Style:
    """Sizes of one paper: table row pitch, cell text, narrowest number column, chart."""

    row: float
    size: float
    min_col: float
    chart_h: float
    note: float  # small-print size

    @property
    def small(self) -> float:
        return max(MIN_TEXT, self.size - 0.8)


def style_for(sheet: Sheet) -> Style:
    if wide(sheet):
        return Style(row=10.6, size=7.6, min_col=19.0, chart_h=132.0, note=7.0)
    return Style(row=9.4, size=7.0, min_col=17.0, chart_h=104.0, note=MIN_TEXT)


HINT = HexColor("#C9D6E6")


def section(sheet: Sheet, x: float, top: float, width: float, title: str,
            hint: str = "") -> float:
    """A section band: white title, the hint at the right when the band has room for it
    (a narrow paper drops it rather than squeeze it); returns the y below the band."""
    band(sheet, x, top - HEAD, width, HEAD)
    tw = text_mid(sheet, x + 4, top - HEAD / 2, title.upper(), 7.0, fonts.BOLD, white,
                  width=width - 8)
    room = width - tw - 16
    if hint and fonts.width(hint, fonts.REGULAR, MIN_TEXT) <= room:
        text_mid(sheet, x + width - 4, top - HEAD / 2, hint, MIN_TEXT, fonts.REGULAR, HINT,
                 "right")
    return top - HEAD


def tokens(sheet: Sheet, x: float, y_mid: float, s: str, size: float, width: float) -> None:
    """A roll written as tokens ('4+ 5+B 6+R'), each coloured by its die colour letter."""
    words = s.split()
    gap = size * 0.45
    total = sum(fonts.width(w, fonts.REGULAR, size) for w in words) + gap * (len(words) - 1)
    if total > width:
        size = max(MIN_TEXT, size * width / total)
        gap = size * 0.45
    for w in words:
        colour = DICE.get(w[-1], INK) if w[-1] in "BGR" else INK
        x += text_mid(sheet, x, y_mid, w, size, fonts.BOLD if w[-1] in "BGR" else
                      fonts.REGULAR, colour) + gap


class Block(Protocol):
    def height(self, width: float, st: Style) -> float: ...

    def draw(self, sheet: Sheet, x: float, top: float, width: float, st: Style) -> None: ...

    def split(self, width: float, st: Style) -> list[Block]: ...


# --- heat tables -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Lead:
    """A text column at the left of a table (row labels, rolls...)."""

    title: str
    values: tuple[str, ...]
    bold: bool = False
    align: str = "left"
    colour: Color = INK
    dice: bool = False  # values are rolls: tokens coloured by their die letter

    def width(self, st: Style) -> float:
        font = fonts.BOLD if self.bold or self.dice else fonts.REGULAR
        return max([fonts.width(self.title, fonts.BOLD, MIN_TEXT)]
                   + [fonts.width(v, font, st.size) for v in self.values]) + 8


HeadDraw = Callable[[Sheet, int, float, float, float, float], None]


@dataclass(frozen=True)
class HeatTable:
    """A table of probabilities: lead text columns, then number columns in groups, each
    cell shaded by its value. `second` adds a small muted second number to each cell
    (Spacer ties). A cell of None does not apply (drawn empty on a light grey)."""

    title: str
    hint: str
    leads: tuple[Lead, ...]
    groups: tuple[tuple[str, tuple[str, ...]], ...]  # (group title or '', column titles)
    values: tuple[tuple[float | None, ...], ...]  # rows x all number columns
    second: tuple[tuple[float | None, ...], ...] | None = None
    ramps: tuple[str, ...] | None = None  # per number column: 'cool' | 'warm'
    head: HeadDraw | None = None  # custom column heading: (sheet, col, x, y, w, h)
    head_h: float = SUB
    corner: str = ""  # printed in the group row above the leads ("Computer re-rolls →")
    rules_before: tuple[int, ...] = ()  # rows with a firmer rule above them
    cols: tuple[int, ...] | None = None  # the original column indices (set by split)

    @property
    def n_cols(self) -> int:
        return sum(len(g[1]) for g in self.groups)

    @property
    def col_index(self) -> tuple[int, ...]:
        return self.cols if self.cols is not None else tuple(range(self.n_cols))

    def lead_width(self, st: Style) -> float:
        return sum(lead.width(st) for lead in self.leads)

    def min_col(self, st: Style) -> float:
        """The narrowest number column: the style's (wider with a second number), or
        what the widest column heading needs."""
        heads = [0.0] if self.head is not None else [
            fonts.width(line, fonts.BOLD, MIN_TEXT) + 3
            for _g, cols in self.groups for c in cols for line in c.split("\n")]
        return max(st.min_col * (1.45 if self.second is not None else 1.0), *heads)

    def has_group_row(self) -> bool:
        return any(g[0] for g in self.groups) or bool(self.corner)

    def height(self, width: float, st: Style) -> float:
        return (HEAD + (SUB if self.has_group_row() else 0) + self.head_h
                + len(self.values) * st.row + 1.0)

    def split(self, width: float, st: Style) -> list[Block]:
        """Chunks of whole groups (or of columns, for one untitled group) that fit."""
        room = width - self.lead_width(st)
        fit = max(1, int(room // self.min_col(st)))
        if self.n_cols <= fit:
            return [self]
        titled = len(self.groups) > 1 or bool(self.groups[0][0])
        units: list[list[tuple[str, tuple[str, ...], tuple[int, ...]]]] = []
        start = 0
        pieces: list[tuple[str, tuple[str, ...], tuple[int, ...]]] = []
        for gt, cols in self.groups:
            idx = tuple(range(start, start + len(cols)))
            start += len(cols)
            if titled:
                pieces.append((gt, cols, idx))
            else:
                pieces += [(gt, (c,), (i,)) for c, i in zip(cols, idx, strict=True)]
        size = max(len(p[2]) for p in pieces)
        per = max(1, fit // size)  # pieces per chunk
        n_chunks = math.ceil(len(pieces) / per)
        per = math.ceil(len(pieces) / n_chunks)  # even chunks
        for k in range(n_chunks):
            units.append(pieces[k * per:(k + 1) * per])
        out: list[Block] = []
        for k, unit in enumerate(units):
            if titled:
                groups = tuple((gt, cols) for gt, cols, _ in unit)
            else:
                groups = (("", tuple(c for _, cs, _ in unit for c in cs)),)
            idx = tuple(i for _, _, ids in unit for i in ids)
            local = [self.col_index[i] for i in idx]
            title = self.title if k == 0 else f"{self.title} (continued)"
            out.append(replace(
                self, title=title, groups=groups,
                values=tuple(tuple(r[i] for i in idx) for r in self.values),
                second=None if self.second is None else
                tuple(tuple(r[i] for i in idx) for r in self.second),
                ramps=None if self.ramps is None else tuple(self.ramps[i] for i in idx),
                cols=tuple(local)))
        return out

    def draw(self, sheet: Sheet, x: float, top: float, width: float, st: Style) -> None:
        y = section(sheet, x, top, width, self.title, self.hint)
        lead_w = [lead.width(st) for lead in self.leads]
        spare = width - sum(lead_w) - self.n_cols * self.min_col(st)
        # leads take a little of the spare room, the number columns the rest
        lead_extra = min(spare * 0.25, 24.0) / max(1, len(self.leads)) if spare > 0 else 0
        lead_w = [w + lead_extra for w in lead_w]
        num_x = x + sum(lead_w)
        col_w = (x + width - num_x) / self.n_cols
        if self.has_group_row():
            fill_rect(sheet, x, y - SUB, width, SUB, white)
            if self.corner:
                text_mid(sheet, num_x - 4, y - SUB / 2, self.corner, MIN_TEXT, fonts.ITALIC,
                         MUTED, "right", width=num_x - x - 6)
            cx = num_x
            for gt, cols in self.groups:
                gw = col_w * len(cols)
                if gt:
                    text_mid(sheet, cx + gw / 2, y - SUB / 2 + 0.5, gt, MIN_TEXT, fonts.BOLD,
                             ACCENT, "centre", width=gw - 3)
                    hline(sheet, cx + 2, cx + gw - 2, y - SUB + 0.8, ACCENT, 0.6)
                cx += gw
            y -= SUB
        # column headings
        fill_rect(sheet, x, y - self.head_h, width, self.head_h, STRIPE)
        lx = x
        for lead, w in zip(self.leads, lead_w, strict=True):
            tx = {"left": lx + 3, "centre": lx + w / 2, "right": lx + w - 3}[lead.align]
            text_mid(sheet, tx, y - self.head_h / 2, lead.title, MIN_TEXT, fonts.BOLD, ACCENT,
                     lead.align, width=w - 4)
            lx += w
        titles = [c for _, cols in self.groups for c in cols]
        for j, t in enumerate(titles):
            cx = num_x + j * col_w
            if self.head is not None:
                self.head(sheet, self.col_index[j], cx, y - self.head_h, col_w, self.head_h)
            elif "\n" in t:  # two lines: a name over a number
                top_line, low_line = t.split("\n", 1)
                text_mid(sheet, cx + col_w / 2, y - self.head_h * 0.3, top_line, MIN_TEXT,
                         fonts.REGULAR, ACCENT, "centre", width=col_w - 2)
                text_mid(sheet, cx + col_w / 2, y - self.head_h * 0.72, low_line, MIN_TEXT,
                         fonts.BOLD, ACCENT, "centre", width=col_w - 2)
            else:
                text_mid(sheet, cx + col_w / 2, y - self.head_h / 2, t, MIN_TEXT, fonts.BOLD,
                         ACCENT, "centre", width=col_w - 2)
        y -= self.head_h
        # group separators through the body
        body_top = y
        body_bottom = y - len(self.values) * st.row
        for i, row in enumerate(self.values):
            ry = y - st.row
            if i % 2 == 1:
                fill_rect(sheet, x, ry, num_x - x, st.row, TINT)
            if i in self.rules_before:
                hline(sheet, x, x + width, y, ACCENT, 0.6)
            mid = ry + st.row / 2
            lx = x
            for lead, w in zip(self.leads, lead_w, strict=True):
                tx = {"left": lx + 3, "centre": lx + w / 2, "right": lx + w - 3}[lead.align]
                colour = ACCENT if lead.bold else lead.colour
                if lead.dice:
                    tokens(sheet, lx + 3, mid, lead.values[i], st.size, w - 6)
                else:
                    text_mid(sheet, tx, mid, lead.values[i], st.size,
                             fonts.BOLD if lead.bold else fonts.REGULAR, colour, lead.align,
                             width=w - 4)
                lx += w
            for j, p in enumerate(row):
                cx = num_x + j * col_w
                if p is None:
                    fill_rect(sheet, cx + 0.35, ry + 0.35, col_w - 0.7, st.row - 0.7, NOT_YET)
                    continue
                ramp = self.ramps[j] if self.ramps else "cool"
                fill_rect(sheet, cx + 0.35, ry + 0.35, col_w - 0.7, st.row - 0.7, heat(p, ramp))
                s = pct_cell(p)
                colour = MUTED if s == DASH else INK
                if self.second is None:
                    text_mid(sheet, cx + col_w / 2, mid, s, st.size, fonts.REGULAR, colour,
                             "centre", width=col_w - 2)
                else:
                    q = self.second[i][j]
                    text_mid(sheet, cx + col_w * 0.44, mid, s, st.size, fonts.REGULAR, colour,
                             "right", width=col_w * 0.44 - 1)
                    if q is not None and q > EPS:
                        text_mid(sheet, cx + col_w - 2, mid - 0.4, pct_cell(q), MIN_TEXT,
                                 fonts.ITALIC, MUTED, "right", width=col_w * 0.5 - 3)
            y = ry
        # a light grid between number columns, firmer between groups
        for j in range(1, self.n_cols):
            vline(sheet, num_x + j * col_w, body_bottom, body_top, RULE, 0.25)
        cx = num_x
        for _gt, cols in self.groups[:-1]:
            cx += col_w * len(cols)
            vline(sheet, cx, body_bottom, body_top + self.head_h, ACCENT, 0.6)
        vline(sheet, num_x, body_bottom, body_top, RULE, 0.5)
        hline(sheet, x, x + width, body_bottom, ACCENT, 0.8)


# --- line charts -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Series:
    label: str
    ys: tuple[float, ...]  # probabilities, one per x of the panel


@dataclass(frozen=True)
class Panel:
    title: str
    xs: tuple[float, ...]
    series: tuple[Series, ...]
    y_max: float = 1.0  # the top of the y axis (1.0 = 100 %)


@dataclass(frozen=True)
class LineChart:
    """Small multiples: one panel per case, one line per series (the same series in every
    panel, in the same colour and dash, named once in the legend), y from 0 to 100 %."""

    title: str
    hint: str
    panels: tuple[Panel, ...]
    x_label: str
    x_ticks: tuple[float, ...] = ()  # () = every 1, 2, 5 or 10 units, to suit the range
    legend_title: str = ""
    y_label: str = "%"
    min_panel: float = 118.0
    markers: bool = True

    def per_row(self, width: float) -> int:
        return max(1, min(len(self.panels), int((width + 8) // (self.min_panel + 8))))

    def height(self, width: float, st: Style) -> float:
        rows = math.ceil(len(self.panels) / self.per_row(width))
        return HEAD + 13.0 + rows * (st.chart_h + 4.0)

    def split(self, width: float, st: Style) -> list[Block]:
        return [self]

    def draw(self, sheet: Sheet, x: float, top: float, width: float, st: Style) -> None:
        y = section(sheet, x, top, width, self.title, self.hint)
        names = [s.label for s in self.panels[0].series]
        self._legend(sheet, x, y - 6.5, width, names)
        y -= 13.0
        n = self.per_row(width)
        gap = 8.0
        pw = (width - gap * (n - 1)) / n
        for k, panel in enumerate(self.panels):
            r, c = divmod(k, n)
            px = x + c * (pw + gap)
            ptop = y - r * (st.chart_h + 4.0)
            self._panel(sheet, panel, names, px, ptop, pw, st.chart_h)

    def _legend(self, sheet: Sheet, x: float, y_mid: float, width: float,
                names: Sequence[str]) -> None:
        items = [(n, SERIES[i % len(SERIES)], DASHES[i % len(DASHES)])
                 for i, n in enumerate(names)]
        lead = f"{self.legend_title}:  " if self.legend_title else ""
        total = fonts.width(lead, fonts.BOLD, MIN_TEXT) + sum(
            18 + 4 + fonts.width(n, fonts.REGULAR, MIN_TEXT) + 10 for n, _, _ in items)
        cx = x + max(0.0, (width - total) / 2)
        if lead:
            cx += text_mid(sheet, cx, y_mid, lead, MIN_TEXT, fonts.BOLD, ACCENT)
        for name, colour, dash in items:
            self._stroke(sheet, [(cx, y_mid), (cx + 18, y_mid)], colour, dash)
            if self.markers:
                self._dot(sheet, cx + 9, y_mid, colour)
            cx += 22
            cx += text_mid(sheet, cx, y_mid, name, MIN_TEXT, fonts.REGULAR, INK) + 10

    @staticmethod
    def _stroke(sheet: Sheet, pts: Sequence[tuple[float, float]], colour: Color,
                dash: tuple[float, ...], w: float = 1.2) -> None:
        c = sheet.c
        c.saveState()
        c.setStrokeColor(colour)
        c.setLineWidth(w)
        c.setLineJoin(1)
        c.setLineCap(1 if not dash else 0)
        if dash:
            c.setDash(list(dash), 0)
        path = c.beginPath()
        path.moveTo(*pts[0])
        for p in pts[1:]:
            path.lineTo(*p)
        c.drawPath(path, stroke=1, fill=0)
        c.restoreState()

    @staticmethod
    def _dot(sheet: Sheet, x: float, y: float, colour: Color) -> None:
        c = sheet.c
        c.saveState()
        c.setFillColor(colour)
        c.setStrokeColor(white)
        c.setLineWidth(0.4)
        c.circle(x, y, 1.35, stroke=1, fill=1)
        c.restoreState()

    def _panel(self, sheet: Sheet, panel: Panel, names: Sequence[str], x: float, top: float,
               w: float, h: float) -> None:
        left, bottom, title_h = 17.0, 17.0, 10.0
        ax, ay = x + left, top - h + bottom
        aw, ah = w - left - 3.0, h - bottom - title_h
        text(sheet, ax + aw / 2, top - 7.5, panel.title, MIN_TEXT + 0.5, fonts.BOLD, ACCENT,
             "centre", width=w)
        fill_rect(sheet, ax, ay, aw, ah, HexColor("#FAFBFC"))
        top_pct = 100 * panel.y_max
        for k in range(5):
            v = top_pct * k / 4
            gy = ay + ah * k / 4
            hline(sheet, ax, ax + aw, gy, HexColor("#8C96A5") if k in (0, 4) else RULE,
                  0.5 if k in (0, 4) else 0.35)
            text_mid(sheet, ax - 2.5, gy, f"{v:g}", MIN_TEXT, fonts.REGULAR, MUTED, "right")
        x0, x1 = min(panel.xs), max(panel.xs)

        def px(v: float) -> float:
            return ax + (v - x0) / (x1 - x0) * aw if x1 > x0 else ax + aw / 2

        ticks = self.x_ticks or auto_ticks(x0, x1)
        for t in ticks:
            if x0 <= t <= x1:
                vline(sheet, px(t), ay, ay + ah, RULE, 0.25)
                text(sheet, px(t), ay - 7.5, f"{t:g}", MIN_TEXT, fonts.REGULAR, MUTED, "centre")
        text(sheet, ax + aw / 2, ay - 15.5, self.x_label, MIN_TEXT, fonts.ITALIC, MUTED,
             "centre", width=aw)
        for i, name in enumerate(names):
            s = next(s for s in panel.series if s.label == name)
            pts = [(px(xv), ay + ah * min(1.0, max(0.0, float(yv) / panel.y_max)))
                   for xv, yv in zip(panel.xs, s.ys, strict=True)]
            colour, dash = SERIES[i % len(SERIES)], DASHES[i % len(DASHES)]
            self._stroke(sheet, pts, colour, dash)
            if self.markers:
                for p in pts:
                    self._dot(sheet, p[0], p[1], colour)
        c = sheet.c
        c.saveState()
        c.setStrokeColor(HexColor("#8C96A5"))
        c.setLineWidth(0.5)
        c.rect(ax, ay, aw, ah, stroke=1, fill=0)
        c.restoreState()


def auto_ticks(x0: float, x1: float) -> tuple[float, ...]:
    span = x1 - x0
    step = next((s for s in (1, 2, 5, 10, 20, 50) if span / s <= 10), 100)
    first = math.ceil(x0 / step) * step
    return tuple(float(v) for v in range(int(first), int(x1) + 1, step))


# --- small print -----------------------------------------------------------------------------
def wrap(s: str, font: str, size: float, width: float) -> list[str]:
    """Greedy word wrap of one paragraph to `width`."""
    lines: list[str] = []
    line = ""
    for word in s.split():
        trial = f"{line} {word}" if line else word
        if line and fonts.width(trial, font, size) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    if line:
        lines.append(line)
    return lines


@dataclass(frozen=True)
class Notes:
    """Paragraphs of small print under an optional section band; `bold` leads each
    paragraph up to its first colon."""

    items: tuple[str, ...]
    title: str = ""
    hint: str = ""
    bullets: bool = True

    def _lines(self, width: float, st: Style) -> list[tuple[str, bool]]:
        out: list[tuple[str, bool]] = []
        indent = 8.0 if self.bullets else 0.0
        for item in self.items:
            for k, line in enumerate(wrap(item, fonts.REGULAR, st.note, width - indent - 6)):
                out.append((line, k == 0))
        return out

    def leading(self, st: Style) -> float:
        return st.note * 1.32

    def height(self, width: float, st: Style) -> float:
        return ((HEAD + 3.0 if self.title else 0.0) + len(self._lines(width, st))
                * self.leading(st) + 2.0)

    def split(self, width: float, st: Style) -> list[Block]:
        return [self]

    def draw(self, sheet: Sheet, x: float, top: float, width: float, st: Style) -> None:
        y = top
        if self.title:
            y = section(sheet, x, top, width, self.title, self.hint) - 3.0
        indent = 8.0 if self.bullets else 0.0
        for line, first in self._lines(width, st):
            y -= self.leading(st)
            if first and self.bullets:
                text(sheet, x + 3, y + 1.0, "•", st.note, fonts.BOLD, ACCENT)
            text(sheet, x + indent, y + 1.0, line, st.note, fonts.REGULAR, INK,
                 width=width - indent)


# --- the card --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Head:
    """What the title band and footer say."""

    game: str  # e.g. "OPIAL"
    title: str  # e.g. "Odds card"
    subtitle: str
    footer_note: str
    credit: str


@dataclass
class Laid:
    pages: list[list[tuple[Block, float]]] = field(default_factory=list)


def layout_blocks(sheet: Sheet, items: Sequence[Block], st: Style) -> Laid:
    """Split the blocks to the frame's width and place them on pages (tops in points):
    a block goes to the next page when it does not fit; the space left on a page is
    shared out between its blocks (at most 10 pt more per gap)."""
    _fx, fy, fw, fh = sheet.frame
    top = fy + fh
    blocks = [b for item in items for b in item.split(fw, st)]
    pages: list[list[tuple[Block, float]]] = [[]]
    heights: list[list[float]] = [[]]
    y = top
    for b in blocks:
        h = b.height(fw, st)
        if h > fh + 1e-6:
            raise ValueError(f"{sheet.kind.id}: a block of {h:.0f} pt does not fit on "
                             f"{sheet.paper.name} ({fh:.0f} pt)")
        if pages[-1] and y - h < fy - 1e-6:
            pages.append([])
            heights.append([])
            y = top
        pages[-1].append((b, y))
        heights[-1].append(h)
        y -= h + GAP
    laid = Laid()
    for page, hs in zip(pages, heights, strict=True):
        used = sum(hs) + GAP * (len(hs) - 1)
        extra = min(10.0, (fh - used) / len(hs)) if len(hs) > 1 else 0.0
        y = top
        placed = []
        for (b, _), h in zip(page, hs, strict=True):
            placed.append((b, y))
            y -= h + GAP + extra
        laid.pages.append(placed)
    return laid


def title_band(sheet: Sheet, head: Head) -> None:
    bx, by, bw, bh = sheet.top_band
    big = 15.0 if bw > 200 else 12.5
    w = text(sheet, bx, by + bh - big + 1.0, head.game, big, fonts.BOLD, ACCENT, spacing=1.4,
             width=bw * 0.5)
    text(sheet, bx + w + 7, by + bh - big + 1.0, head.title.upper(), 8.5 if bw > 200 else 7.5,
         fonts.BOLD, INK, width=bw - w - 8)
    band(sheet, bx, by + bh - big - 4.2, bw, 1.2, ACCENT)
    text(sheet, bx, by + bh - big - 13.5, head.subtitle, MIN_TEXT, fonts.ITALIC, MUTED,
         width=bw)


def footer(sheet: Sheet, head: Head, page: int, pages: int) -> None:
    bx, by, bw, bh = sheet.bottom_band
    mid = bx + bw / 2
    text(sheet, mid, by + bh - 11.0, head.footer_note, MIN_TEXT, fonts.REGULAR, MUTED, "centre",
         width=bw)
    where = f"page {page} of {pages}  ·  " if pages > 1 else ""
    text(sheet, mid, by + bh - 20.5, f"{where}sheet {sheet.code}", MIN_TEXT, fonts.BOLD, MUTED,
         "centre", width=bw)
    text(sheet, mid, by + 3.0, head.credit, MIN_TEXT, fonts.ITALIC, MUTED, "centre", width=bw)


def draw_card(sheet: Sheet, head: Head, items: Sequence[Block]) -> None:
    """Flow `items` onto as many pages as they need, each with title band and footer."""
    st = style_for(sheet)
    fx, _fy, fw, _fh = sheet.frame
    laid = layout_blocks(sheet, items, st)
    n = len(laid.pages)
    for k, page in enumerate(laid.pages):
        if k:
            sheet.new_page()
        title_band(sheet, head)
        for b, top in page:
            b.draw(sheet, fx, top, fw, st)
        footer(sheet, head, k + 1, n)
