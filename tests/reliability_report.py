#!/usr/bin/env python3
"""Reliability and security figures for dream (issue 7): run the checks, print what they found.

    python tests/reliability_report.py            # CI size: well under a minute on 2 cores
    python tests/reliability_report.py --full     # full size: >= 50 kills, 10 concurrent-run rounds
    python tests/reliability_report.py --json     # the figures as one JSON object

Everything runs in a temporary directory: HOME and CLAUDE_CONFIG_DIR point into it and every
command gets `--claude-dir`, so the real `~/.claude` is never read or written. Every subprocess has a
timeout. Mounts (a tiny tmpfs for the full-disk input, a read-only bind mount) are made only as root
and always lazily unmounted afterwards.

This module is also the tests' toolbox: `tests/test_reliability_*.py` import the home builder, the
secret formats, the injection plantings and the bad-input catalog from here, so the figures and the
tests measure the same things.

Figures:
    inputs tried ........ bad inputs run through `python -m dream run`, and how many ended cleanly
                          (a clear message or a counted skip, memory unchanged, no traceback)
    kills ............... real `python -m dream run` processes SIGKILLed in the write phase, at a
                          chosen syscall (before or after the Nth write/fsync/replace/unlink/... once
                          the memory lock is held) and at random moments; after each: torn files
                          (a memory file that is neither its old nor its new version, or does not
                          parse), lost entries (after the next run), failed recoveries
    concurrent runs ..... pairs of simultaneous runs on one memory, runs while Stop hooks fire, and
                          20 simultaneous Stop hooks
    secrets ............. token formats planted in user text, tool results and existing memory; leaks
                          into anything dream writes or prints
    injections .......... "remember this rule" plantings in places that are never the user's words,
                          and hostile user text; how many persisted into memory
    false positives ..... redactions on ordinary code and prose, per line
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _p in (str(HERE), str(ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from reliability.concurrency import ConcurrencyFigures, check_concurrency  # noqa: E402
from reliability.false_positives import FalsePositiveFigures, check_false_positives  # noqa: E402
from reliability.faults import INPUT_FAULTS, InputOutcome, KillFigures, check_kills, steady_home, try_input  # noqa: E402
from reliability.injection_run import InjectionFigures, injection_figures, injection_scenario  # noqa: E402
from reliability.secret_formats import SecretsFigures  # noqa: E402
from reliability.secrets_run import check_secrets  # noqa: E402

# ---------------------------------------------------------------------------------------------
# The report


@dataclass
class Size:
    name: str
    kills: int
    pair_rounds: int
    all_inputs: bool
    stdlib_modules: int | None


CI = Size("CI", kills=6, pair_rounds=2, all_inputs=False, stdlib_modules=10)
FULL = Size("full", kills=60, pair_rounds=10, all_inputs=True, stdlib_modules=None)


@dataclass
class Report:
    size: str
    seed: int
    seconds: float = 0.0
    inputs: list[InputOutcome] = field(default_factory=list)
    kills: KillFigures = field(default_factory=KillFigures)
    concurrency: ConcurrencyFigures = field(default_factory=ConcurrencyFigures)
    secrets: SecretsFigures = field(default_factory=SecretsFigures)
    injection: InjectionFigures = field(default_factory=InjectionFigures)
    false_positives: FalsePositiveFigures = field(default_factory=FalsePositiveFigures)

    @property
    def torn_files(self) -> int:
        return self.kills.torn_files + self.kills.unparseable_after_kill + self.concurrency.corrupt_files

    @property
    def lost_entries(self) -> int:
        return self.kills.lost_entries + self.concurrency.lost_entries

    @property
    def leaked_secrets(self) -> int:
        return self.secrets.leaked

    @property
    def persisted_injections(self) -> int:
        return self.injection.persisted_total

    def headline(self) -> dict[str, int]:
        return {
            "torn_files": self.torn_files,
            "lost_entries": self.lost_entries,
            "leaked_secrets": self.leaked_secrets,
            "persisted_injections": self.persisted_injections,
        }

    def to_json(self) -> dict[str, Any]:
        from dataclasses import asdict

        data = asdict(self)
        for item in data["inputs"]:
            item["stdout"], item["stderr"] = item["stdout"][-2000:], item["stderr"][-2000:]
        data["headline"] = self.headline()
        data["false_positives"]["rate"] = self.false_positives.rate
        return data


def run_report(size: Size, seed: int, work: Path, log: Callable[[str], None] = lambda s: None) -> Report:
    report = Report(size.name, seed)
    started = time.monotonic()

    def phase(name: str) -> None:
        log(f"{name} ... ({time.monotonic() - started:.0f} s)")

    phase("inputs")
    steady = steady_home(work / "steady")
    for name, (_build, in_ci) in INPUT_FAULTS.items():
        if size.all_inputs or in_ci:
            outcome = try_input(name, steady, work)
            report.inputs.append(outcome)
            log(
                f"  {name}: {'skipped' if outcome.skipped else 'ok' if outcome.ok else 'FAILED'} "
                f"({outcome.seconds:.1f} s)"
            )
    phase("kills")
    report.kills = check_kills(work, size.kills, seed, log)
    phase("concurrency")
    report.concurrency = check_concurrency(work, size.pair_rounds, seed)
    phase("secrets")
    report.secrets = check_secrets(work, seed)
    phase("injection")
    report.injection = injection_figures(injection_scenario(work / "injection"))
    phase("false positives")
    report.false_positives = check_false_positives(size.stdlib_modules)
    report.seconds = time.monotonic() - started
    return report


def _where(place: str) -> str:
    """A leak's place, without the temporary paths: `snapshot of a later run`, `output of dream X`, ..."""
    if place.startswith("output of"):
        return place
    parts = Path(place).parts
    if "snapshots" in parts:
        return "a snapshot made after the first run"
    if "reports" in parts:
        return "report rows"
    if "review" in parts:
        return "the review queue"
    if "digests" in parts:
        return "digests"
    if "memory" in parts:
        return f"memory file {parts[-1]}"
    return place


def leak_summary(leaks: dict[str, list[str]]) -> list[str]:
    """One line per (place planted, place leaked): how many formats took that path."""
    counts: dict[tuple[str, str], list[str]] = {}
    for planting, places in leaks.items():
        fmt, planted = planting.split("@", 1)
        for where in sorted({_where(p) for p in places}):
            counts.setdefault((planted, where), []).append(fmt)
    return [
        f"{len(fmts)} secrets planted in {planted} leaked into {where} ({', '.join(sorted(fmts)[:4])}"
        + (", ..." if len(fmts) > 4 else "")
        + ")"
        for (planted, where), fmts in sorted(counts.items())
    ]


def render(report: Report, verbose: bool = False) -> str:
    r = report
    out = [f"dream reliability report ({r.size} size, seed {r.seed}, {r.seconds:.0f} s)", ""]
    tried = [i for i in r.inputs if not i.skipped]
    clean = sum(1 for i in tried if i.ok)
    out.append(
        f"inputs tried ........... {len(tried)} bad inputs through `python -m dream run`: {clean} ended "
        f"cleanly "
        f"(a clear message or a counted skip, memory as expected, no traceback), {len(tried) - clean} did "
        f"not; "
        f"{len(r.inputs) - len(tried)} skipped"
    )
    for item in r.inputs:
        state = (
            f"skipped: {item.skipped}"
            if item.skipped
            else ("ok  " if item.ok else "FAIL") + f" exit {item.code}, {item.seconds:.1f} s"
        )
        out.append(
            f"    {item.name:<30} {state}"
            + (f"  [{item.message[:70]}]" if item.message and item.ok else "")
            + (f"  {item.detail[:160]}" if item.detail else "")
        )
    k = r.kills
    out.append(
        f"kills survived ......... {k.kills - k.failed_recoveries} of {k.kills} SIGKILLs of `python -m "
        f"dream run` in the write phase "
        f"({k.aimed} at a chosen one of its {k.syscalls_in_write_phase} writes/fsyncs/renames, {k.timed} "
        f"at random moments): "
        f"torn files {k.torn_files + k.unparseable_after_kill}, lost entries {k.lost_entries}, failed "
        f"recoveries {k.failed_recoveries}, "
        f"failed verifies {k.failed_verifies}; left old {k.states.get('old', 0)} / new "
        f"{k.states.get('new', 0)} / "
        f"part-way {k.states.get('mixed', 0)}, {k.converged} recoveries byte-identical to an uninterrupted "
        f"run, "
        f"{k.leftover_temp_files} temp files left by kills"
    )
    c = r.concurrency
    out.append(
        f"concurrent runs ........ {c.runs} runs ({c.pair_rounds} pairs started together on one memory, 1 "
        f"while "
        f"{c.hooks_fired_during_runs} Stop hooks fired): exit 0 x{c.ran}, exit 3 (busy) x{c.busy}, other "
        f"x{c.other_exits}; "
        f"corrupt files {c.corrupt_files}, lost entries {c.lost_entries}, failed verifies "
        f"{c.failed_verifies}, torn flag reads "
        f"{c.torn_flag_reads}; {c.simultaneous_hooks} simultaneous Stop hooks counted {c.sessions_counted} "
        f"sessions and "
        f"wrote the flag {c.flag_writes} time(s); hook failures {c.hook_failures}; sessions a run dropped "
        f"from the count "
        f"{c.sessions_dropped_from_count}"
    )
    s = r.secrets
    places = ", ".join(f"{p} {n}" for p, n in sorted(s.places.items()))
    out.append(
        f"secrets planted ........ {s.formats} formats, {s.planted} plantings ({places}); {s.commands} "
        f"command outputs and "
        f"{s.files_scanned} written files scanned"
    )
    out.append(
        f"secrets leaked ......... {s.leaked}; {s.held_for_review} secret-bearing proposals held for review, "
        f"{s.redacted_in_memory} of {s.in_memory} secrets already in memory redacted by the run"
    )
    i = r.injection
    out.append(
        f"injections planted ..... {i.planted} rules where the user never typed them (tool results, "
        f"fetched pages, subagents, "
        f"assistant text, compaction summaries, ...) + {i.hostile} hostile user texts"
    )
    out.append(
        f"injections persisted ... {i.persisted_total} (planted rules in memory {i.persisted}, in any "
        f"state or output "
        f"{i.anywhere}; hostile raw in memory {i.hostile_in_memory}, raw in the review queue "
        f"{i.hostile_raw_in_queue}, raw "
        f"after approval {i.hostile_raw_after_approve}); hostile held for review {i.hostile_held}, "
        f"stripped by the reader "
        f"{i.hostile_stripped}, never a signal {i.hostile_never_signal}; control rule typed by the user "
        f"remembered: "
        f"{'yes' if i.control_remembered else 'NO'}"
    )
    f = r.false_positives
    out.append(
        f"false positives ........ {f.flagged_lines} of {f.lines} lines of ordinary code and prose redacted "
        f"({100 * f.rate:.4f} %), {f.files} files"
    )
    h = r.headline()
    out += ["", "TOTAL: " + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in h.items())]
    problems = k.problems + c.problems + i.problems + leak_summary(s.leaks)
    problems += [f"{item.name}: {item.detail}" for item in r.inputs if item.detail]
    if verbose:
        problems += [f"secret {p} leaked into {w}" for p, w in sorted(s.leaks.items())]
    if problems:
        out += ["", f"problems ({len(problems)}):"]
        out += [f"  - {p[:400]}" for p in (problems if verbose else problems[:25])]
        if len(problems) > 25 and not verbose:
            out.append(f"  ... and {len(problems) - 25} more (--verbose)")
    if verbose and f.examples:
        out += ["", "redacted lines of ordinary text:"] + [f"  {e}" for e in f.examples]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--full", action="store_true", help="full sizes (>= 50 kills, 10 concurrent pairs, every bad input)"
    )
    parser.add_argument("--seed", type=int, default=None, help="fix the random kill points and secret values")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--json-out", type=Path, help="also write the figures as JSON to this file")
    parser.add_argument("--verbose", action="store_true", help="every problem, and progress on stderr")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    work = Path(tempfile.mkdtemp(prefix="dream-reliability-"))

    def log(text: str) -> None:
        if args.verbose:
            print(text, file=sys.stderr, flush=True)

    try:
        report = run_report(FULL if args.full else CI, seed, work, log)
    finally:
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    if args.json_out:
        args.json_out.write_text(json.dumps(report.to_json(), indent=2, ensure_ascii=False), encoding="utf-8")
    print(
        json.dumps(report.to_json(), indent=2, ensure_ascii=False)
        if args.json
        else render(report, args.verbose)
    )
    return 0 if not any(report.headline().values()) else 1


if __name__ == "__main__":
    sys.exit(main())
