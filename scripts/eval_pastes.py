"""Precision and recall of the paste splitter for "this sentence is the person's".

python scripts/eval_pastes.py [--show-errors] [FILE ...]   (default: both halves of tests/data/pastes-*.jsonl)

Each labelled message is a list of segments, the person's framing and pasted bodies, whose
concatenation is the message. The gold sentences are the sentences of each segment (split as the
signal extractor splits them); the splitter's sentences are those of the framing it keeps. A kept
sentence counts as the person's when it is one of the framing segments' sentences.
`pastes-dev.jsonl` is the half the splitter was tuned on; `pastes-heldout.jsonl` never was.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dream.model import load_model  # noqa: E402
from dream.pastes import split_pastes  # noqa: E402
from dream.sentences import split_sentences  # noqa: E402
from dream.signals import score_message  # noqa: E402

DATA = ROOT / "tests" / "data"
HALVES = ("pastes-dev.jsonl", "pastes-heldout.jsonl")


def _norm(sentence: str) -> str:
    return " ".join(sentence.split()).lower()


@dataclass
class Score:
    kept_person: int = 0
    kept: int = 0
    person: int = 0
    messages: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)  # pasted sentences kept, by paste kind
    errors: list[str] = field(default_factory=list)
    # Pasted sentences the signal model would flag: reading the whole message, and the framing only.
    pasted_signals_before: int = 0
    pasted_signals_after: int = 0

    @property
    def precision(self) -> float:
        return self.kept_person / self.kept if self.kept else 1.0

    @property
    def recall(self) -> float:
        return self.kept_person / self.person if self.person else 1.0

    def line(self, name: str) -> str:
        return (
            f"{name}: {self.messages} messages, {self.person} sentences of the person's; "
            f"precision {self.precision:.3f} ({self.kept_person}/{self.kept}), "
            f"recall {self.recall:.3f} ({self.kept_person}/{self.person}); "
            "pasted sentences that would become signals "
            f"{self.pasted_signals_before} -> {self.pasted_signals_after}"
        )


def _flagged(text: str, person: Counter[str]) -> int:
    """Sentences of `text` above the signal threshold that are not the person's."""
    threshold = load_model().threshold
    return sum(1 for s in score_message(text) if s.probability >= threshold and _norm(s.text) not in person)


def score_file(path: Path) -> Score:
    score = Score()
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.strip():
            continue
        row = json.loads(raw)
        score.messages += 1
        text = "".join(segment["text"] for segment in row["segments"])
        person = Counter(
            _norm(s)
            for seg in row["segments"]
            if seg["role"] == "person"
            for s in split_sentences(seg["text"])
        )
        pasted = {
            _norm(s): seg["kind"]
            for seg in row["segments"]
            if seg["role"] == "paste"
            for s in split_sentences(seg["text"])
        }
        framing = split_pastes(text).framing
        kept = Counter(_norm(s) for s in split_sentences(framing))
        score.pasted_signals_before += _flagged(text, person)
        score.pasted_signals_after += _flagged(framing, person)
        hits = kept & person
        score.kept_person += sum(hits.values())
        score.kept += sum(kept.values())
        score.person += sum(person.values())
        for sentence, count in (kept - person).items():
            score.by_kind[pasted.get(sentence, "split differently")] += count
            score.errors.append(f"{row['id']} kept: {sentence[:110]}")
        for sentence in person - kept:
            score.errors.append(f"{row['id']} lost: {sentence[:110]}")
    return score


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--show-errors", action="store_true")
    args = parser.parse_args(argv)
    files = args.files or [DATA / name for name in HALVES]
    for path in files:
        score = score_file(path)
        print(score.line(path.name))
        if score.by_kind:
            print(
                "  pasted sentences kept, by kind: "
                + ", ".join(f"{k} {n}" for k, n in score.by_kind.most_common())
            )
        if args.show_errors:
            for error in score.errors:
                print("  " + error)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
