"""Run every benchmark in bench/ and print their figures (not a test: nothing asserts)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = ["bench_simulate.py", "bench_booklet.py", "bench_scanner.py", "bench_ticks.py"]


def main() -> int:
    failed = 0
    for name in SCRIPTS:
        path = HERE / name
        if not path.exists():
            continue
        print(f"\n### {name}", flush=True)
        rc = subprocess.call([sys.executable, str(path), *sys.argv[1:]], cwd=HERE.parent)
        failed += rc != 0
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
