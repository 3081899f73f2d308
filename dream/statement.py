"""What a statement says, lexically: its content terms, its key terms (tools, versions) and their
polarity (asserted, or named as what not to use). The vocabulary lives here too: stopwords,
synonyms, known tools and the exclusive groups (tabs vs spaces). `matching` decides "same
meaning" from this, `contradiction` decides "B replaces A".
"""

from __future__ import annotations

import re
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
VERSION = re.compile(r"^v?\d+(?:\.\d+)+$|^v\d+$")
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
    return term in KNOWN_TOOLS or bool(VERSION.match(term))


@dataclass(frozen=True)
class Statement:
    """What matching and contradiction need to know of an entry or a signal, computed once."""

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
