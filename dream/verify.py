"""VERIFY: prove the memory is in the state a run promises (DESIGN.md §6, issue 4).

Runs as the last step of every run (on the files just written) and on its own as
`python -m dream verify`, where "before" is the entry set recorded after the last run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from dream import clean_texts, defaults
from dream.dates import find_relative_dates
from dream.memory import Memory, normalise_key
from dream.redact import redact

CHECKS = ("index-limits", "no-duplicates", "no-relative-dates", "index-links", "nothing-lost", "no-secrets")


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str = ""


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def entry_key_hashes(memory: Memory) -> list[str]:
    return sorted({key_hash(e.key) for e in memory.entries})


def _archived_text(memory: Memory) -> str:
    archive = memory.files.get(memory.rel(memory.paths.archive))
    return "\n".join(normalise_key(line) for line in archive.lines) if archive else ""


def verify_memory(
    memory: Memory, before_keys: Iterable[str] | None = None, baseline: Memory | None = None
) -> list[Check]:
    """Every check on the memory as it is on disk. `before_keys`: normalised entry keys, or hashes.

    `baseline`: the memory before the run. A run is judged on what it changed: a duplicate, a
    relative date or a broken link that was already there is `orient`'s to report, not a reason
    to undo the run (and fail every run after it). Without a baseline (`dream verify`), every
    problem counts.
    """
    checks = [
        _index_limits(memory),
        _new_only(
            "no-duplicates", _duplicates(memory), _duplicates(baseline) if baseline is not None else None
        ),
        _new_only(
            "no-relative-dates",
            _relative_dates(memory),
            _relative_dates(baseline) if baseline is not None else None,
        ),
        _new_only(
            "index-links", _broken_links(memory), _broken_links(baseline) if baseline is not None else None
        ),
    ]
    if before_keys is not None:
        checks.append(_nothing_lost(memory, before_keys))
    checks.append(_no_secrets(memory))
    return checks


def _new_only(name: str, found: list[str], before: list[str] | None) -> Check:
    """Problems in `found` that `before` did not have (all of them without a baseline)."""
    new = [item for item in found if before is None or item not in before]
    detail = "; ".join(new[:5])
    if before and found and not new:
        detail = f"{len(found)} already there before this run (see `dream orient`)"
    return Check(name, not new, detail)


def _index_limits(memory: Memory) -> Check:
    if memory.index is None:
        return Check("index-limits", True, "no MEMORY.md")
    text = memory.index.raw.decode("utf-8", "replace")
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    ok = lines <= defaults.INDEX_MAX_LINES and len(text) <= defaults.INDEX_MAX_CHARS
    return Check("index-limits", ok, f"MEMORY.md has {lines} lines, {len(text)} characters")


def _duplicates(memory: Memory) -> list[str]:
    duplicates = []
    archive_rel = memory.rel(memory.paths.archive)
    for rel, memory_file in memory.files.items():
        if memory_file.kind != "topic" or rel == archive_rel:
            continue
        seen: dict[str, int] = {}
        for entry in memory_file.entries:
            seen[entry.key] = seen.get(entry.key, 0) + 1
            if seen[entry.key] > 1:
                duplicates.append(f"{rel}: {entry.text[:60]} (×{seen[entry.key]})")
    return duplicates


def _relative_dates(memory: Memory) -> list[str]:
    relative = []
    archive_rel = memory.rel(memory.paths.archive)
    for entry in memory.entries:
        if entry.native or entry.file == archive_rel or not entry.date:
            continue
        found = find_relative_dates(entry.text)
        if found:
            relative.append(f"{entry.file}: '{found[0]}' in {entry.text[:60]}")
    return relative


def _broken_links(memory: Memory) -> list[str]:
    """Links of the index to a local file that is not there. In a curated MEMORY.md only dream's
    own lines count: a link the person wrote is theirs to keep, broken or not (orient says so)."""
    from dream.curated import dream_lines, is_dream_index

    missing = []
    if memory.index is not None:
        ours = None if is_dream_index(memory.index) else dream_lines(memory.index)
        for _, target, number in memory.index.links:
            if ours is not None and number not in ours:
                continue
            local = target.endswith(".md") and "://" not in target and not target.startswith(("#", "/"))
            if local and not (memory.paths.memory_dir / target).is_file():
                missing.append(target)
    return missing


def _nothing_lost(memory: Memory, before_keys: Iterable[str]) -> Check:
    current = {e.key for e in memory.entries}
    current_hashes = {key_hash(k) for k in current}
    archived = _archived_text(memory)
    lost = []
    for key in before_keys:
        if key in current or key in current_hashes:
            continue
        # A plain key is found in the archive's text, a hash by the archive lines' hashes; a
        # one-word key of 16 characters looks like both, so both are tried.
        if key and key in archived:
            continue
        if len(key) == 16 and " " not in key and _hash_in_archive(key, memory):
            continue
        lost.append(redact(key).text[:60])
    detail = f"{len(lost)} entries missing: " + "; ".join(lost[:5]) if lost else ""
    return Check("nothing-lost", not lost, detail)


def _no_secrets(memory: Memory) -> Check:
    leaks = []
    index = memory.index
    for rel, memory_file in [*memory.files.items(), *([("MEMORY.md", index)] if index else [])]:
        if memory_file is None or memory_file.kind in ("unparsed", "native"):
            continue
        # A file the clean-text record knows is one redaction left as it was, under these rules.
        kinds = clean_texts.redact(memory_file.raw.decode("utf-8", "replace")).kinds
        if kinds:
            leaks.append(f"{rel}: {', '.join(sorted(set(kinds)))}")
    return Check("no-secrets", not leaks, "; ".join(leaks[:5]))


def _hash_in_archive(key_hashed: str, memory: Memory) -> bool:
    """An entry recorded only by hash counts as archived when an archive line holds its text."""
    archive = memory.files.get(memory.rel(memory.paths.archive))
    if archive is None:
        return False
    for entry in archive.entries:
        words = entry.key.split()
        # The archive line is "<text> (archived: ...)": try each prefix of its words.
        for end in range(len(words), 0, -1):
            if key_hash(" ".join(words[:end])) == key_hashed:
                return True
    return False


def failed(checks: list[Check]) -> list[Check]:
    return [c for c in checks if not c.ok]
