"""Render a registered sheet kind to PDF bytes and its layout manifest."""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import cache, lru_cache

from reportlab.pdfgen.canvas import Canvas

from sheets import fonts
from sheets.code import LAYOUT_VERSION, SheetCode, encode
from sheets.draw import Sheet
from sheets.fillable import ATTACHMENT, FormBuilder
from sheets.manifest import Manifest, Recorder, rect
from sheets.paper import get_paper
from sheets.registry import get_kind


@dataclass(frozen=True)
class Rendered:
    pdf: bytes
    manifest: Manifest
    overflows: tuple[str, ...]  # text that had to be squeezed below the minimum size


def render(kind: str, edition: str | None = None, paper: str = "letter",
           fillable: bool = False) -> Rendered:
    """Draw a sheet: the PDF (manifest attached as starsheets-layout.json) and manifest.

    Rendering is deterministic (ReportLab's invariant mode), so results are cached."""
    sk = get_kind(kind)
    return _render(sk.id, sk.edition(edition), get_paper(paper, sk.papers).name, fillable)


@lru_cache(maxsize=16)
def _render(kind: str, edition: str, paper: str, fillable: bool) -> Rendered:
    plain = _drawn(kind, edition, paper, fillable)
    return Rendered(attach_manifest(plain.pdf, plain.manifest), plain.manifest,
                    plain.overflows)


def drawn(kind: str, edition: str | None = None, paper: str = "letter") -> Rendered:
    """The blank sheet as drawn, its manifest not attached to the PDF: what the scanner
    compares photos with (the same pages as render's; no pypdf pass, ~0.12 s a scan)."""
    sk = get_kind(kind)
    return _drawn(sk.id, sk.edition(edition), get_paper(paper, sk.papers).name, False)


@lru_cache(maxsize=16)
def _drawn(kind: str, edition: str, paper: str, fillable: bool) -> Rendered:
    sk = get_kind(kind)
    ed = edition
    p = get_paper(paper)
    code = encode(SheetCode(sk.id, ed, p.name, LAYOUT_VERSION))
    fonts.register()
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=p.size, invariant=True, pageCompression=True,
               initialFontName=fonts.REGULAR, initialFontSize=7)
    c.setTitle(f"{sk.title} ({ed}, {p.name})")
    c.setAuthor("starsheets")
    c.setSubject(code)
    c.setCreator("starsheets")
    c.setKeywords(code)
    rec = Recorder()
    sheet = Sheet(c, p, sk, ed, code, rec, FormBuilder(c) if fillable else None)
    sheet.start_page()
    sk.draw(sheet)
    c.showPage()
    c.save()
    manifest = Manifest(code=code, kind=sk.id, edition=ed, paper=p.name, layout=LAYOUT_VERSION,
                        page_size=(round(p.width, 3), round(p.height, 3)),
                        printable=rect(*p.printable), pages=rec.page,
                        fiducials=tuple(rec.fiducials), qr=tuple(rec.qr),
                        regions=tuple(rec.regions))
    return Rendered(buf.getvalue(), manifest, tuple(sheet.overflows))


def attach_manifest(pdf: bytes, manifest: Manifest) -> bytes:
    """The PDF with the manifest JSON embedded as the attached file starsheets-layout.json."""
    from pypdf import PdfWriter

    writer = PdfWriter(clone_from=io.BytesIO(pdf))
    writer.add_attachment(ATTACHMENT, manifest.to_json().encode("utf-8"))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@cache
def layout(kind: str, edition: str | None = None, paper: str = "letter") -> Manifest:
    """The layout manifest of a sheet, regenerated (nothing written): what a scanner
    uses once it has read the sheet code."""
    return drawn(kind, edition, paper).manifest


def layout_for_code(code: str) -> Manifest:
    """The manifest for a sheet code read from a QR code (NotASheetError if unknown)."""
    from sheets.code import decode
    from starsheets.errors import NotASheetError, UsageError

    sc = decode(code)
    if sc.layout != LAYOUT_VERSION:
        raise NotASheetError(f"sheet layout {sc.layout} is not this version's {LAYOUT_VERSION}",
                             "Reprint the sheet with this version of starsheets.")
    try:
        return layout(sc.kind, sc.edition, sc.paper)
    except UsageError as e:
        raise NotASheetError(f"sheet code '{code}' names no known sheet ({e.message})",
                             "Scan a sheet printed by `starsheets print`.") from None
