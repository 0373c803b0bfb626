"""Make the sample photos in samples/photos/ and their expected JSON (the truth, and what
the scanner reads now). Run from the repository root:

    .venv/bin/python samples/make_photos.py            # all of them
    .venv/bin/python samples/make_photos.py miscount   # one
    .venv/bin/python samples/make_photos.py --reread vga   # only read_now, photo kept

Each photo is a synthetic case (scanner.synthetic: a career from the simulator, filled in
by hand, through a simulated camera or scanner), scaled down with INTER_AREA and saved as
a JPEG to keep the repository lean. The same recipe and the same generator version give
the same file. `read_now` records the scanner's reading (the boxes it sends to review and
the score), which tests/test_scanner.py checks along with the truth.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "samples" / "photos"


@dataclass(frozen=True)
class Recipe:
    name: str
    seed: int
    profile: str
    megapixels: float
    quality: int | None = 85  # None: the camera's own JPEG, when it needs no scaling
    edition: str = "later"
    paper: str = "letter"


RECIPES = (
    # a finished career, Commander Vex, whose Missions line is miscounted (33 for 34): the demo's
    Recipe("miscount", 104, "phone-easy", 3.0),
    Recipe("phone", 204, "phone-easy", 2.4),  # a finished career (Champion), lines agreeing
    Recipe("scan", 300, "scan-300", 2.4),  # a 300 dpi scan, the name Sam written on it
    Recipe("blank", 428, "phone-easy", 2.4),  # a blank page beside other papers
    Recipe("vga", 619, "phone-vga", 0.31, None),  # a 640x480 photo of a career (pen), as taken
    # the earlier edition's page on A4, a finished career in pen (Emperor)
    Recipe("a4-earlier", 514, "phone-easy", 2.4, edition="earlier", paper="a4"),
)


def _scaled_jpeg(encoded: bytes, megapixels: float, quality: int | None) -> bytes:
    img = cv2.imdecode(np.frombuffer(encoded, np.uint8), cv2.IMREAD_COLOR)
    s = (megapixels * 1e6 / (img.shape[0] * img.shape[1])) ** 0.5
    if quality is None:
        if s < 1 or not encoded.startswith(b"\xff\xd8"):
            raise ValueError("only a JPEG that needs no scaling is kept as it is")
        return encoded
    if s < 1:
        img = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()


def make(r: Recipe) -> dict[str, object]:
    """Write samples/photos/<name>.jpg and .expected.json; return the expected record."""
    from scanner.synthetic import VERSION, make_case

    case = make_case(r.seed, r.profile, r.edition, r.paper)
    photo = OUT / f"{r.name}.jpg"
    photo.write_bytes(_scaled_jpeg(case.encoded, r.megapixels, r.quality))
    boxes = {rid: v for rid, v in case.truth.items() if isinstance(v, str) and rid != "name"}
    record: dict[str, object] = {
        "source": f"samples/photos/{photo.name}",
        "code": case.meta["code"],
        "generator": {"module": "scanner.synthetic", "version": VERSION, "seed": r.seed,
                      "profile": r.profile, "edition": r.edition, "paper": r.paper,
                      "downscaled_to_mp": r.megapixels,
                      "jpeg_quality": r.quality},
        "state": case.state.to_dict(),
        "marks": boxes,
        "read_now": _read_now(photo),
    }
    (OUT / f"{r.name}.expected.json").write_text(json.dumps(record, indent=2,
                                                           ensure_ascii=False) + "\n")
    return record


def _read_now(photo: Path) -> dict[str, object]:
    """What the scanner reads now of a sample photo: the boxes it sends to review, the score."""
    from scanner.pipeline import scan_file

    read = scan_file(photo)[0]
    if read.error is not None or read.score is None:
        raise RuntimeError(f"{photo}: {read.error}")
    return {"review": list(read.review), "score": read.score.total}


def reread(r: Recipe) -> dict[str, object]:
    """Record again only what the scanner reads now of samples/<name>.jpg as it is (the
    generator's floating point differs a little between CPUs, so making the photo again
    on another machine can change its marks)."""
    path = OUT / f"{r.name}.expected.json"
    record: dict[str, object] = json.loads(path.read_text())
    record["read_now"] = _read_now(OUT / f"{r.name}.jpg")
    path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    return record


def main(names: list[str]) -> None:
    again = "--reread" in names
    names = [n for n in names if n != "--reread"]
    chosen = [r for r in RECIPES if not names or r.name in names]
    if names and len(chosen) != len(names):
        sys.exit(f"unknown sample (use {', '.join(r.name for r in RECIPES)})")
    for r in chosen:
        rec = reread(r) if again else make(r)
        read_now = rec["read_now"]
        size = (OUT / f"{r.name}.jpg").stat().st_size
        print(f"{r.name}.jpg: {size // 1024} KB, read now: {read_now}")


if __name__ == "__main__":
    main(sys.argv[1:])
