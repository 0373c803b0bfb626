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

The package, stage by stage: stack (what the blank sheet gives once), registration
(where each box lies), paper (paper level, darkness, calibration), printed (the print's
look on this photo), features (every box's measures), strokes (an Executed box's
strokes), classifier (one box's state), shape (a stroke's shape in doubt), sheet
(read_marks and the reviews that need the whole sheet), legible (whether the sheet can
be read at all); state holds the types, arrays the numpy helpers they share.
"""

from scanner.marks.legible import UNCLEAR_SHARE, faint_warnings, reading_warnings, require_legible
from scanner.marks.shape import TICK_VETO
from scanner.marks.sheet import (
    OUTLINE_WHY,
    Reading,
    edge_ink,
    from_ink_in_print,
    light_mark,
    read_marks,
    unclear_ink,
)
from scanner.marks.state import (
    BLURRED_PX,
    CANCELLED,
    CHECKED,
    EMPTY,
    INK,
    REVIEW,
    SETTLED,
    SLASHED,
    Calibration,
    Mark,
    id_list,
    is_executed,
)

__all__ = [
    "BLURRED_PX",
    "CANCELLED",
    "CHECKED",
    "EMPTY",
    "INK",
    "OUTLINE_WHY",
    "REVIEW",
    "SETTLED",
    "SLASHED",
    "TICK_VETO",
    "UNCLEAR_SHARE",
    "Calibration",
    "Mark",
    "Reading",
    "edge_ink",
    "faint_warnings",
    "from_ink_in_print",
    "id_list",
    "is_executed",
    "light_mark",
    "read_marks",
    "reading_warnings",
    "require_legible",
    "unclear_ink",
]
