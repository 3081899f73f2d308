"""PRUNE (dream/prune.py) in process: which stale entries are archived, which stay."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest

from dream.config import Config
from dream.digest import Digest, term_hashes
from dream.edits import Edits
from dream.layouts import memory_paths
from dream.memory import load_memory
from dream.prune import prune_stale
from dream.statement import content_terms
from dream.target import Target

TODAY = date(2026, 12, 1)


def _day(days_ago: int) -> str:
    return (TODAY - timedelta(days=days_ago)).isoformat()


def _digest(said: str) -> Digest:
    """A session of the window in which the person said `said` (stored as term hashes only)."""
    return Digest(
        session_id="s1",
        path="/x/s1.jsonl",
        folder="-x",
        signature=[1, 2, 3, 4],
        cwd="/x",
        first_timestamp=f"{_day(1)}T09:00:00+00:00",
        last_timestamp=f"{_day(1)}T10:00:00+00:00",
        message_count=1,
        signals=[],
        terms=" ".join(sorted(term_hashes(content_terms(said)))),
    )


@pytest.mark.parametrize(
    ("line", "said", "pruned"),
    [
        (f"- [{_day(200)}] The legacy importer runs nightly on a Jenkins box.", "fix the login page", True),
        # Mentioned in the window, in other words: a reference, so it stays.
        (f"- [{_day(200)}] Uses PostgreSQL for the main database.", "check the postgres logs", False),
        (f"- [{_day(10)}] The mobile app ships every second Tuesday.", "fix the login page", False),  # young
        (f"- [{_day(200)}] Customer exports are zipped CSV files. (pinned)", "fix the login page", False),
        # Updated recently: the update date counts, not the first one.
        (
            f"- [{_day(200)}] Deploys go out on Mondays. (Updated {_day(5)}, previously: on Fridays.)",
            "fix the login page",
            False,
        ),
    ],
)
def test_prune_stale(tmp_path: Path, line: str, said: str, pruned: bool) -> None:
    memory_dir = tmp_path / "memory"
    memory_dir.mkdir()
    (memory_dir / "facts.md").write_text(f"# Facts\n\n{line}\n", encoding="utf-8")
    memory = load_memory(memory_paths(memory_dir, "native"), "native")
    target = Target("-x", memory_dir, "native", digests=[_digest(said)])
    edits = Edits(memory, TODAY)
    gone, _ = prune_stale(memory, edits, target, Config(stale_days=90), TODAY, set())
    assert bool(gone) is pruned
    assert bool(edits.archived) is pruned
    if pruned:
        assert "stale: older than 90 days" in edits.archived[0].reason


def test_no_sessions_in_the_window_prunes_nothing(tmp_path: Path) -> None:
    memory_dir = tmp_path / "memory"
    memory_dir.mkdir()
    (memory_dir / "facts.md").write_text(f"# Facts\n\n- [{_day(400)}] A very old fact.\n", encoding="utf-8")
    memory = load_memory(memory_paths(memory_dir, "native"), "native")
    target = Target("-x", memory_dir, "native")
    assert prune_stale(memory, Edits(memory, TODAY), target, Config(), TODAY, set()) == ([], 0)


def test_an_entry_a_proposal_of_this_run_targets_is_not_stale(tmp_path: Path) -> None:
    memory_dir = tmp_path / "memory"
    memory_dir.mkdir()
    (memory_dir / "facts.md").write_text(f"# Facts\n\n- [{_day(400)}] A very old fact.\n", encoding="utf-8")
    memory = load_memory(memory_paths(memory_dir, "native"), "native")
    target = Target("-x", memory_dir, "native", digests=[_digest("something else entirely")])
    targeted = {id(memory.entries[0])}
    assert prune_stale(memory, Edits(memory, TODAY), target, Config(), TODAY, targeted) == ([], 0)


def test_prune_stays_inside_the_cap_oldest_first(tmp_path: Path) -> None:
    memory_dir = tmp_path / "memory"
    memory_dir.mkdir()
    lines = [f"- [{_day(100 + n)}] Old fact number {n} about the zq{n} service." for n in range(300)]
    (memory_dir / "facts.md").write_text("# Facts\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
    memory = load_memory(memory_paths(memory_dir, "native"), "native")
    target = Target("-x", memory_dir, "native", digests=[_digest("fix the login page")])
    edits = Edits(memory, TODAY)
    gone, waiting = prune_stale(memory, edits, target, Config(), TODAY, set(), limit=50)
    assert len(gone) == 50 and waiting == 250
    # The oldest go first.
    assert gone[0] == "Old fact number 299 about the zq299 service."
