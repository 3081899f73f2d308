"""Memory texts already found free of secrets, so that a run does not redact unchanged files again.

Every memory file a run reads, plans, shows in a diff or copies into a snapshot or a backup is
redacted first (DESIGN.md §6): no secret is written or printed. On a typical memory that was most of
a warm plan (~0.5 ms per KB), for files that had not changed since the last run found them clean. A
text redaction leaves as it was is remembered by a keyed hash (blake2b, 16 bytes, keyed by the
redaction rules' version: new rules look again), and is not redacted again while it is unchanged;
any other text is redacted as always. The hashes say nothing of what the texts hold. Within one
process, a text found to hold a secret is redacted once too.

This module is the record in memory; where its file lives and who may write it: `clean_texts_file.py`
(as for the compiled patterns, `regex_cache.py` and `regex_cache_file.py`). Standard library only, but
for the redactor itself.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dream import rules_version

if TYPE_CHECKING:  # the redactor is imported where a text is redacted, not by every command
    from dream.redact import RedactionResult

_MAGIC = b"dream-clean-texts 1\n"
_DIGEST = 16
# The record stays the size of a memory: the texts of this run, then older ones up to this many.
_MAX_KEPT = 4096
# Texts with a secret this process remembers having looked at: this many, of at most this many
# characters in all (a daemon keeps its process for weeks).
_DIRTY_KEPT = 32
_DIRTY_CHARS = 8_000_000


@dataclass
class _Record:
    load: Callable[[], bytes] | None = None  # the file's bytes, read when first needed
    known: set[bytes] | None = None
    used: set[bytes] = field(default_factory=set)
    new: set[bytes] = field(default_factory=set)
    # This process's looks at texts that hold a secret (a memory file is looked at by the snapshot,
    # the plan, the diff and the check after the write): never kept, and few.
    dirty: dict[bytes, tuple[int, RedactionResult | None]] = field(default_factory=dict)
    dirty_chars: int = 0


_record = _Record()


def _version() -> bytes:
    return rules_version.sources_id(rules_version.REDACTION).encode()


def _key(text: str) -> bytes:
    return hashlib.blake2b(
        text.encode("utf-8", "surrogatepass"), digest_size=_DIGEST, key=_version()
    ).digest()


def use(load: Callable[[], bytes] | None) -> None:
    """From now on, a fresh record whose known texts `load` gives, when first needed (None: none)."""
    global _record
    _record = _Record(load)


def _known() -> set[bytes]:
    if _record.known is None:
        data = _record.load() if _record.load is not None else b""
        _record.known = parse(data)
    return _record.known


def parse(data: bytes) -> set[bytes]:
    """The hashes a record file holds; none when it is torn, foreign or of other rules."""
    head = _MAGIC + _version() + b"\n"
    body = data[len(head) :]
    if not data.startswith(head) or len(body) % _DIGEST:
        return set()
    return {body[at : at + _DIGEST] for at in range(0, len(body), _DIGEST)}


def redact(text: str) -> RedactionResult:
    """`redact.redact(text)`, without the work when the record knows the text is clean."""
    from dream.redact import RedactionResult
    from dream.redact import redact as redact_text

    key = _key(text)
    if key in _known() or key in _record.new:
        _record.used.add(key)
        return RedactionResult(text, ())
    seen = _record.dirty.get(key)
    if seen is not None and seen[1] is not None:
        return seen[1]
    result = redact_text(text)
    if result.changed:
        _dirty(key, len(text), result)
        # What redaction makes redacts to itself (it looks again until nothing is left; the property
        # test `test_redact.test_idempotent` holds it to that): the file written from it is clean.
        _record.new.add(_key(result.text))
    else:
        _record.new.add(key)
    return result


def contains_secret(text: str) -> bool:
    """`redact.contains_secret(text)`, without the work when the record knows the text is clean."""
    key = _key(text)
    if key in _known() or key in _record.new:
        _record.used.add(key)
        return False
    if key in _record.dirty:
        return True
    from dream.redact import contains_secret as has_secret

    if has_secret(text):
        _dirty(key, 0, None)
        return True
    _record.new.add(key)
    return False


def _dirty(key: bytes, chars: int, result: RedactionResult | None) -> None:
    dirty = _record.dirty
    old = dirty.pop(key, None)
    _record.dirty_chars -= old[0] if old else 0
    while dirty and (len(dirty) >= _DIRTY_KEPT or _record.dirty_chars + chars > _DIRTY_CHARS):
        _record.dirty_chars -= dirty.pop(next(iter(dirty)))[0]
    if chars <= _DIRTY_CHARS:
        dirty[key] = (chars, result)
        _record.dirty_chars += chars


def unsaved() -> bytes | None:
    """The record file to write: this process's texts, then older ones up to the cap; None when this
    process found no clean text the file lacked."""
    if not _record.new:
        return None  # nothing found clean: the file need not even be read
    known = _known()
    if not _record.new - known:
        return None
    kept = _record.used | _record.new
    for key in known - kept:
        if len(kept) >= _MAX_KEPT:
            break
        kept.add(key)
    return _MAGIC + _version() + b"\n" + b"".join(sorted(kept))


def saved(data: bytes) -> None:
    """The record file now holds `data` (what `unsaved` gave)."""
    _record.known, _record.new = parse(data), set()
