"""The career engine: plays OPIAL careers with real dice, compiled with numba.

One engine serves the statistics simulator (millions of careers, in parallel) and the
narrated career (one career with an event log); both follow the rules in one order:

    pick a mission -> tick it above the tour and in Executed -> roll the ship's dice
    (+ extra dice from Command / Alien Tech / Tactics), re-roll with Computer while the
    roll fails -> the kernel decides success, using flips and +1s optimally ->
    on success: promotion, skill, medal roll (Courage, Computer); on a failed
    Training/Aid: discipline -> Grand Admiral ends the career -> survival roll (Fitness,
    Computer; Clone saves a failure) -> tour box when the tour's missions are done ->
    game end (game length, death, or no mission left for the rank)

The player (policy) judges missions by their exact base odds for the rank's pool and
Computer level (odds.base_odds), the points at stake and the risk of dying.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from game.opial.kernel import BUF_ROWS, CHOICE_LEN, MAXD, feasible

RUNNING, DIED, COMPLETED, GRAND_ADMIRAL, NO_MISSIONS = 0, 1, 2, 3, 4
END_NAMES = {DIED: "failed a survival roll", COMPLETED: "served every tour",
             GRAND_ADMIRAL: "reached Grand Admiral", NO_MISSIONS: "no mission left for the rank"}

# Event log (narration): one row per event, EV_WIDTH ints.
EV_WIDTH = 24
EV_START, EV_MISSION, EV_ROLL, EV_REROLL, EV_RESULT, EV_PROMOTION, EV_SKILL = 1, 2, 3, 4, 5, 6, 7
EV_MEDAL, EV_DISCIPLINE, EV_SURVIVAL, EV_CLONE, EV_TOUR, EV_END = 8, 9, 10, 11, 12, 13
EV_MAX = 1200

# Indices into the `cfg` vector (scalars the engine needs).
(CFG_BASE_MISSIONS, CFG_TOUR_BOXES, CFG_TOURS, CFG_TRACK, CFG_GA, CFG_CLONE_USES,
 CFG_DISC_BOXES, CFG_START_HOW, CFG_START_COUNT, CFG_EFF, CFG_COMP, CFG_FIT, CFG_COUR,
 CFG_CLONE, CFG_LEAD, CFG_ENG, CFG_ADM, CFG_GUN, CFG_NAV, CFG_STRAT, CFG_LIAISON, CFG_CMD,
 CFG_ALIEN, CFG_TAC, CFG_DISC_POINTS, CFG_TOUR_COUNT, CFG_LEN) = range(27)


@njit(cache=True)
def _next(state: np.ndarray) -> np.uint64:
    """xorshift64* step on state[0] (a per-career generator: reproducible in parallel)."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)


@njit(cache=True)
def _seed(seed: np.uint64, index: np.uint64) -> np.uint64:
    """splitmix64 of (seed, index): independent streams for each career."""
    z = seed * np.uint64(0x9E3779B97F4A7C15) + index + np.uint64(0x632BE59BD9B4E019)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return z if z != 0 else np.uint64(1)


@njit(cache=True)
def _die(state: np.ndarray) -> int:
    return int((_next(state) >> np.uint64(11)) % np.uint64(6)) + 1


@njit(cache=True)
def _log(events: np.ndarray, n_ev: np.ndarray, kind: int, a: int = 0, b: int = 0, c: int = 0,
         d: int = 0, e: int = 0) -> int:
    i = n_ev[0]
    if events.shape[0] == 0 or i >= events.shape[0]:
        return -1
    events[i, 0] = kind
    events[i, 1] = a
    events[i, 2] = b
    events[i, 3] = c
    events[i, 4] = d
    events[i, 5] = e
    n_ev[0] = i + 1
    return i


@njit(cache=True)
def _sort_asc(a: np.ndarray, n: int) -> None:
    for i in range(1, n):
        v = a[i]
        j = i
        while j > 0 and a[j - 1] > v:
            a[j] = a[j - 1]
            j -= 1
        a[j] = v


@njit(cache=True)
def _mission_roll(rng: np.ndarray, pool: np.ndarray, req_t: np.ndarray, req_c: np.ndarray,
                  mods: np.ndarray, rerolls: int, events: np.ndarray, n_ev: np.ndarray,
                  dice_c: np.ndarray, dice_v: np.ndarray, buf: np.ndarray,
                  choice: np.ndarray, assign: np.ndarray, used: np.ndarray,
                  sorted_dice: np.ndarray) -> bool:
    """Roll the pool, re-roll with Computer (up to `rerolls`) while failing, and decide
    success; used[0] receives the re-rolls spent."""
    n = 0
    for col in range(3):
        for _ in range(pool[col]):
            dice_c[n] = col
            dice_v[n] = _die(rng)
            n += 1
    ev = _log(events, n_ev, EV_ROLL, n)
    if ev >= 0:
        for i in range(n):
            events[ev, 2 + i] = dice_c[i] * 10 + dice_v[i]
    # colours that can serve a requirement (any colour if a black one or Liaison)
    useful_mask = 0
    for j in range(req_t.shape[0]):
        if req_c[j] == 3 or mods[6] > 0:
            useful_mask = 7
        else:
            useful_mask |= 1 << req_c[j]
    vb = sorted_dice[0]
    vg = sorted_dice[1]
    vr = sorted_dice[2]
    left = rerolls
    while True:
        nb = ng = nr = 0
        for i in range(n):
            if dice_c[i] == 0:
                vb[nb] = dice_v[i]
                nb += 1
            elif dice_c[i] == 1:
                vg[ng] = dice_v[i]
                ng += 1
            else:
                vr[nr] = dice_v[i]
                nr += 1
        _sort_asc(vb, nb)
        _sort_asc(vg, ng)
        _sort_asc(vr, nr)
        ok = feasible(vb[:nb], vg[:ng], vr[:nr], req_t, req_c, mods, choice, assign, buf)
        if ok or left == 0:
            used[0] = rerolls - left
            return ok
        # sensible re-roll: the lowest die of a colour that can serve a requirement
        # (with Navigation, a 1 is kept: it flips to a 6)
        best = -1
        best_v = 99
        for i in range(n):
            v = dice_v[i]
            eff = max(v, 7 - v) if mods[4] > 0 and v == 1 else v
            if (useful_mask >> dice_c[i]) & 1 and eff < best_v:
                best_v = eff
                best = i
        if best < 0:
            used[0] = rerolls - left
            return False
        old = dice_v[best]
        dice_v[best] = _die(rng)
        _log(events, n_ev, EV_REROLL, best, dice_c[best], old, dice_v[best])
        left -= 1


@njit(cache=True)
def _survival_roll(rng: np.ndarray, target: int, bonus: int, rerolls: int,
                   events: np.ndarray, n_ev: np.ndarray, used: np.ndarray) -> bool:
    v = _die(rng)
    tries = 0
    while v + bonus < target and tries < rerolls:
        v = _die(rng)
        tries += 1
    ok = v + bonus >= target
    used[0] = tries
    _log(events, n_ev, EV_SURVIVAL, v, bonus, target, tries, 1 if ok else 0)
    return ok


@njit(cache=True)
def _medal_roll(rng: np.ndarray, t1: int, t2: int, bonus: int, rerolls: int,
                events: np.ndarray, n_ev: np.ndarray, used: np.ndarray) -> bool:
    """Two dice, each plus Courage must make its target; re-roll the weaker die."""
    a = _die(rng)
    b = _die(rng)
    tries = 0
    while (a + bonus < t1 or b + bonus < t2) and tries < rerolls:
        if a + bonus - t1 <= b + bonus - t2:
            a = _die(rng)
        else:
            b = _die(rng)
        tries += 1
    ok = a + bonus >= t1 and b + bonus >= t2
    used[0] = tries
    _log(events, n_ev, EV_MEDAL, a, b, bonus, tries, 1 if ok else 0)
    return ok


@njit(cache=True)
def _choose(rank: int, skills: np.ndarray, exec_count: np.ndarray, tour: int, in_tour: int,
            clone_used: int, cfg: np.ndarray, min_rank: np.ndarray, boxes: np.ndarray,
            promotion: np.ndarray, skill: np.ndarray, skill_max: np.ndarray,
            discipline: np.ndarray, survival: np.ndarray, executed_points: np.ndarray,
            p_base: np.ndarray, p_medal: np.ndarray, p_surv: np.ndarray,
            worth: np.ndarray, tours_max: int) -> int:
    """The sensible player's pick: the mission with the best expected worth for its risk.
    worth = [promotion point, future attempt, skill gain per mission..., medal per mission...]"""
    m_count = min_rank.shape[0]
    comp = min(skills[cfg[CFG_COMP]], 4)
    boost = min(skills[cfg[CFG_LEAD]] + skills[cfg[CFG_ENG]] + skills[cfg[CFG_ADM]]
                + skills[cfg[CFG_GUN]], p_base.shape[3] - 1)
    fit = min(skills[cfg[CFG_FIT]], 3)
    cour = min(skills[cfg[CFG_COUR]], 4)
    per_tour = min(cfg[CFG_BASE_MISSIONS] + skills[cfg[CFG_EFF]], cfg[CFG_TOUR_BOXES])
    remaining = (tours_max - tour) * per_tour + (per_tour - in_tour)
    clone_left = clone_used < min(skills[cfg[CFG_CLONE]], cfg[CFG_CLONE_USES])
    best = -1
    best_val = -1e18
    for m in range(m_count):
        if min_rank[m] > rank or exec_count[m] >= boxes[m]:
            continue
        p = p_base[m, rank, comp, boost]
        gain = worth[0] * promotion[m] + executed_points[m, exec_count[m]]
        s = skill[m]
        if s >= 0 and skills[s] < skill_max[s]:
            gain += worth[2 + m]
        gain += p_medal[m, cour, comp] * worth[2 + m_count + m]
        val = p * gain
        if discipline[m]:
            val -= (1.0 - p) * -cfg[CFG_DISC_POINTS]
        if not clone_left:
            val -= (1.0 - p_surv[survival[m], fit, comp]) * remaining * worth[1]
        if val > best_val:
            best_val = val
            best = m
    return best


@njit(cache=True)
def _career(row: int, number: int, seed: np.uint64, cfg: np.ndarray, min_rank: np.ndarray,
            boxes: np.ndarray, promotion: np.ndarray, skill: np.ndarray, discipline: np.ndarray,
            survival: np.ndarray, medal: np.ndarray, medal_auto: np.ndarray,
            medal_t: np.ndarray, executed_points: np.ndarray, skill_max: np.ndarray,
            rank_pool: np.ndarray, thresholds: np.ndarray, medal_boxes: np.ndarray,
            req_t: np.ndarray, req_c: np.ndarray, req_n: np.ndarray, start_skills: np.ndarray,
            start_choice: np.ndarray, p_base: np.ndarray, p_medal: np.ndarray,
            p_surv: np.ndarray, worth: np.ndarray,
            o_exec: np.ndarray, o_succ: np.ndarray, o_skills: np.ndarray, o_medals: np.ndarray,
            o_tm: np.ndarray, o_misc: np.ndarray, events: np.ndarray, n_ev: np.ndarray) -> None:
    """Play career `number` to its end, writing its boxes into row `row` of the o_*
    arrays. Its dice depend only on (seed, number), so results never depend on how the
    careers are split into blocks or threads."""
    rng = np.empty(1, np.uint64)
    rng[0] = _seed(seed, np.uint64(number))
    skills = o_skills[row]
    exec_count = o_exec[row]
    succ = o_succ[row]
    medals = o_medals[row]
    tm = o_tm[row]
    tours_max = cfg[CFG_TOURS]
    ga = cfg[CFG_GA]
    buf = np.zeros((BUF_ROWS, MAXD), np.int64)
    sorted_dice = np.zeros((3, MAXD), np.int64)
    choice = np.empty(CHOICE_LEN, np.int64)
    assign = np.empty(8, np.int64)
    dice_c = np.empty(MAXD, np.int64)
    dice_v = np.empty(MAXD, np.int64)
    mods = np.zeros(7, np.int64)
    pool = np.zeros(3, np.int64)
    used = np.zeros(1, np.int64)
    # start skill(s)
    for k in range(cfg[CFG_START_COUNT]):
        face = _die(rng) if cfg[CFG_START_HOW] == 0 else start_choice[k]
        s = start_skills[face - 1]
        if skills[s] < skill_max[s]:
            skills[s] += 1
        _log(events, n_ev, EV_START, face, s, skills[s])
    promo = 0
    rank = 0
    tour = 1
    in_tour = 0
    disc = 0
    clone_used = 0
    tours_done = 0
    end = RUNNING
    ga_tour = 0
    while end == RUNNING:
        m = _choose(rank, skills, exec_count, tour, in_tour, clone_used, cfg, min_rank, boxes,
                    promotion, skill, skill_max, discipline, survival, executed_points,
                    p_base, p_medal, p_surv, worth, tours_max)
        if m < 0:
            end = NO_MISSIONS
            tours_done = tour - 1
            break
        box = exec_count[m]
        exec_count[m] += 1
        tm[tour - 1] += 1
        in_tour += 1
        _log(events, n_ev, EV_MISSION, tour, in_tour, m, rank, box + 1)
        pool[0] = rank_pool[rank, 0] + min(skills[cfg[CFG_CMD]], 1)
        pool[1] = rank_pool[rank, 1] + min(skills[cfg[CFG_ALIEN]], 1)
        pool[2] = rank_pool[rank, 2] + min(skills[cfg[CFG_TAC]], 1)
        mods[0] = skills[cfg[CFG_LEAD]]
        mods[1] = skills[cfg[CFG_ENG]]
        mods[2] = skills[cfg[CFG_ADM]]
        mods[3] = skills[cfg[CFG_GUN]]
        mods[4] = skills[cfg[CFG_NAV]]
        mods[5] = skills[cfg[CFG_STRAT]]
        mods[6] = skills[cfg[CFG_LIAISON]]
        rt = req_t[m, : req_n[m]]
        rc = req_c[m, : req_n[m]]
        # Computer: one re-roll per level during the mission, shared by the mission,
        # medal and survival rolls; keep one back when the survival roll can fail
        budget = skills[cfg[CFG_COMP]]
        keep = 1 if budget > 0 and survival[m] - skills[cfg[CFG_FIT]] > 1 else 0
        ok = _mission_roll(rng, pool, rt, rc, mods, budget - keep, events, n_ev,
                           dice_c, dice_v, buf, choice, assign, used, sorted_dice)
        budget -= used[0]
        ev = _log(events, n_ev, EV_RESULT, 1 if ok else 0, m)
        if ev >= 0 and ok:
            for q in range(CHOICE_LEN):
                events[ev, 3 + q] = choice[q]
        if ok:
            succ[m] |= 1 << box
            promo = min(promo + promotion[m], cfg[CFG_TRACK])
            new_rank = rank
            while new_rank + 1 < thresholds.shape[0] and promo >= thresholds[new_rank + 1]:
                new_rank += 1
            _log(events, n_ev, EV_PROMOTION, promotion[m], promo, new_rank, rank)
            rank = new_rank
            s = skill[m]
            if s >= 0:
                if skills[s] < skill_max[s]:
                    skills[s] += 1
                    _log(events, n_ev, EV_SKILL, s, skills[s], 1)
                else:
                    _log(events, n_ev, EV_SKILL, s, skills[s], 0)
            md = medal[m]
            if md >= 0:
                made = _medal_roll(rng, medal_t[m, 0], medal_t[m, 1], skills[cfg[CFG_COUR]],
                                   budget - keep, events, n_ev, used)
                budget -= used[0]
                award = (1 if made else 0) + (1 if medal_auto[m] else 0)
                got = min(award, medal_boxes[md] - medals[md])
                medals[md] += got
                if ev >= 0:
                    events[n_ev[0] - 1, 6] = md
                    events[n_ev[0] - 1, 7] = got
        elif discipline[m]:
            if disc < cfg[CFG_DISC_BOXES]:
                disc += 1
            _log(events, n_ev, EV_DISCIPLINE, disc)
        per_tour = min(cfg[CFG_BASE_MISSIONS] + skills[cfg[CFG_EFF]], cfg[CFG_TOUR_BOXES])
        tour_end = in_tour >= per_tour
        if rank == ga:
            ga_tour = tour
            tours_done = tour if tour_end else tour - 1
            if tour_end:
                _log(events, n_ev, EV_TOUR, tour)
            end = GRAND_ADMIRAL
            break
        alive = _survival_roll(rng, survival[m], skills[cfg[CFG_FIT]], budget, events, n_ev,
                               used)
        if not alive:
            if clone_used < min(skills[cfg[CFG_CLONE]], cfg[CFG_CLONE_USES]):
                clone_used += 1
                _log(events, n_ev, EV_CLONE, clone_used)
            else:
                end = DIED
                tours_done = tour - 1
                break
        if tour_end:
            tours_done = tour
            _log(events, n_ev, EV_TOUR, tour)
            tour += 1
            in_tour = 0
            if tour > tours_max:
                end = COMPLETED
                break
    _log(events, n_ev, EV_END, end, tour, ga_tour)
    o_misc[row, 0] = promo
    o_misc[row, 1] = rank
    o_misc[row, 2] = disc
    o_misc[row, 3] = clone_used
    o_misc[row, 4] = tours_done
    o_misc[row, 5] = end
    o_misc[row, 6] = ga_tour


@njit(cache=True, parallel=True)
def run_block(first: int, n: int, seed: np.uint64, cfg: np.ndarray, min_rank: np.ndarray,
              boxes: np.ndarray, promotion: np.ndarray, skill: np.ndarray,
              discipline: np.ndarray, survival: np.ndarray, medal: np.ndarray,
              medal_auto: np.ndarray, medal_t: np.ndarray, executed_points: np.ndarray,
              skill_max: np.ndarray, rank_pool: np.ndarray, thresholds: np.ndarray,
              medal_boxes: np.ndarray, req_t: np.ndarray, req_c: np.ndarray,
              req_n: np.ndarray, start_skills: np.ndarray, start_choice: np.ndarray,
              p_base: np.ndarray, p_medal: np.ndarray, p_surv: np.ndarray, worth: np.ndarray,
              o_exec: np.ndarray, o_succ: np.ndarray, o_skills: np.ndarray,
              o_medals: np.ndarray, o_tm: np.ndarray, o_misc: np.ndarray) -> None:
    """Careers first..first+n-1 into rows 0..n-1, in parallel."""
    no_events = np.zeros((0, EV_WIDTH), np.int64)
    for k in prange(n):
        n_ev = np.zeros(1, np.int64)
        _career(k, first + k, seed, cfg, min_rank, boxes, promotion, skill, discipline,
                survival, medal, medal_auto, medal_t, executed_points, skill_max, rank_pool,
                thresholds, medal_boxes, req_t, req_c, req_n, start_skills, start_choice,
                p_base, p_medal, p_surv, worth, o_exec, o_succ, o_skills, o_medals, o_tm,
                o_misc, no_events, n_ev)
