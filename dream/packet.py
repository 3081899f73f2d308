"""The plan packet of the agent pass (DESIGN.md §9): what the agent is asked to judge, in batches.

One batch is one memory dir's candidates (at most BATCH_MAX_CANDIDATES), with what the
deterministic pass would do with each, and the existing entries they may touch (at most
BATCH_MAX_ENTRIES). Batches are added until the token budget (characters / 4) ends; the rest waits
for the next run and is counted. The packet's record (`PlanRecord`) is what `apply` checks a
decisions document against: which candidates and entries each memory dir was shown.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from dream import defaults
from dream.candidates import Candidate, entry_id
from dream.decisions import EntryRef

if TYPE_CHECKING:
    from dream.gates import Decision
    from dream.memory import Entry, Memory
    from dream.plan import Plan


def new_plan_id(now: datetime) -> str:
    return f"p{now.strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(3)}"


def estimate_tokens(data: Any) -> int:
    return len(json.dumps(data, ensure_ascii=False)) // 4


@dataclass
class BatchRecord:
    memory_dir: str
    project: str
    fingerprint: str
    candidates: list[str]
    entries: dict[str, EntryRef]

    def to_json(self) -> dict[str, Any]:
        return {
            "memory_dir": self.memory_dir,
            "project": self.project,
            "fingerprint": self.fingerprint,
            "candidates": self.candidates,
            "entries": {i: [e.file, e.text] for i, e in self.entries.items()},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BatchRecord:
        entries = {str(i): EntryRef(str(i), str(f), str(t)) for i, (f, t) in data["entries"].items()}
        return cls(
            str(data["memory_dir"]),
            str(data["project"]),
            str(data["fingerprint"]),
            [str(c) for c in data["candidates"]],
            entries,
        )


@dataclass
class PlanRecord:
    plan: str
    created: str
    since: str
    batches: list[BatchRecord] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "plan": self.plan,
            "created": self.created,
            "since": self.since,
            "batches": [b.to_json() for b in self.batches],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PlanRecord:
        datetime.fromisoformat(str(data["since"]))  # a record that says no window is no record
        return cls(
            str(data["plan"]),
            str(data["created"]),
            str(data["since"]),
            [BatchRecord.from_json(b) for b in data.get("batches", [])],
        )

    def for_memory_dir(self, memory_dir: str) -> list[BatchRecord]:
        return [b for b in self.batches if b.memory_dir == memory_dir]

    @property
    def candidate_count(self) -> int:
        return sum(len(b.candidates) for b in self.batches)


@dataclass
class Packet:
    """The packet `plan --json` prints, with the record `apply` checks against."""

    plan: str
    max_tokens: int
    batches: list[dict[str, Any]] = field(default_factory=list)
    record: PlanRecord | None = None
    tokens: int = 0
    waiting_candidates: int = 0
    waiting_memory_dirs: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "plan": self.plan,
            "max_tokens": self.max_tokens,
            "tokens": self.tokens,
            "waiting": {"candidates": self.waiting_candidates, "memory_dirs": self.waiting_memory_dirs},
            "batches": self.batches,
        }


def _proposal_json(decisions: list[Decision]) -> list[dict[str, Any]]:
    from dream.redact import redact

    rows = []
    for decision in decisions:
        p = decision.proposal
        rows.append(
            {
                "action": str(p.action),
                "text": redact(p.text).text,
                "file": p.file,
                "target": entry_id(p.target.file, p.target.key) if p.target is not None else None,
                "outcome": str(decision.outcome),
                "why": decision.why[:200],
            }
        )
    return rows


def _refusal_json(plan: Plan, candidate: Candidate) -> dict[str, Any] | None:
    """Why the deterministic pass made nothing of a message (a duplicate, CLAUDE.md, …), if it says."""
    for refusal in plan.refusals:
        if refusal.text and refusal.text[:60] in candidate.text:
            return {"action": "none", "outcome": refusal.reason, "why": refusal.detail[:200]}
    return None


def candidate_json(
    plan: Plan,
    candidate: Candidate,
    categories: tuple[str, ...],
    scores: dict[str, float],
    decisions: list[Decision],
) -> dict[str, Any]:
    proposals = _proposal_json(decisions)
    data: dict[str, Any] = {
        "id": candidate.id,
        "session": candidate.session_id,
        "uuid": candidate.uuid,
        "date": candidate.timestamp[:10],
        "category": categories[0] if categories else None,
        "categories": list(categories),
        "scores": scores,
        "text": candidate.text,
        "context": candidate.context,
        "proposal": proposals[0] if proposals else _refusal_json(plan, candidate),
    }
    if len(proposals) > 1:
        data["more_proposals"] = proposals[1:]
    if candidate.unsafe:
        data["unsafe"] = list(candidate.unsafe)
    return data


def _related_entries(memory: Memory, plan: Plan, batch: list[Candidate]) -> list[Entry]:
    """The entries a batch's candidates may touch: all of a small memory; otherwise those the
    deterministic pass aims at, then those sharing the most terms with the batch's messages."""
    entries = [e for e in memory.entries if e.file != memory.rel(memory.paths.archive)]
    if len(entries) <= defaults.BATCH_MAX_ENTRIES:
        return entries
    keys = {(c.session_id, c.uuid) for c in batch}
    aimed = [
        d.proposal.target
        for d in plan.decisions
        if d.proposal.target is not None and (d.proposal.session_id, d.proposal.uuid) in keys
    ]
    from dream.statement import analyse

    words: dict[str, int] = {}
    for candidate in batch:
        for term in analyse(candidate.text[:600]).terms:
            words[term] = words.get(term, 0) + 1
    scored = sorted(
        entries,
        key=lambda e: -sum(words.get(t, 0) for t in memory.statement(e).terms),
    )
    chosen: list[Entry] = []
    seen: set[int] = set()
    for entry in [*aimed, *scored]:
        if id(entry) not in seen:
            seen.add(id(entry))
            chosen.append(entry)
    return chosen[: defaults.BATCH_MAX_ENTRIES]


def target_batches(
    plan: Plan, memory: Memory, candidates: list[Candidate], project: str
) -> list[tuple[dict[str, Any], BatchRecord]]:
    """One memory dir's candidates in batches, the likeliest rules first, each batch in the order
    the person said them (the newer of two statements is the later one)."""
    from dream.redact import redact

    signals_of: dict[tuple[str, str], list[Any]] = {}
    for signal in plan.target.signals:
        signals_of.setdefault((signal.session_id, signal.uuid), []).append(signal)
    decisions_of: dict[tuple[str, str], list[Decision]] = {}
    for decision in plan.decisions:
        decisions_of.setdefault((decision.proposal.session_id, decision.proposal.uuid), []).append(decision)

    def rank(c: Candidate) -> tuple[int, float]:
        return (0 if (c.session_id, c.uuid) in signals_of else 1, -c.probability)

    ordered = sorted(candidates, key=rank)
    out = []
    size = defaults.BATCH_MAX_CANDIDATES
    for start in range(0, len(ordered), size):
        chunk = sorted(ordered[start : start + size], key=lambda c: (c.timestamp, c.uuid))
        rows = []
        for candidate in chunk:
            signals = signals_of.get((candidate.session_id, candidate.uuid), [])
            best = max(signals, key=lambda s: s.confidence, default=None)
            categories = best.categories if best is not None else ()
            scores = {
                "probability": candidate.probability,
                "confidence": best.confidence if best else 0.0,
                "durability": best.durability if best else 0.0,
                "change_risk": best.change_risk if best else 0.0,
                "sensitivity": best.sensitivity if best else 0.0,
            }
            key = (candidate.session_id, candidate.uuid)
            rows.append(candidate_json(plan, candidate, categories, scores, decisions_of.get(key, [])))
        shown: dict[str, tuple[EntryRef, Entry]] = {}
        for entry in _related_entries(memory, plan, chunk):
            # A secret already in memory never goes to the model, nor into the plan's record.
            ref = EntryRef(entry_id(entry.file, entry.key), entry.file, redact(entry.text).text)
            shown.setdefault(ref.id, (ref, entry))
        refs = {i: ref for i, (ref, _) in shown.items()}
        batch: dict[str, Any] = {
            "memory_dir": str(plan.target.memory_dir),
            "project": project,
            "candidates": rows,
            "entries": [
                {"id": ref.id, "file": ref.file, "date": _entry_date(entry), "text": ref.text}
                for ref, entry in shown.values()
            ],
        }
        batch["tokens"] = estimate_tokens(batch)
        record = BatchRecord(
            str(plan.target.memory_dir), project, memory.fingerprint(), [c.id for c in chunk], refs
        )
        out.append((batch, record))
    return out


def _entry_date(entry: Entry) -> str | None:
    return entry.updated or entry.date


def add_batches(packet: Packet, batches: list[tuple[dict[str, Any], BatchRecord]]) -> None:
    """Add a memory dir's batches while the budget lasts; count what waits."""
    assert packet.record is not None
    for number, (batch, record) in enumerate(batches):
        if packet.tokens + batch["tokens"] > packet.max_tokens:
            waiting = batches[number:]
            packet.waiting_candidates += sum(len(r.candidates) for _, r in waiting)
            packet.waiting_memory_dirs += 1
            return
        batch["batch"] = len(packet.batches) + 1
        packet.batches.append(batch)
        packet.record.batches.append(record)
        packet.tokens += batch["tokens"]
