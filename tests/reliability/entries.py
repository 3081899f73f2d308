"""Transcript entries other than the user's words, built from lines the real client wrote."""

from __future__ import annotations

import copy
import json
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import homefactory as hf

from reliability.running import Home

# ---------------------------------------------------------------------------------------------
# Transcript entries other than the user's words (built from lines the real client wrote)


def _stamp(template: dict[str, Any], session_id: str, cwd: str, at: datetime) -> dict[str, Any]:
    obj = copy.deepcopy(template)
    obj.update(uuid=str(uuid.uuid4()), timestamp=hf.iso(at))
    if "sessionId" in obj:
        obj["sessionId"] = session_id
    if "cwd" in obj:
        obj["cwd"] = cwd
    return obj


def tool_exchange(
    session_id: str,
    cwd: str,
    at: datetime,
    tool: str,
    tool_input: dict[str, Any],
    output: str,
    result: dict[str, Any],
) -> list[dict[str, Any]]:
    """An assistant tool_use of `tool` and the tool_result the client records for it."""
    use = _stamp(hf.ASSISTANT_TOOL, session_id, cwd, at)
    tool_id = "toolu_" + uuid.uuid4().hex[:24]
    use["message"] = {
        **use["message"],
        "content": [{"type": "tool_use", "id": tool_id, "name": tool, "input": tool_input}],
    }
    res = _stamp(hf.TOOL_RESULT, session_id, cwd, at + timedelta(seconds=1))
    res["message"] = {
        "role": "user",
        "content": [{"tool_use_id": tool_id, "type": "tool_result", "content": output, "is_error": False}],
    }
    res["toolUseResult"] = result
    return [use, res]


def bash_result(session_id: str, cwd: str, at: datetime, output: str) -> list[dict[str, Any]]:
    return tool_exchange(
        session_id,
        cwd,
        at,
        "Bash",
        {"command": "cat notes.txt", "description": "Show notes"},
        output,
        {"stdout": output, "stderr": "", "interrupted": False, "isImage": False},
    )


def webfetch_result(session_id: str, cwd: str, at: datetime, url: str, page: str) -> list[dict[str, Any]]:
    return tool_exchange(
        session_id,
        cwd,
        at,
        "WebFetch",
        {"url": url, "prompt": "Summarise the setup steps"},
        page,
        {"bytes": len(page), "code": 200, "codeText": "OK", "result": page, "durationMs": 412, "url": url},
    )


def assistant_text(session_id: str, cwd: str, at: datetime, text: str) -> dict[str, Any]:
    reply = _stamp(hf.ASSISTANT_TEXT, session_id, cwd, at)
    reply["message"] = {**reply["message"], "content": [{"type": "text", "text": text}]}
    return reply


def user_entry(session_id: str, cwd: str, at: datetime, content: Any, **flags: Any) -> dict[str, Any]:
    entry = _stamp(hf.USER, session_id, cwd, at)
    entry["message"] = {"role": "user", "content": content}
    entry.update(flags)
    return entry


def compact_summary(session_id: str, cwd: str, at: datetime, text: str) -> dict[str, Any]:
    body = (
        "This session is being continued from a previous conversation that ran out of context. "
        "The conversation is summarized below:\n" + text
    )
    return user_entry(session_id, cwd, at, body, isCompactSummary=True, isVisibleInTranscriptOnly=True)


def write_subagent(home: Home, parent_session: str, at: datetime, prompt: str, reply: str) -> Path:
    """A subagent transcript where Claude Code 2.x keeps it: `<slug>/<session>/subagents/agent-*.jsonl`."""
    agent = "a" + uuid.uuid4().hex[:16]
    folder = home.project_dir / parent_session / "subagents"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"agent-{agent}.jsonl"
    lines = [
        user_entry(parent_session, str(home.cwd), at, prompt, isSidechain=True, agentId=agent),
        {
            **assistant_text(parent_session, str(home.cwd), at + timedelta(seconds=2), reply),
            "isSidechain": True,
        },
    ]
    path.write_text("".join(json.dumps(o) + "\n" for o in lines), encoding="utf-8")
    return path
