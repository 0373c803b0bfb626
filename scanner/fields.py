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

from scanner import digits
from scanner.marks import Calibration
from scanner.ocr import Engine, Word
from scanner.template import RegionGeom

DIGIT_HEIGHT = 28  # px: the height a digit is scaled to for Tesseract
CELL_INK = 0.02  # a cell with less ink than this (fraction) is empty
OCR_TRUST = 0.6  # below this a field's value is not used for score comparisons
SPECK_PX = 6  # a piece of ink smaller than this (pixels at 200 dpi) is a speck
LIGHT_CORE = 0.4  # strokes whose cores are lighter than this (pencil) are binarised at half
# Tesseract reads a digit at these heights (px) and paddings: the first alone when the
# classifier agrees with it, all of them when not (a misread of a handwritten digit rarely
# survives a change of scale, and one of them often reads what another gives nothing for)
VARIANTS = ((28, 20), (20, 20), (24, 20), (34, 20), (28, 10))
LINE_GAP = 10  # px between the cells' glyphs when a field is read as one line
MINUS_BAND, MINUS_WIDTH = (0.4, 0.65), 0.7  # a minus's middle lies in this band of the cell's
#   height, and it is no wider than this share of the cell (the cached bench's 26 minus
#   signs: 0.43-0.62 and 0.35-0.65; its 58 flat pieces of a frame's edge or a digit: mostly
#   under 0.25 or over 0.78, up to 0.84 of the cell wide)
FAINT_FLAT = 0.6  # faint ink no taller than this share of its width is a stroke's (a light
#   minus sign's faint part: 5 px by 9-10 on the bench's harsh photos; is_flat's 0.5 is for
#   ink over the threshold)
HAZE = 0.3  # faint ink over this share of a cell is a haze (a shadow, the photo's noise),
#   not a stroke: the bench's cells the network calls no digit before a number are 0.53-0.61
MINUS_PIECE = 0.8  # a minus sign's ink is one stroke: its largest piece at least this share
FLAT_CONF = {"-": 0.9}  # a minus told by its shape; an unreadable flat stroke ('?'): 0
# A write-in line (the name) is read on its darkness less the paper's own (a shadow, the
# haze of a dark photo): a grey opening this wide (px at 200 dpi, over three times the
# widest pen stroke) takes the strokes out and leaves the paper. Before, a shadow over
# the line read as ink: the bench's blank name lines read a phantom name on a third of
# the harsh phone photos ("nn", "—_"), and names gained junk words ("Sam oe")
LINE_BACKGROUND = 21
LINE_RESIDUE = (5, 20)  # a piece of ink no taller and at least this wide (px) is what a
#   misregistration leaves of the printed underline, not writing (a hyphen is ~10 px wide)
TEXT_SCALE = 4.0  # a write-in line's ink is scaled up at most this much (a line of
#   residue 1 px high was scaled 40 times, to an image 12,000 px wide: 0.4 s of Tesseract)
TEXT_HEIGHTS = (40, 36, 48)  # px: a write-in line's ink is scaled to the first height,
#   and to the others while Tesseract reads nothing (it gives nothing at all for some
#   lines at one height and reads them well at another; retrying unsure readings too
#   read 8 more of the bench's 1,137 names right and 14 more wrong)
END_WORD = (2, 0.5)  # a first or last word this short read under this confidence is noise
#   (the bench's 1,137 name lines: 8 such words beside a name, all under 0.45, against 140
#   of 141 initials and short words of the name at 0.86 or more)
PALE_ONE = (0.005, 0.5, 0.25, 0.25)  # a cell with ink over the threshold on at least this
#   share, whose largest piece of faint ink is at least this share of it high, at most this
#   share wide, and its middle at least this share in from either side, holds a pale 1
#   (1589 phone 12: 0.014, 0.66 high, 0.19 wide, its middle at 0.42, read 12 as a trusted
#   2; of 567 empty cells just before a number on 1553 and 1559's 400 phone photos, none)
EDGE_LINE = (0.75, 0.12, 0.55)  # a flat line whose middle is beyond this share of the cell's
#   height from the other edge, no thicker than this share and at least this share of the
#   cell wide: the printed frame's edge (the bench's: 1-3 px of 29, 0.58-0.84 wide; the
#   bottom of a faint 0 or 2 that showed only there: 0.29 and 0.42)

DARK_TAIL = 0.6  # a cell after a number's last digit that the network calls no digit, yet
#   whose darkest ink reaches this share of the number's darkest, holds a digit it missed
#   (_gaps): 2039 phone 37, "21" on a dim photo whose haze darkens every cell, the 1 called
#   no digit and the line read "2" for sure ("you wrote 2; the sheet scores 21"). On the
#   cached harsh photos' 30,569 score lines every one with such a cell (139, at 0.5-2.1;
#   the haze in an empty cell reaches about half the digits' darkness) was read wrong or
#   unsure already; the cached scans and clean renders' 57,540 lines have none
FRAME_BAND = 0.16  # a cell whose ink all lies this close to its sides (a share of its width
#   and height) holds what the frame's blur or a misregistration leaves, not a digit (1657
#   phone 36 and 1595 phone 59: a last cell's right side, 4-5 px in, and top read 7 at 1.0;
#   on 1,800 held-out photos, scans and renders no other line reads differently)


def hugs_frame(ink: np.ndarray) -> bool:
    """Whether a cell's ink (not empty) lies only along its sides, none in its middle."""
    h, w = ink.shape
    by, bx = int(np.ceil(FRAME_BAND * h)), int(np.ceil(FRAME_BAND * w))
    return not ink[by:h - by, bx:w - bx].any()


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
         cal: Calibration, background: int = 0, residue: bool = False) -> np.ndarray:
    """The darkness inside `box` (canvas pixels) with printed ink and the frame removed;
    with `background` (px), less the paper's own darkness (a grey opening that wide);
    with `residue`, without pieces as flat and long as the printed underline's residue
    (LINE_RESIDUE)."""
    pu0, pv0 = g.patch[0], g.patch[1]
    u0, v0, u1, v1 = box
    sub = d[v0 - pv0:v1 - pv0, u0 - pu0:u1 - pu0].copy()
    if background:
        paper = cv2.morphologyEx(sub, cv2.MORPH_OPEN, np.ones((background, background),
                                                              np.uint8))
        sub = np.clip(sub - paper, 0, None)
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
    drop = stats[:, cv2.CC_STAT_AREA] < SPECK_PX
    if residue:
        drop |= ((stats[:, cv2.CC_STAT_HEIGHT] <= LINE_RESIDUE[0])
                 & (stats[:, cv2.CC_STAT_WIDTH] >= LINE_RESIDUE[1]))
    small = np.flatnonzero(drop)
    small = small[small > 0]
    if small.size:
        sub[np.isin(labels, small)] = 0
    return sub


def cell_darkness(d: np.ndarray, g: RegionGeom, cal: Calibration) -> list[np.ndarray]:
    """Each digit cell's darkness as read_digits reads it (print, frame and specks removed),
    left to right."""
    return [_ink(d, g, box, cal) for box in g.cells]


def _glyph_image(sub: np.ndarray, ys: np.ndarray, xs: np.ndarray, height: int,
                 max_width: float = 0.0, pad: int = 20, t_ink: float = 1.0) -> np.ndarray:
    """The ink cropped, scaled to `height` (at most `max_width` wide), binarised (at a third
    of full darkness; light strokes at half their cores' darkness), padded."""
    crop = sub[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    k = height / max(1, crop.shape[0])
    if max_width and crop.shape[1] * k > max_width:
        k = max_width / crop.shape[1]
    inked = crop[crop > 0]
    core = float(np.percentile(inked, 90)) if inked.size else 1.0
    # pencil: cores under LIGHT_CORE break up at a third and Tesseract reads nothing; but
    # only cores twice the ink threshold are strokes (noise just over it is not scaled up)
    gain = 1.0 / core if 2 * t_ink <= core < LIGHT_CORE else 1.5
    img = (255 - np.clip(crop * gain, 0, 1) * 255).astype(np.uint8)
    img = cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_CUBIC)
    img = np.where(img < 128, 0, 255).astype(np.uint8)
    return cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255)


def hole_share(ink: np.ndarray) -> float:
    """The area of a glyph's one enclosed hole over its bounding box (0 unless it is a
    single stroke around exactly one hole): a round 0 Tesseract gives nothing for."""
    ys, xs = np.nonzero(ink)
    crop = np.pad(ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.uint8), 2)
    crop = cv2.morphologyEx(crop, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, hier = cv2.findContours(crop, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return 0.0
    holes = [cv2.contourArea(c) for c, h in zip(contours, hier[0], strict=True) if h[3] >= 0]
    outer = [c for c, h in zip(contours, hier[0], strict=True) if h[3] < 0]
    holes = [a for a in holes if a > 4]
    if len(holes) != 1 or len(outer) != 1:
        return 0.0
    _, _, w, h = cv2.boundingRect(outer[0])
    return float(holes[0] / (w * h))


@dataclass
class Cell:
    """One digit cell as read: its digit and confidence, and what they were decided from
    (so a reading of the whole line can be added as one more vote)."""

    digit: str
    confidence: float
    guess: digits.Guess
    reads: list[tuple[str, float]]
    aspect: float
    sub: np.ndarray  # the cell's darkness, print removed (_ink)
    ink: np.ndarray
    p: np.ndarray | None = None  # the network's probabilities (scanner.digits.cnn_probabilities)


def read_cell(sub: np.ndarray, ink: np.ndarray, t_ink: float, ocr: Engine,
              p: np.ndarray | None = None) -> Cell:
    """One digit cell: the network's probabilities `p` (None: no network), the classifier's
    guess (scanner.digits) and Tesseract's readings. The network sure by itself settles
    the cell ('' for a cell it is sure holds no digit), and so does the network sure with
    the classifier's vote; otherwise Tesseract reads first at DIGIT_HEIGHT and, when that
    does not settle the cell (disagreement, nothing read, low confidence), at the other
    VARIANTS too. Its digit is the likely one when unsure, '?' when nothing at all; its
    confidence is at least OCR_TRUST only when scanner.digits.agree trusts it."""
    ys, xs = np.nonzero(ink)
    aspect = (xs.max() - xs.min() + 1) / (ys.max() - ys.min() + 1)
    guess = digits.classify(digits.cell_ink(sub, t_ink))
    settled = digits.network_alone(p) or digits.with_vote(p, guess, [])
    if settled is not None:  # (no Tesseract needed)
        return Cell(settled[0], settled[1], guess, [], aspect, sub, ink, p)
    reads: list[tuple[str, float]] = []
    hole = -1.0
    for k, (height, pad) in enumerate(VARIANTS):
        words = ocr.read(_glyph_image(sub, ys, xs, height, 2.5 * height, pad, t_ink), 10,
                         "0123456789")
        text = "".join(x.text for x in words)
        reads.append((text, min((x.confidence for x in words), default=0.0))
                     if len(text) == 1 else ("", 0.0))
        if k == 0 or k == len(VARIANTS) - 1:
            if hole < 0 and guess.digit == "0" and not any(c >= digits.TESS_SURE for _, c in reads):
                hole = hole_share(ink)
            digit, conf = digits.agree(reads, guess, aspect, hole, p)
            if conf >= OCR_TRUST or not (digits.can_confirm(guess)
                                         or digits.unanimous(reads, guess)):
                break  # settled, or nothing more Tesseract reads could make it trusted
    if not any(t for t, _ in reads) and guess.p < digits.CONFIRM:
        return Cell("?", 0.0, guess, reads, aspect, sub, ink, p)
    return Cell(digit, conf, guess, reads, aspect, sub, ink, p)


def _one_vote_short(cell: Cell) -> bool:
    """Whether one more reading of the classifier's digit could make the cell trusted (if
    not for every unsure cell of a line, reading the line whole cannot settle it)."""
    more = [*cell.reads, (cell.guess.digit, 1.0)]
    return digits.agree(more, cell.guess, cell.aspect, 0.0, cell.p)[1] >= OCR_TRUST


def _line_vote(cells: list[Cell], t_ink: float, ocr: Engine) -> None:
    """Read a field's digits as one line (Tesseract is trained on lines: it reads some
    handwritten digits whole that it gives nothing for one by one), and add each
    character to its cell's readings as one more vote when the line has exactly one per
    cell. Only cells not yet trusted are decided again (read_digits asks only when one
    vote could settle every one of them)."""
    imgs = []
    for cell in cells:
        ys, xs = np.nonzero(cell.ink)
        imgs.append(_glyph_image(cell.sub, ys, xs, DIGIT_HEIGHT, 2.5 * DIGIT_HEIGHT, 0, t_ink))
    h = max(i.shape[0] for i in imgs)
    gap = np.full((h, LINE_GAP), 255, np.uint8)
    row = [gap]
    for i in imgs:
        row += [np.pad(i, ((0, h - i.shape[0]), (0, 0)), constant_values=255), gap]
    line = cv2.copyMakeBorder(np.hstack(row), 20, 20, 20, 20, cv2.BORDER_CONSTANT, value=255)
    words = ocr.read(line, 7, "0123456789")
    text = "".join(w.text for w in words)
    conf = min((w.confidence for w in words), default=0.0)
    if len(text) != len(cells) or conf < digits.TESS_SURE:
        return
    for cell, ch in zip(cells, text, strict=True):
        if cell.confidence >= OCR_TRUST:
            continue
        hole = hole_share(cell.ink) if cell.guess.digit == "0" else 0.0
        digit, c = digits.agree([*cell.reads, (ch, conf)], cell.guess, cell.aspect, hole,
                                cell.p)
        if c >= OCR_TRUST:
            cell.digit, cell.confidence = digit, c


def is_flat(ink: np.ndarray) -> bool:
    """Whether a cell's ink (not empty) is one flat stroke, no digit: a minus or a line."""
    ys, xs = np.nonzero(ink)
    h, w = ys.max() - ys.min() + 1, xs.max() - xs.min() + 1
    return bool(h < 0.5 * w and h < 0.3 * ink.shape[0])


def _flat(h: float, w: float, mid: float) -> str:
    """A cell whose ink is one flat stroke (its height h, width w and middle's height, as
    shares of the cell): a minus across the cell's middle (MINUS_BAND); a thin, long line
    along its top or bottom edge is the printed frame, left by a misregistration of a
    pixel or two (EDGE_LINE): nothing; anything else is unreadable ('?'), not a guess (a
    faint 0 may show only its bottom)."""
    if MINUS_BAND[0] <= mid <= MINUS_BAND[1] and w <= MINUS_WIDTH:
        return "-"
    if (mid < 1 - EDGE_LINE[0] or mid > EDGE_LINE[0]) and h <= EDGE_LINE[1] and w >= EDGE_LINE[2]:
        return ""
    return "?"


def _pieces(ink: np.ndarray) -> bool:
    """Whether a cell's ink is in pieces: its largest piece under MINUS_PIECE of it."""
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    areas = stats[1:, cv2.CC_STAT_AREA]
    return bool(n > 1 and areas.max() < MINUS_PIECE * areas.sum())


def _faint_minus(sub: np.ndarray) -> bool:
    """Whether a cell's faint ink (any left by _ink) is one flat stroke across its middle,
    as a minus sign is (_flat): a sign too light to count as ink."""
    faint = sub > 0
    if faint.mean() < CELL_INK:
        return False
    ys, xs = np.nonzero(faint)
    h, w = ys.max() - ys.min() + 1, xs.max() - xs.min() + 1
    if not (h <= FAINT_FLAT * w and h < 0.3 * sub.shape[0]):
        return False
    return _flat(h / sub.shape[0], w / sub.shape[1],
                 (ys.min() + ys.max() + 1) / 2 / sub.shape[0]) == "-"


def _pale_stroke(sub: np.ndarray, t_ink: float) -> bool:
    """Whether a cell read as empty holds one pale upright stroke across its middle (a 1
    too light to count as ink: PALE_ONE)."""
    faint = sub > 0
    if not faint.any() or (sub > t_ink).mean() < PALE_ONE[0]:
        return False
    _, _, stats, _ = cv2.connectedComponentsWithStats(faint.astype(np.uint8), connectivity=8)
    x, _, w, h, _ = stats[1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))]
    mid = (x + w / 2) / sub.shape[1]
    return bool(h >= PALE_ONE[1] * sub.shape[0] and w <= PALE_ONE[2] * sub.shape[1]
                and PALE_ONE[3] <= mid <= 1 - PALE_ONE[3])


def _gaps(chars: list[str | Cell], inked: list[bool], after: list[bool] | None = None
          ) -> None:
    """Mark '?' (unreadable, in place) each empty cell a right-aligned number cannot have:
    one between two written cells (a digit too faint to count as ink, or no digit), one
    just before the first written cell that holds some ink (`inked`: a minus sign too
    faint to count as ink, a pale 1, or ink short of a haze that the network calls no
    digit, which a crooked minus can be), and one after the last written cell that holds
    a digit unread (`after`: faint ink, a last digit too faint to count as ink, "20" read
    "2" was said to be a miscount; or ink as dark as the number's that the network calls
    no digit, DARK_TAIL). An empty cell further left is left empty (a shadow, noise), and
    so is a clean one after the number (a number written from the left)."""
    written = [k for k, c in enumerate(chars) if c != ""]
    if not written:
        return
    first, last = written[0], written[-1]
    for k in range(first + 1, last):
        if chars[k] == "":
            chars[k] = "?"
    if first > 0 and inked[first - 1]:
        chars[first - 1] = "?"
    for k in range(last + 1, len(chars)):
        if after is not None and after[k]:
            chars[k] = "?"


def read_digits(d: np.ndarray, g: RegionGeom, cal: Calibration, ocr: Engine) -> Field:
    """A digits region: one character per cell, right-aligned number (e.g. '', '-', '6').
    Its value is set when every cell has a digit; its confidence is the weakest cell's
    (below OCR_TRUST when any cell was not confirmed). A cell the network is sure holds
    no digit is empty, but where a number cannot have an empty cell (_gaps). A field with
    a cell not confirmed is read once more as a whole line (_line_vote)."""
    chars: list[str | Cell] = []
    todo: list[tuple[int, np.ndarray, np.ndarray]] = []  # (place, darkness, ink) to classify
    traces: list[bool] = []  # a cell whose faint ink is a minus sign's stroke
    hazes: list[bool] = []  # ... whose faint ink covers HAZE of it (no stroke)
    faint: list[bool] = []  # ... that holds faint ink short of a haze
    subs = cell_darkness(d, g, cal)
    for sub in subs:
        ink = sub > cal.t_ink
        traces.append(_faint_minus(sub))
        hazes.append(bool((sub > 0).mean() >= HAZE))
        faint.append(bool(CELL_INK <= (sub > 0).mean() < HAZE))
        if ink.mean() < CELL_INK or hugs_frame(ink):
            chars.append("")
        elif is_flat(ink):
            ys, xs = np.nonzero(ink)
            h, w = ys.max() - ys.min() + 1, xs.max() - xs.min() + 1
            flat = _flat(h / sub.shape[0], w / sub.shape[1],
                         (ys.min() + ys.max() + 1) / 2 / sub.shape[0])
            # a minus is one stroke on clear paper, not pieces of a haze's noise
            chars.append("?" if flat == "-" and (hazes[-1] or _pieces(ink)) else flat)
        else:
            todo.append((len(chars), sub, ink))
            chars.append("")
    probs = (digits.cnn_probabilities(np.stack([digits.glyph(sub, cal.t_ink)
                                                for _, sub, _ in todo])) if todo else None)
    nothing: list[int] = []  # cells the network is sure hold no digit
    for k, (at, sub, ink) in enumerate(todo):
        cell = read_cell(sub, ink, cal.t_ink, ocr, None if probs is None else probs[k])
        chars[at] = cell if cell.digit else ""
        if not cell.digit:
            nothing.append(at)
    pale = [c == "" and _pale_stroke(sub, cal.t_ink)
            for c, sub in zip(chars, subs, strict=True)]
    darkest = [float(sub.max()) for sub in subs]
    number = max((d for c, d in zip(chars, darkest, strict=True) if isinstance(c, Cell)),
                 default=0.0)
    missed = [k in nothing and d >= DARK_TAIL * number for k, d in enumerate(darkest)]
    _gaps(chars, [t or pale[k] or (k in nothing and not hazes[k])
                  for k, t in enumerate(traces)],
          [f or m for f, m in zip(faint, missed, strict=True)])
    read = [c for c in chars if isinstance(c, Cell)]
    unsure = [c for c in read if c.confidence < OCR_TRUST]
    if unsure and "-" not in chars and "?" not in chars and all(map(_one_vote_short, unsure)):
        _line_vote(read, cal.t_ink, ocr)
    text = "".join(c if isinstance(c, str) else c.digit for c in chars)
    confs = [c.confidence if isinstance(c, Cell) else FLAT_CONF.get(c, 0.0)
             for c in chars if c != ""]
    value: int | None = None
    if text and "?" not in text:
        try:
            value = int(text)
        except ValueError:
            value = None
    conf = min(confs, default=1.0) if value is not None or not text else 0.0
    return Field(g.region.id, text, value, conf,
                 [c if isinstance(c, str) else c.digit for c in chars])


def _trim_ends(words: list[Word]) -> list[Word]:
    """The words without a first or last one of at most END_WORD[0] characters read under
    END_WORD[1] (a speck of noise beside the writing read as a letter), while others
    remain."""
    n, bar = END_WORD
    while len(words) > 1 and len(words[-1].text) <= n and words[-1].confidence < bar:
        words = words[:-1]
    while len(words) > 1 and len(words[0].text) <= n and words[0].confidence < bar:
        words = words[1:]
    return words


def read_text(d: np.ndarray, g: RegionGeom, cal: Calibration, ocr: Engine) -> Field:
    """A write-in line (the name): the ink above the printed line, the paper's own darkness
    and the underline's residue taken out, read as one line with the engine's model for
    free text (accents). Words with no letter or digit (a '_' or ';' of noise) are
    dropped; the confidence is the words' mean. The value is the text however sure: the
    caller decides what it trusts (trusted_name)."""
    sub = _ink(d, g, g.box, cal, LINE_BACKGROUND, residue=True)
    ink = sub > cal.t_ink
    if ink.mean() < 0.002:
        return Field(g.region.id, "", None, 1.0)
    ys, xs = np.nonzero(ink)
    width = xs.max() - xs.min() + 1
    text, conf = "", 0.0
    for height in TEXT_HEIGHTS:
        img = _glyph_image(sub, ys, xs, height, TEXT_SCALE * width, t_ink=cal.t_ink)
        words = _trim_ends([w for w in ocr.read(img, 7, "", ocr.text_lang)
                            if any(c.isalnum() for c in w.text)])
        if words:
            text = " ".join(w.text for w in words).strip()
            conf = float(np.mean([w.confidence for w in words]))
            break
    return Field(g.region.id, text, text or None, conf)


def trusted_name(fld: Field) -> str | None:
    """A name line's text as the state takes it: read at OCR_TRUST or not at all (never a
    guessed name), with a capital first letter (a handwritten c, o, s, v or x reads as
    either case)."""
    if not isinstance(fld.value, str) or fld.confidence < OCR_TRUST:
        return None
    return fld.value[:1].upper() + fld.value[1:]


def blank(field: object) -> bool:
    """Whether a field's OCR result (its JSON dict) shows nothing written (or is no result:
    OCR skipped)."""
    return not isinstance(field, dict) or (field.get("value") is None
                                           and not field.get("text"))


def unsure(field: object) -> bool:
    """Whether a field's OCR result holds writing read too unsurely to use: text with no
    value, or a value under OCR_TRUST. A field left blank is not unsure."""
    if blank(field):
        return False
    assert isinstance(field, dict)
    return field.get("value") is None or field.get("confidence", 0.0) < OCR_TRUST
