from __future__ import annotations

from dream.cli import main

main()
