"""Compiled regular expressions kept between runs.

Python compiles every pattern anew in each process, in Python code (`re._parser`), and dream's rule
tables (secret formats, control-text forms, statement and rewrite rules) hold hundreds: a run pays
150-200 ms for it, and each digest worker pays it again. What the compiler produces is a list of
integers for the C engine; this module keeps those lists in one file in dream's state dir, under a
digest of each pattern's source (the file spells out no pattern), and hands them back to the
engine, which checks them itself before it accepts them (`_sre.compile` validates the code). A
pattern costs ~10 µs from the file against ~0.5 ms compiled.

Any doubt and the pattern is compiled as usual: another interpreter (the file name carries its
version), a file torn, foreign or unreadable, code the engine refuses, an interpreter whose `re`
internals moved. Where the file lives, who may write it and when: `regex_cache_file.py`. Standard
library only and no dream module: it is imported before everything that compiles a pattern.
"""

from __future__ import annotations

import marshal
import re
import sys
from array import array
from typing import Any, AnyStr

try:
    from _blake2 import blake2b  # hashlib loads OpenSSL first (~3 ms)
except ImportError:  # pragma: no cover - an interpreter without the C module
    from hashlib import blake2b

try:  # CPython 3.11+: the compiler's two halves, and the engine's constructor
    import _sre  # type: ignore[import-not-found]
    from re import _compiler, _parser  # type: ignore[attr-defined]

    _CODE_TYPE = next(t for t in "IL" if array(t).itemsize == _sre.CODESIZE)
    _ENGINE = f"{sys.version}|{_sre.MAGIC}|{_sre.CODESIZE}"
except (ImportError, AttributeError, StopIteration):  # pragma: no cover - 3.10 and other interpreters
    _compiler = None
    _ENGINE = ""

_FORMAT = 1
# Past this many kept patterns (a cache that outlived several versions of dream's tables) a save
# keeps only what this process used.
MAX_PATTERNS = 4000

# One entry: the flags the pattern ended with, its code (packed), the group count, names, and index.
Entry = tuple[int, bytes, int, dict[str, int], tuple[Any, ...]]
_Key = bytes  # a digest of the source and flags: the file never spells out a pattern


def _key(source: str | bytes, flags: int) -> _Key:
    if isinstance(source, str):
        raw, kind = source.encode("utf-8", "surrogatepass"), b"s"
    else:
        raw, kind = source, b"b"
    return blake2b(raw, digest_size=16, person=kind + flags.to_bytes(8, "little")).digest()


class _Cache:
    def __init__(self, stored: dict[_Key, Entry] | None) -> None:
        self.stored = stored  # None: no cache, `re.compile` as usual
        self.used: dict[_Key, Entry] = {}
        self.untaken: dict[_Key, Entry] = {}  # compiled here and not yet handed on (`take_new`)
        self.hits = 0
        self.misses = 0


_cache = _Cache(None)


def use(stored: dict[_Key, Entry] | None) -> None:
    """From now on build patterns from `stored` (what `parse` read) and keep what is compiled;
    None turns the cache off."""
    global _cache
    _cache = _Cache(stored if _compiler is not None else None)


def stats() -> tuple[int, int]:
    """(patterns built from the cache, patterns compiled) in this process since `use`."""
    return _cache.hits, _cache.misses


def compile(source: AnyStr, flags: int | re.RegexFlag = 0) -> re.Pattern[AnyStr]:
    """`re.compile`, from the cache when it holds this pattern."""
    cache = _cache
    if cache.stored is None:
        return re.compile(source, flags)
    key = _key(source, int(flags))
    entry = cache.used.get(key) or cache.stored.get(key)
    if entry is not None:
        try:
            built = _build(source, entry)
        except Exception:  # a foreign or damaged entry: compile it anew
            pass
        else:
            cache.used[key] = entry
            cache.hits += 1
            return built
    try:
        entry = _compile(source, int(flags))
        built = _build(source, entry)
    except re.error:
        raise
    except Exception:  # the internals moved: the public way from now on, uncached
        cache.stored = None
        return re.compile(source, flags)
    cache.used[key] = entry
    cache.untaken[key] = entry
    cache.misses += 1
    return built


def take_new() -> dict[_Key, Entry]:
    """What this process compiled since the last call: a forked worker hands it to its parent."""
    taken, _cache.untaken = _cache.untaken, {}
    return taken


def adopt(entries: dict[_Key, Entry]) -> None:
    """Keep what another process (a worker) compiled, to be saved with this process's own."""
    cache = _cache
    if cache.stored is None or not entries:
        return
    for key, entry in entries.items():
        cache.used.setdefault(key, entry)


def has_unsaved() -> bool:
    """Whether this process used a pattern the cache file (as last read or saved) lacks, or holds
    differently (an entry the engine refused, compiled anew)."""
    cache = _cache
    stored = cache.stored
    return stored is not None and any(stored.get(key) != entry for key, entry in cache.used.items())


def unsaved(on_disk: dict[_Key, Entry]) -> dict[_Key, Entry] | None:
    """What to write back: `on_disk` (the file as it is now) with what this process used, or None
    when there is nothing the file lacks."""
    cache = _cache
    if not has_unsaved():
        return None
    merged = dict(on_disk)
    merged.update(cache.used)
    return merged if len(merged) <= MAX_PATTERNS else dict(cache.used)


def saved(entries: dict[_Key, Entry]) -> None:
    _cache.stored = entries


def dump(entries: dict[_Key, Entry]) -> bytes:
    return marshal.dumps({"format": _FORMAT, "engine": _ENGINE, "patterns": entries})


def parse(data: bytes | None) -> dict[_Key, Entry]:
    """The entries of a cache file's bytes; {} for anything torn, foreign or from another build."""
    try:
        loaded = marshal.loads(data) if data else None
    except (ValueError, EOFError, TypeError):
        return {}
    if (
        not isinstance(loaded, dict)
        or loaded.get("format") != _FORMAT
        or loaded.get("engine") != _ENGINE
        or not isinstance(loaded.get("patterns"), dict)
    ):
        return {}
    return loaded["patterns"]  # type: ignore[no-any-return]


def _compile(source: str | bytes, flags: int) -> Entry:
    # What re._compiler.compile does, keeping the code it hands to the engine.
    parsed = _parser.parse(source, flags)
    code = _compiler._code(parsed, flags)
    names = dict(parsed.state.groupdict)
    index: list[str | None] = [None] * parsed.state.groups
    for name, at in names.items():
        index[at] = name
    packed = array(_CODE_TYPE, code).tobytes()
    return int(flags | parsed.state.flags), packed, parsed.state.groups - 1, names, tuple(index)


def _build(source: AnyStr, entry: Entry) -> re.Pattern[AnyStr]:
    final_flags, packed, groups, names, index = entry
    code = array(_CODE_TYPE)
    code.frombytes(packed)
    built: re.Pattern[AnyStr] = _sre.compile(source, final_flags, code.tolist(), groups, names, index)
    return built
