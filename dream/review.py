"""The review queue: proposals that wait for the person, and the ones they rejected.

Kept under the Claude dir (`dream/review/<memory dir key>.json`), never in the memory dir, so
Claude Code never loads it. Proposal ids are stable across runs over the same input, so an
approval or a rejection sticks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dream.actions import Action
from dream.memory import Entry, Memory
from dream.proposals import Proposal
from dream.verify import key_hash

_FIELDS = (
    "action",
    "category",
    "file",
    "text",
    "date",
    "source",
    "confidence",
    "durability",
    "change_risk",
    "sensitivity",
    "reason",
    "previously",
    "session_id",
    "uuid",
    "timestamp",
)


def proposal_to_json(proposal: Proposal, why: str = "") -> dict[str, Any]:
    data: dict[str, Any] = {name: getattr(proposal, name) for name in _FIELDS}
    data["id"] = proposal.id
    data["hold"] = list(proposal.hold)
    data["redactions"] = list(proposal.redactions)
    data["why"] = why
    # The target is found again by a hash of its words: its words may hold a secret.
    data["target"] = (
        {"file": proposal.target.file, "key": key_hash(proposal.target.key)} if proposal.target else None
    )
    from dream.redact import redact

    # The queue is dream's state on disk: an entry's own text (a re-dating, a replaced entry) may hold
    # a secret that was already in memory; the queue keeps it redacted, as memory will be.
    for name in ("text", "previously", "why"):
        if isinstance(data.get(name), str):
            data[name] = redact(data[name]).text
    return data


def proposal_from_json(data: dict[str, Any], memory: Memory) -> Proposal | None:
    """Rebuild a stored proposal against the memory as it is now; None when its target is gone."""
    target: Entry | None = None
    if data.get("target"):
        want = data["target"]
        target = next(
            (e for e in memory.entries if e.file == want["file"] and want["key"] in (e.key, key_hash(e.key))),
            None,
        )
        if target is None:
            return None
    kwargs = {name: data[name] for name in _FIELDS if name in data}
    try:
        kwargs["action"] = Action(kwargs.get("action"))
    except ValueError:
        return None  # a queue written by a version of dream that knew another action
    proposal = Proposal(
        **kwargs, target=target, hold=list(data.get("hold", [])), redactions=tuple(data.get("redactions", []))
    )
    return proposal


@dataclass
class ReviewState:
    path: Path | None
    pending: dict[str, dict[str, Any]] = field(default_factory=dict)
    rejected: set[str] = field(default_factory=set)

    def restore(self, memory: Memory, current: set[str]) -> list[Proposal]:
        """Pending proposals that this run's window no longer produces, so they are not forgotten."""
        restored = []
        for pid, data in sorted(self.pending.items()):
            if pid in current or pid in self.rejected:
                continue
            proposal = proposal_from_json(data, memory)
            if proposal is not None and proposal.id == pid:
                restored.append(proposal)
        return restored

    def to_json(self) -> dict[str, Any]:
        return {"version": 1, "pending": self.pending, "rejected": sorted(self.rejected)}


def load_review(path: Path) -> ReviewState:
    try:
        from dream.fsio import read_regular

        data = json.loads(read_regular(path)[0].decode("utf-8"))
    except FileNotFoundError:
        return ReviewState(path)
    except (OSError, ValueError):
        # A damaged queue must not stop a dream; its proposals come back from the transcripts.
        return ReviewState(path)
    if not isinstance(data, dict):
        return ReviewState(path)
    pending = data.get("pending")
    rejected = data.get("rejected")
    return ReviewState(
        path,
        dict(pending) if isinstance(pending, dict) else {},
        {str(r) for r in rejected} if isinstance(rejected, list) else set(),
    )
