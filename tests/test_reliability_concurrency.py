"""Concurrency (issue 7, part 4), with real processes: two `python -m dream run` at once on one memory, a
run while Stop hooks fire (the real client's payloads from tests/fixtures), and the pending flag read
while they write.

Twenty simultaneous Stop hooks for different sessions counting every session once and writing the flag
once is proven by test_hook.py::test_twenty_concurrent_hooks_count_every_session_once_and_raise_the_flag_once
(it watches the flag's inode too); reliability_report.py repeats it with real payloads for its figures.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from reliability.concurrency import (
    ConcurrencyFigures,
    check_run_pairs,
    check_run_while_hooks_fire,
    real_payloads,
)
from reliability.faults import build_kill_home, rehome
from reliability.running import PYTHON, TIMEOUT

# real runs and Stop hooks in parallel processes.
# Left out of the inner loop (`pytest -m "not slow"`); CI runs it.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> ConcurrencyFigures:
    figures = ConcurrencyFigures()
    check_run_pairs(tmp_path_factory.mktemp("pairs"), 3, 20261129, figures)
    return figures


def test_two_runs_at_once_one_proceeds_the_other_waits_or_is_busy(pairs: ConcurrencyFigures) -> None:
    assert pairs.pair_rounds == 3
    assert pairs.other_exits == 0, pairs.problems
    assert pairs.ran >= pairs.pair_rounds, "in every pair at least one run must proceed"
    assert pairs.ran + pairs.busy == pairs.runs, pairs.problems


def test_two_runs_at_once_corrupt_nothing_and_lose_nothing(pairs: ConcurrencyFigures) -> None:
    # The memory afterwards is byte for byte what one run alone writes; it parses; verify passes.
    assert pairs.corrupt_files == 0, pairs.problems
    assert pairs.lost_entries == 0, pairs.problems
    assert pairs.failed_verifies == 0, pairs.problems


def test_a_second_run_is_not_turned_away_as_if_the_first_were_claude_codes_dream(tmp_path: Path) -> None:
    # Found by this suite, fixed in dream/fsio.py: after its writes a run leaves its own PID in Claude
    # Code's `.consolidate-lock` (so the native auto-dream waits 24 h) and then finishes its bookkeeping;
    # a second run that had been waiting for `.dream.lock` read that live PID and exited 3 saying
    # "Claude Code's own auto-dream is consolidating ... (PID <the other dream run>)". Another dream run's
    # PID does not count as the native holder: the second run waits, then re-plans and proceeds.
    pristine, _ = build_kill_home(tmp_path / "pristine")
    for attempt in range(2):
        home = rehome(pristine, tmp_path / f"try-{attempt}")
        procs = [
            subprocess.Popen(
                [PYTHON, "-m", "dream", "--claude-dir", str(home.claude), "run"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=home.env,
            )
            for _ in range(2)
        ]
        outputs = [p.communicate(timeout=TIMEOUT) for p in procs]
        for (out, err), proc in zip(outputs, procs, strict=True):
            assert "Claude Code's own auto-dream" not in out + err, (out + err)[-600:]
            assert proc.returncode == 0, (out + err)[-600:]


@pytest.fixture(scope="module")
def during_hooks(tmp_path_factory: pytest.TempPathFactory) -> ConcurrencyFigures:
    figures = ConcurrencyFigures()
    check_run_while_hooks_fire(tmp_path_factory.mktemp("hooks"), figures)
    return figures


def test_stop_hooks_fired_during_a_run_exit_0_silently_and_the_run_completes(
    during_hooks: ConcurrencyFigures,
) -> None:
    assert during_hooks.hooks_fired_during_runs >= 5, "the run was too short to overlap any hook"
    assert during_hooks.hook_failures == 0, during_hooks.problems
    assert during_hooks.ran == 1, during_hooks.problems
    assert during_hooks.corrupt_files == 0


def test_the_pending_flag_is_never_read_torn_while_hooks_and_a_run_write_it(
    during_hooks: ConcurrencyFigures,
) -> None:
    assert during_hooks.torn_flag_reads == 0


def test_sessions_whose_stop_hook_fired_during_a_run_stay_counted(
    during_hooks: ConcurrencyFigures,
) -> None:
    # Guards a fixed bug: the run read the sessions seen *after* applying the plan and cleared them
    # all, so sessions recorded while it was reading and writing were forgotten, against
    # trigger.clear_sessions_seen's contract ("sessions recorded during the run stay counted").
    assert during_hooks.sessions_dropped_from_count == 0, during_hooks.problems


def test_real_stop_payloads_are_what_the_client_sends() -> None:
    stops = [p for p in real_payloads() if p["hook_event_name"] == "Stop"]
    assert len(stops) >= 4
    assert all({"session_id", "transcript_path", "cwd", "stop_hook_active"} <= set(p) for p in stops)
