"""Which of many literal needles occur in a text, in one pass (standard library only).

The cue groups of the signal model, the intents of control text and the families of unsafe rules
each run a costly regex only where one of their literal words is present. Looking for hundreds of
words one `in` at a time costs more than the regexes they guard; one lookahead scan over a trie of
all of them finds every needle that starts at each position.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from dream import regex_cache


def trie_pattern(words: Iterable[str]) -> str:
    """A regex matching any of the words, factored by common prefix so the engine tries a
    handful of first characters at each position instead of every word; longest match first."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    escaped: dict[str, str] = {}  # re.escape costs a microsecond a call, and a trie has thousands

    def escape(char: str) -> str:
        found = escaped.get(char)
        if found is None:
            found = escaped[char] = char if char.isalnum() and char.isascii() else re.escape(char)
        return found

    def emit(node: dict[str, Any]) -> str:
        branches = [escape(char) + emit(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(trie)


class NeedleScan:
    """The owners (cue, intent, family names) of the needles found in a text. Compiled on first
    use: a process that never looks pays nothing."""

    __slots__ = ("__weakref__", "_implied", "_needles", "_scan")

    def __init__(
        self, owners_by_needle: Mapping[str, Iterable[str]], fold: Callable[[str], str] | None = None
    ) -> None:
        # `fold`: how the texts looked in are spelled (control text folds look-alike letters), so
        # each needle is spelled that way too.
        self._needles: dict[str, frozenset[str]] = {}
        for needle, owners in owners_by_needle.items():
            key = fold(needle) if fold else needle
            if key:
                self._needles[key] = self._needles.get(key, frozenset()) | frozenset(owners)
        self._scan: re.Pattern[str] | None = None
        self._implied: dict[str, frozenset[str]] = {}
        _CREATED.add(self)

    def _compile(self) -> re.Pattern[str]:
        # The scan reports the longest needle at a position; the shorter ones found there are its
        # prefixes, so each needle stands for the owners of all its prefixes.
        self._implied = {
            needle: frozenset().union(
                *(self._needles.get(needle[:end], ()) for end in range(1, len(needle) + 1))
            )
            for needle in self._needles
        }
        self._scan = regex_cache.compile(f"(?=({trie_pattern(self._needles)}))")
        return self._scan

    def compile(self) -> None:
        """Compile the scan now (`regex_cache_file.warm`), not on first use."""
        if self._scan is None:
            self._compile()

    @property
    def needles(self) -> tuple[str, ...]:
        return tuple(sorted(self._needles))

    def hits(self, text: str) -> Iterator[tuple[int, frozenset[str]]]:
        """Each position where a needle starts, with the owners of the needles found there."""
        scan = self._scan or self._compile()
        implied = self._implied
        for match in scan.finditer(text):
            yield match.start(), implied[match.group(1)]

    def owners(self, text: str) -> frozenset[str]:

        scan = self._scan or self._compile()
        return frozenset().union(*map(self._implied.__getitem__, set(scan.findall(text))))


def by_needle(needles_by_owner: Mapping[str, Iterable[str]]) -> dict[str, set[str]]:
    """Invert {owner: needles} into {needle: owners}."""
    inverted: dict[str, set[str]] = {}
    for owner, needles in needles_by_owner.items():
        for needle in needles:
            inverted.setdefault(needle, set()).add(owner)
    return inverted


_CREATED: weakref.WeakSet[NeedleScan] = weakref.WeakSet()


def every_scan() -> list[NeedleScan]:
    return list(_CREATED)
