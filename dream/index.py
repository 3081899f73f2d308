"""INDEX: render MEMORY.md for the memory as this run leaves it.

Claude Code loads MEMORY.md into every session and silently drops what lies past 200 lines or
25,000 characters, so the index is kept well below both, and what matters most (the Quick
Reference, corrections first) comes first, where a cut can never reach it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import NamedTuple

from dream import defaults, regex_cache
from dream.edits import Edits
from dream.memory import Entry, Memory, normalise_key
from dream.migrate import LINK_TEXT
from dream.redact import redact
from dream.statement import STOPWORDS, is_key_term, stem
from dream.topics import TOPIC_DESCRIPTION, TOPIC_FILES


@dataclass
class IndexResult:
    lines: list[str]
    migrated: list[str] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)
    demoted: list[str] = field(default_factory=list)
    quick_reference: list[str] = field(default_factory=list)
    topic_rows: list[tuple[str, str, str]] = field(default_factory=list)


def _clip(text: str, limit: int) -> str:
    # Redacted before it is cut: a secret cut short ("Bot -qdJ-…vIkMM…") reads as elided, and
    # nothing would find it in MEMORY.md afterwards.
    text = redact(text).text
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def final_entries(memory: Memory, edits: Edits) -> dict[str, list[Entry]]:
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


def build_index(memory: Memory, final: dict[str, list[Entry]], today: date, deleted: set[str]) -> IndexResult:
    """The new MEMORY.md for the memory as it will be (`final`: see `final_entries`)."""
    result = IndexResult(lines=[])
    result.lines = _render(memory, final, today, result, deleted)
    return result


def _topic_rows(memory: Memory, final: dict[str, list[Entry]]) -> list[tuple[str, str, str]]:
    rows = []
    archive_rel = memory.rel(memory.paths.archive)
    order = [memory.rel(memory.paths.topic_dir / name) for name in TOPIC_FILES.values()]
    for rel in sorted(final, key=lambda r: (r == archive_rel, order.index(r) if r in order else 99, r)):
        entries = final[rel]
        original = memory.files.get(rel)
        if not entries or (original is not None and original.kind in ("native", "curated")):
            continue  # links to empty files are left out; a curated MEMORY.md links its own
        base = rel.rsplit("/", 1)[-1]
        summary = ""
        if original is not None:
            summary = str(original.frontmatter.get("description") or "")
        summary = summary or TOPIC_DESCRIPTION.get(base, base[:-3].replace("-", " ").capitalize())
        # The row names what is inside ("pnpm, Vitest, Tailwind"); the file's description only
        # where its entries name nothing specific (an archive's reasons, prose facts).
        inside = _what_is_inside(memory, entries) if rel != archive_rel else ""
        updated = max((e.updated or e.date or "") for e in entries) or "-"
        rows.append((rel, f"{_clip(inside or summary, 70)} ({len(entries)})", updated))
    return rows


# Only known tools and versions, as plain words: nothing an entry quotes (a backticked `@path`
# would become an import in the file Claude Code loads into every session).
_NAMED = regex_cache.compile(r"(?<![@\w/~.-])([A-Za-z][\w+#-]{1,30}(?:\.[\w+#-]+)*)(?![\w/@])")


def _what_is_inside(memory: Memory, entries: list[Entry], most: int = 5) -> str:
    """The tools and names a topic file's entries speak of (not those they reject), most mentioned
    first, then in the order they first appear, as written."""
    counts: dict[str, int] = {}
    first: dict[str, int] = {}
    spelled: dict[str, str] = {}
    for entry in entries:
        rejected = memory.statement(entry).negative  # analysed once per run, shared with matching
        seen: set[str] = set()
        for match in _NAMED.finditer(entry.text):
            word = match.group(1)
            key = word.lower()
            if key in seen or stem(key) in rejected or not is_key_term(stem(key)):
                continue
            seen.add(key)
            counts[key] = counts.get(key, 0) + 1
            first.setdefault(key, len(first))
            spelled.setdefault(key, word)
        if not seen:
            # An entry that names no tool is still in the row: by its first content words
            # ("small, focused commits"), as plain words.
            head = _head(entry.text)
            if head and head.lower() not in counts:
                counts[head.lower()] = 0
                first.setdefault(head.lower(), len(first))
                spelled.setdefault(head.lower(), head)
    ranked = sorted(counts, key=lambda k: (-counts[k], first[k]))[:most]
    return ", ".join(spelled[k] for k in ranked)


_HEAD_SKIP = frozenset(
    [
        "use",
        "prefer",
        "always",
        "never",
        "don't",
        "do",
        "not",
        "we",
        "our",
        "the",
        "a",
        "an",
        "is",
        "are",
        "be",
        "keep",
        "make",
        "sure",
        "every",
        "all",
    ]
)


def _head(text: str, words: int = 3) -> str:
    """The first few content words of an entry, plain (letters and digits only)."""
    plain = [
        w
        for w in re.findall(r"[A-Za-z][A-Za-z0-9'-]*|\d+", text)
        if w.lower() not in _HEAD_SKIP and w.lower() not in STOPWORDS
    ]
    return " ".join(plain[:words])


class Importance(NamedTuple):
    """How much an entry matters in every session; a larger value ranks higher."""

    rule: bool  # a rule for every session (a correction, preference, decision, pattern), not a fact
    insistence: int  # how many times the record shows the person pressing the point
    latest: str  # ISO date of the last time it was said, compared as text


def importance(entry: Entry, category: str) -> Importance:
    """The Quick Reference's ranking of one entry of a topic file of `category`.

    Rules outrank facts; among them, the more insistence, then the more recent, the higher;
    equals keep the order they are read in (corrections, preferences, decisions, patterns, facts).
    No count of sayings is stored, so insistence counts what the entry line keeps: one for a
    correction (the person overruled the agent); one for `previously` (the person overruled what
    was remembered: a correction too, even of a fact); one for a restatement on another day
    (`date` and `updated` differ: a restatement refreshes `date`, the `Updated` note stays).
    """
    corrected = entry.previously is not None
    restated = bool(entry.date and entry.updated and entry.date != entry.updated)
    return Importance(
        rule=category != "fact" or corrected,
        insistence=(category == "correction") + corrected + restated,
        latest=max(entry.date or "", entry.updated or ""),
    )


# The tail of an archive line (dream/entry_line.py `archive_line`): the archived entry's own date.
_DATED = regex_cache.compile(r"; dated (?P<dated>\d{4}-\d{2}-\d{2})(?:; source: [^()]*)?\)$")


def _superseded(memory: Memory, final: dict[str, list[Entry]]) -> set[tuple[str, str | None]]:
    """(key, date) of every entry the archive holds, this run's archivals included.

    The date tells the archived entry itself (a run killed after writing archive.md left it in
    its topic file too) from the same words said again after the switch back, which are current.
    """
    found: set[tuple[str, str | None]] = set()
    for archived in final.get(memory.rel(memory.paths.archive), []):
        head, mark, tail = archived.text.partition(" (archived: ")
        if mark:
            dated = _DATED.search(tail)
            found.add((normalise_key(head), dated["dated"] if dated else None))
    return found


def _quick_reference(
    memory: Memory, final: dict[str, list[Entry]], limit: int = defaults.QUICK_REFERENCE_MAX
) -> list[str]:
    """At most `limit` lines, the most important first (see `importance`): the rules the person
    insisted on most, and most recently, then the rest of the rules, then facts. An entry the
    archive holds never appears; one replaced in this run is not in `final` any more."""
    from dream.control_text import neutralise

    superseded = _superseded(memory, final)
    ranked: list[tuple[Importance, Entry]] = []
    for category in defaults.CATEGORIES:
        rel = memory.rel(memory.paths.topic_dir / TOPIC_FILES[category])
        for entry in final.get(rel, []):
            # MEMORY.md is loaded into every session: an entry with control text in it (put in a
            # topic file by hand, or before dream held such text) is never promoted there.
            if (entry.key, entry.date) not in superseded:
                ranked.append((importance(entry, category), entry))
    ranked.sort(key=lambda item: item[0], reverse=True)  # stable: category, then line order among equals
    # Control text is looked for in rank order, only until the list is full.
    chosen: list[Entry] = []
    for _, entry in ranked:
        if len(chosen) == limit:
            break
        if not neutralise(entry.text)[1]:
            chosen.append(entry)
    # A link inside an entry is relative to its topic file: in the index it would dangle.
    return ["- " + _clip(LINK_TEXT.sub(r"\1", e.text), defaults.INDEX_LINE_MAX_CHARS - 2) for e in chosen]


def ranked_rules(memory: Memory, final: dict[str, list[Entry]], limit: int) -> list[str]:
    """Every current rule and fact, the most important first, as index lines (at most `limit`)."""
    return _quick_reference(memory, final, limit)


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
