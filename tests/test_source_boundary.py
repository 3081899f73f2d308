"""Only the person's words, on a home of every non-person shape of DESIGN.md §3 (issue: source boundary).

`tests/shapes.py` writes real-format sessions holding each shape (SDK sessions, task notifications,
IDE context, plan-mode plans, shell escapes, interruptions and images, pastes), in two or more
variants each. Every instance plants a unique made-up word ("poison") in rule-like text that is
not the person's; the person's own rules are typed in the same sessions, some right beside a
shape. After a real `python -m dream run`, no poison word may be anywhere dream wrote or printed
(signals, memory, review queue, reports, digest cache), and the person's rules must be found.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from shapes import SHAPE_NAMES, ShapesHome, build_shapes_home, shape_variants, write_shape_session

from dream.api import Session

REPO = Path(__file__).resolve().parent.parent
PERSON_RULE = "From now on we always squash-merge pull requests, never rebase-merge."


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def _everything_written(claude: Path) -> str:
    """Every file under the Claude dir that dream writes (not the transcripts themselves)."""
    out = []
    for path in sorted(claude.rglob("*")):
        if (path.is_file() and path.suffix != ".jsonl") or (path.is_file() and "dream" in path.parts):
            text = path.read_text(encoding="utf-8", errors="replace")
            out.append(_without_contexts(text) if path.parent.name == "digests" else text)
    return "\n".join(out)


def _without_contexts(pack_text: str) -> str:
    """A digest pack less its candidates' contexts: a candidate of the agent pass keeps the agent's
    turn before a short answer (DESIGN.md §9: data to read the answer with), the one place the
    cache may hold the agent's words. The candidate's own text is the person's words only."""
    pack = json.loads(pack_text)
    for row in pack.get("sessions", {}).values():
        for candidate in row.get("candidates", []):
            candidate[4] = ""
    return json.dumps(pack)


def _dream(home: Path, claude: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(claude), "DREAM_WORKERS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "dream", "--claude-dir", str(claude), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=REPO,
    )


@pytest.mark.parametrize(
    ("shape", "variant"),
    [(shape, variant) for shape in SHAPE_NAMES for variant in range(1, shape_variants(shape) + 1)],
)
def test_each_shape_yields_nothing_and_leaves_the_persons_words(
    tmp_path: Path, shape: str, variant: int
) -> None:
    claude = tmp_path / ".claude"
    cwd = "/home/dev/boundary-app"
    poison = f"zorblax{variant}{abs(hash(shape)) % 1000}"
    at = _now() - timedelta(hours=2)
    instance = write_shape_session(claude, cwd, shape, variant, at, poison, person_rule=PERSON_RULE)
    assert poison in instance.session_file.read_text(encoding="utf-8")
    session = Session.open(claude_dir=claude)
    found = session.signals()
    assert not [s.text for s in found if poison in s.text.lower()]
    # Whole-session shapes (an SDK session) carry no person rule; every other one does.
    if PERSON_RULE in instance.session_file.read_text(encoding="utf-8") and shape != "sdk_session":
        assert any("squash-merge" in s.text for s in found), (shape, variant, [s.text for s in found])
    digests = claude / "dream" / "digests"
    packs = [_without_contexts(p.read_text(encoding="utf-8")) for p in sorted(digests.rglob("*.json"))]
    assert poison not in "".join(packs).lower()
    # Where the shape is a user entry (not only a queue copy or an attachment), the report counts it.
    user_lines = [
        line
        for line in instance.session_file.read_text(encoding="utf-8").splitlines()
        if json.loads(line).get("type") == "user" and poison in line and '"tool_result"' not in line
    ]
    assert session.last_gather is not None
    if user_lines:
        assert sum(session.last_gather.excluded.values()) >= 1, "the report counts what was skipped"


@pytest.fixture(scope="module")
def shapes_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[ShapesHome, Path, dict[str, object], str]:
    home = tmp_path_factory.mktemp("shapes-home")
    claude = home / ".claude"
    built = build_shapes_home(claude, _now())
    signals = _dream(home, claude, "signals", "--json")
    assert signals.returncode == 0, signals.stderr
    run = _dream(home, claude, "run", "--json")
    assert run.returncode == 0, run.stdout + run.stderr
    review = _dream(home, claude, "review")
    printed = signals.stdout + signals.stderr + run.stdout + run.stderr + review.stdout + review.stderr
    return built, claude, json.loads(run.stdout), printed


def test_the_shapes_home_has_every_shape_sixty_times_over(
    shapes_run: tuple[ShapesHome, Path, dict[str, object], str],
) -> None:
    built, _, _, _ = shapes_run
    assert len(built.instances) >= 60
    assert {i.shape for i in built.instances} == set(SHAPE_NAMES)
    for shape in SHAPE_NAMES:
        variants = {i.variant for i in built.instances if i.shape == shape}
        assert len(variants) >= 2, shape


def test_no_poison_word_anywhere_dream_wrote_or_printed(
    shapes_run: tuple[ShapesHome, Path, dict[str, object], str],
) -> None:
    built, claude, _, printed = shapes_run
    written = _everything_written(claude).lower()
    leaks = [i for i in built.instances if i.poison in written or i.poison in printed.lower()]
    assert leaks == []


def test_the_persons_rules_in_the_same_sessions_are_found(
    shapes_run: tuple[ShapesHome, Path, dict[str, object], str], report: Callable[[str], None]
) -> None:
    built, claude, _, printed = shapes_run
    memory = "\n".join(
        p.read_text(encoding="utf-8") for p in (claude / "projects").rglob("memory/*.md")
    ).lower()
    signals = printed.lower()
    found = [mark for mark in built.person_marks if mark.lower() in signals]
    in_memory = [mark for mark in built.person_marks if mark.lower() in memory]
    report(
        f"shapes home: {len(built.instances)} non-person instances; person rules found as signals "
        f"{len(found)}/{len(built.person_marks)}, "
        f"in memory or review {len(in_memory)}/{len(built.person_marks)}"
    )
    assert len(found) >= 0.9 * len(built.person_marks)


def test_the_run_report_counts_what_was_skipped_by_kind(
    shapes_run: tuple[ShapesHome, Path, dict[str, object], str],
) -> None:
    _, _, run, _ = shapes_run
    read = run["read"]
    assert isinstance(read, dict)
    excluded = read["excluded"]
    for key in ("sdk_session", "task_notification", "ide_block", "plan", "shell_escape", "paste"):
        assert excluded.get(key, 0) >= 1, (key, excluded)
