"""What a statement says, lexically: its content terms, its key terms (tools, versions) and their
polarity (asserted, or named as what not to use). The vocabulary lives here too: stopwords,
synonyms, known tools and the exclusive groups (tabs vs spaces). `matching` decides "same
meaning" from this, `contradiction` decides "B replaces A".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from dream import regex_cache

_WORD = regex_cache.compile(r"[a-z0-9][a-z0-9+#._-]*[a-z0-9+#]|[a-z0-9]")
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
    frozenset({"pandas", "polars"}),
    frozenset({"livedata", "stateflow"}),
    frozenset({"moshi", "kotlinx.serialization", "gson", "jackson"}),
    frozenset({"hilt", "koin"}),
    frozenset({"redux", "zustand", "mobx"}),
    frozenset({"wandb", "mlflow", "neptune"}),
)
GROUP_OF = {member: group for group in EXCLUSIVE_GROUPS for member in group}
SYNONYMS = {
    "next.js": "nextjs",
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
        "nextjs",
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
# Words that open a rejection of the key terms right after them ("not npm", "instead of npm",
# "no more npm"). "from" and "off" reject only in a change ("moved from X to Y"): _negates_from.
_NEGATORS = frozenset(
    {
        "not",
        "never",
        "no",
        "avoid",
        "avoiding",
        "without",
        "stop",
        "stopped",
        "drop",
        "dropped",
        "ditch",
        "ditched",
        "instead",
        "rather",
        "over",
        "replace",
        "nor",
        "against",
        "nicht",
        "kein",
        "keine",
        "pas",
        "jamais",
        "nunca",
        "não",
        "nada",
        "sin",
        "sem",
        "ohne",
        "nie",
        "niemals",
        "vez",  # en vez de, em vez de
        "lugar",  # en lugar de
        "lieu",  # au lieu de
        "statt",
        "anstatt",
        "anstelle",
        "ban",
        "banning",
        "forbid",
        "remove",
        "removing",
        "replaced",  # "Dramatiq replaced Celery"; "replaced by"/"with" stop before the new one
        "replaces",
        "replacing",
        "dropping",
        "ditching",
        "retiring",
        "retire",
        "ripping",  # ripping out
        "rip",
        "rid",  # get rid of
        "phasing",  # phasing out
        "phase",
        "sunset",
        "sunsetting",
        "kill",
        "killing",
        "deprecate",
        "deprecating",
        "scrap",
        "scrapping",
        "scrapped",
        "abandon",
        "abandoning",
        "abandoned",
    }
)
# Words a rejection reaches across ("don't ever use plain npm", "no more new Redux slices",
# "I don't want you to use npm"); a preposition or any other content word ends it.
_TRANSPARENT = frozenset(
    [
        "a",
        "an",
        "the",
        "any",
        "more",
        "longer",
        "ever",
        "even",
        "just",
        "really",
        "actually",
        "please",
        "also",
        "again",
        "i",
        "we",
        "you",
        "they",
        "it",
        "to",
        "be",
        "do",
        "doing",
        "should",
        "would",
        "will",
        "can",
        "could",
        "must",
        "shall",
        "want",
        "wants",
        "need",
        "needs",
        "let",
        "lets",
        "let's",
        "like",
        "use",
        "uses",
        "using",
        "used",
        "go",
        "going",
        "goes",
        "run",
        "running",
        "install",
        "installing",
        "add",
        "adding",
        "switch",
        "move",
        "migrate",
        "back",
        "revert",
        "bother",
        "try",
        "trying",
        "touch",
        "touching",
        "call",
        "calling",
        "pick",
        "choose",
        "introduce",
        "introducing",
        "adopt",
        "adopting",
        "bring",
        "mix",
        "mixing",
        "recommend",
        "suggest",
        "via",
        "through",
        "than",
        "of",
        "plain",
        "old",
        "new",
        "default",
        "global",
        "globally",
        "direct",
        "directly",
        "raw",
        "bare",
        "legacy",
        "de",
        "du",
        "des",
        "un",
        "una",
        "um",
        "uma",
        "el",
        "la",
        "le",
        "der",
        "die",
        "das",
        "den",
        "von",
        "usa",
        "usar",
        "usamos",
        "usem",
        "utiliser",
        "verwenden",
        "nutzen",
        "benutzen",
        "out",
    ]
)
# What makes "from"/"off" mean "left behind" without a "to" after it ("we moved away from jest").
_CHANGE_VERB = regex_cache.compile(r"^(?:mov|migrat|switch|port|transition|chang|went$|go$|going$|away$)")
# "X is overkill", "X was replaced": the key term before these is rejected.
_REJECTED_AFTER = frozenset(
    {
        "overkill",
        "deprecated",
        "gone",
        "dead",
        "out",
        "banned",
        "removed",
        "dropped",
        "replaced",
        "forbidden",
        "obsolete",
        "discouraged",
        "ditched",
    }
)
_COPULA = frozenset(
    {"is", "are", "was", "were", "has", "have", "been", "being", "got", "gets", "now", "officially"}
)
_NOT_WANTED = frozenset(
    {"allowed", "used", "option", "welcome", "needed", "wanted", "supported", "an", "worth"}
)
# "pnpm lint", "uv run pytest": the tool only runs a script there, it is not the entry's choice.
_SUBCOMMANDS = frozenset(
    {
        "compile",
        "lock",
        "sync",
        "venv",
        "pip",
        "tool",
        "tree",
        "export",
        "run",
        "exec",
        "dlx",
        "x",
        "test",
        "lint",
        "typecheck",
        "type-check",
        "tsc",
        "build",
        "dev",
        "start",
        "format",
        "fmt",
        "check",
        "audit",
        "publish",
        "serve",
        "preview",
        "watch",
        "e2e",
        "generate",
        "codegen",
        "gen",
        "deploy",
        "release",
        "clean",
        "bench",
        "vet",
        "tidy",
    }
)
# After a rejected tool, these make the rejection one of a command or a product, not of the tool.
_QUALIFIERS = _SUBCOMMANDS | frozenset(
    [
        "worker",
        "workers",
        "service",
        "services",
        "client",
        "clients",
        "module",
        "modules",
        "script",
        "scripts",
        "image",
        "images",
        "container",
        "containers",
        "native",
        "pages",
        "releases",
        "orm",
        "swarm",
        "secrets",
        "lambda",
        "router",
        "admin",
        "cli",
        "sdk",
        "cloud",
        "registry",
        "desktop",
        "functions",
        "hub",
        "copilot",
        "wiki",
        "packages",
        "install",
        "i",
        "add",
        "apply",
        "destroy",
        "push",
        "commit",
        "merge",
        "rebase",
        "reset",
        "init",
        "upgrade",
        "update",
        "remove",
        "uninstall",
        "ci",
        "sync",
        "lock",
        "compose",
        "m",
        "exec",
        "rm",
        "prune",
        "force",
        "f",
    ]
)
VERSION = regex_cache.compile(r"^v?\d+(?:\.\d+)+$|^v\d+$")
_CHANGE = regex_cache.compile(
    # One \b before every word (not a lookbehind and a \b in each of them): a pattern that opens
    # with a literal boundary is tried only where a word starts, five times faster.
    r"\b(?:"
    r"not\b|instead\b|rather than\b|no longer\b|switch|mov(?:e|ed|ing) (?:to|from|off)|"
    r"migrat|replac|over\b|never\b|don'?t\b|stop\b|drop|ditch|"
    r"anymore\b|any more\b|against\b|bump|upgrad|downgrad|pinn?ed\b|nope\b|"
    r"in favou?r of\b|scrap|shelv|abandon|gone\b|removed\b|changed\b|"
    r"migrou\b|migramos\b|mudamos\b|trocamos\b|subimos\b|tiramos\b|tirou\b|agora\b|"
    r"cambiamos\b|ahora\b|ya no\b|n[ãa]o mais\b|jetzt\b|umgestellt\b|"
    r"gewechselt\b|nicht mehr\b|désormais\b|plus de\b"
    r")|"
    # "CI is on GitHub Actions now": a "now" after what it qualifies, not the "Now, …" of a new step
    r"(?<=\w )now\b",
)  # matched against the lower-cased text (`_normalise`): IGNORECASE would cost it twice as much


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


# Names of more than one word, made one token so they can be key terms.
_PHRASES = (
    ("github actions", "github-actions"),
    ("gitlab ci", "gitlab-ci"),
    ("kotlinx serialization", "kotlinx.serialization"),
    ("weights & biases", "wandb"),
    ("weights and biases", "wandb"),
)


# What names a thing in a rule's words: a path or dotted name, code, a CamelCase or ALL-CAPS word,
# a version, a capitalised name inside a sentence, a common tool. (Here, not in `rules`, so the
# gates can ask it without importing the message parser.)
KEY_TERM = regex_cache.compile(
    r"[\w.-]*[./_][\w./*-]+|`[^`]+`|\b[A-Z][a-z]+[A-Z]\w*|\b[a-z]+[A-Z]\w*|\b[A-Z]{2,}\w*|\b\d+(?:\.\d+)+\b|"
    # a name inside a sentence ("we moved it to Kamal", "staging is on Heroku"), not its first word
    r"(?<=[a-z,;:] )[A-Z][a-z]{2,}\b|"
    r"\b(?:npm|pnpm|yarn|pip|uv|poetry|cargo|go|gradle|docker|postgres|redis|jest|vitest|pytest|"
    r"ruff|mypy|eslint|prettier|tailwind|react|python|node|kotlin|swift|rust|java|git|github|"
    r"gitlab|terraform|kubernetes|helm|polars|pandas|storybook|playwright|mockk|mockito)\b",
)


def key_terms(text: str) -> set[str]:
    """The names a text holds, lower-cased: `fmt.Errorf`, `ledger_entries`, `Kamal`, `pnpm`."""
    return {m.group(0).strip("`").lower() for m in KEY_TERM.finditer(text)}


def _join_phrases(lowered: str) -> str:
    for phrase, joined in _PHRASES:
        lowered = lowered.replace(phrase, joined)
    return lowered


def words(text: str) -> list[str]:
    return [SYNONYMS.get(w, w).strip("._-") for w in _WORD.findall(_join_phrases(text.lower()))]


def content_terms(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in words(text) if w and w not in STOPWORDS)


@lru_cache(maxsize=65536)
def is_key_term(term: str) -> bool:
    return term in KNOWN_TOOLS or bool(VERSION.match(term))


def specific_terms(terms: frozenset[str]) -> set[str]:
    """Names with a digit, dot or dash ("fp16", "go.mod"): what says which thing a rule is about."""
    return {t for t in terms if not t.isalpha() and not t.replace(".", "").isdigit() and len(t) > 2}


def names_something(text: str) -> bool:
    """A tool, path, identifier, version or name ("squash-merge", "net/retry.go", "Dramatiq")."""
    if key_terms(text):
        return True
    terms = content_terms(text)
    return bool(specific_terms(terms)) or any(is_key_term(term) for term in terms)


@dataclass(frozen=True)
class Statement:
    """What matching and contradiction need to know of an entry or a signal, computed once."""

    terms: frozenset[str]
    keys: frozenset[str]
    positive: frozenset[str]  # key terms asserted
    negative: frozenset[str]  # key terms named as what not to use / what was replaced
    explicit_change: bool
    # Of `positive`, those the statement chooses: not a tool that only runs a script ("pnpm lint"),
    # not a scoped allowance ("pandas only at the edge", "npm just this once").
    chosen: frozenset[str] = frozenset()
    # Of `negative`, those rejected only by a complaint ("you used npm again"): implied, not said.
    complained: frozenset[str] = frozenset()
    # Of `negative`, those rejected only with a qualifier after them: a command ("don't run
    # `terraform apply`" rejects an action, not Terraform), a version ("dropping Python 3.9"), a
    # product of theirs ("no more Docker Compose", "no React Native rewrite").
    qualified: frozenset[str] = frozenset()
    # Of `chosen`, those in the place of what the statement is about: "uses npm", "chose Celery",
    # "with pip", "pnpm for installs"; not "in all new Python code".
    objects: frozenset[str] = frozenset()
    replaces: bool = False  # it names a replacement: "from X to Y", "Y instead of X", "Y, not X"
    scope: frozenset[str] = frozenset()  # what a "for ..." phrase says the choice is for
    settings: tuple[tuple[str, frozenset[str]], ...] = ()  # a named setting and its values
    plans: tuple[tuple[str, ...], ...] = ()  # what it says is done or used ("we will do X", "uses X")
    drops: tuple[tuple[str, ...], ...] = ()  # what it says is not ("not doing X", "from X to Y")
    # Names it says are gone, whatever the vocabulary knows of them: "we finished moving off
    # Contentful", "tfenv is gone", "we retired Sidekiq", "RabbitMQ was switched off".
    departed: tuple[tuple[str, ...], ...] = ()
    # Names it refuses in so many words ("no Redux", "never Color(0xFF…)", "don't use moment"):
    # an entry that refuses a name agrees with the news that the name is gone.
    refused: tuple[tuple[str, ...], ...] = ()


# Sentences end at . ! ? ; or a line break, not at the dot of "fly.io" or "1.21".
_SENTENCE = regex_cache.compile(r"[.!?;]+(?=\s|$)|\n")
# Unicode words: "não", "kein" and "nada" reject as "not" does.
_PTOKEN = regex_cache.compile(r"\w[\w+#.-]*[\w+#]|\w|[,:()]|\s[-–—]\s")
_CLAUSE_BREAK = frozenset({",", ":", "(", ")", " - "})
_CONTRACTIONS = (("won't", "will not"), ("can't", "can not"), ("shan't", "shall not"), ("n't", " not"))
# Chat drops the apostrophe: "dont use yarn anymore".
_BARE_CONTRACTION = regex_cache.compile(
    r"\b(do|does|did|is|are|was|were|should|would|could|must|wo|ca|have|has)nt\b"
)
_BARE_EXPANSION = {"wo": "will", "ca": "can"}
# The agent told off for what it did: what it used was the wrong thing.
_COMPLAINT = regex_cache.compile(
    r"\bwhy (?:did|do|are|would|were|is|have) you\b|"
    r"\b(?:you|u)(?:'ve| have)? (?:\w+ )?"
    r"(?:used|ran|installed|added|called|picked|chose|tried|reached for)\b|"
    r"\byou(?:'re| are)? (?:still|again|keep(?: on)?) (?:using|running|use|run|calling|installing)\b"
)
# "you're using npm again", "vc tá usando LiveData de novo", "u did the snake_case thing again":
# separate searches, not one pattern with ".*" between (that backtracks).
_YOU = regex_cache.compile(r"\b(?:you|u|vc|você|voce|tu)\b")
_DOING = regex_cache.compile(
    r"\b(?:using|running|calling|installing|did|usando|rodando|usou|usaste|utilises|benutzt|verwendest)\b"
)
_AGAIN = regex_cache.compile(r"\b(?:again|de novo|outra vez|otra vez|de nuevo|encore|wieder)\b")
_FROM = regex_cache.compile(r"\bfrom\b")
_TO = regex_cache.compile(r"\bto\b")
_CONDITIONAL = regex_cache.compile(r"^\s*(?:if|when|whenever|before|after|once|unless)\b")
# Allowed in a corner, for now, or once: it keeps the old choice rather than replacing it.
_ALLOWANCE = regex_cache.compile(
    r"\b(?:is|are|'s) (?:fine|ok|okay|allowed|acceptable)\b|\bjust this once\b|\bthis once\b|"
    r"\bthis time\b|\bfor now\b|\bonly (?:at|when|if|where|as)\b|\bat the (?:edges?|boundary|boundaries)\b|"
    # what is still there is not what is chosen: "the old screens still have LiveData"
    r"\b(?:still|ainda|todav[ií]a|noch|legacy)\b"
)
_REPLACES = regex_cache.compile(
    # ", not ever", ", not here": emphasis, not the rejected half of "pnpm, not npm"
    r",\s*not\b(?! (?:ever|once|even|here|there|anywhere|anymore|now|today|again|really|at all)\b)|"
    r"\b(?:"  # the word branches after one boundary (see `_CHANGE`)
    r"instead\b|rather than\b|in favou?r of\b|replac\w* (?:\S+ ){0,3}(?:with|by)\b|"
    r"(?:switch\w*|mov\w*|migrat\w*|went|go(?:ing)?) (?:back )?(?:over )?to\b|"
    # "switching the evaluation holdout to the Q2 cohort": what is switched named in between
    r"(?:switch\w*|migrat\w*) (?:\S+ ){1,4}?to\b|"
    r"over\b|"
    # "it's not `python`, it's `python3`", "not npm; pnpm": the correction after the "not X"
    r"not [^,;.]{1,40}[,;] (?:it's|it is|use|we use|but|just|only)\b"
    r")"
)
# A phrase within one clause; the dot of "3.9" or "fly.io" does not end it.
_SPAN = r"(?:[^,;:.!?()]|\.(?=\w))"
_FOR_SCOPE = regex_cache.compile(r"\bfor (" + _SPAN + "{1,60})")
_SCOPE_GENERIC = frozenset(
    {
        "everything",
        "all",
        "every",
        "now",
        "this",
        "here",
        "good",
        "project",
        "repo",
        "codebase",
        "once",
        "time",
    }
)
_PLAN = regex_cache.compile(
    r"(?:\b(?:will|going to|plan(?:ning)? to|intend to|decided to|agreed to|want to)|'ll)\s+"
    r"(?:do|add|build|implement|support|ship|introduce|adopt|use|go with|migrate to|move to|switch to|have)"
    r"\s+(" + _SPAN + "{1,80})"
)
_USES = regex_cache.compile(
    r"\b(?:uses?|using|chose|choose|picked|adopted|runs? on|is on|are on|goes through|go through|"
    r"built with|tested with|written in)\s+(?:the |a |an )?([a-z][\w.+#-]{1,40})"
)
_DROP = regex_cache.compile(
    r"\b(?:(?:not|never) (?:doing|going to (?:do|add|build|use|go with)|adding|building|implementing|"
    r"shipping|pursuing|supporting|using|do|add|build|implement|ship|use|go with)\s+(" + _SPAN + "{1,80})|"
    r"decided against (?:doing |using |adding )?(" + _SPAN + "{1,80})|"
    r"(?:dropp(?:ed|ing)|scrapp(?:ed|ing)|shelv(?:ed|ing)|abandon(?:ed|ing)|cancel+(?:ed|ing))\s+"
    r"(?:the )?(?:idea of |plans? (?:for|to) )?(" + _SPAN + "{1,80}))|"
    r"^\s*(" + _SPAN + "{1,60}?) (?:is|are) (?:off the table|not happening|a no-go|cancel+ed)"
)
_DROP_HEAD = regex_cache.compile(
    r"^\s*(" + _SPAN + r"{1,60}?)\s*(?::|\s[-–—]+)\s*(?:we(?:'re| are) )?(?:not doing (?:it|that|this)\b|"
    r"not happening\b|nope?\b|dropped\b|scrapped\b|cancel+ed\b|shelved\b|will not do\b|"
    r"not going to (?:do|happen)\b|not now\b)"
)
_LEFT_BEHIND = regex_cache.compile(
    r"\bfrom (?:the |plain )?([a-z][\w.+#-]{1,40}) (?:to|into)\b|"
    r"\b(?:instead of|rather than|in favou?r of) (?:using |the |plain )?([a-z][\w.+#-]{1,40})"
)
_SCRIPT_EXTENSION = regex_cache.compile(r"\.(?:jl|js|py|rs|ts|rb|kt)$")
# Bounded tokens for the settings scan: "minsdk", "=", "24", "2026-03-15" (a date is not a value).
_STOKEN = regex_cache.compile(r"[a-z_][\w.+#-]*|\d[\w.%:/-]*|[=:,]")
# Values after these in a sentence are refused or left behind ("we're dropping Python 3.9").
_SETTING_REFUSED = frozenset(
    [
        "not",
        "never",
        "no",
        "avoid",
        "drop",
        "dropping",
        "dropped",
        "deprecate",
        "deprecating",
        "sunset",
        "sunsetting",
    ]
)
_PATH = regex_cache.compile(r"(?<!\S)\S*/\S*")
# A value: a number or version, or a dated API version ("pinned to 2024-01", "bumped to 2024-10").
_NUMBER = regex_cache.compile(r"^v?\d+(?:\.\d+)*$|^(?:19|20)\d\d-(?:0[1-9]|1[0-2])$")
_YEAR = regex_cache.compile(r"^(?:19|20)\d\d$")
_SETTING_LINK = frozenset(
    {"is", "=", ":", "to", "at", "of", "on", "version", "v", "now", "set", "from", "and", "or", ","}
    | {"under", "below", "above", "max", "min", "most", "least", "upto", "within"}
    # the same links in Portuguese, Spanish, French and German: "subimos o minSdk pra 26"
    | {
        "pra",
        "para",
        "é",
        "es",
        "est",
        "ist",
        "auf",
        "zu",
        "em",
        "en",
        "a",
        "à",
        "sur",
        "agora",
        "ahora",
        "jetzt",
    }
)
# The verb between a setting and its new value: "API version: bumped to 2024-10".
_CHANGED_TO = frozenset(
    [
        "bump",
        "bumped",
        "pinned",
        "raised",
        "lowered",
        "upgraded",
        "downgraded",
        "moved",
        "switched",
        "changed",
    ]
)
# A unit after a number names no setting: "4 GB of RAM" is not "gb 4".
_UNITS = frozenset(
    [
        *("gb", "mb", "kb", "tb", "ms", "sec", "secs", "mins", "hrs", "percent"),
        # "hive 2 was 71 kg": a quantity of something, not a setting called "kg"
        *("kg", "g", "mg", "km", "m", "cm", "mm", "s", "min", "h", "v", "mv", "ma", "mah", "w", "kw"),
        *("hz", "khz", "mhz", "ghz", "px", "rem", "em", "pt", "dpi", "fps", "kbps", "mbps", "rows"),
        "lines",
    ]
)
_NOT_A_NAME = (
    STOPWORDS
    | _SETTING_LINK
    | _UNITS
    | {
        "run",
        "runs",
        "use",
        "start",
        "spawn",
        "allow",
        "need",
        "needs",
        "bump",
        "bumped",
        "pin",
        "pinned",
        "raise",
        "raised",
        "lower",
        "lowered",
        "upgrade",
        "upgraded",
        "downgrade",
        "moved",
        "switched",
        "require",
        "requires",
        "issue",
        "pr",
        "ticket",
        "step",
        "phase",
        "line",
        "page",
        "session",
        "week",
        "day",
        "days",
        "times",
        "chapter",
        "item",
        "option",
        "under",
        "about",
        "around",
        "over",
        "below",
        "above",
        "least",
        "max",
        "min",
    }
)


def is_complaint(clause: str) -> bool:
    """The agent told off for what it did ("why did you run npm install?", "you used npm again"),
    not a rule about what to do when ("if you added a dependency, ...")."""
    if _CONDITIONAL.match(clause):
        return False
    if _COMPLAINT.search(clause):
        return True
    return bool(_YOU.search(clause) and _DOING.search(clause) and _AGAIN.search(clause))


def _from_to(text: str) -> bool:
    """ "from X to Y" anywhere: searched in two steps, linear on any input."""
    found = _FROM.search(text)
    return found is not None and _TO.search(text, found.end()) is not None


def _normalise(text: str) -> str:
    lowered = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    for short, long in _CONTRACTIONS:
        lowered = lowered.replace(short, long)
    lowered = _BARE_CONTRACTION.sub(lambda m: _BARE_EXPANSION.get(m.group(1), m.group(1)) + " not", lowered)
    return _join_phrases(lowered)


def _token(raw: str) -> str:
    if raw in _CLAUSE_BREAK:
        return raw
    if raw.strip() in {"-", "–", "—"}:
        return " - "
    return SYNONYMS.get(raw, raw).strip("._-")


@dataclass
class _Polarity:
    positive: set[str]
    negative: set[str]  # rejected in so many words
    mentioned: set[str]  # asserted but not chosen (a script runner, an allowance, a condition)
    complained: set[str]  # rejected by a complaint only
    qualified: set[str]  # rejected only with a qualifier ("don't run terraform apply")
    objects: set[str]  # asserted in the place of the statement's choice


# A key term right after these is context, not the choice: "in all new Python code",
# "numeric(12,2) in Postgres", "tools like npm". Unless a change leads there: "switched to pnpm".
_CONTEXT_BEFORE = frozenset(
    [
        "in",
        "into",
        "inside",
        "within",
        "at",
        "of",
        "under",
        "about",
        "across",
        "per",
        "by",
        "to",
        "for",
        "than",
        "without",
        "besides",
        "like",
        "behind",
        "around",
        "against",
        "between",
        "among",
    ]
)
# ... "switched to pnpm", "tracked in Weights & Biases", "is on AWS", "written in Kotlin": a verb
# before the preposition makes what follows its choice again.
_CHANGE_TO = regex_cache.compile(
    r"^(?:switch|mov|migrat|went$|go$|goes$|going$|stick|stay|back$|over$|written$|built$|kept$|port|\w+ed$|"
    r"is$|are$|was$|were$|runs?$|lives?$|sits?$|happens?$)"
)
# Skipped on the way to what stands before a key term: "in all new Python code" is still "in".
_ARTICLES = frozenset(
    [
        "the",
        "a",
        "an",
        "plain",
        "just",
        "only",
        "our",
        "my",
        "your",
        "their",
        "this",
        "that",
        "all",
        "any",
        "every",
        "each",
        "some",
        "new",
        "old",
        "existing",
        "real",
        "local",
        "modern",
        "legacy",
        "raw",
    ]
)


def _in_choice_place(tokens: list[str], i: int) -> bool:
    """Whether the key term at i stands where a statement puts its choice, not its context."""
    j = i - 1
    while j >= 0 and tokens[j] in _ARTICLES:
        j -= 1
    if j < 0 or tokens[j] not in _CONTEXT_BEFORE:
        return True
    return j > 0 and bool(_CHANGE_TO.match(tokens[j - 1]))


def _negates_from(tokens: list[str], i: int) -> bool:
    """Whether "from"/"off" at i leaves behind what follows: a change verb before it, or a "to" after."""
    before = tokens[max(0, i - 3) : i]
    if any(_CHANGE_VERB.match(w) for w in before):
        return True
    if tokens[i] != "from":
        return False
    for w in tokens[i + 1 : i + 6]:
        if w in _CLAUSE_BREAK:
            return False
        if w in {"to", "into"}:
            return True
    return False


def _rejected_forward(tokens: list[str], start: int) -> list[int]:
    """Indexes of the key terms a negator at `start` rejects: across transparent words, along a list
    ("npm, yarn or bun"), never across a comma before the first one or past other content words."""
    found: list[int] = []
    j = start + 1
    while j < len(tokens):
        w = tokens[j]
        if not is_key_term(stem(w)):
            if w not in _TRANSPARENT:
                break
            j += 1
            continue
        found.append(j)
        nxt, after = [*tokens[j + 1 : j + 3], "", ""][:2]
        if nxt in {"or", "nor"}:
            j += 2
        elif nxt == "," and after in {"or", "nor"}:
            j += 3
        elif nxt in {",", "and"} and is_key_term(stem(after)):
            j += 2
        else:
            break
    return found


_BEFORE_NO = _CLAUSE_BREAK | frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "there",
        "there's",
        "with",
        "and",
        "or",
        "but",
        "so",
        "we",
        "use",
        "need",
        "want",
        "allow",
        "have",
        "has",
        "got",
        "more",
        "please",
    ]
)


def _opens_rejection(tokens: list[str], i: int) -> bool:
    w = tokens[i]
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    if w in {"from", "off"}:
        return _negates_from(tokens, i)
    if w == "instead":
        return nxt == "of"
    if w == "rather":
        return nxt == "than"
    if w == "over":  # "pnpm over npm", not "moving over to yarn"
        return nxt != "to"
    if w == "no":  # "no npm here", "there is no npm", not Portuguese "usa any no typescript" (in the)
        return i == 0 or tokens[i - 1] in _BEFORE_NO
    return w in _NEGATORS


def _rejected_backward(tokens: list[str], i: int) -> bool:
    """ "npm is overkill", "celery was replaced", "npm is not allowed": the key term at i is rejected."""
    j = i + 1
    while j < len(tokens) and tokens[j] in _COPULA:
        j += 1
    if j >= len(tokens):
        return False
    if j == i + 1:  # no copula: only a participle ("celery replaced by dramatiq"), not "npm out"
        if tokens[j] in {"não", "no", "nicht", "nope", "not"}:  # "livedata não.", "npm no"
            return j + 1 == len(tokens) or tokens[j + 1] in _CLAUSE_BREAK
        return tokens[j] in {"removed", "dropped", "replaced", "deprecated", "banned", "ditched"}
    if tokens[j] in _REJECTED_AFTER:
        return True
    return tokens[j] == "not" and j + 1 < len(tokens) and tokens[j + 1] in _NOT_WANTED


def _clause_ids(tokens: list[str]) -> list[int]:
    ids, current = [], 0
    for w in tokens:
        if w in _CLAUSE_BREAK:
            current += 1
        ids.append(current)
    return ids


def _clause_texts(sentence: str) -> list[str]:
    return re.split(r"[,:()]|\s[-–—]\s", sentence)


def _polarity_tokens(sentence: str) -> list[str]:
    """Words and clause marks; a piece of a path (".github/", "src/npm/") is no tool: "path"."""
    tokens = []
    for match in _PTOKEN.finditer(sentence):
        start, end = match.span()
        in_path = sentence[start - 1 : start] in {".", "/"} or sentence[end : end + 1] == "/"
        token = "path" if in_path and match.group()[0].isalnum() else _token(match.group())
        if token:
            tokens.append(token)
    return tokens


def _sentence_polarity(sentence: str, out: _Polarity) -> None:
    tokens = _polarity_tokens(sentence)
    if not any(is_key_term(stem(w)) for w in tokens):
        return  # polarity is only ever recorded for key terms: most sentences of memory have none
    clause_of = _clause_ids(tokens)
    clauses = _clause_texts(sentence)
    complaint = [is_complaint(c) for c in clauses]
    # Allowed in a corner, or named in a condition ("before you run npm install, ..."): not chosen.
    allowance = [bool(_ALLOWANCE.search(c) or _CONDITIONAL.match(c)) for c in clauses]
    contrasted: set[int] = set()  # rejected by "instead of"/"rather than"/"over": right in a complaint
    rejected: set[int] = set()
    for i, w in enumerate(tokens):
        if _opens_rejection(tokens, i):
            hits = _rejected_forward(tokens, i)
            rejected.update(hits)
            if w in {"instead", "rather", "over"}:
                contrasted.update(hits)
    for i, w in enumerate(tokens):
        term = stem(w)
        if not is_key_term(term):
            continue
        clause = min(clause_of[i], len(clauses) - 1)
        if complaint[clause]:
            if i in contrasted:
                out.positive.add(term)
            else:
                out.complained.add(term)
            continue
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if i in rejected or _rejected_backward(tokens, i):
            # "don't run terraform apply", "no Docker Compose": the command, not the tool
            qualified = nxt in _QUALIFIERS or bool(_NUMBER.match(nxt))
            (out.qualified if qualified else out.negative).add(term)
            continue
        out.positive.add(term)
        # "pnpm lint", "uv pip compile": a tool running a script, or a tool's subcommand
        after_tool = i > 0 and is_key_term(stem(tokens[i - 1])) and not VERSION.match(term)
        if allowance[clause] or nxt in _SUBCOMMANDS or after_tool:
            out.mentioned.add(term)
        elif _in_choice_place(tokens, i):
            out.objects.add(term)


def _phrase(text: str) -> tuple[str, ...]:
    """The content terms of a phrase, in order, once each."""
    seen: dict[str, None] = {}
    for w in words(text):
        if w and w not in STOPWORDS and len(w) > 1:
            seen.setdefault(_SCRIPT_EXTENSION.sub("", stem(w)), None)
    return tuple(seen)


_DIGIT = regex_cache.compile(r"\d")


# A word every plan, use, drop and departure form above holds: three sentences in four have none,
# and then none of the six patterns is tried on any of its clauses.
_PLAN_OR_DROP_HINT = regex_cache.compile(
    r"\b(?:not|never|decided|dropp|scrapp|shelv|abandon|cancel|off the table|a no-go|from|instead|rather|"
    r"in favo|will|going to|plan|intend|agreed|want to|use|using|chose|choose|picked|adopted|runs? on|is on|"
    r"are on|go(?:es)? through|built with|tested with|written in|nope?)|'ll"
)


def _plans_and_drops(sentence: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    plans: list[tuple[str, ...]] = []
    drops: list[tuple[str, ...]] = []
    if not _PLAN_OR_DROP_HINT.search(sentence):
        return plans, drops
    head = _DROP_HEAD.match(sentence)
    if head:
        drops.append(_phrase(head.group(1)))
    for clause in _clause_texts(sentence):
        if is_complaint(clause):
            continue  # what the agent was told off for: neither a plan nor a decision
        drops += [_phrase(next(g for g in m.groups() if g)) for m in _DROP.finditer(clause)]
        drops += [_phrase(m.group(1) or m.group(2)) for m in _LEFT_BEHIND.finditer(clause) if _named(m)]
        if _ALLOWANCE.search(clause):
            continue  # allowed in a corner or once: not what is done
        negated = re.search(r"\b(?:not|never|no)\b", clause)
        before = negated.start() if negated else len(clause)
        plans += [_phrase(m.group(1)) for m in _PLAN.finditer(clause) if m.start() < before]
        plans += [_phrase(m.group(1)) for m in _USES.finditer(clause) if m.start() < before and _named(m)]
    return [p for p in plans if p], [d for d in drops if d]


def _named(match: re.Match[str]) -> bool:
    """A single word that reads as a name ("zygote.jl", "mlflow"), not "generating" or "the"."""
    word = (match.group(match.lastindex or 0) or "").lower()
    return len(word) >= 3 and word not in STOPWORDS and not word.endswith(("ing", "ed", "ly"))


def _setting_name(tokens: list[str], i: int) -> tuple[str, bool] | None:
    """The name a number at i is the value of ("minsdk is 24", "go 1.22", "2 spaces"), and whether
    it is a value left behind or refused ("from 24 to 26", "not 21")."""
    refused = i > 0 and tokens[i - 1] in {"from", "not"}
    j = i - 1
    while j >= max(0, i - 6) and (
        tokens[j] in _SETTING_LINK
        or tokens[j] in _CHANGED_TO
        or tokens[j] == "not"
        or _NUMBER.match(tokens[j])
    ):
        j -= 1
    if j >= 0 and tokens[j][:1].isalpha() and tokens[j] not in _NOT_A_NAME:
        # "from go 1.21 to 1.22": 1.21 is left behind, 1.22 (past the "to") is not
        if j > 0 and tokens[j - 1] == "from" and "to" not in tokens[j + 1 : i]:
            refused = True
        return stem(tokens[j]), refused
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    if nxt[:1].isalpha() and nxt not in _NOT_A_NAME:
        return stem(nxt), refused
    return None


def _settings(sentence: str) -> dict[str, set[str]]:
    if not _DIGIT.search(sentence):
        return {}  # a setting's value is a number
    # "/api/v1/login", "http://host:5000": a path or address holds no setting
    tokens = [t.rstrip(".") for t in _STOKEN.findall(_PATH.sub(" ", sentence))]
    negated_from = next((k for k, t in enumerate(tokens) if t in _SETTING_REFUSED), len(tokens))
    found: dict[str, set[str]] = {}
    for i, t in enumerate(tokens):
        if not _NUMBER.match(t) or (_YEAR.match(t) and "." not in t):
            continue
        named = _setting_name(tokens, i)
        if named is None or named[1] or i > negated_from:
            continue
        found.setdefault(named[0], set()).add(t)
    return found


def _scope(sentence: str) -> set[str]:
    scope: set[str] = set()
    for match in _FOR_SCOPE.finditer(sentence):
        scope.update(t for t in _phrase(match.group(1)) if t not in _SCOPE_GENERIC and not is_key_term(t))
    return scope


@lru_cache(maxsize=32768)
def analyse(text: str) -> Statement:
    """Terms, key terms and their polarity. Cached: memories and signals repeat their texts."""
    tokens = words(text)
    terms = frozenset(stem(token) for token in tokens if token and token not in STOPWORDS)
    normal = _normalise(text)
    polarity = _Polarity(set(), set(), set(), set(), set(), set())
    plans: list[tuple[str, ...]] = []
    drops: list[tuple[str, ...]] = []
    settings: dict[str, set[str]] = {}
    scope: set[str] = set()
    keys = frozenset(t for t in terms if is_key_term(t))
    for sentence in _SENTENCE.split(normal):
        if not sentence.strip():
            continue
        if keys:  # polarity is only ever recorded for key terms: most texts of memory name none
            _sentence_polarity(sentence, polarity)
        sentence_plans, sentence_drops = _plans_and_drops(sentence)
        plans += sentence_plans
        drops += sentence_drops
        for name, values in _settings(sentence).items():
            settings.setdefault(name, set()).update(values)
        scope |= _scope(sentence)
    said = set(polarity.negative)
    for drop in drops:  # "Kafka: not doing it", "decided against kafka": the key terms it names
        said |= {t for t in drop if is_key_term(t) and t not in polarity.positive | polarity.qualified}
    negative = frozenset(said | polarity.complained | polarity.qualified)
    positive = frozenset(polarity.positive - negative)
    return Statement(
        terms=terms,
        keys=keys,
        positive=positive,
        negative=negative,
        explicit_change=bool(_CHANGE.search(normal)) or _from_to(normal),
        chosen=frozenset(positive - polarity.mentioned),
        complained=frozenset(polarity.complained - said),
        qualified=frozenset(polarity.qualified - said - polarity.complained),
        objects=frozenset(polarity.objects & positive - polarity.mentioned),
        replaces=bool(_REPLACES.search(normal)) or _from_to(normal),
        scope=frozenset(scope),
        settings=tuple(sorted((name, frozenset(values)) for name, values in settings.items())),
        plans=tuple(plans),
        drops=tuple(drops),
        departed=_departures(text),
        refused=_named_in(_REFUSED, text) if _REFUSED_HINT.search(text.lower()) else (),
    )


# A name between 1 and 3 words, as the person wrote it: "Contentful", "Google Analytics",
# "the SFTP import", "~/.logslice.toml", "Weights & Biases".
_NAME_STOP = (
    r"to|for|in|on|and|with|from|as|at|now|last|this|over|since|yesterday|today|of|do|da|de|del|dos|"
    r"das|du|des|der|die|is|are|was|were|we|i|so|but|because|bc|ontem|ayer|gestern|hoy|hoje|anymore|any"
)
_NAME = (
    r"(?:the |our |a |an |old |legacy |existing |o |a |el |la )*"
    r"([\w~@/+#.&-]+(?: (?!(?:" + _NAME_STOP + r")\b)[\w~@/+#.&-]+){0,2})"
)
# Where a name that is then said to be gone starts: a sentence, a clause, or after "fyi" / "btw".
_ANCHOR = (
    r"(?:^|[.!?;:,]\s+|\n)(?:(?:fyi|btw|so|and|also|oh|ok|okay|anyway|heads up|ps|note|et|y|e|und|en|i)"
    r"[,:]?\s+)*"
)
# What may stand between a name and its going: "le dépôt SFTP de la nuit est coupé", "the
# export of the orders is gone".
_QUALIFIER = r"(?: (?:de|du|des|of)(?: la| le| les| l'| the)? [\w'-]+)?"
_QUALIFIED_NAME = regex_cache.compile(r" (?:de|du|des|of) ")
_DEPARTED = regex_cache.compile(
    r"\b(?:mov(?:ed|ing|e)|migrat(?:ed|ing|e)|switch(?:ed|ing)?|went|got|getting) "
    r"(?:[\w-]+ ){0,3}?(?:off|away from|from) " + _NAME + "|"
    r"\b(?:retired|retiring|dropped|dropping|ditched|ditching|ripped out|ripping out|rip out|"
    r"got rid of|getting rid of|killed|sunset(?:ted)?|switched off|turned off|shut down|"
    r"tiramos|tirou|tiraram|quitamos|quitaron|eliminamos|abandonamos|largamos) "
    r"(?:o |a |os |as |el |la |los |las )?" + _NAME + "|"
    r"\b(?:no longer|nicht mehr) (?:on|using|uses|use|with|in) " + _NAME + "|"
    # "we're not on Heroku anymore" (a bare "not on prod" is a limit, not a change)
    r"(?:\bnot|n't) (?:on|using|use|with) " + _NAME + r" (?:anymore|any more)\b|"
    r"\b(?:we're|we are|we've been|we have been|i'm|were|the team is) (?:now |finally |fully |all )?off "
    + _NAME
    + "|"
    r"\b(?:wywalilismy|wywaliliśmy|wyrzucilismy|wyrzuciliśmy|usunelismy|usunęliśmy|wylaczylismy|"
    r"wyłączyliśmy) " + _NAME + "|"
    r"\b(?:ya no usamos|não usamos mais|nao usamos mais|ya no se usa|no more) "
    + _NAME
    + "|"
    + _ANCHOR
    + _NAME
    + _QUALIFIER
    + r" (?:is|are|was|were|'s|has been|have been) "
    r"(?:(?:now|completely|finally|officially|fully|totally) )?"
    r"(?:gone|dead|retired|removed|deprecated|switched off|turned off|shut down|history|finished|over|"
    r"no longer (?:used|needed))\b|"
    # "Poetry c'est fini", "Slack, c'est terminé pour nous", "le SFTP n'existe plus", "X se acabó"
    + _ANCHOR
    + _NAME
    + _QUALIFIER
    + r",? (?:c'est (?:fini|terminé|mort)|est (?:fini|terminé|supprimé|coupé|mort)|"
    r"n'existe plus|se acabó|ya no existe|já era|acabou|morreu|ist weg|ist tot|gibt es nicht mehr|"
    r"ist raus|ist geschichte|ist aus(?=\s*[.,;!]|\s*$)|(?:wird|wurde|ist) (?:\w+ ){0,3}?abgeschaltet|"
    r"wywalilismy|wywaliliśmy|wyrzucilismy|usunelismy|(?:juz|już) (?:dla nas )?nie istnieje|nie istnieje|"
    r"wylaczone|wyłączone|wylaczony|wyłączony|usuniete|usunięte|wywalone)|"
    r"\b(?:there is no|there's no|theres no|there are no|we don't have|we dont have|we do not have) "
    + _NAME
    + "|"
    + _ANCHOR
    + _NAME
    + r" (?:we|i) (?:don't|dont|do not) use (?:anymore|any more)\b|"
    r"\b(?:we|we've|we have|we're|we are|the team|the team has) (?:finally |now )?(?:left|leaving) "
    + _NAME
    + "|"
    # "we ripped Dialogic out", "phasing the old queue out", "switched RabbitMQ off"
    r"\b(?:ripped|ripping|tore|tearing|yanked|yanking|threw|throwing|phased|phasing|pulled|pulling|"
    r"swapped|swapping|kicked|kicking) " + _NAME + r" (?:out|away)\b|"
    r"\b(?:switched|switching|turned|turning|shut|shutting) "
    + _NAME
    + r" (?:off|down)\b|"
    + _ANCHOR
    + _NAME
    + r" (?:was|were|got|has been|have been) (?:ripped|torn|yanked|thrown|phased|pulled|swapped) out\b|"
    # "butler isn't even installed anymore" (without "anymore" a fact: "pnpm isn't installed on CI")
    + _ANCHOR
    + _NAME
    + r" (?:isn't|isnt|aren't|arent|is not|are not) (?:even )?(?:installed|used|needed|supported|"
    r"maintained|around|a thing|in use) (?:anymore|any more)\b",
    re.IGNORECASE,
)
# "saves aren't JSON anymore": the name is gone from what the subject is, so both are the name.
_NOT_ANYMORE = regex_cache.compile(
    _ANCHOR + r"(?:the |our )?([\w-]+(?: [\w-]+)?) (?:isn't|isnt|aren't|arent|is not|are not) "
    r"(?:on |in |using |with )?(?:the |a |an )?([\w.+#-]+(?: [\w.+#-]+)?) (?:anymore|any more)\b",
    re.IGNORECASE,
)
# The words of every departure form, looked for before the pattern runs (most texts have none).
_GONE_HINT = regex_cache.compile(
    r"gone|dead|retir|drop|ditch|rip|rid of|kill|sunset|switch|turned off|shut|history|finished|over|"
    r"remov|deprecat|"
    r"no longer|nicht mehr|no more|not (?:on|using|use|with|in)|off|from|ya no|não usamos|nao usamos|"
    r"c'est|est (?:fini|termin|supprim|coup|mort)|n'existe|acab|já era|morreu|ist (?:weg|tot)|"
    r"gibt es|there(?: is|'s|s| are) no|(?:don't|dont|do not) (?:have|use)|tir|quit|elimin|abandon|largamos|"
    r"wywal|wyrzuc|usun|wylacz|wyłącz|istnieje|"  # (wylaczone, usuniete: by their stems)
    # (each as specific as its form: "tear" is in tearDown, "pull" in pull request, "left" anywhere)
    r"tore |torn |tearing |yanked|yanking|threw |thrown |throwing |phased|phasing|pulled |pulling |"
    r"swapped|swapping|kicked|kicking|turned |turning |anymore|any more|we left|we've left|we have left|"
    r"we're leaving|we are leaving|team left|team has left|ist raus|ist geschichte|ist aus|abgeschaltet",
)  # on lower-cased text: eight times faster than IGNORECASE, where each place is tried folded
_REFUSED_HINT = regex_cache.compile(  # on lower-cased text, as `_GONE_HINT`
    r"\b(?:no|never|not|without|avoid|don'?t|do not|stop|nada|sin|sem|kein|keine|nunca)\b"
)
_REFUSED = regex_cache.compile(
    r"\b(?:no|never|not|without|avoid|(?:don't|dont|do not|never) (?:use|add|create|write|touch)|"
    r"stop using|nada de|sin|sem|kein|keine|nunca) (?:new |any |more |the |a |plain )?" + _NAME,
    re.IGNORECASE,
)
# What says a setting changed: "we bumped the minimum iOS version to 15.0" (`says_changed`).
_CHANGED_VERB = regex_cache.compile(
    r"\b(?:bump(?:ed)?|rais(?:ed|e)|lower(?:ed)?|upgrad(?:ed|e)|downgrad(?:ed|e)|moved|switched|changed|"
    r"went (?:up|down)|subimos|bajamos|actualizamos|atualizamos|passé|angehoben|aktualisiert)\b",
    re.IGNORECASE,
)
# Words a departed name is made of that name no one thing: "the old flow is gone" retires no
# entry that speaks of a flow.
_NOT_A_THING = frozenset(
    [
        "flow", "screen", "page", "file", "code", "endpoint", "service", "job", "test", "script",
        "step", "build", "config", "setup", "way", "version", "approach", "thing", "stuff", "logic",
        "component", "module", "function", "class", "table", "model", "view", "method", "feature",
        "flag", "branch", "image", "idea", "plan", "one", "ones", "part", "bit", "system", "tool",
        "app", "project", "repo", "it", "that", "this", "them", "there", "check", "task", "work",
        "time", "week", "day", "sprint", "month", "year", "everything", "something", "anything",
        "stage", "change", "fix", "issue", "bug", "pr", "prs", "binary", "import", "support",
    ]
)  # fmt: skip


def _departures(text: str) -> tuple[tuple[str, ...], ...]:
    """The names the text says are gone; the pattern runs only where the hint is."""
    if not _GONE_HINT.search(text.lower()):
        return ()
    found = _named_in(_DEPARTED, text)
    return found + tuple(name for name in _subject_not_anymore(text) if name not in found)


def _subject_not_anymore(text: str) -> list[tuple[str, ...]]:
    """ "saves aren't JSON anymore": the subject's words and the name, all of which an entry must
    hold to be retired. A plain word as the name ("berth times are not local anymore") needs two
    words of subject; "it isn't slow anymore" names nothing."""
    found = []
    for match in _NOT_ANYMORE.finditer(_join_phrases(text)):
        subject, name = match.group(1), match.group(2)
        keys = {stem(k) for k in key_terms(match.group(0))}  # "Jenkins" is a name in its sentence
        said = [stem(w) for w in words(name) if len(w) >= 2 and w not in STOPWORDS]
        named = [t for t in said if t in keys] or said
        about = [
            stem(w)
            for w in words(subject)
            if len(w) >= 2 and w not in STOPWORDS and stem(w) not in _NOT_A_THING
        ]
        # "berth times are not local anymore": a plain word retires only beside two of the subject's
        if about and named and (keys & set(named) or len(about) >= 2):
            found.append(tuple(dict.fromkeys(about + named)))
    return found


def says_changed(text: str) -> bool:
    """The text says a setting changed ("we bumped the minimum iOS version to 15.0"): news, a rule
    piece whatever the model reads (it replaces an entry only where one holds that setting)."""
    if not _DIGIT.search(text) or _CHANGED_VERB.search(text) is None:
        return False  # most pieces: the analysis is not needed
    return bool(analyse(text).settings)


def says_gone(text: str) -> bool:
    """The text says some name is gone ("Slack, c'est terminé pour nous", "tfenv is gone"): news
    of a change the person announced, a rule whatever the model reads in its words."""
    return bool(_departures(text))


def _named_in(pattern: re.Pattern[str], text: str) -> tuple[tuple[str, ...], ...]:
    """The names `pattern` captures, each as its terms: the words of it that say what it is."""
    found: list[tuple[str, ...]] = []
    joined = _join_phrases(text)
    for match in pattern.finditer(joined):
        index = next(i for i, group in enumerate(match.groups(), 1) if group is not None)
        name = match.group(index)
        terms = tuple(
            term
            for term in (stem(token) for token in words(name))
            if len(term) >= 2 and term not in STOPWORDS and term not in _NOT_A_THING
        )
        # A name with a proper name or code in it is that: "le dépôt SFTP", "the SFTP import"
        named = {stem(k) for k in key_terms(joined[max(0, match.start(index) - 2) : match.end(index)])}
        if not named and _QUALIFIED_NAME.match(joined, match.end(index)):
            continue  # "the export of the orders is gone": a common word qualified, no name
        terms = tuple(t for t in terms if t in named) or terms
        # "from Postgres 14 to Postgres 16": named again in the same clause, so a new version
        clause = re.split(r"[,;:.!?()\n]", joined[match.end() :], maxsplit=1)[0]
        later = content_terms(clause)
        if any(not _NUMBER.match(t) and t in later for t in terms):
            continue
        if terms and terms not in found:
            found.append(terms)
    return tuple(found)
