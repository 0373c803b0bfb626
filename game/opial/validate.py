"""Everything that makes a career page impossible or inconsistent under the rules.

Each finding has a code, a severity (`error`: no honest game gives this page;
`warning`: likely a box forgotten or a sum miscounted), a message a player understands,
what to do, and the boxes (mark ids) involved. Honest play (the simulator's pages) is
never flagged; the property tests hold us to that.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from game.opial.rules import Rules
from game.opial.scoring import score
from game.opial.state import EMPTY, SCORE_LINES, SUCCESS, CareerState

ERROR, WARNING = "error", "warning"


@dataclass(frozen=True)
class Finding:
    code: str
    severity: str
    message: str
    fix: str = ""
    boxes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, object]:
        return {"code": self.code, "severity": self.severity, "message": self.message,
                "fix": self.fix, "boxes": list(self.boxes)}


def _gaps(boxes: tuple[int, ...]) -> list[int]:
    """Box numbers missing below the highest checked one."""
    top = max(boxes, default=0)
    return [b for b in range(1, top + 1) if b not in boxes]


def _beyond_page(state: CareerState, rules: Rules) -> list[Finding]:
    out = []
    for prefix, label, boxes, limit in (
            ("tour", "tour track", state.tours, rules.tour_count),
            ("promotion", "promotion track", state.promotion, rules.track_boxes),
            ("discipline", "Discipline", state.discipline, rules.discipline.boxes),
            ("clone", "Clone uses", state.clone, rules.clone_uses)):
        extra = [b for b in boxes if b > limit]
        if extra:
            out.append(Finding("box-beyond-page", ERROR,
                               f"{label}: box {extra[0]} is checked but the page has {limit}",
                               "Clear the boxes the page does not have.",
                               tuple(f"{prefix}.{b}" for b in extra[:5])))
    return out


def _order(state: CareerState, rules: Rules) -> list[Finding]:
    out = []
    groups = [("tour", "tour track", state.tours), ("promotion", "promotion track", state.promotion),
              ("discipline", "Discipline", state.discipline), ("clone", "Clone uses", state.clone)]
    groups += [(f"skill.{k}", f"{rules.skill(k).name} skill levels", v)
               for k, v in state.skills.items()]
    groups += [(f"medal.{k}", f"{rules.medal(k).name} medals", v) for k, v in state.medals.items()]
    for prefix, label, boxes in groups:
        missing = _gaps(boxes)
        if missing:
            out.append(Finding(
                "boxes-out-of-order", ERROR,
                f"{label}: box {max(boxes)} is checked but box {missing[0]} is not",
                "Boxes are checked in order from the first; check the earlier boxes or clear "
                "the later one.", tuple(f"{prefix}.{b}" for b in missing)))
    for m in rules.missions:
        text = state.executed(m.id)
        if len(text) > m.boxes:
            out.append(Finding("executed-overflow", ERROR,
                               f"{m.name}: {len(text)} Executed marks but the page has {m.boxes}",
                               f"{m.name} can be executed at most {m.boxes} times.",
                               (f"mission.{m.id}.{m.boxes}",)))
        inner = text.rstrip(EMPTY)
        if EMPTY in inner:
            k = inner.index(EMPTY) + 1
            out.append(Finding("boxes-out-of-order", ERROR,
                               f"{m.name}: an Executed box after box {k} is marked but box {k} is "
                               "empty", "Executed boxes are used in order.",
                               (f"mission.{m.id}.{k}",)))
    return out


def _tours(state: CareerState, rules: Rules) -> list[Finding]:
    out = []
    length = rules.game_lengths.get(state.length, rules.tour_count)
    started = state.tours_started
    if started > length:
        out.append(Finding("beyond-game-length", ERROR,
                           f"Tour {started} is used, but a {state.length} game has {length} tours",
                           "Clear the extra tours, or mark the game length you played.",
                           tuple(f"tour.{t}" for t in range(length + 1, started + 1))))
    done = max(state.tours, default=0)
    eff = state.skill_level(_kind(rules, "extra_mission"))
    allowed = rules.missions_per_tour(eff)
    counts = list(state.tour_missions) + [0] * max(0, done - len(state.tour_missions))
    for t, n in enumerate(counts, start=1):
        if n > allowed:
            out.append(Finding(
                "too-many-missions-in-tour", ERROR,
                f"Tour {t} has {n} missions ticked; with Efficiency {eff} at most {allowed} fit "
                "in a tour", "Each tour allows 2 missions plus one per Efficiency level.",
                tuple(f"tour.{t}.mission.{k}" for k in range(allowed + 1, n + 1))))
        if (t <= done and 0 < n < rules.base_missions) or (t in state.tours and n == 0):
            out.append(Finding(
                "tour-ended-early", ERROR,
                f"Tour {t} is checked off after {n} mission(s); a tour ends after its allotted "
                f"missions (at least {rules.base_missions})",
                "Tick the missions flown in that tour, or clear the tour box.", (f"tour.{t}",)))
        if t > done + 1 and n:
            out.append(Finding(
                "missions-in-future-tour", ERROR,
                f"Missions are ticked above Tour {t} but Tour {t - 1} is not checked off",
                "Check off each tour once its missions are done.", (f"tour.{t - 1}",)))
    ticked = sum(state.tour_missions)
    executed = sum(len(state.executed(m.id).replace(EMPTY, "")) for m in rules.missions)
    if ticked != executed:
        out.append(Finding(
            "missions-tally-mismatch", ERROR if ticked < executed else WARNING,
            f"{executed} Executed boxes are marked but {ticked} mission boxes are ticked above "
            "the tours", "Every mission is ticked once above its tour and once in Executed."))
    return out


def _kind(rules: Rules, kind: str) -> str:
    return next(s.id for s in rules.skills if s.kind == kind)


def _earned(state: CareerState, rules: Rules) -> int:
    return sum(state.successes(m.id) * m.promotion for m in rules.missions)


def _promotion(state: CareerState, rules: Rules) -> list[Finding]:
    out = []
    earned = min(_earned(state, rules), rules.track_boxes)
    have = state.promotion_points
    if have > earned:
        out.append(Finding(
            "promotion-unearned", ERROR,
            f"The promotion track reaches box {have} but the successful missions give {earned} "
            "promotion points", f"Clear promotion boxes {earned + 1}-{have}, or mark the missions "
            "that earned them.", tuple(f"promotion.{b}" for b in range(earned + 1, have + 1))))
    elif have < earned:
        out.append(Finding(
            "promotion-unchecked", WARNING,
            f"The successful missions give {earned} promotion points but the track stops at box "
            f"{have}", f"Check promotion boxes {have + 1}-{earned}.",
            tuple(f"promotion.{b}" for b in range(have + 1, earned + 1))))
    # a mission of rank r can only be flown after promotion points from lower missions
    for rank in rules.ranks[1:]:
        flown = [m for m in rules.missions if m.min_rank == rank.index and state.executed(m.id)]
        if not flown:
            continue
        below = min(rules.track_boxes, sum(state.successes(m.id) * m.promotion
                                           for m in rules.missions if m.min_rank < rank.index))
        if below < rank.threshold:
            m = flown[0]
            out.append(Finding(
                "mission-above-rank", ERROR,
                f"{m.name} needs {rank.name} ({rank.grade}, promotion box {rank.threshold}), but "
                f"the missions open to lower ranks give only {below} promotion points",
                f"Clear the {m.name} Executed boxes or mark the missions that led to the promotion.",
                (f"mission.{m.id}.1",)))
    return out


def _skills(state: CareerState, rules: Rules) -> list[Finding]:
    out = []
    unexplained: dict[str, int] = {}
    for s in rules.skills:
        level = state.skill_level(s.id)
        if level > s.max_level:
            out.append(Finding("skill-overflow", ERROR, f"{s.name} has {level} levels; the page "
                               f"has {s.max_level}", "Clear the extra levels."))
        granted = sum(state.successes(m.id) for m in rules.missions if m.skill == s.id)
        extra = level - granted
        if extra > 0:
            unexplained[s.id] = extra
    for s in rules.skills:
        granted = sum(state.successes(m.id) for m in rules.missions if m.skill == s.id)
        level = max(state.skills.get(s.id, ()), default=0)  # gaps are boxes-out-of-order
        if level < min(granted, s.max_level):
            want = min(granted, s.max_level)
            out.append(Finding(
                "skill-unchecked", WARNING,
                f"{granted} successful mission(s) grant {s.name}, but {level} level(s) are "
                "checked", f"Check {s.name} levels {level + 1}-{want}.",
                tuple(f"skill.{s.id}.{b}" for b in range(level + 1, want + 1))))
    option = rules.start_option(state.start)
    start_ids = {s.id for s in rules.start_skills}
    allowance = option.count
    for skill_id, extra in unexplained.items():
        s = rules.skill(skill_id)
        if skill_id not in start_ids:
            out.append(Finding(
                "skill-unearned", ERROR,
                f"{s.name} has {state.skill_level(skill_id)} level(s) but only "
                f"{state.skill_level(skill_id) - extra} successful mission(s) grant it, and it is "
                "not on the Start Skill chart",
                f"Clear {extra} {s.name} level(s) or mark the missions that granted them.",
                tuple(f"skill.{skill_id}.{b}" for b in state.skills[skill_id][-extra:])))
    from_start = sum(v for k, v in unexplained.items() if k in start_ids)
    if from_start > allowance:
        names = ", ".join(rules.skill(k).name for k in unexplained if k in start_ids)
        out.append(Finding(
            "skill-unearned", ERROR,
            f"{from_start} skill level(s) ({names}) are not explained by missions, but the "
            f"'{option.name}' start gives {allowance}",
            "Clear the extra levels, mark the missions that granted them, or mark the start "
            "option you played."))
    return out


def _medals(state: CareerState, rules: Rules) -> list[Finding]:
    out = []
    for md in rules.medals:
        have = state.medal_count(md.id)
        if have > md.boxes:
            out.append(Finding("medal-overflow", ERROR, f"{have} {md.name} medals; the page has "
                               f"{md.boxes} boxes", "Clear the extra medals."))
        possible = sum(state.successes(m.id) * (2 if m.medal.automatic else 1)
                       for m in rules.missions if m.medal and m.medal.award == md.id)
        if have > possible:
            sources = [m.name for m in rules.missions if m.medal and m.medal.award == md.id]
            out.append(Finding(
                "medal-unearned", ERROR,
                f"{have} {md.name} medal(s) but the successful {'/'.join(sources)} missions can "
                f"award at most {possible}",
                f"Clear {have - possible} {md.name} box(es) or mark the missions that won them.",
                tuple(f"medal.{md.id}.{b}" for b in range(possible + 1, have + 1))))
        elif md.boxes and have == 0 and possible and all(
                m.medal.automatic for m in rules.missions if m.medal and m.medal.award == md.id):
            out.append(Finding("medal-unchecked", WARNING,
                               f"{md.name}: the missions flown award it automatically, but no "
                               "box is checked", f"Check {possible} {md.name} box(es)."))
    failures = sum(state.failures(m.id) for m in rules.missions if m.discipline)
    expected = min(failures, rules.discipline.boxes)
    have = len(state.discipline)
    names = "/".join(m.name for m in rules.missions if m.discipline)
    if have > expected:
        out.append(Finding(
            "discipline-unearned", ERROR,
            f"{have} Disciplinary Actions but only {failures} failed {names} mission(s)",
            "Only a failed Training or Aid mission earns a Disciplinary Action; clear the extra "
            "boxes or slash the failed missions.",
            tuple(f"discipline.{b}" for b in range(expected + 1, have + 1))))
    elif have < expected:
        out.append(Finding(
            "discipline-unchecked", WARNING,
            f"{failures} failed {names} mission(s) but {have} Disciplinary Action(s) checked",
            f"Check {expected - have} more Discipline box(es) (-3 each).",
            tuple(f"discipline.{b}" for b in range(have + 1, expected + 1))))
    clone = _kind(rules, "clone")
    level = state.skill_level(clone)
    uses = len(state.clone)
    limit = min(level, rules.clone_uses)
    if uses > limit:
        out.append(Finding(
            "clone-overused", ERROR,
            f"{uses} Clone uses but Clone skill level {level} allows {limit}",
            "Each Clone level ignores one failed survival roll, at most twice a career.",
            tuple(f"clone.{b}" for b in range(limit + 1, uses + 1))))
    return out


def _career_end(state: CareerState, rules: Rules) -> list[Finding]:
    out = []
    won = [m.promotion for m in rules.missions for _ in range(state.successes(m.id))]
    # even if the last mission flown was the one worth most, Grand Admiral was reached
    # before it, and the career ends there (O3)
    if won and sum(won) - max(won) >= rules.grand_admiral.threshold:
        out.append(Finding(
            "played-after-grand-admiral", ERROR,
            f"The successful missions give {sum(won)} promotion points: Grand Admiral "
            f"(box {rules.grand_admiral.threshold}) was reached before the last of them, and "
            "the career ends there", "Clear the missions flown after reaching Grand Admiral."))
    elif state.promotion_points >= rules.grand_admiral.threshold:
        done = max(state.tours, default=0)
        if state.tours_started > done + 1:
            out.append(Finding(
                "played-after-grand-admiral", ERROR,
                "Grand Admiral has no dice pool, so the career ends there, yet later tours are "
                "used", "Clear the tours after the one in which Grand Admiral was reached."))
    return out


def _score_lines(state: CareerState, rules: Rules) -> list[Finding]:
    if not state.written:
        return []
    sc = score(state, rules)
    out = []
    for key in SCORE_LINES:
        wrote = state.written.get(key)
        if wrote is None:
            continue
        line = sc.line(key)
        if wrote != line.points:
            diff = wrote - line.points
            what = (f"you wrote {wrote}; the sheet scores {line.points}")
            out.append(Finding(
                "score-miscount", WARNING,
                f"{line.label}: {what} (off by {diff:+d}; {line.detail})",
                f"Write {line.points}.", (f"score.{key}",)))
    return out


def validate(state: CareerState, rules: Rules) -> list[Finding]:
    """All findings for a career page, errors first."""
    found: list[Finding] = []
    if state.edition != rules.edition:
        found.append(Finding(
            "edition-mismatch", WARNING,
            f"The page is the {state.edition} edition but is being checked under the "
            f"{rules.edition} edition", "Pass --edition to match the page."))
    for check in (_beyond_page, _order, _tours, _promotion, _skills, _medals, _career_end, _score_lines):
        found.extend(check(state, rules))
    if not state.name.strip():
        found.append(Finding("no-name", WARNING, "The page has no name",
                             "Write the officer's name.", ("name",)))
    return sorted(found, key=lambda f: f.severity != ERROR)


def has_errors(findings: list[Finding]) -> bool:
    return any(f.severity == ERROR for f in findings)


__all__ = ["ERROR", "SUCCESS", "WARNING", "Finding", "has_errors", "validate"]
