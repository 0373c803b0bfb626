"""Benchmark the career simulator: careers per second, cold (compile) and warm.

    .venv/bin/python bench/bench_simulate.py [--n 1000000] [--seed 1]

Target: 1,000,000 careers in under 60 s on this 2-core machine.
"""

from __future__ import annotations

import argparse
import time

from game.opial.simulate import run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    t0 = time.perf_counter()
    run(1000, args.seed)
    warm = time.perf_counter() - t0
    print(f"start-up (load or compile, base odds): {warm:.2f} s")
    for threads in (1, None):
        t0 = time.perf_counter()
        _, res = run(args.n, args.seed, threads=threads)
        dt = time.perf_counter() - t0
        label = "1 thread" if threads == 1 else "all cores"
        print(f"{args.n:,} careers, {label}: {dt:.2f} s ({args.n / dt:,.0f} careers/s; "
              f"{res.exec_count.sum() / dt / 1e6:.2f} M missions/s)")


if __name__ == "__main__":
    main()
