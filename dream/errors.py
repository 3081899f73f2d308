"""One error hierarchy; each error knows the exit code the CLI returns for it (DESIGN.md §7)."""

from __future__ import annotations


class DreamError(Exception):
    """Any failure dream reports to the user. The message is meant to be read by a person."""

    exit_code = 1


class UsageError(DreamError):
    exit_code = 2


class BusyError(DreamError):
    """Another run (ours or Claude Code's own auto-dream) holds the memory dir."""

    exit_code = 3


class VerificationError(DreamError):
    exit_code = 4

    def __init__(self, message: str, failed_checks: list[str] | None = None) -> None:
        super().__init__(message)
        self.failed_checks = failed_checks or []
