"""The `.dream-config` file (KEY=VALUE lines) merged under command-line overrides."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from dream import defaults
from dream.errors import UsageError


@dataclass(frozen=True)
class Config:
    memory_type: str = defaults.DEFAULT_MEMORY_TYPE
    min_hours: float = defaults.MIN_HOURS
    min_sessions: int = defaults.MIN_SESSIONS
    window_days: int = defaults.WINDOW_DAYS
    stale_days: int = defaults.STALE_DAYS
    max_changes: int = defaults.MAX_CHANGES_PER_RUN
    review_queue_max: int = defaults.REVIEW_QUEUE_MAX
    policies: dict[str, str] = field(default_factory=lambda: dict(defaults.CATEGORY_POLICY_DEFAULT))
    # DREAM_PINNED=text|text: entries holding one of these are pinned: a revision waits for
    # review and prune never archives them.
    pinned: tuple[str, ...] = ()
    # The agent pass (DESIGN.md §9): the packet's token budget, the unattended consolidator.
    max_tokens: int = defaults.MAX_TOKENS
    consolidator: str = defaults.CONSOLIDATOR
    claude_bin: str = defaults.CLAUDE_BIN
    # The nightly schedule (DREAM_AT=HH:MM, local time); None: no schedule.
    at: str | None = defaults.SCHEDULE_AT


_INT_KEYS = {
    "DREAM_MIN_SESSIONS": "min_sessions",
    "DREAM_WINDOW_DAYS": "window_days",
    "DREAM_STALE_DAYS": "stale_days",
    "DREAM_MAX_CHANGES": "max_changes",
    "DREAM_REVIEW_MAX": "review_queue_max",
    "DREAM_MAX_TOKENS": "max_tokens",
}
# Also read from the environment (over the file): a cron line or a service sets them there.
_ENV_KEYS = ("DREAM_MAX_TOKENS", "DREAM_CONSOLIDATOR", "DREAM_CLAUDE_BIN", "DREAM_AT")


def read_config_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines; blank lines and `#` comments ignored; a missing file is an empty config."""
    try:
        from dream.fsio import read_regular

        text = read_regular(path)[0].decode("utf-8", "replace")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise UsageError(f"cannot read config {path}: {exc.strerror}") from exc
    values: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        values[key.strip()] = value.strip().strip('"').strip("'")
    return values


def load_config(path: Path, overrides: dict[str, object] | None = None) -> Config:
    values = read_config_file(path)
    values.update({key: os.environ[key] for key in _ENV_KEYS if os.environ.get(key)})
    kwargs: dict[str, object] = _consolidator_settings(values)
    if "DREAM_MEMORY_TYPE" in values:
        kwargs["memory_type"] = values["DREAM_MEMORY_TYPE"]
    if "DREAM_MIN_HOURS" in values:
        kwargs["min_hours"] = _number(values, "DREAM_MIN_HOURS", float)
    for key, attr in _INT_KEYS.items():
        if key in values:
            kwargs[attr] = _number(values, key, int)
    policies = dict(defaults.CATEGORY_POLICY_DEFAULT)
    for category in defaults.CATEGORIES:
        key = f"DREAM_POLICY_{category.upper()}"
        if key in values:
            policy = values[key].lower()
            if policy not in ("auto", "review", "off"):
                raise UsageError(f"{path}: {key} must be auto, review or off, not {values[key]!r}")
            policies[category] = policy
    kwargs["policies"] = policies
    if values.get("DREAM_AT", "").strip():
        from dream.schedule import format_at, parse_at

        kwargs["at"] = format_at(parse_at(values["DREAM_AT"]))
    if values.get("DREAM_PINNED"):
        kwargs["pinned"] = tuple(p.strip() for p in values["DREAM_PINNED"].split("|") if p.strip())
    for key, value in (overrides or {}).items():
        if value is not None:
            kwargs[key] = value
    config = Config(**kwargs)  # type: ignore[arg-type]
    if config.consolidator not in defaults.CONSOLIDATORS:
        raise UsageError(
            f"consolidator must be one of {', '.join(defaults.CONSOLIDATORS)}, not {config.consolidator!r}"
        )
    if config.max_tokens < 1000:
        raise UsageError(f"DREAM_MAX_TOKENS must be at least 1000, not {config.max_tokens}")
    if config.memory_type not in defaults.MEMORY_TYPES:
        raise UsageError(
            f"memory type must be one of {', '.join(defaults.MEMORY_TYPES)}, not {config.memory_type!r}"
        )
    return config


def _consolidator_settings(values: dict[str, str]) -> dict[str, object]:
    kwargs: dict[str, object] = {}
    if "DREAM_CONSOLIDATOR" in values:
        kwargs["consolidator"] = values["DREAM_CONSOLIDATOR"].lower()
    if "DREAM_CLAUDE_BIN" in values:
        kwargs["claude_bin"] = values["DREAM_CLAUDE_BIN"]
    return kwargs


def _number(values: dict[str, str], key: str, kind: type[int] | type[float]) -> int | float:
    try:
        return kind(values[key])
    except ValueError as exc:
        raise UsageError(f"config {key}={values[key]!r} is not a number") from exc
