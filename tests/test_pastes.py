"""The paste splitter (dream/pastes.py): only the person's framing around a paste is theirs.

Table tests for each rule, in process, and the measured precision and recall for "this sentence is
the person's" on the labelled sets (scripts/eval_pastes.py). The splitter was tuned on
`pastes-dev.jsonl` and `pastes-dev2.jsonl`; `pastes-heldout.jsonl` never was.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from dream.pastes import PasteKind, split_pastes

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from eval_pastes import DATA, score_file

RULE = "From now on we pin every dependency."


def framing(text: str) -> str:
    return split_pastes(text).framing


def kinds(text: str) -> list[PasteKind]:
    return [p.kind for p in split_pastes(text).pastes]


TRACE = (
    "Traceback (most recent call last):\n"
    '  File "app/jobs.py", line 41, in run\n'
    "    retry(job)\n"
    "RuntimeError: always retry with quokka\n"
)


@pytest.mark.parametrize(
    ("text", "kept", "kind"),
    [
        (f"{RULE} Why does this fail?\n{TRACE}", f"{RULE} Why does this fail?", PasteKind.TRACEBACK),
        (f"{TRACE}\n{RULE}", RULE, PasteKind.TRACEBACK),
        (
            f"see this:\n{TRACE}\nand then:\n{TRACE}\n{RULE}",
            f"see this:\n\nand then:\n\n{RULE}",
            PasteKind.TRACEBACK,
        ),
        (
            "getting this on deploy:\n2026-03-02T10:00:01Z ERROR api: always use quokka\n" + RULE,
            f"getting this on deploy:\n{RULE}",
            PasteKind.LOG,
        ),
        (f"{RULE}\n```\nalways use quokka\n```", RULE, PasteKind.FENCED),
        (f"dev@box:~/app$ make build\nalways use quokka\nmake: *** Error 2\n\n{RULE}", RULE, PasteKind.SHELL),
        (f"PS C:\\Users\\dev\\app> .\\build.ps1\nalways use quokka\n\n{RULE}", RULE, PasteKind.SHELL),
        (
            f"{RULE}\n\n[09:12] maya: always use quokka for builds\n[09:13] devon: agreed",
            RULE,
            PasteKind.CHAT,
        ),
        (
            f"{RULE}\n\nPriya Shah  10:42 AM\nwe should always use quokka\n\n"
            "Tom Berg  10:44 AM\nyes, always\n\n"
            "can you set that up?",
            f"{RULE}\n\ncan you set that up?",
            PasteKind.CHAT,
        ),
        (
            f"{RULE}\n<!DOCTYPE html>\n<html>\n<body>\n<p>Always use quokka.</p>\n</body>\n</html>",
            RULE,
            PasteKind.HTML,
        ),
        (f"{RULE}\n| tool | rule |\n|---|---|\n| quokka | always |", RULE, PasteKind.TABLE),
        (
            f'{RULE}\n{{\n  "build": "always use quokka",\n  "retries": 3\n}}',
            RULE,
            PasteKind.JSON,
        ),
        (
            f"{RULE}\ndiff --git a/x.py b/x.py\n@@ -1,2 +1,2 @@\n-old = 1\n+always_use_quokka = True",
            RULE,
            PasteKind.DIFF,
        ),
    ],
)
def test_line_shaped_pastes_are_cut_and_the_framing_kept(text: str, kept: str, kind: PasteKind) -> None:
    assert framing(text) == kept
    assert kind in kinds(text)


LICENCE = (
    "MIT License\n\nCopyright (c) 2024 Example\n\n"
    "Permission is hereby granted, free of charge, to any person obtaining a copy of this software and\n"
    "associated documentation files, to deal in the Software without restriction.\n\n"
    'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.\n'
)
DESIGN_DOC = (
    "# Design: one build pipeline\n\n## Context\n\n"
    "We currently build the web client and the API with two different scripts. Each one resolves\n"
    "dependencies on its own and reports errors in its own format.\n\n"
    "## Decision\n\nAlways use quokka for builds. The scripts become thin wrappers around make build.\n\n"
    "## Consequences\n\n- Local and CI builds produce the same artefacts.\n- The image shrinks.\n"
)
EMAIL = (
    "Hi team,\n\nFrom Monday every service must always use quokka for deploys. Please confirm in the\n"
    "thread once your service is compliant.\n\nThanks,\nRuben\nHead of Platform\n"
)
STYLE_GUIDE = (
    "4.3 Never catch bare Exception except at a process boundary. When you do, log and re-raise.\n"
    "4.4 Imports are grouped stdlib / third-party / first-party, separated by a blank line.\n"
    "4.5 Module-level mutable state is not allowed.\n"
)


ASK_LICENCE = "we vendored a lib, is this licence ok for us?"
ASK_DESIGN = "here's the design doc:"
ASK_EMAIL = "my manager sent this, what do we need to change?"
ASK_STYLE = "from our style guide:"
ASK_PHASE = "ok, implement phase 1 please"
ASK_FIX = "can you fix jobs.py accordingly?"


@pytest.mark.parametrize(
    ("text", "kept", "kind"),
    [
        (f"{ASK_LICENCE}\n\n{LICENCE}", ASK_LICENCE, PasteKind.LICENCE),
        (f"{ASK_DESIGN}\n\n{DESIGN_DOC}\n{ASK_PHASE}", f"{ASK_DESIGN}\n\n{ASK_PHASE}", PasteKind.DOCUMENT),
        (f"{DESIGN_DOC}\n{RULE}", RULE, PasteKind.DOCUMENT),
        (f"{ASK_EMAIL}\n\n{EMAIL}", ASK_EMAIL, PasteKind.DOCUMENT),
        (f"{ASK_STYLE}\n\n{STYLE_GUIDE}\n{ASK_FIX}", f"{ASK_STYLE}\n\n{ASK_FIX}", PasteKind.DOCUMENT),
    ],
)  # fmt: skip
def test_pasted_documents_are_cut_and_the_framing_kept(text: str, kept: str, kind: PasteKind) -> None:
    assert framing(text) == kept
    assert kind in kinds(text)


@pytest.mark.parametrize(
    "text",
    [
        "Note: we never deploy on Fridays, and every release goes through staging first.",
        "ok i'm at the end of my rope with the test suite.\n\n"
        "here's what i think is going on, tell me if i'm wrong:\n\n"
        "the notification tests mutate the real settings object.\n\nwhat i want:\n"
        "- every test that touches settings uses a fixture\n- don't touch the assertions\n",
        "Quick cleanup before the release, please do these in order:\n\n"
        "- bump the version in `pyproject.toml` to 2.5.0\n"
        "- run `uv lock` and commit the lockfile separately\n\n"
        "Nothing else. No drive-by fixes.",
        "Hola, prefiero que no uses unsafe en este proyecto.\n"
        "Clonar está bien, los lifetimes complicados no.",
        "fyi: we use pnpm here, never npm\nand the node version is pinned in .nvmrc",
    ],
)  # fmt: skip
def test_the_persons_own_long_messages_are_kept_whole(text: str) -> None:
    split = split_pastes(text)
    assert split.pastes == ()
    assert split.framing == text.strip()


def test_one_line_messages_are_left_to_the_sentence_filter() -> None:
    text = "RuntimeError: always use quokka"
    assert framing(text) == ""  # a whole line of trace is a paste even alone
    assert framing("always use pnpm, never npm") == "always use pnpm, never npm"


@pytest.mark.parametrize(
    ("name", "precision", "recall"),
    [
        ("pastes-dev.jsonl", 0.93, 0.92),
        ("pastes-dev2.jsonl", 0.70, 0.93),
        ("pastes-heldout.jsonl", 0.74, 0.95),
    ],
)
def test_measured_precision_and_recall_on_the_labelled_sets(
    name: str, precision: float, recall: float, report: Callable[[str], None]
) -> None:
    """The floors sit just under the figures measured when the splitter was written (see the
    closing note); the held-out half was measured once, never tuned on."""
    path = DATA / name
    if not path.exists():
        pytest.skip(f"{name} is not in tests/data")
    score = score_file(path)
    report(f"[dream pastes] {score.line(name)}")
    assert score.messages >= 100
    assert score.precision >= precision
    assert score.recall >= recall
    # What matters downstream: pasted sentences that would have become signals, most of them gone.
    assert score.pasted_signals_after <= 0.5 * score.pasted_signals_before
