"""Split a person's message into their own framing and the material they pasted (DESIGN.md §3).

People paste tracebacks, logs, documents, chat threads, shell sessions and code into a message and
write a sentence of their own above or below it. Only that framing is the person's: a pasted
style guide's "All functions must have docstrings" is not their rule. The split works on whole
lines, in three steps: each line gets a kind from its own shape (a prompt, a timestamp, a tag, a
stack frame, prose); runs of pasted lines, with what they carry along (a shell command's output,
the messages under a chat header, a fenced block), become pastes; and paragraphs of prose that
read as someone else's document (headings, ticket fields, formal third-person voice, an
introducing "here's the spec:" above them) are pastes too. Measured on a labelled set of its own
(`tests/data/pastes-*.jsonl`, `scripts/eval_pastes.py`).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass


class PasteKind(enum.Enum):
    FENCED = "fenced block"
    TRACEBACK = "traceback"
    LOG = "log"
    CONSOLE = "browser console"
    SHELL = "shell session"
    HTML = "HTML"
    DIFF = "diff"
    JSON = "JSON"
    TABLE = "table"
    CODE = "code"
    CHAT = "chat thread"
    LICENCE = "licence text"
    DOCUMENT = "document"


@dataclass(frozen=True)
class Paste:
    kind: PasteKind
    # Line numbers in the message, 0-based, end exclusive.
    start: int
    end: int


@dataclass(frozen=True)
class SplitMessage:
    framing: str
    pastes: tuple[Paste, ...]


_FENCE = re.compile(r"^\s*(```|~~~)")
_LINE_KINDS: tuple[tuple[PasteKind, re.Pattern[str]], ...] = (
    (
        PasteKind.TRACEBACK,
        re.compile(
            r"""^\s*(?:Traceback\ \(most\ recent\ call\ last\)|File\ "[^"]+",\ line\ \d+
            |at\ [\w$.<>\[\]/@-]+\ ?\(.*\)\s*$|at\ [\w$.<>/@-]+:\d+|at\ async\ |at\ (?:new\ )?[\w$.]+\ \(
            |goroutine\ \d+\ \[|panic:\ |thread\ '[^']*'\ panicked|Caused\ by:|Exception\ in\ thread
            |\.\.\.\ \d+\ more|\^{3,}\s*$|~{3,}\^|[\w.]+(?:Error|Exception)(?::|$)|\w+\.(?:py|go|rs|java|js|ts):\d+
            |note:\ run\ with\ `RUST_BACKTRACE|\d+:\s+0x[0-9a-f]+|During\ handling\ of\ the\ above)""",
            re.VERBOSE,
        ),
    ),
    (
        PasteKind.LOG,
        re.compile(
            r"""^\s*(?:\[?\d{4}-\d\d-\d\d[ T_]\d\d:\d\d|\[?\d\d:\d\d:\d\d(?:[.,]\d+)?\]?\s
            |\[?(?:[A-Z][a-z]{2}\ +\d{1,2}\ \d\d:\d\d:\d\d)|\d{2}/\d{2}/\d{4}\ \d\d:\d\d
            |\[?(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE|FATAL|CRITICAL|NOTICE)\]?[\s:]
            |(?:time|ts|level|lvl)=\S+\s|\{"(?:level|time|ts|timestamp|msg|severity)"
            |npm\ (?:ERR|WARN)|\#\#\[(?:error|warning|group)\]|\#\d+\ \[|\d+\.\d+s\ |Run\ [\w./-]+@
            |E\d{4}\ \d\d:\d\d|I\d{4}\ \d\d:\d\d|W\d{4}\ \d\d:\d\d)""",
            re.VERBOSE,
        ),
    ),
    (
        PasteKind.CONSOLE,
        re.compile(
            r"^\s*(?:Uncaught\b|VM\d+(?::\d+)?|Failed to load resource|\[(?:HMR|vite|webpack)\]|"
            r"(?:GET|POST|PUT|DELETE|PATCH) https?://\S+ \d{3}|Warning: [A-Z][\w ]+|DevTools|"
            r"[\w.-]+\.(?:js|jsx|tsx|mjs)(?:\?\S*)?:\d+(?::\d+)?\s|Download the React DevTools|"
            r"Access to fetch at|Refused to (?:load|execute|apply)|\[Violation\])"
        ),
    ),
    (
        PasteKind.SHELL,
        re.compile(
            r"^\s*(?:\$ \S|# (?:apt|yum|dnf|systemctl|cd|ls|cat)\b|[\w.-]+@[\w.-]+(?::[^\s$#]*)?\s?[$#%] ?\S|"
            r"PS [A-Z]:\\[^>]*> ?|C:\\[^>]*> ?\S|❯ ?\S|➜ |λ |\(\.?venv[^)]*\) |(?:\w+ )?% \S|"
            r">>> |\.\.\. |In \[\d+\]: |Out\[\d+\]: |irb\(main\)|iex\(\d+\)>|mysql> |postgres=[#>] |"
            r"\w+=# |sqlite> |redis[\d.:]*> |\S*[\ue0a0-\ue0b3])"
        ),
    ),
    (
        PasteKind.DIFF,
        re.compile(
            r"^(?:diff --git |index [0-9a-f]{7,}|@@ [-+]\d|--- (?:a/|/dev/null)|\+\+\+ (?:b/|/dev/null)|commit [0-9a-f]{40})"
        ),
    ),
    (PasteKind.HTML, re.compile(r"^\s*(?:<(?:!DOCTYPE|!--|/?[a-zA-Z][\w:-]*(?:\s[^<>]*)?/?>)|<\?xml)")),
    (PasteKind.JSON, re.compile(r"""^\s*(?:[{\[]\s*$|"[^"\n]+"\s*:\s*[\[{"\d\-tfn]|[}\]],?\s*$|\{"\w+":)""")),
    (
        PasteKind.TABLE,
        re.compile(r"^\s*(?:\|.*\|\s*$|[-+|: =]{6,}$|\S+(?:\t[^\t]*){2,}$|\(\d+ rows?\)$)"),
    ),
    (
        PasteKind.CODE,
        re.compile(
            r"""^\s*(?:(?:async\ )?def\ \w+\(|class\ \w+[(:\s{]|import\ [\w.{*]|from\ [\w.]+\ import\ 
            |(?:export\ )?(?:default\ )?(?:async\ )?function\b|(?:export\ )?(?:const|let|var)\ [\w{\[]+\s*[=:]
            |export\ (?:default|type|interface)|interface\ \w+\ ?\{|type\ \w+\ =|package\ [\w.]+;?$|func\ [\w(]
            |(?:public|private|protected)\ (?:static\ )?\w+|\#include|\#!/|@\w+(?:\(.*\))?\s*$|return\ .*;$
            |if\ ?\(.*\)\s*\{?$|for\ ?\(|while\ ?\(|\}\s*(?:else|catch)|(?:SELECT|INSERT\ INTO|UPDATE\ \w+\ SET|DELETE\ FROM
            |CREATE\ (?:TABLE|INDEX|UNIQUE)|ALTER\ TABLE|WHERE|FROM\ \w+|(?:LEFT\ |INNER\ )?JOIN|GROUP\ BY|ORDER\ BY)\b
            |FROM\ [\w./:-]+(?:\ AS\ \w+)?$|(?:RUN|COPY|ENV|WORKDIR|EXPOSE|CMD|ENTRYPOINT)\ \S
            |[)}\];]+,?;?\s*$|//\ |/\*|\*/|\*\ @|<\w+\ [^>]*/>)""",
            re.VERBOSE,
        ),
    ),
)
# Lines that look like code only by their punctuation: an assignment, a `key: value`, a call, a
# line ending in `{` or `;`. A sentence can look like that too ("Note: we never deploy on Fridays").
_WEAK_CODE = re.compile(
    r"""^\s*(?:[\w.\[\]"']+\s*(?:=|\+=|:=|->)\s*\S|[a-z_][\w.-]*:(?:\s+\S|\s*$)|-\ [\w-]+:\ |.*[{;]\s*$
    |[\w.]+\(.*\);?,?\s*$)""",
    re.VERBOSE,
)
_CODE_CHARS = re.compile(r"[(){}\[\];=<>`$|\\]")
_CHAT_HEADER = re.compile(
    r"^\s*(?:[A-Z][\w.'-]+(?: [A-Z][\w.'-]+){0,2}\s{1,4}(?:\d{1,2}:\d\d(?: ?[AaPp]\.?[Mm]\.?)?|"
    r"\[\d{1,2}:\d\d(?: ?[AP]M)?\]|Today at|Yesterday at)\b.*|"
    r"\[\d{1,2}:\d\d(?::\d\d)?(?: ?[AP]M)?\]\s*[\w.@ -]{1,30}:.*|"
    r"\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d[^\]]*\]\s*[\w.@ -]{1,30}:.*|"
    r"<[\w.@-]{1,30}>\s.*|[\w.-]{1,30} — \d{1,2}/\d{1,2}/\d{2,4}.*|"
    r"On .{6,80} wrote:\s*|-{3,} ?(?:Original Message|Forwarded message) ?-{3,}|"
    r"(?:From|Sent|To|Cc|Subject|Date): .+)$"
)
_LICENCE = re.compile(
    r"Permission is hereby granted|THE SOFTWARE IS PROVIDED|Licensed under the Apache License|"
    r"GNU (?:LESSER |AFFERO )?GENERAL PUBLIC LICENSE|Redistribution and use in source and binary|"
    r"MERCHANTABILITY|WITHOUT WARRANTIES OR CONDITIONS|SPDX-License-Identifier|Mozilla Public License|"
    r"under the terms of the GNU|This program is free software",
    re.IGNORECASE,
)
# The person talking to the agent: first and second person, requests, questions, chat words.
_PERSON_VOICE = re.compile(
    r"\b(?:I|I'm|I've|I'd|I'll|im|ive|me|my|mine|we're|we've|we'd|let's|lets|you|your|you're|"
    r"can you|could you|pls|plz|please|thanks|thx|lol|btw|fwiw|tbh|imo|hmm|ok|okay|yeah|yep|nope|"
    r"above|below|here's|heres|this one|that one|wtf|ugh)\b",
    re.IGNORECASE,
)
# An introduction of what follows: "here's the spec:", "from the ticket:", "see below".
_INTRODUCER = re.compile(
    r"(?:here(?:'s| is| are)|below|pasted?|copied|copy of|attached|forwarding|forwarded|"
    r"(?:sent|wrote|says|said|posted|shared)(?: (?:me|us|this|the following))?|"
    r"from (?:the |our |my |their )?[\w -]{0,30}|the (?:doc|spec|ticket|email|page|readme|thread|output|log)s?)"
    r"\s*[:\-—…]*\s*$|:\s*$",
    re.IGNORECASE,
)
_REFERS_BACK = re.compile(
    r"^\s*(?:\^|see above|(?:the |that )?above\b|that's (?:the|what)|this is (?:the|what)|"
    r"thoughts\??|any ideas?\??|wdyt|what do you think)",
    re.IGNORECASE,
)
# The shape of a document somebody else wrote: headings, ticket fields, formal voice.
_DOC_HEADING = re.compile(r"^\s*(?:#{1,6} \S|[A-Z][\w /&-]{2,50}:?\s*$|={3,}\s*$|\*\*[^*]+\*\*:?\s*$)")
_DOC_FIELD = re.compile(
    r"^\s*(?:Priority|Assignee|Reporter|Status|Labels?|Sprint|Epic|Component|Owner|Author|Version|"
    r"Last updated|Created|Due|Type|Severity|Story points|Acceptance criteria|Summary|Description|"
    r"Background|Overview|Goals?|Non-goals|Scope|Motivation|Context|Decision|Consequences|Requirements?|"
    r"Steps to reproduce|Expected|Actual|Environment|Notes?|Proposal|Rationale|Alternatives)\b.{0,60}:",
    re.IGNORECASE,
)
_FORMAL = re.compile(
    r"\b(?:shall|must|should|the system|the service|users?|customers?|the team|is required|are required|"
    r"will be|has been|have been|is responsible|in order to|e\.g\.|i\.e\.|etc\.|per the|pursuant|"
    r"hereby|the following|as follows|the application|the platform|stakeholders?)\b",
    re.IGNORECASE,
)
_LIST_ITEM = re.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)])\s+\S")
_WORD = re.compile(r"[A-Za-z']+")

# A paste run may carry along this many prose lines of its own (a command's output, an error
# message inside a trace) before it ends.
_CARRY = {
    PasteKind.SHELL: 40,
    PasteKind.TRACEBACK: 2,
    PasteKind.LOG: 1,
    PasteKind.CONSOLE: 2,
    PasteKind.CHAT: 40,
}
_MIN_DOCUMENT_CHARS = 240


def _line_kind(line: str) -> PasteKind | None:
    """The paste kind a line's own shape shows, or None for prose (and blank lines)."""
    stripped = line.strip()
    if not stripped:
        return None
    if _CHAT_HEADER.match(line):
        return PasteKind.CHAT
    for kind, pattern in _LINE_KINDS:
        if pattern.match(line):
            return kind
    if _WEAK_CODE.match(line) and not _reads_as_prose(stripped):
        return PasteKind.CODE
    if len(stripped) > 12 and sum(c.isalpha() for c in stripped) / len(stripped) < 0.45:
        return PasteKind.CODE  # mostly symbols and digits: output, hashes, paths
    if line.startswith(("    ", "\t")) and not _LIST_ITEM.match(line):
        return PasteKind.CODE
    return None


def _reads_as_prose(stripped: str) -> bool:
    """A line shaped like code that is a sentence ("Note: we never deploy on Fridays.")."""
    words = _WORD.findall(stripped)
    code_chars = len(_CODE_CHARS.findall(stripped))
    if stripped.endswith(("{", ";", "(", "[", ",", "=")) or "=>" in stripped:
        return False
    return len(words) >= 4 and code_chars <= 1 or len(words) >= 8 and code_chars <= len(words) // 4


def split_pastes(text: str) -> SplitMessage:
    """The person's framing (the message less its pastes, lines joined by newlines) and the pastes."""
    lines = text.split("\n")
    kinds = _line_kinds(lines)
    _absorb_licence(lines, kinds)
    _mark_documents(lines, kinds)
    pastes = _runs(lines, kinds)
    framing = "\n".join(line for line, kind in zip(lines, kinds, strict=True) if kind is None).strip()
    return SplitMessage(framing, tuple(pastes))


def _line_kinds(lines: list[str]) -> list[PasteKind | None]:
    kinds: list[PasteKind | None] = [None] * len(lines)
    fence: str | None = None
    carry_kind: PasteKind | None = None
    carry_left = 0
    for index, line in enumerate(lines):
        opened = _FENCE.match(line)
        if fence is not None:
            kinds[index] = PasteKind.FENCED
            if opened and opened.group(1) == fence:
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            kinds[index] = PasteKind.FENCED
            continue
        kind = _line_kind(line)
        if kind is not None:
            kinds[index] = kind
            if kind in _CARRY:
                carry_kind, carry_left = kind, _CARRY[kind]
            elif carry_kind is not None and kind is not carry_kind:
                carry_left = min(carry_left, 2)
            continue
        if not line.strip():
            # A blank line ends what a prompt or a trace carries along, except inside a chat
            # thread, whose messages are often one paragraph each.
            if carry_kind is not PasteKind.CHAT:
                carry_kind, carry_left = None, 0
            continue
        if carry_kind is not None and carry_left > 0 and not _is_framing(line):
            kinds[index] = carry_kind
            carry_left -= 1
        else:
            carry_kind, carry_left = None, 0
    return kinds


def _is_framing(line: str) -> bool:
    """A prose line that reads as the person speaking to the agent about what they pasted."""
    return bool(_REFERS_BACK.match(line)) or (
        bool(_PERSON_VOICE.search(line))
        and bool(re.search(r"\b(?:you|can you|could you|pls|please|why)\b", line, re.I))
    )


def _absorb_licence(lines: list[str], kinds: list[PasteKind | None]) -> None:
    """A licence text is pasted from its first to its last recognisable paragraph."""
    hits = [i for i, line in enumerate(lines) if _LICENCE.search(line)]
    if not hits:
        return
    start, end = _paragraph_start(lines, hits[0]), _paragraph_end(lines, hits[-1])
    # Its title and copyright line usually stand just above the first hit.
    while start > 0 and lines[start - 1].strip() == "" and start > 1 and _looks_like_title(lines[start - 2]):
        start = _paragraph_start(lines, start - 2)
    for index in range(start, end):
        if lines[index].strip():
            kinds[index] = PasteKind.LICENCE


def _looks_like_title(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and (
        stripped.isupper() or stripped.lower().startswith("copyright") or "License" in stripped
    )


def _paragraph_start(lines: list[str], index: int) -> int:
    while index > 0 and lines[index - 1].strip():
        index -= 1
    return index


def _paragraph_end(lines: list[str], index: int) -> int:
    while index < len(lines) and lines[index].strip():
        index += 1
    return index


@dataclass
class _Paragraph:
    start: int
    end: int
    text: str
    pasted: bool


def _paragraphs(lines: list[str], kinds: list[PasteKind | None]) -> list[_Paragraph]:
    """Blank-line separated groups of lines; `pasted` when every non-blank line already has a kind."""
    out: list[_Paragraph] = []
    index = 0
    while index < len(lines):
        if not lines[index].strip():
            index += 1
            continue
        end = _paragraph_end(lines, index)
        pasted = all(kinds[i] is not None for i in range(index, end))
        out.append(_Paragraph(index, end, "\n".join(lines[index:end]), pasted))
        index = end
    return out


def _document_score(paragraph: _Paragraph, lines: list[str]) -> float:
    """Positive: reads as a document someone else wrote; negative: the person talking."""
    body = lines[paragraph.start : paragraph.end]
    words = max(1, len(_WORD.findall(paragraph.text)))
    score = 0.0
    score += 1.5 * sum(1 for line in body if _DOC_HEADING.match(line) and not _PERSON_VOICE.search(line))
    score += 1.0 * sum(1 for line in body if _DOC_FIELD.match(line))
    score += 6.0 * len(_FORMAL.findall(paragraph.text)) / words * 10
    score -= 8.0 * len(_PERSON_VOICE.findall(paragraph.text)) / words * 10
    if paragraph.text.rstrip().endswith("?"):
        score -= 1.5
    first = paragraph.text.lstrip()[:1]
    if first.islower():
        score -= 1.0
    return score


def _mark_documents(lines: list[str], kinds: list[PasteKind | None]) -> None:
    """Prose paragraphs that are a pasted document: after an introducing line, or written in a
    document's voice, in a message long enough to carry one."""
    total = sum(len(line) for line in lines)
    if total < _MIN_DOCUMENT_CHARS:
        return
    paragraphs = _paragraphs(lines, kinds)
    prose = [p for p in paragraphs if not p.pasted]
    if len(paragraphs) < 2 and sum(1 for line in lines if line.strip()) < 4:
        return
    scores = {id(p): _document_score(p, lines) for p in prose}
    introduced = False
    for number, paragraph in enumerate(paragraphs):
        if paragraph.pasted:
            introduced = False
            continue
        score = scores[id(paragraph)]
        is_last = number == len(paragraphs) - 1
        if introduced and not (_REFERS_BACK.match(paragraph.text) or (is_last and score < -1.0)):
            _mark(kinds, paragraph, PasteKind.DOCUMENT)
            continue
        if score >= 1.5 and len(paragraph.text) >= 80:
            _mark(kinds, paragraph, PasteKind.DOCUMENT)
            continue
        last_line = lines[paragraph.end - 1]
        if _INTRODUCER.search(last_line) and number < len(paragraphs) - 1:
            following = paragraphs[number + 1]
            if not following.pasted and len(following.text) >= 120:
                introduced = True


def _mark(kinds: list[PasteKind | None], paragraph: _Paragraph, kind: PasteKind) -> None:
    for index in range(paragraph.start, paragraph.end):
        if kinds[index] is None:
            kinds[index] = kind


def _runs(lines: list[str], kinds: list[PasteKind | None]) -> list[Paste]:
    """Maximal runs of pasted lines (blank lines between two pasted lines belong to the run)."""
    pastes: list[Paste] = []
    start: int | None = None
    last = -1
    for index, kind in enumerate(kinds):
        if kind is not None:
            if start is None:
                start = index
            last = index
        elif lines[index].strip() and start is not None:
            pastes.append(Paste(_main_kind(kinds[start : last + 1]), start, last + 1))
            start = None
    if start is not None:
        pastes.append(Paste(_main_kind(kinds[start : last + 1]), start, last + 1))
    return pastes


def _main_kind(kinds: list[PasteKind | None]) -> PasteKind:
    counts: dict[PasteKind, int] = {}
    for kind in kinds:
        if kind is not None:
            counts[kind] = counts.get(kind, 0) + 1
    return max(counts, key=lambda k: counts[k])
