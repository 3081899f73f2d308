"""One memory dir to dream, with the evidence that belongs to it (what gather finds, plan uses)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dream.candidates import Candidate
    from dream.digest import Digest
    from dream.signals import Signal


@dataclass
class Target:
    """One memory dir to dream, with the evidence that belongs to it."""

    key: str
    memory_dir: Path
    memory_type: str
    digests: list[Digest] = field(default_factory=list)
    signals: list[Signal] = field(default_factory=list)
    # The window's messages the agent pass may judge (DESIGN.md §9).
    candidates: list[Candidate] = field(default_factory=list)
    cwd: str | None = None
    # The project's folder and its transcripts are gone (reported; archived only on request).
    missing: bool = False
    # Statements left out because a session said more than DIGEST_MAX_PER_CATEGORY of one category.
    over_category_cap: int = 0
