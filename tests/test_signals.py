"""GATHER SIGNAL (DESIGN.md §4, issue 2 "Must show").

* The held-out labelled set (never trained or tuned on) reaches detection F1 >= 0.90, at message level,
  both scored directly and after being placed in realistic 2.1.328 transcripts.
* In those transcripts every other kind of text carries preference-like words (tool results, assistant
  text, subagent files, skill expansions, slash-command wrappers, compaction summaries, request-blob
  copies, system reminders) and none of it may become a signal.
* Hard cases (negation, questions, pasted logs, code, quotes, one-off steering), other languages, secrets
  and the ranges of the scores.
"""

from __future__ import annotations

import copy
import json
import os
import random
import string
import uuid as uuidlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from homefactory import (
    ATTACHMENTS,
    BLOB,
    REAL,
    SKILL_META,
    USER,
    Turn,
    iso,
    session_lines,
    slug,
    write_lone_surrogate_session,
)

from dream.api import Session
from dream.defaults import CATEGORIES, GATE_MAX_SENSITIVITY, SIGNAL_MAX_CHARS
from dream.signals import JSON_KEYS, Signal, extract_signals, is_signal_message
from dream.transcripts import UserMessage, person_text

DATA = Path(__file__).parent / "data"
TRAINING = ("signals-train-a.jsonl", "signals-train-b.jsonl", "signals-dev.jsonl")
HELDOUT = "signals-heldout.jsonl"
F1_TARGET = 0.90

_REAL_LINES = [json.loads(line) for line in REAL.read_text(encoding="utf-8").splitlines()]
SYSTEM = next(o for o in _REAL_LINES if o.get("type") == "system")


def labelled(name: str) -> list[tuple[str, list[str]]]:
    rows = []
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            rows.append((row["text"], list(row["labels"])))
    return rows


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def add(self, predicted: bool, actual: bool) -> None:
        if predicted and actual:
            self.tp += 1
        elif predicted:
            self.fp += 1
        elif actual:
            self.fn += 1
        else:
            self.tn += 1

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def line(self, name: str) -> str:
        return (
            f"{name}: F1 {self.f1:.3f} (precision {self.precision:.3f}, recall {self.recall:.3f}; "
            f"tp {self.tp} fp {self.fp} fn {self.fn} tn {self.tn})"
        )


def signals_line(text: str) -> str:
    """A figure for the `report` fixture (tests/conftest.py): shown with -v or DREAM_TEST_REPORT=1."""
    return f"[dream signals] {text}"


# -- the held-out set ---------------------------------------------------------------------------------


def test_heldout_set_is_large_and_has_both_classes() -> None:
    rows = labelled(HELDOUT)
    assert len(rows) >= 150
    positives = sum(1 for _, labels in rows if labels)
    assert 0.25 * len(rows) < positives < 0.75 * len(rows)
    for _, labels in rows:
        assert set(labels) <= set(CATEGORIES)


def test_heldout_set_is_disjoint_from_the_training_data() -> None:
    trained = {text.strip().casefold() for name in TRAINING for text, _ in labelled(name)}
    shared = sorted({text for text, _ in labelled(HELDOUT) if text.strip().casefold() in trained})
    assert shared == [], f"{len(shared)} held-out messages are also training messages: {shared}"


def test_heldout_detection_f1(report: Callable[[str], None]) -> None:
    trained = {text.strip().casefold() for name in TRAINING for text, _ in labelled(name)}
    everything, unseen = Score(), Score()
    misses = []
    for text, labels in labelled(HELDOUT):
        predicted = is_signal_message(text)
        everything.add(predicted, bool(labels))
        if text.strip().casefold() not in trained:
            unseen.add(predicted, bool(labels))
        if predicted != bool(labels):
            misses.append(("FP" if predicted else "FN", text[:70]))
    report(signals_line(everything.line("held-out, is_signal_message")))
    report(signals_line(unseen.line("held-out minus texts also in training data")))
    assert everything.f1 >= F1_TARGET, misses
    assert unseen.f1 >= F1_TARGET, misses


def test_detection_per_category_recall_is_reported(report: Callable[[str], None]) -> None:
    per: dict[str, Score] = {c: Score() for c in CATEGORIES}
    for text, labels in labelled(HELDOUT):
        predicted = is_signal_message(text)
        for category in labels:
            per[category].add(predicted, True)
    recalls = ", ".join(f"{c} {per[c].recall:.2f}" for c in CATEGORIES)
    report(signals_line(f"held-out recall by category: {recalls}"))
    # Every category is found at all: a model that dropped one would still pass the overall F1.
    assert all(per[c].recall >= 0.8 for c in CATEGORIES), {c: per[c].recall for c in CATEGORIES}


# -- labelled messages inside realistic transcripts ----------------------------------------------------

NOISE = "quokka"
TOOL_NOISE = (
    "# CONTRIBUTING\nFrom now on always build with quokka-make, never plain make.\n"
    "Remember: every time you deploy, run quokka-check first. We decided to use quokka for releases."
)
ASSISTANT_NOISE = "Understood. From now on I will always use quokka for builds and never npm in this repo."
SKILL_NOISE = (
    "Base directory for this skill: /home/dana/.claude/skills/style\n\n# Style\n"
    "Always use quokka-lint. Never use tabs. From now on prefer quokka over make in this repo."
)
SIDECHAIN_NOISE = "Going forward, always run quokka-test before every commit; we use quokka in this codebase."
COMPACT_NOISE = (
    "This session is being continued from a previous conversation that ran out of context. The conversation "
    "is summarized below:\nThe user said: from now on always use quokka for releases, never make."
)
WRAPPER_NOISE = (
    "<command-message>remember is running…</command-message>\n<command-name>/remember</command-name>\n"
    "<command-args>from now on always use quokka for releases</command-args>"
)
STDOUT_NOISE = (
    "<local-command-stdout>Remember: we always deploy with quokka, never by hand.</local-command-stdout>"
)
REMINDER_NOISE = (
    "\n<system-reminder>\nFrom now on always use quokka for every build in this repo.\n</system-reminder>"
)
SYSTEM_NOISE = "Note: from now on this project always uses quokka; never run make directly."


def _stamp(
    template: dict[str, Any], session_id: str, cwd: str, at: datetime, **changes: Any
) -> dict[str, Any]:
    obj = copy.deepcopy(template)
    for key, value in (
        ("sessionId", session_id),
        ("cwd", cwd),
        ("timestamp", iso(at)),
        ("uuid", str(uuidlib.uuid4())),
    ):
        if key in obj:
            obj[key] = value
    obj.update(changes)
    return obj


def _noise_entries(session_id: str, cwd: str, at: datetime) -> list[dict[str, Any]]:
    def user(content: Any, **flags: Any) -> dict[str, Any]:
        return _stamp(USER, session_id, cwd, at, message={"role": "user", "content": content}, **flags)

    return [
        user(SIDECHAIN_NOISE, isSidechain=True),
        user(COMPACT_NOISE, isCompactSummary=True, isVisibleInTranscriptOnly=True),
        user(WRAPPER_NOISE),
        user(STDOUT_NOISE),
        user("[Request interrupted by user]"),
        _stamp(
            SKILL_META,
            session_id,
            cwd,
            at,
            message={"role": "user", "content": [{"type": "text", "text": SKILL_NOISE}]},
        ),
        _stamp(SYSTEM, session_id, cwd, at, subtype="informational", content=SYSTEM_NOISE, level="info"),
        _stamp(
            ATTACHMENTS[0], session_id, cwd, at, attachment={"type": "queued_command", "prompt": SYSTEM_NOISE}
        ),
        _stamp(
            BLOB,
            session_id,
            cwd,
            at,
            message={"role": "user", "content": [{"type": "text", "text": TOOL_NOISE}]},
        ),
        {"type": "summary", "summary": SIDECHAIN_NOISE, "leafUuid": str(uuidlib.uuid4())},
    ]


@dataclass
class PlacedSet:
    claude: Path
    labels: dict[str, list[str]]  # user message uuid -> labels
    texts: dict[str, str]


def place(claude: Path, rows: list[tuple[str, list[str]]], per_session: int = 3) -> PlacedSet:
    """Write each labelled message as a user turn of a realistic session, with noise around it."""
    start = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(hours=30)
    cwds = ["/home/dana/src/billing", "/home/dana/src/web", "/srv/ops/infra"]
    placed = PlacedSet(claude, {}, {})
    rng = random.Random(11)
    for first in range(0, len(rows), per_session):
        session_id = str(uuidlib.UUID(int=rng.getrandbits(128), version=4))
        cwd = cwds[(first // per_session) % len(cwds)]
        lines: list[str] = []
        for offset, (text, labels) in enumerate(rows[first : first + per_session]):
            at = start + timedelta(minutes=5 * (first + offset))
            typed = text + REMINDER_NOISE if (first + offset) % 4 == 0 else text
            turn = Turn(
                typed,
                at,
                tool_output=TOOL_NOISE,
                assistant_text=ASSISTANT_NOISE,
                skill_body=SKILL_NOISE if offset == 0 else None,
            )
            placed.labels[turn.uuid] = labels
            placed.texts[turn.uuid] = text
            lines.extend(session_lines(session_id, cwd, [turn]))
            lines.extend(
                json.dumps(e, ensure_ascii=False, separators=(",", ":"))
                for e in _noise_entries(session_id, cwd, at + timedelta(seconds=4))
            )
        folder = claude / "projects" / slug(cwd)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{session_id}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        # The session's subagents: their prompts are rules, typed by the main agent, not the person.
        agent_turns = [Turn(SIDECHAIN_NOISE, start + timedelta(minutes=5 * first, seconds=30))]
        agent = session_lines(session_id, cwd, agent_turns)
        sub = folder / session_id / "subagents" / f"agent-{session_id[:8]}.jsonl"
        sub.parent.mkdir(parents=True, exist_ok=True)
        sub.write_text("\n".join(agent) + "\n", encoding="utf-8")
        (folder / f"agent-{session_id[:8]}.jsonl").write_text("\n".join(agent) + "\n", encoding="utf-8")
    return placed


@pytest.fixture(scope="module")
def placed_heldout(tmp_path_factory: pytest.TempPathFactory) -> tuple[PlacedSet, list[Signal]]:
    home = tmp_path_factory.mktemp("placed-home")
    claude = home / ".claude"
    rows = labelled(HELDOUT)
    placed = place(claude, rows)
    found = Session.open(claude_dir=claude).signals()
    return placed, found


def test_placed_transcripts_carry_noise_everywhere(placed_heldout: tuple[PlacedSet, list[Signal]]) -> None:
    placed, _ = placed_heldout
    files = list((placed.claude / "projects").rglob("*.jsonl"))
    blob = b"".join(p.read_bytes() for p in files)
    assert blob.count(NOISE.encode()) > 10 * len(placed.labels)
    # The user's words are a few percent of the bytes, as in real transcripts.
    typed = sum(len(t.encode()) for t in placed.texts.values())
    assert typed < 0.05 * len(blob)


def test_placed_signals_come_only_from_user_typed_messages(
    placed_heldout: tuple[PlacedSet, list[Signal]],
) -> None:
    placed, found = placed_heldout
    assert found
    strays = [s for s in found if s.uuid not in placed.labels]
    assert strays == []
    leaked = [s.text for s in found if NOISE in s.text.lower()]
    assert leaked == []


def test_placed_signals_equal_the_signals_of_the_bare_messages(
    placed_heldout: tuple[PlacedSet, list[Signal]],
) -> None:
    """Noise around a message neither adds nor removes anything: the same signals as the text alone
    (the person's part of it: the reader cuts pasted material out of the message itself)."""
    placed, found = placed_heldout
    from_transcripts = sorted((s.uuid, s.text, s.category) for s in found)
    at = datetime.now(timezone.utc)
    direct = sorted(
        (s.uuid, s.text, s.category)
        for uuid, text in placed.texts.items()
        for own in [person_text(text, Counter())]
        if own is not None
        for s in extract_signals(UserMessage("s", uuid, at, None, own), "p")
    )
    assert from_transcripts == direct


def test_placed_heldout_detection_f1(
    placed_heldout: tuple[PlacedSet, list[Signal]], report: Callable[[str], None]
) -> None:
    placed, found = placed_heldout
    flagged = {s.uuid for s in found}
    score = Score()
    for uuid, labels in placed.labels.items():
        score.add(uuid in flagged, bool(labels))
    report(signals_line(score.line("held-out placed in 2.1.328 transcripts, via Session.signals")))
    assert score.f1 >= F1_TARGET


def test_placed_signals_are_well_formed(placed_heldout: tuple[PlacedSet, list[Signal]]) -> None:
    _, found = placed_heldout
    for signal in found:
        check_signal(signal)


# -- the shape of a signal -------------------------------------------------------------------------------


def check_signal(signal: Signal) -> None:
    assert signal.category in CATEGORIES
    assert signal.categories and signal.categories[0] == signal.category
    assert set(signal.categories) <= set(CATEGORIES)
    assert 0 < len(signal.text) <= SIGNAL_MAX_CHARS
    for name in ("confidence", "durability", "change_risk", "sensitivity"):
        value = getattr(signal, name)
        assert isinstance(value, float) and 0.0 <= value <= 1.0, (name, value)
    assert set(signal.public_json()) == set(JSON_KEYS)


def test_cue_scanner_never_hides_a_cue() -> None:
    # A cue's regex runs only when the one-pass scan found one of its required fragments. The
    # fragments are derived from the regexes; this checks the derivation and the scan on every
    # labelled sentence, and on each fragment spliced into other text (and glued to a longer one,
    # where the scan reports the longer fragment at that position).
    from dream import features
    from dream.sentences import split_sentences

    scanner = features._SCANNER
    gated = set(features.CUES) - scanner.always
    assert {"durable", "oneoff", "decision", "pattern", "correction", "request", "preference"} <= gated
    sentences = [
        s.lower().strip()
        for name in (*TRAINING, HELDOUT)
        for text, _ in labelled(name)
        for s in split_sentences(text)
    ]
    rng = random.Random(7)
    assert scanner.scan is not None
    fragments = list(scanner.scan.needles)
    for fragment in fragments:
        host = rng.choice(sentences)
        at = rng.randrange(len(host) + 1)
        sentences.append(host[:at] + fragment + host[at:])
        sentences.append(host[:at] + fragment + rng.choice(fragments) + host[at:])
    hits = 0
    for sentence in sentences:
        candidates = scanner.candidates(sentence)
        for name, pattern in features.CUES.items():
            if pattern.search(sentence):
                hits += 1
                assert name in candidates, (name, sentence)
        assert features.cues_present(sentence) == [n for n, p in features.CUES.items() if p.search(sentence)]
    assert hits > 1000


def _signals(text: str, uuid: str = "u-1") -> list[Signal]:
    at = datetime(2026, 3, 15, 10, 0, tzinfo=timezone.utc)
    return extract_signals(UserMessage("sess-1", uuid, at, "/home/dana/app", text), "proj")


def test_scores_are_within_0_and_1_on_all_labelled_data() -> None:
    count = 0
    for name in (*TRAINING, HELDOUT):
        for text, _ in labelled(name):
            for signal in _signals(text):
                check_signal(signal)
                count += 1
    assert count > 300


def test_signal_carries_the_message_identity() -> None:
    [signal] = _signals("From now on always use pnpm in this repo.", uuid="7f3c")
    assert (signal.project, signal.session_id, signal.uuid) == ("proj", "sess-1", "7f3c")
    assert signal.timestamp.startswith("2026-03-15T10:00:00")


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("No, this repo uses uv, never plain pip.", "correction"),
        ("I prefer small commits.", "preference"),
        ("Never add emojis.", "preference"),
        ("Let's go with SQLite; Postgres is overkill here.", "decision"),
        ("Every time you add an endpoint, update openapi.yaml.", "pattern"),
        ("Staging runs on Fly.io in fra.", "fact"),
    ],
)
def test_design_examples_get_their_category(text: str, category: str) -> None:
    found = _signals(text)
    assert found, text
    assert category in {c for s in found for c in s.categories}, [(s.text, s.categories) for s in found]


@pytest.mark.parametrize(
    "text",
    [
        "From now on always use pnpm in this repo.",
        "Never add emojis.",
        "Never add emojis to commit messages.",
        "Always open a PR; never commit directly to main.",
        "Every time you add an endpoint, update openapi.yaml.",
    ],
)
def test_explicit_instructions_get_high_confidence(text: str) -> None:
    # DESIGN.md §4: explicit instruction -> high confidence. "high" is what proposals label >= 0.85.
    found = _signals(text)
    assert found
    assert max(s.confidence for s in found) >= 0.85, [(s.text, s.confidence) for s in found]


# -- hard cases ---------------------------------------------------------------------------------------------

NOT_SIGNALS = {
    # questions that sound like rules
    "question-never": "do we never use ORMs here?",
    "question-always": "Should we always run the migrations before the tests?",
    "question-repo-fact": "Is it true that this repo uses pnpm?",
    "question-why-always": "why do you always add emojis?",
    "question-ci": "Are we still on Python 3.9 in CI?",
    # steering of the current step, with trigger words
    "oneoff-just-this-once": "always run the slow tests too, just this once",
    "oneoff-for-now": "no, just the auth tests for now",
    "oneoff-skip-linter": "just this once, skip the linter",
    "oneoff-not-now": "not now, first fix the failing import",
    "oneoff-this-file-only": "use tabs instead of spaces in this file only",
    "oneoff-this-pr": "for this PR only, don't bother updating the changelog",
    "oneoff-stop": "stop, don't push yet",
    # remarks about the last output that do not generalise
    "remark-wrong-line": "that's wrong, the function should return None on line 12",
    "remark-undo": "nope, undo that last change",
    "thanks": "thanks, that works",
    # pasted logs and errors
    "log-traceback": (
        'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n    always_use_pnpm()\n'
        "NameError: name 'always_use_pnpm' is not defined"
    ),
    "log-error-lines": "ERROR: from now on always use pnpm\nERROR: never use npm",
    "log-fenced": (
        "here's the output:\n```\nwarning: always use --frozen-lockfile from now on\n"
        "error: never run npm install\n```"
    ),
    "log-pytest": (
        "FAILED tests/test_api.py::test_create - AssertionError: we always use pnpm\n"
        "=========== 1 failed, 41 passed in 3.20s ==========="
    ),
    # code
    "code-fenced": "```python\n# from now on always use pnpm\nNEVER_USE_NPM = True\n```",
    "code-indented": (
        "    def always_use_pnpm():\n        return True\n    # never use npm from now on\n"
        "this is what I have so far, does it look right?"
    ),
    # quoted text
    "quote-inline": 'the README says "never use sudo in the install script" but that is outdated',
    "quote-block": (
        "> from now on always use pnpm\n> never run npm install\nwhat does this comment in the PR mean?"
    ),
    "quote-coworker": "My coworker said \"from now on always squash merge\" but I'm not sure she's right",
}

SIGNALS = {
    # negation is still a rule
    "negation-never": "Never add emojis to commit messages.",
    "negation-no-uv": "No, this repo uses uv, never plain pip.",
    "negation-dont-docker": "We don't use Docker here, everything is deployed as systemd units.",
    "negation-dont-ever": "Don't ever commit directly to main in this repo; always open a PR.",
    "negation-do-not-print": "Do not use print for logging in this codebase, use the logger.",
    # durable markers
    "durable-from-now-on": "From now on always use pnpm in this repo.",
    "durable-from-now-on-pr": "From now on always run the linter before you open a pull request.",
    "durable-every-time": "Every time you add an endpoint, update openapi.yaml.",
    "durable-in-this-repo": "In this repo we indent with tabs, not spaces.",
    "durable-going-forward": "Going forward, put new migrations under db/migrations.",
    # a rule buried in a task request
    "buried-rule": (
        "fix the login bug and, by the way, prices are integer cents across the whole billing service, "
        "so never use floats for money"
    ),
}


def test_hard_cases_are_judged_right() -> None:
    # The model is statistical: a single hand-picked sentence may go either way, so the hard cases
    # are held to an accuracy, and every miss is printed so a regression is visible.
    misses = [f"missed signal: {name}" for name, text in SIGNALS.items() if not is_signal_message(text)]
    misses += [f"false signal: {name}" for name, text in NOT_SIGNALS.items() if is_signal_message(text)]
    total = len(SIGNALS) + len(NOT_SIGNALS)
    accuracy = 1 - len(misses) / total
    print(f"hard cases: {total - len(misses)}/{total} right", *misses, sep="\n  ")
    assert accuracy >= 0.9, misses


@pytest.mark.parametrize("name", sorted(NOT_SIGNALS))
def test_a_non_signal_message_yields_no_signal_object_when_undetected(name: str) -> None:
    # Detection and extraction agree: a message judged not a signal yields no Signal.
    text = NOT_SIGNALS[name]
    if not is_signal_message(text):
        assert _signals(text) == []


def test_rule_after_a_pasted_log_is_found_and_the_log_is_not() -> None:
    text = (
        "Here's the CI output:\n```\nnpm ERR! always use pnpm, never npm\nnpm ERR! code ERESOLVE\n```\n"
        "From now on, run the linter before every push."
    )
    found = _signals(text)
    assert found
    assert all("linter" in s.text for s in found)
    assert not any("ERR" in s.text or "pnpm" in s.text for s in found)


def test_quoted_words_never_become_the_users_rule() -> None:
    text = (
        'The linter says "never exceed eighty columns anywhere" again. '
        "In this repo the max line length is 110."
    )
    found = _signals(text)
    assert found
    assert not any("eighty" in s.text for s in found)
    assert any("110" in s.text for s in found)


def test_code_inside_a_rule_message_is_not_the_rule() -> None:
    text = (
        "From now on wrap every handler like this:\n```python\n@app.route('/always/never')\n"
        "def handler():\n    return always_use_npm()\n```"
    )
    for signal in _signals(text):
        assert "always_use_npm" not in signal.text and "@app.route" not in signal.text


# -- other languages and odd text --------------------------------------------------------------------------

FOREIGN = [
    "Ab jetzt bitte immer pnpm verwenden, niemals npm.",
    "À partir de maintenant, utilise toujours pnpm, jamais npm.",
    "A partir de ahora usa siempre pnpm, nunca npm.",
    "A partir de agora use sempre pnpm, nunca npm.",
    "D'ora in poi usa sempre pnpm, mai npm.",
    "Gebruik voortaan altijd pnpm, nooit npm.",
    "今後は常にpnpmを使ってください。npmは絶対に使わないで。",
    "以后总是使用 pnpm，永远不要用 npm。",
    "앞으로는 항상 pnpm을 사용하고 npm은 절대 사용하지 마세요.",
    "Всегда используй pnpm, никогда npm.",
    "من الآن فصاعدًا استخدم دائمًا pnpm وليس npm.",
    "מעכשיו תמיד להשתמש ב-pnpm ולא ב-npm.",
    "अब से हमेशा pnpm का उपयोग करें, कभी npm नहीं।",
    "ต่อจากนี้ใช้ pnpm เสมอ ห้ามใช้ npm",
    "🚀🚀🚀 always 🔥 pnpm 🔥 never npm 🙏",
    "Z̷̢͈a̵͓͝l̶̰̈g̴̣̈́o̸̤͐ always use pnpm",
    "\u202eevig reven mpn esu\u202c always use pnpm",
    "tab\there, nul \x00 and bell \x07 always use pnpm",
    "ǅ ǈ ǋ ﬁ ﬂ ＡＬＷＡＹＳ ｕｓｅ ｐｎｐｍ",
    "a" * 20_000,
    "From now on always use pnpm. " * 400,
]


@pytest.mark.parametrize("text", FOREIGN, ids=[f"text{i}" for i in range(len(FOREIGN))])
def test_other_languages_and_odd_text_do_not_crash(text: str) -> None:
    assert isinstance(is_signal_message(text), bool)
    for signal in _signals(text):
        check_signal(signal)


def test_lone_surrogate_in_a_transcript_does_not_break_gathering(isolated_home: Path) -> None:
    # JavaScript strings are UTF-16: a message cut in the middle of an emoji is written by JSON.stringify
    # as a lone surrogate escape ("\ud83d"). The line is valid JSON; the str it decodes to cannot be
    # encoded as UTF-8, so it must be made valid somewhere between the reader and the digest cache.
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"])
    turn = write_lone_surrogate_session(
        claude, "/home/dana/app", datetime.now(timezone.utc) - timedelta(hours=1)
    )
    found = Session.open(claude_dir=claude).signals()
    assert [s.uuid for s in found] == [turn.uuid]
    for signal in found:
        check_signal(signal)
        signal.text.encode("utf-8")
    # The second run reads the digest the first one wrote.
    again = Session.open(claude_dir=claude)
    assert [s.text for s in again.signals()] == [s.text for s in found]


# -- secrets ------------------------------------------------------------------------------------------------


def _secrets() -> dict[str, str]:
    """Real-shaped credentials, built at test time so no literal secret lives in the repository."""
    rng = random.Random(2026)
    alnum = string.ascii_letters + string.digits

    def body(n: int, chars: str = alnum) -> str:
        return "".join(rng.choice(chars) for _ in range(n))

    b64 = string.ascii_letters + string.digits + "+/"
    return {
        "anthropic": "sk-" + "ant-" + "api03-" + body(93, alnum + "_-") + "AA",
        "anthropic-admin": "sk-" + "ant-" + "admin01-" + body(93, alnum + "_-") + "AA",
        "openai": "sk-" + "proj-" + body(48, alnum + "_-"),
        "openai-legacy": "sk-" + body(48),
        "github": "gh" + "p_" + body(36),
        "github-oauth": "gh" + "o_" + body(36),
        "github-pat": "github" + "_pat_" + body(22) + "_" + body(59),
        "gitlab": "gl" + "pat-" + body(20),
        "aws": "AK" + "IA" + body(16, string.ascii_uppercase + string.digits),
        "slack": "xo" + "xb-" + body(11, string.digits) + "-" + body(12, string.digits) + "-" + body(24),
        "stripe": "sk" + "_live_" + body(24),
        "google": "AI" + "za" + body(35, alnum + "_-"),
        "npm": "np" + "m_" + body(36),
        "huggingface": "hf" + "_" + body(17, string.ascii_lowercase) + body(17, string.ascii_uppercase),
        "jwt": "ey" + "J" + body(20, alnum) + ".ey" + "J" + body(40, alnum) + "." + body(43, alnum + "_-"),
        "bearer": body(40, alnum),
        "url-password": "hunter" + body(8, string.digits) + "x",
        "password": "Tr0ub4dor" + "&" + body(6),
        "private-key-body": body(64, b64),
    }


def _secret_messages() -> list[tuple[str, str]]:
    s = _secrets()
    return [
        (s["anthropic"], f"From now on always use the key {s['anthropic']} for the eval runs."),
        (
            s["anthropic-admin"],
            f"Remember, the admin key is {s['anthropic-admin']} and we rotate it monthly.",
        ),
        (s["openai"], f"In this repo we always call OpenAI with {s['openai']} from the staging vault."),
        (s["openai-legacy"], f"The old scripts always use {s['openai-legacy']}, never change that."),
        (s["github"], f"From now on push with the token {s['github']} in CI."),
        (s["github-oauth"], f"Every time you publish, authenticate with {s['github-oauth']}."),
        (s["github-pat"], f"We always use {s['github-pat']} for the release bot."),
        (s["gitlab"], f"The mirror job always uses {s['gitlab']}, never a personal token."),
        (s["aws"], f"Our staging AWS key is {s['aws']}, always use that profile."),
        (s["slack"], f"From now on post deploy notes with {s['slack']}."),
        (s["stripe"], f"Always test payments with {s['stripe']} on staging."),
        (s["google"], f"The maps widget always uses {s['google']} in this repo."),
        (s["npm"], f"Publish with {s['npm']} every time, never from a laptop."),
        (s["huggingface"], f"From now on download models with {s['huggingface']}."),
        (s["jwt"], f"The test fixtures always use this JWT: {s['jwt']}"),
        (
            s["bearer"],
            f"Every request to the admin API needs Authorization: Bearer {s['bearer']} from now on.",
        ),
        (
            s["url-password"],
            f"Always connect with postgres://app:{s['url-password']}@db.internal:5432/app in this repo.",
        ),
        (s["password"], f"From now on the staging database uses password={s['password']} and nothing else."),
        (
            s["private-key-body"],
            "From now on deploy with this key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n"
            f"{s['private-key-body']}\n-----END OPENSSH PRIVATE KEY-----\nalways.",
        ),
    ]


@pytest.mark.parametrize(
    "index",
    range(len(_secret_messages())),
    ids=[k for k in _secrets() if k != "private-key-body"] + ["private-key"],
)
def test_secret_never_appears_in_a_signal(index: int) -> None:
    secret, text = _secret_messages()[index]
    assert secret in text
    for signal in _signals(text):
        assert secret not in signal.text
        assert secret not in json.dumps(signal.to_json())
        check_signal(signal)


def test_secret_bearing_rules_are_kept_redacted() -> None:
    kept = [s for secret, text in _secret_messages() for s in _signals(text)]
    # Not vacuous: most of these rules are signals, and what is kept shows a marker instead of the value.
    assert len(kept) >= len(_secret_messages()) // 2
    redacted = [s for s in kept if "[REDACTED:" in s.text]
    assert redacted
    for signal in redacted:
        assert signal.redactions
        # A redacted signal must never pass the sensitivity gate on its own (DESIGN.md §6: it waits).
        assert signal.sensitivity > GATE_MAX_SENSITIVITY


def _iter_signal_strings(found: Iterable[Signal]) -> Iterable[str]:
    for signal in found:
        yield json.dumps(signal.to_json(), ensure_ascii=False)


def test_secrets_in_transcripts_stay_out_of_every_signal(isolated_home: Path) -> None:
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"])
    rows = [(text, ["preference"]) for _, text in _secret_messages()]
    placed = place(claude, rows)
    found = Session.open(claude_dir=claude).signals()
    assert {s.uuid for s in found} <= set(placed.labels)
    dumped = "\n".join(_iter_signal_strings(found))
    for secret, _ in _secret_messages():
        assert secret not in dumped
    for path in (claude / "dream").rglob("*"):
        if path.is_file():
            data = path.read_text(encoding="utf-8", errors="replace")
            for secret, _ in _secret_messages():
                assert secret not in data, path


@pytest.mark.parametrize(
    ("message", "name"),
    [
        ("Hello. Slack, c'est terminé pour nous. Change the failure hook please.", "Slack"),
        ("yo\nexq wywalilismy w zeszlym tyg\ndzis sms worker", "exq"),
        ("fyi the old Memcached box is dead now, anyway the login page", "Memcached"),
        # a setting said to have changed is news as well
        (
            "Ah yes — we bumped the minimum iOS version to 15.0 for exactly this reason, I just hadn't "
            "got round to the Podfile. Please set it to 15.0 in ios/Podfile.",
            "iOS",
        ),
    ],
)
def test_a_change_announced_in_passing_is_a_signal_whatever_the_model_reads(message: str, name: str) -> None:
    from dream.model import load_model
    from dream.rules import split_pieces
    from dream.signals import score_message

    # The model alone misses the piece (what makes this a test of the rule, not of the model) ...
    piece = next(p for p in split_pieces(message) if name in p.text)
    [scored] = [s for s in score_message(message) if s.text == piece.scored]
    assert scored.probability < load_model().threshold
    # ... and the message still yields it, so an entry that names it can be retired.
    assert any(name.lower() in s.text.lower() for s in _signals(message))


def test_a_request_to_remove_something_is_no_announcement() -> None:
    assert not any("gtag" in s.text for s in _signals("can u rip out the gtag stuff from app/layout.tsx?"))


@pytest.mark.parametrize(
    ("message", "risky"),
    [
        (
            "The new Heltec V3 board came today; its PlatformIO env is heltec_wifi_lora_32_V3 from now on.",
            False,
        ),
        ("Just for today, skip the Playwright suite in CI.", True),
        ("Until the migration lands, always write to both tables.", True),
        # a one-off exception scoped to one release, build or run, in any of the usual wordings
        ("For this release only, leave the Dutch strings untranslated.", True),
        ("oh and just for this build, skip the GUT run in the script.", True),
        ("Mets le schedule du rapport à 6h pour l'instant.", True),
        ("Every release gets a changelog entry.", False),
    ],
)
def test_today_dates_news_and_only_for_today_limits_a_rule(message: str, risky: bool) -> None:
    from dream import defaults
    from dream.signals import ScoredSentence, _scores

    _, _, change_risk, _ = _scores(ScoredSentence(message, 0.9, ("fact",), ()), redacted=False)
    assert (change_risk > defaults.GATE_MAX_CHANGE_RISK) is risky


def test_the_pieces_of_one_rule_are_evidence_of_it_together() -> None:
    """Terse pieces that the model reads as barely rules one by one ("crane shifts are 8h.",
    "boundaries 06:00, 14:00, 22:00 port local.") are one rule, and their evidence adds up."""
    from dream.model import load_model
    from dream.rules import split_pieces
    from dream.signals import _score_pieces

    text = (
        "crane shifts are 8h. boundaries 06:00, 14:00, 22:00 port local. "
        "an assignment can't cross a boundary, split it."
    )
    pieces = split_pieces(text)
    probabilities = [s.probability for s in _score_pieces([p.scored for p in pieces], text)]
    message = UserMessage("s", "u", datetime(2026, 11, 20, tzinfo=timezone.utc), None, text)
    [signal] = extract_signals(message, "p")
    best_alone = load_model().durability(max(probabilities), text, ())
    assert len(pieces) == 3 and signal.durability > best_alone + 0.2, (probabilities, signal)
