"""Lexical evidence for "same meaning" and "contradicts": normalised terms, key terms, polarity.

Decided in code, not by guess: two statements are duplicates when their content words overlap
enough and their key terms (tools, versions) agree; a new statement contradicts an old one when it
names one of the old one's key terms negatively ("pnpm, not npm", "switch from Celery to
Dramatiq"), or asserts another member of the same exclusive group (tabs vs spaces).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache

_WORD = re.compile(r"[a-z0-9][a-z0-9+#._-]*[a-z0-9+#]|[a-z0-9]")
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "then",
        "else",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "into",
        "onto",
        "over",
        "under",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "we",
        "our",
        "us",
        "you",
        "your",
        "i",
        "me",
        "my",
        "they",
        "them",
        "their",
        "he",
        "she",
        "his",
        "her",
        "do",
        "does",
        "did",
        "done",
        "have",
        "has",
        "had",
        "will",
        "would",
        "should",
        "could",
        "can",
        "may",
        "might",
        "must",
        "shall",
        "not",
        "no",
        "never",
        "always",
        "just",
        "also",
        "so",
        "very",
        "too",
        "all",
        "any",
        "some",
        "each",
        "every",
        "more",
        "most",
        "less",
        "least",
        "only",
        "own",
        "same",
        "than",
        "such",
        "what",
        "which",
        "who",
        "whom",
        "when",
        "where",
        "why",
        "how",
        "about",
        "after",
        "before",
        "again",
        "further",
        "once",
        "up",
        "down",
        "out",
        "off",
        "please",
        "pls",
        "ok",
        "okay",
        "use",
        "uses",
        "used",
        "using",
        "make",
        "sure",
        "keep",
        "let",
        "lets",
        "let's",
        "want",
        "wants",
        "prefer",
        "prefers",
        "like",
        "likes",
        "don't",
        "dont",
        "doesn't",
        "isn't",
        "aren't",
        "won't",
        "can't",
        "now",
        "from_now",
        "going",
        "forward",
        "things",
        "thing",
        "stuff",
        "everything",
        "anything",
        "something",
        "really",
        "actually",
    ]
)
# Exclusive groups: asserting one member positively contradicts asserting another.
EXCLUSIVE_GROUPS: tuple[frozenset[str], ...] = (
    frozenset({"tabs", "spaces"}),
    frozenset({"npm", "pnpm", "yarn", "bun"}),
    frozenset({"pip", "uv", "poetry", "pipenv", "conda", "pdm"}),
    frozenset({"celery", "dramatiq", "rq", "huey", "arq"}),
    frozenset({"jest", "vitest", "mocha"}),
    frozenset({"black", "yapf", "autopep8"}),
    frozenset({"camelcase", "snake_case", "kebab-case", "pascalcase"}),
    frozenset({"webpack", "vite", "parcel", "esbuild", "rollup"}),
    frozenset({"circleci", "jenkins", "travis", "buildkite", "gitlab-ci", "github-actions"}),
    frozenset({"postgres", "mysql", "sqlite", "mongodb", "mariadb"}),
    frozenset({"requests", "httpx", "aiohttp"}),
    frozenset({"unittest", "pytest", "nose"}),
)
GROUP_OF = {member: group for group in EXCLUSIVE_GROUPS for member in group}
SYNONYMS = {
    "postgresql": "postgres",
    "psql": "postgres",
    "pg": "postgres",
    "tab": "tabs",
    "space": "spaces",
    "indentation": "indent",
    "js": "javascript",
    "ts": "typescript",
    "k8s": "kubernetes",
    "gh": "github",
    "camelcased": "camelcase",
    "snakecase": "snake_case",
}
KNOWN_TOOLS = frozenset(
    [
        "python",
        "node",
        "deno",
        "golang",
        "rust",
        "java",
        "kotlin",
        "swift",
        "ruby",
        "rails",
        "django",
        "flask",
        "fastapi",
        "react",
        "vue",
        "svelte",
        "angular",
        "next",
        "nuxt",
        "tailwind",
        "bootstrap",
        "docker",
        "podman",
        "kubernetes",
        "helm",
        "terraform",
        "pulumi",
        "ansible",
        "aws",
        "gcp",
        "azure",
        "fly.io",
        "vercel",
        "netlify",
        "heroku",
        "redis",
        "kafka",
        "rabbitmq",
        "nats",
        "sentry",
        "datadog",
        "grafana",
        "prometheus",
        "graphql",
        "grpc",
        "rest",
        "openapi",
        "eslint",
        "prettier",
        "ruff",
        "mypy",
        "pyright",
        "flake8",
        "isort",
        "typescript",
        "javascript",
        "github",
        "gitlab",
        "bitbucket",
        "actions",
        "jira",
        "linear",
        "slack",
        "sqlalchemy",
        "prisma",
        "drizzle",
        "alembic",
        "storybook",
        "cypress",
        "playwright",
        "selenium",
        "nginx",
        "caddy",
        "apache",
        "celery",
    ]
) | frozenset(GROUP_OF)
_NEGATORS = frozenset(
    {
        "not",
        "never",
        "no",
        "don't",
        "dont",
        "avoid",
        "without",
        "stop",
        "drop",
        "ditch",
        "instead",
        "rather",
        "over",
        "from",
        "replace",
        "replaced",
        "nor",
        "against",
        "nicht",
        "kein",
        "keine",
        "pas",
        "jamais",
        "nunca",
        "não",
        "ban",
        "banned",
        "forbid",
        "remove",
    }
)
_VERSION = re.compile(r"^v?\d+(?:\.\d+)+$|^v\d+$")
_CHANGE = re.compile(
    r"\bnot\b|\binstead\b|\brather than\b|\bno longer\b|\bswitch|\bmov(?:e|ed|ing) (?:to|from|off)|"
    r"\bmigrat|\breplac|\bover\b|\bnever\b|\bdon'?t\b|\bstop\b|\bdrop|\bditch|\bfrom\b.+\bto\b|"
    r"\banymore\b|\bany more\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English stemmer: enough that "messages", "message" and "messaging" meet."""
    word = SYNONYMS.get(word, word)
    if word in KNOWN_TOOLS or len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("es") and word[:-2].endswith(("s", "x", "z", "ch", "sh")):
        return word[:-2]
    for suffix in ("ations", "ation", "ings", "ing", "edly", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            # "committed" -> "commit", "changed" -> "chang" + "e" lost: restore a final e
            # when the base ends in a consonant pair that rarely ends an English word.
            if len(base) > 2 and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]
            return base
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return word


def words(text: str) -> list[str]:
    return [
        SYNONYMS.get(w, w).strip("._-")
        for w in _WORD.findall(
            text.lower().replace("github actions", "github-actions").replace("gitlab ci", "gitlab-ci")
        )
    ]


def content_terms(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in words(text) if w and w not in STOPWORDS)


@lru_cache(maxsize=65536)
def is_key_term(term: str) -> bool:
    return term in KNOWN_TOOLS or bool(_VERSION.match(term))


@dataclass(frozen=True)
class Statement:
    """What the similarity rules need to know of an entry or a signal, computed once."""

    terms: frozenset[str]
    keys: frozenset[str]
    positive: frozenset[str]  # key terms asserted
    negative: frozenset[str]  # key terms named as what not to use / what was replaced
    explicit_change: bool


# Bounded and anchored at a word start: an unbounded (\S+) backtracks quadratically on a long token.
_REJECTED = re.compile(r"(?<!\S)(\S{1,40}) is (?:overkill|deprecated|gone)|no more (\S{1,40})")


@lru_cache(maxsize=32768)
def analyse(text: str) -> Statement:
    """Terms, key terms and their polarity. Cached: memories and signals repeat their texts."""
    tokens = words(text)
    stems = [stem(token) if token else "" for token in tokens]
    positive: set[str] = set()
    negative: set[str] = set()
    for i, term in enumerate(stems):
        if not is_key_term(term):
            continue
        window = tokens[max(0, i - 3) : i]
        # "from X to Y": X is what was left behind; "X over Y": Y is rejected.
        negated = any(w in _NEGATORS for w in window)
        if negated and "from" in window and i + 1 < len(tokens) and tokens[i + 1] != "to":
            negated = "to" in tokens[i + 1 : i + 4] or window[-1] == "from"
        (negative if negated else positive).add(term)
    lowered = text.lower()
    if " is " in lowered or "no more" in lowered:
        for match in _REJECTED.finditer(lowered):
            word = (match.group(1) or match.group(2)).strip(".,;:")
            term = stem(SYNONYMS.get(word, word))
            if is_key_term(term):
                negative.add(term)
                positive.discard(term)
    positive -= negative
    terms = frozenset(st for token, st in zip(tokens, stems, strict=True) if token and token not in STOPWORDS)
    return Statement(
        terms=terms,
        keys=frozenset(t for t in terms if is_key_term(t)),
        positive=frozenset(positive),
        negative=frozenset(negative),
        explicit_change=bool(_CHANGE.search(text)),
    )


def similarity(a: Statement, b: Statement) -> float:
    """Jaccard over content terms, key terms counted twice."""
    if not a.terms or not b.terms:
        return 0.0
    shared = a.terms & b.terms
    union = a.terms | b.terms
    bonus = len(shared & (a.keys | b.keys))
    return (len(shared) + bonus) / (len(union) + bonus)


def is_duplicate(new: Statement, old: Statement, threshold: float = 0.5) -> bool:
    if new.negative & old.positive or old.negative & new.positive:
        return False
    if _group_conflict(new, old):
        return False
    versions_new = {k for k in new.keys if _VERSION.match(k)}
    versions_old = {k for k in old.keys if _VERSION.match(k)}
    if versions_new and versions_old and versions_new != versions_old:
        return False
    score = similarity(new, old)
    # Two rules that each name something the other does not ("billing" / "search") are about
    # different subjects, however much wording they share, unless nearly all of it is shared.
    if score < 0.75 and _different_subjects(new.terms - old.terms, old.terms - new.terms):
        return False
    if score >= threshold:
        return True
    # A short restatement whose every content word is in the old entry ("pnpm only" vs a long rule).
    smaller, larger = (new, old) if len(new.terms) <= len(old.terms) else (old, new)
    return len(smaller.terms) >= 2 and smaller.terms <= larger.terms and bool(smaller.keys & larger.keys)


def _different_subjects(only_new: frozenset[str], only_old: frozenset[str]) -> bool:
    """Each side names something specific the other does not: a path, an identifier, a tool,
    or several words of its own ("billing service, docs/billing.md" vs "search service, …")."""
    if not only_new or not only_old:
        return False

    def specific(term: str) -> bool:
        return not term.isalpha() or is_key_term(term)

    if any(map(specific, only_new)) and any(map(specific, only_old)):
        return True
    return len(only_new) >= 2 and len(only_old) >= 2


def _group_conflict(new: Statement, old: Statement) -> set[str]:
    conflicts = set()
    for term in new.positive:
        group = GROUP_OF.get(term)
        if group is None:
            continue
        for other in old.positive & group:
            if other != term and other not in new.positive:
                conflicts.add(other)
    return conflicts


def contradiction(new: Statement, old: Statement) -> tuple[str, bool] | None:
    """(the old key term the new statement rejects, whether the change is explicit), or None."""
    rejected = new.negative & old.positive
    if rejected:
        return sorted(rejected)[0], True
    conflicts = _group_conflict(new, old)
    if conflicts:
        return sorted(conflicts)[0], new.explicit_change
    return None


class TermIndex:
    """Inverted index from terms to items, so matching costs what the shared terms cost."""

    def __init__(self) -> None:
        self._postings: dict[str, list[int]] = defaultdict(list)
        self._positive: dict[str, list[int]] = defaultdict(list)
        self._sizes: dict[int, int] = {}

    def add(self, item: int, statement: Statement) -> None:
        self._sizes[item] = max(1, len(statement.terms))
        for term in statement.terms:
            self._postings[term].append(item)
        for term in statement.positive:
            self._positive[term].append(item)

    def candidates(self, statement: Statement) -> set[int]:
        """Items that could be a duplicate of the statement or contradict it; a superset, cheap.

        A duplicate shares at least a third of the statement's terms, or all of its own (a short
        restatement): items sharing fewer are never compared. A contradiction needs an item that
        asserts a term the statement rejects or a rival of a term it asserts: those come from
        the key-term postings, whatever the overlap.
        """
        # Terms that half of memory shares say little and cost much: count over the rarer ones
        # (at least the rarest), and let is_duplicate judge the full overlap afterwards.
        postings = sorted((self._postings.get(term, []) for term in statement.terms), key=len)
        cap = max(64, len(self._sizes) // 50)
        considered = [p for p in postings if len(p) <= cap] or postings[:1]
        shared: dict[int, int] = defaultdict(int)
        for posting in considered:
            for item in posting:
                shared[item] += 1
        need = max(1, -(-len(considered) // 3))
        sizes = self._sizes
        found = {item for item, n in shared.items() if n >= need or n >= sizes[item]}
        for term in statement.negative:
            found.update(self._positive.get(term, ()))
        for term in statement.positive:
            group = GROUP_OF.get(term)
            if group:
                for member in group - {term}:
                    found.update(self._positive.get(member, ()))
        return found
