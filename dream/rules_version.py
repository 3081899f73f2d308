"""Which version of the safety rules a cached result was made under: a hash of their sources.

A cache that keeps what redaction or the control-text check made of a text (the digests, the
record of memory texts found clean) is only as good as the rules it was made under: a newer rule may
find a secret the older ones missed. Each such cache names the version it was made under and is not
used under another. Standard library only.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

_HERE = Path(__file__).parent

# The redaction rules, and what decides where they look.
REDACTION = tuple(_HERE / name for name in ("redact.py", "needles.py"))
# Those and the checks for control text.
SAFETY = (*REDACTION, *(_HERE / name for name in ("control_text.py", "unsafe_rules.py", "obfuscation.py")))


@functools.cache
def sources_id(sources: tuple[Path, ...]) -> str:
    """A short hash of the sources' bytes (~0.5 ms for the safety rules, once a process)."""
    digest = hashlib.blake2b(digest_size=8)
    for source in sources:
        try:
            digest.update(source.read_bytes())
        except OSError:  # no source beside the bytecode: the format and model versions decide
            digest.update(source.name.encode())
    return digest.hexdigest()
