"""Written digit cells as the reader sees them, with their truth, from synthetic cases.

    collect(seeds, cases, jobs) -> Cells     generate (or find) the cases of `seeds` with
                                             their score lines written, read each one and
                                             keep every digit cell the reader would read

The cases are the bench's sets (scanner.synthetic.cache.SETS: harsh and mild photos,
scans, clean renders, in its proportions) made with `written=True`, so every sheet but a
blank one carries score lines; they go in their own folders beside the bench's. A cell
is kept when read_digits would give it to the classifier (enough ink, not one flat
stroke): its glyph (scanner.digits.glyph) and its truth, the network's class
(scanner.digits.CHARS): a digit, a minus sign, or NOT_DIGIT (ink in a cell the player
left empty: a shadow's edge, noise, the frame's residue). Used by
scanner.train_digit_cnn (training and the held-out figures).
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from scanner import digits
from scanner.digits import CHARS

FORMAT = 2  # of the kept cells (2: minus signs kept, as their own class)
SETS = ("phone", "phone-easy", "scan-150", "scan-300", "scan-600", "clean")
EDITION, PAPER = "later", "letter"


@dataclass
class Cells:
    """Glyphs (n x SIDE_CNN x SIDE_CNN uint8, 255 = ink), labels (classes of
    scanner.digits.CHARS) and where each came from (the case's set)."""

    glyphs: np.ndarray
    labels: np.ndarray
    sets: np.ndarray

    def save(self, path: Path) -> None:
        np.savez_compressed(path, glyphs=self.glyphs, labels=self.labels, sets=self.sets)

    @classmethod
    def load(cls, path: Path) -> Cells:
        with np.load(path) as z:
            return cls(z["glyphs"], z["labels"], z["sets"])


def case_folder(cases: Path, seed: int, name: str) -> Path:
    """Where the written cases of one set and seed live (beside the bench's own)."""
    from scanner.synthetic.common import VERSION

    return cases / f"digits-v{VERSION}-{EDITION}-{PAPER}-seed{seed}" / name


def _generate(job: tuple[str, int, int, str]) -> str:
    from scanner.synthetic.cache import SETS as BENCH_SETS
    from scanner.synthetic.cache import cached_case
    from scanner.synthetic.case import case_seed, make_case, write_case

    name, index, seed, folder = job
    d, stem = Path(folder), f"{index:04d}"
    found = cached_case(d, stem)
    if found is not None:
        return str(found)
    case = make_case(case_seed(seed, name, index), BENCH_SETS[name][0], EDITION, PAPER,
                     written=True)
    return str(write_case(case, d, stem))


def _init() -> None:
    import cv2

    cv2.setNumThreads(1)


def cells_of(path: str) -> tuple[list[np.ndarray], list[int]]:
    """One case read: the glyph and truth of each digit cell the reader would classify."""
    from scanner.fields import CELL_INK, hugs_frame, is_flat
    from scanner.pipeline import scan_file
    from sheets.fill import digit_cells_text
    from starsheets.errors import StarsheetsError

    try:
        res = scan_file(path, ocr=False, keep_inputs=True)[0]
    except (StarsheetsError, OSError, ValueError):
        return [], []
    if res.error is not None or res.digit_cells is None:
        return [], []
    truth = json.loads(Path(path).with_suffix(".json").read_text())["truth"]
    cells, t_ink = res.digit_cells
    out, labels = [], []
    for rid, subs in cells.items():
        t = truth.get(rid)
        chars = digit_cells_text(int(t), len(subs)) if t not in (None, "") else [""] * len(subs)
        for sub, ch in zip(subs, chars, strict=True):
            ink = sub > t_ink
            if ink.mean() < CELL_INK or hugs_frame(ink) or is_flat(ink):
                continue
            out.append((digits.glyph(sub, t_ink) * 255).round().astype(np.uint8))
            labels.append(CHARS.index(ch))
    return out, labels


def cells_file(cases: Path, seeds: tuple[int, ...]) -> Path:
    """Where collect keeps the cells of `seeds` once read (a rerun reads them from there)."""
    from scanner.synthetic.common import VERSION

    key = zlib.crc32(",".join(map(str, seeds)).encode())
    return cases / f"digit-cells{FORMAT}-v{VERSION}-{seeds[0]}-{seeds[-1]}-{key:08x}.npz"


def collect(seeds: tuple[int, ...], cases: Path, jobs: int) -> Cells:
    """Every kept cell of the written cases of `seeds` (generated into `cases` if not
    there; the cells kept in cells_file)."""
    from scanner.synthetic.cache import SETS as BENCH_SETS

    done = cells_file(cases, seeds)
    if done.is_file():
        return Cells.load(done)

    work = [(name, i, seed, str(case_folder(cases, seed, name)))
            for seed in seeds for name in SETS for i in range(BENCH_SETS[name][1])]
    with Pool(jobs, initializer=_init) as pool:
        paths = list(pool.imap(_generate, work, chunksize=2))
        got = list(pool.imap(cells_of, paths, chunksize=2))
    glyphs = [g for gs, _ in got for g in gs]
    labels = [y for _, ys in got for y in ys]
    sets = [SETS.index(Path(p).parent.name) for p, (_, ys) in zip(paths, got, strict=True)
            for _ in ys]
    side = digits.SIDE_CNN
    out = Cells(np.array(glyphs, np.uint8).reshape(-1, side, side),
                np.array(labels, np.int64), np.array(sets, np.int64))
    out.save(done)
    return out
