"""Pure game engines: no Discord, no SQLite, no asyncio. Same input and RNG, same output."""
