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


def score_project(path: Path, keep: Path | None = None, show: bool = False) -> ProjectScore:
    project = json.loads(path.read_text(encoding="utf-8"))
    now = datetime.now(timezone.utc).replace(microsecond=0)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(keep / project["project"]) if keep else Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        claude, memory_dir = build_home(project, root, now)
        env = {**os.environ, "HOME": str(root), "CLAUDE_CONFIG_DIR": str(claude)}
        command = [sys.executable, "-m", "dream", "--claude-dir", str(claude)]
        done = subprocess.run(
            [*command, "run", "--json"], env=env, capture_output=True, text=True, timeout=600
        )
        if done.returncode != 0:
            raise SystemExit(f"{path.name}: dream run exited {done.returncode}\n{done.stderr[-2000:]}")
        review = subprocess.run(
            [*command, "review", "--json"], env=env, capture_output=True, text=True, timeout=600
        )
        memory = load_memory(memory_paths(memory_dir, "native"), "native")
        archive_rel = memory.rel(memory.paths.archive)
        current = [e.text for e in memory.entries if e.file != archive_rel]
        score = ProjectScore(project["project"], ideal=len(project["ideal"]))
        score.review_items = len(json.loads(review.stdout or "[]"))
    existing = {item["text"] for item in project.get("existing_memory", [])}
    superseded_texts = {s["text"] for s in project.get("superseded", [])}
    for item in project["ideal"]:
        if any(_holds(text, item["required_terms"]) for text in current):
            score.found += 1
        else:
            score.missed.append(item["rule"])
    ideal_by_id = {item["id"]: item for item in project["ideal"]}
    for text in current:
        score.entries += 1
        own = text in existing and text not in superseded_texts
        if own or any(_holds(text, item["required_terms"]) for item in project["ideal"]):
            score.good_entries += 1
        else:
            score.junk.append(text)
    for old in project.get("superseded", []):
        new = ideal_by_id.get(old.get("replaced_by", ""))
        for text in current:
            if _holds(text, old["stale_terms"]) and not (new and _holds(text, new["required_terms"])):
                score.superseded_current += 1
                score.stale.append(text)
                break
    if show:
        print(f"--- {score.project}")
        for rule in score.missed:
            print(f"  missed: {rule}")
        for text in score.junk:
            print(f"  junk:   {text[:140]}")
        for text in score.stale:
            print(f"  stale:  {text[:140]}")
    return score


def _summary(name: str, scores: list[ProjectScore]) -> str:
    ideal = sum(s.ideal for s in scores)
    found = sum(s.found for s in scores)
    entries = sum(s.entries for s in scores)
    good = sum(s.good_entries for s in scores)
    stale = sum(s.superseded_current for s in scores)
    queue = max((s.review_items for s in scores), default=0)
    recall = found / ideal if ideal else 0.0
    precision = good / entries if entries else 0.0
    return (
        f"{name}: {len(scores)} projects; recall {recall:.2f} ({found}/{ideal}), "
        f"precision {precision:.2f} ({good}/{entries}), superseded still current {stale}, "
        f"review queue at most {queue} per memory dir"
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
