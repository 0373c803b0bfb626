"""Fillable sheets: AcroForm fields named by the layout manifest's region ids.

Representation (see docs/sheets.md):
  checkbox            a check box; on-state /Yes (ReportLab's export value)
  executed box        a combo box with export values "S" (shown X: success) and
                      "F" (shown /: attempted and failed); empty = not attempted
  bubble group        one radio field named by the group ('length', 'start'); each
                      button's export value is the option ('career', 'roll', ...), so
                      the bubble's region id is '<group>.<value>'
  text                a text field (the name)
  digits              a comb text field with one cell per digit cell

Every field is optional (not 'required'), has no fill colour and no border of its
own (the printed box is the border), and prints. All fields use Helvetica (one font:
ReportLab writes a duplicate /DR /Font key when fields use two), which viewers supply.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

from reportlab.lib.colors import HexColor
from reportlab.pdfgen.canvas import Canvas

from starsheets.errors import EncryptedPdfError, InputFileError, NotASheetError
from starsheets.io import read_bytes

ATTACHMENT = "starsheets-layout.json"
CHECKBOX_ON = "/Yes"
# (shown, export value). The blank choice is a space: ReportLab cannot build a combo box
# whose initial value is the empty string.
EXECUTED_OPTIONS = ((" ", " "), ("X", "S"), ("/", "F"))
_INK = HexColor("#1B3A8C")  # a pen-blue for what the player enters

CHECKED, SLASHED, BLANK = "checked", "slashed", "empty"  # game.opial.marks vocabulary

Rect = tuple[float, float, float, float]


class FormBuilder:
    """Adds AcroForm fields to a ReportLab canvas as the sheet is drawn."""

    def __init__(self, c: Canvas) -> None:
        self.af = c.acroForm
        self.names: set[str] = set()

    def _common(self, name: str) -> dict[str, Any]:
        if name in self.names:
            raise ValueError(f"form field {name!r} added twice")
        self.names.add(name)
        return {"name": name, "tooltip": name, "borderWidth": 0, "borderColor": None,
                "fillColor": None, "textColor": _INK, "annotationFlags": "print",
                "fieldFlags": ""}

    def checkbox(self, name: str, r: Rect) -> None:
        x, y, w, h = r
        size = min(w, h)
        self.af.checkbox(x=x + (w - size) / 2, y=y + (h - size) / 2, size=size,
                         checked=False, buttonStyle="cross", **self._common(name))

    def executed(self, name: str, r: Rect) -> None:
        x, y, w, h = r
        kw = self._common(name)
        kw["fieldFlags"] = "combo"
        self.af.choice(x=x, y=y, width=w, height=h, value=" ", fontName="Helvetica",
                       fontSize=max(6.0, h * 0.7), options=list(EXECUTED_OPTIONS), **kw)

    def radio(self, group: str, value: str, r: Rect) -> None:
        x, y, w, h = r
        size = min(w, h)
        kw = self._common(f"{group}.{value}")
        kw["name"] = group
        kw["fieldFlags"] = "radio"
        # shape="square" (borderless): ReportLab centres the circle's dot only on 20 pt
        # circle-shaped buttons; on a square widget it stays centred at any size
        self.af.radio(value=value, selected=False, x=x, y=y, size=size, buttonStyle="circle",
                      shape="square", **kw)

    def text(self, name: str, r: Rect) -> None:
        x, y, w, h = r
        self.af.textfield(x=x, y=y, width=w, height=h, value="", maxlen=200,
                          fontName="Helvetica", fontSize=min(12.0, h * 0.6),
                          **self._common(name))

    def comb(self, name: str, r: Rect, cells: int) -> None:
        x, y, w, h = r
        kw = self._common(name)
        kw["fieldFlags"] = "comb"
        self.af.textfield(x=x, y=y, width=w, height=h, value="", maxlen=cells,
                          fontName="Helvetica", fontSize=min(11.0, h * 0.7), **kw)


# --- reading a filled form ----------------------------------------------------------------
def _name_value(v: Any) -> str:
    return str(v).lstrip("/") if v is not None else ""


def parse_digits(text: str) -> int | None:
    """A written number ('-6', '−6', ' 14', '+3') or None if blank or unreadable."""
    t = text.strip().replace("−", "-").replace(" ", "")
    return int(t) if re.fullmatch(r"[+-]?\d+", t) else None


def manifest_of(reader: Any) -> dict[str, Any]:
    """The layout manifest attached to a starsheets PDF (NotASheetError if none)."""
    try:
        attached = reader.attachments
    except Exception:  # a damaged name tree reads as "no attachment"
        attached = {}
    blobs = attached.get(ATTACHMENT) if attached else None
    if not blobs:
        raise NotASheetError(f"the PDF carries no {ATTACHMENT}",
                             "Use a form made by `starsheets print ... --fillable`.")
    return json.loads(blobs[0])


def read_fillable(path: str | Path) -> tuple[str, str, dict[str, str | int | None]]:
    """Read a filled fillable sheet: (sheet kind, edition, {region id: value}).

    Values use the vocabulary of game.opial.marks: 'checked', 'slashed' (an Executed
    box set to failed), 'empty'; the text for text regions and an int (or None) for
    digits, so `marks_to_state` turns the result into a career state."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    data = read_bytes(path, "PDF form")
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise EncryptedPdfError(f"{path} is encrypted", "Save an unencrypted copy first.")
        manifest = manifest_of(reader)
        fields = reader.get_fields() or {}
    except (PdfReadError, ValueError, KeyError) as e:
        raise InputFileError(f"cannot read {path} as a PDF form ({e})",
                             "Give a PDF made by `starsheets print --fillable`.") from None
    values: dict[str, str | int | None] = {}
    for region in manifest["regions"]:
        rid, kind = region["id"], region["kind"]
        if kind == "bubble":
            group, _, option = rid.rpartition(".")
            f = fields.get(group)
            chosen = _name_value(f.get("/V")) if f else ""
            values[rid] = CHECKED if chosen == option else BLANK
            continue
        f = fields.get(rid)
        v = f.get("/V") if f else None
        if kind == "checkbox":
            s = _name_value(v).strip()
            if f is not None and f.get("/FT") == "/Ch":
                values[rid] = CHECKED if s == "S" else SLASHED if s == "F" else BLANK
            else:
                values[rid] = BLANK if s in ("", "Off") else CHECKED
        elif kind == "text":
            values[rid] = str(v) if v not in (None, "") else None
        elif kind == "digits":
            values[rid] = parse_digits(str(v)) if v not in (None, "") else None
    return manifest["kind"], manifest["edition"], values
