"""The overlay: the rectified sheet with every region outlined by what was read.

checked green, empty grey, cancelled orange, review red, slashed blue; written fields
(digits, name) purple with the text read beside them on a white chip (red, with a "?",
when read with too little confidence to be used). Above the page, never over it, a band
with the score, what to look at, any score line the player miscounted, and a key to the
colours. What a person would rather look at than read.
"""

from __future__ import annotations

import cv2
import numpy as np

from scanner.fields import OCR_TRUST, unsure
from scanner.pipeline import SheetResult

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
FONT = cv2.FONT_HERSHEY_SIMPLEX


def render(r: SheetResult, dpi: float = 200.0) -> np.ndarray:
    """The overlay image (BGR) of a read sheet: the header band above the page."""
    page = _page(r, dpi)
    return np.vstack([_header(r, page.shape[1]), page])


def _page(r: SheetResult, dpi: float) -> np.ndarray:
    """The rectified page, faded, every region outlined by what was read."""
    assert r.canvas is not None and r.manifest is not None
    img = cv2.cvtColor(r.canvas, cv2.COLOR_GRAY2BGR)
    img = (img.astype(np.float32) * 0.55 + 255 * 0.45).astype(np.uint8)  # fade the page
    s = dpi / 72
    page_h = r.manifest.page_size[1]
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
            field = r.ocr.get(reg.id)
            if isinstance(field, dict) and field.get("text"):
                conf = field.get("confidence", 0)
                sure = conf >= OCR_TRUST
                label = f"{field['text']}{'' if sure else '?'} ({conf:.2f})"
                colour = COLOURS["field"] if sure else COLOURS["review"]
                if reg.kind == "text":  # above its right end: a wide field has print beside it
                    _label(img, label, (p1[0], p0[1] - 8), colour, right=True)
                else:
                    _label(img, label, (p1[0] + 6, p1[1] - 4), colour)
    return img


def _label(img: np.ndarray, text: str, org: tuple[int, int], colour: tuple[int, int, int],
           right: bool = False) -> None:
    """Text on a white chip, kept on the page: readable over the sheet's own print. `org`:
    the text's baseline start (its end when `right`)."""
    font, scale, th = FONT, 0.6, 2
    (w, h), base = cv2.getTextSize(text, font, scale, th)
    x = min(org[0] - (w if right else 0), img.shape[1] - w - 4)
    y = org[1]
    cv2.rectangle(img, (x - 3, y - h - 3), (x + w + 3, y + base + 1), (255, 255, 255), -1)
    cv2.putText(img, text, (x, y), font, scale, colour, th, cv2.LINE_AA)


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
    lines = [("  -  ".join(first), red if doubts else black)]
    lines += [(c, red) for c in r.checks[:3]]
    return lines


def _header(r: SheetResult, width: int) -> np.ndarray:
    """A white band as wide as the page: the header lines, then the key to the colours."""
    lines = _header_lines(r)
    scale, th, lh, pad = 0.9, 2, 40, 18
    key_h = 36
    band = np.full((pad + lh * len(lines) + key_h + pad, width, 3), 255, np.uint8)
    for k, (text, colour) in enumerate(lines):
        cv2.putText(band, text, (pad, pad + lh * (k + 1) - 10), FONT, scale, colour, th,
                    cv2.LINE_AA)
    x, y = pad, pad + lh * len(lines) + 8
    shown = {"checked", "empty", "field"} | {m.state for m in r.marks.values()}
    for state, name in (e for e in LEGEND if e[0] in shown):
        cv2.rectangle(band, (x, y), (x + 22, y + 22), COLOURS[state],
                      1 if state == "empty" else 3, cv2.LINE_AA)
        cv2.putText(band, name, (x + 30, y + 18), FONT, 0.6, (0, 0, 0), 1, cv2.LINE_AA)
        x += 30 + cv2.getTextSize(name, FONT, 0.6, 1)[0][0] + 28
    cv2.line(band, (0, band.shape[0] - 1), (width, band.shape[0] - 1), (0, 0, 0), 2)
    return band


def encode_png(img: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 6])
    if not ok:
        raise ValueError("PNG encoding failed")
    return buf.tobytes()
