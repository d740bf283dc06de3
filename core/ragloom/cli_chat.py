"""``ragloom chat``: many questions, one pipeline.

    $ ragloom chat
    > How much does the Team plan cost?
    ...
    > exit

``ragloom ask`` loads the pipeline (the embedder's model, the stores) for
every question: seconds each with a local model. ``chat`` loads it once and
answers a question per line of stdin, with the earlier turns as the chat's
history, so a follow-up is read as one. Piped, it reads questions without a
prompt (``ragloom chat --json < questions.txt`` writes one JSON answer a
line). An index run by another process between two questions is picked up
by the next, as a server does.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from typing import Any

import click

from .cli_answers import answer_json, empty_index, print_answer, print_stream
from .cli_support import (
    ANSWER_K,
    PRINCIPAL,
    Terminated,
    console,
    escape,
    handle_errors,
    load_pipeline,
    parse_filter_json,
    plugin_output_to_stderr,
    principals_list,
    sanitize,
)
from .errors import AccessError, ConfigError, FilterError, PluginError, RagloomError

__all__ = ["chat"]

ENDS = frozenset({"exit", "quit", "/exit", "/quit", "/bye"})
"""Lines that end the chat, as end of input does."""

RESET = frozenset({"/new", "/reset"})
"""Lines that forget the chat's history: the next question starts afresh."""


@click.command()
@click.option("--filter", "filter_", help="Metadata filter as JSON, for every question.")
@ANSWER_K
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print each answer as one line of JSON (JSON Lines), as `ask --json` gives it.",
)
@click.option(
    "--stream",
    is_flag=True,
    help="Print each answer as the generator writes it (an LLM's tokens as they come).",
)
@click.option(
    "--no-history",
    is_flag=True,
    help="Ask each question alone, without the turns before it (a list of questions).",
)
@PRINCIPAL
@click.pass_context
@handle_errors
def chat(
    ctx: click.Context,
    filter_: str | None,
    k: int | None,
    as_json: bool,
    stream: bool,
    no_history: bool,
    principals: tuple[str, ...],
) -> None:
    """Answer a question per line of stdin, loading the pipeline once.

    Each answer is printed as `ask` prints it; the questions and answers
    before it are the chat's history, so a follow-up ("And on the Business
    plan?") is read as one (`/new` forgets them). An empty line is skipped;
    `exit`, end of input (Ctrl-D) or Ctrl-C at the prompt ends the chat. A
    question that fails (a generator out of reach, an index being rebuilt)
    is said and the chat goes on; the exit status is then 1.
    """
    if stream and as_json:
        raise click.UsageError("--stream prints text as it comes; drop it with --json", ctx=ctx)
    filters, who = parse_filter_json(filter_), principals_list(principals)
    interactive = sys.stdin is not None and sys.stdin.isatty()
    pipeline = load_pipeline(ctx)
    with plugin_output_to_stderr():
        pipeline.open()  # the model and stores, once, before the first prompt
    history: list[dict[str, str]] = []
    failed = False
    empty_said = False
    with pipeline:
        if interactive:
            click.echo(
                "Ask about the indexed documents, a question a line; `/new` forgets the "
                "turns before, `exit` or Ctrl-D ends.",
                err=True,
            )
        for question in _questions(interactive):
            if question in RESET:
                history.clear()
                continue
            try:
                answer = _answer(pipeline, question, filters, k, who, history, stream)
            except Terminated:
                raise
            except KeyboardInterrupt:
                if not interactive:
                    raise  # piped: Ctrl-C stops the whole list, as for any command
                click.echo("\n(interrupted: ask again, or `exit`)", err=True)
                continue
            except (ConfigError, PluginError, FilterError, AccessError):
                raise  # the command's own, the same for every question: said, and exit 2
            except RagloomError as exc:
                # this question's: the next may be answered (a generator back, a rebuild done)
                failed = True
                if as_json:
                    click.echo(json.dumps({"question": question, "error": str(exc)}))
                else:
                    console(stderr=True).print(f"[bold red]error:[/] {escape(str(exc))}")
                continue
            if answer is None:  # a stream that gave no answer
                continue
            empty = empty_index(
                pipeline.index_dir,
                answer.metadata.get("corpus_version"),
                answer.metadata.get("documents", 1),
            )
            if as_json:
                click.echo(json.dumps(answer_json(answer)))
            elif not stream:
                print_answer(answer)
            if not answer.hits and empty and not empty_said:
                empty_said = True
                click.echo(sanitize(f"note: {empty}"), err=True)
            if not as_json:
                click.echo()  # a blank line between answers
            sys.stdout.flush()  # a program reading the answers gets each as it comes
            if not no_history:
                history += [
                    {"role": "user", "content": question},
                    {"role": "assistant", "content": answer.text},
                ]
    if failed:
        sys.exit(1)


def _answer(
    pipeline: Any,
    question: str,
    filters: Any,
    k: int | None,
    who: list[str] | None,
    history: list[dict[str, str]],
    stream: bool,
) -> Any:
    """The answer to ``question`` (printed as it comes when ``stream``)."""
    if stream:
        return print_stream(
            pipeline.stream(question, filters, k=k, principals=who, history=history)
        )
    with plugin_output_to_stderr():
        return pipeline.ask(question, filters, k=k, principals=who, history=history)


def _questions(interactive: bool) -> Iterator[str]:
    """Each question of stdin, stripped, until an ending line (in any case)
    or its end: at a terminal with a prompt and line editing, else a line at
    a time, its bytes read as UTF-8 with what is not UTF-8 replaced (a file
    of questions in Latin-1 is asked, not fatal)."""
    if interactive:
        with contextlib.suppress(ImportError):  # not on every platform
            import readline  # noqa: F401  (arrow keys and recall for input())

        while True:
            try:
                line = input("> ")
            except Terminated:
                click.echo(err=True)  # the error line under the prompt, not on it
                raise  # SIGTERM: the command ends as a terminated one does (143)
            except (EOFError, KeyboardInterrupt):  # Ctrl-D, or Ctrl-C at the prompt
                click.echo(err=True)
                return
            question = line.strip()
            if question.lower() in ENDS:
                return
            if question:
                yield question
        return
    stdin = sys.stdin
    if stdin is None:  # closed (`ragloom chat <&-`): no questions
        return
    buffer = getattr(stdin, "buffer", None)
    lines: Iterator[str] = (
        (raw.decode("utf-8", errors="replace") for raw in buffer) if buffer is not None else stdin
    )
    for line in lines:
        question = line.strip()
        if question.lower() in ENDS:
            return
        if question:
            yield question
