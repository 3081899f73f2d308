"""Where the compiled-pattern cache (`regex_cache.py`) lives, and who may write it.

One file in dream's state dir per interpreter build (`Paths.regex_cache_file`). The command line
attaches it before importing the modules whose rule tables it serves. Only a command that writes
dream's state anyway may write it (`run`, `signals`, `apply`; never with `--dry-run`; `plan` and
`status` leave the state dir as they found it), and only when the process compiled a pattern the
file lacked. A forked digest worker hands what it compiled to the process that started it
(`digest._build_chunk_in_worker`), which writes it with its own: one process writes, once.
"""

from __future__ import annotations

from pathlib import Path

from dream import regex_cache
from dream.fsio import AttachedCache, read_state_cache, write_state_cache

_attached = AttachedCache()


def attach(path: Path | None, *, writable: bool) -> None:
    """Build patterns from the cache file at `path` from now on (None: no cache); `writable` lets
    `save` write it back."""
    _attached.path, _attached.writable = path, writable
    regex_cache.use(None if path is None else _read(path))


def save() -> bool:
    """Write back what this process compiled, merged with the file as it is now; True if written.

    The state dir is made if it is missing (as private as the Claude dir above it); a missing
    Claude dir is never made for a cache. An error leaves the file as it was: it costs only speed.
    """
    path = _attached.path
    if path is None or not _attached.writable or not regex_cache.has_unsaved():
        return False  # (most runs: every pattern came from the file, which is then not read again)
    if not path.parent.parent.is_dir():
        return False
    entries = regex_cache.unsaved(_read(path))
    if entries is None or not write_state_cache(path, regex_cache.dump(entries)):
        return False
    regex_cache.saved(entries)
    return True


def _read(path: Path) -> dict[bytes, regex_cache.Entry]:
    return regex_cache.parse(read_state_cache(path))


def warm(path: Path) -> int:
    """Compile every rule pattern into the cache file at `path` now (install.py runs it, so that a
    person's first run does not compile them); the number of patterns compiled."""
    import importlib
    import pkgutil

    import dream
    from dream.lazy_pattern import every_pattern
    from dream.needles import every_scan

    attach(path, writable=True)
    for module in pkgutil.walk_packages(dream.__path__, "dream."):
        if module.name != "dream.__main__":  # every module's patterns: a run imports most of them
            importlib.import_module(module.name)
    for pattern in every_pattern():
        pattern.compiled  # noqa: B018 - compiling is the point
    for scan in every_scan():
        scan.compile()
    compiled = regex_cache.stats()[1]
    save()
    return compiled
