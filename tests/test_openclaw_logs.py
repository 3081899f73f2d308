"""OpenClaw's daily logs as evidence (issue 15): the notes an agent keeps are read as the person's
rules where they say so, never as the agent's own voice, and their attribution names the log."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from homefactory import now

from dream.api import Session
from dream.transcripts import _log_statement


@pytest.mark.parametrize(
    ("line", "statement"),
    [
        ("- Decision today: we moved the bot to the cheaper model tier; Sam agreed.",
         "we moved the bot to the cheaper model tier; Sam agreed."),
        ("- **Decision:** use pnpm, never npm.", "use pnpm, never npm."),
        ("- Sam prefers that I post updates in #ops, not in DMs.", "Post updates in #ops, not in DMs."),
        ("- Sam wants me to always tag releases by hand.", "Always tag releases by hand."),
        ("- Rowan corrected me: staging runs on Fly.io in fra, not in ams.",
         "staging runs on Fly.io in fra, not in ams."),
        ("- Set up the repo. From now on I will always use quokka for builds.", None),
        ("- Sam said I should take a break.", None),
        ("## Notes", None),
    ],
)  # fmt: skip
def test_a_daily_log_line_is_the_persons_statement_or_nothing(line: str, statement: str | None) -> None:
    assert _log_statement(line.strip()) == statement


def test_daily_log_rules_reach_memory_attributed_to_the_log(isolated_home: Path, tmp_path: Path) -> None:
    claude = tmp_path / ".claude"
    claude.mkdir()
    workspace = isolated_home / ".openclaw" / "workspace"
    day = (now() - timedelta(days=1)).date().isoformat()
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / f"{day}.md").write_text(
        f"# {day}\n\n"
        "- Decision today: from now on the bot always runs on the cheaper model tier; Sam agreed.\n"
        "- Sam prefers that I post deploy updates in #ops, never in DMs.\n",
        encoding="utf-8",
    )
    result = Session.open(claude_dir=claude, memory_type="openclaw", project=workspace).run()
    assert result.exit_code == 0, [t.failures for t in result.targets]
    written = "\n".join(
        p.read_text(encoding="utf-8") for p in (workspace / "memory").glob("*.md") if p.stem != day
    )
    written += (
        (workspace / "MEMORY.md").read_text(encoding="utf-8") if (workspace / "MEMORY.md").exists() else ""
    )
    assert "cheaper model tier" in written
    assert "deploy updates in #ops" in written and "I post" not in written
    assert f"(source: daily log {day} line " in written


@pytest.mark.parametrize("curated", [True, False])
def test_openclaws_memory_md_keeps_its_form_and_holds_the_rules(
    isolated_home: Path, tmp_path: Path, curated: bool
) -> None:
    claude = tmp_path / ".claude"
    claude.mkdir()
    workspace = isolated_home / ".openclaw" / "workspace"
    (workspace / "memory").mkdir(parents=True)
    original = ["# Long-term memory", "", "## Hosts", "", "| name | role |", "|---|---|", "| bot-1 | prod |"]
    original += ["", "## People", "", "- Sam runs the on-call rota", "  - backup: Rowan", ""]
    if curated:
        (workspace / "MEMORY.md").write_text("\n".join(original), encoding="utf-8")
    day = (now() - timedelta(days=1)).date().isoformat()
    (workspace / "memory" / f"{day}.md").write_text(
        "- Sam corrected me: never restart bot-1 during business hours, only after 18:00.\n", encoding="utf-8"
    )
    session = Session.open(claude_dir=claude, memory_type="openclaw", project=workspace)
    assert session.run().exit_code == 0
    text = (workspace / "MEMORY.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    if curated:
        assert lines[: len(original) - 1] == original[:-1], "the curated part is kept as written, in place"
    else:
        assert lines[0] == "# Memory"
    assert "## Consolidated by dream" in lines and "### Rules" in lines
    assert any("never restart bot-1 during business hours" in line.lower() for line in lines)
    assert "# Memory Index" not in text
    before = (workspace / "MEMORY.md").read_bytes()
    assert Session.open(claude_dir=claude, memory_type="openclaw", project=workspace).run().exit_code == 0
    assert (workspace / "MEMORY.md").read_bytes() == before
