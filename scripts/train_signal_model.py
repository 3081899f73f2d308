"""Train the signal model shipped as dream/data/signal_model.json.

    python scripts/train_signal_model.py            # train on tests/data/signals-train-*.jsonl + dev
    python scripts/train_signal_model.py --eval     # also report F1 on the held-out set (never tuned on)

Plain Python: logistic regression by SGD with L2, over the features of dream/features.py.
Labels are per message while the model scores sentences, so training is multiple-instance: a
message is a signal when its best sentence is. Negative messages give negative sentences; in a
positive message the sentence the current model likes best is the positive one (first pass: all
sentences that carry any cue, else all).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dream.defaults import CATEGORIES  # noqa: E402
from dream.features import sentence_features  # noqa: E402
from dream.rules import split_pieces  # noqa: E402

DATA = ROOT / "tests" / "data"
TRAIN_FILES = [*sorted(DATA.glob("signals-train-*.jsonl")), DATA / "signals-dev.jsonl"]
HELDOUT = DATA / "signals-heldout.jsonl"
OUT = ROOT / "dream" / "data" / "signal_model.json"
from dream.model import MODEL_VERSION as VERSION  # noqa: E402  (bump it there when features change)

# Weights smaller than this change no decision measurably and would triple the file and its load time.
PRUNE = 0.05


def load(paths: list[Path]) -> list[tuple[str, list[str]]]:
    rows = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                obj = json.loads(line)
                rows.append((obj["text"], list(obj["labels"])))
    return rows


# The memory evaluation's projects the model may learn from: its dev half and the training-only
# projects. Never the held-out half.
MEMORY_EVAL_TRAIN = (DATA / "memory-eval" / "dev", DATA / "memory-eval" / "train")


def memory_eval_rows(folders: tuple[Path, ...] = MEMORY_EVAL_TRAIN) -> list[tuple[str, list[str]]]:
    """Every message of those projects, labelled by the ideal items said in it: whole messages in
    the voices real sessions have."""
    from collections import Counter

    from dream.transcripts import person_text

    rows = []
    for path in sorted(p for folder in folders for p in folder.glob("*.json")):
        project = json.loads(path.read_text(encoding="utf-8"))
        said: dict[tuple[int, int], list[str]] = {}
        for item in project["ideal"]:
            for session, turn in item["said_in"]:
                said.setdefault((session, turn), []).append(item["category"])
        for s, session in enumerate(project["sessions"]):
            for t, turn in enumerate(session["turns"]):
                text = person_text(turn["user"], Counter())
                if text:
                    rows.append((text, sorted(set(said.get((s, t), [])))))
    return rows


def message_pieces(text: str) -> tuple[list[str], list[list[str]]]:
    """The pieces of a message as the model reads them, and the features of each (as at run time)."""
    pieces = [piece.scored for piece in split_pieces(text)] or [text.strip() or "-"]
    is_question = text.rstrip().endswith("?")
    return pieces, [sentence_features(s, is_question, len(pieces)) for s in pieces]


def message_features(text: str) -> list[list[str]]:
    return message_pieces(text)[1]


def score(weights: dict[str, float], feats: list[str]) -> float:
    return sum(weights.get(f, 0.0) for f in feats)


def sgd(
    examples: list[tuple[list[str], int]],
    epochs: int = 30,
    rate: float = 0.15,
    l2: float = 1e-3,
    seed: int = 7,
) -> dict[str, float]:
    weights: dict[str, float] = {}
    rng = random.Random(seed)
    order = list(range(len(examples)))
    positives = sum(y for _, y in examples) or 1
    pos_weight = (len(examples) - positives) / positives
    for epoch in range(epochs):
        rng.shuffle(order)
        step = rate / (1 + epoch * 0.2)
        for i in order:
            feats, y = examples[i]
            z = score(weights, feats)
            p = 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
            g = (p - y) * (pos_weight if y else 1.0)
            for f in feats:
                w = weights.get(f, 0.0)
                weights[f] = w - step * (g + l2 * w)
    return {k: round(v, 3) for k, v in weights.items() if abs(v) >= PRUNE}


L2 = 1e-3
L2_GRID = (4e-3, 1.6e-2, 6.4e-2)


def train_signal(rows: list[tuple[str, list[str]]], l2: float | None = None) -> dict[str, float]:
    l2 = L2 if l2 is None else l2
    featurised = [(message_features(text), bool(labels)) for text, labels in rows]
    examples: list[tuple[list[str], int]] = []
    for sents, positive in featurised:
        for feats in sents:
            examples.append((feats, 0 if not positive else 1))
    weights = sgd(examples, l2=l2)
    for _ in range(3):  # multiple-instance refinement
        examples = []
        for sents, positive in featurised:
            if not positive:
                examples.extend((f, 0) for f in sents)
                continue
            best = max(range(len(sents)), key=lambda i: score(weights, sents[i]))
            examples.append((sents[best], 1))
        weights = sgd(examples, l2=l2)
    return weights


def train_categories(
    rows: list[tuple[str, list[str]]], signal: dict[str, float]
) -> dict[str, dict[str, float]]:
    best_sentence = []
    for text, labels in rows:
        if not labels:
            continue
        sents = message_features(text)
        best = max(sents, key=lambda f: score(signal, f))
        best_sentence.append((best, labels))
    models = {}
    for category in CATEGORIES:
        examples = [(feats, int(category in labels)) for feats, labels in best_sentence]
        models[category] = sgd(examples, epochs=25)
    return models


def predict(signal: dict[str, float], threshold: float, text: str) -> bool:
    return max(score(signal, f) for f in message_features(text)) > threshold


def f1(rows: list[tuple[str, list[str]]], signal: dict[str, float], threshold: float) -> dict[str, float]:
    tp = fp = fn = tn = 0
    for text, labels in rows:
        got, want = predict(signal, threshold, text), bool(labels)
        tp += got and want
        fp += got and not want
        fn += want and not got
        tn += not got and not want
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return {
        "n": len(rows),
        "precision": round(precision, 3),
        "recall": round(recall, 3),
        "f1": round(2 * precision * recall / (precision + recall), 3) if precision + recall else 0.0,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
    }


def cross_validate(rows: list[tuple[str, list[str]]], folds: int = 5) -> tuple[float, float]:
    """Pick the L2 strength and the decision threshold by k-fold cross-validation on training rows."""
    # Folds of contiguous blocks: set C keeps each durable rule next to its one-off variants,
    # and a pair split across folds would make the threshold look better than it is.
    rng = random.Random(11)
    blocks = [rows[i : i + 8] for i in range(0, len(rows), 8)]
    rng.shuffle(blocks)
    candidates = [x / 8 for x in range(-16, 17)]
    totals = {(l2, t): 0.0 for l2 in L2_GRID for t in candidates}
    for k in range(folds):
        test = [r for i, block in enumerate(blocks) if i % folds == k for r in block]
        train = [r for i, block in enumerate(blocks) if i % folds != k for r in block]
        for l2 in L2_GRID:
            weights = train_signal(train, l2)
            for t in candidates:
                totals[(l2, t)] += f1(test, weights, t)["f1"]
    best = max(totals, key=lambda key: totals[key])
    print(
        f"cross-validated l2 {best[0]}, threshold {best[1]} (mean F1 {totals[best] / folds:.3f})",
        file=sys.stderr,
    )
    return best


def _calibration_row(weights: dict[str, float], text: str) -> tuple[float, set[str]]:
    """The message's best piece logit and the cues the calibration reads (as at run time)."""
    from dream.features import cues_present
    from dream.model import calibration_cues

    pieces, feats = message_pieces(text)
    best = max(range(len(pieces)), key=lambda i: score(weights, feats[i]))
    return score(weights, feats[best]), calibration_cues(pieces[best], cues_present(pieces[best].lower()))


def calibrate(rows: list[tuple[str, list[str]]], l2: float, folds: int = 5) -> dict[str, float]:
    """Durability as a calibrated probability: a logistic fit over the out-of-fold logit of the
    message's best piece and the cues that say whether a rule outlives the task (durable markers,
    one-off markers, a question). Out of fold, so the calibration sees the model's real errors."""
    from dream.model import CALIBRATION_CUES

    rng = random.Random(13)
    blocks = [rows[i : i + 8] for i in range(0, len(rows), 8)]
    rng.shuffle(blocks)
    examples: list[tuple[list[float], int]] = []
    for k in range(folds):
        test = [r for i, block in enumerate(blocks) if i % folds == k for r in block]
        train = [r for i, block in enumerate(blocks) if i % folds != k for r in block]
        weights = train_signal(train, l2)
        for text, labels in test:
            z, cues = _calibration_row(weights, text)
            examples.append(
                ([z, *(1.0 if c in cues else 0.0 for c in CALIBRATION_CUES), 1.0], int(bool(labels)))
            )
    names = ["logit", *CALIBRATION_CUES, "bias"]
    coef = [1.0] + [0.0] * (len(names) - 1)
    for epoch in range(400):
        grad = [0.0] * len(names)
        for x, y in examples:
            z = sum(c * v for c, v in zip(coef, x, strict=True))
            p = 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
            for j, v in enumerate(x):
                grad[j] += (p - y) * v
        rate = 0.5 / len(examples) / (1 + epoch / 100)
        coef = [c - rate * g for c, g in zip(coef, grad, strict=True)]
    return {name: round(c, 4) for name, c in zip(names, coef, strict=True)}


def calibration_table(rows: list[tuple[str, list[str]]], model: Any) -> list[str]:
    """Calibrated durability by band against the share of messages that truly are signals, and
    the precision and recall of the gate (DESIGN.md §4; the gates' thresholds in dream.defaults)."""
    from dream.defaults import GATE_MIN_DURABILITY
    from dream.features import cues_present

    bands: dict[int, list[int]] = {}
    gated = [0, 0]
    positives = sum(1 for _, labels in rows if labels)
    for text, labels in rows:
        pieces, feats = message_pieces(text)
        best = max(range(len(pieces)), key=lambda i: model.signal_probability(feats[i]))
        durability = model.durability(
            model.signal_probability(feats[best]), pieces[best], cues_present(pieces[best].lower())
        )
        band = min(int(durability * 10), 9)
        bands.setdefault(band, [0, 0])[bool(labels)] += 1
        if durability >= GATE_MIN_DURABILITY:
            gated[bool(labels)] += 1
    lines = [
        f"  durability {b / 10:.1f}-{(b + 1) / 10:.1f}: {n[1]}/{n[0] + n[1]} signals"
        for b, n in sorted(bands.items())
    ]
    applied = gated[0] + gated[1]
    lines.append(
        f"  gate durability >= {GATE_MIN_DURABILITY}: precision {gated[1] / applied if applied else 0:.3f} "
        f"({gated[1]}/{applied}), recall {gated[1] / positives if positives else 0:.3f}"
    )
    return lines


def as_arrays(weights: dict[str, float]) -> dict[str, list[object]]:
    ordered = sorted(weights.items())
    return {"features": [k for k, _ in ordered], "weights": [v for _, v in ordered]}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--eval", action="store_true", help="report F1 on the held-out set")
    parser.add_argument("--no-cv", action="store_true", help="skip cross-validation (threshold 0)")
    args = parser.parse_args()
    rows = load([p for p in TRAIN_FILES if p.exists()]) + memory_eval_rows()
    l2, threshold = (L2, 0.0) if args.no_cv else cross_validate(rows)
    signal = train_signal(rows, l2)
    categories = train_categories(rows, signal)
    calibration = calibrate(rows, l2)
    print("calibration:", calibration, file=sys.stderr)
    print("train:", f1(rows, signal, threshold), file=sys.stderr)
    probability_threshold = round(1 / (1 + math.exp(-threshold)), 4)
    OUT.write_text(
        json.dumps(
            {
                "version": VERSION,
                "threshold": probability_threshold,
                "trained_on": [p.name for p in TRAIN_FILES if p.exists()],
                # Features and weights as two arrays: parsed in a third of the time a JSON object
                # of 75,000 keys takes (dream.model.load_model).
                "signal": as_arrays(signal),
                "categories": {c: as_arrays(w) for c, w in categories.items()},
                "calibration": calibration,
            },
            separators=(",", ":"),
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"wrote {OUT.relative_to(ROOT)}: {len(signal)} signal weights", file=sys.stderr)
    if args.eval and HELDOUT.exists():
        from dream.model import load_model

        load_model.cache_clear()
        print("held-out:", f1(load([HELDOUT]), signal, threshold), file=sys.stderr)
        print("held-out calibration:", file=sys.stderr)
        for line in calibration_table(load([HELDOUT]), load_model()):
            print(line, file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
