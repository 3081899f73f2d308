"""Discovery of evidence in all three layouts (DESIGN.md §2) and the per-session digest cache (issue 2)."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from homefactory import Turn, iso, session_lines, slug, write_session

from dream import digest as digest_module
from dream import discover, rules_version
from dream.api import Session
from dream.config import Config
from dream.digest import DigestStats, get_digest, pack_path
from dream.discover import CLAUDE, OPENCLAW_LOG, OPENCLAW_SESSION, claude_sessions
from dream.errors import UsageError
from dream.gather import gather, parse_since
from dream.paths import project_slug, resolve_paths
from dream.signals import extract_signals
from dream.transcripts import ReadStats, UserMessage

# Typed by the person, and the rule dream keeps of it (dream.rules drops the "From now on").
RULE_SAID = "From now on always use pnpm in this repo, never npm."
RULE = "Always use pnpm in this repo, never npm."
RULE2 = "Never add emojis to commit messages."


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


@pytest.fixture
def claude(isolated_home: Path) -> Path:
    return Path(os.environ["CLAUDE_CONFIG_DIR"])


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "init.defaultBranch=main",
            *args,
        ],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


# -- discovery: Claude Code's layout ---------------------------------------------------------------


def test_real_layout_and_sessions_folder_are_found(claude: Path) -> None:
    cwd = "/home/dana/src/app"
    main = write_session(claude, cwd, [Turn(RULE_SAID, _now() - timedelta(hours=1))])
    folder = main.parent
    older = folder / "sessions" / "5d2b6a8e-0000-4000-8000-000000000001.jsonl"
    older.parent.mkdir()
    older.write_text(
        "\n".join(session_lines(older.stem, cwd, [Turn(RULE2, _now())])) + "\n", encoding="utf-8"
    )
    # Not sessions: the memory dir, a subagent transcript, a non-jsonl file.
    (folder / "memory").mkdir()
    (folder / "memory" / "MEMORY.md").write_text("# Memory Index\n", encoding="utf-8")
    sub = folder / main.stem / "subagents" / "agent-1.jsonl"
    sub.parent.mkdir(parents=True)
    sub.write_text(main.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "notes.txt").write_text("x", encoding="utf-8")

    sources = claude_sessions(resolve_paths(claude), ReadStats())
    assert sorted(s.path for s in sources) == sorted([main, older])
    assert {s.kind for s in sources} == {CLAUDE}
    assert {s.folder for s in sources} == {slug(cwd)}
    assert {s.session_id for s in sources} == {main.stem, older.stem}

    found = Session.open(claude_dir=claude).signals()
    assert {s.session_id for s in found} == {main.stem, older.stem}


def test_a_directory_named_jsonl_does_not_stop_discovery(claude: Path) -> None:
    main = write_session(claude, "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=1))])
    (main.parent / "weird.jsonl").mkdir()
    assert [s.path for s in claude_sessions(resolve_paths(claude), ReadStats())] == [main]


def test_symlink_loop_in_projects_is_reported_not_fatal(claude: Path) -> None:
    main = write_session(claude, "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=1))])
    (main.parent / "a.jsonl").symlink_to(main.parent / "b.jsonl")
    (main.parent / "b.jsonl").symlink_to(main.parent / "a.jsonl")
    stats = ReadStats()
    assert [s.path for s in claude_sessions(resolve_paths(claude), stats)] == [main]
    assert {Path(p).name for p, _ in stats.unreadable} == {"a.jsonl", "b.jsonl"}


def test_session_maps_to_the_memory_dir_of_its_git_root(claude: Path, tmp_path: Path) -> None:
    repo = (tmp_path / "repo").resolve()
    repo.mkdir()
    _git("init", "-q", cwd=repo)
    cwd = repo / "src" / "pkg"
    cwd.mkdir(parents=True)
    path = write_session(claude, str(cwd), [Turn(RULE_SAID, _now() - timedelta(hours=1))])
    # The transcript stays under the cwd's slug ...
    assert path.parent.name == project_slug(str(cwd))
    result = Session.open(claude_dir=claude).gather()
    # ... while the memory is the git root's.
    assert list(result.targets) == [project_slug(str(repo))]
    target = result.targets[project_slug(str(repo))]
    assert target.memory_dir == claude / "projects" / project_slug(str(repo)) / "memory"
    assert [s.project for s in target.signals] == [project_slug(str(repo))]


def test_worktree_maps_to_the_main_checkout(claude: Path, tmp_path: Path) -> None:
    repo = (tmp_path / "main").resolve()
    repo.mkdir()
    _git("init", "-q", cwd=repo)
    _git("commit", "-q", "--allow-empty", "-m", "init", cwd=repo)
    worktree = (tmp_path / "feature-wt").resolve()
    _git("worktree", "add", "-q", str(worktree), cwd=repo)
    assert (worktree / ".git").is_file()
    cwd = worktree / "lib"
    cwd.mkdir()
    write_session(claude, str(cwd), [Turn(RULE_SAID, _now() - timedelta(hours=1))])
    result = Session.open(claude_dir=claude).gather()
    assert list(result.targets) == [project_slug(str(repo))]


def test_session_outside_git_maps_to_its_own_slug(claude: Path, tmp_path: Path) -> None:
    cwd = (tmp_path / "plain" / "dir").resolve()
    cwd.mkdir(parents=True)
    write_session(claude, str(cwd), [Turn(RULE_SAID, _now() - timedelta(hours=1))])
    result = Session.open(claude_dir=claude).gather()
    assert list(result.targets) == [project_slug(str(cwd))]


# -- the window ----------------------------------------------------------------------------------------


def test_files_older_than_the_window_are_not_read(claude: Path) -> None:
    old_at = _now() - timedelta(days=20)
    old = write_session(claude, "/home/dana/app", [Turn(RULE_SAID, old_at)])
    os.utime(old, (old_at.timestamp(), old_at.timestamp()))
    new = write_session(claude, "/home/dana/app", [Turn(RULE2, _now() - timedelta(hours=1))])
    paths = resolve_paths(claude)
    since = parse_since("7", 7)
    assert [s.path for s in claude_sessions(paths, ReadStats(), since)] == [new]
    result = gather(paths, Config(), since=since)
    assert result.read.files == 1
    assert result.digests.built == 1


def test_window_is_by_message_timestamp(claude: Path) -> None:
    # One file, written today, holding a message from 10 days ago and one from yesterday.
    write_session(
        claude,
        "/home/dana/app",
        [Turn(RULE_SAID, _now() - timedelta(days=10)), Turn(RULE2, _now() - timedelta(days=1))],
    )
    three = Session.open(claude_dir=claude, since="3").signals()
    assert [s.text for s in three] == [RULE2]
    everything = Session.open(claude_dir=claude, since="30").signals()
    assert sorted(s.text for s in everything) == sorted([RULE, RULE2])


def test_window_by_date(claude: Path) -> None:
    recent = _now() - timedelta(hours=2)
    write_session(
        claude,
        "/home/dana/app",
        [Turn(RULE_SAID, datetime(2025, 12, 30, 12, tzinfo=timezone.utc)), Turn(RULE2, recent)],
    )
    found = Session.open(claude_dir=claude, since="2026-01-01").signals()
    assert [s.text for s in found] == [RULE2]


def test_parse_since_forms() -> None:
    fixed = datetime(2026, 3, 15, 10, 0, tzinfo=timezone.utc)
    assert parse_since("3", 7, fixed) == fixed - timedelta(days=3)
    assert parse_since(None, 7, fixed) == fixed - timedelta(days=7)
    assert parse_since("2026-01-01", 7, fixed) == datetime(2026, 1, 1, tzinfo=timezone.utc)
    for bad in ("last-week", "2026-13-45", "-3", "3d"):
        with pytest.raises(UsageError):
            parse_since(bad, 7, fixed)


# -- OpenClaw ------------------------------------------------------------------------------------------


def _openclaw_session(path: Path, cwd: str, messages: list[tuple[str, str, datetime]]) -> None:
    lines = [{"type": "session", "id": path.stem, "cwd": cwd, "timestamp": iso(_now())}]
    for number, (role, text, at) in enumerate(messages):
        lines.append(
            {
                "type": "message",
                "id": f"m{number}",
                "timestamp": iso(at),
                "message": {"role": role, "content": [{"type": "text", "text": text}]},
            }
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(o) + "\n" for o in lines), encoding="utf-8")


def test_openclaw_daily_logs_and_agent_sessions(isolated_home: Path, claude: Path) -> None:
    workspace = isolated_home / ".openclaw" / "workspace"
    today = _now().date()
    log = workspace / "memory" / f"{today.isoformat()}.md"
    log.parent.mkdir(parents=True)
    log.write_text(
        "# Today\n"
        "- Set up the repo and ran the tests. From now on I will always use quokka for builds.\n"
        "- Rowan corrected me: staging runs on Fly.io in fra, not in ams.\n",
        encoding="utf-8",
    )
    old_day = today - timedelta(days=30)
    (workspace / "memory" / f"{old_day.isoformat()}.md").write_text(
        "- Rowan said: never deploy on Fridays.\n", encoding="utf-8"
    )
    # OpenClaw's own files are never evidence.
    for name in ("DREAMS.md", "SOUL.md", "USER.md", "AGENTS.md", "MEMORY.md"):
        (workspace / name).write_text(
            f"- Rowan said: from now on always use quokka ({name}).\n", encoding="utf-8"
        )
    session = isolated_home / ".openclaw" / "agents" / "main" / "sessions" / "abc123.jsonl"
    _openclaw_session(
        session,
        "/home/rowan/app",
        [
            ("user", RULE_SAID, _now() - timedelta(hours=3)),
            ("assistant", "From now on I will always use quokka, never make.", _now() - timedelta(hours=3)),
        ],
    )

    paths = resolve_paths(claude)
    sources = discover.openclaw_sources(
        workspace, workspace.parent / "agents", ReadStats(), parse_since("7", 7)
    )
    assert sorted((s.kind, s.path.name) for s in sources) == sorted(
        [(OPENCLAW_SESSION, "abc123.jsonl"), (OPENCLAW_LOG, log.name)]
    )
    result = gather(paths, Config(memory_type="openclaw"), since=parse_since("7", 7))
    [target] = result.targets.values()
    assert target.memory_dir == workspace
    texts = [s.text for s in target.signals]
    assert any("Fly.io" in t for t in texts)
    assert any("pnpm" in t for t in texts)
    assert not any("quokka" in t.lower() for t in texts)
    assert not any("Fridays" in t for t in texts)


# -- project-root --------------------------------------------------------------------------------------


def test_project_root_reads_the_repositorys_transcripts_only(claude: Path, tmp_path: Path) -> None:
    app = (tmp_path / "app").resolve()
    (app / "sub").mkdir(parents=True)
    sibling = (tmp_path / "app-legacy").resolve()
    sibling.mkdir()
    write_session(claude, str(app), [Turn(RULE_SAID, _now() - timedelta(hours=3))])
    write_session(claude, str(app / "sub"), [Turn(RULE2, _now() - timedelta(hours=2))])
    # `app-legacy` has the slug `…-app-legacy`, which starts with app's slug: it must not leak in.
    write_session(
        claude,
        str(sibling),
        [Turn("We always deploy the legacy app with Capistrano.", _now() - timedelta(hours=1))],
    )
    session = Session.open(claude_dir=claude, memory_type="project-root", project=app)
    result = session.gather()
    assert list(result.targets) == [project_slug(str(app))]
    target = result.targets[project_slug(str(app))]
    assert target.memory_dir == app
    assert sorted(s.text for s in target.signals) == sorted([RULE, RULE2])


# -- digests -------------------------------------------------------------------------------------------


def _gather(claude: Path) -> tuple[Session, DigestStats, list[str]]:
    session = Session.open(claude_dir=claude)
    result = session.gather()
    texts = sorted(s.text for t in result.targets.values() for s in t.signals)
    return session, result.digests, texts


def test_digest_reused_while_the_file_is_unchanged(claude: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_session(claude, "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=2))])
    write_session(claude, "/home/dana/other", [Turn(RULE2, _now() - timedelta(hours=1))])
    _, first, texts = _gather(claude)
    assert (first.built, first.reused) == (2, 0)

    def no_parsing(*args: object, **kwargs: object) -> None:
        raise AssertionError("an unchanged session was parsed again")

    monkeypatch.setattr(digest_module, "build_digest", no_parsing)
    monkeypatch.setattr(digest_module, "read_claude_transcript", no_parsing)
    _, second, again = _gather(claude)
    assert (second.built, second.reused) == (0, 2)
    assert again == texts


def test_digest_rebuilt_when_a_line_is_appended(claude: Path) -> None:
    path = write_session(
        claude, "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=2))], session_id="s1"
    )
    _gather(claude)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(
            "\n".join(session_lines("s1", "/home/dana/app", [Turn(RULE2, _now() - timedelta(hours=1))]))
        )
        handle.write("\n")
    _, stats, texts = _gather(claude)
    assert (stats.built, stats.reused) == (1, 0)
    assert texts == sorted([RULE, RULE2])


def _last_line_user_session(path: Path, text: str, at: datetime) -> None:
    lines = session_lines(path.stem, "/home/dana/app", [Turn(text, at)])
    user_line = next(line for line in lines if '"type":"user"' in line and text in line)
    lines.remove(user_line)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([*lines, user_line]) + "\n", encoding="utf-8")


def test_digest_rebuilt_on_same_size_rewrite_with_the_same_mtime(claude: Path) -> None:
    path = claude / "projects" / slug("/home/dana/app") / "s1.jsonl"
    _last_line_user_session(path, RULE_SAID, _now() - timedelta(hours=1))
    _, _, texts = _gather(claude)
    assert texts == [RULE]
    info = path.stat()
    changed = path.read_bytes().replace(b"use pnpm in", b"use yarn in")
    assert len(changed) == info.st_size
    path.write_bytes(changed)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (info.st_size, info.st_mtime_ns)
    _, stats, texts = _gather(claude)
    assert stats.built == 1
    assert texts == [RULE.replace("pnpm", "yarn")]


def test_digest_rebuilt_on_same_size_rewrite(claude: Path) -> None:
    path = claude / "projects" / slug("/home/dana/app") / "s1.jsonl"
    _last_line_user_session(path, RULE_SAID, _now() - timedelta(hours=1))
    _gather(claude)
    changed = path.read_bytes().replace(b"use pnpm in", b"use yarn in")
    path.write_bytes(changed)
    later = path.stat().st_mtime + 5
    os.utime(path, (later, later))
    _, stats, texts = _gather(claude)
    assert stats.built == 1
    assert texts == [RULE.replace("pnpm", "yarn")]


def test_digest_invalidated_when_the_format_changes(claude: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_session(claude, "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=1))])
    _, first, _ = _gather(claude)
    assert first.built == 1
    _, again, _ = _gather(claude)
    assert (again.built, again.reused) == (0, 1)
    monkeypatch.setattr(digest_module, "DIGEST_FORMAT", digest_module.DIGEST_FORMAT + 1000)
    _, changed, texts = _gather(claude)
    assert (changed.built, changed.reused) == (1, 0)
    assert texts == [RULE]


def test_digest_made_again_when_the_redaction_rules_change(
    claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A person upgrades dream and the new version redacts a secret the old one missed: the digests
    # cached under the old rules are made again, or the secret would stay in the cache.
    rules = tmp_path / "redact.py"
    rules.write_bytes((Path(digest_module.__file__).parent / "redact.py").read_bytes())
    monkeypatch.setattr(digest_module, "_SAFETY_SOURCES", (rules,))
    write_session(claude, "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=1))])
    assert _gather(claude)[1].built == 1
    assert _gather(claude)[1].reused == 1
    rules.write_bytes(rules.read_bytes() + b"\n# one more rule\n")
    rules_version.sources_id.cache_clear()
    _, changed, texts = _gather(claude)
    assert (changed.built, changed.reused) == (1, 0) and texts == [RULE]


def test_corrupt_digest_is_rebuilt_not_fatal(claude: Path) -> None:
    write_session(claude, "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=1))])
    _gather(claude)
    [cache] = (claude / "dream" / "digests").rglob("*.json")
    cache.write_text('{"format": ', encoding="utf-8")
    _, stats, texts = _gather(claude)
    assert stats.built == 1 and texts == [RULE]


def _cached_sessions(claude: Path) -> dict[str, list[str]]:
    """The cache's contents: pack file name → the session files it holds digests of."""
    return {
        pack.name: sorted(Path(key).stem for key in json.loads(pack.read_text(encoding="utf-8"))["sessions"])
        for pack in sorted((claude / "dream" / "digests").glob("*.json"))
    }


def test_digest_dropped_when_one_of_several_sessions_is_deleted(claude: Path) -> None:
    keep = write_session(claude, "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=2))])
    gone = write_session(claude, "/home/dana/app", [Turn(RULE2, _now() - timedelta(hours=1))])
    _gather(claude)
    pack = pack_path(resolve_paths(claude), slug("/home/dana/app")).name
    assert _cached_sessions(claude) == {pack: sorted([keep.stem, gone.stem])}
    gone.unlink()
    _, stats, texts = _gather(claude)
    assert stats.dropped == 1
    assert texts == [RULE]
    assert _cached_sessions(claude) == {pack: [keep.stem]}


def test_digest_dropped_when_the_only_session_of_a_project_is_deleted(claude: Path) -> None:
    keep = write_session(claude, "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=2))])
    gone = write_session(claude, "/home/dana/other", [Turn(RULE2, _now() - timedelta(hours=1))])
    _gather(claude)
    assert len(_cached_sessions(claude)) == 2
    gone.unlink()
    _, stats, texts = _gather(claude)
    assert texts == [RULE]
    assert stats.dropped == 1
    assert _cached_sessions(claude) == {f"{slug('/home/dana/app')}.json": [keep.stem]}


def test_pack_of_a_deleted_project_folder_is_removed(claude: Path) -> None:
    write_session(claude, "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=2))])
    gone = write_session(claude, "/home/dana/other", [Turn(RULE2, _now() - timedelta(hours=1))])
    _gather(claude)
    for path in gone.parent.iterdir():
        path.unlink()
    gone.parent.rmdir()
    _, stats, _ = _gather(claude)
    assert stats.dropped == 1
    assert list(_cached_sessions(claude)) == [f"{slug('/home/dana/app')}.json"]


def test_cache_keeps_the_window_not_the_history(claude: Path) -> None:
    def aged(days: float, text: str) -> Path:
        path = write_session(claude, "/home/dana/app", [Turn(text, _now() - timedelta(days=days))])
        stamp = (_now() - timedelta(days=days)).timestamp()
        os.utime(path, (stamp, stamp))
        return path

    pack = f"{slug('/home/dana/app')}.json"
    old = aged(20, RULE)
    five_days = aged(5, RULE2)
    Session.open(claude_dir=claude, since="30").gather()
    assert _cached_sessions(claude) == {pack: sorted([old.stem, five_days.stem])}
    # A run with a shorter window drops what is older than both windows, and keeps what the
    # configured one (7 days) still covers, though it did not read it.
    result = Session.open(claude_dir=claude, since="2").gather()
    assert (result.digests.built, result.digests.dropped) == (0, 1)
    assert _cached_sessions(claude) == {pack: [five_days.stem]}
    new = aged(0.1, "Never merge on Fridays.")
    result = Session.open(claude_dir=claude, since="2").gather()
    assert (result.digests.built, result.digests.reused, result.digests.dropped) == (1, 0, 0)
    assert _cached_sessions(claude) == {pack: sorted([five_days.stem, new.stem])}
    result = Session.open(claude_dir=claude).gather()
    assert (result.digests.built, result.digests.reused) == (0, 2)


def test_temp_files_of_a_killed_run_are_removed_when_old(claude: Path) -> None:
    write_session(claude, "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=1))])
    _gather(claude)
    digests = claude / "dream" / "digests"
    old = digests / f".{slug('/home/dana/app')}.json.4242.tmp"
    fresh = digests / f".{slug('/home/dana/app')}.json.4343.tmp"
    for path in (old, fresh):
        path.write_text('{"format": ', encoding="utf-8")
    two_hours_ago = (_now() - timedelta(hours=2)).timestamp()
    os.utime(old, (two_hours_ago, two_hours_ago))
    write_session(claude, "/home/dana/app", [Turn(RULE2, _now() - timedelta(minutes=5))])
    _gather(claude)
    assert not old.exists()
    assert fresh.exists()  # may be another run's, still writing


def test_a_pack_with_text_utf8_cannot_hold_is_still_written(claude: Path) -> None:
    # json.loads gives a lone surrogate for a "\\udc80" escape; a cwd holding one must not stop the cache.
    path = write_session(
        claude, "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=1))], session_id="s1"
    )
    path.write_text(
        path.read_text(encoding="utf-8").replace('"cwd":"/home/dana/app"', '"cwd":"/home/dana/\\udc80app"')
    )
    _, first, texts = _gather(claude)
    assert first.built == 1 and not first.cache_errors and texts == [RULE]
    _, again, _ = _gather(claude)
    assert (again.built, again.reused) == (0, 1)


def test_format_2_per_session_caches_are_removed(claude: Path) -> None:
    write_session(claude, "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=1))])
    legacy = claude / "dream" / "digests" / slug("/home/dana/app") / "claude-s1.json"
    legacy.parent.mkdir(parents=True)
    legacy.write_text('{"format": "2/4"}', encoding="utf-8")
    _, stats, texts = _gather(claude)
    assert texts == [RULE] and stats.built == 1
    assert not legacy.parent.exists()
    assert list(_cached_sessions(claude)) == [f"{slug('/home/dana/app')}.json"]


def test_a_warm_run_reads_one_file_per_folder(claude: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(6):
        write_session(claude, f"/home/dana/app{i % 2}", [Turn(RULE_SAID, _now() - timedelta(hours=i + 1))])
    _gather(claude)
    opened: list[str] = []
    real_read_bytes = Path.read_bytes

    def counting(self: Path) -> bytes:
        opened.append(self.name)
        return real_read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", counting)
    _, stats, texts = _gather(claude)
    assert (stats.built, stats.reused) == (0, 6)
    assert sorted(name for name in opened if name.endswith(".json")) == sorted(
        f"{slug(f'/home/dana/app{i}')}.json" for i in range(2)
    )
    assert texts == [RULE] * 6


def test_deleted_between_discovery_and_read(claude: Path) -> None:
    keep = write_session(claude, "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=2))])
    gone = write_session(claude, "/home/dana/app", [Turn(RULE2, _now() - timedelta(hours=1))])
    paths = resolve_paths(claude)
    read, dstats = ReadStats(), DigestStats()
    sources = claude_sessions(paths, read)
    assert len(sources) == 2
    gone.unlink()
    digests = {s.path: get_digest(paths, s, s.folder, read, dstats, write=True) for s in sources}
    assert digests[gone] is None
    kept = digests[keep]
    assert kept is not None and [s.text for s in kept.signals] == [RULE]
    assert [p for p, _ in read.unreadable] == [str(gone)]


DATA = Path(__file__).parent / "data"


def _labelled(name: str) -> list[dict[str, object]]:
    return [
        json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def test_digest_caps_signals_per_category_and_length(claude: Path) -> None:
    # This tests the cap, not detection: take training messages labelled `preference` that the extractor
    # does turn into preference signals, more than a digest may keep, all in one session.
    at = _now() - timedelta(hours=5)
    chosen: list[Turn] = []
    for row in _labelled("signals-train-a.jsonl"):
        if row["labels"] != ["preference"]:
            continue
        text = str(row["text"])
        got = extract_signals(UserMessage("s", "u", at, None, text), "p")
        if got and all(s.category == "preference" for s in got):
            chosen.append(Turn(text, at + timedelta(minutes=len(chosen))))
        if len(chosen) == 14:
            break
    assert len(chosen) == 14
    long_rule = Turn(
        "From now on, whenever you touch the billing service, always keep every price as an integer number "
        "of cents, never a float or a Decimal, and convert to a display string only at the very edge of the "
        "system in the templates, because rounding bugs there cost us real money last quarter and the "
        "auditors noticed it twice.",
        at + timedelta(minutes=30),
    )
    assert len(long_rule.text) > 250
    turns = [*chosen, long_rule]
    write_session(claude, "/home/dana/app", turns)
    direct = [s for t in turns for s in extract_signals(UserMessage("s", t.uuid, t.at, None, t.text), "p")]
    counts_direct: dict[str, int] = {}
    for signal in direct:
        counts_direct[signal.category] = counts_direct.get(signal.category, 0) + 1
    assert counts_direct.get("preference", 0) > 8, counts_direct

    result = Session.open(claude_dir=claude).gather()
    [digest] = [d for t in result.targets.values() for d in t.digests]
    counts: dict[str, int] = {}
    for signal in digest.signals:
        counts[signal.category] = counts.get(signal.category, 0) + 1
        assert 0 < len(signal.text) <= 200
    for category, n in counts_direct.items():
        assert counts.get(category, 0) == min(n, 8), (category, counts)
    # The long rule, when kept, is clipped rather than dropped or stored whole.
    for signal in digest.signals:
        if signal.uuid == long_rule.uuid:
            assert signal.text.startswith("Whenever you touch the billing service")
            assert len(signal.text) <= 200


def test_digest_cache_never_holds_a_planted_secret(claude: Path) -> None:
    token = "ghp" + "_" + "R8x2Lq9ZtY4mW7nB3vK6pD1sF5gH0jC2aE8u"
    aws = "AKIA" + "QW7RT2ZPLM4XYB6N"
    password = "Tr0ub4dor" + "&3horse"
    write_session(
        claude,
        "/home/dana/app",
        [
            Turn(f"From now on always deploy with the token {token} in CI.", _now() - timedelta(hours=3)),
            Turn(
                f"Remember that the staging AWS key is {aws}, we use it for every deploy.",
                _now() - timedelta(hours=2),
            ),
            Turn(
                f"The staging database always uses password={password} for now.",
                _now() - timedelta(hours=1),
                tool_output=f"export GITHUB_TOKEN={token}",
            ),
        ],
    )
    session = Session.open(claude_dir=claude)
    found = session.signals()
    assert found, "the secret-bearing rules should still be signals, with the secret redacted"
    caches = list((claude / "dream").rglob("*.json"))
    assert caches, "no digest was written"
    for path in (claude / "dream").rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for secret in (token, aws, password):
                assert secret.encode() not in data, f"{secret[:4]}… found in {path}"
    for signal in found:
        for secret in (token, aws, password):
            assert secret not in signal.text


def test_digest_cache_is_one_pack_per_folder(claude: Path) -> None:
    path = write_session(claude, "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=1))])
    target = pack_path(resolve_paths(claude), slug("/home/dana/app"))
    assert target == claude / "dream" / "digests" / f"{slug('/home/dana/app')}.json"
    Session.open(claude_dir=claude).gather()
    data = json.loads(target.read_text(encoding="utf-8"))
    assert list(data["sessions"]) == [str(path)]
    [row] = data["sessions"].values()
    info = path.stat()
    assert row["signature"] == [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]


def test_dry_run_gather_writes_no_digest(claude: Path) -> None:
    write_session(claude, "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=1))])
    found = Session.open(claude_dir=claude).signals(write_cache=False)
    assert [s.text for s in found] == [RULE]
    assert not (claude / "dream").exists()


def test_daily_log_date_outside_calendar_is_ignored(isolated_home: Path, claude: Path) -> None:
    workspace = isolated_home / ".openclaw" / "workspace"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "2026-02-30.md").write_text("- Rowan said: never use tabs.\n", encoding="utf-8")
    (workspace / "memory" / "people.md").write_text("- Rowan said: never use tabs.\n", encoding="utf-8")
    result = gather(resolve_paths(claude), Config(memory_type="openclaw"), since=parse_since("3650", 7))
    assert [s for t in result.targets.values() for s in t.signals] == []


def test_window_default_is_seven_days(claude: Path) -> None:
    write_session(
        claude,
        "/home/dana/app",
        [Turn(RULE_SAID, _now() - timedelta(days=8)), Turn(RULE2, _now() - timedelta(days=6))],
    )
    assert [s.text for s in Session.open(claude_dir=claude).signals()] == [RULE2]


def test_the_digest_cache_keeps_no_word_of_messages_that_are_not_signals(tmp_path: Path) -> None:
    """Only signals are stored as text; a word the redactor cannot know is a secret (a made-up
    passphrase typed in a task request) is kept nowhere, only as a hash of its term."""
    claude = tmp_path / ".claude"
    passphrase = "plorpwhistlequince"
    task = f"can you log in to the staging box with {passphrase} and restart the worker?"
    write_session(claude, "/home/dana/app", [Turn(task, _now() - timedelta(hours=1)), Turn(RULE2, _now())])
    Session.open(claude_dir=claude).signals()
    packs = list((claude / "dream" / "digests").glob("*.json"))
    assert packs
    cache = "".join(p.read_text(encoding="utf-8") for p in packs)
    assert passphrase not in cache and "staging" not in cache
    assert "emojis" in cache  # the signal's sentence is what the cache is for
    row = next(iter(json.loads(packs[0].read_text(encoding="utf-8"))["sessions"].values()))
    assert all(len(h) == 8 for h in row["terms"].split())
