"""Whether a photo can be read with confidence at all: require_legible refuses a washed
out, too faint or too unclear sheet with a one-line fix, and the warnings a light sheet
gets when it is read.
"""

from __future__ import annotations

import numpy as np

from scanner.marks.audit import SETTLE_WHY
from scanner.marks.printed import WASHED_GAIN
from scanner.marks.sheet import LIGHT_RATIO, Reading, _contrast
from scanner.marks.state import (
    CHECKED,
    QUIET_NOISE,
    REVIEW,
    SCAN_NOISE,
    SETTLED,
    SLASHED,
    Mark,
    id_list,
)
from starsheets.errors import InputFileError

FAINT_SHEET = 1.2  # a sheet whose typical mark is under 1.2x its ink threshold (a light one
#                    is under sheet.LIGHT_RATIO) is refused: on such photos some marks do
#                    not show at all (require_legible) ...
FAINT_PHOTO = 1.22  # ... a photo's limit (session 39, the fifty seeds' harsh photos: of the
#   five read between 1.2 and 1.22, 269 phone 88 lost three marks that showed no pixel over
#   the threshold, silently; of the 40-odd read between 1.22 and 1.3, none). A scan keeps
#   FAINT_SHEET: of its three read between 1.2 and 1.222, two were exact
FAINT_MIN_SURE, FAINT_SURE = 10, 1.3  # ... when at least this many boxes read as marked
#   for sure, and they are faint too (under 1.3x): on a blurred, noisy photo the print's
#   haze in many small boxes reads as light "marks" to review, and outnumbers dark ones
FAINT_TAIL = 0.1  # ... and a photo (σ >= QUIET_NOISE) on which more than this share of its
#   sure marks (at least FAINT_MIN_SURE) lie under their ink threshold (read as faint): so
#   light a pencil's marks reach down to the photo's noise, and some show no pixel at all.
#   Session 18, phone photos of seeds 0/7/11/21/22/31 and a fresh seed 41 (965 sheets): of
#   the 7 sheets read so, 4 had a mark read empty that way, of the other 912 two
FAINT_FEW_UNDER = 2  # ... and a photo with fewer sure marks than FAINT_FEW_SURE (below), when
#   at least this many of them lie under their ink threshold: a sheet that shows so few
#   marks for sure, and those barely, has lost the rest to the noise. Session 65, 2089
#   phone 37 on A4 (grey pencil 0.55 at 0.6x width, defocused, 90-127 px/inch): 4 sure
#   marks, 3 of them under the threshold (0.84-0.97 of it), 18 marks on the sheet, a tick
#   read empty silently (the learned second look settled its little ink empty at
#   0.9995). Of the other 3,279 harsh photos read on 35 seed and paper sets, the 46 with
#   1-9 sure marks have at most one under the threshold. Not from 5 to 9 (FAINT_MIN_SURE
#   keeps its bound there): 1723 phone 31 has 6 of its 9 under and reads right
FAINT_FEW_SURE = 5  # ... or at least this many, when over UNCLEAR_SHARE of the boxes are
#   unclear (a harsh photo of the palest pencil read 9 marks for sure, 89 boxes unclear and
#   26 marks as empty; a blurred blank sheet's haze has none, a noisy photo of two marks 2)
UNCLEAR_SHARE = 0.08  # a marked sheet with more of its boxes than this to review is
#   refused too (require_legible): the bench's light phone photos have 8-21 or 34-75 of
#   309. 0.1 until session 41: on twenty seeds no rule was tuned on, 5 of the 14 harsh
#   photos read with 25-34 boxes to review had boxes read wrong silently besides (7 of
#   the 1,813 read with fewer); on the fifty tuned seeds none of the 28 so read had any
NOISY_BLANK = 0.35  # a sheet reading fewer than FAINT_MIN_SURE sure marks whose typical box has
#   its ink threshold this far over the paper (its noise alone: 7 sigma at 0.05) is refused:
#   pencil (its marks' level 0.3-0.45 on dim photos) would not show there, so reading it
#   blank says nothing. Session 49, ten held-out seeds' 1,000 harsh photos (1133-1187): the
#   typical threshold's 95th percentile 0.24, the largest on a sheet of ten sure marks or
#   more 0.33 (100 of 103 read), on a blank one 0.27; over 0.35 one sheet refused already
#   and 1133 phone 42 (grey pencil on a dim photo in a hard shadow, noise 0.071, threshold
#   0.54), which read all 196 of its marks empty, 188 silently
NOISY_UNCLEAR = 0.25  # ... and so is one reading fewer sure marks than FAINT_FEW_SURE and
#   over UNCLEAR_SHARE of its boxes unclear whose typical threshold is over this: pencil
#   barely reaches it, and the reviews are its marks. Session 52, 1487 phone 54: grey
#   pencil on a blurred, noisy photo at 89-122 px/inch, threshold 0.29, no sure mark, 28
#   boxes unclear and 75 marks read empty silently (too few reviews leaning marked to
#   measure their contrast). On 3,000 harsh photos (1193-1307, 1433-1487) the blank sheets
#   so unclear (up to 72 boxes) have it under 0.22, the one other such sheet over 0.25
#   (0.39) was refused already; the largest on a blank sheet, 0.29, had no box unclear
# ... and so is one with fewer sure marks than FAINT_FEW_SURE (a blank sheet's haze is
#   spared so) whose marks, its reviews' leanings included (reading.contrast, at least
#   sheet.LIGHT_MIN_MARKS of them), are under FAINT_PHOTO (a scan: FAINT_SHEET) times the
#   threshold: marked, but too lightly to read. Session 50, 1355 phone 62: pencil on a
#   dim photo, 2 marks read for sure, 73 boxes unclear, its marks at 0.90 times the
#   threshold, 26 of them read empty silently; on 3,000 harsh photos (1193-1367) the only
#   sheet read with both, the blank sheets with most boxes unclear (72, 31) too few
#   leaning marked to measure; 1,000 generated after (1373-1427): none refused so
UNREADABLE_SHARE = 0.25  # ... and any sheet with more than this, however few marks it reads
#   for sure. Session 31, fresh seed 307 phone 53: faint pencil in a hard shadow read 4
#   marks for sure and 109 of 309 boxes to review, with 8 marks read empty; no other sheet
#   read on 44 seeds' default sets has over 43


def require_legible(reading: Reading, source: str, anyway: bool = False,
                    square_on: bool = True) -> str | None:
    """Refuse a sheet that could only be read by hand, with the fix:
    - a washed-out or badly blurred photo: the print reads at under WASHED_GAIN of its
      darkness, the outlines' haze in a blank box looks like a mark, and only a mark's
      darkness tells them apart (the one such bench photo: 49 blank boxes read marked);
    - a sheet whose typical mark is under FAINT_SHEET (a photo: FAINT_PHOTO) times its
      ink threshold, and whose typical sure mark (at least FAINT_MIN_SURE of them) under
      FAINT_SURE: there, thin pencil on a dim, blurred or distant photo leaves some marks
      with no pixel above the paper's noise at all (up to a quarter of them on 300 harsh
      phone photos), so an empty box means nothing; the 279 sheets above it had 5 such
      marks, on 3 sheets under 1.35;
    - a marked sheet (FAINT_FEW_SURE marks read for sure) with over UNCLEAR_SHARE of its
      boxes to review: checking them one by one on the paper is more work than a better
      photo, and a reading that unsure errs unseen too (held out, seed 22: the two harsh
      photos with 37 and 80 boxes to review read 11 and 9 boxes wrong; no other sheet read
      of the 1386 cached, seeds 0/7/11/21/22, has over 30). Light sheets were so refused
      before; session 12 extended it to all (call this once the boxes are settled:
      scanner.order). Over UNREADABLE_SHARE unclear, any sheet is so refused, however
      few marks it reads for sure; and over UNCLEAR_SHARE (not UNREADABLE_SHARE) with
      fewer than FAINT_FEW_SURE sure marks when the marks the reviews lean to are under
      FAINT_PHOTO (FAINT_SHEET) times the threshold: a marked sheet too light to read,
      not a blank one's haze.
    - a sheet reading fewer than FAINT_FEW_SURE sure marks and over UNCLEAR_SHARE of its
      boxes unclear whose typical ink threshold is over NOISY_UNCLEAR (under NOISY_BLANK):
      its reviews are pencil marks just reaching that threshold, the rest lost under it;
    - a photo on which over FAINT_TAIL of the sure marks lie under their ink threshold
      (or FAINT_FEW_UNDER of fewer than FAINT_FEW_SURE): the lightest marks reach the noise
      there, and some show nothing (_faint_tail).
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
    sheet imaged square on (no perspective: a flatbed scan, a photocopy's speckled one
    too) is called a scan, and its fix is a scan's (washed out too, since session 62); a
    phone photo, however quiet, stays a photo. The faint limit is a scan's (FAINT_SHEET)
    only as quiet as one (SCAN_NOISE)."""
    img = "scan" if square_on else "photo"
    anyway = "(or rerun with --read-anyway and check the sheet by hand)"
    fix = (f"Go over the marks with a darker pen and scan the sheet again {anyway}." if square_on
           else "Take a sharper, brighter photo closer to the sheet, or go over the marks "
           f"with a darker pen {anyway}.")
    gain = reading.print_look[1]
    if gain < WASHED_GAIN:
        return (f"the {img} is washed out or badly blurred (the printed sheet reads at only "
                f"{gain:.0%} of its darkness, so the haze of its outlines looks like ink)",
                f"Scan the sheet again in focus, flat on the glass with the lid closed {anyway}."
                if square_on else "Take a sharp, evenly lit photo without glare, the sheet "
                f"filling the frame {anyway}.")
    sure_levels = [m.features["level"] for m in reading.marks.values() if _sure_mark(m)]
    t_inks = [m.features["t_ink"] for m in reading.marks.values() if "t_ink" in m.features]
    t_box = float(np.median(t_inks)) if t_inks else 0.0  # the typical box's ink threshold
    noisy = (f"the {img} is too dark or too noisy to see pencil marks (its noise alone sets "
             f"the ink threshold at {t_box:.0%} darker than the paper, and hardly any box "
             "is inked past it, so a blank reading would mean nothing)",
             f"Take a brighter photo in even light, with no shadow across the sheet {anyway}."
             if not square_on else fix)
    if len(sure_levels) < FAINT_MIN_SURE and t_box > NOISY_BLANK:
        return noisy
    unclear = sum(m.state == REVIEW or m.doubt == SETTLED for m in reading.marks.values())
    many_unclear = unclear > UNCLEAR_SHARE * len(reading.marks)
    # too unclear to read: a marked sheet with over UNCLEAR_SHARE of its boxes unclear, or
    # any with over UNREADABLE_SHARE (so unclear a reading tells nothing, whatever it read)
    too_unclear = many_unclear and (
        len(sure_levels) >= FAINT_FEW_SURE or unclear > UNREADABLE_SHARE * len(reading.marks))
    faint_limit = (FAINT_SHEET if square_on and reading.calibration.noise < SCAN_NOISE
                   else FAINT_PHOTO)
    # many unclear yet not too unclear: under FAINT_FEW_SURE sure marks (and UNREADABLE_SHARE)
    if many_unclear and not too_unclear and reading.contrast < faint_limit:
        return (f"the marks are too faint to read this {img} with confidence ({unclear} of "
                f"{len(reading.marks)} boxes unclear, {len(sure_levels)} marked for sure; the "
                f"typical mark is only {reading.contrast:.0%} of the ink threshold)", fix)
    if sure_levels and (len(sure_levels) >= FAINT_MIN_SURE or too_unclear):
        sure = _contrast(sure_levels, t_inks)
    else:  # a sheet hardly marked (or blank) whose unclear boxes are the photo's haze
        sure = float("inf")
    if reading.contrast < faint_limit and sure < FAINT_SURE:
        return (f"the marks are too faint to read in this {img} (the typical mark is only "
                f"{reading.contrast:.0%} of the ink threshold that the {img}'s noise and blur "
                "set, so some marks do not show at all)", fix)
    if too_unclear:
        if reading.light and sure < LIGHT_RATIO:
            return (f"the marks are too faint to read this {img} with confidence ({unclear} of "
                    f"{len(reading.marks)} boxes unclear; the typical mark is only "
                    f"{reading.contrast:.0%} of the ink threshold)", fix)
        if square_on:
            return (f"too many boxes are unclear to read this scan with confidence ({unclear} "
                    f"of {len(reading.marks)}: too light or too coarse for its marks)",
                    f"Scan the sheet again at 300 dpi or more, flat on the glass {anyway}.")
        return (f"too many boxes are unclear to read this photo with confidence ({unclear} of "
                f"{len(reading.marks)}: too blurred, too small or too far for its marks)",
                f"Take a sharper photo from straight above, the sheet filling the frame {anyway}.")
    if len(sure_levels) < FAINT_FEW_SURE and many_unclear and t_box > NOISY_UNCLEAR:
        return noisy  # (the reviews: pencil just reaching a threshold that high)
    tail = _faint_tail(reading)
    if tail > FAINT_TAIL:
        return (f"the marks are too faint to read in this {img} ({tail:.0%} of the marks read "
                f"are lighter than the ink threshold that the {img}'s noise sets, so some may "
                "not show at all)", fix)
    return None


def _faint_tail(reading: Reading) -> float:
    """On a photo (its noise over the boxes' whole insides, the reading's calibration, not
    under QUIET_NOISE: a quieter sheet reads its light marks again at its own noise), the
    share of its sure marks (at least FAINT_MIN_SURE; under FAINT_FEW_SURE when
    FAINT_FEW_UNDER of them are) whose level is under their ink threshold; 0 otherwise."""
    if reading.calibration.noise < QUIET_NOISE:
        return 0.0
    under = [m.features["level"] < m.features["t_ink"] for m in reading.marks.values()
             if _sure_mark(m) and "t_ink" in m.features]
    if len(under) >= FAINT_MIN_SURE or (len(under) < FAINT_FEW_SURE
                                        and sum(under) >= FAINT_FEW_UNDER):
        return sum(under) / len(under)
    return 0.0


def _sure_mark(m: Mark) -> bool:
    """A mark the rules read (a review the learned second look settled is still a review
    to these checks, as they were measured on the rules' reading)."""
    return m.state in (CHECKED, SLASHED) and not m.why.startswith(SETTLE_WHY)
