"""A `MEMORY.md` the person (or Claude Code) curated: kept as they wrote it (DESIGN.md §5).

dream renders its own index (`index.py`) only where `MEMORY.md` is dream's (it opens with
`# Memory Index`) or missing. A curated one (headings, tables, nested lists, prose, Claude Code's
own index lines) is theirs: dream never splits it into entries, never re-dates a line of it, and
adds what it consolidated under a heading of its own (`## Consolidated by dream`: its Quick
Reference and topic files), replaced in place on later runs. Past Claude Code's load limits, whole
blocks (a heading and everything under it, a paragraph, a top-level list item with what is nested
in it) move verbatim, from the end, into `memory-continued.md`, and one link line says where they
went. With no new evidence and within the limits, the file is left byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

from dream import defaults, regex_cache
from dream.memory import MemoryFile
from dream.topics import CONTINUED

if TYPE_CHECKING:
    from dream.index import IndexResult

DREAM_HEADING = "## Consolidated by dream"
_HEADING = regex_cache.compile(r"^ {0,3}(#{1,6})\s")
_FENCE = regex_cache.compile(r"^ {0,3}(```|~~~)")
_ITEM = regex_cache.compile(r"^[-*+] |^\d+[.)] ")
LINK_LINE = (
    f"- [More of this memory: sections moved out to stay under Claude Code's load limits]({CONTINUED})"
)


def is_dream_index(index: MemoryFile) -> bool:
    """dream's own index: its first line of text is `# Memory Index`."""
    body = [line.strip() for line in index.lines[index.body_start :] if line.strip()]
    return bool(body) and body[0] == "# Memory Index"


@dataclass
class CuratedIndex:
    lines: list[str]
    moved: list[str] = field(default_factory=list)  # the lines moved to CONTINUED, in order
    moved_headings: list[str] = field(default_factory=list)
    moved_blocks: int = 0


def _without_dream_section(lines: list[str], start: int) -> tuple[list[str], int | None]:
    """The lines less dream's own section (from its heading to the next `#`/`##` heading), and
    where it stood."""
    for number in range(start, len(lines)):
        if lines[number].strip() == DREAM_HEADING:
            end = number + 1
            while end < len(lines):
                match = _HEADING.match(lines[end])
                if match and len(match.group(1)) <= 2:
                    break
                end += 1
            while number > start and not lines[number - 1].strip():
                number -= 1
            return lines[:number] + lines[end:], number
    return list(lines), None


def dream_lines(index: MemoryFile) -> set[int]:
    """Line numbers of a curated MEMORY.md that dream wrote: its section and the link line."""
    ours = {n for n, line in enumerate(index.lines) if line == LINK_LINE}
    inside = False
    for number, line in enumerate(index.lines):
        if line.strip() == DREAM_HEADING:
            inside = True
        elif inside and (match := _HEADING.match(line)) and len(match.group(1)) <= 2:
            inside = False
        if inside:
            ours.add(number)
    return ours


def blocks(lines: list[str], start: int) -> list[tuple[int, int]]:
    """(first, end) of the blocks that may move whole. Where headings of one level recur, a block
    is such a heading with all it holds; otherwise a paragraph (with the list a line ending in ':'
    introduces) or a top-level list item with what is nested in it. Never inside a code fence or
    a table."""
    outside = _outside_fences(lines, start)
    levels = [len(m.group(1)) for n in outside if (m := _HEADING.match(lines[n]))]
    top = next((level for level in sorted(set(levels)) if levels.count(level) >= 2), None)
    cuts = [start]
    for n in outside:
        line, prev = lines[n], lines[n - 1] if n > start else ""
        if top is not None:
            match = _HEADING.match(line)
            if match and len(match.group(1)) == top:
                cuts.append(n)
            continue
        if not line.strip() or (line.lstrip().startswith("|") and prev.lstrip().startswith("|")):
            continue
        if prev.rstrip().endswith(":"):
            continue  # the list it introduces goes with it
        if _ITEM.match(line) or not prev.strip():
            cuts.append(n)
    cuts = sorted(set(cuts))
    return [(a, b) for a, b in zip(cuts, [*cuts[1:], len(lines)], strict=True) if a < b]


def _outside_fences(lines: list[str], start: int) -> list[int]:
    """Line numbers outside code fences; a fence's opening line counts as outside (a block may
    start there), its body and closing line do not."""
    out: list[int] = []
    fence: str | None = None
    for n in range(start, len(lines)):
        match = _FENCE.match(lines[n])
        if fence is None:
            out.append(n)
            if match:
                fence = match.group(1)
        elif match and match.group(1) == fence:
            fence = None
    return out


def _fits(lines: list[str]) -> bool:
    text = "\n".join(lines) + "\n"
    return len(lines) <= defaults.INDEX_TARGET_LINES and len(text) <= defaults.INDEX_TARGET_CHARS


def within_limits(index: MemoryFile) -> bool:
    """Claude Code loads all of it (the hard limits, not dream's own margin)."""
    text = index.raw.decode("utf-8", "replace")
    return len(index.lines) <= defaults.INDEX_MAX_LINES and len(text) <= defaults.INDEX_MAX_CHARS


def curate(index: MemoryFile, section: list[str], deleted: set[str]) -> CuratedIndex:
    """The curated MEMORY.md with dream's `section` in place (or appended), links to retired
    files left out, and whole blocks moved out from the end while it does not fit."""
    own, at = _without_dream_section(index.lines, index.body_start)
    own = [line for line in own if not any(f"]({rel})" in line for rel in deleted)]
    while own and not own[-1].strip():
        own.pop()

    def assemble(kept: list[str], link: bool) -> list[str]:
        body = list(kept)
        if link and LINK_LINE not in body:
            body += ["", LINK_LINE]
        if not section:
            return body
        if at is not None and at <= len(body) and not link:
            return [*body[:at], "", *section, *([""] if at < len(body) else []), *body[at:]]
        return [*body, "", *section]

    result = CuratedIndex(assemble(own, False))
    if _fits(result.lines):
        return result
    parts = blocks(own, index.body_start)
    kept_parts = list(parts)
    # The first block (a title, a preamble) stays: it says what the file is.
    while len(kept_parts) > 1 and not _fits(assemble(_lines(own, index.body_start, kept_parts), True)):
        first, end = kept_parts.pop()
        moved = own[first:end]
        while moved and not moved[-1].strip():
            moved.pop()
        result.moved[:0] = [*moved, ""]
        result.moved_blocks += 1
        heading = next((m for m in moved if _HEADING.match(m)), None)
        if heading:
            result.moved_headings.insert(0, heading.lstrip("# ").strip())
    result.lines = assemble(_lines(own, index.body_start, kept_parts), bool(result.moved))
    while result.moved and not result.moved[-1].strip():
        result.moved.pop()
    return result


def dream_section(
    index: IndexResult, today: date, old: MemoryFile, rules: list[str] | None = None
) -> list[str]:
    """dream's own section of a curated MEMORY.md: its Quick Reference (or, where the tool loads
    nothing but MEMORY.md, `rules`: every consolidated rule) and its topic files. The date stays
    the old one when nothing else in the section changed (a second run changes nothing)."""
    if not index.quick_reference and not index.topic_rows and not rules:
        return []

    def render(day: str) -> list[str]:
        lines = [DREAM_HEADING, "", f"Last consolidated: {day}", ""]
        if rules:
            lines += ["### Rules", "", *rules, ""]
        elif index.quick_reference:
            lines += ["### Quick Reference", "", *index.quick_reference, ""]
        if index.topic_rows:
            lines += ["### Topic Files", "", "| File | Summary | Updated |", "|---|---|---|"]
            lines += [f"| [{r}]({r}) | {s.replace('|', '/')} | {u} |" for r, s, u in index.topic_rows]
        while lines and not lines[-1]:
            lines.pop()
        return lines

    for number, line in enumerate(old.lines):
        if line.strip() == DREAM_HEADING and number + 2 < len(old.lines):
            dated = old.lines[number + 2]
            if dated.startswith("Last consolidated: "):
                previous = render(dated[len("Last consolidated: ") :].strip())
                if old.lines[number : number + len(previous)] == previous:
                    return previous
    return render(today.isoformat())


def _lines(own: list[str], start: int, parts: list[tuple[int, int]]) -> list[str]:
    kept = list(own[:start])
    for first, end in parts:
        kept.extend(own[first:end])
    while kept and not kept[-1].strip():
        kept.pop()
    return kept
