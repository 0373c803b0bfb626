"""Exit codes and the user-facing error types: one kind of mistake, one exception, one code."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit codes, stable for scripts."""

    OK = 0
    FINDINGS = 1  # input read, but the result has problems (invalid career, marks to review)
    USAGE = 2  # bad command-line arguments (click's own code)
    INPUT_FILE = 3  # missing, unreadable, corrupt or unsupported input file
    MISSING_DEPENDENCY = 4  # an external program or library is not installed
    STATE_FORMAT = 5  # a state/character file does not follow its documented format
    OUTPUT = 6  # cannot write the requested output
    ENCRYPTED = 7  # an encrypted PDF
    NOT_A_SHEET = 8  # the image holds no sheet, or a sheet of another kind
    INTERNAL = 15  # a bug: please report it
    INTERRUPTED = 130


class StarsheetsError(Exception):
    """A mistake the user can fix: `message` says what is wrong, `fix` what to do."""

    exit_code: ExitCode = ExitCode.INTERNAL

    def __init__(self, message: str, fix: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix

    def one_line(self) -> str:
        text = self.message.rstrip(".")
        return f"{text}. {self.fix}".strip() if self.fix else f"{text}."


class UsageError(StarsheetsError):
    exit_code = ExitCode.USAGE


class InputFileError(StarsheetsError):
    exit_code = ExitCode.INPUT_FILE


class MissingDependencyError(StarsheetsError):
    exit_code = ExitCode.MISSING_DEPENDENCY


class StateFormatError(StarsheetsError):
    exit_code = ExitCode.STATE_FORMAT


class OutputError(StarsheetsError):
    exit_code = ExitCode.OUTPUT


class EncryptedPdfError(StarsheetsError):
    exit_code = ExitCode.ENCRYPTED


class NotASheetError(StarsheetsError):
    exit_code = ExitCode.NOT_A_SHEET
