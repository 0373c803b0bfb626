"""The tick-or-slash model (scanner/tickslash.py) and the reader's veto with it."""

from __future__ import annotations

import numpy as np
from test_scanner import ticks_never_sure_slashes

from scanner import tickslash
from scanner.template import blank
from sheets.render import layout


def test_the_model_is_shipped_and_gives_probabilities() -> None:
    assert tickslash.MODEL.exists(), "scanner/models/tickslash.npz: python -m scanner.train_tickslash"
    ink = np.zeros((tickslash.SIDE, tickslash.SIDE), np.float32)
    p = tickslash.tick_probability(ink)
    assert 0.0 <= p <= 1.0


def test_every_model_the_reader_asks_is_shipped() -> None:
    """A missing model reads as no opinion (tick_probability 0.0, success_probability
    None): the reader would lose a veto silently, so each must be in the package."""
    import tomllib
    from pathlib import Path

    data = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    shipped = data["tool"]["setuptools"]["package-data"]["scanner"]
    for path in (tickslash.MODEL, tickslash.THICK_MODEL, tickslash.LOW_RES_MODEL,
                 tickslash.SUCCESS_MODEL):
        assert path.exists(), path
        assert f"models/{path.name}" in shipped, path.name


def test_box_ink_is_the_inside_scaled_to_the_models_square() -> None:
    """The box's inside (its printed glyphs left out, as the reader leaves them out) at the
    mark's own level; nothing outside it."""
    tpl = blank(layout("career", "later", "letter"), 200.0)
    inside = tpl.by_id()["mission.patrol.4"].inside
    dk = np.full(inside.shape, 0.8, np.float32)
    ink = tickslash.box_ink(dk, np.zeros_like(dk), inside, np.zeros_like(inside), 0.8)
    assert ink.shape == (tickslash.SIDE, tickslash.SIDE)
    ys, xs = np.nonzero(inside)
    share = inside[ys.min():ys.max() + 1, xs.min():xs.max() + 1].mean()
    assert ink.max() == 1.0 and abs(float(ink.mean()) - share) < 0.05


# light (pencil-grey) 2 px ticks whose short arm crosses the printed "+N": the arm is as
# light as the print and hardly shows over it; the rules alone read them as sure slashes
LIGHT_TICKS = {
    "mission.patrol.4": [(0.327, 0.457), (0.426, 0.711), (0.822, 0.118)],
    "mission.exploration.4": [(0.293, 0.488), (0.393, 0.7), (0.888, 0.149)],
    "mission.science.3": [(0.246, 0.478), (0.411, 0.689), (0.873, 0.139)],
}


def test_light_ticks_whose_arm_hides_in_the_print_are_never_sure_slashes() -> None:
    """The model's veto sends them to review (or they read as ticks); slashes drawn with
    the same pencil stay slashes."""
    ticks_never_sure_slashes(LIGHT_TICKS, ("mission.trade.1", "mission.aid.2",
                                           "mission.survey.2", "mission.escort.1"), 140, 2)
