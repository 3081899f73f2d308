"""The library API: one `Session` per invocation, one method per command. The CLI is a thin layer on it.

from dream.api import Session
session = Session.open(claude_dir="~/.claude")
result = session.run(dry_run=True)
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dream import defaults, trigger
from dream.config import Config, load_config
from dream.decisions import AgentAction
from dream.errors import BusyError, DreamError, ExitCode, TargetStatus, UsageError, VerificationError
from dream.gather import GatherResult, gather, parse_since
from dream.layouts import Layout, layout_for
from dream.paths import MemoryPaths, Paths, last_dream_file, resolve_paths
from dream.report import RunResult, TargetReport, read_stats_json
from dream.results import (
    OrientResult,
    PlanResult,
    ProjectStatus,
    RejectResult,
    RestoredTarget,
    RestoreResult,
    ReviewItem,
    ReviewResult,
    RunSummary,
    ScheduleStatus,
    ServiceResult,
    SignalsResult,
    StatusResult,
    TargetChecks,
    TickResult,
    VerifyResult,
)
from dream.schedule import RunTrigger, TickAction
from dream.signals import Signal
from dream.state import EntryLedger, StateStore
from dream.target import Target
from dream.transcripts import ReadStats

if TYPE_CHECKING:
    from dream.decisions import DecisionCheck, Directive
    from dream.memory import Memory
    from dream.packet import BatchRecord, Packet, PlanRecord
    from dream.plan import Plan
    from dream.service import ServiceCommand


def _load_memory(paths: Any, memory_type: str) -> Memory:
    # markdown-it and frontmatter load only when memory is read, not for `signals`.
    from dream.memory import load_memory

    return load_memory(paths, memory_type)


@dataclass
class Session:
    paths: Paths
    config: Config
    since_text: str | None
    project: Path | None
    last_gather: ReadStats | None = None
    last_cached: int = 0  # sessions the last gather took from the digest cache
    _seen_at_start: dict[str, list[str]] = field(default_factory=dict)
    now: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    # The window of the plan an apply decides on (its candidates are that window's messages).
    window_start: datetime | None = None
    # Why this session runs (its reports say), and the memory dirs it is limited to (a scheduled
    # run dreams only for the projects active in the last 24 hours).
    trigger: RunTrigger = RunTrigger.MANUAL
    only_keys: frozenset[str] | None = None

    @classmethod
    def open(
        cls,
        claude_dir: str | os.PathLike[str] | None = None,
        memory_type: str | None = None,
        project: str | os.PathLike[str] | None = None,
        since: str | None = None,
    ) -> Session:
        paths = resolve_paths(claude_dir)
        if not paths.claude_dir.is_dir():
            # A mistyped --claude-dir must not read as "nothing to consolidate".
            raise DreamError(
                f"the Claude dir {paths.claude_dir} does not exist "
                "(pass --claude-dir, or set CLAUDE_CONFIG_DIR, to the folder Claude Code uses)"
            )
        folder = Path(project).expanduser() if project else None
        if folder is not None and not folder.is_dir():
            raise DreamError(f"the project folder {folder} does not exist (check --project)")
        config = load_config(paths.config_file, {"memory_type": memory_type})
        return cls(paths, config, since, folder)

    # -- GATHER ------------------------------------------------------------------------------

    @property
    def since(self) -> datetime:
        if self.window_start is not None:
            return self.window_start
        return parse_since(self.since_text, self.config.window_days, self.now)

    def gather(self, *, write_cache: bool = True) -> GatherResult:
        result = gather(
            self.paths, self.config, since=self.since, project=self.project, write_cache=write_cache
        )
        self.last_gather = result.read
        self.last_cached = result.digests.reused
        return result

    def signals_result(self, *, write_cache: bool = True) -> SignalsResult:
        """The signals of the window, with what the gather read (for the CLI's summary line)."""
        found = self.signals(write_cache=write_cache)
        return SignalsResult(found, self.last_gather, self.last_cached)

    def signals(self, *, write_cache: bool = True) -> list[Signal]:
        result = self.gather(write_cache=write_cache)
        return [s for target in result.targets.values() for s in target.signals]

    # -- targets and state -------------------------------------------------------------------

    @property
    def layout(self) -> Layout:
        return layout_for(self.config.memory_type)

    def _targets(self, gathered: GatherResult) -> list[Target]:
        targets = dict(gathered.targets)
        # Memory dirs with no session in the window still get their index kept in shape.
        for idle in self.layout.idle_targets(self.paths, self.project):
            if idle.key not in targets:
                idle.missing = self._is_missing_project(idle.key, idle.memory_dir)
                targets[idle.key] = idle
        return [targets[k] for k in sorted(targets) if self.only_keys is None or k in self.only_keys]

    def memory_paths(self, target: Target) -> MemoryPaths:
        return layout_for(target.memory_type).memory_paths(target.memory_dir)

    @property
    def state(self) -> StateStore:
        return StateStore(self.paths)

    # -- RUN ---------------------------------------------------------------------------------

    def run(
        self,
        *,
        dry_run: bool = False,
        approved: set[str] | None = None,
        prune_missing_projects: bool = False,
        consolidator: str | None = None,
        agent: AgentInput | None = None,
    ) -> RunResult:
        """All four phases. `consolidator`: "claude" asks the person's Claude Code to judge the
        candidates (DESIGN.md §9), "none" or None the configured one ("none": deterministic).
        `agent`: the decisions of `apply --decisions` (see `apply_decisions`)."""
        from dream.apply import new_run_id

        run_id = new_run_id()
        self._seen_at_start = self._sessions_seen_now()
        gathered = self.gather(write_cache=not dry_run)
        # A dry run previews without asking a model unless told to.
        chosen = consolidator or ("none" if dry_run else self.config.consolidator)
        if agent is None and chosen == "claude":
            agent = self._ask_consolidator(gathered)
        result = RunResult(
            run_id=run_id,
            started=self.now.isoformat(),
            trigger=str(self.trigger),
            dry_run=dry_run,
            since=gathered.since.isoformat(),
            read=read_stats_json(gathered.read),
            digests={
                "built": gathered.digests.built,
                "reused": gathered.digests.reused,
                "dropped": gathered.digests.dropped,
            },
        )
        codes: list[ExitCode] = []
        placed: set[int] = set()
        for target in self._targets(gathered):
            report = self._run_target(
                target, run_id, dry_run, approved or set(), prune_missing_projects, agent, placed
            )
            if report is None:
                continue
            result.targets.append(report)
            codes.append(report.status.exit_code)
        if agent is not None:
            result.plan, result.model = agent.plan, agent.model
            result.unplaced = [
                {**_unplaced(item, agent.plan), "by": "host"}
                for n, item in enumerate(agent.items)
                if n not in placed
            ]
        result.exit_code = max(codes, default=ExitCode.OK)
        if gathered.read.unreadable and result.exit_code == ExitCode.OK:
            result.failures.extend(f"could not read {p}: {r}" for p, r in gathered.read.unreadable)
        return result

    def _planner(
        self,
        target: Target,
        approved: set[str],
        prune_missing: bool,
        directives: list[Directive] | None = None,
    ) -> Callable[[Memory], Plan]:
        """The one planning function of a memory dir: a run, a dry run, a packet and an apply all
        plan through it (and re-plan through it when the memory moved)."""
        from dream.plan import build_plan
        from dream.project_rules import claude_md_rules

        review = self.state.review(target.memory_dir)
        today = self.now.date()
        claude_md = claude_md_rules(layout_for(target.memory_type).project_dir(target))

        def replan(current: Memory) -> Plan:
            return build_plan(
                target,
                current,
                self.config,
                today=today,
                review=review,
                approved=approved,
                prune_missing_project=prune_missing,
                claude_md=claude_md,
                directives=directives,
            )

        return replan

    def _undecided(self, target: Target) -> dict[str, str]:
        """Leave out the messages an agent already decided on in an earlier apply: a later run,
        with or without a model, never redoes (or undoes) that judgment. Returns the ledger."""
        from dream.candidates import candidate_id

        decided = self.state.decided(target.memory_dir)
        if decided:
            target.signals = [s for s in target.signals if candidate_id(s.session_id, s.uuid) not in decided]
            target.candidates = [c for c in target.candidates if c.id not in decided]
        return decided

    def _run_target(
        self,
        target: Target,
        run_id: str,
        dry_run: bool,
        approved: set[str],
        prune_missing: bool,
        agent: AgentInput | None = None,
        placed: set[int] | None = None,
    ) -> TargetReport | None:
        from dream.apply import apply_plan

        mp = self.memory_paths(target)
        memory = _load_memory(mp, target.memory_type)
        if not target.signals and not memory.files and memory.index is None and not mp.memory_dir.exists():
            if not dry_run and target.digests:
                self._mark_dreamt(target)  # nothing to write: a failure here is the next run's
            return None
        decided = self._undecided(target)
        checks, directives, remapped = (
            self._check_decisions(target, memory, agent, placed if placed is not None else set())
            if agent is not None
            else ([], None, False)
        )
        replan = self._planner(target, approved, prune_missing, directives)
        plan = replan(memory)
        report = TargetReport(
            target.key,
            str(target.memory_dir),
            target.memory_type,
            missing_project=target.missing,
            sessions=len(target.digests),
            signals=len(target.signals),
            signals_over_cap=target.over_category_cap,
            decisions=[dict(c.to_json(), project=target.key) for c in checks],
            remapped=remapped,
        )
        if dry_run:
            _fill(report, plan)
            report.diff = "".join(change.diff() for change in plan.changes)
            return report
        if not plan.changes and not target.digests:
            # No new evidence and nothing to put right: the memory dir is left byte for byte
            # (no lock file, no `.last-dream`, no backup).
            _fill(report, plan)
            report.unchanged = True
            return report
        try:
            applied = apply_plan(plan, replan, self.state.snapshots(target.memory_dir), run_id)
        except BusyError as exc:
            # The run that holds the memory keeps its own queue.
            _fill(report, plan)
            report.status, report.failures = TargetStatus.BUSY, [str(exc)]
            return report
        except VerificationError as exc:
            _fill(report, plan)
            report.status, report.failures = TargetStatus.VERIFICATION_FAILED, [str(exc)]
            report.checks = [{"name": n, "ok": False, "detail": str(exc)} for n in exc.failed_checks]
            with contextlib.suppress(DreamError):  # the report says what failed; the queue is rebuilt
                self._keep_pending(target, plan)
            return report
        except DreamError as exc:
            _fill(report, plan)
            report.status, report.failures = TargetStatus.FAILED, [str(exc)]
            with contextlib.suppress(DreamError):  # the report says what failed; the queue is rebuilt
                self._keep_pending(target, plan)
            return report
        plan = applied.plan
        _fill(report, plan)
        report.written = applied.written
        report.backup = str(applied.backup) if applied.backup else None
        report.snapshot = applied.snapshot.run_id if applied.snapshot else None
        report.replanned = applied.replanned
        report.checks = [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in applied.checks]
        failure = self._mark_dreamt(target)
        if failure:
            report.status, report.failures = TargetStatus.FAILED, [failure]
        assert applied.after is not None  # a successful apply always read what it wrote
        self._save_state(target, plan, applied.after)
        if directives:
            for directive in directives:
                if directive.action != AgentAction.HOLD and not directive.hold:
                    decided[directive.candidate.id] = self.now.date().isoformat()
            keep = (self.now - timedelta(days=2 * self.config.window_days)).date().isoformat()
            self.state.save_decided(target.memory_dir, decided, keep)
        self.state.append_report_row(target.memory_dir, _report_row(run_id, report, self.trigger))
        return report

    # -- the agent pass (DESIGN.md §9) ----------------------------------------------------------

    def plan(self, max_tokens: int | None = None) -> PlanResult:
        """The packet for the agent: every memory dir's candidates in batches, within the budget.
        Writes nothing but the plan's record (not even the digest cache)."""
        packet = self._packet(self.gather(write_cache=False), max_tokens or self.config.max_tokens)
        assert packet.record is not None
        self.state.save_plan(packet.record)
        return PlanResult(packet)

    def _packet(self, gathered: GatherResult, max_tokens: int) -> Packet:
        """Every memory dir's candidates in batches within `max_tokens`, with the plan's record."""
        from dream.packet import Packet, PlanRecord, add_batches, new_plan_id

        packet = Packet(new_plan_id(self.now), max_tokens)
        packet.record = PlanRecord(packet.plan, self.now.isoformat(), gathered.since.isoformat())
        for target in self._targets(gathered):
            add_batches(packet, self._batches(target))
        return packet

    def _batches(self, target: Target) -> list[tuple[dict[str, Any], BatchRecord]]:
        from dream.packet import target_batches

        self._undecided(target)
        if not target.candidates:
            return []
        memory = _load_memory(self.memory_paths(target), target.memory_type)
        plan = self._planner(target, set(), False)(memory)
        return target_batches(plan, memory, target.candidates, target.key)

    def apply_decisions(self, document: str | bytes) -> RunResult:
        """`apply --decisions`: the agent's decisions on a plan, checked, then one run with them.

        A malformed document, an unknown plan or a huge document is refused whole (UsageError,
        exit 2, nothing written). Otherwise each decision is checked (`decisions.check_all`); the
        accepted ones go through the same plan, apply, index and verify as a run, under the same
        lock; a candidate without a valid decision keeps its deterministic outcome.
        """
        from dream.decisions import parse_document

        head = parse_document(document)
        record = self.state.plan(head.plan)
        if record is None:
            raise UsageError(
                f"unknown plan {head.plan!r}: run `dream plan --json` again and decide on that plan"
            )
        limit = record.candidate_count * defaults.DECISIONS_MAX_PER_CANDIDATE + 16
        doc = parse_document(document, max_decisions=limit)
        if self.since_text is None:
            self.window_start = datetime.fromisoformat(record.since)
        return self.run(agent=AgentInput(plan=record.plan, items=doc.decisions, record=record))

    def _ask_consolidator(self, gathered: GatherResult) -> AgentInput:
        """Ask the person's Claude Code, batch by batch within the budget; a batch it fails on
        keeps the deterministic pass (`fallback`)."""
        from dream.consolidator import ask_claude

        packet = self._packet(gathered, self.config.max_tokens)
        assert packet.record is not None
        model: dict[str, Any] = {
            "consolidator": "claude",
            "calls": 0,
            "tokens": 0,
            "fallbacks": 0,
            "errors": [],
        }
        items: list[Any] = []
        for batch in packet.batches:
            one = {"version": 1, "plan": packet.plan, "batches": [batch]}
            reply = ask_claude(one, self.config.claude_bin)
            model["calls"] += 1
            model["tokens"] += reply.tokens
            if reply.decisions is None:
                model["fallbacks"] += 1
                model["errors"].append(f"batch {batch['batch']}: {reply.error}"[:240])
                continue
            ids = {c["id"] for c in batch["candidates"]}
            # A reply speaks for its own batch only: a decision on another batch's candidate is refused.
            items.extend(
                d
                if isinstance(d, dict) and d.get("candidate") in ids
                else {"candidate": "?", **(d if isinstance(d, dict) else {})}
                for d in reply.decisions
            )
        model["waiting"] = packet.waiting_candidates
        return AgentInput(plan=packet.plan, items=items, record=packet.record, model=model)

    def _check_decisions(
        self, target: Target, memory: Memory, agent: AgentInput, placed: set[int]
    ) -> tuple[list[DecisionCheck], list[Directive], bool]:
        """This memory dir's decisions, checked against what the plan showed and what is there now."""
        from dream.candidates import entry_id
        from dream.decisions import CheckContext, check_all

        batches = agent.record.for_memory_dir(str(target.memory_dir))
        if not batches:
            return [], [], False
        planned = {cid for b in batches for cid in b.candidates}
        entries = {i: ref for b in batches for i, ref in b.entries.items()}
        ctx = CheckContext(
            plan=agent.plan,
            candidates={c.id: c for c in target.candidates if c.id in planned},
            planned=planned,
            entries=entries,
            current={entry_id(e.file, e.key) for e in memory.entries},
        )
        for candidate in target.candidates:
            said = ctx.said_in_session.get(candidate.session_id, "")
            ctx.said_in_session[candidate.session_id] = f"{said} {candidate.text}"
        mine = []
        for n, item in enumerate(agent.items):
            if isinstance(item, dict) and str(item.get("candidate", "")) in planned:
                placed.add(n)
                mine.append(item)
        checks, directives = check_all(mine, ctx)
        remapped = any(b.fingerprint != memory.fingerprint() for b in batches)
        return checks, directives, remapped

    def _sessions_seen_now(self) -> dict[str, list[str]]:
        try:
            keys = os.listdir(self.paths.sessions_seen_dir)
        except OSError:
            return {}
        return {key: trigger.sessions_seen(self.paths, key) for key in keys}

    def _keep_pending(self, target: Target, plan: Any) -> None:
        """The run's items waiting for review are kept, whether or not its writes went through.

        Read again and written under the memory's lock: a `reject` given while the run worked
        stands (the run's copy of the queue is older than it)."""
        from dream.fsio import MemoryLock
        from dream.gates import Outcome
        from dream.review import proposal_to_json

        with MemoryLock(self.memory_paths(target)):
            fresh = self.state.review(target.memory_dir)
            fresh.pending = {
                d.proposal.id: proposal_to_json(d.proposal, d.why)
                for d in plan.decisions
                if d.outcome == Outcome.PENDING and d.proposal.id not in fresh.rejected
            }
            self.state.save_review(target.memory_dir, fresh)

    def _save_state(self, target: Target, plan: Any, after: Memory) -> None:
        from dream.verify import entry_key_hashes

        self._keep_pending(target, plan)
        cwd = target.cwd or self._recorded_cwd(target.memory_dir)
        self.state.save_entry_ledger(target.memory_dir, EntryLedger(entry_key_hashes(after), cwd))

    def _recorded_cwd(self, memory_dir: Path) -> str | None:
        ledger = self.state.entry_ledger(memory_dir)
        return ledger.cwd if ledger is not None else None

    def _is_missing_project(self, key: str, memory_dir: Path) -> bool:
        """No transcripts left for the project and the folder its sessions ran in is gone."""
        folders = self.paths.session_folders(self.paths.projects_dir / key)
        if any(any(folder.glob("*.jsonl")) for folder in folders):
            return False
        cwd = self._recorded_cwd(memory_dir)
        return cwd is not None and not Path(cwd).exists()

    def _mark_dreamt(self, target: Target) -> str | None:
        """After a successful run: `.last-dream`, the pending flag and the sessions seen.

        Only sessions this run read are cleared from the hook's count, and only those seen before
        it started: one the Stop hook records while the run works is left for the next dream.
        Returns a failure message, or None.
        """
        read = {digest.session_id for digest in target.digests}
        seen = [sid for sid in self._seen_at_start.get(target.key, []) if sid in read]
        try:
            trigger.write_last_dream(target.memory_dir, time.time())
        except OSError as exc:
            where = last_dream_file(target.memory_dir)
            return f"memory written, but {where} could not be: {exc.strerror or exc}"
        except DreamError as exc:  # the atomic writer's own words (it names the file)
            return f"memory written, but {exc}"
        trigger.clear_pending(self.paths, [target.key])
        trigger.clear_sessions_seen(self.paths, target.key, seen)
        return None

    def orient(self) -> OrientResult:
        """ORIENT for every memory dir: sizes, relative dates, contradictions, CLAUDE.md conflicts."""
        from dream.orient import orient_memory

        layout = self.layout
        gathered = self.gather(write_cache=False) if layout.project_from_sessions else None
        reports = []
        for target in self.memory_targets():
            memory = _load_memory(self.memory_paths(target), target.memory_type)
            if gathered is not None and target.key in gathered.targets:
                target.cwd = gathered.targets[target.key].cwd
            reports.append(orient_memory(target.key, memory, layout.project_dir(target)))
        return OrientResult(reports)

    # -- VERIFY, REVIEW, STATUS, RESTORE --------------------------------------------------------

    def memory_targets(self) -> list[Target]:
        """Memory dirs this session points at, without reading transcripts."""
        return self.layout.targets(self.paths, self.project)

    def verify(self) -> VerifyResult:
        from dream.verify import verify_memory

        results = []
        for target in self.memory_targets():
            memory = _load_memory(self.memory_paths(target), target.memory_type)
            ledger = self.state.entry_ledger(target.memory_dir)
            before = ledger.entries if ledger is not None else None
            results.append(TargetChecks(target.key, verify_memory(memory, before)))
        return VerifyResult(results)

    def review_items(self) -> ReviewResult:
        items: list[ReviewItem] = []
        for target in self.memory_targets():
            review = self.state.review(target.memory_dir)
            items.extend(ReviewItem(target.key, data) for data in review.pending.values())
        return ReviewResult(items)

    def approve(self, ids: list[str]) -> RunResult:
        known = {item.proposal["id"] for item in self.review_items().items}
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise UsageError(f"no pending proposal with id {', '.join(unknown)} (see `dream review`)")
        return self.run(approved=set(ids))

    def reject(self, ids: list[str]) -> RejectResult:
        from dream.fsio import MemoryLock

        done = 0
        for target in self.memory_targets():
            if not any(i in self.state.review(target.memory_dir).pending for i in ids):
                continue
            # Under the memory's lock: a run working on this memory dir saves its queue after it
            # (and keeps this rejection), never over it.
            with MemoryLock(self.memory_paths(target)):
                review = self.state.review(target.memory_dir)
                hit = [i for i in ids if i in review.pending]
                for pid in hit:
                    review.pending.pop(pid)
                    review.rejected.add(pid)
                self.state.save_review(target.memory_dir, review)
            done += len(hit)
        if done < len(set(ids)):
            raise UsageError("some ids are not pending (see `dream review`)")
        return RejectResult(done)

    def status(self) -> StatusResult:
        pending = trigger.read_pending(self.paths)
        projects = []
        for target in self.memory_targets():
            last = trigger.read_last_dream(target.memory_dir)
            rows = self.state.report_rows(target.memory_dir)
            projects.append(
                ProjectStatus(
                    key=target.key,
                    memory_dir=str(target.memory_dir),
                    hours_since_last_dream=round((time.time() - last) / 3600, 1) if last else None,
                    sessions_since_last_dream=len(trigger.sessions_seen(self.paths, target.key)),
                    pending=target.key in pending,
                    last_runs=[
                        RunSummary(
                            r.get("run_id"), r.get("status"), r.get("counts"), r.get("trigger", "manual")
                        )
                        for r in rows[-5:]
                    ],
                )
            )
        return StatusResult(
            schedule=self._schedule_status(),
            claude_dir=str(self.paths.claude_dir),
            pending_flag=self.paths.pending_flag.exists(),
            pending_projects=sorted(pending),
            min_hours=self.config.min_hours,
            min_sessions=self.config.min_sessions,
            projects=projects,
            consolidator=self.config.consolidator,
        )

    # -- the nightly schedule (issue 18) -------------------------------------------------------

    def _schedule_status(self, service_kinds: list[str] | None = None) -> ScheduleStatus:
        """`service_kinds`: the kinds installed when the caller knows them (None: looked up, which
        reads the crontab)."""
        from dream.daemon import load_state, local_now
        from dream.paths import resolve_service_paths
        from dream.schedule import decide, local_zone, next_check, parse_at
        from dream.service import installed_kinds

        state = load_state(self.paths)
        now = local_now()
        decision = decide(now, parse_at(self.config.at), state, local_zone())
        ahead = decision.next_window or (decision.window if decision.action == TickAction.RUN else None)
        return ScheduleStatus(
            at=self.config.at,
            handled=state.handled,
            last_trigger=state.last_trigger,
            last_outcome=state.last_outcome,
            next_window=ahead.isoformat(timespec="minutes") if ahead else None,
            due_now=decision.action == TickAction.RUN,
            next_check=next_check(now, decision).isoformat(timespec="minutes"),
            service=(
                service_kinds
                if service_kinds is not None
                else [str(k) for k in installed_kinds(resolve_service_paths())]
            ),
        )

    def tick(
        self, now: datetime | None = None, *, execute: bool = False, at: str | None = None
    ) -> TickResult:
        """One look at the schedule at `now` (default: the clock). Without `execute`, a preview."""
        from dream.daemon import local_now, tick

        return tick(self, now or local_now(), execute=execute, at_text=at)

    def daemon(
        self,
        reopen: Callable[[], Session],
        on_tick: Callable[[TickResult], None],
        stop: threading.Event,
        *,
        at: str | None = None,
    ) -> ExitCode:
        """The daemon loop until `stop` is set; BUSY at once when another loop holds this Claude
        dir. `reopen` opens the session each tick anew, so an edited `.dream-config` counts."""
        from dream.daemon import daemon_lock, loop, trim_log

        with daemon_lock(self.paths) as mine:
            if not mine:
                return ExitCode.BUSY
            trim_log(self.paths.daemon_log)
            loop(reopen, on_tick, at_text=at, sleep=stop.wait, stop=stop.is_set)
        return ExitCode.OK

    def service(
        self, command: ServiceCommand, kind: str | None = None, *, start: bool = True
    ) -> ServiceResult:
        """`service install | uninstall | status`; `kind` None: this machine's (install), every
        kind found (uninstall)."""
        from dream import service
        from dream.paths import resolve_service_paths

        where = resolve_service_paths()
        chosen = service.ServiceKind(kind) if kind else None
        if command == service.ServiceCommand.INSTALL:
            result = service.install(self.paths, where, chosen or service.detect_kind(), start=start)
        elif command == service.ServiceCommand.UNINSTALL:
            result = service.uninstall(self.paths, where, chosen, start=start)
        else:
            result = service.status(where)
        # The command knows what is installed after it: the crontab is not read again.
        result.schedule = self._schedule_status(result.installed)
        return result

    def restore(self, run_id: str | None = None) -> RestoreResult:
        """Put the memory back as it was before the last run (or before `run_id`). What is there now
        is saved first as a snapshot of its own, so a restore can be undone (`restore <its id>`);
        without a run id, the last *run* is meant, never a restore's own snapshot."""
        from dream.fsio import BEFORE_RESTORE, MemoryLock, list_snapshots, restore_snapshot_undoable

        restored = []
        for target in self.memory_targets():
            snapshots = list_snapshots(self.state.snapshots(target.memory_dir))
            if run_id is None:
                snapshots = [s for s in snapshots if BEFORE_RESTORE not in s.run_id]
            chosen = next((s for s in snapshots if run_id in (None, s.run_id)), None)
            if chosen is None:
                continue
            with MemoryLock(self.memory_paths(target)):
                outcome = restore_snapshot_undoable(chosen, target.memory_dir)
            restored.append(RestoredTarget(target.key, outcome.restored, outcome.before.run_id))
        if run_id is not None and not restored:
            raise UsageError(f"no snapshot {run_id}")
        return RestoreResult(restored)


@dataclass
class AgentInput:
    """The agent's decisions on one plan, with the plan's record to check them against."""

    plan: str
    items: list[Any]
    record: PlanRecord
    model: dict[str, Any] | None = None


def _unplaced(item: Any, plan: str) -> dict[str, Any]:
    candidate = str(item.get("candidate", "?")) if isinstance(item, dict) else "?"
    action = str(item.get("action", "?")) if isinstance(item, dict) else "?"
    reason = f"not a candidate of plan {plan}" if isinstance(item, dict) else "not a JSON object"
    return {"candidate": candidate, "action": action, "accepted": False, "reason": reason, "text": ""}


def _safe(text: str) -> str:
    """What a report may print of a memory's text: a secret already in memory (an entry dream is
    re-dating, archiving or replacing) is redacted here too, never printed beside its marker."""
    from dream.redact import redact

    return redact(text).text


def _fill(report: TargetReport, plan: Any) -> None:
    from dream.candidates import candidate_id

    for decision in plan.decisions:
        p = decision.proposal
        report.proposals.append(
            {
                "id": p.id,
                "action": p.action,
                "category": p.category,
                "file": p.file,
                "text": _safe(p.text),
                "outcome": decision.outcome,
                "why": decision.why,
                "source": p.source,
                "by": str(p.by),
                "candidate": p.candidate or (candidate_id(p.session_id, p.uuid) if p.uuid else ""),
            }
        )
        if p.redactions:
            for kind in p.redactions:
                report.redactions[kind] = report.redactions.get(kind, 0) + 1
    for refusal in plan.refusals:
        report.refusals.append(
            {"text": _safe(refusal.text), "reason": refusal.reason, "detail": _safe(refusal.detail)}
        )
    for signal in plan.target.signals:
        if signal.unsafe:
            report.unsafe.extend(signal.unsafe)
    for item in plan.redactions:
        kind = item.split(": ", 1)[-1]
        report.redactions[kind] = report.redactions.get(kind, 0) + 1
    report.archived = [
        {"text": _safe(a.text), "file": a.file, "reason": _safe(a.reason)} for a in plan.archived
    ]
    report.migrated = len(plan.migrated)
    report.moved_sections = plan.moved_sections
    report.pruned = len(plan.index.pruned) if plan.index else 0
    report.demoted = list(plan.index.demoted) if plan.index else []
    report.unparsed = [{"file": f.name, "error": f.error or ""} for f in plan.memory.unparsed]
    index = plan.memory.index
    if index is not None and index.kind == "unparsed":
        report.unparsed.insert(
            0, {"file": index.name, "error": (index.error or "") + "; the index was not written"}
        )
    applied = sum(1 for d in plan.decisions if d.outcome == "applied")
    over_cap = sum(1 for d in plan.decisions if d.over_cap)
    over_queue = sum(1 for d in plan.decisions if d.over_queue)
    not_durable = sum(1 for d in plan.decisions if d.not_durable)
    report.budget = {
        "cap": plan.cap,
        "review_max": plan.review_max,
        "applied": applied,
        "left_pending_over_cap": over_cap,
        "waiting_unlisted": over_queue,
        "dropped_not_durable": not_durable,
        "stale_waiting_over_cap": plan.prune_waiting,
    }


def _report_row(run_id: str, report: TargetReport, why: RunTrigger) -> dict[str, Any]:
    from dream.report import _bounded

    row = _bounded(report)
    row["run_id"] = run_id
    row["trigger"] = str(why)
    row["finished"] = datetime.now(timezone.utc).isoformat()
    return row


__all__ = ["Session"]
