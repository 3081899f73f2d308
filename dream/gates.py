"""The gates: what may change memory by itself, what waits for the person, what is dropped.

Every rule that decides a proposal's outcome lives here: the score thresholds (defined in
`defaults`), the reasons a proposal must wait whatever its scores (a redacted secret, text that
tries to instruct the agent, a contradiction that is only implied, a change to Claude Code's own
memory file or to a pinned entry), the per-category policies, the review queue's verdicts and the
per-run cap on changes.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dream import defaults
from dream.actions import Action
from dream.config import Config
from dream.decisions import By
from dream.statement import content_terms, key_terms, names_something, stem

if TYPE_CHECKING:
    from dream.memory import Entry
    from dream.proposals import Proposal
    from dream.review import ReviewState


class Outcome(str, enum.Enum):
    """What happens to a proposal in this run (the value is what reports and JSON say)."""

    APPLIED = "applied"
    PENDING = "pending"
    DROPPED = "dropped"

    def __str__(self) -> str:
        return self.value


@dataclass
class Decision:
    proposal: Proposal
    outcome: Outcome
    why: str
    # Held back only because the run already made its `max_changes`.
    over_cap: bool = False
    # Would wait for review, but the queue already holds its most important items.
    over_queue: bool = False
    # Below the gates and too unsure to be worth the person's answer.
    not_durable: bool = False


def signal_holds(redactions: Iterable[str], unsafe: Iterable[str]) -> list[str]:
    """Why a proposal made from a signal waits for review, whatever its scores."""
    hold = []
    redactions, unsafe = tuple(redactions), tuple(unsafe)
    if redactions:
        hold.append("a secret was redacted: " + ", ".join(redactions))
    if unsafe:
        hold.append("text that tries to instruct the agent: " + ", ".join(unsafe))
    return hold


def replacement_holds(term: str, explicit: bool, native_file: str | None) -> list[str]:
    """Why replacing an entry waits: the contradiction is only implied, or the entry is one of
    Claude Code's own memory files."""
    hold = []
    if not explicit:
        hold.append(f"implicit contradiction on '{term}' (no explicit change in the words)")
    if native_file is not None:
        hold.append(f"contradicts Claude Code's own memory file {native_file}")
    return hold


def is_pinned(entry: Entry, pinned: tuple[str, ...] = ()) -> bool:
    """Marked in the file ("(pinned)", a pin emoji, `<!-- pin -->`), or holding a DREAM_PINNED text."""
    raw = entry.raw.lower()
    if "(pinned)" in raw or "📌" in entry.raw or "<!-- pin" in raw:
        return True
    return any(text.lower() in raw for text in pinned)


def score_reasons(proposal: Proposal) -> list[str]:
    """The scores below a gate (empty: the scores pass)."""
    why = []
    least_confidence, least_durability = defaults.GATE_MIN_CONFIDENCE, defaults.GATE_MIN_DURABILITY
    if _announces_a_change(proposal):
        least_confidence = least_durability = defaults.GATE_REPLACE_MIN_SCORE
    if proposal.confidence < least_confidence:
        why.append(f"confidence {proposal.confidence:.2f} < {least_confidence}")
    if proposal.durability < least_durability:
        why.append(f"durability {proposal.durability:.2f} < {least_durability}")
    if proposal.change_risk > defaults.GATE_MAX_CHANGE_RISK:
        why.append(f"change risk {proposal.change_risk:.2f} > {defaults.GATE_MAX_CHANGE_RISK}")
    if proposal.sensitivity > defaults.GATE_MAX_SENSITIVITY:
        why.append(f"sensitivity {proposal.sensitivity:.2f}")
    return why


def _announces_a_change(proposal: Proposal) -> bool:
    """An explicit change to an entry from before the run that names what holds now ("we've
    moved the environment from conda to pixi"); a bare "no, not LiveData" names nothing new and
    is judged like any rule."""
    if proposal.action != Action.REPLACE or proposal.target is None or proposal.hold:
        return False
    return names_what_holds_now(proposal.text, proposal.target.text)


def names_what_holds_now(text: str, before: str) -> bool:
    """The new words name something the entry does not ("StateFlow" against "ViewModels expose
    LiveData"); "no, not LiveData" names nothing new."""
    old = content_terms(before)
    return any(stem(term) not in old for term in key_terms(text))


def needs_person(proposal: Proposal, pinned: tuple[str, ...] = ()) -> list[str]:
    """What only the person can settle, whatever the scores: a secret, text that tries to
    instruct the agent, a contradiction that is only implied, a change to an entry they pinned
    or to Claude Code's own memory file."""
    why = list(proposal.hold)
    if proposal.target is not None and is_pinned(proposal.target, pinned):
        why.append("revises a pinned entry")
    return why


def gate_reasons(proposal: Proposal, pinned: tuple[str, ...] = ()) -> list[str]:
    """Why a proposal may not be applied without review (empty: it may)."""
    if proposal.action == Action.REDATE:
        return list(proposal.hold)
    return needs_person(proposal, pinned) + score_reasons(proposal)


def not_worth_asking(proposal: Proposal, pinned: tuple[str, ...] = ()) -> bool:
    """Below the gates on its scores alone and too unsure to be worth the person's answer: what
    is not durable is dropped, not queued, and so is a rule that names nothing (no tool, path,
    identifier, version or name: "Zawsze, nie osobno.", "B is a fine check on top."), which
    the person could not judge out of its session either."""
    if needs_person(proposal, pinned) or proposal.action == Action.REDATE:
        return False
    if proposal.action == Action.ADD and not names_something(proposal.text):
        return True
    return proposal.durability < defaults.REVIEW_MIN_DURABILITY


def queue_rank(decision: Decision) -> tuple[int, float]:
    """Most important first: what only the person can settle (a secret, control text, a conflict
    with their own entry), then the likeliest rules."""
    p = decision.proposal
    settles = 0 if p.hold else 1 if p.target is not None else 2
    return (settles, -(p.durability + p.confidence))


def shorten_queue(decisions: list[Decision], limit: int) -> None:
    """Keep the `limit` most important waiting items listed; the rest wait unlisted (they are
    still in the transcripts and come back while in the window), counted by the report."""
    waiting = [d for d in decisions if d.outcome == Outcome.PENDING and not d.over_cap]
    for decision in sorted(waiting, key=queue_rank)[limit:]:
        decision.outcome = Outcome.DROPPED
        decision.over_queue = True
        decision.why = f"not among the {limit} most important items for review; " + decision.why


def hold_over_quarter(decisions: list[Decision], entries_per_file: dict[str, int]) -> None:
    """The agent's decisions archive at most a quarter of a file's prior entries in one run
    (rounded down, always one): the rest waits for review (DESIGN.md §9). What a model judged can
    never empty a file. The host's own replacements need an explicit change in the person's words
    and are not counted (a replacement held here would apply in the next run: not idempotent)."""
    archived: dict[str, int] = {}
    for decision in decisions:
        p = decision.proposal
        if decision.outcome != Outcome.APPLIED or p.action not in (Action.REPLACE, Action.ARCHIVE):
            continue
        if p.by != By.AGENT:
            continue
        if p.target is None or p.target.native:
            continue
        prior = entries_per_file.get(p.target.file, 0)
        allowed = max(1, prior // 4)
        archived[p.target.file] = archived.get(p.target.file, 0) + 1
        if archived[p.target.file] > allowed:
            decision.outcome = Outcome.PENDING
            decision.why = (
                f"would archive more than a quarter of {p.target.file}'s {prior} entries in one run "
                f"(at most {allowed})"
            )


def decide(
    proposals: list[Proposal], config: Config, review: ReviewState, approved: set[str]
) -> list[Decision]:
    """Each proposal's outcome, in order: rejected or switched off → dropped; approved → applied;
    otherwise the gates, the category's policy and the per-run cap."""
    decisions: list[Decision] = []
    changes = 0
    for proposal in proposals:
        pid = proposal.id
        policy = config.policies.get(proposal.category, "auto") if proposal.category else "auto"
        if pid in review.rejected:
            decisions.append(Decision(proposal, Outcome.DROPPED, "rejected in review"))
            continue
        if policy == "off":
            decisions.append(Decision(proposal, Outcome.DROPPED, f"policy for {proposal.category} is off"))
            continue
        if pid in approved:
            decisions.append(Decision(proposal, Outcome.APPLIED, "approved in review"))
            changes += 1
            continue
        why = gate_reasons(proposal, config.pinned)
        if policy == "review":
            why.append(f"policy for {proposal.category} is review")
        if not why and changes >= config.max_changes:
            reason = f"over the per-run cap of {config.max_changes} changes"
            decisions.append(Decision(proposal, Outcome.PENDING, reason, over_cap=True))
            continue
        if why and policy != "review" and not_worth_asking(proposal, config.pinned):
            reason = "not durable: " + "; ".join(why)
            decisions.append(Decision(proposal, Outcome.DROPPED, reason, not_durable=True))
            continue
        if why:
            decisions.append(Decision(proposal, Outcome.PENDING, "; ".join(why)))
            continue
        decisions.append(Decision(proposal, Outcome.APPLIED, "passed the gates"))
        changes += 1
    shorten_queue(decisions, config.review_queue_max)
    return decisions
