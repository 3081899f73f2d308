"""Harm done through the file system, each reproduced on real files and real processes:

1. a half first-run backup (`<memory dir>-backup-YYYYMMDD.partial`) counted as the backup forever;
2. a FIFO (socket, device) named like a memory file hung `run`, `verify` and `orient`;
3. a SIGKILLed `dream run` left its gather's worker processes running; `DREAM_WORKERS` was ignored
   unless it was 1;
4. in a private home (0700 folders, 0600 files) dream wrote 0644 files and 0755 folders, and it
   rewrote a memory file its owner had made read-only (0400) when running as root;
5. `restore` replaced what was added after the run with no copy of it, and put back a secret a
   run had redacted; snapshots and the first-run backup kept the secrets the run removed.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, timedelta
from pathlib import Path

import pytest
from homefactory import MemoryHome, Turn, now, slug, write_session

from dream import defaults, digest, fsio
from dream.errors import DreamError
from dream.layouts import memory_paths
from dream.memory import load_file, load_memory

REPO = Path(__file__).resolve().parent.parent
TODAY = now().date()
DAY = (TODAY - timedelta(days=10)).isoformat()
# Built at run time: no literal token in the repository.
GITHUB_TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"[::-1]
AWS_KEY = "AKIA" + "QLPMAXE7NNDOFSOI"[::-1]


def _topic(title: str, *entries: str, kind: str = "project") -> str:
    lines = [f"- [{DAY}] {e} (source: session {DAY} aaaaaaaa, confidence: high)" for e in entries]
    return f"---\nname: {title}\ndescription: {title.lower()}\ntype: {kind}\n---\n\n# {title}\n\n" + (
        "\n".join(lines) + "\n"
    )


def _dream(claude: Path, *args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
    """`python -m dream` in a real process, with the umask most systems have (privacy must not
    come from the umask)."""
    return subprocess.run(
        [sys.executable, "-m", "dream", "--claude-dir", str(claude), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=str(REPO),
        env={**os.environ, **env},
        preexec_fn=lambda: os.umask(0o022),
    )


def _md_files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.md")) if p.is_file()}


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Fail instead of hanging: a blocked open() of a FIFO is interrupted by SIGALRM."""

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"still blocked after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# ---------------------------------------------------------------------------------------------
# 1. A half first-run backup is not a backup


def test_a_partial_backup_does_not_count_and_is_redone(tmp_path: Path) -> None:
    paths = memory_paths(tmp_path / "projects" / "-home-dana-app" / "memory", "native")
    paths.memory_dir.mkdir(parents=True)
    (paths.memory_dir / "facts.md").write_text(_topic("Facts", "The API runs on port 8080."))
    partial = paths.memory_dir.parent / "memory-backup-20261130.partial"
    partial.mkdir()
    (partial / "MEMORY.md").write_text("half a copy")
    assert not fsio.backup_exists(paths), "a .partial folder is not a complete backup"
    for name in ("memory-backup-2026113", "memory-backup-20261130-old", "memory-backup-20261130x"):
        (paths.memory_dir.parent / name).mkdir()
        assert not fsio.backup_exists(paths), name

    # A young half copy may still be being written: left; an old one goes once the new backup is in.
    backup = fsio.make_first_backup(paths, date(2026, 12, 1))
    assert backup == paths.memory_dir.parent / "memory-backup-20261201"
    assert (backup / "facts.md").read_bytes() == (paths.memory_dir / "facts.md").read_bytes()
    assert fsio.backup_exists(paths)
    assert partial.is_dir()

    shutil.rmtree(backup)
    old = time.time() - defaults.LEFTOVER_MAX_AGE_SECONDS - 60
    os.utime(partial, (old, old))
    assert fsio.make_first_backup(paths, date(2026, 12, 1)) == backup
    assert not partial.exists(), "a stale half copy is removed once a complete backup exists"
    assert fsio.make_first_backup(paths, date(2026, 12, 2)) is None, "made once"


@pytest.mark.slow
def test_a_run_after_a_killed_backup_makes_the_backup(tmp_path: Path) -> None:
    """The probe's case through the real command: the half copy a killed first run left beside the
    memory dir made every later run skip the safety copy."""
    h = MemoryHome(tmp_path)
    h.write("preferences.md", _topic("Preferences", "Use tabs.", kind="feedback"))
    partial = h.memory.parent / f"memory-backup-{(TODAY - timedelta(days=1)):%Y%m%d}.partial"
    partial.mkdir()
    (partial / "preferences.md").write_text("half")
    old = time.time() - defaults.LEFTOVER_MAX_AGE_SECONDS - 60
    os.utime(partial, (old, old))
    h.say("From now on always use pnpm in this repo, never npm.", days_ago=1)
    before = h.memory.joinpath("preferences.md").read_bytes()

    done = _dream(h.claude, "run")
    assert done.returncode == 0, done.stdout + done.stderr
    backup = h.memory.parent / f"memory-backup-{TODAY:%Y%m%d}"
    assert backup.is_dir(), sorted(p.name for p in h.memory.parent.iterdir())
    assert (backup / "preferences.md").read_bytes() == before
    assert not partial.exists()


def test_the_project_root_layout_backs_up_through_fsio(tmp_path: Path) -> None:
    """`make_first_backup(files=…)` copies only the memory files of a repository (the project-root
    layout's backup), through the same checks: a `.partial` is not a backup, no FIFO is opened,
    no secret is copied."""
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "MEMORY.md").write_text("# Memory Index\n")
    (repo / "facts.md").write_text(_topic("Facts", f"The deploy token is {GITHUB_TOKEN}."))
    (repo / "src" / "main.py").write_text("print('not memory')\n")
    os.mkfifo(repo / "decisions.md")
    paths = memory_paths(repo, "project-root")
    (tmp_path / "repo-backup-20261130.partial").mkdir()
    with _deadline(20):
        backup = fsio.make_first_backup(
            paths, date(2026, 12, 1), files=[repo / "MEMORY.md", repo / "facts.md", repo / "decisions.md"]
        )
    assert backup == tmp_path / "repo-backup-20261201"
    assert sorted(p.name for p in backup.iterdir()) == ["MEMORY.md", "facts.md"]
    assert GITHUB_TOKEN not in (backup / "facts.md").read_text()
    assert "[REDACTED:github-token]" in (backup / "facts.md").read_text()
    assert GITHUB_TOKEN in (repo / "facts.md").read_text(), "the memory itself is not touched here"


# ---------------------------------------------------------------------------------------------
# 2. Special files are never opened


def test_a_fifo_socket_or_link_to_a_fifo_is_unparsed_not_read(tmp_path: Path) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    os.mkfifo(folder / "scratch.md")
    (folder / "linked-fifo.md").symlink_to(folder / "scratch.md")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(folder / "socket.md"))
        with _deadline(10):
            for name in ("scratch.md", "socket.md", "linked-fifo.md"):
                loaded = load_file(folder / name, name, "topic")
                assert (loaded.kind, loaded.error, loaded.raw) == ("unparsed", "not a regular file", b"")
            with pytest.raises(DreamError, match="not a regular file"):
                fsio.read_bytes_if_exists(folder / "scratch.md")
            with pytest.raises(DreamError, match="not a regular file"):
                fsio.take_snapshot(tmp_path / "snaps", "run-1", folder, ["scratch.md"])
            assert not (tmp_path / "snaps" / "run-1").exists()
            # The index itself may be the FIFO.
            os.rename(folder / "scratch.md", folder / "MEMORY.md")
            memory = load_memory(memory_paths(folder, "native"), "native")
            assert memory.index is not None and memory.index.error == "not a regular file"
    finally:
        sock.close()
    assert stat.S_ISFIFO(os.lstat(folder / "MEMORY.md").st_mode)


@pytest.mark.slow
def test_a_fifo_named_like_a_memory_file_hangs_no_command(tmp_path: Path) -> None:
    h = MemoryHome(tmp_path)
    h.write("preferences.md", _topic("Preferences", "Use tabs.", kind="feedback"))
    os.mkfifo(h.memory / "scratch.md")
    h.say("From now on always use pnpm in this repo, never npm.", days_ago=1)
    for command in (["verify"], ["orient"], ["run", "--dry-run"], ["run"], ["verify"]):
        try:
            done = _dream(h.claude, *command, timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"`dream {' '.join(command)}` hung on the FIFO")
        assert done.returncode == 0, (command, done.stdout, done.stderr)
        if command == ["orient"]:
            assert "scratch.md: not a regular file" in done.stdout
    assert stat.S_ISFIFO(os.lstat(h.memory / "scratch.md").st_mode), "left as it was"
    assert "pnpm" in (h.memory / "preferences.md").read_text()
    backups = list(h.memory.parent.glob("memory-backup-*"))
    assert len(backups) == 1 and not (backups[0] / "scratch.md").exists()


# ---------------------------------------------------------------------------------------------
# 3. Workers die with the run


def _children(pid: int) -> list[int]:
    """Live child processes of `pid`, found by scanning /proc for their PPid."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                raw = fh.read()
        except OSError:
            continue
        fields = raw[raw.rfind(b")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == pid and fields[0] not in (b"Z", b"X"):
            found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read()
    except OSError:
        return False
    return raw[raw.rfind(b")") + 2 :].split()[0] not in (b"Z", b"X")


def _many_sessions(claude: Path, cwd: str, count: int) -> None:
    """`count` real-format sessions: a few written by the factory, the rest copies under new ids
    (the gather parses each file; their words need not differ)."""
    import uuid

    written = [
        write_session(
            claude,
            cwd,
            [
                Turn(
                    f"From now on always use tool{i} for job{i}, never legacy{i}. " * 3,
                    now() - timedelta(hours=i + j),
                )
                for j in range(4)
            ],
            noise=6,
        )
        for i in range(20)
    ]
    for i in range(count - len(written)):
        source = written[i % len(written)]
        shutil.copyfile(source, source.with_name(f"{uuid.uuid4()}.jsonl"))


def _kill_mid_gather(tmp_path: Path, command: list[str]) -> tuple[list[int], float]:
    """Start a real run on a home whose gather takes seconds with two workers, SIGKILL it while its
    workers parse, and return the workers and how long the last of them outlived it."""
    if not sys.platform.startswith("linux"):
        pytest.skip("finds the workers through /proc")
    if (os.cpu_count() or 1) < 2:
        pytest.skip("a parallel gather needs two CPUs")
    claude = tmp_path / ".claude"
    _many_sessions(claude, str(tmp_path / "src" / "app"), 500)
    proc = subprocess.Popen(
        [*command, "--claude-dir", str(claude), "run"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=str(REPO),
        env={**os.environ, "DREAM_WORKERS": "2"},
    )
    try:
        workers: list[int] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(workers) < 2:
            time.sleep(0.01)
            workers = _children(proc.pid)
        assert len(workers) == 2, f"the run never started two workers: {workers}"
        time.sleep(0.3)
        assert all(_alive(w) for w in workers) and proc.poll() is None, "the gather ended before the kill"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        killed = time.monotonic()
        while time.monotonic() - killed < 5 and any(_alive(w) for w in workers):
            time.sleep(0.05)
        return [w for w in workers if _alive(w)], time.monotonic() - killed
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for worker in _children(proc.pid):  # only this run's own workers, should any be left
            os.kill(worker, signal.SIGKILL)


@pytest.mark.slow
def test_sigkill_mid_gather_leaves_no_worker_alive(tmp_path: Path) -> None:
    left, _ = _kill_mid_gather(tmp_path, [sys.executable, "-m", "dream"])
    for worker in left:
        os.kill(worker, signal.SIGKILL)
    assert left == [], f"workers still running 5 s after the run was killed: {left}"


@pytest.mark.slow
def test_without_pdeathsig_workers_notice_their_parent_is_gone(tmp_path: Path) -> None:
    """The portable fallback (no prctl, as on macOS): each worker watches its parent's PID."""
    script = textwrap.dedent(
        """
        import sys
        import dream.digest
        dream.digest._die_with_parent = lambda: False
        from dream.cli import main
        sys.argv[0] = "dream"
        main()
        """
    )
    left, _ = _kill_mid_gather(tmp_path, [sys.executable, "-c", script])
    for worker in left:
        os.kill(worker, signal.SIGKILL)
    assert left == [], f"workers still running 5 s after the run was killed: {left}"


def test_dream_workers_is_the_number_of_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import concurrent.futures

    from dream.discover import claude_sessions
    from dream.paths import resolve_paths
    from dream.transcripts import ReadStats

    claude = tmp_path / ".claude"
    _many_sessions(claude, str(tmp_path / "src" / "app"), 16)
    paths = resolve_paths(claude)
    sources = claude_sessions(paths, ReadStats(), now() - timedelta(days=30))
    assert len(sources) >= digest.PARALLEL_MIN_SESSIONS

    pools: list[int] = []
    real_pool = concurrent.futures.ProcessPoolExecutor

    class Counting(real_pool):  # type: ignore[misc, valid-type]
        def __init__(self, max_workers: int, **kwargs: object) -> None:
            pools.append(max_workers)
            super().__init__(max_workers, **kwargs)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Counting)
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    for value, expected in [("3", 3), ("2", 2), ("64", 8), ("1", None), ("0", 4), ("two", 4), ("-3", 4)]:
        monkeypatch.setenv("DREAM_WORKERS", value)
        pools.clear()
        found = digest.get_digests(paths, sources, ReadStats(), digest.DigestStats(), write=False)
        assert len(found) == len(sources)
        assert pools == ([] if expected is None else [expected]), value
    monkeypatch.delenv("DREAM_WORKERS")
    assert digest.worker_count() == 4


# ---------------------------------------------------------------------------------------------
# 4. Permissions: a private home stays private; a read-only file stays as it is


def _make_private(*roots: Path) -> None:
    for root in roots:
        for folder, _, files in os.walk(root):
            os.chmod(folder, 0o700)
            for name in files:
                os.chmod(Path(folder) / name, 0o600)


def _loose(root: Path) -> list[str]:
    loose = []
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            if not path.is_symlink() and _mode(path) & 0o077:
                loose.append(f"{_mode(path):04o} {path.relative_to(root)}")
    return loose


@pytest.mark.slow
def test_in_a_private_home_everything_dream_writes_is_private(tmp_path: Path) -> None:
    h = MemoryHome(tmp_path)
    h.write("facts.md", _topic("Facts", "The API runs on port 8080."))
    h.say(
        "From now on always use pnpm in this repo, never npm.",
        "We decided the API now runs on port 9090, not 8080.",
        f"token {GITHUB_TOKEN} is ours",
        days_ago=1,
    )
    # A second project without a memory dir yet: dream makes the folder and its files.
    other = str(tmp_path / "src" / "other")
    Path(other).mkdir(parents=True)
    write_session(
        h.claude,
        other,
        [Turn("From now on always use pnpm in this repo, never npm.", now() - timedelta(hours=3))],
    )
    _make_private(h.claude)
    os.chmod(h.claude.parent, 0o700)

    done = _dream(h.claude, "run")
    assert done.returncode == 0, done.stdout + done.stderr
    planned = _dream(h.claude, "plan", "--json")
    assert planned.returncode == 0, planned.stderr

    memory = h.memory
    state = h.claude / "dream"
    new_memory = h.claude / "projects" / slug(other) / "memory"
    expected = [
        memory / "MEMORY.md",
        memory / "preferences.md",  # a new topic file
        memory / "archive.md",
        memory / ".last-dream",
        memory / ".dream.lock",
        memory / ".consolidate-lock",
        new_memory / "MEMORY.md",
        memory.parent / f"memory-backup-{TODAY:%Y%m%d}",
        state / "reports",
        state / "digests",
        state / "review",
        state / "entries",
        state / "snapshots",
        state / "plans",
    ]
    missing = [str(p.relative_to(h.claude)) for p in expected if not os.path.lexists(p)]
    assert missing == [], f"the run did not write {missing}"
    assert any((state / "snapshots").rglob("manifest.json"))
    assert any((state / "plans").glob("*.json"))
    assert _mode(new_memory) == 0o700
    assert _loose(h.claude) == [], "dream wrote files or folders the group or others can read"


@pytest.mark.slow
def test_in_an_open_home_new_files_keep_the_usual_modes(tmp_path: Path) -> None:
    h = MemoryHome(tmp_path)
    h.write("facts.md", _topic("Facts", "The API runs on port 8080."))
    os.chmod(h.memory / "facts.md", 0o644)
    h.say("From now on always use pnpm in this repo, never npm.", days_ago=1)
    done = _dream(h.claude, "run")
    assert done.returncode == 0, done.stdout + done.stderr
    assert _mode(h.memory / "MEMORY.md") == 0o644
    assert _mode(h.memory / "preferences.md") == 0o644
    report = next((h.claude / "dream" / "reports").iterdir())
    assert _mode(report) == 0o644


def test_a_new_file_takes_the_mode_of_the_memory_files_beside_it(tmp_path: Path) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "a.md").write_text("a")
    os.chmod(folder / "a.md", 0o640)
    assert fsio.private_mode_for(folder / "new.md") == 0o640
    fsio.atomic_write_text(folder / "new.md", "n")
    assert _mode(folder / "new.md") == 0o640
    (folder / "b.md").write_text("b")
    os.chmod(folder / "b.md", 0o600)
    assert fsio.private_mode_for(folder / "other.md") == 0o600, "one private file keeps new ones private"
    os.chmod(folder / "b.md", 0o400)  # a read-only file makes no new file read-only
    assert fsio.private_mode_for(folder / "other.md") == 0o600

    claude = tmp_path / "claude"
    (claude / "dream").mkdir(parents=True)
    os.chmod(claude, 0o755)
    assert fsio.private_mode_for(claude / "dream" / "x.json", state_root=claude) is None
    os.chmod(claude, 0o700)
    assert fsio.private_mode_for(claude / "dream" / "x.json", state_root=claude) == 0o600
    fsio.make_dirs(claude / "dream" / "reports" / "deeper", state_root=claude)
    assert _mode(claude / "dream" / "reports") == _mode(claude / "dream" / "reports" / "deeper") == 0o700


@pytest.mark.slow
def test_a_read_only_memory_file_is_not_rewritten_even_as_root(tmp_path: Path) -> None:
    h = MemoryHome(tmp_path)
    h.write("preferences.md", _topic("Preferences", "Use tabs.", kind="feedback"))
    facts = h.write("facts.md", _topic("Facts", "The API runs on port 8080."))
    os.chmod(facts, 0o400)
    # The run would archive the old port and rewrite facts.md.
    h.say("We decided the API now runs on port 9090, not 8080.", days_ago=1)
    before = _md_files(h.memory)

    done = _dream(h.claude, "run")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "facts.md is read-only" in done.stdout
    assert _md_files(h.memory) == before, "memory unchanged"
    assert _mode(facts) == 0o400
    assert not (h.memory / ".last-dream").exists()
    assert not list((h.claude / "dream" / "snapshots").rglob("manifest.json"))

    with pytest.raises(DreamError, match="read-only"):
        fsio.atomic_write_text(facts, "rewritten")
    assert facts.read_bytes() == before["facts.md"]


# ---------------------------------------------------------------------------------------------
# 5. Restore keeps what it replaces and never brings a secret back


def test_a_restore_saves_what_it_replaces_and_can_be_undone(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "facts.md").write_text(_topic("Facts", "The API runs on port 8080."))
    root = tmp_path / "snapshots"
    snapshot = fsio.take_snapshot(root, "20261201T101010-123", memory, ["facts.md", "new.md"])
    # The run, then the person's own edit after it.
    (memory / "facts.md").write_text(_topic("Facts", "The API runs on port 9090."))
    (memory / "new.md").write_text("created by the run\n")
    with (memory / "facts.md").open("a") as fh:
        fh.write("- Handwritten: use tabs in Makefiles.\n")
    after = _md_files(memory)

    outcome = fsio.restore_snapshot_undoable(snapshot, memory)
    assert outcome.restored == ["facts.md", "new.md"]
    assert "8080" in (memory / "facts.md").read_text() and not (memory / "new.md").exists()
    before = outcome.before
    assert before.run_id == "20261201T101010-123-before-restore"
    assert before.path.parent == root
    assert [s.run_id for s in fsio.list_snapshots(root)] == [before.run_id, snapshot.run_id]

    # The restore undone: the hand edit and the run's file are back.
    again = fsio.restore_snapshot_undoable(before, memory)
    assert _md_files(memory) == after
    assert again.before.run_id == "20261201T101010-123-before-restore-2"


def _old_style_snapshot(root: Path, run_id: str, memory: Path, rel: str, data: bytes) -> fsio.Snapshot:
    """A snapshot as dream made them before secrets were redacted in them: the bytes verbatim."""
    import hashlib

    folder = root / run_id
    (folder / "files").mkdir(parents=True)
    (folder / "files" / rel).write_bytes(data)
    manifest = {
        "version": 1,
        "run_id": run_id,
        "created": time.time(),
        "memory_dir": str(memory),
        "files": [{"path": rel, "existed": True, "sha256": hashlib.sha256(data).hexdigest(), "mode": 0o644}],
    }
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return next(s for s in fsio.list_snapshots(root) if s.run_id == run_id)


def test_restore_never_writes_back_a_secret_a_later_run_redacted(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    with_secret = _topic("Facts", f"Deploy key is {AWS_KEY}.", "The API runs on port 8080.").encode()
    snapshot = _old_style_snapshot(tmp_path / "snapshots", "run-1", memory, "facts.md", with_secret)
    redacted = with_secret.replace(AWS_KEY.encode(), b"[REDACTED:aws-access-key-id]")
    (memory / "facts.md").write_bytes(redacted.replace(b"8080", b"9090"))

    assert fsio.restore_snapshot(snapshot, memory) == ["facts.md"]
    text = (memory / "facts.md").read_text()
    assert AWS_KEY not in text
    assert "[REDACTED:aws-access-key-id]" in text and "8080" in text

    # With no marker where the snapshot has the secret, the person's text goes back as it was.
    (memory / "facts.md").write_text("rewritten by hand\n")
    fsio.restore_snapshot(snapshot, memory)
    assert (memory / "facts.md").read_bytes() == with_secret


def test_snapshots_hold_no_secret_and_an_unwritten_file_stays_as_it_was(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    original = _topic("Facts", f"The CI token is {GITHUB_TOKEN}.").encode()
    (memory / "facts.md").write_bytes(original)
    snapshot = fsio.take_snapshot(tmp_path / "snapshots", "run-1", memory, ["facts.md"])
    saved = (snapshot.path / "files" / "facts.md").read_bytes()
    assert GITHUB_TOKEN.encode() not in saved and b"[REDACTED:github-token]" in saved
    assert GITHUB_TOKEN not in (snapshot.path / "manifest.json").read_text()
    assert _mode(snapshot.path / "files" / "facts.md") == _mode(snapshot.path / "manifest.json") == 0o600
    assert _mode(snapshot.path) == _mode(snapshot.path / "files") == 0o700

    # A run that fails before it writes the file: the restore leaves it byte for byte.
    mtime = os.stat(memory / "facts.md").st_mtime_ns
    assert fsio.restore_snapshot(snapshot, memory) == ["facts.md"]
    assert (memory / "facts.md").read_bytes() == original
    assert os.stat(memory / "facts.md").st_mtime_ns == mtime
    # A run that wrote it: what goes back is the file without the secret.
    (memory / "facts.md").write_text("the run's version\n")
    fsio.restore_snapshot(snapshot, memory)
    assert (memory / "facts.md").read_bytes() == saved


@pytest.mark.slow
def test_a_run_keeps_no_secret_in_its_backup_or_snapshot(tmp_path: Path) -> None:
    h = MemoryHome(tmp_path)
    h.write("facts.md", _topic("Facts", f"Deploy key is {AWS_KEY} with secret {GITHUB_TOKEN}."))
    h.say("From now on always use pnpm in this repo, never npm.", days_ago=1)
    done = _dream(h.claude, "run")
    assert done.returncode == 0, done.stdout + done.stderr
    copies = [
        *(h.memory.parent / f"memory-backup-{TODAY:%Y%m%d}").rglob("*"),
        *(h.claude / "dream" / "snapshots").rglob("*"),
        *h.memory.rglob("*"),
    ]
    files = [p for p in copies if p.is_file()]
    assert any(p.name == "facts.md" for p in files if "backup" in str(p))
    leaks = [
        str(p) for p in files if AWS_KEY.encode() in p.read_bytes() or GITHUB_TOKEN.encode() in p.read_bytes()
    ]
    assert leaks == []
