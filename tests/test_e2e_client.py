"""End to end with the real Claude Code client (2.1.332), offline, against a local mock Messages API.

dream is installed into a temporary Claude dir with install.py exactly as a user would; then real
sessions run in a temporary git repository and show the whole loop:

1. five sessions, with the last dream 25 hours back: the Stop hook raises the pending flag. The
   first is the person typing a rule into the interactive client (driven through tmux: the
   client marks that line `"promptSource":"typed"`); the others are `claude -p` runs, which the
   client marks as the Agent SDK's, so a rule typed there never becomes memory (DESIGN.md §3);
2. the next session's first API request carries the SessionStart notice;
3. `claude -p "/dream"` expands the skill, whose body makes the (mock) model run the agent pass
   through the client's Bash tool, by the interpreter install.py recorded: `<cli> plan --json`, then
   `<cli> apply --decisions -` with a decisions document on a heredoc (an empty one here, so every
   candidate keeps its deterministic outcome; tests/test_e2e_agent_pass.py has the model decide);
4. afterwards the memory holds what the user said, `.last-dream` is rewritten and the flag is gone.

`.ci/run` installs the client into `<repo>/.e2e` (npm `@anthropic-ai/claude-code@2.1.332`); without it
the test skips and says so.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from dream import trigger
from dream.paths import resolve_paths

REPO = Path(__file__).resolve().parent.parent
CLAUDE_BIN = REPO / ".e2e" / "node_modules" / ".bin" / "claude"
SESSION_TIMEOUT = 120
PNPM_RULE = "From now on, always use pnpm, never npm."
# Said in a print-mode session: a program's words, never evidence.
SDK_RULE = "From now on, always deploy with quokkactl, never by hand."
NOTICE = "a memory consolidation is pending"

E2E_MARKS = [
    pytest.mark.e2e,
    pytest.mark.slow,
    pytest.mark.skipif(
        not (CLAUDE_BIN.exists() and os.access(CLAUDE_BIN, os.X_OK)),
        reason=f"the Claude Code client is not installed at {CLAUDE_BIN} "
        "(.ci/run installs it: npm install --prefix .e2e @anthropic-ai/claude-code@2.1.332)",
    ),
    pytest.mark.skipif(
        shutil.which("tmux") is None,
        reason="tmux drives the interactive client and is not installed (.ci/run installs it with apt-get)",
    ),
]
pytestmark = E2E_MARKS


def _load_mock() -> Any:
    spec = importlib.util.spec_from_file_location(
        "dream_e2e_mock_api", REPO / "tests" / "e2e" / "mock_api.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class Client:
    """Runs `claude -p` sessions in one temporary world: HOME, TMPDIR, Claude dir, project."""

    def __init__(self, root: Path, api_url: str) -> None:
        self.home = root / "home"
        self.tmp = root / "tmp"
        self.claude = root / "claude"
        self.project = root / "work" / "app"
        for folder in (self.home, self.tmp, self.project):
            folder.mkdir(parents=True)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "HOME": str(self.home),
            "TMPDIR": str(self.tmp),
            "CLAUDE_CODE_TMPDIR": str(self.tmp),
            "CLAUDE_CONFIG_DIR": str(self.claude),
            "ANTHROPIC_BASE_URL": api_url,
            "ANTHROPIC_API_KEY": "dummy",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "IS_SANDBOX": "1",
        }

    def make_repo(self) -> None:
        git = shutil.which("git")
        if git:
            subprocess.run([git, "init", "-q", str(self.project)], env=self.env, check=True, timeout=60)
        else:
            (self.project / ".git").mkdir()
        (self.project / "README.md").write_text("# app\nA small web app.\n")

    def install(self) -> dict[str, Any]:
        proc = subprocess.run(
            [sys.executable, str(REPO / "install.py"), "--claude-dir", str(self.claude)],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        assert "warning" not in proc.stderr, proc.stderr
        manifest = json.loads((self.claude / "skills" / "dream" / ".install.json").read_text())
        assert isinstance(manifest, dict)
        return manifest

    def interactive_session(self, prompt: str) -> str:
        """The person types `prompt` into the interactive client (in tmux), reads the reply, exits."""
        # The client's own state: first-run screens done, this folder trusted, the API key accepted.
        path = self.claude / ".claude.json"
        state = json.loads(path.read_text()) if path.exists() else {}
        state.update({"hasCompletedOnboarding": True, "theme": "dark"})
        state.setdefault("projects", {})[str(self.project)] = {
            "hasTrustDialogAccepted": True,
            "hasCompletedProjectOnboarding": True,
        }
        state["customApiKeyResponses"] = {"approved": ["dummy"], "rejected": []}
        path.write_text(json.dumps(state))
        socket = str(self.tmp / "tmux.sock")
        tmux = shutil.which("tmux")
        assert tmux is not None
        env = {**self.env, "TERM": "xterm-256color"}
        command = " ".join(
            ["cd", shlex.quote(str(self.project)), "&&", "exec", "env", "-i"]
            + [shlex.quote(f"{k}={v}") for k, v in env.items()]
            + [shlex.quote(str(CLAUDE_BIN))]
        )
        subprocess.run(
            [tmux, "-S", socket, "new-session", "-d", "-x", "160", "-y", "50", command], check=True
        )

        def screen() -> str:
            out = subprocess.run(
                [tmux, "-S", socket, "capture-pane", "-p"], capture_output=True, text=True, check=False
            )
            return out.stdout

        def wait_for(what: str) -> str:
            deadline = time.monotonic() + SESSION_TIMEOUT
            while time.monotonic() < deadline:
                shown = screen()
                if what in shown:
                    return shown
                time.sleep(0.25)
            raise AssertionError(f"the interactive client never showed {what!r}:\n{screen()}")

        try:
            wait_for("❯")
            subprocess.run([tmux, "-S", socket, "send-keys", "-l", prompt], check=True)
            time.sleep(0.5)
            subprocess.run([tmux, "-S", socket, "send-keys", "Enter"], check=True)
            shown = wait_for("MOCK_OK")
            subprocess.run([tmux, "-S", socket, "send-keys", "-l", "/exit"], check=True)
            time.sleep(0.5)
            subprocess.run([tmux, "-S", socket, "send-keys", "Enter"], check=True)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                alive = subprocess.run([tmux, "-S", socket, "has-session"], capture_output=True, check=False)
                if alive.returncode != 0:
                    break
                time.sleep(0.25)
            return shown
        finally:
            subprocess.run([tmux, "-S", socket, "kill-server"], capture_output=True, check=False)

    def session(self, prompt: str) -> str:
        proc = subprocess.run(
            [str(CLAUDE_BIN), "-p", prompt, "--dangerously-skip-permissions"],
            cwd=self.project,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=SESSION_TIMEOUT,
            check=False,
        )
        assert proc.returncode == 0, f"claude -p {prompt!r} failed:\n{proc.stdout}\n{proc.stderr}"
        return proc.stdout


def _texts(body: dict[str, Any]) -> list[str]:
    """Every text the client put in a Messages request, system prompt included."""
    out: list[str] = []
    system = body.get("system")
    if isinstance(system, str):
        out.append(system)
    elif isinstance(system, list):
        out.extend(str(b.get("text", "")) for b in system if isinstance(b, dict))
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            out.append(content)
            continue
        for block in content or []:
            if block.get("type") == "text":
                out.append(str(block.get("text", "")))
            elif block.get("type") == "tool_result":
                inner = block.get("content")
                out.append(inner if isinstance(inner, str) else json.dumps(inner))
            elif block.get("type") == "tool_use":
                out.append(json.dumps(block.get("input")))
    return out


def _first_request_of(requests: list[Any], prompt: str) -> dict[str, Any]:
    for request in requests:
        if any(prompt in text for text in _texts(request.body)):
            body = request.body
            assert isinstance(body, dict)
            return body
    raise AssertionError(f"no Messages request carried the prompt {prompt!r}")


def _memory_text(memory: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(memory.rglob("*.md")))


def test_real_client_hooks_notice_skill_and_dream(tmp_path: Path) -> None:
    mock = _load_mock()
    with mock.MockAnthropic() as api:
        client = Client(tmp_path, api.base_url)
        client.make_repo()
        manifest = client.install()
        api.dream_command = manifest["skill_command"]
        python = manifest["python"]
        assert os.path.isabs(python) and "shims" not in python
        for command in manifest["hook_commands"].values():
            assert command.startswith(f'"{manifest["hook_python"]}" -S "{client.claude}')

        paths = resolve_paths(client.claude)
        key = paths.memory_key_for_cwd(str(client.project))
        memory = paths.native_memory_dir(key)
        last_before = time.time() - 25 * 3600
        trigger.write_last_dream(memory, last_before)

        # 1. Five sessions; the Stop hook counts each once and raises the flag on the fifth. The
        # first is the person at the interactive client; the rest are print-mode runs.
        prompts = [
            PNPM_RULE,
            SDK_RULE,
            "Thanks, that is all for now.",
            "Give me a one-line summary of this repository.",
            "Are there any tests here?",
        ]
        for n, prompt in enumerate(prompts, start=1):
            out = client.interactive_session(prompt) if n == 1 else client.session(prompt)
            assert "MOCK_OK" in out
            assert len(trigger.sessions_seen(paths, key)) == n
            assert paths.pending_flag.exists() == (n == 5), f"after session {n}"
            first = _first_request_of(api.messages_requests(), prompt)
            assert not any(NOTICE in t for t in _texts(first)), "notice before any dream was due"
        pending = trigger.read_pending(paths)
        assert list(pending) == [key]
        assert pending[key].sessions == 5 and pending[key].memory_dir == str(memory)
        assert PNPM_RULE not in _memory_text(memory)

        # 2. The next session's first API request carries the SessionStart notice.
        prompt = "Which package manager does this project use?"
        client.session(prompt)
        first = _first_request_of(api.messages_requests(), prompt)
        notice = [t for t in _texts(first) if NOTICE in t]
        assert notice, "the SessionStart notice did not reach the first request"
        assert str(client.project) in notice[0] and "dream skill" in notice[0]

        # 3. /dream: the client expands the skill and runs the agent pass through its Bash tool.
        seen_before = len(api.messages_requests())
        out = client.session("/dream")
        requests = api.messages_requests()[seen_before:]
        skill_requests = [r for r in requests if any("DREAM_CLI:" in t for t in _texts(r.body))]
        assert skill_requests, "the /dream skill body never reached the API"
        assert any(f"DREAM_CLI: `{manifest['skill_command']}`" in t for t in _texts(skill_requests[0].body))
        bash_calls = [
            block
            for r in requests
            for m in r.body.get("messages") or []
            if isinstance(m.get("content"), list)
            for block in m["content"]
            if block.get("type") == "tool_use" and block.get("name") == "Bash"
        ]
        commands = [block["input"]["command"] for block in bash_calls]
        cli = manifest["skill_command"]
        assert commands and commands[0] == f"{cli} plan --json", commands
        assert not api.errors, api.errors
        assert commands[-1].startswith(f"{cli} apply --decisions - <<'DREAM_DECISIONS'\n"), commands
        assert api.packets and api.documents[-1]["plan"] == api.packets[-1]["plan"]
        applied = [r.output for r in api.bash_results if r.command == commands[-1]]
        assert applied and applied[-1].strip(), f"no output of `dream apply` came back from Bash:\n{out}"
        assert "DREAM DONE" in out

        # 4. The dream ran: .last-dream rewritten, the flag gone, the memory holds the rule.
        last_after = trigger.read_last_dream(memory)
        assert last_after is not None and last_after > last_before + 24 * 3600
        assert not paths.pending_flag.exists()
        assert trigger.read_pending(paths) == {}
        assert "pnpm" in _memory_text(memory), f"memory after the dream:\n{_memory_text(memory)}"
        # The rule typed into a print-mode session is a program's: it is nowhere in memory.
        assert "quokkactl" not in _memory_text(memory)
        said = {
            entry["message"]["content"]: entry
            for path in (client.claude / "projects").rglob("*.jsonl")
            for line in path.read_text(encoding="utf-8").splitlines()
            for entry in [json.loads(line)]
            if entry.get("type") == "user" and isinstance(entry.get("message", {}).get("content"), str)
        }
        assert said[PNPM_RULE]["promptSource"] == "typed" and said[PNPM_RULE]["entrypoint"] == "cli"
        assert said[SDK_RULE]["promptSource"] == "sdk" and said[SDK_RULE]["entrypoint"] == "sdk-cli"
