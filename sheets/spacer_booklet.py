"""The Spacer player booklet: the three Spacer forms at half-letter, with a cover, imposed
as a saddle-stitched booklet by sheets/booklet.py (its pure API; no imposition here).

Eight half-letter pages, so that two sheets of Letter (or A4) printed duplex, folded
and stapled make the booklet, and each form that spans two pages is a spread:

    1  cover: title, contents, how to mark the forms
    2  setting notes: the names of the important bodies, the enemy, notes
    3  Setting Form                               (faces its notes)
    4  Character Form, page 1  |  5  page 2       (the centre spread)
    6  reference card, page 1  |  7  page 2
    8  back cover: using the forms with starsheets, credits

The forms are the very sheets `starsheets print` makes (fiducials, QR code, sheet code);
the cover, notes and back cover are plain pages with nothing to mark for a machine.
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass

from reportlab.lib.colors import HexColor, white
from reportlab.pdfgen.canvas import Canvas

import templates
from sheets import fonts
from sheets.booklet import SHEETS, BookletSettings, build_booklet
from sheets.draw import ACCENT, INK, MIN_TEXT, MUTED, RULE, draw_string
from sheets.paper import EDGE, get_paper
from sheets.render import render
from sheets.spacer_draw import LEGEND_LABELS, legend, legend_width

PAPER = "half-letter"
MARGIN = EDGE + 12.0  # the plain pages keep a wider margin than the forms
NIGHT = HexColor("#0F1F36")


@dataclass(frozen=True)
class Part:
    title: str
    kind: str | None  # a sheet kind, or None for a plain page drawn here
    pages: int


def parts() -> list[Part]:
    """The booklet's contents in page order (the forms' page counts as rendered)."""
    def count(kind: str) -> int:
        return render(kind, None, PAPER).manifest.pages

    return [Part("Cover", None, 1), Part("Setting notes", None, 1),
            Part("Setting form", "spacer-setting", count("spacer-setting")),
            Part("Character form", "spacer-character", count("spacer-character")),
            Part("Reference card", "spacer-reference", count("spacer-reference")),
            Part("Using these forms", None, 1)]


def page_numbers(ps: list[Part]) -> list[tuple[Part, int, int]]:
    out = []
    n = 1
    for p in ps:
        out.append((p, n, n + p.pages - 1))
        n += p.pages
    return out


# --- the plain pages ------------------------------------------------------------------------
class Page:
    """Text helpers on a plain half-letter page (same fonts and palette as the forms)."""

    def __init__(self, c: Canvas, width: float, height: float) -> None:
        self.c, self.w, self.h = c, width, height

    def text(self, x: float, y: float, s: str, size: float = 8.0, font: str = fonts.REGULAR,
             color: object = INK, align: str = "left", spacing: float = 0.0) -> float:
        assert size >= MIN_TEXT
        return draw_string(self.c, x, y, s, size, font, color, align, spacing)

    def para(self, x: float, y: float, width: float, s: str, size: float = 8.0,
             font: str = fonts.REGULAR, color: object = INK, leading: float = 1.35) -> float:
        """Wrapped text from baseline y; returns the baseline after the last line."""
        line = ""
        for word in s.split():
            trial = f"{line} {word}".strip()
            if fonts.width(trial, font, size) > width and line:
                self.text(x, y, line, size, font, color)
                y -= size * leading
                line = word
            else:
                line = trial
        if line:
            self.text(x, y, line, size, font, color)
            y -= size * leading
        return y

    def band(self, x: float, y: float, w: float, h: float, color: object = ACCENT) -> None:
        self.c.saveState()
        self.c.setFillColor(color)
        self.c.rect(x, y, w, h, stroke=0, fill=1)
        self.c.restoreState()

    def heading(self, y: float, title: str) -> float:
        self.band(MARGIN, y - 13, self.w - 2 * MARGIN, 13)
        self.text(MARGIN + 5, y - 9.3, title.upper(), 8.0, fonts.BOLD, white, spacing=0.4)
        return y - 13

    def rule(self, x0: float, x1: float, y: float, color: object = RULE,
             width: float = 0.5) -> None:
        self.c.saveState()
        self.c.setStrokeColor(color)
        self.c.setLineWidth(width)
        self.c.line(x0, y, x1, y)
        self.c.restoreState()


@dataclass
class _Surface:
    """What sheets.spacer_draw.legend needs of a Sheet: a canvas, and a list for text
    that would not fit (none here: the legend is given its own width)."""

    c: Canvas
    overflows: list[str]


def draw_legend(pg: Page, x: float, y: float) -> None:
    """The marking legend with the real shapes, as the forms draw it."""
    legend(_Surface(pg.c, []), x, y, legend_width(tuple(LEGEND_LABELS)))  # type: ignore[arg-type]


def draw_cover(pg: Page, contents: list[tuple[Part, int, int]]) -> None:
    data = templates.load("spacer")
    w, h = pg.w, pg.h
    top = h * 0.42
    pg.band(EDGE, top, w - 2 * EDGE, h - EDGE - top, NIGHT)
    rng = random.Random(4)  # a fixed starfield: the same cover every time
    pg.c.saveState()
    pg.c.setFillColor(white)
    for _ in range(140):
        x = rng.uniform(EDGE + 3, w - EDGE - 3)
        y = rng.uniform(top + 3, h - EDGE - 3)
        pg.c.circle(x, y, rng.choice((0.25, 0.35, 0.5, 0.8)), stroke=0, fill=1)
    pg.c.restoreState()
    pg.text(w / 2, h - 150, str(data["title"]).upper(), 46.0, fonts.BOLD, white, "centre",
            spacing=9.0)
    pg.band(w / 2 - 90, h - 165, 180, 1.4, HexColor("#C9D6E6"))
    pg.text(w / 2, h - 183, str(data["subtitle"]).capitalize(), 10.0, fonts.ITALIC,
            HexColor("#C9D6E6"), "centre")
    pg.text(w / 2, top + 40, "PLAYER FORMS & REFERENCE", 11.0, fonts.BOLD, white, "centre",
            spacing=1.6)
    pg.text(w / 2, top + 24, "setting form · character form · reference card", 8.0,
            fonts.REGULAR, HexColor("#C9D6E6"), "centre")
    y = top - 26
    pg.text(MARGIN, y, "CONTENTS", 8.0, fonts.BOLD, ACCENT, spacing=0.6)
    y -= 16
    for part, first, last in contents[1:]:
        pages = str(first) if first == last else f"{first}–{last}"
        pg.text(MARGIN, y, part.title, 9.0, fonts.BOLD, INK)
        pg.text(w - MARGIN, y, pages, 9.0, fonts.BOLD, ACCENT, "right")
        pg.c.saveState()
        pg.c.setStrokeColor(RULE)
        pg.c.setDash(0.6, 2.4)
        pg.c.line(MARGIN + fonts.width(part.title, fonts.BOLD, 9.0) + 6, y + 1,
                  w - MARGIN - fonts.width(pages, fonts.BOLD, 9.0) - 6, y + 1)
        pg.c.restoreState()
        y -= 15
    y -= 10
    pg.text(MARGIN, y, "HOW TO MARK THE FORMS", 8.0, fonts.BOLD, ACCENT, spacing=0.6)
    y -= 15
    draw_legend(pg, MARGIN, y + 2.5)
    y -= 15
    pg.para(MARGIN, y, w - 2 * MARGIN,
            "Use a pencil or a dark pen. Fill a circle right in, tick squares and diamonds, "
            "and write numbers one digit a cell. Keep the black corner squares and the QR "
            "code clean: they tell a scanner which form it is and where its boxes are.",
            7.5, color=MUTED)
    pg.text(w / 2, EDGE + 8, "Spacer © 2008 William F. Hostman. All Rights Reserved.",
            MIN_TEXT, fonts.ITALIC, MUTED, "centre")


def draw_notes(pg: Page) -> None:
    w, h = pg.w, pg.h
    y = h - MARGIN
    pg.text(MARGIN, y - 14, "SPACER", 15.0, fonts.BOLD, ACCENT, spacing=1.6)
    pg.text(MARGIN + 78, y - 14, "SETTING NOTES", 8.5, fonts.BOLD, INK)
    y = pg.para(MARGIN, y - 28, w - 2 * MARGIN, "Agree how the government is organised "
                "and the names of its important bodies; on Enemy Turf, write the enemy up "
                "too.", 7.0, fonts.ITALIC, MUTED) - 4
    y = pg.heading(y, "Names of the important bodies")
    groups = {g["id"]: g for g in templates.load("spacer")["setting"]["groups"]}
    for gid in ("government", "lawmaking", "judicial", "agencies"):
        title = str(groups[gid]["title"]).split(":")[0]
        y -= 20
        pg.text(MARGIN, y + 2, title, 7.5, fonts.BOLD, ACCENT)
        pg.rule(MARGIN + 96, w - MARGIN, y, INK, 0.6)
        y -= 18
        pg.rule(MARGIN + 96, w - MARGIN, y, INK, 0.6)
    y -= 14
    y = pg.heading(y, "The enemy")
    for _ in range(5):
        y -= 18
        pg.rule(MARGIN, w - MARGIN, y, INK, 0.6)
    y -= 14
    y = pg.heading(y, "Notes")
    y -= 18
    while y > MARGIN:
        pg.rule(MARGIN, w - MARGIN, y, INK, 0.6)
        y -= 18


BACK_STEPS = (
    ("Agree the setting", "Fill the Setting Form together (page 3); `starsheets validate "
     "setting FILE` prints the agreed setting and what is still open."),
    ("Make characters", "Fill the Character Form (pages 4–5), or start from "
     "`starsheets new character --seed N`. At creation the St column equals the value."),
    ("Check them", "`starsheets validate character FILE` checks every creation rule and "
     "every number you derived. FILE is a YAML or JSON character, or a form filled in a "
     "PDF viewer (`starsheets print character --fillable`)."),
    ("Print more", "`starsheets print setting|character|reference-card --paper "
     "half-letter|a5|letter|a4`, `starsheets fill CHARACTER.yaml -o filled.pdf`, and this "
     "booklet: `starsheets print spacer-booklet --sheet letter|a4`."),
)


def draw_back(pg: Page) -> None:
    w, h = pg.w, pg.h
    y = h - MARGIN
    pg.text(MARGIN, y - 14, "SPACER", 15.0, fonts.BOLD, ACCENT, spacing=1.6)
    pg.text(MARGIN + 78, y - 14, "USING THESE FORMS", 8.5, fonts.BOLD, INK)
    y -= 34
    for n, (title, body) in enumerate(BACK_STEPS, start=1):
        pg.band(MARGIN, y - 12, 14, 14)
        pg.text(MARGIN + 7, y - 8.5, str(n), 8.5, fonts.BOLD, white, "centre")
        pg.text(MARGIN + 22, y - 8.5, title, 9.0, fonts.BOLD, INK)
        y = pg.para(MARGIN + 22, y - 22, w - 2 * MARGIN - 22, body, 7.5, color=MUTED) - 10
    y -= 4
    pg.rule(MARGIN, w - MARGIN, y, RULE, 0.6)
    y -= 16
    y = pg.para(MARGIN, y, w - 2 * MARGIN,
                "Every form carries four corner markers and a QR code with its sheet code "
                "(the form, the paper and the layout version, also printed at its foot). "
                "starsheets keeps where every box of every form is: `starsheets layout "
                "character --paper half-letter --json`.", 7.5, color=MUTED)
    y -= 8
    pg.para(MARGIN, y, w - 2 * MARGIN,
            "Printing this booklet: print duplex, flip on the short edge, at 100 %; fold the "
            "two sheets together and staple on the fold.", 7.5, color=MUTED)
    pg.text(w / 2, MARGIN + 14, "Spacer: a 24-hour roleplaying game by William F. Hostman.",
            7.0, fonts.ITALIC, MUTED, "centre")
    pg.text(w / 2, MARGIN + 4, "Spacer © 2008 William F. Hostman. All Rights Reserved.  "
            "Forms by starsheets.", MIN_TEXT, fonts.ITALIC, MUTED, "centre")


def plain_pages(contents: list[tuple[Part, int, int]]) -> bytes:
    """Cover, setting notes and back cover as three half-letter pages."""
    fonts.register()
    p = get_paper(PAPER)
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=p.size, invariant=True, pageCompression=True,
               initialFontName=fonts.REGULAR, initialFontSize=7)
    pg = Page(c, p.width, p.height)
    draw_cover(pg, contents)
    c.showPage()
    draw_notes(pg)
    c.showPage()
    draw_back(pg)
    c.showPage()
    c.save()
    return buf.getvalue()


def spacer_pages() -> bytes:
    """The eight half-letter pages of the booklet, in reading order, as one PDF."""
    from pypdf import PdfReader, PdfWriter

    contents = page_numbers(parts())
    plain = PdfReader(io.BytesIO(plain_pages(contents)))
    plain_iter = iter(plain.pages)
    writer = PdfWriter()
    for part, _first, _last in contents:
        if part.kind is None:
            writer.add_page(next(plain_iter))
            continue
        for page in PdfReader(io.BytesIO(render(part.kind, None, PAPER).pdf)).pages:
            writer.add_page(page)
    writer.add_metadata({"/Title": "Spacer player booklet", "/Author": "starsheets",
                         "/Creator": "starsheets", "/Subject": "Spacer forms at half-letter",
                         "/Keywords": "Spacer; setting form; character form; reference card"})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@dataclass(frozen=True)
class Booklet:
    pdf: bytes
    pages: int  # booklet pages (half-letter)
    sheets: int  # sheets of paper


def spacer_booklet_pdf(sheet: str = "letter") -> Booklet:
    """The imposed booklet on `sheet` (letter or a4), ready to print duplex."""
    from pypdf import PdfReader

    sheet = str(sheet).strip().lower()
    if sheet not in SHEETS:
        from starsheets.errors import UsageError

        raise UsageError(f"unknown sheet size {sheet!r}", f"Use one of: {', '.join(SHEETS)}.")
    reader = PdfReader(io.BytesIO(spacer_pages()))
    writer, report = build_booklet(reader, BookletSettings(sheet=sheet), "Spacer booklet")
    out = io.BytesIO()
    writer.write(out)
    return Booklet(out.getvalue(), report.input_pages + report.blanks, report.sheets)


__all__ = ["Booklet", "Part", "page_numbers", "parts", "spacer_booklet_pdf", "spacer_pages"]
