"""Claude Code's own layout: `<claude>/projects/<slug>/memory/`, one memory dir per project.

Claude Code names the memory dir after the session's git root, while the transcripts stay under
the cwd's slug: a session maps to its git root's memory when the root can be found (DESIGN.md §2).
Topic files carry Claude Code's frontmatter (`name`, `description`, `type`).
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from dream import discover
from dream.layouts.base import Layout, MemoryType
from dream.paths import Paths, git_root, project_slug
from dream.target import Target
from dream.topics import TOPIC_DESCRIPTION, TOPIC_TYPE

if TYPE_CHECKING:
    from dream.digest import Digest
    from dream.discover import SessionSource
    from dream.transcripts import ReadStats


class NativeLayout(Layout):
    memory_type = MemoryType.NATIVE
    project_from_sessions = True

    def targets(self, paths: Paths, project: Path | None) -> list[Target]:
        if project is not None:
            key = paths.memory_key_for_cwd(str(project.resolve()))
            return [Target(key, paths.native_memory_dir(key), self.memory_type)]
        return [Target(d.parent.name, d, self.memory_type) for d in discover.native_memory_dirs(paths)]

    def idle_targets(self, paths: Paths, project: Path | None) -> list[Target]:
        return self.targets(paths, None) if project is None else []

    def sources(
        self, paths: Paths, read: ReadStats, since: datetime, project: Path | None
    ) -> list[SessionSource]:
        return discover.claude_sessions(paths, read, since)

    def key_for(
        self, digest: Digest, paths: Paths, project: Path | None, roots: dict[str, Path | None]
    ) -> str | None:
        key = digest.folder
        if digest.cwd:
            if digest.cwd not in roots:  # one walk per distinct cwd, not per session
                roots[digest.cwd] = git_root(digest.cwd)
            root = roots[digest.cwd]
            if root is not None:
                key = project_slug(root)
        if project is not None and key != paths.memory_key_for_cwd(str(project.resolve())):
            return None
        return key

    def target_for_key(self, paths: Paths, key: str, cwd: str | None) -> Target:
        return Target(key, paths.native_memory_dir(key), self.memory_type, cwd=cwd)

    def new_topic_lines(self, rel: str) -> list[str]:
        base = rel.rsplit("/", 1)[-1]
        title = base[:-3].capitalize()
        return [
            "---",
            f"name: {_yaml_scalar(title)}",
            f"description: {_yaml_scalar(TOPIC_DESCRIPTION.get(base, title))}",
            f"type: {TOPIC_TYPE.get(base, 'project')}",
            "---",
            "",
            f"# {title}",
            "",
        ]

    def project_dir(self, target: Target) -> Path | None:
        if not target.cwd:
            return None
        cwd = Path(target.cwd)
        return git_root(cwd) or cwd


def _yaml_scalar(text: str) -> str:
    """A YAML-safe scalar: plain when it cannot be misread, else a JSON string (valid YAML)."""
    plain = (
        bool(text) and text[0].isalnum() and ": " not in text and " #" not in text and not text.endswith(":")
    )
    return text if plain else json.dumps(text, ensure_ascii=False)
