"""Triage: what an input file is, and its pages as images (or a fillable form's fields).

    pages(path) -> iterator of PageImage | FormPage | PageError

Formats are told by their first bytes, never by the file name: JPEG, PNG, TIFF (every
page), WebP, BMP, and PDF. A PDF is either a starsheets fillable form (it carries the
layout manifest and AcroForm fields: its fields are read, nothing is rendered) or a scan
(each page rendered with pypdfium2). Image dimensions are read from the header before
anything is decoded, so a decompression bomb is refused without allocating it
(MAX_PIXELS); a truncated JPEG (no end-of-image marker after its scan) is refused rather
than read half grey. Every failure is a StarsheetsError with a one-line message.
"""

from __future__ import annotations

import io
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from starsheets.errors import (
    EncryptedPdfError,
    InputFileError,
    MissingDependencyError,
    StarsheetsError,
)
from starsheets.io import read_bytes

MAX_PIXELS = 80_000_000  # a larger image is refused (a 20 MP photo is 4x below this)
MAX_PDF_PAGES = 200
PDF_DPI = 200.0  # scanned PDF pages are rendered at this resolution (capped by MAX_PIXELS)
FORMATS = "JPEG, PNG, TIFF, WebP, BMP or PDF"


@dataclass
class PageImage:
    """One page to scan: a grayscale image, where it came from, and (for a PDF page or a
    TIFF with a resolution tag) its resolution."""

    source: str
    gray: np.ndarray
    dpi: float | None = None
    decode_ms: float = 0.0


@dataclass
class FormPage:
    """A fillable starsheets PDF: its fields, read without rendering anything."""

    source: str
    kind: str
    edition: str
    values: dict[str, str | int | None]
    code: str = ""
    paper: str = "letter"


@dataclass
class PageError:
    """A page (or a whole file) that could not be read: the batch goes on."""

    source: str
    error: StarsheetsError


def sniff(data: bytes) -> str:
    """The format of a file from its first bytes: jpeg, png, tiff, webp, bmp, pdf or ''."""
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "tiff"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[:2] == b"BM" and len(data) > 26:
        return "bmp"
    if b"%PDF-" in data[:1024]:
        return "pdf"
    return ""


# --- image headers: dimensions without decoding ------------------------------------------
def _jpeg_info(data: bytes) -> tuple[int, int, bool]:
    """(width, height, complete) of a JPEG: walk the segments to the first frame header
    and the scan, then look for the end-of-image marker after the scan."""
    i, n = 2, len(data)
    width = height = 0
    while i + 4 <= n:
        if data[i] != 0xFF:
            raise ValueError("bad JPEG segment")
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2:i + 4])
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE,
                      0xCF) and i + 9 <= n:
            height, width = struct.unpack(">HH", data[i + 5:i + 9])
        if marker == 0xDA:  # start of scan: the entropy-coded data follows
            if not width:
                raise ValueError("no frame header before the scan")
            return width, height, data.rfind(b"\xff\xd9") > i
        i += 2 + length
    raise ValueError("no image data")


def _png_info(data: bytes) -> tuple[int, int]:
    if data[12:16] != b"IHDR":
        raise ValueError("no PNG header")
    return struct.unpack(">II", data[16:24])


def _webp_info(data: bytes) -> tuple[int, int]:
    chunk = data[12:16]
    if chunk == b"VP8X":
        w = 1 + int.from_bytes(data[24:27], "little")
        h = 1 + int.from_bytes(data[27:30], "little")
        return w, h
    if chunk == b"VP8L":
        b = int.from_bytes(data[21:25], "little")
        return 1 + (b & 0x3FFF), 1 + ((b >> 14) & 0x3FFF)
    if chunk == b"VP8 ":
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    raise ValueError("unknown WebP chunk")


def _tiff_pages(data: bytes) -> list[tuple[int, int]]:
    """(width, height) of every page of a TIFF, from its image file directories."""
    end = "<" if data[:2] == b"II" else ">"
    (offset,) = struct.unpack(end + "I", data[4:8])
    sizes, seen = [], set()
    while offset and offset not in seen and offset + 2 <= len(data) and len(sizes) < 10_000:
        seen.add(offset)
        (count,) = struct.unpack(end + "H", data[offset:offset + 2])
        w = h = 0
        for k in range(count):
            e = offset + 2 + 12 * k
            if e + 12 > len(data):
                raise ValueError("truncated TIFF directory")
            tag, typ = struct.unpack(end + "HH", data[e:e + 4])
            val = (struct.unpack(end + "H", data[e + 8:e + 10])[0] if typ == 3
                   else struct.unpack(end + "I", data[e + 8:e + 12])[0])
            if tag == 256:
                w = val
            elif tag == 257:
                h = val
        sizes.append((w, h))
        nxt = offset + 2 + 12 * count
        offset = struct.unpack(end + "I", data[nxt:nxt + 4])[0] if nxt + 4 <= len(data) else 0
    return sizes


def _bmp_info(data: bytes) -> tuple[int, int]:
    w, h = struct.unpack("<ii", data[18:26])
    return abs(w), abs(h)


def _check_pixels(path: str, w: int, h: int) -> None:
    if w <= 0 or h <= 0:
        raise InputFileError(f"{path} has an empty image ({w} x {h})", "Check the file.")
    if w * h > MAX_PIXELS:
        raise InputFileError(
            f"{path} is {w} x {h} pixels ({w * h / 1e6:.0f} MP), over the "
            f"{MAX_PIXELS / 1e6:.0f} MP limit", "Scale the image down (a 12 MP photo is plenty).")


# --- decoding ----------------------------------------------------------------------------
def _decode(path: str, data: bytes, fmt: str) -> list[np.ndarray]:
    import cv2

    try:
        if fmt == "jpeg":
            w, h, complete = _jpeg_info(data)
            _check_pixels(path, w, h)
            if not complete:
                raise InputFileError(f"{path} is a truncated JPEG (it ends before its image does)",
                                     "Copy the photo again from the camera or phone.")
            sizes = [(w, h)]
        elif fmt == "png":
            sizes = [_png_info(data)]
        elif fmt == "webp":
            sizes = [_webp_info(data)]
        elif fmt == "bmp":
            sizes = [_bmp_info(data)]
        else:
            sizes = _tiff_pages(data)
    except (ValueError, struct.error):
        raise InputFileError(f"{path} is a damaged {fmt.upper()} file (bad header)",
                             "Export the image again.") from None
    if not sizes:
        raise InputFileError(f"{path} holds no image", "Export the image again.")
    for w, h in sizes:
        _check_pixels(path, w, h)
    buf = np.frombuffer(data, np.uint8)
    if fmt == "tiff" and len(sizes) > 1:
        ok, images = cv2.imdecodemulti(buf, cv2.IMREAD_GRAYSCALE)
        images = list(images) if ok else []
    else:
        img = cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE)
        images = [] if img is None else [img]
    if not images or any(im is None or im.size == 0 for im in images):
        raise InputFileError(f"{path} could not be decoded as {fmt.upper()} (damaged or "
                             "truncated)", "Export the image again.")
    return images


def _pdf_pages(path: str, data: bytes) -> Iterator[PageImage | FormPage | PageError]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise EncryptedPdfError(f"{path} is an encrypted PDF",
                                    "Save an unencrypted copy first.")
        count = len(reader.pages)
        fields = reader.get_fields() or {}
    except StarsheetsError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, OSError,
            RecursionError) as e:
        raise InputFileError(f"{path} is a damaged PDF ({type(e).__name__})",
                             "Export or scan it again.") from None
    if count == 0:
        raise InputFileError(f"{path} is a PDF with no pages", "Give a scan with pages in it.")
    if fields:
        from sheets.fillable import manifest_of, read_fillable
        from starsheets.errors import NotASheetError

        try:
            attached = manifest_of(reader)
        except (NotASheetError, ValueError):
            pass  # a form, but not ours: read its pages as a scan
        else:
            kind, edition, values = read_fillable(path)
            yield FormPage(path, kind, edition, values, str(attached.get("code", "")),
                           str(attached.get("paper", "letter")))
            return
    if count > MAX_PDF_PAGES:
        raise InputFileError(f"{path} has {count} pages, over the {MAX_PDF_PAGES}-page limit",
                             "Split the PDF.")
    try:
        import pypdfium2 as pdfium
    except ImportError:
        raise MissingDependencyError("reading a scanned PDF needs pypdfium2",
                                     "pip install pypdfium2") from None
    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as e:
        raise InputFileError(f"{path} is a damaged PDF ({e})", "Export or scan it again.") from None
    with doc:
        for i in range(len(doc)):
            source = f"{path}#page={i + 1}"
            try:
                t0 = time.perf_counter()
                page = doc[i]
                w_pt, h_pt = page.get_size()
                dpi = PDF_DPI
                if w_pt * h_pt * (dpi / 72) ** 2 > MAX_PIXELS:
                    dpi = 72 * (MAX_PIXELS / (w_pt * h_pt)) ** 0.5
                bitmap = page.render(scale=dpi / 72, grayscale=True)
                arr = bitmap.to_numpy()
                gray = np.ascontiguousarray(arr[..., 0] if arr.ndim == 3 else arr)
                yield PageImage(source, gray, dpi, (time.perf_counter() - t0) * 1000)
            except pdfium.PdfiumError as e:
                yield PageError(source, InputFileError(f"{source} cannot be rendered ({e})",
                                                       "Export or scan it again."))


def pages(path: str | Path) -> Iterator[PageImage | FormPage | PageError]:
    """Every page of an input file; a file that cannot be read at all raises at once."""
    p = str(path)
    t0 = time.perf_counter()
    data = read_bytes(p, "image or PDF")
    if not data:
        raise InputFileError(f"{p} is empty (0 bytes)", f"Give a photo or scan ({FORMATS}).")
    fmt = sniff(data)
    if not fmt:
        raise InputFileError(f"{p} is not an image or PDF", f"Give a photo or scan ({FORMATS}).")
    if fmt == "pdf":
        yield from _pdf_pages(p, data)
        return
    images = _decode(p, data, fmt)
    ms = (time.perf_counter() - t0) * 1000
    for i, img in enumerate(images):
        source = p if len(images) == 1 else f"{p}#page={i + 1}"
        yield PageImage(source, img, None, ms if i == 0 else 0.0)
