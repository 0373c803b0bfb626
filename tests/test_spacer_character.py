"""Spacer characters: one test per rule, generated characters, the file format and the CLI.

Each rule test starts from the legal sample (samples/spacer/ilse-varga.yaml: a Human
enlisted engineer, inborn leftover 3 spent on luck 1, 2 trained points and Engineering 1)
and changes one thing - with the numbers a careful player would write alongside, so only
the rule under test is broken - then asserts that finding appears and no other error does.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.spacer import derived
from game.spacer.arrays import match_inborn, match_trained
from game.spacer.character import Character
from game.spacer.creation import CharacterReport, validate_character
from game.spacer.data import load_data
from game.spacer.findings import READINGS, RULES
from game.spacer.generate import generate
from game.spacer.schema import character_schema, published, setting_schema
from starsheets.errors import StateFormatError

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples" / "spacer"
LEGAL = SAMPLES / "ilse-varga.yaml"
MISTAKES = SAMPLES / "tik-mistakes.yaml"

# `starsheets validate ...` is dispatched by the `validate` command (another module);
# until it exists, this stand-in registers the Spacer runners, then runs the real main().
SHIM = """
import sys
import click
from starsheets.cli import cli, main
if "validate" not in cli.commands:
    from starsheets.commands.spacer import run_validate_character, run_validate_setting

    @click.group("validate")
    def validate():
        pass

    @validate.command("character")
    @click.argument("path")
    @click.option("--json", "as_json", is_flag=True)
    def character(path, as_json):
        return run_validate_character(path, as_json)

    @validate.command("setting")
    @click.argument("path")
    @click.option("--json", "as_json", is_flag=True)
    def setting(path, as_json):
        return run_validate_setting(path, as_json)

    cli.add_command(validate)
main(sys.argv[1:])
"""


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """`starsheets ARGS` as a user runs it (subprocess; stdout, stderr, exit code)."""
    return subprocess.run([sys.executable, "-c", SHIM, *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


# --- helpers ------------------------------------------------------------------------
def legal() -> dict[str, Any]:
    return yaml.safe_load(LEGAL.read_text())


def check(data: dict[str, Any]) -> CharacterReport:
    return validate_character(Character.from_dict(data))


def codes(report: CharacterReport, severity: str | None = None) -> set[str]:
    return {f.code for f in report.findings if severity is None or f.severity == severity}


def only_error(data: dict[str, Any], code: str) -> CharacterReport:
    """`code` is reported as an error, and no other error is."""
    report = check(data)
    assert codes(report, "error") == {code}, [f.lines() for f in report.findings]
    return report


def only_warning(data: dict[str, Any], code: str) -> CharacterReport:
    """`code` is reported as a warning, and there is no error."""
    report = check(data)
    assert code in codes(report, "warning"), [f.lines() for f in report.findings]
    assert not codes(report, "error"), [f.lines() for f in report.findings]
    return report


def the(report: CharacterReport, code: str) -> Any:
    return next(f for f in report.findings if f.code == code)


def advanced(level: int = 1) -> dict[str, Any]:
    """The legal sample after `level` levels: tallies filled, St column written."""
    d = legal()
    d["level"] = level
    data = load_data()
    d["advancement"] = {row.id: [lv for lv in range(level) if lv >= row.from_level]
                        for row in data.tally_rows}
    d["start"] = {"inborn": dict(d["inborn"]), "trained": dict(d["trained"]),
                  "luck": d["luck"], "rank": d["rank"]}
    return d


def consistent(d: dict[str, Any]) -> dict[str, Any]:
    """Write the derived numbers as the rules compute them (a careful player)."""
    computed = check(d).computed
    for key in ("initiative", "toughness", "leadership", "issue_points", "bonus_points",
                "rank_title"):
        if key in computed:
            d["written"][key] = computed[key]
    if "bonus_spent" in computed:
        d["written"]["bonus_spent"] = computed["bonus_spent"]["total"]
    return d


def species_sample(species: str, want: Any) -> dict[str, Any]:
    """A generated legal character of `species` for which want(dict) holds."""
    for seed in range(2000):
        d = generate(seed, species).to_dict()
        if want(d):
            assert not check(d).findings
            return d
    raise AssertionError(f"no {species} sample found")


# --- the legal sample and the tables ----------------------------------------------
def test_legal_sample_has_no_findings() -> None:
    report = check(legal())
    assert report.findings == ()
    c = report.computed
    assert (c["initiative"], c["toughness"], c["leadership"]) == (6, 5, 2)
    assert c["bonus_points"] == 3
    assert c["bonus_spent"] == {"luck": 1, "trained": 1, "levels": 1, "hobbies": 0,
                                "traits": 0, "total": 3}
    assert c["rank_title"] == "Apprentice"


def test_tables_load_with_the_rules_numbers() -> None:
    data = load_data()
    assert data.inborn_array == (5, 4, 4, 3, 3, 2)
    assert data.trained_array == (3, 2, 2, 2, 1, 1, 1, 0)
    assert [w.capacity for w in data.wounds] == [4, 3, 2, 1]
    assert [w.penalty for w in data.wounds] == [0, 1, 2, 4]
    assert {s.name for s in data.species} == {"Human", "Sartini", "Mrin", "K'T'K", "Kangid",
                                              "Rigelian", "Khizht"}
    sartini = data.find_species("sartini")
    assert sartini is not None
    assert (sartini.maximum("agility"), sartini.maximum("health"),
            sartini.maximum("science")) == (7, 6, 6)
    assert data.find_field("FTLD").department == "engineering"
    assert data.rank_title("officer", "ground", 4) == "Lieutenant Colonel"
    assert data.rank_title("enlisted", "agent", 9) == "Agency COp"
    bonus = data.setting_group("oversight_attitude")
    assert bonus.choice == "single" and [o.name for o in bonus.options][-1] == "Authoritarian"
    assert next(r for r in data.tally_rows if r.id == "bonus").from_level == 1


def test_species_maxima_follow_reading_s4() -> None:
    """Maximum = 7, lowered by a penalty, never raised by a bonus."""
    data = load_data()
    for sp in data.species:
        for a in data.attributes:
            assert sp.maximum(a.id) == data.default_maximum + min(0, sp.modifier(a.id)), \
                (sp.name, a.id)


def test_enlisted_leadership_table_is_lower_plus_third_rounded_up() -> None:
    """Reading S13: the appendix table is the formula with the third rounded up."""
    data = load_data()
    for lower, row in data.enlisted_leadership.items():
        for higher, value in zip(data.enlisted_leadership_columns, row, strict=True):
            a, b = min(lower, higher), max(lower, higher)
            assert value == a + -(-(b - a) // 3), (lower, higher)
    assert derived.enlisted_leadership(data, 0, 4) == 2  # outside the table: 0 + ceil(4/3)
    assert derived.enlisted_leadership(data, 9, 9) == 9


def test_every_reading_is_documented() -> None:
    rules_md = (ROOT / "docs" / "rules.md").read_text()
    assert "## Spacer character creation" in rules_md
    for rid in READINGS:
        assert f"**{rid}." in rules_md, rid
    character_md = (ROOT / "docs" / "character.md").read_text()
    for code in RULES:
        assert code in character_md, code


def test_published_schemas_match_the_tables() -> None:
    for name, schema in (("spacer-character", character_schema()),
                         ("spacer-setting", setting_schema())):
        path = ROOT / "templates" / "schemas" / f"{name}.schema.json"
        assert path.read_text() == published(schema), f"regenerate {path}"


def test_array_matching() -> None:
    assert match_inborn([[5], [4], [4], [3], [3]], [5, 4, 4, 3, 3, 2]).leftover == 2
    assert match_inborn([[5], [5], [4], [3], [3]], [5, 4, 4, 3, 3, 2]) is None
    # a floored 0 under a -2 penalty may hide a 2 (Rigelian physique)
    assert match_inborn([[5], [0, 1, 2], [4], [3], [3]], [5, 4, 4, 3, 3, 2]).leftover == 4
    assert match_trained([[3], [2], [2], [2], [1], [1], [1], [0]],
                         [3, 2, 2, 2, 1, 1, 1, 0]).extra == 0
    m = match_trained([[3], [2], [2], [2], [2], [2], [1], [0, 1]], [3, 2, 2, 2, 1, 1, 1, 0],
                      per_purchase=2)
    assert m is not None and m.extra == 2  # the floored value read as 1: whole purchase


# --- arrays and bonus points ------------------------------------------------------
def test_inborn_array() -> None:
    d = legal()
    d["inborn"].update(agility=5, awareness=3)  # two 5s, three 3s; initiative unchanged
    f = the(only_error(d, "inborn-array"), "inborn-array")
    assert "5 is used 2 times" in f.message and "S4" in f.readings


def test_trained_array() -> None:
    d = legal()
    d["trained"]["technical"] = 1  # nothing left holds the array's 3
    f = the(only_error(d, "trained-array"), "trained-array")
    assert "3 or more on 1 attributes, but only 0" in f.message


def test_trained_below_the_species_bonus() -> None:
    d = species_sample("K'T'K", lambda d: True)
    d["trained"]["combat"] = 2  # K'T'K +3: no array value gives 2
    d = consistent(d)
    f = the(only_error(d, "trained-array"), "trained-array")
    assert "below 0 before the species modifier" in f.message


def test_bonus_points_written() -> None:
    d = legal()
    d["written"]["bonus_points"] = 2
    f = the(only_error(d, "bonus-points"), "bonus-points")
    assert f.fix == "Write 3."


def test_bonus_overspent() -> None:
    d = legal()
    d["luck"] = 2
    d["written"]["bonus_spent"] = 4
    f = the(only_error(d, "bonus-overspent"), "bonus-overspent")
    assert "4 bonus points" in f.message and {"S1", "S3"} <= set(f.readings)


def test_bonus_unspent() -> None:
    d = legal()
    d["luck"] = 0
    d["written"]["bonus_spent"] = 2
    only_warning(d, "bonus-unspent")


def test_bonus_half_used() -> None:
    d = legal()
    d["luck"] = 0
    d["hobbies"]["Chess"] = 2  # 1 free + 1 of the 2 a bonus point buys
    only_warning(d, "bonus-half-used")


def test_bonus_spent_written() -> None:
    d = legal()
    d["written"]["bonus_spent"] = 2
    only_error(d, "bonus-spent")


def test_bonus_point_buys_two_hobby_levels() -> None:
    d = legal()
    d["luck"] = 0
    d["hobbies"]["Chess"] = 3
    assert check(d).findings == ()


def test_bonus_point_buys_two_trait_points_reading_s2() -> None:
    d = legal()
    d["luck"] = 0
    d["traits"]["Careful"] = 6  # 12 trait points: one bonus point bought 2
    report = check(d)
    assert report.findings == ()
    assert report.computed["bonus_spent"]["traits"] == 1


def test_bonus_point_buys_one_luck() -> None:
    d = legal()
    d["departments"] = {}
    d["current_department"] = None
    d["luck"] = 2
    d["rank"] = 0
    d["gear"]["issue"] = ["Vac Suit"]
    d = consistent(d)
    report = check(d)
    assert report.findings == ()
    assert report.computed["bonus_spent"]["luck"] == 2


def test_free_hobby_level() -> None:
    d = legal()
    d["hobbies"] = {}
    only_warning(d, "hobby-free-unused")


def test_start_column_at_level0() -> None:
    d = legal()
    d["start"] = {"inborn": dict(d["inborn"]), "trained": {**d["trained"], "technical": 3}}
    only_error(d, "start-level0")


def test_creation_unchecked_when_advanced_without_start() -> None:
    d = advanced()
    del d["start"]
    only_warning(d, "creation-unchecked")


# --- species --------------------------------------------------------------------------
def test_attribute_maximum() -> None:
    d = species_sample("K'T'K", lambda d: d["inborn"]["agility"] == 7
                       and d["inborn"]["willpower"] == 5)
    d["inborn"].update(agility=8, willpower=4)  # swap the 4 and 5 of the array: 5+3 > 7
    d = consistent(d)
    f = the(only_error(d, "attribute-maximum"), "attribute-maximum")
    assert "K'T'K maximum of 7" in f.message and f.readings == ("S4",)


def test_sartini_health_maximum_is_6() -> None:
    d = species_sample("Sartini", lambda d: d["inborn"]["health"] == 4)  # base 5 - 1
    d["inborn"]["health"] = 7
    d["start"] = None
    del d["start"]
    report = check(consistent(d))
    assert "attribute-maximum" in codes(report, "error")


def test_species_unknown() -> None:
    d = legal()
    d["species"] = "Vulcan"
    only_error(d, "species-unknown")


def test_species_aliases() -> None:
    d = species_sample("K'T'K", lambda d: True)
    for name in ("KTK", "k't'k", "Bugs"):
        d["species"] = name
        assert check(d).findings == ()


def test_fate() -> None:
    d = legal()
    d["fate"] = 0
    f = the(only_error(d, "fate"), "fate")
    assert f.fix.startswith("Write 1") and f.readings == ("S6",)


def test_fate_raised_with_a_level() -> None:
    d = advanced(1)
    d["fate"] = 2  # the level went to fate
    assert not codes(check(d), "error")
    d["trained"]["technical"] = 5  # ... so no circles are left for this
    only_error(d, "advancement-circles")


def test_luck_after_advancing() -> None:
    d = advanced(1)
    d["luck"] = 2  # rank still 1: no even rank reached
    f = the(only_error(d, "luck"), "luck")
    assert "= 1" in f.message and f.readings == ("S3", "S17")


def test_racial_trait_kangid_bloodlust() -> None:
    d = species_sample("Kangid", lambda d: d["traits"].get("Bloodlust") == 2)
    del d["traits"]["Bloodlust"]
    only_error(d, "racial-trait")


def test_racial_trait_rigelian() -> None:
    d = species_sample("Rigelian", lambda d: d["traits"].get("Cowardly") == 1)
    del d["traits"]["Cowardly"]
    only_error(d, "racial-trait")


def test_racial_traits_are_free() -> None:
    d = species_sample("Rigelian", lambda d: d["traits"].get("Ruthless Curiosity") == 1
                       and d["traits"].get("Cowardly") == 1)
    assert sum(d["traits"].values()) - 2 == 10 + 2 * (
        check(d).computed["bonus_spent"]["traits"])


def test_special_abilities() -> None:
    d = legal()
    d["special_abilities"] = []
    only_warning(d, "special-abilities")


# --- principles, traits -------------------------------------------------------------
def test_principles_count() -> None:
    d = legal()
    d["principles"] = d["principles"][:1]
    only_error(d, "principles-count")
    d["principles"] = legal()["principles"] * 2
    only_error(d, "principles-count")


def test_principle_needs_belief_and_action() -> None:
    d = legal()
    d["principles"][1] = {"belief": "Someone aboard is selling our patrol routes",
                          "action": ""}
    only_error(d, "principle-incomplete")


def test_principle_on_one_line() -> None:
    d = legal()
    d["principles"][1] = "Someone aboard is selling our patrol routes; I will find out who"
    assert check(d).findings == ()
    d["principles"][1] = "Someone aboard is selling our patrol routes"
    f = the(only_warning(d, "principle-incomplete"), "principle-incomplete")
    assert f.severity == "warning" and f.readings == ("S18",)


def test_traits_none() -> None:
    d = legal()
    d["traits"] = {}
    only_error(d, "traits-none")


def test_trait_value() -> None:
    d = legal()
    d["traits"]["Lazy"] = 0
    only_error(d, "trait-value")


def test_traits_total() -> None:
    d = legal()
    d["traits"]["Careful"] = 3
    f = the(only_error(d, "traits-total"), "traits-total")
    assert "add up to 9" in f.message


def test_trait_adjective() -> None:
    d = legal()
    d["traits"] = {"Careful": 4, "Patient": 3, "Stubbornness": 3}
    only_warning(d, "trait-adjective")


# --- departments and rank -------------------------------------------------------------
def test_department_level_is_sum_of_fields() -> None:
    d = legal()
    d["departments"]["Engineering"]["fields"]["FTL Drives"] = 1
    f = the(only_error(d, "department-level"), "department-level")
    assert "add up to 2" in f.message


def test_field_belongs_to_its_department() -> None:
    d = legal()
    d["departments"]["Engineering"]["fields"] = {"Surgeon": 1}
    f = the(only_error(d, "field-department"), "field-department")
    assert "field of Medical" in f.message


def test_field_abbreviations() -> None:
    d = legal()
    d["departments"] = {"Engineer": {"level": 1, "fields": {"PS": 1}}}
    d["current_department"] = "Engineering"
    assert check(d).findings == ()


def test_custom_department_and_field() -> None:
    d = legal()
    d["departments"]["Diplomacy"] = {"level": 0, "fields": {}}
    only_warning(d, "department-custom")
    d = legal()
    d["departments"]["Engineering"]["fields"] = {"Warp Theory": 1}
    only_warning(d, "field-custom")


def test_current_department() -> None:
    d = legal()
    d["current_department"] = "Medical"
    only_error(d, "current-department")


def _officer(d: dict[str, Any]) -> dict[str, Any]:
    d["service"] = "officer"
    d["luck"] = 0
    d["departments"]["Officer"] = {"level": 1, "fields": {"Lead": 1}}
    return d


def test_officer_rank_is_lower_of_officer_and_department() -> None:
    d = consistent(_officer(legal()))
    assert check(d).findings == ()
    assert check(d).computed["rank_title"] == "Sublieutenant"
    d["rank"] = 2
    d = consistent(d)
    f = the(only_error(d, "rank-officer"), "rank-officer")
    assert "lower of Officer 1 and Engineering 1 = 1" in f.message


def test_officer_levels_need_officer_service() -> None:
    d = _officer(legal())
    d["service"] = "enlisted"
    only_error(d, "officer-service")


def test_officer_needs_a_real_department() -> None:
    d = _officer(legal())
    d["luck"] = 1
    del d["departments"]["Engineering"]
    del d["current_department"]
    d["rank"] = 0
    d["gear"]["issue"] = ["Vac Suit"]
    only_error(consistent(d), "officer-department")


def test_enlisted_rank_is_department_level() -> None:
    d = legal()
    d["rank"] = 2
    d["written"].update(issue_points=3, rank_title="Spacehand")
    f = the(only_warning(d, "rank-enlisted"), "rank-enlisted")
    assert f.readings == ("S10",)


def test_rank_title() -> None:
    d = legal()
    d["written"]["rank_title"] = "Spacehand"
    only_warning(d, "rank-title")
    d["written"]["rank_title"] = "apprentice"
    assert check(d).findings == ()


# --- derived values -------------------------------------------------------------------
@pytest.mark.parametrize(("key", "wrong", "working"), [
    ("initiative", 7, "(Agility 4 + Awareness 4)/2 + Combat 2 = 6"),
    ("toughness", 4, "(Health 3 + Physique 2 + Willpower 5)/2 = 5"),
    ("leadership", 3, "lower of Interpersonal 2 and Rank 1 is 1"),
    ("wound_penalty", 1, "= 0"),
    ("issue_points", 3, "1 per rank x Rank 1 + 1 for rank 0 = 2"),
])
def test_derived_value(key: str, wrong: int, working: str) -> None:
    d = legal()
    d["written"][key] = wrong
    code = key.replace("_", "-")
    f = the(only_error(d, code), code)
    assert f.message.startswith(f"{key.replace('_', ' ').capitalize()}: you wrote {wrong}; ")
    assert working in f.message, f.message
    assert f.fix.startswith("Write ")


def test_initiative_message_like_the_rules_example() -> None:
    d = legal()
    d["inborn"].update(agility=4, awareness=3, willpower=5, physique=2, health=3)
    d["inborn"]["awareness"] = 3
    d["inborn"]["physique"] = 4  # agl 4, phy 4, awr 3, hlt 3, wp 5: leftover 2
    d["luck"] = 0
    d["trained"]["combat"] = 2
    d["written"].update(initiative=6, toughness=6, bonus_points=2, bonus_spent=2)
    f = the(only_error(d, "initiative"), "initiative")
    assert f.message == ("Initiative: you wrote 6; (Agility 4 + Awareness 3)/2 + Combat 2 = 5, "
                         "rounded down.")


def test_wound_capacity() -> None:
    d = legal()
    d["written"]["wound_capacity"] = {"scratch": 3}
    only_error(d, "wound-capacity")


# --- gear -------------------------------------------------------------------------------
def test_gear_personal_points() -> None:
    d = legal()
    d["gear"]["personal"].append("Camera")
    f = the(only_error(d, "gear-personal"), "gear-personal")
    assert "3.5 points" in f.message


def test_gear_issue_points() -> None:
    d = legal()
    d["gear"]["issue"].append("Medkit")
    f = the(only_error(d, "gear-issue"), "gear-issue")
    assert "1 per rank x Rank 1 + 1 for rank 0 = 2" in f.message


def test_gear_unlisted() -> None:
    d = legal()
    d["gear"]["personal"][-1] = {"item": "Lucky charm", "cost": 1}
    only_warning(d, "gear-unlisted")


def test_gear_free() -> None:
    d = legal()
    d["gear"]["free"].append("Pistol, Energy")
    only_error(d, "gear-free")
    d = legal()
    d["gear"]["free"][1] = {"item": "Duty uniform", "count": 4}
    only_error(d, "gear-free")


def test_gear_mass_and_armor() -> None:
    d = legal()
    d["gear"]["personal"] = ["Lt Field Armor", "Hand Scanner", "Medkit"]
    gear = check(d).computed["gear"]
    assert gear["worn_armor"] == 2 and gear["mass_kg"] == pytest.approx(1 + 1 + 1 + 2 + 3)


# --- wounds -----------------------------------------------------------------------------
def test_wounds_over_capacity() -> None:
    d = legal()
    d["wounds"]["scratch"] = 5
    f = the(only_error(d, "wounds-over-capacity"), "wounds-over-capacity")
    assert "overflows to a light wound" in f.message


def test_wounds_incapacitated() -> None:
    d = legal()
    d["wounds"].update(light=1, heavy=2)
    d["written"]["wound_penalty"] = 5
    only_warning(d, "wounds-incapacitated")


# --- advancement ------------------------------------------------------------------------
def test_advanced_character_is_legal() -> None:
    d = advanced(1)
    d["trained"]["technical"] = 5
    d["trained"]["science"] = 3
    assert check(d).findings == ()


def test_advancement_circles() -> None:
    d = advanced(1)
    d["trained"]["technical"] = 6
    d["trained"]["science"] = 4  # 4 circles; one level gives 3
    f = the(only_error(d, "advancement-circles"), "advancement-circles")
    assert "takes 4 circles" in f.message


def test_advancement_lowered() -> None:
    d = advanced(1)
    d["trained"]["technical"] = 3
    only_error(d, "advancement-lowered")


def test_advancement_future() -> None:
    d = legal()
    d["advancement"] = {"conflict": [1]}
    only_error(d, "advancement-future")


def test_advancement_cell() -> None:
    d = legal()
    d["advancement"] = {"bonus": [0]}
    only_error(d, "advancement-cell")


def test_advancement_incomplete() -> None:
    d = advanced(1)
    d["advancement"]["risk"] = []
    only_warning(d, "advancement-incomplete")


def test_study_circles() -> None:
    d = legal()
    d["study"] = {"agility": 2, "Technical": 1}
    assert check(d).findings == ()
    d["study"] = {"technical": 2}
    only_error(d, "study-circles")


# --- blanks, as a form reader leaves them --------------------------------------------
def test_blank_attribute() -> None:
    d = legal()
    d["trained"]["psionics"] = None
    only_error(d, "blank-field")


def test_blank_species_and_level() -> None:
    d = legal()
    del d["species"]
    report = check(d)
    assert codes(report, "error") == {"blank-field"}
    d = legal()
    d["level"] = None
    assert "blank-field" in codes(check(d), "error")


# --- generated characters --------------------------------------------------------------
SPECIES = [s.name for s in load_data().species]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31 - 1),
       species=st.sampled_from([None, *SPECIES]), officer=st.sampled_from([None, True, False]))
def test_generated_characters_validate_clean(seed: int, species: str | None,
                                             officer: bool | None) -> None:
    char = generate(seed, species, officer=officer)
    report = validate_character(char)
    assert report.findings == (), [f.lines() for f in report.findings]
    text = yaml.safe_dump(char.to_dict(), sort_keys=False, allow_unicode=True)
    assert Character.from_dict(yaml.safe_load(text)) == char


def test_generate_is_reproducible() -> None:
    assert generate(42, "Mrin") == generate(42, "Mrin")
    assert generate(42) != generate(43)


# --- file format -------------------------------------------------------------------------
@pytest.mark.parametrize(("patch", "field"), [
    ({"inborn": {"agility": "four"}}, "inborn/agility"),
    ({"inborn": {"strength": 4}}, "inborn"),
    ({"level": -1}, "level"),
    ({"service": "civilian"}, "service"),
    ({"advancement": {"conflict": [10]}}, "advancement/conflict/0"),
    ({"gear": {"personal": [{"cost": 1}]}}, "gear/personal/0"),
    ({"favourite_colour": "blue"}, "(top level)"),
])
def test_schema_errors_name_the_field(patch: dict[str, Any], field: str) -> None:
    d = copy.deepcopy(legal())
    d.update(patch)
    with pytest.raises(StateFormatError) as e:
        Character.from_dict(d, source="x.yaml")
    assert f"x.yaml: field '{field}'" in e.value.message
    assert "\n" not in e.value.one_line()


def test_round_trip_of_the_samples() -> None:
    for path in (LEGAL, MISTAKES):
        char = Character.from_dict(yaml.safe_load(path.read_text()))
        assert Character.from_dict(char.to_dict()) == char


def test_mistakes_sample() -> None:
    report = check(yaml.safe_load(MISTAKES.read_text()))
    assert codes(report, "error") == {"department-level", "traits-total", "initiative",
                                      "gear-personal"}
    assert codes(report, "warning") == {"principle-incomplete"}


# --- the command line ----------------------------------------------------------------------
def test_cli_validate_legal_character() -> None:
    p = run_cli("validate", "character", str(LEGAL))
    assert p.returncode == 0, p.stderr
    assert "Ilse Varga" in p.stdout and "OK, 0 errors, 0 warnings" in p.stdout
    assert p.stderr == ""


def test_cli_validate_character_json() -> None:
    p = run_cli("validate", "character", str(MISTAKES), "--json")
    assert p.returncode == 1, p.stderr
    out = json.loads(p.stdout)
    assert out["kind"] == "spacer-character" and out["ok"] is False
    assert out["errors"] == 4 and out["warnings"] == 1
    init = next(f for f in out["findings"] if f["code"] == "initiative")
    assert init == {
        "code": "initiative", "severity": "error",
        "rule": "initiative = (Agl+Awr)/2 + Combat",
        "section": "Defining a Being > Attributes; Spacer Character Form",
        "fields": ["written.initiative"],
        "message": "Initiative: you wrote 10; (Agility 6 + Awareness 4)/2 + Combat 4 = 9.",
        "fix": "Write 9."}
    assert out["computed"]["initiative"] == 9
    assert "S7" in out["readings"]


def test_cli_validate_character_text() -> None:
    p = run_cli("validate", "character", str(MISTAKES))
    assert p.returncode == 1
    assert "NOT LEGAL, 4 errors, 1 warning" in p.stdout
    assert "error   initiative: Initiative: you wrote 10;" in p.stdout
    assert "reading S7:" in p.stdout


@pytest.mark.parametrize(("content", "suffix", "code", "text"), [
    (None, ".yaml", 3, "not found"),
    ("a: [1,\n", ".yaml", 5, "is not valid YAML (line 2)"),
    ('{"level": 0,}', ".json", 5, "is not valid JSON"),
    ("", ".yaml", 5, "is empty"),
    ("- 1\n- 2\n", ".yaml", 5, "field '(top level)'"),
    ("format: starsheets/spacer-character@1\ninborn: {agility: x}\n", ".yaml", 5,
     "field 'inborn/agility'"),
])
def test_cli_bad_input(tmp_path: Path, content: str | None, suffix: str, code: int,
                       text: str) -> None:
    path = tmp_path / f"char{suffix}"
    if content is not None:
        path.write_text(content)
    p = run_cli("validate", "character", str(path), "--json")
    assert p.returncode == code, (p.stdout, p.stderr)
    assert p.stdout == ""
    assert p.stderr.startswith("starsheets: error: ") and text in p.stderr
    assert p.stderr.count("\n") == 1  # one line


def test_cli_directory(tmp_path: Path) -> None:
    p = run_cli("validate", "character", str(tmp_path))
    assert p.returncode == 3
    assert "is a directory" in p.stderr and p.stderr.count("\n") == 1


def test_cli_new_character_validates(tmp_path: Path) -> None:
    out = tmp_path / "made.yaml"
    p = subprocess.run([sys.executable, "-m", "starsheets", "new", "character", "--species",
                        "Khizht", "--seed", "11", "-o", str(out)], capture_output=True,
                       text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    assert yaml.safe_load(out.read_text())["species"] == "Khizht"
    v = run_cli("validate", "character", str(out), "--json")
    assert v.returncode == 0 and json.loads(v.stdout)["findings"] == []


def test_cli_new_character_stdout_and_seed() -> None:
    args = [sys.executable, "-m", "starsheets", "new", "character", "--seed", "5"]
    a = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=120)
    b = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert a.returncode == 0 and a.stdout == b.stdout
    assert yaml.safe_load(a.stdout)["format"] == "starsheets/spacer-character@1"
    p = subprocess.run([*args[:-2], "--species", "Vulcan"], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert p.returncode == 2 and "unknown species 'Vulcan'" in p.stderr


# --- robustness: whatever a form reader fills in, the validator answers ----------------
_small = st.one_of(st.none(), st.integers(min_value=0, max_value=20))


@settings(max_examples=300, deadline=None)
@given(attrs=st.dictionaries(st.sampled_from([a.id for a in load_data().attributes]), _small),
       level=st.one_of(st.none(), st.integers(0, 10)), rank=st.one_of(st.none(),
                                                                     st.integers(0, 9)),
       luck=_small, fate=_small, species=st.sampled_from([None, "", "Human", "Mrin", "Zog"]),
       service=st.sampled_from([None, "officer", "enlisted"]),
       dept=st.sampled_from(["Engineering", "Officer", "Medical", "Basket Weaving"]),
       dept_level=_small, field_level=st.integers(0, 5),
       wounds=st.dictionaries(st.sampled_from(["scratch", "light", "heavy", "deadly"]),
                              st.integers(0, 6)),
       tallies=st.dictionaries(st.sampled_from([r.id for r in load_data().tally_rows]),
                               st.lists(st.integers(0, 9), unique=True, max_size=4)),
       with_start=st.booleans())
def test_validator_answers_any_filled_form(attrs: dict[str, int | None], level: int | None,
                                          rank: int | None, luck: int | None,
                                          fate: int | None, species: str | None,
                                          service: str | None, dept: str,
                                          dept_level: int | None, field_level: int,
                                          wounds: dict[str, int],
                                          tallies: dict[str, list[int]],
                                          with_start: bool) -> None:
    d = legal()
    data = load_data()
    for a, v in attrs.items():
        kind = data.attribute(a).kind
        d[kind][a] = v
    d.update(level=level, rank=rank, luck=luck, fate=fate, species=species, service=service,
             wounds={**d["wounds"], **wounds}, advancement=tallies)
    d["departments"] = {dept: {"level": dept_level, "fields": {"Lead": field_level}}}
    if with_start:
        d["start"] = {"inborn": dict(d["inborn"]), "trained": dict(d["trained"])}
    report = check(d)
    assert all(f.code in RULES for f in report.findings)
    assert all(f.message and f.fix for f in report.findings)
    json.dumps([f.to_dict() for f in report.findings])
    json.dumps(report.computed)


def test_an_empty_form() -> None:
    report = validate_character(Character())
    assert "blank-field" in codes(report, "error")
    assert not report.ok
