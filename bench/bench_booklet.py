"""Booklet imposition: starsheets vs pdfimpose (saddle) on a 400-page PDF.

Run: `.venv/bin/python bench/bench_booklet.py [--pages N] [--repeat R]`. Needs the `bench`
extra (`pip install -e '.[bench]'`) for pdfimpose. Prints the best of R timings and the
output sizes; the target is starsheets at least 3x faster with an output no larger.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sheets.booklet import BookletSettings, make_booklet  # noqa: E402


def make_input(path: Path, pages: int) -> None:
    """A letter-size PDF with a few shapes and some text on every page."""
    c = canvas.Canvas(str(path), pagesize=letter)
    width, height = letter
    for n in range(1, pages + 1):
        c.setStrokeColorRGB(0.2, 0.3, 0.6)
        c.setLineWidth(3)
        c.rect(36, 36, width - 72, height - 72)
        c.setFillColorRGB(0.9, 0.6 - (n % 5) * 0.1, 0.2)
        c.circle(width / 2, height / 2 + 120, 60 + n % 40, fill=1)
        c.setFillColorRGB(0, 0, 0)
        c.setFont("Helvetica-Bold", 96)
        c.drawCentredString(width / 2, height / 2 - 60, str(n))
        c.setFont("Times-Roman", 11)
        for line in range(12):
            c.drawString(72, 200 - line * 12, f"Page {n}, line {line + 1}: the quick brown "
                                              "fox jumps over the lazy dog.")
        c.showPage()
    c.save()


def ours(src: Path, out: Path) -> None:
    make_booklet(src, out, BookletSettings(sheet="letter"))


def theirs(src: Path, out: Path) -> None:
    from pdfimpose.schema import saddle

    saddle.impose([str(src)], str(out), folds="v", last=1)


@dataclass
class Result:
    wall: float = float("inf")
    cpu: float = float("inf")
    size: int = 0


def measure(run: Callable[[Path, Path], None], src: Path, out: Path, result: Result) -> None:
    """Run once, keeping the best wall-clock and CPU times seen so far."""
    wall, cpu = time.perf_counter(), time.process_time()
    run(src, out)
    result.wall = min(result.wall, time.perf_counter() - wall)
    result.cpu = min(result.cpu, time.process_time() - cpu)
    result.size = out.stat().st_size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    try:
        import pdfimpose  # noqa: F401
    except ImportError:
        print("pdfimpose is not installed: .venv/bin/pip install pdfimpose", file=sys.stderr)
        return 4
    runners = {"starsheets": ours, "pdfimpose": theirs}
    results = {name: Result() for name in runners}
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "input.pdf"
        make_input(src, args.pages)
        for _ in range(args.repeat):  # interleaved, so both see the same machine load
            for name, run in runners.items():
                measure(run, src, Path(tmp) / f"{name}.pdf", results[name])
        size_in = src.stat().st_size
    print(f"input: {args.pages} pages, {size_in / 1024:.0f} KiB; best of {args.repeat} runs")
    for name, r in results.items():
        print(f"{name:>10}: {r.wall * 1000:6.0f} ms wall  {r.cpu * 1000:6.0f} ms CPU  "
              f"{r.size / 1024:6.0f} KiB  ({r.wall * 1000 / args.pages:.2f} ms/page)")
    ours_r, theirs_r = results["starsheets"], results["pdfimpose"]
    speedup, cpu_speedup = theirs_r.wall / ours_r.wall, theirs_r.cpu / ours_r.cpu
    ratio = ours_r.size / theirs_r.size
    print(f"speed-up: {speedup:.1f}x wall, {cpu_speedup:.1f}x CPU (target >= 3x); "
          f"size ratio: {ratio:.2f} (target <= 1)")
    return 0 if speedup >= 3 and ratio <= 1 else 1

if __name__ == "__main__":
    raise SystemExit(main())
