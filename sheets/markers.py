"""Machine-readable furniture of every sheet: ArUco fiducials and the sheet-code QR code.

Both are drawn as vector squares (no bitmaps), so they stay sharp at any print size.
Fiducials: cv2.aruco DICT_4X4_50, ids 0..3 clockwise from the top-left corner, 12 mm
(6 x 6 modules of 2 mm, black border included), 6.5 mm from the edge, with a 2.5 mm
white quiet zone. The QR
code sits in the top band just left of the top-right marker.
"""

from __future__ import annotations

from functools import cache

from reportlab.graphics.barcode import qrencoder
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from sheets.manifest import Fiducial, QrCode, rect
from sheets.paper import EDGE, Paper

MARKER_SIZE = 12 * mm
MARKER_QUIET = 2.5 * mm  # more than one module (2 mm) of white on every side
MARKER_INSET = EDGE + 0.5 * mm  # the marker's outer edge, from the paper's edge
QR_MODULE = 0.5 * mm
QR_QUIET_MODULES = 4
POSITIONS = ("top-left", "top-right", "bottom-right", "bottom-left")  # ids 0, 1, 2, 3


@cache
def aruco_bits(marker_id: int) -> tuple[tuple[bool, ...], ...]:
    """The 6 x 6 cells of a DICT_4X4_50 marker (border included), True = black, rows top down."""
    import cv2

    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    img = cv2.aruco.generateImageMarker(dictionary, marker_id, 6)
    return tuple(tuple(bool(v < 128) for v in row) for row in img)


def marker_origin(paper: Paper, position: str) -> tuple[float, float]:
    """Bottom-left corner of the marker at `position`."""
    left = MARKER_INSET
    right = paper.width - MARKER_INSET - MARKER_SIZE
    bottom = MARKER_INSET
    top = paper.height - MARKER_INSET - MARKER_SIZE
    return {"top-left": (left, top), "top-right": (right, top),
            "bottom-right": (right, bottom), "bottom-left": (left, bottom)}[position]


def draw_aruco(c: Canvas, marker_id: int, x: float, y: float, size: float) -> None:
    """Draw marker `marker_id` with its bottom-left corner at (x, y), as merged black runs."""
    bits = aruco_bits(marker_id)
    n = len(bits)
    cell = size / n
    c.saveState()
    c.setFillColorRGB(0, 0, 0)
    c.setStrokeColorRGB(0, 0, 0)
    path = c.beginPath()
    for row, cells in enumerate(bits):
        col = 0
        while col < n:
            if cells[col]:
                start = col
                while col < n and cells[col]:
                    col += 1
                path.rect(x + start * cell, y + size - (row + 1) * cell,
                          (col - start) * cell, cell)
            else:
                col += 1
    c.drawPath(path, stroke=0, fill=1)
    c.restoreState()


def fiducial(paper: Paper, position: str, page: int = 1) -> Fiducial:
    """The Fiducial record for one corner (marker id = index in POSITIONS)."""
    x, y = marker_origin(paper, position)
    s = MARKER_SIZE
    corners = ((x, y + s), (x + s, y + s), (x + s, y), (x, y))
    return Fiducial(POSITIONS.index(position), page, position, round(s, 3),
                    round(MARKER_QUIET, 3), (round(x + s / 2, 3), round(y + s / 2, 3)),
                    tuple((round(px, 3), round(py, 3)) for px, py in corners))  # type: ignore[arg-type]


def draw_fiducials(c: Canvas, paper: Paper, page: int = 1) -> list[Fiducial]:
    out = []
    for position in POSITIONS:
        f = fiducial(paper, position, page)
        x, y = marker_origin(paper, position)
        draw_aruco(c, f.id, x, y, f.size)
        out.append(f)
    return out


@cache
def qr_matrix(payload: str) -> tuple[tuple[bool, ...], ...]:
    """The QR symbol's modules (no quiet zone), level M, rows top down."""
    q = qrencoder.QRCode(None, qrencoder.QRErrorCorrectLevel.M)
    q.addData(payload)
    q.make()
    n = q.getModuleCount()
    return tuple(tuple(bool(q.isDark(r, col)) for col in range(n)) for r in range(n))


def qr_size(payload: str) -> float:
    return len(qr_matrix(payload)) * QR_MODULE


def qr_origin(paper: Paper, payload: str) -> tuple[float, float]:
    """Bottom-left of the QR symbol: top band, its top aligned with the markers' top,
    left of the top-right marker with both quiet zones between them."""
    s = qr_size(payload)
    x = paper.width - MARKER_INSET - MARKER_SIZE - MARKER_QUIET - QR_QUIET_MODULES * QR_MODULE - s
    y = paper.height - MARKER_INSET - s
    return x, y


def draw_qr(c: Canvas, paper: Paper, payload: str, page: int = 1) -> QrCode:
    """Draw the QR code (vector, merged runs per row) and return its record."""
    m = qr_matrix(payload)
    n = len(m)
    x, y = qr_origin(paper, payload)
    c.saveState()
    c.setFillColorRGB(0, 0, 0)
    path = c.beginPath()
    for row, cells in enumerate(m):
        col = 0
        while col < n:
            if cells[col]:
                start = col
                while col < n and cells[col]:
                    col += 1
                path.rect(x + start * QR_MODULE, y + (n - row - 1) * QR_MODULE,
                          (col - start) * QR_MODULE, QR_MODULE)
            else:
                col += 1
    c.drawPath(path, stroke=0, fill=1)
    c.restoreState()
    return QrCode(page, rect(x, y, n * QR_MODULE, n * QR_MODULE),
                  round(QR_QUIET_MODULES * QR_MODULE, 3), n, payload)
