"""Leaderboards: each game's ladder of rated players, best first, with the asker's own place.

Players who log in with a key are rated (openskill) after every finished game, on one ladder per
game kind; guests and bots are never rated. A ladder is sorted by the conservative rating
``mu - 3 * sigma`` (openskill's ordinal): a player with few games has a wide uncertainty and ranks
below an equally strong one who has proved it. Ratings travel in thousandths, since the wire has
no floats. New in protocol 2.2: sent only to a client that asks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from ._codec import Range, Size
from ._messages_tournament import Milli
from ._registry import U32, ClientMessage, GameKindName, Name, PlayerId, Reply, message

MAX_LEADERBOARD = 100
"""The most rows one LEADERBOARD carries."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Rated:
    """One player's place on a ladder."""

    rank: Annotated[int, Range(1, 2**32 - 1)]
    """1 for the best; players with the same rating share no rank (the earlier id goes first)."""
    player_id: PlayerId
    name: Name
    """The name the player last logged in with."""
    rating_milli: Milli
    """The ladder's sort key, ``mu - 3 * sigma``, in thousandths."""
    mu_milli: Milli
    """openskill's estimate of the player's skill, in thousandths."""
    sigma_milli: Milli
    """Its uncertainty (one standard deviation), in thousandths: it shrinks with every game."""
    games: U32 = 0
    """Finished games of this kind stored for the player."""


@message("get_leaderboard")
class GetLeaderboard(ClientMessage):
    """Ask for a game's ladder; answered by LEADERBOARD."""

    kind: GameKindName = "sushi-go"
    """The game whose ladder to show."""
    limit: Annotated[int, Range(1, MAX_LEADERBOARD)] = 20
    """The most rows, from the top."""
    player_id: PlayerId | None = None
    """(2.5) Whose place to answer in ``mine`` (nil: the asker's own). A ladder is public: this
    lets a client show a key's place without logging in with it (which would set its name)."""


@message("leaderboard")
class Leaderboard(Reply):
    """The answer to GET_LEADERBOARD."""

    kind: GameKindName
    top: Annotated[tuple[Rated, ...], Size(0, MAX_LEADERBOARD)] = ()
    """The best rated players, best first (at most the request's ``limit``)."""
    total: U32 = 0
    """How many players the ladder holds."""
    mine: Rated | None = None
    """The asker's own row, wherever it stands (nil for a guest, or a player not yet rated at
    this game)."""
