"""Every test runs with HOME and CLAUDE_CONFIG_DIR in temporary directories.

The guard fails the test loudly if the real home's Claude or OpenClaw state changed while it ran.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

_REAL_HOME = Path(os.path.expanduser("~"))
_WATCHED = [_REAL_HOME / ".claude", _REAL_HOME / ".openclaw", _REAL_HOME / ".claude.json"]


def _state() -> dict[str, tuple[int, int] | None]:
    state: dict[str, tuple[int, int] | None] = {}
    for path in _WATCHED:
        try:
            info = path.stat()
            state[str(path)] = (info.st_mtime_ns, info.st_size)
        except OSError:
            state[str(path)] = None
        if path.is_dir():
            try:
                for child in os.scandir(path):
                    info = child.stat(follow_symlinks=False)
                    state[child.path] = (info.st_mtime_ns, info.st_size)
            except OSError:
                pass
    return state


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    claude = home / ".claude"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    before = _state()
    yield home
    after = _state()
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    if changed:
        pytest.fail(f"a test wrote outside its temporary home: {changed}", pytrace=False)
