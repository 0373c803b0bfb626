"""The decision table: one box's measures to its state (empty, checked, slashed,
cancelled), or to a review with its likely state and why; an Executed box's stroke in
doubt is left to scanner.marks.shape. The table, with the evidence for every threshold,
is in docs/scanner.md.
"""

from __future__ import annotations

from scanner.marks.shape import (
    _arm_lost,
    _dark_slash,
    _far_slash,
    _light_stroke_state,
    _quiet_model_tick,
    _quiet_one_stroke,
    _quiet_slash,
    _quiet_tick,
    _settled_slash,
    _split_slash,
    _straight_slash,
    _success_leans_slash,
    _success_says_slash,
    _success_slash,
    _sure_model_slash,
    _sure_model_tick,
    _thick_doubt,
    _tick_like,
    _widens,
)
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
)
from scanner.marks.strokes import (
    EDGE_GAP,
    FAR_SLASH,
    FAR_TICK,
    SECOND_CROSS,
    SECOND_SLASH,
    SLASH_MAX_INK,
    _stroke_state,
)

EDGE_CENTRE = 0.03  # a mark (over F_MARK) with less in the middle than this: review.
# (2,800 bench sheets, 14 seeds: the two marks with ink over F_MARK and 0.03-0.04 in the
# middle were ticks drawn low in their box; the one neighbour's ink that entered a box
# left 0.018; session 23)
F_TRACE = 0.05  # faint ink on less than this, barely above the noise: a trace (empty) ...
TRACE_CENTRE = 0.15  # ... unless it covers this share of the box's middle: a review, likely
#   empty (TRACE_WHY). Session 28: a pencil cross over a skill's "+1" on a held-out seed
#   (239 phone 47) read empty so; on 25 seeds' 5,900 sheets the rule read 2,116 empty boxes
#   right and no mark wrong, 23 of them (all photos, nearly all over a printed promotion
#   number) with a trace this central
F_FILLED = 0.85  # a box inked edge to edge: coloured in, or cancelled
HALO_CANCEL = 0.5  # ...and this much of the rim around it inked (all round): filled over:
#                    cancelled
HALO_REVIEW = 0.3  # between the two: review (a box coloured in spills up to 0.25 mm past its
#                    edge: blurred, that inks up to about a third of the rim) ...
RIM_SIDES = 3  # on a sheet as quiet as a scan (SCAN_NOISE), a filled box whose rim is inked
#   over HALO_REVIEW on this many of its sides (of three or four seen): a correction, however
#   light its fill (pencil). Of the cached bench's 12,520 boxes coloured in on such sheets
#   none has it; of its 643 corrections 642 do (19 were reviews). The other one, a pencil
#   fill with a light loop close round it (rim inked 0.29 on 3 sides), read as coloured in:
#   under HALO_REVIEW such a rim goes to review (no box coloured in on those sheets has it
#   at any rim ink; a marker's fill spilling all round a box inks 0.29 too). Since session
#   42 so too a box covered lightly short of its edges (pencil, under PENCIL_FILL) with its
#   rim inked over PENCIL_HALO on this many sides: a review (367 scan-600 1's correction,
#   0.27 on three sides, read as coloured in; of the 2,312 such boxes on twenty fresh
#   seeds' scans one other has three sides, a dark fill whose rim measures 0.12); and on
#   a sheet where a light loop shows (_light_fill), one so covered with its rim inked over
#   HALO_REVIEW on this many sides (479 phone 42's pencil correction, covering 77 % of its
#   box, its loop 0.39 on all three sides seen, read as coloured in: a seed after the
#   twenty; on those twenty's harsh photos the four boxes coloured in with such a rim
#   were all on blurred photos)
HALO_FILL = 0.7  # a box inked this much has its rim measured too (halo_ink), and one
#   struck through or ringed on STRUCK_SIDES is a review as nearly filled ones are
#   (session 26: seed 157's light pencil correction filled to 81 % read as coloured in;
#   of 12,330 boxes coloured in or ticked at 75-85 % on twenty seeds' photos one goes to
#   review, none on the scans; no other reading changed). 0.75 until session 43: 421
#   phone 50's pencil correction covers 72 %, its loop inking 40 % of the rim on three
#   sides, struck through, and read as a tick. From 0.7, on 90 seeds' harsh photos two
#   pen ticks more go to review and one empty box fewer; a photo that had 24 boxes to
#   review has 25, and is refused (over UNCLEAR_SHARE)
FAINT_COVER = 0.85  # ... and so is one with faint ink over this much of it (a light pencil
#   correction filled to 68 %, faint ink on 86 %, its loop never looked at: 313 phone 14)
STRUCK_SIDES = 3  # a box filled nearly to its edges (short of F_FILLED's sides) and struck
#   through past its outline (two strokes or more) with ink round this many sides: review,
#   as a light one is (_light_fill), on any sheet (session 26, a fresh seed's pencil
#   correction on a noisy photo read as coloured in; on fifteen seeds' photos one box
#   coloured in goes to review, scans unchanged); so is one whose rim is inked as a
#   correction's (HALO_CANCEL) on this many sides (seed 157's light pencil correction on
#   a photo; no box coloured in on fifteen seeds' photos and scans has such a rim)
PENCIL_FILL, PENCIL_HALO = 0.5, 0.15  # on a sheet under QUIET_NOISE (since session 32, or
#   on any photo under BLURRED_PX: _light_fill), a box filled lightly
#   (darkness under PENCIL_FILL: pencil) is a correction as much as coloured in (review)
#   when its rim is inked on two sides or more: over PENCIL_HALO, or over HALO_REVIEW if
#   the fill stops short of a side (its `sides` under 0.8, so not "filled" above). A light
#   loop hides in a light fill's blur. Held-out seeds 61 and 73 (session 20): three pencil
#   corrections read silently as coloured in (a scan, a photo, a short-ticks photo), now
#   reviews; on the 2,502 cached sheets 3 boxes coloured in go to review, nothing else
#   changes (darker fills short of a side, all coloured in, would send 8 more). 0.25 until
#   session 21: seed 7 phone 80's loop inks 0.161 on two sides; on the 2,985 cached sheets
#   5 boxes coloured in go to review as well, their rims inked 0.154-0.196 on 2-3 sides)
SOLID_MEDIAN = 0.7  # a box read as cancelled whose inside's median darkness is under this
#   share of its ink's level is strokes over a dark ground, not a fill: a review (session
#   33: a cross in a shadow on a harsh photo, 167 phone 29, at 0.44; of 993 corrections on
#   14 seeds' harsh photos and 899 on 14 others' scans, clean renders and mild photos
#   none is under 0.88, and no other box read cancelled is under 0.7)
DARK_EMPTY = 2.3  # a box read empty (or a review leaning empty) whose inside's median
#   darkness is this many times its ink threshold: a review, likely checked (session 33: a
#   marker's tick over promotion box 60 on a blurred harsh photo, 283 phone 62, at 2.56,
#   the print model taking it for the print; the 380 empty boxes inked over HALO_FILL on 14
#   seeds' harsh photos, print blur all over them, measure 2.01 at most. Session 46: on
#   another CPU one more pixel of it is ink, 0.0206 of the box, and the rules' "a little
#   ink" review leaned empty: the dark box is a reason against that lean too)
SOLID_INK = 0.6  # a box over the threshold all over, but with ink (print taken away) on less
#   of it than this, and its rim inked: dim paper under a cross, not a fill (review; the
#   bench's corrections ink 0.65 and over, two crosses on a dim photo 0.49 and 0.51)
EDGE_EXTENT = 0.35  # one straight stroke reaching less than this far across its box (its
#   height or its width): ink along one edge, not a slash (a corner-to-corner slash ~0.8-1;
#   on the 2,985 cached sheets no box read as a slash measures under 0.5, the boxes under
#   0.2 are empty ones with a neighbour's ink on their edge; a held-out seed's correction
#   inked its neighbour's bottom edge, 0.25, which read as a slash)
SPLIT_SLASH_WHY = ("a fat stroke: a marker's slash, or a tick or cross its width merged "
                   "into one?")
FLAT_EDGE_WHY = ("one straight stroke along the box's edge: a neighbour's ink or a stray, or a "
                 "flat slash?")
QUIET_ARM = 0.06  # on a quiet sheet (QUIET_NOISE), a box inked over SLASH_MAX_INK with this
#   much of its ink on a second band is a tick (the bench's 102 such slashes put at most
#   2.3 % there, its ticks 9.4 % and more; on noisy photos ticks go down to 1 %), unless it
#   runs edge to edge (its ends under EDGE_GAP short of the box's) with nothing well off its
#   band (FAR_SLASH): a marker's slash, its blunt ends wider than its band (review)
SMEARED_FAINT, SMEARED_SHARE = 0.5, 0.32  # a box with faint ink over this much of it, under
#   this share of which is over the full threshold: filled lightly or smeared, so coloured
#   in, a correction, or a shadow (review, SMEARED_WHY). Session 32, a fresh seed's noisy
#   photo (293 phone 83): a pencil correction in a dark corner (faint 0.61, ink 0.17, not
#   "filled" at the ink threshold, so its rim never measured) read silently as checked. Of
#   the 12,626 boxes ticked, crossed or coloured in with faint ink on half or more of them,
#   their darkest quarter under 0.5, on 22 seeds' harsh photos, none has under 0.35 of that
#   ink over the full threshold (that correction: 0.28)
PALE_FILL = 0.3  # on a sheet as quiet as a scan, a box with faint ink over SMEARED_FAINT of it,
#   not covered (_covered), whose ink's level stays under this (pale pencil, a photocopy's
#   washed-out fill) has its rim measured at the faint threshold, not the ink one (its keys
#   PALE_RIM...): a pale correction's scribble round it is no darker than its fill, so at the
#   ink threshold neither shows. Inked over HALO_REVIEW on RIM_SIDES sides or more, it is a
#   correction. Session 49, thirty seeds' scans and clean renders (941-1127, 1,800 sheets):
#   of 90 such boxes 5 are corrections (two photocopied scans at 600 dpi, read as checked,
#   empty and in review before: silent errors on both), their rims 0.39-0.53 on 3-4 sides;
#   the 85 boxes coloured in or ticked reach 0.16
PALE_RIM = "pale_rim"  # (the features' keys: pale_rim, pale_rim_strokes, _sides, _seen)
PALE_CORRECTION_WHY = ("pale fill with its rim inked round it as pale: a correction (faint "
                       "ink read at the faint threshold)")
SMEARED_WHY = ("faint ink over most of the box, little of it dark: coloured in lightly, a "
               "correction, or a shadow?")
SUCCESS_SLASH_WHY = ("read as a slash, but it looks like a tick or a cross: a slash, or a "
                     "mark whose strokes the blur merged?")
FAR_SLASH_WHY = ("read as a tick by a little ink off one stroke that looks like a slash: a "
                 "tick, or a slash across the print or blurred?")
FAINT_HAZE = 0.3  # faint ink (no more than a little over the full threshold) on this much of
#                   a box is no stroke: a light shading, or a blurred photo's haze (review;
#                   the bench's faint marks cover at most 0.26)
FAINT_CORE = 0.02  # a faint mark read as marked has this much ink over the full threshold
#                  (pencil's darkest pixels do; a shadow's edge or a print misfit does not)
FAINT = 0.45  # a mark lighter than this share of the sheet's typical mark: review (the
#   bench's marks read right measure 0.43 and over, 2 of 73,000 under 0.45; the print's
#   haze on a blurred photo, a shadow or a blurred neighbour read as marks 0.22-0.43)
BLURRED_FAINT, PALE_INK = 0.6, 0.165  # on a BLURRED_PX photo, a mark outside an Executed
#   box lighter than this share with under PALE_INK of its box over the ink threshold:
#   review (the blurred outlines of a cluster of empty boxes, or a neighbour's stroke, read
#   as marks 0.46-0.56 there, none in an Executed box, all with ink under 0.153; the bench's
#   marks read right: 162 of 86,000 such, and 180 more in Executed boxes, left alone)
TRACE = 0.35  # a box with faint ink only (under F_EMPTY over the full threshold) whose
#   darkest quarter is under this share of the sheet's typical mark is empty (the bench's
#   light marks in such boxes measure 0.41 and over; under it, 106 reviews on the cached
#   sheets, all of empty boxes: print haze on blurred photos, shadows)
PALE_WHY = "far lighter than this sheet's marks: a mark, or a shadow or blur?"
LOOP_WHY = ("box filled, with a light loop around it: coloured in (checked) or filled and "
            "circled (cancelled)?")
HATCHED_WHY = ("ink over nearly all of the box, but not to every edge: coloured in (checked) "
               "or a very broad slash?")
EDGE_WHY = "ink only at the box's edge: a stray from outside?"
TRACE_WHY = "a trace of ink through the box's middle: a very light mark, or the photo's noise?"
FAINT_MARK_WHY = "faint mark"  # the reasons a mark is read from a little ink (under F_MARK)
DARK_GROUND_WHY = ("box dark all over, its ink in strokes: a mark over a shadow, or filled and "
                   "scribbled over (cancelled)?")
DARK_EMPTY_WHY = ("box dark all over, but no ink over its print: a mark hiding the printed "
                  "number, or the print's blur?")
NEAR_FILLED_WHY = ("box filled nearly to its edges, with ink around it: coloured in (checked) "
                   "or filled and scribbled over (cancelled)?")


def _conf(x: float, lo: float, hi: float) -> float:
    """0.5 at a boundary, 1.0 at `hi` past it (lo = the boundary)."""
    if hi == lo:
        return 1.0
    return min(1.0, max(0.0, 0.5 + 0.5 * float(x - lo) / (hi - lo)))  # (scalars: no numpy)


def pale_fill(f: dict[str, float], cal: Calibration) -> bool:
    """A box filled palely on a sheet as quiet as a scan (PALE_FILL): one whose rim is
    measured at the faint threshold."""
    return (cal.noise < SCAN_NOISE and f["faint"] >= SMEARED_FAINT and not _covered(f)
            and f["level"] < PALE_FILL)


def _covered(f: dict[str, float]) -> bool:
    """A box inked all but edge to edge, darkly (HALO_FILL) or lightly (FAINT_COVER): one
    whose rim is measured, for the loop or strokes of a correction."""
    return f["fill"] >= HALO_FILL or f["faint"] >= FAINT_COVER


def classify(f: dict[str, float], executed: bool, line: tuple[float, float] | None,
             cal: Calibration) -> Mark:
    """One box's state from its features (docs/scanner.md: the rules)."""
    mk = _classify(f, executed, line, cal)
    if mk.state == SLASHED and _success_slash(f):
        # however the rules read it (one band, a fat stroke with paper beside it, a faint
        # one), a slash the success model is all but sure is a tick or cross: a review
        return Mark(REVIEW, 0.45, SLASHED, SUCCESS_SLASH_WHY, f)
    if mk.state == CANCELLED and f.get("median", f["level"]) < SOLID_MEDIAN * f["level"]:
        # dark all over, but most of it far lighter than its ink: strokes over a dark
        # ground (a shadow), not a box filled solid, and the rim as dark as the ground
        return Mark(REVIEW, 0.45, CHECKED, DARK_GROUND_WHY, f)
    if EMPTY in (mk.state, mk.likely) and f.get("median", 0.0) >= DARK_EMPTY * f["t_ink"]:
        # read empty (or unclear, leaning empty), yet most of the box is dark: ink over the
        # printed number that the print model took away (a marker's tick hiding it), or
        # the print's blur
        return Mark(REVIEW, 0.4, CHECKED, DARK_EMPTY_WHY, f, INK)
    if mk.state == SLASHED and f.get("fill", 0.0) >= F_FILLED:
        # ink over nearly all of the box (short of a side, or it would read filled):
        # coloured in with gaps, or hatched, more than one stroke; a slash leaves paper in
        # two corners (none of the 15,856 cached slashes covers more than 0.69 of its box)
        return Mark(REVIEW, 0.45, CHECKED, HATCHED_WHY, f)
    return mk


def _classify(f: dict[str, float], executed: bool, line: tuple[float, float] | None,
              cal: Calibration) -> Mark:
    ink, faint, centre = f["ink"], f["faint"], f["centre"]
    if f["n"] == 0:
        return Mark(REVIEW, 0.0, EMPTY, "box outside the photo", f)
    if f.get(PALE_RIM, 0.0) >= HALO_REVIEW and f.get(PALE_RIM + "_sides", 0) >= RIM_SIDES:
        return Mark(CANCELLED, 0.6, CANCELLED, PALE_CORRECTION_WHY, f)
    # 1. empty: no ink at all (not even faint) beyond a speck
    if faint < F_EMPTY:
        return Mark(EMPTY, _conf(F_EMPTY - faint, 0, F_EMPTY), EMPTY, "", f)
    # 2. some ink: is it a mark?
    if ink < F_MARK:
        stroke = F_MARK * (1.0 if cal.noise < QUIET_NOISE else 1.8)
        if (faint >= stroke and centre >= F_CENTRE and ink >= FAINT_CORE and faint < FAINT_HAZE
                and f["level"] >= (f.get("t_faint", cal.t_faint) + f.get("t_ink", cal.t_ink)) / 2):
            # a clear faint stroke (pencil): checked, with the confidence it deserves
            state, likely = _light_stroke_state(executed, f, line, cal)
            settled = (state == REVIEW and _success_says_slash(f)  # its shape in doubt only
                       and _stroke_state(executed, line, f.get("far", 0.0)) != CHECKED
                       and not _arm_lost(f, cal))
            if settled:
                state = SLASHED
            if state == REVIEW:
                return Mark(REVIEW, 0.4, likely, "faint mark: tick, cross or slash?", f)
            if _pale(f, cal, executed):  # the print's blur as much as ink
                return Mark(REVIEW, 0.4, state, PALE_WHY, f, INK)
            return Mark(state, 0.6 if settled else 0.65, state, FAINT_MARK_WHY, f,
                        SETTLED if settled else "")
        if (f["level"] < (f.get("t_faint", cal.t_faint) + f.get("t_ink", cal.t_ink)) / 2
                and ink < F_EMPTY and faint < F_TRACE):
            # a trace barely above the paper's noise (a blur halo, a shadow's edge) is empty;
            # one through the box's middle is a light stroke as much (TRACE_CENTRE)
            if centre >= TRACE_CENTRE:
                return Mark(REVIEW, 0.4, EMPTY, TRACE_WHY, f, INK)
            return Mark(EMPTY, 0.6, EMPTY, "", f)
        if ink < F_EMPTY and f["level"] < TRACE * cal.ink_level:
            # faint ink only, far lighter than this sheet's marks: haze, a shadow, an erasure
            return Mark(EMPTY, 0.6, EMPTY, "", f)
        likely = (CHECKED if (ink >= F_MARK / 2 and faint >= F_MARK)
                  or (faint >= F_MARK * 1.8 and centre >= F_CENTRE) else EMPTY)
        return Mark(REVIEW, 0.35, likely, "a little ink: a light mark, an erasure or a "
                    "stray?", f, INK)
    if centre < EDGE_CENTRE:
        return Mark(REVIEW, 0.4, EMPTY, EDGE_WHY, f, INK)
    # 3. filled solid and scribbled over past the outline: a correction (cancelled);
    #    filled but kept inside the box: coloured in (checked)
    filled = f.get("fill", ink) >= F_FILLED and f.get("sides", 0) >= 0.8
    if filled:
        halo = f.get("halo", 0.0)
        struck = f.get("halo_strokes", 0) >= 2  # struck through past the outline
        seen, sides = f.get("halo_seen", 0), f.get("halo_sides", 0)
        if halo < HALO_REVIEW and not struck:
            if cal.noise < SCAN_NOISE and seen >= 3 and sides >= RIM_SIDES:
                # on a scan a box coloured in keeps its rim clean but for a side or two: a
                # rim inked lightly on three sides is a loop as much as a fill's spill
                return Mark(REVIEW, 0.45, CANCELLED, LOOP_WHY, f)
            if _light_fill(f, cal) and halo >= PENCIL_HALO and sides >= 2:
                return Mark(REVIEW, 0.45, CANCELLED, LOOP_WHY, f)
            return Mark(CHECKED, _conf(HALO_CANCEL - halo, HALO_CANCEL - HALO_REVIEW,
                                       HALO_CANCEL), CHECKED, "", f)
        # ink in the rim: told by its sides when the box is solidly inked (a blurred
        # photo's haze can fill a small box and its rim faintly, evenly)
        solid = ink >= F_FILLED
        if solid and seen >= 3 and sides <= 1:  # from one side: a neighbour's, passing by
            return Mark(CHECKED, 0.6, CHECKED, "", f)
        if halo >= HALO_CANCEL and ink >= SOLID_INK and (seen < 3 or sides == seen):
            return Mark(CANCELLED, _conf(halo, HALO_CANCEL, 2 * HALO_CANCEL), CANCELLED, "", f)
        if solid and seen >= 3 and sides == seen and halo >= HALO_REVIEW:
            # ink all round: a correction's loop (struck through with less rim ink than
            # that: a sloppy fill's spill as much as a scribble, review)
            return Mark(CANCELLED, 0.6, CANCELLED, "", f)
        if cal.noise < SCAN_NOISE and halo >= HALO_REVIEW and seen >= 3 and sides >= RIM_SIDES:
            # on a scan a box coloured in keeps its rim clean but for a side or two
            return Mark(CANCELLED, 0.6, CANCELLED, "", f)
        likely = (CANCELLED if halo >= (HALO_CANCEL + HALO_REVIEW) / 2 or struck
                  else CHECKED)
        return Mark(REVIEW, 0.45, likely, "box filled, with ink around it: coloured in "
                    "(checked) or filled and scribbled over (cancelled)?", f)
    halo, halo_sides = f.get("halo", 0.0), f.get("halo_sides", 0)
    if ((f.get("fill", 0.0) >= F_FILLED and halo >= HALO_REVIEW and halo_sides >= 2
         and _light_fill(f, cal))
            or (_covered(f) and halo >= HALO_REVIEW
                and halo_sides >= STRUCK_SIDES
                and (f.get("halo_strokes", 0) >= 2 or halo >= HALO_CANCEL))
            or (_covered(f) and _light_fill(f, cal) and halo_sides >= RIM_SIDES
                and halo >= (PENCIL_HALO if cal.noise < SCAN_NOISE else HALO_REVIEW))):
        # filled lightly, nearly to its edges (short of a side), with ink past the outline
        # on two sides or more: a light correction's loop as much as a fill's spill; on
        # any sheet, one inked over HALO_FILL struck through past its outline, or its rim
        # inked as a correction's is, on three sides or more; and one covered lightly
        # (PENCIL_FILL) with a loop on RIM_SIDES sides: a light one (PENCIL_HALO) on a
        # scan, one over HALO_REVIEW where a light fill's loop shows (_light_fill)
        return Mark(REVIEW, 0.45, CANCELLED, NEAR_FILLED_WHY, f)
    if f["faint"] >= SMEARED_FAINT and ink < SMEARED_SHARE * f["faint"]:
        # faint ink over most of the box, little of it over the full threshold: filled
        # lightly (coloured in, or a correction whose loop the light hides) or a shadow
        return Mark(REVIEW, 0.45, CHECKED, SMEARED_WHY, f)
    if f["level"] < f.get("t_ink", cal.t_ink):
        # ink whose darkest quarter stays under the ink threshold: noise, or a blurred
        # outline's haze spread over the box (however much of it), as much as a mark
        return Mark(REVIEW, 0.4, CHECKED, "a little ink just over the thresholds: a light "
                    "mark, or the photo's noise or blur?", f, INK)
    far = f.get("far", 0.0)
    state = _stroke_state(executed, line, far)
    if executed and state == SLASHED and f.get("extent", 1.0) < EDGE_EXTENT:
        return Mark(REVIEW, 0.4, EMPTY, FLAT_EDGE_WHY, f, INK)
    if _pale(f, cal, executed):  # a shadow, a blurred neighbour or print, as much as a mark
        return Mark(REVIEW, 0.4, CHECKED if state == REVIEW else state, PALE_WHY, f, INK)
    conf = _conf(ink, F_MARK, F_MARK * 2.5)
    if (state == REVIEW and line is not None and cal.noise < QUIET_NOISE
            and ink >= SLASH_MAX_INK and line[1] >= QUIET_ARM
            and (far >= FAR_SLASH or f.get("end_gap", 1.0) >= EDGE_GAP)):
        # on a quiet sheet a fat slash keeps its ink on its band: this much on a second
        # one is a marker tick's short arm (if it leaves the band, or the stroke stops short)
        return Mark(CHECKED, 0.6, CHECKED, "", f)
    if state == REVIEW and _widens(f, cal):
        return Mark(CHECKED, 0.6, CHECKED, "", f)
    if state == REVIEW and _quiet_model_tick(f, line, cal):
        return Mark(CHECKED, 0.6, CHECKED, "", f)
    if state == REVIEW and (_quiet_one_stroke(f, line, cal) or _dark_slash(f, line, cal)):
        return Mark(SLASHED, 0.6, SLASHED, "", f)
    if state == REVIEW and _success_says_slash(f):
        return _settled_slash(f)
    if state == REVIEW:
        l2 = line[1] if line else 0.0
        likely = (SLASHED if l2 < (SECOND_SLASH + SECOND_CROSS) / 2 and far < FAR_SLASH
                  else CHECKED)
        return Mark(REVIEW, 0.45, likely, "one stroke or two? (slash = failed, cross = "
                    "success)", f)
    if executed and state == SLASHED and _quiet_tick(f, line, cal) and not _thick_doubt(f):
        return Mark(CHECKED, 0.6, CHECKED, "", f)
    if executed and state == SLASHED and _tick_like(f, line, cal):
        if _quiet_slash(f, line, cal) or _dark_slash(f, line, cal) or _sure_model_slash(f, cal):
            return Mark(SLASHED, 0.6, SLASHED, "", f)
        if _sure_model_tick(f, cal) and not _thick_doubt(f) and not _success_leans_slash(f):
            return Mark(CHECKED, 0.6, CHECKED, "", f)
        if _success_says_slash(f) and not _arm_lost(f, cal):
            return _settled_slash(f)
        if _straight_slash(f, line, cal):
            return Mark(SLASHED, 0.6, SLASHED, "", f)
        return Mark(REVIEW, 0.45, SLASHED, "one stroke or two? (a slash, or a tick with a "
                    "short arm?)", f)
    if executed and line is not None:
        l2 = line[1]
        if state == SLASHED:
            conf = min(conf, _conf(SECOND_SLASH - l2, 0, SECOND_SLASH),
                       _conf(FAR_SLASH - far, 0, FAR_SLASH))
        elif l2 >= SECOND_CROSS:
            conf = min(conf, _conf(l2, SECOND_CROSS, SECOND_CROSS + 0.12))
        else:  # a short second stroke that leaves the first one's band: a tick
            conf = min(conf, _conf(far, FAR_TICK, FAR_TICK + 0.06))
    if executed and state == CHECKED and _split_slash(f):
        return Mark(REVIEW, 0.45, SLASHED, SPLIT_SLASH_WHY, f)
    if executed and state == CHECKED and _far_slash(f):
        return Mark(REVIEW, 0.45, SLASHED, FAR_SLASH_WHY, f)
    return Mark(state, conf, state, "", f)


def _light_fill(f: dict[str, float], cal: Calibration) -> bool:
    """A box filled lightly (PENCIL_FILL) on a quiet sheet or, since session 32, on any
    photo not blurred (BLURRED_PX): a light loop round it hides in the fill's spill, so
    rim ink on two sides makes it a correction as much as a box coloured in (fresh seeds'
    noisy photos: pencil corrections, loops inking 0.18-0.34 of the rim on two sides, read
    as coloured in). On a blurred photo the fill's own blur inks its rim."""
    return f["level"] < PENCIL_FILL and (cal.noise < QUIET_NOISE or cal.blur < BLURRED_PX)


def _pale(f: dict[str, float], cal: Calibration, executed: bool = False) -> bool:
    """A mark far lighter than the sheet's own (under FAINT of their typical level; on a
    blurred photo, a small mark under BLURRED_FAINT outside an Executed box, whose marks
    cross its printed "+1" and measure lighter)."""
    share = (BLURRED_FAINT if cal.blur >= BLURRED_PX and f["ink"] < PALE_INK
             and not executed else FAINT)
    return bool(cal.ink_level) and f["level"] < share * cal.ink_level
