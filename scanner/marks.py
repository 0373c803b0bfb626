"""Read the marks: align each box on its printed outline, measure the ink inside it and
classify it, with thresholds calibrated on the sheet itself.

Per box (see docs/scanner.md for the rules and why):

1. Align: the blank template's patch around the box (outline and printed text) is
   matched against the rectified photo within +-ALIGN_MM (normalised correlation, which
   ignores brightness and contrast); a shift that disagrees with the shifts of the
   neighbouring boxes, or a weak match, is replaced by the neighbours' median.
2. Paper level: the brightest tenth of the plain paper just around the box (printed ink
   excluded, translated by the template's own paper tones), so light gradients, shadows
   and colour casts cancel locally. Darkness d = 1 - gray / paper, lightly smoothed.
3. Measure only the box's inside: without its printed outline (including it makes empty
   and ticked boxes indistinguishable) and without the text printed inside it (its
   points or number, grown by a quarter millimetre): ink fraction above the sheet's
   "ink" and "faint ink" thresholds, ink in the box's centre, and for Executed boxes how
   much of the ink lies on one straight line.
4. Calibrate per sheet: the paper noise (median and MAD of d over every box's inside,
   mostly paper even on a full sheet) sets the two pixel thresholds; the box thresholds
   are fractions of the inside, so they hold at any resolution.
5. Classify: empty / checked / slashed / cancelled, or review with the most likely value
   when the evidence sits between two of them. Confidence is the distance to the nearest
   decision boundary, scaled to [0, 1].
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from scanner.template import RegionGeom, Template

CHECKED, SLASHED, EMPTY, CANCELLED, REVIEW = "checked", "slashed", "empty", "cancelled", "review"

ALIGN_MM = 1.5  # coarse search +-1.5 mm around where the homography puts a box
# box thresholds: fractions of a box's inside
F_EMPTY = 0.02  # less ink than this: empty (a speck, noise)
F_MARK = 0.055  # more ink than this: a mark (a single thin stroke across covers ~0.1)
F_CENTRE = 0.04  # a mark crosses the middle of the box; ink only at the edge is stray
F_FILLED = 0.85  # a box inked edge to edge: coloured in, or cancelled
HALO_CANCEL = 0.5  # ...and this much of the rim around it inked: filled over: cancelled
HALO_REVIEW = 0.2  # between the two: review (a marker's check overshoots too)
# slash or tick/cross: the share of the ink on a second straight band once the best band
# (the main stroke) is taken away. Measured on pen-filled photos: slashes <= 0.14,
# ticks and crosses >= 0.16 (a tick's short arm, a cross's second bar)
SECOND_SLASH = 0.10  # at most this on a second stroke: a single stroke (slash)
SECOND_CROSS = 0.18  # at least this: two strokes (tick, cross)
SLASH_MAX_INK = 0.55  # a box more inked than this is coloured in, not slashed
FIRST_SLASH = 0.80  # and a slash has most of its ink on its one band
MIN_MATCH = 0.3  # a box whose outline matches the blank sheet worse than this: review
OVER_PRINT = 0.22  # ink over printed text: this much darker than the print
FAINT = 0.45  # a mark this much lighter than the sheet's typical mark is "faint"


@dataclass
class Mark:
    """The reading of one checkbox or bubble."""

    state: str  # checked | slashed | empty | cancelled | review
    confidence: float
    likely: str  # the most likely of checked/slashed/empty/cancelled (= state unless review)
    why: str = ""  # for review and faint marks: what was unclear
    features: dict[str, float] = field(default_factory=dict)


@dataclass
class Calibration:
    paper: float  # median darkness of the boxes' insides (paper)
    noise: float  # robust spread of it
    t_ink: float  # pixel threshold for ink
    t_faint: float  # pixel threshold for faint ink (pencil)
    ink_level: float = 0.0  # typical darkness of a mark on this sheet
    t_clear: float = 0.0  # faint ink in a box with printed text (above its blur halo)
    t_near: float = 0.0  # ... and right beside the printed text


@dataclass
class Reading:
    """Everything read off one sheet's boxes, plus what the OCR stage needs."""

    marks: dict[str, Mark]
    calibration: Calibration
    shifts: dict[str, tuple[int, int]]
    darkness: dict[str, np.ndarray]  # digits/text regions: aligned darkness patch
    faint: list[str] = field(default_factory=list)


# --- alignment ---------------------------------------------------------------------------
def _match(img: np.ndarray, tmpl: np.ndarray, u0: int, v0: int, r: int
           ) -> tuple[int, int, float]:
    """Best (du, dv, score) of `tmpl` placed at (u0, v0) +- r in `img`."""
    h, w = tmpl.shape
    H, W = img.shape
    a, b = u0 - r, v0 - r
    if a < 0 or b < 0 or a + w + 2 * r > W or b + h + 2 * r > H:
        big = cv2.copyMakeBorder(img, r, r, r, r, cv2.BORDER_REPLICATE)
        win = big[b + r:b + r + h + 2 * r, a + r:a + r + w + 2 * r]
    else:
        win = img[b:b + h + 2 * r, a:a + w + 2 * r]
    res = cv2.matchTemplate(win, tmpl, cv2.TM_CCOEFF_NORMED)
    _, best, _, loc = cv2.minMaxLoc(res)
    return loc[0] - r, loc[1] - r, float(best) if np.isfinite(best) else 0.0


def _regularise(tpl: Template, s: np.ndarray, good: np.ndarray, tol: float) -> np.ndarray:
    """Replace shifts that are weak or disagree with their neighbours' median."""
    out = s.copy()
    for k in range(len(s)):
        near = tpl.neighbours[k][good[tpl.neighbours[k]]]
        if near.size >= 3:
            med = np.median(s[near], axis=0)
            if not good[k] or np.abs(s[k] - med).max() > tol:
                out[k] = np.round(med)
        elif not good[k]:
            out[k] = 0
    return out


def align(canvas: np.ndarray, tpl: Template) -> tuple[dict[str, tuple[int, int]],
                                                       dict[str, float]]:
    """Each region's (du, dv) shift and match score: coarse to fine. A coarse search
    (+-ALIGN_MM at half resolution) absorbs what a homography cannot (page curl, lens
    distortion), a fine one (+-2 px) settles on the outline; after each, a shift that
    disagrees with the boxes nearby (a mark fooling the match) takes their median."""
    half = cv2.resize(canvas, (canvas.shape[1] // 2, canvas.shape[0] // 2),
                      interpolation=cv2.INTER_AREA).astype(np.float32)
    tg_half = tpl.gray_half
    rc = max(1, round(ALIGN_MM / 25.4 * tpl.dpi / 2))
    n = len(tpl.regions)
    coarse = np.zeros((n, 2), np.float32)
    cgood = np.zeros(n, bool)
    for k, g in enumerate(tpl.regions):
        pu0, pv0, pu1, pv1 = (v // 2 for v in g.patch)
        t = tg_half[pv0:pv1, pu0:pu1]
        du, dv, sc = _match(half, t, pu0, pv0, rc)
        coarse[k] = (2 * du, 2 * dv)
        cgood[k] = sc > 0.5
    coarse = _regularise(tpl, coarse, cgood, 3.0)
    img = canvas.astype(np.float32)
    fine = np.zeros((n, 2), np.float32)
    scores = np.zeros(n, np.float32)
    for k, g in enumerate(tpl.regions):
        pu0, pv0, pu1, pv1 = g.patch
        t = tpl.gray_f[pv0:pv1, pu0:pu1]
        cu, cv = int(coarse[k][0]), int(coarse[k][1])
        du, dv, sc = _match(img, t, pu0 + cu, pv0 + cv, 2)
        fine[k] = (cu + du, cv + dv)
        scores[k] = sc
    fine = _regularise(tpl, fine, scores > 0.5, 1.5)
    ids = [g.region.id for g in tpl.regions]
    return ({rid: (int(fine[k][0]), int(fine[k][1])) for k, rid in enumerate(ids)},
            {rid: float(scores[k]) for k, rid in enumerate(ids)})


def _patch(canvas: np.ndarray, g: RegionGeom, shift: tuple[int, int]) -> np.ndarray:
    pu0, pv0, pu1, pv1 = g.patch
    du, dv = shift
    H, W = canvas.shape
    u0, v0, u1, v1 = pu0 + du, pv0 + dv, pu1 + du, pv1 + dv
    if u0 < 0 or v0 < 0 or u1 > W or v1 > H:
        r = max(abs(du), abs(dv))
        big = cv2.copyMakeBorder(canvas, r, r, r, r, cv2.BORDER_REPLICATE)
        return big[v0 + r:v1 + r, u0 + r:u1 + r]
    return canvas[v0:v1, u0:u1]


# --- darkness ----------------------------------------------------------------------------
def darkness_patch(canvas: np.ndarray, tpl: Template, g: RegionGeom,
                   shift: tuple[int, int]) -> tuple[np.ndarray, float]:
    """Darkness 0..1 of a region's patch relative to the paper just around it."""
    obs = _patch(canvas, g, shift).astype(np.float32)
    if g.ring is not None:
        sel = obs[g.ring]
        k = max(1, sel.size // 10)
        paper_obs = float(np.partition(sel, sel.size - k)[sel.size - k:].mean())
        paper = paper_obs * 255.0 / max(g.paper_tone, 1.0)  # the white inside the box
    else:
        paper = float(np.percentile(obs, 95))
    d = 1.0 - obs / max(paper, 1.0)  # paper brighter than its estimate goes negative
    np.clip(d, -1.0, 1.0, out=d)
    return cv2.blur(d, (3, 3)), paper


def halo_ink(canvas: np.ndarray, tpl: Template, g: RegionGeom, shift: tuple[int, int],
             paper: float, t_ink: float) -> float:
    """The fraction of the rim around a box that is inked (a correction fills the box
    over its outline; a box coloured in to mark it stays inside)."""
    if g.halo_mask is None or not g.halo_mask.any():
        return 0.0
    u0, v0, u1, v1 = g.halo
    fake = RegionGeom(g.region, g.box, (u0, v0, u1, v1), g.inside, g.centre, g.printed,
                      g.clear, g.inner, g.text)
    obs = _patch(canvas, fake, shift).astype(np.float32)
    d = cv2.blur(np.clip(1.0 - obs / max(paper, 1.0), 0.0, 1.0), (3, 3))
    printed = tpl.ink_max[v0:v1, u0:u1]
    inked = (d > t_ink) & (d - printed > OVER_PRINT)
    return float(inked[g.halo_mask].mean())


# --- features ----------------------------------------------------------------------------
def _best_band(pts: np.ndarray, band: float) -> tuple[float, float, np.ndarray]:
    """The straight band of width `band` holding most of the points: (count, angle in
    degrees, mask of the points on it)."""
    angles = np.deg2rad(np.arange(0, 180, 3, dtype=np.float32))
    normal = np.stack([-np.sin(angles), np.cos(angles)], 1)
    rho = pts @ normal.T  # (N, A)
    bins = np.floor(rho - rho.min()).astype(np.int32)
    nb = int(bins.max()) + 1
    w = max(1, round(band))
    best, best_a, best_lo = -1.0, 0, 0
    for a in range(angles.size):
        hist = np.bincount(bins[:, a], minlength=nb).astype(np.float32)
        csum = np.concatenate([[0.0], np.cumsum(hist)])
        win = csum[w:] - csum[:-w] if nb >= w else csum[-1:]
        k = int(win.argmax())
        if win[k] > best:
            best, best_a, best_lo = float(win[k]), a, k
    on = (bins[:, best_a] >= best_lo) & (bins[:, best_a] < best_lo + w)
    return best, float(np.rad2deg(angles[best_a])), on


def line_fraction(ys: np.ndarray, xs: np.ndarray, band: float) -> tuple[float, float]:
    """How much of the ink lies on one straight stroke, and on a second one.

    Returns (first, second): the fraction of ink pixels on the best straight band of
    width `band`, and the fraction (of all ink) on the best band through what is left.
    A slash is one band (second ~0); a tick adds a short arm (second ~0.2-0.35); a cross
    two long ones (second ~0.4)."""
    n = ys.size
    if n < 4:
        return 1.0, 0.0
    pts = np.stack([xs, ys], 1).astype(np.float32)
    pts -= pts.mean(axis=0)
    first, _, on = _best_band(pts, band)
    rest = pts[~on]
    second = _best_band(rest, band)[0] if rest.shape[0] >= 4 else float(rest.shape[0])
    return first / n, second / n


def stroke_width(ink: np.ndarray) -> float:
    """Typical stroke width of a binary ink mask (pixels): from the distance to paper on
    the strokes' spines."""
    if ink.sum() < 3:
        return 1.0
    dist = cv2.distanceTransform(np.pad(ink.astype(np.uint8), 1), cv2.DIST_L2, 3)[1:-1, 1:-1]
    return float(max(1.0, 2 * np.percentile(dist[ink], 90) - 1))


def features(d: np.ndarray, g: RegionGeom, cal: Calibration, printed_ink: np.ndarray
             ) -> dict[str, float]:
    """The measurements classify() decides on (`printed_ink`: the template's darkness
    over the same patch)."""
    inside = g.inside
    n = int(inside.sum())
    if n == 0:
        return {"n": 0.0, "ink": 0.0, "faint": 0.0, "centre": 0.0, "level": 0.0}
    vals = d[inside]
    n_ink = int(np.count_nonzero(vals > cal.t_ink))
    faint = vals > cal.t_faint
    clear = d[g.clear]  # faint ink is only believed away from printed text's blur halo
    n_faint = float(n_ink)
    if g.region.printed:  # above the print's blur halo, measured on this sheet
        near = d[inside & ~g.clear]
        n_faint = max(n_faint, int(np.count_nonzero(clear > max(cal.t_faint, cal.t_clear)))
                      + int(np.count_nonzero(near > max(cal.t_faint, cal.t_near))))
    else:
        n_faint = max(n_faint, int(np.count_nonzero(clear > cal.t_faint))
                      + int(np.count_nonzero(d[inside & ~g.clear] > cal.t_faint)))
    c = d[g.centre]
    # a box whose middle is printed over (a number): any ink counts as crossing it
    centre = (float(np.count_nonzero(c > cal.t_faint)) / c.size if c.size >= max(12, 0.1 * n)
              else 0.0)
    over = g.text  # printed text inside the box: a stroke across it is darker
    n_over = int(np.count_nonzero(over))
    if n_over:
        dv = d[over]
        n_dark = int(np.count_nonzero((dv - printed_ink[over] > OVER_PRINT) & (dv > cal.t_ink)))
        centre = max(centre, n_dark / n_over)
        n_ink += n_dark  # the ink inside counts the strokes across the print too
        n_faint += n_dark
        n += n_over
    out = {"n": float(n), "ink": n_ink / n, "faint": n_faint / n, "centre": centre,
           "level": float(np.percentile(vals[faint], 75)) if faint.sum() >= 3 else 0.0}
    if n_ink / n < F_FILLED:
        return out
    # edge-to-edge: ink reaching every side of the inside (a box filled solid)
    ys, xs = np.nonzero(inside)
    y0, y1, x0, x1 = ys.min(), ys.max(), xs.min(), xs.max()
    band = max(2, (y1 - y0) // 6)
    m = (d > cal.t_ink) & inside
    sides = [m[y0:y0 + band].sum() / max(1, inside[y0:y0 + band].sum()),
             m[y1 - band + 1:y1 + 1].sum() / max(1, inside[y1 - band + 1:y1 + 1].sum()),
             m[:, x0:x0 + band].sum() / max(1, inside[:, x0:x0 + band].sum()),
             m[:, x1 - band + 1:x1 + 1].sum() / max(1, inside[:, x1 - band + 1:x1 + 1].sum())]
    out["sides"] = float(min(sides))
    return out


# --- calibration -------------------------------------------------------------------------
def calibrate(patches: dict[str, np.ndarray], geoms: dict[str, RegionGeom]) -> Calibration:
    """Paper level and noise from the boxes themselves. Ink only ever darkens, so the
    half of each box's pixels below its median is paper: its spread (median - 16th
    percentile) is the noise, whatever share of the box is inked, and the median over
    boxes of the box medians is the paper level (most boxes are mostly paper, even on a
    full sheet)."""
    meds: list[float] = []
    spreads: list[float] = []
    for rid, d in patches.items():
        v = d[geoms[rid].inside]
        if v.size < 20:
            continue
        lo, med = np.percentile(v, (16, 50))
        meds.append(med)
        spreads.append(med - lo)
    if not meds:
        return Calibration(0.0, 0.004, 0.12, 0.06)
    m, sp = np.array(meds), np.array(spreads)
    # a sheet may have most boxes marked (a thick marker, a long career): the paper is
    # the lightest fifth of the box medians, the noise that of the boxes at that level
    p0 = float(np.percentile(m, 20))
    paper = m <= p0 + 0.05
    noise = max(float(np.median(sp[paper] if paper.sum() >= 10 else sp)), 0.004)
    return Calibration(p0, noise, p0 + max(7 * noise, 0.12), p0 + max(4 * noise, 0.06))


# --- classification ----------------------------------------------------------------------
def _conf(x: float, lo: float, hi: float) -> float:
    """0.5 at a boundary, 1.0 at `hi` past it (lo = the boundary)."""
    if hi == lo:
        return 1.0
    return float(np.clip(0.5 + 0.5 * (x - lo) / (hi - lo), 0.0, 1.0))


def classify(f: dict[str, float], executed: bool, line: tuple[float, float] | None,
             cal: Calibration) -> Mark:
    """One box's state from its features (docs/scanner.md: the rules)."""
    ink, faint, centre = f["ink"], f["faint"], f["centre"]
    if f["n"] == 0:
        return Mark(REVIEW, 0.0, EMPTY, "box outside the photo", f)
    # 1. empty: no ink at all (not even faint) beyond a speck
    if faint < F_EMPTY:
        return Mark(EMPTY, _conf(F_EMPTY - faint, 0, F_EMPTY), EMPTY, "", f)
    # 2. some ink: is it a mark?
    if ink < F_MARK:
        if (faint >= F_MARK * 1.8 and centre >= F_CENTRE
                and f["level"] >= (cal.t_faint + cal.t_ink) / 2):
            # a clear faint stroke (pencil): checked, with the confidence it deserves
            state = _stroke_state(executed, line)
            if state == REVIEW:
                return Mark(REVIEW, 0.4, CHECKED, "faint mark: tick, cross or slash?", f)
            return Mark(state, 0.65, state, "faint mark", f)
        if f["level"] < (cal.t_faint + cal.t_ink) / 2 and ink < F_EMPTY:
            # a trace barely above the paper's noise (a blur halo, a shadow's edge)
            return Mark(EMPTY, 0.6, EMPTY, "", f)
        likely = CHECKED if ink >= F_MARK / 2 and faint >= F_MARK else EMPTY
        return Mark(REVIEW, 0.35, likely, "a little ink: a light mark, an erasure or a "
                    "stray?", f)
    if centre < F_CENTRE:
        return Mark(REVIEW, 0.4, EMPTY, "ink only at the box's edge: a stray from "
                    "outside?", f)
    # 3. filled solid and scribbled over past the outline: a correction (cancelled);
    #    filled but kept inside the box: coloured in (checked)
    if ink >= F_FILLED and f.get("sides", 0) >= 0.8:
        halo = f.get("halo", 0.0)
        if halo >= HALO_CANCEL:
            return Mark(CANCELLED, _conf(halo, HALO_CANCEL, 2 * HALO_CANCEL), CANCELLED, "", f)
        if halo >= HALO_REVIEW:
            likely = CANCELLED if halo >= (HALO_CANCEL + HALO_REVIEW) / 2 else CHECKED
            return Mark(REVIEW, 0.45, likely, "box filled, with ink around it: coloured in "
                        "(checked) or filled and scribbled over (cancelled)?", f)
        return Mark(CHECKED, _conf(HALO_CANCEL - halo, HALO_CANCEL - HALO_REVIEW,
                                   HALO_CANCEL), CHECKED, "", f)
    conf = _conf(ink, F_MARK, F_MARK * 2.5)
    if cal.ink_level and f["level"] < FAINT * cal.ink_level:
        conf = min(conf, 0.75)
    state = _stroke_state(executed and ink < SLASH_MAX_INK, line)
    if state == REVIEW:
        l2 = line[1] if line else 0.0
        likely = SLASHED if l2 < (SECOND_SLASH + SECOND_CROSS) / 2 else CHECKED
        return Mark(REVIEW, 0.45, likely, "one stroke or two? (slash = failed, cross = "
                    "success)", f)
    if executed and line is not None and ink < SLASH_MAX_INK:
        l2 = line[1]
        conf = min(conf, _conf(SECOND_SLASH - l2, 0, SECOND_SLASH) if state == SLASHED
                   else _conf(l2, SECOND_CROSS, SECOND_CROSS + 0.12))
    return Mark(state, conf, state, "", f)


def _stroke_state(executed: bool, line: tuple[float, float] | None) -> str:
    """On an Executed box: one straight stroke is a slash (failed), more is a success."""
    if not executed or line is None:
        return CHECKED
    first, second = line
    if second <= SECOND_SLASH and first >= FIRST_SLASH:
        return SLASHED
    if second >= SECOND_CROSS:
        return CHECKED
    return REVIEW


def is_executed(region_id: str) -> bool:
    return region_id.startswith("mission.")


def read_marks(canvas: np.ndarray, tpl: Template) -> Reading:
    """Read every checkbox and bubble of a rectified sheet."""
    shifts, scores = align(canvas, tpl)
    geoms = tpl.by_id()
    patches: dict[str, np.ndarray] = {}
    other: dict[str, np.ndarray] = {}
    papers: dict[str, float] = {}
    for g in tpl.regions:
        rid = g.region.id
        d, papers[rid] = darkness_patch(canvas, tpl, g, shifts[rid])
        (patches if g.region.kind in ("checkbox", "bubble") else other)[rid] = d
    cal = calibrate(patches, geoms)
    # the blur halo of printed text: how dark the clear part of boxes with printed text
    # gets on this sheet (most of them are empty); faint ink there must be darker
    halos = [float(np.percentile(d[geoms[rid].clear], 95)) for rid, d in patches.items()
             if geoms[rid].region.printed and geoms[rid].clear.sum() >= 12]
    if len(halos) >= 5:
        cal.t_clear = float(np.median(halos)) + 3 * cal.noise
    nears = [float(np.percentile(d[geoms[rid].inside & ~geoms[rid].clear], 95))
             for rid, d in patches.items()
             if geoms[rid].region.printed and (geoms[rid].inside & ~geoms[rid].clear).sum() >= 12]
    if len(nears) >= 5:
        cal.t_near = float(np.median(nears)) + 3 * cal.noise
    feats = {}
    for rid, d in patches.items():
        pu0, pv0, pu1, pv1 = geoms[rid].patch
        feats[rid] = features(d, geoms[rid], cal, tpl.ink_max[pv0:pv1, pu0:pu1])
    for rid, f in feats.items():
        if f["ink"] >= F_FILLED:
            f["halo"] = halo_ink(canvas, tpl, geoms[rid], shifts[rid], papers[rid], cal.t_ink)
    marked = [f["level"] for f in feats.values() if f["ink"] >= F_MARK * 2]
    cal.ink_level = float(np.median(marked)) if marked else 0.0
    marks: dict[str, Mark] = {}
    faint: list[str] = []
    for rid, f in feats.items():
        executed = is_executed(rid)
        line = None
        if executed and (f["ink"] >= F_MARK * 0.5 or f["faint"] >= F_MARK):
            g = geoms[rid]
            d = patches[rid]
            m = (d > (cal.t_ink if f["ink"] >= F_MARK else cal.t_faint)) & g.inside
            # a stroke across printed text: ink clearly darker than the print there
            pu0, pv0, pu1, pv1 = g.patch
            over = g.text
            if over.any():
                m |= over & (d - tpl.ink_max[pv0:pv1, pu0:pu1] > OVER_PRINT)
            ys, xs = np.nonzero(m)
            band = max(6.0, 1.2 * stroke_width(m) + 2.0)
            line = line_fraction(ys, xs, band) if executed else None
        mk = classify(f, executed, line, cal)
        weak = (scores[rid] < MIN_MATCH and mk.state != EMPTY) or scores[rid] < MIN_MATCH / 2
        if weak and f["ink"] < SLASH_MAX_INK:  # (a box inked all over matches poorly)
            mk = Mark(REVIEW, 0.3, mk.likely, "the box's outline was not found where "
                      "expected (a fold, a shadow, ink all over it?)", mk.features)
        if line is not None:
            mk.features["line"] = round(line[0], 3)
            mk.features["line2"] = round(line[1], 3)
        if mk.why.startswith("faint"):
            faint.append(rid)
        marks[rid] = mk
    return Reading(marks, cal, shifts, other, faint)
