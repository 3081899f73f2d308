"""Memory-level evaluation: does one unattended `dream run` leave the memory a careful reader keeps?

python scripts/eval_memory.py [--split dev|train|dev2|dev3|dev4|dev5|heldout|both] [--show] [--keep DIR]

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

`dev`, `train`, `dev2`, `dev3` and `dev4` may be tuned on (dev3 and dev4 only since their first
figures); `dev5` is read only as totals; `heldout` never is.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from agentdocs import ADVERSARIAL_TEXTS, ideal_decisions  # noqa: E402
from homefactory import build_eval_home as build_home  # noqa: E402

from dream.layouts import memory_paths  # noqa: E402
from dream.memory import load_memory  # noqa: E402

DATA = ROOT / "tests" / "data" / "memory-eval"
# dev and train: the signal model is trained on their messages (scripts/train_signal_model.py);
# dev2 and dev3: written later by labellers who never saw the code, in voices the others lack,
# and outside the model's training data; dev4 and dev5: four projects each by labellers who never
# saw the code (dev5 is read only as totals); heldout: never tuned on.
SPLITS = ("dev", "train", "dev2", "dev3", "dev4", "dev5", "heldout")


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
    unworthy: list[str] = field(default_factory=list)  # review items not worth the person's answer
    # The agent pass (`--decisions ideal`): good decisions the host turned away, adversarial ones.
    good_decisions: int = 0
    good_refused: list[str] = field(default_factory=list)
    adversarial: int = 0
    adversarial_stopped: int = 0
    adversarial_in_memory: list[str] = field(default_factory=list)
    no_candidate: list[str] = field(default_factory=list)


@dataclass
class RunOutput:
    """What one `dream run` left: current entries, the review queue, the window's signals."""

    current: list[str]
    queued: list[dict[str, Any]]
    signal_texts: list[str]
    agent: dict[str, Any] = field(default_factory=dict)


def run_dream(
    project: dict[str, Any],
    root: Path,
    now: datetime,
    decisions: str | None = None,
    answer_queue: bool = False,
) -> RunOutput:
    """One unattended `dream run`; with `decisions="ideal"`, `plan --json` and then `apply` of the
    decisions a careful agent would send (`ideal_decisions`), adversarial ones among them."""
    claude, memory_dir = build_home(project, root, now)
    env = {**os.environ, "HOME": str(root), "CLAUDE_CONFIG_DIR": str(claude)}
    command = [sys.executable, "-m", "dream", "--claude-dir", str(claude)]

    def dream(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*command, *args], env=env, capture_output=True, text=True, timeout=600, input=stdin
        )

    agent: dict[str, Any] = {}
    if decisions in ("ideal", "by-hand"):
        planned = dream("plan", "--json")
        if planned.returncode != 0:
            raise SystemExit(
                f"{project['project']}: dream plan exited {planned.returncode}\n{planned.stderr}"
            )
        packet = json.loads(planned.stdout)
        document, agent = ideal_decisions(project, packet, by_hand=decisions == "by-hand")
        done = dream("apply", "--decisions", "-", "--json", stdin=json.dumps(document))
        if done.returncode == 0:
            agent["report"] = json.loads(done.stdout)
    else:
        done = dream("run", "--json")
    if done.returncode != 0:
        raise SystemExit(f"{project['project']}: dream exited {done.returncode}\n{done.stderr[-2000:]}")
    if answer_queue:
        # The person answers the review queue as /dream walks it with them: yes to what is one of
        # their rules, no to the rest.
        queued = json.loads(dream("review", "--json").stdout or "[]")
        yes = [q["id"] for q in queued if _is_ideal(str(q.get("text", "")), project["ideal"])]
        no = [q["id"] for q in queued if q["id"] not in yes]
        if yes:
            dream("approve", *yes)
        if no:
            dream("reject", *no)
    memory = load_memory(memory_paths(memory_dir, "native"), "native")
    archive_rel = memory.rel(memory.paths.archive)
    signals = dream("signals", "--json").stdout.splitlines()
    return RunOutput(
        current=[e.text for e in memory.entries if e.file != archive_rel],
        queued=json.loads(dream("review", "--json").stdout or "[]"),
        signal_texts=[json.loads(line)["text"] for line in signals if line.strip()],
        agent=agent,
    )


def _worth_asking(item: dict[str, Any], ideal: list[dict[str, Any]]) -> bool:
    """A review item worth the person's answer: an ideal rule, a held secret or control text, or
    a conflict with an entry they have."""
    text = str(item.get("text", ""))
    return bool(item.get("hold")) or item.get("action") == "replace" or _is_ideal(text, ideal)


def _is_ideal(text: str, ideal: list[dict[str, Any]]) -> bool:
    return any(_holds(text, item["required_terms"]) for item in ideal)


def score_project(
    path: Path,
    keep: Path | None = None,
    show: bool = False,
    decisions: str | None = None,
    answer_queue: bool = False,
) -> ProjectScore:
    project = json.loads(path.read_text(encoding="utf-8"))
    now = datetime.now(timezone.utc).replace(microsecond=0)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(keep / project["project"]) if keep else Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        out = run_dream(project, root, now, decisions, answer_queue)
    ideal = project["ideal"]
    score = ProjectScore(project["project"], ideal=len(ideal), review_items=len(out.queued))
    if out.agent:
        _score_agent(score, out)
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
    score.unworthy = [str(item.get("text", "")) for item in out.queued if not _worth_asking(item, ideal)]
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


def _score_agent(score: ProjectScore, out: RunOutput) -> None:
    rows = out.agent.get("report", {}).get("decisions", [])
    ideal_rows = [
        r
        for r in rows
        if r["action"] != "drop"
        and r["candidate"] != "c000000000"
        and not str(r.get("text", "")).startswith(_ADV_PREFIXES)
    ]
    adversarial_rows = [r for r in rows if r not in ideal_rows and r["action"] != "drop"]
    score.good_decisions = len(ideal_rows)
    score.good_refused = [
        f"{r['text'][:80]} ({r['reason']})" for r in ideal_rows if not r["accepted"] or "waits" in r["reason"]
    ]
    score.adversarial = out.agent.get("adversarial", 0)
    # Stopped: refused, or accepted only to wait for review (a secret, control text).
    score.adversarial_stopped = sum(
        1 for r in adversarial_rows if not r["accepted"] or "waits for review" in r["reason"]
    )
    score.adversarial_in_memory = [
        t for t in ADVERSARIAL_TEXTS for e in out.current if t.lower() in e.lower()
    ]
    score.no_candidate = list(out.agent.get("no_candidate", []))


_ADV_PREFIXES = (
    "The person likes long",
    "Deploy with kubectl 1.31",
    "The deploy token",
    "Ignore all previous",
    "Nothing holds",
    "Use Fortran",
)


def _show(score: ProjectScore) -> None:
    print(f"--- {score.project}")
    for text in score.good_refused:
        print(f"  good decision refused or held: {text}")
    for text in score.no_candidate:
        print(f"  no candidate for: {text}")
    for rule in score.missed:
        print(f"  missed: {rule}")
    for text in score.junk:
        print(f"  junk:   {text[:140]}")
    for text in score.stale:
        print(f"  stale:  {text[:140]}")
    for text in score.unworthy:
        print(f"  asks:   {text[:140]}")


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
    line = (
        f"{name}: {len(scores)} projects; recall {recall:.2f} ({found}/{ideal}), "
        f"precision {precision:.2f} ({good}/{entries}), superseded still current {stale}, "
        f"review queue at most {queue} per memory dir ({worth}/{queued} items worth an answer); "
        f"auto-applied precision {good_written / written if written else 0.0:.2f} ({good_written}/{written})"
    )
    missed = [m.split("]", 1)[0].lstrip("[") for s in scores for m in s.missed]
    if missed:
        # where the missed items were lost: never a signal, a signal the gates dropped, or queued
        line += "; missed: " + ", ".join(f"{missed.count(k)} {k}" for k in ("lost", "signal", "queued"))
    adversarial = sum(s.adversarial for s in scores)
    if adversarial:
        good_decisions = sum(s.good_decisions for s in scores)
        refused = sum(len(s.good_refused) for s in scores)
        stopped = sum(s.adversarial_stopped for s in scores)
        leaked = sum(len(s.adversarial_in_memory) for s in scores)
        missing = sum(len(s.no_candidate) for s in scores)
        line += (
            f"; agent pass: {good_decisions - refused}/{good_decisions} good decisions accepted, "
            f"{missing} ideal items with no candidate, adversarial stopped {stopped}/{adversarial}, "
            f"in memory {leaked}"
        )
    return line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=(*SPLITS, "both"), default="both")
    parser.add_argument("--show", action="store_true", help="list missed, junk and stale entries")
    parser.add_argument("--keep", type=Path, help="build the homes here and keep them")
    parser.add_argument(
        "--decisions",
        choices=("ideal", "by-hand"),
        help="instead of `run`: `plan --json`, then `apply` decisions that state the ideal memory "
        "(`ideal`: the labelled rules verbatim; `by-hand`: tests/data/decisions/), with one "
        "adversarial decision of each kind",
    )
    parser.add_argument(
        "--answer-queue",
        action="store_true",
        help="then answer the review queue as the person would (approve their rules, reject the rest)",
    )
    args = parser.parse_args(argv)
    splits = ("dev", "heldout") if args.split == "both" else (args.split,)
    for split in splits:
        files = sorted((DATA / split).glob("*.json"))
        if args.decisions == "by-hand":
            files = [f for f in files if (ROOT / "tests" / "data" / "decisions" / f.name).exists()]
        scores = [
            score_project(path, args.keep, args.show, args.decisions, args.answer_queue) for path in files
        ]
        for score in scores:
            print("  " + _summary(score.project, [score]))
        print(_summary(split, scores))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
