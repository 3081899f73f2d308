"""The typical run (issue 17): what a person feels, on a week's home, beside its baselines.

    .venv/bin/python bench/typical.py [--home DIR] [--reps 5] [--results bench/out/RESULTS-typical.md]

On the `make_home.py --typical` home (4 projects, 40 sessions, ~100 MB, 500 entries; made in
bench/out/home-typical unless --home):

- `run --dry-run`, `plan --json` and `run`: a first run (no digest cache, no compiled patterns),
  cold (no digest cache; the pattern cache an earlier run left, as for a person who used dream
  before) and warm (after a run), each repetition interleaved with a bare `python -S -c pass` start
  (the baseline), medians;
- the cold gather (`signals`) against the seed's four greps with their output read through a pipe,
  on two cores and pinned to one (`taskset -c 0`, where it exists), paired and interleaved; with the
  patterns compiled before and on a first run;
- the scan alone (the reader's lanes and counters, the JSON of the lines it hands over) against the
  plainest find + `json.loads` scan, one core, a fresh process each, interleaved;
- per message, the classifier and the whole reading of a message into signals;
- the import time of each command (`python -X importtime`, the sum of the top-level modules).

The package is byte-compiled first (`compileall`), as an installed copy is.

`run` works on a copy of the home made before each repetition (not timed), so every repetition
starts from the same memory. The page cache is warmed first: the figures are of memory, not disk.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
OUT = BENCH / "out"
sys.path.insert(0, str(BENCH))

from run import GREP_SETS, PY, file_batches, machine, transcripts, warm_page_cache  # noqa: E402


def timed(cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, env=env, cwd=cwd, check=False)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 3):
        raise SystemExit(f"{cmd} failed ({done.returncode}): {done.stderr.decode()[-1500:]}")
    return wall


def dream(home: Path, *args: str) -> list[str]:
    return [PY, "-m", "dream", "--claude-dir", str(home), *args]


def env_for(home: Path) -> dict[str, str]:
    scratch = OUT / "typical-scratch-home"
    scratch.mkdir(parents=True, exist_ok=True)
    return {**os.environ, "HOME": str(scratch), "CLAUDE_CONFIG_DIR": str(home)}


def grep_cmd(files: list[Path], pin: list[str]) -> list[list[str]]:
    cmds = []
    for pattern in GREP_SETS.values():
        for batch in file_batches(files):
            cmds.append([*pin, "sh", "-c", 'grep -n -i -E -- "$0" "$@" | wc -l', pattern, *batch])
    return cmds


def median_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f} ms"


def commands_phase(home: Path, reps: int) -> list[tuple[str, list[float], list[float]]]:
    """(label, dream walls, baseline walls) for each command, cold and warm."""
    rows = []
    bare = [PY, "-S", "-c", "pass"]
    patterns = compiled_patterns(home)
    for label, args in (
        ("run --dry-run", ["--dry-run"]),
        ("plan --json", ["plan", "--json"]),
        ("run", ["run"]),
    ):
        for state in ("first run", "cold", "warm"):
            walls, base = [], []
            for _ in range(reps):
                work = OUT / "typical-work"
                if work.exists():
                    shutil.rmtree(work)
                shutil.copytree(home, work, symlinks=True)
                env = env_for(work)
                if state == "warm":
                    subprocess.run(dream(work, "run"), capture_output=True, env=env, check=False)
                else:
                    shutil.rmtree(work / "dream" / "digests", ignore_errors=True)
                    for cached in work.glob("dream/regex-cache-*"):
                        cached.unlink()
                    if state == "cold":  # new sessions, dream used before: its patterns compiled
                        (work / "dream").mkdir(exist_ok=True)
                        shutil.copy2(patterns, work / "dream" / patterns.name)
                os.sync()  # the copy's 100 MB written back now, not during the timed run
                base.append(timed(bare))
                walls.append(timed(dream(work, *args), env=env, cwd=REPO))
            rows.append((f"`{label}`, {state}", walls, base))
    return rows


def compiled_patterns(home: Path) -> Path:
    """The pattern cache (`regex_cache_file.py`) a `run` leaves, made on a scratch copy of the home."""
    scratch = OUT / "typical-patterns"
    if scratch.exists():
        shutil.rmtree(scratch)
    shutil.copytree(home, scratch, symlinks=True)
    subprocess.run(dream(scratch, "run"), capture_output=True, env=env_for(scratch), check=False)
    (found,) = (scratch / "dream").glob("regex-cache-*")
    kept = OUT / found.name
    shutil.copy2(found, kept)
    shutil.rmtree(scratch)
    return kept


def gather_phase(home: Path, reps: int) -> list[tuple[str, list[float], list[float]]]:
    files = transcripts(home)
    pins = [("two cores", [])]
    if shutil.which("taskset"):
        pins.append(("one core (taskset -c 0)", ["taskset", "-c", "0"]))
    rows = []
    env = env_for(home)
    patterns = compiled_patterns(home)
    for first_run in (False, True):
        for label, pin in pins:
            ours, theirs = [], []
            for _ in range(reps):
                shutil.rmtree(home / "dream" / "digests", ignore_errors=True)
                for cached in home.glob("dream/regex-cache-*"):
                    cached.unlink()
                if not first_run:
                    (home / "dream").mkdir(exist_ok=True)
                    shutil.copy2(patterns, home / "dream" / patterns.name)
                ours.append(timed([*pin, *dream(home, "signals")], env=env, cwd=REPO))
                theirs.append(sum(timed(cmd) for cmd in grep_cmd(files, pin)))
            when = "first run (no compiled patterns)" if first_run else "patterns compiled before"
            rows.append((f"cold gather, {label}, {when}", ours, theirs))
    return rows


def scan_worker(kind: str, home: Path) -> None:
    """One timed scan of every transcript, in this process; prints its seconds. `dream`: the reader's
    scan (the person's and the agent's lanes, with every counter) and the JSON of each line it hands
    over; `minimal`: the plainest find of `"type":"user"` and `json.loads` of its line."""
    import json

    sys.path.insert(0, str(REPO))
    from dream import transcripts as t

    files = transcripts(home)
    start = time.perf_counter()
    if kind == "dream":
        stats, lanes = t.ReadStats(), (t._USER_LANE, t._AGENT_LANE)
        for path in files:
            for _, line in t._lane_lines(path, stats, lanes, t._Marks()):
                t._parse(line, stats)
    else:
        for path in files:
            with open(path, "rb") as handle:
                for block in iter(lambda h=handle: h.read(1 << 20), b""):
                    at = block.find(b'"type":"user"')
                    while at >= 0:
                        end = block.find(b"\n", at)
                        if end < 0:
                            break
                        with contextlib.suppress(ValueError):
                            json.loads(block[block.rfind(b"\n", 0, at) + 1 : end])
                        at = block.find(b'"type":"user"', end)
    print(time.perf_counter() - start)


def scan_phase(home: Path, reps: int) -> tuple[list[float], list[float]]:
    """dream's scan against the minimal one, each in a fresh process on one core, interleaved."""
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(reps):
        for kind, into in (("dream", ours), ("minimal", theirs)):
            done = subprocess.run(
                [*pin, PY, str(Path(__file__)), "--scan-worker", kind, "--home", str(home)],
                capture_output=True, text=True, check=True, cwd=REPO,
            )  # fmt: skip
            into.append(float(done.stdout.split()[-1]))
    return ours, theirs


def classify_worker(home: Path) -> None:
    """Microseconds per message of the home's messages (read first, not timed): the classifier (pieces
    and the model's reading of each) and the whole reading of a message into signals; medians of 3."""
    sys.path.insert(0, str(REPO))
    from dream.rules import split_pieces
    from dream.signals import _score_pieces, read_message
    from dream.transcripts import ReadStats, read_claude_transcript

    messages = [m for path in transcripts(home) for m in read_claude_transcript(path, ReadStats())]
    for message in messages:  # compile what is compiled on first use, as a run has by then
        read_message(message, "p", message.text)

    def classify() -> None:
        for message in messages:
            _score_pieces([piece.scored for piece in split_pieces(message.text)], message.text)

    def whole() -> None:
        for message in messages:
            read_message(message, "p", message.text)

    figures = []
    for step in (classify, whole):
        runs = []
        for _ in range(3):
            start = time.perf_counter()
            step()
            runs.append(time.perf_counter() - start)
        figures.append(statistics.median(runs) * 1e6 / len(messages))
    print(len(messages), *figures)


_IMPORT = re.compile(r"import time:\s+\d+ \|\s+(\d+) \| (\S+)")


def import_ms(home: Path, *args: str) -> float:
    """The sum of the cumulative import times of the top-level modules `python -X importtime` lists."""
    done = subprocess.run(
        [PY, "-X", "importtime", "-m", "dream", "--claude-dir", str(home), *args],
        capture_output=True,
        text=True,
        env=env_for(home),
        cwd=REPO,
        check=False,
    )
    total = 0
    for line in done.stderr.splitlines():
        m = _IMPORT.match(line)
        if m and not line.split("|")[2].startswith("  "):  # top level: no indentation
            total += int(m.group(1))
    return total / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, help="a home made by make_home.py --typical")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--results", type=Path, default=OUT / "RESULTS-typical.md")
    parser.add_argument("--scan-worker", choices=("dream", "minimal"), help=argparse.SUPPRESS)
    parser.add_argument("--classify-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scan_worker:
        scan_worker(args.scan_worker, args.home)
        return
    if args.classify_worker:
        classify_worker(args.home)
        return
    OUT.mkdir(exist_ok=True)
    home = args.home
    if home is None:
        home = OUT / "home-typical"
        if home.exists():
            shutil.rmtree(home)
        subprocess.run(
            [PY, str(BENCH / "make_home.py"), str(home), "--typical"], check=True, capture_output=True
        )
    # Bytecode first: with PYTHONDONTWRITEBYTECODE set, every start would compile the sources again,
    # which a person's installed copy never does.
    subprocess.run([PY, "-m", "compileall", "-q", str(REPO / "dream")], check=True, capture_output=True)
    files = transcripts(home)
    size = sum(p.stat().st_size for p in files)
    warm_page_cache(files)
    rows = commands_phase(home, args.reps)
    gather = gather_phase(home, args.reps)
    scan_ours, scan_theirs = scan_phase(home, args.reps)
    classified = subprocess.run(
        [PY, str(Path(__file__)), "--classify-worker", "--home", str(home)],
        capture_output=True, text=True, check=True, cwd=REPO,
    ).stdout.split()  # fmt: skip
    imports = {
        label: import_ms(home, *argv)
        for label, argv in (
            ("--help", ["--help"]),
            ("status", ["status"]),
            ("signals", ["signals"]),
            ("run --dry-run", ["--dry-run"]),
            ("plan --json", ["plan", "--json"]),
        )
    }
    info = machine()
    out = [
        "## The typical run (issue 17)",
        "",
        f"`bench/typical.py --reps {args.reps}`, {info.get('date', '')}, commit {info.get('commit', '?')}: "
        f"{len(files)} sessions, {size / 1e6:.0f} MB of transcripts, 500 entries (`make_home.py --typical`). "
        "Page cache warm. Each repetition is interleaved with its baseline; medians.",
        "",
        "| what | dream | baseline (same repetitions) | ratio |",
        "|---|---|---|---|",
    ]
    for label, walls, base in rows:
        ratio = statistics.median(walls) / statistics.median(base)
        out.append(f"| {label} | {median_ms(walls)} | `python -S -c pass` {median_ms(base)} | {ratio:.1f}× |")
    for label, walls, base in gather:
        ratio = statistics.median(walls) / statistics.median(base)
        out.append(f"| {label} | {median_ms(walls)} | the seed's four greps, output piped: {median_ms(base)} | "
                   f"{ratio:.2f}× |")  # fmt: skip
    mib = size / 2**20
    ours_s, theirs_s = statistics.median(scan_ours), statistics.median(scan_theirs)
    out += [
        "",
        "| the scan, one core, page cache (fresh process each, interleaved) | time | throughput |",
        "|---|---|---|",
        f"| dream: both lanes, every counter, the JSON of each line handed over | {ours_s * 1000:.0f} ms | "
        f"{mib / ours_s:.0f} MiB/s |",
        f'| baseline: find `"type":"user"`, `json.loads` its line | {theirs_s * 1000:.0f} ms | '
        f"{mib / theirs_s:.0f} MiB/s |",
        "",
        f"Per message ({classified[0]} messages of the home, in process, medians of 3): the classifier (pieces "
        f"and the model's reading of each) {float(classified[1]):.0f} µs; reading a message into its signals "
        f"(the classifier, the rules, control text, scores) {float(classified[2]):.0f} µs.",
    ]
    out += ["", "| command | import time (`-X importtime`, top-level modules) |", "|---|---|"]
    out += [f"| `{label}` | {ms:.0f} ms |" for label, ms in imports.items()]
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text("\n".join(out) + "\n", encoding="utf-8")
    print("\n".join(out))
    shutil.rmtree(OUT / "typical-work", ignore_errors=True)


if __name__ == "__main__":
    main()
