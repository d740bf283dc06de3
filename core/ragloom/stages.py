"""Core's own hook implementations: hookimpls only, always registered.

``run_stage`` is ``trylast``: plugins' implementations run first and may
return a result; wrappers (``wrapper=True``) surround this one.
"""

from __future__ import annotations

from typing import Any

from .events import StageCall
from .hookspecs import hookimpl


@hookimpl(trylast=True)
def run_stage(call: StageCall) -> Any:
    return call.run()
