"""The signal model: logistic weights over sentence features, shipped in the package as JSON.

Trained by `scripts/train_signal_model.py` on `tests/data/signals-train-*.jsonl`; it loads offline
in a few milliseconds and scores a sentence with a dictionary lookup per feature.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat

from dream.defaults import CATEGORIES
from dream.paths import package_data

MODEL_RESOURCE = "signal_model.json"
# Must equal the "version" inside the JSON (checked at load): digests are keyed by it, and
# reading it here avoids loading the weights when every digest is cached.
MODEL_VERSION = "4"


@dataclass(frozen=True)
class SignalModel:
    version: str
    threshold: float
    signal_weights: dict[str, float]
    category_weights: dict[str, dict[str, float]]

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
        signal_weights={k: float(v) for k, v in raw["signal"].items()},
        category_weights={
            c: {k: float(v) for k, v in raw["categories"].get(c, {}).items()} for c in CATEGORIES
        },
    )
