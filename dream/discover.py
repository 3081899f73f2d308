"""Find the evidence (session files) and the memory dirs of each layout (DESIGN.md §2)."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from dream.paths import (
    Paths,
    openclaw_agent_sessions,
    openclaw_logs_dir,
    project_memory_dir,
    project_slug,
)
from dream.transcripts import ReadStats, daily_log_date

CLAUDE = "claude"
OPENCLAW_SESSION = "openclaw-session"
OPENCLAW_LOG = "openclaw-log"


class SessionSource(NamedTuple):
    """One file of evidence: a transcript, an OpenClaw session, or an OpenClaw daily log.

    Immutable; a named tuple because discovery makes one per transcript on every run."""

    # The file's path as text: a warm run only compares it with the digest cache's keys, and a
    # Path object per session costs a tenth of such a run.
    location: str
    kind: str
    # The folder the file sits in: `projects/<slug>` for Claude Code, the layout's own name else.
    folder: str
    session_id: str
    size: int
    mtime: float
    # (size, mtime_ns, ctime_ns, inode), taken before the file is read: what the digest cache
    # compares, as git does for its index. A rewrite that restores the mtime still moves the ctime.
    stat_key: tuple[int, int, int, int] = (0, 0, 0, 0)

    @property
    def path(self) -> Path:
        return Path(self.location)


def _scan_jsonl(folder: Path, stats: ReadStats) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            found = []
            for entry in entries:
                if not entry.name.endswith(".jsonl"):
                    continue
                try:
                    if entry.is_file():
                        found.append(entry)
                except OSError as exc:  # a symlink loop or a dangling link
                    stats.unreadable.append((entry.path, exc.strerror or "cannot stat"))
            return found
    except FileNotFoundError:
        return []
    except OSError as exc:
        stats.unreadable.append((str(folder), exc.strerror or "cannot list"))
        return []


def _source(entry: os.DirEntry[str], kind: str, folder: str, stats: ReadStats) -> SessionSource | None:
    try:
        info = entry.stat()
    except OSError as exc:
        stats.unreadable.append((entry.path, exc.strerror or "cannot stat"))
        return None
    return SessionSource(
        entry.path,
        kind,
        folder,
        os.path.splitext(entry.name)[0],
        info.st_size,
        info.st_mtime,
        stat_key(info),
    )


def stat_key(info: os.stat_result) -> tuple[int, int, int, int]:
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def claude_sessions(
    paths: Paths, stats: ReadStats, since: datetime | None = None, folders: set[str] | None = None
) -> list[SessionSource]:
    """Transcripts under `<claude>/projects/<slug>/` (and its `sessions/`), newest window only.

    Subagent transcripts (`<slug>/<id>/subagents/agent-*.jsonl`, and the older top-level
    `agent-*.jsonl`) are never evidence, so they are not even listed.
    """
    cutoff = since.timestamp() if since is not None else None
    sources: list[SessionSource] = []
    try:
        with os.scandir(paths.projects_dir) as projects:
            project_entries = [p for p in projects if _is_dir(p)]
    except FileNotFoundError:
        return []
    except OSError as exc:
        stats.unreadable.append((str(paths.projects_dir), exc.strerror or "cannot list"))
        return []
    for project in sorted(project_entries, key=lambda p: p.name):
        if folders is not None and project.name not in folders:
            continue
        for folder in paths.session_folders(Path(project.path)):
            for entry in _scan_jsonl(folder, stats):
                if entry.name.startswith("agent-"):
                    continue
                source = _source(entry, CLAUDE, project.name, stats)
                # A file last written before the window holds no message inside it.
                if source and (cutoff is None or source.mtime >= cutoff):
                    sources.append(source)
    return sources


def openclaw_sources(
    workspace: Path, agents_dir: Path, stats: ReadStats, since: datetime | None = None
) -> list[SessionSource]:
    """Daily logs `memory/YYYY-MM-DD.md` of a workspace and `agents/*/sessions/*.jsonl`."""
    sources: list[SessionSource] = []
    cutoff = since.date() if since is not None else None
    try:
        with os.scandir(openclaw_logs_dir(workspace)) as entries:
            for entry in entries:
                day = daily_log_date(Path(entry.name))
                if day is None or (cutoff is not None and day < cutoff):
                    continue
                source = _source(entry, OPENCLAW_LOG, "openclaw", stats)
                if source:
                    sources.append(source)
    except FileNotFoundError:
        pass
    except OSError as exc:
        stats.unreadable.append((str(openclaw_logs_dir(workspace)), exc.strerror or "cannot list"))
    try:
        with os.scandir(agents_dir) as agents:
            agent_dirs = [openclaw_agent_sessions(Path(a.path)) for a in agents if _is_dir(a)]
    except OSError:
        agent_dirs = []
    mtime_cutoff = since.timestamp() if since is not None else None
    for folder in sorted(agent_dirs):
        for entry in _scan_jsonl(folder, stats):
            source = _source(entry, OPENCLAW_SESSION, "openclaw", stats)
            if source and (mtime_cutoff is None or source.mtime >= mtime_cutoff):
                sources.append(source)
    return sorted(sources, key=lambda s: s.location)


def project_root_folders(paths: Paths, project: Path) -> set[str]:
    """The `projects/<slug>` folders whose sessions ran in `project` or below it."""
    slug = project_slug(os.path.abspath(project))
    try:
        with os.scandir(paths.projects_dir) as entries:
            return {e.name for e in entries if e.name == slug or e.name.startswith(slug + "-")}
    except OSError:
        return set()


def native_memory_dirs(paths: Paths) -> list[Path]:
    """Every `<claude>/projects/<slug>/memory/` that exists, with or without recent sessions."""
    found = []
    try:
        with os.scandir(paths.projects_dir) as projects:
            for project in projects:
                memory = project_memory_dir(Path(project.path))
                if memory.is_dir():
                    found.append(memory)
    except OSError:
        return []
    return sorted(found)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False
