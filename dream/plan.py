"""CONSOLIDATE, second half, and PRUNE & INDEX: decide each proposal, then compute every file.

A plan is complete before anything is written: every decision and every file's new text. A dry
run prints it; a real run hands it to `apply`. Both go through this same code.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from dream import clean_texts, defaults
from dream.actions import Action
from dream.config import Config
from dream.curated import curate, dream_section, is_dream_index, within_limits
from dream.decisions import Directive
from dream.edits import Archived, Edits
from dream.entry_line import format_entry
from dream.gates import Decision, Outcome, decide, hold_over_quarter
from dream.index import IndexResult, build_index, final_entries, ranked_rules
from dream.layouts import layout_for
from dream.memory import (
    Memory,
    MemoryFile,
    normalise_key,
)
from dream.migrate import migrate_inline_content
from dream.proposals import Refusal, propose
from dream.prune import archive_all, prune_stale
from dream.redact import contains_secret, redact
from dream.review import ReviewState
from dream.target import Target
from dream.topics import CONTINUED


@dataclass
class FileChange:
    rel: str
    path: Path
    old: bytes | None
    new: bytes | None  # None: the file is removed (a native memory retired by a contradiction)
    mode: int | None

    def diff(self) -> str:
        # The old side may hold a secret that this very change redacts: never print it. The new
        # side was redacted when it was made (`_materialise`), which a second pass would repeat.
        old = clean_texts.redact((self.old or b"").decode("utf-8", "replace")).text.splitlines(keepends=True)
        new = (self.new or b"").decode("utf-8", "replace").splitlines(keepends=True)
        return "".join(
            difflib.unified_diff(
                old, new, f"a/{self.rel}", f"b/{self.rel}" if self.new is not None else "/dev/null"
            )
        )


@dataclass
class Plan:
    target: Target
    memory: Memory
    today: date
    decisions: list[Decision] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    changes: list[FileChange] = field(default_factory=list)
    archived: list[Archived] = field(default_factory=list)
    migrated: list[str] = field(default_factory=list)
    redactions: list[str] = field(default_factory=list)
    index: IndexResult | None = None
    cap: int = 0
    review_max: int = 0
    # Whole blocks of a curated MEMORY.md moved, as written, into CONTINUED (over the load limits).
    moved_sections: int = 0
    # Stale entries left for a later run: this one reached its cap on changes.
    prune_waiting: int = 0

    def outcome(self, outcome: str) -> list[Decision]:
        return [d for d in self.decisions if d.outcome == outcome]

    def expected_keys(self) -> set[str]:
        """Entry keys that must survive the run (as entries or archived): every current entry,
        with a re-dated entry known by its new words."""
        keys = set()
        # One look per file first: most files hold no secret, and then none of their entries does.
        with_secret = {
            name
            for name, f in self.memory.files.items()
            if f.kind in ("topic", "native") and clean_texts.contains_secret(f.raw.decode("utf-8", "replace"))
        }
        for entry in self.memory.entries:
            # A secret in an entry is redacted when its file is rewritten: the entry lives on
            # under its redacted words.
            rewritten = not entry.native and entry.file in with_secret and contains_secret(entry.text)
            keys.add(normalise_key(redact(entry.text).text) if rewritten else entry.key)
        for decision in self.outcome(Outcome.APPLIED):
            p = decision.proposal
            if p.action == Action.REDATE and p.target is not None:
                keys.discard(p.target.key)
                keys.add(normalise_key(p.text))
        return keys

    @property
    def fingerprint(self) -> str:
        return self.memory.fingerprint()


def _topic_rel(memory: Memory, base: str) -> str:
    return memory.rel(memory.paths.topic_dir / base)


def apply_decisions(edits: Edits, decisions: list[Decision]) -> None:
    memory = edits.memory
    for decision in decisions:
        if decision.outcome != Outcome.APPLIED:
            continue
        p = decision.proposal
        label = p.confidence_label
        if p.action == Action.ADD:
            edits.editor(_topic_rel(memory, p.file)).append(format_entry(p.text, p.date, p.source, label))
        elif p.action in (Action.UPDATE, Action.REDATE) and p.target is not None:
            t = p.target
            line = format_entry(
                p.text if p.action == Action.REDATE else t.text,
                p.date,
                p.source,
                t.confidence or label,
                t.updated,
                t.previously,
            )
            edits.editor(t.file).replace(t, [line])
        elif p.action == Action.REPLACE and p.target is not None:
            t = p.target
            line = format_entry(p.text, p.date, p.source, label, p.date, t.text)
            if t.native:
                # Claude Code's own file is one memory: retired whole, its text archived below.
                edits.editor(_topic_rel(memory, p.file)).append(line)
                edits.deleted.add(t.file)
            else:
                edits.editor(t.file).replace(t, [line])
            edits.archive(t, f"{p.verb} on {p.date} by: {p.text[:120]}")
        elif p.action == Action.ARCHIVE and p.target is not None:
            edits.editor(p.target.file).remove(p.target)
            edits.archive(p.target, p.reason)


def build_plan(
    target: Target,
    memory: Memory,
    config: Config,
    *,
    today: date,
    review: ReviewState,
    approved: set[str] | None = None,
    prune_missing_project: bool = False,
    claude_md: list[str] | None = None,
    directives: list[Directive] | None = None,
) -> Plan:
    plan = Plan(target, memory, today, cap=config.max_changes, review_max=config.review_queue_max)
    found = propose(memory, target.signals, claude_md, directives)
    found.proposals.extend(review.restore(memory, {p.id for p in found.proposals}))
    plan.refusals = found.refusals
    plan.decisions = decide(found.proposals, config, review, approved or set())
    entries_per_file: dict[str, int] = {}
    for entry in memory.entries:
        entries_per_file[entry.file] = entries_per_file.get(entry.file, 0) + 1
    hold_over_quarter(plan.decisions, entries_per_file)
    _hold_unwritable(plan)
    edits = Edits(memory, today)
    apply_decisions(edits, plan.decisions)
    for rel, memory_file in memory.files.items():
        # A secret already sitting in a file dream manages is redacted by rewriting that file.
        if memory_file.kind in ("topic", "archive") and clean_texts.contains_secret(
            memory_file.raw.decode("utf-8", "replace")
        ):
            edits.editor(rel)
    rules_in_index = layout_for(memory.memory_type).rules_in_index
    curated = (
        memory.index is not None and memory.index.kind == "index" and not is_dream_index(memory.index)
    ) or (rules_in_index and (memory.index is None or memory.index.kind == "index"))
    # A curated MEMORY.md is the person's: never split into entries (DESIGN.md §5).
    migrated = [] if curated else migrate_inline_content(memory, edits, today)
    # An entry that any proposal of this run refers to, applied or pending, is not stale.
    targeted = {id(d.proposal.target) for d in plan.decisions if d.proposal.target is not None}
    # Prune is a change like any other: inside the run's cap (what is left waits for a later run).
    applied = sum(1 for d in plan.decisions if d.outcome == Outcome.APPLIED)
    pruned, plan.prune_waiting = prune_stale(
        memory, edits, target, config, today, targeted, limit=config.max_changes - applied
    )
    if prune_missing_project and target.missing:
        pruned += archive_all(memory, edits, "project folder and transcripts no longer exist")
    final = final_entries(memory, edits)
    plan.index = build_index(memory, final, today, edits.deleted)
    plan.index.migrated, plan.index.pruned = migrated, pruned
    if curated:
        rules = ranked_rules(memory, final, defaults.INDEX_RULES_MAX) if rules_in_index else None
        _keep_curated(plan, memory, edits, today, rules)
    plan.archived = edits.archived
    plan.migrated = migrated
    _materialise(plan, edits)
    return plan


def _keep_curated(
    plan: Plan, memory: Memory, edits: Edits, today: date, rules: list[str] | None = None
) -> None:
    """A curated MEMORY.md stays as written, with dream's own section in it; left byte for byte
    when the run changes nothing and the tool loads all of it (`curated`). Where there is none
    yet and the layout keeps its rules in it (OpenClaw), it starts as a titled file."""
    index, result = memory.index, plan.index
    assert result is not None
    if index is None:
        if not edits.editors:
            result.lines = []
            return
        index = MemoryFile(memory.paths.index, "MEMORY.md", "index", b"", lines=["# Memory"])
    if not edits.editors and not edits.deleted and within_limits(index):
        result.lines = list(index.lines)
        return
    section = dream_section(result, today, index, rules)
    kept = curate(index, section, edits.deleted)
    if kept.moved:
        edits.editor(_topic_rel(memory, CONTINUED)).append_raw(kept.moved)
        plan.moved_sections = kept.moved_blocks
    result.lines = kept.lines


def _hold_unwritable(plan: Plan) -> None:
    """A change whose file dream cannot parse waits: that file is never rewritten."""
    memory = plan.memory
    for decision in plan.decisions:
        if decision.outcome != Outcome.APPLIED:
            continue
        p = decision.proposal
        rel = (
            _topic_rel(memory, p.file) if p.action == Action.ADD or (p.target and p.target.native) else p.file
        )
        files = {rel} | ({p.target.file} if p.target is not None else set())
        broken = [f for f in sorted(files) if f in memory.files and memory.files[f].kind == "unparsed"]
        if broken:
            decision.outcome = Outcome.PENDING
            decision.why = (
                f"{broken[0]} cannot be parsed ({memory.files[broken[0]].error}); fix it by hand first"
            )


def _dir_newline(memory: Memory) -> str:
    """The line end a new file takes: the one most of the dir's files use (an editor on Windows
    writes CRLF, and a new topic file beside them should not be the odd one out)."""
    ends = [f.newline for f in memory.files.values() if f.kind != "unparsed"]
    return "\r\n" if ends and ends.count("\r\n") * 2 > len(ends) else "\n"


def _materialise(plan: Plan, edits: Edits) -> None:
    memory = plan.memory
    outputs: dict[str, tuple[Path, MemoryFile | None, list[str]]] = {}
    for rel, editor in edits.editors.items():
        outputs[rel] = (memory.paths.memory_dir / rel, editor.file, editor.result())
    assert plan.index is not None
    outputs["MEMORY.md"] = (memory.paths.index, memory.index, plan.index.lines)
    archive_rel = memory.rel(memory.paths.archive)
    deletions = []
    for rel in sorted(edits.deleted):
        retired = memory.files[rel]
        deletions.append(FileChange(rel, retired.path, retired.raw, None, retired.mode))

    # Write order is what keeps a killed run lossless: archive.md first (so anything a topic file
    # drops is already archived), then topic files (so inline content leaving MEMORY.md is
    # already in them), then removals, and MEMORY.md last (so it never links to a file not
    # yet written).
    def order(rel: str) -> tuple[int, str]:
        return (0 if rel == archive_rel else 2 if rel == "MEMORY.md" else 1, rel)

    for rel, (path, original, lines) in sorted(outputs.items(), key=lambda item: order(item[0])):
        if rel == "MEMORY.md":
            plan.changes.extend(deletions)
        if original is not None and original.kind == "unparsed":
            continue  # never rewrite a file dream cannot read
        if original is None and not lines:
            continue  # nothing to say: no empty file is made
        newline = original.newline if original else _dir_newline(memory)
        trailing = original.trailing_newline if original else True
        text = newline.join(lines) + (newline if lines and trailing else "")
        cleaned = clean_texts.redact(text)
        if cleaned.changed:
            plan.redactions.extend(f"{rel}: {r.kind}" for r in cleaned.redactions)
            text = cleaned.text
        data = text.encode("utf-8")
        old = original.raw if original else None
        if old == data:
            continue
        mode = original.mode if original else None
        plan.changes.append(FileChange(rel, path, old, data, mode))
