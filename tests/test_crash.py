"""A run killed at any point leaves each file either old or new, and the next run completes
(issue 3, must show). Real `python -m dream run` processes, real SIGKILLs.

DREAM_KILLS sets the number of kills (default 20); `DREAM_KILLS=50 pytest tests/test_crash.py` for a
longer run by hand. DREAM_CRASH_SEED fixes the random kill moments.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from homefactory import Turn, now, slug, write_session

from dream.api import Session
from dream.layouts import memory_paths
from dream.memory import load_memory, normalise_key

# SIGKILLs real dream processes.
# Left out of the inner loop (`pytest -m "not slow"`); CI runs it.
pytestmark = pytest.mark.slow

KILLS = int(os.environ.get("DREAM_KILLS", "20"))
SEED = int(os.environ.get("DREAM_CRASH_SEED", str(random.randrange(1 << 30))))
WRITE_WINDOW = float(os.environ.get("DREAM_CRASH_WRITE_WINDOW", "0.02"))  # the writes take ~5-20 ms

TOPICS = ["preferences.md", "decisions.md", "facts.md", "patterns.md", "corrections.md", "infra.md"]
SERVICES = ["billing", "search", "checkout", "ledger", "mailer", "gateway", "profile", "catalog"]


def _day(days_ago: int) -> str:
    return (now().date() - timedelta(days=days_ago)).isoformat()


def _build(root: Path) -> tuple[Path, str, list[str]]:
    """A Claude home with 180 entries, an old MEMORY.md with inline content, and sessions that
    change most files: contradictions, new entries, restatements, stale entries to prune.

    Returns (claude dir, project key, every entry text that exists before the run)."""
    claude = root / ".claude"
    cwd = str(root / "src" / "app")
    Path(cwd).mkdir(parents=True)
    key = slug(cwd)
    memory = claude / "projects" / key / "memory"
    memory.mkdir(parents=True)
    texts: list[str] = []
    files: dict[str, list[str]] = {name: [] for name in TOPICS}
    for i in range(180):
        name = TOPICS[i % len(TOPICS)]
        text = f"The {SERVICES[i % 8]} job number {i} writes its output to bucket b{i}."
        age = 200 if i % 15 == 0 else 3 + i % 50  # some are stale and nobody mentions them
        files[name].append(f"- [{_day(age)}] {text} (source: session {_day(age)} {i:08x}, confidence: high)")
        texts.append(text)
    files["preferences.md"].append(f"- [{_day(30)}] Prefers tabs for indentation.")
    files["decisions.md"].append(f"- [{_day(30)}] Chose Celery for background jobs.")
    files["corrections.md"].append(f"- [{_day(30)}] Uses npm for packages.")
    texts += ["Prefers tabs for indentation.", "Chose Celery for background jobs.", "Uses npm for packages."]
    for name, lines in files.items():
        (memory / name).write_text(f"# {name[:-3].capitalize()}\n\n" + "\n".join(lines) + "\n")
    inline = [f"Inline note {i}: the {SERVICES[i % 8]} dashboard lives in folder d{i}." for i in range(30)]
    texts += inline
    (memory / "MEMORY.md").write_text(
        "# Memory\n\n"
        + "".join(f"- [{n[:-3]}]({n})\n" for n in TOPICS)
        + "\n## Notes\n\n"
        + "".join(f"- {t}\n" for t in inline)
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
        "Yesterday we decided that all services log in JSON, from now on.",
    ]
    for i, text in enumerate(said):
        write_session(
            claude,
            cwd,
            [
                Turn(text, base + timedelta(hours=i)),
                Turn("can you run the tests?", base + timedelta(hours=i, minutes=1)),
            ],
        )
    return claude, key, texts


def _memory_files(memory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in memory.iterdir() if p.name.endswith(".md") and p.is_file()}


def _dream(claude: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dream", "--claude-dir", str(claude), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _lost(memory_dir: Path, texts: list[str]) -> list[str]:
    """Texts that are neither an entry, nor archived, nor a line of the curated MEMORY.md (kept as
    written, or moved whole into memory-continued.md)."""
    memory = load_memory(memory_paths(memory_dir, "native"), "native")
    keys = {e.key for e in memory.entries}
    for name in ("MEMORY.md", "memory-continued.md"):
        if (memory_dir / name).is_file():
            lines = (memory_dir / name).read_text(encoding="utf-8").splitlines()
            keys |= {normalise_key(line.lstrip("-*+ ")) for line in lines}
    archived = {normalise_key(e.text.split(" (archived:", 1)[0]) for e in memory.archived}
    return [t for t in texts if normalise_key(t) not in keys and normalise_key(t) not in archived]


def _writes_imminent(claude: Path) -> bool:
    """The run's snapshot is complete: the next thing it does is write the memory files."""
    return any((claude / "dream" / "snapshots").glob("*/*/manifest.json"))


@pytest.mark.slow
def test_sigkill_at_random_moments_leaves_old_or_new_files_and_the_next_run_completes(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    pristine = tmp_path / "pristine"
    claude0, key, texts = _build(pristine)

    # What a clean run produces.
    clean = tmp_path / "clean"
    shutil.copytree(pristine, clean, symlinks=True)
    started = time.monotonic()
    done = _dream(clean / ".claude", "run")
    duration = time.monotonic() - started
    assert done.returncode == 0, done.stdout + done.stderr
    old = _memory_files(claude0 / "projects" / key / "memory")
    new = _memory_files(clean / ".claude" / "projects" / key / "memory")
    changed = sorted(n for n in set(old) | set(new) if old.get(n) != new.get(n))
    assert len(changed) >= 6, f"the run should change many files, changed only {changed}"
    assert not _lost(clean / ".claude" / "projects" / key / "memory", texts)

    states: Counter[str] = Counter()
    problems: list[str] = []
    converged = survived_differently = 0
    work = tmp_path / "work"
    for kill in range(KILLS):
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(pristine, work, symlinks=True)
        claude = work / ".claude"
        memory = claude / "projects" / key / "memory"
        proc = subprocess.Popen(
            [sys.executable, "-m", "dream", "--claude-dir", str(claude), "run"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if kill % 3 == 0:
            # anywhere in the run: reading, digests, planning, backup, snapshot, writes, state
            time.sleep(rng.uniform(0.05, 1.05) * duration)
        else:
            # aimed at the writes: wait until the snapshot is complete, then a moment more
            deadline = time.monotonic() + 3 * duration + 5
            while proc.poll() is None and not _writes_imminent(claude) and time.monotonic() < deadline:
                time.sleep(0.0005)
            time.sleep(rng.uniform(0, WRITE_WINDOW))
        proc.send_signal(signal.SIGKILL)
        proc.wait()

        after = _memory_files(memory)
        torn = [n for n in set(old) | set(new) | set(after) if after.get(n) not in (old.get(n), new.get(n))]
        parsed = load_memory(memory_paths(memory, "native"), "native")
        kinds = {"old" if after.get(n) == old.get(n) else "new" for n in changed}
        state = "old" if kinds == {"old"} else "new" if kinds == {"new"} else "mixed"
        states[state] += 1
        if proc.returncode != -signal.SIGKILL:
            states["finished before the kill"] += 1
        label = f"kill {kill} ({state}, new: {sorted(n for n in changed if after.get(n) == new.get(n))})"
        if torn:
            problems.append(f"{label}: neither old nor new: {torn}")
        if parsed.unparsed:
            problems.append(f"{label}: unparseable: {[(f.name, f.error) for f in parsed.unparsed]}")

        # The next run completes, verify passes, and nothing the memory held before is lost.
        # (In-process, the same code as the CLI's run: an interpreter start per kill is the
        # slowest part of this test. The last recovery goes through the CLI.)
        if kill == KILLS - 1:
            recovery = _dream(claude, "run")
            code, failure = (
                recovery.returncode,
                next((line for line in recovery.stdout.splitlines() if line.startswith("failure")), ""),
            )
        else:
            result = Session.open(claude_dir=claude).run()
            code, failure = result.exit_code, "; ".join(f for t in result.targets for f in t.failures)
        if code != 0:
            problems.append(f"{label}: next run exit {code} {failure[:160]}")
        checks = [
            c.name for t in Session.open(claude_dir=claude).verify().targets for c in t.checks if not c.ok
        ]
        if checks:
            problems.append(f"{label}: verify fails {checks}")
        lost = _lost(memory, texts)
        if lost:
            problems.append(f"{label}: {len(lost)} entries lost, e.g. {lost[:2]}")
        if _memory_files(memory) == new:
            converged += 1
        else:
            survived_differently += 1

    final_verify = _dream(claude, "verify")
    if final_verify.returncode != 0:
        problems.append(
            f"last kill: `dream verify` exit {final_verify.returncode}: {final_verify.stderr.strip()}"
        )
    summary = (
        f"crash: {KILLS} kills (seed {SEED}), states {dict(states)}, {converged} recoveries "
        f"byte-identical to a clean run, {survived_differently} different; clean run {duration:.2f}s"
    )
    print("\n" + summary)
    assert states["old"] + states["new"] + states["mixed"] == KILLS
    assert not problems, summary + "\n" + "\n".join(problems)


def _run_and_die_after(claude: Path, writes: int) -> int:
    """A run in a forked child that SIGKILLs itself right after its `writes`-th memory file write:
    every boundary between two file writes, deterministically. Returns the wait status."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child never returns
        try:
            import dream.apply as apply_module

            original = apply_module.atomic_write_bytes
            done = [0]

            def write_then_die(path, data, *, mode=None):  # type: ignore[no-untyped-def]
                original(path, data, mode=mode)
                done[0] += 1
                if done[0] >= writes:
                    os.kill(os.getpid(), signal.SIGKILL)

            apply_module.atomic_write_bytes = write_then_die  # type: ignore[assignment]
            Session.open(claude_dir=claude).run()
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    return status


def test_killed_between_any_two_file_writes_the_next_run_completes_and_loses_nothing(tmp_path: Path) -> None:
    pristine = tmp_path / "pristine"
    claude0, key, texts = _build(pristine)
    clean = tmp_path / "clean"
    shutil.copytree(pristine, clean, symlinks=True)
    result = Session.open(claude_dir=clean / ".claude").run()
    assert result.exit_code == 0
    written = result.targets[0].written
    old = _memory_files(claude0 / "projects" / key / "memory")
    new = _memory_files(clean / ".claude" / "projects" / key / "memory")
    assert len(written) >= 6, written

    failures = []
    for writes in range(1, len(written)):
        work = tmp_path / f"k{writes}"
        shutil.copytree(pristine, work, symlinks=True)
        claude = work / ".claude"
        memory = claude / "projects" / key / "memory"
        status = _run_and_die_after(claude, writes)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status
        after = _memory_files(memory)
        state = {
            n: "old" if after.get(n) == old.get(n) else "new" if after.get(n) == new.get(n) else "torn"
            for n in set(old) | set(new)
        }
        assert "torn" not in state.values(), state
        assert sum(v == "new" for n, v in state.items() if old.get(n) != new.get(n)) == writes, state

        recovery = Session.open(claude_dir=claude).run()
        problems = []
        if recovery.exit_code != 0:
            problems.append(f"next run exit {recovery.exit_code}: {recovery.targets[0].failures}")
        lost = _lost(memory, texts)
        if lost:
            problems.append(f"{len(lost)} entries lost, e.g. {lost[:2]}")
        checks = [c for t in Session.open(claude_dir=claude).verify().targets for c in t.checks if not c.ok]
        if checks:
            problems.append(f"verify: {[c.name for c in checks]}")
        if problems:
            first_new = sorted(n for n, v in state.items() if v == "new")
            failures.append(
                f"killed after {writes} of {len(written)} writes (new: {first_new}): {'; '.join(problems)}"
            )
    assert not failures, "\n".join(failures)
