"""Build Claude homes in the real 2.1.328 transcript format, from lines the real client wrote.

Every line is a copy of a line in tests/fixtures/claude-code-2.1.328 with only ids, timestamps,
cwd and text changed, so the reader is tested on what the client writes: most bytes are
attachments, request blobs and tool results, with the user's words a few percent.

The fixture was recorded in print mode (`claude -p`), which marks every line as the Agent SDK's
(`"entrypoint":"sdk-cli"`, `"promptSource":"sdk"`): such a session is a program's and never
evidence. A person's session is written as the interactive client writes it: `"entrypoint":"cli"`
on every line and, on the person's lines, `"promptSource":"typed"` and `"origin":{"kind":"human"}`
(style "typed"), or neither of those, as clients before the author fields did (style "legacy").
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"
REAL = (
    FIXTURES
    / "claude-code-2.1.328"
    / "projects"
    / "-home-dev-proj"
    / "5284d1e4-ba28-4c97-aa54-4ba2201bc2e8.jsonl"
)


def interactive(obj: dict[str, Any]) -> dict[str, Any]:
    """A recorded print-mode line as the interactive client writes it (see the module's doc)."""
    obj = copy.deepcopy(obj)
    if "entrypoint" in obj:
        obj["entrypoint"] = "cli"
    if obj.get("querySource") == "sdk":
        obj["querySource"] = "repl_main_thread"
    obj.pop("turnOrigin", None)
    if obj.pop("promptSource", None) is not None:
        obj["origin"] = {"kind": "human"}
        obj["promptSource"] = "typed"
    return obj


def _templates() -> list[dict[str, Any]]:
    return [interactive(json.loads(line)) for line in REAL.read_text(encoding="utf-8").splitlines()]


_T = _templates()
USER = _T[2]
ATTACHMENTS = [_T[i] for i in (3, 4, 5, 9, 10, 12)]
SHAPE = _T[13]
BLOB = _T[15]
API_REQUEST = _T[16]
ASSISTANT_TOOL = _T[27]
TOOL_RESULT = _T[28]
SKILL_META = _T[20]
ASSISTANT_TEXT = _T[36] if _T[36].get("type") == "assistant" else _T[30]
QUEUE = _T[0]
LAST_PROMPT = _T[23]


def slug(path: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in path)


def iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Turn:
    """One user message and what the client records around it."""

    text: str
    at: datetime
    tool_output: str | None = None  # a tool result the assistant's command returned
    assistant_text: str = "Done."
    skill_body: str | None = None  # a skill expansion (isMeta) after the message
    uuid: str = field(default_factory=lambda: str(uuid.uuid4()))


STYLES = ("typed", "legacy", "sdk")


def _stamp(
    obj: dict[str, Any], session_id: str, cwd: str, at: datetime, style: str = "typed"
) -> dict[str, Any]:
    obj = copy.deepcopy(obj)
    if style == "legacy":
        obj.pop("origin", None)
        obj.pop("promptSource", None)
    elif style == "sdk":  # as recorded: print mode, the Agent SDK's marks on every line
        if "entrypoint" in obj:
            obj["entrypoint"] = "sdk-cli"
        if obj.pop("origin", None) is not None:
            obj["promptSource"] = "sdk"
        if obj.get("querySource") == "repl_main_thread":
            obj["querySource"] = "sdk"
    if "sessionId" in obj:
        obj["sessionId"] = session_id
    if "cwd" in obj:
        obj["cwd"] = cwd
    if "timestamp" in obj:
        obj["timestamp"] = iso(at)
    if "uuid" in obj:
        obj["uuid"] = str(uuid.uuid4())
    return obj


def session_lines(
    session_id: str, cwd: str, turns: list[Turn], noise: int = 1, style: str = "typed"
) -> list[str]:
    """JSONL lines of one session; `noise` scales the non-user bytes (attachments, blobs);
    `style` is the client's way of marking the author (see STYLES)."""
    assert style in STYLES, style
    out: list[dict[str, Any]] = []

    def stamp(obj: dict[str, Any], session_id: str, cwd: str, at: datetime) -> dict[str, Any]:
        return _stamp(obj, session_id, cwd, at, style)

    for turn in turns:
        queue = stamp(QUEUE, session_id, cwd, turn.at)
        queue["content"] = turn.text
        out.append(queue)
        user = stamp(USER, session_id, cwd, turn.at)
        user["uuid"] = turn.uuid
        user["message"] = {"role": "user", "content": turn.text}
        out.append(user)
        for _ in range(noise):
            out.extend(stamp(a, session_id, cwd, turn.at) for a in ATTACHMENTS)
            out.append(stamp(SHAPE, session_id, cwd, turn.at))
            blob = stamp(BLOB, session_id, cwd, turn.at)
            # The request blob repeats the user's words inside a message with role user.
            blob["message"] = {"role": "user", "content": [{"type": "text", "text": turn.text}]}
            out.append(blob)
            out.append(stamp(API_REQUEST, session_id, cwd, turn.at))
        if turn.skill_body is not None:
            meta = stamp(SKILL_META, session_id, cwd, turn.at + timedelta(milliseconds=5))
            meta["message"] = {"role": "user", "content": [{"type": "text", "text": turn.skill_body}]}
            out.append(meta)
        if turn.tool_output is not None:
            tool = stamp(ASSISTANT_TOOL, session_id, cwd, turn.at + timedelta(seconds=1))
            out.append(tool)
            result = stamp(TOOL_RESULT, session_id, cwd, turn.at + timedelta(seconds=2))
            tool_use_id = tool["message"]["content"][0]["id"]
            result["message"] = {
                "role": "user",
                "content": [
                    {
                        "tool_use_id": tool_use_id,
                        "type": "tool_result",
                        "content": turn.tool_output,
                        "is_error": False,
                    }
                ],
            }
            result["toolUseResult"] = {"stdout": turn.tool_output, "stderr": "", "interrupted": False}
            out.append(result)
        reply = stamp(ASSISTANT_TEXT, session_id, cwd, turn.at + timedelta(seconds=3))
        reply["message"] = {**reply["message"], "content": [{"type": "text", "text": turn.assistant_text}]}
        out.append(reply)
        last = stamp(LAST_PROMPT, session_id, cwd, turn.at)
        last["lastPrompt"] = turn.text
        out.append(last)
    return [json.dumps(o, ensure_ascii=False, separators=(",", ":")) for o in out]


def write_session(
    claude_dir: Path,
    cwd: str,
    turns: list[Turn],
    session_id: str | None = None,
    noise: int = 1,
    style: str = "typed",
) -> Path:
    session_id = session_id or str(uuid.uuid4())
    folder = claude_dir / "projects" / slug(cwd)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session_id}.jsonl"
    lines = session_lines(session_id, cwd, turns, noise, style)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


class MemoryHome:
    """A Claude home (the test's `CLAUDE_CONFIG_DIR`) with one project and its native memory dir."""

    def __init__(self, root: Path) -> None:
        self.claude = Path(os.environ["CLAUDE_CONFIG_DIR"])
        self.cwd = str(root / "src" / "app")
        Path(self.cwd).mkdir(parents=True, exist_ok=True)
        self.key = slug(self.cwd)
        self.memory = self.claude / "projects" / self.key / "memory"
        self.memory.mkdir(parents=True, exist_ok=True)

    def write(self, name: str, text: str | bytes) -> Path:
        """A memory file, bytes exactly as given (text as UTF-8, its newlines untouched)."""
        path = self.memory / name
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
        return path

    def session(self, turns: list[Turn], session_id: str | None = None) -> str:
        return write_session(self.claude, self.cwd, turns, session_id=session_id).stem

    def say(self, *turns: str | Turn, days_ago: float = 2) -> str:
        """One session of these messages, a minute apart from `days_ago` days back; its id."""
        start = now() - timedelta(days=days_ago)
        built = [
            t if isinstance(t, Turn) else Turn(t, start + timedelta(minutes=i)) for i, t in enumerate(turns)
        ]
        return self.session(built)

    def dream(self, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "dream", "--claude-dir", str(self.claude), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def loaded(self) -> Any:
        from dream.layouts import memory_paths
        from dream.memory import load_memory

        return load_memory(memory_paths(self.memory, "native"), "native")


def make_signal(
    text: str,
    category: str,
    at: datetime,
    *,
    sid: str = "5e55a1d0-0000-4000-8000-000000000000",
    confidence: float = 0.95,
    durability: float = 0.95,
    change_risk: float = 0.1,
    sensitivity: float = 0.05,
    redactions: tuple[str, ...] = (),
    unsafe: tuple[str, ...] = (),
    uuid_of: str | None = None,
) -> Any:
    """A Signal of project "-p" as the extractor would make it; its uuid derives from `uuid_of`
    (default: the text) and the time."""
    import hashlib

    from dream.signals import Signal

    return Signal(
        project="-p",
        session_id=sid,
        uuid=hashlib.sha1(f"{uuid_of or text}{at}".encode()).hexdigest()[:8] + "-0000-4000-8000-000000000000",
        timestamp=at.isoformat().replace("+00:00", "Z"),
        category=category,
        text=text,
        confidence=confidence,
        durability=durability,
        change_risk=change_risk,
        sensitivity=sensitivity,
        categories=(category,),
        redactions=redactions,
        unsafe=unsafe,
    )


def write_lone_surrogate_session(claude_dir: Path, cwd: str, at: datetime) -> Turn:
    """Session `s-1` whose message was cut inside an emoji: the client's JSON.stringify writes that as a
    lone surrogate escape ("\\ud83c"), valid JSON whose decoded text UTF-8 cannot encode."""
    turn = Turn("From now on always use pnpm in this repo \U0001f389", at)
    lines = [json.dumps(json.loads(line)) for line in session_lines("s-1", cwd, [turn])]
    lines = [line.replace("\\ud83c\\udf89", "\\ud83c") for line in lines]
    assert any("\\ud83c" in line for line in lines)
    folder = claude_dir / "projects" / slug(cwd)
    folder.mkdir(parents=True)
    (folder / "s-1.jsonl").write_text("\n".join(lines) + "\n", encoding="ascii")
    return turn


def build_eval_home(project: dict[str, Any], root: Path, now: datetime) -> tuple[Path, Path]:
    """A memory-evaluation project (`tests/data/memory-eval/`) as a Claude home: its sessions as
    transcripts, its existing memory as topic files."""
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


def dream_cli(home: Path, *args: str, workers: int = 1) -> subprocess.CompletedProcess[str]:
    """`python -m dream ARGS` as a person runs it, in a real process, with `home` as HOME and its
    `.claude` as the Claude dir."""
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "HOME")}
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"), DREAM_WORKERS=str(workers))
    return subprocess.run(
        [sys.executable, "-m", "dream", *args],
        cwd=Path(__file__).resolve().parent.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
