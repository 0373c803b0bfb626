"""Write a saddle-stitched booklet PDF with pypdf; the geometry is `sheets/imposition.py`'s.

Each source page is wrapped once as a form XObject (its own content stream, resources,
crop box as /BBox and its /Rotate as /Matrix) and placed on a sheet side with
`q <clip> re W n <matrix> cm /Pn Do Q`. Vector content, fonts and images are copied,
never rasterised or re-encoded, so the booklet is about the size of the input.

Form fields cannot live inside an XObject, so their widget annotations are carried over
onto the sheet side: /Rect transformed with the page, appearance streams turned with it
(/Matrix, and /MK /R for viewers that regenerate them), the field tree and the form's
/AcroForm entries kept, so the booklet stays fillable. Other annotations (links,
comments) would point at pages that no longer exist; they are left out with a note.
"""

from __future__ import annotations

import gc
import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from pypdf import PageObject, PdfReader, PdfWriter
from pypdf.errors import PdfReadError, PyPdfError
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    FloatObject,
    IndirectObject,
    NameObject,
    NullObject,
    NumberObject,
    PdfObject,
    StreamObject,
)

from sheets.imposition import (
    IDENTITY,
    MARK_MARGIN,
    MAX_CREEP_MM,
    PT_PER_MM,
    SHEETS,
    Bind,
    Flip,
    Matrix,
    Options,
    Plan,
    Rect,
    Segment,
    Side,
    Size,
    booklet_slot,
    crop_marks,
    displayed_size,
    fold_marks,
    impose,
    multiply,
    orientation,
    rotation_degrees,
    transform_rect,
    upright_matrix,
)
from starsheets.errors import EncryptedPdfError, InputFileError, UsageError
from starsheets.io import read_bytes, write_bytes

_REPAIR = "Repair it (for example `qpdf IN.pdf OUT.pdf`) or re-export it."

_READ_ERRORS = (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError,
                AssertionError, RecursionError)
"""What a damaged PDF makes pypdf raise while it is being read."""


@dataclass(frozen=True)
class BookletSettings:
    """The user's choices, in the CLI's units (creep in mm)."""

    sheet: str = "letter"
    signature: int | None = None
    creep_mm: float = 0.0
    flip: Flip = Flip.SHORT
    bind: Bind = Bind.LEFT
    marks: bool = False


@dataclass
class BookletReport:
    """What was made, for the summary and the notes on stderr."""

    input_pages: int
    output_pages: int
    sheets: int
    signatures: list[int]
    blanks: int
    form_fields: int = 0
    """Widget annotations carried over (still fillable)."""
    dropped_annotations: int = 0
    notes: list[str] = field(default_factory=list)


def make_booklet(in_path: str | Path, out_path: str | Path,
                 settings: BookletSettings) -> BookletReport:
    """Impose IN as a saddle-stitched booklet and write it to OUT."""
    _check_settings(settings)
    if Path(out_path).resolve() == Path(in_path).resolve():
        raise UsageError(f"the output {out_path} is the input",
                         "Give another output path; inputs are never modified.")
    with _pypdf_warnings() as repairs, _gc_paused():
        reader = read_pdf(in_path)
        writer, report = build_booklet(reader, settings, str(in_path))
        buffer = io.BytesIO()
        writer.write(buffer)
    if repairs:
        report.notes.append(f"{in_path} has defects that were worked around "
                            f"({len(repairs)} warnings, first: {repairs[0]})")
    write_bytes(out_path, buffer.getvalue())
    return report


def _check_settings(settings: BookletSettings) -> None:
    if settings.sheet not in SHEETS:
        raise UsageError(f"unknown sheet size {settings.sheet!r}",
                         f"Use one of: {', '.join(SHEETS)}.")
    if settings.signature is not None and settings.signature < 1:
        raise UsageError("--signature must be at least 1 sheet", "Give a positive number.")
    if not 0 <= settings.creep_mm <= MAX_CREEP_MM:
        raise UsageError(f"--creep must be between 0 and {MAX_CREEP_MM:g} mm",
                         "Typical creep is 0.1 mm per sheet of 80 g/m² paper.")


def read_pdf(path: str | Path) -> PdfReader:
    """Open an input PDF, or raise the error a user can act on."""
    data = read_bytes(path, "PDF")
    if b"%PDF-" not in data[:1024]:
        raise InputFileError(f"{path} is not a PDF", "Give a PDF file.")
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        encrypted = reader.is_encrypted
        count = 0 if encrypted else len(reader.pages)
    except _READ_ERRORS as e:
        raise InputFileError(f"{path} is a damaged PDF ({_reason(e)})", _REPAIR) from e
    if encrypted:
        raise EncryptedPdfError(f"{path} is encrypted",
                                "Decrypt it first, e.g. `qpdf --decrypt --password=... "
                                "IN.pdf OUT.pdf`.")
    if count == 0:
        raise InputFileError(f"{path} has no pages", "Give a PDF with at least one page.")
    return reader


def _reason(error: BaseException) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


@dataclass(frozen=True)
class _Source:
    """A source page as the imposition sees it."""

    box: Rect
    rotate: int

    @property
    def size(self) -> Size:
        return displayed_size(self.box, self.rotate)


def _source(page: PageObject, where: str) -> _Source:
    """The visible box (crop box within media box) and the /Rotate of a source page."""
    media = _box(page.get("/MediaBox"))
    if media is None:
        raise InputFileError(f"{where} has no valid MediaBox", _REPAIR)
    crop = _box(page.get("/CropBox")) or media
    box = Rect(max(crop.x0, media.x0), max(crop.y0, media.y0),
               min(crop.x1, media.x1), min(crop.y1, media.y1))
    if box.width <= 0 or box.height <= 0:
        raise InputFileError(f"{where} has an empty page box",
                             "Fix the page's MediaBox/CropBox or remove the page.")
    rotate = page.get("/Rotate")
    degrees = int(rotate.get_object()) if rotate is not None else 0
    return _Source(box=box, rotate=(round(degrees / 90) * 90) % 360)


def _box(value: PdfObject | None) -> Rect | None:
    """A normalised rectangle from a PDF box array, or None when there is none."""
    value = value.get_object() if value is not None else None
    if not isinstance(value, ArrayObject) or len(value) != 4:
        return None
    x0, y0, x1, y1 = (float(v.get_object()) for v in value)
    return Rect(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def plan_for(sizes: list[Size], settings: BookletSettings) -> Plan:
    """The imposition plan for pages of these viewed sizes."""
    sheet = SHEETS[settings.sheet]
    margin = MARK_MARGIN if settings.marks else 0.0
    options = Options(sheet=sheet, slot=booklet_slot(sizes[0], sheet, margin),
                      signature=settings.signature, bind=settings.bind, flip=settings.flip,
                      creep=settings.creep_mm * PT_PER_MM)
    return impose(sizes, options)


def build_booklet(reader: PdfReader, settings: BookletSettings,
                  name: str = "input") -> tuple[PdfWriter, BookletReport]:
    """Lay the reader's pages out on booklet sheets in a new writer."""
    pages, sources = _read_pages(reader, name)
    plan = plan_for([s.size for s in sources], settings)
    writer = PdfWriter()
    forms = _Forms(writer, reader)
    wrapper = _PageForms(writer)
    marks = _marks_content(plan) if settings.marks else b""
    for side in plan.sides:
        page = _new_page(writer, plan.options.sheet)
        xobjects = DictionaryObject()
        for p in side.placements:
            if p.page is not None:
                xobjects[NameObject(_name(p.page))] = _place(
                    pages[p.page], sources[p.page], p.matrix, page, wrapper, forms,
                    f"page {p.page + 1} of {name}")
        page[NameObject("/Resources")] = DictionaryObject({NameObject("/XObject"): xobjects})
        page[NameObject("/Contents")] = _add(writer, _compressed(_side_content(side) + marks))
    forms.finish()
    _copy_metadata(reader, writer)
    return writer, _report(plan, forms)


def _place(pdf_page: PageObject, source: _Source, matrix: Matrix, side: PageObject,
           wrapper: _PageForms, forms: _Forms, where: str) -> IndirectObject:
    """Wrap a source page for a side and carry its form fields there."""
    try:
        form = wrapper.wrap(pdf_page, source)
        forms.carry(pdf_page, side, _page_matrix(source, matrix))
    except _READ_ERRORS as e:
        raise InputFileError(f"{where} is damaged ({_reason(e)})", _REPAIR) from e
    return form


def _read_pages(reader: PdfReader, name: str) -> tuple[list[PageObject], list[_Source]]:
    try:
        pages = list(reader.pages)
        return pages, [_source(page, f"page {i + 1} of {name}") for i, page in enumerate(pages)]
    except _READ_ERRORS as e:
        raise InputFileError(f"{name} is a damaged PDF ({_reason(e)})", _REPAIR) from e


def _new_page(writer: PdfWriter, sheet: Size) -> PageObject:
    """An empty sheet side appended to the writer (registered first, so that
    `add_page` keeps this very object instead of copying it)."""
    page = PageObject(None)
    page[NameObject("/Type")] = NameObject("/Page")
    page[NameObject("/MediaBox")] = _array((0.0, 0.0, sheet.width, sheet.height))
    _add(writer, page)
    return writer.add_page(page)


def _report(plan: Plan, forms: _Forms) -> BookletReport:
    report = BookletReport(input_pages=plan.page_count, output_pages=len(plan.sides),
                           sheets=plan.sheets, signatures=list(plan.signatures),
                           blanks=plan.blanks, form_fields=forms.widgets,
                           dropped_annotations=forms.dropped)
    if forms.dropped:
        report.notes.append(f"{forms.dropped} annotation(s) other than form fields (links, "
                            "comments) were left out: they belong to the single pages")
    return report


def _name(page: int) -> str:
    return f"/P{page + 1}"


def _page_matrix(source: _Source, placement: Matrix) -> Matrix:
    """From the source page's own coordinates to the sheet side."""
    return multiply(upright_matrix(source.box, source.rotate), placement)


def _add(writer: PdfWriter, obj: PdfObject) -> IndirectObject:
    """Register a new object in the writer (pypdf has no public call for this)."""
    return writer._add_object(obj)


def _compressed(data: bytes) -> StreamObject:
    stream = DecodedStreamObject()
    stream.set_data(data)
    return stream.flate_encode()


class _PageForms:
    """Wraps source pages as form XObjects. Resource dictionaries that only point at the
    same shared objects (the usual case: every page naming the same fonts) are written once."""

    def __init__(self, writer: PdfWriter) -> None:
        self.writer = writer
        self._shared: dict[tuple[object, ...], IndirectObject] = {}

    def wrap(self, page: PageObject, source: _Source) -> IndirectObject:
        """The page as a form: its content bytes as they are, its crop box as /BBox and
        its /Rotate turned into /Matrix, so the form draws the page upright at the origin."""
        form = self._stream(page)
        form[NameObject("/Subtype")] = NameObject("/Form")
        form[NameObject("/BBox")] = _array((source.box.x0, source.box.y0,
                                            source.box.x1, source.box.y1))
        matrix = upright_matrix(source.box, source.rotate)
        if matrix != IDENTITY:
            form[NameObject("/Matrix")] = _array(matrix)
        form[NameObject("/Resources")] = self._resources(page.get("/Resources"))
        if "/Group" in page:
            form[NameObject("/Group")] = page["/Group"].clone(self.writer)
        return _add(self.writer, form)

    def _stream(self, page: PageObject) -> StreamObject:
        """A new stream with the page's content: a single stream's encoded bytes are
        reused untouched (pypdf keeps them in `_data`); several streams are joined."""
        contents = page.get("/Contents")
        contents = contents.get_object() if contents is not None else None
        if isinstance(contents, StreamObject):
            entries: dict[str, object] = {"__streamdata__": contents._data}
            for key in ("/Filter", "/DecodeParms"):
                if key in contents:
                    entries[NameObject(key)] = contents[key].clone(self.writer)
            return StreamObject.initialize_from_dictionary(entries)
        if contents is None or isinstance(contents, NullObject):
            return _compressed(b"")
        parts = ([part.get_object() for part in contents] if isinstance(contents, ArrayObject)
                 else [contents])
        if not all(isinstance(part, StreamObject) for part in parts):
            raise PdfReadError("its /Contents is not a content stream")
        return _compressed(b"\n".join(part.get_data() for part in parts))

    def _resources(self, resources: PdfObject | None) -> PdfObject:
        """The page's resources copied into the writer (shared fonts and images once).
        /ProcSet is obsolete since PDF 1.4 and left out."""
        resources = resources.get_object() if resources is not None else None
        if not isinstance(resources, DictionaryObject):
            return DictionaryObject()
        key = _references_only(resources)
        if key is not None and key in self._shared:
            return self._shared[key]
        copy = DictionaryObject({name: value.clone(self.writer)
                                 for name, value in resources.items() if name != "/ProcSet"})
        if key is None:
            return copy
        self._shared[key] = _add(self.writer, copy)
        return self._shared[key]


def _references_only(resources: DictionaryObject) -> tuple[object, ...] | None:
    """A hashable description of a resource dictionary whose entries are references or
    dictionaries of references; None for anything else (then it is not shared)."""
    entries: list[tuple[object, ...]] = []
    for name, value in resources.items():
        if name == "/ProcSet":
            continue
        if isinstance(value, IndirectObject):
            entries.append((str(name), value.idnum, value.generation))
        elif isinstance(value, DictionaryObject) and not isinstance(value, StreamObject) and all(
                isinstance(v, IndirectObject) for v in value.values()):
            entries.append((str(name), tuple(sorted((str(k), v.idnum, v.generation)
                                                    for k, v in value.items()))))
        else:
            return None
    return tuple(sorted(entries))


def _array(values: tuple[float, ...]) -> ArrayObject:
    return ArrayObject(_number(v) for v in values)


def _number(value: float) -> NumberObject | FloatObject:
    rounded = round(value, 4)
    if rounded == int(rounded):
        return NumberObject(int(rounded))
    return FloatObject(rounded)


def _num(value: float) -> str:
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _side_content(side: Side) -> bytes:
    """`q clip cm Do Q` for each page of a side."""
    ops: list[str] = []
    for p in side.placements:
        if p.page is None:
            continue
        clip = " ".join(_num(v) for v in (p.clip.x0, p.clip.y0, p.clip.width, p.clip.height))
        matrix = " ".join(_num(v) for v in p.matrix)
        ops.append(f"q {clip} re W n {matrix} cm {_name(p.page)} Do Q")
    return ("\n".join(ops) + "\n").encode("ascii")


def _segments(segments: list[Segment]) -> str:
    return " ".join(f"{_num(a[0])} {_num(a[1])} m {_num(b[0])} {_num(b[1])} l"
                    for a, b in segments)


def _marks_content(plan: Plan) -> bytes:
    """Crop marks (solid) and fold ticks (dashed), hairline black. The layout is symmetric
    under the long-edge half turn, so both sides get the same marks."""
    sheet, slot = plan.options.sheet, plan.options.slot
    return (f"q 0 G 0.3 w [] 0 d {_segments(crop_marks(sheet, slot))} S "
            f"[2 2] 0 d {_segments(fold_marks(sheet, slot))} S Q\n").encode("ascii")


def _copy_metadata(reader: PdfReader, writer: PdfWriter) -> None:
    try:
        info = reader.metadata
    except _READ_ERRORS:
        return
    if info:
        writer.add_metadata({k: v for k, v in info.items()
                             if k in ("/Title", "/Author", "/Subject", "/Keywords")})


class _Forms:
    """Carries form-field widgets onto the sheet sides and rebuilds the field tree."""

    def __init__(self, writer: PdfWriter, reader: PdfReader) -> None:
        self.writer = writer
        self.reader = reader
        self.widgets = 0
        self.dropped = 0
        self._clones: dict[int, DictionaryObject] = {}
        """Source object number -> its copy, for widgets and their parent fields."""
        self._parents: dict[int, DictionaryObject] = {}
        self._roots: list[int] = []
        self._turned: dict[tuple[int, Matrix], IndirectObject] = {}
        """(source appearance stream, turn) -> its turned copy, shared like the original."""

    def carry(self, page: PageObject, out: PageObject, matrix: Matrix) -> None:
        """Copy the page's widgets onto `out`, moved by `matrix` (source page -> side)."""
        annots = page.get("/Annots")
        annots = annots.get_object() if annots is not None else None
        if not isinstance(annots, ArrayObject):
            return
        carried = ArrayObject()
        for ref in annots:
            annot = ref.get_object()
            if not isinstance(annot, DictionaryObject):
                continue
            if annot.get("/Subtype") != "/Widget":
                self.dropped += 1
                continue
            carried.append(self._widget(ref, annot, out, matrix))
        if carried:
            existing = out.get("/Annots")
            out[NameObject("/Annots")] = ArrayObject([*(existing or []), *carried])

    def _widget(self, ref: PdfObject, annot: DictionaryObject, out: PageObject,
                matrix: Matrix) -> IndirectObject:
        """Copy one widget onto `out`: moved, turned, linked to its page and parents."""
        own = ("/Parent", "/P", "/AP", "/MK", "/A", "/AA", "/Rect")
        clone = annot.clone(self.writer, ignore_fields=[x for key in own for x in (1, key)])
        ref_out = clone.indirect_reference or _add(self.writer, clone)
        turn = orientation(matrix)
        rect = annot.get("/Rect")
        if isinstance(rect, ArrayObject) and len(rect) == 4:
            x0, y0, x1, y1 = (float(v) for v in rect)
            moved = transform_rect(matrix, Rect(min(x0, x1), min(y0, y1),
                                                max(x0, x1), max(y0, y1)))
            clone[NameObject("/Rect")] = _array((moved.x0, moved.y0, moved.x1, moved.y1))
        if "/AP" in annot:
            clone[NameObject("/AP")] = self._appearances(annot["/AP"], turn)
        if "/MK" in annot:
            clone[NameObject("/MK")] = self._characteristics(annot["/MK"], turn)
        for key in ("/A", "/AA"):
            actions = self._actions(annot.get(key), key == "/AA")
            if actions is not None:
                clone[NameObject(key)] = actions
        clone[NameObject("/P")] = out.indirect_reference
        self.widgets += 1
        self._link(ref, annot, clone)
        return ref_out

    def _actions(self, value: PdfObject | None, triggers: bool) -> PdfObject | None:
        """Copy a widget's action (/A) or its actions by trigger (/AA), leaving out jumps
        to pages (those pages no longer exist) and never following page references."""
        value = value.get_object() if value is not None else None
        if not isinstance(value, DictionaryObject):
            return None
        if triggers:
            kept = {key: self._actions(action, False) for key, action in value.items()}
            copy = DictionaryObject({k: v for k, v in kept.items() if v is not None})
            return copy or None
        if value.get("/S") == "/GoTo":
            return None
        return value.clone(self.writer, ignore_fields=("/P", "/Parent", "/D", "/Dest"))

    def _appearances(self, ap: PdfObject, turn: Matrix) -> DictionaryObject:
        """Copy /AP; when the page turns, each appearance turns with it via /Matrix."""
        out = DictionaryObject()
        for key, value in cast(DictionaryObject, ap.get_object()).items():
            target = value.get_object()
            if isinstance(target, StreamObject):
                out[key] = self._appearance(target, turn)
            elif isinstance(target, DictionaryObject):
                out[key] = DictionaryObject({state: self._appearance(s.get_object(), turn)
                                             for state, s in target.items()
                                             if isinstance(s.get_object(), StreamObject)})
        return out

    def _appearance(self, stream: StreamObject, turn: Matrix) -> IndirectObject:
        """Copy an appearance stream; turned pages get their own copy with a turned /Matrix
        (fonts and images inside are still shared)."""
        if turn[:4] == (1.0, 0.0, 0.0, 1.0):
            copy = stream.clone(self.writer)
            assert copy.indirect_reference is not None
            return copy.indirect_reference
        source = stream.indirect_reference
        key_turned = (source.idnum, turn) if source is not None else None
        if key_turned is not None and key_turned in self._turned:
            return self._turned[key_turned]
        entries: dict[str, object] = {"__streamdata__": stream._data}
        for key, value in stream.items():
            if key not in ("/Length", "/Matrix"):
                entries[NameObject(key)] = value.clone(self.writer)
        turned = StreamObject.initialize_from_dictionary(entries)
        old = stream.get("/Matrix")
        base = tuple(float(v) for v in old) if isinstance(old, ArrayObject) else None
        bbox = stream.get("/BBox")
        box = (Rect(*(float(v) for v in bbox)) if isinstance(bbox, ArrayObject)
               and len(bbox) == 4 else Rect(0.0, 0.0, 0.0, 0.0))
        turned[NameObject("/Matrix")] = _array(_turned(base, box, turn))
        ref = _add(self.writer, turned)
        if key_turned is not None:
            self._turned[key_turned] = ref
        return ref

    def _characteristics(self, mk: PdfObject, turn: Matrix) -> DictionaryObject:
        """Copy /MK with its /R rotation advanced by the page's turn."""
        source = cast(DictionaryObject, mk.get_object())
        copy = DictionaryObject({key: value.clone(self.writer) for key, value in source.items()
                                 if key != "/R"})
        degrees = (int(source.get("/R", 0)) + rotation_degrees(turn)) % 360
        if degrees:
            copy[NameObject("/R")] = NumberObject(degrees)
        return copy

    def _link(self, ref: PdfObject, annot: DictionaryObject, clone: DictionaryObject) -> None:
        """Hook the copy into copies of its parent fields (made once, kids set at the end)."""
        source_id = ref.idnum if isinstance(ref, IndirectObject) else None
        if source_id is not None:
            self._clones[source_id] = clone
        child, child_id = clone, source_id
        parent_ref = annot.raw_get("/Parent") if "/Parent" in annot else None
        while isinstance(parent_ref, IndirectObject):
            known = parent_ref.idnum in self._clones
            parent = self._parent(parent_ref)
            child[NameObject("/Parent")] = parent.indirect_reference
            if known:
                return
            source_parent = parent_ref.get_object()
            child, child_id = parent, parent_ref.idnum
            parent_ref = (source_parent.raw_get("/Parent")
                          if isinstance(source_parent, DictionaryObject)
                          and "/Parent" in source_parent else None)
        if child_id is not None and child_id not in self._roots:
            self._roots.append(child_id)

    def _parent(self, ref: IndirectObject) -> DictionaryObject:
        if ref.idnum not in self._clones:
            source = cast(DictionaryObject, ref.get_object())
            clone = source.clone(self.writer, ignore_fields=(1, "/Kids", 1, "/Parent", 1, "/P"))
            if clone.indirect_reference is None:
                _add(self.writer, clone)
            self._clones[ref.idnum] = clone
            self._parents[ref.idnum] = source
        return self._clones[ref.idnum]

    def finish(self) -> None:
        """Set the parents' /Kids and the document's /AcroForm."""
        if not self._clones:
            return
        for idnum, source in self._parents.items():
            kids = source.get("/Kids")
            self._clones[idnum][NameObject("/Kids")] = ArrayObject(
                self._clones[k.idnum].indirect_reference for k in (kids or [])
                if isinstance(k, IndirectObject) and k.idnum in self._clones)
        self.writer.root_object[NameObject("/AcroForm")] = self._acroform()

    def _acroform(self) -> DictionaryObject:
        source = self.reader.trailer["/Root"].get("/AcroForm")
        source = source.get_object() if source is not None else DictionaryObject()
        order = [f.idnum for f in source.get("/Fields", []) if isinstance(f, IndirectObject)]
        roots = [i for i in order if i in self._roots]
        roots += [i for i in self._roots if i not in roots]
        form = DictionaryObject({NameObject("/Fields"): ArrayObject(
            self._clones[i].indirect_reference for i in roots)})
        for key in ("/DR", "/DA", "/Q", "/NeedAppearances"):
            if key in source:
                form[NameObject(key)] = source[key].clone(self.writer)
        calc = source.get("/CO")
        if isinstance(calc, ArrayObject):
            form[NameObject("/CO")] = ArrayObject(
                self._clones[f.idnum].indirect_reference for f in calc
                if isinstance(f, IndirectObject) and f.idnum in self._clones)
        return form


def _turned(base: tuple[float, ...] | None, bbox: Rect, turn: Matrix) -> Matrix:
    """An appearance /Matrix turned by `turn`, moved back onto the untransformed bbox spot.

    Viewers fit the transformed bbox into /Rect, so only the orientation matters; the
    translation keeps the transformed bbox where it was, for tidiness.
    """
    matrix = cast(Matrix, base) if base and len(base) == 6 else (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    before = transform_rect(matrix, bbox)
    turned = multiply(matrix, turn)
    after = transform_rect(turned, bbox)
    return multiply(turned, (1.0, 0.0, 0.0, 1.0, before.x0 - after.x0, before.y0 - after.y0))


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while pypdf builds its many small objects:
    its full passes over the parsed document cost 10-15% of the run for nothing."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextmanager
def _pypdf_warnings() -> Iterator[list[str]]:
    """Collect pypdf's repair warnings instead of letting them spill onto stderr."""
    messages: list[str] = []

    class _Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record.getMessage())

    logger = logging.getLogger("pypdf")
    handler = _Collect(logging.WARNING)
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield messages
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate
