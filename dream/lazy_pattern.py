"""A regular expression compiled the first time it is used.

Python compiles every pattern anew in each process, and dream's rule tables (secret formats,
control-text intents) hold hundreds: compiling them all costs a warm run a fifth of its time,
while a run meets few of them (each waits behind a literal prefilter). Standard library only.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterator

from dream import regex_cache


class LazyPattern:
    __slots__ = ("__weakref__", "_compiled", "_flags", "_source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None
        _CREATED.add(self)

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = regex_cache.compile(self._source, self._flags)
        return self._compiled

    @property
    def pattern(self) -> str:
        return self._source

    def search(self, string: str, pos: int = 0, endpos: int = 2**63 - 1) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = 2**63 - 1) -> re.Match[str] | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = 2**63 - 1) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int = 2**63 - 1) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = 2**63 - 1) -> list[str]:
        return self.compiled.findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)


# Every pattern made, so that `regex_cache_file.warm` can compile them all ahead of a first run.
_CREATED: weakref.WeakSet[LazyPattern] = weakref.WeakSet()


def every_pattern() -> list[LazyPattern]:
    return list(_CREATED)
