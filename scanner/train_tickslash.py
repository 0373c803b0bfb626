"""Train the tick-or-slash model of scanner/tickslash.py (writes scanner/models/tickslash.npz).

    python -m scanner.train_tickslash [--thick | --low-res | --success] [--out PATH] [--pages N]
                                      [--jobs J]

Deterministic (fixed seeds; numpy and OpenCV only). Ticks and slashes are drawn into every
mission box of the blank career sheet (Letter and A4) at the scanner's 200 dpi: ticks with
a short arm of 10-55 % of the box at 15-80 degrees, their vertex anywhere in the lower
left, the long arm's end anywhere in the upper right, sometimes curved; slashes corner to
corner or shorter, either way round, sometimes bent or with a small hook where the pen
landed. Each page has its own pen (1-6 px), shade (near black to pencil grey), blur, noise
and JPEG quality. The page is read by the reader itself (scanner.marks.read_marks), and
each box's ink is taken as the reader gives it to the model, so the model learns what the
reader sees. Pages of other seeds are held out; their accuracy is printed, with how many
held-out slashes the reader's veto would send to review and how many ticks it would catch.
`--thick` trains the model for fat marks (scanner/models/tickslash_thick.npz) the same way,
with 1, 1.25 and 1.5 mm markers among the pens, on 1,600 pages and a wider network.
`--low-res` trains the model for sheets photographed at 40-60 px/inch
(scanner/models/tickslash_lowres.npz, read by scanner.lowres) the same way as `--thick`,
but each page is sampled down to that resolution (where its blur, noise and JPEG are
added) and back up to 200 dpi, as rectifying a 640x480 photo does, and half the successes
are crosses: at that resolution the rules cannot count a cross's strokes, so the model
tells a success (tick or cross) from a failure (slash).
`--success` trains the model that asks the same of a full-resolution box
(scanner/models/tickslash_success.npz): as `--thick`, with half the successes crosses,
ticks drawn more loosely (the vertex down to the box's bottom edge, the long arm out past
its corner) and every mark placed by hand (_placed: shifted, turned and scaled). The
other two learned ticks and slashes only, and call a fat cross anything; the reader asks
this one whether a stroke read as a tick by a little ink off its band is a success at all
(scanner.marks.shape._far_slash), whether a plain slash may be a blurred cross
(scanner.marks.shape._success_slash), whether a stroke whose shape is in doubt is a slash
(scanner.marks.shape._success_says_slash), and what a light stroke found at a quiet sheet's own
noise is (scanner.marks.sheet._light_stroke_settled).
"""

from __future__ import annotations

import argparse
import math
import random
import time
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

from scanner.tickslash import LOW_RES_MODEL, MODEL, SUCCESS_MODEL, THICK_MODEL, features
from scanner.train_digits import train

SEED = 20261122
HIDDEN = 48
PENS = (1, 2, 2, 3, 3, 4, 5, 6)  # px at 200 dpi (0.13-0.75 mm)
MARKER_PENS = (*PENS, 8, 10, 12)  # ... and a marker's 1-1.5 mm (--thick)


def _tick(rng: random.Random, loose: bool = False) -> list[tuple[float, float]]:
    """A tick; `loose`: drawn as carelessly as people do, its vertex down to the box's
    bottom edge (or on it) and its long arm running out past the top right corner."""
    arm = rng.uniform(0.1, 0.55)
    vx, vy = rng.uniform(0.25, 0.5), rng.uniform(0.6, 1.02 if loose else 0.9)
    a = math.radians(rng.uniform(15, 80))
    start = (vx - arm * math.cos(a), vy - arm * math.sin(a))
    end = ((rng.uniform(0.7, 1.08), rng.uniform(-0.1, 0.3)) if loose
           else (rng.uniform(0.7, 0.95), rng.uniform(0.05, 0.3)))
    pts = [start, (vx, vy), end]
    if rng.random() < 0.3:  # a curved long arm
        mid = ((vx + end[0]) / 2 + rng.uniform(-0.05, 0.05), (vy + end[1]) / 2 + rng.uniform(-0.05, 0.05))
        pts = [start, (vx, vy), mid, end]
    return pts


def _placed(strokes: list[list[tuple[float, float]]], rng: random.Random
            ) -> list[list[tuple[float, float]]]:
    """A mark as a hand places it: shifted up to 12 % of the box, turned up to 9 degrees and
    scaled 0.9-1.12 about the box's centre (the mark may run past the outline)."""
    dx, dy = rng.uniform(-0.12, 0.12), rng.uniform(-0.12, 0.12)
    t, k = math.radians(rng.uniform(-9, 9)), rng.uniform(0.9, 1.12)
    c, s = math.cos(t) * k, math.sin(t) * k
    return [[(0.5 + dx + c * (x - 0.5) - s * (y - 0.5), 0.5 + dy + s * (x - 0.5) + c * (y - 0.5))
             for x, y in pts] for pts in strokes]


def _slash(rng: random.Random) -> list[tuple[float, float]]:
    short = rng.random() < 0.2
    lo, hi = (0.15, 0.35) if short else (-0.05, 0.3)
    a = (rng.uniform(lo, hi), 1 - rng.uniform(lo, hi))
    b = (1 - rng.uniform(lo, hi), rng.uniform(lo, hi))
    bend = rng.uniform(-0.05, 0.05)
    pts = [a, ((a[0] + b[0]) / 2 + bend, (a[1] + b[1]) / 2 + bend), b]
    if rng.random() < 0.25:  # a small hook where the pen landed
        h = rng.uniform(0.03, 0.08)
        t = math.radians(rng.uniform(0, 360))
        pts = [(a[0] + h * math.cos(t), a[1] + h * math.sin(t)), *pts]
    if rng.random() < 0.5:
        pts = pts[::-1]
    if rng.random() < 0.15:  # a backslash
        pts = [(x, 1 - y) for x, y in pts]
    return pts


def _cross(rng: random.Random) -> list[list[tuple[float, float]]]:
    """Two bars corner to corner (or a little short of them), in either order."""
    def bar(flip: bool) -> list[tuple[float, float]]:
        a = (rng.uniform(-0.05, 0.25), rng.uniform(-0.05, 0.25))
        b = (1 - rng.uniform(-0.05, 0.25), 1 - rng.uniform(-0.05, 0.25))
        return [(x, 1 - y) for x, y in (a, b)] if flip else [a, b]
    return [bar(False), bar(True)]


def draw_in_box(img: np.ndarray, rect: tuple[float, float, float, float], page_h: float,
                dpi: float, pts: list[tuple[float, float]], shade: int, pen: int,
                inset: float) -> None:
    """Draw a polyline given in fractions of a box (x right, y down) onto a page image at
    `dpi`, the box taken `inset` px inside the region's outline (`rect`: manifest points)."""
    from scanner.template import region_px

    u0, v0, u1, v1 = region_px(rect, page_h, dpi / 72)
    u0, v0, u1, v1 = u0 + inset, v0 + inset, u1 - inset, v1 - inset
    xy = np.array([(u0 + x * (u1 - u0), v0 + y * (v1 - v0)) for x, y in pts], np.int32)
    cv2.polylines(img, [xy], False, shade, pen, cv2.LINE_AA)


LOW_RES = (40.0, 60.0)  # px/inch of the sheet in the photo (--low-res)


def page(args: tuple[int, str, tuple[int, ...], bool, bool]
         ) -> tuple[list[np.ndarray], list[int], list[bool]]:
    """One page's boxes (seed, paper, pens to choose from, low resolution, success: crosses
    among the successes, marks drawn loosely and placed by hand): (features, label 1 =
    tick or cross, whether the rules read it as a slash)."""
    import sheets
    from scanner.marks import SLASHED, read_marks
    from scanner.template import blank, blank_pages

    seed, paper, pens, low_res, success = args
    rng = random.Random(seed)
    m = sheets.layout("career", "later", paper)
    tpl = blank(m, 200.0)
    dpi = rng.choice((150.0, 200.0, 300.0, 400.0))  # printed and scanned at another size
    img = blank_pages(m, dpi)[0].copy()
    pen = rng.choice(pens) * dpi / 200
    shade = rng.choice((20, 40, 70, 100, 130, 150, 170))
    inset = rng.uniform(-0.3, 0.5) / 25.4 * dpi  # (strokes may run past the outline)
    labels: dict[str, int] = {}
    for r in m.regions:
        if not (r.id.startswith("mission.") and r.kind in ("checkbox", "bubble")):
            continue
        if rng.random() < 0.15:
            continue
        label = int(rng.random() < 0.5)
        if not label:
            strokes = [_slash(rng)]
        elif (low_res or success) and rng.random() < 0.5:  # a cross is a success too (under
            strokes = _cross(rng)  # 60 px/inch the rules cannot count its strokes)
        else:
            strokes = [_tick(rng, success)]
        if success:
            strokes = _placed(strokes, rng)
        for pts in strokes:
            draw_in_box(img, r.rect, m.page_size[1], dpi, pts, shade, max(1, round(pen)), inset)
        labels[r.id] = label
    if low_res:  # the camera's pixels: the page sampled down, then blurred and noisy there
        low = rng.uniform(*LOW_RES)
        img = cv2.resize(img, None, fx=low / dpi, fy=low / dpi, interpolation=cv2.INTER_AREA)
        dpi = low
    # back to the canvas, with what registration leaves: a little scale, turn and shift
    k = 200 / dpi * rng.uniform(0.99, 1.005)
    a = cv2.getRotationMatrix2D((0.0, 0.0), rng.uniform(-0.2, 0.2), k)
    a[:, 2] += (rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5))
    # (bilinear, as rectify's warp of a photo: warpAffine has no area interpolation)
    if low_res:  # blurred, noisy and compressed at the camera's resolution, then warped
        g = _degraded(img.astype(np.float32), rng, seed, 200 / dpi)
        photo = np.clip(cv2.warpAffine(g.astype(np.float32), a, tpl.gray.shape[::-1],
                                       flags=cv2.INTER_LINEAR, borderValue=255.0),
                        0, 255).astype(np.uint8)
    else:
        photo = _degraded(cv2.warpAffine(img.astype(np.float32), a, tpl.gray.shape[::-1],
                                         flags=cv2.INTER_LINEAR, borderValue=255.0),
                          rng, seed, 1.0)
    inks: dict[str, np.ndarray] = {}
    reading = read_marks(photo, tpl, inks)
    xs, ys, sl = [], [], []
    for rid, ink in inks.items():
        if rid in labels:
            xs.append(features(ink))
            ys.append(labels[rid])
            sl.append(reading.marks[rid].state == SLASHED or reading.marks[rid].likely == SLASHED)
    return xs, ys, sl


def _degraded(g: np.ndarray, rng: random.Random, seed: int, scale: float) -> np.ndarray:
    """A page image (float) with a camera's blur (drawn in px at 200 dpi; `scale`: 200 dpi
    px per px of the image), sensor noise and, half the time, JPEG."""
    blur = rng.choice((0.0, 0.0, 0.6, 1.0, 1.5, 2.0)) / scale
    if blur:
        g = cv2.GaussianBlur(g, (0, 0), blur)
    g += np.random.default_rng(seed).normal(0, rng.choice((0.0, 2.0, 5.0, 9.0)), g.shape)
    photo = np.clip(g, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        _ok, buf = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(50, 95)])
        photo = cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE)
    return photo


def dataset(seeds: list[int], jobs: int, pens: tuple[int, ...] = PENS, low_res: bool = False,
            success: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    with Pool(jobs, initializer=cv2.setNumThreads, initargs=(1,)) as pool:
        pages = pool.map(page, [(s, ("letter", "a4")[s % 2], pens, low_res, success)
                                for s in seeds], chunksize=4)
    x = np.array([v for p in pages for v in p[0]], np.float32)
    y = np.array([v for p in pages for v in p[1]], np.int64)
    s = np.array([v for p in pages for v in p[2]], bool)
    return x, y, s


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--thick", action="store_true",
                    help="the model for thick marks: marker widths too (THICK_MODEL)")
    ap.add_argument("--low-res", action="store_true",
                    help="the model for sheets at 40-60 px/inch (LOW_RES_MODEL)")
    ap.add_argument("--success", action="store_true",
                    help="the model telling a tick or cross from a slash (SUCCESS_MODEL)")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--pages", type=int)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    # the other models learn three more widths on four times the pages, with a wider net
    pens, out, pages, hidden, epochs = (PENS, MODEL, 400, HIDDEN, 30)
    for flag, path in ((args.thick, THICK_MODEL), (args.low_res, LOW_RES_MODEL),
                       (args.success, SUCCESS_MODEL)):
        if flag:
            pens, out, pages, hidden, epochs = MARKER_PENS, path, 1600, 96, 40
            break
    out, pages = args.out or out, args.pages or pages
    t0 = time.time()
    x, y, _ = dataset([SEED + i for i in range(pages)], args.jobs, pens, args.low_res,
                      args.success)
    xt, yt, st = dataset([SEED + 100_000 + i for i in range(pages // 4)], args.jobs, pens,
                         args.low_res, args.success)
    print(f"training on {len(y)} boxes ({int(y.sum())} ticks), {x.shape[1]} features, "
          f"held out {len(yt)}, {time.time() - t0:.0f} s")
    p = train(x, y, SEED, epochs, classes=2, hidden=hidden)
    from scanner.digits import mlp_probabilities
    from scanner.marks import TICK_VETO as VETO

    pt = mlp_probabilities(p, xt)[:, 1]
    print(f"  held-out accuracy {np.mean((pt >= 0.5) == yt):.4f} of {len(yt)}")
    for name, sel in (("all", np.ones_like(st)), ("read as slashes", st)):
        ticks, slashes = sel & (yt == 1), sel & (yt == 0)
        print(f"  {name}: ticks over {VETO} {int((pt[ticks] >= VETO).sum())} of {int(ticks.sum())}, "
              f"slashes over {VETO} {int((pt[slashes] >= VETO).sum())} of {int(slashes.sum())}")
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, **p)
    print(f"wrote {out} ({out.stat().st_size // 1024} kB) in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
