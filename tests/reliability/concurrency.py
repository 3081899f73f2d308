"""Concurrent runs and Stop hooks."""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from homefactory import slug

from reliability.faults import build_kill_home, rehome
from reliability.running import FIXTURES, HOOK, PYTHON, TIMEOUT, Home, lost_entries, unparsed

# ---------------------------------------------------------------------------------------------
# Concurrency


def real_payloads() -> list[dict[str, Any]]:
    """Every hook payload the real client 2.1.328 gave (tests/fixtures), in order."""
    payloads = []
    for path in sorted(FIXTURES.glob("hook_payloads_*.jsonl")):
        payloads += [
            json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
        ]
    return payloads


def payload_for(template: dict[str, Any], claude: Path, cwd: Path, session_id: str) -> bytes:
    """A real payload moved to this home: its session id, transcript path and cwd replaced."""
    payload = dict(template)
    payload["session_id"] = session_id
    payload["cwd"] = str(cwd)
    payload["transcript_path"] = str(claude / "projects" / slug(str(cwd)) / f"{session_id}.jsonl")
    return json.dumps(payload).encode()


def fire_hook(
    claude: Path, data: bytes, env: dict[str, str], timeout: float = 30
) -> subprocess.CompletedProcess[bytes]:
    """`python -S hooks/should-dream` the way settings.json runs it, with the payload on stdin."""
    return subprocess.run(
        [PYTHON, "-S", str(HOOK)], input=data, capture_output=True, timeout=timeout, env=env
    )


@dataclass
class ConcurrencyFigures:
    pair_rounds: int = 0
    runs: int = 0
    ran: int = 0  # exit 0 (the second of a pair waited for the lock and re-planned)
    busy: int = 0  # exit 3
    other_exits: int = 0
    corrupt_files: int = 0  # unparseable or different from what one run alone writes
    lost_entries: int = 0
    failed_verifies: int = 0
    hooks_fired_during_runs: int = 0
    hook_failures: int = 0  # a hook that exited non-zero, printed, or took > 5 s
    torn_flag_reads: int = 0
    sessions_dropped_from_count: int = 0  # recorded while a run ran, yet cleared by it
    simultaneous_hooks: int = 0
    sessions_counted: int = 0
    flag_writes: int = 0
    problems: list[str] = field(default_factory=list)


def check_run_pairs(work: Path, rounds: int, seed: int, figures: ConcurrencyFigures) -> None:
    from dream.api import Session

    rng = random.Random(seed)
    pristine, before = build_kill_home(work / "pair-pristine")
    clean = rehome(pristine, work / "pair-clean")
    done = clean.dream("run")
    if done.returncode != 0:
        figures.problems.append(f"a single run fails: {done.stdout[-500:]}")
        return
    expected = clean.md_bytes()
    for round_ in range(rounds):
        home = rehome(pristine, work / "pair-work")
        stagger = rng.choice([0.0, 0.0, rng.uniform(0, 0.4)])
        procs = []
        for i in range(2):
            if i == 1 and stagger:
                time.sleep(stagger)
            procs.append(
                subprocess.Popen(
                    [PYTHON, "-m", "dream", "--claude-dir", str(home.claude), "run"],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    env=home.env,
                    cwd=str(home.root),
                )
            )
        results = []
        for proc in procs:
            try:
                out, err = proc.communicate(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = proc.communicate()
            results.append((proc.returncode, out, err))
        figures.pair_rounds += 1
        figures.runs += 2
        codes = [code for code, _, _ in results]
        figures.ran += codes.count(0)
        figures.busy += codes.count(3)
        figures.other_exits += sum(1 for c in codes if c not in (0, 3))
        if 0 not in codes or any(c not in (0, 3) for c in codes):
            figures.problems.append(
                f"round {round_}: exit codes {codes}: {[r[1][-300:] + r[2][-300:] for r in results]}"
            )
        bad = unparsed(home.memory)
        after = home.md_bytes()
        differ = sorted(n for n in set(after) | set(expected) if after.get(n) != expected.get(n))
        if bad or differ:
            figures.corrupt_files += len(bad) + len(differ)
            figures.problems.append(
                f"round {round_} (stagger {stagger:.2f}s, exits {codes}): unparseable {bad}, differs from "
                f"one run alone: {differ}"
            )
        lost = lost_entries(home.memory, before)
        if lost:
            figures.lost_entries += len(lost)
            figures.problems.append(f"round {round_}: lost {lost[:3]}")
        checks = [c for t in Session.open(claude_dir=home.claude).verify().targets for c in t.checks]
        if not all(c.ok for c in checks):
            figures.failed_verifies += 1
            figures.problems.append(f"round {round_}: verify {[c for c in checks if not c.ok]}")


def check_run_while_hooks_fire(work: Path, figures: ConcurrencyFigures) -> None:
    """A run while Stop hooks (real payloads) fire for new sessions of the same project."""
    home = rehome(build_kill_home(work / "hooks-pristine")[0], work / "hooks-work")
    stops = [p for p in real_payloads() if p["hook_event_name"] == "Stop"]
    old = time.time() - 48 * 3600
    (home.memory / ".last-dream").write_text(f"{old:.3f}\n")
    env = home.env
    flag = home.claude / ".dream-pending"
    stop_watch = threading.Event()

    def watch_flag() -> None:
        while not stop_watch.is_set():
            try:
                raw = flag.read_bytes()
            except OSError:
                continue
            try:
                json.loads(raw)
            except ValueError:
                figures.torn_flag_reads += 1

    watcher = threading.Thread(target=watch_flag, daemon=True)
    watcher.start()
    fired: list[tuple[str, float]] = []
    proc = subprocess.Popen(
        [PYTHON, "-m", "dream", "--claude-dir", str(home.claude), "run"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=str(home.root),
    )
    started = time.monotonic()
    try:
        i = 0
        while proc.poll() is None and time.monotonic() - started < TIMEOUT:
            sid = str(uuid.uuid4())
            t0 = time.monotonic()
            hook = fire_hook(home.claude, payload_for(stops[i % len(stops)], home.claude, home.cwd, sid), env)
            if hook.returncode != 0 or hook.stdout or hook.stderr or time.monotonic() - t0 > 5:
                figures.hook_failures += 1
                figures.problems.append(
                    f"hook exit {hook.returncode} out {hook.stdout[:200]!r} err {hook.stderr[:200]!r}"
                )
            fired.append((sid, t0))
            i += 1
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        stop_watch.set()
        watcher.join()
    figures.runs += 1
    figures.hooks_fired_during_runs += len(fired)
    if proc.returncode != 0:
        figures.other_exits += 1
        figures.problems.append(f"the run during hooks exited {proc.returncode}: {out[-500:]} {err[-500:]}")
    else:
        figures.ran += 1
    seen_dir = home.claude / "dream" / "sessions-seen" / home.key
    remaining = set(os.listdir(seen_dir)) if seen_dir.is_dir() else set()
    # None of these sessions has a transcript: the run cannot have consolidated them.
    dropped = [sid for sid, _ in fired if sid not in remaining]
    figures.sessions_dropped_from_count += len(dropped)
    if dropped:
        figures.problems.append(
            f"{len(dropped)} of {len(fired)} sessions whose Stop hook fired during the run were "
            "cleared from the count by the run, though it never read them"
        )
    if unparsed(home.memory):
        figures.corrupt_files += 1


def check_simultaneous_hooks(work: Path, figures: ConcurrencyFigures, n: int = 20) -> None:
    """n Stop hooks at once (real payloads), each a different session of one project, all let go together."""
    home = Home(work / "hooks-20")
    (home.memory / ".last-dream").write_text(f"{time.time() - 48 * 3600:.3f}\n")
    stops = [p for p in real_payloads() if p["hook_event_name"] == "Stop"]
    flag = home.claude / ".dream-pending"
    inodes: set[int] = set()
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            with contextlib.suppress(OSError):
                inodes.add(os.stat(flag).st_ino)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    sessions = [str(uuid.uuid4()) for _ in range(n)]
    procs = []
    try:
        for i, sid in enumerate(sessions):
            procs.append(
                (
                    subprocess.Popen(
                        [PYTHON, "-S", str(HOOK)],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        env=home.env,
                    ),
                    payload_for(stops[i % len(stops)], home.claude, home.cwd, sid),
                )
            )
        for proc, data in procs:
            assert proc.stdin is not None
            proc.stdin.write(data)
        for proc, _ in procs:
            assert proc.stdin is not None
            proc.stdin.close()
        results = [
            (p.wait(timeout=60), p.stdout.read() if p.stdout else b"", p.stderr.read() if p.stderr else b"")
            for p, _ in procs
        ]
    finally:
        done.set()
        watcher.join()
        for proc, _ in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for stream in (proc.stdout, proc.stderr):
                if stream:
                    stream.close()
    figures.simultaneous_hooks += n
    figures.hook_failures += sum(1 for r in results if r != (0, b"", b""))
    seen_dir = home.claude / "dream" / "sessions-seen" / home.key
    seen = sorted(os.listdir(seen_dir)) if seen_dir.is_dir() else []
    figures.sessions_counted += len(seen)
    if seen != sorted(sessions):
        figures.problems.append(f"{n} simultaneous hooks recorded {len(seen)} sessions")
    figures.flag_writes += len(inodes)
    try:
        projects = json.loads(flag.read_bytes())["projects"]
    except (OSError, ValueError, KeyError):
        projects = {}
    if list(projects) != [home.key] or len(inodes) != 1:
        figures.problems.append(
            f"the flag names {list(projects)} after {len(inodes)} writes (want the project, once)"
        )


def check_concurrency(work: Path, rounds: int, seed: int) -> ConcurrencyFigures:
    figures = ConcurrencyFigures()
    check_run_pairs(work, rounds, seed, figures)
    check_run_while_hooks_fire(work, figures)
    check_simultaneous_hooks(work, figures)
    return figures
