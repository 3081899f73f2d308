"""The README documents every command the CLI has, and names no command it lacks."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from dream.cli import main

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def _commands_in_readme() -> set[str]:
    table = README.split("## Commands", 1)[1].split("\n## ", 1)[0]
    first_column = [re.split(r"(?<!\\)\|", row)[1] for row in table.splitlines() if row.startswith("| `")]
    return {name.split()[0] for cell in first_column for name in re.findall(r"`([^`]+)`", cell)}


def test_every_command_is_in_the_readme_and_every_readme_command_exists() -> None:
    assert _commands_in_readme() == set(main.commands)


def test_each_documented_option_is_in_the_commands_help() -> None:
    runner = CliRunner()
    for command, option in [("plan", "--max-tokens"), ("apply", "--decisions"), ("run", "--consolidator"),
                            ("run", "--deterministic")]:  # fmt: skip
        assert option in README
        result = runner.invoke(main, [command, "--help"])
        assert result.exit_code == 0 and option in result.output, (command, option)
