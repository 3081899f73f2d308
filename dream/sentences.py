"""Split a user message into the sentences that may carry a signal.

What is not the person's own prose is removed first: fenced and indented code, quoted lines,
pasted logs, stack traces, diffs and JSON. Quoted spans inside a sentence are replaced by a
placeholder so that a rule someone else wrote ("the README says 'never use sudo'") does not read
as the user's rule.
"""

from __future__ import annotations

import re

from dream import regex_cache

_FENCE = regex_cache.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.DOTALL)
_LOG_LINE = regex_cache.compile(
    r"""^\s*(?:
        at\s+[\w$.<>]+\s*\( | File\s+"[^"]+",\s+line\s+\d+ | Traceback\b | \w*(?:Error|Exception)\b[:\s]
      | (?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE|FATAL|CRITICAL)\b | \[\s*(?:\d|ERROR|WARN|INFO|DEBUG)
      | \d{4}-\d\d-\d\d[ T]\d\d:\d\d | \d\d:\d\d:\d\d | \$\s | >>>\s | npm\s+(?:ERR|WARN) | E\s{2,}
      | (?:FAILED|PASSED|ERROR)\s | ={3,} | -{3,} | \+{3}\s | @@\s | diff\s--git | index\s[0-9a-f]{7}
      | [+-]\s{0,3}[\w{}()\[\];"'<>/.=-]+.*[;{}()]\s*$ | [{}\[\]][\s,]*$ | "[\w-]+"\s*:\s
      | \d+\s+(?:passed|failed|errors?)\b | \#\s*\d+\s | \|.*\|\s*$
    )""",
    re.VERBOSE,
)
_QUOTE_LINE = regex_cache.compile(r"^\s*>")
_INDENTED_CODE = regex_cache.compile(r"^(?: {4}|\t)\S")
_INLINE_QUOTE = regex_cache.compile(
    r"\"[^\"\n]{3,}\"|“[^”\n]{3,}”|(?<![\w])'[^'\n]{6,}'(?![\w])|«[^»\n]{3,}»"
)
_INLINE_CODE = regex_cache.compile(r"`[^`\n]+`")
_SENTENCE_END = regex_cache.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])|\n+|\s+[—–]\s+|;\s+")
QUOTE_PLACEHOLDER = "«quote»"


_ASCII_LETTERS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _letter_count(text: str) -> int:
    # Pasted logs make this the hot loop of a cold gather: bytes.translate counts ASCII letters
    # in C, thirty times faster than a generator over the characters.
    if text.isascii():
        data = text.encode("ascii")
        return len(data) - len(data.translate(None, _ASCII_LETTERS))
    return sum(map(str.isalpha, text))


def _is_noise_line(line: str) -> bool:
    stripped = line.strip()
    if not stripped:
        return True
    if _QUOTE_LINE.match(line) or _INDENTED_CODE.match(line) or _LOG_LINE.match(line):
        return True
    return mostly_symbols(stripped)


def mostly_symbols(stripped: str) -> bool:
    """Mostly symbols and digits: a path list, a hash, a table row, output of a command."""
    return len(stripped) > 12 and _letter_count(stripped) / len(stripped) < 0.45


def prose_lines(text: str) -> list[str]:
    """The lines of a message that are the person's prose."""
    text = _FENCE.sub("\n", text)
    return [line for line in text.splitlines() if not _is_noise_line(line)]


def split_sentences(text: str) -> list[str]:
    """Sentences of the prose, each stripped, with quoted spans replaced by a placeholder."""
    sentences: list[str] = []
    for line in prose_lines(text):
        line = _INLINE_QUOTE.sub(QUOTE_PLACEHOLDER, line)
        for part in _SENTENCE_END.split(line):
            part = part.strip(" \t-*•")
            if len(part) >= 2 and any(ch.isalpha() for ch in part):
                sentences.append(part)
    return sentences


def strip_inline_code(text: str) -> str:
    return _INLINE_CODE.sub(lambda m: m.group(0)[1:-1], text)
