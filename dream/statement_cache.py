"""What the analysis of each memory entry made of it (`statement.analyse`), kept between runs.

A run analyses every entry of every memory it plans (terms, key terms and their polarity: ~100 µs an
entry, a fifth of a warm run on a typical memory, seconds on 50,000 entries), and an entry's words
rarely change from one run to the next. Each statement is kept by a hash of the entry's text, under
the version of `statement.py` that made it, in one file in dream's state dir (`Paths.statements_file`).
Attached and saved the way the compiled-pattern cache is (`regex_cache_file`): only a command that
writes dream's state saves it, never a dry run. A missing, torn or foreign file, or a row that does
not make a Statement, means analysing as usual.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dream import rules_version
from dream.fsio import read_state_cache, write_state_cache

if TYPE_CHECKING:
    from dream.statement import Statement

_SOURCES = (Path(__file__).with_name("statement.py"),)
# Statements of this run's memories are kept, and older ones up to this many in all.
_MAX_KEPT = 200_000


@functools.cache
def _fields() -> tuple[str, ...]:
    from dream.statement import Statement

    return tuple(f.name for f in fields(Statement))


def _version() -> str:
    return f"{rules_version.sources_id(_SOURCES)}/{','.join(_fields())}"


@dataclass
class _Store:
    path: Path | None = None
    writable: bool = False
    loaded: bool = False  # the file is read when a statement is first asked for
    rows: dict[bytes, tuple[Any, ...]] = field(default_factory=dict)
    used: set[bytes] = field(default_factory=set)
    new: dict[bytes, tuple[Any, ...]] = field(default_factory=dict)


_store = _Store()


def _key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def attach(path: Path | None, *, writable: bool) -> None:
    """Use the file at `path` from now on (None: none); `writable` lets `save` write it. Nothing is
    read until a statement is asked for: a command that analyses no entry pays nothing."""
    global _store
    _store = _Store(path, writable)


def _load() -> None:
    _store.loaded = True
    if _store.path is None:
        return
    try:
        data = marshal.loads(read_state_cache(_store.path))
    except (ValueError, EOFError, TypeError):
        return
    if isinstance(data, dict) and data.get("version") == _version() and isinstance(data.get("rows"), dict):
        _store.rows = data["rows"]


def analyse(text: str, *, clean: Callable[[], bool] | None = None) -> Statement:
    """`statement.analyse(text)`, from the file when it holds this text's statement. `clean`, when
    given, says whether the memory file the text is in holds no secret: it is asked only when a new
    statement would be kept, and decides in place of a look at the text itself."""
    from dream.statement import Statement
    from dream.statement import analyse as analyse_text

    if not _store.loaded:
        _load()
    key = _key(text)
    row = _store.rows.get(key)
    if row is not None:
        try:
            found = Statement(*row)
        except TypeError:  # a row of another shape: analysed anew
            pass
        else:
            _store.used.add(key)
            return found
    statement = analyse_text(text)
    if not _store.writable:
        return statement  # nothing will be saved: nothing to keep
    from dream.redact import contains_secret

    # A statement holds the entry's words: one with a secret in it is never kept. An entry of a
    # file with a secret anywhere in it is not kept either: this run rewrites that file redacted,
    # and the next one keeps the statements of its redacted words.
    if clean() if clean is not None else not contains_secret(text):
        _store.new[key] = tuple(getattr(statement, name) for name in _fields())
    return statement


def save() -> bool:
    """Write the file when this process analysed texts it lacked; True if written. An error leaves
    the file as it was: it costs only speed."""
    path = _store.path
    if path is None or not _store.writable or not _store.new:
        return False
    rows = {key: _store.rows[key] for key in _store.used}
    rows.update(_store.new)
    for key, row in _store.rows.items():
        if len(rows) >= _MAX_KEPT:
            break
        rows.setdefault(key, row)
    try:
        data = marshal.dumps({"version": _version(), "rows": rows})
    except ValueError:
        return False
    if not write_state_cache(path, data):
        return False
    _store.rows, _store.new, _store.used = rows, {}, set(rows)
    return True
