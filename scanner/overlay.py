"""The overlay: the rectified sheet with every region outlined by what was read.

checked green, empty grey, cancelled orange, review red, slashed blue; written fields
(digits, name, a form's text lines) purple, and what was read in them listed in a margin
right of the page, row by row at each row's height (red, with a "?" and the confidence,
when read too unsurely to be used). Above the page a band with the score, what to
look at, any score line the player miscounted, and a key to the colours. Nothing is
drawn over the sheet but the outlines, so no label hides what the player wrote. What a
person would rather look at than read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from scanner.fields import OCR_TRUST, unsure
from scanner.pipeline import SheetResult
from sheets.fonts import BOLD, REGULAR, ttf_path

COLOURS = {  # BGR
    "checked": (40, 160, 40),
    "empty": (150, 150, 150),
    "cancelled": (0, 140, 255),
    "review": (0, 0, 230),
    "slashed": (220, 90, 0),
    "field": (160, 40, 160),
}

LEGEND = (("checked", "checked"), ("slashed", "slashed (failed)"),
          ("cancelled", "cancelled"), ("review", "to review"), ("empty", "empty"),
          ("field", "written"))
LABEL_PT, HEADER_PT, KEY_PT = 7.0, 10.0, 7.0  # text sizes (points at the overlay's dpi)
LABEL_CHARS = 32  # a label longer than this is cut (the whole text is in the JSON)
LABEL_GAP = 4  # px between labels stacked in a margin
LEADER = 24  # px of gutter between the page and its labels, where leaders bend


@dataclass(frozen=True)
class Label:
    """A written field's reading: its text and colour, and the field's place on the page
    (left edge, top and bottom, px)."""

    text: str
    colour: tuple[int, int, int]
    x: int
    top: int
    bottom: int

    @property
    def mid(self) -> float:
        return (self.top + self.bottom) / 2


@dataclass(frozen=True)
class _Text:
    """Text to draw once the shapes are drawn (PIL: TrueType, any script)."""

    xy: tuple[int, int]  # top-left
    text: str
    colour: tuple[int, int, int]  # BGR
    px: int
    bold: bool = False


def render(r: SheetResult, dpi: float = 200.0) -> np.ndarray:
    """The overlay image (BGR) of a read sheet: the header band above the page, the margin
    right of it listing what was read in written fields."""
    page, labels = _page(r, dpi)
    body, texts = _with_margin(page, labels, round(LABEL_PT * dpi / 72))
    band, band_texts = _header(r, body.shape[1], dpi)
    below = [replace(t, xy=(t.xy[0], t.xy[1] + band.shape[0])) for t in texts]
    return _draw_texts(np.vstack([band, body]), band_texts + below)


def _page(r: SheetResult, dpi: float) -> tuple[np.ndarray, list[Label]]:
    """The rectified page, faded, every region outlined by what was read; and the labels
    of its written fields."""
    assert r.canvas is not None and r.manifest is not None
    img = cv2.cvtColor(r.canvas, cv2.COLOR_GRAY2BGR)
    img = (img.astype(np.float32) * 0.55 + 255 * 0.45).astype(np.uint8)  # fade the page
    s = dpi / 72
    page_h = r.manifest.page_size[1]
    labels = []
    for reg in r.manifest.regions:
        x, y, w, h = reg.rect
        p0 = (round(x * s), round((page_h - y - h) * s))
        p1 = (round((x + w) * s), round((page_h - y) * s))
        mark = r.marks.get(reg.id)
        if mark is not None:
            colour = COLOURS.get(mark.state, COLOURS["review"])
            thick = 1 if mark.state == "empty" else 3
            if reg.kind == "bubble":
                c = ((p0[0] + p1[0]) // 2, (p0[1] + p1[1]) // 2)
                cv2.circle(img, c, (p1[0] - p0[0]) // 2 + 2, colour, thick, cv2.LINE_AA)
            else:
                cv2.rectangle(img, (p0[0] - 2, p0[1] - 2), (p1[0] + 2, p1[1] + 2), colour,
                              thick, cv2.LINE_AA)
        elif reg.kind in ("digits", "text"):
            cv2.rectangle(img, p0, p1, COLOURS["field"], 2, cv2.LINE_AA)
            label = _field_label(r.ocr.get(reg.id), p0, p1)
            if label is not None:
                labels.append(label)
    return img, labels


def _field_label(field: object, p0: tuple[int, int], p1: tuple[int, int]) -> Label | None:
    """A written field's label (None if nothing was read there): its text, with a "?" and
    the confidence when too unsure to be used."""
    if not isinstance(field, dict) or not field.get("text"):
        return None
    conf = field.get("confidence", 0)
    text = str(field["text"])
    if len(text) > LABEL_CHARS:
        text = text[:LABEL_CHARS - 1].rstrip() + "…"
    if conf >= OCR_TRUST:
        return Label(text, COLOURS["field"], p0[0], p0[1], p1[1])
    return Label(f"{text}? ({conf:.2f})", COLOURS["review"], p0[0], p0[1], p1[1])


def rows(labels: Sequence[Label]) -> list[list[Label]]:
    """The labels grouped by the row of the page their fields share (a field whose middle
    lies within the first field of a row joins it), top to bottom, each left to right."""
    out: list[list[Label]] = []
    for lb in sorted(labels, key=lambda lb: lb.mid):
        if out and out[-1][0].top <= lb.mid <= out[-1][0].bottom:
            out[-1].append(lb)
        else:
            out.append([lb])
    return [sorted(row, key=lambda lb: lb.x) for row in out]


def stack(wanted: Sequence[float], height: float, top: float, bottom: float,
          gap: float) -> list[float]:
    """The top of each of a margin's labels (all `height` tall), `wanted` their ideal tops
    in rising order: each as near its own as it can be without overlapping the one
    before (`gap` apart) or leaving top..bottom; if they cannot all fit, from `top` on."""
    ys: list[float] = []
    for w in wanted:  # pushed down past the one above
        ys.append(max(w, top, ys[-1] + height + gap) if ys else max(w, top))
    for k in range(len(ys) - 1, -1, -1):  # back up from the bottom
        ys[k] = min(ys[k], bottom - height if k == len(ys) - 1 else ys[k + 1] - height - gap)
    for k, y in enumerate(ys):  # and down again from the top (only if they cannot all fit)
        ys[k] = max(y, top if k == 0 else ys[k - 1] + height + gap)
    return ys


def _with_margin(page: np.ndarray, labels: list[Label], px: int
                  ) -> tuple[np.ndarray, list[_Text]]:
    """The page with a white margin on its right listing what was read in its written
    fields, row by row at each row's height and left to right within it (a row moved to
    make room is joined to its place by a leader in the margin's gutter); and the texts
    to draw."""
    h, w = page.shape[:2]
    if not labels:
        return page.copy(), []
    font = _font(REGULAR, px)
    sep = "  ·  "
    lines = rows(labels)
    widths = [sum(font.getlength(lb.text) for lb in row) + font.getlength(sep) * (len(row) - 1)
              for row in lines]
    body = np.full((h, w + LEADER + round(max(widths)) + px, 3), 255, np.uint8)
    body[:, :w] = page
    line_h = round(px * 1.3)
    tops = stack([row[0].mid - line_h / 2 for row in lines], line_h, 0, h, LABEL_GAP)
    texts = []
    for row, top in zip(lines, tops, strict=True):
        mid = round(row[0].mid)
        colour = row[-1].colour
        cv2.line(body, (w + 2, mid), (w + LEADER - 3, round(top + line_h / 2)), colour, 1,
                 cv2.LINE_AA)
        x = float(w + LEADER)
        for k, lb in enumerate(row):
            if k:
                texts.append(_Text((round(x), round(top)), sep, COLOURS["empty"], px))
                x += font.getlength(sep)
            texts.append(_Text((round(x), round(top)), lb.text, lb.colour, px))
            x += font.getlength(lb.text)
    return body, texts


def _header_lines(r: SheetResult) -> list[tuple[str, tuple[int, int, int]]]:
    """The band's text lines (BGR colour each): score, what to look at, miscounts."""
    black, red = (0, 0, 0), (0, 0, 200)
    first = []
    if r.score is not None:
        first.append(f"Score {r.score.total} {r.score.title}")
        first.append(f"rank {r.score.rank}")
    boxes = sum(m.state == "review" for m in r.marks.values())
    fields = sum(unsure(f) for f in r.ocr.values())
    doubts = [f"{boxes} box(es) to review"] if boxes else []
    doubts += [f"{fields} written field(s) not read for sure"] if fields else []
    first.append(", ".join(doubts) if doubts else "nothing to review")
    lines = [("  ·  ".join(first), red if doubts else black)]
    lines += [(c, red) for c in r.checks[:3]]
    return lines


def _header(r: SheetResult, width: int, dpi: float) -> tuple[np.ndarray, list[_Text]]:
    """A white band as wide as the overlay: the header lines, then the key to the
    colours; and its texts to draw."""
    lines = _header_lines(r)
    px, key_px = round(HEADER_PT * dpi / 72), round(KEY_PT * dpi / 72)
    pad, lh, sw = px * 2 // 3, round(px * 1.4), round(key_px * 1.2)
    band = np.full((pad + lh * len(lines) + sw + pad + pad // 2, width, 3), 255, np.uint8)
    texts = [_Text((pad, pad + lh * k), text, colour, px, bold=True)
             for k, (text, colour) in enumerate(lines)]
    x, y = pad, pad + lh * len(lines)
    key = _font(REGULAR, key_px)
    shown = {"checked", "empty", "field"} | {m.state for m in r.marks.values()}
    for state, name in (e for e in LEGEND if e[0] in shown):
        cv2.rectangle(band, (x, y), (x + sw, y + sw), COLOURS[state],
                      1 if state == "empty" else 3, cv2.LINE_AA)
        texts.append(_Text((x + sw + key_px // 2, y), name, (0, 0, 0), key_px))
        x += sw + key_px + round(key.getlength(name)) + 2 * key_px
    cv2.line(band, (0, band.shape[0] - 1), (width, band.shape[0] - 1), (0, 0, 0), 2)
    return band, texts


@cache
def _font(style: str, px: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(ttf_path(style)), px)


def _draw_texts(img: np.ndarray, texts: list[_Text]) -> np.ndarray:
    """`img` with every text drawn in the sheet family (TrueType: names in any script)."""
    pil = Image.fromarray(img[:, :, ::-1])
    draw = ImageDraw.Draw(pil)
    for t in texts:
        b, g, r = t.colour
        draw.text(t.xy, t.text, fill=(r, g, b), font=_font(BOLD if t.bold else REGULAR, t.px))
    return np.ascontiguousarray(np.asarray(pil)[:, :, ::-1])


def encode_png(img: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 6])
    if not ok:
        raise ValueError("PNG encoding failed")
    return buf.tobytes()
