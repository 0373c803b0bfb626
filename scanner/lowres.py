"""What a sheet photographed at under 60 pixels per inch can and cannot be trusted to show.

A 640x480 photo of a whole page holds the sheet at 40-56 px/inch: a 3.5 mm box is 6-8
pixels across. Whether a box holds a mark still shows; the shape of the mark does not (a
tick and a slash are a few grey pixels either way: on the bench's 640x480 photos the
tick-or-slash model calls most ticks slashes, and the rules read 5 of about 200 slashes
as ticks). So on such a sheet the readings that rest on a mark's shape or on its faintest
ink go to review, with the reason, and the rest of the sheet is read as usual:

* an Executed box holding a mark (a tick or a cross is a success, a slash a failure),
  unless the tick-or-slash model trained for such photos (scanner.tickslash's
  LOW_RES_MODEL: its training pages are sampled down to 40-60 px/inch and back, and a
  success is drawn as a cross as often as a tick) is all but sure of it and agrees with
  the reading (over SURE_TICK, or under SURE_SLASH);
* a box read as cancelled (coloured in and scribbled over, against coloured in);
* a faint mark, a mark with little ink, or a mark whose ink keeps off the box's middle
  (the outline and the printed number's blur read as ink there: every box misread as
  marked on those photos).

And a sheet with over UNCLEAR_SHARE (8 %) of its boxes unclear is refused however few
marks it reads for sure: at full resolution a nearly blank sheet may have that many (the
haze of a blurred photo's outlines), but under 60 px/inch a pencil's marks may not show
at all, and such a sheet read 63 of its marks as empty boxes.

The player's written score digits are read but not trusted (each cell is 6-8 pixels: a
"2" read as a "7" at full confidence told a player who had counted right that they had
not): their confidence is capped under scanner.fields.OCR_TRUST, so they are reported
as read but not compared with the sheet's score.

The reader's own reviews keep their reason, but a box filled solid whose rim holds ink
is likely coloured in, not cancelled, at this resolution (the fill's own blur inks the
rim: 69 of 72 such reviews on the bench's 640x480 photos were coloured in): the likely
value is what the provisional score and the rules' findings take.

The same model is a second opinion on a photo blurred as much as such a one (the print's
blur BLURRED_PX or more, at any resolution): there a slash widens where the pen landed,
as a tick does at its vertex, and the rules may read it as a tick. An Executed box read
as a success that the model calls a failure (under BLURRED_SLASH) goes to review
(doubt_blurred_successes).

The marks' rules run after the reading's own checks, so that a photo too poor to read is
still refused for what is wrong with it, not for these boxes.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from scanner.marks import (
    BLURRED_PX,
    CANCELLED,
    CHECKED,
    REVIEW,
    SLASHED,
    UNCLEAR_SHARE,
    Mark,
    is_executed,
)
from scanner.tickslash import low_res_available, tick_probability
from starsheets.errors import InputFileError

LOW_RES_DPI = 60.0  # under this many px/inch on the sheet, the rules below apply
SURE_TICK = 0.995  # the low-resolution model's P(success) over this keeps a success ...
SURE_SLASH = 0.001  # ... and under this a slash (on the bench's photos under 60 px/inch,
#   seeds 0-31: of 1,882 successes 1,823 are over 0.995, of 326 slashes none, the highest
#   0.98-0.99; 182 slashes are under 0.001, and no success under 0.005 but two. Held out,
#   seeds 41-73 and the harsh photos of fifteen seeds: 1,415 of 1,459 and 0 of 280 over
#   0.995, 164 slashes under 0.001 and no success under 0.01)
BLURRED_SLASH = 0.05  # on a blurred photo, a success the model puts under this: review (the
#   harsh phone photos of fifteen seeds: of 14,298 ticks and crosses read right on photos
#   blurred to BLURRED_PX, 8 are under it; the one slash read as a tick there that the
#   model calls a slash, 0.025; the other, 0.98)
OFF_CENTRE = 0.25  # a mark with under this share of its ink in the box's middle ...
LITTLE_INK = 0.18  # ... or under this share of its box inked: review (on the bench's photos
#   under 60 px/inch, the empty boxes read as marked measured 0.09-0.18 and 0.06-0.15; of
#   8,192 marks read right outside Executed boxes, 130 are under either)
DIGITS_CONFIDENCE = 0.5  # the most a written digit line is trusted (under OCR_TRUST)
SHAPE_WHY = "tick or slash? too few pixels per box to tell (a bigger photo would)"
CANCELLED_WHY = "coloured in or cancelled? too few pixels per box to tell"
BLURRED_WHY = "a tick, or a slash blurred where the pen landed?"
FAINT_WHY = "a faint mark or the print's blur? too few pixels per box to tell"


def doubt_blurred_successes(marks: dict[str, Mark], blur: float,
                            inks: Mapping[str, np.ndarray]) -> list[str]:
    """On a photo whose print is blurred `blur` px (BLURRED_PX or more), send to review, in
    place, the Executed boxes read as a success that the low-resolution model calls a
    failure (under BLURRED_SLASH); the ids sent. `inks`: as for doubt_low_resolution."""
    if blur < BLURRED_PX or not low_res_available():
        return []
    sent = []
    for rid, ink in inks.items():
        m = marks[rid]
        if m.state == CHECKED and tick_probability(ink, low_res=True) < BLURRED_SLASH:
            marks[rid] = Mark(REVIEW, 0.4, CHECKED, BLURRED_WHY, m.features, m.doubt)
            sent.append(rid)
    return sent


def require_legible(marks: dict[str, Mark], dpi: float, source: str, anyway: bool = False
                    ) -> str | None:
    """Refuse a sheet under LOW_RES_DPI with over UNCLEAR_SHARE of its boxes unclear, with
    the fix (scanner.marks.require_legible refuses one only when it also holds marks read
    for sure); with `anyway`, the warning instead. Call before doubt_low_resolution."""
    unclear = sum(m.state == REVIEW for m in marks.values())
    if dpi >= LOW_RES_DPI or unclear <= UNCLEAR_SHARE * len(marks):
        return None
    what = (f"too many boxes are unclear to read this photo at {dpi:.0f} pixels per inch "
            f"({unclear} of {len(marks)}: light marks may not show at all)")
    if not anyway:
        raise InputFileError(f"{source}: {what}", "Take the photo at 2 megapixels or more, "
                             "the sheet filling the frame (or rerun with --read-anyway and "
                             "check the sheet by hand).")
    return f"read anyway, though {what}: check the whole sheet"


def doubt_low_resolution(marks: dict[str, Mark], dpi: float,
                         inks: Mapping[str, np.ndarray]) -> list[str]:
    """Send to review, in place, the readings a sheet at `dpi` px/inch cannot support
    (none when `dpi` is LOW_RES_DPI or more); the ids sent. `inks`: the Executed boxes'
    ink as scanner.marks.read_marks gives it to the tick-or-slash models."""
    if dpi >= LOW_RES_DPI:
        return []
    sent = []
    for rid, m in marks.items():
        if m.state == REVIEW:
            marks[rid] = _likelier(m)
            continue
        why = _doubt(rid, m, inks.get(rid))
        if why:
            marks[rid] = Mark(REVIEW, min(m.confidence, 0.4), m.likely, why, m.features,
                              m.doubt)
            sent.append(rid)
    return sent


def _likelier(m: Mark) -> Mark:
    """A review of the reader's with its likely value as this resolution has it."""
    likely = CHECKED if m.likely == CANCELLED else m.likely
    return Mark(m.state, m.confidence, likely, m.why, m.features, m.doubt)


def _doubt(rid: str, m: Mark, ink: np.ndarray | None) -> str:
    if m.state == CANCELLED:
        return CANCELLED_WHY
    if m.state not in (CHECKED, SLASHED):
        return ""
    if is_executed(rid):
        return "" if ink is not None and _sure_shape(m.state, ink) else SHAPE_WHY
    f = m.features
    if (m.why.startswith("faint mark") or f.get("centre", 1.0) < OFF_CENTRE
            or f.get("ink", 1.0) < LITTLE_INK):
        return FAINT_WHY
    return ""


def _sure_shape(state: str, ink: np.ndarray) -> bool:
    """Whether the low-resolution model is all but sure of the reading's success or
    failure (never when the model is missing)."""
    if not low_res_available():
        return False
    p = tick_probability(ink, low_res=True)
    return p > SURE_TICK if state == CHECKED else p < SURE_SLASH


def digits_confidence(confidence: float, dpi: float) -> float:
    """A written digit line's OCR confidence, capped at DIGITS_CONFIDENCE on a sheet
    under LOW_RES_DPI."""
    return confidence if dpi >= LOW_RES_DPI else min(confidence, DIGITS_CONFIDENCE)
