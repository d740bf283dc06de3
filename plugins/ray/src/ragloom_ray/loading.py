"""Loading on the cluster: one Ray task per loader, streaming its documents
into Ray's object store in groups; the driver gets only stand-ins (id,
source, state hash) for the diff, and the groups stay where they are until
an actor prepares them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragloom.components import Context
from ragloom.errors import SourceUnavailableError
from ragloom.executors import from_recipe, screened, stand_in
from ragloom.fingerprints import state_hash

__all__ = ["END", "load_part"]

END = "end"
"""The first item of the last value a loading task yields."""


def load_part(
    recipe: tuple[type[Any], Any, str],
    name: str,
    index_dir: str,
    base_dir: str,
    admit: Any,
    group: int,
) -> Iterator[Any]:
    """Load one loader's documents (run as a Ray streaming generator task).

    Yields, for every ``group`` admitted documents, first their stand-ins and
    state hashes (``(stand-ins, states)``: the driver reads these), then the
    documents themselves (the driver keeps only the reference). Last comes
    ``(END, problems, kept, error, node)``, ``node`` the Ray node it ran on."""
    problems: list[tuple[str, str]] = []
    kept: list[str] = []

    def report(source: str, message: str) -> None:
        problems.append((source, message))

    loader = from_recipe(recipe)
    loader.open(
        Context(
            index_dir=Path(index_dir),
            base_dir=Path(base_dir),
            name=name,
            report=report,
            keep=kept.append,
        )
    )
    error: str | None = None
    try:
        configured = admit.labeller.configured(loader)
        batch = []
        for loaded in loader.load():
            doc = screened(loaded, name, report, kept.append)
            admitted = None if doc is None else admit(doc, configured, report)
            if admitted is None:
                continue
            batch.append(admitted)
            if len(batch) == group:
                yield [stand_in(d) for d in batch], [state_hash(d) for d in batch]
                yield batch
                batch = []
        if batch:
            yield [stand_in(d) for d in batch], [state_hash(d) for d in batch]
            yield batch
    except SourceUnavailableError as exc:
        error = str(exc)
    except Exception as exc:
        # a bug in the loader met part way: it fails alone, as in one process,
        # and every document it indexed that it did not give is kept
        error = (
            f"loader {name} ({type(loader).__name__}) failed: {exc!r}, a bug in its plugin "
            "or a file it cannot handle"
        )
    finally:
        loader.close()
    import ray

    yield END, tuple(problems), tuple(kept), error, ray.get_runtime_context().get_node_id()
