"""The run report: what was read, proposed, applied, held, refused, redacted, and what failed.

Bounded, as careful consolidation tools keep theirs: at most 12 proposals, 20 refusals and 5
failures listed, counts for the rest; one row per run per memory dir, the newest 50 kept.
Never holds a secret value: only the redacted text and the kinds of secret.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
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
    proposals: list[dict[str, Any]] = field(default_factory=list)
    refusals: list[dict[str, str]] = field(default_factory=list)
    redactions: dict[str, int] = field(default_factory=dict)
    unsafe: list[str] = field(default_factory=list)
    archived: list[dict[str, str]] = field(default_factory=list)
    migrated: int = 0
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

    def to_json(self, bounded: bool = True) -> dict[str, Any]:
        data = asdict(self)
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


def excluded_line(excluded: dict[str, int]) -> str:
    """`skipped: 412 SDK-session entries, 18 task notifications, …`: what was not the person's."""
    parts = [f"{excluded[kind.key]} {kind.value}" for kind in Excluded if excluded.get(kind.key)]
    return "skipped (not your words): " + ", ".join(parts)


def read_summary_line(stats: ReadStats | None, cached: int = 0) -> str:
    """One line on what a gather read; `cached`: sessions whose digest was reused unread."""
    if stats is None:
        return ""
    skipped = stats.malformed_lines + stats.oversized_lines + stats.truncated_last_lines
    parts = [f"read {stats.files} files, {stats.user_messages} user messages"]
    if cached:
        parts.insert(0, f"{_count(cached, 'session', 'sessions')} unchanged since last read (digest cache)")
    if skipped:
        parts.append(
            f"skipped {skipped} lines (malformed {stats.malformed_lines}, oversized {stats.oversized_lines}, "
            f"truncated {stats.truncated_last_lines})"
        )
    if stats.excluded:
        parts.append(excluded_line({kind.key: n for kind, n in stats.excluded.items()}))
    if stats.invalid_utf8_lines:
        parts.append(f"{stats.invalid_utf8_lines} lines with invalid UTF-8 (read with replacement)")
    if stats.unreadable:
        names = ", ".join(f"{p} ({r})" for p, r in stats.unreadable[:3])
        more = f" and {len(stats.unreadable) - 3} more" if len(stats.unreadable) > 3 else ""
        parts.append(f"could not read {names}{more}")
    return "dream: " + "; ".join(parts)


def save_report_row(path: Path, row: dict[str, Any]) -> None:
    """Append one row to a memory dir's report file and keep the newest REPORTS_KEPT."""
    from dream.fsio import atomic_write_text

    rows = load_report_rows(path)
    rows.append(row)
    rows = rows[-defaults.REPORTS_KEPT :]
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def load_report_rows(path: Path) -> list[dict[str, Any]]:
    rows = []
    try:
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict):
                rows.append(row)
    except OSError:
        return []
    return rows


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def render_run(result: RunResult, as_json: bool = False) -> str:
    if as_json:
        return json.dumps(result.to_json(), ensure_ascii=False, indent=2)
    out: list[str] = []
    mode = "DRY RUN (nothing written)" if result.dry_run else "run"
    read = result.read
    skipped = read["skipped"]
    out.append(f"dream {mode} {result.run_id}  window since {result.since[:10]}")
    out.append(
        f"read: {read['files']} session files, {read['user_messages']} user messages; "
        f"digests built {result.digests['built']}, reused {result.digests['reused']}, "
        f"dropped {result.digests['dropped']}; "
        f"lines skipped: {skipped['malformed']} malformed, {skipped['oversized']} oversized, "
        f"{skipped['truncated_last_line']} truncated, {skipped['invalid_utf8']} invalid UTF-8"
    )
    if read.get("excluded"):
        out.append(excluded_line(read["excluded"]))
    for item in read["unreadable"]:
        out.append(f"  could not read {item['path']}: {item['reason']}")
    if read.get("tool_injections"):
        out.append(
            f"unsafe text: {_count(read['tool_injections'], 'tool result', 'tool results')} "
            "tried to instruct the agent "
            "(ignored: only your own words can become memory)"
        )
    if not result.targets:
        out.append("no memory to consolidate in this window")
    for target in result.targets:
        out.extend(_render_target(target, result.dry_run))
    for failure in result.failures[: defaults.REPORT_MAX_FAILURES]:
        out.append(f"failure: {failure}")
    return "\n".join(out)


def _render_target(target: TargetReport, dry_run: bool) -> list[str]:
    counts = target.counts()
    out = ["", f"== {target.key}  ({target.memory_type}: {target.memory_dir})  [{target.status}]"]
    out.append(
        f"sessions {target.sessions}, signals {target.signals}; "
        f"added {counts['added']}, updated {counts['updated']}, "
        f"contradictions resolved {counts['contradictions_resolved']}, archived {counts['archived']}, "
        f"pending review {counts['pending']}, refused {counts['refused']}"
    )
    out += _render_proposals(target) + _render_refusals(target) + _render_notes(target)
    for check in target.checks:
        if not check["ok"]:
            out.append(f"VERIFY FAILED {check['name']}: {check['detail']}")
    for failure in target.failures[: defaults.REPORT_MAX_FAILURES]:
        out.append(f"failure: {failure}")
    if dry_run and target.diff:
        out.append("planned change:")
        out.append(target.diff.rstrip("\n"))
    elif dry_run:
        out.append("planned change: none")
    return out


def _render_proposals(target: TargetReport) -> list[str]:
    if not target.proposals:
        return []
    out = ["proposals:"]
    for p in target.proposals[: defaults.REPORT_MAX_PROPOSALS]:
        out.append(f"  [{p['outcome']}] {p['id']} {p['action']} {p['file']}: {p['text'][:100]}")
        if p["outcome"] != "applied":
            out.append(f"      why: {p['why']}")
    if len(target.proposals) > defaults.REPORT_MAX_PROPOSALS:
        out.append(f"  … and {len(target.proposals) - defaults.REPORT_MAX_PROPOSALS} more")
    return out


def _render_refusals(target: TargetReport) -> list[str]:
    if not target.refusals:
        return []
    reasons = Counter(r["reason"] for r in target.refusals)
    out = ["refused: " + ", ".join(f"{n} {reason}" for reason, n in sorted(reasons.items()))]
    for r in target.refusals[: defaults.REPORT_MAX_REFUSALS]:
        out.append(
            f"  {r['reason']}: {r['text'][:80]}" + (f" ({r['detail'][:80]})" if r.get("detail") else "")
        )
    if len(target.refusals) > defaults.REPORT_MAX_REFUSALS:
        out.append(f"  … and {len(target.refusals) - defaults.REPORT_MAX_REFUSALS} more")
    return out


def _render_notes(target: TargetReport) -> list[str]:
    """Redactions, holds, archive, budget, migration, limits, what was written."""
    out = []
    if target.redactions:
        out.append(
            "redacted secrets: " + ", ".join(f"{kind} ×{n}" for kind, n in sorted(target.redactions.items()))
        )
    if target.unsafe:
        out.append(
            "held as unsafe (text that tries to instruct the agent): " + ", ".join(sorted(set(target.unsafe)))
        )
    out += [
        f"archived: {item['text'][:80]}  — {item['reason'][:80]}"
        for item in target.archived[: defaults.REPORT_MAX_PROPOSALS]
    ]
    if target.budget:
        b = target.budget
        out.append(
            f"budget: {b['applied']} of at most {b['cap']} changes applied; "
            f"{b['left_pending_over_cap']} left pending over the cap"
        )
    if target.missing_project:
        archived = "; its memory was archived" if target.pruned else ""
        out.append(
            "project folder and transcripts no longer exist"
            + (archived or "; run with --prune-missing-projects to archive its memory")
        )
    if target.migrated:
        out.append(
            f"moved {_count(target.migrated, 'inline entry', 'inline entries')} "
            "out of MEMORY.md into topic files"
        )
    if target.demoted:
        out.append(
            f"left out of MEMORY.md to stay under Claude Code's limits: {len(target.demoted)} index lines"
        )
    out += [f"left untouched (cannot parse): {item['file']}: {item['error']}" for item in target.unparsed]
    if target.written:
        out.append("written: " + ", ".join(target.written))
    if target.backup:
        out.append(f"first-run backup: {target.backup}")
    return out
