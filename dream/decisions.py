"""The host's side of the agent pass (DESIGN.md §9): read a decisions document, check every decision.

The agent consolidates, the host decides. A decision is the agent's judgment on one candidate
(a standalone rule in the person's terms, the quote it rests on, what it does to memory); the
checks here are the safety rules no judgment may override:

| check | refused (or held) when |
|---|---|
| document | not JSON, not version 1, not this plan, too large: refused whole (exit 2) |
| candidate | not a candidate of this plan, or no longer in the window |
| action, category | not one the protocol knows |
| quote | not an exact substring of the candidate's message (whitespace and case aside) |
| nothing invented | the text names a number, version, path, identifier, URL or name that is |
| | neither in the message, its context, the person's session, nor the target |
| length | the text is longer than a rule (§5) |
| target | unknown to the plan (the candidate then waits for review), or gone from memory |
| secret, control text | in the text or the quote: accepted, redacted, neutralised, held for review |

An accepted decision becomes a `Directive`, which `proposals` turns into a proposal attributed
`by: agent`. The quarter rule (a run archives at most a quarter of a file's entries) is the
gates' (`gates.hold_over_quarter`), because it counts the whole run.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from dream import defaults, regex_cache
from dream.candidates import Candidate
from dream.errors import UsageError


class AgentAction(str, enum.Enum):
    ADD = "add"
    UPDATE = "update"
    SUPERSEDE = "supersede"
    MERGE = "merge"
    DROP = "drop"
    HOLD = "hold"

    def __str__(self) -> str:
        return self.value


class By(str, enum.Enum):
    """Who decided a proposal: the agent's judgment (checked), or the host's own rules."""

    AGENT = "agent"
    HOST = "host"

    def __str__(self) -> str:
        return self.value


TARGETED = (AgentAction.UPDATE, AgentAction.SUPERSEDE, AgentAction.MERGE)


@dataclass(frozen=True)
class EntryRef:
    """An entry the plan showed the agent, found again in memory by its id (`candidates.entry_id`,
    a hash of its file and words: a plan record never holds the words themselves)."""

    id: str
    file: str
    text: str  # redacted


@dataclass
class Directive:
    """An accepted decision, ready for `proposals`."""

    candidate: Candidate
    action: AgentAction
    text: str
    category: str
    quote: str
    why: str
    target: EntryRef | None = None
    hold: list[str] = field(default_factory=list)  # why it waits for review despite being accepted
    redactions: tuple[str, ...] = ()
    unsafe: tuple[str, ...] = ()


@dataclass
class DecisionCheck:
    """One decision as the report shows it."""

    candidate: str
    action: str
    accepted: bool
    reason: str
    text: str = ""
    by: By = By.AGENT
    # Refused only for naming a target the plan never showed: the candidate waits for review.
    waits: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "candidate": self.candidate,
            "action": self.action,
            "accepted": self.accepted,
            "reason": self.reason,
            "text": self.text,
            "by": str(self.by),
        }


@dataclass(frozen=True)
class DecisionsDocument:
    plan: str
    decisions: list[Any]


def parse_document(raw: str | bytes, max_decisions: int | None = None) -> DecisionsDocument:
    """The decisions document, or a UsageError that refuses it whole (nothing is written)."""
    size = len(raw.encode("utf-8") if isinstance(raw, str) else raw)
    if size > defaults.DECISIONS_MAX_BYTES:
        raise UsageError(
            f"decisions document refused: {size} bytes, more than {defaults.DECISIONS_MAX_BYTES}"
        )
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise UsageError(f"decisions document refused: not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise UsageError("decisions document refused: not a JSON object")
    if data.get("version") != 1:
        raise UsageError(f"decisions document refused: version {data.get('version')!r}, not 1")
    plan, decisions = data.get("plan"), data.get("decisions")
    if not isinstance(plan, str) or not plan:
        raise UsageError("decisions document refused: no plan id")
    if not isinstance(decisions, list):
        raise UsageError("decisions document refused: `decisions` is not a list")
    if max_decisions is not None and len(decisions) > max_decisions:
        raise UsageError(
            f"decisions document refused: {len(decisions)} decisions for a plan that allows {max_decisions}"
        )
    return DecisionsDocument(plan, decisions)


# -- the checks --------------------------------------------------------------------------------------

_SPACE = regex_cache.compile(r"\s+")
_STRIP = "\"'`“”‘’«»()[]{}<>.,;:!?*"
_SPECIFIC = regex_cache.compile(r"[\d./_\\-]|^@|^\$")
_SENTENCE_END = regex_cache.compile(r"[.!?:;]['\")\]]*$")
_BACKTICKED = regex_cache.compile(r"`([^`]+)`")
_MARKER = regex_cache.compile(r"\[REDACTED:([\w.-]+)\]")


def _fold(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


# Abbreviations of English, and acronyms of the trade that name no particular thing: never "invented".
_COMMON = frozenset(
    {"e.g", "i.e", "etc", "vs", "cf", "n.b", "api", "apis", "json", "yaml", "url", "urls", "http"}
    | {"https", "ci", "cd", "pr", "prs", "ui", "ux", "sql", "cli", "id", "ids", "io", "os", "ok"}
    | {"utc", "iso", "ssh", "tls", "dns", "db", "orm", "sdk", "ide", "env", "dev", "qa"}
)


def invented(text: str, sources: list[str]) -> list[str]:
    """The tokens of `text` that must come from the person and are in none of `sources`: numbers,
    versions, paths, file names, URLs, identifiers (a digit, `.`, `/`, `_` or `-` inside, or in
    backticks) and capitalised names that do not open a sentence. Case is ignored; a compound of
    plain words ("user-facing") passes when each of its words is in the sources."""
    haystack = _fold(" ".join(sources))
    found: list[str] = []
    tokens = list(_BACKTICKED.findall(text))
    previous = ""
    for raw in _BACKTICKED.sub(" ", text).split():
        token = raw.strip(_STRIP)
        opens = not previous or bool(_SENTENCE_END.search(previous))
        previous = raw
        if len(token) < 2 and not token.isdigit():
            continue
        inner = token[1:-1] if len(token) > 2 else token
        if (
            _SPECIFIC.search(inner)
            or any(ch.isdigit() for ch in token)
            or (token[:1].isupper() and not opens)
        ):
            tokens.append(token)
    for token in tokens:
        folded = _fold(token).rstrip("'s").rstrip("’s") if token.endswith(("'s", "’s")) else _fold(token)
        if not folded or folded in _COMMON or folded in haystack or token in found:
            continue
        words = folded.split("-")
        if len(words) > 1 and all(w.isalpha() and len(w) >= 2 and w in haystack for w in words):
            continue
        found.append(token)
    return found


def quote_holds(quote: str, message: str) -> bool:
    folded = _fold(quote)
    return len(folded) >= 3 and folded in _fold(message)


@dataclass
class CheckContext:
    """What one memory dir's decisions are checked against."""

    plan: str
    candidates: dict[str, Candidate]  # this memory dir's candidates in the plan, found again now
    planned: set[str]  # ids the plan listed for this memory dir (some may have left the window)
    entries: dict[str, EntryRef]  # the entries the plan showed, by id
    current: set[str]  # the entry id of every entry in memory now
    # What else the person said in each session (the window's candidates): a rule may join what
    # they said over a conversation, and a name they typed two messages earlier is not invented.
    said_in_session: dict[str, str] = field(default_factory=dict)


def check_decision(item: Any, ctx: CheckContext) -> tuple[DecisionCheck, Directive | None]:
    """One decision: refused with its reason, or accepted as a directive."""
    if not isinstance(item, dict):
        return DecisionCheck("?", "?", False, "not a JSON object", by=By.HOST), None
    cid = str(item.get("candidate", ""))
    action_text = str(item.get("action", ""))

    def refuse(reason: str, waits: bool = False) -> tuple[DecisionCheck, None]:
        # A refusal is the host's decision.
        return DecisionCheck(cid, action_text, False, reason, _text_of(item), By.HOST, waits), None

    if cid not in ctx.planned:
        return refuse(f"not a candidate of plan {ctx.plan}")
    candidate = ctx.candidates.get(cid)
    if candidate is None:
        return refuse("the message is no longer in the window")
    try:
        action = AgentAction(action_text)
    except ValueError:
        return refuse(f"unknown action {action_text!r}")
    why = _SPACE.sub(" ", str(item.get("why") or "")).strip()[:200]
    category = str(item.get("category") or "")
    if action in (AgentAction.DROP, AgentAction.HOLD) and not item.get("text"):
        return DecisionCheck(cid, str(action), True, why or str(action)), Directive(
            candidate, action, "", category, "", why
        )
    if category not in defaults.CATEGORIES:
        return refuse(f"unknown category {category!r}")
    quote, text = item.get("quote"), item.get("text")
    if not isinstance(quote, str) or not quote_holds(quote, candidate.text):
        return refuse("the quote is not in the candidate's message")
    checked = _check_text(text, action, item, candidate, ctx)
    if isinstance(checked, _Refused):
        return refuse(checked.reason, checked.waits)
    text, target = checked
    directive = Directive(candidate, action, text, category, _SPACE.sub(" ", quote).strip(), why, target)
    _safety_holds(directive)
    reason = "accepted" if not directive.hold else "accepted; waits for review: " + "; ".join(directive.hold)
    return DecisionCheck(cid, str(action), True, reason, directive.text), directive


@dataclass(frozen=True)
class _Refused:
    reason: str
    waits: bool = False  # the candidate waits for review rather than keeping its deterministic outcome


def _check_text(
    text: Any, action: AgentAction, item: dict[str, Any], candidate: Candidate, ctx: CheckContext
) -> _Refused | tuple[str, EntryRef | None]:
    """The decision's text and target, or why they are refused."""
    if not isinstance(text, str) or len(_SPACE.sub(" ", text).strip()) < 3:
        return _Refused("no text")
    text = _SPACE.sub(" ", text).strip()
    if len(text) > defaults.DECISION_TEXT_MAX_CHARS:
        return _Refused(f"the text is longer than {defaults.DECISION_TEXT_MAX_CHARS} characters")
    target: EntryRef | None = None
    if action in TARGETED:
        tid = str(item.get("target") or "")
        target = ctx.entries.get(tid)
        if target is None:
            return _Refused(f"unknown target {tid!r} (the candidate waits for review)", waits=True)
        if target.id not in ctx.current:
            return _Refused(f"target {tid} is no longer in memory (it changed since the plan)")
    sources = [candidate.text, candidate.context, _absolute(candidate)]
    sources += [ctx.said_in_session.get(candidate.session_id, ""), target.text if target else ""]
    # A secret in the text is held for review, redacted (below): its marker is the host's word.
    from dream.redact import redact

    made_up = invented(_MARKER.sub(" ", redact(text).text), sources)
    if made_up:
        names = ", ".join(repr(t) for t in made_up[:3])
        return _Refused(f"invents {names} (not in the message, its context, the session or the target)")
    return text, target


def _text_of(item: dict[str, Any]) -> str:
    text = item.get("text")
    if not isinstance(text, str):
        return ""
    from dream.control_text import neutralise
    from dream.redact import redact

    return neutralise(redact(_SPACE.sub(" ", text).strip()[:160]).text)[0]


def _absolute(candidate: Candidate) -> str:
    """The message with its relative dates made absolute: an agent may write the date itself."""
    from dream.dates import absolutize

    try:
        day = date.fromisoformat(candidate.timestamp[:10])
    except ValueError:
        return ""
    return f"{absolutize(candidate.text, day)[0]} {day.isoformat()}"


def _safety_holds(directive: Directive) -> None:
    """A secret or control text in what the decision writes or rests on: redacted, neutralised, and
    held for review (the agent can never apply what carried either)."""
    from dream.control_text import neutralise
    from dream.redact import redact

    cleaned = redact(directive.text)
    kinds = {r.kind for r in cleaned.redactions} | set(_MARKER.findall(directive.text))
    kinds |= set(_MARKER.findall(directive.quote))
    safe, unsafe = neutralise(cleaned.text)
    _, quote_unsafe = neutralise(directive.quote)
    directive.text = safe
    directive.redactions = tuple(sorted(kinds))
    directive.unsafe = tuple(sorted(set(unsafe) | set(quote_unsafe)))
    if directive.redactions:
        directive.hold.append("a secret was redacted: " + ", ".join(directive.redactions))
    if directive.unsafe:
        directive.hold.append("text that tries to instruct the agent: " + ", ".join(directive.unsafe))


def check_all(items: list[Any], ctx: CheckContext) -> tuple[list[DecisionCheck], list[Directive]]:
    """Every decision for one memory dir. A candidate's `drop` or `hold` must be its only decision;
    a candidate has at most DECISIONS_MAX_PER_CANDIDATE."""
    checks: list[DecisionCheck] = []
    directives: list[Directive] = []
    per_candidate: dict[str, list[Directive]] = {}
    for item in items:
        check, directive = check_decision(item, ctx)
        if directive is not None:
            mine = per_candidate.setdefault(directive.candidate.id, [])
            alone = (AgentAction.DROP, AgentAction.HOLD)
            if len(mine) >= defaults.DECISIONS_MAX_PER_CANDIDATE:
                check, directive = _refused(check, "too many decisions for one candidate"), None
            elif mine and (directive.action in alone or any(d.action in alone for d in mine)):
                check, directive = _refused(check, "conflicts with another decision for this candidate"), None
            else:
                mine.append(directive)
        elif check.waits:
            candidate = ctx.candidates.get(check.candidate)
            if candidate is not None and check.candidate not in per_candidate:
                hold = Directive(candidate, AgentAction.HOLD, "", "", "", "the agent named an unknown target")
                per_candidate[check.candidate] = [hold]
                directives.append(hold)
        checks.append(check)
        if directive is not None:
            directives.append(directive)
    return checks, directives


def _refused(check: DecisionCheck, reason: str) -> DecisionCheck:
    return DecisionCheck(check.candidate, check.action, False, reason, check.text, By.HOST)
