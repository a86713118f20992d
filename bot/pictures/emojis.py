"""How dice and cards are written on the tables: the application's own emojis (the pictures
of `faces`, uploaded once and found again by name after a restart), or today's text when
they could not be uploaded. The tables ask a `Faces`; `load_emojis` fills it at start-up.

An emoji's name carries a hash of its picture (`tb_d3s_1a2b3c`), so a redrawn picture is
uploaded under a new name and the old one is deleted; an unchanged one is never uploaded
twice."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
from collections.abc import Iterable

import discord

from bot.pictures.faces import LOOKS, DieLook, card_key, catalogue, die_key, png
from games.crap.cards import label, sort_cards
from games.kuriki.values import dice_text

log = logging.getLogger(__name__)

PREFIX = "tb_"
KEYCAPS = {1: "1️⃣", 2: "2️⃣", 3: "3️⃣", 4: "4️⃣", 5: "5️⃣", 6: "6️⃣"}


def emoji_name(key: str, picture: bytes) -> str:
    """`tb_<key>_<6 hex of the picture's hash>`: at most 32 characters, [A-Za-z0-9_]."""
    return f"{PREFIX}{key}_{hashlib.sha256(picture).hexdigest()[:6]}"


def wanted_emojis(four_colours: bool = False) -> dict[str, tuple[str, bytes]]:
    """Every picture as key -> (emoji name, PNG), a dict of the caller's own. Drawn once per
    process: the first call takes about a second (run it in a thread); a bot that switches
    decks, or the next bot a test starts in the same process, finds them drawn."""
    return dict(_drawn(four_colours))


@functools.cache
def _drawn(four_colours: bool) -> dict[str, tuple[str, bytes]]:
    out = {}
    for key, image in catalogue(four_colours).items():
        data = png(image)
        out[key] = (emoji_name(key, data), data)
    return out


class Faces:
    """Dice and cards as the table writes them. Without emojis (before they are loaded, or
    when the upload was refused) everything is today's text, so play never depends on them."""

    def __init__(self) -> None:
        self.use({})

    @property
    def pictures(self) -> bool:
        return bool(self._emojis)

    def use(self, emojis: dict[str, discord.PartialEmoji]) -> None:
        self._emojis = dict(emojis)
        # Every die as a button's picture and as text, by (face, look), worked out once: a
        # Farkle table writes a dozen dice on every move.
        self._die_emojis = {
            (face, look): self._emojis.get(die_key(face, look)) for face in KEYCAPS for look in LOOKS
        }
        self._die_texts = {
            (face, look): (
                (KEYCAPS[face] if look == "play" else str(face)) if emoji is None else str(emoji)
            )
            for (face, look), emoji in self._die_emojis.items()
        }

    def die_emoji(self, face: int, look: DieLook = "play") -> discord.PartialEmoji | None:
        """For a button or a select option; None without pictures."""
        return self._die_emojis[face, look]

    def die(self, face: int, look: DieLook = "play") -> str:
        """A die in the text: its picture, else a keycap in play and the digit otherwise
        (set aside, selected), as the tables always wrote them."""
        return self._die_texts[face, look]

    def dice(self, faces: Iterable[int], look: DieLook = "play", sep: str = " ") -> str:
        return sep.join(self.die(f, look) for f in faces)

    def pair(self, dice: tuple[int, int] | list[int]) -> str:
        """Kuriki's two dice: two pictures, else '3-4'."""
        return self.dice(dice) if self.pictures else dice_text(dice)

    def card_emoji(self, card: int) -> discord.PartialEmoji | None:
        return self._emojis.get(card_key(card))

    def card(self, card: int) -> str:
        emoji = self.card_emoji(card)
        return label(card) if emoji is None else str(emoji)

    def cards(self, cards: list[int], room: int = 1000) -> str:
        """Cards sorted, as pictures when they fit in `room` characters (an embed field
        holds 1024), else as text; 'none' for no card."""
        ordered = sort_cards(cards)
        shown = " ".join(self.card(c) for c in ordered)
        if len(shown) > room:
            shown = " ".join(label(c) for c in ordered)
        return shown or "none"


async def _upload(client: discord.Client, name: str, picture: bytes) -> discord.Emoji:
    """Create the emoji; if Discord refuses, look once more whether it exists after all
    (another process of a sharded bot uploading the same picture at the same moment)."""
    try:
        return await client.create_application_emoji(name=name, image=picture)
    except discord.HTTPException:
        again = [e for e in await client.fetch_application_emojis() if e.name == name]
        if not again:
            raise
        return again[0]


async def load_emojis(
    client: discord.Client, faces: Faces, four_colours: bool = False
) -> bool:
    """List the application's emojis, upload the missing pictures, delete our outdated ones
    (pictures since redrawn, or the other deck's cards), and let `faces` use them. Any
    refusal (no permission, the 2000 emojis limit, any HTTP error) keeps the text, says so
    once as a WARNING, and returns False."""
    wanted = await asyncio.to_thread(wanted_emojis, four_colours)
    try:
        existing = {e.name: e for e in await client.fetch_application_emojis()}
        found: dict[str, discord.PartialEmoji] = {}
        uploaded = 0
        for key, (name, picture) in wanted.items():
            emoji = existing.get(name)
            if emoji is None:
                emoji = await _upload(client, name, picture)
                uploaded += 1
            found[key] = discord.PartialEmoji(name=emoji.name, id=emoji.id)
    except (discord.HTTPException, discord.MissingApplicationID) as exc:
        log.warning(
            "Could not upload the dice and card pictures as application emojis (%s): "
            "the tables show them as text",
            exc,
        )
        return False
    faces.use(found)
    log.info("Dice and card pictures ready: %d emojis, %d uploaded now", len(found), uploaded)
    names = {name for name, _ in wanted.values()}
    for name, emoji in existing.items():
        if name.startswith(PREFIX) and name not in names:  # a picture since redrawn
            try:
                await emoji.delete()
            except discord.HTTPException as exc:
                log.info("Could not delete the outdated emoji %s (%s)", name, exc)
    return True
