"""What the analysis made of each memory entry, kept between runs (`dream/statement_cache.py`): a
statement read back is the one analysis makes, and anything doubtful means analysing again.

In process for what the file answers; as real subprocesses for who writes it (a dry run never does)
and for what a warm run then leaves out.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from homefactory import Turn, dream_cli, write_session

from dream import statement, statement_cache
from dream.paths import resolve_paths
from dream.redact import contains_secret

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"


@pytest.fixture(autouse=True)
def detached() -> Iterator[None]:
    yield
    statement_cache.attach(None, writable=False)


def _texts() -> list[str]:
    """Rules in every voice the labelled sets hold: what memory entries are made of."""
    texts = []
    for path in sorted(DATA.glob("signals-*.jsonl")):
        texts += [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines() if line]
    return texts[:3000]


def _file(tmp_path: Path) -> Path:
    (tmp_path / ".claude" / "dream").mkdir(parents=True)
    return tmp_path / ".claude" / "dream" / "statements.bin"


def _not_analysed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    analysed: list[str] = []
    real = statement.analyse
    monkeypatch.setattr(statement, "analyse", lambda text: analysed.append(text) or real(text))
    return analysed


def test_a_statement_read_back_is_the_one_analysis_makes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = _texts()
    path = _file(tmp_path)
    statement_cache.attach(path, writable=True)
    made = [statement_cache.analyse(text) for text in texts]
    assert statement_cache.save()
    statement_cache.attach(path, writable=True)  # the next command
    analysed = _not_analysed(monkeypatch)
    assert [statement_cache.analyse(text) for text in texts] == made
    # Only the texts with a secret in them are analysed again: their words were never kept.
    assert analysed == [text for text in texts if contains_secret(text)]
    assert len(analysed) < len(texts) // 50
    assert not statement_cache.save()  # nothing new: the file is left as it is


def test_a_text_not_in_the_file_is_analysed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _file(tmp_path)
    statement_cache.attach(path, writable=True)
    statement_cache.analyse("Use pnpm, not npm.")
    assert statement_cache.save()
    statement_cache.attach(path, writable=False)
    analysed = _not_analysed(monkeypatch)
    assert "yarn" in statement_cache.analyse("Use yarn, not npm.").keys
    assert analysed == ["Use yarn, not npm."]


def test_under_another_statement_py_the_file_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _file(tmp_path)
    statement_cache.attach(path, writable=True)
    statement_cache.analyse("Use pnpm, not npm.")
    assert statement_cache.save()
    source = tmp_path / "statement.py"
    source.write_bytes(statement_cache._SOURCES[0].read_bytes() + b"\n# a new rule\n")
    monkeypatch.setattr(statement_cache, "_SOURCES", (source,))
    statement_cache.attach(path, writable=False)
    analysed = _not_analysed(monkeypatch)
    statement_cache.analyse("Use pnpm, not npm.")
    assert analysed == ["Use pnpm, not npm."]


@pytest.mark.parametrize("damage", [b"", b"\x00" * 40, b"not marshal at all", "truncate"])
def test_a_damaged_file_means_analysing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: object
) -> None:
    path = _file(tmp_path)
    statement_cache.attach(path, writable=True)
    expected = statement_cache.analyse("Use pnpm, not npm.")
    assert statement_cache.save()
    path.write_bytes(path.read_bytes()[:-7] if damage == "truncate" else damage)  # type: ignore[arg-type]
    statement_cache.attach(path, writable=False)
    analysed = _not_analysed(monkeypatch)
    assert statement_cache.analyse("Use pnpm, not npm.") == expected
    assert analysed == ["Use pnpm, not npm."]


def test_the_statement_of_a_text_with_a_secret_is_never_kept(tmp_path: Path) -> None:
    path = _file(tmp_path)
    statement_cache.attach(path, writable=True)
    token = "ghp_" + "Zq8" * 12
    assert any(token.lower() in term for term in statement_cache.analyse(f"The CI token is {token}.").terms)
    assert not statement_cache.save() and not path.exists()


def test_entries_of_a_file_with_a_secret_in_it_are_not_kept_those_of_a_clean_file_are(tmp_path: Path) -> None:
    from homefactory import MemoryHome

    from dream.layouts import memory_paths
    from dream.memory import load_memory

    home = MemoryHome(tmp_path)
    home.write("clean.md", "- Use pnpm. (2026-11-01)\n- Never commit to main. (2026-11-01)\n")
    home.write("leaky.md", "- Use uv. (2026-11-01)\n- The CI token is ghp_" + "Zq8" * 12 + " (2026-11-01)\n")
    memory = load_memory(memory_paths(home.memory, "native"), "native")
    statement_cache.attach(_file(tmp_path), writable=True)
    for entry in memory.entries:
        memory.statement(entry)
    assert statement_cache.save()
    kept = set(statement_cache._store.rows)
    by_file = {e.text: statement_cache._key(e.text) in kept for e in memory.entries}
    assert by_file == {
        "Use pnpm. (2026-11-01)": True,
        "Never commit to main. (2026-11-01)": True,
        "Use uv. (2026-11-01)": False,  # its file is rewritten redacted by this run; the next one keeps it
        "The CI token is ghp_" + "Zq8" * 12 + " (2026-11-01)": False,
    }


def test_not_allowed_to_write_writes_nothing(tmp_path: Path) -> None:
    path = _file(tmp_path)
    statement_cache.attach(path, writable=False)
    statement_cache.analyse("Use pnpm, not npm.")
    assert not statement_cache.save() and not path.exists()


@pytest.mark.slow
def test_a_run_writes_the_file_a_dry_run_never_does_and_the_plan_is_the_same(tmp_path: Path) -> None:
    home = tmp_path / "home"
    now = datetime.now(timezone.utc).replace(microsecond=0)
    said = ["From now on always use pnpm in this repo, never npm.", "Actually we use yarn now, not pnpm."]
    turns = [Turn(text, now - timedelta(hours=3 - n)) for n, text in enumerate(said)]
    write_session(home / ".claude", str(home / "src" / "app"), turns)
    stored = resolve_paths(home / ".claude").statements_file
    assert dream_cli(home, "run", "--dry-run").returncode == 0
    assert not stored.exists()
    done = dream_cli(home, "run")
    assert done.returncode == 0, done.stderr
    assert stored.exists()
    with_file = dream_cli(home, "plan", "--json")
    stored.unlink()
    without = dream_cli(home, "plan", "--json")
    assert with_file.returncode == without.returncode == 0

    def plan(output: str) -> dict[str, object]:
        found = json.loads(output)
        found.pop("plan")  # the plan's id names the moment it was made
        return found

    assert plan(with_file.stdout) == plan(without.stdout)
