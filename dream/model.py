"""The signal model: logistic weights over sentence features, shipped in the package as JSON.

Trained by `scripts/train_signal_model.py` on `tests/data/signals-train-*.jsonl`; it loads offline
in a few milliseconds and scores a sentence with a dictionary lookup per feature.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat
from typing import Any

from dream import regex_cache
from dream.defaults import CATEGORIES
from dream.paths import package_data

MODEL_RESOURCE = "signal_model.json"
# Must equal the "version" inside the JSON (checked at load): digests are keyed by it, and
# reading it here avoids loading the weights when every digest is cached.
MODEL_VERSION = "5"


# What the durability calibration reads beside the model's logit (scripts/train_signal_model.py).
CALIBRATION_CUES = ("durable", "oneoff", "question", "request")
_STRONG_ONE_OFF = regex_cache.compile(
    r"\bjust this once\b|\bthis once\b|\bthis time\b|\bfor now\b|\bfor this (?:one|pr|task|ticket|"
    r"branch|run|demo|comparison|benchmark|spike)\b|\bjust (?:for )?today\b|\bonly today\b|"
    r"\bright now\b|\bfor the moment\b|\bdessa vez\b|\bs[óo] hoje\b|\besta vez\b|\bpor ahora\b|"
    r"\bpor enquanto\b|\bdiesmal\b|\bcette fois\b|\bon this branch\b",
    re.IGNORECASE,
)


def calibration_cues(text: str, cues: Iterable[str]) -> set[str]:
    """The calibration's inputs: the cue groups present, with "oneoff" only for the markers that
    do mean one task ("just this once", "for now"), not every "here" or "first"."""
    present = set(cues) & set(CALIBRATION_CUES) - {"oneoff"}
    if _STRONG_ONE_OFF.search(text):
        present.add("oneoff")
    return present


@dataclass(frozen=True)
class SignalModel:
    version: str
    threshold: float
    signal_weights: dict[str, float]
    category_weights: dict[str, dict[str, float]]
    calibration: dict[str, float]

    def durability(self, probability: float, text: str, cues: Iterable[str]) -> float:
        """How likely the rule is to hold beyond the task, as a calibrated probability."""
        if not self.calibration:
            return probability
        p = min(max(probability, 1e-6), 1 - 1e-6)
        present = calibration_cues(text, cues)
        z = self.calibration.get("logit", 1.0) * math.log(p / (1 - p)) + self.calibration.get("bias", 0.0)
        z += sum(self.calibration.get(cue, 0.0) for cue in present)
        return _sigmoid(z)

    def signal_probability(self, features: list[str]) -> float:
        # map() over dict.get with a default runs in C: twice as fast as a generator here.
        return _sigmoid(sum(map(self.signal_weights.get, features, repeat(0.0, len(features)))))

    def category_probabilities(self, features: list[str]) -> dict[str, float]:
        zeros = [0.0] * len(features)
        return {
            category: _sigmoid(sum(map(weights.get, features, zeros)))
            for category, weights in self.category_weights.items()
        }


def _sigmoid(x: float) -> float:
    if x < -40:
        return 0.0
    if x > 40:
        return 1.0
    return 1.0 / (1.0 + math.exp(-x))


def _model_text() -> str:
    # The file beside this module, as an installed package has it; importlib.resources (whose
    # import alone costs a new session ~25 ms) only where the package is not plain files.
    try:
        return package_data(MODEL_RESOURCE).read_text(encoding="utf-8")
    except OSError:
        from importlib import resources

        return resources.files("dream.data").joinpath(MODEL_RESOURCE).read_text(encoding="utf-8")


def _weights(stored: dict[str, Any]) -> dict[str, float]:
    """Weights stored as two arrays (`features`, `weights`: what the training script writes, and
    quick to parse), or as one object of feature → weight (older files)."""
    if set(stored) == {"features", "weights"}:
        return dict(zip(stored["features"], map(float, stored["weights"]), strict=True))
    return {k: float(v) for k, v in stored.items()}


@lru_cache(maxsize=1)
def load_model() -> SignalModel:
    raw = json.loads(_model_text())
    if str(raw["version"]) != MODEL_VERSION:
        raise RuntimeError(
            f"signal model version {raw['version']} does not match MODEL_VERSION {MODEL_VERSION}"
        )
    return SignalModel(
        version=str(raw["version"]),
        threshold=float(raw["threshold"]),
        signal_weights=_weights(raw["signal"]),
        category_weights={c: _weights(raw["categories"].get(c, {})) for c in CATEGORIES},
        calibration={k: float(v) for k, v in raw.get("calibration", {}).items()},
    )
