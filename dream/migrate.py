"""Move inline content out of an older MEMORY.md into topic files (MEMORY.md is an index).

What an old index holds that no topic file has (entries under headings, loose lines) is appended
to the topic file of its category: the heading names the category where it can ("## Gotchas" →
corrections), else the signal model does. Links, generated lines and what a topic file already
holds stay where they are.
"""

from __future__ import annotations

from datetime import date

from dream import regex_cache
from dream.edits import Edits
from dream.entry_line import format_entry, parse_entry_line
from dream.memory import Entry, Memory, MemoryFile, normalise_key
from dream.topics import TOPIC_FILES

_HEADING = regex_cache.compile(r"^\s{0,3}#{1,6}\s+(.*)$")
_CATEGORY_WORDS = {
    "correction": ("correction", "mistake", "wrong", "gotcha", "don't", "avoid"),
    "preference": ("preference", "style", "convention", "rule", "how i", "workflow pref"),
    "decision": ("decision", "chose", "architecture", "adr"),
    "pattern": ("pattern", "workflow", "process", "recurring", "routine", "checklist"),
    "fact": ("fact", "environment", "infra", "project", "context", "team", "stack", "notes"),
}
_GENERATED_PROSE = regex_cache.compile(r"^\s*(?:Last consolidated:|<!--|\|)")
LINK_TEXT = regex_cache.compile(r"\[([^\]]*)\]\([^)]*\)")
_LINK_LINE = regex_cache.compile(r"^\s*[-*+]\s+\[[^\]]+\]\([^)\s]+\.md\)")


def migrate_inline_content(memory: Memory, edits: Edits, today: date) -> list[str]:
    """Append what MEMORY.md holds inline to the topic files; the texts moved."""
    if memory.index is None or memory.index.kind != "index":
        return []
    texts = [e.text for e in memory.entries]
    texts += [parse_entry_line(line)[0] for editor in edits.editors.values() for line in editor.appended]
    texts += [
        line for editor in edits.editors.values() for _, new in editor.replacements.values() for line in new
    ]
    known = _known_keys(texts)
    moved = []
    for text, day, source, category in _inline_content(memory.index, known):
        category = category or _category_by_model(text)
        rel = memory.rel(memory.paths.topic_dir / TOPIC_FILES[category])
        edits.editor(rel).append(
            format_entry(text, day or today.isoformat(), source or f"MEMORY.md {today.isoformat()}", "medium")
        )
        known.add(normalise_key(text))
        moved.append(text)
    return moved


def _category_from_heading(heading: str | None) -> str | None:
    if not heading:
        return None
    lowered = heading.lower()
    for category, words in _CATEGORY_WORDS.items():
        if any(word in lowered for word in words):
            return category
    return None


def _category_by_model(text: str) -> str:
    from dream.signals import score_message

    scored = score_message(text, with_categories=True)
    if not scored:
        return "fact"
    best = max(scored, key=lambda s: s.probability)
    return best.categories[0]


def _inline_content(
    index: MemoryFile, known: set[str]
) -> list[tuple[str, str | None, str | None, str | None]]:
    """(text, date, source, category) of what an old MEMORY.md holds that no topic file has."""
    found: list[tuple[str, str | None, str | None, str | None]] = []
    entry_lines: dict[int, Entry] = {}
    for entry in index.entries:
        for number in range(entry.line, entry.end):
            entry_lines[number] = entry
    heading: str | None = None
    seen_entries: set[int] = set()
    for number, line in enumerate(index.lines):
        if number < index.body_start:
            continue
        match = _HEADING.match(line)
        if match:
            heading = match.group(1)
            continue
        item = entry_lines.get(number)
        if item is not None:
            if item.line in seen_entries:
                continue
            seen_entries.add(item.line)
            whole = index.lines[item.line].strip()[2:]
            if (
                _LINK_LINE.match(index.lines[item.line])
                or _is_known(item.text, known)
                or _is_known(whole, known)
            ):
                continue
            found.append((item.text, item.date, item.source, _category_from_heading(heading)))
            continue
        stripped = line.strip()
        if not stripped or _GENERATED_PROSE.match(stripped) or stripped.startswith(("```", "~~~")):
            continue
        if _is_known(stripped, known):
            continue
        found.append((stripped, None, None, _category_from_heading(heading)))
    return found


def _known_keys(texts: list[str]) -> set[str]:
    """Keys of entries as they may appear in the index: as written, and with links as their text."""
    keys = set()
    for text in texts:
        keys.add(normalise_key(text))
        if "](" in text:
            keys.add(normalise_key(LINK_TEXT.sub(r"\1", text)))
    return keys


def _is_known(text: str, known: set[str]) -> bool:
    key = normalise_key(text.rstrip("…"))
    if not key:
        return True
    if key in known:
        return True
    # Quick Reference lines are clipped copies of entries: a prefix match is the same entry.
    return text.endswith("…") and any(k.startswith(key) for k in known)
