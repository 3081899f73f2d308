"""ORIENT: the memory model for the three layouts (DESIGN.md §5).

A topic file is kept as its original lines; entries are the top-level Markdown list items that
markdown-it finds (a list item inside a code block or a quote is not an entry). Edits are line
operations on the original text, so everything dream does not understand (prose, headings,
comments, CRLF line ends, the frontmatter's exact bytes) survives a rewrite untouched.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from dream import clean_texts, regex_cache
from dream.entry_line import is_entry_line, parse_entry_line
from dream.fsio import NOT_REGULAR, NotRegularFileError, read_regular
from dream.layouts import Layout, MemoryType, layout_for
from dream.paths import MemoryPaths
from dream.statement import Statement
from dream.statement_cache import analyse
from dream.topics import CONTINUED, INDEX, NATIVE_TYPES, TOPIC_TYPE

_FRONTMATTER = regex_cache.compile(r"\A---[ \t]*\r?\n(.*?\r?\n)?---[ \t]*(?:\r?\n|\Z)", re.DOTALL)


# Only the block structure matters (which lines are list items, quotes, code): inline parsing
# would cost most of the time on a memory of thousands of entries and change nothing here.
@lru_cache(maxsize=1)
def _parser() -> Any:
    # Loaded the first time a file is not plain (most runs never need it: 14 ms of imports).
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").disable(["inline", "text_join"])


@dataclass(eq=False)  # identity: the same words in two files are two entries
class Entry:
    """One memory: a top-level list item of a topic file (or a whole native memory file)."""

    file: str
    line: int  # first line, 0-based, in the file's lines
    end: int  # one past the last line
    text: str  # the fact itself, without date, source or update note
    date: str | None = None
    source: str | None = None
    confidence: str | None = None
    updated: str | None = None
    previously: str | None = None
    raw: str = ""
    native: bool = False

    @property
    def key(self) -> str:
        """Identity used by the nothing-lost check: the fact's normalised words."""
        return normalise_key(self.text)


def normalise_key(text: str) -> str:
    return " ".join(re.findall(r"[^\W_]+", text.lower()))


@dataclass
class MemoryFile:
    path: Path
    name: str  # path relative to the memory dir, with '/' separators
    kind: str  # "topic" | "native" | "index" | "archive" | "curated" | "unparsed"
    raw: bytes
    lines: list[str] = field(default_factory=list)  # without line ends
    newline: str = "\n"
    trailing_newline: bool = True
    mode: int = 0o644
    frontmatter: dict[str, Any] = field(default_factory=dict)
    body_start: int = 0  # first line after the frontmatter
    entries: list[Entry] = field(default_factory=list)
    links: list[tuple[str, str, int]] = field(default_factory=list)  # (title, target, line) in an index
    error: str | None = None

    def render(self, lines: list[str] | None = None) -> str:
        lines = self.lines if lines is None else lines
        text = self.newline.join(lines)
        if lines and self.trailing_newline:
            text += self.newline
        return text


@dataclass
class Memory:
    paths: MemoryPaths
    memory_type: MemoryType
    files: dict[str, MemoryFile]
    index: MemoryFile | None
    # Each entry's statement (dream/statement.py), by identity: proposals and prune both need it, and a
    # memory of 50,000 entries is more than any bounded cache of texts holds.
    _statements: dict[int, Statement] = field(default_factory=dict, init=False, repr=False, compare=False)
    _clean_files: dict[str, bool] = field(default_factory=dict, init=False, repr=False, compare=False)

    def statement(self, entry: Entry) -> Statement:
        """The statement of one of this memory's entries (terms, key terms, polarity), computed once
        (and kept between runs by `statement_cache` while the entry's words are unchanged)."""
        found = self._statements.get(id(entry))
        if found is None:
            # An entry this run plans for a new file is looked at on its own.
            clean = (lambda: self._clean(entry.file)) if entry.file in self.files else None
            found = self._statements[id(entry)] = analyse(entry.text, clean=clean)
        return found

    def _clean(self, rel: str) -> bool:
        """Whether a memory file holds no secret (looked at once a run, or known from the last)."""
        clean = self._clean_files.get(rel)
        if clean is None:
            raw = self.files[rel].raw.decode("utf-8", "replace")
            clean = self._clean_files[rel] = not clean_texts.contains_secret(raw)
        return clean

    @property
    def entries(self) -> list[Entry]:
        out: list[Entry] = []
        for memory_file in self.files.values():
            if memory_file.kind in ("topic", "native"):
                out.extend(memory_file.entries)
        return out

    @property
    def archived(self) -> list[Entry]:
        archive = self.files.get(self.rel(self.paths.archive))
        return list(archive.entries) if archive else []

    @property
    def unparsed(self) -> list[MemoryFile]:
        return [f for f in self.files.values() if f.kind == "unparsed"]

    def rel(self, path: Path) -> str:
        return path.relative_to(self.paths.memory_dir).as_posix()

    def fingerprint(self) -> str:
        """Changes whenever any memory file changes: apply re-plans when it moved under us."""
        digest = hashlib.sha256()
        for name in sorted(self.files):
            digest.update(name.encode() + b"\0" + self.files[name].raw + b"\0")
        if self.index is not None:
            digest.update(b"index\0" + self.index.raw)
        return digest.hexdigest()


def entry_from_line(name: str, line: str) -> Entry:
    """An Entry for a line dream is about to write (its place in the file is not known yet)."""
    text, date, source, confidence, updated, previously = parse_entry_line(line)
    return Entry(name, -1, -1, text, date, source, confidence, updated, previously, raw=line)


def _split_lines(text: str) -> tuple[list[str], str, bool]:
    newline = "\r\n" if "\r\n" in text else "\n"
    trailing = text.endswith(("\n", "\r"))
    lines = text.splitlines()
    return lines, newline, trailing


_FLAT_LINE = regex_cache.compile(r"([A-Za-z_][A-Za-z0-9_-]*):[ \t]+(\S.*?)[ \t]*")
# What YAML reads as something other than a plain string (a number, a date, a boolean, null…), or
# where its syntax begins (quotes, flow collections, anchors, tags, block scalars, comments).
_YAML_SPECIAL = regex_cache.compile(
    r"[-?:,\[\]{}#&*!|>'\"%@`]|[0-9+.~]|(?i:true|false|yes|no|on|off|null|y|n)$"
)


# A double-quoted scalar with no escape in it reads as the text between its quotes.
_DOUBLE_QUOTED = regex_cache.compile(r'"([^"\\]*)"')


def _flat_frontmatter(block: str) -> dict[str, Any] | None:
    """`key: value` lines of plain words, read without YAML (whose import is most of a warm run's
    load); None for anything else, which YAML reads."""
    data: dict[str, Any] = {}
    for line in block.replace("\r\n", "\n").split("\n"):
        if not line.strip():
            continue
        m = _FLAT_LINE.fullmatch(line)
        if m is None:
            return None
        quoted = _DOUBLE_QUOTED.fullmatch(m.group(2))
        if quoted is not None:
            # "Corrections: where the agent was wrong": what dream writes for a colon in a value
            data[m.group(1)] = quoted.group(1)
            continue
        if _YAML_SPECIAL.match(m.group(2)) or ": " in m.group(2) or " #" in m.group(2):
            return None
        data[m.group(1)] = m.group(2)
    return data


def _frontmatter(text: str) -> tuple[dict[str, Any], int] | None:
    """The YAML frontmatter and the number of lines it takes; None when it is broken."""
    match = _FRONTMATTER.match(text)
    if not match:
        return {}, 0
    simple = _flat_frontmatter(match.group(1) or "")
    if simple is not None:
        return simple, match.group(0).count("\n")
    import frontmatter

    try:
        post = frontmatter.loads(match.group(0).replace("\r\n", "\n") + "\n")
    except Exception:  # any YAML error: the file is left exactly as it is
        return None
    data = dict(post.metadata)
    return data, match.group(0).count("\n")


# The plain shape of a topic file dream writes: headings, `- ` items of one line, blank lines and
# prose after a blank line. Such a file needs no block parse (issue 17: markdown-it is most of a
# 50,000-entry load); anything else (code, quotes, HTML, nesting, indentation) takes markdown-it.
_PLAIN_ITEM = regex_cache.compile(r"- (?![-*+>#<~ \t]|`{3}|[0-9]+[.)](?: |$))\S")
_PLAIN_HEADING = regex_cache.compile(r"#{1,6}(?: |$)")
# A paragraph line: a letter, bold (`**Why:**`), a link, inline code, or a table row (plain text to
# CommonMark, which has no tables).
_PLAIN_PROSE = regex_cache.compile(r"[^\W\d_]|\*\*[^*\s]|\[|`(?!``)|\|")


def _plain_items(lines: list[str], start: int) -> list[tuple[int, int]] | None:
    """The items of a plain file as markdown-it would find them, or None when it is not plain."""
    ranges: list[tuple[int, int]] = []
    previous = "blank"
    for number in range(start, len(lines)):
        line = lines[number]
        if not line.strip():
            if line:
                return None  # whitespace-only lines: leave the subtleties to the parser
            previous = "blank"
        elif _PLAIN_ITEM.match(line):
            ranges.append((number, number + 1))
            previous = "item"
        elif _PLAIN_HEADING.match(line):
            previous = "heading"
        elif _PLAIN_PROSE.match(line) and previous != "item":
            previous = "prose"  # a paragraph: after an item it would continue the item instead
        else:
            return None
    return ranges


def _top_level_items(lines: list[str], start: int) -> list[tuple[int, int]]:
    """(first, end) line ranges of top-level list items in lines[start:], via markdown-it (or
    without it for a file of plain lines, with the same result)."""
    plain = _plain_items(lines, start)
    if plain is not None:
        return plain
    return _parsed_items(lines, start)


def _parsed_items(lines: list[str], start: int) -> list[tuple[int, int]]:
    body = "\n".join(lines[start:])
    tokens = _parser().parse(body)
    ranges: list[tuple[int, int]] = []
    depth = 0  # nesting of lists and quotes
    for token in tokens:
        if token.type in ("bullet_list_open", "ordered_list_open", "blockquote_open"):
            depth += 1
            if token.type == "bullet_list_open" and depth == 1:
                continue
        elif token.type in ("bullet_list_close", "ordered_list_close", "blockquote_close"):
            depth -= 1
        elif token.type == "list_item_open" and depth == 1 and token.map and token.markup in "-*+":
            ranges.append((token.map[0] + start, token.map[1] + start))
    return ranges


def _entries(name: str, lines: list[str], start: int) -> list[Entry]:
    entries = []
    for first, end in _top_level_items(lines, start):
        # Trailing blank lines belong to the list, not to the item.
        while end > first + 1 and not lines[end - 1].strip():
            end -= 1
        head = lines[first]
        if not is_entry_line(head):
            continue
        text, date, source, confidence, updated, previously = parse_entry_line(head)
        extra = " ".join(part.strip() for part in lines[first + 1 : end])
        if extra:
            text = f"{text} {extra}".strip()
        if not text:
            continue
        entries.append(
            Entry(
                name,
                first,
                end,
                text,
                date,
                source,
                confidence,
                updated,
                previously,
                raw="\n".join(lines[first:end]),
            )
        )
    return entries


_LINK = regex_cache.compile(r"\[(?P<title>[^\]]+)\]\((?P<target>[^)\s]+)\)")


def load_file(path: Path, name: str, kind: str, known: MemoryFile | None = None) -> MemoryFile:
    """One memory file. A FIFO, socket or device is never opened (reading a FIFO blocks forever):
    like a file that cannot be read, it is unparsed, so it is left untouched and reported.

    `known`: the same file as read before (by an earlier load of this run); when its bytes and
    mode are still the same, it is returned as it is instead of being parsed again."""
    try:
        raw, info = read_regular(path)
    except NotRegularFileError:
        error = "is a directory" if os.path.isdir(path) else NOT_REGULAR
        return MemoryFile(path, name, "unparsed", b"", error=error)
    except IsADirectoryError:
        return MemoryFile(path, name, "unparsed", b"", error="is a directory")
    except OSError as exc:
        return MemoryFile(path, name, "unparsed", b"", error=exc.strerror or "cannot read")
    mode = stat.S_IMODE(info.st_mode)
    if known is not None and known.raw == raw and known.mode == mode and known.path == path:
        return known  # parsed files are never changed after loading: plans edit copies of lines
    memory_file = MemoryFile(path, name, kind, raw, mode=mode)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        memory_file.kind, memory_file.error = "unparsed", "not UTF-8 text"
        return memory_file
    if text.startswith("\ufeff"):
        memory_file.kind, memory_file.error = "unparsed", "starts with a byte-order mark"
        return memory_file
    lines, newline, trailing = _split_lines(text)
    memory_file.lines, memory_file.newline, memory_file.trailing_newline = lines, newline, trailing
    parsed = _frontmatter(text)
    if parsed is None:
        memory_file.kind, memory_file.error = "unparsed", "frontmatter is not valid YAML"
        return memory_file
    memory_file.frontmatter, memory_file.body_start = parsed
    if kind == "index":
        for number, line in enumerate(lines):
            for match in _LINK.finditer(line):
                memory_file.links.append((match["title"], match["target"], number))
    if kind == "topic" and _is_native_memory(memory_file.frontmatter, name):
        memory_file.kind = "native"
        memory_file.entries = [_native_entry(memory_file)]
        return memory_file
    if kind != "curated":
        memory_file.entries = _entries(name, lines, memory_file.body_start)
    return memory_file


def native_type(frontmatter: dict[str, Any]) -> str | None:
    value = frontmatter.get("type")
    if value is None and isinstance(frontmatter.get("metadata"), dict):
        value = frontmatter["metadata"].get("type")
    return value if isinstance(value, str) and value in NATIVE_TYPES else None


def _is_native_memory(frontmatter: dict[str, Any], name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    if base in TOPIC_TYPE:
        return False
    return (
        bool(frontmatter.get("name"))
        and bool(frontmatter.get("description"))
        and native_type(frontmatter) is not None
    )


def _native_entry(memory_file: MemoryFile) -> Entry:
    """A Claude Code memory file is one memory: its rule is the description and the body's lead."""
    body = [line.strip() for line in memory_file.lines[memory_file.body_start :] if line.strip()]
    lead = body[0] if body else ""
    description = str(memory_file.frontmatter.get("description", ""))
    text = description if not lead or lead.startswith(("**Why", "**How")) else f"{description} — {lead}"
    return Entry(memory_file.name, memory_file.body_start, len(memory_file.lines), text.strip(), native=True)


def _candidate_names(paths: MemoryPaths, layout: Layout, index: MemoryFile | None) -> list[str]:
    memory_dir = paths.memory_dir
    names: set[str] = set()
    listed = layout.listed_files(paths)
    if listed is None:
        try:
            listed = [b for b in sorted(os.listdir(paths.topic_dir)) if b.endswith(".md")]
        except OSError:
            listed = []
    for base in listed:
        if layout.is_memory_file(base):
            names.add((paths.topic_dir / base).relative_to(memory_dir).as_posix())
    if index is not None:
        for _, target, _ in index.links:
            if _is_local_md(target):
                candidate = (memory_dir / target).resolve()
                try:
                    rel = candidate.relative_to(memory_dir.resolve()).as_posix()
                except ValueError:
                    continue
                if candidate.exists() and rel != INDEX and layout.is_memory_file(candidate.name):
                    names.add(rel)
    return sorted(names)


def _is_local_md(target: str) -> bool:
    return target.endswith(".md") and "://" not in target and not target.startswith(("/", "#"))


def load_memory(paths: MemoryPaths, memory_type: MemoryType | str, known: Memory | None = None) -> Memory:
    """Read every memory file of a memory dir. Never raises for a bad file: it is marked unparsed.

    `known`: the same memory as read earlier in this run (before its plan, before its write); every
    file is read again, and only a file whose bytes changed is parsed again (a run over 50,000
    entries parses them once, then only the files it wrote)."""
    layout = layout_for(memory_type)
    previous = known.files if known is not None and known.paths == paths else {}
    old_index = known.index if known is not None and known.paths == paths else None
    index = (
        load_file(paths.index, INDEX, "index", old_index)
        if paths.index.exists() or paths.index.is_symlink()
        else None
    )
    files: dict[str, MemoryFile] = {}
    archive_rel = paths.archive.relative_to(paths.memory_dir).as_posix()
    for rel in _candidate_names(paths, layout, index):
        # Sections moved out of a curated MEMORY.md are the person's, as written: never entries.
        kind = (
            "archive" if rel == archive_rel else "curated" if rel.rsplit("/", 1)[-1] == CONTINUED else "topic"
        )
        files[rel] = load_file(paths.memory_dir / rel, rel, kind, previous.get(rel))
    memory = Memory(paths, layout.memory_type, files, index)
    if known is not None and known is not memory:
        # The statements of entries carried over stay computed.
        kept = {id(e) for f in files.values() if previous.get(f.name) is f for e in f.entries}
        memory._statements.update((k, v) for k, v in known._statements.items() if k in kept)
    return memory
