"""Per-session digests: the signals of one session, cached while its file is unchanged.

A heavy user has thousands of sessions; a dream must cost what the new ones cost. A digest is
keyed by the session file's size, mtime and the identity of its last event, and by the digest
format (which includes the model version), so a changed file or a new model rebuilds it. The
cache holds only redacted text.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from dream import defaults
from dream.discover import CLAUDE, OPENCLAW_LOG, SessionSource
from dream.model import MODEL_VERSION, load_model
from dream.paths import Paths
from dream.signals import Signal, extract_signals
from dream.transcripts import (
    ReadStats,
    UserMessage,
    file_signature,
    read_claude_transcript,
    read_daily_log,
    read_openclaw_session,
)

DIGEST_FORMAT = 2
_TERM = re.compile(r"[a-z][a-z0-9+#.-]{2,29}")
MAX_TERMS = 4000


@dataclass
class Digest:
    session_id: str
    path: str
    folder: str
    signature: list[Any]
    cwd: str | None
    first_timestamp: str | None
    last_timestamp: str | None
    message_count: int
    signals: list[Signal]
    # Words the person used in this session (redacted first): what prune counts as a reference.
    terms: list[str]
    skipped: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": _format_id(),
            "session_id": self.session_id,
            "path": self.path,
            "folder": self.folder,
            "signature": self.signature,
            "cwd": self.cwd,
            "first_timestamp": self.first_timestamp,
            "last_timestamp": self.last_timestamp,
            "message_count": self.message_count,
            "signals": [s.to_json() for s in self.signals],
            "terms": self.terms,
            "skipped": self.skipped,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Digest:
        return cls(
            session_id=data["session_id"],
            path=data["path"],
            folder=data["folder"],
            signature=list(data["signature"]),
            cwd=data.get("cwd"),
            first_timestamp=data.get("first_timestamp"),
            last_timestamp=data.get("last_timestamp"),
            message_count=int(data.get("message_count", 0)),
            signals=[Signal.from_json(s) for s in data.get("signals", [])],
            terms=list(data.get("terms", [])),
            skipped=dict(data.get("skipped", {})),
        )


def _format_id() -> str:
    return f"{DIGEST_FORMAT}/{MODEL_VERSION}"


def digest_path(paths: Paths, source: SessionSource) -> Path:
    return paths.digests_dir / source.folder / f"{source.kind}-{source.session_id}.json"


def _cap_per_category(signals: list[Signal]) -> list[Signal]:
    """At most DIGEST_MAX_PER_CATEGORY per category: the most confident, newest on ties."""
    kept: list[Signal] = []
    for category in defaults.CATEGORIES:
        group = [s for s in signals if s.category == category]
        group.sort(key=lambda s: (s.confidence, s.timestamp), reverse=True)
        kept.extend(group[: defaults.DIGEST_MAX_PER_CATEGORY])
    kept.sort(key=lambda s: (s.timestamp, s.uuid))
    return kept


def _messages(source: SessionSource, stats: ReadStats) -> list[UserMessage]:
    if source.kind == CLAUDE:
        return list(read_claude_transcript(source.path, stats))
    if source.kind == OPENCLAW_LOG:
        return list(read_daily_log(source.path, stats))
    return list(read_openclaw_session(source.path, stats))


def build_digest(source: SessionSource, project: str, stats: ReadStats) -> Digest | None:
    signature = file_signature(source.path)
    if signature is None:
        try:
            source.path.open("rb").close()
            reason = "vanished or unreadable"
        except OSError as exc:
            reason = exc.strerror or exc.__class__.__name__
        stats.unreadable.append((str(source.path), reason))
        return None
    local = ReadStats()
    messages = _messages(source, local)
    stats.add(local)
    signals: list[Signal] = []
    terms: set[str] = set()
    from dream.redact import redact

    for message in messages:
        redacted = redact(message.text).text
        signals.extend(extract_signals(message, project, redacted))
        if len(terms) < MAX_TERMS:
            terms.update(_TERM.findall(redacted.lower()))
    cwd = next((m.cwd for m in messages if m.cwd), None)
    stamps = sorted(m.timestamp for m in messages)
    return Digest(
        session_id=messages[0].session_id if messages else source.session_id,
        path=str(source.path),
        folder=source.folder,
        signature=list(signature),
        cwd=cwd,
        first_timestamp=stamps[0].isoformat() if stamps else None,
        last_timestamp=stamps[-1].isoformat() if stamps else None,
        message_count=len(messages),
        signals=_cap_per_category(signals),
        terms=sorted(terms)[:MAX_TERMS],
        skipped={
            "malformed": local.malformed_lines,
            "oversized": local.oversized_lines,
            "invalid_utf8": local.invalid_utf8_lines,
            "truncated": local.truncated_last_lines,
            "tool_injections": local.tool_injections,
        },
    )


@dataclass
class DigestStats:
    built: int = 0
    reused: int = 0
    dropped: int = 0
    cache_errors: list[str] = field(default_factory=list)


def load_cached(paths: Paths, source: SessionSource) -> Digest | None:
    """The cached digest when it still describes this exact file; None otherwise."""
    cache = digest_path(paths, source)
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != _format_id():
        return None
    # Cheap checks first (stat), then the tail hash that catches a same-size rewrite.
    if data.get("signature", [None, None])[:2] != [source.size, int(source.mtime * 1e9)]:
        try:
            info = os.stat(source.path)
        except OSError:
            return None
        if data["signature"][:2] != [info.st_size, info.st_mtime_ns]:
            return None
    signature = file_signature(source.path)
    if signature is None or list(signature) != data["signature"]:
        return None
    try:
        return Digest.from_json(data)
    except (KeyError, TypeError, ValueError):
        return None


def get_digest(
    paths: Paths, source: SessionSource, project: str, stats: ReadStats, dstats: DigestStats, *, write: bool
) -> Digest | None:
    """The digest of one session (see `get_digests`)."""
    found = get_digests(paths, [source], stats, dstats, write=write)
    return found[0][1] if found else None


# Below this many sessions to parse, starting worker processes costs more than it saves.
PARALLEL_MIN_SESSIONS = 12


def _build_chunk(chunk: list[SessionSource]) -> list[tuple[Digest | None, ReadStats]]:
    results = []
    for source in chunk:
        stats = ReadStats()
        results.append((build_digest(source, source.folder, stats), stats))
    return results


def get_digests(
    paths: Paths, sources: list[SessionSource], stats: ReadStats, dstats: DigestStats, *, write: bool
) -> list[tuple[SessionSource, Digest]]:
    """Digests of all sources: cached ones reused, the rest parsed, on every core when many."""
    found: list[tuple[SessionSource, Digest | None]] = []
    to_build: list[SessionSource] = []
    for source in sources:
        cached = load_cached(paths, source)
        if cached is not None:
            dstats.reused += 1
            found.append((source, cached))
        else:
            to_build.append(source)
    built: list[tuple[Digest | None, ReadStats]] = []
    workers = min(os.cpu_count() or 1, 4)
    if len(to_build) >= PARALLEL_MIN_SESSIONS and workers > 1 and _can_fork():
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        load_model()  # loaded once here, inherited by the forked workers
        size = max(1, min(32, len(to_build) // (workers * 4)))
        chunks = [to_build[i : i + size] for i in range(0, len(to_build), size)]
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            for part in pool.map(_build_chunk, chunks):
                built.extend(part)
    else:
        built = _build_chunk(to_build)
    for source, (digest, local) in zip(to_build, built, strict=True):
        stats.add(local)
        if digest is None:
            continue
        dstats.built += 1
        if write:
            _store(paths, source, digest, dstats)
        found.append((source, digest))
    order = {id(source): i for i, source in enumerate(sources)}
    found.sort(key=lambda item: order[id(item[0])])
    return [(source, digest) for source, digest in found if digest is not None]


def _can_fork() -> bool:
    # fork is cheap and shares the loaded model; where it is not available, stay in one process.
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods() and os.environ.get("DREAM_WORKERS") != "1"


def _store(paths: Paths, source: SessionSource, digest: Digest, dstats: DigestStats) -> None:
    # Replaced atomically but not fsynced: a cache lost in a crash is rebuilt, and fsync per
    # session would cost more than parsing the session again.
    target = digest_path(paths, source)
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temp.write_text(
            json.dumps(digest.to_json(), ensure_ascii=False, separators=(",", ":")), encoding="utf-8"
        )
        os.replace(temp, target)
    except OSError as exc:  # a cache that cannot be written only costs speed next time
        dstats.cache_errors.append(f"{target}: {exc.strerror or exc}")
        with contextlib.suppress(OSError):
            temp.unlink()


def _listing(folder: Path) -> set[str]:
    try:
        return set(os.listdir(folder))
    except OSError:
        return set()


def _session_exists(name: str, cache: Path, transcripts: set[str]) -> bool:
    """Whether the session a digest describes still exists, by its name where that suffices."""
    prefix = f"{CLAUDE}-"
    if name.startswith(prefix) and name.endswith(".json"):
        return name[len(prefix) : -len(".json")] + ".jsonl" in transcripts
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
        return os.path.exists(data["path"])
    except (OSError, ValueError, KeyError, TypeError):
        return False


def drop_orphans(paths: Paths, dstats: DigestStats) -> None:
    """Remove digests of sessions whose file was deleted, in every folder of the cache."""
    try:
        folders = os.listdir(paths.digests_dir)
    except OSError:
        return
    for folder in folders:
        directory = paths.digests_dir / folder
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        base = paths.projects_dir / folder
        # One listing per folder instead of a stat per digest: warm runs stay cheap.
        transcripts = _listing(base) | _listing(base / "sessions")
        for name in names:
            cache = directory / name
            if name.startswith(".") or _session_exists(name, cache, transcripts):
                continue
            with contextlib.suppress(OSError):
                cache.unlink()
                dstats.dropped += 1


def in_window(signal: Signal, since: datetime | None) -> bool:
    if since is None:
        return True
    return signal.timestamp >= since.isoformat().replace("+00:00", "Z")
