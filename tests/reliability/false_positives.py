"""False positives of redaction on ordinary code and prose."""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from reliability.running import HERE, ROOT

# ---------------------------------------------------------------------------------------------
# False positives of redaction on ordinary code and prose

STDLIB_MODULES = [
    "argparse",
    "ast",
    "asyncio/base_events",
    "base64",
    "calendar",
    "collections/__init__",
    "configparser",
    "contextlib",
    "csv",
    "dataclasses",
    "datetime",
    "difflib",
    "email/message",
    "email/utils",
    "ftplib",
    "functools",
    "getpass",
    "gettext",
    "hashlib",
    "hmac",
    "http/client",
    "http/cookiejar",
    "http/server",
    "imaplib",
    "inspect",
    "json/decoder",
    "logging/__init__",
    "logging/handlers",
    "mailbox",
    "netrc",
    "nntplib",
    "optparse",
    "pathlib",
    "poplib",
    "secrets",
    "shutil",
    "smtplib",
    "socket",
    "ssl",
    "subprocess",
    "tarfile",
    "tempfile",
    "textwrap",
    "typing",
    "urllib/parse",
    "urllib/request",
    "uuid",
    "xmlrpc/client",
    "zipfile",
]


@dataclass
class FalsePositiveFigures:
    files: int = 0
    lines: int = 0
    flagged_lines: int = 0
    kinds: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.flagged_lines / self.lines if self.lines else 0.0


def ordinary_corpus(limit_modules: int | None = None) -> dict[str, str]:
    """Ordinary code and prose with no credential in it: this package's own source (but the
    redactor's patterns), its docs, the labelled user messages, and Python standard library modules
    (which talk about passwords, tokens and keys all the time)."""
    import sysconfig

    corpus: dict[str, str] = {}
    for path in sorted((ROOT / "dream").glob("*.py")):
        if path.name != "redact.py":
            corpus[f"dream/{path.name}"] = path.read_text("utf-8")
    for name in ("README.md", "CLAUDE.md.snippet", "skill/dream/SKILL.md"):
        if (ROOT / name).is_file():
            corpus[name] = (ROOT / name).read_text("utf-8")
    design = ROOT.parent / "shared" / "DESIGN.md"
    if design.is_file():
        corpus["DESIGN.md"] = design.read_text("utf-8")
    # The labelled user messages, but for those that talk about credentials (several plant fake ones on
    # purpose): what is left is how people write to their agent.
    credential = re.compile(r"key|token|passw|secret|webhook|bearer|authori|credential|FAKE|://", re.I)
    for path in sorted((HERE / "data").glob("signals-*.jsonl")):
        texts = []
        for line in path.read_text("utf-8").splitlines():
            with contextlib.suppress(ValueError, KeyError, TypeError):
                text = str(json.loads(line)["text"])
                if not credential.search(text):
                    texts.append(text)
        corpus[f"tests/data/{path.name}"] = "\n".join(texts)
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for module in STDLIB_MODULES[:limit_modules]:
        path = stdlib / f"{module}.py"
        if path.is_file():
            corpus[f"stdlib/{module}.py"] = path.read_text("utf-8", "replace")
    return corpus


def check_false_positives(limit_modules: int | None = None) -> FalsePositiveFigures:
    from dream.redact import redact

    figures = FalsePositiveFigures()
    for name, text in ordinary_corpus(limit_modules).items():
        figures.files += 1
        lines = text.splitlines()
        figures.lines += len(lines)
        for number, line in enumerate(lines, 1):
            found = redact(line)
            if found.changed:
                figures.flagged_lines += 1
                for kind in found.kinds:
                    figures.kinds[kind] = figures.kinds.get(kind, 0) + 1
                if len(figures.examples) < 40:
                    figures.examples.append(f"{name}:{number}: {line.strip()[:120]}")
    return figures
