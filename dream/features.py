"""Sentence features for the signal model: words, word pairs and cue groups.

The cue groups carry what generalises across voices (durable markers, one-off steering,
questions, decision verbs); the words let the learned weights refine them. The same function
serves training (`scripts/train_signal_model.py`) and inference, so they cannot drift apart.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from dream import regex_cache
from dream.needles import NeedleScan
from dream.sentences import QUOTE_PLACEHOLDER

_TOKEN = regex_cache.compile(r"[a-z]+(?:'[a-z]+)?|\d+(?:\.\d+)*|[^\sa-z\d]", re.IGNORECASE)

# Cue groups; each regex runs on the lowercased sentence. Several languages' main cue words
# are included so a German or Japanese rule is not invisible.
CUES: dict[str, re.Pattern[str]] = {
    "durable": regex_cache.compile(
        r"from now on|going forward|from here on|in (?:the )?future|for future|from today|"
        r"\balways\b|\bnever\b|every ?time|each time|whenever|by default|as a rule|"
        r"in this (?:repo|project|codebase|team|code ?base|org|company|service)|across the|everywhere|"
        r"\bremember\b|keep in mind|note that|\bfyi\b|for the record|heads up|\bconvention\b|"
        r"\bin general\b|\bgenerally\b|\bany ?more\b|\bfrom the start\b|\bthe rule\b|"
        r"\bever\b|without exception|no exceptions|\bat all times\b|"
        r"\bimmer\b|\bnie\b|\bniemals\b|ab jetzt|ab sofort|künftig|zukünftig|in zukunft|"
        r"\btoujours\b|\bjamais\b|désormais|dorénavant|à partir de maintenant|à l'avenir|"
        r"\bsiempre\b|\bnunca\b|a partir de ahora|de ahora en adelante|en adelante|"
        r"\bsempre\b|a partir de agora|daqui para frente|\bmai\b|d'ora in poi|\baltijd\b|\bnooit\b|"
        r"常に|いつも|必ず|絶対|今後|これから|毎回|总是|永远|以后|每次|始终|一律|항상|절대|앞으로|всегда|никогда"
    ),
    "oneoff": regex_cache.compile(
        r"just this once|this once|this time|for now|right now|\bjust\b|for this (?:one|pr|task|spike|"
        r"ticket|branch|test|file|function|change|commit|run|demo)|\bthis (?:file|function|test|line|one|"
        r"method|class|bug|pr|branch|commit|snippet|step|error|output|diff|part|section|component)\b|"
        r"\bthat (?:file|function|test|line|one|method|part)\b|\bhere\b|\bfirst\b|\bagain\b|"
        r"\bnext\b|\binstead\b|\bfor the moment\b|\btemporar|\bquick(?:ly)?\b|\btoday\b|"
        r"nur dieses mal|diesmal|cette fois|pour l'instant|esta vez|por ahora|por enquanto|今回|这次|暂时"
    ),
    "question": regex_cache.compile(
        # "Do not …" and "Don't …" open an instruction, not a question.
        r"\?\s*$|^(?:what|why|how|where|when|which|who|is|are|was|were|do(?! not\b)|does|did|can|could|"
        r"would|should|shall|will|have|has|any idea|wie|was|warum|pourquoi|comment|qu'est|por qué|cómo|"
        r"qué)\b"
    ),
    "request": regex_cache.compile(
        r"^(?:(?:ok|okay|now|and|also|then|so|pls|please|hey)[, ]+)*(?:can|could|would|will) you\b|"
        r"^(?:(?:ok|okay|now|and|also|then|so|hey)[, ]+)*(?:please|pls|plz)\b|"
        r"^(?:(?:ok|okay|now|and|also|then|so)[, ]+)*(?:add|fix|run|create|make|write|rename|remove|"
        r"delete|implement|refactor|check|look|try|revert|undo|show|open|explain|investigate|debug|"
        r"generate|build|deploy|install|move|split|merge|rebase|commit|push|change|bump|upgrade|"
        r"continue|go ahead|proceed|start|finish|retry|rerun|test|review|read|print|list|find|"
        r"search|set up|setup|clean up|port|convert|migrate|send|paste|help|let me|give me)\b|"
        r"\bi need you to\b|\bi want you to\b|\bhelp me\b|\blet me see\b|\bshow me\b"
    ),
    "rule_verb": regex_cache.compile(
        r"^(?:(?:and|also|so|but|please|pls)[, ]+)*(?:use|prefer|avoid|don't|do not|dont|never|always|"
        r"keep|make sure|ensure|stop|only|no more|stick to|default to|put|name|write|format|"
        r"bitte|verwende|benutze|utilise|utilisez|usa|use|evita|n'utilise|不要|请|使って)\b"
    ),
    "we_state": regex_cache.compile(
        r"\b(?:we|our|the team|this repo|this project|the project|the codebase|the repo|our team|"
        r"my team|the company|ops|prod|production|staging|ci|the ci)\b.{0,40}\b(?:use|uses|using|run|"
        r"runs|have|has|own|owns|deploy|deploys|host|hosts|is|are|need|needs|require|requires|rely|"
        r"relies|target|targets|support|supports|ship|ships|live|lives|store|stores|pin|pins|only)\b"
    ),
    "decision": regex_cache.compile(
        r"\bdecided\b|\bagreed\b|\bwe'll go with\b|\bgo with\b|\bgoing with\b|\bstick with\b|"
        r"\bswitch(?:ed|ing)? (?:to|from|over)\b|\bmov(?:e|ed|ing) (?:to|from|off)\b|\bchose\b|"
        r"\bchoose\b|\bopted\b|\bsettled on\b|\bthe plan is\b|\bwe will\b|\bwe're dropping\b|"
        r"\bdrop(?:ping)? support\b|\bdeprecat|\bover\b|\brather than\b|\binstead of\b|\bforget\b|"
        r"\bditch|\bmigrat|\bwe're going\b|\blet's use\b|\blet's go\b|\bentschieden\b|\bdécidé\b|"
        r"\bdecidimos\b|\bdecidido\b|决定|決め"
    ),
    "pattern": regex_cache.compile(
        r"every ?time|each time|whenever|after every|before every|after each|before each|"
        r"\byou keep\b|\bkeeps?\b|\bagain\b|\bas usual\b|like last time|same as (?:before|last)|"
        r"\bevery (?:release|deploy|commit|pr|time|sprint|week|day|monday|friday)\b|\busually\b|"
        r"\beach (?:release|deploy|commit|pr|sprint|week)\b|\bwhen(?:ever)? you\b|jedes mal|chaque fois|"
        r"cada vez|毎回|每次"
    ),
    "correction": regex_cache.compile(
        r"^(?:no|nope|nah|wrong|incorrect|not quite|actually)\b|that's (?:wrong|not|incorrect)|"
        r"\bi said\b|\bi told you\b|\bnot\s+\S+,|,\s*not\b|\bisn't\b|\bdoesn't\b|\bwe don't\b|"
        r"\bwrong\b|\bstop\b|\bnein\b|\bnon\b"
    ),
    "preference": regex_cache.compile(
        r"\bi (?:prefer|like|love|hate|dislike|want|don't want|do not want|don't like|'d rather|"
        r"would rather|'d like|care)\b|\bi'?m not a fan\b|\bplease (?:don't|do not|never|always)\b|"
        r"\bpreference\b|\bprefer\b|\brather\b|\bich (?:mag|möchte|bevorzuge)|\bje préfère\b|"
        r"\bprefiero\b|\bprefiro\b"
    ),
    "fact": regex_cache.compile(
        r"\b(?:runs? on|lives? in|hosted on|deployed (?:on|to)|owns?|owned by|located|version|"
        r"v\d|deadline|on-call|responsible for|maintains|is (?:on|in|at)|are (?:on|in|at)|"
        r"uses?|written in|based on|timezone|region|port \d+|is the|are the|only)\b"
    ),
    "past_task": regex_cache.compile(
        r"\b(?:it|this|that) (?:works|worked|failed|fails|broke|looks)\b|\blooks good\b"
    ),
    "thanks": regex_cache.compile(
        r"^(?:thanks|thank you|thx|ty|great|nice|cool|perfect|awesome|lgtm|ok|okay|sure)\b"
    ),
    "quote": regex_cache.compile(re.escape(QUOTE_PLACEHOLDER)),
    "tool": regex_cache.compile(
        r"\b(?:npm|pnpm|yarn|bun|pip|uv|poetry|conda|cargo|go|maven|gradle|docker|kubernetes|k8s|"
        r"terraform|ansible|postgres|postgresql|mysql|sqlite|redis|kafka|celery|django|flask|fastapi|"
        r"react|vue|svelte|next|tailwind|jest|vitest|pytest|mypy|ruff|black|eslint|prettier|git|"
        r"github|gitlab|actions|circleci|jenkins|aws|gcp|azure|fly\.io|vercel|heroku|python|node|"
        r"typescript|javascript|rust|java|kotlin|swift|ruby|rails|graphql|grpc|openapi)\b"
    ),
    "version": regex_cache.compile(r"\b\d+\.\d+(?:\.\d+)?\b|\bv\d+\b|\bpython ?3|\bnode ?\d"),
    "imperative_neg": regex_cache.compile(r"^(?:don't|do not|dont|never|no)\b"),
}
_CUE_NAMES = tuple(CUES)


def _required_literals(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """Literal fragments of which every match contains at least one, or None if unknown.

    Python's regex engine cannot skip ahead in an alternation that starts with `\\b`, so a
    cue with 70 alternatives costs ~70 µs a sentence; a substring check for these fragments
    first costs a few. Derived from the pattern itself, so the gate can never disagree with it.
    """
    if pattern.flags & re.IGNORECASE:
        return None
    try:
        from re import _constants as codes  # type: ignore[attr-defined]
        from re import _parser as parser  # type: ignore[attr-defined]
    except ImportError:  # Python 3.10
        import sre_constants as codes
        import sre_parse as parser
    try:
        requirement = _Literals(codes).sequence(list(parser.parse(pattern.pattern, pattern.flags)))
    except Exception:  # an internal API changed: fall back to running the regex always
        return None
    if requirement is None or min(map(len, requirement)) < 2:
        return None
    # A fragment that contains another is implied by it.
    kept = {f for f in requirement if not any(g != f and g in f for g in requirement)}
    return tuple(sorted(kept))


class _Literals:
    """Walks a parsed pattern for the literal fragments every match must contain."""

    def __init__(self, codes: Any) -> None:
        self.codes = codes

    @staticmethod
    def better(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
        # The requirement that filters best: longest shortest fragment, then fewest fragments.
        if a is None or b is None:
            return a or b
        return max(a, b, key=lambda req: (min(map(len, req)), -len(req)))

    def sequence(self, items: list[Any]) -> frozenset[str] | None:
        codes = self.codes
        best: frozenset[str] | None = None
        run = ""
        for op, value in items:
            if op is codes.LITERAL:
                run += chr(value)
                continue
            if run:
                best, run = self.better(best, frozenset([run])), ""
            if op is codes.SUBPATTERN:
                if not value[1] & re.IGNORECASE:  # an inline (?i:…) is not a literal
                    best = self.better(best, self.sequence(list(value[-1])))
            elif op is codes.BRANCH:
                best = self.better(best, self.branch(value[1]))
            elif op in (codes.MAX_REPEAT, codes.MIN_REPEAT) and value[0] >= 1:
                best = self.better(best, self.sequence(list(value[2])))
        return self.better(best, frozenset([run])) if run else best

    def branch(self, alternatives: list[Any]) -> frozenset[str] | None:
        found: set[str] = set()
        for alternative in alternatives:
            requirement = self.sequence(list(alternative))
            if requirement is None:
                return None
            found |= requirement
        return frozenset(found)


class _CueScanner:
    """Which cue groups may be present in a sentence, from one pass over it.

    Each cue's regex is run only when one of its required fragments (`_required_literals`)
    occurs; one lookahead scan finds every fragment that starts at each position, instead of a
    search per cue. Cues without fragments are always run.
    """

    def __init__(self, cues: dict[str, re.Pattern[str]]) -> None:
        by_fragment: dict[str, set[str]] = {}
        always = []
        for name, pattern in cues.items():
            fragments = _required_literals(pattern)
            if fragments is None:
                always.append(name)
            for fragment in fragments or ():
                by_fragment.setdefault(fragment, set()).add(name)
        self.always = frozenset(always)
        self.scan = NeedleScan(by_fragment) if by_fragment else None

    def candidates(self, lowered: str) -> frozenset[str]:
        if self.scan is None:
            return self.always
        return self.always | self.scan.owners(lowered)


_SCANNER = _CueScanner(CUES)


def cues_present(lowered: str) -> list[str]:
    """Names of the cue groups whose regex matches the lowercased sentence, in CUES order."""
    candidates = _SCANNER.candidates(lowered)
    return [name for name in _CUE_NAMES if name in candidates and CUES[name].search(lowered)]


def tokens(sentence: str) -> list[str]:
    out = []
    for token in _TOKEN.findall(sentence.lower()):
        if token[0].isdigit():
            out.append("<num>")
        elif token.isalpha() or "'" in token:
            out.append(token)
    return out


def sentence_features(sentence: str, message_is_question: bool, sentence_count: int) -> list[str]:
    """Feature names present in one sentence (binary features)."""
    return analyse_sentence(sentence, message_is_question, sentence_count)[0]


# The words that carry a rule in languages the training set has no sentences of, read as the
# English word the weights know: "NIGDY String.to_atom", "zawsze squash", "w args TYLKO id",
# "d'ora in poi". (French, Spanish, Portuguese and German have sentences there: their own words
# have weights, and reading them as English measured worse.)
_RULE_WORDS = {
    # Polish (with and without diacritics)
    "zawsze": "always", "nigdy": "never", "tylko": "only", "wyłącznie": "only", "wylacznie": "only",
    "każdy": "every", "kazdy": "every", "każda": "every", "kazda": "every", "żadnych": "no",
    "zadnych": "no", "żaden": "no", "zaden": "no", "bez": "without", "zamiast": "instead of",
    "używamy": "we use", "uzywamy": "we use", "używaj": "use", "uzywaj": "use",
    "zostajemy": "we stay with", "mówiłem": "i said", "mowilem": "i said", "od teraz": "from now on",
    "od dzisiaj": "from now on", "już nie": "not anymore", "juz nie": "not anymore",
    # Italian
    "usiamo": "we use", "non usare": "don't use", "niente": "no", "d'ora in poi": "from now on",
    "soltanto": "only", "ogni volta": "every time", "invece di": "instead of",
    # Dutch
    "gebruiken": "use", "alleen": "only", "voortaan": "from now on", "elke keer": "every time",
    # Czech
    "vždy": "always", "vzdy": "always", "nikdy": "never", "pouze": "only",
}  # fmt: skip
_RULE_WORD = regex_cache.compile(
    r"(?<!\w)(?:" + "|".join(sorted(map(re.escape, _RULE_WORDS), key=len, reverse=True)) + r")(?!\w)"
)


def _english_rule_words(lowered: str) -> str:
    if not _RULE_WORD.search(lowered):
        return lowered
    return _RULE_WORD.sub(lambda m: _RULE_WORDS[m.group(0)], lowered)


def analyse_sentence(
    sentence: str, message_is_question: bool, sentence_count: int
) -> tuple[list[str], tuple[str, ...]]:
    """The sentence's features, and the names of the cue groups present in it."""
    lowered = _english_rule_words(sentence.lower().strip())
    words = tokens(lowered)
    feats = ["bias"]
    feats.extend("w:" + w for w in set(words))
    feats.extend(f"b:{a}_{b}" for a, b in set(itertools.pairwise(words)))
    if words:
        feats.append("first:" + words[0])
        if len(words) > 1:
            feats.append(f"first2:{words[0]}_{words[1]}")
    present = cues_present(lowered)
    feats.extend("cue:" + name for name in present)
    # Pairs of cues carry the interactions that matter: a durable marker inside a question is
    # not a rule; a one-off marker beside a request is steering.
    feats.extend(f"cue2:{a}+{b}" for i, a in enumerate(present) for b in present[i + 1 :])
    n = len(words)
    feats.append(
        "len:"
        + ("1-3" if n <= 3 else "4-7" if n <= 7 else "8-15" if n <= 15 else "16-30" if n <= 30 else "31+")
    )
    if message_is_question:
        feats.append("msg:question")
    feats.append("msg:sentences:" + ("1" if sentence_count == 1 else "2-3" if sentence_count <= 3 else "4+"))
    if not sentence.isascii():
        feats.append("non_ascii")
    return feats, tuple(present)
