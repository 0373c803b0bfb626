"""The sheet code: what a printed sheet is, in a short string carried by its QR code.

    SS1:<KIND>:<EDITION>:<PAPER>:<LAYOUT>      e.g. SS1:OPIAL-CAREER:LATER:LETTER:L1

`SS1` names this scheme (version 1). KIND is a registered sheet kind id, EDITION the
rules edition the sheet prints, PAPER a paper name (sheets.paper.PAPERS) and LAYOUT the
layout version: bump LAYOUT_VERSION whenever a region moves, so a scanner holding an
old photo can tell it needs the old geometry. The code is upper case so the QR code
uses its compact alphanumeric mode (25 x 25 modules instead of 29 x 29); `decode`
accepts any case and returns lower-case fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from starsheets.errors import NotASheetError

SCHEME = "SS1"
LAYOUT_VERSION = "L1"
_FIELD = re.compile(r"^[a-z0-9][a-z0-9-]*$")


@dataclass(frozen=True)
class SheetCode:
    """The identity of a printed sheet."""

    kind: str
    edition: str
    paper: str
    layout: str = LAYOUT_VERSION

    def __str__(self) -> str:
        return encode(self)


def encode(code: SheetCode) -> str:
    """The QR payload for a sheet code (upper case, QR alphanumeric alphabet only)."""
    fields = (code.kind, code.edition, code.paper)
    for f in fields:
        if not _FIELD.match(f):
            raise ValueError(f"sheet code field {f!r} must be lower-case letters, digits, '-'")
    if not re.match(r"^L\d+$", code.layout):
        raise ValueError(f"layout version {code.layout!r} must look like L1")
    return ":".join((SCHEME, *fields, code.layout)).upper()


def decode(text: str) -> SheetCode:
    """Parse a QR payload; NotASheetError if it is not a starsheets sheet code."""
    parts = text.strip().split(":")
    if len(parts) != 5 or parts[0].upper() != SCHEME:
        raise NotASheetError(f"'{text.strip()[:60]}' is not a starsheets sheet code",
                             "Scan a sheet printed by `starsheets print`.")
    kind, edition, paper = (p.lower() for p in parts[1:4])
    layout = parts[4].upper()
    if not all(_FIELD.match(f) for f in (kind, edition, paper)) or not re.match(r"^L\d+$", layout):
        raise NotASheetError(f"malformed sheet code '{text.strip()[:60]}'",
                             "Scan a sheet printed by `starsheets print`.")
    return SheetCode(kind, edition, paper, layout)
