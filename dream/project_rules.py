"""The project's own `CLAUDE.md`, as rules: Claude Code loads it into every session already, so a
rule it states is never added to memory again (DESIGN.md §5); contradictions are only reported."""

from __future__ import annotations

from pathlib import Path

from dream.paths import claude_md_file
from dream.sentences import split_sentences


def claude_md_rules(project_dir: Path | None) -> list[str]:
    """The sentences of `<project>/CLAUDE.md` (none when there is no project or no file)."""
    if project_dir is None:
        return []
    try:
        text = claude_md_file(project_dir).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return split_sentences(text)
