"""A candidate of the agent pass (DESIGN.md §9): one message of the person's that may hold memory.

The digest keeps, beside a session's signals, the messages the agent may judge: every message that
yielded a signal, and every one the model scores near enough to a rule to be worth a second look.
The text is the person's whole message as the reader left it (redacted, without pastes) and
neutralised; the context is the agent's turn just before a short answer. Ids are stable: a
candidate is known by its session and message, an entry by its file and words, so a plan and the
decisions written against it name the same things in a later run.
"""

from __future__ import annotations

import hashlib
from typing import Any, NamedTuple

from dream import defaults


class Candidate(NamedTuple):
    session_id: str
    uuid: str
    timestamp: str
    text: str  # redacted, without pastes, neutralised, at most CANDIDATE_TEXT_MAX_CHARS
    context: str  # the agent's turn before it (redacted, neutralised), at most CANDIDATE_CONTEXT_MAX_CHARS
    probability: float  # the model's best reading of one of its pieces
    unsafe: tuple[str, ...] = ()  # why the text had to be neutralised

    @property
    def id(self) -> str:
        return candidate_id(self.session_id, self.uuid)

    def to_row(self) -> list[Any]:
        return [self.session_id, self.uuid, self.timestamp, self.text, self.context, self.probability,
                list(self.unsafe)]  # fmt: skip

    @classmethod
    def from_row(cls, row: list[Any]) -> Candidate:
        session_id, uuid, timestamp, text, context, probability, unsafe = row
        return cls(str(session_id), str(uuid), str(timestamp), str(text), str(context), float(probability),
                   tuple(unsafe))  # fmt: skip


def candidate_id(session_id: str, uuid: str) -> str:
    return "c" + hashlib.sha256(f"{session_id}\0{uuid}".encode()).hexdigest()[:9]


def entry_id(file: str, key: str) -> str:
    """An entry's id: stable while its file and its words are unchanged."""
    return "e" + hashlib.sha256(f"{file}\0{key}".encode()).hexdigest()[:9]


def make_candidate(
    session_id: str, uuid: str, timestamp: str, text: str, context: str, probability: float
) -> Candidate:
    from dream.control_text import neutralise

    safe_text, unsafe = neutralise(_clip(text, defaults.CANDIDATE_TEXT_MAX_CHARS))
    safe_context, context_unsafe = neutralise(_clip_start(context, defaults.CANDIDATE_CONTEXT_MAX_CHARS))
    return Candidate(
        session_id,
        uuid,
        timestamp,
        safe_text,
        safe_context,
        round(probability, 3),
        tuple(sorted(set(unsafe) | set(context_unsafe))),
    )


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clip_start(text: str, limit: int) -> str:
    # The end of the agent's turn is what the person answers: keep that.
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]
