"""The Quick Reference of MEMORY.md ranks by importance (DESIGN.md §5).

Rules the person insisted on (corrections, memories they overruled, restatements) come first, then
the newest among equals, then facts; nothing the archive holds, at most 10 rows. Each test builds a
real memory dir in a temporary directory and renders the index with `build_index`.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from dream import defaults
from dream.edits import Edits
from dream.entry_line import format_entry
from dream.index import IndexResult, build_index, final_entries, importance
from dream.layouts import memory_paths
from dream.memory import Entry, Memory, load_memory

TODAY = date(2026, 4, 1)


def entry(day: str, text: str, updated: str | None = None, previously: str | None = None) -> str:
    """One entry line as dream writes it (dream/entry_line.py)."""
    note = f" (Updated {updated}, previously: {previously})" if updated and previously else ""
    return f"- [{day}] {text}{note} (source: session {day} abcdef12, confidence: high)"


def write_memory(root: Path, files: dict[str, list[str]]) -> Memory:
    memory_dir = root / "memory"
    memory_dir.mkdir()
    for name, lines in files.items():
        title = name[:-3].capitalize()
        (memory_dir / name).write_text(f"# {title}\n\n" + "".join(f"{line}\n" for line in lines), "utf-8")
    return load_memory(memory_paths(memory_dir, "native"), "native")


def index_of(memory: Memory, final: dict[str, list[Entry]] | None = None) -> IndexResult:
    if final is None:
        final = {rel: list(f.entries) for rel, f in memory.files.items()}
    return build_index(memory, final, TODAY, set())


def quick(result: IndexResult) -> list[str]:
    """The Quick Reference rows as rendered in MEMORY.md, without the bullet."""
    lines = result.lines
    start = lines.index("## Quick Reference") + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    rows = [line[2:] for line in lines[start:end] if line.startswith("- ")]
    assert rows == [line[2:] for line in result.quick_reference]
    return rows


def test_restated_correction_outranks_newer_one_time_preference(tmp_path: Path) -> None:
    memory = write_memory(
        tmp_path,
        {
            # Replaced on 03-01, said again on 03-05 (a restatement refreshes the date only).
            "corrections.md": [
                entry("2026-03-05", "Never deploy on Fridays.", "2026-03-01", "Deploy any weekday.")
            ],
            "preferences.md": [entry("2026-03-30", "Prefers small, focused commits.")],
            "facts.md": [entry("2026-03-31", "Staging runs on Fly.io in fra.")],
        },
    )
    assert quick(index_of(memory)) == [
        "Never deploy on Fridays.",
        "Prefers small, focused commits.",
        "Staging runs on Fly.io in fra.",
    ]


def test_more_insistence_outranks_newer_entries_of_the_same_file(tmp_path: Path) -> None:
    memory = write_memory(
        tmp_path,
        {
            "preferences.md": [
                entry("2026-03-30", "Prefers tabs in Makefiles."),  # said once, newest
                entry("2026-03-20", "Use pnpm, never npm.", "2026-03-20", "Uses npm."),  # overruled once
                # Overruled on 03-02, restated on 03-10: the most insistence, the oldest update.
                entry("2026-03-10", "Use Vitest, not Jest.", "2026-03-02", "Uses Jest."),
            ]
        },
    )
    assert quick(index_of(memory)) == [
        "Use Vitest, not Jest.",
        "Use pnpm, never npm.",
        "Prefers tabs in Makefiles.",
    ]


def test_an_update_note_later_than_the_date_counts_as_a_restatement(tmp_path: Path) -> None:
    memory = write_memory(
        tmp_path,
        {
            "preferences.md": [
                entry("2026-03-25", "Use uv, never plain pip.", "2026-03-25", "Uses pip."),
                entry("2026-03-01", "Use ruff, not flake8.", "2026-03-12", "Uses flake8."),
            ]
        },
    )
    assert quick(index_of(memory)) == ["Use ruff, not flake8.", "Use uv, never plain pip."]


def test_a_restatement_makes_an_entry_recent_again(tmp_path: Path) -> None:
    memory = write_memory(
        tmp_path,
        {
            "preferences.md": [
                entry("2026-03-15", "Use uv, never plain pip.", "2026-03-10", "Uses pip."),
                # Overruled earlier, but said again on 03-28: the newer of the two.
                entry("2026-03-28", "Use ruff, not flake8.", "2026-03-01", "Uses flake8."),
            ]
        },
    )
    assert quick(index_of(memory)) == ["Use ruff, not flake8.", "Use uv, never plain pip."]


def test_corrections_first_and_every_rule_before_any_fact(tmp_path: Path) -> None:
    memory = write_memory(
        tmp_path,
        {
            "facts.md": [
                entry("2026-03-31", "The CI runners have 8 GB of memory."),
                entry("2026-03-30", "The staging database is read-only."),
                # A corrected fact: the agent had it wrong, so it counts as a correction.
                entry("2026-02-20", "Prod runs Postgres 16.", "2026-02-20", "Prod runs Postgres 15."),
            ],
            "patterns.md": [entry("2026-03-20", "After a schema change, regenerate the client.")],
            "decisions.md": [entry("2026-03-21", "Chose Celery for background jobs.")],
            "preferences.md": [entry("2026-03-15", "Prefers small, focused commits.")],
            "corrections.md": [entry("2026-03-01", "No, the API lives in services/api, not api/.")],
        },
    )
    assert quick(index_of(memory)) == [
        "No, the API lives in services/api, not api/.",
        "Prod runs Postgres 16.",
        "Chose Celery for background jobs.",
        "After a schema change, regenerate the client.",
        "Prefers small, focused commits.",
        "The CI runners have 8 GB of memory.",
        "The staging database is read-only.",
    ]


def test_category_order_among_equals(tmp_path: Path) -> None:
    day = "2026-03-10"
    memory = write_memory(
        tmp_path,
        {
            "facts.md": [entry(day, "The repo is a monorepo.")],
            "patterns.md": [entry(day, "Releases are cut on Tuesdays.")],
            "decisions.md": [entry(day, "Chose Celery for background jobs.")],
            "preferences.md": [entry(day, "Prefers small, focused commits.")],
            "corrections.md": [entry(day, "Never force-push to main.")],
        },
    )
    assert quick(index_of(memory)) == [
        "Never force-push to main.",
        "Prefers small, focused commits.",
        "Chose Celery for background jobs.",
        "Releases are cut on Tuesdays.",
        "The repo is a monorepo.",
    ]


def test_an_entry_the_archive_holds_never_appears(tmp_path: Path) -> None:
    # A run killed after writing archive.md left the contradicted entry in its topic file too.
    memory = write_memory(
        tmp_path,
        {
            "preferences.md": [
                entry("2026-03-01", "Uses npm for installs."),
                entry("2026-03-20", "Use pnpm, never npm.", "2026-03-20", "Uses npm for installs."),
            ],
            "archive.md": [
                "- [2026-03-20] Uses npm for installs. (archived: contradicted on 2026-03-20 by: Use pnpm,"
                " never npm.; dated 2026-03-01; source: session 2026-03-01 abcdef12)"
            ],
        },
    )
    result = index_of(memory)
    assert quick(result) == ["Use pnpm, never npm."]
    assert not any("Uses npm for installs" in line for line in result.quick_reference)


def test_the_same_words_said_again_after_a_switch_back_are_current(tmp_path: Path) -> None:
    memory = write_memory(
        tmp_path,
        {
            "preferences.md": [
                entry("2026-03-25", "Use pnpm, never npm.", "2026-03-25", "Use npm, never pnpm."),
            ],
            "archive.md": [
                "- [2026-03-10] Use pnpm, never npm. (archived: contradicted on 2026-03-10 by: Use npm,"
                " never pnpm.; dated 2026-03-01; source: session 2026-03-01 abcdef12)",
                "- [2026-03-25] Use npm, never pnpm. (archived: contradicted on 2026-03-25 by: Use pnpm,"
                " never npm.; dated 2026-03-10; source: session 2026-03-10 abcdef12)",
            ],
        },
    )
    assert quick(index_of(memory)) == ["Use pnpm, never npm."]


def test_an_entry_replaced_in_this_run_is_gone_and_its_replacement_leads(tmp_path: Path) -> None:
    memory = write_memory(
        tmp_path,
        {
            "preferences.md": [entry("2026-03-30", "Prefers small, focused commits.")],
            "facts.md": [entry("2026-03-01", "Deploys go out from Jenkins.")],
        },
    )
    old = memory.files["facts.md"].entries[0]
    edits = Edits(memory, TODAY)
    # What apply_decisions does for a replacement: the new line in place, the old text archived.
    text, day, source = "Deploys go out from GitHub Actions.", "2026-03-31", "session 2026-03-31 abcdef12"
    edits.editor("facts.md").replace(old, [format_entry(text, day, source, "high", day, old.text)])
    edits.archive(old, "contradicted on 2026-03-31 by: Deploys go out from GitHub Actions.")
    rows = quick(index_of(memory, final_entries(memory, edits)))
    assert rows == ["Deploys go out from GitHub Actions.", "Prefers small, focused commits."]


def test_at_most_ten_rows_and_the_least_important_are_left_out(tmp_path: Path) -> None:
    long_rule = "Always run the full test suite before saying done " + "and say so " * 20
    memory = write_memory(
        tmp_path,
        {
            "facts.md": [entry(f"2026-03-{20 + i}", f"Fact number {i} about the build.") for i in range(6)],
            "preferences.md": [entry(f"2026-03-{10 + i:02d}", f"Preference number {i}.") for i in range(7)],
            "corrections.md": [
                entry("2026-02-01", "Never commit generated files."),
                entry("2026-02-02", long_rule.strip()),
            ],
        },
    )
    result = index_of(memory)
    rows = quick(result)
    assert len(rows) == defaults.QUICK_REFERENCE_MAX == 10
    assert rows[0].startswith("Always run the full test suite") and rows[0].endswith("…")
    assert rows[1] == "Never commit generated files."
    assert rows[2:9] == [f"Preference number {i}." for i in reversed(range(7))]
    assert rows[9] == "Fact number 5 about the build."  # the newest fact; the older five are left out
    assert all(len(line) <= defaults.INDEX_LINE_MAX_CHARS for line in result.lines)


def test_claude_codes_own_memory_files_stay_out_of_the_quick_reference(tmp_path: Path) -> None:
    memory_dir = tmp_path / "memory"
    memory_dir.mkdir()
    (memory_dir / "corrections.md").write_text(
        "# Corrections\n\n" + entry("2026-03-01", "Never force-push to main.") + "\n", "utf-8"
    )
    (memory_dir / "feedback_testing.md").write_text(
        "---\nname: Testing\ndescription: Run pytest with -q\ntype: feedback\n---\n\nRun pytest with -q.\n",
        "utf-8",
    )
    memory = load_memory(memory_paths(memory_dir, "native"), "native")
    result = index_of(memory)
    assert quick(result) == ["Never force-push to main."]
    assert any(line.startswith("- [Testing](feedback_testing.md)") for line in result.lines)


def test_importance_orders_rules_by_insistence_then_recency() -> None:
    def make(day: str, updated: str | None = None, previously: str | None = None) -> Entry:
        return Entry("x.md", 0, 1, "text", day, None, None, updated, previously)

    once = importance(make("2026-03-30"), "correction")
    restated = importance(make("2026-03-05", "2026-03-01", "old"), "correction")
    overruled = importance(make("2026-03-20", "2026-03-20", "old"), "preference")
    newer_pref = importance(make("2026-03-31"), "preference")
    fact = importance(make("2026-03-31"), "fact")
    assert restated.insistence == 3 and once.insistence == 1 == overruled.insistence
    assert newer_pref.insistence == 0 and not fact.rule
    assert restated > once > overruled > newer_pref > fact
    assert importance(make("2026-03-31"), "decision") > importance(make("2026-03-30"), "preference")
