"""Hook specifications: the contract between ragloom and its plugins.

Grouped by phase. Every hook takes keyword arguments only; arguments may be
added in later versions, never removed or renamed without a deprecation
release. Each hook has a page under ``docs/hooks/`` generated from and
checked against these docstrings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import click

    from .components import (
        Chunker,
        Embedder,
        Executor,
        Generator,
        Loader,
        QueryTransformer,
        Reranker,
        Store,
    )
    from .events import Event, StageCall
    from .registry import Register

__all__ = ["hookimpl", "hookspec"]

hookspec = pluggy.HookspecMarker("ragloom")
hookimpl = pluggy.HookimplMarker("ragloom")


# -------------------------------------------------------------------------
# Registration hooks: called once when the registry is built.
# -------------------------------------------------------------------------


@hookspec
def register_loaders(register: Register[Loader]) -> None:
    """Register loader classes that configs can name in ``loaders[].type``.

    Called once per plugin when the registry is built, before any config is
    validated. Call ``register(name, cls)`` for each loader class; ``cls``
    must subclass :class:`ragloom.Loader` and carry a ``Config``.

    :param register: Callback ``register(name: str, cls: type[Loader])``.
        A name registered twice, by this plugin or another, is an error
        naming both distributions.
    :returns: Nothing; return values are ignored.

    .. versionadded:: 0.1
    """


@hookspec
def register_chunkers(register: Register[Chunker]) -> None:
    """Register chunker classes that configs can name in ``chunker.type``.

    Called once per plugin when the registry is built. Call
    ``register(name, cls)`` for each :class:`ragloom.Chunker` subclass.

    :param register: Callback ``register(name: str, cls: type[Chunker])``.
    :returns: Nothing; return values are ignored.

    .. versionadded:: 0.1
    """


@hookspec
def register_embedders(register: Register[Embedder]) -> None:
    """Register embedder classes that configs can name in ``embedder.type``.

    Called once per plugin when the registry is built. Call
    ``register(name, cls)`` for each :class:`ragloom.Embedder` subclass.
    Importing heavy libraries (torch, SDKs) belongs in ``open()``, not here.

    :param register: Callback ``register(name: str, cls: type[Embedder])``.
    :returns: Nothing; return values are ignored.

    .. versionadded:: 0.1
    """


@hookspec
def register_stores(register: Register[Store]) -> None:
    """Register store classes that configs can name in ``stores[].type``.

    Called once per plugin when the registry is built. Call
    ``register(name, cls)`` for each :class:`ragloom.Store` subclass. The
    class declares ``capabilities`` (``dense``, ``text``) and
    ``filter_operators``, which config checking reads.

    :param register: Callback ``register(name: str, cls: type[Store])``.
    :returns: Nothing; return values are ignored.

    .. versionadded:: 0.1
    """


@hookspec
def register_rerankers(register: Register[Reranker]) -> None:
    """Register reranker classes that configs can name in ``reranker.type``.

    Called once per plugin when the registry is built. Call
    ``register(name, cls)`` for each :class:`ragloom.Reranker` subclass.

    :param register: Callback ``register(name: str, cls: type[Reranker])``.
    :returns: Nothing; return values are ignored.

    .. versionadded:: 0.1
    """


@hookspec
def register_generators(register: Register[Generator]) -> None:
    """Register generator classes that configs can name in ``generator.type``.

    Called once per plugin when the registry is built. Call
    ``register(name, cls)`` for each :class:`ragloom.Generator` subclass.

    :param register: Callback ``register(name: str, cls: type[Generator])``.
    :returns: Nothing; return values are ignored.

    .. versionadded:: 0.1
    """


@hookspec
def register_query_transformers(register: Register[QueryTransformer]) -> None:
    """Register query transformers that configs can name in ``query_transformers[].type``.

    Called once per plugin when the registry is built. Call
    ``register(name, cls)`` for each :class:`ragloom.QueryTransformer` subclass.

    :param register: Callback ``register(name: str, cls: type[QueryTransformer])``.
    :returns: Nothing; return values are ignored.

    .. versionadded:: 0.1
    """


@hookspec
def register_executors(register: Register[Executor]) -> None:
    """Register executors that configs can name in ``executor.type``.

    Called once per plugin when the registry is built. Call
    ``register(name, cls)`` for each :class:`ragloom.components.Executor`
    subclass. An executor decides where an index run's chunk and embed work
    runs (in this process, on a cluster); the ledger, the journal, the store
    writes and the commit stay with the run. Core registers ``inprocess``,
    the default. Connecting to a cluster belongs in ``open()``, not here.

    :param register: Callback ``register(name: str, cls: type[Executor])``.
    :returns: Nothing; return values are ignored.

    .. versionadded:: 0.2
    """


@hookspec
def register_commands(cli: click.Group) -> None:
    """Add subcommands to the ``ragloom`` command line.

    Called once when the ``ragloom`` command starts, before arguments are
    parsed. Add commands with ``@cli.command()`` or ``cli.add_command(...)``;
    a plugin's command must not reuse a core command's name. Import heavy
    libraries inside the command, not here, so ``ragloom --help`` stays fast.

    :param cli: The ``ragloom`` click group.
    :returns: Nothing; return values are ignored.

    .. versionadded:: 0.1
    """


# -------------------------------------------------------------------------
# Per-call hooks: called while a pipeline runs.
# -------------------------------------------------------------------------


@hookspec(firstresult=True)
def run_stage(call: StageCall) -> Any:
    """Run one stage of an index or query run and return its result.

    ``firstresult``: the first non-None result wins. Core's own
    implementation is ``trylast`` and simply returns ``call.run()``. Plugins
    wrap it with ``@hookimpl(wrapper=True)`` to trace, time or retry a stage::

        @hookimpl(wrapper=True)
        def run_stage(call):
            started = time.perf_counter()
            result = yield
            print(call.stage, time.perf_counter() - started)
            return result

    A wrapper must not change results unless its own config says so.

    :param call: The stage: ``call.stage`` (``embed``, ``retrieve``...),
        ``call.name`` (the component's config name), ``call.component`` and
        ``call.run()``.
    :returns: The stage's result (whatever ``call.run()`` returns).

    .. versionadded:: 0.1
    """


@hookspec
def on_event(event: Event) -> Any:
    """Observe an event: a run started, a stage finished, a problem was reported,
    a run finished.

    Called synchronously for every event of every run, through pluggy: ``tryfirst``,
    ``trylast``, wrappers and implementations taking no argument work as pluggy
    documents. Runs of one pipeline may come from several threads at once;
    keep it fast and thread-safe. Exceptions raised here are logged and
    swallowed (the other observers still run) so an observer can never break a run.

    :param event: A frozen :class:`ragloom.events.Event` subclass:
        ``RunStarted``, ``StageFinished``, ``ProblemReported`` or ``RunFinished``.
    :returns: Nothing, or for a ``RunStarted`` the observer has no use for,
        :data:`ragloom.events.SKIP_RUN`: when every observer returns it (and
        none is a wrapper), the run builds and sends no later event. An
        observer that does not decline gets every event of the run. Other
        return values are ignored.

    .. versionadded:: 0.1
    """
