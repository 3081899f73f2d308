"""The library side of the trigger state that the Stop hook (`hooks/should-dream`) writes.

The hook cannot import this package (it starts with `python -S` and must cost almost nothing), so
both sides follow the same on-disk contract, kept here in one place for the package:

- sessions seen since a project's last dream: one empty file per distinct session id at
  `<claude>/dream/sessions-seen/<key>/<session_id>`, created with O_CREAT|O_EXCL;
- the pending flag `<claude>/.dream-pending`: `{"version": 1, "created": <epoch>, "projects":
  {"<key>": {"cwd": ..., "memory_dir": ..., "sessions": N}}}`, always replaced atomically, and
  read-modified-written only under an exclusive lock on `<claude>/dream/pending.lock`;
- `<memory dir>/.last-dream`: epoch seconds as text, written atomically after a successful run.

Standard library only. Nothing here prints.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from dream import defaults
from dream.fsio import atomic_write_bytes, fsync_dir, make_dirs, private_mode_for, read_regular
from dream.paths import Paths, last_dream_file

FLAG_VERSION = 1
# The hook gives up on the lock quickly; the library waits longer: a run that finished must not
# leave its projects in the flag because a hook was writing at that moment.
LOCK_TIMEOUT_SECONDS = defaults.LOCK_TIMEOUT_SECONDS
_SESSION_ID_MAX = 128
_SESSION_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


@dataclass(frozen=True)
class PendingProject:
    """One project named in the pending flag."""

    key: str
    cwd: str
    memory_dir: str
    sessions: int


def valid_session_id(session_id: str) -> bool:
    """Uuid-like: letters, digits, '-' and '_' only (so no '/', no '..'), at most 128 chars.

    The same rule as the hook's: a session id becomes a file name.
    """
    return (
        0 < len(session_id) <= _SESSION_ID_MAX
        and all(c in _SESSION_ID_CHARS for c in session_id)
        and any(c.isalnum() for c in session_id)
    )


def _valid_key(key: str) -> bool:
    # A project key is a slug (dream.paths.project_slug): '-' and ASCII letters and digits, so it
    # is a safe single path component; anything else in the flag is not ours and is ignored.
    return bool(key) and key not in (".", "..") and "/" not in key and "\\" not in key and "\0" not in key


# ---------------------------------------------------------------------------------------------
# The flag lock (writes go through the package's atomic writer, fsio.atomic_write_bytes)


@contextlib.contextmanager
def _pending_lock(paths: Paths, timeout: float = LOCK_TIMEOUT_SECONDS) -> Iterator[None]:
    """Exclusive lock shared with the hook (flock on `<claude>/dream/pending.lock`).

    Raises TimeoutError when it cannot be had within `timeout` seconds.
    """
    make_dirs(paths.state_dir, state_root=paths.claude_dir)
    mode = private_mode_for(paths.pending_lock, state_root=paths.claude_dir) or 0o644
    fd = os.open(paths.pending_lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), mode)
    try:
        _acquire(fd, timeout)
        try:
            yield
        finally:
            _release(fd)
    finally:
        os.close(fd)


if sys.platform == "win32":
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _release(fd: int) -> None:
        with contextlib.suppress(OSError):
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _release(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _acquire(fd: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not _try_lock(fd):
        if time.monotonic() >= deadline:
            raise TimeoutError("the dream pending flag is locked by another process")
        time.sleep(0.01)


# ---------------------------------------------------------------------------------------------
# The pending flag


def _read_flag(path: Path) -> dict[str, object] | None:
    """The flag's JSON object, or None when it is missing, unreadable or not a flag."""
    try:
        raw = read_regular(path)[0]
    except OSError:
        return None
    try:
        obj = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("projects"), dict):
        return None
    return obj


def _project(key: str, value: object) -> PendingProject | None:
    if not _valid_key(key) or not isinstance(value, dict):
        return None
    cwd = value.get("cwd")
    memory_dir = value.get("memory_dir")
    sessions = value.get("sessions")
    return PendingProject(
        key=key,
        cwd=cwd if isinstance(cwd, str) else "",
        memory_dir=memory_dir if isinstance(memory_dir, str) else "",
        sessions=sessions if isinstance(sessions, int) and not isinstance(sessions, bool) else 0,
    )


def read_pending(paths: Paths) -> dict[str, PendingProject]:
    """The projects named in the pending flag, by key; {} when there is no (valid) flag."""
    obj = _read_flag(paths.pending_flag)
    if obj is None:
        return {}
    projects = obj["projects"]
    assert isinstance(projects, dict)
    found: dict[str, PendingProject] = {}
    for key, value in projects.items():
        project = _project(str(key), value)
        if project is not None:
            found[project.key] = project
    return found


def clear_pending(paths: Paths, keys: Iterable[str]) -> None:
    """Remove these projects from the pending flag, atomically; delete the flag when none remain.

    Keys that are not in the flag are ignored; a missing flag is left missing. A project a hook
    adds meanwhile is kept (the read-modify-write happens under the hook's lock).
    """
    drop = set(keys)
    if not drop:
        return
    flag = paths.pending_flag
    if not flag.exists():
        return
    with _pending_lock(paths):
        obj = _read_flag(flag)
        if obj is None:
            # Not a flag we can read (torn by hand, or not JSON): it names nothing we could keep.
            with contextlib.suppress(FileNotFoundError):
                flag.unlink()
            return
        projects = obj["projects"]
        assert isinstance(projects, dict)
        remaining = {k: v for k, v in projects.items() if k not in drop}
        if len(remaining) == len(projects):
            return
        if not remaining:
            with contextlib.suppress(FileNotFoundError):
                flag.unlink()
            with contextlib.suppress(OSError):
                fsync_dir(flag.parent)
            return
        obj["projects"] = remaining
        atomic_write_bytes(flag, (json.dumps(obj, ensure_ascii=False, indent=2) + "\n").encode("utf-8"))


# ---------------------------------------------------------------------------------------------
# Sessions seen since the last dream


def _seen_dir(paths: Paths, key: str) -> Path:
    if not _valid_key(key):
        raise ValueError(f"not a project key: {key!r}")
    return paths.seen_dir(key)


def sessions_seen(paths: Paths, key: str) -> list[str]:
    """The distinct session ids the hook recorded for a project since its last dream, sorted."""
    try:
        names = os.listdir(_seen_dir(paths, key))
    except OSError:
        return []
    return sorted(n for n in names if valid_session_id(n))


def clear_sessions_seen(paths: Paths, key: str, session_ids: Iterable[str]) -> None:
    """Forget exactly these sessions (the ones a run consolidated); sessions recorded during the run
    stay counted for the next dream. Ids that are not valid file names are ignored."""
    folder = _seen_dir(paths, key)
    for session_id in session_ids:
        if not valid_session_id(session_id):
            continue
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            os.unlink(folder / session_id)


# ---------------------------------------------------------------------------------------------
# `.last-dream`


def read_last_dream(memory_dir: Path) -> float | None:
    """Epoch seconds of the last successful dream of this memory dir, or None: never (or unreadable)."""
    try:
        text = read_regular(last_dream_file(memory_dir))[0].decode("utf-8", "replace")
    except OSError:
        return None
    try:
        value = float(text.strip())
    except ValueError:
        return None
    if value != value or value in (float("inf"), float("-inf")):  # NaN or infinite
        return None
    return value


def write_last_dream(memory_dir: Path, when: float | None = None) -> None:
    """Record a successful dream at `when` (default now), atomically; creates the memory dir."""
    stamp = time.time() if when is None else when
    make_dirs(memory_dir)
    atomic_write_bytes(last_dream_file(memory_dir), f"{stamp:.3f}\n".encode("ascii"))
