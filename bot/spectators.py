"""What anyone in the channel may see of a running game, privately (part of `Tables`): a
press of a public view's button (CRAP's Log) by someone not in the game is answered with
that view, as a player would see it. Every other click, and every player's, goes the move
path (bot/moves.py), which refuses someone not in the game."""

from __future__ import annotations

from bot.components import Click
from bot.errors import UserError
from bot.replies import Actor, Reply
from bot.sessions import Sessions
from bot.tables.base import TableAdapter


class Spectators:
    """Part of `Tables` (bot/service.py), before the move path it hands other clicks to."""

    adapters: dict[str, TableAdapter]
    sessions: Sessions

    async def click(
        self,
        actor: Actor,
        click: Click,
        message_id: int | None,
        *,
        ephemeral: bool = False,
        owner: int | None = None,
    ) -> Reply:
        adapter = self.adapters.get(click.kind)
        if adapter is not None and click.action in adapter.public_actions:
            shown = await self._public_view(actor, click, adapter)
            if shown is not None:
                return shown
        return await super().click(  # type: ignore[misc]  # Moves.click, next in Tables
            actor, click, message_id, ephemeral=ephemeral, owner=owner
        )

    async def _public_view(self, actor: Actor, click: Click, adapter: TableAdapter) -> Reply | None:
        """The view for a spectator, or None when the move path answers (a player, a game
        that is over or not started, a button of another game)."""
        async with self.sessions.lock(click.channel_id):
            session = await self.sessions.get(click.channel_id)
            if (
                session is None
                or session.kind != click.kind
                or session.game_id != click.game
                or not session.started
                or actor.id in adapter.player_ids(session.state)
            ):
                return None
            shown = adapter.public(session, click.action)
        if shown is None:
            raise UserError("There is nothing to show you right now.")
        return Reply.of_table(shown, ephemeral=True)
