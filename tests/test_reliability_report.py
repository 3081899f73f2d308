"""The CI-sized reliability report (issue 7, part 7): `python tests/reliability_report.py` runs its sized
checks (bad inputs, SIGKILLs in the write phase, concurrent runs and hooks, planted secrets, planted
injections, false positives) and must print 0 torn files, 0 lost entries, 0 leaked secrets and 0
persisted injections. `python tests/reliability_report.py --full` is the full size (>= 50 kills)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import reliability_report
from reliability.faults import has_traceback

# runs the whole reliability report: processes, kills, concurrency.
# Left out of the inner loop (`pytest -m "not slow"`); CI runs it.
pytestmark = pytest.mark.slow

SCRIPT = Path(reliability_report.__file__)


def test_the_ci_sized_report_shows_no_torn_file_lost_entry_leaked_secret_or_persisted_injection(
    tmp_path: Path, report: Callable[[str], None]
) -> None:
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--seed", "20261129", "--json-out", str(out)],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=str(tmp_path),
    )
    report(done.stdout)
    assert not has_traceback(done.stderr), done.stderr[-3000:]
    figures = json.loads(out.read_text(encoding="utf-8"))
    assert figures["size"] == "CI"
    assert figures["kills"]["kills"] >= 5 and figures["concurrency"]["runs"] >= 5
    assert figures["secrets"]["formats"] >= 25 and len(figures["inputs"]) >= 5
    headline = figures["headline"]
    assert headline["torn_files"] == 0
    assert headline["lost_entries"] == 0
    assert headline["persisted_injections"] == 0
    assert headline["leaked_secrets"] == 0, sorted(figures["secrets"]["leaks"])[:10]
    assert done.returncode == 0
