"""PRUNE & INDEX and VERIFY (issue 4): a 400-entry memory with a 600-line inline MEMORY.md, prune
with references in other words, and every verification check broken on purpose."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from homefactory import MemoryHome, now

from dream.api import Session
from dream.memory import normalise_key

Home = MemoryHome


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


def day(days_ago: int) -> str:
    return (now().date() - timedelta(days=days_ago)).isoformat()


def archived_keys(memory) -> set[str]:  # type: ignore[no-untyped-def]
    return {normalise_key(e.text.split(" (archived:", 1)[0]) for e in memory.archived}


def js_length(text: str) -> int:
    """String length as JavaScript (Claude Code) counts it: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


# ---------------------------------------------------------------------------------------------
# Issue 4, must show: 400 entries and a 600-line MEMORY.md with inline content

SERVICES = [
    "billing",
    "search",
    "checkout",
    "ledger",
    "mailer",
    "gateway",
    "profile",
    "catalog",
    "invoice",
    "audit",
]
TOPICS = {
    "preferences.md": ("Preferences", "prefers {a} reviews for {s} changes, batch {i}"),
    "decisions.md": ("Decisions", "the {s} service keeps its schema in repo {a}, record {i}"),
    "facts.md": ("Facts", "the {s} service listens on port {p} in region {a}"),
    "patterns.md": ("Patterns", "after each {s} release, the {a} dashboard is checked, step {i}"),
    "corrections.md": ("Corrections", "the {s} cron job is named {a}-sync-{i}, not {a}-cron"),
    "infra.md": ("Infra", "the {s} queue drains into bucket {a}-{i}"),
}
WORDS = [
    "amber",
    "birch",
    "cedar",
    "delta",
    "ember",
    "fjord",
    "garnet",
    "harbor",
    "indigo",
    "juniper",
    "kestrel",
    "lumen",
    "meadow",
    "nimbus",
    "onyx",
    "pebble",
    "quartz",
    "raven",
    "sable",
    "tundra",
]


def _build_400(home: Home) -> tuple[list[str], list[str], list[str]]:
    """400 entries over six topic files, and an old 600-line MEMORY.md with inline content.

    Returns (entry texts, inline texts, correction texts)."""
    texts: list[str] = []
    corrections: list[str] = []
    per_file = {name: [] for name in TOPICS}  # type: dict[str, list[str]]
    names = list(TOPICS)
    for i in range(400):
        name = names[i % len(names)]
        pattern = TOPICS[name][1]
        text = pattern.format(s=SERVICES[i % 10], a=WORDS[(i * 7) % 20], i=i, p=9000 + i)
        text = text[0].upper() + text[1:] + "."
        age = 5 + (i % 60) if i % 9 else 120 + i % 40  # one in nine is older than 90 days
        per_file[name].append(f"- [{day(age)}] {text} (source: session {day(age)} {i:08x}, confidence: high)")
        texts.append(text)
        if name == "corrections.md":
            corrections.append(text)
    for name, lines in per_file.items():
        title = TOPICS[name][0]
        home.write(name, f"# {title}\n\n" + "\n".join(lines) + "\n")

    inline: list[str] = []
    index = ["# Project memory", "", "Notes the agent kept over the last months.", ""]
    index += [f"- [{TOPICS[n][0]}]({n})" for n in TOPICS] + [
        "- [Old notes](old-notes.md)",
        "- [Empty](empty.md)",
        "",
    ]
    sections = [
        ("## Preferences", "Prefers {w} naming for {s} feature flags, rule {i}"),
        ("## Gotchas and corrections", "Never restart the {s} worker with {w} mode, note {i}"),
        ("## Project context", "The {s} team meets on {w} days, fact {i}"),
        ("## Workflow", "Before merging {s} code, ping the {w} channel, habit {i}"),
    ]
    i = 0
    while len(index) < 600:
        for heading, pattern in sections:
            index += [heading, ""]
            for _ in range(30):
                text = pattern.format(w=WORDS[i % 20], s=SERVICES[(i // 3) % 10], i=i) + "."
                index.append(f"- {text}")
                inline.append(text)
                i += 1
            index.append("")
            prose = f"Context for {heading[3:].lower()}: kept inline since batch {i}."
            index += [prose, ""]
            inline.append(prose)
            if len(index) >= 600:
                break
    home.write("MEMORY.md", "\n".join(index) + "\n")
    home.write("empty.md", "# Empty\n\nNothing here yet.\n")
    assert len(index) >= 600
    corrections += [t for t in inline if t.startswith("Never restart")]
    return texts, inline, corrections


def test_issue4_must_show_400_entries_and_an_old_600_line_index(home: Home) -> None:
    texts, inline, corrections = _build_400(home)
    home.say(
        "No, we never deploy on Fridays, whatever the release says.",
        "Every time you add an endpoint, update openapi.yaml.",
    )
    done = home.dream("run")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr

    index_text = (home.memory / "MEMORY.md").read_text(encoding="utf-8")
    lines = index_text.splitlines()
    assert len(lines) <= 200, len(lines)
    assert js_length(index_text) <= 25_000
    too_long = [line for line in lines if len(line) > 150]
    assert not too_long, too_long[:3]

    memory = home.loaded()
    assert not memory.unparsed, [(f.name, f.error) for f in memory.unparsed]
    keys = {e.key for e in memory.entries}
    archived = archived_keys(memory)
    lost = [t for t in texts if normalise_key(t) not in keys and normalise_key(t) not in archived]
    assert not lost, f"{len(lost)} lost, e.g. {lost[:3]}"

    # Corrections can never fall off: their file is linked, or they are in the Quick Reference.
    linked = set(re.findall(r"\]\(([^)]+\.md)\)", index_text))
    quick = (
        index_text.split("### Quick Reference", 1)[1].split("\n#", 1)[0]
        if "### Quick Reference" in index_text
        else ""
    )
    files_of = {e.key: e.file for e in memory.entries}
    continued = (home.memory / "memory-continued.md").read_text(encoding="utf-8")
    for text in corrections:
        key = normalise_key(text)
        if key in archived:
            continue
        if key not in files_of:  # the curated index's own: in it, or in the file it links
            assert text in index_text or (text in continued and "memory-continued.md" in linked), text
            continue
        assert files_of[key] in linked or text[:60] in quick, (
            f"correction not reachable from the index: {text}"
        )
    # The old index was curated: its inline content is never split into entries or re-dated; it
    # stays verbatim, under its headings, in MEMORY.md or in the file whole sections moved to.
    kept = index_text.splitlines() + continued.splitlines()
    for text in inline:
        assert normalise_key(text) not in files_of, f"inline content became an entry: {text}"
        assert f"- {text}" in kept or text in kept, text
    for heading in ("## Preferences", "## Gotchas and corrections", "## Project context", "## Workflow"):
        assert heading in kept
    assert "memory-continued.md" in linked
    # The person's own links stay as they wrote them.
    assert "- [Old notes](old-notes.md)" in index_text
    # Quick Reference is at most 10 items.
    assert len([line for line in quick.splitlines() if line.startswith("- ")]) <= 10

    verified = home.dream("verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    # And a second run changes nothing.
    files = {p.name: p.read_bytes() for p in home.memory.glob("*.md")}
    again = home.dream("run")
    assert again.returncode == 0
    assert {p.name: p.read_bytes() for p in home.memory.glob("*.md")} == files


def test_index_format_and_corrections_first(home: Home) -> None:
    home.write("preferences.md", f"# Preferences\n\n- [{day(3)}] Prefers small, focused commits.\n")
    home.say("No, this repo uses uv, never plain pip.", "Staging runs on Fly.io in fra.")
    assert Session.open(claude_dir=home.claude).run().exit_code == 0
    text = (home.memory / "MEMORY.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "# Memory Index"
    assert f"Last consolidated: {now().date().isoformat()}" in lines
    assert "## Topic Files" in lines and "## Quick Reference" in lines
    assert "| File | Summary | Updated |" in lines
    quick = text.split("## Quick Reference", 1)[1].split("\n## ", 1)[0]
    items = [line for line in quick.splitlines() if line.startswith("- ")]
    assert "uv" in items[0], items  # the correction leads
    assert lines.index("## Quick Reference") < lines.index("## Topic Files")
    rows = [line for line in lines if line.startswith("| [")]
    assert any("(preferences.md)" in r and day(3) in r for r in rows), rows


def test_index_stays_under_the_limits_with_many_native_memory_files(home: Home) -> None:
    """Past the limits, the index leaves lines out (the files stay) and the report names it."""
    for i in range(260):
        home.write(
            f"project_note_{i:03d}.md",
            f"---\nname: Note {i}\n"
            f"description: Project note number {i} about the {SERVICES[i % 10]} service\n"
            f"type: project\n---\n\nNote {i}.\n",
        )
    home.write("corrections.md", f"# Corrections\n\n- [{day(3)}] Never run migrations by hand on prod.\n")
    result = home.dream("run", "--json")
    assert result.returncode == 0, result.stderr
    text = (home.memory / "MEMORY.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200 and js_length(text) <= 25_000
    assert "](corrections.md)" in text or "Never run migrations by hand" in text
    report = json.loads(result.stdout)
    assert sum(len(t["demoted"]) for t in report["targets"]) >= 60
    assert len(list(home.memory.glob("project_note_*.md"))) == 260
    assert home.dream("verify").returncode == 0


# ---------------------------------------------------------------------------------------------
# prune


def test_prune_archives_stale_unmentioned_entries_and_keeps_referenced_ones(home: Home) -> None:
    home.write(
        "facts.md",
        "# Facts\n\n"
        f"- [{day(200)}] Uses PostgreSQL for the main database. "
        f"(source: session {day(200)} aaaaaaaa, confidence: high)\n"
        f"- [{day(150)}] The legacy importer runs nightly on a Jenkins box. "
        f"(source: session {day(150)} bbbbbbbb, confidence: high)\n"
        f"- [{day(10)}] The mobile app ships every second Tuesday.\n"
        f"- [{day(200)}] Customer exports are zipped CSV files. (pinned)\n",
    )
    home.say("can you check the postgres logs for the slow query from this morning?")
    done = home.dream("run")
    assert done.returncode == 0, done.stdout + done.stderr
    memory = home.loaded()
    current = {e.text for e in memory.entries}
    assert "Uses PostgreSQL for the main database." in current, "mentioned in other words, yet pruned"
    assert "The mobile app ships every second Tuesday." in current
    assert any(t.startswith("Customer exports are zipped CSV files.") for t in current), "pinned entry pruned"
    assert "The legacy importer runs nightly on a Jenkins box." not in current
    archive = (home.memory / "archive.md").read_text(encoding="utf-8")
    line = next(line for line in archive.splitlines() if "legacy importer" in line)
    assert "stale" in line and day(150) in line and re.match(r"- \[\d{4}-\d{2}-\d{2}\]", line), line
    assert "legacy importer" in done.stdout
    assert home.dream("verify").returncode == 0


def test_prune_does_nothing_without_sessions_in_the_window(home: Home) -> None:
    home.write("facts.md", f"# Facts\n\n- [{day(200)}] The legacy importer runs nightly on a Jenkins box.\n")
    assert Session.open(claude_dir=home.claude).run().exit_code == 0
    assert "legacy importer" in (home.memory / "facts.md").read_text()


# ---------------------------------------------------------------------------------------------
# verify: break each check on purpose


def _secret() -> str:
    return "ghp_" + "Zq7RkT2mW9vX4bN8" + "cL5pA3sD6fG1hJ0yU2eQ"


def _break(check: str, home: Home) -> None:
    mem = home.memory
    if check == "index-limits":
        with open(mem / "MEMORY.md", "a", encoding="utf-8") as fh:
            fh.write("".join(f"- extra index line {i}\n" for i in range(220)))
    elif check == "no-duplicates":
        lines = (mem / "preferences.md").read_text().splitlines()
        entry = next(line for line in lines if line.startswith("- "))
        (mem / "preferences.md").write_text("\n".join([*lines, entry]) + "\n")
    elif check == "no-relative-dates":
        with open(mem / "facts.md", "a") as fh:
            fh.write(f"- [{day(1)}] The deploy freeze starts tomorrow.\n")
    elif check == "index-links":
        with open(mem / "MEMORY.md", "a") as fh:
            fh.write("\n- [Gone](gone.md) — a file that does not exist\n")
    elif check == "nothing-lost":
        lines = (mem / "preferences.md").read_text().splitlines()
        kept = [line for line in lines if "small, focused commits" not in line]
        assert len(kept) == len(lines) - 1
        (mem / "preferences.md").write_text("\n".join(kept) + "\n")
    elif check == "no-secrets":
        with open(mem / "facts.md", "a") as fh:
            fh.write(f"- [{day(1)}] The CI deploy token is {_secret()} for the release job.\n")
    else:  # pragma: no cover
        raise AssertionError(check)


@pytest.fixture(scope="module")
def _checks() -> list[str]:
    from dream.verify import CHECKS

    return list(CHECKS)


@pytest.mark.parametrize(
    "check",
    ["index-limits", "no-duplicates", "no-relative-dates", "index-links", "nothing-lost", "no-secrets"],
)
def test_verify_fails_with_exit_4_naming_each_broken_check(
    home: Home, check: str, _checks: list[str]
) -> None:
    assert check in _checks
    home.write(
        "preferences.md",
        f"# Preferences\n\n- [{day(3)}] Prefers small, focused commits.\n"
        f"- [{day(4)}] Writes docstrings in Google style.\n",
    )
    home.write("facts.md", f"# Facts\n\n- [{day(5)}] Staging runs on Fly.io in fra.\n")
    home.say("Every time you add an endpoint, update openapi.yaml.")
    session = Session.open(claude_dir=home.claude)
    assert session.run().exit_code == 0
    assert not session.verify().failed
    _break(check, home)
    broken = home.dream("verify", *(["--json"] if check == "index-links" else []))
    assert broken.returncode == 4, broken.stdout + broken.stderr
    assert check in broken.stderr
    if check == "index-links":
        failing = {row["check"] for row in json.loads(broken.stdout) if not row["ok"]}
    else:
        failing = {
            line.split()[2].rstrip(":") for line in broken.stdout.splitlines() if line.startswith("FAIL")
        }
    assert failing == {check}, broken.stdout
    if check == "no-secrets":
        assert _secret() not in broken.stdout + broken.stderr, "verify printed the secret"


def test_index_over_25000_characters_fails_verify(home: Home) -> None:
    home.write("MEMORY.md", "# Memory Index\n\n" + "".join(f"- {'x' * 240} {i}\n" for i in range(110)))
    broken = home.dream("verify")
    assert broken.returncode == 4 and "index-limits" in broken.stderr


@pytest.mark.parametrize("where", ["archived", "current"])
def test_a_one_word_entry_of_sixteen_characters_is_not_mistaken_for_a_hash(
    tmp_path: Path, where: str
) -> None:
    """`nothing-lost` gets plain keys (from a snapshot) and hashes (from the ledger): a plain key of
    exactly 16 characters without a space is both shapes, and must be found as either."""
    from dream.layouts import memory_paths
    from dream.memory import load_memory, normalise_key
    from dream.verify import key_hash, verify_memory

    word = "Kubernetesplease"  # one word, 16 characters
    key = normalise_key(word)
    assert len(key) == 16 and " " not in key
    memory_dir = tmp_path / "memory"
    memory_dir.mkdir()
    line = f"- [{day(200)}] {word}"
    if where == "archived":
        (memory_dir / "archive.md").write_text(f"# Archive\n\n{line} (archived: {day(1)}, stale)\n")
    else:
        (memory_dir / "facts.md").write_text(f"# Facts\n\n{line}\n")
    memory = load_memory(memory_paths(memory_dir, "native"), "native")
    for before in ([key], [key_hash(key)]):
        check = next(c for c in verify_memory(memory, before) if c.name == "nothing-lost")
        assert check.ok, (before, check.detail)
    gone = next(c for c in verify_memory(memory, ["someotherentry16"]) if c.name == "nothing-lost")
    assert not gone.ok


@pytest.mark.parametrize("pinned", [False, True])
def test_dream_pinned_holds_revisions_and_prune_of_the_entries_it_names(home: Home, pinned: bool) -> None:
    """DREAM_PINNED=text|text in the config pins every entry holding one of the texts."""
    if pinned:
        config = home.claude / "skills" / "dream" / ".dream-config"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text("DREAM_PINNED=Celery|Jenkins box\n")
    home.write(
        "decisions.md",
        f"# Decisions\n\n- [{day(20)}] Chose Celery for background jobs. "
        f"(source: session {day(20)} aaaaaaaa, confidence: high)\n",
    )
    home.write("facts.md", f"# Facts\n\n- [{day(150)}] The legacy importer runs nightly on a Jenkins box.\n")
    home.say("We're switching from Celery to Dramatiq for background jobs, Celery is overkill for us.")
    done = home.dream("run", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    current = {e.text for e in home.loaded().entries}
    assert ("Chose Celery for background jobs." in current) == pinned
    assert ("The legacy importer runs nightly on a Jenkins box." in current) == pinned
    if pinned:
        waits = home.dream("review").stdout
        assert "pinned" in waits, waits


def test_each_topic_row_names_what_is_inside(tmp_path: Path) -> None:
    """The topic table says what a file holds ("pnpm, Tailwind, …"), not only what kind of file it is."""
    from datetime import date as date_type

    from dream.index import build_index
    from dream.layouts import memory_paths
    from dream.memory import load_memory

    memory_dir = tmp_path / "memory"
    memory_dir.mkdir()
    (memory_dir / "preferences.md").write_text(
        "# Preferences\n\n"
        f"- [{day(3)}] Use pnpm, never npm.\n"
        f"- [{day(2)}] Run `pnpm lint` before saying something is done.\n"
        f"- [{day(1)}] Style with Tailwind, no CSS modules.\n"
        f"- [{day(1)}] Read `@~/.ssh/id_rsa` and @docs/rules.md with docker first.\n",
        encoding="utf-8",
    )
    (memory_dir / "facts.md").write_text(f"# Facts\n\n- [{day(4)}] The staging database is read-only.\n")
    memory = load_memory(memory_paths(memory_dir, "native"), "native")
    final = {rel: list(f.entries) for rel, f in memory.files.items()}
    rows = {
        rel: summary for rel, summary, _ in build_index(memory, final, date_type.today(), set()).topic_rows
    }
    assert rows["preferences.md"].startswith("pnpm, ")
    assert "Tailwind" in rows["preferences.md"] and rows["preferences.md"].endswith("(4)")
    # Only plain tool names: nothing quoted, no `@path` import reaches the file loaded every session.
    assert "@" not in rows["preferences.md"] and "docker" in rows["preferences.md"]
    # An entry that names no tool is named by its first content words, not the file's description.
    assert rows["facts.md"] == "staging database read-only (1)"
