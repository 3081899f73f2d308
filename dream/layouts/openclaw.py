"""OpenClaw's layout: a workspace (`--project`, default `~/.openclaw/workspace`) whose `MEMORY.md`
is its curated long-term memory, with topic files and daily logs (`memory/YYYY-MM-DD.md`) in
`memory/`. The daily logs and the agents' sessions beside the workspace are the evidence; daily
logs and OpenClaw's own files (`DREAMS.md`, `SOUL.md`, `USER.md`, `AGENTS.md`) are never rewritten.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from dream import discover
from dream.layouts.base import Layout, MemoryType
from dream.paths import Paths, openclaw_agents_dir, openclaw_workspace
from dream.target import Target
from dream.topics import INDEX

if TYPE_CHECKING:
    from dream.digest import Digest
    from dream.discover import SessionSource
    from dream.transcripts import ReadStats

_DAILY_LOG = re.compile(r"^\d{4}-\d{2}-\d{2}\.md$")
# OpenClaw's own files: never evidence, never touched.
RESERVED = frozenset({"DREAMS.md", "SOUL.md", "USER.md", "AGENTS.md", INDEX})


class OpenClawLayout(Layout):
    memory_type = MemoryType.OPENCLAW
    topics_in_subdir = True
    rules_in_index = True
    fixed = True

    def targets(self, paths: Paths, project: Path | None) -> list[Target]:
        workspace = openclaw_workspace(project)
        return [Target(paths.state_key(workspace), workspace, self.memory_type, cwd=str(workspace))]

    def sources(
        self, paths: Paths, read: ReadStats, since: datetime, project: Path | None
    ) -> list[SessionSource]:
        workspace = openclaw_workspace(project)
        return discover.openclaw_sources(workspace, openclaw_agents_dir(workspace), read, since)

    def key_for(
        self, digest: Digest, paths: Paths, project: Path | None, roots: dict[str, Path | None]
    ) -> str | None:
        return paths.state_key(openclaw_workspace(project))

    def is_memory_file(self, name: str) -> bool:
        return super().is_memory_file(name) and not _DAILY_LOG.match(name) and name not in RESERVED
