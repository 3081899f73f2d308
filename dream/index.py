"""PRUNE & INDEX: retire stale entries, move inline content out of MEMORY.md, render the index.

Claude Code loads MEMORY.md into every session and silently drops what lies past 200 lines or
25,000 characters, so the index is kept well below both, and what matters most (the Quick
Reference, corrections first) comes first, where a cut can never reach it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TYPE_CHECKING

from dream import defaults
from dream.config import Config
from dream.memory import (
    TOPIC_DESCRIPTION,
    TOPIC_FILES,
    Entry,
    Memory,
    MemoryFile,
    normalise_key,
)
from dream.statement import content_terms

if TYPE_CHECKING:
    from dream.gather import Target
    from dream.plan import _Edits

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*)$")
_CATEGORY_WORDS = {
    "correction": ("correction", "mistake", "wrong", "gotcha", "don't", "avoid"),
    "preference": ("preference", "style", "convention", "rule", "how i", "workflow pref"),
    "decision": ("decision", "chose", "architecture", "adr"),
    "pattern": ("pattern", "workflow", "process", "recurring", "routine", "checklist"),
    "fact": ("fact", "environment", "infra", "project", "context", "team", "stack", "notes"),
}
_GENERATED_PROSE = re.compile(r"^\s*(?:Last consolidated:|<!--|\|)")
_LINK_TEXT = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_LINK_LINE = re.compile(r"^\s*[-*+]\s+\[[^\]]+\]\([^)\s]+\.md\)")


@dataclass
class IndexResult:
    lines: list[str]
    migrated: list[str] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)
    demoted: list[str] = field(default_factory=list)
    quick_reference: list[str] = field(default_factory=list)
    topic_rows: list[tuple[str, str, str]] = field(default_factory=list)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


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
            keys.add(normalise_key(_LINK_TEXT.sub(r"\1", text)))
    return keys


def _is_known(text: str, known: set[str]) -> bool:
    key = normalise_key(text.rstrip("…"))
    if not key:
        return True
    if key in known:
        return True
    # Quick Reference lines are clipped copies of entries: a prefix match is the same entry.
    return text.endswith("…") and any(k.startswith(key) for k in known)


def _final_entries(memory: Memory, edits: _Edits) -> dict[str, list[Entry]]:
    """Entries of every topic and archive file after this run's edits."""
    result: dict[str, list[Entry]] = {}
    names = (set(memory.files) | set(edits.editors)) - edits.deleted
    for rel in names:
        original = memory.files.get(rel)
        if original is not None and original.kind == "unparsed":
            continue
        if original is not None and original.kind == "native":
            result[rel] = list(original.entries)
            continue
        if rel in edits.editors:
            result[rel] = edits.editors[rel].final_entries()
        elif original is not None:
            result[rel] = list(original.entries)
    return result


def _prune(
    memory: Memory, edits: _Edits, target: Target, config: Config, today: date, targeted: set[int]
) -> list[str]:
    """Archive entries older than the stale age that nothing in the window's sessions mentions."""
    if not target.digests:
        return []  # no sessions in the window: silence is no evidence that anything went stale
    from dream.gates import is_pinned

    cutoff = (today - timedelta(days=config.stale_days)).isoformat()
    # What the window's sessions said counts as a reference, the signals' sentences included.
    # The digests keep hashes of the terms, never the words (see digest.term_hash).
    from dream.digest import term_hashes

    window_terms = {h for d in target.digests for h in d.terms.split()}
    window_terms |= term_hashes(content_terms(" ".join(s.text for s in target.signals)))
    pruned = []
    archive_rel = memory.rel(memory.paths.archive)
    for entry in memory.entries:
        if entry.native or entry.file == archive_rel or is_pinned(entry, config.pinned):
            continue
        when = entry.updated or entry.date
        if not when or when >= cutoff:
            continue
        editor = edits.editors.get(entry.file)
        if editor is not None and entry.line in editor.replacements:
            continue  # this run already changed it
        if id(entry) in targeted or not window_terms.isdisjoint(term_hashes(memory.statement(entry).terms)):
            continue
        edits.editor(entry.file).remove(entry)
        edits.archive(
            entry,
            f"stale: older than {config.stale_days} days and not mentioned since {target.digests and cutoff}",
        )
        pruned.append(entry.text)
    return pruned


def _archive_all(memory: Memory, edits: _Edits, reason: str) -> list[str]:
    archived = []
    archive_rel = memory.rel(memory.paths.archive)
    for entry in memory.entries:
        if entry.native or entry.file == archive_rel:
            continue
        editor = edits.editors.get(entry.file)
        if editor is not None and entry.line in editor.replacements:
            continue
        edits.editor(entry.file).remove(entry)
        edits.archive(entry, reason)
        archived.append(entry.text)
    return archived


def build_index(
    memory: Memory,
    edits: _Edits,
    target: Target,
    config: Config,
    today: date,
    prune_missing_project: bool = False,
    targeted: set[int] | None = None,
) -> IndexResult:
    from dream.entry_line import format_entry

    result = IndexResult(lines=[])
    from dream.entry_line import parse_entry_line

    texts = [e.text for e in memory.entries]
    texts += [parse_entry_line(line)[0] for editor in edits.editors.values() for line in editor.appended]
    texts += [
        line for editor in edits.editors.values() for _, new in editor.replacements.values() for line in new
    ]
    known = _known_keys(texts)
    if memory.index is not None and memory.index.kind == "index":
        for text, day, source, category in _inline_content(memory.index, known):
            category = category or _category_by_model(text)
            rel = memory.rel(memory.paths.topic_dir / TOPIC_FILES[category])
            edits.editor(rel).append(
                format_entry(
                    text, day or today.isoformat(), source or f"MEMORY.md {today.isoformat()}", "medium"
                )
            )
            known.add(normalise_key(text))
            result.migrated.append(text)
    result.pruned = _prune(memory, edits, target, config, today, targeted or set())
    if prune_missing_project and target.missing:
        result.pruned += _archive_all(memory, edits, "project folder and transcripts no longer exist")
    final = _final_entries(memory, edits)
    result.lines = _render(memory, final, today, result, edits.deleted)
    return result


def _topic_rows(memory: Memory, final: dict[str, list[Entry]]) -> list[tuple[str, str, str]]:
    rows = []
    archive_rel = memory.rel(memory.paths.archive)
    order = [memory.rel(memory.paths.topic_dir / name) for name in TOPIC_FILES.values()]
    for rel in sorted(final, key=lambda r: (r == archive_rel, order.index(r) if r in order else 99, r)):
        entries = final[rel]
        original = memory.files.get(rel)
        if not entries or (original is not None and original.kind == "native"):
            continue  # links to empty files are left out
        base = rel.rsplit("/", 1)[-1]
        summary = ""
        if original is not None:
            summary = str(original.frontmatter.get("description") or "")
        summary = summary or TOPIC_DESCRIPTION.get(base, base[:-3].replace("-", " ").capitalize())
        updated = max((e.updated or e.date or "") for e in entries) or "-"
        rows.append((rel, f"{_clip(summary, 70)} ({len(entries)})", updated))
    return rows


def _quick_reference(memory: Memory, final: dict[str, list[Entry]]) -> list[str]:
    """At most 10 lines: corrections first (with entries that replaced a contradicted memory),
    then preferences, decisions, patterns and facts; newest first within each."""
    order = defaults.CATEGORIES
    ranked: list[tuple[int, str, Entry]] = []
    for rank, category in enumerate(order):
        rel = memory.rel(memory.paths.topic_dir / TOPIC_FILES[category])
        for entry in final.get(rel, []):
            ranked.append((0 if entry.previously else rank, entry.updated or entry.date or "", entry))
    ranked.sort(key=lambda item: item[1], reverse=True)
    ranked.sort(key=lambda item: item[0])  # stable: newest first within a rank
    # A link inside an entry is relative to its topic file: in the index it would dangle.
    return [
        "- " + _clip(_LINK_TEXT.sub(r"\1", e.text), defaults.INDEX_LINE_MAX_CHARS - 2)
        for _, _, e in ranked[: defaults.QUICK_REFERENCE_MAX]
    ]


def _native_lines(memory: Memory, deleted: set[str]) -> list[tuple[float, str]]:
    old_lines: dict[str, str] = {}
    if memory.index is not None:
        for _, link_target, number in memory.index.links:
            old_lines.setdefault(link_target, memory.index.lines[number].strip())
    lines = []
    for rel, memory_file in sorted(memory.files.items()):
        if memory_file.kind != "native" or rel in deleted:
            continue
        existing = old_lines.get(rel)
        if existing and len(existing) <= defaults.INDEX_LINE_MAX_CHARS and existing.startswith("- ["):
            line = existing
        else:
            title = str(memory_file.frontmatter.get("name") or rel)
            hook = str(memory_file.frontmatter.get("description") or "")
            line = _clip(f"- [{title}]({rel}) — {hook}", defaults.INDEX_LINE_MAX_CHARS)
        try:
            mtime = memory_file.path.stat().st_mtime
        except OSError:
            mtime = 0.0
        lines.append((mtime, line))
    return lines


def _assemble(day: str, quick: list[str], rows: list[tuple[str, str, str]], native: list[str]) -> list[str]:
    lines = ["# Memory Index", "", f"Last consolidated: {day}", ""]
    if quick:
        lines += ["## Quick Reference", "", *quick, ""]
    if rows:
        lines += ["## Topic Files", "", "| File | Summary | Updated |", "|---|---|---|"]
        lines += [
            f"| [{rel}]({rel}) | {summary.replace('|', '/')} | {updated} |" for rel, summary, updated in rows
        ]
        lines.append("")
    if native:
        lines += ["## Memory Files", "", *native, ""]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _fits(lines: list[str]) -> bool:
    text = "\n".join(lines) + "\n"
    return len(lines) <= defaults.INDEX_TARGET_LINES and len(text) <= defaults.INDEX_TARGET_CHARS


def _render(
    memory: Memory, final: dict[str, list[Entry]], today: date, result: IndexResult, deleted: set[str]
) -> list[str]:
    quick = _quick_reference(memory, final)
    rows = _topic_rows(memory, final)
    native = sorted(_native_lines(memory, deleted), key=lambda item: -item[0])  # newest first
    kept = [line for _, line in native]
    # Past the limits, the oldest memory-file lines leave the index (the files stay on disk).
    while kept and not _fits(_assemble(today.isoformat(), quick, rows, kept)):
        result.demoted.append(kept.pop())
    while len(quick) > 3 and not _fits(_assemble(today.isoformat(), quick, rows, kept)):
        quick.pop()
    result.quick_reference = quick
    result.topic_rows = rows
    old_day = None
    if memory.index is not None:
        for line in memory.index.lines:
            if line.startswith("Last consolidated: "):
                old_day = line[len("Last consolidated: ") :].strip()
                break
    # Nothing else changed: keep the old date, so a second run over the same input changes nothing.
    if old_day and memory.index is not None:
        unchanged = _assemble(old_day, quick, rows, kept)
        if unchanged == memory.index.lines:
            return unchanged
    return _assemble(today.isoformat(), quick, rows, kept)
