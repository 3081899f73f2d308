"""Generate a Claude home in the real 2.1.328 transcript format, for the benchmarks of issue 6.

Every transcript line comes from `tests/homefactory.py` (`session_lines`, `Turn`): copies of lines
the real client wrote (tests/fixtures/claude-code-2.1.328), with ids, timestamps, cwd and text
changed. So, as in a real home, most bytes are `api-request-blob`/`api-request-shape` entries,
attachments and tool results, and the user's typed words are a small share. The user messages are
the labelled messages of tests/data/signals-train-*.jsonl (about 45 % of them carry a signal),
sometimes two in one message, sometimes with a pasted log or file after them.

    python bench/make_home.py OUT [--projects 5] [--sessions 100] [--turns 6] [--bytes 50M]
                                  [--memory-entries 1000] [--seed 1] [--now ISO] [--jobs N]
    python bench/make_home.py OUT --large    # ~1 GB, 50 projects, 2,000 sessions, 10,000 entries
    python bench/make_home.py OUT --quick    # ~50 MB, 5 projects, 100 sessions, 1,000 entries
    python bench/make_home.py OUT --typical  # ~100 MB, 4 projects, 40 sessions, 500 entries

OUT becomes a Claude config dir (`OUT/projects/<slug>/<session>.jsonl`); it must not exist or be
empty, and it must not be the real ~/.claude. Session start times are spread over the last
`--days` days (default 7, less a margin of six hours, so that the default window of a dream run
started within a few hours covers every session); each file's mtime is its last event's time.
The biggest project gets a memory dir (`projects/<slug>/memory/`) of `--memory-entries` entries
in dream's topic files (DESIGN.md §5 entry format, native frontmatter) plus a few of Claude Code's
own one-memory files, and a MEMORY.md index.

The output depends only on the options, `--seed` and `--now` (default: the current time, to the
second): the same options give the same bytes. Sessions are written in parallel (`--jobs`, default
the number of CPUs), each file in one write. `OUT/bench-home.json` records what was generated.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import marshal
import math
import multiprocessing
import os
import random
import sys
import time
import uuid as uuid_module
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"
MANIFEST = "bench-home.json"

PRESETS: dict[str, dict[str, Any]] = {
    "quick": {"projects": 5, "sessions": 100, "turns": 6, "bytes": 50 * 10**6, "memory_entries": 1_000},
    # A typical week (issue 17): ~40 sessions in a few projects, ~100 MB, 500 entries.
    "typical": {"projects": 4, "sessions": 40, "turns": 6, "bytes": 100 * 10**6, "memory_entries": 500},
    "large": {"projects": 50, "sessions": 2_000, "turns": 6, "bytes": 10**9, "memory_entries": 10_000},
}
DEFAULTS = PRESETS["quick"]


def _load_homefactory() -> ModuleType:
    """tests/homefactory.py, imported by path (tests/ is not a package)."""
    path = REPO / "tests" / "homefactory.py"
    spec = importlib.util.spec_from_file_location("dream_bench_homefactory", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


hf = _load_homefactory()


class _FastCopy:
    """homefactory deep-copies a template per line with copy.deepcopy, which is most of the cost
    of writing a gigabyte; its templates are plain JSON data, which marshal copies exactly and
    about ten times faster. Same output, bytes for bytes."""

    @staticmethod
    def deepcopy(obj: Any) -> Any:
        return marshal.loads(marshal.dumps(obj))


hf.copy = _FastCopy


class _SeededUuid:
    """Stands in for the `uuid` module inside homefactory, so its uuid4() calls follow our seed."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def uuid4(self) -> uuid_module.UUID:
        return uuid_module.UUID(int=self.rng.getrandbits(128), version=4)


def seeded_uuid(rng: random.Random) -> str:
    return str(uuid_module.UUID(int=rng.getrandbits(128), version=4))


# -- labelled messages ---------------------------------------------------------------------------


def labelled(paths: list[str]) -> list[dict[str, Any]]:
    out = []
    for name in paths:
        with open(DATA / name, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    out.append(json.loads(line))
    return out


def train_messages() -> list[dict[str, Any]]:
    """The messages users type in the generated sessions (signals and non-signals)."""
    return labelled(["signals-train-a.jsonl", "signals-train-b.jsonl"])


def signal_sentences() -> list[dict[str, Any]]:
    """Every labelled message that carries at least one signal, from all labelled sets."""
    names = sorted(p.name for p in DATA.glob("signals-*.jsonl"))
    return [m for m in labelled(names) if m.get("labels")]


# -- bulk text: tool output and pasted logs --------------------------------------------------------

_CODE_LINES = [
    "def {name}(self, {arg}: {typ}) -> {typ}:",
    "    return self._{name}({arg}, retries={n})",
    "    if {arg} is None:",
    '        raise ValueError("{arg} must not be None")',
    "import {mod}",
    "from {mod} import {name}",
    "class {cls}({cls2}):",
    '    """{cls} wraps the {mod} client; instead of retrying here, let the caller decide."""',
    "# TODO: don't call {name} again once the cache is warm",
    "    {arg} = {arg} or {n}",
    "export function {name}({arg}: {typ}): {typ} {{",
    "  const {arg} = await fetch(`/api/{mod}/${{id}}`);",
    "}}",
    "    assert {name}({arg}) == {n}",
]
_LOG_LINES = [
    "{date}T{time}Z INFO  [{mod}] request handled in {n} ms",
    "{date}T{time}Z WARN  [{mod}] retrying {name} (attempt {n}); never seen this before",
    "{date}T{time}Z ERROR [{mod}] {cls}Error: connection reset by peer",
    "tests/test_{mod}.py::test_{name} PASSED",
    "tests/test_{mod}.py::test_{name} FAILED",
    '  File "/home/bench/src/app/{mod}/{name}.py", line {n}, in {name}',
    "Traceback (most recent call last):",
    "npm WARN deprecated {mod}@{n}.0.0: use {name} instead",
    "{n} passed, {n2} warnings in {n}.{n2}s",
    "M  src/{mod}/{name}.py",
    "commit {sha}",
    "    Fix {name}: actually check {arg} every time",
]
_WORDS = {
    "name": [
        "load",
        "save",
        "parse",
        "render",
        "fetch",
        "flush",
        "sync",
        "merge",
        "resolve",
        "validate",
        "encode",
        "decode",
        "retry",
        "schedule",
        "dispatch",
        "refresh",
        "compact",
        "migrate",
    ],
    "arg": ["item", "payload", "config", "session", "user_id", "request", "batch", "cursor", "path", "limit"],
    "typ": ["str", "int", "dict", "Config", "Payload", "bytes", "list[str]", "Optional[int]"],
    "mod": ["billing", "auth", "search", "checkout", "ledger", "export", "ingest", "gateway", "cache", "api"],
    "cls": ["Client", "Store", "Queue", "Worker", "Parser", "Handler", "Session", "Cache", "Router"],
}


def _fill(template: str, rng: random.Random) -> str:
    return template.format(
        name=rng.choice(_WORDS["name"]),
        arg=rng.choice(_WORDS["arg"]),
        typ=rng.choice(_WORDS["typ"]),
        mod=rng.choice(_WORDS["mod"]),
        cls=rng.choice(_WORDS["cls"]),
        cls2=rng.choice(_WORDS["cls"]),
        n=rng.randint(1, 999),
        n2=rng.randint(0, 99),
        date=f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        time=f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}",
        sha=f"{rng.getrandbits(160):040x}",
    )


def _corpus(kind: list[str], size: int, seed: str) -> str:
    rng = random.Random(seed)
    lines: list[str] = []
    total = 0
    while total < size:
        line = _fill(rng.choice(kind), rng)
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)


CODE = _corpus(_CODE_LINES, 1 << 20, "code")
LOGS = _corpus(_LOG_LINES, 1 << 19, "logs")


def _slice(corpus: str, size: int, rng: random.Random) -> str:
    size = max(1, min(size, len(corpus) - 1))
    start = rng.randrange(0, len(corpus) - size)
    start = corpus.rfind("\n", 0, start) + 1
    return corpus[start : start + size]


# -- sessions ----------------------------------------------------------------------------------------

PROJECT_NAMES = [
    "billing-service",
    "web-app",
    "infra",
    "data-pipeline",
    "mobile-app",
    "auth-api",
    "docs-site",
    "cli-tools",
    "ml-experiments",
    "search",
    "design-system",
    "payments",
    "analytics",
    "notifications",
    "admin-panel",
    "sdk-python",
    "sdk-js",
    "ledger",
    "scheduler",
    "gateway",
]


def project_cwd(index: int) -> str:
    base = PROJECT_NAMES[index % len(PROJECT_NAMES)]
    suffix = "" if index < len(PROJECT_NAMES) else f"-{index // len(PROJECT_NAMES) + 1}"
    return f"/home/bench/src/{base}{suffix}"


def sessions_per_project(projects: int, sessions: int) -> list[int]:
    """A few big projects and a long tail (weights 1/rank^0.8), at least one session each."""
    projects = max(1, min(projects, sessions))
    weights = [1 / (rank + 1) ** 0.8 for rank in range(projects)]
    scale = (sessions - projects) / sum(weights)
    counts = [1 + int(w * scale) for w in weights]
    i = 0
    while sum(counts) < sessions:
        counts[i % projects] += 1
        i += 1
    return counts


@dataclass(frozen=True)
class SessionSpec:
    seed: int
    project: int
    number: int
    cwd: str
    byte_budget: int
    turns: int
    start: float  # epoch seconds


def _base_turn_bytes() -> tuple[int, float]:
    """(bytes of one turn without tool output, bytes added per character of tool output)."""
    at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    plain = hf.session_lines("s", "/home/bench/src/x", [hf.Turn(text="x" * 120, at=at, uuid="u")])
    with_tool = hf.session_lines(
        "s", "/home/bench/src/x", [hf.Turn(text="x" * 120, at=at, uuid="u", tool_output=CODE[:20000])]
    )
    base = sum(len(line) + 1 for line in plain)
    extra = sum(len(line) + 1 for line in with_tool) - base
    return base, extra / 20000


BASE_TURN, TOOL_FACTOR = _base_turn_bytes()


def _user_text(rng: random.Random, messages: list[dict[str, Any]]) -> str:
    text = rng.choice(messages)["text"]
    roll = rng.random()
    if roll < 0.2:
        text = f"{text} {rng.choice(messages)['text']}"
    elif roll < 0.3:
        # A pasted log or file: the user's bytes, but no signal.
        text = f"{text}\n\n```\n{_slice(LOGS if roll < 0.25 else CODE, rng.randint(500, 6000), rng)}\n```"
    return text


def session_content(spec: SessionSpec, messages: list[dict[str, Any]]) -> tuple[str, str, str, float, float]:
    """(session id, project slug, file text, first and last event time) of one session."""
    rng = random.Random(f"{spec.seed}/session/{spec.project}/{spec.number}")
    hf.uuid = _SeededUuid(rng)  # homefactory's own uuid4() calls (entry ids) follow the seed
    session_id = seeded_uuid(rng)
    turns = max(1, min(spec.turns, spec.byte_budget // BASE_TURN))
    tool_budget = max(0, spec.byte_budget - turns * BASE_TURN) / TOOL_FACTOR
    at = datetime.fromtimestamp(spec.start, tz=timezone.utc).replace(microsecond=0)
    items = []
    shares = [rng.random() for _ in range(turns)]
    total_share = sum(shares) or 1.0
    for i in range(turns):
        size = int(tool_budget * shares[i] / total_share)
        items.append(
            hf.Turn(
                text=_user_text(rng, messages),
                at=at,
                tool_output=_slice(CODE if rng.random() < 0.6 else LOGS, size, rng) if size > 64 else None,
                assistant_text=rng.choice(
                    ["Done.", "Updated the tests; all pass.", "Fixed, see the diff above."]
                ),
                uuid=seeded_uuid(rng),
            )
        )
        at += timedelta(seconds=rng.randint(40, 900))
    lines = hf.session_lines(session_id, spec.cwd, items)
    first = items[0].at.timestamp()
    last = (items[-1].at + timedelta(seconds=3)).timestamp()
    return session_id, hf.slug(spec.cwd), "\n".join(lines) + "\n", first, last


_MESSAGES: list[dict[str, Any]] = []


def write_session(root: Path, spec: SessionSpec) -> dict[str, Any]:
    if not _MESSAGES:
        _MESSAGES.extend(train_messages())
    session_id, folder, text, first, last = session_content(spec, _MESSAGES)
    directory = root / "projects" / folder
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{session_id}.jsonl"
    data = text.encode("utf-8")
    with open(path, "wb") as handle:
        handle.write(data)
    os.utime(path, (last, last))
    user_entry_bytes = sum(
        len(line) + 1
        for line in data.split(b"\n")
        if b'"type":"user"' in line and b'"toolUseResult"' not in line and b'"isMeta":true' not in line
    )
    return {
        "path": str(path),
        "bytes": len(data),
        "user_entry_bytes": user_entry_bytes,
        "first": first,
        "last": last,
    }


def _write_one(args: tuple[str, SessionSpec]) -> dict[str, Any]:
    return write_session(Path(args[0]), args[1])


def plan_sessions(
    seed: int, projects: int, sessions: int, turns: int, total_bytes: int, now: float, days: float
) -> list[SessionSpec]:
    rng = random.Random(f"{seed}/plan")
    counts = sessions_per_project(projects, sessions)
    mean = total_bytes / max(1, sum(counts))
    sigma = 0.6
    earliest = now - days * 86400 + 6 * 3600
    latest = now - 2 * 3600
    specs = []
    for project, count in enumerate(counts):
        cwd = project_cwd(project)
        for number in range(count):
            factor = math.exp(rng.gauss(0, sigma)) / math.exp(sigma**2 / 2)
            budget = int(min(mean * 8, max(BASE_TURN, mean * factor)))
            session_turns = max(1, round(turns * rng.uniform(0.3, 1.7)))
            start = rng.uniform(earliest, max(earliest, latest - session_turns * 900))
            specs.append(SessionSpec(seed, project, number, cwd, budget, session_turns, start))
    return specs


# -- memory ----------------------------------------------------------------------------------------

_COMPONENTS = [
    f"{a}-{b}"
    for a in (
        "billing",
        "auth",
        "search",
        "checkout",
        "inventory",
        "notifications",
        "reporting",
        "ingest",
        "gateway",
        "profile",
        "payments",
        "analytics",
        "scheduler",
        "catalog",
        "media",
        "export",
        "admin",
        "onboarding",
        "ledger",
        "webhooks",
    )
    for b in ("service", "api", "worker", "frontend", "cli", "sdk", "jobs", "db")
]
_GROUPS = [
    ("npm", "pnpm", "yarn", "bun"),
    ("pip", "uv", "poetry", "pdm"),
    ("celery", "dramatiq", "rq", "arq"),
    ("jest", "vitest", "mocha"),
    ("pytest", "unittest"),
    ("postgres", "mysql", "sqlite", "mongodb"),
    ("requests", "httpx", "aiohttp"),
    ("webpack", "vite", "esbuild", "rollup"),
    ("circleci", "jenkins", "buildkite", "github-actions"),
]
_SLOTS = {
    "area": [
        "dependency management",
        "background jobs",
        "unit tests",
        "integration tests",
        "HTTP calls",
        "the build",
        "CI",
        "local development",
        "fixtures",
        "migrations",
        "release builds",
    ],
    "artifact": [
        "migration files",
        "API handlers",
        "feature flags",
        "fixtures",
        "config files",
        "the changelog",
        "error messages",
        "log lines",
        "SQL queries",
        "commit messages",
        "PR descriptions",
        "docstrings",
    ],
    "style": [
        "plain English",
        "imperative mood",
        "British spelling",
        "short sentences",
        "lower case",
        "snake_case names",
        "numbered steps",
        "Markdown tables",
    ],
    "check": [
        "make lint",
        "the type checker",
        "the contract tests",
        "the smoke suite",
        "the migration dry run",
        "the license scan",
        "the load test",
        "the a11y checks",
    ],
    "action": ["merge", "release", "deploy", "schema change", "dependency bump", "hotfix", "demo"],
    "path": [
        "src/",
        "lib/",
        "internal/",
        "pkg/",
        "app/",
        "services/",
        "tools/",
        "config/",
        "deploy/",
        "docs/",
    ],
    "dep": [
        "the ledger",
        "the search index",
        "the payment provider",
        "the identity provider",
        "the CRM",
        "the data warehouse",
        "the feature-flag service",
        "the mail relay",
    ],
    "proto": ["gRPC", "REST", "GraphQL", "webhooks", "a message queue", "SFTP"],
    "reason": [
        "too slow on cold starts",
        "hard to debug",
        "missing typed stubs",
        "unmaintained",
        "too heavy for this size",
        "not supported by the platform team",
    ],
    "month": [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ],
    "data": [
        "audit events",
        "invoices",
        "session logs",
        "raw webhooks",
        "exports",
        "search queries",
        "metrics",
    ],
    "event": [
        "a migration is added",
        "an endpoint changes",
        "a dependency is bumped",
        "a flag is removed",
        "the schema changes",
        "a new env var is added",
        "a release branch is cut",
        "a test is quarantined",
    ],
    "followup": [
        "update the runbook",
        "regenerate the OpenAPI spec",
        "bump the chart version",
        "tell #releases",
        "rerun the contract tests",
        "update .env.example",
        "add a CHANGELOG line",
        "refresh the fixtures",
        "ping the data team",
    ],
    "platform": ["Fly.io", "Kubernetes", "ECS", "Cloud Run", "a single VM", "Heroku", "Lambda", "Nomad"],
    "region": ["fra", "ams", "iad", "sjc", "syd", "nrt", "gru", "lhr", "eu-west-1", "us-east-2"],
    "team": ["platform", "payments", "growth", "data", "mobile", "core", "infra", "search"],
    "env": ["staging", "production", "preview", "CI", "local dev", "demo"],
    "version": ["13", "14", "15", "16", "8.0", "3.45", "7"],
}
# Templates naming two members of an exclusive group (the truth `a` and a rejected `b`): the
# entries that duplicate and contradiction search must look at closely. Kept to about one entry in
# ten, as in a real memory, where most entries name no package manager or database at all.
_TOOL_TEMPLATES = [
    ("preference", "Use {a} rather than {b} for {area} in {comp}."),
    ("correction", "{comp} uses {a}, not {b}."),
    ("decision", "Chose {a} for {area} in {comp}; {b} was {reason}."),
    ("decision", "{comp} moved from {b} to {a} in {month}."),
    ("fact", "The {env} database of {comp} is {db} {version}."),
]
_TEMPLATES = [
    ("preference", "Keep {artifact} in {comp} under {n} lines."),
    ("preference", "Write {artifact} for {comp} in {style}."),
    ("preference", "Run {check} before every {action} of {comp}."),
    ("correction", "The {artifact} of {comp} live in {path}, not in {path2}."),
    ("correction", "{comp} talks to {dep} over {proto}, not {proto2}."),
    ("decision", "{comp} keeps {data} for {n} days."),
    ("pattern", "Every time {event} in {comp}, {followup}."),
    ("pattern", "After each {action} of {comp}, {followup}."),
    ("fact", "{comp} runs on {platform} in {region} with {n} replicas."),
    ("fact", "{comp} is owned by the {team} team; alerts go to #{team}-{n}."),
    ("fact", "{comp} listens on port {port} in {env}."),
]
TOOL_SHARE = 0.1
_CATEGORY_FILE = {
    "correction": "corrections.md",
    "preference": "preferences.md",
    "decision": "decisions.md",
    "pattern": "patterns.md",
    "fact": "facts.md",
}
_FILE_META = {
    "corrections.md": ("Corrections", "Corrections: where the agent was wrong and what is right", "feedback"),
    "preferences.md": ("Preferences", "How the user wants things done", "feedback"),
    "decisions.md": ("Decisions", "Decisions made and what was chosen", "project"),
    "patterns.md": ("Patterns", "Recurring workflows and things that keep happening", "feedback"),
    "facts.md": ("Facts", "Stable facts about the project, the user and their environment", "project"),
}
_NATIVE_MEMORIES = [
    (
        "feedback_testing.md",
        "Testing",
        "Integration tests hit a real database, not mocks",
        "feedback",
        "Integration tests must hit a real database, never mocks.",
        "**Why:** a mocked test passed while the prod migration failed last quarter.",
        "**How to apply:** use the docker-compose Postgres in tests/integration.",
    ),
    (
        "user_role.md",
        "User role",
        "The user is a backend engineer who owns the billing stack",
        "user",
        "The user owns the billing stack and reviews every schema change.",
        "",
        "",
    ),
    (
        "project_freeze.md",
        "Merge freeze",
        "Merge freeze for non-critical changes before each release",
        "project",
        "Non-critical merges wait during the release freeze.",
        "**Why:** the mobile team cuts the release branch that day.",
        "**How to apply:** flag any PR scheduled in the freeze window.",
    ),
    (
        "reference_linear.md",
        "Linear",
        "Pipeline bugs are tracked in the Linear project INGEST",
        "reference",
        "Pipeline bugs are tracked in Linear project INGEST.",
        "",
        "",
    ),
    (
        "feedback_summaries.md",
        "Summaries",
        "No trailing summaries after a change",
        "feedback",
        "Do not summarise a change at the end of a reply; the diff speaks.",
        "**Why:** the user reads the diff anyway.",
        "**How to apply:** end with the next step, if any.",
    ),
    (
        "reference_grafana.md",
        "Dashboards",
        "Latency dashboard is grafana.internal/d/api-latency",
        "reference",
        "The on-call latency dashboard is grafana.internal/d/api-latency.",
        "",
        "",
    ),
]


def _entry_text(rng: random.Random, truth: dict[tuple[str, ...], str]) -> tuple[str, str]:
    """One grammar entry. The memory is consistent: each exclusive group has one chosen member."""
    tool = rng.random() < TOOL_SHARE
    category, template = rng.choice(_TOOL_TEMPLATES if tool else _TEMPLATES)
    group = rng.choice(_GROUPS[:5] + _GROUPS[6:])
    a = truth[group]
    b = rng.choice([member for member in group if member != a])
    values = {key: rng.choice(options) for key, options in _SLOTS.items()}
    values["path2"] = rng.choice([p for p in _SLOTS["path"] if p != values["path"]])
    values["proto2"] = rng.choice([p for p in _SLOTS["proto"] if p != values["proto"]])
    values.update(
        comp=rng.choice(_COMPONENTS),
        a=a,
        b=b,
        n=rng.randint(2, 400),
        port=rng.randint(3000, 9999),
        db=truth[_GROUPS[5]],
    )
    return category, template.format(**values)


def memory_entries(count: int, seed: int, now: datetime) -> list[tuple[str, str]]:
    """`count` distinct (category, entry line) pairs in the DESIGN.md §5 format, oldest first.

    About 3 % are labelled signal messages themselves (so a new signal can restate memory); the
    rest come from a grammar over components, paths, teams and, in about one entry in ten, the
    exclusive groups (npm/pnpm, pip/uv, postgres/sqlite, ...) that dream's contradiction search looks
    at; the memory is consistent (one chosen member per group, the others only ever rejected).
    """
    rng = random.Random(f"{seed}/memory")
    truth = {group: rng.choice(group) for group in _GROUPS}
    sentences = [s for s in signal_sentences() if len(s["text"]) <= 200 and "\n" not in s["text"]]
    rng.shuffle(sentences)
    seen: set[str] = set()
    picked: list[tuple[str, str]] = []
    borrowed = iter(sentences)
    while len(picked) < count:
        item: tuple[str, str] | None = None
        if rng.random() < 0.03:
            sentence = next(borrowed, None)
            if sentence is not None:
                item = (sentence["labels"][0], sentence["text"].strip())
        if item is None:
            item = _entry_text(rng, truth)
        if item[1].lower() in seen:
            continue
        seen.add(item[1].lower())
        picked.append(item)
    lines = []
    for category, text in picked:
        day = (now - timedelta(days=rng.uniform(8, 720))).date().isoformat()
        session = f"{rng.getrandbits(32):08x}"
        confidence = "high" if rng.random() < 0.8 else "medium"
        lines.append(
            (category, day, f"- [{day}] {text} (source: session {day} {session}, confidence: {confidence})")
        )
    lines.sort(key=lambda item: item[1])
    return [(category, line) for category, _, line in lines]


def write_memory(
    memory_dir: Path, count: int, seed: int, now: datetime, native: int = len(_NATIVE_MEMORIES)
) -> dict[str, Any]:
    """A native-layout memory dir with `count` entries in topic files and `native` Claude Code files."""
    memory_dir.mkdir(parents=True, exist_ok=True)
    by_file: dict[str, list[str]] = {name: [] for name in _FILE_META}
    for category, line in memory_entries(count, seed, now):
        by_file[_CATEGORY_FILE[category]].append(line)
    today = now.date().isoformat()
    rows = []
    for name, lines in by_file.items():
        title, description, kind = _FILE_META[name]
        # The description is quoted: "Corrections: where ..." is not a valid plain YAML scalar.
        head = [
            "---",
            f"name: {title}",
            f"description: {json.dumps(description)}",
            f"type: {kind}",
            "---",
            "",
            f"# {title}",
            "",
        ]
        (memory_dir / name).write_text("\n".join(head + lines) + "\n", encoding="utf-8")
        rows.append(f"| [{name}]({name}) | {description} ({len(lines)}) | {today} |")
    index_links = []
    for name, title, description, kind, rule, why, how in _NATIVE_MEMORIES[:native]:
        body = [rule, *(["", why] if why else []), *([how] if how else [])]
        text = "\n".join(
            ["---", f"name: {title}", f"description: {description}", f"type: {kind}", "---", "", *body]
        )
        (memory_dir / name).write_text(text + "\n", encoding="utf-8")
        index_links.append(f"- [{title}]({name}) — {description}")
    index = [
        "# Memory Index",
        "",
        f"Last consolidated: {(now - timedelta(days=8)).date().isoformat()}",
        "",
        "## Quick Reference",
        "",
        "- Use pnpm, never npm.",
        "- Prices are integer cents across the billing service.",
        "",
        "## Topic Files",
        "",
        "| File | Summary | Updated |",
        "|---|---|---|",
        *rows,
        "",
        *index_links,
    ]
    (memory_dir / "MEMORY.md").write_text("\n".join(index) + "\n", encoding="utf-8")
    return {
        "memory_dir": str(memory_dir),
        "entries": count,
        "native_files": native,
        "bytes": sum(p.stat().st_size for p in memory_dir.iterdir() if p.is_file()),
    }


# -- the home ----------------------------------------------------------------------------------------


def parse_size(text: str) -> int:
    text = text.strip().upper().rstrip("B")
    scale = {"K": 10**3, "M": 10**6, "G": 10**9}
    if text and text[-1] in scale:
        return int(float(text[:-1]) * scale[text[-1]])
    return int(text)


def build_home(
    out: Path,
    *,
    projects: int,
    sessions: int,
    turns: int,
    total_bytes: int,
    memory_entries_count: int,
    seed: int = 1,
    now: datetime | None = None,
    days: float = 7,
    jobs: int | None = None,
) -> dict[str, Any]:
    out = out.resolve()
    real = (Path.home() / ".claude").resolve()
    if out == real or real in out.parents or out in real.parents:
        raise SystemExit(f"refusing to write into the real Claude home ({real})")
    if out.exists() and any(out.iterdir()):
        raise SystemExit(f"{out} exists and is not empty")
    now = (now or datetime.now(timezone.utc)).replace(microsecond=0)
    started = time.perf_counter()
    specs = plan_sessions(seed, projects, sessions, turns, total_bytes, now.timestamp(), days)
    jobs = jobs or os.cpu_count() or 1
    work = [(str(out), spec) for spec in specs]
    if jobs > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            written = pool.map(_write_one, work, chunksize=8)
    else:
        written = [_write_one(item) for item in work]
    memory_project = hf.slug(project_cwd(0))
    memory = (
        write_memory(out / "projects" / memory_project / "memory", memory_entries_count, seed, now)
        if memory_entries_count
        else None
    )
    total = sum(w["bytes"] for w in written)
    manifest = {
        "generator": "bench/make_home.py",
        "seed": seed,
        "now": now.isoformat(),
        "options": {
            "projects": projects,
            "sessions": sessions,
            "turns": turns,
            "bytes": total_bytes,
            "memory_entries": memory_entries_count,
            "days": days,
        },
        "sessions": len(written),
        "projects": len({Path(w["path"]).parent.name for w in written}),
        "transcript_bytes": total,
        "user_entry_bytes": sum(w["user_entry_bytes"] for w in written),
        "user_entry_share": round(sum(w["user_entry_bytes"] for w in written) / max(1, total), 4),
        "oldest_event": datetime.fromtimestamp(min(w["first"] for w in written), tz=timezone.utc).isoformat(),
        "newest_event": datetime.fromtimestamp(max(w["last"] for w in written), tz=timezone.utc).isoformat(),
        "memory_project": memory_project,
        "memory": memory,
        "seconds": round(time.perf_counter() - started, 2),
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def add_session(
    out: Path,
    seed: int,
    number: int,
    *,
    project: int = 1,
    byte_budget: int | None = None,
    at: datetime | None = None,
) -> dict[str, Any]:
    """One more session (a session of today) in an existing home; returns what write_session wrote."""
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    mean = manifest["transcript_bytes"] // max(1, manifest["sessions"])
    start = (at or datetime.now(timezone.utc) - timedelta(minutes=30)).timestamp()
    spec = SessionSpec(
        seed + 1_000_003,
        project,
        number,
        project_cwd(project),
        byte_budget or mean,
        manifest["options"]["turns"],
        start,
    )
    return write_session(out, spec)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", type=Path, help="the Claude dir to create")
    preset = parser.add_mutually_exclusive_group()
    preset.add_argument(
        "--large", action="store_true", help="~1 GB: 50 projects, 2,000 sessions, 10,000 entries"
    )
    preset.add_argument(
        "--quick", action="store_true", help="~50 MB: 5 projects, 100 sessions, 1,000 entries"
    )
    preset.add_argument(
        "--typical", action="store_true", help="~100 MB: 4 projects, 40 sessions, 500 entries (a week)"
    )
    parser.add_argument("--projects", type=int)
    parser.add_argument("--sessions", type=int)
    parser.add_argument("--turns", type=int, help="mean user turns per session")
    parser.add_argument("--bytes", type=parse_size, help="total transcript bytes, e.g. 50M or 1G")
    parser.add_argument("--memory-entries", type=int, help="entries in the biggest project's memory")
    parser.add_argument(
        "--days", type=float, default=7, help="spread sessions over this many days (default 7)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--now", help="reference time, ISO 8601 (default: now)")
    parser.add_argument("--jobs", type=int, help="writer processes (default: CPUs)")
    args = parser.parse_args(argv)
    chosen = dict(PRESETS["large"] if args.large else PRESETS["typical"] if args.typical else DEFAULTS)
    for key in ("projects", "sessions", "turns", "bytes", "memory_entries"):
        if getattr(args, key) is not None:
            chosen[key] = getattr(args, key)
    now = datetime.fromisoformat(args.now.replace("Z", "+00:00")) if args.now else None
    if now is not None and now.tzinfo is None:
        now = now.replace(tzinfo=timezone.utc)
    manifest = build_home(
        args.out,
        projects=chosen["projects"],
        sessions=chosen["sessions"],
        turns=chosen["turns"],
        total_bytes=chosen["bytes"],
        memory_entries_count=chosen["memory_entries"],
        seed=args.seed,
        now=now,
        days=args.days,
        jobs=args.jobs,
    )
    print(json.dumps({k: v for k, v in manifest.items() if k != "options"}, indent=1))


if __name__ == "__main__":
    main()
