"""Identify: read the sheet code from the QR code at its known place, or, when no QR code
can be read, tell the sheet by its printed content.

The QR code sits at the same place on every sheet kind and paper (top band, top-aligned
with the markers, just left of the top-right marker's quiet zone: sheets/markers.py).
A first homography is fitted to the markers for each known paper size (the best fit
names the likely paper); a small crop around the QR code's place is warped flat at about
12 pixels per millimetre and the code decoded where it should lie in it (~3 ms), else
where its three finder patterns are found near there (page curl moves it by a module or
more; ~4 ms), else looked for in the crop (~10 ms; OpenCV's detector on the raw photo
fails often and takes far longer), a few preparations of the crop in turn.

When that fails (a small, blurred or glared code; a steep photo), in order:

1. `qr-retry`: a larger crop (page curl moves the code by millimetres) at 8, 16 and
   20 px/mm, each raw, sharpened, Otsu-binarised and adaptive-binarised;
2. `layout`: the known layouts (every registered kind x edition on the papers whose
   fiducial geometry fits the markers) are compared with the photo: the photo is
   warped onto each candidate's page at 40 dpi and correlated with that candidate's
   blank sheet (marks lower every candidate's score alike); candidates that differ only
   in small print (the editions: the Rank Bonus value) are then told apart where their
   blank sheets differ, at 150 dpi, each patch matched within a few millimetres (curl).
   The best must be clearly ahead, else the sheet is refused as before.

`Identity.method` says which way the code was found (the scan reports it).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

import cv2
import numpy as np

from scanner.rectify import Fit, canvas_matrix, canvas_size, fit
from sheets.manifest import Fiducial, Manifest
from sheets.markers import (
    MARKER_INSET,
    MARKER_QUIET,
    MARKER_SIZE,
    QR_MODULE,
    QR_QUIET_MODULES,
    fiducial,
    qr_matrix,
)
from sheets.paper import PAPERS
from starsheets.errors import NotASheetError

MM = 72 / 25.4
CROP_PX_PER_MM = 12.0
CROP_MM = 26.0  # the crop: a square this big whose top-right is just inside the QR place
RETRY_CROP_MM = 36.0  # the retries look further around (curl, a marker fit off by mm)
RETRY_PX_PER_MM = (8.0, 16.0, 20.0)
FINDER_SEARCH_MM = 1.2  # a finder pattern is looked for this far around where it should lie
FINDER_MIN = 0.3  # ... and taken where it matches at least this well (normalised)
RETRY_MIN_DPI = 60.0  # under this, no retry: none of the 115 bench photos read under 60
#   px/inch had its code decoded (a module is about a pixel), and the retries cost ~120 ms
COARSE_DPI = 40.0  # whole-page comparison of the candidate layouts
FINE_DPI = 150.0  # where candidates differ only in small print
PAPER_RMS_SLACK_MM = 0.6  # papers whose marker fit is this close to the best are candidates
MIN_PAGE_SCORE = 0.35  # the best layout must correlate at least this well with the photo
PAGE_MARGIN = 0.08  # ... and beat any other kind by this much
PAPER_MARGIN = 0.015  # ... and the same kind on another paper by this much (and its markers
#                      must fit that paper best too: the two pieces of evidence agree)
FINE_MARGIN = 0.06  # small-print patches: the best edition must lead by this much
FINE_SEARCH_MM = 3.0  # small-print patches are matched within +-3 mm (curl, lens)
TILE_MM = 40.0  # the whole-page comparison is made tile by tile...
TILE_SEARCH_MM = 4.0  # ... each tile matched within +-4 mm


@dataclass(frozen=True)
class Identity:
    code: str
    paper_guess: str  # the paper whose marker geometry fits the photo best
    fit: Fit  # that first fit (page points of that paper)
    method: str = "qr"  # qr | qr-retry (<px/mm> px/mm, <preparation>) | layout (<score>)


@cache
def _paper_fiducials(paper: str) -> tuple[Fiducial, ...]:
    p = PAPERS[paper]
    return tuple(fiducial(p, pos) for pos in ("top-left", "top-right", "bottom-right",
                                              "bottom-left"))


def paper_fits(corners: Mapping[int, np.ndarray]) -> list[tuple[str, Fit]]:
    """Every paper size with a fit of its fiducials to the markers, best first."""
    out: list[tuple[str, Fit]] = []
    for name, paper in PAPERS.items():
        try:
            f = fit(corners, _paper_fiducials(name), paper.size)
        except NotASheetError:
            continue
        out.append((name, f))
    return sorted(out, key=lambda nf: nf[1].rms_mm)


def first_fit(corners: Mapping[int, np.ndarray]) -> tuple[str, Fit]:
    """The paper size whose fiducials fit the markers best, and that fit."""
    fits = paper_fits(corners)
    if not fits:
        raise NotASheetError("the corner markers do not outline a sheet",
                             "Photograph the sheet flat, all of it in view.")
    return fits[0]


def _to_crop(paper: str, px_per_mm: float, size_mm: float) -> np.ndarray:
    """Page points -> pixels of qr_crop's square of size_mm (px_per_mm), whose top-right
    corner is just beyond the QR code's."""
    p = PAPERS[paper]
    grow = (size_mm - CROP_MM) / 2
    right = p.width - MARKER_INSET - MARKER_SIZE - MARKER_QUIET + (1.0 + grow) * MM
    top = p.height - MARKER_INSET + (3.0 + grow) * MM
    x0, y0 = right - size_mm * MM, top - size_mm * MM
    # a canvas of the page shifted so (x0, top) is its origin
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]])
    return canvas_matrix(top - y0, px_per_mm * 25.4) @ shift


def qr_crop(gray: np.ndarray, f: Fit, paper: str, px_per_mm: float = CROP_PX_PER_MM,
            size_mm: float = CROP_MM) -> np.ndarray:
    """The QR code's neighbourhood, warped flat (px_per_mm), a square of size_mm whose
    top-right corner is just beyond the code's."""
    m = f.H @ np.linalg.inv(_to_crop(paper, px_per_mm, size_mm))
    n = round(size_mm * px_per_mm)
    return cv2.warpPerspective(gray, m, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=255)


@cache
def _qr_modules(paper: str) -> tuple[int, ...]:
    """The sizes (modules a side) of the QR codes printed on `paper`, the commonest first."""
    from collections import Counter

    from sheets.code import SheetCode, encode
    from sheets.registry import kinds

    sizes = Counter(len(qr_matrix(encode(SheetCode(k.id, ed, paper))))
                    for k in kinds() if paper in k.papers for ed in k.editions)
    return tuple(n for n, _ in sizes.most_common())


def qr_corners(paper: str, modules: int) -> np.ndarray:
    """Where a QR code of `modules` a side lies in qr_crop's square (its corners clockwise
    from the top-left, crop pixels, (1, 4, 2) as OpenCV takes them)."""
    p = PAPERS[paper]
    right = p.width - MARKER_INSET - MARKER_SIZE - MARKER_QUIET - QR_QUIET_MODULES * QR_MODULE
    top, s = p.height - MARKER_INSET, modules * QR_MODULE
    page = np.array([[right - s, top, 1], [right, top, 1], [right, top - s, 1],
                     [right - s, top - s, 1]], np.float64)
    px = (_to_crop(paper, CROP_PX_PER_MM, CROP_MM) @ page.T).T
    return (px[:, :2] / px[:, 2:] + 0.5).astype(np.float32).reshape(1, 4, 2)


def decode_in_place(crop: np.ndarray, paper: str) -> str:
    """The QR payload read where the code should lie in qr_crop's square, without looking
    for it ('' when it is not there: page curl, a marker fit off by a millimetre). Session
    55: 3 ms instead of 9 for the detector; seed 0's bench photos and scans: 204 of the
    241 codes the detector reads, and one it does not."""
    for modules in _qr_modules(paper):
        try:
            text, _ = _qr_detector().decode(crop, qr_corners(paper, modules))
        except cv2.error:
            continue
        if text:
            return str(text)
    return ""


@cache
def _finder(px_per_module: int) -> np.ndarray:
    """A QR finder pattern with its light separator (9 modules a side), as float32."""
    m = np.full((9, 9), 255, np.uint8)
    m[1:8, 1:8], m[2:7, 2:7], m[3:6, 3:6] = 0, 255, 0
    side = 9 * px_per_module
    return cv2.resize(m, (side, side), interpolation=cv2.INTER_NEAREST).astype(np.float32)


def finder_corners(crop: np.ndarray, paper: str, modules: int) -> np.ndarray | None:
    """The code's corners (as qr_corners) moved to where its three finder patterns are
    found near their places in qr_crop's square: an affine fit through their centres
    (page curl and a first fit off by a millimetre move the code by a module or more
    there, and then decode_in_place reads nothing). None when a finder is not found."""
    c = qr_corners(paper, modules).reshape(4, 2).astype(np.float64)
    u, v = (c[1] - c[0]) / modules, (c[3] - c[0]) / modules
    want = np.array([c[0] + 3.5 * (u + v), c[1] + 3.5 * (v - u), c[3] + 3.5 * (u - v)])
    tmpl = _finder(round(QR_MODULE / MM * CROP_PX_PER_MM))
    side, r = tmpl.shape[0], round(FINDER_SEARCH_MM * CROP_PX_PER_MM)
    img = crop.astype(np.float32)
    got = []
    for x, y in want:
        x0, y0 = round(x - side / 2) - r, round(y - side / 2) - r
        if x0 < 0 or y0 < 0 or x0 + side + 2 * r > img.shape[1] or y0 + side + 2 * r > img.shape[0]:
            return None
        res = cv2.matchTemplate(img[y0:y0 + side + 2 * r, x0:x0 + side + 2 * r], tmpl,
                                cv2.TM_CCOEFF_NORMED)
        _, best, _, loc = cv2.minMaxLoc(res)
        if not np.isfinite(best) or best < FINDER_MIN:
            return None
        got.append((x0 + loc[0] + side / 2, y0 + loc[1] + side / 2))
    a = cv2.getAffineTransform(want.astype(np.float32), np.array(got, np.float32))
    return (np.hstack([c, np.ones((4, 1))]) @ a.T).astype(np.float32).reshape(1, 4, 2)


def decode_at_finders(crop: np.ndarray, paper: str) -> tuple[str, str]:
    """The QR payload read where its finder patterns are found (finder_corners), from the
    crop as it is, else sharpened or adaptive-binarised: (payload, preparation), ('', '')
    if none read. Seed 0's first 100 harsh photos: the 43 codes decode_in_place missed
    that decode_qr (36) or qr-retry (7) read, all of them, in ~4 ms instead of ~17
    (decode_qr) and ~140 (qr-retry), and none more."""
    found = [c for c in (finder_corners(crop, paper, n) for n in _qr_modules(paper))
             if c is not None]
    if not found:
        return "", ""
    for how, img in _finder_preparations(crop):
        for corners in found:
            try:
                text, _ = _qr_detector().decode(img, corners)
            except cv2.error:
                continue
            if text:
                return str(text), how
    return "", ""


def _finder_preparations(crop: np.ndarray) -> Iterator[tuple[str, np.ndarray]]:
    """The crop as it is, then (made only when that reads nothing) sharpened and
    adaptive-binarised: Otsu's binarisation never read a code the others did not."""
    yield "raw", crop
    yield from ((how, img) for how, img in _preparations(crop, CROP_PX_PER_MM)[1:]
                if how != "otsu")


@cache
def _qr_detector() -> cv2.QRCodeDetector:
    return cv2.QRCodeDetector()


def _decode_one(img: np.ndarray) -> str:
    try:
        text, _points, _ = _qr_detector().detectAndDecode(img)
    except cv2.error:
        return ""
    return str(text or "")


def decode_qr(crop: np.ndarray) -> str:
    """The QR payload in a flat crop ('' if none could be read)."""
    tries = [crop]
    _, otsu = cv2.threshold(cv2.GaussianBlur(crop, (3, 3), 0), 0, 255,
                            cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    tries.append(otsu)
    tries.append(cv2.resize(crop, None, fx=0.6, fy=0.6, interpolation=cv2.INTER_AREA))
    tries.append(cv2.adaptiveThreshold(crop, 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                       cv2.THRESH_BINARY, 31, 8))
    for img in tries:
        text = _decode_one(img)
        if text:
            return text
    try:
        text = cv2.QRCodeDetectorAruco().detectAndDecode(crop)[0]
    except (cv2.error, AttributeError):
        text = ""
    return str(text or "")


def _preparations(crop: np.ndarray, px_per_mm: float) -> list[tuple[str, np.ndarray]]:
    """A crop as it is, sharpened, and binarised two ways (a module is 0.5 mm)."""
    soft = cv2.GaussianBlur(crop, (0, 0), max(0.6, 0.08 * px_per_mm))
    sharp = cv2.addWeighted(crop, 1.8, soft, -0.8, 0)
    _, otsu = cv2.threshold(soft, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    block = round(3 * px_per_mm) | 1  # about three modules: local contrast
    adaptive = cv2.adaptiveThreshold(soft, 255, cv2.ADAPTIVE_THRESH_GAUSSIAN_C,
                                     cv2.THRESH_BINARY, max(block, 11), 6)
    return [("raw", crop), ("sharpened", sharp), ("otsu", otsu), ("adaptive", adaptive)]


def retry_qr(gray: np.ndarray, f: Fit, paper: str) -> tuple[str, str]:
    """Decode the QR code on larger crops at other scales and binarisations: (payload,
    what worked), ('', '') if nothing did."""
    for ppm in RETRY_PX_PER_MM:
        crop = qr_crop(gray, f, paper, ppm, RETRY_CROP_MM)
        for how, img in _preparations(crop, ppm):
            text = _decode_one(img)
            if text:
                return text, f"{ppm:.0f} px/mm, {how}"
    return "", ""


# --- telling the sheet by its printed content ----------------------------------------------
@dataclass(frozen=True)
class Candidate:
    kind: str
    edition: str
    paper: str

    @property
    def manifest(self) -> Manifest:
        from sheets.render import layout

        return layout(self.kind, self.edition, self.paper)


def candidates(papers: list[str], only: Sequence[str] | None = None) -> list[Candidate]:
    """Every registered kind x edition (of the kinds `only`, if given) laid out for one of
    `papers` with corner markers."""
    from sheets.registry import kinds

    out = []
    for k in kinds():
        if only is not None and k.id not in only:
            continue
        for paper in papers:
            if paper not in k.papers:
                continue
            for ed in k.editions:
                c = Candidate(k.id, ed, paper)
                try:
                    if c.manifest.fiducials:
                        out.append(c)
                except Exception:  # a kind that cannot lay out is not a candidate
                    continue
    return out


@lru_cache(maxsize=48)
def blank_pages(kind: str, edition: str, paper: str, dpi: float) -> tuple[np.ndarray, ...]:
    """Every page of a blank sheet on the canvas grid of scanner.rectify at `dpi` (kept
    here for every candidate layout the identification compares)."""
    from scanner import template
    from sheets.render import layout

    return template.blank_pages(layout(kind, edition, paper), dpi)


def _warp_to(gray: np.ndarray, f: Fit, page_size: tuple[float, float], dpi: float,
             box: tuple[int, int, int, int] | None = None) -> np.ndarray:
    """The photo on a candidate's canvas at `dpi` (or the part `box` = u0, v0, u1, v1)."""
    m = f.H @ np.linalg.inv(canvas_matrix(page_size[1], dpi))
    w, h = canvas_size(page_size, dpi)
    src = gray
    k = int(f.dpi / dpi / 1.5)
    if k >= 2:  # reduce first: a warp samples, it does not average
        hh, ww = gray.shape[0] - gray.shape[0] % k, gray.shape[1] - gray.shape[1] % k
        src = cv2.resize(gray[:hh, :ww], (ww // k, hh // k), interpolation=cv2.INTER_AREA)
        m = np.array([[1 / k, 0, 0.5 / k - 0.5], [0, 1 / k, 0.5 / k - 0.5], [0, 0, 1]]) @ m
    if box is not None:
        m = m @ np.array([[1, 0, box[0]], [0, 1, box[1]], [0, 0, 1]])
        w, h = box[2] - box[0], box[3] - box[1]
    return cv2.warpPerspective(src, m, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=255)


def _ncc(a: np.ndarray, b: np.ndarray) -> float:
    return float(cv2.matchTemplate(a.astype(np.float32), b.astype(np.float32),
                                   cv2.TM_CCOEFF_NORMED)[0, 0])


def _flatten(img: np.ndarray, dpi: float) -> np.ndarray:
    """Divide out the light (shadows, gradients): the image over its local white level."""
    k = max(3, round(6 / 25.4 * dpi) | 1)
    white = cv2.dilate(img, np.ones((k, k), np.uint8))
    white = cv2.GaussianBlur(white, (0, 0), k / 2)
    return img.astype(np.float32) / np.maximum(white.astype(np.float32), 1.0)


def _tiled_ncc(img: np.ndarray, tpl: np.ndarray, dpi: float) -> float:
    """Correlation of a photo canvas with a blank sheet, tile by tile, each tile matched
    within TILE_SEARCH_MM (page curl and lens distortion move the content by millimetres;
    a wrong layout's rows drift by more): the mean of the tiles' best scores, weighted by
    how much each tile holds."""
    n = max(8, round(TILE_MM / 25.4 * dpi))
    r = round(TILE_SEARCH_MM / 25.4 * dpi)
    H, W = tpl.shape
    total = weight = 0.0
    for v in range(r, H - n - r + 1, n):
        for u in range(r, W - n - r + 1, n):
            t = tpl[v:v + n, u:u + n]
            sd = float(t.std())
            if sd < 0.02:  # plain paper: says nothing
                continue
            win = img[v - r:v + n + r, u - r:u + n + r]
            total += float(cv2.matchTemplate(win, t, cv2.TM_CCOEFF_NORMED).max()) * sd
            weight += sd
    return total / weight if weight else 0.0


def _page_scores(gray: np.ndarray, fits: dict[str, Fit], cands: list[Candidate]
                 ) -> dict[Candidate, float]:
    """Tile-by-tile correlation of the photo with each candidate's blank sheet (its best
    page)."""
    warped: dict[str, np.ndarray] = {}
    scores: dict[Candidate, float] = {}
    for c in cands:
        m = c.manifest
        if c.paper not in warped:
            warped[c.paper] = _flatten(_warp_to(gray, fits[c.paper], m.page_size, COARSE_DPI),
                                       COARSE_DPI)
        best = -1.0
        for page in blank_pages(c.kind, c.edition, c.paper, COARSE_DPI):
            best = max(best, _tiled_ncc(warped[c.paper], page.astype(np.float32) / 255.0,
                                        COARSE_DPI))
        scores[c] = best
    return scores


def _fine_scores(gray: np.ndarray, f: Fit, cands: list[Candidate]) -> dict[Candidate, float]:
    """Candidates on one paper whose blank sheets differ only in small print: each is
    scored where the blanks differ (each patch matched within FINE_SEARCH_MM)."""
    pages = [blank_pages(c.kind, c.edition, c.paper, FINE_DPI)[0] for c in cands]
    stack = np.stack([p.astype(np.int16) for p in pages])
    diff = (stack.max(axis=0) - stack.min(axis=0)) > 60
    pad = round(1.5 / 25.4 * FINE_DPI)
    grown = cv2.dilate(diff.astype(np.uint8), np.ones((2 * pad + 1, 2 * pad + 1), np.uint8))
    _, _, stats, _ = cv2.connectedComponentsWithStats(grown)
    search = round(FINE_SEARCH_MM / 25.4 * FINE_DPI)
    H, W = pages[0].shape
    totals = np.zeros(len(cands))
    weight = 0.0
    order = np.argsort(-stats[1:, cv2.CC_STAT_AREA])[:12] + 1  # the largest differences
    for lab in order:
        x, y, w, h = stats[lab, :4]
        box = (max(0, x - search), max(0, y - search), min(W, x + w + search),
               min(H, y + h + search))
        img = _flatten(_warp_to(gray, f, cands[0].manifest.page_size, FINE_DPI, box),
                       FINE_DPI)
        for k, p in enumerate(pages):
            t = p[y:y + h, x:x + w].astype(np.float32) / 255.0
            if t.std() < 1e-3 or img.shape[0] < h or img.shape[1] < w:
                continue
            totals[k] += float(cv2.matchTemplate(img, t, cv2.TM_CCOEFF_NORMED).max()) * w * h
        weight += w * h
    return {c: float(totals[k] / weight) if weight else 0.0 for k, c in enumerate(cands)}


def by_content(gray: np.ndarray, corners: Mapping[int, np.ndarray],
               only: Sequence[str] | None = None) -> tuple[Candidate, float, str] | None:
    """The known layout the photo shows, by its printed content: (candidate, page score,
    how it was decided), or None if no candidate is clearly the best. `only`: the kinds
    to compare with (each is rendered once per process, about 0.1-0.3 s)."""
    fits = paper_fits(corners)
    if not fits:
        return None
    best_rms = fits[0][1].rms_mm
    near = {name: f for name, f in fits if f.rms_mm <= best_rms + PAPER_RMS_SLACK_MM}
    cands = candidates(list(near), only)
    if not cands:
        return None
    scores = _page_scores(gray, near, cands)
    ranked = sorted(cands, key=lambda c: -scores[c])
    top = ranked[0]
    if scores[top] < MIN_PAGE_SCORE:
        return None
    # another kind close behind, or another paper either close behind or fitting the
    # markers better: refuse rather than guess
    for c in ranked[1:]:
        if c.kind != top.kind and scores[top] - scores[c] < PAGE_MARGIN:
            return None
        if c.paper != top.paper and (scores[top] - scores[c] < PAPER_MARGIN
                                     or near[c.paper].rms_mm < near[top.paper].rms_mm):
            return None
    # candidates of the same kind and paper as the best, within reach: small print decides
    close = [c for c in ranked if scores[top] - scores[c] < PAGE_MARGIN
             and (c.kind, c.paper) == (top.kind, top.paper)]
    if len(close) == 1:
        return top, scores[top], f"page {scores[top]:.2f}"
    fine = _fine_scores(gray, near[top.paper], close)
    ranked_f = sorted(close, key=lambda c: -fine[c])
    if fine[ranked_f[0]] - fine[ranked_f[1]] < FINE_MARGIN:
        return None
    win = ranked_f[0]
    return win, scores[win], (f"page {scores[win]:.2f}, small print {fine[win]:.2f} vs "
                              f"{fine[ranked_f[1]]:.2f}")


def identify(gray: np.ndarray, corners: Mapping[int, np.ndarray], source: str,
             only: Sequence[str] | None = None) -> Identity:
    """Read the sheet code (NotASheetError when neither the QR code nor the printed
    content tells which sheet this is). `only`: the kinds the content is compared with
    when the QR code cannot be read."""
    paper, f = first_fit(corners)
    crop = qr_crop(gray, f, paper)
    text = decode_in_place(crop, paper)
    if text:
        return Identity(text, paper, f)
    text, how = decode_at_finders(crop, paper)
    if text:
        return Identity(text, paper, f, "qr" if how == "raw" else f"qr ({how}, at its finders)")
    text = decode_qr(crop)
    if text:
        return Identity(text, paper, f)
    text, how = retry_qr(gray, f, paper) if f.dpi >= RETRY_MIN_DPI else ("", "")
    if text:
        return Identity(text, paper, f, f"qr-retry ({how})")
    found = by_content(gray, corners, only)
    if found is not None:
        cand, _score, how = found
        return Identity(cand.manifest.code, cand.paper, f, f"layout ({how})")
    raise NotASheetError(f"{source}: found the corner markers but could not read the "
                         "sheet code (QR code beside the top-right marker)",
                         "Photograph the sheet again, in focus and with the QR code "
                         "free of glare or ink.")
