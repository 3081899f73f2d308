"""GATHER SIGNAL: turn one user message into signals (DESIGN.md §4).

A message is split into prose sentences; the shipped model scores each; sentences above the
threshold become signals with a category, a confidence and the scores the gates use. Secrets are
redacted and agent-steering text neutralised before a signal exists, so nothing downstream
(digest cache, proposals, report) can hold either.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from dream import defaults, regex_cache
from dream.transcripts import UserMessage

# The model, the cue regexes and the redaction patterns are imported where they are used: a
# run whose sessions are all cached (the common case) never needs them, nor their compile time.

JSON_KEYS = (
    "project",
    "session_id",
    "uuid",
    "timestamp",
    "category",
    "text",
    "confidence",
    "durability",
    "change_risk",
    "sensitivity",
)

_EXPLICIT = ("durable", "rule_verb", "preference", "decision", "we_state", "correction", "pattern")
# Words that say what they qualify may not last: "for now", "until the migration", "this sprint".
_FOR_A_WHILE = (
    r"\bfor now\b|\btemporar|\buntil\b|\bfor the (?:moment|time being)\b|"
    r"\bthis (?:week|sprint|month|quarter)\b|"
    r"\b(?:pour l'instant|pour le moment|por ahora|por enquanto|vorerst|fürs erste|für jetzt|per ora|"
    r"voor nu|na razie|na teraz)\b"
)
FOR_A_WHILE = regex_cache.compile(_FOR_A_WHILE, re.IGNORECASE)
# ... and the words that say a rule may soon change besides: "currently", "still", "not yet".
_VOLATILE = regex_cache.compile(
    _FOR_A_WHILE + r"|\bcurrently\b|\bat the moment\b|\bright now\b|\bstill\b|\bnot yet\b|"
    # "today" dates the news ("the new board came today"); only "for today" limits the rule
    r"\b(?:for|just|only|until) (?:today|tomorrow)\b|"
    # a one-off exception: "for this release only", "just for this build", "just this once"
    r"\b(?:just |only )?for this (?:release|build|pr|branch|ticket|task|run|capture|demo|deploy|commit|"
    r"sprint|one|test|file|script)\b|\bthis (?:release|build|pr|run|time|once) only\b|"
    r"\bjust this (?:once|time)\b|"
    r"\b(?:voor vandaag|pour aujourd'hui|für heute|por hoy|per oggi|na dziś|na dzis)\b",
    re.IGNORECASE,
)
_PERSONAL = regex_cache.compile(
    r"[\w.+-]+@[\w-]+\.[\w.]+|(?<![\w.])(?:\+\d{1,3}[\s-]?)?\(?\d{2,4}\)?[\s-]\d{3,4}[\s-]?\d{3,5}(?![\w.])|"
    r"\b(?:salary|diagnos|medical|pregnan|divorce|"
    r"home address|social security|passport)\b",
    re.IGNORECASE,
)
# What a task request or a complaint can be worth, whatever the model read in it: below what the
# review queue takes, so it is dropped (counted in the report), never queued or applied.
_TASK_DURABILITY = 0.6
_MARKER_KIND = regex_cache.compile(r"\[REDACTED:([\w.-]+)\]")  # dream.redact.marker(kind)


class Signal(NamedTuple):
    """One statement of the user's that may belong in memory. Immutable; a named tuple rather than
    a frozen dataclass because a warm run builds thousands from the digest cache, six times faster."""

    project: str
    session_id: str
    uuid: str
    timestamp: str
    category: str
    text: str
    confidence: float
    durability: float
    change_risk: float
    sensitivity: float
    categories: tuple[str, ...] = ()
    # Kinds of secret removed from the text (never the values).
    redactions: tuple[str, ...] = ()
    # Why the text had to be neutralised (agent-steering content); such a signal is never auto-applied.
    unsafe: tuple[str, ...] = ()
    # The person's exact words the rule rests on (redacted, neutralised).
    quote: str = ""

    def public_json(self) -> dict[str, Any]:
        """The keys DESIGN.md §7 promises for `signals --json`."""
        return {key: getattr(self, key) for key in JSON_KEYS}

    def to_json(self) -> dict[str, Any]:
        data = self.public_json()
        data["categories"] = list(self.categories)
        data["redactions"] = list(self.redactions)
        data["unsafe"] = list(self.unsafe)
        data["quote"] = self.quote
        return data

    def to_row(self) -> list[Any]:
        """The compact form the digest cache stores (a list; the project is the cache's folder)."""
        return [
            self.session_id,
            self.uuid,
            self.timestamp,
            self.category,
            self.text,
            self.confidence,
            self.durability,
            self.change_risk,
            self.sensitivity,
            list(self.categories),
            list(self.redactions),
            list(self.unsafe),
            self.quote,
        ]

    @classmethod
    def from_row(cls, project: str, row: list[Any]) -> Signal:
        (session_id, uuid, timestamp, category, text, confidence, durability, change_risk, sensitivity,
         categories, redactions, unsafe, quote) = row  # fmt: skip
        return cls(
            project,
            str(session_id),
            str(uuid),
            str(timestamp),
            str(category),
            str(text),
            float(confidence),
            float(durability),
            float(change_risk),
            float(sensitivity),
            tuple(categories),
            tuple(redactions),
            tuple(unsafe),
            str(quote),
        )


@dataclass(frozen=True)
class ScoredSentence:
    text: str
    probability: float
    categories: tuple[str, ...]
    cues: tuple[str, ...]


def score_message(text: str, with_categories: bool = False) -> list[ScoredSentence]:
    """Every prose sentence of a message with its signal probability, best category first.

    Categories are scored only for sentences above the threshold unless asked for.
    """
    from dream.rules import split_pieces

    return _score_pieces([piece.scored for piece in split_pieces(text)], text, with_categories)


def _score_pieces(sentences: list[str], text: str, with_categories: bool = False) -> list[ScoredSentence]:
    """The model's reading of each piece of a message (`text`), as `score_message` returns it."""
    from dream.features import analyse_sentence
    from dream.model import load_model

    model = load_model()
    is_question = text.rstrip().endswith("?")
    scored = []
    for sentence in sentences:
        feats, cues = analyse_sentence(sentence, is_question, len(sentences))
        probability = model.signal_probability(feats)
        chosen: tuple[str, ...] = ()
        if probability >= model.threshold or with_categories:
            by_category = model.category_probabilities(feats)
            ranked = sorted(by_category, key=lambda c: -by_category[c])
            chosen = tuple(c for c in ranked if by_category[c] >= 0.5) or (ranked[0],)
        scored.append(ScoredSentence(sentence, probability, chosen, cues))
    return scored


def is_signal_message(text: str) -> bool:
    """Detection at message level: does any sentence of it pass the threshold?"""
    from dream.model import load_model

    threshold = load_model().threshold
    return any(s.probability >= threshold for s in score_message(text))


def _clip(text: str, limit: int = defaults.SIGNAL_MAX_CHARS) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


def _scores(sentence: ScoredSentence, redacted: bool) -> tuple[float, float, float, float]:
    """Confidence, durability, change risk and sensitivity of a rule.

    Durability is the model's probability made a calibrated one (out-of-fold, with the cues that
    say a rule outlives the task or not; `scripts/train_signal_model.py --eval` prints the held-out
    table), less what says it may soon change: the gates' thresholds mean what they say.
    Confidence is high for an explicit instruction, else the same calibrated probability.
    """
    from dream.model import load_model
    from dream.rules import is_observation, is_task

    probability = sentence.probability
    cues = set(sentence.cues)
    explicit = bool(cues & set(_EXPLICIT)) and "question" not in cues
    durability = load_model().durability(probability, sentence.text, cues)
    # An explicit instruction that the model accepts is high confidence (DESIGN.md §4): the
    # person said it in so many words. Whether it holds beyond the task is durability's to say.
    confidence = 0.9 + 0.09 * probability if explicit and probability >= 0.5 else durability
    change_risk = 0.1
    if is_task(sentence.text) or is_observation(sentence.text):
        durability = min(durability, _TASK_DURABILITY)
    if _VOLATILE.search(sentence.text):
        change_risk += 0.35
        durability -= 0.15
    if "question" in sentence.cues:
        change_risk += 0.2
    sensitivity = 1.0 if redacted else 0.6 if _PERSONAL.search(sentence.text) else 0.05
    return (
        round(min(confidence, 0.99), 3),
        round(max(0.0, min(durability, 0.99)), 3),
        round(min(change_risk, 1.0), 3),
        sensitivity,
    )


def quote_scores(quote: str, text: str, redacted: bool) -> tuple[float, float]:
    """Change risk and sensitivity of a rule the agent wrote, read off the person's words it cites
    and the rule itself, the way `_scores` reads a signal's."""
    change_risk = 0.1 + (0.35 if _VOLATILE.search(quote) or _VOLATILE.search(text) else 0.0)
    personal = _PERSONAL.search(quote) or _PERSONAL.search(text)
    sensitivity = 1.0 if redacted else 0.6 if personal else 0.05
    return round(min(change_risk, 1.0), 3), sensitivity


def extract_signals(message: UserMessage, project: str, redacted_text: str | None = None) -> list[Signal]:
    """The rules of one user message (`dream.rules`), redacted and neutralised.

    `redacted_text`: the message already passed through `redact` (the digest needs it anyway).
    """
    return read_message(message, project, redacted_text)[0]


def read_message(
    message: UserMessage, project: str, redacted_text: str | None = None
) -> tuple[list[Signal], float]:
    """The message's signals, and the model's best reading of any of its pieces (what makes it a
    candidate for the agent pass even when no piece passed the threshold)."""
    from dream.control_text import neutralise_piece, pieces_need_no_look
    from dream.model import load_model
    from dream.redact import redact
    from dream.rules import message_rules, split_pieces
    from dream.sentences import strip_inline_code
    from dream.statement import says_changed, says_gone

    threshold = load_model().threshold
    # Redact the whole message first: a secret can span lines (a private key block) that the
    # splitter would otherwise hand over piece by piece.
    text_in = redacted_text if redacted_text is not None else redact(message.text).text
    pieces = split_pieces(text_in)
    scored = _score_pieces([piece.scored for piece in pieces], text_in)
    for i, piece in enumerate(pieces):
        asks = {"question", "request"} & set(scored[i].cues)  # "can u rip out the gtag stuff?"
        if (
            scored[i].probability < threshold
            and not asks
            and (says_gone(piece.text) or says_changed(piece.text))
        ):
            # "Slack, c'est terminé pour nous": a change announced is a rule piece; how durable it
            # is stays the model's to say (it retires an entry only where one names it).
            scored[i] = ScoredSentence(scored[i].text, threshold, ("decision",), scored[i].cues)
    is_rule = [s.probability >= threshold for s in scored]
    best_probability = max((s.probability for s in scored), default=0.0)
    signals = []
    clean: bool | None = None  # the whole message holds no control text (looked at once, if needed)
    piece_categories = [s.categories if flag else () for s, flag in zip(scored, is_rule, strict=True)]
    # The agent's turn matters only where a piece is a rule (an answer that is no rule adds none).
    agent_before = message.agent_before if any(is_rule) else ""
    for rule in message_rules(pieces, is_rule, agent_before, piece_categories):
        members = [i for i in rule.pieces if is_rule[i]]
        best = scored[max(members, key=lambda i: scored[i].probability)]
        categories = best.categories  # scored: a rule piece is above the threshold
        cues = tuple(sorted({cue for i in members for cue in scored[i].cues}))
        # Each rule piece of one rule is evidence of it ("crane shifts are 8h. boundaries 06:00,
        # 14:00, 22:00. an assignment can't cross a boundary"): terse pieces the model reads as
        # barely rules make a rule together.
        evidence = 1 - math.prod(1 - scored[i].probability for i in members)
        sentence = ScoredSentence(rule.text, evidence, categories, cues)
        text = strip_inline_code(rule.text)
        # The message was redacted whole; only a rewritten rule (words dropped or joined, which
        # can put a key name beside its value) is new text to redact. Its quote is the message's.
        redacted = text if text in text_in else redact(text).text
        kinds = set(_MARKER_KIND.findall(redacted))
        quote = rule.quote if rule.quote in text_in else redact(rule.quote).text
        if clean is None:
            clean = pieces_need_no_look(text_in)
        safe_text, unsafe = neutralise_piece(redacted, text_in, clean)
        safe_quote, quote_unsafe = neutralise_piece(quote, text_in, clean)
        # The rewrite must never be what hides control text: the person's words decide too.
        unsafe = tuple(sorted(set(unsafe) | set(quote_unsafe)))
        if len(_MARKER_KIND.sub("", safe_text).strip(" .,:;-")) < 3:
            continue
        confidence, durability, change_risk, sensitivity = _scores(sentence, bool(kinds))
        signals.append(
            Signal(
                project=project,
                session_id=message.session_id,
                uuid=message.uuid,
                timestamp=message.timestamp.isoformat().replace("+00:00", "Z"),
                category=categories[0],
                text=_clip(safe_text),
                confidence=confidence,
                durability=durability,
                change_risk=change_risk,
                sensitivity=sensitivity,
                categories=categories,
                redactions=tuple(sorted(kinds)),
                unsafe=unsafe,
                quote=_clip(safe_quote, defaults.QUOTE_MAX_CHARS),
            )
        )
    return signals, best_probability
