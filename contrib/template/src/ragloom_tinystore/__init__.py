"""ragloom-tinystore: a small dense store kept in a JSON file."""

from .store import TinyStore

__all__ = ["TinyStore"]
