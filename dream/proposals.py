"""CONSOLIDATE, first half: turn the window's signals into proposals against the memory.

Each signal, oldest first, either restates a memory (update its date and source), contradicts one
(replace it; the newer statement wins by timestamp), or is new. Signals of the same window are
merged with each other the same way, so a preference said three times becomes one entry.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace
from datetime import date

from dream import defaults, regex_cache
from dream.actions import Action
from dream.candidates import entry_id
from dream.contradiction import changes_a_setting, contradiction, departure
from dream.dates import absolutize, has_relative_date
from dream.decisions import AgentAction, By, Directive
from dream.gates import names_what_holds_now, replacement_holds, signal_holds
from dream.matching import TermIndex, is_duplicate, is_sibling, similarity
from dream.memory import Entry, Memory, normalise_key
from dream.signals import FOR_A_WHILE, Signal
from dream.statement import Statement, analyse, specific_terms
from dream.topics import TOPIC_FILES
from dream.transcripts import DAILY_LOG_SESSION


@dataclass(eq=False)  # identity: two proposals with equal fields are still two proposals
class Proposal:
    action: Action
    category: str
    file: str  # topic file (relative to the memory dir) the entry lives or will live in
    text: str
    date: str
    source: str
    confidence: float
    durability: float
    change_risk: float
    sensitivity: float
    reason: str
    target: Entry | None = None  # the existing entry updated, replaced or archived
    previously: str | None = None
    hold: list[str] = field(default_factory=list)  # why it must wait for review
    session_id: str = ""
    uuid: str = ""
    timestamp: str = ""
    redactions: tuple[str, ...] = ()
    restatements: int = 0
    # Archive proposals this one brought along; they fall with it if it is superseded.
    companions: list[Proposal] = field(default_factory=list)
    # Superseded later in the same window: left out of the result.
    dropped: bool = False
    # The agent's judgment (checked by the host), or the host's own rules.
    by: By = By.HOST
    candidate: str = ""
    # What the archive says happened to a replaced entry.
    verb: str = "contradicted"

    @property
    def id(self) -> str:
        """Stable across runs over the same input, so review decisions stick."""
        target = f"{self.target.file}:{self.target.key}" if self.target else ""
        basis = f"{self.action}\0{self.file}\0{self.text}\0{target}"
        return hashlib.sha256(basis.encode()).hexdigest()[:10]

    @property
    def confidence_label(self) -> str:
        return "high" if self.confidence >= 0.85 else "medium"


@dataclass
class Refusal:
    text: str
    reason: str  # duplicate | superseded | invalid | unsafe | ...
    detail: str = ""


@dataclass
class Proposals:
    proposals: list[Proposal]
    refusals: list[Refusal]


_LEAD_IN = regex_cache.compile(
    r"^(?:(?:no|nope|nah|ok|okay|yes|yeah|right|well|oh|ugh|hey|hmm|sorry|again)\s*[,:!.;—–-]+\s*"
    r"|(?:actually|btw|fyi|also|so|and|but|please|pls|heads up|for the record|just so you know|"
    r"remember that|note that|keep in mind that|for future reference|as i said)\b\s*[,:!—–-]*\s*)+",
    re.IGNORECASE,
)


def tidy_entry_text(text: str) -> str:
    """The statement without conversational lead-ins ("No, …", "Actually, …", "Please …")."""
    tidy = _LEAD_IN.sub("", text).strip()
    if len(tidy) < 3:
        return text
    return tidy[0].upper() + tidy[1:]


def source_label(signal: Signal) -> str:
    if signal.session_id.startswith(DAILY_LOG_SESSION):
        # An OpenClaw daily log: its date and line, not a session id cut to eight characters.
        line = signal.uuid.rsplit(":", 1)[-1]
        return f"daily log {signal.session_id[len(DAILY_LOG_SESSION) :]} line {line}"
    return f"session {signal.timestamp[:10]} {signal.session_id[:8]} msg {signal.uuid[:8]}".rstrip()


def entry_date(entry: Entry) -> str:
    return entry.updated or entry.date or ""


_SOURCE_MSG = regex_cache.compile(r"\bmsg ([0-9a-f-]{8})")


def _when(item: Entry | Proposal, said_at: dict[str, str]) -> str:
    """When an item was said, as an ISO timestamp, as precisely as can be known.

    A proposal of this run carries its message's time. An entry carries a day; when its source
    names a message of this window, that message's time is used, so a run over the same input
    orders two statements of one day the same way again. Otherwise the start of its day: a
    statement made later that day wins.
    """
    if isinstance(item, Proposal):
        return item.timestamp or item.date
    match = _SOURCE_MSG.search(item.source or "")
    if match and match.group(1) in said_at:
        return said_at[match.group(1)]
    day = entry_date(item)
    return f"{day}T00:00:00" if day else ""


def propose(
    memory: Memory,
    signals: list[Signal],
    claude_md: list[str] | None = None,
    directives: list[Directive] | None = None,
) -> Proposals:
    """Proposals for the window's signals. `claude_md`: the project's CLAUDE.md sentences; a signal
    that restates one of them is refused ("in CLAUDE.md"): Claude Code loads that file already.

    `directives`: the agent's accepted decisions (DESIGN.md §9). A candidate the agent decided on
    makes the proposals of its decisions instead of its signals' (a `hold` without text keeps its
    signals, held for review)."""
    work = _Working(memory)
    work.project_rules = [(rule, analyse(rule)) for rule in claude_md or ()]
    work.redate_entries()
    directed = {
        (d.candidate.session_id, d.candidate.uuid)
        for d in directives or ()
        if d.text or d.action == AgentAction.DROP
    }
    held = {
        (d.candidate.session_id, d.candidate.uuid): d
        for d in directives or ()
        if d.action == AgentAction.HOLD and not d.text
    }
    items: list[tuple[str, str, str, Signal | Directive]] = [
        (s.timestamp, s.uuid, s.text, s) for s in signals if (s.session_id, s.uuid) not in directed
    ]
    items += [
        (d.candidate.timestamp, d.candidate.uuid, d.text, d)
        for d in directives or ()
        if d.text or d.action == AgentAction.DROP
    ]
    items.sort(key=lambda item: item[:3])
    work.said_at = {uuid[:8]: stamp for stamp, uuid, _, _ in items if uuid}
    for _, _, _, item in items:
        if isinstance(item, Directive):
            work.direct(item)
            continue
        before = len(work.proposals)
        work.consider(item)
        hold = held.get((item.session_id, item.uuid))
        if hold is not None:
            for proposal in work.proposals[before:]:
                proposal.hold.append("held by the agent" + (f": {hold.why}" if hold.why else ""))
                proposal.by = By.AGENT
    return Proposals([p for p in work.proposals if not p.dropped], work.refusals)


class _Working:
    """The working set of one `propose`: current entries, then this run's additions, each with its
    analysis. An item superseded later in the window is marked dead and no longer matched."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.proposals: list[Proposal] = []
        self.refusals: list[Refusal] = []
        self.items: list[tuple[Entry | Proposal, Statement]] = []
        self.dead: set[int] = set()
        # The replacement of each entry this run replaces (by identity), with the signal it came
        # from: a second saying of the change replaces the entry in its turn, and the first is
        # kept as an addition (its words are not lost, the entry is archived once).
        self.replaced: dict[int, tuple[Proposal, Signal]] = {}
        # Updates and re-datings of each entry (by identity): a later replacement makes them moot.
        self.updates_of: dict[int, list[Proposal]] = {}
        self.index = TermIndex()
        self.said_at: dict[str, str] = {}
        self.project_rules: list[tuple[str, Statement]] = []
        self.added_naming: dict[str, list[int]] = {}
        self.parts: dict[int, list[Statement]] = {}  # the statements of a merged entry's parts
        for entry in memory.entries:
            self._add_item(entry, memory.statement(entry))

    def _add_item(self, item: Entry | Proposal, statement: Statement) -> None:
        self.index.add(len(self.items), statement)
        if isinstance(item, Proposal):
            # This run's additions by the specific names they hold ("fp16", "go.mod"): a sibling
            # may share only that one word with them.
            for term in specific_terms(statement.terms):
                self.added_naming.setdefault(term, []).append(len(self.items))
        self.items.append((item, statement))

    def redate_entries(self) -> None:
        for entry in self.memory.entries:
            if entry.date and not entry.native and has_relative_date(entry.text):
                fixed, _ = absolutize(entry.text, date.fromisoformat(entry.date))
                if fixed != entry.text:
                    self.proposals.append(_redate(entry, fixed))
                    self.updates_of.setdefault(id(entry), []).append(self.proposals[-1])

    def _match(
        self, statement: Statement
    ) -> tuple[tuple[int, Entry | Proposal] | None, list[tuple[int, Entry | Proposal, str, bool]], set[int]]:
        """The closest duplicate among the live items, every item the statement contradicts, and
        of those the ones it says are gone ("we moved off Contentful": the person announced that
        change, which holds whatever the model read).

        The closest, not the first: which item comes first depends on whether it was written in an
        earlier run, and a second run over the same input must restate the same one.
        """
        duplicate_of: tuple[int, Entry | Proposal] | None = None
        best = 0.0
        contradicted: list[tuple[int, Entry | Proposal, str, bool]] = []
        gone: set[int] = set()
        for i in sorted(self.index.candidates(statement) - self.dead):
            item, other = self.items[i]
            found = contradiction(statement, other)
            if found is None and isinstance(item, Entry):
                found = departure(statement, other)
                if found is not None:
                    gone.add(i)
            if found is not None and (found[1] or isinstance(item, Entry)):
                # Within the window only an explicit change replaces what was said earlier:
                # "both DS18B20 on gpio 5" does not undo "the Vext rail is gpio 36".
                contradicted.append((i, item, found[0], found[1]))
            elif is_duplicate(statement, other) and (score := similarity(statement, other)) > best:
                duplicate_of, best = (i, item), score
            elif duplicate_of is None and isinstance(item, Entry) and self._restates_a_part(statement, item):
                # An entry a run made of two siblings ("A; b") still holds each: a restatement of
                # one is a restatement of it, in the next run as in the one that merged them.
                duplicate_of = (i, item)
        return duplicate_of, contradicted, gone

    def _restates_a_part(self, statement: Statement, entry: Entry) -> bool:
        if "; " not in entry.text:
            return False
        parts = self.parts.get(id(entry))
        if parts is None:
            parts = self.parts[id(entry)] = [analyse(part) for part in entry.text.split("; ")]
        return any(is_duplicate(statement, part) for part in parts)

    def consider(self, signal: Signal) -> None:
        day = signal.timestamp[:10]
        text, _ = absolutize(tidy_entry_text(signal.text), date.fromisoformat(day))
        statement = analyse(text)
        if not statement.terms:
            self.refusals.append(Refusal(text, "invalid", "no content words"))
            return
        known = next((rule for rule, rs in self.project_rules if is_duplicate(statement, rs)), None)
        if known is not None:
            self.refusals.append(Refusal(text, "in CLAUDE.md", known[:80]))
            return
        for _attempt in range(4):  # re-matched after an earlier proposal of the window is dropped
            duplicate_of, contradicted, gone = self._match(statement)
            newer = [
                (i, item) for i, item, _, _ in contradicted if _when(item, self.said_at) > signal.timestamp
            ]
            if newer:
                when = _when(newer[0][1], self.said_at)[:10]
                self.refusals.append(Refusal(text, "superseded", f"memory says otherwise since {when}"))
                return
            in_run = [(i, item) for i, item, _, _ in contradicted if isinstance(item, Proposal)]
            if in_run:
                # Said otherwise earlier in this window: the later statement wins; match again
                # against what is left, so a switch back restates the original entry.
                self._drop_earlier(in_run, text)
                continue
            self._propose(signal, text, statement, duplicate_of, contradicted, gone)
            return

    def direct(self, directive: Directive) -> None:
        """An accepted decision of the agent's: what it says, with the host's own rules kept (a
        restatement is an update, never a second entry; a target already changed in this run is
        not changed twice; CLAUDE.md is not repeated)."""
        candidate = directive.candidate
        if directive.action == AgentAction.DROP:
            self.refusals.append(Refusal(candidate.text[:120], "dropped by the agent", directive.why[:80]))
            return
        signal = _directed_signal(directive)
        text, _ = absolutize(directive.text, date.fromisoformat(signal.timestamp[:10]))
        statement = analyse(text)
        if not statement.terms:
            self.refusals.append(Refusal(text, "invalid", "no content words"))
            return
        if directive.action in (AgentAction.ADD, AgentAction.HOLD):
            known = next((rule for rule, rs in self.project_rules if is_duplicate(statement, rs)), None)
            if known is not None:
                self.refusals.append(Refusal(text, "in CLAUDE.md", known[:80]))
                return
            duplicate_of, _, _ = self._match(statement)
            if duplicate_of is not None and directive.action == AgentAction.ADD:
                update = self._restate(duplicate_of[1], signal, text)
                if update is not None:
                    _attribute(update, directive)
                return
            proposal = _attribute(
                _from_signal(Action.ADD, signal, text, f"new ({directive.why or 'the agent'})"[:160]),
                directive,
            )
            if directive.action == AgentAction.HOLD:
                proposal.hold.append("held by the agent" + (f": {directive.why}" if directive.why else ""))
            self.proposals.append(proposal)
            self._add_item(proposal, statement)
            return
        self._direct_target(directive, signal, text, statement)

    def _direct_target(self, directive: Directive, signal: Signal, text: str, statement: Statement) -> None:
        assert directive.target is not None
        found = next(
            (
                (i, item)
                for i, (item, _) in enumerate(self.items)
                if isinstance(item, Entry) and entry_id(item.file, item.key) == directive.target.id
            ),
            None,
        )
        if found is None or found[0] in self.dead:
            self.refusals.append(Refusal(text, "stale target", "its target is already changed in this run"))
            return
        i, entry = found
        assert isinstance(entry, Entry)
        rewords = normalise_key(text) != entry.key
        if directive.action == AgentAction.UPDATE and not rewords:
            update = _from_signal(
                Action.UPDATE, signal, entry.text, f"restated; refreshes the entry in {entry.file}"
            )
            update.file, update.target = entry.file, entry
            self.proposals.append(_attribute(update, directive))
            self.updates_of.setdefault(id(entry), []).append(update)
            return
        verb = {
            AgentAction.SUPERSEDE: "superseded",
            AgentAction.MERGE: "merged",
            AgentAction.UPDATE: "reworded",
        }[directive.action]
        for earlier in self.updates_of.get(id(entry), ()):
            earlier.dropped = True
        proposal = _from_signal(Action.REPLACE, signal, text, f"{verb} by the agent: {directive.why}"[:160])
        proposal.file, proposal.target, proposal.previously = entry.file, entry, entry.text
        proposal.verb = verb
        proposal.hold.extend(replacement_holds("", True, entry.file if entry.native else None))
        if directive.action == AgentAction.SUPERSEDE and not (entry.source or "").startswith("session "):
            proposal.hold.append("supersedes an entry the person wrote by hand")
        if entry.native:
            proposal.file = TOPIC_FILES[signal.category]
        self.proposals.append(_attribute(proposal, directive))
        self.dead.add(i)
        self._add_item(proposal, statement)

    def _drop_earlier(self, in_run: list[tuple[int, Proposal]], text: str) -> None:
        for i, item in in_run:
            self.dead.add(i)
            for gone in (item, *item.companions):
                gone.dropped = True
            self.refusals.append(
                Refusal(item.text, "superseded", f"contradicted later in the window: {text[:80]}")
            )

    def _propose(
        self,
        signal: Signal,
        text: str,
        statement: Statement,
        duplicate_of: tuple[int, Entry | Proposal] | None,
        contradicted: list[tuple[int, Entry | Proposal, str, bool]],
        gone: set[int],
    ) -> None:
        if (
            contradicted
            and duplicate_of is not None
            and isinstance(duplicate_of[1], Entry)
            and duplicate_of[0] not in {i for i, *_ in contradicted}
        ):
            # It restates an entry and reads as contradicting others: the restated entry already says
            # it, so the others are archived in its favour; a replacement would write its words twice.
            self._restate(duplicate_of[1], signal, text)
            for _, other, term, _ in contradicted:
                if isinstance(other, Entry) and not other.native:
                    for earlier in self.updates_of.get(id(other), ()):
                        earlier.dropped = True  # a restatement of it is moot once it is archived
                    self.proposals.append(_retired(signal, text, other, term))
        elif contradicted:
            index, first, term, explicit = contradicted[0]
            if id(first) in self.replaced:
                earlier = self.replaced[id(first)][0]
                if duplicate_of is not None and duplicate_of[1] is earlier:
                    self._restate(earlier, signal, text)  # the same change said again
                    return
                if not explicit or not names_what_holds_now(text, first.text):
                    # "you used LiveData again", "no, not LiveData" beside "we moved to StateFlow": agrees
                    self.refusals.append(
                        Refusal(text, "duplicate", f"the entry is replaced in this run on '{term}'")
                    )
                    return
                self._keep_as_addition(*self.replaced.pop(id(first)))
            proposal = _replace(
                signal, text, [(e, t, x) for _, e, t, x in contradicted], self.proposals, self.updates_of
            )
            self.replaced[id(first)] = (proposal, signal)
            if index in gone or changes_a_setting(statement, self.items[index][1]):
                # "Poetry c'est fini" retires the Poetry entry, "we bumped the minimum iOS version to
                # 15.0" the 13.0 one: news of a change is durable by what it says, and the old entry
                # goes to archive.md with the person's words.
                proposal.confidence = max(proposal.confidence, defaults.GATE_MIN_CONFIDENCE)
                proposal.durability = max(proposal.durability, defaults.GATE_MIN_DURABILITY)
                if not FOR_A_WHILE.search(text):  # "we're off Redis for now" may not last
                    # the change is made ("the docker-compose.yml is still there" dates nothing)
                    proposal.change_risk = min(proposal.change_risk, defaults.GATE_MAX_CHANGE_RISK)
            self._add_item(proposal, statement)
        elif duplicate_of is not None:
            self._restate(duplicate_of[1], signal, text)
        elif (sibling := self._sibling(statement)) is not None:
            self._merge(sibling, signal, text)
        else:
            proposal = _from_signal(Action.ADD, signal, text, "new")
            self.proposals.append(proposal)
            self._add_item(proposal, statement)

    def _keep_as_addition(self, earlier: Proposal, signal: Signal) -> None:
        """The earlier replacement of an entry that a later saying replaces again: an addition
        of its own words now, scored as it was ("Composer wird abgeschaltet, ab dann läuft alles
        in Dagster" before "Composer ist aus, dags/ ist nur noch Archiv")."""
        if earlier.dropped:
            return
        addition = replace(
            earlier,
            action=Action.ADD,
            file=TOPIC_FILES[earlier.category],
            target=None,
            previously=None,
            hold=signal_holds(signal.redactions, signal.unsafe),
            reason="new (the entry it replaced is replaced by a later saying)",
        )
        self.proposals[next(i for i, p in enumerate(self.proposals) if p is earlier)] = addition
        for i, (item, statement) in enumerate(self.items):
            if item is earlier:
                self.items[i] = (addition, statement)

    def _restate(self, item: Entry | Proposal, signal: Signal, text: str) -> Proposal | None:
        """The update a restatement of `item` makes, proposed (None: nothing to refresh)."""
        update = _restated(item, signal, text, self.refusals)
        if update is not None:
            self.proposals.append(update)
            self.updates_of.setdefault(id(update.target), []).append(update)
        return update

    def _sibling(self, statement: Statement) -> int | None:
        """An addition of this run that the statement is another side of (DESIGN.md §5: siblings
        merge into one entry), when the two fit in one entry."""
        named = {i for t in specific_terms(statement.terms) for i in self.added_naming.get(t, ())}
        for i in sorted((self.index.candidates(statement) | named) - self.dead):
            item, other = self.items[i]
            if (
                isinstance(item, Proposal)
                and item.action == Action.ADD
                and not item.hold
                and is_sibling(statement, other)
            ):
                return i
        return None

    def _merge(self, i: int, signal: Signal, text: str) -> None:
        """One entry of both, dated and attributed to the newer saying (unless it would be too long:
        then the newer one is a rule of its own)."""
        item = self.items[i][0]
        assert isinstance(item, Proposal)
        joined = f"{item.text.rstrip('.')}; {text[:1].lower() + text[1:] if text[1:2].islower() else text}"
        if len(joined) > defaults.SIGNAL_MAX_CHARS:
            proposal = _from_signal(Action.ADD, signal, text, "new")
            self.proposals.append(proposal)
            self._add_item(proposal, analyse(text))
            return
        item.text = joined
        _restated(item, signal, text, self.refusals)
        self.refusals[-1].detail = f"merged into a proposal of this run: {item.text[:80]}"
        statement = analyse(joined)
        self.items[i] = (item, statement)
        self.index.add(i, statement)


def _from_signal(action: Action, signal: Signal, text: str, reason: str) -> Proposal:
    hold = signal_holds(signal.redactions, signal.unsafe)
    return Proposal(
        action=action,
        category=signal.category,
        file=TOPIC_FILES[signal.category],
        text=text,
        date=signal.timestamp[:10],
        source=source_label(signal),
        confidence=signal.confidence,
        durability=signal.durability,
        change_risk=signal.change_risk,
        sensitivity=signal.sensitivity,
        reason=reason,
        hold=hold,
        session_id=signal.session_id,
        uuid=signal.uuid,
        timestamp=signal.timestamp,
        redactions=signal.redactions,
    )


def _directed_signal(directive: Directive) -> Signal:
    """The candidate as a signal with the agent's text. The agent may raise confidence and
    durability of a message it quotes exactly; change risk and sensitivity are the host's reading
    of the words it cites, never lowered below it."""
    from dream.signals import quote_scores

    candidate = directive.candidate
    change_risk, sensitivity = quote_scores(directive.quote, directive.text, bool(directive.redactions))
    return Signal(
        project="",
        session_id=candidate.session_id,
        uuid=candidate.uuid,
        timestamp=candidate.timestamp,
        category=directive.category or "fact",
        text=directive.text,
        confidence=defaults.AGENT_CONFIDENCE,
        durability=defaults.AGENT_DURABILITY,
        change_risk=change_risk,
        sensitivity=sensitivity,
        categories=(directive.category,),
        redactions=directive.redactions,
        unsafe=directive.unsafe,
        quote=directive.quote,
    )


def _attribute(proposal: Proposal, directive: Directive) -> Proposal:
    proposal.by = By.AGENT
    proposal.candidate = directive.candidate.id
    proposal.hold.extend(h for h in directive.hold if h not in proposal.hold)
    return proposal


def _redate(entry: Entry, fixed: str) -> Proposal:
    return Proposal(
        action=Action.REDATE,
        category="",
        file=entry.file,
        text=fixed,
        date=entry.date or "",
        source=entry.source or "",
        confidence=1.0,
        durability=1.0,
        change_risk=0.0,
        sensitivity=0.0,
        reason="relative date made absolute against the entry's own date",
        target=entry,
    )


def _restated(item: Entry | Proposal, signal: Signal, text: str, refusals: list[Refusal]) -> Proposal | None:
    """A restatement: merged into this run's proposal, or an update of the entry (or nothing)."""
    day = signal.timestamp[:10]
    if isinstance(item, Proposal):
        # Said again in the same window: one entry, dated and attributed to the latest saying.
        item.restatements += 1
        if day >= item.date:
            item.date, item.source = day, source_label(signal)
            item.session_id, item.uuid, item.timestamp = signal.session_id, signal.uuid, signal.timestamp
        item.confidence = max(item.confidence, signal.confidence)
        item.durability = max(item.durability, signal.durability)
        refusals.append(Refusal(text, "duplicate", f"restates a proposal of this run: {item.text[:80]}"))
        return None
    if item.native or day <= entry_date(item):
        refusals.append(Refusal(text, "duplicate", f"already in {item.file}: {item.text[:80]}"))
        return None
    proposal = _from_signal(Action.UPDATE, signal, item.text, f"restated; refreshes the entry in {item.file}")
    proposal.file, proposal.target = item.file, item
    return proposal


def _replace(
    signal: Signal,
    text: str,
    contradicted: list[tuple[Entry | Proposal, str, bool]],
    proposals: list[Proposal],
    updates_of: dict[int, list[Proposal]],
) -> Proposal:
    first, term, explicit = contradicted[0]
    assert isinstance(first, Entry)
    # A restatement of the entry earlier in the window is moot now that it is replaced.
    for earlier in updates_of.get(id(first), ()):
        earlier.dropped = True
    proposal = _from_signal(
        Action.REPLACE, signal, text, f"contradicts {first.file} on '{term}'; the newer statement wins"
    )
    proposal.file, proposal.target, proposal.previously = first.file, first, first.text
    proposal.hold.extend(replacement_holds(term, explicit, first.file if first.native else None))
    if first.native:
        proposal.file = TOPIC_FILES[signal.category]
    proposals.append(proposal)
    for other, other_term, _ in contradicted[1:]:
        if isinstance(other, Entry) and not other.native:
            extra = _retired(signal, text, other, other_term)
            proposals.append(extra)
            proposal.companions.append(extra)
    return proposal


def _retired(signal: Signal, text: str, entry: Entry, term: str) -> Proposal:
    """The archiving of an entry that `text` (the newer saying) contradicts on `term`."""
    proposal = _from_signal(Action.ARCHIVE, signal, entry.text, f"contradicted on '{term}' by: {text[:80]}")
    proposal.file, proposal.target = entry.file, entry
    return proposal
