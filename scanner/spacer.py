"""Reading the Spacer forms: the Setting Form (one page) and the Character Form (two).

The career pipeline (scanner.pipeline) locates, identifies and rectifies each page as
for any sheet; for a Spacer kind it then hands the rectified page to `read_page`:

    which page   both pages of the Character Form carry the same QR code and markers,
                 so the page is told by its content: the rectified photo is compared
                 (normalised correlation at 1/4 scale) with each page of the blank form
    template     that page of the blank form, rendered once per process (`page_template`)
    marks        scanner.marks.read_marks on that page's boxes, bubbles and circles
    groups       a bubble group (attr.agility 0..20, level, species, ...) with one mark
                 is its value; several marked all go to review (the inkiest is likely);
                 none is a blank box
    fields       digit combs and write-in lines through scanner.fields / scanner.ocr; a
                 number read with low confidence goes to review (its likely value is
                 used, never silently); a line of text keeps its OCR confidence, and is
                 snapped to the rules' words where the form expects one of them (gear
                 items, rank titles, special abilities, racial traits)

`combine(results)` then puts the pages of one form together (pages pair up in input
order: a page joins the earliest form of the same sheet code still missing that page),
builds the Character or Setting with game.spacer.marks, and validates it with the Spacer
validator. A form with a page missing gives a partial character and a `page-missing`
finding naming the page (it is not validated: most rules need both pages).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from scanner import fields as fieldreader
from scanner.choices import bubble_groups, one_choice, settled_notes
from scanner.marks import CHECKED, EMPTY, REVIEW, SLASHED, Mark, read_marks, reading_warnings
from scanner.template import RegionGeom, Template, blank_pages, build, render_blank
from sheets.manifest import Manifest

CHARACTER = "spacer-character"
SETTING = "spacer-setting"
SPACER_KINDS = (CHARACTER, SETTING)
PAGE_SCALE = 4  # pages are compared at 1/4 of the working resolution
PAGE_MARGIN = 0.05  # the best page must beat the next by this much correlation
TEXT_TRUST = 0.5  # a line read with less confidence is listed for review
WHITE = 248  # template gray: the white inside a box (tinted rows are darker)
SNAP = 0.7  # a word this close (difflib ratio) to a rules word is taken for it
SNAP_SURE = 0.8  # ... and below this, the line is listed for review

MARKED = (CHECKED, SLASHED)


@dataclass
class SpacerPage:
    """What one photographed page of a Spacer form gave, before the pages are combined."""

    page: int  # 1-based
    pages: int  # how many the form has
    match: dict[int, float]  # correlation with each page of the blank form
    values: dict[str, Any] = field(default_factory=dict)  # region id -> value for the model
    review: dict[str, str] = field(default_factory=dict)  # region id -> why


@dataclass
class SpacerForm:
    """The pages of one form, combined."""

    total: int  # pages the form has
    read: list[tuple[int, str]]  # (page number, source) of each page read, in page order
    missing: list[int]
    why: dict[str, str] = field(default_factory=dict)  # review id -> what was unclear
    page_results: list[Any] = field(default_factory=list)  # for the overlays


# --- the blank pages ----------------------------------------------------------------------
def page_manifest(manifest: Manifest, page: int) -> Manifest:
    """The manifest of one page: its regions, markers and QR code only."""
    return replace(manifest, pages=1,
                   regions=tuple(r for r in manifest.regions if r.page == page),
                   fiducials=tuple(f for f in manifest.fiducials if f.page == page),
                   qr=tuple(q for q in manifest.qr if q.page == page))


@lru_cache(maxsize=6)
def page_template(manifest: Manifest, page: int, dpi: float) -> Template:
    """The blank template of one page of a form (scanner.template.blank does page 1 of a
    sheet; this is the same construction for any page, with the form's geometry)."""
    return build(page_manifest(manifest, page), render_blank(manifest, dpi, page), dpi,
                 _spacer_geom)


def _spacer_geom(g: RegionGeom, gray: np.ndarray) -> RegionGeom:
    """Two things the Spacer forms need beyond scanner.template's geometry:

    * the paper tone is the brightest tenth of the ring around the box (the statistic
      scanner.marks measures on the photo), not its median: a box near the edge of a
      tinted band has white and tinted paper around it, and the median then makes the
      white inside the box read as ink;
    * a diamond or circle on a tinted row has tinted corners within its square: only the
      white inside the mark is measured."""
    pu0, pv0, pu1, pv1 = g.patch
    tg = gray[pv0:pv1, pu0:pu1]
    tone = g.paper_tone
    if g.ring is not None:
        sel = tg[g.ring].astype(np.float32)
        k = max(1, sel.size // 10)
        tone = float(np.partition(sel, sel.size - k)[sel.size - k:].mean())
    white = tg >= WHITE
    inside, centre, clear = g.inside, g.centre, g.clear
    if (inside & white).sum() >= 0.3 * inside.sum() and not (inside & white).all():
        inside, centre, clear = inside & white, centre & white, clear & white
    return replace(g, inside=inside, centre=centre, clear=clear, paper_tone=tone)


def which_page(canvas: np.ndarray, manifest: Manifest, dpi: float) -> tuple[int, dict[int, float]]:
    """The page of the form a rectified photo shows, and its correlation with each page
    of the blank form (ink on the page lowers all of them alike)."""
    if manifest.pages == 1:
        return 1, {1: 1.0}
    blanks = blank_pages(manifest, dpi)
    size = (canvas.shape[1] // PAGE_SCALE, canvas.shape[0] // PAGE_SCALE)
    img = cv2.resize(canvas, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    scores = {}
    for k, b in enumerate(blanks, start=1):
        t = cv2.resize(b, size, interpolation=cv2.INTER_AREA).astype(np.float32)
        scores[k] = round(float(cv2.matchTemplate(img, t, cv2.TM_CCOEFF_NORMED)[0, 0]), 3)
    best = max(scores, key=lambda k: scores[k])
    return best, scores


# --- one page -------------------------------------------------------------------------------
def read_page(res: Any, canvas: np.ndarray, ocr: bool, timer: Any, dpi: float,
              anyway: bool = False, square_on: bool = True) -> Any:
    """Read one rectified page of a Spacer form into `res` (a pipeline.SheetResult whose
    kind, code and manifest are set): its marks, fields and page number (`res.spacer`,
    a SpacerPage; `res.review` lists what to check on this page, for its overlay)."""
    _read_page(res, canvas, ocr, timer, dpi, anyway, square_on)
    res.review = list(res.spacer.review)
    return res


def _read_page(res: Any, canvas: np.ndarray, ocr: bool, timer: Any, dpi: float,
               anyway: bool, square_on: bool) -> Any:
    from scanner.ocr import engine
    from starsheets.errors import NotASheetError

    manifest = res.manifest
    with timer.stage("template"):
        page, scores = which_page(canvas, manifest, dpi)
        others = [v for k, v in scores.items() if k != page]
        if others and scores[page] - max(others) < PAGE_MARGIN:
            raise NotASheetError(f"{res.source}: cannot tell which page of the "
                                 f"{_title(res.kind)} this is (match {scores})",
                                 "Photograph the page flat and whole, in good light.")
        tpl = page_template(manifest, page, dpi)
    res.manifest = tpl.manifest
    with timer.stage("marks"):
        reading = read_marks(canvas, tpl)
    res.warnings.extend(reading_warnings(reading, res.source, anyway, square_on))
    res.marks = reading.marks
    res.canvas = canvas
    sp = SpacerPage(page, manifest.pages, scores)
    res.spacer = sp
    _groups(res)
    for rid, m in res.marks.items():
        sp.values[rid] = m.likely if m.state == REVIEW else m.state
        if m.state == REVIEW:
            sp.review[rid] = m.why
    if not ocr:
        res.ocr = {"skipped": "OCR turned off"}
        return res
    eng = engine()
    if not eng.available:
        res.ocr = {"skipped": eng.reason}
        res.warnings.append(f"OCR skipped: {eng.reason}; marks were read, written numbers "
                            "and text were not")
        return res
    with timer.stage("ocr"):
        geoms = tpl.by_id()
        for rid, d in reading.darkness.items():
            g = geoms[rid]
            if g.region.kind == "digits":
                fld = read_comb(d, g, reading.calibration, eng)
                res.ocr[rid] = fld.to_dict()
                _digits(sp, rid, fld)
            else:
                fld = fieldreader.read_text(d, g, reading.calibration, eng)
                res.ocr[rid] = fld.to_dict()
                _text(sp, rid, fld, res.ocr[rid])
    return res


def _title(kind: str) -> str:
    return "Character Form" if kind == CHARACTER else "Setting Form"


def _groups(res: Any) -> None:
    """One choice per bubble group (scanner.choices), with what it settled."""
    settled, _ = one_choice(res.marks, bubble_groups(res.manifest.regions),
                            "several {} bubbles marked")
    res.warnings += settled_notes(settled, "bubble(s)")


def read_comb(d: np.ndarray, g: RegionGeom, cal: Any, eng: Any) -> fieldreader.Field:
    """A comb of digit cells, each read by `scanner.fields.read_cell` (the digit
    classifier against Tesseract at one or more scales): a cell is trusted only when the
    two agree, else it goes to review at its likely digit."""
    return fieldreader.read_digits(d, g, cal, eng)


def _digits(sp: SpacerPage, rid: str, fld: fieldreader.Field) -> None:
    """A comb: its number, or review (with the likely number) when not read surely."""
    if not fld.text:
        return
    if fld.value is None or "-" in fld.text:
        sp.review[rid] = f"written number not read ('{fld.text}')"
        return
    sp.values[rid] = fld.value
    if fld.confidence < fieldreader.OCR_TRUST:
        sp.review[rid] = f"written number read as {fld.value} with confidence " \
                         f"{fld.confidence:.2f}"


def _text(sp: SpacerPage, rid: str, fld: fieldreader.Field, out: dict[str, Any]) -> None:
    """A write-in line: its text (snapped to the rules' words where the form expects
    them); a line read with little confidence is listed for review."""
    if not isinstance(fld.value, str) or not fld.value.strip():
        return
    text = clean_text(fld.value)
    snapped, sure = snap(rid, text)
    if snapped != text:
        out["snapped"] = snapped
    sp.values[rid] = snapped
    if fld.confidence < TEXT_TRUST:
        sp.review[rid] = f"text read as '{snapped}' with confidence {fld.confidence:.2f}"
    elif sure < SNAP_SURE:
        sp.review[rid] = f"text read as '{text}', taken for '{snapped}'"


def clean_text(text: str) -> str:
    """OCR text tidied: stray edge punctuation and doubled spaces removed."""
    text = re.sub(r"\s+", " ", text).strip()
    return text.strip("|_~-—=.,'\"` ").strip()


# --- the rules' words -----------------------------------------------------------------------
@lru_cache(maxsize=1)
def _vocabulary() -> dict[str, tuple[str, ...]]:
    from game.spacer.data import load_data

    data = load_data()
    items = tuple(dict.fromkeys([*(i.name for i in data.items),
                                 *(a for i in data.items for a in i.aliases)]))
    titles = tuple(dict.fromkeys(t for by_rank in data.rank_titles.values()
                                 for ts in by_rank.values() for t in ts if t))
    abilities = tuple(dict.fromkeys(a.name for s in data.species for a in s.abilities))
    racial = tuple(dict.fromkeys(t.name for s in data.species for t in s.racial_traits))
    return {"items": items, "titles": titles, "abilities": abilities, "racial": racial}


def _closest(text: str, words: tuple[str, ...], took: list[float]) -> str | None:
    """The rules word nearest `text` if near enough (its ratio appended to `took`)."""
    key = text.lower()
    best, ratio = None, 0.0
    for w in words:
        r = difflib.SequenceMatcher(None, key, w.lower()).ratio()
        if r > ratio:
            best, ratio = w, r
    if best is None or ratio < SNAP:
        return None
    if best != text:
        took.append(ratio)
    return best


def snap(rid: str, text: str) -> tuple[str, float]:
    """`text` as read on region `rid`, with a misread rules word put right ('Energy Rifie'
    on a gear line is 'Energy Rifle'), and how sure that is (1.0 when nothing was
    changed, else the weakest match); text not close to a rules word is kept as read."""
    v = _vocabulary()
    took: list[float] = []
    out = text
    if rid.startswith("gear."):
        out = "; ".join(_snap_gear(p.strip(), v["items"], took)
                        for p in re.split(r"[;+]", text) if p.strip())
    elif rid == "rank_title":
        out = _closest(text, v["titles"], took) or text
    elif rid.startswith("ability."):
        out = _closest(text, v["abilities"], took) or text
    elif rid.startswith("trait.") and rid.endswith(".name"):
        out = _closest(text, v["racial"], took) or text
    return out, min(took, default=1.0)


def _snap_gear(piece: str, items: tuple[str, ...], took: list[float]) -> str:
    m = re.match(r"^(\d+\s*[xX×]\s*)?(.*?)(\s*\(.*\))?$", piece)
    if not m:
        return piece
    count, name, cost = m.group(1) or "", m.group(2), m.group(3) or ""
    parts = [p.strip() for p in name.split(",")]
    if len(parts) > 1:  # 'Data Slate, Pocket knife' (or 'Pistol, Energy': one item)
        whole = _closest(name, items, took)
        if whole is None:
            return count + ", ".join(_closest(p, items, took) or p for p in parts) + cost
        return count + whole + cost
    return count + (_closest(name, items, took) or name) + cost


# --- a fillable form -------------------------------------------------------------------------
def form_result(res: Any, values: dict[str, Any], t0: float) -> Any:
    """A filled fillable Spacer form: its fields are the marks (confidence 1), every page
    at once."""
    import time

    for rid, v in values.items():
        if v in (CHECKED, SLASHED, EMPTY, "cancelled"):
            res.marks[rid] = Mark(str(v), 1.0, str(v))
        elif v is not None:
            res.ocr[rid] = {"text": str(v), "value": v, "confidence": 1.0,
                            "from": "form field"}
    total = res.manifest.pages
    res.spacer = SpacerForm(total, [(k, res.source) for k in range(1, total + 1)], [])
    res.timing["form"] = round((time.perf_counter() - t0) * 1000, 1)
    _finish(res, dict(values), {}, [])
    return res


# --- pages -> forms ---------------------------------------------------------------------------
def is_page(r: Any) -> bool:
    """A read page of a Spacer form still waiting for its other pages."""
    return isinstance(getattr(r, "spacer", None), SpacerPage) and r.error is None


def combine(results: list[Any]) -> list[Any]:
    """The results with the pages of each Spacer form put together: a form's result sits
    where its first page was; everything else is kept as it is, in order. Pages pair up
    in input order: a page joins the earliest form with the same sheet code that still
    lacks that page number, else starts a form."""
    from scanner.pipeline import SheetResult

    slots: list[Any] = []  # a result, or a list of page results (a form)
    open_forms: list[list[Any]] = []
    for r in results:
        if not is_page(r):
            slots.append(r)
            continue
        form = next((f for f in open_forms if f[0].code == r.code
                     and all(p.spacer.page != r.spacer.page for p in f)), None)
        if form is None:
            form = [r]
            open_forms.append(form)
            slots.append(form)
        else:
            form.append(r)
    out = []
    for s in slots:
        if not isinstance(s, list):
            out.append(s)
            continue
        pages = sorted(s, key=lambda p: p.spacer.page)
        first = pages[0]
        res = SheetResult(" + ".join(p.source for p in pages), first.kind, first.edition,
                          first.code)
        from sheets.render import layout_for_code

        res.manifest = layout_for_code(first.code)
        have = {p.spacer.page for p in pages}
        missing = [k for k in range(1, first.spacer.pages + 1) if k not in have]
        values: dict[str, Any] = {}
        review: dict[str, str] = {}
        notes: list[str] = []
        for p in pages:
            values.update(p.spacer.values)
            review.update(p.spacer.review)
            res.marks.update(p.marks)
            if "skipped" in p.ocr:
                res.ocr = {"skipped": p.ocr["skipped"]}
            elif "skipped" not in res.ocr:
                res.ocr.update(p.ocr)
            for k, v in p.timing.items():
                res.timing[k] = round(res.timing.get(k, 0.0) + v, 1)
            tag = f"page {p.spacer.page}: " if len(pages) > 1 or first.spacer.pages > 1 else ""
            notes.extend(tag + w for w in p.warnings)
        res.spacer = SpacerForm(first.spacer.pages, [(p.spacer.page, p.source) for p in pages],
                                missing, page_results=pages)
        _finish(res, values, review, notes)
        out.append(res)
    return out


def _finish(res: Any, values: dict[str, Any], review: dict[str, str], notes: list[str]) -> None:
    """Values -> Character or Setting -> the Spacer validator's findings."""
    from game.spacer.creation import validate_character
    from game.spacer.marks import marks_to_character, marks_to_setting
    from game.spacer.setting import validate_setting

    form: SpacerForm = res.spacer
    res.warnings.extend(notes)
    res.review = list(review)
    form.why = dict(review)
    if res.kind == CHARACTER:
        res.state = marks_to_character(values)
    else:
        res.state = marks_to_setting(values)
    if form.missing:
        res.findings = [missing_finding(res, form)]
        return
    report = validate_character(res.state) if res.kind == CHARACTER \
        else validate_setting(res.state)
    res.findings = [f.to_dict() for f in report.findings]
    if "skipped" in res.ocr:
        res.warnings.append("written numbers and text were not read: findings about them "
                            "(blank fields, levels, derived numbers) are not meaningful")


def missing_finding(res: Any, form: SpacerForm) -> dict[str, Any]:
    read = [k for k, _ in form.read]
    total = form.total
    miss = " and ".join(str(k) for k in form.missing)
    have = " and ".join(str(k) for k in read)
    return {
        "code": "page-missing", "severity": "error", "rule": "both pages",
        "section": "starsheets scan", "fields": [],
        "message": (f"only page {have} of {total} of the {_title(res.kind)} was read: page "
                    f"{miss} is missing, so this is a partial "
                    f"{'character' if res.kind == CHARACTER else 'setting'} (not validated)"),
        "fix": (f"Scan every page of the form in one run: starsheets scan page1.jpg "
                f"page2.jpg (or one PDF/TIFF holding all {total} pages)."),
    }


# --- reporting --------------------------------------------------------------------------------
def json_extra(r: Any) -> dict[str, Any]:
    """The keys a Spacer result adds to the scan's JSON object: the pages read (and
    missing) and, per id to review, what was unclear."""
    sp = r.spacer
    if isinstance(sp, SpacerPage):  # a page not (yet) combined
        return {"page": sp.page, "pages": sp.pages, "page_match": sp.match,
                "review_why": dict(sp.review)}
    return {"pages": [{"page": k, "source": s} for k, s in sp.read],
            "missing_pages": list(sp.missing), "review_why": dict(sp.why)}


def _who(r: Any) -> str:
    st = r.state
    if r.kind == CHARACTER:
        bits = [b for b in (st.species, f"level {st.level}" if st.level is not None else "")
                if b]
        name = st.character or "(no name read)"
        return f"{name} ({', '.join(bits)})" if bits else name
    return st.title or "(no title read)"


def summary(r: Any) -> list[str]:
    """A few lines for a person: who or what was read, what to look at, the findings."""
    sp = r.spacer
    if isinstance(sp, SpacerPage):
        return [f"{r.source}: {r.kind} page {sp.page} of {sp.pages}: {len(r.marks)} boxes"]
    total = sum(r.timing.values())
    pages = (f"pages {', '.join(str(k) for k, _ in sp.read)} of {sp.total}"
             if sp.total > 1 else "1 page")
    lines = [f"{r.source}: {r.kind} — {_who(r)} — {pages}, {len(r.marks)} boxes in "
             f"{total:.0f} ms"]
    errors = sum(1 for f in r.findings if f.get("severity") == "error")
    warns = sum(1 for f in r.findings if f.get("severity") == "warning")
    if not sp.missing:
        verdict = "OK" if not errors else "NOT LEGAL" if r.kind == CHARACTER else "NOT AGREED YET"
        provisional = (f" (provisional: {len(r.review)} box(es)/field(s) below read at their "
                       "most likely value)" if r.review else "")
        lines.append(f"  {verdict}: {errors} error(s), {warns} warning(s){provisional}")
    if r.review:
        from scanner.report import review_lines

        lines.append(f"  please look at {len(r.review)} box(es)/field(s), read at their most "
                     "likely value:")
        lines += review_lines(r.review, lambda rid: sp.why.get(rid, ""), lambda rid: None)
    for f in r.findings:
        lines.append(f"  {f.get('severity', 'finding')} {f.get('code', '')}: "
                     f"{f.get('message', f)}")
        if f.get("fix"):
            lines.append(f"        fix: {f['fix']}")
    for w in r.warnings:
        lines.append(f"  note: {w}")
    return lines


# --- one form from one file (starsheets validate character|setting PHOTO) ------------------
def read_form(paths: str | Sequence[str], kind: str, notes: list[str] | None = None,
              ocr: bool = True) -> Any:
    """The Character or Setting on photos, scans or PDFs (`kind`: spacer-character or
    spacer-setting): one file holding every page, or one file per page (pages pair up
    as in `combine`). What a person should check (boxes and fields to review, warnings)
    is appended to `notes`. Raises the input's error, NotASheetError for another sheet
    or form, InputFileError when a page of the form is missing or the files hold
    several forms."""
    from scanner.pipeline import scan_file
    from starsheets.errors import InputFileError, NotASheetError

    paths = [paths] if isinstance(paths, str) else list(paths)
    path = " + ".join(paths)
    results = combine([r for p in paths for r in scan_file(p, ocr=ocr)])
    for r in results:
        if r.error is not None:
            raise r.error
    forms = [r for r in results if r.kind in SPACER_KINDS]
    want = "character" if kind == CHARACTER else "setting"
    if not forms:
        got = results[0].kind if results else "no"
        raise NotASheetError(f"{path}: a {got} sheet, not a Spacer {want} form",
                             f"Give a photo or scan of the Spacer {_title(kind)}.")
    wrong = [r for r in forms if r.kind != kind]
    if wrong and len(forms) > 1:
        other = "setting" if want == "character" else "character"
        raise NotASheetError(f"{wrong[0].source} is a Spacer {other} form, not a page of the "
                             f"{want} form", f"Give only the pages of the Spacer {_title(kind)}.")
    if len(forms) > 1:
        raise InputFileError(f"{path} holds {len(forms)} Spacer forms; validate reads one",
                             "Use `starsheets scan FILE...` to read them all.")
    others = [r for r in results if r.kind not in SPACER_KINDS]
    if others:
        raise NotASheetError(f"{others[0].source}: a {others[0].kind} sheet, not a page of "
                             f"the Spacer {want} form",
                             f"Give only the pages of the Spacer {_title(kind)}.")
    form = forms[0]
    if form.kind != kind:
        other = "setting" if want == "character" else "character"
        raise NotASheetError(f"{path} is a Spacer {other} form, not a {want} form",
                             f"Use `starsheets validate {other}` for it.")
    if form.spacer.missing:
        f = missing_finding(form, form.spacer)
        raise InputFileError(f"{path}: {f['message']}",
                             f"Give every page: starsheets validate {want} page1.jpg page2.jpg "
                             "(or one PDF/TIFF holding all the pages).")
    if notes is not None:
        if form.review:
            notes.append(f"{path}: {len(form.review)} box(es)/field(s) to check on the form "
                         "(read at their most likely value): "
                         + "; ".join(f"{rid} ({form.spacer.why.get(rid, '')})"
                                     for rid in form.review))
        notes.extend(f"{path}: {w}" for w in form.warnings)
    return form.state
