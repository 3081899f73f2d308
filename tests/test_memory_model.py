"""The memory model (issue 3, build 1): topic files, entries, Claude Code's own memory files,
files dream cannot parse, CRLF and file modes — on real files, through real runs."""

from __future__ import annotations

import json
import os
import stat
from datetime import timedelta
from pathlib import Path

import pytest
from homefactory import MemoryHome, now

from dream.api import Session
from dream.memory import load_file

# ---------------------------------------------------------------------------------------------
# helpers


class Home(MemoryHome):
    def run(self) -> object:
        """In-process run. It leaves this (live) process's PID in .consolidate-lock, so a CLI run
        right after it would rightly see a held lock: tests use one or the other."""
        result = Session.open(claude_dir=self.claude).run()
        assert result.exit_code == 0, [t.failures for t in result.targets]
        return result


def _stat(path: Path) -> tuple[bytes, int, int]:
    info = os.stat(path)
    return path.read_bytes(), info.st_mtime_ns, stat.S_IMODE(info.st_mode)


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


# ---------------------------------------------------------------------------------------------
# entries


TOPIC = """---
name: Preferences
description: "How the user wants things done"
type: feedback
---

# Preferences

Some prose that is not an entry.

- [2026-01-10] Prefers tabs for indentation. (source: session 2026-01-10 aaaaaaaa, confidence: high)
* [2026-01-11] Runs black before committing.
+ Keeps functions short.
- [2026-01-12] Writes docstrings in Google style.
  and wraps them at 88 columns.
  - a nested item belongs to its parent

```
- [2026-01-13] This line is in a fenced code block.
```

~~~markdown
- also fenced
~~~

> - [2026-01-14] This one is quoted.
> - so is this

    - indented code, not a list item

- [2026-01-15] Reviews every PR within a day. (source: session 2026-01-15 cccccccc msg dddddddd, \
confidence: medium)
"""


def test_entries_are_top_level_list_items_not_code_or_quotes(tmp_path: Path) -> None:
    path = tmp_path / "preferences.md"
    path.write_text(TOPIC, encoding="utf-8")
    parsed = load_file(path, "preferences.md", "topic")

    assert parsed.kind == "topic" and parsed.error is None
    assert parsed.frontmatter == {
        "name": "Preferences",
        "description": "How the user wants things done",
        "type": "feedback",
    }
    texts = [e.text for e in parsed.entries]
    assert texts[0] == "Prefers tabs for indentation."
    assert texts[1] == "Runs black before committing."
    assert texts[2] == "Keeps functions short."
    assert texts[3].startswith("Writes docstrings in Google style.")
    assert "wraps them at 88 columns" in texts[3] and "nested item" in texts[3]
    assert texts[4] == "Reviews every PR within a day."
    assert len(texts) == 5, texts
    joined = " ".join(texts)
    for never in ("fenced code block", "also fenced", "quoted", "so is this", "indented code", "prose"):
        assert never not in joined

    first, last = parsed.entries[0], parsed.entries[-1]
    assert (first.date, first.source, first.confidence) == (
        "2026-01-10",
        "session 2026-01-10 aaaaaaaa",
        "high",
    )
    assert last.source == "session 2026-01-15 cccccccc msg dddddddd" and last.confidence == "medium"
    assert parsed.entries[2].date is None


def test_a_run_leaves_code_blocks_quotes_and_prose_exactly_as_they_were(home: Home) -> None:
    # Recent dates, so that prune (90 days) has no say here.
    recent = (now() - timedelta(days=40)).strftime("%Y-%m")
    topic = TOPIC.replace("2026-01-", f"{recent}-")
    home.write("preferences.md", topic)
    home.say("No, we use 4 spaces, not tabs, in every file.")
    home.run()
    after = (home.memory / "preferences.md").read_text(encoding="utf-8")
    # Only the contradicted entry's line changed; everything dream does not own is byte-identical.
    old_lines = topic.splitlines()
    new_lines = after.splitlines()
    changed = [line for line in old_lines if line not in new_lines]
    assert changed == [old_lines[10]], changed
    assert "] Prefers tabs" not in after and "4 spaces" in after
    assert f"> - [{recent}-14] This one is quoted." in after
    assert f"- [{recent}-13] This line is in a fenced code block." in after


# ---------------------------------------------------------------------------------------------
# Claude Code's own memory files


NATIVE_FEEDBACK = """---
name: Full test suite
description: Run the full test suite before every push
type: feedback
---

Run the full test suite before every push.

**Why:** a broken main cost the team a day.
**How to apply:** `make test` before `git push`.
"""

NATIVE_USER = """---
name: User role
description: The user is a backend engineer who works mostly in Go
metadata:
  type: user
---

Backend engineer, mostly Go.
"""

NATIVE_PROJECT = """---
name: Package manager
description: The project uses npm for its packages
type: project
---

The project uses npm.
"""

NATIVE_INDEX = (
    "- [Full test suite](feedback_testing.md) — run everything before a push\n"
    "- [User role](user_role.md) — backend, Go\n"
    "- [Package manager](project_pm.md) — npm\n"
)


def test_claude_codes_own_memory_files_are_recognised(tmp_path: Path) -> None:
    for name, text in (("feedback_testing.md", NATIVE_FEEDBACK), ("user_role.md", NATIVE_USER)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        parsed = load_file(tmp_path / name, name, "topic")
        assert parsed.kind == "native", name
        assert len(parsed.entries) == 1 and parsed.entries[0].native
    assert (
        "full test suite"
        in load_file(tmp_path / "feedback_testing.md", "feedback_testing.md", "topic").entries[0].text.lower()
    )
    # Not Claude Code's: an unknown type, or no description.
    (tmp_path / "notes.md").write_text(
        "---\nname: Notes\ndescription: misc\ntype: scratch\n---\n\n- A note.\n"
    )
    assert load_file(tmp_path / "notes.md", "notes.md", "topic").kind == "topic"
    (tmp_path / "half.md").write_text("---\nname: Half\ntype: user\n---\n\n- Half a memory.\n")
    assert load_file(tmp_path / "half.md", "half.md", "topic").kind == "topic"


def test_native_files_are_kept_indexed_and_count_as_saved_memories(home: Home) -> None:
    native = {
        "feedback_testing.md": NATIVE_FEEDBACK,
        "user_role.md": NATIVE_USER,
        "project_pm.md": NATIVE_PROJECT,
    }
    for name, text in native.items():
        home.write(name, text)
    home.write("MEMORY.md", NATIVE_INDEX)
    before = {name: _stat(home.memory / name) for name in native}
    home.say(
        "Run the whole test suite before you push, every time.",  # restates feedback_testing.md
        "Every time you add an endpoint, update openapi.yaml.",  # new, unrelated
    )
    home.run()
    for name in native:
        assert _stat(home.memory / name) == before[name], f"{name} was rewritten"
    index = (home.memory / "MEMORY.md").read_text(encoding="utf-8")
    for name in native:
        assert f"]({name})" in index, f"{name} is not in the index"
    memory = home.loaded()
    topic_texts = [e.text for e in memory.entries if not e.native]
    assert any("openapi.yaml" in t for t in topic_texts)
    assert not any("test suite" in t.lower() for t in topic_texts), "duplicated a native memory"
    # A second run leaves them alone too.
    home.run()
    for name in native:
        assert _stat(home.memory / name) == before[name]


def test_a_contradiction_against_a_native_file_waits_for_review(home: Home) -> None:
    home.write("project_pm.md", NATIVE_PROJECT)
    home.write("MEMORY.md", NATIVE_INDEX.splitlines()[2] + "\n")
    before = _stat(home.memory / "project_pm.md")
    home.say("Use pnpm, not npm, in this repo from now on.")
    home.run()
    assert _stat(home.memory / "project_pm.md") == before
    listing = home.dream("review")
    assert listing.returncode == 0
    assert "pnpm" in listing.stdout and "project_pm.md" in listing.stdout


def test_approving_a_contradiction_of_a_native_file_retires_the_old_memory(home: Home) -> None:
    """DESIGN §5: a native file is rewritten only when a run resolves a contradiction against it,
    then through the archive rules: afterwards the old statement is archived, not still current."""
    home.write("project_pm.md", NATIVE_PROJECT)
    home.write("corrections.md", "# Corrections\n")  # where the new rule goes (category correction)
    home.write("MEMORY.md", NATIVE_INDEX.splitlines()[2] + "\n")
    home.say("Use pnpm, not npm, in this repo from now on.")
    home.run()
    ids = [item["id"] for item in json.loads(home.dream("review", "--json").stdout)]
    assert len(ids) == 1
    # In-process like the run before it: that run left this process's PID in .consolidate-lock.
    approved = Session.open(claude_dir=home.claude).approve(ids)
    assert approved.exit_code == 0, [t.failures for t in approved.targets]
    archive = (home.memory / "archive.md").read_text(encoding="utf-8")
    assert "uses npm" in archive
    memory = home.loaded()
    current = [e.text for e in memory.entries]
    assert any("pnpm" in t for t in current)
    still = [e.file for e in memory.entries if "uses npm" in e.text and "pnpm" not in e.text]
    assert not still, f"the contradicted memory is still current in {still}"
    # And the approved change is not proposed again.
    home.run()
    assert json.loads(home.dream("review", "--json").stdout) == []


# ---------------------------------------------------------------------------------------------
# files dream cannot parse


def test_unparseable_files_are_left_byte_for_byte_and_named_in_the_report(home: Home) -> None:
    broken = home.write(
        "broken.md", "---\nname: [unclosed\ndescription: a: b: c\n---\n\n- [2026-01-01] A thing.\n"
    )
    latin = home.write("latin1.md", "- [2026-01-01] Café notes, naïve.\n".encode("latin-1"))
    folder = home.memory / "folder.md"
    folder.mkdir()
    (folder / "inside.txt").write_text("keep me")
    home.write("preferences.md", "# Preferences\n\n- [2026-01-10] Prefers tabs for indentation.\n")
    os.utime(broken, (1_700_000_000, 1_700_000_000))
    os.utime(latin, (1_700_000_000, 1_700_000_000))
    before = {p: _stat(p) for p in (broken, latin)}
    folder_before = (os.stat(folder).st_mtime_ns, sorted(os.listdir(folder)))
    home.say("No, we use 4 spaces, not tabs, in every file.")

    done = home.dream("run")
    assert done.returncode == 0, done.stdout + done.stderr
    for path, state in before.items():
        assert _stat(path) == state, path.name
    assert folder.is_dir() and (os.stat(folder).st_mtime_ns, sorted(os.listdir(folder))) == folder_before
    assert (folder / "inside.txt").read_text() == "keep me"
    assert "4 spaces" in (home.memory / "preferences.md").read_text()
    for name in ("broken.md", "latin1.md", "folder.md"):
        assert name in done.stdout, f"{name} not named in the report"
    as_json = home.dream("run", "--dry-run", "--json")
    report = json.loads(as_json.stdout)
    named = {item["file"] for t in report["targets"] for item in t["unparsed"]}
    assert {"broken.md", "latin1.md", "folder.md"} <= named
    assert home.dream("verify").returncode == 0


def test_a_signal_for_an_unparseable_topic_file_is_not_reported_applied_and_dropped(home: Home) -> None:
    """facts.md is broken YAML: a new fact cannot go there. Whatever dream does with it, it must not
    say "applied" and then silently write nothing."""
    broken = "---\nname: [unclosed\n---\n\n- [2026-01-01] Old fact.\n"
    home.write("facts.md", broken)
    home.say("Staging runs on Fly.io in fra.")
    result = Session.open(claude_dir=home.claude).run()
    assert (home.memory / "facts.md").read_text() == broken
    applied = [
        p for t in result.targets for p in t.proposals if p["outcome"] == "applied" and "Fly.io" in p["text"]
    ]
    written = any("Fly.io" in e.text for e in home.loaded().entries)
    if applied:
        assert written, "reported applied, written nowhere"
    waiting = [
        i.proposal
        for i in Session.open(claude_dir=home.claude).review_items().items
        if "Fly.io" in str(i.proposal["text"])
    ]
    assert written or waiting, "the fact was neither written nor kept for review"


# ---------------------------------------------------------------------------------------------
# files dream writes: they parse again, keep CRLF and modes


def test_files_dream_creates_parse_on_the_next_run(home: Home) -> None:
    home.write("preferences.md", "# Preferences\n\n- [2026-01-10] Prefers tabs for indentation.\n")
    home.say(
        "No, this repo uses uv, never plain pip.",  # correction
        "No, we use 4 spaces, not tabs, in every file.",  # contradiction: archive.md
        "Every time you add an endpoint, update openapi.yaml.",  # pattern
        "Staging runs on Fly.io in fra.",  # fact
        "We deploy the API with Docker Compose on a single Hetzner box.",  # decision
    )
    home.run()
    memory = home.loaded()
    bad = {f.name: f.error for f in memory.unparsed}
    assert not bad, f"dream wrote files it cannot read back: {bad}"
    names = ("corrections.md", "patterns.md", "facts.md", "decisions.md", "archive.md")
    created = [name for name in names if (home.memory / name).is_file()]
    assert "corrections.md" in created and "archive.md" in created and len(created) >= 4, created
    import frontmatter

    for name in created:
        post = frontmatter.loads((home.memory / name).read_text(encoding="utf-8"))
        assert post.metadata.get("type") in ("user", "feedback", "project", "reference"), name
        assert post.metadata.get("name") and post.metadata.get("description"), name
    index = (home.memory / "MEMORY.md").read_text(encoding="utf-8")
    before = {p.name: p.read_bytes() for p in home.memory.glob("*.md")}
    home.run()
    after = {p.name: p.read_bytes() for p in home.memory.glob("*.md")}
    assert after == before, "the second run changed files"
    assert "](corrections.md)" in index


def test_crlf_files_keep_crlf_after_an_edit(home: Home) -> None:
    home.write(
        "preferences.md",
        b"# Preferences\r\n\r\n- [2026-01-10] Prefers tabs for indentation. (source: session 2026-01-10"
        b" aaaaaaaa, confidence: high)\r\n- [2026-01-11] Runs black before committing.\r\n",
    )
    home.say(
        "No, we use 4 spaces, not tabs, in every file.",
        "Always write commit messages in the imperative mood.",
    )
    home.run()
    data = (home.memory / "preferences.md").read_bytes()
    assert b"4 spaces" in data and b"imperative" in data and b"] Prefers tabs" not in data
    assert data.count(b"\n") == data.count(b"\r\n"), data
    assert data.endswith(b"\r\n")


def test_file_modes_are_kept(home: Home) -> None:
    prefs = home.write("preferences.md", "# Preferences\n\n- [2026-01-10] Prefers tabs for indentation.\n")
    decisions = home.write(
        "decisions.md", "# Decisions\n\n- [2026-01-12] Chose Celery for background jobs.\n"
    )
    os.chmod(prefs, 0o600)
    os.chmod(decisions, 0o640)
    home.say(
        "No, we use 4 spaces, not tabs, in every file.",
        "We're switching from Celery to Dramatiq for all background jobs from now on.",
    )
    home.run()
    assert "4 spaces" in prefs.read_text() and "Dramatiq" in decisions.read_text()
    assert stat.S_IMODE(os.stat(prefs).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(decisions).st_mode) == 0o640


# ---------------------------------------------------------------------------------------------
# ORIENT


def test_orient_reports_files_sizes_relative_dates_and_contradictions(home: Home) -> None:
    home.write(
        "preferences.md",
        "# Preferences\n\n- [2026-01-10] Prefers tabs for indentation.\n"
        "- [2026-02-01] Use spaces for indentation in YAML files.\n",
    )
    home.write("facts.md", "# Facts\n\n- Deploy freeze starts tomorrow.\n- [2026-03-15] Uses Redis.\n")
    home.write("MEMORY.md", "# Memory\n\n" + "".join(f"- line {i}\n" for i in range(250)))
    out = home.dream("orient", "--json")
    assert out.returncode == 0, out.stderr
    reports = json.loads(out.stdout)
    assert len(reports) == 1
    report = reports[0]
    assert report["index"]["over_limit"] is True
    files = {item["file"]: item for item in report["files"]}
    assert files["preferences.md"]["entries"] == 2 and files["facts.md"]["entries"] == 2
    assert any("tomorrow" in line for line in report["relative_dates"])
    assert report["contradictions"], "tabs vs spaces not flagged"
    # orient writes nothing
    assert not (home.memory / "archive.md").exists()


def test_a_run_parses_each_memory_file_once_then_only_the_files_it_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 17: memory is parsed once per run; the check after the write re-parses only what changed."""
    import dream.memory

    home = MemoryHome(tmp_path)
    for n in range(6):
        home.write(
            f"topic{n}.md", "".join(f"- Fact {n}-{i} about the service. (2026-11-01)\n" for i in range(50))
        )
    home.say("We use pnpm here, never npm.")
    parsed: list[str] = []
    original = dream.memory._entries

    def counting(name: str, lines: list[str], start: int) -> list[dream.memory.Entry]:
        parsed.append(name)
        return original(name, lines, start)

    monkeypatch.setattr(dream.memory, "_entries", counting)
    result = Session.open(claude_dir=home.claude).run()
    (target,) = result.targets
    written = {rel for rel in target.written if rel != "MEMORY.md"}
    assert written, "the run wrote a topic file"
    topics = [name for name in parsed if name.startswith("topic")]
    assert sorted(set(topics)) == [f"topic{n}.md" for n in range(6)]
    # Each topic file once, and again only if the run wrote it.
    for n in range(6):
        name = f"topic{n}.md"
        assert topics.count(name) == 1 + (name in written), (name, topics)


def test_load_memory_reuses_a_file_whose_bytes_did_not_change(tmp_path: Path) -> None:
    from dream.layouts import memory_paths
    from dream.memory import load_memory

    home = MemoryHome(tmp_path)
    home.write("a.md", "- Use pnpm. (2026-11-01)\n")
    home.write("b.md", "- Never commit to main. (2026-11-01)\n")
    paths = memory_paths(home.memory, "native")
    first = load_memory(paths, "native")
    home.write("b.md", "- Never commit to main. (2026-11-01)\n- Use uv. (2026-11-02)\n")
    second = load_memory(paths, "native", first)
    assert second.files["a.md"] is first.files["a.md"]
    assert second.files["b.md"] is not first.files["b.md"]
    assert len(second.files["b.md"].entries) == 2 and len(first.files["b.md"].entries) == 1
    os.chmod(home.memory / "a.md", 0o600)  # the mode is part of what is kept
    assert load_memory(paths, "native", second).files["a.md"] is not first.files["a.md"]


_SHAPES = [
    "- Use pnpm, never npm. (2026-11-01)",
    "- **Why:** the lockfile is pnpm's",
    "- `make test` before a push",
    "- 3 retries at most",
    "- - nested?",
    "- > quoted",
    "- ```",
    "-no space",
    "* star item",
    "+ plus item",
    "1. ordered",
    "  - indented item",
    "    code line",
    "# Heading",
    "## Sub heading",
    "#NoSpace",
    "Plain prose line.",
    "prose right after",
    "> a quote",
    "```",
    "~~~",
    "<!-- comment -->",
    "| a | b |",
    "---",
    "===",
    "",
    "   ",
    "\ttabbed",
    "**Why:** the lockfile is pnpm's",
    "[a link](x.md) and text",
    "`code` first",
    "``` fenced",
    "| File | Summary |",
    "|---|---|",
    "***",
    "* * *",
]


def _trimmed(lines: list[str], ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out = []
    for first, end in ranges:
        while end > first + 1 and not lines[end - 1].strip():
            end -= 1
        out.append((first, end))
    return out


@pytest.mark.parametrize("seed", range(400))
def test_the_plain_line_parser_agrees_with_markdown_it_wherever_it_answers(seed: int) -> None:
    """Issue 17: a file of plain lines is parsed without markdown-it; where the fast parser says
    it can answer, its items are markdown-it's, line for line."""
    import random

    from dream.memory import _parsed_items, _plain_items

    rng = random.Random(seed)
    # Half the files from the plain shapes and their near misses, so the fast parser answers often.
    plainish = [
        *_SHAPES[:4],
        "# Heading",
        "## Sub heading",
        "Plain prose line.",
        "prose right after",
        "",
        "",
        "**Why:** the lockfile is pnpm's",
        "| File | Summary |",
        "|---|---|",
        "[a link](x.md) and text",
    ]
    if seed % 3 == 1:  # blocks of a plain file: headings, items, prose after a blank
        lines = []
        for _ in range(rng.randint(1, 8)):
            block = rng.choice(["heading", "items", "prose"])
            if block == "heading":
                lines += [rng.choice(["# Heading", "## Sub heading"])]
            elif block == "items":
                lines += rng.choices(_SHAPES[:4], k=rng.randint(1, 5))
            else:
                lines += [
                    "",
                    "Plain prose line.",
                    *rng.choices(["prose right after", ""], k=rng.randint(0, 2)),
                ]
            lines += [""] * rng.randint(0, 2)
    elif seed % 3 == 2:
        lines = rng.choices([*plainish, rng.choice(_SHAPES)], k=rng.randint(1, 30))
    else:
        weights = [8, 3, 3, 2] + [1] * (len(_SHAPES) - 4)
        lines = rng.choices(_SHAPES, weights=weights, k=rng.randint(1, 30))
    start = rng.choice([0, 0, 1]) if len(lines) > 1 else 0
    plain = _plain_items(lines, start)
    if plain is not None:
        assert _trimmed(lines, plain) == _trimmed(lines, _parsed_items(lines, start)), lines


def test_the_plain_parser_answers_for_the_files_dream_writes() -> None:
    from dream.memory import _plain_items

    lines = ["# Preferences", "", "- Use pnpm. (2026-11-01)", "- Never commit to main. (2026-11-02)", ""]
    assert _plain_items(lines, 0) == [(2, 3), (3, 4)]
    assert _plain_items(["- a", "continued prose"], 0) is None  # a lazy continuation: markdown-it's


@pytest.mark.parametrize(
    "block",
    [
        "name: Use pnpm\ndescription: The repo's package manager is pnpm\ntype: feedback\n",
        "name: 2026-11-01\ntype: project\n",
        "name: yes\n",
        "name: 42\n",
        'description: "quoted: value"\n',
        'description: "Corrections: where the agent was wrong and what is right"\ntype: feedback\n',
        'description: "with \\" an escape"\n',
        'description: "unterminated\n',
        'description: "two" "strings"\n',
        "metadata:\n  type: user\n",
        "name: a # comment\n",
        "name: Ship it: now\n",
        "name: ~\n",
        "name: plain words, with a comma\ntype: reference\n",
        "tags: [a, b]\n",
        "name: -dash\n",
        "name: Café au lait\n",
    ],
)
def test_flat_frontmatter_is_read_as_yaml_reads_it_or_left_to_yaml(block: str) -> None:
    import yaml

    from dream.memory import _flat_frontmatter

    flat = _flat_frontmatter(block)
    if flat is not None:
        assert flat == yaml.safe_load(block)


def test_the_frontmatter_dream_writes_is_read_without_yaml() -> None:
    from dream.memory import _flat_frontmatter

    # the Corrections file's description holds a colon, so dream writes it quoted
    assert _flat_frontmatter('name: Corrections\ndescription: "Corrections: what is right"\n') == {
        "name": "Corrections",
        "description": "Corrections: what is right",
    }
