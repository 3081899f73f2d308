"""dream/dates.py: relative dates become absolute against the message's own day (DESIGN.md §5)."""

from __future__ import annotations

import time
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dream.dates import DateFix, absolutize, find_relative_dates, has_relative_date

SUN = date(2026, 3, 15)  # a Sunday: the week of 2026-03-09, the previous week of 2026-03-02
WED = date(2026, 3, 11)

CASES: list[tuple[str, date, str]] = [
    # The two examples of DESIGN.md §5 and the issue.
    ("yesterday we decided to use uv", SUN, "on 2026-03-14 we decided to use uv"),
    (
        "we moved CI to GitHub Actions last week",
        SUN,
        "we moved CI to GitHub Actions in the week of 2026-03-02",
    ),
    ("Yesterday we decided to use uv.", SUN, "On 2026-03-14 we decided to use uv."),
    ("Last week we moved CI.", SUN, "In the week of 2026-03-02 we moved CI."),
    # Single days.
    ("we shipped it today", SUN, "we shipped it on 2026-03-15"),
    ("I'll deploy tomorrow", SUN, "I'll deploy on 2026-03-16"),
    ("the day before yesterday the cache broke", SUN, "on 2026-03-13 the cache broke"),
    ("The day after tomorrow is the freeze", SUN, "2026-03-17 is the freeze"),
    ("we rotated keys earlier today", SUN, "we rotated keys earlier on 2026-03-15"),
    ("tonight the backup runs", SUN, "on the night of 2026-03-15 the backup runs"),
    ("this morning the build broke", SUN, "on the morning of 2026-03-15 the build broke"),
    ("We paired this afternoon", SUN, "We paired on the afternoon of 2026-03-15"),
    ("this evening I fixed it", SUN, "on the evening of 2026-03-15 I fixed it"),
    ("yesterday evening prod went down", SUN, "on the evening of 2026-03-14 prod went down"),
    ("last night the job died", SUN, "on the night of 2026-03-14 the job died"),
    # Amounts, in words and in digits.
    ("two days ago we switched to pnpm", SUN, "on 2026-03-13 we switched to pnpm"),
    ("we switched 3 weeks ago", SUN, "we switched in the week of 2026-02-16"),
    ("a week ago", SUN, "in the week of 2026-03-02"),
    ("six months ago we left Heroku", SUN, "in 2025-09 we left Heroku"),
    ("a year ago", SUN, "in 2025"),
    ("the cert expires in 30 days", SUN, "the cert expires on 2026-04-14"),
    ("we'll migrate in 2 weeks", SUN, "we'll migrate in the week of 2026-03-23"),
    ("the release is in two weeks' time", SUN, "the release is in the week of 2026-03-23"),
    ("we revisit it in three months", SUN, "we revisit it in 2026-06"),
    ("two weeks from now", SUN, "in the week of 2026-03-23"),
    # Vague or hedged amounts keep their vagueness but gain the anchor.
    ("a few days ago the tests got flaky", SUN, "a few days before 2026-03-15 the tests got flaky"),
    ("about two weeks ago", SUN, "about two weeks before 2026-03-15"),
    ("in a week or so", SUN, "a week or so after 2026-03-15"),
    ("The other day Sam said so", SUN, "A few days before 2026-03-15 Sam said so"),
    # Calendar units.
    ("this week we froze deploys", SUN, "in the week of 2026-03-09 we froze deploys"),
    ("next week we start", SUN, "in the week of 2026-03-16 we start"),
    ("last weekend the disk filled up", SUN, "on the weekend of 2026-03-07 the disk filled up"),
    ("last month we left AWS", SUN, "in 2026-02 we left AWS"),
    ("this month", SUN, "in 2026-03"),
    ("next month the price goes up", SUN, "in 2026-04 the price goes up"),
    ("later this month", SUN, "later in 2026-03"),
    ("last year we used Jenkins", SUN, "in 2025 we used Jenkins"),
    ("next year", SUN, "in 2027"),
    # Weekdays: last = strictly before, next = strictly after, this = the anchor's week.
    ("last Friday", SUN, "on 2026-03-13"),
    ("last Wednesday", WED, "on 2026-03-04"),
    ("next Tuesday", SUN, "on 2026-03-17"),
    ("next Wednesday", WED, "on 2026-03-18"),
    ("this Thursday", WED, "on 2026-03-12"),
    ("this coming Monday", WED, "on 2026-03-16"),
    ("we deployed on Monday", WED, "we deployed on 2026-03-09"),
    ("we will deploy on Monday", WED, "we will deploy on 2026-03-16"),
    ("let's merge it on Friday", WED, "let's merge it on 2026-03-13"),
    ("last Friday night", SUN, "on the night of 2026-03-13"),
    ("on Monday morning the alerts fired", WED, "on the morning of 2026-03-09 the alerts fired"),
    # Grammar: prepositions, coordination, subjects, possessives.
    ("broken since yesterday", SUN, "broken since 2026-03-14"),
    ("due by next week", SUN, "due by the week of 2026-03-16"),
    ("as of today", SUN, "as of 2026-03-15"),
    ("between yesterday and today", SUN, "between 2026-03-14 and 2026-03-15"),
    ("yesterday and today we paired", SUN, "on 2026-03-14 and 2026-03-15 we paired"),
    ("Yesterday was hectic", SUN, "2026-03-14 was hectic"),
    ("yesterday's deploy failed", SUN, "the 2026-03-14 deploy failed"),
    ("Last week's retro", SUN, "The week-of-2026-03-02 retro"),
    ("last month's numbers", SUN, "the 2026-02 numbers"),
    ("on Monday's call", WED, "on the 2026-03-09 call"),
    # Boundaries and leap days.
    ("yesterday", date(2026, 1, 1), "on 2025-12-31"),
    ("last month", date(2026, 1, 15), "in 2025-12"),
    ("last week", date(2026, 1, 1), "in the week of 2025-12-22"),
    ("last year", date(2026, 1, 1), "in 2025"),
    ("tomorrow", date(2025, 12, 31), "on 2026-01-01"),
    ("yesterday", date(2024, 3, 1), "on 2024-02-29"),
    ("tomorrow", date(2024, 2, 28), "on 2024-02-29"),
    ("a year ago", date(2024, 2, 29), "in 2023"),
    ("last month", date(2024, 3, 31), "in 2024-02"),
    ("in a month", date(2024, 1, 31), "in 2024-02"),
]

UNCHANGED = [
    "recently we moved to uv",
    "we are currently on Postgres 16",
    "now the tests pass",
    "nowadays everyone uses ruff",
    "todays_total is off by one",
    "set yesterday_count to zero",
    "we track tasks on Monday.com",
    "every Monday we sync",
    "standups are on Mondays",
    "we usually deploy on Friday",
    "over the last week the build got slower",
    "the next Monday of the month",
    "we finished the migration in two days",
    "call `yesterday()` to get the date",
    "```\nlast_week = today - 7\n```",
    "see https://example.com/today/last-week for details",
    "the meeting is on 2026-03-14",
    "- [2026-03-15] Use pnpm. (source: session 2026-03-15 abcd1234, confidence: high)",
    "can you finish it by Friday",
    "Gestern haben wir das entschieden.",
    "昨日、CIをGitHub Actionsに移した。",
    "",
]


@pytest.mark.parametrize(("text", "anchor", "expected"), CASES)
def test_table(text: str, anchor: date, expected: str) -> None:
    out, fixes = absolutize(text, anchor)
    assert out == expected
    assert fixes
    assert find_relative_dates(text) == [fix.phrase for fix in fixes]
    assert has_relative_date(text)
    assert not has_relative_date(out)


def test_table_is_large() -> None:
    assert len(CASES) >= 40


@pytest.mark.parametrize("text", UNCHANGED)
def test_left_alone(text: str) -> None:
    assert absolutize(text, SUN) == (text, [])
    assert find_relative_dates(text) == []
    assert not has_relative_date(text)


def test_fixes_describe_each_change() -> None:
    out, fixes = absolutize("Yesterday we froze deploys; last week we moved CI.", SUN)
    assert out == "On 2026-03-14 we froze deploys; in the week of 2026-03-02 we moved CI."
    assert fixes == [
        DateFix("Yesterday", "On 2026-03-14"),
        DateFix("last week", "in the week of 2026-03-02"),
    ]


def test_code_is_protected_but_prose_around_it_is_not() -> None:
    out, _ = absolutize("yesterday `today()` broke", SUN)
    assert out == "on 2026-03-14 `today()` broke"


def test_an_entry_anchor_is_respected() -> None:
    text = "Moved CI to GitHub Actions last week."
    assert absolutize(text, date(2026, 1, 7))[0] == "Moved CI to GitHub Actions in the week of 2025-12-29."


def test_out_of_range_dates_are_left_alone() -> None:
    assert absolutize("tomorrow", date.max) == ("tomorrow", [])
    assert absolutize("yesterday", date.min) == ("yesterday", [])


def test_fast_without_dates() -> None:
    sentence = "Please always run the formatter before committing anything to this repository."
    absolutize(sentence, SUN)
    start = time.perf_counter()
    for _ in range(2000):
        absolutize(sentence, SUN)
    per_call = (time.perf_counter() - start) / 2000
    assert per_call < 100e-6  # ~2 µs measured; generous for slow CI machines


# --- properties ------------------------------------------------------------------------------------

PHRASES = [
    "yesterday",
    "Yesterday",
    "today",
    "tonight",
    "tomorrow",
    "this morning",
    "this afternoon",
    "this evening",
    "earlier today",
    "the day before yesterday",
    "the day after tomorrow",
    "yesterday's",
    "last night",
    "last week",
    "Last week's",
    "next week",
    "this week",
    "last weekend",
    "last month",
    "next month",
    "this month",
    "last year",
    "next year",
    "this year",
    "on Monday",
    "last Friday",
    "next Tuesday",
    "this Thursday",
    "this coming Sunday",
    "Saturday evening",
    "the other day",
    "a few days ago",
    "a couple of weeks ago",
    "in a week or so",
    "two weeks from now",
    "in two weeks' time",
]
FILLER = [
    "we",
    "moved",
    "CI",
    "to",
    "GitHub",
    "the",
    "a",
    "on",
    "in",
    "and",
    "or",
    "since",
    "by",
    "every",
    "usually",
    "will",
    "finished",
    "is",
    "was",
    "about",
    "recently",
    "now",
    "currently",
    "nowadays",
    "todays_total",
    "Monday",
    "Mondays",
    "Monday.com",
    "days",
    "weeks",
    "ago",
    "`yesterday`",
    "https://example.com/last-week",
    "2026-03-14",
    ".",
    ",",
    ";",
    "\n",
    "über",
    "昨日",
    "déploiement",
]
UNITS = ["day", "days", "week", "weeks", "month", "months", "year", "years"]
NUMBERS = st.one_of(
    st.integers(min_value=1, max_value=999).map(str), st.sampled_from(["a", "one", "two", "twelve"])
)
AMOUNTS = st.builds(
    lambda n, unit, form: form.format(f"{n} {unit}"),
    NUMBERS,
    st.sampled_from(UNITS),
    st.sampled_from(["{} ago", "in {}", "{} from now"]),
)
TOKENS = st.one_of(st.sampled_from(PHRASES), st.sampled_from(FILLER), AMOUNTS)
SENTENCES = st.lists(TOKENS, max_size=14).map(" ".join)
# Far enough from year 1 and 9999 that "999 years ago" / "in 999 years" still fit.
ANCHORS = st.dates(min_value=date(1001, 1, 1), max_value=date(8999, 12, 31))


@settings(max_examples=400)
@given(SENTENCES, ANCHORS)
def test_idempotent_and_nothing_left(text: str, anchor: date) -> None:
    out, fixes = absolutize(text, anchor)
    assert absolutize(out, anchor) == (out, [])
    assert find_relative_dates(out) == []
    assert find_relative_dates(text) == [fix.phrase for fix in fixes]
    assert (out == text) == (not fixes)


@settings(max_examples=300)
@given(st.text(), ANCHORS)
def test_any_text_is_safe(text: str, anchor: date) -> None:
    out, _ = absolutize(text, anchor)
    assert absolutize(out, anchor) == (out, [])
    assert find_relative_dates(out) == []


@given(st.text(alphabet=st.characters(codec="utf-8")).map(lambda s: s + " yesterday"))
def test_non_english_around_a_phrase(text: str) -> None:
    out, _ = absolutize(text, SUN)
    assert find_relative_dates(out) == []
