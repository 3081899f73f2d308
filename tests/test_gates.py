"""The gates (dream/gates.py) as tables: which proposal applies by itself, which waits, which is dropped."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from dream import defaults
from dream.actions import Action
from dream.config import Config
from dream.gates import Outcome, decide, gate_reasons, is_pinned, replacement_holds, signal_holds
from dream.memory import entry_from_line
from dream.proposals import Proposal
from dream.review import ReviewState


def proposal(**changes: Any) -> Proposal:
    base = Proposal(
        action=Action.ADD,
        category="preference",
        file="preferences.md",
        text="Use pnpm, never npm.",
        date="2026-11-20",
        source="session 2026-11-20 abcdef12",
        confidence=0.95,
        durability=0.93,
        change_risk=0.1,
        sensitivity=0.05,
        reason="new",
    )
    return replace(base, **changes)


ENTRY = entry_from_line("decisions.md", "- [2026-01-12] Chose Celery for background jobs.")
PINNED = entry_from_line("decisions.md", "- [2026-01-12] Chose Celery for background jobs. (pinned)")


@pytest.mark.parametrize(
    ("changes", "waits_for"),
    [
        ({}, None),
        ({"confidence": defaults.GATE_MIN_CONFIDENCE - 0.01}, "confidence"),
        ({"confidence": defaults.GATE_MIN_CONFIDENCE}, None),
        ({"durability": defaults.GATE_MIN_DURABILITY - 0.01}, "durability"),
        ({"change_risk": defaults.GATE_MAX_CHANGE_RISK + 0.01}, "change risk"),
        ({"change_risk": defaults.GATE_MAX_CHANGE_RISK}, None),
        ({"sensitivity": defaults.GATE_MAX_SENSITIVITY + 0.01}, "sensitivity"),
        ({"hold": signal_holds(["github-token"], [])}, "a secret was redacted: github-token"),
        ({"hold": signal_holds([], ["fake system tag"])}, "text that tries to instruct the agent"),
        ({"action": Action.REPLACE, "target": ENTRY}, None),
        ({"action": Action.REPLACE, "target": PINNED}, "revises a pinned entry"),
        (
            {"action": Action.REPLACE, "target": ENTRY, "hold": replacement_holds("celery", False, None)},
            "implicit",
        ),
        (
            {"action": Action.REPLACE, "target": ENTRY, "hold": replacement_holds("celery", True, "x.md")},
            "own memory",
        ),
        # An explicit change to an entry from before the run that names what holds now: the
        # stale entry is the likelier harm, so the model's doubt weighs less ...
        (
            {
                "action": Action.REPLACE,
                "target": ENTRY,
                "text": "We moved jobs from Celery to Dramatiq.",
                "confidence": 0.6,
                "durability": 0.55,
            },
            None,
        ),
        (
            {
                "action": Action.REPLACE,
                "target": ENTRY,
                "text": "We moved jobs to Dramatiq.",
                "confidence": defaults.GATE_REPLACE_MIN_SCORE - 0.01,
            },
            "confidence",
        ),
        # ... but a bare "not Celery" names nothing new, and a rule of the window is no entry of before
        (
            {"action": Action.REPLACE, "target": ENTRY, "text": "No, not Celery.", "durability": 0.6},
            "durability",
        ),
        ({"action": Action.ADD, "text": "We moved jobs to Dramatiq.", "durability": 0.6}, "durability"),
        (
            {
                "action": Action.REPLACE,
                "target": ENTRY,
                "text": "We moved jobs to Dramatiq.",
                "durability": 0.6,
                "hold": replacement_holds("celery", False, None),
            },
            "implicit",
        ),
        # A re-dated entry changes no meaning: only its holds count, never its scores.
        ({"action": Action.REDATE, "confidence": 0.1, "durability": 0.1}, None),
    ],
)
def test_gate_reasons(changes: dict[str, Any], waits_for: str | None) -> None:
    why = gate_reasons(proposal(**changes))
    if waits_for is None:
        assert why == []
    else:
        assert any(waits_for in reason for reason in why), why


@pytest.mark.parametrize(
    ("raw", "pinned", "expected"),
    [
        ("- [2026-01-12] Chose Celery.", (), False),
        ("- [2026-01-12] Chose Celery. (pinned)", (), True),
        ("- [2026-01-12] Chose Celery. 📌", (), True),
        ("- [2026-01-12] Chose Celery. <!-- pin -->", (), True),
        ("- [2026-01-12] Chose Celery.", ("celery",), True),
        ("- [2026-01-12] Chose Celery.", ("dramatiq",), False),
    ],
)
def test_is_pinned(raw: str, pinned: tuple[str, ...], expected: bool) -> None:
    assert is_pinned(entry_from_line("decisions.md", raw), pinned) is expected


def test_decide_applies_within_the_cap_and_marks_the_rest_as_over_it() -> None:
    config = Config(max_changes=2)
    proposals = [proposal(text=f"Rule number {i}.") for i in range(4)]
    decisions = decide(proposals, config, ReviewState(None), set())
    assert [d.outcome for d in decisions] == [
        Outcome.APPLIED,
        Outcome.APPLIED,
        Outcome.PENDING,
        Outcome.PENDING,
    ]
    assert [d.over_cap for d in decisions] == [False, False, True, True]


def test_decide_follows_review_verdicts_and_policies() -> None:
    held = proposal(confidence=0.5, text="Held for its confidence.")
    rejected = proposal(text="Rejected by the person.")
    off = proposal(category="fact", text="A fact while facts are off.")
    reviewed = proposal(category="decision", text="A decision while decisions need review.")
    config = Config(policies={**defaults.CATEGORY_POLICY_DEFAULT, "fact": "off", "decision": "review"})
    review = ReviewState(None, rejected={rejected.id})
    decisions = decide([held, rejected, off, reviewed], config, review, approved={held.id})
    assert [(d.outcome, d.over_cap) for d in decisions] == [
        (Outcome.APPLIED, False),  # approved in review, whatever its scores
        (Outcome.DROPPED, False),
        (Outcome.DROPPED, False),
        (Outcome.PENDING, False),
    ]
    assert "policy for decision is review" in decisions[3].why
    assert str(Outcome.APPLIED) == "applied"


@pytest.mark.parametrize(
    ("changes", "outcome"),
    [
        # Sure enough to be worth the person's answer: it waits.
        ({"durability": defaults.REVIEW_MIN_DURABILITY}, Outcome.PENDING),
        # Not durable: dropped, not queued.
        ({"durability": defaults.REVIEW_MIN_DURABILITY - 0.01}, Outcome.DROPPED),
        ({"durability": 0.1, "confidence": 0.1}, Outcome.DROPPED),
        # What only the person can settle waits whatever its scores.
        ({"durability": 0.1, "hold": signal_holds(["github-token"], [])}, Outcome.PENDING),
        ({"durability": 0.1, "hold": signal_holds([], ["fake system tag"])}, Outcome.PENDING),
        ({"durability": 0.1, "action": Action.REPLACE, "target": PINNED}, Outcome.PENDING),
    ],
)
def test_what_is_not_durable_is_dropped_unless_the_person_must_settle_it(
    changes: dict[str, Any], outcome: Outcome
) -> None:
    [decision] = decide([proposal(**changes)], Config(), ReviewState(None), set())
    assert decision.outcome == outcome, decision.why
    if outcome == Outcome.DROPPED:
        assert decision.why.startswith("not durable")


@pytest.mark.parametrize(
    ("text", "outcome"),
    [
        # below the gates, a rule that names nothing cannot be judged out of its session
        ("Always, not separately.", Outcome.DROPPED),
        ("B is a fine extra check on top of that.", Outcome.DROPPED),
        # one that names what it is about is worth the question
        ("Always squash-merge into main.", Outcome.PENDING),
        ("Always squash-merge with `gh pr merge --squash`.", Outcome.PENDING),
        ("Retries go through net/retry.go.", Outcome.PENDING),
    ],
)
def test_a_rule_below_the_gates_that_names_nothing_is_not_queued(text: str, outcome: Outcome) -> None:
    unsure = proposal(text=text, durability=defaults.REVIEW_MIN_DURABILITY, confidence=0.85)
    [decision] = decide([unsure], Config(), ReviewState(None), set())
    assert decision.outcome == outcome, decision.why


def test_the_review_queue_lists_the_most_important_ten_and_counts_the_rest() -> None:
    floor = defaults.REVIEW_MIN_DURABILITY
    unsure = [
        proposal(text=f"Unsure rule {i} for src/app{i}.py.", durability=floor + i / 300) for i in range(12)
    ]
    secret = proposal(text="Deploy key is [REDACTED:github-token].", hold=signal_holds(["github-token"], []))
    conflict = proposal(
        action=Action.REPLACE, target=ENTRY, text="Dramatiq, not Celery.", hold=["implicit contradiction"]
    )
    decisions = decide([*unsure, secret, conflict], Config(), ReviewState(None), set())
    listed = [d for d in decisions if d.outcome == Outcome.PENDING]
    waiting = [d for d in decisions if d.over_queue]
    assert len(listed) == defaults.REVIEW_QUEUE_MAX and len(waiting) == 4
    # What only the person can settle is never the part left out; then the likeliest rules.
    assert secret in [d.proposal for d in listed] and conflict in [d.proposal for d in listed]
    assert {d.proposal.text for d in waiting} == {f"Unsure rule {i} for src/app{i}.py." for i in range(4)}
    assert all(d.outcome == Outcome.DROPPED and "most important" in d.why for d in waiting)


def test_the_queue_length_is_configurable() -> None:
    unsure = [
        proposal(text=f"Unsure rule {i} for src/app{i}.py.", durability=defaults.REVIEW_MIN_DURABILITY)
        for i in range(5)
    ]
    decisions = decide(unsure, Config(review_queue_max=2), ReviewState(None), set())
    assert sum(d.outcome == Outcome.PENDING for d in decisions) == 2
