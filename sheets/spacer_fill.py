"""Spacer forms filled as a person would: a character or a setting drawn onto its form.

Reuses the pen of sheets/fill.py (mark_strokes, digit_strokes, name_ink, draw_ink and its
inks), page by page: the Spacer forms have more than one page.

    character_ink(character, manifest, style, seed)  every stroke and glyph, with its page
    setting_ink(setting, manifest, style, seed)
    fill_character_pdf(character, paper, style, seed) -> bytes
    fill_setting_pdf(setting, paper, style, seed) -> bytes
    spacer_file_kind(data) -> 'character' | 'setting' | None   (what a data file holds)

Everything random comes from one random.Random(seed): a (file, paper, style, seed) gives
the same bytes every time; 'clean' ignores the seed.
"""

from __future__ import annotations

import io
import random
from collections.abc import Mapping
from typing import Any

from reportlab.pdfgen.canvas import Canvas

from game.spacer.character import FORMAT as CHARACTER_FORMAT
from game.spacer.character import Character
from game.spacer.data import load_data
from game.spacer.marks import MARKED, character_to_marks, setting_to_marks
from game.spacer.schema import SETTING_FORMAT
from game.spacer.setting import Setting
from sheets import fonts
from sheets.fill import (
    INKS,
    STYLES,
    Glyph,
    Ink,
    digit_cells_text,
    digit_strokes,
    draw_ink,
    mark_strokes,
    name_ink,
)
from sheets.manifest import Manifest, Rect

CHARACTER_KIND = "spacer-character"
SETTING_KIND = "spacer-setting"
PageInk = tuple[int, Ink]  # (page number from 1, a stroke or glyph)


def _check_style(style: str) -> None:
    if style not in STYLES:
        raise ValueError(f"unknown fill style {style!r} (use {', '.join(STYLES)})")


def text_ink(s: str, r: Rect, style: str, rng: random.Random,
             ink: tuple[float, float, float]) -> list[Glyph]:
    """A written line. The clean hand shrinks a long line to fit its box (ink, unlike
    print, may go below 6.5 pt); the pen hand is sheets.fill.name_ink's."""
    if style != "clean":
        return name_ink(s, r, style, rng, ink)
    fonts.register()
    x, y, w, h = r
    size = min(11.0, h * 0.6)
    need = fonts.width(s, fonts.ITALIC, size)
    if need > w - 8:
        size = max(3.0, size * (w - 8) / need)
    return [Glyph(s, round(x + 4, 3), round(y + h * 0.28, 3), round(size, 3), 0.0,
                  fonts.ITALIC, ink)]


def marks_ink(marks: Mapping[str, Any], manifest: Manifest, style: str,
              seed: int = 0) -> list[PageInk]:
    """Every stroke and glyph that writes `marks` (region id -> value) onto the form."""
    _check_style(style)
    rng = random.Random(seed)
    ink = INKS["black"] if style == "clean" else INKS[rng.choice(("blue", "black"))]
    out: list[PageInk] = []
    for reg in manifest.regions:
        value = marks.get(reg.id)
        if value is None:
            continue
        if reg.kind in ("checkbox", "bubble") and value in MARKED:
            shape = "bubble" if reg.kind == "bubble" else "box"
            out.extend((reg.page, s) for s in mark_strokes(str(value), reg.rect, style, rng,
                                                           ink, shape))
        elif reg.kind == "digits" and isinstance(value, int):
            chars = digit_cells_text(value, len(reg.cells))
            out.extend((reg.page, s) for s in digit_strokes(chars, reg.cells, style, rng, ink))
        elif reg.kind == "text" and isinstance(value, str) and value.strip():
            out.extend((reg.page, g) for g in text_ink(value.strip(), reg.rect, style, rng,
                                                       ink))
    return out


def character_ink(character: Character, manifest: Manifest, style: str,
                  seed: int = 0) -> list[PageInk]:
    return marks_ink(character_to_marks(character, manifest), manifest, style, seed)


def setting_ink(setting: Setting, manifest: Manifest, style: str,
                seed: int = 0) -> list[PageInk]:
    return marks_ink(setting_to_marks(setting, manifest), manifest, style, seed)


def _fill(kind: str, inks: list[PageInk], paper: str, title: str) -> bytes:
    """The blank form with the ink merged onto each page (manifest still attached)."""
    from pypdf import PdfReader, PdfWriter

    from sheets.render import render

    blank = render(kind, None, paper)
    manifest = blank.manifest
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=manifest.page_size, invariant=True, pageCompression=True,
               initialFontName=fonts.REGULAR, initialFontSize=7)
    for page in range(1, manifest.pages + 1):
        draw_ink(c, (i for p, i in inks if p == page))
        c.showPage()
    c.save()
    overlay = PdfReader(io.BytesIO(buf.getvalue()))
    writer = PdfWriter(clone_from=io.BytesIO(blank.pdf))
    for k, page in enumerate(writer.pages):
        page.merge_page(overlay.pages[k])
    writer.add_metadata({"/Subject": manifest.code, "/Title": title})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def fill_character_pdf(character: Character, paper: str = "letter", style: str = "pen",
                       seed: int = 0) -> bytes:
    """The Character Form on `paper`, filled with `character`. ValueError names what
    does not fit on the form."""
    from sheets.render import layout

    _check_style(style)
    manifest = layout(CHARACTER_KIND, None, paper)
    inks = character_ink(character, manifest, style, seed)
    who = character.character or "a spacer"
    return _fill(CHARACTER_KIND, inks, paper, f"Spacer character form: {who}")


def fill_setting_pdf(setting: Setting, paper: str = "letter", style: str = "pen",
                     seed: int = 0) -> bytes:
    from sheets.render import layout

    _check_style(style)
    manifest = layout(SETTING_KIND, None, paper)
    inks = setting_ink(setting, manifest, style, seed)
    return _fill(SETTING_KIND, inks, paper,
                 f"Spacer setting form: {setting.title or 'a setting'}")


def spacer_file_kind(data: Any) -> str | None:
    """'character' or 'setting' when a parsed data file is a Spacer file, else None (an
    OPIAL career state, or not a mapping). The `format` field decides; without it, the
    fields only a Spacer file has."""
    if not isinstance(data, Mapping):
        return None
    fmt = data.get("format")
    if fmt == CHARACTER_FORMAT:
        return "character"
    if fmt == SETTING_FORMAT:
        return "setting"
    if isinstance(fmt, str) and fmt.startswith("starsheets/spacer-"):
        return "character" if "character" in fmt else "setting"
    keys = set(data)
    if keys & {"inborn", "trained", "species", "departments", "principles", "traits"}:
        return "character"
    if keys & {g.id for g in load_data().setting_groups}:
        return "setting"
    return None
