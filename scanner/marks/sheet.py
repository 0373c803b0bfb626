"""Read a whole sheet's boxes (read_marks), and the reviews that need the sheet around a
box: its neighbours' places, the sheet's own marks, light strokes read again at a quiet
sheet's own noise, straight lines too faint for their pixels (scanner.faintline).
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

import cv2
import numpy as np

from scanner.faintline import (
    LINE_BOXES,
    band_scores,
    band_z,
    ends_standing_out,
    plain_standing_out,
    standing_out,
)
from scanner.marks.arrays import _group_median, _median, _pct, _rows
from scanner.marks.audit import band_features, box_inputs, second_look
from scanner.marks.classifier import (
    EDGE_WHY,
    F_TRACE,
    FAINT_MARK_WHY,
    PALE_RIM,
    _covered,
    classify,
    pale_fill,
)
from scanner.marks.compiled import darkness as stack_darkness
from scanner.marks.features import _sides, _specks, halo_ink, ink_reach, ink_reaches, measure
from scanner.marks.ncc import halved
from scanner.marks.paper import (
    _far_paper,
    _light_slope,
    _paper,
    _paper_floor,
    calibrate,
    ring_ranks,
)
from scanner.marks.printed import _over_print, expected_print, pedestal, print_model
from scanner.marks.registration import FINE_PX, FIRST_PX, align, outline_match, refine, register
from scanner.marks.shape import (
    DARK_LEVEL,
    TICK_VETO,
    _faint_slash,
    _inked,
    _light_stroke_state,
    _settled_slash,
    _success_says_slash,
    _success_slash,
    _weak_second,
)
from scanner.marks.stack import Stack, _prepared
from scanner.marks.state import (
    BLURRED_PX,
    CANCELLED,
    CHECKED,
    EMPTY,
    F_CENTRE,
    F_EMPTY,
    F_MARK,
    INK,
    QUIET_NOISE,
    REVIEW,
    SCAN_NOISE,
    SETTLED,
    SLASHED,
    Calibration,
    Mark,
    is_executed,
)
from scanner.marks.strokes import SECOND_CROSS, SLASH_MAX_INK, _stroke_state, stroke_shape
from scanner.rectify import Field
from scanner.template import RegionGeom, Template
from scanner.tickslash import box_ink, models_opinion, success_probability, tick_probability

THIN_STROKE = 0.025  # read again at a quiet sheet's own noise, a box with text printed in
#   it holding faint ink over this share of it, through its middle, is read by its
#   strokes' shape as a faint mark is (_light_stroke_state), though under F_MARK: a thin
#   pencil stroke across "+1" inks 2-5 % of the box there, the print hiding the rest
#   (session 26: of 1,997 empty mission boxes read again on fifteen seeds' scans and
#   clean renders none reaches 0.021 (cancelled ones aside); 21 reviews there and 8 on
#   the photos read right, none wrong)
LIGHT_BAND_SCORE = 2.5  # a plain checkbox with text printed in it (not Executed) that
#   stays a review for a little ink read again at a quiet sheet's own noise is a mark when
#   its darkest straight band (scanner.faintline.band_z) stands this many interquartile
#   ranges over the bands of the sheet's empty printed checkboxes, and it holds at least
#   LIGHT_BAND_INK there (_light_bands). Session 33, 47 seeds' scans, clean renders and
#   mild photos: of 44 empty such boxes read again none scores over 2.1 (none with that
#   ink over 1.9); of 175 ticked ones 109 reach it
LIGHT_BAND_INK = 0.02
LIGHT_ONE_BAND = 0.9  # a light stroke read again at a quiet sheet's own noise
#   (_read_light_again) as a tick with this much of its ink on one band is one only if the
#   model says so too (TICK_VETO): session 26, a pencil slash through the printed "+" read
#   as a tick (line 0.93, the model 0.48); the 23 ticks read so on fifteen seeds' scans,
#   clean renders and short-ticks scans: the five with 0.93 or more at 0.998 or more
SHAPE_CORE = 0.5  # unsure of the strokes at the ink's edge: look again at this share of
#                   the ink's level (its cores: a blur halo no longer fills a tick's notch)
MIN_MATCH = 0.3  # a box whose outline matches the blank sheet worse than this: review
# a sheet whose typical mark (median level of the boxes with faint ink, at least 20 of
# them) is under 1.5x its ink threshold is "light": its empty boxes with some ink inside
# (fill or level) go to review (docs/scanner.md)
LIGHT_MIN_MARKS, LIGHT_RATIO, LIGHT_FILL, LIGHT_LEVEL = 20, 1.5, 0.04, 0.1
LIGHT_QUIET_FAINT = F_EMPTY  # ... and on such a sheet as quiet as a scan or a clean photo
#   (QUIET_NOISE), one with faint ink on this share of it: no noise puts it there. Session
#   61: a pale pencil cross on a 150 dpi photocopy (1913 scan-150 59, the sheet's marks at
#   1.03x the threshold, refused, read anyway) read empty silently, faint ink on 0.0225
#   of it, level 0.0998; the 2,809 empty boxes read empty on the sixteen faintest quiet
#   sheets have 0.008 at most. On 12,480 bench sheets of 40 seeds, that box alone changes
LOW_INK, LOW_FAINT = 0.06, 0.035  # on a quiet, light sheet the boxes left unclear for a
#   little ink are read again with the ink and faint thresholds this far over the paper
#   (or 7 and 4 times its noise) instead of 0.12 and 0.06: so light a pencil (the sheet's
#   marks under LIGHT_RATIO of the usual thresholds) draws strokes at 0.1-0.15, 25 times a
#   scan's noise. Near print the print residual's own threshold (t_print) still holds.
#   On the cached bench sheets 25 such reviews read right, none wrong (0.05/0.03: 26;
#   0.07/0.04: 24). A sheet as quiet as a scan (SCAN_NOISE) is read again so whatever its
#   marks' darkness (pencil over printed numbers: session 13, 18 reviews right on the cached
#   sheets, seeds 0/7/11/21/22/31); there a plain box whose ink is toner specks only is
#   empty (session 17; a review before: 58 on the cached sheets, all on scans, all empty)
REACH_MIN = 0.3  # a mark's ink spans at least this share of its box across and down (a
#   tick, a cross, a slash); ink by one edge or corner is a stray's as much (_by_the_edge).
#   Session 40: of 141,511 marks read right on the first 20 seeds' default sets, 5 reach
#   less (0.17-0.27, pencil over a promotion box's printed number); of 108 stray strokes
#   grazing an empty box that were read as marks (strays sets, 7 seeds), 105 reach 0.08-0.26
LOW_TICK_REACH, LOW_TICK_P = 0.4, 0.98  # on a sheet as quiet as a scan, ink at a box's
#   edge that spans this much of it both ways and that both tick-or-slash models call a
#   tick at this or more: a tick drawn low (_drawn_low). Session 40: the fifty seeds'
#   quiet sheets have three such reviews, all ticks drawn low (reach 0.47-0.6); of the
#   240 empty boxes the strays sets' quiet sheets send there, the models call 21 ticks at
#   0.98 or more, but none of them reaches over 0.3 (a stray stays by its edge)
DRAWN_LOW_WHY = ("a tick drawn low in its box: ink at its edge that spans it, which both "
                 "tick-or-slash models call a tick")
WHISPER = 0.004  # faint ink on this share of a box (2 px at 200 dpi): a whisper of ink
QUIET_BOXES = 0.04  # a sheet whose unmarked boxes whisper no more often than this ...
LIKE_MARKS = 0.6  # ... reads a little ink at least this share of its marks' level as a mark
LIGHT_WHY = "light marks on this sheet: a faint mark below the thresholds?"
UNCOMPARED_WHY = ("a faint mark, or the photo's noise? (no clear mark on this sheet to "
                  "compare it with)")  # a faint mark on a noisy photo of a sheet with no
#   mark inking 2 F_MARK of its box (cal.ink_level 0: a blank sheet): review, likely empty
#   (session 26: a fresh seed's dim, noisy photo of a blank sheet read two blotches of
#   noise as faint marks; on fifteen seeds' photos no other reading changed)
FAINT_LINE_WHY = ("read empty, but a faint straight stroke crosses it: a light mark, or the "
                  "photo's noise?")
DRAWN_PX = 3  # a box found more than this (px, either axis) from the median place of the
#   boxes within 25 mm of it, and read as marked there, is read again at that median: an
#   empty box there is a review (DRAWN_WHY)
DRAWN_WHY = ("marked where its outline was found, but empty where its neighbours put it: "
             "a neighbour's ink drawing the match, or a mark?")
LIKE_MARKS_WHY = "a light mark, as dark as this sheet's marks"
QUIET_MARK_WHY = "a light mark, read at this quiet sheet's own noise"
LIGHT_BAND_WHY = "a light straight stroke, standing out from this sheet's empty boxes"
OUTLINE_WHY = ("the box's outline was not found where expected (a fold, a shadow, ink all "
               "over it?)")  # its ink may be a neighbour's: the page may say it is empty


@dataclass
class Reading:
    """Everything read off one sheet's boxes, plus what the OCR stage needs."""

    marks: dict[str, Mark]
    calibration: Calibration
    shifts: dict[str, tuple[int, int]]
    darkness: dict[str, np.ndarray]  # digits/text regions: aligned darkness patch
    faint: list[str] = field(default_factory=list)
    field: Field | None = None  # the residual warp found (canvas pixels)
    print_look: tuple[float, float] = (0.0, 1.0)  # the print's blur (px) and gain on the photo
    contrast: float = float("inf")  # the sheet's typical mark over its ink threshold
    # what scanner.marks.audit saw of each box (read_marks' `audit`; to train it)
    audit_inputs: tuple[Sequence[str], np.ndarray] | None = None

    @property
    def light(self) -> bool:
        """The sheet's marks are barely darker than its ink threshold (LIGHT_RATIO)."""
        return self.contrast < LIGHT_RATIO

    @property
    def quiet(self) -> bool:
        """The sheet is as quiet as a scan (SCAN_NOISE): its noise makes no mark."""
        return self.calibration.noise < SCAN_NOISE

    @property
    def plain(self) -> bool:
        """The sheet is quiet and its marks are not light: a mark shows there, and a box
        with no ink holds none."""
        return self.quiet and not self.light


ALT_FAINT = 0.5  # a faint mark of which the blurrier of two such models leaves less than this
#                  share is the print's blur as much as ink: review


def _darkness_patch(canvas: np.ndarray, g: RegionGeom, shift: tuple[int, int], pad: int
                    ) -> np.ndarray:
    """Darkness 0..1 of a written field's patch relative to the paper around it."""
    pu0, pv0, pu1, pv1 = g.patch
    du, dv = shift
    obs = canvas[pv0 + dv + pad:pv1 + dv + pad, pu0 + du + pad:pu1 + du + pad].astype(np.float32)
    if g.ring is not None and g.ring.shape == obs.shape and g.ring.any():
        sel = obs[g.ring]
        k = max(1, sel.size // 10)
        paper_obs = float(np.partition(sel, sel.size - k)[sel.size - k:].mean())
        paper = paper_obs * 255.0 / max(g.paper_tone, 1.0)
    else:
        paper = float(np.percentile(obs, 95))
    d = 1.0 - obs / max(paper, 1.0)
    np.clip(d, -1.0, 1.0, out=d)
    return cv2.blur(d, (3, 3))


def read_marks(canvas: np.ndarray, tpl: Template, inks: dict[str, np.ndarray] | None = None,
               audit: bool = False, settle: bool = False) -> Reading:
    """Read every checkbox and bubble of a rectified sheet; `inks` (to train or inspect
    scanner.tickslash): filled with each Executed box's ink as its model sees it; `audit`:
    the learned second look (scanner.marks.audit, trained on career sheets) checks what
    the rules read, and with `settle` reads the reviews it is all but sure of."""
    _, st = _prepared(tpl)
    fld = register(canvas, tpl)
    disp = np.abs(fld.nodes).max() if fld.nodes.size else 0.0
    pad = int(np.ceil(disp)) + FIRST_PX + 8
    big = cv2.copyMakeBorder(canvas, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    big_f = big.astype(np.float32)
    half = halved(big_f)
    first = align(big_f, tpl, fld, pad, FIRST_PX, outline=True, half=half)
    fld = refine(tpl, fld, first.shifts, first.scores, (canvas.shape[1], canvas.shape[0]))
    fine = align(big_f, tpl, fld, pad, FINE_PX, prev=first, half=half)
    shifts, scores = fine.shifts, fine.scores
    ids = [g.region.id for g in tpl.regions]
    # the stack of box patches, gathered at each box's shift
    P, Q = st.size
    sh = shifts[st.index] if len(st.index) else np.zeros((0, 2), int)
    rows = (st.origin[:, 1] + sh[:, 1] + pad)[:, None] + np.arange(P)[None, :]
    cols = (st.origin[:, 0] + sh[:, 0] + pad)[:, None] + np.arange(Q)[None, :]
    rows = np.clip(rows, 0, big.shape[0] - 1)
    cols = np.clip(cols, 0, big.shape[1] - 1)
    obs = big_f[rows[:, :, None], cols[:, None, :]]
    ring, ring_part = ring_ranks(obs, st)
    paper = _paper_floor(_paper(obs, st, ring_part), st,
                         lambda ks: _far_paper(big_f, tpl, st, sh, pad, ks))
    # (float32 throughout: a stack of a few hundred patches, read many times over)
    slope = _light_slope(ring, ring_part, st)
    d = stack_darkness(obs, paper.astype(np.float32), slope)  # (1 - obs / lit paper, 3x3 mean)
    cal = calibrate(d, st)
    pr = st.printed & (st.n_inside > 0)
    if pr.sum() >= 5:
        clear = _rows(d, st.clear_idx)[pr]
        cal.t_clear = float(np.median(_pct(clear, 95))) + 3 * cal.noise
        near = _rows(d, st.near_idx)[pr]
        cal.t_near = float(np.median(_pct(near, 95))) + 3 * cal.noise
    sigma, gain, blurrier = print_model(d, tpl, st)
    cal.blur, cal.gain = blurrier[0], gain
    # ink over print (_over_print)
    over = _over_print(d, gain * expected_print(tpl, st, sigma))
    # the residual's noise near print: the 99th percentile there on the lightest tenth of
    # the printed boxes (a long career marks many of them, not nine in ten)
    t_print = cal.t_faint + 0.03
    if pr.sum() >= 8:
        zb = (st.near | st.text)[pr]
        vals = np.where(zb, over[pr], -np.inf).reshape(int(pr.sum()), -1)
        cnt = zb.sum(axis=(1, 2))
        srt = -np.sort(-vals, axis=1)
        k = np.clip(np.floor(0.01 * (cnt - 1)).astype(int), 0, srt.shape[1] - 1)
        q = float(np.percentile(srt[np.arange(len(cnt)), k], 10)) + 3 * cal.noise
        t_print = min(max(t_print, q), max(cal.t_ink, cal.t_faint + 0.15))
    cal.t_near = t_print
    # each box's own noise, from the paper of its ring (the light tail: marks and print
    # only darken): a box in a shadow or on a dim, noisy part of the photo gets
    # thresholds to match
    ring_d = _rows(d, st.ring)
    R = ring_d.shape[1]
    k5, k15 = (5 * (R - 1)) // 100, (15 * (R - 1)) // 100
    lo, hi = (R - 1) // 2, R // 2  # the median's two middle ranks
    part = np.partition(ring_d, sorted({k5, k15, lo, hi}), axis=1)
    own = np.clip((part[:, k15] - part[:, k5]) / 0.609, 0, None)
    own = np.where(st.has_ring, own, cal.noise)
    noise_k = np.maximum(cal.noise, np.minimum(own, 1.0 * cal.noise))
    # ... and its own paper level: the median of its ring (paper, a neighbour's stroke
    # or print's blur poking into it is a minority), so a paper estimate a little off
    # for this box moves its thresholds with it
    p0_k = np.where(st.has_ring, (part[:, lo] + part[:, hi]) / 2, cal.paper)
    p0_k = np.clip(p0_k, cal.paper - 0.03, cal.paper + 0.03)
    t_ink_k = p0_k + np.maximum(7 * noise_k, cal.t_ink - cal.paper)
    t_faint_k = p0_k + np.maximum(4 * noise_k, cal.t_faint - cal.paper)
    if cal.blur >= BLURRED_PX:
        ped = pedestal(d, st, p0_k, t_ink_k)
        t_ink_k, t_faint_k = t_ink_k + ped, t_faint_k + ped
    feats = measure(d, st, t_ink_k, t_faint_k, over, t_print)
    # a blurrier print model fitting nearly as well: what it leaves as faint ink too
    faint_alt = (measure(d, st, t_ink_k, t_faint_k, _over_print(
        d, blurrier[1] * expected_print(tpl, st, blurrier[0])), t_print)["faint"]
        if blurrier[0] > sigma else feats["faint"])
    marked = feats["level"][feats["ink"] >= F_MARK * 2]
    cal.ink_level = float(np.median(marked)) if marked.size else 0.0
    marks: dict[str, Mark] = {}
    faint: list[str] = []
    # a stroke too faint for any of its pixels to clear the noise (scanner.faintline), on a
    # sheet noisier than a scan or blurred (on one quiet and sharp, _read_light_again reads
    # it at the sheet's own noise): each Executed box read empty gets its darkest straight
    # band's z
    lines: dict[str, float] = {}
    ends: dict[str, float] = {}  # ... and each of those with text printed in it, its ends'
    specked: set[str] = set()  # ... and those without whose faint ink is specks alone
    measure_lines = cal.noise >= SCAN_NOISE or cal.blur >= BLURRED_PX
    region, printed_zone = st.inside | st.text, st.near | st.text
    # every box's darkest straight band and its ends (scanner.faintline's, all at once):
    # the faint lines below and the learned second look read them
    bands = (band_features(np.where(printed_zone, over, d), d, region, st.inside, noise_k)
             if measure_lines or audit else None)
    for k, rid in enumerate(st.ids):
        f = _box_features(feats, k, t_ink_k, t_faint_k)
        g = tpl.regions[st.index[k]]
        inside = st.inside[k]
        if _covered(f) and inside.any():
            f["sides"] = _sides(d[k], inside, f["t_ink"])
            level = float(_median(d[k][inside]))
            f["median"] = level  # (SOLID_MEDIAN: a fill's inside is as dark as its ink)
            f.update(halo_ink(big, tpl, st.rims[k], tuple(sh[k]), float(paper[k]), level, cal,
                              pad))
        elif pale_fill(f, cal) and inside.any():
            # (under their own keys: the learned second look was trained without them)
            f.update({key.replace("halo", PALE_RIM, 1): v for key, v in halo_ink(
                big, tpl, st.rims[k], tuple(sh[k]), float(paper[k]),
                float(_median(d[k][inside])), cal, pad, cal.t_faint).items()})
        executed = bool(st.executed[k])
        line = _strokes(d, over, st, k, f, t_print) if executed else None
        if inks is not None and line is not None:
            inks[rid] = _box_ink(d, over, st, k, f)
        mk = classify(f, executed, line, cal)
        if (mk.state in (CHECKED, SLASHED) and st.printed[k] and f["ink"] < 2 * F_MARK
                and faint_alt[k] < ALT_FAINT * f["faint"]):
            # a faint mark mostly explained away by the blurrier of two print models that
            # fit this photo nearly as well: the print's blur as much as ink
            mk = Mark(REVIEW, 0.4, mk.state, "a faint mark, or the print's blur? (this "
                      "photo fits a sharper and a blurrier print nearly as well)", f, INK)
        if (mk.state == REVIEW and mk.likely == EMPTY and f["faint"] < F_TRACE
                and not st.printed[k]  # (print breaks a light stroke into pieces)
                and _specks(d[k], inside, f["t_faint"], tpl.dpi)):
            mk = Mark(EMPTY, 0.6, EMPTY, "", f)
        sc = float(scores[st.index[k]])
        weak = (sc < MIN_MATCH and mk.state != EMPTY) or sc < MIN_MATCH / 2
        if weak and mk.state != EMPTY:  # the ink drags the match down: the outline alone?
            pu0, pv0, pu1, pv1 = g.patch
            sc = outline_match(big_f, tpl.gray_f[pv0:pv1, pu0:pu1], ~g.inner,
                               pu0 + int(sh[k, 0]) + pad, pv0 + int(sh[k, 1]) + pad)
            f["outline"] = round(sc, 3)
            weak = sc < MIN_MATCH
        if weak and f["fill"] < 0.6:  # (a box inked all over matches poorly)
            mk = Mark(REVIEW, 0.3, mk.likely, OUTLINE_WHY, mk.features)
        if line is not None:
            mk.features["line"] = round(line[0], 3)
            mk.features["line2"] = round(line[1], 3)
        if bands is not None and measure_lines and executed and mk.state == EMPTY:
            lines[rid] = float(bands[k, 0])  # (ink over print, as measure's)
            if st.printed[k]:
                ends[rid] = float(bands[k, 3])
            elif f["faint"] > 0 and _specks(d[k], inside, f["t_faint"], tpl.dpi):
                specked.add(rid)
        if mk.why.startswith("faint"):
            faint.append(rid)
        marks[rid] = mk
    drawn = _off_their_neighbours(sh, st, marks)
    if drawn:
        _read_where_neighbours_put(drawn, marks, big_f, paper, slope, pad, tpl, st, cal,
                                   (sigma, gain), (t_ink_k, t_faint_k), t_print)
    if not cal.ink_level and cal.noise >= QUIET_NOISE:
        _uncompared_faint_marks(marks)
    printed = {rid for rid, p in zip(st.ids, st.printed, strict=True) if p}
    _like_the_sheets_marks(marks, feats["faint"], feats["ink"], cal, printed)
    contrast = _light_sheet_review(marks, t_ink_k, cal.noise < QUIET_NOISE)
    quiet_enough = cal.blur < BLURRED_PX and (
        cal.noise < SCAN_NOISE or (cal.noise < QUIET_NOISE and contrast < LIGHT_RATIO))
    again = ([k for k, rid in enumerate(st.ids) if unclear_ink(marks[rid])]
             if quiet_enough else [])
    lo_faint: np.ndarray | None = None  # (the thresholds the light marks were read at)
    if again:
        lo_ink = p0_k + np.maximum(7 * noise_k, LOW_INK)
        lo_faint = p0_k + np.maximum(4 * noise_k, LOW_FAINT)
        low = {**measure(d, st, lo_ink, lo_faint, over, t_print),
               "t_ink": lo_ink, "t_faint": lo_faint}
        _read_light_again(again, marks, low, d, over, st, cal, t_print, tpl.dpi)
        _light_bands(again, marks, low["ink"], d, over, st, cal.noise)
        if not cal.ink_level:  # a blank scan's toner specks (in a box without print)
            _uncompared_faint_marks(marks, QUIET_MARK_WHY, printed)
    _faint_lines(marks, lines, ends, specked)
    _by_the_edge(marks, d, over, st, t_faint_k, lo_faint, t_print)
    _models_opinion(marks, d, over, st, cal.noise)
    _drawn_low(marks, d, over, st, t_faint_k, t_print, cal.noise)
    inputs = None
    if audit:
        _rim_ink_alone(marks, st)
        inputs = (st.ids, box_inputs(
            d, over, region, printed_zone, p0_k, t_ink_k, cal.ink_level, cal.noise, cal.blur,
            st.printed, st.executed, [marks[r].features for r in st.ids], st.inside, noise_k,
            bands))
        second_look(marks, *inputs, settle=settle, quiet=cal.noise < SCAN_NOISE,
                    light=contrast < LIGHT_RATIO)
    darkness = {}
    for k, g in enumerate(tpl.regions):
        if g.region.kind in ("digits", "text"):
            darkness[g.region.id] = _darkness_patch(big, g, (int(shifts[k, 0]),
                                                             int(shifts[k, 1])), pad)
    shift_map = {rid: (int(shifts[k, 0]), int(shifts[k, 1])) for k, rid in enumerate(ids)}
    # the written fields are cleaned with thresholds measured over the whole inside of the
    # boxes (their pen strokes are read with the noise of edges and blur included)
    return Reading(marks, _field_calibration(calibrate(d, st, core=False), darkness, tpl),
                   shift_map, darkness, faint, fld, (sigma, gain), contrast, inputs)


def _rim_ink_alone(marks: dict[str, Mark], st: Stack) -> None:
    """Each box read as a correction whose rim is inked on some of its sides seen but not
    all gets halo_alone: how many of its inked sides face no box read with ink (within
    REACH_MM): ink there is the box's own, not a neighbour's (audit.RIM_ALONE)."""
    for k, rid in enumerate(st.ids):
        f, rim = marks[rid].features, st.rims[k]
        if (marks[rid].state != CANCELLED or rim is None
                or not 0 < f.get("halo_sides", 0) < f.get("halo_seen", 0)):
            continue
        bits = int(f.get("halo_inked", 0))
        f["halo_alone"] = sum(
            1 for i, near in enumerate(rim.facing) if bits >> i & 1
            and all(marks[st.ids[j]].state == EMPTY for j in near))


def _box_features(feats: dict[str, np.ndarray], k: int, t_ink: np.ndarray,
                  t_faint: np.ndarray) -> dict[str, float]:
    """Box `k`'s features from measure()'s arrays, with the thresholds they were taken at."""
    f = {key: float(feats[key][k]) for key in ("n", "ink", "faint", "centre", "level", "fill")}
    f["t_ink"], f["t_faint"] = float(t_ink[k]), float(t_faint[k])
    return f


def _strokes(d: np.ndarray, over: np.ndarray, st: Stack, k: int, f: dict[str, float],
             t_print: float) -> tuple[float, float] | None:
    """An Executed box's strokes (line_fraction's first and second), with their shape
    added to its features `f`; None when it holds too little ink to tell."""
    if not (f["ink"] >= F_MARK * 0.5 or f["faint"] >= F_MARK):
        return None
    light = f["faint"] > 1.5 * f["ink"]  # pencil: the shape is in the faint ink
    t_a = f["t_faint"] if (f["ink"] < F_MARK or light) else f["t_ink"]
    line, shape = stroke_shape(d[k], over[k], st, k, max(t_a, t_print), t_a, f["fill"])
    if _stroke_state(True, line, shape["far"]) == REVIEW and SHAPE_CORE * f["level"] > t_a:
        # unsure at the ink's edge (a blur halo fills a thick tick's notch): look again at
        # the strokes' cores, and keep that reading if it is sure
        t_c = SHAPE_CORE * f["level"]
        line_c, shape_c = stroke_shape(d[k], over[k], st, k, max(t_c, t_print), t_c, f["fill"])
        if _stroke_state(True, line_c, shape_c["far"]) != REVIEW and not (
                "corners" in shape and "split_two" in shape_c):
            # (a stroke reaching both corners stays in doubt when only the paper-split
            # test calls its core two strokes: the core's trimmed ends prove nothing)
            line, shape = line_c, {**shape_c, "core": 1.0}
    f.update(shape)
    weak = _weak_second(f)  # a fat mark's two strokes in doubt: both models (_split_slash)
    state = _stroke_state(True, line, shape["far"])
    far_tick = state == CHECKED and line is not None and line[1] < SECOND_CROSS
    if not (weak or far_tick or state != CHECKED):
        return line
    ink = _box_ink(d, over, st, k, f)
    if far_tick or state != CHECKED:  # what the success model weighs in on (_far_slash,
        success = success_probability(ink)  # _success_slash, _success_says_slash)
        if success is not None:
            f["success_p"] = round(success, 4)
    if weak or state != CHECKED:  # what the tick-or-slash models may weigh in on
        thick = _inked(f) >= SLASH_MAX_INK  # a marker's, or a pen's gone fat
        f["tick_p"] = round(tick_probability(ink, thick), 3)
        if weak:
            f["thin_p"] = round(tick_probability(ink, False), 3)
        elif not thick and f["level"] >= DARK_LEVEL:  # a thin marker's too? (_dark_slash)
            f["thick_p"] = round(tick_probability(ink, True), 3)
    return line


def _box_ink(d: np.ndarray, over: np.ndarray, st: Stack, k: int, f: dict[str, float]
             ) -> np.ndarray:
    """Box `k`'s ink as scanner.tickslash's model sees it: its inside and the text printed
    in it, ink over the print taken as darkness over the print's (session 17: with the
    text left out, a slash across "+1" showed as two stubs, as a tick's arms do)."""
    printed = st.near[k] | st.text[k]
    return box_ink(d[k], over[k], st.inside[k] | st.text[k], printed, f["level"])


UNCLEAR_INK = ("a little ink", LIGHT_WHY)  # the reviews _read_light_again looks at again


def unclear_ink(m: Mark) -> bool:
    """A review for a little ink only (what _read_light_again looks at again, and what
    scanner.order settles as a mark before a sure one)."""
    return m.state == REVIEW and m.doubt == INK and m.why.startswith(UNCLEAR_INK)


def edge_ink(m: Mark) -> bool:
    """A review for a mark's worth of ink kept to the box's edge (EDGE_CENTRE): a stray from
    outside, or a tick drawn low in its box (scanner.order settles it as a mark between
    sure marks)."""
    return m.state == REVIEW and m.doubt == INK and m.why == EDGE_WHY


def from_ink_in_print(m: Mark) -> bool:
    """A mark read from a little ink in a box with printed text, for being as dark as the
    sheet's marks (_like_the_sheets_marks) or for a straight band standing out from the
    sheet's empty boxes (_light_bands): the weakest evidence a mark is read on, which
    a printed number's residue a pixel off can also give (scanner.order doubts such a mark
    where its track's order says the box is empty)."""
    return m.state in (CHECKED, SLASHED) and m.why in (LIKE_MARKS_WHY, LIGHT_BAND_WHY)


def light_mark(m: Mark) -> bool:
    """A mark read from light evidence: from ink in print (from_ink_in_print), or from a
    faint stroke of its own ("faint mark", or read again at a quiet sheet's own noise),
    which the photo's noise or a stray can give too (scanner.order doubts such a mark
    where its track's order says the box is empty)."""
    return from_ink_in_print(m) or (m.state in (CHECKED, SLASHED)
                                    and m.why in (FAINT_MARK_WHY, QUIET_MARK_WHY))


def _read_light_again(again: list[int], marks: dict[str, Mark], low: dict[str, np.ndarray],
                      d: np.ndarray, over: np.ndarray, st: Stack, cal: Calibration,
                      t_print: float, dpi: float) -> None:
    """On a sheet as quiet as a scan, or a quiet one whose marks are light, a box left to
    review for a little ink (the stack indices `again`) is read again from `low` (its
    features at LOW_INK and LOW_FAINT, and those thresholds): a light stroke under the
    usual thresholds shows whole there. Only a sure mark is kept (checked, or slashed on an
    Executed box where the strokes' shape says so, as is a light straight slash too thin for
    F_MARK: _faint_slash; the model alone does not read a slash there, but a tick that is
    nearly one band needs it: LIGHT_ONE_BAND); a plain
    box whose ink there is specks only (toner on a photocopy) is empty; anything else
    stays a review (a stroke lost in the print's residual reads no clearer this way)."""
    for k in again:
        rid, m = st.ids[k], marks[st.ids[k]]
        f = _box_features(low, k, low["t_ink"], low["t_faint"])
        if not st.printed[k] and _specks(d[k], st.inside[k], f["t_faint"], dpi):
            # even at the sheet's own noise no piece of its ink is a stroke: specks (toner,
            # dust), empty as in read_marks (a light stroke shows whole here)
            marks[rid] = Mark(EMPTY, 0.6, EMPTY, "", m.features)
            continue
        line = _strokes(d, over, st, k, f, t_print) if st.executed[k] else None
        mk = classify(f, bool(st.executed[k]), line, cal)
        if (mk.state == REVIEW and mk.why.startswith("a little ink") and line is not None
                and st.printed[k] and f["faint"] >= THIN_STROKE):
            # a stroke in the print: its shape, through the middle; else the success model
            state = (_light_stroke_state(True, f, line, cal)[0] if f["centre"] >= F_CENTRE
                     else REVIEW)
            mk = (Mark(state, 0.6, state, "", f) if state != REVIEW
                  else _light_stroke_settled(mk, d, over, st, k, f))
        if (mk.state == SLASHED and _stroke_state(True, line, f.get("far", 0.0)) != SLASHED
                and not _faint_slash(f, line)):
            # the model's slash where the strokes' shape doubts it: stays a review (light
            # ink at this noise breaks into pieces the model misreads: a pencil tick at
            # P(tick) 0 on a fresh seed's photo, session 18)
            continue
        if mk.state == REVIEW and _faint_slash(f, line):
            mk = Mark(SLASHED, 0.6, SLASHED, "", f)
        if (mk.state == CHECKED and line is not None and line[0] >= LIGHT_ONE_BAND
                and _light_tick_p(d, over, st, k, f) < TICK_VETO):
            # one band and a stub, the model unsure of a tick: a light slash through the
            # printed "+" widens and sprouts a stub where it crosses it; stays a review
            continue
        if mk.state in (CHECKED, SLASHED):
            low_f = {"low_ink": round(f["ink"], 4), "low_faint": round(f["faint"], 4)}
            for model in ("success_p", "tick_p"):  # (what the models said at this noise)
                if model in f:
                    low_f[f"low_{model}"] = round(f[model], 4)
            marks[rid] = Mark(mk.state, 0.6, mk.state, QUIET_MARK_WHY, {**m.features, **low_f},
                              mk.doubt)


def _by_the_edge(marks: dict[str, Mark], d: np.ndarray, over: np.ndarray, st: Stack,
                 t_faint: np.ndarray, t_low: np.ndarray | None, t_print: float) -> None:
    """A box read as marked whose ink does not reach across it both ways (REACH_MIN; read
    at the thresholds it was read at) is a review for ink at its edge (EDGE_WHY): a stray
    reaching in from outside, or a neighbour's stroke overrunning, as much as a mark. In
    place; each mark's reach is kept in its features."""
    ks = np.array([k for k, rid in enumerate(st.ids) if marks[rid].state in (CHECKED, SLASHED)],
                  np.int64)
    t = np.array([t_low[k] if t_low is not None and marks[st.ids[k]].why == QUIET_MARK_WHY
                  else t_faint[k] for k in ks])
    for k, reach in zip(ks, ink_reaches(d, over, st, ks, t, t_print), strict=True):
        m = marks[st.ids[k]]
        m.features["reach"] = reach
        if reach < REACH_MIN:
            marks[st.ids[k]] = Mark(REVIEW, 0.4, EMPTY, EDGE_WHY, m.features, INK)


def _drawn_low(marks: dict[str, Mark], d: np.ndarray, over: np.ndarray, st: Stack,
               t_faint: np.ndarray, t_print: float, noise: float) -> None:
    """On a sheet as quiet as a scan, a box in review for ink at its edge (edge_ink) whose
    ink still spans it both ways (LOW_TICK_REACH) and that both tick-or-slash models call
    a tick all but surely (LOW_TICK_P) is a tick drawn low in its box: checked (in place).
    A stray reaching in from outside stays by its edge; the models alone answer the ink's
    shape, not whose it is (docs/scanner.md, the rules table)."""
    if noise >= SCAN_NOISE:
        return
    for k, rid in enumerate(st.ids):
        m = marks[rid]
        if not edge_ink(m) or "level" not in m.features:
            continue
        reach = ink_reach(d, over, st, k, float(t_faint[k]), t_print)
        if reach < LOW_TICK_REACH:
            continue
        seen = (m.features if "models_tick_p" in m.features
                else models_opinion(_box_ink(d, over, st, k, m.features)))
        if seen and min(seen["models_tick_p"], seen["models_success_p"]) >= LOW_TICK_P:
            marks[rid] = Mark(CHECKED, 0.6, CHECKED, DRAWN_LOW_WHY,
                              {**m.features, **seen, "reach": reach})


def _models_opinion(marks: dict[str, Mark], d: np.ndarray, over: np.ndarray, st: Stack,
                    noise: float) -> None:
    """Record on each Executed box left a review on a sheet as quiet as a scan what both
    tick-or-slash models make of its ink (features models_tick_p, models_success_p). They
    learned marks only, so their word is on its shape, taken where the rest of the page
    says the box holds a mark (scanner.consistency.shape_by_models). On a noisier photo a
    light tick can look like a slash to both (session 38: 233 phone-easy 33, P(tick)
    0.000, P(success) 0.003). In place."""
    if noise >= SCAN_NOISE:
        return
    for k, rid in enumerate(st.ids):
        m = marks[rid]
        if st.executed[k] and m.state == REVIEW and "level" in m.features:
            m.features.update(models_opinion(_box_ink(d, over, st, k, m.features)))


def _box_band(d: np.ndarray, over: np.ndarray, st: Stack, k: int, noise: float) -> float:
    """Box `k`'s darkest straight band (scanner.faintline.band_z) over its inside and its
    print, ink over the print taken as measure() takes it."""
    return band_z(np.where(st.near[k] | st.text[k], over[k], d[k]), st.inside[k] | st.text[k],
                  noise)


def _light_bands(again: list[int], marks: dict[str, Mark], low_ink: np.ndarray, d: np.ndarray,
                 over: np.ndarray, st: Stack, noise: float) -> None:
    """A plain checkbox with text printed in it that stays a review for a little ink once
    read again (the stack indices `again`) is a mark when a straight stroke shows there:
    its darkest straight band stands out from those of the sheet's empty printed
    checkboxes (LIGHT_BAND_SCORE), with LIGHT_BAND_INK of ink at the sheet's own noise
    (`low_ink`). A pencil tick in a box filled with a printed number is mostly hidden by
    the print, what is left too little for the pixel measures; the print's residue (a
    number printed a pixel off) is not straight. Read with doubt SETTLED, so it still
    counts as unclear for require_legible (in place)."""
    def plain(k: int) -> bool:
        return bool(st.printed[k]) and not st.executed[k]
    cand = [k for k in again if plain(k) and unclear_ink(marks[st.ids[k]])
            and low_ink[k] >= LIGHT_BAND_INK]
    if not cand:
        return
    looked = set(again)
    ref = [k for k, rid in enumerate(st.ids)
           if plain(k) and k not in looked and marks[rid].state == EMPTY]
    if len(ref) < LINE_BOXES:
        return

    scores = band_scores({st.ids[k]: _box_band(d, over, st, k, noise) for k in cand},
                         [_box_band(d, over, st, k, noise) for k in ref])
    for rid, score in scores.items():
        if score >= LIGHT_BAND_SCORE:
            m = marks[rid]
            marks[rid] = Mark(CHECKED, 0.6, CHECKED, LIGHT_BAND_WHY,
                              {**m.features, "band_score": round(score, 2)}, SETTLED)


def _light_stroke_settled(mk: Mark, d: np.ndarray, over: np.ndarray, st: Stack, k: int,
                          f: dict[str, float]) -> Mark:
    """A stroke found at a quiet sheet's own noise in a box with text printed in it whose
    shape the rules leave in doubt (or whose ink is mostly hidden by the print, so little
    of it crosses the box's middle): the success model reads it when it is all but sure,
    a tick or a cross at SUCCESS_SURE, a slash under SUCCESS_SETTLES (both SETTLED, so
    still unclear to require_legible); else `mk` stays. Session 32: on 44 seeds' default
    sets 19 such reviews read right, none wrong; no empty box read again on their scans
    and mild photos has a stroke at all."""
    if "success_p" not in f:
        p = success_probability(_box_ink(d, over, st, k, f))
        if p is None:
            return mk
        f["success_p"] = round(p, 4)
    if _success_slash(f):
        return Mark(CHECKED, 0.6, CHECKED, "", f, SETTLED)
    if _success_says_slash(f):
        return _settled_slash(f)
    return mk


def _light_tick_p(d: np.ndarray, over: np.ndarray, st: Stack, k: int, f: dict[str, float]
                  ) -> float:
    """The model's P(tick) for box `k` read again: as _strokes measured it, or now (it asks
    the model only where the rules doubt the strokes)."""
    if "tick_p" in f:
        return f["tick_p"]
    return tick_probability(_box_ink(d, over, st, k, f), False)


def _faint_lines(marks: dict[str, Mark], lines: dict[str, float], ends: dict[str, float],
                 specked: set[str]) -> None:
    """An Executed box read empty whose darkest straight band stands out from the
    sheet's other empty Executed boxes (scanner.faintline: a slash too faint for any of
    its pixels to clear the photo's noise), or without text printed in it from those
    without (faintline.plain_standing_out; not one `specked`, whose faint ink is toner
    specks, a photocopy's, that raise its band), or, with text printed in it, whose
    band's ends show in the paper beside the print and whose band stands out a little or
    that holds a trace of faint ink (F_EMPTY; faintline.ends_standing_out), goes to
    review, likely empty (in place)."""
    traced = frozenset(rid for rid in ends if marks[rid].features["faint"] >= F_EMPTY)
    plain = {rid: z for rid, z in lines.items() if rid not in ends}
    found = [(rid, "faint_line", sc) for rid, sc in standing_out(lines).items()]
    found += [(rid, "faint_plain", sc) for rid, sc in plain_standing_out(plain).items()
              if rid not in specked]
    found += [(rid, "faint_ends", sc)
              for rid, sc in ends_standing_out(lines, ends, traced).items()]
    for rid, key, score in found:
        m = marks[rid]
        if m.state == EMPTY:
            marks[rid] = Mark(REVIEW, 0.4, EMPTY, FAINT_LINE_WHY, {**m.features, key: score},
                              INK)


def _off_their_neighbours(sh: np.ndarray, st: Stack, marks: dict[str, Mark]
                          ) -> dict[int, tuple[np.ndarray, float]]:
    """The boxes read as marked whose shift lies more than DRAWN_PX from the median shift
    of the boxes within 25 mm (at least three): box index -> (that median, how far off)."""
    out: dict[int, tuple[np.ndarray, float]] = {}
    ks = [k for k, near in enumerate(st.near_boxes)
          if len(near) >= 3 and marks[st.ids[k]].state in (CHECKED, SLASHED, CANCELLED)]
    if not ks:
        return out
    med = np.round(np.stack([_group_median(sh[:, i].astype(np.float64), list(st.near_boxes))
                             for i in (0, 1)], axis=1)).astype(int)
    for k in ks:
        gap = float(np.abs(sh[k] - med[k]).max())
        if gap > DRAWN_PX:
            out[k] = (med[k], gap)
    return out


def _read_where_neighbours_put(drawn: dict[int, tuple[np.ndarray, float]],
                               marks: dict[str, Mark], big_f: np.ndarray, paper: np.ndarray,
                               slope: np.ndarray, pad: int, tpl: Template, st: Stack,
                               cal: Calibration, look: tuple[float, float],
                               t_k: tuple[np.ndarray, np.ndarray], t_print: float) -> None:
    """Each box read as marked off its neighbours' place (`drawn`, _off_their_neighbours:
    a thick outline or a neighbour's correction spilling over it can draw the outline
    match) is read again at that place, with its own paper and light; empty there, it goes
    to review, likely empty (in place). (Moving such boxes outright read 131 empty boxes as
    marked on twenty seeds' photos: under curl and near the page's edges a box's own
    place does differ that much, session 23.)"""
    P, Q = st.size
    ks = np.array(sorted(drawn))
    med = np.array([drawn[k][0] for k in ks])
    rows = np.clip((st.origin[ks, 1] + med[:, 1] + pad)[:, None] + np.arange(P)[None, :],
                   0, big_f.shape[0] - 1)
    cols = np.clip((st.origin[ks, 0] + med[:, 0] + pad)[:, None] + np.arange(Q)[None, :],
                   0, big_f.shape[1] - 1)
    obs = big_f[rows[:, :, None], cols[:, None, :]]
    d = np.zeros((len(st.ids), P, Q), np.float32)  # (measure takes the whole stack)
    d[ks] = stack_darkness(obs, paper[ks].astype(np.float32), slope[ks])
    over = _over_print(d, look[1] * expected_print(tpl, st, look[0]))
    feats = measure(d, st, t_k[0], t_k[1], over, t_print)
    for k in map(int, ks):
        f = _box_features(feats, k, t_k[0], t_k[1])
        executed = bool(st.executed[k])
        line = _strokes(d, over, st, k, f, t_print) if executed else None
        if classify(f, executed, line, cal).state == EMPTY:
            m = marks[st.ids[k]]
            marks[st.ids[k]] = Mark(REVIEW, 0.4, EMPTY, DRAWN_WHY,
                                    {**m.features, "off_neighbours_px": drawn[k][1]})


def _uncompared_faint_marks(marks: dict[str, Mark], why: str = FAINT_MARK_WHY,
                           printed: AbstractSet[str] = frozenset()) -> None:
    """On a noisy photo of a sheet with no clear mark (none inking 2 F_MARK of its box), a
    faint mark (`why`) has nothing to be measured against: a blank sheet's noise (blotches
    in a dim photo) as much as a mark. Review, likely empty (UNCOMPARED_WHY). Since
    session 32 so is a light mark read at a quiet sheet's own noise (QUIET_MARK_WHY) in a
    box without print (not in `printed`) on any such sheet: a fresh seed's blank photocopy
    (311 scan-600 7) read a 0.9 mm toner speck in a plain box as a mark. (Boxes with print
    are left: a fine pale pen's strokes across "+1" are read there, on bench_ticks' 1 px
    pages with nothing clear on them.)"""
    for rid, m in marks.items():
        if m.state in (CHECKED, SLASHED) and m.why == why and rid not in printed:
            marks[rid] = Mark(REVIEW, 0.4, EMPTY, UNCOMPARED_WHY, m.features, INK)


def _like_the_sheets_marks(marks: dict[str, Mark], faint: np.ndarray, ink: np.ndarray,
                           cal: Calibration, printed: set[str]) -> None:
    """A box with text printed in it and a little ink (too little to be sure of on its
    own: the print hides most of a stroke across it) is a mark when that ink is as dark as
    this sheet's own marks (LIKE_MARKS of their typical level) and the sheet's unmarked
    boxes are clean (at most QUIET_BOXES of the boxes without faint ink show a whisper of
    it): there, noise and blur put no faint ink in empty boxes. Plain boxes are left alone
    (a soft shadow or blur can darken one nearly as much), and an Executed box also needs
    its strokes' shape to tell a tick from a slash."""
    whisper = int(((faint >= WHISPER) & (faint < F_EMPTY)).sum())
    clean = int((faint < WHISPER).sum())
    if (int((ink >= 2 * F_MARK).sum()) < LIGHT_MIN_MARKS
            or whisper > QUIET_BOXES * max(whisper + clean, 1)):
        return
    for rid, m in marks.items():
        f = m.features
        if not (m.state == REVIEW and m.why.startswith("a little ink:") and rid in printed
                and f["level"] >= LIKE_MARKS * cal.ink_level and f["centre"] >= F_CENTRE):
            continue
        state = CHECKED
        if is_executed(rid):
            line = (f["line"], f["line2"]) if "line" in f else None
            state = _light_stroke_state(True, f, line, cal)[0] if line else REVIEW
        if state != REVIEW:
            marks[rid] = Mark(state, 0.6, state, LIKE_MARKS_WHY, f)


def _light_sheet_review(marks: dict[str, Mark], t_ink: np.ndarray, quiet: bool = False
                        ) -> float:
    """On a sheet whose marks (the boxes read as marked, at least LIGHT_MIN_MARKS of them)
    are barely darker than its ink threshold (light pencil, a dim or noisy photo), a mark
    can fall below the thresholds and read empty: an empty box with some ink on its inside
    (on a `quiet` sheet, some faint ink too: LIGHT_QUIET_FAINT) goes to review instead. (A
    sheet with few marks says nothing about how light they are: its faintly inked boxes
    are mostly noise.) Returns the sheet's contrast: its typical mark's level over its
    typical ink threshold (inf with too few marks)."""
    levels = [m.features["level"] for m in marks.values()
              if (m.state if m.state != REVIEW else m.likely) in (CHECKED, SLASHED)]
    if len(levels) < LIGHT_MIN_MARKS:
        return float("inf")
    contrast = _contrast(levels, t_ink)
    if contrast >= LIGHT_RATIO:
        return contrast
    for rid, m in marks.items():
        f = m.features
        if m.state == EMPTY and (f.get("fill", 0) >= LIGHT_FILL
                                 or f.get("level", 0) >= LIGHT_LEVEL
                                 or (quiet and f.get("faint", 0) >= LIGHT_QUIET_FAINT)):
            marks[rid] = Mark(REVIEW, 0.4, EMPTY, LIGHT_WHY, f, INK)
    return contrast


def _contrast(levels: Sequence[float], t_ink: Sequence[float] | np.ndarray) -> float:
    """A typical mark's level over the typical ink threshold."""
    return float(np.median(levels)) / max(float(np.median(t_ink)) if len(t_ink) else 0.0,
                                          1e-6)


def _field_calibration(cal: Calibration, darkness: dict[str, np.ndarray], tpl: Template
                       ) -> Calibration:
    """The sheet's calibration as the written fields see it. Their darkness is measured
    against the brightest tenth of the paper around them, which sits at or above the
    boxes' (noise-corrected) paper level: the thresholds keep their distance above a
    paper level of at least 0."""
    p = cal.paper
    dp = 0.0
    return Calibration(p, cal.noise, cal.t_ink + dp, cal.t_faint + dp, cal.ink_level,
                       cal.t_clear + dp if cal.t_clear else 0.0,
                       cal.t_near + dp if cal.t_near else 0.0)
