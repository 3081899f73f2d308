#!/usr/bin/env python3
"""Install dream into a Claude Code config dir: the /dream skill, the Stop and SessionStart hooks.

    python install.py [--claude-dir DIR] [--claude-md] [--dry-run]
    python install.py --uninstall [--claude-dir DIR] [--dry-run]

Run it with the Python that has dream installed (`.venv/bin/python install.py`): its absolute path
is recorded, the hooks start with it (`"/abs/python" -S ".../should-dream"`: no PATH lookup, no
version-manager shim, no site-packages) and the skill calls `"/abs/python" -m dream` with it.

What it touches, and nothing else:
- `<claude>/skills/dream/`: SKILL.md (with that interpreter filled in), hooks/should-dream,
  hooks/session-start, and `.install.json` (what was installed, so --uninstall can undo exactly that);
- `<claude>/settings.json`: one Stop and one SessionStart hook entry, merged in; everything else in
  the file (other hooks, permissions, unknown keys, their order) stays as it was. A copy of the file
  goes to `<claude>/backups/` before every change. A file that is not valid JSON is refused and left
  as it is;
- with --claude-md: `<claude>/CLAUDE.md` gets CLAUDE.md.snippet between markers, once;
- `<claude>/dream/regex-cache-*.bin`: dream's rule patterns, compiled now by the recorded Python so
  that the first run does not compile them (a cache; --uninstall removes it).

--dry-run prints the diff of settings.json (and CLAUDE.md) and the list of the other files it would
write or remove, with their sizes (never their contents), and writes nothing.

Running it again changes nothing. --uninstall removes exactly what it added; when settings.json has
not been changed by anyone else meanwhile, it gets back its original bytes. dream's own state (the
memory, `<claude>/dream/` but its pattern cache, `<claude>/.dream-pending`) is left alone. Standard
library only.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import difflib
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

REPO = os.path.dirname(os.path.abspath(__file__))
HOOK_TIMEOUT_SECONDS = 10
MANIFEST_NAME = ".install.json"
MANIFEST_VERSION = 1
# Hook event -> script in hooks/.
HOOK_SCRIPTS = {"Stop": "should-dream", "SessionStart": "session-start"}
# Files the hook scripts run beside them (should-dream's body).
HOOK_MODULES = ("should_dream.py",)
SKILL_SOURCE = os.path.join(REPO, "skill", "dream", "SKILL.md")
SNIPPET_SOURCE = os.path.join(REPO, "CLAUDE.md.snippet")
# The command as SKILL.md spells it in the repository (and in the plugin form, where nothing is
# substituted); install.py replaces it with the recorded interpreter.
SKILL_COMMAND_PLACEHOLDER = "python3 -m dream"
MARK_BEGIN = "<!-- dream:begin (added by dream's install.py; install.py --uninstall removes it) -->"
MARK_END = "<!-- dream:end -->"


class InstallError(Exception):
    """A refusal: printed as one message, exit status 1, nothing changed."""


# ---------------------------------------------------------------------------------------------
# Where things go


def resolve_claude_dir(explicit: str | None) -> str:
    """`--claude-dir`, else `$CLAUDE_CONFIG_DIR`, else `~/.claude` (absolute)."""
    chosen = explicit or os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join("~", ".claude")
    return os.path.abspath(os.path.expanduser(chosen))


def interpreters(explicit: str | None) -> tuple[str, str]:
    """(python for the CLI, python for the hooks), both absolute, both this interpreter.

    From `sys.executable`, never from PATH: a pyenv/asdf shim on PATH costs ~80 ms per hook. The
    hooks run with -S and need no site-packages, so they get the fully resolved binary. The CLI needs
    dream importable: inside a virtual environment the venv's own `bin/python` is kept (resolving
    that symlink would leave the venv and its packages behind); elsewhere it is resolved too.
    """
    if explicit:
        path = os.path.abspath(os.path.expanduser(explicit))
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise InstallError(f"--python {explicit}: not an executable file.")
        return path, os.path.realpath(path)
    exe = sys.executable
    if not exe or not os.path.isabs(exe):
        raise InstallError("cannot tell which Python runs install.py; pass --python /abs/path/to/python.")
    in_venv = sys.prefix != getattr(sys, "base_prefix", sys.prefix)
    cli = os.path.abspath(exe) if in_venv else os.path.realpath(exe)
    return cli, os.path.realpath(exe)


def shell_quote(path: str) -> str:
    """Double-quoted for the POSIX shell Claude Code runs hook commands with."""
    escaped = "".join("\\" + c if c in '"\\$`' else c for c in path)
    return f'"{escaped}"'


@dataclass(frozen=True)
class Layout:
    claude_dir: str
    skill_dir: str
    hooks_dir: str
    settings: str
    claude_md: str
    manifest: str
    backups_dir: str

    @classmethod
    def of(cls, claude_dir: str) -> Layout:
        skill = os.path.join(claude_dir, "skills", "dream")
        return cls(
            claude_dir=claude_dir,
            skill_dir=skill,
            hooks_dir=os.path.join(skill, "hooks"),
            settings=os.path.join(claude_dir, "settings.json"),
            claude_md=os.path.join(claude_dir, "CLAUDE.md"),
            manifest=os.path.join(skill, MANIFEST_NAME),
            backups_dir=os.path.join(claude_dir, "backups"),
        )

    def hook_script(self, event: str) -> str:
        return os.path.join(self.hooks_dir, HOOK_SCRIPTS[event])


def hook_command(hook_python: str, script: str) -> str:
    # `|| true`: if the script is ever missing (a skill folder deleted by hand), Python exits 2,
    # and a Stop hook that exits 2 makes Claude Code continue the turn with the error as input.
    return f"{shell_quote(hook_python)} -S {shell_quote(script)} || true"


def cli_command(cli_python: str, claude_dir: str) -> str:
    return f"{_arg(cli_python)} -m dream --claude-dir {_arg(claude_dir)}"


def _arg(text: str) -> str:
    return text if shlex.quote(text) == text else shell_quote(text)


# ---------------------------------------------------------------------------------------------
# Small file helpers


def read_bytes(path: str) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InstallError(f"cannot read {path}: {exc.strerror}.") from exc


def atomic_write(path: str, data: bytes, mode: int | None = None) -> None:
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    if mode is None:
        try:
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _remove_empty_dirs(*folders: str) -> None:
    for folder in folders:
        with contextlib.suppress(OSError):
            os.rmdir(folder)


# ---------------------------------------------------------------------------------------------
# settings.json


def parse_settings(path: str, raw: bytes | None) -> dict[str, Any]:
    """The settings object; {} for a missing or empty file. Refuses anything that is not a JSON object."""
    if raw is None or not raw.strip():
        return {}
    try:
        text = raw.decode("utf-8-sig")
        obj = json.loads(text)
    except UnicodeDecodeError as exc:
        raise InstallError(f"{path} is not UTF-8 text ({exc.reason}); it was left as it is.") from exc
    except json.JSONDecodeError as exc:
        raise InstallError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}). "
            "Fix it or move it away, then run install.py again. Nothing was changed."
        ) from exc
    if not isinstance(obj, dict):
        raise InstallError(f"{path} holds a JSON {type(obj).__name__}, not an object; nothing was changed.")
    return obj


def _indent_of(raw: bytes | None) -> str | int:
    """Keep the file's own indentation (Claude Code writes 2 spaces)."""
    if raw:
        for line in raw.decode("utf-8", "replace").splitlines()[1:]:
            stripped = line.lstrip(" \t")
            if stripped and len(stripped) < len(line):
                lead = line[: len(line) - len(stripped)]
                return "\t" if lead.startswith("\t") else len(lead)
    return 2


def dump_settings(obj: dict[str, Any], like: bytes | None) -> bytes:
    indent = _indent_of(like)
    text = json.dumps(obj, indent=indent, ensure_ascii=False)
    newline = like is None or not like.strip() or like.endswith(b"\n")
    return (text + ("\n" if newline else "")).encode("utf-8")


def _is_ours(item: object, script: str) -> bool:
    return isinstance(item, dict) and isinstance(item.get("command"), str) and script in item["command"]


def merge_hooks(settings: dict[str, Any], wanted: dict[str, tuple[str, str]]) -> dict[str, Any]:
    """A copy of settings with one entry per event: wanted[event] = (command, script path).

    An entry of ours already there is updated in place (a new interpreter, say); duplicates of it go.
    """
    result = copy.deepcopy(settings)
    hooks = result.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError('settings.json: "hooks" is not an object; nothing was changed.')
    for event, (command, script) in wanted.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise InstallError(f'settings.json: "hooks.{event}" is not a list; nothing was changed.')
        entry = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS}
        placed = False
        emptied = []
        for group in groups:
            if not (isinstance(group, dict) and isinstance(group.get("hooks"), list)):
                continue
            kept = []
            for item in group["hooks"]:
                if _is_ours(item, script):
                    if placed:
                        continue  # a duplicate of ours
                    placed = True
                    if item != entry:
                        item = {**item, **entry}
                kept.append(item)
            if group["hooks"] and not kept:
                emptied.append(id(group))
            group["hooks"] = kept
        if emptied:
            hooks[event] = [g for g in groups if id(g) not in emptied]
        if not placed:
            hooks[event].append({"hooks": [entry]})
    return result


def unmerge_hooks(settings: dict[str, Any], scripts: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Settings without our entries: (with containers left empty by the removal dropped, as is)."""
    bare = copy.deepcopy(settings)
    hooks = bare.get("hooks")
    if not isinstance(hooks, dict):
        return bare, copy.deepcopy(bare)
    touched_events = []
    for event, groups in list(hooks.items()):
        if not isinstance(groups, list):
            continue
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                kept = [i for i in group["hooks"] if not any(_is_ours(i, s) for s in scripts)]
                if len(kept) != len(group["hooks"]):
                    group["hooks"] = kept
                    touched_events.append(event)
    as_is = copy.deepcopy(bare)
    for event in dict.fromkeys(touched_events):
        groups = [g for g in hooks[event] if not (isinstance(g, dict) and g.get("hooks") == [])]
        if groups:
            hooks[event] = groups
        else:
            del hooks[event]
    if touched_events and not hooks:
        del bare["hooks"]
    return bare, as_is


# ---------------------------------------------------------------------------------------------
# CLAUDE.md


def snippet_block(claude_dir: str) -> str:
    with open(SNIPPET_SOURCE, encoding="utf-8") as fh:
        snippet = fh.read()
    default = os.path.abspath(os.path.expanduser(os.path.join("~", ".claude")))
    if claude_dir != default:
        snippet = snippet.replace("~/.claude/", claude_dir.rstrip("/") + "/")
    return f"{MARK_BEGIN}\n{snippet.rstrip()}\n{MARK_END}\n"


def _block_span(text: str) -> tuple[int, int] | None:
    """Start and end (past its newline) of the marked block in text, or None."""
    start = text.find(MARK_BEGIN)
    end = text.find(MARK_END, start + 1) if start >= 0 else -1
    if start < 0 or end < 0:
        return None
    stop = end + len(MARK_END)
    if text[stop : stop + 1] == "\n":
        stop += 1
    return start, stop


def with_snippet(text: str, block: str) -> tuple[str, str | None]:
    """(text with the block, the separator put before a newly appended block; None if it was there)."""
    span = _block_span(text)
    if span is not None:
        return text[: span[0]] + block + text[span[1] :], None
    separator = "" if not text else "\n" if text.endswith("\n") else "\n\n"
    return text + separator + block, separator


def without_snippet(text: str, separator: str | None = None) -> str:
    """Text without the block and, when it is still there, the separator install put before it."""
    span = _block_span(text)
    if span is None:
        return text
    head = text[: span[0]]
    if separator is None:
        separator = "\n" if head.endswith("\n\n") else ""  # no record: the blank line install adds
    if separator and head.endswith(separator):
        head = head[: -len(separator)]
    return head + text[span[1] :]


# ---------------------------------------------------------------------------------------------
# The plan: every change computed first, then shown (--dry-run) or made


@dataclass
class Plan:
    layout: Layout
    writes: dict[str, tuple[bytes | None, bytes, int]] = field(default_factory=dict)  # path: (old, new, mode)
    removals: dict[str, bytes | None] = field(default_factory=dict)  # path: old bytes

    def write(self, path: str, new: bytes, mode: int = 0o644) -> None:
        old = read_bytes(path)
        if old != new:
            self.writes[path] = (old, new, mode)

    def remove(self, path: str) -> None:
        if os.path.lexists(path):
            self.removals[path] = read_bytes(path) if os.path.isfile(path) else None

    prune_dirs: list[str] = field(default_factory=list)  # removed after apply() when empty
    restoring: bool = False  # an uninstall: its writes put back the files install replaced
    replacing: set[str] = field(default_factory=set)  # someone else's files install replaces (and keeps)

    @property
    def empty(self) -> bool:
        return not self.writes and not self.removals

    def shared(self) -> list[str]:
        """The person's own files that install merges into (settings.json, CLAUDE.md): a dry run
        shows them as a diff. Every other file is dream's own and is listed, never printed."""
        return [self.layout.settings, self.layout.claude_md]

    def preview(self) -> str:
        """What a dry run prints: the diff of each shared file, then dream's own files by path and size
        (never their contents: the hooks' source is hundreds of lines nobody reviews in a diff)."""
        out: list[str] = []
        shared = self.shared()
        for path in shared:
            if path in self.writes:
                old, new, _mode = self.writes[path]
                out.extend(_diff(path, old, new))
            elif path in self.removals:
                out.extend(_diff(path, self.removals[path], None))
        own = [(path, old, new, mode) for path, (old, new, mode) in self.writes.items() if path not in shared]
        removed = [(path, old) for path, old in self.removals.items() if path not in shared]
        width = max(
            [len(_size(new)) for _p, _o, new, _m in own] + [len(_size(old)) for _p, old in removed] + [0]
        )
        if own:
            out.append(
                "files it would put back as they were before install (contents not shown):\n"
                if self.restoring
                else "files it would write (dream's own; contents not shown):\n"
            )
            for path, old, new, mode in own:
                what = "new" if old is None else "restore" if self.restoring else "update"
                notes = ["executable"] if mode & 0o111 else []
                if path in self.replacing:
                    what = "replace"
                    notes.append("the file there is kept for --uninstall")
                suffix = f" ({'; '.join(notes)})" if notes else ""
                out.append(f"  {what:<8} {_size(new):>{width}}  {path}{suffix}\n")
        if removed:
            out.append("files it would remove:\n")
            for path, old in removed:
                out.append(f"  {'remove':<8} {_size(old):>{width}}  {path}\n")
        return "".join(out)

    def apply(self) -> None:
        settings = self.layout.settings
        if settings in self.writes or settings in self.removals:
            backup_settings(self.layout)
        for path, (_old, new, mode) in self.writes.items():
            atomic_write(path, new, mode)
        for path in self.removals:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


def _size(data: bytes | None) -> str:
    return "?" if data is None else f"{len(data):,} bytes"


def _diff(path: str, old: bytes | None, new: bytes | None) -> list[str]:
    def lines(data: bytes | None) -> list[str]:
        return [] if data is None else data.decode("utf-8", "replace").splitlines(keepends=True)

    a, b = lines(old), lines(new)
    result = list(
        difflib.unified_diff(
            a,
            b,
            fromfile="/dev/null" if old is None else f"a{path}",
            tofile="/dev/null" if new is None else f"b{path}",
        )
    )
    return [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in result]


def backup_settings(layout: Layout) -> str | None:
    """A copy of settings.json as it is now, in `<claude>/backups/`, before any change to it."""
    current = read_bytes(layout.settings)
    if current is None:
        return None
    os.makedirs(layout.backups_dir, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = os.path.join(layout.backups_dir, f"settings.json.before-dream-{stamp}")
    path, n = base, 1
    while os.path.exists(path):
        n += 1
        path = f"{base}.{n}"
    with open(path, "xb") as fh:
        fh.write(current)
    return path


def read_manifest(layout: Layout) -> dict[str, Any] | None:
    raw = read_bytes(layout.manifest)
    if raw is None:
        return None
    try:
        obj = json.loads(raw)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) and obj.get("version") == MANIFEST_VERSION else None


def plan_install(layout: Layout, cli_python: str, hook_python: str, claude_md: bool) -> Plan:
    plan = Plan(layout)
    manifest = read_manifest(layout)

    # settings.json: validated before anything else is planned.
    raw = read_bytes(layout.settings)
    settings = parse_settings(layout.settings, raw)
    wanted = {
        event: (hook_command(hook_python, layout.hook_script(event)), layout.hook_script(event))
        for event in HOOK_SCRIPTS
    }
    merged = merge_hooks(settings, wanted)
    if merged != settings or raw is None or not raw.strip():
        plan.write(layout.settings, dump_settings(merged, raw))

    # The skill and the hooks.
    installed: dict[str, bytes | None] = dict((manifest or {}).get("replaced", {}))
    files: dict[str, tuple[bytes, int]] = {}
    with open(SKILL_SOURCE, encoding="utf-8") as fh:
        skill = fh.read()
    skill = skill.replace(SKILL_COMMAND_PLACEHOLDER, cli_command(cli_python, layout.claude_dir))
    files[os.path.join(layout.skill_dir, "SKILL.md")] = (skill.encode("utf-8"), 0o644)
    for event in HOOK_SCRIPTS:
        with open(os.path.join(REPO, "hooks", HOOK_SCRIPTS[event]), "rb") as fh:
            files[layout.hook_script(event)] = (fh.read(), 0o755)
    for name in HOOK_MODULES:
        with open(os.path.join(REPO, "hooks", name), "rb") as fh:
            files[os.path.join(layout.hooks_dir, name)] = (fh.read(), 0o644)
    previous: dict[str, str | None] = {}
    for path, (data, mode) in files.items():
        old = read_bytes(path)
        if manifest is None and old is not None and old != data and path not in installed:
            # Someone else's file in our place (an older dream skill, say): kept in the manifest
            # so --uninstall can put it back.
            previous[path] = old.decode("utf-8", "surrogateescape")
            plan.replacing.add(path)
        plan.write(path, data, mode)

    # The manifest: what --uninstall needs. Written once; later runs keep its first-install facts.
    if manifest is None:
        manifest = {
            "version": MANIFEST_VERSION,
            "settings_original": None if raw is None else raw.decode("utf-8", "surrogateescape"),
            "replaced": previous,
            "created_dirs": [
                d
                for d in (
                    layout.claude_dir,
                    os.path.join(layout.claude_dir, "skills"),
                    layout.skill_dir,
                    layout.hooks_dir,
                )
                if not os.path.isdir(d)
            ],
            "claude_md_existed": os.path.exists(layout.claude_md),
        }
    manifest = {
        **manifest,
        "python": cli_python,
        "hook_python": hook_python,
        "files": sorted(files),
        "hook_commands": {event: command for event, (command, _script) in wanted.items()},
        "skill_command": cli_command(cli_python, layout.claude_dir),
    }
    if claude_md:
        old_md = read_bytes(layout.claude_md)
        text = "" if old_md is None else old_md.decode("utf-8", "surrogateescape")
        new_text, separator = with_snippet(text, snippet_block(layout.claude_dir))
        plan.write(layout.claude_md, new_text.encode("utf-8", "surrogateescape"))
        manifest["claude_md"] = True
        if separator is not None:
            manifest["claude_md_separator"] = separator
    plan.write(layout.manifest, (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return plan


def plan_uninstall(layout: Layout) -> Plan:
    plan = Plan(layout, restoring=True)
    manifest = read_manifest(layout) or {}

    raw = read_bytes(layout.settings)
    if raw is not None:
        settings = parse_settings(layout.settings, raw)
        scripts = [layout.hook_script(event) for event in HOOK_SCRIPTS]
        pruned, as_is = unmerge_hooks(settings, scripts)
        original = manifest.get("settings_original", False)
        if original is None and pruned == {}:
            plan.remove(layout.settings)  # there was no settings.json before install
        elif isinstance(original, str) and _is_original(original, pruned, as_is):
            # Nobody else changed the file meanwhile: give it back its own bytes.
            plan.write(layout.settings, original.encode("utf-8", "surrogateescape"))
        elif pruned != settings:
            plan.write(layout.settings, dump_settings(pruned, raw))

    replaced = manifest.get("replaced") or {}
    files = manifest.get("files") or [
        os.path.join(layout.skill_dir, "SKILL.md"),
        *(layout.hook_script(event) for event in HOOK_SCRIPTS),
        *(os.path.join(layout.hooks_dir, name) for name in HOOK_MODULES),
    ]
    for path in files:
        if not isinstance(path, str) or not path.startswith(layout.skill_dir + os.sep):
            continue
        if isinstance(replaced.get(path), str):
            plan.write(path, replaced[path].encode("utf-8", "surrogateescape"))
        else:
            plan.remove(path)
    pycache = os.path.join(layout.hooks_dir, "__pycache__")
    if os.path.isdir(pycache):
        for name in sorted(os.listdir(pycache)):
            if name.startswith(tuple(f"{s}." for s in HOOK_SCRIPTS.values())):
                plan.remove(os.path.join(pycache, name))
    plan.remove(layout.manifest)
    # The compiled rule patterns install made (and runs since kept): a cache, compiled again on need.
    state_dir = os.path.join(layout.claude_dir, "dream")
    for path in _pattern_caches(state_dir):
        plan.remove(path)
    # Folders install created, deepest first; each goes only if nothing else is left in it.
    created = [d for d in manifest.get("created_dirs") or [] if isinstance(d, str)]
    plan.prune_dirs = [
        pycache,
        *sorted(created or [layout.hooks_dir, layout.skill_dir], key=len, reverse=True),
        state_dir,  # only when the cache was all it held: dream had not run yet
    ]

    old_md = read_bytes(layout.claude_md)
    if old_md is not None:
        text = old_md.decode("utf-8", "surrogateescape")
        recorded = manifest.get("claude_md_separator")
        stripped = without_snippet(text, recorded if isinstance(recorded, str) else None)
        if stripped != text:
            if not stripped and manifest.get("claude_md_existed") is False:
                plan.remove(layout.claude_md)
            else:
                plan.write(layout.claude_md, stripped.encode("utf-8", "surrogateescape"))
    return plan


def _pattern_caches(state_dir: str) -> list[str]:
    if not os.path.isdir(state_dir):
        return []
    names = sorted(os.listdir(state_dir))
    return [os.path.join(state_dir, n) for n in names if n.startswith("regex-cache-") and n.endswith(".bin")]


def _is_original(original: str, *candidates: dict[str, Any]) -> bool:
    if not original.strip():
        return candidates[0] == {}
    try:
        parsed = json.loads(original)
    except ValueError:
        return False
    return any(parsed == c for c in candidates)


# ---------------------------------------------------------------------------------------------


def _check_importable(cli_python: str) -> str | None:
    """A warning when the recorded Python cannot import dream (from outside the repository)."""
    try:
        proc = subprocess.run(
            [cli_python, "-c", "import dream"],
            cwd=tempfile.gettempdir(),
            capture_output=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"could not run {cli_python}: {exc}"
    if proc.returncode != 0:
        return (
            f"{cli_python} cannot import dream yet; install it into that Python first "
            f"({_arg(cli_python)} -m pip install -e {_arg(REPO)}), "
            "or run install.py with the Python that has it."
        )
    return None


def _warm_hook(hook_python: str, script: str) -> None:
    # The Stop hook keeps its compiled code beside itself; build it now rather than on the first Stop.
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        subprocess.run(
            [hook_python, "-S", script],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=30,
            check=False,
        )


_WARM_PATTERNS = (
    "import sys\n"
    "from dream.paths import resolve_paths\n"
    "from dream.regex_cache_file import warm\n"
    "print(warm(resolve_paths(sys.argv[1]).regex_cache_file))\n"
)


def _warm_patterns(cli_python: str, claude_dir: str) -> int | None:
    """Compile dream's rule patterns into its cache now; the number compiled, or None if that failed
    (the first run then compiles them: slower, nothing else)."""
    try:
        proc = subprocess.run(
            [cli_python, "-c", _WARM_PATTERNS, claude_dir],
            cwd=tempfile.gettempdir(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    out = proc.stdout.strip()
    return int(out) if proc.returncode == 0 and out.isdigit() else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="install.py",
        description="Install (or --uninstall) dream's skill and hooks in a Claude Code config dir.",
    )
    parser.add_argument("--claude-dir", help="Claude config dir (default $CLAUDE_CONFIG_DIR or ~/.claude)")
    parser.add_argument("--uninstall", action="store_true", help="remove exactly what install added")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the settings.json (and CLAUDE.md) diff and the files it would write; write nothing",
    )
    parser.add_argument(
        "--claude-md", action="store_true", help="also add CLAUDE.md.snippet to <claude>/CLAUDE.md"
    )
    parser.add_argument("--python", help="interpreter to record (default: the one running install.py)")
    args = parser.parse_args(argv)

    layout = Layout.of(resolve_claude_dir(args.claude_dir))
    try:
        if args.uninstall:
            plan = plan_uninstall(layout)
        else:
            cli_python, hook_python = interpreters(args.python)
            plan = plan_install(layout, cli_python, hook_python, args.claude_md)
    except InstallError as exc:
        print(f"install.py: {exc}", file=sys.stderr)
        return 1

    action = "uninstall" if args.uninstall else "install"
    if args.dry_run:
        preview = plan.preview()
        sys.stdout.write(
            preview if preview else f"Nothing to {action} in {layout.claude_dir}: already done.\n"
        )
        if preview and not args.uninstall:
            state_dir = os.path.join(layout.claude_dir, "dream")
            print(f"and it would compile dream's rule patterns into {state_dir}/ (a cache)")
        if preview:
            print(f"(dry run: nothing was written in {layout.claude_dir})")
        return 0

    try:
        plan.apply()
    except OSError as exc:
        print(
            f"install.py: could not write {exc.filename or layout.claude_dir}: {exc.strerror}",
            file=sys.stderr,
        )
        return 1

    if args.uninstall:
        _remove_empty_dirs(*plan.prune_dirs)
        print(
            f"dream uninstalled from {layout.claude_dir}"
            if not plan.empty
            else "dream was not installed there."
        )
        print("Left in place: memory files, <claude>/dream/ and <claude>/.dream-pending (dream's own state).")
        return 0

    manifest = read_manifest(layout) or {}
    _warm_hook(str(manifest.get("hook_python")), layout.hook_script("Stop"))
    print(f"dream {'installed' if not plan.empty else 'already installed'} in {layout.claude_dir}")
    print(f"  skill: {os.path.join(layout.skill_dir, 'SKILL.md')} (/dream)")
    print(f"  hooks: Stop -> should-dream, SessionStart -> session-start, in {layout.settings}")
    print(f"  python: {manifest.get('python')}")
    warning = _check_importable(str(manifest.get("python")))
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    else:
        compiled = _warm_patterns(str(manifest.get("python")), layout.claude_dir)
        if compiled is not None:
            print(f"  rule patterns: {compiled} compiled ahead of the first run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
