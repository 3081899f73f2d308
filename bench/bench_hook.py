"""Wall time of the should-dream Stop hook beside a bare interpreter start (issue 5).

Builds a throwaway Claude dir holding 10,000 transcripts, then runs, interleaved, `python -S -c pass`
and `python -S hooks/should-dream` with a real Stop payload on stdin, each as Claude Code starts it
(a fresh process, the absolute interpreter path: `sys.executable` resolved, never a version-manager
shim). Prints median and p95 of each and the ratio; asserts nothing.

    python bench/bench_hook.py [--runs 100] [--transcripts 10000]

Three hook cases: `counted` (the usual Stop: session already recorded, last dream recent),
`new-session` (a session's first Stop creates its marker file) and `due` (thresholds met, the
project already in the pending flag: what every Stop costs until the dream runs).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOOK = os.path.join(REPO, "hooks", "should-dream")


def _slug(path: str) -> str:
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in path)


def build_home(root: str, transcripts: int) -> tuple[str, str, str]:
    """A Claude dir with `transcripts` session files over 20 projects; returns (claude, cwd, key)."""
    claude = os.path.join(root, "claude")
    project = os.path.join(root, "src", "app")
    os.makedirs(os.path.join(project, ".git"))
    cwd = os.path.join(project, "pkg", "sub")
    os.makedirs(cwd)
    key = _slug(project)
    line = json.dumps({"type": "user", "message": {"role": "user", "content": "hello"}}) + "\n"
    for i in range(transcripts):
        folder = os.path.join(claude, "projects", key if i % 20 == 0 else f"-home-u-p{i % 20}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{uuid.UUID(int=i)}.jsonl"), "w") as fh:
            fh.write(line)
    os.makedirs(os.path.join(claude, "skills", "dream"), exist_ok=True)
    with open(os.path.join(claude, "skills", "dream", ".dream-config"), "w") as fh:
        fh.write("DREAM_MIN_HOURS=24\nDREAM_MIN_SESSIONS=5\n")
    return claude, cwd, key


def _time(cmd: list[str], stdin: bytes, env: dict[str, str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, input=stdin, env=env, cwd=cwd, stdout=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def _stats(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p95 * 1000


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--transcripts", type=int, default=10_000)
    args = parser.parse_args()
    runs = max(50, args.runs)

    python = os.path.realpath(sys.executable)
    root = tempfile.mkdtemp(prefix="dream-bench-hook-")
    try:
        claude, cwd, key = build_home(root, args.transcripts)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": root, "CLAUDE_CONFIG_DIR": claude}
        memory = os.path.join(claude, "projects", key, "memory")
        os.makedirs(memory, exist_ok=True)
        seen = os.path.join(claude, "dream", "sessions-seen", key)

        def payload(sid: str) -> bytes:
            return json.dumps(
                {
                    "session_id": sid,
                    "transcript_path": os.path.join(claude, "projects", _slug(cwd), f"{sid}.jsonl"),
                    "cwd": cwd,
                    "prompt_id": str(uuid.uuid4()),
                    "permission_mode": "default",
                    "effort": {"level": "medium"},
                    "hook_event_name": "Stop",
                    "stop_hook_active": False,
                    "last_assistant_message": "Done. " + "The tests pass. " * 40,
                    "background_tasks": [],
                    "session_crons": [],
                }
            ).encode()

        bare = [python, "-S", "-c", "pass"]
        hook = [python, "-S", HOOK]
        counted_sid = str(uuid.uuid4())
        results: dict[str, list[float]] = {"bare": [], "counted": [], "new-session": [], "due": []}
        for _ in range(3):  # warm the page cache
            _time(bare, b"", env, cwd)
            _time(hook, payload(counted_sid), env, cwd)
        for _ in range(runs):
            results["bare"].append(_time(bare, b"", env, cwd))

            with open(os.path.join(memory, ".last-dream"), "w") as fh:
                fh.write(f"{time.time() - 3600:.3f}\n")
            results["counted"].append(_time(hook, payload(counted_sid), env, cwd))

            results["new-session"].append(_time(hook, payload(str(uuid.uuid4())), env, cwd))

            with open(os.path.join(memory, ".last-dream"), "w") as fh:
                fh.write(f"{time.time() - 25 * 3600:.3f}\n")
            results["due"].append(_time(hook, payload(counted_sid), env, cwd))
        assert os.path.exists(os.path.join(claude, ".dream-pending")), "the due case never raised the flag"
        assert len(os.listdir(seen)) == runs + 1

        bare_median, bare_p95 = _stats(results["bare"])
        print(f"interpreter: {python} ({sys.version.split()[0]})")
        print(f"claude dir: {args.transcripts} transcripts; {runs} runs of each, interleaved")
        print(f"{'case':<28}{'median ms':>10}{'p95 ms':>10}{'median / bare':>15}")
        print(f"{'python -S -c pass':<28}{bare_median:>10.2f}{bare_p95:>10.2f}{1:>15.2f}")
        for name in ("counted", "new-session", "due"):
            median, p95 = _stats(results[name])
            print(f"{'should-dream ' + name:<28}{median:>10.2f}{p95:>10.2f}{median / bare_median:>15.2f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
