"""Every test runs with HOME and CLAUDE_CONFIG_DIR in temporary directories.

The guard fails the test loudly if the real home's Claude or OpenClaw state changed while it ran.

The figures some tests measure (F1, precision, false-positive rates) go through the `report` fixture:
they are written to `<basetemp>/dream-figures.txt` and printed in a "dream figures" section at the end
of the run only when asked (`-v`, `-s` or `DREAM_TEST_REPORT=1`), so `pytest -q` stays quiet.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

FIGURES_FILE = "dream-figures.txt"
_FIGURES = pytest.StashKey[list[str]]()
_FIGURES_PATH = pytest.StashKey[Path]()


def _show_figures(config: pytest.Config) -> bool:
    return (
        int(config.getoption("verbose")) > 0
        or config.getoption("capture", default=None) == "no"
        or os.environ.get("DREAM_TEST_REPORT", "") not in ("", "0")
    )


@pytest.fixture
def report(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], None]:
    """Record a figure the test measured (the test still asserts on it): into the figures file, and
    into the end-of-run section when asked. Prints nothing during the run."""
    config = request.config
    path = config.stash[_FIGURES_PATH] = tmp_path_factory.getbasetemp() / FIGURES_FILE

    def record(text: str) -> None:
        lines = text.strip("\n").splitlines() or [""]
        config.stash.setdefault(_FIGURES, []).extend(lines)
        with path.open("a", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")

    return record


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    figures = config.stash.get(_FIGURES, [])
    if figures and _show_figures(config):
        terminalreporter.section("dream figures")
        for line in figures:
            terminalreporter.write_line(line)
        terminalreporter.write_line(f"(kept in {config.stash[_FIGURES_PATH]})")


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
