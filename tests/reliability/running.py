"""Running dream in a temporary home: the CLI in process and as a subprocess, homes, payloads."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import homefactory as hf
from homefactory import Turn, slug

HERE = Path(__file__).resolve().parent.parent  # tests/
ROOT = HERE.parent
PYTHON = sys.executable
HOOK = ROOT / "hooks" / "should-dream"
FIXTURES = HERE / "fixtures" / "claude-code-2.1.328"
TIMEOUT = 180.0

# ---------------------------------------------------------------------------------------------
# Running dream


def isolated_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of every command: HOME and CLAUDE_CONFIG_DIR inside the temporary home."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "DREAM_"))}
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"), PYTHONDONTWRITEBYTECODE="1")
    env.update(extra)
    return env


def run_dream(
    claude: Path,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = TIMEOUT,
    prefix: tuple[str, ...] = (),
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """`python -m dream --claude-dir CLAUDE ARGS...` as a real subprocess, bounded by `timeout`."""
    return subprocess.run(
        [*prefix, PYTHON, "-m", "dream", "--claude-dir", str(claude), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env if env is not None else isolated_env(claude.parent),
        cwd=str(cwd or claude.parent),
    )


# Many commands in one process: each is `dream.cli.main` with its own captured stdout, stderr and exit
# code, exactly what `python -m dream ARGS` prints; one interpreter start instead of one per command.
DRIVER = r"""
import contextlib, io, json, sys, traceback
from dream.cli import main
results = []
for args in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main.main(args=args, prog_name="dream", standalone_mode=True)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:
            traceback.print_exc()
            code = 1
    results.append({"args": args, "code": code, "stdout": out.getvalue(), "stderr": err.getvalue()})
sys.__stdout__.write("\n@@RESULTS@@" + json.dumps(results))
"""


def run_commands(
    claude: Path, commands: list[list[str]], env: dict[str, str], cwd: Path, timeout: float = TIMEOUT
) -> list[dict[str, Any]]:
    """Run `dream --claude-dir CLAUDE <args>` for each args in one subprocess; a result per command, plus
    one for whatever the process itself printed outside them."""
    args = [["--claude-dir", str(claude), *c] for c in commands]
    done = subprocess.run(
        [PYTHON, "-c", DRIVER, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=str(cwd),
    )
    head, _, tail = done.stdout.partition("\n@@RESULTS@@")
    try:
        results: list[dict[str, Any]] = json.loads(tail)
    except ValueError:
        results = [{"args": a, "code": None, "stdout": "", "stderr": ""} for a in args]
    results.append({"args": ["(process)"], "code": done.returncode, "stdout": head, "stderr": done.stderr})
    return results


def now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def day(days_ago: int) -> str:
    return (now().date() - timedelta(days=days_ago)).isoformat()


@dataclass
class Home:
    """A temporary Claude home with one project, its memory dir and its transcripts."""

    root: Path

    def __post_init__(self) -> None:
        self.home = self.root / "home"
        self.claude = self.home / ".claude"
        self.cwd = self.root / "src" / "app"
        self.cwd.mkdir(parents=True, exist_ok=True)
        self.key = slug(str(self.cwd))
        self.project_dir = self.claude / "projects" / self.key
        self.memory = self.project_dir / "memory"
        self.memory.mkdir(parents=True, exist_ok=True)

    @property
    def env(self) -> dict[str, str]:
        return isolated_env(self.home)

    def dream(
        self, *args: str, timeout: float = TIMEOUT, prefix: tuple[str, ...] = ()
    ) -> subprocess.CompletedProcess[str]:
        return run_dream(self.claude, *args, env=self.env, timeout=timeout, prefix=prefix, cwd=self.root)

    def write(self, name: str, text: str, newline: str = "\n") -> Path:
        path = self.memory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.replace("\n", newline).encode("utf-8"))
        return path

    def session(
        self,
        turns: list[Turn],
        session_id: str | None = None,
        noise: int = 1,
        extra: list[dict[str, Any]] | None = None,
    ) -> Path:
        """A transcript in the real 2.1.328 format, plus `extra` entries (stamped like the others)."""
        path = hf.write_session(self.claude, str(self.cwd), turns, session_id=session_id, noise=noise)
        if extra:
            with open(path, "a", encoding="utf-8") as out:
                for obj in extra:
                    out.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
        return path

    def memory_state(self) -> dict[str, tuple[str, int]]:
        """Every memory file (all but dream's lock and timestamp files): content hash and mode."""
        return tree_state(self.memory, skip={".last-dream", ".consolidate-lock", ".dream.lock"})

    def md_bytes(self) -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in sorted(self.memory.glob("*.md")) if p.is_file()}


def tree_state(root: Path, skip: frozenset[str] | set[str] = frozenset()) -> dict[str, tuple[str, int]]:
    state: dict[str, tuple[str, int]] = {}
    if not root.exists():
        return state
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(dirs + files):
            if name in skip:
                continue
            path = Path(folder) / name
            info = os.lstat(path)
            rel = str(path.relative_to(root))
            if stat.S_ISREG(info.st_mode):
                digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
            elif stat.S_ISLNK(info.st_mode):
                digest = "link:" + os.readlink(path)
            elif stat.S_ISDIR(info.st_mode):
                digest = "dir"
            else:
                digest = "special"
            state[rel] = (digest, stat.S_IMODE(info.st_mode))
    return state


def entry_line(text: str, days_ago: int = 10, sid: str = "0a1b2c3d") -> str:
    d = day(days_ago)
    return f"- [{d}] {text} (source: session {d} {sid}, confidence: high)"


def topic(title: str, entries: list[str], frontmatter: str | None = None) -> str:
    head = f"---\n{frontmatter}\n---\n\n" if frontmatter else ""
    return head + f"# {title}\n\n" + "".join(line + "\n" for line in entries)


def lost_entries(memory_dir: Path, before: set[str]) -> list[str]:
    """Keys of entries in `before` that are neither an entry, nor in archive.md, nor a line of the
    person's curated MEMORY.md (which stays as written, or moves whole into memory-continued.md)."""
    from dream.layouts import memory_paths
    from dream.memory import load_memory, normalise_key

    memory = load_memory(memory_paths(memory_dir, "native"), "native")
    keys = {e.key for e in memory.entries}
    for name in ("MEMORY.md", "memory-continued.md"):
        path = memory_dir / name
        if path.is_file():
            keys |= {
                normalise_key(line.lstrip("-*+ ")) for line in path.read_text("utf-8", "replace").splitlines()
            }
    archive = memory.files.get("archive.md")
    archived = "\n".join(normalise_key(line) for line in archive.lines) if archive else ""
    return sorted(k for k in before if k not in keys and k not in archived)


def entry_keys(memory_dir: Path) -> set[str]:
    from dream.layouts import memory_paths
    from dream.memory import load_memory

    return {e.key for e in load_memory(memory_paths(memory_dir, "native"), "native").entries}


def unparsed(memory_dir: Path) -> dict[str, str]:
    from dream.layouts import memory_paths
    from dream.memory import load_memory

    memory = load_memory(memory_paths(memory_dir, "native"), "native")
    return {f.name: f.error or "" for f in memory.unparsed}
