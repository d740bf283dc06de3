"""How ``ragloom serve`` stops: uvicorn's server, with ragloom's answer to a
second Ctrl-C or SIGTERM.

The first signal stops the server gracefully: it takes no new connection,
waits ``--shutdown-timeout`` seconds for the requests in progress, then
closes the pipeline. uvicorn's own answer to a second Ctrl-C, its "force
exit", skipped the pipeline's close, logged two tracebacks (a
``KeyboardInterrupt``, then a ``CancelledError`` in the lifespan) and reset
the connections of the requests in progress. Here a second signal, either
one, says so in one line and cuts the requests in progress short at once, as
the shutdown timeout does when it runs out: each is answered 503
``shutting_down``; the server no longer waits for their connections to
end. The app's shutdown still runs, and the pipeline's close is waited for
a moment only (``Service.hurried``): a call cut short may still hold it,
and is left behind as the shutdown timeout leaves one. Any further signal
is ignored.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
from collections.abc import Callable
from types import FrameType

import uvicorn

__all__ = ["StoppingServer"]

log = logging.getLogger("ragloom.server")


class StoppingServer(uvicorn.Server):
    """``uvicorn.Server``, stopping as the module's docstring says."""

    def __init__(self, config: uvicorn.Config, *, on_hurry: Callable[[], None]) -> None:
        """``on_hurry``: called (in the event loop) on the second signal."""
        super().__init__(config)
        self._on_hurry = on_hurry
        self._loop: asyncio.AbstractEventLoop | None = None
        self._hurry = False
        self._cut: set[asyncio.Task[None]] = set()

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        await super().serve(sockets=sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        # in a signal handler: no logging (its locks) here, only flags, and
        # the rest handed to the event loop
        if sig not in self._captured_signals:  # raised again once stopped: each once
            self._captured_signals.append(sig)
        if not self.should_exit:
            self.should_exit = True
            self._soon(self._say_stopping, signal.Signals(sig).name)
        elif not self._hurry:
            self._hurry = True
            self._soon(self._cut_short, signal.Signals(sig).name)

    def _soon(self, callback: Callable[[str], None], *args: str) -> None:
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed: the server stopped
                self._loop.call_soon_threadsafe(callback, *args)

    def _say_stopping(self, name: str) -> None:
        busy = len(self.server_state.tasks)
        log.info(
            "%s: stopping; waiting up to %gs for %d request(s) in progress "
            "(a second Ctrl-C or SIGTERM cuts them short)",
            name,
            self.config.timeout_graceful_shutdown,
            busy,
        )

    def _cut_short(self, name: str) -> None:
        self._on_hurry()
        # uvicorn waits no longer for the connections to end (that of a
        # request cut short while it was answering never would), and skips
        # the app's shutdown: ``shutdown`` below runs it all the same
        self.force_exit = True
        log.warning(
            "%s, a second signal: stopping now; %d request(s) in progress are cut short",
            name,
            len(self._cancel()),
        )

    def _cancel(self) -> list[asyncio.Task[None]]:
        """Cancel the requests in progress, each once: its answer is then
        503 ``shutting_down`` (``RequestLog``), which a second cancel would
        cut short in turn."""
        cut = [t for t in self.server_state.tasks if not t.done() and t not in self._cut]
        for task in cut:
            self._cut.add(task)
            task.add_done_callback(self._cut.discard)
            task.cancel(msg="the server is stopping now (a second signal)")
        return cut

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self._hurry:  # requests that began between the signal and now
            self._cancel()
        await super().shutdown(sockets=sockets)
        lifespan = getattr(self, "lifespan", None)
        done = getattr(lifespan, "shutdown_event", None)
        if self.force_exit and lifespan is not None and done is not None and not done.is_set():
            # the pipeline closed (within ``HURRIED_CLOSE``) as on a graceful stop,
            # while the requests cut short send their 503
            self._cancel()
            await lifespan.shutdown()
