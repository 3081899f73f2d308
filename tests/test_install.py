"""install.py: merges into settings.json without disturbing it, is idempotent, undoes itself exactly,
refuses what it cannot parse, and installs hooks that start with an absolute interpreter.

HOME and CLAUDE_CONFIG_DIR point into tmp_path; the Claude dir is always given explicitly too.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

# runs install.py in a subprocess.
# Left out of the inner loop (`pytest -m "not slow"`); CI runs it.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
CLAUDE_BIN = REPO / ".e2e" / "node_modules" / ".bin" / "claude"


def _load_installer() -> Any:
    spec = importlib.util.spec_from_file_location("dream_install", REPO / "install.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


installer = _load_installer()

RICH_SETTINGS = """{
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test:*)", "Read(~/notes/**)"], "deny": ["Bash(rm -rf:*)"]},
    "hooks": {
        "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}
        ],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/guard"}]}]
    },
    "zUnknownKey": {"nested": [1, 2, {"x": null}]},
    "env": {"FOO": "bar"},
    "aLastOne": true
}
"""


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))


@pytest.fixture
def claude(tmp_path: Path) -> Path:
    return tmp_path / "claude"


def install(claude: Path, *args: str) -> int:
    return int(installer.main(["--claude-dir", str(claude), *args]))


def tree(root: Path, backups: bool = True) -> dict[str, bytes | None]:
    """Every path under root with its bytes (None for folders); without `backups/` if asked."""
    if not root.exists():
        return {}
    found = {
        str(p.relative_to(root)): (None if p.is_dir() else p.read_bytes()) for p in sorted(root.rglob("*"))
    }
    return found if backups else {k: v for k, v in found.items() if k.split(os.sep)[0] != "backups"}


def settings_of(claude: Path) -> dict[str, Any]:
    obj = json.loads((claude / "settings.json").read_text())
    assert isinstance(obj, dict)
    return obj


def our_entries(settings: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [
        item
        for group in settings.get("hooks", {}).get(event, [])
        for item in group.get("hooks", [])
        if "/skills/dream/hooks/" in item.get("command", "")
    ]


# ---------------------------------------------------------------------------------------------
# Merging


def test_merges_into_rich_settings_keeping_everything_else(claude: Path) -> None:
    claude.mkdir()
    (claude / "settings.json").write_text(RICH_SETTINGS)
    before = json.loads(RICH_SETTINGS)
    assert install(claude) == 0
    after = settings_of(claude)
    assert list(after) == list(before)  # key order kept, nothing added at the top level but hooks' content
    for key in before:
        if key != "hooks":
            assert after[key] == before[key]
    assert after["hooks"]["PreToolUse"] == before["hooks"]["PreToolUse"]
    assert after["hooks"]["Stop"][0] == before["hooks"]["Stop"][0]
    assert list(after["hooks"]) == ["Stop", "PreToolUse", "SessionStart"]
    for event, script in (("Stop", "should-dream"), ("SessionStart", "session-start")):
        (entry,) = our_entries(after, event)
        assert entry["type"] == "command" and entry["timeout"] == 10
        python = os.path.realpath(sys.executable)
        assert entry["command"] == f'"{python}" -S "{claude}/skills/dream/hooks/{script}" || true'
        assert (claude / "skills" / "dream" / "hooks" / script).stat().st_mode & 0o111
    # The indentation of the file is kept.
    assert (claude / "settings.json").read_text().startswith('{\n    "model"')


@pytest.mark.parametrize("content", [None, b"", b"\n  \n"], ids=["missing", "empty", "blank"])
def test_missing_or_empty_settings_is_created(claude: Path, content: bytes | None) -> None:
    if content is not None:
        claude.mkdir()
        (claude / "settings.json").write_bytes(content)
    assert install(claude) == 0
    settings = settings_of(claude)
    assert list(settings) == ["hooks"]
    assert len(our_entries(settings, "Stop")) == 1 and len(our_entries(settings, "SessionStart")) == 1


@pytest.mark.parametrize(
    "content",
    [
        b'{"hooks": {"Stop": [}',
        b"{'single': 'quotes'}",
        b'{"a": 1,}',
        b"[1, 2]",
        b'"text"',
        b"\xff\xfe{}",
        b'{"hooks": []}',
        b'{"hooks": {"Stop": {}}}',
    ],
    ids=["torn", "quotes", "trailing-comma", "array", "string", "not-utf8", "hooks-list", "stop-object"],
)
def test_invalid_settings_is_refused_and_left_untouched(
    claude: Path, content: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    claude.mkdir()
    (claude / "settings.json").write_bytes(content)
    before = tree(claude)
    assert install(claude) == 1
    err = capsys.readouterr().err
    assert str(claude / "settings.json") in err or "settings.json" in err
    assert "nothing was changed" in err.lower() or "left as it is" in err.lower()
    assert tree(claude) == before


def test_invalid_json_message_names_the_place(claude: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claude.mkdir()
    (claude / "settings.json").write_text('{\n  "model": "opus",\n  "hooks": oops\n}\n')
    assert install(claude) == 1
    err = capsys.readouterr().err
    assert "is not valid JSON (line 3, column 12" in err and "Nothing was changed" in err


def test_twice_is_byte_identical_to_once(claude: Path) -> None:
    claude.mkdir()
    (claude / "settings.json").write_text(RICH_SETTINGS)
    assert install(claude, "--claude-md") == 0
    once = tree(claude)
    assert install(claude, "--claude-md") == 0
    assert install(claude) == 0
    assert tree(claude) == once
    settings = settings_of(claude)
    assert len(our_entries(settings, "Stop")) == 1 and len(our_entries(settings, "SessionStart")) == 1


def test_twice_by_the_command_line_too(claude: Path) -> None:
    def run() -> None:
        proc = subprocess.run(
            [sys.executable, str(REPO / "install.py"), "--claude-dir", str(claude)],
            capture_output=True,
            text=True,
            timeout=120,
            env=os.environ,
        )
        assert proc.returncode == 0, proc.stderr
        assert "warning" not in proc.stderr

    run()
    once = (claude / "settings.json").read_bytes()
    run()
    assert (claude / "settings.json").read_bytes() == once


def test_an_older_entry_of_ours_is_updated_in_place(claude: Path) -> None:
    claude.mkdir()
    script = claude / "skills" / "dream" / "hooks" / "should-dream"
    old = {
        "hooks": {
            "Stop": [
                {
                    "hooks": [
                        {"type": "command", "command": "python3 -S '" + str(script) + "'", "timeout": 600}
                    ]
                },
                {"hooks": [{"type": "command", "command": "echo mine"}]},
                {"hooks": [{"type": "command", "command": f'python3 "{script}"'}]},
            ]
        }
    }
    (claude / "settings.json").write_text(json.dumps(old, indent=2))
    assert install(claude) == 0
    stop = settings_of(claude)["hooks"]["Stop"]
    assert len(stop) == 2  # the duplicate of ours is gone, the user's entry stays where it was
    assert stop[0]["hooks"][0]["command"].startswith(f'"{os.path.realpath(sys.executable)}" -S ')
    assert stop[0]["hooks"][0]["timeout"] == 10
    assert stop[1] == {"hooks": [{"type": "command", "command": "echo mine"}]}


def test_backup_is_made_before_settings_change(claude: Path) -> None:
    claude.mkdir()
    (claude / "settings.json").write_text(RICH_SETTINGS)
    assert install(claude) == 0
    backups = sorted((claude / "backups").glob("settings.json.before-dream-*"))
    assert len(backups) == 1 and backups[0].read_text() == RICH_SETTINGS
    assert install(claude) == 0  # nothing changes, so no new backup
    assert len(list((claude / "backups").glob("settings.json.before-dream-*"))) == 1


# ---------------------------------------------------------------------------------------------
# Uninstall


@pytest.mark.parametrize(
    "content",
    [RICH_SETTINGS.encode(), None, b"", b'{"model":"opus"}'],
    ids=["rich", "missing", "empty", "compact"],
)
def test_uninstall_restores_the_original_bytes(claude: Path, content: bytes | None) -> None:
    claude.mkdir()
    (claude / "skills").mkdir()
    (claude / "skills" / "other").mkdir()
    if content is not None:
        (claude / "settings.json").write_bytes(content)
    (claude / "CLAUDE.md").write_text("# Mine\n\nKeep answers short.")
    before = tree(claude)
    assert install(claude, "--claude-md") == 0
    assert (claude / "skills" / "dream" / "SKILL.md").exists()
    assert install(claude, "--uninstall") == 0
    assert tree(claude, backups=False) == before  # the backups of settings.json stay


def test_uninstall_keeps_what_the_user_changed_meanwhile(claude: Path) -> None:
    claude.mkdir()
    (claude / "settings.json").write_text(RICH_SETTINGS)
    assert install(claude) == 0
    settings = settings_of(claude)
    settings["permissions"]["allow"].append("Bash(make:*)")
    settings["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": "echo later"}]})
    (claude / "settings.json").write_text(json.dumps(settings, indent=2))
    assert install(claude, "--uninstall") == 0
    after = settings_of(claude)
    assert "Bash(make:*)" in after["permissions"]["allow"]
    assert not our_entries(after, "Stop") and not our_entries(after, "SessionStart")
    assert "SessionStart" not in after["hooks"]
    assert [g["hooks"][0]["command"] for g in after["hooks"]["Stop"]] == ["notify-send done", "echo later"]
    assert list(after) == list(json.loads(RICH_SETTINGS))


def test_uninstall_puts_back_a_skill_file_it_replaced(claude: Path) -> None:
    skill = claude / "skills" / "dream" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: dream\n---\nthe seed's own skill\n")
    (skill.parent / ".dream-config").write_text("DREAM_MIN_SESSIONS=3\n")
    before = tree(claude)
    assert install(claude) == 0
    assert "the seed's own skill" not in skill.read_text()
    assert install(claude, "--uninstall") == 0
    assert tree(claude, backups=False) == before


def test_uninstall_when_not_installed_changes_nothing(claude: Path) -> None:
    claude.mkdir()
    (claude / "settings.json").write_text(RICH_SETTINGS)
    before = tree(claude)
    assert install(claude, "--uninstall") == 0
    assert tree(claude) == before


def test_uninstall_leaves_dreams_own_state(claude: Path) -> None:
    assert install(claude) == 0
    (claude / ".dream-pending").write_text("{}")
    (claude / "dream" / "sessions-seen").mkdir(parents=True)
    assert install(claude, "--uninstall") == 0
    assert (claude / ".dream-pending").exists() and (claude / "dream" / "sessions-seen").is_dir()
    assert not (claude / "skills").exists()


# ---------------------------------------------------------------------------------------------
# --dry-run and --claude-md


def test_dry_run_prints_a_diff_and_writes_nothing(claude: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claude.mkdir()
    (claude / "settings.json").write_text(RICH_SETTINGS)
    before = tree(claude)
    stamps = {p: p.stat().st_mtime_ns for p in claude.rglob("*")}
    assert install(claude, "--dry-run", "--claude-md") == 0
    out = capsys.readouterr().out
    assert f"--- a{claude}/settings.json" in out and f"+++ b{claude}/settings.json" in out
    assert "+" in out and "should-dream" in out and "SessionStart" in out
    assert f"+++ b{claude}/CLAUDE.md" in out and "dream:begin" in out  # the person's own files: a diff
    assert f"  {claude}/skills/dream/SKILL.md" in out  # dream's own: listed, not printed
    assert f"+++ b{claude}/skills/dream/SKILL.md" not in out
    assert tree(claude) == before
    assert {p: p.stat().st_mtime_ns for p in claude.rglob("*")} == stamps


def test_dry_run_lists_the_files_without_their_contents(
    claude: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claude.mkdir()  # a fresh Claude dir: nothing in it yet
    assert install(claude, "--dry-run") == 0
    out = capsys.readouterr().out
    assert list(claude.iterdir()) == []  # wrote nothing
    assert len(out.splitlines()) < 80
    assert "def " not in out and "import " not in out

    # Every file the real install then writes is named, with its size; settings.json, the person's
    # own file, is the diff.
    assert install(claude) == 0
    capsys.readouterr()
    written = sorted(
        p
        for p in claude.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and not p.name.startswith("regex-cache-")
    )
    # compiled code under __pycache__ comes from the hook's warm-up, the pattern cache from dream's
    assert len(written) == 6
    assert "compile dream's rule patterns" in out
    lines = out.splitlines()
    for path in written:
        if path.name == "settings.json":
            assert f"+++ b{path}" in lines
            continue
        named = [
            line
            for line in lines
            if line.split()[-1:] == [str(path)] or line.endswith(f"{path} (executable)")
        ]
        assert len(named) == 1, (path, out)
        assert f" {path.stat().st_size:,} bytes " in named[0]

    # No line of what is installed: the hooks' source, the skill.
    sources = [REPO / "hooks" / name for name in ("should_dream.py", "should-dream", "session-start")]
    sources.append(REPO / "skill" / "dream" / "SKILL.md")
    shown = {line.lstrip("+").strip() for line in lines}
    for source in sources:
        for line in source.read_text().splitlines():
            if len(line.strip()) >= 12:
                assert line.strip() not in shown, (source.name, line)


def test_dry_run_uninstall_writes_nothing(claude: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert install(claude, "--claude-md") == 0
    before = tree(claude)
    capsys.readouterr()
    assert install(claude, "--uninstall", "--dry-run") == 0
    out = capsys.readouterr().out
    assert "-" in out and "should-dream" in out
    assert f"--- a{claude}/settings.json" in out and f"--- a{claude}/CLAUDE.md" in out
    hooks = claude / "skills" / "dream" / "hooks"
    assert any(
        line.startswith("  remove ") and line.endswith(f"{hooks}/should_dream.py")
        for line in out.splitlines()
    )
    assert "def " not in out and len(out.splitlines()) < 80  # the removed files are named, not printed
    assert tree(claude) == before


def test_dry_run_on_a_missing_claude_dir_creates_nothing(claude: Path) -> None:
    assert install(claude, "--dry-run") == 0
    assert not claude.exists()


def test_claude_md_gets_the_snippet_once_between_markers(claude: Path) -> None:
    claude.mkdir()
    (claude / "CLAUDE.md").write_text("# My rules\n\n- Be brief.\n")
    assert install(claude, "--claude-md") == 0
    assert install(claude, "--claude-md") == 0
    text = (claude / "CLAUDE.md").read_text()
    assert text.startswith("# My rules\n\n- Be brief.\n\n")
    assert text.count(installer.MARK_BEGIN) == 1 and text.count(installer.MARK_END) == 1
    block = text[text.index(installer.MARK_BEGIN) : text.index(installer.MARK_END)]
    snippet = (REPO / "CLAUDE.md.snippet").read_text().strip()
    assert snippet.replace("~/.claude/", f"{claude}/") in block
    assert install(claude, "--uninstall") == 0
    assert (claude / "CLAUDE.md").read_text() == "# My rules\n\n- Be brief.\n"


def test_claude_md_block_edited_by_hand_is_replaced_not_duplicated(claude: Path) -> None:
    claude.mkdir()
    (claude / "CLAUDE.md").write_text(
        f"top\n\n{installer.MARK_BEGIN}\nstale text\n{installer.MARK_END}\nbottom\n"
    )
    assert install(claude, "--claude-md") == 0
    text = (claude / "CLAUDE.md").read_text()
    assert "stale text" not in text and text.count(installer.MARK_BEGIN) == 1
    assert text.startswith("top\n\n") and text.endswith(f"{installer.MARK_END}\nbottom\n")


def test_without_claude_md_flag_claude_md_is_not_touched(claude: Path) -> None:
    assert install(claude) == 0
    assert not (claude / "CLAUDE.md").exists()


# ---------------------------------------------------------------------------------------------
# What gets installed works


def test_skill_calls_the_recorded_interpreter(claude: Path) -> None:
    assert install(claude) == 0
    skill = (claude / "skills" / "dream" / "SKILL.md").read_text()
    manifest = json.loads((claude / "skills" / "dream" / ".install.json").read_text())
    python = manifest["python"]
    assert os.path.isabs(python) and os.access(python, os.X_OK)
    assert python == os.path.abspath(sys.executable)  # the venv's own python: it has dream installed
    assert "python3 -m dream" not in skill
    assert skill.startswith("---\nname: dream\ndescription: ")
    assert f"allowed-tools: Bash({python} -m dream --claude-dir {claude}:*)" in skill
    assert f"DREAM_CLI: `{python} -m dream --claude-dir {claude}`" in skill
    assert f"`{python} -m dream --claude-dir {claude} $ARGUMENTS`" in skill
    proc = subprocess.run(
        [python, "-m", "dream", "--claude-dir", str(claude), "--help"],
        capture_output=True,
        timeout=60,
        cwd="/",
    )
    assert proc.returncode == 0, proc.stderr


def _hook_command(claude: Path, event: str) -> str:
    (entry,) = our_entries(settings_of(claude), event)
    command = entry["command"]
    assert isinstance(command, str)
    return command


def test_installed_hook_commands_run_through_the_shell(claude: Path, tmp_path: Path) -> None:
    assert install(claude) == 0
    env = {"PATH": "/nonexistent", "HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(claude)}
    session = str(uuid.uuid4())
    payload = json.dumps({"session_id": session, "cwd": "/work/x", "hook_event_name": "Stop"})
    proc = subprocess.run(
        ["/bin/sh", "-c", _hook_command(claude, "Stop")],
        input=payload,
        text=True,
        env=env,
        capture_output=True,
        timeout=30,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert os.listdir(claude / "dream" / "sessions-seen" / "-work-x") == [session]
    assert list((claude / "skills" / "dream" / "hooks" / "__pycache__").glob("should-dream.*.pyc"))

    (claude / ".dream-pending").write_text(
        json.dumps({"version": 1, "created": 1.0, "projects": {"-k": {"cwd": "/k", "sessions": 5}}})
    )
    proc = subprocess.run(
        ["/bin/sh", "-c", _hook_command(claude, "SessionStart")],
        input='{"hook_event_name": "SessionStart", "source": "startup"}',
        text=True,
        env=env,
        capture_output=True,
        timeout=30,
    )
    assert proc.returncode == 0 and proc.stderr == ""
    assert json.loads(proc.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"


def test_stop_hook_command_never_exits_2_even_without_its_script(claude: Path) -> None:
    assert install(claude) == 0
    shutil.rmtree(claude / "skills" / "dream")  # removed by hand, settings.json left as it was
    proc = subprocess.run(
        ["/bin/sh", "-c", _hook_command(claude, "Stop")],
        input="{}",
        text=True,
        capture_output=True,
        timeout=30,
    )
    assert proc.returncode == 0


def test_paths_with_spaces_and_quotes(tmp_path: Path) -> None:
    claude = tmp_path / 'my "claude" $dir'
    assert install(claude) == 0
    payload = json.dumps({"session_id": str(uuid.uuid4()), "cwd": "/w", "hook_event_name": "Stop"})
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(claude)}
    proc = subprocess.run(
        ["/bin/sh", "-c", _hook_command(claude, "Stop")],
        input=payload,
        text=True,
        env=env,
        capture_output=True,
        timeout=30,
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    assert len(os.listdir(claude / "dream" / "sessions-seen" / "-w")) == 1


def test_explicit_python_option(claude: Path) -> None:
    assert install(claude, "--python", sys.executable) == 0
    assert _hook_command(claude, "Stop").startswith(f'"{os.path.realpath(sys.executable)}" -S ')
    assert install(claude, "--python", "/no/such/python") == 1


def test_claude_dir_defaults_to_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert installer.main([]) == 0
    assert (tmp_path / "claude" / "settings.json").exists()
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    assert installer.main([]) == 0
    assert (tmp_path / "home" / ".claude" / "settings.json").exists()


# ---------------------------------------------------------------------------------------------
# The plugin form


def test_plugin_manifest_and_hooks_declaration() -> None:
    manifest = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "dream"
    assert (REPO / manifest["skills"] / "dream" / "SKILL.md").is_file()
    declaration = json.loads((REPO / "hooks" / "hooks.json").read_text())
    assert set(declaration) <= {"description", "hooks"}
    hooks = declaration["hooks"]
    assert set(hooks) == {"Stop", "SessionStart"}
    for event, script in (("Stop", "should-dream"), ("SessionStart", "session-start")):
        (group,) = hooks[event]
        (entry,) = group["hooks"]
        assert entry["type"] == "command" and entry["timeout"] == 10
        assert f'"${{CLAUDE_PLUGIN_ROOT}}/hooks/{script}"' in entry["command"]
        assert " -S " in entry["command"]
        assert (REPO / "hooks" / script).is_file()


@pytest.mark.skipif(
    not CLAUDE_BIN.exists(), reason=f"the Claude Code client is not installed at {CLAUDE_BIN}"
)
def test_the_real_client_validates_the_plugin(tmp_path: Path) -> None:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path / "home"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "TMPDIR": str(tmp_path),
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    proc = subprocess.run(
        [str(CLAUDE_BIN), "plugin", "validate", str(REPO)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (
        "skills: dream" in proc.stdout
        and "Stop command" in proc.stdout
        and "SessionStart command" in proc.stdout
    )
