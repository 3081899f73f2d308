"""Same meaning (dream/matching.py) and what contradicts what (dream/contradiction.py), as tables."""

from __future__ import annotations

import pytest

from dream.contradiction import contradiction
from dream.matching import TermIndex, is_duplicate
from dream.statement import analyse, content_terms


@pytest.mark.parametrize(
    ("new", "old", "rejected", "explicit"),
    [
        ("Use pnpm, not npm.", "The project uses npm.", "npm", True),
        ("Switch from Celery to Dramatiq.", "Chose Celery for background jobs.", "celery", True),
        ("Celery is overkill here.", "Chose Celery for background jobs.", "celery", True),
        ("We use 4 spaces, not tabs, in every file.", "Prefers tabs for indentation.", "tabs", True),
        # Another member of an exclusive group, said without a word of change: implied only.
        ("Use spaces for indentation.", "Prefers tabs for indentation.", "tabs", False),
        ("we bumped minSdk to 26", "minSdk is 24", "minsdk 24", True),
        ("pinned to go 1.22", "go 1.21", "go 1.21", True),
        ("Dark mode: not doing it.", "We will do dark mode in v2.", "dark mode", True),
        # Said without a word of change: implied only, so a person reviews it.
        ("we use vitest", "Unit tests use jest.", "jest", False),
        # A complaint rejects by implication, never in so many words.
        ("you used npm again", "The project uses npm.", "npm", False),
    ],
)
def test_contradictions(new: str, old: str, rejected: str, explicit: bool) -> None:
    assert contradiction(analyse(new), analyse(old)) == (rejected, explicit)


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("Always use pnpm.", "Use pnpm for everything."),
        ("Run the tests for the billing service.", "Deploys go through the release pipeline."),
        ("Never commit straight to main.", "Never commit directly to main."),
    ],
)
def test_no_contradiction(new: str, old: str) -> None:
    assert contradiction(analyse(new), analyse(old)) is None


def test_agreement_never_supersedes() -> None:
    new = analyse("Don't pip install into the system python.")
    assert contradiction(new, analyse("Everything in here goes through uv.")) is None


@pytest.mark.parametrize(
    ("new", "old", "duplicate"),
    [
        ("Always use pnpm.", "Use pnpm for everything.", True),
        ("Never commit straight to main.", "Never commit directly to main.", True),
        ("Use pnpm, not npm.", "The project uses npm.", False),  # a contradiction is no duplicate
        (
            "Run the tests for the billing service with make test-billing.",
            "Run the tests for the search service with make test-search.",
            False,  # different subjects, however much wording they share
        ),
        ("Use Python 3.12 everywhere.", "Use Python 3.11 everywhere.", False),  # versions differ
    ],
)
def test_duplicates(new: str, old: str, duplicate: bool) -> None:
    assert is_duplicate(analyse(new), analyse(old)) is duplicate


def test_the_term_index_finds_every_duplicate_and_every_contradiction_candidate() -> None:
    memory = [
        "The project uses npm.",
        "Use pnpm for everything.",
        "Prefers tabs for indentation.",
        "Staging runs on Fly.io in fra.",
    ]
    index = TermIndex()
    for item, text in enumerate(memory):
        index.add(item, analyse(text))
    assert 0 in index.candidates(analyse("Use pnpm, not npm."))  # rejects what item 0 asserts
    assert 1 in index.candidates(analyse("Always use pnpm."))
    assert 2 in index.candidates(analyse("Use spaces for indentation."))  # a rival in its group
    assert 3 not in index.candidates(analyse("Use spaces for indentation."))


def test_content_terms_drop_stopwords_and_stem() -> None:
    assert content_terms("The tests are running") == content_terms("test run")
