"""The scanner against synthetic photos and scans with known truth (scanner.synthetic).

Default: a fast slice (a clean render, a photocopied blank sheet, a phone photo), a
sheet recognised by its printed content when its QR code is gone (both editions), and a
curled page read through the residual warp. `-m slow`: a fixed slice of every bench set
(the first ten cases of bench/bench_scanner.py's sets, seed 0), against the figures the
scanner reaches (docs/scanner.md, "Measured"): silent box errors, boxes sent to review.

Scoring as the bench's: a box read wrong and not sent to review is a silent error; a
slash counts as a check outside Executed boxes; a cancelled box is an empty one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import pytest

import sheets
from game.opial.marks import CANCELLED, CHECKED, SLASHED, meaning
from scanner import digits
from scanner.consistency import INK_ALONE, SETTLED_WHY
from scanner.faintline import ENDS_SCORE, LINE_RATIO, LINE_SCORE
from scanner.fields import OCR_TRUST
from scanner.linesum import CONFIRMED
from scanner.marks import BLURRED_PX, EMPTY, INK, REVIEW, SETTLED, Calibration, Mark
from scanner.marks.audit import (
    AUDIT_WHY,
    FILLED_RIM_WHY,
    SETTLE_WHY,
    SHAPE_SETTLE_WHY,
    TICK_LEAN_WHY,
)
from scanner.marks.classifier import HALO_FILL
from scanner.marks.sheet import FAINT_LINE_WHY, LIGHT_BAND_WHY
from scanner.pipeline import SheetResult, scan_page
from scanner.synthetic import Case, case_seed, make_case
from scanner.triage import PageImage
from starsheets.errors import StarsheetsError

KINDS = {r.id: r.kind for r in sheets.layout("career", "later", "letter").regions}
BOXES = [rid for rid, k in KINDS.items() if k in ("checkbox", "bubble")]


@dataclass
class Score:
    boxes: int = 0
    silent: int = 0
    review: int = 0
    sheets: int = 0
    sheets_silent: int = 0
    failed: int = 0

    def add(self, case: Case, res: SheetResult) -> list[str]:
        self.sheets += 1
        if res.error is not None:
            self.failed += 1
            return [f"failed: {res.error}"]
        wrong = []
        for rid in BOXES:
            m = res.marks[rid]
            self.boxes += 1
            if m.state == "review":
                self.review += 1
            elif meaning(rid, m.state) != meaning(rid, case.truth[rid]):
                wrong.append(f"{rid}: truth {case.truth[rid]}, read {m.state}")
        self.silent += len(wrong)
        self.sheets_silent += bool(wrong)
        return wrong


def _quiet_cal(noise: float, ink_level: float) -> Calibration:
    """A sheet's calibration for the classify tests: paper 0.03, the usual ink (0.15) and
    faint (0.09) thresholds, no print gain; `noise` says how quiet it is (a scan: 0.004)."""
    return Calibration(0.03, noise, 0.15, 0.09, ink_level, gain=1.0)


def read(case: Case, anyway: bool = False) -> SheetResult:
    gray = cv2.imdecode(np.frombuffer(case.encoded, np.uint8), cv2.IMREAD_GRAYSCALE)
    try:
        return scan_page(PageImage(f"{case.profile}-{case.seed}", gray), ocr=False,
                         anyway=anyway)
    except StarsheetsError as e:  # a refusal is a result here
        res = SheetResult(f"{case.profile}-{case.seed}")
        res.error = e  # type: ignore[assignment]
        return res


# --- the fast slice -------------------------------------------------------------------------
def doubted(m: Mark, rid: str, truth: str, why: str | None = None) -> bool:
    """A box the reading left in doubt (its why `why`): a review, or a box the rest of the
    page (scanner.consistency) or the learned second look (scanner.marks.audit) settled
    since to its truth, its own doubt kept in its why."""
    if m.state == REVIEW:
        return why is None or m.why == why
    right = meaning(rid, m.state) == meaning(rid, truth)
    if m.why.startswith(SHAPE_SETTLE_WHY):  # (a mark whose shape the rules doubted: no why)
        return right and m.doubt == SETTLED and why is None
    if m.why.startswith(SETTLE_WHY):
        return right and m.doubt == SETTLED and (why is None or m.why.endswith(": " + why))
    return (m.why.startswith(SETTLED_WHY) and right
            and (why is None or m.why.endswith(INK_ALONE + why)))


@pytest.mark.parametrize(("profile", "seed", "edition", "paper"), [
    ("clean", 1, "later", "letter"), ("scan-300", 2, "later", "letter"),
    ("phone-easy", 0, "later", "letter"),
    # the other edition and paper: the rules were tuned on the later edition on Letter, and
    # session 64 benched both others (bench/README.md)
    ("clean", 3, "earlier", "a4"), ("scan-300", 4, "later", "a4"),
    ("phone-easy", 5, "earlier", "letter")])
def test_fast_slice_has_no_silent_error(profile: str, seed: int, edition: str,
                                        paper: str) -> None:
    case = make_case(seed, profile, edition, paper)
    res = read(case)
    assert res.code == case.meta["code"], (res.code, res.error)
    score = Score()
    wrong = score.add(case, res)
    assert not wrong, wrong[:5]
    assert score.review <= 3, res.review
    if case.meta["sheet"]["kind"] == "blank":  # a blank (photocopied) sheet reads blank
        assert score.review == 0 and not any(m.state in (CHECKED, SLASHED)
                                             for m in res.marks.values())


@cache
def _render(edition: str, fill: bool = True) -> np.ndarray:
    import pypdfium2 as pdfium

    from game.opial.rules import load_rules
    from game.opial.state import CareerState
    from sheets.fill import fill_pdf

    if fill:
        state = CareerState(edition=edition, tours=(1, 2, 3), promotion=(1, 2, 3, 4),
                            missions={"training": "SF"}, clone=(1,))
        pdf = fill_pdf(state, load_rules(edition), "letter", "pen", 5)
    else:
        pdf = sheets.render("career", edition, "letter").pdf
    doc = pdfium.PdfDocument(pdf)
    arr = doc[0].render(scale=200 / 72, grayscale=True).to_numpy()
    doc.close()
    return np.ascontiguousarray(arr[..., 0] if arr.ndim == 3 else arr)


def _without_qr(img: np.ndarray, edition: str) -> np.ndarray:
    m = sheets.layout("career", edition, "letter")
    q = m.qr[0]
    s = 200 / 72
    x, y, w, h = q.rect
    H = m.page_size[1]
    out = img.copy()
    out[int((H - y - h) * s) - 6:int((H - y) * s) + 6, int(x * s) - 6:int((x + w) * s) + 6] = 255
    return out


@pytest.mark.parametrize("edition", ["later", "earlier"])
def test_sheet_without_qr_code_is_recognised_by_its_content(edition: str) -> None:
    """The QR code cut out: the known layouts are compared with the page, and the
    editions (which differ only in the Rank Bonus printed) are told apart."""
    res = scan_page(PageImage("no-qr", _without_qr(_render(edition), edition)), ocr=False)
    assert res.identified.startswith("layout"), res.identified
    assert res.edition == edition and res.code.endswith(f":{edition.upper()}:LETTER:L1")
    assert any("printed content" in w for w in res.warnings)
    assert res.state.tours == (1, 2, 3) and res.state.promotion == (1, 2, 3, 4)
    assert res.state.missions.get("training") == "SF"


def test_unreadable_page_is_refused_not_guessed() -> None:
    """No QR code and nothing a known layout matches (the page's print blanked out but
    for its corner markers): refused as before."""
    from starsheets.errors import NotASheetError

    img = _without_qr(_render("later", fill=False), "later")
    m = sheets.layout("career", "later", "letter")
    s = 200 / 72
    H = m.page_size[1]
    keep = np.zeros(img.shape, bool)
    for f in m.fiducials:
        x, y, w, h = f.rect
        keep[int((H - y - h) * s) - 2:int((H - y) * s) + 2, int(x * s) - 2:int((x + w) * s) + 2] = True
    blank = np.where(keep, img, 255).astype(np.uint8)
    with pytest.raises(NotASheetError, match="sheet code"):
        scan_page(PageImage("blank", blank), ocr=False)


def test_curled_page_is_read_through_the_residual_warp() -> None:
    """A page displaced smoothly by up to ~1.5 mm (a curl a homography cannot model):
    every box is still found and read."""
    img = _render("later")
    h, w = img.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    amp = 1.5 / 25.4 * 200  # 1.5 mm
    dx = amp * np.sin(np.pi * yy / h) * (xx / w) ** 2
    dy = 0.6 * amp * np.sin(2 * np.pi * xx / w) * (yy / h)
    warped = cv2.remap(img, xx + dx, yy + dy, cv2.INTER_LINEAR, borderValue=255)
    res = scan_page(PageImage("curl", warped), ocr=False)
    assert res.state.tours == (1, 2, 3) and res.state.promotion == (1, 2, 3, 4)
    assert res.review == []
    assert res.state.missions.get("training") == "SF"


# --- the slow suite: a fixed slice of every bench set ----------------------------------------
# (set, profile, silent box errors at most, boxes to review at most): what the scanner
# reaches on the first ten cases of each set (phone: 2 silent errors, 0.07 %; 0.7 % to
# review; every other set: none silent), with a little room
TARGETS = [
    ("phone", "phone", 0.001, 0.01),
    ("phone-easy", "phone-easy", 0.0, 0.005),
    ("corner-cut", "corner-cut", 0.0, 0.008),
    ("scan-150", "scan-150", 0.0, 0.015),
    ("scan-300", "scan-300", 0.0, 0.01),
    ("scan-600", "scan-600", 0.0, 0.005),
    ("clean", "clean", 0.0, 0.008),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "profile", "silent", "review"), TARGETS)
def test_synthetic_slice_meets_its_targets(name: str, profile: str, silent: float,
                                           review: float) -> None:
    score = Score()
    notes = []
    for i in range(10):
        case = make_case(case_seed(0, name, i), profile)
        res = read(case)
        wrong = score.add(case, res)
        notes.extend(f"{i}: {w}" for w in wrong)
        if res.error is None:
            assert res.identified, "the sheet code was found somehow"
    assert score.failed == 0, notes
    assert score.silent / score.boxes <= silent, notes
    assert score.review / score.boxes <= review, (score.review, score.boxes)


def test_a_pen_tick_read_as_a_slash_that_the_model_leans_to_call_a_tick_is_a_review() -> None:
    """Held out on the earlier edition (session 64, 2099 phone 66): a blue pen tick whose
    short arm is a stub on a blurred photo, read slashed at 0.994 (a failed mission),
    the model checked 0.55: a review leaning checked, not a silent failure."""
    case = make_case(case_seed(2099, "phone", 66), "phone", "earlier", "letter")
    res = read(case)
    assert case.truth["mission.siege.1"] == CHECKED
    m = res.marks["mission.siege.1"]
    assert m.state == REVIEW and m.likely == CHECKED and m.why.startswith(TICK_LEAN_WHY), m
    assert not Score().add(case, res)


@pytest.mark.slow
@pytest.mark.parametrize(("edition", "paper"), [("earlier", "letter"), ("later", "a4"),
                                                ("earlier", "a4")])
@pytest.mark.parametrize("profile", ["phone", "scan-300", "clean"])
def test_other_editions_and_papers_read_as_well(profile: str, edition: str, paper: str) -> None:
    """Every reading rule was measured on the later edition on Letter; the earlier edition
    and A4 (session 64's seed 2089, bench/README.md) read as well: no silent box, under 1 %
    to review, every scan and clean render read (a harsh photo may be refused)."""
    score = Score()
    notes = []
    for i in range(8):
        case = make_case(case_seed(2089, profile, i), profile, edition, paper)
        res = read(case)
        notes.extend(f"{i}: {w}" for w in score.add(case, res))
        if res.error is None:
            assert res.code == case.meta["code"]
    assert score.boxes and score.silent == 0, notes
    assert score.review / score.boxes < 0.01, (score.review, score.boxes)
    if profile != "phone":
        assert score.failed == 0


def test_fat_tick_that_widens_at_its_vertex_is_a_tick() -> None:
    """A felt pen's tick on a mild photo (bench case phone-easy 15, seed 0) whose short arm
    has merged into the long one reads neither one stroke nor two, but the ink widens to
    1.5x its stroke at the vertex, which a thick slash never does (<= 1.28 on the bench)."""
    case = make_case(case_seed(0, "phone-easy", 15), "phone-easy")
    m = read(case).marks["mission.science.2"]
    assert case.truth["mission.science.2"] == CHECKED
    assert m.state == CHECKED, m


def test_light_pencil_slashes_on_a_scan_read_as_slashes() -> None:
    """A 150 dpi scan of a sheet marked in light pencil (bench case scan-150 14, seed 11):
    its slashes are thin single strokes (faint ink on 6-10 % of a box) that run across
    their box; on a quiet scan a tick's short arm would show, so each is read as a slash,
    and every Executed box reads right, none left for review."""
    from scanner.marks import is_executed

    case = make_case(case_seed(11, "scan-150", 14), "scan-150")
    res = read(case)
    executed = [rid for rid in BOXES if is_executed(rid)]
    slashes = [rid for rid in executed if case.truth[rid] == SLASHED]
    assert len(slashes) >= 5
    assert [rid for rid in executed
            if meaning(rid, res.marks[rid].state) != meaning(rid, case.truth[rid])] == []


def test_marks_under_the_thresholds_on_a_light_quiet_scan_are_read() -> None:
    """A 150 dpi scan marked in so light a pencil (bench case scan-150 14, seed 0) that
    its ticks in plain boxes barely cross the usual thresholds: a little ink, to review.
    On a quiet sheet whose marks are all that light, those boxes are read again at
    thresholds set by the scan's own noise, where each shows as a whole tick. Nothing is
    read wrong, and the marks hidden in printed numbers stay reviews."""
    case = make_case(case_seed(0, "scan-150", 14), "scan-150")
    res = read(case)
    again = {rid for rid, m in res.marks.items() if m.why.startswith("a light mark, read at")}
    assert {"skill.computer.3", "tour.3", "tour.4", "tour.2.mission.3"} <= again
    assert [rid for rid in again if res.marks[rid].state != case.truth[rid]] == []
    assert [rid for rid in BOXES if res.marks[rid].state != REVIEW
            and meaning(rid, res.marks[rid].state) != meaning(rid, case.truth[rid])] == []


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (11, "clean", 14, "mission.communications.2"),  # a pen tick
    (7, "clean", 3, "mission.communications.3"),  # a light pencil tick
    (7, "clean", 3, "mission.exploration.2"),  # fainter still (the faint-mark path)
    (0, "phone", 4, "mission.strike.2"),  # pen ticks on noisy phone photos
    (7, "phone", 83, "mission.diplomatic.3"),
])
def test_tick_whose_short_arm_widens_its_stroke_is_checked(seed: int, profile: str,
                                                           index: int, rid: str) -> None:
    """A tick whose short arm holds only 10-13 % of its ink (a second stroke needs 18 %)
    and stays too close to the long arm's band to count as leaving it: before, "one
    stroke or two?". The ink widening to 1.4x its stroke at the vertex tells it (a slash
    keeps its width): checked, on a clean render and on a noisy phone photo."""
    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == CHECKED
    assert m.state == CHECKED, m
    assert m.features["bulge"] >= 1.4 and 0.05 < m.features["line2"] < 0.18


def test_haze_far_lighter_than_the_sheets_marks_is_empty() -> None:
    """A blurred phone photo of dark marks (bench case phone 82, seed 11): the print's
    haze puts faint ink in its small promotion boxes, nothing over the full threshold, at
    under a third of the sheet's typical mark. Empty, not "a little ink" to review."""
    case = make_case(case_seed(11, "phone", 82), "phone")
    res = read(case)
    assert res.error is None
    f = {rid: res.marks[rid].features for rid in BOXES}
    haze = [rid for rid in BOXES if rid.startswith("promotion.") and case.truth[rid] == "empty"
            and f[rid].get("faint", 0) >= 0.1 and f[rid].get("ink", 0) < 0.02]
    assert len(haze) >= 10
    assert [rid for rid in haze if res.marks[rid].state != "empty"] == []
    assert [rid for rid in BOXES if res.marks[rid].state == "empty"
            and meaning(rid, case.truth[rid]) != "empty"] == []


def test_coloured_in_box_beside_a_neighbours_ink_is_checked() -> None:
    """A box coloured in (bench case clean 6, seed 0) with its neighbour's ink crossing
    its rim on one side only reads checked: a correction's scribble goes all round."""
    case = make_case(case_seed(0, "clean", 6), "clean")
    m = read(case).marks["mission.strike.2"]
    assert case.truth["mission.strike.2"] == CHECKED
    assert m.state == CHECKED, m
    assert m.features["halo"] >= 0.3 and m.features["halo_sides"] == 1  # ink in its rim


def test_much_rim_ink_on_some_sides_only_is_no_correction() -> None:
    """Boxes full over the ink threshold with their rims inked past HALO_CANCEL, which
    are not corrections: a box coloured in beside a neighbour's fat cross (bench case
    phone-easy 8, seed 7; its rim inked on one side: checked), and two crosses on a dim
    photo (phone 93, seed 7; until session 20 the paper under them read over the
    threshold, lifted by the floor brighter neighbours set: review, never silently
    cancelled; since the floor is capped by the paper around them, plain checks)."""
    case = make_case(case_seed(7, "phone-easy", 8), "phone-easy")
    m = read(case).marks["medal.distinction.2"]
    assert case.truth["medal.distinction.2"] == CHECKED
    assert m.state == CHECKED and m.features["halo"] >= 0.5, m
    case = make_case(case_seed(7, "phone", 93), "phone")
    marks = read(case).marks
    for rid in ("promotion.12", "promotion.14"):
        assert case.truth[rid] == CHECKED
        assert marks[rid].state == CHECKED and marks[rid].features["fill"] < 0.85, (
            rid, marks[rid])


def test_marker_ticks_on_a_scan_are_checked() -> None:
    """A 300 dpi scan of marker marks (bench case scan-300 0, seed 7): a fat tick whose
    short arm puts 11.5 % of its ink on a second band is checked, not "one stroke or
    two?": on a scan a fat slash keeps its ink on its band. The sheet reads exactly."""
    case = make_case(case_seed(7, "scan-300", 0), "scan-300")
    res = read(case)
    assert res.marks["mission.trade.2"].state == CHECKED == case.truth["mission.trade.2"]
    assert [rid for rid in BOXES if res.marks[rid].state == REVIEW
            or meaning(rid, res.marks[rid].state) != meaning(rid, case.truth[rid])] == []


def test_print_haze_on_a_blurred_photo_of_dark_marks_is_no_faint_mark() -> None:
    """A blurred phone photo of dark marks (bench case phone 82, seed 11): the blur of
    the printed "43" in an empty promotion box is no faint mark (it read as one, and that
    one misread broke the track's order, so nothing on the sheet was settled by it)."""
    case = make_case(case_seed(11, "phone", 82), "phone")
    res = read(case)
    assert case.truth["promotion.43"] != CHECKED
    m = res.marks["promotion.43"]
    assert doubted(m, "promotion.43", case.truth["promotion.43"]), m
    assert [rid for rid in BOXES if res.marks[rid].state != REVIEW
            and meaning(rid, res.marks[rid].state) != meaning(rid, case.truth[rid])] == []


@pytest.mark.parametrize(("index", "rid"), [
    (6, "mission.fighter_pilot.4"),  # the model fairly sure (0.86), the vertex widening 2.4x
    (20, "mission.siege.2"),  # the model barely (0.26), the vertex widening 1.4x
])
def test_short_armed_pen_tick_on_a_photo_is_never_a_sure_slash(index: int, rid: str) -> None:
    """A mild phone photo whose ticks' short arms are a third to two thirds of what the
    bench usually draws (bench case short-ticks, seed 0): these two read as one straight
    stroke, a sure slash (a failed mission) before session 11. The tick-or-slash model
    finding some tick in a stroke that widens at one point sends it to review."""
    case = make_case(case_seed(0, "short-ticks", index), "short-ticks")
    m = read(case).marks[rid]
    assert case.truth[rid] == CHECKED
    assert m.state in (CHECKED, REVIEW), m


def test_short_armed_ticks_on_a_scan_are_ticks() -> None:
    """A scan whose ticks' short arms are short (bench case short-ticks-scan 18, seed 0):
    four ticks were "one stroke or two?" before session 12. On a quiet sheet the model's
    tick, ink off the stroke's band and a widening at the vertex, all three, read a tick;
    the sheet reads exactly."""
    case = make_case(case_seed(0, "short-ticks-scan", 18), "short-ticks-scan")
    res = read(case)
    for rid in ("mission.communications.4", "mission.exploration.1", "mission.patrol.1",
                "mission.strike.1"):
        assert res.marks[rid].state == CHECKED == case.truth[rid], (rid, res.marks[rid])
    assert [rid for rid in BOXES if res.marks[rid].state == REVIEW
            or meaning(rid, res.marks[rid].state) != meaning(rid, case.truth[rid])] == []


@pytest.mark.parametrize(("index", "rid"), [
    (16, "mission.exploration.3"),  # its short arm ends on the printed "+"
    (26, "mission.science.3"),
])
def test_short_armed_pen_tick_on_a_scan_is_never_a_sure_slash(index: int, rid: str) -> None:
    """Scans whose ticks' short arms are short (bench case short-ticks-scan, seed 0): these
    two read as sure slashes before session 12. On a quiet sheet a stroke with ink off its
    band that the model finds somewhat like a tick goes to review."""
    case = make_case(case_seed(0, "short-ticks-scan", index), "short-ticks-scan")
    m = read(case).marks[rid]
    assert case.truth[rid] == CHECKED
    assert m.state in (CHECKED, REVIEW), m


def test_marker_slash_edge_to_edge_on_a_scan_is_never_a_sure_tick() -> None:
    """A marker's slash on a scan (bench case short-ticks-scan 6, seed 11): its blunt ends
    are wider than its band, which put 16 % of its ink on a second band, and it read as a
    tick (a failed mission read as a success) before session 12. A fat stroke running edge
    to edge with nothing well off its band goes to review."""
    case = make_case(case_seed(11, "short-ticks-scan", 6), "short-ticks-scan")
    m = read(case).marks["mission.system_defense.1"]
    assert case.truth["mission.system_defense.1"] == SLASHED
    assert m.state in (SLASHED, REVIEW), m


def test_sheet_whose_marks_hardly_show_is_refused() -> None:
    """A harsh photo of the palest, thinnest pencil (bench case phone 65, seed 21): nine
    marks read for sure, 89 of 309 boxes unclear and 26 marks read as empty boxes. Too few
    sure marks used to stand for "a sheet hardly marked" and let it through; with that many
    boxes unclear it is refused as too faint (before session 12 it was read, wrongly)."""
    case = make_case(case_seed(21, "phone", 65), "phone")
    res = read(case)
    assert res.error is not None and "too faint to read" in res.error.one_line(), res.error
    assert "photo" in res.error.one_line() and "photo" in res.error.fix


def test_photo_of_pencil_just_over_a_scans_faint_limit_is_refused() -> None:
    """Session 39: a harsh photo of pale pencil whose typical mark is 1.21x its ink threshold
    (a scan's limit is 1.2x, a photo's 1.22x) lost three marks with no pixel over the
    threshold, read silently as empty. Refused now; read anyway, it is read as before."""
    from scanner.marks.legible import FAINT_PHOTO, FAINT_SHEET

    assert FAINT_SHEET < 1.21 < FAINT_PHOTO
    case = make_case(case_seed(269, "phone", 88), "phone")
    res = read(case)
    assert res.error is not None and "too faint to read in this photo" in res.error.one_line()
    gray = cv2.imdecode(np.frombuffer(case.encoded, np.uint8), cv2.IMREAD_GRAYSCALE)
    anyway = scan_page(PageImage("269-phone-88", gray), ocr=False, anyway=True)
    assert any(w.startswith("read anyway, though the marks are too faint") for w in anyway.warnings)


@pytest.mark.parametrize(("seed", "profile", "index", "says", "never", "fix"), [
    # a photocopy of pale, thin pencil scanned at 150 dpi (its typical mark 1.02x its ink
    # threshold): no photo was taken, so "take a sharper photo" would be no help
    (83, "scan-150", 4, "too faint to read in this scan", "photo", "scan the sheet again"),
    # a 300-dpi scan of a speckled photocopy of pale pencil (noise 0.0088, over SCAN_NOISE):
    # still a scan (called a photo, and told to take a sharper one, until session 61)
    (1889, "scan-300", 54, "too faint to read in this scan", "photo", "scan the sheet again"),
    # a harsh phone photo as quiet as a scan (noise under SCAN_NOISE), tilted: its page
    # shows perspective, so it stays a photo (called a scan before session 24)
    (97, "phone", 7, "too faint to read in this photo", "this scan", "photo"),
])
def test_a_sheet_whose_marks_hardly_show_is_called_what_it_is(
        seed: int, profile: str, index: int, says: str, never: str, fix: str) -> None:
    """A sheet refused as too faint is called a scan, with a scan's fix, only when it is
    imaged square on; else a photo, with a photo's fix."""
    case = make_case(case_seed(seed, profile, index), profile)
    res = read(case)
    assert res.error is not None, res.warnings
    line = res.error.one_line()
    assert says in line and never not in line, line
    assert fix in res.error.fix


def test_a_page_imaged_square_on_has_no_keystone() -> None:
    """rectify.keystone: 1 for an affine map (a flatbed scan, turned, scaled, sheared), and
    over KEYSTONE_FLAT once the page is seen at an angle (a photo tilted by 3 degrees)."""
    from scanner.rectify import KEYSTONE_FLAT, keystone

    page = (612.0, 792.0)
    turn = np.array([[3.9, -0.2, 100.0], [0.2, 3.9, 80.0], [0.0, 0.0, 1.0]])
    assert keystone(turn, page) == pytest.approx(1.0)
    # a camera 0.5 m above the page, tilted 3 degrees: the far edge is 1 cm further away
    tilt = turn.copy()
    tilt[2, 1] = (np.tan(np.radians(3.0)) * 792 / 2) / (500 / 25.4 * 72) / 792 * 2
    assert keystone(tilt, page) > KEYSTONE_FLAT


@pytest.mark.parametrize(("seed", "profile", "index"), [
    (11, "phone", 25), (22, "phone-easy", 7),
])
def test_photo_whose_lightest_marks_sink_under_the_threshold_is_refused(
        seed: int, profile: str, index: int) -> None:
    """Light pencil on a phone photo whose typical mark clears the "too faint" bound (1.32x
    and 1.25x the ink threshold) but over a tenth of whose sure marks lie under the threshold:
    two marks each showed no pixel above the noise and were read silently as empty before
    session 18. Now refused, with the fix."""
    case = make_case(case_seed(seed, profile, index), profile)
    res = read(case)
    assert res.error is not None, res.warnings
    assert "lighter than the ink threshold" in res.error.one_line(), res.error


def test_faint_tail_counts_sure_marks_on_photos_only() -> None:
    """_faint_tail: the share of sure marks under their ink threshold, on a photo with
    FAINT_MIN_SURE of them or more; 0 on a sheet as quiet as QUIET_NOISE or with too few."""
    from scanner.marks import Mark, Reading
    from scanner.marks.legible import FAINT_MIN_SURE, _faint_tail

    def reading(noise: float, levels: list[float]) -> Reading:
        marks = {f"promotion.{i + 1}": Mark(CHECKED, 0.6, CHECKED, "", {"level": lv,
                                                                      "t_ink": 0.2})
                 for i, lv in enumerate(levels)}
        return Reading(marks, Calibration(0.0, noise, 0.2, 0.1), {}, {})

    light = [0.19] * 2 + [0.3] * 8
    assert _faint_tail(reading(0.02, light)) == 0.2
    assert _faint_tail(reading(0.005, light)) == 0.0  # a scan: read again at its own noise
    assert _faint_tail(reading(0.02, light[1: FAINT_MIN_SURE])) == 0.0  # one under, of 9


def test_faint_tail_counts_a_few_sure_marks_when_several_lie_under_the_threshold() -> None:
    """A photo with fewer than FAINT_FEW_SURE sure marks, FAINT_FEW_UNDER of them under
    their ink threshold: its share counts (so few marks show, and those barely). From
    FAINT_FEW_SURE to FAINT_MIN_SURE it does not."""
    from scanner.marks import Mark, Reading
    from scanner.marks.legible import FAINT_FEW_UNDER, FAINT_TAIL, _faint_tail

    def reading(levels: list[float]) -> Reading:
        marks = {f"promotion.{i + 1}": Mark(CHECKED, 0.6, CHECKED, "", {"level": lv,
                                                                      "t_ink": 0.2})
                 for i, lv in enumerate(levels)}
        return Reading(marks, Calibration(0.0, 0.02, 0.2, 0.1), {}, {})

    assert FAINT_FEW_UNDER == 2
    assert _faint_tail(reading([0.17, 0.18, 0.19, 0.26])) == 0.75 > FAINT_TAIL
    assert _faint_tail(reading([0.19, 0.3, 0.3, 0.3])) == 0.0  # one alone: a mark, not a tail
    assert _faint_tail(reading([0.25, 0.3, 0.3])) == 0.0
    assert _faint_tail(reading([0.17, 0.18, 0.19, 0.26, 0.3])) == 0.0  # FAINT_FEW_SURE marks


def test_a_photo_showing_a_few_marks_all_barely_is_refused_as_too_faint() -> None:
    """2089 phone 37 on A4: grey pencil at 0.6x width on a defocused photo at 90-127
    px/inch. Of its 18 marks it read 4 for sure, 3 of them under their ink threshold, and
    two little inks the learned second look settled empty (0.9994-0.9995) were marks: read
    silently wrong until session 65. Now refused as too faint, with the fix; read anyway,
    it warns so."""
    case = make_case(case_seed(2089, "phone", 37), "phone", paper="a4")
    res = read(case)
    assert res.error is not None, res.warnings
    assert "lighter than the ink threshold" in res.error.one_line(), res.error
    anyway = read(case, anyway=True)
    assert anyway.error is None and any(w.startswith("read anyway") for w in anyway.warnings)


def test_photo_with_a_sixth_of_its_boxes_unclear_is_refused() -> None:
    """A photo tilted 31 degrees, its far side ~91 px/inch, out of focus (bench case phone 95,
    seed 61): the outlines' haze fills its small boxes and 54 of 309 are unclear. A
    marked sheet with over a tenth of its boxes unclear is refused, with a fix. (The
    case this test read until session 21, seed 22's phone 0, had 83 boxes unclear and
    nine read wrong silently before session 12; with its inked boxes found by their
    outlines since session 21, 20 are unclear and it is read.)"""
    case = make_case(case_seed(61, "phone", 95), "phone")
    res = read(case)
    assert res.error is not None, "read, not refused"
    assert "too many boxes are unclear" in res.error.one_line(), res.error.one_line()
    assert "sharper photo" in res.error.fix


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (7, "scan-300", 10, "mission.system_defense.1"),  # a little off its band, short
    (7, "scan-600", 9, "mission.patrol.1"),
    (0, "scan-150", 3, "mission.system_defense.2"),  # a marker's, over the printed "+1"
])
def test_slash_on_a_scan_that_the_model_confirms_is_a_slash(seed: int, profile: str,
                                                            index: int, rid: str) -> None:
    """Slashes on scans whose shape a tick could have too (a little ink off the band, or a
    fat stroke): "one stroke or two?" before session 13. On a sheet as quiet as a scan, a
    stroke the rules read as one that the model calls a slash (P(tick) < 0.01) and that does
    not widen at a vertex is a slash."""
    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == SLASHED
    assert m.state == SLASHED, m


def test_pencil_correction_on_a_scan_is_cancelled() -> None:
    """A pencil correction on a scan (bench case scan-300 2, seed 0): the box filled and
    scribbled over, its rim inked 45 % on three of four sides. It went to review before
    session 13; on a scan a box coloured in leaves its rim clean but for a side or two."""
    case = make_case(case_seed(0, "scan-300", 2), "scan-300")
    m = read(case).marks["discipline.6"]
    assert case.truth["discipline.6"] == CANCELLED
    assert m.state == CANCELLED, m


def test_tick_the_rules_cannot_split_is_read_by_the_model_on_a_scan() -> None:
    """A short-armed tick on a scan (bench case short-ticks-scan 26, seed 0) whose short arm
    put 11 % of its ink on a second band: neither one stroke nor clearly two ("one stroke or
    two?" before session 13). On a quiet sheet the model's tick at 0.99 or more reads it."""
    case = make_case(case_seed(0, "short-ticks-scan", 26), "short-ticks-scan")
    m = read(case).marks["mission.training.3"]
    assert case.truth["mission.training.3"] == CHECKED
    assert m.state == CHECKED, m


@pytest.mark.parametrize(("seed", "profile", "index", "rid", "want"), [
    (7, "clean", 3, "mission.patrol.1", SLASHED),  # pencil across the printed "+1"
    (7, "scan-150", 6, "promotion.40", CHECKED),  # a pencil cross over the printed 40
])
def test_light_pencil_over_print_on_a_scan_is_read(seed: int, profile: str, index: int,
                                                    rid: str, want: str) -> None:
    """Light pencil over printed text on sheets as quiet as a scan, their other marks not
    light: "a little ink" before session 13. Such a sheet's unclear boxes are read again at
    thresholds just over its own noise, as a light sheet's are."""
    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == want
    assert m.state == want, m


def test_a_light_slash_through_the_printed_plus_is_no_tick_on_a_second_look() -> None:
    """A pencil slash across "+1" on a scan (bench case scan-300 13, seed 113), too light
    to read at the usual thresholds: read again at the sheet's own noise, where it crosses
    the "+" it widened and sprouted a stub (one band, 0.93 of its ink), and it was read as
    a tick, silently, until session 26. The model calls it a tick at 0.48 only: a review."""
    case = make_case(case_seed(113, "scan-300", 13), "scan-300")
    m = read(case).marks["mission.patrol.2"]
    assert case.truth["mission.patrol.2"] == SLASHED
    assert doubted(m, "mission.patrol.2", SLASHED), m


@pytest.mark.parametrize(("seed", "profile", "index", "rid", "want"), [
    (21, "scan-600", 7, "mission.escort.4", CHECKED),
    (7, "scan-150", 6, "mission.system_defense.3", SLASHED),
])
def test_a_thin_pencil_stroke_across_the_printed_plus_is_read_by_its_shape(
        seed: int, profile: str, index: int, rid: str, want: str) -> None:
    """A thin pencil tick or slash across "+1" on a scan inks only 3-5 % of its box even at
    the sheet's own noise (the print hides the rest): "a little ink", likely empty, until
    session 26. Over THIN_STROKE there, it is read by its strokes' shape."""
    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == want
    assert m.state == want, m


def test_a_correction_nearly_filled_and_struck_through_on_a_noisy_photo_is_no_fill() -> None:
    """A pencil correction on a noisy photo (held-out seed 139, phone 13): the box filled
    short of one side and struck through past its outline all round. It read as coloured
    in (checked) until session 26; it is a review whose likely value is cancelled."""
    case = make_case(case_seed(139, "phone", 13), "phone")
    m = read(case).marks["mission.science.3"]
    assert case.truth["mission.science.3"] == CANCELLED
    assert m.state == REVIEW and m.likely == CANCELLED, m


def test_a_light_correction_whose_rim_is_inked_all_round_on_a_photo_is_no_fill() -> None:
    """A light pencil correction on a photo (held-out seed 157, phone 34): filled short of
    a side, its loop inking half its rim on all four sides in one stroke. It read as
    coloured in until session 26; a rim inked as a correction's is makes it a review (since
    session 37, with 512 readings of a page tried, the rest of the page settles it)."""
    case = make_case(case_seed(157, "phone", 34), "phone")
    res = read(case)
    m = res.marks["mission.escort.1"]
    assert case.truth["mission.escort.1"] == CANCELLED
    assert doubted(m, "mission.escort.1", CANCELLED) and m.likely == CANCELLED, m
    # its neighbour's correction, filled to 81 % only (short of F_FILLED) and struck
    # through all round: its rim is measured from 75 % (HALO_FILL), a review too
    m = res.marks["skill.gunnery.1"]
    assert case.truth["skill.gunnery.1"] == CANCELLED
    assert doubted(m, "skill.gunnery.1", CANCELLED) and m.likely == CANCELLED, m


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (163, "scan-150", 10, "mission.fighter_pilot.2"),
    (127, "short-ticks-scan", 7, "mission.contact_civilization.3"),
])
def test_a_marker_slash_the_thin_pen_model_calls_a_tick_is_no_sure_tick(
        seed: int, profile: str, index: int, rid: str) -> None:
    """Marker slashes on scans whose blunt end the thin-pen model took for a tick's vertex
    (0.995 and 0.996), read silently as ticks until session 26. The marker model doubts it
    (0.48 and 0.84): the rules' slash is not overturned, a review."""
    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == SLASHED
    assert doubted(m, rid, SLASHED), m


def test_noise_on_a_dim_photo_of_a_blank_sheet_is_no_mark() -> None:
    """A blank sheet in a dim, noisy, shadowed photo (held-out seed 139, phone 75): two
    blotches of noise read as faint marks until session 26. With no clear mark on the sheet
    to measure them against they are reviews, likely empty; nothing reads as marked."""
    case = make_case(case_seed(139, "phone", 75), "phone")
    res = read(case)
    assert all(v in ("empty", None) for v in case.truth.values())
    assert not [rid for rid in BOXES if res.marks[rid].state in (CHECKED, SLASHED)]
    assert res.marks["tour.13.mission.3"].state == REVIEW
    assert res.marks["tour.13.mission.3"].likely == EMPTY


@pytest.mark.parametrize(("seed", "profile", "index", "rids"), [
    (31, "clean", 3, ("promotion.22",)),
    (21, "scan-600", 7, ("promotion.20", "promotion.32", "promotion.37", "promotion.54")),
])
def test_the_palest_pencil_over_a_number_before_a_sure_mark_is_a_mark(
        seed: int, profile: str, index: int, rids: tuple[str, ...]) -> None:
    """Pencil ticks over printed promotion numbers so pale that their ink leans empty even
    at the sheet's own noise: reviews before session 18. A box there left empty would be a
    gap in the track, so a sure mark further along settles them (scanner.order). Since
    session 33 a tick whose straight band stands out from the sheet's empty boxes is read
    before the order is asked (marks.sheet._light_bands); the others are still settled so,
    or (since session 61, on a scan) by the learned second look at SETTLE_QUIET_MARK."""
    case = make_case(case_seed(seed, profile, index), profile)
    res = read(case)
    for rid in rids:
        assert case.truth[rid] == CHECKED
        assert res.marks[rid].state == CHECKED, (rid, res.marks[rid])
        assert ("settled by the track's order" in res.marks[rid].why
                or res.marks[rid].why == LIGHT_BAND_WHY
                or res.marks[rid].why.startswith(f"{SETTLE_WHY}: {CHECKED}")), res.marks[rid]
    if any("settled by the track's order" in res.marks[rid].why for rid in rids):
        assert any("settled by the order" in w for w in res.warnings)


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (197, "scan-300", 0, "skill.leadership.4"), (251, "clean", 7, "promotion.18"),
    (241, "scan-300", 4, "tour.11"),
])
def test_a_pale_tick_in_a_printed_checkbox_whose_band_stands_out_is_a_mark(
        seed: int, profile: str, index: int, rid: str) -> None:
    """A pencil tick across a box's printed number, so pale that what the print leaves of
    it stays "a little ink" even at the sheet's own noise, and at the end of its track (no
    order to settle it): a review before session 33. Its straight band stands out from the
    sheet's empty printed boxes: a mark, its doubt SETTLED."""
    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == CHECKED
    assert (m.state, m.why, m.doubt) == (CHECKED, LIGHT_BAND_WHY, SETTLED), m
    assert m.features["band_score"] >= 2.5


def test_a_cross_over_a_shadow_is_not_read_as_a_correction() -> None:
    """A pen cross in a promotion box lying in a deep shadow (167 phone 29): every pixel
    of the box and of its rim clears the ink threshold, so it read as filled and scribbled
    over (cancelled), silently. Most of the box is far lighter than its strokes, as no fill
    is (SOLID_MEDIAN): a review, likely checked."""
    from scanner.marks.classifier import DARK_GROUND_WHY
    case = make_case(case_seed(167, "phone", 29), "phone")
    m = read(case).marks["promotion.45"]
    assert case.truth["promotion.45"] == CHECKED
    assert m.likely == CHECKED and doubted(m, "promotion.45", CHECKED, DARK_GROUND_WHY), m
    assert m.features["median"] < 0.7 * m.features["level"]


def test_a_marker_tick_hiding_a_printed_number_is_not_read_empty() -> None:
    """A marker's tick over promotion box 60 on a blurred harsh photo (283 phone 62): the
    print model took its ink for the print, and it read empty, silently. Most of the box
    is far darker than any blurred print leaves an empty box (DARK_EMPTY): a review."""
    from scanner.marks.classifier import DARK_EMPTY_WHY
    case = make_case(case_seed(283, "phone", 62), "phone")
    m = read(case).marks["promotion.60"]
    assert case.truth["promotion.60"] == CHECKED
    assert (m.state, m.likely, m.why) == (REVIEW, CHECKED, DARK_EMPTY_WHY), m


def test_print_residue_in_an_empty_printed_checkbox_is_not_a_band() -> None:
    """The residue of a printed "-3" and a speck beside it, in an empty box of a pale
    pencil scan: no straight band stands out, so it stays what it was (a review)."""
    case = make_case(case_seed(101, "scan-300", 8), "scan-300")
    m = read(case).marks["skill.clone.2"]
    assert case.truth.get("skill.clone.2", EMPTY) == EMPTY
    assert m.state in (REVIEW, EMPTY) and m.why != LIGHT_BAND_WHY, m


@pytest.mark.parametrize(("seed", "index", "rid"), [
    (11, 7, "mission.science.3"), (22, 15, "mission.strike.2"), (7, 3, "mission.fighter_pilot.3"),
])
def test_a_light_slash_too_thin_for_a_mark_on_a_clean_render_is_a_slash(seed: int, index: int,
                                                                      rid: str) -> None:
    """A thin, light pencil slash across an Executed box on a clean render inks under F_MARK
    of its box even read at the sheet's own noise: "a little ink" before session 15. It is
    one straight stroke across most of the box that the model calls a slash: a slash."""
    case = make_case(case_seed(seed, "clean", index), "clean")
    m = read(case).marks[rid]
    assert case.truth[rid] == SLASHED
    assert m.state == SLASHED, m


def test_what_a_light_straight_stroke_needs_to_be_a_slash() -> None:
    """_faint_slash: the rule's signs, one by one (features as measured on 11_clean_0007's
    slash, and on two ticks' long arms whose short arm did not show)."""
    from scanner.marks.shape import _faint_slash

    slash = {"faint": 0.047, "centre": 0.162, "far": 0.0, "span": 0.854, "tick_p": 0.001}
    assert _faint_slash(slash, (1.0, 0.0))
    assert not _faint_slash({**slash, "span": 0.546}, (1.0, 0.0))  # a tick's long arm
    assert not _faint_slash({**slash, "tick_p": 0.5}, (1.0, 0.0))  # the model sees a tick
    assert not _faint_slash(slash, (0.95, 0.05))  # ink on a second band
    assert not _faint_slash({**slash, "far": 0.1}, (1.0, 0.0))  # ink off its band
    assert not _faint_slash({**slash, "faint": 0.02}, (1.0, 0.0))  # too little to tell
    assert not _faint_slash({**slash, "centre": 0.01}, (1.0, 0.0))  # along the box's edge
    assert not _faint_slash(slash, None)


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (21, "phone", 56, "mission.exploration.2"),  # a slash with a blot: 2.2x wider there
    (21, "phone-easy", 18, "mission.system_defense.4"),  # a faint one, 3x
])
def test_a_slash_that_widens_at_one_point_is_no_sure_tick_on_a_photo(seed: int, profile: str,
                                                                     index: int, rid: str) -> None:
    """A slash that widens at one point (a blot, a hook) reads as a tick by the widening
    alone; the model calls it a slash (P(tick) under 0.01), so on a photo it goes to review
    instead of being read, silently, as a success. Since session 31 the success model,
    all but sure of a slash, settles it (SETTLED)."""

    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == SLASHED
    assert m.state == REVIEW or (m.state, m.doubt) == (SLASHED, SETTLED), m


def test_the_models_slash_vetoes_a_tick_read_by_its_widening_alone() -> None:
    """classify: the features of 21_phone_0056's slash (one band holding 97 % of its ink,
    3 % off it, widening 2.2x) read as a tick by the widening; the model's 0.006 sends it
    to review on a photo, and since session 18 on a sheet as quiet as a scan too. With the
    model unsure (0.3) the widening still reads a tick."""
    from scanner.marks.classifier import classify

    f = {"n": 520.0, "ink": 0.115, "faint": 0.194, "centre": 0.42, "level": 0.254,
         "fill": 0.167, "t_ink": 0.205, "t_faint": 0.133, "far": 0.03, "span": 0.908,
         "end_gap": 0.048, "bulge": 2.16, "tick_p": 0.006}
    photo = Calibration(0.03, 0.031, 0.205, 0.133, 0.25, gain=1.0)
    scan = Calibration(0.03, 0.004, 0.205, 0.133, 0.25, gain=1.0)
    assert classify(f, True, (0.97, 0.03), photo).state == REVIEW
    assert classify({**f, "tick_p": 0.3}, True, (0.97, 0.03), photo).state == CHECKED
    assert classify(f, True, (0.97, 0.03), scan).state == REVIEW
    assert classify({**f, "tick_p": 0.3}, True, (0.97, 0.03), scan).state == CHECKED


def test_the_success_models_lean_to_a_slash_vetoes_a_tick_read_by_its_widening() -> None:
    """classify: the features of 349 phone 39's faint pencil slash across "+1" (97 % of
    its ink on one band, a little off it where it crosses the print, widening 2.8x there)
    read as a tick by the widening alone; the success model's 0.33 (a lean to a slash)
    sends it to review. At 0.72 (the lowest of 3,234 ticks read so) it is still a tick."""
    from scanner.marks.classifier import classify

    f = {"n": 494.0, "ink": 0.0405, "faint": 0.1174, "centre": 0.18, "level": 0.1635,
         "fill": 0.1142, "t_ink": 0.1528, "t_faint": 0.0928, "far": 0.034, "span": 0.958,
         "end_gap": 0.042, "bulge": 2.848, "extent": 0.615, "tick_p": 0.108,
         "success_p": 0.328}
    quiet = Calibration(0.03, 0.01, 0.1528, 0.0928, 0.3, gain=1.0)
    assert classify(f, True, (0.966, 0.034), quiet).state == REVIEW
    assert classify({**f, "success_p": 0.72}, True, (0.966, 0.034), quiet).state == CHECKED


def test_on_a_scan_a_light_tick_by_ink_off_its_band_that_the_success_model_doubts_is_a_review(
        ) -> None:
    """classify: the features of 349 scan-600 7's faint pencil slash across "+1" (6 % of
    its ink on a second band and as much off its first where it crosses the print) read
    as a tick, with nothing else on the sheet to review; the success model's 0.094 sends
    it to review on a scan. At 0.72 (the lowest of the light ticks read so on the fifty
    seeds' scans, clean renders and short-ticks scans) it is a tick; on a photo the model
    alone vetoes it only under 0.04, as before."""
    from scanner.marks.classifier import classify

    f = {"n": 513.0, "ink": 0.0273, "faint": 0.0624, "centre": 0.1622, "level": 0.1802,
         "fill": 0.0588, "t_ink": 0.1523, "t_faint": 0.0923, "far": 0.062, "span": 0.825,
         "end_gap": 0.152, "bulge": 2.962, "extent": 0.789, "success_p": 0.0941}
    scan = Calibration(0.02, 0.004, 0.1523, 0.0923, 0.3, gain=1.0)
    photo = Calibration(0.02, 0.008, 0.1523, 0.0923, 0.3, gain=1.0)
    assert classify(f, True, (0.938, 0.062), scan).state == REVIEW
    assert classify({**f, "success_p": 0.72}, True, (0.938, 0.062), scan).state == CHECKED
    assert classify(f, True, (0.938, 0.062), photo).state == CHECKED


def test_a_faint_slash_widened_by_the_print_on_a_harsh_photo_is_no_silent_tick() -> None:
    """349 phone 39 (a seed no rule was tuned on): a faint pencil slash across "+1" read
    silently as a success before session 41; now a review, never a tick."""
    case = make_case(case_seed(349, "phone", 39), "phone")
    rid = "mission.system_defense.2"
    assert case.truth[rid] == SLASHED
    m = read(case).marks[rid]
    assert m.state in (REVIEW, SLASHED), m


def test_a_marker_slash_widening_at_one_point_on_a_scan_is_no_sure_tick() -> None:
    """A corner-to-corner marker slash on a 300 dpi scan (seed 41, held out in session 18,
    scan-300 3) whose ink widens to 1.43x at one point: read silently as a tick by the
    widening, though the model calls it a slash (P(tick) 0.000). A review from session 18,
    a slash since session 24 (_dark_slash: dark, on its band, widening under 1.6)."""
    case = make_case(case_seed(41, "scan-300", 3), "scan-300")
    m = read(case).marks["mission.system_defense.4"]
    assert case.truth["mission.system_defense.4"] == SLASHED
    assert m.state == SLASHED, m


def test_toner_specks_in_a_box_on_a_photocopy_are_no_mark() -> None:
    """Two toner specks in an empty box of a photocopied 600 dpi scan (bench case scan-600 8,
    seed 21): read again at a scan's low thresholds they looked like a mark; specks in a
    plain box are left alone there, as everywhere else."""
    case = make_case(case_seed(21, "scan-600", 8), "scan-600")
    m = read(case).marks["tour.2.mission.2"]
    assert case.truth["tour.2.mission.2"] == "empty"
    assert m.state in ("empty", REVIEW), m


def test_a_score_line_is_read_whole_when_a_cell_is_unsure() -> None:
    """A scan whose '20' Tesseract gives cell by cell only with its 0 in doubt: read as
    one line, the line's '0' is the vote that confirms the classifier's (it went to
    review before)."""
    case = make_case(case_seed(0, "scan-300", 14), "scan-300", "later", "letter")
    gray = cv2.imdecode(np.frombuffer(case.encoded, np.uint8), cv2.IMREAD_GRAYSCALE)
    res = scan_page(PageImage("scan-300-14", gray), ocr=True)
    if "skipped" in res.ocr:
        pytest.skip("Tesseract not installed")
    assert case.state.written and case.state.written["rank_bonus"] == 20
    assert (res.state.written or {}).get("rank_bonus") == 20
    for line, value in (res.state.written or {}).items():
        assert value == case.state.written[line]


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (7, "scan-300", 5, "mission.system_defense.3"), (31, "scan-150", 1, "mission.system_defense.3"),
    (31, "scan-600", 3, "mission.system_defense.2"), (11, "scan-300", 0, "mission.system_defense.1"),
])
def test_a_thick_slash_whose_edges_look_like_a_second_stroke_is_a_slash_on_a_scan(
        seed: int, profile: str, index: int, rid: str) -> None:
    """A thick slash on a scan whose ragged edges put 6-10 % of its ink on a second band:
    neither one stroke nor clearly two ("one stroke or two?" before session 16). Nothing of
    it lies far off its band, it keeps its width and the model calls it a slash: a slash."""
    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == SLASHED
    assert m.state == SLASHED, m


def test_what_ink_neither_one_stroke_nor_two_needs_to_be_a_slash() -> None:
    """_quiet_one_stroke, through classify: the features of 7_scan-300_0005's slash, and each
    sign that keeps such ink a review."""
    from scanner.marks.classifier import classify

    f = {"n": 494.0, "ink": 0.34, "faint": 0.358, "centre": 0.486, "level": 0.651,
         "fill": 0.406, "t_ink": 0.15, "t_faint": 0.09, "far": 0.0, "span": 1.0,
         "end_gap": 0.0, "bulge": 1.229, "tick_p": 0.0}
    line = (0.899, 0.065)
    scan = _quiet_cal(0.004, 0.65)
    photo = _quiet_cal(0.009, 0.65)
    assert classify(f, True, line, scan).state == SLASHED
    # not as quiet as a scan: a pencil's stays a review, a pen's is a dark slash (under
    # QUIET_NOISE), and on a noisier photo a review too
    assert classify({**f, "level": 0.35}, True, line, photo).state == REVIEW
    assert classify(f, True, line, photo).state == SLASHED
    assert classify(f, True, line, _quiet_cal(0.015, 0.65)).state == REVIEW
    assert classify({**f, "tick_p": 0.3}, True, line, scan).state == REVIEW  # the model unsure
    wide = {**f, "bulge": 1.5}  # a vertex: a tick, unless the model calls it a slash
    assert classify({**wide, "tick_p": 0.3}, True, line, scan).state == CHECKED
    assert classify({**f, "far": 0.026}, True, line, scan).state == REVIEW  # ink off its band
    # a pen's dark stroke so widened or split is a slash all the same (_dark_slash); a
    # pencil's (its darkness under DARK_LEVEL) stays a review
    pencil = {**f, "level": 0.35}
    assert classify(wide, True, line, scan).state == SLASHED
    assert classify({**wide, "level": 0.35}, True, line, scan).state == REVIEW  # (session 18)
    assert classify({**f, "split": 0.05}, True, (0.9, 0.115), scan).state == SLASHED
    assert classify({**pencil, "split": 0.05}, True, (0.9, 0.115), scan).state == REVIEW


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (0, "scan-300", 2, "mission.training.6"), (22, "scan-300", 9, "mission.fighter_pilot.4"),
    (21, "scan-300", 14, "mission.fighter_pilot.1"),
])
def test_a_faint_pencil_slash_of_uneven_width_is_a_slash_on_a_scan(seed: int, profile: str,
                                                                   index: int, rid: str) -> None:
    """A faint pencil slash on a scan, one straight band crossing 0.79-0.85 of its box, whose
    width the pencil's grain makes uneven (widening 1.5-1.6x, as a tick's vertex would):
    "faint mark: tick, cross or slash?" before session 16. The model calls it a slash
    (P(tick) under 0.01), so it is one, as a light slash read at the sheet's noise is."""
    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == SLASHED
    assert m.state == SLASHED, m


def test_a_fill_spilling_a_little_all_round_is_no_sure_correction() -> None:
    """A marker fill on a phone photo (bench case phone 94, seed 22) that seemed to spill
    past its box on all four sides, crossing the rim in three strokes but inking only 29 %
    of it: read silently as a correction before session 16, then sent to review (a
    correction's loop inks its rim at least 30 %). The spill was the box read 3-4 px off
    its place, in a block of inked boxes that gave the fine field no point; found by its
    outline since session 21, its rim is clean: coloured in, checked."""
    case = make_case(case_seed(22, "phone", 94), "phone")
    m = read(case).marks["tour.3.mission.3"]
    assert case.truth["tour.3.mission.3"] == CHECKED
    assert m.state == CHECKED and m.features["halo"] < 0.1, m


def test_a_light_tick_the_model_alone_calls_a_slash_is_no_sure_slash() -> None:
    """A pale pencil tick on a quiet phone photo (seed 41, not a bench seed: held out in
    session 18, phone-easy 28) left to review for a little ink, then read again at the
    sheet's own noise: its strokes' shape could not say one stroke or two, and the model,
    at P(tick) 0 on ink that light breaks into pieces, read it silently as a slash. Read
    again, a slash needs the shape's word (or _faint_slash's straight stroke)."""
    case = make_case(case_seed(41, "phone-easy", 28), "phone-easy")
    m = read(case).marks["mission.fighter_pilot.2"]
    assert case.truth["mission.fighter_pilot.2"] == CHECKED
    assert doubted(m, "mission.fighter_pilot.2", CHECKED), m


def test_a_pencil_fill_with_a_light_loop_on_a_scan_is_no_sure_coloured_in_box() -> None:
    """A pencil correction on a scan (bench case scan-150 8, seed 21): the fill, and a loop
    close round the box that inks only 29 % of its rim, but on three sides. Read silently
    as coloured in before session 17; on a scan a box coloured in never inks three sides of
    its rim, and a marker fill spilling all round inks its rim as little: review. Since
    session 42 the rim of a sheet not blurred is measured with less margin over the print
    (features.SHARP_RIM): the loop inks 33 % of it on three sides, a correction."""
    case = make_case(case_seed(21, "scan-150", 8), "scan-150")
    m = read(case).marks["mission.battle.1"]
    assert case.truth["mission.battle.1"] == CANCELLED
    assert m.state == CANCELLED or (m.likely == CANCELLED
                                    and doubted(m, "mission.battle.1", CANCELLED)), m


def test_what_a_light_loop_round_a_filled_box_needs_to_be_no_sure_fill() -> None:
    """The light-loop review through classify: the features of 21_scan-150_0008's box, and
    each sign that reads it otherwise."""
    from scanner.marks.classifier import classify

    f = {"n": 540.0, "ink": 0.796, "faint": 0.931, "centre": 1.0, "level": 0.26, "fill": 1.0,
         "t_ink": 0.15, "t_faint": 0.09, "sides": 1.0, "halo": 0.287, "halo_strokes": 1,
         "halo_sides": 3, "halo_seen": 4}
    scan = _quiet_cal(0.004, 0.26)
    photo = replace(_quiet_cal(0.02, 0.26), blur=BLURRED_PX)
    assert classify(f, True, None, scan).state == REVIEW
    assert classify(f, True, None, photo).state == CHECKED  # a blurred fill inks its rim
    # since session 32 so on a noisy photo not blurred too (a pencil correction's loop on
    # two sides, 0.18-0.23, read as coloured in on a fresh seed's photo)
    assert classify(f, True, None, replace(photo, blur=1.2)).state == REVIEW
    assert classify({**f, "halo_sides": 1}, True, None, scan).state == CHECKED  # a neighbour
    assert classify({**f, "halo": 0.31}, True, None, scan).state == CANCELLED  # a clear loop
    # since session 20 a light (pencil) fill with a light loop on two sides is a review on
    # any quiet sheet; a dark fill so is a box coloured in (a neighbour's stroke beside it)
    assert classify({**f, "halo_sides": 2}, True, None, scan).state == REVIEW
    assert classify(f, True, None, _quiet_cal(0.009, 0.26)).state == REVIEW
    assert classify({**f, "halo_sides": 2, "level": 0.8}, True, None, scan).state == CHECKED


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (0, "scan-300", 2, "mission.exploration.3"), (7, "scan-300", 5, "mission.fighter_pilot.2"),
])
def test_a_slash_the_retrained_model_calls_a_slash_is_one_on_a_scan(seed: int, profile: str,
                                                                    index: int, rid: str) -> None:
    """Slashes a shape test doubts, that the tick-or-slash model retrained in session 17 calls
    slashes at P(tick) 0.018 and 0.036: over 0.01, the old model's bound, under 0.05, the
    new one's (QUIET_SLASH_P). Reviews with the retrained model at 0.01."""
    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == SLASHED
    assert m.state == SLASHED, m


# one stroke across an Executed box, not quite straight, crossing 0.85 of it: a shape
# test's doubt (_tick_like), left to the model; its state on a sheet of the given noise
DOUBTED = {"n": 520.0, "ink": 0.3, "faint": 0.32, "centre": 0.5, "level": 0.7, "fill": 0.3,
           "t_ink": 0.15, "t_faint": 0.09, "far": 0.0, "span": 0.85, "end_gap": 0.02,
           "bulge": 1.12}


def doubted_stroke(noise: float, **features: float) -> str:
    from scanner.marks.classifier import classify

    cal = _quiet_cal(noise, 0.7)
    return classify({**DOUBTED, **features}, True, (0.985, 0.02), cal).state


def test_what_the_models_slash_needs_to_be_on_a_scan() -> None:
    """_quiet_slash through classify: a slash the shape tests doubt that the model calls a
    slash at 0.036, as it does 7_scan-300_0005's; and the model's bound, the sheet's quiet
    and a widening (a tick's vertex?), each of which keeps a pencil's stroke a review. A
    pen's, darker than DARK_LEVEL, needs less of the model and may widen more
    (_dark_slash), or widen more when the model is sure of it."""
    pencil = 0.35
    assert doubted_stroke(0.004, tick_p=0.036, level=pencil) == SLASHED
    assert doubted_stroke(0.004, tick_p=0.06, level=pencil) == REVIEW
    assert doubted_stroke(0.009, tick_p=0.036, level=pencil) == REVIEW  # a photo
    assert doubted_stroke(0.004, tick_p=0.036, bulge=1.45, level=pencil) == REVIEW  # a vertex?
    assert doubted_stroke(0.004, tick_p=0.06) == SLASHED
    assert doubted_stroke(0.004, tick_p=0.036, bulge=1.45) == REVIEW
    assert doubted_stroke(0.004, tick_p=0.005, bulge=1.45) == SLASHED
    assert doubted_stroke(0.004, tick_p=0.25) == REVIEW
    assert doubted_stroke(0.009, tick_p=0.036) == SLASHED  # a quiet photo (QUIET_NOISE)
    assert doubted_stroke(0.015, tick_p=0.036) == REVIEW  # a noisier one


@pytest.mark.parametrize(("index", "rid"), [(33, "mission.science.1"), (4, "mission.trade.1")])
def test_a_short_armed_tick_the_model_is_sure_of_is_a_tick_on_a_scan(index: int,
                                                                     rid: str) -> None:
    """Ticks whose short arm is too short for the band measures (bench set short-ticks-scan,
    seed 0), read as one stroke with a shape test's doubt: "one stroke or two?" until session
    17, when the retrained model calls them ticks at 0.999 or more (_sure_model_tick)."""
    case = make_case(case_seed(0, "short-ticks-scan", index), "short-ticks-scan")
    m = read(case).marks[rid]
    assert case.truth[rid] == CHECKED
    assert m.state == CHECKED, m


def test_what_the_models_tick_needs_to_be_on_a_quiet_sheet() -> None:
    """_sure_model_tick through classify: a stroke read as one that a shape test doubts, the
    model at 0.9995; at 0.99, or on a noisy photo, it stays a review."""
    assert doubted_stroke(0.004, tick_p=0.9995) == CHECKED
    assert doubted_stroke(0.009, tick_p=0.9995) == CHECKED  # a quiet photo
    assert doubted_stroke(0.004, tick_p=0.99) == REVIEW
    assert doubted_stroke(0.02, tick_p=0.9995) == REVIEW  # a noisy one


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (21, "scan-600", 8, "tour.2.mission.2"), (31, "scan-300", 1, "discipline.1"),
])
def test_toner_specks_in_a_plain_box_on_a_light_scan_are_no_mark(seed: int, profile: str,
                                                                 index: int, rid: str) -> None:
    """Empty plain boxes on scans whose only ink is toner specks, looked at again at the
    sheet's own noise (a light sheet, or "a little ink"): reviews until session 17, empty
    now. At that noise a light stroke shows whole; specks stay specks."""
    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == "empty"
    assert m.state == "empty", m


def test_a_marker_slash_corner_to_corner_on_a_clean_render_is_a_slash() -> None:
    """A marker's slash on a clean render (bench case clean 19, seed 21), wider than any pen
    the tick-or-slash model learned: it runs corner to corner and keeps its width, and the
    model leans to a slash (0.075) without being sure. Review before session 19."""
    case = make_case(case_seed(21, "clean", 19), "clean")
    m = read(case).marks["mission.system_defense.2"]
    assert case.truth["mission.system_defense.2"] == SLASHED
    assert m.state == SLASHED, m


def test_what_a_dark_stroke_needs_to_be_a_slash() -> None:
    """_dark_slash, through classify: the features of 21_clean_0019's marker slash, and each
    sign that keeps such a stroke a review (a photo noisier than QUIET_NOISE among them)."""
    from scanner.marks.classifier import classify

    f = {"n": 494.0, "ink": 0.522, "faint": 0.551, "centre": 0.84, "level": 0.854,
         "fill": 0.534, "t_ink": 0.15, "t_faint": 0.09, "far": 0.0, "span": 0.98,
         "end_gap": 0.02, "bulge": 1.027, "split": 0.215, "tick_p": 0.075}
    line = (0.961, 0.039)
    scan = _quiet_cal(0.004, 0.85)
    photo = _quiet_cal(0.015, 0.85)
    assert classify(f, True, line, scan).state == SLASHED
    assert classify(f, True, line, _quiet_cal(0.009, 0.85)).state == SLASHED  # a quiet photo
    assert classify({**f, "span": 0.85, "bulge": 1.2}, True, line, scan).state == SLASHED
    # widening more than that: only with the model sure of a slash, and short of a vertex's
    assert classify({**f, "bulge": 1.5}, True, line, scan).state == REVIEW
    assert classify({**f, "bulge": 1.5, "tick_p": 0.005}, True, line, scan).state == SLASHED
    assert classify(f, True, line, photo).state == REVIEW  # a noisy photo
    assert classify({**f, "tick_p": 0.2}, True, line, scan).state == REVIEW  # the model unsure
    # either model may call it a slash: the fat marks' too, for a thin marker's stroke
    assert classify({**f, "tick_p": 0.75, "thick_p": 0.08}, True, line, scan).state == SLASHED
    assert classify({**f, "tick_p": 0.75, "thick_p": 0.3}, True, line, scan).state == REVIEW
    assert classify({**f, "span": 0.75}, True, line, scan).state == REVIEW  # stops short
    assert classify({**f, "bulge": 1.6, "tick_p": 0.005}, True, line, scan).state == REVIEW
    assert classify({**f, "far": 0.03}, True, line, scan).state == REVIEW  # ink off its band


def test_a_pale_tick_the_model_calls_a_tick_at_0_91_is_no_silent_slash() -> None:
    """A pale pencil tick whose short arm is cut short, on a scan (bench case short-ticks-scan
    32, seed 97): one straight stroke across the box to the rules, a tick at 0.91 to the
    model. Read silently as a slash (a success read as a failed mission) until session 24,
    when the model's veto came down from 0.95 to 0.9: a review."""
    case = make_case(case_seed(97, "short-ticks-scan", 32), "short-ticks-scan")
    m = read(case).marks["mission.contact_civilization.3"]
    assert case.truth["mission.contact_civilization.3"] == CHECKED
    assert m.state in (CHECKED, REVIEW), m


def test_a_short_armed_tick_over_print_on_a_quiet_photo_is_no_dark_slash() -> None:
    """A pen tick over "+2" whose short arm is cut short, on a phone photo as quiet as a scan
    (bench case short-ticks 17, seed 7): the pens' model leans to a slash (0.14), but the
    stroke widens 1.36x at its vertex. The dark-slash rule read it as a slash while it took
    any widening under 1.6x with the model under 0.2 (session 24, before it was held to
    1.25x there)."""
    case = make_case(case_seed(7, "short-ticks", 17), "short-ticks")
    m = read(case).marks["mission.fighter_pilot.2"]
    assert case.truth["mission.fighter_pilot.2"] == CHECKED
    assert m.state in (CHECKED, REVIEW), m


def test_a_thin_marker_slash_the_pens_model_calls_a_tick_is_a_slash_on_a_scan() -> None:
    """A marker's slash on a 300 dpi scan (bench case scan-300 3, seed 41) inking 37 % of
    its box, under the share at which the fat marks' model is asked first: the pens' model
    calls it a tick (0.71), the fat marks' a slash (0.05). Review until session 24."""
    case = make_case(case_seed(41, "scan-300", 3), "scan-300")
    m = read(case).marks["mission.system_defense.1"]
    assert case.truth["mission.system_defense.1"] == SLASHED
    assert m.state == SLASHED, m
    assert m.features["tick_p"] > 0.5 > m.features["thick_p"]


def test_a_dark_slash_whose_edges_the_bands_split_is_a_slash() -> None:
    """A marker's slash on a 300 dpi scan (bench case scan-300 7, seed 61): a second band
    holds 11.5 % of its ink (the stroke's edges) and the paper-split test is unsure, but
    nothing of it is off its band, it keeps its width and the model calls it a slash
    (review until session 24)."""
    case = make_case(case_seed(61, "scan-300", 7), "scan-300")
    m = read(case).marks["mission.patrol.2"]
    assert case.truth["mission.patrol.2"] == SLASHED
    assert m.state == SLASHED, m


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (31, "phone", 25, "mission.patrol.2"), (41, "phone-easy", 24, "mission.strike.2"),
])
def test_a_marker_slash_reaching_both_corners_is_never_a_sure_tick(seed: int, profile: str,
                                                                    index: int, rid: str) -> None:
    """A marker's slash on a phone photo whose blunt ends fill the box's corners: the
    paper-split test called it two strokes (a tick: a failed mission read as a success)
    until session 19, on its edge and on its core. It reaches both corners with nothing
    far off its band and keeps its width: a slash, or a review."""
    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == SLASHED
    assert m.state in (SLASHED, REVIEW), m


def test_what_a_thick_stroke_needs_to_reach_both_corners() -> None:
    """_corner_to_corner: 31_phone_0025's marker slash, and each sign of a tick."""
    from scanner.marks.strokes import _corner_to_corner

    shape = {"far": 0.0, "span": 0.957, "end_gap": 0.024, "bulge": 1.156}
    assert _corner_to_corner(shape, 0.506)
    assert not _corner_to_corner({**shape, "far": 0.03}, 0.506)  # ink off its band
    assert not _corner_to_corner({**shape, "span": 0.93}, 0.506)  # stops short
    assert not _corner_to_corner({**shape, "end_gap": 0.04}, 0.506)
    assert not _corner_to_corner({**shape, "bulge": 1.3}, 0.506)  # widens at a vertex
    assert not _corner_to_corner(shape, 0.75)  # nearly coloured in


def test_a_marker_slash_the_pen_model_calls_a_tick_is_read_by_the_thick_model() -> None:
    """A marker's slash on a clean render (bench case clean 0, seed 31) that the pens'
    tick-or-slash model calls a tick (0.983: it never saw a marker): a fat mark is asked
    of the model that learned marker widths too (session 19), which calls it a slash."""
    from scanner.tickslash import THICK_MODEL

    assert THICK_MODEL.exists()
    case = make_case(case_seed(31, "clean", 0), "clean")
    m = read(case).marks["mission.system_defense.2"]
    assert case.truth["mission.system_defense.2"] == SLASHED
    assert m.state == SLASHED, m
    assert m.features["tick_p"] < 0.05, m.features


@pytest.mark.parametrize("pen", [10, 12])
def test_a_grey_marker_slash_over_a_printed_number_is_a_slash(pen: int) -> None:
    """A grey marker's slash (1.25-1.5 mm) across a mission box's printed "+1": no ink shows
    over the black print, so its mask had holes the glyphs' shape and the stroke read as
    two, a tick (bench_ticks --pens 6,8,10,12: 54 of 864 slashes until session 19). The
    gaps the print cuts in a fat stroke are closed."""
    from scanner.marks import read_marks
    from scanner.template import blank
    from scanner.train_tickslash import draw_in_box

    m = sheets.layout("career", "later", "letter")
    tpl = blank(m, 200.0)
    img = tpl.gray.copy()
    rids = [r.id for r in m.regions if r.id.startswith("mission.") and r.printed][:6]
    for rid in rids:
        draw_in_box(img, m.region(rid).rect, m.page_size[1], 200.0,
                    [(0.15, 0.85), (0.5, 0.5), (0.85, 0.15)], 140, pen, 0.3 / 25.4 * 200)
    reading = read_marks(img, tpl)
    states = [reading.marks[rid].state for rid in rids]
    assert all(s in (SLASHED, REVIEW) for s in states), states
    assert states.count(SLASHED) >= 5, states


def test_a_pale_tick_whose_short_arm_hides_in_the_print_is_never_read_as_a_slash() -> None:
    """A pale pencil tick on a scan (bench case short-ticks-scan 5, seed 53) whose short arm
    lies on the printed "+1": one straight stroke shows, widening to 2.2 times its width at
    the vertex, and the model gives it 0.03. Read silently as a slash until session 20."""
    case = make_case(case_seed(53, "short-ticks-scan", 5), "short-ticks-scan")
    m = read(case).marks["mission.escort.4"]
    assert case.truth["mission.escort.4"] == CHECKED
    assert m.state in (CHECKED, REVIEW), m


def test_what_a_widening_stroke_needs_to_be_doubted() -> None:
    """_model_tick's third way (TICK_TRACE, BULGE_VERTEX): a stroke widening to twice its
    width is doubted at a little model doubt; at none (the slashes that widen that much
    score 0.0), or widening less, it is not."""
    from scanner.marks.shape import _model_tick

    assert _model_tick({"tick_p": 0.029, "bulge": 2.17})
    assert not _model_tick({"tick_p": 0.0, "bulge": 3.5})
    assert not _model_tick({"tick_p": 0.1, "bulge": 1.3})


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (73, "scan-300", 13, "medal.distinction.12"), (73, "short-ticks", 7, "mission.training.4"),
    (7, "phone", 80, "mission.survey.4"),
])
def test_a_light_pencil_correction_is_never_read_as_coloured_in(seed: int, profile: str,
                                                                index: int, rid: str) -> None:
    """Pencil corrections (a light fill, a light loop round it) on a held-out seed: on the
    scan the fill stops short of a side, on the photo the loop inks 0.299 of the rim, just
    under HALO_REVIEW. Both read silently as coloured in (checked) until session 20. On
    seed 7's quiet phone 80 the loop inks 0.161 of the rim on two sides (under 0.25, the
    rule's bar until session 21)."""
    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == CANCELLED
    assert m.state in (CANCELLED, REVIEW), m


def test_what_a_light_fill_with_ink_round_it_needs_to_be_doubted() -> None:
    """The two pencil-correction rules through classify, on a quiet sheet (or a photo not
    blurred): a light fill
    short of a side with its rim inked on two sides, and a light fill to the edges with a
    light loop on two sides, are reviews; a dark fill, or rim ink on one side, is coloured
    in."""
    from scanner.marks.classifier import classify

    short = {"n": 400.0, "ink": 0.693, "faint": 0.922, "centre": 1.0, "level": 0.196,
             "fill": 0.86, "t_ink": 0.15, "t_faint": 0.09, "sides": 0.667, "halo": 0.372,
             "halo_strokes": 4, "halo_sides": 2, "halo_seen": 3}
    full = {"n": 520.0, "ink": 1.0, "faint": 1.0, "centre": 1.0, "level": 0.36, "fill": 1.0,
            "t_ink": 0.15, "t_faint": 0.09, "sides": 1.0, "halo": 0.299, "halo_strokes": 1,
            "halo_sides": 2, "halo_seen": 3}
    quiet = _quiet_cal(0.006, 0.4)
    for f in (short, full):
        m = classify(f, False, None, quiet)
        assert m.state == REVIEW and m.likely == CANCELLED, m
        assert classify({**f, "level": 0.8}, False, None, quiet).state == CHECKED
        assert classify({**f, "halo_sides": 1}, False, None, quiet).state == CHECKED
    noisy = _quiet_cal(0.02, 0.4)
    # a noisy photo: blurred, the fill's own blur inks its rim; not blurred (since session
    # 32), a light loop shows there as on a quiet sheet
    assert classify(short, False, None, replace(noisy, blur=BLURRED_PX)).state == CHECKED
    for f in (short, full):
        assert classify(f, False, None, replace(noisy, blur=1.2)).state == REVIEW


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (421, "scan-300", 2, "mission.escort.1"), (367, "scan-600", 1, "skill.navigation.1"),
    (373, "phone", 70, "mission.sector_command.1"), (379, "phone", 27, "skill.tactics.1"),
    (479, "phone", 42, "mission.training.4"),
])
def test_a_light_loop_over_the_outlines_tail_is_seen(seed: int, profile: str, index: int,
                                                     rid: str) -> None:
    """Light pencil corrections on seeds no rule was tuned on until session 42: each loop
    shows all round its box, but its pencil (0.18 on 421 scan-300 2) over the outline's
    blurred tail (0.06) fell short of the margin a dense fill sets over the print, so the
    rim measured 0.15-0.27 on one to four sides and the box read silently as coloured in.
    On a sheet not blurred the margin is smaller (features.SHARP_RIM); 367 scan-600 1's
    fill stops short of its edges, its loop on three sides (a scan's light loop rule), and
    so does 479 phone 42's (a seed after the twenty), its loop over 0.3 on a quiet photo."""
    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == CANCELLED
    assert m.state in (CANCELLED, REVIEW), m


def test_a_correction_covering_under_three_quarters_of_its_box_has_its_rim_looked_at() -> None:
    """421 phone 50 (a fresh seed): a pencil correction over "+4" covering 72 % of its box,
    struck through past its outline with its loop inking 40 % of the rim on three sides,
    read silently as a tick until session 43, its rim never measured (from 75 % then). Its
    rim is measured from HALO_FILL (0.7) now: a review, likely cancelled."""
    case = make_case(case_seed(421, "phone", 50), "phone")
    rid = "mission.war_command.1"
    m = read(case).marks[rid]
    assert case.truth[rid] == CANCELLED
    assert HALO_FILL <= m.features["fill"] < 0.75 and m.features["halo_sides"] >= 3, m
    assert m.state == REVIEW and m.likely == CANCELLED, m


def test_what_a_light_loop_round_a_box_covered_short_of_its_edges_needs() -> None:
    """The features of 367 scan-600 1's correction (covered lightly, short of its sides,
    its rim inked 0.27 on three of four sides): a review on a scan; with the rim inked on
    two sides, a dark fill or on a noisy photo, coloured in. Inked 0.39, a review on a
    photo where a light loop shows too."""
    from scanner.marks.classifier import classify

    f = {"n": 513.0, "ink": 0.593, "faint": 0.953, "centre": 1.0, "level": 0.173,
         "fill": 0.739, "t_ink": 0.153, "t_faint": 0.093, "sides": 0.556, "median": 0.165,
         "halo": 0.27, "halo_strokes": 1, "halo_sides": 3, "halo_seen": 4}
    scan = _quiet_cal(0.004, 0.3)
    m = classify(f, False, None, scan)
    assert m.state == REVIEW and m.likely == CANCELLED, m
    assert classify({**f, "halo_sides": 2}, False, None, scan).state == CHECKED
    assert classify({**f, "level": 0.72}, False, None, scan).state == CHECKED
    assert classify({**f, "halo": 0.12}, False, None, scan).state == CHECKED
    assert classify(f, False, None, replace(_quiet_cal(0.02, 0.3), blur=1.2)).state == CHECKED
    # a loop over HALO_REVIEW on three sides is one wherever a light fill's loop shows
    # (_light_fill: a quiet sheet, or a photo not blurred); on a blurred photo a mark's
    # own blur inks the rim
    loop = {**f, "halo": 0.39}
    for cal in (_quiet_cal(0.009, 0.3), replace(_quiet_cal(0.02, 0.3), blur=1.2)):
        assert classify(loop, False, None, cal).state == REVIEW
    blurred = replace(_quiet_cal(0.02, 0.3), blur=BLURRED_PX)
    assert classify(loop, False, None, blurred).state == CHECKED


@pytest.mark.parametrize(("seed", "profile", "index", "rid", "truth"), [
    (31, "phone", 7, "mission.training.1", SLASHED), (73, "phone", 36, "length.career", CHECKED),
])
def test_a_mark_on_the_dim_side_of_a_fall_of_the_light_is_no_correction(
        seed: int, profile: str, index: int, rid: str, truth: str) -> None:
    """A slash and a cross in boxes on the dim side of a steep fall of the light: the floor
    their bright neighbours set lifted their paper, their whole inside read as ink, and
    they read silently as corrections (seed 31 since session 14; seed 73, held out, in
    session 20). The paper a few millimetres out is as dim: no floor there."""
    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == truth
    assert m.state in (truth, REVIEW), m


def test_the_paper_floor_lifts_a_loop_not_a_shadow() -> None:
    """_paper_floor: a box whose own paper reads far darker than its neighbours' is lifted to
    PAPER_FLOOR of theirs when the paper a few millimetres out is bright (a correction's
    loop darkens its ring only), and not when that paper is as dim (a shadow)."""
    from types import SimpleNamespace

    from scanner.marks.paper import PAPER_FLOOR, _paper_floor

    own = np.array([200.0, 205.0, 198.0, 130.0])
    st = SimpleNamespace(near_boxes=[np.array([j for j in range(4) if j != k]) for k in range(4)])
    loop = _paper_floor(own, st, lambda ks: np.full(len(ks), 200.0))  # type: ignore[arg-type]
    shadow = _paper_floor(own, st, lambda ks: np.full(len(ks), 140.0))  # type: ignore[arg-type]
    assert loop[3] == pytest.approx(PAPER_FLOOR * 200.0)
    assert shadow[3] == pytest.approx(max(130.0, PAPER_FLOOR * 140.0))
    assert list(loop[:3]) == list(own[:3]) == list(shadow[:3])


@pytest.mark.parametrize(("seed", "index"), [(41, 54), (73, 75)])
def test_a_tick_in_a_block_of_inked_boxes_is_read_where_its_box_is(seed: int,
                                                                   index: int) -> None:
    """A block of boxes all ticked or coloured in with a marker (bench cases phone 54 of
    seed 41 and 75 of seed 73) matches its blank patches poorly, so it gave the fine field
    no point; extrapolated over it from boxes further off, the field put the block 5 px
    off, and a tick, read half on its neighbour, was silently a box filled over. Found by
    their outlines since session 21, the boxes are read where they are."""
    case = make_case(case_seed(seed, "phone", index), "phone")
    m = read(case).marks["tour.2.mission.3"]
    assert case.truth["tour.2.mission.3"] == CHECKED
    assert m.state == CHECKED, m


def test_an_empty_bubble_keeps_the_place_its_outline_was_found_at() -> None:
    """The fine field moved an empty bubble 3 px off where the first search found it
    (bench case phone 57 of seed 73: a bend too sharp for the field), onto its own
    outline, read as a mark; a region matching worse after the fine field keeps the first
    search's place."""
    case = make_case(case_seed(73, "phone", 57), "phone")
    m = read(case).marks["start.roll"]
    assert case.truth["start.roll"] == EMPTY
    assert m.state == EMPTY, m


def test_ink_over_nearly_all_of_a_box_short_of_its_sides_is_no_sure_slash() -> None:
    """A box coloured in with horizontal pencil strokes (bench case phone 73 of the held-out
    seed 83) covers 95 % of its box, but its strokes stop short of the sides (two thirds of
    its edges inked), so it does not read as filled; all its ink lies on one broad band,
    the test for one stroke, and it read silently as a slash. None of the 15,856 slashes
    on the cached sheets covers more than 0.69 of its box: review, likely checked. (End to
    end the case reads that box either way a hair's breadth of geometry decides: as the
    rules' slash the learned second look settles to checked, or, its ink measured a pixel
    over, as coloured in: right, or in doubt, never a sure slash.)"""
    from scanner.marks.classifier import classify

    f = {"n": 540.0, "ink": 0.722, "faint": 0.813, "centre": 1.0, "level": 0.245,
         "fill": 0.952, "t_ink": 0.155, "t_faint": 0.095, "sides": 0.667, "halo": 0.0,
         "halo_strokes": 0, "halo_sides": 0, "halo_seen": 4, "far": 0.0, "span": 0.926,
         "end_gap": 0.037, "bulge": 1.125, "split": 0.05, "tick_p": 0.015}
    photo = _quiet_cal(0.018, 0.25)
    m = classify(f, True, (0.992, 0.008), photo)
    assert (m.state, m.likely) == (REVIEW, CHECKED), m
    assert classify({**f, "fill": 0.69}, True, (0.992, 0.008), photo).state == SLASHED
    case = make_case(case_seed(83, "phone", 73), "phone")
    assert case.truth["mission.exploration.1"] == CHECKED
    got = read(case).marks["mission.exploration.1"]
    assert got.state == CHECKED or doubted(got, "mission.exploration.1", CHECKED), got


def test_a_faint_slash_widening_a_little_that_the_model_calls_a_slash_is_no_sure_tick() -> None:
    """A faint slash on a tilted, blurred photo (bench case phone 0 of seed 22, read since
    session 21 finds its inked boxes by their outlines) widens to 1.46x its width at one
    point, a tick by the widening rule, and the model calls it a tick at 0.013: read
    silently as a tick while the model's veto stood at 0.01. Review, likely a slash; since
    session 31 settled as one by the success model (SETTLED)."""

    case = make_case(case_seed(22, "phone", 0), "phone")
    m = read(case).marks["mission.trade.4"]
    assert case.truth["mission.trade.4"] == SLASHED
    assert 0.01 <= m.features["tick_p"] < 0.02 and m.features["bulge"] >= 1.4, m
    assert m.state == REVIEW or (m.state, m.doubt) == (SLASHED, SETTLED), m


def test_what_a_pale_mark_on_a_blurred_photo_needs_to_be_doubted() -> None:
    """_pale: a mark under FAINT (0.45) of the sheet's typical level is doubted anywhere;
    on a photo blurred to BLURRED_PX, a small one (under PALE_INK of its box over the ink
    threshold) is doubted up to BLURRED_FAINT (0.6) of it, a big one, or one in an Executed
    box (its marks cross the printed "+1"), is not."""
    from dataclasses import replace

    from scanner.marks.classifier import _pale

    sharp = _quiet_cal(0.03, 0.3)
    blurred = replace(sharp, blur=1.8)
    small = {"level": 0.15, "ink": 0.1}
    assert _pale(small, blurred) and not _pale(small, sharp)
    assert not _pale({**small, "ink": 0.2}, blurred)
    assert not _pale({**small, "level": 0.19}, blurred)
    assert _pale({**small, "level": 0.13}, sharp)
    assert not _pale(small, blurred, executed=True)
    assert _pale({**small, "level": 0.13}, blurred, executed=True)


@pytest.mark.parametrize(("seed", "index", "rids"), [
    (61, 86, ("skill.gunnery.2", "skill.leadership.2", "skill.command.1")),
    (31, 78, ("tour.10.mission.2",)),
])
def test_pale_ink_on_a_blurred_photo_is_no_sure_mark(seed: int, index: int,
                                                     rids: tuple[str, ...]) -> None:
    """Empty boxes on blurred phone photos (bench cases of seeds 61 and 31: blurred 12 MP
    photos, noise over a box) read as ticks at 0.46-0.56 of their sheet's typical mark,
    just over FAINT, until session 22. Not checked."""
    case = make_case(case_seed(seed, "phone", index), "phone")
    res = read(case)
    assert res.error is None
    for rid in rids:
        assert case.truth[rid] == "empty"
        assert res.marks[rid].state in (EMPTY, REVIEW), (rid, res.marks[rid])


def test_a_small_defocused_photo_whose_pale_ink_is_doubted_is_refused() -> None:
    """Bench case phone 10 of seed 97: an 8 MP photo, the sheet at 79 px/inch, defocused.
    The blurred outlines of its empty medal boxes read as six ticks until session 22; now
    doubted, they leave too many boxes unclear, and the photo is refused, not guessed."""
    case = make_case(case_seed(97, "phone", 10), "phone")
    res = read(case)
    assert res.error is not None and "too many boxes are unclear" in res.error.one_line()


@pytest.mark.parametrize(("seed", "index", "rid"), [
    (41, 45, "mission.fighter_pilot.1"), (97, 89, "mission.aid.1"),
])
def test_a_slash_too_light_to_show_before_a_mark_is_no_sure_empty(seed: int, index: int,
                                                                   rid: str) -> None:
    """Thin pencil slashes on phone photos (bench cases of seeds 41 and 97; on 97 phone 89
    at 75 px/inch across the printed "+1") leave no pixel over the noise and read empty,
    silently until session 22. Each is the only box on its sheet read empty before a mark
    on its track: review. (Since session 27 97 phone 89's is a review for its faint line
    already, scanner.faintline, the gap's reason unneeded.)"""
    case = make_case(case_seed(seed, "phone", index), "phone")
    m = read(case).marks[rid]
    assert case.truth[rid] == SLASHED
    assert m.state == REVIEW and ("after it is marked" in m.why or m.why == FAINT_LINE_WHY), m


def test_a_straight_stroke_along_a_box_edge_is_no_sure_slash() -> None:
    """Bench case phone 91 of the held-out seed 101: a correction (filled, scribbled over)
    inks the bottom edge of the empty box above it, one straight band across the box's
    width but a quarter of its height (`extent` 0.25), read silently as a slash until
    session 22. A slash runs corner to corner: under EDGE_EXTENT it is a review."""
    from scanner.marks import edge_ink
    from scanner.marks.classifier import FLAT_EDGE_WHY, classify

    case = make_case(case_seed(101, "phone", 91), "phone")
    m = read(case).marks["mission.training.4"]
    assert case.truth["mission.training.4"] == "empty"
    assert doubted(m, "mission.training.4", EMPTY, FLAT_EDGE_WHY), m
    assert not edge_ink(m)  # no stray ink that scanner.order settles as a mark
    assert m.features["extent"] < 0.35
    f = {**m.features, "extent": 0.8}
    assert classify(f, True, (1.0, 0.0), _quiet_cal(0.02, 0.33)).state == SLASHED


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (21, "clean", 9, "start.easier"),  # a tick drawn low and right, its vertex under the bubble
    (41, "phone-easy", 32, "skill.computer.1"),
])
def test_a_tick_drawn_low_in_its_box_is_read(seed: int, profile: str, index: int,
                                             rid: str) -> None:
    """A tick whose vertex sits at or under the box's lower edge puts 3-4 % of the box's
    middle under ink (its long arm's end); with 11-19 % of the box inked it is a mark, not a
    stray from outside (under F_CENTRE, 0.04, it went to review until session 23). A
    neighbour's ink at the box's edge leaves under EDGE_CENTRE in the middle: review."""
    from scanner.marks.classifier import EDGE_CENTRE, classify

    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == CHECKED
    assert m.state == CHECKED, m
    assert EDGE_CENTRE <= m.features["centre"] < 0.04
    f = {**m.features, "centre": 0.018}  # bench case phone 86 of seed 61: a neighbour's cross
    assert classify(f, False, None, _quiet_cal(0.02, 0.33)).state == REVIEW


@pytest.mark.parametrize(("seed", "index", "rid"), [
    (21, 60, "mission.contact_civilization.3"),
    (61, 87, "mission.patrol.1"),
    (157, 6, "mission.system_defense.2"),
    (191, 63, "mission.aid.3"),
    (191, 74, "mission.fighter_pilot.3"),
    (211, 6, "mission.fighter_pilot.1"),
])
def test_a_stroke_with_no_pixel_above_a_noisy_photos_noise_is_a_review(seed: int, index: int,
                                                                       rid: str) -> None:
    """Light pencil slashes and ticks on dim, noisy photos that darken no pixel past the
    noise: read silently as empty until session 27 (the last four on seeds first read
    then; 211's, at 2.7 interquartile ranges, set the bar at 2.5). Summed along the
    stroke, the darkening stands out from the sheet's other empty mission boxes
    (scanner.faintline): a review, likely empty (or one the rest of the page settled)."""
    case = make_case(case_seed(seed, "phone", index), "phone")
    m = read(case).marks[rid]
    assert case.truth[rid] in (CHECKED, SLASHED)
    assert doubted(m, rid, case.truth[rid]), m
    assert m.features["faint_line"] > LINE_SCORE


def test_a_faint_slash_across_a_printed_number_showing_at_both_ends_is_a_review() -> None:
    """Fresh seed 317, phone 26: a pencil slash across "+1" on a dim, noisy photo, read
    silently as empty until session 34. Its band over the print stands 2.0 interquartile
    ranges over the sheet's empty mission boxes (the print's residue spreads theirs), short
    of LINE_SCORE; but the band shows at both its ends in the paper beside the print, far
    over the sheet's empty boxes (scanner.faintline.ends_standing_out): a review. Since
    session 41 the photo is refused, its marks too faint for its 25 boxes unclear (over
    8 %; 26 since session 46); read anyway, the box is still that review."""
    case = make_case(case_seed(317, "phone", 26), "phone")
    res = read(case)
    assert res.error is not None and "boxes unclear" in res.error.one_line()  # (25 or 26)
    m = read(case, anyway=True).marks["mission.system_defense.1"]
    assert case.truth["mission.system_defense.1"] == SLASHED
    assert (m.state, m.why) == (REVIEW, FAINT_LINE_WHY), m
    assert m.features["faint_ends"] >= ENDS_SCORE


@pytest.mark.parametrize(("seed", "index", "rid", "key", "bar"), [
    (467, 84, "mission.security.1", "faint_plain", LINE_RATIO),
    (521, 51, "mission.system_defense.2", "faint_ends", ENDS_SCORE),
])
def test_a_pale_slash_the_print_hides_from_the_sheets_bands_is_a_review(
        seed: int, index: int, rid: str, key: str, bar: float) -> None:
    """Two pale pencil marks read silently as empty on seeds after the fifty tuned and
    twenty fresh ones (session 43). 467 phone 84 is quiet but blurred, so its light marks
    were neither read again nor summed along a band (now they are); its slash in a plain
    box stands 8.9 times the median of the plain boxes' bands, but only 1.8 interquartile
    ranges over all the sheet's, whose printed boxes' residue spreads them. 521 phone 51's
    slash across "+1" shows at both its ends in the paper (9.0) and leaves a trace of faint
    ink (2.2 %), while its band over the print is like the empty printed boxes'. Each is a
    review now, which the rest of the page settles to its truth."""
    case = make_case(case_seed(seed, "phone", index), "phone")
    m = read(case).marks[rid]
    assert case.truth[rid] in (CHECKED, SLASHED)
    assert doubted(m, rid, case.truth[rid], FAINT_LINE_WHY), m
    assert m.features[key] >= bar


def test_toner_specks_in_a_plain_box_are_no_faint_line() -> None:
    """239 scan-150 12, a blurred 150 dpi copy of a marker sheet: two toner specks in an
    empty plain mission box raise its band 7-9 times the plain boxes' median. A box whose
    faint ink is specks alone is not flagged by that ratio (its band is the specks')."""
    case = make_case(case_seed(239, "scan-150", 12), "scan-150")
    res = read(case)
    for rid in ("mission.escort.2", "mission.security.5"):
        assert case.truth[rid] == EMPTY
        assert res.marks[rid].state == EMPTY, res.marks[rid]


def test_noise_read_as_a_faint_mark_above_a_tour_not_reached_is_a_review() -> None:
    """Fresh seed 283, phone 9: on a dim photo JPEG blotches in an empty box above tour 11
    read silently as a faint tick until session 34, with tour 10 surely not checked off.
    The rules allow no mission there (scanner.order.doubt_marks_in_future_tours): a
    review. Since session 44 the learned second look (scanner.marks.audit) doubts it
    first (0.03), likely empty."""

    case = make_case(case_seed(283, "phone", 9), "phone")
    m = read(case).marks["tour.11.mission.4"]
    assert case.truth["tour.11.mission.4"] == EMPTY
    assert m.state == REVIEW and m.likely == EMPTY, m
    assert "tour 10 is not checked off" in m.why or m.why.startswith(AUDIT_WHY), m


def test_ink_in_a_printed_number_far_past_the_last_mark_is_a_review() -> None:
    """An empty promotion box on a noisy photo of a pencil sheet (seed 211, phone 8: box
    58, forty boxes past the last mark) whose printed "58" leaves a residue as dark as the
    sheet's light marks: read silently as checked until session 28. Past a sure empty box
    on a track read in order, it is a review. Since session 44 the learned second look
    (scanner.marks.audit) doubts it first (0.002), and the page settles it empty."""

    case = make_case(case_seed(211, "phone", 8), "phone")
    m = read(case).marks["promotion.58"]
    assert case.truth["promotion.58"] == EMPTY
    assert doubted(m, "promotion.58", EMPTY), m
    assert "promotion.19 before it is empty" in m.why or AUDIT_WHY in m.why, m


@pytest.mark.parametrize(("seed", "index"), [(1657, 36), (1595, 59)])
def test_an_empty_score_line_on_a_shaded_blurred_photo_reads_empty(seed: int, index: int
                                                                   ) -> None:
    """Seed 1657, phone 36 (and 1595 phone 59, session 54's): the player wrote no Final
    Promotion score; what the frame's blur (or a misregistration) left along its last
    cell's right side and top, on paper darker than the ring the line is measured
    against, read `7` at 1.0 ("you wrote 7; the sheet scores 30"). Ink only along a
    cell's sides is no digit (fields.hugs_frame)."""
    case = make_case(case_seed(seed, "phone", index), "phone")
    gray = cv2.imdecode(np.frombuffer(case.encoded, np.uint8), cv2.IMREAD_GRAYSCALE)
    res = scan_page(PageImage(f"phone-{index}", gray), ocr=True)
    if "skipped" in res.ocr:
        pytest.skip("Tesseract not installed")
    assert (case.state.written or {}).get("final_promotion") is None
    assert res.ocr["score.final_promotion"]["value"] is None
    assert not [f for f in res.findings if f["code"] == "score-miscount"]


def test_a_pencil_tick_lost_just_after_its_track_s_last_mark_is_a_review() -> None:
    """Seed 1669, phone 5 (held out, session 58): grey pencil on a defocused, tilted
    photo; the ticks in promotion.60 and the third Siege box leave almost no ink and read
    empty (0.71, 0.8), silently. Each is the next box in its track's order after a mark,
    where the learned second look is less sure of empty than it is of nearly every empty
    box (0.98, 0.91): a review now (order.doubt_next_empty)."""
    case = make_case(case_seed(1669, "phone", 5), "phone")
    res = read(case)
    for rid in ("promotion.60", "mission.siege.3"):
        assert case.truth[rid] == CHECKED
        m = res.marks[rid]
        assert (m.state, m.likely) == (REVIEW, EMPTY), m
        assert "the next box after" in m.why, m


@pytest.mark.parametrize(("seed", "index", "rid"), [
    (1631, 59, "mission.aid.1"), (1637, 80, "skill.computer.1")])
def test_a_pencil_tick_lost_in_a_track_s_first_box_is_a_review(seed: int, index: int,
                                                              rid: str) -> None:
    """Held out (session 56's seeds): pencil marks, the only ones on their tracks, that
    leave almost no ink on dim, blurred photos and read empty (the learned second look
    0.986 and 0.939), silently until session 60. With no mark on a track its first box
    is the next one in order: a review now (order.doubt_next_empty, FIRST_EMPTY_DOUBT)."""
    case = make_case(case_seed(seed, "phone", index), "phone")
    res = read(case)
    assert case.truth[rid] == CHECKED
    m = res.marks[rid]
    assert (m.state, m.likely) == (REVIEW, EMPTY), m
    assert "the first box of its track" in m.why, m


def test_the_box_after_a_mark_the_page_settled_is_the_next_box_too() -> None:
    """Seed 1723, phone 31 (held out, session 58): skill.efficiency.1's pale tick is a
    review that the page's rules settle as a mark (its successes grant the level); the
    tick in .2 read empty at 0.76, the learned second look at 0.94, and the sheet came
    back clean. Next boxes are looked at again once the page has settled its reviews."""
    case = make_case(case_seed(1723, "phone", 31), "phone")
    res = read(case)
    assert case.truth["skill.efficiency.2"] == CHECKED
    assert res.marks["skill.efficiency.1"].state == CHECKED
    m = res.marks["skill.efficiency.2"]
    assert (m.state, m.likely) == (REVIEW, EMPTY), m
    assert "the next box after skill.efficiency.1's mark" in m.why, m


def test_boxes_a_player_skipped_on_a_clean_render_are_read_empty() -> None:
    """Seed 1693, clean 16: a sheet marked out of order in black ink, clean, with four
    boxes skipped before a mark on their tracks. They hold no ink at all; until session 58
    all four went to review as marks perhaps missed. On a plain sheet (as quiet as a scan,
    its marks dark) a bare box is the player's skip: read empty, and the validator says
    the boxes are out of order."""
    case = make_case(case_seed(1693, "clean", 16), "clean")
    res = read(case)
    skipped = ("mission.training.2", "mission.training.4", "mission.escort.3",
               "mission.battle.1")
    assert all(case.truth[rid] == EMPTY for rid in skipped)
    assert [res.marks[rid].state for rid in skipped] == [EMPTY] * 4
    assert not [rid for rid, m in res.marks.items() if m.state == REVIEW]
    assert {"mission.training.2", "mission.escort.3", "mission.battle.1"} <= {
        r for f in res.findings if f["code"] == "boxes-out-of-order" for r in f["boxes"]}


def test_a_marker_slash_the_rules_take_for_a_tick_is_read_by_the_model_s_shape() -> None:
    """Seed 1783, clean 14 (held out, session 59): a marker slash over a Fighter Pilot box
    that the rules read as a tick and the learned second look as a slash at 0.995 was the
    sheet's only review. Both see a mark there; its shape is the model's to tell."""
    case = make_case(case_seed(1783, "clean", 14), "clean")
    res = read(case)
    m = res.marks["mission.fighter_pilot.4"]
    assert case.truth["mission.fighter_pilot.4"] == SLASHED
    assert m.state == SLASHED and m.why.startswith(SHAPE_SETTLE_WHY), m
    assert not [rid for rid, mk in res.marks.items() if mk.state == REVIEW]


@pytest.mark.parametrize(("seed", "profile", "index", "rid", "value"), [
    (1747, "scan-300", 65, "skill.courage.4", CHECKED),
    (1913, "scan-300", 45, "mission.planetary_defense.4", SLASHED),  # light marks
    (2011, "clean", 64, "mission.escort.4", SLASHED),  # light marks
])
def test_a_scrambled_scan_s_sure_pencil_mark_past_empty_boxes_is_a_mark(
        seed: int, profile: str, index: int, rid: str, value: str) -> None:
    """Seed 1747, scan-300 65 (session 59): a pencil tick in Courage's fourth box, the
    first three empty, went to review as a light mark out of order (the model 1.0). On a
    quiet sheet no noise makes such a mark: the player's order, which the validator
    reports. Session 62: on a sheet of light marks too (held out: a pale slash over a
    "+1" three or more boxes past the track's start, the model at 0.9995 and 0.994)."""
    case = make_case(case_seed(seed, profile, index), profile)
    res = read(case)
    assert case.truth[rid] == value
    assert res.marks[rid].state == value, res.marks[rid]
    assert not [k for k, mk in res.marks.items() if mk.state == REVIEW]


def test_a_pale_correction_on_a_photocopy_with_its_loop_past_one_side_is_a_review() -> None:
    """Seed 1811, scan-300 39 (held out, session 59): a pencil correction on a photocopied
    scan, its loop showing past one side of three, read checked at 0.59 with the model
    at 0.87, silently. Ink beside a filled box's rim on a quiet sheet needs the model at
    0.9 (audit.FILLED_RIM_DOUBT)."""
    case = make_case(case_seed(1811, "scan-300", 39), "scan-300")
    res = read(case)
    assert case.truth["mission.training.4"] == CANCELLED
    m = res.marks["mission.training.4"]
    assert (m.state, m.likely) == (REVIEW, CHECKED) and m.why.startswith(FILLED_RIM_WHY), m


@pytest.mark.parametrize("network", [False, True])
def test_a_grand_total_read_unsurely_is_confirmed_by_the_lines_sum(
        network: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A scan (seed 11, scan-300 7) whose Grand Total "39" the classifier and Tesseract
    leave unsure, its six lines read for sure: they add up to 39, so the total is compared
    too. The digit network (session 48) reads that total for sure by itself."""
    if not network:
        monkeypatch.setattr(digits, "CNN_MODEL", Path("/nonexistent/digits_cnn.npz"))
    case = make_case(case_seed(11, "scan-300", 7), "scan-300", "later", "letter")
    gray = cv2.imdecode(np.frombuffer(case.encoded, np.uint8), cv2.IMREAD_GRAYSCALE)
    res = scan_page(PageImage("scan-300-7", gray), ocr=True)
    if "skipped" in res.ocr:
        pytest.skip("Tesseract not installed")
    total = res.ocr["score.total"]
    assert total["value"] == case.state.written["total"] == 39
    if network:
        assert "confirmed" not in total and total["confidence"] >= OCR_TRUST
    else:
        assert total["confirmed"] == CONFIRMED
    assert (res.state.written or {}).get("total") == 39
    assert {w.key: w.status for w in res.written}["total"] in ("agrees", "differs")


def test_a_box_read_empty_before_a_mark_of_ink_in_the_print_stays_a_review() -> None:
    """Seed 211, phone 8's neighbour phone 0: a pencil tick in Siege's first box reads
    empty (0.95) and a light tick in the second's printed number reads as a mark from its
    ink in the print. One empty box before such a mark is a lone gap, not a reason to doubt
    the mark: the empty box goes to review, as before session 28's order rule."""
    case = make_case(case_seed(211, "phone", 0), "phone")
    res = read(case)
    assert case.truth["mission.siege.1"] == CHECKED
    assert res.marks["mission.siege.1"].state == REVIEW, res.marks["mission.siege.1"]


def test_an_empty_box_beside_a_correction_is_placed_with_its_neighbours() -> None:
    """Seed 233, phone 56: an empty medal box beside a correction spilling past its
    outline. Searched exhaustively, its window's best match (0.598) lay 6 px off, over the
    correction's ink, and it read as marked (then a review, where its neighbours put it);
    searched coarse to fine (scanner.marks.ncc), it stays on its own outline's peak
    (0.585) where its neighbours are, and reads empty outright."""
    case = make_case(case_seed(233, "phone", 56), "phone")
    res = read(case)
    rid = "medal.distinction.7"
    assert case.truth[rid] == EMPTY
    m = res.marks[rid]
    assert m.state == EMPTY and m.confidence >= 0.9, m
    assert "off_neighbours_px" not in m.features  # (never read where its neighbours are not)


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (167, "phone-easy", 39, "medal.distinction.11"),
])
def test_an_empty_box_drawn_off_by_a_neighbours_correction_is_a_review(
        seed: int, profile: str, index: int, rid: str) -> None:
    """An empty box beside a correction (filled and scribbled over, spilling past its
    outline): the outline match puts the box 6 px off the place its neighbours share, over
    the correction's ink, and it read as checked, silently. Read again where its
    neighbours put it, it is empty: a review, likely empty."""
    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == EMPTY
    assert m.likely == EMPTY and doubted(m, rid, EMPTY), m
    assert m.features["off_neighbours_px"] > 3


def test_a_trace_through_the_middle_of_a_printed_box_is_a_review() -> None:
    """Held-out seed 239, phone 47: a light pencil cross over a skill box's "+1" on a dim,
    noisy photo leaves faint ink on 3 % of the box, just under halfway between the faint
    and the ink thresholds: a trace, read empty silently until session 28. It crosses the
    box's middle (17 % of it), as a blur halo or a shadow's edge does not: a review.
    Since session 44 the page settles it to its truth (another box on the sheet is one
    the learned second look doubts)."""
    case = make_case(case_seed(239, "phone", 47), "phone")
    m = read(case).marks["skill.command.1"]
    assert case.truth["skill.command.1"] == CHECKED
    assert doubted(m, "skill.command.1", CHECKED) and "trace" in m.why, m


@pytest.mark.parametrize(("seed", "index", "rid"), [
    (157, 17, "mission.system_defense.4"),
    (199, 4, "mission.contact_civilization.1"),
])
def test_a_pencil_slash_widened_by_the_printed_number_is_a_slash_on_a_clean_render(
        seed: int, index: int, rid: str) -> None:
    """A light pencil slash across "+2" on a clean render widens 3-4 times where it crosses
    the digit's strokes, which a shape test takes for a tick's vertex: "one stroke or two?"
    until session 29. All its ink lies on one band and the thin-pen model is all but sure
    of a slash (under PRINT_SLASH_P): on a sheet as quiet as a scan, a slash."""
    case = make_case(case_seed(seed, "clean", index), "clean")
    m = read(case).marks[rid]
    assert case.truth[rid] == SLASHED
    assert m.state == SLASHED, m
    assert m.features["bulge"] > 2 and m.features["tick_p"] < 0.01


def test_the_models_sure_slash_needs_a_scan_and_a_thin_stroke_on_one_band() -> None:
    """_sure_model_slash: its signs one by one (features as measured on 157_clean_0017's
    slash). On a phone photo the model is as sure of a blurred tick (35 on 35 seeds)."""
    from scanner.marks.shape import _sure_model_slash

    f = {"far": 0.018, "tick_p": 0.0, "bulge": 2.98, "level": 0.224, "ink": 0.073, "fill": 0.078}
    assert _sure_model_slash(f, _quiet_cal(0.004, 0.3))
    assert not _sure_model_slash(f, _quiet_cal(0.008, 0.3))  # a photo's noise
    assert not _sure_model_slash({**f, "tick_p": 0.02}, _quiet_cal(0.004, 0.3))
    assert not _sure_model_slash({**f, "far": 0.03}, _quiet_cal(0.004, 0.3))  # ink off its band
    assert not _sure_model_slash({**f, "level": 0.85}, _quiet_cal(0.004, 0.3))  # a pen's, a marker's
    assert not _sure_model_slash({**f, "fill": 0.5}, _quiet_cal(0.004, 0.3))  # a fat mark


def test_a_fat_marker_slash_the_paper_split_test_calls_two_strokes_is_a_review() -> None:
    """Seed 191, phone 53: a marker slash a third of its box wide leaves little paper
    beside its band, so the paper-split test called it two strokes and it read as a tick,
    silently, on a sheet that came back clean. Its edges put only 6.9 % of its ink on a
    second band (a marker's cross puts more) and both tick-or-slash models call it a
    slash: a review, likely slashed (since session 38 the page, which needs a mark there
    either way on this quiet photo, settles it by the models' shared word)."""
    from scanner.marks.classifier import SPLIT_SLASH_WHY

    case = make_case(case_seed(191, "phone", 53), "phone")
    m = read(case).marks["mission.patrol.1"]
    assert case.truth["mission.patrol.1"] == SLASHED
    assert m.likely == SLASHED and doubted(m, "mission.patrol.1", SLASHED, SPLIT_SLASH_WHY), m
    assert m.features["second"] < 0.09 and m.features["split_two"] == 1.0


def test_what_a_fat_stroke_needs_to_be_doubted_as_one() -> None:
    """_split_slash: its signs one by one (features as measured on 191_phone_0053's slash)."""
    from scanner.marks.shape import _split_slash

    f = {"split_two": 1.0, "second": 0.069, "tick_p": 0.0, "thin_p": 0.001}
    assert _split_slash(f)
    assert not _split_slash({**f, "second": 0.12})  # a cross's second bar
    assert not _split_slash({**f, "tick_p": 0.3})  # the marker model sees a tick
    assert not _split_slash({**f, "thin_p": 0.3})  # the thin-pen one does
    assert not _split_slash({k: v for k, v in f.items() if k != "split_two"})


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (241, "phone", 25, "mission.system_defense.4"),
    (257, "scan-150", 0, "mission.system_defense.2"),
])
def test_a_slash_read_as_a_tick_by_ink_off_its_band_is_a_review(
        seed: int, profile: str, index: int, rid: str) -> None:
    """Seed 241 (a harsh photo) and 257 (a 150 dpi photocopy): a light slash across the
    printed "+1", the print's residue or the blur putting a little of its ink off its band,
    read silently as a tick. The success model (crosses learned as successes) calls it a
    slash: a review, likely slashed."""
    from scanner.marks.classifier import FAR_SLASH_WHY

    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == SLASHED
    assert m.likely == SLASHED and doubted(m, rid, SLASHED, FAR_SLASH_WHY), m
    assert m.features["success_p"] < 0.04 and m.features["line2"] < 0.18


def test_what_a_tick_by_ink_off_its_band_needs_to_be_doubted() -> None:
    """_far_slash: the success model's answer alone (asked of ticks read by ink off their
    band only); without the model nothing is vetoed."""
    from scanner.marks.shape import _far_slash

    assert _far_slash({"success_p": 0.0235})  # 263 phone 2's light slash across "+1"
    assert not _far_slash({"success_p": 0.058})  # the second lowest of 5,859 ticks and crosses
    assert not _far_slash({})


def test_a_marker_cross_read_by_ink_off_its_band_stays_checked() -> None:
    """The tick-or-slash models call a fat marker's cross a slash (they never learned
    crosses); the success model did, and leaves those read by ink off their band alone."""
    from scanner.tickslash import box_ink, success_probability, tick_probability

    side = 60
    img = np.zeros((side, side), np.float32)
    cv2.line(img, (6, 6), (54, 54), 1.0, 9)
    cv2.line(img, (6, 54), (54, 6), 1.0, 9)
    inside = np.zeros((side, side), bool)
    inside[2:-2, 2:-2] = True
    ink = box_ink(img, img, inside, np.zeros_like(inside), 1.0)
    cross_p = success_probability(ink)
    slash = np.zeros_like(img)
    cv2.line(slash, (8, 52), (52, 8), 1.0, 9)
    slash_p = success_probability(box_ink(slash, slash, inside, np.zeros_like(inside), 1.0))
    assert cross_p is not None and slash_p is not None, "the success model is shipped"
    assert cross_p > 0.9 and slash_p < 0.1
    assert tick_probability(ink, True) < 0.5  # what the marker model makes of that cross


def test_a_blurred_cross_read_as_one_stroke_is_a_review() -> None:
    """Seed 271, phone 96 (first read in session 30): a cross on a photo so blurred its two
    strokes merge into one blot, which the rules read as a plain slash (all its ink on one
    band). The success model is all but sure it is a success (0.9995): a review."""
    from scanner.marks.classifier import SUCCESS_SLASH_WHY

    case = make_case(case_seed(271, "phone", 96), "phone")
    m = read(case).marks["mission.patrol.2"]
    assert case.truth["mission.patrol.2"] == CHECKED
    assert doubted(m, "mission.patrol.2", CHECKED, SUCCESS_SLASH_WHY), m
    assert m.features["success_p"] >= 0.999


def test_what_a_plain_slash_needs_to_be_doubted() -> None:
    """_success_slash: the success model all but sure (SUCCESS_SURE) of a tick or cross;
    without the model (no `success_p`) nothing is doubted."""
    from scanner.marks.shape import _success_slash

    assert _success_slash({"success_p": 0.9995})
    assert _success_slash({"success_p": 0.9987})  # 127 short-ticks 33's short-armed tick
    assert not _success_slash({"success_p": 0.9977})  # the highest slash read right under it
    assert not _success_slash({})


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (127, "short-ticks", 33, "mission.strike.2"),
    (11, "short-ticks-scan", 36, "mission.strike.3"),
    (283, "phone", 85, "mission.exploration.4"),
])
def test_a_success_read_as_a_slash_by_any_rule_is_a_review(
        seed: int, profile: str, index: int, rid: str) -> None:
    """Read silently as slashes: ticks whose short arm is hardly there (127: a pen's; 11: a
    light pencil one, its short arm in the printed "+"'s stem, read as a faint mark) and a
    fat marker cross blurred into one blot with paper beside it (fresh seed 283, read by
    the fat-stroke rule). The success model is all but sure of a success (SUCCESS_SURE),
    whichever rule read the slash: a review."""
    from scanner.marks.classifier import SUCCESS_SLASH_WHY

    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == CHECKED
    assert doubted(m, rid, CHECKED, SUCCESS_SLASH_WHY), m


@pytest.mark.parametrize(("seed", "index", "rid"), [
    (223, 0, "mission.fighter_pilot.2"),
    (251, 15, "mission.fighter_pilot.4"),
])
def test_a_fat_marker_slash_the_success_model_is_sure_of_is_read(
        seed: int, index: int, rid: str) -> None:
    """Clean renders: a fat marker slash whose blunt end the tick-or-slash models take for
    a tick's vertex (0.69, 0.80) was a review ("one stroke or two?"). The success model,
    which learned crosses and loose ticks, calls it a slash at 0.003: read as one, and
    marked as settled (it still counts as unclear when the photo's legibility is judged)."""
    from scanner.marks.shape import SETTLED_WHY

    case = make_case(case_seed(seed, "clean", index), "clean")
    m = read(case).marks[rid]
    assert case.truth[rid] == SLASHED
    assert (m.state, m.why, m.doubt) == (SLASHED, SETTLED_WHY, SETTLED), m
    assert m.features["success_p"] < 0.005 < m.features["tick_p"]


def test_what_settles_a_stroke_in_doubt_as_a_slash() -> None:
    """_success_says_slash: the success model under SUCCESS_SETTLES; without the model
    nothing is settled."""
    from scanner.marks.shape import _success_says_slash

    assert _success_says_slash({"success_p": 0.003})  # 223 clean 0's marker slash
    assert not _success_says_slash({"success_p": 0.0099})  # 239 phone 26's blurred cross
    assert not _success_says_slash({})


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (101, "scan-150", 0, "mission.siege.2"),  # a pencil tick, the success model 1.0
    (73, "scan-300", 13, "mission.patrol.4"),  # its short arm off the print, 1.0
    (113, "scan-600", 4, "mission.system_defense.1"),  # a pencil slash, 0.0008
    (41, "phone-easy", 35, "mission.fighter_pilot.4"),  # a slash on a quiet photo, 0.0002
])
def test_a_light_stroke_found_at_the_sheets_noise_is_read_by_the_success_model(
        seed: int, profile: str, index: int, rid: str) -> None:
    """Session 32: light pencil strokes across a printed number, read again at the quiet
    sheet's own noise (_read_light_again), show a stroke whose shape the rules leave in
    doubt (or which keeps off the box's middle, the print hiding it there): a review for a
    little ink before. The success model reads it where it is all but sure (a tick or a
    cross at 0.998, a slash under 0.005), settled: it still counts as unclear. Since
    session 37 a slash both models call one (the tick-or-slash model under PRINT_SLASH_P,
    the success model under SUCCESS_VETO) on a sheet as quiet as a scan is read outright."""
    from scanner.marks.shape import PRINT_SLASH_P, SUCCESS_VETO
    from scanner.marks.sheet import QUIET_MARK_WHY

    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    want = case.truth[rid]
    both = (m.features.get("low_tick_p", 1.0) < PRINT_SLASH_P
            and m.features["low_success_p"] < SUCCESS_VETO)
    assert (m.state, m.why, m.doubt) == (want, QUIET_MARK_WHY, "" if both else SETTLED), m
    assert (m.features["low_success_p"] >= 0.998) == (want == CHECKED), m.features


def test_a_light_fill_with_a_loop_on_two_sides_on_a_noisy_photo_is_a_review() -> None:
    """Fresh seed 269 phone 14 (session 31's held-out run): two pencil corrections on a
    noisy photo, not blurred, their loops inking the rim 0.18 and 0.23 on two of four
    sides, read silently as coloured in. A light fill's loop hides in the fill's own
    spill, so on a photo not blurred such a rim is a review, as on a quiet sheet. Since
    session 42 the rim of a photo not blurred is measured with less margin over the print
    (features.SHARP_RIM), and a loop may then show all round: a correction."""
    case = make_case(case_seed(269, "phone", 14), "phone")
    r = read(case)
    for rid in ("mission.establish_starbase.2", "medal.starburst.2"):
        assert case.truth[rid] == CANCELLED
        m = r.marks[rid]
        assert m.state == CANCELLED or (m.state, m.likely) == (REVIEW, CANCELLED), m


def test_a_slash_the_success_model_leans_to_is_no_sure_model_tick() -> None:
    """Fresh seed 313 clean 10 (session 32's first read): a slash across "+1", steep enough
    to pass for a tick's long arm, read silently as a tick on the thin-pen model's word
    (1.0; the marker model 0.97). The success model leans to a slash (0.49): a review,
    and since session 37 a slash (_straight_slash: dark, on one band, keeping its width)."""
    case = make_case(case_seed(313, "clean", 10), "clean")
    m = read(case).marks["mission.system_defense.2"]
    assert case.truth["mission.system_defense.2"] == SLASHED
    assert (m.state, m.likely, m.why) == (SLASHED, SLASHED, ""), m
    assert m.features["tick_p"] >= 0.999 > 0.5 > m.features["success_p"]


def test_what_lets_the_thin_pen_model_read_a_single_stroke_as_a_tick() -> None:
    """_success_leans_slash: under 0.5 the success model leans to a slash; without it, no
    lean either way."""
    from scanner.marks.shape import _success_leans_slash

    assert _success_leans_slash({"success_p": 0.494})  # 313 clean 10's slash
    assert not _success_leans_slash({"success_p": 0.529})  # the lowest such tick
    assert not _success_leans_slash({})


@pytest.mark.parametrize(("seed", "profile", "index", "rid", "likely"), [
    (313, "phone", 14, "tour.15", CANCELLED),  # filled short of a side, loop on two sides
    (313, "phone", 14, "medal.valor.12", CANCELLED),  # faint on 86 %, dark on 68 %: a rim
    (293, "phone", 83, "discipline.11", CHECKED),  # faint over 61 %, 28 % of it dark
])
def test_a_light_pencil_correction_on_a_noisy_photo_is_a_review(
        seed: int, profile: str, index: int, rid: str, likely: str) -> None:
    """Fresh seeds' noisy photos: light pencil corrections read silently as coloured in,
    one filled to its edges but for a side with its loop on two sides (_light_fill, on any
    photo not blurred since session 32), one whose fill shows as faint ink over most of
    the box, too little of it dark for it to count as filled (SMEARED_SHARE), and one
    filled to 68 % only, under HALO_FILL, whose rim is measured since session 34 because
    faint ink covers 86 % of it (FAINT_COVER): struck through on three sides. (293 phone
    83, with 30 boxes unclear, is refused as too faint since session 41: read anyway.)"""
    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case, anyway=True).marks[rid]
    assert case.truth[rid] == CANCELLED
    assert (m.state, m.likely) == (REVIEW, likely), m


def test_a_toner_speck_on_a_blank_photocopy_is_no_mark() -> None:
    """Fresh seed 311 scan-600 7: a blank sheet photocopied with toner specks, one 0.94 mm
    long in a plain box (SPECK_MM is 0.7), read as a light mark at the scan's own noise.
    With no clear mark on the sheet there is nothing to compare it with: not a mark."""
    case = make_case(case_seed(311, "scan-600", 7), "scan-600")
    r = read(case)
    assert not any(r.marks[rid].state in (CHECKED, SLASHED) for rid in r.marks), r.marks
    assert r.marks["discipline.8"].state in (EMPTY, REVIEW)


def test_what_a_straight_dark_stroke_needs_to_be_a_slash() -> None:
    """_straight_slash, through classify: the features of 181 clean 1's marker slash begun
    mid-box (both tick-or-slash models lean to a tick, the success model to a slash), and
    each sign that keeps such a stroke a review ("a slash, or a tick with a short arm?")."""
    from scanner.marks.classifier import classify
    from scanner.marks.shape import _straight_slash

    f = {"n": 513.0, "ink": 0.312, "faint": 0.32, "centre": 0.811, "level": 0.638,
         "fill": 0.353, "t_ink": 0.15, "t_faint": 0.09, "far": 0.0, "span": 0.91,
         "end_gap": 0.09, "bulge": 1.026, "extent": 0.741, "success_p": 0.339,
         "tick_p": 0.836, "thick_p": 0.594}
    line = (0.95, 0.037)
    scan = _quiet_cal(0.004, 0.65)
    assert classify(f, True, line, scan).state == SLASHED
    for changed in ({"success_p": 0.75},  # the success model: a tick (a short-armed one)
                    {"bulge": 1.3},  # a vertex
                    {"far": 0.03},  # ink off its band
                    {"level": 0.35}):  # pencil: its short arm may not show
        assert classify({**f, **changed}, True, line, scan).state == REVIEW, changed
    assert classify(f, True, (0.94, 0.06), scan).state == REVIEW  # a second band
    assert not _straight_slash(f, line, _quiet_cal(0.015, 0.65))  # a noisy photo's


def test_a_light_slash_both_models_call_a_slash_is_one_however_the_print_widens_it() -> None:
    """_light_stroke_state: 307 clean 11's light slash across "+2" (widening 2.0 times where
    it crosses the digit) on a sheet as quiet as a scan is a slash when both models call
    it one; either model unsure keeps it a review, as on a noisier sheet."""
    from scanner.marks.classifier import classify

    f = {"n": 494.0, "ink": 0.045, "faint": 0.099, "centre": 0.391, "level": 0.181,
         "fill": 0.104, "t_ink": 0.15, "t_faint": 0.09, "far": 0.0, "span": 1.0,
         "end_gap": 0.0, "bulge": 2.024, "extent": 0.808, "success_p": 0.011,
         "tick_p": 0.003}
    line = (0.9796, 0.0204)  # (under QUIET_BENT, and widening: a tick could look like it)
    scan = _quiet_cal(0.004, 0.3)
    assert classify(f, True, line, scan).state == SLASHED
    assert classify({**f, "success_p": 0.05}, True, line, scan).state == REVIEW
    assert classify({**f, "tick_p": 0.02}, True, line, scan).state == REVIEW
    assert classify(f, True, line, _quiet_cal(0.008, 0.3)).state == REVIEW


@pytest.mark.parametrize(("seed", "index", "rid"), [
    (181, 1, "mission.system_defense.1"), (337, 3, "mission.system_defense.1"),
    (307, 11, "mission.contact_civilization.2"),
])
def test_the_clean_renders_slashes_left_to_review_in_session_36_are_slashes(
        seed: int, index: int, rid: str) -> None:
    """Two marker slashes begun mid-box and a light slash across a printed digit, the last
    reviews on fifty seeds' clean renders but one."""
    case = make_case(case_seed(seed, "clean", index), "clean")
    m = read(case).marks[rid]
    assert case.truth[rid] == SLASHED
    assert m.state == SLASHED, m


@pytest.mark.parametrize(("seed", "profile", "index", "rid", "want"), [
    (73, "scan-300", 13, "mission.system_defense.1", REVIEW),
    (31, "scan-300", 1, "mission.system_defense.1", CHECKED),
    (83, "scan-150", 1, "skill.leadership.1", CHECKED),
    (337, "phone", 29, "skill.tactics.1", REVIEW),
])
def test_what_the_page_says_of_a_box_its_ink_leaves_in_doubt(
        seed: int, profile: str, index: int, rid: str, want: str) -> None:
    """Session 38, end to end. Two pencil strokes too light for the rules to tell their
    shape, on pages that need a mark there and agree with a success and a failure alike:
    both tick-or-slash models' shape (scanner.consistency.shape_by_models), a tick's; a
    slash's stays a review since session 52, as one stroke of a little ink may be a cross
    whose other arm does not show. A skill level whose outline was not found, which only a
    mark there makes the page agree with. A pencil cross lost in a photo's hard shadow,
    read empty with full confidence, that the page names as missing (skill-unchecked) on a
    sheet in review besides: a review (since session 60 sent there first as its track's
    first box, none of it read marked, the learned second look at 0.982:
    scanner.order.FIRST_EMPTY_DOUBT)."""
    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert m.state == want, m
    if rid == "mission.system_defense.1" and want == REVIEW:
        assert case.truth[rid] == SLASHED and m.doubt == INK
    elif want == REVIEW:
        assert case.truth[rid] == CHECKED and "the first box of its track" in m.why
    else:
        # (settled by the page, or first by the learned second look, all but sure of it)
        assert case.truth[rid] == want and m.why.startswith((SETTLED_WHY, SETTLE_WHY))


@pytest.mark.parametrize(("seed", "profile", "index", "choice", "trace"), [
    (163, "scan-150", 4, "start.still_easier_yet", "start.roll"),
    (181, "scan-300", 13, "start.still_easier_yet", "start.easier"),
])
def test_specks_beside_a_sure_choice_leave_it_the_choice(seed: int, profile: str, index: int,
                                                         choice: str, trace: str) -> None:
    """Session 39, end to end: two specks of dust in a start option's bubble, beside
    another option marked darkly, are no second choice (scanner.choices); they were both
    scans' only review."""
    from scanner.choices import SETTLED_WHY as GROUP_WHY

    case = make_case(case_seed(seed, profile, index), profile)
    res = read(case)
    assert case.truth[choice] == CHECKED and case.truth[trace] == EMPTY
    assert res.marks[choice].state == CHECKED
    assert res.marks[trace].state == EMPTY
    # (settled by its group, or first by the learned second look, all but sure of it)
    assert res.marks[trace].why.startswith((GROUP_WHY.format(choice), SETTLE_WHY))
    assert res.review == []


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (0, "strays-scan", 11, "mission.aid.1"),  # a pen dash, read again at the scan's noise
    (0, "strays-scan", 34, "mission.communications.5"),  # ... as dark as the sheet's marks
    (11, "strays", 10, "promotion.15"),  # a marker line along the box's edge
    (11, "strays", 23, "mission.strike.1"),  # a faint mark, in the photo's pixels
])
def test_a_stray_grazing_an_empty_box_is_no_mark(seed: int, profile: str, index: int,
                                                  rid: str) -> None:
    """Session 40, end to end: a stray stroke reaching a fifth of the way into an empty
    box from outside (the bench's strays sets) was read as a slash or a check, silently;
    its ink does not span the box both ways as a mark's does (scanner.marks.sheet
    REACH_MIN), so it is a review for ink at the box's edge, which the rest of the page
    may settle as empty."""
    from scanner.marks.classifier import EDGE_WHY
    from scanner.marks.sheet import REACH_MIN

    case = make_case(case_seed(seed, profile, index), profile)
    assert case.truth[rid] == EMPTY
    assert any(rid in g["touches"] for g in case.meta["grazing"])
    m = read(case).marks[rid]
    assert m.features["reach"] < REACH_MIN
    assert ((m.state == REVIEW and m.why == EDGE_WHY)
            or (m.state == EMPTY and m.why.startswith("settled by"))), m


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (251, "clean", 13, "tour.12"),  # over the tour's printed "12": the clean renders' last review
    (179, "scan-300", 7, "start.roll"),  # a start option's bubble
])
def test_a_tick_drawn_low_on_a_quiet_sheet_is_read(seed: int, profile: str, index: int,
                                                   rid: str) -> None:
    """Session 40, end to end: a pencil tick drawn low in its box leaves little ink in the
    box's middle (a review for ink at its edge until now), but it spans the box both ways
    and both tick-or-slash models call it a tick; on a sheet as quiet as a scan it is
    checked (scanner.marks.sheet LOW_TICK_REACH, LOW_TICK_P)."""
    from scanner.marks.sheet import DRAWN_LOW_WHY, LOW_TICK_REACH

    case = make_case(case_seed(seed, profile, index), profile)
    res = read(case)
    m = res.marks[rid]
    assert case.truth[rid] == CHECKED
    assert m.features["reach"] >= LOW_TICK_REACH
    if m.why.startswith(AUDIT_WHY):
        # since session 45 the learned second look doubts 179 scan-300 7's: the rules'
        # reading is kept in its why, and the box is the scan's only review
        assert m.state == REVIEW and m.why.endswith("the rules checked"), m
        assert (profile, res.review) == ("scan-300", [rid])
        return
    assert m.state == CHECKED and m.why == DRAWN_LOW_WHY, m
    assert res.review == []


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (0, "strays-scan", 33, "mission.aid.4"),  # both models 1.0, reach 0.15
    (61, "strays-scan", 19, "medal.distinction.7"),  # both models 1.0, reach 0.3
])
def test_a_stray_the_models_call_a_tick_is_no_tick_drawn_low(seed: int, profile: str,
                                                             index: int, rid: str) -> None:
    """The other side of that rule: strays reaching into empty boxes on quiet sheets that
    both models call ticks at 1.0 (they answer the ink's shape, not whose it is) stay by
    the box's edge, so they are not read as ticks drawn low."""
    from scanner.marks.sheet import DRAWN_LOW_WHY

    case = make_case(case_seed(seed, profile, index), profile)
    assert case.truth[rid] == EMPTY
    m = read(case).marks[rid]
    assert m.state in (EMPTY, REVIEW) and m.why != DRAWN_LOW_WHY, m


@pytest.mark.parametrize(("seed", "index", "rid"), [
    (541, 42, "mission.fighter_pilot.2"),  # a tick the rules read as a slash
    (577, 24, "medal.starburst.1"),  # an empty box on a very blurred photo read as a mark
])
def test_a_box_the_learned_second_look_all_but_rules_out_is_a_review(
        seed: int, index: int, rid: str) -> None:
    """Two boxes of the ten seeds read first in session 43 (541-599), read wrong without a
    doubt by the rules, that scanner.marks.audit's model (trained on other seeds) gives
    under DOUBT: each is a review now (or settled by the page to its truth)."""

    case = make_case(case_seed(seed, "phone", index), "phone")
    m = read(case).marks[rid]
    assert doubted(m, rid, case.truth[rid]) and AUDIT_WHY in m.why, m


def test_a_review_the_second_look_settles_is_no_sure_mark_to_the_legibility_checks() -> None:
    """211 phone 76 (101 dpi): one light pencil tick that the rules leave in review and the
    learned second look settles (0.9996). The legibility checks were measured on the rules'
    reading; counted among the sure marks, that one light mark put the photo's share of
    marks under their ink threshold over FAINT_TAIL, and a photo with every box right was
    refused as too faint. It is read, with nothing left to review and nothing wrong."""
    from scanner.marks.audit import SETTLE_WHY

    case = make_case(case_seed(211, "phone", 76), "phone")
    res = read(case)
    m = res.marks["skill.computer.1"]
    assert res.error is None and res.review == []
    assert m.why.startswith(SETTLE_WHY) and m.state == case.truth["skill.computer.1"]
    wrong = Score().add(case, res)
    assert not wrong, wrong


@pytest.mark.parametrize(("seed", "index", "rids"), [
    (1049, 3, ("tour.13.mission.1", "mission.communications.4")),
    (1073, 4, ("tour.6", "mission.contact_civilization.1", "medal.gallantry.4")),
])
def test_pale_pencil_corrections_on_a_photocopied_scan_are_cancelled(
        seed: int, index: int, rids: tuple[str, ...]) -> None:
    """Pale pencil corrections on photocopied 600-dpi scans: the fill and the scribble round
    it both under the ink threshold, so its rim read clean and the box checked or empty,
    silently, until session 49. On a quiet sheet a pale fill's rim is measured at the faint
    threshold (classifier.PALE_FILL)."""
    case = make_case(case_seed(seed, "scan-600", index), "scan-600")
    res = read(case)
    for rid in rids:
        assert case.truth[rid] == CANCELLED
        assert res.marks[rid].state == CANCELLED, (rid, res.marks[rid])


def test_photo_too_noisy_to_see_pencil_is_refused_not_read_blank() -> None:
    """A dim harsh photo in a hard shadow (held-out seed 1133, phone 42: noise 0.071) sets
    its ink threshold at 0.54, over its grey pencil marks: every one of its 196 marks read
    empty, 188 of them silently, until session 49. A sheet that reads hardly a mark under
    such a threshold is refused (legible.NOISY_BLANK)."""
    case = make_case(case_seed(1133, "phone", 42), "phone")
    res = read(case)
    assert res.error is not None, res.warnings
    assert "too dark or too noisy to see pencil" in res.error.one_line()
    assert "brighter photo" in res.error.fix


@pytest.mark.parametrize(("t_ink", "sure", "refused"), [
    (0.5, 0, True),  # hardly a mark over a threshold pencil cannot reach
    (0.5, 9, True),
    (0.5, 10, False),  # marks read: the contrast checks judge them instead
    (0.27, 0, False),  # a blank sheet on a noisy photo (the bench's noisiest blank: 0.27)
])
def test_a_sheet_read_blank_under_a_threshold_pencil_cannot_reach_is_refused(
        t_ink: float, sure: int, refused: bool) -> None:
    from scanner.marks import Reading
    from scanner.marks.legible import _illegible

    feats = {"level": 0.9, "t_ink": t_ink, "ink": 0.5}
    marks = {f"promotion.{i + 1}": Mark(CHECKED if i < sure else EMPTY, 1.0,
                                        CHECKED if i < sure else EMPTY, "", dict(feats))
             for i in range(60)}
    reading = Reading(marks, Calibration(0.0, t_ink / 7, t_ink, t_ink * 4 / 7), {}, {})
    got = _illegible(reading)
    assert (got is not None and "too noisy to see pencil" in got[0]) == refused, got


@pytest.mark.parametrize(("t_ink", "sure", "unclear", "refused"), [
    (0.29, 0, 28, True),  # 1487 phone 54: pencil barely reaching the threshold, unclear
    (0.29, 0, 20, False),  # few boxes unclear: a blank sheet's haze, or reviews to look at
    (0.29, 5, 28, False),  # marks read for sure: the contrast checks judge them
    (0.21, 0, 72, False),  # the bench's blank sheet with most boxes unclear (1307 phone 33)
])
def test_a_sheet_of_reviews_under_a_threshold_pencil_barely_reaches_is_refused(
        t_ink: float, sure: int, unclear: int, refused: bool) -> None:
    from scanner.marks import Reading
    from scanner.marks.legible import _illegible

    feats = {"level": 0.9, "t_ink": t_ink, "ink": 0.5}
    marks = {}
    for i in range(309):
        state = CHECKED if i < sure else REVIEW if i < sure + unclear else EMPTY
        marks[f"box.{i}"] = Mark(state, 1.0 if state != REVIEW else 0.35,
                                 EMPTY if state != CHECKED else CHECKED, "", dict(feats))
    reading = Reading(marks, Calibration(0.0, t_ink / 7, t_ink, t_ink * 4 / 7), {}, {})
    got = _illegible(reading, square_on=False)
    assert (got is not None and "too noisy to see pencil" in got[0]) == refused, got


def test_grey_pencil_on_a_far_blurred_noisy_photo_is_refused_not_read_blank() -> None:
    """Grey pencil on a photo taken from afar (89-122 px/inch), blurred and noisy (seed
    1487, phone 54): no mark read for sure, 28 boxes unclear, 75 marks read empty silently
    until session 52 (legible.NOISY_UNCLEAR)."""
    case = make_case(case_seed(1487, "phone", 54), "phone")
    res = read(case)
    assert res.error is not None, res.warnings
    assert "too dark or too noisy to see pencil" in res.error.one_line()


def test_three_pencil_ticks_missed_on_the_promotion_track_are_reviews() -> None:
    """A harsh photo (seed 1469, phone 40) read three pencil ticks on the promotion track
    empty, the track otherwise in order: silent until session 52 (order.MISSED_GAPS)."""
    case = make_case(case_seed(1469, "phone", 40), "phone")
    res = read(case)
    assert res.error is None, res.error
    for rid in ("promotion.22", "promotion.52", "promotion.59"):
        assert case.truth[rid] == CHECKED
        assert res.marks[rid].state in (REVIEW, CHECKED), (rid, res.marks[rid])


def test_thick_slashes_on_a_blurred_far_side_are_no_sure_fills() -> None:
    """Black pen on a blurred photo whose far side is 96 px/inch (seed 1313, phone 73):
    two slashes filling their mission boxes read as coloured in at 0.81 and 0.67, and the
    page settled a third box wrong on their word, until session 50 (audit.FILLED_DOUBT
    0.6 -> 0.85)."""
    case = make_case(case_seed(1313, "phone", 73), "phone")
    res = read(case)
    assert res.error is None, res.error
    for rid in ("mission.fighter_pilot.1", "mission.strike.1", "mission.fighter_pilot.3"):
        assert doubted(res.marks[rid], rid, case.truth[rid]), (rid, res.marks[rid])


def test_pencil_too_light_to_read_but_for_two_marks_is_refused() -> None:
    """Pencil on a dim harsh photo (seed 1355, phone 62): 2 marks read for sure, 73 boxes
    unclear, the marks the reviews lean to at 0.90 times the ink threshold, and 26 marks
    read empty silently, until session 50: too few sure marks for the faint-sheet checks,
    too few unclear boxes for UNREADABLE_SHARE. A sheet whose reviews lean to marks that
    light is refused however few it reads for sure."""
    case = make_case(case_seed(1355, "phone", 62), "phone")
    res = read(case)
    assert res.error is not None, res.warnings
    assert "marks are too faint to read this photo" in res.error.one_line()
    assert "marked for sure" in res.error.one_line()


@pytest.mark.parametrize(("sure", "unclear", "contrast", "refused"), [
    (2, 73, 0.90, True),  # 1355 phone 62: marked, too lightly to read
    (2, 20, 0.90, False),  # few boxes unclear: the reviews say which
    (2, 73, 1.40, False),  # marks dark enough (the other checks judge the sheet)
    (0, 72, float("inf"), False),  # a blank sheet's haze: too few leaning marked to measure
])
def test_a_sheet_of_reviews_leaning_to_marks_too_light_is_refused(
        sure: int, unclear: int, contrast: float, refused: bool) -> None:
    from scanner.marks import Reading
    from scanner.marks.legible import _illegible

    feats = {"level": 0.4, "t_ink": 0.2, "ink": 0.3}
    marks = {}
    for i in range(309):
        state = CHECKED if i < sure else REVIEW if i < sure + unclear else EMPTY
        marks[f"box.{i}"] = Mark(state, 1.0 if state != REVIEW else 0.4,
                                 CHECKED if state != EMPTY else EMPTY, "", dict(feats))
    reading = Reading(marks, Calibration(0.0, 0.03, 0.2, 0.12), {}, {}, contrast=contrast)
    got = _illegible(reading, square_on=False)
    assert (got is not None and "too faint to read this photo" in got[0]
            and f"{sure} marked for sure" in got[0]) == refused, got


def test_mottled_paper_barely_over_the_threshold_is_no_sure_mark() -> None:
    """An empty mission box on the far side of a photo tilted 34 degrees, JPEG 67 and
    sharpened (held-out seed 1157, phone 19): its mottled paper inked 11 % of it at 1.03
    times the ink threshold, read checked at 0.85, silently, until session 49; the model
    gives it 0.38 (audit.MARGINAL_DOUBT)."""
    case = make_case(case_seed(1157, "phone", 19), "phone")
    m = read(case).marks["tour.14.mission.2"]
    assert case.truth["tour.14.mission.2"] == EMPTY
    assert doubted(m, "tour.14.mission.2", EMPTY), m


def test_a_pale_pencil_correction_is_no_sure_fill() -> None:
    """A blank sheet with three pencil corrections on a harsh photo (seed 1229, phone 66):
    one of them, filled over 61 % of its box at 1.08 times the ink threshold, read as
    coloured in (checked) at 0.84, silently, until session 50; its two sisters went to
    review. A fill that pale needs the model at 0.9 (audit.FILLED_MARGINAL_DOUBT)."""
    case = make_case(case_seed(1229, "phone", 66), "phone")
    res = read(case)
    for rid in ("mission.fighter_pilot.1", "mission.strike.1", "mission.contact_civilization.1"):
        assert case.truth[rid] == CANCELLED
        assert doubted(res.marks[rid], rid, CANCELLED) or res.marks[rid].state == CANCELLED, (
            rid, res.marks[rid])


@pytest.mark.parametrize(("profile", "seed", "index", "rid"), [
    ("scan-150", 1133, 3, "mission.science.3"),
    ("phone", 1469, 55, "mission.escort.4"),
])
def test_a_cross_half_lost_under_the_print_is_no_failure_by_its_shape(
        profile: str, seed: int, index: int, rid: str) -> None:
    """A pale cross in an Executed box whose right half vanished under the printed "+1"
    (a quiet 150-dpi scan; a quiet phone photo): a review for a little ink, which the page
    needs to be a mark, a success or a failure alike; the models saw its one stroke and
    called it a slash, settled so silently until session 52. A box whose ink is in doubt
    is a tick by its shape, never a slash (consistency.shape_by_models)."""
    case = make_case(case_seed(seed, profile, index), profile)
    m = read(case).marks[rid]
    assert case.truth[rid] == CHECKED
    assert m.state in (REVIEW, CHECKED), m


def test_a_fill_between_a_neighbours_tick_and_scribble_is_no_sure_correction() -> None:
    """A marker fill on a 300-dpi scan (seed 1247, scan-300 5) between a tick drawn over its
    left edge and a correction's scribble spilling round its right: its rim inked on three
    of four sides, read cancelled at 0.6 with the model at 0.73, silently, until session 52
    (audit.RIM_CORRECTION_DOUBT)."""
    case = make_case(case_seed(1247, "scan-300", 5), "scan-300")
    res = read(case)
    m = res.marks["medal.valor.2"]
    assert case.truth["medal.valor.2"] == CHECKED
    assert m.state in (REVIEW, CHECKED), m
    assert res.marks["medal.valor.3"].state == CANCELLED


def test_a_light_tick_in_a_start_group_left_unchosen_is_a_review() -> None:
    """Held out (session 63): 2081 scan-300 61, a light pencil tick low in the start
    option "still easier yet", across its printed circle, that the learned second look
    settled empty at 0.998, silently, leaving the start group with no choice
    (choices.doubt_unchosen)."""
    from scanner.choices import UNCHOSEN_WHY

    case = make_case(case_seed(2081, "scan-300", 61), "scan-300")
    m = read(case).marks["start.still_easier_yet"]
    assert case.truth["start.still_easier_yet"] == CHECKED
    assert m.state == REVIEW and m.why == UNCHOSEN_WHY.format("start"), m


@pytest.mark.parametrize(("seed", "index", "rid"), [
    (2027, 25, "medal.gallantry.6"), (2029, 16, "medal.valor.7")])
def test_a_pencil_loop_missing_one_side_where_no_neighbour_is_inked_is_a_correction(
        seed: int, index: int, rid: str) -> None:
    """Held out (session 62): pencil corrections on clean renders whose loop misses the
    rim on one side, the model 0.75 and 0.63: reviews under RIM_CORRECTION_DOUBT, the
    sheets' only ones. The inked sides face no box read with ink (audit.RIM_ALONE), so
    the loop is the box's own."""
    case = make_case(case_seed(seed, "clean", index), "clean")
    res = read(case)
    assert case.truth[rid] == CANCELLED
    assert res.marks[rid].state == CANCELLED, res.marks[rid]
    assert res.marks[rid].features["halo_alone"] >= 2
    assert not [k for k, m in res.marks.items() if m.state == REVIEW]


@pytest.mark.parametrize(("seed", "profile", "index", "rid"), [
    (1867, "clean", 48, "tour.7.mission.1"), (1871, "scan-300", 74, "tour.6.mission.1")])
def test_a_bold_tick_read_as_a_fill_on_a_quiet_sheet_is_a_mark(seed: int, profile: str,
                                                               index: int, rid: str) -> None:
    """Held out (session 60): bold ticks inking a third to a half of a box above a tour,
    read as filled, the learned second look 0.73 and 0.84: reviews under
    FILLED_DOUBT, the sheets' only ones. On a sheet as quiet as a scan, outside the
    Executed boxes, the rules' fill stands above even odds (audit.FILLED_QUIET_DOUBT)."""
    case = make_case(case_seed(seed, profile, index), profile)
    res = read(case)
    assert case.truth[rid] == CHECKED
    assert res.marks[rid].state == CHECKED, res.marks[rid]
    assert not [k for k, m in res.marks.items() if m.state == REVIEW]


def test_a_pale_cross_with_faint_ink_on_a_light_quiet_sheet_is_a_review() -> None:
    """Seed 1913, scan-150 59 (held out, session 61): a pale pencil cross on a 150-dpi
    photocopy whose marks sit at 1.03x the threshold, faint ink on 2.25 % of its box, its
    level 0.0998 (just under LIGHT_LEVEL). The sheet is refused as too faint; read
    anyway, the cross read empty, silently. On a light sheet as quiet as a scan that
    much faint ink is no noise: a review (LIGHT_QUIET_FAINT)."""
    case = make_case(case_seed(1913, "scan-150", 59), "scan-150")
    refused = read(case).error
    assert refused is not None and "too faint to read" in refused.one_line()
    res = read(case, anyway=True)
    m = res.marks["tour.1.mission.3"]
    assert case.truth["tour.1.mission.3"] == CHECKED
    assert m.state == REVIEW, m


@pytest.mark.parametrize(("seed", "index", "rid"), [
    (1907, 17, "mission.system_defense.3"), (1931, 41, "mission.strike.3")])
def test_a_pale_slash_over_a_printed_number_on_a_clean_render_is_settled_by_the_model(
        seed: int, index: int, rid: str) -> None:
    """Held out (session 61): pale slashes across a printed "+1" and "+2" that the rules
    read as "a little ink" and "tick, cross or slash?", the learned second look calling
    them slashes at 0.9875 and 0.9865, the sheets' only reviews. On a quiet sheet the
    model's mark settles a review at 0.97 (audit.SETTLE_QUIET_MARK)."""
    case = make_case(case_seed(seed, "clean", index), "clean")
    res = read(case)
    m = res.marks[rid]
    assert case.truth[rid] == SLASHED
    assert (m.state, m.doubt) == (SLASHED, SETTLED), m
    assert not [k for k, mk in res.marks.items() if mk.state == REVIEW]


def test_a_last_digit_the_network_calls_no_digit_on_a_hazy_photo_leaves_the_line_unsure(
        ) -> None:
    """Seed 2039, phone 37 (held out, session 62): "21" on the Missions line of a dim photo
    whose haze darkens every cell; the network called the 1 no digit, and the line read
    "2" for sure: "you wrote 2; the sheet scores 21". A cell after the number with ink as
    dark as the number's is a digit missed (fields.DARK_TAIL): the line is compared by
    hand, not called a miscount."""
    case = make_case(case_seed(2039, "phone", 37), "phone")
    assert (case.state.written or {}).get("missions") == 21
    gray = cv2.imdecode(np.frombuffer(case.encoded, np.uint8), cv2.IMREAD_GRAYSCALE)
    res = scan_page(PageImage("phone-37", gray), ocr=True)
    if "skipped" in res.ocr:
        pytest.skip("Tesseract not installed")
    assert res.ocr["score.missions"]["cells"] == ["", "2", "?"], res.ocr["score.missions"]
    line = {w.key: w for w in res.written}["missions"]
    assert line.status == "unsure", line
    assert not any("Missions line is off" in c for c in res.checks), res.checks
