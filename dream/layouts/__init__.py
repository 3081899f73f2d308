"""Memory layouts: where a memory dir is, what in it is memory, and where its evidence comes from.

One module per layout behind one interface (as pre-commit has one per language):

- `native` (`native.py`): `<claude>/projects/<slug>/memory/`, one per project; the evidence is
  that project's Claude Code transcripts.
- `openclaw` (`openclaw.py`): the workspace (`MEMORY.md`, topic files in `memory/`); the evidence
  is its daily logs and agent sessions.
- `project-root` (`project_root.py`): a repository root holding `MEMORY.md`; the evidence is the
  repository's Claude Code transcripts.

Nothing outside this package asks which layout is in force: it asks the layout.
"""

from __future__ import annotations

from pathlib import Path

from dream.layouts.base import Layout, MemoryType
from dream.layouts.native import NativeLayout
from dream.layouts.openclaw import OpenClawLayout
from dream.layouts.project_root import ProjectRootLayout
from dream.paths import MemoryPaths

__all__ = ["Layout", "MemoryType", "layout_for", "memory_paths"]

# Layouts hold no state: one of each serves every caller.
_LAYOUTS: dict[MemoryType, Layout] = {
    MemoryType.NATIVE: NativeLayout(),
    MemoryType.OPENCLAW: OpenClawLayout(),
    MemoryType.PROJECT_ROOT: ProjectRootLayout(),
}


def layout_for(memory_type: MemoryType | str) -> Layout:
    """The layout of a memory type (`native`, `openclaw`, `project-root`)."""
    return _LAYOUTS[MemoryType(memory_type)]


def memory_paths(memory_dir: Path, memory_type: MemoryType | str) -> MemoryPaths:
    """The files of a memory dir in a layout."""
    return layout_for(memory_type).memory_paths(memory_dir)
