"""Every path dream reads or writes is resolved here (DESIGN.md §2).

Standard library only: the Stop hook mirrors these rules and must start fast.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")
SLUG_MAX = 200


def project_slug(cwd: str | os.PathLike[str]) -> str:
    """Claude Code's folder name for a cwd: every non-alphanumeric character becomes '-'.

    A slug over 200 characters is cut to 200 and gets '-' plus a short hash, so two long
    paths that share a prefix still get distinct folders.
    """
    text = os.fspath(cwd)
    slug = _NOT_ALNUM.sub("-", text)
    if len(slug) > SLUG_MAX:
        import hashlib  # here: loading OpenSSL costs ~6 ms, and most slugs never need it

        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        slug = f"{slug[:SLUG_MAX]}-{digest}"
    return slug


def git_root(cwd: str | os.PathLike[str]) -> Path | None:
    """The canonical root of the git repository holding cwd (worktrees map to the main checkout).

    Walks up looking for `.git` without running git: cheap enough for a hook, and works on
    a folder that no longer has git installed.
    """
    try:
        here = Path(os.path.abspath(cwd))
    except (OSError, ValueError):
        return None
    for folder in (here, *here.parents):
        marker = folder / ".git"
        try:
            if marker.is_dir():
                return folder
            if marker.is_file():
                return _worktree_main_root(marker) or folder
        except OSError:
            return None
    return None


def _worktree_main_root(git_file: Path) -> Path | None:
    # A worktree's `.git` is a file "gitdir: <main>/.git/worktrees/<name>"; its commondir is the
    # main checkout's .git, whose parent is the root Claude Code keys memory by.
    try:
        text = git_file.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    gitdir = Path(text[len("gitdir:") :].strip())
    if not gitdir.is_absolute():
        gitdir = (git_file.parent / gitdir).resolve()
    common = gitdir / "commondir"
    try:
        common_rel = common.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    common_dir = (gitdir / common_rel).resolve()
    return common_dir.parent if common_dir.name == ".git" else None


def resolve_claude_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """`--claude-dir`, else `$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".claude"


@dataclass(frozen=True)
class MemoryPaths:
    """The files of one memory dir and the files dream keeps beside it."""

    memory_dir: Path
    # Where topic files go: the memory dir itself, or `memory/` for openclaw and for a
    # project-root repository that has that folder.
    topic_dir: Path
    index: Path
    archive: Path
    last_dream: Path
    lock: Path
    native_lock: Path

    def backup_dir(self, yyyymmdd: str) -> Path:
        return self.memory_dir.with_name(f"{self.memory_dir.name}-backup-{yyyymmdd}")

    def file(self, rel: str) -> Path:
        """A memory file by its name relative to the memory dir (`facts.md`, `memory/facts.md`)."""
        return self.memory_dir / rel

    def topic(self, name: str) -> Path:
        """A topic file by its base name, where this layout keeps topic files."""
        return self.topic_dir / name


@dataclass(frozen=True)
class Paths:
    claude_dir: Path
    projects_dir: Path
    config_file: Path
    pending_flag: Path
    state_dir: Path
    sessions_seen_dir: Path
    digests_dir: Path
    reports_dir: Path
    review_dir: Path
    snapshots_dir: Path
    plans_dir: Path

    def native_memory_dir(self, key: str) -> Path:
        return project_memory_dir(self.projects_dir / key)

    def memory_key_for_cwd(self, cwd: str) -> str:
        """The project key a session belongs to: its git root's slug, else its own cwd's slug."""
        root = git_root(cwd)
        return project_slug(root if root is not None else cwd)

    def state_key(self, memory_dir: Path) -> str:
        """A stable name for per-memory-dir state kept under the Claude dir."""
        return project_slug(os.path.abspath(memory_dir))

    # dream's own state for one memory dir, under `<claude>/dream/`, never inside the memory dir.

    def review_file(self, memory_dir: Path) -> Path:
        return self.review_dir / f"{self.state_key(memory_dir)}.json"

    def entries_file(self, memory_dir: Path) -> Path:
        """The entry ledger: hashes of the entries a run left, for `verify`'s nothing-lost."""
        return self.state_dir / "entries" / f"{self.state_key(memory_dir)}.json"

    def snapshots_for(self, memory_dir: Path) -> Path:
        return self.snapshots_dir / self.state_key(memory_dir)

    def report_file(self, memory_dir: Path) -> Path:
        return self.reports_dir / f"{self.state_key(memory_dir)}.jsonl"

    def decided_file(self, memory_dir: Path) -> Path:
        """Candidates the agent decided on (DESIGN.md §9): a later run does not redo them."""
        return self.state_dir / "decided" / f"{self.state_key(memory_dir)}.json"

    def plan_file(self, plan_id: str) -> Path:
        """The record of one `plan --json`, which `apply --decisions` checks against."""
        return self.plans_dir / f"{plan_id}.json"

    def digest_pack(self, folder: str) -> Path:
        """The digest cache of one evidence folder (`projects/<slug>`, or a layout's own name)."""
        return self.digests_dir / f"{folder}.json"

    def seen_dir(self, key: str) -> Path:
        """Sessions the Stop hook counted for a project since its last dream."""
        return self.sessions_seen_dir / key

    @property
    def pending_lock(self) -> Path:
        return self.state_dir / "pending.lock"

    # The nightly schedule (`daemon.py`): what it last handled, and its locks.

    @property
    def schedule_file(self) -> Path:
        return self.state_dir / "schedule.json"

    @property
    def schedule_lock(self) -> Path:
        """Held by the tick that dispatches a window: two daemons never claim the same one."""
        return self.state_dir / "schedule.lock"

    @property
    def daemon_lock(self) -> Path:
        """Held by the daemon loop for its life: one loop per Claude dir."""
        return self.state_dir / "daemon.lock"

    @property
    def daemon_log(self) -> Path:
        """Where the user service sends the daemon's output."""
        return self.state_dir / "daemon.log"

    @property
    def regex_cache_file(self) -> Path:
        """The compiled rule patterns (`regex_cache.py`): one file per interpreter build."""
        import zlib

        build = zlib.crc32(sys.version.encode())
        return self.state_dir / f"regex-cache-{sys.implementation.cache_tag}-{build:08x}.bin"

    @property
    def clean_texts_file(self) -> Path:
        """The hashes of memory texts already found free of secrets (`clean_texts_file.py`)."""
        return self.state_dir / "clean-texts.bin"

    @property
    def statements_file(self) -> Path:
        """What the analysis made of each memory entry, by a hash of its words (`statement_cache.py`)."""
        return self.state_dir / "statements.bin"

    def session_folders(self, project_folder: Path) -> tuple[Path, Path]:
        """Where a project folder's transcripts are: the folder, and `sessions/` (older docs)."""
        return project_folder, project_folder / "sessions"


def resolve_paths(claude_dir: str | os.PathLike[str] | None = None) -> Paths:
    claude = resolve_claude_dir(claude_dir)
    state = claude / "dream"
    return Paths(
        claude_dir=claude,
        projects_dir=claude / "projects",
        config_file=claude / "skills" / "dream" / ".dream-config",
        pending_flag=claude / ".dream-pending",
        state_dir=state,
        sessions_seen_dir=state / "sessions-seen",
        digests_dir=state / "digests",
        reports_dir=state / "reports",
        review_dir=state / "review",
        snapshots_dir=state / "snapshots",
        plans_dir=state / "plans",
    )


@dataclass(frozen=True)
class ServicePaths:
    """Where the user service's files go (`service.py`), in the person's home."""

    systemd_unit: Path
    systemd_timer: Path
    launchd_plist: Path


def resolve_service_paths(home: Path | None = None) -> ServicePaths:
    """systemd: `$XDG_CONFIG_HOME/systemd/user/` (default `~/.config`); launchd: `~/Library/LaunchAgents/`."""
    from dream import defaults

    base = home or Path.home()
    config = os.environ.get("XDG_CONFIG_HOME")
    units = (Path(config) if config else base / ".config") / "systemd" / "user"
    name = defaults.SERVICE_NAME
    return ServicePaths(
        systemd_unit=units / f"{name}.service",
        systemd_timer=units / f"{name}.timer",
        launchd_plist=base / "Library" / "LaunchAgents" / f"{defaults.LAUNCHD_LABEL}.plist",
    )


def memory_paths(memory_dir: Path, *, topics_in_subdir: bool = False) -> MemoryPaths:
    """Files of a memory dir. `memory_dir` holds MEMORY.md in every layout; topic files sit beside it
    or, where the layout says so, in its `memory/` folder (see `dream.layouts`)."""
    topic_dir = memory_dir / "memory" if topics_in_subdir else memory_dir
    return MemoryPaths(
        memory_dir=memory_dir,
        topic_dir=topic_dir,
        index=memory_dir / "MEMORY.md",
        archive=topic_dir / "archive.md",
        last_dream=last_dream_file(memory_dir),
        lock=memory_dir / ".dream.lock",
        native_lock=memory_dir / ".consolidate-lock",
    )


def has_memory_subdir(memory_dir: Path) -> bool:
    return (memory_dir / "memory").is_dir()


def openclaw_workspace(project: Path | None) -> Path:
    """OpenClaw's workspace: `--project`, else `~/.openclaw/workspace`."""
    return project if project is not None else Path.home() / ".openclaw" / "workspace"


def openclaw_agents_dir(workspace: Path) -> Path:
    """Where OpenClaw keeps its agents' session transcripts, beside the workspace."""
    return workspace.parent / "agents"


def openclaw_logs_dir(workspace: Path) -> Path:
    """OpenClaw's daily logs `memory/YYYY-MM-DD.md` (and dream's topic files beside them)."""
    return workspace / "memory"


def openclaw_agent_sessions(agent_dir: Path) -> Path:
    return agent_dir / "sessions"


def project_memory_dir(project_folder: Path) -> Path:
    """Claude Code's memory dir inside a `projects/<slug>` folder."""
    return project_folder / "memory"


def snapshot_files_dir(snapshot: Path) -> Path:
    """Inside one snapshot: the saved copies of the memory files."""
    return snapshot / "files"


def last_dream_file(memory_dir: Path) -> Path:
    return memory_dir / ".last-dream"


def package_data(name: str) -> Path:
    """A file shipped in the package's `data/` folder (the signal model)."""
    return Path(__file__).parent / "data" / name


def claude_md_file(project_dir: Path) -> Path:
    """The project's CLAUDE.md, which orient compares memory with (never edited)."""
    return project_dir / "CLAUDE.md"


def temp_file(folder: Path, name: str) -> Path:
    """A temporary file in `folder` (same file system as its target, so the rename is atomic)."""
    return folder / name


def is_inside(path: str | os.PathLike[str], root: Path) -> bool:
    try:
        Path(path).resolve().relative_to(root)
    except (ValueError, OSError):
        return False
    return True
