"""The sheet commands as a user runs them: outputs, defaults and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from pypdf import PdfReader

import sheets
from starsheets.cli import main
from starsheets.errors import ExitCode

Cli = Callable[..., subprocess.CompletedProcess[bytes]]

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "dan-tour3.json"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run the CLI in a child process, exactly as a user does."""
    return subprocess.run([sys.executable, "-m", "starsheets", *args], capture_output=True,
                          cwd=cwd or ROOT, timeout=120)


@pytest.fixture
def cli(capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
        ) -> Callable[..., subprocess.CompletedProcess[bytes]]:
    """Run `starsheets.cli.main` in this process (fast), with the same exit codes and
    output streams as the child process of `run`."""

    def call(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
        monkeypatch.chdir(cwd or ROOT)
        with pytest.raises(SystemExit) as exit_info:
            main(list(args))
        out, err = capsysbinary.readouterr()
        return subprocess.CompletedProcess(list(args), int(exit_info.value.code or 0), out, err)

    return call


def test_print_default_name_and_fillable(tmp_path: Path, cli: Cli) -> None:
    r = run("print", "career", "--paper", "a4", "--edition", "earlier", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "career-earlier-a4.pdf"
    assert out.is_file() and r.stdout == b""
    assert b"career-earlier-a4.pdf" in r.stderr
    assert len(PdfReader(out).pages) == 1
    r = cli("print", "career", "--fillable", "-o", str(tmp_path / "f.pdf"))
    assert r.returncode == 0, r.stderr
    assert "mission.aid.1" in PdfReader(tmp_path / "f.pdf").get_fields()


def test_layout_json_is_the_manifest(cli: Cli) -> None:
    r = cli("layout", "career", "--paper", "a4", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data == sheets.layout("career", "later", "a4").to_dict()
    assert data["format"] == "starsheets/layout@1"
    digits = [x for x in data["regions"] if x["kind"] == "digits"]
    assert digits and all(d["digits"] == len(d["cells"]) == 3 for d in digits)
    summary = cli("layout", "career")
    assert summary.returncode == 0 and b"317" in summary.stdout


def test_fill_and_read_form(tmp_path: Path, cli: Cli) -> None:
    out = tmp_path / "dan.pdf"
    r = cli("fill", str(SAMPLE), "-o", str(out), "--style", "clean")
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 10000
    again = cli("fill", str(SAMPLE), "-o", "-", "--style", "clean")
    assert again.returncode == 0 and out.read_bytes() == again.stdout
    # a filled printed sheet carries its manifest but no form fields: an empty state
    r = cli("read-form", str(out))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["name"] == ""


@pytest.mark.parametrize(("args", "code", "words"), [
    (("print", "spacer-nope"), ExitCode.USAGE, "unknown sheet kind"),
    (("print", "career", "--paper", "b5"), ExitCode.USAGE, "unknown paper size"),
    (("print", "career", "--edition", "newest"), ExitCode.USAGE, "unknown OPIAL edition"),
    (("layout", "nope", "--json"), ExitCode.USAGE, "unknown sheet kind"),
    (("fill", "missing.json", "-o", "x.pdf"), ExitCode.INPUT_FILE, "not found"),
    (("fill", str(SAMPLE), "-o", "x.pdf", "--paper", "a3"), ExitCode.USAGE, "paper"),
    (("read-form", "missing.pdf"), ExitCode.INPUT_FILE, "not found"),
])
def test_errors_are_one_line(tmp_path: Path, args: tuple[str, ...], code: ExitCode,
                             words: str, cli: Cli) -> None:
    r = cli(*args, cwd=tmp_path)
    err = r.stderr.decode()
    assert r.returncode == int(code), err
    assert err.count("\n") == 1 and err.startswith("starsheets: error:"), err
    assert words in err
    assert not (tmp_path / "x.pdf").exists()


@pytest.mark.parametrize(("content", "code"), [
    ('{"tours": "x"}', ExitCode.STATE_FORMAT),
    ('{"skills": {"fitness": 9}}', ExitCode.STATE_FORMAT),
    ('{"written": {"total": 12345}}', ExitCode.STATE_FORMAT),
    ("{not json", ExitCode.STATE_FORMAT),
])
def test_invalid_state(tmp_path: Path, content: str, code: ExitCode, cli: Cli) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    r = cli("fill", str(bad), "-o", str(tmp_path / "x.pdf"), cwd=tmp_path)
    err = r.stderr.decode()
    assert r.returncode == int(code), err
    assert err.count("\n") == 1 and "bad.json" in err
    assert not (tmp_path / "x.pdf").exists()


def test_unwritable_output(tmp_path: Path, cli: Cli) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = cli("print", "career", "-o", str(blocker / "sub" / "c.pdf"))
    assert r.returncode == int(ExitCode.OUTPUT), r.stderr


@pytest.mark.parametrize(("args", "code", "line"), [
    (("print", "career", "--paper", "b5"), ExitCode.USAGE,
     "starsheets: error: unknown paper size 'b5'. Use one of: letter, a4."),
    (("fill", "missing.json", "-o", "x.pdf"), ExitCode.INPUT_FILE,
     "starsheets: error: state file not found: missing.json. Check the path and try again."),
])
def test_child_process_errors(tmp_path: Path, args: tuple[str, ...], code: ExitCode,
                              line: str) -> None:
    """Real child processes: the one line and the exit code reach the shell."""
    r = run(*args, cwd=tmp_path)
    assert r.returncode == int(code)
    assert r.stderr.decode().strip() == line
    assert r.stdout == b""
    assert list(tmp_path.iterdir()) == []
