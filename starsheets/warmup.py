"""Compile the numba code once per machine, at install time.

The career engine (game.opial.engine) and the scanner's innermost box loops
(scanner.marks.compiled) are compiled on first use and cached beside the code: ~20 s
each that would otherwise land on a user's first simulation and first scan. `make venv`
runs `python -m starsheets.warmup`: it plays a few careers and reads the shipped sample
phone photo (every stage a real photo takes), and discards both.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "photos" / "miscount.jpg"


def warm_engine() -> float:
    """Play a few careers, one of them narrated; the seconds it took."""
    from game.opial.simulate import play_one, run

    t0 = time.perf_counter()
    run(64, seed=0)
    play_one(seed=0)
    return time.perf_counter() - t0


def warm_scanner(photo: Path = SAMPLE) -> float:
    """Read `photo` once, OCR off; the seconds it took. Raises if the photo is not read:
    a scanner that cannot read its own sample should fail the install, not a user's scan."""
    from scanner.pipeline import scan_file

    t0 = time.perf_counter()
    (res,) = scan_file(str(photo), ocr=False)
    if res.error is not None:
        raise RuntimeError(f"warm-up read of {photo} failed: {res.error.one_line()}")
    return time.perf_counter() - t0


def main() -> int:
    print("compiling the career engine and the scanner's box readers (once per machine)...",
          file=sys.stderr)
    took = warm_engine()
    if SAMPLE.exists():
        took += warm_scanner()
    else:  # installed without the repository's samples: the first scan compiles instead
        print("no sample photo here: the first scan compiles the box readers", file=sys.stderr)
    print(f"compiled in {took:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
