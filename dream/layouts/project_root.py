"""A plain `MEMORY.md` in a repository root (`--project`, default the cwd), topic files beside it
or in `memory/` where that folder exists. The evidence is that repository's Claude Code
transcripts (sessions whose cwd is the repository or below it). A repository holds README.md and
friends: only dream's own files and what the index links are memory.
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from dream import discover
from dream import paths as path_resolver
from dream.layouts.base import Layout, MemoryType
from dream.paths import MemoryPaths, Paths
from dream.target import Target
from dream.topics import TOPIC_TYPE

if TYPE_CHECKING:
    from dream.digest import Digest
    from dream.discover import SessionSource
    from dream.memory import Memory
    from dream.transcripts import ReadStats


class ProjectRootLayout(Layout):
    memory_type = MemoryType.PROJECT_ROOT
    fixed = True

    def memory_paths(self, memory_dir: Path) -> MemoryPaths:
        subdir = path_resolver.has_memory_subdir(memory_dir)
        return path_resolver.memory_paths(memory_dir, topics_in_subdir=subdir)

    def targets(self, paths: Paths, project: Path | None) -> list[Target]:
        root = _root(project)
        return [Target(paths.state_key(root), root, self.memory_type, cwd=str(root))]

    def sources(
        self, paths: Paths, read: ReadStats, since: datetime, project: Path | None
    ) -> list[SessionSource]:
        folders = discover.project_root_folders(paths, _root(project))
        return discover.claude_sessions(paths, read, since, folders) if folders else []

    def key_for(
        self, digest: Digest, paths: Paths, project: Path | None, roots: dict[str, Path | None]
    ) -> str | None:
        root = _root(project)
        if digest.cwd and not path_resolver.is_inside(digest.cwd, root):
            return None  # a sibling folder whose slug only starts like this one's
        return paths.state_key(root)

    def listed_files(self, memory_paths: MemoryPaths) -> list[str] | None:
        return [name for name in TOPIC_TYPE if (memory_paths.topic_dir / name).exists()]

    def backup(self, memory_paths: MemoryPaths, memory: Memory, today: date) -> Path | None:
        # The memory dir is the repository itself: back up the memory files only.
        from dream.fsio import make_first_backup

        return make_first_backup(
            memory_paths, today, files=[memory.paths.index, *(f.path for f in memory.files.values())]
        )


def _root(project: Path | None) -> Path:
    return (project or Path.cwd()).resolve()
