"""Hook implementations of ragloom-sentence-transformers: hookimpls only.

Importing this module imports neither torch nor sentence-transformers: the
components load them in ``open()``, the ``tune`` commands when they run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragloom import Embedder, Reranker, hookimpl
from ragloom.registry import Register

from .embedder import SentenceTransformersEmbedder
from .reranker import CrossEncoderReranker

if TYPE_CHECKING:
    import click


@hookimpl
def register_embedders(register: Register[Embedder]) -> None:
    register("sentence-transformers", SentenceTransformersEmbedder)


@hookimpl
def register_rerankers(register: Register[Reranker]) -> None:
    register("cross-encoder", CrossEncoderReranker)


@hookimpl
def register_commands(cli: click.Group) -> None:
    """``ragloom tune embedder`` and ``ragloom tune reranker``: added to core's
    ``tune`` group (which holds ``split`` and ``fusion``), or as a group of
    their own under a ragloom without one."""
    import click

    from .tune import tune, tune_embedder, tune_reranker

    group = cli.commands.get("tune")
    if isinstance(group, click.Group):
        group.add_command(tune_embedder)
        group.add_command(tune_reranker)
    else:
        cli.add_command(tune)
