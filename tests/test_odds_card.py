"""Odds cards (`starsheets print odds-card --system opial|spacer|pool`): the printed
numbers are the engines', the PDFs are clean, the CLI's mistakes are one line.

The OPIAL card reads the persistent odds cache (game/opial/odds_cache.py) in the user's
cache directory: the first run on a machine fills it (some 15-30 s, in parallel), later
runs only read it. The cold computation itself is checked by the slow test at the end.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import pytest
from pypdf import PdfReader

import sheets
from game.opial import odds
from game.opial import odds_cache as oc
from game.opial.odds_cache import OddsCache, medal_key, mission_key
from game.pool import PoolRoll, pool_odds
from game.spacer.tasks import TaskSide, against_difficulty
from sheets import odds_card_opial as card_opial
from sheets import odds_card_pool as card_pool
from sheets import odds_card_spacer as card_spacer
from sheets.odds_card import DASH, pct_cell
from starsheets.cli import main
from starsheets.errors import ExitCode

ROOT = Path(__file__).resolve().parent.parent
KINDS = {"opial": "opial-odds-card", "spacer": "spacer-odds-card", "pool": "pool-odds-card"}
PAPERS = ("letter", "a4", "half-letter", "a5")

Item = tuple[int, float, float, str, str, float]  # page, y, x, text, font, size


# --- helpers ---------------------------------------------------------------------------------
@lru_cache(maxsize=8)
def text_items(pdf: bytes) -> tuple[Item, ...]:
    """Every text string drawn, with its page, baseline position, font and size."""
    out: list[Item] = []
    for n, page in enumerate(PdfReader(io.BytesIO(pdf)).pages):
        def visit(t: str, cm: list[float], tm: list[float], fd: dict | None, fs: float,
                  n: int = n) -> None:
            if t.strip():
                font = str(fd.get("/BaseFont", "")) if fd else ""
                out.append((n, round(tm[5] + cm[5], 1), tm[4] + cm[4], t.strip(), font,
                            fs * tm[3]))
        page.extract_text(visitor_text=visit)
    return tuple(out)


@lru_cache(maxsize=8)
def text_lines(pdf: bytes) -> tuple[tuple[tuple[float, str, str], ...], ...]:
    """The texts grouped into lines (same page, baselines within 0.6 pt), top to bottom,
    each line left to right as (x, text, font)."""
    items = sorted(text_items(pdf), key=lambda i: (i[0], -i[1]))
    lines: list[list[tuple[float, str, str]]] = []
    last: tuple[int, float] | None = None
    for page, y, x, t, font, _size in items:
        if last is None or last[0] != page or abs(last[1] - y) >= 0.6:
            lines.append([])
            last = (page, y)
        lines[-1].append((x, t, font))
    return tuple(tuple(sorted(line)) for line in lines)


def rows(pdf: bytes, label: str, italic: bool = False) -> list[list[str]]:
    """The texts of every table row whose first cell is `label`, top to bottom, page by
    page; upright text only (or, with `italic`, only the row's italic texts)."""
    return [[t for _x, t, f in line[1:] if ("Oblique" in f) == italic]
            for line in text_lines(pdf) if line[0][1] == label]


@pytest.fixture(scope="session")
def opial_cache() -> OddsCache:
    """The user's persistent OPIAL odds cache, filled if it is not yet."""
    card_opial.prepare()
    cache = OddsCache.open()
    assert not cache.missing(card_opial.needed_keys(card_opial.rules()))
    return cache


@pytest.fixture(scope="session")
def opial_pdf(opial_cache: OddsCache) -> bytes:
    return sheets.render(KINDS["opial"], None, "letter").pdf


Cli = Callable[..., subprocess.CompletedProcess[bytes]]


@pytest.fixture
def cli(capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch) -> Cli:
    """`starsheets.cli.main` in this process, with exit code and output streams."""

    def call(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
        monkeypatch.chdir(cwd or ROOT)
        with pytest.raises(SystemExit) as exit_info:
            main(list(args))
        out, err = capsysbinary.readouterr()
        return subprocess.CompletedProcess(list(args), int(exit_info.value.code or 0), out, err)

    return call


# --- formatting ------------------------------------------------------------------------------
@pytest.mark.parametrize(("p", "shown"), [
    (0.0, DASH), (1e-12, DASH), (0.001, "<1"), (0.00499, "<1"), (0.005, "1"),
    (0.125, "13"), (0.5, "50"), (0.994, "99"), (0.995, ">99"), (0.99999, ">99"),
    (1 - 1e-12, "100"), (1.0, "100")])
def test_pct_cell(p: float, shown: str) -> None:
    assert pct_cell(p) == shown


# --- the persistent cache --------------------------------------------------------------------
def cheap_keys() -> list[oc.Key]:
    r = card_opial.rules()
    keys = []
    for m in r.missions[:6]:
        rank = card_opial.ranks_with_pool(r)[m.min_rank]
        for levels in ({}, dict(card_opial.TYPICAL)):
            pool, mods, _ = card_opial.roll_setup(r, rank, levels)
            keys.append(mission_key(m, pool, mods))
    return keys


def test_cache_round_trip_is_exact(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    cache = OddsCache(path)
    keys = cheap_keys()
    values = [cache.success(*k) for k in keys]
    assert cache.computed == len(set(map(oc.encode_key, keys)))
    assert cache.save() and path.is_file()
    again = OddsCache(path)
    assert [again.success(*k) for k in keys] == values == [
        odds.success_by_rerolls(*k) for k in keys]
    assert again.computed == 0 and not again.save()  # nothing new: nothing written


def test_cache_ignores_bad_files_and_unwritable_dirs(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert len(OddsCache(bad)) == 0
    bad.write_text(json.dumps({"format": "something/else", "values": {"x": [1, 2]}}))
    assert len(OddsCache(bad)) == 0
    blocker = tmp_path / "file"
    blocker.write_text("")
    cache = OddsCache(blocker / "sub" / "c.json")
    cache.success(*cheap_keys()[0])
    assert cache.save() is False  # memory only, no exception


def test_cache_saves_merge_concurrent_writers(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    a, b = OddsCache(path), OddsCache(path)
    keys = cheap_keys()
    a.success(*keys[0])
    b.success(*keys[1])
    assert a.save() and b.save()
    both = OddsCache(path)
    assert keys[0] in both and keys[1] in both


def test_cache_file_is_keyed_by_rules_and_engine(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    from game.opial.simulate import cache_dir as simulate_cache_dir

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert oc.cache_dir() == simulate_cache_dir() == tmp_path / "starsheets"
    key = oc.cache_key()
    assert oc.default_path() == tmp_path / "starsheets" / f"opial-odds-{key}.json"
    monkeypatch.setattr(oc, "CACHE_VERSION", "other")
    assert oc.cache_key() != key


def test_parallel_fill_equals_sequential(tmp_path: Path) -> None:
    keys = cheap_keys()
    par, seq = OddsCache(None), OddsCache(None)
    done: list[int] = []
    n = par.fill(keys, workers=2, on_done=done.append)
    assert n == len(par) == len({oc.encode_key(k) for k in keys}) == sum(done)
    seq.fill(keys, workers=1)
    assert par.values == seq.values
    assert par.fill(keys) == 0  # nothing missing


def test_cache_lookups_equal_the_engine() -> None:
    """mission_key / medal_key price exactly what odds.mission_success / medal_success do."""
    r = card_opial.rules()
    cache = OddsCache(None)
    for m in r.missions:
        for rank in card_opial.ranks_with_pool(r)[m.min_rank:]:
            if len(rank.pool) > 4:
                continue  # the large pools are the slow test's
            for levels in ({}, dict(card_opial.TYPICAL), {"leadership": 1, "gunnery": 1}):
                pool, mods, comp = card_opial.roll_setup(r, rank, levels)
                assert cache.mission_success(m, pool, mods, comp) == \
                    odds.mission_success(m, pool, mods, comp), (m.id, rank.id, levels)
    for targets, _auto, _ms in card_opial.medal_rolls(r):
        for courage in range(5):
            for comp in range(5):
                assert cache.medal_success(targets, courage, comp) == \
                    odds.medal_success(targets, courage, comp)
            assert (medal_key(targets, courage) is None) == (max(targets) - courage > odds.FACES)


# --- the OPIAL card --------------------------------------------------------------------------
def test_opial_card_warm_cache_computes_nothing(opial_cache: OddsCache) -> None:
    r = card_opial.rules()
    cache = OddsCache.open()
    card_opial.mission_grid(r, dict(card_opial.TYPICAL), cache)
    card_opial.min_rank_grid(r, cache)
    card_opial.medal_grid(r, cache)
    assert cache.computed == 0


def test_opial_card_names_every_mission(opial_pdf: bytes) -> None:
    texts = {t for *_rest, t, _f, _s in text_items(opial_pdf)}
    for m in card_opial.rules().missions:
        assert m.name in texts, m.name
    assert "MISSION ROLL SUCCEEDS: COMPUTER 2 + LEADERSHIP 2" in texts
    joined = " ".join(t for *_r, t, _f, _s in text_items(opial_pdf))
    assert "one budget per mission" in joined and "O7" in joined  # the re-roll caveat
    assert "Typical officer: Computer 2 + Leadership 2" in joined  # the skill set and why


@pytest.mark.parametrize("mission_id", ["training", "survey", "patrol", "battle",
                                        "establish_starbase", "war_command"])
def test_opial_mission_rows_are_the_engines(opial_pdf: bytes, opial_cache: OddsCache,
                                            mission_id: str) -> None:
    r = card_opial.rules()
    m = r.mission(mission_id)
    ranks = card_opial.ranks_with_pool(r)[m.min_rank:]
    found = rows(opial_pdf, m.name)
    assert len(found) == 3  # no skills, typical, at the minimum rank
    for got, levels in zip(found[:2], ({}, dict(card_opial.TYPICAL)), strict=True):
        want = []
        for rank in ranks:
            pool, mods, comp = card_opial.roll_setup(r, rank, levels)
            want.append(pct_cell(opial_cache.mission_success(m, pool, mods, comp)))
        assert got[-len(want):] == want
        medal = card_opial.medal_label(m.medal.targets, m.medal.automatic) if m.medal else DASH
        assert got[-len(want) - 2:-len(want)] == [medal, f"{m.survival}+"]
    want_min = []
    for lead in card_opial.MIN_RANK_LEADERSHIP:
        for comp in range(5):
            pool, mods, c = card_opial.roll_setup(r, ranks[0], {"leadership": lead,
                                                                "computer": comp})
            want_min.append(pct_cell(opial_cache.mission_success(m, pool, mods, c)))
    assert found[2] == [ranks[0].grade, *want_min]


def test_opial_sample_cells_straight_from_the_engine(opial_pdf: bytes) -> None:
    """A few cells recomputed by odds.mission_success itself, not through the cache."""
    r = card_opial.rules()
    ranks = card_opial.ranks_with_pool(r)
    for mission_id, rank_id in (("science", "lieutenant"), ("escort", "lieutenant"),
                                ("fighter_pilot", "lieutenant_commander")):
        m = r.mission(mission_id)
        rank = next(k for k in ranks if k.id == rank_id)
        col = ranks.index(rank) - m.min_rank
        for got, levels in zip(rows(opial_pdf, m.name)[:2], ({}, dict(card_opial.TYPICAL)),
                               strict=True):
            pool, mods, comp = card_opial.roll_setup(r, rank, levels)
            n = len(ranks) - m.min_rank
            assert got[-n:][col] == pct_cell(odds.mission_success(m, pool, mods, comp))


def test_opial_medal_and_survival_rows(opial_pdf: bytes) -> None:
    r = card_opial.rules()
    for targets, auto, _ms in card_opial.medal_rolls(r):
        (got,) = rows(opial_pdf, card_opial.medal_label(targets, auto))
        assert got == [pct_cell(odds.medal_success(targets, c, k))
                       for c in range(5) for k in range(5)]
    for t in card_opial.survival_targets(r):
        got = [g for g in rows(opial_pdf, f"{t}+") if len(g) == 20]
        assert got == [[pct_cell(odds.single_die_success(t, f, k))
                        for f in range(4) for k in range(5)]]


def test_opial_card_any_edition_is_the_same_card(opial_cache: OddsCache) -> None:
    a = sheets.render(KINDS["opial"], "earlier", "a5")
    assert a.pdf == sheets.render(KINDS["opial"], "later", "a5").pdf
    assert a.manifest.edition == "default"


# --- the Spacer card -------------------------------------------------------------------------
def test_spacer_card_numbers_are_the_engines() -> None:
    pdf = sheets.render(KINDS["spacer"], None, "letter").pdf
    for total in (2, 7, 11):
        label = card_spacer.dice_label(total)
        found = rows(pdf, label)
        ties = rows(pdf, label, italic=True)
        assert len(found) >= len(card_spacer.DEPARTMENTS)
        for dept, got, tie in zip(card_spacer.DEPARTMENTS, found, ties, strict=False):
            res = [against_difficulty(TaskSide(min(total, 7), total - min(total, 7), dept), x)
                   for x in card_spacer.DIFFICULTIES]
            assert got == [pct_cell(float(o.success)) for o in res], (total, dept)
            assert tie == [pct_cell(float(o.tie)) for o in res if float(o.tie) > 1e-9]
    # the big-target table: rows of (attribute + field, department)
    big = rows(pdf, card_spacer.dice_label(13))[-1]
    res = [against_difficulty(TaskSide(7, 6, 0), x) for x in card_spacer.BIG_DIFFICULTIES]
    assert big == ["0", *[pct_cell(float(o.success)) for o in res]]


# --- the pool card ---------------------------------------------------------------------------
@pytest.mark.parametrize(("label", "dice", "mastery", "blind"), [
    ("1d6", 1, False, False), ("3d6", 3, False, False), ("10d6", 10, False, False),
    ("8d6 mastery", 8, True, False), ("blind luck", 1, False, True)])
def test_pool_card_rows_are_the_engines(label: str, dice: int, mastery: bool,
                                        blind: bool) -> None:
    pdf = sheets.render(KINDS["pool"], None, "letter").pdf
    (got,) = rows(pdf, label)
    want = []
    for target in (4, 5, 6):
        for needed in range(5):
            want.append(pct_cell(float(pool_odds(PoolRoll(dice, target, needed, mastery=mastery,
                                                          blind_luck=blind)).success)))
        want.append(pct_cell(float(pool_odds(PoolRoll(dice, target, 0, mastery=mastery,
                                                      blind_luck=blind)).botch)))
    assert got == want
    assert card_pool.row_cells(dice, mastery, blind)[0] == \
        float(pool_odds(PoolRoll(dice, 4, 0, mastery=mastery, blind_luck=blind)).success)


# --- every card, every paper -----------------------------------------------------------------
@pytest.mark.parametrize("paper", PAPERS)
@pytest.mark.parametrize("system", list(KINDS))
def test_cards_are_clean_pdfs(system: str, paper: str, tmp_path: Path,
                              request: pytest.FixtureRequest) -> None:
    if system == "opial":
        request.getfixturevalue("opial_cache")
    result = sheets.render(KINDS[system], None, paper)
    assert result.overflows == ()
    assert result.manifest.regions == ()
    path = tmp_path / "card.pdf"
    path.write_bytes(result.pdf)
    if shutil.which("qpdf"):
        q = subprocess.run(["qpdf", "--check", str(path)], capture_output=True, text=True)
        assert q.returncode == 0, q.stdout + q.stderr
    reader = PdfReader(path)
    meta = reader.metadata
    assert meta is not None and meta.title and "odds card" in meta.title
    assert meta.subject == result.manifest.code and meta.author == "starsheets"
    fonts = {}
    for page in reader.pages:
        for font in page["/Resources"].get_object()["/Font"].get_object().values():
            font = font.get_object()
            desc = font["/FontDescriptor"].get_object() if "/FontDescriptor" in font else {}
            fonts[str(font["/BaseFont"])] = "/FontFile2" in desc
    assert fonts and all(fonts.values()), fonts  # every font embedded (TrueType)
    sizes = [size for *_r, size in text_items(result.pdf)]
    assert min(sizes) >= 6.5 - 1e-6


# --- the command -----------------------------------------------------------------------------
def test_print_odds_card_default_name(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "starsheets", "print", "odds-card", "--system",
                        "pool", "--paper", "a5"], capture_output=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "odds-card-pool-a5.pdf"
    assert out.is_file() and r.stdout == b""
    assert b"odds-card-pool-a5.pdf" in r.stderr
    assert len(PdfReader(out).pages) == 2


def test_print_odds_card_to_stdout(cli: Cli, tmp_path: Path) -> None:
    r = cli("print", "odds-card", "--system", "SPACER", "-o", "-", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(b"%PDF") and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("args", "words"), [
    (("print", "odds-card", "--system", "gurps"), "unknown --system 'gurps'"),
    (("print", "odds-card"), "needs --system"),
    (("print", "career", "--system", "pool"), "--system is for `print odds-card` only"),
    (("print", "odds-card", "--system", "opial", "--paper", "b5"), "unknown paper size"),
    (("print", "odds-card", "--system", "opial", "--edition", "newest"), "unknown OPIAL edition"),
    (("print", "odds-card", "--system", "pool", "--fillable"), "nothing to fill in"),
])
def test_odds_card_mistakes_are_one_line(args: tuple[str, ...], words: str, cli: Cli,
                                         tmp_path: Path) -> None:
    r = cli(*args, "-o", str(tmp_path / "x.pdf"), cwd=tmp_path)
    err = r.stderr.decode()
    assert r.returncode == int(ExitCode.USAGE), err
    assert err.count("\n") == 1 and err.startswith("starsheets: error:"), err
    assert words in err
    assert not (tmp_path / "x.pdf").exists()


# --- slow: the cold computation --------------------------------------------------------------
@pytest.mark.slow
def test_cold_cache_equals_the_engine_everywhere(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """From an empty cache directory: the card computes every entry, the file holds the
    engine's numbers bit for bit, and every mission cell of the card is the engine's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    computed, needed = card_opial.prepare()
    assert computed == needed and card_opial.missing_count() == 0
    cache = OddsCache.open()
    for key in card_opial.needed_keys(card_opial.rules()):
        assert cache.success(*key) == odds.success_by_rerolls(*key)
    assert cache.computed == 0
    r = card_opial.rules()
    pdf = sheets.render(KINDS["opial"], None, "a4").pdf
    for m in r.missions:
        found = rows(pdf, m.name)
        ranks = card_opial.ranks_with_pool(r)[m.min_rank:]
        for got, levels in zip(found[:2], ({}, dict(card_opial.TYPICAL)), strict=True):
            want = []
            for rank in ranks:
                pool, mods, comp = card_opial.roll_setup(r, rank, levels)
                want.append(pct_cell(odds.mission_success(m, pool, mods, comp)))
            assert got[-len(want):] == want, m.id
