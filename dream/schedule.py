"""The nightly schedule's rules (issue 18): which window is due, and whether it is on time.

Pure functions of the time, `DREAM_AT` and what the daemon last handled; the daemon (`daemon.py`)
reads and writes that state and dispatches the runs. Standard library only.

| rule | where |
|---|---|
| `DREAM_AT=HH:MM` is a local time; unset means no schedule | `parse_at`, `decide` |
| one window a day; a day handled never runs again (a restart the same day does nothing) | `decide` |
| a window newer than the last handled runs once: `scheduled` within 5 minutes, else `recovered` | `decide` |
| several missed days are one recovery (the newest window), never one per day | `decide` |
| turning the schedule on, or moving it, never recovers a window already past | `decide` (baseline) |
| the daemon checks at the window and at most every 15 minutes before it | `next_check` |
| a local time the clocks skip (DST) is the moment it names; an ambiguous one its first | `window_on` |
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from typing import Any

from dream import defaults, regex_cache

_AT = regex_cache.compile(r"([01]?\d|2[0-3]):([0-5]\d)")


class RunTrigger(str, enum.Enum):
    """Why a run happened, as its report says."""

    MANUAL = "manual"  # the person ran it (`run`, `/dream`, `apply`)
    SCHEDULED = "scheduled"  # the daemon, at its window
    RECOVERED = "recovered"  # the daemon, for a window it missed (down, or the machine asleep)

    def __str__(self) -> str:
        return self.value


class TickAction(str, enum.Enum):
    """What one tick of the daemon does."""

    NO_SCHEDULE = "no-schedule"  # DREAM_AT unset
    BASELINE = "baseline"  # the schedule is new or moved: windows already past are marked handled
    WAIT = "wait"  # the newest window is handled; the next one is ahead
    RUN = "run"  # a window is due and projects were active: dream for them
    IDLE_DAY = "idle-day"  # a window is due but no project had a session: marked handled, no run

    def __str__(self) -> str:
        return self.value


def parse_at(text: str | None) -> time | None:
    """`HH:MM` (24-hour, local) or None when unset; anything else is a usage error."""
    if text is None or not text.strip():
        return None
    match = _AT.fullmatch(text.strip())
    if match is None:
        from dream.errors import UsageError

        raise UsageError(f"DREAM_AT must be a local time HH:MM (24-hour), not {text!r}")
    return time(int(match.group(1)), int(match.group(2)))


def format_at(at: time | None) -> str | None:
    return None if at is None else f"{at.hour:02d}:{at.minute:02d}"


def local_zone() -> tzinfo | None:
    """This machine's zone with its rules (DST included): `TZ` when it names one, else
    `/etc/localtime`; None when neither can be read (then the C library's local time is used)."""
    import os
    from zoneinfo import ZoneInfo

    name = os.environ.get("TZ", "").lstrip(":")
    try:
        if name:
            return ZoneInfo(name)
        with open("/etc/localtime", "rb") as handle:
            return ZoneInfo.from_file(handle)
    except (OSError, ValueError):
        return None


def window_on(day: date, at: time, tz: tzinfo | None = None) -> datetime:
    """The window of `day`: `at` local time on that day, as an aware datetime.

    A time the clocks skip (DST spring-forward) is the moment it names on the wall clock after
    the jump (02:30 becomes 03:30); an ambiguous one (fall-back) is its first occurrence.
    `tz` None: the C library's local time, corrected the same way.
    """
    naive = datetime.combine(day, at)
    if tz is None:
        guess = naive.astimezone()
        # mktime moves a skipped time to either side; shift it back by the difference.
        return (guess + (naive - guess.replace(tzinfo=None))).astimezone()
    # Normalise through UTC: a skipped local time comes back as the moment it names.
    return naive.replace(tzinfo=tz).astimezone(timezone.utc).astimezone(tz)


def _local(now: datetime, tz: tzinfo | None) -> datetime:
    if now.tzinfo is None:
        now = now.astimezone()
    return now.astimezone(tz) if tz is not None else now.astimezone()


def latest_window(now: datetime, at: time, tz: tzinfo | None = None) -> datetime:
    """The newest window at or before `now`."""
    here = _local(now, tz)
    today = window_on(here.date(), at, tz)
    return today if today <= now else window_on(here.date() - timedelta(days=1), at, tz)


@dataclass
class ScheduleState:
    """What the daemon remembers (`<claude>/dream/schedule.json`)."""

    at: str | None = None  # DREAM_AT when the daemon last looked: a change is a new schedule
    handled: str | None = None  # the local day (YYYY-MM-DD) of the newest window handled
    handled_at: str | None = None  # when that happened
    last_trigger: str | None = None
    last_projects: list[str] = field(default_factory=list)
    last_outcome: str | None = None

    @property
    def handled_day(self) -> date | None:
        try:
            return date.fromisoformat(self.handled) if self.handled else None
        except ValueError:
            return None

    def to_json(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "handled": self.handled,
            "handled_at": self.handled_at,
            "last_trigger": self.last_trigger,
            "last_projects": self.last_projects,
            "last_outcome": self.last_outcome,
        }

    @classmethod
    def from_json(cls, data: object) -> ScheduleState:
        if not isinstance(data, dict):
            return cls()

        def text(key: str) -> str | None:
            value = data.get(key)
            return value if isinstance(value, str) else None

        projects = data.get("last_projects")
        return cls(
            at=text("at"),
            handled=text("handled"),
            handled_at=text("handled_at"),
            last_trigger=text("last_trigger"),
            last_projects=[str(p) for p in projects] if isinstance(projects, list) else [],
            last_outcome=text("last_outcome"),
        )


@dataclass(frozen=True)
class Decision:
    """What a tick does at `now`, and why (before it looks for active projects)."""

    action: TickAction
    why: str
    window: datetime | None = None  # the window this tick is about
    trigger: RunTrigger | None = None
    handle_day: date | None = None  # the day to mark handled
    next_window: datetime | None = None


def decide(now: datetime, at: time | None, state: ScheduleState, tz: tzinfo | None = None) -> Decision:
    """The schedule's table of rules, for one tick at `now` (an aware datetime)."""
    if at is None:
        return Decision(TickAction.NO_SCHEDULE, "no schedule: DREAM_AT is not set")
    window = latest_window(now, at, tz)
    handled = state.handled_day
    at_text = format_at(at)
    if state.at != at_text:
        # Turned on, or moved: the window already past is not recovered (the person just chose
        # the time; a run now would surprise them). Days already handled stay handled.
        day = max(window.date(), handled) if handled else window.date()
        was = f"moved from {state.at}" if state.at else "turned on"
        return Decision(
            TickAction.BASELINE,
            f"schedule {was} to {at_text}: the window of {window.date()} is past and not recovered",
            window=window,
            handle_day=day,
            next_window=window_on(day + timedelta(days=1), at, tz),
        )
    if handled is not None and window.date() <= handled:
        ahead = window_on(handled + timedelta(days=1), at, tz)
        return Decision(
            TickAction.WAIT,
            f"the window of {handled} was handled; the next is {ahead.isoformat(timespec='minutes')}",
            window=window,
            next_window=ahead,
        )
    late = now - window
    on_time = late <= timedelta(seconds=defaults.SCHEDULE_ON_TIME_SECONDS)
    trigger = RunTrigger.SCHEDULED if on_time else RunTrigger.RECOVERED
    if on_time:
        why = f"the window {window.isoformat(timespec='minutes')} is now"
    else:
        missed = (window.date() - handled).days if handled else 1
        newest = window.isoformat(timespec="minutes")
        if missed > 1:
            assert handled is not None
            first = handled + timedelta(days=1)
            why = (
                f"{missed} windows were missed since {first}; the newest, {newest}, is recovered "
                f"once ({_ago(late)} late)"
            )
        else:
            why = f"the window {newest} was missed ({_ago(late)} late)"
    return Decision(
        TickAction.RUN,
        why,
        window=window,
        trigger=trigger,
        handle_day=window.date(),
        next_window=window_on(window.date() + timedelta(days=1), at, tz),
    )


def next_check(now: datetime, decision: Decision) -> datetime:
    """When the daemon looks again: at the next window, and at most every 15 minutes before it
    (a timer can wake hours late after the machine sleeps; a short step notices soon after)."""
    step = now + timedelta(seconds=defaults.SCHEDULE_CHECK_SECONDS)
    if decision.next_window is None:
        return step  # no schedule: look again for DREAM_AT being set
    return min(step, decision.next_window)


def _ago(delta: timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    if minutes < 120:
        return f"{minutes} min"
    hours = minutes // 60
    return f"{hours} h" if hours < 48 else f"{hours // 24} days"
