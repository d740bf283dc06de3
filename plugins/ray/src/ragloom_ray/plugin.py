"""Hook implementations of ragloom-ray: hookimpls only.

Importing this module does not import ray: the executor does in ``open()``.
"""

from __future__ import annotations

from ragloom import hookimpl
from ragloom.components import Executor
from ragloom.registry import Register

from .executor import RayExecutor


@hookimpl
def register_executors(register: Register[Executor]) -> None:
    register("ray", RayExecutor)
