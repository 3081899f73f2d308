"""Every byte dream writes goes through here (DESIGN.md §6): atomic writes, the per-memory-dir lock,
Claude Code's own `.consolidate-lock`, the first-run backup and per-run snapshots for `restore`.

The memory files are the person's, so the rule is: a killed or failing run leaves each file either
exactly as it was or exactly as intended, never torn, and never loses one. Also decided here, in
one place: what dream creates is as private as the memory it serves (`private_mode_for`,
`make_dirs`); a file its owner made read-only is never rewritten; a FIFO, socket or device is
never opened (`read_regular`); backups and snapshots keep no secret the redactor finds.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import secrets
import shutil
import stat
import sys
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import TYPE_CHECKING

from dream import defaults
from dream.errors import BusyError, DreamError
from dream.paths import MemoryPaths, memory_paths, snapshot_files_dir, temp_file

if TYPE_CHECKING:
    from filelock import BaseFileLock

# Every temp file and folder dream creates starts with this, so a run killed at any moment leaves
# only names that backups skip and a person can recognise.
TEMP_PREFIX = ".dream-tmp-"
SNAPSHOTS_KEPT = 20
MANIFEST_NAME = "manifest.json"
MANIFEST_VERSION = 1
# A snapshot folder without a manifest is a run still taking it, or one that was killed; only
# after this long is it surely the latter and safe to delete (runs on other memory dirs share the root).
INCOMPLETE_SNAPSHOT_MAX_AGE_SECONDS = float(defaults.LEFTOVER_MAX_AGE_SECONDS)
NEW_FILE_MODE = 0o644
# In a private home (DESIGN.md §6) what dream creates is as private as the memory it serves.
PRIVATE_FILE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700
# The owner's bits a new file always gets; of the group's and others' only read and write are copied.
_OWNER_RW = stat.S_IRUSR | stat.S_IWUSR
_SHARED_RW = stat.S_IRGRP | stat.S_IWGRP | stat.S_IROTH | stat.S_IWOTH
# How many memory files `private_mode_for` looks at: a memory dir's are all alike.
_MODE_SAMPLE = 64
NOT_REGULAR = "not a regular file"
_CHUNK = 1 << 20
# O_BINARY: without it Windows would turn "\n" into "\r\n" on the way to disk.
_CREATE_FLAGS = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)

_ERRNO_WORDS: dict[int, str] = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EACCES: "permission denied",
    errno.EPERM: "the operation is not permitted",
    errno.EROFS: "the file system is read-only",
    errno.ENOENT: "the folder does not exist",
    errno.ENOTDIR: "a part of the path is not a folder",
    errno.EISDIR: "it is a folder",
    errno.EIO: "an input/output error (the disk may be failing)",
    errno.ENAMETOOLONG: "the file name is too long",
    errno.EMFILE: "too many files are open",
    errno.ENFILE: "too many files are open on this system",
    errno.EFBIG: "the file is too large",
    errno.ELOOP: "too many symbolic links",
    errno.EBUSY: "the file is busy",
    errno.EXDEV: "it is on a different file system",
}


def describe_os_error(exc: OSError) -> str:
    """A person's words for an OSError, with the errno name for searching: "the disk is full (ENOSPC)"."""
    code = exc.errno
    if code is None:
        return str(exc) or type(exc).__name__
    words = _ERRNO_WORDS.get(code) or exc.strerror or os.strerror(code)
    name = errno.errorcode.get(code)
    return f"{words} ({name})" if name else words


def _write_error(path: Path, exc: OSError, untouched: bool = True) -> DreamError:
    tail = " The file was left as it was." if untouched else ""
    return DreamError(f"could not write {path}: {describe_os_error(exc)}.{tail}")


# ---------------------------------------------------------------------------------------------
# Special files and permissions


class NotRegularFileError(OSError):
    """A FIFO, socket, device or folder where a file was expected: never opened (a FIFO would block
    the read forever, a device may act on being opened)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(NOT_REGULAR)
        self.strerror = NOT_REGULAR
        self.filename = os.fspath(path)

    def __str__(self) -> str:
        return f"{self.filename}: {NOT_REGULAR}"


def regular_file_stat(path: str | os.PathLike[str]) -> os.stat_result:
    """The stat of a regular file, or of the regular file a symlink points at (checked with lstat
    first, so nothing is opened). Raises NotRegularFileError for anything else, OSError as os.stat."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise NotRegularFileError(path)
    return info


def read_regular(path: str | os.PathLike[str]) -> tuple[bytes, os.stat_result]:
    """The bytes of a regular file (through a symlink) and its stat; never opens a special file.

    Checked before opening, and again on the open descriptor (opened without blocking), so a FIFO
    swapped in between cannot hang the read. Raises NotRegularFileError or OSError.
    """
    fd = _open_regular(path)
    with os.fdopen(fd, "rb") as fh:
        return fh.read(), os.fstat(fd)


_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def _open_regular(path: str | os.PathLike[str]) -> int:
    """A read descriptor of a regular file: lstat before opening, fstat after (non-blocking, so a
    FIFO swapped in meanwhile is refused, not waited on)."""
    regular_file_stat(path)
    fd = os.open(path, _READ_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFileError(path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _others_can_read(mode: int) -> bool:
    return bool(mode & (stat.S_IRGRP | stat.S_IROTH))


def _shared_mode(modes: list[int]) -> int:
    """A new file beside files of these modes: read-write for its owner, and for the group and
    others only what every one of them allows (so one private file keeps a new one private)."""
    shared = _SHARED_RW
    for mode in modes:
        shared &= mode
    return _OWNER_RW | shared


def _memory_file_modes(folder: Path, skip: str) -> list[int]:
    """The modes of the regular Markdown files in `folder` (through symlinks), at most a sample."""
    modes: list[int] = []
    try:
        with os.scandir(folder) as it:
            for entry in it:
                if entry.name == skip or not entry.name.endswith(".md") or is_temp_name(entry.name):
                    continue
                try:
                    info = entry.stat()
                except OSError:
                    continue
                if stat.S_ISREG(info.st_mode):
                    modes.append(stat.S_IMODE(info.st_mode))
                    if len(modes) >= _MODE_SAMPLE:
                        break
    except OSError:
        return []
    return modes


def _is_locked_memory_dir(folder: Path) -> bool:
    """A memory dir dream works in: it holds dream's lock sidecar (made before any memory write)."""
    return os.path.lexists(memory_paths(folder).lock)


def _nearest_existing(path: Path) -> Path | None:
    for folder in (path, *path.parents):
        if os.path.isdir(folder):
            return folder
    return None


def _private_under(folder: Path, state_root: Path) -> bool:
    """Whether the Claude dir (`state_root`), or an existing folder from it down to `folder`, keeps
    the group and others out."""
    folders = [state_root]
    with contextlib.suppress(ValueError):
        rel = folder.relative_to(state_root)
        here = state_root
        for part in rel.parts:
            here = here / part
            folders.append(here)
    for folder in folders:
        try:
            mode = os.stat(folder).st_mode
        except OSError:
            continue
        if not _others_can_read(mode):
            return True
    return False


def private_mode_for(path: Path, *, state_root: Path | None = None) -> int | None:
    """The mode of a new file at `path` (DESIGN.md §6: what dream writes has the permissions of the
    memory it serves); None means the default (0o644 less the umask).

    - dream's own state (`state_root` is the Claude dir): 0o600 when the Claude dir, or a folder
      between it and `path`, is not readable by the group and others;
    - beside memory files (`*.md` in the same folder, or in the memory dir above a topic folder):
      the mode those files share (read-write for the owner; for the group and others what all of
      them allow);
    - in a memory dir dream has locked that has no memory file yet: 0o600 when the memory dir
      itself is not readable by the group and others.
    """
    if state_root is not None:
        return PRIVATE_FILE_MODE if _private_under(path.parent, state_root) else None
    folder = path.parent
    modes = _memory_file_modes(folder, path.name)
    if modes:
        return _shared_mode(modes)
    for memory_dir in (folder, folder.parent):
        if not _is_locked_memory_dir(memory_dir):
            continue
        modes = _memory_file_modes(memory_dir, "") if memory_dir != folder else []
        if modes:
            return _shared_mode(modes)
        try:
            return None if _others_can_read(os.stat(memory_dir).st_mode) else PRIVATE_FILE_MODE
        except OSError:
            return None
    return None


def make_dirs(folder: Path, *, state_root: Path | None = None) -> None:
    """Create `folder` and its missing parents (no error when it exists).

    A new folder is 0o700 when the folder it is made in keeps the group and others out (or, for
    dream's state, when the Claude dir `state_root` does), else the default (0o777 less the umask).
    """
    missing: list[Path] = []
    here = folder
    while not os.path.isdir(here):
        missing.append(here)
        if here.parent == here:
            break
        here = here.parent
    if not missing:
        return
    parent = _nearest_existing(folder)
    try:
        private = parent is not None and not _others_can_read(os.stat(parent).st_mode)
    except OSError:
        private = False
    if state_root is not None and not private:
        private = _private_under(folder, state_root)
    for new in reversed(missing):
        try:
            os.mkdir(new, PRIVATE_DIR_MODE if private else 0o777)
        except FileExistsError:
            if not os.path.isdir(new):
                raise
            continue
        if private:
            with contextlib.suppress(OSError):
                os.chmod(new, PRIVATE_DIR_MODE)


def _check_writable(path: Path, info: os.stat_result) -> None:
    """A file its owner made read-only is not rewritten, even by root, who could."""
    if not info.st_mode & stat.S_IWUSR:
        raise DreamError(
            f"{path} is read-only (mode {stat.S_IMODE(info.st_mode):04o}): dream does not rewrite a file "
            "its owner made read-only. It was left as it was; make it writable to let dream change it."
        )


# ---------------------------------------------------------------------------------------------
# Atomic writes


def _temp_path(folder: Path) -> Path:
    # Not derived from the target's name: a 250-byte file name plus a suffix would pass NAME_MAX.
    return temp_file(folder, f"{TEMP_PREFIX}{secrets.token_hex(8)}")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view[:_CHUNK])
        view = view[written:]


def fsync_dir(folder: Path) -> None:
    """Make a rename or unlink in `folder` durable. File systems that cannot fsync a folder are skipped."""
    if os.name == "nt":  # Windows cannot open a folder as a file; its renames are journaled anyway.
        return
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EBADF):
            raise
    finally:
        os.close(fd)


def _write_target(path: Path) -> Path:
    # A memory file may be a symlink into a dotfiles repository: write through it, replacing the
    # file it points at, so the link survives.
    if os.path.islink(path):
        return Path(os.path.realpath(path))
    return path


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None, durable: bool = True) -> None:
    """Replace `path` with `data` so that a crash at any moment leaves the old or the new bytes.

    The file keeps `mode`, else the existing file's mode, else the mode `private_mode_for` gives a
    new file there (that of the memory files beside it), else 0o644 less the umask. A file its
    owner made read-only is refused (DreamError), even for root. On failure the temp file is
    removed, the original is untouched and a DreamError says why in words. `durable` False skips
    the fsyncs: for a cache, whose loss in a power cut only costs a rebuild.
    """
    target = _write_target(path)
    folder = target.parent
    try:
        existing: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise _write_error(path, exc) from exc
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        raise DreamError(f"could not write {path}: it is not a regular file. It was left as it was.")
    if existing is not None:
        _check_writable(path, existing)
    final_mode = mode if mode is not None else (stat.S_IMODE(existing.st_mode) if existing else None)
    if final_mode is None:
        final_mode = private_mode_for(target)

    tmp = _temp_path(folder)
    flags = _CREATE_FLAGS | getattr(os, "O_NOFOLLOW", 0)
    # With a known mode, start private and widen with fchmod: the bytes are never readable by
    # more people than the final file allows. A new file gets 0o644 through the umask.
    try:
        fd = os.open(tmp, flags, 0o600 if final_mode is not None else NEW_FILE_MODE)
    except OSError as exc:
        raise _write_error(path, exc) from exc
    try:
        try:
            # Windows has no fchmod; its mode is only a read-only flag, which we leave alone.
            if final_mode is not None and hasattr(os, "fchmod"):
                os.fchmod(fd, final_mode)
            if (
                existing is not None
                and hasattr(os, "fchown")
                and (existing.st_uid, existing.st_gid) != (os.geteuid(), os.getegid())
            ):
                # Keep the owner when root (or a group member) rewrites someone's file; best effort.
                with contextlib.suppress(OSError):
                    os.fchown(fd, existing.st_uid, existing.st_gid)
            _write_all(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _write_error(path, exc) from exc
        raise
    if not durable:
        return
    try:
        fsync_dir(folder)
    except OSError as exc:
        # The new bytes are in place; only their durability across a power cut is in doubt.
        raise _write_error(path, exc, untouched=False) from exc


@dataclass
class AttachedCache:
    """Where a process keeps one of its state-dir caches, and whether it may write it back (a
    command that writes state; never a dry run). Each cache module holds one."""

    path: Path | None = None
    writable: bool = False


def read_state_cache(path: Path) -> bytes:
    """The bytes of one of dream's caches in its state dir (`<claude>/dream/…`); empty when it is
    missing or cannot be read. A FIFO or a device put in its place is never opened."""
    try:
        return read_regular(path)[0]
    except (OSError, DreamError):
        return b""


def write_state_cache(path: Path, data: bytes) -> bool:
    """Replace one of dream's caches in its state dir (`<claude>/dream/…`); True if written.

    The state dir is made if it is missing (as private as the Claude dir above it); a missing Claude
    dir is never made for a cache. Not fsynced: a cache lost in a crash is made again. An error
    leaves the file as it was: a cache costs only speed."""
    claude_dir = path.parent.parent
    if not claude_dir.is_dir():
        return False
    try:
        make_dirs(path.parent, state_root=claude_dir)
        atomic_write_bytes(path, data, mode=private_mode_for(path, state_root=claude_dir), durable=False)
    except (OSError, DreamError):
        return False
    return True


def atomic_write_text(path: Path, text: str, *, mode: int | None = None) -> None:
    """UTF-8, newlines exactly as given (CRLF stays CRLF).

    surrogateescape lets text read with that handler give back the undecodable bytes it came from.
    """
    try:
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        raise DreamError(
            f"could not write {path}: the text has a character UTF-8 cannot store ({exc.reason})."
        ) from exc
    atomic_write_bytes(path, data, mode=mode)


def read_bytes_if_exists(path: Path) -> bytes | None:
    """A file's bytes, None when there is none; a FIFO, socket or device is never opened (DreamError)."""
    try:
        return read_regular(path)[0]
    except (FileNotFoundError, NotADirectoryError):
        return None
    except NotRegularFileError as exc:
        kind = "a folder" if os.path.isdir(path) else "a FIFO, socket or device, which dream never opens"
        raise DreamError(f"could not read {path}: it is {NOT_REGULAR} ({kind}).") from exc
    except OSError as exc:
        raise DreamError(f"could not read {path}: {describe_os_error(exc)}.") from exc


# ---------------------------------------------------------------------------------------------
# Locks


if sys.platform == "win32":

    def _pid_alive(pid: int) -> bool:
        # os.kill(pid, 0) would send CTRL_C_EVENT on Windows; ask the kernel instead.
        import ctypes
        from ctypes import wintypes

        if pid <= 0:
            return False
        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return ctypes.get_last_error() == 5  # ERROR_ACCESS_DENIED: exists, another user's
        try:
            code = wintypes.DWORD()
            if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
                return True
            return code.value == 259  # STILL_ACTIVE
        finally:
            kernel32.CloseHandle(handle)

else:

    def _pid_alive(pid: int) -> bool:
        if pid <= 0:
            return False
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True  # exists, belongs to another user
        except OSError:
            return False
        # A killed holder whose parent has not reaped it yet is a zombie: dead for our purposes.
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                raw = fh.read()
        except OSError:
            return True
        state = raw[raw.rfind(b")") + 1 :].split()
        return not (state and state[0] in (b"Z", b"X"))


def _parse_pid(raw: bytes) -> int | None:
    text = raw.decode("utf-8", "replace").strip()
    if re.fullmatch(r"\d{1,10}", text):
        return int(text)
    # Tolerate a JSON body in case a later client version writes one.
    with contextlib.suppress(ValueError):
        obj = json.loads(text)
        if isinstance(obj, dict) and isinstance(obj.get("pid"), int) and not isinstance(obj["pid"], bool):
            return int(obj["pid"])
    return None


def native_lock_holder(paths: MemoryPaths, now: float | None = None) -> int | None:
    """The PID of a live Claude Code auto-dream holding the memory dir, else None (DESIGN.md §8).

    Held means: `.consolidate-lock` exists, its mtime is younger than NATIVE_LOCK_MAX_AGE_SECONDS
    and the PID in it is alive. Our own PID (left by refresh_native_lock) never counts, nor does
    another dream run's: it leaves its PID there after its last memory write and only finishes its
    bookkeeping; the `.dream.lock` sidecar is what keeps two dream runs apart.
    """
    lock = paths.native_lock
    try:
        st = os.stat(lock)
        raw = b""
        if stat.S_ISREG(st.st_mode):  # a FIFO there would block the read forever
            with open(lock, "rb") as fh:
                raw = fh.read(256)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise DreamError(f"could not read {lock}: {describe_os_error(exc)}.") from exc
    current = time.time() if now is None else now
    # A future mtime (clock skew) counts as fresh, as it does for Claude Code's age check.
    if current - st.st_mtime >= defaults.NATIVE_LOCK_MAX_AGE_SECONDS:
        return None
    pid = _parse_pid(raw)
    if pid is None or pid == os.getpid() or not _pid_alive(pid) or not _may_be_claude_code(pid):
        return None
    return pid


def _proc_cmdline(pid: int) -> list[bytes] | None:
    """The process's argv from /proc (Linux); None where that cannot be read."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read(4096).split(b"\0")
    except OSError:
        return None


def _may_be_claude_code(pid: int) -> bool:
    """Whether a live `pid` may be Claude Code's auto-dream: not when it is a dream run (`python -m
    dream …` or the `dream` script), nor a process already exiting, whose argv is gone (the kernel
    drops it before the process releases its file locks, so a dream run waiting on `.dream.lock`
    wakes while the run before it is in that state). Where /proc cannot tell, every live holder
    counts as Claude Code's: the safe side."""
    argv = _proc_cmdline(pid)
    if argv is None:
        return True
    if argv == [b""]:
        return False
    if any(argv[i] == b"-m" and argv[i + 1] == b"dream" for i in range(min(len(argv) - 1, 4))):
        return False
    return not any(os.path.basename(arg) == b"dream" for arg in argv[:2])


def native_lock_held(paths: MemoryPaths, now: float | None = None) -> bool:
    return native_lock_holder(paths, now) is not None


def refresh_native_lock(paths: MemoryPaths) -> None:
    """After a successful run: give `.consolidate-lock` a fresh mtime so Claude Code's auto-dream
    (which waits 24 h from that mtime) does not redo the work.

    Our PID goes in, as the native holder writes its own; once we exit it no longer counts as held.
    A native dream that started meanwhile keeps its lock: overwriting its PID would let a second
    native dream start beside it.
    """
    if native_lock_held(paths):
        return
    atomic_write_text(paths.native_lock, str(os.getpid()))


@dataclass(frozen=True)
class NativeLockState:
    """`.consolidate-lock` as it was before dream took it: put back as it was if the run fails."""

    content: bytes | None
    mtime: float | None


def take_native_lock(paths: MemoryPaths) -> NativeLockState | None:
    """Before the first write: `.consolidate-lock` holds our PID with a fresh mtime, as Claude
    Code's own holder writes it, so its auto-dream never starts while dream writes. Returns what
    was there (None when a native dream holds it now: it is left alone)."""
    lock = paths.native_lock
    if native_lock_held(paths):
        return None
    try:
        info = os.lstat(lock)
    except OSError:
        before = NativeLockState(None, None)
    else:
        if not stat.S_ISREG(info.st_mode):
            return None
        before = NativeLockState(read_bytes_if_exists(lock), info.st_mtime)
    atomic_write_text(lock, str(os.getpid()))
    return before


def release_native_lock(paths: MemoryPaths, before: NativeLockState | None) -> None:
    """After a failed run: the lock's old content and mtime back (or no lock, if there was none),
    so Claude Code's auto-dream still sees the last consolidation that really happened."""
    if before is None:
        return
    lock = paths.native_lock
    try:
        if before.content is None:
            lock.unlink(missing_ok=True)
            return
        atomic_write_bytes(lock, before.content)
        if before.mtime is not None:
            os.utime(lock, (before.mtime, before.mtime))
    except (OSError, DreamError):
        pass  # the memory itself is restored; a stale lock mtime only delays the native dream


def _native_busy(paths: MemoryPaths, pid: int) -> BusyError:
    return BusyError(
        f"Claude Code's own auto-dream is consolidating {paths.memory_dir} right now "
        f"(PID {pid}, lock {paths.native_lock}); try again when it has finished."
    )


def _lock_file_mode(paths: MemoryPaths) -> int | None:
    """The sidecar lock's mode: that of the memory files, else private in a private memory dir;
    None: filelock's default."""
    mode = private_mode_for(paths.lock)
    if mode is None:
        with contextlib.suppress(OSError):
            if not _others_can_read(os.stat(paths.memory_dir).st_mode):
                mode = PRIVATE_FILE_MODE
    return mode


class MemoryLock:
    """One dream run at a time per memory dir, and never while Claude Code's auto-dream runs there.

    Entering creates the memory dir if needed, refuses with BusyError when the native lock is held,
    then waits up to `timeout` seconds for the `.dream.lock` sidecar. Also exclusive within a process.
    """

    def __init__(self, paths: MemoryPaths, timeout: float = defaults.LOCK_TIMEOUT_SECONDS) -> None:
        self.paths = paths
        self.timeout = timeout
        self._lock: BaseFileLock | None = None

    @property
    def held(self) -> bool:
        return self._lock is not None

    def __enter__(self) -> MemoryLock:
        if self._lock is not None:
            raise DreamError(f"dream already holds the lock on {self.paths.memory_dir} in this run.")
        pid = native_lock_holder(self.paths)
        if pid is not None:
            raise _native_busy(self.paths, pid)
        try:
            make_dirs(self.paths.memory_dir)
        except OSError as exc:
            raise DreamError(
                f"could not create the memory folder {self.paths.memory_dir}: {describe_os_error(exc)}."
            ) from exc
        # Imported here: a dry run, `plan` and `status` never lock (filelock costs them 10 ms).
        from filelock import FileLock, Timeout

        mode = _lock_file_mode(self.paths)
        if mode is None:
            lock = FileLock(str(self.paths.lock), timeout=self.timeout)
        else:
            lock = FileLock(str(self.paths.lock), timeout=self.timeout, mode=mode)
        try:
            lock.acquire()
        except Timeout:
            raise BusyError(
                f"another dream run holds {self.paths.memory_dir} (waited {self.timeout:g} s for "
                f"{self.paths.lock}); try again when it has finished."
            ) from None
        except OSError as exc:
            raise DreamError(f"could not lock {self.paths.lock}: {describe_os_error(exc)}.") from exc
        # The native dream may have started while we waited for our own lock.
        try:
            pid = native_lock_holder(self.paths)
        except BaseException:
            lock.release()
            raise
        if pid is not None:
            lock.release()
            raise _native_busy(self.paths, pid)
        self._lock = lock
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.release()


# ---------------------------------------------------------------------------------------------
# First-run backup


def is_temp_name(name: str) -> bool:
    return name.startswith(TEMP_PREFIX)


def without_secrets(data: bytes) -> bytes:
    """A memory file's bytes with every secret the redactor finds replaced by its marker (the one
    exception to "verbatim" in backups and snapshots: no secret is kept anywhere dream writes).
    Bytes that are not UTF-8 come back as they were around the markers. Through the record of texts
    already found clean (`clean_texts`): the snapshot, the first-run backup and the plan look at the
    same files, and each is redacted once."""
    from dream import clean_texts

    text = data.decode("utf-8", "surrogateescape")
    result = clean_texts.redact(text)
    if not result.changed:
        return data
    return result.text.encode("utf-8", "surrogateescape")


def _is_text_memory(name: str) -> bool:
    return name.endswith(".md")


def _copy_file(src: Path, dst: Path) -> None:
    """Copy a regular file (following a symlink, so the backup holds the content), mode and times;
    fsync. A Markdown file is copied with its secrets redacted. A special file is never opened
    (NotRegularFileError)."""
    data_source = _open_regular(src)
    with os.fdopen(data_source, "rb") as fin:
        fd = os.open(dst, _CREATE_FLAGS, 0o600)
        with os.fdopen(fd, "wb") as fout:
            if _is_text_memory(src.name):
                fout.write(without_secrets(fin.read()))
            else:
                shutil.copyfileobj(fin, fout, _CHUNK)
            fout.flush()
            os.fsync(fout.fileno())
    shutil.copystat(src, dst)


def _copy_tree(src: Path, dst: Path, skip_top: frozenset[str]) -> None:
    os.mkdir(dst, 0o700)
    with os.scandir(src) as it:
        entries = sorted(it, key=lambda e: e.name)
    for entry in entries:
        if is_temp_name(entry.name) or entry.name in skip_top:
            continue
        source, target = Path(entry.path), dst / entry.name
        if entry.is_symlink():
            if entry.is_file():
                _copy_regular(source, target)
            else:
                # A link to a folder (or a dangling one) stays a link: following it could copy a
                # whole disk or loop forever.
                os.symlink(os.readlink(source), target)
        elif entry.is_dir(follow_symlinks=False):
            _copy_tree(source, target, frozenset())
        elif entry.is_file(follow_symlinks=False):
            _copy_regular(source, target)
        # FIFOs, sockets and devices are skipped: reading a FIFO would block forever.
    shutil.copystat(src, dst)
    fsync_dir(dst)


def _copy_regular(source: Path, target: Path) -> None:
    """`_copy_file`, skipping a file that turned into a FIFO, socket or device meanwhile."""
    try:
        _copy_file(source, target)
    except NotRegularFileError:
        with contextlib.suppress(OSError):
            os.unlink(target)


def _copy_files(src: Path, dst: Path, files: list[Path]) -> None:
    """Only these files of `src` (each inside it), at their places under `dst`."""
    os.mkdir(dst, 0o700)
    for path in files:
        try:
            rel = path.relative_to(src)
        except ValueError:
            continue
        try:
            regular_file_stat(path)
        except OSError:
            continue  # gone, or not a regular file: nothing to protect, and never opened
        target = dst / rel
        for folder in reversed(target.parents):
            if folder != dst and dst in folder.parents and not os.path.isdir(folder):
                os.mkdir(folder, 0o700)
        _copy_regular(path, target)
    shutil.copystat(src, dst)
    fsync_dir(dst)


def _backup_pattern(paths: MemoryPaths) -> re.Pattern[str]:
    # Only `<name>-backup-YYYYMMDD` exactly counts: a false match (a half copy a killed run left as
    # `…-backup-YYYYMMDD.partial`) would silently skip the safety copy forever, a missed one merely
    # makes a second copy.
    return re.compile(re.escape(paths.memory_dir.name) + r"-backup-\d{8}")


def _partial_backup_pattern(paths: MemoryPaths) -> re.Pattern[str]:
    """The half copy a killed first-run backup leaves (built under `<backup>.partial`)."""
    return re.compile(re.escape(paths.memory_dir.name) + r"-backup-\d{8}\.partial")


def backup_exists(paths: MemoryPaths) -> bool:
    """Whether a complete first-run backup is beside the memory dir (a `.partial` one is not)."""
    pattern = _backup_pattern(paths)
    parent = paths.memory_dir.parent
    try:
        with os.scandir(parent) as it:
            return any(pattern.fullmatch(e.name) and e.is_dir() for e in it)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise DreamError(f"could not look for a backup in {parent}: {describe_os_error(exc)}.") from exc


def _drop_stale_partial_backups(paths: MemoryPaths, now: float | None = None) -> None:
    """Half copies of killed first-run backups, once a complete one is in place; one younger than
    LEFTOVER_MAX_AGE_SECONDS may still be being written and is left."""
    pattern = _partial_backup_pattern(paths)
    cutoff = (time.time() if now is None else now) - defaults.LEFTOVER_MAX_AGE_SECONDS
    with contextlib.suppress(OSError), os.scandir(paths.memory_dir.parent) as it:
        for entry in it:
            with contextlib.suppress(OSError):
                if (
                    pattern.fullmatch(entry.name)
                    and entry.is_dir(follow_symlinks=False)
                    and entry.stat(follow_symlinks=False).st_mtime < cutoff
                ):
                    shutil.rmtree(entry.path, ignore_errors=True)


def make_first_backup(paths: MemoryPaths, today: date, files: list[Path] | None = None) -> Path | None:
    """Before the first write ever: a copy of the memory dir to `<memory dir>-backup-YYYYMMDD/`,
    the whole folder, or only `files` (each inside it: the project-root layout backs up its memory
    files, not the repository).

    Returns the backup's path, or None when a complete backup exists already or there is no memory
    dir yet. The copy is built in a hidden temp folder and renamed into place, so a killed run never
    leaves a half backup that counts as done; a `.partial` one left by a killed run is not a backup,
    and once the new one is in place a stale one is removed. Markdown files are copied with their
    secrets redacted; FIFOs, sockets and devices are never opened. Call it while holding MemoryLock.
    """
    src = paths.memory_dir
    if not src.is_dir():
        return None
    if backup_exists(paths):
        return None
    parent = src.parent
    tmp_prefix = f"{TEMP_PREFIX}backup-{src.name}-"
    # Leftovers of a killed run: under the lock nobody else can be building one.
    with contextlib.suppress(OSError), os.scandir(parent) as it:
        for entry in it:
            if entry.name.startswith(tmp_prefix) and entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
    final = paths.backup_dir(today.strftime("%Y%m%d"))
    tmp = temp_file(parent, f"{tmp_prefix}{secrets.token_hex(4)}")
    skip = frozenset({paths.lock.name, paths.native_lock.name})
    try:
        if files is None:
            _copy_tree(src, tmp, skip)
        else:
            _copy_files(src, tmp, [f for f in files if f.name not in skip])
        if os.path.lexists(final):
            raise OSError(errno.EEXIST, "a file of that name is in the way")
        os.rename(tmp, final)
        fsync_dir(parent)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise DreamError(
            f"could not back up {src} to {final}: {describe_os_error(exc)}. Nothing in the memory "
            "folder was changed."
        ) from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _drop_stale_partial_backups(paths)
    return final


# ---------------------------------------------------------------------------------------------
# Snapshots: what a run is about to change, so `dream restore` can put it back


@dataclass(frozen=True)
class Snapshot:
    run_id: str
    path: Path
    files: tuple[str, ...]
    created: float = field(default=0.0, compare=False)
    memory_dir: Path | None = field(default=None, compare=False)


_SAFE_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def _check_run_id(run_id: str) -> None:
    if not _SAFE_RUN_ID.fullmatch(run_id):
        raise DreamError(f"invalid run id {run_id!r}: use letters, digits, '.', '_' and '-'.")


def _check_rel_path(rel: str) -> str:
    """A path inside the memory dir, '/'-separated, with no way out of it."""
    pure = PurePosixPath(rel)
    if (
        not rel
        or "\\" in rel
        or "\0" in rel
        or pure.is_absolute()
        or any(p in ("..", ".") for p in pure.parts)
    ):
        raise DreamError(f"refusing the path {rel!r}: it must be a plain path inside the memory folder.")
    if str(pure) != rel:
        raise DreamError(f"refusing the path {rel!r}: write it as {str(pure)!r}.")
    return rel


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read_manifest(folder: Path) -> dict[str, object] | None:
    """The manifest of a complete snapshot, or None for an incomplete or unreadable one."""
    try:
        obj = json.loads(read_regular(folder / MANIFEST_NAME)[0])
    except (OSError, ValueError):
        return None
    if not isinstance(obj, dict) or obj.get("version") != MANIFEST_VERSION:
        return None
    files = obj.get("files")
    if not isinstance(files, list):
        return None
    for item in files:
        if not (
            isinstance(item, dict)
            and isinstance(item.get("path"), str)
            and isinstance(item.get("existed"), bool)
            and (not item["existed"] or isinstance(item.get("sha256"), str))
            and isinstance(item.get("original_sha256", ""), str)
        ):
            return None
    return obj


def _snapshot_from(folder: Path, manifest: dict[str, object]) -> Snapshot:
    files = manifest["files"]
    assert isinstance(files, list)
    created = manifest.get("created")
    memory_dir = manifest.get("memory_dir")
    return Snapshot(
        run_id=folder.name,
        path=folder,
        files=tuple(str(item["path"]) for item in files),
        created=float(created) if isinstance(created, (int, float)) else 0.0,
        memory_dir=Path(memory_dir) if isinstance(memory_dir, str) else None,
    )


def _make_private_dirs(folder: Path) -> None:
    """A snapshot's folders: 0o700 whatever the home (they hold copies of the person's memory)."""
    missing: list[Path] = []
    here = folder
    while not os.path.isdir(here) and here.parent != here:
        missing.append(here)
        here = here.parent
    for new in reversed(missing):
        try:
            os.mkdir(new, PRIVATE_DIR_MODE)
        except FileExistsError:
            if not os.path.isdir(new):
                raise


def take_snapshot(snapshot_root: Path, run_id: str, memory_dir: Path, rel_paths: list[str]) -> Snapshot:
    """Save the current bytes and modes of the files a run is about to change.

    Layout: `snapshot_root/run_id/files/<rel>` plus `manifest.json` (each rel path, whether it
    existed, its sha256 and mode), written last and atomically: no manifest means incomplete.
    Keeps the newest SNAPSHOTS_KEPT complete snapshots. Everything in it is private (0o600 files,
    0o700 folders), and a Markdown file is saved with its secrets redacted: a snapshot never keeps
    a secret the run removes (the manifest then also records the original's sha256).

    Refused before anything is written (DreamError) when one of the files is read-only (the run
    must not rewrite it) or is a FIFO, socket or device.
    """
    return _take_snapshot(snapshot_root, run_id, memory_dir, rel_paths, check_writable=True, spare=None)


def _take_snapshot(
    snapshot_root: Path,
    run_id: str,
    memory_dir: Path,
    rel_paths: list[str],
    *,
    check_writable: bool,
    spare: str | None,
) -> Snapshot:
    _check_run_id(run_id)
    rels = list(dict.fromkeys(_check_rel_path(r) for r in rel_paths))
    folder = snapshot_root / run_id
    if _read_manifest(folder) is not None:
        raise DreamError(f"a snapshot for run {run_id} exists already in {snapshot_root}.")
    # Every file is checked before the first byte is written: a refused run changes nothing.
    present: dict[str, os.stat_result] = {}
    for rel in rels:
        src = memory_dir / rel
        try:
            info = regular_file_stat(src)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except NotRegularFileError as exc:
            raise DreamError(
                f"{src} is {NOT_REGULAR} (a FIFO, socket, device or folder): dream never opens or replaces "
                "one. Nothing was changed."
            ) from exc
        except OSError as exc:
            raise DreamError(f"could not save {src} before changing it: {describe_os_error(exc)}.") from exc
        if check_writable:
            _check_writable(src, info)
        present[rel] = info
    try:
        if folder.exists():
            shutil.rmtree(folder)  # an incomplete one left by a killed run with the same id
        _make_private_dirs(snapshot_files_dir(folder))
    except OSError as exc:
        raise DreamError(f"could not create the snapshot folder {folder}: {describe_os_error(exc)}.") from exc

    entries: list[dict[str, object]] = []
    for rel in rels:
        src = memory_dir / rel
        if rel not in present:
            entries.append({"path": rel, "existed": False, "sha256": None, "mode": None})
            continue
        try:
            data, info = read_regular(src)
        except (FileNotFoundError, NotADirectoryError):
            entries.append({"path": rel, "existed": False, "sha256": None, "mode": None})
            continue
        except OSError as exc:
            raise DreamError(f"could not save {src} before changing it: {describe_os_error(exc)}.") from exc
        mode = stat.S_IMODE(info.st_mode)
        stored = without_secrets(data) if _is_text_memory(rel) else data
        dst = snapshot_files_dir(folder) / rel
        try:
            _make_private_dirs(dst.parent)
        except OSError as exc:
            raise DreamError(f"could not create {dst.parent}: {describe_os_error(exc)}.") from exc
        atomic_write_bytes(dst, stored, mode=PRIVATE_FILE_MODE)
        entry: dict[str, object] = {"path": rel, "existed": True, "sha256": _sha256(stored), "mode": mode}
        if stored != data:
            entry["original_sha256"] = _sha256(data)  # the file as it was, secrets and all
        entries.append(entry)

    manifest: dict[str, object] = {
        "version": MANIFEST_VERSION,
        "run_id": run_id,
        "created": time.time(),
        "memory_dir": os.path.abspath(memory_dir),
        "files": entries,
    }
    atomic_write_text(
        folder / MANIFEST_NAME,
        json.dumps(manifest, indent=2, ensure_ascii=False) + "\n",
        mode=PRIVATE_FILE_MODE,
    )
    _prune_snapshots(snapshot_root, spare)
    return _snapshot_from(folder, manifest)


def _prune_snapshots(snapshot_root: Path, spare: str | None = None) -> None:
    # Best effort: a snapshot that cannot be deleted costs disk space, never a run.
    for old in list_snapshots(snapshot_root)[SNAPSHOTS_KEPT:]:
        if old.run_id != spare:
            shutil.rmtree(old.path, ignore_errors=True)
    cutoff = time.time() - INCOMPLETE_SNAPSHOT_MAX_AGE_SECONDS
    with contextlib.suppress(OSError), os.scandir(snapshot_root) as it:
        for entry in it:
            if (
                entry.is_dir(follow_symlinks=False)
                and _read_manifest(Path(entry.path)) is None
                and entry.stat(follow_symlinks=False).st_mtime < cutoff
            ):
                shutil.rmtree(entry.path, ignore_errors=True)


def discard_snapshot(snapshot: Snapshot) -> None:
    """A snapshot of an attempt that wrote nothing in the end (its files moved under it)."""
    shutil.rmtree(snapshot.path, ignore_errors=True)


def list_snapshots(snapshot_root: Path) -> list[Snapshot]:
    """Complete snapshots, newest first."""
    found: list[Snapshot] = []
    try:
        with os.scandir(snapshot_root) as it:
            folders = [Path(e.path) for e in it if e.is_dir(follow_symlinks=False)]
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        raise DreamError(
            f"could not list the snapshots in {snapshot_root}: {describe_os_error(exc)}."
        ) from exc
    for folder in folders:
        manifest = _read_manifest(folder)
        if manifest is not None:
            found.append(_snapshot_from(folder, manifest))
    found.sort(key=lambda s: (s.created, s.run_id), reverse=True)
    return found


@dataclass(frozen=True)
class _Saved:
    """One file of a snapshot, read and checked: its bytes before the run (None: it did not exist)."""

    rel: str
    content: bytes | None
    mode: int | None
    original_sha256: str | None  # the file's sha256 before the run, when the copy was redacted


def _saved_files(snapshot: Snapshot) -> list[_Saved]:
    """Every file of the snapshot, checked against its sha256: a damaged snapshot restores nothing."""
    manifest = _read_manifest(snapshot.path)
    if manifest is None:
        raise DreamError(f"the snapshot {snapshot.path} is incomplete or unreadable; nothing was restored.")
    files = manifest["files"]
    assert isinstance(files, list)
    saved: list[_Saved] = []
    for item in files:
        rel = _check_rel_path(str(item["path"]))
        if not item["existed"]:
            saved.append(_Saved(rel, None, None, None))
            continue
        copy = snapshot_files_dir(snapshot.path) / rel
        try:
            data = read_regular(copy)[0]
        except OSError as exc:
            raise DreamError(
                f"the snapshot copy {copy} cannot be read ({describe_os_error(exc)}); nothing was restored."
            ) from exc
        if _sha256(data) != item["sha256"]:
            raise DreamError(f"the snapshot copy {copy} is damaged (checksum differs); nothing was restored.")
        mode = item.get("mode")
        original = item.get("original_sha256")
        saved.append(
            _Saved(
                rel,
                data,
                mode if isinstance(mode, int) and not isinstance(mode, bool) else None,
                original if isinstance(original, str) else None,
            )
        )
    return saved


def restore_snapshot(snapshot: Snapshot, memory_dir: Path) -> list[str]:
    """Put every file of the snapshot back as it was before the run, each atomically; files that did
    not exist before the run are removed. Returns the rel paths restored.

    Every saved copy is checked against its sha256 first, so a damaged snapshot changes nothing. A
    secret a later run redacted is never written back: where the file now has a redaction marker
    and the saved text has that secret, the saved text goes back redacted.
    """
    return _restore(snapshot, memory_dir, _saved_files(snapshot))


@dataclass(frozen=True)
class RestoreOutcome:
    restored: list[str]  # the rel paths put back
    # The same files as they were just before the restore (its own run id, in the same snapshot
    # root): restoring it undoes the restore.
    before: Snapshot


BEFORE_RESTORE = "-before-restore"
_BEFORE_RESTORE_TAIL = re.compile(re.escape(BEFORE_RESTORE) + r"(?:-\d+)?\Z")


def _before_restore_id(snapshot_root: Path, run_id: str) -> str:
    """`<run id>-before-restore`, then `-2`, `-3`…: a name no snapshot in the root has yet."""
    base = _BEFORE_RESTORE_TAIL.sub("", run_id)[:100] + BEFORE_RESTORE
    for number in range(1, 10_000):
        candidate = base if number == 1 else f"{base}-{number}"
        if not os.path.lexists(snapshot_root / candidate):
            return candidate
    return f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{secrets.token_hex(3)}{BEFORE_RESTORE}"


def restore_snapshot_undoable(snapshot: Snapshot, memory_dir: Path) -> RestoreOutcome:
    """`restore_snapshot`, after saving the current state of the same files as a snapshot of its
    own (`<run id>-before-restore`, beside the one restored), so what was added since the run (a
    hand edit, Claude Code's own memory) is never lost and the restore can itself be undone.

    Nothing is saved or written when the snapshot is damaged or incomplete. Call it while holding
    MemoryLock.
    """
    saved = _saved_files(snapshot)  # read first: the new snapshot may prune the one restored
    root = snapshot.path.parent
    before = _take_snapshot(
        root,
        _before_restore_id(root, snapshot.run_id),
        memory_dir,
        [item.rel for item in saved],
        check_writable=False,
        spare=snapshot.run_id,
    )
    return RestoreOutcome(_restore(snapshot, memory_dir, saved), before)


def _restore(snapshot: Snapshot, memory_dir: Path, saved: list[_Saved]) -> list[str]:
    # Removals first, then the smallest files: when the disk filled up during the run, deleting the
    # files the run created frees the room that putting the old versions back needs. A file that
    # cannot be restored does not stop the others (each stays whole: its old or its new version).
    order = sorted(saved, key=lambda item: (item.content is not None, len(item.content or b"")))
    done: set[str] = set()
    failures: list[str] = []
    for item in order:
        try:
            _restore_one(memory_dir / item.rel, item)
        except DreamError as exc:
            failures.append(str(exc))
            continue
        done.add(item.rel)
    if failures:
        raise DreamError(
            f"could not put back {len(failures)} of {len(saved)} files from the snapshot {snapshot.path} "
            "(each is whole, in its new version; the others were restored): " + " ".join(failures)
        )
    return [item.rel for item in saved if item.rel in done]


def _keep_redacted(saved: bytes, current: bytes | None) -> bytes:
    """The saved bytes, redacted when the file now has a marker where the saved text has the secret:
    a secret a later run redacted is never put back."""
    from dream.redact import REDACTION_MARKER_PREFIX, marker, redact

    if current is None:
        return saved
    now = current.decode("utf-8", "surrogateescape")
    if REDACTION_MARKER_PREFIX not in now:
        return saved
    result = redact(saved.decode("utf-8", "surrogateescape"))
    if result.changed and any(marker(kind) in now for kind in result.kinds):
        return result.text.encode("utf-8", "surrogateescape")
    return saved


def _restore_one(target: Path, item: _Saved) -> None:
    content, mode = item.content, item.mode
    if content is None:
        try:
            target.unlink()
            fsync_dir(target.parent)
        except (FileNotFoundError, NotADirectoryError):
            pass
        except OSError as exc:
            raise DreamError(f"could not remove {target}: {describe_os_error(exc)}.") from exc
        return
    current = read_bytes_if_exists(target)
    if current is not None and (
        current == content or (item.original_sha256 is not None and _sha256(current) == item.original_sha256)
    ):
        # Already as it was (the saved copy may be its redacted form): leave its bytes and mtime.
        if mode is not None and stat.S_IMODE(os.stat(target).st_mode) != mode:
            try:
                os.chmod(target, mode)
            except OSError as exc:
                raise DreamError(f"could not set the mode of {target}: {describe_os_error(exc)}.") from exc
        return
    content = _keep_redacted(content, current)
    try:
        make_dirs(target.parent)
    except OSError as exc:
        raise DreamError(f"could not create {target.parent}: {describe_os_error(exc)}.") from exc
    atomic_write_bytes(target, content, mode=mode)
