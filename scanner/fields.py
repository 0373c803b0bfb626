"""Written fields: the player's final-score digits (one character per cell) and the name.

Each digit cell is cleaned before Tesseract sees it: the printed cell frame and
separators are removed with the blank template, the ink is cropped, scaled to a fixed
height, binarised and padded, then read as a single character (PSM 10, digits
whitelist). An empty cell is skipped without OCR; a minus sign (a short, flat stroke) is
recognised by its shape. A field's confidence is its weakest cell's. Handwriting is hard
for Tesseract: a field read with low confidence is reported as such and never used to
claim the player wrote a wrong score.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scanner.marks import Calibration
from scanner.ocr import Engine
from scanner.template import RegionGeom

DIGIT_HEIGHT = 28  # px: the height a digit is scaled to for Tesseract
CELL_INK = 0.02  # a cell with less ink than this (fraction) is empty
OCR_TRUST = 0.6  # below this a field's value is not used for score comparisons
SPECK_PX = 6  # a piece of ink smaller than this (pixels at 200 dpi) is a speck


@dataclass
class Field:
    id: str
    text: str
    value: int | str | None
    confidence: float
    cells: list[str] | None = None

    def to_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"text": self.text, "value": self.value,
                                "confidence": round(self.confidence, 3)}
        if self.cells is not None:
            d["cells"] = self.cells
        return d


def _ink(d: np.ndarray, g: RegionGeom, box: tuple[int, int, int, int],
         cal: Calibration) -> np.ndarray:
    """The darkness inside `box` (canvas pixels) with printed ink and the frame removed."""
    pu0, pv0 = g.patch[0], g.patch[1]
    u0, v0, u1, v1 = box
    sub = d[v0 - pv0:v1 - pv0, u0 - pu0:u1 - pu0].copy()
    sub[g.printed[v0 - pv0:v1 - pv0, u0 - pu0:u1 - pu0]] = 0
    m = max(2, round(min(sub.shape) * 0.08))
    sub[:m] = 0
    sub[-m:] = 0
    sub[:, :m] = 0
    sub[:, -m:] = 0
    sub[sub < cal.t_faint] = 0
    # specks (noise, toner, a JPEG block's edge) are not strokes: pieces of ink smaller
    # than SPECK_PX pixels are dropped, so a glyph is cropped to its strokes
    _, labels, stats, _ = cv2.connectedComponentsWithStats((sub > 0).astype(np.uint8),
                                                           connectivity=8)
    small = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] < SPECK_PX)
    small = small[small > 0]
    if small.size:
        sub[np.isin(labels, small)] = 0
    return sub


def _glyph_image(sub: np.ndarray, ys: np.ndarray, xs: np.ndarray, height: int,
                 max_width: float = 0.0) -> np.ndarray:
    """The ink cropped, scaled to `height` (at most `max_width` wide), binarised, padded."""
    crop = sub[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    k = height / max(1, crop.shape[0])
    if max_width and crop.shape[1] * k > max_width:
        k = max_width / crop.shape[1]
    img = (255 - np.clip(crop * 1.5, 0, 1) * 255).astype(np.uint8)
    img = cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_CUBIC)
    img = np.where(img < 128, 0, 255).astype(np.uint8)
    return cv2.copyMakeBorder(img, 20, 20, 20, 20, cv2.BORDER_CONSTANT, value=255)


def read_digits(d: np.ndarray, g: RegionGeom, cal: Calibration, ocr: Engine) -> Field:
    """A digits region: one character per cell, right-aligned number (e.g. '', '-', '6')."""
    chars: list[str] = []
    confs: list[float] = []
    for cell in g.cells:
        sub = _ink(d, g, cell, cal)
        ink = sub > cal.t_ink
        if ink.mean() < CELL_INK:
            chars.append("")
            continue
        ys, xs = np.nonzero(ink)
        h, w = ys.max() - ys.min() + 1, xs.max() - xs.min() + 1
        if h < 0.5 * w and h < 0.3 * sub.shape[0]:
            chars.append("-")
            confs.append(0.9)
            continue
        words = ocr.read(_glyph_image(sub, ys, xs, DIGIT_HEIGHT, 2.5 * DIGIT_HEIGHT), 10, "0123456789")
        text = "".join(x.text for x in words)
        chars.append(text if len(text) == 1 else "?")
        confs.append(min((x.confidence for x in words), default=0.0) if len(text) == 1 else 0.0)
    text = "".join(chars)
    value: int | None = None
    if text and "?" not in text:
        try:
            value = int(text)
        except ValueError:
            value = None
    conf = min(confs, default=1.0) if value is not None or not text else 0.0
    return Field(g.region.id, text, value, conf, chars)


def read_text(d: np.ndarray, g: RegionGeom, cal: Calibration, ocr: Engine) -> Field:
    """A write-in line (the name): the ink above the printed line, read as one line."""
    sub = _ink(d, g, g.box, cal)
    ink = sub > cal.t_ink
    if ink.mean() < 0.002:
        return Field(g.region.id, "", None, 1.0)
    ys, xs = np.nonzero(ink)
    img = _glyph_image(sub, ys, xs, 40)
    words = ocr.read(img, 7, "")
    text = " ".join(w.text for w in words).strip()
    conf = float(np.mean([w.confidence for w in words])) if words else 0.0
    return Field(g.region.id, text, text or None, conf)
