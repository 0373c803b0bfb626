"""The overlay: the rectified sheet with every region outlined by what was read.

checked green, empty grey, cancelled orange, review red, slashed blue; written fields
(digits, name) purple with the text read beside them on a white chip (red, with a "?",
when read with too little confidence to be used); the score in the top-left corner.
What a person would rather look at than read.
"""

from __future__ import annotations

import cv2
import numpy as np

from scanner.fields import OCR_TRUST
from scanner.pipeline import SheetResult

COLOURS = {  # BGR
    "checked": (40, 160, 40),
    "empty": (150, 150, 150),
    "cancelled": (0, 140, 255),
    "review": (0, 0, 230),
    "slashed": (220, 90, 0),
    "field": (160, 40, 160),
}


def render(r: SheetResult, dpi: float = 200.0) -> np.ndarray:
    """The overlay image (BGR) of a read sheet."""
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
                _label(img, label, (p1[0] + 6, p1[1] - 4),
                       COLOURS["field"] if sure else COLOURS["review"])
    _panel(img, r)
    return img


def _label(img: np.ndarray, text: str, org: tuple[int, int], colour: tuple[int, int, int]
           ) -> None:
    """Text on a white chip, kept on the page: readable over the sheet's own print."""
    font, scale, th = cv2.FONT_HERSHEY_SIMPLEX, 0.6, 2
    (w, h), base = cv2.getTextSize(text, font, scale, th)
    x = min(org[0], img.shape[1] - w - 4)
    y = org[1]
    cv2.rectangle(img, (x - 3, y - h - 3), (x + w + 3, y + base + 1), (255, 255, 255), -1)
    cv2.putText(img, text, (x, y), font, scale, colour, th, cv2.LINE_AA)


def _panel(img: np.ndarray, r: SheetResult) -> None:
    lines = []
    if r.score is not None:
        lines.append(f"Score {r.score.total}  {r.score.title}")
        lines.append(f"Rank {r.score.rank}")
    lines.append(f"{len(r.review)} to review" if r.review else "nothing to review")
    lines.extend(c.split(" — ")[0] + " — " + c.split(" — ")[-1] for c in r.checks[:2])
    font, scale, th = cv2.FONT_HERSHEY_SIMPLEX, 0.9, 2
    sizes = [cv2.getTextSize(t, font, scale, th)[0] for t in lines]
    w = max(sz[0] for sz in sizes) + 30
    lh = max(sz[1] for sz in sizes) + 14
    x0, y0 = 150, 30
    cv2.rectangle(img, (x0, y0), (x0 + w, y0 + lh * len(lines) + 16), (255, 255, 255), -1)
    cv2.rectangle(img, (x0, y0), (x0 + w, y0 + lh * len(lines) + 16), (0, 0, 0), 2)
    for k, t in enumerate(lines):
        colour = (0, 0, 200) if ("review" in t and not t.startswith("nothing")) \
            or "off by" in t else (0, 0, 0)
        cv2.putText(img, t, (x0 + 15, y0 + 8 + lh * (k + 1) - 6), font, scale, colour, th,
                    cv2.LINE_AA)


def encode_png(img: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 6])
    if not ok:
        raise ValueError("PNG encoding failed")
    return buf.tobytes()
