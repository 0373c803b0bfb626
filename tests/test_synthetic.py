"""Synthetic sheet photos and scans: deterministic, truthful, in range, detectable."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

import sheets
from game.opial.marks import BLANK, CANCELLED, CHECKED, marks_to_state, state_to_marks
from game.opial.rules import load_rules
from scanner.synthetic import PHOTO_SPECS, PROFILES, SCAN_BED_MM, Case, case_seed, make_case, write_case
from scanner.synthetic.truth import _plan
from sheets.fill import Stroke, plan_ink
from sheets.manifest import overlaps

RULES = load_rules("later")
MANIFEST = sheets.layout("career", "later", "letter")
REGIONS = MANIFEST.by_id()


@pytest.fixture(scope="module")
def cases() -> dict[tuple[str, int], Case]:
    """A small cache: each case is made once for the whole module."""
    return {}


def case(cache: dict[tuple[str, int], Case], profile: str, seed: int) -> Case:
    if (profile, seed) not in cache:
        cache[(profile, seed)] = make_case(seed, profile)
    return cache[(profile, seed)]


def detect(image: np.ndarray) -> dict[int, np.ndarray]:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50),
                                  params)
    corners, ids, _ = det.detectMarkers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    return {} if ids is None else {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners,
                                                                           strict=True)}


def check_truth(c: Case) -> None:
    """The truth covers every region, reads back as the state, and differs from the
    state's own marks only where the profile says why."""
    assert set(c.truth) == set(REGIONS)
    assert marks_to_state(c.truth, RULES) == c.state
    ref = state_to_marks(c.state, RULES)
    for rid, v in c.truth.items():
        if v == ref[rid]:
            continue
        if v == CANCELLED:
            assert ref[rid] == BLANK and rid in c.meta["corrections"]
            assert REGIONS[rid].kind == "checkbox"
        else:  # a blank sheet leaves the default bubbles empty
            assert c.meta["sheet"]["kind"] == "blank" and ref[rid] == CHECKED and v == BLANK


@pytest.mark.parametrize("profile", ["phone", "scan", "clean"])
def test_same_seed_same_case(cases: dict[tuple[str, int], Case], profile: str) -> None:
    a = case(cases, profile, 7)
    b = make_case(7, profile)
    assert a.encoded == b.encoded
    assert a.truth == b.truth and a.state == b.state
    strip = {"generate_ms"}
    assert ({k: v for k, v in a.meta.items() if k not in strip}
            == {k: v for k, v in b.meta.items() if k not in strip})
    other = make_case(8, profile)
    assert other.encoded != a.encoded


@pytest.mark.parametrize("profile", PROFILES)
def test_truth_matches_the_state(cases: dict[tuple[str, int], Case], profile: str) -> None:
    c = case(cases, profile, 3)
    check_truth(c)
    assert c.profile == profile and c.edition == "later" and c.paper == "letter"
    json.dumps(c.record())  # JSON-ready


def test_truth_over_many_plans() -> None:
    """The content planner alone (no pixels), over enough seeds to hit every kind of sheet,
    every tool, corrections and stray marks."""
    kinds, tools = set(), set()
    corrected = strays = 0
    for seed in range(120):
        rng = np.random.default_rng([seed, 0])
        state, truth, inks, style, meta = _plan(rng, "phone", RULES, MANIFEST)
        c = Case(seed, "phone", "later", "letter", b"", ".jpg", state, truth, (), meta)
        check_truth(c)
        kinds.add(meta["sheet"]["kind"])
        tools.add(style.tool)
        corrected += bool(meta["corrections"])
        strays += bool(meta["stray"])
        if meta["sheet"]["kind"] == "blank" and not meta["corrections"] and not meta["stray"]:
            assert not inks
        for s in inks:
            if isinstance(s, Stroke):
                assert s.colour == style.colour
        for st in meta["stray"]:  # stray marks lie outside every region
            x0, y0, x1, y1 = st["bbox_pt"]
            box = (x0, y0, x1 - x0, y1 - y0)
            assert not any(overlaps(box, r.rect) for r in MANIFEST.regions)
    assert kinds == {"career", "blank", "scrambled"}
    assert tools == {"pen", "clean", "pencil", "marker"}
    assert corrected > 10 and strays > 10


def test_ink_is_the_fill_modules() -> None:
    """A pen sheet's ink is sheets.fill.plan_ink's, restyled (same strokes, same places)."""
    for seed in range(40):
        rng = np.random.default_rng([seed, 0])
        state, _, inks, style, meta = _plan(rng, "phone", RULES, MANIFEST)
        if meta["sheet"]["kind"] == "blank" or style.tool != "pen":
            continue
        ref = plan_ink(state, RULES, MANIFEST, "pen", meta["ink_seed"])
        assert len(inks) >= len(ref)
        moved = 0
        for a, b in zip(inks, ref, strict=False):
            assert type(a) is type(b)
            if isinstance(a, Stroke) and isinstance(b, Stroke):
                assert a.width == pytest.approx(b.width * style.width, abs=1e-3)
                if a.points != b.points:  # a mark kept to its own box (_tidy_marks)
                    moved += 1
                    assert len(a.points) == len(b.points)
                    assert np.abs(np.array(a.points) - np.array(b.points)).max() < 6.0
        assert moved <= 2 * len(meta["tidied"])
        if meta["tidied"]:
            return
    pytest.fail("no pen sheet with a tidied mark in 40 seeds")


def test_clean_case_markers_and_geometry(cases: dict[tuple[str, int], Case]) -> None:
    c = case(cases, "clean", 1)
    assert c.ext == ".png" and c.encoded[:4] == b"\x89PNG"
    dpi = c.meta["dpi"]
    w, h = MANIFEST.page_size
    assert c.image.shape[1] == round(w / 72 * dpi)
    assert abs(c.image.shape[0] - h / 72 * dpi) <= 1
    found = detect(c.image)
    assert sorted(found) == [0, 1, 2, 3]
    for fid, corners in found.items():  # meta says where the markers are, to a pixel
        assert np.abs(corners - np.array(c.meta["markers"][fid])).max() < 1.0


@pytest.mark.parametrize("seed", [0, 1])
def test_corner_cut_truth(cases: dict[tuple[str, int], Case], seed: int) -> None:
    c = case(cases, "corner-cut", seed)
    assert len(c.missing_markers) == 1
    gone = c.missing_markers[0]
    assert c.meta["camera"]["corner_cut"]["marker"] == gone
    assert c.meta["missing_markers"] == [gone]
    found = detect(c.image)
    assert gone not in found
    assert set(found) == {0, 1, 2, 3} - {gone}
    check_truth(c)


def test_corner_cut_out_of_frame_and_covered() -> None:
    """Both ways of losing a corner occur, and a marker cut by the frame is mostly outside."""
    hows = set()
    for seed in range(12):
        c = make_case(seed, "corner-cut")
        cut = c.meta["camera"]["corner_cut"]
        hows.add(cut["how"])
        if cut["how"] == "frame":
            q = np.array(c.meta["markers"][cut["marker"]])
            w, h = c.meta["size"]
            inside = (q[:, 0] >= 0) & (q[:, 0] < w) & (q[:, 1] >= 0) & (q[:, 1] < h)
            assert not inside.all()
        if hows == {"frame", "cover"}:
            return
    pytest.fail(f"only {hows} in 12 seeds")


def test_phone_ranges(cases: dict[tuple[str, int], Case]) -> None:
    spec = PHOTO_SPECS["phone"]
    sizes = {tuple(s) for s, _ in spec.sizes} | {tuple(reversed(s)) for s, _ in spec.sizes}
    for seed in range(3):
        c = case(cases, "phone", seed)
        w, h = c.meta["size"]
        assert (w, h) in sizes and c.image.shape[:2] == (h, w)
        assert 640 * 480 <= w * h <= 20.2e6
        assert c.ext == ".jpg" and c.encoded[:2] == b"\xff\xd8"
        assert 50 <= c.meta["jpeg_quality"] <= 95
        cam = c.meta["camera"]
        assert 0 <= cam["tilt_deg"] <= 35 and 0 <= cam["rotation_deg"] < 360
        assert 0.5 <= cam["fill"] <= 0.95
        for q in c.meta["markers"].values():  # the whole page is in the frame
            q = np.array(q)
            assert (q >= 0).all() and (q[:, 0] < w).all() and (q[:, 1] < h).all()
        assert c.meta["render_dpi"] <= 300


def test_phone_easy_is_mild(cases: dict[tuple[str, int], Case]) -> None:
    c = case(cases, "phone-easy", 2)
    assert c.meta["camera"]["tilt_deg"] <= 12
    assert 80 <= c.meta["jpeg_quality"] <= 95
    assert c.meta["megapixels"] >= 5
    assert sorted(detect(c.image)) == [0, 1, 2, 3]


@pytest.mark.parametrize("dpi", [150, 300])
def test_scan_sizes(cases: dict[tuple[str, int], Case], dpi: int) -> None:
    c = case(cases, f"scan-{dpi}", 4)
    assert c.meta["dpi"] == dpi
    assert c.meta["size"] == [round(SCAN_BED_MM[0] / 25.4 * dpi), round(SCAN_BED_MM[1] / 25.4 * dpi)]
    assert c.image.shape[:2] == (c.meta["size"][1], c.meta["size"][0])
    assert abs(c.meta["skew_deg"]) <= 2 and 0.9 <= c.meta["fit_scale"] <= 1.0
    assert sorted(detect(c.image)) == [0, 1, 2, 3]


@pytest.mark.slow
def test_scan_profile_draws_every_resolution() -> None:
    dpis = {make_case(s, "scan").meta["dpi"] for s in range(10)}
    assert len(dpis) >= 3 and dpis <= {150, 200, 300, 400, 600}


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown profile"):
        make_case(1, "polaroid")


def test_write_case_and_seeds(tmp_path: object, cases: dict[tuple[str, int], Case]) -> None:
    c = case(cases, "clean", 1)
    path = write_case(c, Path(str(tmp_path)), "c1")
    assert path.read_bytes() == c.encoded
    rec = json.loads(path.with_suffix(".json").read_text())
    assert rec["truth"] == c.truth and rec["seed"] == 1
    assert case_seed(0, "phone", 1) == case_seed(0, "phone", 1) != case_seed(0, "phone", 2)
    assert case_seed(0, "phone", 1) != case_seed(0, "scan", 1)


@pytest.mark.slow
def test_many_cases_are_sane() -> None:
    """Every profile over more seeds: truth consistent, markers where meta says."""
    for profile in PROFILES:
        for seed in range(10):
            c = make_case(seed, profile)
            check_truth(c)
            found = detect(c.image)  # may hold a spurious id from the clutter or print
            for fid in {0, 1, 2, 3} & set(found) - set(c.missing_markers):
                # the median corner (a toner speck can pull one corner of a detection)
                d = np.hypot(*(found[fid] - np.array(c.meta["markers"][fid])).T)
                assert float(np.median(d)) < 1.0, (profile, seed, fid, d)


def test_grazing_strays_touch_only_the_edges_of_boxes() -> None:
    """The `strays` profiles' strokes come from outside a box and reach past its outline,
    but never into any box's middle half nor onto a written field, a marker, the QR code
    or other ink (joined to a box's slash, a stray would make a tick of it); the truth of
    every box stays its own mark's."""
    from scanner.synthetic.ink import OUTLINE
    from scanner.synthetic.truth import (
        GRAZE_CLEAR,
        GRAZE_DEPTH,
        _inner,
        _middle,
        _near_ink,
        _rect_dist,
        _samples,
    )

    boxes = [r for r in MANIFEST.regions if r.kind in ("checkbox", "bubble")]
    fields = [r for r in MANIFEST.regions if r.kind not in ("checkbox", "bubble")]
    shapes, grazed = set(), 0
    for seed in range(30):
        rng = np.random.default_rng([seed, PROFILES.index("strays-scan")])
        _, truth, inks, _, meta = _plan(rng, "strays-scan", RULES, MANIFEST)
        plain = _plan(np.random.default_rng([seed, PROFILES.index("strays-scan")]),
                      "scan", RULES, MANIFEST)[1]
        assert truth == plain  # the strays change no box's truth
        strokes = inks[len(inks) - len(meta["grazing"]):]
        others = [s for s in inks[:len(inks) - len(meta["grazing"])] if isinstance(s, Stroke)]
        assert 3 <= len(meta["grazing"]) <= 8
        for st, g in zip(strokes, meta["grazing"], strict=True):
            assert isinstance(st, Stroke)
            line = _samples(st.points, 0.1)
            x, y, w, h = REGIONS[g["box"]].rect
            assert _rect_dist(line[:1], (x, y, x + w, y + h)).min() > 0  # from outside
            assert _rect_dist(line, _inner(REGIONS[g["box"]].rect, OUTLINE)).min() < st.width / 2
            assert GRAZE_DEPTH[0] - 0.01 <= g["depth"] <= GRAZE_DEPTH[1] + 0.01
            assert g["box"] in g["touches"]
            for r in boxes:
                assert _rect_dist(line, _middle(r.rect)).min() >= st.width / 2
            for r in fields:
                fx, fy, fw, fh = r.rect
                assert _rect_dist(line, (fx, fy, fx + fw, fy + fh)).min() > st.width / 2
            for o in others + [s for s in strokes if s is not st]:
                gap = (st.width + o.width) / 2 + GRAZE_CLEAR
                assert not _near_ink(line, _samples(o.points, 0.1), gap)
            shapes.add(g["shape"])
            grazed += 1
    assert shapes == {"dash", "tail", "along"} and grazed > 100


def test_the_bench_pools_several_seeds_into_one_run(tmp_path: Path) -> None:
    """bench/bench_scanner.py --seed 3,5: each seed's cases in its own folder, one run; a
    seed that is not a number is refused by the argument parser, nothing made."""
    bench = Path(__file__).resolve().parent.parent / "bench" / "bench_scanner.py"
    run = subprocess.run([sys.executable, str(bench), "--seed", "3,5", "--sets", "clean",
                          "--n", "1", "--out", str(tmp_path), "--generate-only"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "cases: 2 " in run.stderr
    assert sorted(p.parent.parent.name.rsplit("-", 1)[1] for p in tmp_path.glob("*/clean/*.json")
                  ) == ["seed3", "seed5"]
    bad = subprocess.run([sys.executable, str(bench), "--seed", "3,x", "--out",
                          str(tmp_path / "bad"), "--generate-only"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "not a seed" in bad.stderr
    assert not (tmp_path / "bad").exists()
