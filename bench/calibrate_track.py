"""Calibrate the promotion track: for candidate rank thresholds, print the fastest possible
Grand Admiral (every roll made) and what the sensible player achieves in 15-tour careers.

    .venv/bin/python bench/calibrate_track.py [--n 20000] [--seed 7]

The chosen track is in templates/opial.yaml; this run is quoted in docs/rules.md.
"""

from __future__ import annotations

import argparse
import collections

import numpy as np

from game.opial.rules import load_rules
from game.opial.scoring import score
from game.opial.simulate import run, to_state
from game.opial.tables import with_track

CANDIDATES = {
    "A 60": (0, 3, 8, 13, 18, 24, 30, 37, 44, 52, 60),
    "B 66": (0, 3, 8, 13, 19, 26, 33, 41, 49, 57, 66),
    "C 72": (0, 3, 8, 14, 21, 28, 36, 44, 53, 62, 72),
    "D 78": (0, 3, 8, 14, 21, 29, 38, 47, 57, 67, 78),
    "E 84": (0, 3, 8, 14, 21, 29, 38, 48, 59, 71, 84),
}


def fastest_tour(track: tuple[int, ...]) -> int | None:
    """Tour in which a career whose every roll succeeds first reaches Grand Admiral:
    Security until Efficiency 2, then always the most promotion points available."""
    rules = with_track(load_rules(), track)
    pts, eff = 0, 0
    left = {m.id: m.boxes for m in rules.missions}
    for tour in range(1, rules.tour_count + 1):
        done = 0
        while done < rules.missions_per_tour(eff):
            rank = rules.rank_for(pts)
            if rank.index == len(rules.ranks) - 1:
                return tour
            avail = [m for m in rules.missions if m.min_rank <= rank.index and left[m.id]]
            if not avail:
                return None
            sec = rules.mission("security")
            m = sec if eff < 2 and left[sec.id] else max(avail, key=lambda m: (m.promotion, m.min_rank))
            left[m.id] -= 1
            pts += m.promotion
            done += 1
            if m.id == "security" and eff < 2:
                eff += 1
    return tour if rules.rank_for(pts).index == len(rules.ranks) - 1 else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    titles = [t.name for t in load_rules().titles]
    print(f"{'track':6} {'fastest':>7} {'GA %':>6} {'GA tour p50':>11} {'mean':>6} {'p50':>5} "
          f"{'p90':>5} {'max':>5}  " + " ".join(f"{t[:5]:>6}" for t in titles))
    for label, track in CANDIDATES.items():
        inp, res = run(args.n, args.seed, track=track)
        rules = inp.t.rules
        totals = np.array([score(to_state(inp, res, i), rules).total for i in range(args.n)])
        ga = res.misc[:, 5] == 3
        dist = collections.Counter(rules.title_for(int(x)).name for x in totals)
        ga_tour = np.median(res.misc[ga, 6]) if ga.any() else float("nan")
        print(f"{label:6} {fastest_tour(track)!s:>7} {100 * ga.mean():6.1f} {ga_tour:11.0f} "
              f"{totals.mean():6.1f} {np.median(totals):5.0f} {np.percentile(totals, 90):5.0f} "
              f"{totals.max():5d}  " + " ".join(f"{100 * dist[t] / args.n:5.1f}%" for t in titles))


if __name__ == "__main__":
    main()
