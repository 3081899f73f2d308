"""Bad inputs (each builds its fault into a steady home) and kills of real dream processes."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import homefactory as hf
from homefactory import Turn

from reliability.entries import user_entry
from reliability.running import (
    PYTHON,
    ROOT,
    TIMEOUT,
    Home,
    day,
    entry_keys,
    entry_line,
    isolated_env,
    lost_entries,
    now,
    topic,
    unparsed,
)

# ---------------------------------------------------------------------------------------------
# Bad inputs: each builds its fault into a steady home and says what a clean ending looks like


@dataclass
class InputOutcome:
    name: str
    code: int | None = None
    stdout: str = ""
    stderr: str = ""
    memory_unchanged: bool = False
    message: str = ""  # the clear message or the counted skip that was found
    ok: bool = False
    skipped: str = ""  # why the case could not be tried here
    detail: str = ""
    seconds: float = 0.0


def has_traceback(text: str) -> bool:
    return "Traceback (most recent call last)" in text


def steady_home(root: Path) -> Home:
    """A home whose memory is already consolidated: a further run over it changes no memory file.
    Every bad input is built into a copy of it, so "memory unchanged" is a byte comparison."""
    home = Home(root)
    home.write(
        "preferences.md",
        topic(
            "Preferences",
            [
                entry_line("Prefers small commits with one change each.", 12),
                entry_line("Never add emojis to commit messages.", 9),
            ],
        ),
    )
    home.write(
        "decisions.md",
        topic("Decisions", [entry_line("Chose SQLite for the local cache; Postgres is overkill.", 15)]),
    )
    home.write(
        "facts.md",
        topic(
            "Facts",
            [
                entry_line("Staging runs on Fly.io in the fra region.", 20),
                entry_line("The billing service stores prices as integer cents.", 5),
            ],
        ),
    )
    base = now() - timedelta(days=2)
    home.session(
        [
            Turn("Always write commit messages in the imperative mood.", base),
            Turn("can you run the tests?", base + timedelta(minutes=3)),
        ]
    )
    first = home.dream("run")
    if first.returncode != 0:
        raise RuntimeError(f"the steady home does not run cleanly: {first.stdout}\n{first.stderr}")
    again = home.dream("run")
    if again.returncode != 0 or "written:" in again.stdout:
        raise RuntimeError(f"a second run over the steady home still writes: {again.stdout}")
    return home


def rehome(home: Home, root: Path) -> Home:
    """A copy of `home` at `root` (its transcripts keep their cwd, so the project key is the same)."""
    _copy_home(home.root, root)
    return _rehome(home, root)


def quiet_session(
    home: Home, *lines: bytes, signal: bool = False, crlf: bool = False, name: str | None = None
) -> Path:
    """A transcript in the real format whose user text is not a signal (unless `signal`), with raw
    `lines` inserted after its third line: the bad input, surrounded by good lines."""
    text = "Always use pnpm, not npm, in this repo from now on." if signal else "can you run the tests again?"
    sid = name or str(uuid.uuid4())
    good = hf.session_lines(sid, str(home.cwd), [Turn(text, now() - timedelta(hours=5))])
    newline = b"\r\n" if crlf else b"\n"
    out = [g.encode() for g in good[:3]] + list(lines) + [g.encode() for g in good[3:]]
    path = home.project_dir / f"{sid}.jsonl"
    path.write_bytes(newline.join(out) + newline)
    return path


def user_line(text: str, **extra: Any) -> bytes:
    entry = user_entry(str(uuid.uuid4()), "/tmp/x", now() - timedelta(hours=5), text)
    entry.update(extra)
    return json.dumps(entry, separators=(",", ":")).encode()


@dataclass
class Fault:
    """What a bad input is and what a clean ending looks like for it."""

    unchanged: bool = True  # memory files byte-identical afterwards
    codes: tuple[int, ...] = (0,)
    message: str = ""  # a regular expression the output must match (the clear message / counted skip)
    run_failed: bool = False  # a failing run leaves .last-dream and the pending flag as they were
    prefix: tuple[str, ...] = ()
    timeout: float = 120.0
    during: Callable[[subprocess.Popen[str]], str] | None = None  # acts while the run runs
    check: Callable[[Home, subprocess.CompletedProcess[str]], str] | None = None  # extra check: "" = fine
    cleanup: Callable[[], None] | None = None
    skip: str = ""


def _count(kind: str, n: int | str) -> str:
    return rf"lines skipped: .*\b{n} {kind}"


def _fault_malformed(home: Home) -> Fault:
    quiet_session(
        home,
        b"this line is not JSON at all",
        b"[1, 2, 3]",
        b'{"type":"user","message":{"role":"user","content":"cut',
    )
    return Fault(message=_count("malformed", 3))


def _fault_truncated(home: Home) -> Fault:
    path = quiet_session(home)
    line = user_line("We always deploy on Fridays from now on.")
    with open(path, "ab") as out:
        out.write(line[: len(line) // 2])  # the client was writing this line when it was read
    return Fault(message=_count("truncated", 1))


def _fault_invalid_utf8(home: Home) -> Fault:
    bad = user_line("can you check the logs? XX").replace(b"XX", b"\xff\xfe\xc3(")
    quiet_session(home, bad)
    return Fault(message=r"\b1 invalid UTF-8")


def _fault_huge_line(home: Home) -> Fault:
    path = quiet_session(home)
    head = user_line("X").split(b'"X"')
    with open(path, "ab") as out:
        out.write(head[0] + b'"')
        chunk = b"remember this " * 4681  # 64 KiB
        for _ in range(100 * 16):
            out.write(chunk)
        out.write(b'"' + head[1] + b"\n")
    return Fault(message=_count("oversized", 1), timeout=180)


def _fault_deep_json(home: Home) -> Fault:
    depth = 100_000
    line = user_line("X").replace(b'"X"', b"[" * depth + b"]" * depth)
    quiet_session(home, line)
    return Fault(message=_count("malformed", 1))


def _fault_binary(home: Home) -> Fault:
    rng = random.Random(7)
    garbage = bytes(rng.randrange(256) for _ in range(200_000))
    (home.project_dir / f"{uuid.uuid4()}.jsonl").write_bytes(garbage.replace(b"{", b"}"))
    (home.project_dir / f"{uuid.uuid4()}.jsonl").write_bytes(b"{" + garbage)
    return Fault(message=r"lines skipped: [1-9]\d* malformed")


def _fault_unreadable(home: Home) -> Fault:
    path = quiet_session(home, signal=True)
    path.chmod(0)
    if os.geteuid() != 0:
        return Fault(message=rf"could not read {re.escape(str(path))}")
    capsh = shutil.which("capsh")
    if capsh is None:
        return Fault(skip="root reads any file and capsh (to drop CAP_DAC_OVERRIDE) is not installed")
    prefix = (capsh, "--drop=cap_dac_override,cap_dac_read_search", "--", "-c", 'exec "$@"', "capsh")
    probe = subprocess.run(
        [*prefix, PYTHON, "-S", "-c", "import sys; open(sys.argv[1], 'rb')", str(path)],
        capture_output=True,
        timeout=30,
        check=False,
    )
    if probe.returncode == 0:
        return Fault(skip="dropping CAP_DAC_OVERRIDE does not make a mode-000 file unreadable here")
    return Fault(message=rf"could not read {re.escape(str(path))}", prefix=prefix)


def _fault_symlink_loop(home: Home) -> Fault:
    a, b = home.project_dir / "loop-a.jsonl", home.project_dir / "loop-b.jsonl"
    a.symlink_to(b.name)
    b.symlink_to(a.name)
    return Fault(message=r"could not read .*loop-[ab]\.jsonl.*(symbolic links|ELOOP)")


def _fault_deleted_mid_run(home: Home) -> Fault:
    path = quiet_session(home, signal=True)
    # A long hole after the good lines keeps the reader busy long enough to delete the file under it.
    with open(path, "r+b") as out:
        out.truncate(path.stat().st_size + (1 << 28))

    def during(proc: subprocess.Popen[str]) -> str:
        fd_dir = Path(f"/proc/{proc.pid}/fd")
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                for fd in fd_dir.iterdir():
                    with contextlib.suppress(OSError):
                        if os.readlink(fd) == str(path):
                            path.unlink()
                            return ""
            time.sleep(0.0005)
        return "the run never had the transcript open, so it could not be deleted under it"

    def check(home: Home, done: subprocess.CompletedProcess[str]) -> str:
        again = home.dream("run")
        if again.returncode != 0 or has_traceback(again.stderr):
            return f"the run after the deletion failed: {again.stdout} {again.stderr}"
        return ""

    return Fault(unchanged=False, during=during, check=check, message=r"read: \d+ session files", timeout=180)


def _fault_topic_is_directory(home: Home) -> Fault:
    (home.memory / "notes.md").mkdir()
    (home.memory / "notes.md" / "inside.txt").write_text("a file in a folder named like a topic\n")
    quiet_session(home, signal=True)
    return Fault(
        unchanged=False,
        message=r"left untouched \(cannot parse\): notes\.md: is a directory",
        check=_kept({"notes.md/inside.txt"}),
    )


def _kept(names: set[str]) -> Callable[[Home, subprocess.CompletedProcess[str]], str]:
    def check(home: Home, done: subprocess.CompletedProcess[str]) -> str:
        state = home.memory_state()
        missing = [n for n in names if n not in state]
        return f"{missing} did not survive" if missing else ""

    return check


def _fault_broken_frontmatter(home: Home) -> Fault:
    home.write(
        "style.md",
        "---\nname: [unclosed\ndescription: x: y: z\ntype: feedback\n---\n\n- [2026-01-01] Use tabs.\n",
    )
    before = (home.memory / "style.md").read_bytes()
    quiet_session(home, signal=True)

    def check(home: Home, done: subprocess.CompletedProcess[str]) -> str:
        return "" if (home.memory / "style.md").read_bytes() == before else "style.md was rewritten"

    return Fault(
        unchanged=False,
        message=r"left untouched \(cannot parse\): style\.md: frontmatter is not valid YAML",
        check=check,
    )


def _fault_crlf(home: Home) -> Fault:
    for path in home.memory.glob("*.md"):
        path.write_bytes(path.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    config = home.claude / "skills" / "dream" / ".dream-config"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_bytes(b"DREAM_MEMORY_TYPE=native\r\nDREAM_WINDOW_DAYS=7\r\n")
    quiet_session(home, signal=True, crlf=True)

    def check(home: Home, done: subprocess.CompletedProcess[str]) -> str:
        problems = []
        for path in home.memory.glob("*.md"):
            data = path.read_bytes()
            if data.replace(b"\r\n", b"").count(b"\n"):
                problems.append(f"{path.name} has bare LF line ends")
        if "pnpm" not in "".join(p.read_text("utf-8") for p in home.memory.glob("*.md")):
            problems.append("the signal of the CRLF transcript was not kept")
        return "; ".join(problems)

    return Fault(unchanged=False, message=r"added 1\b", check=check)


def _fault_huge_index(home: Home) -> Fault:
    lines = ["# Memory", ""]
    for i in range(10_000):
        if i % 10 == 0:
            lines.append(f"- Inline fact {i}: the worker pool w{i} drains queue q{i} every night.")
        elif i % 10 == 5:
            lines.append(f"## Section {i}")
        else:
            lines.append(f"Some prose line {i} about the project that nobody cleaned up.")
    home.write("MEMORY.md", "\n".join(lines) + "\n")
    before = entry_keys(home.memory)

    def check(home: Home, done: subprocess.CompletedProcess[str]) -> str:
        text = (home.memory / "MEMORY.md").read_text("utf-8")
        problems = []
        if text.count("\n") > 200 or len(text) > 25_000:
            problems.append(f"MEMORY.md is still {text.count(chr(10))} lines, {len(text)} characters")
        lost = lost_entries(home.memory, before)
        if lost:
            problems.append(f"{len(lost)} entries lost: {lost[:2]}")
        verify = home.dream("verify")
        if verify.returncode != 0:
            problems.append("verify fails: " + verify.stdout[-400:])
        return "; ".join(problems)

    return Fault(
        unchanged=False, message=r"moved \d+ sections of MEMORY\.md, as written", check=check, timeout=120
    )


@contextlib.contextmanager
def mounted(kind: str, target: Path, size: str = "64k") -> Iterator[str]:
    """A read-only bind mount of `target` on itself, or a tiny tmpfs on it; yields "" or why it could not."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0 or shutil.which("mount") is None:
        yield "mounting needs root on Linux"
        return
    if kind == "ro-bind":
        steps = [
            ["mount", "--bind", str(target), str(target)],
            ["mount", "-o", "remount,bind,ro", str(target)],
        ]
    else:
        steps = [["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(target)]]
    done = subprocess.run(steps[0], capture_output=True, text=True, timeout=30, check=False)
    if done.returncode != 0:
        yield f"{' '.join(steps[0])} is not permitted here: {done.stderr.strip()}"
        return
    try:
        for step in steps[1:]:
            more = subprocess.run(step, capture_output=True, text=True, timeout=30, check=False)
            if more.returncode != 0:
                yield f"{' '.join(step)} failed: {more.stderr.strip()}"
                return
        yield ""
    finally:
        subprocess.run(["umount", "-l", str(target)], capture_output=True, timeout=30, check=False)


def _pending_flag(home: Home, sessions: int = 6, age: float = 7200) -> bytes:
    """The Stop hook's flag naming this home's project, written `age` seconds ago."""
    flag = {
        "version": 1,
        "created": time.time() - age,
        "projects": {home.key: {"cwd": str(home.cwd), "memory_dir": str(home.memory), "sessions": sessions}},
    }
    data = json.dumps(flag).encode()
    (home.claude / ".dream-pending").write_bytes(data)
    return data


def _fault_read_only(home: Home) -> Fault:
    quiet_session(home, signal=True)
    _pending_flag(home)
    stack = contextlib.ExitStack()
    reason = stack.enter_context(mounted("ro-bind", home.memory))
    if reason:
        stack.close()
        return Fault(skip=reason)
    return Fault(codes=(1,), run_failed=True, message=r"read-only \(EROFS\)", cleanup=stack.close)


def _memory_on_a_full_disk(home: Home) -> tuple[dict[str, bytes], contextlib.ExitStack, str]:
    """The memory dir moved onto a 64 KB tmpfs (its files copied over), and what is left filled by
    `.filler`: (the files as they were, the stack that unmounts it, why it could not be done or "")."""
    saved = {p.name: p.read_bytes() for p in home.memory.iterdir() if p.is_file()}
    stack = contextlib.ExitStack()
    reason = stack.enter_context(mounted("tmpfs", home.memory, "64k"))
    if reason:
        stack.close()
        return saved, stack, reason
    for name, data in saved.items():
        (home.memory / name).write_bytes(data)
    with contextlib.suppress(OSError), open(home.memory / ".filler", "wb") as out:
        while True:
            out.write(b"\0" * 4096)
            out.flush()
    return saved, stack, ""


def _fault_full_disk(home: Home) -> Fault:
    quiet_session(home, signal=True)
    _pending_flag(home)
    # The first byte dream writes in the memory dir finds the disk full.
    _, stack, reason = _memory_on_a_full_disk(home)
    if reason:
        return Fault(skip=reason)
    return Fault(codes=(1,), run_failed=True, message=r"disk is full \(ENOSPC\)", cleanup=stack.close)


def _fault_disk_fills_mid_write(home: Home) -> Fault:
    """Room for the first file or two of the run, not for the rest."""
    for i in range(3):
        home.session(
            [
                Turn(t, now() - timedelta(hours=9 - i))
                for t in (
                    "No, we use 4 spaces, not tabs, in every file.",
                    "We're switching from SQLite to Postgres for the local cache from now on.",
                    "Every time you add an endpoint, update openapi.yaml.",
                )[i : i + 1]
            ]
        )
    _pending_flag(home)
    saved, stack, reason = _memory_on_a_full_disk(home)
    if reason:
        return Fault(skip=reason)
    # Then free 8 KB: room for the first file or two.
    (home.memory / ".filler").write_bytes(b"\0" * (os.stat(home.memory / ".filler").st_size - 8192))

    def check(home: Home, done: subprocess.CompletedProcess[str]) -> str:
        problems = []
        bad = unparsed(home.memory)
        if bad:
            problems.append(f"unparseable after the failure: {bad}")
        lost = lost_entries(home.memory, {k for k in _keys_of(saved)})
        if lost:
            problems.append(f"entries lost while the disk was full: {lost}")
        return "; ".join(problems)

    return Fault(
        codes=(1,), run_failed=True, message=r"disk is full \(ENOSPC\)", check=check, cleanup=stack.close
    )


def _keys_of(files: dict[str, bytes]) -> set[str]:
    from dream.memory import load_file

    keys: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in files.items():
            if name.endswith(".md") and name != "MEMORY.md":
                (Path(tmp) / name).write_bytes(data)
                keys |= {e.key for e in load_file(Path(tmp) / name, name, "topic").entries}
    return keys


def _fault_settings_json(home: Home) -> Fault:
    settings = home.claude / "settings.json"
    settings.write_bytes(b'{\n  "model": "opus",\n  "hooks": {"Stop": [\n')

    def check(home: Home, done: subprocess.CompletedProcess[str]) -> str:
        before = settings.read_bytes()
        installer = subprocess.run(
            [PYTHON, str(ROOT / "install.py"), "--claude-dir", str(home.claude)],
            capture_output=True,
            text=True,
            timeout=60,
            env=home.env,
            cwd=str(home.root),
        )
        problems = []
        if installer.returncode == 0:
            problems.append("install.py accepted an invalid settings.json")
        if "settings.json" not in installer.stderr or has_traceback(installer.stderr):
            problems.append(f"install.py gave no clear message: {installer.stderr[-300:]}")
        if settings.read_bytes() != before:
            problems.append("install.py changed the invalid settings.json")
        return "; ".join(problems)

    return Fault(message=r"read: \d+ session files", check=check)


def _fault_fifo(home: Home) -> Fault:
    os.mkfifo(home.project_dir / f"{uuid.uuid4()}.jsonl")
    return Fault(message=r"read: \d+ session files", timeout=60)


def _fault_bad_config(home: Home) -> Fault:
    config = home.claude / "skills" / "dream" / ".dream-config"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_bytes(b"DREAM_WINDOW_DAYS=seven\n\xff\xfe\x00garbage\n")
    return Fault(codes=(2,), run_failed=True, message=r"DREAM_WINDOW_DAYS='seven' is not a number")


def _fault_garbage_state(home: Home) -> Fault:
    state = home.claude / "dream"
    packs = list(state.glob("digests/*.json"))  # one digest pack per project folder
    assert packs, "the steady home has no digest cache to corrupt"
    for path in [*state.glob("review/*.json"), *state.glob("entries/*.json"), *packs]:
        path.write_bytes(b"\x00{not json")
    for path in state.glob("reports/*.jsonl"):
        path.write_bytes(b"{torn\n" + os.urandom(64) + b"\n")
    (home.claude / ".dream-pending").write_bytes(b"\xff\xfe not a flag")
    (home.memory / ".last-dream").write_bytes(b"yesterday-ish")
    return Fault(message=r"read: \d+ session files")


def _fault_index_is_directory(home: Home) -> Fault:
    (home.memory / "MEMORY.md").unlink()
    (home.memory / "MEMORY.md").mkdir()
    return Fault(message=r"MEMORY\.md", check=_kept({"MEMORY.md"}))


def _fault_last_dream_is_directory(home: Home) -> Fault:
    (home.memory / ".last-dream").unlink()
    (home.memory / ".last-dream").mkdir()
    quiet_session(home, signal=True)
    return Fault(unchanged=False, codes=(0, 1), message=r"\.last-dream")


def _fault_deep_markdown(home: Home) -> Fault:
    home.write(
        "nested.md",
        "# Nested\n\n"
        + "".join("  " * i + "- level\n" for i in range(500))
        + "\n## Quotes\n\n"
        + "> " * 10_000
        + "deep\n",
    )
    return Fault(unchanged=False, message=r"read: \d+ session files", check=_kept({"nested.md"}), timeout=60)


def _fault_long_token_entry(home: Home) -> Fault:
    blob = base64.b64encode(random.Random(3).randbytes(48_000)).decode()
    home.write(
        "facts.md",
        (home.memory / "facts.md").read_text("utf-8")
        + entry_line(f"The logo is data:image/png;base64,{blob}", 4)
        + "\n",
    )
    return Fault(unchanged=False, message=r"read: \d+ session files", timeout=10)


def _fault_memory_symlink_loop(home: Home) -> Fault:
    (home.memory / "loop.md").symlink_to("loop.md")
    return Fault(message=r"loop\.md", check=_kept({"loop.md"}))


# name -> (builder, in the CI-sized report)
INPUT_FAULTS: dict[str, tuple[Callable[[Home], Fault], bool]] = {
    "malformed-jsonl": (_fault_malformed, True),
    "truncated-jsonl": (_fault_truncated, True),
    "invalid-utf8": (_fault_invalid_utf8, False),
    "single-100mb-line": (_fault_huge_line, False),
    "deeply-nested-json": (_fault_deep_json, True),
    "binary-garbage-jsonl": (_fault_binary, True),
    "unreadable-file": (_fault_unreadable, False),
    "symlink-loop": (_fault_symlink_loop, False),
    "transcript-deleted-mid-run": (_fault_deleted_mid_run, False),
    "topic-file-is-directory": (_fault_topic_is_directory, False),
    "broken-frontmatter": (_fault_broken_frontmatter, False),
    "crlf-files": (_fault_crlf, False),
    "memory-md-10000-lines": (_fault_huge_index, False),
    "read-only-memory-dir": (_fault_read_only, True),
    "full-disk": (_fault_full_disk, True),
    "disk-fills-mid-write": (_fault_disk_fills_mid_write, False),
    "invalid-settings-json": (_fault_settings_json, False),
    "fifo-named-jsonl": (_fault_fifo, False),
    "invalid-dream-config": (_fault_bad_config, False),
    "garbage-state-files": (_fault_garbage_state, False),
    "memory-md-is-directory": (_fault_index_is_directory, False),
    "last-dream-is-directory": (_fault_last_dream_is_directory, False),
    "deeply-nested-markdown": (_fault_deep_markdown, False),
    "long-token-in-memory-entry": (_fault_long_token_entry, False),
    "memory-file-symlink-loop": (_fault_memory_symlink_loop, False),
}


def try_input(name: str, steady: Home, work: Path) -> InputOutcome:
    """Build the bad input into a copy of the steady home, run `python -m dream run`, judge the ending."""
    outcome = InputOutcome(name)
    home = rehome(steady, work / f"input-{name}")
    flag = home.claude / ".dream-pending"
    build, _ = INPUT_FAULTS[name]
    fault = build(home)
    try:
        if fault.skip:
            outcome.skipped = fault.skip
            return outcome
        before = home.memory_state()
        last_before = (
            (home.memory / ".last-dream").read_bytes() if (home.memory / ".last-dream").is_file() else None
        )
        flag_before = flag.read_bytes() if flag.exists() else None
        started = time.monotonic()
        proc = subprocess.Popen(
            [*fault.prefix, PYTHON, "-m", "dream", "--claude-dir", str(home.claude), "run"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=home.env,
            cwd=str(home.root),
        )
        problems = []
        if fault.during is not None:
            trouble = fault.during(proc)
            if trouble:
                problems.append(trouble)
        try:
            stdout, stderr = proc.communicate(timeout=fault.timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = proc.communicate()
            problems.append(f"the run did not finish within {fault.timeout:g} s")
        outcome.seconds = time.monotonic() - started
        outcome.code, outcome.stdout, outcome.stderr = proc.returncode, stdout, stderr
        done = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
        output = stdout + "\n" + stderr
        if proc.returncode not in fault.codes:
            problems.append(f"exit {proc.returncode}, expected {fault.codes}")
        if has_traceback(output):
            problems.append("a traceback instead of a message")
        found = re.search(fault.message, output) if fault.message else None
        if fault.message and not found:
            problems.append(f"no message matching {fault.message!r}")
        outcome.message = found.group(0) if found else ""
        after = home.memory_state()
        outcome.memory_unchanged = after == before
        if fault.unchanged and not outcome.memory_unchanged:
            changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            problems.append(f"memory changed: {changed}")
        if fault.run_failed:
            last_after = (
                (home.memory / ".last-dream").read_bytes()
                if (home.memory / ".last-dream").is_file()
                else None
            )
            if last_after != last_before:
                problems.append("a failed run moved .last-dream")
            if (flag.read_bytes() if flag.exists() else None) != flag_before:
                problems.append("a failed run changed the pending flag")
        if fault.check is not None:
            trouble = fault.check(home, done)
            if trouble:
                problems.append(trouble)
        outcome.detail = "; ".join(problems)
        outcome.ok = not problems
        return outcome
    finally:
        if fault.cleanup is not None:
            fault.cleanup()
        shutil.rmtree(home.root, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Kills


KILL_SHIM = r"""
import atexit, os, runpy, signal, sys
target = int(os.environ.get("DREAM_KILL_AT", "0"))
after = os.environ.get("DREAM_KILL_AFTER") == "1"
count_file = os.environ.get("DREAM_KILL_COUNT_FILE")
state = {"n": 0, "armed": False}
def wrap(name):
    original = getattr(os, name)
    def call(*args, **kwargs):
        if state["armed"]:
            state["n"] += 1
            if state["n"] == target and not after:
                os.kill(os.getpid(), signal.SIGKILL)
        result = original(*args, **kwargs)
        if state["armed"] and state["n"] == target and after:
            os.kill(os.getpid(), signal.SIGKILL)
        return result
    setattr(os, name, call)
for name in ("open", "write", "fsync", "replace", "rename", "unlink", "mkdir", "fchmod", "close", "rmdir",
             "symlink"):
    wrap(name)
import dream.fsio as fsio
enter = fsio.MemoryLock.__enter__
def armed_enter(self):
    out = enter(self)
    state["armed"] = True
    return out
fsio.MemoryLock.__enter__ = armed_enter
if count_file:
    atexit.register(lambda: open(count_file, "w").write(str(state["n"])))
sys.argv = ["dream"] + sys.argv[1:]
runpy.run_module("dream", run_name="__main__", alter_sys=True)
"""

SERVICES = ["billing", "search", "checkout", "ledger", "mailer", "gateway", "profile", "catalog"]
KILL_TOPICS = ["preferences.md", "decisions.md", "facts.md", "patterns.md", "corrections.md", "infra.md"]


def build_kill_home(root: Path, entries: int = 60) -> tuple[Home, set[str]]:
    """A home whose run changes many files: contradictions, additions, restatements, stale entries,
    inline content in an old MEMORY.md, a pending flag. Returns it and the entry keys before."""
    from dream.memory import normalise_key

    home = Home(root)
    files: dict[str, list[str]] = {name: [] for name in KILL_TOPICS}
    texts = []
    for i in range(entries):
        name = KILL_TOPICS[i % len(KILL_TOPICS)]
        text = f"The {SERVICES[i % 8]} job number {i} writes its output to bucket b{i}."
        age = 200 if i % 9 == 0 else 3 + i % 40
        files[name].append(entry_line(text, age, f"{i:08x}"))
        texts.append(text)
    files["preferences.md"].append(f"- [{day(30)}] Prefers tabs for indentation.")
    files["decisions.md"].append(f"- [{day(30)}] Chose Celery for background jobs.")
    files["corrections.md"].append(f"- [{day(30)}] Uses npm for packages.")
    texts += ["Prefers tabs for indentation.", "Chose Celery for background jobs.", "Uses npm for packages."]
    for name, lines in files.items():
        home.write(name, topic(name[:-3].capitalize(), lines))
    inline = [f"Inline note {i}: the {SERVICES[i % 8]} dashboard lives in folder d{i}." for i in range(12)]
    texts += inline
    home.write(
        "MEMORY.md",
        "# Memory\n\n"
        + "".join(f"- [{n[:-3]}]({n})\n" for n in KILL_TOPICS)
        + "\n## Notes\n\n"
        + "".join(f"- {t}\n" for t in inline),
    )
    base = now() - timedelta(days=3)
    said = [
        "No, we use 4 spaces, not tabs, in every file.",
        "We're switching from Celery to Dramatiq for all background jobs from now on.",
        "Use pnpm, not npm, in this repo from now on.",
        "Every time you add an endpoint, update openapi.yaml.",
        "Staging runs on Fly.io in fra.",
        "Always write commit messages in the imperative mood.",
        "We deploy the API with Docker Compose on a single Hetzner box.",
    ]
    for i, text in enumerate(said):
        home.session(
            [
                Turn(text, base + timedelta(hours=i)),
                Turn("can you run the tests?", base + timedelta(hours=i, minutes=1)),
            ]
        )
    _pending_flag(home, sessions=7, age=3600)
    return home, {normalise_key(t) for t in texts}


@dataclass
class KillFigures:
    kills: int = 0
    aimed: int = 0
    timed: int = 0
    finished_before_kill: int = 0
    torn_files: int = 0
    unparseable_after_kill: int = 0
    lost_entries: int = 0
    failed_recoveries: int = 0
    failed_verifies: int = 0
    flag_cleared_without_last_dream: int = 0
    leftover_temp_files: int = 0
    states: dict[str, int] = field(default_factory=dict)
    converged: int = 0
    syscalls_in_write_phase: int = 0
    problems: list[str] = field(default_factory=list)


def _copy_home(src: Path, dst: Path) -> None:
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, symlinks=True)


def _rehome(home: Home, root: Path) -> Home:
    """The same home at another root (transcripts keep their cwd: the project key is unchanged)."""
    other = Home.__new__(Home)
    other.root = root
    other.home = root / "home"
    other.claude = other.home / ".claude"
    other.cwd = home.cwd
    other.key = home.key
    other.project_dir = other.claude / "projects" / home.key
    other.memory = other.project_dir / "memory"
    return other


def check_kills(
    work: Path, kills: int, seed: int, log: Callable[[str], None] = lambda s: None
) -> KillFigures:
    from dream.api import Session
    from dream.fsio import TEMP_PREFIX

    figures = KillFigures()
    rng = random.Random(seed)
    pristine_root = work / "kill-pristine"
    pristine, before = build_kill_home(pristine_root)
    old = pristine.md_bytes()

    clean = _rehome(pristine, work / "kill-clean")
    _copy_home(pristine_root, clean.root)
    count_file = work / "kill-count"
    started = time.monotonic()
    done = subprocess.run(
        [PYTHON, "-c", KILL_SHIM, "--claude-dir", str(clean.claude), "run"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=isolated_env(clean.home, DREAM_KILL_AT="0", DREAM_KILL_COUNT_FILE=str(count_file)),
        cwd=str(clean.root),
    )
    duration = time.monotonic() - started
    if done.returncode != 0:
        figures.problems.append(f"the clean run failed: {done.stdout[-2000:]} {done.stderr[-2000:]}")
        return figures
    new = clean.md_bytes()
    total = int(count_file.read_text() or 0)
    figures.syscalls_in_write_phase = total
    changed = sorted(n for n in set(old) | set(new) if old.get(n) != new.get(n))
    if len(changed) < 4:
        figures.problems.append(f"the run changes only {changed}: too few files for a kill test")

    aimed = max(1, (kills * 3) // 4)
    points = sorted(rng.sample(range(1, total + 1), min(aimed, total))) if total else []
    plan: list[tuple[str, int, bool]] = [("aimed", p, bool(i % 2)) for i, p in enumerate(points)]
    plan += [("timed", 0, False)] * (kills - len(plan))
    rng.shuffle(plan)
    work_home = _rehome(pristine, work / "kill-work")
    for index, (kind, point, after) in enumerate(plan):
        _copy_home(pristine_root, work_home.root)
        memory = work_home.memory
        if kind == "aimed":
            env = isolated_env(
                work_home.home, DREAM_KILL_AT=str(point), DREAM_KILL_AFTER="1" if after else "0"
            )
            proc = subprocess.Popen(
                [PYTHON, "-c", KILL_SHIM, "--claude-dir", str(work_home.claude), "run"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
                cwd=str(work_home.root),
            )
            try:
                proc.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            figures.aimed += 1
        else:
            proc = subprocess.Popen(
                [PYTHON, "-m", "dream", "--claude-dir", str(work_home.claude), "run"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=work_home.env,
                cwd=str(work_home.root),
            )
            # Wait for the first trace of the write phase (the backup or the snapshot), then a little more.
            deadline = time.monotonic() + 3 * duration + 10
            snapshots = work_home.claude / "dream" / "snapshots"
            while proc.poll() is None and time.monotonic() < deadline:
                if snapshots.exists() or any(
                    "-backup-" in p.name or p.name.startswith(TEMP_PREFIX) for p in memory.parent.iterdir()
                ):
                    break
                time.sleep(0.0005)
            time.sleep(rng.uniform(0, 0.1))
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGKILL)
            proc.wait()
            figures.timed += 1
        figures.kills += 1
        if proc.returncode != -signal.SIGKILL:
            figures.finished_before_kill += 1
        after_kill = work_home.md_bytes()
        torn = [
            n
            for n in set(old) | set(new) | set(after_kill)
            if after_kill.get(n) not in (old.get(n), new.get(n))
        ]
        if torn:
            figures.torn_files += len(torn)
            figures.problems.append(
                f"kill {index} ({kind} {point} {'after' if after else 'before'}): torn {torn}"
            )
        bad = unparsed(memory)
        if bad:
            figures.unparseable_after_kill += len(bad)
            figures.problems.append(f"kill {index}: unparseable {bad}")
        kinds = {"old" if after_kill.get(n) == old.get(n) else "new" for n in changed}
        state = "old" if kinds == {"old"} else "new" if kinds == {"new"} else "mixed"
        figures.states[state] = figures.states.get(state, 0) + 1
        figures.leftover_temp_files += sum(
            1 for p in memory.parent.rglob("*") if p.name.startswith(TEMP_PREFIX) or ".tmp" in p.name
        )
        flag = work_home.claude / ".dream-pending"
        last = memory / ".last-dream"
        if not flag.exists() and not last.exists():
            figures.flag_cleared_without_last_dream += 1
            figures.problems.append(
                f"kill {index}: the pending flag was cleared but no .last-dream was written"
            )

        recovery = work_home.dream("run")
        if recovery.returncode != 0:
            figures.failed_recoveries += 1
            figures.problems.append(
                f"kill {index} ({kind} {point}): recovery exit {recovery.returncode}: "
                f"{recovery.stdout[-800:]} {recovery.stderr[-800:]}"
            )
        checks = [c for t in Session.open(claude_dir=work_home.claude).verify().targets for c in t.checks]
        if not all(c.ok for c in checks):
            figures.failed_verifies += 1
            figures.problems.append(f"kill {index}: verify fails: {[c for c in checks if not c.ok]}")
        lost = lost_entries(memory, before)
        if lost:
            figures.lost_entries += len(lost)
            figures.problems.append(f"kill {index} ({kind} {point}): lost {lost[:3]}")
        if work_home.md_bytes() == new:
            figures.converged += 1
        log(f"  kill {index + 1}/{len(plan)}: {kind} {point or ''} {state}")
    shutil.rmtree(work_home.root, ignore_errors=True)
    return figures
