"""The coarse-to-fine template search (scanner.marks.ncc) against OpenCV's exhaustive
matchTemplate: the same place and score wherever the match is a clear one."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import sheets
from scanner.marks import ncc, registration
from scanner.template import Template


def _exhaustive(img: np.ndarray, tmpl: np.ndarray, u: int, v: int, r: int,
                mask: np.ndarray | None = None) -> tuple[int, int, float, np.ndarray]:
    h, w = tmpl.shape
    res = cv2.matchTemplate(img[v - r:v + h + r, u - r:u + w + r], tmpl, cv2.TM_CCOEFF_NORMED,
                            mask=None if mask is None else mask.astype(np.uint8))
    _, best, _, (x, y) = cv2.minMaxLoc(res)
    return x - r, y - r, float(best), res


def _box_page(rng: np.random.Generator, blur: float, noise: float) -> tuple[np.ndarray, ...]:
    """A page of printed boxes (a grid of outlines with some text strokes) and one box's
    blank patch, as the sheet's template and photo give them."""
    page = np.full((260, 260), 245.0, np.float32)
    for y in range(20, 240, 44):
        for x in range(20, 240, 44):
            cv2.rectangle(page, (x, y), (x + 30, y + 30), 40.0, 2)
            if rng.random() < 0.5:
                cv2.line(page, (x + 8, y + 22), (x + 20, y + 10), 90.0, 1)
    tmpl = cv2.GaussianBlur(page, (0, 0), 0.8)[102:150, 102:150].copy()
    photo = cv2.GaussianBlur(page, (0, 0), blur) + rng.normal(0, noise, page.shape)
    return tmpl, photo.astype(np.float32)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), dx=st.integers(-5, 5), dy=st.integers(-5, 5),
       blur=st.floats(0.6, 2.5), noise=st.floats(0.0, 12.0), r=st.sampled_from([2, 3, 5]))
def test_a_printed_box_is_found_where_an_exhaustive_search_finds_it(
        seed: int, dx: int, dy: int, blur: float, noise: float, r: int) -> None:
    rng = np.random.default_rng(seed)
    tmpl, photo = _box_page(rng, blur, noise)
    dx, dy = min(r, max(-r, dx)), min(r, max(-r, dy))  # (within reach; often at its edge)
    photo = np.roll(photo, (dy, dx), axis=(0, 1))
    u, v = 102, 102
    pt = ncc.Patches.of([tmpl], [None])
    du, dv, score = ncc.search(photo, ncc.halved(photo), pt, np.array([0]),
                                     np.array([u]), np.array([v]), r)[0]
    x, y, best, _ = _exhaustive(photo, tmpl, u, v, r)
    assert best >= registration.SURE  # a printed box matches clearly...
    assert (du, dv) == (x, y)  # ... and is found where the whole window's best is
    assert abs(score - best) < 1e-4


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), dx=st.integers(-3, 3), dy=st.integers(-3, 3))
def test_a_masked_score_is_opencvs_masked_score(seed: int, dx: int, dy: int) -> None:
    """Scored over a mask (a box's outline, its inside left out), a place scores what
    OpenCV's masked TM_CCOEFF_NORMED gives it."""
    rng = np.random.default_rng(seed)
    tmpl, photo = _box_page(rng, 1.2, 4.0)
    mask = np.ones(tmpl.shape, bool)
    mask[14:34, 14:34] = False
    u, v = 102 + dx, 102 + dy
    pt = ncc.Patches.of([tmpl], [mask])
    score = ncc.search(photo, ncc.halved(photo), pt, np.array([0]), np.array([u]),
                       np.array([v]), 0)[0, 2]
    assert abs(score - _exhaustive(photo, tmpl, u, v, 0, mask)[2]) < 1e-4


def test_a_window_off_the_image_scores_nothing() -> None:
    tmpl = np.zeros((20, 20), np.float32)
    tmpl[5:15, 5:15] = 200.0
    img = np.zeros((50, 50), np.float32)
    out = ncc.search(img, ncc.halved(img), ncc.Patches.of([tmpl], [None]), np.array([0]),
                     np.array([2]), np.array([10]), 5)
    assert out[0].tolist() == [0.0, 0.0, 0.0]


def test_every_box_of_a_sheet_is_placed_as_an_exhaustive_search_places_it() -> None:
    """On a whole career page, blurred, noisy and moved, every region that matches well
    (the reader takes a place from 0.5) is placed where OpenCV's exhaustive search
    places it, at its score; the weaker ones are searched exhaustively by `align`."""
    from scanner.template import blank

    tpl = blank(sheets.layout("career", "later", "letter"), 200.0)
    rng = np.random.default_rng(7)
    img = cv2.GaussianBlur(tpl.gray_f, (0, 0), 1.4) + rng.normal(0, 6, tpl.gray_f.shape)
    h, w = img.shape
    img = cv2.warpAffine(img.astype(np.float32), np.float32([[1, 0, 2.4], [0, 1, -3.2]]),
                         (w, h), borderMode=cv2.BORDER_REPLICATE)
    pad = 16
    big = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    n = len(tpl.regions)
    corner = np.array([g.patch[:2] for g in tpl.regions]) + pad
    pt = ncc.Patches.of([tpl.gray_f[g.patch[1]:g.patch[3], g.patch[0]:g.patch[2]]
                         for g in tpl.regions], [None] * n)
    found = ncc.search(big, ncc.halved(big), pt, np.arange(n), corner[:, 0], corner[:, 1],
                       registration.FIRST_PX)
    clear = 0
    for k, g in enumerate(tpl.regions):
        tmpl = tpl.gray_f[g.patch[1]:g.patch[3], g.patch[0]:g.patch[2]]
        x, y, best, _ = _exhaustive(big, tmpl, corner[k, 0], corner[k, 1],
                                    registration.FIRST_PX)
        if best >= registration.SURE:
            clear += 1
            assert (found[k, 0], found[k, 1]) == (x, y), g.region.id
            assert abs(found[k, 2] - best) < 1e-4, g.region.id
    assert clear > 0.9 * n
    assert np.median(found[:, 0]) == 2 and np.median(found[:, 1]) == -3


def _exhaustive_align(big: np.ndarray, tpl: Template, pad: int, r: int
                      ) -> tuple[np.ndarray, np.ndarray, int]:
    """The first search as it was before the coarse-to-fine one: every region's window
    matched by OpenCV, and one matching under OUTLINE_TRY again on its outline."""
    shifts, scores, outlined = [], [], 0
    for g in tpl.regions:
        pu0, pv0, pu1, pv1 = g.patch
        t = tpl.gray_f[pv0:pv1, pu0:pu1]
        du, dv, sc = registration._match(big, t, pu0 + pad, pv0 + pad, r)
        if sc < registration.OUTLINE_TRY:
            du2, dv2, sc2 = registration._match(big, t, pu0 + pad, pv0 + pad, r,
                                                (~g.inner).astype(np.uint8))
            if sc2 >= registration.OUTLINE_OK:
                du, dv, sc = du2, dv2, sc2
                outlined += 1
        shifts.append((du, dv) if sc >= 0.5 else (0, 0))
        scores.append(sc)
    return np.array(shifts), np.array(scores), outlined


def test_align_places_every_region_as_the_exhaustive_search_did() -> None:
    """A whole page, moved, blurred and noisy, with a block of boxes coloured in: align's
    first search gives every region (boxes, bubbles, the written fields) the place and
    the score that OpenCV's exhaustive search and outline match gave it."""
    from scanner.template import blank

    tpl = blank(sheets.layout("career", "later", "letter"), 200.0)
    rng = np.random.default_rng(11)
    img = cv2.GaussianBlur(tpl.gray_f, (0, 0), 1.2)
    for g in tpl.regions:
        if g.region.id.startswith(tuple(f"tour.{n}." for n in range(1, 7))):
            pu0, pv0, pu1, pv1 = g.patch
            img[pv0:pv1, pu0:pu1][g.inner] = 40.0
    img = img + rng.normal(0, 5, img.shape)
    h, w = img.shape
    img = cv2.warpAffine(img.astype(np.float32), np.float32([[1, 0, -1.6], [0, 1, 2.7]]),
                         (w, h), borderMode=cv2.BORDER_REPLICATE)
    pad = 16
    big = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    got = registration.align(big, tpl, None, pad, registration.FIRST_PX, outline=True)
    shifts, scores, outlined = _exhaustive_align(big, tpl, pad, registration.FIRST_PX)
    assert outlined >= 20  # the block coloured in is placed by its outlines
    assert np.array_equal(got.shifts, shifts)
    assert np.abs(got.scores - scores).max() < 1e-4
    assert np.median(shifts[:, 0]) == -2 and np.median(shifts[:, 1]) == 3
