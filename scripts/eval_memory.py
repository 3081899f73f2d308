"""Memory-level evaluation: does one unattended `dream run` leave the memory a careful reader keeps?

python scripts/eval_memory.py [--split dev|heldout|both] [--show] [--keep DIR]

Each project in `tests/data/memory-eval/<split>/*.json` is a week of sessions in one person's voice,
the memory they already had, and the ideal memory (written before any tuning): the rules and facts
a careful reader would keep, each with the terms any decent wording of it holds, and the facts a
later statement replaced. The project becomes a Claude home in the real client's transcript format
(`tests/homefactory.py`), dream runs on it once, and the memory it leaves is scored:

    recall ........ ideal items some current entry holds (every term group present)
    precision ..... current entries that hold an ideal item, or are the person's own untouched entries
    superseded .... replaced facts still current (an entry holding the stale terms, not the new ones)
    auto-applied .. entries this run wrote that hold an ideal item (the precision of the gates)
    review queue .. items waiting for review after the run

`dev` is the half the consolidation may be tuned on; `heldout` never is.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from homefactory import Turn, slug, write_session  # noqa: E402

from dream.layouts import memory_paths  # noqa: E402
from dream.memory import load_memory  # noqa: E402

DATA = ROOT / "tests" / "data" / "memory-eval"


def _holds(text: str, groups: list[list[str]]) -> bool:
    lowered = text.lower()
    return bool(groups) and all(any(alt.lower() in lowered for alt in group) for group in groups)


@dataclass
class ProjectScore:
    project: str
    ideal: int = 0
    found: int = 0
    entries: int = 0
    good_entries: int = 0
    superseded_current: int = 0
    review_items: int = 0
    written: int = 0  # entries this run wrote (not the person's own, untouched)
    good_written: int = 0
    worth_review: int = 0  # review items worth an answer: an ideal rule, a held secret, a conflict
    missed: list[str] = field(default_factory=list)
    junk: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)


def build_home(project: dict[str, Any], root: Path, now: datetime) -> tuple[Path, Path]:
    """The project as a Claude home: its sessions as transcripts, its existing memory as topic files."""
    claude = root / ".claude"
    cwd = project["cwd"]
    memory_dir = claude / "projects" / slug(cwd) / "memory"
    memory_dir.mkdir(parents=True, exist_ok=True)
    by_file: dict[str, list[str]] = {}
    for item in project.get("existing_memory", []):
        day = (now - timedelta(days=float(item.get("days_ago", 30)))).date().isoformat()
        line = f"- [{day}] {item['text']} (source: session {day} 00000000, confidence: high)"
        by_file.setdefault(item["file"], []).append(line)
    for name, lines in by_file.items():
        title = name[:-3].capitalize()
        (memory_dir / name).write_text(f"# {title}\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
    for session in project["sessions"]:
        start = now - timedelta(days=float(session["days_ago"]))
        turns: list[Turn] = []
        for number, raw in enumerate(session["turns"]):
            at = start + timedelta(minutes=3 * number)
            if turns and raw.get("assistant_before"):
                turns[-1].assistant_text = raw["assistant_before"]  # the agent's turn before this message
            turns.append(Turn(raw["user"], at, tool_output=raw.get("tool_output")))
        write_session(claude, cwd, turns)
    return claude, memory_dir


@dataclass
class RunOutput:
    """What one `dream run` left: current entries, the review queue, the window's signals."""

    current: list[str]
    queued: list[dict[str, Any]]
    signal_texts: list[str]


def run_dream(project: dict[str, Any], root: Path, now: datetime) -> RunOutput:
    claude, memory_dir = build_home(project, root, now)
    env = {**os.environ, "HOME": str(root), "CLAUDE_CONFIG_DIR": str(claude)}
    command = [sys.executable, "-m", "dream", "--claude-dir", str(claude)]

    def dream(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*command, *args], env=env, capture_output=True, text=True, timeout=600)

    done = dream("run", "--json")
    if done.returncode != 0:
        raise SystemExit(f"{project['project']}: dream run exited {done.returncode}\n{done.stderr[-2000:]}")
    memory = load_memory(memory_paths(memory_dir, "native"), "native")
    archive_rel = memory.rel(memory.paths.archive)
    signals = dream("signals", "--json").stdout.splitlines()
    return RunOutput(
        current=[e.text for e in memory.entries if e.file != archive_rel],
        queued=json.loads(dream("review", "--json").stdout or "[]"),
        signal_texts=[json.loads(line)["text"] for line in signals if line.strip()],
    )


def _worth_asking(item: dict[str, Any], ideal: list[dict[str, Any]]) -> bool:
    """A review item worth the person's answer: an ideal rule, a held secret or control text, or
    a conflict with an entry they have."""
    text = str(item.get("text", ""))
    return bool(item.get("hold")) or item.get("action") == "replace" or _is_ideal(text, ideal)


def _is_ideal(text: str, ideal: list[dict[str, Any]]) -> bool:
    return any(_holds(text, item["required_terms"]) for item in ideal)


def score_project(path: Path, keep: Path | None = None, show: bool = False) -> ProjectScore:
    project = json.loads(path.read_text(encoding="utf-8"))
    now = datetime.now(timezone.utc).replace(microsecond=0)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(keep / project["project"]) if keep else Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        out = run_dream(project, root, now)
    ideal = project["ideal"]
    score = ProjectScore(project["project"], ideal=len(ideal), review_items=len(out.queued))
    queued_texts = [str(item.get("text", "")) for item in out.queued]
    for item in ideal:
        if any(_holds(text, item["required_terms"]) for text in out.current):
            score.found += 1
            continue
        where = (
            "queued"
            if any(_holds(text, item["required_terms"]) for text in queued_texts)
            else "signal"
            if any(_holds(text, item["required_terms"]) for text in out.signal_texts)
            else "lost"
        )
        score.missed.append(f"[{where}] {item['rule']}")
    existing = {item["text"] for item in project.get("existing_memory", [])}
    superseded_texts = {s["text"] for s in project.get("superseded", [])}
    for text in out.current:
        score.entries += 1
        own = text in existing and text not in superseded_texts
        good = _is_ideal(text, ideal)
        if not own:
            score.written += 1
            score.good_written += good
        if own or good:
            score.good_entries += 1
        else:
            score.junk.append(text)
    score.worth_review = sum(1 for item in out.queued if _worth_asking(item, ideal))
    ideal_by_id = {item["id"]: item for item in ideal}
    for old in project.get("superseded", []):
        new = ideal_by_id.get(old.get("replaced_by", ""))
        for text in out.current:
            if _holds(text, old["stale_terms"]) and not (new and _holds(text, new["required_terms"])):
                score.superseded_current += 1
                score.stale.append(text)
                break
    if show:
        _show(score)
    return score


def _show(score: ProjectScore) -> None:
    print(f"--- {score.project}")
    for rule in score.missed:
        print(f"  missed: {rule}")
    for text in score.junk:
        print(f"  junk:   {text[:140]}")
    for text in score.stale:
        print(f"  stale:  {text[:140]}")


def _summary(name: str, scores: list[ProjectScore]) -> str:
    ideal = sum(s.ideal for s in scores)
    found = sum(s.found for s in scores)
    entries = sum(s.entries for s in scores)
    good = sum(s.good_entries for s in scores)
    stale = sum(s.superseded_current for s in scores)
    queue = max((s.review_items for s in scores), default=0)
    written = sum(s.written for s in scores)
    good_written = sum(s.good_written for s in scores)
    queued = sum(s.review_items for s in scores)
    worth = sum(s.worth_review for s in scores)
    recall = found / ideal if ideal else 0.0
    precision = good / entries if entries else 0.0
    return (
        f"{name}: {len(scores)} projects; recall {recall:.2f} ({found}/{ideal}), "
        f"precision {precision:.2f} ({good}/{entries}), superseded still current {stale}, "
        f"review queue at most {queue} per memory dir ({worth}/{queued} items worth an answer); "
        f"auto-applied precision {good_written / written if written else 0.0:.2f} ({good_written}/{written})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "heldout", "both"), default="both")
    parser.add_argument("--show", action="store_true", help="list missed, junk and stale entries")
    parser.add_argument("--keep", type=Path, help="build the homes here and keep them")
    args = parser.parse_args(argv)
    splits = ("dev", "heldout") if args.split == "both" else (args.split,)
    for split in splits:
        files = sorted((DATA / split).glob("*.json"))
        scores = [score_project(path, args.keep, args.show) for path in files]
        for score in scores:
            print("  " + _summary(score.project, [score]))
        print(_summary(split, scores))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
