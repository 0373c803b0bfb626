"""What the sensible player values: weights of its mission choice (not rules).

Worth of a mission = chance of success x (promotion points x `promotion`, the Executed
box's points, the skill it grants, the medal it may bring) - chance of failing a
Training/Aid mission x the disciplinary penalty - chance of dying (with no Clone left)
x remaining attempts x `future`. The rules' numbers come from the tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from game.opial.tables import Tables

# What one level of a skill is worth to this player, by skill kind.
DEFAULT_SKILL_WORTH = {
    "reroll": 4.0, "extra_mission": 5.0, "die_bonus": 2.5, "extra_die": 3.0,
    "flip_opposite": 2.0, "flip_six": 2.5, "colour_swap": 2.0, "survival_bonus": 2.5,
    "medal_bonus": 1.0, "clone": 1.0,
}


@dataclass(frozen=True)
class Weights:
    promotion: float = 3.0  # score points per promotion point (x2 on the sheet, + rank)
    future: float = 1.5  # score points one remaining mission attempt is worth
    skill: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_SKILL_WORTH))

    def vector(self, t: Tables) -> np.ndarray:
        """[promotion, future, skill gain per mission..., medal worth per mission...]"""
        rules = t.rules
        gain = np.zeros(t.n_missions)
        medal = np.zeros(t.n_missions)
        for m in rules.missions:
            if m.skill:
                gain[m.index] = self.skill.get(rules.skill(m.skill).kind, 1.0)
            if m.medal:
                md = rules.medal(m.medal.award)
                medal[m.index] = md.points / md.per
        return np.concatenate(([self.promotion, self.future], gain, medal))

    def start_choice(self, t: Tables) -> list[int]:
        """Faces of the Start Skill chart this player takes when choosing."""
        by_kind = {s.kind: s.start_roll for s in t.rules.start_skills}
        return [by_kind["reroll"], by_kind["extra_mission"]]
