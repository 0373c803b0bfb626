"""Load a Spacer character or setting from a file: YAML, JSON, a filled fillable PDF, or a
photo or scan of a filled form.

`starsheets validate character|setting FILE` reads its FILE through these, so a form
filled in a PDF viewer, or filled by hand and photographed, validates like a character
file:

    load_character(path, notes=None) -> Character   YAML/JSON (docs/character.md), a
                                                    filled form, a photo or scan
    load_setting(path, notes=None) -> Setting
    load_character([p1, p2]) / load_setting([...])  a form photographed page by page

A file is taken for a PDF when it starts with the PDF header, whatever its name; a PDF
with form fields is a fillable form, any other PDF (a scan, a form filled with
`starsheets fill`) and any image (JPEG, PNG, TIFF, WebP, BMP) is read by the scanner
(scanner.spacer.read_form, imported only then), which appends to `notes` what a person
should check (marks and handwriting it was unsure of).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from game.spacer.character import Character
from game.spacer.setting import Setting
from starsheets.io import load_data_file, read_bytes


def is_pdf(path: str | Path, what: str = "file") -> bool:
    """True if the file starts like a PDF (InputFileError, naming `what`, if it cannot
    be read)."""
    return read_bytes(path, what)[:1024].lstrip().startswith(b"%PDF-")


IMAGE_MAGIC = (b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n", b"II*\x00", b"MM\x00*", b"BM")


def is_image(path: str | Path, what: str = "file") -> bool:
    """True if the file starts like a JPEG, PNG, TIFF, WebP or BMP image."""
    head = read_bytes(path, what)[:16]
    return head.startswith(IMAGE_MAGIC) or (head[:4] == b"RIFF" and head[8:12] == b"WEBP")


def has_form_fields(path: str | Path) -> bool:
    """True if a PDF has AcroForm fields (a fillable form); a damaged PDF counts as one,
    so the form reader reports it as before."""
    import io

    from pypdf import PdfReader

    try:
        return bool(PdfReader(io.BytesIO(read_bytes(path, "PDF"))).get_fields())
    except Exception:  # damaged or encrypted: the form reader says what is wrong
        return True


def _scanned(path: str | Path, what: str) -> bool:
    """A photo or scan for the scanner (not a data file, not a fillable form)."""
    if is_image(path, what):
        return True
    return is_pdf(path, what) and not has_form_fields(path)


def _photos(paths: Sequence[str | Path], what: str) -> list[str]:
    """Several files are the pages of one form: each must be a photo or scan."""
    from starsheets.errors import UsageError

    for p in paths:
        if not _scanned(p, what):
            raise UsageError(f"{p} is not a photo or scan; several files are read as the pages "
                             "of one photographed form",
                             "Give one character/setting file, or the photos of each page.")
    return [str(p) for p in paths]


def load_character(path: str | Path | Sequence[str | Path],
                   notes: list[str] | None = None) -> Character:
    """Read and check a character: a YAML/JSON character file (schema-checked), a
    fillable Character Form filled in a PDF viewer, or a photo or scan of a filled form
    (both pages: a PDF or TIFF holding them, or a list of files, one per page)."""
    if not isinstance(path, (str, Path)):
        from scanner.spacer import read_form

        if len(path) != 1:
            return read_form(_photos(path, "character file"), "spacer-character",  # type: ignore[no-any-return]
                             notes)
        path = path[0]
    if _scanned(path, "character file"):
        from scanner.spacer import read_form

        return read_form(str(path), "spacer-character", notes)  # type: ignore[no-any-return]
    if is_pdf(path, "character file"):
        from sheets.spacer_fillable import read_character_form

        return read_character_form(path)
    return Character.from_dict(load_data_file(path, "character file"), source=str(path))


def load_setting(path: str | Path | Sequence[str | Path],
                 notes: list[str] | None = None) -> Setting:
    """Read and check a setting: a YAML/JSON setting file, a filled fillable Setting
    Form, or a photo or scan of a filled form (or a list of files, one per page)."""
    if not isinstance(path, (str, Path)):
        from scanner.spacer import read_form

        if len(path) != 1:
            return read_form(_photos(path, "setting file"), "spacer-setting", notes)  # type: ignore[no-any-return]
        path = path[0]
    if _scanned(path, "setting file"):
        from scanner.spacer import read_form

        return read_form(str(path), "spacer-setting", notes)  # type: ignore[no-any-return]
    if is_pdf(path, "setting file"):
        from sheets.spacer_fillable import read_setting_form

        return read_setting_form(path)
    return Setting.from_dict(load_data_file(path, "setting file"), source=str(path))
