"""Where the record of clean memory texts (`clean_texts.py`) lives, and who may write it.

One file in dream's state dir (`Paths.clean_texts_file`), attached by the command line and written
back the way the compiled-pattern cache is (`regex_cache_file.py`): only by a command that writes
dream's state anyway, never by a dry run, and only when the process found a clean text the file
lacked. Nothing is read until a text is asked about. A missing, torn or foreign file means
redacting as usual.
"""

from __future__ import annotations

from pathlib import Path

from dream import clean_texts
from dream.fsio import AttachedCache, read_state_cache, write_state_cache

_attached = AttachedCache()


def attach(path: Path | None, *, writable: bool) -> None:
    """Use the record at `path` from now on (None: no record); `writable` lets `save` write it."""
    _attached.path, _attached.writable = path, writable
    clean_texts.use(None if path is None else lambda: read_state_cache(path))


def save() -> bool:
    """Write the record when this process found texts it lacked; True if written. An error leaves
    the file as it was: it costs only speed."""
    path = _attached.path
    if path is None or not _attached.writable:
        return False
    data = clean_texts.unsaved()
    if data is None or not write_state_cache(path, data):
        return False
    clean_texts.saved(data)
    return True
