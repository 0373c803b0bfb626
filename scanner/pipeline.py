"""The scan pipeline, stage by stage (each stage timed):

    triage -> locate -> identify -> rectify -> marks -> ocr -> state -> validate/score

`scan_file(path)` returns one SheetResult per page or form found in the file; a page
that fails becomes a SheetResult carrying its error, so one bad page or file never stops
a batch. Nothing here writes files (see scanner.report and scanner.overlay).

The Spacer forms leave this pipeline after rectify for scanner.spacer.read_page (which
page of the form, that page's template, marks, combs, text); their pages come back as
SheetResults with `spacer` set and are put together, built and validated by
scanner.spacer.combine.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scanner import fields as fieldreader
from scanner.choices import bubble_groups, doubt_unchosen, one_choice, settled_notes
from scanner.consistency import SHAPE_WHY, doubt_by_rules, doubt_named_missing, settle_by_rules
from scanner.identify import first_fit, identify
from scanner.linesum import confirm_by_sum
from scanner.locate import locate, marker_side_px
from scanner.lowres import (
    LOW_RES_DPI,
    digits_confidence,
    doubt_blurred_successes,
    doubt_low_resolution,
)
from scanner.lowres import require_legible as require_low_res_legible
from scanner.marks import (
    CANCELLED,
    CHECKED,
    EMPTY,
    REVIEW,
    SLASHED,
    Mark,
    faint_warnings,
    id_list,
    read_marks,
    require_legible,
)
from scanner.ocr import engine, load_in_background
from scanner.order import (
    doubt_lone_gaps,
    doubt_marks_in_future_tours,
    doubt_marks_past_empty,
    doubt_next_empty,
    doubt_unsure_before_review,
    settle,
)
from scanner.rectify import MIN_MARKERS, fit, require_markers, warp
from scanner.template import blank
from scanner.triage import FormPage, PageError, PageImage, pages
from scanner.written import DIFFERS, WrittenLine
from scanner.written import compare as compare_written
from sheets.markers import MARKER_SIZE
from sheets.paper import PAPERS
from starsheets.errors import InputFileError, NotASheetError, StarsheetsError

WORKING_DPI = 200.0  # the rectified canvas: a 3.5 mm box is 28 px
MIN_DPI = 60.0  # a sheet smaller than this in the photo is refused ...
MIN_DPI_CAREER = 40.0  # ... but a career page (boxes only, scanner.lowres under 60)
LOW_DPI = 110.0  # below this, a warning: marks may go to review
READABLE_KINDS = ("opial-career", "spacer-character", "spacer-setting")
SPACER_KINDS = ("spacer-character", "spacer-setting")  # read by scanner.spacer


FILLS_FRAME = 0.4  # a sheet covering this share of the photo already fills it (a tilted
#                   page covers less than its bounding frame)


def too_small_fix(dpi: float, page_size: tuple[float, float], shape: tuple[int, ...]) -> str:
    """What to do about a sheet under the floor: come closer, or, when it already fills
    the photo (a 320x400 photo of a whole page is ~36 px/inch), take a bigger photo."""
    sheet = dpi * dpi * page_size[0] * page_size[1] / 72 / 72  # pixels the sheet covers
    h, w = shape[:2]
    if sheet < FILLS_FRAME * w * h:
        return "Photograph the sheet closer (it should fill the frame)."
    return (f"This photo is only {w}x{h} pixels: take it at 2 megapixels or more (any "
            "phone's camera), with the sheet filling the frame.")


def refuse_too_small(corners: Mapping[int, np.ndarray], shape: tuple[int, ...], source: str
                     ) -> None:
    """Raise the too-small error for a sheet that could not be identified and is under
    every kind's floor (MIN_DPI_CAREER) in the photo: that, not its code, is what to mend
    (session 59: three 640x480 photos of seed 1759 at 26-35 px/inch, their editions told
    by no QR code and no legible small print, were refused as unidentified)."""
    paper, f = first_fit(corners)
    if f.dpi < MIN_DPI_CAREER:
        raise too_small(source, f.dpi, PAPERS[paper].size, shape)


def refuse_tiny_markers(corners: Mapping[int, np.ndarray], shape: tuple[int, ...], source: str
                        ) -> None:
    """Raise the too-small error when too few markers were found to fit the page and even
    the largest one found puts the sheet under every kind's floor (MIN_DPI_CAREER): the
    others are lost for being a few pixels wide, and a closer or bigger photo is the fix,
    not a whole sheet in view (session 64: six VGA photos at 11-29 px/inch, one or two of
    their markers found, were told a corner was missing)."""
    if not corners or len(corners) >= MIN_MARKERS:
        return
    dpi = max(marker_side_px(c) for c in corners.values()) / (MARKER_SIZE / 72)
    if dpi < MIN_DPI_CAREER:  # (the paper is unknown: Letter stands in for the fix's words)
        raise too_small(source, dpi, PAPERS["letter"].size, shape)


def too_small(source: str, dpi: float, page_size: tuple[float, float], shape: tuple[int, ...]
              ) -> InputFileError:
    """The error for a sheet under its size floor in the photo, with too_small_fix."""
    return InputFileError(f"{source}: the sheet is too small in the image ({dpi:.0f} pixels "
                          "per inch)", too_small_fix(dpi, page_size, shape))


@dataclass
class SheetResult:
    """What one page of one input gave: a read sheet, or the error that stopped it."""

    source: str
    kind: str = ""
    edition: str = ""
    code: str = ""
    marks: dict[str, Mark] = field(default_factory=dict)
    state: Any = None  # game.opial.state.CareerState
    findings: list[dict[str, Any]] = field(default_factory=list)
    score: Any = None  # game.opial.scoring.Score
    ocr: dict[str, Any] = field(default_factory=dict)
    review: list[str] = field(default_factory=list)
    timing: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    written: list[WrittenLine] = field(default_factory=list)  # score lines the player wrote
    error: StarsheetsError | None = None
    canvas: np.ndarray | None = None  # the rectified sheet (for the overlay)
    manifest: Any = None
    from_form: bool = False
    spacer: Any = None  # Spacer forms: scanner.spacer.SpacerPage (a page) or SpacerForm
    identified: str = ""  # how the sheet code was found: scanner.identify.Identity.method
    box_inputs: Any = None  # what scanner.marks.audit saw of each box (scan_file's keep_inputs)
    digit_cells: Any = None  # each digits field's cells as the reader sees them, and the ink
    #   threshold (keep_inputs; scanner.train_digits learns from them)

    @property
    def checks(self) -> list[str]:
        """The written score lines that differ from the sheet's, in the player's words."""
        return [w.message() for w in self.written if w.status == DIFFERS]


class _Timer:
    def __init__(self, timing: dict[str, float]) -> None:
        self.timing = timing

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.timing[name] = round(self.timing.get(name, 0.0)
                                      + (time.perf_counter() - t0) * 1000, 1)


def _check_kind(kind: str, source: str) -> None:
    if kind not in READABLE_KINDS:
        raise NotASheetError(f"{source}: a '{kind}' sheet, which the scanner does not read",
                             f"Scan a sheet of kind {', '.join(READABLE_KINDS)}.")


def scan_page(page: PageImage, ocr: bool = True, anyway: bool = False,
              keep_inputs: bool = False) -> SheetResult:
    """Read one page image; errors are raised (the caller records them). `anyway`: read a
    sheet too faint or washed out to trust, with a warning (scanner.marks.require_legible)."""
    from game.opial.marks import ordered_tracks, tours_with_missions
    from game.opial.rules import load_rules
    from sheets.render import layout_for_code

    res = SheetResult(page.source)
    t = _Timer(res.timing)
    if page.decode_ms:
        res.timing["decode"] = round(page.decode_ms, 1)
    gray = page.gray
    with t.stage("locate"):
        loc = locate(gray)
    if len(loc.corners) < 3 and loc.others:
        raise NotASheetError(f"{page.source}: ArUco markers found, but not a starsheets sheet's",
                             "Scan a sheet printed by `starsheets print`.")
    refuse_tiny_markers(loc.corners, gray.shape, page.source)
    require_markers(loc.corners, page.source)
    with t.stage("identify"):
        try:
            ident = identify(gray, loc.corners, page.source, READABLE_KINDS)
        except NotASheetError:
            refuse_too_small(loc.corners, gray.shape, page.source)
            raise
        manifest = layout_for_code(ident.code)
    res.identified = ident.method
    if ident.method.startswith("layout"):
        res.warnings.append("the QR code could not be read: the sheet was recognised by its "
                            f"printed content ({ident.method})")
    _check_kind(manifest.kind, page.source)
    if ocr:
        load_in_background()  # (while the marks are read: a first sheet finds it ready)
    res.kind, res.edition, res.code, res.manifest = (manifest.kind, manifest.edition,
                                                     manifest.code, manifest)
    with t.stage("rectify"):
        f = fit(loc.corners, manifest.fiducials, manifest.page_size)
        if f.rms_mm > 2.5:
            raise NotASheetError(f"{page.source}: the corner markers do not lie on one flat "
                                 f"sheet (off by {f.rms_mm:.1f} mm)",
                                 "Photograph the sheet flat on a table.")
        if f.dpi < (MIN_DPI_CAREER if manifest.kind == "opial-career" else MIN_DPI):
            raise too_small(page.source, f.dpi, manifest.page_size, gray.shape)
        canvas = warp(gray, f, manifest.page_size, WORKING_DPI)
    if loc.missing:
        res.warnings.append(f"corner marker missing: {', '.join(loc.missing)} (read from the "
                            "other three)")
    if f.rms_mm > 0.8:
        res.warnings.append(f"the sheet is not flat (markers off by {f.rms_mm:.1f} mm): "
                            "check the marks flagged for review")
    if LOW_RES_DPI <= f.dpi < LOW_DPI:
        res.warnings.append(f"low resolution on the sheet ({f.dpi:.0f} dpi): more marks may "
                            "need review")
    if manifest.kind in SPACER_KINDS:
        from scanner import spacer

        return spacer.read_page(res, canvas, ocr, t, WORKING_DPI, anyway, f.square_on)
    with t.stage("template"):
        tpl = blank(manifest, WORKING_DPI)
    with t.stage("marks"):
        inks: dict[str, np.ndarray] = {}  # the Executed boxes' ink, for scanner.lowres
        # (under LOW_RES_DPI too since session 46: measured there, audit.SETTLE)
        reading = read_marks(canvas, tpl, inks, audit=True, settle=True)
        doubt_blurred_successes(reading.marks, reading.print_look[0], inks)
    rules = load_rules(manifest.edition)
    tracks = ordered_tracks(rules)
    doubt_marks_past_empty(reading.marks, tracks, quiet=reading.quiet)  # (before: such a
    #   mark breaks the order)
    doubt_marks_in_future_tours(reading.marks, tours_with_missions(rules))
    settled = settle(reading.marks, tracks, trust_empty=not reading.light)
    # (after settle: a sheet with a gap settles nothing)
    doubt_lone_gaps(reading.marks, tracks, plain=reading.plain)
    for refused in (require_legible(reading, res.source, anyway, f.square_on),
                    require_low_res_legible(reading.marks, f.dpi, res.source, anyway)):
        if refused:
            res.warnings.append(refused)
    # (after the refusals: the boxes it sends to review say nothing of the photo's quality)
    shapeless = doubt_low_resolution(reading.marks, f.dpi, inks)
    doubt_unsure_before_review(reading.marks, tracks)
    doubt_next_empty(reading.marks, tracks)
    res.warnings.extend(faint_warnings(reading))
    if f.dpi < LOW_RES_DPI:
        res.warnings.append(f"at {f.dpi:.0f} pixels per inch a mark's shape does not show: "
                            f"{len(shapeless)} mark(s) sent to review (tick or slash, coloured "
                            "in or cancelled, faint) and the written score lines not checked; "
                            "a photo of 2 megapixels or more reads them")
    by_rules = settle_by_rules(reading.marks, rules)
    doubt_next_empty(reading.marks, tracks)  # (again: a review settled as a mark makes the
    #   box after it the next one; 1723 phone 31, skill.efficiency.1 and .2)
    doubt_by_rules(reading.marks, rules)  # (after: a box it doubts is never settled)
    doubt_named_missing(reading.marks, rules)  # (last: once the sheet's reviews are known)
    res.marks = reading.marks
    if keep_inputs:  # (scanner.train_audit and train_digits; a batch need not carry them)
        res.box_inputs = reading.audit_inputs
        geoms = tpl.by_id()
        res.digit_cells = ({rid: fieldreader.cell_darkness(d, geoms[rid], reading.calibration)
                            for rid, d in reading.darkness.items()
                            if geoms[rid].region.kind == "digits"}, reading.calibration.t_ink)
    by_shape = [rid for rid in by_rules if SHAPE_WHY in reading.marks[rid].why]
    by_rules = [rid for rid in by_rules if rid not in by_shape]
    if by_rules:
        res.warnings.append(f"{len(by_rules)} unclear box(es) settled by the rest of the page "
                            f"(the only value it agrees with): {id_list(by_rules)}")
    if by_shape:
        res.warnings.append(f"{len(by_shape)} unclear box(es) that the rest of the page says "
                            "hold a mark, a success or a failure alike, read by the shape both "
                            f"tick-or-slash models see: {id_list(by_shape)}")
    if settled:
        res.warnings.append(f"{len(settled)} unclear box(es) settled by the order their track "
                            f"is filled in: {id_list(settled)}")
    values: dict[str, str | int | None] = {}
    if ocr:
        eng = engine()
        with t.stage("ocr"):
            if eng.available:
                geoms = tpl.by_id()
                for rid, d in reading.darkness.items():
                    g = geoms[rid]
                    fld = (fieldreader.read_digits(d, g, reading.calibration, eng)
                           if g.region.kind == "digits"
                           else fieldreader.read_text(d, g, reading.calibration, eng))
                    if g.region.kind == "digits":
                        fld.confidence = digits_confidence(fld.confidence, f.dpi)
                    res.ocr[rid] = fld.to_dict()
                    if g.region.kind == "text" and fld.value is not None:
                        name = fieldreader.trusted_name(fld)
                        if name is not None:
                            values[rid] = name
                        else:
                            res.warnings.append(
                                f'the {rid} line was not read for sure (read "{fld.text}", '
                                f"confidence {fld.confidence:.2f}); the state has no {rid}")
                if f.dpi >= LOW_RES_DPI:
                    confirm_by_sum(res.ocr)
                values.update({rid: o["value"] for rid, o in res.ocr.items()
                               if geoms[rid].region.kind == "digits" and o["value"] is not None
                               and o["confidence"] >= fieldreader.OCR_TRUST})
            else:
                res.ocr = {"skipped": eng.reason}
                res.warnings.append(f"OCR skipped: {eng.reason}; marks were read")
    else:
        res.ocr = {"skipped": "OCR turned off"}
    res.canvas = canvas
    with t.stage("score"):
        _finish(res, values)
    return res


def _bubble_groups(res: SheetResult) -> None:
    """One choice per bubble group (scanner.choices), with what it settled or assumed."""
    groups = bubble_groups(res.manifest.regions)
    settled, unmarked = one_choice(res.marks, groups, "several {} options marked")
    doubt_unchosen(res.marks, groups, unmarked)
    res.warnings += settled_notes(settled, "box(es)")
    res.warnings += [f"no {group} option marked: the default is assumed" for group in unmarked]


def _finish(res: SheetResult, fields: dict[str, str | int | None]) -> None:
    """Marks -> career state -> validation, score and the written-score check. `fields`:
    the written fields' values read for sure (the name, score digits)."""
    from game.opial.marks import marks_to_state
    from game.opial.rules import load_rules
    from game.opial.scoring import score

    rules = load_rules(res.edition)
    if not res.from_form:
        _bubble_groups(res)
    values: dict[str, str | int | None] = {rid: (m.likely if m.state == REVIEW else m.state)
                                           for rid, m in res.marks.items()}
    values.update(fields)
    res.review = [rid for rid, m in res.marks.items() if m.state == REVIEW]
    res.state = marks_to_state(values, rules)
    res.score = score(res.state, rules)
    res.findings = validate_state(res.state, rules)
    if "skipped" in res.ocr or fieldreader.unsure(res.ocr.get("name")):  # no name read is
        #   not the same as none written
        res.findings = [f for f in res.findings if f.get("code") != "no-name"]
    res.written = compare_written(res.score, res.ocr)


def validate_state(state: Any, rules: Any) -> list[dict[str, Any]]:
    """The foundation's validator (game.opial.validate) on the read state, as JSON-ready
    findings."""
    from game.opial.validate import validate

    return [dict(f.to_dict()) for f in validate(state, rules)]


def form_result(form: FormPage) -> SheetResult:
    """A fillable PDF: its fields are the marks (confidence 1)."""
    from sheets.render import layout

    res = SheetResult(form.source, form.kind, form.edition, form.code, from_form=True)
    t0 = time.perf_counter()
    _check_kind(form.kind, form.source)
    res.manifest = layout(form.kind, form.edition, form.paper)
    if form.kind in SPACER_KINDS:
        from scanner import spacer

        return spacer.form_result(res, form.values, t0)
    written: dict[str, str | int | None] = {}
    for rid, v in form.values.items():
        if v in (CHECKED, SLASHED, EMPTY, CANCELLED):
            res.marks[rid] = Mark(str(v), 1.0, str(v))
        elif v is not None:
            written[rid] = v
            res.ocr[rid] = {"text": str(v), "value": v, "confidence": 1.0, "from": "form field"}
    res.timing["form"] = round((time.perf_counter() - t0) * 1000, 1)
    _finish(res, written)
    return res


def scan_file(path: str, ocr: bool = True, anyway: bool = False, keep_inputs: bool = False
              ) -> list[SheetResult]:
    """Every sheet in one input file; failures are results with `error` set (`anyway`:
    see scan_page; `keep_inputs`: each career sheet's box_inputs and digit cells, to
    train scanner.marks.audit and the digit reader)."""
    out: list[SheetResult] = []
    try:
        for item in pages(path):
            if isinstance(item, PageError):
                out.append(SheetResult(item.source, error=item.error))
                continue
            try:
                if isinstance(item, FormPage):
                    out.append(form_result(item))
                else:
                    out.append(scan_page(item, ocr, anyway, keep_inputs))
            except StarsheetsError as e:
                out.append(SheetResult(item.source, error=e))
    except StarsheetsError as e:
        out.append(SheetResult(path, error=e))
    return out
