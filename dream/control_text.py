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
    r"</?\s*(system(?:[-_][a-z_]+)?|assistant|user|human|instructions?|important|"
    r"command-[a-z]+|tool_result|function_calls?|invoke|antml:[a-z_]+)\b[^>]*>",
    re.IGNORECASE,
)
# Chat-template role markers and turn fakes: what a model reads as the start of another speaker.
_ROLE = re.compile(
    r"<\|\s*(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id)\s*\|>"
    r"|<(?:start|end)_of_turn>|\[TOOL_CALLS\]|</?function_results>"
    r"|\[/?(?:SYSTEM|INST|SYS)\]\s*:?|<</?SYS>>|^\s*#{1,6}\s*system\s*:|^\s*(?-i:SYSTEM)\s*:"
    r"|^\s*(?:human|assistant)\s*:\s",
    re.IGNORECASE | re.MULTILINE,
)
# Terminal escape sequences (CSI, OSC) and the other C0 controls: they can hide part of a line on a
# terminal (the dry-run diff) while the file holds it whole.
_TERMINAL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]"
    r"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\r(?!\n)"  # a carriage return that overwrites, not a line end
)
# Latin look-alikes from other scripts (Cyrillic, Greek), folded to Latin for matching only.
_CONFUSABLE = str.maketrans(
    "аеорсухіјѕԁɡһкмнтвАЕОРСУХІЈЅКМНТВοαεικνρτυχΟΑΕΙΚΝΡΤΥΧ",
    "aeopcyxijsdghkmhtbAEOPCYXIJSKMHTBoaeiknptyxOAEIKNPTYX",
)
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
# `@path` at the start of a word is a Claude Code memory import: it would pull a file into context.
# A path has a `/`, a `~` or a file extension (`.md`); a sentence's full stop after a Swift or Java
# attribute ("@StateObject.", "@Override.") is not one.
_IMPORT = re.compile(r"(?<![\w`])@(?=[~./\w-]*(?:[/~]|\.\w))([~./\w-]*[\w/~])")
_OVERRIDE = re.compile(
    r"ignore (?:all |any )?(?:of )?(?:the |your |my )?"
    r"(?:previous|prior|above|earlier|preceding|former|system) "
    r"(?:instructions|rules|prompts?|messages|directions|guidelines)|"
    r"(?:disregard|forget|override|bypass) (?:all |any |everything )?(?:of )?(?:the |your )?"
    r"(?:previous|prior|above|earlier|preceding|system|safety|original)?\s?"
    r"(?:instructions|rules|prompts?|guidelines|directions|programming|policies|you were told)|"
    r"forget (?:all |everything )?(?:you were told|previous instructions|your instructions)|"
    r"you are now\b|new (?:system )?instructions?:|your new instructions|"
    r"(?:reveal|print|show|repeat|override|ignore|leak|dump) (?:me )?(?:your |the )?system prompt|"
    r"developer mode (?:enabled|on|activated)|enable developer mode|jailbreak|\bdan mode\b|"
    r"(?:do not|don't|never|not) (?:ever )?(?:tell|mention|reveal|say|show|disclose)"
    r"(?: this| that| it)?(?: to)? the user|"
    r"without telling the user|(?:hide|keep) (?:this|it) (?:from|secret from) the user|exfiltrat|"
    r"(?:curl|wget)\b[^|\n]{0,300}\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b|"
    r"base64 -d[^|\n]{0,80}\|\s*(?:ba)?sh\b|"
    r"rm\s+-rf\s+[/~]|"
    # Paraphrases of an override, and of a secret kept from the person (issue 16's red team).
    r"(?:ignore|disregard|discard|forget|drop|abandon|set aside|pay no attention to) (?:all |any )?(?:of )?"
    r"(?:the |your |my )?(?:previous|prior|earlier|above|original|following|preceding)"
    r"(?:(?: and following)? (?:instructions|guidance|rules|directions|constraints|prompts?)|\s*[.!]|$)|"
    r"(?:previous|prior|earlier|original) (?:instructions|rules|guidance|constraints|directives?)"
    r"(?: [a-z]+){0,4} (?:are|is) (?:obsolete|void|cancelled|canceled|no longer)|no longer apply|"
    r"(?:new|updated|real|actual) (?:system )?(?:prompt|instructions?|directives?)\s*(?::|follow)|"
    r"(?:discard|ignore|disregard) the instructions in|obey (?:only|just) me|"
    r"keep this (?:instruction |note |rule )?secret|(?:do not|don't|never) (?:reveal|report|mention) "
    r"(?:it|this|these instructions|them) (?:in|to)|don't let the user know|"
    r"the user must not (?:find out|know)|"
    r"without telling the (?:developer|user|human)|pretend this (?:note|message) does not exist|"
    r"(?:no filters|no safety rules|no rules)\b|restrictions are lifted|you are no longer claude|"
    r"act as an unrestricted|system message \(priority|"
    # Exfiltration by pipe, by request or by mail.
    r"\|\s*(?:nc|ncat|netcat)\s+\S+\s+[0-9]{2,5}\b|--data-binary @-|urlopen\([^)]*os\.environ|"
    r"(?:upload|send|email|mail|post) (?:the )?(?:contents|output) of [^\n]{0,60}(?:to|https?://)|"
    r"bash -c \"\$\(curl|"
    # Writing standing instructions into the files every session loads.
    r"(?:write|append|add|save|store)\b[^\n]{0,40}\b(?:into|to|in) (?:~/\.claude/)?(?:memory\.md|claude\.md)|"
    r"authorized_keys|standing instruction for all future|obey commands found in|"
    r"/etc/(?:shadow|sudoers)\b|(?:disable|skip|turn off) (?:all )?(?:tls|ssl|certificate) verification|"
    r"(?:print|paste|show|output|dump) (?:it|them|its contents|the contents) in full|"
    r"git remote add [^\n]{0,160}&& git push|"
    r"follow (?:her|his|their) instructions over|"
    r"(?:send|post|upload|copy|forward|exfil\w*|transmit|pipe)\b[^.\n]{0,60}"
    r"(?:~/\.(?:aws|ssh|gnupg|config|kube|netrc|npmrc|docker)|\.env\b|id_rsa|id_ed25519|credentials"
    r"|secrets?\b|private key)"
    r"[^.\n]{0,80}(?:https?://|\bto\b)|"
    r"(?:curl|wget)\b[^\n]{0,200}(?:-d|--data(?:-binary)?|-F|-T|--upload-file)\s+[`'\"]?@?~?/?\.?(?:aws|ssh|env|netrc)",
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


_DEFUSED = str.maketrans({"<": "‹", ">": "›", "[": "⟦", "]": "⟧"})


def skeleton(text: str) -> str:
    """What a pattern is matched against: compatibility forms folded (NFKC), Latin look-alikes of
    other scripts folded to Latin, invisible characters gone, whitespace collapsed, lower case.
    Never written anywhere: the text kept is the neutralised original."""
    if text.isascii():  # the common case: nothing to fold
        return " ".join(_TERMINAL.sub(" ", text).split()).lower()
    folded = unicodedata.normalize("NFKC", text).translate(_CONFUSABLE)
    folded = _INVISIBLE.sub("", _TERMINAL.sub(" ", folded))
    return " ".join(folded.split()).lower()


def _mixed_script(text: str) -> bool:
    """A word that mixes Latin letters with their look-alikes from another script ("іgnore")."""
    if text.isascii():
        return False
    for word in re.findall(r"[^\W\d_]{3,}", text):
        latin = any("a" <= c.lower() <= "z" for c in word)
        if latin and word.translate(_CONFUSABLE) != word:
            return True
    return False


def neutralise(text: str) -> tuple[str, tuple[str, ...]]:
    """Text that is safe to write into memory, and why it had to change (empty when it did not)."""
    reasons: list[str] = []
    if _TERMINAL.search(text):
        reasons.append("terminal-escape")
        text = _TERMINAL.sub(" ", text)
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
    if _mixed_script(text):
        reasons.append("homoglyphs")
    if _HTML_COMMENT.search(text):
        reasons.append("html-comment")
        text = _HTML_COMMENT.sub("", text)
    if _TAG.search(text):
        reasons.append("fake-tag")
        text = _TAG.sub(lambda m: m.group(0).replace("<", "‹").replace(">", "›"), text)
    if _ROLE.search(text):
        reasons.append("role-marker")
        text = _ROLE.sub(
            lambda m: m.group(0).replace("<", "‹").replace(">", "›").replace("[", "⟦").replace("]", "⟧"), text
        )
    if _IMPORT.search(text):
        reasons.append("at-import")
        text = _IMPORT.sub(lambda m: "`@" + m.group(1) + "`", text)
    if _OVERRIDE.search(skeleton(text)):
        reasons.append("instruction-override")
    return " ".join(text.split()), tuple(reasons)
