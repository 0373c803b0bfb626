"""Embedded TrueType fonts for every sheet (the PDF standard-14 fonts are not embedded).

The sheet family is DejaVu Sans Condensed when the system has it (narrow, clear at small
sizes, wide Unicode coverage) and otherwise Bitstream Vera, which ships inside ReportLab
and so is always there, set at 88% width (DejaVu Sans Condensed is itself condensed
Vera). Region geometry never depends on which family was found: text is fitted into
fixed boxes, so the layout manifest is the same on every machine.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import reportlab
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

REGULAR, BOLD, ITALIC, BOLD_ITALIC = "SS-Regular", "SS-Bold", "SS-Italic", "SS-BoldItalic"
VERA_CONDENSE = 0.88  # Vera set at 88% width reads like DejaVu Sans Condensed
HSCALE = 1.0  # horizontal scale of the sheet family (set by `register`)
HAND = "SS-Hand"

_DEJAVU_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"),
                Path("/usr/share/fonts/TTF"), Path("/Library/Fonts"), Path("C:/Windows/Fonts"))
_DEJAVU = {REGULAR: "DejaVuSansCondensed.ttf", BOLD: "DejaVuSansCondensed-Bold.ttf",
           ITALIC: "DejaVuSansCondensed-Oblique.ttf",
           BOLD_ITALIC: "DejaVuSansCondensed-BoldOblique.ttf"}
_VERA = {REGULAR: "Vera.ttf", BOLD: "VeraBd.ttf", ITALIC: "VeraIt.ttf", BOLD_ITALIC: "VeraBI.ttf"}
# Handwriting-like faces, first found wins (none ship with ReportLab; the filler falls
# back to jittered glyphs of the oblique sheet face).
_HAND_CANDIDATES = ("Caveat-Regular.ttf", "Caveat[wght].ttf", "PatrickHand-Regular.ttf",
                    "ComicNeue-Regular.ttf", "comic.ttf", "ComicRelief.ttf",
                    "Kalam-Regular.ttf", "DancingScript-Regular.ttf")
_HAND_DIRS = (Path("/usr/share/fonts/truetype"), Path("/usr/share/fonts/opentype"),
              Path("/usr/share/fonts"), Path.home() / ".fonts",
              Path.home() / ".local/share/fonts")


def _find_dejavu() -> dict[str, Path] | None:
    for d in _DEJAVU_DIRS:
        paths = {k: d / v for k, v in _DEJAVU.items()}
        if all(p.is_file() for p in paths.values()):
            return paths
    return None


def _family() -> tuple[str, dict[str, Path]]:
    """The sheet family's name and its TrueType files by style: DejaVu Sans Condensed if
    the system has it, else Vera (STARSHEETS_SHEET_FONT=vera forces Vera, to check a
    machine without DejaVu)."""
    found = None if os.environ.get("STARSHEETS_SHEET_FONT", "").lower() == "vera" \
        else _find_dejavu()
    if found is None:
        base = Path(reportlab.__file__).parent / "fonts"
        return "Vera", {k: base / v for k, v in _VERA.items()}
    return "DejaVu Sans Condensed", found


def ttf_path(style: str = REGULAR) -> Path:
    """The TrueType file of the sheet family's `style`: for text drawn outside a PDF (the
    scanner's overlay)."""
    return _family()[1][style]


@cache
def register() -> str:
    """Register the sheet family once (_family); returns its name ('DejaVu Sans Condensed'
    or 'Vera')."""
    family, found = _family()
    global HSCALE
    HSCALE = 1.0 if family.startswith("DejaVu") else VERA_CONDENSE
    for name, path in found.items():
        pdfmetrics.registerFont(TTFont(name, str(path)))
    pdfmetrics.registerFontFamily(REGULAR, normal=REGULAR, bold=BOLD, italic=ITALIC,
                                  boldItalic=BOLD_ITALIC)
    return family


@cache
def hand_font() -> str | None:
    """Register a handwriting-like TTF as HAND if one is installed; its name or None."""
    register()
    for d in _HAND_DIRS:
        if not d.is_dir():
            continue
        for cand in _HAND_CANDIDATES:
            hits = sorted(d.rglob(cand))
            if hits:
                pdfmetrics.registerFont(TTFont(HAND, str(hits[0])))
                return HAND
    return None


def width(text: str, font: str, size: float) -> float:
    """Printed width of `text` in a sheet font (horizontal scale included)."""
    register()
    scale = HSCALE if font.startswith("SS-") and font != HAND else 1.0
    return pdfmetrics.stringWidth(text, font, size) * scale


@cache
def has_glyph(ch: str, font: str = REGULAR) -> bool:
    register()
    face = pdfmetrics.getFont(font).face
    return ord(ch) in face.charToGlyph


def sym(preferred: str, fallback: str, font: str = REGULAR) -> str:
    """`preferred` if every character has a glyph in `font`, else the ASCII `fallback`."""
    return preferred if all(has_glyph(ch, font) for ch in preferred) else fallback
