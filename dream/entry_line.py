"""The entry line of DESIGN.md §5, read and written in one place.

    - [YYYY-MM-DD] The fact. (Updated YYYY-MM-DD, previously: …)
      (source: session YYYY-MM-DD 1a2b3c4d, confidence: high)      <- on the same line

and the archive line `- [YYYY-MM-DD] The fact (archived: reason; dated …; source: …)`. What
dream writes here, `parse_entry_line` reads back to the same parts (a property test holds them).
"""

from __future__ import annotations

from datetime import date
from typing import NamedTuple

from dream import regex_cache

ENTRY = regex_cache.compile(
    r"^(?P<indent>[ \t]*)(?P<bullet>[-*+])[ \t]+"
    r"(?:\[(?P<date>\d{4}-\d{2}-\d{2})\][ \t]+)?"
    r"(?P<body>.*?)"
    r"(?:[ \t]*\(source:[ \t]*(?P<source>[^()]*?)(?:,[ \t]*confidence:[ \t]*(?P<confidence>\w+))?\))?[ \t]*$"
)
_UPDATED = regex_cache.compile(
    r"[ \t]*\(Updated (?P<date>\d{4}-\d{2}-\d{2}), previously: (?P<previously>.*)\)[ \t]*$"
)


class EntryLine(NamedTuple):
    text: str
    date: str | None
    source: str | None
    confidence: str | None
    updated: str | None
    previously: str | None


def is_entry_line(line: str) -> bool:
    return ENTRY.match(line) is not None


def parse_entry_line(line: str) -> EntryLine:
    """The parts of an entry line; a line of another shape is all text."""
    match = ENTRY.match(line)
    if not match:
        return EntryLine(line.strip(), None, None, None, None, None)
    body = match["body"].strip()
    updated = previously = None
    upd = _UPDATED.search(body)
    if upd:
        updated, previously = upd["date"], upd["previously"]
        body = body[: upd.start()].rstrip()
    return EntryLine(body, match["date"], match["source"], match["confidence"], updated, previously)


def format_entry(
    text: str,
    day: str,
    source: str,
    confidence: str,
    updated: str | None = None,
    previously: str | None = None,
) -> str:
    note = f" (Updated {updated}, previously: {previously})" if updated and previously else ""
    tail = f" (source: {source}, confidence: {confidence})" if source else ""
    return f"- [{day}] {text}{note}{tail}"


def archive_line(
    entry_text: str, today: date, reason: str, original_date: str | None, source: str | None
) -> str:
    was = f"; dated {original_date}" if original_date else ""
    src = f"; source: {source}" if source else ""
    return f"- [{today.isoformat()}] {entry_text} (archived: {reason}{was}{src})"
