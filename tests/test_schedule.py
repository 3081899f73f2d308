"""The nightly schedule (issue 18): every rule of its table, one test named after each.

Time is a fake clock (`daemon --once --now`, or `Session.tick(now)` in process); the zone is set
through `TZ` so the windows do not depend on the machine's. Sessions are written in the real
client's format with their timestamps and file times at the fake clock's hours.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from dream.api import Session
from dream.daemon import load_state, loop
from dream.schedule import (
    RunTrigger,
    ScheduleState,
    TickAction,
    decide,
    next_check,
    parse_at,
    window_on,
)
from tests.homefactory import Turn, slug, write_session

UTC = timezone.utc
NY = ZoneInfo("America/New_York")
AT = time(3, 0)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def handled(day: str, at_text: str = "03:00") -> ScheduleState:
    return ScheduleState(at=at_text, handled=day)


# -- the rules, on the pure decision -----------------------------------------------------------


def test_dream_at_is_a_local_time_unset_means_no_schedule() -> None:
    assert parse_at(None) is None and parse_at("") is None
    assert parse_at("3:05") == time(3, 5) and parse_at("23:59") == time(23, 59)
    for bad in ("24:00", "3pm", "03:60", "0300"):
        with pytest.raises(Exception, match="HH:MM"):
            parse_at(bad)
    decision = decide(at("2026-12-01T03:01+00:00"), None, handled("2026-11-30"), UTC)
    assert decision.action == TickAction.NO_SCHEDULE
    # Local: 03:00 in New York is 08:00 UTC in winter, 07:00 in summer.
    assert window_on(date(2026, 12, 1), AT, NY).astimezone(UTC).hour == 8
    assert window_on(date(2026, 7, 1), AT, NY).astimezone(UTC).hour == 7


def test_a_window_newer_than_the_last_handled_runs_once_scheduled_when_on_time() -> None:
    state = handled("2026-11-30")
    for minute in (0, 1, 5):
        d = decide(at(f"2026-12-01T03:0{minute}+00:00"), AT, state, UTC)
        assert (d.action, d.trigger, d.handle_day) == (
            TickAction.RUN,
            RunTrigger.SCHEDULED,
            date(2026, 12, 1),
        )
    # Before the window: wait for it.
    d = decide(at("2026-12-01T02:59+00:00"), AT, state, UTC)
    assert d.action == TickAction.WAIT and d.next_window == at("2026-12-01T03:00+00:00")
    # Once handled, the same window never again.
    assert decide(at("2026-12-01T03:02+00:00"), AT, handled("2026-12-01"), UTC).action == TickAction.WAIT


def test_recovered_when_the_machine_slept_across_the_window() -> None:
    # Asleep from 01:00 to 09:40: the timer wakes hours late.
    d = decide(at("2026-12-01T09:40+00:00"), AT, handled("2026-11-30"), UTC)
    assert (d.action, d.trigger) == (TickAction.RUN, RunTrigger.RECOVERED)
    assert "6 h late" in d.why
    # Six minutes late is no longer on time.
    d = decide(at("2026-12-01T03:06+00:00"), AT, handled("2026-11-30"), UTC)
    assert d.trigger == RunTrigger.RECOVERED


def test_several_missed_days_are_one_recovery_never_one_per_day() -> None:
    state = handled("2026-11-27")  # down for three nights
    d = decide(at("2026-12-01T12:00+00:00"), AT, state, UTC)
    assert (d.action, d.trigger, d.handle_day) == (TickAction.RUN, RunTrigger.RECOVERED, date(2026, 12, 1))
    assert "4 windows were missed since 2026-11-28" in d.why and "is recovered once" in d.why
    state.handled = d.handle_day.isoformat() if d.handle_day else None
    assert decide(at("2026-12-01T12:15+00:00"), AT, state, UTC).action == TickAction.WAIT


def test_a_restart_the_same_day_after_a_handled_window_does_nothing() -> None:
    state = handled("2026-12-01")
    for clock in ("2026-12-01T03:00:30+00:00", "2026-12-01T11:00+00:00", "2026-12-01T23:59+00:00"):
        assert decide(at(clock), AT, state, UTC).action == TickAction.WAIT
    assert decide(at("2026-12-02T03:00+00:00"), AT, state, UTC).action == TickAction.RUN


def test_turning_the_schedule_on_after_todays_time_never_recovers_today() -> None:
    d = decide(at("2026-12-01T10:00+00:00"), AT, ScheduleState(), UTC)
    assert d.action == TickAction.BASELINE and d.handle_day == date(2026, 12, 1)
    assert d.next_window == at("2026-12-02T03:00+00:00")
    # Turned on before today's time: today's window is ahead and runs.
    d = decide(at("2026-12-01T02:00+00:00"), AT, ScheduleState(at=None, handled="2026-11-02"), UTC)
    assert d.action == TickAction.BASELINE and d.handle_day == date(2026, 11, 30)
    assert d.next_window == at("2026-12-01T03:00+00:00")


def test_moving_the_time_earlier_or_later_never_recovers_retroactively() -> None:
    # Earlier: 23:00 → 03:00 at 10:00; today's 03:00 is past and is not run now.
    d = decide(at("2026-12-01T10:00+00:00"), AT, handled("2026-11-30", "23:00"), UTC)
    assert d.action == TickAction.BASELINE and d.handle_day == date(2026, 12, 1)
    assert d.next_window == at("2026-12-02T03:00+00:00")
    # Later, the day's window already handled at 03:00: 03:00 → 23:00 does not run again today.
    later = time(23, 0)
    d = decide(at("2026-12-01T10:00+00:00"), later, handled("2026-12-01", "03:00"), UTC)
    assert d.action == TickAction.BASELINE and d.handle_day == date(2026, 12, 1)
    assert d.next_window == at("2026-12-02T23:00+00:00")
    # Later, today not yet handled (yesterday's was): today's 23:00 runs at 23:00.
    d = decide(at("2026-12-01T10:00+00:00"), later, handled("2026-11-30", "03:00"), UTC)
    assert d.next_window == at("2026-12-01T23:00+00:00")
    state = ScheduleState(at="23:00", handled="2026-11-30")
    assert decide(at("2026-12-01T23:01+00:00"), later, state, UTC).trigger == RunTrigger.SCHEDULED


def test_dst_spring_forward_runs_once_at_the_moment_named() -> None:
    # 2026-03-08: New York's clocks jump from 02:00 to 03:00; 02:30 does not exist that night.
    half_past_two = time(2, 30)
    window = window_on(date(2026, 3, 8), half_past_two, NY)
    assert window.isoformat() == "2026-03-08T03:30:00-04:00"
    state = ScheduleState(at="02:30", handled="2026-03-07")
    d = decide(at("2026-03-08T03:31-04:00"), half_past_two, state, NY)
    assert (d.action, d.trigger) == (TickAction.RUN, RunTrigger.SCHEDULED)
    assert decide(at("2026-03-08T03:29-04:00"), half_past_two, state, NY).action == TickAction.WAIT
    # The day after, 02:30 exists again, an hour of wall clock later than the day before.
    assert d.next_window is not None and d.next_window.isoformat() == "2026-03-09T02:30:00-04:00"


def test_dst_fall_back_runs_once_though_the_hour_comes_twice() -> None:
    # 2026-11-01: 01:00–02:00 happens twice in New York (EDT, then EST).
    half_past_one = time(1, 30)
    state = ScheduleState(at="01:30", handled="2026-10-31")
    first = at("2026-11-01T01:31-04:00")
    d = decide(first, half_past_one, state, NY)
    assert (d.action, d.trigger) == (TickAction.RUN, RunTrigger.SCHEDULED)
    state.handled = "2026-11-01"
    second = at("2026-11-01T01:31-05:00")  # the same wall time, an hour later
    assert decide(second, half_past_one, state, NY).action == TickAction.WAIT


def test_the_daemon_checks_at_the_window_and_at_most_every_15_minutes_before_it() -> None:
    state = handled("2026-11-30")
    far = at("2026-12-01T00:00+00:00")
    assert next_check(far, decide(far, AT, state, UTC)) == far + timedelta(minutes=15)
    near = at("2026-12-01T02:50+00:00")
    assert next_check(near, decide(near, AT, state, UTC)) == at("2026-12-01T03:00+00:00")
    # No schedule: it still looks every 15 minutes (DREAM_AT may be set meanwhile).
    assert next_check(far, decide(far, None, state, UTC)) == far + timedelta(minutes=15)


# -- the rules, through the daemon on a real home ----------------------------------------------


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")


def _project(root: Path, name: str, when: datetime, text: str = "We use pnpm, never npm.") -> str:
    """A project with one session at `when` (its messages and its file time); its key."""
    cwd = root / name
    cwd.mkdir(parents=True, exist_ok=True)
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"])
    path = write_session(claude, str(cwd), [Turn(text, when)])
    os.utime(path, (when.timestamp(), when.timestamp()))
    return slug(str(cwd))


def _session() -> Session:
    Path(os.environ["CLAUDE_CONFIG_DIR"]).mkdir(parents=True, exist_ok=True)
    return Session.open()


def _rows(key: str) -> list[dict[str, object]]:
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"])
    reports = list((claude / "dream" / "reports").glob("*.jsonl"))
    rows = [json.loads(line) for f in reports for line in f.read_text().splitlines()]
    return [r for r in rows if r.get("key") == key]


NOW = at("2026-11-20T03:02:00+00:00")


def _seed_schedule(handled_day: str = "2026-11-19", at_text: str = "03:00") -> None:
    from dream.daemon import save_state

    save_state(_session().paths, ScheduleState(at=at_text, handled=handled_day))


def test_a_scheduled_run_dreams_for_the_projects_with_a_session_in_the_last_24_hours(
    utc: None, isolated_home: Path
) -> None:
    active = _project(isolated_home, "active", NOW - timedelta(hours=5))
    idle = _project(isolated_home, "idle", NOW - timedelta(days=3))
    _seed_schedule()
    result = _session().tick(NOW, execute=True, at="03:00")
    assert result.action == TickAction.RUN and result.trigger == RunTrigger.SCHEDULED
    assert result.projects == [active]
    assert [r.project for r in result.runs] == [active]
    assert [r["trigger"] for r in _rows(active)] == ["scheduled"]
    assert _rows(idle) == []
    assert load_state(_session().paths).handled == "2026-11-20"


def test_a_day_with_no_active_project_is_marked_handled_without_a_run(utc: None, isolated_home: Path) -> None:
    quiet = _project(isolated_home, "quiet", NOW - timedelta(days=2))
    _seed_schedule()
    result = _session().tick(NOW, execute=True, at="03:00")
    assert result.action == TickAction.IDLE_DAY and result.runs == []
    assert load_state(_session().paths).handled == "2026-11-20"
    assert _rows(quiet) == []


def test_the_run_report_says_its_trigger_manual_scheduled_or_recovered(
    utc: None, isolated_home: Path
) -> None:
    key = _project(isolated_home, "app", NOW - timedelta(hours=2))
    _seed_schedule("2026-11-17")
    late = NOW + timedelta(hours=6)  # the machine slept through 03:00
    # Through the command line, as the service runs it (a run leaves its PID in Claude Code's
    # `.consolidate-lock`; a `python -m dream` PID never counts as Claude Code's own dream).
    recovered = _daemon("--once", "--execute", "--json", "--at", "03:00", "--now", late.isoformat())
    assert json.loads(recovered.stdout)["trigger"] == "recovered"
    _project(isolated_home, "app", late + timedelta(minutes=1), "Always run pnpm lint before you say done.")
    manual = subprocess.run(
        [sys.executable, "-m", "dream", "run", "--since", "2026-11-01"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert manual.returncode == 0, manual.stderr
    assert [r["trigger"] for r in _rows(key)] == ["recovered", "manual"]
    status = subprocess.run(
        [sys.executable, "-m", "dream", "status", "--json"], capture_output=True, text=True, timeout=60
    )
    runs = json.loads(status.stdout)["projects"][0]["last_runs"]
    assert [r["trigger"] for r in runs] == ["recovered", "manual"]


def test_the_scheduled_run_uses_the_unattended_consolidator_when_one_is_configured(
    utc: None, isolated_home: Path, tmp_path: Path
) -> None:
    key = _project(
        isolated_home, "app", NOW - timedelta(hours=1), "Always use pnpm, never npm, in this repo."
    )
    calls = tmp_path / "calls"
    fake = tmp_path / "claude"
    fake.write_text(f"#!/bin/sh\necho called >> {calls}\nexit 1\n")
    fake.chmod(0o755)
    config = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "skills" / "dream" / ".dream-config"
    config.parent.mkdir(parents=True)
    config.write_text(f"DREAM_CONSOLIDATOR=claude\nDREAM_CLAUDE_BIN={fake}\n")
    _seed_schedule()
    result = _session().tick(NOW, execute=True, at="03:00")
    assert result.consolidator == "claude" and calls.read_text().count("called") >= 1
    (row,) = _rows(key)
    assert row["trigger"] == "scheduled"


def test_the_scheduled_run_is_deterministic_when_no_consolidator_is_configured(
    utc: None, isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(isolated_home, "app", NOW - timedelta(hours=1))
    calls = tmp_path / "calls"
    fake = tmp_path / "claude"
    fake.write_text(f"#!/bin/sh\necho called >> {calls}\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    _seed_schedule()
    result = _session().tick(NOW, execute=True, at="03:00")
    assert result.consolidator == "none" and result.runs and not calls.exists()


_HOLD = textwrap.dedent(
    """
    import sys, time
    from filelock import FileLock
    lock = FileLock(sys.argv[1]); lock.acquire()
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
    """
)


def _hold(path: Path, seconds: float = 30) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(path), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_a_project_has_at_most_one_run_at_a_time(utc: None, isolated_home: Path) -> None:
    key = _project(isolated_home, "app", NOW - timedelta(hours=1))
    memory = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / key / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    _seed_schedule()
    holder = _hold(memory / ".dream.lock")  # another run of this project, in another process
    try:
        result = _session().tick(NOW, execute=True, at="03:00")
    finally:
        holder.kill()
        holder.wait()
    assert [(r.project, r.status) for r in result.runs] == [(key, "busy")]
    assert int(result.exit_code) == 3


def test_two_daemons_never_claim_the_same_window(utc: None, isolated_home: Path) -> None:
    key = _project(isolated_home, "app", NOW - timedelta(hours=1))
    _seed_schedule()
    session = _session()
    holder = _hold(session.paths.schedule_lock)  # another daemon dispatching this window
    try:
        blocked = session.tick(NOW, execute=True, at="03:00")
    finally:
        holder.kill()
        holder.wait()
    assert int(blocked.exit_code) == 3 and blocked.runs == []
    assert load_state(session.paths).handled == "2026-11-19"
    # Two daemons at once, in two processes: the window runs once.
    argv = [
        sys.executable,
        "-m",
        "dream",
        "daemon",
        "--once",
        "--execute",
        "--at",
        "03:00",
        "--now",
        NOW.isoformat(),
    ]
    both = [
        subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)
    ]
    codes = sorted(p.wait(timeout=180) for p in both)
    assert codes in ([0, 0], [0, 3])
    assert len(_rows(key)) == 1
    assert load_state(session.paths).handled == "2026-11-20"


def test_the_run_yields_to_foreground_work(tmp_path: Path) -> None:
    probe = textwrap.dedent(
        """
        import ctypes, os, sys
        from dream.daemon import _IOPRIO_SET, lower_priority
        done = lower_priority()
        print(os.getpriority(os.PRIO_PROCESS, 0))
        number = _IOPRIO_SET.get(os.uname().machine)
        if sys.platform.startswith("linux") and number is not None:
            get = {251: 252, 30: 31, 314: 315, 289: 290, 273: 274, 282: 283}[number]
            print(ctypes.CDLL(None).syscall(get, 1, 0) >> 13)
        else:
            print(3)
        print(";".join(done))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    nice, io_class, said = done.stdout.splitlines()
    assert int(nice) == 19 and "nice 19" in said
    assert int(io_class) == 3  # IOPRIO_CLASS_IDLE


def test_the_scheduled_tick_dispatches_with_lowered_priority(
    utc: None, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dream.daemon

    _project(isolated_home, "app", NOW - timedelta(hours=1))
    _seed_schedule()
    lowered: list[bool] = []
    monkeypatch.setattr(dream.daemon, "lower_priority", lambda: lowered.append(True) or [])
    _session().tick(NOW, execute=True, at="03:00")
    assert lowered == [True]
    _session().tick(NOW + timedelta(minutes=15), execute=True, at="03:00")  # nothing due: nothing lowered
    assert lowered == [True]


# -- the command line --------------------------------------------------------------------------


def _daemon(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dream", "daemon", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, **(env or {})},
    )


def test_daemon_once_is_a_preview_that_writes_nothing(utc: None, isolated_home: Path) -> None:
    _project(isolated_home, "app", NOW - timedelta(hours=1))
    _seed_schedule()
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"])
    before = sorted(p.relative_to(claude) for p in claude.rglob("*"))
    out = _daemon("--once", "--now", NOW.isoformat(), env={"DREAM_AT": "03:00"})
    assert out.returncode == 0, out.stderr
    assert "would dream [scheduled]  (preview: nothing run)" in out.stdout
    assert "would dream for" in out.stdout
    assert sorted(p.relative_to(claude) for p in claude.rglob("*")) == before


def test_daemon_once_execute_runs_the_window_once_through_the_command_line(
    utc: None, isolated_home: Path
) -> None:
    key = _project(isolated_home, "app", NOW - timedelta(hours=1))
    _seed_schedule()
    env = {"DREAM_AT": "03:00"}
    first = _daemon("--once", "--execute", "--now", NOW.isoformat(), env=env)
    again = _daemon("--once", "--execute", "--now", (NOW + timedelta(hours=2)).isoformat(), env=env)
    assert first.returncode == 0 and again.returncode == 0, first.stderr + again.stderr
    assert "dreamt for" in first.stdout and "nothing to do" in again.stdout
    assert len(_rows(key)) == 1


def test_daemon_reads_dream_at_from_the_config_file(utc: None, isolated_home: Path) -> None:
    config = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "skills" / "dream" / ".dream-config"
    config.parent.mkdir(parents=True)
    config.write_text("DREAM_AT=04:30\n")
    out = _daemon("--once", "--json", "--now", "2026-11-20T01:00+00:00")
    data = json.loads(out.stdout)
    assert data["at"] == "04:30" and data["action"] == "baseline"
    bad = _daemon("--once", "--at", "25:00")
    assert bad.returncode == 2 and "HH:MM" in bad.stderr


def test_daemon_once_in_a_zone_with_dst_names_the_local_window(isolated_home: Path) -> None:
    Path(os.environ["CLAUDE_CONFIG_DIR"]).mkdir(parents=True, exist_ok=True)
    out = _daemon(
        "--once", "--json", "--at", "02:30", "--now", "2026-03-08T00:00", env={"TZ": "America/New_York"}
    )
    data = json.loads(out.stdout)
    # Turned on at midnight: the 7th's window is past (not recovered); the 8th's 02:30 does not
    # exist in New York (the clocks jump to 03:00), so it is 03:30 EDT.
    assert data["window"] == "2026-03-07T02:30-05:00"
    assert data["next_window"] == "2026-03-08T03:30-04:00"


def test_status_shows_the_schedule(utc: None, isolated_home: Path) -> None:
    _seed_schedule("2026-11-19", "03:00")
    out = subprocess.run(
        [sys.executable, "-m", "dream", "status", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "DREAM_AT": "03:00"},
    )
    schedule = json.loads(out.stdout)["schedule"]
    assert schedule["at"] == "03:00" and schedule["handled"] == "2026-11-19"
    text = subprocess.run(
        [sys.executable, "-m", "dream", "status"], capture_output=True, text=True, timeout=60
    ).stdout
    assert "schedule: off (set DREAM_AT=HH:MM" in text


def test_the_loop_ticks_at_the_window_and_sleeps_against_the_wall_clock(
    utc: None, isolated_home: Path
) -> None:
    _seed_schedule("2026-11-19")
    clock = [at("2026-11-20T02:20:00+00:00")]
    slept: list[float] = []
    ticks: list[tuple[str, str]] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += timedelta(seconds=seconds)
        if clock[0] >= at("2026-11-20T02:40:00+00:00") and len(ticks) < 3:
            clock[0] = at("2026-11-20T03:00:10+00:00")  # the machine slept through the window's edge

    loop(
        _session,
        lambda r: ticks.append((r.now, str(r.action))),
        at_text="03:00",
        clock=lambda: clock[0],
        sleep=sleep,
        stop=lambda: len(ticks) >= 3,
    )
    assert ticks[0] == ("2026-11-20T02:20:00+00:00", "wait")
    assert ticks[1] == ("2026-11-20T02:35:00+00:00", "wait")  # 15 minutes later, never more
    assert ticks[2][1] == "idle-day"  # at the window: due (no project was active)
    assert max(slept) <= 60


def test_a_second_daemon_loop_exits_at_once_and_sigterm_stops_the_first(isolated_home: Path) -> None:
    import signal

    Path(os.environ["CLAUDE_CONFIG_DIR"]).mkdir(parents=True, exist_ok=True)
    first = subprocess.Popen(
        [sys.executable, "-m", "dream", "daemon"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert first.stdout is not None
        line = first.stdout.readline()  # the first tick is always said
        assert line.startswith("daemon at "), line
        second = _daemon()
        assert second.returncode == 0 and "another dream daemon runs" in second.stderr
    finally:
        first.send_signal(signal.SIGTERM)
        code = first.wait(timeout=90)
    assert code == 0


def test_the_daemon_log_is_cut_to_its_newest_half_in_place(tmp_path: Path) -> None:
    from dream.daemon import trim_log

    log = tmp_path / "daemon.log"
    log.write_bytes(b"".join(b"line %05d\n" % n for n in range(2000)))  # 22,000 bytes
    with open(log, "ab") as writer:  # as cron's `>>` holds it
        trim_log(log, keep=10_000)
        writer.write(b"after\n")
    lines = log.read_bytes().splitlines()
    assert lines[-2:] == [b"line 01999", b"after"]
    assert len(log.read_bytes()) <= 5_100 and lines[0].startswith(b"line ")
    trim_log(log, keep=10_000)  # under the limit: untouched
    assert log.read_bytes().splitlines()[-1] == b"after"
