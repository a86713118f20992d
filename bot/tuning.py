"""How the bot's process is tuned for serving clicks: the garbage collector.

A click allocates thousands of short-lived objects (discord.py's models of the interaction,
its message and embeds, our rendered table); with Python's default budget of 700 allocations
the youngest generation is collected several times per click and, every so often, a full
collection walks every object of the process (100-160 ms pauses under load). A bigger budget
collects the young generation a few times a second instead, and freezing what start-up built
(modules, commands, the cogs, the guilds' caches) keeps full collections from walking it
again."""

from __future__ import annotations

import gc

#: The youngest generation's allocation budget (Python's default: 700).
GEN0_THRESHOLD = 20_000


def tune_gc() -> None:
    """Set the collector's budget; call once at process start."""
    gc.set_threshold(GEN0_THRESHOLD, *gc.get_threshold()[1:])


def freeze_start_up() -> None:
    """Move every object that exists now out of the collector's sight (call once the client
    is ready: what start-up built lives as long as the process). No collection first: a
    full one walks every object of a process with many guilds on the event loop (102 ms),
    and what start-up left as garbage in cycles is small (it stays, frozen)."""
    gc.freeze()
