"""dream: consolidates what a person tells their coding agent into durable Markdown memory."""

from __future__ import annotations

__version__ = "0.1.0"
