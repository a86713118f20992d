"""Work the service starts and does not wait for (a part of `Tables`, bot/service.py): today
readying a game's bot players off the event loop when it starts. The tasks are kept until
they end, so none is collected half-way; a failure is logged and play goes on."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class Background:
    """The service's tasks that nobody awaits."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def in_thread(
        self, work: Callable[[], object], *, name: str, failed: Callable[[], None]
    ) -> None:
        """Run `work` in a thread; if it raises, `failed` is called where the exception is
        being handled (to log it with its traceback)."""

        async def run() -> None:
            try:
                await asyncio.to_thread(work)
            except Exception:
                failed()

        task = asyncio.create_task(run(), name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
