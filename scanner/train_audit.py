"""Train the learned second look of scanner/marks/audit.py (writes scanner/models/audit.npz).

    python -m scanner.train_audit [--cases DIR] [--jobs J] [--out PATH] [--epochs N]

The model learns every box's truth from the synthetic bench's own cases
(scanner.synthetic): harsh phone photos of the fifty seeds the reader's rules were tuned
on (5,000) and of ten more, the milder photos and clean renders of half of those fifty,
and the flatbed scans of all fifty. Each is read by the reader itself without the model
(so it learns what the reader sees), and every box's box_inputs row is kept with its
truth: all the marked boxes and those the rules did not read empty, one in ten of the
rest (their weight is given back to the "empty" class afterwards). Cases are generated
into --cases (the benchmark's folder, bench/out, by default) when they are not there
yet, exactly as `bench/bench_scanner.py` makes them. The twenty fresh seeds' harsh photos are held out:
it prints the model's accuracy on them, how many boxes the rules read wrong outright its
doubt catches and how many read right it sends to review, at DOUBT and around it, and how
many of the rules' reviews its own reading, all but sure, would settle right and wrong.
Deterministic given the cases (fixed seeds; numpy only).
"""

from __future__ import annotations

import argparse
import json
import time
import zlib
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from scanner.marks import audit
from scanner.train_digits import train

SEED = 20261129
HIDDEN = 64
KEEP_EMPTY = 0.1  # of the boxes the rules read empty that are empty, one in ten is kept
TUNED = (0, 7, 11, 21, 22, 31, 41, 53, 61, 73, 83, 97, 101, 113, 127, 139, 149, 157, 163,
         167, 173, 179, 181, 191, 193, 197, 199, 211, 223, 227, 229, 233, 239, 241, 251, 257,
         263, 269, 271, 277, 281, 283, 293, 307, 311, 313, 317, 331, 337, 347)
LATER = (463, 467, 479, 487, 491, 499, 503, 509, 521, 523)
HELD_OUT = (349, 353, 359, 367, 373, 379, 383, 389, 397, 401, 409, 419, 421, 431, 433, 439,
            443, 449, 457, 461)
MILD = ("phone-easy", "scan-150", "scan-300", "scan-600", "clean")
SCANS = ("scan-150", "scan-300", "scan-600")
EDITION, PAPER = "later", "letter"


def _jobs(cases: Path, seeds: tuple[int, ...], names: tuple[str, ...]
          ) -> list[tuple[str, str, int, int, str, str, str]]:
    from scanner.synthetic.cache import SETS, case_dir

    return [(name, SETS[name][0], i, seed, EDITION, PAPER,
             str(case_dir(cases, seed, EDITION, PAPER, name)))
            for seed in seeds for name in names for i in range(SETS[name][1])]


def _init() -> None:
    import cv2

    cv2.setNumThreads(1)
    audit.MODEL = Path("/nonexistent/audit.npz")  # the rules' own reading, no second look


def _rows(job: tuple[str, bool]) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """One case read: its box_inputs rows, truth and the rules' states (class indices,
    -1 for review); all of them when `full`, else with most rules-empty empties left out."""
    from scanner.pipeline import scan_file
    from starsheets.errors import StarsheetsError

    path, full = job
    try:
        res = scan_file(path, ocr=False, keep_inputs=True)[0]
    except (StarsheetsError, OSError, ValueError):
        return None
    if res.error is not None or res.box_inputs is None:
        return None
    truth = json.loads(Path(path).with_suffix(".json").read_text())["truth"]
    ids, x = res.box_inputs
    rng = np.random.default_rng(zlib.crc32(path.encode()))  # (the path as --cases gives it)
    keep, y, read = [], [], []
    for k, rid in enumerate(ids):
        t, mk = truth.get(rid), res.marks.get(rid)
        if t not in audit.CLASSES or mk is None:
            continue
        if not full and t == mk.state == audit.EMPTY and rng.random() > KEEP_EMPTY:
            continue
        keep.append(k)
        y.append(audit.CLASSES.index(t))
        read.append(audit.CLASSES.index(mk.state) if mk.state in audit.CLASSES else -1)
    return x[keep], np.array(y, np.int64), np.array(read, np.int64)


def _read(paths: list[str], full: bool, jobs: int) -> tuple[np.ndarray, ...]:
    with Pool(jobs, initializer=_init) as pool:
        got = [r for r in pool.imap(_rows, [(p, full) for p in paths], chunksize=4) if r]
    return tuple(np.concatenate([r[i] for r in got]) for i in range(3))


def report(m: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray, read: np.ndarray) -> None:
    """The held-out figures: accuracy; at DOUBT and around it, the rules' outright errors
    caught and right readings sent to review."""
    p = audit.mlp_probabilities(m, x)
    print(f"held out: {len(y)} boxes, model accuracy {(p.argmax(1) == y).mean():.4%}")
    outright = read >= 0
    wrong = outright & (read != y)
    p_read = np.where(outright, p[np.arange(len(y)), np.maximum(read, 0)], 1.0)
    for doubt in sorted({0.001, 0.003, audit.DOUBT, 0.03, 0.1, 0.5}):
        sent = outright & (p_read < doubt)
        print(f"  doubt {doubt}: {int((sent & wrong).sum())} of the rules' {int(wrong.sum())} "
              f"outright errors caught; {int((sent & ~wrong).sum())} right readings sent to "
              f"review ({(sent & ~wrong).sum() / max(1, outright.sum()):.3%})")
    # the rules' reviews: how many the model alone would settle, right and wrong
    rev = ~outright
    best, top = p.argmax(1), p.max(1)
    for sure in (0.99, 0.999, 0.9999):
        settled = rev & (top >= sure)
        print(f"  of the rules' {int(rev.sum())} reviews, at {sure}: "
              f"{int((settled & (best == y)).sum())} it would settle right, "
              f"{int((settled & (best != y)).sum())} wrong")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=Path, default=Path("bench/out"))
    ap.add_argument("--out", type=Path, default=audit.MODEL)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=12)
    args = ap.parse_args(argv)
    from scanner.synthetic.cache import generate_case

    work = (_jobs(args.cases, TUNED + LATER, ("phone",))
            + _jobs(args.cases, TUNED[::2], MILD) + _jobs(args.cases, TUNED[1::2], SCANS))
    held = _jobs(args.cases, HELD_OUT, ("phone",))
    t0 = time.time()
    with Pool(args.jobs, initializer=_init) as pool:
        train_paths = [p for p, _, _ in pool.imap(generate_case, work, chunksize=1)]
        held_paths = [p for p, _, _ in pool.imap(generate_case, held, chunksize=1)]
    print(f"cases: {len(train_paths)} to learn from, {len(held_paths)} held out "
          f"({time.time() - t0:.0f} s)")
    x, y, _ = _read(train_paths, False, args.jobs)
    print(f"read: {len(y)} boxes ({np.bincount(y, minlength=len(audit.CLASSES)).tolist()} "
          f"by class), {time.time() - t0:.0f} s")
    m = train(x, y, SEED, args.epochs, classes=len(audit.CLASSES), hidden=HIDDEN)
    m["b2"][audit.CLASSES.index(audit.EMPTY)] += np.log(1 / KEEP_EMPTY)  # the empties left out
    print(f"trained: {time.time() - t0:.0f} s")
    report(m, *_read(held_paths, True, args.jobs))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, **m)
    print(f"wrote {args.out} ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
