"""Mark styles swept over pens, shades, blur and noise: ticks (long, short-armed, with a
stub arm), crosses and slashes (corner to corner, short, backwards) drawn into Executed
and plain boxes of a blank sheet. Whatever is read must never be silently wrong: a tick or
cross is checked or sent to review, a slash on an Executed box is slashed or sent to
review, any mark in a plain box is checked or sent to review. (Hairlines, 1 px light
strokes blurred past the paper's noise, are left out: no reader sees them.)"""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest
from test_scanner import SLASH, _draw, page, scan

from starsheets.errors import InputFileError

SHAPES = {  # (strokes in box fractions, what it means on an Executed box)
    "tick": ([[(0.15, 0.5), (0.4, 0.85), (0.9, 0.1)]], "checked"),
    "short-armed tick": ([[(0.25, 0.55), (0.38, 0.75), (0.8, 0.15)]], "checked"),
    "long tick": ([[(0.1, 0.65), (0.3, 0.9), (0.95, 0.05)]], "checked"),
    "stub-armed tick": ([[(0.15, 0.6), (0.35, 0.8), (0.85, 0.15)]], "checked"),
    "cross": ([[(0.15, 0.15), (0.85, 0.85)], [(0.15, 0.85), (0.85, 0.15)]], "checked"),
    "slash": (SLASH, "slashed"),
    "backslash": ([[(0.1, 0.1), (0.9, 0.9)]], "slashed"),
    "short slash": ([[(0.25, 0.75), (0.75, 0.25)]], "slashed"),
}
EXECUTED = ("mission.security.1", "mission.training.2", "mission.aid.1", "mission.survey.1",
            "mission.trade.1", "mission.science.1", "mission.escort.1",
            "mission.communications.1")
PLAIN = ("tour.3.mission.1", "tour.4.mission.2", "tour.5.mission.3", "tour.6.mission.1",
         "tour.7.mission.2", "tour.8.mission.3", "tour.9.mission.1", "tour.10.mission.2")


def silent_errors(width: int, shade: int, blur: float, noise: float) -> list[str]:
    img = page(blank=True).copy()
    for (strokes, _), boxes in zip(SHAPES.values(), zip(EXECUTED, PLAIN, strict=True),
                                   strict=True):
        for rid in boxes:
            _draw(img, rid, strokes, shade, width)
    g = img.astype(np.float32)
    if blur:
        g = cv2.GaussianBlur(g, (0, 0), blur)
    if noise:
        g = g + np.random.default_rng(1).normal(0, noise, g.shape)
    r = scan(np.clip(g, 0, 255).astype(np.uint8))
    wrong = []
    for (name, (_, want)), ex, plain in zip(SHAPES.items(), EXECUTED, PLAIN, strict=True):
        if r.marks[ex].state not in ("review", want):
            wrong.append(f"{name} on {ex}: {r.marks[ex].state}")
        if r.marks[plain].state not in ("review", "checked"):
            wrong.append(f"{name} on {plain}: {r.marks[plain].state}")
    return wrong


FAST = [(2, 30, 2.5, 0.0), (4, 110, 1.5, 8.0), (7, 30, 2.5, 8.0), (1, 30, 1.5, 0.0),
        (2, 30, 0.0, 0.0)]  # (the last: a sharp clean page, where the learned second look
#   calls a backslash a tick at 0.99 and more; session 59 read it so for a while, and
#   only the slow sweep saw it)


@pytest.mark.parametrize(("width", "shade", "blur", "noise"), FAST)
def test_mark_styles_are_never_silently_wrong(width: int, shade: int, blur: float,
                                              noise: float) -> None:
    assert silent_errors(width, shade, blur, noise) == []


@pytest.mark.slow
@pytest.mark.parametrize(("width", "shade", "blur", "noise"), [
    c for c in itertools.product((2, 4, 7), (30, 110, 160), (0.0, 1.5, 2.5), (0.0, 8.0))
    if c not in FAST])
def test_mark_styles_sweep(width: int, shade: int, blur: float, noise: float) -> None:
    if (width, shade, blur, noise) in REFUSED:
        with pytest.raises(InputFileError, match=r"too faint|too many boxes are unclear"):
            silent_errors(width, shade, blur, noise)
        return
    assert silent_errors(width, shade, blur, noise) == []


# refused since session 12, not read: a third of the boxes unclear (the haze of the photo's
# blur and noise in its small boxes); on the palest, the marks under the ink threshold too
REFUSED = {(2, 110, 2.5, 8.0), (2, 160, 2.5, 8.0), (4, 160, 2.5, 8.0), (7, 160, 2.5, 8.0)}
