"""The record of memory texts already found free of secrets (`dream/clean_texts.py`, its file
`dream/clean_texts_file.py`): a text it knows is not redacted again, any other text is, and a
secret is never recorded.

In process for what the record answers; as real subprocesses for who writes it (a dry run never
does) and for what a warm run then leaves out.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from homefactory import Turn, dream_cli, write_session

from dream import clean_texts, clean_texts_file, rules_version
from dream import redact as redaction
from dream.paths import resolve_paths

REPO = Path(__file__).resolve().parent.parent
CLEAN = "- Use pnpm, not npm, in this repo. _(2026-11-20, session abc)_\n"
SECRET = "- The staging token is ghp_" + "Zq8" * 12 + " _(2026-11-20, session abc)_\n"


@pytest.fixture(autouse=True)
def detached() -> Iterator[None]:
    yield
    clean_texts_file.attach(None, writable=False)


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = redaction.redact
    monkeypatch.setattr(redaction, "redact", lambda text: seen.append(text) or real(text))
    real_has = redaction.contains_secret
    monkeypatch.setattr(redaction, "contains_secret", lambda text: seen.append(text) or real_has(text))
    return seen


def _record(tmp_path: Path) -> Path:
    (tmp_path / ".claude" / "dream").mkdir(parents=True)
    return tmp_path / ".claude" / "dream" / "clean-texts.bin"


def test_a_clean_text_is_not_redacted_again_by_a_later_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _record(tmp_path)
    clean_texts_file.attach(path, writable=True)
    assert clean_texts.redact(CLEAN).text == CLEAN
    assert clean_texts_file.save()
    assert CLEAN.encode() not in path.read_bytes()  # hashes, not texts
    seen = _counting(monkeypatch)
    clean_texts_file.attach(path, writable=False)  # as the next command finds it
    assert clean_texts.redact(CLEAN).text == CLEAN
    assert not clean_texts.contains_secret(CLEAN)
    assert seen == []
    assert clean_texts.redact(CLEAN + "- one more\n").text.endswith("one more\n")
    assert len(seen) == 1  # a changed text is redacted as always


def test_a_secret_is_redacted_every_time_and_never_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _record(tmp_path)
    clean_texts_file.attach(path, writable=True)
    redacted = clean_texts.redact(SECRET).text
    assert "ghp_" not in redacted
    assert clean_texts.contains_secret(SECRET)
    # What redaction made is known clean (redacting it again changes nothing): the file written from it.
    assert clean_texts_file.save()
    clean_texts_file.attach(path, writable=False)
    seen = _counting(monkeypatch)
    assert "ghp_" not in clean_texts.redact(SECRET).text and seen == [SECRET]
    assert clean_texts.redact(redacted).text == redacted and seen == [SECRET]
    assert clean_texts.contains_secret(SECRET) and seen == [SECRET]  # looked at once a process


def test_under_other_redaction_rules_the_record_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A newer dream may find a secret the older rules missed: what they found clean is looked at again.
    path = _record(tmp_path)
    clean_texts_file.attach(path, writable=True)
    clean_texts.redact(CLEAN)
    assert clean_texts_file.save()
    rules = tmp_path / "redact.py"
    rules.write_bytes(rules_version.REDACTION[0].read_bytes() + b"\n# one more rule\n")
    monkeypatch.setattr(rules_version, "REDACTION", (rules, *rules_version.REDACTION[1:]))
    clean_texts_file.attach(path, writable=False)
    seen = _counting(monkeypatch)
    clean_texts.redact(CLEAN)
    assert seen == [CLEAN]


def test_the_texts_with_a_secret_a_process_remembers_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    # A daemon keeps its process for weeks: what it remembers of texts with secrets stays small.
    monkeypatch.setattr(clean_texts, "_DIRTY_CHARS", 3 * len(SECRET))
    clean_texts.use(None)
    texts = [SECRET.replace("staging", f"stage-{n}") for n in range(6)]
    for text in texts:
        assert "ghp_" not in clean_texts.redact(text).text
    assert len(clean_texts._record.dirty) <= 3
    assert clean_texts._record.dirty_chars <= 3 * len(SECRET)
    seen = _counting(monkeypatch)
    assert "ghp_" not in clean_texts.redact(texts[0]).text and seen == [texts[0]]  # forgotten: again
    assert "ghp_" not in clean_texts.redact(texts[-1]).text and seen == [texts[0]]  # remembered


@pytest.mark.parametrize("damage", [b"", b"dream-clean-texts 1\n", b"\x00" * 40, b"garbage\nmore"])
def test_a_damaged_or_foreign_record_means_redacting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: bytes
) -> None:
    path = _record(tmp_path)
    clean_texts_file.attach(path, writable=True)
    clean_texts.redact(CLEAN)
    assert clean_texts_file.save()
    path.write_bytes(path.read_bytes()[:-3] if damage == b"" else damage)
    clean_texts_file.attach(path, writable=False)
    seen = _counting(monkeypatch)
    assert clean_texts.redact(CLEAN).text == CLEAN and seen == [CLEAN]


def test_a_record_not_allowed_to_write_writes_nothing(tmp_path: Path) -> None:
    path = _record(tmp_path)
    clean_texts_file.attach(path, writable=False)
    clean_texts.redact(CLEAN)
    assert not clean_texts_file.save() and not path.exists()


# As the real command line runs.


@pytest.mark.slow
def test_a_run_writes_the_record_a_dry_run_never_does_and_the_output_is_the_same(tmp_path: Path) -> None:
    home = tmp_path / "home"
    now = datetime.now(timezone.utc).replace(microsecond=0)
    said = ["From now on always use pnpm in this repo, never npm.", "Never add emojis to commit messages."]
    write_session(
        home / ".claude", str(home / "src" / "app"), [Turn(t, now - timedelta(hours=2)) for t in said]
    )
    record = resolve_paths(home / ".claude").clean_texts_file
    assert dream_cli(home, "run", "--dry-run").returncode == 0
    assert not record.exists()
    done = dream_cli(home, "run")
    assert done.returncode == 0, done.stderr
    assert record.exists()
    with_record = dream_cli(home, "run", "--dry-run")
    record.unlink()
    without = dream_cli(home, "run", "--dry-run")
    assert not record.exists()
    assert with_record.returncode == without.returncode == 0

    def body(text: str) -> list[str]:
        return [line for line in text.splitlines() if not line.startswith("dream DRY RUN")]

    assert body(with_record.stdout) == body(without.stdout)
