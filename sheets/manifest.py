"""The layout manifest: where every mark region, fiducial and QR code of a sheet is.

The generator records each region through a Recorder AT THE MOMENT IT DRAWS IT, so the
manifest can never drift from the page. All coordinates are PDF points with the origin
at the page's bottom-left corner; a rect is [x, y, width, height] of the outer edge of
what was drawn. See docs/sheets.md for the JSON format.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

FORMAT = "starsheets/layout@1"
REGION_KINDS = ("checkbox", "bubble", "text", "digits")

Rect = tuple[float, float, float, float]
Point = tuple[float, float]


def _r(v: float) -> float:
    return round(float(v), 3)


def rect(x: float, y: float, w: float, h: float) -> Rect:
    """A rect rounded to 1/1000 pt (so JSON round trips are exact)."""
    return (_r(x), _r(y), _r(w), _r(h))


def overlaps(a: Rect, b: Rect, tol: float = 1e-6) -> bool:
    """True if the interiors of two rects intersect (touching edges do not count)."""
    return (a[0] < b[0] + b[2] - tol and b[0] < a[0] + a[2] - tol
            and a[1] < b[1] + b[3] - tol and b[1] < a[1] + a[3] - tol)


def inside(inner: Rect, outer: Rect, tol: float = 1e-6) -> bool:
    return (inner[0] >= outer[0] - tol and inner[1] >= outer[1] - tol
            and inner[0] + inner[2] <= outer[0] + outer[2] + tol
            and inner[1] + inner[3] <= outer[1] + outer[3] + tol)


def grow(r: Rect, d: float) -> Rect:
    return rect(r[0] - d, r[1] - d, r[2] + 2 * d, r[3] + 2 * d)


@dataclass(frozen=True)
class Region:
    """One place a player marks: a checkbox, bubble, text line or row of digit cells."""

    id: str
    kind: str
    group: str
    page: int
    rect: Rect
    cells: tuple[Rect, ...] = ()  # digits only: one rect per cell, left to right
    printed: str = ""  # text printed inside the box (its points or number), not ink

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "kind": self.kind, "group": self.group,
                             "page": self.page, "rect": list(self.rect)}
        if self.kind == "digits":
            d["digits"] = len(self.cells)
            d["cells"] = [list(c) for c in self.cells]
        if self.printed:
            d["printed"] = self.printed
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Region:
        return cls(d["id"], d["kind"], d["group"], int(d["page"]), tuple(d["rect"]),
                   tuple(tuple(c) for c in d.get("cells", ())), d.get("printed", ""))


@dataclass(frozen=True)
class Fiducial:
    """An ArUco marker: `corners` in the marker's own reading order (its top-left,
    top-right, bottom-right, bottom-left, as cv2.aruco reports them), `quiet` the white
    margin kept around it."""

    id: int
    page: int
    position: str  # top-left | top-right | bottom-right | bottom-left
    size: float
    quiet: float
    center: Point
    corners: tuple[Point, Point, Point, Point]

    @property
    def rect(self) -> Rect:
        xs = [p[0] for p in self.corners]
        ys = [p[1] for p in self.corners]
        return rect(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "page": self.page, "position": self.position,
                "size": self.size, "quiet": self.quiet, "center": list(self.center),
                "corners": [list(p) for p in self.corners], "dictionary": "DICT_4X4_50"}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Fiducial:
        return cls(int(d["id"]), int(d["page"]), d["position"], d["size"], d["quiet"],
                   tuple(d["center"]), tuple(tuple(p) for p in d["corners"]))  # type: ignore[arg-type]


@dataclass(frozen=True)
class QrCode:
    """The QR code carrying the sheet code: `rect` is the symbol, `quiet` its margin."""

    page: int
    rect: Rect
    quiet: float
    modules: int
    payload: str

    def to_dict(self) -> dict[str, Any]:
        return {"page": self.page, "rect": list(self.rect), "quiet": self.quiet,
                "modules": self.modules, "payload": self.payload}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> QrCode:
        return cls(int(d["page"]), tuple(d["rect"]), d["quiet"], int(d["modules"]),
                   d["payload"])


@dataclass(frozen=True)
class Manifest:
    """Everything a scanner needs to read a sheet, regenerated from its sheet code."""

    code: str
    kind: str
    edition: str
    paper: str
    layout: str
    page_size: tuple[float, float]
    printable: Rect
    pages: int
    fiducials: tuple[Fiducial, ...]
    qr: tuple[QrCode, ...]
    regions: tuple[Region, ...]

    def region(self, region_id: str) -> Region:
        for r in self.regions:
            if r.id == region_id:
                return r
        raise KeyError(region_id)

    def by_id(self) -> dict[str, Region]:
        return {r.id: r for r in self.regions}

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "code": self.code, "kind": self.kind, "edition": self.edition,
            "paper": self.paper, "layout": self.layout, "units": "pt",
            "origin": "bottom-left", "page_size": list(self.page_size),
            "printable": list(self.printable), "pages": self.pages,
            "fiducials": [f.to_dict() for f in self.fiducials],
            "qr": [q.to_dict() for q in self.qr],
            "regions": [r.to_dict() for r in self.regions],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, ensure_ascii=False) + "\n"

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Manifest:
        if d.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} manifest")
        return cls(d["code"], d["kind"], d["edition"], d["paper"], d["layout"],
                   tuple(d["page_size"]), tuple(d["printable"]), int(d["pages"]),  # type: ignore[arg-type]
                   tuple(Fiducial.from_dict(f) for f in d["fiducials"]),
                   tuple(QrCode.from_dict(q) for q in d["qr"]),
                   tuple(Region.from_dict(r) for r in d["regions"]))

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        return cls.from_dict(json.loads(text))


@dataclass
class Recorder:
    """Collects regions, fiducials and QR codes while a sheet is drawn.

    Drawing primitives (sheets.draw) call `region` with the rect they just drew; the
    recorder refuses a duplicate id or an unknown kind at once, so a layout bug fails
    where it happens rather than in the scanner."""

    page: int = 1
    regions: list[Region] = field(default_factory=list)
    fiducials: list[Fiducial] = field(default_factory=list)
    qr: list[QrCode] = field(default_factory=list)
    _ids: set[str] = field(default_factory=set)

    def region(self, region_id: str, kind: str, r: Rect, group: str = "",
               cells: Iterable[Rect] = (), printed: str = "") -> Region:
        if kind not in REGION_KINDS:
            raise ValueError(f"unknown region kind {kind!r}")
        if region_id in self._ids:
            raise ValueError(f"region {region_id!r} drawn twice")
        cell_rects = tuple(rect(*c) for c in cells)
        if (kind == "digits") != bool(cell_rects):
            raise ValueError(f"region {region_id!r}: digit cells go with kind 'digits' only")
        reg = Region(region_id, kind, group or region_id.rsplit(".", 1)[0], self.page,
                     rect(*r), cell_rects, printed)
        self.regions.append(reg)
        self._ids.add(region_id)
        return reg

    def fiducial(self, f: Fiducial) -> None:
        self.fiducials.append(f)

    def qr_code(self, q: QrCode) -> None:
        self.qr.append(q)

    def __iter__(self) -> Iterator[Region]:
        return iter(self.regions)
