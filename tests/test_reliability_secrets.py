"""Secrets (issue 7, part 5): 35 credential formats, built at run time from random pieces (no literal
token is in the repository), planted in the user's typed words, in tool results (a `cat .env.staging`)
and in existing memory (topic files, archive, an old MEMORY.md, a Claude Code memory file's
description). Every command runs over them (run, run --dry-run, run --json, signals, orient, status,
review, verify, approve). Zero may appear in anything dream writes: memory files, archive, report rows
under `<claude>/dream/reports/`, the review queue, digests, snapshots and backups made after the first
run, and stdout/stderr of every command. A value planted in existing memory may appear only in the
first run's backup and snapshot, which are copies of the memory as the person had it.

A leak is found in the value's exact form, JSON-escaped, and lower-cased and cut at punctuation (the way
an entry key is written into a verify message).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import reliability_report
from reliability.false_positives import check_false_positives
from reliability.faults import has_traceback
from reliability.secret_formats import Secret, secret_formats, secret_needles
from reliability.secrets_run import SecretsRun, secret_leaks, secrets_scenario

from dream.redact import redact

SEED = 20261129


def fmt(name: str, seed: int = SEED) -> Secret:
    return next(s for s in secret_formats(seed) if s.name == name)


@pytest.fixture(scope="module")
def from_transcripts(tmp_path_factory: pytest.TempPathFactory) -> SecretsRun:
    return secrets_scenario(tmp_path_factory.mktemp("secrets-t"), SEED, "transcripts")


@pytest.fixture(scope="module")
def in_memory(tmp_path_factory: pytest.TempPathFactory) -> SecretsRun:
    return secrets_scenario(tmp_path_factory.mktemp("secrets-m"), SEED, "memory")


def test_at_least_25_formats_are_built_at_run_time_and_each_is_a_secret_to_dream() -> None:
    formats = secret_formats(SEED)
    assert len({s.name for s in formats}) >= 25
    toolkit = Path(reliability_report.__file__).parent / "reliability"
    source = "".join(
        p.read_text() for p in [Path(__file__), Path(reliability_report.__file__), *toolkit.glob("*.py")]
    )
    for secret in formats:
        assert secret.needle not in source, f"{secret.name}: a literal token in the repository"
        assert secret.needle in secret.text
        assert secret.needle not in redact(secret.text).text, f"{secret.name} is not redacted on its own"
    assert secret_formats(SEED + 1)[0].needle != formats[0].needle


def test_every_format_is_planted_in_user_text_tool_results_and_memory(
    from_transcripts: SecretsRun, in_memory: SecretsRun
) -> None:
    names = {s.name for s in secret_formats(SEED)}
    for place in ("user-text-first", "tool-result-first", "user-text-second", "tool-result-second"):
        assert {p.split("@")[0] for p in from_transcripts.plantings if p.endswith("@" + place)} == names, (
            place
        )
    memory_places = {p.split("@")[0] for p in in_memory.plantings if "@memory" in p or "@native" in p}
    assert memory_places == names


def test_no_secret_from_user_text_or_tool_results_appears_in_anything_dream_writes(
    from_transcripts: SecretsRun,
) -> None:
    leaks = secret_leaks(from_transcripts)
    assert not leaks, json.dumps(leaks, indent=1)[:4000]


def test_every_command_ran_without_a_traceback(from_transcripts: SecretsRun, in_memory: SecretsRun) -> None:
    for run in (from_transcripts, in_memory):
        for label, text in run.outputs.items():
            assert not has_traceback(text), f"{label}: {text[-1500:]}"
    assert from_transcripts.codes.get("run") == 0
    assert all(code == 0 for label, code in from_transcripts.codes.items() if label != "(process)"), (
        from_transcripts.codes
    )


def test_secret_bearing_rules_wait_for_review_and_approval_writes_them_redacted(
    from_transcripts: SecretsRun,
) -> None:
    held = [
        item
        for item in from_transcripts.review
        if any("secret was redacted" in h for h in item.get("hold", []))
    ]
    assert len(held) >= 10, "too few of the planted rules reached the review queue for this to prove anything"
    assert all("[REDACTED:" in item["text"] for item in held)
    approved = [label for label in from_transcripts.outputs if label.startswith("approve")]
    assert approved and all(from_transcripts.codes[label] == 0 for label in approved)
    memory = "".join(p.read_text("utf-8") for p in from_transcripts.home.memory.glob("*.md"))
    assert memory.count("[REDACTED:") >= len(held) // 2, "the approved rules are not in memory"


def test_snapshots_made_after_the_first_run_hold_no_secret(from_transcripts: SecretsRun) -> None:
    snapshots = from_transcripts.home.claude / "dream" / "snapshots"
    later = [p for p in snapshots.rglob("*") if p.is_file() and from_transcripts.first_run_id not in p.parts]
    assert later, "the runs after the first made no snapshot"
    text = "".join(p.read_text("utf-8", "replace") for p in later)
    for planting, secret in from_transcripts.plantings.items():
        assert not any(f in text for f in secret_needles(secret)), planting


def test_secrets_already_in_memory_are_redacted_by_the_run(in_memory: SecretsRun) -> None:
    # Guards a fixed bug: redacting an entry changed its words, so nothing-lost missed the old entry,
    # verification failed (exit 4), the snapshot was restored and the secrets stayed on every run.
    managed = "".join(
        p.read_text("utf-8") for p in in_memory.home.memory.glob("*.md") if not p.name.startswith("feedback_")
    )
    left = [
        p
        for p, s in in_memory.plantings.items()
        if "@memory" in p and any(f in managed for f in secret_needles(s))
    ]
    assert not left, (
        f"{len(left)} secrets still in memory files: {left[:5]}; run exit codes {in_memory.codes}"
    )


def test_secrets_already_in_memory_reach_no_output_state_or_later_snapshot(in_memory: SecretsRun) -> None:
    # Guards two fixed bugs: `run --dry-run` printed the planned diff's old lines with the secret
    # values in them, and a failed verification printed entry keys (lower-cased secrets).
    leaks = secret_leaks(in_memory)
    assert not leaks, json.dumps(leaks, indent=1)[:4000]


def test_claude_codes_own_memory_file_keeps_its_bytes_and_its_index_line_is_redacted(
    in_memory: SecretsRun,
) -> None:
    native = in_memory.home.memory / "feedback_ci_token.md"
    assert native.read_bytes() == in_memory.memory_before["feedback_ci_token.md"]
    secret = next(s for p, s in in_memory.plantings.items() if "@native" in p)
    index = (in_memory.home.memory / "MEMORY.md").read_text("utf-8")
    assert secret.needle not in index


# Regressions for the redact.py fixes this suite found (the Hypothesis property in
# test_reliability_props.py finds them on its own).


def test_a_private_key_escaped_twice_inside_nested_json_is_redacted() -> None:
    body = fmt("openssh-private-key").needle  # a 64-character base64 line of the key
    inner = json.dumps(
        {"private_key": "-----BEGIN PRIVATE " + "KEY-----\n" + body + "\n-----END PRIVATE " + "KEY-----\n"}
    )
    log_line = json.dumps({"level": "error", "msg": inner})  # a service account JSON logged as a string
    assert body not in redact(log_line).text
    assert body not in redact(inner).text


def test_an_unquoted_value_inside_a_json_string_ends_at_the_escaped_newline() -> None:
    value = fmt("password-assignment").needle
    text = json.dumps({"env": "DB_PASSWORD=" + value + "\nAPI_URL=https://staging.example.com/v1"})
    out = redact(text).text
    assert value not in out
    assert "API_URL=https://staging.example.com/v1" in out


def test_a_token_right_after_an_escaped_newline_is_redacted() -> None:
    for secret in secret_formats(SEED)[:9]:
        text = json.dumps({"stdout": "token follows:\n" + secret.text + "\n"})
        assert secret.needle not in redact(text).text, secret.name


def test_false_positives_on_ordinary_code_and_prose_are_rare(report: Callable[[str], None]) -> None:
    figures = check_false_positives()
    report(
        f"redaction false positives: {figures.flagged_lines} of {figures.lines} lines "
        f"({100 * figures.rate:.4f} %) in {figures.files} files of ordinary code and prose; "
        f"{figures.kinds}"
    )
    assert figures.lines > 20_000
    assert figures.rate < 0.0005, "\n".join(figures.examples)
