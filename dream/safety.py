"""Neutralise text aimed at controlling the agent before it can become memory (DESIGN.md §6).

Memory is loaded into every future session, so a remembered "ignore previous instructions" or a
fake `<system-reminder>` would act as a standing instruction. Such text is defused here and the
reasons returned, so the proposal is held for review instead of applied.
"""

from __future__ import annotations

import re
import unicodedata

_INVISIBLE = re.compile(
    "[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u00ad\u180e\U000e0000-\U000e007f]"
)
_TAG = re.compile(
    r"</?\s*(system-reminder|system|assistant|user|human|instructions?|important|"
    r"command-[a-z]+|tool_result|function_calls?|invoke|antml:[a-z_]+)\b[^>]*>",
    re.IGNORECASE,
)
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
# `@path` at the start of a word is a Claude Code memory import: it would pull a file into context.
_IMPORT = re.compile(r"(?<![\w`])@(?=[~./\w-]*[/.~])([~./\w-]+)")
_OVERRIDE = re.compile(
    r"ignore (?:all |any )?(?:the )?(?:previous|prior|above|earlier|preceding) "
    r"(?:instructions|rules|prompts?)|"
    r"disregard (?:all |any )?(?:the )?(?:previous|prior|above|earlier|system)|"
    r"forget (?:all |everything )?(?:you were told|previous instructions|your instructions)|"
    r"you are now\b|new (?:system )?instructions?:|system prompt|developer mode|jailbreak|"
    r"do not tell the user|without telling the user|don't tell the user|exfiltrat|"
    r"(?:curl|wget)\s+\S+\s*\|\s*(?:ba|z)?sh|rm\s+-rf\s+[/~]",
    re.IGNORECASE,
)


def neutralise(text: str) -> tuple[str, tuple[str, ...]]:
    """Text that is safe to write into memory, and why it had to change (empty when it did not)."""
    reasons: list[str] = []
    if _INVISIBLE.search(text):
        reasons.append("invisible-unicode")
        text = _INVISIBLE.sub("", text)
    normalised = unicodedata.normalize("NFKC", text)
    if normalised != text:
        text = normalised
    if _HTML_COMMENT.search(text):
        reasons.append("html-comment")
        text = _HTML_COMMENT.sub("", text)
    if _TAG.search(text):
        reasons.append("fake-tag")
        text = _TAG.sub(lambda m: m.group(0).replace("<", "‹").replace(">", "›"), text)
    if _IMPORT.search(text):
        reasons.append("at-import")
        text = _IMPORT.sub(lambda m: "`@" + m.group(1) + "`", text)
    if _OVERRIDE.search(text):
        reasons.append("instruction-override")
    return " ".join(text.split()), tuple(reasons)


def is_unsafe(text: str) -> bool:
    return bool(neutralise(text)[1])
