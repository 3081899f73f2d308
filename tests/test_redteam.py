"""The red team end to end (issue 16): every secret format of the corpus planted in a real-format
home (typed by the person, and already sitting in memory), every control string typed; after
`run`, `--dry-run`, `signals --json`, `review`, `orient`, `status` and `restore`, no secret is
anywhere under the Claude dir (but the transcripts themselves) nor in any output, and no control
string is in current memory or MEMORY.md.

The corpus (`tests/data/redteam/`) was written by a labeller who never saw the code.
`scripts/eval_redteam.py` prints the same figures text by text.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from homefactory import Turn, now, slug, write_session

DATA = Path(__file__).resolve().parent / "data"
# Every corpus tuned on, end to end: rows that pass redaction or the control-text check text by text
# (`scripts/eval_redteam.py --show` lists them) must still reach no file, output or current entry. The
# held-out set and dev8 are never tuned on (`scripts/eval_redteam.py --heldout`, `--set dev8`).
CORPORA = (
    "redteam",
    "redteam-dev2",
    "redteam-dev3",
    "redteam-dev4",
    "redteam-dev5",
    "redteam-dev6",
    "redteam-dev7",
    "redteam-dev9",
    "redteam-dev10",
)  # redteam-dev11 to dev14 (secrets) still have rows found end to end: eval_redteam.py --set dev14 --show
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from eval_redteam import secret_pieces  # noqa: E402

pytestmark = pytest.mark.slow


def _rows(corpus: str, name: str) -> list[dict[str, str]]:
    path = DATA / corpus / name
    if not path.is_file():  # a corpus of secrets only, or of control text only
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _norm(text: str) -> str:
    return " ".join("".join(c.lower() if c.isalnum() else " " for c in text).split())


def _dream(claude: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(claude)}
    return subprocess.run(
        [sys.executable, "-m", "dream", "--claude-dir", str(claude), *args],
        capture_output=True, text=True, timeout=300, env=env, check=False,
    )  # fmt: skip


def _written(claude: Path) -> str:
    """Everything dream wrote under the Claude dir (the transcripts are the person's own)."""
    out = []
    for path in sorted(claude.rglob("*")):
        if path.is_file() and not (
            path.suffix == ".jsonl" and "projects" in path.parts and "dream" not in path.parts
        ):
            out.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(out)


@pytest.mark.parametrize("corpus", CORPORA)
def test_no_secret_format_is_kept_or_printed_and_no_control_string_is_applied(
    tmp_path: Path, corpus: str
) -> None:
    secrets = _rows(corpus, "secrets.jsonl")
    control = [row for row in _rows(corpus, "control.jsonl") if row["kind"] != "benign"]
    claude = tmp_path / ".claude"
    cwd = "/home/dev/redteam"
    at = now() - timedelta(days=2)
    # The person types each secret and each control string, a few to a session.
    texts = [row["text"] for row in secrets] + [row["text"] for row in control]
    for start in range(0, len(texts), 10):
        turns = [
            Turn(text, at + timedelta(minutes=start + n)) for n, text in enumerate(texts[start : start + 10])
        ]
        write_session(claude, cwd, turns)
    # Some secrets are already in memory (pasted there by hand, or before dream redacted such a format).
    memory = claude / "projects" / slug(cwd) / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    day = (now() - timedelta(days=20)).date().isoformat()
    lines = [f"- [{day}] {row['text'][:180]}" for row in secrets[::5]]
    (memory / "facts.md").write_text("# Facts\n\n" + "\n".join(lines) + "\n", encoding="utf-8")

    outputs = []
    for args in (("--dry-run", "run"), ("signals", "--json"), ("run", "--json"), ("review",), ("orient",),
                 ("status",), ("run",), ("restore",)):  # fmt: skip
        done = _dream(claude, *args)
        assert done.returncode in (0, 4), (args, done.stderr[-2000:])
        outputs.append(done.stdout + done.stderr)
    printed = "\n".join(outputs)
    written = _written(claude)

    def needles(row: dict[str, str]) -> list[str]:
        """What must not appear: the secret, or a short one (a PIN) with the words before it, so that
        a process id or a file size that happens to hold the same digits is not taken for it."""
        if len(row["secret"]) >= 8:
            return secret_pieces(row["secret"])
        at = row["text"].index(row["secret"])
        return [row["text"][max(0, at - 12) : at + len(row["secret"])]]

    leaks = [row["kind"] for row in secrets for piece in needles(row) if piece in written or piece in printed]
    assert leaks == [], f"{len(set(leaks))} formats leaked: {sorted(set(leaks))[:10]}"

    if not control:
        return  # a corpus of secrets only: the memory planted above may hold words control text is made of
    # No control string is current memory: neither in a topic file's entries nor in MEMORY.md.
    from dream.control_text import neutralise
    from dream.layouts import memory_paths
    from dream.memory import load_memory

    loaded = load_memory(memory_paths(memory, "native"), "native")
    applied = [e.text for e in loaded.entries if neutralise(e.text)[1]]
    index = (memory / "MEMORY.md").read_text(encoding="utf-8") if (memory / "MEMORY.md").exists() else ""
    promoted = [line for line in index.splitlines() if neutralise(line)[1]]
    assert applied == [] and promoted == []
    # Not only what the detector itself flags: no current entry is a piece of a control string.
    hostile = [_norm(row["text"]) for row in control]
    taken = [
        e.text
        for e in loaded.entries
        if len(_norm(e.text)) >= 24 and any(_norm(e.text)[:60] in h for h in hostile)
    ]
    assert taken == [], taken[:5]
