"""Locate: find the four corner fiducials (ArUco DICT_4X4_50, ids 0..3) in a page image.

Detection runs on a copy reduced to about DETECT_SIDE pixels on its long side (a 12 MP
photo at 1/4: ~35 ms instead of ~0.5 s at full size), then each marker found is
re-detected on a full-resolution crop around it with sub-pixel corner refinement, so the
corners are as sharp as the photo allows. If a marker is missing at the reduced scale the
detection is repeated at twice the resolution (a small sheet in a large photo). ArUco is
rotation invariant and reports each marker's corners in the marker's own order, so the
ids alone give the page's orientation: 0/90/180/270 degrees and tilt need no special case.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import cv2
import numpy as np

MARKER_IDS = (0, 1, 2, 3)
POSITIONS = ("top-left", "top-right", "bottom-right", "bottom-left")  # by marker id
DETECT_SIDE = 1000  # the first detection runs on about 1000-2000 px (integer reduction)
QUICK_WINDOW = 7  # ... with one adaptive-threshold window first (px), then with a second
#   (23 px) only when the first misses a marker. Session 55, seed 0's 260 default, vga,
#   corner-cut and stray-mark photos and scans: the 7 px window alone finds every marker
#   both find (1,009; all four on 233 sheets), in half the time (12 ms against 24 on a
#   12 MP photo at 1/4); the refined corners are the same to 3e-5 px
THOROUGH_PERIMETER = 0.01  # the closer look's smallest marker: this share of the image's
#   long side, in perimeter (OpenCV's default 0.03: a marker of 30 px at half scale). Session
#   64, the 5,920 cached phone and corner-cut photos: the default missed 61 markers in view,
#   on 17 photos that then had too few to read (12 of them photos of 8-12 MP whose sheet
#   covers a fifth of the frame, markers 38-52 px); 0.01 misses 27, and the 6 photos left
#   are VGA photos of the sheet at 11-29 px/inch (too small to read anyway). It finds no
#   marker out of view, none off by more than 3.3 px, none of the 5,920 photos loses one;
#   the 81 photos that need the closer look take 17 ms more
REFINE_WINDOW = 23  # a marker is refined on its crop with this one window first (OpenCV's
#   three, 3-23 px, when it is not found so). Session 55, the 360 markers of 200 of seed 0's
#   photos and scans: 0.5 ms a marker instead of 1.3, 345 corners the same, none off by
#   more than 0.014 px


@dataclass
class Located:
    """Marker corners in full-resolution image pixels, id -> (4, 2) float32 in the
    marker's own order (its top-left, top-right, bottom-right, bottom-left)."""

    corners: dict[int, np.ndarray]
    factor: int  # the reduction the markers were found at
    refined: dict[int, bool] = field(default_factory=dict)
    others: int = 0  # ArUco markers of other ids seen (a sign of a different board)

    @property
    def missing(self) -> list[str]:
        return [POSITIONS[i] for i in MARKER_IDS if i not in self.corners]


def marker_side_px(corners: np.ndarray) -> float:
    """The mean side of one marker's quadrilateral in the image (px)."""
    return float(np.mean(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1)))


@cache
def _detector(mode: str) -> cv2.aruco.ArucoDetector:
    """'quick': the first pass (markers at least ~1% of the image's long side, one
    threshold window); 'fast': the same with two windows (3-4x faster than the defaults
    on a page full of text); 'thorough': OpenCV's defaults but for smaller markers
    (THOROUGH_PERIMETER); 'refine': sub-pixel corners, for full-resolution crops
    ('refine-quick': with one threshold window)."""
    params = cv2.aruco.DetectorParameters()
    if mode == "thorough":
        params.minMarkerPerimeterRate = THOROUGH_PERIMETER
    if mode in ("quick", "fast"):
        params.minMarkerPerimeterRate = 0.04
        params.maxMarkerPerimeterRate = 0.6
        params.adaptiveThreshWinSizeMin = 7
        params.adaptiveThreshWinSizeMax = QUICK_WINDOW if mode == "quick" else 23
        params.adaptiveThreshWinSizeStep = 16
    if mode == "refine-quick":
        params.adaptiveThreshWinSizeMin = params.adaptiveThreshWinSizeMax = REFINE_WINDOW
    if mode.startswith("refine"):
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        params.cornerRefinementWinSize = 5
        params.cornerRefinementMaxIterations = 40
        params.cornerRefinementMinAccuracy = 0.01
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    return cv2.aruco.ArucoDetector(dictionary, params)


def _detect(gray: np.ndarray, mode: str = "fast") -> list[tuple[int, np.ndarray]]:
    corners, ids, _ = _detector(mode).detectMarkers(gray)
    if ids is None:
        return []
    return [(int(i), c.reshape(4, 2).astype(np.float32)) for i, c in zip(ids.ravel(), corners,
                                                                          strict=True)]


def _reduced(gray: np.ndarray, factor: int) -> np.ndarray:
    """Reduce by an integer factor (INTER_AREA's fast path: ~2 ms for 12 MP at 1/4)."""
    if factor <= 1:
        return gray
    h, w = gray.shape[:2]
    h, w = h - h % factor, w - w % factor
    return cv2.resize(gray[:h, :w], (w // factor, h // factor), interpolation=cv2.INTER_AREA)


def _pick(found: list[tuple[int, np.ndarray]]) -> dict[int, np.ndarray]:
    """One candidate per id: the largest (a false detection in a busy background is
    small; the fiducials of one sheet have the same size)."""
    best: dict[int, np.ndarray] = {}
    for i, c in found:
        if i in MARKER_IDS and (i not in best
                                or cv2.contourArea(c) > cv2.contourArea(best[i])):
            best[i] = c
    return best


def _refine(gray: np.ndarray, marker_id: int, approx: np.ndarray) -> np.ndarray | None:
    """Re-detect one marker on a full-resolution crop around its approximate corners."""
    x0, y0 = approx.min(axis=0)
    x1, y1 = approx.max(axis=0)
    pad = 0.45 * max(x1 - x0, y1 - y0) + 4
    h, w = gray.shape[:2]
    cx0, cy0 = max(0, int(x0 - pad)), max(0, int(y0 - pad))
    cx1, cy1 = min(w, int(x1 + pad) + 1), min(h, int(y1 + pad) + 1)
    crop = gray[cy0:cy1, cx0:cx1]
    if crop.size == 0:
        return None
    scale = max(1, max(crop.shape) // 600)  # a close-up: refine on a reduced crop
    crop = _reduced(crop, scale)
    for mode in ("refine-quick", "refine"):
        for i, c in _detect(crop, mode):
            if i == marker_id:
                c = c * scale + np.float32([cx0, cy0]) + (0.5 * (scale - 1))
                if float(np.abs(c - approx).max()) < pad:
                    return c.astype(np.float32)
    return None


def locate(gray: np.ndarray) -> Located:
    """Find the fiducials of one sheet in a grayscale image (none found: empty result)."""
    factor = max(1, max(gray.shape[:2]) // DETECT_SIDE)
    reduced = _reduced(gray, factor)
    found = _detect(reduced, "quick")
    best = _pick(found)
    if len(best) < 4:  # a second threshold window
        found = _detect(reduced)
        best = _pick(found)
    used = factor
    if len(best) < 4:  # a small sheet in a large photo, or a hard one: look closer
        f2 = max(1, factor // 2)
        found2 = _detect(_reduced(gray, f2), "thorough")
        more = _pick(found2)
        if len(more) > len(best):
            best, used, found = more, f2, found2
    others = len({i for i, _ in found if i not in MARKER_IDS})
    corners: dict[int, np.ndarray] = {}
    refined: dict[int, bool] = {}
    for i, c in best.items():
        approx = (c + 0.5) * used - 0.5  # pixel centres of the reduced image, in full size
        fine = _refine(gray, i, approx)
        refined[i] = fine is not None
        if fine is None:
            fine = approx.astype(np.float32)
            win = max(2, min(10, round(used * 1.5)))
            crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01)
            fine = cv2.cornerSubPix(gray, fine.reshape(-1, 1, 2).copy(), (win, win), (-1, -1),
                                    crit).reshape(4, 2)
        corners[i] = fine
    return Located(corners, used, refined, others)
