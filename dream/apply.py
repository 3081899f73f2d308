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

from dream.errors import VerificationError
from dream.fsio import (
    MemoryLock,
    Snapshot,
    atomic_write_bytes,
    fsync_dir,
    refresh_native_lock,
    restore_snapshot,
    take_snapshot,
)
from dream.layouts import layout_for
from dream.memory import Memory, load_memory
from dream.plan import Plan
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


def apply_plan(
    plan: Plan,
    replan: Callable[[Memory], Plan],
    snapshot_root: Path,
    run_id: str,
) -> ApplyResult:
    paths = plan.memory.paths
    memory_type = plan.memory.memory_type
    with MemoryLock(paths):
        current = load_memory(paths, memory_type)
        result = ApplyResult(plan)
        if current.fingerprint() != plan.fingerprint:
            # Someone (a person, Claude Code, another tool) edited memory since we planned.
            plan = replan(current)
            result.plan, result.replanned = plan, True
        before = plan.expected_keys()
        if not plan.changes:
            result.checks = verify_memory(plan.memory, before)
            result.after = plan.memory
            _raise_if_failed(result.checks)
            refresh_native_lock(paths)
            return result
        result.backup = layout_for(memory_type).backup(paths, plan.memory, plan.today)
        result.snapshot = take_snapshot(
            snapshot_root, run_id, paths.memory_dir, [c.rel for c in plan.changes]
        )
        try:
            for change in plan.changes:
                if change.new is None:
                    change.path.unlink(missing_ok=True)
                    fsync_dir(change.path.parent)
                else:
                    change.path.parent.mkdir(parents=True, exist_ok=True)
                    atomic_write_bytes(change.path, change.new, mode=change.mode)
                result.written.append(change.rel)
            result.after = load_memory(paths, memory_type)
            result.checks = verify_memory(result.after, before)
            _raise_if_failed(result.checks)
        except BaseException:
            restore_snapshot(result.snapshot, paths.memory_dir)
            raise
        refresh_native_lock(paths)
        return result


def _raise_if_failed(checks: list[Check]) -> None:
    bad = failed(checks)
    if bad:
        raise VerificationError(
            "verification failed, memory restored: " + "; ".join(f"{c.name} ({c.detail})" for c in bad),
            [c.name for c in bad],
        )


def new_run_id() -> str:
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + f"-{int(time.time() * 1000) % 1000:03d}"
