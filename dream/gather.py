"""GATHER SIGNAL: find each memory dir's evidence in the window (the layout says where) and
collect its signals from the digests."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from dream.config import Config
from dream.digest import OVER_CATEGORY_CAP, DigestStats, drop_orphans, get_digests, window_start_text
from dream.errors import UsageError
from dream.layouts import layout_for
from dream.paths import Paths
from dream.target import Target
from dream.transcripts import ReadStats


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
    layout = layout_for(config.memory_type)
    sources = layout.sources(paths, read, since, project)
    # One workspace or one repository is known before any session is read; native memory dirs
    # are found through their sessions.
    targets: dict[str, Target] = {t.key: t for t in layout.targets(paths, project)} if layout.fixed else {}

    # Cache entries are kept for the longer of this window and the configured one.
    keep_since = min(since, datetime.now(timezone.utc) - timedelta(days=config.window_days))
    since_text = window_start_text(since)
    roots: dict[str, Path | None] = {}
    found = get_digests(paths, sources, read, dstats, write=write_cache, keep_since=keep_since)
    for _source, digest in found:
        key = layout.key_for(digest, paths, project, roots)
        if key is None:
            continue
        if key not in targets:
            targets[key] = layout.target_for_key(paths, key, digest.cwd)
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
        target.over_category_cap += int(digest.skipped.get(OVER_CATEGORY_CAP, 0))
        target.candidates.extend(c for c in digest.candidates if c.timestamp >= since_text)

    if write_cache:
        drop_orphans(paths, dstats, handled={s.folder for s in sources}, keep_since=keep_since)
    for target in targets.values():
        target.signals.sort(key=lambda s: (s.timestamp, s.uuid, s.text))
        target.candidates.sort(key=lambda c: (c.timestamp, c.uuid))
    sessions = sum(len(t.digests) for t in targets.values())
    return GatherResult(since, targets, read, dstats, sessions)
