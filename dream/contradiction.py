"""What contradicts what (DESIGN.md §5): B replaces A only when both speak of one subject and B's
choice excludes A's.

A new statement contradicts an old one when it names one of the old one's key terms negatively
("pnpm, not npm", "switch from Celery to Dramatiq", "Celery is overkill"), or asserts another
member of the same exclusive group (tabs vs spaces). Agreement never contradicts.
"""

from __future__ import annotations

from dream.statement import GROUP_OF, Statement


def group_conflict(new: Statement, old: Statement) -> set[str]:
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
    rejected = new.negative & old.positive
    if rejected:
        return sorted(rejected)[0], True
    conflicts = group_conflict(new, old)
    if conflicts:
        return sorted(conflicts)[0], new.explicit_change
    return None
