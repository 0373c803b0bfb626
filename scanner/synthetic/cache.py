"""Generated cases kept on disk, shared by the benchmarks and scanner.train_audit.

    SETS                                                 the benchmark's sets
    case_dir(out, seed, edition, paper, name) -> Path    where a set's cases live
    cached_case(directory, stem) -> Path | None         a case made before, if still valid
    generate_case(job) -> (path, ms, made)              make (or find) one case

A case is its image and a JSON file beside it (truth, state, parameters); one made by an
older generator (its `format` names another VERSION) is made again.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from scanner.synthetic.case import case_seed, make_case, write_case
from scanner.synthetic.common import VERSION

# the benchmark's sets: name -> (synthetic profile, default number of cases per seed)
SETS: dict[str, tuple[str, int]] = {
    "phone": ("phone", 100),
    "phone-easy": ("phone-easy", 40),
    "corner-cut": ("corner-cut", 20),
    "scan-150": ("scan-150", 15),
    "scan-300": ("scan-300", 15),
    "scan-600": ("scan-600", 10),
    "clean": ("clean", 20),
    "short-ticks": ("short-ticks", 40),
    "short-ticks-scan": ("short-ticks-scan", 40),
    "phone-vga": ("phone-vga", 40),
    "strays": ("strays", 40),
    "strays-scan": ("strays-scan", 40),
}


def case_dir(out: Path, seed: int, edition: str, paper: str, name: str) -> Path:
    """The folder of one set's cases for one seed."""
    return out / f"synthetic-v{VERSION}-{edition}-{paper}-seed{seed}" / name


def cached_case(directory: Path, stem: str) -> Path | None:
    """The image of case `stem` in `directory`, when it is there and of this VERSION."""
    meta = directory / f"{stem}.json"
    if not meta.is_file():
        return None
    try:
        rec = json.loads(meta.read_text())
    except (OSError, ValueError):
        return None
    image = directory / f"{stem}{rec.get('ext', '')}"
    if rec.get("format") != f"starsheets/synthetic@{VERSION}" or not image.is_file():
        return None
    return image


def generate_case(job: tuple[str, str, int, int, str, str, str]) -> tuple[str, float, bool]:
    """Make (or find) one case: (set name, profile, index, seed, edition, paper, folder);
    returns its image path, generation ms, and whether it was made now."""
    name, profile, index, seed, edition, paper, directory = job
    d, stem = Path(directory), f"{index:04d}"
    found = cached_case(d, stem)
    if found is not None:
        return str(found), 0.0, False
    t0 = time.perf_counter()
    case = make_case(case_seed(seed, name, index), profile, edition, paper)
    ms = (time.perf_counter() - t0) * 1000
    return str(write_case(case, d, stem)), ms, True
