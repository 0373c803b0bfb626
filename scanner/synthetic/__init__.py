"""Synthetic photos and scans of filled career sheets, with their ground truth.

`make_case(seed, profile)` draws a career page as a person would fill it and photographs
or scans it, returning the encoded image, the career state, the expected value of every
mark region (`truth`, the vocabulary of `game.opial.marks`) and every parameter used
(`meta`). The same (seed, profile, edition, paper) always gives the same bytes.

    content   a random career (the simulator's honest careers, short and long), a blank
              sheet or a scrambled one (boxes checked at random); a name; sometimes the
              player's own final-score lines
    ink       `sheets.fill.plan_ink` in its `pen` or `clean` style, restyled as a blue or
              black pen, a pencil (light grey, thin, grainy) or a marker (thick);
              optional corrections (a box filled solid, then scribbled: truth `cancelled`)
              and stray marks beside boxes (truth unchanged); each mark is then kept to
              its own box (`_tidy_marks`), so the truth is never ambiguous
    render    the blank sheet rasterised once per resolution with pypdfium2; the ink
              rasterised the same way and laid on it like ink (multiplied)
    camera    `phone`: any in-plane rotation (upside down, sideways), tilt up to 35 deg,
              slight page curl, a busy table, lighting gradient, a soft shadow, colour
              cast, exposure, mild defocus or motion blur, sensor noise, sharpening,
              JPEG 50-95, 0.3 to 20 MP (mostly 8-12 MP); `phone-easy`: milder versions;
              `corner-cut`: a phone-easy photo with one corner marker out of the frame
              or under a fingertip or a note (`Case.missing_markers`); regions, the QR
              code and the other markers stay visible (the top-right marker, beside the
              QR code, can only be covered, never cut by the frame); `short-ticks`: a
              phone-easy photo whose ticks' short arms are cut to 35-65 % (_short_arms);
              `strays`: a phone-easy photo with 3-8 stray strokes that reach from outside
              a box 6-22 % of the way in (a neighbour's tick overrunning, a dash, a line
              along a row), never into a box's middle half (_grazing_strays)
    scanner   `scan` (150-600 dpi), `scan-150`, `scan-300`, `scan-600`, `short-ticks-scan`
              (150-600 dpi, the ticks of `short-ticks`), `strays-scan` (150-600 dpi, the
              strays of `strays`): a flatbed, the
              paper skewed +-2 deg, printed at 90-100% ("fit to page"), sometimes upside
              down, sometimes a photocopy (high contrast, toner specks, soft), colour or
              grey, PNG or JPEG
    clean     the page rasterised at 150, 200 or 300 dpi, nothing else (PNG)

Geometry: page coordinates are millimetres from the page's top-left corner, y down;
image coordinates follow OpenCV (the centre of the top-left pixel is (0, 0)).
`meta["markers"]` gives the four fiducials' corners in the image, in cv2.aruco's order.

The package, stage by stage: page (the career and its truth), ink (how it is drawn),
truth (one mark, one box), raster, camera, flatbed, case (make_case); common holds the
profiles and helpers they share.
"""

from scanner.synthetic.camera import PHOTO_SPECS, PhotoSpec
from scanner.synthetic.case import Case, case_seed, main, make_case, write_case
from scanner.synthetic.common import (
    KIND,
    PHOTO_PROFILES,
    PROFILES,
    SCAN_BED_MM,
    SCAN_PROFILES,
    SHORT_TICKS,
    STRAYS,
    VERSION,
    Truth,
)

__all__ = [
    "KIND",
    "PHOTO_PROFILES",
    "PHOTO_SPECS",
    "PROFILES",
    "SCAN_BED_MM",
    "SCAN_PROFILES",
    "SHORT_TICKS",
    "STRAYS",
    "VERSION",
    "Case",
    "PhotoSpec",
    "Truth",
    "case_seed",
    "main",
    "make_case",
    "write_case",
]
