"""Hook implementations only: what this plugin registers."""

from __future__ import annotations

from ragloom import Register, Store, hookimpl

from .store import TinyStore


@hookimpl
def register_stores(register: Register[Store]) -> None:
    register("tinystore", TinyStore)
