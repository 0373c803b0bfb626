"""Simulating careers: the compiled engine's inputs, many careers, one narrated career."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

import templates
from game.opial import engine as E
from game.opial.odds import Mods, medal_success, single_die_success, success_by_rerolls
from game.opial.policy import Weights
from game.opial.rules import load_rules
from game.opial.state import FAILURE, SUCCESS, CareerState
from game.opial.tables import Tables, tables, tables_for, with_track

CACHE_VERSION = "2"
MAX_BOOST = 4  # the player's estimate counts up to four +1s
BLOCK = 25_000  # careers per block (progress bar granularity and memory per block)


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "starsheets"


def _base_odds(t: Tables) -> np.ndarray:
    """p[mission, rank, computer, boost]: exact success with the rank's pool, Computer and
    `boost` +1s on any die: the player's estimate of a mission (it counts its colour +1s as
    if they were Leadership); cached on disk, keyed by the rules data."""
    text = Path(templates.__file__).with_name("opial.yaml").read_bytes()
    key = hashlib.sha256(text + CACHE_VERSION.encode()).hexdigest()[:16]
    path = cache_dir() / f"opial-base-odds-{key}.npy"
    if path.exists():
        try:
            return np.load(path)
        except (OSError, ValueError):
            pass
    rules = t.rules
    p = np.zeros((t.n_missions, len(rules.ranks), 5, MAX_BOOST + 1))
    for m in rules.missions:
        reqs = tuple(sorted(((r.target, r.colour) for r in m.roll), reverse=True))
        for rank in rules.ranks[m.min_rank:]:
            pool = tuple(int(x) for x in t.rank_pool[rank.index])
            if sum(pool):
                for boost in range(MAX_BOOST + 1):
                    p[m.index, rank.index, :, boost] = success_by_rerolls(reqs, pool,
                                                                         Mods(lead=boost))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
        np.save(tmp, p)
        tmp.replace(path)
    except OSError:
        pass
    return p


@dataclass(frozen=True)
class Inputs:
    """Every array the compiled engine reads, built once per edition/length/start."""

    t: Tables
    length: str
    start: str
    cfg: np.ndarray
    arrays: tuple[np.ndarray, ...]


@cache
def inputs(edition: str | None = None, length: str = "career", start: str = "roll",
           weights: Weights | None = None, track: tuple[int, ...] | None = None) -> Inputs:
    """`track` replaces the rank thresholds (calibration only)."""
    t = tables(edition) if track is None else tables_for(with_track(load_rules(edition), track))
    rules = t.rules
    w = weights or Weights()
    opt = rules.start_option(start)
    cfg = np.zeros(E.CFG_LEN, np.int64)
    cfg[E.CFG_BASE_MISSIONS] = rules.base_missions
    cfg[E.CFG_TOUR_BOXES] = rules.tour_mission_boxes
    cfg[E.CFG_TOURS] = rules.game_lengths[length]
    cfg[E.CFG_TRACK] = rules.track_boxes
    cfg[E.CFG_GA] = len(rules.ranks) - 1
    cfg[E.CFG_CLONE_USES] = rules.clone_uses
    cfg[E.CFG_DISC_BOXES] = rules.discipline.boxes
    cfg[E.CFG_DISC_POINTS] = rules.discipline.points
    cfg[E.CFG_START_HOW] = 0 if opt.how == "roll" else 1
    cfg[E.CFG_START_COUNT] = opt.count
    cfg[E.CFG_TOUR_COUNT] = rules.tour_count
    for slot, idx in ((E.CFG_EFF, t.efficiency), (E.CFG_COMP, t.computer),
                      (E.CFG_FIT, t.fitness), (E.CFG_COUR, t.courage), (E.CFG_CLONE, t.clone),
                      (E.CFG_LEAD, t.leadership), (E.CFG_ENG, t.die_bonus["G"]),
                      (E.CFG_ADM, t.die_bonus["B"]), (E.CFG_GUN, t.die_bonus["R"]),
                      (E.CFG_NAV, t.navigation), (E.CFG_STRAT, t.strategy),
                      (E.CFG_LIAISON, t.liaison), (E.CFG_CMD, t.extra_die["B"]),
                      (E.CFG_ALIEN, t.extra_die["G"]), (E.CFG_TAC, t.extra_die["R"])):
        cfg[slot] = idx
    maxr = max(len(m.roll) for m in rules.missions)
    req_t = np.zeros((t.n_missions, maxr), np.int64)
    req_c = np.zeros((t.n_missions, maxr), np.int64)
    req_n = np.zeros(t.n_missions, np.int64)
    colour = {"B": 0, "G": 1, "R": 2, "K": 3}
    for m in rules.missions:
        reqs = sorted(((r.target, r.colour) for r in m.roll), reverse=True)
        req_n[m.index] = len(reqs)
        for j, (tg, c) in enumerate(reqs):
            req_t[m.index, j], req_c[m.index, j] = tg, colour[c]
    medal_t = np.zeros((t.n_missions, 2), np.int64)
    p_medal = np.zeros((t.n_missions, 5, 5))
    for i, targets in enumerate(t.medal_targets):
        if targets:
            medal_t[i] = targets[:2]
            for cg in range(5):
                for cp in range(5):
                    p_medal[i, cg, cp] = medal_success(targets, cg, cp)
    p_surv = np.array([[[single_die_success(x, f, cp) for cp in range(5)] for f in range(4)]
                       for x in range(8)])
    execp = np.zeros((t.n_missions, t.executed_points.shape[1] + 1), np.int64)
    execp[:, :-1] = t.executed_points
    arrays = (cfg, t.min_rank, t.boxes, t.promotion, t.skill, t.discipline, t.survival,
              t.medal, t.medal_auto, medal_t, execp, t.skill_max, t.rank_pool, t.thresholds,
              t.medal_boxes, req_t, req_c, req_n, t.start_skills,
              np.array(w.start_choice(t), np.int64), _base_odds(t), p_medal, p_surv,
              w.vector(t))
    return Inputs(t, length, start, cfg, arrays)


@dataclass
class Results:
    """Boxes of n careers (row i = career first+i)."""

    exec_count: np.ndarray
    exec_success: np.ndarray
    skills: np.ndarray
    medals: np.ndarray
    tour_missions: np.ndarray
    misc: np.ndarray  # promo, rank, discipline, clone, tours_done, end, ga_tour

    @classmethod
    def empty(cls, n: int, t: Tables) -> Results:
        z = np.zeros
        return cls(z((n, t.n_missions), np.int64), z((n, t.n_missions), np.int64),
                   z((n, t.n_skills), np.int64), z((n, len(t.rules.medals)), np.int64),
                   z((n, t.rules.tour_count), np.int64), z((n, 7), np.int64))

    def outputs(self) -> tuple[np.ndarray, ...]:
        return (self.exec_count, self.exec_success, self.skills, self.medals,
                self.tour_missions, self.misc)


def run(n: int, seed: int = 0, edition: str | None = None, length: str = "career",
        start: str = "roll", threads: int | None = None,
        on_block: Callable[[int], None] | None = None,
        track: tuple[int, ...] | None = None) -> tuple[Inputs, Results]:
    """Play careers 0..n-1 of `seed`; the same seed always gives the same careers."""
    from numba import get_num_threads, set_num_threads

    inp = inputs(edition, length, start, None, track)
    res = Results.empty(n, inp.t)
    old = get_num_threads()
    if threads:
        set_num_threads(max(1, min(threads, old)))
    try:
        for first in range(0, n, BLOCK):
            k = min(BLOCK, n - first)
            block = Results.empty(k, inp.t)
            E.run_block(first, k, np.uint64(seed), *inp.arrays, *block.outputs())
            for full, part in zip(res.outputs(), block.outputs(), strict=True):
                full[first:first + k] = part
            if on_block:
                on_block(k)
    finally:
        set_num_threads(old)
    return inp, res


def play_one(seed: int = 0, edition: str | None = None, length: str = "career",
             start: str = "roll") -> tuple[Inputs, Results, np.ndarray]:
    """One career (career number 0 of `seed`) with its event log, for narration."""
    inp = inputs(edition, length, start)
    res = Results.empty(1, inp.t)
    events = np.zeros((E.EV_MAX, E.EV_WIDTH), np.int64)
    n_ev = np.zeros(1, np.int64)
    E._career(0, 0, np.uint64(seed), *inp.arrays, *res.outputs(), events, n_ev)
    return inp, res, events[: n_ev[0]]


def to_state(inp: Inputs, res: Results, i: int, name: str = "") -> CareerState:
    """The career page of row i, box by box."""
    rules = inp.t.rules
    missions = {}
    for m in rules.missions:
        n = int(res.exec_count[i, m.index])
        bits = int(res.exec_success[i, m.index])
        if n:
            missions[m.id] = "".join(SUCCESS if bits >> k & 1 else FAILURE for k in range(n))
    promo, _, disc, clone, tours_done, _, _ = (int(x) for x in res.misc[i])
    tm = [int(x) for x in res.tour_missions[i]]
    while tm and tm[-1] == 0:
        tm.pop()
    return CareerState(
        edition=rules.edition, length=inp.length, start=inp.start, name=name,
        tours=tuple(range(1, tours_done + 1)), tour_missions=tuple(tm),
        promotion=tuple(range(1, promo + 1)), missions=missions,
        skills={s.id: tuple(range(1, int(res.skills[i, s.index]) + 1)) for s in rules.skills
                if res.skills[i, s.index]},
        medals={md.id: tuple(range(1, int(res.medals[i, j]) + 1))
                for j, md in enumerate(rules.medals) if res.medals[i, j]},
        discipline=tuple(range(1, disc + 1)), clone=tuple(range(1, clone + 1)))


def totals(inp: Inputs, res: Results) -> np.ndarray:
    """Every career's Grand Total at once, line by line as `scoring.score` adds it up and
    from the same rules tables (the tests hold the two equal career by career): scoring a
    million careers one state at a time takes longer than playing them."""
    rules = inp.t.rules
    promo = res.misc[:, 0]
    ga = promo >= rules.grand_admiral.threshold
    tm = res.tour_missions != 0
    last_ticked = np.where(tm.any(axis=1), tm.shape[1] - np.argmax(tm[:, ::-1], axis=1), 0)
    tour = np.maximum(res.misc[:, 4], last_ticked)
    bonus = np.array([rules.tour_bonus(t) for t in range(int(tour.max(initial=0)) + 1)])
    total = np.where(ga, bonus[tour] + rules.rank_bonus, 0) + 2 * promo
    for m in rules.missions:  # the points of the successful boxes among the first executed
        masks = np.arange(1 << m.boxes)
        table = sum(((masks >> i) & 1) * pts for i, pts in enumerate(m.executed))
        shown = (1 << np.minimum(res.exec_count[:, m.index], m.boxes)) - 1
        total = total + table[res.exec_success[:, m.index] & shown]
    for sk in rules.skills:
        cum = np.concatenate([[0], np.cumsum(sk.levels)])
        total = total + cum[np.minimum(res.skills[:, sk.index], sk.max_level)]
    for j, md in enumerate(rules.medals):
        total = total + (res.medals[:, j] // md.per) * md.points
    return total + res.misc[:, 2] * rules.discipline.points


def random_states(n: int, seed: int = 0, edition: str | None = None,
                  length: str = "career", start: str = "roll") -> list[CareerState]:
    """n honest career pages (for tests, samples and the scanner's corpus)."""
    inp, res = run(n, seed, edition, length, start)
    return [to_state(inp, res, i) for i in range(n)]
