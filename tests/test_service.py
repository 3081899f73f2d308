"""`service install | uninstall | status` (issue 18): the generated files parse, install twice is
once, uninstall leaves nothing, and the command they run really runs dream.

The service managers themselves cannot run here (no user bus, no launchd, no cron daemon): their
commands are stand-ins on PATH that record what dream asked of them (and, for crontab, keep the
table in a file, as `crontab -l` / `crontab -` do). `systemd-analyze verify` is the real one.
"""

from __future__ import annotations

import os
import plistlib
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CALLS = "manager-calls"


def _fake(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)


@pytest.fixture
def managers(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Stand-ins for systemctl, launchctl and crontab; returns the file of their calls."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / CALLS
    table = tmp_path / "crontab.txt"
    for name in ("systemctl", "launchctl"):
        _fake(bin_dir, name, f'echo "{name} $*" >> {calls}\n')
    _fake(
        bin_dir,
        "crontab",
        f'echo "crontab $*" >> {calls}\n'
        f'if [ "$1" = "-l" ]; then\n'
        f'  [ -f {table} ] || {{ echo "no crontab for user" >&2; exit 1; }}; cat {table}\n'
        f'elif [ "$1" = "-" ]; then cat > {table}; fi\n',
    )
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    (isolated_home / ".claude").mkdir(exist_ok=True)
    return calls


def _dream(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dream", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _home_files(home: Path) -> dict[str, bytes]:
    # dream's own state (the schedule's preview reads it) is not the service's.
    return {k: v for k, v in _files(home).items() if not k.startswith(".claude/dream/")}


def test_systemd_unit_and_timer_verify_and_install_twice_is_once(
    managers: Path, isolated_home: Path, tmp_path: Path
) -> None:
    before = _home_files(isolated_home)
    first = _dream("service", "install", "--kind", "systemd")
    assert first.returncode == 0, first.stderr
    units = isolated_home / ".config" / "systemd" / "user"
    unit, timer = units / "dream.service", units / "dream.timer"
    assert "written" in first.stdout and unit.is_file() and timer.is_file()
    snapshot = _home_files(isolated_home)
    second = _dream("service", "install", "--kind", "systemd")
    assert second.returncode == 0 and second.stdout.count("unchanged:") == 2
    assert _home_files(isolated_home) == snapshot
    calls = managers.read_text().splitlines()
    assert calls.count("systemctl --user enable --now dream.timer") == 2
    assert "systemctl --user daemon-reload" in calls
    # The schedule is not turned on by installing.
    assert "schedule: off" in second.stdout
    assert not (isolated_home / ".claude" / "skills" / "dream" / ".dream-config").exists()

    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed here; the units' text was checked above")
    verify = subprocess.run(
        ["systemd-analyze", "verify", str(unit), str(timer)], capture_output=True, text=True, timeout=60
    )
    assert verify.returncode == 0, verify.stderr
    # The check can fail: a unit with a relative ExecStart does.
    broken = tmp_path / "broken" / "dream.service"
    broken.parent.mkdir()
    broken.write_text(unit.read_text().replace(f'ExecStart="{sys.executable}"', 'ExecStart="python"'))
    bad = subprocess.run(
        ["systemd-analyze", "verify", str(broken)], capture_output=True, text=True, timeout=60
    )
    assert bad.returncode != 0

    gone = _dream("service", "uninstall", "--kind", "systemd")
    assert gone.returncode == 0, gone.stderr
    assert _home_files(isolated_home) == before
    assert "systemctl --user disable --now dream.timer" in managers.read_text()


def test_the_systemd_unit_runs_dream_for_this_claude_dir(managers: Path, isolated_home: Path) -> None:
    assert _dream("service", "install", "--kind", "systemd", "--no-start").returncode == 0
    assert not managers.exists()  # --no-start: the manager was not asked
    text = (isolated_home / ".config" / "systemd" / "user" / "dream.service").read_text()
    exec_start = next(line for line in text.splitlines() if line.startswith("ExecStart="))
    environment = next(line for line in text.splitlines() if line.startswith("Environment="))
    argv = shlex.split(exec_start.removeprefix("ExecStart="))
    env = dict(item.split("=", 1) for item in shlex.split(environment.removeprefix("Environment=")))
    assert argv[-1] == "daemon" and argv[argv.index("--claude-dir") + 1] == str(isolated_home / ".claude")
    assert "Nice=19" in text and "IOSchedulingClass=idle" in text
    done = subprocess.run(
        [*argv, "--once", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"HOME": str(isolated_home), **env},
        cwd=isolated_home,
    )
    assert done.returncode == 0, done.stderr
    assert '"action": "no-schedule"' in done.stdout


def test_launchd_plist_parses_and_uninstall_leaves_nothing(managers: Path, isolated_home: Path) -> None:
    before = _home_files(isolated_home)
    assert _dream("service", "install", "--kind", "launchd").returncode == 0
    plist = isolated_home / "Library" / "LaunchAgents" / "dream.daemon.plist"
    data = plistlib.loads(plist.read_bytes())
    assert data["Label"] == "dream.daemon"
    assert data["ProgramArguments"][0] == sys.executable and data["ProgramArguments"][-1] == "daemon"
    assert data["KeepAlive"] is True and data["RunAtLoad"] is True
    assert data["ProcessType"] == "Background" and data["LowPriorityIO"] is True and data["Nice"] == 19
    assert data["StandardOutPath"].endswith("dream/daemon.log")
    copy = plist.read_bytes()
    assert _dream("service", "install", "--kind", "launchd").returncode == 0
    assert plist.read_bytes() == copy
    assert any(line.startswith("launchctl bootstrap gui/") for line in managers.read_text().splitlines())
    assert _dream("service", "uninstall").returncode == 0  # every kind found
    assert _home_files(isolated_home) == before
    assert "launchctl bootout" in managers.read_text()


def test_cron_line_once_beside_the_persons_own_and_removed_cleanly(
    managers: Path, isolated_home: Path, tmp_path: Path
) -> None:
    table = tmp_path / "crontab.txt"
    mine = "0 9 * * 1 /usr/bin/backup --weekly  # the person's own\n"
    table.write_text(mine)
    assert _dream("service", "install", "--kind", "cron").returncode == 0
    assert _dream("service", "install", "--kind", "cron").returncode == 0
    lines = table.read_text().splitlines()
    ours = [line for line in lines if "dream-daemon" in line]
    assert len(ours) == 1 and lines[0] == mine.rstrip("\n")
    assert ours[0].startswith("*/15 * * * * ") and f"--claude-dir {isolated_home / '.claude'}" in ours[0]
    status = _dream("service", "status")
    assert "service: cron" in status.stdout
    assert _dream("service", "uninstall", "--kind", "cron").returncode == 0
    assert table.read_text() == mine


def test_the_cron_line_runs_dream(managers: Path, isolated_home: Path, tmp_path: Path) -> None:
    assert _dream("service", "install", "--kind", "cron").returncode == 0
    line = next(x for x in (tmp_path / "crontab.txt").read_text().splitlines() if "dream-daemon" in x)
    command = line.split(" ", 5)[5].split(" # dream-daemon")[0]
    # One tick instead of the loop: the same command with `--once`.
    once = command.replace(" daemon >>", " daemon --once >>")
    done = subprocess.run(
        ["sh", "-c", once], capture_output=True, text=True, timeout=120, env={"HOME": str(isolated_home)}
    )
    assert done.returncode == 0, done.stderr
    assert (
        "no schedule: DREAM_AT is not set" in (isolated_home / ".claude" / "dream" / "daemon.log").read_text()
    )


def test_service_status_names_the_service_the_schedule_and_the_next_window(
    managers: Path, isolated_home: Path
) -> None:
    off = _dream("service", "status")
    assert "service: not installed" in off.stdout and "schedule: off" in off.stdout
    assert _dream("service", "install", "--kind", "systemd", "--no-start").returncode == 0
    on = _dream("service", "status", "--json", env={"DREAM_AT": "03:00", "TZ": "UTC"})
    data = __import__("json").loads(on.stdout)
    assert data["installed"] == ["systemd"] and data["at"] == "03:00"
    assert data["next_window"] is not None and data["next_window"].endswith("03:00+00:00")


def test_service_install_without_a_manager_says_so(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (isolated_home / ".claude").mkdir(exist_ok=True)
    monkeypatch.setenv("PATH", "/nonexistent")
    done = subprocess.run(
        [sys.executable, "-m", "dream", "service", "install", "--kind", "cron"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "crontab not found" in done.stderr


def test_installing_the_service_never_turns_the_schedule_on(managers: Path, isolated_home: Path) -> None:
    for kind in ("systemd", "launchd", "cron"):
        assert _dream("service", "install", "--kind", kind).returncode == 0
    tick = _dream("daemon", "--once", "--json")
    assert __import__("json").loads(tick.stdout)["action"] == "no-schedule"
    assert not (isolated_home / ".claude" / "skills" / "dream" / ".dream-config").exists()
    assert _dream("service", "uninstall").returncode == 0
    assert _dream("service", "status").stdout.startswith("service: not installed")
