"""Secrets through the whole program: planted, run, and looked for everywhere."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from homefactory import Turn

from reliability.running import Home, now, run_commands
from reliability.secret_formats import (
    Secret,
    SecretsFigures,
    files_under,
    is_transcript,
    plant_secrets,
    secret_formats,
    secret_needles,
)

# ---------------------------------------------------------------------------------------------
# Secrets through the whole program


RUN_ID = re.compile(r"dream (?:DRY RUN \(nothing written\) |run )(\S+)")


@dataclass
class SecretsRun:
    """Everything one secrets scenario produced, for the figures and for the tests' own assertions."""

    home: Home
    plantings: dict[str, Secret]
    outputs: dict[str, str] = field(default_factory=dict)  # command -> stdout + stderr
    codes: dict[str, int] = field(default_factory=dict)
    first_run_id: str = ""
    review: list[dict[str, Any]] = field(default_factory=list)
    memory_before: dict[str, bytes] = field(default_factory=dict)


def _command(run: SecretsRun, label: str, *args: str) -> subprocess.CompletedProcess[str]:
    done = run.home.dream(*args)
    run.outputs[label] = done.stdout + "\n" + done.stderr
    run.codes[label] = done.returncode
    return done


def _commands(run: SecretsRun, commands: list[list[str]], suffix: str = "") -> list[dict[str, Any]]:
    results = run_commands(run.home.claude, commands, run.home.env, run.home.root)
    for result in results:
        label = (
            " ".join(result["args"][2:] if result["args"][0] == "--claude-dir" else result["args"]) + suffix
        )
        run.outputs[label] = result["stdout"] + "\n" + result["stderr"]
        run.codes[label] = result["code"]
    return results


LISTING = [
    ["signals"],
    ["signals", "--json"],
    ["orient"],
    ["orient", "--json"],
    ["status"],
    ["status", "--json"],
    ["review"],
    ["review", "--json"],
    ["verify"],
    ["verify", "--json"],
    ["run", "--json"],
    ["run", "--dry-run"],
]


def secrets_scenario(root: Path, seed: int, where: str) -> SecretsRun:
    """`where` = "transcripts": every format in the user's words and in tool results; run every command;
    plant fresh values in new sessions and run again; approve everything that waits for review.
    `where` = "memory": every format in existing topic files, archive, MEMORY.md and a Claude Code
    memory file; run every command. (Two homes, so a failure in one path cannot hide the other.)"""
    home = Home(root)
    start = now() - timedelta(days=2)
    if where == "transcripts":
        plantings = plant_secrets(home, start, "first", secret_formats(seed), secret_formats(seed + 1), None)
    else:
        plantings = plant_secrets(home, start, "first", [], [], secret_formats(seed + 2))
        home.session([Turn("Always write commit messages in the imperative mood.", start)])
    run = SecretsRun(home, plantings)
    run.memory_before = {p.name: p.read_bytes() for p in home.memory.iterdir() if p.is_file()}

    _commands(run, [["orient"], ["run", "--dry-run"]], " (before the first run)")
    first = _command(run, "run", "run")  # the first run as a plain `python -m dream run`
    found = RUN_ID.search(first.stdout)
    run.first_run_id = found.group(1) if found else ""
    _commands(run, LISTING)
    if where == "transcripts":
        # Fresh values in new sessions after the first run: their snapshot and all state must stay clean.
        plantings.update(
            plant_secrets(
                home,
                start + timedelta(days=1),
                "second",
                secret_formats(seed + 3),
                secret_formats(seed + 4),
                None,
            )
        )
        _commands(run, [["run"]], " (second set)")
    results = _commands(run, [["review", "--json"]], " (at the end)")
    with contextlib.suppress(ValueError):
        run.review = json.loads(results[0]["stdout"])
    ids = [item["id"] for item in run.review]
    _commands(
        run, [["approve", *ids], ["verify"], ["status"], ["review"]] if ids else [["verify"]], " (at the end)"
    )
    return run


def secrets_written(run: SecretsRun) -> dict[str, bytes | str]:
    """Every place a leak would count: files dream wrote (not the transcripts, not memory files it left
    untouched) and every command's output. Run 1's snapshot and the first-run backup are listed on
    their own: they are copies of the memory as the person had it."""
    home = run.home
    blobs: dict[str, bytes | str] = {}
    for path, data in files_under(home.claude, skip=lambda p: is_transcript(p, home)).items():
        rel = os.path.relpath(path, home.claude)
        if Path(path).parent == home.memory and run.memory_before.get(Path(path).name) == data:
            continue  # the person's file, left exactly as it was
        blobs[rel] = data
    for label, text in run.outputs.items():
        blobs[f"output of `dream {label}`"] = text
    return blobs


def first_run_copies(run: SecretsRun) -> set[str]:
    """Relative names of run 1's snapshot and of the first-run backup."""
    names: set[str] = set()
    for rel in secrets_written(run):
        parts = Path(rel).parts
        if (
            "-backup-" in rel.split("/memory", 1)[-1][:12]
            or any(p.startswith("memory-backup-") for p in parts)
            or (run.first_run_id and "snapshots" in parts and run.first_run_id in parts)
        ):
            names.add(rel)
    return names


def secret_leaks(run: SecretsRun) -> dict[str, list[str]]:
    """ "format@place" -> where its value showed up. A secret planted in existing memory may show in the
    copies the first run made of that memory (its backup and snapshot), nowhere else."""
    from dream.memory import normalise_key

    blobs = secrets_written(run)
    copies = first_run_copies(run)
    texts = {
        where: blob.decode("utf-8", "replace") if isinstance(blob, bytes) else blob
        for where, blob in blobs.items()
    }
    folded = {where: " " + normalise_key(text) + " " for where, text in texts.items()}
    leaks: dict[str, list[str]] = {}
    for planting, secret in run.plantings.items():
        forms = secret_needles(secret)
        # Lower-cased and cut at punctuation (as an entry key is) a value still gives itself away.
        words = [w for w in normalise_key(secret.needle).split() if len(w) >= 12]
        from_memory = "@memory" in planting or "@native" in planting
        for where in blobs:
            if from_memory and where in copies:
                continue
            if any(f in texts[where] for f in forms) or any(f" {w} " in folded[where] for w in words):
                leaks.setdefault(planting, []).append(where)
    return leaks


def check_secrets(work: Path, seed: int) -> SecretsFigures:
    figures = SecretsFigures()
    names: set[str] = set()
    for where in ("transcripts", "memory"):
        run = secrets_scenario(work / f"secrets-{where}", seed, where)
        names |= {s.name for s in run.plantings.values()}
        figures.planted += len(run.plantings)
        for planting in run.plantings:
            place = planting.split("@", 1)[1].rsplit("-", 1)[0]
            figures.places[place] = figures.places.get(place, 0) + 1
        figures.commands += len(run.outputs)
        figures.files_scanned += len(secrets_written(run)) - len(run.outputs)
        figures.leaks.update(secret_leaks(run))
        figures.held_for_review += sum(
            1 for item in run.review if any("secret" in h for h in item.get("hold", []))
        )
        figures.approved += len(run.review) if "approve" in run.outputs else 0
        managed = "".join(
            p.read_text("utf-8", "replace")
            for p in run.home.memory.glob("*.md")
            if not p.name.startswith("feedback_")
        )
        in_memory = [(p, s) for p, s in run.plantings.items() if "@memory" in p]
        figures.in_memory += len(in_memory)
        figures.redacted_in_memory += sum(
            1 for _p, secret in in_memory if not any(f in managed for f in secret_needles(secret))
        )
        figures.exit_codes.update(
            {f"{where}: {label}": code for label, code in run.codes.items() if code != 0}
        )
    figures.formats = len(names)
    return figures
