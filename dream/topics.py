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
# Whole sections of a curated MEMORY.md, moved out verbatim to keep it under the load limits.
CONTINUED = "memory-continued.md"
INDEX = "MEMORY.md"
NATIVE_TYPES = ("user", "feedback", "project", "reference")
TOPIC_TYPE = {
    "corrections.md": "feedback",
    "preferences.md": "feedback",
    "decisions.md": "project",
    "patterns.md": "feedback",
    "facts.md": "project",
    "archive.md": "reference",
    CONTINUED: "project",
}
TOPIC_DESCRIPTION = {
    "corrections.md": "Corrections: where the agent was wrong and what is right",
    "preferences.md": "How the user wants things done",
    "decisions.md": "Decisions made and what was chosen",
    "patterns.md": "Recurring workflows and things that keep happening",
    "facts.md": "Stable facts about the project, the user and their environment",
    "archive.md": "Retired memories, with the date and reason they were retired",
    CONTINUED: "Sections of MEMORY.md moved here, as written, to keep it under Claude Code's load limits",
}
