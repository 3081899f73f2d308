"""ORIENT/GATHER: find each memory dir's evidence in the window and collect its signals."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from dream import discover
from dream.config import Config
from dream.digest import Digest, DigestStats, drop_orphans, get_digests, window_start_text
from dream.errors import UsageError
from dream.paths import Paths, git_root, project_slug
from dream.signals import Signal
from dream.transcripts import ReadStats


@dataclass
class Target:
    """One memory dir to dream, with the evidence that belongs to it."""

    key: str
    memory_dir: Path
    memory_type: str
    digests: list[Digest] = field(default_factory=list)
    signals: list[Signal] = field(default_factory=list)
    cwd: str | None = None
    # The project's folder and its transcripts are gone (reported; archived only on request).
    missing: bool = False


@dataclass
class GatherResult:
    since: datetime
    targets: dict[str, Target]
    read: ReadStats
    digests: DigestStats
    sessions: int


def parse_since(value: str | None, default_days: int, now: datetime | None = None) -> datetime:
    """`--since DAYS|YYYY-MM-DD` as an aware UTC datetime (default: the configured window)."""
    now = now or datetime.now(timezone.utc)
    if value is None or value == "":
        return now - timedelta(days=default_days)
    text = value.strip()
    if text.isdigit():
        return now - timedelta(days=int(text))
    if text in ("yesterday", "today"):
        days = 1 if text == "yesterday" else 0
        start = (now - timedelta(days=days)).date()
        return datetime(start.year, start.month, start.day, tzinfo=timezone.utc)
    try:
        day = date.fromisoformat(text)
    except ValueError as exc:
        raise UsageError(f"--since takes a number of days or a date YYYY-MM-DD, not {value!r}") from exc
    return datetime(day.year, day.month, day.day, tzinfo=timezone.utc)


def openclaw_workspace(project: Path | None) -> Path:
    return project if project is not None else Path.home() / ".openclaw" / "workspace"


def _native_key(digest: Digest, roots: dict[str, Path | None]) -> str:
    # Claude Code keys memory by the canonical git root; the transcripts stay under the cwd's slug.
    if digest.cwd:
        if digest.cwd not in roots:  # one walk per distinct cwd, not per session
            roots[digest.cwd] = git_root(digest.cwd)
        root = roots[digest.cwd]
        if root is not None:
            return project_slug(root)
    return digest.folder


def gather(
    paths: Paths,
    config: Config,
    *,
    since: datetime,
    project: Path | None = None,
    write_cache: bool = True,
) -> GatherResult:
    read = ReadStats()
    dstats = DigestStats()
    targets: dict[str, Target] = {}
    memory_type = config.memory_type

    if memory_type == "openclaw":
        workspace = openclaw_workspace(project)
        sources = discover.openclaw_sources(workspace, workspace.parent / "agents", read, since)
        fixed_key = project_slug(os.path.abspath(workspace))
        targets[fixed_key] = Target(fixed_key, workspace, memory_type, cwd=str(workspace))
    elif memory_type == "project-root":
        root = (project or Path.cwd()).resolve()
        folders = discover.project_root_folders(paths, root)
        sources = discover.claude_sessions(paths, read, since, folders) if folders else []
        fixed_key = project_slug(str(root))
        targets[fixed_key] = Target(fixed_key, root, memory_type, cwd=str(root))
    else:
        sources = discover.claude_sessions(paths, read, since)
        fixed_key = None
        wanted = paths.memory_key_for_cwd(str(project.resolve())) if project is not None else None

    # Cache entries are kept for the longer of this window and the configured one.
    keep_since = min(since, datetime.now(timezone.utc) - timedelta(days=config.window_days))
    since_text = window_start_text(since)
    roots: dict[str, Path | None] = {}
    found = get_digests(paths, sources, read, dstats, write=write_cache, keep_since=keep_since)
    for _source, digest in found:
        if fixed_key is not None:
            key = fixed_key
            if (
                memory_type == "project-root"
                and digest.cwd
                and not _inside(digest.cwd, targets[key].memory_dir)
            ):
                continue
        else:
            key = _native_key(digest, roots)
            if wanted is not None and key != wanted:
                continue
            if key not in targets:
                targets[key] = Target(key, paths.native_memory_dir(key), memory_type, cwd=digest.cwd)
        target = targets[key]
        if digest.last_timestamp is None or digest.last_timestamp < since.isoformat():
            continue
        window_signals = [
            s if s.project == key else s._replace(project=key)
            for s in digest.signals
            if s.timestamp >= since_text
        ]
        target.digests.append(digest)
        target.signals.extend(window_signals)

    if write_cache:
        drop_orphans(paths, dstats, handled={s.folder for s in sources}, keep_since=keep_since)
    for target in targets.values():
        target.signals.sort(key=lambda s: (s.timestamp, s.uuid, s.text))
    sessions = sum(len(t.digests) for t in targets.values())
    return GatherResult(since, targets, read, dstats, sessions)


def _inside(path: str, root: Path) -> bool:
    try:
        Path(path).resolve().relative_to(root)
    except (ValueError, OSError):
        return False
    return True
