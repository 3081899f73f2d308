"""should-dream's body: the Stop hook's work, as a module that ruff and mypy check like the rest.

`hooks/should-dream` runs this file's code, compiled once and cached beside it (see the launcher).
Standard library only, and only builtin modules on the common path (`posix`, not `os`): importing
os and its helpers costs more than everything else this hook does. Annotations are never evaluated
(`from __future__ import annotations`), so typing costs nothing at run time.

Contract (mirrored by the package in dream/trigger.py and dream/paths.py):
  claude dir   --claude-dir DIR, else $CLAUDE_CONFIG_DIR, else ~/.claude
  project key  slug of the git root of the session's cwd (a worktree maps to its main checkout),
               else of the cwd; slug = every char but A-Z a-z 0-9 becomes '-', > 200 chars cut + hash
  seen         <claude>/dream/sessions-seen/<key>/<session_id>  (empty file, O_CREAT|O_EXCL)
  last dream   <memory dir>/.last-dream (epoch seconds); missing = never dreamt
  flag         <claude>/.dream-pending  {"version": 1, "created": t, "projects": {key: {...}}}
"""

# ruff: noqa: SIM105  (contextlib.suppress would be one import too many on every Stop)
from __future__ import annotations

import sys

if sys.platform == "win32":  # the os module (and its path helpers) instead of posix
    import os as _os

    _WINDOWS = True
else:
    import posix as _os

    _WINDOWS = False

_DEFAULT_MIN_HOURS = 24.0
_DEFAULT_MIN_SESSIONS = 5
_MAX_STDIN = 8 << 20
_SLUG_MAX = 200
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_SID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
_FS_ENCODING = sys.getfilesystemencoding()


def _exit(code: int) -> None:
    _os._exit(code)


# ---------------------------------------------------------------------------------------------
# Paths (posixpath semantics without importing it)

if sys.platform == "win32":
    _abspath = _os.path.abspath
    _dirname = _os.path.dirname
    _isabs = _os.path.isabs
    _getenv = _os.environ.get
else:

    def _isabs(p: str) -> bool:
        return p.startswith("/")

    def _abspath(p: str) -> str:
        if not p.startswith("/"):
            p = _os.getcwd() + "/" + p
        initial = 2 if p.startswith("//") and not p.startswith("///") else 1
        parts: list[str] = []
        for part in p.split("/"):
            if part == "" or part == ".":
                continue
            if part == "..":
                if parts:
                    parts.pop()
                continue
            parts.append(part)
        return "/" * initial + "/".join(parts)

    def _dirname(p: str) -> str:
        i = p.rfind("/") + 1
        head = p[:i]
        if head and head != "/" * len(head):
            head = head.rstrip("/")
        return head

    def _getenv(name: str) -> str | None:
        value = _os.environ.get(name.encode("ascii"))
        return None if value is None else value.decode(_FS_ENCODING, "surrogateescape")


def _join(*parts: str) -> str:
    return "/".join(parts)


def _is_dir(mode: int) -> bool:
    return mode & 0o170000 == 0o040000


def _is_file(mode: int) -> bool:
    return mode & 0o170000 == 0o100000


def _read(path: str, limit: int = 1 << 20) -> bytes:
    fd = _os.open(path, _os.O_RDONLY)
    try:
        return _os.read(fd, limit)
    finally:
        _os.close(fd)


# What the hook creates is as private as the Claude dir it serves (set by `_private`).
_MODES = {"dir": 0o755, "file": 0o644}


def _private(claude: str) -> None:
    """A Claude dir that group and others cannot read makes every folder 0700 and file 0600."""
    try:
        if _os.stat(claude).st_mode & 0o077 == 0:
            _MODES["dir"], _MODES["file"] = 0o700, 0o600
    except OSError:
        pass


def _makedirs(path: str) -> None:
    try:
        _os.mkdir(path, _MODES["dir"])
    except FileExistsError:
        return
    except FileNotFoundError:
        parent = _dirname(path)
        if not parent or parent == path:
            raise
        _makedirs(parent)
        try:
            _os.mkdir(path, _MODES["dir"])
        except FileExistsError:
            pass


def _claude_dir(argv: list[str]) -> str | None:
    for i, arg in enumerate(argv):
        if arg == "--claude-dir" and i + 1 < len(argv):
            return _abspath(_expanduser(argv[i + 1]))
        if arg.startswith("--claude-dir="):
            return _abspath(_expanduser(arg[len("--claude-dir=") :]))
    env = _getenv("CLAUDE_CONFIG_DIR")
    if env:
        return _abspath(_expanduser(env))
    home = _getenv("HOME") or _getenv("USERPROFILE")
    if not home:
        return None
    return _abspath(home + "/.claude")


def _expanduser(p: str) -> str:
    if p == "~" or p.startswith("~/") or (_WINDOWS and p.startswith("~\\")):
        home = _getenv("HOME") or _getenv("USERPROFILE")
        if home:
            return home + p[1:]
    return p


# ---------------------------------------------------------------------------------------------
# Project key: mirrors dream.paths.git_root / _worktree_main_root / project_slug


def _git_root(cwd: str) -> str | None:
    here = _abspath(cwd)
    while True:
        marker = here.rstrip("/\\") + "/.git" if here not in ("/", "//") else here + ".git"
        try:
            mode = _os.stat(marker).st_mode
        except (FileNotFoundError, NotADirectoryError):
            mode = 0
        except OSError:
            return None
        if _is_dir(mode):
            return here
        if _is_file(mode):
            return _worktree_main_root(marker) or here
        parent = _dirname(here)
        if parent == here or not parent:
            return None
        here = parent


def _worktree_main_root(git_file: str) -> str | None:
    # Rare path (a worktree): the real os.path is worth its import here.
    import os

    try:
        text = _read(git_file).decode("utf-8", "replace").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    gitdir = text[len("gitdir:") :].strip()
    if not os.path.isabs(gitdir):
        gitdir = os.path.realpath(os.path.join(os.path.dirname(git_file), gitdir))
    try:
        common_rel = _read(os.path.join(gitdir, "commondir")).decode("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    common_dir = os.path.realpath(os.path.join(gitdir, common_rel))
    if os.path.basename(common_dir) != ".git":
        return None
    return os.path.dirname(common_dir)


def _slug(text: str) -> str:
    slug = "".join(c if c in _ALNUM else "-" for c in text)
    if len(slug) > _SLUG_MAX:
        data = text.encode("utf-8", "surrogatepass")
        try:
            from _sha256 import sha256  # type: ignore[import-not-found]  # Python <= 3.11
        except ImportError:
            try:
                from _sha2 import sha256  # type: ignore[import-not-found]  # Python >= 3.12
            except ImportError:
                from hashlib import sha256
        slug = slug[:_SLUG_MAX] + "-" + sha256(data).hexdigest()[:8]
    return slug


# ---------------------------------------------------------------------------------------------
# JSON in, without importing json (it pulls in re, enum, functools and collections)


def _loads(text: str) -> object:
    try:
        from _json import make_scanner
    except ImportError:
        import json

        return json.loads(text)

    def _constant(name: str) -> float:
        return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[name]

    class _Context:
        strict = True
        object_hook = None
        object_pairs_hook = None
        parse_float = float
        parse_int = int
        parse_constant = _constant

    start = len(text) - len(text.lstrip(" \t\r\n"))
    try:
        value, end = make_scanner(_Context)(text, start)  # type: ignore[arg-type]  # a duck of JSONDecoder
    except Exception as exc:  # the bare scanner raises StopIteration, SystemError, RecursionError
        raise ValueError("not valid JSON") from exc
    if text[end:].strip(" \t\r\n"):
        raise ValueError("extra data")
    return value


def _read_stdin() -> bytes | None:
    try:
        if _os.isatty(0):
            return None
    except OSError:
        return None
    chunks: list[bytes] = []
    size = 0
    while size <= _MAX_STDIN:
        chunk = _os.read(0, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    else:
        return None
    return b"".join(chunks)


def _valid_session_id(sid: object) -> bool:
    return (
        isinstance(sid, str)
        and 0 < len(sid) <= 128
        and all(c in _SID_CHARS for c in sid)
        and any(c in _ALNUM for c in sid)
    )


# ---------------------------------------------------------------------------------------------
# Config and state


def _config(claude: str) -> dict[str, str]:
    values: dict[str, str] = {}
    try:
        text = _read(_join(claude, "skills", "dream", ".dream-config"), 1 << 16).decode("utf-8", "replace")
    except OSError:
        return values
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        values[key.strip()] = value.strip().strip('"').strip("'")
    return values


def _float(values: dict[str, str], key: str, default: float) -> float:
    try:
        value = float(values[key])
    except (KeyError, ValueError):
        return default
    return value if value >= 0 else default


def _int(values: dict[str, str], key: str, default: int) -> int:
    try:
        value = int(values[key])
    except (KeyError, ValueError):
        return default
    return value if value >= 0 else default


def _memory_dir(claude: str, key: str, root: str | None, cwd: str, values: dict[str, str]) -> str:
    memory_type = values.get("DREAM_MEMORY_TYPE", "native")
    if memory_type == "project-root":
        return _abspath(root or cwd)
    if memory_type == "openclaw":
        workspace = values.get("DREAM_PROJECT") or values.get("DREAM_OPENCLAW_WORKSPACE")
        home = _getenv("HOME") or ""
        return _abspath(_expanduser(workspace) if workspace else home + "/.openclaw/workspace")
    return _join(claude, "projects", key, "memory")


def _last_dream(memory_dir: str) -> float | None:
    try:
        return float(_read(_join(memory_dir, ".last-dream"), 256).decode("ascii").strip())
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def _record_session(seen_dir: str, sid: str) -> None:
    path = _join(seen_dir, sid)
    flags = _os.O_WRONLY | _os.O_CREAT | _os.O_EXCL | getattr(_os, "O_CLOEXEC", 0)
    try:
        fd = _os.open(path, flags, _MODES["file"])
    except FileExistsError:
        return
    except FileNotFoundError:
        _makedirs(seen_dir)
        try:
            fd = _os.open(path, flags, _MODES["file"])
        except FileExistsError:
            return
    _os.close(fd)


def _count_sessions(seen_dir: str, enough: int) -> int:
    count = 0
    with _os.scandir(seen_dir) as entries:
        for entry in entries:
            if _valid_session_id(entry.name):
                count += 1
                if count >= enough:
                    break
    return count


def _flag_projects(flag: str) -> dict[str, object] | None:
    """The flag's projects object, {} for no flag, None for a flag that is not valid."""
    try:
        raw = _read(flag, 16 << 20)
    except FileNotFoundError:
        return {}
    try:
        obj = _loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, KeyError):
        return None
    if isinstance(obj, dict):
        projects = obj.get("projects")
        if isinstance(projects, dict):
            return projects
    return None


def _lock(path: str) -> int | None:
    """An exclusive lock shared with dream/trigger.py; None when it cannot be had within ~2 s."""
    import time

    fd = _os.open(path, _os.O_RDWR | _os.O_CREAT | getattr(_os, "O_CLOEXEC", 0), _MODES["file"])
    if sys.platform == "win32":
        import msvcrt

        def attempt() -> bool:
            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            except OSError:
                return False
            return True

    else:
        import fcntl

        def attempt() -> bool:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            return True

    deadline = time.monotonic() + 2.0
    while not attempt():
        if time.monotonic() > deadline:
            _os.close(fd)
            return None
        time.sleep(0.005)
    return fd  # closing the descriptor releases the lock


def _add_to_flag(claude: str, key: str, entry: dict[str, object], now: float) -> None:
    import json

    flag = _join(claude, ".dream-pending")
    state = _join(claude, "dream")
    _makedirs(state)
    fd = _lock(_join(state, "pending.lock"))
    if fd is None:
        return
    try:
        try:
            with open(flag, "rb") as fh:
                obj = json.loads(fh.read().decode("utf-8"))
        except FileNotFoundError:
            obj = None
        except (OSError, ValueError):
            obj = None  # a flag nobody can read is replaced by one that works
        if not (isinstance(obj, dict) and isinstance(obj.get("projects"), dict)):
            obj = {"version": 1, "created": now, "projects": {}}
        projects = obj["projects"]
        if key in projects:
            return  # another hook got here first: leave its entry as it is
        projects[key] = entry
        data = (json.dumps(obj, ensure_ascii=False, indent=2) + "\n").encode("utf-8", "surrogateescape")
        tmp = f"{flag}.tmp.{_os.getpid()}"
        out = _os.open(tmp, _os.O_WRONLY | _os.O_CREAT | _os.O_TRUNC, _MODES["file"])
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[_os.write(out, view) :]
                _os.fsync(out)
            finally:
                _os.close(out)
            _os.replace(tmp, flag)
        except BaseException:
            try:
                _os.unlink(tmp)
            except OSError:
                pass
            raise
    finally:
        _os.close(fd)


# ---------------------------------------------------------------------------------------------


def main(argv: list[str]) -> None:
    raw = _read_stdin()
    if not raw:
        return
    payload = _loads(raw.decode("utf-8", "surrogateescape"))
    if not isinstance(payload, dict) or payload.get("hook_event_name", "Stop") != "Stop":
        return
    sid = payload.get("session_id")
    cwd = payload.get("cwd")
    if not isinstance(sid, str) or not _valid_session_id(sid):
        return
    if not isinstance(cwd, str) or not _isabs(cwd) or "\0" in cwd:
        return
    claude = _claude_dir(argv)
    if claude is None:
        return
    _private(claude)

    root = _git_root(cwd)
    key = _slug(root if root is not None else cwd)
    seen_dir = _join(claude, "dream", "sessions-seen", key)
    _record_session(seen_dir, sid)

    values = _config(claude)
    min_hours = _float(values, "DREAM_MIN_HOURS", _DEFAULT_MIN_HOURS)
    min_sessions = max(1, _int(values, "DREAM_MIN_SESSIONS", _DEFAULT_MIN_SESSIONS))
    memory_dir = _memory_dir(claude, key, root, cwd, values)

    import time

    now = time.time()
    last = _last_dream(memory_dir)
    if last is not None and now - last < min_hours * 3600.0:
        return
    count = _count_sessions(seen_dir, min_sessions)
    if count < min_sessions:
        return
    flag = _join(claude, ".dream-pending")
    projects = _flag_projects(flag)
    if projects is not None and key in projects:
        return
    entry = {"cwd": cwd, "memory_dir": memory_dir, "sessions": len(_list_valid(seen_dir))}
    _add_to_flag(claude, key, entry, now)


def _list_valid(seen_dir: str) -> list[str]:
    try:
        return [n for n in _os.listdir(seen_dir) if _valid_session_id(n)]
    except OSError:
        return []


def _give_up_in_time() -> None:
    """Never hold up the session: whatever happens (a hung stdin, a stuck network file system, a
    lock never released), give up quietly well before the client's hook timeout."""
    try:
        import _signal  # type: ignore[import-not-found]  # signal's C half: no stubs, no import cost

        _signal.signal(_signal.SIGALRM, lambda *_: _exit(0))
        _signal.alarm(4)
    except (ImportError, AttributeError, ValueError, OSError):
        pass


# Run by hooks/should-dream (which sets this name); importing the module runs nothing.
if __name__ == "__should_dream__":
    _give_up_in_time()
    main(sys.argv[1:])
