"""Neutralise text aimed at controlling the agent before it can become memory (DESIGN.md §6).

Memory is loaded into every future session, so a remembered "ignore previous instructions" or a
fake `<system-reminder>` would act as a standing instruction. Such text is defused here and the
reasons returned, so the proposal is held for review instead of applied.
"""

from __future__ import annotations

import re
import unicodedata

# Characters that render as nothing (Unicode's Default_Ignorable_Code_Point and the format controls):
# zero-width spaces and joiners, bidi controls that reorder what a person reads (U+061C included), soft
# hyphen, Hangul fillers, interlinear annotation anchors, and the tag characters (U+E0000 block) that
# carry hidden ASCII. Nothing legitimate in a memory needs them.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    "\u3164\ufeff\uffa0\ufff0-\ufffb\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e00ff\U000e01f0-\U000e0fff]"
)
# Variation selectors: one right after an emoji or an ideograph picks its glyph (❤️, 葛󠄀); a run of them,
# or one after plain ASCII, is data hidden in plain sight ("emoji smuggling").
_SELECTOR = re.compile("[\u180b-\u180d\u180f\ufe00-\ufe0f\U000e0100-\U000e01ef]")
_TAG = re.compile(
    r"</?\s*(system[-_]?reminder|system|assistant|user|human|instructions?|important|"
    r"command-[a-z]+|tool_result|function_calls?|invoke|antml:[a-z_]+)\b[^>]*>",
    re.IGNORECASE,
)
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
# `@path` at the start of a word is a Claude Code memory import: it would pull a file into context.
# A path has a `/`, a `~` or a file extension (`.md`); a sentence's full stop after a Swift or Java
# attribute ("@StateObject.", "@Override.") is not one.
_IMPORT = re.compile(r"(?<![\w`])@(?=[~./\w-]*(?:[/~]|\.\w))([~./\w-]*[\w/~])")
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


def _stray_selectors(text: str) -> tuple[str, bool]:
    """Text without the variation selectors that select no glyph; whether there were any."""
    out: list[str] = []
    stray = False
    previous = ""
    for char in text:
        if _SELECTOR.fullmatch(char):
            if (
                previous
                and not previous.isascii()
                and not previous.isspace()
                and not _SELECTOR.fullmatch(previous)
            ):
                out.append(char)
            else:
                stray = True
        else:
            out.append(char)
        previous = char
    return "".join(out), stray


def neutralise(text: str) -> tuple[str, tuple[str, ...]]:
    """Text that is safe to write into memory, and why it had to change (empty when it did not)."""
    reasons: list[str] = []
    invisible = False
    if _INVISIBLE.search(text):
        invisible = True
        text = _INVISIBLE.sub("", text)
    if _SELECTOR.search(text):
        text, stray = _stray_selectors(text)
        invisible = invisible or stray
    normalised = unicodedata.normalize("NFKC", text)
    if normalised != text:
        text = normalised
        if _INVISIBLE.search(text):  # a compatibility form of an invisible character (U+3164)
            invisible = True
            text = _INVISIBLE.sub("", text)
    if invisible:
        reasons.append("invisible-unicode")
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
