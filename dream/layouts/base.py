"""The interface every memory layout implements (see the package's doc for the three of them)."""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from dream import paths as path_resolver
from dream.paths import MemoryPaths, Paths
from dream.target import Target
from dream.topics import INDEX

if TYPE_CHECKING:
    from dream.digest import Digest
    from dream.discover import SessionSource
    from dream.memory import Memory
    from dream.transcripts import ReadStats


class MemoryType(str, enum.Enum):
    NATIVE = "native"
    OPENCLAW = "openclaw"
    PROJECT_ROOT = "project-root"

    def __str__(self) -> str:
        return self.value


class Layout(ABC):
    """What dream needs to know of a memory layout."""

    memory_type: MemoryType
    # Topic files live in `<memory dir>/memory/` rather than beside MEMORY.md.
    topics_in_subdir = False
    # The tool loads only MEMORY.md (OpenClaw): the consolidated rules themselves go in it, under
    # dream's own heading, not only an index of topic files the tool never opens.
    rules_in_index = False

    def memory_paths(self, memory_dir: Path) -> MemoryPaths:
        return path_resolver.memory_paths(memory_dir, topics_in_subdir=self.topics_in_subdir)

    @abstractmethod
    def targets(self, paths: Paths, project: Path | None) -> list[Target]:
        """The memory dirs this layout points at, without reading transcripts."""

    @abstractmethod
    def sources(
        self, paths: Paths, read: ReadStats, since: datetime, project: Path | None
    ) -> list[SessionSource]:
        """The session files that may hold evidence for these memory dirs."""

    @abstractmethod
    def key_for(
        self, digest: Digest, paths: Paths, project: Path | None, roots: dict[str, Path | None]
    ) -> str | None:
        """The key of the memory dir a session's digest belongs to (None: to none of them).
        `roots` caches git roots by cwd across one gather."""

    def target_for_key(self, paths: Paths, key: str, cwd: str | None) -> Target:
        """A memory dir first met through a session (layouts with one fixed memory dir never do)."""
        raise KeyError(key)

    # Its memory dirs are known before any session is read (one workspace, one repository).
    fixed = False
    # Orient finds the project (for CLAUDE.md) through the sessions' cwd, not the memory dir.
    project_from_sessions = False

    def idle_targets(self, paths: Paths, project: Path | None) -> list[Target]:
        """Memory dirs with no session in the window that a run still keeps in shape."""
        return []

    def listed_files(self, memory_paths: MemoryPaths) -> list[str] | None:
        """Names in the topic dir that are memory files; None: every `*.md` there is."""
        return None

    def is_memory_file(self, name: str) -> bool:
        """Whether a file (by base name) linked from the index or found in the topic dir is memory."""
        return name != INDEX and not name.startswith(".")

    def new_topic_lines(self, rel: str) -> list[str]:
        """The first lines of a topic file dream creates."""
        base = rel.rsplit("/", 1)[-1]
        return [f"# {base[:-3].capitalize()}", ""]

    def backup(self, memory_paths: MemoryPaths, memory: Memory, today: date) -> Path | None:
        """The first-run backup, before dream's first write (None when one exists already)."""
        from dream.fsio import make_first_backup

        return make_first_backup(memory_paths, today)

    def project_dir(self, target: Target) -> Path | None:
        """The project whose CLAUDE.md orient compares memory with."""
        return target.memory_dir
