"""The run report: what was read, proposed, applied, held, refused, redacted, and what failed.

Bounded, as careful consolidation tools keep theirs: at most 12 proposals, 20 refusals and 5
failures listed, counts for the rest; one row per run per memory dir, the newest 50 kept.
Never holds a secret value: only the redacted text and the kinds of secret.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from dream import defaults
from dream.errors import ExitCode, TargetStatus
from dream.transcripts import Excluded, ReadStats


@dataclass
class TargetReport:
    key: str
    memory_dir: str
    memory_type: str
    sessions: int = 0
    signals: int = 0
    signals_over_cap: int = 0  # left out: more than DIGEST_MAX_PER_CATEGORY of one category a session
    proposals: list[dict[str, Any]] = field(default_factory=list)
    refusals: list[dict[str, str]] = field(default_factory=list)
    redactions: dict[str, int] = field(default_factory=dict)
    unsafe: list[str] = field(default_factory=list)
    archived: list[dict[str, str]] = field(default_factory=list)
    migrated: int = 0
    moved_sections: int = 0
    pruned: int = 0
    demoted: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    unparsed: list[dict[str, str]] = field(default_factory=list)
    backup: str | None = None
    snapshot: str | None = None
    replanned: bool = False
    checks: list[dict[str, Any]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    diff: str = ""
    status: TargetStatus = TargetStatus.OK
    missing_project: bool = False
    budget: dict[str, int] = field(default_factory=dict)
    # The agent pass: each decision as the host judged it (see decisions.DecisionCheck.to_json).
    decisions: list[dict[str, Any]] = field(default_factory=list)
    # The memory moved between `plan` and `apply`: the decisions were re-mapped onto it.
    remapped: bool = False
    # No new evidence and nothing written: the memory dir was not touched at all.
    unchanged: bool = False

    def counts(self) -> dict[str, int]:
        outcomes = Counter(p["outcome"] for p in self.proposals)
        actions = Counter(p["action"] for p in self.proposals if p["outcome"] == "applied")
        return {
            "added": actions.get("add", 0),
            "updated": actions.get("update", 0) + actions.get("redate", 0),
            "contradictions_resolved": actions.get("replace", 0),
            "archived": len(self.archived),
            "applied": outcomes.get("applied", 0),
            "pending": outcomes.get("pending", 0),
            "dropped": outcomes.get("dropped", 0),
            "refused": len(self.refusals),
        }


@dataclass
class RunResult:
    run_id: str
    started: str
    dry_run: bool
    since: str
    read: dict[str, Any]
    digests: dict[str, Any]
    targets: list[TargetReport] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    exit_code: ExitCode = ExitCode.OK
    # The agent pass: the plan applied (`apply --decisions`), the consolidator's calls.
    plan: str | None = None
    model: dict[str, Any] | None = None
    # Decisions that named no candidate of any memory dir in the plan.
    unplaced: list[dict[str, Any]] = field(default_factory=list)
    # Why the run happened (`schedule.RunTrigger`): manual, scheduled or recovered.
    trigger: str = "manual"

    @property
    def decisions(self) -> list[dict[str, Any]]:
        return [d for t in self.targets for d in t.decisions] + self.unplaced

    def to_json(self, bounded: bool = True) -> dict[str, Any]:
        data = asdict(self)
        data["decisions"] = self.decisions
        data["targets"] = [
            _bounded(t) if bounded else {**asdict(t), "counts": t.counts()} for t in self.targets
        ]
        data["failures"], data["failures_more"] = _cap(self.failures, defaults.REPORT_MAX_FAILURES)
        return data


def _cap(items: list[Any], limit: int) -> tuple[list[Any], int]:
    return items[:limit], max(0, len(items) - limit)


def _bounded(target: TargetReport) -> dict[str, Any]:
    data = asdict(target)
    data["counts"] = target.counts()
    data["proposals"], data["proposals_more"] = _cap(target.proposals, defaults.REPORT_MAX_PROPOSALS)
    data["refusals"], data["refusals_more"] = _cap(target.refusals, defaults.REPORT_MAX_REFUSALS)
    data["failures"], data["failures_more"] = _cap(target.failures, defaults.REPORT_MAX_FAILURES)
    data["archived"], data["archived_more"] = _cap(target.archived, defaults.REPORT_MAX_PROPOSALS)
    data.pop("diff")
    return data


def read_stats_json(stats: ReadStats) -> dict[str, Any]:
    return {
        "files": stats.files,
        "bytes": stats.bytes,
        "lines": stats.lines,
        "user_messages": stats.user_messages,
        "skipped": {
            "malformed": stats.malformed_lines,
            "oversized": stats.oversized_lines,
            "invalid_utf8": stats.invalid_utf8_lines,
            "truncated_last_line": stats.truncated_last_lines,
        },
        # Not the person's words (DESIGN.md §3), by kind; cached sessions included.
        "excluded": {kind.key: stats.excluded[kind] for kind in Excluded if stats.excluded[kind]},
        "tool_injections": stats.tool_injections,
        "unreadable": [{"path": p, "reason": r} for p, r in stats.unreadable[: defaults.REPORT_MAX_FAILURES]],
        "unreadable_more": max(0, len(stats.unreadable) - defaults.REPORT_MAX_FAILURES),
    }
