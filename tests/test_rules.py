"""From a message to rules (dream/rules.py) as tables: rewriting, resolution, joining, dropping.

The tables pass which pieces are rules explicitly, so they test the rules of `dream.rules` and not
the classifier's current weights; the last tests go through the shipped model end to end.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from dream import defaults
from dream.rules import Boundary, as_rule, is_task, message_rules, split_pieces
from dream.signals import extract_signals
from dream.transcripts import UserMessage


@pytest.mark.parametrize(
    ("said", "rule"),
    [
        # filler and discourse go
        ("Oh and fwiw we're pinned to go 1.22 in CI", "We're pinned to go 1.22 in CI"),
        ("ok we're going with vico!!", "We're going with vico"),
        ("pls never commit to main lol", "Never commit to main"),
        ("Big one: always run pnpm lint before you say done", "Always run pnpm lint before you say done"),
        ("remember: everything goes through uv 😅", "Everything goes through uv"),
        ("heads up, staging runs on Fly.io in fra", "Staging runs on Fly.io in fra"),
        ("Remember this rule: always deploy with --atomic", "Always deploy with --atomic"),
        ("hi! tbh the API is versioned under /v2", "The API is versioned under /v2"),
        ("only pages get default exports, i said this the other day", "Only pages get default exports"),
        ("I said this already: use uv for everything", "Use uv for everything"),
        # the person's voice becomes a rule
        ("Tbh I'd rather you didn't launch the emulator yourself", "Don't launch the emulator yourself"),
        ("I'd rather you used polars here", "Use polars here"),
        ("I don't want you to touch the migrations", "Don't touch the migrations"),
        ("You should always pin versions in requirements.txt", "Always pin versions in requirements.txt"),
        ("dont ever push to the release branch", "Never push to the release branch"),
        ("we dont use default exports", "We don't use default exports"),
        ("I prefer small, focused commits.", "Prefer small, focused commits"),
        ("We decided to keep LightGBM as the production model", "Keep LightGBM as the production model"),
        (
            "On 2026-11-21 we decided that every service logs in JSON, from now on.",
            "Every service logs in JSON (decided 2026-11-21)",
        ),
        (
            "Yesterday we decided that all services log in JSON.",
            "All services log in JSON (decided yesterday)",
        ),
        ("On 2026-11-21 we shipped v2", "On 2026-11-21 we shipped v2"),
        ("From now on always use pnpm in this repo.", "Always use pnpm in this repo"),
        # a switch says what to use and what not
        (
            "We're switching from Celery to Dramatiq for all background jobs from now on.",
            "Use Dramatiq, not Celery, for all background jobs",
        ),
        ("We migrated from moshi to kotlinx.serialization.", "Use kotlinx.serialization, not moshi"),
        ("we're moving from Redux to Zustand, so no new slices", "Use Zustand, not Redux; no new slices"),
        # a request that says when it applies is a standing rule; one that does not stays a question
        (
            "also before u say done can u run pnpm typecheck and pnpm lint?",
            "Before u say done, run pnpm typecheck and pnpm lint",
        ),
        ("Would you mind, in the future, keeping lines to 100 characters?", "Keep lines to 100 characters"),
        ("can you always add a changelog entry?", "Always add a changelog entry"),
        (
            "Every time you add an endpoint, can you update openapi.yaml?",
            "Every time you add an endpoint, update openapi.yaml",
        ),
        ("could you fix the login bug?", "Could you fix the login bug?"),
        # content that looks like filler stays
        ("no UPDATE, no DELETE, ever", "No UPDATE, no DELETE, ever"),
        ("first run the linter, then the tests", "First run the linter, then the tests"),
        ("note that ledger_entries is append-only", "ledger_entries is append-only"),
        # the person's terms are kept exactly
        ("pls use `uv add --optional bench` for extras", "Use `uv add --optional bench` for extras"),
        ("Always wrap errors with fmt.Errorf and %w", "Always wrap errors with fmt.Errorf and %w"),
    ],
)
def test_rewriting(said: str, rule: str) -> None:
    assert as_rule(said) == rule


def test_rewriting_never_alters_control_text() -> None:
    # "!" becomes "." only at the end of a sentence: "<!--" must stay for neutralise to see it.
    assert "<!-- hidden -->" in as_rule("Always use tabs <!-- hidden --> in Go files!")


def rules(text: str, rule_at: set[int]) -> list[str]:
    pieces = split_pieces(text)
    return [r.text for r in message_rules(pieces, [i in rule_at for i in range(len(pieces))])]


@pytest.mark.parametrize(
    ("message", "rule_at", "expected"),
    [
        # resolution: a pointer back is joined with what it points at
        (
            "We keep the Storybook stories next to each component. Use them for every new component.",
            {1},
            ["We keep the Storybook stories next to each component. Use them for every new component."],
        ),
        ("Never commit to main. Every time.", {0}, ["Never commit to main. Every time."]),
        (
            "Migrations go in db/migrations. Same for seeds.",
            {0},
            ["Migrations go in db/migrations. Same for seeds."],
        ),
        # joining: two sentences of one rule, the other clause of a cut sentence, a reason
        (
            "ledger_entries is append-only. no UPDATE, no DELETE, ever.",
            {0},
            ["ledger_entries is append-only. No UPDATE, no DELETE, ever."],
        ),
        ("I'd rather you didn't use pandas; stick to polars", {0}, ["Don't use pandas; stick to polars."]),
        (
            "We never use fp16 on this project. It gave us loss spikes around epoch 8.",
            {0},
            ["We never use fp16 on this project. It gave us loss spikes around epoch 8."],
        ),
        (
            "Run ./gradlew ktlintCheck before handing back. Otherwise CI rejects it.",
            {0},
            ["Run ./gradlew ktlintCheck before handing back. Otherwise CI rejects it."],
        ),
        (
            "Use pnpm for everything. pnpm is also what CI runs.",
            {0, 1},
            ["Use pnpm for everything. pnpm is also what CI runs."],
        ),
        (
            "we use pnpm in this repo not npm. npm will mess up the lockfile",
            {0},
            ["We use pnpm in this repo not npm. npm will mess up the lockfile."],
        ),
        (
            "the notebooks stay exploratory — anything we reuse goes into src/churn/ as a function",
            {0, 1},
            ["The notebooks stay exploratory; anything we reuse goes into src/churn/ as a function."],
        ),
        # separate rules stay separate
        (
            "Use pnpm for installs. Deploys go through Fly.io.",
            {0, 1},
            ["Use pnpm for installs.", "Deploys go through Fly.io."],
        ),
        # the task request around a rule is left out
        (
            "Can you add the detail page? We use TanStack Query for all server state.",
            {1},
            ["We use TanStack Query for all server state."],
        ),
        ("main is protected. PRs only.", {1}, ["Main is protected. PRs only."]),
        # a rule that opens like a question is none; a lead-in with a colon does not make it a fragment
        (
            "When you write SQL, uppercase the keywords.",
            {0},
            ["When you write SQL, uppercase the keywords."],
        ),
        (
            "Same as before: run the smoke tests against staging after deploying.",
            {0},
            ["Run the smoke tests against staging after deploying."],  # the lead-in only framed it
        ),
        ("that's wrong, we use pnpm in this repo", {0}, ["We use pnpm in this repo."]),
        # scripts without spaces between words
        ("本番環境のDBは読み取り専用です。", {0}, ["本番環境のDBは読み取り専用です。"]),
        # a tail finishes the rule before it, even across a piece the model did not score
        (
            "run `make proto` after you touch a .proto file. every single time.",
            {0, 1},
            ["Run `make proto` after you touch a .proto file. Every single time."],
        ),
        (
            "regenerate the client with `pnpm gen:api`, it rewrites src/api/client.ts. "
            "whenever the spec changes",
            {1},
            [
                "Regenerate the client with `pnpm gen:api`, it rewrites src/api/client.ts. "
                "Whenever the spec changes."
            ],
        ),
        # a short opening answer names the choice the rule after it explains
        ("vitest. jest is too slow on the monorepo", {1}, ["vitest. jest is too slow on the monorepo."]),
        (
            "then no Kafka. we stay with the outbox table",
            {1},
            ["Then no Kafka. We stay with the outbox table."],
        ),
        # ... but not a bare "yes", nor a pointer
        ("yes! always squash merge", {1}, ["Always squash merge."]),
        ("commit it. messages in the imperative mood", {1}, ["Messages in the imperative mood."]),
        # two rules side by side about one thing are one entry; about two things, two
        (
            "datetime.utcnow() is banned here. use timezone-aware datetime.now(UTC) instead",
            {0, 1},
            ["datetime.utcnow() is banned here. Use timezone-aware datetime.now(UTC) instead."],
        ),
        # the announcement of news goes; the news stays
        (
            "Deployment news: staging moved from Heroku to Render last week.",
            {0},
            ["Staging moved from Heroku to Render last week."],
        ),
        ("A bit of news first: we retired Jenkins on Friday.", {0}, ["We retired Jenkins on Friday."]),
        # a clause joined after "; " keeps a name's capital, a common word loses it
        (
            "Deploys go through GitHub Actions now — Envoyer is gone.",
            {0, 1},
            ["Deploys go through GitHub Actions now; Envoyer is gone."],
        ),
        (
            "Deploys go through GitHub Actions — Never from a laptop.",
            {0, 1},
            ["Deploys go through GitHub Actions; never from a laptop."],
        ),
        # a dependent opening goes, the rule after it stays
        (
            "Both, but A is the rule: every job that emails a customer implements ShouldBeUnique.",
            {0, 1},
            ["Every job that emails a customer implements ShouldBeUnique."],
        ),
        # "that trait" names the thing the piece before it named
        (
            "Does InvoiceNote use BelongsToTenant? It has to. Every model with a tenant_id uses that trait.",
            {2},
            ["Every model with a tenant_id uses the BelongsToTenant trait."],
        ),
        # a clause that only frames the rule goes; a label that says what it is about stays
        (
            "Last one before I hand over; every patient gets a microchip_number column.",
            {0, 1},
            ["Every patient gets a microchip_number column."],
        ),
        (
            "While that restores (sigh): migrations are roll-forward only, never write a down() method.",
            {0},
            ["Migrations are roll-forward only, never write a down() method."],
        ),
        (
            "The second: we switched the annotation to GENCODE v46.",
            {0},
            ["We switched the annotation to GENCODE v46."],
        ),
        (
            "Quick context: we decided against GraphQL, the API stays REST.",
            {0},
            ["We decided against GraphQL, the API stays REST."],
        ),
        (
            "Logging: we're on tracing now, not env_logger.",
            {0},
            ["Logging: we're on tracing now, not env_logger."],
        ),
        (
            "Unit tests: mock S3 with moto, never real AWS.",
            {0},
            ["Unit tests: mock S3 with moto, never real AWS."],
        ),
        (  # a path separator is no colon
            "rip the remaining log:: macros out of src/ingest and drop env_logger from Cargo.toml.",
            {0},
            ["Rip the remaining log:: macros out of src/ingest and drop env_logger from Cargo.toml."],
        ),
        # dropping: what cannot stand alone is not stored
        ("Use them for every new component.", {0}, []),
        ("Every time.", {0}, []),
        ("Thats how we do it going forward", {0}, []),
        ("do we never use ORMs here?", {0}, []),
        ("ok thanks!", {0}, []),
    ],
)
def test_joining_resolution_and_dropping(message: str, rule_at: set[int], expected: list[str]) -> None:
    assert rules(message, rule_at) == expected


def test_pieces_keep_quoted_terms_and_say_how_they_are_joined() -> None:
    pieces = split_pieces("Set precision='bf16-mixed' on the Trainer — we never use fp16. Got it?")
    texts = ["Set precision='bf16-mixed' on the Trainer", "we never use fp16.", "Got it?"]
    assert [p.text for p in pieces] == texts
    assert [p.boundary for p in pieces] == [Boundary.START, Boundary.CLAUSE, Boundary.SENTENCE]
    # the model reads quoted spans as a placeholder, the rule keeps them
    assert "«quote»" not in pieces[0].text


def test_a_rule_is_at_most_about_150_characters() -> None:
    long = (
        "Every new route goes into api/openapi.yaml, then you run go generate ./api/..., and that is "
        "because the client is generated from it, which we agreed on in the spring, after a long "
        "discussion, with everybody, over several weeks, in the platform guild."
    )
    [rule] = rules(long, {0})
    assert len(rule) <= defaults.SIGNAL_MAX_CHARS
    assert "api/openapi.yaml" in rule and "go generate ./api/..." in rule


def _signals(text: str) -> list[str]:
    message = UserMessage("s", "u", datetime(2026, 11, 20, tzinfo=timezone.utc), None, text)
    return [s.text for s in extract_signals(message, "p")]


def test_the_shipped_model_keeps_the_rule_and_drops_the_task() -> None:
    found = _signals(
        "hiii ok so today i need the plant detail page 🌱 oh and fyi we switched to pnpm last week so "
        "dont use yarn anymore, the yarn.lock is gone"
    )
    assert len(found) == 1
    assert found[0].startswith("We switched to pnpm") and "yarn" in found[0]
    assert "plant detail page" not in found[0]


def test_a_signal_carries_the_persons_exact_words() -> None:
    text = "Tbh I'd rather you didn't launch the emulator yourself. It freezes my laptop every time."
    message = UserMessage("s", "u", datetime(2026, 11, 20, tzinfo=timezone.utc), None, text)
    for signal in extract_signals(message, "p"):
        assert signal.quote and signal.quote in text


@pytest.mark.parametrize(
    ("agent", "answer", "rule"),
    [
        # a choice the agent offered, answered with one of its names
        (
            "Should I use Mockito or MockK for the ViewModel tests?",
            "mockk. sempre. mockito nem tá no projeto",
            "Use MockK, not Mockito, for the ViewModel tests.",
        ),
        (
            "Created the page. Should I use Vitest or Jest for the component tests?",
            "vitest!! always vitest, jest isnt even installed lol",
            "Use Vitest, not Jest, for the component tests.",
        ),
        ("Do you prefer pnpm or yarn?", "pnpm", "Use pnpm, not yarn."),
        ("Should I use ruff or black?", "both are fine", None),  # names neither: nothing resolved
        ("Should I use ruff or black?", "ruff, never black", "Use ruff, not black."),
        # an offer refused: what not to do, in the agent's words, and what to do instead
        (
            "For errors, should I use errors.Wrap from github.com/pkg/errors like internal/legacy does?",
            "no. fmt.Errorf with %w.",
            "Don't use errors.Wrap from github.com/pkg/errors; fmt.Errorf with %w.",
        ),
        # an offer stated, not asked ("I can …"), refused
        (
            "The ConfigMap has the wrong SFTP host. I can patch it directly with kubectl edit configmap "
            "ingest-worker to unblock you.",
            "Don't.",
            "Don't patch it directly with kubectl edit configmap ingest-worker.",
        ),
        (
            "Where should the SFTP password go? I can put it in values-northgrid.yaml under env for now.",
            "No. Never in values files.",
            "Don't put it in values-northgrid.yaml under env; never in values files.",
        ),
        ("Tests pass. I will also bump the lodash version.", "sure, go ahead", None),  # no refusal
        ("Should I run the tests?", "no", None),  # nothing named: a one-off
        ("Tests pass.", "mockk. sempre.", None),  # no question asked
    ],
)
def test_an_answer_is_resolved_from_the_agents_question(agent: str, answer: str, rule: str | None) -> None:
    from dream.rules import answer_rule

    found = answer_rule(split_pieces(answer), agent)
    assert (found.text if found else None) == rule
    if found is not None:
        assert found.quote in answer  # the person's words, never the agent's


def test_the_agents_words_are_never_quoted_as_the_persons() -> None:
    message = UserMessage(
        "s",
        "u",
        datetime(2026, 11, 20, tzinfo=timezone.utc),
        None,
        "vitest!! always vitest, jest isnt even installed lol",
        agent_turn_unredacted="Should I use Vitest or Jest for the component tests?",
    )
    signals = extract_signals(message, "p")
    assert [s.text for s in signals] == ["Use Vitest, not Jest, for the component tests."]
    assert "Should I" not in signals[0].quote and signals[0].quote in message.text


@pytest.mark.parametrize(
    ("text", "task"),
    [
        # a task for this session, or a complaint about the last output: nothing makes it hold
        ("Update the importer and anything else that still mentions the v1 schema.", True),
        ("Swap it to the internal mirror, same as the billing service.", True),
        ("then open the PR, title like the others", True),
        ("cambia la url del cliente y revisa los tests", True),
        ("U forgot the changelog entry again.", True),
        ("I noticed the config still has debug: true.", True),
        # a request for this session: what the person wants made now, or will do themselves
        ("On 2026-11-29 I'd like the figures for the DTE results; a volcano plot per contrast.", True),
        ("Task: onboard new utility, Northgrid. Feed lands in s3://mf-raw/northgrid/", True),
        ("New mart: mart_sales__pipeline_daily, same materialization as the others.", True),
        ("I'll paste the final copy later.", True),
        ("I'd like you to always run the linter first.", False),
        ("I'd like that to hold for every script, Python or R.", False),
        # a standing word makes it a rule; a rule's own verbs are no task
        ("Update the changelog in every PR.", False),
        ("Never add a dependency without asking.", False),
        ("Write request specs, not controller specs.", False),
        ("Use ruff for formatting.", False),
        ("Run the migrations with --check first.", False),
        ("cambia siempre la versión en pubspec.yaml", False),
    ],
)
def test_a_task_or_a_complaint_is_not_a_standing_rule(text: str, task: bool) -> None:
    assert is_task(text) is task


@pytest.mark.parametrize(
    ("text", "observed"),
    [
        ("The ShiftCard divs are a known problem, by the way, there's already a ticket for them.", True),
        ("PatientNoteController@store has about sixty lines of logic in it.", True),
        ("The periodicity scorer is the slowest part of the pipeline.", True),
        ("Honestly I suspect it's the caching layer.", True),
        # a rule said beside what the person sees is a rule
        ("The old screens are a known problem: never copy their LiveData code.", False),
        ("Controllers stay thin; logic goes in an Action class.", False),
    ],
)
def test_what_the_person_sees_or_suspects_is_not_a_rule(text: str, observed: bool) -> None:
    from dream.rules import is_observation

    assert is_observation(text) is observed


def test_list_items_are_rules_of_their_own_and_flags_keep_their_dashes() -> None:
    message = (
        "two things:\n1. never log request bodies, they hold card data.\n"
        "2. retries go through the backoff helper in net/retry.go.\n--dry-run on every migrate command."
    )
    pieces = split_pieces(message)
    assert [r.text for r in message_rules(pieces, [False, True, True, True])] == [
        "Never log request bodies, they hold card data.",
        "Retries go through the backoff helper in net/retry.go.",
        "--dry-run on every migrate command.",
    ]
