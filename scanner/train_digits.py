"""Train the handwritten-digit classifier of scanner/digits.py (writes scanner/models/digits.npz).

    python -m scanner.train_digits [--out PATH] [--quick]
    python -m scanner.train_digits --extract-uci    (re-make uci_digits.npz; needs the
                                                     `train` extra: scikit-learn)

Deterministic (fixed seeds; numpy and OpenCV only, no network). Training data:

- real handwriting: the UCI "Optical Recognition of Handwritten Digits" set as bundled
  with scikit-learn (`sklearn.datasets.load_digits`: 1797 digits of 13 writers, NIST
  forms, 8x8 counts of a 32x32 bitmap; E. Alpaydin, C. Kaynak, CC BY 4.0), stored in
  scanner/models/uci_digits.npz so that training needs no scikit-learn. The first 80 %
  train, the last 20 % are held out (the set is in writer order, so this is close to
  unseen writers);
- our pen hand (`sheets.fill.digit_strokes`, 'pen' and 'clean') drawn at many sizes and
  widths; other seeds are held out;
- the Vera fonts shipped with reportlab (regular, bold, italic, bold italic).

Every glyph is augmented (slant, rotation, width/height, stroke width, blur, size, the
threshold of binarisation, a stray speck) and binarised at the size a digit has on a
200 dpi canvas, as the scanner sees it. The model is a one-hidden-layer network trained
with Adam; the held-out accuracies are printed, real handwriting apart from synthetic.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import cv2
import numpy as np

from scanner.digits import MODEL, features

UCI = Path(__file__).parent / "models" / "uci_digits.npz"
HIDDEN = 96
SEED = 20240611
UCI_TRAIN = 0.8


def extract_uci() -> None:
    """Store scikit-learn's copy of the UCI digits compactly (uint8 0..16, labels)."""
    from sklearn.datasets import load_digits

    d = load_digits()
    np.savez_compressed(UCI, images=d.images.astype(np.uint8), labels=d.target.astype(np.uint8))


def _uci() -> tuple[np.ndarray, np.ndarray]:
    """The UCI digits as 32x32 float images (1 = ink) and their labels."""
    with np.load(UCI) as z:
        imgs, labels = z["images"].astype(np.float32) / 16.0, z["labels"].astype(np.int64)
    big = np.stack([cv2.resize(np.pad(i, 1), (40, 40), interpolation=cv2.INTER_CUBIC)
                    for i in imgs])
    return np.clip(big, 0, 1), labels


def _pen(digit: int, style: str, rng: random.Random) -> np.ndarray:
    """One digit in our pen hand (sheets.fill.digit_strokes) drawn at 12 px a point."""
    from sheets.fill import digit_strokes

    s = 12.0
    cw, ch = 14.0 * rng.uniform(0.8, 1.3), 18.0
    img = np.zeros((round(ch * s), round(cw * s)), np.uint8)
    for st in digit_strokes([str(digit)], [(0.0, 0.0, cw, ch)], style, rng):
        pts = np.array([(x * s, (ch - y) * s) for x, y in st.points], np.float32)
        width = max(1, round(st.width * s * rng.uniform(0.6, 1.6)))
        cv2.polylines(img, [np.round(pts * 4).astype(np.int32)], False, 255, width,
                      cv2.LINE_AA, shift=2)
    return img.astype(np.float32) / 255.0


def _fonts() -> list[Path]:
    import reportlab

    base = Path(reportlab.__file__).parent / "fonts"
    return [base / f for f in ("Vera.ttf", "VeraBd.ttf", "VeraIt.ttf", "VeraBI.ttf")]


def _font_glyph(digit: int, font: Path) -> np.ndarray:
    from PIL import Image, ImageDraw, ImageFont

    f = ImageFont.truetype(str(font), 96)
    im = Image.new("L", (120, 140), 0)
    ImageDraw.Draw(im).text((10, 5), str(digit), fill=255, font=f)
    return np.asarray(im, np.float32) / 255.0


def augment(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A glyph (float, 1 = ink, any size) slanted, rotated, stretched, thickened or
    thinned, blurred, scaled to a cell's size and binarised: a bool ink mask."""
    ys, xs = np.nonzero(img > 0.3)
    img = img[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    h = img.shape[0]
    pad = h // 2 + 2
    img = np.pad(img, pad)
    c = np.array([img.shape[1] / 2, img.shape[0] / 2])
    ang = np.radians(rng.normal(0, 6))
    shear = rng.uniform(-0.35, 0.25)
    sx = rng.uniform(0.75, 1.25)
    rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
    a = rot @ np.array([[sx, shear], [0.0, 1.0]])
    m = np.hstack([a, (c - a @ c)[:, None]]).astype(np.float32)
    img = cv2.warpAffine(img, m, (img.shape[1], img.shape[0]), flags=cv2.INTER_LINEAR)
    # the stroke width: thicker or thinner at the source's resolution
    k = max(1, round(h / 16))
    r = rng.uniform()
    if r < 0.25:
        img = cv2.dilate(img, np.ones((k + 1, k + 1), np.uint8))
    elif r < 0.4:  # a felt pen, or ink spread by the photo's blur
        heavy = max(2, round(h * rng.uniform(0.08, 0.16)))
        img = cv2.dilate(img, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (heavy, heavy)))
    elif r < 0.6 and h >= 40:
        thin = cv2.erode(img, np.ones((k, k), np.uint8))
        if (thin > 0.5).sum() > 0.5 * (img > 0.5).sum():
            img = thin
    ys, xs = np.nonzero(img > 0.3)
    img = img[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    target = rng.uniform(13, 44)  # px: a digit's height on the canvas
    f = target / img.shape[0]
    img = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    if rng.uniform() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.0))
    ink = img > rng.uniform(0.3, 0.6)
    if rng.uniform() < 0.1:  # a speck near the glyph
        ink = np.pad(ink, 3)
        y, x = rng.integers(0, ink.shape[0] - 2), rng.integers(0, ink.shape[1] - 2)
        ink[y:y + 2, x:x + 2] = True
    if not ink.any():
        ink = img > img.max() * 0.5
    return ink


def _dataset(n_aug: int, seed: int, split: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Feature arrays per source for a split ('train' or 'test')."""
    rng = np.random.default_rng(seed)
    prng = random.Random(seed)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    uimg, ulab = _uci()
    cut = int(len(ulab) * UCI_TRAIN)
    sel = slice(0, cut) if split == "train" else slice(cut, None)
    xs, ys = [], []
    for img, y in zip(uimg[sel], ulab[sel], strict=True):
        for _ in range(n_aug):
            xs.append(features(augment(img, rng)))
            ys.append(y)
    out["uci"] = (np.array(xs), np.array(ys))
    if split == "test":  # the real digits as they are, binarised at 2.5x, no augmentation
        plain = [features(cv2.resize(img, None, fx=0.8, fy=0.8) > 0.5) for img in uimg[sel]]
        out["uci-plain"] = (np.array(plain), ulab[sel])
    xs, ys = [], []
    per = {"train": 1500, "test": 200}[split]
    for d in range(10):
        for k in range(per):
            xs.append(features(augment(_pen(d, "pen" if k % 4 else "clean", prng), rng)))
            ys.append(d)
    out["pen"] = (np.array(xs), np.array(ys))
    if split == "train":
        xs, ys = [], []
        for font in _fonts():
            for d in range(10):
                g = _font_glyph(d, font)
                for _ in range(120):
                    xs.append(features(augment(g, rng)))
                    ys.append(d)
        out["fonts"] = (np.array(xs), np.array(ys))
    return out


def train(x: np.ndarray, y: np.ndarray, seed: int, epochs: int, classes: int = 10,
          hidden: int = HIDDEN) -> dict[str, np.ndarray]:
    """A one-hidden-layer ReLU network, softmax output, Adam, L2 weight decay."""
    rng = np.random.default_rng(seed)
    mean, std = x.mean(0), x.std(0) + 1e-3
    xn = ((x - mean) / std).astype(np.float32)
    d = x.shape[1]
    p = {"w1": rng.normal(0, np.sqrt(2 / d), (d, hidden)).astype(np.float32),
         "b1": np.zeros(hidden, np.float32),
         "w2": rng.normal(0, np.sqrt(1 / hidden), (hidden, classes)).astype(np.float32),
         "b2": np.zeros(classes, np.float32)}
    mom = {k: np.zeros_like(v) for k, v in p.items()}
    vel = {k: np.zeros_like(v) for k, v in p.items()}
    lr, decay, batch, t = 2e-3, 1e-4, 128, 0
    onehot = np.eye(classes, dtype=np.float32)[y]
    for ep in range(epochs):
        order = rng.permutation(len(y))
        rate = lr * (0.5 * (1 + np.cos(np.pi * ep / epochs)))
        for i in range(0, len(y), batch):
            b = order[i:i + batch]
            h = np.maximum(xn[b] @ p["w1"] + p["b1"], 0)
            z = h @ p["w2"] + p["b2"]
            z -= z.max(1, keepdims=True)
            e = np.exp(z)
            dz = (e / e.sum(1, keepdims=True) - onehot[b]) / len(b)
            dh = (dz @ p["w2"].T) * (h > 0)
            g = {"w2": h.T @ dz + decay * p["w2"], "b2": dz.sum(0),
                 "w1": xn[b].T @ dh + decay * p["w1"], "b1": dh.sum(0)}
            t += 1
            for k in p:
                mom[k] = 0.9 * mom[k] + 0.1 * g[k]
                vel[k] = 0.999 * vel[k] + 0.001 * g[k] ** 2
                mh, vh = mom[k] / (1 - 0.9 ** t), vel[k] / (1 - 0.999 ** t)
                p[k] -= (rate * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
    p["mean"], p["std"] = mean.astype(np.float32), std.astype(np.float32)
    return p


def _predict(p: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    h = np.maximum(((x - p["mean"]) / p["std"]) @ p["w1"] + p["b1"], 0)
    return np.argmax(h @ p["w2"] + p["b2"], axis=1)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=MODEL)
    ap.add_argument("--quick", action="store_true", help="fewer samples and epochs (a try)")
    ap.add_argument("--extract-uci", action="store_true",
                    help=f"write {UCI.name} from scikit-learn's copy and stop")
    args = ap.parse_args(argv)
    if args.extract_uci:
        extract_uci()
        return
    t0 = time.time()
    n_aug, epochs = (6, 8) if args.quick else (20, 30)
    tr = _dataset(n_aug, SEED, "train")
    te = _dataset(4, SEED + 1, "test")
    x = np.concatenate([v[0] for v in tr.values()])
    y = np.concatenate([v[1] for v in tr.values()])
    print(f"training on {len(y)} glyphs ({', '.join(f'{k} {len(v[1])}' for k, v in tr.items())}), "
          f"{x.shape[1]} features, {time.time() - t0:.0f} s")
    p = train(x, y, SEED, epochs)
    for name, (xs, ys) in {**{f"train {k}": v for k, v in tr.items()},
                           **{f"held-out {k}": v for k, v in te.items()}}.items():
        print(f"  {name:18} accuracy {np.mean(_predict(p, xs) == ys):.4f} of {len(ys)}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **p)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} kB) in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
