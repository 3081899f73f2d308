"""The nightly daemon: one tick decides (`schedule.decide`), claims the window and dispatches.

What it promises, and how:

- Two daemons never claim the same window: the tick that dispatches holds
  `<claude>/dream/schedule.lock` while it re-reads the state, runs and marks the day handled; another
  tick meanwhile is busy.
- One daemon loop per Claude dir: `daemon.lock`, held for the loop's life; a second loop exits at
  once (a cron line or a timer may start one every 15 minutes).
- A project has at most one run at a time: each run takes its memory dir's own lock
  (`fsio.MemoryLock`); a busy one is reported, not waited for.
- The run yields to foreground work: the dispatching process lowers its CPU priority (nice 19) and,
  on Linux, its I/O class to idle.
- The state is written atomically (`schedule.json`, through the package's one atomic writer).
- A run killed mid-window: the day is marked handled only after its runs return, so the next tick
  recovers it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time as _time
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import datetime, time, timedelta, timezone, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from dream import defaults
from dream.errors import ExitCode
from dream.paths import Paths
from dream.results import ProjectRun, TickResult
from dream.schedule import (
    Decision,
    RunTrigger,
    ScheduleState,
    TickAction,
    decide,
    format_at,
    local_zone,
    next_check,
    parse_at,
)

if TYPE_CHECKING:
    from dream.api import Session


def load_state(paths: Paths) -> ScheduleState:
    """The daemon's memory; unreadable or missing reads as never run (a new schedule)."""
    from dream.fsio import read_regular

    try:
        return ScheduleState.from_json(json.loads(read_regular(paths.schedule_file)[0]))
    except (OSError, ValueError):
        return ScheduleState()


def save_state(paths: Paths, state: ScheduleState) -> None:
    from dream.fsio import atomic_write_text, make_dirs, private_mode_for

    make_dirs(paths.state_dir, state_root=paths.claude_dir)
    text = json.dumps(state.to_json(), indent=1)
    atomic_write_text(
        paths.schedule_file, text, mode=private_mode_for(paths.schedule_file, state_root=paths.claude_dir)
    )


@contextlib.contextmanager
def _held_or_not(paths: Paths, lock_file: Path) -> Iterator[bool]:
    """A lock taken without waiting: True while this process holds it, False when another does."""
    from filelock import FileLock, Timeout

    from dream.fsio import make_dirs

    make_dirs(paths.state_dir, state_root=paths.claude_dir)
    lock = FileLock(str(lock_file), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        yield False
        return
    try:
        yield True
    finally:
        lock.release()


def _claim(paths: Paths) -> contextlib.AbstractContextManager[bool]:
    """The window lock: the tick that holds it dispatches the window."""
    return _held_or_not(paths, paths.schedule_lock)


def active_projects(session: Session, now: datetime) -> list[str]:
    """The memory dirs with a session in the 24 hours before `now` (message timestamps)."""
    recent = replace(session, now=now, window_start=now - timedelta(hours=defaults.SCHEDULE_ACTIVE_HOURS))
    gathered = recent.gather(write_cache=False)
    return sorted(key for key, target in gathered.targets.items() if target.digests)


def tick(
    session: Session,
    now: datetime,
    *,
    execute: bool,
    at_text: str | None = None,
    tz: tzinfo | None = None,
) -> TickResult:
    """One look at the schedule. Without `execute`, a preview: what it would do and why."""
    at = parse_at(at_text if at_text is not None else session.config.at)
    tz = tz or local_zone()
    now = now.astimezone(tz) if tz is not None else now.astimezone()
    paths = session.paths
    if not execute:
        return _result(session, now, decide(now, at, load_state(paths), tz), at, executed=False)
    with _claim(paths) as mine:
        if not mine:
            decision = Decision(TickAction.WAIT, "another dream daemon is dispatching this window")
            return _result(session, now, decision, at, executed=False, exit_code=ExitCode.BUSY)
        state = load_state(paths)  # read again under the lock: the other tick may have handled it
        decision = decide(now, at, state, tz)
        result = _result(session, now, decision, at, executed=True, state=state)
        if decision.action == TickAction.NO_SCHEDULE:
            if state.at is not None:
                save_state(paths, replace(state, at=None))
            return result
        if decision.action == TickAction.WAIT:
            return result
        assert decision.handle_day is not None
        state.at = format_at(at)
        if decision.action == TickAction.RUN and result.projects:
            lower_priority()
            result.runs = [_run_one(session, now, key, decision.trigger) for key in result.projects]
            worst = max((r.exit_code for r in result.runs), default=ExitCode.OK)
            result.exit_code = ExitCode(worst)
            state.last_trigger = str(decision.trigger)
            state.last_projects = list(result.projects)
            state.last_outcome = ", ".join(f"{r.project}: {r.status}" for r in result.runs)
        elif decision.action == TickAction.RUN:
            state.last_trigger, state.last_projects = str(decision.trigger), []
            state.last_outcome = "no project had a session in the last 24 hours"
        if state.handled_day is None or decision.handle_day > state.handled_day:
            state.handled = decision.handle_day.isoformat()
        state.handled_at = now.isoformat(timespec="seconds")
        save_state(paths, state)
        result.handled = state.handled
        return result


def _result(
    session: Session,
    now: datetime,
    decision: Decision,
    at: time | None,
    *,
    executed: bool,
    state: ScheduleState | None = None,
    exit_code: ExitCode = ExitCode.OK,
) -> TickResult:
    state = state or load_state(session.paths)
    projects: list[str] = []
    action = decision.action
    why = decision.why
    if action == TickAction.RUN:
        projects = active_projects(session, now)
        if not projects:
            action = TickAction.IDLE_DAY
            done = "marked handled" if executed else "it would be marked handled"
            why += f"; no project had a session in the last 24 hours: {done}, nothing run"
    return TickResult(
        now=now.isoformat(timespec="seconds"),
        at=format_at(at),
        action=action,
        why=why,
        trigger=decision.trigger if action == TickAction.RUN else None,
        window=decision.window.isoformat(timespec="minutes") if decision.window else None,
        handled=state.handled,
        next_window=decision.next_window.isoformat(timespec="minutes") if decision.next_window else None,
        next_check=next_check(now, decision).isoformat(timespec="seconds"),
        projects=projects,
        executed=executed,
        consolidator=session.config.consolidator,
        exit_code=exit_code,
    )


def _run_one(session: Session, now: datetime, key: str, trigger: RunTrigger | None) -> ProjectRun:
    """One project's run, as an ordinary `run` would do it (its lock, its report), attributed to
    the schedule. The unattended consolidator is used when one is configured."""
    from dream.errors import DreamError

    mine = replace(
        session,
        now=now,
        window_start=None,
        only_keys=frozenset({key}),
        trigger=trigger or RunTrigger.SCHEDULED,
    )
    try:
        outcome = mine.run()
    except DreamError as exc:
        return ProjectRun(key, "failed", ExitCode(exc.exit_code), str(exc))
    statuses = [str(t.status) for t in outcome.targets] or ["ok"]
    return ProjectRun(key, statuses[0], ExitCode(outcome.exit_code), "; ".join(outcome.failures))


# -- priority ----------------------------------------------------------------------------------

_IOPRIO_SET = {"x86_64": 251, "aarch64": 30, "armv7l": 314, "i686": 289, "ppc64le": 273, "s390x": 282}
_IOPRIO_CLASS_IDLE = 3
_IOPRIO_CLASS_SHIFT = 13


def lower_priority() -> list[str]:
    """Yield to foreground work: the lowest CPU priority and, on Linux, the idle I/O class.
    Best effort (a container may refuse); returns what was done."""
    done = []
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, 0, 19)
        done.append("nice 19")
    if sys.platform.startswith("linux"):
        number = _IOPRIO_SET.get(os.uname().machine)
        if number is not None:
            with contextlib.suppress(OSError, AttributeError):
                import ctypes

                libc = ctypes.CDLL(None, use_errno=True)
                value = _IOPRIO_CLASS_IDLE << _IOPRIO_CLASS_SHIFT
                if libc.syscall(number, 1, 0, value) == 0:  # IOPRIO_WHO_PROCESS, this process
                    done.append("I/O class idle")
    return done


# -- the loop ----------------------------------------------------------------------------------


def daemon_lock(paths: Paths) -> contextlib.AbstractContextManager[bool]:
    """One loop per Claude dir: True when this process is it."""
    return _held_or_not(paths, paths.daemon_lock)


def trim_log(path: Path, keep: int = defaults.DAEMON_LOG_MAX_BYTES) -> None:
    """Keep the daemon's log (appended to by launchd or cron) under `keep` bytes: the newest half
    stays. Cut in place, not replaced: the writers hold it open for appending."""
    try:
        with open(path, "r+b") as log:
            size = log.seek(0, os.SEEK_END)
            if size <= keep:
                return
            log.seek(size - keep // 2)
            tail = log.read()
            tail = tail[tail.find(b"\n") + 1 :]
            log.seek(0)
            log.truncate()
            log.write(tail)
    except OSError:
        pass  # a log that cannot be trimmed is not worth stopping the schedule for


def local_now() -> datetime:
    return datetime.now(timezone.utc).astimezone(local_zone())


def loop(
    open_session: Callable[[], Session],
    on_tick: Callable[[TickResult], None],
    *,
    at_text: str | None = None,
    clock: Callable[[], datetime] = local_now,
    sleep: Callable[[float], object] = _time.sleep,
    stop: Callable[[], bool] = lambda: False,
) -> None:
    """Tick, then wait until the next check. The wait is cut into short sleeps against the wall
    clock: a monotonic sleep stops while the machine is suspended, the wall clock does not."""
    while not stop():
        result = tick(open_session(), clock(), execute=True, at_text=at_text)
        on_tick(result)
        due = datetime.fromisoformat(result.next_check)
        while not stop():
            left = (due - clock()).total_seconds()
            if left <= 0:
                break
            sleep(min(left, defaults.DAEMON_WAKE_SECONDS))


def parse_now(text: str) -> datetime:
    """`--now ISO-TIME`: with an offset, that instant; without, a local time."""
    from dream.errors import UsageError

    try:
        when = datetime.fromisoformat(text)
    except ValueError as exc:
        raise UsageError(
            f"--now takes an ISO time (2026-12-01T03:00 or with an offset), not {text!r}"
        ) from exc
    zone = local_zone()
    if when.tzinfo is None:
        return when.replace(tzinfo=zone) if zone is not None else when.astimezone()
    return when
