"""Benchmarks of the real bot on the fake Discord. They print figures and never assert on time.

    python -m bench.interactions --channels 100 --moves 20   # many channels playing at once
    python -m bench.recovery --sessions 10000                # start-up, first click after it
    python -m bench.service --moves 5000                     # the bot's own share of a move
    python -m bench.pictures --repeat 20                     # drawing dice, cards, stories
    python -m bench.storage --games 20                       # what a real game stores

The bot runs in a child process (`bench.botproc`), a fresh interpreter with the real
`GameBot`, its cogs and a real SQLite file, talking HTTP and websocket on 127.0.0.1 to the
fake Discord of `tests/e2e/fake_discord.py`, which runs in the benchmark's own process as the
load generator. `bench.interactions --null-bot` swaps GameBot for a bare discord.py client
that echoes each clicked message: discord.py's own cost per click, for comparison."""
