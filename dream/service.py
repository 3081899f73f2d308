"""The user service that keeps the nightly daemon running: `service install | uninstall | status`.

One template per file (`data/service/`), filled with this interpreter and this Claude dir:

- systemd (Linux): `~/.config/systemd/user/dream.service` and `dream.timer`; the timer starts the
  service at login and 15 minutes after it stopped.
- launchd (macOS): `~/Library/LaunchAgents/dream.daemon.plist`, `RunAtLoad` and `KeepAlive`.
- cron (elsewhere): one marked line in the user's crontab, every 15 minutes; a second daemon exits
  at once.

Installing is idempotent (twice is once) and never turns the schedule on: that is `DREAM_AT`.
Uninstalling removes exactly what installing wrote. The service manager is called through its
own command (`systemctl --user`, `launchctl`, `crontab`); where it cannot be reached the files
are written and the result says the command to run.
"""

from __future__ import annotations

import enum
import os
import shlex
import shutil
import site
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from string import Template

from dream import defaults
from dream.errors import DreamError, UsageError
from dream.paths import Paths, ServicePaths, package_data
from dream.results import ServiceFile, ServiceResult

CRON_MARKER = "dream-daemon (python -m dream service)"
_MANAGER_TIMEOUT_SECONDS = 30


class ServiceCommand(str, enum.Enum):
    INSTALL = "install"
    UNINSTALL = "uninstall"
    STATUS = "status"

    def __str__(self) -> str:
        return self.value


class ServiceKind(str, enum.Enum):
    SYSTEMD = "systemd"
    LAUNCHD = "launchd"
    CRON = "cron"

    def __str__(self) -> str:
        return self.value


def detect_kind() -> ServiceKind:
    """The service manager this machine has: launchd on macOS, a running systemd, else cron."""
    if sys.platform == "darwin":
        return ServiceKind.LAUNCHD
    if shutil.which("systemctl") and Path("/run/systemd/system").is_dir():
        return ServiceKind.SYSTEMD
    if shutil.which("crontab"):
        return ServiceKind.CRON
    raise UsageError(
        "no service manager found (systemd, launchd or crontab); run `python -m dream daemon` "
        "yourself, or pass --kind"
    )


@dataclass(frozen=True)
class DaemonCommand:
    """What the service runs: this interpreter, this package, this Claude dir."""

    argv: list[str]
    environment: dict[str, str]

    @classmethod
    def for_paths(cls, paths: Paths) -> DaemonCommand:
        argv = [sys.executable, "-m", "dream", "--claude-dir", str(paths.claude_dir), "daemon"]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}  # so `claude` is found unattended
        package_root = str(Path(__file__).resolve().parent.parent)
        if package_root not in _installed_roots():
            env["PYTHONPATH"] = package_root  # run from a checkout, not an installed package
        return cls(argv, env)


def _installed_roots() -> set[str]:
    roots = set(site.getsitepackages())
    roots.add(site.getusersitepackages())
    return {str(Path(r).resolve()) for r in roots}


# -- rendering ---------------------------------------------------------------------------------


def escape(text: str) -> str:
    """XML character data (xml.sax.saxutils would import urllib.request: 10 ms for `status`)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _template(name: str) -> Template:
    return Template(package_data(f"service/{name}").read_text(encoding="utf-8"))


def _systemd_quote(arg: str) -> str:
    # systemd's own quoting: double quotes, backslash escapes; `%` and `$` are its specifiers.
    text = arg.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%").replace("$", "$$")
    return f'"{text}"'


def render_systemd(command: DaemonCommand) -> tuple[str, str]:
    """The unit and the timer."""
    unit = _template("dream.service").substitute(
        exec_start=" ".join(_systemd_quote(a) for a in command.argv),
        environment=" ".join(_systemd_quote(f"{k}={v}") for k, v in sorted(command.environment.items())),
    )
    timer = _template("dream.timer").substitute(unit=f"{defaults.SERVICE_NAME}.service")
    return unit, timer


def render_plist(command: DaemonCommand, log: Path) -> str:
    arguments = "\n".join(f"    <string>{escape(a)}</string>" for a in command.argv)
    environment = "\n".join(
        f"    <key>{escape(k)}</key>\n    <string>{escape(v)}</string>"
        for k, v in sorted(command.environment.items())
    )
    return _template("launchd.plist").substitute(
        label=defaults.LAUNCHD_LABEL, arguments=arguments, environment=environment, log=escape(str(log))
    )


def render_cron_line(command: DaemonCommand, log: Path) -> str:
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(command.environment.items()))
    shell = f"{env} {shlex.join(command.argv)} >>{shlex.quote(str(log))} 2>&1"
    shell = shell.replace("%", "\\%")  # cron turns a bare % into a newline
    return _template("crontab").substitute(command=shell, marker=CRON_MARKER).strip()


# -- install / uninstall / status ---------------------------------------------------------------


def install(paths: Paths, service: ServicePaths, kind: ServiceKind, *, start: bool = True) -> ServiceResult:
    from dream.fsio import make_dirs

    command = DaemonCommand.for_paths(paths)
    result = ServiceResult(ServiceCommand.INSTALL, kind, installed=[str(kind)])
    make_dirs(paths.state_dir, state_root=paths.claude_dir)  # where the daemon's log goes
    if kind == ServiceKind.SYSTEMD:
        unit, timer = render_systemd(command)
        result.files += [_write(service.systemd_unit, unit), _write(service.systemd_timer, timer)]
        name = service.systemd_timer.name
        _manage(result, start, ["systemctl", "--user", "daemon-reload"])
        _manage(result, start, ["systemctl", "--user", "enable", "--now", name])
    elif kind == ServiceKind.LAUNCHD:
        result.files.append(_write(service.launchd_plist, render_plist(command, paths.daemon_log)))
        domain = f"gui/{os.getuid()}"
        _manage(result, start, ["launchctl", "bootout", f"{domain}/{defaults.LAUNCHD_LABEL}"], quiet=True)
        _manage(result, start, ["launchctl", "bootstrap", domain, str(service.launchd_plist)])
    else:
        changed = _crontab_replace(render_cron_line(command, paths.daemon_log))
        result.files.append(ServiceFile("crontab", "written" if changed else "unchanged"))
    result.notes.append(
        "the schedule is off until DREAM_AT=HH:MM is set in "
        f"{paths.config_file} (installing the service never turns it on)"
    )
    return result


def uninstall(
    paths: Paths, service: ServicePaths, kind: ServiceKind | None, *, start: bool = True
) -> ServiceResult:
    """Remove what install wrote; `kind` None removes every kind found."""
    result = ServiceResult(ServiceCommand.UNINSTALL, kind)
    kinds = [kind] if kind is not None else installed_kinds(service)
    for each in kinds:
        if each == ServiceKind.SYSTEMD:
            if service.systemd_timer.exists() or service.systemd_unit.exists():
                _manage(
                    result, start, ["systemctl", "--user", "disable", "--now", service.systemd_timer.name]
                )
                _manage(result, start, ["systemctl", "--user", "stop", service.systemd_unit.name], quiet=True)
            result.files += [_remove(service.systemd_timer), _remove(service.systemd_unit)]
            _manage(result, start, ["systemctl", "--user", "daemon-reload"], quiet=True)
        elif each == ServiceKind.LAUNCHD:
            if service.launchd_plist.exists():
                label = f"gui/{os.getuid()}/{defaults.LAUNCHD_LABEL}"
                _manage(result, start, ["launchctl", "bootout", label], quiet=True)
            result.files.append(_remove(service.launchd_plist))
        elif shutil.which("crontab"):
            result.files.append(ServiceFile("crontab", "removed" if _crontab_replace(None) else "absent"))
    if not kinds:
        result.notes.append("no dream service was installed")
    return result


def installed_kinds(service: ServicePaths) -> list[ServiceKind]:
    found = []
    if service.systemd_unit.exists() or service.systemd_timer.exists():
        found.append(ServiceKind.SYSTEMD)
    if service.launchd_plist.exists():
        found.append(ServiceKind.LAUNCHD)
    if shutil.which("crontab"):
        try:
            if CRON_MARKER in _crontab_read():
                found.append(ServiceKind.CRON)
        except DreamError:
            pass
    return found


def status(service: ServicePaths) -> ServiceResult:
    kinds = installed_kinds(service)
    result = ServiceResult(
        ServiceCommand.STATUS, kinds[0] if kinds else None, installed=[str(k) for k in kinds]
    )
    for path in (service.systemd_unit, service.systemd_timer, service.launchd_plist):
        if path.exists():
            result.files.append(ServiceFile(str(path), "present"))
    return result


# -- helpers -----------------------------------------------------------------------------------


def _write(path: Path, text: str) -> ServiceFile:
    from dream.fsio import atomic_write_text

    try:
        if path.read_text(encoding="utf-8") == text:
            return ServiceFile(str(path), "unchanged")
    except OSError:
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DreamError(f"could not create {path.parent}: {exc.strerror or exc}") from exc
    atomic_write_text(path, text, mode=0o644)
    return ServiceFile(str(path), "written")


def _remove(path: Path) -> ServiceFile:
    try:
        path.unlink()
    except FileNotFoundError:
        return ServiceFile(str(path), "absent")
    except OSError as exc:
        raise DreamError(f"could not remove {path}: {exc.strerror or exc}") from exc
    return ServiceFile(str(path), "removed")


def _manage(result: ServiceResult, start: bool, argv: list[str], *, quiet: bool = False) -> None:
    """Run a service manager command; what could not be run becomes a note with the command."""
    shown = shlex.join(argv)
    if not start:
        if not quiet:
            result.notes.append(f"not started (--no-start): run `{shown}`")
        return
    if shutil.which(argv[0]) is None:
        if not quiet:
            result.notes.append(f"{argv[0]} not found: run `{shown}` where it is")
        return
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=_MANAGER_TIMEOUT_SECONDS, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        result.notes.append(f"`{shown}` failed ({exc}); run it yourself")
        return
    result.ran.append(shown)
    if done.returncode != 0 and not quiet:
        reason = (done.stderr or done.stdout).strip().splitlines()[:1]
        result.notes.append(f"`{shown}` exited {done.returncode}{': ' + reason[0] if reason else ''}")


def _crontab_replace(line: str | None) -> bool:
    """The person's crontab with our marked line replaced by `line` (None: removed), the rest kept as
    it is; whether it changed (an unchanged table is not written)."""
    before = _crontab_read()
    kept = [raw for raw in before.splitlines() if CRON_MARKER not in raw]
    after = "".join(f"{raw}\n" for raw in (kept if line is None else [*kept, line]))
    if after == before:
        return False
    _crontab_write(after)
    return True


def _crontab_read() -> str:
    if shutil.which("crontab") is None:
        raise UsageError("crontab not found: there is no cron here (pass --kind systemd or launchd)")
    done = subprocess.run(
        ["crontab", "-l"], capture_output=True, text=True, timeout=_MANAGER_TIMEOUT_SECONDS, check=False
    )
    if done.returncode != 0:
        if "no crontab" in (done.stderr or "").lower():
            return ""
        raise DreamError(f"crontab -l failed: {(done.stderr or '').strip() or done.returncode}")
    return done.stdout


def _crontab_write(text: str) -> None:
    done = subprocess.run(
        ["crontab", "-"],
        input=text,
        capture_output=True,
        text=True,
        timeout=_MANAGER_TIMEOUT_SECONDS,
        check=False,
    )
    if done.returncode != 0:
        raise DreamError(
            f"crontab - failed: {(done.stderr or '').strip() or done.returncode}; the crontab is as it was"
        )
