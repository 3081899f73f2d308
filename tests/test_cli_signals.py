"""`python -m dream signals` as a real subprocess (DESIGN.md §7, issue 2 "Must show").

Every run gets HOME and CLAUDE_CONFIG_DIR inside the test's temporary directory.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import string
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from homefactory import FIXTURES, Turn, slug, write_lone_surrogate_session, write_session

from dream.defaults import CATEGORIES, SIGNAL_MAX_CHARS

# runs the CLI in subprocesses.
# Left out of the inner loop (`pytest -m "not slow"`); CI runs it.
pytestmark = pytest.mark.slow

KEYS = [
    "project",
    "session_id",
    "uuid",
    "timestamp",
    "category",
    "text",
    "confidence",
    "durability",
    "change_risk",
    "sensitivity",
]
# Typed by the person, and the rule dream keeps of it (dream.rules drops the "From now on").
RULE_SAID = "From now on always use pnpm in this repo, never npm."
RULE = "Always use pnpm in this repo, never npm."
RULE2 = "Never add emojis to commit messages."
REPO = Path(__file__).resolve().parent.parent


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    return home


def dream(home: Path, *args: str, claude: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "HOME")}
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(claude or home / ".claude"), PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "dream", *args],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=120,
    )


def json_lines(result: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    for row in rows:
        assert isinstance(row, dict)
    return rows


def check_row(row: dict[str, object]) -> None:
    assert set(row) == set(KEYS) and len(row) == len(KEYS), row
    assert row["category"] in CATEGORIES
    assert isinstance(row["text"], str) and 0 < len(row["text"]) <= SIGNAL_MAX_CHARS
    datetime.fromisoformat(str(row["timestamp"]).replace("Z", "+00:00"))
    for name in ("confidence", "durability", "change_risk", "sensitivity"):
        value = row[name]
        assert isinstance(value, (int, float)) and 0 <= value <= 1, (name, value)
    for name in ("project", "session_id", "uuid"):
        assert isinstance(row[name], str) and row[name]


def test_signals_json_prints_one_object_per_signal_with_the_design_keys(home: Path) -> None:
    claude = home / ".claude"
    turns = [
        Turn(RULE_SAID, _now() - timedelta(hours=3), tool_output="From now on always use quokka-make."),
        Turn("can you run the tests?", _now() - timedelta(hours=2)),
        Turn(RULE2, _now() - timedelta(hours=1), assistant_text="I will always use quokka from now on."),
    ]
    path = write_session(claude, "/home/dana/app", turns)
    result = dream(home, "signals", "--json", "--claude-dir", str(claude))
    rows = json_lines(result)
    assert len(rows) == 2
    for row in rows:
        check_row(row)
        assert row["session_id"] == path.stem
        assert row["project"] == slug("/home/dana/app")
    assert {r["uuid"] for r in rows} == {turns[0].uuid, turns[2].uuid}
    assert {r["text"] for r in rows} == {RULE, RULE2}
    assert "quokka" not in result.stdout
    # Results on stdout, diagnostics on stderr.
    assert result.stderr.strip()
    assert "user messages" not in result.stdout


def test_signals_without_json_prints_readable_lines(home: Path) -> None:
    write_session(home / ".claude", "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=1))])
    result = dream(home, "signals")
    assert result.returncode == 0, result.stderr
    assert RULE in result.stdout


def _copy_fixture(name: str, home: Path) -> Path:
    claude = home / ".claude"
    shutil.copytree(FIXTURES / name, claude, dirs_exist_ok=True)
    return claude


def test_runs_on_the_real_2_1_328_home(home: Path) -> None:
    claude = _copy_fixture("claude-code-2.1.328", home)
    result = dream(home, "signals", "--json", "--claude-dir", str(claude), "--since", "2025-01-01")
    rows = json_lines(result)
    for row in rows:
        check_row(row)
    # The fixture's three sessions were recorded in print mode (`claude -p`): the client marks
    # them as the Agent SDK's, so not one of their prompts is the person's (DESIGN.md §3).
    assert rows == []
    assert "0 user messages" in result.stderr
    assert "3 SDK-session entries" in result.stderr
    # The default window also runs cleanly.
    json_lines(dream(home, "signals", "--json", "--claude-dir", str(claude)))


def test_runs_on_the_real_1_0_98_home(home: Path) -> None:
    claude = _copy_fixture("claude-code-1.0.98", home)
    result = dream(home, "signals", "--json", "--claude-dir", str(claude), "--since", "2025-01-01")
    rows = json_lines(result)
    for row in rows:
        check_row(row)
    # One typed message ("Thanks! Please update CLAUDE.md ..."); the rest are wrappers, sidechains, tools.
    assert re.search(r"\b1 user message", result.stderr), result.stderr


def test_real_homes_with_added_rules_yield_only_the_added_rules(home: Path) -> None:
    claude = _copy_fixture("claude-code-2.1.328", home)
    shutil.copytree(FIXTURES / "claude-code-1.0.98" / "projects", claude / "projects", dirs_exist_ok=True)
    turn = Turn(RULE_SAID, _now() - timedelta(hours=1))
    write_session(claude, "/home/dev/proj", [turn])
    rows = json_lines(dream(home, "signals", "--json", "--since", "2025-01-01"))
    assert [r["uuid"] for r in rows] == [turn.uuid]
    assert rows[0]["project"] == "-home-dev-proj"


@pytest.mark.parametrize(
    "args",
    [
        ["--json", "--claude-dir", "{claude}", "signals"],
        ["signals", "--json", "--claude-dir", "{claude}"],
        ["--claude-dir", "{claude}", "signals", "--json"],
    ],
    ids=["all-before", "all-after", "split"],
)
def test_options_before_and_after_the_command(home: Path, tmp_path: Path, args: list[str]) -> None:
    # The Claude dir named on the command line is not the one in the environment: the option must win.
    claude = tmp_path / "elsewhere" / ".claude"
    turns = [Turn(RULE_SAID, _now() - timedelta(hours=2)), Turn(RULE2, _now() - timedelta(hours=1))]
    write_session(claude, "/home/dana/app", turns)
    rows = json_lines(dream(home, *(a.format(claude=claude) for a in args)))
    assert sorted(r["uuid"] for r in rows) == sorted(t.uuid for t in turns)


def test_since_days(home: Path) -> None:
    claude = home / ".claude"
    recent, older = Turn(RULE_SAID, _now() - timedelta(days=1)), Turn(RULE2, _now() - timedelta(days=5))
    write_session(claude, "/home/dana/app", [older, recent])
    assert [r["uuid"] for r in json_lines(dream(home, "signals", "--json", "--since", "3"))] == [recent.uuid]
    both = json_lines(dream(home, "--since", "10", "signals", "--json"))
    assert sorted(r["uuid"] for r in both) == sorted([recent.uuid, older.uuid])


def test_since_date(home: Path) -> None:
    claude = home / ".claude"
    before = Turn(RULE_SAID, datetime(2025, 12, 30, 12, tzinfo=timezone.utc))
    after = Turn(RULE2, _now() - timedelta(hours=1))
    write_session(claude, "/home/dana/app", [before, after])
    rows = json_lines(dream(home, "signals", "--json", "--since", "2026-01-01"))
    assert [r["uuid"] for r in rows] == [after.uuid]
    rows = json_lines(dream(home, "signals", "--json", "--since", "2025-12-01"))
    assert sorted(r["uuid"] for r in rows) == sorted([before.uuid, after.uuid])


@pytest.mark.parametrize("value", ["last-tuesday", "2026-13-45", "-3"])
def test_bad_since_is_a_usage_error(home: Path, value: str) -> None:
    write_session(home / ".claude", "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=1))])
    result = dream(home, "signals", "--json", "--since", value)
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "--since" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_unknown_command_and_option_are_usage_errors(home: Path) -> None:
    assert dream(home, "signalz").returncode == 2
    assert dream(home, "signals", "--no-such-option").returncode == 2


def test_bad_input_is_reported_on_stderr_not_fatal(home: Path) -> None:
    claude = home / ".claude"
    path = write_session(claude, "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=1))])
    folder = path.parent
    with open(path, "a", encoding="utf-8") as handle:
        handle.write('{"type":"user","message":{"role":"user","content":"broken\n')
        handle.write('{"type":"user","message":{"role":"user","content":"From now on always')
    (folder / "loop-a.jsonl").symlink_to(folder / "loop-b.jsonl")
    (folder / "loop-b.jsonl").symlink_to(folder / "loop-a.jsonl")
    (folder / "garbage.jsonl").write_bytes(random.Random(5).randbytes(20_000))
    result = dream(home, "signals", "--json")
    rows = json_lines(result)
    assert [r["text"] for r in rows] == [RULE]
    assert "malformed" in result.stderr
    assert "truncated" in result.stderr
    assert "loop-a.jsonl" in result.stderr


def _token() -> str:
    rng = random.Random(99)
    return "gh" + "p_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


def test_no_secret_in_stdout_stderr_or_state(home: Path) -> None:
    claude = home / ".claude"
    token = _token()
    anthropic = (
        "sk-" + "ant-" + "api03-" + "".join(random.Random(4).choice(string.ascii_letters) for _ in range(90))
    )
    turns = [
        Turn(f"From now on always push with the token {token} in CI.", _now() - timedelta(hours=2)),
        Turn(
            f"Remember that our eval key is {anthropic}; we always use it for nightly runs.",
            _now() - timedelta(hours=1),
            tool_output=f"ANTHROPIC_API_KEY={anthropic}",
        ),
    ]
    write_session(claude, "/home/dana/app", turns)
    for args in (["signals"], ["signals", "--json"]):
        result = dream(home, *args)
        assert result.returncode == 0, result.stderr
        assert token not in result.stdout and anthropic not in result.stdout
        assert token not in result.stderr and anthropic not in result.stderr
    rows = json_lines(result)
    assert rows, "the secret-bearing rules should still be reported, redacted"
    assert any("[REDACTED:" in str(r["text"]) for r in rows)
    for path in (claude / "dream").rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert token.encode() not in data and anthropic.encode() not in data, path


def test_non_english_and_odd_text_run_without_error(home: Path) -> None:
    claude = home / ".claude"
    texts = [
        "Ab jetzt bitte immer pnpm verwenden, niemals npm.",
        "今後は常にpnpmを使ってください。",
        "以后总是使用 pnpm。",
        "Всегда используй pnpm.",
        "من الآن فصاعدًا استخدم دائمًا pnpm.",
        "🚀 always 🔥 pnpm 🔥",
        "nul \x00 and bell \x07 always use pnpm",
    ]
    start = _now() - timedelta(hours=3)
    write_session(
        claude, "/home/dana/app", [Turn(t, start + timedelta(minutes=i)) for i, t in enumerate(texts)]
    )
    for row in json_lines(dream(home, "signals", "--json")):
        check_row(row)


def test_lone_surrogate_in_a_transcript_does_not_crash(home: Path) -> None:
    # JavaScript strings are UTF-16; a message cut inside an emoji is written by JSON.stringify as a lone
    # surrogate escape. The line is valid JSON; the text it decodes to cannot be encoded as UTF-8.
    turn = write_lone_surrogate_session(home / ".claude", "/home/dana/app", _now() - timedelta(hours=1))
    for args in (["signals"], ["signals", "--json"]):
        result = dream(home, *args)
        assert result.returncode == 0, result.stderr[-2000:]
        assert "Traceback" not in result.stderr
    rows = json_lines(result)
    assert [r["uuid"] for r in rows] == [turn.uuid]


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        out[str(path.relative_to(root))] = (info.st_size, info.st_mtime_ns)
    return out


def test_dry_run_signals_writes_nothing(home: Path) -> None:
    claude = home / ".claude"
    write_session(claude, "/home/dana/app", [Turn(RULE_SAID, _now() - timedelta(hours=1))])
    before = _tree(home)
    rows = json_lines(dream(home, "--dry-run", "signals", "--json"))
    assert [r["text"] for r in rows] == [RULE]
    assert _tree(home) == before


def test_claude_dir_from_the_environment(home: Path, tmp_path: Path) -> None:
    other = tmp_path / "cfg"
    turn = Turn(RULE_SAID, _now() - timedelta(hours=1))
    write_session(other, "/home/dana/app", [turn])
    write_session(home / ".claude", "/home/dana/app", [Turn(RULE2, _now() - timedelta(hours=1))])
    rows = json_lines(dream(home, "signals", "--json", claude=other))
    assert [r["uuid"] for r in rows] == [turn.uuid]


def test_module_entry_point_is_the_package_in_this_repository() -> None:
    result = subprocess.run(
        [sys.executable, "-c", "import dream, sys; print(dream.__file__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(result.stdout.strip()).resolve().is_relative_to(REPO)
