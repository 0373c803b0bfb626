"""The box readers' innermost loops, compiled with numba: the work a sheet does box by box
on a few hundred pixels each, where numpy's cost is its calls rather than its arithmetic.

    darkness(obs, paper, slope)              every patch's darkness over its paper, 3x3 mean
    light_planes(ring, med, xs, ys)          the light's slope across each box
    box_counts(d, over, ...)                 every box's ink, faint ink, middle, level
    band_sums(plan, dk, d, noise)            every box's darkest straight band and its ends
    hog_cells(mag, ang, bins)                gradient histograms of the second look's images
    best_band, stroke_lines                  the straight strokes of a box's ink

Each replaces numpy code that tests keep as its reference (tests/test_marks_compiled.py,
tests/test_audit.py): the same numbers to the bit, or, where numpy's own order of summing
was an accident of its implementation (BLAS), to float rounding.

Pure functions of arrays; the layout-dependent index tables (`BandPlan`) are built once
per template by the callers. Compiled on first use and cached beside this file
(`__pycache__`), so a process pays the compilation once per machine.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit


@dataclass(frozen=True)
class BandPlan:
    """Every box's straight bands through its middle (scanner.faintline's), as flat index
    tables: box k measures the pixels pix[pix_ptr[g]:pix_ptr[g + 1]] of its patch (g =
    group[k], the boxes of one shape; -1: no band), its bands band_ptr[g]..band_ptr[g + 1]
    (each band's positions in those pixels, its weight 1/sqrt(n) and angle), and, where
    its plain paper shows a band's ends (ends[k] = e >= 0), the plain pixels it takes its
    level from and each band's two halves there (weights; `keep`: long enough)."""

    group: np.ndarray
    pix_ptr: np.ndarray
    pix: np.ndarray
    band_ptr: np.ndarray
    band_at_ptr: np.ndarray
    band_at: np.ndarray
    band_w: np.ndarray
    band_angle: np.ndarray
    ends: np.ndarray
    use_ptr: np.ndarray
    use: np.ndarray
    half_ptr: np.ndarray  # (E + 1): each end set's first half-band (2 per band: one each side)
    half_at_ptr: np.ndarray
    half_at: np.ndarray
    half_w: np.ndarray
    keep: np.ndarray  # (per band of each end set) the band shows on both halves


def band_plan(groups: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                 list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]]],
              n: int) -> BandPlan:
    """A BandPlan from each group's boxes, measured pixels (flat patch indices), band rows
    (bands x pixels: 1/sqrt(n) on a band's n pixels), angles, and end sets (their boxes,
    which pixels are plain, the two halves' rows, which bands are short)."""
    group = np.full(n, -1, np.int32)
    ends = np.full(n, -1, np.int32)
    pix_ptr, band_ptr, band_at_ptr = [0], [0], [np.zeros(1, np.int64)]
    pix: list[np.ndarray] = []
    band_at: list[np.ndarray] = []
    band_w: list[np.ndarray] = []
    band_angle: list[np.ndarray] = []
    use_ptr, half_ptr, half_at_ptr = [0], [0], [np.zeros(1, np.int64)]
    use: list[np.ndarray] = []
    half_at: list[np.ndarray] = []
    half_w: list[np.ndarray] = []
    keep: list[np.ndarray] = []

    def rows_csr(rows: np.ndarray, ptr: list[np.ndarray], at: list[np.ndarray],
                 w: list[np.ndarray]) -> None:
        """Each row's nonzero positions (in order) and its weight (a row's nonzeros are
        equal), appended to the flat tables."""
        r, c = np.nonzero(rows)
        ptr.append(ptr[-1][-1] + np.cumsum(np.bincount(r, minlength=len(rows))))
        at.append(c)
        w.append(rows.max(axis=1, initial=0.0))

    for g, (ks, gpix, rows, angle, end_sets) in enumerate(groups):
        group[ks] = g
        pix.append(gpix)
        pix_ptr.append(pix_ptr[-1] + len(gpix))
        rows_csr(rows, band_at_ptr, band_at, band_w)
        band_angle.append(angle)
        band_ptr.append(band_ptr[-1] + len(rows))
        for kp, plain, halves, short in end_sets:
            ends[kp] = len(use_ptr) - 1
            at = np.flatnonzero(plain)
            use.append(at)
            use_ptr.append(use_ptr[-1] + len(at))
            # (band by band, its half on one side of the middle, then the other)
            rows_csr(halves.transpose(1, 0, 2).reshape(-1, halves.shape[2]), half_at_ptr,
                     half_at, half_w)
            keep.append(~short)
            half_ptr.append(half_ptr[-1] + 2 * halves.shape[1])

    def cat(parts: list[np.ndarray], dtype: type) -> np.ndarray:
        return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)

    return BandPlan(group, np.array(pix_ptr, np.int64), cat(pix, np.int64),
                    np.array(band_ptr, np.int64), cat(band_at_ptr, np.int64),
                    cat(band_at, np.int64), cat(band_w, np.float32),
                    cat(band_angle, np.float32), ends, np.array(use_ptr, np.int64),
                    cat(use, np.int64), np.array(half_ptr, np.int64),
                    cat(half_at_ptr, np.int64), cat(half_at, np.int64),
                    cat(half_w, np.float32), cat(keep, np.bool_))


def band_sums(plan: BandPlan, dk: np.ndarray, d: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """(N, 4) per box: its darkest band's sum over sqrt(its pixels) over the box's noise,
    that sum times the band's weight, the band's angle, and the greater over its bands of
    the lesser of a band's two ends' sums in the plain paper over the noise (zeros where
    the box has none). `dk` is measured less its median over the box's pixels, `d` less
    its median over the plain ones (scanner.marks.audit.band_features)."""
    n = dk.shape[0]
    return _band_sums(plan.group, plan.pix_ptr, plan.pix, plan.band_ptr, plan.band_at_ptr,
                      plan.band_at, plan.band_w, plan.band_angle, plan.ends, plan.use_ptr,
                      plan.use, plan.half_ptr, plan.half_at_ptr, plan.half_at, plan.half_w,
                      plan.keep, np.ascontiguousarray(dk, np.float32).reshape(n, -1),
                      np.ascontiguousarray(d, np.float32).reshape(n, -1),
                      np.ascontiguousarray(noise, np.float32))


@njit(cache=True, nogil=True)
def _band_sums(group, pix_ptr, pix, band_ptr, band_at_ptr, band_at, band_w, band_angle,
               ends, use_ptr, use, half_ptr, half_at_ptr, half_at, half_w, keep,
               dk, d, noise):
    n = dk.shape[0]
    out = np.zeros((n, 4), np.float32)
    for k in range(n):
        g = group[k]
        if g < 0:
            continue
        p0, p1 = pix_ptr[g], pix_ptr[g + 1]
        v = np.empty(p1 - p0, np.float32)
        for i in range(p1 - p0):
            v[i] = dk[k, pix[p0 + i]]
        med = np.float32(np.median(v))
        for i in range(v.size):
            v[i] -= med
        nz = max(float(noise[k]), 1e-6)
        best = -np.inf
        best_b = -1
        for b in range(band_ptr[g], band_ptr[g + 1]):
            s = 0.0
            w = band_w[b]
            for j in range(band_at_ptr[b], band_at_ptr[b + 1]):
                s += v[band_at[j]] * w
            if s > best:
                best, best_b = s, b
        if best_b < 0:
            continue
        out[k, 0] = best / nz
        out[k, 1] = best * band_w[best_b]
        out[k, 2] = band_angle[best_b]
        e = ends[k]
        if e < 0:
            continue
        for i in range(p1 - p0):
            v[i] = d[k, pix[p0 + i]]
        u0, u1 = use_ptr[e], use_ptr[e + 1]
        plain = np.empty(u1 - u0, np.float32)
        for i in range(u1 - u0):
            plain[i] = v[use[u0 + i]]
        med = np.float32(np.median(plain))
        for i in range(v.size):
            v[i] -= med
        top = -np.inf
        kb = half_ptr[e] // 2  # (keep: one entry per band of the end sets, in order)
        for hb in range(half_ptr[e], half_ptr[e + 1], 2):
            if keep[kb + (hb - half_ptr[e]) // 2]:
                lo = np.inf
                for h in range(2):
                    s = 0.0
                    w = half_w[hb + h]
                    for j in range(half_at_ptr[hb + h], half_at_ptr[hb + h + 1]):
                        s += v[half_at[j]] * w
                    lo = min(lo, s)
                top = max(top, lo)
        if top > -np.inf:
            out[k, 3] = max(top, 0.0) / nz
    return out


@njit(cache=True, nogil=True)
def hog_cells(mag: np.ndarray, ang: np.ndarray, bins: int) -> np.ndarray:
    """(N, 16 bins + 4 bins) per S x S image of gradient magnitudes `mag` and directions
    `ang` (radians, -pi..pi: np.arctan2's): each pixel's magnitude split between its two
    nearest of `bins` directions, summed over a 4 x 4 grid of cells and a 2 x 2 one,
    square-rooted."""
    n, side = mag.shape[0], mag.shape[1]
    out = np.zeros((n, 20 * bins), np.float32)
    lo = np.zeros((16, bins))  # each pixel's share to its lower direction ...
    hi = np.zeros((16, bins))  # ... and to its upper one, summed apart
    one = np.float32(1)
    two_pi = np.float32(2 * np.pi)
    scale = np.float32(bins / (2 * np.pi))
    for k in range(n):
        lo[:] = 0.0
        hi[:] = 0.0
        for y in range(side):
            cy = y * 4 // side
            for x in range(side):
                a = ang[k, y, x]
                if a < 0:  # (a % 2 pi, as numpy's remainder gives it)
                    a += two_pi
                a *= scale
                fl = np.floor(a)
                f = a - fl
                b0 = int(fl) % bins
                c = cy * 4 + x * 4 // side
                m = mag[k, y, x]
                lo[c, b0] += m * (one - f)
                hi[c, (b0 + 1) % bins] += m * f
        for c in range(16):
            for b in range(bins):
                out[k, c * bins + b] = np.sqrt(lo[c, b] + hi[c, b])
        for cy in range(2):
            for cx in range(2):
                for b in range(bins):
                    s = 0.0
                    for dy in range(2):
                        for dx in range(2):
                            c = (2 * cy + dy) * 4 + 2 * cx + dx
                            s += lo[c, b] + hi[c, b]
                    out[k, 16 * bins + (2 * cy + cx) * bins + b] = np.sqrt(s)
    return out


@njit(cache=True, nogil=True)
def best_band(px: np.ndarray, py: np.ndarray, nx: np.ndarray, ny: np.ndarray, w: int,
              away: int, step_deg: int, min_deg: int) -> tuple[float, int, int, float]:
    """The straight band `w` px wide holding most of the points (px, py; float32) over the
    directions whose unit normals are (nx, ny), `step_deg` apart: (its count, the
    direction's index, its first bin, the bins' origin: the least offset over every
    direction). `away` >= 0: only directions at least `min_deg` from that one. Offsets
    are binned a pixel wide from their origin; ties go to the first direction and bin."""
    n, a_n = px.size, nx.size
    rho = np.empty((a_n, n), np.float32)
    rmin, rmax = np.float32(np.inf), np.float32(-np.inf)
    for a in range(a_n):
        for i in range(n):
            r = px[i] * nx[a] + py[i] * ny[a]
            rho[a, i] = r
            rmin = min(rmin, r)
            rmax = max(rmax, r)
    nb = int(np.floor(rmax - rmin)) + 1
    hist = np.zeros((a_n, nb), np.int32)
    for a in range(a_n):
        for i in range(n):
            hist[a, int(rho[a, i] - rmin)] += 1  # (non-negative: truncation is floor)
    best, best_a, best_lo = -1, 0, 0
    for a in range(a_n):
        if away >= 0:
            diff = abs(a - away) * step_deg
            if min(diff, 180 - diff) < min_deg:
                continue
        if nb >= w:
            s = 0
            for b in range(w):
                s += hist[a, b]
            if s > best:
                best, best_a, best_lo = s, a, 0
            for lo in range(1, nb - w + 1):
                s += hist[a, lo + w - 1] - hist[a, lo - 1]
                if s > best:
                    best, best_a, best_lo = s, a, lo
        else:
            s = 0
            for b in range(nb):
                s += hist[a, b]
            if s > best:
                best, best_a, best_lo = s, a, 0
    return float(max(best, 0)), best_a, best_lo, float(rmin)


@njit(cache=True, nogil=True)
def stroke_lines(xs: np.ndarray, ys: np.ndarray, band: float, w: int, gap: float,
                 inside: np.ndarray, nx: np.ndarray, ny: np.ndarray, step_deg: int,
                 min_deg: int) -> tuple[float, float, float, float, float, float]:
    """scanner.marks.strokes.line_fraction's measures of ink pixels (xs, ys) in a box whose
    inside is `inside`: (first, second, far, span, end_gap, bulge)."""
    n = xs.size
    px = xs.astype(np.float32)
    py = ys.astype(np.float32)
    cx, cy = np.float32(0), np.float32(0)
    for i in range(n):
        cx += px[i]
        cy += py[i]
    cx /= np.float32(n)
    cy /= np.float32(n)
    for i in range(n):
        px[i] -= cx
        py[i] -= cy
    first, a, lo, base = best_band(px, py, nx, ny, w, -1, step_deg, min_deg)
    nxa, nya = nx[a], ny[a]
    ax, ay = nya, -nxa  # along the band
    lo_f, hi_f = base + lo, base + lo + w
    far_lo, far_hi = np.float32(lo_f - gap), np.float32(hi_f + gap)
    on = np.zeros(n, np.bool_)
    rho = np.empty(n, np.float32)
    t = np.empty(n, np.float32)
    far, n_on = 0, 0
    ton_min, ton_max = np.float32(np.inf), np.float32(-np.inf)
    for i in range(n):
        r = px[i] * nxa + py[i] * nya
        rho[i] = r
        t[i] = px[i] * ax + py[i] * ay
        b = int(np.floor(r - np.float32(base)))
        if lo <= b < lo + w:
            on[i] = True
            n_on += 1
            ton_min = min(ton_min, t[i])
            ton_max = max(ton_max, t[i])
        if r < far_lo or r >= far_hi:
            far += 1
    n_rest = n - n_on
    if n_rest >= 4:
        rx = np.empty(n_rest, np.float32)
        ry = np.empty(n_rest, np.float32)
        j = 0
        for i in range(n):
            if not on[i]:
                rx[j], ry[j] = px[i], py[i]
                j += 1
        second = best_band(rx, ry, nx, ny, w, a, step_deg, min_deg)[0]
    else:
        second = float(n_rest)
    # span: the band's ink along the band over the inside's length on it
    e_lo, e_hi = np.float32(lo_f), np.float32(hi_f)
    ti_min, ti_max, n_ti = np.float32(np.inf), np.float32(-np.inf), 0
    for iy in range(inside.shape[0]):
        for ix in range(inside.shape[1]):
            if inside[iy, ix]:
                qx, qy = np.float32(ix) - cx, np.float32(iy) - cy
                r = qx * nxa + qy * nya
                if e_lo <= r < e_hi:
                    ti = qx * ax + qy * ay
                    ti_min = min(ti_min, ti)
                    ti_max = max(ti_max, ti)
                    n_ti += 1
    if n_ti < 2 or n_on < 2:
        span, end_gap = 0.0, 1.0
    else:
        length = float(ti_max - ti_min + np.float32(1))
        span = float((ton_max - ton_min + np.float32(1)) / np.float32(length))
        end_gap = max(float(ton_min - ti_min), float(ti_max - ton_max), 0.0) / length
    return first / n, second / n, far / n, span, end_gap, _bulge(t, rho, band)


@njit(cache=True, nogil=True)
def _bulge(t: np.ndarray, rho: np.ndarray, band: float) -> float:
    """scanner.marks.strokes.stroke_bulge: the widest the ink gets across its stroke along
    it (`t`, `rho`: each pixel's place along and across) over its median width."""
    if t.size < 8:
        return 1.0
    step = np.float32(max(2.0, band / 2))
    t0 = t.min()
    nb = int(np.floor((t.max() - t0) / step)) + 1
    lo = np.full(nb, np.float32(np.inf), np.float32)
    hi = np.full(nb, np.float32(-np.inf), np.float32)
    for i in range(t.size):
        b = int(np.floor((t[i] - t0) / step))
        lo[b] = min(lo[b], rho[i])
        hi[b] = max(hi[b], rho[i])
    ext = np.empty(nb, np.float32)
    m = 0
    for b in range(nb):
        if np.isfinite(lo[b]):
            ext[m] = hi[b] - lo[b] + np.float32(1)
            m += 1
    if m < 3:
        return 1.0
    e = np.sort(ext[:m])
    med = (e[(m - 1) // 2] + e[m // 2]) / np.float32(2)
    return float(e[m - 1] / max(med, np.float32(1)))


@njit(cache=True, nogil=True)
def _det3(a: np.ndarray) -> float:
    return (a[0, 0] * (a[1, 1] * a[2, 2] - a[1, 2] * a[2, 1])
            - a[0, 1] * (a[1, 0] * a[2, 2] - a[1, 2] * a[2, 0])
            + a[0, 2] * (a[1, 0] * a[2, 1] - a[1, 1] * a[2, 0]))


@njit(cache=True, nogil=True)
def light_planes(ring: np.ndarray, med: np.ndarray, xs: np.ndarray, ys: np.ndarray
                 ) -> np.ndarray:
    """(N, 3) per box: the plane v = a + b x + c y fitted by least squares to the pixels of
    its ring (`ring`: values, `xs`, `ys`: places) at or over the ring's median `med` (its
    paper, not the print), solved by Cramer's rule (a tiny ridge on the diagonal)."""
    n, r = ring.shape
    out = np.zeros((n, 3))
    m = np.empty((3, 3))
    mj = np.empty((3, 3))
    rhs = np.empty(3)
    for k in range(n):
        sw = sx = sy = sxx = sxy = syy = sv = sxv = syv = 0.0
        for i in range(r):
            v = ring[k, i]
            if v >= med[k]:
                x, y, f = xs[k, i], ys[k, i], float(v)
                sw += 1.0
                sx += x
                sy += y
                sxx += x * x
                sxy += x * y
                syy += y * y
                sv += f
                sxv += x * f
                syv += y * f
        m[0, 0], m[0, 1], m[0, 2] = sw + 1e-6, sx, sy
        m[1, 0], m[1, 1], m[1, 2] = sx, sxx + 1e-6, sxy
        m[2, 0], m[2, 1], m[2, 2] = sy, sxy, syy + 1e-6
        rhs[0], rhs[1], rhs[2] = sv, sxv, syv
        det = _det3(m)
        den = det if abs(det) > 1e-12 else 1.0
        for j in range(3):
            mj[:, :] = m
            mj[:, j] = rhs
            out[k, j] = _det3(mj) / den
    return out


@njit(cache=True, nogil=True)
def darkness(obs: np.ndarray, paper: np.ndarray, slope: np.ndarray) -> np.ndarray:
    """(N, P, Q) float32: each patch's darkness over its paper lit by its slope,
    1 - obs / (paper * slope) clipped to -1..1, then its 3 x 3 mean (edges replicated),
    its nine terms summed row by row in float32 (as numpy would, shifted patch by patch)."""
    n, p, q = obs.shape
    one = np.float32(1)
    raw = np.empty((p, q), np.float32)
    out = np.empty((n, p, q), np.float32)
    nine = np.float32(9)
    for k in range(n):
        pk = paper[k]
        for y in range(p):
            for x in range(q):
                v = one - obs[k, y, x] / (pk * slope[k, y, x])
                raw[y, x] = min(max(v, -one), one)
        for y in range(p):
            for x in range(q):
                s = np.float32(0)
                for dy in range(-1, 2):
                    yy = min(max(y + dy, 0), p - 1)
                    for dx in range(-1, 2):
                        s += raw[yy, min(max(x + dx, 0), q - 1)]
                out[k, y, x] = s / nine
    return out


@njit(cache=True, nogil=True)
def box_counts(d: np.ndarray, over: np.ndarray, inside: np.ndarray, near: np.ndarray,
               text: np.ndarray, centre: np.ndarray, t_ink: np.ndarray, t_faint: np.ndarray,
               t_print: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                        np.ndarray, np.ndarray]:
    """scanner.marks.features.measure's counts per box, in one pass: pixels inked on the
    box's inside (ink), ink and faint ink away from print (d) and near or over it
    (`over`, past `t_print` too), faint ink in the middle, faint ink over the text, and
    the level of the faint ink's darkest quarter (0 with under three pixels of it)."""
    n, p, q = d.shape
    fill = np.zeros(n, np.int64)
    n_ink = np.zeros(n, np.int64)
    n_faint = np.zeros(n, np.int64)
    c_hit = np.zeros(n, np.int64)
    n_dark = np.zeros(n, np.int64)
    level = np.zeros(n, d.dtype)
    vals = np.empty(p * q, d.dtype)
    for k in range(n):
        ti, tf = t_ink[k], t_faint[k]
        t_bi, t_bf = max(ti, t_print), max(tf, t_print)
        m = 0
        for y in range(p):
            for x in range(q):
                ins, nr, tx = inside[k, y, x], near[k, y, x], text[k, y, x]
                dv, ov = d[k, y, x], over[k, y, x]
                d_ink = dv > ti
                if d_ink and ins:
                    fill[k] += 1
                zone_a = ins and not nr
                zone_b = nr or tx
                o_faint = ov > t_bf
                faint_a = dv > tf and zone_a
                faint_b = o_faint and zone_b
                n_ink[k] += (d_ink and zone_a) + (ov > t_bi and zone_b)
                n_faint[k] += faint_a + faint_b
                if centre[k, y, x]:
                    c_hit[k] += faint_a + (o_faint and nr)
                if o_faint and tx:
                    n_dark[k] += 1
                if faint_a or faint_b:
                    vals[m] = ov if zone_b else dv
                    m += 1
        if m >= 3:
            rank = min(max(int(np.floor(0.25 * (m - 1))), 0), p * q - 1)
            level[k] = np.sort(vals[:m])[m - 1 - rank]
    return fill, n_ink, n_faint, c_hit, n_dark, level
