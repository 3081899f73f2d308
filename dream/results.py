"""What each command returns: typed results the CLI renders (`render.py`) as text or JSON.

`RunResult` (run, approve) lives with the run report in `report.py`; the others are here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from dream.errors import ExitCode

if TYPE_CHECKING:
    from dream.orient import OrientReport
    from dream.packet import Packet
    from dream.signals import Signal
    from dream.transcripts import ReadStats
    from dream.verify import Check


@dataclass
class SignalsResult:
    signals: list[Signal]
    read: ReadStats | None
    cached: int  # sessions whose digest was reused unread
    exit_code: ExitCode = ExitCode.OK


@dataclass
class OrientResult:
    reports: list[OrientReport]
    exit_code: ExitCode = ExitCode.OK

    def to_json(self) -> list[dict[str, Any]]:
        return [asdict(r) for r in self.reports]


@dataclass
class TargetChecks:
    project: str
    checks: list[Check]


@dataclass
class VerifyResult:
    targets: list[TargetChecks]

    @property
    def failed(self) -> list[str]:
        """The names of the checks that failed anywhere, sorted."""
        return sorted({c.name for t in self.targets for c in t.checks if not c.ok})

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.VERIFICATION_FAILED if self.failed else ExitCode.OK

    def to_json(self) -> list[dict[str, Any]]:
        return [
            {"project": t.project, "check": c.name, "ok": c.ok, "detail": c.detail}
            for t in self.targets
            for c in t.checks
        ]


@dataclass
class ReviewItem:
    project: str
    # The stored proposal (`review.proposal_to_json`): id, action, file, text, why, hold, …
    proposal: dict[str, Any]


@dataclass
class ReviewResult:
    items: list[ReviewItem]
    exit_code: ExitCode = ExitCode.OK

    def to_json(self) -> list[dict[str, Any]]:
        return [{"project": i.project, **i.proposal} for i in self.items]


@dataclass
class RunSummary:
    run_id: str | None
    status: str | None
    counts: dict[str, int] | None


@dataclass
class ProjectStatus:
    key: str
    memory_dir: str
    hours_since_last_dream: float | None
    sessions_since_last_dream: int
    pending: bool
    last_runs: list[RunSummary] = field(default_factory=list)


@dataclass
class StatusResult:
    claude_dir: str
    pending_flag: bool
    pending_projects: list[str]
    min_hours: float
    min_sessions: int
    projects: list[ProjectStatus]
    consolidator: str = "none"
    exit_code: ExitCode = ExitCode.OK

    def to_json(self) -> dict[str, Any]:
        return {
            "claude_dir": self.claude_dir,
            "pending_flag": self.pending_flag,
            "pending_projects": self.pending_projects,
            "thresholds": {"min_hours": self.min_hours, "min_sessions": self.min_sessions},
            "consolidator": self.consolidator,
            "projects": [asdict(p) for p in self.projects],
        }


@dataclass
class PlanResult:
    """`plan --json`: the packet of the agent pass (DESIGN.md §9)."""

    packet: Packet
    exit_code: ExitCode = ExitCode.OK

    def to_json(self) -> dict[str, Any]:
        return self.packet.to_json()


@dataclass
class RejectResult:
    rejected: int
    exit_code: ExitCode = ExitCode.OK


@dataclass
class RestoredTarget:
    project: str
    files: list[str]
    undo: str = ""  # the snapshot of what the restore replaced: `dream restore <undo>` undoes it


@dataclass
class RestoreResult:
    restored: list[RestoredTarget]
    exit_code: ExitCode = ExitCode.OK
