"""Line edits on memory files, collected before anything is written.

Every change a run makes to a memory file (an entry appended, replaced or removed, an entry
archived with its reason, a native memory file retired) is an edit here; `plan` turns the edits
into each file's new text, and nothing is written until `apply`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from dream.entry_line import archive_line
from dream.layouts import MemoryType, layout_for
from dream.memory import Entry, Memory, MemoryFile, entry_from_line


@dataclass
class Archived:
    text: str
    file: str
    reason: str


class FileEditor:
    """Line edits on one memory file, applied bottom-up so earlier line numbers stay valid."""

    def __init__(self, memory_file: MemoryFile | None, rel: str, memory_type: MemoryType | str) -> None:
        self.file = memory_file
        self.rel = rel
        # A new topic file starts with the layout's frontmatter and a heading.
        self.lines = list(memory_file.lines) if memory_file else layout_for(memory_type).new_topic_lines(rel)
        self.replacements: dict[int, tuple[int, list[str]]] = {}
        self.appended: list[str] = []
        # Lines that are not entries (whole sections of a curated MEMORY.md), kept as written.
        self.appended_raw: list[str] = []

    def replace(self, entry: Entry, new_lines: list[str]) -> None:
        self.replacements[entry.line] = (entry.end, new_lines)

    def remove(self, entry: Entry) -> None:
        self.replacements[entry.line] = (entry.end, [])

    def append(self, line: str) -> None:
        self.appended.append(line)

    def append_raw(self, lines: list[str]) -> None:
        self.appended_raw.extend(lines)

    def final_entries(self) -> list[Entry]:
        """The entries after the edits, derived from the edits themselves: re-parsing a file of
        thousands of entries to learn what was just written would cost more than the run."""
        entries: list[Entry] = []
        for entry in self.file.entries if self.file is not None else []:
            if entry.line in self.replacements:
                entries.extend(entry_from_line(self.rel, line) for line in self.replacements[entry.line][1])
            else:
                entries.append(entry)
        entries.extend(entry_from_line(self.rel, line) for line in self.appended)
        return entries

    def result(self) -> list[str]:
        lines = list(self.lines)
        for start in sorted(self.replacements, reverse=True):
            end, new = self.replacements[start]
            lines[start:end] = new
        if self.appended:
            while lines and not lines[-1].strip():
                lines.pop()
            last_is_item = bool(lines) and lines[-1].lstrip().startswith(("- ", "* ", "+ "))
            if lines and not last_is_item:
                lines.append("")
            lines.extend(self.appended)
        if self.appended_raw:
            while lines and not lines[-1].strip():
                lines.pop()
            lines.extend(["", *self.appended_raw] if lines else self.appended_raw)
        return lines


@dataclass
class Edits:
    memory: Memory
    today: date
    editors: dict[str, FileEditor] = field(default_factory=dict)
    archived: list[Archived] = field(default_factory=list)
    deleted: set[str] = field(default_factory=set)

    def editor(self, rel: str) -> FileEditor:
        if rel not in self.editors:
            self.editors[rel] = FileEditor(self.memory.files.get(rel), rel, self.memory.memory_type)
        return self.editors[rel]

    def archive(self, entry: Entry, reason: str) -> None:
        rel = self.memory.rel(self.memory.paths.archive)
        self.archived.append(Archived(entry.text, entry.file, reason))
        # A run killed after writing archive.md but before the topic file archives the same entry
        # again on the next run: one record is enough.
        key = entry.key
        existing = self.memory.files.get(rel)
        if existing is not None and any(e.key.startswith(key) for e in existing.entries):
            return
        self.editor(rel).append(archive_line(entry.text, self.today, reason, entry.date, entry.source))
