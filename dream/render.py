"""One renderer: every command's typed result as text for a person, or as JSON.

The CLI parses options, calls the library and hands the result here; nothing else prints.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from functools import singledispatch
from typing import Any

from dream import defaults
from dream.report import RunResult, TargetReport
from dream.results import (
    OrientResult,
    PlanResult,
    RejectResult,
    RestoreResult,
    ReviewResult,
    ScheduleStatus,
    ServiceResult,
    SignalsResult,
    StatusResult,
    TickResult,
    VerifyResult,
)
from dream.transcripts import Excluded, ReadStats


@dataclass(frozen=True)
class Rendered:
    stdout: str  # results
    stderr: str = ""  # diagnostics: what was read, what failed


def render(result: Any, as_json: bool = False, verbose: bool = False) -> Rendered:
    """The text (or JSON) of a command's result. `verbose`: a run's whole detail for every memory
    dir (without it, a dir the run did not change is one line, and long lists are cut)."""
    if isinstance(result, RunResult):
        return Rendered(render_run(result, as_json, verbose))
    return _render(result, as_json)


@singledispatch
def _render(result: Any, as_json: bool) -> Rendered:
    raise TypeError(f"no renderer for {type(result).__name__}")


def _json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2)


@_render.register
def _(result: PlanResult, as_json: bool) -> Rendered:
    data = result.to_json()
    if as_json:
        return Rendered(json.dumps(data, ensure_ascii=False))
    batches = _count(len(data["batches"]), "batch", "batches")
    out = [f"plan {data['plan']}: {batches}, ~{data['tokens']} tokens of {data['max_tokens']}"]
    waiting = data["waiting"]
    if waiting["candidates"]:
        out.append(f"waiting for the next run (over the budget): {waiting['candidates']} candidates")
    for batch in data["batches"]:
        out.append("")
        out.append(
            f"== batch {batch['batch']}: {batch['project']} ({len(batch['candidates'])} candidates, "
            f"{len(batch['entries'])} entries, ~{batch['tokens']} tokens)"
        )
        for c in batch["candidates"]:
            proposal = c["proposal"] or {}
            out.append(f"  {c['id']} {c['date']} {c['category'] or '-'}: {_one_line(c['text'], 110)}")
            if proposal:
                said = _one_line(proposal.get("text") or "", 90)
                out.append(
                    f"      deterministic: {proposal.get('action')} [{proposal.get('outcome')}] {said}"
                )
        for e in batch["entries"]:
            out.append(f"  {e['id']} {e['file']}: {_one_line(e['text'], 110)}")
    out.append("")
    out.append(
        "decide with: dream apply --decisions FILE (or - for stdin); the JSON packet: dream plan --json"
    )
    return Rendered("\n".join(out))


def _one_line(text: str, limit: int) -> str:
    """The text on one line, cut at a word boundary with "…" when it is longer than `limit`."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut[limit // 2 :] else cut).rstrip(",;:") + "…"


@_render.register
def _(result: SignalsResult, as_json: bool) -> Rendered:
    if as_json:
        lines = [json.dumps(signal.public_json(), ensure_ascii=False) for signal in result.signals]
    else:
        lines = [f"{s.timestamp[:10]} {s.category:<10} {s.confidence:.2f}  {s.text}" for s in result.signals]
    return Rendered("\n".join(lines), read_summary_line(result.read, result.cached))


@_render.register
def _(result: OrientResult, as_json: bool) -> Rendered:
    if as_json:
        return Rendered(_json(result.to_json()))
    out = [] if result.reports else ["no memory found"]
    for report in result.reports:
        out.append(f"== {report.key}  ({report.memory_dir})")
        if report.index:
            idx = report.index
            flag = "  OVER Claude Code's load limit" if idx["over_limit"] else ""
            size = f"{idx['lines']}/{idx['max_lines']} lines, {idx['chars']}/{idx['max_chars']} chars"
            out.append(f"MEMORY.md: {size}{flag}")
        for item in report.files:
            counts = f"{item['entries']:>5} entries {item['lines']:>6} lines"
            out.append(f"  {item['file']:<28} {item['kind']:<8} {counts}  {item['modified']}")
        out += [f"  relative date without anchor: {line}" for line in report.relative_dates]
        out += [
            f"  contradiction on '{item['on']}': {item['a']}  <>  {item['b']}"
            for item in report.contradictions
        ]
        out += [
            f"  contradicts CLAUDE.md on '{item['on']}' (review; dream never edits CLAUDE.md): "
            f"{item['memory']}  <>  {item['claude_md']}"
            for item in report.claude_md_conflicts
        ]
        out += [
            f"  cannot parse, left untouched: {item['file']}: {item['error']}" for item in report.unparsed
        ]
    return Rendered("\n".join(out))


@_render.register
def _(result: VerifyResult, as_json: bool) -> Rendered:
    failed = result.failed
    stderr = f"dream: verification failed: {', '.join(failed)}" if failed else ""
    if as_json:
        return Rendered(_json(result.to_json()), stderr)
    lines = [
        f"{'ok  ' if check.ok else 'FAIL'} {target.project} {check.name}"
        + (f": {check.detail}" if check.detail else "")
        for target in result.targets
        for check in target.checks
    ]
    return Rendered("\n".join(lines), stderr)


@_render.register
def _(result: StatusResult, as_json: bool) -> Rendered:
    if as_json:
        return Rendered(_json(result.to_json()))
    out = [f"claude dir: {result.claude_dir}"]
    out.append(
        f"pending flag: {'yes' if result.pending_flag else 'no'}"
        + (f" ({', '.join(result.pending_projects)})" if result.pending_projects else "")
    )
    out.append(f"thresholds: {result.min_hours} h and {result.min_sessions} sessions")
    consolidator = (
        "claude (your Claude Code judges unattended runs)"
        if result.consolidator == "claude"
        else "none (unattended runs are deterministic; /dream uses the session's agent)"
    )
    out.append(f"consolidator: {consolidator}")
    out.append(_schedule_line(result.schedule))
    for project in result.projects:
        hours = project.hours_since_last_dream
        out.append(
            f"== {project.key}: last dream {'never' if hours is None else f'{hours} h ago'}, "
            f"{project.sessions_since_last_dream} sessions since"
        )
        out += [
            f"   {run.run_id} {run.status} {run.counts}"
            + ("" if run.trigger in (None, "manual") else f" ({run.trigger})")
            for run in project.last_runs
        ]
    return Rendered("\n".join(out))


def _schedule_line(sched: ScheduleStatus | None) -> str:
    if sched is None or sched.at is None:
        service = f"; service installed: {', '.join(sched.service)}" if sched and sched.service else ""
        return f"schedule: off (set DREAM_AT=HH:MM to dream nightly){service}"
    parts = [f"schedule: nightly at {sched.at} local"]
    parts.append(f"last handled {sched.handled}" if sched.handled else "no window handled yet")
    if sched.last_trigger:
        parts.append(f"last {sched.last_trigger}: {sched.last_outcome or 'ok'}")
    if sched.due_now:
        parts.append("a window is due now")
    elif sched.next_window:
        parts.append(f"next {sched.next_window}")
    parts.append(f"service: {', '.join(sched.service) if sched.service else 'not installed'}")
    return "; ".join(parts)


# What a tick does, said for a preview and for a tick that executed.
_TICK_VERB = {
    "no-schedule": ("nothing to do", "nothing to do"),
    "baseline": ("would mark the windows already past handled", "marked the windows already past handled"),
    "wait": ("nothing to do", "nothing to do"),
    "run": ("would dream", "dreamt"),
    "idle-day": ("would mark the day handled, nothing to run", "marked the day handled, nothing run"),
}


@_render.register
def _(result: TickResult, as_json: bool) -> Rendered:
    if as_json:
        return Rendered(_json(result.to_json()))
    action = str(result.action)
    preview, done = _TICK_VERB.get(action, (action, action))
    head = f"daemon at {result.now}: {done if result.executed else preview}"
    if result.trigger:
        head += f" [{result.trigger}]"
    if not result.executed and result.exit_code == 0:
        head += "  (preview: nothing run)"
    out = [head, f"  why: {result.why}"]
    if result.action == "run":
        verb = "dreamt for" if result.executed else "would dream for"
        out.append(f"  {verb}: {', '.join(result.projects)} (active in the last 24 hours)")
        out.append(f"  consolidator: {result.consolidator}")
    for run in result.runs:
        out.append(f"  {run.project}: {run.status}" + (f" ({run.detail[:200]})" if run.detail else ""))
    if result.at is not None:
        out.append(f"  handled through: {result.handled or 'none yet'}; next window: {result.next_window}")
    out.append(f"  next check: {result.next_check}")
    return Rendered("\n".join(out))


@_render.register
def _(result: ServiceResult, as_json: bool) -> Rendered:
    if as_json:
        return Rendered(_json(result.to_json()))
    out = []
    if result.command == "status":
        out.append(f"service: {', '.join(result.installed) if result.installed else 'not installed'}")
    else:
        out.append(f"service {result.command} ({result.kind or 'every kind found'})")
    out += [f"  {f.state}: {f.path}" for f in result.files]
    out += [f"  ran: {command}" for command in result.ran]
    out += [f"  note: {note}" for note in result.notes]
    out.append(_schedule_line(result.schedule))
    return Rendered("\n".join(out))


@_render.register
def _(result: ReviewResult, as_json: bool) -> Rendered:
    if as_json:
        return Rendered(_json(result.to_json()))
    if not result.items:
        return Rendered("nothing waits for review")
    out = []
    for item in result.items:
        data = item.proposal
        out.append(f"{data['id']}  {item.project}  {data['action']} {data['file']}: {data['text']}")
        out.append(f"    why pending: {data.get('why') or ', '.join(data.get('hold', []))}")
    return Rendered("\n".join(out))


@_render.register
def _(result: RejectResult, as_json: bool) -> Rendered:
    if as_json:
        return Rendered(_json({"rejected": result.rejected}))
    return Rendered(f"rejected {result.rejected} proposal(s)")


@_render.register
def _(result: RestoreResult, as_json: bool) -> Rendered:
    if as_json:
        return Rendered(
            _json([{"project": t.project, "files": t.files, "undo": t.undo} for t in result.restored])
        )
    if not result.restored:
        return Rendered("no snapshot to restore")
    return Rendered(
        "\n".join(
            f"{t.project}: restored {', '.join(t.files) or 'nothing'}"
            + (f" (what was there is kept: `dream restore {t.undo}` undoes this)" if t.undo else "")
            for t in result.restored
        )
    )


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


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def render_run(result: RunResult, as_json: bool = False, verbose: bool = False) -> str:
    if as_json:
        return json.dumps(result.to_json(), ensure_ascii=False, indent=2)
    out: list[str] = []
    mode = "DRY RUN (nothing written)" if result.dry_run else "run"
    read = result.read
    skipped = read["skipped"]
    by = "" if result.trigger == "manual" else f"  ({result.trigger})"
    out.append(f"dream {mode} {result.run_id}  window since {result.since[:10]}{by}")
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
    if result.plan:
        out.append(f"decisions on plan {result.plan}")
    if result.model:
        m = result.model
        out.append(
            f"model: {m['consolidator']}: {_count(m['calls'], 'call', 'calls')}, ~{m['tokens']} tokens, "
            f"{_count(m['fallbacks'], 'fallback', 'fallbacks')} to the deterministic pass"
            + (f", {m['waiting']} candidates over the budget wait" if m.get("waiting") else "")
        )
        out += [f"  fallback: {error}" for error in m.get("errors", [])[: defaults.REPORT_MAX_FAILURES]]
    if not result.targets:
        out.append("no memory to consolidate in this window")
    for target in result.targets:
        quiet = not verbose and not result.dry_run and _untouched(target)
        out.extend(_render_quiet(target) if quiet else _render_target(target, result.dry_run, verbose))
    out += _render_decisions(result.unplaced)
    for failure in result.failures[: defaults.REPORT_MAX_FAILURES]:
        out.append(f"failure: {failure}")
    out += ["", *_render_summary(result)]
    return "\n".join(out)


def _untouched(target: TargetReport) -> bool:
    """Nothing written, waiting, failed or worth a word (a file left unparsed, a secret, control
    text, a decision): one line says it."""
    notable = target.unparsed or target.unsafe or target.redactions or target.decisions or target.demoted
    return target.status == "ok" and not target.written and not target.counts()["pending"] and not notable


def _render_quiet(target: TargetReport) -> list[str]:
    return [f"== {target.key}: unchanged ({target.sessions} sessions, {target.signals} signals)"]


_NEXT_STEP = {
    "busy": "another run, or Claude Code's own auto-dream, holds it: run dream again when it has finished",
    "verification-failed": "memory was put back as it was; `dream orient` and `dream verify` show what is "
    "wrong, then run dream again",
    "failed": "memory was left as it was; fix what the failure names, then run dream again",
}


def _render_summary(result: RunResult) -> list[str]:
    """The run's last lines: how each memory dir ended, what waits, what to do about a failure."""
    ok = [t for t in result.targets if t.status == "ok"]
    changed = sum(1 for t in ok if (t.diff if result.dry_run else t.written))
    failed = [t for t in result.targets if t.status != "ok"]
    waiting = sum(t.counts()["pending"] for t in result.targets)
    verb = "would change" if result.dry_run else "changed"
    out = [
        f"summary: {_count(len(result.targets), 'memory dir', 'memory dirs')}: {len(ok)} ok "
        f"({changed} {verb}, {len(ok) - changed} unchanged), {len(failed)} failed; "
        f"{_count(waiting, 'item waits', 'items wait')} for review" + (" (`dream review`)" if waiting else "")
    ]
    for target in failed:
        reason = target.failures[0] if target.failures else str(target.status)
        out.append(f"failed: {target.key} [{target.status}]: {reason[:200]}")
        out.append(f"  next: {_NEXT_STEP.get(str(target.status), _NEXT_STEP['failed'])}")
    return out


def _render_target(target: TargetReport, dry_run: bool, verbose: bool = False) -> list[str]:
    counts = target.counts()
    out = ["", f"== {target.key}  ({target.memory_type}: {target.memory_dir})  [{target.status}]"]
    over = (
        f" ({target.signals_over_cap} more left out: over {defaults.DIGEST_MAX_PER_CATEGORY} of one "
        "category in a session, the most confident kept)"
        if target.signals_over_cap
        else ""
    )
    out.append(
        f"sessions {target.sessions}, signals {target.signals}{over}; "
        f"added {counts['added']}, updated {counts['updated']}, "
        f"contradictions resolved {counts['contradictions_resolved']}, archived {counts['archived']}, "
        f"pending review {counts['pending']}, refused {counts['refused']}"
    )
    out += _render_decisions(target.decisions, target.remapped)
    out += _render_proposals(target, verbose) + _render_refusals(target, verbose) + _render_notes(target)
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


def _render_decisions(decisions: list[dict[str, Any]], remapped: bool = False) -> list[str]:
    if not decisions:
        return []
    accepted = sum(1 for d in decisions if d["accepted"])
    out = [f"decisions: {accepted} accepted, {len(decisions) - accepted} refused"]
    if remapped:
        out.append("  the memory changed since the plan: decisions were re-mapped onto it")
    for d in decisions[: defaults.REPORT_MAX_REFUSALS * 2]:
        verdict = "accepted" if d["accepted"] else "refused"
        text = f": {_one_line(d['text'], 80)}" if d.get("text") else ""
        reason = "" if d["reason"] == "accepted" else f" ({d['reason'][:120]})"
        out.append(f"  [{verdict}] {d['candidate']} {d['action']}{text}{reason}  by: {d['by']}")
    return out


def _render_proposals(target: TargetReport, verbose: bool = False) -> list[str]:
    if not target.proposals:
        return []
    out = ["proposals:"]
    shown = target.proposals if verbose else target.proposals[: defaults.REPORT_MAX_PROPOSALS]
    for p in shown:
        by = f"  by: {p['by']}" if p.get("by") else ""
        out.append(f"  [{p['outcome']}] {p['id']} {p['action']} {p['file']}: {p['text'][:100]}{by}")
        if p["outcome"] != "applied":
            out.append(f"      why: {p['why']}")
    if len(target.proposals) > len(shown):
        out.append(f"  … and {len(target.proposals) - len(shown)} more (--verbose lists them)")
    return out


def _render_refusals(target: TargetReport, verbose: bool = False) -> list[str]:
    if not target.refusals:
        return []
    reasons = Counter(r["reason"] for r in target.refusals)
    out = ["refused: " + ", ".join(f"{n} {reason}" for reason, n in sorted(reasons.items()))]
    # A few by default; --verbose (or --json) lists each.
    shown = target.refusals if verbose else target.refusals[:_QUIET_REFUSALS]
    for r in shown:
        detail = f" ({_one_line(r['detail'], 80)})" if r.get("detail") else ""
        out.append(f"  {r['reason']}: {_one_line(r['text'], 80)}{detail}")
    if len(target.refusals) > len(shown):
        out.append(f"  … and {len(target.refusals) - len(shown)} more (--verbose lists them)")
    return out


_QUIET_REFUSALS = 5


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
        f"archived: {_one_line(item['text'], 80)}  — {_one_line(item['reason'], 80)}"
        for item in target.archived[: defaults.REPORT_MAX_PROPOSALS]
    ]
    if len(target.archived) > defaults.REPORT_MAX_PROPOSALS:
        out.append(f"  … and {len(target.archived) - defaults.REPORT_MAX_PROPOSALS} more archived")
    if target.budget:
        b = target.budget
        out.append(
            f"budget: {b['applied']} of at most {b['cap']} changes applied; "
            f"{b['left_pending_over_cap']} left pending over the cap"
            + (f"; {target.pruned} stale entries archived" if target.pruned else "")
            + (
                f", {b['stale_waiting_over_cap']} more wait for a later run"
                if b.get("stale_waiting_over_cap")
                else ""
            )
        )
        if b.get("waiting_unlisted") or b.get("dropped_not_durable"):
            out.append(
                f"review queue: the most important {b.get('review_max', defaults.REVIEW_QUEUE_MAX)} listed, "
                f"{b.get('waiting_unlisted', 0)} more waiting unlisted; "
                f"{b.get('dropped_not_durable', 0)} dropped as not durable"
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
    if target.moved_sections:
        out.append(
            f"moved {_count(target.moved_sections, 'section', 'sections')} of MEMORY.md, as written, "
            "into memory-continued.md to stay under Claude Code's load limits"
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
