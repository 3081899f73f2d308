"""What a proposal does to memory. Its own module: proposals make them, gates and plans read them."""

from __future__ import annotations

import enum


class Action(str, enum.Enum):
    ADD = "add"  # a new entry
    UPDATE = "update"  # a restatement: the entry's date and source become the newest
    REPLACE = "replace"  # a contradiction: the new text replaces the entry, the old one is archived
    ARCHIVE = "archive"  # an entry retired alongside a replacement
    REDATE = "redate"  # a relative date in an entry made absolute

    def __str__(self) -> str:
        return self.value
