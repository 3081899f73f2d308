"""ORIENT: what memory there is, how big, and what is already wrong with it.

Reports only; never writes. Contradictions with the project's CLAUDE.md are listed for the person
to reconcile: dream never edits CLAUDE.md.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from dream import defaults
from dream.contradiction import contradiction
from dream.dates import find_relative_dates
from dream.matching import TermIndex
from dream.memory import Memory
from dream.project_rules import claude_md_rules
from dream.statement import analyse


@dataclass
class OrientReport:
    key: str
    memory_dir: str
    files: list[dict[str, Any]] = field(default_factory=list)
    index: dict[str, Any] = field(default_factory=dict)
    relative_dates: list[str] = field(default_factory=list)
    contradictions: list[dict[str, str]] = field(default_factory=list)
    claude_md_conflicts: list[dict[str, str]] = field(default_factory=list)
    unparsed: list[dict[str, str]] = field(default_factory=list)


def _modified(path: Path) -> str:
    try:
        return datetime.fromtimestamp(os.stat(path).st_mtime, timezone.utc).date().isoformat()
    except OSError:
        return "-"


def orient_memory(key: str, memory: Memory, project_dir: Path | None) -> OrientReport:
    report = OrientReport(key, str(memory.paths.memory_dir))
    for rel, memory_file in sorted(memory.files.items()):
        report.files.append(
            {
                "file": rel,
                "kind": memory_file.kind,
                "entries": len(memory_file.entries),
                "lines": len(memory_file.lines),
                "modified": _modified(memory_file.path),
            }
        )
        if memory_file.kind == "unparsed":
            report.unparsed.append({"file": rel, "error": memory_file.error or ""})
    if memory.index is not None:
        text = memory.index.raw.decode("utf-8", "replace")
        lines = len(memory.index.lines)
        report.index = {
            "lines": lines,
            "chars": len(text),
            "max_lines": defaults.INDEX_MAX_LINES,
            "max_chars": defaults.INDEX_MAX_CHARS,
            "over_limit": lines > defaults.INDEX_MAX_LINES or len(text) > defaults.INDEX_MAX_CHARS,
            "inline_entries": len(memory.index.entries),
        }
    for entry in memory.entries:
        found = find_relative_dates(entry.text)
        if found and not entry.date:
            report.relative_dates.append(f"{entry.file}: '{found[0]}' in {entry.text[:80]}")
    report.contradictions = _contradictions(memory)
    if project_dir is not None:
        report.claude_md_conflicts = _claude_md_conflicts(memory, project_dir)
    return report


def _contradictions(memory: Memory) -> list[dict[str, str]]:
    """Pairs of entries already in memory where one contradicts the other."""
    entries = memory.entries
    statements = [memory.statement(e) for e in entries]
    index = TermIndex()
    for i, statement in enumerate(statements):
        index.add(i, statement)
    seen: set[tuple[int, int]] = set()
    found = []
    for i, statement in enumerate(statements):
        for j in index.candidates(statement):
            pair = (min(i, j), max(i, j))
            if j == i or pair in seen:
                continue
            hit = contradiction(statement, statements[j])
            if hit:
                seen.add(pair)
                found.append(
                    {
                        "a": f"{entries[i].file}: {entries[i].text[:80]}",
                        "b": f"{entries[j].file}: {entries[j].text[:80]}",
                        "on": hit[0],
                    }
                )
    return found


def _claude_md_conflicts(memory: Memory, project_dir: Path) -> list[dict[str, str]]:
    """Entries that contradict a rule of the project's CLAUDE.md (reported, never edited)."""
    rules = claude_md_rules(project_dir)
    rule_statements = [(r, analyse(r)) for r in rules]
    found = []
    for entry in memory.entries:
        statement = memory.statement(entry)
        for rule, rule_statement in rule_statements:
            hit = contradiction(statement, rule_statement) or contradiction(rule_statement, statement)
            if hit:
                found.append(
                    {"memory": f"{entry.file}: {entry.text[:80]}", "claude_md": rule[:80], "on": hit[0]}
                )
    return found
