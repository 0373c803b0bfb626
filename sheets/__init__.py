"""Printable sheets, machine-readable by design.

    render(kind, edition, paper, fillable) -> Rendered(pdf, manifest, overflows)
    layout(kind, edition, paper) -> Manifest      (cached; what the scanner uses)
    layout_for_code(code) -> Manifest             (from a sheet code read off a QR code)
    kinds(), get_kind(name), register(SheetKind)  (the registry of sheet kinds)

See docs/sheets.md.
"""

from __future__ import annotations

from sheets.manifest import Manifest
from sheets.paper import PAPERS, Paper, get_paper
from sheets.registry import SheetKind, get_kind, kinds, register
from sheets.render import Rendered, layout, layout_for_code, render

__all__ = ["PAPERS", "Manifest", "Paper", "Rendered", "SheetKind", "get_kind", "get_paper",
           "kinds", "layout", "layout_for_code", "register", "render"]
