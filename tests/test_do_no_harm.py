"""First, do no harm (issue 15): curated memory kept as written, runs that cannot fail forever,
writes that race with another writer.

The homes are real-format Claude homes (`homefactory`); runs go through the library (`Session`)
or, where processes matter (a concurrent appender), the command line.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from homefactory import Turn, now, slug, write_session

from dream import fsio
from dream.api import Session
from dream.curated import DREAM_HEADING, blocks
from dream.memory import load_file
from dream.verify import failed, verify_memory

TODAY = now().date().isoformat()
CHECKLIST = "steps before a release"


def _curated(title: str, areas: int) -> list[str]:
    """A MEMORY.md as people and Claude Code curate them: a heading per area, a line ending in ':'
    that introduces a list, a table, nested lists, a code fence, inline code, placeholders
    repeated, Claude Code's own index lines."""
    lines = [f"# {title}", "", "When user is in this database repository:", "- run migrations with alembic"]
    lines += [
        "- never drop tables by hand",
        "",
        f"- [Deploy checklist](deploy_checklist.md) — {CHECKLIST}",
        "",
    ]
    for n in range(areas):
        lines += [
            f"## Area {n}", "", "**Structure**:", "", "| column | meaning |", "|---|---|",
            f"| a{n} | the first `x{n}` value |", f"| b{n} | the second |", "", "*None yet*", "",
            f"- item {n} one", f"  - nested {n}, see `cfg{n}.yaml`", f"- item {n} two", "",
            "```sh", f"make area{n}", "```", "",
        ]  # fmt: skip
    return lines


def _home(root: Path, areas: int, with_session: bool, name: str) -> Path:
    claude = root / ".claude"
    cwd = f"/home/dev/{name}"
    memory = claude / "projects" / slug(cwd) / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("\n".join(_curated(name, areas)) + "\n", encoding="utf-8")
    (memory / "deploy_checklist.md").write_text(
        "---\nname: Deploy checklist\ndescription: steps before a release\ntype: project\n---\n\n"
        "Tag the release, then run the smoke tests.\n",
        encoding="utf-8",
    )
    if with_session:
        at = now() - timedelta(hours=3)
        write_session(claude, cwd, [Turn("From now on always use pnpm, never npm.", at)])
    else:
        # An old session: the project exists, but nothing is new in the window.
        write_session(claude, cwd, [Turn("we use pnpm here", now() - timedelta(days=40))])
    return memory


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _lines(memory: Path) -> Counter[str]:
    kept: Counter[str] = Counter()
    for name in ("MEMORY.md", "memory-continued.md"):
        if (memory / name).exists():
            kept.update((memory / name).read_text(encoding="utf-8").split("\n"))
    return kept


@pytest.mark.parametrize("areas", [4, 14])  # within the load limits, and past them
def test_curated_memory_is_kept_as_written_and_an_idle_dir_is_not_touched(tmp_path: Path, areas: int) -> None:
    root = tmp_path
    active = _home(root, areas, True, "dbapp")
    idle = _home(root, 16, False, "oldapp")  # past the limits too, but no new evidence... see below
    # The idle one is within the limits, so nothing may change in it at all.
    (idle / "MEMORY.md").write_text("\n".join(_curated("oldapp", 5)) + "\n", encoding="utf-8")
    original = (active / "MEMORY.md").read_text(encoding="utf-8").split("\n")
    idle_before = _tree(idle.parent)
    session = Session.open(claude_dir=root / ".claude")
    result = session.run()
    assert result.exit_code == 0, [t.failures for t in result.targets]

    # Every original line is still there, as often as it was, and no line of it was re-dated.
    kept = _lines(active)
    assert not Counter(original) - kept
    assert not any(line.startswith(f"- [{TODAY}]") for line in (active / "MEMORY.md").read_text().split("\n"))
    # Headings, tables, nested lists and fences stay whole: each block is there line for line.
    index = load_file(active / "MEMORY.md", "MEMORY.md", "index")
    after = (active / "MEMORY.md").read_text(encoding="utf-8")
    continued = (active / "memory-continued.md").read_text(encoding="utf-8") if areas > 10 else ""
    for first, end in blocks(original, 0):
        block = "\n".join(original[first:end]).strip("\n")
        assert block in after or block in continued, block[:80]
    # dream's rules are in its own section, the limits hold, and the person's link is there.
    assert DREAM_HEADING in after and "- Always use pnpm, never npm." in after
    assert len(index.lines) <= 200 and len(after) <= 25_000
    assert "- [Deploy checklist](deploy_checklist.md) — steps before a release" in after
    if areas > 10:
        assert "](memory-continued.md)" in after
    # The idle dir: byte for byte, and no lock, flag or backup beside it.
    assert _tree(idle.parent) == idle_before
    assert not list(idle.parent.glob("memory-backup-*"))

    first_run = _tree(active)
    again = Session.open(claude_dir=root / ".claude").run()
    assert again.exit_code == 0
    second = _tree(active)
    assert {k: v for k, v in second.items() if not k.startswith(".")} == {
        k: v for k, v in first_run.items() if not k.startswith(".")
    }


def test_a_curated_index_with_nothing_new_is_byte_for_byte_even_with_dream_topic_files(
    tmp_path: Path,
) -> None:
    memory = _home(tmp_path, 3, False, "quiet")
    (memory / "preferences.md").write_text(
        "# Preferences\n\n- [2026-01-05] Use pnpm. (source: session 2026-01-05 abcdef12, confidence: high)\n"
    )
    before = _tree(memory)
    assert Session.open(claude_dir=tmp_path / ".claude").run().exit_code == 0
    assert _tree(memory) == before


def test_pre_existing_duplicates_and_relative_dates_do_not_fail_the_run(tmp_path: Path) -> None:
    claude = tmp_path / ".claude"
    cwd = "/home/dev/messy"
    memory = claude / "projects" / slug(cwd) / "memory"
    memory.mkdir(parents=True)
    recent = (now() - timedelta(days=10)).date().isoformat()
    (memory / "facts.md").write_text(
        "# Facts\n\n"
        f"- [{recent}] *None yet*\n- [{recent}] *None yet*\n- [{recent}] *None yet*\n"
        f"- [{recent}] **Structure**:\n- [{recent}] **Structure**:\n"
        f"- [{recent}] We moved to Postgres last year.\n- Check today's build.\n",
        encoding="utf-8",
    )
    write_session(
        claude, cwd, [Turn("From now on always use ruff, never flake8.", now() - timedelta(hours=2))]
    )
    result = Session.open(claude_dir=claude).run()
    assert result.exit_code == 0, [t.failures for t in result.targets]
    (target,) = result.targets
    assert {c["name"]: c["ok"] for c in target.checks}["no-duplicates"]
    assert "Always use ruff, never flake8." in (memory / "preferences.md").read_text()
    status = Session.open(claude_dir=claude).status()
    assert status.projects[0].hours_since_last_dream is not None
    # What was there is still there, and still reported: `dream verify` (no run to judge) names it.
    assert (memory / "facts.md").read_text().count("*None yet*") == 3
    loaded = Session.open(claude_dir=claude).verify()
    assert {c.name for c in failed(loaded.targets[0].checks)} == {"no-duplicates"}


def test_verification_still_fails_a_run_that_makes_a_new_problem(tmp_path: Path) -> None:
    claude = tmp_path / ".claude"
    memory = claude / "projects" / "p" / "memory"
    memory.mkdir(parents=True)
    (memory / "facts.md").write_text("# Facts\n\n- [2025-06-01] One.\n", encoding="utf-8")
    from dream.layouts import memory_paths
    from dream.memory import load_memory

    before = load_memory(memory_paths(memory, "native"), "native")
    (memory / "facts.md").write_text(
        "# Facts\n\n- [2025-06-01] One.\n- [2025-06-01] One.\n- [2025-06-02] Fixed it yesterday.\n",
        encoding="utf-8",
    )
    after = load_memory(memory_paths(memory, "native"), "native")
    bad = {c.name for c in failed(verify_memory(after, None, before))}
    assert bad == {"no-duplicates", "no-relative-dates"}
    assert not failed(verify_memory(after, None, after))


def test_consolidate_lock_is_ours_while_writing_and_put_back_after_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude = tmp_path / ".claude"
    cwd = "/home/dev/locks"
    memory = claude / "projects" / slug(cwd) / "memory"
    memory.mkdir(parents=True)
    lock = memory / ".consolidate-lock"
    lock.write_text("999999999")  # a dead PID, a day old
    old = time.time() - 25 * 3600
    os.utime(lock, (old, old))
    write_session(claude, cwd, [Turn("Always run the linter before you commit.", now() - timedelta(hours=1))])
    seen: list[tuple[str, float]] = []
    real = fsio.atomic_write_bytes

    def watching(path: Path, data: bytes, **kwargs: object) -> None:
        if path.name.endswith(".md"):
            seen.append((lock.read_text(), lock.stat().st_mtime))
        real(path, data, **kwargs)  # type: ignore[arg-type]

    import dream.apply

    monkeypatch.setattr(dream.apply, "atomic_write_bytes", watching)
    # A run whose verification fails: memory and the lock's mtime are put back.
    monkeypatch.setattr(
        dream.apply, "verify_memory", lambda *a, **k: [dream.verify.Check("forced", False, "x")]
    )
    result = Session.open(claude_dir=claude).run()
    assert result.exit_code == 4
    assert seen and all(text == str(os.getpid()) and mtime > old + 3600 for text, mtime in seen)
    assert lock.read_text() == "999999999" and abs(lock.stat().st_mtime - old) < 1
    monkeypatch.undo()
    assert Session.open(claude_dir=claude).run().exit_code == 0
    assert lock.read_text() == str(os.getpid()) and lock.stat().st_mtime > old + 3600


APPENDER = """
import sys, time
path, tag, day = sys.argv[1], sys.argv[2], sys.argv[4]
n = 0
deadline = time.time() + float(sys.argv[3])
while time.time() < deadline:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(f"- [{day}] Appended line {tag}-{n} by another writer. (source: manual)\\n")
    n += 1
    time.sleep(0.002)
print(n)
"""


@pytest.mark.slow
def test_lines_appended_while_a_run_writes_are_never_lost(tmp_path: Path) -> None:
    """30 runs, each with a real process appending to the topic file the run rewrites."""
    claude = tmp_path / ".claude"
    cwd = "/home/dev/race"
    memory = claude / "projects" / slug(cwd) / "memory"
    memory.mkdir(parents=True)
    topic = memory / "preferences.md"
    topic.write_text("# Preferences\n\n", encoding="utf-8")
    script = tmp_path / "appender.py"
    script.write_text(APPENDER)
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(claude)}
    appended = 0
    for run in range(30):
        at = now() - timedelta(hours=2) + timedelta(minutes=run)
        write_session(claude, cwd, [Turn(f"From now on always use tool{run}x for builds, never make.", at)])
        writer = subprocess.Popen(
            [sys.executable, str(script), str(topic), str(run), "1.5", TODAY],
            stdout=subprocess.PIPE,
            text=True,
        )
        done = subprocess.run(
            [sys.executable, "-m", "dream", "--claude-dir", str(claude), "run"],
            env=env, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        out, _ = writer.communicate(timeout=30)
        appended += int(out)
        assert done.returncode in (0, 3), done.stdout[-2000:] + done.stderr
    text = (
        topic.read_text(encoding="utf-8") + (memory / "archive.md").read_text(encoding="utf-8")
        if (memory / "archive.md").exists()
        else topic.read_text(encoding="utf-8")
    )
    found = sum(1 for line in text.split("\n") if "by another writer" in line)
    assert appended > 300
    assert found == appended, f"{appended - found} of {appended} appended lines lost"


# -- a run that fails must not fail forever -------------------------------------------------------


def test_a_failed_run_keeps_its_items_waiting_for_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dream.apply
    import dream.verify

    claude = tmp_path / ".claude"
    cwd = "/home/dev/failing"
    token = "ghp_" + "Q7w" * 12
    at = now() - timedelta(hours=1)
    write_session(claude, cwd, [Turn(f"From now on the deploy token is {token}, use it for releases.", at)])
    monkeypatch.setattr(
        dream.apply, "verify_memory", lambda *a, **k: [dream.verify.Check("forced", False, "x")]
    )
    result = Session.open(claude_dir=claude).run()
    assert result.exit_code == 4
    waiting = Session.open(claude_dir=claude).review_items().items
    assert waiting and all(token not in str(item.proposal) for item in waiting)


def test_a_reject_given_while_a_run_works_stands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude = tmp_path / ".claude"
    cwd = "/home/dev/rejecting"
    at = now() - timedelta(hours=1)
    token = "ghp_" + "Z9x" * 12
    write_session(claude, cwd, [Turn(f"From now on the deploy token is {token}, use it for releases.", at)])
    assert Session.open(claude_dir=claude).run().exit_code == 0
    (item,) = Session.open(claude_dir=claude).review_items().items
    pid = item.proposal["id"]
    real = Session._keep_pending

    def reject_meanwhile(self: Session, target: object, plan: object) -> None:
        # The person rejects the item after this run read the queue and before it saves it.
        Session.open(claude_dir=claude).reject([pid])
        real(self, target, plan)  # type: ignore[arg-type]

    monkeypatch.setattr(Session, "_keep_pending", reject_meanwhile)
    assert Session.open(claude_dir=claude).run().exit_code == 0
    monkeypatch.undo()
    assert Session.open(claude_dir=claude).review_items().items == []


def test_the_run_ends_with_a_summary_that_names_what_failed_and_what_to_do() -> None:
    from dream.errors import TargetStatus
    from dream.render import render
    from dream.report import RunResult, TargetReport

    skipped = dict.fromkeys(("malformed", "oversized", "invalid_utf8", "truncated_last_line"), 0)
    read = {"files": 3, "user_messages": 9, "skipped": skipped, "unreadable": []}
    digests = {"built": 3, "reused": 0, "dropped": 0}
    result = RunResult("r1", "2026-12-01T00:00:00", False, "2026-11-24", read, digests)
    quiet = TargetReport("-quiet", "/m/quiet", "native", sessions=1, signals=2)
    quiet.refusals = [{"reason": "duplicate", "text": f"said again {n}", "detail": ""} for n in range(30)]
    changed = TargetReport("-changed", "/m/changed", "native", sessions=2, signals=3, written=["facts.md"])
    row = {"file": "facts.md", "why": "", "by": "host", "action": "add"}
    changed.proposals = [
        {**row, "id": "p1", "text": "Use pnpm.", "outcome": "applied"},
        {**row, "id": "p2", "text": "The key is [REDACTED:aws].", "outcome": "pending", "why": "a secret"},
    ]
    broken = TargetReport("-broken", "/m/broken", "native", sessions=1, signals=1)
    broken.status, broken.failures = TargetStatus.VERIFICATION_FAILED, ["verification failed: no-duplicates"]
    result.targets = [quiet, changed, broken]
    text = render(result).stdout
    lines = text.splitlines()
    summary = "summary: 3 memory dirs: 2 ok (1 changed, 1 unchanged), 1 failed; 1 item waits for review"
    assert lines[-3] == summary + " (`dream review`)"
    assert lines[-2].startswith("failed: -broken [verification-failed]: verification failed")
    assert lines[-1].startswith("  next: memory was put back as it was")
    assert "== -quiet: unchanged (1 sessions, 2 signals)" in lines
    assert "said again 29" not in text
    verbose = render(result, verbose=True).stdout
    assert "said again 29" in verbose and "== -quiet  (native" in verbose
    data = render(result, as_json=True).stdout
    assert "said again" in data  # JSON stays complete (bounded only by the report's own caps)


def test_a_mistyped_claude_dir_or_project_is_an_error(tmp_path: Path) -> None:
    from dream.errors import DreamError, ExitCode

    with pytest.raises(DreamError, match="does not exist") as missing:
        Session.open(claude_dir=tmp_path / "no-such-claude")
    assert missing.value.exit_code == ExitCode.ERROR
    (tmp_path / ".claude").mkdir()
    with pytest.raises(DreamError, match=r"project folder .* does not exist"):
        Session.open(claude_dir=tmp_path / ".claude", project=tmp_path / "no-such-project")


@pytest.mark.slow
def test_a_mistyped_claude_dir_exits_1_from_the_command_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "dream", "--claude-dir", str(tmp_path / "nope"), "run"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 1 and "does not exist" in done.stderr and not done.stdout


def test_a_restore_can_be_undone_and_keeps_what_was_added_since(tmp_path: Path) -> None:
    claude = tmp_path / ".claude"
    cwd = "/home/dev/restoring"
    memory = claude / "projects" / slug(cwd) / "memory"
    write_session(claude, cwd, [Turn("From now on always use pnpm, never npm.", now() - timedelta(hours=2))])
    assert Session.open(claude_dir=claude).run().exit_code == 0
    topic = memory / "preferences.md"
    topic.write_text(topic.read_text() + "- [2026-11-30] Added by hand after the run.\n")
    result = Session.open(claude_dir=claude).restore()
    (restored,) = result.restored
    assert "Added by hand" not in (topic.read_text() if topic.exists() else "")
    assert restored.undo.endswith("-before-restore")
    again = Session.open(claude_dir=claude).restore(restored.undo)
    assert again.restored and "Added by hand after the run." in topic.read_text()
    # A plain `restore` means the last run, never a restore's own snapshot.
    plain = Session.open(claude_dir=claude).restore()
    assert plain.restored and plain.restored[0].undo != restored.undo


def test_statements_over_the_per_session_cap_are_counted_in_the_report(tmp_path: Path) -> None:
    from dream.render import render

    claude = tmp_path / ".claude"
    at = now() - timedelta(hours=3)
    tools = [f"zq{n}tool" for n in range(12)]
    turns = [
        Turn(f"I prefer {t} over make for every build here.", at + timedelta(minutes=n))
        for n, t in enumerate(tools)
    ]
    write_session(claude, "/home/dev/chatty", turns)
    result = Session.open(claude_dir=claude).run(dry_run=True)
    (target,) = result.targets
    assert target.signals + target.signals_over_cap >= 12 and target.signals_over_cap >= 1
    assert f"{target.signals_over_cap} more left out: over 8 of one category" in render(result).stdout
