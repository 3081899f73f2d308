"""The command line: parses options, calls the library, prints. Nothing else lives here.

Heavy modules are imported inside the commands so `--help` and the hook path stay fast.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

import click

from dream.errors import DreamError, ExitCode

if TYPE_CHECKING:
    from dream.api import Session

F = TypeVar("F", bound=Callable[..., Any])

GC_THRESHOLDS = (100_000, 50, 100)
_COMMON = ("claude_dir", "memory_type", "project", "dry_run", "as_json", "since", "verbose")


def common_options(func: F) -> F:
    """The global options, accepted before or after the command name (`dream signals --json`)."""
    options = [
        click.option(
            "--claude-dir",
            type=click.Path(path_type=Path),
            help="Claude config dir (default $CLAUDE_CONFIG_DIR or ~/.claude).",
        ),
        click.option(
            "--memory-type", type=click.Choice(["native", "openclaw", "project-root"]), help="Memory layout."
        ),
        click.option(
            "--project",
            type=click.Path(path_type=Path),
            help="Project (project-root) or workspace (openclaw); native: limit to this project.",
        ),
        click.option(
            "--dry-run", is_flag=True, default=None, help="Plan and show the change; write nothing."
        ),
        click.option("--json", "as_json", is_flag=True, default=None, help="Machine-readable output."),
        click.option("--since", help="Window: a number of days or a date YYYY-MM-DD (default 7 days)."),
        click.option(
            "--verbose",
            "-v",
            is_flag=True,
            default=None,
            help="Every memory dir's whole report (text output).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _settings(ctx: click.Context, local: dict[str, Any]) -> dict[str, Any]:
    merged = dict(ctx.find_root().params)
    for key in _COMMON:
        if local.get(key) is not None:
            merged[key] = local[key]
    return merged


# What dream keeps between runs in its state dir, only to be faster.
_STATE_CACHES = ("dream.regex_cache_file", "dream.clean_texts_file", "dream.statement_cache")


def _run_guarded(func: F) -> F:
    """Map the library's errors to exit codes with a one-line message on stderr."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            code = func(*args, **kwargs)
        except DreamError as exc:
            click.echo(f"dream: {exc}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("dream: interrupted; memory left as it was", err=True)
            sys.exit(ExitCode.INTERRUPTED)
        finally:
            # Each cache `_session` attached, where it let them write.
            for name in _STATE_CACHES:
                cache = sys.modules.get(name)
                if cache is not None:
                    cache.save()
        sys.exit(int(code or ExitCode.OK))

    return wrapper  # type: ignore[return-value]


def _session(settings: dict[str, Any], *, writes_state: bool = False) -> Session:
    """The library's session; first the compiled-pattern cache, which the imports below already use.

    Only a command that writes dream's state anyway (`writes_state`, never in a dry run) may write
    the cache: `plan`, `status` and every dry run leave the state dir as they found it.
    """
    from dream import regex_cache_file
    from dream.paths import resolve_paths

    paths = None
    with contextlib.suppress(DreamError, RuntimeError):  # Session.open below says what is wrong
        paths = resolve_paths(settings.get("claude_dir"))
    writable = writes_state and not settings.get("dry_run")
    regex_cache_file.attach(paths.regex_cache_file if paths else None, writable=writable)
    from dream import clean_texts_file, statement_cache

    clean_texts_file.attach(paths.clean_texts_file if paths else None, writable=writable)
    statement_cache.attach(paths.statements_file if paths else None, writable=writable)
    from dream.api import Session

    return Session.open(
        claude_dir=settings.get("claude_dir"),
        memory_type=settings.get("memory_type"),
        project=settings.get("project"),
        since=settings.get("since"),
    )


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@common_options
@click.version_option(package_name="dream")
@click.pass_context
def main(ctx: click.Context, /, **_: Any) -> None:
    """dream: consolidate what you told your coding agent into its Markdown memory.

    Bare `dream` runs all four phases (`run`).
    """
    # A run builds many small objects and few cycles; the default thresholds make the cyclic
    # collector rescan them over and over (a third of a warm gather). mypy does the same.
    gc.set_threshold(*GC_THRESHOLDS)
    if ctx.invoked_subcommand is None:
        ctx.invoke(run)


def _emit(result: Any, settings: dict[str, Any]) -> int:
    """Print a command's typed result (text or JSON) and return its exit code."""
    from dream.render import render

    out = render(result, as_json=bool(settings.get("as_json")), verbose=bool(settings.get("verbose")))
    if out.stdout:  # one write: thousands of echo calls cost a tenth of a warm run
        click.echo(out.stdout)
    if out.stderr:
        click.echo(out.stderr, err=True)
    return int(result.exit_code)


@main.command()
@common_options
@click.pass_context
@_run_guarded
def signals(ctx: click.Context, /, **local: Any) -> int:
    """GATHER SIGNAL: print the signals found in the window's transcripts."""
    settings = _settings(ctx, local)
    session = _session(settings, writes_state=True)
    return _emit(session.signals_result(write_cache=not settings.get("dry_run")), settings)


@main.command()
@common_options
@click.option(
    "--prune-missing-projects",
    is_flag=True,
    help="Archive the memory of projects whose folder and transcripts no longer exist.",
)
@click.option(
    "--consolidator",
    type=click.Choice(["claude", "none"]),
    help="Who judges the candidates when nobody is watching: your own Claude Code (claude -p, no tools) "
    "or none (the deterministic pass). Default $DREAM_CONSOLIDATOR, else none.",
)
@click.option("--deterministic", is_flag=True, help="Skip the consolidator for this run.")
@click.pass_context
@_run_guarded
def run(
    ctx: click.Context,
    /,
    prune_missing_projects: bool = False,
    consolidator: str | None = None,
    deterministic: bool = False,
    **local: Any,
) -> int:
    """Run all four phases: orient, gather, consolidate, prune & index, then verify."""
    settings = _settings(ctx, local)
    session = _session(settings, writes_state=True)
    dry_run = bool(settings.get("dry_run"))
    chosen = "none" if deterministic else consolidator
    return _emit(
        session.run(dry_run=dry_run, prune_missing_projects=prune_missing_projects, consolidator=chosen),
        settings,
    )


@main.command()
@common_options
@click.option(
    "--max-tokens",
    type=click.IntRange(min=1000),
    help="Token budget of the packet (default $DREAM_MAX_TOKENS or 60000).",
)
@click.pass_context
@_run_guarded
def plan(ctx: click.Context, /, max_tokens: int | None = None, **local: Any) -> int:
    """The agent pass: print the packet of candidates for the agent to decide on (use --json)."""
    settings = _settings(ctx, local)
    return _emit(_session(settings).plan(max_tokens), settings)


@main.command()
@common_options
@click.option(
    "--decisions",
    "decisions",
    required=True,
    type=click.File("rb"),
    help="The decisions document on a plan: a file, or - for stdin.",
)
@click.pass_context
@_run_guarded
def apply(ctx: click.Context, /, decisions: BinaryIO, **local: Any) -> int:
    """The agent pass: check the agent's decisions on a plan, then run with the accepted ones."""
    settings = _settings(ctx, local)
    if settings.get("dry_run"):
        from dream.errors import UsageError

        raise UsageError(
            "apply writes memory; preview a plan with `dream --dry-run run` or `dream plan --json`"
        )
    return _emit(_session(settings, writes_state=True).apply_decisions(decisions.read()), settings)


@main.command()
@common_options
@click.pass_context
@_run_guarded
def orient(ctx: click.Context, /, **local: Any) -> int:
    """ORIENT: memory files, sizes against Claude Code's limits, relative dates, contradictions."""
    settings = _settings(ctx, local)
    return _emit(_session(settings).orient(), settings)


@main.command()
@common_options
@click.pass_context
@_run_guarded
def verify(ctx: click.Context, /, **local: Any) -> int:
    """VERIFY: check every memory dir; exit 4 naming each failed check."""
    settings = _settings(ctx, local)
    return _emit(_session(settings).verify(), settings)


@main.command()
@common_options
@click.pass_context
@_run_guarded
def status(ctx: click.Context, /, **local: Any) -> int:
    """Last runs, the pending flag, sessions and hours since the last dream against the thresholds."""
    settings = _settings(ctx, local)
    return _emit(_session(settings).status(), settings)


@main.command()
@common_options
@click.pass_context
@_run_guarded
def review(ctx: click.Context, /, **local: Any) -> int:
    """List proposals waiting for review, with why each waits."""
    settings = _settings(ctx, local)
    return _emit(_session(settings).review_items(), settings)


@main.command()
@click.argument("ids", nargs=-1, required=True)
@common_options
@click.pass_context
@_run_guarded
def approve(ctx: click.Context, /, ids: tuple[str, ...], **local: Any) -> int:
    """Apply pending proposals by id, through the same safe write path as a run."""
    settings = _settings(ctx, local)
    return _emit(_session(settings).approve(list(ids)), settings)


@main.command()
@click.argument("ids", nargs=-1, required=True)
@common_options
@click.pass_context
@_run_guarded
def reject(ctx: click.Context, /, ids: tuple[str, ...], **local: Any) -> int:
    """Drop pending proposals by id; they are not proposed again."""
    settings = _settings(ctx, local)
    return _emit(_session(settings).reject(list(ids)), settings)


@main.command()
@click.argument("run_id", required=False)
@common_options
@click.pass_context
@_run_guarded
def restore(ctx: click.Context, /, run_id: str | None, **local: Any) -> int:
    """Put memory files back as they were before the last run (or before RUN_ID)."""
    settings = _settings(ctx, local)
    return _emit(_session(settings).restore(run_id), settings)


@main.command()
@click.option("--once", is_flag=True, help="One tick: what the daemon would do now and why (nothing run).")
@click.option(
    "--execute",
    is_flag=True,
    help="With --once: dispatch the current window (a handled day never runs again).",
)
@click.option(
    "--now", "now_text", metavar="ISO-TIME", help="The time to decide at (tests; what would happen at …)."
)
@click.option(
    "--at", "at_text", metavar="HH:MM", help="The nightly time for this invocation (default $DREAM_AT)."
)
@common_options
@click.pass_context
@_run_guarded
def daemon(
    ctx: click.Context,
    /,
    once: bool = False,
    execute: bool = False,
    now_text: str | None = None,
    at_text: str | None = None,
    **local: Any,
) -> int:
    """The nightly schedule: dream at DREAM_AT for the projects active in the last 24 hours.

    Without --once, a loop (what the user service runs); one loop per Claude dir.
    """
    from dream.errors import UsageError

    settings = _settings(ctx, local)
    if execute and not once:
        raise UsageError("--execute goes with --once (the loop always executes)")
    if now_text is not None and not once:
        raise UsageError("--now goes with --once")
    session = _session(settings)
    if once:
        from dream.daemon import parse_now

        now = parse_now(now_text) if now_text else None
        return _emit(session.tick(now, execute=execute, at=at_text), settings)
    import signal
    import threading

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    said: list[bool] = []

    def on_tick(result: Any) -> None:
        # Said when something happens, and once at the start; a quiet wait is not logged.
        if str(result.action) != "wait" or not said:
            _emit(result, settings)
            sys.stdout.flush()
            said.append(True)

    code = session.daemon(lambda: _session(settings), on_tick, stop, at=at_text)
    if code == ExitCode.BUSY:
        click.echo(
            f"dream: another dream daemon runs for {session.paths.claude_dir}; this one exits", err=True
        )
        return int(ExitCode.OK)
    return int(code)


@main.group()
def service() -> None:
    """The user service that keeps the daemon running (systemd, launchd or cron)."""


_KIND = click.option(
    "--kind",
    type=click.Choice(["systemd", "launchd", "cron"]),
    help="The service manager (default: this machine's; uninstall: every kind found).",
)
_NO_START = click.option(
    "--no-start", is_flag=True, help="Write or remove the files only; print the manager's commands to run."
)


@service.command("install")
@_KIND
@_NO_START
@common_options
@click.pass_context
@_run_guarded
def service_install(
    ctx: click.Context, /, kind: str | None = None, no_start: bool = False, **local: Any
) -> int:
    """Install the user service (it never turns the schedule on: DREAM_AT does)."""
    from dream.service import ServiceCommand

    settings = _settings(ctx, local)
    return _emit(_session(settings).service(ServiceCommand.INSTALL, kind, start=not no_start), settings)


@service.command("uninstall")
@_KIND
@_NO_START
@common_options
@click.pass_context
@_run_guarded
def service_uninstall(
    ctx: click.Context, /, kind: str | None = None, no_start: bool = False, **local: Any
) -> int:
    """Stop and remove the user service, leaving nothing of it."""
    from dream.service import ServiceCommand

    settings = _settings(ctx, local)
    return _emit(_session(settings).service(ServiceCommand.UNINSTALL, kind, start=not no_start), settings)


@service.command("status")
@common_options
@click.pass_context
@_run_guarded
def service_status(ctx: click.Context, /, **local: Any) -> int:
    """Which service is installed, DREAM_AT, the last handled window and the next one."""
    from dream.service import ServiceCommand

    settings = _settings(ctx, local)
    return _emit(_session(settings).service(ServiceCommand.STATUS), settings)
