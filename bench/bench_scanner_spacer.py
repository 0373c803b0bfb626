"""How well the scanner reads Spacer forms: generated legal characters (and the samples)
filled with `fill` (pen and clean), put through a mild phone photo (as
tests/test_scanner_spacer.py does), scanned and validated.

    .venv/bin/python bench/bench_scanner_spacer.py [--n 6] [--papers half-letter,letter]

Per case: boxes and bubbles read wrong without review (silent) and sent to review;
written numbers right, sent to review, silently wrong; text lines read exactly; whether
the validator's error codes on the photo equal those on the file (as the form holds it).
Prints the totals; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from game.spacer.character import Character  # noqa: E402
from game.spacer.creation import validate_character  # noqa: E402
from game.spacer.generate import generate  # noqa: E402
from game.spacer.marks import character_to_marks, marks_to_character  # noqa: E402
from scanner.pipeline import scan_file  # noqa: E402
from scanner.spacer import combine  # noqa: E402
from sheets.render import layout  # noqa: E402
from sheets.spacer_fill import fill_character_pdf  # noqa: E402


def photo(img: np.ndarray, seed: int) -> bytes:
    """A mild phone photo: perspective, a few degrees of rotation, a light gradient,
    soft focus, noise, JPEG 85 (the same as tests/test_scanner_spacer.py)."""
    rng = np.random.default_rng(seed)
    h, w = img.shape
    H, W = int(h * 1.2), int(w * 1.25)
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    jitter = rng.uniform(-0.035, 0.035, (4, 2)) * [w, h]
    angle = np.deg2rad(rng.uniform(-4, 4))
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    dst = ((src - [w / 2, h / 2] + jitter) @ rot.T * 0.95 + [W / 2, H / 2]).astype(np.float32)
    out = cv2.warpPerspective(img, cv2.getPerspectiveTransform(src, dst), (W, H),
                              borderMode=cv2.BORDER_CONSTANT, borderValue=110)
    xs = np.linspace(0.82, 1.0, W, dtype=np.float32)[None, :]
    out = cv2.GaussianBlur(out.astype(np.float32) * (xs if rng.random() < 0.5 else xs[:, ::-1]),
                           (0, 0), 0.7)
    out += rng.normal(0, 3.0, out.shape).astype(np.float32)
    return cv2.imencode(".jpg", np.clip(out, 0, 255).astype(np.uint8),
                        [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes()


def render(pdf: bytes, dpi: int = 200) -> list[np.ndarray]:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    out = []
    for page in doc:
        arr = page.render(scale=dpi / 72, grayscale=True).to_numpy()
        out.append(np.ascontiguousarray(arr[..., 0] if arr.ndim == 3 else arr))
    doc.close()
    return out


def case(ch: Character, paper: str, style: str, seed: int, tmp: Path) -> Counter[str]:
    t0 = time.perf_counter()
    pdf = fill_character_pdf(ch, paper, style, seed)
    paths = []
    for k, img in enumerate(render(pdf), start=1):
        p = tmp / f"c{seed}-{paper}-{style}-p{k}.jpg"
        p.write_bytes(photo(img, seed * 10 + k))
        paths.append(str(p))
    t1 = time.perf_counter()
    (r,) = combine([x for p in paths for x in scan_file(p)])
    c: Counter[str] = Counter(cases=1, seconds=round(time.perf_counter() - t1))
    if r.error is not None:
        c["failed"] += 1
        return c
    truth = character_to_marks(ch, layout("spacer-character", None, paper))
    for rid, m in r.marks.items():
        got = m.likely if m.state == "review" else m.state
        marked = got in ("checked", "slashed")
        c["boxes"] += 1
        c["boxes review"] += m.state == "review"
        c["boxes silent"] += m.state != "review" and marked != (truth[rid] in ("checked",
                                                                              "slashed"))
        c["boxes likely wrong"] += marked != (truth[rid] in ("checked", "slashed"))
    for reg in r.manifest.regions:
        rid, f = reg.id, r.ocr.get(reg.id)
        value = f.get("snapped", f.get("value")) if isinstance(f, dict) else None
        if reg.kind == "digits" and truth[rid] is not None:
            c["numbers"] += 1
            c["numbers review"] += rid in r.review
            c["numbers right"] += value == truth[rid] and rid not in r.review
            c["numbers likely right"] += value == truth[rid]
        if reg.kind == "digits" and value != truth[rid] and rid not in r.review:
            c["numbers silent"] += 1
        if reg.kind == "text" and truth[rid]:
            c["lines"] += 1
            c["lines exact"] += value == truth[rid]
    on_form = marks_to_character(character_to_marks(ch))
    want = Counter(f.code for f in validate_character(on_form).findings if f.severity == "error")
    got = Counter(f["code"] for f in r.findings if f["severity"] == "error")
    c["findings same"] += want == got
    c["clean exit"] += not r.review and not got
    c["ms per page"] = round((time.perf_counter() - t1) * 500)
    _ = t0
    return c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=4, help="generated characters per paper and style")
    ap.add_argument("--papers", default="half-letter,letter")
    ap.add_argument("--styles", default="pen,clean")
    a = ap.parse_args()
    chars = [generate(100 + i) for i in range(a.n)]
    for name in ("ilse-varga.yaml", "tik-mistakes.yaml"):
        chars.append(Character.from_dict(yaml.safe_load(
            (ROOT / "samples" / "spacer" / name).read_text())))
    with tempfile.TemporaryDirectory() as tmp:
        for paper in a.papers.split(","):
            for style in a.styles.split(","):
                total: Counter[str] = Counter()
                for i, ch in enumerate(chars):
                    total += case(ch, paper, style, i + 1, Path(tmp))
                total["ms per page"] //= max(1, total["cases"])
                print(f"{paper:12s} {style:6s} " + ", ".join(f"{k} {v}" for k, v in
                                                             sorted(total.items())))
                sys.stdout.flush()


if __name__ == "__main__":
    main()
