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
        from dream.fsio import read_regular

        text = read_regular(claude_md_file(project_dir))[0].decode("utf-8", "replace")
    except OSError:
        return []
    return split_sentences(text)
