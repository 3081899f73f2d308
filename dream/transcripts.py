"""Read transcripts and yield only the user's own typed words (DESIGN.md §3).

Real Claude Code transcripts are mostly bytes of other kinds: `api-request-blob` copies of every
request, attachments, tool results holding whole files. Lines are filtered on raw bytes before any
JSON is parsed. The byte patterns below contain unescaped quotes, so they can only match JSON
structure, never the inside of a string value (where a quote is always written `\\"`).
"""

from __future__ import annotations

import enum
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Any, BinaryIO

from dream import defaults, regex_cache

# A user entry written by any client version has one of these (compact JSON from the client,
# spaced JSON from hand-made or re-serialised files).
_USER_TYPE = (b'"type":"user"', b'"type": "user"')
_TOOL_USE_RESULT = b'"toolUseResult":'
# Structure keys that mark an entry which can never hold the user's typed words.
_NEVER_USER_TEXT = (
    _TOOL_USE_RESULT,
    b'"isMeta":true',
    b'"isSidechain":true',
    b'"isCompactSummary":true',
    b'"isVisibleInTranscriptOnly":true',
)
_OPENCLAW_NEEDLES = (b'"role":"user"', b'"role": "user"', b'"type":"session"', b'"type": "session"')
# A session run through the Agent SDK or print mode (`claude -p`) is a program's, never the
# person's (DESIGN.md §3). Older clients set the field on some lines only, so any user line
# that carries it marks the whole session. In the client's compact JSON the field sits near the
# end of the line, after the message: a rejected line (a tool result) is searched there only.
_SDK_MARKERS = (
    b'"entrypoint":"sdk-',
    b'"entrypoint": "sdk-',
    b'"promptSource":"sdk"',
    b'"promptSource": "sdk"',
)
_SDK_TAIL = 1024
SDK_ENTRYPOINTS = frozenset({"sdk-cli", "sdk-ts", "sdk-py"})
# Where a newer client names the author, these values are the person's own typing ("queued":
# typed while the agent was busy); any other value is the client's or a program's.
_TYPED_SOURCES = frozenset({"typed", "queued"})


class Excluded(enum.Enum):
    """Kinds of user-entry text that are not the person's words (DESIGN.md §3), for the report."""

    SDK_SESSION = "SDK-session entries"
    TASK_NOTIFICATION = "task notifications"
    PLAN = "plan-mode plans"
    IDE_BLOCK = "IDE blocks"
    SHELL_ESCAPE = "shell escapes"
    SLASH_COMMAND = "slash-command wrappers"
    INTERRUPTION = "interruption markers"
    IMAGE = "images and documents"
    NOT_TYPED = "entries the client marks as not typed"
    PASTE = "pastes"

    @property
    def key(self) -> str:
        return self.name.lower()


# Opening tags of whole messages that the client writes around something that is not the
# person's prose, and what each is.
_WRAPPER_TAGS: tuple[tuple[str, Excluded], ...] = (
    ("<command-name>", Excluded.SLASH_COMMAND),
    ("<command-message>", Excluded.SLASH_COMMAND),
    ("<command-args>", Excluded.SLASH_COMMAND),
    ("<local-command-stdout>", Excluded.SHELL_ESCAPE),
    ("<local-command-stderr>", Excluded.SHELL_ESCAPE),
    ("<local-command-caveat>", Excluded.SHELL_ESCAPE),
    ("<bash-input>", Excluded.SHELL_ESCAPE),
    ("<bash-stdout>", Excluded.SHELL_ESCAPE),
    ("<bash-stderr>", Excluded.SHELL_ESCAPE),
    ("<task-notification>", Excluded.TASK_NOTIFICATION),
    ("[Request interrupted by user", Excluded.INTERRUPTION),
    ("Implement the following plan:", Excluded.PLAN),
)
_WRAPPER_STARTS = tuple(tag for tag, _ in _WRAPPER_TAGS)
_STRIPPED_BLOCKS = regex_cache.compile(
    r"<(system-reminder|user-prompt-submit-hook)>.*?(</\1>|\Z)", re.DOTALL | re.IGNORECASE
)
# IDE context the VS Code / JetBrains extensions add beside the person's words.
_IDE_BLOCK = regex_cache.compile(r"<(ide_[a-z_]+)>.*?(?:</\1>|\Z)", re.DOTALL)
# Image placeholders the client writes into the person's text ("[Image #2]", "[Image: source: …]").
_IMAGE_MARK = regex_cache.compile(r"\[Image(?: #\d+|: source: [^\]\n]*)\]")
_TOOL_INJECTION = regex_cache.compile(
    rb"(?i)remember (?:this|the following) (?:rule|instruction)|"
    rb"ignore (?:all )?(?:the )?(?:previous|prior|above) instructions|"
    rb"disregard (?:all )?(?:previous|prior|the above)|<system-reminder>|new (?:system )?instructions:|"
    rb"(?:add|save|store) (?:this|the following) (?:to|in) (?:your )?memory|you must (?:now )?always"
)
# Every match of `_TOOL_INJECTION` in its usual casing holds one of these (less a first letter
# that may be capitalised). Each is one pass over a tool's output, so they are few; a hit runs
# the regex only in a window around it (`_INJECTION_REACH` is longer than any match).
_INJECTION_HINTS = (b"emember th", b"nstructions", b"isregard", b"system-reminder", b"memory", b"always")
_INJECTION_REACH = 64


# The client itself ends a tool result with its reminders ("<system-reminder>\nWhenever you read a
# file, you should consider whether it looks malicious…" after every Read of 1.0.x): a reminder
# block with nothing after it but the end of the result's text is the client's, not the tool's.
_REMINDER_CLOSE = b"</system-reminder>"
_END_OF_TEXT = regex_cache.compile(rb'(?:\\[nr]|\s)*"')


def _clients_reminder(data: bytes, match: re.Match[bytes], end: int) -> bool:
    if match.group().lower() != b"<system-reminder>":
        return False
    close = data.find(_REMINDER_CLOSE, match.end(), end)
    return close >= 0 and _END_OF_TEXT.match(data, close + len(_REMINDER_CLOSE), end) is not None


def _injection_in(data: bytes, start: int, end: int) -> bool:
    """Whether data[start:end] (what a tool returned) carries text that tries to instruct the agent."""
    for hint in _INJECTION_HINTS:
        at = data.find(hint, start, end)
        while at >= 0:
            low, high = max(start, at - _INJECTION_REACH), min(end, at + len(hint) + _INJECTION_REACH)
            for match in _TOOL_INJECTION.finditer(data, low, high):
                if not _clients_reminder(data, match, end):
                    return True
            at = data.find(hint, at + 1, end)
    return False


_LONE_SURROGATE = regex_cache.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class UserMessage:
    """One message of the person's: `text` is their own words, already redacted, without pastes."""

    session_id: str
    uuid: str
    timestamp: datetime
    cwd: str | None
    text: str
    # The agent's words just before, when the message may be an answer to them (DESIGN.md §9:
    # "what does 'them' mean here?"), as the transcript holds them: read through `agent_before`.
    agent_turn_unredacted: str = field(default="", repr=False)

    @cached_property
    def agent_before(self) -> str:
        """The agent's turn before the message, redacted: data to resolve the message with, never the
        person's words. Redacted when first asked for: most messages never need it (only a message
        with a rule in it, or one kept for the agent pass, does)."""
        if not self.agent_turn_unredacted:
            return ""
        from dream.redact import redact

        return redact(self.agent_turn_unredacted).text


@dataclass
class ReadStats:
    """What a read saw and skipped, so the report can say why lines were not used."""

    files: int = 0
    bytes: int = 0
    lines: int = 0
    user_messages: int = 0
    malformed_lines: int = 0
    oversized_lines: int = 0
    invalid_utf8_lines: int = 0
    truncated_last_lines: int = 0
    # Tool results carrying text that tries to instruct the agent (ignored, only counted).
    tool_injections: int = 0
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    # User entries, blocks and pastes that were not the person's words, by kind.
    excluded: Counter[Excluded] = field(default_factory=Counter)

    def add(self, other: ReadStats) -> None:
        self.files += other.files
        self.bytes += other.bytes
        self.lines += other.lines
        self.user_messages += other.user_messages
        self.malformed_lines += other.malformed_lines
        self.oversized_lines += other.oversized_lines
        self.invalid_utf8_lines += other.invalid_utf8_lines
        self.truncated_last_lines += other.truncated_last_lines
        self.tool_injections += other.tool_injections
        self.unreadable.extend(other.unreadable)
        self.excluded.update(other.excluded)


def parse_timestamp(value: object) -> datetime | None:
    """ISO-8601 text (`2026-11-29T15:04:39.800Z`) or epoch milliseconds, as an aware UTC datetime."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = value / 1000 if value > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str) or len(value) < 10:
        return None
    text = value.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        stamp = datetime.fromisoformat(text)
    except ValueError:
        return None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=timezone.utc)
    return stamp.astimezone(timezone.utc)


def clean_user_text(text: str, excluded: Counter[Excluded]) -> str | None:
    """The user's words with client-inserted blocks removed; None when nothing of theirs is left.

    What is removed is counted by kind in `excluded`. Pasted material is not removed here (see
    `person_text`).
    """
    stripped = text.lstrip()
    if stripped.startswith(_WRAPPER_STARTS):
        excluded[next(kind for tag, kind in _WRAPPER_TAGS if stripped.startswith(tag))] += 1
        return None
    if "<" in text:
        text = _STRIPPED_BLOCKS.sub("", text)
        if "<ide_" in text:
            text, found = _IDE_BLOCK.subn("", text)
            excluded[Excluded.IDE_BLOCK] += found
    if "[Image" in text:
        text, found = _IMAGE_MARK.subn("", text)
        if found and not text.strip():
            excluded[Excluded.IMAGE] += 1
    if not text.isascii():
        # A string cut mid-emoji by the client's JSON writer leaves a lone surrogate: make it
        # valid text, or every later encode (cache, stdout) would fail.
        text = _LONE_SURROGATE.sub("\ufffd", text)
    text = text.strip()
    return text or None


def person_text(text: str, excluded: Counter[Excluded]) -> str | None:
    """What the person wrote in a message, redacted: client blocks removed, secrets redacted, then
    pasted material cut out (only the framing around a paste is theirs, DESIGN.md §3).

    Redaction comes before the split: a secret can span lines (a private key block) and must be
    seen whole, before a paste boundary could cut its header away from its body.
    """
    cleaned = clean_user_text(text, excluded)
    if cleaned is None:
        return None
    from dream.redact import redact

    cleaned = redact(cleaned).text
    if "\n" not in cleaned:
        return cleaned  # one line: a paste of one line is left to the sentence filter
    from dream.pastes import split_pastes

    split = split_pastes(cleaned)
    if split.pastes:
        excluded[Excluded.PASTE] += len(split.pastes)
    return split.framing or None


def _content_text(content: Any, excluded: Counter[Excluded]) -> str | None:
    """A string, or the `text` blocks of a content list. Any `tool_result` block disqualifies it;
    image and document blocks are skipped, and so are text blocks that are IDE context."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    parts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif kind in ("tool_result", "toolResult"):
            return None
        elif kind in ("image", "document"):
            excluded[Excluded.IMAGE] += 1
    return "\n".join(parts) if parts else None


def _not_typed(entry: dict[str, Any]) -> Excluded | None:
    """Why the client's own author fields say this entry is not the person's typing, if they do."""
    origin = entry.get("origin")
    kind = origin.get("kind") if isinstance(origin, dict) else None
    if kind == "task-notification":
        return Excluded.TASK_NOTIFICATION
    if "planContent" in entry:
        return Excluded.PLAN
    if kind is not None and kind != "human":
        return Excluded.NOT_TYPED
    source = entry.get("promptSource")
    if source is not None and source not in _TYPED_SOURCES:
        return Excluded.NOT_TYPED
    return None


_CHUNK = 1 << 20


def _open(path: Path, stats: ReadStats) -> BinaryIO | None:
    try:
        return open(path, "rb")
    except OSError as exc:
        stats.unreadable.append((str(path), exc.strerror or exc.__class__.__name__))
        return None


def _line_spans(
    block: bytes, lo: int, hi: int, probes: tuple[bytes, ...], needles: tuple[bytes, ...]
) -> list[tuple[int, int]]:
    """(start, end) of every line in block[lo:hi] (complete lines) that holds one of the needles.

    One scan per probe (each needle holds one), then the needles on that line only. A probe as
    narrow as the needle itself (`"type":"user"`) finds a third of the lines `"user"` does.
    """
    spans: list[tuple[int, int]] = []
    for probe in probes:
        position = block.find(probe, lo, hi)
        while position >= 0:
            start = max(block.rfind(b"\n", lo, position) + 1, lo)
            end = block.find(b"\n", position, hi) + 1
            if any(block.find(needle, start, end) >= 0 for needle in needles):
                spans.append((start, end))
            position = block.find(probe, end, hi)
    if len(probes) > 1 and spans:
        spans = sorted(set(spans))  # a line both probes found is one line
    return spans


@dataclass
class _Marks:
    """What the byte scan noticed on lines it did not hand over."""

    sdk: bool = False


def _rejected(
    data: bytes, start: int, end: int, reject: tuple[bytes, ...], stats: ReadStats, marks: _Marks | None
) -> bool:
    """Whether data[start:end] holds a `reject` marker; a tool result that tries to instruct the
    agent is counted on the way (its text is kept nowhere). Searched in place, never copied."""
    for marker in reject:
        at = data.find(marker, start, end)
        if at < 0:
            continue
        # Before `toolUseResult` is the message the model was shown (its `tool_result` blocks);
        # after it, the client's structured copy of the same output.
        if marker == _TOOL_USE_RESULT and _injection_in(data, start, at):
            stats.tool_injections += 1
        if marks is not None and not marks.sdk:
            tail = max(start, end - _SDK_TAIL)
            marks.sdk = any(data.find(m, tail, end) >= 0 for m in _SDK_MARKERS)
        return True
    return False


# A line that does not start with `{` cannot be a JSON object. One regex pass finds their
# starts; it runs faster than bytes.count(b"\n") alone, so lines are not counted otherwise.
_NON_JSON_START = regex_cache.compile(rb"\n[^{\n\r]")


def _non_json_lines(block: bytes) -> int:
    """Lines beginning inside this block (after a newline) whose first byte is not `{`."""
    return len(_NON_JSON_START.findall(block))


@dataclass(frozen=True)
class _Lane:
    """One kind of line a scan hands over: found by a probe, holding one of the needles and none of
    the `reject` markers. One scan of a file serves every lane (the person's lines and the
    agent's), so each file is read once."""

    probes: tuple[bytes, ...]
    needles: tuple[bytes, ...]
    reject: tuple[bytes, ...] = ()
    # The lane of the person's lines: its too-long lines are counted, and its rejected lines are
    # looked at for the markers of an SDK session. A second lane's lines are counted by the first.
    primary: bool = True


# The person's entries; tool results among them are rejected, and counted when they try to instruct.
_USER_LANE = _Lane(_USER_TYPE, _USER_TYPE, _NEVER_USER_TEXT)
# The agent's text blocks, for the turn a short message may answer.
_AGENT_LANE = _Lane((b'"type":"assistant"',), (b'"type":"text"',), (b'"isSidechain":true',), primary=False)


@dataclass
class _Scan:
    """What `_lane_lines` carries from one block to the next."""

    lanes: tuple[_Lane, ...]
    probes: list[tuple[bytes, ...]]  # each lane's probes, as this file writes JSON
    marks: _Marks | None
    carry: bytes = b""  # the start of a line that continues in the next block
    skipping: bool = False  # inside an oversized line: drop bytes until its newline

    def marks_for(self, lane: _Lane) -> _Marks | None:
        return self.marks if lane.primary else None


def _candidate_lines(
    path: Path, stats: ReadStats, probes: tuple[bytes, ...], needles: tuple[bytes, ...]
) -> Iterator[bytes]:
    """Complete lines of a file found by a probe and holding one of the needles (one lane)."""
    for _, line in _lane_lines(path, stats, (_Lane(probes, needles),)):
        yield line


def _lane_lines(
    path: Path, stats: ReadStats, lanes: tuple[_Lane, ...], marks: _Marks | None = None
) -> Iterator[tuple[_Lane, bytes]]:
    """(lane, line) for every complete line of a file that one of the lanes takes, found by scanning
    1 MB blocks; lines of one lane come in file order.

    Every other line is only counted, never split out or decoded: that is what makes a read of a
    real transcript (mostly request blobs, attachments and tool results) cheap. A line longer than
    MAX_USER_LINE_BYTES is skipped without being held in memory. A file that does not start
    with a JSON object is not a transcript: its lines are counted as malformed and skipped.
    """
    handle = _open(path, stats)
    if handle is None:
        return
    stats.files += 1
    scan = _Scan(lanes, [lane.probes for lane in lanes], marks)
    first = True
    try:
        while True:
            try:
                block = handle.read(_CHUNK)
            except OSError as exc:  # the file vanished or its disk failed mid-read
                stats.unreadable.append((str(path), exc.strerror or exc.__class__.__name__))
                return
            if not block:
                break
            stats.bytes += len(block)
            if first:
                first = False
                if _not_a_transcript(handle, block, stats):
                    return
                scan.probes = [_probes_for(block, lane.probes) for lane in lanes]
            yield from _block_lines(block, scan, stats)
        yield from _unterminated_line(scan, stats)
    finally:
        handle.close()


_FIRST_KEY = regex_cache.compile(rb'\s*\{\s*"[^"\n]{0,64}"(\s*):(\s?)')


def _probes_for(block: bytes, probes: tuple[bytes, ...]) -> tuple[bytes, ...]:
    """The probes written the way this file writes JSON: the client's compact `"type":"user"`, or
    `"type": "user"` from a tool that pretty-prints. Judged by the first key of the first line;
    each probe left out saves a pass over every byte of the file."""
    first = _FIRST_KEY.match(block)
    if first is None:
        return probes
    spaced = bool(first.group(1) or first.group(2))
    kept = tuple(p for p in probes if (b'": ' in p or b'" :' in p) == spaced)
    return kept or probes


def _not_a_transcript(handle: BinaryIO, block: bytes, stats: ReadStats) -> bool:
    """A file whose first block does not start with a JSON object: every line counted as malformed."""
    if block.lstrip()[:1] in (b"{", b""):
        return False
    stats.malformed_lines += block.count(b"\n") + 1
    for rest in iter(lambda: handle.read(_CHUNK), b""):
        stats.bytes += len(rest)
        stats.malformed_lines += rest.count(b"\n")
    return True


def _taken(line: bytes, scan: _Scan, stats: ReadStats) -> list[tuple[_Lane, bytes]]:
    """(lane, line) for each lane that takes a whole line held apart from its block."""
    return [
        (lane, line)
        for lane in scan.lanes
        if any(needle in line for needle in lane.needles)
        and not _rejected(line, 0, len(line), lane.reject, stats, scan.marks_for(lane))
    ]


def _block_lines(block: bytes, scan: _Scan, stats: ReadStats) -> list[tuple[_Lane, bytes]]:
    """The lines that end in this block (the one begun in an earlier block included), by lane."""
    limit = defaults.MAX_USER_LINE_BYTES
    stats.malformed_lines += _non_json_lines(block)
    newline = block.find(b"\n")
    if newline < 0:
        if not scan.skipping:
            scan.carry += block
            if len(scan.carry) > limit:
                stats.oversized_lines += 1
                stats.lines += 1
                scan.carry, scan.skipping = b"", True
        return []
    found = []
    # The line that started in an earlier block ends here.
    if scan.skipping:
        scan.skipping = False
    elif scan.carry or newline > 0:
        head = scan.carry + block[: newline + 1]
        stats.lines += 1
        if len(head) > limit:
            stats.oversized_lines += 1
        else:
            found.extend(_taken(head, scan, stats))
    last = block.rfind(b"\n")
    lo, hi = newline + 1, last + 1
    if hi > lo:
        for n, lane in enumerate(scan.lanes):
            for start, end in _line_spans(block, lo, hi, scan.probes[n], lane.needles):
                if end - start > limit:
                    if lane.primary:  # a line is counted once
                        stats.oversized_lines += 1
                elif not _rejected(block, start, end, lane.reject, stats, scan.marks_for(lane)):
                    found.append((lane, block[start:end]))
    scan.carry = block[hi:]
    if len(scan.carry) > limit:
        stats.oversized_lines += 1
        stats.lines += 1
        scan.carry, scan.skipping = b"", True
    return found


def _unterminated_line(scan: _Scan, stats: ReadStats) -> list[tuple[_Lane, bytes]]:
    """The last line when the file does not end with a newline: the client may be writing it right
    now, so it counts only when it is whole JSON."""
    carry = scan.carry
    if not carry.strip() or scan.skipping:
        return []
    stats.lines += 1
    try:
        json.loads(carry)
    except ValueError:
        stats.truncated_last_lines += 1
        return []
    return _taken(carry, scan, stats)


def _parse(line: bytes, stats: ReadStats) -> dict[str, Any] | None:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        stats.invalid_utf8_lines += 1
        text = line.decode("utf-8", "replace")
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        stats.malformed_lines += 1
        return None
    return obj if isinstance(obj, dict) else None


def read_claude_transcript(
    path: Path, stats: ReadStats, since: datetime | None = None
) -> Iterator[UserMessage]:
    """The user's typed messages in a Claude Code transcript (2.1.x and 1.0.x formats).

    Nothing comes out of a session run through the Agent SDK or print mode: the session is
    read to its end before the first message is handed over.
    """
    fallback_session = path.stem
    marks = _Marks()
    excluded: Counter[Excluded] = Counter()
    messages: list[UserMessage] = []
    turns: dict[str, list[tuple[datetime, str]]] = {}
    quiet = ReadStats()  # the agent's lines: not the person's, nothing of them is counted
    user_entries = 0
    # Entries with a `_NEVER_USER_TEXT` marker are never the user's words; a tool result among
    # them that tries to plant a rule is still counted for the report.
    for lane, line in _lane_lines(path, stats, (_USER_LANE, _AGENT_LANE), marks):
        if lane is _AGENT_LANE:
            if not marks.sdk:
                _agent_turn(line, path, turns, quiet)
            continue
        entry = _parse(line, stats)
        if entry is None or entry.get("type") != "user":
            continue
        if entry.get("isSidechain") or entry.get("isMeta") or entry.get("isCompactSummary"):
            continue
        user_entries += 1
        if entry.get("entrypoint") in SDK_ENTRYPOINTS or entry.get("promptSource") == "sdk":
            marks.sdk = True
        if marks.sdk:
            continue  # nothing of this session will be used; finish counting its lines
        message = entry.get("message")
        if not isinstance(message, dict) or message.get("role", "user") != "user":
            continue
        not_typed = _not_typed(entry)
        if not_typed is not None:
            excluded[not_typed] += 1
            continue
        raw = _content_text(message.get("content"), excluded)
        text = person_text(raw, excluded) if raw else None
        if text is None:
            continue
        stamp = parse_timestamp(entry.get("timestamp"))
        if stamp is None or (since is not None and stamp < since):
            continue
        cwd = entry.get("cwd")
        messages.append(
            UserMessage(
                session_id=str(entry.get("sessionId") or fallback_session),
                uuid=str(entry.get("uuid") or ""),
                timestamp=stamp,
                cwd=cwd if isinstance(cwd, str) else None,
                text=text,
            )
        )
    if marks.sdk:
        stats.excluded[Excluded.SDK_SESSION] += max(user_entries, 1)
        return
    stats.excluded.update(excluded)
    stats.user_messages += len(messages)
    yield from _with_agent_turns(messages, turns)


# An answer to the agent is short: "mockk. sempre.", "no. fmt.Errorf with %w."
_ANSWER_MAX_WORDS = 40
_AGENT_TURN_MAX_CHARS = 600


def _agent_turn(
    line: bytes, path: Path, turns: dict[str, list[tuple[datetime, str]]], quiet: ReadStats
) -> None:
    """Keep the end of an agent line's text blocks under its session, by time."""
    entry = _parse(line, quiet)
    if entry is None or entry.get("type") != "assistant":
        return
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    texts = [b.get("text") for b in content or () if isinstance(b, dict) and b.get("type") == "text"]
    text = "\n".join(t for t in texts if isinstance(t, str)).strip()
    stamp = parse_timestamp(entry.get("timestamp"))
    if text and stamp is not None:
        session = str(entry.get("sessionId") or path.stem)
        turns.setdefault(session, []).append((stamp, text[-_AGENT_TURN_MAX_CHARS:]))


def _with_agent_turns(
    messages: list[UserMessage], turns: dict[str, list[tuple[datetime, str]]]
) -> list[UserMessage]:
    """The messages, each short one with the agent's last text before it (same session, by time)."""
    if not turns or not any(len(m.text.split()) <= _ANSWER_MAX_WORDS for m in messages):
        return messages
    from bisect import bisect_right

    for session_turns in turns.values():
        session_turns.sort(key=lambda turn: turn[0])
    stamps = {session: [at for at, _ in session_turns] for session, session_turns in turns.items()}
    out = []
    for message in messages:
        # The last agent text at or before the message: one binary search, not a scan per message.
        at = bisect_right(stamps.get(message.session_id, []), message.timestamp)
        if at and len(message.text.split()) <= _ANSWER_MAX_WORDS:
            message = replace(message, agent_turn_unredacted=turns[message.session_id][at - 1][1])
        out.append(message)
    return out


def read_openclaw_session(
    path: Path, stats: ReadStats, since: datetime | None = None
) -> Iterator[UserMessage]:
    """User messages of an OpenClaw agent session (`{"type":"message","message":{"role":"user"}}`)."""
    session_id = path.stem
    cwd: str | None = None
    for line in _candidate_lines(path, stats, _OPENCLAW_NEEDLES, _OPENCLAW_NEEDLES):
        entry = _parse(line, stats)
        if entry is None:
            continue
        if entry.get("type") == "session":
            session_id = str(entry.get("id") or session_id)
            cwd = entry.get("cwd") if isinstance(entry.get("cwd"), str) else cwd
            continue
        message = entry.get("message")
        if entry.get("type") != "message" or not isinstance(message, dict):
            continue
        if message.get("role") != "user":
            continue
        raw = _content_text(message.get("content"), stats.excluded)
        text = person_text(raw, stats.excluded) if raw else None
        stamp = parse_timestamp(entry.get("timestamp") or message.get("timestamp"))
        if text is None or stamp is None or (since is not None and stamp < since):
            continue
        stats.user_messages += 1
        yield UserMessage(session_id, str(entry.get("id") or ""), stamp, cwd, text)


_DAILY_LOG_NAME = regex_cache.compile(r"^(\d{4})-(\d{2})-(\d{2})\.md$")
# The agent writes daily logs in the third person ("<name> corrected me: use uv"). What follows
# such a lead-in is the person's statement; lines without one are the agent's own notes.
# The session id a daily log's statements carry (`log-YYYY-MM-DD`).
DAILY_LOG_SESSION = "log-"
_REPORTED_SPEECH = regex_cache.compile(
    r"^\s*(?:[-*]\s+)?(?:\*\*)?(?:\d{1,2}:\d{2}\s*[-–—]?\s*)?"
    r"(?P<who>[A-Z][\w.'-]*(?:\s[A-Z][\w.'-]*)?|[Tt]he user|[Uu]ser)\s+"
    r"(?P<verb>said|says|told me|asked me to|asked that|corrected me|wants|prefers|decided|noted|"
    r"mentioned|reminded me|insisted|confirmed|explained|clarified)"
    r"(?:\s+(?:that|to)(?=\s))?\s*[:,-]?\s*(?P<said>.+)$"
)


# A decision noted as such ("Decision today: we moved the bot to the cheaper tier; Sam agreed.").
_DECISION_NOTE = regex_cache.compile(
    r"^\s*(?:[-*]\s+)?(?:\*\*)?(?:Decision|Decided|Agreed)(?:s)?(?:\s+(?:today|made))?(?:\*\*)?\s*[:—–-]\s*"
    r"(?:\*\*)?\s*(?P<said>.+)$",
    re.IGNORECASE,
)
# What the person wants of the agent, in the agent's words: "prefers that I post…", "wants me to…".
_OF_THE_AGENT = regex_cache.compile(r"^(?:that\s+)?(?:I|me to)\s+(?P<rest>.+)$")


def _log_statement(text: str) -> str | None:
    """The person's statement in one daily-log line, or None. An agent note of what the person wants
    of it ("Sam prefers that I post updates in #ops") is their rule for the agent ("Post updates in
    #ops"), never the agent's own "I post…"."""
    match = _REPORTED_SPEECH.match(text)
    if match:
        said = match["said"].strip()
        wants = _OF_THE_AGENT.match(said) if match["verb"] in _WANTS else None
        if wants:
            said = wants["rest"][:1].upper() + wants["rest"][1:]
        elif said.startswith(("I ", "I'")):
            return None  # the agent speaking of itself
        return said
    decision = _DECISION_NOTE.match(text)
    return decision["said"].strip() if decision else None


_WANTS = frozenset({"wants", "prefers", "asked me to", "asked that"})


def daily_log_date(path: Path) -> date | None:
    match = _DAILY_LOG_NAME.match(path.name)
    if not match:
        return None
    try:
        return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def read_daily_log(path: Path, stats: ReadStats, since: datetime | None = None) -> Iterator[UserMessage]:
    """Statements attributed to the person in an OpenClaw daily log `memory/YYYY-MM-DD.md`."""
    day = daily_log_date(path)
    if day is None:
        return
    stamp = datetime(day.year, day.month, day.day, 12, tzinfo=timezone.utc)
    if since is not None and stamp < since:
        return
    try:
        content = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        stats.unreadable.append((str(path), exc.strerror or exc.__class__.__name__))
        return
    stats.files += 1
    stats.bytes += len(content)
    for number, raw in enumerate(content.splitlines(), start=1):
        stats.lines += 1
        text = raw.strip()
        statement = _log_statement(text)
        if statement is None:
            continue
        said = person_text(statement.strip('"“”').rstrip("*").strip(), stats.excluded)
        if not said:
            continue
        stats.user_messages += 1
        yield UserMessage(f"{DAILY_LOG_SESSION}{day.isoformat()}", f"{path.name}:{number}", stamp, None, said)
