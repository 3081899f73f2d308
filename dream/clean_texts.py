"""Memory texts already found free of secrets, so that a run does not redact unchanged files again.

Every memory file a run reads, plans or shows in a diff is redacted first (DESIGN.md §6): no
secret is written or printed. On a typical memory that was most of a warm plan (~0.5 ms per KB),
for files that had not changed since the last run found them clean. A text redaction leaves as it
was is remembered here by a keyed hash (blake2b, 16 bytes, keyed by the redaction rules' version:
new rules look again), and is not redacted again while it is unchanged; any other text is redacted
as always. The hashes say nothing of what the texts hold.

One file in dream's state dir (`Paths.clean_texts_file`), attached and saved the way the compiled
pattern cache is (`regex_cache_file`): only a command that writes dream's state saves it, never a
dry run. A missing, torn or foreign file means redacting as usual. Standard library only, but for
the redactor itself.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from dream import rules_version
from dream.errors import DreamError
from dream.fsio import atomic_write_bytes, make_dirs, private_mode_for, read_regular

if TYPE_CHECKING:  # the redactor is imported where a text is redacted, not by every command
    from dream.redact import RedactionResult

_MAGIC = b"dream-clean-texts 1\n"
_DIGEST = 16
# The record stays the size of a memory: the texts of this run, then older ones up to this many.
_MAX_KEPT = 4096
# Texts with a secret this process remembers having looked at.
_DIRTY_KEPT = 32


@dataclass
class _Record:
    path: Path | None = None
    writable: bool = False
    known: set[bytes] | None = None  # read when first needed
    used: set[bytes] = field(default_factory=set)
    new: set[bytes] = field(default_factory=set)
    # This process's looks at texts that hold a secret (a memory file is looked at by the plan, the
    # diff and the check after the write): never kept, and few.
    dirty: dict[bytes, RedactionResult | None] = field(default_factory=dict)


_record = _Record()


def _version() -> bytes:
    return rules_version.sources_id(rules_version.REDACTION).encode()


def _key(text: str) -> bytes:
    return hashlib.blake2b(
        text.encode("utf-8", "surrogatepass"), digest_size=_DIGEST, key=_version()
    ).digest()


def attach(path: Path | None, *, writable: bool) -> None:
    """Use the record at `path` from now on (None: no record); `writable` lets `save` write it.
    Nothing is read until a text is asked about: a command that redacts no memory pays nothing."""
    global _record
    _record = _Record(path, writable)


def _known() -> set[bytes]:
    if _record.known is None:
        _record.known = set()
        if _record.path is not None:
            try:
                data = read_regular(_record.path)[0]  # never opens a FIFO or a device put in its place
            except (OSError, DreamError):
                data = b""
            head = _MAGIC + _version() + b"\n"
            body = data[len(head) :]
            if data.startswith(head) and len(body) % _DIGEST == 0:
                _record.known = {body[at : at + _DIGEST] for at in range(0, len(body), _DIGEST)}
    return _record.known


def redact(text: str) -> RedactionResult:
    """`redact.redact(text)`, without the work when the record knows the text is clean."""
    from dream.redact import RedactionResult
    from dream.redact import redact as redact_text

    key = _key(text)
    if key in _known() or key in _record.new:
        _record.used.add(key)
        return RedactionResult(text, ())
    seen = _record.dirty.get(key)
    if seen is not None:
        return seen
    result = redact_text(text)
    if result.changed:
        _dirty(key, result)
        # What redaction makes redacts to itself (it looks again until nothing is left; the property
        # test `test_redact.test_idempotent` holds it to that): the file written from it is clean.
        _record.new.add(_key(result.text))
    else:
        _record.new.add(key)
    return result


def _dirty(key: bytes, result: RedactionResult | None) -> None:
    if len(_record.dirty) >= _DIRTY_KEPT:
        _record.dirty.pop(next(iter(_record.dirty)))
    _record.dirty[key] = result


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
        _dirty(key, None)
        return True
    _record.new.add(key)
    return False


def save() -> bool:
    """Write the record when this process found texts it lacked; True if written. An error leaves
    the file as it was: it costs only speed."""
    path = _record.path
    known = _known()
    if path is None or not _record.writable or not _record.new - known:
        return False
    claude_dir = path.parent.parent
    if not claude_dir.is_dir():
        return False  # a missing Claude dir is never made for a cache
    kept = _record.used | _record.new
    for key in known - kept:
        if len(kept) >= _MAX_KEPT:
            break
        kept.add(key)
    try:
        make_dirs(path.parent, state_root=claude_dir)
        mode = private_mode_for(path, state_root=claude_dir)
        body = b"".join(sorted(kept))
        atomic_write_bytes(path, _MAGIC + _version() + b"\n" + body, mode=mode, durable=False)
    except (OSError, DreamError):
        return False
    _record.known = kept
    _record.new = set()
    return True
