"""The bot's own configuration: a TOML file validated by pydantic, plus DISCORD_TOKEN."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bot.config_errors import describe
from bot.settings import GuildSettings
from bot.store import Shards, is_postgres_url

#: Messages posted below a table after which it counts as pushed out of sight.
REPOST_AFTER = 3


class ConfigError(Exception):
    """What is wrong with the configuration: one line, or one line per problem of a file."""


class BotConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    database: str = Field(
        "tablebot{shards}.sqlite3",
        description="SQLite file ({shards} becomes '-shards-0-1' when shard_ids is set), or a "
        "postgresql://user:password@host/dbname URL that several processes share.",
    )
    takeover_after: float = Field(
        10.0,
        ge=0.1,
        le=3600,
        description="On PostgreSQL: seconds a turn deadline of another process's servers may "
        "be overdue before this process plays it (that process is presumed dead).",
    )
    dev_guild_id: int | None = Field(None, description="Sync commands to this server only.")
    shard_count: int | None = Field(None, ge=1, le=10000)
    shard_ids: list[int] | None = None
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    repost_after: int = Field(
        REPOST_AFTER, ge=1, le=50, description="Messages below a table that push it out of sight."
    )
    repost_delay: float = Field(
        2.0, ge=0, le=60, description="Quiet seconds before a buried table is posted again."
    )
    cached_games: int = Field(
        2000,
        ge=10,
        le=1_000_000,
        description="Running games kept in memory; the least recently played idle ones are "
        "dropped and read again from the database on their next move.",
    )
    farkle_tables: str = Field(
        "farkle-tables",
        description="Folder where the Farkle bot's win tables are built (a few minutes of one "
        "core per rule set, once, in a child process) and kept; empty: the bot plays its "
        "expected-score policy without them.",
    )
    pictures: bool = Field(
        True,
        description="Show dice and cards as pictures: the bot uploads them once as its "
        "application's own emojis (text when that is refused).",
    )
    four_colour_cards: bool = Field(
        False,
        description="Card pictures of the four-colour deck: spades black, hearts red, "
        "diamonds blue, clubs green (no two suits alike even at emoji size).",
    )
    defaults: GuildSettings = Field(
        default_factory=GuildSettings, description="Settings of a server that set none."
    )

    @model_validator(mode="after")
    def _check_shards(self) -> BotConfig:
        if self.shard_ids is not None:
            if self.shard_count is None:
                raise ValueError("shard_ids needs shard_count")
            bad = [i for i in self.shard_ids if not 0 <= i < self.shard_count]
            if bad or not self.shard_ids:
                raise ValueError(f"shard_ids must be between 0 and {self.shard_count - 1}")
        return self

    def database_path(self) -> Path | str:
        """The SQLite file, or the PostgreSQL URL as written."""
        if is_postgres_url(self.database):
            return self.database
        shards = "" if self.shard_ids is None else "-shards-" + "-".join(map(str, self.shard_ids))
        return Path(self.database.replace("{shards}", shards))

    def shards(self) -> Shards | None:
        """The guilds this process serves, when it serves only some (shard_ids is set)."""
        if self.shard_ids is None or self.shard_count is None:
            return None
        return Shards(self.shard_count, tuple(self.shard_ids))


def check_token(raw: str | None) -> str:
    """The token as Discord wants it, or ConfigError with a hint for the usual paste mistakes
    (a `Bot ` prefix, quotes, spaces), which Discord would only answer with "improper token"."""
    if raw is None or not raw.strip():
        raise ConfigError(
            "DISCORD_TOKEN is not set: export the bot token from the Discord developer portal"
        )
    token = raw
    if token != token.strip():
        raise ConfigError(
            "DISCORD_TOKEN has spaces or line breaks around it: set it to the token alone"
        )
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"`":
        raise ConfigError(
            f"DISCORD_TOKEN is wrapped in {token[0]} quotes: remove them and keep the token alone"
        )
    if token.lower().startswith("bot "):
        raise ConfigError(
            "DISCORD_TOKEN starts with 'Bot ': remove that prefix, the bot adds it itself"
        )
    if any(c.isspace() for c in token) or any(c in "'\"`" for c in token):
        raise ConfigError(
            "DISCORD_TOKEN holds spaces or quotes: copy the token again from the Bot page"
        )
    return token


def load_config(path: Path, *, required: bool = False) -> BotConfig:
    """Read and validate `path`; built-in defaults when it is absent and not required."""
    if not path.exists():
        if required:
            raise ConfigError(f"config file {path} does not exist")
        return BotConfig()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None
    try:
        return BotConfig.model_validate(data)
    except ValidationError as exc:
        lines = describe(exc, BotConfig)
        if len(lines) == 1:
            raise ConfigError(f"{path}: {lines[0]}") from None
        listed = "".join(f"\n  {line}" for line in lines)
        raise ConfigError(f"{path} has {len(lines)} problems:{listed}") from None
