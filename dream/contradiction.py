"""What contradicts what (DESIGN.md §5): B replaces A only when both speak of one subject and B's
choice excludes A's.

B contradicts A when
- it rejects what A chooses, where A puts its choice ("uses npm", not "pnpm lint" or "in all new
  Python code"), with a replacement ("pnpm, not npm", "switch from Celery to Dramatiq") or,
  without one, only when A is about that very thing ("Celery is overkill" against "Chose Celery
  for background jobs");
- it chooses another member of an exclusive group whose member A chooses (tabs vs spaces);
- it gives a named setting another value ("minSdk is 24" vs "we bumped minSdk to 26");
- it drops what A says will be done ("we will do dark mode" vs "dark mode: not doing it").
Agreement never contradicts: rejecting a rival of A's choice ("don't pip install" beside
"everything goes through uv") says the same thing. A complaint ("you used npm again") rejects
npm only by implication, so it never counts as an explicit change.
"""

from __future__ import annotations

from dream import regex_cache
from dream.statement import GROUP_OF, VERSION, Statement, is_key_term, stem

# Words that say a statement changes or asserts something, not what it is about: two entries
# differing only in these still speak of one subject.
_GENERIC = frozenset(
    stem(word)
    for word in [
        "project",
        "repo",
        "repository",
        "codebase",
        "code",
        "file",
        "files",
        "everywhere",
        "place",
        "team",
        "default",
        "whole",
        "entire",
        "new",
        "old",
        "now",
        "here",
        "all",
        "every",
        "also",
        "switch",
        "switched",
        "switching",
        "move",
        "moved",
        "moving",
        "migrate",
        "migrating",
        "migrated",
        "bump",
        "bumped",
        "pin",
        "pinned",
        "upgrade",
        "upgraded",
        "downgrade",
        "downgraded",
        "chose",
        "choose",
        "decided",
        "go",
        "goes",
        "went",
        "adopt",
        "adopted",
        "start",
        "started",
        "run",
        "runs",
        "prefer",
        "prefers",
        "pick",
        "picked",
        "stick",
        "stay",
        "instead",
        "rather",
        "favour",
        "favor",
        "replace",
        "replaced",
        "drop",
        "dropped",
        "ditch",
        "ditched",
        "remove",
        "removed",
        "ban",
        "banned",
        "overkill",
        "deprecated",
        "plain",
        "t",
        "don",
        "second",
        "seconds",
        "minute",
        "minutes",
        "hour",
        "hours",
        "day",
        "days",
        "ms",
        "kb",
        "mb",
        "gb",
        "percent",
        "ever",
        "never",
    ]
)


def group_conflict(new: Statement, old: Statement) -> set[str]:
    """Members of an exclusive group the old statement asserts and the new one asserts a rival of
    (any assertion: what matching needs to tell "use npm" from "use pnpm")."""
    conflicts = set()
    for term in new.positive:
        group = GROUP_OF.get(term)
        if group is None:
            continue
        for other in old.positive & group:
            if other != term and other not in new.positive:
                conflicts.add(other)
    return conflicts


def contradiction(new: Statement, old: Statement) -> tuple[str, bool] | None:
    """(the old key term the new statement rejects, whether the change is explicit), or None."""
    if not _scopes_differ(new, old):
        found = _rejection(new, old) or _rival(new, old)
        if found is not None:
            return found
        found = _setting_change(new, old)
        if found is not None and not _different_subjects(new, old):
            return found
    return _dropped_plan(new, old) or _subject_switch(new, old)


_PARTS = regex_cache.compile(r"[./_-]+")


def term_parts(term: str) -> set[str]:
    """The words of a compound term, stemmed: "sftp.cave-coop.internal" → sftp, cave, coop, …"""
    return {stem(part) for part in _PARTS.split(term) if part}


def departure(new: Statement, old: Statement) -> tuple[str, bool] | None:
    """The new statement says a name the old one uses is gone ("we finished moving off
    Contentful" against "Content comes from Contentful via the GraphQL API"): every word of the
    name is in the old entry. An old entry that refuses the name itself, or says it is gone too,
    agrees. (A name the new statement names again after it, "moved from Redis 6 to Redis 7", is
    not gone: `statement` does not count it.)

    Judged against what memory held before the run, not against this window's own rules: a
    rule of the week that names the thing in passing (an example commit message that mentions
    the SFTP parser) is not a fact about it."""
    if not new.departed:
        return None
    agreeing = {term for name in old.refused + old.departed for term in name}
    # "sftp" is in "sftp.cave-coop.internal", "contentful" in "lib/contentful.ts"
    has = old.terms | {part for term in old.terms if not term.isalnum() for part in term_parts(term)}
    for name in new.departed:
        if not all(term in has for term in name) or agreeing & set(name):
            continue
        if all(term in _GENERIC or term.replace(".", "").isdigit() for term in name):
            continue
        return " ".join(name), True
    return None


def _rejection(new: Statement, old: Statement) -> tuple[str, bool] | None:
    """The new statement rejects what the old one chooses, where the old one puts its choice
    ("uses AWS", not "numeric(12,2) in Postgres" nor "pnpm lint").

    With a rival from the term's exclusive group ("pnpm, not npm") the group is the subject. A
    replacement from outside any group ("Hetzner over AWS for the build runners") must speak of
    what the old entry speaks of. A bare "not X" (no replacement) replaces only an entry about X."""
    for term in sorted(new.negative & old.objects - new.qualified):
        if VERSION.match(term):
            continue  # a version of what? _setting_change judges versions with their names
        rivals = GROUP_OF.get(term, frozenset()) - {term}
        if not rivals & new.positive:
            if new.replaces:
                if _different_subjects(new, old) or (new.scope and new.scope.isdisjoint(old.terms)):
                    continue
            elif not _about(old, term):
                continue
        return term, term not in new.complained
    return None


def _about(old: Statement, term: str) -> bool:
    """The entry's choice is `term` (a version of it aside): "Chose Celery for background jobs"."""
    return all(VERSION.match(other) for other in old.objects - {term})


def _rival(new: Statement, old: Statement) -> tuple[str, bool] | None:
    """The new statement chooses another member of a group whose member the old one chooses."""
    conflicts = set()
    # An old entry naming both members kept both ("MongoDB for the event logs and Postgres for the
    # rest"): "our Postgres is 14.9" says nothing against it.
    for term in new.objects - old.positive:
        group = GROUP_OF.get(term)
        if group is not None:
            conflicts |= {other for other in old.objects & group if other not in new.chosen}
    if conflicts:
        return sorted(conflicts)[0], new.explicit_change
    return None


def _setting_change(new: Statement, old: Statement) -> tuple[str, bool] | None:
    """One named setting, another value: "minSdk is 24" vs "minSdk 26", "go 1.21" vs "go 1.22"."""
    before = dict(old.settings)
    for name, values in new.settings:
        # Only values of one kind compare: "API v1" and "the API on 8080" set different things.
        if name in before and values.isdisjoint(before[name]) and _kinds(values) & _kinds(before[name]):
            return f"{name} {sorted(before[name])[0]}", new.explicit_change
    return None


def changes_a_setting(new: Statement, old: Statement) -> bool:
    """The new statement says a setting of the old one changed ("we bumped the minimum iOS
    version to 15.0" against "Minimum supported iOS version is 13.0"): news, as a departure is."""
    found = _setting_change(new, old)
    return found is not None and found[1]


def _kinds(values: frozenset[str]) -> set[str]:
    return {"v" if v.startswith("v") else "dotted" if "." in v else "whole" for v in values}


def _dropped_plan(new: Statement, old: Statement) -> tuple[str, bool] | None:
    """The new statement drops what the old one says is done or will be ("not doing X")."""
    for drop in new.drops:
        dropped = set(drop)
        for plan in old.plans:
            shared = dropped.intersection(plan)
            if all(is_key_term(t) for t in shared):
                continue  # tools and versions: the rules above judge those, choice and all
            if len(shared) * 2 >= len(dropped | set(plan)):
                return " ".join(t for t in plan if t in shared), True
    return None


def _subject_switch(new: Statement, old: Statement) -> tuple[str, bool] | None:
    """The new statement switches a subject the old one sets, to something the old one does not
    name: "We're switching the evaluation holdout to the Q2 2024 cohort" against "The holdout is
    the March 2024 snapshot cohort". Three words of subject in common (or two that are a quarter of
    all they say), and something of the old one's own gone from the new one."""
    if not new.replaces or new.complained:
        return None
    rest_new, rest_old = _rest(new), _rest(old)
    shared = rest_new & rest_old
    if len(shared) < 2 or (len(shared) == 2 and len(shared) * 4 < len(rest_new | rest_old)):
        return None
    given_up = sorted(old.keys - new.keys - new.positive) or sorted(
        rest_old - rest_new, key=lambda t: (-len(t), t)
    )
    if not given_up:
        return None  # nothing of the old one is given up: a restatement, or a refinement
    return given_up[0], True


def _scopes_differ(new: Statement, old: Statement) -> bool:
    """Each names what its choice is for, and they share nothing: "vitest for the frontend" vs
    "jest for the API tests" are two choices, not one changed."""
    return bool(new.scope and old.scope and new.scope.isdisjoint(old.scope))


def _different_subjects(new: Statement, old: Statement) -> bool:
    """Each says two or more things of its own the other does not: "HTTP client timeout 30" and
    "DB query timeout 5" set two timeouts. (A tool's rival needs no such check: the exclusive
    group is the subject.)"""
    rest_new, rest_old = _rest(new), _rest(old)
    return len(rest_new) >= 2 and len(rest_old) >= 2 and rest_new.isdisjoint(rest_old)


def _rest(statement: Statement) -> frozenset[str]:
    """Content terms beyond the key terms, setting names, numbers and words of change."""
    names = {name for name, _ in statement.settings}
    return frozenset(
        t
        for t in statement.terms - statement.keys - names
        if len(t) > 1 and t not in _GENERIC and not t.replace(".", "").isdigit()
    )
