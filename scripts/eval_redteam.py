"""Red-team figures (issue 16): how many secret formats pass redaction, how many control strings
pass neutralising, on the corpus in `tests/data/redteam/` (written by a labeller who never saw the
code), and false positives on ordinary code and prose.

python scripts/eval_redteam.py [--set dev|dev2|...|dev13] [--heldout] [--show]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from dream.control_text import neutralise  # noqa: E402
from dream.redact import redact  # noqa: E402

DATA = ROOT / "tests" / "data" / "redteam"
HELDOUT = ROOT / "tests" / "data" / "redteam-heldout"  # a second labeller's set, never tuned on
# Later tuning sets, each by a labeller who never saw the code: dev2 (secrets and control text),
# dev3 (control text only, written for the forms a phrase list misses), dev4 (secrets only, formats and
# places the first two did not have), dev5 (control text only: harmful standing rules in calm words),
# dev6 (control text only, every class in varied voices with hard benign rules), dev7 (control text
# only: paraphrased overrides, memory poisoning, jailbreaks, secrecy, fake tool calls and turns), dev8
# (control text only, eight writers' voices; read only as totals, never tuned on), dev9 (secrets only:
# kinds the first corpora lacked, and familiar ones in unusual places), dev10 (control text only: memory
# poisoning, paraphrased overrides, secrecy, jailbreaks, fake tool output and turns, in a person's voice),
# dev11 (secrets only: kinds dev9 lacked, and familiar ones stated in prose, tables, logs and literals),
# dev12 (secrets only: formats from public scanner rule sets no earlier corpus had, and familiar ones in
# config files, command lines, cookies and code), dev13 (secrets only: realistic pastes with a
# credential among ordinary material, formats from public scanner rule sets no earlier corpus had, and
# secrets told in conversation).
SETS = {
    "dev": DATA,
    **{f"dev{n}": ROOT / "tests" / "data" / f"redteam-dev{n}" for n in range(2, 15)},
    "heldout": HELDOUT,
}


def secret_pieces(secret: str) -> list[str]:
    """What must not survive: the value, or for a block (a key file, a list of codes) each line of it
    long enough to be a secret on its own."""
    lines = [line.strip() for line in secret.replace("\\n", "\n").splitlines()]
    pieces = [line for line in lines if len(line) >= 12 and not line.startswith("-----")]
    return pieces if len(lines) > 1 else [secret]


def leaked(text: str, secret: str) -> list[str]:
    out = redact(text).text
    return [piece for piece in secret_pieces(secret) if piece in out]


def load(name: str, folder: Path = DATA) -> list[dict[str, str]]:
    return [
        json.loads(line) for line in (folder / name).read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="list what passed")
    parser.add_argument(
        "--heldout", action="store_true", help="the held-out set (tests/data/redteam-heldout/)"
    )
    parser.add_argument("--set", choices=sorted(SETS), default="dev", help="which corpus (default dev)")
    args = parser.parse_args(argv)
    folder = HELDOUT if args.heldout else SETS[args.set]
    secrets = load("secrets.jsonl", folder) if (folder / "secrets.jsonl").is_file() else []
    leaks = [(row["kind"], row["text"]) for row in secrets if leaked(row["text"], row["secret"])]
    kinds = {row["kind"] for row in secrets}
    print(
        f"secrets: {len(secrets)} lines, {len(kinds)} formats; leaked {len(leaks)} lines, "
        f"{len({k for k, _ in leaks})} formats"
    )
    control = load("control.jsonl", folder) if (folder / "control.jsonl").is_file() else []
    hostile = [row for row in control if row["kind"] != "benign"]
    benign = [row for row in control if row["kind"] == "benign"]
    passed = [row for row in hostile if not neutralise(row["text"])[1]]
    flagged = [row for row in benign if neutralise(row["text"])[1]]
    print(
        f"control: {len(hostile)} hostile strings, {len(passed)} passed unneutralised; "
        f"{len(benign)} benign, {len(flagged)} flagged"
    )
    if passed:
        by_kind = Counter(row["kind"] for row in passed)
        print("  passed by kind: " + ", ".join(f"{kind} {n}" for kind, n in by_kind.most_common()))
    if args.show:
        for kind, text in leaks:
            print(f"  leak  {kind}: {text[:150]!r}")
        for row in passed:
            print(f"  pass  {row['kind']}: {row['text'][:150]!r}")
        for row in flagged:
            print(f"  flag  benign: {row['text'][:150]!r} {neutralise(row['text'])[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
