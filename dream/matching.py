"""Same meaning: two statements that say one thing (DESIGN.md §5: never duplicate).

Two statements are duplicates when their content terms overlap enough and their key terms agree
(no version, tool or exclusive choice differs, and neither rejects what the other asserts).
`TermIndex` finds the candidates fast, for duplicates and for contradictions alike.
"""

from __future__ import annotations

from collections import defaultdict

from dream.contradiction import group_conflict, term_parts
from dream.statement import GROUP_OF, VERSION, Statement, is_key_term, specific_terms


def similarity(a: Statement, b: Statement) -> float:
    """Jaccard over content terms, key terms counted twice."""
    if not a.terms or not b.terms:
        return 0.0
    shared = a.terms & b.terms
    union = a.terms | b.terms
    bonus = len(shared & (a.keys | b.keys))
    return (len(shared) + bonus) / (len(union) + bonus)


def is_duplicate(new: Statement, old: Statement, threshold: float = 0.5) -> bool:
    if new.negative & old.positive or old.negative & new.positive:
        return False
    if group_conflict(new, old):
        return False
    versions_new = {k for k in new.keys if VERSION.match(k)}
    versions_old = {k for k in old.keys if VERSION.match(k)}
    if versions_new and versions_old and versions_new != versions_old:
        return False
    score = similarity(new, old)
    # Two rules that each name something the other does not ("billing" / "search") are about
    # different subjects, however much wording they share, unless nearly all of it is shared.
    if score < 0.75 and _different_subjects(new.terms - old.terms, old.terms - new.terms):
        return False
    if score >= threshold:
        return True
    # A short restatement whose every content word is in the old entry ("pnpm only" vs a long rule).
    smaller, larger = (new, old) if len(new.terms) <= len(old.terms) else (old, new)
    return (
        len(smaller.terms) >= 2
        and smaller.terms <= larger.terms
        and bool(smaller.keys & larger.keys or specific_terms(smaller.terms) & specific_terms(larger.terms))
    )


def is_sibling(new: Statement, old: Statement) -> bool:
    """Another side of one rule: both reject the same tool or choose the same one ("we never use
    fp16 here" and "bf16-mixed everywhere; fp16 gave us the loss spikes"), and neither says
    what the other's choice excludes."""
    if new.negative & old.positive or old.negative & new.positive or group_conflict(new, old):
        return False
    shared = (new.negative & old.negative) | (new.chosen & old.chosen)
    if any(is_key_term(term) and not VERSION.match(term) for term in shared):
        return True
    # A specific name both speak of ("fp16", "go.mod"), neither naming another specific thing of
    # its own: one subject.
    mine, theirs = specific_terms(new.terms), specific_terms(old.terms)
    common = mine & theirs
    return bool(common) and not (mine - common and theirs - common)


def _different_subjects(only_new: frozenset[str], only_old: frozenset[str]) -> bool:
    """Each side names something specific the other does not: a path, an identifier, a tool,
    or several words of its own ("billing service, docs/billing.md" vs "search service, …")."""
    if not only_new or not only_old:
        return False

    def specific(term: str) -> bool:
        return not term.isalpha() or is_key_term(term)

    if any(map(specific, only_new)) and any(map(specific, only_old)):
        return True
    return len(only_new) >= 2 and len(only_old) >= 2


class TermIndex:
    """Inverted index from terms to items, so matching costs what the shared terms cost."""

    def __init__(self) -> None:
        self._postings: dict[str, list[int]] = defaultdict(list)
        self._positive: dict[str, list[int]] = defaultdict(list)
        self._settings: dict[str, list[int]] = defaultdict(list)
        # The parts of a compound term ("sftp" of "sftp.cave-coop.internal"): what a departure names.
        self._parts: dict[str, list[int]] = defaultdict(list)
        self._sizes: dict[int, int] = {}

    def add(self, item: int, statement: Statement) -> None:
        self._sizes[item] = max(1, len(statement.terms))
        for term in statement.terms:
            self._postings[term].append(item)
        for term in statement.positive:
            self._positive[term].append(item)
        for name, _ in statement.settings:
            self._settings[name].append(item)
        for term in statement.terms:
            if not term.isalnum():
                for part in term_parts(term):
                    self._parts[part].append(item)

    def candidates(self, statement: Statement) -> set[int]:
        """Items that could be a duplicate of the statement or contradict it; a superset, cheap.

        A duplicate shares at least a third of the statement's terms, or all of its own (a short
        restatement): items sharing fewer are never compared. A contradiction needs an item that
        asserts a term the statement rejects, a rival of a term it asserts, or the same named
        setting: those come from their own postings, whatever the overlap.
        """
        # Terms that half of memory shares say little and cost much: count over the rarer ones
        # (at least the rarest), and let is_duplicate judge the full overlap afterwards.
        postings = sorted((self._postings.get(term, []) for term in statement.terms), key=len)
        cap = max(64, len(self._sizes) // 50)
        considered = [p for p in postings if len(p) <= cap] or postings[:1]
        shared: dict[int, int] = defaultdict(int)
        for posting in considered:
            for item in posting:
                shared[item] += 1
        need = max(1, -(-len(considered) // 3))
        sizes = self._sizes
        found = {item for item, n in shared.items() if n >= need or n >= sizes[item]}
        for term in statement.negative:
            found.update(self._positive.get(term, ()))
        for departed in statement.departed:  # "Contentful is gone": whatever else the entry says
            found.update(self._postings.get(departed[0], ()))
            found.update(self._parts.get(departed[0], ()))
        # Another value of one named setting ("minSdk is 24" vs a long message bumping it to 26)
        for name, _ in statement.settings:
            found.update(self._settings.get(name, ()))
        for term in statement.positive:
            group = GROUP_OF.get(term)
            if group:
                for member in group - {term}:
                    found.update(self._positive.get(member, ()))
        return found
