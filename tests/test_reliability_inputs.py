"""Bad-input catalog (issue 7, part 1): one test per bad input, each through a real `python -m dream run`.

Every bad input is built into a copy of a home whose memory is already consolidated, so a clean ending is
checkable byte for byte: the run ends with a clear message or a counted skip (never a traceback), and the
memory is unchanged (or, where the input is a memory file dream must work around, changed only as
intended). A run that fails leaves `.last-dream` and the pending flag as they were.

The reader-level cases (what each bad line counts as) are proven in test_transcripts.py and
test_discover_digest.py; these run the whole program over them. The cases themselves live in
reliability_report.py, which runs the same catalog for its figures.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from reliability.faults import INPUT_FAULTS, InputOutcome, mounted, rehome, steady_home, try_input
from reliability.running import Home

from dream.errors import DreamError
from dream.fsio import atomic_write_bytes, restore_snapshot, take_snapshot


@pytest.fixture(scope="module")
def steady(tmp_path_factory: pytest.TempPathFactory) -> Home:
    return steady_home(tmp_path_factory.mktemp("steady"))


def tried(name: str, steady: Home, tmp_path: Path) -> InputOutcome:
    outcome = try_input(name, steady, tmp_path)
    if outcome.skipped:
        pytest.skip(outcome.skipped)
    assert outcome.ok, (
        f"{name}: {outcome.detail}\n--- stdout\n{outcome.stdout[-3000:]}"
        f"\n--- stderr\n{outcome.stderr[-3000:]}"
    )
    return outcome


def test_control_a_further_run_over_the_steady_home_changes_no_memory_file(
    steady: Home, tmp_path: Path
) -> None:
    home = rehome(steady, tmp_path / "control")
    before = home.memory_state()
    done = home.dream("run")
    assert done.returncode == 0, done.stdout + done.stderr
    assert home.memory_state() == before
    assert "written:" not in done.stdout


def test_malformed_jsonl_lines_are_counted_and_skipped(steady: Home, tmp_path: Path) -> None:
    outcome = tried("malformed-jsonl", steady, tmp_path)
    assert "3 malformed" in outcome.stdout
    assert outcome.memory_unchanged


def test_truncated_last_line_is_counted(steady: Home, tmp_path: Path) -> None:
    outcome = tried("truncated-jsonl", steady, tmp_path)
    assert "1 truncated" in outcome.stdout
    assert outcome.memory_unchanged


def test_invalid_utf8_is_counted_and_the_rest_read(steady: Home, tmp_path: Path) -> None:
    outcome = tried("invalid-utf8", steady, tmp_path)
    assert "1 invalid UTF-8" in outcome.stdout
    assert outcome.memory_unchanged


def test_a_single_100_mb_line_is_skipped(steady: Home, tmp_path: Path) -> None:
    outcome = tried("single-100mb-line", steady, tmp_path)
    assert "1 oversized" in outcome.stdout
    assert outcome.seconds < 60


def test_100000_nested_arrays_on_a_user_line_are_one_malformed_line(steady: Home, tmp_path: Path) -> None:
    outcome = tried("deeply-nested-json", steady, tmp_path)
    assert "RecursionError" not in outcome.stderr
    assert "1 malformed" in outcome.stdout


def test_binary_garbage_named_jsonl_is_skipped_as_malformed(steady: Home, tmp_path: Path) -> None:
    outcome = tried("binary-garbage-jsonl", steady, tmp_path)
    assert outcome.memory_unchanged


def test_an_unreadable_transcript_is_named_and_the_rest_dreamt(steady: Home, tmp_path: Path) -> None:
    # Root reads any file: the run drops CAP_DAC_OVERRIDE (capsh) so a mode-000 file is really unreadable.
    outcome = tried("unreadable-file", steady, tmp_path)
    assert outcome.code == 0
    assert "failure: could not read" in outcome.stdout


def test_a_symlink_loop_named_jsonl_is_named_not_fatal(steady: Home, tmp_path: Path) -> None:
    outcome = tried("symlink-loop", steady, tmp_path)
    assert outcome.memory_unchanged


def test_a_transcript_deleted_while_the_run_reads_it(steady: Home, tmp_path: Path) -> None:
    tried("transcript-deleted-mid-run", steady, tmp_path)


def test_a_topic_file_that_is_a_directory_is_left_alone_and_named(steady: Home, tmp_path: Path) -> None:
    tried("topic-file-is-directory", steady, tmp_path)


def test_broken_frontmatter_leaves_the_file_byte_for_byte_and_named(steady: Home, tmp_path: Path) -> None:
    tried("broken-frontmatter", steady, tmp_path)


def test_crlf_transcript_memory_and_config(steady: Home, tmp_path: Path) -> None:
    outcome = tried("crlf-files", steady, tmp_path)
    assert not outcome.memory_unchanged, "the CRLF transcript's rule should have been added"


def test_a_10000_line_memory_md_is_brought_under_the_limits_losing_nothing(
    steady: Home, tmp_path: Path
) -> None:
    outcome = tried("memory-md-10000-lines", steady, tmp_path)
    assert outcome.seconds < 60, f"took {outcome.seconds:.0f} s"


def test_a_read_only_memory_dir_fails_clearly_and_changes_nothing(steady: Home, tmp_path: Path) -> None:
    # A real read-only bind mount over the memory dir (root ignores mode bits).
    outcome = tried("read-only-memory-dir", steady, tmp_path)
    assert outcome.code == 1
    assert outcome.memory_unchanged


def test_a_full_disk_fails_clearly_and_changes_nothing(steady: Home, tmp_path: Path) -> None:
    # The memory dir on a real 64 KiB tmpfs, filled to the last page.
    outcome = tried("full-disk", steady, tmp_path)
    assert outcome.code == 1
    assert outcome.memory_unchanged


def test_a_disk_that_fills_during_the_writes_leaves_memory_as_it_was(steady: Home, tmp_path: Path) -> None:
    # Room for the first files of the run, not the rest: the run must put back what it wrote. Before the
    # fix in dream/fsio.py the restore itself hit ENOSPC on its first file and gave up, leaving the run's
    # new archive.md and topic files beside the old MEMORY.md.
    outcome = tried("disk-fills-mid-write", steady, tmp_path)
    assert outcome.memory_unchanged


def test_restore_removes_new_files_first_and_does_not_stop_at_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fsio fix on its own, without a mount: removals before rewrites, every file tried."""
    memory = tmp_path / "memory"
    memory.mkdir()
    for name in ("a.md", "b.md", "c.md"):
        (memory / name).write_text(f"{name} before\n")
    snapshot = take_snapshot(tmp_path / "snapshots", "run-1", memory, ["a.md", "b.md", "c.md", "new.md"])
    for name in ("a.md", "b.md", "c.md", "new.md"):
        (memory / name).write_text(f"{name} after, longer than before\n")
    order: list[str] = []
    real = atomic_write_bytes

    def flaky(path: Path, data: bytes, *, mode: int | None = None) -> None:
        order.append(path.name)
        if path.name == "b.md":
            raise DreamError(f"could not write {path}: the disk is full (ENOSPC).")
        real(path, data, mode=mode)

    real_unlink = Path.unlink

    def unlink(self: Path, missing_ok: bool = False) -> None:
        order.append("unlink " + self.name)
        real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr("dream.fsio.atomic_write_bytes", flaky)
    monkeypatch.setattr(Path, "unlink", unlink)
    with pytest.raises(DreamError, match=r"could not put back 1 of 4 files.*b\.md"):
        restore_snapshot(snapshot, memory)
    assert order[0] == "unlink new.md"
    assert (memory / "a.md").read_text() == "a.md before\n"
    assert (memory / "c.md").read_text() == "c.md before\n"
    assert (memory / "b.md").read_text() == "b.md after, longer than before\n"  # whole, in its new version
    assert not (memory / "new.md").exists()


def test_an_invalid_settings_json_does_not_stop_a_run_and_the_installer_refuses_it(
    steady: Home, tmp_path: Path
) -> None:
    # dream itself never reads settings.json; install.py (which merges hooks into it) refuses it with a
    # message and leaves it byte for byte (the in-process variants are in test_install.py).
    outcome = tried("invalid-settings-json", steady, tmp_path)
    assert outcome.memory_unchanged


def test_a_fifo_named_jsonl_does_not_hang_the_run(steady: Home, tmp_path: Path) -> None:
    tried("fifo-named-jsonl", steady, tmp_path)


def test_an_invalid_config_file_is_a_usage_error_naming_the_key(steady: Home, tmp_path: Path) -> None:
    outcome = tried("invalid-dream-config", steady, tmp_path)
    assert outcome.code == 2


def test_garbage_in_every_state_file_does_not_stop_a_run(steady: Home, tmp_path: Path) -> None:
    # Review queue, entry record, digests, report rows, pending flag and .last-dream all unreadable.
    outcome = tried("garbage-state-files", steady, tmp_path)
    assert outcome.memory_unchanged


def test_a_memory_md_that_is_a_directory_is_named(steady: Home, tmp_path: Path) -> None:
    # Known gap: the run exits 0 and says nothing: the index is silently not maintained (the unparsed
    # index is not in the report's "left untouched" list).
    tried("memory-md-is-directory", steady, tmp_path)


def test_a_last_dream_that_is_a_directory_ends_in_a_message_not_a_traceback(
    steady: Home, tmp_path: Path
) -> None:
    # Guards a fixed bug: trigger.write_last_dream's os.replace raised IsADirectoryError, which
    # nothing caught, so the run printed a traceback and exited 1 after it had written memory.
    tried("last-dream-is-directory", steady, tmp_path)


def test_deeply_nested_markdown_in_a_topic_file(steady: Home, tmp_path: Path) -> None:
    outcome = tried("deeply-nested-markdown", steady, tmp_path)
    assert outcome.seconds < 60


def test_a_memory_entry_with_a_long_unbroken_token_does_not_stall_the_run(
    steady: Home, tmp_path: Path
) -> None:
    # Guards a fixed bug: `(\S+) is overkill` (and three like it) ran over the whole entry and
    # backtracked quadratically on a 32 KB data: URI (16 KB: 14 s per call); the run never ended.
    tried("long-token-in-memory-entry", steady, tmp_path)


def test_a_memory_file_that_is_a_symlink_loop_is_named_and_left(steady: Home, tmp_path: Path) -> None:
    outcome = tried("memory-file-symlink-loop", steady, tmp_path)
    assert outcome.memory_unchanged


def test_the_catalog_covers_every_input_the_issue_names() -> None:
    named = {
        "malformed-jsonl",
        "truncated-jsonl",
        "invalid-utf8",
        "single-100mb-line",
        "deeply-nested-json",
        "binary-garbage-jsonl",
        "unreadable-file",
        "symlink-loop",
        "transcript-deleted-mid-run",
        "topic-file-is-directory",
        "broken-frontmatter",
        "crlf-files",
        "memory-md-10000-lines",
        "read-only-memory-dir",
        "full-disk",
        "invalid-settings-json",
    }
    assert named <= set(INPUT_FAULTS)
    tests = {name for name in globals() if name.startswith("test_")}
    assert len(tests) >= len(INPUT_FAULTS)


def test_the_mounts_are_gone_afterwards(tmp_path: Path) -> None:
    target = tmp_path / "m"
    target.mkdir()
    with mounted("tmpfs", target) as reason:
        if reason:
            pytest.skip(reason)
        assert os.stat(target).st_dev != os.stat(tmp_path).st_dev
    assert os.stat(target).st_dev == os.stat(tmp_path).st_dev
    assert stat.S_ISDIR(os.stat(target).st_mode)
