"""Exact odds for Spacer tasks (seed 004, "Tasks" to "Luck").

A side rolls d12s: one, plus one for a relevant special ability, one for extra time, one
per point of target number (attribute + field) above 10, and the assistants' bonus dice.
Every die showing less than the department level open-ends (one more die; extra dice may
open-end too, at most department-level extra dice in all); then every die above
attribute + field is taken off the table and the rest are totalled. The total is compared
with a difficulty or with the other side's total; the margin of a success is read on the
triangular progression. Every interpretation is documented in docs/rules.md ("Spacer tasks").

Everything is exact: totals are counted with integers over 12^k by dynamic programming
over (dice still to roll, open-ends left); luck (one reroll, optimal for success) is solved
by enumerating the distinct tables of dice, with integer arithmetic, and returned as
`Fraction`s.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, cached_property
from math import comb, factorial
from types import MappingProxyType
from typing import Any, NamedTuple

import templates
from starsheets.errors import UsageError

# The task rules' own numbers (seed 004, "Tasks", "Special Abilities", "Extra Time",
# "Big Target Numbers"); spacer.yaml holds the tables (triangular progression, scales).
DIE_SIDES = 12
BIG_TARGET_FROM = 10  # each point of attribute + field above this is one extra die
SPECIAL_ABILITY_DICE = 1  # however many abilities fit: one die
EXTRA_TIME_DICE = 1

# Tool limits, not rules: far beyond any character, and still quick to price.
MAX_TASK_DICE = 60  # dice rolled plus open-ending allowance, per side
MAX_LUCK_TABLES = 400_000  # distinct tables of dice enumerated to solve a luck reroll


# --- triangular progression --------------------------------------------------------------

@cache
def _progression() -> tuple[tuple[int, int, int], ...]:
    rows = templates.load("spacer")["triangular_progression"]
    return tuple((int(r["min"]), int(r["max"]), int(r["bonus"])) for r in rows)


def triangular_bonus(excess: int) -> int:
    """The bonus for an excess (margin, skill total, leadership) on the triangular progression.

    0 or less is worth 0. Past the printed table the progression continues as printed:
    bonus b covers excesses up to b(b+1)/2.
    """
    if excess <= 0:
        return 0
    for low, high, bonus in _progression():
        if low <= excess <= high:
            return bonus
    bonus = _progression()[-1][2]
    while bonus * (bonus + 1) // 2 < excess:
        bonus += 1
    return bonus


def assistant_dice(totals: Sequence[int]) -> int:
    """Extra dice from assistants: each total's bonus, summed, then looked up again."""
    return triangular_bonus(sum(triangular_bonus(t) for t in totals))


def max_assistants(leadership: int) -> int:
    """No more assistants than the triangular bonus of the leader's Leadership."""
    return triangular_bonus(leadership)


# --- dice and distributions --------------------------------------------------------------

@dataclass(frozen=True)
class DiceSpec:
    """How one side's d12s are rolled and read (general: tasks, traits, armour use it)."""

    dice: int  # dice rolled before open-ending
    keep_max: int  # dice showing more than this are taken off the table
    open_below: int  # a die showing less than this open-ends
    open_max: int  # at most this many extra dice from open-ending

    def __post_init__(self) -> None:
        if self.dice < 1 or self.open_max < 0:
            raise ValueError(f"not a roll: {self}")

    def faces(self) -> Iterator[tuple[int, int, bool]]:
        """(face, what it adds to the total, whether it open-ends) for each face."""
        for v in range(1, DIE_SIDES + 1):
            yield v, (v if v <= self.keep_max else 0), v < self.open_below

    @property
    def open_allowance(self) -> int:
        """Extra dice open-ending can actually add (0 if no face is low enough)."""
        return self.open_max if any(o for _, _, o in self.faces()) else 0

    @property
    def max_dice(self) -> int:
        return self.dice + self.open_allowance


@dataclass(frozen=True)
class Distribution:
    """An exact distribution over totals 0..len(counts)-1: counts[t] / denominator."""

    counts: tuple[int, ...]
    denominator: int

    def prob(self, total: int) -> Fraction:
        if 0 <= total < len(self.counts):
            return Fraction(self.counts[total], self.denominator)
        return Fraction(0)

    def items(self) -> Iterator[tuple[int, Fraction]]:
        for t, c in enumerate(self.counts):
            if c:
                yield t, Fraction(c, self.denominator)

    def mean(self) -> Fraction:
        return Fraction(sum(t * c for t, c in enumerate(self.counts)), self.denominator)

    def as_dict(self) -> dict[int, Fraction]:
        return dict(self.fractions)

    @cached_property
    def fractions(self) -> Mapping[int, Fraction]:
        """total -> probability for the possible totals (built once, read-only)."""
        return MappingProxyType(dict(self.items()))

    @cached_property
    def _at_least(self) -> tuple[int, ...]:
        tail = [0] * (len(self.counts) + 1)
        for t in range(len(self.counts) - 1, -1, -1):
            tail[t] = tail[t + 1] + self.counts[t]
        return tuple(tail)

    def p_above(self, total: int) -> Fraction:
        """P(the total is higher than `total`)."""
        if total < 0:
            return Fraction(1)
        if total >= len(self.counts):
            return Fraction(0)
        return Fraction(self._at_least[total + 1], self.denominator)

    def p_below(self, total: int) -> Fraction:
        """P(the total is lower than `total`)."""
        if total <= 0:
            return Fraction(0)
        if total >= len(self.counts):
            return Fraction(1)
        return Fraction(self.denominator - self._at_least[total], self.denominator)


def _add_shifted(acc: list[int], poly: Sequence[int], shift: int, times: int = 1) -> None:
    need = shift + len(poly)
    if len(acc) < need:
        acc.extend([0] * (need - len(acc)))
    for i, c in enumerate(poly):
        if c:
            acc[shift + i] += c * times


def read_task(spec: DiceSpec, faces: Iterable[int]) -> tuple[tuple[int, ...], int]:
    """(every die rolled, in order; the total) when the dice show `faces` in rolling order.

    The rules applied one roll at a time, for a dice roller and for checking by hand: each
    die below `open_below` adds a die while the allowance lasts (a die that will be taken
    off still open-ends), then dice above `keep_max` are taken off and the rest totalled.
    """
    it = iter(faces)
    pending, extra = spec.dice, 0
    rolled: list[int] = []
    while pending:
        try:
            v = next(it)
        except StopIteration:
            raise ValueError(f"not enough faces: {rolled} and {pending} more needed") from None
        if not 1 <= v <= DIE_SIDES:
            raise ValueError(f"{v} is not a face of a d{DIE_SIDES}")
        rolled.append(v)
        pending -= 1
        if v < spec.open_below and extra < spec.open_max:
            extra += 1
            pending += 1
    return tuple(rolled), sum(v for v in rolled if v <= spec.keep_max)


@cache
def total_distribution(spec: DiceSpec) -> Distribution:
    """Exact distribution of a side's total.

    DP over (dice still to roll p, open-ends left l); ways(p, l) counts outcomes scaled by
    12^(p+l) so that every branch stays an integer: a die that open-ends leads to (p, l-1),
    any other to (p-1, l), each with the same scale factor.
    """
    allowance = spec.open_allowance
    plain: dict[int, int] = defaultdict(int)  # contribution -> faces that do not open-end
    opening: dict[int, int] = defaultdict(int)  # contribution -> faces that open-end
    for _, add, opens in spec.faces():
        (opening if opens else plain)[add] += 1
    both: dict[int, int] = defaultdict(int)
    for d in (plain, opening):
        for add, n in d.items():
            both[add] += n
    memo: dict[tuple[int, int], list[int]] = {}
    # Fill bottom-up: ways(p, l) needs ways(p-1, l) and ways(p, l-1).
    for p in range(spec.dice + 1):
        for left in range(allowance + 1):
            if p == 0:
                memo[p, left] = [DIE_SIDES ** left]
                continue
            acc: list[int] = []
            if left == 0:
                for add, n in both.items():
                    _add_shifted(acc, memo[p - 1, 0], add, n)
            else:
                for add, n in plain.items():
                    _add_shifted(acc, memo[p - 1, left], add, n)
                for add, n in opening.items():
                    _add_shifted(acc, memo[p, left - 1], add, n)
            memo[p, left] = acc
    counts = memo[spec.dice, allowance]
    while len(counts) > 1 and counts[-1] == 0:
        counts.pop()
    return Distribution(tuple(counts), DIE_SIDES ** spec.max_dice)


@cache
def reroll_distribution(keep_max: int, dice: int) -> Distribution:
    """Sum of `dice` rerolled dice (luck): each taken off if above keep_max, no open-ending."""
    poly = [1]
    for _ in range(dice):
        acc: list[int] = []
        for v in range(1, DIE_SIDES + 1):
            _add_shifted(acc, poly, v if v <= keep_max else 0)
        poly = acc
    return Distribution(tuple(poly), DIE_SIDES ** dice)


# --- one side of a task ------------------------------------------------------------------

def _check_int(name: str, value: int, low: int, high: int | None = None) -> None:
    if value < low or (high is not None and value > high):
        span = f"{low} to {high}" if high is not None else f"{low} or more"
        raise UsageError(f"{name} {value} is out of range", f"Give {name} {span}.")


@dataclass(frozen=True)
class TaskSide:
    """One side of a task: what it rolls and why."""

    attribute: int
    field: int
    department: int
    special_ability: bool = False
    extra_time: bool = False
    assistants: tuple[int, ...] = ()
    leadership: int | None = None  # if given, the number of assistants is checked

    def __post_init__(self) -> None:
        scale = templates.load("spacer")["attribute_scale"]
        _check_int("attribute", self.attribute, int(scale["min"]), int(scale["max"]))
        _check_int("field", self.field, 0)
        _check_int("department", self.department, 0)
        for total in self.assistants:
            _check_int("assistant total", total, 0)
        if self.leadership is not None:
            _check_int("leadership", self.leadership, 0)
            allowed = max_assistants(self.leadership)
            if len(self.assistants) > allowed:
                raise UsageError(
                    f"{len(self.assistants)} assistants is more than leadership "
                    f"{self.leadership} allows ({allowed})",
                    "You cannot have more assistants than the triangular bonus of your "
                    "leadership.")
        spec = self.spec()
        if spec.max_dice > MAX_TASK_DICE:
            raise UsageError(f"{spec.max_dice} dice (with open-ending) is more than this tool "
                             f"prices ({MAX_TASK_DICE})", "Check the numbers given.")

    @property
    def target(self) -> int:
        """The target number: attribute + field; dice above it are taken off the table."""
        return self.attribute + self.field

    @property
    def big_target_dice(self) -> int:
        return max(0, self.target - BIG_TARGET_FROM)

    @property
    def assistant_dice(self) -> int:
        return assistant_dice(self.assistants)

    @property
    def dice(self) -> int:
        """Dice rolled before open-ending."""
        return (1 + (SPECIAL_ABILITY_DICE if self.special_ability else 0)
                + (EXTRA_TIME_DICE if self.extra_time else 0)
                + self.big_target_dice + self.assistant_dice)

    def spec(self) -> DiceSpec:
        return DiceSpec(self.dice, self.target, self.department, self.department)

    def as_dict(self) -> dict[str, Any]:
        return {"attribute": self.attribute, "field": self.field,
                "department": self.department, "target": self.target,
                "special_ability": self.special_ability, "extra_time": self.extra_time,
                "assistants": list(self.assistants), "leadership": self.leadership,
                "dice": self.dice, "big_target_dice": self.big_target_dice,
                "assistant_dice": self.assistant_dice,
                "open_end_max": self.spec().open_allowance}


# --- results -------------------------------------------------------------------------------

@dataclass(frozen=True)
class TaskOdds:
    """The outcome of a task: three exclusive outcomes summing to 1, and the details."""

    success: Fraction
    tie: Fraction
    failure: Fraction
    distribution: Distribution  # your total as rolled (before any luck)
    final: Mapping[int, Fraction]  # your total after the luck policy (= distribution if none)
    margins: Mapping[int, Fraction]  # your final total minus the opposition's, every outcome
    luck: bool
    luck_spent: Fraction = Fraction(0)  # how often the policy spends the luck

    def bonus_on_success(self) -> dict[int, Fraction]:
        """P(bonus = b | success), the margin read on the triangular progression."""
        out: dict[int, Fraction] = defaultdict(Fraction)
        for m, p in self.margins.items():
            if m > 0:
                out[triangular_bonus(m)] += p
        if not self.success:
            return {}
        return {b: p / self.success for b, p in sorted(out.items())}

    def expected_bonus_on_success(self) -> Fraction | None:
        if not self.success:
            return None
        return sum((b * p for b, p in self.bonus_on_success().items()), Fraction(0))

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: floats for reading, exact fractions as strings."""
        ebs = self.expected_bonus_on_success()
        out: dict[str, Any] = {
            "success": float(self.success), "tie": float(self.tie),
            "failure": float(self.failure),
            "expected_bonus_on_success": None if ebs is None else float(ebs),
            "bonus_on_success": {str(b): float(p) for b, p in self.bonus_on_success().items()},
            "distribution": {str(t): float(p) for t, p in self.distribution.items()},
            "mean_total": float(self.distribution.mean()),
            "exact": {"success": str(self.success), "tie": str(self.tie),
                      "failure": str(self.failure)},
        }
        if self.luck:
            out["distribution_after_luck"] = {str(t): float(p)
                                              for t, p in sorted(self.final.items()) if p}
            out["luck_spent"] = float(self.luck_spent)
        return out


class _Shifted(Mapping[int, Fraction]):
    """A read-only view of total -> p as (total - shift) -> p, built in O(1)."""

    def __init__(self, base: Mapping[int, Fraction], shift: int) -> None:
        self._base, self._shift = base, shift

    def __getitem__(self, key: int) -> Fraction:
        return self._base[key + self._shift]

    def __iter__(self) -> Iterator[int]:
        return (k - self._shift for k in self._base)

    def __len__(self) -> int:
        return len(self._base)


def _margins_vs_difficulty(dist: Mapping[int, Fraction], difficulty: int) -> Mapping[int, Fraction]:
    return _Shifted(dist, difficulty)


def _convolve_margins(own: Distribution, other: Distribution) -> dict[int, Fraction]:
    """Distribution of own - other, exact."""
    acc: dict[int, int] = defaultdict(int)
    for a, ca in enumerate(own.counts):
        if ca:
            for b, cb in enumerate(other.counts):
                if cb:
                    acc[a - b] += ca * cb
    den = own.denominator * other.denominator
    return {m: Fraction(c, den) for m, c in sorted(acc.items()) if c}


def _outcomes(margins: Mapping[int, Fraction]) -> tuple[Fraction, Fraction, Fraction]:
    success = sum((p for m, p in margins.items() if m > 0), Fraction(0))
    tie = margins.get(0, Fraction(0))
    return success, tie, 1 - success - tie


# --- luck: the tables of dice a side can leave ---------------------------------------------

class _Table(NamedTuple):
    """One distinct table of dice: contributions sorted high to low, and its weight."""

    prefix: tuple[int, ...]  # prefix[j] = sum of the j highest contributions; prefix[n] total
    weight: int  # ways, scaled by 12^(spec.max_dice)


def _classes(spec: DiceSpec) -> list[tuple[int, bool, int]]:
    """Faces grouped by (contribution, open-ends), highest contribution first."""
    groups: dict[tuple[int, bool], int] = defaultdict(int)
    for _, add, opens in spec.faces():
        groups[add, opens] += 1
    return sorted(((add, opens, n) for (add, opens), n in groups.items()), reverse=True)


def luck_table_count(spec: DiceSpec) -> int:
    """Upper bound on the tables `_tables` enumerates (to refuse hopeless sizes early)."""
    k = len(_classes(spec))
    return sum(comb(n + k - 1, k - 1) for n in range(spec.dice, spec.max_dice + 1))


def _tables(spec: DiceSpec, skip_above: int | None = None) -> Iterator[_Table]:
    """Every distinct table of dice the side can end with, and how many ways it happens.

    With b dice rolled, allowance e and L dice that open-end among the n on the table:
    if L <= e then n = b + L, and an ordering is a valid sequence of rolls exactly when its
    last die does not open-end ((n-1)! * b / prod(k!) orderings); if L > e (only possible
    with n = b + e) every ordering is valid (n! / prod(k!)). Each face of a class multiplies
    by its count of faces. `skip_above`: leave out tables whose total exceeds it.
    """
    classes = _classes(spec)
    b, e = spec.dice, spec.open_allowance
    top = spec.max_dice
    fact = [factorial(i) for i in range(top + 1)]

    for n in range(b, top + 1):
        exact_low = n - b if n < b + e else None  # None: at least e dice open-ended
        scale = DIE_SIDES ** (top - n)
        prefix = [0] * (n + 1)

        def walk(i: int, placed: int, low: int, denom: int, faces: int,
                 n: int = n, exact_low: int | None = exact_low, scale: int = scale,
                 prefix: list[int] = prefix) -> Iterator[_Table]:
            if placed == n:
                if exact_low is not None and low != exact_low:
                    return
                if exact_low is None and low < e:
                    return
                # Valid orderings: the last die must not open-end, unless more than e did.
                ways = fact[n - 1] * (n - low) // denom if low <= e else fact[n] // denom
                yield _Table(tuple(prefix), ways * faces * scale)
                return
            if i == len(classes):
                return
            add, opens, nfaces = classes[i]
            room = n - placed
            if opens and exact_low is not None:
                room = min(room, exact_low - low)
            for k in range(room, -1, -1):
                s = prefix[placed]
                for j in range(1, k + 1):
                    prefix[placed + j] = s + j * add
                if skip_above is not None and prefix[placed + k] > skip_above and k:
                    # Every completion of this table already beats the threshold.
                    continue
                yield from walk(i + 1, placed + k, low + (k if opens else 0),
                                denom * fact[k], faces * nfaces ** k)

        yield from walk(0, 0, 0, 1, 1)


def _check_luck_size(spec: DiceSpec) -> None:
    if luck_table_count(spec) > MAX_LUCK_TABLES:
        raise UsageError(f"luck with {spec.dice} dice and {spec.open_allowance} open-ends is "
                         "too large to solve exactly here",
                         "Price it without --luck, or with fewer dice.")


def _reroll_keys(rerolls: Sequence[Distribution], den: int,
                 scales: Sequence[int]) -> list[list[int]]:
    """Per number of rerolled dice m, the value of needing more than d (index d + 1).

    Value = P(win) * (den + 1) + P(tie), both scaled to /den: one integer that orders options
    by P(success) first and P(tie) second. Index 0 stands for any d < 0 (a certain win);
    past the end of a row the value is 0 (no chance).
    """
    keys: list[list[int]] = [[]]
    for m in range(1, len(rerolls)):
        counts = rerolls[m].counts
        tail = [0] * (len(counts) + 1)
        for d in range(len(counts) - 1, -1, -1):
            tail[d] = tail[d + 1] + counts[d]
        row = [rerolls[m].denominator * (den + 1) * scales[m]]
        row.extend((tail[d + 1] * (den + 1) + counts[d]) * scales[m] for d in range(len(counts)))
        keys.append(row)
    return keys


def _best_reroll(prefix: tuple[int, ...], need: int, keys: list[list[int]],
                 keep_key: int) -> tuple[int, int, int]:
    """(value, dice rerolled, kept sum) of the best own reroll against `need` (keep: m = 0).

    With m dice rerolled the best dice to keep are the highest n - m: the rerolled dice's
    sum has the same distribution whichever dice they replace.
    """
    n = len(prefix) - 1
    best_key, best_m, best_kept = keep_key, 0, prefix[n]
    for m in range(1, n + 1):
        kept = prefix[n - m]
        d = need - kept
        row = keys[m]
        idx = d + 1 if d >= 0 else 0
        if idx < len(row) and row[idx] > best_key:
            best_key, best_m, best_kept = row[idx], m, kept
    return best_key, best_m, best_kept


# --- public API ------------------------------------------------------------------------------

def against_difficulty(side: TaskSide, difficulty: int, luck: bool = False) -> TaskOdds:
    """Odds of a task against a difficulty set by the Referee.

    With `luck`, a failed or tied roll spends the luck on the best reroll of your own dice
    (the other side is a fixed number): the one that maximises P(success), ties broken by
    P(tie), then by rerolling fewer dice.
    """
    _check_int("difficulty", difficulty, 0)
    spec = side.spec()
    dist = total_distribution(spec)
    if not luck:
        s, t = dist.p_above(difficulty), dist.prob(difficulty)
        f = dist.p_below(difficulty)
        margins = _margins_vs_difficulty(dist.fractions, difficulty)
        return TaskOdds(s, t, f, dist, dist.fractions, margins, False)
    _check_luck_size(spec)
    top = spec.max_dice
    rerolls = [reroll_distribution(spec.keep_max, m) for m in range(top + 1)]
    den = DIE_SIDES ** top  # options compared as one integer (see _reroll_keys)
    keys = _reroll_keys(rerolls, den, [DIE_SIDES ** (top - m) for m in range(top + 1)])
    spent: dict[tuple[int, int], int] = defaultdict(int)  # (dice rerolled, kept sum) -> ways
    for prefix, weight in _tables(spec, skip_above=difficulty):
        total = prefix[-1]
        _, m, kept = _best_reroll(prefix, difficulty, keys,
                                  den if total == difficulty else 0)
        spent[m, kept] += weight
    # Counted over 12^top * 12^top: table weights, then the rerolled dice.
    final_n: dict[int, int] = defaultdict(int)
    for t, c in enumerate(dist.counts):
        if t > difficulty and c:
            final_n[t] += c * den
    spent_n = 0
    for (m, kept), ways in spent.items():
        if m == 0:
            final_n[kept] += ways * den
            continue
        spent_n += ways * den
        up = DIE_SIDES ** (top - m)
        for t, c in enumerate(rerolls[m].counts):
            if c:
                final_n[kept + t] += ways * c * up
    final = {t: Fraction(c, den * den) for t, c in final_n.items()}
    luck_spent = Fraction(spent_n, den * den)
    final_d = {t: p for t, p in sorted(final.items()) if p}
    margins = _margins_vs_difficulty(final_d, difficulty)
    s, t, f = _outcomes(margins)
    return TaskOdds(s, t, f, dist, final_d, margins, True, luck_spent)


def opposed(side: TaskSide, other: TaskSide, luck: bool = False) -> TaskOdds:
    """Odds of an opposed task: both sides roll the same way; higher total wins.

    With `luck`, after both rolls a failed or tied result spends the luck on the best of:
    rerolling some of your dice (the lowest, as many as is best) or rerolling the whole
    other side (a fresh roll of theirs, open-ending included).
    """
    spec, ospec = side.spec(), other.spec()
    dist, odist = total_distribution(spec), total_distribution(ospec)
    if not luck:
        margins = _convolve_margins(dist, odist)
        s, t, f = _outcomes(margins)
        return TaskOdds(s, t, f, dist, dist.fractions, margins, False)
    _check_luck_size(spec)
    top, otop = spec.max_dice, ospec.max_dice
    rerolls = [reroll_distribution(spec.keep_max, m) for m in range(top + 1)]
    ocounts = odist.counts
    # P(other < K) and P(other == K) for a fresh roll of the other side, over 12^otop.
    below = [0] * (len(dist.counts) + 1)
    running = 0
    for k in range(len(below)):
        below[k] = running
        running += ocounts[k] if k < len(ocounts) else 0
    equal = [ocounts[k] if k < len(ocounts) else 0 for k in range(len(below))]
    den = DIE_SIDES ** (top + otop)  # common scale for comparing options
    keys = _reroll_keys(rerolls, den, [DIE_SIDES ** (top - m + otop) for m in range(top + 1)])
    opp_scale = DIE_SIDES ** top
    maxs = [len(r.counts) - 1 for r in rerolls]
    ymax = len(ocounts) - 1
    at_least = [0] * (ymax + 2)  # ways the other side rolls y or more
    for y in range(ymax, -1, -1):
        at_least[y] = at_least[y + 1] + ocounts[y]
    # Aggregates (ways over 12^top times ways over 12^otop):
    by_margin: dict[tuple[int, int], int] = defaultdict(int)  # (m, kept - Y) -> ways
    by_total: dict[tuple[int, int], int] = defaultdict(int)  # (m, kept) -> ways
    opp_reroll: dict[int, int] = defaultdict(int)  # own total K -> ways
    for prefix, weight in _tables(spec, skip_above=ymax):
        n = len(prefix) - 1
        total = prefix[n]
        opp_key = (below[total] * (den + 1) + equal[total]) * opp_scale
        # Past `reach` no own reroll can win or tie (the highest die kept is at most the
        # most a rerolled die can add, so reach >= total).
        reach = min(max(prefix[n - m] + maxs[m] for m in range(1, n + 1)), ymax)
        # For each y from the total up: column i is option i (0: keep the dice, i >= 1:
        # reroll the i lowest); the first maximum wins, so fewer dice among equals.
        span = reach + 1 - total
        columns: list[Sequence[int]] = [[den] + [0] * (span - 1)]
        kept_of = [total]
        for m in range(1, n + 1):
            kept = prefix[n - m]
            seg = keys[m][total - kept + 1:reach - kept + 2]
            columns.append(seg + [0] * (span - len(seg)) if len(seg) < span else seg)
            kept_of.append(kept)
        switch = reach + 1
        for j, values in enumerate(zip(*columns, strict=True)):
            best = max(values)
            if opp_key > best:
                if j:
                    # Above the total the best own value never rises with y (each
                    # option's P(win) * (den + 1) + P(tie) falls) and the other side's
                    # reroll is fixed: from here on it stays the better choice.
                    switch = total + j
                    break
                if ocounts[total]:
                    opp_reroll[total] += weight * ocounts[total]
                continue
            cy = ocounts[total + j]
            if cy:
                m = values.index(best)
                kept = kept_of[m]
                ways = weight * cy
                by_margin[m, kept - total - j] += ways
                by_total[m, kept] += ways
        if at_least[switch]:
            if opp_key:
                opp_reroll[total] += weight * at_least[switch]
            else:  # nothing can win or tie: keep the dice, spend nothing
                for y in range(switch, ymax + 1):
                    if ocounts[y]:
                        by_margin[0, total - y] += weight * ocounts[y]
                        by_total[0, total] += weight * ocounts[y]
    # Everything below is counted over 12^top * 12^otop * 12^(top + otop).
    lift = DIE_SIDES ** (top + otop)
    margins_n: dict[int, int] = defaultdict(int)
    final_n: dict[int, int] = defaultdict(int)
    spent_n = 0
    for k, ck in enumerate(dist.counts):  # rolls that already won: no luck spent
        won = 0
        for y in range(min(k, len(ocounts))):
            if ck and ocounts[y]:
                margins_n[k - y] += ck * ocounts[y] * lift
                won += ocounts[y]
        final_n[k] += ck * won * lift
    for (m, diff), ways in by_margin.items():
        if m == 0:
            margins_n[diff] += ways * lift
            continue
        spent_n += ways * lift
        up = DIE_SIDES ** (top - m + otop)
        for t, c in enumerate(rerolls[m].counts):
            if c:
                margins_n[diff + t] += ways * c * up
    for (m, kept), ways in by_total.items():
        if m == 0:
            final_n[kept] += ways * lift
            continue
        up = DIE_SIDES ** (top - m + otop)
        for t, c in enumerate(rerolls[m].counts):
            if c:
                final_n[kept + t] += ways * c * up
    up = DIE_SIDES ** top
    for k, ways in opp_reroll.items():
        spent_n += ways * lift
        final_n[k] += ways * lift
        for y, c in enumerate(ocounts):
            if c:
                margins_n[k - y] += ways * c * up
    whole = DIE_SIDES ** (top + otop) * lift
    margins = {m: Fraction(c, whole) for m, c in margins_n.items()}
    final = {t: Fraction(c, whole) for t, c in final_n.items()}
    luck_spent = Fraction(spent_n, whole)
    margins_d = {m: p for m, p in sorted(margins.items()) if p}
    final_d = {t: p for t, p in sorted(final.items()) if p}
    s, t, f = _outcomes(margins_d)
    return TaskOdds(s, t, f, dist, final_d, margins_d, True, luck_spent)
