"""One error hierarchy and the one place that says which exit code each outcome gets (DESIGN.md §7)."""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    OK = 0
    ERROR = 1
    USAGE = 2
    BUSY = 3  # another run, or Claude Code's own auto-dream, holds the memory
    VERIFICATION_FAILED = 4
    INTERRUPTED = 130


class TargetStatus(str, enum.Enum):
    """How one memory dir's run ended (the value is what reports and JSON say)."""

    OK = "ok"
    BUSY = "busy"
    FAILED = "failed"
    VERIFICATION_FAILED = "verification-failed"

    def __str__(self) -> str:
        return self.value

    @property
    def exit_code(self) -> ExitCode:
        return {
            TargetStatus.OK: ExitCode.OK,
            TargetStatus.BUSY: ExitCode.BUSY,
            TargetStatus.FAILED: ExitCode.ERROR,
            TargetStatus.VERIFICATION_FAILED: ExitCode.VERIFICATION_FAILED,
        }[self]


class DreamError(Exception):
    """Any failure dream reports to the user. The message is meant to be read by a person."""

    exit_code = ExitCode.ERROR


class UsageError(DreamError):
    exit_code = ExitCode.USAGE


class BusyError(DreamError):
    """Another run (ours or Claude Code's own auto-dream) holds the memory dir."""

    exit_code = ExitCode.BUSY


class VerificationError(DreamError):
    exit_code = ExitCode.VERIFICATION_FAILED

    def __init__(self, message: str, failed_checks: list[str] | None = None) -> None:
        super().__init__(message)
        self.failed_checks = failed_checks or []
