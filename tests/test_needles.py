"""The one-pass needle scan shared by the cue scanner, control text and redaction."""

from __future__ import annotations

import random
import re

from dream.needles import NeedleScan, by_needle, trie_pattern


def test_the_trie_matches_exactly_its_words_longest_first() -> None:
    words = ["tan", "token", "tok", "to", "pushtan", "[", "a.b"]
    pattern = re.compile(f"(?:{trie_pattern(words)})")
    for word in words:
        assert pattern.fullmatch(word)
    assert pattern.match("tokens").group(0) == "token"
    assert not pattern.fullmatch("t") and not pattern.fullmatch("axb")


def test_owners_of_every_needle_in_the_text_and_of_the_shorter_ones_inside_it() -> None:
    scan = NeedleScan(by_needle({"a": ["pass", "passwd"], "b": ["pass"], "c": ["word"], "d": ["sk"]}))
    # "passwd" is the longest needle at its position: it stands for "pass" too; "word" starts elsewhere.
    assert scan.owners("my passwd here") == {"a", "b"}
    assert scan.owners("password") == {"a", "b", "c"}
    assert scan.owners("task") == {"d"}
    assert scan.owners("nothing") == frozenset()


def test_a_needle_inside_another_is_found_wherever_it_starts() -> None:
    """Checked against a plain `in` for every needle, on random texts built from needles and noise."""
    rng = random.Random(3)
    needles = ["ab", "abc", "bc", "c", "cab", "ba", "xyz", "y"]
    scan = NeedleScan({needle: [needle] for needle in needles})
    for _ in range(500):
        text = "".join(rng.choice([*needles, "q", " ", "-"]) for _ in range(rng.randrange(1, 12)))
        assert scan.owners(text) == {n for n in needles if n in text}, text


def test_needles_are_spelled_as_the_text_is_folded() -> None:
    fold = str.maketrans("о", "o")  # a Cyrillic o, as control text folds it
    scan = NeedleScan({"пoльзoвaтель": ["user"], "оk": ["ok"]}, fold=lambda n: n.translate(fold))
    assert scan.owners("оk") == frozenset()  # the text is folded before it is scanned
    assert scan.owners("ok") == {"ok"}
    assert "ok" in scan.needles


def test_hits_are_every_place_a_needle_starts() -> None:
    """The folded redaction rules are tried only where `hits` says: it must report each place of each
    needle (checked against `str.find` on random texts)."""
    rng = random.Random(5)
    needles = ["key=", "key", "ey", "pass", "as", "s"]
    scan = NeedleScan({needle: [needle] for needle in needles})
    for _ in range(300):
        text = "".join(rng.choice([*needles, "x", " ", "="]) for _ in range(rng.randrange(1, 15)))
        found = {(at, owner) for at, owners in scan.hits(text) for owner in owners}
        expected = {(i, n) for n in needles for i in range(len(text)) if text.startswith(n, i)}
        assert found == expected, text
