"""From a message to rules (DESIGN.md §5, "what an entry is").

The candidate is the person's whole message (already without pastes), not a sentence cut from
it. The sentences the model scores as rules are kept together with what gives them meaning: the
sentence before a "them" / "there" / "Every time.", the reason after a "because", the other
clause of a sentence the splitter cut at a dash or a semicolon, a second sentence that speaks of
the same tool. Each group is then rewritten deterministically into one standalone rule: filler
and discourse go ("ok", "tbh", "fwiw", "oh and", "pls", emoji), the person's voice becomes a
rule ("I'd rather you didn't X" → "Don't X"), and the person's terms (names, versions, paths,
commands) stay exactly as they wrote them. A group that cannot stand alone is dropped, not stored.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from functools import lru_cache

from dream import defaults, regex_cache
from dream.sentences import QUOTE_PLACEHOLDER, prose_lines
from dream.statement import KEY_TERM as _KEY
from dream.statement import (
    STOPWORDS,
    content_terms,
    is_complaint,
    is_key_term,
    key_terms,
    names_something,
    says_gone,
)

# As `sentences`' quoted spans, except after "=": in precision='bf16-mixed' the quote is a value the
# person set, and the model should read it.
_INLINE_QUOTE = regex_cache.compile(
    r"\"[^\"\n]{3,}\"|“[^”\n]{3,}”|(?<![\w=])'[^'\n]{6,}'(?![\w])|«[^»\n]{3,}»"
)
# A sentence ends at . ! ? followed by space; a clause at a spaced dash or a semicolon.
_BOUNDARY = regex_cache.compile(
    r"(?<=[.!?。！？])\s+|(?<=[。！？])|\s*[\U0001f300-\U0001faff\u2600-\u27bf]+\ufe0f?\s+|(\s+[—–]\s+|;\s+)"
)

# Reads only with what came before it: a pronoun or a pointer back, or a bare adverbial.
_DEPENDENT = regex_cache.compile(
    r"^(?:it|its|it's|they|them|that's|thats|there|same|so|which|then|both|otherwise|also that|"
    r"only (?:the|that|this)|isso|isto|esse|essa|vale|só o|so o|das|dies|ça|eso|"
    # "this" / "that" as a pointer ("That applies everywhere"), not as "this repo uses uv"
    r"(?:this|that|these|those)(?=\s+(?:is|was|are|were|one|ones|way|applies|apply|goes|go|holds|too|"
    r"also|again|as well|counts|means)\b|\s*[.,!;:]|\s*$))\b",
    re.IGNORECASE,
)
# Pronouns inside a short rule that point at something named elsewhere in the message.
_POINTER = regex_cache.compile(r"\b(?:them|it|there|that one|those|these|this one)\b", re.IGNORECASE)
_REASON = regex_cache.compile(
    r"^(?:because|since|as otherwise|otherwise|so that|so the|so it|bc|cuz|'cause|porque|pois|weil|"
    r"car|parce que)\b|\b(?:gave us|bit(?:ten)? us|has bitten|caused|breaks|broke|leaks?)\b|"
    # "CI fails on both", "the build rejects it otherwise": what happens if the rule is broken
    r"\b(?:fails?|rejects?|breaks?|complains?) (?:on|about) (?:both|it|them|that|this|those)\b|"
    r"\b(?:will|would|could|can) (?:mess up|break|corrupt|wreck|clobber|overwrite)\b",
    re.IGNORECASE,
)
# Continues the rule before it: "no UPDATE, no DELETE, ever", "stick to polars", "incl. CI".
_ELABORATION = regex_cache.compile(
    r"^(?:no|not|never|nor|only|always|and|or|nothing|none|incl|including|e\.g|i\.e|stick to|"
    r"use|prefer|instead|rather|even|especially|same for|also for|applies to|that applies)\b",
    re.IGNORECASE,
)
_REQUEST = regex_cache.compile(
    r"^(?:can|could|would|will) (?:you|u)\b|^(?:fix|add|run|create|make|write|rename|remove|delete|"
    r"check|look|try|revert|show|open|explain|update|port|convert|send|paste|let me|give me)\b",
    re.IGNORECASE,
)

# An abbreviation's full stop before a word in lower case ends no sentence: "open to the whole
# company incl. contractors" (the space is kept aside while the message is split).
_ABBREVIATION = regex_cache.compile(
    r"\b((?i:incl|inkl|e\.g|i\.e|etc|vs|approx|esp|cf|resp|ca|bzw|z\.b|d\.h|u\.a|ggf|usw|vgl|p\.ex|ex)\.) "
    r"(?=[a-zà-ÿ0-9])"
)
_LIST_ITEM = regex_cache.compile(r"^\s*(?:\d{1,2}[.)]|[-*•](?!-))\s+")
_BULLET = regex_cache.compile(r"^(?:[-*•]+\s+|[-*•]+$|-(?=[^-\w]))")
_EMOJI = regex_cache.compile(
    "[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\ufe0f\u200d]+|"
    r"(?<!\w)(?::\)|:\(|:D|;\)|:P|xD|\^\^)(?!\w)"
)
_LAUGH = regex_cache.compile(r"\s*\b(?:lol+|lmao+|rofl|haha+|hehe+|kkk+|jaja+|xd)\b[.!]*", re.IGNORECASE)
# Interjections that open a message: filler only when punctuation follows ("no, …", "ok so …"),
# since "no UPDATE, no DELETE" and "first run the linter" carry content.
_INTERJECTION = (
    r"ok(?:ay)?|oh|well|hmm+|um+|uh+|ah+|hey|hi+|hello|yo|right|yes|yeah|yep|sure|alright|great|"
    r"cool|nice|thanks|thx|ty|sorry|ugh|argh|wait|no|nope|nah|nooo+|again|actually|first|lastly|"
    r"finally|anyway|important|note|remember|reminder|update|news|big one|one thing|quick one|psa|"
    r"side note|small (?:infra )?update|good morning|morning|bom dia|oi|olá|então|tipo|valeu|"
    r"bonjour|salut|coucou|bonsoir|hola|buenas|buenos días|ciao|buongiorno|hallo|moin|servus|"
    r"guten morgen|hello again|hi again|morning all|green|all green|lgtm|perfect|awesome|done|merged|"
    r"works|noted|understood|got it|makes sense|good|very good|fine|"
    r"decision|heads up|fyi|btw|fwiw|tbh|imo|imho|that's wrong|that is wrong|wrong|not quite|"
    r"that's not right|you did it again|again|"
    # a day named as the greeting it is ("montag. Composer ist aus"): the entry has its date
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch|donnerstag|"
    r"freitag|samstag|sonntag|lundi|mardi|mercredi|jeudi|vendredi|lunes|martes|miércoles|jueves|viernes|"
    r"segunda|terça|quarta|quinta|sexta|lunedì|martedì|mercoledì|giovedì|venerdì|maandag|dinsdag|"
    r"woensdag|donderdag|vrijdag|poniedziałek|wtorek|środa|czwartek|piątek"
)
# Discourse that is filler before any word.
_DISCOURSE = (
    r"ok so|ok(?:ay)?|hi+|hey|hello|oh and|and also|and|also|but|so|btw|by the way|fwiw|fyi|tbh|imo|"
    r"imho|honestly|basically|"
    r"pls|please|plz|one thing for the future|one more thing|for the record|just so you know|"
    r"heads up|note(?! that)|ah e|e tipo"
)
_FILLER_LEAD = regex_cache.compile(
    rf"^(?:(?:{_INTERJECTION})\s*[,:!.;—–-]+\s*|(?:{_DISCOURSE})\s+"
    r"|(?:remember that|note that|keep in mind that|for future reference|as i said|as i told you|"
    r"just a reminder|reminder that|i think|i guess|i mean|to be clear|for context|"
    r"like i said|as mentioned|remember this(?: rule)?|(?:new |general |house )?rule(?: of thumb)?:|"
    r"as a (?:general )?rule|for future sessions|i (?:already )?said (?:this|that|it)(?: already| before)?)"
    r"\b\s*[,:]?\s*)+",
    re.IGNORECASE,
)
# News announced before it is said: "Deployment news:", "A bit of news first:", "Heads-up from
# ops:", "Change of plan on email, I'm afraid:", "Noticia:". The news is the rule; the
# announcement is not.
_NEWS_LEAD = regex_cache.compile(
    r"^(?:(?:a bit of|some|big|small|quick|good|bad|important|deployment|infra|infrastructure|ops|"
    r"petite|petit|grosse|gros|grande|pequeña|pequeno|kleine|"
    r"team|release|tooling|process|a|an|the|one|more|latest|another)\s+)*"
    r"(?:news|update|heads[- ]up|change(?: of plans?)?|notice|psa|noticia|novidade|mudan[çc]a|"
    r"cambio(?: importante)?|aviso|neuigkeit)"
    r"(?:\s+(?:first|from \w+|on \w+|again|for you))?(?:,? i'?m afraid)?\s*[:!—–]+\s*",
    re.IGNORECASE,
)
_ONLY_FILLER = regex_cache.compile(rf"(?:(?:{_INTERJECTION}|{_DISCOURSE})\W*)+", re.IGNORECASE)
_POLITE = regex_cache.compile(r"\b(?:please|pls|plz|kindly)\b\s*,?\s*", re.IGNORECASE)
_TRAILING_FILLER = regex_cache.compile(
    r"[\s,]*(?:\b(?:ok|okay|thanks|thank you|thx|pls|please|lol|haha|right|yeah|ok\?|got it\??|"
    r"k|kk|já falei isso antes|i already told you|like i said)\b[\s.!?]*)+$"
    # "…, i said this the other day", "… as I told you before": the reminder, not the rule
    r"|[\s,;]+(?:as )?i (?:already )?(?:said|told you)(?: this| that| so)?(?: [\w -]{0,30})?[.!]*$",
    re.IGNORECASE,
)

# The person's voice turned into a rule. Each pattern sees the piece after filler is gone.
_VOICE: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        regex_cache.compile(
            r"^i(?:'d| would) (?:rather|prefer) (?:that )?(?:you )?(?:didn't|did not|not|don't|dont)\s+", re.I
        ),
        "Don't ",
    ),
    (
        regex_cache.compile(r"^i(?:'d| would) (?:rather|prefer) (?:that )?(?:you )?(?:use|used)\s+", re.I),
        "Use ",
    ),
    (regex_cache.compile(r"^i (?:don't|do not|dont) want (?:you )?to\s+", re.I), "Don't "),
    (regex_cache.compile(r"^i (?:don't|do not|dont) want\s+", re.I), "No "),
    (regex_cache.compile(r"^i(?:'d| would) like (?:you )?to\s+", re.I), ""),
    (regex_cache.compile(r"^i (?:want|need) (?:you )?to\s+(?=always|never|use|keep)", re.I), ""),
    (
        regex_cache.compile(
            r"^(?:you should|you must|you need to|you have to|you'?ll need to|make sure you)\s+", re.I
        ),
        "",
    ),
    (
        regex_cache.compile(r"^(?:can|could|would) (?:you|u) (?:please |pls )?(?:always|never)\s+", re.I),
        "Always ",
    ),
    (regex_cache.compile(r"^(?:let's|lets) (?:always|never)\s+", re.I), "Always "),
    (regex_cache.compile(r"^(?:don't|dont|do not) ever\s+", re.I), "Never "),
    (regex_cache.compile(r"^i (?:prefer|like)\s+(?!to\b|it\b|that\b|when\b|if\b)", re.I), "Prefer "),
    (regex_cache.compile(r"^dont\b", re.I), "Don't"),
    (regex_cache.compile(r"^(?:we|i) (?:dont|don't)\b", re.I), "We don't"),
)
_QUESTION_START = regex_cache.compile(
    r"^(?:what|why|how|where|when|which|who|is|are|was|were|do(?! not\b)|does|did|can|could|would|"
    r"should|shall|will|have|has|any idea|or is|or should|is it)\b",
    re.IGNORECASE,
)
_MIN_WORDS = 3


class Boundary(enum.Enum):
    """How a piece is separated from the one before it."""

    START = "start"
    LINE = "line"
    SENTENCE = "sentence"
    CLAUSE = "clause"
    ITEM = "item"  # the line is an item of a list ("1. …", "- …"): a rule of its own


@dataclass(frozen=True)
class Piece:
    """A sentence or clause of the message: `text` as the person wrote it; `scored` without its
    noise and with quoted spans replaced: the model reads that (a rule someone else wrote is not
    the person's, and "tbh" or an emoji says nothing about whether a rule follows)."""

    text: str
    scored: str
    boundary: Boundary


@dataclass(frozen=True)
class Rule:
    """One candidate rule of a message: the rewritten text and the exact words it rests on."""

    text: str
    quote: str
    pieces: tuple[int, ...]  # indexes of the message's pieces it was made of


def split_pieces(text: str) -> list[Piece]:
    """The message's prose as sentences and clauses, with how each is joined to the one before."""
    pieces: list[Piece] = []
    for number, line in enumerate(prose_lines(text)):
        originals = [m.group(0) for m in _INLINE_QUOTE.finditer(line)]
        scored_line = _INLINE_QUOTE.sub(QUOTE_PLACEHOLDER, line)
        boundary = Boundary.START if number == 0 else Boundary.LINE
        marker = _LIST_ITEM.match(line)
        if marker:
            boundary = Boundary.ITEM
            line = line[marker.end() :]
            scored_line = _INLINE_QUOTE.sub(QUOTE_PLACEHOLDER, line)
        position = 0
        parts = _split_at_colons(_BOUNDARY.split(_ABBREVIATION.sub("\\1\0", scored_line)))
        # re.split with one group yields text, separator, text, …; a None separator is a sentence end.
        for index in range(0, len(parts), 2):
            part = parts[index]
            separator = parts[index - 1] if index else None
            if index:
                boundary = Boundary.CLAUSE if separator else Boundary.SENTENCE
            # a bullet goes, a flag's dashes stay: "--context on every kubectl command"
            # ("SELECT *" keeps its star: only a leading one is a bullet)
            part = part.replace("\0", " ")
            stripped = _BULLET.sub("", part.strip(" \t")).lstrip(" \t*•").rstrip(" \t•")
            restored = stripped
            count = stripped.count(QUOTE_PLACEHOLDER)
            for original in originals[position : position + count]:
                restored = restored.replace(QUOTE_PLACEHOLDER, original, 1)
            position += count
            if len(stripped) >= 2 and any(ch.isalpha() for ch in stripped):
                pieces.append(Piece(restored, tidy_for_model(stripped) or stripped, boundary))
                boundary = Boundary.SENTENCE
    return pieces


# A colon after a whole sentence opens another: "Now write a test for it, and write it in Pest:
# all new tests are Pest". After a label ("Logging: we're on tracing now", "exit codes pls: 0 =
# matched") the two halves are one statement.
_COLON = regex_cache.compile(r":\s+")
_COLON_HEAD_MIN_WORDS = 5
_COLON_TAIL_MIN_WORDS = 4


def _split_at_colons(parts: list[str]) -> list[str]:
    """`re.split` parts (text, separator, text, …) with each text cut at its first colon that
    ends a sentence of its own."""
    out: list[str] = []
    for index, part in enumerate(parts):
        if index % 2 or part is None:
            out.append(part)
            continue
        match = _COLON.search(part)
        head, tail = (part[: match.start()], part[match.end() :]) if match else (part, "")
        if (
            match
            and len(head.split()) >= _COLON_HEAD_MIN_WORDS
            and len(tail.split()) >= _COLON_TAIL_MIN_WORDS
            and "://" not in part[match.start() : match.end() + 2]
            and not _NEWS_LEAD.match(part)  # "A bit of news first: …" announces, tidy drops it
        ):
            out.extend([head, ": ", tail])
        else:
            out.append(part)
    return out


def is_dependent(text: str) -> bool:
    """Cannot be read without what came before: "Every time.", "Same as the rest of the repo."."""
    stripped = tidy(text)
    lead, colon, rest = stripped.partition(":")
    if colon and len(lead.split()) <= 8 and _word_count(rest) >= 4:
        stripped = rest.strip()  # "Same as before: run the smoke tests after deploying" stands
    if _DEPENDENT.match(stripped):
        return True
    words = _word_count(stripped)
    if words < _MIN_WORDS and not _KEY.search(stripped):
        return True
    return words <= 8 and bool(_POINTER.search(stripped)) and not _KEY.search(stripped)


def elaborates(piece: Piece) -> bool:
    """A short continuation of the rule before it: the other clause of its sentence, or a piece
    that opens with "no …", "only …", "stick to …"."""
    text = tidy(piece.text)
    words = len(text.split())
    if _REQUEST.match(text) or _QUESTION_START.match(text) or text.endswith("?"):
        return False
    if piece.boundary is Boundary.CLAUSE and words <= 8:
        return True
    return words <= 10 and bool(_ELABORATION.match(text))


def is_reason(text: str) -> bool:
    return bool(_REASON.search(tidy(text)))


def group_pieces(pieces: list[Piece], is_rule: list[bool]) -> list[tuple[int, ...]]:
    """Indexes of the pieces of each rule, in message order; overlapping groups are merged."""
    groups: list[list[int]] = []
    count = len(pieces)
    for index in range(count):
        if not is_rule[index]:
            continue
        start = index
        # Back to what a dependent rule points at, and to the other clause of a cut sentence
        # when that clause names what the rule is about.
        while (
            start > 0
            and index - start < 2
            and (
                is_dependent(pieces[start].text)
                # "PRs only." after "main is protected."
                or _word_count(tidy(pieces[start].text)) < _MIN_WORDS
                or (
                    pieces[start].boundary is Boundary.CLAUSE
                    and start == index
                    and key_terms(pieces[start - 1].text)
                    and not _QUESTION_START.match(tidy(pieces[start - 1].text))
                    and not is_task(pieces[start - 1].text)
                )
            )
        ):
            start -= 1
        end = index
        while end + 1 < count and end - start < 3 and pieces[end + 1].boundary is not Boundary.ITEM:
            after = pieces[end + 1]
            shares = key_terms(after.text) & key_terms(" ".join(p.text for p in pieces[start : end + 1]))
            if (
                is_dependent(after.text)
                or is_reason(after.text)
                or elaborates(after)
                or (is_rule[end + 1] and shares)
                # two rule clauses of one sentence ("the notebooks stay exploratory — anything we
                # reuse goes into src/churn/"): one rule
                or (is_rule[end + 1] and after.boundary is Boundary.CLAUSE)
            ):
                end += 1
                continue
            break
        members = list(range(start, end + 1))
        if groups and groups[-1][-1] >= start:
            groups[-1].extend(m for m in members if m > groups[-1][-1])
        else:
            groups.append(members)
    return [tuple(group) for group in groups]


# What says nothing to the model: the words it keeps (politeness, "thanks", "fyi", "remember")
# carry whether a rule follows, so only noise goes before it reads a piece.
_NOISE_LEAD = regex_cache.compile(
    r"^(?:(?:tbh|fwiw|imo|imho|honestly|basically|oh and|ok so|hi+|hey|hello|yo|um+|uh+|hmm+)\b"
    r"[\s,:!.;—–-]*)+",
    re.IGNORECASE,
)


def tidy_for_model(text: str) -> str:
    """The piece as the model reads it: without emoji, laughter and filler that carry nothing."""
    text = _LAUGH.sub("", _EMOJI.sub("", text))
    return re.sub(r"\s{2,}", " ", _NOISE_LEAD.sub("", text.strip())).strip()


@lru_cache(maxsize=4096)
def tidy(text: str) -> str:
    """The piece without filler, laughter, emoji, politeness and its conversational lead-in."""
    text = _EMOJI.sub("", text)
    text = _LAUGH.sub("", text)
    previous = None
    while previous != text:
        previous = text
        text = _FILLER_LEAD.sub("", text.strip()).strip()
    news = _NEWS_LEAD.match(text)
    if news and _word_count(text[news.end() :]) >= _MIN_WORDS:
        text = text[news.end() :]
    text = _TRAILING_FILLER.sub("", text).strip()
    text = _POLITE.sub("", text).strip()
    text = re.sub(r"\s{2,}", " ", text).rstrip(" ,;:—–-").lstrip(" ,;:—–")
    return text[1:].lstrip() if text.startswith("-") and not text.startswith("--") else text


# "We're switching from Celery to Dramatiq for all jobs" → "Use Dramatiq, not Celery, for all jobs".
_SWITCH = regex_cache.compile(
    r"^(?:we(?:'re| are)|we(?:'ve| have)?|i(?:'ve| have)?|the team(?: is| has)?|the project(?: is| has)?) "
    r"(?:now )?(?:switch(?:ing|ed)?|mov(?:ing|ed)|migrat(?:ing|ed)) (?:over )?from "
    r"(?P<old>[\w.@/+#-]+(?: [\w.@/+#-]+){0,2}?) to (?P<new>[\w.@/+#-]+(?: [\w.@/+#-]+){0,2}?)"
    r"(?P<rest>(?: (?:for|in|on|across|at|everywhere|as)\b| ?[,.;]|$).*)$",
    re.IGNORECASE,
)
_LEADING_FOREVER = regex_cache.compile(
    r"^(?:from now on|going forward|from here on(?: out)?|from today on|in future|in the future)\s*,?\s*",
    re.IGNORECASE,
)
_DECIDED_ON = regex_cache.compile(r"^on (\d{4}-\d\d-\d\d),? (?=(?:we|i|the team)\b)", re.IGNORECASE)
_VOICE_DECIDED = regex_cache.compile(
    r"^(?P<when>(?:yesterday|today|this morning|earlier today|last week|on (?:monday|tuesday|wednesday|"
    r"thursday|friday))\s*,?\s+)?(?:we(?:'ve| have)?|i(?:'ve| have)?|the team(?: has)?) (?:decided|agreed) "
    r"(?!against\b)(?:that |to |on )?",  # "we decided against GraphQL" says it in the decision's words
    re.IGNORECASE,
)
_TRAILING_FOREVER = regex_cache.compile(
    r"[,;]?\s*\b(?:from now on|going forward|from here on(?: out)?|from today on|for the future)\s*$",
    re.IGNORECASE,
)


_STANDING_REQUEST = regex_cache.compile(
    r"^(?P<cond>(?:before|after|when(?:ever)?|every ?time|each time)\b[^,?]{2,40}?)?,?\s*"
    r"(?:can|could|would|will) (?:you|u)(?: please| pls)?(?P<mind> mind)?,?\s*"
    r"(?P<when>(?:in (?:the )?future|from now on|going forward|always)\b,?\s*)?"
    r"(?P<act>[^?]{3,}?)\s*\?$",
    re.IGNORECASE,
)
_DURABLE_WORD = regex_cache.compile(
    r"\b(?:always|every ?time|whenever|each time|from now on|in (?:the )?future|going forward)\b", re.I
)


def _imperative(act: str) -> str:
    """ "keeping lines to 100 characters" → "keep lines to 100 characters"."""
    verb, _, rest = act.partition(" ")
    if verb.endswith("ing") and len(verb) > 5:
        stem = verb[:-3]
        if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
            stem = stem[:-1]  # "running" → "run"
        verb = stem
    return f"{verb} {rest}".strip()


@lru_cache(maxsize=4096)
def as_rule(text: str) -> str:
    """The tidy piece in a rule's voice. (Cached, as `tidy` is: grouping and rewriting ask of one
    piece several times.)"""
    text = tidy(text)
    head, colon, tail = text.partition(": ")
    if colon and not head.endswith(":") and frames(head) and _word_count(tail) >= _MIN_WORDS:
        text = tail  # "The second: we've switched the annotation to GENCODE v46"
    # The entry is dated: "from now on" says nothing more there (the model read it already).
    forever = _LEADING_FOREVER.match(text)
    if forever and len(text[forever.end() :].split()) >= _MIN_WORDS:
        text = text[forever.end() :]
    decided = _DECIDED_ON.match(text)
    if decided:
        when = decided.group(1)
        text = text[decided.end() :]
    else:
        when = ""
    stated = _VOICE_DECIDED.match(text)
    if decided and not stated:
        text = f"On {when} {text}"  # "On DATE we …" without a decision: left as said
    if stated:
        # "Yesterday we decided that X" → "X (decided yesterday)": the rule first, the day kept
        # (made absolute against the message's date afterwards).
        when = when or (stated["when"] or "").strip(" ,")
        text = text[stated.end() :]
        text = _TRAILING_FOREVER.sub("", text.rstrip(" .")).rstrip(" .,")
        text += f" (decided {when.lower()})" if when else ""
    request = _STANDING_REQUEST.match(text)
    if request and (request["cond"] or request["when"] or _DURABLE_WORD.search(request["act"])):
        # "before u say done can u run pnpm lint?" → "Before u say done, run pnpm lint": a
        # request that says when it applies is a standing rule, not a question.
        act = request["act"].strip()
        if request["mind"]:
            act = _imperative(act)
        if (request["when"] or "").strip(" ,").lower() == "always":
            act = "always " + act
        text = f"{request['cond'].strip()}, {act}" if request["cond"] else act
    switch = _SWITCH.match(text)
    if switch:
        rest = _TRAILING_FOREVER.sub("", switch["rest"].rstrip(" .")).rstrip(" .,")
        rest = re.sub(r"^,? so\b,?", ";", rest)
        rest = ("," + rest) if rest[:1] == " " else rest
        text = f"Use {switch['new'].rstrip('.')}, not {switch['old'].rstrip('.')}{rest}"
    for pattern, replacement in _VOICE:
        if pattern.match(text):
            text = pattern.sub(replacement, text, count=1)
            break
    stripped = _TRAILING_FOREVER.sub("", text.rstrip(" .!"))
    text = stripped if len(stripped.split()) >= _MIN_WORDS else text
    text = re.sub(r"!+(?=\s|$)", ".", text).rstrip(" .")
    # A plain word is capitalised; an identifier ("fmt.Errorf", "ledger_entries") stays as written.
    first = text.split(" ", 1)[0].rstrip(",.;:!?")
    plain = bool(re.fullmatch(r"[a-zà-ÿ]+(?:'[a-z]+)?", first)) and not is_key_term(first)
    return text[:1].upper() + text[1:] if plain else text


def rewrite(pieces: list[Piece], group: tuple[int, ...], core: frozenset[int] = frozenset()) -> str:
    """One standalone rule from a group of pieces, at most ~150 characters where it can be.

    `core`: the pieces the model scored as rules. When the group is too long, the task the rule
    was buried in goes first ("Today's job is …"), before the rule is clipped."""
    if core and _joined_length(pieces, group) > defaults.RULE_TARGET_CHARS:
        kept = tuple(i for i in group if not is_task(pieces[i].text))
        kept = kept if any(i in core for i in kept) else ()
        dependent = kept and is_dependent(pieces[kept[0]].text)
        if kept and not dependent and _joined_length(pieces, kept) < _joined_length(pieces, group):
            group = kept
    while len(group) > 1 and pieces[group[1]].boundary is Boundary.CLAUSE and frames(pieces[group[0]].text):
        group = group[1:]  # "Quick heads up before you dig in the save code; saves aren't JSON …"
    text = ""
    for index in group:
        piece = as_rule(pieces[index].text)
        if not piece:
            continue
        if text and pieces[index].boundary is Boundary.CLAUSE:
            text += "; " + (piece[:1].lower() + piece[1:] if _lower_ok(piece) else piece)
        elif text:
            text += (" " if text.endswith("?") else ". ") + piece
        else:
            text = piece
    text = text.strip()
    if len(text) > defaults.RULE_TARGET_CHARS:
        text = _shorten(text)
    return text + "." if text and text[-1] not in ".?\"'`。！？" else text


# What a rule says it with: without one of these, a clause that names nothing only frames what follows.
_RULE_WORD = regex_cache.compile(
    r"\b(?:never|always|don'?t|dont|do not|must|mustn'?t|should|shouldn'?t|need|needs|has to|have to|"
    r"only|avoid|stop|use|uses|used|prefer|keep|stays?|no|not|every|each|all|goes|lives?|instead|"
    r"rather|nunca|sempre|siempre|jamais|toujours|nie|nigdy|immer)\b|n't\b",
    re.IGNORECASE,
)


_ORDINAL = regex_cache.compile(
    r"^(?:the )?(?:first|second|third|next|last|another)(?: one)?\W*$|^one more\b|"
    r"^(?:quick |some |a bit of |more )?(?:context|background)(?: first)?\W*$",
    re.I,
)


def frames(text: str) -> bool:
    """A clause that only introduces the next one: it names nothing and says no rule ("Quick
    heads up before you go digging in the save code", "While that restores (sigh)", "The second")."""
    if names_something(text) or any(ch.isdigit() for ch in text) or _RULE_WORD.search(text):
        return False
    # a label says what the rule is about: "Logging: we're on tracing now"
    return len(text.split()) >= 3 or bool(_ORDINAL.match(text))


# Words a rule's clause opens with that are no name (beside the stop words).
_COMMON_OPENERS = frozenset(
    [
        *("use", "never", "always", "don't", "dont", "do", "keep", "prefer", "run", "avoid", "only"),
        *("no", "not", "every", "each", "make", "put", "write", "add", "stick", "let's", "lets"),
        *("please", "just", "also", "then", "so", "but", "and", "or", "instead", "rather", "even"),
    ]
)


def _joined_length(pieces: list[Piece], group: tuple[int, ...]) -> int:
    return sum(len(as_rule(pieces[i].text)) + 2 for i in group)


def _lower_ok(piece: str) -> bool:
    """The piece's first word may go lower-case after "; ": a common word ("The", "Never"), not a
    name the person capitalised ("Envoyer is gone", "Sidekiq runs the jobs")."""
    first = piece.split(" ", 1)[0]
    if not (first[:1].isupper() and first[1:].islower()) or first in {"I", "I'm", "I'd"}:
        return False
    word = first.lower().rstrip(",.;:!?")
    return word in STOPWORDS or word in _COMMON_OPENERS


def _shorten(text: str) -> str:
    """Clauses without a key term go first from the end, then the text is clipped at a word."""
    clauses = re.split(r"(?<=[;,])\s+", text)
    while len(" ".join(clauses)) > defaults.RULE_TARGET_CHARS and len(clauses) > 1:
        droppable = [i for i in range(len(clauses) - 1, 0, -1) if not key_terms(clauses[i])]
        if not droppable:
            break
        del clauses[droppable[0]]
    text = " ".join(clauses).rstrip(",; ")
    limit = defaults.SIGNAL_MAX_CHARS
    if len(text) > limit:
        text = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return text


_CJK = regex_cache.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _word_count(text: str) -> int:
    # Chinese and Japanese put no spaces between words: two characters count as a word there.
    if _CJK.search(text):
        return max(len(text.split()), len(_CJK.findall(text)) // 2)
    return len(text.split())


def stands_alone(text: str, asked: bool = False) -> bool:
    """A rule a reader understands without the session: enough words, not a question (`asked`:
    the person's words ended in a question mark), not a bare pointer back."""
    body = text.rstrip(".")
    if _word_count(body) < _MIN_WORDS or body.endswith("?") or asked:
        return False
    # "marinefeed is dead, we dropped it": a name said to be gone is named, whatever points back at it
    return not (is_dependent(body) and not key_terms(body)) or says_gone(body)


# The agent's question offering a choice: "Should I use Mockito or MockK for the ViewModel tests?"
_CHOICE = regex_cache.compile(
    r"\b(?:use|go with|pick|choose|add|write|prefer)\s+(?P<a>[\w.@/+#-]*\w)\s+or\s+(?P<b>[\w.@/+#-]*\w)"
    r"(?P<scope>\s+(?:for|in|on)\s+[^?]{1,60})?\?",
    re.IGNORECASE,
)
# The agent's offer to do something: "For errors, should I use errors.Wrap like internal/legacy does?"
_OFFER = regex_cache.compile(
    r"\b(?:should i|shall i|do you want me to|want me to|would you like me to|i could)\s+"
    r"(?P<act>[^?]{3,90})\?",
    re.IGNORECASE,
)
# The same offer stated, not asked: "I can put it in values.yaml under env for now."
_STATED_OFFER = regex_cache.compile(
    r"(?:^|(?<=[.!?])\s+)(?:i can|i could|i'll|i will|i'm going to|i am going to|let me)\s+"
    r"(?P<act>(?:[^.?!\n]|\.(?=\S)){3,90})[.!]",
    re.IGNORECASE,
)
_REFUSAL_WORDS = r"(?:no|nope|nah|não|nao|nein|non|don'?t|do not|please don'?t|pls dont)"
_REFUSAL = regex_cache.compile(rf"^{_REFUSAL_WORDS}\b", re.IGNORECASE)
_BARE_REFUSAL = regex_cache.compile(rf"{_REFUSAL_WORDS}\W*", re.IGNORECASE)  # "Don't." and nothing more


_NEGATED_NAME = r"\b(?:never|not|no|nunca|não|nao|nie|jamais)\s+(?:\w+\s+)?{}(?![\w-])"


def _last_question(agent_before: str) -> str:
    questions = [q for q in re.split(r"(?<=[.!?])\s+", agent_before.strip()) if q.endswith("?")]
    return questions[-1] if questions else ""


def _answer_group(pieces: list[Piece], names: tuple[str, ...]) -> tuple[int, ...]:
    """The first piece and what continues it: short pieces, pointers back, pieces naming the
    alternatives ("mockk. sempre. mockito nem tá no projeto")."""
    end = 0
    while end + 1 < len(pieces) and end < 3:
        after = pieces[end + 1].text
        names_one = any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", after, re.IGNORECASE) for n in names)
        if len(tidy(after).split()) <= 4 or is_dependent(after) or names_one:
            end += 1
            continue
        break
    return tuple(range(end + 1))


def answer_rule(pieces: list[Piece], agent_before: str) -> Rule | None:
    """The rule an answer to the agent's question states, in words the answer alone lacks:
    "Should I use Mockito or MockK for the tests?" "mockk. sempre." → "Use MockK, not Mockito, for
    the tests."; "Should I use errors.Wrap from pkg/errors?" "no. fmt.Errorf with %w." → "Don't use
    errors.Wrap from pkg/errors; fmt.Errorf with %w"."""
    question = _last_question(agent_before)
    # "I can patch it directly with kubectl edit to unblock you." "Don't. …": an offer stated
    stated = list(_STATED_OFFER.finditer(agent_before))
    if not pieces or not (question or stated):
        return None
    first = tidy(pieces[0].text) or pieces[0].text
    choice = _CHOICE.search(question)
    if choice:
        a, b = choice["a"], choice["b"]
        named = [n for n in (a, b) if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", first, re.IGNORECASE)]
        # "ruff, never black": the one named without a "never" / "not" before it is the choice
        kept = [n for n in named if not re.search(_NEGATED_NAME.format(re.escape(n)), first, re.IGNORECASE)]
        named = kept or named
        if len(named) == 1:
            chosen, other = named[0], b if named[0] == a else a
            group = _answer_group(pieces, (a, b))
            scope = (choice["scope"] or "").rstrip()
            text = f"Use {chosen}, not {other}" + (f",{scope}." if scope else ".")
            return Rule(text, " ".join(pieces[i].text for i in group), group)
    offer = _OFFER.search(question) or (stated[-1] if stated else None)
    if offer and _REFUSAL.match(pieces[0].text) and names_something(offer["act"]):
        group = _answer_group(pieces, ())
        rest = [r for r in (as_rule(pieces[i].text) for i in group) if r and not _BARE_REFUSAL.fullmatch(r)]
        act = offer["act"].strip().rstrip(".")
        act = (
            re.sub(
                r"\s+(?:so|as|like|to check|so that|to unblock|for now)\b.*$", "", act, flags=re.IGNORECASE
            )
            or act
        )
        text = f"Don't {act}" + "".join(f"; {r[:1].lower() + r[1:] if _lower_ok(r) else r}" for r in rest)
        if len(text) > defaults.SIGNAL_MAX_CHARS:
            text = _shorten(text)
        return Rule(text.rstrip(".") + ".", " ".join(pieces[i].text for i in group), group)
    return None


# Reads only as the tail of the rule before it: "every single one.", "every subcommand, not just
# tail", "every time u add or change a schema", "Added/Changed/Fixed, newest on top" after the
# format it lists. Short, and opening with a quantifier or a bare "not just" / "both".
_TAIL = regex_cache.compile(
    r"^(?:every|each|whenever|both|same|not just|not only|incl|including|even|especially|all of them|"
    r"any time|anytime|cada|toda|todo|todos|todas|siempre que|sempre que|jedes|jede)\b|"
    # a place or a thing with no verb of its own: "Never in values files.", "Not main ever."
    r"^(?:never|not|no|always|only|nie|nigdy|jamais|nunca|zawsze|immer|toujours|sempre|siempre) "
    r"(?:in|on|at|into|from|to|na|w|en|dans|em|im|auf|an|sur)\b[^,;]{0,30}[.!]?$|"
    r"^(?:not|never) [\w./-]+ ever[.!]?$",
    re.IGNORECASE,
)
_TAIL_MAX_WORDS = 8


def is_tail(text: str) -> bool:
    """A short piece that only finishes the rule before it (see `_TAIL`)."""
    tidied = tidy(text)
    return _word_count(tidied) <= _TAIL_MAX_WORDS and bool(_TAIL.match(tidied))


# A task for this session: an imperative of work on the code ("Update evaluate.py and the DVC
# params", "Swap it to the ECR mirror", "cambia la baseUrl del dio y revisa los endpoints"), or a
# complaint about what the agent just did ("U forgot the story again"), with nothing in the words
# that makes it hold beyond the task. "Use", "keep", "run" and "prefer" state rules as often as
# tasks and are not here; "always", "never", "every", "don't", "only" make any of these a rule.
_TASK_VERB = regex_cache.compile(
    r"^(?:update|delete|remove|swap|change|open|fix|wire|rename|move|"
    r"create|add|implement|refactor|rewrite|revert|undo|bump|merge|push|deploy|ship|build|finish|"
    r"clean up|rip out|drop|replace|look at|check|investigate|debug|test|try|make|write|put|set up|"
    r"cambia|revisa|haz|mira|arregla|borra|quita|añade|sube|muda|troca|arruma|apaga|tira|coloca|"
    r"ändere|lösche|mach|füge|prüfe|corrige|supprime|ajoute|modifie)\b",
    re.IGNORECASE,
)
_TASK_LEAD = regex_cache.compile(
    r"^(?:(?:also|and|but|so|then|now|next|first|ok|oh|btw|e|y|und|et)\W+)+", re.IGNORECASE
)
_COMPLAINT_START = regex_cache.compile(
    r"^(?:(?:you|u|vc|você)\s+(?:forgot|missed|broke|did|used|put|added|left|skipped|ignored|again)|"
    r"(?:otra vez|de novo|again|still)\b|i noticed\b|looks like (?:you|u)\b|why (?:did|is|are)\b)",
    re.IGNORECASE,
)
_STANDING = regex_cache.compile(
    r"\b(?:always|never|every|each|whenever|any time|from now on|going forward|in future|in the future|"
    r"don't|dont|do not|only|must|should|no more|not|nor|instead|rather|by default|as a rule|"
    r"siempre|nunca|nada de|sempre|nenhum|jamais|toujours|immer|nie|niemals|todos|todas|todo|cada)\b",
    re.IGNORECASE,
)


# Opens the task of the day whatever follows: "Today's job is vaccination reminders: every night, …".
_TASK_OPENER = regex_cache.compile(
    r"^(?:today'?s (?:job|task|ticket|work)|the (?:job|task) (?:today|for today|now)|"
    r"next (?:up|task|job|thing|step)\b|"
    r"(?:the )?first task|(?:for )?this (?:ticket|task)\b|today (?:we|i) (?:need|want|have)|"
    r"i need (?:a|an|the|some)\b|aujourd'hui|hoy toca|hoje (?:é|vamos)|heute (?:brauche|machen))",
    re.IGNORECASE,
)


# A request for this session or the context of one, unless a word makes it hold ("I'd like the
# figures for the DTE results", "Task: onboard …",
# "New mart: mart_sales__pipeline_daily", "I'll paste the final copy later").
_REQUEST_OPENER = regex_cache.compile(
    r"^(?:(?:on \d{4}-\d\d-\d\d|today|now|next|for now|this week),? )?"
    r"(?:i'?d like|i would like|i want|i need|we need) (?:the|a|an|some|you to|to see|to get)\b|"
    r"^(?:task|todo|start)\b\W|"
    r"^new (?:mart|model|endpoint|page|screen|feature|table|asset|job|component|route|migration)\b\W|"
    r"^i'?ll (?:paste|send|do|check|handle|look|push|merge|review|test|be back|pick)\b|"
    r"^(?:cheers|thanks|thank you)\b.{0,40}\bi'?m off\b",
    re.IGNORECASE,
)


# What the person sees or suspects, not what should be done: "The scrolling feels a bit janky on
# older phones, and I suspect …", "The ShiftCard divs are a known problem", "PatientNoteController
# has about sixty lines of logic in it", "X is the slowest part of the pipeline".
_OBSERVATION = regex_cache.compile(
    r"\b(?:i suspect|i wonder|i guess|i assume|"
    r"feels (?:a bit |kind of |really |so )?(?:slow|janky|laggy|off|weird|wrong)|"
    r"seems (?:to be |a bit )?(?:slow|broken|off|flaky|weird)|looks (?:broken|off|weird|wrong)|"
    r"(?:is|are) (?:a )?known (?:problem|issue|bug)s?|there'?s already a ticket|"
    r"has (?:about|around|like|roughly) (?:\w+ )?(?:lines|methods|functions)|"
    r"(?:is|are) (?:the )?(?:slowest|biggest|worst|bad(?:dest)?) (?:part|example|offender|one)|"
    r"we got burned|is actually the bad example)\b",
    re.IGNORECASE,
)


def is_observation(text: str) -> bool:
    """The piece reports or guesses at a state of things with no word that makes it a rule."""
    tidied = tidy(text)
    return bool(_OBSERVATION.search(tidied)) and not _STANDING.search(tidied)


@lru_cache(maxsize=4096)
def is_task(text: str) -> bool:
    """The rule says what to do in this task, or complains of the last output, and nothing more
    (see `_TASK_VERB`): durable only by mistake. (Cached, as `tidy` is: grouping, rewriting and
    scoring ask of one piece.)"""
    tidied = _TASK_LEAD.sub("", tidy(text))
    if _TASK_OPENER.match(tidied):
        return True
    if _STANDING.search(tidied):
        return False
    return bool(
        _TASK_VERB.match(tidied)
        or _REQUEST_OPENER.match(tidied)
        or _COMPLAINT_START.match(tidied)
        or is_complaint(tidied.lower())
    )


def join_one_rule(
    pieces: list[Piece], groups: list[tuple[int, ...]], categories: list[tuple[str, ...]] | None
) -> list[tuple[int, ...]]:
    """Adjacent groups of one message that state one rule become one: a tail ("every single
    one.") finishes the rule before it, whatever lies between; two rules of one kind side by side
    ("timezone.now() from django.utils, always. datetime.now() and utcnow() are forbidden") are one
    entry while together they fit a rule's length, when they are of one kind or share a word
    (two rules that share nothing, "Use pnpm. Deploys go through Fly.io.", stay two). A tail
    with no rule before it takes the piece before it, the one that says what "every time" is for."""
    joined: list[tuple[int, ...]] = []
    for group in groups:
        if not joined and group[0] > 0 and (is_tail(pieces[group[0]].text) or _leads(pieces, group[0] - 1)):
            before = pieces[group[0] - 1].text
            if not _QUESTION_START.match(tidy(before)) and not before.rstrip().endswith("?"):
                group = (group[0] - 1, *group)
        if joined:
            last = joined[-1]
            adjacent = group[0] == last[-1] + 1
            tail = is_tail(pieces[group[0]].text)
            size = _joined_length(pieces, (*last, *group))
            kind = categories is not None and bool(
                {categories[i][0] for i in last if categories[i]}
                & {categories[i][0] for i in group if categories[i]}
            )
            one_subject = kind or bool(_terms(pieces, last) & _terms(pieces, group))
            # "marinefeed is dead, we dropped it. positions come off kafka now": what replaces it
            one_subject = one_subject or (
                adjacent
                and not is_task(pieces[group[0]].text)
                and says_gone(" ".join(pieces[i].text for i in last))
            )
            item = pieces[group[0]].boundary is Boundary.ITEM
            if (tail and group[0] - last[-1] <= 2) or (
                adjacent and one_subject and not item and size <= _JOIN_MAX_CHARS
            ):
                joined[-1] = tuple(range(last[0], group[-1] + 1)) if tail else (*last, *group)
                continue
        joined.append(group)
    return joined


def _terms(pieces: list[Piece], group: tuple[int, ...]) -> frozenset[str]:
    return content_terms(" ".join(pieces[i].text for i in group))


# Two rules side by side join while together they are this long: the rewrite then drops their
# clauses that name nothing, down to a rule's length.
_JOIN_MAX_CHARS = 240
_LEAD_MAX_WORDS = 5


def _leads(pieces: list[Piece], index: int) -> bool:
    """The message opens with a short answer that names the choice the rule after it explains:
    "nextest. always. cargo test only for --doc", "mocktail. mockito no, que pide build_runner",
    "Then no Prefect. We stay with Celery beat". Not a bare "yes" or "ok" (tidy leaves nothing),
    not a pointer ("commit it")."""
    if index != 0:
        return False
    text = tidy(pieces[0].text)
    if pieces[0].text.rstrip().endswith(":") or _ONLY_FILLER.fullmatch(text):
        return False  # "No, two things:" opens a list; "also fyi" says nothing
    pointer = bool(_POINTER.search(text))
    return (
        bool(text)
        and _word_count(text) <= _LEAD_MAX_WORDS
        and not pointer
        and not (_REQUEST.match(text) or _QUESTION_START.match(text) or text.endswith("?"))
    )


# "uses that trait", "this helper", "the same macro": a kind of thing named just before.
_THAT_KIND = regex_cache.compile(
    r"\b(?:that|this|the same|those|these) (trait|traits|tool|library|lib|package|crate|gem|module|class|"
    r"helper|function|macro|command|script|flag|setting|option|wrapper|hook|mixin|decorator|util|utility|"
    r"component|service|table|file|endpoint|image|plugin|extension|action|workflow|job|task|fixture)\b",
    re.IGNORECASE,
)


def _says_nothing(text: str) -> bool:
    """A short pointer with no name in it: "It has to.", "That's it.", "Same."."""
    tidied = tidy(text)
    pointer = _DEPENDENT.match(tidied) or _POINTER.search(tidied)
    return _word_count(tidied) <= 3 and bool(pointer) and not key_terms(tidied)


def _name_the_pointer(text: str, pieces: list[Piece], group: tuple[int, ...]) -> str:
    """ "Every model with a clinic_id uses that trait" after "Does PatientNote use
    BelongsToClinic?" → "… uses the BelongsToClinic trait": the last name of the piece before
    the rule (or the one before it) that the rule does not name itself."""
    match = _THAT_KIND.search(text)
    if match is None or group[0] == 0:
        return text
    for index in (group[0] - 1, group[0] - 2):
        if index < 0:
            break
        names = [m.group(0).strip("`") for m in _KEY.finditer(pieces[index].text)]
        names = [n for n in names if n.lower() not in text.lower()]
        if names:
            named = f"the {names[-1]} {match.group(1)}"
            return text[: match.start()] + named + text[match.end() :]
    return text


def message_rules(
    pieces: list[Piece],
    is_rule: list[bool],
    agent_before: str = "",
    categories: list[tuple[str, ...]] | None = None,
) -> list[Rule]:
    """The standalone rules of a message, given which of its pieces the model scores as rules
    (and, for those, their categories, best first) and, where the message answers it, the
    agent's turn before."""
    rules = []
    answered = answer_rule(pieces, agent_before) if agent_before else None
    if answered is not None and any(is_rule[i] for i in answered.pieces):
        rules.append(answered)
        is_rule = [flag and i not in answered.pieces for i, flag in enumerate(is_rule)]
    for group in join_one_rule(pieces, group_pieces(pieces, is_rule), categories):
        if group[0] == 0 and is_dependent(pieces[0].text) and not (len(group) > 1 and _leads(pieces, 0)):
            # "Use them for every new component." with nothing before it to say what; "Both,
            # but A is the rule: every job that sends … implements ShouldBeUnique" keeps its rule
            group = group[1:]
            if not any(is_rule[i] for i in group) or is_dependent(pieces[group[0]].text):
                continue
        while len(group) > 1 and not is_rule[group[0]] and _says_nothing(pieces[group[0]].text):
            group = group[1:]  # "It has to." before the rule it agrees with
        rewritten = _name_the_pointer(
            rewrite(pieces, group, frozenset(i for i in group if is_rule[i])), pieces, group
        )
        # Only the rule pieces decide: "When you write SQL, uppercase the keywords" opens like a
        # question and is none; "do we never use ORMs here?" is one.
        asked = all(as_rule(pieces[i].text).endswith("?") for i in group if is_rule[i])
        if not stands_alone(rewritten, asked):
            continue
        quote = " ".join(pieces[i].text for i in group)
        rules.append(Rule(rewritten, quote, group))
    return rules
