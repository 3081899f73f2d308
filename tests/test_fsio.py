"""dream/fsio.py against real files and real processes; faults are injected only where a real one is
impractical (a full disk mid-fsync), and a real full / read-only tmpfs is used when mount is allowed."""

from __future__ import annotations

import errno
import os
import random
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from filelock import FileLock, Timeout

from dream import fsio
from dream.errors import BusyError, DreamError
from dream.fsio import (
    MemoryLock,
    atomic_write_bytes,
    atomic_write_text,
    list_snapshots,
    make_first_backup,
    native_lock_held,
    read_bytes_if_exists,
    refresh_native_lock,
    restore_snapshot,
    take_snapshot,
)
from dream.layouts import memory_paths
from dream.paths import MemoryPaths


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Nothing here should reach the real home; make sure of it.
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)


@pytest.fixture
def paths(tmp_path: Path) -> MemoryPaths:
    return memory_paths(tmp_path / "claude" / "projects" / "-home-dana-app" / "memory", "native")


def _temps(folder: Path) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.startswith(fsio.TEMP_PREFIX))


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _sleeper() -> subprocess.Popen[bytes]:
    """A live process whose PID can stand in for Claude Code's; it exits when its stdin closes."""
    return subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)


def _lock_is_free(paths: MemoryPaths) -> bool:
    lock = FileLock(str(paths.lock), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        return False
    lock.release()
    return True


def _stop(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(timeout=10)


# ---------------------------------------------------------------------------------------------
# Atomic writes


def test_atomic_write_keeps_mode_and_exact_bytes(tmp_path: Path) -> None:
    target = tmp_path / "MEMORY.md"
    target.write_bytes(b"# Memory\r\n- old\r\n")
    os.chmod(target, 0o600)

    atomic_write_bytes(target, b"# Memory\r\n- new\r\n\r\n")
    assert target.read_bytes() == b"# Memory\r\n- new\r\n\r\n"
    assert _mode(target) == 0o600

    atomic_write_text(target, "mixed\r\nendings\nkept\r\n")
    assert target.read_bytes() == b"mixed\r\nendings\nkept\r\n"
    assert _mode(target) == 0o600
    assert _temps(tmp_path) == []


def test_atomic_write_new_file_mode_and_explicit_mode(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "new.md", "x")
        assert _mode(tmp_path / "new.md") == 0o644
        atomic_write_bytes(tmp_path / "secret.md", b"y", mode=0o600)
        assert _mode(tmp_path / "secret.md") == 0o600
        atomic_write_bytes(tmp_path / "new.md", b"z", mode=0o640)
        assert _mode(tmp_path / "new.md") == 0o640
    finally:
        os.umask(umask)


def test_atomic_write_text_round_trips_undecodable_bytes(tmp_path: Path) -> None:
    raw = b"caf\xe9 \xff\n"
    text = raw.decode("utf-8", "surrogateescape")
    atomic_write_text(tmp_path / "a.md", text)
    assert (tmp_path / "a.md").read_bytes() == raw
    with pytest.raises(DreamError, match="UTF-8"):
        atomic_write_text(tmp_path / "b.md", "lone \ud800")
    assert not (tmp_path / "b.md").exists()


def test_atomic_write_through_symlink_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "MEMORY.md"
    real.parent.mkdir()
    real.write_bytes(b"old")
    link = tmp_path / "mem" / "MEMORY.md"
    link.parent.mkdir()
    link.symlink_to(real)

    atomic_write_bytes(link, b"new")
    assert link.is_symlink()
    assert real.read_bytes() == b"new"
    assert _temps(real.parent) == [] and _temps(link.parent) == []


def test_atomic_write_refuses_a_folder(tmp_path: Path) -> None:
    (tmp_path / "dir.md").mkdir()
    with pytest.raises(DreamError, match="not a regular file"):
        atomic_write_bytes(tmp_path / "dir.md", b"x")


@pytest.mark.parametrize("victim", ["replace", "fsync", "write"])
def test_failure_mid_write_leaves_original_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, victim: str
) -> None:
    target = tmp_path / "MEMORY.md"
    original = b"# Memory\r\n" + bytes(range(256)) * 100
    target.write_bytes(original)
    before = sorted(os.listdir(tmp_path))

    def boom(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, victim, boom)
    with pytest.raises(DreamError) as info:
        atomic_write_bytes(target, b"new contents" * 10_000)
    monkeypatch.undo()

    message = str(info.value)
    assert str(target) in message
    assert "disk is full" in message and "ENOSPC" in message
    assert target.read_bytes() == original
    assert sorted(os.listdir(tmp_path)) == before


def test_interrupt_mid_write_removes_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "a.md"
    target.write_bytes(b"old")

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(target, b"new")
    monkeypatch.undo()
    assert target.read_bytes() == b"old"
    assert _temps(tmp_path) == []


def test_missing_folder_is_reported(tmp_path: Path) -> None:
    with pytest.raises(DreamError, match="folder does not exist"):
        atomic_write_bytes(tmp_path / "nope" / "a.md", b"x")


def test_read_bytes_if_exists(tmp_path: Path) -> None:
    assert read_bytes_if_exists(tmp_path / "missing.md") is None
    assert read_bytes_if_exists(tmp_path / "missing" / "deeper.md") is None
    (tmp_path / "a.md").write_bytes(b"a\r\n")
    assert read_bytes_if_exists(tmp_path / "a.md") == b"a\r\n"
    with pytest.raises(DreamError, match="folder"):
        read_bytes_if_exists(tmp_path)


@pytest.fixture
def tiny_fs(tmp_path: Path) -> Iterator[Path]:
    """A real 64 KiB tmpfs, for a real ENOSPC and a real EROFS."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root on Linux")
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k,mode=0755", "tmpfs", str(mnt)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here: {done.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False, capture_output=True)


def test_real_full_disk_and_read_only_fs(tiny_fs: Path) -> None:
    target = tiny_fs / "MEMORY.md"
    original = b"- keep me\r\n" * 1000
    atomic_write_bytes(target, original)

    with pytest.raises(DreamError, match=r"disk is full \(ENOSPC\)"):
        atomic_write_bytes(target, b"x" * 200_000)
    assert target.read_bytes() == original
    assert os.listdir(tiny_fs) == ["MEMORY.md"]

    subprocess.run(["mount", "-o", "remount,ro", str(tiny_fs)], check=True)
    with pytest.raises(DreamError, match=r"read-only \(EROFS\)"):
        atomic_write_bytes(target, b"small")
    assert target.read_bytes() == original


_WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from dream.fsio import atomic_write_bytes
    path = Path(sys.argv[1])
    versions = [Path(sys.argv[2]).read_bytes(), Path(sys.argv[3]).read_bytes()]
    sys.stdout.write("ready\\n")
    sys.stdout.flush()
    i = 0
    while True:
        i += 1
        atomic_write_bytes(path, versions[i % 2])
        sys.stdout.write("w\\n")
        sys.stdout.flush()
    """
)


@pytest.mark.slow
def test_sigkill_at_random_moments_never_tears_the_file(tmp_path: Path) -> None:
    """A real writer process killed with SIGKILL at random moments leaves one whole version."""
    version_a = b"A" * 300_000 + b"\r\nend of version a\n"
    version_b = b"B\n" * 350_001 + b"end of version b\r\n"
    (tmp_path / "a.bin").write_bytes(version_a)
    (tmp_path / "b.bin").write_bytes(version_b)
    work = tmp_path / "mem"
    work.mkdir()
    target = work / "MEMORY.md"
    target.write_bytes(version_a)
    os.chmod(target, 0o640)

    rng = random.Random(20240611)
    kills = 40
    writes_done = 0
    seen = {version_a: 0, version_b: 0}
    leftovers = 0
    started = time.monotonic()
    for _ in range(kills):
        proc = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(target), str(tmp_path / "a.bin"), str(tmp_path / "b.bin")],
            stdout=subprocess.PIPE,
        )
        assert proc.stdout is not None
        assert proc.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0.0, 0.05))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate(timeout=10)
        assert proc.returncode == -signal.SIGKILL
        writes_done += out.count(b"w\n")

        data = target.read_bytes()
        assert data in seen, f"torn file: {len(data)} bytes"
        seen[data] += 1
        assert _mode(target) == 0o640
        # A killed writer may leave its temp file (never the target) behind; clear it for the next round.
        for name in _temps(work):
            leftovers += 1
            os.unlink(work / name)
        assert sorted(os.listdir(work)) == ["MEMORY.md"]
    elapsed = time.monotonic() - started
    assert writes_done > kills, "the writer should complete many writes between kills"
    print(
        f"\n{kills} SIGKILLs survived, {writes_done} completed writes, final versions {list(seen.values())}, "
        f"{leftovers} temp files left by kills, {elapsed:.1f} s"
    )


# ---------------------------------------------------------------------------------------------
# Locks

_LOCK_HOLDER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from dream.fsio import MemoryLock
    from dream.layouts import memory_paths
    with MemoryLock(memory_paths(Path(sys.argv[1]), "native"), timeout=5):
        sys.stdout.write("locked\\n")
        sys.stdout.flush()
        sys.stdin.read()
    """
)


@pytest.mark.slow
def test_memory_lock_across_two_processes(paths: MemoryPaths) -> None:
    assert not paths.memory_dir.exists()
    holder = subprocess.Popen(
        [sys.executable, "-c", _LOCK_HOLDER, str(paths.memory_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == b"locked\n"
        assert paths.memory_dir.is_dir(), "the holder created the missing memory dir"

        started = time.monotonic()
        with (
            pytest.raises(BusyError, match="another dream run holds") as info,
            MemoryLock(paths, timeout=0.5),
        ):
            pass
        waited = time.monotonic() - started
        assert 0.4 <= waited < 3.0
        assert info.value.exit_code == 3
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=10)
    assert holder.returncode == 0

    with MemoryLock(paths, timeout=2) as lock:
        assert lock.held
    assert not lock.held


def test_memory_lock_is_exclusive_within_a_process(paths: MemoryPaths) -> None:
    with MemoryLock(paths, timeout=1), pytest.raises(BusyError), MemoryLock(paths, timeout=0.2):
        pass
    with MemoryLock(paths, timeout=1):
        pass


def test_native_lock_held_by_live_pid_blocks(paths: MemoryPaths) -> None:
    paths.memory_dir.mkdir(parents=True)
    native = _sleeper()
    try:
        paths.native_lock.write_text(str(native.pid))
        assert native_lock_held(paths)
        with (
            pytest.raises(BusyError, match="Claude Code's own auto-dream") as info,
            MemoryLock(paths, timeout=5),
        ):
            pass
        assert str(native.pid) in str(info.value)
        # Refusing must not have left our own lock taken.
        assert _lock_is_free(paths)

        # Two hours old: stale even though the PID lives.
        two_hours_ago = time.time() - 2 * 3600
        os.utime(paths.native_lock, (two_hours_ago, two_hours_ago))
        assert not native_lock_held(paths)
        with MemoryLock(paths, timeout=1):
            pass
        # `now` lets a caller ask about another moment.
        assert native_lock_held(paths, now=two_hours_ago + 60)
    finally:
        _stop(native)


def test_native_lock_not_held_when_dead_garbled_or_missing(paths: MemoryPaths) -> None:
    assert not native_lock_held(paths)  # no memory dir at all
    paths.memory_dir.mkdir(parents=True)
    assert not native_lock_held(paths)  # no lock file

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait(timeout=10)
    paths.native_lock.write_text(str(dead.pid))
    assert not native_lock_held(paths)

    for garbled in ("", "not a pid", "12abc", "-5", "0", "99999999999999"):
        paths.native_lock.write_text(garbled)
        assert not native_lock_held(paths), garbled
    with MemoryLock(paths, timeout=1):
        pass


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="zombie detection reads /proc")
def test_native_lock_zombie_holder_is_dead(paths: MemoryPaths) -> None:
    paths.memory_dir.mkdir(parents=True)
    proc = _sleeper()
    try:
        paths.native_lock.write_text(f"{proc.pid}\n")
        assert native_lock_held(paths)
        os.kill(proc.pid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while native_lock_held(paths) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not native_lock_held(paths), "a killed, unreaped holder is not alive"
    finally:
        proc.wait(timeout=10)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="argv is read from /proc")
def test_native_lock_holder_that_is_exiting_holds_nothing(
    paths: MemoryPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A process in exit has no argv in /proc before it releases its file locks: the run waiting
    # on `.dream.lock` wakes while the previous dream run, whose PID is in `.consolidate-lock`, is
    # in that state. Seen in CI as "Claude Code's own auto-dream is consolidating" between two runs.
    paths.memory_dir.mkdir(parents=True)
    holder = _sleeper()
    try:
        paths.native_lock.write_text(str(holder.pid))
        assert native_lock_held(paths)  # a live process with an argv that is not dream's
        real = fsio._proc_cmdline
        monkeypatch.setattr(fsio, "_proc_cmdline", lambda pid: [b""] if pid == holder.pid else real(pid))
        assert not native_lock_held(paths)
        monkeypatch.setattr(fsio, "_proc_cmdline", lambda pid: None)  # /proc cannot tell: the safe side
        assert native_lock_held(paths)
    finally:
        _stop(holder)


def test_native_lock_appearing_while_waiting_is_honoured(paths: MemoryPaths) -> None:
    native = _sleeper()
    first = MemoryLock(paths, timeout=1)
    first.__enter__()

    def native_starts_then_we_finish() -> None:
        time.sleep(0.2)
        paths.native_lock.write_text(str(native.pid))
        first.__exit__(None, None, None)

    thread = threading.Thread(target=native_starts_then_we_finish)
    thread.start()
    try:
        with pytest.raises(BusyError, match="auto-dream"), MemoryLock(paths, timeout=5):
            pass
    finally:
        thread.join()
        _stop(native)
    assert _lock_is_free(paths), "our lock was released after refusing"


def test_refresh_native_lock(paths: MemoryPaths) -> None:
    paths.memory_dir.mkdir(parents=True)
    refresh_native_lock(paths)  # creates it
    assert paths.native_lock.read_text() == str(os.getpid())
    assert abs(os.stat(paths.native_lock).st_mtime - time.time()) < 5
    # Our own PID never counts as held, so the next run (or this one) is not blocked by it.
    assert not native_lock_held(paths)

    day_ago = time.time() - 86_400
    os.utime(paths.native_lock, (day_ago, day_ago))
    refresh_native_lock(paths)
    assert abs(os.stat(paths.native_lock).st_mtime - time.time()) < 5
    assert _temps(paths.memory_dir) == []


def test_refresh_native_lock_leaves_a_live_native_holder_alone(paths: MemoryPaths) -> None:
    paths.memory_dir.mkdir(parents=True)
    native = _sleeper()
    try:
        paths.native_lock.write_text(str(native.pid))
        refresh_native_lock(paths)
        assert paths.native_lock.read_text() == str(native.pid)
    finally:
        _stop(native)


# ---------------------------------------------------------------------------------------------
# First-run backup


def _tree(root: Path) -> dict[str, tuple[bytes | str, int]]:
    """rel path -> (bytes, mode) for files, ("-> target", 0) for symlinks, (b"", mode) for folders."""
    out: dict[str, tuple[bytes | str, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = Path(dirpath) / name
            rel = full.relative_to(root).as_posix()
            if full.is_symlink() and full.is_dir():
                out[rel] = (f"-> {os.readlink(full)}", 0)
            elif full.is_dir():
                out[rel + "/"] = (b"", _mode(full))
            else:
                out[rel] = (full.read_bytes(), _mode(full))
    return out


def _fill_memory(paths: MemoryPaths, tmp_path: Path) -> None:
    mem = paths.memory_dir
    (mem / "sub" / "deeper").mkdir(parents=True)
    (mem / "MEMORY.md").write_bytes(b"# Memory\r\n- [Tabs](tabs.md) \xe2\x80\x94 hook\r\n")
    (mem / "tabs.md").write_bytes(b"---\nname: tabs\n---\nUse tabs.\n")
    os.chmod(mem / "tabs.md", 0o600)
    (mem / "sub" / "deeper" / "blob.bin").write_bytes(bytes(range(256)) * 50)
    (mem / ".last-dream").write_text("1700000000")
    outside = tmp_path / "dotfiles"
    outside.mkdir()
    (outside / "linked.md").write_bytes(b"linked content\n")
    (mem / "linked.md").symlink_to(outside / "linked.md")
    (mem / "linked-dir").symlink_to(outside, target_is_directory=True)
    # Not part of the copy:
    paths.lock.write_text("")
    paths.native_lock.write_text("12345")
    (mem / f"{fsio.TEMP_PREFIX}deadbeef").write_bytes(b"half a write")


def test_first_backup_is_a_full_copy_made_once(paths: MemoryPaths, tmp_path: Path) -> None:
    _fill_memory(paths, tmp_path)
    before = _tree(paths.memory_dir)

    backup = make_first_backup(paths, date(2025, 1, 2))
    assert backup == paths.memory_dir.parent / "memory-backup-20250102"
    assert backup is not None and backup.is_dir()

    copied = _tree(backup)
    expected = {k: v for k, v in before.items() if k not in {".dream.lock", ".consolidate-lock"}}
    expected = {k: v for k, v in expected.items() if not k.startswith(fsio.TEMP_PREFIX)}
    # A symlinked file is copied as bytes, so the backup protects its content.
    assert copied.pop("linked.md")[0] == b"linked content\n"
    expected.pop("linked.md")
    assert copied == expected
    assert _tree(paths.memory_dir) == before, "the memory dir itself is untouched"
    assert not [n for n in os.listdir(paths.memory_dir.parent) if n.startswith(fsio.TEMP_PREFIX)]

    # Once only: a later day, or a later run, makes no second copy.
    (paths.memory_dir / "MEMORY.md").write_text("changed")
    assert make_first_backup(paths, date(2025, 3, 4)) is None
    assert make_first_backup(paths, date(2025, 1, 2)) is None
    assert sorted(n for n in os.listdir(paths.memory_dir.parent) if "backup" in n) == [
        "memory-backup-20250102"
    ]


def test_first_backup_without_memory_dir(paths: MemoryPaths) -> None:
    assert make_first_backup(paths, date(2025, 1, 2)) is None
    assert not paths.memory_dir.parent.exists()


def test_half_backup_from_a_killed_run_does_not_count(
    paths: MemoryPaths, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill_memory(paths, tmp_path)
    parent = paths.memory_dir.parent

    def killed(src: object, dst: object) -> None:
        raise OSError(errno.EIO, "boom")

    monkeypatch.setattr(os, "rename", killed)
    with pytest.raises(DreamError, match="could not back up"):
        make_first_backup(paths, date(2025, 1, 2))
    monkeypatch.undo()
    assert sorted(os.listdir(parent)) == ["memory"], "no backup and no temp folder left"

    # A temp folder a SIGKILL left behind does not count as a backup and is cleared.
    leftover = parent / f"{fsio.TEMP_PREFIX}backup-memory-0badf00d"
    leftover.mkdir()
    (leftover / "MEMORY.md").write_text("half")
    backup = make_first_backup(paths, date(2025, 1, 2))
    assert backup is not None
    assert (backup / "MEMORY.md").read_bytes() == (paths.memory_dir / "MEMORY.md").read_bytes()
    assert not leftover.exists()


def test_unrelated_sibling_does_not_count_as_a_backup(paths: MemoryPaths) -> None:
    paths.memory_dir.mkdir(parents=True)
    (paths.memory_dir / "MEMORY.md").write_text("x")
    (paths.memory_dir.parent / "memory-backup-notes").mkdir()
    assert make_first_backup(paths, date(2025, 1, 2)) is not None


# ---------------------------------------------------------------------------------------------
# Snapshots


def test_snapshot_and_restore_round_trip(tmp_path: Path) -> None:
    mem = tmp_path / "memory"
    (mem / "topics").mkdir(parents=True)
    (mem / "MEMORY.md").write_bytes(b"# Memory\r\n- a\r\n")
    os.chmod(mem / "MEMORY.md", 0o640)
    (mem / "topics" / "b.md").write_bytes(b"b before\n")
    untouched = mem / "other.md"
    untouched.write_text("not in the snapshot")
    root = tmp_path / "snapshots"

    snap = take_snapshot(
        root, "20250102T030405-ab12", mem, ["MEMORY.md", "topics/b.md", "new.md", "MEMORY.md"]
    )
    assert snap.files == ("MEMORY.md", "topics/b.md", "new.md")
    assert snap.path == root / "20250102T030405-ab12"
    assert list_snapshots(root) == [snap]

    # The run changes things: rewrites, deletes, creates, chmods.
    atomic_write_bytes(mem / "MEMORY.md", b"# Memory\n- rewritten\n", mode=0o644)
    (mem / "topics" / "b.md").unlink()
    (mem / "new.md").write_text("created by the run")
    untouched.write_text("changed by the person meanwhile")

    restored = restore_snapshot(snap, mem)
    assert restored == ["MEMORY.md", "topics/b.md", "new.md"]
    assert (mem / "MEMORY.md").read_bytes() == b"# Memory\r\n- a\r\n"
    assert _mode(mem / "MEMORY.md") == 0o640
    assert (mem / "topics" / "b.md").read_bytes() == b"b before\n"
    assert not (mem / "new.md").exists()
    assert untouched.read_text() == "changed by the person meanwhile"
    assert _temps(mem) == [] and _temps(mem / "topics") == []

    # Restoring again changes nothing and is fine.
    mtime = os.stat(mem / "MEMORY.md").st_mtime_ns
    assert restore_snapshot(snap, mem) == restored
    assert os.stat(mem / "MEMORY.md").st_mtime_ns == mtime


def test_damaged_or_incomplete_snapshot_restores_nothing(tmp_path: Path) -> None:
    mem = tmp_path / "memory"
    mem.mkdir()
    (mem / "a.md").write_text("a0")
    (mem / "b.md").write_text("b0")
    root = tmp_path / "snapshots"
    snap = take_snapshot(root, "run1", mem, ["a.md", "b.md"])
    (mem / "a.md").write_text("a1")
    (mem / "b.md").write_text("b1")

    (snap.path / "files" / "b.md").write_text("tampered")
    with pytest.raises(DreamError, match="damaged"):
        restore_snapshot(snap, mem)
    assert (mem / "a.md").read_text() == "a1", "nothing restored from a damaged snapshot"

    (snap.path / "manifest.json").unlink()
    assert list_snapshots(root) == []
    with pytest.raises(DreamError, match="incomplete"):
        restore_snapshot(snap, mem)


def test_snapshot_keeps_the_newest_twenty(tmp_path: Path) -> None:
    mem = tmp_path / "memory"
    mem.mkdir()
    root = tmp_path / "snapshots"
    for i in range(23):
        (mem / "a.md").write_text(f"version {i}")
        take_snapshot(root, f"run-{i:03d}", mem, ["a.md"])
    # An incomplete snapshot of a run in progress elsewhere must survive pruning.
    (root / "in-progress" / "files").mkdir(parents=True)
    take_snapshot(root, "run-023", mem, ["a.md"])

    snaps = list_snapshots(root)
    assert [s.run_id for s in snaps] == [f"run-{i:03d}" for i in range(23, 3, -1)]
    assert (root / "in-progress").is_dir()
    assert sorted(p.name for p in root.iterdir()) == sorted([*(s.run_id for s in snaps), "in-progress"])
    assert (snaps[-1].path / "files" / "a.md").read_text() == "version 4"
    assert snaps[0].memory_dir == mem


def test_snapshot_refuses_paths_outside_the_memory_dir(tmp_path: Path) -> None:
    mem = tmp_path / "memory"
    mem.mkdir()
    root = tmp_path / "snapshots"
    for bad in ("../escape.md", "/etc/passwd", "a/../../b", "", "./a.md", "a//b.md"):
        with pytest.raises(DreamError, match="refusing the path"):
            take_snapshot(root, "run1", mem, [bad])
    for bad_id in ("../up", "a/b", "", "."):
        with pytest.raises(DreamError, match="invalid run id"):
            take_snapshot(root, bad_id, mem, ["a.md"])
    take_snapshot(root, "run1", mem, ["a.md"])
    with pytest.raises(DreamError, match="exists already"):
        take_snapshot(root, "run1", mem, ["a.md"])


def test_list_snapshots_of_missing_root(tmp_path: Path) -> None:
    assert list_snapshots(tmp_path / "nothing-here") == []
