"""Relative dates become absolute (DESIGN.md §5).

A memory entry outlives the day it was written: "we moved CI last week" is false a month later, so every
relative phrase is rewritten against its anchor, the day the message was written (or the ``[YYYY-MM-DD]`` of
an existing entry). ``find_relative_dates`` reports exactly the phrases ``absolutize`` would rewrite, so "no
relative date left" after a rewrite is a checkable invariant, and a second rewrite changes nothing.

Rules (anchor A; weeks start on Monday, as ISO weeks do):

- today, tonight, this morning/afternoon/evening, earlier/later today -> A; yesterday, last night -> A-1;
  tomorrow -> A+1; the day before yesterday -> A-2; the day after tomorrow -> A+2. A time of day is kept:
  "yesterday evening" -> "on the evening of A-1".
- N days/weeks/months/years ago, in N ..., N ... from now (N in digits or words, "a"/"one" too): days give
  a day, weeks the week (its Monday), months "YYYY-MM", years "YYYY". A vague or hedged amount ("a few days
  ago", "about two weeks ago", "in a week or so") stays vague but gets the anchor: "a few days before A".
  "the other day" -> "a few days before A".
- last/this/next week -> "the week of <Monday>"; last/this/next weekend -> "the weekend of <Saturday>";
  last/this/next month -> "YYYY-MM"; last/this/next year -> "YYYY".
- Weekdays: "last X" = the latest X strictly before A; "next X" / "this coming X" = the first X strictly
  after A; "this X" = the X of A's week; "on X" = like "last X", unless its clause speaks of the future
  (will, 'll, going to, should, must, please, scheduled, due, ...), then like "next X".
- Wording: adverbial forms read "on 2026-03-14", "in the week of 2026-03-02", "in 2026-02", "in 2025"; after
  a preposition ("since yesterday", "by next week"), after "and"/"or" following a date, and as the subject
  at the start of a sentence ("Yesterday was ...") the bare date is used; a possessive becomes attributive
  ("yesterday's deploy" -> "the 2026-03-14 deploy"). A capital at the start of the phrase is kept.

Left alone (and not reported): recently, now, currently, bare weekdays ("by Friday"), plurals and
recurrences ("on Mondays", "every Monday", "on Monday" in a clause that says every/usually/always/...),
"the last week" and other phrases after a determiner, "in N days" in a past-tense clause (a duration:
"we finished it in two days"), anything inside backticks, code fences or URLs, parts of identifiers
("todays_total", "Monday.com"), and a result outside the years 1-9999.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Final

from dateutil.relativedelta import FR, MO, SA, SU, TH, TU, WE, relativedelta

from dream import regex_cache

__all__ = ["DateFix", "absolutize", "find_relative_dates", "has_relative_date"]


@dataclass(frozen=True)
class DateFix:
    phrase: str  # the relative phrase as found ("yesterday", "last week")
    replacement: str  # what it became ("on 2026-03-14", "in the week of 2026-03-02")


_WEEKDAYS: Final = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_RD_WEEKDAYS: Final = (MO, TU, WE, TH, FR, SA, SU)
_NUMBER_WORDS: Final = {
    "a": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
}
_VAGUE_AMOUNT: Final = r"a\s+couple\s+of|a\s+couple|couple\s+of|a\s+few|few|several"
# Longest words first so "seventeen" is not read as "seven"; at most 3 digits so that the year or day of an
# absolute date ("2025 days ago" after a rewrite) can never be read as an amount.
_NUMBER: Final = rf"{_VAGUE_AMOUNT}|\d{{1,3}}|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
_PART_OF_DAY: Final = r"morning|afternoon|evening|night"


def _amount(tag: str) -> str:
    return (
        rf"(?P<{tag}_num>{_NUMBER})\s+(?P<{tag}_unit>(?:day|week|month|year)s?)"
        rf"(?P<{tag}_or>\s+or\s+(?:so|two|three|more))?"
    )


_PHRASE: Final = regex_cache.compile(
    # The lookahead (first letters of all phrases) only makes the scan cheaper.
    rf"""(?=[acdefilnosty0-9])(?<![\w\-./@#$])
    (?:
        (?P<dby>(?:the\s+)?day\s+before\s+yesterday)
      | (?P<dat>(?:the\s+)?day\s+after\s+tomorrow)
      | (?P<rel>{_amount("rel")}\s+(?:(?P<ago>ago)|from\s+(?:now|today)))
      | (?P<within>in\s+(?:another\s+|(?P<in_approx>about|around|roughly|approximately|maybe)\s+)?
            {_amount("in")}(?:['’]?\s+time\b)?
            # Not our own hedged output ("a week or so after 2026-03-15") read again after an "in".
            (?!(?:\s+or\s+\w+)?(?:['’]?\s+time)?\s+(?:before|after)\s+\d{{4}}-\d\d-\d\d))
      | (?P<otherday>the\s+other\s+day)
      | (?P<lastnight>last\s+night)
      | (?P<tonight>tonight)
      | (?P<thispart>this\s+(?P<tp_part>morning|afternoon|evening))
      | (?P<dayword>(?P<dw>yesterday|today|tomorrow)(?:\s+(?P<dw_part>{_PART_OF_DAY}))?)
      | (?P<wday>(?:(?P<wd_on>on)|(?P<wd_mod>last|next|this\s+coming|this))\s+
            (?P<wd>{"|".join(_WEEKDAYS)})(?:\s+(?P<wd_part>{_PART_OF_DAY}))?)
      | (?P<period>(?P<per_mod>last|next|this)\s+(?P<per_unit>weekend|week|month|year))
    )
    (?P<poss>['’]s)?
    (?![\w@/]|[.\-]\w|\s+(?:{_PART_OF_DAY})s\b)
    """,
    re.IGNORECASE | re.VERBOSE,
)
# Every phrase contains one of these; plain substring tests are ~10x cheaper than any regex here.
_HINTS: Final = ("day", "night", "tomorrow", "morning", "afternoon", "evening", "week", "month", "year")
_PROTECTED: Final = regex_cache.compile(
    r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|(`+)[^\n]+?\1|\b[a-z][\w+.-]*://\S+",
    re.DOTALL | re.IGNORECASE,
)
_CLAUSE_BREAK: Final = regex_cache.compile(r"[.!?;\n]")
_FUTURE: Final = regex_cache.compile(
    r"\b(?:will|won['’]t|shall|going\s+to|gonna|let['’]s|should|must|needs?\s+to|ha(?:ve|s)\s+to|please"
    r"|plan(?:s|ning)?\s+to|intends?\s+to|scheduled|due)\b|['’]ll\b",
    re.IGNORECASE,
)
# "-ed" words, but not need/speed/indeed; with the irregular pasts that turn "in two days" into a duration.
_PAST: Final = regex_cache.compile(
    r"\b(?:\w{2,}[^\We]ed|was|were|did|took|made|built|ran|wrote|got|had|went|spent|done|finished)\b",
    re.IGNORECASE,
)
_RECURRING: Final = regex_cache.compile(
    r"\b(?:every|each|always|usually|normally|typically|generally|weekly|regularly|often)\b", re.IGNORECASE
)
_COPULA_AFTER: Final = regex_cache.compile(
    r"\s+(?:is|was|will|would|has|had|looks|looked|seems|seemed)\b", re.IGNORECASE
)
_DATE_AND: Final = regex_cache.compile(r"\d{4}(?:-\d\d){0,2}\s+(?:and|or|&)\s+$", re.IGNORECASE)
_LAST_TOKEN: Final = regex_cache.compile(r"(\S+)\s*$")


def _words(words: str) -> frozenset[str]:
    return frozenset(words.split())


# "the last week" (the past seven days), "every last Friday", "the next Monday": not the calendar unit.
_DETERMINERS: Final = _words(
    "the a an every each per that these those some any no its his her their our my your whose which what"
    " this one"
)
# After these the date stands bare: "since 2026-03-14", not "since on 2026-03-14".
_PREPOSITIONS: Final = _words(
    "since until till til by from before after of for to through thru throughout on in during at between"
    " than starting beginning ending around about circa as within over all except effective"
)
# A hedged "ago" stays hedged: "about two weeks ago" -> "about two weeks before 2026-03-15".
_APPROXIMATORS: Final = _words(
    "about around roughly approximately almost nearly over under than some maybe perhaps like just only"
    " least ~"
)
_SENTENCE_START_CHARS: Final = frozenset('.!?;:\n]>*-•("“')


def _may_have_date(text: str) -> bool:
    lowered = text.lower()
    return any(hint in lowered for hint in _HINTS)


def _prev_word(prefix: str) -> str:
    """The word just before a phrase, lowercased; "" after punctuation that ends a clause."""
    m = _LAST_TOKEN.search(prefix[-48:])
    if m is None:
        return ""
    token = m.group(1)
    if token[-1] in ",;:.!?)]}":
        return ""
    return token.strip("([{\"'“‘*_").lower()


def _clause(text: str, start: int, end: int) -> str:
    lo = 0
    for lo_m in _CLAUSE_BREAK.finditer(text, 0, start):
        lo = lo_m.end()
    hi_m = _CLAUSE_BREAK.search(text, end)
    return text[lo : hi_m.start() if hi_m else len(text)]


def _skipped(m: re.Match[str], text: str) -> bool:
    """True for a match that is not a date after all; depends on the text only, never on the anchor."""
    unit_phrase = m.group("wd_mod") or m.group("period") or m.group("lastnight") or m.group("thispart")
    if unit_phrase and _prev_word(text[: m.start()]) in _DETERMINERS:
        return True
    if m.group("wd_on") and _RECURRING.search(_clause(text, m.start(), m.end())):
        return True
    if m.group("within"):
        clause = _clause(text, m.start(), m.end())
        if not _FUTURE.search(clause) and _PAST.search(clause):
            return True
    return False


def _monday(d: date) -> date:
    return d - timedelta(days=d.weekday())  # plain arithmetic: relativedelta costs ~15 µs a call


def _count(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else _NUMBER_WORDS[word]


@dataclass(frozen=True)
class _Forms:
    adverbial: str  # "on 2026-03-14": stands alone in a sentence
    bare: str  # "2026-03-14": after a preposition or as a subject
    attributive: str  # "the 2026-03-14": replaces a possessive ("yesterday's deploy")


def _day(d: date, part: str | None = None) -> _Forms:
    iso = d.isoformat()
    if part:
        part = part.lower()
        return _Forms(f"on the {part} of {iso}", f"the {part} of {iso}", f"the {iso} {part}")
    return _Forms(f"on {iso}", iso, f"the {iso}")


def _week(monday: date) -> _Forms:
    iso = monday.isoformat()
    return _Forms(f"in the week of {iso}", f"the week of {iso}", f"the week-of-{iso}")


def _weekend(monday: date) -> _Forms:
    iso = (monday + timedelta(days=5)).isoformat()
    return _Forms(f"on the weekend of {iso}", f"the weekend of {iso}", f"the weekend-of-{iso}")


def _month(d: date) -> _Forms:
    ym = f"{d.year:04d}-{d.month:02d}"
    return _Forms(f"in {ym}", ym, f"the {ym}")


def _year(year: int) -> _Forms:
    y = f"{date(year, 1, 1).year:04d}"  # date() rejects years outside 1-9999
    return _Forms(f"in {y}", y, f"the {y}")


def _offset(anchor: date, count: int, unit: str) -> _Forms:
    unit = unit.lower().rstrip("s")
    if unit == "day":
        return _day(anchor + timedelta(days=count))
    if unit == "week":
        return _week(_monday(anchor + timedelta(weeks=count)))
    if unit == "month":
        return _month(anchor + relativedelta(months=count))
    return _year(anchor.year + count)


def _amount_forms(
    m: re.Match[str], tag: str, sign: int, anchor: date, hedged: bool, hedge: str = ""
) -> _Forms | str:
    num, unit, alt = m.group(f"{tag}_num"), m.group(f"{tag}_unit"), m.group(f"{tag}_or")
    if hedged or alt or (num.lower() not in _NUMBER_WORDS and not num.isdigit()):
        # Vague amounts keep their vagueness; only the anchor becomes explicit.
        amount = " ".join(
            m.string[m.start(f"{tag}_num") : m.end(f"{tag}_or" if alt else f"{tag}_unit")].split()
        )
        where = "before" if sign < 0 else "after"
        return f"{hedge}{amount} {where} {anchor.isoformat()}"
    return _offset(anchor, sign * _count(num), unit)


def _weekday(m: re.Match[str], text: str, anchor: date) -> _Forms:
    target = _WEEKDAYS.index(m.group("wd").lower())
    rd_day = _RD_WEEKDAYS[target]
    mod = " ".join((m.group("wd_mod") or "on").lower().split())
    if mod == "this":
        d = _monday(anchor) + timedelta(days=target)
    elif mod in ("next", "this coming") or (
        mod == "on" and _FUTURE.search(_clause(text, m.start(), m.end()))
    ):
        d = anchor + relativedelta(days=+1, weekday=rd_day(+1))
    else:
        d = anchor + relativedelta(days=-1, weekday=rd_day(-1))
    return _day(d, m.group("wd_part"))


def _forms(m: re.Match[str], text: str, anchor: date) -> _Forms | str:
    """What the phrase means against the anchor: three wordings, or one hedged wording."""
    g = m.group
    if g("dby"):
        return _day(anchor - timedelta(days=2))
    if g("dat"):
        return _day(anchor + timedelta(days=2))
    if g("rel"):
        if g("ago"):
            hedged = _prev_word(text[: m.start()]) in _APPROXIMATORS
            return _amount_forms(m, "rel", -1, anchor, hedged)
        return _amount_forms(m, "rel", +1, anchor, False)
    if g("within"):
        hedge = g("in_approx")
        return _amount_forms(m, "in", +1, anchor, bool(hedge), f"{hedge.lower()} " if hedge else "")
    if g("otherday"):
        return f"a few days before {anchor.isoformat()}"
    if g("lastnight"):
        return _day(anchor - timedelta(days=1), "night")
    if g("tonight"):
        return _day(anchor, "night")
    if g("thispart"):
        return _day(anchor, g("tp_part"))
    if g("dayword"):
        shift = {"yesterday": -1, "today": 0, "tomorrow": 1}[g("dw").lower()]
        return _day(anchor + timedelta(days=shift), g("dw_part"))
    if g("wday"):
        return _weekday(m, text, anchor)
    step = {"last": -1, "this": 0, "next": 1}[g("per_mod").lower()]
    unit = g("per_unit").lower()
    if unit == "week":
        return _week(_monday(anchor) + timedelta(weeks=step))
    if unit == "weekend":
        return _weekend(_monday(anchor) + timedelta(weeks=step))
    if unit == "month":
        return _month(anchor + relativedelta(months=step))
    return _year(anchor.year + step)


def _wording(m: re.Match[str], text: str, anchor: date, written: str) -> str:
    """The replacement for one phrase; `written` is the output so far (its tail carries the context)."""
    forms = _forms(m, text, anchor)
    poss = m.group("poss")
    if isinstance(forms, str):
        out = forms + (poss or "")
    else:
        prefix = written.rstrip()
        bare = (
            _prev_word(written) in _PREPOSITIONS
            or _DATE_AND.search(written[-40:]) is not None
            # "Yesterday was hectic": a subject takes no preposition.
            or (
                (not prefix or prefix[-1] in _SENTENCE_START_CHARS)
                and _COPULA_AFTER.match(text, m.end()) is not None
            )
        )
        if poss:
            out = forms.attributive
        elif bare:
            out = forms.bare
        else:
            out = forms.adverbial
        if m.group("wd_on"):
            out = "on " + (forms.attributive if poss else forms.bare)
    phrase = m.group(0)
    if phrase[0].isupper() and out[0].islower():
        out = out[0].upper() + out[1:]
    return out


def _segments(text: str) -> list[tuple[bool, str]]:
    """The text cut into (is_prose, piece); code and URLs are not prose."""
    if "`" not in text and "~~~" not in text and "://" not in text:
        return [(True, text)]
    pieces: list[tuple[bool, str]] = []
    pos = 0
    for m in _PROTECTED.finditer(text):
        pieces.append((True, text[pos : m.start()]))
        pieces.append((False, m.group(0)))
        pos = m.end()
    pieces.append((True, text[pos:]))
    return pieces


def absolutize(text: str, anchor: date) -> tuple[str, list[DateFix]]:
    """Rewrite relative date phrases in `text` against `anchor`; return the new text and what changed."""
    if not _may_have_date(text):
        return text, []
    out: list[str] = []
    written = ""  # the tail of the output, for context
    fixes: list[DateFix] = []
    for is_prose, piece in _segments(text):
        if not is_prose:
            out.append(piece)
            written = (written + piece)[-120:]
            continue
        last = 0
        for m in _PHRASE.finditer(piece):
            if _skipped(m, piece):
                continue
            before = piece[last : m.start()]
            try:
                new = _wording(m, piece, anchor, (written + before)[-120:])
            except (OverflowError, ValueError):
                continue  # the date falls outside 0001-9999: leave the phrase as it is
            out.append(before)
            out.append(new)
            written = (written + before + new)[-120:]
            fixes.append(DateFix(m.group(0), new))
            last = m.end()
        out.append(piece[last:])
        written = (written + piece[last:])[-120:]
    if not fixes:
        return text, []
    return "".join(out), fixes


def find_relative_dates(text: str) -> list[str]:
    """The relative date phrases in `text`: exactly those `absolutize` would rewrite."""
    if not _may_have_date(text):
        return []
    return [
        m.group(0)
        for is_prose, piece in _segments(text)
        if is_prose
        for m in _PHRASE.finditer(piece)
        if not _skipped(m, piece)
    ]


def has_relative_date(text: str) -> bool:
    return bool(find_relative_dates(text))
