"""The simulated phone camera: perspective, any in-plane rotation, tilt, page curl, a busy
table with clutter, lighting gradient and shadow, colour cast, blur, noise, sharpening,
fingers and notes over a corner (the profiles' PhotoSpec table).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from scanner.synthetic.common import (
    MM_PER_PT,
    _add_noise,
    _apply_h,
    _blur,
    _f,
    _pick,
    _sharpen,
    _smooth_noise,
)
from scanner.synthetic.ink import InkStyle
from scanner.synthetic.page import Page
from scanner.synthetic.raster import _page_raster, _raster_scale, _render_dpi
from sheets.fill import Ink


@dataclass(frozen=True)
class PhotoSpec:
    """The ranges a photo profile draws from."""

    sizes: tuple[tuple[tuple[int, int], float], ...]  # ((w, h), weight), landscape
    any_rotation: float  # chance of a uniformly random in-plane rotation
    quarter_turn: float  # else chance of a multiple of 90 deg (+- jitter)
    jitter: float  # deg
    tilt: float  # max tilt, deg
    focal: tuple[float, float]  # focal length / image diagonal
    fill: tuple[float, float]  # page extent / frame
    curl: tuple[float, float]  # how far the lifted edge appears displaced, mm
    wobble: float  # mm of low-frequency unevenness (apparent displacement)
    gradient: float  # lighting gradient strength
    vignette: float
    shadow: tuple[float, float]  # chance, max darkness
    cast: float  # colour-cast strength
    exposure: tuple[float, float]
    blur: tuple[float, float]  # defocus sigma, px at 12 MP (a motion smear: twice that long)
    motion: float  # chance the blur is motion blur
    noise: tuple[float, float]  # sigma (grey levels)
    jpeg: tuple[int, int]
    clutter: float  # chance of objects on the table


SIZES_HARSH = (((640, 480), 0.2), ((1280, 960), 0.3), ((1600, 1200), 0.4), ((1920, 1080), 0.4),
               ((2592, 1944), 1.2), ((3264, 2448), 4.0), ((3840, 2160), 2.0), ((4000, 3000), 6.0),
               ((4032, 3024), 6.0), ((4000, 2252), 1.5), ((4608, 3456), 1.5), ((5184, 3888), 1.2),
               ((5472, 3648), 0.8))
SIZES_EASY = (((2592, 1944), 1.0), ((3264, 2448), 3.0), ((3840, 2160), 1.0), ((4000, 3000), 5.0),
              ((4032, 3024), 5.0), ((4608, 3456), 0.6))
PHOTO_SPECS = {
    "phone": PhotoSpec(SIZES_HARSH, 0.5, 0.5, 12.0, 35.0, (0.55, 1.1), (0.5, 0.95), (0.3, 2.0),
                       0.5, 0.55, 0.35, (0.7, 0.55), 1.0, (0.7, 1.15), (0.3, 1.5), 0.4,
                       (1.5, 6.0), (50, 95), 0.7),
    "phone-easy": PhotoSpec(SIZES_EASY, 0.0, 0.2, 5.0, 12.0, (0.65, 1.0), (0.68, 0.9),
                            (0.0, 0.6), 0.15, 0.2, 0.15, (0.3, 0.2), 0.35, (0.9, 1.08),
                            (0.2, 0.8), 0.2, (1.0, 3.0), (80, 95), 0.3),
}
# the smallest photo the scanner is asked to read: 640x480 (an old or messaging-app
# camera), the sheet filling the frame either way round (held across a landscape frame, a
# page is under 40 px/inch and refused as too small)
PHOTO_SPECS["phone-vga"] = PhotoSpec((((640, 480), 1.0),), 0.0, 0.5, 5.0, 12.0, (0.65, 1.0),
                                     (0.86, 0.97), (0.0, 0.6), 0.15, 0.3, 0.2, (0.3, 0.3),
                                     0.35, (0.85, 1.1), (0.2, 0.8), 0.2, (1.0, 3.0), (60, 92),
                                     0.3)
PHOTO_SPECS["corner-cut"] = PHOTO_SPECS["short-ticks"] = PHOTO_SPECS["strays"] = (
    PHOTO_SPECS["phone-easy"])


@dataclass(frozen=True)
class Curl:
    """A smooth displacement of the page (mm), as a camera sees a sheet that is not flat:
    one edge lifted (quadratic from `start`, 0..1 across the page, to `lift` mm at the
    edge) plus a low-frequency wobble. These are apparent displacements: an edge lifted
    by z at distance Z from the lens, r off its axis, moves by about z * r / Z (a 5 mm
    curl seen from 40 cm moves 1-2 mm)."""

    size: tuple[float, float]
    edge: str  # top | bottom | left | right
    start: float
    lift: float
    bow: float  # mm, perpendicular bulge along the lifted edge
    waves: tuple[tuple[float, float, float, float, float], ...]  # ax, ay, kx, ky, phase

    def height(self, p: np.ndarray) -> np.ndarray:
        w, h = self.size
        s = {"top": 1 - p[..., 1] / h, "bottom": p[..., 1] / h, "left": 1 - p[..., 0] / w,
             "right": p[..., 0] / w}[self.edge]
        return np.clip((s - self.start) / (1 - self.start), 0, None) ** 2

    def __call__(self, p: np.ndarray) -> np.ndarray:
        w, h = self.size
        hgt = self.height(p)
        normal = {"top": (0, -1), "bottom": (0, 1), "left": (-1, 0), "right": (1, 0)}[self.edge]
        along = p[..., 0] / w if self.edge in ("top", "bottom") else p[..., 1] / h
        bulge = np.sin(np.clip(along, 0, 1) * math.pi) * self.bow
        d = np.zeros_like(p)
        d[..., 0] = hgt * (self.lift * normal[0] + bulge * normal[1])
        d[..., 1] = hgt * (self.lift * normal[1] + bulge * normal[0])
        for ax, ay, kx, ky, ph in self.waves:
            t = 2 * math.pi * (kx * p[..., 0] / w + ky * p[..., 1] / h) + ph
            d[..., 0] += ax * np.sin(t)
            d[..., 1] += ay * np.cos(t)
        return d

    def to_meta(self) -> dict[str, Any]:
        return {"edge": self.edge, "start": _f(self.start), "lift_mm": _f(self.lift),
                "bow_mm": _f(self.bow), "wobble_mm": _f(sum(abs(w[0]) + abs(w[1])
                                                            for w in self.waves))}


def _camera(rng: np.random.Generator, spec: PhotoSpec, page_mm: tuple[float, float],
            out: tuple[int, int]) -> tuple[np.ndarray, dict[str, Any]]:
    """A page-mm -> image-px homography: the page turned, tilted and seen through a
    pinhole camera, then framed (its bounding box `fill` of the frame)."""
    w, h = page_mm
    W, H = out
    if rng.random() < spec.any_rotation:
        rot = float(rng.uniform(0, 360))
    elif rng.random() < spec.quarter_turn:
        rot = float(rng.choice([90, 180, 270]) + rng.normal(0, spec.jitter / 2))
    else:
        rot = float(rng.normal(0, spec.jitter / 2))
    rot = rot % 360
    tilt = float(spec.tilt * math.sqrt(rng.random()))
    axis = float(rng.uniform(0, 2 * math.pi))
    focal = float(rng.uniform(*spec.focal)) * math.hypot(W, H)
    rz = math.radians(rot)
    r_z = np.array([[math.cos(rz), -math.sin(rz), 0], [math.sin(rz), math.cos(rz), 0], [0, 0, 1]])
    r_t, _ = cv2.Rodrigues(np.array([math.cos(axis), math.sin(axis), 0.0]) * math.radians(tilt))
    r = r_t @ r_z
    dist = focal * max(w, h) / (0.8 * min(W, H))
    m = np.column_stack([r[:, 0], r[:, 1], [0, 0, dist]])
    k = np.array([[focal, 0, W / 2], [0, focal, H / 2], [0, 0, 1]])
    centre = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]])
    hc = k @ m @ centre
    corners = _apply_h(hc, np.array([[0, 0], [w, 0], [w, h], [0, h]]))
    x0, y0 = corners.min(axis=0)
    x1, y1 = corners.max(axis=0)
    fill = float(rng.uniform(*spec.fill))
    s = fill * min(W / (x1 - x0), H / (y1 - y0))
    free_x, free_y = W - s * (x1 - x0), H - s * (y1 - y0)
    tx = free_x * float(rng.uniform(0.15, 0.85)) - s * x0
    ty = free_y * float(rng.uniform(0.15, 0.85)) - s * y0
    hm = np.array([[s, 0, tx], [0, s, ty], [0, 0, 1]]) @ hc
    hm /= hm[2, 2]
    return hm, {"rotation_deg": _f(rot, 2), "tilt_deg": _f(tilt, 2),
                "tilt_axis_deg": _f(math.degrees(axis), 1),
                "focal_per_diagonal": _f(focal / math.hypot(W, H)), "fill": _f(fill)}


def _px_per_mm(hm: np.ndarray, page_mm: tuple[float, float]) -> tuple[float, float]:
    """Smallest and largest scale of the page in the image (px per mm)."""
    w, h = page_mm
    u, v = np.meshgrid(np.linspace(0, w, 5), np.linspace(0, h, 5))
    p = np.stack([u, v], -1).reshape(-1, 2)
    q = _apply_h(hm, p)
    qx = _apply_h(hm, p + np.array([1.0, 0.0])) - q
    qy = _apply_h(hm, p + np.array([0.0, 1.0])) - q
    scales = np.concatenate([np.hypot(*qx.T), np.hypot(*qy.T)])
    return float(scales.min()), float(scales.max())


def _grow_quad(r: tuple[float, float, float, float], g: float) -> np.ndarray:
    """The corners of rect (x0, y0, x1, y1) grown by g."""
    x0, y0, x1, y1 = r
    return np.array([[x0 - g, y0 - g], [x1 + g, y0 - g], [x1 + g, y1 + g], [x0 - g, y1 + g]])


def _to_image(hm: np.ndarray, curl: Curl | None, pts_mm: np.ndarray) -> np.ndarray:
    """Where page points appear in the image (the curl's inverse by fixed point)."""
    p = np.asarray(pts_mm, np.float64)
    if curl is not None:
        q = p.copy()
        for _ in range(3):
            q = p - curl(q)
        p = q
    return _apply_h(hm, p)


def _curl(rng: np.random.Generator, spec: PhotoSpec, page_mm: tuple[float, float]) -> Curl:
    waves = tuple((float(rng.normal(0, spec.wobble / 2)), float(rng.normal(0, spec.wobble / 2)),
                   float(rng.uniform(0.3, 1.5)), float(rng.uniform(0.3, 1.5)),
                   float(rng.uniform(0, 2 * math.pi))) for _ in range(2))
    return Curl(page_mm, str(rng.choice(["top", "bottom", "left", "right"])),
                float(rng.uniform(0.45, 0.85)), float(rng.uniform(*spec.curl)) *
                float(rng.choice([-1, 1])), float(rng.normal(0, spec.curl[1] / 5)), waves)


def _grid(size: tuple[int, int], step: int) -> tuple[np.ndarray, tuple[int, int]]:
    """Sample points of an output image (W, H) such that cv2.resize of a field sampled
    there to (W, H) interpolates it (OpenCV's pixel-centre convention)."""
    W, H = size
    gw, gh = max(2, math.ceil(W / step)), max(2, math.ceil(H / step))
    xs = (np.arange(gw) + 0.5) * W / gw - 0.5
    ys = (np.arange(gh) + 0.5) * H / gh - 0.5
    gx, gy = np.meshgrid(xs, ys)
    return np.stack([gx, gy], -1), (gw, gh)


def _background(rng: np.random.Generator, w: int, h: int, clutter: float) -> tuple[np.ndarray,
                                                                                   str]:
    """A table top (wood, cloth, stone or a plain desk), maybe with things on it, BGR."""
    kind = _pick(rng, ("wood", "cloth", "stone", "desk"), (0.4, 0.2, 0.2, 0.2))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "wood":
        base = np.array(_pick(rng, ((40, 85, 140), (60, 110, 170), (25, 50, 90), (90, 150, 200),
                                    (70, 90, 110)), (1, 1, 1, 1, 0.5)), np.float32)
        vertical = rng.random() < 0.5
        a = xx if vertical else yy
        n = w if vertical else h
        warp = _smooth_noise(rng, h, w, (4, 3)) * float(rng.uniform(2, 8))
        freq = float(rng.uniform(15, 45)) / n
        rings = np.sin(2 * math.pi * (a * freq + warp)) * 0.5 + 0.5
        streak_shape = (1, max(2, w // 2)) if vertical else (max(2, h // 2), 1)
        streaks = rng.random(streak_shape).astype(np.float32)
        streaks = cv2.resize(streaks, (w, h), interpolation=cv2.INTER_LINEAR)
        plank = float(rng.uniform(0.15, 0.4)) * n
        seams = (np.abs(((a + warp * 3) % plank) - plank / 2) > plank / 2 - 1.2).astype(np.float32)
        tone = 0.78 + 0.14 * rings + 0.1 * streaks - 0.3 * seams
        img = tone[..., None] * base[None, None, :]
    elif kind == "cloth":
        hue = rng.uniform(40, 220, 3)
        base = (hue * 0.45 + hue.mean() * 0.55).astype(np.float32)  # muted, as cloth is
        weave = (np.sin(xx * float(rng.uniform(0.6, 1.4))) * np.sin(yy * float(rng.uniform(0.6, 1.4))))
        tone = 0.9 + 0.06 * weave + 0.1 * _smooth_noise(rng, h, w, (5, 5))
        img = tone[..., None] * base[None, None, :]
    elif kind == "stone":
        base = rng.uniform(80, 200, 3).astype(np.float32)
        tone = (0.75 + 0.2 * _smooth_noise(rng, h, w, (6, 8))
                + 0.15 * _smooth_noise(rng, h, w, (40, 50))
                + 0.12 * rng.random((h, w)).astype(np.float32))
        img = tone[..., None] * base[None, None, :]
    else:
        base = np.array(_pick(rng, ((235, 235, 230), (60, 60, 60), (180, 190, 200), (200, 215, 225),
                                    (30, 30, 35)), (1, 1, 1, 1, 1)), np.float32)
        grad = 0.85 + 0.2 * (xx / w * float(rng.uniform(-1, 1)) + yy / h * float(rng.uniform(-1, 1)))
        img = grad[..., None] * base[None, None, :]
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < clutter:
        _clutter(rng, img)
    return img, kind


def _clutter(rng: np.random.Generator, img: np.ndarray) -> None:
    """Things on the table: papers (some printed), a mug, pens, a phone, coins."""
    h, w = img.shape[:2]
    s = min(w, h)
    for _ in range(int(rng.integers(2, 9))):
        what = _pick(rng, ("paper", "mug", "pen", "phone", "coin", "blob"), (3, 1, 2, 1, 1, 2))
        cx, cy = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        hue = rng.integers(0, 256, 3)
        colour = tuple(int(c) for c in hue * 0.6 + hue.mean() * 0.4)
        if what == "paper":
            pw, ph = float(rng.uniform(0.2, 0.6)) * s, float(rng.uniform(0.25, 0.7)) * s
            box = cv2.boxPoints(((cx, cy), (pw, ph), float(rng.uniform(0, 180))))
            tint = int(rng.integers(215, 250))
            cv2.fillPoly(img, [np.round(box * 16).astype(np.int32)], (tint, tint, tint - 5),
                         cv2.LINE_AA, shift=4)
            if rng.random() < 0.6:  # printed lines of text
                o = box[0]
                ex = (box[1] - box[0]) / max(1e-6, np.linalg.norm(box[1] - box[0]))
                ey = (box[3] - box[0]) / max(1e-6, np.linalg.norm(box[3] - box[0]))
                lw, lh = np.linalg.norm(box[1] - box[0]), np.linalg.norm(box[3] - box[0])
                pitch = max(3.0, lh / float(rng.uniform(15, 40)))
                for k in range(1, int(lh / pitch) - 1):
                    a = o + ex * lw * 0.1 + ey * k * pitch
                    b = a + ex * lw * float(rng.uniform(0.4, 0.8))
                    cv2.line(img, tuple(int(v) for v in a), tuple(int(v) for v in b),
                             (70, 70, 70), 1, cv2.LINE_AA)
        elif what == "mug":
            r = float(rng.uniform(0.06, 0.15)) * s
            cv2.circle(img, (int(cx), int(cy)), int(r), colour, -1, cv2.LINE_AA)
            cv2.circle(img, (int(cx), int(cy)), int(r * 0.8),
                       tuple(int(c * 0.5) for c in colour), -1, cv2.LINE_AA)
        elif what == "pen":
            ln = float(rng.uniform(0.15, 0.35)) * s
            a = float(rng.uniform(0, math.pi))
            p0 = (int(cx - math.cos(a) * ln / 2), int(cy - math.sin(a) * ln / 2))
            p1 = (int(cx + math.cos(a) * ln / 2), int(cy + math.sin(a) * ln / 2))
            cv2.line(img, p0, p1, colour, max(2, int(s * 0.012)), cv2.LINE_AA)
        elif what == "phone":
            box = cv2.boxPoints(((cx, cy), (0.14 * s, 0.28 * s), float(rng.uniform(0, 180))))
            cv2.fillPoly(img, [np.round(box * 16).astype(np.int32)], (25, 25, 28), cv2.LINE_AA,
                         shift=4)
        elif what == "coin":
            r = float(rng.uniform(0.015, 0.03)) * s
            cv2.circle(img, (int(cx), int(cy)), max(2, int(r)), (90, 150, 180), -1, cv2.LINE_AA)
        else:
            axes = (int(rng.uniform(0.03, 0.2) * s), int(rng.uniform(0.03, 0.2) * s))
            cv2.ellipse(img, (int(cx), int(cy)), axes, float(rng.uniform(0, 180)), 0, 360, colour,
                        -1, cv2.LINE_AA)


def _lighting(rng: np.random.Generator, spec: PhotoSpec, grid: np.ndarray, size: tuple[int, int],
              page_poly: np.ndarray, shade: np.ndarray | None) -> tuple[np.ndarray, dict[str, Any]]:
    """Per-pixel BGR gain (low resolution, float32): exposure x gradient x vignette x a
    soft shadow across the page x colour cast (x curl shading)."""
    W, H = size
    gx, gy = grid[..., 0] / W - 0.5, grid[..., 1] / H - 0.5
    exposure = float(rng.uniform(*spec.exposure))
    ga = float(rng.uniform(0, 2 * math.pi))
    gs = float(rng.uniform(0, spec.gradient))
    field = exposure * (1 + gs * (np.cos(ga) * gx + np.sin(ga) * gy))
    vig = float(rng.uniform(0, spec.vignette))
    field *= 1 - vig * (gx ** 2 + gy ** 2) * 2
    meta: dict[str, Any] = {"exposure": _f(exposure), "gradient": _f(gs),
                            "gradient_deg": _f(math.degrees(ga), 1), "vignette": _f(vig)}
    if rng.random() < spec.shadow[0]:
        # a soft shadow (a hand, the phone, a lamp arm) whose edge crosses the page
        gh, gw = grid.shape[:2]
        mask = np.zeros((gh, gw), np.float32)
        sx, sy = gw / W, gh / H
        c = page_poly.mean(axis=0)
        a = float(rng.uniform(0, 2 * math.pi))
        off = float(rng.uniform(-0.25, 0.25)) * np.ptp(page_poly[:, 0])
        n = np.array([math.cos(a), math.sin(a)])
        e = np.array([-n[1], n[0]])
        p0 = c + n * off
        far = 3 * max(W, H)
        width = float(rng.uniform(0.3, 1.5)) * max(W, H)
        poly = np.array([p0 - e * width / 2, p0 + e * width / 2, p0 + e * width / 2 + n * far,
                         p0 - e * width / 2 + n * far]) * [sx, sy]
        cv2.fillPoly(mask, [np.round(poly * 16).astype(np.int32)], 1.0, cv2.LINE_AA, shift=4)
        soft = float(rng.uniform(0.01, 0.06)) * max(gw, gh)
        mask = cv2.GaussianBlur(mask, (0, 0), soft)
        depth = float(rng.uniform(0.15, spec.shadow[1]))
        field *= 1 - depth * mask
        meta["shadow"] = {"depth": _f(depth), "angle_deg": _f(math.degrees(a), 1),
                          "softness": _f(soft / max(gw, gh))}
    if shade is not None:
        k = float(rng.uniform(-0.12, 0.18))
        field *= 1 - k * shade
        meta["curl_shading"] = _f(k)
    # colour cast: warm (tungsten) to cool (shade), a little green (fluorescent)
    t = float(rng.uniform(-1, 1)) * spec.cast
    green = float(rng.uniform(-0.04, 0.06)) * spec.cast
    gains = np.array([1 - 0.25 * max(t, 0) + 0.08 * max(-t, 0),  # B
                      1 - 0.08 * abs(t) + green,  # G
                      1 + 0.05 * max(t, 0) - 0.15 * max(-t, 0)], np.float32)  # R
    meta["cast"] = {"warmth": _f(t), "green": _f(green), "gains_bgr": [_f(g) for g in gains]}
    return field[..., None].astype(np.float32) * gains[None, None, :], meta


def _occluder(rng: np.random.Generator, page: Page, target: int) -> tuple[np.ndarray, str] | None:
    """A shape (page mm) covering fiducial `target` and nothing a reader needs (regions,
    the QR code, the other markers): a fingertip, or a sticky note or scrap of paper
    laid over the corner."""
    w, h = page.size_mm
    res = 4.0  # px per mm of the check raster
    keep = np.zeros((int(h * res) + 1, int(w * res) + 1), np.uint8)

    def paint(r: tuple[float, float, float, float], grow: float) -> None:
        x0, y0, x1, y1 = r
        cv2.rectangle(keep, (int((x0 - grow) * res), int((y0 - grow) * res)),
                      (math.ceil((x1 + grow) * res), math.ceil((y1 + grow) * res)), 1, -1)

    for reg in page.manifest.regions:
        paint(page.rect_mm(reg.rect), 0.6)
    for q in page.manifest.qr:
        paint(page.rect_mm(q.rect), 0.6)
    marker = None
    for f in page.manifest.fiducials:
        r = page.rect_mm(f.rect)
        if f.id == target:
            marker = r
        else:
            paint(r, f.quiet * MM_PER_PT)
    assert marker is not None
    mx0, my0, mx1, my1 = marker
    # the page corner the marker sits in, and the marker's corner facing the page's middle
    sx = -1.0 if mx0 < w / 2 else 1.0
    sy = -1.0 if my0 < h / 2 else 1.0
    inner = np.array([mx0 if sx > 0 else mx1, my0 if sy > 0 else my1])
    mc = np.array([(mx0 + mx1) / 2, (my0 + my1) / 2])
    for _ in range(120):
        kind = _pick(rng, ("finger", "note"), (0.45, 0.55))
        if kind == "finger":
            # a fingertip from beyond the page's edge, its tip just past the marker
            ang = math.atan2(-sy, -sx) + float(rng.uniform(-0.9, 0.9))
            d = np.array([math.cos(ang), math.sin(ang)])
            half = float(rng.uniform(10.0, 13.0))  # a fingertip or a thumb
            length = float(rng.uniform(55, 75))
            tip = mc + d * half * float(rng.uniform(0.9, 1.3))
            centre = tip - d * length / 2
            poly = cv2.ellipse2Poly((0, 0), (int(length / 2 * 100), int(half * 100)),
                                    round(math.degrees(ang)), 0, 360, 6).astype(np.float64) / 100
            poly += centre
        else:
            # a note whose inner corner lies just inside the marker's quiet zone
            nw, nh = float(rng.uniform(18, 40)), float(rng.uniform(18, 40))
            turn = math.radians(float(rng.uniform(-5, 5)))
            ex = np.array([math.cos(turn), math.sin(turn)]) * sx
            ey = np.array([-math.sin(turn), math.cos(turn)]) * sy
            c0 = inner - np.array([sx, sy]) * rng.uniform(0.4, 2.0, 2)
            poly = np.array([c0, c0 + ex * nw, c0 + ex * nw + ey * nh, c0 + ey * nh])
        mask = np.zeros_like(keep)
        cv2.fillPoly(mask, [np.round(poly * res).astype(np.int32)], 1)
        if (mask & keep).any():
            continue
        x0, y0, x1, y1 = (round(v * res) for v in marker)
        if mask[max(0, y0 - 2):y1 + 3, max(0, x0 - 2):x1 + 3].min() == 0:
            continue
        return poly, kind
    return None


def _frame_shift(rng: np.random.Generator, hm: np.ndarray, curl: Curl | None, page: Page,
                 target: int, size: tuple[int, int], margin: float) -> np.ndarray | None:
    """A shift of the page in the image that puts most of fiducial `target` outside the
    frame while every region, the QR code and the other markers stay inside."""
    W, H = size
    keep: list[np.ndarray] = []
    for reg in page.manifest.regions:
        x0, y0, x1, y1 = page.rect_mm(reg.rect)
        keep.append(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
    for q in page.manifest.qr:
        keep.append(_grow_quad(page.rect_mm(q.rect), q.quiet * MM_PER_PT))
    marker = None
    for f in page.manifest.fiducials:
        x0, y0, x1, y1 = page.rect_mm(f.rect)
        if f.id == target:
            u, v = np.meshgrid(np.linspace(x0, x1, 7), np.linspace(y0, y1, 7))
            marker = np.stack([u.ravel(), v.ravel()], -1)
        else:
            keep.append(_grow_quad((x0, y0, x1, y1), f.quiet * MM_PER_PT))
    assert marker is not None
    kp = _to_image(hm, curl, np.concatenate(keep))
    mp = _to_image(hm, curl, marker)
    centre = _to_image(hm, curl, np.array([page.size_mm]) / 2)[0]
    out_dir = mp.mean(axis=0) - centre
    base = math.atan2(out_dir[1], out_dir[0])
    options = []
    for da in np.linspace(-1.3, 1.3, 27):
        d = np.array([math.cos(base + da), math.sin(base + da)])
        for step in np.arange(4, max(W, H) * 0.5, 4):
            t = d * step
            m = mp + t
            inside = ((m[:, 0] >= 0) & (m[:, 0] <= W - 1) & (m[:, 1] >= 0) & (m[:, 1] <= H - 1))
            k = kp + t
            if (k[:, 0].min() < margin or k[:, 1].min() < margin or k[:, 0].max() > W - 1 - margin
                    or k[:, 1].max() > H - 1 - margin):
                break
            if inside.mean() <= 0.65:
                options.append(t)
                break
    if not options:
        return None
    t = options[int(rng.integers(0, len(options)))]
    return np.array([[1, 0, t[0]], [0, 1, t[1]], [0, 0, 1]]) @ hm


def _draw_occluder(rng: np.random.Generator, img: np.ndarray, poly_img: np.ndarray, kind: str
                   ) -> None:
    """Paint a fingertip or a note (with its soft shadow) over the image, in place."""
    H, W = img.shape[:2]
    x0, y0 = np.floor(poly_img.min(axis=0)).astype(int) - 40
    x1, y1 = np.ceil(poly_img.max(axis=0)).astype(int) + 40
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1 <= x0 or y1 <= y0:
        return
    crop = img[y0:y1, x0:x1].astype(np.float32)
    mask = np.zeros(crop.shape[:2], np.float32)
    pts = np.round((poly_img - [x0, y0]) * 16).astype(np.int32)
    cv2.fillPoly(mask, [pts], 1.0, cv2.LINE_AA, shift=4)
    span = float(np.ptp(poly_img, axis=0).max())
    shadow = cv2.GaussianBlur(np.roll(mask, (int(span * 0.04), int(span * 0.03)), (0, 1)),
                              (0, 0), max(1.0, span * 0.03))
    crop *= (1 - 0.45 * shadow)[..., None]
    if kind == "finger":
        colour = np.array(_pick(rng, ((120, 150, 200), (90, 120, 170), (60, 85, 125),
                                      (140, 170, 215)), (1, 1, 1, 1)), np.float32)
        dist = cv2.distanceTransform((mask > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
        tone = 0.65 + 0.45 * np.clip(dist / max(1.0, dist.max()), 0, 1) ** 0.5
    else:
        colour = np.array(_pick(rng, ((120, 240, 250), (200, 230, 160), (210, 160, 250),
                                      (245, 245, 245)), (2, 1, 1, 1)), np.float32)
        tone = np.full(mask.shape, 0.97, np.float32)
    fill = tone[..., None] * colour[None, None, :]
    crop = crop * (1 - mask[..., None]) + fill * mask[..., None]
    img[y0:y1, x0:x1] = np.clip(crop, 0, 255).astype(np.uint8)


def _photo(rng: np.random.Generator, profile: str, page: Page, edition: str, paper: str,
           inks: list[Ink], style: InkStyle) -> tuple[np.ndarray, dict[str, Any], tuple[int, ...],
                                                      np.ndarray, Curl]:
    """The phone photo (BGR, before compression) and its parameters."""
    spec = PHOTO_SPECS[profile]
    sizes = [s for s, _ in spec.sizes]
    W, H = _pick(rng, sizes, [wt for _, wt in spec.sizes])
    if rng.random() < 0.55:
        W, H = H, W  # held upright
    page_mm = page.size_mm
    hm, cam = _camera(rng, spec, page_mm, (W, H))
    curl = _curl(rng, spec, page_mm)
    missing: tuple[int, ...] = ()
    occluder: tuple[np.ndarray, str] | None = None
    if profile == "corner-cut":
        target = int(rng.integers(0, 4))
        how = "frame" if rng.random() < 0.6 else "cover"
        shifted = _frame_shift(rng, hm, curl, page, target, (W, H), 12.0) if how == "frame" else None
        if shifted is not None:
            hm = shifted
        else:
            how = "cover"
            occluder = _occluder(rng, page, target)
            if occluder is None:  # pragma: no cover - the sheet always has room for one
                raise RuntimeError("no occluder fits this sheet")
        missing = (target,)
        cam["corner_cut"] = {"marker": target, "how": how,
                             **({"occluder": occluder[1]} if occluder else {})}
    lo, hi = _px_per_mm(hm, page_mm)
    dpi = _render_dpi(hi * 25.4)
    raster = _page_raster(rng, edition, paper, page.manifest.page_size, inks, style, dpi)
    ph, pw = raster.shape[:2]
    # output -> page maps, sampled every `step` px and interpolated
    step = 8 if max(W, H) > 1600 else 4
    grid, _ = _grid((W, H), step)
    inv = np.linalg.inv(hm)
    mm = _apply_h(inv, grid)
    mm_src = mm + curl(mm)
    src = mm_src * np.array(_raster_scale(raster, page)) - 0.5
    map_x = cv2.resize(src[..., 0].astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
    map_y = cv2.resize(src[..., 1].astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
    page4 = cv2.cvtColor(raster, cv2.COLOR_BGR2BGRA)
    warped = cv2.remap(page4, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                       borderValue=(0, 0, 0, 0))
    del map_x, map_y, page4
    alpha = cv2.extractChannel(warped, 3)
    # the table, at a quarter of the resolution, with the page's shadow on it
    bs = 4 if max(W, H) > 1600 else 2
    bw, bh = math.ceil(W / bs), math.ceil(H / bs)
    bg, bg_kind = _background(rng, bw, bh, spec.clutter)
    inside = ((src[..., 0] >= 0) & (src[..., 0] <= pw - 1) & (src[..., 1] >= 0)
              & (src[..., 1] <= ph - 1)).astype(np.float32)
    shadow = cv2.resize(inside, (bw, bh), interpolation=cv2.INTER_LINEAR)
    off = rng.normal(0, 0.006, 2) * max(bw, bh)
    shadow = cv2.warpAffine(shadow, np.array([[1, 0, off[0]], [0, 1, off[1]]], np.float32),
                            (bw, bh))
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, 0.008 * max(bw, bh)))
    drop = float(rng.uniform(0.15, 0.45))
    bg = (bg * (1 - drop * shadow)[..., None]).astype(np.uint8)
    bg = cv2.resize(bg, (W, H), interpolation=cv2.INTER_LINEAR)
    inv_a = cv2.cvtColor(255 - alpha, cv2.COLOR_GRAY2BGR)
    img = cv2.add(cv2.cvtColor(warped, cv2.COLOR_BGRA2BGR), cv2.multiply(bg, inv_a, scale=1 / 255))
    del warped, bg, inv_a
    if occluder is not None:
        _draw_occluder(rng, img, _to_image(hm, curl, occluder[0]), occluder[1])
    # light
    corners = _to_image(hm, curl, np.array([[0, 0], [page_mm[0], 0], page_mm, [0, page_mm[1]]]))
    shade = curl.height(mm) * inside if abs(curl.lift) > 0.2 else None
    gain, light = _lighting(rng, spec, grid, (W, H), corners, shade)
    gain8 = np.clip(gain * 128, 0, 255).astype(np.uint8)
    img = cv2.multiply(img, cv2.resize(gain8, (W, H), interpolation=cv2.INTER_LINEAR),
                       scale=1 / 128)
    # optics and sensor
    mp_scale = math.sqrt(W * H / 12e6)
    blur_kind = "motion" if rng.random() < spec.motion else "defocus"
    blur = float(rng.uniform(*spec.blur)) * mp_scale
    angle = float(rng.uniform(0, math.pi))
    blur_px = blur if blur_kind == "defocus" else blur * 2  # sigma, or the smear's length
    img = _blur(img, blur_kind, blur_px, angle)
    sharpen = float(rng.uniform(0.2, 0.7)) if rng.random() < 0.5 else 0.0
    img = _sharpen(img, sharpen, 1.2 * max(0.5, mp_scale))
    noise = float(rng.uniform(*spec.noise))
    img = _add_noise(img, rng, noise, noise * 0.6, 2 if max(W, H) > 1600 else 1)
    markers = {int(fid): [[_f(v, 2) for v in p] for p in _to_image(hm, curl, c)]
               for fid, c in page.marker_corners_mm().items()}
    meta = {"size": [W, H], "megapixels": _f(W * H / 1e6, 2), "render_dpi": dpi,
            "page_dpi": [_f(lo * 25.4, 1), _f(hi * 25.4, 1)], "camera": cam,
            "curl": curl.to_meta(), "background": bg_kind, "page_shadow": _f(drop),
            "lighting": light,
            "blur": {"kind": blur_kind, "px": _f(blur_px),
                     "angle_deg": _f(math.degrees(angle), 1)},
            "sharpen": _f(sharpen), "noise_sigma": _f(noise),
            "homography_mm_to_px": [[float(v) for v in row] for row in hm],
            "markers": markers}
    return img, meta, missing, hm, curl
