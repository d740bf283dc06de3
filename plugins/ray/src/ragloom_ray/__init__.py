"""ragloom-ray: the ``ray`` executor, an index run's chunk and embed work on a Ray cluster.

    executor: {type: ray, address: auto, embed_actors: 8, num_gpus: 1, batch_size: 256}

The ledger, the journal, the store writes and the commit stay on the driver
(the process running ``ragloom index``); workers chunk and embed.
"""

from __future__ import annotations

from .executor import RayExecutor

__version__ = "0.1.0"

__all__ = ["RayExecutor", "__version__"]
