"""How the scanner tells a tick from a slash on an Executed (mission) box when the tick's
short arm is short: the case the synthetic bench does not draw (its ticks' short arms are
about 40 % of the box) and the one where a wrong reading costs most (a success read as a
failed mission).

    .venv/bin/python bench/bench_ticks.py [--seed 0] [--jobs 2] [--pens 1,2,3,4]

Ticks and slashes are drawn with OpenCV into the mission boxes of a blank career sheet
rendered at the scanner's working resolution (200 dpi: a 3.5 mm box is 28 px), one page
per pen (1-4 px: 0.13-0.5 mm), shade (dark to pencil grey), blur and noise. A tick's short
arm is 15-45 % of the box (in three bands), at 20-70 degrees, its vertex low on the left;
a slash runs corner to corner, slightly bent. Each page is read as a photo would be (a page
refused as too faint is counted as refused, its boxes not read). `--pens 6,8,10,12` draws
with markers instead (0.75-1.5 mm), where a tick's short arm can hide in the stroke's
width.

Prints, per short-arm band and per pen: ticks read as slashes or empty (silent errors), sent
to review, read as ticks; and the same for the slashes. Asserts nothing.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DPI = 200.0
PENS = (1, 2, 3, 4)  # px at DPI
SHADES = (30, 90, 140)  # grey level of the ink (0 black .. 255 paper)
BLURS = (0.0, 0.8, 1.5)  # px
NOISES = (0.0, 6.0)  # grey levels
ARMS = {"stub 15-22%": (0.15, 0.22), "short 22-30%": (0.22, 0.30), "long 30-45%": (0.30, 0.45)}
TICKS_PER_BAND = 10  # per page
SLASHES = 12  # per page

Point = tuple[float, float]


def tick(rng: random.Random, arm: float) -> list[Point]:
    """A tick in box fractions (y down): short arm, vertex, long arm's end."""
    vx, vy = rng.uniform(0.3, 0.45), rng.uniform(0.7, 0.85)
    a = np.deg2rad(rng.uniform(20, 70))
    start = (vx - arm * float(np.cos(a)), vy - arm * float(np.sin(a)))
    return [start, (vx, vy), (rng.uniform(0.8, 0.92), rng.uniform(0.08, 0.2))]


def slash(rng: random.Random) -> list[Point]:
    """A slash corner to corner (lower left to upper right), bent a little at its middle."""
    a = (rng.uniform(0.1, 0.25), rng.uniform(0.78, 0.9))
    b = (rng.uniform(0.75, 0.9), rng.uniform(0.1, 0.22))
    bend = rng.uniform(-0.03, 0.03)
    mid = ((a[0] + b[0]) / 2 + bend, (a[1] + b[1]) / 2 + bend)
    return [a, mid, b]


def page(args: tuple[int, int, int, float, float]
         ) -> tuple[tuple, list[tuple[str, str, bool, str]]]:
    """One page: its config and (kind, arm band or '', printed box?, state read) per box
    drawn; state
    'refused' for every box of a page refused as too faint."""
    import sheets
    from scanner.pipeline import WORKING_DPI, scan_page
    from scanner.template import blank
    from scanner.train_tickslash import draw_in_box
    from scanner.triage import PageImage
    from starsheets.errors import InputFileError

    seed, pen, shade, blur, noise = args
    assert WORKING_DPI == DPI
    rng = random.Random(f"{seed}-{pen}-{shade}-{blur}-{noise}")
    m = sheets.layout("career", "later", "letter")
    tpl = blank(m, DPI)
    img = tpl.gray.copy()
    ids = [r.id for r in m.regions if r.id.startswith("mission.") and r.kind in ("checkbox", "bubble")]
    boxes = rng.sample(ids, len(ARMS) * TICKS_PER_BAND + SLASHES)
    drawn: dict[str, tuple[str, str, bool]] = {}
    todo = [(band, "tick") for band in ARMS for _ in range(TICKS_PER_BAND)]
    todo += [("", "slash")] * SLASHES
    inset = 0.3 / 25.4 * DPI  # px: strokes kept 0.3 mm inside the outline
    for rid, (band, kind) in zip(boxes, todo, strict=True):
        pts = tick(rng, rng.uniform(*ARMS[band])) if kind == "tick" else slash(rng)
        draw_in_box(img, m.region(rid).rect, m.page_size[1], DPI, pts, shade, pen, inset)
        drawn[rid] = (kind, band, bool(m.region(rid).printed))
    g = img.astype(np.float32)
    if blur:
        g = cv2.GaussianBlur(g, (0, 0), blur)
    if noise:
        g += np.random.default_rng(rng.randrange(1 << 30)).normal(0, noise, g.shape)
    photo = np.clip(g, 0, 255).astype(np.uint8)
    try:
        r = scan_page(PageImage("bench", photo), ocr=False)
    except InputFileError:
        return args[1:], [(kind, band, pr, "refused") for kind, band, pr in drawn.values()]
    return args[1:], [(kind, band, pr, r.marks[rid].state) for rid, (kind, band, pr) in drawn.items()]


def verdict(kind: str, state: str) -> str:
    want = "checked" if kind == "tick" else "slashed"
    if state in ("review", "refused"):
        return state
    return "right" if state == want else "silent"


def table(title: str, rows: dict[str, Counter]) -> None:
    print(f"\n{title:<16} {'boxes':>6} {'silent':>7} {'review':>7} {'right':>6} {'refused':>8}"
          f" {'silent %':>9}")
    for key, c in rows.items():
        n = sum(c.values())
        read = n - c["refused"]
        print(f"{key:<16} {n:6d} {c['silent']:7d} {c['review']:7d} {c['right']:6d} "
              f"{c['refused']:8d} {100 * c['silent'] / max(read, 1):8.2f}%")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--pens", default=",".join(map(str, PENS)),
                    help="pen widths in px at 200 dpi, comma-separated (6,8,10,12: markers)")
    a = ap.parse_args()
    pens = tuple(int(p) for p in a.pens.split(","))
    configs = [(a.seed, *c) for c in itertools.product(pens, SHADES, BLURS, NOISES)]
    t0 = time.perf_counter()
    with Pool(a.jobs, initializer=cv2.setNumThreads, initargs=(1,)) as pool:
        pages = pool.map(page, configs)
    by_band: dict[str, Counter] = {f"tick, {b}": Counter() for b in ARMS}
    by_band["slash"] = Counter()
    by_pen: dict[str, Counter] = {f"ticks, {p} px": Counter() for p in pens}
    by_pen.update({f"slashes, {p} px": Counter() for p in pens})
    by_box: dict[str, Counter] = {k: Counter() for k in ("ticks, printed", "ticks, plain",
                                                          "slashes, printed", "slashes, plain")}
    for (pen, *_), boxes in pages:
        for kind, band, printed, state in boxes:
            v = verdict(kind, state)
            by_band[f"tick, {band}" if kind == "tick" else "slash"][v] += 1
            by_box[f"{'ticks' if kind == 'tick' else 'slashes'}, "
                   f"{'printed' if printed else 'plain'}"][v] += 1
            by_pen[f"{'ticks' if kind == 'tick' else 'slashes'}, {pen} px"][v] += 1
    print(f"{len(pages)} pages (pens {pens} px, shades {SHADES}, blur {BLURS} px, noise "
          f"{NOISES}), seed {a.seed}, {time.perf_counter() - t0:.0f} s")
    table("by short arm", by_band)
    table("by pen", by_pen)
    table("by box", by_box)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
