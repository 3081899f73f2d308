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
import itertools
import re
from dataclasses import dataclass

from dream import regex_cache
from dream.sentences import mostly_symbols


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


_FENCE = regex_cache.compile(r"^\s*(```|~~~)")
# Each pattern is matched at the start of a line. Verbose patterns: `\ ` is a space, `\#` a hash.
_LINE_KINDS: tuple[tuple[PasteKind, re.Pattern[str]], ...] = (
    (
        PasteKind.TRACEBACK,
        regex_cache.compile(
            r"""^\s*(?:Traceback\ \(most\ recent\ call\ last\)|File\ "[^"]+",\ line\ \d+
            |at\ [\w$.<>\[\]/@-]+\ ?\(.*\)\s*$|at\ [\w$.<>/@-]+:\d+|at\ async\ |at\ (?:new\ )?[\w$.]+\ \(
            |goroutine\ \d+\ \[|panic:\ |thread\ '[^']*'\ panicked|Caused\ by:|Exception\ in\ thread
            |\.\.\.\ \d+\ more|\^{3,}\s*$|~{3,}\^|[\w.]+(?:Error|Exception)(?::|$)
            |\w+\.(?:py|go|rs|java|js|ts):\d+|note:\ run\ with\ `RUST_BACKTRACE|\d+:\s+0x[0-9a-f]+
            |During\ handling\ of\ the\ above|(?:error|warning)(?:\[\w+\])?:\ |-->\ \S+:\d+|\d*\ +\|(?:\s|$)
            |=\ (?:note|help):|For\ more\ information\ about\ this\ error
            |[\w./@-]+\.\w+:\d+(?::\d+)?:?\s+(?:error|warning|note|ERROR)|[\w./@-]+:\d+(?::\d+)?$
            |node:internal|Node\.js\ v\d|\[SQL:|\(Background\ on\ this\ error
            |[\w./-]+\.[A-Za-z]\w*\((?:0x|\{0x|\.\.\.)|\S+\.\(\*?\w+\)\.\w+\(|\[signal[ ]
            |Found\ \d+\ errors?\ in|E\s{2,}\S|FAILED\ \S|PASSED\ \S)""",
            re.VERBOSE,
        ),
    ),
    (
        PasteKind.LOG,
        regex_cache.compile(
            r"""^\s*(?:\[?\d{4}-\d\d-\d\d[ T_]\d\d:\d\d|\[?\d\d:\d\d:\d\d(?:[.,]\d+)?\]?\s
            |\[?(?:[A-Z][a-z]{2}\ +\d{1,2}\ \d\d:\d\d:\d\d)|\d{2}/\d{2}/\d{4}\ \d\d:\d\d
            |\[?(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE|FATAL|CRITICAL|NOTICE)\]?[\s:]
            |(?:time|ts|level|lvl)=\S+\s|\{"(?:level|time|ts|timestamp|msg|severity)"
            |npm\ (?:ERR|WARN)|\#\#\[(?:error|warning|group)\]|\#\d+\ \[|\d+\.\d+s\ |Run\ [\w./-]+@
            |[EIW]\d{4}\ \d\d:\d\d|.{0,40}\b\d\d:\d\d:\d\d\b
            |[✓✔✗✘×●○▶►]\ |x\ Build|\[[\w:./-]+\]\ |(?:FAIL|PASS)\ \S
            |(?:Tests|Snapshots|Test\ Suites|Time):\ +\d|={3,}|-{5,}|\d+[smhd]\ +(?:Normal|Warning)[ ]
            |(?:Planning|Execution)\ Time:|->\ +\w|\d+\ (?:passed|failed|errors?|warnings?)\b)""",
            re.VERBOSE,
        ),
    ),
    (
        PasteKind.CONSOLE,
        regex_cache.compile(
            r"^\s*(?:Uncaught\b|VM\d+(?::\d+)?|Failed to load resource|\[(?:HMR|vite|webpack)\]|"
            r"(?:GET|POST|PUT|DELETE|PATCH) https?://\S+ \d{3}|Warning: [A-Z][\w ]+|DevTools|"
            r"[\w.-]+\.(?:js|jsx|tsx|mjs)(?:\?\S*)?:\d+(?::\d+)?\s|Download the React DevTools|"
            r"Access to fetch at|Refused to (?:load|execute|apply)|\[Violation\]|Check the render method of|"
            r"See https?://\S+ for more information|[\w@/-]+ v\d+\.\d+\.\d+ |error during build)"
        ),
    ),
    (
        PasteKind.SHELL,
        regex_cache.compile(
            r"^\s*(?:\$ \S|# (?:apt|yum|dnf|systemctl|cd|ls|cat)\b|"
            r"[\w.-]+@[\w.-]+(?::[^\s$#]*)?\s?[$#%] ?\S|PS [A-Z]:\\[^>]*> ?|C:\\[^>]*> ?\S|"
            r"❯ ?\S|➜ |λ |\(\.?venv[^)]*\) |(?:\w+ )?% \S|>>> |\.\.\. |In \[\d+\]: |Out\[\d+\]: |"
            r"irb\(main\)|iex\(\d+\)>|mysql> |postgres=[#>] |\w+=# |sqlite> |redis[\d.:]*> |"
            r"\S*[\ue0a0-\ue0b3]|> [\w@./-]+@\d|> [a-z][\w-]* [a-z])"
        ),
    ),
    (
        PasteKind.DIFF,
        regex_cache.compile(
            r"^(?:diff --git |index [0-9a-f]{7,}|@@ [-+]\d|--- (?:a/|/dev/null)|\+\+\+ (?:b/|/dev/null)|"
            r"commit [0-9a-f]{7,40}\b|Author: .+<[^>]+>$|Date:\s{2,}\S|Merge: [0-9a-f])"
        ),
    ),
    (
        PasteKind.HTML,
        regex_cache.compile(r"^\s*(?:<(?:!DOCTYPE|!--|/?[a-zA-Z][\w:-]*(?:\s[^<>]*)?/?>)|<\?xml)"),
    ),
    (
        PasteKind.JSON,
        regex_cache.compile(r"""^\s*(?:[{\[]\s*$|"[^"\n]+"\s*:\s*[\[{"\d\-tfn]|[}\]],?\s*$|\{"\w+":)"""),
    ),
    (
        PasteKind.TABLE,
        regex_cache.compile(
            r"^\s*(?:\|.*\|\s*$|[-+|: =]{6,}$|\S+(?:\t[^\t]*){2,}$|\(\d+ rows?\)$|"
            r"[^\s,]+(?:,[^\s,]*){2,}$|\S+(?: {2,}\S+){3,}|[^|\n]+(?:\s\|\s[^|\n]+){2,}$)"
        ),
    ),
    (
        PasteKind.CODE,
        regex_cache.compile(
            r"""^\s*(?:(?:async\ )?def\ \w+\(|class\ \w+[(:\s{]|import\ [\w.{*(]|from\ [\w.]+\ import[ ]
            |(?:export\ )?(?:default\ )?(?:async\ )?function\b|(?:export\ )?(?:const|let|var)\ [\w{\[]+\s*[=:]
            |export\ (?:default|type|interface)|interface\ \w+\ ?\{|type\ \w+\ =|package\ [\w.]+;?$
            |func\ [\w(]|(?:public|private|protected)\ (?:static\ )?\w+|\#include|\#!/|@\w+(?:\(.*\))?\s*$
            |return\ .*;$|if\ ?\(.*\)\s*\{?$|for\ ?\(|while\ ?\(|\}\s*(?:else|catch)
            |(?:SELECT|INSERT\ INTO|UPDATE\ \w+\ SET|DELETE\ FROM|CREATE\ (?:TABLE|INDEX|UNIQUE)|ALTER\ TABLE
            |WHERE|FROM\ \w+|(?:LEFT\ |INNER\ )?JOIN|GROUP\ BY|ORDER\ BY|AND|OR|LIMIT|HAVING|VALUES)\b
            |FROM\ [\w./:-]+(?:\ AS\ \w+)?$|(?:RUN|COPY|ENV|WORKDIR|EXPOSE|CMD|ENTRYPOINT)\ \S
            |[)}\];]+,?;?\s*$|//\ |/\*|\*/|\*\ @|<\w+\ [^>]*/>)""",
            re.VERBOSE,
        ),
    ),
)
# Lines that look like code only by their punctuation: an assignment, a `key: value`, a call, a
# line ending in `{` or `;`. A sentence can look like that too ("Note: we never deploy on Fridays").
_WEAK_CODE = regex_cache.compile(
    r"""^\s*(?:[\w.\[\]"']+\s*(?:=|\+=|:=|->)\s*\S|[a-z_][\w.-]*:(?:\s+\S|\s*$)|-\ [\w-]+:\ |.*[{;]\s*$
    |[\w.]+\(.*\);?,?\s*$)""",
    re.VERBOSE,
)
_CODE_CHARS = regex_cache.compile(r"[(){}\[\];=<>`$|\\]")
_CHAT_HEADER = regex_cache.compile(
    r"^\s*(?:[A-Z][\w.'-]+(?: [A-Z][\w.'-]+){0,2}\s{1,4}(?:\d{1,2}:\d\d(?: ?[AaPp]\.?[Mm]\.?)?|"
    r"\[\d{1,2}:\d\d(?: ?[AP]M)?\]|Today at|Yesterday at)\s*$|"
    r"\[\d{1,2}:\d\d(?::\d\d)?(?: ?[AP]M)?\]\s*[\w.@ -]{1,30}:.*|"
    r"<[\w.@-]{1,30}>\s.*|[\w .'-]{1,30} — (?:\d{1,2}/\d{1,2}/\d{2,4}|(?:Today|Yesterday) at \d).*|"
    r"On .{6,80} wrote:\s*|-{3,} ?(?:Original Message|Forwarded message) ?-{3,}|"
    r"(?:From|Sent|To|Cc|Subject|Date): .+|>.*)$"
)
_LICENCE = regex_cache.compile(
    r"Permission is hereby granted|THE SOFTWARE IS PROVIDED|Licensed under the Apache License|"
    r"GNU (?:LESSER |AFFERO )?GENERAL PUBLIC LICENSE|Redistribution and use in source and binary|"
    r"MERCHANTABILITY|WITHOUT WARRANTIES OR CONDITIONS|SPDX-License-Identifier|Mozilla Public License|"
    r"under the terms of the GNU|This program is free software|TERMS AND CONDITIONS FOR USE|"
    r"\"Licensor\" shall mean|\"Licen[cs]e\" shall mean|Conveying (?:Modified|Non-Source|Verbatim)",
    re.IGNORECASE,
)
# The person talking to the agent, in the languages seen in real homes: the first person singular,
# requests, questions and chat words. ("we" and "our" are not here: documents use them too.)
_PERSON_VOICE = regex_cache.compile(
    r"(?:\b(?:I|I'm|I've|I'd|I'll|i|im|ive|me|my|mine|can you|could you|would you|do you|pls|plz|please|"
    r"thanks|thx|lol|btw|fwiw|tbh|imo|idk|lmk|wdyt|hmm|ok|okay|yeah|yep|nope|ugh|"
    r"ich|mir|mich|mein|meine|du|dir|dich|bitte|kannst|könntest|danke|möchte|"
    r"je|j'ai|moi|mon|ma|tu|peux|pouvez|merci|voudrais|"
    r"yo|mi|puedes|podrías|gracias|quiero|prefiero|necesito|"
    r"eu|você|voce|pode|obrigad[oa]|quero|preciso|prefiro)\b|\?|¿)",
    re.IGNORECASE,
)
_PASTE_INTRODUCER = regex_cache.compile(
    r"(?:here(?:'s| is| are)|below|pasted?|pasting|copied|copy of|attached|forwarding|forwarded|"
    r"(?:sent|wrote|says|said|posted|shared|prints?|printed|gives?|shows?|spits out|outputs?|logged|"
    r"returns?|got|get|getting|see|seeing)(?: (?:me|us|this|that|the following|it|back))?|"
    r"(?:the|this|that|our|their|his|her|my) (?:doc|spec|ticket|email|mail|page|readme|thread|output|log|"
    r"error|trace|section|message|diff|config|template|policy|guide|rules|notes|version|request|response)s?\b.*|"
    r"from (?:the |our |my |their |product|support|security|legal)[\w -]{0,40})\s*[:\-—…]+\s*$",
    re.IGNORECASE,
)
# What the person calls the thing they paste; with a colon, or with "from …", "below", "pasted",
# the paragraph introduces one ("Spec from product for the saved-filters feature. Read it first:").
_DOC_NOUNS = (
    r"spec|specs|doc|docs|document|design|ticket|issue|bug report|e-?mail|mail|message|thread|page|readme|"
    r"notes|text|description|comment|review|policy|guide|guidelines|rules|checklist|postmortem|post-mortem|"
    r"adr|rfc|wiki|notion|confluence|jira|slack|changelog|release notes|section|template|proposal|brief|"
    r"requirements|prd|runbook|minutes|announcement|memo|writeup|write-up|summary|feedback|complaint|"
    r"bit|part|excerpt|snippet|paragraph|passage|[A-Z][A-Z_-]{2,}\.md"
)
_DOC_NOUN = regex_cache.compile(rf"\b(?:{_DOC_NOUNS})\b", re.IGNORECASE)
_INTRODUCES = regex_cache.compile(
    r"(?::\s*$|(?i:\b(?:below|pasted|pasting|copied|forwarded|forwarding|attached|here(?:'s| is| are)|"
    r"this is (?:from|the|our|their)|sent (?:me|us|this|over)|wrote(?: up)?|posted|left)\b)|"
    rf"(?i:\bfrom (?:the |our |their |my |his |her )?(?:[\w-]+ ){{0,2}}(?:{_DOC_NOUNS})\b)|"
    r"\bfrom (?:[A-Z][\w-]+|(?i:product|support|security|legal|finance|ops|infra|the client|a customer))\b)",
)
# The person pointing back at what they just pasted: "^ that's Marek's review", "the above is …".
_POINTS_BACK = regex_cache.compile(
    r"^\s*(?:\^|(?:that|this)(?:'s| is| was) (?!all\b|it\b|fine\b|ok\b|good\b|wrong\b|right\b)[\w' -]{0,30}"
    r"\b(?:from|what|how|the|our|their|his|her|[A-Z][\w-]*'s)\b|the above|above is|see above)",
    re.IGNORECASE,
)
# Verbs that say what follows was written by someone else, with or without naming it.
_HANDED_OVER = regex_cache.compile(
    r"\b(?:pasted|pasting|copied|copy-pasted|forwarded|forwarding|published|circulated|came in|sent over|"
    r"sent (?:me|us) (?:this|these|the following))\b",
    re.IGNORECASE,
)
_REFERS_BACK = regex_cache.compile(
    r"^\s*(?:\^|see above|(?:the |that )?above\b|that's (?:the|what)|this is (?:the|what)|"
    r"thoughts\??|any ideas?\??|wdyt|what do you think|based on (?:this|that|the)|per (?:this|that|the))",
    re.IGNORECASE,
)
# The shape of a document somebody else wrote: headings, numbered clauses, ticket and e-mail
# fields, a greeting and a sign-off, formal vocabulary, lines wrapped at a fixed width.
_MD_HEADING = regex_cache.compile(r"^\s*(?:#{1,6} \S|={3,}\s*$|-{3,}\s*$|\*\*[^*\n]{2,60}\*\*:?\s*$)")
_CLAUSE = regex_cache.compile(r"^\s*(?:§\s*)?\d+(?:\.\d+)+\.?\s+\S")
_DOC_FIELD = regex_cache.compile(
    r"^\s*\**(?:Priority|Assignee|Reporter|Status|Labels?|Sprint|Epic|Component|Owner|Author|Version|"
    r"Last (?:updated|reviewed|edited)|Created|Due|Severity|Story points|Attendees|Applies to|Effective|"
    r"Target release|Engineering|Product|Reviewers?|Approvers?|Date|Audience|Scope|Ticket|Fix version)\b"
    r"[^:\n]{0,20}:",
    re.IGNORECASE,
)
_TICKET_TITLE = regex_cache.compile(r"^\s*[A-Z][A-Z0-9]{1,9}-\d+\b[:\s]")
_GREETING = regex_cache.compile(
    r"^\s*(?:(?i:Hi|Hello|Hey|Dear|Good (?:morning|afternoon|evening)|Hallo|Hola|Bonjour|Olá|Oi)\b"
    r"[^.!?\n]{0,40}|Team|All|Folks|Everyone|[A-Z][a-z]+(?: [A-Z][a-z]+)?),\s*$",
)
_SIGN_OFF = regex_cache.compile(
    r"^\s*(?:Thanks|Thank you|Many thanks|Thanks again|Best|Best regards|Kind regards|Warm regards|Regards|"
    r"Cheers|Sincerely|Viele Grüße|Beste Grüße|Saludos|Un saludo|Cordialement|Abraços|Atenciosamente)"
    r"(?: all| everyone)?[,!.]?\s*$",
    re.IGNORECASE,
)
_FORMAL = regex_cache.compile(
    r"\b(?:shall|must|should|the system|the service|users|customers|the team|is required|are required|"
    r"will be|has been|have been|is responsible|in order to|e\.g\.|i\.e\.|etc\.|per the|pursuant|"
    r"hereby|the following|as follows|the application|the platform|stakeholders?|is not allowed|"
    r"are not allowed|may not|is defined|this (?:document|standard|page|policy|section|runbook))\b",
    re.IGNORECASE,
)
_LIST_ITEM = regex_cache.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)]|\[[ xX]\])\s+\S")
_WORD = regex_cache.compile(r"[^\W\d_][\w'-]*")
_STOPWORDS = frozenset(
    ("the", "a", "an", "to", "of", "in", "on", "for", "and", "or", "is", "are", "be", "it", "this", "that",
     "we", "you", "not", "never", "always", "use", "do", "don't", "with", "as", "at", "by", "from", "if",
     "so", "but", "our", "when", "all", "any", "no")
)  # fmt: skip

# Kinds whose line starts a run that carries the lines after it (a command's output, a chat
# message under its header, a diff's lines) until a blank line or the person speaking.
_CARRIES = frozenset({PasteKind.SHELL, PasteKind.CHAT, PasteKind.DIFF})
_DIFF_LINE = regex_cache.compile(r"^(?:[+\- \\]|$)")
_MIN_DOCUMENT_CHARS = 200


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
    if mostly_symbols(stripped):
        return PasteKind.CODE  # output, hashes, paths
    if line.startswith(("    ", "\t")) and not _LIST_ITEM.match(line) and not _reads_as_prose(stripped):
        return PasteKind.CODE
    return None


def _reads_as_prose(stripped: str) -> bool:
    """A line shaped like code that is a sentence ("Note: we never deploy on Fridays.")."""
    if stripped.endswith(("{", ";", "(", "[", ",", "=")) or "=>" in stripped:
        return False
    words = _WORD.findall(stripped)
    common = sum(1 for w in words if w.lower() in _STOPWORDS)
    code_chars = len(_CODE_CHARS.findall(stripped))
    return len(words) >= 4 and common >= 2 and code_chars <= 1 + len(words) // 6


def _person_speaks(line: str) -> bool:
    """A prose line in the person's own voice (what ends a command's output or a paste)."""
    return bool(_PERSON_VOICE.search(line)) or bool(_REFERS_BACK.match(line))


def split_pastes(text: str) -> SplitMessage:
    """The person's framing (the message less its pastes, lines joined by newlines) and the pastes."""
    lines = text.split("\n")
    kinds = _line_kinds(lines)
    _absorb_licence(lines, kinds)
    _mark_emails(lines, kinds)
    _mark_documents(lines, kinds)
    pastes = _runs(lines, kinds)
    kept = [line for line, kind in zip(lines, kinds, strict=True) if kind is None]
    # Where a paste was cut out, the blank lines around it fold into one.
    framing = "\n".join(line for i, line in enumerate(kept) if line.strip() or (i and kept[i - 1].strip()))
    return SplitMessage(framing.strip(), tuple(pastes))


def _line_kinds(lines: list[str]) -> list[PasteKind | None]:
    kinds: list[PasteKind | None] = [None] * len(lines)
    fence: str | None = None
    carry: PasteKind | None = None
    last_header = -1
    carried: list[int] = []
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
        if carry is PasteKind.DIFF and _DIFF_LINE.match(line) and line.strip():
            kinds[index] = PasteKind.DIFF
            continue
        kind = _line_kind(line)
        if kind is not None:
            kinds[index] = kind
            carry = _carry_after(kind, line, carry)
            if kind is PasteKind.CHAT and carry is PasteKind.CHAT:
                last_header = index
            continue
        if not line.strip():
            # A blank line ends a command's output, not a chat thread: its messages are often
            # a paragraph each.
            if carry is not PasteKind.CHAT:
                carry = None
            continue
        if carry is PasteKind.CHAT:
            kinds[index] = PasteKind.CHAT
            carried.append(index)
        elif carry is PasteKind.SHELL and not _person_speaks(line):
            kinds[index] = PasteKind.SHELL
        else:
            carry = None
    # A chat thread ends with the paragraph of its last message.
    end = _paragraph_end(lines, last_header) if last_header >= 0 else 0
    for index in carried:
        if index >= end:
            kinds[index] = None
    return kinds


def _carry_after(kind: PasteKind, line: str, carry: PasteKind | None) -> PasteKind | None:
    """What a pasted line carries on to the lines after it. A quoted line ("> …") is quoted by its
    own mark: the line after a quote block without one is the person answering it."""
    if kind is PasteKind.CHAT and line.lstrip().startswith(">"):
        return None
    return kind if kind in _CARRIES else carry


def _absorb_licence(lines: list[str], kinds: list[PasteKind | None]) -> None:
    """A licence text is pasted from its first to its last recognisable paragraph."""
    hits = [i for i, line in enumerate(lines) if _LICENCE.search(line)]
    if not hits:
        return
    start, end = _paragraph_start(lines, hits[0]), _paragraph_end(lines, hits[-1])
    # Its title and copyright line usually stand just above the first hit.
    while start > 1 and lines[start - 1].strip() == "" and _looks_like_title(lines[start - 2]):
        start = _paragraph_start(lines, start - 2)
    # Numbered sections between two hits are part of it; what follows the last hit is too when it
    # does not read as the person.
    while end < len(lines):
        following = _next_paragraph(lines, end)
        if following is None or _person_voice(lines[following[0] : following[1]]) > 0:
            break
        if not any(
            _LICENCE.search(line) or _CLAUSE.match(line) for line in lines[following[0] : following[1]]
        ):
            break
        end = following[1]
    for index in range(start, end):
        if lines[index].strip():
            kinds[index] = PasteKind.LICENCE


def _looks_like_title(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and (
        stripped.isupper() or stripped.lower().startswith("copyright") or "Licen" in stripped
    )


def _paragraph_start(lines: list[str], index: int) -> int:
    while index > 0 and lines[index - 1].strip():
        index -= 1
    return index


def _paragraph_end(lines: list[str], index: int) -> int:
    while index < len(lines) and lines[index].strip():
        index += 1
    return index


def _next_paragraph(lines: list[str], index: int) -> tuple[int, int] | None:
    while index < len(lines) and not lines[index].strip():
        index += 1
    if index >= len(lines):
        return None
    return index, _paragraph_end(lines, index)


def _mark_emails(lines: list[str], kinds: list[PasteKind | None]) -> None:
    """A pasted e-mail: from its greeting (or the paragraphs above its sign-off, back to the
    person's own introduction) to its sign-off and signature."""
    done = -1
    for end, line in enumerate(lines):
        if end <= done or kinds[end] is not None or not _SIGN_OFF.match(line):
            continue
        start = _email_start(lines, kinds, end)
        if start is None:
            continue
        # The signature: the name and title lines right under the sign-off.
        stop = end + 1
        while stop < len(lines) and stop <= end + 3 and lines[stop].strip() and len(lines[stop]) < 80:
            stop += 1
        for index in range(start, stop):
            if lines[index].strip() and kinds[index] is None:
                kinds[index] = PasteKind.DOCUMENT
        done = stop


def _email_start(lines: list[str], kinds: list[PasteKind | None], sign_off: int) -> int | None:
    """Where the e-mail that ends at `sign_off` begins: its greeting, else the paragraph after the
    person's introduction (a line ending in ':' or naming the paste, or typed lowercase)."""
    for index in range(sign_off - 1, max(-1, sign_off - 200), -1):
        if kinds[index] is None and _GREETING.match(lines[index]):
            return index
    start = sign_off
    paragraphs = 0
    while start > 0 and paragraphs < 6:
        top = _paragraph_start(lines, start - 1) if lines[start - 1].strip() else start - 1
        if not lines[start - 1].strip():
            start -= 1
            continue
        body = lines[top:start]
        if any(kinds[top + i] is not None for i in range(len(body))) and top < start - 1:
            break
        first = body[0].strip()
        if (
            first[:1].islower()
            or _PASTE_INTRODUCER.search(body[-1])
            or (_DOC_NOUN.search(" ".join(body)) and _INTRODUCES.search(" ".join(body)))
        ):
            break
        start = top
        paragraphs += 1
    return start if start < sign_off else None


@dataclass
class _Paragraph:
    start: int
    end: int
    lines: list[str]
    # Every non-blank line already has a paste kind.
    pasted: bool
    person: float
    structure: float


# "As a finance user, I can …": the formula of a user story, not the person speaking.
_USER_STORY = regex_cache.compile(
    r"^\s*(?:[-*]|\d+[.)])?\s*As an? [\w -]{2,40}, I (?:can|want|need|should|must|am able)\b"
)


def _person_voice(lines: list[str]) -> float:
    lines = [line for line in lines if not _USER_STORY.match(line)]
    text = " ".join(lines)
    score = float(len(_PERSON_VOICE.findall(text)))
    # A lowercase start is how people type to an agent, not how documents begin (a wrapped
    # document's later lines start lowercase too: only the first line counts).
    if lines and lines[0][:1].islower():
        score += 0.5
    return score


def _structure(lines: list[str]) -> float:
    """How much a paragraph is shaped like a document (0 for plain prose)."""
    score = 0.0
    for number, line in enumerate(lines):
        stripped = line.strip()
        if _MD_HEADING.match(line):
            score += 2.0
        elif (
            _USER_STORY.match(line)
            or _CLAUSE.match(line)
            or _DOC_FIELD.match(line)
            or _TICKET_TITLE.match(line)
        ):
            score += 1.0
        elif number == 0 and _is_title(stripped):
            score += 0.75
    if len(lines) > 1 and _is_title(lines[0].strip()):
        score += 1.25  # a titled section: "What went well" over its bullets or its sentences
    # Prose hard-wrapped at a fixed width (an RFC, a licence, a man page, an e-mail): people do not
    # wrap what they type into a chat box.
    wrapped = sum(
        2 if here.startswith("  ") else 1
        for here, there in itertools.pairwise(lines)
        if 50 <= len(here.rstrip()) <= 82
        and here.rstrip()[-1:] not in ".:!?"
        and there.strip()
        and not _LIST_ITEM.match(there)
    )
    if wrapped >= 2:
        score += 2.0
    text = " ".join(lines)
    words = max(1, len(_WORD.findall(text)))
    score += min(2.0, 12.0 * len(_FORMAL.findall(text)) / words)
    return score


def _is_title(stripped: str) -> bool:
    """A short heading line of a document: capitalised, no sentence end, not a question."""
    words = stripped.split()
    return (
        0 < len(words) <= 8
        and stripped[0].isupper()
        and stripped[-1] not in ".?!:,;"
        and not _LIST_ITEM.match(stripped)
        and not _PERSON_VOICE.search(stripped)
    )


def _paragraphs(lines: list[str], kinds: list[PasteKind | None]) -> list[_Paragraph]:
    out: list[_Paragraph] = []
    index = 0
    while index < len(lines):
        if not lines[index].strip():
            index += 1
            continue
        end = _paragraph_end(lines, index)
        body = lines[index:end]
        pasted = all(kinds[i] is not None for i in range(index, end))
        prose = [line for i, line in enumerate(body) if kinds[index + i] is None]
        out.append(_Paragraph(index, end, body, pasted, _person_voice(prose), _structure(prose)))
        index = end
    return out


def _mark_documents(lines: list[str], kinds: list[PasteKind | None]) -> None:
    """Prose paragraphs that are a pasted document.

    A document is anchored by its shape (headings, clauses, fields, wrapped lines, formal voice)
    or by the person introducing it ("here's the spec:") and then holds the paragraphs around the
    anchor that do not read as the person; the person's framing before and after stays theirs.
    """
    if sum(len(line) for line in lines) < _MIN_DOCUMENT_CHARS:
        return
    paragraphs = _paragraphs(lines, kinds)
    if len(paragraphs) < 2 and len(lines) < 4:
        return
    doc = [False] * len(paragraphs)
    _mark_pointed_back(paragraphs, doc)
    _mark_anchors(paragraphs, doc)
    if not any(doc):
        return
    _grow(paragraphs, doc)
    _keep_interleaved_voice(paragraphs, doc)
    for flag, paragraph in zip(doc, paragraphs, strict=True):
        if flag:
            for index in range(paragraph.start, paragraph.end):
                if kinds[index] is None:
                    kinds[index] = PasteKind.DOCUMENT


def _mark_anchors(paragraphs: list[_Paragraph], doc: list[bool]) -> None:
    """Paragraphs shaped like a document, or introduced as one by the person."""
    for number, paragraph in enumerate(paragraphs):
        if paragraph.pasted or paragraph.person > 0:
            continue
        introduced = number > 0 and _introduces(paragraphs[number - 1])
        long_enough = sum(len(line) for line in paragraph.lines) >= 40 or _is_title(
            paragraph.lines[0].strip()
        )
        if paragraph.structure >= 1.5 or (introduced and long_enough):
            doc[number] = True


def _grow(paragraphs: list[_Paragraph], doc: list[bool]) -> None:
    """Grow each document over its neighbours that read as nobody in particular, both ways."""
    for number in range(len(paragraphs)):
        if doc[number]:
            continue
        before = number > 0 and doc[number - 1]
        after = any(doc[number + 1 : number + 2])
        if (before or after) and _quiet(paragraphs[number], paragraphs, number):
            doc[number] = True
    for number in range(len(paragraphs) - 1, -1, -1):
        if (
            not doc[number]
            and any(doc[number + 1 : number + 2])
            and _quiet(paragraphs[number], paragraphs, number)
        ):
            doc[number] = True


def _mark_pointed_back(paragraphs: list[_Paragraph], doc: list[bool]) -> None:
    """Paragraphs above a "^ that's the review" line are what it points at, back to the person's
    introduction or their own voice."""
    for number, paragraph in enumerate(paragraphs):
        if paragraph.pasted or not _POINTS_BACK.match(paragraph.lines[0]):
            continue
        back = number - 1
        while back >= 0 and not paragraphs[back].pasted:
            above = paragraphs[back]
            if above.person >= 2 or _introduces(above) or doc[back]:
                break
            doc[back] = True
            back -= 1


def _keep_interleaved_voice(paragraphs: list[_Paragraph], doc: list[bool]) -> None:
    """A person writing their own structured note talks between its headings ("I'll write down how
    I want this to go"); a pasted document does not. Where the person's voice stands between two
    document paragraphs (and introduces nothing), the structure is theirs: unmark that stretch."""
    marked = [i for i, flag in enumerate(doc) if flag]
    if len(marked) < 2:
        return
    first, last = marked[0], marked[-1]
    between = [
        i
        for i in range(first + 1, last)
        if not doc[i]
        and paragraphs[i].person >= 2
        and not paragraphs[i].pasted
        and not _introduces(paragraphs[i])
    ]
    if between:
        for i in range(first, last + 1):
            doc[i] = False


def _introduces(paragraph: _Paragraph) -> bool:
    """The person's paragraph announces a pasted document right after it."""
    if paragraph.pasted:
        return False
    last = paragraph.lines[-1]
    if _PASTE_INTRODUCER.search(last):
        return True
    text = " ".join(paragraph.lines)
    if _HANDED_OVER.search(text) and not _LIST_ITEM.match(paragraph.lines[0]):
        return True
    return bool(_DOC_NOUN.search(text)) and bool(_INTRODUCES.search(text))


def _quiet(paragraph: _Paragraph, paragraphs: list[_Paragraph], number: int) -> bool:
    """A paragraph a document may take in: not the person's voice, not an introduction of what
    follows, not a reference back to it, and not the message's first line of prose."""
    if paragraph.pasted:
        return True
    if paragraph.person > 0 or _REFERS_BACK.match(paragraph.lines[0]):
        return False
    if _introduces(paragraph):
        return False
    if number == 0 and paragraph.structure < 0.5 and len(paragraphs) > 1:
        return False
    # A short plain paragraph that ends the message is the person's closing word more often than
    # the document's last line.
    last = number == len(paragraphs) - 1
    return not (last and paragraph.structure < 0.5 and sum(len(line) for line in paragraph.lines) <= 300)


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
