"""dream's own state, kept under `<claude>/dream/` (never inside a memory dir), read and written here.

| state | file (see `paths.Paths`) | written |
|---|---|---|
| review queue | `review/<state key>.json` | after each run, by `reject` |
| entry ledger | `entries/<state key>.json` (entry hashes a run left, the cwd) | after each run |
| run reports | `reports/<state key>.jsonl`, the newest `REPORTS_KEPT` | after each run |
| snapshots | `snapshots/<state key>/<run id>/` | before each run's first write (`fsio`) |
| digest cache | `digests/<folder>.json` | by `digest`, its own format |
| plan records | `plans/<plan id>.json` (what a packet showed), the newest `PLANS_KEPT` | by `plan` |
| decided messages | `decided/<state key>.json` (candidate id → the day decided) | after an apply |

Every write goes through the package's one atomic writer (`fsio.atomic_write_bytes`), with the mode
`fsio.private_mode_for` gives dream's state: in a private home (the Claude dir not readable by the
group and others) every state file is 0o600 and every folder dream makes for it 0o700. A state file
that cannot be read counts as empty: state is rebuilt from the transcripts and the memory itself.
A FIFO, socket or device in place of a state file read here is never opened (it reads as empty).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dream import defaults, regex_cache
from dream.paths import Paths

if TYPE_CHECKING:
    from dream.packet import PlanRecord
    from dream.review import ReviewState

_PLAN_ID = regex_cache.compile(r"p\d{8}T\d{6}-[0-9a-f]{6}")


@dataclass(frozen=True)
class EntryLedger:
    entries: list[str]  # hashes of the entries the last run left (see verify.entry_key_hashes)
    cwd: str | None  # the project's folder, as its sessions last said


@dataclass(frozen=True)
class StateStore:
    paths: Paths

    # -- review queue ---------------------------------------------------------------------------

    def review(self, memory_dir: Path) -> ReviewState:
        # Loaded here: the queue's module brings the memory model, which `status` never needs.
        from dream.review import load_review

        return load_review(self.paths.review_file(memory_dir))

    def save_review(self, memory_dir: Path, review: ReviewState) -> None:
        self._write_json(self.paths.review_file(memory_dir), review.to_json(), indent=1)

    # -- entry ledger ---------------------------------------------------------------------------

    def entry_ledger(self, memory_dir: Path) -> EntryLedger | None:
        data = _read_json(self.paths.entries_file(memory_dir))
        if not isinstance(data, dict):
            return None
        entries = data.get("entries")
        cwd = data.get("cwd")
        return EntryLedger(
            [str(e) for e in entries] if isinstance(entries, list) else [],
            cwd if isinstance(cwd, str) else None,
        )

    def save_entry_ledger(self, memory_dir: Path, ledger: EntryLedger) -> None:
        self._write_json(self.paths.entries_file(memory_dir), {"entries": ledger.entries, "cwd": ledger.cwd})

    # -- run reports ----------------------------------------------------------------------------

    def report_rows(self, memory_dir: Path) -> list[dict[str, Any]]:
        path = self.paths.report_file(memory_dir)
        rows = []
        try:
            text = _read_text(path)
        except (OSError, ValueError):
            return []
        for line in text.splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict):
                rows.append(row)
        return rows

    def append_report_row(self, memory_dir: Path, row: dict[str, Any]) -> None:
        """One row for this memory dir's run; the newest REPORTS_KEPT are kept."""
        rows = [*self.report_rows(memory_dir), row][-defaults.REPORTS_KEPT :]
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        self._write_text(self.paths.report_file(memory_dir), text)

    # -- the agent pass ---------------------------------------------------------------------------

    def save_plan(self, record: PlanRecord) -> None:
        self._write_json(self.paths.plan_file(record.plan), record.to_json())
        kept = sorted(self.paths.plans_dir.glob("p*.json"), key=lambda p: p.name)
        for old in kept[: -defaults.PLANS_KEPT]:
            old.unlink(missing_ok=True)

    def plan(self, plan_id: str) -> PlanRecord | None:
        from dream.packet import PlanRecord

        if not _PLAN_ID.fullmatch(plan_id):
            return None
        data = _read_json(self.paths.plan_file(plan_id))
        if not isinstance(data, dict):
            return None
        try:
            return PlanRecord.from_json(data)
        except (KeyError, TypeError, ValueError):
            return None

    def decided(self, memory_dir: Path) -> dict[str, str]:
        """Candidate id → the day the agent's decision on it was applied."""
        data = _read_json(self.paths.decided_file(memory_dir))
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def save_decided(self, memory_dir: Path, decided: dict[str, str], keep_since: str) -> None:
        """Kept while their messages can still be in a window."""
        kept = {k: v for k, v in decided.items() if v >= keep_since}
        self._write_json(self.paths.decided_file(memory_dir), kept)

    # -- snapshots ------------------------------------------------------------------------------

    def snapshots(self, memory_dir: Path) -> Path:
        """The folder of this memory dir's snapshots (their format is `fsio`'s)."""
        return self.paths.snapshots_for(memory_dir)

    # -- writing ----------------------------------------------------------------------------------

    def _write_json(self, path: Path, data: object, indent: int | None = None) -> None:
        self._write_text(path, json.dumps(data, ensure_ascii=False, indent=indent))

    def _write_text(self, path: Path, text: str) -> None:
        from dream.fsio import atomic_write_text, make_dirs, private_mode_for

        root = self.paths.claude_dir
        make_dirs(path.parent, state_root=root)
        # In a private home the file is 0o600 even when an older version left it readable.
        atomic_write_text(path, text, mode=private_mode_for(path, state_root=root))


def _read_text(path: Path) -> str:
    from dream.fsio import read_regular

    return read_regular(path)[0].decode("utf-8")


def _read_json(path: Path) -> object:
    try:
        return json.loads(_read_text(path))
    except (OSError, ValueError):
        return None
