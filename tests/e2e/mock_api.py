"""A small stand-in for the Anthropic Messages API, enough to drive the real Claude Code client offline.

`POST /v1/messages` (the client sends `?beta=true`) gets a streamed (SSE) reply, or a JSON one when the
request does not ask for a stream:

- the system prompt holds `DREAM_CONSOLIDATOR v1` (dream's unattended `run --consolidator claude` asking
  `claude -p`): one text block, the decisions document `{"version": 1, "plan": …, "decisions": …}` that
  `decide(packet)` gives for the packet in the last user message (or `consolidator_answer(packet)`, when
  set, verbatim: a test's garbage);
- the request carries the dream skill's expanded body (its `DREAM_CLI:` line): a `tool_use` for Bash
  that runs that exact command with the skill's arguments; with none (or `auto`) the agent pass:
  `<cli> plan --json` first;
- the last user text asks to dream: the same `tool_use` (`<command> plan --json`), with the command the
  server was given;
- the last user turn holds the result of `<cli> plan --json`: a `tool_use` for Bash that sends the
  decisions for that packet, `<cli> apply --decisions - <<'DREAM_DECISIONS'` + the JSON document;
- the last user turn holds the result of any other Bash call: a short text reply quoting it
  (`DREAM DONE: …` after a dream command);
- anything else: a short text reply.

`decide(packet) -> list[decision]` is the model's judgement, supplied by the test (none: no decisions,
so every candidate keeps the deterministic outcome). The client puts a `system` role message (its
environment) after the user's; the "last turn" skips it.

Every other endpoint gets a harmless empty answer (`count_tokens` a token count). Every request is
kept in `requests` (and appended to a JSONL log when one is given), every packet seen in `packets`,
every decisions document sent in `documents`, every Bash result in `bash_results`, so a test can see
what the client sent. Standard library only; runs in a thread of the test, or alone:
`python mock_api.py --port 8080`.
"""

from __future__ import annotations

import argparse
import json
import re
import threading
import traceback
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

TEXT_REPLY = "MOCK_OK: noted."
SKILL_CLI = re.compile(r"DREAM_CLI: `([^`\n]+)`")
SKILL_ARGS = re.compile(r"^Arguments: `([^`\n]*)`", re.MULTILINE)
CONSOLIDATOR_MARK = "DREAM_CONSOLIDATOR v1"
PLAN_ARGS = "plan --json"
APPLY_ARGS = "apply --decisions -"
HEREDOC = "DREAM_DECISIONS"
Decide = Callable[[dict[str, Any]], list[dict[str, Any]]]
ASKS_TO_DREAM = re.compile(
    r"\b(please\s+dream|dream\s+now|run\s+(the\s+)?dream|consolidate\s+(my\s+)?memory)\b", re.I
)


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class BashResult:
    command: str | None  # the command of the tool_use it answers, when the request still shows it
    output: str


@dataclass
class MockAnthropic:
    """`with MockAnthropic(dream_command=..., decide=...) as api:` serves on 127.0.0.1:`api.port`."""

    dream_command: str | None = None
    log_path: Path | None = None
    decide: Decide | None = None
    consolidator_answer: Callable[[dict[str, Any] | None], str] | None = None
    requests: list[Recorded] = field(default_factory=list)
    packets: list[dict[str, Any]] = field(default_factory=list)
    documents: list[dict[str, Any]] = field(default_factory=list)
    bash_results: list[BashResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, port: int = 0) -> MockAnthropic:
        api = self

        class Handler(_Handler):
            mock = api

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="mock-anthropic", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> MockAnthropic:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def record(self, item: Recorded) -> None:
        with self._lock:
            self.requests.append(item)
            if self.log_path is not None:
                with open(self.log_path, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(item.__dict__, ensure_ascii=False) + "\n")

    def messages_requests(self) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.method == "POST" and r.path.split("?")[0] == "/v1/messages"]

    # -----------------------------------------------------------------------------------------

    def reply_for(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The content blocks of the assistant's reply to one Messages request."""
        try:
            return self._reply_for(body)
        except Exception as exc:  # a test's decide() failing: say so rather than drop the connection
            self._error(f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")
            return [{"type": "text", "text": f"MOCK_ERROR: {type(exc).__name__}: {exc}"}]

    def _reply_for(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        if CONSOLIDATOR_MARK in _system_text(body):
            return [{"type": "text", "text": self._consolidator_text(body)}]
        turns = [m for m in body.get("messages") or [] if m.get("role") != "system"]
        last = turns[-1] if turns else {}
        results = [b for b in _blocks(last) if b.get("type") == "tool_result"]
        if last.get("role") == "user" and results:
            text = _result_text(results[-1])
            command = _command_answered(turns, results[-1].get("tool_use_id"))
            self._note(BashResult(command, text))
            if command is not None and _is_plan(command):
                return [self._apply_call(command, text)]
            dreamed = command is not None and self._is_dream_command(turns, command)
            return [
                {
                    "type": "text",
                    "text": f"DREAM DONE: {text[:400]}" if dreamed or "dream" in text.lower() else TEXT_REPLY,
                }
            ]
        command = self._skill_command(turns) or self._asked_command(last)
        if command:
            return [_bash_call(command, "Run the dream memory consolidation")]
        return [{"type": "text", "text": TEXT_REPLY}]

    def decisions_for(self, packet: dict[str, Any]) -> dict[str, Any]:
        """The decisions document for a packet: `decide(packet)` under the packet's plan id."""
        decisions = list(self.decide(packet)) if self.decide is not None else []
        document = {"version": 1, "plan": packet.get("plan"), "decisions": decisions}
        with self._lock:
            self.packets.append(packet)
            self.documents.append(document)
        return document

    def _apply_call(self, plan_command: str, output: str) -> dict[str, Any]:
        cli = plan_command.strip()[: -len(PLAN_ARGS)].rstrip()
        packet = _packet_in(output)
        if packet is None:
            self._error(f"the output of {plan_command!r} holds no packet: {output[:400]!r}")
            return {"type": "text", "text": f"MOCK_ERROR: no packet in the plan output: {output[:400]}"}
        document = json.dumps(self.decisions_for(packet))
        command = f"{cli} {APPLY_ARGS} <<'{HEREDOC}'\n{document}\n{HEREDOC}"
        return _bash_call(command, "Send the decisions to dream")

    def _consolidator_text(self, body: dict[str, Any]) -> str:
        turns = [m for m in body.get("messages") or [] if m.get("role") == "user"]
        packet = None
        for block in reversed(_blocks(turns[-1]) if turns else []):
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                packet = _packet_in(block["text"])
                if packet is not None:
                    break
        if self.consolidator_answer is not None:
            if packet is not None:
                with self._lock:
                    self.packets.append(packet)
            return self.consolidator_answer(packet)
        if packet is None:
            self._error("a consolidator request without a packet in its last user message")
            return "MOCK_ERROR: no packet in the request"
        return json.dumps(self.decisions_for(packet))

    def _is_dream_command(self, turns: list[dict[str, Any]], command: str) -> bool:
        clis = {self.dream_command} if self.dream_command else set()
        for message in turns:
            for block in _blocks(message):
                if block.get("type") == "text" and isinstance(block.get("text"), str):
                    clis.update(SKILL_CLI.findall(block["text"]))
        return any(command.startswith(f"{cli} ") for cli in clis)

    def _note(self, result: BashResult) -> None:
        with self._lock:
            self.bash_results.append(result)

    def _error(self, message: str) -> None:
        with self._lock:
            self.errors.append(message)

    def _skill_command(self, turns: list[dict[str, Any]]) -> str | None:
        # The skill body arrives as user text in the current turn (after the last assistant reply).
        for message in reversed(turns):
            if message.get("role") == "assistant":
                return None
            for block in _blocks(message):
                text = block.get("text") if block.get("type") == "text" else None
                if not isinstance(text, str):
                    continue
                cli = SKILL_CLI.search(text)
                if cli:
                    args_match = SKILL_ARGS.search(text)
                    args = args_match.group(1).strip() if args_match else ""
                    if args in ("", "auto"):
                        args = PLAN_ARGS
                    return f"{cli.group(1)} {args}"
        return None

    def _asked_command(self, last: dict[str, Any]) -> str | None:
        if self.dream_command is None or last.get("role") != "user":
            return None
        texts = [b.get("text", "") for b in _blocks(last) if b.get("type") == "text"]
        user_texts = [
            t for t in texts if isinstance(t, str) and not t.lstrip().startswith("<system-reminder>")
        ]
        if any(ASKS_TO_DREAM.search(t) for t in user_texts):
            return f"{self.dream_command} {PLAN_ARGS}"
        return None


def _bash_call(command: str, description: str) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": f"toolu_mock_{uuid.uuid4().hex[:20]}",
        "name": "Bash",
        "input": {"command": command, "description": description},
    }


def _is_plan(command: str) -> bool:
    return command.strip().endswith(f" {PLAN_ARGS}")


def _command_answered(turns: list[dict[str, Any]], tool_use_id: Any) -> str | None:
    """The Bash command of the `tool_use` that the tool_result `tool_use_id` answers."""
    for message in reversed(turns):
        if message.get("role") != "assistant":
            continue
        for block in _blocks(message):
            if block.get("type") == "tool_use" and block.get("id") == tool_use_id:
                command = (block.get("input") or {}).get("command")
                return command if isinstance(command, str) else None
    return None


def _system_text(body: dict[str, Any]) -> str:
    return _joined(body.get("system"))


def _packet_in(text: str) -> dict[str, Any] | None:
    """The first JSON object in `text` that looks like a dream packet (it has `batches`)."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            value = None
        if isinstance(value, dict) and isinstance(value.get("batches"), list):
            return value
        start = text.find("{", start + 1)
    return None


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _result_text(block: dict[str, Any]) -> str:
    return _joined(block.get("content"))


def _joined(content: Any) -> str:
    """A system prompt or a tool result as text: a string, or the texts of its blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def _message(model: str, content: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": f"msg_mock_{uuid.uuid4().hex[:20]}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 100,
            "output_tokens": 20,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def sse_events(model: str, content: list[dict[str, Any]]) -> bytes:
    """The Messages API stream for a reply made of these content blocks."""
    message = _message(model, content)
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "message_start",
            {"type": "message_start", "message": {**message, "content": [], "stop_reason": None}},
        ),
    ]
    for index, block in enumerate(content):
        start: dict[str, Any]
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events.append(
            ("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})
        )
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
        )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": 20},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode("utf-8")


class _Handler(BaseHTTPRequestHandler):
    mock: MockAnthropic
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _send(self, status: int, data: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", f"req_mock_{uuid.uuid4().hex[:16]}")
        self.end_headers()
        self.wfile.write(data)

    def _handle(self) -> None:
        body = self._body() if self.command in ("POST", "PUT", "PATCH") else None
        self.mock.record(Recorded(self.command, self.path, dict(self.headers.items()), body))
        route = self.path.split("?")[0]
        if self.command == "POST" and route == "/v1/messages" and isinstance(body, dict):
            content = self.mock.reply_for(body)
            model = str(body.get("model") or "claude-mock")
            if body.get("stream"):
                self._send(200, sse_events(model, content), "text/event-stream")
            else:
                self._send(200, json.dumps(_message(model, content)).encode())
        elif route == "/v1/messages/count_tokens":
            self._send(200, b'{"input_tokens": 100}')
        elif self.command == "HEAD":
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self._send(200, b"{}")

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _handle


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument(
        "--dream-command", help="command run when a prompt asks to dream, e.g. '/venv/bin/python -m dream'"
    )
    parser.add_argument("--log", type=Path, help="append every request to this JSONL file")
    args = parser.parse_args()
    api = MockAnthropic(dream_command=args.dream_command, log_path=args.log).start(args.port)
    print(f"mock Messages API on {api.base_url} (Ctrl-C stops)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        api.stop()


if __name__ == "__main__":
    main()
