"""The Spacer Setting Form: each group's rule, blanks, the little-fun warning, the summary
and the CLI. Rule tests start from the agreed sample setting and change one thing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_spacer_character import run_cli

from game.spacer.data import load_data
from game.spacer.setting import Setting, SettingReport, validate_setting
from starsheets.errors import StateFormatError

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "spacer" / "rim-patrol-setting.yaml"


def agreed() -> dict[str, Any]:
    return yaml.safe_load(SAMPLE.read_text())


def check(data: dict[str, Any]) -> SettingReport:
    return validate_setting(Setting.from_dict(data))


def codes(report: SettingReport, severity: str | None = None) -> set[str]:
    return {f.code for f in report.findings if severity is None or f.severity == severity}


def only_error(data: dict[str, Any], code: str) -> SettingReport:
    report = check(data)
    assert codes(report, "error") == {code}, [f.lines() for f in report.findings]
    return report


def only_warning(data: dict[str, Any], code: str) -> SettingReport:
    report = check(data)
    assert code in codes(report, "warning"), [f.lines() for f in report.findings]
    assert not codes(report, "error"), [f.lines() for f in report.findings]
    return report


def test_sample_is_agreed() -> None:
    report = check(agreed())
    assert report.findings == ()
    assert report.ok


def test_form_groups() -> None:
    data = load_data()
    single = {g.id for g in data.setting_groups if g.choice == "single"}
    assert single == {"employer", "government", "power", "oversight_reach",
                      "oversight_frequency", "oversight_attitude"}
    blanks = {g.id: g.blanks for g in data.setting_groups}
    assert blanks == {"employer": 0, "government": 1, "lawmaking": 2, "judicial": 2,
                      "agencies": 0, "scope": 1, "threats": 2, "power": 0,
                      "oversight_reach": 0, "oversight_frequency": 0, "oversight_attitude": 0}


@pytest.mark.parametrize("group", [g.id for g in load_data().setting_groups])
def test_every_group_needs_a_choice(group: str) -> None:
    d = agreed()
    d[group] = None
    report = only_error(d, "setting-group-empty")
    assert next(f for f in report.findings if f.code == "setting-group-empty").fields \
        == (group,)


@pytest.mark.parametrize(("group", "two"), [
    ("employer", ["Military", "Mercenary"]),
    ("government", ["Federation", {"blank": "Technocracy"}]),
    ("power", ["Small Fish", "Big Change"]),
    ("oversight_reach", ["Remote", "None"]),
    ("oversight_frequency", ["Often", "Seldom"]),
    ("oversight_attitude", ["Restrictive", "Permissive"]),
])
def test_single_choice_groups(group: str, two: list[Any]) -> None:
    d = agreed()
    d[group] = two
    only_error(d, "setting-single-choice")


@pytest.mark.parametrize(("group", "several"), [
    ("lawmaking", ["Senate", "President", "High Court", {"blank": "Guild Council"}]),
    ("judicial", ["High Court", "Inquisitors"]),
    ("agencies", ["Navy", "Army", "Psi-Corps", "Star Police"]),
    ("scope", ["Core Worlds", "Marches", "Borders"]),
    ("threats", ["Internal Threat", "Subversion", {"blank": "Plague"}, {"blank": "Pirates"}]),
])
def test_several_choice_groups(group: str, several: list[Any]) -> None:
    d = agreed()
    d[group] = several
    assert check(d).findings == ()


def test_unknown_option_suggests() -> None:
    d = agreed()
    d["lawmaking"] = ["Senat"]
    report = only_error(d, "setting-unknown-option")
    assert "Did you mean Senate?" in report.findings[0].fix


def test_case_and_spacing_do_not_matter() -> None:
    d = agreed()
    d["employer"] = "military"
    d["agencies"] = ["scout service", "MARINE CORPS", "psi corps"]
    assert check(d).findings == ()


def test_blank_in_a_group_without_blanks() -> None:
    d = agreed()
    d["agencies"] = ["Navy", {"blank": "Spies"}]
    only_error(d, "setting-no-blank")


def test_ticked_blank_must_be_filled() -> None:
    d = agreed()
    d["government"] = {"blank": ""}
    only_error(d, "setting-blank-empty")


def test_written_blank_not_ticked() -> None:
    d = agreed()
    d["threats"] = ["Aliens", {"blank": "Pirates", "ticked": False}]
    only_warning(d, "setting-blank-unticked")


def test_too_many_blanks() -> None:
    d = agreed()
    d["scope"] = ["Borders", {"blank": "The Drift"}, {"blank": "The Deep"}]
    only_warning(d, "setting-too-many-blanks")


def test_duplicate_choice() -> None:
    d = agreed()
    d["threats"] = ["Aliens", "aliens"]
    only_warning(d, "setting-duplicate")


def test_local_authoritarian_is_little_fun() -> None:
    d = agreed()
    d["oversight_reach"] = "Local"
    d["oversight_attitude"] = "Authoritarian"
    report = only_warning(d, "setting-little-fun")
    f = next(f for f in report.findings if f.code == "setting-little-fun")
    assert set(f.fields) == {"oversight_reach", "oversight_attitude"}


def test_remote_authoritarian_is_a_note_not_a_warning() -> None:
    d = agreed()
    d["oversight_attitude"] = "Authoritarian"
    report = check(d)
    assert report.findings == ()
    assert any("Remote, authoritarian" in r for r in report.summary["remarks"])
    assert "Note: Remote, authoritarian" in report.text


def test_enemy_turf_needs_a_write_up() -> None:
    d = agreed()
    d["scope"] = ["Borders", "Enemy Turf"]
    only_warning(d, "setting-enemy-turf")
    d["enemies"] = "The K'T'K hive worlds: ..."
    assert check(d).findings == ()


def test_summary_text() -> None:
    text = check(agreed()).text
    assert text.startswith("The Rim Patrol\n==============\n")
    assert "You work for: Military." in text
    assert "Home government: Confederation (The Concord of Free Worlds)." in text
    assert "Laws are made by Senate and Popular vote; judged by High Court and Local Courts." \
        in text
    assert "Threats: External Threat, Shipboard Strife, Aliens and Pirates." in text
    assert "Oversight: Remote, Often, Restrictive." in text
    assert len(text.splitlines()) < 60  # one page


def test_summary_structure() -> None:
    s = check(agreed()).summary
    assert s["groups"]["threats"]["chosen"][-1] == {"name": "Pirates", "own": True, "text": ""}
    assert s["groups"]["employer"]["choice"] == "single"


def test_round_trip() -> None:
    setting = Setting.from_dict(agreed())
    assert Setting.from_dict(setting.to_dict()) == setting


@pytest.mark.parametrize(("patch", "field"), [
    ({"employer": 3}, "employer"),
    ({"threats": [{"blank": "x", "ticked": "yes"}]}, "threats/0/ticked"),
    ({"oversight": "Local"}, "(top level)"),
])
def test_schema_errors_name_the_field(patch: dict[str, Any], field: str) -> None:
    d = agreed()
    d.update(patch)
    with pytest.raises(StateFormatError) as e:
        Setting.from_dict(d, source="s.yaml")
    assert f"s.yaml: field '{field}'" in e.value.message


def test_cli_validate_setting_text() -> None:
    p = run_cli("validate", "setting", str(SAMPLE))
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("The Rim Patrol\n")
    assert "OK, 0 errors, 0 warnings" in p.stdout


def test_cli_validate_setting_json(tmp_path: Path) -> None:
    d = agreed()
    d.update(oversight_reach="Local", oversight_attitude="Authoritarian", employer=None)
    path = tmp_path / "setting.json"
    path.write_text(json.dumps(d))
    p = run_cli("validate", "setting", str(path), "--json")
    assert p.returncode == 1, p.stderr
    out = json.loads(p.stdout)
    assert out["kind"] == "spacer-setting" and out["ok"] is False
    assert {f["code"] for f in out["findings"]} == {"setting-group-empty",
                                                    "setting-little-fun"}
    assert out["summary"]["groups"]["oversight_reach"]["chosen"][0]["name"] == "Local"


@pytest.mark.parametrize(("content", "code", "text"), [
    (None, 3, "not found"),
    ("employer: [Military\n", 5, "is not valid YAML"),
    ("employer: Military\nflavour: 3\n", 5, "field '(top level)'"),
])
def test_cli_bad_setting_input(tmp_path: Path, content: str | None, code: int,
                               text: str) -> None:
    path = tmp_path / "setting.yaml"
    if content is not None:
        path.write_text(content)
    p = run_cli("validate", "setting", str(path))
    assert p.returncode == code
    assert p.stdout == "" and text in p.stderr and p.stderr.count("\n") == 1


def test_cli_setting_directory(tmp_path: Path) -> None:
    p = run_cli("validate", "setting", str(tmp_path), "--json")
    assert p.returncode == 3 and "is a directory" in p.stderr
