"""The compiled box loops (scanner.marks.compiled) against numpy references written the
plain way: the same numbers, to the bit, or to float rounding where numpy's own order of
summation is an accident of its implementation."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.marks import strokes
from scanner.marks.compiled import darkness, light_planes
from scanner.marks.features import measure
from scanner.marks.stack import Stack
from scanner.marks.strokes import ANGLE_STEP, FAR_GAP, SECOND_ANGLE


def _band_ref(pts: np.ndarray, band: float, away_from: int | None = None
              ) -> tuple[float, np.ndarray, np.ndarray, tuple[float, float], int]:
    normal = strokes._NORMALS
    a_n = normal.shape[0]
    rho = pts[:, :1] * normal[:, 0] + pts[:, 1:2] * normal[:, 1]
    bins = np.floor(rho - rho.min()).astype(np.int64)
    nb = int(bins.max()) + 1
    hist = np.bincount((np.arange(a_n)[None, :] * nb + bins).ravel(),
                       minlength=a_n * nb).reshape(a_n, nb).astype(np.float32)
    w = max(1, round(band))
    csum = np.concatenate([np.zeros((a_n, 1), np.float32), np.cumsum(hist, axis=1)], axis=1)
    win = csum[:, w:] - csum[:, :-w] if nb >= w else csum[:, -1:]
    if away_from is not None:
        diff = np.abs(np.arange(a_n) - away_from) * ANGLE_STEP
        win = np.where((np.minimum(diff, 180 - diff) >= SECOND_ANGLE)[:, None], win, -1.0)
    a, lo = np.unravel_index(int(np.argmax(win)), win.shape)
    on = (bins[:, a] >= lo) & (bins[:, a] < lo + w)
    base = float(rho.min())
    return float(max(win[a, lo], 0.0)), on, normal[a], (base + lo, base + lo + w), int(a)


def _line_fraction_ref(ys: np.ndarray, xs: np.ndarray, band: float, inside: np.ndarray
                       ) -> tuple[float, ...]:
    n = ys.size
    pts = np.stack([xs, ys], 1).astype(np.float32)
    c = pts.mean(axis=0)
    pts -= c
    first, on, normal, (lo, hi), a = _band_ref(pts, band)
    rho = pts[:, 0] * normal[0] + pts[:, 1] * normal[1]
    far = float(((rho < lo - FAR_GAP) | (rho >= hi + FAR_GAP)).sum()) / n
    rest = pts[~on]
    second = _band_ref(rest, band, a)[0] if rest.shape[0] >= 4 else float(rest.shape[0])
    along = np.array([normal[1], -normal[0]], np.float32)
    t = pts[:, 0] * along[0] + pts[:, 1] * along[1]
    # span
    iy, ix = np.nonzero(inside)
    q = np.stack([ix, iy], 1).astype(np.float32) - c
    qr = q[:, 0] * normal[0] + q[:, 1] * normal[1]
    sel = q[(qr >= lo) & (qr < hi)]
    ti = sel[:, 0] * along[0] + sel[:, 1] * along[1]
    t_on = t[on]
    if ti.size < 2 or t_on.size < 2:
        span, end_gap = 0.0, 1.0
    else:
        length = float(ti.max() - ti.min() + 1)
        gap = max(float(t_on.min() - ti.min()), float(ti.max() - t_on.max()), 0.0)
        span, end_gap = float((t_on.max() - t_on.min() + 1) / length), gap / length
    # bulge
    bulge = 1.0
    if t.size >= 8:
        step = max(2.0, band / 2)
        b = np.floor((t - t.min()) / step).astype(np.int64)
        lo_b = np.full(int(b.max()) + 1, np.inf, np.float32)
        hi_b = np.full(int(b.max()) + 1, -np.inf, np.float32)
        np.minimum.at(lo_b, b, rho)
        np.maximum.at(hi_b, b, rho)
        ext = (hi_b - lo_b + 1)[np.isfinite(lo_b)]
        if ext.size >= 3:
            srt = np.sort(ext)
            med = (srt[(ext.size - 1) // 2] + srt[ext.size // 2]) / 2
            bulge = float(ext.max() / max(med, 1.0))
    return first / n, second / n, far, span, end_gap, bulge


@st.composite
def ink(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """A tick, a slash or a cross (with specks, sometimes) in a box's inside."""
    inside = np.zeros((45, 46), bool)
    inside[8:37, 8:38] = True
    m = np.zeros((45, 46), np.uint8)
    width = draw(st.integers(1, 8))
    x0, y0, x1, y1 = (draw(st.integers(8, 20)), draw(st.integers(8, 20)),
                      draw(st.integers(25, 38)), draw(st.integers(25, 38)))
    cv2.line(m, (x0, y1), (x1, y0), 1, width)
    strokes_n = draw(st.integers(1, 3))
    if strokes_n >= 2:
        cv2.line(m, (x0, y0), (draw(st.integers(10, 30)), draw(st.integers(20, 36))), 1, width)
    if strokes_n == 3:
        rng = np.random.default_rng(draw(st.integers(0, 1000)))
        m |= (rng.random(m.shape) < 0.03).astype(np.uint8)
    ys, xs = np.nonzero(m.astype(bool) & inside)
    return ys, xs, max(6.0, 1.2 * draw(st.floats(1.0, 8.0)) + 2.0), inside


@given(ink())
@settings(max_examples=150, deadline=None)
def test_line_fraction_is_the_plain_numpy_measure(case: tuple) -> None:
    ys, xs, band, inside = case
    got = strokes.line_fraction(ys, xs, band, inside)
    want = _line_fraction_ref(ys, xs, band, inside)
    assert (got.first, got.second, got.far, got.span, got.end_gap, got.bulge) == want


@given(ink())
@settings(max_examples=60, deadline=None)
def test_the_best_band_is_the_plain_numpy_band(case: tuple) -> None:
    ys, xs, band, _ = case
    pts = np.stack([xs, ys], 1).astype(np.float32)
    pts -= pts.mean(axis=0)
    for away in (None, 7):
        count, normal, edges, a = strokes._band(pts, band, away)
        want = _band_ref(pts, band, away)
        assert (count, a, edges) == (want[0], want[4], want[3])
        assert np.array_equal(normal, want[2])


def _planes_ref(ring: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    med = np.median(ring, axis=1, keepdims=True)
    w = (ring >= med).astype(np.float64)
    sums = [w.sum(1), (w * xs).sum(1), (w * ys).sum(1), (w * xs * xs).sum(1),
            (w * xs * ys).sum(1), (w * ys * ys).sum(1), (w * ring).sum(1),
            (w * xs * ring).sum(1), (w * ys * ring).sum(1)]
    sw, sx, sy, sxx, sxy, syy, sv, sxv, syv = sums
    m = np.stack([np.stack([sw, sx, sy], -1), np.stack([sx, sxx, sxy], -1),
                  np.stack([sy, sxy, syy], -1)], -2) + np.eye(3) * 1e-6
    return np.linalg.solve(m, np.stack([sv, sxv, syv], -1)[..., None])[..., 0]


@given(st.integers(0, 10_000), st.floats(-2.0, 2.0), st.floats(-2.0, 2.0))
@settings(max_examples=40, deadline=None)
def test_light_planes_are_least_squares_through_the_rings_paper(seed: int, bx: float,
                                                                by: float) -> None:
    rng = np.random.default_rng(seed)
    n, r = 5, 300
    xs = rng.uniform(0, 45, (n, r))
    ys = rng.uniform(0, 45, (n, r))
    # Paper noise small beside the light's span: fitting only the brighter half flattens
    # the slope when the noise is comparable (sd 3 gave 0.40 for 0.5), by < 0.06 at sd 1
    # over 3,000 random draws.
    ring = (200 + bx * xs + by * ys + rng.normal(0, 1, (n, r))).astype(np.float32)
    ring[:, :60] -= 120  # print in the ring: under the median, left out
    med = np.median(ring, axis=1)
    got = light_planes(ring, med.astype(np.float32), xs, ys)
    assert np.allclose(got, _planes_ref(ring, xs, ys), rtol=1e-7, atol=1e-7)
    assert np.allclose(got[:, 1:], [bx, by], atol=0.15)  # (the light's own slope)


def _darkness_ref(obs: np.ndarray, paper: np.ndarray, slope: np.ndarray) -> np.ndarray:
    d = np.clip(1.0 - obs / (paper[:, None, None] * slope), -1.0, 1.0)
    p = np.pad(d, ((0, 0), (1, 1), (1, 1)), mode="edge")
    out = np.zeros_like(d)
    rows, cols = d.shape[1:]
    for dy in range(3):
        for dx in range(3):
            out += p[:, dy:dy + rows, dx:dx + cols]
    return out / 9.0


@given(st.integers(0, 10_000))
@settings(max_examples=20, deadline=None)
def test_darkness_is_numpys_to_the_bit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    obs = rng.uniform(0, 255, (6, 45, 46)).astype(np.float32)
    obs[0] = 255.0  # (paper only; darker than the paper is clipped at -1)
    obs[1, :, :5] = 600.0
    paper = rng.uniform(120, 250, 6).astype(np.float32)
    slope = rng.uniform(0.8, 1.2, (6, 45, 46)).astype(np.float32)
    assert np.array_equal(darkness(obs, paper, slope), _darkness_ref(obs, paper, slope))


def _measure_ref(d: np.ndarray, stack: Stack, t_ink: np.ndarray, t_faint: np.ndarray,
                 over: np.ndarray, t_print: float) -> dict[str, np.ndarray]:
    inside, text, near, centre_m = stack.inside, stack.text, stack.near, stack.centre
    n = np.maximum(stack.n_inside, 1).astype(np.float64)
    zone_b, zone_a = near | text, inside & ~near
    ti, tf = t_ink[:, None, None], t_faint[:, None, None]
    t_bi, t_bf = np.maximum(ti, t_print), np.maximum(tf, t_print)
    d_ink, o_ink, d_faint, o_faint = d > ti, over > t_bi, d > tf, over > t_bf
    fill = (d_ink & inside).sum(axis=(1, 2)) / n
    n_ink = ((d_ink & zone_a).sum(axis=(1, 2))
             + (o_ink & zone_b).sum(axis=(1, 2))).astype(np.float64)
    faint_a, faint_b = d_faint & zone_a, o_faint & zone_b
    n_faint = np.maximum((faint_a.sum(axis=(1, 2)) + faint_b.sum(axis=(1, 2))).astype(
        np.float64), n_ink)
    c_hit = (faint_a & centre_m).sum(axis=(1, 2)) + (o_faint & centre_m & near).sum(axis=(1, 2))
    centre = np.where(stack.n_centre >= np.maximum(12, 0.1 * n),
                      c_hit / np.maximum(stack.n_centre, 1), 0.0)
    n_dark = (o_faint & text).sum(axis=(1, 2)).astype(np.float64)
    centre = np.where(stack.n_text > 0, np.maximum(centre, n_dark / np.maximum(stack.n_text, 1)),
                      centre)
    n_all = n + stack.n_text
    fp = faint_a | faint_b
    m = fp.sum(axis=(1, 2))
    level = np.zeros(len(m), np.result_type(over, d))
    some = np.flatnonzero(m >= 3)
    if some.size:
        vals = np.where(fp[some], np.where(zone_b[some], over[some], d[some]), -np.inf)
        srt = -np.sort(-vals.reshape(some.size, -1), axis=1)
        rank = np.clip(np.floor(0.25 * (m[some] - 1)).astype(int), 0, srt.shape[1] - 1)
        level[some] = srt[np.arange(some.size), rank]
    return {"n": n_all, "ink": n_ink / n_all, "faint": n_faint / n_all, "centre": centre,
            "level": level, "fill": fill, "n_inside": stack.n_inside.astype(np.float64)}


@given(st.integers(0, 10_000), st.floats(0.0, 0.5))
@settings(max_examples=10, deadline=None)
def test_box_measures_are_numpys_to_the_bit(seed: int, marked: float) -> None:
    from scanner.marks.stack import _prepared
    from scanner.template import blank
    from sheets.render import layout

    _, stack = _prepared(blank(layout("career", "later", "letter"), 200.0))
    rng = np.random.default_rng(seed)
    n, (p, q) = len(stack.ids), stack.size
    d = (rng.normal(0.0, 0.03, (n, p, q))
         + (rng.random((n, 1, 1)) < marked) * rng.uniform(0, 0.6, (n, p, q))).astype(np.float32)
    over = (d - rng.uniform(0, 0.2, (n, p, q))).astype(np.float32)
    t_ink = rng.uniform(0.08, 0.2, n).astype(np.float32)
    t_faint = (t_ink * 0.6).astype(np.float32)
    got = measure(d, stack, t_ink, t_faint, over, 0.11)
    want = _measure_ref(d, stack, t_ink, t_faint, over, 0.11)
    assert got.keys() == want.keys()
    for key in want:
        assert got[key].dtype == want[key].dtype and np.array_equal(got[key], want[key]), key
