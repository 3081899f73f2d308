"""dream at scale against its baselines (issue 6). Plain Python: it measures and reports, asserts nothing.

    .venv/bin/python bench/run.py --quick     # ~50 MB home, a smoke run in about a minute
    .venv/bin/python bench/run.py             # the large home: ~1 GB, 2,000 sessions (takes a while)

Writes bench/RESULTS.md (the full mode) or bench/out/RESULTS-quick.md (--quick); `--results PATH`
overrides. The generated home goes to bench/out/home-<mode>/ (git-ignored) and is deleted at the end
unless --keep-home; `--home DIR` reuses a home made by bench/make_home.py. `--profile` adds cProfile
runs of the slow parts (bench/out/profile-*.txt and a summary in the results).

Every figure stands beside its baseline, measured in the same run:
  gather, cold   `python -m dream signals` with no digest cache, vs the seed's four `grep -n -i -E`
                 pattern sets over the same transcripts (3 runs each, alternating; medians)
  gather, warm   the same with the digest cache and nothing changed; then after one new session
  consolidate    propose() and build_plan() in-process: 1,000 signals vs 1,000 / 10,000 / 50,000 entries
  hook           bench/bench_hook.py (should-dream vs `python -S -c pass`, >= 50 runs, 10,000 transcripts)
  startup        `python -m dream --help` vs a bare interpreter, median of 20
  memory         peak RSS (os.wait4 rusage of the child) of the cold gather and of `run --dry-run`
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import platform
import pstats
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
OUT = BENCH / "out"
sys.path.insert(0, str(BENCH))

import make_home  # noqa: E402

# The seed design's keyword sets (its GATHER step greps each over every transcript, then reads
# the context of every match). Taken as given in issue 6's brief; `-i -E`, whole matching lines.
GREP_SETS = {
    "corrections": "actually|no,|wrong|not what I|I said|instead",
    "preferences": "I prefer|I want|always|never|don't|please use",
    "decisions": "let's go with|we decided|decided to|switch to|use .* instead",
    "patterns": "again|every time|each time|as usual|like last time",
}

# A reference point, not a baseline: the plainest Python line scan with a byte pre-filter
# (what issue 6 says "already runs at about 2.5x grep's speed").
LINE_SCAN = r"""
import sys, json
n = 0
for name in sys.argv[1:]:
    with open(name, 'rb') as f:
        for line in f:
            if b'"type":"user"' in line and b'"toolUseResult"' not in line:
                obj = json.loads(line)
                if isinstance(obj.get('message', {}).get('content'), str):
                    n += 1
print(n)
"""


def interpreter() -> str:
    """The venv's python as given (a symlink straight to the binary: no pyenv shim in between).

    Not resolved further: the resolved binary would lose the venv (pyvenv.cfg sits beside the link).
    """
    exe = sys.executable
    with open(os.path.realpath(exe), "rb") as handle:
        if handle.read(4) != b"\x7fELF":
            raise SystemExit(f"{exe} is not a binary (a version-manager shim?): run with .venv/bin/python")
    return exe


PY = interpreter()
# The package under test: a copy of the working tree's dream/ taken when the benchmark starts, so
# edits made while it runs (others work in this tree) cannot change the code halfway through.
SNAPSHOT = OUT / "src"


def take_snapshot() -> dict[str, str]:
    """Copy dream/ to bench/out/src/dream (retrying while a half-made edit fails to import)."""
    import hashlib

    for attempt in range(10):
        shutil.rmtree(SNAPSHOT, ignore_errors=True)
        shutil.copytree(REPO / "dream", SNAPSHOT / "dream", ignore=shutil.ignore_patterns("__pycache__"))
        check = subprocess.run(
            [
                PY,
                "-c",
                "import dream, dream.api, dream.plan; from dream.model import load_model; load_model(); "
                "print(dream.__file__)",
            ],
            cwd=SNAPSHOT,
            capture_output=True,
            text=True,
            env=dream_env(),
        )
        if check.returncode == 0 and check.stdout.strip().startswith(str(SNAPSHOT)):
            digest = hashlib.sha256()
            for path in sorted((SNAPSHOT / "dream").rglob("*")):
                if path.is_file():
                    digest.update(path.relative_to(SNAPSHOT).as_posix().encode() + b"\0" + path.read_bytes())
            return {
                "path": str(SNAPSHOT / "dream"),
                "sha256": digest.hexdigest()[:16],
                "attempts": str(attempt + 1),
            }
        time.sleep(5)
    raise SystemExit(f"the working tree's dream/ does not import: {check.stderr[-1500:]}")


def dream_env() -> dict[str, str]:
    """The environment of every process that runs dream: the snapshot first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SNAPSHOT)
    env.pop("CLAUDE_CONFIG_DIR", None)
    return env


# -- measuring -----------------------------------------------------------------------------------


def measure(
    cmd: list[str],
    *,
    stdout: Any = subprocess.DEVNULL,
    cwd: Path = REPO,
    env: dict[str, str] | None = None,
    timeout: float | None = None,
) -> dict[str, Any]:
    """Wall time, peak RSS (KiB, the child and its waited-for children) and exit code of one command."""
    import threading

    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(cmd, stdout=stdout, stderr=err, cwd=cwd, env=env)
        timer = threading.Timer(timeout, process.kill) if timeout else None
        if timer:
            timer.start()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        if timer:
            timer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    cpu = usage.ru_utime + usage.ru_stime
    return {
        "wall": wall,
        "cpu": cpu,
        "rss_kb": usage.ru_maxrss,
        "rc": process.returncode,
        "stderr": stderr.strip(),
    }


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def fmt_s(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def shell_quote(args: list[str]) -> str:
    import shlex

    return " ".join(shlex.quote(a) for a in args)


def transcripts(home: Path) -> list[Path]:
    """The files dream reads in the native layout: projects/<slug>/*.jsonl and projects/<slug>/sessions/*.jsonl."""
    found = sorted(home.glob("projects/*/*.jsonl")) + sorted(home.glob("projects/*/sessions/*.jsonl"))
    return [p for p in found if not p.name.startswith("agent-")]


def file_batches(files: list[Path], limit: int = 1_000_000) -> list[list[str]]:
    """Argument lists under ARG_MAX."""
    batches: list[list[str]] = [[]]
    size = 0
    for path in files:
        text = str(path)
        if size + len(text) + 1 > limit and batches[-1]:
            batches.append([])
            size = 0
        batches[-1].append(text)
        size += len(text) + 1
    return batches


def grep_baseline(files: list[Path]) -> dict[str, Any]:
    """The seed's method: each pattern set as `grep -n -i -E` over every transcript, output consumed by wc."""
    total = 0.0
    total_cpu = 0.0
    peak = 0
    per_set = {}
    for name, pattern in GREP_SETS.items():
        wall = 0.0
        matches = 0
        for batch in file_batches(files):
            cmd = ["sh", "-c", 'grep -n -i -E -- "$0" "$@" | wc -l', pattern, *batch]
            with tempfile.TemporaryFile() as out:
                result = measure(cmd, stdout=out)
                out.seek(0)
                matches += int(out.read().strip() or 0)
            wall += result["wall"]
            total_cpu += result["cpu"]
            peak = max(peak, result["rss_kb"])
        per_set[name] = {"wall": wall, "matching_lines": matches}
        total += wall
    return {"wall": total, "cpu": total_cpu, "rss_kb": peak, "sets": per_set}


def line_scan(files: list[Path]) -> dict[str, Any]:
    wall = cpu = 0.0
    peak = 0
    for batch in file_batches(files):
        result = measure([PY, "-S", "-c", LINE_SCAN, *batch])
        wall += result["wall"]
        cpu += result["cpu"]
        peak = max(peak, result["rss_kb"])
    return {"wall": wall, "cpu": cpu, "rss_kb": peak}


def warm_page_cache(files: list[Path]) -> float:
    start = time.perf_counter()
    for batch in file_batches(files):
        subprocess.run(["sh", "-c", 'cat -- "$@" | wc -c > /dev/null', "cat", *batch], check=True)
    return time.perf_counter() - start


def dream_cmd(home: Path, *args: str, since: str | None) -> list[str]:
    cmd = [PY, "-m", "dream", *args, "--claude-dir", str(home)]
    return cmd + (["--since", since] if since else [])


def run_dream(home: Path, args: list[str], since: str | None, log: Path) -> dict[str, Any]:
    with open(log, "wb") as out:
        result = measure(dream_cmd(home, *args, since=since), stdout=out, cwd=SNAPSHOT, env=dream_env())
    with open(log, "rb") as lines:
        result["stdout_lines"] = sum(1 for _ in lines)
    return result


def summary_lines(text: str, project: str) -> list[str]:
    """The read line, the memory project's lines and a count of the other projects of a run report."""
    lines = text.splitlines()
    keep = [line for line in lines if line.startswith("read:")]
    others = 0
    for i, line in enumerate(lines):
        if line.startswith("== "):
            if line.startswith(f"== {project} "):
                keep.extend(lines[i : i + 2])
            else:
                others += 1
    keep.append(f"(and {others} other projects)")
    return keep


WARM_REPS = 9


def drop_digests(home: Path) -> None:
    shutil.rmtree(home / "dream" / "digests", ignore_errors=True)


# -- workers (run in a child process by the main benchmark) ----------------------------------------


def bench_signals(count: int, seed: int, now: datetime, project: str) -> list[Any]:
    """`count` Signal objects from the labelled sentences (tests/data), cycled with fresh ids and times."""
    from dream.signals import Signal

    rng = random.Random(f"{seed}/signals")
    sentences = make_home.signal_sentences()
    rng.shuffle(sentences)
    out = []
    for i in range(count):
        item = sentences[i % len(sentences)]
        text = " ".join(item["text"].split())
        if len(text) > 200:
            text = text[:199].rsplit(" ", 1)[0] + "…"
        stamp = now - timedelta(seconds=rng.uniform(3600, 6.5 * 86400))
        confidence = rng.choice([0.72, 0.88, 0.93, 0.97, 0.99])
        out.append(
            Signal(
                project=project,
                session_id=make_home.seeded_uuid(rng),
                uuid=make_home.seeded_uuid(rng),
                timestamp=stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                category=item["labels"][0],
                text=text,
                confidence=confidence,
                durability=rng.choice([0.7, 0.86, 0.93, 0.99]),
                change_risk=rng.choice([0.1, 0.1, 0.1, 0.45]),
                sensitivity=0.05,
                categories=tuple(item["labels"]),
            )
        )
    return out


def consolidate_worker(entries: int, signals: int, seed: int, reps: int, profile: str | None) -> None:
    """Time load_memory, propose and build_plan for `signals` signals against `entries` entries; print JSON."""
    from dream import statement
    from dream.cli import GC_THRESHOLDS
    from dream.config import Config
    from dream.digest import Digest
    from dream.gates import Outcome
    from dream.layouts import memory_paths
    from dream.memory import load_memory
    from dream.plan import build_plan
    from dream.proposals import propose
    from dream.review import ReviewState
    from dream.target import Target

    now = datetime.now(timezone.utc).replace(microsecond=0)
    root = Path(tempfile.mkdtemp(prefix=f"consolidate-{entries}-", dir=OUT))
    try:
        memory_dir = root / "projects" / "-home-bench-src-billing-service" / "memory"
        make_home.write_memory(memory_dir, entries, seed, now)
        mp = memory_paths(memory_dir, "native")
        # As the CLI runs: its garbage-collector thresholds, and every repetition starts from
        # nothing cached (a dream run is one process: it loads the memory and plans once).
        gc.set_threshold(*GC_THRESHOLDS)
        load_times: list[float] = []

        def fresh_memory() -> Any:
            for cached in (statement.analyse, statement.stem, statement.is_key_term):
                cached.cache_clear()
            start = time.perf_counter()
            loaded = load_memory(mp, "native")
            load_times.append(time.perf_counter() - start)
            return loaded

        memory = fresh_memory()
        found = bench_signals(signals, seed, now, "-home-bench-src-billing-service")
        # The window's words (what prune counts as a mention): those of the labelled messages.
        terms = set()
        for message in make_home.train_messages():
            terms.update(re.findall(r"[a-z][a-z0-9+#.-]{2,29}", message["text"].lower()))
        digest = Digest(
            "bench",
            "bench",
            "bench",
            [0, 0, 0, 0],
            None,
            None,
            now.isoformat(),
            1,
            [],
            " ".join(sorted(terms)),
        )
        target = Target(
            "-home-bench-src-billing-service", memory_dir, "native", digests=[digest], signals=found
        )
        config = Config()
        # build_plan calls propose once: time that call from inside, so one build_plan gives both.
        import dream.plan as plan_module

        propose_times: list[float] = []
        plan_times: list[float] = []

        propose_cpu: list[float] = []
        plan_cpu: list[float] = []

        def timed_propose(*a: Any, **k: Any) -> Any:
            start, start_cpu = time.perf_counter(), time.process_time()
            try:
                return propose(*a, **k)
            finally:
                propose_times.append(time.perf_counter() - start)
                propose_cpu.append(time.process_time() - start_cpu)

        plan_module.propose = timed_propose  # type: ignore[assignment]
        plan = None
        for rep in range(reps):
            if rep:
                plan = None  # one run's memory alive at a time, as in a real run
                memory = fresh_memory()
            start, start_cpu = time.perf_counter(), time.process_time()
            plan = build_plan(target, memory, config, today=now.date(), review=ReviewState(None))
            plan_times.append(time.perf_counter() - start)
            plan_cpu.append(time.process_time() - start_cpu)
            if sum(plan_times) > 60:
                break  # a slow size gets fewer repetitions
        assert plan is not None
        timed = list(propose_times)
        if profile:  # one more run, under the profiler, not counted in the figures
            profiler = cProfile.Profile()
            profiler.enable()
            build_plan(target, memory, config, today=now.date(), review=ReviewState(None))
            profiler.disable()
            profiler.dump_stats(profile)
        actions: dict[str, int] = {}
        for decision in plan.decisions:
            actions[decision.proposal.action] = actions.get(decision.proposal.action, 0) + 1
        refusals: dict[str, int] = {}
        for refusal in plan.refusals:
            refusals[refusal.reason] = refusals.get(refusal.reason, 0) + 1
        import dream

        print(
            json.dumps(
                {
                    "dream": dream.__file__,
                    "entries": len(memory.entries),
                    "signals": len(found),
                    "distinct_texts": len({s.text for s in found}),
                    "load_memory_s": statistics.median(load_times),
                    "load_memory_runs_s": load_times,
                    "propose_s": timed,
                    "build_plan_s": plan_times,
                    "propose_cpu_s": propose_cpu[: len(timed)],
                    "build_plan_cpu_s": plan_cpu,
                    "proposals": actions,
                    "refusals": refusals,
                    "applied": len(plan.outcome(Outcome.APPLIED)),
                    "pending": len(plan.outcome(Outcome.PENDING)),
                    "pruned": len(plan.index.pruned) if plan.index else 0,
                    # Entries some proposal replaces or archives (one entry can be the target of several).
                    "targeted_entries": len(
                        {id(d.proposal.target) for d in plan.decisions if d.proposal.target is not None}
                    ),
                    "changed_files": len(plan.changes),
                }
            )
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)


def parse_one_worker(path: str, reps: int) -> None:
    """What parsing one session costs: first thing in a fresh process (after the imports a warm run has
    made anyway: the classifier's modules and the model load lazily), then again in-process."""
    from dream.digest import build_digest
    from dream.discover import CLAUDE, SessionSource
    from dream.transcripts import ReadStats

    file = Path(path)
    info = file.stat()
    source = SessionSource(str(file), CLAUDE, file.parent.name, file.stem, info.st_size, info.st_mtime)
    from dream.model import load_model

    start, start_cpu = time.perf_counter(), time.process_time()
    load_model()  # what the first digest built in a run pays once
    model_s = time.perf_counter() - start
    build_digest(source, source.folder, ReadStats())  # imports the classifier's modules on the way
    first_s, first_cpu_s = time.perf_counter() - start, time.process_time() - start_cpu
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        build_digest(source, source.folder, ReadStats())
        times.append(time.perf_counter() - start)
    import dream

    print(
        json.dumps(
            {
                "dream": dream.__file__,
                "bytes": info.st_size,
                "build_digest_s": times,
                "model_load_s": model_s,
                "first_parse_s": first_s,
                "first_parse_cpu_s": first_cpu_s,
            }
        )
    )


def worker_json(
    args: list[str], timeout: float | None = None
) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    with tempfile.TemporaryFile() as out:
        result = measure(
            [PY, str(Path(__file__).resolve()), *args],
            stdout=out,
            cwd=SNAPSHOT,
            env=dream_env(),
            timeout=timeout,
        )
        out.seek(0)
        text = out.read().decode()
    if timeout and result["rc"] == -9:
        return None, result
    if result["rc"] != 0:
        raise SystemExit(f"worker {args} failed ({result['rc']}): {result['stderr'][-2000:]}")
    return json.loads(text.strip().splitlines()[-1]), result


# -- profiles ----------------------------------------------------------------------------------


def profile_summary(prof: Path, txt: Path, top: int = 25) -> list[tuple[str, float, float, int]]:
    stream = io.StringIO()
    stats = pstats.Stats(str(prof), stream=stream)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    txt.write_text(stream.getvalue(), encoding="utf-8")
    rows = []
    for (filename, line, name), (_, calls, tottime, cumtime, _) in stats.stats.items():  # type: ignore[attr-defined]
        short = filename.replace(str(REPO) + "/", "")
        short = re.sub(r".*/lib/python3\.\d+/", "", short)
        rows.append((f"{short}:{line}({name})", tottime, cumtime, calls))
    rows.sort(key=lambda r: -r[1])
    return rows[:12]


def profile_cli(home: Path, args: list[str], since: str | None, name: str) -> dict[str, Any]:
    prof = OUT / f"profile-{name}.prof"
    cmd = [PY, "-m", "cProfile", "-o", str(prof), "-m", "dream", *args, "--claude-dir", str(home)]
    cmd += ["--since", since] if since else []
    result = measure(cmd, cwd=SNAPSHOT, env=dream_env())
    rows = profile_summary(prof, OUT / f"profile-{name}.txt")
    return {"cmd": shell_quote(cmd), "wall": result["wall"], "rows": rows}


def import_times(name: str) -> list[tuple[str, int]]:
    result = subprocess.run(
        [PY, "-X", "importtime", "-m", "dream", "--help"],
        cwd=SNAPSHOT,
        capture_output=True,
        text=True,
        env=dream_env(),
    )
    (OUT / f"profile-{name}.txt").write_text(result.stderr, encoding="utf-8")
    rows = []
    for line in result.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if match and len(match.group(3)) <= 2:
            rows.append((match.group(4), int(match.group(2))))
    rows.sort(key=lambda r: -r[1])
    return rows[:12]


# -- the benchmark ---------------------------------------------------------------------------------


def machine() -> dict[str, str]:
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("MemTotal"):
                    mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass

    def out(cmd: list[str]) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, cwd=REPO).stdout.strip()
        except OSError:
            return "?"

    dirty = [
        line.split(None, 1)[-1]
        for line in out(["git", "status", "--porcelain", "--", "dream", "hooks"]).splitlines()
    ]
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": out(["nproc"]),
        "cpu": cpu,
        "memory": mem,
        "kernel": platform.release(),
        "python": f"{platform.python_version()} ({PY} -> {os.path.realpath(PY)})",
        "grep": out(["grep", "--version"]).splitlines()[0] if out(["grep", "--version"]) else "?",
        "locale": os.environ.get("LC_ALL") or os.environ.get("LANG") or "unset",
        "commit": out(["git", "rev-parse", "--short", "HEAD"]),
        "load": "load average at start: " + " ".join(f"{x:.1f}" for x in os.getloadavg()),
        "dirty": ", ".join(dirty) if dirty else "none",
    }


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.mode = "quick" if args.quick else "large"
        self.r: dict[str, Any] = {"mode": self.mode, "machine": machine(), "commands": []}
        self.since: str | None = None

    def log(self, text: str) -> None:
        print(f"[{datetime.now().strftime('%H:%M:%S')}] {text}", flush=True)

    def command(self, label: str, cmd: list[str] | str) -> None:
        self.r["commands"].append((label, cmd if isinstance(cmd, str) else shell_quote(cmd)))

    # home -------------------------------------------------------------------------------------

    def make(self) -> Path:
        if self.args.home:
            home = self.args.home.resolve()
            self.log(f"reusing {home}")
            self.r["make"] = {"reused": True}
        else:
            home = OUT / f"home-{self.mode}"
            if home.exists():
                shutil.rmtree(home)
            cmd = [
                PY,
                str(BENCH / "make_home.py"),
                str(home),
                f"--{self.mode}",
                "--seed",
                str(self.args.seed),
            ]
            self.command("generate the home", cmd)
            self.log("generating " + shell_quote(cmd))
            result = measure(cmd)
            if result["rc"] != 0:
                raise SystemExit(result["stderr"])
            self.r["make"] = {"wall": result["wall"], "rss_kb": result["rss_kb"]}
        manifest = json.loads((home / make_home.MANIFEST).read_text(encoding="utf-8"))
        self.r["home"] = manifest
        oldest = datetime.fromisoformat(manifest["oldest_event"])
        if oldest < datetime.now(timezone.utc) - timedelta(days=7) + timedelta(minutes=30):
            # The default window (7 days) no longer covers the home: widen it to its first day.
            self.since = oldest.date().isoformat()
        self.r["since"] = self.since or "default (7 days)"
        return home

    # gather ----------------------------------------------------------------------------------

    def gather(self, home: Path) -> None:
        files = transcripts(home)
        size = sum(p.stat().st_size for p in files)
        self.r["files"] = {"count": len(files), "bytes": size}
        self.log(f"{len(files)} transcripts, {size / 1e6:.0f} MB; warming the page cache (cat)")
        self.r["warmup_s"] = warm_page_cache(files)
        self.command("page-cache warm-up", "cat -- <every transcript> | wc -c > /dev/null")
        for name, pattern in GREP_SETS.items():
            self.command(
                f"baseline: {name}", f"grep -n -i -E -- {shell_quote([pattern])} <every transcript> | wc -l"
            )
        self.command("cold gather (digests deleted first)", dream_cmd(home, "signals", since=self.since))
        self.command(
            "reference: Python line scan", f"{PY} -S -c <LINE_SCAN in bench/run.py> <every transcript>"
        )

        cold, grep = [], []
        for rep in range(self.args.reps):
            g = grep_baseline(files)
            grep.append(g)
            self.log(f"grep rep {rep + 1}: {g['wall']:.2f} s (cpu {g['cpu']:.2f} s)")
            drop_digests(home)
            d = run_dream(home, ["signals"], self.since, OUT / f"signals-cold-{self.mode}.txt")
            if d["rc"] != 0:
                raise SystemExit(f"dream signals failed: {d['stderr'][-2000:]}")
            cold.append(d)
            self.log(
                f"dream cold rep {rep + 1}: {d['wall']:.2f} s (cpu {d['cpu']:.2f} s), {d['rss_kb'] / 1024:.0f} MiB; "
                f"{d['stderr'][-200:]}"
            )
        scan = line_scan(files)
        self.log(f"python line scan: {scan['wall']:.2f} s")
        self.r["cold"] = {"dream": cold, "grep": grep, "line_scan": scan}

        # Warm runs and runs with one new session alternate, WARM_REPS of each: their difference is a
        # tenth of a second, and the machine's speed drifts by more than that between minutes.
        warm, added = [], []
        for rep in range(max(self.args.reps, WARM_REPS)):
            d = run_dream(home, ["signals"], self.since, OUT / f"signals-warm-{self.mode}.txt")
            warm.append(d)
            self.log(f"dream warm rep {rep + 1}: {d['wall']:.3f} s (cpu {d['cpu']:.3f} s)")
            info = make_home.add_session(home, self.args.seed, rep, project=1)
            d = run_dream(home, ["signals"], self.since, OUT / f"signals-plus1-{self.mode}.txt")
            parse, _ = worker_json(["--parse-one", info["path"], "--reps", "5"])
            d.update(
                new_session_bytes=info["bytes"],
                parse_s=median(parse["build_digest_s"]),
                model_load_s=parse["model_load_s"],
                first_parse_cpu_s=parse["first_parse_cpu_s"],
            )
            added.append(d)
            self.log(
                f"dream warm + 1 session rep {rep + 1}: {d['wall']:.3f} s (cpu {d['cpu']:.3f} s; that session "
                f"parsed first in a fresh process: cpu {d['first_parse_cpu_s'] * 1000:.0f} ms)"
            )
            Path(info["path"]).unlink()
            # Not timed: drops the removed session from its folder's pack, so the next warm run writes nothing.
            run_dream(home, ["signals"], self.since, OUT / f"signals-cleanup-{self.mode}.txt")
        self.r["warm"] = warm
        self.r["plus1"] = added
        self.command("warm gather (digests kept)", dream_cmd(home, "signals", since=self.since))
        self.command(
            "one new session",
            f"make_home.add_session(HOME, {self.args.seed}, n, project=1), then the warm gather",
        )

    def full_run(self, home: Path) -> None:
        runs = {}
        for label, cold in (("warm", False), ("cold", True)):
            if cold:
                drop_digests(home)
            d = run_dream(home, ["run", "--dry-run"], self.since, OUT / f"run-dry-{label}-{self.mode}.txt")
            head = (OUT / f"run-dry-{label}-{self.mode}.txt").read_text(encoding="utf-8", errors="replace")
            d["summary"] = summary_lines(head, self.r["home"]["memory_project"])
            runs[label] = d
            self.log(
                f"run --dry-run ({label} cache): {d['wall']:.2f} s, {d['rss_kb'] / 1024:.0f} MiB, exit {d['rc']}"
            )
        self.r["full_run"] = runs
        self.command(
            "full run, dry (digests present, then deleted)",
            dream_cmd(home, "run", "--dry-run", since=self.since),
        )

    # consolidate ------------------------------------------------------------------------------------

    def consolidate(self) -> None:
        """Each size in its own worker, one run each, the sizes interleaved repetition by repetition:
        a slow spell of the shared machine then falls on every size alike, not on one growth ratio."""
        sizes = self.consolidate_sizes()
        rows: dict[int, dict[str, Any]] = {}
        reps = 1 if self.mode == "quick" else self.args.reps
        for rep in range(reps):
            for n in sizes:
                if "timed_out" in rows.get(n, {}):
                    continue
                prof = (
                    str(OUT / f"profile-consolidate-{n}.prof")
                    if self.args.profile and n == sizes[1] and rep == 0
                    else None
                )
                args = [
                    "--consolidate-worker",
                    str(n),
                    "--signals",
                    "1000",
                    "--seed",
                    str(self.args.seed),
                    "--reps",
                    "1",
                ] + (["--profile-to", prof] if prof else [])
                data, proc = worker_json(args, timeout=self.args.consolidate_timeout)
                if data is None:
                    self.log(
                        f"consolidate 1,000 into {n:,}: stopped after {proc['wall']:.0f} s (--consolidate-timeout)"
                    )
                    rows[n] = {"timed_out": proc["wall"], "worker_rss_kb": proc["rss_kb"]}
                    continue
                self.log(
                    f"consolidate 1,000 into {n:,}, rep {rep + 1}: propose {data['propose_s'][0]:.3f} s, "
                    f"build_plan {data['build_plan_s'][0]:.3f} s (cpu {data['build_plan_cpu_s'][0]:.3f} s), "
                    f"load {data['load_memory_s']:.2f} s"
                )
                if n not in rows:
                    data["worker_rss_kb"] = proc["rss_kb"]
                    data["load_memory_runs_s"] = []
                    rows[n] = {
                        **data,
                        "propose_s": [],
                        "build_plan_s": [],
                        "propose_cpu_s": [],
                        "build_plan_cpu_s": [],
                    }
                row = rows[n]
                for key in ("propose_s", "build_plan_s", "propose_cpu_s", "build_plan_cpu_s"):
                    row[key].extend(data[key])
                row["load_memory_runs_s"].append(data["load_memory_s"])
                row["load_memory_s"] = median(row["load_memory_runs_s"])
                row["worker_rss_kb"] = max(row["worker_rss_kb"], proc["rss_kb"])
                if prof:
                    self.r.setdefault("profiles", {})[
                        f"consolidate: build_plan, 1,000 signals into {n:,} entries"
                    ] = {
                        "cmd": f"{PY} bench/run.py " + shell_quote(args),
                        "rows": profile_summary(Path(prof), OUT / f"profile-consolidate-{n}.txt"),
                    }
                self.r["consolidate"] = rows
                self.save()
        self.r["consolidate"] = rows
        self.command(
            "consolidate (each size N, once per repetition, sizes interleaved)",
            f"{PY} bench/run.py --consolidate-worker N --signals 1000 --reps 1",
        )

    def consolidate_sizes(self) -> list[int]:
        return [1_000, 2_000, 5_000] if self.mode == "quick" else [1_000, 10_000, 50_000]

    def save(self) -> None:
        (OUT / f"results-{self.mode}.json").write_text(
            json.dumps(self.r, indent=1, default=str), encoding="utf-8"
        )

    # hook, startup -------------------------------------------------------------------------------------

    def hook(self) -> None:
        cmd = [PY, str(BENCH / "bench_hook.py"), "--runs", str(self.args.hook_runs), "--transcripts", "10000"]
        self.command("hook", cmd)
        self.log("hook: " + shell_quote(cmd))
        result = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
        self.r["hook"] = {
            "stdout": result.stdout.strip(),
            "stderr": result.stderr.strip()[-2000:],
            "rc": result.returncode,
        }
        rows = {}
        for line in result.stdout.splitlines():
            match = re.match(
                r"(python -S -c pass|should-dream \S+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", line.strip()
            )
            if match:
                rows[match.group(1)] = {
                    "median_ms": float(match.group(2)),
                    "p95_ms": float(match.group(3)),
                    "ratio": float(match.group(4)),
                }
        self.r["hook"]["rows"] = rows
        self.log(result.stdout.strip())

    def startup(self) -> None:
        cmds = {
            "python -m dream --help": [PY, "-m", "dream", "--help"],
            "python -S -c pass": [PY, "-S", "-c", "pass"],
            "python -c pass": [PY, "-c", "pass"],
        }
        # The same without `site` (so without the editable install's finder, which this dev venv imports
        # at every start), site-packages given on PYTHONPATH: dream's own import cost.
        import sysconfig

        no_site = dict(dream_env())
        no_site["PYTHONPATH"] = os.pathsep.join([str(SNAPSHOT), sysconfig.get_paths()["purelib"]])
        cmds["python -S -m dream --help (site-packages on PYTHONPATH)"] = [PY, "-S", "-m", "dream", "--help"]
        envs = {name: no_site if name.startswith("python -S -m") else dream_env() for name in cmds}
        samples: dict[str, list[float]] = {k: [] for k in cmds}
        for name, cmd in cmds.items():
            measure(cmd, cwd=SNAPSHOT, env=envs[name])  # warm-up
        for _ in range(20):
            for name, cmd in cmds.items():
                samples[name].append(measure(cmd, cwd=SNAPSHOT, env=envs[name])["wall"])
        self.r["startup"] = {name: {"median": median(v), "p95": p95(v)} for name, v in samples.items()}
        self.command("startup", cmds["python -m dream --help"])
        self.log("startup: " + ", ".join(f"{k} {median(v) * 1000:.0f} ms" for k, v in samples.items()))

    # profiles ---------------------------------------------------------------------------------------

    def profiles(self, home: Path) -> None:
        profiles = self.r.setdefault("profiles", {})
        drop_digests(home)
        profiles["cold gather (signals)"] = profile_cli(
            home, ["signals"], self.since, f"gather-cold-{self.mode}"
        )
        profiles["warm gather (signals)"] = profile_cli(
            home, ["signals"], self.since, f"gather-warm-{self.mode}"
        )
        profiles["full run, dry, warm cache"] = profile_cli(
            home, ["run", "--dry-run"], self.since, f"run-dry-{self.mode}"
        )
        self.r["importtime"] = import_times(f"importtime-{self.mode}")
        self.log("profiles written to bench/out/profile-*.txt")


# -- report -------------------------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    return "meets" if ok else "**misses**"


def _runs(items: list[dict[str, Any]], key: str = "wall", scale: float = 1.0, digits: int = 3) -> str:
    return ", ".join(f"{x[key] * scale:.{digits}f}" for x in items)


def render(r: dict[str, Any]) -> str:
    m = r["machine"]
    home = r["home"]
    files = r["files"]
    mb = files["bytes"] / 1e6
    quick = r["mode"] == "quick"
    L: list[str] = []
    add = L.append
    add(
        f"# Benchmark results ({'quick smoke run: a small home, not the targets' if quick else 'large home'})"
    )
    add("")
    add(
        "Produced by `bench/run.py` (see bench/README.md). Plain measurements, no timed assertions; "
        "every figure stands beside its baseline from the same run. Medians unless marked. The machine is "
        "shared and noisy: other processes ran beside this benchmark."
    )
    add("")
    add("## Machine")
    add("")
    add("| | |\n|---|---|")
    if r.get("load_end"):
        m = {**m, "load": m.get("load", "") + "; at the end: " + r["load_end"]}
    for key in (
        "date",
        "nproc",
        "cpu",
        "memory",
        "kernel",
        "python",
        "grep",
        "locale",
        "commit",
        "dirty",
        "load",
    ):
        label = {"dirty": "uncommitted changes in dream/ hooks/ when measured"}.get(key, key)
        add(f"| {label} | {m.get(key, '?')} |")
    add("")
    add("## The home")
    add("")
    opts = home["options"]
    memory = home.get("memory") or {"entries": 0, "native_files": 0}
    made = "reused" if r["make"].get("reused") else "generated in " + fmt_s(r["make"]["wall"])
    add(
        f"`bench/make_home.py` ({made}), seed {home['seed']}, reference time {home['now']}: {home['projects']} projects, "
        f"{home['sessions']} sessions (mean {opts['turns']} turns), {home['transcript_bytes'] / 1e6:.0f} MB of transcripts "
        f"in the 2.1.328 format (lines from tests/homefactory.py); the user's own entries are "
        f"{home['user_entry_share'] * 100:.1f} % of the bytes; events from {home['oldest_event'][:16]} to "
        f"{home['newest_event'][:16]}; window: {r['since']}. Memory: {memory['entries']:,} entries in "
        f"`projects/{home['memory_project']}/memory/` (+ {memory['native_files']} Claude Code memory files)."
    )
    add("")

    cold = r.get("cold")
    cons = {int(n): v for n, v in r["consolidate"].items()} if r.get("consolidate") else None
    hook = (r.get("hook") or {}).get("rows", {})
    st = r.get("startup")
    full = r.get("full_run")
    add("## Against the targets of issue 6")
    add("")
    if quick:
        add(
            "Quick mode: the home is ~20 times smaller than the one the targets are set for, and consolidate "
            "stops at 5,000 entries; read these rows as a smoke test of the benchmark, not as the figures."
        )
        add("")
    add("| target | measured | baseline (same run) | |")
    add("|---|---|---|---|")
    if cold:
        cold_d = median([x["wall"] for x in cold["dream"]])
        cold_g = median([x["wall"] for x in cold["grep"]])
        cold_rss = max(x["rss_kb"] for x in cold["dream"]) / 1024
        ratio = cold_d / cold_g
        cpu_d = median([x["cpu"] for x in cold["dream"]])
        cpu_g = median([x["cpu"] for x in cold["grep"]])
        add(
            f"| cold gather ≤ 1.0 × the seed's grep (wall) | {fmt_s(cold_d)} ({mb / cold_d:.0f} MB/s) | grep, 4 sets: "
            f"{fmt_s(cold_g)} ({mb / cold_g:.0f} MB/s) | ratio **{ratio:.2f}**: {verdict(ratio <= 1.0)} |"
        )
        add(
            f"| the same in CPU time (user + sys; less sensitive to the load) | {fmt_s(cpu_d)} ({mb / cpu_d:.0f} MB/s) | "
            f"grep + wc: {fmt_s(cpu_g)} | ratio **{cpu_d / cpu_g:.2f}** |"
        )
        add(
            f"| cold gather peak RSS < 300 MB | {cold_rss:.0f} MiB | grep {cold['grep'][0]['rss_kb'] / 1024:.0f} MiB | "
            f"{verdict(cold_rss * 1.048576 < 300)} |"
        )
        warm = median([x["wall"] for x in r["warm"]])
        plus1 = median([x["wall"] for x in r["plus1"]])
        parse1 = median([x["parse_s"] for x in r["plus1"]])
        warm_cpu = median([x["cpu"] for x in r["warm"]])
        add(
            f"| warm gather, nothing changed < 0.5 s | {fmt_s(warm)} (cpu {fmt_s(warm_cpu)}) | cold {fmt_s(cold_d)} | "
            f"{verdict(warm < 0.5)} |"
        )
        extra = plus1 - warm
        extra_cpu = median([x["cpu"] for x in r["plus1"]]) - warm_cpu
        model = median([x.get("model_load_s", 0.0) for x in r["plus1"]])
        first = median([x.get("first_parse_cpu_s", 0.0) for x in r["plus1"]])
        add(
            f"| one new session costs about one session's parse | +{fmt_s(max(extra, 0))} wall, +{fmt_s(max(extra_cpu, 0))} "
            f"cpu over warm ({fmt_s(plus1)} in all) | that session parsed first thing in a fresh process: cpu "
            f"{fmt_s(first)} (the classifier's imports, the signal model {fmt_s(model)}, the parse); again in-process: "
            f"{fmt_s(parse1)}; cold ÷ sessions: {fmt_s(cold_d / files['count'])} | "
            f"{verdict(extra_cpu <= first + 0.05)} (criterion: cpu extra ≤ that first parse + 50 ms for rewriting "
            "its folder's digest pack) |"
        )
    if cons:
        sizes = sorted(int(n) for n in cons)
        done = [n for n in sizes if "timed_out" not in cons[n]]
        plan_m = {n: median(cons[n]["build_plan_s"]) if n in done else cons[n]["timed_out"] for n in sizes}
        prop_m = {n: median(cons[n]["propose_s"]) if n in done else float("nan") for n in sizes}
        cpu_m = {
            n: median(cons[n]["build_plan_cpu_s"])
            if n in done and cons[n].get("build_plan_cpu_s")
            else float("nan")
            for n in sizes
        }

        def t(n: int, table: dict[int, float]) -> str:
            return fmt_s(table[n]) if n in done else f"> {fmt_s(table[n])} (stopped)"

        mid = sizes[1] if len(sizes) > 1 else sizes[0]
        if mid == 10_000:
            add(
                f"| consolidate 1,000 into 10,000 < 2 s | build_plan {t(mid, plan_m)} (of which propose "
                f"{t(mid, prop_m)}) | into 1,000: {t(sizes[0], plan_m)} | {verdict(mid in done and plan_m[mid] < 2)} |"
            )
        else:
            add(
                f"| consolidate 1,000 into {mid:,} (quick) | build_plan {t(mid, plan_m)} (propose {t(mid, prop_m)}) "
                f"| into 1,000: {t(sizes[0], plan_m)} | n/a |"
            )
        if len(sizes) > 2:
            big = sizes[2]
            linear = big / mid
            growth = plan_m[big] / plan_m[mid]
            more = "" if big in done else "more than "
            add(
                f"| growth {mid // 1000}k → {big // 1000}k entries no worse than linear (≤ ×{linear:.1f}) | build_plan "
                f"{more}×{growth:.2f} (cpu ×{cpu_m[big] / cpu_m[mid]:.2f}), propose ×{prop_m[big] / prop_m[mid]:.2f} | "
                f"1k → {mid // 1000}k: "
                f"×{plan_m[mid] / plan_m[sizes[0]]:.2f} (linear ×{mid / sizes[0]:.0f}) | "
                f"{verdict(big in done and growth <= linear)} |"
            )
    bare = hook.get("python -S -c pass")
    counted = hook.get("should-dream counted")
    if bare and counted:
        add(
            f"| hook median ≤ 1.5 × bare start | should-dream {counted['median_ms']:.1f} ms (p95 {counted['p95_ms']:.1f}) | "
            f"`python -S -c pass` {bare['median_ms']:.1f} ms (p95 {bare['p95_ms']:.1f}) | ×{counted['ratio']:.2f}: "
            f"{verdict(counted['ratio'] <= 1.5)} |"
        )
    if st:
        helpt = st["python -m dream --help"]["median"]
        add(
            f"| `python -m dream --help` < 300 ms | {fmt_s(helpt)} (p95 {fmt_s(st['python -m dream --help']['p95'])}) | "
            f"`python -c pass` {fmt_s(st['python -c pass']['median'])}, `python -S -c pass` "
            f"{fmt_s(st['python -S -c pass']['median'])} | {verdict(helpt < 0.3)} |"
        )
    if full:
        full_rss = max(full["cold"]["rss_kb"], full["warm"]["rss_kb"]) / 1024
        add(
            f"| full run peak RSS (same bound as gather) | `run --dry-run`: {full['cold']['rss_kb'] / 1024:.0f} MiB with no "
            f"digest cache, {full['warm']['rss_kb'] / 1024:.0f} MiB with it | | {verdict(full_rss * 1.048576 < 300)} |"
        )
    add("")
    add("## Details")
    add("")
    if cold:
        add(f"### Gather, cold ({files['count']} files, {mb:.0f} MB)")
        add("")
        add(
            f"The page cache was warmed first by `cat`-ing every transcript ({fmt_s(r['warmup_s'])}), so both sides read "
            f"from memory; then grep and dream alternate, {len(cold['dream'])} runs each. dream's digest cache "
            "(`HOME/dream/digests`) is deleted before each dream run (not timed); its time includes writing the digests "
            "and the interpreter start."
        )
        add("")
        add("| run | grep (4 sets): wall | cpu | dream signals: wall | cpu | dream peak RSS |")
        add("|---|---|---|---|---|---|")
        for i, (g, d) in enumerate(zip(cold["grep"], cold["dream"], strict=False), 1):
            add(
                f"| {i} | {g['wall']:.2f} s | {g['cpu']:.2f} s | {d['wall']:.2f} s | {d['cpu']:.2f} s | "
                f"{d['rss_kb'] / 1024:.0f} MiB |"
            )
        add("")
        g0 = cold["grep"][0]["sets"]
        add(
            "grep per set (run 1): "
            + "; ".join(f"{k} {v['wall']:.2f} s, {v['matching_lines']:,} lines" for k, v in g0.items())
            + ". Most matching lines are whole request blobs and attachments: what the seed would then read."
        )
        add("")
        scan = cold["line_scan"]
        add(
            f"Reference, not a target: the plainest Python line scan with a byte pre-filter (`LINE_SCAN` in run.py) "
            f"takes {scan['wall']:.2f} s ({mb / scan['wall']:.0f} MB/s; cpu {scan.get('cpu', 0):.2f} s), "
            f"{scan['wall'] / cold_g:.2f} × grep's wall time."
        )
        add("")
        last = cold["dream"][-1]
        add(
            f"dream's summary line: `{last['stderr'].splitlines()[-1] if last['stderr'] else ''}`; "
            f"{last['stdout_lines']} signals printed."
        )
        add("")
        add("### Gather, warm")
        add("")
        add("| case | runs (s) | median |")
        add("|---|---|---|")
        add(f"| nothing changed | {_runs(r['warm'])} (cpu {_runs(r['warm'], 'cpu')}) | {fmt_s(warm)} |")
        new_kb = r["plus1"][0]["new_session_bytes"] / 1e3
        add(
            f"| one new session (~{new_kb:.0f} KB; a fresh one each run, removed after) | {_runs(r['plus1'])} "
            f"(cpu {_runs(r['plus1'], 'cpu')}) | {fmt_s(plus1)} |"
        )
        add(
            f"| that session's digest alone, in-process (median of 5; ms) | {_runs(r['plus1'], 'parse_s', 1000, 0)} | {fmt_s(parse1)} |"
        )
        add(
            f"| loading the signal model (`load_model()`, once per run that builds a digest; ms) | "
            f"{_runs(r['plus1'], 'model_load_s', 1000, 0)} | {fmt_s(model)} |"
        )
        first = median([x.get("first_parse_cpu_s", 0.0) for x in r["plus1"]])
        add(
            "| that session parsed first thing in a fresh process, cpu (the classifier's imports, the model, "
            f"the parse; ms) | {_runs(r['plus1'], 'first_parse_cpu_s', 1000, 0)} | {fmt_s(first)} |"
        )
        add("")
    if cons:
        add("### Consolidate (in-process, 1,000 signals)")
        add("")
        first = cons[sizes[0]]
        add(
            "Signals are built from the labelled messages of tests/data (every message with a label: "
            f"{first.get('distinct_texts', '?')} distinct texts, cycled with new ids and timestamps over the last 6.5 days, "
            "so some are restatements), against memories written by `make_home.write_memory` (grammar entries over the "
            "same tools and exclusive groups, ~3 % labelled sentences, dates over the last two years). `propose` is timed "
            "inside `build_plan`, which adds decide, edits, prune (the target has a digest; the window's words are those "
            "of the training messages) and the index. Each run is a fresh worker process (the memory written, loaded "
            "and planned once, nothing cached), the sizes interleaved repetition by repetition; "
            f"{max(len(cons[n]['build_plan_s']) for n in done) if done else 0} runs per size; medians."
        )
        add("")
        add(
            "| entries | load_memory | propose | build_plan | build_plan cpu | runs | proposals | entries targeted | refusals | pruned | worker peak RSS |"
        )
        add("|---|---|---|---|---|---|---|---|---|---|---|")
        for n in sizes:
            c = cons[n]
            if n not in done:
                add(f"| {n:,} | | | {t(n, plan_m)} | | 0 | | | | | {c['worker_rss_kb'] / 1024:.0f} MiB |")
                continue
            add(
                f"| {c['entries']:,} | {fmt_s(c['load_memory_s'])} | {fmt_s(prop_m[n])} | {fmt_s(plan_m[n])} | "
                f"{fmt_s(cpu_m[n])} | "
                f"{len(c['build_plan_s'])} | {', '.join(f'{k} {v}' for k, v in sorted(c['proposals'].items()))} | "
                f"{c.get('targeted_entries', '?')} | "
                f"{', '.join(f'{k} {v}' for k, v in sorted(c['refusals'].items()))} | {c['pruned']} | "
                f"{c['worker_rss_kb'] / 1024:.0f} MiB |"
            )
        add("")
    if full:
        add("### Full run (`run --dry-run` over the whole home)")
        add("")
        add("| digest cache | wall | cpu | peak RSS | exit |")
        add("|---|---|---|---|---|")
        for label in ("warm", "cold"):
            d = full[label]
            add(
                f"| {'present' if label == 'warm' else 'deleted'} | {d['wall']:.2f} s | {d.get('cpu', 0):.2f} s | "
                f"{d['rss_kb'] / 1024:.0f} MiB | {d['rc']} |"
            )
        add("")
        if full["warm"].get("summary"):
            add("```")
            L.extend(full["warm"]["summary"])
            add("```")
            add("")
    if r.get("hook"):
        add("### Hook (`bench/bench_hook.py`, as its author wrote it)")
        add("")
        add("```")
        add(r["hook"]["stdout"] or r["hook"]["stderr"])
        add("```")
        add("")
    if st:
        add("### Startup (20 runs each, interleaved, after one warm-up)")
        add("")
        add("| command | median | p95 |")
        add("|---|---|---|")
        for name, v in st.items():
            add(f"| `{name}` | {fmt_s(v['median'])} | {fmt_s(v['p95'])} |")
        add("")
    if r.get("profiles"):
        add("## Profiles (cProfile; full listings in bench/out/profile-*.txt, not committed)")
        add("")
        for name, p in r["profiles"].items():
            add(f"### {name}")
            add("")
            if p.get("wall"):
                add(f"`{p['cmd']}` ({p['wall']:.2f} s under the profiler)")
                add("")
            add("| function (top 12 by own time) | own time | cumulative | calls |")
            add("|---|---|---|---|")
            for fn, tot, cum, calls in p["rows"]:
                add(f"| `{fn}` | {tot:.3f} s | {cum:.3f} s | {calls:,} |")
            add("")
        if r.get("importtime"):
            add("### `python -X importtime -m dream --help`: top-level imports, cumulative")
            add("")
            add(", ".join(f"`{name}` {us / 1000:.1f} ms" for name, us in r["importtime"]))
            add("")
    add("## Commands")
    add("")
    add(
        f"HOME is `{r.get('home_path')}`; PY is `{PY}`. dream runs from a copy of the working tree's `dream/` taken "
        f"at the start (`bench/out/src/dream`, sha256 of its files {r.get('snapshot', {}).get('sha256', '?')}): every "
        "dream command and worker runs with that folder as cwd and PYTHONPATH, so edits made to the tree during the "
        f"benchmark do not leak in. Total benchmark time: {r.get('total_s', 0) / 60:.0f} min."
    )
    add("")
    for label, cmd in r["commands"]:
        add(
            f"- {label}: `{cmd.replace(PY, 'PY').replace(str(r.get('home_path_abs', '')), 'HOME') if r.get('home_path_abs') else cmd.replace(PY, 'PY')}`"
        )
    add("")
    return "\n".join(L)


def scrub_paths(text: str) -> str:
    """Results are committed: no machine paths in them, only paths relative to the repository."""
    real = os.path.realpath(sys.executable)
    text = text.replace(real, f"python{sys.version_info.major}.{sys.version_info.minor}")
    return text.replace(str(REPO) + "/", "").replace(str(REPO), ".")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="a ~50 MB home: a smoke run in about a minute")
    parser.add_argument("--home", type=Path, help="reuse a home made by bench/make_home.py")
    parser.add_argument(
        "--keep-home", action="store_true", help="do not delete the generated home at the end"
    )
    parser.add_argument("--results", type=Path, help="where to write the results (Markdown)")
    parser.add_argument("--profile", action="store_true", help="also profile the slow parts (cProfile)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--hook-runs", type=int, default=50)
    parser.add_argument(
        "--consolidate-timeout",
        type=float,
        default=1800,
        help="give up on a consolidate size after this many seconds (default 1800)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--skip", default="", help="comma list of steps to skip: consolidate,hook,startup,run"
    )
    # internal: child-process workers
    parser.add_argument("--consolidate-worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--signals", type=int, default=1000, help=argparse.SUPPRESS)
    parser.add_argument("--profile-to", help=argparse.SUPPRESS)
    parser.add_argument("--parse-one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.consolidate_worker:
        consolidate_worker(args.consolidate_worker, args.signals, args.seed, args.reps, args.profile_to)
        return
    if args.parse_one:
        parse_one_worker(args.parse_one, args.reps)
        return

    OUT.mkdir(exist_ok=True)
    # A `kill` runs the cleanup below (the generated home is deleted) like Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    bench = Bench(args)
    bench.r["snapshot"] = take_snapshot()
    bench.log(f"measuring a copy of dream/ ({bench.r['snapshot']['sha256']}) in {SNAPSHOT}")
    results = args.results or (BENCH / "RESULTS.md" if bench.mode == "large" else OUT / "RESULTS-quick.md")
    skip = set(filter(None, args.skip.split(",")))
    started = time.perf_counter()
    home = bench.make()
    bench.r["home_path"] = str(home.relative_to(REPO)) if home.is_relative_to(REPO) else str(home)
    bench.r["home_path_abs"] = str(home)
    try:
        bench.gather(home)
        if "run" not in skip:
            bench.full_run(home)
        if args.profile:
            bench.profiles(home)
        if "consolidate" not in skip:
            bench.consolidate()
        if "hook" not in skip:
            bench.hook()
        if "startup" not in skip:
            bench.startup()
    finally:
        bench.save()
        if not args.home and not args.keep_home:
            shutil.rmtree(home, ignore_errors=True)
            bench.log(f"deleted {home}")
    bench.r["total_s"] = time.perf_counter() - started
    bench.r["load_end"] = " ".join(f"{x:.1f}" for x in os.getloadavg())
    results.write_text(scrub_paths(render(bench.r)), encoding="utf-8")
    bench.log(f"wrote {results} ({bench.r['total_s']:.0f} s in all)")


if __name__ == "__main__":
    main()
