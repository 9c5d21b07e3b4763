"""Sushi Roll, the dice game: pure, deterministic, no IO. See docs/RULES.md ("Sushi Roll").

The same shape as the card game in `engine` (legal actions, apply, events, observations, records,
replay, specific errors), but turns are sequential: only the seat to move acts, one action at a
time. Every roll comes from the game seed in the order `engine.games.sushi_roll.game` documents.
"""

from sushigo.engine.rounds import RoundScored

from . import events, scoring
from .actions import ACTION_TYPES, Reroll, RollAction, Swap, Take, action_from_data
from .chance import BELTS_STREAM, FACES_STREAM, RollChance, SeededChance, bag_stream
from .dice import (
    BAG_ORDER,
    CHOPSTICKS_SUPPLY,
    DICE_COUNTS,
    DICE_PER_PLAYER,
    DIE_FACES,
    MENU_SUPPLY,
    START_CHOPSTICKS,
    START_MENU,
    TOTAL_DICE,
    Die,
    DieKind,
    Face,
)
from .errors import (
    AlreadyTakenError,
    BadPositionError,
    BadTargetError,
    NoTokenError,
    NotYourTurnError,
)
from .events import *  # noqa: F403  (the events: `events.__all__`)
from .game import RollGame
from .observation import PlayerView, RollObservation, legal_actions
from .options import RollOptions
from .record import RollRecord, replay
from .rules import SUSHI_ROLL
from .rules import SUSHI_ROLL as RULES
from .scoring import *  # noqa: F403  (the scoring: `scoring.__all__`)

__all__ = [
    "ACTION_TYPES",
    "BAG_ORDER",
    "BELTS_STREAM",
    "CHOPSTICKS_SUPPLY",
    "DICE_COUNTS",
    "DICE_PER_PLAYER",
    "DIE_FACES",
    "FACES_STREAM",
    "MENU_SUPPLY",
    "RULES",
    "START_CHOPSTICKS",
    "START_MENU",
    "SUSHI_ROLL",
    "TOTAL_DICE",
    "AlreadyTakenError",
    "BadPositionError",
    "BadTargetError",
    "Die",
    "DieKind",
    "Face",
    "NoTokenError",
    "NotYourTurnError",
    "PlayerView",
    "Reroll",
    "RollAction",
    "RollChance",
    "RollGame",
    "RollObservation",
    "RollOptions",
    "RollRecord",
    "RoundScored",
    "SeededChance",
    "Swap",
    "Take",
    "action_from_data",
    "bag_stream",
    "legal_actions",
    "replay",
]
__all__ += events.__all__
__all__ += scoring.__all__
