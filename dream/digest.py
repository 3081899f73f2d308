"""Per-session digests: the signals of one session, cached while its file is unchanged.

A heavy user has thousands of sessions; a dream must cost what the new ones cost. The cache is
one pack per evidence folder (`<claude>/dream/digests/<folder>.json`), so a run with nothing new
reads fifty files, not thousands. A session's entry is keyed by its file's stat (size, mtime_ns,
ctime_ns, inode: git's test for an unchanged file; a rewrite that restores the mtime still moves
the ctime), and a pack by the digest format, which includes the model version and a hash of the
safety rules' sources, so a changed file, a new model or new redaction rules rebuild it. A pack
rewritten drops the entries of deleted sessions and of those older than the window, so it stays
the size of the window, not of the history.

The cache keeps only what can become memory: the signals (redacted sentences and their scores)
and the agent pass's candidates (the messages that yielded them, or came near; redacted and
neutralised, DESIGN.md §9). The words of the other messages are kept as short hashes of their
terms, enough for prune to ask "was this entry mentioned?" and useless to anyone reading the
file: a secret the redactor missed is not stored for every message read.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from dream import defaults, regex_cache, rules_version
from dream.candidates import Candidate, make_candidate
from dream.discover import CLAUDE, OPENCLAW_LOG, SessionSource, stat_key
from dream.model import MODEL_VERSION, load_model
from dream.paths import Paths
from dream.signals import Signal, read_message
from dream.transcripts import (
    Excluded,
    ReadStats,
    UserMessage,
    read_claude_transcript,
    read_daily_log,
    read_openclaw_session,
)

# Raised whenever what a digest holds changes, the signals a message yields among it: a cached
# digest of another format is read again.
DIGEST_FORMAT = 8
_TERM = regex_cache.compile(r"[a-z][a-z0-9+#.-]{2,29}")
MAX_TERMS = 4000


def term_hash(term: str) -> str:
    """The stored form of one content term (see `statement.content_terms`): 32 bits, hex."""
    return f"{zlib.crc32(term.encode('utf-8', 'surrogatepass')):08x}"


def term_hashes(terms: Iterable[str]) -> frozenset[str]:
    return frozenset(term_hash(t) for t in terms)


@dataclass
class Digest:
    session_id: str
    path: str
    folder: str
    # The source's stat key when it was read (see discover.stat_key).
    signature: list[int]
    cwd: str | None
    first_timestamp: str | None
    last_timestamp: str | None
    message_count: int
    signals: list[Signal]
    # Hashes of the content terms the person used in this session (space-separated, see
    # `term_hash`): what prune counts as a reference. One string: only prune splits it.
    terms: str
    skipped: dict[str, int] = field(default_factory=dict)
    candidates: list[Candidate] = field(default_factory=list)

    def to_row(self) -> dict[str, Any]:
        """The pack entry: the path and folder are the pack's keys, terms one string."""
        return {
            "session_id": self.session_id,
            "signature": self.signature,
            "cwd": self.cwd,
            "first_timestamp": self.first_timestamp,
            "last_timestamp": self.last_timestamp,
            "message_count": self.message_count,
            "signals": [s.to_row() for s in self.signals],
            "candidates": [c.to_row() for c in self.candidates],
            "terms": self.terms,
            "skipped": self.skipped,
        }

    @classmethod
    def from_row(cls, path: str, folder: str, row: dict[str, Any]) -> Digest:
        """A pack entry as a Digest; the caller has checked its signature against the file's stat."""
        return cls(
            session_id=str(row["session_id"]),
            path=path,
            folder=folder,
            signature=row["signature"],
            cwd=row.get("cwd"),
            first_timestamp=row.get("first_timestamp"),
            last_timestamp=row.get("last_timestamp"),
            message_count=int(row.get("message_count", 0)),
            signals=[Signal.from_row(folder, s) for s in row.get("signals", [])],
            candidates=[Candidate.from_row(c) for c in row.get("candidates", [])],
            terms=str(row.get("terms", "")),
            skipped=dict(row.get("skipped") or {}),
        )


# The safety rules a digest's texts were redacted and neutralised under: a digest made under other
# rules (dream upgraded, a rule added) is made again, so a secret that a newer rule finds does not
# stay in the cache, nor control text a newer check holds (DESIGN.md §6).
_SAFETY_SOURCES = rules_version.SAFETY


def _format_id() -> str:
    return f"{DIGEST_FORMAT}/{MODEL_VERSION}/{rules_version.sources_id(_SAFETY_SOURCES)}"


def pack_path(paths: Paths, folder: str) -> Path:
    """The cache file of one evidence folder (`projects/<slug>`, or a layout's own name)."""
    return paths.digest_pack(folder)


OVER_CATEGORY_CAP = "over_category_cap"


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
    """The digest of one session file; None when it cannot be opened (named in `stats`)."""
    signature = source.stat_key
    if signature == (0, 0, 0, 0):  # a source made by hand, not by discover
        try:
            signature = stat_key(os.stat(source.path))
        except OSError as exc:
            stats.unreadable.append((source.location, exc.strerror or exc.__class__.__name__))
            return None
    local = ReadStats()
    messages = _messages(source, local)
    stats.add(local)
    if local.files == 0:
        return None  # never opened: `_messages` named it in `unreadable`
    signals: list[Signal] = []
    words: set[str] = set()
    from dream.statement import content_terms

    candidates: list[Candidate] = []
    for message in messages:
        redacted = message.text  # the reader redacts (transcripts.person_text)
        found, probability = read_message(message, project, redacted)
        signals.extend(found)
        if found or probability >= defaults.CANDIDATE_MIN_PROBABILITY:
            stamp = message.timestamp.isoformat().replace("+00:00", "Z")
            candidates.append(
                make_candidate(
                    message.session_id, message.uuid, stamp, redacted, message.agent_before, probability
                )
            )
        if len(words) < MAX_TERMS:
            words.update(_TERM.findall(redacted.lower()))
    hashes = sorted(term_hashes(content_terms(" ".join(sorted(words)[:MAX_TERMS]))))
    cwd = next((m.cwd for m in messages if m.cwd), None)
    stamps = sorted(m.timestamp for m in messages)
    return Digest(
        session_id=messages[0].session_id if messages else source.session_id,
        path=source.location,
        folder=source.folder,
        signature=list(signature),
        cwd=cwd,
        first_timestamp=stamps[0].isoformat() if stamps else None,
        last_timestamp=stamps[-1].isoformat() if stamps else None,
        message_count=len(messages),
        signals=(kept := _cap_per_category(signals)),
        candidates=candidates,
        terms=" ".join(hashes),
        skipped={
            "malformed": local.malformed_lines,
            "oversized": local.oversized_lines,
            "invalid_utf8": local.invalid_utf8_lines,
            "truncated": local.truncated_last_lines,
            "tool_injections": local.tool_injections,
            # Statements past DIGEST_MAX_PER_CATEGORY of one category in this session: counted,
            # so the report can say they were left out (the most confident are kept).
            OVER_CATEGORY_CAP: len(signals) - len(kept),
            **{kind.key: count for kind, count in local.excluded.items()},
        },
    )


@dataclass
class DigestStats:
    built: int = 0
    reused: int = 0
    dropped: int = 0
    cache_errors: list[str] = field(default_factory=list)


@dataclass
class _Pack:
    """One folder's cache file, as read: its entries by source path."""

    path: Path
    rows: dict[str, dict[str, Any]]
    # The file existed and could be used; a corrupt or outdated one is replaced.
    valid: bool
    # The Claude dir: a pack is as private as it is (see `fsio.private_mode_for`).
    root: Path | None = None


def _load_pack(paths: Paths, folder: str) -> _Pack:
    from dream.fsio import regular_file_stat

    path = pack_path(paths, folder)
    root = paths.claude_dir
    try:
        regular_file_stat(path)  # a FIFO in its place is never opened
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        return _Pack(path, {}, valid=True, root=root)
    except (OSError, ValueError):
        return _Pack(path, {}, valid=False, root=root)
    if not isinstance(data, dict) or data.get("format") != _format_id():
        return _Pack(path, {}, valid=False, root=root)
    rows = data.get("sessions")
    if not isinstance(rows, dict):
        return _Pack(path, {}, valid=False, root=root)
    return _Pack(path, rows, valid=True, root=root)


def _cached(pack: _Pack, source: SessionSource) -> Digest | None:
    """The cached digest when it still describes this exact file; None otherwise."""
    row = pack.rows.get(source.location)
    if not isinstance(row, dict) or row.get("signature") != list(source.stat_key):
        return None
    try:
        return Digest.from_row(source.location, source.folder, row)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def get_digest(
    paths: Paths, source: SessionSource, project: str, stats: ReadStats, dstats: DigestStats, *, write: bool
) -> Digest | None:
    """The digest of one session (see `get_digests`)."""
    found = get_digests(paths, [source], stats, dstats, write=write)
    return found[0][1] if found else None


# Below this many sessions to parse, starting worker processes costs more than it saves.
PARALLEL_MIN_SESSIONS = 12


# Without DREAM_WORKERS, at most this many worker processes.
DEFAULT_MAX_WORKERS = 4
# How often a worker without PR_SET_PDEATHSIG looks whether its parent is still there.
PARENT_CHECK_SECONDS = 0.25
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>

# In a worker: the PID of the dream process that started it (0 in the dream process itself).
_parent_pid = 0


def worker_count() -> int:
    """Worker processes for a parallel gather: `DREAM_WORKERS` when it is a positive integer, at most
    one per CPU (1: everything in this process); else one per CPU, at most DEFAULT_MAX_WORKERS."""
    cpus = os.cpu_count() or 1
    raw = os.environ.get("DREAM_WORKERS", "").strip()
    if raw.isdigit() and int(raw) > 0:
        return min(int(raw), cpus)
    return min(cpus, DEFAULT_MAX_WORKERS)


def _die_with_parent() -> bool:
    """Linux: the kernel sends this process SIGKILL when its parent dies (prctl PR_SET_PDEATHSIG).
    False where that is not available."""
    import ctypes
    import signal

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError, TypeError):
        return False
    try:
        return int(prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, ctypes.ArgumentError):
        return False


def _exit_if_orphaned() -> None:
    """In a worker: the dream process that started it is gone (SIGKILL, a crash): stop now. A
    worker whose parent died is re-parented, so its parent PID changes."""
    if _parent_pid and os.getppid() != _parent_pid:
        os._exit(1)


def _watch_parent() -> None:
    while True:
        time.sleep(PARENT_CHECK_SECONDS)
        _exit_if_orphaned()


def _init_worker(parent: int) -> None:
    """Each worker dies with the dream process: a killed run leaves no process behind (DESIGN.md §6).

    On Linux the kernel kills it (PR_SET_PDEATHSIG); elsewhere a thread in it checks the parent
    PID; and it is checked between tasks too. A parent that died before this ran is caught by the
    first check."""
    global _parent_pid
    _parent_pid = parent
    if not _die_with_parent():
        import threading

        threading.Thread(target=_watch_parent, name="dream-parent-watch", daemon=True).start()
    _exit_if_orphaned()


def _build_chunk(chunk: list[SessionSource]) -> list[tuple[Digest | None, ReadStats]]:
    results = []
    for source in chunk:
        _exit_if_orphaned()
        stats = ReadStats()
        results.append((build_digest(source, source.folder, stats), stats))
    return results


def _build_chunk_in_worker(
    chunk: list[SessionSource],
) -> tuple[list[tuple[Digest | None, ReadStats]], dict[bytes, regex_cache.Entry]]:
    """A chunk's digests, and the patterns the worker compiled for them: they would die with it,
    and the process that started it keeps them (one write of the cache, by one process)."""
    return _build_chunk(chunk), regex_cache.take_new()


def _build_all(to_build: list[SessionSource]) -> list[tuple[Digest | None, ReadStats]]:
    workers = worker_count()
    if len(to_build) < PARALLEL_MIN_SESSIONS or workers < 2 or not _can_fork():
        return _build_chunk(to_build)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # Loaded once here, inherited by the forked workers: the model and the compiled patterns.
    load_model()
    import dream.control_text
    import dream.features
    import dream.redact
    import dream.sentences  # noqa: F401

    regex_cache.take_new()  # the workers inherit these; what each hands back is its own

    # Biggest files first, in small chunks: no worker is left with a long tail at the end.
    order = sorted(range(len(to_build)), key=lambda i: -to_build[i].size)
    size = max(1, min(8, len(order) // (workers * 16)))
    chunks = [[to_build[i] for i in order[at : at + size]] for at in range(0, len(order), size)]
    by_index: dict[int, tuple[Digest | None, ReadStats]] = {}
    with ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_init_worker,
        initargs=(os.getpid(),),
    ) as pool:
        parts = pool.map(_build_chunk_in_worker, chunks)
        for at, (part, compiled) in zip(range(0, len(order), size), parts, strict=True):
            regex_cache.adopt(compiled)
            for offset, result in enumerate(part):
                by_index[order[at + offset]] = result
    return [by_index[i] for i in range(len(to_build))]


def get_digests(
    paths: Paths,
    sources: list[SessionSource],
    stats: ReadStats,
    dstats: DigestStats,
    *,
    write: bool,
    keep_since: datetime | None = None,
) -> list[tuple[SessionSource, Digest]]:
    """Digests of all sources: cached ones reused, the rest parsed, on every core when many.

    With `write`, each folder's pack that changed is rewritten; it keeps the entries of this
    run's sources and of other sessions that still exist and were written since `keep_since`.
    """
    packs: dict[str, _Pack] = {}
    found: list[tuple[SessionSource, Digest | None]] = []
    to_build: list[SessionSource] = []
    for source in sources:
        if source.folder not in packs:
            packs[source.folder] = _load_pack(paths, source.folder)
        cached = _cached(packs[source.folder], source)
        if cached is not None:
            dstats.reused += 1
            found.append((source, cached))
            _count_excluded(stats, cached.skipped)
        else:
            to_build.append(source)
    built = _build_all(to_build)
    fresh: dict[str, dict[str, dict[str, Any]]] = {}
    for source, (digest, local) in zip(to_build, built, strict=True):
        stats.add(local)
        if digest is None:
            continue
        dstats.built += 1
        fresh.setdefault(source.folder, {})[source.location] = digest.to_row()
        found.append((source, digest))
    if write:
        seen = {source.location for source in sources}
        for folder, pack in packs.items():
            _rewrite_pack(pack, fresh.get(folder, {}), seen, keep_since, dstats)
    order = {id(source): i for i, source in enumerate(sources)}
    found.sort(key=lambda item: order[id(item[0])])
    return [(source, digest) for source, digest in found if digest is not None]


def _count_excluded(stats: ReadStats, skipped: dict[str, int]) -> None:
    """A cached session's non-person entries still count in this run's report."""
    for kind in Excluded:
        count = skipped.get(kind.key)
        if count:
            stats.excluded[kind] += count


def _rewrite_pack(
    pack: _Pack,
    fresh: dict[str, dict[str, Any]],
    seen: set[str],
    keep_since: datetime | None,
    dstats: DigestStats,
) -> None:
    """Write a folder's pack when something in it changed: new digests, or entries to drop."""
    cutoff_ns = int(keep_since.timestamp() * 1e9) if keep_since is not None else None
    rows = dict(pack.rows)
    dropped = 0
    for key, row in pack.rows.items():
        if key in seen or key in fresh:
            continue
        # A session this run did not look at: kept while it exists and is young enough that
        # a run with a wider window would need it.
        signature = row.get("signature") if isinstance(row, dict) else None
        young = cutoff_ns is None or (
            isinstance(signature, list) and len(signature) > 1 and signature[1] >= cutoff_ns
        )
        if not young or not os.path.exists(key):
            del rows[key]
            dropped += 1
    dstats.dropped += dropped
    if not fresh and not dropped and pack.valid:
        return
    rows.update(fresh)
    if not rows:
        with contextlib.suppress(FileNotFoundError):
            pack.path.unlink()
        return
    _store(pack.path, {"format": _format_id(), "sessions": rows}, dstats, pack.root)


def _can_fork() -> bool:
    # fork is cheap and shares the loaded model; where it is not available, stay in one process.
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _store(target: Path, data: dict[str, Any], dstats: DigestStats, root: Path | None) -> None:
    # Replaced atomically but not fsynced: a cache lost in a crash is rebuilt, and an fsync
    # would cost more than parsing the sessions again. In a private home it is private.
    from dream.errors import DreamError
    from dream.fsio import atomic_write_bytes, make_dirs, private_mode_for

    try:
        make_dirs(target.parent, state_root=root)
        mode = private_mode_for(target, state_root=root) if root is not None else None
        # ASCII with \u escapes: a lone surrogate (a cwd from a JSON escape) round-trips too.
        atomic_write_bytes(
            target, json.dumps(data, separators=(",", ":")).encode("ascii"), mode=mode, durable=False
        )
    except OSError as exc:  # a cache that cannot be written only costs speed
        dstats.cache_errors.append(f"{target}: {exc.strerror or exc}")
    except DreamError as exc:
        dstats.cache_errors.append(str(exc))


def drop_orphans(
    paths: Paths, dstats: DigestStats, *, handled: Iterable[str] = (), keep_since: datetime | None = None
) -> None:
    """Trim the packs this run did not load (`handled` are those `get_digests` kept up to date).

    A pack whose folder is gone is removed; any other loses the entries of deleted sessions and
    of those older than `keep_since`. Caches of the older per-session format are removed.
    """
    done = set(handled)
    try:
        entries = list(os.scandir(paths.digests_dir))
    except OSError:
        return
    from dream.fsio import is_temp_name

    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            import shutil

            # Per-session files of digest format 2: superseded by the packs.
            shutil.rmtree(entry.path, ignore_errors=True)
            continue
        if entry.name.startswith(".") and (entry.name.endswith(".tmp") or is_temp_name(entry.name)):
            _drop_stale_temp(entry)
            continue
        if not entry.name.endswith(".json") or entry.name.startswith("."):
            continue
        folder = entry.name[: -len(".json")]
        if folder in done:
            continue
        if not (paths.projects_dir / folder).is_dir():
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                dstats.dropped += 1
            continue
        _rewrite_pack(_load_pack(paths, folder), {}, set(), keep_since, dstats)


def _drop_stale_temp(entry: os.DirEntry[str]) -> None:
    # Left by a run killed while writing a pack; one younger than an hour may be another run's.
    with contextlib.suppress(OSError):
        if time.time() - entry.stat(follow_symlinks=False).st_mtime > defaults.LEFTOVER_MAX_AGE_SECONDS:
            os.unlink(entry.path)


def window_start_text(since: datetime) -> str:
    """The window's start as signal timestamps are written: compared as text, they sort by time."""
    return since.isoformat().replace("+00:00", "Z")
