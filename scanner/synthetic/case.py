"""A case: the encoded image with its truth and every parameter (make_case), its seed
(case_seed), writing it to disk (write_case), and the command line
(`python -m scanner.synthetic PROFILE --seed S --count N -o DIR`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from game.opial.rules import load_rules, normalise_edition
from game.opial.state import CareerState
from scanner.synthetic.camera import PHOTO_SPECS, _photo
from scanner.synthetic.common import (
    KIND,
    PHOTO_PROFILES,
    PROFILES,
    SCAN_PROFILES,
    VERSION,
    Truth,
    _apply_h,
    _f,
    _pick,
)
from scanner.synthetic.flatbed import _scan
from scanner.synthetic.page import Page
from scanner.synthetic.raster import _page_raster, _raster_scale
from scanner.synthetic.truth import _plan


@dataclass(frozen=True)
class Case:
    """One synthetic photo or scan and what a perfect reader would get from it."""

    seed: int
    profile: str
    edition: str
    paper: str
    encoded: bytes  # the image file (JPEG or PNG)
    ext: str  # ".jpg" or ".png"
    state: CareerState  # the career on the sheet
    truth: Truth  # region id -> checked | slashed | empty | cancelled, name, int
    missing_markers: tuple[int, ...]  # fiducial ids out of the frame or covered
    meta: dict[str, Any]  # every parameter used (JSON-ready)

    @cached_property
    def image(self) -> np.ndarray:
        """The decoded image file, BGR uint8 (what a reader sees, compression included)."""
        img = cv2.imdecode(np.frombuffer(self.encoded, np.uint8), cv2.IMREAD_COLOR)
        if img is None:  # pragma: no cover - our own encoder's output
            raise ValueError("could not decode the generated image")
        return img

    def record(self) -> dict[str, Any]:
        """Everything but the pixels, JSON-ready (a bench's or a test's truth file)."""
        return {"format": f"starsheets/synthetic@{VERSION}", "seed": self.seed,
                "profile": self.profile, "edition": self.edition, "paper": self.paper,
                "ext": self.ext, "state": self.state.to_dict(), "truth": dict(self.truth),
                "missing_markers": list(self.missing_markers), "meta": self.meta}


def _encode(rng: np.random.Generator, img: np.ndarray, profile: str) -> tuple[bytes, str,
                                                                              dict[str, Any]]:
    if profile in PHOTO_PROFILES:
        spec = PHOTO_SPECS[profile]
        q = round(spec.jpeg[0] + (spec.jpeg[1] - spec.jpeg[0]) * rng.random() ** 0.7)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        fmt: dict[str, Any] = {"format": "jpeg", "jpeg_quality": q}
        ext = ".jpg"
    elif profile in SCAN_PROFILES and rng.random() < (0.4 if img.shape[0] < 4000 else 0.8):
        # scanners save colour at high resolution as JPEG more often than not
        q = int(rng.integers(75, 96))
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        fmt, ext = {"format": "jpeg", "jpeg_quality": q}, ".jpg"
    else:
        ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 1,
                                             cv2.IMWRITE_PNG_STRATEGY,
                                             cv2.IMWRITE_PNG_STRATEGY_RLE])
        fmt, ext = {"format": "png"}, ".png"
    if not ok:  # pragma: no cover
        raise RuntimeError("image encoding failed")
    return buf.tobytes(), ext, fmt


def make_case(seed: int, profile: str, edition: str = "later", paper: str = "letter",
              written: bool = False) -> Case:
    """One synthetic photo or scan of a filled career sheet, with its ground truth;
    `written`: its score lines written (but on a blank sheet), for the digit reader's
    training (scanner.train_digits); otherwise a third of sheets have them."""
    from sheets.render import layout

    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r} (use {', '.join(PROFILES)})")
    edition = normalise_edition(edition)
    manifest = layout(KIND, edition, paper)
    paper = manifest.paper
    rules = load_rules(edition)
    t0 = time.perf_counter()
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFFFFFF, PROFILES.index(profile)])
    state, truth, inks, style, plan_meta = _plan(rng, profile, rules, manifest, written)
    page = Page(manifest)
    missing: tuple[int, ...] = ()
    if profile in PHOTO_PROFILES:
        img, geo, missing, _, _ = _photo(rng, profile, page, edition, paper, inks, style)
    elif profile in SCAN_PROFILES:
        img, geo, _ = _scan(rng, profile, page, edition, paper, inks, style)
    else:
        dpi = int(_pick(rng, (150, 200, 300), (1, 2, 1)))
        img = _page_raster(rng, edition, paper, manifest.page_size, inks, style, dpi)
        sx, sy = _raster_scale(img, page)
        hm = np.array([[sx, 0, -0.5], [0, sy, -0.5], [0, 0, 1]])
        geo = {"size": [img.shape[1], img.shape[0]],
               "megapixels": _f(img.shape[0] * img.shape[1] / 1e6, 2), "dpi": dpi,
               "render_dpi": dpi, "homography_mm_to_px": [[float(v) for v in r] for r in hm],
               "markers": {int(fid): [[_f(v, 2) for v in p] for p in _apply_h(hm, c)]
                           for fid, c in page.marker_corners_mm().items()}}
    encoded, ext, fmt = _encode(rng, img, profile)
    meta = {"version": VERSION, "profile": profile, "edition": edition, "paper": paper,
            "code": manifest.code, **plan_meta, **geo, **fmt, "missing_markers": list(missing),
            "generate_ms": _f((time.perf_counter() - t0) * 1000, 1)}
    return Case(int(seed), profile, edition, paper, encoded, ext, state, truth, missing, meta)


def case_seed(base: int, name: str, index: int) -> int:
    """A stable seed for case `index` of the set `name` (independent of other sets)."""
    import hashlib

    digest = hashlib.sha256(f"{base}:{name}:{index}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def write_case(case: Case, directory: Path, stem: str) -> Path:
    """Write the image and `<stem>.json` (Case.record() minus timing) into `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{stem}{case.ext}"
    path.write_bytes(case.encoded)
    rec = case.record()
    rec["meta"] = {k: v for k, v in rec["meta"].items() if k != "generate_ms"}
    (directory / f"{stem}.json").write_text(json.dumps(rec, indent=1, ensure_ascii=False) + "\n")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m scanner.synthetic PROFILE [--seed N] [--count K] [-o DIR]`: write cases."""
    p = argparse.ArgumentParser(prog="python -m scanner.synthetic",
                                description="Write synthetic sheet photos/scans and their truth.")
    p.add_argument("profile", choices=PROFILES)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=1)
    p.add_argument("--edition", default="later")
    p.add_argument("--paper", default="letter", choices=("letter", "a4"))
    p.add_argument("-o", "--out", type=Path, default=Path("synthetic"))
    args = p.parse_args(argv)
    emit: Callable[[str], Any] = sys.stderr.write
    for k in range(args.count):
        case = make_case(args.seed + k, args.profile, args.edition, args.paper)
        path = write_case(case, args.out, f"{args.profile}-{args.seed + k:06d}")
        emit(f"{path}  {case.meta['size'][0]}x{case.meta['size'][1]}  "
             f"{case.meta['generate_ms']:.0f} ms\n")
    return 0
