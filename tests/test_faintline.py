"""scanner.faintline: a line summed along its length stands out of noise that hides each
of its pixels."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scanner.faintline import (
    BAND_SOME,
    ENDS_SCORE,
    LINE_BOXES,
    LINE_RATIO,
    LINE_SCORE,
    band_scores,
    band_z,
    ends_standing_out,
    ends_z,
    plain_standing_out,
    standing_out,
)

NOISE = 0.02
H, W = 24, 32  # a mission box's inside at 200 dpi, in pixels


def _box(seed: int, line: float = 0.0, angle: float = 35.0) -> np.ndarray:
    """A box of white noise (NOISE), with a straight line through its middle darkened by
    `line` (4 px wide, at `angle` degrees)."""
    rng = np.random.default_rng(seed)
    d = rng.normal(0.0, NOISE, (H, W))
    ys, xs = np.mgrid[0:H, 0:W]
    a = np.deg2rad(angle)
    dist = np.abs((xs - W / 2) * np.sin(a) - (ys - H / 2) * np.cos(a))
    return d + line * (dist <= 2.0)


FULL = np.ones((H, W), bool)


@pytest.mark.parametrize("angle", [30.0, 45.0, 60.0, 125.0, 150.0])
def test_a_line_lighter_than_the_noise_stands_out(angle: float) -> None:
    """Darkened by 0.8 of the noise, the line's pixels are far under a faint mark's
    threshold (4 sigma); yet every one of 60 such boxes scores over the highest of 60
    boxes of noise alone."""
    plain = max(band_z(_box(seed), FULL, NOISE) for seed in range(60))
    lined = [band_z(_box(1000 + seed, 0.8 * NOISE, angle), FULL, NOISE) for seed in range(60)]
    assert min(lined) > plain


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), shade=st.floats(-0.3, 0.3), scale=st.floats(0.5, 4.0))
def test_a_box_scores_the_same_in_shadow_and_in_units_of_its_noise(
        seed: int, shade: float, scale: float) -> None:
    """A shadow darkening the whole box does not move its score (measured over the box's
    own median); the score is in units of the box's noise."""
    d = _box(seed, 0.5 * NOISE)
    z = band_z(d, FULL, NOISE)
    assert band_z(d + shade, FULL, NOISE) == pytest.approx(z, rel=1e-4, abs=1e-4)
    assert band_z(d, FULL, scale * NOISE) == pytest.approx(z / scale, rel=1e-4, abs=1e-4)


def test_noise_alone_scores_alike_box_after_box() -> None:
    """Empty boxes of the same noise score alike: none stands out."""
    z = {f"mission.m.{i}": band_z(_box(i), FULL, NOISE) for i in range(40)}
    assert standing_out(z) == {}


def test_the_box_with_a_faint_line_stands_out_from_the_sheets_empty_boxes() -> None:
    z = {f"mission.m.{i}": band_z(_box(i), FULL, NOISE) for i in range(40)}
    z["mission.slashed.1"] = band_z(_box(99, 0.6 * NOISE), FULL, NOISE)
    out = standing_out(z)
    assert list(out) == ["mission.slashed.1"]
    assert out["mission.slashed.1"] > LINE_SCORE


def test_too_few_boxes_to_compare_flag_nothing() -> None:
    z = {f"mission.m.{i}": float(i) for i in range(LINE_BOXES - 2)}
    z["mission.m.x"] = 1e6
    assert standing_out(z) == {}


def test_a_band_is_scored_against_the_empty_boxes_given_not_against_itself() -> None:
    empty = [band_z(_box(i), FULL, NOISE) for i in range(40)]
    lined = band_z(_box(99, 0.6 * NOISE), FULL, NOISE)
    scores = band_scores({"skill.x.1": lined, "skill.x.2": empty[0]}, empty)
    assert scores["skill.x.1"] > LINE_SCORE > scores["skill.x.2"]
    assert band_scores({"skill.x.1": lined}, empty[: LINE_BOXES - 1]) == {}


@given(st.lists(st.floats(-50, 50), min_size=LINE_BOXES, max_size=60), st.floats(0.1, 10),
       st.floats(-20, 20))
def test_band_scores_do_not_change_with_the_units_or_the_offset(ref: list[float], scale: float,
                                                               shift: float) -> None:
    q25, q75 = np.percentile(ref, [25, 75])
    assume(q75 - q25 > 0.01)  # (a spread of nothing is floored: no units to keep)
    z = {"a": 3.0, "b": -1.0}
    one = band_scores(z, ref)
    other = band_scores({k: v * scale + shift for k, v in z.items()},
                        [v * scale + shift for v in ref])
    for k in z:
        assert other[k] == pytest.approx(one[k], rel=1e-6, abs=1e-3)


def test_a_box_too_small_to_hold_a_band_scores_nothing() -> None:
    tiny = np.zeros((H, W), bool)
    tiny[10:14, 10:14] = True
    assert band_z(_box(0, 0.1), tiny, NOISE) == 0.0


PRINTED = FULL.copy()
PRINTED[6:18, 9:23] = False  # the paper around a number printed in the box's middle


def test_a_line_across_printed_text_shows_at_both_ends_a_speck_at_one() -> None:
    """A faint line whose middle the print hides still shows in the paper at both its ends;
    a dark speck beside the print, on one side only, scores no more than noise does."""
    noise = max(ends_z(_box(seed), FULL, PRINTED, NOISE) for seed in range(40))
    lined = [ends_z(_box(100 + seed, 1.5 * NOISE, angle), FULL, PRINTED, NOISE)
             for seed, angle in enumerate((30.0, 45.0, 60.0, 135.0, 150.0))]
    assert min(lined) > 2 * noise
    speck = _box(7)
    speck[3:5, 3:5] += 20 * NOISE
    assert band_z(speck, FULL, NOISE) > 2 * noise  # (the speck raises a whole band)
    assert ends_z(speck, FULL, PRINTED, NOISE) <= 1.2 * noise  # (not both its ends)


def test_ends_flag_a_box_only_when_its_band_stands_out_a_little_too() -> None:
    z = {f"mission.m.{i}": band_z(_box(i), FULL, NOISE) for i in range(30)}
    ends = {rid: ends_z(_box(i), FULL, PRINTED, NOISE) for i, rid in enumerate(z)}
    assert ends_standing_out(z, ends) == {}
    slash = _box(99, 1.5 * NOISE)
    z["mission.slashed.1"] = band_z(slash, FULL, NOISE)
    ends["mission.slashed.1"] = ends_z(slash, FULL, PRINTED, NOISE)
    out = ends_standing_out(z, ends)
    assert list(out) == ["mission.slashed.1"] and out["mission.slashed.1"] >= ENDS_SCORE
    z["mission.slashed.1"] = float(np.median(list(z.values())))  # its band alone says no
    assert band_scores(z, list(z.values()))["mission.slashed.1"] < BAND_SOME
    assert ends_standing_out(z, ends) == {}
    # ... unless faint ink shows in it (a trace): then the ends alone say it
    traced = frozenset({"mission.slashed.1", "mission.m.3"})
    assert list(ends_standing_out(z, ends, traced)) == ["mission.slashed.1"]


def test_a_plain_box_is_compared_with_the_plain_boxes_alone() -> None:
    """Beside printed boxes whose print's residue spreads the bands, a plain box's faint
    line hardly stands out of them all; against the plain boxes alone it is LINE_RATIO
    times their median. Noise alone, and too few plain boxes, flag nothing."""
    plain = {f"mission.p.{i}": band_z(_box(i), FULL, NOISE) for i in range(20)}
    assert plain_standing_out(plain) == {}
    residue = {f"mission.r.{i}": band_z(_box(200 + i, (i % 7) * NOISE), FULL, NOISE)
               for i in range(40)}
    line = band_z(_box(99, 2.0 * NOISE), FULL, NOISE)
    both = {**plain, **residue, "mission.slashed.1": line}
    assert "mission.slashed.1" not in standing_out(both)
    out = plain_standing_out({**plain, "mission.slashed.1": line})
    assert list(out) == ["mission.slashed.1"] and out["mission.slashed.1"] >= LINE_RATIO
    few = dict(list(plain.items())[: LINE_BOXES - 2])
    assert plain_standing_out({**few, "mission.slashed.1": line}) == {}
