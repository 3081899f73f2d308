"""Apply a plan: lock, re-plan if the memory moved, back up, snapshot, write atomically, verify.

Order matters for safety: the first-run backup and the snapshot exist before the first byte is
written; every write is a whole-file atomic replace; verification runs on what is on disk; a
failed verification restores the snapshot, so a run that cannot finish leaves memory as it was.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from dream.errors import BusyError, VerificationError
from dream.fsio import (
    MemoryLock,
    Snapshot,
    atomic_write_bytes,
    discard_snapshot,
    fsync_dir,
    make_dirs,
    read_bytes_if_exists,
    refresh_native_lock,
    release_native_lock,
    restore_snapshot,
    take_native_lock,
    take_snapshot,
)
from dream.layouts import layout_for
from dream.memory import Memory, load_memory
from dream.plan import FileChange, Plan
from dream.verify import Check, failed, verify_memory


@dataclass
class ApplyResult:
    plan: Plan
    written: list[str] = field(default_factory=list)
    backup: Path | None = None
    snapshot: Snapshot | None = None
    replanned: bool = False
    checks: list[Check] = field(default_factory=list)
    # The memory as it is on disk after the run (what verification read).
    after: Memory | None = None


# How often a plan is made again when another process writes a memory file while dream writes.
REPLANS = 3


class _Moved(Exception):
    """A file changed between the plan and its replacement (Claude Code's memory tool, an editor)."""


def apply_plan(
    plan: Plan,
    replan: Callable[[Memory], Plan],
    snapshot_root: Path,
    run_id: str,
) -> ApplyResult:
    paths = plan.memory.paths
    memory_type = plan.memory.memory_type
    with MemoryLock(paths):
        current = load_memory(paths, memory_type, plan.memory)
        replanned = False
        for _attempt in range(REPLANS + 1):
            if current.fingerprint() != plan.fingerprint:
                # Someone (a person, Claude Code, another tool) edited memory since we planned.
                plan, replanned = replan(current), True
            try:
                result = _apply_once(plan, snapshot_root, run_id)
            except _Moved:
                current = load_memory(paths, memory_type, current)
                continue
            result.replanned = replanned
            return result
        raise BusyError(
            f"{paths.memory_dir} kept changing while dream wrote ({REPLANS + 1} tries); nothing of this "
            "run was kept. Try again when the other writer has finished."
        )


def _apply_once(plan: Plan, snapshot_root: Path, run_id: str) -> ApplyResult:
    paths = plan.memory.paths
    memory_type = plan.memory.memory_type
    result = ApplyResult(plan)
    before = plan.expected_keys()
    if not plan.changes:
        result.checks = verify_memory(plan.memory, before, plan.memory)
        result.after = plan.memory
        _raise_if_failed(result.checks)
        refresh_native_lock(paths)
        return result
    result.backup = layout_for(memory_type).backup(paths, plan.memory, plan.today)
    result.snapshot = take_snapshot(snapshot_root, run_id, paths.memory_dir, [c.rel for c in plan.changes])
    native = take_native_lock(paths)
    done: list[FileChange] = []
    try:
        for change in plan.changes:
            # Re-checked just before it is replaced: a line another process appended since the
            # plan read the file would otherwise be lost.
            if read_bytes_if_exists(change.path) != change.old:
                raise _Moved(change.rel)
            if change.new is None:
                change.path.unlink(missing_ok=True)
                fsync_dir(change.path.parent)
            else:
                make_dirs(change.path.parent)
                atomic_write_bytes(change.path, change.new, mode=change.mode)
            done.append(change)
            result.written.append(change.rel)
        result.after = load_memory(paths, memory_type, plan.memory)
        result.checks = verify_memory(result.after, before, plan.memory)
        _raise_if_failed(result.checks)
    except _Moved:
        _undo(done)
        release_native_lock(paths, native)
        discard_snapshot(result.snapshot)
        raise
    except BaseException:
        restore_snapshot(result.snapshot, paths.memory_dir)
        release_native_lock(paths, native)
        raise
    refresh_native_lock(paths)
    return result


def _undo(done: list[FileChange]) -> None:
    """Put back what this attempt wrote before a file moved under it, each file only while it
    still holds what dream wrote (what another process wrote since stays)."""
    for change in reversed(done):
        if read_bytes_if_exists(change.path) != change.new:
            continue
        if change.old is None:
            change.path.unlink(missing_ok=True)
        else:
            atomic_write_bytes(change.path, change.old, mode=change.mode)


def _raise_if_failed(checks: list[Check]) -> None:
    bad = failed(checks)
    if bad:
        raise VerificationError(
            "verification failed, memory restored: " + "; ".join(f"{c.name} ({c.detail})" for c in bad),
            [c.name for c in bad],
        )


def new_run_id() -> str:
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + f"-{int(time.time() * 1000) % 1000:03d}"
