"""Read the marks: find each box on the rectified photo, measure the ink inside it and
classify it, with thresholds calibrated on the sheet itself.

Per sheet (see docs/scanner.md for the rules and why):

1. Register: printed structure of the blank sheet (anchor tiles with corners and lines
   in both directions) is matched on the photo at 50 dpi within +-ANCHOR_MM; a smooth
   field (scanner.rectify.fit_field) through those displacements absorbs what the
   homography cannot (page curl, lens distortion). Each region is then matched on its
   printed outline within +-2 px of where the field puts it; a region whose match is
   weak, or far from the field, keeps the field's position.
2. Gather every checkbox and bubble into one stack of patches (numpy, no per-box loop)
   and the blank sheet's masks with them: the inside without the outline and printed
   text, the text, the centre, the paper ring around the box.
3. Paper level per box: the brightest tenth of the ring, scaled by the ratio of inside
   to ring brightness that this sheet shows for boxes on the same printed tone (a tinted
   row photographed under a colour cast is not the tint the template says). Darkness
   d = 1 - gray / paper, 3x3 smoothed.
4. Calibrate per sheet: the paper noise and level from the boxes' insides set the ink
   and faint-ink thresholds; the blur halo of printed text raises the faint threshold
   near it.
5. Measure (fractions of the inside, so they hold at any resolution) and classify:
   empty / checked / slashed / cancelled, or review with the most likely value when the
   evidence sits between two of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

import cv2
import numpy as np

from scanner.faintline import (
    LINE_BOXES,
    band_scores,
    band_z,
    ends_standing_out,
    ends_z,
    standing_out,
)
from scanner.rectify import Field, fit_field
from scanner.template import RegionGeom, Template
from scanner.tickslash import box_ink, success_probability, tick_probability
from starsheets.errors import InputFileError

CHECKED, SLASHED, EMPTY, CANCELLED, REVIEW = "checked", "slashed", "empty", "cancelled", "review"
INK = "ink"  # a review's doubt: is there a mark at all (not: which mark)
SETTLED = "settled"  # a read mark's: the rules' shape measures left it in doubt and the
#   success model settled it (_success_says_slash); still unclear to require_legible

ANCHOR_DPI = 50.0  # registration runs at this resolution
ANCHOR_MM = 5.0  # anchors are searched +-5 mm around where the homography puts them
ANCHOR_TILE_MM = 10.0  # an anchor tile's side
ANCHOR_CELL_MM = 14.0  # at most one anchor per cell of this size
FIELD_STEP_MM = 20.0  # the residual field's grid (from the anchors)
COARSE_SMOOTH = 0.5  # its stiffness (weights are 0..1 per anchor)
FIRST_PX = 5  # each region is then matched within +-5 px of the field's position...
FINE_STEP_MM = 12.0  # ... a finer field fitted through the regions found ...
FINE_SMOOTH = 0.5
FINE_PX = 2  # ... and each region matched again within +-2 px of that
OUTLINE_TRY = 0.5  # a region matching worse than this at first (ink over it) is matched
# again on its outline and surroundings alone: a block of inked boxes is then found, not
# guessed from the fine field's extrapolation (measured: 5 px off in a block of marker ticks
# and fills on bench photos) ...
OUTLINE_OK = 0.65  # ... taken where it matches this well (an empty box 7 px off its place
# matches 0.55-0.61 along its sides)
# box thresholds: fractions of a box's inside
F_EMPTY = 0.02  # less ink than this: empty (a speck, noise)
F_MARK = 0.055  # more ink than this: a mark (a single thin stroke across covers ~0.1)
F_CENTRE = 0.04  # a mark crosses the middle of the box; ink only at the edge is stray
EDGE_CENTRE = 0.03  # ... a mark (over F_MARK) with less in the middle than this: review.
# (2,800 bench sheets, 14 seeds: the two marks with ink over F_MARK and 0.03-0.04 in the
# middle were ticks drawn low in their box; the one neighbour's ink that entered a box
# left 0.018; session 23)
SPECK_MM = 0.7  # ink in pieces no longer than this (and little of it): specks, empty
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
SIDE_SEEN, SIDE_INKED = 0.3, 0.4  # ... unless the rim, seen on three sides or more (each along
#   SIDE_SEEN of the box's edge), is inked along SIDE_INKED of each side's length on every
#   side (a correction's loop: cancelled) or on one side at most (a neighbour's mark or a
#   stroke passing by: coloured in). The bench's corrections ink 2 sides or more at 0.61 and
#   over (all their sides seen over HALO_CANCEL); boxes coloured in with such ink nearby,
#   one side, or 2-3 of 4 (review) (docs/scanner.md)
RIM_SIDES = 3  # on a sheet as quiet as a scan (SCAN_NOISE), a filled box whose rim is inked
#   over HALO_REVIEW on this many of its sides (of three or four seen): a correction, however
#   light its fill (pencil). Of the cached bench's 12,520 boxes coloured in on such sheets
#   none has it; of its 643 corrections 642 do (19 were reviews). The other one, a pencil
#   fill with a light loop close round it (rim inked 0.29 on 3 sides), read as coloured in:
#   under HALO_REVIEW such a rim goes to review (no box coloured in on those sheets has it
#   at any rim ink; a marker's fill spilling all round a box inks 0.29 too)
HALO_FILL = 0.75  # a box inked this much has its rim measured too (halo_ink), and one
#   struck through or ringed on STRUCK_SIDES is a review as nearly filled ones are
#   (session 26: seed 157's light pencil correction filled to 81 % read as coloured in;
#   of 12,330 boxes coloured in or ticked at 75-85 % on twenty seeds' photos one goes to
#   review, none on the scans; no other reading changed)
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
PAPER_FLOOR = 0.85  # no box's paper below this of its neighbours' median (a correction's
FAR_PAPER_MM = (3.0, 6.0)  # loop darkens its ring), nor, where that lifts it, of the paper
#   this far out from its outline (_paper_floor: session 14's and a held-out seed's boxes on
#   the dim side of a steep fall of the light were lifted to their neighbours' bright paper,
#   their whole inside read as ink and a slash and a cross as corrections. Session 20: on the
#   2,502 cached sheets those two read right, 41 reviews on phone photos read right, no box
#   read right before goes wrong on a sheet the bench reads)
SOLID_MEDIAN = 0.7  # a box read as cancelled whose inside's median darkness is under this
#   share of its ink's level is strokes over a dark ground, not a fill: a review (session
#   33: a cross in a shadow on a harsh photo, 167 phone 29, at 0.44; of 993 corrections on
#   14 seeds' harsh photos and 899 on 14 others' scans, clean renders and mild photos
#   none is under 0.88, and no other box read cancelled is under 0.7)
DARK_EMPTY = 2.3  # a box read empty whose inside's median darkness is this many times its
#   ink threshold: a review (session 33: a marker's tick over promotion box 60 on a blurred
#   harsh photo, 283 phone 62, at 2.56, the print model taking it for the print; the 380
#   empty boxes inked over HALO_FILL on 14 seeds' harsh photos, print blur all over them,
#   measure 2.01 at most)
SOLID_INK = 0.6  # a box over the threshold all over, but with ink (print taken away) on less
#   of it than this, and its rim inked: dim paper under a cross, not a fill (review; the
#   bench's corrections ink 0.65 and over, two crosses on a dim photo 0.49 and 0.51)
STRUCK_MM = 0.6  # strokes through the rim reaching this far out: struck through (review)
STRUCK_SPAN_MM = 0.25  # ... across this much of the rim's depth (not a speck)
EDGE_EXTENT = 0.35  # one straight stroke reaching less than this far across its box (its
#   height or its width): ink along one edge, not a slash (a corner-to-corner slash ~0.8-1;
#   on the 2,985 cached sheets no box read as a slash measures under 0.5, the boxes under
#   0.2 are empty ones with a neighbour's ink on their edge; a held-out seed's correction
#   inked its neighbour's bottom edge, 0.25, which read as a slash)
SPLIT_SLASH_WHY = ("a fat stroke: a marker's slash, or a tick or cross its width merged "
                   "into one?")
FLAT_EDGE_WHY = ("one straight stroke along the box's edge: a neighbour's ink or a stray, or a "
                 "flat slash?")
# slash or tick/cross: the share of the ink on a second straight band once the best band
# (the main stroke) is taken away: a tick adds its short arm, a cross its second bar
SECOND_SLASH = 0.05  # at most this on a second stroke: a single stroke (slash; measured
#                     on the synthetic sets: slashes <= 0.035, ticks and crosses >= 0.02)
SECOND_CROSS = 0.18  # at least this: two strokes (tick, cross)
FIRST_SLASH = 0.85  # and a slash has most of its ink on its one band
# ... and how far the rest strays: the share of the ink more than FAR_GAP px beyond the
# main band's edges (line_fraction's far). A slash's wobble and blur hug its band (measured <= 0.018);
# a tick's short arm leaves it at an angle (>= 0.03 on 7 in 10 of the ticks whose short
# arm is too short for SECOND_CROSS)
FAR_GAP = 3.0
FAR_SLASH = 0.025  # a single stroke is a slash only with less than this off its band
FAR_TICK = 0.03  # a second stroke (over SECOND_SLASH) with this much off the band: a tick
QUIET_ARM = 0.06  # on a quiet sheet (QUIET_NOISE), a box inked over SLASH_MAX_INK with this
#   much of its ink on a second band is a tick (the bench's 102 such slashes put at most
#   2.3 % there, its ticks 9.4 % and more; on noisy photos ticks go down to 1 %), unless it
#   runs edge to edge (its ends under EDGE_GAP short of the box's) with nothing well off its
#   band (FAR_SLASH): a marker's slash, its blunt ends wider than its band (review)
EDGE_GAP = 0.03  # (the bench's fat ticks in that zone stop 0.043 and more short of an edge)
SLASH_MAX_INK = 0.45  # a box more inked than this is a slash only if paper shows both sides
THICK_ONE = 0.99  # a thick mark with little paper beside it: one stroke (a slash) when this
#                  much of its ink lies on one straight band (and some paper shows both sides)
THICK_SLASH = 0.98  # a box inked over SLASH_MAX_INK is a sure slash only with this much of
#                    its ink on one band (95 % of the bench's thick slashes have 0.98)
FAT_FILL = 0.7  # ... and one inked over this (a marker's tick, blurred, merges into one fat
#                stroke: 0.985 on its band) only with THICK_ONE (the bench's slashes: <= 0.61)
END_GAP, ALONE = 0.12, 0.01  # a faint single stroke on a quiet sheet (no more than ALONE
#   of its ink on a second band) stopping less short than END_GAP of either edge of its box
#   (as a share of the box's length along it) runs across the box: a slash (18 of the
#   bench's 22 such slashes; the one light tick whose short arm was lost in the print: 0.163)
BENT_LINE, BENT_SPAN = 0.99, 0.89  # a single stroke with less of its ink on its band than
#                                   this that crosses less of its box than this: review
THICK_TWO = 0.93  # ... two (a tick, a cross) when no more than this does
BLIND_PRINT, THROUGH_PX = 0.5, 5  # print this dark hides a mark over it; gaps it cuts in
#   a fat mark's stroke are closed over this many px (_through_print; session 19:
#   bench_ticks --pens 6,8,10,12, seeds 0 and 1, slashes read as ticks 54 and 65 of 864 ->
#   7 and 8, no tick changed; the cached sheets 7 reviews read right, 2 more; 7 px
#   closed a stroke onto glyph pixels beside it too: 4 more silent on marker pages)
SPLIT_SECOND, SPLIT_SLASH_P = 0.09, 0.01  # a fat mark the paper-split test alone calls
#   two strokes (a tick, a cross), whose second band holds under SPLIT_SECOND of its ink
#   (half a cross's SECOND_CROSS) and that both tick-or-slash models call a slash (under
#   SPLIT_SLASH_P): review, likely slashed (_split_slash). Session 29: seed 191 phone 53's
#   marker slash, a third of its box wide, left little paper beside its band, its edges
#   put 6.9 % of its ink on a second band and it read silently as a tick (the models: 0.0005
#   and 0.0). Of the 1,421 fat marks the split test called two strokes on 35 seeds' harsh
#   photos, 80 ticks and crosses have both models under 0.01 (crosses are not what they
#   learned); 3 of those measure 0.071-0.090 on their second band, and one of them goes
#   to review (223 phone 37; a hatched fill reads as coloured in first, one is at 0.090)
SUCCESS_VETO = 0.04  # a stroke the rules read as a tick by a little ink off its band (a
#   second band under SECOND_CROSS, FAR_TICK off the first) that scanner.tickslash's
#   success model (crosses learned as successes, ticks drawn loosely) calls a success with
#   under this: review, likely a slash (_far_slash). Session 30, 38 seeds' default sets:
#   of the 5,859 ticks and crosses read that way, one measures under 0.04 (0.013, 21
#   phone 37), the next 0.058; of the 12 slashes read that way, four measure 0.0001-0.024
#   (three silent errors: 241 phone 25, 263 phone 2, 257 scan-150 0), the rest are
#   blurred or bent strokes the model calls ticks too (0.12-1.0). The two tick-or-slash
#   models cannot veto there: they never learned a cross, and call fat ones slashes. A
#   first success model, trained on ticks as tidy as theirs, called the bench's low ticks
#   (vertex on the box's bottom edge) and shifted crosses slashes: 17 under 0.02
SUCCESS_SURE = 0.998  # ... and the other way, a stroke the rules read as a slash (by any
#   rule, classify) that it calls a success with this much: review (likely slashed;
#   _success_slash). Session 30, ten seeds' harsh and mild photos: of the 6,697
#   slashes read right, one measures 0.999 or more (two 0.995); a fresh seed's blurred
#   cross read silently as a slash 0.9995 (271 phone 96, its strokes merged into one blot).
#   Session 31 (0.999 to 0.998, and faint marks too): two short-armed ticks read silently
#   as slashes on the short-ticks sets, 0.9987 (127 short-ticks 33) and a faint one 0.9999
#   (11 short-ticks-scan 36); of the 47,106 slashes of 41 seeds one read right measures
#   0.998 or more (a faint one, 0.9992: 61 phone 29), the next 0.9977
SUCCESS_SETTLES = 0.005  # a stroke the rules cannot call one stroke or two (a tick-like
#   slash, a second band between SECOND_SLASH and SECOND_CROSS, a faint mark's shape) that
#   the success model calls a success with under this: a slash (_success_says_slash).
#   Session 31, 41 seeds' default and short-ticks sets: of the 215,159 ticks and crosses
#   (any reading) two measure under 0.005 (0.0016, 0.0027: reviews for ink off a band and
#   for a little ink), none in those three reviews, where the lowest are 0.0099 (a
#   blurred cross) and 0.018 (a tick with a blob). Of the 914 slashes sent to those
#   reviews 429 measure under it (28 of them off the harsh photos)
SUCCESS_LEANS = 0.5  # a single stroke the thin-pen model is all but sure is a tick
#   (_sure_model_tick) is read as one only if the success model does not lean to a slash
#   (under this). Session 32, a fresh seed's clean render (313 clean 10): a slash across
#   "+1" steep enough to look like a tick's long arm read silently as a tick, the thin-pen
#   and marker models at 1.0 and 0.97, the success model 0.49. Of the 2,209 ticks on 41
#   seeds' quiet sheets read as one band with the thin-pen model at 0.999 or more, none
#   measures under 0.5 (the lowest 0.53, 0.75, 0.86)
SETTLED_WHY = "one stroke or two? settled by the success model: a slash"
SMEARED_FAINT, SMEARED_SHARE = 0.5, 0.32  # a box with faint ink over this much of it, under
#   this share of which is over the full threshold: filled lightly or smeared, so coloured
#   in, a correction, or a shadow (review, SMEARED_WHY). Session 32, a fresh seed's noisy
#   photo (293 phone 83): a pencil correction in a dark corner (faint 0.61, ink 0.17, not
#   "filled" at the ink threshold, so its rim never measured) read silently as checked. Of
#   the 12,626 boxes ticked, crossed or coloured in with faint ink on half or more of them,
#   their darkest quarter under 0.5, on 22 seeds' harsh photos, none has under 0.35 of that
#   ink over the full threshold (that correction: 0.28)
SMEARED_WHY = ("faint ink over most of the box, little of it dark: coloured in lightly, a "
               "correction, or a shadow?")
SUCCESS_SLASH_WHY = ("read as a slash, but it looks like a tick or a cross: a slash, or a "
                     "mark whose strokes the blur merged?")
FAR_SLASH_WHY = ("read as a tick by a little ink off one stroke that looks like a slash: a "
                 "tick, or a slash across the print or blurred?")
SPLIT_PAPER = 0.12  # a thick mark leaving less paper than this on its band's thinner side
#   (paper_both_sides) is a stroke, a pair or a box coloured in as THICK_ONE / THICK_TWO say
TICK_VETO = 0.9  # a slash by the rules that scanner.tickslash's model calls a tick with
#   this probability: review (bench_ticks: 2-4 px pens' ticks read as slashes 114 -> 7 of
#   1620; the cached bench sheets: 15 slashes of ~3000 sent to review, nothing else changed.
#   0.95 until session 24: at 0.9 a pale pencil tick on a short-ticks scan (0.91) goes to
#   review, with 5 of the ~20,000 slashes of the cached sheets of fourteen seeds; on 160
#   fresh training-style pages 5 pen ticks read as slashes and on 80 marker pages 7 go to
#   review, no slash; bench_ticks unchanged)
SLASH_VETO = 0.02  # ... and a stroke the rules read as a tick only because it widens at one
#   point (_widens) that the model calls a tick with less than this probability: review (a
#   blot or a hook on a slash widens it too. Cached sheets, seeds 0/7/11/21/22/31: 5 slashes
#   read silently as ticks on photos go to review, and 17 ticks read right. On scans since
#   session 18: a fresh seed's marker slash widened 1.43x on a scan, read as a tick; on the
#   cached sheets one faint tick read right goes to review there. 0.01 until session 21:
#   a faint slash widened 1.46x at 0.013 on a blurred photo; on the 2,985 cached sheets no
#   tick read by its widening lies under 0.02, and bench_ticks and the marker pages unchanged)
TICK_SOME = 0.25  # ... or with this probability, on a stroke widening BULGE_TICK at one point
#   (the bench's short-ticks set, seed 0: the 7 ticks left read as slashes had 0.26-0.86 and
#   1.44-2.38; of the ~2900 slashes read on the cached sheets 9 have both)
TICK_TRACE, BULGE_VERTEX = 0.02, 2.0  # ... or with this, on one widening to twice its width
#   (a pale tick whose short arm hides in the printed "+1": only the vertex's blot shows.
#   Seed 53's short-ticks-scan 5, read as a slash; of the cached sheets' slashes widening
#   that much none has it: they score 0.0. bench_ticks and the marker pages: no change)
PEN_FILL, PEN_BULGE = 0.35, 1.25  # a single stroke inking this much of its box (a 0.4-0.5 mm
#   pen in a 3.5 mm box) that widens this much at one point may be a tick whose short arm
#   (up to a third of the box) merged into its long one: review (a hand sweep: 40 of 720 such
#   ticks read as sure slashes, widening 1.25-1.65; the bench's slashes that thick: 95 % under 1.22)
QUIET_TICK_P, QUIET_TICK_LINE, QUIET_TICK_BULGE = 0.99, 0.99, 1.2  # on a quiet sheet, a
#   single stroke that scanner.tickslash's model calls a tick with this probability, with ink
#   off its straight band (less than this share on it) and widening this much at one point
#   (its vertex) is a tick: three signs that agree (single strokes on the cached bench's quiet
#   sheets, seeds 0/7/11 with the short-ticks sets: 284 of 427 ticks so read, none of 2612
#   slashes; bench_ticks' noise-free pages: 913 of 1484 and none of 1619; the slashes the
#   model calls ticks keep every ink pixel on their band. Held out, seeds 21/22: 186 reviews
#   read right, nothing read wrong)
QUIET_TICK_MID = 0.99  # ... and ink the rules cannot call one stroke or two (a second band of
#   5-18 %) that the model calls a tick with this probability is one (cached bench, seeds
#   0/7/11/21/22/31: 68 ticks sent to review read so; the 6 slashes there measure under 0.32;
#   bench_ticks: 24 ticks)
QUIET_SLASH_P = 0.05  # on a sheet as quiet as a scan (SCAN_NOISE), a single stroke that a
#   tick could look like by its shape (_tick_like) is a slash when the model calls it one (a
#   tick with under this probability) and it does not widen BULGE_TICK at one point (the
#   cached bench, seeds 0/7/11/21/22: 33 slashes sent to review read so, no tick changed;
#   bench_ticks: 32 slashes, no tick. On a sharpened, blurred phone photo (noise 0.008) the
#   model called a light tick a slash (0.002): there the shape's doubt stays a review).
#   0.01 until session 17; the model retrained then (seeing the print's zone) puts 98 % of
#   its held-out slashes under 0.05 and no tick of the cached quiet sheets in 0.01-0.2: 6
#   reviews fewer there, nothing else changed, and bench_ticks unchanged
PRINT_SLASH_P = 0.01  # on a sheet as quiet as a scan, a stroke the rules read as one (all
#   but FAR_SLASH of its ink on its band) that the model calls a slash with under this
#   probability is one however much it widens (_sure_model_slash): a light pencil slash
#   across the printed "+2" widens where it crosses the digit's strokes, not at a vertex
#   (session 29: 7 of the 11 clean renders left to review on 35 seeds were such slashes,
#   widening 2.4-3.9 times; on those seeds' quiet sheets no tick measures under it with its
#   ink on one band, nor on bench_ticks' pages, pens and markers, seeds 0-2, where every
#   such tick measures 0.3 or more. On a blurred phone photo the model is that sure of a
#   tick: 35 there, none on a sheet under SCAN_NOISE. Light strokes only (under DARK_LEVEL,
#   inking under SLASH_MAX_INK): session 24's marker slash widening 1.6x stays a review)
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
SURE_TICK_P = 0.999  # ... and the other way, on a quiet sheet (QUIET_NOISE), one the model
#   calls a tick at this or more is a tick (_sure_model_tick; session 17, the retrained
#   model): of its 3,089 held-out slashes none reaches 0.99, nor any slash sent to review
#   on the cached quiet sheets. On the cached sheets 144 short-armed ticks left to review
#   read right (nearly all on the short-ticks sets), nothing else changed; bench_ticks
#   seeds 0-2: 131-162 stub ticks a seed, no slash; 300 fresh training-style pages: 925
#   reviews fewer, the same silent errors (at 0.99 on scans alone: 4 slashes more read as
#   ticks there)
FAT_SPAN = 0.95  # a stroke crossing this much of its box runs corner to corner
#   (_corner_to_corner)
DARK_LEVEL, DARK_SPAN = 0.4, 0.8  # on a quiet sheet (QUIET_NOISE), a pen's or a marker's
#   stroke (its darkness over DARK_LEVEL: no pencil) that crosses this much of its box with
#   nothing off its band (FAR_SLASH) is a slash, however much of its ink a second band holds
#   (a thick stroke's edges) or however it bends, when the model leans to a slash and the
#   stroke keeps its width (DARK_TICK_P, DARK_BULGE), or when the model is sure of a slash
#   and the stroke widens less than a tick's vertex does (DARK_SURE_P, DARK_WIDE): a tick's
#   short arm leaves the band or widens its vertex, and a pen's dark tick the model calls a
#   tick. Either model may say so: a thin marker's stroke (inking under SLASH_MAX_INK) is
#   asked of the pens' model first, which calls two such slashes on scans ticks (0.71,
#   0.78) where the fat marks' model calls them slashes (0.05, 0.08). Session 24, the
#   cached sheets of the fourteen seeds with their short-ticks sets: 13 slashes sent to
#   review on scans read so (pens and markers), and 3 on phone photos as quiet as a scan;
#   no tick the models were asked of has it, on those scans or on any of the 2,520 photos
#   (there even ignoring the photo's noise, where 115 slashes left to review would read
#   so). At 0.2 with any widening under 1.6, a short-armed tick over "+2" on a quiet phone
#   photo (the pens' model 0.14, widening 1.36) read as a slash: the one such tick. It
#   replaces session 19's _fat_slash (a marker's stroke corner to corner, widening under
#   1.1, the model under 0.1), which it holds. Held to scans (SCAN_NOISE) at first; on
#   every quiet photo (QUIET_NOISE), the fourteen seeds and a fresh one (127): 47 reviews
#   fewer on the default sets and 13 on the short-ticks sets, no box read wrong
DARK_TICK_P, DARK_BULGE = 0.2, 1.25
DARK_SURE_P, DARK_WIDE = 0.01, 1.6
QUIET_BENT, QUIET_SOME = 0.98, 0.1  # ... and one with less of its ink on its band than this
#   that the model finds somewhat like a tick (this probability) or that widens BULGE_TICK:
#   review (4 ticks read as slashes on those scans; 1 and 7 of those slashes to review)
BULGE_INK, BULGE_TICK = 0.35, 1.4  # a mark inking this much of its box whose ink widens to
#                                   this many times its typical width: a thick tick
SHAPE_CORE = 0.5  # unsure of the strokes at the ink's edge: look again at this share of
#                   the ink's level (its cores: a blur halo no longer fills a tick's notch)
MIN_MATCH = 0.3  # a box whose outline matches the blank sheet worse than this: review
OVER_PRINT = 0.22  # ink over printed text: this much darker than the print
PRINT_CORE = 0.3  # print this dark on the photo is its solid core: ink over it is measured
#                   by the light the print lets through (below: the print's blurred edge)
OVER_FLOOR = 0.25  # ... and the print never taken to let through less (noise amplified)
WASHED_GAIN = 0.55  # print reading lighter than this share of its darkness: a photo too
#                    washed out or blurred to trust any inked box (sheets measure 0.65-3):
#                    refused (require_legible)
# a sheet whose typical mark (median level of the boxes with faint ink, at least 20 of
# them) is under 1.5x its ink threshold is "light": its empty boxes with some ink inside
# (fill or level) go to review (docs/scanner.md)
LIGHT_MIN_MARKS, LIGHT_RATIO, LIGHT_FILL, LIGHT_LEVEL = 20, 1.5, 0.04, 0.1
FAINT_SHEET = 1.2  # ... and one whose typical mark is under 1.2x that threshold is refused: on
#                    such photos some marks do not show at all (require_legible) ...
FAINT_MIN_SURE, FAINT_SURE = 10, 1.3  # ... when at least this many boxes read as marked
#   for sure, and they are faint too (under 1.3x): on a blurred, noisy photo the print's
#   haze in many small boxes reads as light "marks" to review, and outnumbers dark ones
FAINT_TAIL = 0.1  # ... and a photo (σ >= QUIET_NOISE) on which more than this share of its
#   sure marks (at least FAINT_MIN_SURE) lie under their ink threshold (read as faint): so
#   light a pencil's marks reach down to the photo's noise, and some show no pixel at all.
#   Session 18, phone photos of seeds 0/7/11/21/22/31 and a fresh seed 41 (965 sheets): of
#   the 7 sheets read so, 4 had a mark read empty that way, of the other 912 two
FAINT_FEW_SURE = 5  # ... or at least this many, when over UNCLEAR_SHARE of the boxes are
#   unclear (a harsh photo of the palest pencil read 9 marks for sure, 89 boxes unclear and
#   26 marks as empty; a blurred blank sheet's haze has none, a noisy photo of two marks 2)
UNCLEAR_SHARE = 0.1  # a marked sheet with more of its boxes than this to review is refused
#   too (require_legible): the bench's light phone photos have 8-21 or 34-75 of 309
UNREADABLE_SHARE = 0.25  # ... and any sheet with more than this, however few marks it reads
#   for sure. Session 31, fresh seed 307 phone 53: faint pencil in a hard shadow read 4
#   marks for sure and 109 of 309 boxes to review, with 8 marks read empty; no other sheet
#   read on 44 seeds' default sets has over 43
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
FAINT_SLASH_INK, FAINT_SLASH_SPAN = 0.03, 0.75  # ... and there a single straight stroke (all
#   its ink on one band, none far off it) inking this much of an Executed box and crossing
#   this much of it, that the model calls a slash (under QUIET_SLASH_P), is one: a light
#   pencil slash too thin for F_MARK, or a faint one whose width the pencil's grain makes
#   uneven (its widening is no tick's vertex: _light_stroke_state). A tick's long arm alone
#   stops at its vertex (the cached sheets' ticks read so cross 0.55-0.60 of the box); the
#   quiet sheets' ticks that read as one straight band the model calls ticks (0.36 and
#   over). Cached sheets, seeds 0/7/11/21/22/31: 11 slashes left to review read so at 0.84
#   (session 15), 8 more at 0.75 with the faint marks too (session 16), nothing else
#   changed; bench_ticks, seeds 0-2: 14 slashes, no tick
WHISPER = 0.004  # faint ink on this share of a box (2 px at 200 dpi): a whisper of ink
QUIET_BOXES = 0.04  # a sheet whose unmarked boxes whisper no more often than this ...
LIKE_MARKS = 0.6  # ... reads a little ink at least this share of its marks' level as a mark
FAINT_HAZE = 0.3  # faint ink (no more than a little over the full threshold) on this much of
#                   a box is no stroke: a light shading, or a blurred photo's haze (review;
#                   the bench's faint marks cover at most 0.26)
FAINT_CORE = 0.02  # a faint mark read as marked has this much ink over the full threshold
#                  (pencil's darkest pixels do; a shadow's edge or a print misfit does not)
QUIET_NOISE = 0.012  # a sheet this quiet (scans, clean photos: 7 sigma well under the ink
#                     threshold's floor) shows a thin faint stroke on 5.5 % of a box, not 10 %
SCAN_NOISE = 0.006  # a sheet as quiet as a scan (the bench's scans and clean renders measure
#                    0.004-0.0055; its phone photos mostly more)
FAINT = 0.45  # a mark lighter than this share of the sheet's typical mark: review (the
#   bench's marks read right measure 0.43 and over, 2 of 73,000 under 0.45; the print's
#   haze on a blurred photo, a shadow or a blurred neighbour read as marks 0.22-0.43)
BLURRED_FAINT, PALE_INK = 0.6, 0.165  # on a BLURRED_PX photo, a mark outside an Executed
#   box lighter than this share with under PALE_INK of its box over the ink threshold:
#   review (the blurred outlines of a cluster of empty boxes, or a neighbour's stroke, read
#   as marks 0.46-0.56 there, none in an Executed box, all with ink under 0.153; the bench's
#   marks read right: 162 of 86,000 such, and 180 more in Executed boxes, left alone)
LIGHT_WHY = "light marks on this sheet: a faint mark below the thresholds?"
TRACE = 0.35  # a box with faint ink only (under F_EMPTY over the full threshold) whose
#   darkest quarter is under this share of the sheet's typical mark is empty (the bench's
#   light marks in such boxes measure 0.41 and over; under it, 106 reviews on the cached
#   sheets, all of empty boxes: print haze on blurred photos, shadows)
PALE_WHY = "far lighter than this sheet's marks: a mark, or a shadow or blur?"
LOOP_WHY = ("box filled, with a light loop around it: coloured in (checked) or filled and "
            "circled (cancelled)?")
HATCHED_WHY = ("ink over nearly all of the box, but not to every edge: coloured in (checked) "
               "or a very broad slash?")
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
EDGE_WHY = "ink only at the box's edge: a stray from outside?"
TRACE_WHY = "a trace of ink through the box's middle: a very light mark, or the photo's noise?"
FAINT_MARK_WHY = "faint mark"  # the reasons a mark is read from a little ink (under F_MARK)
LIKE_MARKS_WHY = "a light mark, as dark as this sheet's marks"
QUIET_MARK_WHY = "a light mark, read at this quiet sheet's own noise"
LIGHT_BAND_WHY = "a light straight stroke, standing out from this sheet's empty boxes"
DARK_GROUND_WHY = ("box dark all over, its ink in strokes: a mark over a shadow, or filled and "
                   "scribbled over (cancelled)?")
DARK_EMPTY_WHY = ("box dark all over, but no ink over its print: a mark hiding the printed "
                  "number, or the print's blur?")
NEAR_FILLED_WHY = ("box filled nearly to its edges, with ink around it: coloured in (checked) "
                   "or filled and scribbled over (cancelled)?")
BLURRED_PX = 1.8  # px: a photo this blurred (the print model's blur) ...
PEDESTAL_Q = 20  # ... a plain box's paper is this percentile of its inside, which the
PEDESTAL_MAX = 0.05  # outline's blur may darken by up to this: its thresholds move up.
#                      (Sharper, an evenly darker inside is light shading: ink.)
SLASH_SPAN = 0.82  # on a BLURRED_PX, noisy photo a single stroke crossing less of its box
#                   than this may be a tick's long arm, its short arm lost in the blur (a
#                   tick over "+1" measured 0.815; 0.8 until session 9)


@dataclass
class Mark:
    """The reading of one checkbox or bubble."""

    state: str  # checked | slashed | empty | cancelled | review
    confidence: float
    likely: str  # the most likely of checked/slashed/empty/cancelled (= state unless review)
    why: str = ""  # for review and faint marks: what was unclear
    features: dict[str, float] = field(default_factory=dict)
    doubt: str = ""  # for review: INK when the doubt is whether the box holds a mark at all;
    #   for a read mark: SETTLED when a model settled the rules' doubt


@dataclass
class Calibration:
    paper: float  # median darkness of the boxes' insides (paper)
    noise: float  # robust spread of it
    t_ink: float  # pixel threshold for ink
    t_faint: float  # pixel threshold for faint ink (pencil)
    ink_level: float = 0.0  # typical darkness of a mark on this sheet
    t_clear: float = 0.0  # faint ink in a box with printed text (above its blur halo)
    t_near: float = 0.0  # ... and right beside the printed text
    blur: float = 0.0  # px: the print's blur on the photo (the print model's)
    gain: float = 1.0  # the print's darkness on the photo over the blank sheet's (its model's)


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

    @property
    def light(self) -> bool:
        """The sheet's marks are barely darker than its ink threshold (LIGHT_RATIO)."""
        return self.contrast < LIGHT_RATIO


def id_list(ids: list[str], shown: int = 8) -> str:
    """Region ids for a warning: the first `shown` of them, "..." when there are more."""
    return ", ".join(ids[:shown]) + ("..." if len(ids) > shown else "")


# --- what the blank sheet gives, once per template ----------------------------------------
@dataclass(frozen=True)
class Anchors:
    """Tiles of the blank sheet at ANCHOR_DPI with printed structure in two directions."""

    scale: int  # canvas pixels per anchor pixel
    small: np.ndarray  # the blank sheet at ANCHOR_DPI (float32)
    tiles: np.ndarray  # (n, 4): u0, v0 (anchor pixels), size, size
    strength: np.ndarray  # (n,) how distinct each tile is


@dataclass(frozen=True)
class Rim:
    """The fixed geometry of the band around a box (RegionGeom.halo), worked out once per
    template: each pixel's distance from the box's outline (mm), and the sides of the box
    the band shows along SIDE_SEEN of its edge (rows, columns, the axis along the side,
    and which positions along it the band holds)."""

    bounds: tuple[int, int, int, int]  # u0, v0, u1, v1 on the canvas (RegionGeom.halo)
    mask: np.ndarray
    dist: np.ndarray
    sides: tuple[tuple[slice, slice, int, np.ndarray], ...]


@dataclass(frozen=True)
class Stack:
    """The checkboxes and bubbles of a template as one stack of equal patches."""

    index: np.ndarray  # (N,) positions in tpl.regions
    ids: tuple[str, ...]
    origin: np.ndarray  # (N, 2): u, v of each patch's top-left corner on the canvas
    size: tuple[int, int]  # P, Q: the patch rows, columns
    inside: np.ndarray  # (N, P, Q) bool
    centre: np.ndarray
    clear: np.ndarray
    near: np.ndarray  # inside & ~clear
    text: np.ndarray
    ring: np.ndarray  # (N, R) flat indices of the paper ring (cycled to a common length)
    has_ring: np.ndarray  # (N,) bool
    inside_idx: np.ndarray  # (N, L) flat indices of the inside (cycled)
    clear_idx: np.ndarray  # (N, Lc) of the clear part (printed boxes; cycled)
    near_idx: np.ndarray  # (N, Ln) of the part near print (printed boxes; cycled)
    ink_max: np.ndarray  # (N, P, Q) float32: the template's darkness, 3x3 maximum
    tone: np.ndarray  # (N,) the template's paper tone around each box (its top tenth)
    printed: np.ndarray  # (N,) bool: text printed inside
    executed: np.ndarray  # (N,) bool: an Executed box (slash = failed)
    n_inside: np.ndarray  # (N,) pixels in `inside`
    n_centre: np.ndarray
    n_text: np.ndarray
    near_boxes: tuple[np.ndarray, ...]  # per box: the stack indices of boxes within 25 mm
    core_idx: np.ndarray  # (N, Lk): the inside 3 px in from its edge (the outline's blur
    #                       lands on the edge), cycled: where the paper's noise is measured
    n_core: np.ndarray
    rims: tuple[Rim | None, ...]  # per box: its rim's geometry (halo_ink)
    ring_xy: tuple[np.ndarray, ...]  # x, y of `ring`'s pixels, from the patch's centre,
    #                                       in patch widths and heights (_light_slope)


_CACHE: dict[int, tuple[Template, Anchors, Stack]] = {}
_EXPECTED: dict[tuple[int, float], tuple[Template, np.ndarray]] = {}
BLURS = (0.0, 0.7, 1.2, 1.8, 2.6)  # px: the print's blur on the photo is one of these
BLUR_TIE = 1.03  # a blur whose print model errs at most this much more than the best fits too
ALT_FAINT = 0.5  # a faint mark of which the blurrier of two such models leaves less than this
#                  share is the print's blur as much as ink: review


def expected_print(tpl: Template, st: Stack, sigma: float, slack: bool = True
                   ) -> np.ndarray:
    """The darkness the printed ink should show in each box patch on a photo blurred by
    `sigma` px: the blank sheet blurred, then (`slack`) its 3x3 maximum (a pixel of
    registration)."""
    key = (id(tpl), sigma + (1000.0 if slack else 0.0))
    hit = _EXPECTED.get(key)
    if hit is not None and hit[0] is tpl:
        return hit[1]
    ink = tpl.ink if sigma <= 0 else cv2.GaussianBlur(tpl.ink, (0, 0), sigma)
    if slack:
        ink = cv2.dilate(ink, np.ones((3, 3), np.uint8))
    P, Q = st.size
    H, W = ink.shape
    rows = np.clip(st.origin[:, 1][:, None] + np.arange(P)[None, :], 0, H - 1)
    cols = np.clip(st.origin[:, 0][:, None] + np.arange(Q)[None, :], 0, W - 1)
    out = ink[rows[:, :, None], cols[:, None, :]].astype(np.float32)
    if len(_EXPECTED) > 24:
        _EXPECTED.clear()
    _EXPECTED[key] = (tpl, out)
    return out


_PRINT_ROWS: dict[tuple[int, float], tuple[Template, tuple[np.ndarray, ...]]] = {}
PRINT_BOXES = 48  # the print's look is fitted on at most this many boxes with text


def _print_rows(tpl: Template, st: Stack, sigma: float) -> tuple[np.ndarray, ...]:
    """For the print model at `sigma`: the boxes used, their text pixels and the core of
    their print (flat indices, cycled) with the expected darkness there."""
    key = (id(tpl), sigma)
    hit = _PRINT_ROWS.get(key)
    if hit is not None and hit[0] is tpl:
        return hit[1]
    sel = np.flatnonzero(st.n_text > 0)
    sel = sel[:: max(1, len(sel) // PRINT_BOXES)][:PRINT_BOXES]
    e = expected_print(tpl, st, sigma, slack=False)[sel]
    m = st.text[sel]
    peak = e.reshape(len(sel), -1).max(axis=1)[:, None, None]
    core = m & (e > 0.5 * peak)
    i_text, i_core = _cycled(list(m)), _cycled(list(core))
    out = (sel, i_text, _rows(e, i_text), i_core, _rows(e, i_core),
           core.sum(axis=(1, 2)) >= 5)
    if len(_PRINT_ROWS) > 24:
        _PRINT_ROWS.clear()
    _PRINT_ROWS[key] = (tpl, out)
    return out


def print_model(d: np.ndarray, tpl: Template, st: Stack
                ) -> tuple[float, float, tuple[float, float]]:
    """How the printed text inside the boxes looks on this photo: (blur sigma px, gain,
    and the (blur, gain) of the blurriest model that fits nearly as well). Robust to
    marks: per box the gain is the median ratio over the core of its print and the fit
    error the median over its text, and the sheet takes the median box (a mark crosses a
    minority of a box's print). A noisy photo can fit two blurs almost equally (the wings
    of the print, where they differ, drown in the noise): the blurriest model within
    BLUR_TIE of the best fit's error says how blurred the photo may be."""
    if int((st.n_text > 0).sum()) < 5:
        return 1.2, 1.0, (1.2, 1.0)
    fits: list[tuple[float, float, float]] = []
    for sigma in BLURS:
        sel, i_text, e_text, i_core, e_core, ok = _print_rows(tpl, st, sigma)
        if ok.sum() < 5:
            continue
        ds = d[sel]
        ratio = _rows(ds, i_core)[ok] / np.maximum(e_core[ok], 1e-3)
        gain = float(np.clip(np.median(np.median(ratio, axis=1)), 0.3, 3.0))
        err = np.abs(_rows(ds, i_text)[ok] - gain * e_text[ok])
        fits.append((float(np.median(np.median(err, axis=1))), sigma, gain))
    if not fits:
        return 1.2, 1.0, (1.2, 1.0)
    e_best, sigma, gain = min(fits)
    _, s_hi, g_hi = max((f for f in fits if f[0] <= BLUR_TIE * e_best), key=lambda f: f[1])
    return sigma, gain, (s_hi, g_hi)


def _over_print(d: np.ndarray, ep: np.ndarray) -> np.ndarray:
    """Darkness over the expected print `ep`: over the print's solid core a mark darkens
    the light the print lets through, 1 - (1 - d) / (1 - print) (a pen's tick over '+1' or
    light pencil across '17' keeps its darkness; subtracting the print would wipe it out);
    over its blurred edge, where the model's blur and registration error dominate (a
    60-110 dpi photo), the difference d - print, so that error is not amplified."""
    return (d - ep) / np.where(ep >= PRINT_CORE, np.maximum(1.0 - ep, OVER_FLOOR), 1.0)


def _prepared(tpl: Template) -> tuple[Anchors, Stack]:
    """Anchors and the patch stack of a template (computed once per template)."""
    hit = _CACHE.get(id(tpl))
    if hit is not None and hit[0] is tpl:
        return hit[1], hit[2]
    out = (_anchors(tpl), _stack(tpl))
    if len(_CACHE) > 8:
        _CACHE.clear()
    _CACHE[id(tpl)] = (tpl, *out)
    return out


def _anchors(tpl: Template) -> Anchors:
    scale = max(1, round(tpl.dpi / ANCHOR_DPI))
    h, w = tpl.gray.shape
    small = cv2.resize(tpl.gray[: h - h % scale, : w - w % scale], (w // scale, h // scale),
                       interpolation=cv2.INTER_AREA).astype(np.float32)
    dpi = tpl.dpi / scale
    t = max(8, round(ANCHOR_TILE_MM / 25.4 * dpi))
    cell = max(t, round(ANCHOR_CELL_MM / 25.4 * dpi))
    margin = round(ANCHOR_MM / 25.4 * dpi) + 1
    gx = cv2.Sobel(small, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(small, cv2.CV_32F, 0, 1, ksize=3)
    # structure tensor over tiles: the smaller eigenvalue is high where lines cross
    kx, ky, kxy = (cv2.boxFilter(a, -1, (t, t), normalize=True, anchor=(0, 0))
                   for a in (gx * gx, gy * gy, gx * gy))
    tr, det = kx + ky, kx * ky - kxy * kxy
    lam = tr / 2 - np.sqrt(np.maximum(tr * tr / 4 - det, 0))
    H, W = small.shape
    tiles, strength = [], []
    for v0 in range(margin, H - t - margin, cell):
        for u0 in range(margin, W - t - margin, cell):
            sub = lam[v0:v0 + cell - t + 1, u0:u0 + cell - t + 1]
            if sub.size == 0:
                continue
            k = int(np.argmax(sub))
            dv, du = divmod(k, sub.shape[1])
            if sub.flat[k] > 200.0:  # a few crossing lines (Sobel units, 0..255 image)
                tiles.append((u0 + du, v0 + dv, t, t))
                strength.append(float(sub.flat[k]))
    return Anchors(scale, small, np.array(tiles, int).reshape(-1, 4),
                   np.array(strength, np.float32))


def _cycled(masks: list[np.ndarray]) -> np.ndarray:
    """Flat indices of each mask, repeated cyclically to a common length (a percentile
    of a cycled list is the list's own, near enough)."""
    flat = [np.flatnonzero(m) for m in masks]
    n = max(1, max((f.size for f in flat), default=1))
    out = np.zeros((len(flat), n), np.int64)
    for k, f in enumerate(flat):
        out[k] = np.resize(f, n) if f.size else 0
    return out


def _ring_tone(tpl: Template, g: RegionGeom) -> float:
    """The template's gray on the brightest tenth of a box's ring (the statistic measured
    on the photo: a ring half white, half tinted has white as its top tenth)."""
    if g.ring is None or not g.ring.any():
        return g.paper_tone
    pu0, pv0, pu1, pv1 = g.patch
    sel = np.sort(tpl.gray[pv0:pv1, pu0:pu1][g.ring].astype(np.float64))
    k = max(1, sel.size // 10)
    return float(sel[-k:].mean())


def _near_boxes(geoms: list[RegionGeom], dpi: float) -> tuple[np.ndarray, ...]:
    c = np.array([((g.box[0] + g.box[2]) / 2, (g.box[1] + g.box[3]) / 2) for g in geoms])
    dist = np.hypot(c[:, None, 0] - c[None, :, 0], c[:, None, 1] - c[None, :, 1])
    reach = 25.0 / 25.4 * dpi
    return tuple(np.flatnonzero((row < reach) & (row > 0)) for row in dist)


def _stack(tpl: Template) -> Stack:
    sel = [k for k, g in enumerate(tpl.regions) if g.region.kind in ("checkbox", "bubble")]
    geoms = [tpl.regions[k] for k in sel]
    if not geoms:
        z = np.zeros((0, 1, 1), bool)
        zi = np.zeros((0, 1), np.int64)
        return Stack(np.array(sel, int), (), np.zeros((0, 2), int), (1, 1), z, z, z, z, z, zi,
                     np.zeros(0, bool), zi, zi, zi, np.zeros((0, 1, 1), np.float32),
                     np.zeros(0), np.zeros(0, bool), np.zeros(0, bool), np.zeros(0),
                     np.zeros(0), np.zeros(0), (), zi, np.zeros(0), (),
                     (np.zeros((0, 1)), np.zeros((0, 1))))
    P = max(g.patch[3] - g.patch[1] for g in geoms)
    Q = max(g.patch[2] - g.patch[0] for g in geoms)

    def pad(a: np.ndarray, fill: float | bool = False) -> np.ndarray:
        out = np.full((P, Q), fill, a.dtype)
        out[: a.shape[0], : a.shape[1]] = a
        return out

    inside = np.stack([pad(g.inside) for g in geoms])
    cores = [cv2.erode(i.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0 for i in inside]
    centre = np.stack([pad(g.centre) for g in geoms])
    clear = np.stack([pad(g.clear) for g in geoms])
    text = np.stack([pad(g.text) for g in geoms])
    near = inside & ~clear
    rings = [pad(g.ring) if g.ring is not None else np.zeros((P, Q), bool) for g in geoms]
    ink_max = np.stack([pad(tpl.ink_max[g.patch[1]:g.patch[3], g.patch[0]:g.patch[2]], 1.0)
                        for g in geoms]).astype(np.float32)
    printed = np.array([bool(g.region.printed) for g in geoms])
    ring = _cycled(rings)
    ring_y, ring_x = np.divmod(ring, Q)
    return Stack(
        index=np.array(sel, int), ids=tuple(g.region.id for g in geoms),
        origin=np.array([(g.patch[0], g.patch[1]) for g in geoms], int), size=(P, Q),
        inside=inside, centre=centre, clear=clear, near=near, text=text,
        ring=ring, has_ring=np.array([g.ring is not None for g in geoms]),
        inside_idx=_cycled(list(inside)),
        clear_idx=_cycled([c if p else i for c, i, p in zip(clear, inside, printed,
                                                            strict=True)]),
        near_idx=_cycled([n if p and n.any() else i for n, i, p in zip(near, inside, printed,
                                                                       strict=True)]),
        ink_max=ink_max, tone=np.array([_ring_tone(tpl, g) for g in geoms], np.float64),
        printed=printed, executed=np.array([is_executed(g.region.id) for g in geoms]),
        n_inside=inside.sum(axis=(1, 2)), n_centre=(centre & inside).sum(axis=(1, 2)),
        n_text=text.sum(axis=(1, 2)), near_boxes=_near_boxes(geoms, tpl.dpi),
        core_idx=_cycled(cores), n_core=np.array([c.sum() for c in cores]),
        rims=tuple(_rim(g, tpl.dpi) for g in geoms),
        ring_xy=((ring_x - Q / 2) / Q, (ring_y - P / 2) / P))


def _rim(g: RegionGeom, dpi: float) -> Rim | None:
    """A box's Rim (None when it has no band around it)."""
    if g.halo_mask is None or not g.halo_mask.any():
        return None
    u0, v0, u1, v1 = g.halo
    bu0, bv0, bu1, bv1 = g.box
    vv, uu = np.mgrid[v0:v1, u0:u1]
    dist = np.hypot(np.maximum(np.maximum(bu0 - uu, uu - bu1), 0),
                    np.maximum(np.maximum(bv0 - vv, vv - bv1), 0)) / (dpi / 25.4)
    m = g.halo_mask
    bu0, bv0, bu1, bv1 = max(0, bu0 - u0), max(0, bv0 - v0), bu1 - u0, bv1 - v0
    strips = ((slice(None, bv0), slice(bu0, bu1), 0), (slice(bv1, None), slice(bu0, bu1), 0),
              (slice(bv0, bv1), slice(None, bu0), 1), (slice(bv0, bv1), slice(bu1, None), 1))
    sides = []
    for rows, cols, axis in strips:
        if m[rows, cols].size == 0:
            continue
        along = m[rows, cols].any(axis=axis)
        if along.mean() >= SIDE_SEEN:
            sides.append((rows, cols, axis, along))
    return Rim(g.halo, m, dist, tuple(sides))


# --- registration ---------------------------------------------------------------------------
def _subpixel(res: np.ndarray, x: int, y: int) -> tuple[float, float]:
    """The peak of a correlation surface refined by a parabola through its neighbours."""
    def off(a: float, b: float, c: float) -> float:
        den = float(a - 2 * b + c)
        return min(0.5, max(-0.5, 0.5 * float(a - c) / den)) if den < 0 else 0.0
    h, w = res.shape
    dx = off(res[y, x - 1], res[y, x], res[y, x + 1]) if 0 < x < w - 1 else 0.0
    dy = off(res[y - 1, x], res[y, x], res[y + 1, x]) if 0 < y < h - 1 else 0.0
    return x + dx, y + dy


def register(canvas: np.ndarray, tpl: Template) -> Field:
    """The residual field of a rectified photo against its blank sheet (canvas pixels)."""
    anchors, _ = _prepared(tpl)
    s = anchors.scale
    h, w = canvas.shape
    small = cv2.resize(canvas[: h - h % s, : w - w % s], (w // s, h // s),
                       interpolation=cv2.INTER_AREA).astype(np.float32)
    r = round(ANCHOR_MM / 25.4 * tpl.dpi / s)
    pts, shifts, weights = [], [], []
    for (u0, v0, tw, th), strength in zip(anchors.tiles, anchors.strength, strict=True):
        win = small[v0 - r:v0 + th + r, u0 - r:u0 + tw + r]
        if win.shape != (th + 2 * r, tw + 2 * r):
            continue
        res = cv2.matchTemplate(win, anchors.small[v0:v0 + th, u0:u0 + tw], cv2.TM_CCOEFF_NORMED)
        _, best, _, (x, y) = cv2.minMaxLoc(res)
        if not np.isfinite(best) or best < 0.5:
            continue
        x2, y2 = _subpixel(res, x, y)
        pts.append(((u0 + tw / 2) * s, (v0 + th / 2) * s))
        shifts.append(((x2 - r) * s, (y2 - r) * s))
        weights.append((best - 0.4) / 0.6 * min(1.0, float(strength) / 2000.0))
    step = FIELD_STEP_MM / 25.4 * tpl.dpi
    if len(pts) < 6:
        return Field.zero((w, h), step)
    return fit_field(np.array(pts), np.array(shifts), np.array(weights), (w, h), step,
                     smooth=COARSE_SMOOTH, outlier=max(4.0, 1.5 * s))


def refine(tpl: Template, fld: Field, shifts: np.ndarray, scores: np.ndarray,
           size: tuple[int, int]) -> Field:
    """The field again, through where the regions' printed outlines were found (full
    resolution, many points: the boxes themselves are the best anchors)."""
    n = len(tpl.regions)
    centres = np.array([((g.patch[0] + g.patch[2]) / 2, (g.patch[1] + g.patch[3]) / 2)
                        for g in tpl.regions]).reshape(n, 2)
    good = scores >= 0.6
    if good.sum() < 12:
        return fld
    step = FINE_STEP_MM / 25.4 * tpl.dpi
    return fit_field(centres[good], shifts[good].astype(np.float64),
                     (scores[good] - 0.5) / 0.5, size, step, smooth=FINE_SMOOTH, outlier=3.0)


def _match(img: np.ndarray, tmpl: np.ndarray, u0: int, v0: int, r: int,
           mask: np.ndarray | None = None) -> tuple[int, int, float]:
    """Best (du, dv, score) of `tmpl` placed at (u0, v0) +- r in `img` (padded), over the
    `mask` pixels only if given."""
    h, w = tmpl.shape
    win = img[v0 - r:v0 + h + r, u0 - r:u0 + w + r]
    if win.shape != (h + 2 * r, w + 2 * r):
        return 0, 0, 0.0
    res = cv2.matchTemplate(win, tmpl, cv2.TM_CCOEFF_NORMED, mask=mask)
    res[~np.isfinite(res)] = 0.0  # (a flat window under the mask)
    _, best, _, loc = cv2.minMaxLoc(res)
    return loc[0] - r, loc[1] - r, float(best)


def outline_match(img: np.ndarray, tmpl: np.ndarray, keep: np.ndarray, u0: int, v0: int,
                  r: int = 1) -> float:
    """The best normalised correlation within +-r of `tmpl` at (u0, v0) in `img` (padded)
    over the `keep` pixels only: a box's outline and its surroundings, without its inside
    (a cross or a felt pen's tick covers much of the patch and drags the full match down
    though the outline sits where it should)."""
    return max(0.0, _match(img, tmpl, u0, v0, r, keep.astype(np.uint8))[2])


@dataclass(frozen=True)
class Alignment:
    """Where each region was searched (base +- r) and what was found there."""

    base: np.ndarray
    r: int
    shifts: np.ndarray
    scores: np.ndarray


def align(canvas: np.ndarray, tpl: Template, fld: Field | None = None, pad: int = 0,
          r: int = FINE_PX, prev: Alignment | None = None, outline: bool = False
          ) -> Alignment:
    """Each region's integer (du, dv) shift and its outline's match score: the field's
    displacement at the region, refined within +-r on the region's printed outline (a
    weak match, or one far from the field, keeps the field's position). `canvas` is
    padded by `pad` pixels on every side. With `prev`, a region whose new window lies in
    its previous one and holds that window's strong peak takes it as is (the best of a
    window is the best of any part of it that holds it): the same result, fewer matches;
    and one that matches worse than it did there keeps its previous place. With `outline`,
    a region its whole patch does not place is matched on its outline alone."""
    n = len(tpl.regions)
    centres = np.array([((g.patch[0] + g.patch[2]) / 2, (g.patch[1] + g.patch[3]) / 2)
                        for g in tpl.regions]).reshape(n, 2)
    pred = fld(centres[:, 0], centres[:, 1]) if fld is not None else np.zeros((n, 2))
    base = np.round(pred).astype(int)
    shifts = base.copy()
    scores = np.zeros(n, np.float32)
    same = np.zeros(n, bool)
    if prev is not None:
        same = ((np.abs(base - prev.base).max(axis=1) <= prev.r - r)
                & (np.abs(prev.shifts - base).max(axis=1) <= r) & (prev.scores >= 0.5))
        shifts[same] = prev.shifts[same]
        scores[same] = prev.scores[same]
    for k, g in enumerate(tpl.regions):
        if same[k]:
            continue
        pu0, pv0, pu1, pv1 = g.patch
        t = tpl.gray_f[pv0:pv1, pu0:pu1]
        du, dv, sc = _match(canvas, t, pu0 + base[k, 0] + pad, pv0 + base[k, 1] + pad, r)
        if outline and sc < OUTLINE_TRY:  # ink over much of the box: its outline may match
            du2, dv2, sc2 = _match(canvas, t, pu0 + base[k, 0] + pad, pv0 + base[k, 1] + pad,
                                   r, (~g.inner).astype(np.uint8))  # (as outline_match)
            if sc2 >= OUTLINE_OK:
                du, dv, sc = du2, dv2, sc2
        scores[k] = sc
        if sc >= 0.5:
            shifts[k] = base[k] + (du, dv)
        if prev is not None and prev.scores[k] >= 0.5 and prev.scores[k] > sc:
            # the field moved the region off where the wider search found it better (a
            # bend too sharp for the field): the better match stands
            shifts[k], scores[k] = prev.shifts[k], prev.scores[k]
    return Alignment(base, r, shifts, scores)


# --- darkness ---------------------------------------------------------------------------------
def _blur3(d: np.ndarray) -> np.ndarray:
    """3x3 mean of every patch of a stack (edges replicated)."""
    p = np.pad(d, ((0, 0), (1, 1), (1, 1)), mode="edge")
    out = np.zeros_like(d)
    P, Q = d.shape[1:]
    for dy in range(3):
        for dx in range(3):
            out += p[:, dy:dy + P, dx:dx + Q]
    return out / 9.0


def _rows(a: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """a (N, P, Q) gathered at flat indices idx (N, L) -> (N, L)."""
    n, m = a.shape[0], a.shape[1] * a.shape[2]
    return a.reshape(-1)[idx + (np.arange(n) * m)[:, None]]


def _pct(vals: np.ndarray, q: float) -> np.ndarray:
    """Per-row percentile (nearest rank) of (N, L)."""
    return _pcts(vals, q)[0]


def _pcts(vals: np.ndarray, *qs: float) -> list[np.ndarray]:
    """Several per-row percentiles (nearest rank) of (N, L) from one partition."""
    if vals.shape[1] == 0:
        return [np.zeros(vals.shape[0]) for _ in qs]
    ks = [min(vals.shape[1] - 1, max(0, round(q / 100 * (vals.shape[1] - 1)))) for q in qs]
    part = np.partition(vals, sorted(set(ks)), axis=1)
    return [part[:, k] for k in ks]


def _percentile(v: np.ndarray, q: float) -> np.floating:
    """np.percentile(v, q) of a 1-D array (the same value, linear between ranks), from one
    partition: a few microseconds instead of a hundred on the small arrays of one box."""
    n = v.size
    at = q / 100 * (n - 1)
    lo = int(at)
    hi = min(lo + 1, n - 1)
    part = np.partition(v, [lo, hi])
    a, b, t = part[lo], part[hi], at - lo
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t


def _median(v: np.ndarray) -> np.floating:
    """np.median(v) of a 1-D array (the same value), from one partition."""
    n = v.size
    part = np.partition(v, [(n - 1) // 2, n // 2])
    return (part[(n - 1) // 2] + part[n // 2]) / 2


def _paper(obs: np.ndarray, st: Stack) -> np.ndarray:
    """Each box's paper level (gray): the brightest tenth of its ring, times the ratio of
    the inside's paper to the ring that this sheet shows on boxes of the same tone."""
    n = obs.shape[0]
    ring = _rows(obs, st.ring)
    k = max(1, ring.shape[1] // 10)
    R = ring.shape[1]
    k85, k95 = (85 * (R - 1)) // 100, (95 * (R - 1)) // 100
    part = np.partition(ring, sorted({k85, k95, R - k}), axis=1)
    ring_top = part[:, -k:].mean(axis=1)
    # the top tenth of noisy paper sits 1.75 sigma above the paper; sigma from the top
    # (85th to 95th percentile), which marks, print and tinted paper in the ring do not reach
    sigma = (part[:, k95] - part[:, k85]) / 0.609
    ring_top = ring_top - 1.755 * np.clip(sigma, 0, None)
    inside_hi, inside_p60 = _pcts(_rows(obs, st.inside_idx), 80, 60)
    paper = np.where(st.has_ring, ring_top, _pct(obs.reshape(n, -1), 95))
    tones = np.round(st.tone / 6.0)
    for t in np.unique(tones):
        grp = (tones == t) & st.has_ring
        default = 255.0 / max(float(np.median(st.tone[grp])) if grp.any() else 255.0, 1.0)
        if grp.sum() >= 6:  # measured: the median box is empty
            ratio = float(np.median(inside_hi[grp] / np.maximum(ring_top[grp], 1.0)))
            ratio = float(np.clip(ratio, 0.8 * min(default, 1.0), 1.15 * max(default, 1.0)))
            ratio = max(ratio, 1.0) if t >= round(250 / 6.0) else ratio
        else:
            ratio = default
        paper[grp] = ring_top[grp] * ratio
    # the ring can read darker than the box's own paper (the blur of outlines and
    # neighbours, a tint, noise in a dim corner): where the inside's 60th percentile is
    # brighter than the ring's estimate, it is the paper (never darker: a light fill
    # would vanish into its own level)
    paper = np.where(st.has_ring, np.maximum(paper, inside_p60), paper)
    return np.maximum(paper, 1.0)


def _paper_floor(own: np.ndarray, st: Stack, far: Callable[[np.ndarray], np.ndarray]
                 ) -> np.ndarray:
    """Each box's paper level with a floor: a ring inked all round (a correction's loop)
    reads far darker than the paper, so no box's paper (`own`, from _paper) is taken below
    PAPER_FLOOR of its neighbours' (within 25 mm) median, nor, where that lifts it, of the
    paper a few millimetres out from it (`far`: the indices lifted -> their FAR_PAPER_MM
    level). A loop hugs its box; a shadow's dim side is dim out there too."""
    if len(own) < 3:
        return own
    floor = PAPER_FLOOR * _group_median(own, st.near_boxes)
    lift = np.nonzero(floor > own)[0]
    if len(lift):
        floor[lift] = np.minimum(floor[lift], PAPER_FLOOR * far(lift))
    return np.maximum(own, floor)


def _far_paper(big: np.ndarray, tpl: Template, st: Stack, shifts: np.ndarray, pad: int,
               ks: np.ndarray) -> np.ndarray:
    """The paper around boxes `ks` (stack indices) FAR_PAPER_MM out from their outline:
    the 90th percentile of that frame of the (padded) canvas, print and marks in it a
    minority."""
    px = tpl.dpi / 25.4
    near, out = (round(mm * px) for mm in FAR_PAPER_MM)
    levels = np.full(len(ks), np.inf)
    for i, k in enumerate(ks):
        u0, v0, u1, v1 = tpl.regions[st.index[k]].box
        du, dv = int(shifts[k, 0]) + pad, int(shifts[k, 1]) + pad
        y0, y1 = max(0, v0 + dv - out), min(big.shape[0], v1 + dv + out)
        x0, x1 = max(0, u0 + du - out), min(big.shape[1], u1 + du + out)
        frame = np.ones((y1 - y0, x1 - x0), bool)
        frame[max(0, v0 + dv - near - y0):max(0, v1 + dv + near - y0),
              max(0, u0 + du - near - x0):max(0, u1 + du + near - x0)] = False
        vals = big[y0:y1, x0:x1][frame]
        if vals.size:
            levels[i] = float(_percentile(vals, 90))
    return levels


def _group_median(values: np.ndarray, groups: list[np.ndarray]) -> np.ndarray:
    """np.median of values[groups[k]] for every box k at once (groups[k]: box k's
    neighbours; its own value where it has none): one sort of a padded table instead of
    a median per box."""
    n = len(groups)
    lens = np.array([len(g) for g in groups])
    width = max(1, int(lens.max(initial=0)))
    idx = np.zeros((n, width), np.intp)
    pad = np.arange(width)[None, :] >= lens[:, None]
    for k, g in enumerate(groups):
        idx[k, :len(g)] = g
    table = np.where(pad, np.inf, values[idx])
    table.sort(axis=1)
    rows = np.arange(n)
    lo = np.maximum(lens - 1, 0) // 2
    mid = (table[rows, lo] + table[rows, np.maximum(lens, 1) // 2]) / 2
    return np.where(lens > 0, mid, values)


def _light_slope(obs: np.ndarray, st: Stack) -> np.ndarray:
    """Each box's light as a plane across its patch, relative to the patch's centre
    (N, P, Q): fitted to the paper of its ring (the brighter half: not the print), so a
    shadow's edge or a light gradient across a box does not read as ink on its dim side."""
    n = obs.shape[0]
    P, Q = st.size
    ring = _rows(obs, st.ring)
    xs, ys = st.ring_xy
    med = np.median(ring, axis=1, keepdims=True)
    w = (ring >= med).astype(np.float64)
    # weighted least squares for v = a + b x + c y, solved in closed form (no BLAS)
    sw, sx, sy = w.sum(1), (w * xs).sum(1), (w * ys).sum(1)
    sxx, sxy, syy = (w * xs * xs).sum(1), (w * xs * ys).sum(1), (w * ys * ys).sum(1)
    sv, sxv, syv = (w * ring).sum(1), (w * xs * ring).sum(1), (w * ys * ring).sum(1)
    m = np.stack([np.stack([sw, sx, sy], -1), np.stack([sx, sxx, sxy], -1),
                  np.stack([sy, sxy, syy], -1)], -2) + np.eye(3) * 1e-6
    det = np.linalg.det(m)
    rhs = np.stack([sv, sxv, syv], -1)
    coef = np.empty((n, 3))
    for j in range(3):  # Cramer's rule
        mj = m.copy()
        mj[:, :, j] = rhs
        coef[:, j] = np.linalg.det(mj) / np.where(np.abs(det) > 1e-12, det, 1.0)
    base = np.maximum(coef[:, :1], 1.0)
    gx = np.clip(coef[:, 1:2] / base, -0.3, 0.3)[:, :, None].astype(np.float32)
    gy = np.clip(coef[:, 2:3] / base, -0.3, 0.3)[:, :, None].astype(np.float32)
    u = ((np.arange(Q) - Q / 2) / Q)[None, None, :].astype(np.float32)
    v = ((np.arange(P) - P / 2) / P)[None, :, None].astype(np.float32)
    out = 1.0 + gx * u + gy * v
    out[~st.has_ring] = 1.0
    return out.reshape(n, P, Q)


# --- features -----------------------------------------------------------------------------------
ANGLE_STEP = 3  # degrees between the straight bands tried
SECOND_ANGLE = 30  # degrees: a second stroke crosses the first at least this steeply (a
#                    curved or wobbly slash leaves ink beside its band, parallel to it)
_ANGLES = np.deg2rad(np.arange(0, 180, ANGLE_STEP, dtype=np.float32))
_NORMALS = np.stack([-np.sin(_ANGLES), np.cos(_ANGLES)], 1)  # each band's unit normal


def _best_bands(pts: np.ndarray, band: float, away_from: int | None = None
                ) -> tuple[float, np.ndarray, int]:
    """The straight band of width `band` holding most of the points (all angles at once):
    (count, mask of the points on it, its angle's index); `away_from`: only angles at
    least SECOND_ANGLE from that one."""
    count, on, _, _, a = _band(pts, band, away_from)
    return count, on, a


def _band(pts: np.ndarray, band: float, away_from: int | None = None
          ) -> tuple[float, np.ndarray, np.ndarray, tuple[float, float], int]:
    """_best_bands, plus the band's unit normal and its (low, high) offset along it."""
    normal = _NORMALS
    A = normal.shape[0]
    rho = pts[:, :1] * normal[:, 0] + pts[:, 1:2] * normal[:, 1]  # (n, A), no BLAS
    bins = np.floor(rho - rho.min()).astype(np.int64)
    nb = int(bins.max()) + 1
    hist = np.bincount((np.arange(A)[None, :] * nb + bins).ravel(),
                       minlength=A * nb).reshape(A, nb).astype(np.float32)
    w = max(1, round(band))
    csum = np.concatenate([np.zeros((A, 1), np.float32), np.cumsum(hist, axis=1)], axis=1)
    win = csum[:, w:] - csum[:, :-w] if nb >= w else csum[:, -1:]
    if away_from is not None:
        diff = np.abs(np.arange(A) - away_from) * ANGLE_STEP
        win = np.where((np.minimum(diff, 180 - diff) >= SECOND_ANGLE)[:, None], win, -1.0)
    a, lo = np.unravel_index(int(np.argmax(win)), win.shape)
    on = (bins[:, a] >= lo) & (bins[:, a] < lo + w)
    base = float(rho.min())  # bins count from the smallest offset over all angles
    return float(max(win[a, lo], 0.0)), on, normal[a], (base + lo, base + lo + w), int(a)


def paper_both_sides(ink: np.ndarray, inside: np.ndarray, band: float) -> float:
    """A thick single stroke (a marker's slash) leaves paper on both sides of it; a box
    coloured in does not. The smaller of the two sides' shares of the inside's paper
    (0 when the paper is not split by the ink's best straight band)."""
    ys, xs = np.nonzero(ink)
    py, px = np.nonzero(inside & ~ink)
    if ys.size < 4 or py.size < 4:
        return 0.0
    c = np.array([xs.mean(), ys.mean()], np.float32)
    pts = np.stack([xs, ys], 1).astype(np.float32) - c
    _, _, normal, (lo, hi), _ = _band(pts, band)
    rho = (px - c[0]) * normal[0] + (py - c[1]) * normal[1]
    n = float(inside.sum())
    return float(min((rho < lo).sum(), (rho >= hi).sum())) / n


@dataclass(frozen=True)
class Strokes:
    """The shape of the ink in a box, from its best straight band (line_fraction)."""

    first: float  # share of the ink on the best straight band
    second: float  # ... on the best band through what is left (>= SECOND_ANGLE from it)
    far: float  # ... more than FAR_GAP px beyond the first band's edges
    span: float  # how much of the box the first band's ink crosses (stroke_span)
    end_gap: float  # ... and how far short of the box's end it stops, the farther end
    bulge: float  # how much wider than typical the ink gets along it (stroke_bulge)


def line_fraction(ys: np.ndarray, xs: np.ndarray, band: float, inside: np.ndarray,
                  gap: float = FAR_GAP) -> Strokes:
    """How much of the ink lies on one straight stroke, on a second one, and well off the
    first one's band; and how far along the box (its `inside`) that stroke runs and where
    it widens.

    first: the fraction of ink pixels on the best straight band of width `band`; second:
    the fraction (of all ink) on the best band through what is left (a slash is one band,
    second ~0; a tick adds a short arm, ~0.2-0.35; a cross two long ones, ~0.4); far: the
    share of the ink more than `gap` pixels beyond the first band's edges (a tick's short
    arm or a cross's second bar leaves the main stroke's band at an angle and goes on; a
    slash's wobble, blur and ragged ends hug it). One band search serves them all."""
    n = ys.size
    if n < 4:
        return Strokes(1.0, 0.0, 0.0, 0.0, 1.0, 1.0)
    pts = np.stack([xs, ys], 1).astype(np.float32)
    c = pts.mean(axis=0)
    pts -= c
    first, on, normal, (lo, hi), a = _band(pts, band)
    rho = pts[:, 0] * normal[0] + pts[:, 1] * normal[1]
    far = float(((rho < lo - gap) | (rho >= hi + gap)).sum()) / n
    rest = pts[~on]
    second = _best_bands(rest, band, a)[0] if rest.shape[0] >= 4 else float(rest.shape[0])
    along = np.array([normal[1], -normal[0]], np.float32)
    t = pts @ along
    span, end_gap = stroke_span(t[on], inside, c, normal, along, (lo, hi))
    return Strokes(first / n, second / n, far, span, end_gap, stroke_bulge(t, rho, band))


def stroke_span(t_on: np.ndarray, inside: np.ndarray, c: np.ndarray, normal: np.ndarray,
                along: np.ndarray, edges: tuple[float, float]) -> tuple[float, float]:
    """How much of the box the ink's main straight stroke crosses: the length of its ink
    along its band (`t_on`) over the length of the box's inside on that band (a slash
    runs corner to corner, ~1; a tick's long arm starts near the middle, ~0.6-0.8); and
    the larger of the gaps its two ends leave to the box's ends, in the same measure (a
    slash reaches both, a tick's long arm stops short at its vertex)."""
    iy, ix = np.nonzero(inside)
    q = np.stack([ix, iy], 1).astype(np.float32) - c
    rho = q @ normal
    ti = q[(rho >= edges[0]) & (rho < edges[1])] @ along
    if ti.size < 2 or t_on.size < 2:
        return 0.0, 1.0
    length = float(ti.max() - ti.min() + 1)
    gap = max(float(t_on.min() - ti.min()), float(ti.max() - t_on.max()), 0.0)
    return float((t_on.max() - t_on.min() + 1) / length), gap / length


def stroke_bulge(t: np.ndarray, rho: np.ndarray, band: float) -> float:
    """How much wider the ink gets across its main stroke somewhere along it than it
    typically is (`t`, `rho`: each ink pixel's place along and across the stroke): a
    slash keeps its width end to end (~1-1.5), a tick's short arm leaves the stroke at its
    vertex and widens it there (~1.4 and more)."""
    if t.size < 8:
        return 1.0
    step = max(2.0, band / 2)
    b = np.floor((t - t.min()) / step).astype(np.int64)
    nb = int(b.max()) + 1
    lo = np.full(nb, np.inf, np.float32)
    hi = np.full(nb, -np.inf, np.float32)
    np.minimum.at(lo, b, rho)
    np.maximum.at(hi, b, rho)
    ext = (hi - lo + 1)[np.isfinite(lo)]
    if ext.size < 3:
        return 1.0
    return float(ext.max() / max(_median(ext), 1.0))


def stroke_shape(dk: np.ndarray, over_k: np.ndarray, st: Stack, k: int, t_over: float,
                 t: float, fill: float) -> tuple[tuple[float, float], dict[str, float]]:
    """An Executed box's strokes as ink above `t` (over print: `over_k` above `t_over`):
    (line_fraction, {far, and split when a thick stroke was checked for paper both
    sides}). A thick mark that is neither clearly one stroke nor two is a slash if paper
    shows on both sides of it (or a little paper does and THICK_ONE of its ink lies on one
    band), coloured in if no paper does, two strokes if THICK_TWO or less lies on the
    band, else left for review."""
    inside = st.inside[k]
    m = (dk > t) & inside & ~st.near[k]
    m |= (st.near[k] | st.text[k]) & (over_k > t_over)
    if fill >= SLASH_MAX_INK:
        m = _through_print(m, st, k)
    ys, xs = np.nonzero(m)
    band = max(6.0, 1.2 * stroke_width(m) + 2.0)
    sk = line_fraction(ys, xs, band, inside)
    line = (sk.first, sk.second)
    shape = {"far": round(sk.far, 3), "span": round(sk.span, 3), "end_gap": round(sk.end_gap, 3),
             "bulge": round(sk.bulge, 3), "extent": _extent(ys, xs, inside)}
    if fill >= SLASH_MAX_INK and _stroke_state(True, line, shape["far"]) != CHECKED:
        # a thick stroke or a box coloured in? a stroke leaves paper both sides
        split = paper_both_sides(m & inside, inside, band)
        shape["split"] = round(split, 3)
        corners = _corner_to_corner(shape, fill)
        if corners:
            shape["corners"] = 1.0  # (no sure tick by the split test on its core either)
        if split < 0.04 and fill >= 0.75:
            line = (line[0], SECOND_CROSS)  # coloured in (not quite edge to edge)
        elif split < SPLIT_PAPER and line[0] <= THICK_TWO and corners:
            line = (line[0], (SECOND_SLASH + SECOND_CROSS) / 2)  # a marker's slash? review
        elif split < SPLIT_PAPER and line[0] <= THICK_TWO:
            line = (line[0], SECOND_CROSS)  # ink well off the main band: a second stroke
            shape["split_two"] = 1.0
            shape["second"] = round(sk.second, 3)  # (what its second band measured)
        elif split < SPLIT_PAPER and not (line[0] >= THICK_ONE and split >= 0.04):
            line = (line[0], (SECOND_SLASH + SECOND_CROSS) / 2)  # review
            shape["far"] = 0.0
    return line, shape


def _extent(ys: np.ndarray, xs: np.ndarray, inside: np.ndarray) -> float:
    """How far the ink reaches across its box: the smaller of its height's and its width's
    share of the inside's (2nd to 98th percentile of the ink; a slash ~0.8-1, a stroke
    along one edge far less)."""
    n = ys.size
    if n < 4:
        return 1.0
    lo, hi = int(0.02 * (n - 1)), int(np.ceil(0.98 * (n - 1)))
    shares = []
    for v, axis in ((ys, 1), (xs, 0)):
        q = np.partition(v, (lo, hi))
        span = np.flatnonzero(inside.any(axis=axis))
        shares.append(float(q[hi] - q[lo] + 1) / float(span[-1] - span[0] + 1))
    return round(min(shares), 3)


def _through_print(m: np.ndarray, st: Stack, k: int) -> np.ndarray:
    """A fat mark's ink mask `m` with the gaps solid print cuts in it closed: over the
    print's dark core (BLIND_PRINT) no ink shows (a grey marker over black "+1" leaves
    holes the glyphs' shape, and the stroke read as two, a tick). Only print pixels with
    ink close by on both sides are filled (a morphological closing, THROUGH_PX)."""
    blind = (st.ink_max[k] >= BLIND_PRINT) & (st.near[k] | st.text[k])
    if not blind.any():
        return m
    kernel = np.ones((THROUGH_PX, THROUGH_PX), np.uint8)
    closed = cv2.morphologyEx(m.astype(np.uint8), cv2.MORPH_CLOSE, kernel).astype(bool)
    return m | (blind & closed)


def _corner_to_corner(shape: dict[str, float], fill: float) -> bool:
    """A thick stroke the paper-split test would call two strokes (a tick) that reaches both
    ends of its band (FAT_SPAN, EDGE_GAP) with nothing far off it (FAR_SLASH), keeps its
    width (under PEN_BULGE) and leaves paper over much of its box (under FAT_FILL): a
    marker's slash whose blunt ends fill the box's corners, as much as a tick: review.
    Two phone photos' marker slashes read silently as ticks so (seeds 31, 41: one now goes
    to review, one reads as a slash on its core); on the cached sheets 2 ticks more go to
    review, no other box changes. 540 training-style pages at marker widths: 20 slashes
    read as ticks go to review, and 84 of 18,400 ticks (session 19)."""
    return (shape["far"] < FAR_SLASH and shape["span"] >= FAT_SPAN
            and shape["end_gap"] <= EDGE_GAP and shape["bulge"] < PEN_BULGE and fill < FAT_FILL)


def stroke_width(ink: np.ndarray) -> float:
    """Typical stroke width of a binary ink mask (pixels): from the distance to paper on
    the strokes' spines."""
    if ink.sum() < 3:
        return 1.0
    dist = cv2.distanceTransform(np.pad(ink.astype(np.uint8), 1), cv2.DIST_L2, 3)[1:-1, 1:-1]
    return float(max(1.0, 2 * _percentile(dist[ink], 90) - 1))


def calibrate(d: np.ndarray, st: Stack, core: bool = True) -> Calibration:
    """Paper level and noise from the boxes themselves. Ink only ever darkens, so the
    half of each box's pixels below its median is paper: its spread (median - 16th
    percentile) is the noise, whatever share of the box is inked; the paper level is the
    lightest fifth of the box medians (a sheet can be mostly marked)."""
    ok, idx = st.n_core >= 20, st.core_idx  # off the outline's blur
    if ok.sum() < 10 or not core:
        ok, idx = st.n_inside >= 20, st.inside_idx
    if not ok.any():
        return Calibration(0.0, 0.004, 0.12, 0.06)
    vals = _rows(d, idx)[ok]
    L = vals.shape[1]
    k16, k50 = round(0.16 * (L - 1)), round(0.5 * (L - 1))
    part = np.partition(vals, (k16, k50), axis=1)
    med, lo = part[:, k50], part[:, k16]
    sp = med - lo
    p0 = float(np.percentile(med, 20))
    paper = med <= p0 + 0.05
    noise = max(float(np.median(sp[paper] if paper.sum() >= 10 else sp)), 0.004)
    return Calibration(p0, noise, p0 + max(7 * noise, 0.12), p0 + max(4 * noise, 0.06))


def pedestal(d: np.ndarray, st: Stack, p0: np.ndarray, t_ink: np.ndarray) -> np.ndarray:
    """How much darker each plain box's inside is, evenly, than its paper level (N), on a
    blurred photo, where a small box's outline spreads over its whole inside: the
    inside's PEDESTAL_Q percentile over that level, up to PEDESTAL_MAX. None where text is
    printed in the box (the print model accounts for its blur) or where that percentile
    is ink already (a filled or heavily marked box)."""
    p_in = _pct(_rows(d, st.clear_idx), PEDESTAL_Q)
    ped = np.clip(p_in - p0, 0.0, PEDESTAL_MAX)
    return np.where(st.printed | (p_in >= t_ink) | (st.n_inside == 0), 0.0, ped)


def measure(d: np.ndarray, st: Stack, t_ink: np.ndarray, t_faint: np.ndarray,
            over: np.ndarray, t_print: float) -> dict[str, np.ndarray]:
    """The features of every box at once (arrays of N).

    Away from printed text, ink is darkness above the sheet's thresholds. Near and over
    the text printed in a box (its number, its points) ink is what is left once the
    print is taken away (`over`: darkness above what the blank sheet's print looks like
    on this photo), above the thresholds and above that residual's own noise there
    (`t_print`), so a light pencil stroke across "17" counts."""
    inside, text = st.inside, st.text
    n = np.maximum(st.n_inside, 1).astype(np.float64)
    zone_b = st.near | text  # near or over print (printed boxes only: near is empty else)
    zone_a = inside & ~st.near
    ti, tf = t_ink[:, None, None], t_faint[:, None, None]  # per box (its own noise)
    t_bi, t_bf = np.maximum(ti, t_print), np.maximum(tf, t_print)
    d_ink, o_ink = d > ti, over > t_bi  # (each comparison made once: a few hundred boxes)
    d_faint, o_faint = d > tf, over > t_bf
    fill = (d_ink & inside).sum(axis=(1, 2)) / n  # a filled box hides its print
    n_ink = ((d_ink & zone_a).sum(axis=(1, 2))
             + (o_ink & zone_b).sum(axis=(1, 2))).astype(np.float64)
    faint_a, faint_b = d_faint & zone_a, o_faint & zone_b
    n_faint = (faint_a.sum(axis=(1, 2)) + faint_b.sum(axis=(1, 2))).astype(np.float64)
    n_faint = np.maximum(n_faint, n_ink)
    c_hit = (faint_a & st.centre).sum(axis=(1, 2))
    c_hit = c_hit + (o_faint & st.centre & st.near).sum(axis=(1, 2))
    centre = np.where(st.n_centre >= np.maximum(12, 0.1 * n),
                      c_hit / np.maximum(st.n_centre, 1), 0.0)
    n_dark = (o_faint & text).sum(axis=(1, 2)).astype(np.float64)
    centre = np.where(st.n_text > 0, np.maximum(centre, n_dark / np.maximum(st.n_text, 1)),
                      centre)
    n_all = n + st.n_text
    # level: the 75th percentile of the faint-inked pixels' darkness (over print: above
    # it), for the boxes with three such pixels or more (most boxes are empty)
    fp = faint_a | faint_b
    m = fp.sum(axis=(1, 2))
    level = np.zeros(len(m), np.result_type(over, d))
    some = np.flatnonzero(m >= 3)
    if some.size:
        vals = np.where(fp[some], np.where(zone_b[some], over[some], d[some]), -np.inf)
        srt = -np.sort(-vals.reshape(some.size, -1), axis=1)  # descending
        rank = np.clip(np.floor(0.25 * (m[some] - 1)).astype(int), 0, srt.shape[1] - 1)
        level[some] = srt[np.arange(some.size), rank]
    return {"n": n_all, "ink": n_ink / n_all, "faint": n_faint / n_all, "centre": centre,
            "level": level, "fill": fill, "n_inside": st.n_inside.astype(np.float64)}


def _specks(dk: np.ndarray, inside: np.ndarray, t_faint: float, dpi: float) -> bool:
    """A box's faint ink is specks (toner, dust, a pen's touch): no piece of it longer than
    SPECK_MM."""
    return _longest((dk > t_faint) & inside) < SPECK_MM * dpi / 25.4


def _longest(mask: np.ndarray) -> float:
    """The longest extent (pixels) of a connected part of a mask: its bounding box from
    corner pixel to corner pixel (centres), plus one (a 4 x 4 px speck is 5.2 px, not 5.7)."""
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    if n <= 1:
        return 0.0
    w, h = stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT]
    return float((np.hypot(w - 1, h - 1) + 1).max())  # corner pixels' centres, plus one


def _sides(d: np.ndarray, inside: np.ndarray, t: float) -> float:
    """How far ink reaches every side of the inside (the least-inked side's share)."""
    ys, xs = np.nonzero(inside)
    y0, y1, x0, x1 = ys.min(), ys.max(), xs.min(), xs.max()
    band = max(2, (y1 - y0) // 6)
    m = (d > t) & inside
    sides = [m[y0:y0 + band].sum() / max(1, inside[y0:y0 + band].sum()),
             m[y1 - band + 1:y1 + 1].sum() / max(1, inside[y1 - band + 1:y1 + 1].sum()),
             m[:, x0:x0 + band].sum() / max(1, inside[:, x0:x0 + band].sum()),
             m[:, x1 - band + 1:x1 + 1].sum() / max(1, inside[:, x1 - band + 1:x1 + 1].sum())]
    return float(min(sides))


def halo_ink(canvas: np.ndarray, tpl: Template, rim: Rim | None, shift: tuple[int, int],
             paper: float, level: float, cal: Calibration, pad: int = 0) -> dict[str, float]:
    """How the rim around a box (HALO_MM outside its outline; its geometry `rim`) is
    inked: the inked fraction (halo), how many separate strokes cross it (halo_strokes),
    and on how many of the sides seen (halo_seen) it is inked along SIDE_INKED of their
    length (halo_sides). A correction fills the box and scribbles round it through the
    rim, on every side (or strikes it through past the outline); a box coloured in to
    mark it stays inside, and ink from one side only is a neighbour's mark or a stroke
    passing by. A rim pixel is inked when it is at least half as dark as the box's own
    ink."""
    none = {"halo": 0.0, "halo_strokes": 0, "halo_sides": 0, "halo_seen": 0}
    if rim is None:
        return none
    u0, v0, u1, v1 = rim.bounds
    du, dv = shift
    obs = canvas[v0 + dv + pad:v1 + dv + pad, u0 + du + pad:u1 + du + pad].astype(np.float32)
    if obs.shape != rim.mask.shape:
        return none
    d = cv2.blur(np.clip(1.0 - obs / max(paper, 1.0), 0.0, 1.0), (3, 3))
    printed = tpl.ink_max[v0:v1, u0:u1]
    t = max(cal.t_ink, 0.5 * level)
    inked = (d > t) & (d - printed > min(OVER_PRINT, 0.5 * level)) & rim.mask
    n, labels = cv2.connectedComponents(inked.astype(np.uint8), connectivity=8)
    strokes = 0
    if n > 1:  # strokes that reach the rim's outer part (a thick fill's spill does not)
        # a stroke runs out across the rim: a piece of ink reaching STRUCK_MM that spans
        # STRUCK_SPAN_MM of the rim's depth (a speck of noise or toner does not)
        lab, dd = labels[inked], rim.dist[inked]
        lo = np.full(n, np.inf)
        hi = np.full(n, -np.inf)
        np.minimum.at(lo, lab, dd)
        np.maximum.at(hi, lab, dd)
        strokes = int(((hi >= STRUCK_MM) & (hi - lo >= STRUCK_SPAN_MM))[1:].sum())
    sides = sum(int(inked[rows, cols].any(axis=axis)[along].mean() >= SIDE_INKED)
                for rows, cols, axis, along in rim.sides)
    return {"halo": float(inked[rim.mask].mean()), "halo_strokes": strokes,
            "halo_sides": sides, "halo_seen": len(rim.sides)}


# --- classification ----------------------------------------------------------------------
def _conf(x: float, lo: float, hi: float) -> float:
    """0.5 at a boundary, 1.0 at `hi` past it (lo = the boundary)."""
    if hi == lo:
        return 1.0
    return min(1.0, max(0.0, 0.5 + 0.5 * float(x - lo) / (hi - lo)))  # (scalars: no numpy)


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
    if mk.state == EMPTY and f.get("median", 0.0) >= DARK_EMPTY * f["t_ink"]:
        # read empty, yet most of the box is dark: ink over the printed number that the
        # print model took away (a marker's tick hiding it), or the print's blur
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
                and (f.get("halo_strokes", 0) >= 2 or halo >= HALO_CANCEL))):
        # filled lightly, nearly to its edges (short of a side), with ink past the outline
        # on two sides or more: a light correction's loop as much as a fill's spill; and
        # on any sheet, one inked over HALO_FILL struck through past its outline, or its
        # rim inked as a correction's is, on three sides or more
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


def _success_says_slash(f: dict[str, float]) -> bool:
    """A stroke whose shape leaves the rules in doubt (one stroke or two?) that the success
    model calls a slash all but surely (SUCCESS_SETTLES). It learned crosses and loose
    ticks as successes, which the older models did not, so its slash is one where theirs
    was not (a marker's blunt end is a tick's vertex to them)."""
    return f.get("success_p", 1.0) < SUCCESS_SETTLES


def _success_leans_slash(f: dict[str, float]) -> bool:
    """The success model leans to a slash (under SUCCESS_LEANS): then the thin-pen model
    alone does not read a single stroke as a tick (_sure_model_tick)."""
    return f.get("success_p", 1.0) < SUCCESS_LEANS


def _settled_slash(f: dict[str, float]) -> Mark:
    """A slash read on the success model's word (_success_says_slash): SETTLED, so it
    still counts as unclear to require_legible."""
    return Mark(SLASHED, 0.6, SLASHED, SETTLED_WHY, f, SETTLED)


def _success_slash(f: dict[str, float]) -> bool:
    """A stroke the rules read as a slash that the success model is all but sure is a tick
    or a cross (SUCCESS_SURE): a blurred one whose second stroke merged into the first, a
    short-armed tick, a fat blurred cross (classify)."""
    return f.get("success_p", 0.0) >= SUCCESS_SURE


def _far_slash(f: dict[str, float]) -> bool:
    """A stroke read as a tick by a little ink off its band that the success model calls a
    slash (SUCCESS_VETO): the print's residue or a blur's spread off a slash as much as a
    tick's short arm."""
    return f.get("success_p", 1.0) < SUCCESS_VETO


def _weak_second(f: dict[str, float]) -> bool:
    """A fat mark that stroke_shape calls two strokes for the paper-split test alone
    (`split_two`) whose second band holds under SPLIT_SECOND of its ink: a marker's cross
    puts more there, a marker's slash only its blunt edges."""
    return "split_two" in f and f.get("second", 1.0) < SPLIT_SECOND


def _split_slash(f: dict[str, float]) -> bool:
    """_weak_second, and both tick-or-slash models (the marker one's `tick_p`, the thin
    pen's `thin_p`) call it a slash (under SPLIT_SLASH_P): one stroke as much as two."""
    return (_weak_second(f) and f.get("tick_p", 1.0) < SPLIT_SLASH_P
            and f.get("thin_p", 1.0) < SPLIT_SLASH_P)


def _light_fill(f: dict[str, float], cal: Calibration) -> bool:
    """A box filled lightly (PENCIL_FILL) on a quiet sheet or, since session 32, on any
    photo not blurred (BLURRED_PX): a light loop round it hides in the fill's spill, so
    rim ink on two sides makes it a correction as much as a box coloured in (fresh seeds'
    noisy photos: pencil corrections, loops inking 0.18-0.34 of the rim on two sides, read
    as coloured in). On a blurred photo the fill's own blur inks its rim."""
    return f["level"] < PENCIL_FILL and (cal.noise < QUIET_NOISE or cal.blur < BLURRED_PX)


def _widens(f: dict[str, float], cal: Calibration) -> bool:
    """Ink that widens to BULGE_TICK times its stroke somewhere along it: a tick, its short
    arm leaving the long one at the vertex (on a thick mark, merged into it). A slash keeps
    its width, but on a washed-out photo (the print under WASHED_GAIN of its darkness) the
    haze widens a thin one too (the bench's: 1.54 and 1.70), and on a noisy one a faint
    stroke's width is the noise's (2.7): there only a thick mark is told this way. A
    stroke the model calls a slash is not (_model_slash: a blot or a hook)."""
    if f.get("bulge", 1.0) < BULGE_TICK or _model_slash(f):
        return False
    return (f["ink"] >= BULGE_INK or cal.noise < QUIET_NOISE
            or (f["ink"] >= F_MARK and cal.gain >= WASHED_GAIN))


def _model_slash(f: dict[str, float]) -> bool:
    """Ink the rules would read as a tick by its widening alone (_widens) that the tick-or-slash
    model calls a slash (SLASH_VETO): a veto, as TICK_VETO is the other way round."""
    return "tick_p" in f and f["tick_p"] < SLASH_VETO


def _pale(f: dict[str, float], cal: Calibration, executed: bool = False) -> bool:
    """A mark far lighter than the sheet's own (under FAINT of their typical level; on a
    blurred photo, a small mark under BLURRED_FAINT outside an Executed box, whose marks
    cross its printed "+1" and measure lighter)."""
    share = (BLURRED_FAINT if cal.blur >= BLURRED_PX and f["ink"] < PALE_INK
             and not executed else FAINT)
    return bool(cal.ink_level) and f["level"] < share * cal.ink_level


def _inked(f: dict[str, float]) -> float:
    """How much of its box a mark inks: `fill` (its ink off the print) or `ink` (over the
    print too), whichever is more."""
    return max(f.get("fill", f["ink"]), f["ink"])


def _tick_like(f: dict[str, float], line: tuple[float, float] | None, cal: Calibration
               ) -> bool:
    """A stroke read as one (a slash) that a tick could look like too: a fat one with a
    little ink off its line (a very fat one, with any); one not quite straight that stops
    short of the box's corners (a tick whose short arm is hardly longer than the pen is
    wide, or that blur merged into the long arm); on a blurred, noisy photo, one crossing
    less than SLASH_SPAN of its box (a tick's long arm, its short arm lost in the print's
    blur); on a quiet sheet, one with some ink off its band that the model finds somewhat
    like a tick or that widens at one point (QUIET_BENT); and one the tick-or-slash model
    calls a tick (_model_tick)."""
    if line is None:
        return False
    span = f.get("span", 1.0)
    fill = _inked(f)
    return ((fill >= SLASH_MAX_INK and line[0] < THICK_SLASH)
            or (fill >= PEN_FILL and f.get("bulge", 1.0) >= PEN_BULGE)
            or (fill >= FAT_FILL and line[0] < THICK_ONE)
            or (line[0] < BENT_LINE and span < BENT_SPAN)
            or _arm_lost(f, cal)
            or (cal.noise < QUIET_NOISE and line[0] < QUIET_BENT
                and (f.get("tick_p", 0.0) >= QUIET_SOME or f.get("bulge", 1.0) >= BULGE_TICK))
            or _model_tick(f))


def _arm_lost(f: dict[str, float], cal: Calibration) -> bool:
    """On a blurred, noisy photo, a stroke crossing less than SLASH_SPAN of its box: a
    tick's long arm whose short arm the print's blur may have swallowed. What is lost no
    model can see, so the success model does not settle it (_success_says_slash)."""
    return (cal.blur >= BLURRED_PX and cal.noise >= QUIET_NOISE
            and f.get("span", 1.0) < SLASH_SPAN)


def _quiet_tick(f: dict[str, float], line: tuple[float, float] | None, cal: Calibration
                ) -> bool:
    """On a quiet sheet (a scan, a clean photo), a stroke read as one that is a tick whose
    short arm is short: the model calls it a tick, some of its ink lies off its straight
    band, and it widens at one point (QUIET_TICK_P, QUIET_TICK_LINE, QUIET_TICK_BULGE). A
    slash, however bent, keeps its ink on its band there."""
    return (line is not None and cal.noise < QUIET_NOISE
            and f.get("tick_p", 0.0) >= QUIET_TICK_P and line[0] < QUIET_TICK_LINE
            and f.get("bulge", 1.0) >= QUIET_TICK_BULGE)


def _thick_doubt(f: dict[str, float]) -> bool:
    """A dark stroke the thin-pen model calls a tick that the marker model doubts (under
    TICK_VETO): a marker's slash, its blunt end a tick's vertex to the thin-pen model.
    The thin-pen model alone does not overturn the rules' slash there (session 26: on
    seventeen seeds' scans, short-ticks scans and photos, the 2,300 ticks so read measure
    0.9 and over, the two slashes 0.48 and 0.84)."""
    return "thick_p" in f and f["thick_p"] < TICK_VETO


def _quiet_model_tick(f: dict[str, float], line: tuple[float, float] | None, cal: Calibration
                      ) -> bool:
    """On a quiet sheet, ink the rules cannot call one stroke or two (_stroke_state's review:
    mostly a second band holding between SECOND_SLASH and SECOND_CROSS of it, little of it
    far off) that the model calls a tick (QUIET_TICK_MID): a tick whose short arm is short
    or merged."""
    return (line is not None and cal.noise < QUIET_NOISE
            and f.get("tick_p", 0.0) >= QUIET_TICK_MID)


def _quiet_slash(f: dict[str, float], line: tuple[float, float] | None, cal: Calibration
                 ) -> bool:
    """On a sheet as quiet as a scan, a stroke the rules read as one, and that a tick could
    look like by its shape only, that is a slash all the same: the model calls it a slash
    (a tick with under QUIET_SLASH_P) and it keeps its width (no BULGE_TICK widening at a
    vertex). The rules' reading and the model's answer agree; the shape's doubt is
    outweighed."""
    return (line is not None and cal.noise < SCAN_NOISE
            and "tick_p" in f and f["tick_p"] < QUIET_SLASH_P
            and f.get("bulge", 1.0) < BULGE_TICK)


def _dark_slash(f: dict[str, float], line: tuple[float, float] | None, cal: Calibration
                ) -> bool:
    """On a quiet sheet (QUIET_NOISE), a pen's or a marker's stroke (DARK_LEVEL) across its
    box (DARK_SPAN), nothing of it off its band (FAR_SLASH), that the model leans to call a
    slash while it keeps its width (DARK_TICK_P, DARK_BULGE), or is sure of while it widens
    less than a vertex (DARK_SURE_P, DARK_WIDE): a slash. Dark ink shows a tick's short
    arm on a scan or a clean photo; the doubt left is the measures' (a thick stroke's edges
    on a second band, a slight bend), not the mark's. Either model may say so: a thin
    marker's stroke inks too little of its box to be asked of the fat marks' model first
    (`thick_p`: that model's answer for a dark stroke the pens' was asked of)."""
    p, bulge = min(f.get("tick_p", 1.0), f.get("thick_p", 1.0)), f.get("bulge", 9.0)
    return (line is not None and cal.noise < QUIET_NOISE and f["level"] >= DARK_LEVEL
            and f.get("far", 1.0) < FAR_SLASH and f.get("span", 0.0) >= DARK_SPAN
            and ((p < DARK_TICK_P and bulge < DARK_BULGE)
                 or (p < DARK_SURE_P and bulge < DARK_WIDE)))


def _quiet_one_stroke(f: dict[str, float], line: tuple[float, float] | None, cal: Calibration
                      ) -> bool:
    """On a sheet as quiet as a scan, ink the rules cannot call one stroke or two (a second
    band holding between SECOND_SLASH and SECOND_CROSS of it: a thick slash's edges, or a
    tick's short arm) that is a slash: nothing of it far off its band (FAR_SLASH), and the
    model calls it a slash while it keeps its width (_quiet_slash). Not where the doubt is
    the paper-split test's (SPLIT_PAPER: a thick stroke or a box coloured in?). Cached
    sheets, seeds 0/7/11/21/22/31: 8 slashes left to review read so, nothing else changed
    (the model calls the ticks there ticks; the six it calls slashes widen at their vertex
    or are the paper-split test's doubt); bench_ticks, seeds 0-2: 2 slashes, no tick."""
    return (f.get("far", 1.0) < FAR_SLASH and f.get("split", SPLIT_PAPER) >= SPLIT_PAPER
            and _quiet_slash(f, line, cal))


def _sure_model_slash(f: dict[str, float], cal: Calibration) -> bool:
    """On a sheet as quiet as a scan, a stroke the rules read as a slash and a shape test
    doubts (_tick_like, mostly for its widening) that the thin-pen model calls a slash all
    but surely (PRINT_SLASH_P): a pencil slash widened by the print it crosses (the mirror
    of _sure_model_tick). Only a light stroke (under DARK_LEVEL: a pen's or a marker's is
    _dark_slash's, and a fat mark's `tick_p` is the marker model's, which learned no such
    widening), with no ink far off its band."""
    return (cal.noise < SCAN_NOISE and f["level"] < DARK_LEVEL and _inked(f) < SLASH_MAX_INK
            and f.get("far", 1.0) < FAR_SLASH and f.get("tick_p", 1.0) < PRINT_SLASH_P)


def _sure_model_tick(f: dict[str, float], cal: Calibration) -> bool:
    """On a quiet sheet, a stroke the rules read as one and a shape test doubts
    (_tick_like) that the model calls a tick all but surely (SURE_TICK_P): a tick whose
    short arm is too short for the band measures (the mirror of _quiet_slash)."""
    return cal.noise < QUIET_NOISE and f.get("tick_p", 0.0) >= SURE_TICK_P


def _model_tick(f: dict[str, float]) -> bool:
    """A stroke the rules read as a slash that scanner.tickslash's model calls a tick
    (TICK_VETO), or that it finds somewhat like one (TICK_SOME) when the stroke also
    widens at one point as a tick's vertex does (BULGE_TICK), or a little like one
    (TICK_TRACE) when it widens to twice its width (BULGE_VERTEX): a veto only, so it sends
    the box to review and never reads it."""
    p, bulge = f.get("tick_p", 0.0), f.get("bulge", 1.0)
    return (p >= TICK_VETO or (p >= TICK_SOME and bulge >= BULGE_TICK)
            or (p >= TICK_TRACE and bulge >= BULGE_VERTEX))


def _light_stroke_state(executed: bool, f: dict[str, float], line: tuple[float, float] | None,
                        cal: Calibration) -> tuple[str, str]:
    """A light mark's state and likely state from its strokes: as a full mark's, but one
    faint stroke is a slash only when no tick could look like it and there is ink enough
    (faint ink on 10 % of the box) that a thin tick's short arm would have shown; on a
    quiet sheet (a scan, a clean photo) also a thinner one (a light pencil line) that runs
    across the box, edge to edge: a tick's long arm stops at its vertex, inside the box,
    and there its short arm shows on such a sheet; and on a sheet as quiet as a scan one
    the model calls a slash, however uneven its width (_faint_slash)."""
    state = _stroke_state(executed, line, f.get("far", 0.0))
    if (state == REVIEW and _widens(f, cal)) or (state == SLASHED and _quiet_tick(f, line, cal)):
        return CHECKED, CHECKED
    enough = f["faint"] >= F_MARK * 1.8 or (
        cal.noise < QUIET_NOISE and f.get("end_gap", 1.0) < END_GAP and line is not None
        and line[0] >= BENT_LINE and line[1] <= ALONE)
    if state == SLASHED and (not enough or _tick_like(f, line, cal)):
        if _quiet_slash(f, line, cal) or (cal.noise < SCAN_NOISE and _faint_slash(f, line)):
            return SLASHED, SLASHED
        return REVIEW, SLASHED
    if state == CHECKED and _far_slash(f):
        return REVIEW, SLASHED
    return state, (CHECKED if state == REVIEW else state)


def _stroke_state(executed: bool, line: tuple[float, float] | None, far: float = 0.0) -> str:
    """On an Executed box: one straight stroke is a slash (failed), more is a success.
    `far`: the share of the ink well off the main stroke's band (line_fraction)."""
    if not executed or line is None:
        return CHECKED
    first, second = line
    if second <= SECOND_SLASH and first >= FIRST_SLASH and far < FAR_SLASH:
        return SLASHED
    if second >= SECOND_CROSS or (second > SECOND_SLASH and far >= FAR_TICK):
        return CHECKED
    return REVIEW


def is_executed(region_id: str) -> bool:
    return region_id.startswith("mission.")


# --- a whole sheet ---------------------------------------------------------------------------
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


def read_marks(canvas: np.ndarray, tpl: Template, inks: dict[str, np.ndarray] | None = None
               ) -> Reading:
    """Read every checkbox and bubble of a rectified sheet; `inks` (to train or inspect
    scanner.tickslash): filled with each Executed box's ink as its model sees it."""
    _, st = _prepared(tpl)
    fld = register(canvas, tpl)
    disp = np.abs(fld.nodes).max() if fld.nodes.size else 0.0
    pad = int(np.ceil(disp)) + FIRST_PX + 8
    big = cv2.copyMakeBorder(canvas, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    big_f = big.astype(np.float32)
    first = align(big_f, tpl, fld, pad, FIRST_PX, outline=True)
    fld = refine(tpl, fld, first.shifts, first.scores, (canvas.shape[1], canvas.shape[0]))
    fine = align(big_f, tpl, fld, pad, FINE_PX, prev=first)
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
    paper = _paper_floor(_paper(obs, st), st,
                         lambda ks: _far_paper(big_f, tpl, st, sh, pad, ks))
    # (float32 throughout: a stack of a few hundred patches, read many times over)
    slope = _light_slope(obs, st)
    d = _blur3(np.clip(1.0 - obs / (paper.astype(np.float32)[:, None, None] * slope), -1.0, 1.0))
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
    # sheet noisier than a scan (on one as quiet, _read_light_again reads it at the sheet's
    # own noise): each Executed box read empty gets its darkest straight band's z
    lines: dict[str, float] = {}
    ends: dict[str, float] = {}  # ... and each of those with text printed in it, its ends'
    measure_lines = cal.noise >= SCAN_NOISE
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
            mk = Mark(REVIEW, 0.3, mk.likely, "the box's outline was not found where "
                      "expected (a fold, a shadow, ink all over it?)", mk.features)
        if line is not None:
            mk.features["line"] = round(line[0], 3)
            mk.features["line2"] = round(line[1], 3)
        if measure_lines and executed and mk.state == EMPTY:  # (ink over print, as measure's)
            lines[rid] = _box_band(d, over, st, k, float(noise_k[k]))
            if st.printed[k]:
                ends[rid] = ends_z(d[k], st.inside[k] | st.text[k], st.inside[k],
                                   float(noise_k[k]))
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
    contrast = _light_sheet_review(marks, t_ink_k)
    quiet_enough = cal.blur < BLURRED_PX and (
        cal.noise < SCAN_NOISE or (cal.noise < QUIET_NOISE and contrast < LIGHT_RATIO))
    again = ([k for k, rid in enumerate(st.ids) if unclear_ink(marks[rid])]
             if quiet_enough else [])
    if again:
        lo_ink = p0_k + np.maximum(7 * noise_k, LOW_INK)
        lo_faint = p0_k + np.maximum(4 * noise_k, LOW_FAINT)
        low = {**measure(d, st, lo_ink, lo_faint, over, t_print),
               "t_ink": lo_ink, "t_faint": lo_faint}
        _read_light_again(again, marks, low, d, over, st, cal, t_print, tpl.dpi)
        _light_bands(again, marks, low["ink"], d, over, st, cal.noise)
        if not cal.ink_level:  # a blank scan's toner specks (in a box without print)
            _uncompared_faint_marks(marks, QUIET_MARK_WHY, printed)
    _faint_lines(marks, lines, ends)
    darkness = {}
    for k, g in enumerate(tpl.regions):
        if g.region.kind in ("digits", "text"):
            darkness[g.region.id] = _darkness_patch(big, g, (int(shifts[k, 0]),
                                                             int(shifts[k, 1])), pad)
    shift_map = {rid: (int(shifts[k, 0]), int(shifts[k, 1])) for k, rid in enumerate(ids)}
    # the written fields are cleaned with thresholds measured over the whole inside of the
    # boxes (their pen strokes are read with the noise of edges and blur included)
    return Reading(marks, _field_calibration(calibrate(d, st, core=False), darkness, tpl),
                   shift_map, darkness, faint, fld, (sigma, gain), contrast)


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
            if mk.doubt == SETTLED:  # (read on the success model's word)
                low_f["low_success_p"] = f["success_p"]
            marks[rid] = Mark(mk.state, 0.6, mk.state, QUIET_MARK_WHY, {**m.features, **low_f},
                              mk.doubt)


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


def _faint_slash(f: dict[str, float], line: tuple[float, float] | None) -> bool:
    """A light single stroke across an Executed box that is a slash (FAINT_SLASH_INK,
    FAINT_SLASH_SPAN): straight, nothing off its band, through the middle, and the model
    calls it a slash. Asked of a stroke read at a quiet sheet's own noise
    (_read_light_again), and of a faint mark on a sheet as quiet as a scan
    (_light_stroke_state)."""
    return (line is not None and line[0] >= BENT_LINE and line[1] <= ALONE
            and f.get("far", 1.0) < FAR_SLASH and f["faint"] >= FAINT_SLASH_INK
            and f["centre"] >= F_CENTRE and f.get("span", 0.0) >= FAINT_SLASH_SPAN
            and f.get("tick_p", 1.0) < QUIET_SLASH_P)


def _faint_lines(marks: dict[str, Mark], lines: dict[str, float], ends: dict[str, float]
                 ) -> None:
    """An Executed box read empty whose darkest straight band stands out from the
    sheet's other empty Executed boxes (scanner.faintline: a slash too faint for any of
    its pixels to clear the photo's noise), or, with text printed in it, whose band stands
    out a little and shows at both ends in the paper beside the print
    (faintline.ends_standing_out), goes to review, likely empty (in place)."""
    found = [(rid, "faint_line", sc) for rid, sc in standing_out(lines).items()]
    found += [(rid, "faint_ends", sc) for rid, sc in ends_standing_out(lines, ends).items()]
    for rid, key, score in found:
        m = marks[rid]
        if m.state == EMPTY:
            marks[rid] = Mark(REVIEW, 0.4, EMPTY, FAINT_LINE_WHY, {**m.features, key: score},
                              INK)


def _off_their_neighbours(sh: np.ndarray, st: Stack, marks: dict[str, Mark]
                          ) -> dict[int, tuple[np.ndarray, float]]:
    """The boxes read as marked whose shift lies more than DRAWN_PX from the median shift
    of the boxes within 25 mm (at least three): box index -> (that median, how far off)."""
    out = {}
    for k, near in enumerate(st.near_boxes):
        if len(near) < 3 or marks[st.ids[k]].state not in (CHECKED, SLASHED, CANCELLED):
            continue
        med = np.round(np.median(sh[near], axis=0)).astype(int)
        gap = float(np.abs(sh[k] - med).max())
        if gap > DRAWN_PX:
            out[k] = (med, gap)
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
    d[ks] = _blur3(np.clip(1.0 - obs / (paper[ks].astype(np.float32)[:, None, None]
                                        * slope[ks]), -1.0, 1.0))
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


def _light_sheet_review(marks: dict[str, Mark], t_ink: np.ndarray) -> float:
    """On a sheet whose marks (the boxes read as marked, at least LIGHT_MIN_MARKS of them)
    are barely darker than its ink threshold (light pencil, a dim or noisy photo), a mark
    can fall below the thresholds and read empty: an empty box with some ink on its inside
    goes to review instead. (A sheet with few marks says nothing about how light they are:
    its faintly inked boxes are mostly noise.) Returns the sheet's contrast: its typical
    mark's level over its typical ink threshold (inf with too few marks)."""
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
                                 or f.get("level", 0) >= LIGHT_LEVEL):
            marks[rid] = Mark(REVIEW, 0.4, EMPTY, LIGHT_WHY, f, INK)
    return contrast


def _contrast(levels: Sequence[float], t_ink: Sequence[float] | np.ndarray) -> float:
    """A typical mark's level over the typical ink threshold."""
    return float(np.median(levels)) / max(float(np.median(t_ink)) if len(t_ink) else 0.0,
                                          1e-6)


def require_legible(reading: Reading, source: str, anyway: bool = False,
                    square_on: bool = True) -> str | None:
    """Refuse a sheet that could only be read by hand, with the fix:
    - a washed-out or badly blurred photo: the print reads at under WASHED_GAIN of its
      darkness, the outlines' haze in a blank box looks like a mark, and only a mark's
      darkness tells them apart (the one such bench photo: 49 blank boxes read marked);
    - a sheet whose typical mark is under FAINT_SHEET times its ink threshold, and whose
      typical sure mark (at least FAINT_MIN_SURE of them) under FAINT_SURE: there, thin
      pencil on a dim, blurred or distant photo leaves some marks with no pixel above the
      paper's noise at all (up to a quarter of them on 300 harsh phone photos), so an
      empty box means nothing; the 279 sheets above it had 5 such marks, on 3 sheets
      under 1.35;
    - a marked sheet (FAINT_FEW_SURE marks read for sure) with over UNCLEAR_SHARE of its
      boxes to review: checking them one by one on the paper is more work than a better
      photo, and a reading that unsure errs unseen too (held out, seed 22: the two harsh
      photos with 37 and 80 boxes to review read 11 and 9 boxes wrong; no other sheet read
      of the 1386 cached, seeds 0/7/11/21/22, has over 30). Light sheets were so refused
      before; session 12 extended it to all (call this once the boxes are settled:
      scanner.order). Over UNREADABLE_SHARE unclear, any sheet is so refused, however
      few marks it reads for sure.
    - a photo on which over FAINT_TAIL of the sure marks lie under their ink threshold:
      the lightest marks reach the noise there, and some show nothing (_faint_tail).
    With `anyway` (scan --read-anyway) the refusal is returned as a warning instead."""
    problem = _illegible(reading, square_on)
    if problem is None:
        return None
    what, fix = problem
    if not anyway:
        raise InputFileError(f"{source}: {what}", fix)
    return f"read anyway, though {what}: check the whole sheet"


def reading_warnings(reading: Reading, source: str, anyway: bool = False,
                     square_on: bool = True) -> list[str]:
    """What every sheet's reading warns of: that it was read anyway though illegible
    (require_legible, which raises without `anyway`), and its faint marks read as marked
    (faint_warnings). `square_on`: the page was imaged without perspective
    (scanner.rectify.Fit.square_on)."""
    refused = require_legible(reading, source, anyway, square_on)
    return ([refused] if refused else []) + faint_warnings(reading)


def faint_warnings(reading: Reading) -> list[str]:
    """The faint marks (pencil?) that the reading holds as marked: a faint mark sent to
    review is listed with the reviews instead."""
    faint = [rid for rid in reading.faint if reading.marks[rid].state in (CHECKED, SLASHED)]
    if not faint:
        return []
    return [f"{len(faint)} faint mark(s) (pencil?) read as marked: {id_list(faint)}"]


def _illegible(reading: Reading, square_on: bool = True) -> tuple[str, str] | None:
    """What makes the sheet illegible (require_legible), and the fix; None if nothing. A
    sheet imaged square on (no perspective) and as quiet as a scan (SCAN_NOISE) is called a
    scan, and its fix is a scan's; a quiet phone photo stays a photo."""
    scan = square_on and reading.calibration.noise < SCAN_NOISE
    img = "scan" if scan else "photo"
    anyway = "(or scan with --read-anyway and check the sheet by hand)"
    fix = (f"Go over the marks with a darker pen and scan the sheet again {anyway}." if scan
           else "Take a sharper, brighter photo closer to the sheet, or go over the marks "
           f"with a darker pen {anyway}.")
    gain = reading.print_look[1]
    if gain < WASHED_GAIN:
        return (f"the photo is washed out or badly blurred (the printed sheet reads at only "
                f"{gain:.0%} of its darkness, so the haze of its outlines looks like ink)",
                "Take a sharp, evenly lit photo without glare, the sheet filling the frame "
                "(or scan with --read-anyway and check the sheet by hand).")
    sure_levels = [m.features["level"] for m in reading.marks.values()
                   if m.state in (CHECKED, SLASHED)]
    unclear = sum(m.state == REVIEW or m.doubt == SETTLED for m in reading.marks.values())
    # too unclear to read: a marked sheet with over UNCLEAR_SHARE of its boxes unclear, or
    # any with over UNREADABLE_SHARE (so unclear a reading tells nothing, whatever it read)
    too_unclear = unclear > UNCLEAR_SHARE * len(reading.marks) and (
        len(sure_levels) >= FAINT_FEW_SURE or unclear > UNREADABLE_SHARE * len(reading.marks))
    if len(sure_levels) >= FAINT_MIN_SURE or too_unclear:
        sure = _contrast(sure_levels, [m.features["t_ink"] for m in reading.marks.values()
                                       if "t_ink" in m.features])
    else:  # a sheet hardly marked (or blank) whose unclear boxes are the photo's haze
        sure = float("inf")
    if reading.contrast < FAINT_SHEET and sure < FAINT_SURE:
        return (f"the marks are too faint to read in this {img} (the typical mark is only "
                f"{reading.contrast:.0%} of the ink threshold that the {img}'s noise and blur "
                "set, so some marks do not show at all)", fix)
    if too_unclear:
        if reading.light and sure < LIGHT_RATIO:
            return (f"the marks are too faint to read this {img} with confidence ({unclear} of "
                    f"{len(reading.marks)} boxes unclear; the typical mark is only "
                    f"{reading.contrast:.0%} of the ink threshold)", fix)
        if scan:
            return (f"too many boxes are unclear to read this scan with confidence ({unclear} "
                    f"of {len(reading.marks)}: too light or too coarse for its marks)",
                    f"Scan the sheet again at 300 dpi or more, flat on the glass {anyway}.")
        return (f"too many boxes are unclear to read this photo with confidence ({unclear} of "
                f"{len(reading.marks)}: too blurred, too small or too far for its marks)",
                f"Take a sharper photo from straight above, the sheet filling the frame {anyway}.")
    tail = _faint_tail(reading)
    if tail > FAINT_TAIL:
        return (f"the marks are too faint to read in this {img} ({tail:.0%} of the marks read "
                f"are lighter than the ink threshold that the {img}'s noise sets, so some may "
                "not show at all)", fix)
    return None


def _faint_tail(reading: Reading) -> float:
    """On a photo (its noise over the boxes' whole insides, the reading's calibration, not
    under QUIET_NOISE: a quieter sheet reads its light marks again at its own noise), the
    share of its sure marks (at least FAINT_MIN_SURE) whose level is under their ink
    threshold; 0 otherwise."""
    if reading.calibration.noise < QUIET_NOISE:
        return 0.0
    under = [m.features["level"] < m.features["t_ink"] for m in reading.marks.values()
             if m.state in (CHECKED, SLASHED) and "t_ink" in m.features]
    return sum(under) / len(under) if len(under) >= FAINT_MIN_SURE else 0.0


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
