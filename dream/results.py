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
    from dream.schedule import RunTrigger, TickAction
    from dream.service import ServiceCommand, ServiceKind
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
    trigger: str | None = "manual"


@dataclass
class ScheduleStatus:
    """The nightly schedule as `status` shows it."""

    at: str | None  # DREAM_AT; None: no schedule
    handled: str | None  # the newest day whose window was handled
    last_trigger: str | None
    last_outcome: str | None
    next_window: str | None
    due_now: bool  # a window is due (the daemon's next tick runs it)
    next_check: str | None
    service: list[str] = field(default_factory=list)  # the service kinds installed


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
    schedule: ScheduleStatus | None = None
    exit_code: ExitCode = ExitCode.OK

    def to_json(self) -> dict[str, Any]:
        return {
            "schedule": asdict(self.schedule) if self.schedule else None,
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


# -- the nightly schedule (issue 18) ------------------------------------------------------------


@dataclass
class ProjectRun:
    """One project's scheduled run, as the tick that dispatched it saw it end."""

    project: str
    status: str
    exit_code: ExitCode = ExitCode.OK
    detail: str = ""


@dataclass
class TickResult:
    """`daemon --once [--execute]`: what one tick does (or would do) and why."""

    now: str
    at: str | None
    action: TickAction
    why: str
    trigger: RunTrigger | None
    window: str | None
    handled: str | None  # the newest day handled, after this tick
    next_window: str | None
    next_check: str
    projects: list[str]
    executed: bool
    consolidator: str = "none"
    runs: list[ProjectRun] = field(default_factory=list)
    exit_code: ExitCode = ExitCode.OK

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["action"] = str(self.action)
        data["trigger"] = str(self.trigger) if self.trigger else None
        data["exit_code"] = int(self.exit_code)
        data["runs"] = [{**asdict(r), "exit_code": int(r.exit_code)} for r in self.runs]
        return data


@dataclass
class ServiceFile:
    path: str
    state: str  # "written", "unchanged", "removed", "absent", "present"


@dataclass
class ServiceResult:
    """`service install | uninstall | status`."""

    command: ServiceCommand
    kind: ServiceKind | None
    files: list[ServiceFile] = field(default_factory=list)
    # The service manager's commands, as run (or as the person should run them).
    ran: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    installed: list[str] = field(default_factory=list)  # the kinds installed after the command
    schedule: ScheduleStatus | None = None  # as `status` shows it
    exit_code: ExitCode = ExitCode.OK

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["command"] = str(self.command)
        data["kind"] = str(self.kind) if self.kind else None
        data["exit_code"] = int(self.exit_code)
        sched = self.schedule
        data["at"] = sched.at if sched else None
        data["handled"] = sched.handled if sched else None
        data["next_window"] = sched.next_window if sched else None
        return data
