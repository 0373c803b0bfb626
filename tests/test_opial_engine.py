"""The compiled OPIAL career engine (game/opial/engine.py) through game/opial/simulate.py,
and narration (game/opial/narrate.py): reproducibility, round trips through the file
format and the mark ids, how careers end, and the story of one career."""

from __future__ import annotations

import json
import re
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.opial import engine as E
from game.opial import simulate
from game.opial.marks import marks_to_state, regions, state_to_marks
from game.opial.narrate import narrate
from game.opial.rules import load_rules
from game.opial.scoring import score
from game.opial.simulate import play_one, random_states, run, to_state
from game.opial.state import CareerState

STARTS = ["roll", "easier", "easier_yet", "still_easier_yet"]
ENDS = {E.DIED, E.COMPLETED, E.GRAND_ADMIRAL, E.NO_MISSIONS}


def same(a: simulate.Results, b: simulate.Results, rows: int | None = None) -> bool:
    return all(np.array_equal(x[:rows], y[:rows]) for x, y in zip(a.outputs(), b.outputs(),
                                                                    strict=True))


@cache
def sample(edition: str = "later", length: str = "career", start: str = "roll",
           n: int = 400, seed: int = 21):
    return run(n, seed, edition, length, start)


# --- reproducibility ---------------------------------------------------------------------

def test_same_seed_same_careers() -> None:
    _, a = run(300, 5)
    _, b = run(300, 5)
    assert same(a, b)
    _, c = run(300, 6)
    assert not same(a, c)


def test_independent_of_threads() -> None:
    _, one = run(300, 8, threads=1)
    _, many = run(300, 8)
    assert same(one, many)


def test_prefix_of_a_longer_run() -> None:
    _, short = run(250, 9)
    _, long = run(500, 9)
    assert same(short, long, 250)


def test_independent_of_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    _, whole = run(230, 10)
    monkeypatch.setattr(simulate, "BLOCK", 64)
    calls: list[int] = []
    _, split = run(230, 10, on_block=calls.append)
    assert calls == [64, 64, 64, 38]
    assert same(whole, split)


def test_play_one_is_career_zero_of_its_seed() -> None:
    _inp, res, events = play_one(4)
    _, many = run(3, 4)
    assert same(res, many, 1)
    _, _res2, events2 = play_one(4)
    assert np.array_equal(events, events2)


def test_random_states_are_run_states() -> None:
    states = random_states(20, 3, "earlier", "short", "easier")
    inp, res = run(20, 3, "earlier", "short", "easier")
    assert states == [to_state(inp, res, i) for i in range(20)]
    assert {s.edition for s in states} == {"earlier"}
    assert {s.length for s in states} == {"short"} and {s.start for s in states} == {"easier"}


# --- round trips ----------------------------------------------------------------------------

@pytest.mark.parametrize("edition", ["later", "earlier"])
@pytest.mark.parametrize("length", ["career", "short"])
@pytest.mark.parametrize("start", STARTS)
def test_states_round_trip_file_format_and_marks(edition: str, length: str, start: str) -> None:
    inp, res = sample(edition, length, start, 400)
    rules = load_rules(edition)
    ids = {r.id for r in regions(rules)}
    for i in range(0, 400, 10):
        state = to_state(inp, res, i, name=f"Cadet {i}")
        text = json.dumps(state.to_dict())
        assert CareerState.from_dict(json.loads(text)) == state
        marks = state_to_marks(state, rules)
        assert set(marks) == ids
        assert marks_to_state(marks, rules) == state
        with_score = state.with_changes(written={ln.key: ln.points
                                                 for ln in score(state, rules).lines})
        assert marks_to_state(state_to_marks(with_score, rules), rules) == with_score
        assert CareerState.from_dict(with_score.to_dict()) == with_score


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**40))
def test_round_trip_any_seed(seed: int) -> None:
    rules = load_rules()
    for state in random_states(30, seed):
        assert CareerState.from_dict(state.to_dict()) == state
        assert marks_to_state(state_to_marks(state, rules), rules) == state


# --- how careers end ------------------------------------------------------------------------

@pytest.mark.parametrize("length", ["career", "short"])
@pytest.mark.parametrize("start", STARTS)
def test_careers_end_for_one_of_the_reasons(length: str, start: str) -> None:
    inp, res = sample("later", length, start, 300)
    rules = inp.t.rules
    tours_max = rules.game_lengths[length]
    for i in range(300):
        promo, rank, disc, clone, tours_done, end, ga_tour = (int(x) for x in res.misc[i])
        state = to_state(inp, res, i)
        assert end in ENDS, i
        assert rank == rules.rank_for(promo).index
        assert state.tours == tuple(range(1, tours_done + 1))
        assert state.tours_started <= tours_max
        assert (end == E.GRAND_ADMIRAL) == (promo >= rules.grand_admiral.threshold)
        if end == E.COMPLETED:
            assert tours_done == tours_max and len(state.tour_missions) == tours_max
        elif end == E.DIED:
            # every Clone level (up to two) was spent before dying
            level = state.skill_level("clone")
            assert clone == min(level, rules.clone_uses)
            assert tours_done == state.tours_started - 1
        elif end == E.NO_MISSIONS:
            left = [m for m in rules.missions if m.min_rank <= rank
                    and len(state.executed(m.id)) < m.boxes]
            assert left == []
        else:
            assert ga_tour == state.tours_started
        if end != E.GRAND_ADMIRAL:
            assert ga_tour == 0
        assert len(state.discipline) == disc and len(state.clone) == clone


def test_grand_admiral_careers_end_in_the_tour_they_reach_it() -> None:
    inp, res = sample("later", "career", "roll", 400)
    rules = inp.t.rules
    ga = [i for i in range(400) if res.misc[i, 5] == E.GRAND_ADMIRAL]
    assert len(ga) > 50  # most careful careers get there (docs/rules.md O4)
    mid_tour = 0
    for i in ga:
        state = to_state(inp, res, i)
        tour = int(res.misc[i, 6])
        assert 7 <= tour <= 15
        assert state.tours_started == tour  # nothing ticked after the Grand Admiral tour
        assert len(state.tour_missions) == tour
        assert max(state.tours, default=0) in (tour - 1, tour)
        mid_tour += max(state.tours, default=0) == tour - 1
        sc = score(state, rules)
        assert sc.grand_admiral and sc.line("tours_bonus").points == rules.tour_bonus(tour)
        assert sc.line("rank_bonus").points == rules.rank_bonus
        # the last mission reached the rank: without its points the track stops short
        assert state.promotion_points == rules.grand_admiral.threshold
    assert mid_tour > 0


def test_short_game_stops_at_seven_tours() -> None:
    _inp, res = sample("later", "short", "roll", 400)
    assert res.misc[:, 4].max() <= 7
    assert (res.tour_missions[:, 7:] == 0).all()
    assert (res.misc[:, 5] == E.COMPLETED).any()


def test_start_options_give_their_skill_levels() -> None:
    rules = load_rules()
    chart = {s.index for s in rules.start_skills}
    for start, count in (("roll", 1), ("easier", 1), ("easier_yet", 2), ("still_easier_yet", 2)):
        _, _, events = play_one(12, "later", "career", start)
        starts = [ev for ev in events if ev[0] == E.EV_START]
        assert len(starts) == count
        assert all(int(ev[2]) in chart for ev in starts)


# --- narration ------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 3, 17, 2024])
def test_narration_mentions_each_mission_flown(seed: int) -> None:
    inp, res, events = play_one(seed)
    rules = inp.t.rules
    state = to_state(inp, res, 0, name="Dan")
    lines = list(narrate(events, rules, "Dan"))
    flown = [ln for ln in lines if re.match(r"\s+Mission \d+: ", ln)]
    assert len(flown) == sum(len(v) for v in state.missions.values())
    for m in rules.missions:
        for k, outcome in enumerate(state.executed(m.id), start=1):
            hits = [i for i, ln in enumerate(lines) if f"{m.name} (Executed box {k})" in ln]
            assert len(hits) == 1, (m.name, k)
            # the result follows the mission line, before the next mission
            after = lines[hits[0] + 1:]
            result = next(ln for ln in after if ln.strip().startswith(("SUCCESS", "FAILURE")))
            assert result.strip().startswith("SUCCESS" if outcome == "S" else "FAILURE")
    assert any(ln.startswith("Career over after") for ln in lines)
    # every tour box checked on the page is told, also one whose last mission reached
    # Grand Admiral; no other tour is
    told = {int(m.group(1)) for ln in lines if (m := re.match(r"  Tour (\d+) ends", ln))}
    assert told == set(state.tours)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31), edition=st.sampled_from(["later", "earlier"]),
       length=st.sampled_from(["career", "short"]),
       start=st.sampled_from(["roll", "easier", "easier_yet", "still_easier_yet"]))
def test_vectorised_totals_equal_the_scorer(seed: int, edition: str, length: str,
                                            start: str) -> None:
    """simulate.totals (the statistics' fast path) gives every career the Grand Total
    scoring.score gives its page."""
    inp, res = run(300, seed, edition, length, start)
    want = [score(to_state(inp, res, i), inp.t.rules).total for i in range(300)]
    assert simulate.totals(inp, res).tolist() == want
