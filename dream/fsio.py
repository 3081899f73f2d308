"""Every byte dream writes goes through here (DESIGN.md §6): atomic writes, the per-memory-dir lock,
Claude Code's own `.consolidate-lock`, the first-run backup and per-run snapshots for `restore`.

The memory files are the person's, so the rule is: a killed or failing run leaves each file either
exactly as it was or exactly as intended, never torn, and never loses one.
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

from filelock import FileLock, Timeout

from dream import defaults
from dream.errors import BusyError, DreamError
from dream.paths import MemoryPaths, snapshot_files_dir, temp_file

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

    The file keeps `mode`, else the existing file's mode, else 0o644 less the umask. On failure the
    temp file is removed, the original is untouched and a DreamError says why in words. `durable`
    False skips the fsyncs: for a cache, whose loss in a power cut only costs a rebuild.
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
    final_mode = mode if mode is not None else (stat.S_IMODE(existing.st_mode) if existing else None)

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
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
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


class MemoryLock:
    """One dream run at a time per memory dir, and never while Claude Code's auto-dream runs there.

    Entering creates the memory dir if needed, refuses with BusyError when the native lock is held,
    then waits up to `timeout` seconds for the `.dream.lock` sidecar. Also exclusive within a process.
    """

    def __init__(self, paths: MemoryPaths, timeout: float = defaults.LOCK_TIMEOUT_SECONDS) -> None:
        self.paths = paths
        self.timeout = timeout
        self._lock: FileLock | None = None

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
            self.paths.memory_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DreamError(
                f"could not create the memory folder {self.paths.memory_dir}: {describe_os_error(exc)}."
            ) from exc
        lock = FileLock(str(self.paths.lock), timeout=self.timeout)
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


def _copy_file(src: Path, dst: Path) -> None:
    """Copy bytes (following a symlink, so the backup holds the content), mode and times; fsync."""
    with open(src, "rb") as fin:
        fd = os.open(dst, _CREATE_FLAGS, 0o600)
        with os.fdopen(fd, "wb") as fout:
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
                _copy_file(source, target)
            else:
                # A link to a folder (or a dangling one) stays a link: following it could copy a
                # whole disk or loop forever.
                os.symlink(os.readlink(source), target)
        elif entry.is_dir(follow_symlinks=False):
            _copy_tree(source, target, frozenset())
        elif entry.is_file(follow_symlinks=False):
            _copy_file(source, target)
        # FIFOs, sockets and devices are skipped: reading a FIFO would block forever.
    shutil.copystat(src, dst)
    fsync_dir(dst)


def _backup_pattern(paths: MemoryPaths) -> re.Pattern[str]:
    # Only `<name>-backup-YYYYMMDD…` counts: a false match would silently skip the safety copy,
    # a missed one merely makes a second copy.
    return re.compile(re.escape(paths.memory_dir.name) + r"-backup-\d{8}")


def backup_exists(paths: MemoryPaths) -> bool:
    pattern = _backup_pattern(paths)
    parent = paths.memory_dir.parent
    try:
        with os.scandir(parent) as it:
            return any(pattern.match(e.name) and e.is_dir() for e in it)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise DreamError(f"could not look for a backup in {parent}: {describe_os_error(exc)}.") from exc


def make_first_backup(paths: MemoryPaths, today: date) -> Path | None:
    """Before the first write ever: a full copy of the memory dir to `<memory dir>-backup-YYYYMMDD/`.

    Returns the backup's path, or None when a backup exists already or there is no memory dir yet.
    The copy is built in a hidden temp folder and renamed into place, so a killed run never leaves
    a half backup that counts as done. Call it while holding MemoryLock.
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
        _copy_tree(src, tmp, skip)
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
        obj = json.loads((folder / MANIFEST_NAME).read_bytes())
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


def take_snapshot(snapshot_root: Path, run_id: str, memory_dir: Path, rel_paths: list[str]) -> Snapshot:
    """Save the current bytes and modes of the files a run is about to change.

    Layout: `snapshot_root/run_id/files/<rel>` plus `manifest.json` (each rel path, whether it
    existed, its sha256 and mode), written last and atomically: no manifest means incomplete.
    Keeps the newest SNAPSHOTS_KEPT complete snapshots.
    """
    _check_run_id(run_id)
    rels = list(dict.fromkeys(_check_rel_path(r) for r in rel_paths))
    folder = snapshot_root / run_id
    if _read_manifest(folder) is not None:
        raise DreamError(f"a snapshot for run {run_id} exists already in {snapshot_root}.")
    try:
        if folder.exists():
            shutil.rmtree(folder)  # an incomplete one left by a killed run with the same id
        snapshot_files_dir(folder).mkdir(parents=True)
    except OSError as exc:
        raise DreamError(f"could not create the snapshot folder {folder}: {describe_os_error(exc)}.") from exc

    entries: list[dict[str, object]] = []
    for rel in rels:
        src = memory_dir / rel
        try:
            data = src.read_bytes()
            mode = stat.S_IMODE(os.stat(src).st_mode)
        except (FileNotFoundError, NotADirectoryError):
            entries.append({"path": rel, "existed": False, "sha256": None, "mode": None})
            continue
        except OSError as exc:
            raise DreamError(f"could not save {src} before changing it: {describe_os_error(exc)}.") from exc
        dst = snapshot_files_dir(folder) / rel
        try:
            dst.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DreamError(f"could not create {dst.parent}: {describe_os_error(exc)}.") from exc
        atomic_write_bytes(dst, data, mode=0o600)
        entries.append({"path": rel, "existed": True, "sha256": _sha256(data), "mode": mode})

    manifest: dict[str, object] = {
        "version": MANIFEST_VERSION,
        "run_id": run_id,
        "created": time.time(),
        "memory_dir": os.path.abspath(memory_dir),
        "files": entries,
    }
    atomic_write_text(folder / MANIFEST_NAME, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    _prune_snapshots(snapshot_root)
    return _snapshot_from(folder, manifest)


def _prune_snapshots(snapshot_root: Path) -> None:
    # Best effort: a snapshot that cannot be deleted costs disk space, never a run.
    for old in list_snapshots(snapshot_root)[SNAPSHOTS_KEPT:]:
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


def restore_snapshot(snapshot: Snapshot, memory_dir: Path) -> list[str]:
    """Put every file of the snapshot back as it was before the run, each atomically; files that did
    not exist before the run are removed. Returns the rel paths restored.

    Every saved copy is checked against its sha256 first, so a damaged snapshot changes nothing.
    """
    manifest = _read_manifest(snapshot.path)
    if manifest is None:
        raise DreamError(f"the snapshot {snapshot.path} is incomplete or unreadable; nothing was restored.")
    files = manifest["files"]
    assert isinstance(files, list)

    plan: list[tuple[str, bytes | None, int | None]] = []
    for item in files:
        rel = _check_rel_path(str(item["path"]))
        if not item["existed"]:
            plan.append((rel, None, None))
            continue
        saved = snapshot_files_dir(snapshot.path) / rel
        try:
            data = saved.read_bytes()
        except OSError as exc:
            raise DreamError(
                f"the snapshot copy {saved} cannot be read ({describe_os_error(exc)}); nothing was restored."
            ) from exc
        if _sha256(data) != item["sha256"]:
            raise DreamError(
                f"the snapshot copy {saved} is damaged (checksum differs); nothing was restored."
            )
        mode = item.get("mode")
        plan.append((rel, data, mode if isinstance(mode, int) and not isinstance(mode, bool) else None))

    # Removals first, then the smallest files: when the disk filled up during the run, deleting the
    # files the run created frees the room that putting the old versions back needs. A file that
    # cannot be restored does not stop the others (each stays whole: its old or its new version).
    order = sorted(plan, key=lambda item: (item[1] is not None, len(item[1] or b"")))
    done: set[str] = set()
    failures: list[str] = []
    for rel, content, mode in order:
        try:
            _restore_one(memory_dir / rel, content, mode)
        except DreamError as exc:
            failures.append(str(exc))
            continue
        done.add(rel)
    if failures:
        raise DreamError(
            f"could not put back {len(failures)} of {len(plan)} files from the snapshot {snapshot.path} "
            "(each is whole, in its new version; the others were restored): " + " ".join(failures)
        )
    return [rel for rel, _, _ in plan if rel in done]


def _restore_one(target: Path, content: bytes | None, mode: int | None) -> None:
    if content is None:
        try:
            target.unlink()
            fsync_dir(target.parent)
        except (FileNotFoundError, NotADirectoryError):
            pass
        except OSError as exc:
            raise DreamError(f"could not remove {target}: {describe_os_error(exc)}.") from exc
        return
    if read_bytes_if_exists(target) == content and (
        mode is None or stat.S_IMODE(os.stat(target).st_mode) == mode
    ):
        return  # already as it was: leave its mtime alone
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DreamError(f"could not create {target.parent}: {describe_os_error(exc)}.") from exc
    atomic_write_bytes(target, content, mode=mode)
