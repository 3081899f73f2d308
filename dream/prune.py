"""PRUNE: retire entries that went stale (DESIGN.md §5: never delete without a reason on record).

An entry older than DREAM_STALE_DAYS that nothing in the window's sessions mentions is moved to
`archive.md` with the reason. Silence is evidence only when there were sessions: a memory dir with
none in the window is never pruned. Pinned entries, Claude Code's own memory files and entries this
run already touched stay.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import TYPE_CHECKING

from dream.config import Config
from dream.edits import Edits
from dream.gates import is_pinned
from dream.memory import Memory
from dream.statement import content_terms

if TYPE_CHECKING:
    from dream.target import Target


def prune_stale(
    memory: Memory,
    edits: Edits,
    target: Target,
    config: Config,
    today: date,
    targeted: set[int],
    limit: int | None = None,
) -> tuple[list[str], int]:
    """Archive entries older than the stale age that nothing in the window's sessions mentions,
    the oldest first and at most `limit` of them (the run's cap on changes, less what it already
    changes); returns the texts archived and how many stale entries wait for a later run."""
    if not target.digests:
        return [], 0  # no sessions in the window: silence is no evidence that anything went stale
    cutoff = (today - timedelta(days=config.stale_days)).isoformat()
    # What the window's sessions said counts as a reference, the signals' sentences included.
    # The digests keep hashes of the terms, never the words (see digest.term_hash).
    from dream.digest import term_hashes

    window_terms = {h for d in target.digests for h in d.terms.split()}
    window_terms |= term_hashes(content_terms(" ".join(s.text for s in target.signals)))
    stale = []
    archive_rel = memory.rel(memory.paths.archive)
    for entry in memory.entries:
        if entry.native or entry.file == archive_rel or is_pinned(entry, config.pinned):
            continue
        when = entry.updated or entry.date
        if not when or when >= cutoff:
            continue
        editor = edits.editors.get(entry.file)
        if editor is not None and entry.line in editor.replacements:
            continue  # this run already changed it
        if id(entry) in targeted or not window_terms.isdisjoint(term_hashes(memory.statement(entry).terms)):
            continue
        stale.append(entry)
    stale.sort(key=lambda e: e.updated or e.date or "")
    allowed = len(stale) if limit is None else max(0, limit)
    pruned = []
    for entry in stale[:allowed]:
        edits.editor(entry.file).remove(entry)
        edits.archive(
            entry,
            f"stale: older than {config.stale_days} days and not mentioned since {target.digests and cutoff}",
        )
        pruned.append(entry.text)
    return pruned, len(stale) - len(pruned)


def archive_all(memory: Memory, edits: Edits, reason: str) -> list[str]:
    archived = []
    archive_rel = memory.rel(memory.paths.archive)
    for entry in memory.entries:
        if entry.native or entry.file == archive_rel:
            continue
        editor = edits.editors.get(entry.file)
        if editor is not None and entry.line in editor.replacements:
            continue
        edits.editor(entry.file).remove(entry)
        edits.archive(entry, reason)
        archived.append(entry.text)
    return archived
