"""The agent pass (DESIGN.md §9) end to end with the real Claude Code client (2.1.332), offline.

The (mock) model is the agent: `decide()` below reads the packet dream planned and rewrites the
person's casual messages into standalone rules; the host (dream) checks every decision.

- `/dream` in `claude -p`: the skill makes the model run `<cli> plan --json`, then send its decisions
  with `<cli> apply --decisions - <<'DREAM_DECISIONS'`. The memory holds the rewritten rules, exactly;
  one invented decision in the same document is refused with a reason and is nowhere in memory.
- `dream run --consolidator claude` (unattended): dream itself asks the real client (`claude -p`, no
  tools, JSON output) with the packet on stdin; the answer is applied through the same checks. When the
  model answers garbage, every batch falls back and the memory is what the deterministic pass writes.

The evidence is typed into the interactive client through tmux (rules said in `claude -p` are a
program's, never evidence). `.ci/run` installs the client into `<repo>/.e2e`; without it, or without
tmux, these tests skip and say so.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from test_e2e_client import CLAUDE_BIN, E2E_MARKS, Client, _load_mock, _memory_text

from dream import trigger
from dream.paths import resolve_paths

pytestmark = E2E_MARKS

RUN_TIMEOUT = 300
# What the person typed, in a casual voice; and the standalone rules the agent makes of it.
PNPM_SAID = "ugh, again npm. this repo is pnpm only, dont use npm"
DATES_SAID = "tbh I'd rather you didn't use moment.js, we're on date-fns"
LINT_SAID = "oh and pls always run the linter before you commit"
PNPM_RULE = "Use pnpm, never npm."
DATES_RULE = "Use date-fns, not moment.js."
# The adversarial decision: an exact quote, but a text that invents a tool and a version.
INVENTED_RULE = "Always run kubectl 1.31 lint before you commit."
INVENTED_WORDS = ("kubectl", "1.31")
# The agent's decisions: (how to know the message, what was said, the rule, its category, the quote).
DECISIONS = [
    ("pnpm only", PNPM_SAID, PNPM_RULE, "correction", "this repo is pnpm only"),
    ("moment.js", DATES_SAID, DATES_RULE, "preference", "rather you didn't use moment.js"),
    ("linter", LINT_SAID, INVENTED_RULE, "pattern", "always run the linter before you commit"),
]


class Decider:
    """The mock model's judgement: `decide(packet)` returns the decisions for a packet's candidates."""

    def __init__(self, *, adversarial: bool) -> None:
        self.adversarial = adversarial
        self.chosen: dict[str, str] = {}  # what the person said -> the candidate id decided on

    def __call__(self, packet: dict[str, Any]) -> list[dict[str, Any]]:
        decisions = []
        for batch in packet.get("batches") or []:
            for candidate in batch.get("candidates") or []:
                decision = self._decide(candidate)
                if decision is not None:
                    decisions.append(decision)
        return decisions

    def _decide(self, candidate: dict[str, Any]) -> dict[str, Any] | None:
        text = str(candidate.get("text") or "")
        chosen = [row for row in DECISIONS if row[0] in text and (self.adversarial or row[1] != LINT_SAID)]
        if not chosen:
            return None
        _, said, rule, category, quote = chosen[0]
        self.chosen[said] = str(candidate["id"])
        return {
            "candidate": candidate["id"],
            "action": "add",
            "text": rule,
            "category": category,
            "quote": quote,
            "why": "a standing rule the person stated; rewritten to stand alone",
        }


def _typed_home(root: Path, api: Any, said: list[str]) -> tuple[Client, dict[str, Any], Path]:
    """A temporary world with dream installed, the last dream 25 hours back, and `said` typed by the
    person into the interactive client, one session each. Returns the client, the install manifest
    and the project's memory dir."""
    client = Client(root, api.base_url)
    client.make_repo()
    manifest = client.install()
    api.dream_command = manifest["skill_command"]
    paths = resolve_paths(client.claude)
    memory = paths.native_memory_dir(paths.memory_key_for_cwd(str(client.project)))
    trigger.write_last_dream(memory, time.time() - 25 * 3600)
    for text in said:
        assert "MOCK_OK" in client.interactive_session(text)
    typed = {
        entry["message"]["content"]: entry.get("promptSource")
        for path in (client.claude / "projects").rglob("*.jsonl")
        for line in path.read_text(encoding="utf-8").splitlines()
        for entry in [json.loads(line)]
        if entry.get("type") == "user" and isinstance(entry.get("message", {}).get("content"), str)
    }
    assert all(typed.get(text) == "typed" for text in said), typed
    return client, manifest, memory


def _dream(client: Client, *args: str, claude_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m dream --claude-dir <claude> ARGS` with the client's environment (the mock API)."""
    claude = claude_dir or client.claude
    return subprocess.run(
        [sys.executable, "-m", "dream", "--claude-dir", str(claude), *args],
        cwd=client.home,
        env={**client.env, "CLAUDE_CONFIG_DIR": str(claude)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )


def _use_the_client_as_consolidator(client: Client) -> None:
    config = resolve_paths(client.claude).config_file
    old = config.read_text(encoding="utf-8") if config.exists() else ""
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(old + f"DREAM_CLAUDE_BIN={CLAUDE_BIN}\n", encoding="utf-8")


def _report(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 0, f"dream failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    report = json.loads(proc.stdout)
    assert isinstance(report, dict), proc.stdout
    return report


def _proposals(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for target in report.get("targets") or [] for p in target.get("proposals") or []]


def _memory_files(memory: Path) -> dict[str, str]:
    return {
        str(p.relative_to(memory)): p.read_text(encoding="utf-8", errors="replace")
        for p in sorted(memory.rglob("*.md"))
    }


def _transcripts(client: Client) -> list[Path]:
    return sorted((client.claude / "projects").rglob("*.jsonl"))


def _consolidator_requests(api: Any) -> list[dict[str, Any]]:
    out = []
    for request in api.messages_requests():
        system = request.body.get("system")
        blocks = system if isinstance(system, list) else [{"text": system or ""}]
        if any("DREAM_CONSOLIDATOR v1" in str(b.get("text", "")) for b in blocks if isinstance(b, dict)):
            out.append(request.body)
    return out


def test_dream_skill_runs_the_agent_pass_and_the_host_refuses_what_was_invented(tmp_path: Path) -> None:
    mock = _load_mock()
    decide = Decider(adversarial=True)
    with mock.MockAnthropic(decide=decide) as api:
        client, manifest, memory = _typed_home(tmp_path, api, [PNPM_SAID, DATES_SAID, LINT_SAID])
        last_before = trigger.read_last_dream(memory)
        assert last_before is not None

        out = client.session("/dream")

        cli = manifest["skill_command"]
        assert not api.errors, api.errors
        commands = [r.command for r in api.bash_results]
        assert commands[:1] == [f"{cli} plan --json"], commands
        assert api.packets, "the model never saw a packet"
        packet = api.packets[-1]
        candidates = [c for b in packet["batches"] for c in b["candidates"]]
        assert set(decide.chosen) == {PNPM_SAID, DATES_SAID, LINT_SAID}, (
            f"not every typed message was a candidate: {json.dumps(candidates, indent=1)[:4000]}"
        )
        assert all(os.path.isabs(b["memory_dir"]) for b in packet["batches"])
        apply = f"{cli} apply --decisions - <<'DREAM_DECISIONS'\n"
        applied = [r for r in api.bash_results if r.command is not None and r.command.startswith(apply)]
        assert applied, f"the decisions were never sent: {commands}"
        document = json.loads(applied[-1].command.split("\n")[1])
        assert document["plan"] == packet["plan"] and len(document["decisions"]) == 3
        assert "DREAM DONE" in out

        # The host accepted the agent's rewrites, and says so ...
        report = applied[-1].output
        lines = report.splitlines()
        for said in (PNPM_SAID, DATES_SAID):
            ours = [line for line in lines if decide.chosen[said] in line and "by: agent" in line]
            assert ours, f"the decision on {said!r} is not shown as the agent's:\n{report}"
        # ... and refused the invented one, with a reason.
        lint = decide.chosen[LINT_SAID]
        refusals = [line for line in lines if "refused" in line.lower() and lint in line]
        assert refusals, f"no refusal of {lint} in the apply output:\n{report}"
        for noise in ("refused", lint, INVENTED_RULE, "by: host", "by: agent", "add"):
            refusals = [line.replace(noise, " ") for line in refusals]
        assert any(re.search(r"[A-Za-z]{4,}", line) for line in refusals), (
            f"a refusal without a reason: {refusals}"
        )

        # The memory holds the rewritten rules exactly; the invented words are nowhere in it.
        text = _memory_text(memory)
        assert PNPM_RULE in text and DATES_RULE in text, f"memory after /dream:\n{text}"
        for word in INVENTED_WORDS:
            assert word not in text, f"{word!r} reached memory:\n{text}"
        last_after = trigger.read_last_dream(memory)
        assert last_after is not None and last_after > last_before + 24 * 3600


def test_unattended_run_asks_the_real_client_as_consolidator(tmp_path: Path) -> None:
    mock = _load_mock()
    decide = Decider(adversarial=False)
    with mock.MockAnthropic(decide=decide) as api:
        client, _, memory = _typed_home(tmp_path, api, [PNPM_SAID, DATES_SAID])
        _use_the_client_as_consolidator(client)
        transcripts = _transcripts(client)

        report = _report(_dream(client, "run", "--consolidator", "claude", "--json"))

        assert not api.errors, api.errors
        asked = _consolidator_requests(api)
        assert asked, "dream never asked the client"
        # No tools for the consolidator, and its session left no transcript (it is no evidence).
        assert all(not body.get("tools") for body in asked), [t.get("name") for t in asked[0]["tools"]]
        assert _transcripts(client) == transcripts
        assert set(decide.chosen) == {PNPM_SAID, DATES_SAID}, json.dumps(api.packets, indent=1)[:4000]
        model = report.get("model")
        assert isinstance(model, dict), report
        assert model.get("consolidator") == "claude"
        assert model.get("calls", 0) >= 1 and model.get("fallbacks") == 0, model
        rows = report.get("decisions") or []
        accepted = {r["candidate"] for r in rows if r.get("accepted") and r.get("by") == "agent"}
        assert accepted == set(decide.chosen.values()), rows
        by_text = {p.get("text"): p for p in _proposals(report)}
        for rule in (PNPM_RULE, DATES_RULE):
            assert rule in by_text and by_text[rule].get("by") == "agent", _proposals(report)
        text = _memory_text(memory)
        assert PNPM_RULE in text and DATES_RULE in text, f"memory after the run:\n{text}"


def test_unattended_run_falls_back_to_the_deterministic_pass_on_garbage(tmp_path: Path) -> None:
    mock = _load_mock()
    with mock.MockAnthropic(decide=Decider(adversarial=False)) as api:
        api.consolidator_answer = lambda packet: "Sure! Here is what I would keep: the pnpm thing, probably."
        client, _, memory = _typed_home(tmp_path, api, [PNPM_SAID, DATES_SAID])
        # The same home, copied before either run: the deterministic pass's answer to compare with.
        twin = tmp_path / "twin-claude"
        shutil.copytree(client.claude, twin, symlinks=True)
        _use_the_client_as_consolidator(client)

        report = _report(_dream(client, "run", "--consolidator", "claude", "--json"))

        assert not api.errors, api.errors
        assert _consolidator_requests(api), "dream never asked the client"
        model = report.get("model")
        assert isinstance(model, dict), report
        assert model.get("calls", 0) >= 1 and model.get("fallbacks", 0) >= 1, model
        assert not [p for p in _proposals(report) if p.get("by") == "agent"], _proposals(report)
        assert not [r for r in report.get("decisions") or [] if r.get("accepted")], report.get("decisions")

        help_text = _dream(client, "run", "--help").stdout
        deterministic = ["--deterministic"] if "--deterministic" in help_text else []
        _report(_dream(client, "run", *deterministic, "--json", claude_dir=twin))
        twin_paths = resolve_paths(twin)
        twin_memory = twin_paths.native_memory_dir(twin_paths.memory_key_for_cwd(str(client.project)))
        ours, theirs = _memory_files(memory), _memory_files(twin_memory)
        assert ours, "the fallback wrote no memory"
        assert ours == theirs
