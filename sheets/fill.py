"""Filled sheets: a career state drawn onto its sheet as a person would mark it.

The pure pieces are separate so the scanner's synthetic-photo generator can reuse them:

    mark_strokes(value, rect, style, rng, ink)   the strokes of one box or bubble
    digit_strokes(text, cells, style, rng, ink)  handwritten digits in digit cells
    name_ink(name, rect, style, rng, ink)        the written name (glyphs)
    plan_ink(state, rules, manifest, style, seed) every stroke and glyph of a sheet
    draw_ink(canvas, inks)                       render them with ReportLab
    fill_pdf(state, rules, paper, style, seed)   the filled PDF (blank sheet + ink)

Styles: 'clean' draws neat, centred crosses in black; 'pen' varies each mark (tick,
cross, or a box coloured in), misplaces it slightly (up to ~15% of the box), varies
stroke width and angle, and writes with one blue or black pen per sheet. A failed
Executed box is always a single diagonal stroke. Everything random comes from one
`random.Random(seed)`, so a (state, paper, style, seed) gives the same sheet every time.
"""

from __future__ import annotations

import io
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from reportlab.pdfgen.canvas import Canvas

from game.opial.marks import CHECKED, SLASHED, state_to_marks
from game.opial.rules import Rules
from game.opial.state import CareerState
from sheets import fonts
from sheets.manifest import Manifest, Rect

KIND = "opial-career"
STYLES = ("clean", "pen")
INKS: dict[str, tuple[float, float, float]] = {
    "black": (0.09, 0.09, 0.11),
    "blue": (0.10, 0.22, 0.62),
}
Point = tuple[float, float]


@dataclass(frozen=True)
class Stroke:
    """A pen stroke: a polyline in PDF points, its width and RGB colour (0..1)."""

    points: tuple[Point, ...]
    width: float
    colour: tuple[float, float, float]


@dataclass(frozen=True)
class Glyph:
    """A written character: baseline origin, size, rotation (degrees), font, colour, and
    `pen`: the width of a pen stroke traced round its outline (0 = filled only)."""

    char: str
    x: float
    y: float
    size: float
    angle: float
    font: str
    colour: tuple[float, float, float]
    pen: float = 0.0


Ink = Stroke | Glyph


def _check_style(style: str) -> None:
    if style not in STYLES:
        raise ValueError(f"unknown fill style {style!r} (use {', '.join(STYLES)})")


def _transform(pts: Iterable[Point], r: Rect, dx: float, dy: float, angle: float,
               scale: float) -> tuple[Point, ...]:
    """Unit-square points into rect r, rotated by `angle` about its centre and shifted."""
    x, y, w, h = r
    cx, cy = x + w / 2, y + h / 2
    ca, sa = math.cos(angle), math.sin(angle)
    out = []
    for u, v in pts:
        px, py = (u - 0.5) * w * scale, (v - 0.5) * h * scale
        out.append((round(cx + dx + px * ca - py * sa, 3), round(cy + dy + px * sa + py * ca, 3)))
    return tuple(out)


def _bend(pts: Sequence[Point], rng: random.Random, amount: float) -> tuple[Point, ...]:
    """Insert a slightly displaced midpoint in each segment (a hand is never straight)."""
    out: list[Point] = [pts[0]]
    for a, b in pairwise(pts):
        mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
        nx, ny = -(b[1] - a[1]), b[0] - a[0]
        n = math.hypot(nx, ny) or 1.0
        k = rng.uniform(-amount, amount)
        out.extend([(mx + nx / n * k, my + ny / n * k), b])
    return tuple(out)


def mark_strokes(value: str, r: Rect, style: str, rng: random.Random,
                 ink: tuple[float, float, float] = INKS["black"],
                 shape: str = "box") -> list[Stroke]:
    """The strokes marking one region with `value` ('checked' or 'slashed'; anything
    else draws nothing). `shape` is 'box' or 'bubble'."""
    _check_style(style)
    if value not in (CHECKED, SLASHED):
        return []
    w, h = r[2], r[3]
    size = min(w, h)
    if style == "clean":
        width = 1.1
        if value == SLASHED:
            return [Stroke(_transform([(0.2, 0.2), (0.8, 0.8)], r, 0, 0, 0, 1), width, ink)]
        return [Stroke(_transform([(0.2, 0.2), (0.8, 0.8)], r, 0, 0, 0, 1), width, ink),
                Stroke(_transform([(0.2, 0.8), (0.8, 0.2)], r, 0, 0, 0, 1), width, ink)]
    width = rng.uniform(0.75, 1.6)
    dx = rng.uniform(-0.15, 0.15) * size
    dy = rng.uniform(-0.15, 0.15) * size
    angle = math.radians(rng.uniform(-9, 9))
    scale = rng.uniform(0.9, 1.12)
    bend = size * 0.05

    def stroke(pts: Sequence[Point], wid: float = width) -> Stroke:
        return Stroke(_bend(_transform(pts, r, dx, dy, angle, scale), rng, bend), round(wid, 3),
                      ink)

    if value == SLASHED:
        a = (rng.uniform(0.12, 0.25), rng.uniform(0.1, 0.22))
        b = (rng.uniform(0.75, 0.9), rng.uniform(0.78, 0.92))
        return [stroke([a, b])]
    kind = rng.choices(("cross", "tick", "fill"), weights=(5, 3, 1.2 if shape == "box" else 2))[0]
    if kind == "cross":
        j = [rng.uniform(-0.06, 0.06) for _ in range(8)]
        return [stroke([(0.18 + j[0], 0.2 + j[1]), (0.82 + j[2], 0.8 + j[3])]),
                stroke([(0.2 + j[4], 0.82 + j[5]), (0.8 + j[6], 0.18 + j[7])])]
    if kind == "tick":
        return [stroke([(0.15, rng.uniform(0.45, 0.6)), (rng.uniform(0.35, 0.45), 0.15),
                        (rng.uniform(0.8, 0.95), rng.uniform(0.85, 1.0))], width * 1.1)]
    # coloured in: a tight zigzag covering most of the box
    rows = max(4, int(size / 1.6))
    pts: list[Point] = []
    for i in range(rows):
        v = 0.12 + 0.76 * i / (rows - 1)
        u0, u1 = rng.uniform(0.08, 0.18), rng.uniform(0.82, 0.92)
        pts.extend([(u0, v), (u1, v)] if i % 2 == 0 else [(u1, v), (u0, v)])
    return [Stroke(_transform(pts, r, dx * 0.4, dy * 0.4, angle * 0.5, 1.0),
                   round(max(width, 1.3) * 1.2, 3), ink)]


# --- handwritten digits: a small single-stroke font in a unit box (x right, y up) ----------
DIGIT_STROKES: dict[str, tuple[tuple[Point, ...], ...]] = {
    "0": (tuple((0.5 + 0.42 * math.sin(t * math.pi / 6), 0.5 + 0.5 * math.cos(t * math.pi / 6))
                for t in range(13)),),
    "1": (((0.28, 0.78), (0.55, 1.0), (0.55, 0.0)),),
    "2": (((0.1, 0.75), (0.3, 0.97), (0.7, 0.97), (0.88, 0.75), (0.78, 0.5), (0.1, 0.0),
           (0.92, 0.0)),),
    "3": (((0.12, 0.9), (0.45, 1.0), (0.82, 0.88), (0.8, 0.62), (0.45, 0.52), (0.85, 0.4),
           (0.88, 0.12), (0.5, 0.0), (0.1, 0.1)),),
    "4": (((0.7, 0.0), (0.7, 1.0), (0.05, 0.3), (0.95, 0.3)),),
    "5": (((0.85, 1.0), (0.2, 1.0), (0.15, 0.55), (0.55, 0.62), (0.88, 0.4), (0.8, 0.08),
           (0.45, 0.0), (0.1, 0.1)),),
    "6": (((0.8, 0.95), (0.45, 1.0), (0.15, 0.7), (0.1, 0.3), (0.3, 0.02), (0.7, 0.02),
           (0.9, 0.25), (0.75, 0.5), (0.4, 0.52), (0.12, 0.35)),),
    "7": (((0.08, 1.0), (0.92, 1.0), (0.4, 0.0)),),
    "8": (((0.5, 0.55), (0.18, 0.75), (0.3, 0.98), (0.7, 0.98), (0.82, 0.75), (0.5, 0.55),
           (0.12, 0.3), (0.25, 0.02), (0.75, 0.02), (0.88, 0.3), (0.5, 0.55)),),
    "9": (((0.88, 0.65), (0.6, 0.5), (0.25, 0.55), (0.12, 0.78), (0.35, 1.0), (0.75, 0.98),
           (0.88, 0.7), (0.8, 0.2), (0.5, 0.0), (0.15, 0.08)),),
    "-": (((0.15, 0.5), (0.85, 0.5)),),
    "+": (((0.15, 0.5), (0.85, 0.5)), ((0.5, 0.18), (0.5, 0.82))),
}


def digit_cells_text(value: int, cells: int) -> list[str]:
    """A number right-aligned in `cells` cells, a minus sign in its own cell."""
    s = str(value)
    if len(s) > cells:
        raise ValueError(f"{value} does not fit in {cells} digit cells")
    return [""] * (cells - len(s)) + list(s)


def digit_strokes(chars: Sequence[str], cells: Sequence[Rect], style: str,
                  rng: random.Random, ink: tuple[float, float, float] = INKS["black"]
                  ) -> list[Stroke]:
    """Strokes writing one character per cell ('' leaves a cell empty)."""
    _check_style(style)
    out: list[Stroke] = []
    for ch, (x, y, w, h) in zip(chars, cells, strict=True):
        if not ch:
            continue
        if style == "clean":
            box = (x + w * 0.25, y + h * 0.2, w * 0.5, h * 0.6)
            dx = dy = angle = 0.0
            width = 1.0
        else:
            box = (x + w * rng.uniform(0.2, 0.3), y + h * rng.uniform(0.14, 0.24),
                   w * rng.uniform(0.45, 0.56), h * rng.uniform(0.55, 0.68))
            dx, dy = rng.uniform(-0.06, 0.06) * w, rng.uniform(-0.06, 0.06) * h
            angle = math.radians(rng.uniform(-8, 4) - 6)
            width = rng.uniform(0.8, 1.2)
        for pts in DIGIT_STROKES[ch]:
            jittered = pts if style == "clean" else tuple(
                (u + rng.uniform(-0.05, 0.05), v + rng.uniform(-0.04, 0.04)) for u, v in pts)
            out.append(Stroke(_transform(jittered, box, dx, dy, angle, 1.0), round(width, 3), ink))
    return out


def name_ink(name: str, r: Rect, style: str, rng: random.Random,
             ink: tuple[float, float, float] = INKS["black"]) -> list[Glyph]:
    """The name written on its line: typeset neatly ('clean'), or in a handwriting font
    when one is installed, else the sheet's oblique face with jittered glyphs ('pen')."""
    _check_style(style)
    fonts.register()
    x, y, w, h = r
    if not name:
        return []
    if style == "clean":
        font, size = fonts.ITALIC, min(11.0, h * 0.6)
        while size > 6.5 and fonts.width(name, font, size) > w - 8:
            size -= 0.5
        return [Glyph(name, round(x + 4, 3), round(y + h * 0.28, 3), size, 0.0, font, ink)]
    hand = fonts.hand_font()
    font = hand or fonts.ITALIC
    size = min(13.0, h * 0.72) * rng.uniform(0.9, 1.05)
    total = fonts.width(name, font, size) * 1.08
    if total > w - 8:
        size *= (w - 8) / total
    cx = x + 4 + rng.uniform(0, max(0.0, min(20.0, w - 8 - total)))
    base = y + h * rng.uniform(0.22, 0.32)
    slope = rng.uniform(-0.02, 0.03)
    pen = 0.0 if hand else round(rng.uniform(0.25, 0.45), 3)  # a rounder, inkier stroke
    out = []
    for ch in name:
        s = size * rng.uniform(0.92, 1.08)
        out.append(Glyph(ch, round(cx, 3), round(base + rng.uniform(-0.7, 0.7), 3), round(s, 3),
                         round(rng.uniform(-5, 5) + math.degrees(slope), 3), font, ink, pen))
        cx += fonts.width(ch, font, s) * rng.uniform(1.0, 1.12)
        base += fonts.width(ch, font, s) * slope
    return out


def plan_ink(state: CareerState, rules: Rules, manifest: Manifest, style: str,
             seed: int = 0) -> list[Ink]:
    """Every stroke and glyph that fills `manifest`'s sheet with `state`."""
    _check_style(style)
    rng = random.Random(seed)
    ink = INKS["black"] if style == "clean" else INKS[rng.choice(("blue", "black"))]
    marks = state_to_marks(state, rules)
    regions = manifest.by_id()
    out: list[Ink] = []
    for rid, value in marks.items():
        reg = regions[rid]
        if reg.kind in ("checkbox", "bubble") and value in (CHECKED, SLASHED):
            out.extend(mark_strokes(str(value), reg.rect, style, rng, ink,
                                    "bubble" if reg.kind == "bubble" else "box"))
        elif reg.kind == "digits" and isinstance(value, int):
            out.extend(digit_strokes(digit_cells_text(value, len(reg.cells)), reg.cells, style,
                                     rng, ink))
        elif reg.kind == "text" and isinstance(value, str) and value:
            out.extend(name_ink(value, reg.rect, style, rng, ink))
    return out


def draw_ink(c: Canvas, inks: Iterable[Ink]) -> None:
    """Render strokes (round caps and joins) and glyphs onto a ReportLab canvas."""
    fonts.register()
    for item in inks:
        c.saveState()
        if isinstance(item, Stroke):
            c.setStrokeColorRGB(*item.colour)
            c.setLineWidth(item.width)
            c.setLineCap(1)
            c.setLineJoin(1)
            p = c.beginPath()
            p.moveTo(*item.points[0])
            for pt in item.points[1:]:
                p.lineTo(*pt)
            c.drawPath(p, stroke=1, fill=0)
        else:
            c.setFillColorRGB(*item.colour)
            c.translate(item.x, item.y)
            c.rotate(item.angle)
            t = c.beginText(0, 0)
            t.setFont(item.font, item.size)
            if item.pen:
                c.setStrokeColorRGB(*item.colour)
                c.setLineWidth(item.pen)
                c.setLineJoin(1)
                t.setTextRenderMode(2)  # fill, then stroke the outline
            t.textOut(item.char)
            c.drawText(t)
        c.restoreState()


def fill_pdf(state: CareerState, rules: Rules, paper: str = "letter", style: str = "pen",
             seed: int = 0) -> bytes:
    """The career sheet for `rules.edition` on `paper`, filled with `state`."""
    from pypdf import PdfReader, PdfWriter

    from sheets.render import render

    _check_style(style)
    blank = render(KIND, rules.edition, paper)
    manifest = blank.manifest
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=manifest.page_size, invariant=True, pageCompression=True,
               initialFontName=fonts.REGULAR, initialFontSize=7)
    draw_ink(c, plan_ink(state, rules, manifest, style, seed))
    c.showPage()
    c.save()
    writer = PdfWriter(clone_from=io.BytesIO(blank.pdf))
    writer.pages[0].merge_page(PdfReader(io.BytesIO(buf.getvalue())).pages[0])
    writer.add_metadata({"/Subject": manifest.code,
                         "/Title": f"OPIAL career of {state.name or 'an officer'}"})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
