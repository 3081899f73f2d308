"""Every default in one place. The config file and the command line override these."""

from __future__ import annotations

MEMORY_TYPES = ("native", "openclaw", "project-root")
DEFAULT_MEMORY_TYPE = "native"

MIN_HOURS = 24
MIN_SESSIONS = 5
WINDOW_DAYS = 7
STALE_DAYS = 90

# Claude Code cuts MEMORY.md at 200 lines and 25,000 characters when it loads it (DESIGN.md §8).
# Keep a margin below both so a hand edit or a long line never pushes a correction off the end.
INDEX_MAX_LINES = 200
INDEX_MAX_CHARS = 25_000
INDEX_TARGET_LINES = 180
INDEX_TARGET_CHARS = 22_000
INDEX_LINE_MAX_CHARS = 150
QUICK_REFERENCE_MAX = 10
# Where MEMORY.md holds the consolidated rules themselves (OpenClaw), at most this many; the rest
# stay in the topic files it links (and the load limits above still hold: whole blocks move).
INDEX_RULES_MAX = 60

# Digests: per session at most this many signals of each category, each at most this long.
DIGEST_MAX_PER_CATEGORY = 8
SIGNAL_MAX_CHARS = 200
# A rule rewritten from a message aims at this length (DESIGN.md §5: at most ~150 characters).
RULE_TARGET_CHARS = 150
# The person's words a rule rests on, as kept beside it.
QUOTE_MAX_CHARS = 600

# The agent pass (DESIGN.md §9). A message is a candidate when it yielded a signal or the model
# reads one of its pieces at this probability or more (the agent drops what is not durable).
CANDIDATE_MIN_PROBABILITY = 0.2
CANDIDATE_TEXT_MAX_CHARS = 2000
CANDIDATE_CONTEXT_MAX_CHARS = 500
BATCH_MAX_CANDIDATES = 24
BATCH_MAX_ENTRIES = 64
MAX_TOKENS = 60_000  # DREAM_MAX_TOKENS: what one plan, or one unattended run, may send the model
# A message the agent quotes exactly, and judges a rule, passes the confidence and durability
# gates (DESIGN.md §9: the agent may raise both); change risk and sensitivity stay the host's.
AGENT_CONFIDENCE = 0.95
AGENT_DURABILITY = 0.95
# A decision's text is a rule (§5): at most this long.
DECISION_TEXT_MAX_CHARS = SIGNAL_MAX_CHARS
# A decisions document larger than this, or with more decisions than this per candidate of its
# plan, is refused whole.
DECISIONS_MAX_BYTES = 2 * 1024 * 1024
DECISIONS_MAX_PER_CANDIDATE = 4
PLANS_KEPT = 20
# The unattended consolidator: the person's own Claude Code, asked with no tools.
CONSOLIDATORS = ("none", "claude")
CONSOLIDATOR = "none"
CLAUDE_BIN = "claude"
CONSOLIDATOR_TIMEOUT_SECONDS = 300

# Gates before a proposal is applied without review (issue 3).
GATE_MIN_CONFIDENCE = 0.9
GATE_MIN_DURABILITY = 0.85
GATE_MAX_CHANGE_RISK = 0.2
GATE_MAX_SENSITIVITY = 0.3
# An explicit change to an entry from before the run ("we moved from conda to pixi" against "the
# conda env in envs/x.yaml"): the person said the entry no longer holds, so leaving it current is
# the likelier harm; the model's doubt about the new wording weighs less. Its words are kept and
# the old entry archived with the reason, so the change is undone by restore or by hand.
GATE_REPLACE_MIN_SCORE = 0.5
MAX_CHANGES_PER_RUN = 50
# Below the gates, a proposal under this durability is not worth the person's answer: dropped
# (it is still in the transcripts; a restatement raises it). Above it, it may wait for review:
# durability is calibrated, so at 0.8 or more about eight in ten listed items are rules.
REVIEW_MIN_DURABILITY = 0.8
# The review queue is short (issue 13): the most important this many per memory dir and run are
# listed; the rest wait unlisted in the transcripts and are counted.
REVIEW_QUEUE_MAX = 10

CATEGORIES = ("correction", "preference", "decision", "pattern", "fact")
CATEGORY_POLICY_DEFAULT = {
    "correction": "auto",
    "preference": "auto",
    "decision": "auto",
    "pattern": "auto",
    "fact": "auto",
}

# The nightly schedule (issue 18): DREAM_AT=HH:MM local, unset means none.
SCHEDULE_AT: str | None = None
# A window run within this long of its time is `scheduled`; later, `recovered`.
SCHEDULE_ON_TIME_SECONDS = 300
# The daemon looks at least this often before a window (a timer may wake hours late after sleep).
SCHEDULE_CHECK_SECONDS = 900
# Inside that wait it wakes this often to compare the wall clock (a suspend stops monotonic time).
DAEMON_WAKE_SECONDS = 60
# A scheduled run dreams for the projects with a session in this many hours before it.
SCHEDULE_ACTIVE_HOURS = 24
# The daemon's log (launchd and cron append to it) is cut to its newest half past this size.
DAEMON_LOG_MAX_BYTES = 1024 * 1024
# The user service's names.
SERVICE_NAME = "dream"
LAUNCHD_LABEL = "dream.daemon"

LOCK_TIMEOUT_SECONDS = 10.0
# Claude Code's own auto-dream lock counts as held while younger than this and its PID is alive.
NATIVE_LOCK_MAX_AGE_SECONDS = 3600
# A temp file or an incomplete snapshot older than this was left by a killed run (a younger one
# may be another run's, still working).
LEFTOVER_MAX_AGE_SECONDS = 3600

REPORTS_KEPT = 50
REPORT_MAX_PROPOSALS = 12
REPORT_MAX_REFUSALS = 20
REPORT_MAX_FAILURES = 5

# A JSONL line larger than this is not parsed: user text is never that large, and parsing a
# 100 MB blob line would cost memory for nothing.
MAX_USER_LINE_BYTES = 4 * 1024 * 1024
