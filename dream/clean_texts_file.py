"""Where the record of clean memory texts (`clean_texts.py`) lives, and who may write it.

One file in dream's state dir (`Paths.clean_texts_file`), attached by the command line and written
back the way the compiled-pattern cache is (`regex_cache_file.py`): only by a command that writes
dream's state anyway, never by a dry run, and only when the process found a clean text the file
lacked. Nothing is read until a text is asked about. A missing, torn or foreign file means
redacting as usual.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dream import clean_texts
from dream.errors import DreamError
from dream.fsio import atomic_write_bytes, make_dirs, private_mode_for, read_regular


@dataclass
class _Attached:
    path: Path | None = None
    writable: bool = False


_attached = _Attached()


def attach(path: Path | None, *, writable: bool) -> None:
    """Use the record at `path` from now on (None: no record); `writable` lets `save` write it."""
    _attached.path, _attached.writable = path, writable
    clean_texts.use(None if path is None else lambda: _read(path))


def save() -> bool:
    """Write the record when this process found texts it lacked; True if written. An error leaves
    the file as it was: it costs only speed."""
    path = _attached.path
    if path is None or not _attached.writable:
        return False
    data = clean_texts.unsaved()
    claude_dir = path.parent.parent
    if data is None or not claude_dir.is_dir():
        return False  # a missing Claude dir is never made for a cache
    try:
        make_dirs(path.parent, state_root=claude_dir)
        mode = private_mode_for(path, state_root=claude_dir)
        atomic_write_bytes(path, data, mode=mode, durable=False)  # a cache lost in a crash costs time
    except (OSError, DreamError):
        return False
    clean_texts.saved(data)
    return True


def _read(path: Path) -> bytes:
    try:
        return read_regular(path)[0]  # never opens a FIFO or a device put in its place
    except (OSError, DreamError):
        return b""
