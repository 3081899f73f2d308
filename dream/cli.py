"""The command line: parses options, calls the library, prints. Nothing else lives here.

Heavy modules are imported inside the commands so `--help` and the hook path stay fast.
"""

from __future__ import annotations

import functools
import gc
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from dream.errors import DreamError, ExitCode

if TYPE_CHECKING:
    from dream.api import Session

F = TypeVar("F", bound=Callable[..., Any])

GC_THRESHOLDS = (100_000, 50, 100)
_COMMON = ("claude_dir", "memory_type", "project", "dry_run", "as_json", "since")


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
        sys.exit(int(code or ExitCode.OK))

    return wrapper  # type: ignore[return-value]


def _session(settings: dict[str, Any]) -> Session:
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


@main.command()
@common_options
@click.pass_context
@_run_guarded
def signals(ctx: click.Context, /, **local: Any) -> int:
    """GATHER SIGNAL: print the signals found in the window's transcripts."""
    settings = _settings(ctx, local)
    session = _session(settings)
    found = session.signals(write_cache=not settings.get("dry_run"))
    if settings.get("as_json"):
        lines = [json.dumps(signal.public_json(), ensure_ascii=False) for signal in found]
    else:
        lines = [f"{s.timestamp[:10]} {s.category:<10} {s.confidence:.2f}  {s.text}" for s in found]
    if lines:  # one write: thousands of echo calls cost a tenth of a warm run
        click.echo("\n".join(lines))
    from dream.report import read_summary_line

    click.echo(read_summary_line(session.last_gather, session.last_cached), err=True)
    return ExitCode.OK


@main.command()
@common_options
@click.option(
    "--prune-missing-projects",
    is_flag=True,
    help="Archive the memory of projects whose folder and transcripts no longer exist.",
)
@click.pass_context
@_run_guarded
def run(ctx: click.Context, /, prune_missing_projects: bool = False, **local: Any) -> int:
    """Run all four phases: orient, gather, consolidate, prune & index, then verify."""
    settings = _settings(ctx, local)
    session = _session(settings)
    result = session.run(dry_run=bool(settings.get("dry_run")), prune_missing_projects=prune_missing_projects)
    from dream.report import render_run

    click.echo(render_run(result, as_json=bool(settings.get("as_json"))))
    return result.exit_code


@main.command()
@common_options
@click.pass_context
@_run_guarded
def orient(ctx: click.Context, /, **local: Any) -> int:
    """ORIENT: memory files, sizes against Claude Code's limits, relative dates, contradictions."""
    settings = _settings(ctx, local)
    session = _session(settings)
    reports = session.orient()
    if settings.get("as_json"):
        from dataclasses import asdict

        click.echo(json.dumps([asdict(r) for r in reports], ensure_ascii=False, indent=2))
        return ExitCode.OK
    if not reports:
        click.echo("no memory found")
    for report in reports:
        click.echo(f"== {report.key}  ({report.memory_dir})")
        if report.index:
            idx = report.index
            flag = "  OVER Claude Code's load limit" if idx["over_limit"] else ""
            size = f"{idx['lines']}/{idx['max_lines']} lines, {idx['chars']}/{idx['max_chars']} chars"
            click.echo(f"MEMORY.md: {size}{flag}")
        for item in report.files:
            counts = f"{item['entries']:>5} entries {item['lines']:>6} lines"
            click.echo(f"  {item['file']:<28} {item['kind']:<8} {counts}  {item['modified']}")
        for line in report.relative_dates:
            click.echo(f"  relative date without anchor: {line}")
        for item in report.contradictions:
            click.echo(f"  contradiction on '{item['on']}': {item['a']}  <>  {item['b']}")
        for item in report.claude_md_conflicts:
            click.echo(
                f"  contradicts CLAUDE.md on '{item['on']}' (review; dream never edits CLAUDE.md): "
                f"{item['memory']}  <>  {item['claude_md']}"
            )
        for item in report.unparsed:
            click.echo(f"  cannot parse, left untouched: {item['file']}: {item['error']}")
    return ExitCode.OK


@main.command()
@common_options
@click.pass_context
@_run_guarded
def verify(ctx: click.Context, /, **local: Any) -> int:
    """VERIFY: check every memory dir; exit 4 naming each failed check."""
    settings = _settings(ctx, local)
    results = _session(settings).verify()
    failed = False
    rows = []
    for target, checks in results:
        for check in checks:
            failed = failed or not check.ok
            rows.append({"project": target.key, "check": check.name, "ok": check.ok, "detail": check.detail})
            if not settings.get("as_json"):
                mark = "ok  " if check.ok else "FAIL"
                click.echo(
                    f"{mark} {target.key} {check.name}" + (f": {check.detail}" if check.detail else "")
                )
    if settings.get("as_json"):
        click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
    if failed:
        names = sorted({r["check"] for r in rows if not r["ok"]})
        click.echo(f"dream: verification failed: {', '.join(names)}", err=True)
        return ExitCode.VERIFICATION_FAILED
    return ExitCode.OK


@main.command()
@common_options
@click.pass_context
@_run_guarded
def status(ctx: click.Context, /, **local: Any) -> int:
    """Last runs, the pending flag, sessions and hours since the last dream against the thresholds."""
    settings = _settings(ctx, local)
    info = _session(settings).status()
    if settings.get("as_json"):
        click.echo(json.dumps(info, ensure_ascii=False, indent=2))
        return ExitCode.OK
    thresholds = info["thresholds"]
    click.echo(f"claude dir: {info['claude_dir']}")
    click.echo(
        f"pending flag: {'yes' if info['pending_flag'] else 'no'}"
        + (f" ({', '.join(info['pending_projects'])})" if info["pending_projects"] else "")
    )
    click.echo(f"thresholds: {thresholds['min_hours']} h and {thresholds['min_sessions']} sessions")
    for project in info["projects"]:
        hours = project["hours_since_last_dream"]
        click.echo(
            f"== {project['key']}: last dream {'never' if hours is None else f'{hours} h ago'}, "
            f"{project['sessions_since_last_dream']} sessions since"
        )
        for run in project["last_runs"]:
            click.echo(f"   {run['run_id']} {run['status']} {run['counts']}")
    return ExitCode.OK


@main.command()
@common_options
@click.pass_context
@_run_guarded
def review(ctx: click.Context, /, **local: Any) -> int:
    """List proposals waiting for review, with why each waits."""
    settings = _settings(ctx, local)
    items = _session(settings).review_items()
    if settings.get("as_json"):
        click.echo(json.dumps([{"project": t.key, **d} for t, d in items], ensure_ascii=False, indent=2))
        return ExitCode.OK
    if not items:
        click.echo("nothing waits for review")
    for target, data in items:
        click.echo(f"{data['id']}  {target.key}  {data['action']} {data['file']}: {data['text']}")
        click.echo(f"    why pending: {data.get('why') or ', '.join(data.get('hold', []))}")
    return ExitCode.OK


@main.command()
@click.argument("ids", nargs=-1, required=True)
@common_options
@click.pass_context
@_run_guarded
def approve(ctx: click.Context, /, ids: tuple[str, ...], **local: Any) -> int:
    """Apply pending proposals by id, through the same safe write path as a run."""
    settings = _settings(ctx, local)
    result = _session(settings).approve(list(ids))
    from dream.report import render_run

    click.echo(render_run(result, as_json=bool(settings.get("as_json"))))
    return result.exit_code


@main.command()
@click.argument("ids", nargs=-1, required=True)
@common_options
@click.pass_context
@_run_guarded
def reject(ctx: click.Context, /, ids: tuple[str, ...], **local: Any) -> int:
    """Drop pending proposals by id; they are not proposed again."""
    settings = _settings(ctx, local)
    count = _session(settings).reject(list(ids))
    click.echo(f"rejected {count} proposal(s)")
    return ExitCode.OK


@main.command()
@click.argument("run_id", required=False)
@common_options
@click.pass_context
@_run_guarded
def restore(ctx: click.Context, /, run_id: str | None, **local: Any) -> int:
    """Put memory files back as they were before the last run (or before RUN_ID)."""
    settings = _settings(ctx, local)
    restored = _session(settings).restore(run_id)
    if not restored:
        click.echo("no snapshot to restore")
    for target, files in restored:
        click.echo(f"{target.key}: restored {', '.join(files) or 'nothing'}")
    return ExitCode.OK
