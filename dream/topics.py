"""The files dream keeps in a memory dir, by name: topic files per category, the archive, the index."""

from __future__ import annotations

TOPIC_FILES = {
    "correction": "corrections.md",
    "preference": "preferences.md",
    "decision": "decisions.md",
    "pattern": "patterns.md",
    "fact": "facts.md",
}
ARCHIVE = "archive.md"
INDEX = "MEMORY.md"
NATIVE_TYPES = ("user", "feedback", "project", "reference")
TOPIC_TYPE = {
    "corrections.md": "feedback",
    "preferences.md": "feedback",
    "decisions.md": "project",
    "patterns.md": "feedback",
    "facts.md": "project",
    "archive.md": "reference",
}
TOPIC_DESCRIPTION = {
    "corrections.md": "Corrections: where the agent was wrong and what is right",
    "preferences.md": "How the user wants things done",
    "decisions.md": "Decisions made and what was chosen",
    "patterns.md": "Recurring workflows and things that keep happening",
    "facts.md": "Stable facts about the project, the user and their environment",
    "archive.md": "Retired memories, with the date and reason they were retired",
}
