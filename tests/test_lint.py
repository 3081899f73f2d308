"""The code stays as clean as the standards ask: ruff everywhere, mypy --strict on dream/."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# runs ruff and mypy.
# Left out of the inner loop (`pytest -m "not slow"`); CI runs it.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
TARGETS = ["dream", "tests", "scripts", "bench", "install.py", "hooks/should_dream.py"]


def _tool(name: str) -> str:
    found = Path(sys.executable).with_name(name)
    if found.exists():
        return str(found)
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (it comes with the test extra: pip install -e '.[test]')")
    return path


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)


def test_ruff_check_is_clean() -> None:
    done = _run(_tool("ruff"), "check", *TARGETS)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_is_applied() -> None:
    done = _run(_tool("ruff"), "format", "--check", *TARGETS)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_is_clean() -> None:
    done = _run(sys.executable, "-m", "mypy", "--strict", "dream")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_is_clean_on_the_hooks_body() -> None:
    """The Stop hook's body is a real module (hooks/should_dream.py), checked like the package."""
    done = _run(sys.executable, "-m", "mypy", "--strict", "hooks/should_dream.py")
    assert done.returncode == 0, done.stdout + done.stderr
