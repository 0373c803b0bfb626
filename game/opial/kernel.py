"""Can these dice make this mission roll? The one feasibility check, compiled with numba.

A roll succeeds when every requirement (target, colour) gets its own die of that colour
(black = any) showing the target or more, after the player's skills are used well:

* Strategy flips one die to 6; Navigation flips one die per level to its opposite side
  (v -> 7 - v). Flips happen first, then +1 modifiers.
* Engineering / Administration / Gunnery give +1 per level to a green / blue / red die;
  Leadership +1 per level to any die. Each +1 is one use; uses may stack on a die.
* Liaison lets one coloured requirement take a die of any colour.

Choosing flips, the Liaison requirement, and which die meets which requirement is a
matching problem. Dominance makes it small: within a colour it is always best to flip
the lowest dice; for a fixed set of requirements on a colour, matching sorted targets to
that colour's highest dice in order minimises the +1s needed (the cost is convex); so
the search is over flip counts per colour, the Liaison choice, and which colour serves
each black requirement. The winning choice is reported so a roll can be narrated.
"""

from __future__ import annotations

import numpy as np
from numba import njit

B, G, R, K = 0, 1, 2, 3
COLOUR_INDEX = {"B": B, "G": G, "R": R, "K": K}
# Choice vector written by `feasible`: strategy colour (-1 none), Navigation flips on
# B, G, R, Liaison requirement index (-1 none), then per requirement the colour that
# serves it.
CHOICE_LEN = 5


MAXD = 16  # most dice a roll can have (10 + 3 extra, with room)
BUF_ROWS = 6  # work rows: dice B, G, R; bucket; black requirements; colour mods + counts


@njit(cache=True)
def _load_colour(buf: np.ndarray, col: int, vals: np.ndarray, n_nav: int, strat: int) -> int:
    """Write a colour's dice into buf[col] sorted descending, with the lowest n_nav
    flipped to 7-v and the next `strat` flipped to 6. Returns the dice count."""
    n = vals.shape[0]
    for i in range(n):
        v = vals[i]
        if i < n_nav:
            v = 7 - v
        elif i < n_nav + strat:
            v = 6
        # insertion sort, descending
        j = i
        while j > 0 and buf[col, j - 1] < v:
            buf[col, j] = buf[col, j - 1]
            j -= 1
        buf[col, j] = v
    return n


@njit(cache=True)
def _deficit(buf: np.ndarray, col: int, n_dice: int, bucket: np.ndarray, count: int) -> int:
    """+1s needed to meet `count` targets (bucket, descending) with the highest dice of
    the colour; -1 if there are too few dice."""
    if count > n_dice:
        return -1
    need = 0
    for i in range(count):
        d = bucket[i] - buf[col, i]
        if d > 0:
            need += d
    return need


@njit(cache=True)
def _boosts_suffice(buf: np.ndarray, lens: np.ndarray, req_t: np.ndarray, req_c: np.ndarray,
                    liaison_req: int, colour_mods: np.ndarray, lead: int,
                    assign_out: np.ndarray, bucket: np.ndarray, blacks: np.ndarray) -> bool:
    """Try every assignment of black requirements to colours; True if some assignment's
    +1 needs fit the colour modifiers plus Leadership (assign_out records it).
    req_t is sorted descending, so each colour's bucket is too."""
    n = req_t.shape[0]
    nb = 0
    for j in range(n):
        if req_c[j] == K or j == liaison_req:
            blacks[nb] = j
            nb += 1
        else:
            assign_out[j] = req_c[j]
    combos = 1
    for _ in range(nb):
        combos *= 3
    for code in range(combos):
        c = code
        for b in range(nb):
            assign_out[blacks[b]] = c % 3
            c //= 3
        cost = 0
        ok = True
        for col in range(3):
            cnt = 0
            for j in range(n):
                if assign_out[j] == col:
                    bucket[cnt] = req_t[j]
                    cnt += 1
            need = _deficit(buf, col, lens[col], bucket, cnt)
            if need < 0:
                ok = False
                break
            extra = need - colour_mods[col]
            if extra > 0:
                cost += extra
                if cost > lead:
                    ok = False
                    break
        if ok:
            return True
    return False


@njit(cache=True)
def _relaxed_reject(vb: np.ndarray, vg: np.ndarray, vr: np.ndarray, req_t: np.ndarray,
                    nav: int, strat: int, boosts: int, tmp: np.ndarray) -> bool:
    """True if even without colours, pooling every +1 and flipping the lowest dice, the
    roll cannot be made (a cheap proof of failure)."""
    n = 0
    for arr in (vb, vg, vr):
        for i in range(arr.shape[0]):
            tmp[n] = arr[i]
            n += 1
    tmp[:n].sort()
    flips = nav
    for i in range(n):
        if flips > 0 and tmp[i] < 4:
            tmp[i] = 7 - tmp[i]
            flips -= 1
    tmp[:n].sort()
    if strat > 0 and n > 0:
        tmp[0] = 6
        tmp[:n].sort()
    need = 0
    for i in range(req_t.shape[0]):
        d = req_t[i] - tmp[n - 1 - i]
        if d > 0:
            need += d
    return need > boosts


@njit(cache=True)
def feasible(vb: np.ndarray, vg: np.ndarray, vr: np.ndarray, req_t: np.ndarray,
             req_c: np.ndarray, mods: np.ndarray, choice: np.ndarray,
             assign_out: np.ndarray, buf: np.ndarray) -> bool:
    """Whether dice vb/vg/vr (each ascending) make the roll (req_t sorted descending)
    with modifiers mods = [lead, eng(G), adm(B), gun(R), nav, strat, liaison].
    buf: int64 work array of shape (BUF_ROWS, MAXD) (no allocation in the hot path)."""
    lead, eng, adm, gun, nav, strat, liaison = (mods[0], mods[1], mods[2], mods[3], mods[4],
                                                mods[5], mods[6])
    colour_mods = buf[5, 0:3]
    colour_mods[0] = adm
    colour_mods[1] = eng
    colour_mods[2] = gun
    counts = buf[5, 3:6]
    counts[0] = vb.shape[0]
    counts[1] = vg.shape[0]
    counts[2] = vr.shape[0]
    n = req_t.shape[0]
    if n > counts[0] + counts[1] + counts[2]:
        return False
    if _relaxed_reject(vb, vg, vr, req_t, nav, strat, lead + eng + adm + gun, buf[3]):
        return False
    dice = buf[:3]
    bucket = buf[3]
    blacks = buf[4]
    n_liaison = n + 1 if liaison > 0 else 1
    for s_col in range(-1, 3 if strat > 0 else 0):
        if s_col >= 0 and counts[s_col] == 0:
            continue
        for nb_ in range(0, min(nav, counts[0]) + 1):
            for ng_ in range(0, min(nav - nb_, counts[1]) + 1):
                for nr_ in range(0, min(nav - nb_ - ng_, counts[2]) + 1):
                    sb = 1 if s_col == B and nb_ < counts[0] else 0
                    sg = 1 if s_col == G and ng_ < counts[1] else 0
                    sr = 1 if s_col == R and nr_ < counts[2] else 0
                    _load_colour(dice, B, vb, nb_, sb)
                    _load_colour(dice, G, vg, ng_, sg)
                    _load_colour(dice, R, vr, nr_, sr)
                    for li in range(-1, n_liaison - 1):
                        if li >= 0 and req_c[li] == K:
                            continue
                        if _boosts_suffice(dice, counts, req_t, req_c, li, colour_mods, lead,
                                           assign_out, bucket, blacks):
                            choice[0] = s_col
                            choice[1] = nb_
                            choice[2] = ng_
                            choice[3] = nr_
                            choice[4] = li
                            return True
    return False


@njit(cache=True)
def feasible_all(states_b: np.ndarray, states_g: np.ndarray, states_r: np.ndarray,
                 req_t: np.ndarray, req_c: np.ndarray, mods: np.ndarray) -> np.ndarray:
    """feasible() for every combination of per-colour dice states (the DP's base case).
    states_x: (count, n_x) ascending values of each multiset of that colour."""
    mb, mg, mr = states_b.shape[0], states_g.shape[0], states_r.shape[0]
    out = np.zeros(mb * mg * mr, np.bool_)
    choice = np.empty(CHOICE_LEN, np.int64)
    assign = np.empty(req_t.shape[0], np.int64)
    buf = np.zeros((BUF_ROWS, MAXD), np.int64)
    for i in range(mb):
        for j in range(mg):
            for k in range(mr):
                out[(i * mg + j) * mr + k] = feasible(states_b[i], states_g[j], states_r[k],
                                                      req_t, req_c, mods, choice, assign, buf)
    return out
